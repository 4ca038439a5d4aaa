#!/bin/bash
# The first request's budget: the real binary's first request, as the mock
# logs it, with every tool a user gets by default (web_search on, the code
# tool on: a language server on PATH), must stay under 12,288 bytes without
# its messages, in both protocols.  bench/prompt_bytes.sh prints the same
# measurement tool by tool.
. "$(dirname "$0")/lib.sh"
BUDGET=${TANDEM_FIRSTREQ_BUDGET:-12288}

. "$(dirname "$0")/firstreq_lib.sh"
firstreq_setup

# A new default tool fails the second check: measure it, then add it here.
DEFAULT_TOOLS="agent apply_patch ask_user bash_output code edit_file exit_plan glob grep kill_shell list_dir read_file run_bash todo_write web_fetch web_search write_file"
for proto in anthropic openai; do
	first_request "$proto"
	check "$proto: tandem -p ended well" test "$(cat "$T/$proto.rc")" = 0
	check "$proto: the first request was logged" test -s "$T/$proto.log"
	names=$(jq -r '[.body.tools[] | .name // .function.name] | sort | join(" ")' "$T/$proto.log")
	check "$proto: every default tool is offered ($names)" test "$names" = "$DEFAULT_TOOLS"
	n=$(request_bytes "$proto")
	check "$proto: the first request is $n bytes, at most $BUDGET" test "${n:-999999}" -le "$BUDGET"
done
finish
