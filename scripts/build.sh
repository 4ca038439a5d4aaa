#!/bin/sh
# Configure and build tandem in ./build (warnings are errors).  Extra
# arguments go to configure, e.g. --enable-asan.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$top/build}
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null)
mkdir -p "$dir"
cd "$dir"
[ -f Makefile ] || "$top/configure" -q --enable-werror "$@"
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
echo "built $dir/tandem"
