#!/bin/sh
# apiKeyHelper on the screen of the real tandem against the mock: its key
# is refused (401), the helper, run again, fails with a key on its standard
# error.  The screen shows the one sentence, the key redacted; the key is
# never written over the screen, and the screen stays whole.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

BAD="sk-ant-api03-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
mkdir -p "$XDG_CONFIG_HOME/tandem"
cat >"$TUI_TMP/helper.sh" <<S
#!/bin/sh
n=\$(cat "\$0.n" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"\$0.n"
if [ "\$n" -eq 1 ]; then echo helper-key-1; exit 0; fi
printf 'vault: token %s has expired\n' "$BAD" >&2
exit 1
S
chmod +x "$TUI_TMP/helper.sh"
echo "{\"apiKeyHelper\": \"$TUI_TMP/helper.sh\"}" >"$XDG_CONFIG_HOME/tandem/settings.json"
tui_mock_start "$(tui_scenario reauth <<'J'
{"responses": [{"status": 401}, {"text": "never", "repeat": 5}]}
J
)"
tui_start_tandem 100 30
tui_check "the real tandem draws its screen" '› \? for keys'
tui_type "hello"
tui_keys Enter
tui_check "the failure is told, in one sentence" 'refused the key \(HTTP 401\), and'
tui_check "with the helper's own words, the key redacted" 'vault: token \[redacted\] has expired'
tui_absent "the key is not on the screen" "$BAD"
tui_absent "nor any part of it" 'sk-ant-api03'
tui_sane 100 30 "the screen is whole"
tui_mock_done
