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

# demo_deny COLS ROWS: refuse the command with a reason.
demo_deny() {
	tui_keys n
	tui_check "$1x$2 deny: n asks why" 'why\?'
	tui_type "no-builds-today"
	tui_keys Enter
	tui_check "$1x$2 deny: the model quotes the reason" '“no-builds-today”'
	tui_check "$1x$2 deny: and takes another way" 'so I take' 20
	tui_check "$1x$2 deny: then names the next step" 'Next: the turn browser' 20
	tui_absent "$1x$2 deny: it never says it works" 'It works'
}

# demo_quit DESCRIPTION DIR: Ctrl+C twice; the demo's workspace DIR goes.
demo_quit() {
	tui_keys C-c
	tui_keys C-c
	tui_exited "$1: the demo quits"
	tui_ok "$([ -n "$2" ] && [ ! -e "$2" ]; echo $?)" "$1: its workspace ($2) is removed"
}

for size in "80 24" "160 45" "220 60"; do
	# shellcheck disable=SC2086
	set -- $size
	# a denial with a reason
	demo_to_command "$1" "$2"
	d=$(demo_dir)
	demo_deny "$1" "$2"
	demo_quit "$1x$2 deny" "$d"

	# an approval
	demo_to_command "$1" "$2"
	d=$(demo_dir)
	tui_keys y
	tui_check "$1x$2 approve: the model reads the command's outcome" 'It works: hello, Ada'
	tui_check "$1x$2 approve: and names the next step" 'Next: the turn browser' 20
	tui_absent "$1x$2 approve: no denial answer" 'You refused'
	demo_quit "$1x$2 approve" "$d"

	# an edit
	VISUAL=$TUI_TMP/editor
	export VISUAL
	demo_to_command "$1" "$2"
	d=$(demo_dir)
	tui_keys e
	tui_check "$1x$2 edit: e approves the edited command" 'approved with your edit of command'
	tui_check "$1x$2 edit: the model names the user's version" 'to "make greet && echo EDITED-BY-USER"' 20
	tui_absent "$1x$2 edit: no denial answer" 'You refused'
	demo_quit "$1x$2 edit" "$d"
	unset VISUAL
done

# demo_tour COLS ROWS [all]: the tour's prompts, through the queue; with all, to the fork.
demo_tour() {
	demo_to_command "$1" "$2"
	d=$(demo_dir)
	tui_keys y
	tui_check "$1x$2 tour: step 1 ends by naming the next" 'Next: the turn browser' 20
	demo_idle "$1x$2 tour: step 1 ends"
	tui_type "tidy up"
	tui_keys Enter
	tui_check "$1x$2 tour: a command that changes files asks" 'Run this command' 20
	tui_keys y
	tui_check "$1x$2 tour: the model says how to undo it" 'Oops: README\.md is gone' 20
	tui_ok "$([ -n "$d" ] && [ ! -e "$d/README.md" ]; echo $?)" "$1x$2 tour: the command deleted README.md"
	demo_idle "$1x$2 tour: step 2 ends"
	tui_keys C-t
	tui_check "$1x$2 tour: Ctrl+T opens the turn browser" '─ turns ' 10
	tui_check "$1x$2 tour: the browser lists the command's changes" '- README\.md  deleted' 10
	tui_keys f
	tui_check "$1x$2 tour: f rewinds the turn's files" 'restored README\.md' 10
	tui_ok "$([ -f "$d/README.md" ]; echo $?)" "$1x$2 tour: README.md is back on disk"
	tui_type "is it back?"
	tui_keys Enter
	tui_check "$1x$2 tour: the next step sees the rewind" 'README\.md is back, and greet\.c says hello again' 20
	demo_idle "$1x$2 tour: step 3 ends"
	tui_type "/diff 1"
	tui_keys Enter
	tui_check "$1x$2 tour: /diff 1 lists turn 1's changes" 'Turn 1 changed' 10
	tui_keys Escape
	tui_type "go on"
	tui_keys Enter
	tui_check "$1x$2 tour: a slow answer invites a queued prompt" "writing this slowly" 20
	tui_type "queued-prompt-one"
	tui_keys Enter
	tui_check "$1x$2 tour: the prompt waits in the queue" '1 queued › queued-prompt-one' 5
	tui_check "$1x$2 tour: it is sent when the turn ends" '^› queued-prompt-one' 30
	tui_check "$1x$2 tour: and answered" 'the one that waited in the queue' 20
	if [ "$3" != all ]; then
		tui_absent "$1x$2 tour: no cache break of unknown cause" 'cache break'
		demo_quit "$1x$2 tour" "$d"
		return
	fi
	tui_check "$1x$2 tour: the next step is an @-mention" 'Tab to complete greet\.c' 20
	demo_idle "$1x$2 tour: the queue's step ends"
	tui_type "@gre"
	tui_keys Tab
	tui_check_input "$1x$2 tour: Tab completes the mention" '› @greet\.c$'
	tui_type " what is it?"
	tui_keys Enter
	tui_check "$1x$2 tour: the model sees the mentioned file" 'You mentioned a file' 20
	tui_check "$1x$2 tour: the last step is a fork" "That's the tour" 20
	demo_idle "$1x$2 tour: the mention's step ends"
	tui_keys C-t
	tui_check "$1x$2 tour: the browser again" '─ turns ' 10
	tui_keys Home
	tui_keys k
	tui_check "$1x$2 tour: k forks" 'fork of ' 10
	tui_absent "$1x$2 tour: no cache break of unknown cause" 'cache break'
	demo_quit "$1x$2 tour" "$d"
}

demo_tour 80 24
demo_tour 160 45 all

# Closing the terminal (tmux gone: SIGHUP to tandem and the demo's server)
# once a turn has ended still removes the workspace.
demo_to_command 80 24
d=$(demo_dir)
demo_deny 80 24
demo_idle "hangup: the turn ends"
tui_cleanup
i=0
while [ -n "$d" ] && [ -e "$d" ] && [ "$i" -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
tui_ok "$([ -n "$d" ] && [ ! -e "$d" ]; echo $?)" "hangup: the workspace ($d) is removed"
tui_mock_done
