#!/bin/sh
# Screen test of the todo list with the real tandem against the mock: a
# three-step list updates through a turn (the checklist above the input:
# done, the current step's activeForm, pending), the turn browser shows each
# turn's list, a resumed session shows its list, and a rewind to a turn with
# another list shows that one, a redo brings its list back, and a fork from
# the first turn has the first turn's list.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

todo() {
	# todo S1 S2 S3: a todo_write input with the three statuses
	printf '{"todos":[{"content":"Read the code","status":"%s","activeForm":"Reading the code"},{"content":"Fix the bug","status":"%s","activeForm":"Fixing the bug"},{"content":"Run the tests","status":"%s","activeForm":"Running the tests"}]}' "$1" "$2" "$3"
}

SCEN=$(tui_scenario todo <<J
{"check_echo":false,"responses":[
 {"match":"three steps","tool_uses":[{"id":"toolu_t1","name":"todo_write","input":$(todo in_progress pending pending)},{"id":"toolu_b1","name":"run_bash","input":{"command":"echo one"}}]},
 {"match":"toolu_b1","tool_uses":[{"id":"toolu_t2","name":"todo_write","input":$(todo completed in_progress pending)},{"id":"toolu_b2","name":"run_bash","input":{"command":"echo two"}}]},
 {"match":"toolu_b2","tool_uses":[{"id":"toolu_t3","name":"todo_write","input":$(todo completed completed in_progress)},{"id":"toolu_b3","name":"run_bash","input":{"command":"echo three"}}]},
 {"match":"toolu_b3","text":"FIRST-TURN-DONE","stop_reason":"end_turn"},
 {"match":"start over","tool_uses":[{"id":"toolu_t4","name":"todo_write","input":{"todos":[{"content":"Plan again","status":"in_progress","activeForm":"Planning again"},{"content":"Ship it","status":"pending","activeForm":"Shipping it"}]}}]},
 {"match":"toolu_t4","text":"SECOND-TURN-DONE","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 100 30
tui_type "do three steps"
tui_keys Enter
tui_check "the list shows while the turn runs" 'todo 0/3'
tui_check "the current step shows its activeForm" 'Reading the code'
tui_check "pending steps are boxes" '☐ Fix the bug'
tui_check "the command asks" 'Run this command'
tui_keys y
tui_check "the list moves on: one done" 'todo 1/3'
tui_check "the done step is ticked" '✓ Read the code'
tui_check "the second is current" 'Fixing the bug'
tui_keys y
tui_check "two done" 'todo 2/3'
tui_check "the third is current" 'Running the tests'
tui_keys y
tui_check "the turn ends" 'FIRST-TURN-DONE'
tui_check "the finished list is shown as long as steps are left" 'todo 2/3'

tui_type "start over"
tui_keys Enter
tui_check "the second turn's list" 'todo 0/2'
tui_check "its current step" 'Planning again'
tui_check "the second turn ends" 'SECOND-TURN-DONE'
tui_absent "the first list is gone" 'Fixing the bug'
tui_keys C-t
tui_check "the browser shows the first turn's list" 'todo: ✓ Read the code · ✓ Fix the bug · ▸ Run the tests'
tui_check "and the second's" 'todo: ▸ Plan again · ☐ Ship it'
tui_keys Escape
tui_keys C-c
tui_keys C-c
tui_exited "quit"

# A resumed session shows its list.
tui_start_tandem 100 30 --continue
tui_check "the resumed session shows its list" 'todo 0/2'
tui_check "with its current step" 'Plan again|Planning again'
# A rewind to the first turn's end (before the second prompt) shows that turn's list.
tui_keys C-t
tui_check "the browser opens" 'todo: ▸ Plan again'
tui_keys r
tui_check "rewound" "is back to just before turn 2"
tui_check "the first turn's list is back" 'todo 2/3'
tui_check "with its current step" 'Run the tests|Running the tests'
tui_absent "the second list is gone" 'Plan again'
# Redo, then a fork from the first turn: the fork has the first turn's list.
tui_keys C-t
tui_keys u
tui_check "redo brings the second turn's list back" 'todo 0/2'
tui_keys C-t
tui_check "the browser opens on the last turn" 'todo: ▸ Plan again'
tui_keys Up
tui_keys k
tui_check "forked" 'forked '
tui_check "the fork has the first turn's list" 'todo 2/3'
tui_absent "and not the second's" 'Planning again'
tui_mock_done
