/*
 * stream: one model response, decoded incrementally from its SSE bytes.
 *
 * Both providers decode into the same shape, the Anthropic one: content is
 * an array of Anthropic content blocks (text, thinking, redacted_thinking,
 * tool_use with its input parsed, and any other block kept verbatim), the
 * stop reason uses Anthropic's words (end_turn, tool_use, max_tokens,
 * stop_sequence, pause_turn, refusal), and usage has Anthropic's four
 * counters.  The agent above never sees which wire format was spoken.
 *
 * Bytes go in with stream_feed() as they arrive, in chunks of any size (one
 * byte at a time is fine); handler callbacks fire as soon as each piece is
 * known: text and thinking deltas at once, each block when it stops (a
 * tool_use is then complete, its input parsed, and can be scheduled while
 * the model is still streaming).  stream_finish() marks the end of input.
 */
#ifndef TANDEM_STREAM_H
#define TANDEM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct usage {
	int64_t	input;		/* input_tokens (uncached) */
	int64_t	output;		/* output_tokens */
	int64_t	cache_write;	/* cache_creation_input_tokens */
	int64_t	cache_read;	/* cache_read_input_tokens */
};

struct stream_handler {
	/* A text delta of the block at index. */
	void	(*text)(void *arg, int index, const char *s, size_t n);
	/* A thinking delta. */
	void	(*thinking)(void *arg, int index, const char *s, size_t n);
	/*
	 * A block finished (content_block_stop, or the end of an OpenAI tool
	 * call).  block is the final Anthropic-form block, owned by the
	 * stream; copy what you keep.  A tool_use whose input was not valid
	 * JSON has "input": {} and "_input_error": "<why>", "_input_raw": "...".
	 */
	void	(*block_done)(void *arg, int index, const cJSON *block);
	void	*arg;
};

enum stream_proto {
	STREAM_ANTHROPIC,
	STREAM_OPENAI
};

struct stream;

/* h is copied; h->arg stays the caller's. */
struct stream	*stream_new(enum stream_proto, const struct stream_handler *h);
void		 stream_free(struct stream *);
/*
 * Feed raw response-body bytes.  Returns 0, or -1 when the stream cannot
 * go on (a line over the 32 MiB limit); then stream_error() says why.
 */
int		 stream_feed(struct stream *, const char *bytes, size_t n);
/* End of input: flush a last event that had no blank line after it. */
void		 stream_finish(struct stream *);

/* The content blocks so far (an array, never NULL), owned by the stream. */
const cJSON	*stream_content(const struct stream *);
/* Take the content array; the caller owns it (the stream's becomes empty). */
cJSON		*stream_take_content(struct stream *);
/* NULL until known. */
const char	*stream_stop_reason(const struct stream *);
const char	*stream_message_id(const struct stream *);
const char	*stream_model(const struct stream *);
/* Cumulative usage; *has is set when the stream reported any. */
struct usage	 stream_usage(const struct stream *, bool *has);
/* The searches the API's web search server tool made (usage.server_tool_use.web_search_requests). */
int64_t		 stream_web_searches(const struct stream *);
/*
 * The stream reached its proper end: message_stop (Anthropic), or [DONE]
 * or a finish_reason (OpenAI).  False after EOF means it was cut short.
 */
bool		 stream_complete(const struct stream *);
/*
 * An error reported inside the stream (Anthropic "event: error", OpenAI
 * {"error": ...} data or the legacy "error:" field), or a decoding failure.
 * type is e.g. "overloaded_error"; both NULL when there was none.
 */
const char	*stream_error_type(const struct stream *);
const char	*stream_error(const struct stream *);
/* Bytes of text and thinking emitted so far (to know if output was shown). */
size_t		 stream_output_bytes(const struct stream *);
/*
 * The type of the response body (its Content-Type header; NULL or "" when
 * there was none), to name it when the body turns out not to be an event
 * stream.  Call before stream_finish.
 */
void		 stream_set_content_type(struct stream *, const char *);
/*
 * The body was not an event stream at all: an HTML page (a captive portal,
 * a proxy), a JSON object, plain text, or nothing.  stream_error() then
 * says what arrived in one sentence (its type and first bytes, made safe
 * to show), and stream_error_type() is "empty_body", "not_event_stream",
 * or the type a JSON error object named.  Known after stream_finish.
 */
bool		 stream_not_sse(const struct stream *);
/*
 * A count that grows with each delta of content (text, thinking or tool
 * input) that is not only white space, and with the message's start and
 * end and each block's start and stop: pings, comments, keep-alive blank lines, empty
 * chunks and empty deltas leave it alone.  A stall timer is re-armed when
 * it grows.
 */
unsigned long	 stream_progress(const struct stream *);
/* Pings and unknown events seen (for tests). */
int		 stream_pings(const struct stream *);
int		 stream_unknown_events(const struct stream *);

#endif
