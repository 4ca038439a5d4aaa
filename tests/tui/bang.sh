#!/bin/sh
# Screen test: "!command" on the input line runs the user's shell command
# now (no approval), shows its output in the transcript, redacts keys, can
# be stopped with Esc, and goes with the next prompt to the model framed as
# run by the user.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

tui_mock_ok bang
# The model's commands run in the command sandbox; the user's do not.
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"sandbox":{"mode":"workspace-write"}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
printf 'x\n' >"$TUI_WS/alpha-file.txt"
printf 'x\n' >"$TUI_WS/beta-file.txt"
tui_start_tandem 80 24
tui_check "the real tandem draws its screen" '› \? for keys'

tui_type "!ls"
tui_keys Enter
tui_check "the command shows in the transcript" '● ! ls'
tui_check "its output under it, without an approval" '└ alpha-file\.txt$'
tui_absent "nothing asked for approval" 'approve\?'
tui_check "the hint says where the output goes" 'goes with your next prompt'

tui_type "!echo key=\$ANTHROPIC_API_KEY; printf 'test-key-in-output\n'; exit 3"
tui_keys Enter
tui_check "a failing command is marked" 'exit 3'
tui_keys C-o
tui_check "its output, expanded" 'key='
tui_absent "no key reaches the screen" 'test-key'
tui_keys C-o

tui_type "!sleep 30; echo NEVER"
tui_keys Enter
tui_check "a long command runs" 'Esc stops it'
tui_keys Escape
tui_check "Esc stops it" 'interrupted by the user' 10
tui_absent "its later output never came" '^ +(└ )?NEVER'

tui_type "what did I run"
tui_keys Enter
tui_check "the prompt is answered" '^ok'
sleep 0.3
user=$(tui_last_message)
tui_jq "$user" '.role == "user" and (.content[0].text == "what did I run")' "the prompt goes first"
tui_jq "$user" '[.content[].text | select(test("user-shell-command"))] | length == 3' "each of the three commands goes with it"
tui_jq "$user" '.content[1].text | test("ran this shell command themselves") and test("not instructions") and test("\\$ ls\n<output>\nalpha-file.txt\nbeta-file.txt")' "framed as run by the user, with the command and its output"
tui_jq "$user" '.content[2].text | test("\\[redacted\\]") and (test("test-key") | not)' "the key is redacted in what the model gets"
tui_jq "$user" '.content[2].text | test("exit status 3")' "the exit status goes too"
[ "$(jq -c 'select(.body.messages != null)' "$TUI_MOCK_LOG" | wc -l)" -eq 1 ]
tui_ok $? "the commands alone called no model"

tui_type "!touch $TUI_TMP/outside-the-workspace"
tui_keys Enter
tui_check "a command writing outside the workspace ends" '! touch .*outside-the-workspace'
sleep 0.5
[ -e "$TUI_TMP/outside-the-workspace" ]
tui_ok $? "the user's command is not sandboxed: it wrote outside the workspace"

tui_type "!"
tui_keys Enter
tui_check "a bare ! says what it needs" '! needs a command'
tui_mock_done
