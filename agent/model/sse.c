/* Incremental Server-Sent Events parser: see sse.h. */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "sse.h"

void
sse_init(struct sse *s, sse_event_fn *fn, void *arg)
{
	s->fn = fn;
	s->arg = arg;
	buf_init(&s->line, SSE_LINE_MAX);
	buf_init(&s->data, SSE_LINE_MAX);
	buf_init(&s->event, SSE_LINE_MAX);
	s->has_data = 0;
	s->pending_cr = 0;
	s->failed = 0;
	s->events = 0;
}

void
sse_release(struct sse *s)
{
	buf_release(&s->line);
	buf_release(&s->data);
	buf_release(&s->event);
	s->has_data = 0;
	s->pending_cr = 0;
}

/* A blank line: hand the assembled event over, then start a new one. */
static void
sse_dispatch(struct sse *s)
{
	/*
	 * WHATWG drops an event without data; the Anthropic SDKs deliver one
	 * that has a name, with data "", and so do we.
	 */
	if (s->has_data || s->event.len > 0) {
		s->events++;
		s->fn(s->arg, buf_cstr(&s->event), buf_cstr(&s->data),
		    s->data.len);
	}
	buf_reset(&s->data);
	buf_reset(&s->event);
	s->has_data = 0;
}

static int
sse_add_data(struct sse *s, const char *v, size_t n)
{
	if (s->has_data && buf_putc(&s->data, '\n') == -1)
		return -1;
	s->has_data = 1;
	return buf_append(&s->data, v, n);
}

/* One complete line, without its line end.  -1 when the event is too big. */
static int
sse_line(struct sse *s, const char *p, size_t n)
{
	const char *colon, *v;
	size_t flen, vlen;

	if (n == 0) {
		sse_dispatch(s);
		return 0;
	}
	if (p[0] == ':')
		return 0;
	colon = memchr(p, ':', n);
	flen = colon != NULL ? (size_t)(colon - p) : n;
	v = colon != NULL ? colon + 1 : p + n;
	vlen = n - (size_t)(v - p);
	if (vlen > 0 && v[0] == ' ') {
		v++;
		vlen--;
	}
	if (flen == 4 && memcmp(p, "data", 4) == 0)
		return sse_add_data(s, v, vlen);
	if (flen == 5 && memcmp(p, "event", 5) == 0) {
		buf_reset(&s->event);
		return buf_append(&s->event, v, vlen);
	}
	if (flen == 5 && memcmp(p, "error", 5) == 0) {
		/* Old llama.cpp sent its error in this non-standard field. */
		buf_reset(&s->event);
		if (buf_puts(&s->event, "error") == -1)
			return -1;
		return sse_add_data(s, v, vlen);
	}
	/* id, retry and unknown fields carry nothing a model stream needs. */
	return 0;
}

static int
sse_fail(struct sse *s)
{
	s->failed = 1;
	buf_release(&s->line);
	buf_release(&s->data);
	buf_release(&s->event);
	return -1;
}

/* A line end at p: finish the line made of the held bytes plus p[0..n). */
static int
sse_end_line(struct sse *s, const char *p, size_t n)
{
	int r;

	if (n > SSE_LINE_MAX - s->line.len)
		return -1;
	if (s->line.len == 0)
		return sse_line(s, p, n);
	if (buf_append(&s->line, p, n) == -1)
		return -1;
	r = sse_line(s, s->line.data, s->line.len);
	buf_reset(&s->line);
	return r;
}

int
sse_feed(struct sse *s, const char *p, size_t n)
{
	const char *end = p + n;

	if (s->failed)
		return -1;
	while (p < end) {
		const char *q = p;

		if (s->pending_cr) {
			s->pending_cr = 0;
			if (*p == '\n') {
				p++;
				continue;
			}
		}
		while (q < end && *q != '\n' && *q != '\r')
			q++;
		if (q == end) {
			/* An unfinished line: hold it until its line end comes. */
			if (buf_append(&s->line, p, (size_t)(end - p)) == -1)
				return sse_fail(s);
			break;
		}
		if (sse_end_line(s, p, (size_t)(q - p)) == -1)
			return sse_fail(s);
		s->pending_cr = *q == '\r';
		p = q + 1;
	}
	return 0;
}

void
sse_finish(struct sse *s)
{
	if (s->failed)
		return;
	s->pending_cr = 0;
	if (s->line.len > 0) {
		if (sse_end_line(s, NULL, 0) == -1) {
			sse_fail(s);
			return;
		}
	}
	sse_dispatch(s);
}
