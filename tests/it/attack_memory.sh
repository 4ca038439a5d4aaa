#!/bin/bash
# A cloned project's CLAUDE.md that imports (@path) where keys live: an
# untrusted project reaches neither tandem's settings.json in its config
# directory (it holds an MCP server's token) nor a hidden file of $HOME,
# by an import or by a CLAUDE.md that is a link, nor a file outside the
# project and $HOME; the system prompt holds none of them.  Once the
# project is trusted, the config directory's file is read like any other.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789
mkdir -p "$XDG_CONFIG_HOME/tandem" "$HOME/.ssh" sub
printf '{"mcpServers": {"gh": {"command": "/nonexistent", "env": {"GITHUB_TOKEN": "%s"}}}}\n' "$TOKEN" \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
echo 'SSH-PRIVATE-KEY' >"$HOME/.ssh/id_rsa"
echo 'OUTSIDE-FILE' >"$T/outside.txt"
ln -s "$HOME/.ssh/id_rsa" sub/CLAUDE.md
printf 'Project rules. @%s/tandem/settings.json and @~/.ssh/id_rsa and @../outside.txt\n' \
    "$XDG_CONFIG_HOME" >CLAUDE.md
mock_start "$(scenario mem <<'J'
{"responses":[
 {"tool_uses":[{"id":"r","name":"list_dir","input":{"path":"sub"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p hi --output-format events >"$T/u.jsonl" 2>"$T/u.err"
check "untrusted: the run ends well" [ $? -eq 0 ]
mock_body 1 '.system' >"$T/u.sys"
check "untrusted: the project's memory is read" grep -q 'Project rules' "$T/u.sys"
check "untrusted: the config directory's settings.json is not imported" not grep -q "$TOKEN" "$T/u.sys"
check "untrusted: a hidden file of \$HOME is not imported" not grep -q SSH-PRIVATE-KEY "$T/u.sys"
check "untrusted: a file outside the project and \$HOME is not imported" not grep -q OUTSIDE-FILE "$T/u.sys"
check "untrusted: a nested CLAUDE.md linked to ~/.ssh is not loaded" \
    not grep -q SSH-PRIVATE-KEY <(jq -r 'select(.type=="tool_result") | .content' "$T/u.jsonl")
check "untrusted: no request holds a key" not grep -q "$TOKEN\|SSH-PRIVATE-KEY" "$MOCK_LOG"
mock_start "$T/mem.json"
timeout 60 "$TANDEM" -p hi --trust --output-format events >"$T/t.jsonl" 2>"$T/t.err"
check "trusted: the config directory's file is imported" grep -q "GITHUB_TOKEN" <(mock_body 1 '.system')
finish
