#!/bin/bash
# A turn's changes as one unified diff (tandem -c --diff N): an edit by
# write_file and a command's changes (edited, created, deleted, a mode
# changed, a file without a last newline, a directory made) folded per
# file; `git apply -R` of it takes the workspace back byte for byte and
# `git apply` forward again; binary files go as git binary patches, which
# git apply takes both ways in a git repository, byte for byte; content not
# kept or gone from the store is named on a line git apply passes over;
# a turn that does not exist and --diff without a session are refused.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
CMD='printf "three\\n" >>f.txt; printf "two\\n" >>a.txt; printf "new\\n" >new.txt; rm gone.txt; chmod 755 script.sh; printf "tail" >>nonl.txt; mkdir -p d && printf "x\\n" >d/x'
# A command's changes to binary files: one changed, one made, one removed, one with
# its mode and content changed, one with its mode alone, one across stored blocks,
# one too large for the snapshots, and a text file with more lines than a
# line diff takes.
BCMD="printf '\\000\\001\\002\\003PNG\\377\\376\\000more' >img.bin; printf '\\000new\\377' >new.bin; rm old.bin; printf '\\000mm' >m.bin; chmod 755 m.bin; chmod 755 s.bin; printf 'Z\\000' | dd of=rnd.bin bs=1 seek=70000 conv=notrunc status=none; printf 'x' >>huge.bin; yes x | head -n 2000001 >many.txt"
SCEN=$(scenario both <<J
{"check_echo":false,"responses":[
 {"match":"toolu_n1","text":"binaries done","stop_reason":"end_turn","repeat":5},
 {"match":"binary turn","tool_uses":[{"id":"toolu_n1","name":"run_bash","input":{"command":$(jq -Rn --arg c "$BCMD" '$c')}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_o1","text":"outer done","stop_reason":"end_turn","repeat":5},
 {"match":"change outer","tool_uses":[{"id":"toolu_o1","name":"run_bash","input":{"command":"printf 'z\\\\n' >$T/outer.txt && printf 'q\\\\n' >>a.txt"}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_x1","text":"extra done","stop_reason":"end_turn","repeat":5},
 {"match":"change extra","tool_uses":[{"id":"toolu_x1","name":"run_bash","input":{"command":"cd $T/extra && printf 'two\\\\n' >>e.txt && printf 'n\\\\n' >new.txt && rm gone.txt && chmod 700 e.txt"}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_b1","text":"binary done","stop_reason":"end_turn","repeat":5},
 {"match":"make blob","tool_uses":[{"id":"toolu_b1","name":"run_bash","input":{"command":"printf '\\\\0bin\\\\377' >blob; printf 'x' >>.env"}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_c1","text":"did both","stop_reason":"end_turn","repeat":5},
 {"match":"toolu_w1","tool_uses":[{"id":"toolu_c1","name":"run_bash","input":{"command":$(jq -Rn --arg c "$CMD" '$c')}}],"stop_reason":"tool_use","repeat":5},
 {"match":"do both","tool_uses":[{"id":"toolu_w1","name":"write_file","input":{"path":"f.txt","content":"one\\ntwo\\n"}}],"stop_reason":"tool_use","repeat":5},
 {"text":"ok","stop_reason":"end_turn","repeat":50}
]}
J
)
mock_start "$SCEN"

# Every entry of the workspace: path, type, mode, and content.
state() {
	(cd "$W" && find . -mindepth 1 | LC_ALL=C sort | while read -r p; do
		if [ -d "$p" ]; then echo "$p dir"
		else echo "$p file $(stat -c %a "$p") $(sha256sum <"$p" | cut -c1-16)"; fi
	done)
}

rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
printf 'zero\n' >f.txt
printf 'one\n' >a.txt
printf 'bye\n' >gone.txt
printf '#!/bin/sh\necho hi\n' >script.sh
chmod 644 script.sh
printf 'no newline' >nonl.txt
printf 'SECRET=1\n' >.env
printf '.env\n' >.gitignore
BEFORE=$(state)
"$TANDEM" -p "do both" --permission-mode yolo >/dev/null 2>"$T/err"
check "the turn ran" [ -f new.txt -a "$(cat f.txt)" = "$(printf 'one\ntwo\nthree')" ]
AFTER=$(state)

"$TANDEM" -c --diff 1 >"$T/t1.diff" 2>"$T/d.err"
check "--diff exits 0" [ $? -eq 0 ]
check "--diff says nothing on stderr" [ ! -s "$T/d.err" ]
diag "$T/t1.diff"
# f.txt: the edit and the command's append folded into one change from "zero".
check "f.txt: from before the edit to after the command" \
	grep -qxF -- '-zero' "$T/t1.diff"
check "f.txt: the edit's and the command's lines together" \
	[ "$(sed -n '/^+++ b\/f.txt$/,/^diff /p' "$T/t1.diff" | grep -c -e '^+one$' -e '^+two$' -e '^+three$')" -eq 3 ]
check "new.txt: a new file" grep -qx 'new file mode 100644' "$T/t1.diff"
check "gone.txt: a deleted file" grep -qx 'deleted file mode 100644' "$T/t1.diff"
check "script.sh: the mode change named" \
	[ "$(grep -A2 -x 'diff --git a/script.sh b/script.sh' "$T/t1.diff" | tail -n 2 | tr '\n' ' ')" = "old mode 100644 new mode 100755 " ]
check "nonl.txt: no newline at the end, as diff -u says it" grep -qx '\\ No newline at end of file' "$T/t1.diff"
check "d: the directory named" grep -qx '# d: nothing -> dir' "$T/t1.diff"
# The file hunks are what diff -u says (the headers aside).
printf 'one\n' >"$T/a.old"
check "a.txt's hunk is diff -u's" \
	[ "$(sed -n '/^+++ b\/a.txt$/,/^diff /p' "$T/t1.diff" | grep -v -e '^diff ' -e '^+++' -e '^# ')" = \
	  "$(diff -u "$T/a.old" a.txt | tail -n +3)" ]

# The diff is a patch: reversed, it takes the turn back; forward, it does it again.
git apply -R "$T/t1.diff" 2>"$T/ga.err"
check "git apply -R takes it" [ $? -eq 0 ]
diag "$T/ga.err"
check "git apply -R: the workspace is back byte for byte" [ "$(state)" = "$BEFORE" ]
if [ "$(state)" != "$BEFORE" ]; then diff <(echo "$BEFORE") <(state) | diag; fi
git apply "$T/t1.diff" 2>"$T/ga.err"
check "git apply forward takes it again" [ $? -eq 0 -a "$(state)" = "$AFTER" ]

# Binary files and content that was not kept are named, not diffed.
"$TANDEM" -c -p "make blob" --permission-mode yolo >/dev/null 2>"$T/err"
"$TANDEM" -c --diff 2 >"$T/t2.diff" 2>"$T/d.err"
check "binary: a git binary patch" \
	[ "$(sed -n '/^diff --git a\/blob b\/blob$/,/^literal/p' "$T/t2.diff" | sed -n '2p;4p;5p')" = \
	  "$(printf 'new file mode 100644\nGIT binary patch\nliteral 5')" ]
check "binary: no 'Binary files differ' git would refuse" not grep -q '^Binary files' "$T/t2.diff"
check "ignored .env: named as not kept" grep -qx '# .env: changed; its content was not kept' "$T/t2.diff"
check "turn 2 does not show turn 1's files" not grep -q 'a.txt' "$T/t2.diff"

# A turn rewound with its files is gone, and so is its diff.
"$TANDEM" -c --rewind-to 2 --files -p "after" >/dev/null 2>"$T/rw.err"
check "the rewind took the blob" [ ! -e blob ]
"$TANDEM" -c --diff 2 >"$T/t2b.diff" 2>"$T/d.err"
r=$?
check "a rewound turn: --diff 2 is refused" [ $r -ne 0 -a ! -s "$T/t2b.diff" ]
check "... as a turn that is not in the conversation" grep -q 'there is no turn 2' "$T/d.err"
"$TANDEM" -c --diff 1 >"$T/t1b.diff" 2>"$T/d.err"
check "turn 1's diff is as it was" cmp -s "$T/t1.diff" "$T/t1b.diff"

# An extra root (--add-dir) is snapshotted too: a command's changes there are rewound.
mkdir -p "$T/extra"
printf 'one\n' >"$T/extra/e.txt"
printf 'bye\n' >"$T/extra/gone.txt"
chmod 644 "$T/extra/e.txt"
XBEFORE=$(cd "$T/extra" && ls -l --time-style=+ . | sed 1d; cat e.txt gone.txt)
"$TANDEM" -c -p "change extra" --add-dir "$T/extra" --permission-mode yolo >/dev/null 2>"$T/err"
check "the command changed the extra root" [ -f "$T/extra/new.txt" -a ! -e "$T/extra/gone.txt" ]
xturn=$(jq -r 'select(.k == "files" and .id == "toolu_x1") | .turn' "$TANDEM_HOME"/sessions/*/log.jsonl)
check "the extra root's changes are recorded" [ -n "$xturn" ]
"$TANDEM" -c --diff "$xturn" --add-dir "$T/extra" >"$T/x.diff" 2>"$T/d.err"
check "--diff shows the extra root's file with its absolute path" grep -qxF "+++ b/$T/extra/new.txt" "$T/x.diff"
"$TANDEM" -c --rewind-to "$xturn" --files --add-dir "$T/extra" -p "after" >/dev/null 2>"$T/rw.err"
check "rewind: the extra root is back byte for byte, with its modes" \
	[ "$(cd "$T/extra" && ls -l --time-style=+ . | sed 1d; cat e.txt gone.txt)" = "$XBEFORE" ]
diag "$T/rw.err"

# An extra root holding the workspace and TANDEM_HOME: each file is indexed once, tandem's home never.
"$TANDEM" -c -p "change outer" --add-dir "$T" --permission-mode yolo >/dev/null 2>"$T/err"
orec=$(jq -c 'select(.k == "files" and .id == "toolu_o1") | [.files[].path]' "$TANDEM_HOME"/sessions/*/log.jsonl)
want='["'"$T"'/outer.txt","a.txt"]'
check "outer: the extra root's new file is recorded" grep -qF "\"$T/outer.txt\"" <<<"$orec"
check "outer: the workspace's file once, as the workspace's" [ "$orec" = "$want" ]
check "outer: nothing of TANDEM_HOME" not grep -qF "$TANDEM_HOME" <<<"$orec"
[ "$orec" = "$want" ] || diag <<<"$orec"

# Binary files: git binary patches, which git apply -R takes back byte for byte in a
# git repository, and git apply forward does again; the file too large for the
# snapshots is named on a line of its own and git apply leaves it as it is.
cd "$W" || exit 1
printf '\000\001\002\003PNG\377\376' >img.bin
printf '\000old\000' >old.bin
printf '\000m' >m.bin
printf '\000s' >s.bin
head -c 150000 /dev/urandom >rnd.bin
head -c 8500000 /dev/zero >huge.bin
chmod 644 img.bin old.bin m.bin s.bin rnd.bin huge.bin
BINS="img.bin new.bin old.bin m.bin s.bin rnd.bin many.txt"
# Each file's mode and bytes (or "absent").
bins() {
	for f in $BINS; do
		if [ -e "$1/$f" ]; then echo "$f $(stat -c %a "$1/$f") $(sha256sum <"$1/$f" | cut -c1-16)"
		else echo "$f absent"; fi
	done
}
# One file's lines in a diff: from its "diff --git" to the next file's or a "# " line.
block() {
	awk -v h="diff --git a/$1 b/$1" '$0 == h { on = 1; next } on && (/^diff --git / || /^# /) { on = 0 } on' "$2"
}
rm -rf "$T/bin.before" && cp -a "$W" "$T/bin.before"
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"snapshots": {"max_file_mb": 8}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -c -p "binary turn" --permission-mode yolo >/dev/null 2>"$T/err"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
check "binary turn: the command ran" [ -e new.bin -a ! -e old.bin -a "$(stat -c %a m.bin)" = 755 ]
rm -rf "$T/bin.after" && cp -a "$W" "$T/bin.after"
nturn=$(jq -r 'select(.k == "files" and .id == "toolu_n1") | .turn' "$TANDEM_HOME"/sessions/*/log.jsonl)
"$TANDEM" -c --diff "$nturn" >"$T/n.diff" 2>"$T/d.err"
check "binary turn: --diff exits 0, quietly" [ $? -eq 0 -a ! -s "$T/d.err" ]
check "binary turn: six binary patches" [ "$(grep -cx 'GIT binary patch' "$T/n.diff")" -eq 6 ]
check "binary turn: the text file too long for a line diff is a binary patch" \
	[ "$(block many.txt "$T/n.diff" | sed -n '1p;3,4p' | cut -c1-16)" = "$(printf 'new file mode 10\nGIT binary patch\nliteral 4000002')" ]
check "binary turn: full blob ids, as git's own" \
	grep -qx "index $(git hash-object "$T/bin.before/img.bin")\.\.$(git hash-object img.bin) 100644" "$T/n.diff"
check "binary turn: the new file's old side is the null id" \
	grep -qx "index 0\{40\}\.\.$(git hash-object new.bin)" "$T/n.diff"
check "binary turn: the mode and content change, as git writes it" \
	[ "$(grep -A4 -x 'diff --git a/m.bin b/m.bin' "$T/n.diff" | sed 1d)" = \
	  "$(printf 'old mode 100644\nnew mode 100755\nindex %s..%s\nGIT binary patch' \
	     "$(git hash-object "$T/bin.before/m.bin")" "$(git hash-object m.bin)")" ]
check "binary turn: the mode alone, without a patch" \
	[ "$(block s.bin "$T/n.diff")" = "$(printf 'old mode 100644\nnew mode 100755')" ]
check "binary turn: the deleted file, as git writes it" \
	[ "$(block old.bin "$T/n.diff" | sed -n '1,4p')" = "$(printf 'deleted file mode 100644\nindex %s..%s\nGIT binary patch\nliteral 0' \
	     "$(git hash-object "$T/bin.before/old.bin")" 0000000000000000000000000000000000000000)" ]
check "binary turn: the file too large is named on one line" \
	grep -qx '# huge.bin: changed; its content was not kept' "$T/n.diff"
check "binary turn: nothing git apply would refuse" not grep -q '^Binary files' "$T/n.diff"
diag "$T/d.err"
rm -rf "$T/g" && cp -a "$T/bin.after" "$T/g" && (cd "$T/g" && git init -q)
(cd "$T/g" && git apply --check -R "$T/n.diff") 2>"$T/ga.err"
check "binary turn: git apply -R --check takes the whole diff" [ $? -eq 0 ]
diag "$T/ga.err"
(cd "$T/g" && git apply -R "$T/n.diff") 2>"$T/ga.err"
check "binary turn: git apply -R takes it" [ $? -eq 0 ]
check "binary turn: every file back, byte for byte and mode" [ "$(bins "$T/g")" = "$(bins "$T/bin.before")" ]
[ "$(bins "$T/g")" = "$(bins "$T/bin.before")" ] || diff <(bins "$T/bin.before") <(bins "$T/g") | diag
for f in img.bin old.bin m.bin rnd.bin; do
	check "binary turn: $f back (cmp)" cmp "$T/g/$f" "$T/bin.before/$f"
done
check "binary turn: new.bin gone again" [ ! -e "$T/g/new.bin" ]
check "binary turn: huge.bin left as it was after the turn" cmp -s "$T/g/huge.bin" "$T/bin.after/huge.bin"
(cd "$T/g" && git apply "$T/n.diff") 2>"$T/ga.err"
check "binary turn: git apply forward on the old tree" [ $? -eq 0 ]
check "binary turn: ... gives the new one" [ "$(bins "$T/g")" = "$(bins "$T/bin.after")" ]
for f in img.bin new.bin m.bin rnd.bin many.txt; do
	check "binary turn: $f as after the turn (cmp)" cmp "$T/g/$f" "$T/bin.after/$f"
done
diag "$T/ga.err"

# A content gone from the store: that file is named, the rest still applies.
hash=$(jq -r 'select(.k == "files" and .id == "toolu_n1") | .files[] | select(.path == "img.bin") | .before' \
	"$TANDEM_HOME"/sessions/*/log.jsonl)
find "$TANDEM_HOME" -type f -name "$hash" -delete
"$TANDEM" -c --diff "$nturn" >"$T/n2.diff" 2>"$T/d.err"
check "store: --diff still exits 0" [ $? -eq 0 ]
check "store: the file whose content is gone is named on one line" grep -q '^# img.bin: ' "$T/n2.diff"
check "store: ... and only it is missing" [ "$(grep -cx 'GIT binary patch' "$T/n2.diff")" -eq 5 ]
rm -rf "$T/g" && cp -a "$T/bin.after" "$T/g"
(cd "$T/g" && git apply -R "$T/n2.diff") 2>"$T/ga.err"
check "store: git apply -R takes the rest" [ $? -eq 0 -a ! -e "$T/g/new.bin" ]
check "store: ... old.bin back" cmp -s "$T/g/old.bin" "$T/bin.before/old.bin"
check "store: img.bin is left as it is" cmp -s "$T/g/img.bin" "$T/bin.after/img.bin"
diag "$T/ga.err"
grep '^# ' "$T/n2.diff" | diag

# Refusals: one sentence each, and a failing status.
"$TANDEM" -c --diff 9 >"$T/o" 2>"$T/d.err"
r=$?
check "--diff 9: refused" [ $r -ne 0 -a ! -s "$T/o" ]
check "--diff 9: in one sentence" grep -qx 'tandem: there is no turn 9 in this conversation' "$T/d.err"
"$TANDEM" --diff 1 >"$T/o" 2>"$T/d.err"
r=$?
check "--diff without -c: refused" [ $r -ne 0 ]
check "--diff without -c: said" grep -q -- '--diff goes with --continue' "$T/d.err"
"$TANDEM" -c --diff x >"$T/o" 2>"$T/d.err"
r=$?
check "--diff x: refused" [ $r -ne 0 ]
check "--diff x: said" grep -q -- '--diff takes a turn number' "$T/d.err"

finish
