/* fuzz_stream_anthropic: the Anthropic stream decoder (agent/stream_anthropic.c); see fuzz_stream.h. */
#define FUZZ_STREAM_PROTO STREAM_ANTHROPIC
#include "fuzz_stream.h"
