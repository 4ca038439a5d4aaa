#!/bin/sh
# Screen test: the @path index shows what git tracks under an ignore rule.
# A committed b/keep.c beside a committed b/.gitignore of "*" (and an
# untracked b/junk.c it ignores): Tab after "@keep" completes b/keep.c,
# "@junk" finds nothing, with index versions 2 and 4.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

if ! command -v git >/dev/null 2>&1; then
	echo "1..0 # SKIP git is not installed"
	exit 0
fi
tui_mock_ok mentiongit
mkdir -p "$TUI_WS/b"
printf '*\n' >"$TUI_WS/b/.gitignore"
printf 'kept\n' >"$TUI_WS/b/keepme.c"
printf 'junk\n' >"$TUI_WS/b/junkfile.c"
(cd "$TUI_WS" && git init -q && git add -f b/.gitignore b/keepme.c &&
    git -c user.name=t -c user.email=t@t commit -qm t) >/dev/null 2>&1
for v in 2 4; do
	(cd "$TUI_WS" && git update-index --index-version $v)
	tui_start_tandem 100 30
	tui_check "v$v: tandem draws its screen" '› \? for keys'
	tui_type "look at @keepme"
	tui_keys Tab
	tui_check_input "v$v: the tracked file under the ignore rule completes" '› look at @b/keepme\.c$'
	tui_keys C-u
	tui_type "@junkfile"
	tui_keys Tab
	tui_check "v$v: the untracked one it ignores is not in the index" 'no file in the workspace matches @junkfile'
	tui_keys C-u
	tui_keys C-c
	tui_keys C-c
	tui_exited "v$v: tandem quits"
done
tui_mock_done
