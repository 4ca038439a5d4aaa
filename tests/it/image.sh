#!/bin/bash
# Images in headless prompts: for each provider the image goes in the
# provider's own form (an Anthropic image block; an OpenAI image_url part
# of the user message, since tool messages take none), a model without
# image input gets none, and the micro compaction stage turns old images
# into placeholders.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

run() { timeout 60 "$TANDEM" --output-format events "$@" >"$T/out.jsonl" 2>"$T/err"; }
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
unset OPENAI_API_KEY
mock_stop

finish
