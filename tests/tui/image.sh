#!/bin/sh
# Screen test: an image path in the prompt goes to the model as an image
# block, checked first (magic bytes, size), named in the transcript with
# its dimensions; its bytes are kept in the session's files/, not in
# log.jsonl, and sent again from there with the next request.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

tui_mock_ok image
# A PNG header (800x600) and its end; the mock checks the block, not the pixels.
printf '\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\003\040\000\000\002\130\010\006\000\000\000\000\000\000\000IEND\256B`\202' >"$TUI_WS/shot.png"
printf '\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\043\050\000\000\000\001\010\006\000\000\000' >"$TUI_WS/wide.png"
printf 'not an image at all\n' >"$TUI_WS/fake.png"
tui_start_tandem 120 30
tui_check "tandem draws its screen" '› \? for keys'

tui_type "what is in shot.png, @fake.png and @wide.png?"
tui_keys Enter
tui_check "the image is named with its dimensions" '@shot\.png attached \(image 800x600, .*about 640 tokens\)'
tui_check "a file that is no image is refused" '@fake\.png not attached: not a PNG, JPEG, GIF or WebP image'
tui_check "an image too wide is refused" '@wide\.png not attached: the image is 9000x1 pixels, more than the 8000'
tui_check "the answer comes" '^ok'
sleep 0.3
want=$(base64 -w0 "$TUI_WS/shot.png")
msg=$(jq -c 'select(.body.messages != null) | .body.messages[-1]' "$TUI_MOCK_LOG" | tail -n 1)
printf '%s' "$msg" | jq -e --arg d "$want" '[.content[] | select(.type == "image" and .source.type == "base64" and .source.media_type == "image/png" and .source.data == $d)] | length == 1' >/dev/null
tui_ok $? "the mock got the image as an image block, its bytes intact"
printf '%s' "$msg" | jq -e '[.content[] | select(.type == "image")] | length == 1' >/dev/null
tui_ok $? "only the good image went"
printf '%s' "$msg" | jq -e '[.content[] | keys[] | select(startswith("_"))] | length == 0' >/dev/null
tui_ok $? "no private key reached the API"
[ "$(jq -c 'select(.body.messages != null) | .problems | length' "$TUI_MOCK_LOG" | sort -u)" = 0 ]
tui_ok $? "the mock found nothing wrong with the request"
log=$(ls "$TANDEM_HOME"/sessions/*/log.jsonl | head -n 1)
! grep -q "$want" "$log"
tui_ok $? "log.jsonl does not hold the image's bytes"
sha=$(sha256sum "$TUI_WS/shot.png" | cut -d' ' -f1)
cmp -s "$TUI_WS/shot.png" "$(dirname "$log")/files/$sha"
tui_ok $? "the session's files/ does"
tui_type "and again"
tui_keys Enter
tui_check "a second answer" '^ok.*' 
sleep 0.5
n=$(jq -c 'select(.body.messages != null)' "$TUI_MOCK_LOG" | wc -l)
jq -c 'select(.body.messages != null)' "$TUI_MOCK_LOG" | tail -n 1 | jq -e --arg d "$want" '[.body.messages[].content[]? | select(.type == "image" and .source.data == $d)] | length == 1' >/dev/null
tui_ok $? "the next request carries the image again, read from files/ ($n requests)"
tui_mock_done
