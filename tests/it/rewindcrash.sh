#!/bin/bash
# A rewind after a crash at each point between a tool's start and its
# records: write_file, edit_file, apply_patch and run_bash in one turn,
# tandem killed there (TANDEM_CRASH_AFTER, and a real SIGKILL while the
# command runs), then `tandem -c --rewind-to 1 --files -p ...` must give
# the workspace back byte for byte, with snapshots on and off.
. "$(dirname "$0")/lib.sh"

PATCH=$'--- a/c.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n'
CMD='printf "changed\n" >>d.txt; printf "made\n" >e.txt; rm f.txt; chmod 755 s.sh; echo ran >>"$COUNT"; if [ -n "${HOLD:-}" ]; then echo $$ >"$HOLD"; sleep 60; fi'
SCEN=$(scenario edits <<J
{"check_echo":false,"responses":[
 {"match":"after rewind","text":"fine","stop_reason":"end_turn","repeat":200},
 {"match":"toolu_r1","text":"all edited","stop_reason":"end_turn","repeat":200},
 {"match":"edit all","tool_uses":[
   {"id":"toolu_w1","name":"write_file","input":{"path":"a.txt","content":"rewritten\n"}},
   {"id":"toolu_e1","name":"edit_file","input":{"path":"b.txt","old_string":"old line","new_string":"new line"}},
   {"id":"toolu_p1","name":"apply_patch","input":{"patch":$(jq -Rsn --arg p "$PATCH" '$p')}},
   {"id":"toolu_n1","name":"write_file","input":{"path":"n.txt","content":"brand new\n"}},
   {"id":"toolu_r1","name":"run_bash","input":{"command":$(jq -Rn --arg c "$CMD" '$c')}}],
  "stop_reason":"tool_use","repeat":200},
 {"text":"ok","stop_reason":"end_turn","repeat":200}
]}
J
)
mock_start "$SCEN"
export COUNT="$T/count"
W="$T/ws/proj"

# Every entry of the workspace: path, type, mode, and content.
state() { ws_state "$W"; }

fresh() {
	rm -rf "$W" "$TANDEM_HOME" "$COUNT"
	mkdir -p "$W"
	cd "$W" || exit 1
	printf 'first\n' >a.txt
	printf 'head\nold line\ntail\n' >b.txt
	printf 'one\ntwo\nthree\n' >c.txt
	printf 'd\n' >d.txt
	printf 'f\n' >f.txt
	printf '#!/bin/sh\n' >s.sh
	chmod 644 s.sh
	state >"$T/before.state"
}

# rewound NAME: the rewind after the crash exited 0 and the tree is as before turn 1.
rewound() {
	local name=$1
	"$TANDEM" -c --rewind-to 1 --files -p "after rewind" --permission-mode yolo \
	    >"$T/rw.out" 2>"$T/rw.err"
	local rc=$?
	if [ $rc -ne 0 ]; then echo "# $name: the rewind exited $rc"; diag "$T/rw.err"; return 1; fi
	state >"$T/after.state"
	if ! cmp -s "$T/before.state" "$T/after.state"; then
		echo "# $name: not byte for byte after the rewind:"
		diff "$T/before.state" "$T/after.state" | sed 's/^/#   /'
		diag "$T/rw.err"
		return 1
	fi
}

# crash_case POINT N: tandem stops at the N-th pass of POINT in turn 1.
crash_case() {
	local point=$1 n=$2 rc
	fresh
	TANDEM_CRASH_AFTER="$point:$n" "$TANDEM" -p "edit all" --permission-mode yolo \
	    >/dev/null 2>"$T/first.err"
	rc=$?
	if [ $rc -ne 137 ]; then
		fail "crash at $point:$n: the crash point was not reached (exit $rc)"
		diag "$T/first.err"
		return
	fi
	check "crash at $point:$n: rewind gives the tree back byte for byte" rewound "$point:$n"
	check "crash at $point:$n: the command never ran again" \
	    [ "$(cat "$COUNT" 2>/dev/null | wc -l)" -le 1 ]
}

# The five calls pass each point in order: n is the call.
for point in tool-done tool-recorded effect-write; do
	for n in 1 2 3 4 5; do crash_case $point $n; done
done
crash_case wsnap-record 1
for n in 1 3 5; do crash_case tool-intent $n; done

# A crash in the recovery itself (its records written, its ledger entry
# not yet): the next open finishes it once, and the rewind is still exact.
fresh
TANDEM_CRASH_AFTER=tool-done:4 "$TANDEM" -p "edit all" --permission-mode yolo >/dev/null 2>&1
TANDEM_CRASH_AFTER=intent-recover:1 "$TANDEM" -c -p "after rewind" --permission-mode yolo >/dev/null 2>&1
check "crash in the recovery: exit 137" [ $? -eq 137 ]
recs() { jq -s '[.[] | select(.k == "files" and .id == "toolu_n1")] | length' "$(ls "$TANDEM_HOME"/sessions/*/log.jsonl)"; }
check "crash in the recovery: rewind gives the tree back" rewound "recovery crash"
check "crash in the recovery: one files record for the call" [ "$(recs)" -eq 1 ]

# A real SIGKILL while the command runs, after it changed files.
# kill_mid_command NAME [HOLD]: the command (or hook) writes its pid to HOLD and waits.
kill_mid_command() {
	local name=$1 hold=${2:-$T/hold} pid i=0
	fresh
	rm -f "$T/hold"
	HOLD="$T/hold" "$TANDEM" -p "edit all" --permission-mode yolo >/dev/null 2>"$T/first.err" &
	pid=$!
	while [ ! -s "$hold" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# the command's shell is not tandem's to outlive it here (the keeper's job)
	[ -s "$hold" ] && kill -9 "$(cat "$hold")" 2>/dev/null
	check "$name: the command was running when tandem was killed" [ -s "$hold" ]
	check "$name: rewind gives the tree back byte for byte" rewound "$name"
}
kill_mid_command "SIGKILL mid-command"

# The same in an empty workspace: its first snapshot is an index never written before.
EMPTY=$(scenario empty <<'J'
{"check_echo":false,"responses":[
 {"match":"after rewind","text":"fine","stop_reason":"end_turn","repeat":5},
 {"match":"make files","tool_uses":[{"id":"toolu_m1","name":"run_bash","input":{"command":"mkdir -p sub; printf 'x\\n' >sub/x.txt; printf 'y\\n' >y.txt; echo $$ >\"$HOLD\"; sleep 60"}}],"stop_reason":"tool_use","repeat":5},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
mock_start "$EMPTY"
rm -rf "$W" "$TANDEM_HOME" "$T/hold"
mkdir -p "$W"
cd "$W" || exit 1
state >"$T/before.state"
HOLD="$T/hold" "$TANDEM" -p "make files" --permission-mode yolo >/dev/null 2>"$T/first.err" &
pid=$!
i=0
while [ ! -s "$T/hold" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -s "$T/hold" ] && kill -9 "$(cat "$T/hold")" 2>/dev/null
check "empty workspace: the command was running when tandem was killed" [ -s "$T/hold" ]
check "empty workspace: rewind gives the tree back" rewound "empty workspace"
mock_start "$SCEN"

# A SIGKILL while a PostToolUse hook runs, after it changed the workspace
# (the hook's pid goes to a file in the workspace, which the rewind removes
# too).  One call: a hook still running while later calls run shares its
# window with them, which is another matter.
HOOKED=$(scenario hooked <<'J'
{"check_echo":false,"responses":[
 {"match":"after rewind","text":"fine","stop_reason":"end_turn","repeat":5},
 {"match":"edit all","tool_uses":[{"id":"toolu_w1","name":"write_file","input":{"path":"a.txt","content":"rewritten\n"}}],"stop_reason":"tool_use","repeat":5},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
mock_start "$HOOKED"
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "sed -i s/rewritten/REWRITTEN/ a.txt; printf h >hooked.txt; echo $$ >hook.pid; sleep 60"}]}]}}\n' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
kill_mid_command "SIGKILL mid-hook" "$W/hook.pid"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$SCEN"

# Snapshots off: the write tools' changes are still rewound after a crash.
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"snapshots": {"enabled": false}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
SCEN2=$(scenario writes <<J
{"check_echo":false,"responses":[
 {"match":"after rewind","text":"fine","stop_reason":"end_turn","repeat":50},
 {"match":"toolu_p1","text":"all edited","stop_reason":"end_turn","repeat":50},
 {"match":"edit all","tool_uses":[
   {"id":"toolu_w1","name":"write_file","input":{"path":"a.txt","content":"rewritten\n"}},
   {"id":"toolu_e1","name":"edit_file","input":{"path":"b.txt","old_string":"old line","new_string":"new line"}},
   {"id":"toolu_p1","name":"apply_patch","input":{"patch":$(jq -Rsn --arg p "$PATCH" '$p')}}],
  "stop_reason":"tool_use","repeat":50},
 {"text":"ok","stop_reason":"end_turn","repeat":50}
]}
J
)
mock_start "$SCEN2"
for n in 1 2 3; do
	fresh
	TANDEM_CRASH_AFTER="tool-done:$n" "$TANDEM" -p "edit all" --permission-mode yolo >/dev/null 2>&1
	check "snapshots off, crash at tool-done:$n: rewind gives the tree back" rewound "off tool-done:$n"
done

finish
