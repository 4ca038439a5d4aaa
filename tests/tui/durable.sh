#!/bin/sh
# Screen test: a write of the session fails (an I/O error from the fault
# shim, tests/fault/): the turn stops, the UI stays and says so on the
# status bar; the next prompt reads the session again from disk and goes on.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SHIM=$top_builddir/tests/fault/libfaultshim.so
SCEN=$(tui_scenario main <<'J'
{"check_echo":false,"responses":[
 {"text":"FIRST-ANSWER","stop_reason":"end_turn"},
 {"text":"SECOND-ANSWER","stop_reason":"end_turn","repeat":5}
]}
J
)
tui_mock_start "$SCEN"
# The 4th write() under the home fails once: the first answer's log record.
LD_PRELOAD=$SHIM FAULT_OPS=write FAULT_N=4 FAULT_ERRNO=EIO FAULT_PATH=$TANDEM_HOME FAULT_MAIN_ONLY=1
ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0
export LD_PRELOAD FAULT_OPS FAULT_N FAULT_ERRNO FAULT_PATH FAULT_MAIN_ONLY ASAN_OPTIONS
tui_start_tandem 100 30 --permission-mode yolo
tui_check "tandem draws its screen" '› \? for keys'
tui_type "first prompt"
tui_keys Enter
tui_check "the failed write is reported with its directory" 'could not save the session in'
tui_check "the status bar says the session is not saved" 'not saved: see the error'
tui_check "the turn stopped" 'stopped: error'
tui_type "second prompt"
tui_keys Enter
tui_check "the next prompt goes on" 'SECOND-ANSWER'
tui_gone "the status bar is clear again" 'not saved: see the error'
log=$(ls "$TANDEM_HOME"/sessions/*/log.jsonl | head -n 1)
jq -s -e '[.[] | select(.k == "msg" and .role == "assistant") | .content[0].text] == ["SECOND-ANSWER"]' "$log" >/dev/null
tui_ok $? "the log holds only the answer that was saved"
tui_mock_done
