#!/bin/bash
# Language servers (agent/lsp/): real ones (clangd, pyright) and a fault
# server, driven through the mock model's edit_file calls, headless.
# An edit that breaks a call gets the error in its result and the fix
# clears it; errors a file had when first read (clangd without
# compile_commands.json) are not the edit's; the code tool answers
# definitions and references; a subagent's edit gets the errors as the
# main conversation's does; a server that crashes, hangs, floods or
# speaks garbage is told in one sentence and never holds an edit past the
# bound; an untrusted project starts no server (its build script never runs).
. "$(dirname "$0")/lib.sh"
FAULT="$T/fault.sh"
cp "$top_srcdir/tests/lsp/fault.sh" "$FAULT"
mkdir -p "$XDG_CONFIG_HOME/tandem"

# settings JSON: the user's settings file.
settings() { printf '%s\n' "$1" >"$XDG_CONFIG_HOME/tandem/settings.json"; }
# run NAME SCENARIO [tandem args]: a headless run in $WS (default $T/ws); events in
# $T/NAME.jsonl, exit status in $T/NAME.rc, wall time in ms in $T/NAME.ms.
run() {
	local name=$1 scen=$2 t0
	shift 2
	mock_start "$scen"
	t0=$(date +%s%N)
	(cd "${WS:-$T/ws}" && "$TANDEM" -p go --permission-mode accept-edits --output-format events "$@" \
	    >"$T/$name.jsonl" 2>"$T/$name.err")
	echo $? >"$T/$name.rc"
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$T/$name.ms"
}
# res NAME ID: the content of tool result ID.
res() { jq -r --arg id "$2" 'select(.type=="tool_result" and .id==$id) | .content' "$T/$1.jsonl"; }
# said NAME: the run's error events, one a line.
said() { jq -r 'select(.type=="error") | .message' "$T/$1.jsonl"; }
no_fault_left() { ! pgrep -f "$FAULT" >/dev/null; }

# --- clangd on a small C project -------------------------------------------
cd "$T/ws"
printf 'int add(int a, int b);\n' >util.h
printf '#include "util.h"\nint add(int a, int b) { return a + b; }\n' >util.c
cat >main.c <<'C'
#include <stdio.h>
#include "util.h"

int main(void)
{
	printf("%d\n", add(1, 2));
	return 0;
}
C
# without compile_commands.json clangd cannot find inc/cfg.h: errors the file has from the start
mkdir -p inc && printf '#define CFG_VALUE 3\n' >inc/cfg.h
printf '#include "cfg.h"\n/* tune */\nint value(void) { return CFG_VALUE; }\n' >extra.c
settings '{"lsp":{"wait_ms":15000}}'
run clangd "$(scenario clangd <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"main.c"}}]},
 {"tool_uses":[{"id":"e1","name":"edit_file","input":{"path":"main.c","old_string":"add(1, 2)","new_string":"add(1)"}}]},
 {"tool_uses":[{"id":"e2","name":"edit_file","input":{"path":"main.c","old_string":"add(1)","new_string":"add(1, 2)"}}]},
 {"tool_uses":[{"id":"e3","name":"edit_file","input":{"path":"extra.c","old_string":"/* tune */","new_string":"/* tuned */"}}]},
 {"tool_uses":[{"id":"e4","name":"edit_file","input":{"path":"main.c","old_string":"\"%d\\n\", add(1, 2)","new_string":"\"ö→%d\\n\", add(1)"}}]},
 {"tool_uses":[{"id":"e5","name":"edit_file","input":{"path":"main.c","old_string":"add(1)","new_string":"add(1, 2)"}}]},
 {"tool_uses":[{"id":"d1","name":"code","input":{"operation":"definition","path":"main.c","line":6,"column":19}},
   {"id":"f1","name":"code","input":{"operation":"references","path":"main.c","line":6,"column":19}},
   {"id":"s1","name":"code","input":{"operation":"document_symbols","path":"util.c"}},
   {"id":"h1","name":"code","input":{"operation":"hover","path":"main.c","line":6,"column":19}},
   {"id":"w1","name":"code","input":{"operation":"workspace_symbols","path":"main.c","query":"main"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)" --trust
check "clangd run exits 0" [ "$(cat "$T/clangd.rc")" = 0 ]
check "the edit that breaks the call gets clangd's error, with its line" \
    grep -q '^  main.c:6:[0-9]*: Too few arguments to function call' <(res clangd e1)
check "the error is counted as new since the file was read" grep -q 'clangd: 1 new error in main.c' <(res clangd e1)
check "the fix clears it" not grep -q 'error' <(res clangd e2)
check "an edit of a file clangd cannot build (no compile_commands.json) adds no error" \
    not grep -q 'error\|clangd' <(res clangd e3)
check "on a line with non-ASCII text the column counts characters (clangd speaks UTF-8 bytes)" \
    grep -q '^  main.c:6:24: Too few arguments' <(res clangd e4)
check "definition (asked on a non-ASCII line): util.h line 1" grep -q '^util.h:1:5: int add(int a, int b);' <(res clangd d1)
check "references: the call in main.c" grep -q '^main.c:6:[0-9]*:.*add(1, 2)' <(res clangd f1)
check "document symbols: add is a function" grep -q '^add (function) line 2' <(res clangd s1)
check "hover: add's signature" grep -q 'int add(int a, int b)' <(res clangd h1)
check "workspace symbols: main in main.c" grep -q '^main (function) main.c:4' <(res clangd w1)
check "the code tool is offered to the model" \
    [ "$(mock_body 1 '[.tools[].name] | index("code") != null')" = true ]
check "the model got the error in the tool result" \
    grep -q 'Too few arguments' <(mock_body 3 '.messages[-1].content[0].content | tostring')
# (its main thread is named clangd.main: pgrep -x clangd finds nothing)
check "clangd is gone when tandem is" [ -z "$(procs_in "$T/ws" clangd)" ]

# a deny rule: the code tool names a denied file, never quotes it, and refuses to ask about it
run denied "$(scenario denied <<'J'
{"responses":[
 {"tool_uses":[{"id":"d1","name":"code","input":{"operation":"definition","path":"main.c","line":6,"column":19}},
   {"id":"s1","name":"code","input":{"operation":"document_symbols","path":"util.h"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)" --trust --deny 'Read(util.h)'
check "denied: the definition in a denied file is named, not quoted" [ "$(res denied d1)" = "util.h:1:5" ]
check "denied: a denied file is not asked about" grep -q 'denied by a permission rule' <(res denied s1)

# a subagent's edit is held for clangd's errors as the main conversation's is
run subedit "$(scenario subedit <<'J'
{"responses":[
 {"tool_uses":[{"id":"a1","name":"agent","input":{"description":"break","prompt":"Break main.c.","subagent_type":"general-purpose"}}]},
 {"match_last":"Break main.c.","tool_uses":[{"id":"se1","name":"edit_file","input":{"path":"main.c","old_string":"add(1, 2)","new_string":"add(1)"}}]},
 {"match_last":["se1","Too few arguments"],"text":"The subagent saw the error."},
 {"match_last":"The subagent saw the error.","text":"Done.","stop_reason":"end_turn"}
],"require_all":true}
J
)" --trust
check "subedit: the run exits 0" [ "$(cat "$T/subedit.rc")" = 0 ]
check "subedit: the subagent's edit result has clangd's error, counted as new" \
    [ "$(jq -s '[.[] | select(.body.messages[-1].content | tostring | test("se1")) | select(.body.messages[-1].content | tostring |
      test("clangd: 1 new error in main.c") and test("main.c:6:[0-9]*: Too few arguments"))] | length' "$MOCK_LOG")" -ge 1 ]
check "subedit: every step was served" [ "$(mock_requests)" -eq 4 ] && [ "$(mock_problems)" -eq 0 ]
check "subedit: clangd is gone when tandem is" [ -z "$(procs_in "$T/ws" clangd)" ]
sed -i 's/add(1)/add(1, 2)/' main.c

# --- pyright, from the tests' npm peers -----------------------------------
PYRIGHT="$top_srcdir/tests/npm/node_modules/.bin/pyright-langserver"
needs_node "$PYRIGHT" pyright
cat >app.py <<'P'
def greet(name: str) -> str:
    return "hello " + name


print(greet("world"))
P
PATH="$(dirname "$PYRIGHT"):$PATH" run pyright "$(scenario pyright <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"app.py"}}]},
 {"tool_uses":[{"id":"e1","name":"edit_file","input":{"path":"app.py","old_string":"greet(\"world\")","new_string":"greet(\"world\", 2)"}}]},
 {"tool_uses":[{"id":"e2","name":"edit_file","input":{"path":"app.py","old_string":"greet(\"world\", 2)","new_string":"greet(\"wörld\")"}}]},
 {"tool_uses":[{"id":"e3","name":"edit_file","input":{"path":"app.py","old_string":"greet(\"wörld\")","new_string":"greet(\"😀\", 2)"}}]},
 {"tool_uses":[{"id":"d1","name":"code","input":{"operation":"definition","path":"app.py","line":5,"column":7}},
   {"id":"f1","name":"code","input":{"operation":"references","path":"app.py","line":1,"column":5}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)" --trust
check "pyright run exits 0" [ "$(cat "$T/pyright.rc")" = 0 ]
check "pyright: the extra argument is an error on line 5, column 22" \
    grep -q '^  app.py:5:22: Expected 1 positional argument' <(res pyright e1)
check "pyright: the fix clears it" not grep -q 'error' <(res pyright e2)
check "pyright: after an emoji (two UTF-16 units) the column counts characters" \
    grep -q '^  app.py:5:18: Expected 1 positional argument' <(res pyright e3)
check "pyright: definition" grep -q '^app.py:1:5: def greet' <(res pyright d1)
check "pyright: references, the definition and the call" \
    [ "$(res pyright f1 | grep -c '^app.py:[15]:')" = 2 ]

# --- a fault server ---------------------------------------------------------
fault_settings() {	# MODE [extra lsp settings]
	settings '{"lsp":{"wait_ms":1500},"lspServers":{"fault":{"command":"'"$FAULT"'",
	  "extensionToLanguage":{".flt":"fault"},"env":{"FAULT_MODE":"'"$1"'"},"startupTimeout":1000,
	  "maxRestarts":1}}}'
}
fault_scen() {
	scenario fault <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"a.flt"}}]},
 {"tool_uses":[{"id":"e1","name":"edit_file","input":{"path":"a.flt","old_string":"fine","new_string":"BROKEN"}}]},
 {"tool_uses":[{"id":"b1","name":"run_bash","input":{"command":"sleep 0.7; sed -i s/BROKEN/fine/ a.flt"}}]},
 {"tool_uses":[{"id":"e2","name":"edit_file","input":{"path":"a.flt","old_string":"one","new_string":"BROKEN one"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
}
reset_flt() { printf 'one\nall fine\n' >a.flt; rm -f fault-methods.log BUILD_RAN; }

reset_flt
fault_settings good
run good "$(fault_scen)" --trust --allow run_bash
check "fault server (good): the new error is in the edit's result" \
    grep -q '^  a.flt:2:1: BROKEN is not a word' <(res good e1)
check "a command's change reaches the server as a watched-file change" \
    grep -q 'workspace/didChangeWatchedFiles' fault-methods.log
check "and as the open document's new text: the next edit's error is on line 1" \
    grep -q '^  a.flt:1:1: BROKEN is not a word' <(res good e2)
check "the server was shut down politely" grep -q '^shutdown$' fault-methods.log
check "then told to exit" grep -q '^exit$' fault-methods.log

# SIGKILLed, tandem leaves no server behind: the keeper ends it
reset_flt
fault_settings good
mock_start "$(scenario killed <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"a.flt"}}]},
 {"tool_uses":[{"id":"b1","name":"run_bash","input":{"command":"sleep 30"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p go --trust --allow run_bash --output-format events >"$T/killed.jsonl" 2>"$T/killed.err" &
tp=$!
i=0
while ! grep -q didOpen fault-methods.log 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "killed: the server was running" not no_fault_left
kill -9 $tp
wait $tp 2>/dev/null
i=0
while pgrep -f "$FAULT" >/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
check "killed: tandem SIGKILLed, its server is gone too" no_fault_left

# SIGINT while an edit waits on a silent server: the wait ends at once
reset_flt
settings '{"lsp":{"wait_ms":30000},"lspServers":{"fault":{"command":"'"$FAULT"'",
  "extensionToLanguage":{".flt":"fault"},"env":{"FAULT_MODE":"silent"}}}}'
mock_start "$(scenario held <<'J'
{"responses":[
 {"tool_uses":[{"id":"e1","name":"edit_file","input":{"path":"a.flt","old_string":"fine","new_string":"BROKEN"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p go --trust --permission-mode accept-edits --output-format events >"$T/held.jsonl" 2>"$T/held.err" &
tp=$!
i=0
while ! grep -q didChange fault-methods.log 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t0=$(date +%s%N)
kill -INT $tp
wait $tp
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "held: SIGINT ends the run (status $rc) in less than 2 s, not after the 30 s bound ($ms ms)" [ "$rc" = 130 ] && [ "$ms" -lt 2000 ]
check "held: the edit has its result" grep -q 'edited a.flt' <(res held e1)

reset_flt
fault_settings pull
run pull "$(fault_scen)" --trust --allow run_bash
check "pull: the server that only answers textDocument/diagnostic was asked" \
    grep -q '^textDocument/diagnostic$' fault-methods.log
check "pull: the new error is in the edit's result" \
    grep -q '^  a.flt:2:1: BROKEN is not a word' <(res pull e1)
check "pull: and the next one, after the command" \
    grep -q '^  a.flt:1:1: BROKEN is not a word' <(res pull e2)

for mode in crash hang silent flood garbage; do
	reset_flt
	fault_settings $mode
	run $mode "$(fault_scen)" --trust --allow run_bash
	check "$mode: tandem runs to the end" [ "$(cat "$T/$mode.rc")" = 0 ]
	check "$mode: both edits applied, the command between them ran" [ "$(cat a.flt)" = "$(printf 'BROKEN one\nall fine')" ]
	# two edits held 1.5 s at most each, a 0.7 s command, the start and the end
	check "$mode: the run took less than 6 s ($(cat "$T/$mode.ms") ms)" [ "$(cat "$T/$mode.ms")" -lt 6000 ]
	check "$mode: each edit says why it has no diagnostics" \
	    [ "$( (res $mode e1; res $mode e2) | grep -c '^\[fault: no diagnostics for a.flt: ')" = 2 ]
	check "$mode: no fault server left" no_fault_left
done
check "crash: one sentence with the server's last words, then a restart" \
    grep -q '^language server fault ended unexpectedly (it said: fault: giving up on textDocument/didOpen); it restarts on next use$' <(said crash)
check "crash: dropped after its restarts" \
    grep -q '^language server fault ended unexpectedly (it said: .*); it was dropped after 1 restart$' <(said crash)
check "hang: told it did not answer initialize" grep -q '^language server fault did not answer initialize in time; it restarts on next use$' <(said hang)
check "hang: the first edit waited for the start, the second for the restart" \
    grep -q 'still starting\|is restarting' <(res hang e1)
check "silent: the edit says the server did not answer in time" grep -q 'did not answer in time' <(res silent e1)
check "flood: told it flooded" grep -q '^language server fault flooded its log' <(said flood)
check "garbage: told it spoke garbage" grep -q '^language server fault spoke garbage (a message header names no Content-Length)' <(said garbage)

# --- an untrusted project: no server, no build script ----------------------
# (a new directory: --trust above recorded $T/ws as trusted)
settings '{"lsp":{"wait_ms":1500}}'
export WS="$T/rs"
mkdir -p "$WS" && cd "$WS"
mkdir -p .tandem src
printf 'fn main() { println!("hi"); }\n' >src/main.rs
cat >.tandem/settings.json <<J
{"lspServers":{"rust":{"command":"$FAULT","extensionToLanguage":{".rs":"rust"},"env":{"FAULT_MODE":"marker"}}}}
J
rust_scen() {
	scenario rust <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"src/main.rs"}}]},
 {"tool_uses":[{"id":"e1","name":"edit_file","input":{"path":"src/main.rs","old_string":"hi","new_string":"BROKEN"}}]},
 {"text":"Done.","stop_reason":"end_turn"}
]}
J
}
run untrusted "$(rust_scen)"
check "untrusted: the edit applied" grep -q BROKEN src/main.rs
check "untrusted: the build script never ran (no marker)" [ ! -e BUILD_RAN ]
check "untrusted: no server was started" [ ! -e fault-methods.log ]
check "untrusted: one sentence says why" \
    grep -q 'do not start in a project that is not trusted' <(said untrusted)
check "untrusted: the edit's result has no diagnostics" not grep -q 'BROKEN is not' <(res untrusted e1)
sed -i s/BROKEN/hi/ src/main.rs
run trusted "$(rust_scen)" --trust
check "trusted: the project's server runs (the marker is there)" [ -e BUILD_RAN ]
check "trusted: its error is in the edit's result" grep -q 'BROKEN is not a word' <(res trusted e1)

# --- untrusted, with the sandbox on: the server runs, read-only -------------
# (the user's own server, in the workspace: the sandbox's /tmp is private)
export WS="$T/sb"
mkdir -p "$WS/tools" && cd "$WS"
cp "$FAULT" tools/fault.sh
printf 'fn main() { println!("hi"); }\n' >main.rs
settings '{"lsp":{"wait_ms":5000},"lspServers":{"rust":{"command":"'"$WS"'/tools/fault.sh",
  "extensionToLanguage":{".rs":"rust"},"env":{"FAULT_MODE":"marker"}}}}'
run confined "$(sed s,src/main.rs,main.rs,g "$(rust_scen)" | scenario confined)" --sandbox workspace-write
check "confined: the edit applied" grep -q BROKEN main.rs
check "confined: the server ran in the sandbox and found the error" \
    grep -q 'BROKEN is not a word' <(res confined e1)
check "confined: what it ran could not write the project (no marker)" [ ! -e BUILD_RAN ]
finish
