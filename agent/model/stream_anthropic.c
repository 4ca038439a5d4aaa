/*
 * The Anthropic Messages stream: message_start, content blocks started,
 * grown by deltas and stopped by index, message_delta, message_stop, plus
 * ping and error events (PROTOCOLS.md §1.3-1.7).
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "stream_int.h"
#include "xalloc.h"

/* A content block between its content_block_start and its stop. */
struct ablock {
	int		 index;
	cJSON		*block;		/* the start's content_block, grown */
	struct buf	 text;
	struct buf	 thinking;
	struct buf	 json;		/* input_json_delta fragments, joined */
	bool		 got_text;
	bool		 got_thinking;
	bool		 got_json;
};

struct astate {
	struct ablock	*open;
	size_t		 nopen;
	size_t		 cap;
};

static void *
anth_init(struct stream *s)
{
	(void)s;
	return xcalloc(1, sizeof(struct astate));
}

static void
anth_block_release(struct ablock *b)
{
	cJSON_Delete(b->block);
	buf_release(&b->text);
	buf_release(&b->thinking);
	buf_release(&b->json);
}

static void
anth_free(void *arg)
{
	struct astate *st = arg;
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nopen; i++)
		anth_block_release(&st->open[i]);
	free(st->open);
	free(st);
}

static struct ablock *
anth_find(struct astate *st, int index)
{
	size_t i;

	for (i = 0; i < st->nopen; i++)
		if (st->open[i].index == index)
			return &st->open[i];
	return NULL;
}

static bool
anth_is(const cJSON *block, const char *type)
{
	return strcmp(json_str(block, "type", ""), type) == 0;
}

/* Write the accumulated deltas into the block and hand it to the stream. */
static void
anth_close(struct stream *s, struct astate *st, struct ablock *b,
    bool incomplete)
{
	cJSON *block = b->block;
	int index = b->index;

	if (b->got_text || anth_is(block, "text"))
		stream_json_set_str(block, "text", buf_cstr(&b->text), b->text.len);
	if (b->got_thinking || anth_is(block, "thinking"))
		stream_json_set_str(block, "thinking", buf_cstr(&b->thinking),
		    b->thinking.len);
	if (b->got_json || anth_is(block, "tool_use") ||
	    json_get(block, "input") != NULL)
		stream_set_tool_input(block, buf_cstr(&b->json), b->json.len);
	/* A redacted_thinking block is whole from its start. */
	if (incomplete && !anth_is(block, "redacted_thinking"))
		cJSON_AddBoolToObject(block, "_incomplete", 1);
	b->block = NULL;
	anth_block_release(b);
	*b = st->open[--st->nopen];
	stream_add_block(s, index, block);
}

static void
anth_close_all(struct stream *s, struct astate *st)
{
	while (st->nopen > 0) {
		size_t i, first = 0;

		for (i = 1; i < st->nopen; i++)
			if (st->open[i].index < st->open[first].index)
				first = i;
		anth_close(s, st, &st->open[first], true);
	}
}

static void
anth_usage(struct stream *s, const cJSON *u)
{
	static const char *const keys[] = {
		"input_tokens", "output_tokens", "cache_creation_input_tokens",
		"cache_read_input_tokens",
	};
	int64_t *const dst[] = {
		&s->usage.input, &s->usage.output, &s->usage.cache_write,
		&s->usage.cache_read,
	};
	size_t i;

	if (!cJSON_IsObject(u))
		return;
	s->has_usage = true;
	/* Counts are cumulative: a field that is present replaces the old. */
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (cJSON_IsNumber(json_get(u, keys[i])))
			*dst[i] = json_int(u, keys[i], 0);
	if (cJSON_IsNumber(json_get(json_get(u, "server_tool_use"), "web_search_requests")))
		s->web_searches = json_int(json_get(u, "server_tool_use"), "web_search_requests", 0);
}

static void
anth_message_start(struct stream *s, struct astate *st, const cJSON *ev)
{
	const cJSON *msg = json_get(ev, "message");

	(void)st;
	stream_note_boundary(s);
	if (json_str(msg, "id", NULL) != NULL)
		stream_set_str(&s->id, json_str(msg, "id", NULL));
	if (json_str(msg, "model", NULL) != NULL)
		stream_set_str(&s->model, json_str(msg, "model", NULL));
	anth_usage(s, json_get(msg, "usage"));
}

/* The block index of an event; -1 (and the stream fails) when missing. */
static int
anth_index(struct stream *s, const cJSON *ev)
{
	const cJSON *v = json_get(ev, "index");

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e6) {
		stream_fail(s, "the server sent a %s event without a valid index",
		    json_str(ev, "type", "content block"));
		return -1;
	}
	return v->valueint;
}

static void
anth_block_start(struct stream *s, struct astate *st, const cJSON *ev)
{
	const cJSON *cb = json_get(ev, "content_block");
	struct ablock *b;
	int index = anth_index(s, ev);

	if (index < 0)
		return;
	if (!cJSON_IsObject(cb)) {
		stream_fail(s, "the server started block %d without its content",
		    index);
		return;
	}
	if ((b = anth_find(st, index)) != NULL)
		anth_close(s, st, b, true);
	stream_note_boundary(s);
	if (st->nopen == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 4;
		st->open = xreallocarray(st->open, st->cap, sizeof *st->open);
	}
	b = &st->open[st->nopen++];
	memset(b, 0, sizeof *b);
	b->index = index;
	b->block = cJSON_Duplicate(cb, 1);
	if (b->block == NULL)
		fatal("out of memory");
	buf_init(&b->text, STREAM_BLOCK_MAX);
	buf_init(&b->thinking, STREAM_BLOCK_MAX);
	buf_init(&b->json, STREAM_BLOCK_MAX);
	/* Some proxies put the whole text in the start; show it like a delta. */
	if (anth_is(cb, "text")) {
		const char *t = json_str(cb, "text", "");

		if (stream_accumulate(s, &b->text, t, strlen(t)) == 0)
			stream_emit_text(s, index, t, strlen(t));
	} else if (anth_is(cb, "thinking")) {
		const char *t = json_str(cb, "thinking", "");

		if (stream_accumulate(s, &b->thinking, t, strlen(t)) == 0)
			stream_emit_thinking(s, index, t, strlen(t));
	}
}

/* Append a string member of a delta to an accumulator; its length or -1. */
static int
anth_take(struct stream *s, struct buf *acc, const cJSON *delta,
    const char *key, size_t *n)
{
	const cJSON *v = json_get(delta, key);

	if (!cJSON_IsString(v) || v->valuestring == NULL) {
		stream_fail(s, "the server sent a %s without its %s",
		    json_str(delta, "type", "delta"), key);
		return -1;
	}
	*n = strlen(v->valuestring);
	return stream_accumulate(s, acc, v->valuestring, *n);
}

static void
anth_citation(struct ablock *b, const cJSON *delta)
{
	const cJSON *c = json_get(delta, "citation");
	cJSON *list = json_get(b->block, "citations"), *copy;

	if (c == NULL)
		return;
	if (!cJSON_IsArray(list)) {
		cJSON_DeleteItemFromObjectCaseSensitive(b->block, "citations");
		list = cJSON_AddArrayToObject(b->block, "citations");
	}
	copy = cJSON_Duplicate(c, 1);
	if (list == NULL || copy == NULL || !cJSON_AddItemToArray(list, copy))
		fatal("out of memory");
}

static void
anth_block_delta(struct stream *s, struct astate *st, const cJSON *ev)
{
	const cJSON *delta = json_get(ev, "delta");
	const char *type = json_str(delta, "type", "");
	struct ablock *b;
	size_t n, old;
	int index = anth_index(s, ev);

	if (index < 0)
		return;
	if ((b = anth_find(st, index)) == NULL) {
		stream_fail(s, "the server sent a delta for block %d, which is "
		    "not open", index);
		return;
	}
	if (strcmp(type, "text_delta") == 0) {
		old = b->text.len;
		b->got_text = true;
		if (anth_take(s, &b->text, delta, "text", &n) == 0)
			stream_emit_text(s, index, buf_cstr(&b->text) + old, n);
	} else if (strcmp(type, "thinking_delta") == 0) {
		old = b->thinking.len;
		b->got_thinking = true;
		if (anth_take(s, &b->thinking, delta, "thinking", &n) == 0)
			stream_emit_thinking(s, index, buf_cstr(&b->thinking) + old,
			    n);
	} else if (strcmp(type, "input_json_delta") == 0) {
		old = b->json.len;
		b->got_json = true;
		if (anth_take(s, &b->json, delta, "partial_json", &n) == 0)
			stream_note_progress(s, buf_cstr(&b->json) + old, n);
	} else if (strcmp(type, "signature_delta") == 0) {
		const char *sig = json_str(delta, "signature", "");

		stream_json_set_str(b->block, "signature", sig, strlen(sig));
	} else if (strcmp(type, "citations_delta") == 0)
		anth_citation(b, delta);
	/* Other delta types are newer than this code: the block stays as is. */
}

static void
anth_block_stop(struct stream *s, struct astate *st, const cJSON *ev)
{
	struct ablock *b;
	int index = anth_index(s, ev);

	/* A second stop for the same block changes nothing. */
	if (index >= 0 && (b = anth_find(st, index)) != NULL) {
		stream_note_boundary(s);
		anth_close(s, st, b, false);
	}
}

static void
anth_message_delta(struct stream *s, struct astate *st, const cJSON *ev)
{
	const char *reason = json_str(json_get(ev, "delta"), "stop_reason", NULL);

	(void)st;
	stream_note_boundary(s);
	if (reason != NULL)
		stream_set_str(&s->stop_reason, reason);
	anth_usage(s, json_get(ev, "usage"));
}

static void
anth_message_stop(struct stream *s, struct astate *st, const cJSON *ev)
{
	(void)ev;
	stream_note_boundary(s);
	s->complete = true;
	/* Nothing follows message_stop: a block still open never stops. */
	anth_close_all(s, st);
}

static void
anth_ping(struct stream *s, struct astate *st, const cJSON *ev)
{
	(void)st;
	(void)ev;
	s->pings++;
}

/* An error event; its data may not even be JSON. */
static void
anth_error(struct stream *s, const char *data, size_t n)
{
	cJSON *ev = stream_json_parse(data, n, NULL, NULL);
	const cJSON *err = json_get(ev, "error");

	if (cJSON_IsObject(err))
		stream_set_error(s, json_str(err, "type", NULL), "%s",
		    json_str(err, "message", "the server reported an error"));
	else if (n > 0)
		stream_set_error(s, NULL, "the server reported an error: %.*s",
		    n > 500 ? 500 : (int)n, data);
	else
		stream_set_error(s, NULL, "the server reported an error");
	cJSON_Delete(ev);
}

typedef void anth_event_fn(struct stream *, struct astate *, const cJSON *);

static const struct anth_event {
	const char	*name;
	anth_event_fn	*fn;
	bool		 needs_data;
} anth_events[] = {
	{ "message_start", anth_message_start, true },
	{ "content_block_start", anth_block_start, true },
	{ "content_block_delta", anth_block_delta, true },
	{ "content_block_stop", anth_block_stop, true },
	{ "message_delta", anth_message_delta, true },
	{ "message_stop", anth_message_stop, false },
	{ "ping", anth_ping, false },
};

static const struct anth_event *
anth_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof anth_events / sizeof anth_events[0]; i++)
		if (strcmp(anth_events[i].name, name) == 0)
			return &anth_events[i];
	return NULL;
}

static void
anth_event(struct stream *s, const char *name, const char *data, size_t n)
{
	struct astate *st = s->state;
	const struct anth_event *e;
	cJSON *ev = NULL;

	/* The SDKs go by the SSE event name; data-only proxies by "type". */
	if (*name == '\0' || strcmp(name, "message") == 0) {
		ev = stream_json_parse(data, n, NULL, NULL);
		name = json_str(ev, "type", "");
		/* A proxy's bare {"error": {...}} is an error all the same. */
		if (*name == '\0' && cJSON_IsObject(json_get(ev, "error")))
			name = "error";
	}
	if (strcmp(name, "error") == 0) {
		anth_error(s, data, n);
		goto out;
	}
	if ((e = anth_lookup(name)) == NULL) {
		s->unknown++;
		goto out;
	}
	if (ev == NULL && e->needs_data &&
	    (ev = stream_json_parse(data, n, NULL, NULL)) == NULL) {
		stream_fail(s, "the server sent a %s event that is not valid JSON",
		    e->name);
		goto out;
	}
	e->fn(s, st, ev);
out:
	cJSON_Delete(ev);
}

static void
anth_finish(struct stream *s)
{
	anth_close_all(s, s->state);
}

const struct stream_decoder stream_anthropic_decoder = {
	anth_init,
	anth_event,
	anth_finish,
	anth_free,
};
