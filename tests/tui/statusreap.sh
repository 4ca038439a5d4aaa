#!/bin/sh
# Nothing the statusLine command starts outlives tandem.  The command
# leaves a grandchild in a session of its own (setsid) that ignores
# SIGTERM and SIGHUP, then ignores them too and stays; tandem ends by
# SIGKILL, by SIGHUP, or by the user's quit while it runs.  And the
# grandchild of a command that printed its bar and exited is gone while
# tandem still runs.  Each process is known by its pid and its start
# time (which it writes itself), so a reused pid is not taken for it.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

P=$TUI_TMP/sl.pids
mkdir -p "$XDG_CONFIG_HOME/tandem"

# statusline [sleep]: the user's statusLine command; each run writes
# "NAME PID START-TIME" lines for itself and its grandchild in $P.
statusline() {
	me='$$ $(sed "s/.*) //" /proc/$$/stat | cut -d" " -f20)'
	cmd="setsid -f bash -c 'trap \"\" TERM HUP INT; echo \"gc $me\" >>\"\$1\"; exec sleep 300' _ '$P' </dev/null >/dev/null 2>&1
echo \"sl $me\" >>'$P'"
	if [ "${1:-}" = sleep ]; then
		cmd="$cmd
trap '' TERM HUP INT; exec sleep 300"
	else
		cmd="$cmd
echo REAP-BAR"
	fi
	jq -n --arg c "$cmd" '{statusLine: {type: "command", command: $c, padding: 0}}' \
	    >"$XDG_CONFIG_HOME/tandem/settings.json"
	rm -f "$P"
}

# started: until a run and its grandchild have written (5 s at most); their
# pids and start times in $P.alive.
started() {
	i=0
	while [ "$i" -lt 100 ]; do
		[ -f "$P" ] && [ "$(grep -c '^[a-z]* [0-9]* [0-9]' "$P")" -ge 2 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	cut -d' ' -f2- "$P" >"$P.alive"
	[ "$(grep -c '^[0-9]* [0-9]' "$P.alive")" -ge 2 ]
}

# alive: some recorded process still runs (the same pid, the same start time).
alive() {
	while read -r pid st; do
		[ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f20)" = "$st" ] && return 0
	done <"$P.alive"
	return 1
}

# gone: none runs, within 5 s.
gone() {
	i=0
	while [ "$i" -lt 100 ]; do
		alive || return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# leftovers: what a failed check left running.
leftovers() {
	while read -r pid st; do
		[ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f20)" = "$st" ] &&
		    { echo "# still running: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline")"; kill -9 "$pid"; }
	done <"$P.alive"
}

tui_mock_start "$(tui_scenario reap <<'J'
{"responses":[{"text":"ANSWER","stop_reason":"end_turn","repeat":20}]}
J
)"

# The command runs (it times out after 3 s: tandem ends before that).
for sig in KILL HUP; do
	statusline sleep
	tui_start_tandem 100 24
	started
	tui_ok $? "$sig: the statusLine command and its setsid grandchild run"
	kill -"$sig" "$TUI_PID"
	tui_exited "$sig: tandem ends"
	gone
	tui_ok $? "$sig: both are gone with tandem"
	leftovers
done

statusline sleep
tui_start_tandem 100 24
started
tui_ok $? "quit: the statusLine command and its setsid grandchild run"
tui_keys C-c
tui_keys C-c
tui_exited "quit: tandem quits"
gone
tui_ok $? "quit: both are gone with tandem"
leftovers

# A command that printed its bar and exited: its grandchild goes with it.
statusline
tui_start_tandem 100 24
tui_check "the command's bar is shown" 'REAP-BAR' 10
started
tui_ok $? "it left a setsid grandchild"
gone
tui_ok $? "which is gone while tandem runs"
leftovers
tui_mock_done
