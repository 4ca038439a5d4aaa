#!/bin/bash
# Workspace snapshots: what a run_bash command changed (edited, created,
# deleted, a directory made and one removed, a mode changed, a link
# retargeted) is rewound byte for byte and redone; a file the user changed
# since is left alone; ignored and oversized files are named as not
# restorable; a planted link cannot send a restore outside the workspace;
# a command that changes .git/ is flagged; snapshots.enabled false keeps
# the old sentence.  The workspace is not a git repository unless said.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"snapshots": {"max_file_mb": 1}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"

CMD='printf "two\\n" >>a.txt; printf "new\\n" >new.txt; rm gone.txt; mkdir -p d/e; printf "x\\n" >d/e/x; chmod 755 script.sh; printf "more\\n" >>.env; printf "more" >>big.bin; rm -r olddir; ln -sfn new.txt link; printf "\\0bin\\377" >blob'
SCEN=$(scenario cmd <<J
{"check_echo":false,"responses":[
 {"match":"toolu_g1","text":"committed","stop_reason":"end_turn","repeat":5},
 {"match":"commit it","tool_uses":[{"id":"toolu_g1","name":"run_bash","input":{"command":"git checkout -q -b other && printf 'c\\\\n' >>a.txt && git commit -qam two"}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_s1","text":"made src","stop_reason":"end_turn","repeat":5},
 {"match":"make src","tool_uses":[{"id":"toolu_s1","name":"run_bash","input":{"command":"mkdir -p src && printf 'f\\\\n' >src/f.txt && rm keep/g.txt"}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_c1","text":"did it","stop_reason":"end_turn","repeat":20},
 {"match":"do it","tool_uses":[{"id":"toolu_c1","name":"run_bash","input":{"command":$(jq -Rn --arg c "$CMD" '$c')}}],"stop_reason":"tool_use","repeat":20},
 {"match":"toolu_w1","text":"wrote f","stop_reason":"end_turn","repeat":5},
 {"match":"write f","tool_uses":[{"id":"toolu_w1","name":"write_file","input":{"path":"f.txt","content":"hello x\\n"}}],"stop_reason":"tool_use","repeat":5},
 {"match":"toolu_b1","text":"started","stop_reason":"end_turn","repeat":5},
 {"match":"start bg","tool_uses":[{"id":"toolu_b1","name":"run_bash","input":{"command":"(sleep 2; echo late >late.txt) >/dev/null 2>&1 &"}}],"stop_reason":"tool_use","repeat":5},
 {"text":"ok","stop_reason":"end_turn","repeat":50}
]}
J
)
mock_start "$SCEN"

# Every entry of the workspace: path, type, mode, and content or link target.
state() { ws_state "$W" ! -name big.bin ! -name .env; }

setup() {
	rm -rf "$W" "$TANDEM_HOME"
	mkdir -p "$W/olddir"
	cd "$W" || exit 1
	printf 'one\n' >a.txt
	printf 'bye\n' >gone.txt
	printf '#!/bin/sh\necho hi\n' >script.sh
	chmod 644 script.sh
	printf 'SECRET=1\n' >.env
	printf '.env\n' >.gitignore
	head -c 1200000 /dev/zero >big.bin
	printf 'in\n' >olddir/f
	chmod 700 olddir
	ln -s a.txt link
	ln a.txt hard
}

setup
BEFORE=$(state)
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
check "the command ran" [ -f new.txt ] && [ ! -e gone.txt ]
AFTER=$(state)
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
rec() { jq -c 'select(.k == "files" and .by == "run_bash")' "$sess/log.jsonl"; }
check "a files record names the command's id" grep -q '"id":"toolu_c1"' <<<"$(rec)"
has() { jq -e --arg p "$1" "[.files[] | select(.path == \$p) | $2] | length == 1" <<<"$(rec)" >/dev/null; }
check "record: a.txt changed" has a.txt 'select(.before != null and .after != null and .before != .after)'
check "record: new.txt created" has new.txt 'select(.was == null and .now == "file")'
check "record: gone.txt deleted" has gone.txt 'select(.was == "file" and .now == null)'
check "record: d/ made" has d 'select(.was == null and .now == "dir")'
check "record: olddir/ removed, with its mode" has olddir 'select(.was == "dir" and .mode_before == 448)'
check "record: script.sh's mode changed" has script.sh 'select(.mode_before == 420 and .mode_after == 493 and .before == .after)'
check "record: link retargeted" has link 'select(.was == "link" and .now == "link" and .before != .after)'
check "record: .env changed, not restorable (ignored)" has .env 'select(.lost == "both" and (.why | test("ignored")))'
check "record: big.bin not kept (over max_file_mb)" has big.bin 'select(.lost == "both" and (.why | test("max_file_mb")))'
check "record: hard (a hard link of a.txt) changed too" has hard 'select(.before != .after)'
check "the store is shared under TANDEM_HOME/snapshots" [ -n "$(ls "$TANDEM_HOME"/snapshots/*/ 2>/dev/null)" ]
check "the index is kept with the session" [ -s "$sess/wsnap.idx" ]

"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "rewind exits 0" [ $? -eq 0 ]
check "rewind: the workspace is back byte for byte" [ "$(state)" = "$BEFORE" ]
if [ "$(state)" != "$BEFORE" ]; then diff <(echo "$BEFORE") <(state) | diag; fi
check "rewind: a.txt back (and the hard link is still a.txt's)" [ "$(cat a.txt)" = one ] && [ "$(stat -c %h a.txt)" -ge 1 ]
check "rewind: .env named as not restorable" grep -q '^\.env: not restorable (ignored' "$T/rw.err"
check "rewind: big.bin named as not restorable" grep -q '^big.bin: not restorable' "$T/rw.err"
check "rewind: the old sentence about run_bash is gone" not grep -q 'not tracked' "$T/rw.err"
check "rewind: the ignored file kept the command's change" grep -q more .env

# Redo needs the after-content: rewind and redo in one go.
setup
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
"$TANDEM" -c --rewind-to 1 --files --redo -p "after" >/dev/null 2>"$T/redo.err"
check "redo exits 0" [ $? -eq 0 ]
check "redo: the workspace is as the command left it" [ "$(state)" = "$AFTER" ]
if [ "$(state)" != "$AFTER" ]; then diff <(echo "$AFTER") <(state) | diag; diag "$T/redo.err"; fi

# A file the user changed after the command is not clobbered.
setup
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
printf 'mine\n' >new.txt
printf 'mine too\n' >a.txt
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "user-changed new.txt left alone" [ "$(cat new.txt)" = mine ]
check "user-changed a.txt left alone" [ "$(cat a.txt)" = "mine too" ]
check "and the user is told" grep -q '^new.txt changed since' "$T/rw.err"
check "the rest is restored" [ -f gone.txt ] && [ ! -e d ] && [ "$(stat -c %a script.sh)" = 644 ]
# A created directory with something untracked left in it stays.
setup
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
printf 'u\n' >d/e/user.txt
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "a made directory holding a user's file stays" [ -f d/e/user.txt ] && [ ! -e d/e/x ]
check "and that is said" grep -q '^d/e: kept' "$T/rw.err"

# A planted src -> ~ link cannot send a restore outside.
setup
mkdir keep && printf 'g\n' >keep/g.txt
"$TANDEM" -p "make src" --permission-mode yolo >/dev/null 2>"$T/err"
check "src/f.txt made, keep/g.txt deleted" [ -f src/f.txt ] && [ ! -e keep/g.txt ]
printf 'home file\n' >"$HOME/f.txt"
rm -rf src keep
ln -s "$HOME" src
ln -s "$HOME" keep
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "the file outside is not removed" [ "$(cat "$HOME/f.txt")" = "home file" ]
check "nothing is written outside" [ ! -e "$HOME/g.txt" ]
check "the refusal is reported" grep -q '^src/f.txt: ' "$T/rw.err"
rm -f src keep "$HOME/f.txt"

# In a git repository: a command that changes .git/ is flagged.
setup
git init -q . && git -c user.email=t@t -c user.name=t add -A >/dev/null && \
    git -c user.email=t@t -c user.name=t commit -qm one
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
"$TANDEM" -p "commit it" --permission-mode yolo >/dev/null 2>"$T/err"
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
flagged() { jq -e -s 'any(.[]; .k == "files" and .git == true)' "$sess/log.jsonl" >/dev/null; }
check "git: the record is flagged" flagged
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "git: a.txt rewound" [ "$(cat a.txt)" = one ]
check "git: the rewind says HEAD and the index are not" grep -q 'changed .git/.*HEAD' "$T/rw.err"
check "git: the branch stays (HEAD is not rewound)" [ "$(git rev-parse --abbrev-ref HEAD)" = other ]
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# A PostToolUse hook that formats the file written: its change is a
# record of the call's id too, and the rewind undoes both.
setup
printf '{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "sed -i s/x/y/ f.txt"}]}]}}\n' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -p "write f" --permission-mode yolo >/dev/null 2>"$T/err"
check "hook: the hook changed the file" [ "$(cat f.txt)" = "hello y" ]
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
hooked() { jq -e -s 'any(.[]; .k == "files" and .by == "PostToolUse hook" and .id == "toolu_w1")' "$sess/log.jsonl" >/dev/null; }
check "hook: its change is recorded with the call's id" hooked
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "hook: the rewind undoes the hook's change and the write" [ ! -e f.txt ]
check "hook: nothing was left alone" not grep -q 'left alone' "$T/rw.err"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# The index is kept with the session: a resumed session does not read the unchanged files again
# (content read again is touched in the store, so its old mtime shows it was not).
setup
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
find "$TANDEM_HOME/snapshots" -type f -exec touch -d '2001-01-01' {} +
"$TANDEM" -c -p "start bg" --permission-mode yolo >/dev/null 2>"$T/err"
sleep 2.5
touched=$(find "$TANDEM_HOME/snapshots" -type f -newermt '2002-01-01' | wc -l)
check "resumed: no unchanged file is read again ($touched touched)" [ "$touched" -eq 0 ]
rm -f late.txt

# A process the command left running ends with it (its keeper kills it), so the snapshot after
# the command sees all that the command did.
setup
"$TANDEM" -p "start bg" --permission-mode yolo --output-format events >"$T/bg.jsonl" 2>"$T/err"
bg=$(jq -r 'select(.type == "tool_result" and .id == "toolu_b1") | .content' "$T/bg.jsonl")
check "a process the command left is not said to run on" not grep -q 'still running' <<<"$bg"
sleep 2.5
check "a process the command left ended with it (it never wrote late.txt)" [ ! -e late.txt ]
setup
"$TANDEM" -p "do it" --permission-mode yolo --output-format events >"$T/bg.jsonl" 2>"$T/err"
bg=$(jq -r 'select(.type == "tool_result" and .id == "toolu_c1") | .content' "$T/bg.jsonl")
check "a command that leaves nothing running says nothing of it" not grep -q 'still running' <<<"$bg"

# TANDEM_HOME inside the workspace (tandem run in ~): its logs and store are not snapshotted.
setup
TANDEM_HOME="$W/.state/th" "$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
TANDEM_HOME="$W/.state/th" "$TANDEM" -c -p "do it" --permission-mode yolo >/dev/null 2>>"$T/err"
inner=$(ls -d "$W"/.state/th/sessions/*/ | head -n 1)
own() { jq -e -s '[.[] | select(.k == "files") | .files[].path | select(startswith(".state/th"))] | length == 0' "$inner/log.jsonl" >/dev/null; }
check "a TANDEM_HOME inside the workspace is not in the records" own
rm -rf "$W/.state"

# The budget: more entries than snapshots.max_files get a note, not a stall.
setup
printf '{"snapshots": {"max_files": 5}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
check "over max_files: the record notes it" grep -q 'snapshots.max_files' "$sess/log.jsonl"

# A failed write of the store or the index fails the session, with the
# sentence naming it; once there is room, the session goes on.
SHIM="$top_builddir/tests/fault/libfaultshim.so"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
faulted() { # NAME WHAT ENV...: the first counted call under WHAT fails
	local name=$1 what=$2; shift 2
	setup
	env "$@" FAULT_MAIN_ONLY=1 FAULT_N=1 LD_PRELOAD="$SHIM" \
	    "$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
	check "$name: exit 1" [ $? -eq 1 ]
	check "$name: the sentence names $what" grep -q "could not save the session in $TANDEM_HOME/sessions/.*($what: " "$T/err"
	check "$name: said once" [ "$(grep -c 'could not save the session' "$T/err")" -eq 1 ]
	check "$name: no record promises what was not kept" \
	    not grep -q '"by":"run_bash"' "$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)/log.jsonl"
	"$TANDEM" -c -p "after" --permission-mode yolo >/dev/null 2>"$T/err2"
	check "$name: the session resumes once the fault is gone" [ $? -eq 0 ]
}
faulted "store write ENOSPC" snapshots/ FAULT_PATH="$TANDEM_HOME/snapshots" FAULT_OPEN=write \
    FAULT_OPS=write FAULT_ERRNO=ENOSPC FAULT_STICKY=1
faulted "store open EIO" snapshots/ FAULT_PATH="$TANDEM_HOME/snapshots" FAULT_OPEN=write \
    FAULT_OPS=open FAULT_ERRNO=EIO
faulted "store fsync EIO" snapshots/ FAULT_PATH="$TANDEM_HOME/snapshots" FAULT_OPS=fsync FAULT_ERRNO=EIO
faulted "store rename EIO" snapshots/ FAULT_PATH="$TANDEM_HOME/snapshots" FAULT_OPS=rename FAULT_ERRNO=EIO

# An MCP tool without readOnlyHint is snapshotted like a command:
# server-filesystem's write_file, allowed by a rule, is rewound.
FS="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
check "server-filesystem is installed (npm ci in tests/npm)" [ -f "$FS" ]
printf '{"snapshots": {"max_file_mb": 1}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
setup
mock_start "$(scenario mcpw <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_m1","name":"mcp__fs__write_file","input":{"path":"mcp.txt","content":"from mcp\n"}},
   {"id":"toolu_m2","name":"mcp__fs__read_text_file","input":{"path":"a.txt"}}],"stop_reason":"tool_use"},
 {"text":"wrote it","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)"
FSCFG="{\"mcpServers\":{\"fs\":{\"command\":\"node\",\"args\":[\"$FS\",\"$(pwd -P)\"]}}}"
"$TANDEM" -p "write through mcp" --mcp-config "$FSCFG" --allow mcp__fs >/dev/null 2>"$T/err"
check "mcp: write_file wrote mcp.txt" [ "$(cat mcp.txt 2>/dev/null)" = "from mcp" ]
log="$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)/log.jsonl"
check "mcp: the write is a files record of the MCP tool" \
    [ "$(jq -s '[.[] | select(.k=="files" and .by=="mcp__fs__write_file") | .files[] | select(.path=="mcp.txt")] | length' "$log")" -eq 1 ]
check "mcp: a read-only MCP tool is not snapshotted" \
    [ "$(jq -s '[.[] | select(.k=="files" and .by=="mcp__fs__read_text_file")] | length' "$log")" -eq 0 ]
"$TANDEM" -c --rewind-to 1 --files -p "after" --mcp-config "$FSCFG" >/dev/null 2>"$T/rw.err"
check "mcp: rewind exits 0" [ $? -eq 0 ]
check "mcp: rewind removed what write_file created" [ ! -e mcp.txt ]
[ -e mcp.txt ] && diag "$T/rw.err"
mock_start "$SCEN"

# Snapshots off: the old behaviour, said plainly.
setup
printf '{"snapshots": {"enabled": false}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -p "do it" --permission-mode yolo >/dev/null 2>"$T/err"
"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "off: nothing of the command is undone" [ -f new.txt ]
check "off: the rewind says so" grep -q 'snapshots are off' "$T/rw.err"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

finish
