#!/bin/bash
# The soak: one headless session of 500 model calls against the mock, with
# random faults from the mock's seeded generator (dropped connections,
# error events mid-stream, stalls, 529s, 429s with retry-after-ms, one-byte
# chunks, slow bytes).  One process and one prompt with many tool rounds,
# so the whole turn loop runs 500 times in one address space: stream,
# schedule, run tools, checkpoint, retry, compact.  Every model call is
# accounted for, from both ends; descriptors stay flat; memory stays under
# the budget of DESIGN.md §10 (plain build; ASan's allocator is not
# measured, its leak check runs at exit instead).
#
# SOAK_REPORT=FILE writes the figures (bench/soak_mem.sh prints them).
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
printf 'one\ntwo\nthree\n' >a.txt
export TANDEM_RETRY_BASE_MS=5
mkdir -p "$XDG_CONFIG_HOME/tandem"
# Only content and block boundaries re-arm the stall timer, not each byte: a
# "slow" reply on a loaded machine can take longer than 300 ms over one event.
echo '{"retries": 10, "timeouts": {"stall_ms": 1000}}' >"$XDG_CONFIG_HOME/tandem/settings.json"

# The mock refuses a faults object it cannot honour, naming the key.
for bad in '{"rate":2,"kinds":["drop"]}' '{"rate":0.1,"kinds":["meteor"]}' '{"rate":0.1}' '{"rate":0.1,"kinds":["drop"],"sede":1}'; do
	echo "{\"responses\":[{\"text\":\"x\",\"faults\":$bad}]}" >"$T/bad.json"
	"$MOCK" --scenario "$T/bad.json" --idle-timeout 1 >/dev/null 2>"$T/bad.err"
	check "mock: faults $bad refused" [ "$?/$(grep -c 'responses\[0\].faults' "$T/bad.err")" = 2/1 ]
done

# 200 reads, 100 parallel searches, 199 commands, the answer: 500 calls.
faults='"faults":{"rate":0.2,"kinds":["drop","error","stall","529","429","onebyte","slow"],"retry_after_ms":5'
mock_start "$(scenario soak <<J
{"require_all": true, "responses":[
 {"text":"Reading.","tool_uses":[{"name":"read_file","input":{"path":"a.txt","limit":2}}],
  "repeat":200, $faults,"seed":11}},
 {"tool_uses":[{"name":"grep","input":{"pattern":"two"}},{"name":"glob","input":{"pattern":"*.txt"}}],
  "repeat":100, $faults,"seed":12}},
 {"text":"Running.","tool_uses":[{"name":"run_bash","input":{"command":"printf x >>count.txt"}}],
  "repeat":199, $faults,"seed":13}},
 {"text":"Soak done.","stop_reason":"end_turn"}
]}
J
)" --log-no-body

# sample N: RSS (kB) and open descriptors of the running tandem after N model calls.
sample() {
	local rss fds
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
	echo "$1 ${rss:-0} $fds $((($(date +%s%N) - start) / 1000000))" >>"$T/samples"
	ls -l "/proc/$pid/fd" 2>/dev/null | awk -v n="$1" 'NR > 1 { print n ": " $NF }' >>"$T/fdlist"
}

mkfifo "$T/events"
start=$(date +%s%N)
"$TANDEM" -p "soak" --max-turns 1000 --permission-mode yolo --output-format events \
    >"$T/events" 2>"$T/err" &
pid=$!
exec 3>"$T/out.jsonl"
calls=0
# Read the events as they come; sample at the start (the session event),
# at call 1, 100, 250, 500, and every 50.
while IFS= read -r line; do
	printf '%s\n' "$line" >&3
	case $line in
	*'"type":"session"'*)
		sample 0
		;;
	*'"type":"usage"'*)
		calls=$((calls + 1))
		case $calls in 1 | 100 | 250 | 500 | *[05]0) sample "$calls" ;; esac
		;;
	esac
done <"$T/events"
exec 3>&-
wait $pid
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
mock_stop

count() { jq -s "[.[] | select($1)] | length" "$2"; }
failing='.fault == "drop" or .fault == "error" or .fault == "stall" or .fault == "529" or .fault == "429" or .fault == "500"'
requests=$(mock_requests)
faulted=$(count "$failing" "$MOCK_LOG")
served=$((requests - faulted))
salvaged=$(count '.type == "error" and (.message | test("continuing from the"))' "$T/out.jsonl")
usages=$(count '.type == "usage"' "$T/out.jsonl")
retries=$(count '.type == "retry"' "$T/out.jsonl")
echo "# $requests requests in $ms ms: $faulted failed by a fault, $salvaged of them salvaged" \
    "(tool calls complete before the cut), $retries retries, $usages answers"
jq -r '.fault // "none"' "$MOCK_LOG" | sort | uniq -c | tr -s ' ' | sed 's/^/# faults:/'

check "soak: exit 0" [ $rc -eq 0 ]
check "soak: the last event is the final result" \
    [ "$(tail -n 1 "$T/out.jsonl" | jq -r '[.type, .stop_reason, .text] | join("|")')" = "result|end_turn|Soak done." ]
check "soak: the mock found no problem in $requests requests" [ "$(mock_problems)" -eq 0 ]
check "soak: faults struck ($faulted failing ones)" [ "$faulted" -ge 20 ]
check "soak: every scripted answer was served whole once ($served)" [ "$served" -eq 500 ]
check "soak: every whole or salvaged answer was taken ($usages = $served + $salvaged)" \
    [ "$usages" -eq $((served + salvaged)) ]
check "soak: every other failure was retried ($retries = $faulted - $salvaged)" \
    [ "$retries" -eq $((faulted - salvaged)) ]
check "soak: 429s waited their retry-after-ms" \
    [ "$(ev retry 'select(.reason | startswith("HTTP 429")) | .delay_ms' | sort -u)" = 5 ]
check "soak: each tool call has exactly one result" \
    [ "$(jq -s -c '[.[] | select(.type=="tool_use" or .type=="tool_result") | {id, type}] | group_by(.id) | map(length) | unique' "$T/out.jsonl")" = "[2]" ]
check "soak: tool use ids are unique" \
    [ "$(ev tool_use .id | sort | uniq -d | wc -l)" -eq 0 ]
ran=$(ev tool_result 'select(.name=="run_bash" and (.is_error|not)) | .id' | wc -l)
check "soak: each command reported run ran once ($ran)" [ "$(wc -c <count.txt)" -eq "$ran" ]
check "soak: at least 199 commands ran" [ "$ran" -ge 199 ]
check "soak: samples at the start and at 1, 100, 250 and 500 calls" \
    [ "$(awk '$1 == 0 || $1 == 1 || $1 == 100 || $1 == 250 || $1 == 500' "$T/samples" | wc -l)" -eq 5 ]
fd100=$(awk '$1 == 100 { print $3 }' "$T/samples")
fd500=$(awk '$1 == 500 { print $3 }' "$T/samples")
fdmax=$(awk '$1 >= 100 { if ($3 > m) m = $3 } END { print m + 0 }' "$T/samples")
# A sample can catch a call in flight (its pipes, a snapshot's directory walk):
# a leak raises the floor of the late samples, a call in flight only one sample.
fdlate=$(awk '$1 >= 300 { if (m == "" || $3 < m) m = $3 } END { print m + 0 }' "$T/samples")
check "soak: descriptors flat ($fd100 at call 100, $fd500 at 500, at least $fdlate from call 300, at most $fdmax)" \
    [ "$fdlate" -le $((fd100 + 1)) -a "$fdmax" -le $((fd100 + 8)) ]
rss100=$(awk '$1 == 100 { print $2 }' "$T/samples")
rss500=$(awk '$1 == 500 { print $2 }' "$T/samples")
if ldd "$TANDEM" 2>/dev/null | grep -q libasan; then
	ok "soak: memory not measured under ASan, whose leak check runs at exit (RSS $rss100 -> $rss500 kB)"
else
	check "soak: RSS under 64 MB after 500 calls ($rss500 kB)" [ "${rss500:-999999}" -lt 65536 ]
	check "soak: RSS grew less than 16 MB from call 100 to 500 ($rss100 -> $rss500 kB)" \
	    [ $((rss500 - rss100)) -lt 16384 ]
fi
check "soak: nothing on stderr" [ ! -s "$T/err" ]
diag "$T/samples"
if [ -n "${SOAK_REPORT:-}" ]; then
	{
		echo "duration_ms $ms"
		echo "requests $requests faulted $faulted salvaged $salvaged retries $retries answers $usages"
		echo "# calls rss_kb fds ms"
		cat "$T/samples"
	} >"$SOAK_REPORT"
fi

finish
