#!/bin/sh
# Build or run the libFuzzer targets (called by `make fuzz`; see README.md).
#   run.sh build NAME...   compile tests/fuzz/fuzz_NAME.c into tests/fuzz/fuzz_NAME
#   run.sh run NAME...     run each for FUZZ_SECONDS on a copy of its seeds
# The environment carries CC, CPPFLAGS, CFLAGS, LDFLAGS, LIBS, FUZZ_SECONDS
# and FUZZ_SRCDIR.  Each target prints one line, "PASS: fuzz_NAME (...)" or
# "FAIL: fuzz_NAME (...)"; the status is 1 when any failed.
set -u
mode=$1
shift
out=tests/fuzz
mkdir -p "$out"
failed=0
for name in "$@"; do
	bin=$out/fuzz_$name
	if [ "$mode" = build ]; then
		src=$FUZZ_SRCDIR/fuzz_$name.c
		[ "$bin" -nt "$src" ] && [ "$bin" -nt libtandem_agent.a ] && [ "$bin" -nt libtandem_tui.a ] &&
		    [ "$bin" -nt libtandem_tools.a ] && [ "$bin" -nt libtandem_lib.a ] &&
		    [ "$bin" -nt "$FUZZ_SRCDIR/fuzz.h" ] && continue
		echo "  CCLD     $bin"
		# shellcheck disable=SC2086
		if ! $CC $CPPFLAGS -iquote "$FUZZ_SRCDIR" $CFLAGS $LDFLAGS -o "$bin" "$src" $LIBS; then
			echo "FAIL: fuzz_$name (it does not build)"
			failed=1
		fi
		continue
	fi
	work=$out/work/$name
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/crash"
	seeds=$FUZZ_SRCDIR/corpus/$name
	[ -d "$seeds" ] || { echo "FAIL: fuzz_$name (no seeds in $seeds)"; failed=1; continue; }
	if [ ! -x "$bin" ]; then
		echo "FAIL: fuzz_$name (not built)"
		failed=1
		continue
	fi
	# Leaks count as failures (libFuzzer's default with ASan); a run that
	# takes over 10 s or 2 GiB is one too.
	t0=$(date +%s)
	ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	    "$bin" -seed="${FUZZ_SEED:-1}" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	    -print_final_stats=1 -artifact_prefix="$work/crash/" "$work/corpus" "$seeds" \
	    >"$work/log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
	cov=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1 | sed -n 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/p')
	seedn=$(ls "$seeds" | wc -l)
	stats="${runs:-?} runs in $secs s, ${cov:-cov: ?}, ${speed:-?} exec/s, $seedn seeds"
	if [ "$rc" -eq 0 ]; then
		echo "PASS: fuzz_$name ($stats)"
	else
		echo "FAIL: fuzz_$name (status $rc; $stats; the input is in $work/crash/)"
		grep -E 'ERROR|SUMMARY|runtime error|fuzz check|#[0-9]+ in ' "$work/log" | head -n 20 | sed 's/^/	/'
		failed=1
	fi
done
exit $failed
