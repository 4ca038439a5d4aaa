#!/bin/sh
# Screen test: copying without hard wraps.  A reply with a code block wider
# than the pane: /copy 1 puts the block, byte-identical to the model's
# text, on the clipboard with OSC 52 (seen with pipe-pane) and in the file
# the notice names; Ctrl+Y copies the whole reply as written.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

LONG="value = 'a line much longer than the pane is wide, so the transcript wraps it into rows, never the copy'"
SCEN=$(tui_scenario copy <<J
{"check_echo":false,"responses":[
 {"text":"Here it is:\n\n\`\`\`python\ndef f():\n\t$LONG   \n\treturn value\n\`\`\`\n\nDone.","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
tui_mock_start "$SCEN"
printf 'def f():\n\t%s   \n\treturn value' "$LONG" >"$TUI_TMP/want.code"
printf 'Here it is:\n\n```python\ndef f():\n\t%s   \n\treturn value\n```\n\nDone.' "$LONG" >"$TUI_TMP/want.reply"
OUT=$TUI_TMP/pane.out
tui_start_tandem 80 30
tui_check "tandem draws its screen" '› \? for keys'
tui_tmux pipe-pane -O -t t "cat >> $OUT"
tui_type "show me code"
tui_keys Enter
tui_check "the reply is drawn, its long line wrapped" 'Done\.'
tui_type "/copy 1"
tui_keys Enter
tui_check "the notice names the lines and the file" 'copied 3 lines \([0-9]+ bytes\) with OSC 52, and to'
file=$(ls "$TANDEM_HOME"/sessions/*/copy.txt 2>/dev/null | head -n 1)
cmp -s "$file" "$TUI_TMP/want.code"
tui_ok $? "the file holds the code block byte for byte, no wraps"
sleep 0.3
osc() { grep -ao ']52;c;[A-Za-z0-9+/=]*' "$OUT" | tail -n 1 | cut -d';' -f3 | base64 -d; }
osc >"$TUI_TMP/got.osc"
cmp -s "$TUI_TMP/got.osc" "$TUI_TMP/want.code"
tui_ok $? "OSC 52 carries the same bytes"
tui_keys C-y
tui_check "Ctrl+Y copies the whole reply" 'copied 9 lines'
cmp -s "$file" "$TUI_TMP/want.reply"
tui_ok $? "as the model wrote it"
tui_type "/copy 7"
tui_keys Enter
tui_check "a block that is not there is said so" 'the reply has no code block 7'
tui_type "/copy x"
tui_keys Enter
tui_check "a bad argument gets one sentence" '/copy x: give a code block'"'"'s number'
tui_mock_done
