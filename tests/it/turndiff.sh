#!/bin/bash
# A turn's changes as one unified diff (tandem -c --diff N): an edit by
# write_file and a command's changes (edited, created, deleted, a mode
# changed, a file without a last newline, a directory made) folded per
# file; `git apply -R` of it takes the workspace back byte for byte and
# `git apply` forward again; binary files and content not kept are named;
# a turn that does not exist and --diff without a session are refused.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
CMD='printf "three\\n" >>f.txt; printf "two\\n" >>a.txt; printf "new\\n" >new.txt; rm gone.txt; chmod 755 script.sh; printf "tail" >>nonl.txt; mkdir -p d && printf "x\\n" >d/x'
SCEN=$(scenario both <<J
{"check_echo":false,"responses":[
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
check "binary: named" grep -qx 'Binary files /dev/null and b/blob differ' "$T/t2.diff"
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
