#!/bin/sh
# grep_bench.sh: time tandem's grep tool against grep -rn (and rg, if
# installed) on a generated tree of 20,000+ files.  See bench/README.md.
#
#	sh bench/grep_bench.sh [DRIVER]
#
# DRIVER is the built bench/grep_bench.  Environment: GREP_BENCH_DIR (where
# the tree goes, default /tmp/tandem-grep-bench), GREP_BENCH_FILES (source
# files, default 20000), GREP_BENCH_RUNS (timed runs per case, default 5).
set -eu

DRIVER=${1:-./bench/grep_bench}
DIR=${GREP_BENCH_DIR:-/tmp/tandem-grep-bench}
FILES=${GREP_BENCH_FILES:-20000}
RUNS=${GREP_BENCH_RUNS:-5}
TREE=$DIR/tree

if [ ! -x "$DRIVER" ]; then
	echo "grep_bench.sh: $DRIVER not found; run 'make bench' in the build directory" >&2
	exit 2
fi

# The tree: $FILES source files of mixed sizes under src/ (a few of 1 MB),
# 500 binary files (with the needles inside, to be skipped), and ignored
# material holding needles too: node_modules/ and build/ (in .gitignore),
# *.log files, and .git/.  The same seed gives the same tree every time.
gen_tree() {
	rm -rf "$TREE"
	mkdir -p "$TREE/.git/objects" "$TREE/assets"
	# A .gitignore of the usual size and kinds of rule for a C project.
	cat > "$TREE/.gitignore" <<-'EOF'
	# objects and libraries
	*.o
	*.obj
	*.a
	*.so
	*.so.*
	*.dylib
	*.dll
	*.lib
	*.la
	*.lo
	*.d
	*.gch
	*.pch
	# executables and debug files
	*.exe
	*.out
	*.elf
	*.hex
	*.dSYM/
	*.su
	*.pdb
	*.i*86
	*.x86_64
	# build systems
	/autom4te.cache/
	/config.status
	/config.log
	Makefile.in
	.deps/
	.dirstamp
	[Dd]ebug/
	[Rr]elease/
	cmake-build-*/
	**/CMakeFiles/
	# editors
	*~
	*.sw[op]
	.vscode/
	.idea/
	# this tree
	node_modules/
	build/
	*.log
	!keep.log
	EOF
	awk -v files="$FILES" -v root="$TREE" 'BEGIN {
		for (i = 0; i < files; i += 100)
			printf "%s/src/m%02d/d%03d\n", root, (i / 100) % 10, i / 100
		for (i = 0; i < 100; i++) printf "%s/node_modules/pkg%02d\n", root, i
		for (i = 0; i < 20; i++) printf "%s/build/out%02d\n", root, i
		for (i = 0; i < 16; i++) printf "%s/.git/objects/%02x\n", root, i
	}' /dev/null | xargs mkdir -p
	awk -v files="$FILES" -v root="$TREE" '
	function word() { return W[int(rand() * nw) + 1] }
	function body(f, n,    i, r, s) {
		for (i = 0; i < n; i++) {
			r = rand()
			if (r < 0.00001)
				s = "\tconst char *tag = \"ZEPHYR_UNIQUE_TOKEN\";"
			else if (r < 0.00002)
				s = "\t/* zephyr_Unique_token " word() " */"
			else if (r < 0.00007)
				s = "static int fn_" int(rand() * 1000) "_handler(struct " word() " *p)"
			else if (r < 0.00027)
				s = "\ttrace(LEVEL_TRACE, \"" word() "\");"
			else if (r < 0.3)
				s = "\t" word() " = " word() "(" word() ", " int(rand() * 100) ");"
			else if (r < 0.5)
				s = "\tif (" word() " != NULL && " word() "->" word() " > 0)"
			else if (r < 0.6)
				s = "\t\treturn " word() ";"
			else if (r < 0.7)
				s = "/* " word() " " word() " " word() " " word() " */"
			else if (r < 0.8)
				s = "}"
			else
				s = "\tstruct " word() " *" word() " = &" word() "[" int(rand() * 64) "];"
			print s > f
		}
		close(f)
	}
	function size(   r) {
		r = rand()
		if (r < 0.75) return 10 + int(rand() * 50)
		if (r < 0.97) return 60 + int(rand() * 240)
		if (r < 0.998) return 300 + int(rand() * 1200)
		return 25000 + int(rand() * 5000)
	}
	BEGIN {
		srand(42)
		nw = split("alpha beta gamma delta value result buffer count index node " \
		    "tree list map state error queue entry table limit cursor", W, " ")
		for (i = 0; i < files; i++)
			body(sprintf("%s/src/m%02d/d%03d/f%05d.c", root,
			    int(i / 100) % 10, int(i / 100), i), size())
		for (i = 0; i < 200; i++)
			body(sprintf("%s/src/m%02d/d%03d/run%03d.log", root,
			    int(i / 2) % 10, int(i / 2), i), 200)
		for (i = 0; i < 2000; i++)
			body(sprintf("%s/node_modules/pkg%02d/index%04d.js", root,
			    i % 100, i), size() + 20)
		for (i = 0; i < 1000; i++)
			body(sprintf("%s/build/out%02d/gen%04d.c", root, i % 20, i), size())
		for (i = 0; i < 500; i++)
			body(sprintf("%s/.git/objects/%02x/obj%03d", root, i % 16, i), 50)
		for (i = 0; i < 500; i++) {
			f = sprintf("%s/assets/img%03d.bin", root, i)
			printf "\211PNG\r\n\032\n%c%c%c", 0, 0, 0 > f
			for (j = 0; j < 200; j++)
				printf "%s ZEPHYR_UNIQUE_TOKEN fn_1_handler(%c\n", word(), 0 > f
			close(f)
		}
	}' /dev/null
	touch "$DIR/.stamp-v3-$FILES"
}

if [ ! -f "$DIR/.stamp-v3-$FILES" ]; then
	echo "generating $FILES files in $TREE ..."
	mkdir -p "$DIR"
	rm -f "$DIR"/.stamp-*
	gen_tree
fi

now_ns() { date +%s%N; }

# median CMD...: run CMD $RUNS times (after one warm-up run); set MEDIAN (ms)
# and LINES (the output's lines, from the warm-up).
median() {
	LINES=$("$@" 2>/dev/null | wc -l | tr -d ' ')
	: > "$DIR/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		t0=$(now_ns)
		"$@" > /dev/null 2>&1 || true
		t1=$(now_ns)
		echo $(( (t1 - t0) / 1000 )) >> "$DIR/times"
		i=$((i + 1))
	done
	MEDIAN=$(sort -n "$DIR/times" | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f", m / 1000 }')
}

tandem() {
	"$DRIVER" "$TREE" "{\"pattern\":\"$1\",\"output_mode\":\"$2\",\"ignore_case\":$3,\"max_results\":1000000}"
}

GREP_SKIP="--exclude-dir=.git --exclude-dir=node_modules --exclude-dir=build --exclude=*.log -I"
HAVE_RG=no
if command -v rg > /dev/null 2>&1; then
	HAVE_RG=yes
fi

nfiles=$(find "$TREE" -type f | wc -l | tr -d ' ')
nbytes=$(du -sk "$TREE" | awk '{ printf "%.0f", $1 / 1024 }')
echo "tree: $TREE, $nfiles files, ${nbytes} MB; $RUNS runs per case, median wall time"
printf '%-18s %-8s %10s %8s %8s\n' case tool "ms" lines "vs grep"
row() {
	printf '%-18s %-8s %10s %8s %8s\n' "$1" "$2" "$3" "$4" "$5"
}

# bench_case NAME TANDEM_PATTERN MODE ICASE GREP_FLAGS RG_FLAGS PATTERN
bench_case() {
	name=$1 pat=$2 mode=$3 icase=$4 gflags=$5 rflags=$6 re=$7
	# shellcheck disable=SC2086
	median grep -r $GREP_SKIP $gflags -e "$re" "$TREE"
	g=$MEDIAN
	row "$name" grep "$g" "$LINES" "1.00"
	median tandem "$pat" "$mode" "$icase"
	row "" tandem "$MEDIAN" "$LINES" "$(awk -v a="$MEDIAN" -v b="$g" 'BEGIN { printf "%.2f", a / b }')"
	if [ "$HAVE_RG" = yes ]; then
		# shellcheck disable=SC2086
		median rg --no-heading --no-config $rflags -e "$re" "$TREE"
		row "" rg "$MEDIAN" "$LINES" "$(awk -v a="$MEDIAN" -v b="$g" 'BEGIN { printf "%.2f", a / b }')"
	fi
}

bench_case "literal" "ZEPHYR_UNIQUE_TOKEN" content false "-n" "-n" ZEPHYR_UNIQUE_TOKEN
bench_case "regex" 'fn_[0-9]+_handler\\(' content false "-n -E" "-n" 'fn_[0-9]+_handler\('
bench_case "case-insensitive" "zephyr_unique_token" content true "-n -i" "-n -i" zephyr_unique_token
bench_case "files" "LEVEL_TRACE" files false "-l" "-l" LEVEL_TRACE
rm -f "$DIR/times"
