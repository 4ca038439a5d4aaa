#!/bin/sh
# Screen test of the real tandem with the command sandbox: the status bar
# shows it; a confined command runs without a prompt in ask mode and its
# refused write is said in its result; the same command asked to run outside
# the sandbox waits for approval with the reason, and runs outside once
# approved.  A kernel that cannot sandbox (simulated) shows on the bar.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario sandbox <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_s2","text":"OUTSIDE-DONE","stop_reason":"end_turn"},
 {"match":"toolu_s1","tool_uses":[{"id":"toolu_s2","name":"run_bash","input":{"command":"echo x >.git/planted","sandbox":false}}]},
 {"match":"plant it","tool_uses":[{"id":"toolu_s1","name":"run_bash","input":{"command":"echo x >.git/planted"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
mkdir -p "$TUI_WS/.git"
tui_start_tandem 100 30 --sandbox workspace-write
tui_check "the status bar shows the sandbox" 'sandbox workspace-write'
tui_type "plant it"
tui_keys Enter
tui_check "the confined command ran without a prompt, refused" 'Read-only file system'
tui_check "outside the sandbox, it waits for approval" 'approve\?'
tui_check "the approval says it runs outside the sandbox" 'OUTSIDE the sandbox'
[ ! -e "$TUI_WS/.git/planted" ]
tui_ok $? "nothing was written before the approval"
tui_keys y
tui_check "approved, it runs and the turn ends" 'OUTSIDE-DONE'
[ -e "$TUI_WS/.git/planted" ]
tui_ok $? "outside the sandbox the write happened"
tui_keys C-c
tui_keys C-c
tui_exited "tandem quits"

tui_mock_start "$SCEN"
TUI_TANDEM="env TANDEM_SANDBOX_SIMULATE=nolandlock $TUI_TANDEM"
tui_start_tandem 100 30 --sandbox workspace-write
tui_check "a kernel without Landlock: the bar says there is no sandbox" 'no sandbox: workspace-write'
tui_check "and why" 'cannot run here: the kernel has no Landlock'
tui_mock_done
