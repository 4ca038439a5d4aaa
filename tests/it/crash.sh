#!/bin/bash
# Crash tests: kill tandem at every crash point, and with SIGKILL at random
# moments of a scripted multi-tool session, then resume with -c and check
# that the conversation is whole, every tool_use has exactly one
# tool_result, no command ran twice, and no file is half-written.
. "$(dirname "$0")/lib.sh"

SCEN=$(scenario session <<'J'
{"check_echo":false,"responses":[
 {"text":"Step one.","tool_uses":[
   {"id":"toolu_a1","name":"run_bash","input":{"command":"echo a >>count_a; sleep 0.1"}},
   {"id":"toolu_a2","name":"read_file","input":{"path":"f.txt"}},
   {"id":"toolu_a3","name":"edit_file","input":{"path":"f.txt","old_string":"old line","new_string":"new line"}}],
  "stop_reason":"tool_use","chunk":40,"delay_ms":2},
 {"text":"Step two.","tool_uses":[
   {"id":"toolu_b1","name":"run_bash","input":{"command":"echo b >>count_b"}},
   {"id":"toolu_b2","name":"write_file","input":{"path":"g.txt","content":"written whole\n"}}],
  "stop_reason":"tool_use","chunk":40,"delay_ms":2},
 {"text":"Step three.","tool_uses":[
   {"id":"toolu_c1","name":"run_bash","input":{"command":"echo c >>count_c"}}],
  "stop_reason":"tool_use","chunk":40,"delay_ms":2},
 {"text":"All done.","stop_reason":"end_turn","repeat":20}
]}
J
)

fresh() {
	rm -rf "$T/ws" "$TANDEM_HOME"
	mkdir -p "$T/ws"
	cd "$T/ws" || exit 1
	printf 'first\nold line\nlast\n' >f.txt
}

# The checks after a resumed run; $1 names the case.
verify() {
	local name=$1 log sess bad=0 c
	sess=$(ls -d "$TANDEM_HOME"/sessions/*/ 2>/dev/null | head -n 1)
	log="$sess/log.jsonl"
	for c in a b c; do
		if [ -f "count_$c" ] && [ "$(wc -l <"count_$c")" -gt 1 ]; then
			echo "# $name: command $c ran $(wc -l <"count_$c") times"; bad=1
		fi
	done
	case "$(cat f.txt)" in
	"$(printf 'first\nold line\nlast')"|"$(printf 'first\nnew line\nlast')") ;;
	*) echo "# $name: f.txt is damaged"; bad=1 ;;
	esac
	if [ -e g.txt ] && [ "$(cat g.txt)" != "written whole" ]; then
		echo "# $name: g.txt is half-written"; bad=1
	fi
	if ls -a | grep -q '\.tmp\|\.tandem-'; then echo "# $name: temporary files left"; bad=1; fi
	# Rebuild the messages from the log and check the pairing.
	if ! log_paired "$log" 2>/dev/null; then
		echo "# $name: a tool_use without exactly one tool_result in $log"; bad=1
	fi
	[ $bad -eq 0 ]
}

run_case() {
	local point=$1 n=$2 rc name="crash at $1:$2"
	fresh
	mock_start "$SCEN"
	TANDEM_CRASH_AFTER="$point:$n" "$TANDEM" -p "do the steps" --permission-mode yolo \
	    --output-format events >"$T/first.jsonl" 2>"$T/first.err"
	rc=$?
	if [ $rc -ne 137 ]; then
		# The point was passed fewer than n times: nothing to resume.
		check "$name: ran to the end without the crash" [ $rc -eq 0 ]
		return
	fi
	"$TANDEM" -c -p "go on" --permission-mode yolo --output-format events \
	    >"$T/resume.jsonl" 2>"$T/resume.err"
	rc=$?
	if [ $rc -ne 0 ]; then diag "$T/resume.err"; fi
	check "$name: resume exits 0" [ $rc -eq 0 ]
	check "$name: resumed session reports resumed" [ "$(head -n 1 "$T/resume.jsonl" | jq -r .resumed)" = true ]
	check "$name: state is consistent" verify "$name"
}

for point in log-append; do
	for n in 1 2 3 4 5 6 7 8; do run_case $point $n; done
done
for point in request-sent checkpoint-A tool-started tool-done effect-write checkpoint-B wsnap-record; do
	for n in 1 2 4; do run_case $point $n; done
done

# A pending side-effecting call that the ledger does not know is reported, not rerun.
fresh
mock_start "$SCEN"
TANDEM_CRASH_AFTER=tool-done:1 "$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
"$TANDEM" -c -p "go on" --permission-mode yolo --output-format events >"$T/resume.jsonl" 2>&1
check "tool-done: count_a written once" [ "$(wc -l <count_a)" -eq 1 ]
last=$(sed -n '$p' "$MOCK_LOG")
check "tool-done: the model is told the state is unknown" \
    grep -q 'state is unknown' <(echo "$last" | jq -r '.body.messages[] | select(.role=="user") | .content[]? | select(.type=="tool_result") | .content')

# Real SIGKILLs at random moments of a slower session.
SLOW=$(scenario slow <<'J'
{"check_echo":false,"responses":[
 {"text":"Step one, slowly streamed so that a kill can land anywhere.","tool_uses":[
   {"id":"toolu_s1","name":"run_bash","input":{"command":"echo a >>count_a; sleep 0.2"}},
   {"id":"toolu_s2","name":"edit_file","input":{"path":"f.txt","old_string":"old line","new_string":"new line"}}],
  "stop_reason":"tool_use","chunk":8,"delay_ms":10},
 {"text":"Step two.","tool_uses":[
   {"id":"toolu_s3","name":"run_bash","input":{"command":"echo b >>count_b; sleep 0.2"}},
   {"id":"toolu_s4","name":"write_file","input":{"path":"g.txt","content":"written whole\n"}}],
  "stop_reason":"tool_use","chunk":8,"delay_ms":10},
 {"text":"All done.","stop_reason":"end_turn","repeat":50}
]}
J
)
RANDOM=4242
for i in 1 2 3 4 5 6 7 8 9 10; do
	fresh
	mock_start "$SLOW"
	"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1 &
	pid=$!
	ms=$((50 + RANDOM % 1200))
	sleep "$(printf '0.%03d' "$ms")"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if ls "$TANDEM_HOME"/sessions/*/log.jsonl >/dev/null 2>&1; then
		"$TANDEM" -c -p "go on" --permission-mode yolo >/dev/null 2>"$T/resume.err"
		rc=$?
		[ $rc -eq 0 ] || diag "$T/resume.err"
		check "SIGKILL after ${ms}ms: resume exits 0" [ $rc -eq 0 ]
		check "SIGKILL after ${ms}ms: state is consistent" verify "kill $ms"
	else
		ok "SIGKILL after ${ms}ms: killed before the session existed"
	fi
done

# A damaged log or checkpoint is refused with a clear message and left alone.
fresh
mock_start "$SCEN"
"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
cp "$sess/log.jsonl" "$T/log.copy"
sed -i '2s/.*/{"k":"msg", this is not json/' "$sess/log.jsonl"
cp "$sess/log.jsonl" "$T/log.damaged"
"$TANDEM" -c -p "go on" >/dev/null 2>"$T/err"
check "damaged log: exit 1" [ $? -eq 1 ]
check "damaged log: names file and line" grep -q 'log.jsonl:2' "$T/err"
check "damaged log: left untouched" cmp -s "$sess/log.jsonl" "$T/log.damaged"
cp "$T/log.copy" "$sess/log.jsonl"
jq '.version = 99' "$sess/checkpoints/latest.json" >"$T/cp" && cp "$T/cp" "$sess/checkpoints/latest.json"
"$TANDEM" -c -p "go on" >/dev/null 2>"$T/err"
check "unknown checkpoint version: exit 1" [ $? -eq 1 ]
check "unknown checkpoint version: says so" grep -q 'version 99' "$T/err"
check "unknown checkpoint version: log untouched" cmp -s "$sess/log.jsonl" "$T/log.copy"
echo '{ broken' >"$sess/checkpoints/latest.json"
"$TANDEM" -c -p "go on" >/dev/null 2>"$T/err"
check "corrupted checkpoint: refused with its name" grep -q 'latest.json' "$T/err"

# Session files: 0600, directories 0700, no API key anywhere.
check "session files are 0600" [ -z "$(find "$TANDEM_HOME/sessions" -type f ! -perm 600)" ]
check "session directories are 0700" [ -z "$(find "$TANDEM_HOME/sessions" -type d ! -perm 700)" ]
no_key() { ! grep -rq "$ANTHROPIC_API_KEY" "$TANDEM_HOME"; }
check "no API key in the session" no_key

finish
