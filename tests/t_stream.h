/*
 * t_stream.h: what the stream decoder's two test programs share: a trace of
 * the callbacks, decoding a stream whole, a byte at a time and in chunks
 * into one summary, the fixtures of tests/fixtures/sse and their
 * expected.json, and builders of hand-made Anthropic and OpenAI streams.
 *
 * Tests for agent/stream*.c: every Anthropic and OpenAI fixture of
 * tests/fixtures/sse decodes to what expected.json says, identically when
 * fed whole, a byte at a time and in fixed and random chunks; plus
 * hand-made streams for the cases the captures do not reach.
 *
 * expected.json mapping (it was written for a reference parser, not for
 * stream.h):
 *  anthropic.blocks[i]      content[i]: every key but the ones below must
 *                           be equal; "_stopped": false is "_incomplete":
 *                           true; "input_final" is the parsed "input";
 *                           "input_final": null with "input_raw_invalid"
 *                           is "input": {} plus "_input_error" and the
 *                           same "_input_raw".
 *  anthropic.usage          stream_usage() (absent keys are 0; {} means
 *                           *has is false).
 *  anthropic.error          stream_error_type()/stream_error().
 *  anthropic.message_stop   stream_complete().
 *  anthropic.pings, .unknown_events, .id, .model: the matching getters.
 *  openai.content           a text block first in content (none when
 *                           ""), and the text callback of index 0.
 *  openai.reasoning_content the thinking callback (never in content).
 *  openai.tool_calls["k"]   the next tool_use block {id, name, input =
 *                           arguments_parsed}, block index 1 + k.
 *  openai.finish_reason     stop_reason in Anthropic's words.
 *  openai.usage             input = prompt - cached, output = completion,
 *                           cache_read = cached, cache_write = 0.
 *  openai.done or a finish_reason: stream_complete(); when false, every
 *                           block carries "_incomplete": true.
 *  openai.error             type = error.type, else error.code, else
 *                           "api_error"; message = error.message.
 * Deliberate differences: the legacy "error:" field of llama.cpp is an
 * error here (the reference parser dropped it), and a stream with no
 * content, no tool call and no finish_reason is the error
 * "empty_response".
 */
#ifndef TANDEM_T_STREAM_H
#define TANDEM_T_STREAM_H

#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "json.h"
#include "model/sse.h"
#include "model/stream.h"
#include "t.h"
#include "t_fixtures.h"
#include "xalloc.h"

#define NIDX 16

struct trace {
	struct buf	 text[NIDX];
	struct buf	 think[NIDX];
	cJSON		*done;		/* [{"index": i, "block": {...}}] */
	int		 bad_index;
};

static __attribute__((unused)) void
trace_init(struct trace *t)
{
	int i;

	memset(t, 0, sizeof *t);
	for (i = 0; i < NIDX; i++) {
		buf_init(&t->text[i], BUF_NOLIMIT);
		buf_init(&t->think[i], BUF_NOLIMIT);
	}
	t->done = cJSON_CreateArray();
}

static __attribute__((unused)) void
trace_release(struct trace *t)
{
	int i;

	for (i = 0; i < NIDX; i++) {
		buf_release(&t->text[i]);
		buf_release(&t->think[i]);
	}
	cJSON_Delete(t->done);
}

static __attribute__((unused)) void
on_text(void *arg, int index, const char *s, size_t n)
{
	struct trace *t = arg;

	if (index < 0 || index >= NIDX || n == 0)
		t->bad_index++;
	else
		buf_append(&t->text[index], s, n);
}

static __attribute__((unused)) void
on_think(void *arg, int index, const char *s, size_t n)
{
	struct trace *t = arg;

	if (index < 0 || index >= NIDX || n == 0)
		t->bad_index++;
	else
		buf_append(&t->think[index], s, n);
}

static __attribute__((unused)) void
on_done(void *arg, int index, const cJSON *block)
{
	struct trace *t = arg;
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "index", index);
	cJSON_AddItemToObject(e, "block", cJSON_Duplicate(block, 1));
	cJSON_AddItemToArray(t->done, e);
}

static __attribute__((unused)) struct stream *
open_stream(enum stream_proto proto, struct trace *t)
{
	struct stream_handler h = { on_text, on_think, on_done, t };

	trace_init(t);
	return stream_new(proto, &h);
}

static __attribute__((unused)) void
add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v != NULL)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static __attribute__((unused)) cJSON *
texts_of(struct buf *b)
{
	cJSON *o = cJSON_CreateObject();
	char key[16];
	int i;

	for (i = 0; i < NIDX; i++) {
		if (b[i].len == 0)
			continue;
		snprintf(key, sizeof key, "%d", i);
		cJSON_AddStringToObject(o, key, buf_cstr(&b[i]));
	}
	return o;
}

/* Everything a decode produced, as one JSON object to compare. */
static __attribute__((unused)) cJSON *
summarize(struct stream *s, struct trace *t, int feed_rc)
{
	cJSON *sum = cJSON_CreateObject(), *u, *d;
	const cJSON *content = stream_content(s), *b;
	struct usage us;
	bool has;
	size_t bytes = 0;
	int i, matched = 0;

	cJSON_AddItemToObject(sum, "content", cJSON_Duplicate(content, 1));
	add_str_or_null(sum, "stop_reason", stream_stop_reason(s));
	add_str_or_null(sum, "id", stream_message_id(s));
	add_str_or_null(sum, "model", stream_model(s));
	us = stream_usage(s, &has);
	if (has) {
		u = cJSON_AddObjectToObject(sum, "usage");
		cJSON_AddNumberToObject(u, "input", (double)us.input);
		cJSON_AddNumberToObject(u, "output", (double)us.output);
		cJSON_AddNumberToObject(u, "cache_write", (double)us.cache_write);
		cJSON_AddNumberToObject(u, "cache_read", (double)us.cache_read);
	} else
		cJSON_AddNullToObject(sum, "usage");
	add_str_or_null(sum, "error_type", stream_error_type(s));
	add_str_or_null(sum, "error", stream_error(s));
	cJSON_AddBoolToObject(sum, "complete", stream_complete(s));
	cJSON_AddNumberToObject(sum, "pings", stream_pings(s));
	cJSON_AddNumberToObject(sum, "unknown", stream_unknown_events(s));
	cJSON_AddNumberToObject(sum, "output_bytes",
	    (double)stream_output_bytes(s));
	cJSON_AddNumberToObject(sum, "feed_rc", feed_rc);
	cJSON_AddBoolToObject(sum, "not_sse", stream_not_sse(s));
	cJSON_AddNumberToObject(sum, "progress", (double)stream_progress(s));
	cJSON_AddItemToObject(sum, "texts", texts_of(t->text));
	cJSON_AddItemToObject(sum, "thinks", texts_of(t->think));
	cJSON_AddItemToObject(sum, "done", cJSON_Duplicate(t->done, 1));

	/* Invariants of every decode. */
	T_EQ_INT(t->bad_index, 0);
	for (i = 0; i < NIDX; i++)
		bytes += t->text[i].len + t->think[i].len;
	T_EQ_INT(stream_output_bytes(s), bytes);
	T_EQ_INT(cJSON_GetArraySize(t->done), cJSON_GetArraySize(content));
	cJSON_ArrayForEach(d, t->done) {
		int n = 0;
		const cJSON *e;

		/* block_done fires once per index... */
		cJSON_ArrayForEach(e, t->done)
			n += json_int(e, "index", -1) == json_int(d, "index", -2);
		T_EQ_INT(n, 1);
		/* ...with the block as it stands in content. */
		cJSON_ArrayForEach(b, content)
			if (cJSON_Compare(b, json_get(d, "block"), 1)) {
				matched++;
				break;
			}
	}
	T_EQ_INT(matched, cJSON_GetArraySize(content));
	return sum;
}

/* Decode p fed in chunks of size (0: random sizes from seed). */
static __attribute__((unused)) cJSON *
decode(enum stream_proto proto, const char *p, size_t n, size_t size,
    uint32_t seed)
{
	struct trace t;
	struct stream *s = open_stream(proto, &t);
	cJSON *sum;
	size_t off = 0;
	int rc = 0;

	while (off < n) {
		size_t k = size;

		if (k == 0)
			k = rnd(&seed) % 4 == 0 ? rnd(&seed) % 300 + 1 :
			    rnd(&seed) % 9 + 1;
		if (k > n - off)
			k = n - off;
		if (stream_feed(s, p + off, k) == -1)
			rc = -1;
		off += k;
	}
	stream_finish(s);
	sum = summarize(s, &t, rc);
	stream_free(s);
	trace_release(&t);
	return sum;
}

static __attribute__((unused)) void
fail_diff(const char *what, const cJSON *a, const cJSON *b)
{
	char *x = a != NULL ? json_print(a) : xstrdup("(none)");
	char *y = b != NULL ? json_print(b) : xstrdup("(none)");

	T_FAIL("%s:\n#   got  %.2000s\n#   want %.2000s", what, x, y);
	free(x);
	free(y);
}

/*
 * Decode whole, then in other chunkings that must give the same summary.
 * Streams over 1 MB skip the byte-at-a-time run (it only costs time).
 */
static __attribute__((unused)) cJSON *
decode_all(enum stream_proto proto, const char *p, size_t n)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 1000 };
	cJSON *whole = decode(proto, p, n, n ? n : 1, 0), *other;
	size_t i;

	for (i = 0; i < sizeof sizes / sizeof sizes[0] + 4; i++) {
		size_t size = i < sizeof sizes / sizeof sizes[0] ? sizes[i] : 0;

		if (size == 1 && n > (1u << 20))
			continue;
		other = decode(proto, p, n, size, 0x2545f491u * (uint32_t)(i + 1));
		if (!cJSON_Compare(whole, other, 1)) {
			T_FAIL("chunks of %zu (run %zu) differ from whole", size, i);
			fail_diff("chunked", other, whole);
		}
		cJSON_Delete(other);
	}
	return whole;
}

static __attribute__((unused)) void
expect_str(const char *file, const char *what, const char *got,
    const char *want)
{
	if (got == NULL && want == NULL)
		return;
	if (got == NULL || want == NULL || strcmp(got, want) != 0)
		T_FAIL("%s: %s is \"%s\", expected \"%s\"", file, what,
		    got ? got : "(null)", want ? want : "(null)");
}

static __attribute__((unused)) const char *
sum_str(const cJSON *sum, const char *key)
{
	return json_str(sum, key, NULL);
}

static __attribute__((unused)) void
expect_usage(const char *file, const cJSON *sum, int64_t in, int64_t out,
    int64_t cw, int64_t cr)
{
	const cJSON *u = json_get(sum, "usage");

	if (json_int(u, "input", -1) != in || json_int(u, "output", -1) != out ||
	    json_int(u, "cache_write", -1) != cw ||
	    json_int(u, "cache_read", -1) != cr)
		T_FAIL("%s: usage %lld/%lld/%lld/%lld, expected "
		    "%lld/%lld/%lld/%lld", file,
		    (long long)json_int(u, "input", -1),
		    (long long)json_int(u, "output", -1),
		    (long long)json_int(u, "cache_write", -1),
		    (long long)json_int(u, "cache_read", -1),
		    (long long)in, (long long)out, (long long)cw, (long long)cr);
}

static __attribute__((unused)) bool
is_meta_key(const char *k)
{
	return strcmp(k, "_stopped") == 0 || strcmp(k, "input_final") == 0 ||
	    strcmp(k, "input_raw_invalid") == 0 || strcmp(k, "input") == 0;
}

static __attribute__((unused)) void
check_anthropic_block(const char *file, int i, const cJSON *b,
    const cJSON *e, const cJSON *sum)
{
	const cJSON *k, *fin = json_get(e, "input_final");
	char key[16];

	expect_str(file, "block type", json_str(b, "type", NULL),
	    json_str(e, "type", NULL));
	cJSON_ArrayForEach(k, e) {
		if (!is_meta_key(k->string) &&
		    !cJSON_Compare(json_get(b, k->string), k, 1))
			T_FAIL("%s: block %d: \"%s\" differs", file, i, k->string);
	}
	if (fin != NULL && !cJSON_IsNull(fin)) {
		if (!cJSON_Compare(json_get(b, "input"), fin, 1))
			fail_diff(file, json_get(b, "input"), fin);
		T_OK(json_get(b, "_input_error") == NULL);
	} else if (fin != NULL) {
		T_OK(cJSON_IsObject(json_get(b, "input")) &&
		    json_get(b, "input")->child == NULL);
		T_OK(json_str(b, "_input_error", NULL) != NULL);
		expect_str(file, "_input_raw", json_str(b, "_input_raw", NULL),
		    json_str(e, "input_raw_invalid", NULL));
	}
	if (json_bool(e, "_stopped", true))
		T_OK(json_get(b, "_incomplete") == NULL);
	else
		T_OK(json_bool(b, "_incomplete", false));
	/* The deltas the handler saw add up to the block. */
	snprintf(key, sizeof key, "%d", i);
	if (strcmp(json_str(e, "type", ""), "text") == 0)
		expect_str(file, "streamed text",
		    json_str(json_get(sum, "texts"), key, ""), json_str(e, "text", ""));
	if (strcmp(json_str(e, "type", ""), "thinking") == 0)
		expect_str(file, "streamed thinking",
		    json_str(json_get(sum, "thinks"), key, ""),
		    json_str(e, "thinking", ""));
}

static __attribute__((unused)) void
check_anthropic(const char *file, const cJSON *exp, const cJSON *sum)
{
	const cJSON *blocks = json_get(exp, "blocks");
	const cJSON *content = json_get(sum, "content");
	const cJSON *u = json_get(exp, "usage"), *err = json_get(exp, "error");
	int i;

	T_EQ_INT(cJSON_GetArraySize(content), cJSON_GetArraySize(blocks));
	for (i = 0; i < cJSON_GetArraySize(blocks) &&
	    i < cJSON_GetArraySize(content); i++)
		check_anthropic_block(file, i, cJSON_GetArrayItem(content, i),
		    cJSON_GetArrayItem(blocks, i), sum);
	expect_str(file, "stop_reason", sum_str(sum, "stop_reason"),
	    json_str(exp, "stop_reason", NULL));
	if (u == NULL || u->child == NULL)
		T_OK(cJSON_IsNull(json_get(sum, "usage")));
	else
		expect_usage(file, sum, json_int(u, "input_tokens", 0),
		    json_int(u, "output_tokens", 0),
		    json_int(u, "cache_creation_input_tokens", 0),
		    json_int(u, "cache_read_input_tokens", 0));
	expect_str(file, "error type", sum_str(sum, "error_type"),
	    json_str(err, "type", NULL));
	expect_str(file, "error", sum_str(sum, "error"),
	    json_str(err, "message", NULL));
	T_EQ_INT(json_bool(sum, "complete", false),
	    json_bool(exp, "message_stop", false));
	T_EQ_INT(json_int(sum, "pings", -1), json_int(exp, "pings", -2));
	T_EQ_INT(json_int(sum, "unknown", -1),
	    cJSON_GetArraySize(json_get(exp, "unknown_events")));
	expect_str(file, "id", sum_str(sum, "id"), json_str(exp, "id", NULL));
	expect_str(file, "model", sum_str(sum, "model"),
	    json_str(exp, "model", NULL));
	T_EQ_INT(json_int(sum, "feed_rc", -1), 0);
}

static __attribute__((unused)) const char *
map_finish(const char *r)
{
	static const char *const map[][2] = {
		{ "stop", "end_turn" }, { "tool_calls", "tool_use" },
		{ "length", "max_tokens" }, { "content_filter", "refusal" },
		{ "function_call", "tool_use" },
	};
	size_t i;

	for (i = 0; r != NULL && i < sizeof map / sizeof map[0]; i++)
		if (strcmp(r, map[i][0]) == 0)
			return map[i][1];
	return r;
}

/* The content array the OpenAI expectation describes. */
static __attribute__((unused)) cJSON *
openai_content(const cJSON *exp, bool complete, cJSON *done_idx)
{
	cJSON *c = cJSON_CreateArray(), *b;
	const cJSON *tc;
	const char *text = json_str(exp, "content", "");
	int k = 0;

	if (*text != '\0') {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", text);
		cJSON_AddItemToArray(c, b);
		cJSON_AddItemToArray(done_idx, cJSON_CreateNumber(0));
	}
	cJSON_ArrayForEach(tc, json_get(exp, "tool_calls")) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "tool_use");
		cJSON_AddStringToObject(b, "id", json_str(tc, "id", ""));
		cJSON_AddStringToObject(b, "name", json_str(tc, "name", ""));
		cJSON_AddItemToObject(b, "input",
		    cJSON_Duplicate(json_get(tc, "arguments_parsed"), 1));
		cJSON_AddItemToArray(c, b);
		cJSON_AddItemToArray(done_idx, cJSON_CreateNumber(1 + k++));
	}
	cJSON_ArrayForEach(b, c)
		if (!complete)
			cJSON_AddBoolToObject(b, "_incomplete", 1);
	return c;
}

static __attribute__((unused)) void
openai_expected_error(const char *file, const cJSON *exp, const char **type,
    const char **msg, char *num, size_t numlen)
{
	const cJSON *err = json_get(exp, "error"), *code = json_get(err, "code");

	*type = *msg = NULL;
	if (strcmp(file, "openai_llamacpp_legacy_error_field.sse") == 0) {
		*type = "invalid_request_error";
		*msg = "the request exceeds the available context size. try "
		    "increasing the context size or enable context shift";
	} else if (cJSON_IsObject(err)) {
		*type = json_str(err, "type", NULL);
		if (*type == NULL && cJSON_IsNumber(code)) {
			snprintf(num, numlen, "%d", code->valueint);
			*type = num;
		} else if (*type == NULL)
			*type = json_str(err, "code", "api_error");
		*msg = json_str(err, "message", NULL);
	} else if (*json_str(exp, "content", "") == '\0' &&
	    cJSON_GetArraySize(json_get(exp, "tool_calls")) == 0 &&
	    json_str(exp, "finish_reason", NULL) == NULL) {
		*type = "empty_response";
		*msg = "the server ended the stream without a response";
	}
}

static __attribute__((unused)) void
check_openai(const char *file, const cJSON *exp, const cJSON *sum)
{
	const cJSON *u = json_get(exp, "usage"), *d;
	const char *finish = json_str(exp, "finish_reason", NULL);
	const char *type, *msg;
	bool complete = json_bool(exp, "done", false) || finish != NULL;
	cJSON *idx = cJSON_CreateArray(), *want, *got_idx;
	char num[32];

	want = openai_content(exp, complete, idx);
	if (!cJSON_Compare(json_get(sum, "content"), want, 1))
		fail_diff(file, json_get(sum, "content"), want);
	/* Each expected block index fires once (in whatever order). */
	got_idx = cJSON_CreateArray();
	cJSON_ArrayForEach(d, json_get(sum, "done"))
		cJSON_AddItemToArray(got_idx,
		    cJSON_CreateNumber((double)json_int(d, "index", -1)));
	T_EQ_INT(cJSON_GetArraySize(got_idx), cJSON_GetArraySize(idx));
	cJSON_ArrayForEach(d, idx) {
		const cJSON *g;
		int n = 0;

		cJSON_ArrayForEach(g, got_idx)
			n += g->valueint == d->valueint;
		if (n != 1)
			T_FAIL("%s: block %d done %d times", file, d->valueint, n);
	}
	expect_str(file, "streamed text",
	    json_str(json_get(sum, "texts"), "0", ""), json_str(exp, "content", ""));
	expect_str(file, "streamed reasoning",
	    json_str(json_get(sum, "thinks"), "0", ""),
	    json_str(exp, "reasoning_content", ""));
	expect_str(file, "stop_reason", sum_str(sum, "stop_reason"),
	    map_finish(finish));
	if (cJSON_IsNull(u))
		T_OK(cJSON_IsNull(json_get(sum, "usage")));
	else {
		int64_t cached = json_int(json_get(u, "prompt_tokens_details"),
		    "cached_tokens", 0);

		expect_usage(file, sum, json_int(u, "prompt_tokens", 0) - cached,
		    json_int(u, "completion_tokens", 0), 0, cached);
	}
	T_EQ_INT(json_bool(sum, "complete", false), complete);
	openai_expected_error(file, exp, &type, &msg, num, sizeof num);
	expect_str(file, "error type", sum_str(sum, "error_type"), type);
	expect_str(file, "error", sum_str(sum, "error"), msg);
	T_EQ_INT(json_int(sum, "feed_rc", -1), 0);
	cJSON_Delete(want);
	cJSON_Delete(idx);
	cJSON_Delete(got_idx);
}

/* Building hand-made streams. */

static __attribute__((unused)) void
add_event(struct buf *b, const char *name, const char *data)
{
	if (name != NULL)
		buf_printf(b, "event: %s\n", name);
	buf_printf(b, "data: %s\n\n", data);
}

static __attribute__((unused)) void
add_json_event(struct buf *b, const char *name, cJSON *data)
{
	char *s = json_print(data);

	add_event(b, name, s);
	free(s);
	cJSON_Delete(data);
}

static __attribute__((unused)) void
add_start(struct buf *b, int index, const char *block)
{
	buf_printf(b, "event: content_block_start\ndata: {\"type\":"
	    "\"content_block_start\",\"index\":%d,\"content_block\":%s}\n\n",
	    index, block);
}

static __attribute__((unused)) void
add_delta(struct buf *b, int index, const char *type, const char *key,
    const char *val)
{
	cJSON *ev = cJSON_CreateObject(), *d;

	cJSON_AddStringToObject(ev, "type", "content_block_delta");
	cJSON_AddNumberToObject(ev, "index", index);
	d = cJSON_AddObjectToObject(ev, "delta");
	cJSON_AddStringToObject(d, "type", type);
	cJSON_AddStringToObject(d, key, val);
	add_json_event(b, "content_block_delta", ev);
}

static __attribute__((unused)) void
add_stop(struct buf *b, int index)
{
	buf_printf(b, "event: content_block_stop\ndata: {\"type\":"
	    "\"content_block_stop\",\"index\":%d}\n\n", index);
}

static __attribute__((unused)) void
add_message_start(struct buf *b)
{
	add_event(b, "message_start", "{\"type\":\"message_start\",\"message\":"
	    "{\"id\":\"msg_t\",\"type\":\"message\",\"role\":\"assistant\","
	    "\"model\":\"m\",\"content\":[],\"stop_reason\":null,"
	    "\"usage\":{\"input_tokens\":10,\"output_tokens\":1,"
	    "\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":7}}}");
}

static __attribute__((unused)) void
add_message_end(struct buf *b, const char *reason)
{
	buf_printf(b, "event: message_delta\ndata: {\"type\":\"message_delta\","
	    "\"delta\":{\"stop_reason\":\"%s\",\"stop_sequence\":null},"
	    "\"usage\":{\"output_tokens\":20,\"input_tokens\":null,"
	    "\"cache_read_input_tokens\":9}}\n\n", reason);
	add_event(b, "message_stop", "{\"type\":\"message_stop\"}");
}

static __attribute__((unused)) const cJSON *
block_at(const cJSON *sum, int i)
{
	return cJSON_GetArrayItem(json_get(sum, "content"), i);
}

static __attribute__((unused)) void
expect_json(const cJSON *got, const char *want_text)
{
	cJSON *want = cJSON_Parse(want_text);

	T_OK(want != NULL);
	if (!cJSON_Compare(got, want, 1))
		fail_diff("json", got, want);
	cJSON_Delete(want);
}

/* OpenAI streams. */

static __attribute__((unused)) void
add_chunk(struct buf *b, const char *choice_json)
{
	buf_printf(b, "data: {\"id\":\"chatcmpl-1\",\"object\":"
	    "\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[%s]}\n\n",
	    choice_json);
}

static __attribute__((unused)) void
add_delta_chunk(struct buf *b, const char *delta, const char *finish)
{
	char choice[4096];

	snprintf(choice, sizeof choice, "{\"index\":0,\"delta\":%s,"
	    "\"finish_reason\":%s}", delta, finish ? finish : "null");
	add_chunk(b, choice);
}

#endif
