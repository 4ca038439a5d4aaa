#!/bin/sh
# Build or run the libFuzzer targets (called by `make fuzz`; see README.md).
#   run.sh build NAME...   compile tests/fuzz/fuzz_NAME.c into tests/fuzz/fuzz_NAME
#   run.sh run NAME...     the gate: replay each target's corpus, then
#                          FUZZ_RUNS mutations from FUZZ_SEED (1): the same
#                          tree passes or fails the same way every time
#   run.sh long NAME...    run each for FUZZ_SECONDS from FUZZ_SEED (0: a
#                          random seed, printed), to find new inputs
# The environment carries CC, CPPFLAGS, CFLAGS, LDFLAGS, LIBS, FUZZ_SECONDS,
# FUZZ_RUNS and FUZZ_SRCDIR.  Each target prints one line, "PASS: fuzz_NAME (...)" or
# "FAIL: fuzz_NAME (...)"; the status is 1 when any failed.
set -u
mode=$1
shift
out=tests/fuzz
mkdir -p "$out"
failed=0
# Address-space randomisation reaches the coverage libFuzzer steers by (the
# values of compared pointers), so the gate runs without it where it can.
norand=
if [ "$mode" = run ] && setarch "$(uname -m)" -R true 2>/dev/null; then
	norand="setarch $(uname -m) -R"
fi
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
	# Leaks count as failures (libFuzzer's default with ASan); an input
	# that takes over 10 s or 2 GiB is one too.  The gate is bounded by
	# runs, never by time, so a slow machine runs the same inputs as a fast
	# one; FUZZ_LIMIT seconds (600) only stop a target that hangs, as a failure.
	# -reload=0: the corpus directory is read once, not at times the clock picks.
	if [ "$mode" = long ]; then
		seed=${FUZZ_SEED:-0}
		[ "$seed" = 0 ] && seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
		bound="-max_total_time=$FUZZ_SECONDS"
		limit=$((FUZZ_SECONDS + 600))
	else
		seed=${FUZZ_SEED:-1}
		bound="-runs=${FUZZ_RUNS:-4000}"
		limit=${FUZZ_LIMIT:-600}
	fi
	t0=$(date +%s)
	ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	    timeout "$limit" $norand "$bin" -seed="$seed" "$bound" -reload=0 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	    -print_final_stats=1 -artifact_prefix="$work/crash/" "$work/corpus" "$seeds" \
	    >"$work/log" 2>&1
	rc=$?
	[ "$rc" -eq 124 ] && echo "fuzz check: the run took over $limit s" >>"$work/log"
	secs=$(($(date +%s) - t0))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
	cov=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1 | sed -n 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/p')
	seedn=$(ls "$seeds" | wc -l)
	stats="${runs:-?} runs in $secs s, seed $seed, ${cov:-cov: ?}, ${speed:-?} exec/s, $seedn seeds"
	if [ "$rc" -eq 0 ]; then
		echo "PASS: fuzz_$name ($stats)"
	else
		echo "FAIL: fuzz_$name (status $rc; $stats; the input is in $work/crash/)"
		grep -E 'ERROR|SUMMARY|runtime error|fuzz check|#[0-9]+ in ' "$work/log" | head -n 20 | sed 's/^/	/'
		failed=1
	fi
done
exit $failed
