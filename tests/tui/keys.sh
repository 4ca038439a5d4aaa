#!/bin/sh
# Screen test: the input editor, history, slash commands, themes, search, quit.
. "$top_srcdir/tests/tui/lib.sh"

BAD=${TMPDIR:-/tmp}/tandem-tui-themes.$$
mkdir -p "$BAD"
cp "$top_srcdir/themes/light.theme" "$BAD/"
printf 'text = red\nheading = chartreuse-ish\n' > "$BAD/broken.theme"
trap 'tui_cleanup; rm -rf "$BAD"' EXIT

EMPTY=$TUI_DATA/empty.jsonl
# tmux clears a dead pane, and may close its terminal before it has read
# the last of what was printed: a shell that outlives the program a while
# keeps the printed transcript on the screen to be read.
printf '#!/bin/sh\n"$@"\nsleep 3\n' >"$BAD/linger.sh"
TUI_CMD="sh $BAD/linger.sh $TUI_REPLAY --datadir $BAD --print $EMPTY"
tui_start 80 24 "$EMPTY"
tui_check "an empty prompt invites ? and /" '› \? for keys, / for commands'
tui_type "first prompt"
tui_keys Enter
tui_check "with no agent a prompt is echoed into the transcript" '^› first prompt'
tui_type "line one"
tui_keys M-Enter
tui_type "line two"
tui_check "Alt+Enter makes a second line" '^  line two'
tui_keys Enter
tui_check "a multi-line prompt is sent whole" '^  line two'
tui_keys Up
tui_check "Up brings the last prompt back" '› line one'
tui_keys C-u
tui_keys Up
tui_keys C-k
tui_keys C-u
tui_keys C-r
tui_type "first"
tui_check "Ctrl+R finds an older prompt" 'history › first +first prompt'
tui_keys Enter
tui_check "Enter takes the match" '^› first prompt *$'
tui_keys C-u
tui_keys '?'
tui_check "? on an empty prompt lists the keys" 'Shift\+Tab +cycle the mode: ask, accept-edits, plan'
# A key's description that wraps goes on under the descriptions, not at column 0.
tui_check "a wrapped key description hangs under its column" '^               prompt$'
tui_absent "no description's end at column 0" '^prompt$'

tui_type "/he"
tui_keys Tab
tui_check "Tab completes a slash command" '› /help *$'
tui_keys Enter
tui_check "/help lists the commands" '/resume \[id\] +list this directory.s sessions, or continue one'
tui_type "/co"
tui_keys Tab
tui_check "several completions are listed" '/compact /context /cost'
tui_keys C-u
tui_type "/resume"
tui_keys Enter
tui_check "with no agent there is no session to resume" 'no agent: nothing to resume'
tui_keys C-t
tui_check "with no agent there are no turns to browse" 'no agent: no turns to browse'
tui_type "/rewind 2"
tui_keys Enter
tui_check "with no agent there is nothing to rewind" 'no agent: nothing to rewind'
tui_type "/theme"
tui_keys Enter
tui_check "/theme lists the themes" 'themes in .*: broken light'
tui_type "/theme broken"
tui_keys Enter
tui_check "a malformed theme names its file and line" "broken\.theme:2: unknown color"
tui_type "/theme light"
tui_keys Enter
tui_check "/theme switches live" 'theme: light'
tui_keys BTab
tui_check "Shift+Tab cycles the permission mode" '│ accept-edits'
tui_keys C-f
tui_type "first prompt"
tui_keys Enter
tui_check "Ctrl+F searches the transcript" 'search: first prompt'
tui_keys Escape
tui_gone "Esc ends the search" 'search: first'
tui_tmux send-keys -t t -l "$(printf '\033[200~pasted\rtext\033[201~')"
sleep 0.3
tui_check "a bracketed paste keeps its newline" '^  text'
tui_keys C-c
tui_check "Ctrl+C clears the prompt and warns" 'press Ctrl\+C again to quit'
tui_keys C-c
tui_check "a second Ctrl+C quits, and the transcript is printed after the screen is gone" '^theme: light'
tui_absent "what is printed is the transcript, not the screen" '─ transcript'
tui_exited "the program is gone"


TUI_CMD=
TUI_ENV="NO_COLOR=1"
tui_start 80 24 "$TUI_DATA/stream.jsonl"
tui_check "NO_COLOR still draws the screen" 'LASTWORDS'
tui_done
