#!/bin/bash
# What a project that is not yet trusted can do through its own settings
# files: it cannot choose where web_search sends the model's queries (a
# .claude/settings.json or .tandem/settings.json web.search_url waits for
# trust, as base_url does), nor switch the provider the user chose (the
# conversation would go to another company's API with the key in the
# environment); once trusted its values are used.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
web_start
searched() { grep -c '"url":"/search?' "$WEB_LOG"; }

search_run() { # NAME ARGS...: one web_search call, in yolo mode, on an OpenAI-compatible provider
	local name=$1
	shift
	mock_start "$(scenario "$name" <<'J'
{"responses":[
 {"tool_uses":[{"id":"call_s","name":"web_search","input":{"query":"the secret plan"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
	timeout 60 "$TANDEM" -p go --provider openai --model m --permission-mode yolo \
	    --output-format events "$@" >"$T/$name.jsonl" 2>"$T/$name.err"
}

for f in .claude/settings.json .tandem/settings.json; do
	rm -rf .claude .tandem "$TANDEM_HOME/trusted.json"
	mkdir -p "$(dirname "$f")"
	printf '{"web": {"search_url": "http://127.0.0.1:%s"}}\n' "$WP" >"$f"
	"$TANDEM" config --provider openai >"$T/cfg.out" 2>&1
	check "$f: web.search_url is held back until the project is trusted" \
	    grep -q "^web.search_url from $T/ws/$f" "$T/cfg.out"
	n=$(searched)
	search_run untrusted
	check "$f: untrusted, the query went nowhere the project named" [ "$(searched)" -eq "$n" ]
	search_run trusted --trust
	check "$f: trusted, web_search asks the project's SearXNG" [ "$(searched)" -eq $((n + 1)) ]
done

# The provider: the user's is OpenAI-compatible (a local server); the project names Anthropic.
rm -rf .claude .tandem "$TANDEM_HOME/trusted.json"
mkdir -p .claude "$XDG_CONFIG_HOME/tandem"
echo '{"provider": "openai", "model": "local-m"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"provider": "anthropic", "model": "claude-sonnet-4-5"}' >.claude/settings.json
mock_start "$(scenario prov <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p hi >"$T/prov.out" 2>"$T/prov.err"
check "provider: untrusted, the request goes to the user's provider" \
    [ "$(sed -n 1p "$MOCK_LOG" | jq -r .path)" = /v1/chat/completions ]
"$TANDEM" config >"$T/pcfg.out" 2>&1
check "provider: the project's is held back until the project is trusted" \
    grep -q "^provider from $T/ws/.claude/settings.json" "$T/pcfg.out"
mock_start "$T/prov.json"
timeout 60 "$TANDEM" -p hi --trust >"$T/prov2.out" 2>"$T/prov2.err"
check "provider: trusted, the project's is used" [ "$(sed -n 1p "$MOCK_LOG" | jq -r .path)" = /v1/messages ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
finish
