#!/bin/bash
# Claude Code's -p flags scripts rely on: --output-format json's one result
# object, --max-budget-usd stopping the run, --json-schema's structured output.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
echo hello >notes.txt

# 1. --output-format json: exactly one object, Claude Code's result, field by field.
mock_start "$(scenario json <<'J'
{"responses":[
 {"text":"Let me look.","tool_uses":[{"id":"toolu_j1","name":"list_dir","input":{}}],"stop_reason":"tool_use",
  "usage":{"input_tokens":1000,"output_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}},
 {"text":"One file: notes.txt.","stop_reason":"end_turn",
  "usage":{"input_tokens":1100,"output_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}
]}
J
)"
"$TANDEM" -p "list the files" --output-format json --model claude-sonnet-4-5 >"$T/out.json" 2>"$T/err"
rc=$?
check "json: exit 0" [ $rc -eq 0 ]
check "json: stdout is one JSON value" [ "$(jq -s length "$T/out.json")" -eq 1 ]
check "json: type result, subtype success" [ "$(jq -r '.type + "/" + .subtype' "$T/out.json")" = result/success ]
check "json: is_error false" [ "$(jq -r .is_error "$T/out.json")" = false ]
check "json: result is the final answer" [ "$(jq -r .result "$T/out.json")" = "One file: notes.txt." ]
check "json: num_turns 2" [ "$(jq -r .num_turns "$T/out.json")" = 2 ]
check "json: session_id names the session" [ -d "$TANDEM_HOME/sessions/$(jq -r .session_id "$T/out.json")" ]
check "json: duration_ms and duration_api_ms are numbers" [ "$(jq -r '[.duration_ms, .duration_api_ms] | map(type) | join(",")' "$T/out.json")" = number,number ]
check "json: total_cost_usd is above 0" [ "$(jq -r '.total_cost_usd > 0' "$T/out.json")" = true ]
check "json: usage sums both calls" [ "$(jq -r '.usage.input_tokens, .usage.output_tokens' "$T/out.json" | tr '\n' ' ')" = "2100 30 " ]
check "json: modelUsage names the model" [ "$(jq -r '.modelUsage | keys[0]' "$T/out.json")" = claude-sonnet-4-5 ]
check "json: permission_denials is an array" [ "$(jq -r '.permission_denials | type' "$T/out.json")" = array ]
check "json: uuid is there" [ "$(jq -r '.uuid | length' "$T/out.json")" -eq 36 ]
check "json: nothing on stderr" [ ! -s "$T/err" ]
check "json: the mock found no problem" [ "$(mock_problems)" -eq 0 ]

# 2. --max-budget-usd: the first call passes the budget; the run stops before the second.
mock_start "$(scenario budget <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_b1","name":"list_dir","input":{}}],"stop_reason":"tool_use",
  "usage":{"input_tokens":100000,"output_tokens":2000,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}},
 {"tool_uses":[{"id":"toolu_b2","name":"list_dir","input":{}}],"stop_reason":"tool_use"},
 {"text":"never","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "go" --output-format json --max-budget-usd 0.05 --model claude-sonnet-4-5 >"$T/out.json" 2>"$T/err"
rc=$?
check "budget: exit 1" [ $rc -eq 1 ]
check "budget: subtype error_max_budget_usd" [ "$(jq -r .subtype "$T/out.json")" = error_max_budget_usd ]
check "budget: is_error true" [ "$(jq -r .is_error "$T/out.json")" = true ]
check "budget: the cost passed the budget" [ "$(jq -r '.total_cost_usd > 0.05' "$T/out.json")" = true ]
check "budget: errors name the flag" grep -q -- '--max-budget-usd' <(jq -r '.errors[]' "$T/out.json")
check "budget: no request after the budget passed" [ "$(mock_requests)" -le 2 ]
mock_start "$T/budget.json"
"$TANDEM" -p "go" --max-budget-usd 0.05 --model claude-sonnet-4-5 >"$T/out.txt" 2>"$T/err"
rc=$?
check "budget, text: exit 1" [ $rc -eq 1 ]
check "budget, text: one sentence on stderr" grep -q 'more than --max-budget-usd 0.05' "$T/err"
check "budget, text: not called an interrupt" not grep -q 'interrupted' "$T/err"
mock_start "$T/json.json"
"$TANDEM" -p "go" --output-format json --max-budget-usd 5 --model claude-sonnet-4-5 >"$T/out.json" 2>"$T/err"
check "a budget not passed: success" [ "$(jq -r .subtype "$T/out.json")/$?" = success/0 ]
"$TANDEM" -p "go" --max-budget-usd nothing >/dev/null 2>"$T/err"
check "a bad budget: exit 2, named" [ $? -eq 2 ] && grep -q -- '--max-budget-usd' "$T/err"

# 3. --json-schema: the schema goes to the model; a valid answer is structured_output.
SCHEMA='{"type":"object","properties":{"files":{"type":"array","items":{"type":"string"}},"count":{"type":"integer"}},"required":["files","count"],"additionalProperties":false}'
mock_start "$(scenario schema <<'J'
{"responses":[
 {"text":"{\"files\": [\"notes.txt\"], \"count\": 1}","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "list" --output-format json --json-schema "$SCHEMA" >"$T/out.json" 2>"$T/err"
rc=$?
check "schema: exit 0" [ $rc -eq 0 ]
check "schema: structured_output is the answer" [ "$(jq -c .structured_output "$T/out.json")" = '{"files":["notes.txt"],"count":1}' ]
check "schema: the request's system prompt carries the schema" \
    grep -qF '"additionalProperties":false' <(mock_body 1 '[.system[].text] | join("\n")' | jq -r .)
mock_start "$T/schema.json"
"$TANDEM" -p "list" --json-schema "$SCHEMA" >"$T/out.txt" 2>"$T/err"
check "schema, text: prints the JSON answer" [ "$(jq -c . "$T/out.txt")" = '{"files":["notes.txt"],"count":1}' ]

mock_start "$(scenario retry <<'J'
{"responses":[
 {"text":"Here: notes.txt","stop_reason":"end_turn"},
 {"text":"```json\n{\"files\": [\"notes.txt\"], \"count\": 1}\n```","stop_reason":"end_turn",
  "expect_contains":"is not what --json-schema asks: the final answer is not JSON"}
]}
J
)"
"$TANDEM" -p "list" --output-format json --json-schema "$SCHEMA" >"$T/out.json" 2>"$T/err"
rc=$?
check "an answer sent back once: then valid, exit 0" [ $rc -eq 0 ]
check "an answer sent back once: structured_output" [ "$(jq -c .structured_output "$T/out.json")" = '{"files":["notes.txt"],"count":1}' ]
check "an answer sent back once: one result object" [ "$(jq -s length "$T/out.json")" -eq 1 ]
check "an answer sent back once: the mock saw the problem" [ "$(mock_requests)/$(mock_problems)" = 2/0 ]

mock_start "$(scenario badschema <<'J'
{"responses":[
 {"text":"```json\n{\"files\": \"notes.txt\", \"count\": 1}\n```","stop_reason":"end_turn","repeat":3}
]}
J
)"
"$TANDEM" -p "list" --output-format json --json-schema "$SCHEMA" >"$T/out.json" 2>"$T/err"
rc=$?
check "invalid answer: exit 1" [ $rc -eq 1 ]
check "invalid answer: asked twice more, then given up" [ "$(mock_requests)" -eq 3 ]
check "invalid answer: Claude Code's subtype" [ "$(jq -r .subtype "$T/out.json")" = error_max_structured_output_retries ]
check "invalid answer: the error says where" grep -qF '$.files: expected an array' <(jq -r '.errors[]' "$T/out.json")
check "invalid answer: no structured_output" [ "$(jq -r 'has("structured_output")' "$T/out.json")" = false ]
mock_start "$(scenario prose <<'J'
{"responses":[{"text":"Here you go: notes.txt","stop_reason":"end_turn","repeat":3}]}
J
)"
"$TANDEM" -p "list" --json-schema "$SCHEMA" >"$T/out.txt" 2>"$T/err"
rc=$?
check "prose answer, text: exit 1" [ $rc -eq 1 ]
check "prose answer, text: says it is not JSON" grep -q 'not JSON' "$T/err"
"$TANDEM" -p "list" --json-schema '{"type":' >/dev/null 2>"$T/err"
check "a malformed schema: exit 2, named" [ $? -eq 2 ] && grep -q -- '--json-schema is not valid JSON' "$T/err"
"$TANDEM" --json-schema '{}' </dev/null >/dev/null 2>"$T/err"
check "--json-schema without -p: exit 2" [ $? -eq 2 ]

finish
