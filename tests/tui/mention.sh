#!/bin/sh
# Screen test: @path mentions.  Tab completes "@query" from the workspace's
# files (fuzzy, git-ignored ones left out) with a menu on the input's rule;
# at send time the files' content and a directory's listing go with the
# prompt, shown in the transcript; a Read deny rule and binary files keep
# a file out (and the deny rule keeps it out of the completion too).
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

tui_mock_ok mention
mkdir -p "$TUI_WS/src" "$TUI_WS/lib/some" "$TUI_WS/build"
printf 'int main(void) { return MAIN_MARKER; }\n' >"$TUI_WS/src/main.c"
printf 'memory\n' >"$TUI_WS/src/memory.c"
printf 'macro\n' >"$TUI_WS/lib/some/macro.c"
printf 'ignored\n' >"$TUI_WS/build/ignoredfile.c"
printf 'build/\n' >"$TUI_WS/.gitignore"
printf 'TOKEN=SECRET_MARKER\n' >"$TUI_WS/secret.env"
printf 'a\000b\000c' >"$TUI_WS/blob.dat"
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"permissions":{"deny":["Read(secret.env)"]}}\n' >"$XDG_CONFIG_HOME/tandem/settings.json"
tui_start_tandem 100 30
tui_check "tandem draws its screen" '› \? for keys'

tui_type "look at @mc"
tui_keys Tab
tui_check_input "Tab puts the best match in place" '› look at @src/main\.c$'
tui_check "the menu lists the candidates, the chosen one marked" '@ \[src/main\.c\]'
tui_keys Tab
tui_check_input "Tab again takes the next" '› look at @[a-z/]*m[a-z/]*\.c$'
tui_absent "the first is no longer the chosen one" '\[src/main\.c\]'
tui_keys C-u
# Once the index is older than 10 s, a Tab lists the workspace again: the
# cycle still goes on, at each size.
for size in "100 30" "160 45" "220 60"; do
	set -- $size
	tui_tmux resize-window -t t -x "$1" -y "$2"
	sleep 11
	tui_type "look at @mc"
	tui_keys Tab
	tui_check_input "$1x$2: with an old index, Tab completes" '› look at @src/main\.c$'
	sleep 0.5
	tui_keys Tab
	tui_check_input "$1x$2: and Tab again still takes the next" '› look at @[a-z/]*m[a-z/]*\.c$'
	tui_absent "$1x$2: not the first again" '\[src/main\.c\]'
	tui_keys C-u
done
tui_tmux resize-window -t t -x 100 -y 30
tui_type "@ignoredfile"
tui_keys Tab
tui_check "a git-ignored file is not in the index" 'no file in the workspace matches @ignoredfile'
tui_keys C-u
tui_type "@secret.en"
tui_keys Tab
tui_check "a file a Read deny rule covers is not offered either" 'no file in the workspace matches @secret\.en'
tui_keys C-u

tui_type "read @src/main.c, @src/ and @secret.env and @blob.dat and @nobody"
tui_keys Enter
tui_check "the file is attached" '@src/main\.c attached \(file'
tui_check "the directory's listing" '@src/ attached \(directory listing'
tui_check "a Read deny rule keeps a file out" '@secret\.env not attached: .*denied'
tui_check "a binary file is refused" '@blob\.dat not attached'
tui_absent "a word that is no path is no mention" '@nobody'"'"'? (not )?attached'
tui_check "the answer comes" '^ok'
sleep 0.3
msg=$(tui_last_message)
tui_jq "$msg" '.content[0].text | startswith("read @src/main.c")' "the prompt goes first, as typed"
tui_jq "$msg" '[.content[].text | select(startswith("<attachment path=\"src/main.c\" kind=\"file\">") and test("MAIN_MARKER"))] | length == 1' "the file's content goes with it"
tui_jq "$msg" '[.content[].text | select(startswith("<attachment path=\"src/\" kind=\"dir\">") and test("main.c") and test("memory.c"))] | length == 1' "the directory's listing goes with it"
tui_jq "$msg" '[.content[].text | select(test("SECRET_MARKER"))] | length == 0' "the denied file's content does not"
tui_jq "$msg" '.content | length == 5' "one block for the prompt and each of four mentions"
tui_mock_done
