#!/bin/bash
# run_bash against the mock: 50 MB of output is capped (head and tail, the
# whole of it spilled to a file) while tandem's memory stays bounded; a
# timeout kills the command and every child it started; output streams live.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

mock_start "$(scenario big <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_big","name":"run_bash","input":{"command":"yes 'a line of output that repeats' | head -c 52428800; echo; echo THE-END"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
/usr/bin/env time -f '%M' -o "$T/maxrss" "$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "50 MB run exits 0" [ $? -eq 0 ]
content=$(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "the result is capped near 30 KB (${#content} bytes)" [ "${#content}" -lt 40000 ]
check "the result keeps the head" grep -q '^a line of output that repeats' <<<"$content"
check "the result keeps the tail" grep -q 'THE-END' <<<"$content"
check "the result says how much was elided" grep -q 'bytes of output elided' <<<"$content"
spill=$(grep -o '/[^ ]*bash-toolu_big.log' <<<"$content" | head -n 1)
check "the whole output is in the spill file" [ -n "$spill" ] && [ "$(stat -c %s "$spill")" -gt 52428800 ]
check "the model's request carries the capped result" [ "$(mock_body 2 '.messages[2].content[0].content | length')" -lt 40000 ]
rss=$(cat "$T/maxrss" 2>/dev/null || echo 0)
check "tandem's peak memory stayed bounded (${rss} KB)" [ "${rss:-0}" -lt 204800 ]
check "progress streamed live" [ "$(jq -s '[.[] | select(.type=="tool_progress")] | length' "$T/out.jsonl")" -gt 10 ]

mock_start "$(scenario slow <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_slow","name":"run_bash","input":{"command":"sleep 100 & sleep 101; echo never","timeout_ms":1000}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
start=$(date +%s)
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
rc=$?
took=$(( $(date +%s) - start ))
check "timeout run exits 0" [ $rc -eq 0 ]
check "it took about the timeout, not 100 s (${took} s)" [ "$took" -lt 10 ]
check "the result says it timed out" grep -q 'timed out after 1000 ms' <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "the result is an error" [ "$(jq -r 'select(.type=="tool_result") | .is_error' "$T/out.jsonl")" = true ]
sleep 0.3
check "no sleep 100 or sleep 101 is left" not pgrep -f '^sleep 10[01]$'


# --disable-tools run_bash takes the background shells' tools with it.
mock_start "$(scenario plain <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -p "x" >/dev/null 2>"$T/err"
check "the shell tools are offered" [ "$(mock_body 1 '[.tools[].name | select(. == "run_bash" or . == "bash_output" or . == "kill_shell")] | length')" -eq 3 ]
mock_start "$T/plain.json"
"$TANDEM" -p "x" --disable-tools run_bash >/dev/null 2>"$T/err"
check "--disable-tools run_bash: none of the shell tools is offered" [ "$(mock_body 1 '[.tools[].name | select(. == "run_bash" or . == "bash_output" or . == "kill_shell")] | length')" -eq 0 ]
check "--disable-tools run_bash: the others still are" [ "$(mock_body 1 '[.tools[].name | select(. == "read_file")] | length')" -eq 1 ]

finish
