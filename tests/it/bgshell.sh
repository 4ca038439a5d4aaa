#!/bin/bash
# Background shells through the real binary: run_bash with run_in_background
# returns a shell id at once; bash_output gives only what is new since the
# last read, with the status; kill_shell ends the whole tree (checked in
# /proc while tandem still runs); a shell left running outlives the turn's
# tool calls but is gone when tandem exits, normally or by kill -9; the
# same under --sandbox workspace-write.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
M=$$

# alive PATTERN: a process whose command line matches is running.
alive() { pgrep -f "$1" >/dev/null; }
# wait_results FILE N: until FILE holds N tool results (at most 20 s).
wait_results() {
	local i
	for i in $(seq 200); do
		[ "$(jq -s '[.[] | select(.type=="tool_result")] | length' "$1" 2>/dev/null)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
result() { jq -rs --argjson n "$2" '[.[] | select(.type=="tool_result")][$n].content' "$1"; }

loop_a="i=0; while :; do echo \"tick-A$M \$i\"; i=\$((i+1)); sleep 0.1; done"
loop_b="while :; do sleep 0.1; done; : tick-B$M"

for mode in plain sandbox; do
	args=(); [ $mode = sandbox ] && args=(--sandbox workspace-write)
	mock_start "$(scenario bg_$mode <<J
{"responses":[
 {"tool_uses":[{"id":"t1","name":"run_bash","input":$(jq -nc --arg c "$loop_a" '{command:$c,run_in_background:true}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t2","name":"run_bash","input":{"command":"sleep 0.6"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t3","name":"bash_output","input":{"shell_id":"bash_1"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t4","name":"run_bash","input":{"command":"sleep 0.6"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t5","name":"bash_output","input":{"shell_id":"bash_1","filter":"[02468]\$"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t6","name":"run_bash","input":$(jq -nc --arg c "$loop_b" '{command:$c,run_in_background:true}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t7","name":"kill_shell","input":{"shell_id":"bash_1"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t8","name":"run_bash","input":{"command":"sleep 3"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t9","name":"bash_output","input":{"shell_id":"bash_1"}},{"id":"t10","name":"bash_output","input":{"shell_id":"bash_9"}},{"id":"t11","name":"kill_shell","input":{"shell_id":"bash_1"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
	"$TANDEM" -p "x" --permission-mode yolo "${args[@]}" --output-format events >"$T/bg.jsonl" 2>"$T/err" &
	tp=$!
	wait_results "$T/bg.jsonl" 7
	sleep 0.5
	check "$mode: kill_shell ended the shell and its children (no tick-A in /proc)" not alive "tick-A$M"
	check "$mode: the other background shell still runs" alive "tick-B$M"
	wait $tp
	check "$mode: tandem exits 0" [ $? -eq 0 ]
	sleep 0.3
	check "$mode: the shell left running is gone after tandem exits" not alive "tick-B$M"
	r0=$(result "$T/bg.jsonl" 0)
	check "$mode: run_in_background returns a shell id" grep -q 'ID: bash_1' <<<"$r0"
	r2=$(result "$T/bg.jsonl" 2)
	check "$mode: the first read has the first lines" grep -q "^tick-A$M 0\$" <<<"$r2"
	check "$mode: the first read says running" grep -q '^status: running$' <<<"$r2"
	last=$(grep -o "^tick-A$M [0-9]*" <<<"$r2" | tail -n 1 | cut -d' ' -f2)
	r4=$(result "$T/bg.jsonl" 4)
	first=$(grep -o "^tick-A$M [0-9]*" <<<"$r4" | head -n 1 | cut -d' ' -f2)
	check "$mode: the second read has only new lines ($last then $first)" [ -n "$first" ] && [ "$first" -gt "$last" ]
	check "$mode: the filter kept only even lines" not grep -q "^tick-A$M [0-9]*[13579]\$" <<<"$r4"
	check "$mode: kill_shell says what it killed" grep -q 'Killed bash_1' <<<"$(result "$T/bg.jsonl" 6)"
	check "$mode: a read after the kill says killed" grep -q '^status: killed$' <<<"$(result "$T/bg.jsonl" 8)"
	check "$mode: an unknown id is an error" [ "$(jq -rs '[.[] | select(.type=="tool_result")][9] | .is_error' "$T/bg.jsonl")" = true ]
	check "$mode: killing a killed shell says so" grep -q 'is not running (killed)' <<<"$(result "$T/bg.jsonl" 10)"

	# kill -9 of tandem leaves no background shell behind.
	mock_start "$(scenario bg9_$mode <<J
{"responses":[
 {"tool_uses":[{"id":"t1","name":"run_bash","input":$(jq -nc --arg c "$loop_b" '{command:$c,run_in_background:true}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t2","name":"bash_output","input":{"shell_id":"bash_1"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t3","name":"run_bash","input":{"command":"sleep 4"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
	"$TANDEM" -p "x" --permission-mode yolo "${args[@]}" --output-format events >"$T/bg9.jsonl" 2>"$T/err" &
	tp=$!
	wait_results "$T/bg9.jsonl" 2
	check "$mode: the background shell runs while tandem does" alive "tick-B$M"
	kill -9 $tp
	wait $tp 2>/dev/null
	sleep 0.5
	check "$mode: after kill -9 of tandem no background shell is left" not alive "tick-B$M"
	sleep 4	# the foreground sleep of that run ends by itself
done

finish
