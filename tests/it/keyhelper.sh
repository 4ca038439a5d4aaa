#!/bin/bash
# apiKeyHelper failing with a key on its standard error, with the real
# tandem against the mock: at the start (tandem -p stops with one sentence)
# and after a 401 (the helper, asked again, fails: the turn fails with one
# sentence).  The key it printed is in no output, no debug log
# (TANDEM_DEBUG to stderr and to TANDEM_DEBUG_FILE), no session file and no
# request; the sentence says how it ended and the rest of what it said.
# And a helper alone is a key: no ANTHROPIC_API_KEY is needed with it.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
mkdir -p "$XDG_CONFIG_HOME/tandem"
BAD="sk-ant-api03-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
# The nth run of the helper (counted in $0.n): good for the runs listed in
# $0.good, else it prints the key on stderr, twice, and exits 1.
cat >"$T/helper.sh" <<S
#!/bin/sh
n=\$(cat "\$0.n" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"\$0.n"
if grep -qx "\$n" "\$0.good" 2>/dev/null; then echo "helper-key-\$n"; exit 0; fi
echo "vault: lookup of secret/anthropic failed" >&2
printf 'vault: token %s\thas expired\n' "$BAD" >&2
exit 1
S
chmod +x "$T/helper.sh"
echo "{\"apiKeyHelper\": \"$T/helper.sh\"}" >"$XDG_CONFIG_HOME/tandem/settings.json"
# no_key FILE...: none of the files holds the key.
no_key() { ! grep -rqF -- "$BAD" "$@"; }
sentence="apiKeyHelper ($T/helper.sh) failed with exit status 1: vault: lookup of secret/anthropic failed vault: token [redacted] has expired"

# 1. At the start: one sentence, nothing else on stderr.
mock_start "$(scenario one <<'J'
{"responses": [{"text": "never"}]}
J
)"
TANDEM_DEBUG=phase,conv timeout 30 "$TANDEM" -p go >"$T/out1" 2>"$T/err1"
rc=$?
check "at the start: tandem stops" [ $rc -ne 0 ]
check "at the start: stderr is one line" [ "$(wc -l <"$T/err1")" -eq 1 ]
check "at the start: the sentence says how it ended and what it said, the key redacted" \
    [ "$(cat "$T/err1")" = "tandem: $sentence" ]
check "at the start: the key is on no output (TANDEM_DEBUG to stderr)" no_key "$T/out1" "$T/err1"
check "at the start: no request was made" [ "$(mock_requests)" -eq 0 ]

# 2. After a 401, with no ANTHROPIC_API_KEY: the first run gives a key, the second fails.
rm -f "$T/helper.sh.n"
echo 1 >"$T/helper.sh.good"
mock_start "$(scenario reauth <<'J'
{"responses": [{"status": 401}, {"text": "never"}]}
J
)"
env -u ANTHROPIC_API_KEY TANDEM_DEBUG=phase TANDEM_DEBUG_FILE="$T/debug" \
    timeout 30 "$TANDEM" -p go --output-format events >"$T/out2" 2>"$T/err2"
rc=$?
check "after a 401: the run fails" [ $rc -ne 0 ]
check "after a 401: the helper ran twice" [ "$(cat "$T/helper.sh.n")" -eq 2 ]
check "after a 401: the request carried the helper's key" \
    [ "$(sed -n 1p "$MOCK_LOG" | jq -r '.headers["x-api-key"]')" = helper-key-1 ]
check "after a 401: the error event says why, in one sentence" \
    grep -qF "the model server refused the key (HTTP 401), and $sentence" \
    <(jq -r 'select(.type=="error") | .message' "$T/out2")
check "after a 401: the debug log was written" grep -q 'turn 1' "$T/debug"
check "after a 401: the key is in no event, stderr or debug log" no_key "$T/out2" "$T/err2" "$T/debug"
check "after a 401: nothing else reached stderr" not grep -q 'vault' "$T/err2"
check "after a 401: no session file holds it" no_key "$TANDEM_HOME"
check "after a 401: no request holds it" no_key "$MOCK_LOG"

# 3. Exiting 0 with nothing on stdout: "printed no key", its stderr redacted too.
printf '#!/bin/sh\necho "no key today: %s" >&2\n' "$BAD" >"$T/empty.sh"
chmod +x "$T/empty.sh"
echo "{\"apiKeyHelper\": \"$T/empty.sh\"}" >"$XDG_CONFIG_HOME/tandem/settings.json"
timeout 30 "$TANDEM" -p go >"$T/out3" 2>"$T/err3"
check "no key: one sentence" [ "$(cat "$T/err3")" = "tandem: apiKeyHelper ($T/empty.sh) printed no key: no key today: [redacted]" ]
finish
