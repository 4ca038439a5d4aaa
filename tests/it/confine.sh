#!/bin/bash
# Path deny rules hold on what the tools really touch, through the real
# binary: grep, glob and list_dir over the workspace leave denied files out
# and say how many; a link into a denied directory is refused at the tool;
# --add-dir and permissions.additionalDirectories add roots the tools may use.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

printf 'API_TOKEN=hunter2-marker\n' >.env
printf 'token = public\n' >notes.txt
mkdir -p secret docs
printf 'TOKEN in secret: s3cr3t-marker\n' >secret/key.txt
ln -s secret docs-link
mkdir -p "$T/extra"
printf 'extra TOKEN line\n' >"$T/extra/x.txt"

result() { jq -r "select(.type==\"tool_result\" and .id==\"$1\") | .content" "$T/out.jsonl"; }
is_error() { jq -r "select(.type==\"tool_result\" and .id==\"$1\") | .is_error" "$T/out.jsonl"; }

mock_start "$(scenario deny <<'J'
{"responses":[
 {"tool_uses":[
   {"id":"toolu_g1","name":"grep","input":{"pattern":"TOKEN","path":".","output_mode":"content","ignore_case":true}},
   {"id":"toolu_g2","name":"glob","input":{"pattern":"**/*"}},
   {"id":"toolu_l1","name":"list_dir","input":{"path":"."}},
   {"id":"toolu_r1","name":"read_file","input":{"path":"docs-link/key.txt"}},
   {"id":"toolu_r2","name":"read_file","input":{"path":"notes.txt"}},
   {"id":"toolu_g3","name":"grep","input":{"pattern":"TOKEN","path":"docs-link","output_mode":"content"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "go" --output-format events --deny 'read_file(.env)' --deny 'read_file(secret/**)' \
    >"$T/out.jsonl" 2>"$T/err"
check "the run exits 0" [ $? -eq 0 ]
check "grep over . finds the allowed file" grep -q 'notes.txt:1:token = public' <(result toolu_g1)
check "grep over . does not return the denied .env" not grep -q hunter2 <(result toolu_g1)
check "grep over . does not return the denied directory" not grep -q s3cr3t <(result toolu_g1)
check "grep says two were left out by deny rules" grep -q '\[2 files were left out by deny rules\]' <(result toolu_g1)
check "glob leaves the denied files out" not grep -q '^\.env$\|secret/key.txt' <(result toolu_g2)
check "glob says so" grep -q 'left out by deny rules' <(result toolu_g2)
# secret/** covers what is in secret, not the name secret itself
check "list_dir leaves .env out" not grep -q '^\.env' <(result toolu_l1)
check "list_dir still shows the rest" grep -q '^notes.txt' <(result toolu_l1)
check "list_dir says one was left out" grep -q '\[1 file was left out by deny rules\]' <(result toolu_l1)
check "reading through a link into a denied directory is refused" [ "$(is_error toolu_r1)" = true ]
check "grep through a link to a denied directory returns none of it" not grep -q s3cr3t <(result toolu_g3)
check "and says one file was left out" grep -q '\[1 file was left out by deny rules\]' <(result toolu_g3)
check "nothing denied reached the model" not grep -q 's3cr3t\|hunter2' <(mock_body 2 '.messages')
check "an allowed read still works" grep -q 'token = public' <(result toolu_r2)

# Claude Code's spelling, one rule: grep over . leaves exactly .env out.
mock_start "$(scenario ccdeny <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_g1","name":"grep","input":{"pattern":"TOKEN","path":".","output_mode":"content"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "go" --output-format events --deny 'Read(.env)' >"$T/out.jsonl" 2>"$T/err"
check "Read(.env): grep over . does not return .env" not grep -q hunter2 <(result toolu_g1)
check "Read(.env): it still searches the rest" grep -q 's3cr3t-marker' <(result toolu_g1)
check "Read(.env): it says one file was left out" \
    grep -q '\[1 file was left out by deny rules\]' <(result toolu_g1)

# Without the deny rule, grep does see .env: the test above can fail.
mock_start "$(scenario nodeny <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_g1","name":"grep","input":{"pattern":"TOKEN","path":".","output_mode":"content"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "without the rule grep finds .env" grep -q hunter2 <(result toolu_g1)
check "and says nothing about deny rules" not grep -q 'deny rules' <(result toolu_g1)

# Extra roots: refused without --add-dir, allowed with it and with the setting.
cat >"$T/extra.json" <<J
{"responses":[
 {"tool_uses":[
   {"id":"toolu_x1","name":"read_file","input":{"path":"$T/extra/x.txt"}},
   {"id":"toolu_x2","name":"grep","input":{"pattern":"TOKEN","path":"$T/extra","output_mode":"content"}}],
  "stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
mock_start "$T/extra.json"
"$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "a file outside the workspace is refused" [ "$(is_error toolu_x1)" = true ]
check "the refusal says it is outside" grep -q 'outside the workspace' <(result toolu_x1)
mock_start "$T/extra.json"
"$TANDEM" -p "go" --output-format events --add-dir "$T/extra" >"$T/out.jsonl" 2>"$T/err"
check "--add-dir lets read_file use it" grep -q 'extra TOKEN line' <(result toolu_x1)
check "--add-dir lets grep search it" grep -q 'x.txt:1:extra TOKEN line' <(result toolu_x2)
check "the model is told about the extra root" grep -q "Also usable by the file tools.*$T/extra" \
    <(mock_body 1 '.system')
"$TANDEM" -p "go" --add-dir "$T/no-such-dir" >/dev/null 2>"$T/err"
check "--add-dir with a missing directory fails with one sentence" grep -q 'is not a directory' "$T/err"
mkdir -p "$XDG_CONFIG_HOME/tandem"
printf '{"permissions":{"additionalDirectories":["%s"]}}\n' "$T/extra" >"$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$T/extra.json"
"$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "permissions.additionalDirectories in the user's settings adds the root" \
    grep -q 'extra TOKEN line' <(result toolu_x1)
check "tandem config shows the extra root and where it came from" \
    grep -q "permissions.additionalDirectories *$T/extra .*settings.json" <("$TANDEM" config 2>&1)
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
mkdir -p .tandem
printf '{"permissions":{"additionalDirectories":["%s"]}}\n' "$T/extra" >.tandem/settings.json
mock_start "$T/extra.json"
"$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "a project's settings cannot add a root" [ "$(is_error toolu_x1)" = true ]
check "and tandem says it ignored the key" grep -q 'cannot widen what the tools reach' "$T/err"
rm -rf .tandem
finish
