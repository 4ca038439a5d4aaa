#!/bin/sh
# Screen test: the person's `e` edit of a proposal reaches the model.  The
# real tandem proposes a write_file (three lines); e opens $VISUAL, which
# changes the middle line; the file holds the person's text, and the next
# request the mock receives carries, in that call's tool_result, a note
# that the user changed the call and the diff from the model's proposal to
# what ran (the conversation keeps the model's own tool_use input).
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

cat >"$TUI_TMP/editor" <<'EOS'
#!/bin/sh
# A stand-in editor: the person rewrites the middle line.
sed 's/^two$/TWO-BY-USER/' "$1" > "$1.new" && mv "$1.new" "$1"
EOS
chmod +x "$TUI_TMP/editor"

SCEN=$(tui_scenario editnote <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_w1","name":"write_file","input":{"path":"notes.txt","content":"one\ntwo\nthree\n"}}],"stop_reason":"tool_use"},
 {"text":"WRITTEN-OK","stop_reason":"end_turn"}
]}
J
)
tui_mock_start "$SCEN"
VISUAL=$TUI_TMP/editor
export VISUAL
tui_start_tandem 100 30
tui_check "tandem draws its screen" '› \? for keys'
tui_type "write the notes"
tui_keys Enter
tui_check "the approval shows the proposal" '2 \+ two'
tui_keys e
tui_check "e edits in \$VISUAL and approves the edit" 'approved with your edit of content'
tui_check "the answer comes" 'WRITTEN-OK'
tui_ok "$(cmp -s "$TUI_WS/notes.txt" - <<'T'
one
TWO-BY-USER
three
T
echo $?)" "the file holds the person's text"
msg=$(tui_last_message)
tui_jq "$msg" '[.content[] | select(.type == "tool_result" and .tool_use_id == "toolu_w1")] | length == 1' \
    "the next request answers the call"
tui_jq "$msg" '.content[] | select(.tool_use_id == "toolu_w1") | (.content | if type == "array" then map(.text) | join("") else . end) | test("The user changed this call before it ran")' \
    "its result says the user changed the call"
tui_jq "$msg" '.content[] | select(.tool_use_id == "toolu_w1") | (.content | if type == "array" then map(.text) | join("") else . end) | test("\n-two\n\\+TWO-BY-USER\n")' \
    "and shows the change from the proposal to what ran"
tui_jq "$(jq -c 'select(.body.messages != null) | .body.messages[-2]' "$TUI_MOCK_LOG" | tail -n 1)" \
    '.content[] | select(.type == "tool_use") | .input.content == "one\ntwo\nthree\n"' \
    "the conversation keeps the model's own tool_use input"
tui_mock_done
