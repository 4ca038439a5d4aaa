#!/bin/sh
# Screen test: $VISUAL runs as a child on the loop.  While the editor owns
# the terminal the stream goes on (fed at 100 ms a piece), tandem paints
# nothing, approvals queue; when the editor exits the
# screen is whole again at once, with all of the text streamed meanwhile.
. "$top_srcdir/tests/tui/lib.sh"

EDTMP=$(mktemp -d "${TMPDIR:-/tmp}/tandem-tui-editor.XXXXXX")
cat > "$EDTMP/editor" <<EOS
#!/bin/sh
# A stand-in editor that stays open until the test lets it go.
clear
echo "FAKE-EDITOR-OPEN on \$1"
i=0
while [ ! -e "$EDTMP/go" ] && [ "\$i" -lt 400 ]; do
	sleep 0.05
	i=\$((i + 1))
done
sed 's/hello/EDITED-WHILE-STREAMING/' "\$1" > "\$1.new" && mv "\$1.new" "\$1"
EOS
chmod +x "$EDTMP/editor"
trap 'tui_cleanup; rm -rf "$EDTMP"' EXIT

TUI_ENV="VISUAL=$EDTMP/editor"
tui_start 80 24 "$TUI_DATA/editor.jsonl" --pace 100
tui_check "the approval shows the new file" '1 \+ hello'
tui_keys e
tui_check "e opens the editor, which owns the terminal" 'FAKE-EDITOR-OPEN on .*tandem-edit-'
# The stream goes on now: 16 pieces, 1.6 s at the pace.
tui_next
sleep 2.5
tui_absent "tandem paints nothing while the editor is open" 'STREAM-|transcript'
: > "$EDTMP/go"
# A stopped loop would only now begin the 1.6 s of stream: at once, all of it is there.
tui_wait 'approved with your edit of content' 5
tui_check "the text streamed meanwhile is whole at once" 'STREAM-15 STREAM-END' 1
tui_check "from its start" 'STREAM-01 STREAM-02'
tui_check "the edit is approved" 'approved with your edit of content'
tui_check "the approval that came meanwhile waits in the queue" '\$ make notes'
tui_check "and the tools pane says so" 'run_bash make notes +approve\?'
tui_sane 80 24 "80x24 is whole again after the editor"
tui_done
