/*
 * sse: an incremental Server-Sent Events parser (WHATWG event stream
 * interpretation, as the Anthropic SDKs implement it).
 *
 * Feed bytes in chunks of any size.  Lines end with LF, CRLF or a bare CR,
 * split across chunks anywhere; a line starting with ':' is a comment;
 * "data" lines are joined with '\n'; a blank line dispatches.  An event
 * with a name but no data is still dispatched (data "").  Bytes are only
 * split on CR and LF, so UTF-8 split across chunks is reassembled whole.
 * A non-standard "error" field (old llama.cpp) is reported as an event
 * named "error" carrying that field's value as data.
 */
#ifndef TANDEM_SSE_H
#define TANDEM_SSE_H

#include <stddef.h>

#include "buf.h"

#define SSE_LINE_MAX (32u * 1024 * 1024)

/* event is "" when the stream named none ("message" in WHATWG terms). */
typedef void sse_event_fn(void *arg, const char *event, const char *data, size_t len);

struct sse {
	sse_event_fn	*fn;
	void		*arg;
	struct buf	 line;
	struct buf	 data;
	struct buf	 event;
	int		 has_data;
	int		 pending_cr;	/* the last byte was CR: skip one LF */
	int		 failed;
	unsigned long	 events;	/* dispatched so far */
};

void	sse_init(struct sse *, sse_event_fn *, void *arg);
void	sse_release(struct sse *);
/* 0, or -1 when a line passes SSE_LINE_MAX (the parser then stops). */
int	sse_feed(struct sse *, const char *p, size_t n);
/* End of stream: dispatch a pending event that had no blank line after it. */
void	sse_finish(struct sse *);

#endif
