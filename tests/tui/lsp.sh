#!/bin/sh
# Screen test: a language server's count of new errors on an edit's line,
# the errors themselves on Ctrl+O, and the servers' state on the status bar
# (the tests' fault server in its good mode, for files *.flt); Esc while
# an edit waits on a silent server (*.qt) lets its result go at once.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

FAULT="$top_srcdir/tests/lsp/fault.sh"
mkdir -p "$XDG_CONFIG_HOME/tandem"
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<J
{"lsp":{"wait_ms":30000},
 "lspServers":{"fault":{"command":"$FAULT","extensionToLanguage":{".flt":"fault"},
  "env":{"FAULT_MODE":"good"}},
  "quiet":{"command":"$FAULT","extensionToLanguage":{".qt":"quiet"},"env":{"FAULT_MODE":"silent"}}}}
J
printf 'one\nall fine\n' >"$TUI_WS/a.flt"
printf 'quiet\n' >"$TUI_WS/b.qt"
SCEN=$(tui_scenario lsp <<'J'
{"responses": [
 {"tool_uses":[{"id":"toolu_1","name":"read_file","input":{"path":"a.flt"}}]},
 {"tool_uses":[{"id":"toolu_2","name":"edit_file","input":{"path":"a.flt","old_string":"fine","new_string":"BROKEN"}}]},
 {"text":"edited","stop_reason":"end_turn"},
 {"tool_uses":[{"id":"toolu_3","name":"edit_file","input":{"path":"b.qt","old_string":"quiet","new_string":"still"}}]},
 {"text":"after the wait","stop_reason":"end_turn"}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 120 40 --trust --permission-mode accept-edits
tui_check "the screen is up" '› \? for keys'
tui_type "break it"
tui_keys Enter
tui_check "the turn ends" 'edited'
tui_check "the edit's line counts the new error" '● edit_file a\.flt.*· 1 new error'
tui_check "the errors are folded, with the key" '… 1 new error \(Ctrl\+O to expand\)'
tui_absent "the error itself is hidden" 'BROKEN is not a word'
tui_check "the status bar shows the server's state" 'lsp fault ready'
tui_keys End
tui_keys Tab
tui_keys C-o
tui_check "Ctrl+O shows the error with its line" 'a\.flt:2:1: BROKEN is not a word'
tui_keys C-o
tui_keys Escape
tui_type "wait"
tui_keys Enter
tui_check "an edit waits on the silent server" 'edit_file b\.qt.*running'
tui_keys Escape
tui_check "Esc lets it go at once, not after the 30 s bound: its result is there" '1 \+ still' 5
tui_check "and the turn stopped" 'stopped: interrupted' 5
tui_keys C-c
tui_keys C-c
tui_exited "quit"
tui_mock_done
