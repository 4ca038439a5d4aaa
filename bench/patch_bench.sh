#!/bin/sh
# patch_bench.sh: time tandem's apply_patch on a generated patch of 1,500
# files next to git apply on the same patch.  See bench/README.md.
#
#	sh bench/patch_bench.sh [DRIVER]
#
# DRIVER is the built bench/patch_bench.  Environment: PATCH_BENCH_DIR
# (default /tmp/tandem-patch-bench), PATCH_BENCH_FILES (default 1500),
# PATCH_BENCH_RUNS (timed runs of each, default 3; the best is shown).
set -eu

DRIVER=${1:-./bench/patch_bench}
DIR=${PATCH_BENCH_DIR:-/tmp/tandem-patch-bench}
FILES=${PATCH_BENCH_FILES:-1500}
RUNS=${PATCH_BENCH_RUNS:-3}

if [ ! -x "$DRIVER" ]; then
	echo "patch_bench.sh: $DRIVER not found; run 'make bench' in the build directory" >&2
	exit 2
fi
DRIVER=$(cd "$(dirname "$DRIVER")" && pwd)/$(basename "$DRIVER")
command -v git >/dev/null || { echo "patch_bench.sh: git is needed" >&2; exit 2; }

# A repository of $FILES C files of 200-400 lines in 30 directories, and a
# commit changing each file in three places: the patch is its git diff.
rm -rf "$DIR"
mkdir -p "$DIR/repo"
cd "$DIR/repo"
git init -q .
awk -v files="$FILES" 'BEGIN {
	srand(7);
	for (f = 0; f < files; f++) {
		path = sprintf("src/d%02d/f%04d.c", f % 30, f);
		if (f < 30) system("mkdir -p src/d" sprintf("%02d", f));
		n = 200 + int(rand() * 200);
		for (i = 0; i < n; i++)
			printf("int fn_%d_%d(int x) { return x * %d + %d; }\n", f, i, i, f) > path;
		close(path);
	}
}'
git add -A
git -c user.name=b -c user.email=b@b commit -q -m base
find src -name '*.c' | while read -r f; do
	sed -i -e '20s/return x/return -x/' -e '100s/$/ \/* changed *\//' -e '150a\
int added_line;' "$f"
done
git diff >"$DIR/p.diff"
git -c user.name=b -c user.email=b@b stash -q
echo "patch: $(wc -l <"$DIR/p.diff") lines, $(grep -c '^diff --git' "$DIR/p.diff") files"

best() { sort -n | head -n 1; }
tandem_times() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		git checkout -q -- .
		"$DRIVER" "$DIR/repo" "$DIR/p.diff"
		i=$((i + 1))
	done
}
git_times() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		git checkout -q -- .
		s=$(date +%s.%N)
		git apply "$DIR/p.diff"
		e=$(date +%s.%N)
		echo "$s $e" | awk '{ printf("%.3f\n", $2 - $1) }'
		i=$((i + 1))
	done
}
t=$(tandem_times | best)
git diff --quiet && { echo "patch_bench.sh: apply_patch changed nothing" >&2; exit 1; }
g=$(git_times | best)
echo "apply_patch: $t s   git apply: $g s   ratio: $(echo "$t $g" | awk '{ printf("%.2f", $1 / $2) }')"
git checkout -q -- .
