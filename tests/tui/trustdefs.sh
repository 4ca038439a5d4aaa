#!/bin/sh
# Screen test of a project whose only dear choice is an agent definition's
# model, with the real tandem and the mock model: untrusted, the trust
# question comes before the first prompt and names the definition and the
# model it asks for; answered no, /agents says that type's model waits for
# trust; asked again and answered yes, /agents shows the model as it is
# and the subagent's requests ask for it, in the same session; so does the
# first prompt's request for a dearer model of the project's settings.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

mkdir -p "$TUI_WS/.claude/agents" "$XDG_CONFIG_HOME/tandem"
echo '{"model": "claude-sonnet-4-5"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
cat >"$TUI_WS/.claude/agents/big.md" <<'MD'
---
name: big
description: Does the big jobs.
tools: Read
model: opus
---
You do big jobs.
MD
SCEN=$(tui_scenario trustdefs <<'J'
{"responses":[
 {"match_last":"use the big one","tool_uses":[
   {"id":"toolu_B","name":"agent","input":{"description":"big job","prompt":"TASK-BIG","subagent_type":"big"}}]},
 {"match_last":"TASK-BIG","text":"BIG-DONE"},
 {"match_last":"BIG-DONE","text":"PARENT-DONE","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":10}
]}
J
)
tui_mock_start "$SCEN"
item='^  the agent definition \.claude/agents/big\.md \(subagent type big\) asks for claude-opus-4-1, dearer than the session.s claude-sonnet-4-5 *│'

# ---- untrusted: asked; no ----
tui_start_tandem 240 40
tui_check "a project with only a dear agent definition is asked about" \
    'This project defines what waits for trust:'
tui_check "the question names the definition, its model and the session's" "$item"
tui_check "and asks" 'Trust this project and honour them\?  yes  no'
tui_keys n
tui_check "n: not trusted" 'not trusted: '
tui_type "/agents"
tui_keys Enter
tui_check "/agents lists the project's type" 'big  \(.*\.claude/agents/big\.md\)'
tui_check "and says its model waits for trust, and why" \
    "^    model: opus, waits for trust \(claude-opus-4-1 costs more per token than the session.s claude-sonnet-4-5\); the session.s model answers *│"
tui_keys C-c
tui_keys C-c
tui_exited "quit"

# ---- asked again; yes: the definition's model is used at once ----
tui_start_tandem 240 40
tui_check "not remembered: asked again" "$item"
tui_keys y
tui_check "y: trusted" 'trusted .*: its hooks and allow rules are in effect'
tui_type "/agents"
tui_keys Enter
tui_check "/agents shows the type's model" '^    model: opus *│'
tui_absent "and nothing waits" 'model: opus, waits for trust'
tui_type "use the big one"
tui_keys Enter
tui_check "the parent answers with the subagent's work" 'PARENT-DONE'
models=$(jq -r 'select(.body.messages[0].content | tostring | contains("TASK-BIG")) | .body.model' \
    "$TUI_MOCK_LOG" | sort -u | tr '\n' ' ')
tui_ok "$([ "$models" = "claude-opus-4-1 " ] && echo 0 || echo 1)" \
    "trusted, the subagent's requests ask for the definition's model ($models)"
tui_keys C-c
tui_keys C-c
tui_exited "quit"

# ---- a dearer model in the project's settings: trusted, it answers in that session too ----
rm -f "$TANDEM_HOME/trusted.json" "$TUI_WS/.claude/agents/big.md"
echo '{"model": "claude-opus-4-1"}' >"$TUI_WS/.claude/settings.json"
tui_mock_start "$SCEN"
tui_start_tandem 240 40
tui_check "the settings' dearer model is asked about" '^  model from .*/\.claude/settings\.json'
tui_keys y
tui_check "y: trusted" 'trusted .*: its hooks and allow rules are in effect'
tui_check "the status bar shows the project's model" 'opus-4-1 │ ctx'
tui_type "hello"
tui_keys Enter
tui_check "answered" '^ok'
tui_ok "$([ "$(jq -r .body.model "$TUI_MOCK_LOG" | sort -u)" = claude-opus-4-1 ] && echo 0 || echo 1)" \
    "the first prompt's request asks for the project's model"
tui_mock_done
