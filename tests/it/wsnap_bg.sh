#!/bin/bash
# A background shell still running when a turn ends is named: its later
# writes are in no snapshot, so the turn's record says so, the turn browser
# lists it, and a rewind of the turn reports it; a turn that leaves no
# shell running writes no such record.
. "$(dirname "$0")/lib.sh"
W="$T/ws"
cd "$W" || exit 1
M=$$

printf 'one\n' >a.txt
bgcmd="sleep 30; : bgtick$M"
mock_start "$(scenario bg <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_b1","name":"run_bash","input":$(jq -nc --arg c "$bgcmd" '{command:$c,run_in_background:true}')},
   {"id":"toolu_w1","name":"run_bash","input":{"command":"echo two >a.txt"}}],"stop_reason":"tool_use"},
 {"text":"started","stop_reason":"end_turn"},
 {"tool_uses":[{"id":"toolu_w2","name":"run_bash","input":{"command":"echo three >b.txt"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "start it" --permission-mode yolo --output-format events >"$T/bg.jsonl" 2>"$T/err"
check "the turn ran" [ "$(cat a.txt)" = two ]
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
note() { jq -c 'select(.k == "files" and .running == true)' "$sess/log.jsonl"; }
check "a record of turn 1 names the running shell" \
	jq -e -s 'any(.[]; .k == "files" and .running == true and .turn == 1 and (.notes[0] | test("bash_1")))' "$sess/log.jsonl"
check "the note quotes its command" grep -q "bgtick$M" <<<"$(note)"
check "the note says a rewind does not undo it" grep -q 'a rewind does not undo it' <<<"$(note)"
check "the shell is gone once tandem exits" not pgrep -f "bgtick$M"

# A turn that leaves no background shell running writes no such record.
"$TANDEM" -c -p "more" --permission-mode yolo >/dev/null 2>"$T/err2"
check "turn 2 ran" [ -f b.txt ]
check "no note for turn 2" [ "$(jq -c 'select(.k == "files" and .running == true and .turn == 2)' "$sess/log.jsonl" | wc -l)" -eq 0 ]

# The rewind of turn 1 undoes the command's write and names the shell.
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "rewind exits 0" [ $? -eq 0 ]
check "rewind: a.txt is back" [ "$(cat a.txt)" = one ]
check "rewind: turn 2's file is gone" [ ! -e b.txt ]
check "rewind: the report names the shell that was still running" \
	grep -q 'background shell bash_1 .*was still running when turn 1 ended' "$T/rw.err"
check "rewind: nothing was left alone" not grep -q 'left alone' "$T/rw.err"
finish
