#!/bin/sh
# Screen test of subagents with the real tandem and the mock model: the
# agent call shows its subagent's calls live under it; the subagent's edit
# asks in the TUI, saying which subagent asks; approved, it applies and
# the parent answers; /agents lists the types and where each came from;
# rewinding the parent's turn in the turn browser undoes the subagent's
# edit too; the agent call expands to its subagent's transcript (Ctrl+O); after a
# SIGKILL mid-subagent, the resumed transcript and turn browser show what it did.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario sub <<'J'
{"responses":[
 {"match_last":"fix the typo please","text":"Handing it to a subagent.","tool_uses":[
   {"id":"toolu_P","name":"agent","input":{"description":"fix typo","prompt":"Fix the typo teh in notes.txt.","subagent_type":"general-purpose"}}]},
 {"match_last":"Fix the typo teh in notes.txt.","tool_uses":[
   {"id":"toolu_s1","name":"edit_file","input":{"path":"notes.txt","old_string":"teh","new_string":"the"}}]},
 {"match_last":"toolu_s1","text":"Fixed the typo in notes.txt."},
 {"match_last":"Fixed the typo in notes.txt.","text":"SUBAGENT-DID-IT","stop_reason":"end_turn"},
 {"match_last":"a slow job","tool_uses":[
   {"id":"toolu_Q","name":"agent","input":{"description":"slow","prompt":"Do the slow job.","subagent_type":"Explore"}}]},
 {"match_last":"Do the slow job.","first_byte_delay_ms":20000,"text":"too late"},
 {"match_last":"start a background one","tool_uses":[
   {"id":"toolu_BG","name":"agent","input":{"description":"bg","prompt":"Look in the background.","subagent_type":"Explore","run_in_background":true}}]},
 {"match_last":"Look in the background.","first_byte_delay_ms":300,"text":"BG-ANSWER"},
 {"match_last":"runs in the background as agent_1","text":"STARTED-IN-BACKGROUND"},
 {"match_last":["what did it find","BG-ANSWER","background subagent agent_1"],"text":"IT-FOUND-BG"},
 {"match_last":"Start the model job.","tool_uses":[
   {"id":"toolu_MJ","name":"agent","input":{"description":"model job","prompt":"Work on the model job.","subagent_type":"general-purpose","run_in_background":true}}]},
 {"match_last":"Work on the model job.","first_byte_delay_ms":800,"tool_uses":[
   {"id":"toolu_mj1","name":"read_file","input":{"path":"notes.txt"}}]},
 {"match_last":"runs in the background as agent_2","text":"MODELJOB-STARTED"},
 {"match_last":"toolu_mj1","text":"MODELJOB-DONE"},
 {"match_last":"and now","text":"AND-NOW"},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
tui_mock_start "$SCEN"
printf 'fix teh typo\n' >"$TUI_WS/notes.txt"
mkdir -p "$TUI_WS/.claude/agents"
cat >"$TUI_WS/.claude/agents/reviewer.md" <<'MD'
---
name: code-reviewer
description: Reviews code for bugs.
tools: Read, Grep
---
You review code.
MD

file_is() {
	printf '%s\n' "$2" >"$TUI_TMP/want"
	cmp -s "$1" "$TUI_TMP/want"
}

tui_start_tandem 100 30
tui_check "tandem is up" 'for keys'
tui_type "fix the typo please"
tui_keys Enter
tui_check "the subagent's edit asks" 'Apply this edit to notes\.txt\?'
tui_check "saying which subagent asks" 'general-purpose: fix typo subagent asks'
tui_check "the agent call shows its subagent's call live" 'general-purpose · Edit'
tui_check "the transcript shows the running subagent as a live line under its call" \
    '└ general-purpose · edit_file notes\.txt · 1 model call, [0-9]+ tokens'
tui_keys y
tui_check "approved, the parent answers with the subagent's work" 'SUBAGENT-DID-IT'
tui_check "the agent call says how to see its subagent's transcript" \
    "… its subagent's transcript: 1 call \(Ctrl\+O to expand\)"
tui_keys C-o
tui_check "Ctrl+O shows the subagent's call as the transcript shows calls" '^    ● edit_file notes\.txt'
tui_check "with its result and its diff" '^      └ edited notes\.txt'
tui_check "and the subagent's own text" '^    Fixed the typo in notes\.txt\.'
tui_keys C-o
tui_gone "Ctrl+O again folds it" '^    ● edit_file notes\.txt'
file_is "$TUI_WS/notes.txt" "fix the typo"
tui_ok $? "the subagent's edit applied"

tui_type "/cost"
tui_keys Enter
tui_check "/cost shows the subagents apart" 'Subagents: 1 run, [0-9]+ tokens, \$[0-9.]+ \(in the cost above\)'

tui_type "/agents"
tui_keys Enter
tui_check "/agents lists the built-in types" 'Explore  \(built-in\)'
tui_check "and the project's, with its file" 'code-reviewer  \(.*\.claude/agents/reviewer\.md\)'

tui_keys C-t
tui_check "the turn browser opens" '─ turns ─'
tui_check "it lists the subagent's tools and files in the parent's turn" \
    'agent, edit_file \(general-purpose\)  files: notes\.txt'
tui_keys b
tui_check "b rewinds the parent's turn" 'rewound \(both\) to before turn 1'
file_is "$TUI_WS/notes.txt" "fix teh typo"
tui_ok $? "and the subagent's edit with it"

# Esc stops the subagents with the turn.
tui_type "a slow job"
tui_keys Enter
tui_check "the slow subagent runs" '● agent slow'
sleep 0.5
tui_keys Escape
tui_check "Esc ends the turn" 'interrupted'
n=$(wc -l <"$TUI_MOCK_LOG")
sleep 1
[ "$(wc -l <"$TUI_MOCK_LOG")" -eq "$n" ]
tui_ok $? "and the subagent asks nothing more"

# A background subagent's answer reaches the parent's next turn.
tui_type "start a background one"
tui_keys Enter
tui_check "the background subagent's call returns at once" 'STARTED-IN-BACKGROUND'
sleep 1
tui_type "what did it find"
tui_keys Enter
tui_check "its answer came with the next prompt" 'IT-FOUND-BG'

# A command's model is its turn's: a background subagent started in that
# turn keeps it after the turn ends and the main conversation goes back.
# (The project's command names a model cheaper than the session's: a
# dearer one would wait for trust, attack_trust.sh.)
mkdir -p "$TUI_WS/.claude/commands"
printf -- '---\nmodel: claude-haiku-4-cmd\n---\nStart the model job.\n' >"$TUI_WS/.claude/commands/modeljob.md"
tui_type "/modeljob"
tui_keys Enter
tui_check "the command's turn ends while its background subagent runs" 'MODELJOB-STARTED'
sleep 2
tui_type "and now"
tui_keys Enter
tui_check "the next turn answers" 'AND-NOW'
m=$(jq -r 'select(.body.messages != null) | [.body.model, (.body.messages[0].content | if type=="string" then . else .[0].text end)] | join(" ")' "$TUI_MOCK_LOG" | grep 'Work on the model job' | awk '{print $1}' | sort -u | tr '\n' ' ')
[ "$m" = "claude-haiku-4-cmd " ]
tui_ok $? "both of the subagent's requests asked the command's model, not only the first ($m)"
tui_keys C-c
tui_keys C-c
tui_exited "tandem quits"

# Two subagents: one's edit waits for approval while the other's command
# writes; approved then, the edit waits for the command to end (its line
# says so), and the log attributes each change to its own call.
SCEN=$(tui_scenario slot <<'J'
{"check_echo":false,"responses":[
 {"match_last":"two writers","tool_uses":[
   {"id":"toolu_EA","name":"agent","input":{"description":"edit a","prompt":"Edit a.txt.","subagent_type":"general-purpose"}},
   {"id":"toolu_EB","name":"agent","input":{"description":"write b","prompt":"Write b.txt.","subagent_type":"general-purpose"}}]},
 {"match_last":"Edit a.txt.","tool_uses":[
   {"id":"toolu_a1","name":"edit_file","input":{"path":"a.txt","old_string":"old a","new_string":"new a"}}]},
 {"match_last":"Write b.txt.","first_byte_delay_ms":800,"tool_uses":[
   {"id":"toolu_b1","name":"run_bash","input":{"command":"sh slow.sh"}}]},
 {"match_last":"toolu_a1","text":"a is edited"},
 {"match_last":"toolu_b1","text":"b is written"},
 {"match_last":["a is edited","b is written"],"text":"BOTH-WRITERS-DONE"},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
tui_mock_start "$SCEN"
printf 'old a\n' >"$TUI_WS/a.txt"
printf 'touch started; sleep 3; echo b >b.txt\n' >"$TUI_WS/slow.sh"
rm -f "$TUI_WS/started" "$TUI_WS/b.txt"
tui_start_tandem 100 40 --allow "'Bash(sh slow.sh)'"
tui_check "tandem is up for two writers" 'for keys'
tui_type "two writers"
tui_keys Enter
tui_check "one subagent's edit asks" 'Apply this edit to a\.txt\?'
i=0
while [ ! -e "$TUI_WS/started" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$TUI_WS/started" ]
tui_ok $? "while the other's command runs"
tui_keys y
sleep 0.5
tui_screen >/tmp/sub-wait.txt
grep -qx 'old a' "$TUI_WS/a.txt"
tui_ok $? "approved, the edit waits: a.txt is unchanged while the command runs"
tui_check "and its line says so" 'Edit approved; waits for the general-purpose: write b'

tui_check "both end" 'BOTH-WRITERS-DONE'
grep -qx 'new a' "$TUI_WS/a.txt"
tui_ok $? "then the edit applied"
log=$(ls -t "$TANDEM_HOME"/sessions/*/log.jsonl | head -1)
[ "$(jq -r 'select(.k=="files") | .id + ":" + ([.files[].path] | join(","))' "$log" | sort | tr '\n' ' ')" = \
    "toolu_a1:a.txt toolu_b1:b.txt,started " ]
tui_ok $? "the log attributes each change to its own call ($(jq -c 'select(.k=="files") | [.id, [.files[].path]]' "$log" | tr '\n' ' '))"
tui_keys C-c
tui_keys C-c
tui_exited "tandem quits"

# SIGKILL while a subagent's command runs; resumed, the transcript shows
# what the subagent had done under its call, and the turn browser lists it.
SCEN=$(tui_scenario kill <<'J'
{"check_echo":false,"responses":[
 {"match_last":"run the slow step","tool_uses":[
   {"id":"toolu_K","name":"agent","input":{"description":"slow step","prompt":"Run the slow step.","subagent_type":"general-purpose"}}]},
 {"match_last":"Run the slow step.","text":"Running it now.","tool_uses":[
   {"id":"toolu_k1","name":"run_bash","input":{"command":"touch started; sleep 8"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
tui_mock_start "$SCEN"
rm -f "$TUI_WS/started"
tui_start_tandem 100 30 --permission-mode yolo
tui_check "tandem is up again" 'for keys'
tui_type "run the slow step"
tui_keys Enter
i=0
while [ ! -e "$TUI_WS/started" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$TUI_WS/started" ]
tui_ok $? "the subagent's command started"
kill -9 "$TUI_PID"
sleep 0.3
tui_start_tandem 100 30 -c --permission-mode yolo
tui_check "resumed, the agent call shows its subagent's transcript folded" \
    "… its subagent's transcript: 1 call \(Ctrl\+O to expand\)"
tui_keys C-o
tui_check "expanded, the subagent's command from before the kill" '^    ● run_bash touch started; sleep 8'
tui_check "and its text" '^    Running it now\.'
tui_keys C-o
tui_keys C-t
tui_check "the turn browser lists the subagent's command in the parent's turn" \
    'agent, run_bash \(general-purpose\)'
tui_keys Escape
tui_mock_done
