#!/bin/sh
# Screen test of the turn browser with the real tandem and the mock model:
# three turns that edit files (accept-edits), then in the browser a rewind
# to before turn 2 with "both" (files byte for byte, and the transcript),
# redo, Esc Esc to edit an earlier prompt and send it again, a fork that
# goes on by itself (both sessions resume headless; the sessions list and
# the status bar name the fork's origin), and files the user changed after
# tandem's edit, left alone unless the user says otherwise.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

# A response is matched by a string anywhere in the request (which holds
# the whole conversation), so the responses to later prompts come first.
SCEN=$(tui_scenario turns <<'J'
{"check_echo":false,"responses":[
 {"match":"back in the fork","text":"FORK-RESUMED","stop_reason":"end_turn"},
 {"match":"back in the original","text":"ORIGINAL-RESUMED","stop_reason":"end_turn"},
 {"match":"fork goes on","text":"FORK-ANSWER","stop_reason":"end_turn"},
 {"match":"edited prompt","text":"EDITED-ANSWER","stop_reason":"end_turn"},
 {"match":"toolu_t3","text":"edited a.txt again","stop_reason":"end_turn"},
 {"match":"turn three","tool_uses":[{"id":"toolu_t3","name":"edit_file","input":{"path":"a.txt","old_string":"version 2","new_string":"version 3"}}]},
 {"match":"toolu_t2b","text":"edited a.txt, made b.txt","stop_reason":"end_turn"},
 {"match":"turn two","tool_uses":[
   {"id":"toolu_t2a","name":"edit_file","input":{"path":"a.txt","old_string":"version 1","new_string":"version 2"}},
   {"id":"toolu_t2b","name":"write_file","input":{"path":"sub/b.txt","content":"new file\n"}}]},
 {"match":"toolu_t1","text":"wrote a.txt","stop_reason":"end_turn"},
 {"match":"turn one","tool_uses":[{"id":"toolu_t1","name":"write_file","input":{"path":"a.txt","content":"version 1\n"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
A=$TUI_WS/a.txt
B=$TUI_WS/sub/b.txt

# file_is PATH TEXT: PATH holds exactly TEXT and a newline.
file_is() {
	printf '%s\n' "$2" >"$TUI_TMP/want"
	cmp -s "$1" "$TUI_TMP/want"
}

# The last request the mock saw, its messages as text.
last_request() {
	tail -n 1 "$TUI_MOCK_LOG" | jq -c '.body.messages'
}

# ---- three turns, then the browser ----
tui_start_tandem 80 24 --permission-mode accept-edits
tui_check "tandem is up in accept-edits mode" 'accept-edits'
tui_type "turn one"
tui_keys Enter
tui_check "turn 1 is answered" 'wrote a\.txt'
tui_type "turn two"
tui_keys Enter
tui_check "turn 2 is answered" 'edited a\.txt, made b\.txt'
tui_type "turn three"
tui_keys Enter
tui_check "turn 3 is answered" 'edited a\.txt again'
file_is "$A" "version 3"
tui_ok $? "after three turns a.txt is version 3"
file_is "$B" "new file"
tui_ok $? "and sub/b.txt exists"

tui_keys C-t
tui_check "Ctrl+T opens the turn browser" '─ turns ─.* 3 of 3 ─'
tui_check "it lists turn 1 with its prompt" '^ +1  turn one  '
tui_check "turn 2's tools" 'edit_file, write_file  files: a\.txt, sub/b\.txt'
tui_check "each turn has its tokens and time" 'turn three  .*tokens · [0-9.]+m?s'
tui_check "the browser says commands are rewound too" "commands. changes too"
tui_keys Up
tui_check "Up selects turn 2" '▸ +2  turn two'
tui_keys Enter
tui_check "Enter shows the turn in full" '─ turn 2 ─'
tui_check "with the files it changed" 'Files changed by tandem: a\.txt, sub/b\.txt'
tui_check "and what it said" 'edited a\.txt, made b\.txt'
tui_keys Escape
tui_check "Esc goes back to the list" '─ turns ─'
tui_keys b
tui_check "b rewinds the conversation and the files" 'rewound \(both\) to before turn 2'
tui_gone "the browser is closed" '─ turns ─'
file_is "$A" "version 1"
tui_ok $? "a.txt is back to version 1, byte for byte"
[ ! -e "$B" ]
tui_ok $? "the file turn 2 created is gone"
tui_check "turn 1 is still in the transcript" '› turn one'
tui_absent "turn 2 is no longer in the transcript" '› turn two'
tui_absent "nor turn 3" '› turn three'

tui_keys C-t
tui_check "the browser lists one turn now" '─ turns ─.* 1 of 1 ─'
tui_keys u
tui_check "u redoes" 'redone: back to where the rewind to turn 2 started'
file_is "$A" "version 3"
tui_ok $? "redo brings a.txt back to version 3"
file_is "$B" "new file"
tui_ok $? "and sub/b.txt back"
tui_check "and the transcript" '› turn three'

# ---- Esc Esc: edit an earlier prompt and send it again ----
tui_keys Escape
tui_keys Escape
tui_check "Esc Esc picks an earlier prompt" '─ edit an earlier prompt ─'
tui_keys Enter
tui_check_input "Enter puts it in the input" '^› turn three *$'
tui_keys Escape
tui_check "Esc cancels the edit" 'the edit of an earlier prompt is cancelled'
tui_check_input "and empties the input" '^› \? for keys, / for commands'
# The two at once: curses reads them as one key.
tui_keys Escape Escape
tui_check "Esc Esc again, both in one read" '─ edit an earlier prompt ─'
tui_keys Enter
tui_keys C-u
tui_type "edited prompt"
tui_check "the input's rule says what Enter does" "turn 3's prompt: Enter rewinds to before it and sends"
tui_keys Enter
tui_check "sending it goes on from there" 'EDITED-ANSWER'
last_request | grep -q 'edited prompt'
tui_ok $? "the model got the edited prompt"
! last_request | grep -q 'turn three'
tui_ok $? "and no longer the turn it replaced"
last_request | grep -q 'turn two'
tui_ok $? "but the turns before it"

# ---- fork ----
ORIG=$(ls "$TANDEM_HOME/sessions")
tui_keys C-t
tui_check "after a rewind the browser numbers the turns as they stand: the edited one is 3" '^ (▸)? +3  edited prompt  '
tui_absent "not by the session's count" '^ (▸)? +4  edited prompt'
tui_keys Home
tui_keys Down
tui_check "turn 2 selected for the fork" '▸ +2  turn two'
tui_keys k
tui_check "k forks" "forked $ORIG into "
FORK=$(ls "$TANDEM_HOME/sessions" | grep -v "^$ORIG\$")
[ -n "$FORK" ] && [ "$(echo "$FORK" | wc -l)" -eq 1 ]
tui_ok $? "the fork is a new session"
tui_check "the status bar shows the fork's origin" "fork of ${ORIG#*-}"
tui_type "fork goes on"
tui_keys Enter
tui_check "the fork goes on" 'FORK-ANSWER'
! last_request | grep -q 'edited prompt'
tui_ok $? "the fork holds the conversation through turn 2 only"
tui_keys C-c
tui_keys C-c
tui_exited "quit"

tui_tandem -r "$ORIG" -p "back in the original"
grep -q ORIGINAL-RESUMED "$TUI_TMP/out"
tui_ok $? "the original resumes headless"
last_request | grep -q 'edited prompt' && ! last_request | grep -q 'fork goes on'
tui_ok $? "with its own conversation"
tui_tandem -r "$FORK" -p "back in the fork"
grep -q FORK-RESUMED "$TUI_TMP/out"
tui_ok $? "the fork resumes headless"
last_request | grep -q 'fork goes on' && ! last_request | grep -q 'edited prompt'
tui_ok $? "with its own conversation"
tui_tandem sessions
grep "^$FORK " "$TUI_TMP/out" | grep -q "(fork of $ORIG)"
tui_ok $? "the sessions list shows the fork's origin"
! grep "^$ORIG " "$TUI_TMP/out" | grep -q "fork of"
tui_ok $? "and the original is no fork"
[ "$(awk -v f="$FORK" '$1 == f { print $4 }' "$TUI_TMP/out")" = 4 ]
tui_ok $? "the fork counts its own turns: 2 kept, 2 of its own"
flog="$TANDEM_HOME/sessions/$FORK/log.jsonl"
[ "$(jq -s '[.[] | select(.k == "turn" and .turn <= 2 and .tokens > 0 and .ms > 0)] | length' "$flog")" -eq 2 ]
tui_ok $? "the fork's kept turns keep their tokens and times"
[ "$(jq -s '[.[] | select(.k == "files" and .turn <= 2)] | length' "$flog")" -ge 2 ]
tui_ok $? "and their files"

# ---- files changed outside tandem ----
tui_start_tandem 80 24 -r "$ORIG" --permission-mode accept-edits
tui_check "a resumed session shows its transcript" 'ORIGINAL-RESUMED'
tui_absent "the original is no fork" 'fork of'
echo "the user's own text" >"$A"
tui_keys C-t
tui_keys Home
tui_keys Down
tui_check "turn 2 selected" '▸ +2  turn two'
tui_keys b
tui_check "the changed file is named" 'a\.txt changed outside tandem since tandem last wrote it: left alone'
tui_check "and the user is asked" 'Overwrite the files listed above with tandem.s snapshots\?  yes  no'
tui_keys n
tui_check "n leaves them" 'the files changed outside tandem were left alone'
file_is "$A" "the user's own text"
tui_ok $? "without confirmation the user's file is left alone"
[ ! -e "$B" ]
tui_ok $? "the other file was still rewound"

tui_keys C-t
tui_keys u
tui_check "redo meets the changed file too" 'Overwrite the files listed above'
file_is "$A" "the user's own text"
tui_ok $? "and leaves it alone until asked"
tui_keys y
tui_check "y redoes with force" 'redone: back to where the rewind to turn 2 started'
file_is "$A" "version 3"
tui_ok $? "the user said yes: a.txt is tandem's version 3"
file_is "$B" "new file"
tui_ok $? "and sub/b.txt is back"

echo "edited by the user again" >"$A"
tui_keys C-t
tui_keys Home
tui_keys Down
tui_keys b
tui_check "a rewind asks again" 'Overwrite the files listed above'
tui_keys y
tui_check "y rewinds with force" 'restored a\.txt'
file_is "$A" "version 1"
tui_ok $? "the user said yes: a.txt is version 1, byte for byte"
[ ! -e "$B" ]
tui_ok $? "and sub/b.txt is gone"
snap=$(grep -l "edited by the user again" "$TANDEM_HOME/sessions/$ORIG/files/"* 2>/dev/null | head -n 1)
[ -n "$snap" ]
tui_ok $? "the user's overwritten text is kept in a snapshot"

# ---- /resume in the screen ----
tui_type "/resume"
tui_keys Enter
tui_check "/resume lists this directory's sessions, the fork's origin too" "^$FORK .*\(fork of"
tui_type "/resume $FORK"
tui_keys Enter
tui_check "/resume ID goes on with that session" "resumed session $FORK"
tui_check "its transcript is shown" 'FORK-RESUMED'
tui_absent "and not the other's" 'ORIGINAL-RESUMED'
tui_check "the status bar names its origin" "fork of ${ORIG#*-}"
tui_sane 24 24 "80x24 is laid out"
tui_mock_done
