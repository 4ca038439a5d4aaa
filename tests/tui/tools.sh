#!/bin/sh
# Screen test: a tool line goes queued -> running (live output) -> done.
. "$top_srcdir/tests/tui/lib.sh"

tui_start 80 24 "$TUI_DATA/tools.jsonl"
tui_check "a waiting retry shows on the status bar" 'retry 2 in [45]s: overloaded'
tui_check "and counts down" 'retry 2 in [1-3]s: overloaded'
tui_next
tui_gone "the stream flowing again ends the retry" 'retry 2'
tui_check "a cache break shows on the status bar" '⚠ cache break: tools_changed −36k'
tui_check "and in the transcript" '⚠ prompt cache break: 36k tokens no longer cached'
tui_check "the call shows in the transcript" '● run_bash make check'
tui_check "the tools pane says queued" '· run_bash make check +queued'
tui_next
tui_check "live output makes it run" 'run_bash make check +running [0-9]+s'
tui_check "the last lines of its output show" '│ PROGRESS-LINE-1'
tui_next
tui_check "new output arrives live" '│ PROGRESS-LINE-2'
tui_check "the elapsed time counts" 'running [1-9][0-9]*s' 5
tui_next
tui_check "then it is done: its first and last lines show in the transcript" '└ PASS: 12'
tui_gone "at 80x24 the tools pane gives way once nothing runs or waits" '─ tools ─'
tui_check "the lines between are counted, with the key that shows them" '… 3 more lines \(Ctrl\+O to expand\)'
tui_check "the last lines" 'all tests passed'
tui_absent "and not the middle" 'ERROR: 0'
tui_check "a failed tool shows its error" '└ grep: bad pattern'
tui_keys Tab
tui_keys Up
tui_keys Up
tui_keys Enter
tui_check "Enter on a selected result expands it" 'ERROR: 0'
tui_check "and the fold names the key that collapses it" '\(Ctrl\+O to collapse\)'
tui_keys Escape
tui_keys C-o
tui_keys C-o
tui_check "Ctrl+O twice collapses everything again" '… 3 more lines \(Ctrl\+O to expand\)'
tui_absent "the middle lines are folded again" 'ERROR: 0'
tui_sane 80 24 "80x24 is laid out"
tui_done
