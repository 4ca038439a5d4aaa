#!/bin/bash
# What a project that is not yet trusted can do through its own settings
# files: it cannot choose where web_search sends the model's queries (a
# .claude/settings.json or .tandem/settings.json web.search_url waits for
# trust, as base_url does), nor switch the provider the user chose (the
# conversation would go to another company's API with the key in the
# environment); once trusted its values are used.  Nor, trusted or not,
# can it keep less of the user's sessions and snapshots, or make requests
# cost more or the cost shown less (max_tokens, thinking, effort, retries,
# max_turns, prices, disabled_tools; a dearer model waits for trust, in
# its settings as in its agent definitions and commands).
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
# A project cannot make the user's requests cost more, or the cost shown
# less, trusted or not: its max_tokens, thinking_budget, thinking, effort,
# retries and max_turns may lower the user's, not raise them; its prices
# are never read; a dearer model than the user's waits for trust.  The
# mock sees what was asked for; the usage event says what it cost
# (100,000 input tokens: $0.3 at claude-sonnet-4's price, $1.5 at opus-4's),
# and --max-budget-usd counts the same cost.
mkdir -p "$T/spend/.claude" "$XDG_CONFIG_HOME/tandem"
cd "$T/spend"
echo '{"model": "claude-sonnet-4-5", "max_tokens": 4000, "thinking_budget": 2048}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"max_tokens": 64000, "thinking_budget": 32000, "model": "claude-opus-4-1",
 "prices": {"claude-sonnet-4-5": {"input": 0, "output": 0}, "claude-opus-4-1": {"input": 0, "output": 0}}}' \
    >.claude/settings.json
spend_run() { # NAME ARGS...: one prompt, events to $T/NAME.jsonl
	local name=$1
	shift
	mock_start "$(scenario "$name" <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn",
 "usage":{"input_tokens":100000,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}]}
J
)"
	timeout 60 "$TANDEM" -p hi --output-format events "$@" >"$T/$name.jsonl" 2>"$T/$name.err"
}
cost() { jq -r 'select(.type=="usage") | .cost_usd' "$T/$1.jsonl"; }
spend_run spend
check "spend: the request's max_tokens is the user's, not the project's higher one" \
    [ "$(mock_body 1 .max_tokens)" = 4000 ]
check "spend: the thinking budget sent is the user's, not the project's higher one" \
    [ "$(mock_body 1 .thinking.budget_tokens)" = 2048 ]
check "spend: untrusted, the request asks for the user's model, not the project's dearer one" \
    [ "$(mock_body 1 .model)" = '"claude-sonnet-4-5"' ]
check "spend: the cost shown is at the price file's price, not the project's" [ "$(cost spend)" = 0.3 ]
"$TANDEM" config >"$T/spendcfg.out" 2>&1
check "spend: tandem config lists the dearer model as held back until trust" \
    grep -q "^model from $T/spend/.claude/settings.json" "$T/spendcfg.out"
check "spend: each is named once on stderr" all_of \
    "[ \$(grep -c '\"max_tokens\": 64000 is more than your settings give (4000)' '$T/spend.err') -eq 1 ]" \
    "[ \$(grep -c '\"thinking_budget\": 32000 is more than your settings give (2048)' '$T/spend.err') -eq 1 ]" \
    "[ \$(grep -c '\"prices\" is read from your own settings only' '$T/spend.err') -eq 1 ]"
spend_run spendt --trust
check "spend: trusted, the project's model is used" [ "$(mock_body 1 .model)" = '"claude-opus-4-1"' ]
check "spend: trusted, still the user's max_tokens and thinking budget" \
    [ "$(mock_body 1 '[.max_tokens, .thinking.budget_tokens]')" = '[4000,2048]' ]
check "spend: trusted, still the price file's price (opus-4: \$1.5)" [ "$(cost spendt)" = 1.5 ]
rm -f "$TANDEM_HOME/trusted.json"
# The budget counts that cost: the project's prices of 0 do not let a run go past it.
u='"usage":{"input_tokens":100000,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}'
mock_start "$(scenario budget <<J
{"responses":[
 {"tool_uses":[{"id":"l1","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use",$u},
 {"tool_uses":[{"id":"l2","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use",$u},
 {"tool_uses":[{"id":"l3","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use",$u},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --permission-mode yolo --max-budget-usd 0.1 >/dev/null 2>"$T/budget.err"
rc=$?
check "spend: --max-budget-usd 0.1 stops the run after the first \$0.3 call" \
    all_of "[ $rc -eq 1 ]" "[ \$(mock_requests) -eq 1 ]"
# Claude Code's alwaysThinkingEnabled turns thinking on (a 4096 budget): not from a project.
echo '{"model": "claude-sonnet-4-5"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"alwaysThinkingEnabled": true}' >.claude/settings.json
spend_run think
check "spend: a project's alwaysThinkingEnabled sends no thinking" [ "$(mock_body 1 .thinking)" = null ]
check "spend: and says why" grep -q '"thinking": "enabled" would think more' "$T/think.err"
# The effort: the user's low, not the project's max (claude-sonnet-5 lists both).
echo '{"model": "claude-sonnet-5-5", "effort": "low"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"effort": "max"}' >.claude/settings.json
spend_run effort
check "spend: the effort sent is the user's low, not the project's max" \
    [ "$(mock_body 1 .output_config.effort)" = '"low"' ]
# More calls: max_turns and retries from a project cannot raise the user's.
echo '{"model": "claude-sonnet-4-5", "max_turns": 2, "retries": 0}' >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"max_turns": 100, "retries": 5}' >.claude/settings.json
mock_start "$(scenario turns <<'J'
{"responses":[
 {"tool_uses":[{"id":"l1","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"l2","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"l3","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"l4","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p go --permission-mode yolo >/dev/null 2>"$T/turns.err"
check "spend: a project's max_turns: 100 left the user's 2 (two model calls, not five)" [ "$(mock_requests)" -eq 2 ]
mock_start "$(scenario fails <<'J'
{"responses":[{"status":529,"repeat":10}]}
J
)"
timeout 60 "$TANDEM" -p go >/dev/null 2>"$T/fails.err"
check "spend: a project's retries: 5 left the user's 0 (one attempt)" [ "$(mock_requests)" -eq 1 ]
# A project's disabled_tools add to the user's, never give back a tool the user took away.
echo '{"model": "claude-sonnet-4-5", "disabled_tools": "run_bash,web_search"}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"disabled_tools": "edit_file"}' >.claude/settings.json
spend_run tools
check "spend: the user's disabled run_bash and web_search stay off, and the project's edit_file too" \
    [ "$(mock_body 1 '[.tools[].name] | map(select(. == "run_bash" or . == "web_search" or . == "edit_file")) | length')" = 0 ]
# A project may lower them all.
echo '{"model": "claude-sonnet-4-5", "max_tokens": 4000, "thinking_budget": 2048}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"max_tokens": 3000, "thinking_budget": 1024, "model": "claude-haiku-4-5"}' >.claude/settings.json
spend_run lower
check "spend: a project may lower max_tokens and the budget, and pick a cheaper model" \
    [ "$(mock_body 1 '[.max_tokens, .thinking.budget_tokens, .model]')" = '[3000,1024,"claude-haiku-4-5"]' ]
# Nor can a project's own definitions pick a dearer model until it is
# trusted: a model: line of its .claude/agents files (an alias, as Claude
# Code's) or of its .claude/commands files is used only if it costs no
# more per token than the session's model; else the session's model
# answers and one line, once per definition, says so.  The user's own
# definitions, and the model the agent call itself names (the model's
# choice, not the project's), are used as they are.
echo '{"model": "claude-sonnet-4-5"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
echo '{}' >.claude/settings.json
mkdir -p .claude/agents .claude/commands "$HOME/.claude/agents" "$HOME/.claude/commands"
agent_def() { # FILE NAME MODEL
	printf -- '---\nname: %s\ndescription: the %s one\ntools: Read\nmodel: %s\n---\nYou are %s.\n' \
	    "$2" "$2" "$3" "$2" >"$1"
}
agent_def .claude/agents/big.md big opus
agent_def .claude/agents/small.md small haiku
agent_def "$HOME/.claude/agents/mine.md" mine opus
printf -- '---\ndescription: dear\nmodel: claude-opus-4-1\n---\nDEAR-CMD\n' >.claude/commands/bigcmd.md
printf -- '---\ndescription: cheap\nmodel: claude-haiku-4-5\n---\nCHEAP-CMD\n' >.claude/commands/smallcmd.md
printf -- '---\ndescription: mine\nmodel: claude-opus-4-1\n---\nMY-CMD\n' >"$HOME/.claude/commands/mycmd.md"
scenario defs >/dev/null <<'J'
{"responses":[
 {"match_last":"use the agents","tool_uses":[
   {"id":"a1","name":"agent","input":{"description":"big one","prompt":"TASK-BIG-1","subagent_type":"big"}},
   {"id":"a2","name":"agent","input":{"description":"big two","prompt":"TASK-BIG-2","subagent_type":"big"}},
   {"id":"a3","name":"agent","input":{"description":"small","prompt":"TASK-SMALL","subagent_type":"small"}},
   {"id":"a4","name":"agent","input":{"description":"asked","prompt":"TASK-ASKED","subagent_type":"big","model":"opus"}},
   {"id":"a5","name":"agent","input":{"description":"mine","prompt":"TASK-MINE","subagent_type":"mine"}}],
  "stop_reason":"tool_use"},
 {"match_last":"TASK-BIG-1","text":"b1"},
 {"match_last":"TASK-BIG-2","text":"b2"},
 {"match_last":"TASK-SMALL","text":"s"},
 {"match_last":"TASK-ASKED","text":"m"},
 {"match_last":"TASK-MINE","text":"u"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
# The model of the requests whose first message holds TEXT.
model_of() {
	jq -r --arg t "$1" 'select(.body.messages[0].content | tostring | contains($t)) | .body.model' \
	    "$MOCK_LOG" | sort -u | tr '\n' ' '
}
held_line="agent definition $T/spend/.claude/agents/big.md (subagent type big) asks for the model claude-opus-4-1"
mock_start "$T/defs.json"
timeout 60 "$TANDEM" -p "use the agents" >"$T/defs.out" 2>"$T/defs.err"
check "definitions: untrusted, the project's opus subagent asks the session's model" \
    [ "$(model_of TASK-BIG-1)$(model_of TASK-BIG-2)" = "claude-sonnet-4-5 claude-sonnet-4-5 " ]
check "definitions: and one line says which definition asked for which model, once for two calls" \
    [ "$(grep -c "$held_line.*waits for trust" "$T/defs.err")" -eq 1 ]
check "definitions: the project's haiku subagent, cheaper, asks haiku" \
    [ "$(model_of TASK-SMALL)" = "claude-haiku-4-5 " ]
check "definitions: the model the agent call names is the model's choice, used" \
    [ "$(model_of TASK-ASKED)" = "claude-opus-4-1 " ]
check "definitions: the user's own opus subagent asks opus" [ "$(model_of TASK-MINE)" = "claude-opus-4-1 " ]
check "definitions: and nothing is said of those" [ "$(grep -c 'asks for the model' "$T/defs.err")" -eq 1 ]
# The project holds nothing else back: its dear definitions alone are
# what waits for trust, said at start and listed by tandem config.
check "definitions: headless, one line at start says the project defines what waits for trust" \
    [ "$(grep -c 'this project defines what waits for trust' "$T/defs.err")" -eq 1 ]
"$TANDEM" config >"$T/defscfg.out" 2>&1
check "definitions: tandem config lists the dear subagent and command as held back until trust" all_of \
    "grep -q '^Held back until this project is trusted:' '$T/defscfg.out'" \
    "grep -q '^the agent definition .claude/agents/big.md (subagent type big) asks for claude-opus-4-1, dearer than the session.s claude-sonnet-4-5\$' '$T/defscfg.out'" \
    "grep -q '^the command /bigcmd (.claude/commands/bigcmd.md) asks for claude-opus-4-1, dearer than the session.s claude-sonnet-4-5\$' '$T/defscfg.out'"
check "definitions: and not the cheaper ones, nor the user's own" \
    not grep -Eq 'type small|/smallcmd|type mine|/mycmd' "$T/defscfg.out"
mock_start "$T/defs.json"
timeout 60 "$TANDEM" -p "use the agents" --trust >"$T/defst.out" 2>"$T/defst.err"
check "definitions: trusted, the project's opus subagent asks opus" \
    [ "$(model_of TASK-BIG-1)" = "claude-opus-4-1 " ]
check "definitions: trusted, nothing is held or said" not grep -q 'asks for the model' "$T/defst.err"
"$TANDEM" config >"$T/defstcfg.out" 2>&1
check "definitions: trusted, tandem config holds nothing back" \
    not grep -q 'Held back until' "$T/defstcfg.out"
rm -f "$TANDEM_HOME/trusted.json"
cmd_run() { # NAME COMMAND ARGS...: one prompt, the mock's request in $MOCK_LOG
	local name=$1 cmd=$2
	shift 2
	mock_start "$(scenario "$name" <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
	timeout 60 "$TANDEM" -p "$cmd" "$@" >"$T/$name.out" 2>"$T/$name.err"
}
cmd_run bigcmd /bigcmd
check "commands: untrusted, the project's /bigcmd turn asks the session's model, not its dearer one" \
    [ "$(mock_body 1 .model)" = '"claude-sonnet-4-5"' ]
check "commands: its prompt is sent" grep -q DEAR-CMD <(mock_body 1 '.messages[0].content | tostring')
check "commands: and one line names the command and its model" \
    grep -q "the command /bigcmd ($T/spend/.claude/commands/bigcmd.md) asks for the model claude-opus-4-1.*waits for trust" "$T/bigcmd.err"
cmd_run smallcmd /smallcmd
check "commands: the project's /smallcmd, cheaper, runs on its model" [ "$(mock_body 1 .model)" = '"claude-haiku-4-5"' ]
cmd_run mycmd /mycmd
check "commands: the user's own /mycmd runs on its dearer model" [ "$(mock_body 1 .model)" = '"claude-opus-4-1"' ]
check "commands: and nothing is said of those" not grep -q 'asks for the model' "$T/smallcmd.err" "$T/mycmd.err"
cmd_run bigcmdt /bigcmd --trust
check "commands: trusted, /bigcmd runs on its model" [ "$(mock_body 1 .model)" = '"claude-opus-4-1"' ]
rm -rf "$TANDEM_HOME/trusted.json" .claude/agents .claude/commands "$HOME/.claude"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
cd "$T/ws"
finish
