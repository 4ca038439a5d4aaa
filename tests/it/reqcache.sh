#!/bin/bash
# A request is built from what the conversation keeps of each message but
# the newest (its text on the wire, its fingerprint for the cache watcher,
# its size for compaction, its check), so it costs what is new in it.
# TANDEM_DEBUG=conv builds every request a second time from the messages
# alone and stops tandem if the two differ by a byte (likewise the
# fingerprints, the size and the check), and logs how much each request
# made afresh.  A session of both wire formats with thinking, an image, tool
# results, the cache breakpoints and compaction, then a resume, a rewind
# and a fork (each of which must rebuild what is kept) runs under it.
#
# REQCACHE_REF=path/to/another/tandem runs the same sessions with that
# binary too and compares the request bodies the mock received, byte for
# byte (their SHA-256 in the mock's log): e.g. a build of the main branch.
. "$(dirname "$0")/lib.sh"
export TANDEM_DEBUG=conv

# The workspace, the same for every run.
setup() {
	rm -rf "$TANDEM_HOME" "$T/ws" "$XDG_CONFIG_HOME" "$T"/conv.*
	mkdir -p "$T/ws/.tandem" "$XDG_CONFIG_HOME/tandem"
	cd "$T/ws" || exit 1
	printf 'one\ntwo\nthree\n' >a.txt
	printf '\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\000\040\000\000\000\020\010\006\000\000\000' >shot.png
	for i in $(seq 1 8); do
		printf 'a big file, line %d, with a few more words to make it longer\n' $(seq 1 250) >"big$i.txt"
	done
	echo '{"thinking_budget": 2048, "model": "claude-sonnet-4-5"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
	echo '{"context_window": 24000}' >.tandem/settings.json
}

# The replies: thinking with tool calls (one reads the image) and a
# command; small reads; then, after the rewind and the fork, big reads
# that take the session through compaction (the summary call is answered
# wherever it comes).
{
	printf '{"check_echo":false,"responses":[\n'
	printf ' {"match":"You summarise the earlier part","text":"Summary: files were read.","stop_reason":"end_turn","repeat":20},\n'
	printf ' {"thinking":"Reading a.txt first.","signature":"EqMockSig1","text":"Let me read it.",'
	printf '"tool_uses":[{"name":"read_file","input":{"path":"a.txt"}},{"name":"read_file","input":{"path":"shot.png"}}]},\n'
	printf ' {"redacted_thinking":"EmwKAhgBEgy3va3pzix","thinking":"Now a command.","text":"Running.",'
	printf '"tool_uses":[{"name":"run_bash","input":{"command":"printf \\"x\\\\ny\\\\n\\""}}]},\n'
	printf ' {"thinking":"Enough.","text":"a.txt has three lines.","stop_reason":"end_turn"},\n'
	for i in 1 2; do
		printf ' {"text":"Again.","tool_uses":[{"name":"read_file","input":{"path":"a.txt"}}]},\n'
	done
	printf ' {"text":"Still three lines.","stop_reason":"end_turn"},\n'
	printf ' {"text":"Back before turn 2.","stop_reason":"end_turn"},\n'
	printf ' {"text":"In the fork.","tool_uses":[{"name":"read_file","input":{"path":"a.txt"}}]},\n'
	printf ' {"text":"Forked.","stop_reason":"end_turn"},\n'
	for i in $(seq 1 8); do
		printf ' {"text":"Next.","tool_uses":[{"name":"read_file","input":{"path":"big%d.txt"}}]},\n' "$i"
	done
	printf ' {"text":"Read them all.","stop_reason":"end_turn","repeat":20}\n]}\n'
} >"$T/replies.json"

# step NAME BINARY ARGS...: one run; its exit status in $T/rc, its
# TANDEM_DEBUG=conv lines in $T/conv.NAME.
step() {
	local name=$1
	shift
	TANDEM_DEBUG_FILE="$T/conv.$name" "$@" --permission-mode yolo --max-turns 50 \
	    --output-format events >"$T/$name.jsonl" 2>"$T/$name.err"
	echo "$name $?" >>"$T/rc"
}

# steps BINARY PROVIDER-ARGS...: the sessions.
steps() {
	local bin=$1
	shift
	: >"$T/rc"
	step first "$bin" -p "look at @shot.png and a.txt" "$@"
	step resume "$bin" -c -p "read a.txt twice" "$@"
	step rewind "$bin" -c --rewind-to 2 -p "after the rewind" "$@"
	step fork "$bin" -c --fork -p "in the fork" "$@"
	step last "$bin" -c -p "now read the big files" "$@"
}

# jqt ARGS...: jq -e, quietly (for check).
jqt() { jq -e "$@" >/dev/null; }

# conv_field N STEP: field N of each TANDEM_DEBUG=conv line of a step (4: messages, 10: texts).
conv_field() { awk -v f="$1" '{ print $f }' "$T/conv.$2"; }

# run NAME BINARY PROVIDER-ARGS...: the sessions against a fresh mock; the
# bodies' hashes in $T/NAME.sha.
run() {
	local name=$1
	shift
	setup
	mock_start "$T/replies.json"
	steps "$@"
	mock_stop
	jq -r '.body_sha256' "$MOCK_LOG" >"$T/$name.sha"
	cp "$MOCK_LOG" "$T/$name.mock.log"
}

for proto in anthropic openai; do
	args=()
	[ $proto = openai ] && args=(--provider openai --model gpt-4o)
	run "$proto" "$TANDEM" "${args[@]}"
	check "$proto: every run exits 0 ($(tr '\n' ' ' <"$T/rc"))" \
	    [ "$(awk '$2 != 0' "$T/rc" | wc -l)" -eq 0 ]
	check "$proto: the kept and the fresh request agree" \
	    not grep -h 'TANDEM_DEBUG=conv' "$T"/*.err
	check "$proto: the mock found no problem" \
	    [ "$(jq -s '[.[].problems | length] | add // 0' "$T/$proto.mock.log")" -eq 0 ]
	if [ $proto = anthropic ]; then
		check "$proto: the requests carried the image, thinking, redacted thinking and tool results" \
		    jqt -s '[.[].body.messages[].content[]? | .type] | (index("image") and index("thinking") and
		        index("redacted_thinking") and index("tool_result")) != null' "$T/$proto.mock.log"
		check "$proto: a tool result carried the image" \
		    jqt -s '[.[].body.messages[].content[]? | select(.type == "tool_result") | .content[]? |
		        select(type == "object" and .type == "image")] | length > 0' "$T/$proto.mock.log"
		check "$proto: every request's newest block is a cache breakpoint" \
		    jqt -s 'map(select(.body.system[0].text | contains("You summarise") | not) |
		        .body.messages[-1].content[-1].cache_control.type == "ephemeral") | all' "$T/$proto.mock.log"
	else
		check "$proto: the requests carried the image and tool results" \
		    jqt -s '[.[].body.messages[] | (.role), (.content | arrays | .[].type)] |
		        (index("image_url") and index("tool")) != null' "$T/$proto.mock.log"
	fi
	check "$proto: the session compacted" \
	    [ "$(jq -s '[.[] | select(.type=="compaction")] | length' "$T/last.jsonl")" -ge 1 ]
	check "$proto: the rewind dropped messages" \
	    [ "$(conv_field 4 rewind | head -n 1)" -lt "$(conv_field 4 resume | tail -n 1)" ]
	# One line a request of the conversation (summary calls are not its requests).
	convreq=$(jq -s '[.[] | select(.body.system // .body.messages[0].content |
	    tostring | contains("You summarise the earlier part") | not)] | length' "$T/$proto.mock.log")
	check "$proto: a conv line for each of its $convreq requests" \
	    [ "$(cat "$T"/conv.* | grep -c '^conv: ')" -eq "$convreq" ]
	# Within a turn a request makes afresh only the texts of the two messages
	# new since the last, unless something changed an earlier message (a
	# compaction stage: the line's "N changes").
	for s in first resume rewind fork last; do
		check "$proto, $s: at most 2 texts made afresh while the conversation grows ($(conv_field 10 $s | tr '\n' ' '))" \
		    [ "$(awk '{ if (NR > 1 && $4 == prev + 2 && $10 > 2 && $(NF - 1) == 0) bad++; prev = $4 } END { print bad + 0 }' \
		        "$T/conv.$s")" -eq 0 ]
		# The first request of a process (after a resume, a rewind, a fork) makes every text.
		check "$proto, $s: the first request makes all its texts" \
		    [ "$(awk 'NR == 1 { print ($10 == $4 - 1) }' "$T/conv.$s")" = 1 ]
	done
	# After a compaction, too: what was kept is forgotten and made again.
	check "$proto: a request after a compaction made every text" \
	    [ "$(awk '{ if (NR > 1 && $4 < prev && $10 == $4 - 1) n++; prev = $4 } END { print n + 0 }' \
	        "$T/conv.last")" -ge 1 ]
	if [ -n "${REQCACHE_REF:-}" ]; then
		run "$proto.ref" "$REQCACHE_REF" "${args[@]}"
		check "$proto: $(wc -l <"$T/$proto.sha") request bodies byte for byte those of $REQCACHE_REF" \
		    cmp -s "$T/$proto.sha" "$T/$proto.ref.sha"
	fi
done

finish
