#!/bin/bash
# Build tandem twice, plainly and under AddressSanitizer and
# UndefinedBehaviorSanitizer, run the whole suite in each, run the unit
# tests under valgrind, replay each fuzz target's corpus and a fixed-seed
# run of FUZZ_RUNS inputs (the same tree passes or fails the same way), and
# end with one line: "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
autoreconf -fi >/dev/null 2>&1 || { echo "autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0

# Add the counts of one `make check` summary.
count() {
	local log=$1 p f e x
	p=$(sed -n 's/^# PASS: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^# FAIL: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	e=$(sed -n 's/^# ERROR: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	x=$(sed -n 's/^# XPASS: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${e:-0} + ${x:-0}))
}

# run_suite NAME CHECKJOBS CONFIGURE-ARGS...: build with a job a core, run
# the suite with CHECKJOBS tests at once.
run_suite() {
	local name=$1 checkjobs=$2; shift 2
	local dir="$top/build-$name"
	echo "== $name: configure $*"
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! (cd "$dir" && "$top/configure" -q "$@" && make -j"$jobs" >/dev/null 2>"$dir/build.err"); then
		cat "$dir/build.err" 2>/dev/null | tail -n 40
		echo "== $name: the build failed"
		failed=$((failed + 1))
		return
	fi
	(cd "$dir" && make -j"$checkjobs" check >"$dir/check.out" 2>&1)
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|# )' "$dir/check.out" | grep -v '^PASS' || true
	if grep -qE '^(FAIL|ERROR)' "$dir/check.out"; then
		for l in $(find "$dir/tests" -name '*.log' 2>/dev/null); do
			grep -qE '^(not ok|Bail out)' "$l" && { echo "--- $l"; tail -n 30 "$l"; }
		done
	fi
	if ! grep -q '^# PASS:' "$dir/check.out"; then
		tail -n 30 "$dir/check.out"
		failed=$((failed + 1))
	fi
	count "$dir/check.out"
}

# The plain suite waits on loopback sockets, tmux and child processes far
# more than it computes (under a quarter of its wall time is CPU time):
# twice as many tests as cores run at once.  Under the sanitizers a test
# computes several times more: a test a core.
run_suite plain $((jobs * 2)) --enable-werror
run_suite asan "$jobs" --enable-werror --enable-asan

# valgrind over the unit tests of the plain build: every one must be clean.
# They compute and do not wait, and each runs alone on one core: a test a
# core at once, the results read in the tests' order when all are done.
vg_one() {
	local t=$1
	(cd "$top/build-plain" && top_srcdir="$top" top_builddir="$top/build-plain" \
	    timeout 600 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --child-silent-after-fork=yes \
	    "$t" >/dev/null 2>"$t.vg")
	echo $? >"$t.vgrc"
}
if command -v valgrind >/dev/null 2>&1 && [ -d "$top/build-plain/tests" ]; then
	echo "== valgrind"
	vg_tests=()
	for t in "$top"/build-plain/tests/test_*; do
		[ -x "$t" ] && [ -f "$t" ] || continue
		case "$t" in *.log|*.trs|*.sh|*.vg|*.vgrc) continue ;; esac
		vg_tests+=("$t")
		rm -f "$t.vgrc"
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		vg_one "$t" &
	done
	wait
	for t in "${vg_tests[@]}"; do
		if [ "$(cat "$t.vgrc" 2>/dev/null)" = 0 ]; then
			passed=$((passed + 1))
		else
			echo "valgrind: $(basename "$t") is not clean:"; tail -n 20 "$t.vg"
			failed=$((failed + 1))
		fi
	done
fi

# The libFuzzer targets (tests/fuzz) under AddressSanitizer and UBSan: the
# corpus replayed and FUZZ_RUNS mutations from seed 1, bounded by runs and
# not by time, so the result does not depend on the machine's speed (longer
# random runs: make fuzz-long).  Each counts as one pass or one failure.
run_fuzz() {
	local dir="$top/build-fuzz" cc
	cc=$(command -v clang || command -v clang-14 || true)
	echo "== fuzz: the corpus and ${FUZZ_RUNS:-4000} runs from seed 1, a target"
	if [ -z "$cc" ]; then
		echo "== fuzz: clang is not installed (scripts/install-deps.sh installs it)"
		failed=$((failed + 1))
		return
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! (cd "$dir" && "$top/configure" -q CC="$cc" --enable-fuzz && make -j"$jobs" fuzz-build >"$dir/build.out" 2>&1); then
		tail -n 40 "$dir/build.out" 2>/dev/null
		echo "== fuzz: the build failed"
		failed=$((failed + 1))
		return
	fi
	(cd "$dir" && make fuzz FUZZ_RUNS="${FUZZ_RUNS:-4000}" FUZZ_SEED=1 >"$dir/fuzz.out" 2>&1)
	grep -E '^(PASS|FAIL|	)' "$dir/fuzz.out"
	passed=$((passed + $(grep -c '^PASS: fuzz_' "$dir/fuzz.out")))
	failed=$((failed + $(grep -c '^FAIL: fuzz_' "$dir/fuzz.out")))
}
run_fuzz

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
