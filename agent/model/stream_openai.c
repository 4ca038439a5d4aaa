/*
 * The OpenAI-compatible Chat Completions stream (OpenAI, Ollama, llama.cpp,
 * vLLM): data-only chunks, tool calls assembled by their index, usage in
 * any chunk, [DONE] at the end (PROTOCOLS.md §2).
 *
 * Blocks come out in Anthropic form.  Their indices: the text is block 0,
 * emitted when the choice finishes; the tool calls are blocks 1, 2, ... in
 * the order they start, each emitted as soon as a later call starts or the
 * choice finishes.  The content array holds the text first (only when
 * there was some), then the calls.  Reasoning (reasoning_content, or
 * reasoning) goes to the thinking callback as index 0 and is not kept in
 * content: OpenAI servers must not get it back.
 */
#include "autoconf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "stream_int.h"
#include "xalloc.h"

struct ocall {
	int64_t		 wire;		/* tool_calls[].index */
	int		 ord;		/* order of appearance */
	char		*id;
	char		*name;
	struct buf	 args;
	bool		 done;
};

struct ostate {
	struct ocall	*calls;
	size_t		 ncalls;
	size_t		 cap;
	size_t		 nclosed;	/* calls close in order: [0, nclosed) are done */
	int64_t		 wire_max;	/* the largest wire index seen */
	bool		 wire_sorted;	/* wire indices only grew: lookups bisect */
	struct buf	 text;
	bool		 text_done;
	bool		 any_output;	/* text, reasoning or refusal seen */
	bool		 refusal;
	bool		 finished;	/* a finish_reason came */
	bool		 done;		/* [DONE] came */
};

static void *
oai_init(struct stream *s)
{
	struct ostate *st = xcalloc(1, sizeof *st);

	(void)s;
	buf_init(&st->text, STREAM_BLOCK_MAX);
	return st;
}

static void
oai_free(void *arg)
{
	struct ostate *st = arg;
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->ncalls; i++) {
		free(st->calls[i].id);
		free(st->calls[i].name);
		buf_release(&st->calls[i].args);
	}
	free(st->calls);
	buf_release(&st->text);
	free(st);
}

/*
 * A call without an id still needs one that no other call in the session
 * shares (results and the effects ledger are keyed by it).
 */
static char *
oai_make_id(int ord)
{
	unsigned char r[8];
	struct timespec ts;
	uint64_t v = 0;
	char id[64];
	size_t i;

	if (getentropy(r, sizeof r) == 0) {
		for (i = 0; i < sizeof r; i++)
			v = v << 8 | r[i];
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint64_t)ts.tv_sec << 30 ^ (uint64_t)ts.tv_nsec;
	}
	snprintf(id, sizeof id, "call_%016" PRIx64 "_%d", v, ord);
	return xstrdup(id);
}

static void
oai_close_call(struct stream *s, struct ocall *c, bool incomplete)
{
	cJSON *block = cJSON_CreateObject();

	if (block == NULL)
		fatal("out of memory");
	c->done = true;
	if (c->id == NULL)
		c->id = oai_make_id(c->ord);
	stream_json_set_str(block, "type", "tool_use", 8);
	stream_json_set_str(block, "id", c->id, strlen(c->id));
	stream_json_set_str(block, "name", c->name != NULL ? c->name : "",
	    c->name != NULL ? strlen(c->name) : 0);
	stream_set_tool_input(block, buf_cstr(&c->args), c->args.len);
	if (incomplete)
		cJSON_AddBoolToObject(block, "_incomplete", 1);
	buf_release(&c->args);
	stream_add_block(s, 1 + c->ord, block);
}

static void
oai_close_calls(struct stream *s, struct ostate *st, bool incomplete)
{
	for (; st->nclosed < st->ncalls; st->nclosed++)
		if (!st->calls[st->nclosed].done)
			oai_close_call(s, &st->calls[st->nclosed], incomplete);
}

static void
oai_close_text(struct stream *s, struct ostate *st, bool incomplete)
{
	cJSON *block;

	if (st->text_done)
		return;
	st->text_done = true;
	if (st->text.len == 0)
		return;
	if ((block = cJSON_CreateObject()) == NULL)
		fatal("out of memory");
	stream_json_set_str(block, "type", "text", 4);
	stream_json_set_str(block, "text", buf_cstr(&st->text), st->text.len);
	if (incomplete)
		cJSON_AddBoolToObject(block, "_incomplete", 1);
	buf_release(&st->text);
	stream_add_block(s, 0, block);
}

static void
oai_close_all(struct stream *s, struct ostate *st, bool incomplete)
{
	oai_close_text(s, st, incomplete);
	oai_close_calls(s, st, incomplete);
}

/* {"error": {...}} data, the legacy error: field, or an error object. */
static void
oai_error(struct stream *s, const cJSON *err, const char *data, size_t n)
{
	const cJSON *code = json_get(err, "code");
	const char *type = json_str(err, "type", NULL);
	char num[32];

	if (type == NULL && cJSON_IsString(code))
		type = code->valuestring;
	else if (type == NULL && cJSON_IsNumber(code)) {
		snprintf(num, sizeof num, "%.0f", code->valuedouble);
		type = num;
	}
	if (json_str(err, "message", NULL) != NULL)
		stream_set_error(s, type, "%s", json_str(err, "message", ""));
	else if (cJSON_IsString(err))
		stream_set_error(s, type, "%s", err->valuestring);
	else if (err != NULL) {
		char *text = json_print(err);

		stream_set_error(s, type, "the server reported an error: %.500s",
		    text);
		free(text);
	} else
		stream_set_error(s, type, "the server reported an error: %.*s",
		    n > 500 ? 500 : (int)n, data);
}

static void
oai_error_event(struct stream *s, const char *data, size_t n)
{
	cJSON *ev = stream_json_parse(data, n, NULL, NULL);
	const cJSON *err = json_get(ev, "error");

	oai_error(s, err != NULL ? err : ev, data, n);
	cJSON_Delete(ev);
}

static void
oai_usage(struct stream *s, const cJSON *u)
{
	const cJSON *details = json_get(u, "prompt_tokens_details");
	int64_t prompt = json_int(u, "prompt_tokens", 0);
	int64_t cached = json_int(details, "cached_tokens", 0);

	/* Some servers repeat a growing usage on every chunk: last wins. */
	s->has_usage = true;
	s->usage.input = prompt > cached ? prompt - cached : 0;
	s->usage.output = json_int(u, "completion_tokens", 0);
	s->usage.cache_read = cached;
	s->usage.cache_write = json_int(details, "cache_write_tokens", 0);
}

/*
 * The call with this wire index.  Servers number calls 0, 1, 2, ...: then
 * the array is sorted by wire index and a lookup bisects, so a response of
 * many calls decodes in n log n; only out-of-order numbering scans.
 */
static struct ocall *
oai_find(struct ostate *st, int64_t wire)
{
	size_t i, lo = 0, hi = st->ncalls;

	if (st->ncalls > 0 && st->calls[st->ncalls - 1].wire == wire)
		return &st->calls[st->ncalls - 1];
	if (!st->wire_sorted) {
		for (i = 0; i < st->ncalls; i++)
			if (st->calls[i].wire == wire)
				return &st->calls[i];
		return NULL;
	}
	if (st->ncalls == 0 || wire > st->wire_max)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->calls[mid].wire < wire)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->ncalls && st->calls[lo].wire == wire ? &st->calls[lo] : NULL;
}

/* Servers that send no index: a new id starts a new call. */
static int64_t
oai_guess_wire(struct ostate *st, const cJSON *frag)
{
	const char *id = json_str(frag, "id", NULL);
	const struct ocall *last;

	if (st->ncalls == 0)
		return 0;
	last = &st->calls[st->ncalls - 1];
	if (id != NULL && (last->id == NULL || strcmp(id, last->id) != 0))
		return last->wire + 1;
	return last->wire;
}

static struct ocall *
oai_new_call(struct stream *s, struct ostate *st, int64_t wire)
{
	struct ocall *c;

	/* A later call starting means the earlier ones are whole. */
	oai_close_calls(s, st, false);
	if (st->ncalls == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 4;
		st->calls = xreallocarray(st->calls, st->cap, sizeof *st->calls);
	}
	if (st->ncalls == 0)
		st->wire_sorted = true;
	else if (wire <= st->wire_max)
		st->wire_sorted = false;
	if (st->ncalls == 0 || wire > st->wire_max)
		st->wire_max = wire;
	c = &st->calls[st->ncalls];
	memset(c, 0, sizeof *c);
	c->wire = wire;
	c->ord = (int)st->ncalls++;
	buf_init(&c->args, STREAM_BLOCK_MAX);
	return c;
}

static void
oai_arguments(struct stream *s, struct ocall *c, const cJSON *args)
{
	char *text;

	if (cJSON_IsString(args) && args->valuestring != NULL) {
		if (stream_accumulate(s, &c->args, args->valuestring,
		    strlen(args->valuestring)) == 0)
			stream_note_progress(s, args->valuestring,
			    strlen(args->valuestring));
	} else if (cJSON_IsObject(args)) {
		/* A few servers send the arguments already parsed. */
		text = json_print(args);
		if (stream_accumulate(s, &c->args, text, strlen(text)) == 0)
			stream_note_progress(s, text, strlen(text));
		free(text);
	}
}

static void
oai_fragment(struct stream *s, struct ostate *st, const cJSON *frag)
{
	const cJSON *fn = json_get(frag, "function");
	const char *id = json_str(frag, "id", NULL);
	const char *name = json_str(fn, "name", NULL);
	int64_t wire;
	struct ocall *c;

	if (!cJSON_IsObject(frag))
		return;
	wire = cJSON_IsNumber(json_get(frag, "index")) ?
	    json_int(frag, "index", 0) : oai_guess_wire(st, frag);
	if ((c = oai_find(st, wire)) == NULL)
		c = oai_new_call(s, st, wire);
	else if (c->done) {
		stream_fail(s, "the server continued tool call %" PRId64
		    " after a later one began", wire);
		return;
	}
	if (c->id == NULL && id != NULL && *id != '\0')
		c->id = xstrdup(id);
	if (c->name == NULL && name != NULL && *name != '\0')
		c->name = xstrdup(name);
	oai_arguments(s, c, json_get(fn, "arguments"));
}

/* Append a string member of delta to the text and show it. */
static bool
oai_text(struct stream *s, struct ostate *st, const cJSON *delta,
    const char *key)
{
	const char *t = json_str(delta, key, NULL);
	size_t n = t != NULL ? strlen(t) : 0;

	if (n == 0 || st->text_done)
		return false;
	if (stream_accumulate(s, &st->text, t, n) == -1)
		return false;
	st->any_output = true;
	stream_emit_text(s, 0, t, n);
	return true;
}

static const struct {
	const char	*openai;
	const char	*anthropic;
} oai_reasons[] = {
	{ "stop", "end_turn" },
	{ "tool_calls", "tool_use" },
	{ "function_call", "tool_use" },
	{ "length", "max_tokens" },
	{ "content_filter", "refusal" },
};

static void
oai_finish_reason(struct stream *s, struct ostate *st, const char *reason)
{
	const char *word = reason;
	size_t i;

	for (i = 0; i < sizeof oai_reasons / sizeof oai_reasons[0]; i++)
		if (strcmp(reason, oai_reasons[i].openai) == 0)
			word = oai_reasons[i].anthropic;
	/* Some servers say "stop" after tool calls; the calls still need running. */
	if (strcmp(word, "end_turn") == 0 && st->ncalls > 0)
		word = "tool_use";
	else if (strcmp(word, "end_turn") == 0 && st->refusal)
		word = "refusal";
	stream_set_str(&s->stop_reason, word);
	stream_note_boundary(s);
	st->finished = true;
	s->complete = true;
	oai_close_all(s, st, false);
}

static void
oai_choice(struct stream *s, struct ostate *st, const cJSON *choice)
{
	const cJSON *delta = json_get(choice, "delta"), *calls, *f;
	const char *reason = json_str(choice, "finish_reason", NULL);
	const char *think;

	/* Only one choice is asked for; the rest, if any, are ignored. */
	if (json_int(choice, "index", 0) != 0 || st->finished)
		return;
	think = json_str(delta, "reasoning_content", NULL);
	if (think == NULL)
		think = json_str(delta, "reasoning", NULL);
	if (think != NULL && *think != '\0') {
		st->any_output = true;
		stream_emit_thinking(s, 0, think, strlen(think));
	}
	oai_text(s, st, delta, "content");
	if (oai_text(s, st, delta, "refusal"))
		st->refusal = true;
	calls = json_get(delta, "tool_calls");
	if (!cJSON_IsArray(calls))
		calls = NULL;
	cJSON_ArrayForEach(f, calls) {
		if (s->failed)
			return;
		oai_fragment(s, st, f);
	}
	if (reason != NULL && !s->failed)
		oai_finish_reason(s, st, reason);
}

static void
oai_chunk(struct stream *s, struct ostate *st, const cJSON *chunk)
{
	const cJSON *err = json_get(chunk, "error"), *choices, *c;
	const char *id = json_str(chunk, "id", NULL);
	const char *model = json_str(chunk, "model", NULL);

	if (err != NULL && !cJSON_IsNull(err) && !cJSON_IsFalse(err)) {
		oai_error(s, err, "", 0);
		return;
	}
	if (s->id == NULL && id != NULL && *id != '\0')
		stream_set_str(&s->id, id);
	if (model != NULL && *model != '\0')
		stream_set_str(&s->model, model);
	if (cJSON_IsObject(json_get(chunk, "usage")))
		oai_usage(s, json_get(chunk, "usage"));
	choices = json_get(chunk, "choices");
	if (!cJSON_IsArray(choices))
		choices = NULL;
	cJSON_ArrayForEach(c, choices) {
		if (s->failed)
			return;
		if (cJSON_IsObject(c))
			oai_choice(s, st, c);
	}
}

static void
oai_event(struct stream *s, const char *name, const char *data, size_t n)
{
	struct ostate *st = s->state;
	cJSON *chunk;

	if (st->done)
		return;
	if (strcmp(name, "error") == 0) {
		oai_error_event(s, data, n);
		return;
	}
	if (n >= 6 && memcmp(data, "[DONE]", 6) == 0) {
		st->done = true;
		stream_note_boundary(s);
		s->complete = true;
		oai_close_all(s, st, false);
		return;
	}
	/* Keep-alives and other named events carry no chunk. */
	if (n == 0)
		return;
	chunk = stream_json_parse(data, n, NULL, NULL);
	if (!cJSON_IsObject(chunk))
		stream_fail(s, "the server sent a chunk that is not a JSON object");
	else
		oai_chunk(s, st, chunk);
	cJSON_Delete(chunk);
}

static void
oai_finish(struct stream *s)
{
	struct ostate *st = s->state;

	oai_close_all(s, st, !s->complete);
	if (!st->any_output && st->ncalls == 0 && !st->finished)
		stream_set_error(s, "empty_response",
		    "the server ended the stream without a response");
}

const struct stream_decoder stream_openai_decoder = {
	oai_init,
	oai_event,
	oai_finish,
	oai_free,
};
