#!/bin/bash
# The shell splitter through the real binary: $'...' does not hide a second
# command from an allow rule or from a deny rule in yolo mode, deny rules see
# through quoting of the command word, and a command word that is an
# expansion needs a person (so headless refuses it).  Nothing is created.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

results() { jq -r 'select(.type=="tool_result") | "\(.is_error) \(.content)"' "$T/out.jsonl"; }

mock_start "$(scenario allow <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_1","name":"run_bash","input":{"command":"git status $'\\''; touch PWNED"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_2","name":"run_bash","input":{"command":"git log $'\\'' && touch PWNED2"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --allow 'run_bash(git *)' --output-format events >"$T/out.jsonl" 2>"$T/err"
check "allow run: exits 0" [ $? -eq 0 ]
check "git status \$'\\''; touch PWNED is not run" [ ! -e PWNED ]
check "git log \$'\\'' && touch PWNED2 is not run" [ ! -e PWNED2 ]
check "both results are refusals" [ "$(results | grep -c '^true')" -eq 2 ]
check "loading run_bash(git *) warns that git runs anything" grep -q "lets git run any command: git -c alias" "$T/err"

mkdir -p victim && touch victim/keep
mock_start "$(scenario deny <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_1","name":"run_bash","input":{"command":"echo $'\\''; rm -rf victim"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_2","name":"run_bash","input":{"command":"r\\m -rf victim"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_3","name":"run_bash","input":{"command":"'rm' -rf victim"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_4","name":"run_bash","input":{"command":"/bin/rm -rf victim"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_5","name":"run_bash","input":{"command":"$'\\x72m' -rf victim"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_6","name":"run_bash","input":{"command":"bash -c $'echo \\x27\\x27; rm -rf victim'"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_7","name":"run_bash","input":{"command":"$(echo rm) -rf victim"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_8","name":"run_bash","input":{"command":"echo $'\\''; echo ran > made"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --deny 'run_bash(rm *)' --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "deny run: exits 0" [ $? -eq 0 ]
check "victim is still there" [ -e victim/keep ]
check "seven refusals" [ "$(results | head -n 7 | grep -c '^true')" -eq 7 ]
check "the rm forms are denied by the rule" [ "$(results | head -n 6 | grep -c 'run_bash(rm \*)')" -eq 6 ]
seventh() { results | sed -n 7p | grep -q 'needs approval'; }
check "an expanded command word needs approval" seventh
check "a harmless \$'\\'' command still runs in yolo" [ "$(cat made 2>/dev/null)" = ran ]

finish
