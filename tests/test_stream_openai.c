/*
 * Tests for agent/stream_openai.c with hand-made OpenAI chat completion
 * streams: text and tool calls, finish reasons, usage, ids and indices,
 * errors, streams cut short.  Shared scaffolding: t_stream.h.
 */
#include "autoconf.h"

#include "t_stream.h"

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
int
main(int argc, char **argv)
{
	(void)argc;
	need_fixtures(argv[0]);
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
	T_RUN(openai_many_calls_in_order);
	return t_done();
}
