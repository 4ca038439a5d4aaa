/*
 * Tests for agent/stream*.c: every fixture of tests/fixtures/sse against
 * expected.json (see t_stream.h), hand-made Anthropic streams, and what both
 * protocols share: repairs of bad UTF-8, many blocks, bodies that are not
 * event streams, progress.  The OpenAI-only cases are test_stream_openai.c.
 */
#include "autoconf.h"

#include "t_stream.h"

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
	need_fixtures(argv[0]);
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
	T_RUN(invalid_utf8_is_repaired);
	T_RUN(many_blocks_in_order);
	T_RUN(lone_surrogates_are_repaired);
	T_RUN(invalid_utf8_in_blocks_is_repaired);
	T_RUN(bodies_that_are_not_event_streams);
	T_RUN(progress_counts_content_only);
	return t_done();
}
