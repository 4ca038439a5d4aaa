#!/bin/sh
# Screen test of Claude Code's statusLine setting with the real tandem and
# the mock model: the real ccstatusline (from npm) is the status bar, its
# default widgets filled (model, context from the transcript, git branch),
# with tandem's mode and "waiting for ..." beside it; a command that sleeps
# never delays a key and gives the bar back when it times out; a failing
# command shows tandem's own bar.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

CCSL=$top_srcdir/tests/npm/node_modules/ccstatusline/dist/ccstatusline.js
if ! command -v node >/dev/null || [ ! -f "$CCSL" ]; then
	tui_ok 1 "node and ccstatusline are installed (scripts/install-deps.sh runs npm ci in tests/npm)"
	tui_done
	exit 1
fi
(cd "$TUI_WS" && git init -q && git checkout -q -b feat-status && echo x >a.txt && git add a.txt &&
    git -c user.email=t@t -c user.name=t commit -qm init)
mkdir -p "$XDG_CONFIG_HOME/tandem"
settings() {
	jq -n --arg c "$1" '{statusLine: {type: "command", command: $c, padding: 0}}' \
	    >"$XDG_CONFIG_HOME/tandem/settings.json"
}

SCEN=$(tui_scenario statusline <<'J'
{"check_echo":false,"responses":[
 {"match":"run it","tool_uses":[{"id":"toolu_s1","name":"run_bash","input":{"command":"echo hi"}}],
  "usage":{"input_tokens":1200,"output_tokens":30,"cache_read_input_tokens":40000,"cache_creation_input_tokens":0}},
 {"match":"toolu_s1","text":"RAN-IT","stop_reason":"end_turn"},
 {"text":"ANSWER-ONE","stop_reason":"end_turn",
  "usage":{"input_tokens":1200,"output_tokens":30,"cache_read_input_tokens":40000,"cache_creation_input_tokens":0},"repeat":20}
]}
J
)
tui_mock_start "$SCEN"

# ---- ccstatusline ----
settings "node $CCSL"
tui_start_tandem 120 24 --model claude-sonnet-4-5
tui_check "ccstatusline's model widget is the bar" 'Model: Sonnet 4\.5' 15
tui_check "its git branch widget" 'Model: Sonnet 4\.5.*⎇ feat-status'
tui_check "tandem's mode stays beside it" 'Model: Sonnet 4\.5.*│ ask'
tui_type "hello"
tui_keys Enter
tui_check "the answer" 'ANSWER-ONE'
tui_check "its context widget reads the transcript (1.2k + 40k)" 'Ctx: 41\.2k' 15
[ "$(jq -r 'select(.type == "assistant") | .message.usage.cache_read_input_tokens' \
    "$TANDEM_HOME"/sessions/*/transcript.jsonl | head -n 1)" = 40000 ]
tui_ok $? "the transcript is in Claude Code's shape"
tui_type "run it"
tui_keys Enter
tui_check "waiting for the approval is said beside the command's line" 'Model: Sonnet 4\.5.*waiting for your approval'
tui_keys y
tui_check "the command ran" 'RAN-IT'
tui_screen | tail -n 1 | grep -q 'ctx '
tui_ok $((! $?)) "tandem's own bar is not shown meanwhile"
tui_keys C-c
tui_keys C-c
tui_exited "tandem quits"

# ---- a command that sleeps 5 s ----
settings 'sleep 5; echo NEVER-SHOWN'
tui_start_tandem 100 24
tui_wait 'ctx ' 10
sleep 0.4
t0=$(date +%s%N)
tui_tmux send-keys -t t -l "k"
tui_wait '› k' 2
rc=$?
t1=$(date +%s%N)
tui_ok $rc "a key shows while the command sleeps"
[ $(((t1 - t0) / 1000000)) -lt 1000 ]
tui_ok $? "within a second ($(((t1 - t0) / 1000000)) ms)"
tui_type "eys"
tui_check_input "more keys too" '› keys' 2
tui_check "it times out and says so" 'timed out after 3 s' 8
tui_check "tandem's own bar stays" 'ctx .*ask'
tui_absent "its output never shows" 'NEVER-SHOWN'
tui_keys C-c
tui_keys C-c
tui_exited "tandem quits with the command killed"

# ---- a failing command ----
settings 'echo broken >&2; exit 3'
tui_start_tandem 100 24
tui_check "a failing command is said once" 'the status line command failed \(exit 3\)' 8
tui_check "tandem's own bar" 'ctx .*ask'
tui_mock_done
