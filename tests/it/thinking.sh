#!/bin/bash
# Extended thinking against the mock: the thinking budget setting, thinking
# and redacted_thinking blocks sent back verbatim with their signatures
# (the mock checks it, and this test shows that the check bites), across
# tool rounds, a later prompt and a retry; OpenAI reasoning shown but not
# sent back.  Then the model table: prices, and a change of model as a
# cache-break cause.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
printf 'one\ntwo\n' >a.txt

result() { tail -n 1 "$T/out.jsonl" | jq -r "$1"; }
# post JSON: send a request body to the mock as tandem would; prints the HTTP status.
post() {
	curl -s -o "$T/post.out" -w '%{http_code}' -H 'x-api-key: test-key' \
	    -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' \
	    --data-binary @- "$ANTHROPIC_BASE_URL/v1/messages"
}

# 1. Thinking and redacted thinking with a tool call; the budget from the settings.
settings '{"thinking_budget": 2048, "model": "claude-sonnet-4-5"}'
mock_start "$(scenario think <<'J'
{"require_all": true, "responses":[
 {"redacted_thinking":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj",
  "thinking":"The user wants the file. Reading a.txt first — «quoted» too.",
  "signature":"EqMockSignature+/=0123456789",
  "text":"Let me read it.","tool_uses":[{"id":"toolu_t1","name":"read_file","input":{"path":"a.txt"}}]},
 {"thinking":"It has two lines. Now a second look.","text":"Checking again.",
  "tool_uses":[{"id":"toolu_t2","name":"grep","input":{"pattern":"two"}}]},
 {"thinking":"Enough.","text":"a.txt has two lines.","stop_reason":"end_turn"}
]}
J
)"
run -p "read a.txt"
check "thinking: exit 0" [ $? -eq 0 ]
check "thinking: the answer" [ "$(result .text)" = "a.txt has two lines." ]
check "thinking: the budget is in every request" \
    [ "$(jq -c '.body.thinking' "$MOCK_LOG" | sort -u)" = '{"type":"enabled","budget_tokens":2048}' ]
check "thinking: max_tokens above the budget" [ "$(mock_body 1 '.max_tokens > .thinking.budget_tokens')" = true ]
check "thinking: the deltas reached the front end" \
    [ "$(ev thinking .text | jq -rj . | head -c 200)" = "The user wants the file. Reading a.txt first — «quoted» too.It has two lines. Now a second look.Enough." ]
check "thinking: the mock found every echo verbatim (no problems)" [ "$(mock_problems)" -eq 0 ]
check "thinking: request 2 sends the blocks back in order" \
    [ "$(mock_body 2 '[.messages[1].content[].type]')" = '["redacted_thinking","thinking","text","tool_use"]' ]
check "thinking: with the signature, unchanged" \
    [ "$(mock_body 2 '.messages[1].content[1] | [.thinking, .signature]')" = '["The user wants the file. Reading a.txt first — «quoted» too.","EqMockSignature+/=0123456789"]' ]
check "thinking: redacted data unchanged" \
    [ "$(mock_body 2 '.messages[1].content[0].data')" = '"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"' ]
check "thinking: no cache breakpoint on a thinking block" \
    [ "$(jq '[.body.messages[].content[]? | select(.type=="thinking" or .type=="redacted_thinking") | select(.cache_control)] | length' "$MOCK_LOG" | sort -u)" = 0 ]
check "thinking: request 3 still carries round 1's blocks and round 2's" \
    [ "$(mock_body 3 '[.messages[] | select(.role=="assistant") | .content[] | select(.type=="thinking") | .thinking]')" = '["The user wants the file. Reading a.txt first — «quoted» too.","It has two lines. Now a second look."]' ]

# The check bites: the same request with the thinking text or the signature altered is refused.
body=$(sed -n 2p "$MOCK_LOG" | jq -c .body)
check "the mock refuses changed thinking text" \
    [ "$(jq -c '.messages[1].content[1].thinking = "The user wants the file."' <<<"$body" | post)" = 400 ]
check "the refusal names the signature" grep -q 'signature' "$T/post.out"
check "the mock refuses a dropped thinking block" \
    [ "$(jq -c '.messages[1].content |= map(select(.type != "thinking"))' <<<"$body" | post)" = 400 ]
check "the mock refuses a dropped redacted_thinking block" \
    [ "$(jq -c '.messages[1].content |= map(select(.type != "redacted_thinking"))' <<<"$body" | post)" = 400 ]
check "the mock refuses thinking moved after the tool call" \
    [ "$(jq -c '.messages[1].content |= ([.[] | select(.type != "thinking")] + [.[] | select(.type == "thinking")])' <<<"$body" | post)" = 400 ]

# 2. A later prompt carries the earlier turn's thinking unchanged.
mock_start "$(scenario later <<'J'
{"responses":[
 {"thinking":"Plain thoughts, no tools.","text":"First answer.","stop_reason":"end_turn"},
 {"text":"Second answer.","stop_reason":"end_turn",
  "expect_contains":["Plain thoughts, no tools.","\"signature\""]}
]}
J
)"
run -p "first"
run -r "$(result .session_id)" -p "second"
check "later prompt: exit 0" [ $? -eq 0 ]
check "later prompt: the thinking block went back with its signature" \
    [ "$(mock_body 2 '.messages[1].content[0] | [.type, .thinking, (.signature | length > 0)]')" = '["thinking","Plain thoughts, no tools.",true]' ]
check "later prompt: no problems" [ "$(mock_problems)" -eq 0 ]

# 3. A stream cut inside the thinking block: nothing of it is kept; the retry brings it whole.
mock_start "$(scenario cut <<'J'
{"responses":[
 {"thinking":"A long line of thought that will be cut before its signature arrives.",
  "text":"Reading.","tool_uses":[{"id":"toolu_c","name":"read_file","input":{"path":"a.txt"}}],
  "close_after_bytes":900},
 {"thinking":"A long line of thought that will be cut before its signature arrives.",
  "text":"Reading.","tool_uses":[{"id":"toolu_c","name":"read_file","input":{"path":"a.txt"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)"
run -p "x"
check "cut thinking: exit 0 after one retry" [ "$?/$(ev retry .attempt)" = 0/1 ]
check "cut thinking: the echo is the whole block, once" \
    [ "$(mock_body 3 '[.messages[] | select(.role=="assistant") | .content[] | select(.type=="thinking") | .thinking]')" = '["A long line of thought that will be cut before its signature arrives."]' ]
check "cut thinking: no problems" [ "$(mock_problems)" -eq 0 ]
settings '{}'

# 4. A budget the API would refuse is mended: at least 1024, below max_tokens.
mock_start "$(scenario budget <<'J'
{"responses":[{"thinking":"t","text":"ok","repeat":3}]}
J
)"
settings '{"thinking_budget": 500, "model": "claude-sonnet-4-5"}'
run -p "x"
check "budget 500: sent as 1024" [ "$?/$(mock_body 1 .thinking.budget_tokens)" = 0/1024 ]
settings '{"thinking_budget": 9000, "max_tokens": 8192, "model": "claude-sonnet-4-5"}'
run -p "x"
check "budget 9000 over max_tokens 8192: accepted" [ $? -eq 0 ]
check "budget 9000: max_tokens raised above it" [ "$(mock_body 2 '.max_tokens > .thinking.budget_tokens')" = true ]
settings '{"thinking_budget": 0, "model": "claude-sonnet-4-5"}'
run -p "x"
check "budget 0: no thinking parameter" [ "$(mock_body 3 .thinking)" = null ]
check "budgets: no problems" [ "$(mock_problems)" -eq 0 ]
settings '{}'

# 5. OpenAI reasoning (reasoning_content) is shown as thinking and not sent back.
mock_start "$(scenario reasoning <<'J'
{"responses":[
 {"thinking":"Secret reasoning here.","text":"Listing.","tool_uses":[{"id":"call_r","name":"list_dir","input":{}}]},
 {"text":"Done.","stop_reason":"end_turn","expect_absent":"Secret reasoning"}
]}
J
)"
run -p "x" --provider openai
check "openai reasoning: exit 0" [ $? -eq 0 ]
check "openai reasoning: shown as thinking" [ "$(ev thinking .text | jq -rj .)" = "Secret reasoning here." ]
check "openai reasoning: not sent back, no problems" [ "$(mock_problems)" -eq 0 ]

# 6. Models: prices from the table; another model on resume is a cache break.
mock_start "$(scenario models <<'J'
{"responses":[
 {"text":"priced","usage":{"input_tokens":100000,"output_tokens":10000,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}},
 {"text":"one"}, {"text":"two"}
]}
J
)"
run -p "x" --model claude-sonnet-4-5
check "price: sonnet 4.5 at \$3 in, \$15 out per million" [ "$(ev usage .cost_usd)" = 0.45 ]
check "window: 200k for sonnet 4.5" [ "$(ev context .window)" = 200000 ]
id=$(result .session_id)
run -r "$id" -p "y" --model claude-sonnet-4-5
check "same model on resume: no cache break" [ -z "$(ev cache_break .causes)" ]
run -r "$id" -p "z" --model claude-opus-4-5
check "another model on resume: a cache break" [ "$(ev cache_break .causes)" = '["model_changed"]' ]
check "another model: the request names it" [ "$(mock_body 3 .model)" = '"claude-opus-4-5"' ]

finish
