#!/bin/bash
# What tandem says after a crash or a failed write: a full snapshot store
# reports the store's free space, not the session's; a read-only or
# unwritable TANDEM_HOME is called that, not "make room"; a rewind without
# a prompt and without a terminal exits 0 with one line; the calls of a
# response that never started say so, not "interrupted while running".
. "$(dirname "$0")/lib.sh"

SHIM="$top_builddir/tests/fault/libfaultshim.so"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

SCEN=$(scenario steps <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_b1","text":"All done.","stop_reason":"end_turn","repeat":50},
 {"match":"do the steps","text":"Step one.","tool_uses":[
   {"id":"toolu_a1","name":"write_file","input":{"path":"g.txt","content":"written\n"}},
   {"id":"toolu_a2","name":"edit_file","input":{"path":"f.txt","old_string":"old","new_string":"new"}},
   {"id":"toolu_b1","name":"run_bash","input":{"command":"echo ran >>ran.txt"}}],
  "stop_reason":"tool_use","repeat":50},
 {"text":"ok","stop_reason":"end_turn","repeat":50}
]}
J
)
mock_start "$SCEN"

fresh() {
	rm -rf "$T/ws" "$TANDEM_HOME" "$T/fault.state"
	mkdir -p "$T/ws" "$TANDEM_HOME"
	cd "$T/ws" || exit 1
	printf 'old\n' >f.txt
}

# A full snapshot store: the free space named is the store's.
fresh
FAULT_PATH="$TANDEM_HOME/snapshots" FAULT_OPEN=write FAULT_MAIN_ONLY=1 FAULT_N=1 FAULT_STICKY=1 \
    LD_PRELOAD="$SHIM" "$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>"$T/err"
check "full store: exit 1" [ $? -eq 1 ]
check "full store: the free space is the store's" grep -q "free in $TANDEM_HOME/snapshots/" "$T/err"
check "full store: make room" grep -q "make room" "$T/err"
# As root, the store on a small file system of its own: its figure, not the session's.
fresh
if [ "$(id -u)" -eq 0 ] && mkdir -p "$TANDEM_HOME/snapshots" &&
    mount -t tmpfs -o size=64k tmpfs "$TANDEM_HOME/snapshots" 2>/dev/null; then
	head -c 1000000 /dev/zero >"$TANDEM_HOME/snapshots/fill" 2>/dev/null
	head -c 300000 /dev/urandom >big.bin
	"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>"$T/err"
	check "store on a full tmpfs: exit 1" [ $? -eq 1 ]
	check "store on a full tmpfs: reports its bytes, not the session's" \
	    grep -q "; [0-9.]* \(bytes\|KB\) free in $TANDEM_HOME/snapshots/" "$T/err"
	cd "$T" && umount "$TANDEM_HOME/snapshots"
else
	ok "# SKIP store on a tmpfs: not root, or mount is not allowed here"
fi

# A read-only or unwritable TANDEM_HOME is called that.
for e in EROFS EACCES; do
	fresh
	FAULT_PATH="$TANDEM_HOME" FAULT_OPEN=write FAULT_MAIN_ONLY=1 FAULT_N=1 FAULT_STICKY=1 \
	    FAULT_ERRNO=$e LD_PRELOAD="$SHIM" "$TANDEM" -p "do the steps" --permission-mode yolo \
	    >/dev/null 2>"$T/err"
	check "$e home: exit 1" [ $? -eq 1 ]
	case $e in
	EROFS) check "$e home: says read-only" grep -q "is on a read-only file system: make it writable" "$T/err" ;;
	EACCES) check "$e home: says not writable" grep -q "is not writable: make it writable" "$T/err" ;;
	esac
	check "$e home: not told to make room" not grep -q "make room" "$T/err"
done

# A rewind without -p and without a terminal: done, exit 0, one line.
fresh
"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
check "a turn ran" [ "$(cat g.txt 2>/dev/null)" = "written" ]
"$TANDEM" -c --rewind-to 1 --files </dev/null >"$T/out" 2>"$T/err"
check "rewind without -p: exit 0" [ $? -eq 0 ]
check "rewind without -p: the files are back" [ ! -e g.txt ] && [ "$(cat f.txt)" = old ]
check "rewind without -p: says it rewound" grep -q "^tandem: rewound session " "$T/err"
check "rewind without -p: no UI error" not grep -q "needs a terminal" "$T/err"
"$TANDEM" -c --redo </dev/null >"$T/out" 2>"$T/err"
check "redo without -p: exit 0" [ $? -eq 0 ]
check "redo without -p: the files are forward again" [ "$(cat g.txt 2>/dev/null)" = "written" ]
"$TANDEM" -c --rewind-to 9 --files </dev/null >"$T/out" 2>"$T/err"
check "rewind to a turn that is not there: exit 1" [ $? -eq 1 ]

# Calls that never started say so; the one running says it was interrupted.
fresh
TANDEM_CRASH_AFTER=tool-done:1 "$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
check "crash after the first call: exit 137" [ $? -eq 137 ]
"$TANDEM" -c -p "go on" --permission-mode yolo >/dev/null 2>"$T/err"
check "resume exits 0" [ $? -eq 0 ]
result() {
	sed -n '$p' "$MOCK_LOG" | jq -r --arg id "$1" \
	    '.body.messages[] | .content[]? | select(.type=="tool_result" and .tool_use_id==$id) | .content'
}
check "the call that ran: interrupted" grep -q "^interrupted: tandem stopped while this write_file call was running" <(result toolu_a1)
check "the call that ran: its changes are recorded" grep -q "recorded: a rewind" <(result toolu_a1)
check "the second call: never started" grep -q "^not run: tandem stopped before this edit_file call started" <(result toolu_a2)
check "the third call: never started" grep -q "^not run: tandem stopped before this run_bash call started" <(result toolu_b1)
check "the command did not run" [ ! -e ran.txt ]

finish
