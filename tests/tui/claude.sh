#!/bin/sh
# Screen test of a Claude Code user's .claude folder in the TUI, with the
# real tandem and the mock model: the settings keys tandem lacks are named
# in a notice at start, once, and a hook event it has no moment for; /help lists .claude/commands with the
# subfolder in the description; Tab completes one; it runs on its model
# (cheaper than the session's: a dearer one waits for trust, attack_trust.sh)
# and the next turn on the session's; /skills lists
# the skills; /memory names .claude/CLAUDE.md.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

mkdir -p "$TUI_WS/.claude/commands/kiro" "$TUI_WS/.claude/skills/tidy-up"
cat >"$TUI_WS/.claude/settings.json" <<'J'
{"outputStyle": "Explanatory", "noSuchKey": 1,
 "permissions": {"deny": ["Bash(rm:*)"]}}
J
cat >"$TUI_WS/.claude/commands/kiro/hello.md" <<'M'
---
description: Says hello
argument-hint: <name>
allowed-tools: Read
model: claude-haiku-4-9
---
Greet $1 in one word.
M
cat >"$TUI_WS/.claude/skills/tidy-up/SKILL.md" <<'M'
---
name: tidy-up
description: Tidies a source tree before a release
---
# Tidy
Remove what is not needed.
M
echo "CLAUDE-DIR-MEMORY" >"$TUI_WS/.claude/CLAUDE.md"
# A hook event tandem has no moment for, in the user's settings: named once too.
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"hooks":{"CwdChanged":[{"hooks":[{"type":"command","command":"true"}]}]}}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"

SCEN=$(tui_scenario claude <<'J'
{"check_echo":false,"responses":[
 {"match":"Greet Ann","text":"HELLO-ANN","stop_reason":"end_turn"},
 {"match":"plain prompt","text":"PLAIN-ANSWER","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 160 45
tui_check "the notice names what is not honoured" 'Read but not honoured'
tui_screen >"$TUI_TMP/start.screen"
tui_check "outputStyle, with its file" 'claude/settings\.json: settings key "outputStyle" is not honoured'
tui_check "and the unknown key" 'settings key "noSuchKey" is not honoured'
tui_absent "a key tandem honours is not named" 'settings key "permissions'
tui_check "the hook event tandem has no moment for, with its file" 'tandem/settings\.json: hook event "CwdChanged" is not honoured'
tui_absent "and no warning line beside it" 'CwdChanged hooks never run'
tui_type "/help"
tui_keys Enter
tui_check "/help lists the Claude Code command, its subfolder in the description" '/hello <name> +Says hello +\(project:kiro\)'
tui_check "/help lists the skill as a command" '/tidy-up +Tidies a source tree before a release +\(project, skill\)'
tui_type "/skills"
tui_keys Enter
tui_check "/skills lists the skill" 'tidy-up +Tidies a source tree before a release'
tui_type "/memory"
tui_keys Enter
tui_check "/memory names .claude/CLAUDE.md" '\.claude/CLAUDE\.md'
tui_type "/hell"
tui_keys Tab
tui_check_input "Tab completes it" '^› /hello *$'
tui_type " Ann"
tui_keys Enter
tui_check "its prompt is sent" '› Greet Ann in one word\.'
tui_check "and answered" 'HELLO-ANN'
tui_type "plain prompt"
tui_keys Enter
tui_check "a plain prompt after it" 'PLAIN-ANSWER'
models=$(jq -r '.body.model' "$TUI_MOCK_LOG" | tr '\n' ' ')
tui_ok "$(case $models in *"claude-haiku-4-9 claude-sonnet"*) echo 0 ;; *) echo 1 ;; esac)" \
    "the command's turn runs on its model, the next on the session's ($models)"
tui_keys C-c
tui_keys C-c
tui_exited "quit"
tui_done
