/*
 * One model response decoded incrementally: see stream.h.  This file holds
 * what both wire formats share; stream_anthropic.c and stream_openai.c
 * turn their SSE events into blocks, deltas and results.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "sse.h"
#include "stream.h"
#include "stream_int.h"
#include "utf8.h"
#include "xalloc.h"

static void
stream_on_event(void *arg, const char *event, const char *data, size_t n)
{
	struct stream *s = arg;

	if (s->failed)
		return;
	s->dec->event(s, event, data, n);
}

struct stream *
stream_new(enum stream_proto proto, const struct stream_handler *h)
{
	struct stream *s = xcalloc(1, sizeof *s);

	s->dec = proto == STREAM_OPENAI ? &stream_openai_decoder :
	    &stream_anthropic_decoder;
	if (h != NULL)
		s->h = *h;
	sse_init(&s->sse, stream_on_event, s);
	s->content = cJSON_CreateArray();
	if (s->content == NULL)
		fatal("out of memory");
	s->state = s->dec->init(s);
	return s;
}

void
stream_free(struct stream *s)
{
	if (s == NULL)
		return;
	s->dec->free(s->state);
	sse_release(&s->sse);
	cJSON_Delete(s->content);
	free(s->content_index);
	free(s->stop_reason);
	free(s->id);
	free(s->model);
	free(s->err_type);
	free(s->err_msg);
	free(s);
}

int
stream_feed(struct stream *s, const char *bytes, size_t n)
{
	if (s->failed || s->finished)
		return s->failed ? -1 : 0;
	if (sse_feed(&s->sse, bytes, n) == -1)
		stream_fail(s, "the server sent a line or event longer than %u MiB",
		    SSE_LINE_MAX / (1024 * 1024));
	return s->failed ? -1 : 0;
}

void
stream_finish(struct stream *s)
{
	if (s->finished)
		return;
	if (!s->failed)
		sse_finish(&s->sse);
	s->finished = true;
	s->dec->finish(s);
}

static void
stream_vset_error(struct stream *s, const char *type, const char *fmt,
    va_list ap)
{
	struct buf msg = BUF_INIT(BUF_NOLIMIT), clean = BUF_INIT(BUF_NOLIMIT);

	if (s->err_msg != NULL)
		return;
	if (buf_vprintf(&msg, fmt, ap) == -1)
		buf_reset(&msg);
	utf8_sanitize(&clean, msg.data != NULL ? msg.data : "", msg.len);
	s->err_msg = buf_detach(&clean, NULL);
	s->err_type = xstrdup(type != NULL && *type != '\0' ? type : "api_error");
	buf_release(&msg);
}

void
stream_set_error(struct stream *s, const char *type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stream_vset_error(s, type, fmt, ap);
	va_end(ap);
}

void
stream_fail(struct stream *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stream_vset_error(s, "invalid_stream", fmt, ap);
	va_end(ap);
	s->failed = true;
}

void
stream_set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src != NULL ? xstrdup(src) : NULL;
}

int
stream_accumulate(struct stream *s, struct buf *b, const char *p, size_t n)
{
	if (buf_append(b, p, n) == 0)
		return 0;
	stream_fail(s, "a content block of the response passed %u MiB",
	    STREAM_BLOCK_MAX / (1024 * 1024));
	return -1;
}

typedef void stream_delta_fn(void *arg, int index, const char *s, size_t n);

/* Count and deliver a delta, repaired first if it is not valid UTF-8. */
static void
stream_emit(struct stream *s, stream_delta_fn *fn, int index, const char *p,
    size_t n)
{
	struct buf clean = BUF_INIT(BUF_NOLIMIT);

	if (n == 0)
		return;
	if (!utf8_valid(p, n)) {
		utf8_sanitize(&clean, p, n);
		p = buf_cstr(&clean);
		n = clean.len;
	}
	s->output_bytes += n;
	if (fn != NULL)
		fn(s->h.arg, index, p, n);
	buf_release(&clean);
}

void
stream_emit_text(struct stream *s, int index, const char *p, size_t n)
{
	stream_emit(s, s->h.text, index, p, n);
}

void
stream_emit_thinking(struct stream *s, int index, const char *p, size_t n)
{
	stream_emit(s, s->h.thinking, index, p, n);
}

void
stream_add_block(struct stream *s, int index, cJSON *block)
{
	size_t n = s->content_n, pos;
	cJSON *at = NULL;

	if (n == s->content_cap) {
		s->content_cap = s->content_cap ? s->content_cap * 2 : 8;
		s->content_index = xreallocarray(s->content_index,
		    s->content_cap, sizeof *s->content_index);
	}
	/*
	 * Blocks take their place by index, whatever order they stop in.  They
	 * nearly always stop in order, so the search starts from the end and
	 * walks the list backwards: appending costs the same at any length.
	 */
	for (pos = n; pos > 0 && s->content_index[pos - 1] > index; pos--)
		at = at == NULL ? s->content->child->prev : at->prev;
	memmove(s->content_index + pos + 1, s->content_index + pos,
	    (n - pos) * sizeof *s->content_index);
	s->content_index[pos] = index;
	s->content_n++;
	if (at == NULL) {
		if (!cJSON_AddItemToArray(s->content, block))
			fatal("out of memory");
	} else {
		/* Before at; the first child's prev points at the last child. */
		block->next = at;
		block->prev = at->prev;
		if (at == s->content->child)
			s->content->child = block;
		else
			at->prev->next = block;
		at->prev = block;
	}
	if (s->h.block_done != NULL)
		s->h.block_done(s->h.arg, index, block);
}

/* Set key to item, in place when the key exists (echoed blocks keep their order). */
static void
stream_json_replace(cJSON *obj, const char *key, cJSON *item)
{
	if (item == NULL)
		fatal("out of memory");
	if (json_get(obj, key) != NULL) {
		if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item))
			fatal("out of memory");
	} else if (!cJSON_AddItemToObject(obj, key, item))
		fatal("out of memory");
}

void
stream_json_set_str(cJSON *obj, const char *key, const char *p, size_t n)
{
	struct buf clean = BUF_INIT(BUF_NOLIMIT);

	utf8_sanitize(&clean, p, n);
	stream_json_replace(obj, key, cJSON_CreateString(buf_cstr(&clean)));
	buf_release(&clean);
}

static bool
stream_blank(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(" \t\r\n", p[i]) == NULL || p[i] == '\0')
			return false;
	return true;
}

void
stream_set_tool_input(cJSON *block, const char *raw, size_t n)
{
	const cJSON *old = json_get(block, "input");
	char why[128];
	cJSON *input;
	int line = 0, col = 0;

	if (stream_blank(raw, n)) {
		/* A tool without parameters, or a proxy that sent it whole. */
		if (cJSON_IsObject(old))
			return;
		stream_json_replace(block, "input", cJSON_CreateObject());
		return;
	}
	input = json_parse_at(raw, n, &line, &col);
	if (cJSON_IsObject(input)) {
		stream_json_replace(block, "input", input);
		return;
	}
	if (input != NULL)
		snprintf(why, sizeof why, "the tool input is not a JSON object");
	else
		snprintf(why, sizeof why, "the tool input is not valid JSON "
		    "(it breaks at line %d, column %d)", line, col);
	cJSON_Delete(input);
	stream_json_replace(block, "input", cJSON_CreateObject());
	stream_json_set_str(block, "_input_error", why, strlen(why));
	stream_json_set_str(block, "_input_raw", raw, n);
}

const cJSON *
stream_content(const struct stream *s)
{
	return s->content;
}

cJSON *
stream_take_content(struct stream *s)
{
	cJSON *c = s->content;

	s->content = cJSON_CreateArray();
	if (s->content == NULL)
		fatal("out of memory");
	free(s->content_index);
	s->content_index = NULL;
	s->content_cap = 0;
	s->content_n = 0;
	return c;
}

const char *
stream_stop_reason(const struct stream *s)
{
	return s->stop_reason;
}

const char *
stream_message_id(const struct stream *s)
{
	return s->id;
}

const char *
stream_model(const struct stream *s)
{
	return s->model;
}

struct usage
stream_usage(const struct stream *s, bool *has)
{
	if (has != NULL)
		*has = s->has_usage;
	return s->usage;
}

bool
stream_complete(const struct stream *s)
{
	return s->complete;
}

const char *
stream_error_type(const struct stream *s)
{
	return s->err_type;
}

const char *
stream_error(const struct stream *s)
{
	return s->err_msg;
}

size_t
stream_output_bytes(const struct stream *s)
{
	return s->output_bytes;
}

int
stream_pings(const struct stream *s)
{
	return s->pings;
}

int
stream_unknown_events(const struct stream *s)
{
	return s->unknown;
}
