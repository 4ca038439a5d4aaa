#!/bin/sh
# Screen test of the real tandem against the mock model server, in tmux at
# 80x24 and at 200x50: a reply shown while it streams, a tool going queued
# -> running -> done, an edit approved (the file changes) and denied with a
# reason (the file stays, the model gets the reason), a resize, and Esc
# stopping a long stream with the session going on.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

# ---- 80x24, ask mode ----
SCEN=$(tui_scenario main <<'J'
{"check_echo":false,"responses":[
 {"match":"after esc","text":"ANSWER-AFTER-ESC","stop_reason":"end_turn"},
 {"match":"long story","text":"STORYSTART once upon a time there was a stream that went on and on. It went on and on and on and on. It went on and on and on and on. It went on and on and on and on. It went on and on and on and on. It went on and on and on and on. It went on and on and on and on. It went on and on and on and on. It went on and on and on and on. STORYEND","delay_ms":300,"stop_reason":"end_turn"},
 {"match":"toolu_e2","text":"Understood, beta stays.","stop_reason":"end_turn"},
 {"match":"edit two","tool_uses":[{"id":"toolu_e2","name":"edit_file","input":{"path":"f.txt","old_string":"beta","new_string":"BETA"}}]},
 {"match":"toolu_e1","text":"Edited f.txt.","stop_reason":"end_turn"},
 {"match":"edit one","tool_uses":[{"id":"toolu_e1","name":"edit_file","input":{"path":"f.txt","old_string":"alpha","new_string":"ALPHA"}}]},
 {"match":"toolu_b2","text":"Both commands ran.","stop_reason":"end_turn"},
 {"match":"two commands","tool_uses":[{"id":"toolu_b1","name":"run_bash","input":{"command":"sleep 1; echo one"}},{"id":"toolu_b2","name":"run_bash","input":{"command":"sleep 1; echo two"}}]},
 {"match":"slow stream","text":"FIRSTWORDS of a reply that streams slowly, one small piece at a time, so that the screen can be read while it is still arriving. More words follow, and more, and more again, until at last the LASTWORDS","delay_ms":120,"stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
printf 'alpha\nbeta\ngamma\n' >"$TUI_WS/f.txt"
tui_start_tandem 80 24
tui_check "the real tandem draws its screen" '› \? for keys'

tui_type "slow stream please"
tui_keys Enter
tui_check "the first words show while the reply streams" 'FIRSTWORDS'
tui_absent "the end has not arrived yet" 'LASTWORDS'
tui_check "a turn in progress is on the status bar" 'working'
tui_check "the end arrives" 'LASTWORDS'
tui_gone "the turn is over" 'working'

tui_type "two commands"
tui_keys Enter
tui_check "a command waits for approval" 'run_bash sleep 1; echo one +approve\?'
tui_check "the next one is queued behind it" 'run_bash sleep 1; echo two +queued'
tui_check "the approval names where it runs" 'Run this command in .*\?'
tui_check "the approval says why it asks" 'asks: mode ask: every command asks'
tui_check "the approval says what always would allow" 'a allows: run_bash\(sleep 1\), run_bash\(echo one\)'
tui_keys y
tui_check "approved, it runs" 'run_bash sleep 1; echo one +running'
tui_check "then it is done: its output in the transcript" '└ one$'
tui_check "the queued one asks in turn" 'run_bash sleep 1; echo two +approve\?'
tui_keys y
tui_check "the queued one runs" 'run_bash sleep 1; echo two +running'
tui_check "and is done" '└ two$'
tui_check "the model's answer follows" 'Both commands ran\.'

tui_type "edit one"
tui_keys Enter
tui_check "an edit shows its diff" '─ diff .* f\.txt +\+1 −1'
tui_check "the removed line" '- +alpha'
tui_check "the added line" '\+ +ALPHA'
tui_check "the approval names the file" 'Apply this edit to f\.txt\?'
tui_keys y
tui_check "y applies it" 'Edited f\.txt\.'
printf 'ALPHA\nbeta\ngamma\n' >"$TUI_TMP/want1"
cmp -s "$TUI_WS/f.txt" "$TUI_TMP/want1"
tui_ok $? "the file holds the edit, byte for byte"

tui_type "edit two"
tui_keys Enter
tui_check "the second edit asks" 'Apply this edit to f\.txt\?'
tui_keys n
tui_check "n asks why" 'why\? ›'
tui_type "beta stays lowercase"
tui_keys Enter
tui_check "the denial and its reason show" '└ denied: beta stays lowercase'
tui_check "the model answers the denial" 'Understood, beta stays\.'
cmp -s "$TUI_WS/f.txt" "$TUI_TMP/want1"
tui_ok $? "n leaves the file untouched"
jq -e -s '[.[] | .body.messages[-1].content | arrays | .[]
    | select(.type == "tool_result" and .tool_use_id == "toolu_e2")]
    | length == 1 and (.[0].is_error == true) and (.[0].content | tostring | contains("beta stays lowercase"))' \
    "$TUI_MOCK_LOG" >/dev/null 2>&1
tui_ok $? "the model received the denial with the typed reason"

tui_tmux resize-window -t t -x 200 -y 50
tui_check "200x50: transcript and tools side by side" '─ transcript ─+┬─ tools'
tui_sane 50 50 "resized to 200x50, the layout is sane"
tui_check "200x50: the conversation is still there" 'Understood, beta stays\.'
tui_tmux resize-window -t t -x 80 -y 24
tui_sane 24 24 "back to 80x24, the layout is sane"

tui_type "long story"
tui_keys Enter
tui_check "a long reply starts" 'STORYSTART'
tui_keys Escape
tui_check "Esc stops it" '\(stopped: interrupted\)'
tui_gone "the turn is over after Esc" 'working'
tui_absent "the rest of the story never came" 'STORYEND'
tui_type "after esc"
tui_keys Enter
tui_check "the session goes on after Esc" 'ANSWER-AFTER-ESC'
tui_keys C-c
tui_keys C-c
tui_exited "Ctrl+C twice quits"
[ "$(jq -s '[.[].problems | length] | add' "$TUI_MOCK_LOG")" = 0 ]
tui_ok $? "every request tandem sent passed the mock's checks"

# ---- 200x50 from the start, yolo mode ----
SCEN=$(tui_scenario wide <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_w2","text":"WIDE-DONE","stop_reason":"end_turn"},
 {"match":"two commands","tool_uses":[{"id":"toolu_w1","name":"run_bash","input":{"command":"sleep 1; echo one"}},{"id":"toolu_w2","name":"run_bash","input":{"command":"sleep 1; echo two"}}]},
 {"match":"slow stream","text":"WIDEFIRST words that stream slowly across a wide screen, a small piece at a time, with more words and more again until the WIDELAST","delay_ms":120,"stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 200 50 --permission-mode yolo
tui_check "200x50: the screen is up" '› \? for keys'
tui_sane 50 50 "200x50 from the start is laid out"
tui_type "slow stream please"
tui_keys Enter
tui_check "200x50: the first words show while streaming" 'WIDEFIRST'
tui_absent "200x50: the end has not arrived yet" 'WIDELAST'
tui_check "200x50: the end arrives" 'WIDELAST'
tui_gone "200x50: the turn is over" 'working'
tui_type "two commands"
tui_keys Enter
tui_check "yolo: the second command is queued" 'run_bash sleep 1; echo two +queued'
tui_check "yolo: the first runs without asking" 'run_bash sleep 1; echo one +running'
tui_check "yolo: the queued one runs" 'run_bash sleep 1; echo two +running'
tui_check "yolo: and is done" 'run_bash sleep 1; echo two +1\.[0-9]s'
tui_check "200x50: the answer" 'WIDE-DONE'
tui_absent "yolo: nothing asked" 'approve\?'
tui_sane 50 50 "200x50 is laid out at the end"
tui_mock_done
