#!/bin/sh
# Screen test: notifications.  With the terminal's focus out, a finished
# turn and an approval ring the bell and send OSC 9 (through tmux's
# passthrough), seen with pipe-pane; with the focus in, nothing; with no
# focus report at all, the notification comes after the idle delay, and
# the Notification hook fires with idle_prompt.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario notify <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_n1","text":"ran it","stop_reason":"end_turn"},
 {"match":"run something","tool_uses":[{"id":"toolu_n1","name":"run_bash","input":{"command":"true"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
mkdir -p "$XDG_CONFIG_HOME/tandem"
HOOKLOG=$TUI_TMP/hook.log
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<J
{"notifications":{"style":"osc9","idle_ms":1500},
 "hooks":{"Notification":[{"matcher":"idle_prompt","hooks":[{"type":"command","command":"cat >> $HOOKLOG; echo >> $HOOKLOG"}]}]}}
J
OUT=$TUI_TMP/pane.out

# seen: how many OSC 9 notifications (in tmux's passthrough) the pane wrote so far.
seen() {
	od -An -c "$OUT" 2>/dev/null | tr -d ' \n' | grep -o 'Ptmux;033033]9;tandem:' | wc -l
}
bells() {
	od -An -tx1 "$OUT" 2>/dev/null | tr ' ' '\n' | grep -c '^07$'
}
wait_seen() {
	i=0
	while [ "$i" -lt 100 ] && [ "$(seen)" -lt "$1" ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ "$(seen)" -ge "$1" ]
}

tui_start_tandem 100 30
tui_check "tandem draws its screen" '› \? for keys'
tui_tmux pipe-pane -O -t t "cat >> $OUT"
sleep 0.2
tui_tmux send-keys -t t -H 1b 5b 4f
sleep 0.2
tui_type "first prompt"
tui_keys Enter
tui_check "the turn ends" '^ok'
wait_seen 1
tui_ok $? "unfocused, a finished turn sends OSC 9 through tmux's passthrough"
od -An -c "$OUT" | tr -d ' \n' | grep -q 'Ptmux;033033]9;tandem:theturnisdone,tandemwaitsforyournextprompt'
tui_ok $? "its text says what waits"
[ "$(bells)" -ge 2 ]
tui_ok $? "and rings the bell"
tui_type "run something"
tui_keys Enter
tui_check "an approval waits" 'run_bash true +approve\?'
wait_seen 2
tui_ok $? "unfocused, an approval notifies too"
od -An -c "$OUT" | tr -d ' \n' | grep -q 'anapprovalwaitsforyou'
tui_ok $? "saying so"
tui_keys y
tui_check "the turn goes on" 'ran it'
sleep 0.5
before=$(seen)

tui_tmux send-keys -t t -H 1b 5b 49
sleep 0.2
tui_type "focused prompt"
tui_keys Enter
tui_check "the focused turn ends" 'ok'
sleep 2.2
[ "$(seen)" -eq "$before" ]
tui_ok $? "focused, nothing is sent, not even after the idle delay"
[ -s "$HOOKLOG" ] && grep -q '"notification_type":"idle_prompt"' "$HOOKLOG"
tui_ok $? "the idle finished turn fired the Notification hook (idle_prompt)"
tui_keys C-c
tui_keys C-c
tui_exited "quit"

# No focus reports: the idle delay decides.
rm -f "$OUT" "$HOOKLOG"
tui_start_tandem 100 30
tui_check "tandem again" '› \? for keys'
tui_tmux pipe-pane -O -t t "cat >> $OUT"
sleep 0.2
tui_type "unknown focus"
tui_keys Enter
tui_check "the turn ends" '^ok'
sleep 0.5
[ "$(seen)" -eq 0 ]
tui_ok $? "without focus reports nothing is sent at once"
wait_seen 1
tui_ok $? "the notification comes after the idle delay"
i=0
while [ "$i" -lt 60 ] && ! grep -q idle_prompt "$HOOKLOG" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
grep -q '"message":"the turn is done, tandem waits for your next prompt"' "$HOOKLOG"
tui_ok $? "and the hook gets the message"
tui_type "x"
sleep 2
[ "$(seen)" -eq 1 ]
tui_ok $? "a key in time cancels nothing that was sent, and sends nothing more"
tui_mock_done
