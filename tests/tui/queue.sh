#!/bin/sh
# Screen test: type-ahead.  A prompt sent while a turn runs is queued,
# shown on the input's rule, and sent when the turn ends; Up takes it back
# to edit; Esc stops the turn and gives the queue back to the input line;
# a crash keeps the queue (queue.json), and a resume gives it back.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SLOW='SLOWSTART a reply that takes its time, one small piece after another, long enough to type ahead of it while it streams, and then some more words and more words until SLOWEND'
SCEN=$(tui_scenario queue <<J
{"check_echo":false,"responses":[
 {"match":"second prompt","text":"SECOND-ANSWER","stop_reason":"end_turn"},
 {"match":"third prompt edited","text":"THIRD-ANSWER","stop_reason":"end_turn"},
 {"match":"slow","text":"$SLOW","delay_ms":150,"stop_reason":"end_turn","repeat":10},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 100 30
tui_check "tandem draws its screen" '› \? for keys'

requests() {
	jq -r 'select(.body.messages != null) | .body.messages[-1].content[0].text // empty' "$TUI_MOCK_LOG" 2>/dev/null
}

tui_type "first slow one"
tui_keys Enter
tui_check "the first turn streams" 'SLOWSTART'
tui_type "second prompt"
tui_keys Enter
tui_check "a prompt sent while the turn runs is queued" '1 queued › second prompt'
tui_check "the hint says when it goes" 'sent when the turn ends'
tui_type "third prompt"
tui_keys Enter
tui_check "a second one queues behind it; the rule names the newest, which Up takes" '2 queued, newest › third prompt'
tui_keys Up
tui_check_input "Up takes the newest back to edit" '› third prompt'
tui_check "the rule counts one" '1 queued › second prompt'
tui_type " edited"
tui_keys Enter
tui_check "Enter queues it again" '2 queued, newest › third prompt edited'
[ "$(requests | wc -l)" -eq 1 ]
tui_ok $? "nothing queued was sent during the turn"
tui_check "the turn ends" 'SLOWEND'
tui_check "the first queued prompt is sent when it ends" 'SECOND-ANSWER'
tui_check "then the next one, in order" 'THIRD-ANSWER'
tui_gone "the queue is empty" 'queued ›'
[ "$(requests | tr '\n' '|')" = "first slow one|second prompt|third prompt edited|" ]
tui_ok $? "the model got them in order"
tui_absent "no refusal was shown" 'a turn is running'

tui_type "another slow one"
tui_keys Enter
tui_check "another turn streams" 'SLOWSTART' 
tui_type "held prompt"
tui_keys Enter
tui_check "queued" '1 queued › held prompt'
tui_type "held two"
tui_keys Enter
tui_check "and another" '2 queued, newest › held two'
tui_keys Escape
tui_check "Esc stops the turn" 'stopped: interrupted'
tui_check_input "the oldest queued prompt comes back into the input line, alone" '› held prompt$'
tui_check "the other stays queued, a prompt of its own" '1 queued › held two'
sleep 0.5
[ "$(requests | grep -c 'held prompt')" -eq 0 ]
tui_ok $? "the held prompt was not sent"
tui_keys C-u
tui_keys Up
tui_check_input "Up takes the other back" '› held two$'
tui_keys C-u
tui_gone "and nothing is queued" 'queued ›'

session=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
tui_type "slow for the crash"
tui_keys Enter
tui_check "a turn streams" 'SLOWSTART'
tui_type "survivor prompt"
tui_keys Enter
tui_check "queued" '1 queued › survivor prompt'
jq -e '. == ["survivor prompt"]' "$session/queue.json" >/dev/null 2>&1
tui_ok $? "the queue is on disk in the session's directory"
pid=$(pgrep -P "$TUI_PID" -x tandem || echo "$TUI_PID")
kill -9 "$pid"
tui_exited "tandem is killed mid-turn"
tui_start_tandem 100 30 -c
tui_check "the resumed session says what was queued" '1 prompt was queued when tandem stopped'
tui_check_input "and puts it back in the input line" '› survivor prompt'
[ ! -e "$session/queue.json" ]
tui_ok $? "the file is gone once given back"
tui_mock_done
