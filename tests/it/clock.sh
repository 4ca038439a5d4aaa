#!/bin/bash
# Sessions and the wall clock (faketime): a clock 40 days ahead removes no
# session (age counts from the newest record, and the newest few of each
# workspace stay whatever the clock says); a clock 2 days behind still
# makes the newest session the one -c goes on with (a sequence that only
# grows orders them); old sessions still go once they really are old.
. "$(dirname "$0")/lib.sh"
if ! command -v faketime >/dev/null; then
	fail "faketime is installed (scripts/install-deps.sh installs it)"
	finish
	exit 1
fi
# libfaketime is preloaded; under ASan the runtime need not come first for it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
SCEN=$(scenario clock <<'J'
{"check_echo":false,"responses":[{"text":"ok","stop_reason":"end_turn","repeat":100}]}
J
)
mock_start "$SCEN"
mkdir -p "$T/a" "$T/b"
count() { ls "$TANDEM_HOME/sessions" | wc -l; }
run_in() { local d=$1; shift; (cd "$d" && "$@" -p "$PROMPT" >/dev/null 2>>"$T/err"); }
for i in 1 2 3; do PROMPT="a$i" run_in "$T/a" "$TANDEM"; done
for i in 1 2; do PROMPT="b$i" run_in "$T/b" "$TANDEM"; done
check "five sessions in two workspaces" [ "$(count)" -eq 5 ]

PROMPT=ahead run_in "$T/a" faketime -f '+40d' "$TANDEM"
check "a clock 40 days ahead removes no session" [ "$(count)" -eq 6 ]
PROMPT=ahead2 run_in "$T/b" faketime -f '+40d' "$TANDEM"
check "nor a second run with it, now that a record is 40 days ahead" [ "$(count)" -eq 7 ]

# Back to two days behind the real clock: a new session there is still the newest.
PROMPT=behind run_in "$T/a" faketime -f '-2d' "$TANDEM"
behind=$(cd "$T/a" && "$TANDEM" sessions | awk '$NF == "behind" || / behind$/ { print $1; exit }')
check "the session made with the clock behind is listed first" \
    [ -n "$behind" ] && [ "$(cd "$T/a" && "$TANDEM" sessions | sed -n 2p | awk '{ print $1 }')" = "$behind" ]
(cd "$T/a" && "$TANDEM" -c -p "go on" --output-format events >"$T/c.jsonl" 2>>"$T/err")
check "-c goes on with it, not with the one the clock calls newer" \
    [ "$(jq -r 'select(.type=="session") | .id' "$T/c.jsonl" | head -n 1)" = "$behind" ]

# Real age still counts: sessions past the newest few of a workspace go.
for i in 4 5 6 7 8; do PROMPT="a$i" run_in "$T/a" "$TANDEM"; done
n=$(cd "$T/a" && "$TANDEM" sessions | tail -n +2 | wc -l)
PROMPT=later run_in "$T/a" faketime -f '+40d' "$TANDEM"
PROMPT=later2 run_in "$T/a" faketime -f '+41d' "$TANDEM"
left=$(cd "$T/a" && "$TANDEM" sessions | tail -n +2 | wc -l)
check "old sessions beyond the newest $((5)) of a workspace go once newer records are far ahead ($n, then $left)" \
    [ "$left" -lt "$n" ] && [ "$left" -ge 5 ]
check "the other workspace keeps its newest few" [ "$(cd "$T/b" && "$TANDEM" sessions | tail -n +2 | wc -l)" -ge 3 ]
check "nothing failed on the way" not grep -q . "$T/err"
finish
