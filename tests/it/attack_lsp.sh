#!/bin/bash
# The code tool (language servers) reads what the file tools may read and
# no more: a file of the workspace that is a symbolic link out of it (to
# a file in ~/.ssh) is refused as read_file refuses it, and its text is
# never handed to the server, so no symbol of it reaches the model; and a
# location the server names outside the workspace (an #include of a file
# in ~/.ssh) is named without the text of its line.
. "$(dirname "$0")/lib.sh"
command -v clangd >/dev/null || { ok "# SKIP clangd is not installed"; finish; exit 0; }
cd "$T/ws"
git init -q
mkdir -p "$HOME/.ssh"
printf 'int SSH_SECRET_VALUE_4242 = 1;\n' >"$HOME/.ssh/keys.h"
ln -s "$HOME/.ssh/keys.h" leak.c
printf 'int inside_symbol = 2;\n' >inside.c
mock_start "$(scenario code <<'J'
{"responses":[
 {"tool_uses":[{"id":"in","name":"code","input":{"operation":"document_symbols","path":"inside.c"}},
   {"id":"out","name":"code","input":{"operation":"document_symbols","path":"leak.c"}},
   {"id":"rf","name":"read_file","input":{"path":"leak.c"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 90 "$TANDEM" -p go --trust --output-format events >"$T/o.jsonl" 2>"$T/o.err"
check "the run exits 0" [ $? -eq 0 ]
res() { jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .content' "$T/o.jsonl"; }
err() { [ "$(jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .is_error' "$T/o.jsonl")" = true ]; }
check "a file inside: its symbols" grep -q inside_symbol <(res in)
check "read_file refuses the link out of the workspace" err rf
check "the code tool refuses it too" err out
check "...saying it leads outside the workspace" grep -q 'outside the workspace' <(res out)
check "no request to the model holds the file's symbol" not grep -q SSH_SECRET_VALUE_4242 "$MOCK_LOG"

# A project file that includes a file of ~/.ssh: "definition" on the #include names the file.
printf 'SECRET-FIRST-LINE-9876\nint x;\n' >"$HOME/.ssh/id_demo"
printf '#include "../userhome/.ssh/id_demo"\nint main(void) { return 0; }\n' >inc.c
mock_start "$(scenario inc <<'J'
{"responses":[
 {"tool_uses":[{"id":"def","name":"code","input":{"operation":"definition","path":"inc.c","line":1,"column":14}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 90 "$TANDEM" -p go --trust --output-format events >"$T/o.jsonl" 2>"$T/o.err"
check "definition of the #include: the run exits 0" [ $? -eq 0 ]
check "definition of the #include: the location is named" grep -q 'id_demo:1:1' <(res def)
check "definition of the #include: its line is not quoted" not grep -q SECRET-FIRST-LINE "$MOCK_LOG"
finish
