#!/bin/bash
# The snapshot store's refs: every files record names the content it needs
# in refs/<session id> of the store, before the record is logged; a second
# session of the root that starts over the store's budget prunes content
# no record names, not what the first session's rewind needs.  A failed
# write of the refs file fails the session, with a sentence naming it, and
# no record promises what pruning may take.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
SCEN=$(scenario cmd <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_c1","text":"did it","stop_reason":"end_turn","repeat":20},
 {"match":"do it","tool_uses":[{"id":"toolu_c1","name":"run_bash","input":{"command":"head -c 300000 /dev/urandom >big.bin; printf 'new\\n' >new.txt"}}],"stop_reason":"tool_use","repeat":20},
 {"text":"ok","stop_reason":"end_turn","repeat":50}
]}
J
)
mock_start "$SCEN"

setup() {
	rm -rf "$W" "$TANDEM_HOME"
	mkdir -p "$W"
	cd "$W" || exit 1
	head -c 300000 /dev/urandom >big.bin
}

setup
ORIG=$(sha256sum <big.bin | cut -c1-64)
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
check "the command ran" [ -f new.txt ]
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
id=$(basename "$sess")
key=$(printf '%s' "$(pwd -P)" | sha256sum | cut -c1-16)
store="$TANDEM_HOME/snapshots/$key"
check "the store is where the root's key says" [ -d "$store" ]
check "a refs file of the session is in the store" [ -s "$store/refs/$id" ]
named=$(jq -r 'select(.k == "files" and .by == "run_bash") | .files[] | .before, .after | select(. != null)' \
    "$sess/log.jsonl" | sort -u)
check "the record names content" [ -n "$named" ]
missing=0
for h in $named; do grep -qx "$h" "$store/refs/$id" || missing=$((missing + 1)); done
check "every hash the record names is in the refs file" [ "$missing" -eq 0 ]

# A second session starts with a store over its budget: what no record
# names goes, oldest first; the first session's before-content stays,
# though it is the oldest of all.
for i in 1 2 3 4 5; do head -c 300000 /dev/urandom >"$store/$(printf '%064d' "$i")"; done
find "$store" -maxdepth 1 -type f -exec touch -d '2020-01-01' {} +
touch -d '2001-01-01' "$store/$ORIG"
printf 'x\n' >"$store/refs/20200101-000000-gone"
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"snapshots": {"store_mb": 1}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -p "hello" --permission-mode yolo >/dev/null 2>"$T/err2"
check "a second session ran" [ $? -eq 0 ]
check "the content no record names is pruned" [ ! -e "$store/$(printf '%064d' 1)" ]
check "the oldest content, named by the first session's record, stays" [ -e "$store/$ORIG" ]
check "the refs file of a session that is gone is dropped" [ ! -e "$store/refs/20200101-000000-gone" ]
check "the first session's refs file stays" [ -s "$store/refs/$id" ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -r "$id" --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "the first session's rewind exits 0" [ $? -eq 0 ]
check "and puts big.bin back byte for byte" [ "$(sha256sum <big.bin | cut -c1-64)" = "$ORIG" ]
[ "$(sha256sum <big.bin | cut -c1-64)" = "$ORIG" ] || diag "$T/rw.err"

SHIM="$top_builddir/tests/fault/libfaultshim.so"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
faulted() { # NAME ENV...: the first counted call under the refs directory fails
	local name=$1; shift
	setup
	env "$@" FAULT_PATH="$store/refs" FAULT_MAIN_ONLY=1 FAULT_N=1 LD_PRELOAD="$SHIM" \
	    "$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
	check "$name: exit 1" [ $? -eq 1 ]
	check "$name: the sentence names the refs file" \
	    grep -q "could not save the session in $TANDEM_HOME/sessions/.*(snapshots/refs: " "$T/err"
	check "$name: said once" [ "$(grep -c 'could not save the session' "$T/err")" -eq 1 ]
	check "$name: no record promises what pruning may take" \
	    not grep -q '"by":"run_bash"' "$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)/log.jsonl"
	"$TANDEM" -c -p "after" --permission-mode yolo >/dev/null 2>"$T/err2"
	check "$name: the session resumes once the fault is gone" [ $? -eq 0 ]
}
faulted "refs write ENOSPC" FAULT_OPS=write FAULT_ERRNO=ENOSPC FAULT_STICKY=1
faulted "refs fdatasync EIO" FAULT_OPS=fdatasync FAULT_ERRNO=EIO
faulted "refs open EIO" FAULT_OPS=open FAULT_OPEN=write FAULT_ERRNO=EIO

finish
