#!/bin/sh
# Run the TUI benchmarks: bench/tui_bench.sh [BUILDDIR]
# Builds the replay driver and the bench program, then prints the figures
# with their budgets (DESIGN.md §10).  Run it in a build configured without
# --enable-asan: sanitizers make every figure meaningless.
set -e
b=${1:-.}
make -C "$b" tests/tui/tui_replay bench/tui_bench >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/tandem-tui-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$b/bench/tui_bench" "$b/tests/tui/tui_replay" "$work"
