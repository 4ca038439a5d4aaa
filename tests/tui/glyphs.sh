#!/bin/sh
# Screen test: the transcript's tool glyphs are ones DejaVu Sans Mono draws;
# the ASCII set where the locale is not UTF-8 and under TERM=linux; a theme
# file sets its own.
. "$top_srcdir/tests/tui/lib.sh"

font=$(fc-match -f '%{file}' 'DejaVu Sans Mono' 2>/dev/null)
case $font in
*DejaVuSansMono*) ;;
*) font="" ;;
esac
charset=""
[ -n "$font" ] && charset=$(fc-query -f '%{charset}' "$font" 2>/dev/null)

# covered HEX: is the code point in the font's charset ("20-7e a0-17f ...")?
covered() {
	c=$((0x$1))
	for r in $charset; do
		lo=${r%-*} hi=${r#*-}
		if [ "$c" -ge $((0x$lo)) ] && [ "$c" -le $((0x$hi)) ]; then
			return 0
		fi
	done
	return 1
}

# The code point of the first character of a UTF-8 string, in hex.
codepoint() {
	printf '%s' "$1" | iconv -f UTF-8 -t UTF-32BE 2>/dev/null | od -An -tx1 -N4 | tr -d ' \n' |
	    sed 's/^0*//'
}

# to_end: step the replay of tools.jsonl to its last tool result.
to_end() {
	tui_wait 'retry 2 in' >/dev/null
	tui_next
	tui_wait 'make check +queued' >/dev/null
	tui_next
	tui_wait 'PROGRESS-LINE-1' >/dev/null
	tui_next
	tui_wait 'PROGRESS-LINE-2' >/dev/null
	tui_next
}

tui_start 80 24 "$TUI_DATA/tools.jsonl"
to_end
tui_check "the call is marked with the default glyph" '● run_bash make check'
tui_check "the result with the default one" '└ PASS: 12'
call=$(tui_screen | sed -n 's/^\(.*\) run_bash make check$/\1/p' | head -n 1 | sed 's/^ *//')
result=$(tui_screen | sed -n 's/^ *\([^ ]*\) PASS: 12.*/\1/p' | head -n 1)
tui_ok "$([ -n "$font" ]; echo $?)" "DejaVu Sans Mono is installed (fonts-dejavu-core): $font"
for g in "$call" "$result"; do
	cp=$(codepoint "$g")
	if [ -n "$cp" ] && covered "$cp"; then r=0; else r=1; fi
	tui_ok $r "DejaVu Sans Mono has the glyph '$g' (U+$cp)"
done
tui_absent "not the glyphs DejaVu Sans Mono lacks (U+23FA, U+23BF)" '⏺|⎿'

TUI_ENV="TERM=linux"
tui_start 80 24 "$TUI_DATA/tools.jsonl"
to_end
tui_check "TERM=linux: the ASCII call glyph" '^\* run_bash make check'
tui_check "TERM=linux: the ASCII result glyph" '^  \| PASS: 12'
# Nothing on the screen is outside ASCII: borders, marks, the spinner, the status bar.
ascii_only() { ! tui_screen | LC_ALL=C grep -q '[^ -~]'; }
tui_ok "$(ascii_only; echo $?)" "TERM=linux: no glyph outside ASCII on the screen"
tui_keys '?'
tui_wait 'Ctrl+T' >/dev/null
tui_ok "$(ascii_only; echo $?)" "TERM=linux: nor in the key help"
tui_keys Escape
# An approval waiting (the status bar's mark, the diff, the approval line).
tui_start 80 24 "$TUI_DATA/approval.jsonl"
tui_next
tui_wait 'Apply this edit' >/dev/null
tui_ok "$(ascii_only; echo $?)" "TERM=linux: nor while an approval waits"
for size in "160 45" "220 60"; do
	set -- $size
	tui_start "$1" "$2" "$TUI_DATA/tools.jsonl"
	to_end
	tui_wait 'PASS: 12' >/dev/null
	tui_ok "$(ascii_only; echo $?)" "TERM=linux at $1x$2: no glyph outside ASCII, side by side panes too"
done
TUI_ENV="TERM=linux"

TUI_ENV="LANG=C LC_ALL=C"
tui_start 80 24 "$TUI_DATA/tools.jsonl"
to_end
tui_check "a locale that is not UTF-8: the ASCII glyphs" '^\* run_bash make check'
tui_absent "and none of the default ones" '● run_bash|└ PASS'
TUI_ENV=""

dir=$(mktemp -d)
trap 'tui_cleanup; rm -rf "$dir"' EXIT
printf 'glyph-call = >\nglyph-result = \342\200\242\n' >"$dir/pointy.theme"
tui_start 80 24 "$TUI_DATA/tools.jsonl" --theme pointy --datadir "$dir"
to_end
tui_check "a theme file sets the call glyph" '^> run_bash make check'
tui_check "and the result glyph" '^  • PASS: 12'
tui_done
