#!/bin/bash
# Rewind and redo of a run_bash command that broke, removed or made hard
# links, or removed, replaced, made or re-moded a FIFO.  Names that were
# one file (the same inode) when snapshotted come back as one file, and a
# FIFO comes back as a FIFO with its mode: `tandem -c --rewind-to 1
# --files` gives the tree back (types, modes, content, which names share
# an inode), and with --redo gives back what the command left.  A link()
# or mkfifo() that fails says so in one line and loses nothing.
. "$(dirname "$0")/lib.sh"

W="$T/ws/proj"
cases=""
add_case sedone "sed -i s/shared/changed/ a"
add_case rmone "rm b"
add_case rmboth "rm a b"
add_case append "printf 'more\\n' >>a"
add_case relink "cp b a.new && mv a.new a"
add_case newlink "ln a n"
add_case crossdir "rm d/c2"
add_case rmthree "sed -i s/three/four/ t1 && rm t2"
add_case rmfifo "rm p"
add_case fifo2file "rm p && printf 'was a fifo\\n' >p"
add_case mkfifo "mkfifo -m 604 q"
add_case fifomode "chmod 600 p"
jq -s '{check_echo: false, responses: (. + [{text: "ok", stop_reason: "end_turn", repeat: 100}])}' \
    <<<"$cases" >"$T/links.json"
mock_start "$T/links.json"

# Every entry: name, type, mode, link count, the first name of its inode
# (so that names sharing one inode show the same), and a file's content.
snap() {
	(cd "$W" && find . -mindepth 1 -printf '%P|%y|%m|%n|%i\n' | LC_ALL=C sort |
	    awk -F'|' '{ if (!($5 in first)) first[$5] = $1; print $1 "|" $2 "|" $3 "|" $4 "|" first[$5] }')
	(cd "$W" && find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}
ino() { stat -c %i "$W/$1"; }

setup() {
	rm -rf "$W" "$TANDEM_HOME"
	mkdir -p "$W/d"
	cd "$W" || exit 1
	printf 'shared\n' >a
	chmod 640 a
	ln a b
	printf 'across\n' >c
	ln c d/c2
	printf 'three\n' >t1
	ln t1 t2
	ln t1 t3
	mkfifo -m 620 p
}

# run_case NAME: the command, then a rewind (compared with the tree
# before), then the command again with a rewind and a redo (compared
# with what it left); the rewound and redone trees are left for checks.
run_case() {
	local name=$1
	setup
	before=$(snap)
	"$TANDEM" -p "$name" --permission-mode yolo >/dev/null 2>"$T/err"
	after=$(snap)
	check "$name: the command changed the tree" [ "$after" != "$before" ]
	"$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
	check "$name: rewind exits 0" [ $? -eq 0 ]
	check "$name: rewind gives the tree back, hard links and FIFOs too" [ "$(snap)" = "$before" ]
	if [ "$(snap)" != "$before" ]; then diff <(echo "$before") <(snap) | diag; diag "$T/rw.err"; fi
	check "$name: rewind: nothing left alone" not grep -q 'left alone\|cannot\|not restorable\|copy' "$T/rw.err"
	rm -rf "$T/rewound" && cp -a "$W" "$T/rewound"
	setup
	"$TANDEM" -p "$name" --permission-mode yolo >/dev/null 2>"$T/err"
	"$TANDEM" -c --rewind-to 1 --files --redo -p "after" >/dev/null 2>"$T/redo.err"
	check "$name: redo exits 0" [ $? -eq 0 ]
	check "$name: redo gives back what the command left" [ "$(snap)" = "$after" ]
	if [ "$(snap)" != "$after" ]; then diff <(echo "$after") <(snap) | diag; diag "$T/redo.err"; fi
	check "$name: redo: nothing left alone" not grep -q 'left alone\|cannot\|not restorable\|copy' "$T/redo.err"
}

# After the redo (the tree is as the command left it), the rewind of the
# first run is checked by name: the inode numbers a rewind leaves.
rewound_same() { [ "$(stat -c %i "$T/rewound/$1")" = "$(stat -c %i "$T/rewound/$2")" ]; }

run_case sedone
check "sedone: rewind: a is b's inode again" rewound_same a b
check "sedone: redo: a is its own file again, b kept" [ "$(ino a)" != "$(ino b)" ] &&
    [ "$(cat a)" = changed ] && [ "$(cat b)" = shared ]
run_case rmone
check "rmone: rewind: b is a's inode again" rewound_same a b
run_case rmboth
check "rmboth: rewind: a and b are one inode again" rewound_same a b
run_case append
check "append: rewind: a and b one inode, as they were" rewound_same a b
check "append: redo: a and b one inode, as the command left them" [ "$(ino a)" = "$(ino b)" ] &&
    [ "$(tail -n 1 b)" = more ]
run_case relink
check "relink: rewind: a is b's inode again" rewound_same a b
check "relink: redo: a is a copy again" [ "$(ino a)" != "$(ino b)" ]
run_case newlink
check "newlink: redo: n is a's inode" [ "$(ino a)" = "$(ino n)" ] && [ "$(stat -c %h a)" = 3 ]
run_case crossdir
check "crossdir: rewind: d/c2 is c's inode again" rewound_same c d/c2
run_case rmthree
check "rmthree: rewind: t1, t2 and t3 are one inode again" rewound_same t1 t2 && rewound_same t1 t3
run_case rmfifo
check "rmfifo: rewind: p is a FIFO of mode 620" \
    [ "$(stat -c %F:%a "$T/rewound/p")" = "fifo:620" ]
run_case fifo2file
check "fifo2file: rewind: p is a FIFO of mode 620" \
    [ "$(stat -c %F:%a "$T/rewound/p")" = "fifo:620" ]
check "fifo2file: redo: p is the file" [ "$(cat p)" = "was a fifo" ]
run_case mkfifo
check "mkfifo: redo: q is a FIFO of mode 604" [ "$(stat -c %F:%a q)" = "fifo:604" ]
run_case fifomode
check "fifomode: rewind: p's mode is 620 again" [ "$(stat -c %F:%a "$T/rewound/p")" = "fifo:620" ]

# The record of a hard link's name says which names it shared its inode with.
setup
"$TANDEM" -p rmone --permission-mode yolo >/dev/null 2>"$T/err"
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
named() { jq -e -s 'any(.[]; .k == "files" and any(.files[]; .path == "b" and .links_before == ["a"]))' \
    "$sess/log.jsonl" >/dev/null; }
check "the record of b names a as its hard link" named

# A link() or mkfifo() that fails: one line says so, nothing is lost, no
# temporary name is left behind.
SHIM="$top_builddir/tests/fault/libfaultshim.so"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
setup
"$TANDEM" -p rmone --permission-mode yolo >/dev/null 2>"$T/err"
FAULT_OPS=link FAULT_PATH="$W" FAULT_MAIN_ONLY=1 FAULT_N=1 FAULT_STICKY=1 FAULT_ERRNO=EIO \
    LD_PRELOAD="$SHIM" "$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "link fails: rewind exits 0" [ $? -eq 0 ]
check "link fails: b comes back, as a copy" [ "$(cat b)" = shared ] && [ "$(stat -c %a b)" = 640 ]
check "link fails: one line says so" [ "$(grep -c '^b: restored as a copy, not as a hard link of a (.*Input/output error)' "$T/rw.err")" -eq 1 ]
if ! grep -q '^b: restored as a copy' "$T/rw.err"; then diag "$T/rw.err"; fi
check "link fails: no temporary name is left" [ -z "$(find "$W" -name '.tandem-*')" ]

setup
"$TANDEM" -p rmfifo --permission-mode yolo >/dev/null 2>"$T/err"
FAULT_OPS=mkfifo FAULT_PATH="$W" FAULT_MAIN_ONLY=1 FAULT_N=1 FAULT_STICKY=1 FAULT_ERRNO=ENOSPC \
    LD_PRELOAD="$SHIM" "$TANDEM" -c --rewind-to 1 --files -p "after" >/dev/null 2>"$T/rw.err"
check "mkfifo fails: one line says so" [ "$(grep -c '^p: cannot make the FIFO: No space left on device' "$T/rw.err")" -eq 1 ]
if ! grep -q '^p: cannot make the FIFO' "$T/rw.err"; then diag "$T/rw.err"; fi
check "mkfifo fails: no temporary name is left" [ -z "$(find "$W" -name '.tandem-*')" ]
check "mkfifo fails: nothing else is touched" [ "$(stat -c %i a)" = "$(stat -c %i b)" ] && [ ! -e p ]

cd / || exit 1
finish
