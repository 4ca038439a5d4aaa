#!/bin/sh
# Screen test of the real tandem: the built-in /init and /review.
# /review outside a git repository says so; /init sends its prompt and the
# model's write of AGENTS.md waits for approval with its diff; /review in a
# real git repository sends the diff of a changed and an untracked file,
# and the programs a planted .git/config names (pager, external diff,
# textconv, clean filter, fsmonitor) do not run, though a plain git diff
# runs them; a secret in the diff is redacted.  Headless -p /review and a
# custom command work too.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

if ! command -v git >/dev/null 2>&1; then
	echo "1..0 # SKIP git is not installed"
	exit 0
fi

SCEN=$(tui_scenario initreview <<'J'
{"check_echo":false,"responses":[
 {"match":"Write AGENTS.md for this repository","tool_uses":[{"id":"toolu_i1","name":"write_file",
   "input":{"path":"AGENTS.md","content":"# AGENTS.md\n\nBuild with `make`; test with `make check`.\n"}}],
   "stop_reason":"tool_use"},
 {"match":"toolu_i1","text":"INIT-DONE","stop_reason":"end_turn"},
 {"match":"Review the code changes","text":"REVIEW-DONE: no findings.","stop_reason":"end_turn","repeat":3},
 {"match":"HELLO-CUSTOM","text":"custom seen","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
MARKS=$TUI_TMP/marks
mkdir -p "$MARKS"
printf '#!/bin/sh\ntouch "%s/$1"\n[ "$1" = clean ] && cat\nexit 0\n' "$MARKS" >"$TUI_TMP/evil"
chmod +x "$TUI_TMP/evil"

tui_mock_start "$SCEN"
tui_start_tandem 120 40
tui_check "the real tandem draws its screen" '› \? for keys'
tui_type "/help"
tui_keys Enter
tui_check "/help lists /init" '/init \[notes\] +explore the repository and write or improve AGENTS\.md'
tui_check "and /review" '/review \[ref\|path\] +review the uncommitted changes'
tui_type "/rev"
tui_keys Tab
tui_check_input "Tab completes /review" '/review'
tui_keys C-u

tui_type "/review"
tui_keys Enter
tui_check "outside a git repository /review says so" 'not a git repository: /review reviews the changes'

tui_tandem -p /review
tui_ok "$(test $? -eq 1 && grep -q 'not a git repository' "$TUI_TMP/err"; echo $?)" \
    "headless, tandem -p /review outside a git repository says so and fails"

tui_type "/init"
tui_keys Enter
tui_check "the model's write of AGENTS.md asks for approval" 'write_file AGENTS\.md +approve\?'
tui_check "with its diff" '\+ Build with `make`'
jq -r 'select(.body.messages != null) | .body.messages[-1] | tostring' "$TUI_MOCK_LOG" >"$TUI_TMP/init.req"
grep -q 'Write AGENTS.md for this repository' "$TUI_TMP/init.req" &&
    grep -q 'list_dir, glob, grep, read_file' "$TUI_TMP/init.req" &&
    grep -q 'improve it in place' "$TUI_TMP/init.req"
tui_ok $? "the request carries the /init prompt"
tui_keys y
tui_check "the answer comes" 'INIT-DONE'
grep -q 'make check' "$TUI_WS/AGENTS.md" 2>/dev/null
tui_ok $? "AGENTS.md is written once approved"

# A real repository: one commit, then a changed file and an untracked one,
# and a config planted after the commit.
gitcfg="[core]
	pager = $TUI_TMP/evil pager
	fsmonitor = $TUI_TMP/evil fsmonitor
[diff]
	external = $TUI_TMP/evil external
[diff \"tx\"]
	textconv = $TUI_TMP/evil textconv
[filter \"fl\"]
	clean = $TUI_TMP/evil clean
	smudge = cat"
(
	cd "$TUI_WS" && [ -e AGENTS.md ] || exit 1
	git init -q . && printf 'int one(void) { return 1; }\n' >one.c &&
	printf '*.c diff=tx filter=fl\n' >.gitattributes &&
	git add one.c .gitattributes AGENTS.md &&
	git -c user.name=t -c user.email=t@t commit -q -m one &&
	printf 'int one(void) { return 2; } /* CHANGED-LINE */\n' >one.c &&
	printf 'UNTRACKED-LINE key=test-key\n' >new.txt &&
	printf '%s\n' "$gitcfg" >>.git/config
)
tui_ok $? "a git repository with a changed and an untracked file"

tui_type "/review"
tui_keys Enter
tui_check "the review's answer comes" 'REVIEW-DONE'
jq -r 'select(.body.messages != null) | .body.messages[-1] | tostring' "$TUI_MOCK_LOG" >"$TUI_TMP/review.req"
grep -q 'Review the code changes' "$TUI_TMP/review.req" &&
    grep -q 'by severity' "$TUI_TMP/review.req"
tui_ok $? "the request carries the /review prompt"
grep -q '+int one(void) { return 2; } /\* CHANGED-LINE \*/' "$TUI_TMP/review.req" &&
    grep -q -- '-int one(void) { return 1; }' "$TUI_TMP/review.req"
tui_ok $? "and the changed file's diff"
grep -q '+UNTRACKED-LINE' "$TUI_TMP/review.req" && grep -q 'b/new.txt' "$TUI_TMP/review.req"
tui_ok $? "and the untracked file"
grep -q 'UNTRACKED-LINE key=\[redacted\]' "$TUI_TMP/review.req" && ! grep -q 'test-key' "$TUI_TMP/review.req"
tui_ok $? "with the secret in it (the API key) redacted"
[ -z "$(ls -A "$MARKS")" ]
tui_ok $? "no program the planted config names ran: $(ls "$MARKS" | tr '\n' ' ')"

# Headless: the same prompt, limited to a path; and a custom command.
tui_tandem -p "/review one.c"
jq -r 'select(.body.messages != null) | .body.messages[-1] | tostring' "$TUI_MOCK_LOG" | tail -n 1 >"$TUI_TMP/hl.req"
grep -q 'CHANGED-LINE' "$TUI_TMP/hl.req" && grep -q 'under one.c' "$TUI_TMP/hl.req" &&
    ! grep -q 'UNTRACKED-LINE' "$TUI_TMP/hl.req" && grep -q 'REVIEW-DONE' "$TUI_TMP/out"
tui_ok $? "headless, tandem -p '/review one.c' reviews the changes under one.c"
tui_tandem -p "/review HEAD"
jq -r 'select(.body.messages != null) | .body.messages[-1] | tostring' "$TUI_MOCK_LOG" | tail -n 1 >"$TUI_TMP/ref.req"
grep -q 'CHANGED-LINE' "$TUI_TMP/ref.req" && grep -q 'since HEAD' "$TUI_TMP/ref.req" &&
    ! grep -q 'UNTRACKED-LINE' "$TUI_TMP/ref.req"
tui_ok $? "headless, tandem -p '/review HEAD' reviews the changes since a ref"
tui_tandem -p "/review --output=x"
tui_ok "$(test $? -eq 1 && grep -q 'takes a ref or a path' "$TUI_TMP/err" && [ ! -e "$TUI_WS/x" ]; echo $?)" \
    "an option in place of a ref is refused"
mkdir -p "$TUI_WS/.tandem/commands"
printf 'Say HELLO-CUSTOM to $ARGUMENTS\n' >"$TUI_WS/.tandem/commands/hello.md"
tui_tandem -p "/hello world"
tui_last_message | grep -q 'HELLO-CUSTOM to world'
tui_ok $? "headless, a custom command's prompt is sent: $(tui_last_message | head -c 200)"
[ -z "$(ls -A "$MARKS")" ]
tui_ok $? "still no planted program ran"

# More filter drivers than tandem empties: no review, rather than one left running.
cp "$TUI_WS/.git/config" "$TUI_TMP/config.saved"
i=0
while [ "$i" -lt 30 ]; do
	printf '[filter "f%d"]\n\tclean = %s clean\n' "$i" "$TUI_TMP/evil" >>"$TUI_WS/.git/config"
	i=$((i + 1))
done
tui_tandem -p /review
tui_ok "$(test $? -eq 1 && grep -q 'more than 24 filter settings' "$TUI_TMP/err"; echo $?)" \
    "a config with too many filter drivers is not reviewed"
cp "$TUI_TMP/config.saved" "$TUI_WS/.git/config"
[ -z "$(ls -A "$MARKS")" ]
tui_ok $? "and none of them ran"

# A repository owned by someone else: git refuses it, and tandem says why.
if [ "$(id -u)" -eq 0 ] && chown -R nobody "$TUI_WS" 2>/dev/null; then
	tui_tandem -p /review
	tui_ok "$(test $? -eq 1 && grep -q 'owned by another user' "$TUI_TMP/err"; echo $?)" \
	    "a repository of another user is refused with git's reason: $(cat "$TUI_TMP/err")"
	chown -R 0 "$TUI_WS"
fi

# The plant is live: git as a user would run it does run them.
(cd "$TUI_WS" && git diff HEAD >/dev/null 2>&1)
[ -e "$MARKS/external" ] || [ -e "$MARKS/fsmonitor" ] || [ -e "$MARKS/clean" ]
tui_ok $? "a plain git diff in that repository runs them: $(ls "$MARKS" | tr '\n' ' ')"
tui_mock_done
