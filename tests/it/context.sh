#!/bin/bash
# Context economy against the mock's simulated prompt cache: a long session
# with no cache break, then exactly one break for each cause (tools
# changed, model switched, the TTL passed, an unexplained collapse), and
# compaction going micro -> collapse -> summary as the session grows.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
for i in $(seq 1 40); do printf 'line %d of a file with some words in it\n' $(seq 1 60) >"f$i.txt"; done

breaks() { jq -c 'select(.type=="cache_break")' "$1"; }
nbreaks() { breaks "$1" | wc -l; }
causes() { breaks "$1" | jq -r '.causes | join(",")'; }

# A 30-call session: 29 tool rounds, each reading a file, then an answer.
ROUNDS=$(scenario rounds <<'J'
{"check_echo":false,"cache_min_tokens":0,"responses":[
 {"text":"Reading.","tool_uses":[{"name":"read_file","input":{"path":"f1.txt"}}],"stop_reason":"tool_use","repeat":29},
 {"text":"Done reading.","stop_reason":"end_turn","repeat":40}
]}
J
)
mock_start "$ROUNDS" --cache-ttl-ms 600000
"$TANDEM" -p "read a lot" --max-turns 100 --output-format events >"$T/long.jsonl" 2>"$T/err"
check "30-call session exits 0" [ $? -eq 0 ]
check "30 requests were made" [ "$(mock_requests)" -eq 30 ]
check "no cache break in a healthy session" [ "$(nbreaks "$T/long.jsonl")" -eq 0 ]
reads=$(jq -s '[.[] | select(.type=="usage") | .cache_read_input_tokens] | .[-1]' "$T/long.jsonl")
check "the cache is read (last request read $reads tokens)" [ "$reads" -gt 2000 ]

# Each next run resumes the same session and changes one thing.
"$TANDEM" -c -p "go on" --disable-tools glob --output-format events >"$T/tools.jsonl" 2>"$T/err"
check "tools changed: one break" [ "$(nbreaks "$T/tools.jsonl")" -eq 1 ]
check "tools changed: cause tools_changed" [ "$(causes "$T/tools.jsonl")" = tools_changed ]

"$TANDEM" -c -p "go on" --disable-tools glob --output-format events >"$T/same.jsonl" 2>"$T/err"
check "nothing changed: no break" [ "$(nbreaks "$T/same.jsonl")" -eq 0 ]

"$TANDEM" -c -p "go on" --disable-tools glob --model claude-opus-4-5 --output-format events >"$T/model.jsonl" 2>"$T/err"
check "model switched: one break" [ "$(nbreaks "$T/model.jsonl")" -eq 1 ]
check "model switched: cause model_changed" [ "$(causes "$T/model.jsonl")" = model_changed ]

# The TTL: the mock's cache forgets after 1 s; tandem's test clock jumps 10 minutes.
mock_start "$(scenario answers <<'J'
{"check_echo":false,"cache_min_tokens":0,"responses":[{"text":"ok","stop_reason":"end_turn","repeat":50}]}
J
)" --cache-ttl-ms 1000
"$TANDEM" -c -p "warm the cache" --disable-tools glob --model claude-opus-4-5 >/dev/null 2>&1
"$TANDEM" -c -p "warm it again" --disable-tools glob --model claude-opus-4-5 --output-format events >"$T/warm.jsonl" 2>&1
check "warm cache: no break" [ "$(nbreaks "$T/warm.jsonl")" -eq 0 ]
sleep 1.2
TANDEM_CLOCK_OFFSET_MS=600000 "$TANDEM" -c -p "later" --disable-tools glob --model claude-opus-4-5 \
    --output-format events >"$T/ttl.jsonl" 2>"$T/err"
check "TTL passed: one break" [ "$(nbreaks "$T/ttl.jsonl")" -eq 1 ]
check "TTL passed: cause ttl_expired" [ "$(causes "$T/ttl.jsonl")" = ttl_expired ]

# A collapse of cache reads with nothing changed: cause unknown.
mock_start "$(scenario collapse <<'J'
{"check_echo":false,"responses":[
 {"tool_uses":[{"name":"read_file","input":{"path":"f1.txt"}}],"stop_reason":"tool_use",
  "usage":{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":9000,"cache_read_input_tokens":0}},
 {"tool_uses":[{"name":"read_file","input":{"path":"f2.txt"}}],"stop_reason":"tool_use",
  "usage":{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":600,"cache_read_input_tokens":9000}},
 {"tool_uses":[{"name":"read_file","input":{"path":"f3.txt"}}],"stop_reason":"tool_use",
  "usage":{"input_tokens":9800,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},
 {"text":"done","stop_reason":"end_turn",
  "usage":{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":9900}}
]}
J
)"
"$TANDEM" -p "x" --output-format events >"$T/unknown.jsonl" 2>"$T/err"
check "unexplained collapse: one break" [ "$(nbreaks "$T/unknown.jsonl")" -eq 1 ]
check "unexplained collapse: cause unknown" [ "$(causes "$T/unknown.jsonl")" = unknown ]
check "the break reports the dropped tokens" [ "$(breaks "$T/unknown.jsonl" | jq .dropped_tokens)" -ge 9000 ]

# Compaction: a small window so that a growing session crosses each
# threshold: six short turns, then one long turn of big reads.
mkdir -p .tandem
echo '{"context_window": 24000}' >.tandem/settings.json
big_files
rm -rf "$TANDEM_HOME"
{
	printf '{"check_echo":false,"responses":[\n'
	printf ' {"match":"You summarise the earlier part","text":"Summary: the user had tandem read many files; all were plain numbered lines.","stop_reason":"end_turn","repeat":20},\n'
	for i in $(seq 1 6); do
		printf ' {"tool_uses":[{"name":"read_file","input":{"path":"f%d.txt"}}],"stop_reason":"tool_use"},\n' "$i"
		printf ' {"text":"Read f%d.","stop_reason":"end_turn"},\n' "$i"
	done
	big_reads
	printf ' {"text":"Read them all.","stop_reason":"end_turn","repeat":20}\n]}\n'
} >"$T/grow.json"
mock_start "$T/grow.json"
ok_all=1
"$TANDEM" -p "turn 1: read f1" --output-format events >"$T/grow1.jsonl" 2>"$T/err" || ok_all=0
for i in $(seq 2 6); do
	"$TANDEM" -c -p "turn $i: read f$i" --output-format events >"$T/grow$i.jsonl" 2>"$T/err" || ok_all=0
done
"$TANDEM" -c -p "turn 7: read all the big files" --output-format events >"$T/grow7.jsonl" 2>"$T/err" || ok_all=0
check "the growing session ran" [ $ok_all -eq 1 ]
cat "$T"/grow?.jsonl >"$T/grow.jsonl"
stages=$(jq -r 'select(.type=="compaction") | .stage' "$T/grow.jsonl" | awk '!seen[$0]++' | tr '\n' ' ')
check "compaction went micro, collapse, summary (saw: $stages)" [ "$stages" = "micro collapse summary " ]
check "every compaction made the request smaller" \
    [ "$(jq -s '[.[] | select(.type=="compaction") | .tokens_after < .tokens_before] | all' "$T/grow.jsonl")" = true ]
check "every request was valid (every tool_use paired, checked by the mock)" [ "$(mock_problems)" -eq 0 ]
check "the summary was logged" grep -q '"k":"summary"' "$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)/log.jsonl"
check "the context event carries the stage" \
    [ "$(jq -r 'select(.type=="context") | .stage' "$T/grow.jsonl" | tail -n 1)" = summary ]
check "no request exceeded the window" \
    [ "$(jq -s '[.[] | select(.type=="context") | .tokens <= 24000] | all' "$T/grow.jsonl")" = true ]

finish
