#!/bin/sh
# Screen test: an approval shows the diff; y, n (with a reason), a, e answer it.
. "$top_srcdir/tests/tui/lib.sh"

EDITOR_SCRIPT=${TMPDIR:-/tmp}/tandem-tui-editor.$$
cat > "$EDITOR_SCRIPT" <<'EOS'
#!/bin/sh
# A stand-in editor: changes "hello" to "EDITED-BY-USER" in the file.
sed 's/hello/EDITED-BY-USER/' "$1" > "$1.new" && mv "$1.new" "$1"
EOS
chmod +x "$EDITOR_SCRIPT"
trap 'tui_cleanup; rm -f "$EDITOR_SCRIPT"' EXIT

TUI_ENV="VISUAL=$EDITOR_SCRIPT"
tui_start 80 24 "$TUI_DATA/approval.jsonl"
tui_check "the diff pane shows the file and counts" 'diff .* src/a\.c +\+1 −1'
tui_check "the hunk header is shown" '@@ -10,4 \+10,4 @@'
tui_check "removed lines have old line numbers" '^11 +- +return count \+ 1;'
tui_check "added lines have new line numbers" '^ +11 \+ +return count;'
tui_check "the prompt asks about the file" 'Apply this edit to src/a\.c\?'
tui_check "at 80 columns the reason is cut between words" 'Apply this edit to src/a\.c\?  yes  no  always  Never  edit  · mode ask: every…$'
tui_absent "never mid-word" 'every ed$'

tui_check "the tool waits for approval" '\? edit_file src/a\.c +approve\?'
tui_check "the diff pane says why it asks" 'asks: mode ask: every edit asks'
tui_check "the diff pane says what always would allow" 'a allows: edit_file\(src/a\.c\)'
tui_keys n
tui_check "n asks why" 'why\? ›'
tui_type "use a macro"
tui_keys Enter
tui_check "the denial and its reason show" '└ denied: use a macro'
tui_gone "at 80x24 the tools pane gives way once nothing waits" '─ tools ─'
tui_next
tui_check "two pending approvals queue visibly" '1 of 2 pending'
tui_check "a command shows what runs" '\$ make check'
tui_check "the command says which part asks" 'asks: the part `make check` matches no allow rule'
tui_check "the approval line says why, where it fits" 'edit  · the part'
tui_check "and where it runs" 'in /work/demo'
tui_keys y
tui_check "approved, it runs" 'run_bash make check +running'
tui_check "the next one is shown" '\$ rm -rf build'
tui_absent "the queue has one left" 'of 2 pending'
tui_keys a
tui_check "always approves too" 'run_bash rm -rf build +running'
tui_next
tui_check "a new file's diff" '1 \+ hello'
tui_keys e
tui_check "e edits in \$VISUAL and approves the edit" 'approved with your edit of content'
tui_check "the edited tool runs" 'write_file notes\.txt +running'
tui_sane 80 24 "80x24 is laid out after the editor"
tui_done
