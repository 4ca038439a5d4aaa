#!/bin/bash
# Ignore rules as git has them, through the real binary: tandem started in
# a package of a monorepo (and in a linked worktree of it) sees with grep,
# glob and list_dir exactly the files `git ls-files --others --cached
# --exclude-standard` lists there: the root's .gitignore, info/exclude and
# the user's core.excludesFile all apply; files git tracks under an ignore
# rule are seen.  A walk cut off by depth says so.
. "$(dirname "$0")/lib.sh"
export GIT_CONFIG_NOSYSTEM=1
unset GIT_DIR GIT_WORK_TREE

if ! command -v git >/dev/null; then
	echo "1..0 # SKIP git not found"
	exit 0
fi

cat >"$HOME/.gitconfig" <<'C'
[user]
	name = T
	email = t@example.org
[Core]
	excludesFile = "~/global ignore"
C
printf '# hello\n*.swp\n' >"$HOME/global ignore"

M="$T/mono"
mkdir -p "$M/pkg/src/gen" "$M/pkg/node_modules/dep" "$M/pkg/build" "$M/build" "$M/pkg/sub"
printf '# hello\nnode_modules/\n/build/\n*.log\n!keep.log\ndist\n**/gen/*.c\nodd?\n' >"$M/.gitignore"
printf '\357\273\277first-rule\n/local-only\n# hello\n' >"$M/pkg/.gitignore"
for f in README pkg/src/a.c pkg/src/gen/x.c pkg/src/gen/x.h pkg/node_modules/dep/index.js \
    pkg/build/out.o pkg/build.txt pkg/x.log pkg/keep.log pkg/dist pkg/first-rule \
    pkg/local-only pkg/sub/local-only pkg/notes.swp pkg/secret.txt pkg/oddx \
    "pkg/odd$(printf '\303\251')" build/root-out; do
	printf 'hello\n' >"$M/$f"
done
(cd "$M" && git init -q && git add README .gitignore pkg/src/a.c pkg/.gitignore &&
    git commit -qm init && printf 'secret.txt\n' >>.git/info/exclude &&
    git worktree add -q ../wt) >/dev/null 2>&1
check "the repository and its worktree were made" [ -f "$T/wt/.git" ]
cp -r "$M/pkg/." "$T/wt/pkg/"
rm -rf "$T/wt/pkg/.gitignore" && cp "$M/pkg/.gitignore" "$T/wt/pkg/.gitignore"

scen=$(scenario look <<'J'
{"responses":[
 {"tool_uses":[
   {"id":"toolu_g","name":"glob","input":{"pattern":"**/*"}},
   {"id":"toolu_r","name":"grep","input":{"pattern":"hello","output_mode":"files"}},
   {"id":"toolu_l","name":"list_dir","input":{}},
   {"id":"toolu_s","name":"list_dir","input":{"path":"src"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)

result() { jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .content' "$T/out.jsonl"; }
# The names list_dir shows, without sizes, "/" or notes.
names() { grep -v '^\[\|^$' | sed 's/  [0-9.]* [KMGT]*B$//; s|/$||' | LC_ALL=C sort; }

# tools_see_git LABEL: glob, grep and list_dir (calls toolu_g, toolu_r, toolu_l)
# saw what git lists ($T/git.txt); the differences shown.
tools_see_git() {
	local label=$1
	result toolu_g | grep -v '^\[\|^$' | LC_ALL=C sort >"$T/glob.txt"
	check "$label: glob lists what git lists" cmp -s "$T/git.txt" "$T/glob.txt"
	cmp -s "$T/git.txt" "$T/glob.txt" || diff "$T/git.txt" "$T/glob.txt" | diag
	result toolu_r | grep -v '^\[\|^$' | LC_ALL=C sort >"$T/grep.txt"
	check "$label: grep searches what git lists" cmp -s "$T/git.txt" "$T/grep.txt"
	cmp -s "$T/git.txt" "$T/grep.txt" || diff "$T/git.txt" "$T/grep.txt" | diag
	cut -d/ -f1 "$T/git.txt" | LC_ALL=C sort -u >"$T/git-top.txt"
	result toolu_l | names >"$T/ls.txt"
	check "$label: list_dir shows git's top-level entries" cmp -s "$T/git-top.txt" "$T/ls.txt"
	cmp -s "$T/git-top.txt" "$T/ls.txt" || diff "$T/git-top.txt" "$T/ls.txt" | diag
}

# compare DIR LABEL: run tandem in DIR and compare each tool with git there.
compare() {
	local dir=$1 label=$2
	(cd "$dir" && git ls-files -z --others --cached --exclude-standard) |
	    tr '\0' '\n' | LC_ALL=C sort >"$T/git.txt"
	mock_start "$scen"
	(cd "$dir" && "$TANDEM" -p "look" --output-format events) >"$T/out.jsonl" 2>"$T/err"
	check "$label: tandem exits 0" [ $? -eq 0 ]
	check "$label: git lists files" [ "$(wc -l <"$T/git.txt")" -ge 8 ]
	tools_see_git "$label"
	check "$label: list_dir counts the hidden" grep -q 'hidden: .git and git-ignored' <(result toolu_l)
	[ -d "$dir/src" ] || return 0
	sed -n 's|^src/||p' "$T/git.txt" | cut -d/ -f1 | LC_ALL=C sort -u >"$T/git-src.txt"
	result toolu_s | names >"$T/ls-src.txt"
	check "$label: list_dir src shows git's entries" cmp -s "$T/git-src.txt" "$T/ls-src.txt"
	for f in node_modules x.log dist first-rule local-only notes.swp secret.txt oddx; do
		check "$label: $f is left out" not grep -qx "$f" "$T/ls.txt"
	done
	for f in keep.log build.txt sub "odd$(printf '\303\251')"; do
		check "$label: $f is shown" grep -qx "$f" "$T/ls.txt"
	done
}

compare "$M/pkg" "monorepo package"
compare "$T/wt/pkg" "linked worktree package"
compare "$M" "monorepo top"
check "monorepo top: the top's build/ is left out" not grep -qx build "$T/ls.txt"
check "monorepo top: pkg/build is kept (the rule is anchored)" grep -qx pkg/build/out.o "$T/glob.txt"

# Without the user's excludes file the swap file comes back.
mv "$HOME/.gitconfig" "$HOME/gitconfig.off"
mock_start "$scen"
(cd "$M/pkg" && "$TANDEM" -p "look" --output-format events) >"$T/out.jsonl" 2>"$T/err"
check "without core.excludesFile notes.swp is listed" grep -qx notes.swp <(result toolu_g)
mv "$HOME/gitconfig.off" "$HOME/.gitconfig"

# A broken ~/.gitconfig is named in the result, and the rest still applies.
cp "$HOME/.gitconfig" "$HOME/gitconfig.good"
printf '[core]\n\texcludesFile = "open\n' >"$HOME/.gitconfig"
mock_start "$scen"
(cd "$M/pkg" && "$TANDEM" -p "look" --output-format events) >"$T/out.jsonl" 2>"$T/err"
check "a broken .gitconfig is reported" grep -q '\.gitconfig: line 2 is not valid git configuration' <(result toolu_g)
check "the root's rules still apply" not grep -q node_modules <(result toolu_g)
mv "$HOME/gitconfig.good" "$HOME/.gitconfig"

# Files git tracks under an ignore rule are seen: b/.gitignore holding "*"
# with a committed b/keep.c, a top "build/" rule with tracked files below it
# (the untracked there stay hidden: git does not look into build/), a rule
# three levels down; with index versions 2, 3 and 4, and in a repository
# nested in another.  glob, grep and list_dir (of the top, b and build)
# show what `git ls-files --others --cached --exclude-standard` lists.
scen_tr=$(scenario tracked <<'J'
{"responses":[
 {"tool_uses":[
   {"id":"toolu_g","name":"glob","input":{"pattern":"**/*"}},
   {"id":"toolu_r","name":"grep","input":{"pattern":"hello","output_mode":"files"}},
   {"id":"toolu_l","name":"list_dir","input":{}},
   {"id":"toolu_b","name":"list_dir","input":{"path":"b"}},
   {"id":"toolu_u","name":"list_dir","input":{"path":"build"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)
make_tracked() {
	local r=$1 f
	mkdir -p "$r/b" "$r/build/sub" "$r/build/t" "$r/lib/deep/er/d2"
	for f in README b/keep.c b/junk.c build/keep.txt build/junk.o build/sub/x.c \
	    build/t/y.c lib/deep/er/gen.c lib/deep/er/new.c lib/deep/er/d2/f.c lib/plain.c top.o; do
		printf 'hello\n' >"$r/$f"
	done
	printf '# hello\nbuild/\n*.o\n' >"$r/.gitignore"
	printf '# hello\n*\n' >"$r/b/.gitignore"
	printf '# hello\n*.c\nd2/\n' >"$r/lib/deep/er/.gitignore"
	(cd "$r" && git init -q && git add README .gitignore lib/plain.c &&
	    git add -f b/.gitignore b/keep.c build/keep.txt build/t/y.c build/junk.o \
	    lib/deep/er/.gitignore lib/deep/er/gen.c lib/deep/er/d2/f.c &&
	    git commit -qm tracked) >/dev/null 2>&1
}
compare_tracked() {
	local dir=$1 label=$2
	(cd "$dir" && git ls-files -z --others --cached --exclude-standard) |
	    tr '\0' '\n' | LC_ALL=C sort >"$T/git.txt"
	mock_start "$scen_tr"
	(cd "$dir" && "$TANDEM" -p "look" --output-format events) >"$T/out.jsonl" 2>"$T/err"
	check "$label: tandem exits 0" [ $? -eq 0 ]
	check "$label: git lists b/keep.c" grep -qx b/keep.c "$T/git.txt"
	tools_see_git "$label"
	check "$label: list_dir b shows keep.c" grep -qx keep.c <(result toolu_b | names)
	check "$label: list_dir b leaves junk.c out" not grep -qx junk.c <(result toolu_b | names)
	check "$label: list_dir build shows keep.txt and t" \
	    [ "$(result toolu_u | names | grep -cx 'keep.txt\|t\|junk.o')" -eq 3 ]
}
R="$T/tracked"
make_tracked "$R"
for v in 2 3 4; do
	# version 3 is written only for extended flags: an intent-to-add entry has them
	[ $v = 3 ] && printf 'hello\n' >"$R/b/ita.c" && (cd "$R" && git add -f -N b/ita.c)
	(cd "$R" && git update-index --index-version $v)
	check "index version $v was written" [ "$(od -An -tu1 -j7 -N1 "$R/.git/index" | tr -d ' ')" = $v ]
	compare_tracked "$R" "index v$v"
done
make_tracked "$R/inner"
compare_tracked "$R/inner" "nested repository"

# A walk cut off by depth says so instead of "No files match".
D="$T/deep"
p=$D
for i in $(seq 1 135); do p=$p/d; done
mkdir -p "$p" && printf 'hello\n' >"$p/bottom.txt"
mock_start "$(scenario deep <<'J'
{"responses":[
 {"tool_uses":[
   {"id":"toolu_g","name":"glob","input":{"pattern":"**/bottom.txt"}},
   {"id":"toolu_r","name":"grep","input":{"pattern":"hello","output_mode":"files"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
(cd "$D" && "$TANDEM" -p "deep" --output-format events) >"$T/out.jsonl" 2>"$T/err"
check "glob says deeper directories were not searched" \
    grep -q '1 directory deeper than 128 levels not searched' <(result toolu_g)
check "glob does not just say nothing matches" grep -q 'down to the depth limit' <(result toolu_g)
check "grep says deeper directories were not searched" \
    grep -q '1 directory deeper than 128 levels not searched' <(result toolu_r)

finish
