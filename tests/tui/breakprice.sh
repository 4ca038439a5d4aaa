#!/bin/sh
# Screen test of the real tandem: a prompt-cache break is priced in dollars
# at the model's rates, in its note, on the status bar and in /cost.  The
# mock's second answer reads none of the 100k tokens the first one wrote:
# at claude-sonnet-5's rates (cache write $2.50, cache read $0.20 per
# million) writing them again costs $0.23 more than reading them; /context
# gives the last break's price too.  A model without a price says "price
# unknown".
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario breakprice <<'J'
{"check_echo":false,"responses":[
 {"text":"First.","stop_reason":"end_turn",
  "usage":{"input_tokens":100,"cache_creation_input_tokens":100000,"cache_read_input_tokens":0,"output_tokens":5}},
 {"text":"Second.","stop_reason":"end_turn","repeat":4,
  "usage":{"input_tokens":100,"cache_creation_input_tokens":100000,"cache_read_input_tokens":0,"output_tokens":5}}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 160 45 --model claude-sonnet-5-5
tui_check "the real tandem draws its screen" '› \? for keys'
tui_type "one"
tui_keys Enter
tui_check "the first answer" 'First\.'
tui_type "two"
tui_keys Enter
tui_check "the second answer" 'Second\.'
tui_check "the note prices the break" \
    'prompt cache break: 100k tokens no longer cached \(unknown\), \$0\.23 more than a cache read'
tui_check "the status bar prices it" 'cache break: unknown −100k \$0\.23'
tui_type "/cost"
tui_keys Enter
tui_check "/cost sums the breaks" 'Cache breaks: 1, \$0\.2300 to write the dropped tokens again'
tui_check "/cost lists each break with its price" 'request 2: 100000 tokens no longer cached \(unknown\), \$0\.2300'
tui_type "/context"
tui_keys Enter
tui_check "/context gives the last break's price" 'the last at request 2: 100000 of 100000 tokens not read \(unknown\), \$0\.2300'
tui_keys C-c
tui_keys C-c
tui_exited "tandem quits"

tui_mock_start "$SCEN"
tui_start_tandem 160 45 --model nonesuch-model-1
tui_check "tandem starts again" '› \? for keys'
tui_type "one"
tui_keys Enter
tui_check "the first answer" 'First\.'
tui_type "two"
tui_keys Enter
tui_check "a model without a price: the note says so" \
    'prompt cache break: 100k tokens no longer cached \(unknown\), price unknown'
tui_check "and the status bar" 'cache break: unknown −100k \$\?'
tui_type "/cost"
tui_keys Enter
tui_check "and /cost" 'request 2: 100000 tokens no longer cached \(unknown\), price unknown'
tui_mock_done
