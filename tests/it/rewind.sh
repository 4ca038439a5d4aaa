#!/bin/bash
# Rewind, redo and fork, headless: three turns that edit files, then back
# to before turn 2 with the files, redo, a file edited by the user left
# alone, and a fork that goes on independently.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

SCEN=$(scenario turns <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_f2","text":"fork again done","stop_reason":"end_turn","repeat":3},
 {"match":"fork again","tool_uses":[{"id":"toolu_f2","name":"run_bash","input":{"command":"echo forked >>fork_ran"}}],"stop_reason":"tool_use","repeat":3},
 {"match":"toolu_f1","text":"fork done","stop_reason":"end_turn","repeat":3},
 {"match":"fork run","tool_uses":[{"id":"toolu_f1","name":"run_bash","input":{"command":"echo forked >>fork_ran"}}],"stop_reason":"tool_use","repeat":3},
 {"match":"after rewind","text":"fine","stop_reason":"end_turn","repeat":10},
 {"match":"toolu_t3","text":"edited a.txt again","stop_reason":"end_turn","repeat":6},
 {"match":"turn three","tool_uses":[{"id":"toolu_t3","name":"edit_file","input":{"path":"a.txt","old_string":"version 2","new_string":"version 3"}}],"stop_reason":"tool_use","repeat":6},
 {"match":"toolu_t2b","text":"edited a.txt, made b.txt","stop_reason":"end_turn","repeat":6},
 {"match":"turn two","tool_uses":[
   {"id":"toolu_t2a","name":"edit_file","input":{"path":"a.txt","old_string":"version 1","new_string":"version 2"}},
   {"id":"toolu_t2b","name":"write_file","input":{"path":"sub/b.txt","content":"new file\n"}}],"stop_reason":"tool_use","repeat":6},
 {"match":"toolu_t1","text":"wrote a.txt","stop_reason":"end_turn","repeat":6},
 {"match":"turn one","tool_uses":[{"id":"toolu_t1","name":"write_file","input":{"path":"a.txt","content":"version 1\n"}}],"stop_reason":"tool_use","repeat":6},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
mock_start "$SCEN"
three_turns() {
	rm -rf "$TANDEM_HOME" a.txt sub fork_ran
	"$TANDEM" -p "turn one" --permission-mode accept-edits >/dev/null 2>"$T/err" &&
	"$TANDEM" -c -p "turn two" --permission-mode accept-edits >/dev/null 2>>"$T/err" &&
	"$TANDEM" -c -p "turn three" --permission-mode accept-edits >/dev/null 2>>"$T/err"
}
check "three turns ran" three_turns
check "after three turns a.txt is version 3" [ "$(cat a.txt)" = "version 3" ]
check "after three turns b.txt exists" [ -f sub/b.txt ]

"$TANDEM" -c --rewind-to 2 --files -p "after rewind" --output-format events >"$T/out.jsonl" 2>"$T/rw.err"
check "rewind run exits 0" [ $? -eq 0 ]
check "rewind restored a.txt byte for byte" [ "$(od -c a.txt)" = "$(printf 'version 1\n' | od -c)" ]
check "rewind removed the file turn 2 created" [ ! -e sub/b.txt ]
check "rewind no longer says run_bash is not tracked" not grep -q "run_bash are not tracked" "$T/rw.err"
last=$(sed -n '$p' "$MOCK_LOG")
check "the next request no longer holds turn 2" not grep -q 'turn two' <<<"$(echo "$last" | jq -c .body.messages)"
check "the next request still holds turn 1" grep -q 'turn one' <<<"$(echo "$last" | jq -c .body.messages)"
check "the next request holds the new prompt" grep -q 'after rewind' <<<"$(echo "$last" | jq -c .body.messages)"
check "the log still holds turn 2 (history is not deleted)" grep -q 'turn two' "$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)/log.jsonl"

# Redo: only while the conversation has not moved on; here it has.
"$TANDEM" -c --redo -p "after rewind" >/dev/null 2>"$T/redo.err"
check "redo after a new turn is refused" grep -q 'moved on' "$T/redo.err"

# A rewind with no new turn after it can be redone.
check "three turns again" three_turns
"$TANDEM" -c --rewind-to 2 --files -p "after rewind" >/dev/null 2>/dev/null
check "second rewind restored a.txt" [ "$(cat a.txt)" = "version 1" ]
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
id=$(basename "$sess")
# Rewind again without a prompt: the conversation only, then redo it.
"$TANDEM" -r "$id" --rewind-to 2 --files -p "after rewind" >/dev/null 2>&1
"$TANDEM" -r "$id" --redo -p "after rewind" >/dev/null 2>"$T/redo.err"
check "redo refused once a turn followed" grep -q 'moved on' "$T/redo.err"

# The user edits a file after tandem did: rewinding leaves it alone, with a warning.
check "three turns once more" three_turns
echo "the user's own text" >a.txt
"$TANDEM" -c --rewind-to 2 --files -p "after rewind" >/dev/null 2>"$T/rw.err"
check "a user-edited file is left alone" [ "$(cat a.txt)" = "the user's own text" ]
check "and the user is warned" grep -q 'changed outside tandem' "$T/rw.err"
check "the other file is still restored" [ ! -e sub/b.txt ]

# Fork: a new session from the newest one; its first run_bash is a dry run.
check "three turns for the fork" three_turns
orig=$(basename "$(ls -td "$TANDEM_HOME"/sessions/*/ | head -n 1)")
"$TANDEM" -c --fork -p "fork run" --permission-mode yolo --output-format events >"$T/fork.jsonl" 2>"$T/fork.err"
check "fork exits 0" [ $? -eq 0 ]
fork=$(head -n 1 "$T/fork.jsonl" | jq -r .id)
check "fork is a new session" [ "$fork" != "$orig" ] && [ -n "$fork" ]
check "fork's first run_bash ran dry" [ ! -e fork_ran ]
check "fork's dry run is reported to the model" grep -q 'dry run' <(jq -r 'select(.type=="tool_result") | .content' "$T/fork.jsonl")
check "the sessions list shows the fork's origin" grep -q "fork of $orig" <("$TANDEM" sessions)
"$TANDEM" -r "$orig" -p "after rewind" >/dev/null 2>&1
check "the original session can still be resumed" [ $? -eq 0 ]
"$TANDEM" -r "$fork" -p "fork again" --permission-mode yolo >/dev/null 2>&1
check "the fork can be resumed, and then runs commands" [ "$(cat fork_ran 2>/dev/null)" = forked ]
flog="$TANDEM_HOME/sessions/$fork/log.jsonl"
check "the fork keeps its source's turns with their tools, tokens and times" \
    [ "$(jq -s '[.[] | select(.k == "turn" and .turn <= 3 and .tokens > 0 and (.tools | length) > 0)] | length' "$flog")" -eq 3 ]
check "tandem sessions counts the fork's turns: 3 kept, 2 of its own" \
    [ "$("$TANDEM" sessions | awk -v f="$fork" '$1 == f { print $4 }')" = 5 ]
"$TANDEM" -r "$fork" --rewind-to 2 --files -p "after rewind" >/dev/null 2>"$T/forkrw.err"
check "a rewind in the fork takes back its source's edits" [ "$(cat a.txt)" = "version 1" ] && [ ! -e sub/b.txt ]

# Files in an extra root (--add-dir) are put back too, through the walk of that root.
mkdir -p "$T/extra/deep"
SCEN2=$(scenario extra <<J
{"check_echo":false,"responses":[
 {"match":"toolu_e2b","text":"edited x, made y","stop_reason":"end_turn","repeat":4},
 {"match":"extra two","tool_uses":[
   {"id":"toolu_e2a","name":"edit_file","input":{"path":"$T/extra/deep/x.txt","old_string":"extra 1","new_string":"extra 2"}},
   {"id":"toolu_e2b","name":"write_file","input":{"path":"$T/extra/new/y.txt","content":"made in turn 2\n"}}],"stop_reason":"tool_use","repeat":4},
 {"match":"toolu_e1","text":"wrote x","stop_reason":"end_turn","repeat":4},
 {"match":"extra one","tool_uses":[{"id":"toolu_e1","name":"write_file","input":{"path":"$T/extra/deep/x.txt","content":"extra 1\n"}}],"stop_reason":"tool_use","repeat":4},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
mock_start "$SCEN2"
extra_turns() {
	rm -rf "$TANDEM_HOME" "$T/extra/deep/x.txt" "$T/extra/new"
	"$TANDEM" -p "extra one" --add-dir "$T/extra" --permission-mode accept-edits >/dev/null 2>"$T/err" &&
	"$TANDEM" -c -p "extra two" --add-dir "$T/extra" --permission-mode accept-edits >/dev/null 2>>"$T/err"
}
check "two turns wrote in the extra root" extra_turns
check "after two turns x.txt in the extra root is extra 2" [ "$(cat "$T/extra/deep/x.txt")" = "extra 2" ]
check "after two turns y.txt exists in the extra root" [ -f "$T/extra/new/y.txt" ]
"$TANDEM" -c --rewind-to 2 --files --add-dir "$T/extra" -p "after rewind" >/dev/null 2>"$T/rw.err"
check "rewind with --add-dir exits 0" [ $? -eq 0 ]
check "rewind restored x.txt in the extra root" [ "$(cat "$T/extra/deep/x.txt")" = "extra 1" ]
check "rewind removed y.txt in the extra root" [ ! -e "$T/extra/new/y.txt" ]
check "rewind reports the restored file" grep -q "restored $T/extra/deep/x.txt" "$T/rw.err"
# Without the root, the same rewind leaves the files where they are and says why.
check "two turns again" extra_turns
"$TANDEM" -c --rewind-to 2 --files -p "after rewind" >/dev/null 2>"$T/rw.err"
check "without --add-dir x.txt is left as it is" [ "$(cat "$T/extra/deep/x.txt")" = "extra 2" ]
check "without --add-dir y.txt is left as it is" [ -f "$T/extra/new/y.txt" ]
check "without --add-dir the rewind says why" grep -q "$T/extra/deep/x.txt: " "$T/rw.err"

finish
