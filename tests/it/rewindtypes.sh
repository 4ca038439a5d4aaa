#!/bin/bash
# Rewind and redo of a run_bash command that changed what a name is: a
# directory replaced by a link (to a directory outside the workspace, and
# to one inside it), a link replaced by a directory, a file by a
# directory, a directory by a file.  `tandem -c --rewind-to 1 --files`
# gives the tree back byte for byte (types, modes, link targets, content),
# --redo gives back what the command left, and neither ever follows the
# command's new link: nothing outside the workspace, nor in the directory
# inside it that the link names, is written or removed.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
OUT="$T/elsewhere"

cases=""
add_case dir2out "rm -rf d && ln -s '$OUT' d"
add_case dir2in "rm -rf d && ln -s e d"
add_case link2dir "rm l && mkdir l && printf 'made\\n' >l/x && mkdir l/sub && printf 'deep\\n' >l/sub/y && chmod 705 l"
add_case inlink2dir "rm il && mkdir il && printf 'made\\n' >il/x"
add_case file2dir "rm f && mkdir f && printf 'g\\n' >f/g && chmod 711 f"
add_case dir2file "rm -rf d && printf 'now a file\\n' >d && chmod 604 d"
jq -s '{check_echo: false, responses: (. + [{text: "ok", stop_reason: "end_turn", repeat: 100}])}' \
    <<<"$cases" >"$T/types.json"
mock_start "$T/types.json"

# Every entry under a directory: path, type, mode, and content or link target.
state() { ws_state "$1"; }

setup() {
	rm -rf "$W" "$OUT" "$TANDEM_HOME"
	mkdir -p "$W" "$OUT/sub"
	printf 'outside x\n' >"$OUT/x"
	printf 'outside y\n' >"$OUT/sub/y"
	cd "$W" || exit 1
	# d/: what the first cases replace
	mkdir -p d/sub
	printf 'inner x\n' >d/x
	printf 'inner y\n' >d/sub/y
	printf '#!/bin/sh\n' >d/run.sh
	chmod 755 d/run.sh
	chmod 600 d/x
	chmod 750 d/sub
	chmod 751 d
	ln -s x d/lx
	ln -s ../x d/sub/up
	# e/: a directory inside with the same names, for d -> e
	mkdir -p e/sub
	printf 'e x\n' >e/x
	printf 'e y\n' >e/sub/y
	# links to directories, outside and inside
	ln -s "$OUT" l
	ln -s e il
	# a file with a mode of its own
	printf 'a file\n' >f
	chmod 640 f
}

# run_case NAME: the command, a rewind (compared with the tree before), and
# the command again with a rewind and a redo (compared with what it left).
run_case() {
	local name=$1 before after out rc
	setup
	before=$(state "$W")
	out=$(state "$OUT")
	"$TANDEM" -p "$name" --permission-mode yolo >/dev/null 2>"$T/err"
	after=$(state "$W")
	check "$name: the command changed the tree" [ "$after" != "$before" ]
	"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
	rc=$?
	check "$name: rewind exits 0" [ $rc -eq 0 ]
	check "$name: rewind gives the tree back byte for byte" [ "$(state "$W")" = "$before" ]
	if [ "$(state "$W")" != "$before" ]; then diff <(echo "$before") <(state "$W") | diag; diag "$T/rw.err"; fi
	check "$name: rewind: nothing left alone" not grep -q 'left alone\|cannot\|not restorable' "$T/rw.err"
	check "$name: rewind: nothing outside touched" [ "$(state "$OUT")" = "$out" ]
	if [ "$(state "$OUT")" != "$out" ]; then diff <(echo "$out") <(state "$OUT") | diag; fi

	setup
	"$TANDEM" -p "$name" --permission-mode yolo >/dev/null 2>"$T/err"
	"$TANDEM" -c --rewind-to 1 --files --redo -p "after" >/dev/null 2>"$T/redo.err"
	rc=$?
	check "$name: redo exits 0" [ $rc -eq 0 ]
	check "$name: redo gives back what the command left" [ "$(state "$W")" = "$after" ]
	if [ "$(state "$W")" != "$after" ]; then diff <(echo "$after") <(state "$W") | diag; diag "$T/redo.err"; fi
	check "$name: redo: nothing outside touched" [ "$(state "$OUT")" = "$out" ]
	if [ "$(state "$OUT")" != "$out" ]; then diff <(echo "$out") <(state "$OUT") | diag; fi
}

for c in dir2out dir2in link2dir inlink2dir file2dir dir2file; do
	run_case "$c"
done

# The command's link retargeted by the user since, to a directory inside
# holding the same names, then to one outside: the link is left alone,
# and what was in the directory is not written through it, nor removed.
for target in e2 "$T/elsewhere2"; do
	setup
	rm -rf "$T/elsewhere2"
	mkdir -p e2/sub "$T/elsewhere2/sub"
	for t in e2 "$T/elsewhere2"; do
		printf 'keep x\n' >"$t/x"
		printf 'keep y\n' >"$t/sub/y"
	done
	"$TANDEM" -p dir2in --permission-mode yolo >/dev/null 2>"$T/err"
	rm d && ln -s "$target" d
	tgt_before=$(cd "$W" && state "$target")
	out=$(state "$OUT")
	"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
	what=$([ "$target" = e2 ] && echo inside || echo outside)
	check "retargeted $what: the link is left alone" [ "$(readlink d)" = "$target" ] &&
	    grep -q '^d changed since' "$T/rw.err"
	check "retargeted $what: nothing written or removed through it" \
	    [ "$(cd "$W" && state "$target")" = "$tgt_before" ]
	if [ "$(cd "$W" && state "$target")" != "$tgt_before" ]; then
		diff <(echo "$tgt_before") <(cd "$W" && state "$target") | diag; diag "$T/rw.err"
	fi
	check "retargeted $what: each file below it is named as left alone" \
	    [ "$(grep -c '^d/x: \|^d/sub/y: \|^d/run.sh: ' "$T/rw.err")" -eq 3 ]
	check "retargeted $what: e/ is untouched" [ "$(cat e/x)" = "e x" ] && [ ! -e e/run.sh ]
	check "retargeted $what: nothing outside touched" [ "$(state "$OUT")" = "$out" ]
done
finish
