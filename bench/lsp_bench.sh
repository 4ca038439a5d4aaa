#!/bin/bash
# lsp_bench: what the language servers cost through the real tandem,
# against the mock model server.
#
#	bench/lsp_bench.sh TANDEM MOCKMODEL [N]
#
# 1. The wait an edit's result makes for its diagnostics, clangd warm: a
#    small C project, one read, then N edits (each breaks or fixes a call,
#    one per model reply); the first two are left out (the warm-up).  The
#    median and the 95th percentile of the hold, in ms, from tandem's own
#    measure (TANDEM_LSP_TRACE's "wait" lines), and how many results held
#    the error they should.
# 2. tandem's own memory (VmRSS and VmHWM of the tandem process, not the
#    servers') with two servers running (clangd and pyright, both having
#    answered a definition), against the same session with lsp.enabled off.
set -u
TANDEM=$(realpath "$1") MOCK=$(realpath "$2") N=${3:-40}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/lsp-bench.XXXXXX")
MP=
trap '[ -n "$MP" ] && kill $MP 2>/dev/null; rm -rf "$T"' EXIT
export TANDEM_HOME="$T/home" XDG_CONFIG_HOME="$T/config" HOME="$T/home" XDG_STATE_HOME="$T/state"
export ANTHROPIC_API_KEY=test-key
export PATH="$SRC/tests/npm/node_modules/.bin:$PATH"
mkdir -p "$T/ws" "$T/home" "$T/config/tandem"
cd "$T/ws" || exit 1
printf 'int add(int a, int b);\n' >util.h
printf '#include "util.h"\nint add(int a, int b) { return a + b; }\n' >util.c
printf '#include <stdio.h>\n#include "util.h"\n\nint main(void)\n{\n\tprintf("%%d\\n", add(1, 2));\n\treturn 0;\n}\n' >main.c
printf 'def greet(name: str) -> str:\n    return "hello " + name\n\n\nprint(greet("world"))\n' >app.py

mock() {
	[ -n "$MP" ] && kill $MP 2>/dev/null && wait $MP 2>/dev/null
	rm -f "$T/port"
	"$MOCK" --scenario "$1" --port 0 --port-file "$T/port" --quiet --idle-timeout 120 >/dev/null &
	MP=$!
	for i in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	export ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/port")"
}
pct() {	# FILE P: the P-th percentile of the sorted numbers in FILE
	awk -v p="$2" '{ v[NR] = $1 } END { i = int((NR - 1) * p / 100 + 0.5) + 1; print v[i] }' "$1"
}

# --- 1. the wait ---------------------------------------------------------------
{
	printf '{"check_echo":false,"responses":[\n'
	printf ' {"tool_uses":[{"id":"r","name":"read_file","input":{"path":"main.c"}}]},\n'
	for i in $(seq "$N"); do
		if [ $((i % 2)) -eq 1 ]; then o='add(1, 2)' n='add(1)'; else o='add(1)' n='add(1, 2)'; fi
		printf ' {"tool_uses":[{"id":"e%d","name":"edit_file","input":{"path":"main.c","old_string":"%s","new_string":"%s"}}]},\n' "$i" "$o" "$n"
	done
	printf ' {"text":"ok","stop_reason":"end_turn"}\n]}\n'
} >"$T/wait.json"
echo '{"lsp":{"wait_ms":2000}}' >"$T/config/tandem/settings.json"
mock "$T/wait.json"
TANDEM_LSP_TRACE="$T/trace" "$TANDEM" -p go --trust --permission-mode accept-edits --max-turns $((N + 5)) \
    --output-format events >"$T/wait.jsonl" 2>"$T/wait.err"
awk '$2 == "-" && $3 == "wait" { print $4 }' "$T/trace" | tail -n +3 | sort -n >"$T/waits"
n=$(wc -l <"$T/waits")
[ "$n" -gt 0 ] || { echo "lsp_bench: no edit waited" >&2; cat "$T/wait.err" >&2; exit 1; }
right=0
for i in $(seq 3 "$N"); do
	c=$(jq -r --arg id "e$i" 'select(.type=="tool_result" and .id==$id) | .content' "$T/wait.jsonl")
	if [ $((i % 2)) -eq 1 ]; then
		case $c in *"Too few arguments"*) right=$((right + 1)) ;; esac
	else
		case $c in *error*) ;; *) right=$((right + 1)) ;; esac
	fi
done
printf 'edit result waits for clangd (warm), %d edits: median %s ms, p95 %s ms, max %s ms; %d of %d results right\n' \
    "$n" "$(pct "$T/waits" 50)" "$(pct "$T/waits" 95)" "$(tail -n 1 "$T/waits")" "$right" $((N - 2))

# --- 2. memory with two servers ------------------------------------------------
cat >"$T/mem.json" <<'J'
{"check_echo":false,"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"main.c"}},{"id":"r2","name":"read_file","input":{"path":"app.py"}}]},
 {"tool_uses":[{"id":"d1","name":"code","input":{"operation":"definition","path":"main.c","line":6,"column":18}},
   {"id":"d2","name":"code","input":{"operation":"definition","path":"app.py","line":5,"column":7}}]},
 {"tool_uses":[{"id":"b","name":"run_bash","input":{"command":"sleep 2"}}]},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
rss() {	# SETTINGS: tandem's VmRSS and VmHWM (kB) one second into the sleep
	echo "$1" >"$T/config/tandem/settings.json"
	mock "$T/mem.json"
	"$TANDEM" -p go --trust --permission-mode yolo --output-format events >"$T/mem.jsonl" 2>"$T/mem.err" &
	local pid=$! i
	for i in $(seq 200); do
		grep -q '"name":"run_bash"' "$T/mem.jsonl" 2>/dev/null && break
		sleep 0.05
	done
	sleep 1
	awk '/^VmRSS|^VmHWM/ { printf "%s ", $2 }' "/proc/$pid/status"
	wait $pid
	jq -r 'select(.type=="tool_result" and (.id=="d1" or .id=="d2")) | .content' "$T/mem.jsonl" | grep -c '^[a-z.]*:1:5:' >"$T/answered"
}
set -- $(rss '{"lsp":{"enabled":false}}')
off_rss=$1 off_hwm=$2
set -- $(rss '{}')
on_rss=$1 on_hwm=$2
printf 'tandem RSS with clangd and pyright running: %d kB (peak %d kB); without language servers: %d kB (peak %d kB); %d of 2 definitions answered\n' \
    "$on_rss" "$on_hwm" "$off_rss" "$off_hwm" "$(cat "$T/answered")"
