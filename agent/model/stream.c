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
#include "hex.h"
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
	buf_init(&s->head, STREAM_HEAD_MAX);
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
	buf_release(&s->head);
	free(s->content_type);
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
	size_t room = STREAM_HEAD_MAX - s->head.len;

	if (s->failed || s->finished)
		return s->failed ? -1 : 0;
	if (room > 0)
		buf_append(&s->head, bytes, n < room ? n : room);
	s->body_bytes += n;
	if (sse_feed(&s->sse, bytes, n) == -1)
		stream_fail(s, "the server sent a line or event longer than %u MiB",
		    SSE_LINE_MAX / (1024 * 1024));
	return s->failed ? -1 : 0;
}

/* Where the body's first token starts: past white space and a BOM. */
static size_t
stream_head_start(const struct buf *h)
{
	size_t i = 0;

	if (h->len >= 3 && memcmp(h->data, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < h->len && strchr(" \t\r\n", h->data[i]) != NULL &&
	    h->data[i] != '\0')
		i++;
	return i;
}

/* The body starts like an event stream (perhaps cut short): a comment or a field. */
static bool
stream_head_is_sse(const char *p, size_t n)
{
	static const char *const fields[] = { "data", "event", "id", "retry", "error" };
	size_t i, k;

	if (n == 0 || *p == ':')
		return true;
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		k = strlen(fields[i]);
		if (n <= k ? memcmp(p, fields[i], n) == 0 :
		    memcmp(p, fields[i], k) == 0 && strchr(":\r\n", p[k]) != NULL)
			return true;
	}
	return false;
}

/* The first bytes of the body, on one line, cut short, safe to show. */
static void
stream_head_quote(struct buf *out, const char *p, size_t n)
{
	struct buf flat = BUF_INIT(BUF_NOLIMIT);
	size_t i, cut;
	bool space = false;

	for (i = 0; i < n && flat.len < 200; i++) {
		if (strchr(" \t\r\n", p[i]) != NULL && p[i] != '\0') {
			space = true;
			continue;
		}
		if (space && flat.len > 0)
			buf_putc(&flat, ' ');
		space = false;
		buf_putc(&flat, p[i]);
	}
	cut = flat.len > 120 ? utf8_floor(buf_cstr(&flat), 120) : flat.len;
	buf_putc(out, '"');
	utf8_sanitize_term(out, buf_cstr(&flat), cut, NULL);
	buf_puts(out, cut < flat.len || i < n ? "...\"" : "\"");
	buf_release(&flat);
}

/* An HTML page's title, if its first bytes have one. */
static void
stream_head_title(struct buf *out, const char *p, size_t n)
{
	const char *t = memmem(p, n, "<title", 6), *end;

	if (t == NULL)
		t = memmem(p, n, "<TITLE", 6);
	if (t == NULL || (t = memchr(t, '>', n - (size_t)(t - p))) == NULL)
		return;
	t++;
	if ((end = memchr(t, '<', n - (size_t)(t - p))) == NULL || end == t)
		return;
	buf_puts(out, ", titled ");
	stream_head_quote(out, t, (size_t)(end - t));
}

/*
 * A body with no event in it that does not start like an event stream:
 * say in one sentence what arrived instead.  A JSON error object keeps
 * the type it names, so that the caller can decide as for any error.
 */
static void
stream_check_body(struct stream *s)
{
	struct buf what = BUF_INIT(BUF_NOLIMIT);
	const char *ct = s->content_type != NULL && *s->content_type != '\0' ?
	    s->content_type : NULL;
	size_t at = stream_head_start(&s->head);
	const char *p = buf_cstr(&s->head) + at;
	size_t n = s->head.len - at;
	cJSON *json = NULL;
	const cJSON *err;

	if (s->sse.events > 0 || s->err_msg != NULL)
		return;
	if (s->body_bytes == 0) {
		s->not_sse = true;
		stream_set_error(s, "empty_body", "the server answered with an empty body "
		    "instead of an event stream%s%s%s", ct ? " (" : "", ct ? ct : "", ct ? ")" : "");
		return;
	}
	if (stream_head_is_sse(p, n))
		return;
	s->not_sse = true;
	if (*p == '{' && s->body_bytes <= STREAM_HEAD_MAX)
		json = stream_json_parse(p, n, NULL, NULL);
	err = json_get(json, "error");
	if (cJSON_IsObject(err) || cJSON_IsString(err)) {
		const char *type = json_str(err, "type", NULL), *msg = json_str(err, "message", NULL);

		if (type == NULL)
			type = json_str(err, "code", NULL);
		if (msg == NULL)
			msg = cJSON_IsString(err) ? err->valuestring : "no message";
		buf_puts(&what, msg);
		stream_set_error(s, type, "the server answered with a JSON error instead of an "
		    "event stream: %s", buf_cstr(&what));
		goto out;
	}
	buf_printf(&what, "the server answered with %s%s%s%s (%zu bytes) instead of an event stream",
	    *p == '<' ? "a page" : *p == '{' || *p == '[' ? "JSON" : "text",
	    ct ? " of type " : "", ct ? ct : "", ct ? "" : " of no stated type", s->body_bytes);
	if (*p == '<')
		stream_head_title(&what, p, n);
	buf_puts(&what, ", starting ");
	stream_head_quote(&what, p, n);
	if (*p == '<')
		buf_puts(&what, "; a captive portal or a proxy may be in the way");
	stream_set_error(s, "not_event_stream", "%s", buf_cstr(&what));
out:
	cJSON_Delete(json);
	buf_release(&what);
}

void
stream_finish(struct stream *s)
{
	if (s->finished)
		return;
	if (!s->failed)
		sse_finish(&s->sse);
	s->finished = true;
	stream_check_body(s);
	s->dec->finish(s);
}

void
stream_set_content_type(struct stream *s, const char *ct)
{
	stream_set_str(&s->content_type, ct);
}

bool
stream_not_sse(const struct stream *s)
{
	return s->not_sse;
}

void
stream_note_progress(struct stream *s, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(" \t\r\n", p[i]) == NULL || p[i] == '\0') {
			s->progress++;
			return;
		}
}

void
stream_note_boundary(struct stream *s)
{
	s->progress++;
}

unsigned long
stream_progress(const struct stream *s)
{
	return s->progress;
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
	stream_note_progress(s, p, n);
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

static int
stream_hex4(const char *p, size_t n, size_t i, unsigned *v)
{
	size_t k;

	*v = 0;
	if (i + 6 > n || p[i] != '\\' || p[i + 1] != 'u')
		return -1;
	for (k = i + 2; k < i + 6; k++) {
		int d = hex_digit((unsigned char)p[k]);

		if (d < 0)
			return -1;
		*v = *v << 4 | (unsigned)d;
	}
	return 0;
}

/*
 * Copy JSON text with each \u escape of a lone surrogate (a high one not
 * followed by a low one, or a low one alone) written as \ufffd: JSON
 * allows them, UTF-8 cannot hold them, and cJSON refuses the whole text.
 */
static void
stream_repair_surrogates(struct buf *out, const char *p, size_t n)
{
	size_t i = 0;
	unsigned hi, lo;

	while (i < n) {
		if (p[i] != '\\' || i + 1 >= n) {
			buf_putc(out, p[i++]);
			continue;
		}
		if (stream_hex4(p, n, i, &hi) == -1) {
			buf_append(out, p + i, 2);
			i += 2;
			continue;
		}
		if (hi >= 0xD800 && hi <= 0xDBFF && stream_hex4(p, n, i + 6, &lo) == 0 &&
		    lo >= 0xDC00 && lo <= 0xDFFF) {
			buf_append(out, p + i, 12);
			i += 12;
		} else if (hi >= 0xD800 && hi <= 0xDFFF) {
			buf_puts(out, "\\ufffd");
			i += 6;
		} else {
			buf_append(out, p + i, 6);
			i += 6;
		}
	}
}

cJSON *
stream_json_parse(const char *p, size_t n, int *line, int *col)
{
	struct buf clean = BUF_INIT(BUF_NOLIMIT), fixed = BUF_INIT(BUF_NOLIMIT);
	cJSON *v;

	/* Invalid UTF-8 would pass through cJSON into blocks sent back later. */
	if (!utf8_valid(p, n)) {
		utf8_sanitize(&clean, p, n);
		p = buf_cstr(&clean);
		n = clean.len;
	}
	v = json_parse_at(p, n, line, col);
	if (v == NULL && memmem(p, n, "\\u", 2) != NULL) {
		stream_repair_surrogates(&fixed, p, n);
		v = json_parse_at(buf_cstr(&fixed), fixed.len, line, col);
	}
	buf_release(&clean);
	buf_release(&fixed);
	return v;
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
	input = stream_json_parse(raw, n, &line, &col);
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

int64_t
stream_web_searches(const struct stream *s)
{
	return s->web_searches;
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
