# The first request tandem sends, as the mock model logs it: sourced after
# lib.sh by tests/it/firstreq.sh and bench/prompt_bytes.sh, so the budget's
# test and the benchmark measure the same thing, the real binary's request.

# firstreq_setup: every default tool on: a language server on PATH (the code
# tool), a SearXNG address (web_search on an OpenAI-compatible provider).
firstreq_setup() {
	mkdir -p "$T/bin" "$XDG_CONFIG_HOME/tandem"
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/clangd"
	chmod +x "$T/bin/clangd"
	printf '{"web": {"search_url": "http://127.0.0.1:9"}}\n' \
	    >"$XDG_CONFIG_HOME/tandem/settings.json"
}

# first_request PROTO: run `tandem -p` once; the logged request is $T/PROTO.log.
first_request() {
	local proto=$1 args=()
	mock_start "$(scenario "$proto" <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
	[ "$proto" = openai ] && args=(--provider openai --model m)
	(cd "$T/ws" && PATH="$T/bin:$PATH" timeout 60 "$TANDEM" -p hi "${args[@]}" \
	    >"$T/$proto.out" 2>"$T/$proto.err"; echo $? >"$T/$proto.rc")
	sed -n 1p "$MOCK_LOG" >"$T/$proto.log"
}

# request_bytes PROTO: the body's bytes less its messages (OpenAI's system message stays).
request_bytes() {
	jq -r '.body_bytes - (.body.messages | tojson | length) +
	    ([.body.messages[] | select(.role == "system")] | tojson | length)' "$T/$1.log"
}

# tool_bytes PROTO: "name bytes" of each tool definition as sent.
tool_bytes() {
	jq -r '.body.tools[] | "\(.name // .function.name) \(tojson | length)"' "$T/$1.log"
}

# system_bytes PROTO: the system prompt's bytes as sent.
system_bytes() {
	jq -r '(.body.system // [.body.messages[] | select(.role == "system")]) |
	    tojson | length' "$T/$1.log"
}
