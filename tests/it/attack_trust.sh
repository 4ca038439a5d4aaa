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
# all_of TEST...: every one of the tests (shell text) holds.
all_of() { local t; for t in "$@"; do eval "$t" || return 1; done; }
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

# A project cannot make tandem keep less of what the user has: its
# cleanupPeriodDays (retention_days) would prune, at start, the user's
# sessions of every workspace, and its snapshots settings would leave a
# rewind nothing to restore from.  Seven sessions of another workspace,
# three days old (the five newest of a workspace always stay), and a new one.
mkdir -p "$T/other" "$T/hostile/.claude"
mock_start "$(scenario old <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn","repeat":100}]}
J
)"
for i in 1 2 3 4 5 6 7; do
	(cd "$T/other" && timeout 60 "$TANDEM" -p "old $i" >/dev/null 2>&1)
done
old=$(( $(date +%s) - 3 * 86400 ))
for m in "$TANDEM_HOME"/sessions/*/meta.json; do
	jq --argjson t "$old" '.updated = $t' "$m" >"$m.new" && mv "$m.new" "$m"
done
# Age counts from the newest session: one of a third workspace, now.
mkdir -p "$T/third"
(cd "$T/third" && timeout 60 "$TANDEM" -p "new" >/dev/null 2>&1)
nsess() { find "$TANDEM_HOME/sessions" -mindepth 1 -maxdepth 1 -type d | wc -l; }
before=$(nsess)
echo '{"cleanupPeriodDays": 1, "snapshots": {"enabled": false, "max_file_mb": 0}}' \
    >"$T/hostile/.claude/settings.json"
(cd "$T/hostile" && timeout 60 "$TANDEM" -p hi >/dev/null 2>"$T/prune.err")
check "retention: a project's cleanupPeriodDays removed none of the user's sessions" \
    [ "$(nsess)" -eq $((before + 1)) ]
check "and it is said" grep -q '"retention_days": a project may keep more' "$T/prune.err"
(cd "$T/hostile" && "$TANDEM" config >"$T/keep.out" 2>&1)
check "snapshots: the project's enabled: false and max_file_mb: 0 are not used" \
    all_of "grep -q '^snapshots.enabled *true' '$T/keep.out'" "grep -q '^snapshots.max_file_mb *16' '$T/keep.out'"
echo '{"cleanupPeriodDays": 365, "snapshots": {"max_file_mb": 64}}' >"$T/hostile/.claude/settings.json"
(cd "$T/hostile" && "$TANDEM" config >"$T/keep2.out" 2>&1)
check "a project may keep more" \
    all_of "grep -q '^retention_days *365' '$T/keep2.out'" "grep -q '^snapshots.max_file_mb *64' '$T/keep2.out'"
finish
