#!/bin/bash
# Subagents through the real binary against the mock: two Explore
# subagents of one response run at once (their searches interleave) and
# each answer comes back to its own call; a type from .claude/agents
# gets its own system prompt and only its tools, and a tool it may not
# use is refused even in yolo mode.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
printf 'int ALPHA_MARK = 1;\n' >alpha.c
printf 'int BETA_MARK = 2;\n' >beta.c
printf 'int main(void) { return 0; }\n' >hello.c

scen=$(scenario two <<'J'
{"responses":[
 {"match_last":"find both marks","text":"Asking two subagents.","tool_uses":[
   {"id":"toolu_A","name":"agent","input":{"description":"find alpha","prompt":"Find where ALPHA_MARK is defined.","subagent_type":"Explore"}},
   {"id":"toolu_B","name":"agent","input":{"description":"find beta","prompt":"Find where BETA_MARK is defined.","subagent_type":"Explore"}}],
  "stop_reason":"tool_use"},
 {"match_last":"Find where ALPHA_MARK is defined.","first_byte_delay_ms":300,
  "expect_contains":["search subagent"],"expect_absent":["\"name\":\"run_bash\"","\"name\":\"edit_file\"","\"name\":\"agent\""],
  "tool_uses":[{"id":"toolu_a1","name":"grep","input":{"pattern":"ALPHA_MARK","output_mode":"content"}}],"stop_reason":"tool_use"},
 {"match_last":"Find where BETA_MARK is defined.","first_byte_delay_ms":300,
  "tool_uses":[{"id":"toolu_b1","name":"grep","input":{"pattern":"BETA_MARK","output_mode":"content"}}],"stop_reason":"tool_use"},
 {"match_last":"ALPHA_MARK = 1","text":"ALPHA is in alpha.c, line 1."},
 {"match_last":"BETA_MARK = 2","text":"BETA is in beta.c, line 1."},
 {"match_last":["ALPHA is in alpha.c","BETA is in beta.c"],"text":"Both found."}
],"require_all":true}
J
)
mock_start "$scen"
"$TANDEM" -p "find both marks" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "the run exits 0" [ $? -eq 0 ]
diag "$T/err"
check "the mock saw six requests, none with a problem" [ "$(mock_requests)" -eq 6 ] && [ "$(mock_problems)" -eq 0 ]
# interleaved: both subagents asked before either got its first answer back
order=$(jq -r '.body.messages[0].content | if type=="string" then . else .[0].text end' "$MOCK_LOG" | cut -c1-24 | tr '\n' '|')
check "the searches interleave (both first requests before either's second)" \
    [ "$(jq -r '.body.messages | length' "$MOCK_LOG" | tr '\n' ' ')" = "1 1 1 3 3 3 " ]
echo "# order: $order"
check "the agent tool with the built-in types adds under 800 bytes to the first request" \
    [ "$(sed -n 1p "$MOCK_LOG" | jq -c '.body.tools[] | select(.name=="agent")' | wc -c)" -lt 800 ]
check "the parent's first request, agent tool and all, is under 12 KB (DESIGN.md 13)" \
    [ "$(sed -n 1p "$MOCK_LOG" | jq .body_bytes)" -lt 12288 ]
check "Explore asks the fast model; the parent its own" \
    [ "$(jq -r '.body.model' "$MOCK_LOG" | tr '\n' ' ')" = "$(mock_body 1 .model | tr -d '"') claude-haiku-4-5 claude-haiku-4-5 claude-haiku-4-5 claude-haiku-4-5 $(mock_body 1 .model | tr -d '"') " ]
a=$(jq -r 'select(.type=="tool_result" and .id=="toolu_A") | .content' "$T/out.jsonl")
b=$(jq -r 'select(.type=="tool_result" and .id=="toolu_B") | .content' "$T/out.jsonl")
check "alpha's answer is alpha's call's" grep -q 'ALPHA is in alpha.c' <<<"$a"
check "beta's answer is beta's call's" grep -q 'BETA is in beta.c' <<<"$b"
check "and not the other's" not grep -q 'BETA' <<<"$a"
check "a result carries a line of its cost" grep -q 'Explore subagent: end_turn, 2 model calls, [0-9]* tokens, \$' <<<"$a"
check "the parent's second request answers each call with its own" \
    [ "$(mock_body 6 '[.messages[2].content[] | select(.type=="tool_result") | .tool_use_id] | join(",")')" = '"toolu_A,toolu_B"' ]
check "subagent events name their parent call" \
    [ "$(jq -r 'select(.type=="subagent" and .state=="tool") | .parent_tool_use_id' "$T/out.jsonl" | sort | tr '\n' ' ')" = "toolu_A toolu_B " ]
check "the subagent's calls show as its call's progress" \
    grep -q 'Explore · Grep' <(jq -r 'select(.type=="tool_progress" and .id=="toolu_A") | .output' "$T/out.jsonl")
check "the answer is the parent's" [ "$(jq -r 'select(.type=="result") | .text' "$T/out.jsonl")" = "Both found." ]
log=$(ls "$TANDEM_HOME"/sessions/*/log.jsonl | head -1)
check "each subagent's conversation is in the session's log with its parent call" \
    [ "$(jq -r 'select(.k=="subagent" and .state=="end") | "\(.parent):\(.turn)"' "$log" | sort | tr '\n' ' ')" = "toolu_A:1 toolu_B:1 " ]
check "its messages went there one by one, as they were said, with their parent call" \
    [ "$(jq -r 'select(.k=="submsg") | "\(.parent):\(.role):\(.turn)"' "$log" | sort | uniq -c | awk '{ printf "%s*%s ", $1, $2 }')" = "2*toolu_A:assistant:1 2*toolu_A:user:1 2*toolu_B:assistant:1 2*toolu_B:user:1 " ]
check "each before its subagent's end" \
    [ "$(jq -r 'select((.k=="submsg" or .k=="subagent") and .parent=="toolu_A") | .k + (.state // "")' "$log" | tr '\n' ' ')" = "subagentstart submsg submsg submsg submsg subagentend " ]
check "and only the parent's messages are the conversation's" \
    [ "$(grep -c '"k":"msg"' "$log")" -eq 4 ]
check "a subagent starts after the checkpoint that names its call" \
    [ "$(jq -r 'select(.k=="subagent" or (.k=="msg" and .role=="assistant")) | .k' "$log" | head -1)" = msg ]

# A project type from .claude/agents: its prompt, only its tools, the rest refused.
mkdir -p .claude/agents
cat >.claude/agents/reviewer.md <<'MD'
---
name: code-reviewer
description: Reviews code for bugs. Use after a change.
tools: Read, Grep, Glob
disallowedTools: Bash
model: inherit
---
You are a meticulous reviewer of C code. Report bugs only.
MD
scen=$(scenario custom <<'J'
{"responses":[
 {"match_last":"review it","tool_uses":[
   {"id":"toolu_R","name":"Task","input":{"description":"review hello","prompt":"Review hello.c for bugs.","subagent_type":"code-reviewer"}}],
  "stop_reason":"tool_use"},
 {"match_last":"Review hello.c for bugs.","expect_contains":["meticulous reviewer of C code","\"name\":\"read_file\""],
  "expect_absent":["\"name\":\"run_bash\"","\"name\":\"list_dir\"","\"name\":\"edit_file\""],
  "tool_uses":[{"id":"toolu_r1","name":"run_bash","input":{"command":"echo pwned > pwned.txt"}}],"stop_reason":"tool_use"},
 {"match_last":["may not use Bash","\"is_error\":true"],"text":"I could not run Bash; hello.c has no bugs."},
 {"match_last":"I could not run Bash","text":"Reviewed."}
],"require_all":true}
J
)
mock_start "$scen"
"$TANDEM" -p "review it" --permission-mode yolo --output-format events >"$T/out2.jsonl" 2>"$T/err2"
check "the custom run exits 0" [ $? -eq 0 ]
diag "$T/err2"
check "the mock saw four requests, none with a problem" [ "$(mock_requests)" -eq 4 ] && [ "$(mock_problems)" -eq 0 ]
check "the disallowed command never ran" [ ! -e pwned.txt ]
check "model: inherit is the session's model" [ "$(mock_body 2 .model)" = "$(mock_body 1 .model)" ]
check "its refusal was a denial" \
    [ "$(jq -r 'select(.type=="subagent" and .state=="tool_result") | .event.denied' "$T/out2.jsonl")" = true ]
check "the reviewer's answer reached the Task call" \
    grep -q 'hello.c has no bugs' <(jq -r 'select(.type=="tool_result" and .id=="toolu_R") | .content' "$T/out2.jsonl")
check "its cost line names the type" \
    grep -q 'code-reviewer subagent' <(jq -r 'select(.type=="tool_result" and .id=="toolu_R") | .content' "$T/out2.jsonl")

# Hooks in Claude Code's contract: SubagentStart (its additionalContext
# joins the subagent's prompt) and SubagentStop for the subagent, matched
# on its type; UserPromptSubmit and Stop for the parent only.
mkdir -p "$XDG_CONFIG_HOME/tandem" "$T/hooks"
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<JSON
{"hooks": {
 "SubagentStart": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "cat >$T/hooks/start.json; echo '{\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"SubagentStart\\", \\"additionalContext\\": \\"HOOK-CONTEXT-42\\"}}'"}]}],
 "SubagentStop": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "cat >>$T/hooks/stop.jsonl; echo >>$T/hooks/stop.jsonl"}]}],
 "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >>$T/hooks/prompt.jsonl; echo >>$T/hooks/prompt.jsonl"}]}],
 "Stop": [{"hooks": [{"type": "command", "command": "cat >>$T/hooks/mainstop.jsonl; echo >>$T/hooks/mainstop.jsonl"}]}]
}}
JSON
scen=$(scenario hooks <<'J'
{"responses":[
 {"match_last":"hooked search","tool_uses":[
   {"id":"toolu_H","name":"agent","input":{"description":"hooked","prompt":"Search with hooks.","subagent_type":"Explore"}}]},
 {"match_last":["Search with hooks.","HOOK-CONTEXT-42"],"text":"Searched with hooks."},
 {"match_last":"Searched with hooks.","text":"Hooks done."}
],"require_all":true}
J
)
mock_start "$scen"
"$TANDEM" -p "hooked search" --output-format events >"$T/hooks.jsonl" 2>"$T/hooks.err"
check "hooks: the run exits 0" [ $? -eq 0 ]
diag "$T/hooks.err"
check "hooks: SubagentStart's context reached the subagent" [ "$(mock_problems)" -eq 0 ] && [ "$(mock_requests)" -eq 3 ]
check "hooks: SubagentStart got agent_id and agent_type" \
    [ "$(jq -r '"\(.hook_event_name) \(.agent_id) \(.agent_type)"' "$T/hooks/start.json")" = "SubagentStart toolu_H Explore" ]
check "hooks: SubagentStop ran once, with the subagent's answer" \
    [ "$(jq -r 'select(.hook_event_name) | "\(.hook_event_name) \(.agent_type) \(.last_assistant_message)"' "$T/hooks/stop.jsonl")" = "SubagentStop Explore Searched with hooks." ]
check "hooks: UserPromptSubmit saw the user's prompt only" \
    [ "$(jq -r 'select(.prompt) | .prompt' "$T/hooks/prompt.jsonl")" = "hooked search" ]
check "hooks: Stop ran for the parent only" [ "$(jq -r 'select(.hook_event_name) | .hook_event_name' "$T/hooks/mainstop.jsonl")" = Stop ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# A background subagent: the call returns at once with agent_1; bash_output
# shows it running, then its answer; kill_shell stops another.
scen=$(scenario bg <<'J'
{"responses":[
 {"match_last":"search in the background","tool_uses":[
   {"id":"toolu_G","name":"agent","input":{"description":"bg search","prompt":"Search slowly.","subagent_type":"Explore","run_in_background":true}},
   {"id":"toolu_G2","name":"agent","input":{"description":"bg forever","prompt":"Search forever.","subagent_type":"Explore","run_in_background":true}}]},
 {"match_last":"Search slowly.","first_byte_delay_ms":600,"text":"Slow search found it."},
 {"match_last":"Search forever.","first_byte_delay_ms":20000,"text":"never"},
 {"match_last":"runs in the background as agent_1","tool_uses":[{"id":"toolu_o1","name":"bash_output","input":{"shell_id":"agent_1"}}]},
 {"match_last":"agent_1 (Explore: bg search) is still running","tool_uses":[{"id":"toolu_w1","name":"run_bash","input":{"command":"sleep 1"}}]},
 {"match_last":"toolu_w1","tool_uses":[{"id":"toolu_o2","name":"bash_output","input":{"shell_id":"agent_1"}},{"id":"toolu_k2","name":"kill_shell","input":{"shell_id":"agent_2"}}]},
 {"match_last":["agent_1 ended","Slow search found it.","agent_2 (Explore: bg forever) is stopped"],"text":"Background done."}
],"require_all":true}
J
)
mock_start "$scen"
"$TANDEM" -p "search in the background" --permission-mode yolo --output-format events >"$T/bg.jsonl" 2>"$T/bg.err"
check "background: the run exits 0" [ $? -eq 0 ]
diag "$T/bg.err"
check "background: every response served, no problem" [ "$(mock_problems)" -eq 0 ]
check "background: the call returned before the subagent answered" \
    [ "$(jq -r 'select(.type=="tool_result" and .id=="toolu_G") | .duration_ms' "$T/bg.jsonl")" -lt 500 ]
check "background: the answer is the parent's" [ "$(jq -r 'select(.type=="result") | .text' "$T/bg.jsonl")" = "Background done." ]

# Depth: a type whose tools list Agent may start subagents; theirs may not.
mkdir -p .claude/agents
printf -- '---\nname: nester\ndescription: starts others\ntools: Read, Agent\n---\nYou nest.\n' >.claude/agents/nester.md
scen=$(scenario nest <<'J'
{"responses":[
 {"match_last":"go nest","tool_uses":[{"id":"toolu_N","name":"agent","input":{"description":"nest","prompt":"Nest once.","subagent_type":"nester"}}]},
 {"match_last":"Nest once.","expect_contains":"\"name\":\"agent\"","tool_uses":[{"id":"toolu_N2","name":"agent","input":{"description":"inner","prompt":"Inner search.","subagent_type":"Explore"}}]},
 {"match_last":"Inner search.","expect_absent":"\"name\":\"agent\"","tool_uses":[{"id":"toolu_N3","name":"agent","input":{"description":"deeper","prompt":"Deeper.","subagent_type":"Explore"}}]},
 {"match_last":["may not use Agent","\"is_error\":true"],"text":"inner answer"},
 {"match_last":"inner answer","text":"nester answer"},
 {"match_last":"nester answer","text":"top answer"}
],"require_all":true}
J
)
mock_start "$scen"
"$TANDEM" -p "go nest" --permission-mode yolo --output-format events >"$T/nest.jsonl" 2>"$T/nest.err"
check "depth: the run exits 0" [ $? -eq 0 ]
check "depth: nester started an Explore, which could not start another" \
    [ "$(mock_requests)" -eq 6 ] && [ "$(mock_problems)" -eq 0 ]
check "depth: the answer came up both levels" [ "$(jq -r 'select(.type=="result") | .text' "$T/nest.jsonl")" = "top answer" ]
rm -f .claude/agents/nester.md

# SIGKILL while a subagent's command runs, then resume: the command ran
# once, the parent's call got a result, the conversation is valid.
scen=$(scenario kill <<'J'
{"check_echo":false,"responses":[
 {"match_last":"run the slow step","tool_uses":[
   {"id":"toolu_K","name":"agent","input":{"description":"slow step","prompt":"Run the slow step.","subagent_type":"general-purpose"}}]},
 {"match_last":"Run the slow step.","tool_uses":[
   {"id":"toolu_k1","name":"run_bash","input":{"command":"echo ran >>count; touch started; sleep 30"}}]},
 {"match_last":"go on","text":"Resumed after the kill."}
]}
J
)
mock_start "$scen"
rm -f count started
"$TANDEM" -p "run the slow step" --permission-mode yolo >/dev/null 2>"$T/err3" &
pid=$!
i=0
while [ ! -e started ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "the subagent's command started" [ -e started ]
kill -9 "$pid"
wait "$pid" 2>/dev/null
"$TANDEM" -c -p "go on" --permission-mode yolo --output-format events >"$T/resume.jsonl" 2>"$T/resume.err"
check "resume exits 0" [ $? -eq 0 ]
diag "$T/resume.err"
check "the command ran once" [ "$(wc -l <count)" -eq 1 ]
check "the resumed turn answers" [ "$(jq -r 'select(.type=="result") | .text' "$T/resume.jsonl")" = "Resumed after the kill." ]
last=$(sed -n '$p' "$MOCK_LOG")
check "the parent's agent call has its one result, saying it was cut off" \
    [ "$(jq -r '[.body.messages[] | select(.role=="user") | .content[]? | select(.type=="tool_result" and .tool_use_id=="toolu_K")] | length' <<<"$last")" -eq 1 ]
check "which says its state is unknown" \
    grep -q 'interrupted' <(jq -r '.body.messages[] | select(.role=="user") | .content[]? | select(.type=="tool_result" and .tool_use_id=="toolu_K") | .content' <<<"$last")
check "the mock found the resumed conversation valid" [ "$(mock_problems)" -eq 0 ]
sess=$(ls -dt "$TANDEM_HOME"/sessions/*/ | head -1)
check "the subagent's command is in the ledger, not to run again" \
    grep -q '"toolu_k1"' "$sess/effects.jsonl"
check "what the subagent had done before the kill is in the log with its parent call" \
    [ "$(jq -r 'select(.k=="submsg" and .parent=="toolu_K") | .role + ":" + ([.content[] | .type] | join(","))' "$sess/log.jsonl" | head -2 | tr '\n' ' ')" = "user:text assistant:tool_use " ]

# The session's other tools: Explore may fetch and search the web (and
# query the code tool), as Claude Code's may; a type's tools: list gives
# WebFetch alone, its disallowedTools: takes the web away.
needs_node "$top_srcdir/tests/it/webserve.mjs" "the web test server"
WEB_LOG="$T/web.log"
: >"$WEB_LOG"
node "$top_srcdir/tests/it/webserve.mjs" "$T/web.port" "$WEB_LOG" 2>"$T/web.err" &
WEB_PID=$!
i=0
while [ ! -s "$T/web.port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
W="http://docs.test:$(cat "$T/web.port")"
mkdir -p .claude/agents
printf -- '---\nname: fetcher\ndescription: fetches pages\ntools: Read, WebFetch\n---\nYou fetch.\n' >.claude/agents/fetcher.md
printf -- '---\nname: noweb\ndescription: works offline\ndisallowedTools: WebFetch, WebSearch\n---\nYou stay offline.\n' >.claude/agents/noweb.md
scen=$(scenario web <<J
{"responses":[
 {"match_last":"read the manual","tool_uses":[
   {"id":"toolu_W","name":"agent","input":{"description":"read manual","prompt":"Read the bzip2 manual.","subagent_type":"Explore"}},
   {"id":"toolu_F","name":"agent","input":{"description":"fetcher","prompt":"Fetch nothing yet.","subagent_type":"fetcher"}},
   {"id":"toolu_O","name":"agent","input":{"description":"offline","prompt":"Stay offline.","subagent_type":"noweb"}}]},
 {"match_last":"Read the bzip2 manual.","expect_contains":["\"name\":\"web_fetch\"","\"name\":\"web_search\""],
  "expect_absent":["\"name\":\"run_bash\"","\"name\":\"edit_file\""],
  "tool_uses":[{"id":"toolu_wf","name":"web_fetch","input":{"url":"$W/bzip2.html"}}]},
 {"match_last":"Fetch nothing yet.","expect_contains":"\"name\":\"web_fetch\"","expect_absent":["\"name\":\"web_search\"","\"name\":\"grep\""],
  "text":"fetcher ready"},
 {"match_last":"Stay offline.","expect_contains":"\"name\":\"run_bash\"","expect_absent":["\"name\":\"web_fetch\"","\"name\":\"web_search\""],
  "text":"offline ready"},
 {"match_last":"bzip2 and libbzip2, version 1.0.8","text":"The manual is for bzip2 1.0.8."},
 {"match_last":["The manual is for bzip2 1.0.8.","fetcher ready","offline ready"],"text":"Read through a subagent."}
],"require_all":true}
J
)
mock_start "$scen"
# a name: the gate looks it up first, and the subagent's call waits for that
TANDEM_WEB_TEST_LOOPBACK=1 TANDEM_WEB_TEST_RESOLVE="docs.test=127.0.0.1" \
    timeout 60 "$TANDEM" -p "read the manual" --allow 'WebFetch(domain:docs.test)' \
    --output-format events >"$T/web.jsonl" 2>"$T/web.stderr"
check "web: the run exits 0" [ $? -eq 0 ]
diag "$T/web.stderr"
check "web: Explore had the web tools, fetcher WebFetch alone, noweb none" \
    [ "$(mock_requests)" -eq 6 ] && [ "$(mock_problems)" -eq 0 ]
check "web: Explore's fetch reached the server" grep -qF '"url":"/bzip2.html"' "$WEB_LOG"
check "web: the answer came up" [ "$(jq -r 'select(.type=="result") | .text' "$T/web.jsonl")" = "Read through a subagent." ]
kill "$WEB_PID" 2>/dev/null
rm -f .claude/agents/fetcher.md .claude/agents/noweb.md

# Real material: the Claude Code agent definitions cc-sdd ships (tests/npm)
# load, are listed to the model and run with their tools.
CC_SDD=${CC_SDD_DIR:-$top_srcdir/tests/npm/node_modules/cc-sdd}/templates/agents/claude-code-agent/agents
if [ -f "$CC_SDD/validate-design.md" ]; then
	rm -rf .claude/agents && mkdir -p .claude/agents && cp "$CC_SDD"/*.md .claude/agents/
	scen=$(scenario sdd <<'J'
{"responses":[
 {"match_last":"review the design","expect_contains":["validate-design-agent: Interactive technical design quality review","spec-tdd-impl-agent: Execute implementation tasks"],
  "tool_uses":[{"id":"toolu_D","name":"Agent","input":{"description":"validate design","prompt":"Validate the design of feature demo.","subagent_type":"validate-design-agent"}}]},
 {"match_last":"Validate the design of feature demo.","expect_contains":["interactive quality review of technical design","\"name\":\"read_file\"","\"name\":\"grep\"","\"name\":\"glob\""],
  "expect_absent":["\"name\":\"run_bash\"","\"name\":\"edit_file\"","\"name\":\"write_file\""],"text":"GO: the design is ready."},
 {"match_last":"GO: the design is ready.","text":"The design passed."}
],"require_all":true}
J
)
	mock_start "$scen"
	"$TANDEM" -p "review the design" --output-format events >"$T/sdd.jsonl" 2>"$T/sdd.err"
	check "cc-sdd: the run exits 0" [ $? -eq 0 ]
	diag "$T/sdd.err"
	check "cc-sdd: its nine agents load, are listed, and one runs with its tools only" \
	    [ "$(mock_requests)" -eq 3 ] && [ "$(mock_problems)" -eq 0 ]
	check "cc-sdd: no definition was refused" not grep -q 'agent definition' "$T/sdd.err"
	check "cc-sdd: the answer came back" [ "$(jq -r 'select(.type=="result") | .text' "$T/sdd.jsonl")" = "The design passed." ]
else
	fail "cc-sdd is installed in tests/npm (npm ci in tests/npm; the ccset branch adds it)"
fi

# The official Agent SDK sees the subagents' messages under their calls.
SDK="$top_srcdir/tests/npm/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs"
needs_node "$SDK" "the Agent SDK"
mock_start "$T/two.json"
export SDK_PATH="$SDK" TANDEM WS="$T/ws"
node_tap "$top_srcdir/tests/it/subsdk.mjs"
check "sdk: the mock found no problem" [ "$(mock_problems)" -eq 0 ]

# ACP: each agent call is a tool call, its subagent's calls its progress.
ACP="$top_srcdir/tests/npm/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js"
needs_node "$ACP" "the ACP SDK"
mock_start "$T/two.json"
export ACP_PATH="$ACP"
node_tap "$top_srcdir/tests/it/acp.mjs" sub
check "acp: the mock found no problem" [ "$(mock_problems)" -eq 0 ]
# A second process loads that session: the subagents' calls come again as their calls' progress.
node_tap "$top_srcdir/tests/it/acp.mjs" subload "$(sed -n 's/^# SESSION //p' "$T/node.out")"
# stream-json replays no earlier turn on resume, the main conversation's or a subagent's.
mock_start "$(scenario sjresume <<'J'
{"responses":[{"match_last":"once more","text":"Once more, done."}],"require_all":true}
J
)"
"$TANDEM" -c -p "once more" --output-format stream-json >"$T/sjr.jsonl" 2>"$T/sjr.err"
check "sjson resume: the run exits 0" [ $? -eq 0 ]
check "sjson resume: the resumed session's request had the subagents' answers" \
    grep -q 'ALPHA is in alpha.c' <(sed -n 1p "$MOCK_LOG")
check "sjson resume: no message of the earlier turn, the subagents' none either" \
    [ "$(jq -s '[.[] | select(.parent_tool_use_id != null or (tostring | test("toolu_A|Both found")))] | length' "$T/sjr.jsonl")" -eq 0 ]
check "sjson resume: the new answer came" grep -q 'Once more, done.' "$T/sjr.jsonl"
finish
