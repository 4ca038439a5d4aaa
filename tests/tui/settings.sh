#!/bin/sh
# Screen test of settings in the TUI, with the real tandem and the mock
# model: a project whose settings define hooks and allow rules is asked
# about before the first prompt (no: ignored, and asked again next time;
# yes: honoured and remembered); custom slash commands run, are listed by
# /help and completed by Tab; /memory shows the memory files.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

mkdir -p "$TUI_WS/.tandem/commands"
cat >"$TUI_WS/.tandem/settings.json" <<'J'
{
  "permissions": {"allow": ["run_bash(echo *)"]},
  "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook_ran"}]}]}
}
J
cat >"$TUI_WS/.tandem/commands/greet.md" <<'M'
---
description: Greets someone
argument-hint: [name]
---
Say hello to $ARGUMENTS in one word.
M
# Too big to be a command: it exists but cannot be used.
awk 'BEGIN { for (i = 0; i < 1600; i++) print "filler line of a file far too large to be a prompt" }' \
    >"$TUI_WS/.tandem/commands/big.md"
echo "Project rules: MEMORY-MARKER." >"$TUI_WS/AGENTS.md"

SCEN=$(tui_scenario settings <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_e1","text":"ECHO-DONE","stop_reason":"end_turn","repeat":2},
 {"match":"run echo","tool_uses":[{"id":"toolu_e1","name":"run_bash","input":{"command":"echo hi"}}],"repeat":2},
 {"match":"Say hello to Bob","text":"HELLO-BOB","stop_reason":"end_turn"},
 {"match":"first prompt","text":"FIRST-ANSWER","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"

# ---- not trusted: asked before the first prompt; no ----
tui_start_tandem 80 24 '"first prompt"'
tui_check "the project's trust items are shown" 'This project defines what waits for trust:'
tui_check "its allow rule" '^  permissions\.allow run_bash\(echo \*\) from'
tui_check "its hook" '^  hooks\.UserPromptSubmit from '
tui_check "the user is asked before the first prompt" 'Trust this project and honour them\?  yes  no'
tui_absent "the initial prompt waits for the answer" '› first prompt'
tui_type "x"
tui_check_input "keys other than y and n do nothing meanwhile" '^› \? for keys'
tui_keys n
tui_check "n: not trusted" 'not trusted: this project.s hooks and allow rules are ignored'
tui_check "then the initial prompt goes" 'FIRST-ANSWER'
tui_type "run echo"
tui_keys Enter
tui_check "the untrusted allow rule is not honoured: it asks" 'Run this command in .*\?'
tui_keys n
tui_keys Enter
tui_check "denied" 'ECHO-DONE'
[ ! -e "$TUI_WS/hook_ran" ]
tui_ok $? "the untrusted hook did not run"
tui_keys C-c
tui_keys C-c
tui_exited "quit"

# ---- asked again; yes ----
tui_start_tandem 80 24
tui_check "not remembered: asked again" 'Trust this project and honour them\?'
tui_keys y
tui_check "y: trusted" 'trusted .*: its hooks and allow rules are in effect'
tui_type "run echo"
tui_keys Enter
tui_check "the allow rule is honoured: it runs without asking" 'ECHO-DONE'
tui_absent "nothing was asked" 'Run this command in'
[ -e "$TUI_WS/hook_ran" ]
tui_ok $? "the trusted hook ran"

# ---- custom slash commands and /memory ----
tui_type "/help"
tui_keys Enter
tui_check "/help lists the custom commands" '/greet \[name\] +Greets someone \(project\)'
tui_type "/gr"
tui_keys Tab
tui_check_input "Tab completes a custom command" '^› /greet *$'
tui_type " Bob"
tui_keys Enter
tui_check "the command's prompt is sent" '› Say hello to Bob in one word\.'
tui_check "and answered" 'HELLO-BOB'
jq -e -s '.[-1].body.messages[-1].content | tostring | contains("Say hello to Bob in one word.")' \
    "$TUI_MOCK_LOG" >/dev/null 2>&1
tui_ok $? "the model got the expanded prompt"
tui_type "/big"
tui_keys Enter
tui_check "a command that cannot be used says why" 'big\.md is larger than'
tui_type "/nosuch"
tui_keys Enter
tui_check "an unknown command is named" 'unknown command /nosuch'
tui_type "/memory"
tui_keys Enter
tui_check "/memory shows the memory files" 'AGENTS\.md'
tui_keys C-c
tui_keys C-c
tui_exited "quit"

# ---- remembered ----
tui_start_tandem 80 24
tui_check "the screen is up" '› \? for keys'
sleep 0.5
tui_absent "a trusted project is not asked about again" 'Trust this project'
tui_sane 24 24 "80x24 is laid out"
tui_mock_done
