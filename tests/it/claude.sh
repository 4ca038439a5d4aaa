#!/bin/bash
# A Claude Code user's setup with the real tandem against the mock: the
# .claude folder the npm package cc-sdd installs (commands in a subfolder,
# subagents, skills) loads with no notice but two true ones; a
# command runs with its arguments and its subfolder in the description; the
# skills' names and descriptions, not their bodies, are in the first
# request, and the skill tool gives a body and a file beside it on demand;
# a Claude Code settings file with keys tandem lacks gives exactly the
# notice naming them, on stderr and in `tandem config`; a project's allow
# rule waits for trust while a deny rule from ~/.claude applies in yolo mode;
# a command's allowed-tools hold for its turn, its !`cmd` runs only once
# trusted, and in the sandbox when one is on; the user's MCP servers of ~/.claude.json are read; Claude
# Code's memory files are loaded, a nested CLAUDE.md with
# the first result of a call in its folder.
. "$(dirname "$0")/lib.sh"
CCSDD="$top_srcdir/tests/npm/node_modules/cc-sdd/dist/cli.js"
needs_node "$CCSDD" cc-sdd

tool_result() { jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .content' "$2"; }
is_error() { [ "$(jq -r --arg id "$1" 'select(.type=="tool_result" and .id==$id) | .is_error' "$2")" = true ]; }
notices() { grep 'is not honoured' "$1" | sed 's/^tandem: //; s/^ *//'; }

# 1. cc-sdd's Claude Code templates, installed as a user installs them.
W1="$T/sdd"
mkdir -p "$W1" && cd "$W1" && git init -q
timeout 120 node "$CCSDD" --claude-code-agent --lang en --yes </dev/null >"$T/sdd.out" 2>&1
check "cc-sdd installs its commands" [ -f .claude/commands/kiro/spec-status.md ]
timeout 120 node "$CCSDD" --claude-skills --lang en --yes --overwrite force </dev/null >"$T/sdd2.out" 2>&1
check "cc-sdd installs its skills" [ -f .claude/skills/kiro-validate-design/SKILL.md ]
nskills=$(ls .claude/skills | wc -l)
"$TANDEM" config >"$T/config.out" 2>"$T/config.err"
notices "$T/config.out" >"$T/sdd.notices"
# One notice, and true: spec-status.md's allowed-tools names "Update",
# which is no tool (Claude Code shows edits as "Update"), so it allows
# nothing.  Nothing else is named: its subagents run (sub/subtype.h).
check "cc-sdd: exactly one notice" [ "$(wc -l <"$T/sdd.notices")" -eq 1 ]
check "cc-sdd: one for the tool name Update" grep -q 'kiro/spec-status\.md: allowed-tools entry "Update"' "$T/sdd.notices"
diag "$T/sdd.notices"

# Its /spec-status command, headless: the request holds its text with the argument.
mock_start "$(scenario sdd <<'J'
{"responses":[{"text":"status shown","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p '/spec-status my-feature' --output-format events >"$T/sdd.jsonl" 2>"$T/sdd.err"
check "cc-sdd /spec-status: the run exits 0" [ $? -eq 0 ]
mock_body 1 '.messages[0].content' >"$T/sdd.msg"
check "cc-sdd /spec-status: the prompt is the command's text" grep -q 'Specification Status' "$T/sdd.msg"
check "cc-sdd /spec-status: \$1 is the argument" grep -q 'my-feature' "$T/sdd.msg"
check "cc-sdd /spec-status: no front matter in the prompt" not grep -q 'allowed-tools' "$T/sdd.msg"
notices "$T/sdd.err" >"$T/sdd.err.notices"
check "cc-sdd -p: stderr names the same two" diff "$T/sdd.notices" "$T/sdd.err.notices"

# The skills: names and descriptions in the first request, bodies on demand.
mock_start "$(scenario skills <<'J'
{"responses":[
 {"tool_uses":[{"id":"sk","name":"skill","input":{"name":"kiro-validate-design"}},
   {"id":"skf","name":"skill","input":{"name":"kiro-validate-design","file":"rules/design-review.md"}},
   {"id":"esc","name":"skill","input":{"name":"kiro-validate-design","file":"../../settings.json"}},
   {"id":"hid","name":"skill","input":{"name":"kiro-impl"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p 'validate the design' --output-format events >"$T/sk.jsonl" 2>"$T/sk.err"
check "skills: the run exits 0" [ $? -eq 0 ]
mock_body 1 '.system' >"$T/sk.sys"
desc=$(sed -n 's/^description: //p' .claude/skills/kiro-validate-design/SKILL.md)
check "skills: a description is in the system prompt" grep -qF "kiro-validate-design: ${desc:0:60}" "$T/sk.sys"
body_line=$(grep -m1 '^## ' .claude/skills/kiro-validate-design/SKILL.md)
check "skills: a body is not in the system prompt" not grep -qF "$body_line" "$T/sk.sys"
check "skills: a skill the model may not invoke is not listed" not grep -q 'kiro-impl:' "$T/sk.sys"
check "skills: the skill tool is offered" [ "$(mock_body 1 '[.tools[].name] | index("skill") != null')" = true ]
check "skills: the tool gives the body" grep -qF "$body_line" <(tool_result sk "$T/sk.jsonl")
check "skills: and lists the files beside it" grep -q 'rules/design-review.md' <(tool_result sk "$T/sk.jsonl")
check "skills: a file beside it is read on demand" [ "$(tool_result skf "$T/sk.jsonl")" = "$(cat .claude/skills/kiro-validate-design/rules/design-review.md)" ]
check "skills: a path out of the folder is refused" is_error esc "$T/sk.jsonl"
check "skills: disable-model-invocation holds" is_error hid "$T/sk.jsonl"
mock_body 1 '.' | wc -c >"$T/sk.bytes"

# 2. A Claude Code settings file with keys tandem lacks: exactly those are named.
W2="$T/keys"
mkdir -p "$W2/.claude" "$HOME/.claude" && cd "$W2"
cat >.claude/settings.json <<'J'
{"$schema": "https://json.schemastore.org/claude-code-settings.json",
 "permissions": {"allow": ["Bash(echo:*)"], "fancyMode": true},
 "outputStyle": "Explanatory",
 "spinnerTipsEnabled": false, "noSuchKey": 1, "cleanupPeriodDays": 120}
J
"$TANDEM" config >"$T/k.out" 2>"$T/k.err"
notices "$T/k.out" | sed 's/ is not honoured.*//' >"$T/k.names"
printf '%s\n' "$W2/.claude/settings.json: settings key \"permissions.fancyMode\"" \
    "$W2/.claude/settings.json: settings key \"outputStyle\"" \
    "$W2/.claude/settings.json: settings key \"spinnerTipsEnabled\"" \
    "$W2/.claude/settings.json: settings key \"noSuchKey\"" | sort >"$T/k.want"
check "settings keys: tandem config names exactly the keys tandem lacks" diff <(sort "$T/k.names") "$T/k.want"
check "settings keys: tandem config says where and why" grep -q 'outputStyle" is not honoured (tandem has no output styles)' "$T/k.out"
check "settings keys: a key tandem has is read (cleanupPeriodDays)" grep -q "^retention_days  *120  \[$W2/.claude/settings.json\]" "$T/k.out"
mock_start "$(scenario keys <<'J'
{"responses":[{"text":"hi","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p hi >"$T/kp.out" 2>"$T/kp.err"
notices "$T/kp.err" | sed 's/ is not honoured.*//' >"$T/kp.names"
check "settings keys: -p names exactly them on stderr, once each" diff <(sort "$T/kp.names") "$T/k.want"

# 3. Rules: a project's allow rule waits for trust; ~/.claude's deny applies in yolo mode.
echo '{"permissions": {"deny": ["Bash(rm:*)"]}}' >"$HOME/.claude/settings.json"
touch keep.txt
mock_start "$(scenario rules <<'J'
{"responses":[
 {"tool_uses":[{"id":"echo","name":"run_bash","input":{"command":"echo from-echo"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p go --output-format events >"$T/r1.jsonl" 2>"$T/r1.err"
check "rules: an untrusted project's allow rule is not applied" is_error echo "$T/r1.jsonl"
mock_start "$T/rules.json"
timeout 60 "$TANDEM" -p go --trust --output-format events >"$T/r2.jsonl" 2>"$T/r2.err"
check "rules: once trusted, the project's allow rule applies" [ "$(jq -r 'select(.type=="tool_result" and .id=="echo") | .is_error' "$T/r2.jsonl")" = false ]
check "rules: and the command ran" grep -q from-echo <(tool_result echo "$T/r2.jsonl")
mock_start "$(scenario rm <<'J'
{"responses":[
 {"tool_uses":[{"id":"rm","name":"run_bash","input":{"command":"rm -f keep.txt"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p go --permission-mode yolo --output-format events >"$T/r3.jsonl" 2>"$T/r3.err"
check "rules: a deny rule of ~/.claude/settings.json applies in yolo mode" is_error rm "$T/r3.jsonl"
check "rules: and nothing was removed" [ -f keep.txt ]

# 4. A command's allowed-tools hold for its turn; its !`cmd` only once trusted
# (a new project: the one above is trusted now).
W4="$T/cmds"
mkdir -p "$W4/.claude/commands/git" && cd "$W4"
cat >.claude/commands/git/tell.md <<'J'
---
description: Tell the state
allowed-tools: Bash(printf:*)
---
Branch state: !`printf 'shell-said-%s' hi`
Then run the command for $ARGUMENTS.
J
cat >.claude/commands/plain.md <<'J'
---
allowed-tools: Bash(printf:*)
---
Run printf for $ARGUMENTS.
J
"$TANDEM" config >/dev/null 2>&1
mock_start "$(scenario grant <<'J'
{"responses":[
 {"tool_uses":[{"id":"pf","name":"run_bash","input":{"command":"printf granted"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p '/tell x' --output-format events >"$T/g1.jsonl" 2>"$T/g1.err"
check "command: !\`cmd\` in an untrusted project is refused" grep -q 'once the project is trusted' "$T/g1.err"
check "command: and nothing was sent" [ "$(mock_requests)" -eq 0 ]
mock_start "$T/grant.json"
timeout 60 "$TANDEM" -p '/plain x' --output-format events >"$T/g2.jsonl" 2>"$T/g2.err"
check "command: an untrusted project's allowed-tools grant nothing" is_error pf "$T/g2.jsonl"
mock_start "$T/grant.json"
timeout 60 "$TANDEM" -p '/tell x' --trust --output-format events >"$T/g3.jsonl" 2>"$T/g3.err"
check "command: trusted, !\`cmd\`'s output is in the prompt" grep -q 'shell-said-hi' <(mock_body 1 '.messages[0].content')
check "command: trusted, its allowed-tools allow the call" grep -q granted <(tool_result pf "$T/g3.jsonl")
# A trusted project's !`cmd` still runs its code: in the sandbox when one is on.
PROBE="$top_builddir/cmd-probe.$$"
mkdir -p "$PROBE"
printf -- '---\nallowed-tools: Bash(touch:*)\n---\nTouched: !`touch %s/escaped`\n' "$PROBE" \
    >.claude/commands/touch.md
mock_start "$T/keys.json"
timeout 60 "$TANDEM" -p '/touch' --trust --sandbox workspace-write --output-format events \
    >"$T/sbx.jsonl" 2>"$T/sbx.err"
check "command: with the sandbox on, !\`cmd\` cannot write outside the workspace" [ ! -e "$PROBE/escaped" ]
check "command: ...and its refusal is in the prompt" grep -q 'cannot touch' <(mock_body 1 '.messages[0].content')
mock_start "$T/keys.json"
timeout 60 "$TANDEM" -p '/touch' --trust --output-format events >"$T/sbx2.jsonl" 2>"$T/sbx2.err"
check "command: with the sandbox off, it does" [ -e "$PROBE/escaped" ]
rm -rf "$PROBE" .claude/commands/touch.md
mock_start "$T/grant.json"
timeout 60 "$TANDEM" -p 'run printf yourself' --trust --output-format events >"$T/g4.jsonl" 2>"$T/g4.err"
check "command: outside its turn the grant is gone" is_error pf "$T/g4.jsonl"
# A subagent is not the command's turn: one whose prompt repeats the
# command's text word for word gets none of its allowed-tools.
mock_start "$(scenario subgrant <<'J'
{"check_echo":false,"responses":[
 {"match":"\"name\":\"agent\"","match_last":"Run printf for x.",
  "tool_uses":[{"id":"ag","name":"agent","input":{"description":"echo it","prompt":"Run printf for x.","subagent_type":"general-purpose"}}],"stop_reason":"tool_use"},
 {"match_last":"Run printf for x.",
  "tool_uses":[{"id":"sp","name":"run_bash","input":{"command":"printf 'sub%s' granted"}}],"stop_reason":"tool_use"},
 {"match_last":"\"tool_use_id\":\"sp\"","text":"sub done"},
 {"match_last":"sub done","text":"all done"}]}
J
)"
timeout 60 "$TANDEM" -p '/plain x' --trust --output-format events >"$T/g5.jsonl" 2>"$T/g5.err"
check "command: the subagent's call was asked of no one and refused" grep -q '"tool_use_id":"sp"[^}]*"is_error":true' "$MOCK_LOG"
check "command: a subagent repeating the command's text is granted nothing" not grep -q 'subgranted' "$MOCK_LOG"
# @file in a command is read as in a typed prompt.
printf -- '---\ndescription: Sum up\n---\nSum up @notes.txt for $1.\n' >.claude/commands/sumup.md
echo 'ATTACHED-CONTENT' >notes.txt
mock_start "$T/keys.json"
timeout 60 "$TANDEM" -p '/sumup Ann' --output-format events >"$T/at.jsonl" 2>"$T/at.err"
check "command: @file brings the file" grep -q ATTACHED-CONTENT <(mock_body 1 '.messages[0].content | tostring')
# A skill's allowed-tools: from the moment the model loads it, in a trusted project only.
mkdir -p .claude/skills/pf
printf -- '---\nname: pf\ndescription: Print things\nallowed-tools: Bash(printf:*)\n---\nUse printf.\n' \
    >.claude/skills/pf/SKILL.md
jq -n '{responses: [
 {tool_uses: [{id: "before", name: "run_bash", input: {command: "printf early"}}], stop_reason: "tool_use"},
 {tool_uses: [{id: "load", name: "skill", input: {name: "pf"}}], stop_reason: "tool_use"},
 {tool_uses: [{id: "after", name: "run_bash", input: {command: "printf skill-granted"}}], stop_reason: "tool_use"},
 {text: "done", stop_reason: "end_turn"}]}' >"$T/skg.json"
mock_start "$T/skg.json"
timeout 60 "$TANDEM" -p 'print' --output-format events >"$T/s1.jsonl" 2>"$T/s1.err"
check "skill grant: nothing before the skill is loaded" is_error before "$T/s1.jsonl"
check "skill grant: its allowed-tools allow once it is" grep -q skill-granted <(tool_result after "$T/s1.jsonl")
W9="$T/untrusted-skill"
mkdir -p "$W9/.claude/skills" && cp -r .claude/skills/pf "$W9/.claude/skills/" && cd "$W9"
mock_start "$T/skg.json"
timeout 60 "$TANDEM" -p 'print' --output-format events >"$T/s2.jsonl" 2>"$T/s2.err"
check "skill grant: an untrusted project's skill grants nothing" is_error after "$T/s2.jsonl"
cd "$W4"
"$TANDEM" config >/dev/null 2>&1

# 5. Claude Code's memory files.
W5="$T/mem"
mkdir -p "$W5/.claude/rules" && cd "$W5"
echo 'RULE-ALPHA' >.claude/rules/a.md
echo 'PROJECT-CLAUDE-DIR' >.claude/CLAUDE.md
echo 'LOCAL-NOTES' >CLAUDE.local.md
echo 'USER-CLAUDE' >"$HOME/.claude/CLAUDE.md"
echo '{}' >"$HOME/.claude/settings.json"
mock_start "$(scenario mem <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p hi >/dev/null 2>"$T/m.err"
mock_body 1 '.system' >"$T/m.sys"
for w in RULE-ALPHA PROJECT-CLAUDE-DIR LOCAL-NOTES USER-CLAUDE; do
	check "memory: $w is in the system prompt" grep -q "$w" "$T/m.sys"
done
# A nested CLAUDE.md: loaded with the result of the first call that works in its folder.
mkdir -p pkg/deep
echo 'NESTED-MEMORY see @extra.md' >pkg/CLAUDE.md
echo 'NESTED-IMPORT' >pkg/extra.md
echo 'content' >pkg/deep/a.txt
mock_start "$(scenario nested <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"pkg/deep/a.txt"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"r2","name":"list_dir","input":{"path":"pkg"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p go --output-format events >"$T/n.jsonl" 2>"$T/n.err"
check "nested memory: not in the system prompt" not grep -q NESTED-MEMORY <(mock_body 1 '.system')
check "nested memory: with the first result in its folder" grep -q NESTED-MEMORY <(tool_result r1 "$T/n.jsonl")
check "nested memory: with its imports" grep -q NESTED-IMPORT <(tool_result r1 "$T/n.jsonl")
check "nested memory: once" not grep -q NESTED-MEMORY <(tool_result r2 "$T/n.jsonl")

# 6. Precedence of a single value: at each scope tandem's own file wins over
# Claude Code's; the project's over the user's.  Each project model is
# cheaper than the one before it (a dearer one waits for trust).
W6="$T/prec"
mkdir -p "$W6/.claude" "$W6/.tandem" "$XDG_CONFIG_HOME/tandem" && cd "$W6"
echo '{"model": "claude-cc-user-1", "max_tokens": 111}' >"$HOME/.claude/settings.json"
echo '{"model": "claude-opus-4-1-tandem-user"}' >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" config >"$T/p1.out" 2>&1
check "precedence: tandem's user file over ~/.claude's" grep -q '^model  *claude-opus-4-1-tandem-user ' "$T/p1.out"
check "precedence: ~/.claude's value where tandem's says nothing" grep -q "^max_tokens  *111  \[$HOME/.claude/settings.json\]" "$T/p1.out"
echo '{"model": "claude-sonnet-4-cc-project"}' >.claude/settings.json
"$TANDEM" config >"$T/p2.out" 2>&1
check "precedence: the project's .claude over the user's files" grep -q '^model  *claude-sonnet-4-cc-project ' "$T/p2.out"
echo '{"model": "claude-haiku-4-tandem-project"}' >.tandem/settings.json
"$TANDEM" config >"$T/p3.out" 2>&1
check "precedence: the project's .tandem over its .claude" grep -q '^model  *claude-haiku-4-tandem-project ' "$T/p3.out"

# A project can only tighten the sandbox: its "enabled": false leaves the user's on.
W8="$T/sbx"
mkdir -p "$W8/.claude" && cd "$W8"
echo '{"sandbox": {"enabled": true}}' >"$HOME/.claude/settings.json"
echo '{"sandbox": {"enabled": false}}' >.claude/settings.json
"$TANDEM" config >"$T/sb.out" 2>&1
check "sandbox: the project's enabled: false leaves ~/.claude's on" grep -q "^sandbox.mode  *workspace-write  \[$HOME/.claude/settings.json\]" "$T/sb.out"
echo '{}' >"$HOME/.claude/settings.json"
echo '{"sandbox": {"enabled": true}}' >.claude/settings.json
"$TANDEM" config >"$T/sb2.out" 2>&1
check "sandbox: a project may turn it on" grep -q "^sandbox.mode  *workspace-write  \[$W8/.claude/settings.json\]" "$T/sb2.out"
cd "$W6"

# 7. The user's MCP servers in ~/.claude.json: its own scope and this project's entry.
jq -n --arg root "$W6" '{numStartups: 3, mcpServers: {fromclaude: {command: "/nonexistent/one"}},
  projects: {($root): {mcpServers: {localone: {command: "/nonexistent/two"}}}, "/elsewhere": {mcpServers: {other: {command: "x"}}}}}' \
    >"$HOME/.claude.json"
timeout 60 "$TANDEM" mcp list >"$T/mcp.out" 2>&1
check "~/.claude.json: the user's server is configured" grep -q "^fromclaude: .*from $HOME/.claude.json" "$T/mcp.out"
check "~/.claude.json: this project's local server too" grep -q '^localone: ' "$T/mcp.out"
check "~/.claude.json: not another project's" not grep -q '^other: ' "$T/mcp.out"
finish
