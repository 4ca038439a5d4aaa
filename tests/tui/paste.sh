#!/bin/sh
# Screen test: Alt+V pastes an image from the clipboard (a wl-paste that
# prints a PNG stands in for Wayland's), checked and sent with the next
# prompt; no clipboard tool, or no image in it, is one sentence.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

tui_mock_ok paste
mkdir -p "$TUI_TMP/bin"
printf '\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\000\100\000\000\000\040\010\006\000\000\000' >"$TUI_TMP/clip.png"
cat >"$TUI_TMP/bin/wl-paste" <<S
#!/bin/sh
[ -f "$TUI_TMP/empty" ] && exit 1
cat "$TUI_TMP/clip.png"
S
chmod +x "$TUI_TMP/bin/wl-paste"
PATH=$TUI_TMP/bin:$PATH WAYLAND_DISPLAY=test-wayland
export PATH WAYLAND_DISPLAY
tui_start_tandem 100 30
tui_check "tandem draws its screen" '› \? for keys'
tui_keys M-v
tui_check "the clipboard's image is taken" "the clipboard's image \(clipboard-1\.png, 0\.0 KB\) goes with your next prompt"
tui_type "what is this"
tui_keys Enter
tui_check "the answer comes" '^ok'
sleep 0.3
want=$(base64 -w0 "$TUI_TMP/clip.png")
jq -c 'select(.body.messages != null) | .body.messages[-1]' "$TUI_MOCK_LOG" | tail -n 1 |
    jq -e --arg d "$want" '.content[0].text == "what is this" and ([.content[] | select(.type == "image" and .source.data == $d)] | length == 1)' >/dev/null
tui_ok $? "the mock got the pasted image with the prompt"
: >"$TUI_TMP/empty"
tui_keys M-v
tui_check "an empty clipboard is said so" 'the clipboard holds no image \(wl-paste found none\)'
tui_mock_done
