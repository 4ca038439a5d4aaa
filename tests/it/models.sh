#!/bin/sh
# The model's limits, thinking, effort and prices come from the provider:
# the mock serves the Models API (and llama.cpp's and Ollama's endpoints)
# with models this test names, and refuses what the real API refuses (a
# model it does not have, max_tokens above the limit, a thinking type or
# effort level the model does not take, sampling parameters on a model
# without budget thinking).  No test here depends on today's model names.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

result() { tail -n 1 "$T/out.jsonl" | jq -r "$1"; }
# The message requests (not the model endpoints) of the log, and request N's body.
msgs() { grep -v '"kind":"models"' "$MOCK_LOG"; }
body() { msgs | sed -n "${1}p" | jq -c ".body | $2"; }
nmsgs() { msgs | wc -l; }
models_reqs() { grep -c '"kind":"models"' "$MOCK_LOG"; }
problems() { msgs | jq -sc '[.[].problems | length] | add // 0'; }

# ModelInfo as the Models API documents it.
info() { # id window output adaptive enabled efforts(json list)
	jq -nc --arg id "$1" --argjson w "$2" --argjson o "$3" --argjson a "$4" --argjson e "$5" \
	    --argjson lv "$6" '{type: "model", id: $id, display_name: $id, created_at: "2026-01-01T00:00:00Z",
	    max_input_tokens: $w, max_tokens: $o,
	    capabilities: {batch: {supported: true}, citations: {supported: true},
	      code_execution: {supported: false}, image_input: {supported: true}, pdf_input: {supported: true},
	      structured_outputs: {supported: true},
	      context_management: {supported: false, clear_thinking_20251015: null,
	        clear_tool_uses_20250919: null, compact_20260112: null},
	      thinking: {supported: ($a or $e), types: {adaptive: {supported: $a}, enabled: {supported: $e}}},
	      effort: ({supported: (($lv | length) > 0)} + ([("low", "medium", "high", "max", "xhigh") as $l |
	        {($l): {supported: ($lv | index($l) != null)}}] | add))}}'
}
MODELS=$(jq -nc --argjson a "$(info m-big 1000000 128000 true false '["low","medium","high","max"]')" \
    --argjson b "$(info m-budget 200000 64000 false true '[]')" \
    --argjson c "$(info m-tiny 30000 8000 false true '[]')" '[$a, $b, $c]')

# 1. Every combination of settings: nothing the model refuses is ever sent.
mock_start "$(scenario combos <<J
{"models": $MODELS, "responses": [{"text": "ok", "repeat": 200}]}
J
)"
n=0
for model in m-big m-budget; do
	for th in auto off adaptive enabled; do
		for budget in 0 2048; do
			for effort in "" low max; do
				s="{\"thinking\": \"$th\", \"thinking_budget\": $budget, \"max_tokens\": 300000"
				[ -n "$effort" ] && s="$s, \"effort\": \"$effort\""
				settings "$s}"
				run -p "x" --model "$model" || echo "# $model $th $budget $effort: $(cat "$T/err")"
				n=$((n + 1))
			done
		done
	done
done
check "combinations: $n runs, every request accepted (no problems)" [ "$(problems)" -eq 0 ]
check "combinations: each run made its request" [ "$(nmsgs)" -eq "$n" ]
check "max_tokens is capped by the model's own limit" \
    [ "$(msgs | jq -sc '[.[] | select(.body.model=="m-big") | .body.max_tokens] | unique')" = '[128000]' ]
check "an adaptive model never gets a budget" \
    [ "$(msgs | jq -sc '[.[] | select(.body.model=="m-big") | .body.thinking.budget_tokens // empty] | length')" -eq 0 ]
check "a budget model never gets output_config.effort" \
    [ "$(msgs | jq -sc '[.[] | select(.body.model=="m-budget") | .body.output_config // empty] | length')" -eq 0 ]
check "effort goes to output_config.effort where the model lists it" \
    [ "$(msgs | jq -sc '[.[] | select(.body.model=="m-big") | .body.output_config.effort // empty] | unique')" = '["low","max"]' ]
check "a budget model with a budget gets it" \
    [ "$(msgs | jq -sc '[.[] | select(.body.model=="m-budget" and .body.thinking.type=="enabled") | .body.thinking.budget_tokens] | unique')" = '[2048,4096]' ]

# 2. The window and thresholds follow the model, and so does the note.
settings '{"thinking_budget": 4096}'
run -p "x" --model m-big
check "1M model: the context window is the server's" [ "$(ev context .window | tail -n 1)" = 1000000 ]
check "thinking_budget on an adaptive model: one note, naming effort" \
    grep -q 'thinking_budget is not used: m-big thinks adaptively.*effort' "$T/out.jsonl"
settings '{}'
mock_stop

# Five reads of 24 KB each: about 30K estimated tokens.
for i in 1 2 3 4 5; do head -c 24000 /dev/zero | tr '\0' 'x' | fold -w 100 >"big$i.txt"; done
reads() {
	cat <<J
{"models": $MODELS, "responses": [
 {"tool_uses": [{"id": "toolu_r1", "name": "read_file", "input": {"path": "big1.txt"}}]},
 {"tool_uses": [{"id": "toolu_r2", "name": "read_file", "input": {"path": "big2.txt"}}]},
 {"tool_uses": [{"id": "toolu_r3", "name": "read_file", "input": {"path": "big3.txt"}}]},
 {"tool_uses": [{"id": "toolu_r4", "name": "read_file", "input": {"path": "big4.txt"}}]},
 {"tool_uses": [{"id": "toolu_r5", "name": "read_file", "input": {"path": "big5.txt"}}]},
 {"text": "read them all"}]}
J
}
mock_start "$(reads | scenario reads)"
big_port=$MOCK_PORT
run -p "read them" --model m-big
check "1M model: 30K tokens of reads are not compacted" [ -z "$(ev compaction .stage)" ]
check "1M model: the run succeeds" [ "$(result .text)" = "read them all" ]
mock_start "$(scenario goon <<J
{"models": $MODELS, "responses": [{"text": "gone on"}]}
J
)"
run -c -p "go on" --model m-tiny
check "a change to a smaller window: compacted before the request" [ -n "$(ev compaction .stage)" ]
check "a change to a smaller window: the request is valid" [ "$(problems)" -eq 0 ] && [ "$(result .text)" = "gone on" ]
mock_start "$(reads | scenario reads2)"
run -p "read them" --model m-tiny
check "30K model: the same reads are compacted at its own fractions" [ -n "$(ev compaction .stage)" ]
check "30K model: every request valid" [ "$(problems)" -eq 0 ]
mock_stop

# 3. The answer is cached under TANDEM_HOME, per base URL and model; offline
# (the same server, no Models API now) it stands.
check "the Models API answer is cached" \
    [ "$(jq -r --arg k "http://127.0.0.1:$big_port m-big" '.models[$k].window' "$TANDEM_HOME/models.json")" = 1000000 ]
mock_start "$(scenario offline <<'J'
{"responses": [{"text": "ok", "repeat": 2}]}
J
)" --port "$big_port"
run -p "x" --model m-big
check "offline: the cached window stands" [ "$(ev context .window | tail -n 1)" = 1000000 ]
check "offline: a fresh cache asks nothing" not grep -q 'models GET' "$T/mock.err"
check "offline: max_tokens still capped" [ "$(mock_body 1 .max_tokens)" = 8192 ]
run -p "x" --model m-never-seen
check "no answer and no cache: the built-in table, and the request goes" [ "$(result .text)" = ok ]
mock_stop

# 4. A model the server does not know: a clear message.
mock_start "$(scenario unknown <<J
{"models": $MODELS, "responses": [{"text": "never"}]}
J
)"
run -p "x" --model m-nope
rc=$?
check "unknown model: exit 1" [ $rc -eq 1 ]
check "unknown model: the sentence says so and names tandem models" \
    grep -q 'does not know the model \\"m-nope\\".*tandem models' "$T/out.jsonl"
mock_stop

# 5. A 400 that names a parameter: explained, and the cached answer dropped.
mock_start "$(scenario refused <<J
{"models": $MODELS, "responses": [{"text": "ok", "repeat": 3}]}
J
)"
now=$(date +%s)
base="http://127.0.0.1:$MOCK_PORT"
jq -n --arg k "$base m-big" --argjson t "$now" '{version: 1, models: {($k): {id: "m-big",
    window: 1000000, max_output: 128000, thinking_adaptive: false, thinking_enabled: true,
    effort: [], source: "cache", calib: 0, fetched_at: $t}}}' >"$TANDEM_HOME/models.json"
settings '{"thinking_budget": 2048}'
run -p "x" --model m-big
rc=$?
check "wrong cache: the refusal ends the run" [ $rc -eq 1 ]
check "wrong cache: one sentence names the setting" grep -q 'the setting \\"thinking\\" controls it' "$T/out.jsonl"
check "wrong cache: the wrong entry is dropped" \
    [ "$(jq -r --arg k "$base m-big" '.models[$k].thinking_enabled' "$TANDEM_HOME/models.json")" != true ]
run -p "x" --model m-big
check "after the refusal: the next run is accepted" [ "$(result .text)" = ok ]
settings '{}'
mock_stop

# 6. Prices: the settings override the price file; TANDEM_PRICES names another.
mock_start "$(scenario prices <<J
{"models": $MODELS, "responses": [
 {"text": "a", "usage": {"input_tokens": 100000, "output_tokens": 10000, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}},
 {"text": "b", "usage": {"input_tokens": 100000, "output_tokens": 10000, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}},
 {"text": "c", "usage": {"input_tokens": 300000, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}]}
J
)"
settings '{"prices": {"m-big": {"input": 2, "output": 10}}}'
run -p "x" --model m-big
check "price override: \$2 in, \$10 out per million" [ "$(ev usage .cost_usd)" = 0.3 ]
cat >"$T/prices.json" <<'J'
{"checked": "2026-01-01", "models": [{"match": "m-*", "input": 1, "output": 1,
 "long_context": {"above": 200000, "input": 3}}]}
J
settings '{}'
TANDEM_PRICES="$T/prices.json" run -p "x" --model m-big
check "price file: a family match" [ "$(ev usage .cost_usd)" = 0.11 ]
TANDEM_PRICES="$T/prices.json" run -p "x" --model m-big
check "price file: the long-context tier above its threshold" [ "$(ev usage .cost_usd)" = 0.9 ]
echo '{"models": 3' >"$T/bad.json"
TANDEM_PRICES="$T/bad.json" run -p "x" --model m-big
rc=$?
check "a malformed price file: one sentence naming it" [ $rc -ne 0 ] && grep -q 'bad.json:.*price file' "$T/err"
mock_stop

# 7. Auth behind gateways: a bearer token, custom headers, apiKeyHelper (run again after a 401).
mock_start "$(scenario auth <<J
{"models": $MODELS, "responses": [{"text": "a"}, {"status": 401}, {"text": "b"}]}
J
)"
ANTHROPIC_AUTH_TOKEN=gw-token ANTHROPIC_CUSTOM_HEADERS="$(printf 'X-Gateway: one\nX-Team: two')" \
    run -p "x" --model m-big
check "auth token: sent as a bearer token" [ "$(msgs | sed -n 1p | jq -r '.headers.authorization')" = "Bearer gw-token" ]
check "custom headers: both sent" [ "$(msgs | sed -n 1p | jq -r '.headers["x-gateway"] + .headers["x-team"]')" = onetwo ]
check "custom headers: on the Models API requests too" \
    [ "$(grep '"kind":"models"' "$MOCK_LOG" | head -n 1 | jq -r '.headers["x-gateway"]')" = one ]
cat >"$T/helper.sh" <<'S'
#!/bin/sh
n=$(cat "$0.n" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$0.n"; echo "helper-key-$n"
S
chmod +x "$T/helper.sh"
settings "{\"apiKeyHelper\": \"$T/helper.sh\"}"
run -p "x" --model m-big
check "apiKeyHelper: after a 401 it runs again and the request is retried" [ "$(result .text)" = b ]
check "apiKeyHelper: the first request had its first key" [ "$(msgs | sed -n 2p | jq -r '.headers["x-api-key"]')" = helper-key-1 ]
check "apiKeyHelper: the retry its second" [ "$(msgs | sed -n 3p | jq -r '.headers["x-api-key"]')" = helper-key-2 ]
settings '{}'
mock_stop

# 8. Local servers: llama.cpp's n_ctx, Ollama's running context.
mock_start "$(scenario llama <<'J'
{"llamacpp_props": {"default_generation_settings": {"n_ctx": 8192}}, "responses": [{"text": "ok"}]}
J
)"
OPENAI_API_KEY= run -p "x" --provider openai --model local-model
check "llama.cpp: the window is the server's n_ctx" [ "$(ev context .window | tail -n 1)" = 8192 ]
mock_start "$(scenario ollama <<'J'
{"ollama_ps": {"models": [{"name": "coder:latest", "model": "coder:latest", "context_length": 16384}]},
 "ollama_show": {"coder": {"model_info": {"llama.context_length": 131072}}},
 "responses": [{"text": "ok"}]}
J
)"
run -p "x" --provider openai --model coder
check "Ollama: the running model's context, not the trained length" [ "$(ev context .window | tail -n 1)" = 16384 ]
mock_start "$(scenario oai <<'J'
{"responses": [{"text": "ok"}]}
J
)"
run -p "x" --provider openai --model gpt-5-mini
check "reasoning models get max_completion_tokens" [ "$(mock_body 1 '[.max_completion_tokens, .max_tokens]')" = '[8192,null]' ]
mock_stop

# 9. tandem models lists what the server offers.
mock_start "$(scenario list <<J
{"models": $MODELS, "responses": []}
J
)"
"$TANDEM" models >"$T/list" 2>"$T/err"
check "tandem models: exit 0" [ $? -eq 0 ]
check "tandem models: the 1M model with its limits and thinking" grep -qE '^ *m-big +1M +128K +adaptive +low,medium,high,max' "$T/list"
check "tandem models: the budget model" grep -qE '^ *m-budget +200K +64K +enabled' "$T/list"
mock_stop
"$TANDEM" models >"$T/list" 2>"$T/err"
check "tandem models with no server: exit 1 and one sentence" [ $? -eq 1 ] && grep -q 'did not list its models' "$T/err"

finish
