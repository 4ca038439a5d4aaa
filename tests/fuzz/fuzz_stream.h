/*
 * fuzz_stream: the body of the two stream decoder targets
 * (fuzz_stream_anthropic.c, fuzz_stream_openai.c), which define
 * FUZZ_STREAM_PROTO and include this.
 *
 * Invariants: every delta is valid UTF-8; the whole feed and the same
 * bytes fed in small pieces give the same deltas, blocks, content, stop
 * reason, usage, errors and completeness; content is always an array.
 */
#include "autoconf.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fuzz.h"
#include "json.h"
#include "model/stream.h"
#include "utf8.h"

static void
fz_delta(struct buf *b, char kind, int index, const char *s, size_t n)
{
	FUZZ_CHECK(n > 0);
	FUZZ_CHECK(utf8_valid(s, n));
	buf_printf(b, "%c%d:%zu:", kind, index, n);
	buf_append(b, s, n);
}

static void
fz_text(void *arg, int index, const char *s, size_t n)
{
	fz_delta(arg, 'T', index, s, n);
}

static void
fz_thinking(void *arg, int index, const char *s, size_t n)
{
	fz_delta(arg, 'K', index, s, n);
}

/*
 * The id an OpenAI tool call without one is given is random
 * ("call_<16 hex>_<n>"): masked, so two decodings compare.
 */
static void
fz_mask(cJSON *item)
{
	cJSON *b, *id;
	const char *v;
	size_t i, n;

	cJSON_ArrayForEach(b, item) {
		id = cJSON_GetObjectItemCaseSensitive(b, "id");
		if (!cJSON_IsString(id) || strncmp(v = id->valuestring, "call_", 5) != 0)
			continue;
		n = strlen(v);
		for (i = 5; i < n && i < 21 && strchr("0123456789abcdef", v[i]) != NULL; i++)
			;
		if (i == 21 && v[21] == '_')
			cJSON_SetValuestring(id, "call_GENERATED");
	}
}

static char *
fz_print(const cJSON *item, bool array)
{
	cJSON *copy = cJSON_Duplicate(item, 1), *wrap = copy;
	char *js;

	FUZZ_CHECK(copy != NULL);
	if (!array) {
		wrap = cJSON_CreateArray();
		cJSON_AddItemToArray(wrap, copy);
	}
	fz_mask(wrap);
	js = json_print(wrap);
	cJSON_Delete(wrap);
	return js;
}

static void
fz_block(void *arg, int index, const cJSON *block)
{
	char *js = fz_print(block, false);

	FUZZ_CHECK(js != NULL);
	buf_printf(arg, "B%d:%s\n", index, js);
	free(js);
}

static void
fz_str(struct buf *b, const char *what, const char *s)
{
	buf_printf(b, "%s=%s\n", what, s ? s : "(null)");
}

static void
fz_run(const uint8_t *data, size_t size, size_t step, struct buf *out)
{
	struct stream_handler h = { fz_text, fz_thinking, fz_block, out };
	struct stream *s = stream_new(FUZZ_STREAM_PROTO, &h);
	const cJSON *content;
	struct usage u;
	size_t off = 0;
	bool has;
	char *js;

	while (off < size) {
		size_t n = step ? step : fuzz_chunk(data[off], size - off);

		if (n > size - off)
			n = size - off;
		if (stream_feed(s, (const char *)data + off, n) == -1) {
			FUZZ_CHECK(stream_error(s) != NULL);
			break;
		}
		off += n;
	}
	stream_finish(s);
	content = stream_content(s);
	FUZZ_CHECK(content != NULL && cJSON_IsArray(content));
	js = fz_print(content, true);
	FUZZ_CHECK(js != NULL);
	buf_printf(out, "content=%s\n", js);
	free(js);
	fz_str(out, "stop", stream_stop_reason(s));
	fz_str(out, "id", stream_message_id(s));
	fz_str(out, "model", stream_model(s));
	fz_str(out, "etype", stream_error_type(s));
	fz_str(out, "error", stream_error(s));
	u = stream_usage(s, &has);
	buf_printf(out, "usage=%d %lld %lld %lld %lld complete=%d bytes=%zu\n", has,
	    (long long)u.input, (long long)u.output, (long long)u.cache_write,
	    (long long)u.cache_read, stream_complete(s), stream_output_bytes(s));
	cJSON_Delete(stream_take_content(s));
	FUZZ_CHECK(cJSON_GetArraySize(stream_content(s)) == 0);
	stream_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf whole = BUF_INIT(BUF_NOLIMIT), cut = BUF_INIT(BUF_NOLIMIT);

	fz_run(data, size, size ? size : 1, &whole);
	fz_run(data, size, 0, &cut);
	if (whole.len != cut.len || memcmp(whole.data, cut.data, whole.len) != 0) {
		fprintf(stderr, "whole feed:\n%s\nsplit feed:\n%s\n", buf_cstr(&whole), buf_cstr(&cut));
		FUZZ_CHECK(!"the split feed decodes as the whole one");
	}
	buf_release(&whole);
	buf_release(&cut);
	return 0;
}
