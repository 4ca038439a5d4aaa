/*
 * stream_int: what stream.c shares with the two wire decoders
 * (stream_anthropic.c, stream_openai.c).  Not for use outside stream*.c.
 *
 * stream.c owns the SSE parser, the content array, the scalar results and
 * the handler; a decoder owns its own state (struct stream_decoder.state),
 * turns SSE events into calls of the helpers below, and frees its state in
 * its free function.  Blocks handed to stream_add_block become the
 * stream's.
 *
 * Error types the stream itself reports (besides those the server names):
 *	"invalid_stream"  undecodable data, a line or block over its limit, a
 *	                  tool call continued after it was closed;
 *	"empty_response"  an OpenAI stream that ended with nothing in it;
 *	"api_error"       a server error that named no type;
 *	"not_event_stream" a body that is not an event stream (an HTML page,
 *	                  JSON that is not an error, plain text);
 *	"empty_body"      a body with nothing in it.
 */
#ifndef TANDEM_STREAM_INT_H
#define TANDEM_STREAM_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "sse.h"
#include "stream.h"

/* Accumulated text, thinking or tool JSON of one block. */
#define STREAM_BLOCK_MAX (64u * 1024 * 1024)
/* What is kept of a body's start, to say what came when it is no stream. */
#define STREAM_HEAD_MAX 4096

struct stream_decoder {
	void	*(*init)(struct stream *);
	/* One SSE event; event is "" when unnamed. */
	void	 (*event)(struct stream *, const char *event, const char *data,
		    size_t n);
	/* End of input, after the SSE parser flushed its last event. */
	void	 (*finish)(struct stream *);
	void	 (*free)(void *state);
};

extern const struct stream_decoder stream_anthropic_decoder;
extern const struct stream_decoder stream_openai_decoder;

struct stream {
	const struct stream_decoder *dec;
	void		*state;
	struct stream_handler h;
	struct sse	 sse;
	cJSON		*content;
	int		*content_index;	/* the block index of each content item */
	size_t		 content_n;	/* items in content */
	size_t		 content_cap;
	char		*stop_reason;
	char		*id;
	char		*model;
	char		*err_type;
	char		*err_msg;
	struct usage	 usage;
	bool		 has_usage;
	int64_t		 web_searches;	/* usage.server_tool_use.web_search_requests */
	bool		 complete;
	bool		 finished;
	bool		 failed;	/* stream_feed returns -1 from now on */
	size_t		 output_bytes;
	size_t		 body_bytes;	/* fed so far */
	struct buf	 head;		/* the first STREAM_HEAD_MAX bytes fed */
	char		*content_type;
	bool		 not_sse;	/* the body was no event stream */
	unsigned long	 progress;	/* content deltas so far */
	int		 pings;
	int		 unknown;
};

/* Record an error; the first one wins.  type NULL means "api_error". */
void	stream_set_error(struct stream *, const char *type, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* A fatal decoding failure: record it and stop accepting bytes. */
void	stream_fail(struct stream *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Replace *dst with a copy of s (NULL clears it). */
void	stream_set_str(char **dst, const char *s);
/* Deliver deltas to the handler (invalid UTF-8 is replaced first). */
void	stream_emit_text(struct stream *, int index, const char *s, size_t n);
void	stream_emit_thinking(struct stream *, int index, const char *s, size_t n);
/*
 * A finished block: insert it into content by index and call block_done.
 * Takes ownership of block.
 */
void	stream_add_block(struct stream *, int index, cJSON *block);
/*
 * Set block's "input" from the raw JSON text of a tool call: empty keeps
 * a non-empty object already there (else {}); text that is not a JSON
 * object gives {} plus "_input_error" and "_input_raw".
 */
void	stream_set_tool_input(cJSON *block, const char *raw, size_t n);
/*
 * Parse JSON text from the server (json_parse_at's contract), repaired
 * first: invalid UTF-8 becomes U+FFFD, and so does a \u escape of a lone
 * surrogate, which cJSON would refuse.  The caller frees the result.
 */
cJSON	*stream_json_parse(const char *p, size_t n, int *line, int *col);
/* Set key of obj to a string, replacing any old value. */
void	stream_json_set_str(cJSON *obj, const char *key, const char *s, size_t n);
/* A content delta arrived (text, thinking or tool input): see stream_progress. */
void	stream_note_progress(struct stream *, const char *s, size_t n);
/* A block or the message started, stopped or ended: progress too. */
void	stream_note_boundary(struct stream *);
/* Append to an accumulator; on overflow the stream fails and -1 returns. */
int	stream_accumulate(struct stream *, struct buf *, const char *s, size_t n);

#endif
