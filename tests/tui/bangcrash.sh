#!/bin/sh
# Screen test: tandem is killed (SIGKILL) while the user's "!command" runs,
# after the command changed files; `tandem -c --rewind-to 2 --files` (the
# turn the command goes with) gives the workspace back byte for byte.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

tui_mock_ok bangcrash
W=$TUI_WS
printf 'one\n' >"$W/a.txt"
printf 'bye\n' >"$W/gone.txt"

# Every entry of the workspace: path, type, mode, and a hash of the content.
state() { ws_state "$W"; }

tui_start_tandem 100 30
tui_type "first"
tui_keys Enter
tui_check "the first turn is answered" '^ok'
BEFORE=$(state)
HOLD=$TUI_TMP/hold
tui_type "!printf 'two\\n' >>a.txt; printf 'new\\n' >new.txt; rm gone.txt; mkdir -p d; echo \$\$ >$HOLD; sleep 60"
tui_keys Enter
i=0
while [ ! -s "$HOLD" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$HOLD" ]
tui_ok $? "the ! command is running"
kill -9 "$TUI_PID" 2>/dev/null
[ -s "$HOLD" ] && kill -9 "$(cat "$HOLD")" 2>/dev/null
[ "$(state)" != "$BEFORE" ]
tui_ok $? "it changed the workspace before tandem was killed"
(cd "$W" && "$TUI_TANDEM" -c --rewind-to 2 --files </dev/null >"$TUI_TMP/rw.out" 2>"$TUI_TMP/rw.err")
tui_ok $? "the rewind exits 0"
[ "$(state)" = "$BEFORE" ]
tui_ok $? "the workspace is back byte for byte"
if [ "$(state)" != "$BEFORE" ]; then
	echo "$BEFORE" >"$TUI_TMP/before"; state >"$TUI_TMP/now"
	diff "$TUI_TMP/before" "$TUI_TMP/now" | sed 's/^/# /'
	sed 's/^/# /' "$TUI_TMP/rw.err"
fi
tui_mock_done
