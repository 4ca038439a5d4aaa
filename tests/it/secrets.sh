#!/bin/bash
# Keys stay secret with the real tandem against the mock: a command running
# env, reading tandem's own /proc/PID/environ and cat'ing a file that holds
# the key, a built-in read of that file, a hook dumping its environment, and
# a run whose output spills to a file with the key split across two reads:
# the key appears in no event, session file, spill file or request body.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
KEY="sk-ant-itest-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export ANTHROPIC_API_KEY="$KEY"
export ANTHROPIC_AUTH_TOKEN="tok-$KEY"
export MY_SERVICE_TOKEN="svc-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export MY_PUBLIC_NAME="plain-visible-value"
printf 'the key is %s\n' "$KEY" >secret.txt
mkdir -p "$XDG_CONFIG_HOME/tandem" .tandem
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<J
{"secrets": {"remove_env": ["MY_*"], "keep_env": ["MY_PUBLIC_*"]},
 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
   "command": "env > '$T/hook-env'; cat /proc/\$PPID/environ > '$T/hook-proc' 2>/dev/null; true"}]}]}}
J
echo '{"secrets": {"keep_env": ["ANTHROPIC_*"]}}' >.tandem/settings.json

# Half a key, a pause, the other half: two reads for certain.
split='k=$(cat secret.txt); k=${k#the key is }; printf %s "${k:0:9}"; sleep 0.3; printf "%s\n" "${k:9}"'
cmd_env='env; tr "\0" "\n" </proc/$PPID/environ; cat secret.txt; echo MY=$MY_SERVICE_TOKEN PUB=$MY_PUBLIC_NAME'
cmd_big="yes padding-line | head -c 100000; $split; yes more-padding | head -c 100000; $split"
jq -n --arg env "$cmd_env" --arg big "$cmd_big" '{responses: [
 {tool_uses: [{id: "toolu_env", name: "run_bash", input: {command: $env}}], stop_reason: "tool_use"},
 {tool_uses: [{id: "toolu_read", name: "read_file", input: {path: "secret.txt"}}], stop_reason: "tool_use"},
 {tool_uses: [{id: "toolu_big", name: "run_bash", input: {command: $big}}], stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/secrets.json"
mock_start "$T/secrets.json"
timeout 60 "$TANDEM" -p "go" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "the run exits 0" [ $? -eq 0 ]
check "the model was asked four times" [ "$(mock_requests)" -eq 4 ]
check "the requests carried the key as a header" [ "$(jq -r '.headers["x-api-key"]' "$MOCK_LOG" | sort -u)" = "$KEY" ]
check "a project cannot keep keys for its commands" grep -q 'secrets.keep_env" is read from the user' "$T/err"

env_out=$(jq -r 'select(.type=="tool_result" and .id=="toolu_env") | .content' "$T/out.jsonl")
check "env ran" grep -q '^HOME=' <<<"$env_out"
check "a kept or unlisted variable is still there" grep -q 'PUB=plain-visible-value' <<<"$env_out"
check "the command's environment has no key (only the emptied block names it)" [ "$(grep -c '^ANTHROPIC_API_KEY=' <<<"$env_out")" -eq 1 ]
check "env shows no key variable" [ "$(grep -c '^ANTHROPIC_API_KEY=.\|^ANTHROPIC_AUTH_TOKEN=.\|^MY_SERVICE_TOKEN=.' <<<"$env_out")" -eq 0 ]
check "tandem's environment block names the key with no value left" grep -q '^ANTHROPIC_API_KEY=$' <<<"$env_out"
check "a variable the settings remove is gone" grep -q '^MY= PUB=' <<<"$env_out"
check "the file's key is redacted in the result" grep -q '^the key is \[redacted\]$' <<<"$env_out"
read_out=$(jq -r 'select(.type=="tool_result" and .id=="toolu_read") | .content' "$T/out.jsonl")
check "read_file's result is redacted" grep -q 'the key is \[redacted\]' <<<"$read_out"
big_out=$(jq -r 'select(.type=="tool_result" and .id=="toolu_big") | .content' "$T/out.jsonl")
spill=$(grep -o '/[^ ]*bash-toolu_big.log' <<<"$big_out" | head -n 1)
check "the big output spilled" [ -n "$spill" ] && [ -s "$spill" ]
check "the spill file holds the redacted key, split across reads" [ "$(grep -c 'padd\[redacted\]$\|more\[redacted\]$' "$spill")" -eq 2 ]
progress=$(jq -r 'select(.type=="tool_progress" and .id=="toolu_big") | .output' "$T/out.jsonl" | tr -d '\n')
check "progress shows the redacted key twice" [ "$(grep -o '\[redacted\]' <<<"$progress" | wc -l)" -eq 2 ]
check "the hook ran without the keys" grep -q '^HOME=' "$T/hook-env" && not grep -q "$KEY\|MY_SERVICE_TOKEN" "$T/hook-env"
check "the hook sees nothing of tandem's environment block" not grep -q "$KEY" "$T/hook-proc"

check "no event holds the key" not grep -q "$KEY" "$T/out.jsonl"
check "no event holds the removed token" not grep -q "$MY_SERVICE_TOKEN" "$T/out.jsonl"
check "no session file holds the key" not grep -rq "$KEY" "$TANDEM_HOME"
check "no request body holds the key" not grep -q "$KEY" <(jq -c .body "$MOCK_LOG")
check "the next request carries the redacted result" grep -q 'the key is \[redacted\]' <(jq -c .body "$MOCK_LOG")
check "the session's effects were recorded" [ -n "$(find "$TANDEM_HOME" -name 'effects*' | head -n 1)" ]

# tandem config lists what is removed and where it came from.
"$TANDEM" config >"$T/config.out" 2>&1
check "config lists the default names" grep -q '^secrets.remove_env *ANTHROPIC_API_KEY *\[default\]' "$T/config.out"
check "config lists the user's names" grep -q "^secrets.remove_env *MY_\\* *\\[$XDG_CONFIG_HOME" "$T/config.out"
check "config lists what is kept" grep -q "^secrets.keep_env *MY_PUBLIC_\\* *\\[$XDG_CONFIG_HOME" "$T/config.out"
check "tandem still has its key" grep -q '^api_key *(set)' "$T/config.out"

# The key a command finds in a file, spelled otherwise: base64 (at each
# alignment, and url-safe), hex, reversed.  None of it leaves redacted.
enc='k=$(cat secret.txt); k=${k#the key is }; printf %s "$k" | base64 -w0; echo; printf "x%s" "$k" | base64 -w0; echo; printf "xy%s" "$k" | base64 -w0 | tr "+/" "-_"; echo; printf %s "$k" | od -An -tx1 | tr -d " \n"; echo; printf %s "$k" | rev'
jq -n --arg c "$enc" '{responses: [
 {tool_uses: [{id: "toolu_enc", name: "run_bash", input: {command: $c}}], stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/enc.json"
mock_start "$T/enc.json"
timeout 60 "$TANDEM" -p "encode" --permission-mode yolo --output-format events >"$T/enc.jsonl" 2>"$T/enc.err"
enc_out=$(jq -r 'select(.type=="tool_result" and .id=="toolu_enc") | .content' "$T/enc.jsonl")
check "the encoding command ran" [ "$(grep -c . <<<"$enc_out")" -ge 5 ]
check "each line is redacted" [ "$(grep -c '\[redacted\]' <<<"$enc_out")" -ge 5 ]
b64=$(printf %s "$KEY" | base64 -w0)
hexk=$(printf %s "$KEY" | od -An -tx1 | tr -d ' \n')
revk=$(printf %s "$KEY" | rev)
jq -c .body "$MOCK_LOG" >"$T/enc.bodies"
check "the requests were logged" [ "$(grep -c toolu_enc "$T/enc.bodies")" -ge 1 ]
for f in "$T/enc.jsonl" "$T/enc.bodies"; do
	check "the key's base64, hex or reverse is nowhere ($(basename "$f"))" \
	    not grep -qF -e "${b64:4:24}" -e "${hexk:8:40}" -e "${revk:4:20}" "$f"
done
check "nor in a session file" not grep -rqF -e "${b64:4:24}" -e "${hexk:8:40}" -e "${revk:4:20}" "$TANDEM_HOME"
finish
