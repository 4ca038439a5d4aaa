#!/bin/sh
# Screen test: code blocks and diffs are highlighted from nano's syntax
# files, a code block's frame is closed on the right at its own width, and
# a tab turned to spaces is shown in the diff.  At 80x24, 160x45 and 220x60.
. "$top_srcdir/tests/tui/lib.sh"

# No silent skip: scripts/install-deps.sh installs nano, so a missing file fails here.
if [ ! -r /usr/share/nano/c.nanorc ]; then
	echo "not ok 1 - nano's syntax files are installed (scripts/install-deps.sh installs nano)"
	echo "1..1"
	exit 1
fi
home=$(mktemp -d "${TMPDIR:-/tmp}/tandem-syntax.XXXXXX")
trap 'tui_cleanup; rm -rf "$home"' EXIT

# tui_color DESCRIPTION PATTERN: until the screen with its escapes (capture-pane -e) matches.
tui_color() {
	if tui_poll 20 tui_color_has "$2"; then
		tui_ok 0 "$1"
		return
	fi
	tui_ok 1 "$1"
	tui_tmux capture-pane -e -p -t t | grep -E 'int|return' | cat -v | sed 's/^/# e| /'
}

tui_color_has() {
	tui_tmux capture-pane -e -p -t t 2>/dev/null | grep -Eq -- "$1"
}

# The escape that starts a 256-color foreground, as tmux writes it.
fg() {
	printf '\033\\[38;5;%sm' "$1"
}

for size in "80 24" "160 45" "220 60"; do
	set -- $size
	TUI_ENV="HOME=$home TANDEM_SYNTAX_DIR=/usr/share/nano"
	tui_start "$1" "$2" "$TUI_DATA/syntax.jsonl"
	tui_check "$1x$2: the code block is framed with its language, closed on the right" '╭─ c ─+╮'
	tui_check "$1x$2: its line ends at the right edge" '│ int main\(void\) \{ return 0; \} /\* ok \*/ │'
	tui_check "$1x$2: the bottom closes it" '╰─+╯'
	tui_check "$1x$2: a one-line block is as wide as its line, not the pane" '^╰───╯( |$)'
	tui_check "$1x$2: ... with its right edge" '^│ x │( |$)'
	# nano's c.nanorc: types green, return magenta, comments brightblue (the dark theme's 114, 176, 111).
	tui_color "$1x$2: a type in the code block is colored" "$(fg 114)int"
	tui_color "$1x$2: a keyword in the code block is colored" "$(fg 176)return"
	tui_color "$1x$2: a comment in the code block is colored" "$(fg 111)/\\* ok \\*/"
	tui_check "$1x$2: the diff pane shows the edit" '@@ -10,3 \+10,3 @@'
	tui_check "$1x$2: the removed tab is shown" '(^|│)11 +- +→   return count;'
	tui_check "$1x$2: the spaces that replace it are shown" '(^|│) +11 \+ +····return count;'
	tui_color "$1x$2: the diff's lines are colored by the file's syntax" "$(fg 114)static"
	tui_sane "$1" "$2" "$1x$2 is laid out"
done

# No syntax files: the code is plain, and nothing complains.
TUI_ENV="HOME=$home TANDEM_SYNTAX_DIR=/nonexistent"
tui_start 80 24 "$TUI_DATA/syntax.jsonl"
tui_check "without nano's files the code is still shown" '│ int main\(void\) \{ return 0; \} /\* ok \*/ │'
sleep 0.3
if tui_tmux capture-pane -e -p -t t | grep -q "$(fg 176)return"; then
	tui_ok 1 "without nano's files it is not colored"
else
	tui_ok 0 "without nano's files it is not colored"
fi
tui_absent "without nano's files there is no error" 'nanorc|syntax file|error'

# NO_COLOR: no colors at all, the code still shown.
TUI_ENV="HOME=$home TANDEM_SYNTAX_DIR=/usr/share/nano NO_COLOR=1"
tui_start 80 24 "$TUI_DATA/syntax.jsonl"
tui_check "with NO_COLOR the code is shown" '│ int main\(void\) \{ return 0; \} /\* ok \*/ │'
sleep 0.3
if tui_tmux capture-pane -e -p -t t | grep -q '38;5;'; then
	tui_ok 1 "with NO_COLOR nothing is colored"
else
	tui_ok 0 "with NO_COLOR nothing is colored"
fi
tui_done
