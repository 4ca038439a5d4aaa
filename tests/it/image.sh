#!/bin/bash
# Images in headless prompts: for each provider the image goes in the
# provider's own form (an Anthropic image block; an OpenAI image_url part
# of the user message, since tool messages take none), a model without
# image input gets none, and the micro compaction stage turns old images
# into placeholders.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

run() { timeout 60 "$TANDEM" --output-format events --permission-mode yolo "$@" >"$T/out.jsonl" 2>"$T/err"; }
msgs() { grep -v '"kind":"models"' "$MOCK_LOG"; }
printf '\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\000\040\000\000\000\020\010\006\000\000\000' >shot.png
want=$(base64 -w0 shot.png)

mock_start "$(scenario oai <<'J'
{"check_echo": false, "responses": [{"text": "ok", "repeat": 10}]}
J
)"
export OPENAI_API_KEY=test-key
run -p "look at @shot.png" --provider openai --model gpt-4o
check "openai: the turn ends" [ "$(jq -r 'select(.type=="turn_end") | .stop_reason' "$T/out.jsonl")" = end_turn ]
check "openai: the attachment event names the image and its size" \
    jq -e -s '[.[] | select(.type=="attachment" and .kind=="image" and .width==32 and .height==16)] | length == 1' "$T/out.jsonl"
user=$(msgs | tail -n 1 | jq -c '.body.messages[] | select(.role=="user")' | tail -n 1)
check "openai: the user message's content is parts, text first" \
    jq -e '.content[0].type == "text" and (.content[0].text | startswith("look at @shot.png"))' <<<"$user"
check "openai: the image is an image_url part with its bytes" \
    jq -e --arg u "data:image/png;base64,$want" '[.content[] | select(.type=="image_url" and .image_url.url == $u)] | length == 1' <<<"$user"
check "openai: the mock found nothing wrong" [ "$(mock_problems)" = 0 ]

run -p "look at @shot.png" --provider openai --model qwen2.5-coder
check "a model without image input: the image is not attached, and says why" \
    jq -e -s '[.[] | select(.type=="attachment" and (.error // "" | test("does not take images")))] | length == 1' "$T/out.jsonl"
check "and nothing but text goes" \
    [ "$(msgs | tail -n 1 | jq -c '[.body.messages[].content | arrays | .[] | select(.type=="image_url")] | length')" = 0 ]
mock_stop

# read_file on an image: the image goes back in the tool_result (Anthropic),
# or in a user message after the tool message (OpenAI).
mock_start "$(scenario readimg <<'J'
{"check_echo": false, "responses": [
 {"match": "toolu_i1", "text": "seen", "stop_reason": "end_turn", "repeat": 5},
 {"tool_uses": [{"id": "toolu_i1", "name": "read_file", "input": {"path": "shot.png"}}], "repeat": 5}
]}
J
)"
run -p "read the picture" --provider openai --model gpt-4o
check "openai read_file: the turn ends" [ "$(jq -r 'select(.type=="turn_end") | .stop_reason' "$T/out.jsonl")" = end_turn ]
check "openai read_file: the result says what the image is" \
    jq -e -s '[.[] | select(.type=="tool_result" and (.content | test("shot.png: image/png, 32x16 pixels")))] | length == 1' "$T/out.jsonl"
last=$(msgs | tail -n 1 | jq -c '.body.messages')
check "openai read_file: the tool message holds text only" \
    jq -e '[.[] | select(.role=="tool") | .content | strings | test("image is attached")] | length == 1' <<<"$last"
check "openai read_file: a user message after it carries the image" \
    jq -e --arg u "data:image/png;base64,$want" '.[-1].role == "user" and ([.[-1].content[] | select(.type=="image_url" and .image_url.url == $u)] | length == 1)' <<<"$last"
unset OPENAI_API_KEY
run -p "read the picture"
check "anthropic read_file: the turn ends" [ "$(jq -r 'select(.type=="turn_end") | .stop_reason' "$T/out.jsonl")" = end_turn ]
res=$(msgs | tail -n 1 | jq -c '[.body.messages[-1].content[] | select(.type=="tool_result")][0]')
check "anthropic read_file: the tool_result holds the image block with its bytes" \
    jq -e --arg d "$want" '[.content[] | select(.type=="image" and .source.data == $d and .source.media_type == "image/png")] | length == 1' <<<"$res"
check "anthropic read_file: and no private key" jq -e '[.. | objects | keys[] | select(startswith("_"))] | length == 0' <<<"$res"
check "anthropic read_file: the mock found nothing wrong" [ "$(mock_problems)" = 0 ]
mock_stop

finish
