/* fuzz_stream_openai: the OpenAI stream decoder (agent/stream_openai.c); see fuzz_stream.h. */
#define FUZZ_STREAM_PROTO STREAM_OPENAI
#include "fuzz_stream.h"
