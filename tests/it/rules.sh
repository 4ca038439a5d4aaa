#!/bin/bash
# Claude Code's rule meanings with the real tandem against the mock:
# --deny 'Edit(secret/**)' stops write_file, apply_patch and edit_file in
# yolo mode, with nothing written; a settings.json written for Claude Code
# (Bash(cmd:*), Read(./.env), Edit(/config/**), WebFetch, defaultMode) works
# as it does there, a rule whose meaning changed is reported naming its
# file; a refused compound command names the part that asked; here-document
# ends, code in strings run later and wrappers hide no command from a deny
# rule, and an allow rule for a wrapper does not cover what it runs.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
mkdir -p secret public config src "$XDG_CONFIG_HOME/tandem"
echo old >secret/c.txt
printf 'TOKEN=abc\n' >.env

results() { jq -r 'select(.type=="tool_result") | .id + " " + (.is_error | tostring) + " " + .content' "$T/out.jsonl"; }
result_of() { jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .content' "$T/out.jsonl"; }
is_error() { [ "$(jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .is_error' "$T/out.jsonl")" = true ]; }

# 1. Edit(secret/**) covers every tool that edits files.
jq -n '{responses: [
 {tool_uses: [
   {id: "w", name: "write_file", input: {path: "secret/a.txt", content: "x\n"}},
   {id: "p", name: "apply_patch", input: {patch: "--- /dev/null\n+++ b/secret/b.txt\n@@ -0,0 +1 @@\n+x\n"}},
   {id: "e", name: "edit_file", input: {path: "secret/c.txt", old_string: "old", new_string: "new"}},
   {id: "ok", name: "write_file", input: {path: "public/a.txt", content: "fine\n"}}],
  stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/edit.json"
mock_start "$T/edit.json"
timeout 60 "$TANDEM" -p go --permission-mode yolo --deny 'Edit(secret/**)' --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "edit deny: the run exits 0" [ $? -eq 0 ]
check "edit deny: write_file refused" is_error w
check "edit deny: apply_patch refused" is_error p
check "edit deny: edit_file refused" is_error e
check "edit deny: the refusal names the rule" grep -q 'Edit(secret/\*\*)' <(result_of w)
check "edit deny: nothing was written" [ ! -e secret/a.txt ] && [ ! -e secret/b.txt ] && [ "$(cat secret/c.txt)" = old ]
check "edit deny: elsewhere write_file writes" [ "$(cat public/a.txt)" = fine ]
check "edit deny: approvals say deny by rule" [ "$(jq -r 'select(.type=="approval" and .decision=="deny") | .by' "$T/out.jsonl" | sort -u)" = rule ]

# 2. A settings file written for Claude Code.
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<'J'
{"permissions": {
  "allow": ["Bash(echo:*)", "WebFetch(domain:github.com)", "mcp__github__search"],
  "deny": ["Read(./.env)", "Edit(/config/**)", "Bash(rm:*)", "WebSearch"],
  "defaultMode": "acceptEdits"}}
J
jq -n '{responses: [
 {tool_uses: [
   {id: "grep", name: "grep", input: {pattern: "TOKEN", path: ".env"}},
   {id: "read", name: "read_file", input: {path: ".env"}},
   {id: "cfg", name: "write_file", input: {path: "config/x.json", content: "{}\n"}},
   {id: "src", name: "write_file", input: {path: "src/x.c", content: "int x;\n"}},
   {id: "echo", name: "run_bash", input: {command: "echo hello-from-echo"}},
   {id: "rm", name: "run_bash", input: {command: "rm -f src/x.c"}}],
  stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/cc.json"
mock_start "$T/cc.json"
timeout 60 "$TANDEM" -p go --output-format events >"$T/out.jsonl" 2>"$T/err"
check "claude code settings: the run exits 0" [ $? -eq 0 ]
check "claude code settings: no rule is rejected" not grep -q 'unknown tool\|not a rule' "$T/err"
check "claude code settings: a changed meaning is reported with its file" \
    grep -q "$XDG_CONFIG_HOME/tandem/settings.json: permissions.deny: rule Edit(/config/\*\*): a leading / now means the project root" "$T/err"
check "claude code settings: ./.env is reported too" grep -q 'rule Read(./.env): ./.env now names only' "$T/err"
check "claude code settings: Read(./.env) stops grep on it" is_error grep
check "claude code settings: ...and read_file" is_error read
check "claude code settings: the file's content never shows" not grep -q 'TOKEN=abc' "$T/out.jsonl"
check "claude code settings: Edit(/config/**) stops write_file" is_error cfg && [ ! -e config/x.json ]
check "claude code settings: acceptEdits writes elsewhere" [ "$(cat src/x.c)" = "int x;" ]
check "claude code settings: Bash(echo:*) runs in headless mode" grep -q 'hello-from-echo' <(result_of echo)
check "claude code settings: Bash(rm:*) is denied" is_error rm && [ -e src/x.c ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# 3. A refused compound command names the part that asked, and the rule for it.
jq -n '{responses: [
 {tool_uses: [{id: "c", name: "run_bash", input: {command: "cd src && touch made"}}], stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/compound.json"
mock_start "$T/compound.json"
timeout 60 "$TANDEM" -p go --allow 'Bash(cd *)' --output-format events >"$T/out.jsonl" 2>"$T/err"
check "compound: refused in headless mode" is_error c && [ ! -e src/made ]
check "compound: the refusal names the part" grep -qF 'the part `touch made` matches no allow rule' <(result_of c)
check "compound: it offers the narrowest rule" grep -qF -- "--allow 'run_bash(touch made)'" <(result_of c)
mock_start "$T/compound.json"
timeout 60 "$TANDEM" -p go --allow 'Bash(cd *)' --allow 'run_bash(touch made)' --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "compound: with that rule it runs" [ -e src/made ]

# 4. A flag whose meaning changed is reported too.
"$TANDEM" config --deny 'Read(/etc/passwd)' >/dev/null 2>"$T/err"
check "flag: a leading / is reported" grep -q "^tandem: --deny: rule Read(/etc/passwd): a leading / now means the project root.*write Read(//etc/passwd)" "$T/err"
# 5. Lines bash reads differently, code bash runs later from a string, and
# wrappers: under --deny 'run_bash(rm *)' none of these removes its file, in
# yolo mode (each is denied, or asks, which headless refuses).
touch v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v13
kept() { is_error "$1" && [ -e "$2" ]; }
jq -n '{responses: [
 {tool_uses: [
   {id: "a1", name: "run_bash", input: {command: "cat <<EOF\nbody\nE\\\nOF\nrm -f v1"}},
   {id: "a2", name: "run_bash", input: {command: "x=$(cat <<EOF\nbody\nEOF)\nrm -f v2\nEOF\n)"}},
   {id: "a3", name: "run_bash", input: {command: "x='"'"'a[$(rm -f v3)]'"'"'; echo $((x))"}},
   {id: "a4", name: "run_bash", input: {command: "trap '"'"'rm -f v4'"'"' EXIT"}},
   {id: "a5", name: "run_bash", input: {command: "shopt -s expand_aliases\nalias ls='"'"'rm -f v5'"'"'\nls"}},
   {id: "a6", name: "run_bash", input: {command: "prlimit --nofile=100 rm -f v6"}},
   {id: "a7", name: "run_bash", input: {command: "time -p -- rm -f v7"}},
   {id: "a8", name: "run_bash", input: {command: "script -qc '"'"'rm -f v8'"'"' /dev/null"}},
   {id: "a9", name: "run_bash", input: {command: "setpriv --nnp rm -f v9"}},
   {id: "a11", name: "run_bash", input: {command: "A='"'"'1'"'"' rm -f v11"}},
   {id: "a13", name: "run_bash", input: {command: "cat <<E $(true\nrm -f v13\nE\n)"}},
   {id: "ok", name: "run_bash", input: {command: "echo still-runs"}}],
  stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/hidden.json"
mock_start "$T/hidden.json"
timeout 60 "$TANDEM" -p go --permission-mode yolo --deny 'run_bash(rm *)' --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "hidden rm: the run exits 0" [ $? -eq 0 ]
for id in 1 2 3 4 5 6 7 8 9 11 13; do
	check "hidden rm: a$id is refused and v$id is still there" kept a$id v$id
done
check "hidden rm: a plain command still runs" grep -q still-runs <(result_of ok)

# 6. An allow rule for a wrapper does not cover the command it runs.
jq -n '{responses: [
 {tool_uses: [{id: "w", name: "run_bash", input: {command: "prlimit --nofile=100 rm -f v10"}},
   {id: "t", name: "run_bash", input: {command: "prlimit --nofile=100 echo wrapped-runs"}}],
  stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/wrap.json"
mock_start "$T/wrap.json"
timeout 60 "$TANDEM" -p go --allow 'run_bash(prlimit *)' --allow 'run_bash(echo *)' \
    --output-format events >"$T/out.jsonl" 2>"$T/err"
check "wrapper allow: what it runs needs its own rule" kept w v10
check "wrapper allow: the refusal names that part" grep -qF 'rm -f v10' <(result_of w)
check "wrapper allow: with both rules it runs" grep -q wrapped-runs <(result_of t)
# 7. The line after a here-document's end is no part of its body for an allow rule either.
touch v12
jq -n '{responses: [
 {tool_uses: [{id: "h", name: "run_bash", input: {command: "cat <<EOF\nbody\nE\\\nOF\nrm -f v12"}}],
  stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/doc.json"
mock_start "$T/doc.json"
timeout 60 "$TANDEM" -p go --allow 'run_bash(cat *)' --output-format events >"$T/out.jsonl" 2>"$T/err"
check "here-document allow: the next line needs its own rule" kept h v12
check "here-document allow: the refusal names it" grep -qF 'rm -f v12' <(result_of h)
finish
