/*
 * Tests for agent/sse.c: every fixture of tests/fixtures/sse fed whole, a
 * byte at a time, in fixed and random chunks (all must agree with each
 * other and with expected.json), and hand-made grammar cases.
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
#include "model/sse.h"
#include "t.h"
#include "t_fixtures.h"
#include "xalloc.h"

/* Records every event as {"event": name, "data": data}. */
struct rec {
	cJSON	*events;
	int	 nul_seen;	/* data held a NUL byte */
	size_t	 last_len;
};

static void
rec_event(void *arg, const char *event, const char *data, size_t len)
{
	struct rec *r = arg;
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "event", event);
	cJSON_AddStringToObject(e, "data", data);
	if (memchr(data, '\0', len) != NULL)
		r->nul_seen = 1;
	if (data[len] != '\0')
		T_FAIL("data is not NUL-terminated");
	r->last_len = len;
	cJSON_AddItemToArray(r->events, e);
}

static void
rec_init(struct rec *r)
{
	memset(r, 0, sizeof *r);
	r->events = cJSON_CreateArray();
}

/*
 * Feed p in chunks: size 0 means random sizes from seed, else fixed.
 * *before gets the count of events dispatched before sse_finish.
 */
static cJSON *
parse_chunked(const char *p, size_t n, size_t size, uint32_t seed,
    int *before, int *rc)
{
	struct sse s;
	struct rec r;
	size_t off = 0;

	rec_init(&r);
	sse_init(&s, rec_event, &r);
	*rc = 0;
	while (off < n) {
		size_t k = size;

		if (k == 0)
			k = rnd(&seed) % 4 == 0 ? rnd(&seed) % 200 + 1 :
			    rnd(&seed) % 9 + 1;
		if (k > n - off)
			k = n - off;
		if (sse_feed(&s, p + off, k) == -1)
			*rc = -1;
		off += k;
	}
	*before = cJSON_GetArraySize(r.events);
	sse_finish(&s);
	T_EQ_INT(s.events, cJSON_GetArraySize(r.events));
	sse_release(&s);
	return r.events;
}

/*
 * expected.json was made by a strict parser that drops the non-standard
 * "error:" field; sse.h reports it as an event named "error" instead.
 */
static cJSON *
expected_names(const char *file, const cJSON *exp)
{
	if (strcmp(file, "openai_llamacpp_legacy_error_field.sse") == 0) {
		const char *names[] = { "error", "message" };

		return cJSON_CreateStringArray(names, 2);
	}
	return cJSON_Duplicate(json_get(exp, "event_names"), 1);
}

static void
check_fixture(const char *file, const cJSON *exp)
{
	static const size_t sizes[] = { 1, 2, 3, 5, 7, 16, 64, 1000 };
	cJSON *whole, *names, *got, *e;
	char *bytes;
	size_t len, i;
	int before, rc, want, flush;

	bytes = fixture(file, &len);
	if (bytes == NULL) {
		T_FAIL("cannot read %s", file);
		return;
	}
	names = expected_names(file, exp);
	want = cJSON_GetArraySize(names);
	flush = json_bool(exp, "eof_flush_needed", false);
	whole = parse_chunked(bytes, len, len, 0, &before, &rc);
	T_EQ_INT(rc, 0);
	T_EQ_INT(cJSON_GetArraySize(whole), want);
	/* The last event waits for sse_finish exactly when no blank line ends it. */
	T_EQ_INT(before, want - (flush ? 1 : 0));
	got = cJSON_CreateArray();
	cJSON_ArrayForEach(e, whole) {
		const char *ev = json_str(e, "event", "");

		cJSON_AddItemToArray(got, cJSON_CreateString(*ev ? ev : "message"));
	}
	if (!cJSON_Compare(got, names, 1)) {
		char *a = json_print(got), *b = json_print(names);

		T_FAIL("%s: events %s, expected %s", file, a, b);
		free(a);
		free(b);
	}
	if (json_get(exp, "events") != NULL &&
	    !cJSON_Compare(whole, json_get(exp, "events"), 1))
		T_FAIL("%s: event data differ", file);
	for (i = 0; i < sizeof sizes / sizeof sizes[0] + 4; i++) {
		size_t size = i < sizeof sizes / sizeof sizes[0] ? sizes[i] : 0;
		cJSON *other = parse_chunked(bytes, len, size, 0x9e3779b9u + i,
		    &before, &rc);

		T_EQ_INT(rc, 0);
		if (!cJSON_Compare(whole, other, 1))
			T_FAIL("%s: chunks of %zu (seed %zu) differ from whole",
			    file, size, i);
		cJSON_Delete(other);
	}
	cJSON_Delete(got);
	cJSON_Delete(names);
	cJSON_Delete(whole);
	free(bytes);
}

T_TEST(fixtures_match_expected)
{
	size_t len;
	char *text = fixture("expected.json", &len);
	cJSON *all = text != NULL ? cJSON_ParseWithLength(text, len) : NULL, *f;
	int n = 0;

	T_OK(all != NULL);
	cJSON_ArrayForEach(f, all) {
		check_fixture(f->string, f);
		n++;
	}
	/* 22 captures and 7 derived files. */
	T_EQ_INT(n, 29);
	cJSON_Delete(all);
	free(text);
}

/* Parse chunks (NULL-terminated list) and render events as name=data|... */
static char *
run_chunks(const char *const *chunks, int *rc)
{
	struct sse s;
	struct rec r;
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	const cJSON *e;

	rec_init(&r);
	sse_init(&s, rec_event, &r);
	*rc = 0;
	for (; *chunks != NULL; chunks++)
		if (sse_feed(&s, *chunks, strlen(*chunks)) == -1)
			*rc = -1;
	sse_finish(&s);
	sse_release(&s);
	cJSON_ArrayForEach(e, r.events)
		buf_printf(&out, "%s=%s|", json_str(e, "event", "?"),
		    json_str(e, "data", "?"));
	cJSON_Delete(r.events);
	return buf_detach(&out, NULL);
}

#define CHECK_CHUNKS(want, ...) do {					\
	const char *const t_ch[] = { __VA_ARGS__, NULL };		\
	int t_rc;							\
	char *t_got = run_chunks(t_ch, &t_rc);				\
	T_EQ_INT(t_rc, 0);						\
	T_EQ_STR(t_got, want);						\
	free(t_got);							\
} while (0)

T_TEST(line_ends_split_across_chunks)
{
	CHECK_CHUNKS("=a|=b|", "data: a\r", "\n\r", "\ndata: b\r\n\r\n");
	/* CR at the end of one chunk, LF at the start of the next: one end. */
	CHECK_CHUNKS("=a|", "data: a\r", "\n", "\r", "\n");
	/* Double CR is a blank line; CR then CRLF too. */
	CHECK_CHUNKS("x=|", "event: x\r", "\r");
	CHECK_CHUNKS("x=1|y=2|", "event: x\rdata: 1\r\r", "event: y\r",
	    "data: 2\r", "\r\n");
	CHECK_CHUNKS("=a|", "data: a\n\n");
	CHECK_CHUNKS("=a\nb|", "data: a\r\ndata: b\r\n\r\n");
	/* A lone LF after a CR that did not end a chunk is still one line end. */
	CHECK_CHUNKS("=a|=b|", "data: a\r\n\r\ndata: b\n\n");
	/* LF LF after a CR: the first LF is eaten, the second ends the event. */
	CHECK_CHUNKS("=a|", "data: a\r", "\n\n");
	CHECK_CHUNKS("=a|", "data: a\r", "", "\n", "", "\n");
}

T_TEST(grammar)
{
	/* Comments, keep-alives, no space after the colon, one space stripped. */
	CHECK_CHUNKS("=x|=  two|", ": comment\n\n:\n\ndata:x\n\n",
	    "data:   two\n\n");
	/* The SDK multi-line test: empty data lines count. */
	CHECK_CHUNKS("=\n{\n\"foo\":\n\n\ntrue}|",
	    "data:\ndata: {\ndata: \"foo\":\ndata: \ndata:\ndata: true}\n\n");
	/* Only the first colon splits. */
	CHECK_CHUNKS("=a: b:c|", "data: a: b:c\n\n");
	/* A name without data is dispatched with ""; data without a name too. */
	CHECK_CHUNKS("message_stop=|", "event: message_stop\n\n");
	CHECK_CHUNKS("=|", "data\n\n");
	CHECK_CHUNKS("=|", "data:\n\n");
	/* Nothing at all to dispatch: no event. */
	CHECK_CHUNKS("", "\n\n\n", "event\n\n", ": x\r\n\r\n");
	/* id, retry and unknown fields are ignored; the last event: wins. */
	CHECK_CHUNKS("b=1|", "id: 7\nretry: 10\nretry: x\nfoo: bar\nevent: a\n",
	    "event: b\ndata: 1\n\n");
	/* Field names are case-sensitive; a space before the colon is part of it. */
	CHECK_CHUNKS("=ok|", "Data: no\ndata : no\ndata: ok\n\n");
	/* The name does not carry over to the next event. */
	CHECK_CHUNKS("a=1|=2|", "event: a\ndata: 1\n\ndata: 2\n\n");
}

T_TEST(legacy_error_field)
{
	CHECK_CHUNKS("error={\"code\":400}|=[DONE]|",
	    "error: {\"code\":400}\n\ndata: [DONE]\n\n");
}

T_TEST(finish_flushes_the_last_event)
{
	CHECK_CHUNKS("=x|", "data: x");
	CHECK_CHUNKS("=x|", "data: x\n");
	CHECK_CHUNKS("=x|", "data: x\r");
	CHECK_CHUNKS("e=|", "event: e");
	CHECK_CHUNKS("", ": just a comment");
	CHECK_CHUNKS("", "");
	{
		struct sse s;
		struct rec r;

		rec_init(&r);
		sse_init(&s, rec_event, &r);
		T_EQ_INT(sse_feed(&s, "data: a\n", 8), 0);
		T_EQ_INT(cJSON_GetArraySize(r.events), 0);
		sse_finish(&s);
		T_EQ_INT(cJSON_GetArraySize(r.events), 1);
		/* A second finish has nothing more to flush. */
		sse_finish(&s);
		T_EQ_INT(cJSON_GetArraySize(r.events), 1);
		T_EQ_INT(s.events, 1);
		sse_release(&s);
		cJSON_Delete(r.events);
	}
}

T_TEST(utf8_is_never_split)
{
	/* "известни" split as in the SDK tests: [d0] [b8 d0 b7 d0] [b2 ...]. */
	CHECK_CHUNKS("=\xd0\xb8\xd0\xb7\xd0\xb2\xd0\xb5\xd1\x81\xd1\x82"
	    "\xd0\xbd\xd0\xb8|", "data: \xd0", "\xb8\xd0\xb7\xd0",
	    "\xb2\xd0\xb5\xd1\x81\xd1\x82\xd0\xbd\xd0\xb8\n\n");
	/* U+2028, U+2029 and NEL are not line ends; only CR and LF are. */
	CHECK_CHUNKS("={\"t\":\"a\xe2\x80\xa8" "b\xe2\x80\xa9" "c\xc2\x85" "d\"}|",
	    "data: {\"t\":\"a\xe2", "\x80", "\xa8" "b\xe2\x80\xa9" "c\xc2",
	    "\x85" "d\"}\n\n");
}

T_TEST(nul_bytes_pass_through)
{
	struct sse s;
	struct rec r;

	rec_init(&r);
	sse_init(&s, rec_event, &r);
	T_EQ_INT(sse_feed(&s, "data: a\0b\n\n", 11), 0);
	T_EQ_INT(cJSON_GetArraySize(r.events), 1);
	T_OK(r.nul_seen);
	T_EQ_INT(r.last_len, 3);
	sse_release(&s);
	cJSON_Delete(r.events);
}

/* One line of "data: " + fill bytes of 'x', fed in chunks of size. */
static int
feed_long_line(size_t fill, size_t size, struct rec *r, int *rc_finish)
{
	struct sse s;
	char *line = xmalloc(fill + 8);
	size_t n, off;
	int rc = 0;

	memcpy(line, "data: ", 6);
	memset(line + 6, 'x', fill);
	memcpy(line + 6 + fill, "\n\n", 2);
	n = fill + 8;
	sse_init(&s, rec_event, r);
	for (off = 0; off < n && rc == 0; off += size)
		rc = sse_feed(&s, line + off, size < n - off ? size : n - off);
	/* Once failed, the parser stays failed. */
	*rc_finish = sse_feed(&s, "data: y\n\n", 9);
	sse_finish(&s);
	sse_release(&s);
	free(line);
	return rc;
}

T_TEST(long_lines)
{
	struct rec r;
	int after;

	/* 5 MB in one line, whole and in odd chunks. */
	rec_init(&r);
	T_EQ_INT(feed_long_line(5u << 20, SIZE_MAX, &r, &after), 0);
	T_EQ_INT(after, 0);
	T_EQ_INT(cJSON_GetArraySize(r.events), 2);
	T_EQ_INT(r.last_len, 1);
	T_EQ_INT(strlen(json_str(cJSON_GetArrayItem(r.events, 0), "data", "")),
	    5u << 20);
	cJSON_Delete(r.events);
	rec_init(&r);
	T_EQ_INT(feed_long_line(5u << 20, 4093, &r, &after), 0);
	T_EQ_INT(cJSON_GetArraySize(r.events), 2);
	cJSON_Delete(r.events);

	/* A line of exactly SSE_LINE_MAX bytes is accepted. */
	rec_init(&r);
	T_EQ_INT(feed_long_line(SSE_LINE_MAX - 6, 1u << 20, &r, &after), 0);
	T_EQ_INT(cJSON_GetArraySize(r.events), 2);
	cJSON_Delete(r.events);

	/* One byte more fails, whether it arrives in pieces or at once. */
	rec_init(&r);
	T_EQ_INT(feed_long_line(SSE_LINE_MAX - 5, 1u << 20, &r, &after), -1);
	T_EQ_INT(after, -1);
	T_EQ_INT(cJSON_GetArraySize(r.events), 0);
	cJSON_Delete(r.events);
	rec_init(&r);
	T_EQ_INT(feed_long_line(SSE_LINE_MAX - 5, SIZE_MAX, &r, &after), -1);
	T_EQ_INT(after, -1);
	T_EQ_INT(cJSON_GetArraySize(r.events), 0);
	cJSON_Delete(r.events);
}

T_TEST(comment_over_the_limit_fails_too)
{
	struct sse s;
	struct rec r;
	size_t n = SSE_LINE_MAX + 1;
	char *line = xmalloc(n + 1);

	memset(line, ':', n);
	line[n] = '\n';
	rec_init(&r);
	sse_init(&s, rec_event, &r);
	T_EQ_INT(sse_feed(&s, line, n + 1), -1);
	T_OK(s.failed);
	sse_release(&s);
	cJSON_Delete(r.events);
	free(line);
}

int
main(int argc, char **argv)
{
	(void)argc;
	need_fixtures(argv[0]);
	T_RUN(fixtures_match_expected);
	T_RUN(line_ends_split_across_chunks);
	T_RUN(grammar);
	T_RUN(legacy_error_field);
	T_RUN(finish_flushes_the_last_event);
	T_RUN(utf8_is_never_split);
	T_RUN(nul_bytes_pass_through);
	T_RUN(long_lines);
	T_RUN(comment_over_the_limit_fails_too);
	return t_done();
}
