#!/bin/bash
# Rewind and redo of a run_bash command that leaves names a tree walker
# can trip on: a name with a newline in it, a directory of mode 0 (made by
# the command, or an existing one the command closed), a file whose mode
# the command took away.  `tandem -c --rewind-to 1 --files` gives the tree
# back byte for byte, and with --redo gives back what the command left.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
cases=""
add_case nlname "rm \"\$(printf 'nl\\nname')\" && printf 'new\\n' >\"\$(printf 'nl\\nmade')\""
add_case zeromade "mkdir q && printf 'q\\n' >q/f && mkdir q/r && chmod 0 q/r q"
add_case zeroclosed "printf 'more\\n' >>z/f && chmod 0 z"
add_case modegone "printf 'changed\\n' >f && chmod 0 f"
jq -s '{check_echo: false, responses: (. + [{text: "ok", stop_reason: "end_turn", repeat: 100}])}' \
    <<<"$cases" >"$T/odd.json"
mock_start "$T/odd.json"

# Every entry (name, type, mode, link count, link target), and each file's
# content, read from a copy that the test may open.
snap() { rm -rf "$T/copy" && cp -a "$W" "$T/copy" 2>/dev/null; chmod -R u+rwx "$T/copy"
	(cd "$W" && find . -mindepth 1 -printf '%P|%y|%m|%n|%l\n' | LC_ALL=C sort)
	(cd "$T/copy" && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }

setup() {
	chmod -R u+rwx "$W" 2>/dev/null
	rm -rf "$W" "$TANDEM_HOME"
	mkdir -p "$W/z"
	cd "$W" || exit 1
	printf 'odd\n' >"$(printf 'nl\nname')"
	printf 'z\n' >z/f
	chmod 750 z
	printf 'a file\n' >f
	chmod 640 f
}

run_case() {
	local name=$1 before after
	setup
	before=$(snap)
	"$TANDEM" -p "$name" --permission-mode yolo >/dev/null 2>"$T/err"
	after=$(snap)
	check "$name: the command changed the tree" [ "$after" != "$before" ]
	"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
	check "$name: rewind gives the tree back byte for byte" [ "$(snap)" = "$before" ]
	if [ "$(snap)" != "$before" ]; then diff <(echo "$before") <(snap) | diag; diag "$T/rw.err"; fi
	setup
	"$TANDEM" -p "$name" --permission-mode yolo >/dev/null 2>"$T/err"
	"$TANDEM" -c --rewind-to 1 --files --redo -p "after" >/dev/null 2>"$T/redo.err"
	check "$name: redo gives back what the command left" [ "$(snap)" = "$after" ]
	if [ "$(snap)" != "$after" ]; then diff <(echo "$after") <(snap) | diag; diag "$T/redo.err"; fi
}

for c in nlname zeromade zeroclosed modegone; do
	run_case "$c"
done
chmod -R u+rwx "$W" 2>/dev/null
cd / || exit 1
finish
