#!/bin/bash
# One response with reads and edits, against the mock: reads and edits in
# tool_use order, edits skipped after a failed one, ask mode denying edits
# headless, accept-edits applying them.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

reset_files() {
	printf 'alpha\nbeta\ngamma\n' >a.txt
	printf 'one\ntwo\n' >b.txt
}

scen=$(scenario mixed <<'J'
{"responses":[
 {"text":"Reading, then editing.","tool_uses":[
   {"id":"toolu_r1","name":"read_file","input":{"path":"a.txt"}},
   {"id":"toolu_r2","name":"grep","input":{"pattern":"two","output_mode":"content"}},
   {"id":"toolu_e1","name":"edit_file","input":{"path":"a.txt","old_string":"beta","new_string":"BETA"}},
   {"id":"toolu_e2","name":"edit_file","input":{"path":"b.txt","old_string":"no such line","new_string":"x"}},
   {"id":"toolu_e3","name":"edit_file","input":{"path":"b.txt","old_string":"one","new_string":"ONE"}},
   {"id":"toolu_r3","name":"read_file","input":{"path":"b.txt"}}],
  "stop_reason":"tool_use"},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)

# accept-edits: e1 applies, e2 fails, e3 and r3 are skipped.
reset_files
mock_start "$scen"
"$TANDEM" -p "go" --permission-mode accept-edits --output-format events >"$T/out.jsonl" 2>"$T/err"
check "accept-edits run exits 0" [ $? -eq 0 ]
cp "$T/out.jsonl" "$T/accept.jsonl"
check "the first edit applied" grep -qx BETA a.txt
check "the edit after the failed one did not apply" grep -qx one b.txt
# Events come as calls finish (the two reads in either order); the model gets them in order.
res=$(jq -S -s -c '[.[] | select(.type=="tool_result") | {(.id): .is_error}] | add' "$T/out.jsonl")
check "results: reads ok, e1 ok, e2 failed, e3 and r3 skipped" \
    [ "$res" = "$(jq -S -c -n '{toolu_r1:false,toolu_r2:false,toolu_e1:false,toolu_e2:true,toolu_e3:true,toolu_r3:true}')" ]
check "the edits' results came after the reads' and in order" \
    [ "$(jq -r 'select(.type=="tool_result") | .id' "$T/out.jsonl" | tail -n 4 | tr '\n' ' ')" = "toolu_e1 toolu_e2 toolu_e3 toolu_r3 " ]
check "e2's error helps the model" grep -q 'no match\|not found\|does not contain\|closest' <(jq -r 'select(.type=="tool_result" and .id=="toolu_e2") | .content' "$T/out.jsonl")
check "e3 says it was skipped" grep -q skipped <(jq -r 'select(.type=="tool_result" and .id=="toolu_e3") | .content' "$T/out.jsonl")
check "the next request answers in tool_use order" \
    [ "$(mock_body 2 '[.messages[2].content[].tool_use_id] | join(",")')" = '"toolu_r1,toolu_r2,toolu_e1,toolu_e2,toolu_e3,toolu_r3"' ]
check "the mock found every tool_use answered" [ "$(mock_problems)" -eq 0 ]
check "approval events say the mode allowed the edits" \
    [ "$(jq -r 'select(.type=="approval") | .by' "$T/out.jsonl" | sort -u)" = mode ]

# The reads really run at once: two slow greps over a big tree overlap in time.
mkdir -p big
for i in $(seq 1 200); do head -c 150000 /dev/urandom | base64 >"big/f$i.txt"; done
mock_start "$(scenario par <<'J'
{"responses":[
 {"tool_uses":[
   {"id":"toolu_p1","name":"grep","input":{"pattern":"(a|b|c)+zzzq","path":"big","output_mode":"count"}},
   {"id":"toolu_p2","name":"grep","input":{"pattern":"(d|e|f)+zzzq","path":"big","output_mode":"count"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
# Stamp each event line as it arrives (ms).
"$TANDEM" -p "go" --output-format events 2>"$T/err" |
    while IFS= read -r line; do printf '%s %s\n' "$(date +%s%3N)" "$line"; done >"$T/par.txt"
end1=$(grep '"id":"toolu_p1"' "$T/par.txt" | grep '"tool_result"' | cut -d' ' -f1)
end2=$(grep '"id":"toolu_p2"' "$T/par.txt" | grep '"tool_result"' | cut -d' ' -f1)
dur1=$(grep '"id":"toolu_p1"' "$T/par.txt" | grep '"tool_result"' | cut -d' ' -f2- | jq .duration_ms)
dur2=$(grep '"id":"toolu_p2"' "$T/par.txt" | grep '"tool_result"' | cut -d' ' -f2- | jq .duration_ms)
first_end=$(( end1 < end2 ? end1 : end2 )); last_end=$(( end1 < end2 ? end2 : end1 ))
last_dur=$(( end1 < end2 ? dur2 : dur1 ))
# Sequential, the later one would start after the first ended; in parallel it started well before.
check "two reads overlap in time (durations ${dur1}/${dur2} ms, ends ${first_end}/${last_end})" \
    [ $(( last_end - last_dur )) -lt $(( first_end - 10 )) ]
rm -rf big

# headless ask mode: the edits are denied, the files untouched.
reset_files
mock_start "$scen"
"$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "ask mode run exits 0" [ $? -eq 0 ]
check "ask mode: a.txt untouched" [ "$(cat a.txt)" = "$(printf 'alpha\nbeta\ngamma')" ]
check "ask mode: b.txt untouched" [ "$(cat b.txt)" = "$(printf 'one\ntwo')" ]
check "ask mode: the denial names accept-edits" grep -q 'accept-edits' <(jq -r 'select(.type=="tool_result" and .id=="toolu_e1") | .content' "$T/out.jsonl")
check "ask mode: the reads still ran" [ "$(jq -r 'select(.type=="tool_result" and .id=="toolu_r1") | .is_error' "$T/out.jsonl")" = false ]

# plan mode: refused with a result saying so.
reset_files
mock_start "$scen"
"$TANDEM" -p "go" --permission-mode plan --output-format events >"$T/out.jsonl" 2>"$T/err"
check "plan mode: the edit is refused as plan mode" grep -qi 'plan mode' <(jq -r 'select(.type=="tool_result" and .id=="toolu_e1") | .content' "$T/out.jsonl")
check "plan mode: a.txt untouched" grep -qx beta a.txt

# allow rules: --allow edit_file(a.txt) lets only that edit through.
reset_files
mock_start "$scen"
"$TANDEM" -p "go" --allow 'edit_file(a.txt)' --output-format events >"$T/out.jsonl" 2>"$T/err"
check "--allow rule: a.txt edited" grep -qx BETA a.txt
check "--allow rule: approval by rule" [ "$(jq -r 'select(.type=="approval" and .id=="toolu_e1") | .by' "$T/out.jsonl")" = rule ]
check "--allow rule: b.txt untouched" grep -qx one b.txt

# deny beats yolo.
reset_files
mock_start "$scen"
"$TANDEM" -p "go" --permission-mode yolo --deny 'edit_file(a.txt)' --output-format events >"$T/out.jsonl" 2>"$T/err"
check "--deny in yolo: a.txt untouched" grep -qx beta a.txt

# Hostile paths never leave the workspace.
mock_start "$(scenario hostile <<'J'
{"responses":[
 {"tool_uses":[
   {"id":"toolu_h1","name":"read_file","input":{"path":"../../../../etc/passwd"}},
   {"id":"toolu_h2","name":"read_file","input":{"path":"/etc/passwd"}},
   {"id":"toolu_h3","name":"write_file","input":{"path":"../escaped.txt","content":"x"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "go" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "hostile: ../ read refused" [ "$(jq -r 'select(.type=="tool_result" and .id=="toolu_h1") | .is_error' "$T/out.jsonl")" = true ]
check "hostile: absolute read refused" [ "$(jq -r 'select(.type=="tool_result" and .id=="toolu_h2") | .is_error' "$T/out.jsonl")" = true ]
check "hostile: nothing written outside" [ ! -e "$T/escaped.txt" ]

finish
