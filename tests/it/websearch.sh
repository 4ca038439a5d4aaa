#!/bin/bash
# web_search through the real binary: on the Anthropic provider a side
# request declaring the web search server tool, whose blocks the mock
# sends as the Messages API does (server_tool_use, web_search_tool_result
# with encrypted_content, text with citations, pause_turn), priced from
# usage.server_tool_use.web_search_requests; an organisation without web
# search; on an OpenAI-compatible provider a SearXNG endpoint, or no tool
# at all (and `tandem config` says why); Claude Code's names on the wire.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
web_start

result() { jq -r "select(.type==\"tool_result\" and .id==\"$2\") | .$3" "$T/$1.jsonl"; }

mock_start "$(scenario search <<'J'
{"require_all": true, "responses":[
 {"tool_uses":[{"id":"toolu_s","name":"web_search","input":{"query":"tandem 1.4 release notes","allowed_domains":["example.com"]}}],"stop_reason":"tool_use"},
 {"web_search":{"query":"tandem 1.4 release notes","searches":1,
   "results":[{"title":"tandem 1.4 released","url":"https://example.com/news/tandem-1.4","page_age":"2 days ago"},
              {"title":"Changelog","url":"https://example.com/changelog"}]},
  "stop_reason":"pause_turn"},
 {"web_search":{"query":"tandem changelog 1.4","searches":2,
   "results":[{"title":"Changelog","url":"https://example.com/changelog"}],
   "answer":[{"text":"tandem 1.4 adds web_fetch and web_search.","cite":[0]},
             {"text":" It also speeds up resume."}]},
  "stop_reason":"end_turn","usage":{"input_tokens":2000,"output_tokens":50}},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --allow WebSearch --output-format events >"$T/search.jsonl" 2>"$T/search.err"
check "the run ends well" [ $? -eq 0 ]
check "the mock found every request right" [ "$(mock_problems)" -eq 0 ]
check "web_search is offered to the model on Anthropic" \
    [ "$(mock_body 1 '[.tools[].name] | index("web_search") != null')" = true ]
check "the side request declares the server tool with max_uses and the domains" \
    [ "$(mock_body 2 '.tools[0] | .type == "web_search_20250305" and .name == "web_search" and .max_uses == 5 and .allowed_domains == ["example.com"] and (has("blocked_domains") | not)')" = true ]
check "after pause_turn the side request goes on with the paused content" \
    [ "$(mock_body 3 '.messages[1].role == "assistant" and ([.messages[1].content[].type] | index("server_tool_use") != null and index("web_search_tool_result") != null)')" = true ]
check "...the server tool's result is sent back with its encrypted_content" \
    [ "$(mock_body 3 '[.messages[1].content[] | select(.type=="web_search_tool_result") | .content[0].encrypted_content | startswith("enc_")] == [true]')" = true ]
r=$(result search toolu_s content)
check "the result lists the searches made" bash -c "grep -q 'Searched: tandem 1.4 release notes' <<<'$r' && grep -q 'Searched: tandem changelog 1.4' <<<'$r'"
check "the result lists titles and URLs" grep -q '\[1\] tandem 1.4 released — https://example.com/news/tandem-1.4' <<<"$r"
check "the answer carries its citation" grep -q 'tandem 1.4 adds web_fetch and web_search. \[2\]' <<<"$r"
check "...and the uncited text after it" grep -q 'It also speeds up resume.' <<<"$r"
check "the count comes from usage.server_tool_use.web_search_requests" grep -q '(3 searches)' <<<"$r"
check "the searches are priced (3 x \$0.01 at least)" \
    bash -c "jq -s -e '[.[] | select(.type==\"result\")][0].usage.cost_usd >= 0.03' '$T/search.jsonl' >/dev/null || jq -s -e '[.[] | select(.type==\"usage\")] | last | .cost_usd >= 0.03' '$T/search.jsonl' >/dev/null"

mock_start "$(scenario both <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_b","name":"web_search","input":{"query":"x y","allowed_domains":["a.com"],"blocked_domains":["b.com"]}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --allow WebSearch --output-format events >"$T/both.jsonl" 2>&1
check "allowed_domains and blocked_domains together: refused" grep -q 'not both' <<<"$(result both toolu_b content)"

mock_start "$(scenario noorg <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_n","name":"web_search","input":{"query":"anything"}}],"stop_reason":"tool_use"},
 {"status":400,"body":{"type":"error","error":{"type":"invalid_request_error","message":"Web search is not enabled for this organization. Enable it in the Console."}}},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --allow WebSearch --output-format events >"$T/noorg.jsonl" 2>&1
check "an organisation without web search: one sentence" \
    [ "$(result noorg toolu_n content)" = "Web search is not enabled for this organisation: an administrator can turn it on in the Claude Console's privacy settings." ]

mock_start "$(scenario maxuses <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_m","name":"web_search","input":{"query":"anything"}}],"stop_reason":"tool_use"},
 {"web_search":{"query":"anything","error":"max_uses_exceeded"}},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --allow WebSearch --output-format events >"$T/maxuses.jsonl" 2>&1
check "the server tool's error code is told" grep -q 'as many searches as it may' <<<"$(result maxuses toolu_m content)"

mock_start "$(scenario headless <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_h","name":"web_search","input":{"query":"anything"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --output-format events >"$T/headless.jsonl" 2>&1
check "web_search asks unless a rule allows it (headless: refused, naming --allow)" \
    grep -q "web_search needs approval" <<<"$(result headless toolu_h content)"

# Claude Code's names on the wire and for hooks.
mock_start "$(scenario sj <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_j","name":"web_fetch","input":{"url":"http://127.0.0.1:$WP/md"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
TANDEM_WEB_TEST_LOOPBACK=1 timeout 60 "$TANDEM" -p go --output-format stream-json --verbose \
    --allow 'WebFetch(domain:127.0.0.1)' >"$T/sj.out" 2>"$T/sj.err"
check "stream-json names the call WebFetch with Claude Code's input" \
    bash -c "jq -s -e 'any(.[] | select(.type==\"assistant\") | .message.content[]; .type==\"tool_use\" and .name==\"WebFetch\" and .input.url==\"http://127.0.0.1:$WP/md\")' '$T/sj.out' >/dev/null"
check "...and its result comes back as a tool_result" \
    bash -c "jq -s -e 'any(.[] | select(.type==\"user\") | .message.content[]; .type==\"tool_result\" and .tool_use_id==\"toolu_j\")' '$T/sj.out' >/dev/null"

# OpenAI-compatible: a SearXNG endpoint, or no web_search at all.
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"web": {"search_url": "http://127.0.0.1:%s"}}\n' "$WP" >"$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$(scenario sx <<'J'
{"responses":[
 {"tool_uses":[{"id":"call_x","name":"web_search","input":{"query":"tandem release","blocked_domains":["mirror.example.org"]}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --provider openai --model m --allow WebSearch --output-format events >"$T/sx.jsonl" 2>"$T/sx.err"
r=$(result sx call_x content)
check "OpenAI-compatible with web.search_url: SearXNG's results" grep -q '\[1\] tandem 1.4 released — https://example.com/news/tandem-1.4' <<<"$r"
check "...its snippet" grep -q 'Release notes for tandem release' <<<"$r"
check "...blocked_domains left out" not grep -q 'mirror.example.org' <<<"$r"
check "...asked with format=json" grep -q '"url":"/search?q=tandem%20release&format=json"' "$T/web.log"
check "tandem config says web_search is offered" grep -q '^web_search: offered' <<<"$("$TANDEM" config --provider openai 2>&1)"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$(scenario none <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p go --provider openai --model m --output-format events >/dev/null 2>&1
check "OpenAI-compatible without a backend: web_search is not offered" \
    [ "$(mock_body 1 '[.tools[].function.name] | index("web_search") == null and index("web_fetch") != null')" = true ]
check "...and tandem config says why" \
    grep -q '^web_search: not offered: the provider is OpenAI-compatible and no search backend is set' \
    <<<"$("$TANDEM" config --provider openai 2>&1)"

kill $WEB_PID 2>/dev/null
finish
