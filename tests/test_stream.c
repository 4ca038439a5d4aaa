/*
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
#include "autoconf.h"

#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "json.h"
#include "sse.h"
#include "stream.h"
#include "t.h"
#include "xalloc.h"

#define NIDX 16

static char fixdir[4096];

struct trace {
	struct buf	 text[NIDX];
	struct buf	 think[NIDX];
	cJSON		*done;		/* [{"index": i, "block": {...}}] */
	int		 bad_index;
};

static void
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

static void
trace_release(struct trace *t)
{
	int i;

	for (i = 0; i < NIDX; i++) {
		buf_release(&t->text[i]);
		buf_release(&t->think[i]);
	}
	cJSON_Delete(t->done);
}

static void
on_text(void *arg, int index, const char *s, size_t n)
{
	struct trace *t = arg;

	if (index < 0 || index >= NIDX || n == 0)
		t->bad_index++;
	else
		buf_append(&t->text[index], s, n);
}

static void
on_think(void *arg, int index, const char *s, size_t n)
{
	struct trace *t = arg;

	if (index < 0 || index >= NIDX || n == 0)
		t->bad_index++;
	else
		buf_append(&t->think[index], s, n);
}

static void
on_done(void *arg, int index, const cJSON *block)
{
	struct trace *t = arg;
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "index", index);
	cJSON_AddItemToObject(e, "block", cJSON_Duplicate(block, 1));
	cJSON_AddItemToArray(t->done, e);
}

static struct stream *
open_stream(enum stream_proto proto, struct trace *t)
{
	struct stream_handler h = { on_text, on_think, on_done, t };

	trace_init(t);
	return stream_new(proto, &h);
}

static void
add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v != NULL)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *
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
static cJSON *
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

static uint32_t
rnd(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* Decode p fed in chunks of size (0: random sizes from seed). */
static cJSON *
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

static void
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
static cJSON *
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

static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char chunk[8192];
	size_t k;

	if (f == NULL)
		return NULL;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, k);
	fclose(f);
	return buf_detach(&b, len);
}

static int
try_dir(const char *base)
{
	char probe[4200];
	int n;

	n = snprintf(fixdir, sizeof fixdir, "%s/tests/fixtures/sse", base);
	if (n < 0 || (size_t)n >= sizeof fixdir)
		return 0;
	n = snprintf(probe, sizeof probe, "%s/expected.json", fixdir);
	return n > 0 && (size_t)n < sizeof probe && access(probe, R_OK) == 0;
}

static int
find_fixtures(const char *argv0)
{
	const char *top = getenv("top_srcdir");
	char *copy, up[4200];

	if (top != NULL && try_dir(top))
		return 1;
	if (try_dir("."))
		return 1;
	copy = xstrdup(argv0);
	snprintf(up, sizeof up, "%s/..", dirname(copy));
	free(copy);
	return try_dir(up);
}

static char *
fixture(const char *name, size_t *len)
{
	char path[8400];

	snprintf(path, sizeof path, "%s/%s", fixdir, name);
	return read_file(path, len);
}

static void
expect_str(const char *file, const char *what, const char *got,
    const char *want)
{
	if (got == NULL && want == NULL)
		return;
	if (got == NULL || want == NULL || strcmp(got, want) != 0)
		T_FAIL("%s: %s is \"%s\", expected \"%s\"", file, what,
		    got ? got : "(null)", want ? want : "(null)");
}

static const char *
sum_str(const cJSON *sum, const char *key)
{
	return json_str(sum, key, NULL);
}

static void
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

static bool
is_meta_key(const char *k)
{
	return strcmp(k, "_stopped") == 0 || strcmp(k, "input_final") == 0 ||
	    strcmp(k, "input_raw_invalid") == 0 || strcmp(k, "input") == 0;
}

static void
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

static void
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

static const char *
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
static cJSON *
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

static void
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

static void
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

T_TEST(fixtures_match_expected)
{
	size_t len, blen;
	char *text = fixture("expected.json", &len), *bytes;
	cJSON *all = text != NULL ? cJSON_ParseWithLength(text, len) : NULL, *f;
	int na = 0, no = 0;

	T_OK(all != NULL);
	cJSON_ArrayForEach(f, all) {
		const cJSON *a = json_get(f, "anthropic"), *o = json_get(f, "openai");
		cJSON *sum;

		if (a == NULL && o == NULL)
			continue;
		if ((bytes = fixture(f->string, &blen)) == NULL) {
			T_FAIL("cannot read %s", f->string);
			continue;
		}
		sum = decode_all(a != NULL ? STREAM_ANTHROPIC : STREAM_OPENAI,
		    bytes, blen);
		if (a != NULL) {
			check_anthropic(f->string, a, sum);
			na++;
		} else {
			check_openai(f->string, o, sum);
			no++;
		}
		cJSON_Delete(sum);
		free(bytes);
	}
	T_EQ_INT(na, 16);
	T_EQ_INT(no, 12);
	cJSON_Delete(all);
	free(text);
}

/* Building hand-made streams. */

static void
add_event(struct buf *b, const char *name, const char *data)
{
	if (name != NULL)
		buf_printf(b, "event: %s\n", name);
	buf_printf(b, "data: %s\n\n", data);
}

static void
add_json_event(struct buf *b, const char *name, cJSON *data)
{
	char *s = json_print(data);

	add_event(b, name, s);
	free(s);
	cJSON_Delete(data);
}

static void
add_start(struct buf *b, int index, const char *block)
{
	buf_printf(b, "event: content_block_start\ndata: {\"type\":"
	    "\"content_block_start\",\"index\":%d,\"content_block\":%s}\n\n",
	    index, block);
}

static void
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

static void
add_stop(struct buf *b, int index)
{
	buf_printf(b, "event: content_block_stop\ndata: {\"type\":"
	    "\"content_block_stop\",\"index\":%d}\n\n", index);
}

static void
add_message_start(struct buf *b)
{
	add_event(b, "message_start", "{\"type\":\"message_start\",\"message\":"
	    "{\"id\":\"msg_t\",\"type\":\"message\",\"role\":\"assistant\","
	    "\"model\":\"m\",\"content\":[],\"stop_reason\":null,"
	    "\"usage\":{\"input_tokens\":10,\"output_tokens\":1,"
	    "\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":7}}}");
}

static void
add_message_end(struct buf *b, const char *reason)
{
	buf_printf(b, "event: message_delta\ndata: {\"type\":\"message_delta\","
	    "\"delta\":{\"stop_reason\":\"%s\",\"stop_sequence\":null},"
	    "\"usage\":{\"output_tokens\":20,\"input_tokens\":null,"
	    "\"cache_read_input_tokens\":9}}\n\n", reason);
	add_event(b, "message_stop", "{\"type\":\"message_stop\"}");
}

static const cJSON *
block_at(const cJSON *sum, int i)
{
	return cJSON_GetArrayItem(json_get(sum, "content"), i);
}

static void
expect_json(const cJSON *got, const char *want_text)
{
	cJSON *want = cJSON_Parse(want_text);

	T_OK(want != NULL);
	if (!cJSON_Compare(got, want, 1))
		fail_diff("json", got, want);
	cJSON_Delete(want);
}

T_TEST(anthropic_5mb_text_delta)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), big = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;
	size_t i;

	for (i = 0; big.len < (5u << 20); i++)
		buf_puts(&big, i % 7 == 0 ? "\xc3\xa9" : "abc\"\\\n");
	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"text\",\"text\":\"\"}");
	add_delta(&b, 0, "text_delta", "text", big.data);
	add_stop(&b, 0);
	add_message_end(&b, "end_turn");
	T_OK(b.len > (5u << 20));
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""), big.data);
	T_EQ_STR(json_str(json_get(sum, "texts"), "0", ""), big.data);
	T_EQ_INT(json_int(sum, "output_bytes", 0), big.len);
	T_OK(json_bool(sum, "complete", false));
	cJSON_Delete(sum);
	buf_release(&b);
	buf_release(&big);
}

T_TEST(anthropic_partial_json_split_mid_escape)
{
	static const char *const frags[] = {
		"", "{\"path\": \"a\\", "\"b\\u00", "e9\\", "n\", \"n\": [1,",
		" 2], \"s\": \"\\ud83d", "\\ude00\", \"u\": \"x\\u2028y\"}",
	};
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;
	size_t i;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"tool_use\",\"id\":\"toolu_1\","
	    "\"name\":\"read_file\",\"input\":{}}");
	for (i = 0; i < sizeof frags / sizeof frags[0]; i++)
		add_delta(&b, 0, "input_json_delta", "partial_json", frags[i]);
	add_stop(&b, 0);
	add_message_end(&b, "tool_use");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	expect_json(block_at(sum, 0), "{\"type\":\"tool_use\",\"id\":\"toolu_1\","
	    "\"name\":\"read_file\",\"input\":{\"path\":\"a\\\"b\xc3\xa9\\n\","
	    "\"n\":[1,2],\"s\":\"\xf0\x9f\x98\x80\",\"u\":\"x\xe2\x80\xa8y\"}}");
	T_EQ_STR(json_str(sum, "stop_reason", ""), "tool_use");
	expect_usage("split escape", sum, 10, 20, 5, 9);
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(anthropic_u2028_inside_json)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"text\",\"text\":\"\"}");
	/* Raw bytes (cJSON prints them as they are) and the escape. */
	add_delta(&b, 0, "text_delta", "text", "a\xe2\x80\xa8" "b\xe2\x80\xa9");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\","
	    "\"index\":0,\"delta\":{\"type\":\"text_delta\","
	    "\"text\":\"x\\u2028y\"}}");
	add_stop(&b, 0);
	add_message_end(&b, "end_turn");
	T_OK(strstr(b.data, "\xe2\x80\xa8") != NULL);
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""),
	    "a\xe2\x80\xa8" "b\xe2\x80\xa9x\xe2\x80\xa8y");
	T_EQ_INT(cJSON_GetArraySize(json_get(sum, "done")), 1);
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(anthropic_tool_inputs)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_message_start(&b);
	/* Cut-off JSON, with a stop: an error, but not incomplete. */
	add_start(&b, 0, "{\"type\":\"tool_use\",\"id\":\"t0\",\"name\":\"a\","
	    "\"input\":{}}");
	add_delta(&b, 0, "input_json_delta", "partial_json", "{\"a\": ");
	add_stop(&b, 0);
	/* The whole input in the start and no delta: kept. */
	add_start(&b, 1, "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"b\","
	    "\"input\":{\"q\":1}}");
	add_stop(&b, 1);
	/* Valid JSON that is not an object. */
	add_start(&b, 2, "{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"c\","
	    "\"input\":{}}");
	add_delta(&b, 2, "input_json_delta", "partial_json", "[1,");
	add_delta(&b, 2, "input_json_delta", "partial_json", "2]");
	add_stop(&b, 2);
	/* Only white space, and no input at the start at all: {}. */
	add_start(&b, 3, "{\"type\":\"tool_use\",\"id\":\"t3\",\"name\":\"d\"}");
	add_delta(&b, 3, "input_json_delta", "partial_json", " \n");
	add_stop(&b, 3);
	/* Trailing garbage after the object is not valid. */
	add_start(&b, 4, "{\"type\":\"tool_use\",\"id\":\"t4\",\"name\":\"e\","
	    "\"input\":{}}");
	add_delta(&b, 4, "input_json_delta", "partial_json", "{\"a\":1} x");
	add_stop(&b, 4);
	add_message_end(&b, "tool_use");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	T_EQ_INT(cJSON_GetArraySize(json_get(sum, "content")), 5);
	expect_json(json_get(block_at(sum, 0), "input"), "{}");
	T_CONTAINS(json_str(block_at(sum, 0), "_input_error", NULL), "not valid JSON");
	T_EQ_STR(json_str(block_at(sum, 0), "_input_raw", NULL), "{\"a\": ");
	T_OK(json_get(block_at(sum, 0), "_incomplete") == NULL);
	expect_json(block_at(sum, 1), "{\"type\":\"tool_use\",\"id\":\"t1\","
	    "\"name\":\"b\",\"input\":{\"q\":1}}");
	T_CONTAINS(json_str(block_at(sum, 2), "_input_error", NULL), "not a JSON object");
	T_EQ_STR(json_str(block_at(sum, 2), "_input_raw", NULL), "[1,2]");
	expect_json(block_at(sum, 3), "{\"type\":\"tool_use\",\"id\":\"t3\","
	    "\"name\":\"d\",\"input\":{}}");
	T_EQ_STR(json_str(block_at(sum, 4), "_input_raw", NULL), "{\"a\":1} x");
	T_OK(json_get(json_get(block_at(sum, 4), "input"), "a") == NULL);
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(anthropic_other_blocks)
{
	static const char result[] = "{\"type\":\"web_search_tool_result\","
	    "\"tool_use_id\":\"srvtoolu_1\",\"content\":[{\"type\":"
	    "\"web_search_result\",\"url\":\"https://e.org\",\"title\":\"E\","
	    "\"encrypted_content\":\"ENC\",\"page_age\":null}]}";
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}");
	add_delta(&b, 0, "thinking_delta", "thinking", "hmm ");
	add_delta(&b, 0, "thinking_delta", "thinking", "ok");
	add_delta(&b, 0, "signature_delta", "signature", "SIG1");
	add_stop(&b, 0);
	add_start(&b, 1, "{\"type\":\"redacted_thinking\",\"data\":\"OPAQUE\"}");
	add_stop(&b, 1);
	add_start(&b, 2, "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\","
	    "\"name\":\"web_search\",\"input\":{}}");
	add_delta(&b, 2, "input_json_delta", "partial_json", "{\"query\":");
	add_delta(&b, 2, "input_json_delta", "partial_json", "\"tandem\"}");
	add_stop(&b, 2);
	add_start(&b, 3, result);
	add_stop(&b, 3);
	add_start(&b, 4, "{\"type\":\"text\",\"text\":\"\",\"citations\":null}");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\","
	    "\"index\":4,\"delta\":{\"type\":\"citations_delta\",\"citation\":"
	    "{\"type\":\"web_search_result_location\",\"url\":\"u1\"}}}");
	add_delta(&b, 4, "text_delta", "text", "Fact.");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\","
	    "\"index\":4,\"delta\":{\"type\":\"citations_delta\",\"citation\":"
	    "{\"type\":\"web_search_result_location\",\"url\":\"u2\"}}}");
	add_stop(&b, 4);
	/* A block and a delta type from the future: kept as they started. */
	add_start(&b, 5, "{\"type\":\"compaction\",\"content\":\"old\"}");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\","
	    "\"index\":5,\"delta\":{\"type\":\"compaction_delta\","
	    "\"content\":\"new\"}}");
	add_stop(&b, 5);
	add_message_end(&b, "end_turn");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	expect_json(block_at(sum, 0), "{\"type\":\"thinking\",\"thinking\":"
	    "\"hmm ok\",\"signature\":\"SIG1\"}");
	T_EQ_STR(json_str(json_get(sum, "thinks"), "0", ""), "hmm ok");
	expect_json(block_at(sum, 1), "{\"type\":\"redacted_thinking\","
	    "\"data\":\"OPAQUE\"}");
	expect_json(block_at(sum, 2), "{\"type\":\"server_tool_use\",\"id\":"
	    "\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{\"query\":"
	    "\"tandem\"}}");
	expect_json(block_at(sum, 3), result);
	expect_json(block_at(sum, 4), "{\"type\":\"text\",\"text\":\"Fact.\","
	    "\"citations\":[{\"type\":\"web_search_result_location\",\"url\":"
	    "\"u1\"},{\"type\":\"web_search_result_location\",\"url\":\"u2\"}]}");
	expect_json(block_at(sum, 5), "{\"type\":\"compaction\",\"content\":\"old\"}");
	T_EQ_INT(json_int(sum, "output_bytes", 0), 6 + 5);
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(anthropic_usage_is_cumulative)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_message_start(&b);
	add_event(&b, "message_delta", "{\"type\":\"message_delta\",\"delta\":"
	    "{\"stop_reason\":null},\"usage\":{\"output_tokens\":3}}");
	add_message_end(&b, "end_turn");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	/* input 10 survives the null, cache_write 5 the absence. */
	expect_usage("cumulative", sum, 10, 20, 5, 9);
	T_EQ_STR(json_str(sum, "stop_reason", ""), "end_turn");
	T_EQ_STR(json_str(sum, "id", ""), "msg_t");
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(anthropic_unnamed_and_unknown_events)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	/* A proxy that sends data only: the type inside names the event. */
	add_event(&b, NULL, "{\"type\":\"message_start\",\"message\":{\"id\":"
	    "\"msg_x\",\"model\":\"m2\",\"usage\":{\"input_tokens\":1,"
	    "\"output_tokens\":1}}}");
	add_event(&b, NULL, "{\"type\":\"ping\"}");
	add_event(&b, "ping", "");
	add_event(&b, NULL, "{\"type\":\"content_block_start\",\"index\":0,"
	    "\"content_block\":{\"type\":\"text\",\"text\":\"Hi\"}}");
	add_event(&b, NULL, "{\"type\":\"content_block_delta\",\"index\":0,"
	    "\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}");
	add_event(&b, "some_future_event", "{\"type\":\"some_future_event\"}");
	add_event(&b, NULL, "{\"type\":\"another_future_event\"}");
	add_event(&b, NULL, "{\"type\":\"content_block_stop\",\"index\":0}");
	/* A stop for a block that is not open changes nothing. */
	add_event(&b, NULL, "{\"type\":\"content_block_stop\",\"index\":0}");
	add_event(&b, NULL, "{\"type\":\"message_delta\",\"delta\":"
	    "{\"stop_reason\":\"pause_turn\"}}");
	add_event(&b, NULL, "{\"type\":\"message_stop\"}");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	expect_json(json_get(sum, "content"), "[{\"type\":\"text\",\"text\":"
	    "\"Hi there\"}]");
	T_EQ_STR(json_str(json_get(sum, "texts"), "0", ""), "Hi there");
	T_EQ_INT(json_int(sum, "pings", 0), 2);
	T_EQ_INT(json_int(sum, "unknown", 0), 2);
	T_EQ_STR(json_str(sum, "model", ""), "m2");
	T_EQ_STR(json_str(sum, "stop_reason", ""), "pause_turn");
	T_OK(json_bool(sum, "complete", false));
	T_OK(cJSON_IsNull(json_get(sum, "error")));
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(anthropic_invalid_events_fail)
{
	static const char *const bad[] = {
		"event: content_block_delta\ndata: {not json\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
		    "\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\","
		    "\"content_block\":{\"type\":\"text\"}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
		    "\"index\":0,\"delta\":{\"type\":\"text_delta\"}}\n\n",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct buf b = BUF_INIT(BUF_NOLIMIT);
		struct trace t;
		struct stream *s = open_stream(STREAM_ANTHROPIC, &t);

		add_message_start(&b);
		add_start(&b, 0, "{\"type\":\"text\",\"text\":\"\"}");
		buf_puts(&b, bad[i]);
		T_EQ_INT(stream_feed(s, b.data, b.len), -1);
		T_EQ_STR(stream_error_type(s), "invalid_stream");
		T_OK(stream_error(s) != NULL);
		/* The stream stays failed. */
		T_EQ_INT(stream_feed(s, "event: ping\ndata: {}\n\n", 22), -1);
		T_EQ_INT(stream_pings(s), 0);
		stream_finish(s);
		/* The open block is still handed over, marked. */
		T_EQ_INT(cJSON_GetArraySize(t.done), 1);
		T_OK(json_bool(cJSON_GetArrayItem(stream_content(s), 0),
		    "_incomplete", false));
		stream_free(s);
		trace_release(&t);
		buf_release(&b);
	}
}

T_TEST(anthropic_cut_short)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct trace t;
	struct stream *s;
	cJSON *sum;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"text\",\"text\":\"\"}");
	add_delta(&b, 0, "text_delta", "text", "Hel");
	add_start(&b, 1, "{\"type\":\"redacted_thinking\",\"data\":\"R\"}");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	expect_json(json_get(sum, "content"), "[{\"type\":\"text\",\"text\":"
	    "\"Hel\",\"_incomplete\":true},{\"type\":\"redacted_thinking\","
	    "\"data\":\"R\"}]");
	T_OK(!json_bool(sum, "complete", true));
	T_OK(cJSON_IsNull(json_get(sum, "error")));
	cJSON_Delete(sum);

	/* No block_done before the end; exactly one each after, even twice. */
	s = open_stream(STREAM_ANTHROPIC, &t);
	T_EQ_INT(stream_feed(s, b.data, b.len), 0);
	T_EQ_INT(cJSON_GetArraySize(t.done), 0);
	T_EQ_INT(cJSON_GetArraySize(stream_content(s)), 0);
	stream_finish(s);
	stream_finish(s);
	T_EQ_INT(cJSON_GetArraySize(t.done), 2);
	T_EQ_INT(stream_feed(s, "data: x\n\n", 9), 0);
	T_EQ_INT(cJSON_GetArraySize(t.done), 2);
	stream_free(s);
	trace_release(&t);
	buf_release(&b);
}

T_TEST(anthropic_blocks_done_as_they_stop)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct trace t;
	struct stream *s = open_stream(STREAM_ANTHROPIC, &t);

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"x\","
	    "\"input\":{}}");
	add_delta(&b, 0, "input_json_delta", "partial_json", "{}");
	T_EQ_INT(stream_feed(s, b.data, b.len), 0);
	T_EQ_INT(cJSON_GetArraySize(t.done), 0);
	buf_reset(&b);
	add_stop(&b, 0);
	T_EQ_INT(stream_feed(s, b.data, b.len), 0);
	/* The tool is complete while the model still streams. */
	T_EQ_INT(cJSON_GetArraySize(t.done), 1);
	T_EQ_INT(cJSON_GetArraySize(stream_content(s)), 1);
	T_OK(!stream_complete(s));
	buf_reset(&b);
	add_message_end(&b, "tool_use");
	T_EQ_INT(stream_feed(s, b.data, b.len), 0);
	T_OK(stream_complete(s));
	stream_finish(s);
	T_EQ_INT(cJSON_GetArraySize(t.done), 1);
	stream_free(s);
	trace_release(&t);
	buf_release(&b);
}

T_TEST(take_content_and_no_handler)
{
	size_t len;
	char *bytes = fixture("anthropic_docs_tool_use.sse", &len);
	struct stream *s = stream_new(STREAM_ANTHROPIC, NULL);
	cJSON *taken;
	bool has;

	T_OK(bytes != NULL);
	T_EQ_INT(stream_feed(s, bytes, len), 0);
	stream_finish(s);
	T_OK(stream_output_bytes(s) > 0);
	taken = stream_take_content(s);
	T_EQ_INT(cJSON_GetArraySize(taken), 2);
	T_EQ_INT(cJSON_GetArraySize(stream_content(s)), 0);
	T_OK(cJSON_IsArray(stream_content(s)));
	T_EQ_INT(stream_usage(s, &has).output, 89);
	T_OK(has);
	stream_free(s);
	cJSON_Delete(taken);
	free(bytes);
}

T_TEST(line_over_the_limit)
{
	struct trace t;
	struct stream *s = open_stream(STREAM_OPENAI, &t);
	size_t chunk = 1u << 20, sent = 0;
	char *x = xmalloc(chunk);
	int rc = 0;

	memset(x, 'x', chunk);
	rc = stream_feed(s, "data: ", 6);
	while (rc == 0 && sent <= SSE_LINE_MAX) {
		rc = stream_feed(s, x, chunk);
		sent += chunk;
	}
	T_EQ_INT(rc, -1);
	T_EQ_STR(stream_error_type(s), "invalid_stream");
	T_CONTAINS(stream_error(s), "longer than 32 MiB");
	stream_finish(s);
	T_EQ_STR(stream_error_type(s), "invalid_stream");
	stream_free(s);
	trace_release(&t);
	free(x);
}

T_TEST(block_over_the_limit)
{
	struct buf ev = BUF_INIT(BUF_NOLIMIT), head = BUF_INIT(BUF_NOLIMIT);
	char *text = xmalloc((4u << 20) + 1);
	struct trace t;
	struct stream *s = open_stream(STREAM_ANTHROPIC, &t);
	int i, rc = 0;

	memset(text, 'y', 4u << 20);
	text[4u << 20] = '\0';
	add_message_start(&head);
	add_start(&head, 0, "{\"type\":\"text\",\"text\":\"\"}");
	add_delta(&ev, 0, "text_delta", "text", text);
	T_EQ_INT(stream_feed(s, head.data, head.len), 0);
	/* 16 deltas of 4 MiB fill the 64 MiB a block may hold; one more fails. */
	for (i = 0; i < 16; i++)
		rc |= stream_feed(s, ev.data, ev.len);
	T_EQ_INT(rc, 0);
	T_EQ_INT(stream_output_bytes(s), 64u << 20);
	T_EQ_INT(stream_feed(s, ev.data, ev.len), -1);
	T_EQ_STR(stream_error_type(s), "invalid_stream");
	T_CONTAINS(stream_error(s), "64 MiB");
	T_EQ_INT(stream_output_bytes(s), 64u << 20);
	stream_finish(s);
	T_EQ_INT(cJSON_GetArraySize(t.done), 1);
	stream_free(s);
	trace_release(&t);
	buf_release(&ev);
	buf_release(&head);
	free(text);
}

T_TEST(anthropic_bare_error_data)
{
	static const char in[] = "data: {\"error\":{\"type\":\"overloaded_error\","
	    "\"message\":\"busy\"}}\n\n";
	cJSON *sum = decode_all(STREAM_ANTHROPIC, in, sizeof in - 1);

	T_EQ_STR(json_str(sum, "error_type", ""), "overloaded_error");
	T_EQ_STR(json_str(sum, "error", ""), "busy");
	T_EQ_INT(json_int(sum, "unknown", -1), 0);
	cJSON_Delete(sum);
}

/* OpenAI streams. */

static void
add_chunk(struct buf *b, const char *choice_json)
{
	buf_printf(b, "data: {\"id\":\"chatcmpl-1\",\"object\":"
	    "\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[%s]}\n\n",
	    choice_json);
}

static void
add_delta_chunk(struct buf *b, const char *delta, const char *finish)
{
	char choice[4096];

	snprintf(choice, sizeof choice, "{\"index\":0,\"delta\":%s,"
	    "\"finish_reason\":%s}", delta, finish ? finish : "null");
	add_chunk(b, choice);
}

T_TEST(openai_text_and_tool_calls)
{
	static const char *const steps[] = {
		"{\"role\":\"assistant\",\"content\":null}",
		"{}",
		"{\"content\":\"\"}",
		"{\"content\":\"Let me \"}",
		"{\"content\":\"look.\"}",
		/* vLLM: the first fragment has no arguments. */
		"{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":"
		    "\"function\",\"function\":{\"name\":\"read_file\"}}]}",
		"{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
		    "\"{\\\"path\\\":\"}}]}",
		"{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
		    "\"\\\"a.c\\\"}\"}}]}",
		/* Ollama: a whole call in one fragment. */
		"{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":"
		    "\"function\",\"function\":{\"name\":\"grep\",\"arguments\":"
		    "\"{\\\"pattern\\\":\\\"x\\\"}\"}}]}",
	};
	/* block_done calls expected after each step above. */
	static const int done_after[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	struct buf b = BUF_INIT(BUF_NOLIMIT), all = BUF_INIT(BUF_NOLIMIT);
	struct trace t;
	struct stream *s = open_stream(STREAM_OPENAI, &t);
	cJSON *sum;
	size_t i;

	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		buf_reset(&b);
		add_delta_chunk(&b, steps[i], NULL);
		buf_append(&all, b.data, b.len);
		T_EQ_INT(stream_feed(s, b.data, b.len), 0);
		T_EQ_INT(cJSON_GetArraySize(t.done), done_after[i]);
	}
	T_EQ_INT(json_int(cJSON_GetArrayItem(t.done, 0), "index", -1), 1);
	buf_reset(&b);
	add_delta_chunk(&b, "{}", "\"tool_calls\"");
	buf_puts(&b, "data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":"
	    "{\"prompt_tokens\":100,\"completion_tokens\":20,\"total_tokens\":120,"
	    "\"prompt_tokens_details\":{\"cached_tokens\":60,"
	    "\"cache_write_tokens\":30}}}\n\ndata: [DONE]\n\n");
	buf_append(&all, b.data, b.len);
	T_EQ_INT(stream_feed(s, b.data, b.len), 0);
	T_EQ_INT(cJSON_GetArraySize(t.done), 3);
	T_OK(stream_complete(s));
	stream_finish(s);
	T_EQ_INT(cJSON_GetArraySize(t.done), 3);
	stream_free(s);
	trace_release(&t);

	sum = decode_all(STREAM_OPENAI, all.data, all.len);
	expect_json(json_get(sum, "content"), "[{\"type\":\"text\",\"text\":"
	    "\"Let me look.\"},{\"type\":\"tool_use\",\"id\":\"call_a\","
	    "\"name\":\"read_file\",\"input\":{\"path\":\"a.c\"}},{\"type\":"
	    "\"tool_use\",\"id\":\"call_b\",\"name\":\"grep\",\"input\":"
	    "{\"pattern\":\"x\"}}]");
	T_EQ_STR(json_str(json_get(sum, "texts"), "0", ""), "Let me look.");
	T_EQ_STR(json_str(sum, "stop_reason", ""), "tool_use");
	expect_usage("openai usage", sum, 40, 20, 30, 60);
	T_EQ_STR(json_str(sum, "id", ""), "chatcmpl-1");
	T_EQ_STR(json_str(sum, "model", ""), "m");
	T_OK(cJSON_IsNull(json_get(sum, "error")));
	cJSON_Delete(sum);
	buf_release(&b);
	buf_release(&all);
}

static cJSON *
decode_openai_finish(const char *delta, const char *finish)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_delta_chunk(&b, delta, finish);
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	buf_release(&b);
	return sum;
}

T_TEST(openai_finish_reasons)
{
	static const char *const map[][2] = {
		{ "\"stop\"", "end_turn" }, { "\"length\"", "max_tokens" },
		{ "\"tool_calls\"", "tool_use" },
		{ "\"content_filter\"", "refusal" },
		{ "\"function_call\"", "tool_use" }, { "\"eos\"", "eos" },
	};
	cJSON *sum;
	size_t i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++) {
		sum = decode_openai_finish("{\"content\":\"x\"}", map[i][0]);
		T_EQ_STR(json_str(sum, "stop_reason", ""), map[i][1]);
		T_OK(json_bool(sum, "complete", false));
		/* The text of the finishing chunk itself counts. */
		T_EQ_STR(json_str(block_at(sum, 0), "text", ""), "x");
		T_OK(cJSON_IsNull(json_get(sum, "usage")));
		cJSON_Delete(sum);
	}
	/* "stop" after tool calls still means the tools must run. */
	sum = decode_openai_finish("{\"tool_calls\":[{\"index\":0,\"id\":\"c\","
	    "\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}", "\"stop\"");
	T_EQ_STR(json_str(sum, "stop_reason", ""), "tool_use");
	expect_json(json_get(sum, "content"), "[{\"type\":\"tool_use\","
	    "\"id\":\"c\",\"name\":\"f\",\"input\":{}}]");
	cJSON_Delete(sum);
	sum = decode_openai_finish("{\"content\":null,\"refusal\":\"No.\"}",
	    "\"stop\"");
	T_EQ_STR(json_str(sum, "stop_reason", ""), "refusal");
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""), "No.");
	cJSON_Delete(sum);
}

T_TEST(openai_usage_last_wins)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	buf_puts(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"
	    "\"a\"}}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\n"
	    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},"
	    "\"finish_reason\":\"stop\"}],\"usage\":null}\n\n"
	    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
	    "\"completion_tokens\":2,\"prompt_tokens_details\":null}}\n\n");
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	expect_usage("last wins", sum, 9, 2, 0, 0);
	T_OK(json_bool(sum, "complete", false));
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""), "ab");
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(openai_empty_streams_are_errors)
{
	static const char *const empties[] = {
		": keep-alive\n\n:\n\n", "data: [DONE]\n\n",
		"data: {\"choices\":[]}\n\ndata: [DONE]",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":null}}]}\n\n",
	};
	size_t i;

	for (i = 0; i < sizeof empties / sizeof empties[0]; i++) {
		cJSON *sum = decode_all(STREAM_OPENAI, empties[i],
		    strlen(empties[i]));

		T_EQ_STR(json_str(sum, "error_type", ""), "empty_response");
		T_EQ_STR(json_str(sum, "error", ""),
		    "the server ended the stream without a response");
		T_EQ_INT(cJSON_GetArraySize(json_get(sum, "content")), 0);
		T_EQ_INT(json_bool(sum, "complete", false),
		    strstr(empties[i], "[DONE]") != NULL);
		cJSON_Delete(sum);
	}
}

T_TEST(openai_ids_and_indices)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const cJSON *c0, *c1, *c2;
	cJSON *sum;

	/* No index at all: a new id starts a new call; no id gets one made. */
	add_delta_chunk(&b, "{\"tool_calls\":[{\"id\":\"g1\",\"function\":"
	    "{\"name\":\"a\",\"arguments\":\"{\\\"k\\\":\"}}]}", NULL);
	add_delta_chunk(&b, "{\"tool_calls\":[{\"function\":{\"arguments\":"
	    "\"1}\"}}]}", NULL);
	add_delta_chunk(&b, "{\"tool_calls\":[{\"id\":\"g2\",\"function\":"
	    "{\"name\":\"b\",\"arguments\":{\"k\":2}}}]}", NULL);
	add_delta_chunk(&b, "{\"tool_calls\":[{\"index\":7,\"function\":"
	    "{\"name\":\"c\",\"arguments\":\"{}\"}}]}", "\"tool_calls\"");
	/* One decode: a made id differs from run to run. */
	sum = decode(STREAM_OPENAI, b.data, b.len, 1, 0);
	c0 = block_at(sum, 0);
	c1 = block_at(sum, 1);
	c2 = block_at(sum, 2);
	T_EQ_INT(cJSON_GetArraySize(json_get(sum, "content")), 3);
	expect_json(c0, "{\"type\":\"tool_use\",\"id\":\"g1\",\"name\":\"a\","
	    "\"input\":{\"k\":1}}");
	/* Arguments sent already parsed are taken as they are. */
	expect_json(c1, "{\"type\":\"tool_use\",\"id\":\"g2\",\"name\":\"b\","
	    "\"input\":{\"k\":2}}");
	T_EQ_STR(json_str(c2, "name", ""), "c");
	T_OK(strncmp(json_str(c2, "id", ""), "call_", 5) == 0);
	cJSON_Delete(sum);
	buf_release(&b);

	/* Two decodes of the same stream make different ids. */
	{
		struct stream *s1 = stream_new(STREAM_OPENAI, NULL);
		struct stream *s2 = stream_new(STREAM_OPENAI, NULL);
		static const char one[] = "data: {\"choices\":[{\"delta\":"
		    "{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\"}}]},"
		    "\"finish_reason\":\"tool_calls\"}]}\n\n";

		stream_feed(s1, one, sizeof one - 1);
		stream_feed(s2, one, sizeof one - 1);
		stream_finish(s1);
		stream_finish(s2);
		T_OK(strcmp(json_str(cJSON_GetArrayItem(stream_content(s1), 0),
		    "id", "x"), json_str(cJSON_GetArrayItem(stream_content(s2),
		    0), "id", "x")) != 0);
		stream_free(s1);
		stream_free(s2);
	}
}

T_TEST(openai_late_fragment_fails)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct trace t;
	struct stream *s = open_stream(STREAM_OPENAI, &t);

	add_delta_chunk(&b, "{\"tool_calls\":[{\"index\":0,\"id\":\"a\","
	    "\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}", NULL);
	add_delta_chunk(&b, "{\"tool_calls\":[{\"index\":1,\"id\":\"b\","
	    "\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}", NULL);
	add_delta_chunk(&b, "{\"tool_calls\":[{\"index\":0,\"function\":"
	    "{\"arguments\":\"}\"}}]}", NULL);
	T_EQ_INT(stream_feed(s, b.data, b.len), -1);
	T_EQ_STR(stream_error_type(s), "invalid_stream");
	stream_finish(s);
	/* Call 0 was emitted (broken) when call 1 began; call 1 at the end. */
	T_EQ_INT(cJSON_GetArraySize(t.done), 2);
	T_OK(json_str(cJSON_GetArrayItem(stream_content(s), 0), "_input_error",
	    NULL) != NULL);
	stream_free(s);
	trace_release(&t);
	buf_release(&b);
}

T_TEST(openai_reasoning_stays_local)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_delta_chunk(&b, "{\"role\":\"assistant\",\"reasoning_content\":"
	    "\"Think\"}", NULL);
	add_delta_chunk(&b, "{\"reasoning\":\"ing.\",\"content\":null}", NULL);
	add_delta_chunk(&b, "{\"content\":\"Answer\"}", "\"stop\"");
	buf_puts(&b, "data: [DONE]\n\n");
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	T_EQ_STR(json_str(json_get(sum, "thinks"), "0", ""), "Thinking.");
	expect_json(json_get(sum, "content"), "[{\"type\":\"text\","
	    "\"text\":\"Answer\"}]");
	T_EQ_INT(json_int(sum, "output_bytes", 0), 9 + 6);
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(openai_cut_short)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_delta_chunk(&b, "{\"content\":\"abc\"}", NULL);
	add_delta_chunk(&b, "{\"tool_calls\":[{\"index\":0,\"id\":\"a\","
	    "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":\"}}]}",
	    NULL);
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	T_OK(!json_bool(sum, "complete", true));
	T_OK(cJSON_IsNull(json_get(sum, "stop_reason")));
	T_OK(cJSON_IsNull(json_get(sum, "error")));
	T_OK(json_bool(block_at(sum, 0), "_incomplete", false));
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""), "abc");
	T_OK(json_bool(block_at(sum, 1), "_incomplete", false));
	T_EQ_STR(json_str(block_at(sum, 1), "_input_raw", ""), "{\"x\":");
	cJSON_Delete(sum);

	/* Text alone, cut short: truncated, but not an empty response. */
	buf_reset(&b);
	add_delta_chunk(&b, "{\"content\":\"abc\"}", NULL);
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	T_OK(!json_bool(sum, "complete", true));
	T_OK(cJSON_IsNull(json_get(sum, "error")));
	T_OK(json_bool(block_at(sum, 0), "_incomplete", false));
	cJSON_Delete(sum);
	buf_release(&b);
}

T_TEST(openai_errors)
{
	static const char *const cases[][3] = {
		{ "event: error\ndata: boom\n\n", "api_error",
		    "the server reported an error: boom" },
		{ "error: {\"code\":500,\"message\":\"down\"}\n\n", "500", "down" },
		{ "data: {\"error\":{\"code\":\"rate_limited\",\"message\":"
		    "\"slow\"}}\n\n", "rate_limited", "slow" },
		{ "data: {\"error\":\"plain\"}\n\n", "api_error", "plain" },
		{ "data: {\"error\":{\"type\":\"t\"}}\n\n", "t",
		    "the server reported an error: {\"type\":\"t\"}" },
		{ "data: [1,2]\n\n", "invalid_stream", NULL },
		{ "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},"
		    "\"finish_reason\":\"stop\"}],\"error\":null}\n\n", NULL, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *sum = decode_all(STREAM_OPENAI, cases[i][0],
		    strlen(cases[i][0]));

		if (cases[i][1] == NULL)
			T_OK(cJSON_IsNull(json_get(sum, "error")));
		else
			T_EQ_STR(json_str(sum, "error_type", ""), cases[i][1]);
		if (cases[i][2] != NULL)
			T_EQ_STR(json_str(sum, "error", ""), cases[i][2]);
		cJSON_Delete(sum);
	}
}

T_TEST(openai_other_choices_ignored)
{
	static const char in[] = "data: {\"choices\":[{\"index\":1,\"delta\":"
	    "{\"content\":\"no\"},\"finish_reason\":\"length\"},{\"index\":0,"
	    "\"delta\":{\"content\":\"yes\"},\"finish_reason\":\"stop\"}]}\n\n"
	    "data: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":"
	    "\"after\"}}]}\n\n";
	cJSON *sum = decode_all(STREAM_OPENAI, in, sizeof in - 1);

	expect_json(json_get(sum, "content"), "[{\"type\":\"text\","
	    "\"text\":\"yes\"}]");
	T_EQ_STR(json_str(sum, "stop_reason", ""), "end_turn");
	cJSON_Delete(sum);
}

T_TEST(openai_nothing_after_done)
{
	static const char in[] = "data: {\"choices\":[{\"delta\":{\"content\":"
	    "\"a\"}}]}\n\ndata: [DONE]\n\ndata: {\"choices\":[{\"delta\":"
	    "{\"tool_calls\":[{\"index\":0,\"id\":\"x\",\"function\":"
	    "{\"name\":\"f\"}}]}}]}\n\ndata: {\"error\":{\"message\":"
	    "\"late\"}}\n\nerror: {\"message\":\"later\"}\n\n";
	cJSON *sum = decode_all(STREAM_OPENAI, in, sizeof in - 1);

	expect_json(json_get(sum, "content"), "[{\"type\":\"text\","
	    "\"text\":\"a\"}]");
	T_OK(cJSON_IsNull(json_get(sum, "error")));
	T_OK(cJSON_IsNull(json_get(sum, "stop_reason")));
	T_OK(json_bool(sum, "complete", false));
	cJSON_Delete(sum);
}

T_TEST(invalid_utf8_is_repaired)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_delta_chunk(&b, "{\"content\":\"a\xff" "b\"}", "\"stop\"");
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	T_EQ_STR(json_str(json_get(sum, "texts"), "0", ""), "a\xef\xbf\xbd" "b");
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""), "a\xef\xbf\xbd" "b");
	cJSON_Delete(sum);
	buf_release(&b);
}

/* Many blocks: every one kept, in index order, whatever order they stop in. */
T_TEST(many_blocks_in_order)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct stream *s;
	const cJSON *c;
	long i, n = 100000, k = 0;
	bool ordered = true;

	add_message_start(&b);
	for (i = 0; i < n - 3; i++) {
		add_start(&b, (int)i, "{\"type\":\"text\",\"text\":\"\"}");
		buf_printf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
		    "\"index\":%ld,\"delta\":{\"type\":\"text_delta\",\"text\":\"%ld\"}}\n\n", i, i);
		add_stop(&b, (int)i);
	}
	/* The last three open together and stop backwards. */
	for (; i < n; i++)
		add_start(&b, (int)i, "{\"type\":\"text\",\"text\":\"x\"}");
	for (i = n - 1; i >= n - 3; i--)
		add_stop(&b, (int)i);
	add_message_end(&b, "end_turn");
	s = stream_new(STREAM_ANTHROPIC, NULL);
	for (i = 0; (size_t)i < b.len; i += 65536)
		T_EQ_INT(stream_feed(s, b.data + i, b.len - (size_t)i < 65536 ?
		    b.len - (size_t)i : 65536), 0);
	stream_finish(s);
	T_OK(stream_complete(s));
	T_EQ_INT(cJSON_GetArraySize(stream_content(s)), n);
	cJSON_ArrayForEach(c, stream_content(s)) {
		char want[32];

		snprintf(want, sizeof want, "%ld", k);
		if (k < n - 3 && strcmp(json_str(c, "text", ""), want) != 0)
			ordered = false;
		k++;
	}
	T_OK(ordered);
	T_EQ_INT(k, n);
	stream_free(s);
	buf_release(&b);
}

T_TEST(openai_many_calls_in_order)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct stream *s;
	const cJSON *c;
	long i, n = 100000, k = 0;
	bool ordered = true;

	for (i = 0; i < n; i++)
		buf_printf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%ld,"
		    "\"id\":\"c%ld\",\"function\":{\"name\":\"t\",\"arguments\":\"{}\"}}]}}]}\n\n", i, i);
	buf_puts(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
	    "data: [DONE]\n\n");
	s = stream_new(STREAM_OPENAI, NULL);
	T_EQ_INT(stream_feed(s, b.data, b.len), 0);
	stream_finish(s);
	T_EQ_INT(cJSON_GetArraySize(stream_content(s)), n);
	cJSON_ArrayForEach(c, stream_content(s)) {
		char want[32];

		snprintf(want, sizeof want, "c%ld", k++);
		if (strcmp(json_str(c, "id", ""), want) != 0)
			ordered = false;
	}
	T_OK(ordered);
	T_EQ_STR(stream_stop_reason(s), "tool_use");
	stream_free(s);
	buf_release(&b);
}

/* A \u escape of a lone surrogate is U+FFFD, not a failed answer; pairs stand. */
T_TEST(lone_surrogates_are_repaired)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"text\",\"text\":\"\"}");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
	    "\"delta\":{\"type\":\"text_delta\",\"text\":\"a\\ud800b\\udc00c\\ud83d\\ude00\\\\ud800\"}}");
	add_stop(&b, 0);
	add_start(&b, 1, "{\"type\":\"tool_use\",\"id\":\"t\\udfff1\",\"name\":\"read_file\",\"input\":{}}");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
	    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"x\\\\ud800.c\\\"}\"}}");
	add_stop(&b, 1);
	add_message_end(&b, "tool_use");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	T_EQ_STR(json_str(sum, "error", "none"), "none");
	T_OK(json_bool(sum, "complete", false));
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""),
	    "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xf0\x9f\x98\x80\\ud800");
	T_EQ_STR(json_str(block_at(sum, 1), "id", ""), "t\xef\xbf\xbd" "1");
	T_EQ_STR(json_str(json_get(block_at(sum, 1), "input"), "path", ""), "x\xef\xbf\xbd.c");
	T_OK(json_get(block_at(sum, 1), "_input_error") == NULL);
	cJSON_Delete(sum);
	buf_reset(&b);
	add_delta_chunk(&b, "{\"content\":\"x\\udbff\"}", "\"stop\"");
	sum = decode_all(STREAM_OPENAI, b.data, b.len);
	T_EQ_STR(json_str(block_at(sum, 0), "text", ""), "x\xef\xbf\xbd");
	cJSON_Delete(sum);
	buf_release(&b);
}

/* Invalid UTF-8 in any string of an event (here a tool name) is repaired too. */
T_TEST(invalid_utf8_in_blocks_is_repaired)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *sum;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"r\xc3\",\"input\":{}}");
	add_event(&b, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
	    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"p\\\":\\\"\xfe\\\"}\"}}");
	add_stop(&b, 0);
	add_message_end(&b, "tool_use");
	sum = decode_all(STREAM_ANTHROPIC, b.data, b.len);
	T_EQ_STR(json_str(block_at(sum, 0), "name", ""), "r\xef\xbf\xbd");
	T_EQ_STR(json_str(json_get(block_at(sum, 0), "input"), "p", ""), "\xef\xbf\xbd");
	cJSON_Delete(sum);
	buf_release(&b);
}

/* Decode a whole body served with content type ct. */
static struct stream *
decode_body(enum stream_proto proto, const char *ct, const char *body, size_t n)
{
	struct stream *s = stream_new(proto, NULL);

	stream_set_content_type(s, ct);
	stream_feed(s, body, n);
	stream_finish(s);
	return s;
}

T_TEST(bodies_that_are_not_event_streams)
{
	static const char html[] = "<!DOCTYPE html>\n<html><head><title>Hotel\n WiFi \x1b]52;c;aGk=\x07"
	    "Login</title></head><body>Please accept the terms</body></html>";
	static const char json_err[] = "{\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
	static const char oai_err[] = "\n{\"error\":{\"code\":\"model_not_found\",\"message\":\"no such model\"}}";
	static const enum stream_proto protos[] = { STREAM_ANTHROPIC, STREAM_OPENAI };
	struct stream *s;
	size_t i;

	for (i = 0; i < 2; i++) {
		s = decode_body(protos[i], "text/html; charset=utf-8", html, sizeof html - 1);
		T_OK(stream_not_sse(s));
		T_EQ_STR(stream_error_type(s), "not_event_stream");
		T_CONTAINS(stream_error(s), "a page of type text/html; charset=utf-8");
		T_CONTAINS(stream_error(s), "titled \"Hotel WiFi \xe2\x90\x9b]52;c;aGk=\xe2\x90\x87Login\"");
		T_CONTAINS(stream_error(s), "starting \"<!DOCTYPE html> <html>");
		T_CONTAINS(stream_error(s), "captive portal");
		T_OK(strchr(stream_error(s), '\x1b') == NULL);
		stream_free(s);
		s = decode_body(protos[i], "application/json", json_err, sizeof json_err - 1);
		T_OK(stream_not_sse(s));
		T_EQ_STR(stream_error_type(s), "overloaded_error");
		T_EQ_STR(stream_error(s), "the server answered with a JSON error instead of an "
		    "event stream: Overloaded");
		stream_free(s);
		s = decode_body(protos[i], NULL, oai_err, sizeof oai_err - 1);
		T_EQ_STR(stream_error_type(s), "model_not_found");
		stream_free(s);
		s = decode_body(protos[i], "text/event-stream", "", 0);
		T_OK(stream_not_sse(s));
		T_EQ_STR(stream_error_type(s), "empty_body");
		T_EQ_STR(stream_error(s), "the server answered with an empty body instead of an "
		    "event stream (text/event-stream)");
		stream_free(s);
		s = decode_body(protos[i], "text/plain", "Bad Gateway\r\n", 13);
		T_EQ_STR(stream_error(s), "the server answered with text of type text/plain (13 bytes) "
		    "instead of an event stream, starting \"Bad Gateway\"");
		stream_free(s);
		s = decode_body(protos[i], NULL, "[1,2]", 5);
		T_EQ_STR(stream_error(s), "the server answered with JSON of no stated type (5 bytes) "
		    "instead of an event stream, starting \"[1,2]\"");
		stream_free(s);
		/* An event stream cut short is no foreign body, whatever its type says. */
		s = decode_body(protos[i], "application/json", "event: message_st", 17);
		T_OK(!stream_not_sse(s));
		stream_free(s);
		s = decode_body(protos[i], "text/html", ": hi\n\nda", 8);
		T_OK(!stream_not_sse(s));
		stream_free(s);
	}
}

/* Only content and block boundaries move progress on: not pings, comments, or white space. */
T_TEST(progress_counts_content_only)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct stream *s = stream_new(STREAM_ANTHROPIC, NULL);
	unsigned long p0;

	add_message_start(&b);
	add_start(&b, 0, "{\"type\":\"text\",\"text\":\"\"}");
	stream_feed(s, b.data, b.len);
	p0 = stream_progress(s);
	T_EQ_INT(p0, 2);
	buf_reset(&b);
	add_event(&b, "ping", "{\"type\":\"ping\"}");
	buf_puts(&b, ": keep-alive\n\n\n\n");
	add_delta(&b, 0, "text_delta", "text", "  \n");
	add_event(&b, "ping", "{\"type\":\"ping\"}");
	stream_feed(s, b.data, b.len);
	T_EQ_INT(stream_progress(s), p0);
	buf_reset(&b);
	add_delta(&b, 0, "text_delta", "text", "hi");
	add_delta(&b, 0, "input_json_delta", "partial_json", "");
	stream_feed(s, b.data, b.len);
	T_EQ_INT(stream_progress(s), p0 + 1);
	buf_reset(&b);
	add_stop(&b, 0);
	add_start(&b, 1, "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":{}}");
	add_delta(&b, 1, "input_json_delta", "partial_json", "{\"a\"");
	add_delta(&b, 1, "input_json_delta", "partial_json", " ");
	stream_feed(s, b.data, b.len);
	T_EQ_INT(stream_progress(s), p0 + 4);
	stream_free(s);
	buf_release(&b);
	/* OpenAI: empty chunks and keep-alives are not progress; content is. */
	s = stream_new(STREAM_OPENAI, NULL);
	buf_puts(&b, ": ping\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{}}]}\n\n"
	    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" \"}}]}\n\n");
	stream_feed(s, b.data, b.len);
	T_EQ_INT(stream_progress(s), 0);
	buf_reset(&b);
	add_delta_chunk(&b, "{\"content\":\"x\"}", NULL);
	stream_feed(s, b.data, b.len);
	T_EQ_INT(stream_progress(s), 1);
	stream_free(s);
	buf_release(&b);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (!find_fixtures(argv[0])) {
		printf("Bail out! tests/fixtures/sse not found (set top_srcdir)\n");
		return 1;
	}
	T_RUN(fixtures_match_expected);
	T_RUN(anthropic_5mb_text_delta);
	T_RUN(anthropic_partial_json_split_mid_escape);
	T_RUN(anthropic_u2028_inside_json);
	T_RUN(anthropic_tool_inputs);
	T_RUN(anthropic_other_blocks);
	T_RUN(anthropic_usage_is_cumulative);
	T_RUN(anthropic_unnamed_and_unknown_events);
	T_RUN(anthropic_invalid_events_fail);
	T_RUN(anthropic_cut_short);
	T_RUN(anthropic_blocks_done_as_they_stop);
	T_RUN(take_content_and_no_handler);
	T_RUN(line_over_the_limit);
	T_RUN(block_over_the_limit);
	T_RUN(anthropic_bare_error_data);
	T_RUN(openai_text_and_tool_calls);
	T_RUN(openai_finish_reasons);
	T_RUN(openai_usage_last_wins);
	T_RUN(openai_empty_streams_are_errors);
	T_RUN(openai_ids_and_indices);
	T_RUN(openai_late_fragment_fails);
	T_RUN(openai_reasoning_stays_local);
	T_RUN(openai_cut_short);
	T_RUN(openai_errors);
	T_RUN(openai_other_choices_ignored);
	T_RUN(openai_nothing_after_done);
	T_RUN(invalid_utf8_is_repaired);
	T_RUN(many_blocks_in_order);
	T_RUN(openai_many_calls_in_order);
	T_RUN(lone_surrogates_are_repaired);
	T_RUN(invalid_utf8_in_blocks_is_repaired);
	T_RUN(bodies_that_are_not_event_streams);
	T_RUN(progress_counts_content_only);
	return t_done();
}
