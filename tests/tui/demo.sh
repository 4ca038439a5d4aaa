#!/bin/sh
# Screen test: tandem --demo is a guided tour that follows the user's
# answers.  The real tandem runs its own scripted model on loopback; at
# 80x24 a denial with a reason is answered by quoting the reason (never "It
# works."), an approval by the command's outcome, an edit by the edited
# command; at 160x45 the whole tour: a command that deletes a file, the
# turn browser's f bringing it back (the next step sees it back), /diff, a
# prompt queued behind a slow answer, an @-mention, a fork; no cache break
# of unknown cause on the way, and the scratch workspace gone at the end.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

# A stand-in editor for e: the person changes the command.
cat >"$TUI_TMP/editor" <<'EOS'
#!/bin/sh
sed 's/^make test$/make greet \&\& echo EDITED-BY-USER/' "$1" > "$1.new" && mv "$1.new" "$1"
EOS
chmod +x "$TUI_TMP/editor"

# demo_to_command COLS ROWS: start the demo, approve its edit, stop at the command.
demo_to_command() {
	tui_start_tandem "$1" "$2" --demo
	tui_check "$1x$2: the tour starts and proposes its edit" 'Apply this edit' 30
	tui_keys y
	tui_check "$1x$2: then the command, naming y, n and e" 'Run this command' 20
}

# demo_idle DESCRIPTION: until the turn has ended (the status bar no longer says working).
demo_idle() {
	tui_gone "$1" '● working' 30
}

# The scratch workspace, as the approval names it.
demo_dir() {
	tui_screen | grep -o '/tmp/tandem-demo-[A-Za-z0-9]*' | head -n 1
}

# --- a denial with a reason, at 80x24
demo_to_command 80 24
tui_keys n
tui_check "n asks why" 'why\?'
tui_type "no-builds-today"
tui_keys Enter
tui_check "80x24 deny: the model quotes the reason" '“no-builds-today”'
tui_check "80x24 deny: and goes on to the next step" 'Next: the turn browser' 20
tui_absent "80x24 deny: it never says it works" 'It works'
tui_keys C-c
tui_keys C-c
tui_exited "80x24 deny: the demo quits"

# --- an approval, at 80x24
demo_to_command 80 24
d=$(demo_dir)
tui_keys y
tui_check "80x24 approve: the model reads the command's outcome" 'It works: hello, Ada'
tui_check "80x24 approve: and goes on to the next step" 'Next: the turn browser' 20
tui_absent "80x24 approve: no denial answer" 'You refused'
tui_keys C-c
tui_keys C-c
tui_exited "80x24 approve: the demo quits"
tui_ok "$([ -n "$d" ] && [ ! -e "$d" ]; echo $?)" "80x24 approve: its workspace ($d) is removed"

# --- an edit, at 160x45
VISUAL=$TUI_TMP/editor
export VISUAL
demo_to_command 160 45
tui_keys e
tui_check "160x45 edit: e approves the edited command" 'approved with your edit of command'
tui_check "160x45 edit: the model names the user's version" 'to "make greet && echo EDITED-BY-USER": what ran is your'
tui_absent "160x45 edit: no denial answer" 'You refused'
tui_keys C-c
tui_keys C-c
tui_exited "160x45 edit: the demo quits"
unset VISUAL

# --- the tour, at 160x45
demo_to_command 160 45
d=$(demo_dir)
tui_keys y
tui_check "tour: step 1 ends by naming the next" 'Next: the turn browser' 20
demo_idle "tour: step 1 ends"
tui_type "tidy up"
tui_keys Enter
tui_check "tour: a command that changes files asks" 'Run this command' 20
tui_keys y
tui_check "tour: the model says how to undo it" 'press f: the files it changed come back' 20
tui_ok "$([ -n "$d" ] && [ ! -e "$d/README.md" ]; echo $?)" "tour: the command deleted README.md"
demo_idle "tour: step 2 ends"
tui_keys C-t
tui_check "tour: Ctrl+T opens the turn browser" '─ turns ' 10
tui_check "tour: the browser lists the command's changes" '- README\.md  deleted' 10
tui_keys f
tui_check "tour: f rewinds the turn's files" 'restored README\.md' 10
tui_ok "$([ -f "$d/README.md" ]; echo $?)" "tour: README.md is back on disk"
tui_type "is it back?"
tui_keys Enter
tui_check "tour: the next step sees the rewind" 'README\.md is back, and greet\.c says hello again' 20
demo_idle "tour: step 3 ends"
tui_type "/diff 1"
tui_keys Enter
tui_check "tour: /diff 1 lists turn 1's changes" 'Turn 1 changed' 10
tui_keys Escape
tui_type "go on"
tui_keys Enter
tui_check "tour: a slow answer invites a queued prompt" "writing this slowly" 20
tui_type "queued-prompt-one"
tui_keys Enter
tui_check "tour: the prompt waits in the queue" '1 queued › queued-prompt-one' 5
tui_check "tour: it is sent when the turn ends" '^› queued-prompt-one' 30
tui_check "tour: and answered" 'the one that waited in the queue' 20
tui_check "tour: the next step is an @-mention" 'Tab to complete greet\.c' 20
demo_idle "tour: the queue's step ends"
tui_type "@gre"
tui_keys Tab
tui_check_input "tour: Tab completes the mention" '› @greet\.c$'
tui_type " what is it?"
tui_keys Enter
tui_check "tour: the model sees the mentioned file" 'You mentioned a file' 20
tui_check "tour: the last step is a fork" "That's the tour" 20
demo_idle "tour: the mention's step ends"
tui_keys C-t
tui_check "tour: the browser again" '─ turns ' 10
tui_keys Home
tui_keys k
tui_check "tour: k forks" 'fork of ' 10
tui_absent "tour: no cache break of unknown cause" 'cache break'
tui_keys C-c
tui_keys C-c
tui_exited "tour: the demo quits"
tui_ok "$([ -n "$d" ] && [ ! -e "$d" ]; echo $?)" "tour: its workspace ($d) is removed"
tui_mock_done
