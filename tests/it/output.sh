#!/bin/bash
# Command output as the model gets it and headless text as a terminal gets
# it: NUL and control bytes escaped with the tail and exit status kept;
# colours, titles and carriage-return redraws cleaned for the model while
# the spill file keeps the raw bytes; a spill that fails is reported, not
# promised; and -p text on a terminal shows the model's escape sequences
# instead of obeying them.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

run() { timeout 60 "$TANDEM" --output-format events --permission-mode yolo "$@" >"$T/out.jsonl" 2>"$T/err"; }
result() { tail -n 1 "$T/out.jsonl" | jq -r "$1"; }
# tool_text N: the text of the first tool result in request N, raw.
tool_text() {
	sed -n "${1}p" "$MOCK_LOG" | jq -r '.body.messages[-1].content[0].content |
	    if type == "array" then map(.text) | join("") else . end'
}
# bash_scenario NAME COMMAND [ID]: one run_bash call, then an answer.
bash_scenario() {
	jq -n --arg c "$2" --arg id "${3:-toolu_b1}" \
	    '{responses: [{tool_uses: [{id: $id, name: "run_bash", input: {command: $c}}]}, {text: "ok"}]}' |
	    scenario "$1"
}

# 1. NUL bytes: kept by length, shown escaped, the rest and the exit status there.
mock_start "$(bash_scenario nul "printf 'a\\0b'; exit 3")"
run -p "x"
check "NUL: exit 0" [ $? -eq 0 ]
check "NUL: the model gets a\\x00b and the exit status 3" [ "$(tool_text 2)" = "$(printf 'a\\x00b\n[exit status 3]')" ]
mock_start "$(bash_scenario ctl "printf 'x\\001y\\033z\\177\\n'; printf 'tab\\there\\n'")"
run -p "x"
check "control bytes: escaped, an escape sequence dropped, tabs kept" [ "$(tool_text 2)" = "$(printf 'x\\x01y\\x7F\ntab\there\n[exit status 0]')" ]
check "control bytes: no problems" [ "$(mock_problems)" -eq 0 ]

# 2. Colours and redraws under the cap: the model sees the last state, no escapes.
mock_start "$(bash_scenario ansi "printf '\\033[1;31mred\\033[0m ok\\n\\033]0;title\\007step 10%%\\rstep 20%%\\rstep 30%%\\n'")"
run -p "x"
check "ANSI and CR: cleaned for the model" [ "$(tool_text 2)" = "$(printf 'red ok\nstep 30%%\n[exit status 0]')" ]

# 3. A long progress bar over the cap: cleaned for the model, raw in the spill file.
mock_start "$(bash_scenario bar 'for i in $(seq 1 3000); do printf "\033[32mprogress %d%%\033[0m\r" $i; done; printf "\033]0;title\007done\n"; exit 0')"
run -p "x"
text=$(tool_text 2)
spill=$(grep -o 'the whole output is in [^]]*' <<<"$text" | sed 's/the whole output is in //; s/ *$//')
check "progress bar: the model is told where the whole output is" [ -n "$spill" ] && [ -f "$spill" ]
check "progress bar: no escape or CR reaches the model" not grep -q $'[\033\r]' <<<"$text"
check "progress bar: the last state, then done, then the status" \
    [ "$(tail -n 2 <<<"$text")" = "$(printf 'done\n[exit status 0]')" ]
check "progress bar: the spill file has the raw bytes (3000 CRs, the colours)" \
    [ "$(tr -cd '\r' <"$spill" | wc -c)/$(grep -c $'\033\\[32mprogress 3000%\033\\[0m\r\033\\]0;title\007done' "$spill")" = 3000/1 ]
check "progress bar: the spill file is the whole output" \
    [ "$(wc -c <"$spill")" -eq "$(bash -c 'for i in $(seq 1 3000); do printf "\033[32mprogress %d%%\033[0m\r" $i; done; printf "\033]0;title\007done\n"' | wc -c)" ]

# 4. A spill that cannot be written: said so, with why, and no file promised.
sid=$(result .session_id)
mock_start "$(bash_scenario spillfail 'head -c 100000 /dev/zero | tr "\0" y; echo; echo tail-line; exit 4' toolu_nospill)"
mkdir -p "$TANDEM_HOME/sessions/$sid/bash-toolu_nospill.log"
run -r "$sid" -p "again"
text=$(tool_text 2)
check "failed spill: the turn goes on" [ "$(result .text)" = ok ]
check "failed spill: it says the output could not be kept, and why" \
    grep -q "could not be kept: $TANDEM_HOME/sessions/$sid/bash-toolu_nospill.log: Is a directory" <<<"$text"
check "failed spill: no file is promised" not grep -q 'the whole output is in' <<<"$text"
check "failed spill: the tail and the status are there" [ "$(tail -n 2 <<<"$text")" = "$(printf 'tail-line\n[exit status 4]')" ]

# 5. -p text on a terminal: the model's OSC 52 and title escapes are shown, not obeyed.
mock_start "$(scenario osc <<'J'
{"responses":[{"text":"copy \u001b]52;c;aGk=\u0007 title \u001b]0;pwned\u0007 bell \u0007 end","repeat":2}]}
J
)"
script -qfec "$TANDEM -p x" /dev/null >"$T/tty.raw" 2>&1 </dev/null
check "-p on a terminal: exit 0" [ $? -eq 0 ]
check "-p on a terminal: no ESC or BEL reaches it" not grep -q $'[\033\007]' "$T/tty.raw"
check "-p on a terminal: the escapes are drawn as control pictures" \
    grep -q 'copy ␛\]52;c;aGk=␇ title ␛\]0;pwned␇ bell ␇ end' "$T/tty.raw"
"$TANDEM" -p x >"$T/pipe.raw" 2>/dev/null
check "-p into a pipe: the text is passed as it came" grep -q $'copy \033]52;c;aGk=\007 title' "$T/pipe.raw"

finish
