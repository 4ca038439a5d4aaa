#!/bin/bash
# Durability: a failed write (full disk, I/O error) at every durable write
# of a session, with the fault shim (tests/fault/); a small tmpfs when root;
# a torn tail then two resumes; two processes on one session; damaged logs;
# a relative TANDEM_HOME.
#
# The shim is LD_PRELOADed into the tandem of whichever build runs this
# (plain or ASan: under ASan it needs verify_asan_link_order=0, set here).
. "$(dirname "$0")/lib.sh"

SHIM="$top_builddir/tests/fault/libfaultshim.so"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

SCEN=$(scenario steps <<'J'
{"check_echo":false,"responses":[
 {"text":"Step one.","tool_uses":[
   {"id":"toolu_a1","name":"run_bash","input":{"command":"echo toolu_a1 >>ran"}},
   {"id":"toolu_a2","name":"write_file","input":{"path":"g.txt","content":"written whole\n"}}],
  "stop_reason":"tool_use"},
 {"text":"Step two.","tool_uses":[
   {"id":"toolu_b1","name":"run_bash","input":{"command":"echo toolu_b1 >>ran"}}],
  "stop_reason":"tool_use"},
 {"text":"All done.","stop_reason":"end_turn","repeat":20}
]}
J
)
DONE=$(scenario done <<'J'
{"check_echo":false,"responses":[{"text":"All done.","stop_reason":"end_turn","repeat":20}]}
J
)

fresh() {
	rm -rf "$T/ws" "$TANDEM_HOME" "$T/fault.state" "$T/fault.count"
	mkdir -p "$T/ws" "$TANDEM_HOME"
	cd "$T/ws" || exit 1
}

# The messages the log rebuilds, as roles and block ids/texts.
LOGSIG='reduce .[] as $r ([];
      if $r.k == "msg" then . + [{role: $r.role, content: $r.content}]
      elif $r.k == "extend" then .[-1].content += $r.content
      elif $r.k == "rewind" then .[0:$r.keep]
      elif $r.k == "replace" then $r.messages
      else . end)'
SIG='[.[] | {role, b: [.content[]? | (.id // .tool_use_id // .text)]}]'

session_dir() { ls -d "$TANDEM_HOME"/sessions/*/ 2>/dev/null | head -n 1; }

# Every request the mock received holds only messages the log holds.
sent_is_logged() {
	local log
	log="$(session_dir)log.jsonl"
	[ -f "$MOCK_LOG" ] || return 0
	[ -s "$log" ] || { [ "$(mock_requests)" -eq 0 ]; return; }
	jq -n -e --slurpfile log "$log" --slurpfile req "$MOCK_LOG" "
	    (\$log | $LOGSIG | $SIG) as \$L
	    | all(\$req[]; (.body.messages | $SIG) as \$m
	        | (\$m | length) <= (\$L | length) and \$L[0:(\$m | length)] == \$m)" >/dev/null
}

# Every command that ran has its tool_use in the log.
ran_is_logged() {
	local id log
	log="$(session_dir)log.jsonl"
	[ -f ran ] || return 0
	for id in $(cat ran); do
		grep -q "\"id\":\"$id\"" "$log" 2>/dev/null || { echo "# $id ran unlogged"; return 1; }
	done
}

# The log pairs every tool_use with one tool_result, and no command ran twice.
consistent() {
	local log
	log="$(session_dir)log.jsonl"
	if [ -f ran ] && [ "$(sort ran | uniq -d | wc -l)" -gt 0 ]; then echo "# a command ran twice"; return 1; fi
	jq -s -e "$LOGSIG
	    | . as \$m
	    | [range(0; length) | select(\$m[.].role == \"assistant\")
	       | . as \$i
	       | ([\$m[\$i].content[] | select(.type == \"tool_use\") | .id]) as \$uses
	       | ([(\$m[\$i + 1].content // [])[] | select(.type == \"tool_result\") | .tool_use_id]) as \$res
	       | \$uses == \$res]
	    | all" "$log" >/dev/null
}

# run_faulted NAME ERRNO N STICKY: one session with the N-th durable write failing.
run_faulted() {
	local name=$1 errno=$2 n=$3 sticky=$4 rc out msg sess
	fresh
	mock_start "$SCEN"
	FAULT_PATH="$TANDEM_HOME" FAULT_OPEN=write FAULT_MAIN_ONLY=1 FAULT_N=$n \
	    FAULT_ERRNO=$errno FAULT_STICKY=$sticky LD_PRELOAD="$SHIM" \
	    "$TANDEM" -p "do the steps" --permission-mode yolo --output-format events \
	    >"$T/out.jsonl" 2>"$T/out.err"
	rc=$?
	mock_stop
	cp "$MOCK_LOG" "$T/mock.faulted" 2>/dev/null
	msg=$(cat "$T/out.err"; jq -r 'select(.type == "error") | .message' "$T/out.jsonl" 2>/dev/null)
	out=ok
	[ $rc -eq 1 ] || { echo "# $name: exit $rc"; out=bad; }
	case "$msg" in
	*"could not save the session in $TANDEM_HOME/sessions/"*) ;;
	*) echo "# $name: no sentence naming the directory: $msg"; out=bad ;;
	esac
	if [ "$errno" = ENOSPC ]; then
		case "$msg" in *"No space left on device; "*" free"*) ;; *) echo "# $name: no free space"; out=bad ;; esac
	else
		case "$msg" in *"Input/output error"*) ;; *) echo "# $name: no cause"; out=bad ;; esac
	fi
	if [ "$(echo "$msg" | grep -c 'could not save the session')" -ne 1 ]; then
		echo "# $name: said more than once"; out=bad
	fi
	sent_is_logged || { echo "# $name: a request the log does not hold"; out=bad; }
	ran_is_logged || out=bad
	# The fault lifted, the session goes on.
	sess=$(session_dir)
	if [ -n "$sess" ] && [ -f "$sess/meta.json" ]; then
		mock_start "$DONE"
		"$TANDEM" -c -p "go on" --permission-mode yolo --output-format events \
		    >"$T/resume.jsonl" 2>"$T/resume.err"
		rc=$?
		[ $rc -eq 0 ] || { echo "# $name: resume exit $rc: $(cat "$T/resume.err")"; out=bad; }
		consistent || { echo "# $name: inconsistent after resume"; out=bad; }
	fi
	[ $out = ok ]
}

# How many durable writes a whole session makes.
fresh
mock_start "$SCEN"
FAULT_PATH="$TANDEM_HOME" FAULT_OPEN=write FAULT_MAIN_ONLY=1 FAULT_REPORT="$T/fault.count" \
    LD_PRELOAD="$SHIM" "$TANDEM" -p "do the steps" --permission-mode yolo \
    --output-format events >"$T/out.jsonl" 2>"$T/out.err"
check "the shim counts without failing: exit 0" [ $? -eq 0 ]
K=$(cat "$T/fault.count" 2>/dev/null || echo 0)
check "the shim counted the durable writes ($K)" [ "$K" -gt 10 ]
echo "# a session of two tool rounds makes $K durable writes"

for n in $(seq 1 "$K"); do
	check "ENOSPC (disk stays full) at durable write $n of $K" run_faulted "ENOSPC@$n" ENOSPC "$n" 1
done
for n in $(seq 1 "$K"); do
	check "EIO (once) at durable write $n of $K" run_faulted "EIO@$n" EIO "$n" 0
done

# Only fsyncs: a failed fsync is never retried in the same session.
fresh
mock_start "$SCEN"
FAULT_OPS=fdatasync FAULT_PATH="$TANDEM_HOME" FAULT_MAIN_ONLY=1 FAULT_N=2 FAULT_ERRNO=EIO \
    LD_PRELOAD="$SHIM" "$TANDEM" -p "do the steps" --permission-mode yolo \
    --output-format events >"$T/out.jsonl" 2>&1
check "a failed fdatasync: exit 1" [ $? -eq 1 ]
check "a failed fdatasync: fewer requests than a whole session" [ "$(mock_requests)" -lt 3 ]

# A small tmpfs, filled up, as root.
if [ "$(id -u)" -eq 0 ] && mkdir -p "$T/small" && mount -t tmpfs -o size=256k tmpfs "$T/small" 2>/dev/null; then
	for fill in 200 236 244 248 252; do
		rm -rf "$T/small"/* "$T/ws"; mkdir -p "$T/ws"; cd "$T/ws" || exit 1
		head -c "${fill}k" /dev/zero >"$T/small/filler" 2>/dev/null
		mock_start "$SCEN"
		TANDEM_HOME="$T/small/home" "$TANDEM" -p "do the steps" --permission-mode yolo \
		    --output-format events >"$T/out.jsonl" 2>"$T/out.err"
		rc=$?
		msg=$(cat "$T/out.err"; jq -r 'select(.type == "error") | .message' "$T/out.jsonl")
		if [ $rc -eq 0 ]; then
			ok "tmpfs with ${fill}k filled: the session fit"
		else
			check "tmpfs with ${fill}k filled: exit 1 with the sentence" \
			    grep -q "could not save the session in $T/small/home/sessions/.*No space left on device; .* free" <<<"$msg"
			rm -f "$T/small/filler"
			mock_start "$DONE"
			TANDEM_HOME="$T/small/home" "$TANDEM" -c -p "go on" --permission-mode yolo \
			    --output-format events >/dev/null 2>"$T/resume.err"
			rc=$?
			# A session that never got its meta.json is not there to resume.
			check "tmpfs with ${fill}k filled: resume after freeing space" \
			    [ $rc -eq 0 -o \( $rc -eq 2 -a -z "$(ls "$T/small/home/sessions"/*/meta.json 2>/dev/null)" \) ]
		fi
	done
	cd "$T" && umount "$T/small"
else
	ok "# SKIP tmpfs: not root, or mount is not allowed here"
fi

# A torn tail, then two resumes.
fresh
mock_start "$SCEN"
"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
sess=$(session_dir)
printf '{"k":"msg","role":"user","turn":9,"content":[{"type":"te' >>"$sess/log.jsonl"
mock_start "$DONE"
"$TANDEM" -c -p "go on" --permission-mode yolo --output-format events >"$T/r1.jsonl" 2>&1
check "torn tail: first resume exits 0" [ $? -eq 0 ]
check "torn tail: the user is told" grep -q 'torn record' "$T/r1.jsonl"
note_logged() { jq -s -e 'any(.[]; .k == "note")' "$sess/log.jsonl" >/dev/null; }
check "torn tail: a note record in the log" note_logged
check "torn tail: the log ends with a whole line" [ "$(tail -c 1 "$sess/log.jsonl" | od -An -c | tr -d ' ')" = '\n' ]
"$TANDEM" -c -p "once more" --permission-mode yolo --output-format events >"$T/r2.jsonl" 2>&1
check "torn tail: second resume exits 0" [ $? -eq 0 ]
check "torn tail: consistent" consistent
# A torn ledger line is cut too.
printf '{"id":"toolu_x","na' >>"$sess/effects.jsonl"
"$TANDEM" -c -p "again" --permission-mode yolo --output-format events >"$T/r3.jsonl" 2>&1
check "torn ledger line: resume exits 0" [ $? -eq 0 ]
check "torn ledger line: cut off" [ "$(tail -c 1 "$sess/effects.jsonl" | od -An -c | tr -d ' ')" = '\n' ]

# Two processes on one session.
SLOW=$(scenario slow <<'J'
{"check_echo":false,"responses":[{"text":"Slowly, slowly, slowly.","stop_reason":"end_turn","chunk":2,"delay_ms":100,"repeat":5}]}
J
)
mock_start "$SLOW"
"$TANDEM" -c -p "hold it" --permission-mode yolo >/dev/null 2>&1 &
holder=$!
sleep 0.5
"$TANDEM" -c -p "me too" --permission-mode yolo >/dev/null 2>"$T/second.err"
check "locked session: the second process exits 1" [ $? -eq 1 ]
check "locked session: says which process holds it" grep -q "in use by tandem process $holder" "$T/second.err"
check "locked session: offers --fork" grep -q -- '--fork' "$T/second.err"
"$TANDEM" -c --fork -p "in a copy" --permission-mode yolo >/dev/null 2>"$T/fork.err"
check "locked session: --fork goes on in a copy" [ $? -eq 0 ]
wait $holder
check "locked session: the holder finished" [ $? -eq 0 ]
check "locked session: the log is consistent" consistent
check "locked session: a lock file names the holder" grep -q "^$holder " "$sess/lock"

# Damaged logs are refused with file:line, and nothing is sent.
damaged() {
	local name=$1 edit=$2 line
	fresh
	mock_start "$SCEN"
	"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
	sess=$(session_dir)
	eval "$edit"
	cp "$sess/log.jsonl" "$T/damaged.copy"
	mock_start "$DONE"
	"$TANDEM" -c -p "go on" --permission-mode yolo >/dev/null 2>"$T/err"
	check "$name: exit 1" [ $? -eq 1 ]
	check "$name: names file and line" grep -q "log.jsonl:[0-9][0-9]*: the session log is damaged" "$T/err"
	check "$name: offers --fork --rewind-to" grep -q -- "--fork --rewind-to [0-9]" "$T/err"
	check "$name: nothing sent" [ "$(mock_requests)" -eq 0 ]
	check "$name: the log is left alone" cmp -s "$sess/log.jsonl" "$T/damaged.copy"
	line=$(grep -o -- '--rewind-to [0-9]*' "$T/err" | head -n 1)
	"$TANDEM" -c $line --fork -p "from before" --permission-mode yolo >/dev/null 2>"$T/err2"
	check "$name: the offered --fork $line works" [ $? -eq 0 ]
}
damaged "duplicated record" 'n=$(grep -n "\"role\":\"assistant\"" "$sess/log.jsonl" | head -n 1 | cut -d: -f1); sed -i "${n}p" "$sess/log.jsonl"'
damaged "dropped tool_result" 'n=$(grep -n "tool_result" "$sess/log.jsonl" | head -n 1 | cut -d: -f1); sed -i "${n}d" "$sess/log.jsonl"'
# A flipped bit inside a string of a middle record: it still parses, and its seal catches it.
flip() {
	python3 -c 'import sys
p, n = sys.argv[1], int(sys.argv[2])
L = open(p, "rb").read().split(b"\n")
l = L[n - 1]
i = l.index(b"\"text\":\"") + 8
L[n - 1] = l[:i] + bytes([l[i] ^ 1]) + l[i + 1:]
open(p, "wb").write(b"\n".join(L))' "$1" "$2"
}
damaged "a flipped bit in a string" 'n=$(grep -n "\"text\":\"" "$sess/log.jsonl" | sed -n 2p | cut -d: -f1); [ "$n" -lt "$(wc -l <"$sess/log.jsonl")" ] && flip "$sess/log.jsonl" "$n"'
check "a flipped bit: the error says the checksum does not match" grep -q "its checksum does not match" "$T/err"
damaged "a record without its seal" 'n=$(grep -n "\"text\":\"" "$sess/log.jsonl" | sed -n 2p | cut -d: -f1); sed -i -E "${n}s/,\"ck\":\"[0-9a-f]{8}\"\}$/}/" "$sess/log.jsonl"'
check "a missing seal: the error says so" grep -q "its checksum is missing" "$T/err"

# The effects ledger is sealed too.
fresh
mock_start "$SCEN"
"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
sess=$(session_dir)
sed -i -E '1s/"is_error":(true|false)/"is_error":\1 /' "$sess/effects.jsonl"
"$TANDEM" -c -p "go on" --permission-mode yolo >/dev/null 2>"$T/err"
check "a changed ledger record is refused" [ $? -eq 1 ] && grep -q "effects.jsonl:1: a damaged record" "$T/err"

# A session of an older tandem (no seals) loads, and is sealed from then on.
fresh
mock_start "$SCEN"
"$TANDEM" -p "do the steps" --permission-mode yolo >/dev/null 2>&1
sess=$(session_dir)
sed -i -E 's/,"ck":"[0-9a-f]{8}"\}$/}/' "$sess/log.jsonl" "$sess/effects.jsonl"
jq 'del(.sealed)' "$sess/meta.json" >"$T/meta" && cp "$T/meta" "$sess/meta.json"
old=$(wc -c <"$sess/log.jsonl")
mock_start "$DONE"
"$TANDEM" -c -p "go on" --permission-mode yolo >/dev/null 2>"$T/err"
check "an unsealed older log loads" [ $? -eq 0 ]
check "and is sealed from where it ended" [ "$(jq .sealed.log "$sess/meta.json")" -eq "$old" ]
check "what it appends is sealed" [ "$(tail -c +"$((old + 1))" "$sess/log.jsonl" | grep -vc ',"ck":"[0-9a-f]\{8\}"}$')" -eq 0 ]
"$TANDEM" -c -p "go on" --permission-mode yolo >/dev/null 2>"$T/err"
check "and loads again" [ $? -eq 0 ]

# A relative TANDEM_HOME is made absolute at start: edits work.
fresh
mock_start "$SCEN"
mkdir -p "$T/rel"
cd "$T/rel" || exit 1
TANDEM_HOME=relhome "$TANDEM" -p "do the steps" --permission-mode yolo --output-format events >"$T/rel.jsonl" 2>&1
check "relative TANDEM_HOME: exit 0" [ $? -eq 0 ]
check "relative TANDEM_HOME: the write tool worked" [ "$(cat g.txt 2>/dev/null)" = "written whole" ]
check "relative TANDEM_HOME: no path error" not grep -q 'not an absolute path' "$T/rel.jsonl"
check "relative TANDEM_HOME: config shows it absolute" grep -q "$T/rel/relhome" <(TANDEM_HOME=./relhome/../relhome "$TANDEM" config 2>&1)

finish
