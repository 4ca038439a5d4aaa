/*
 * The web search server tool's blocks, as the Messages API streams them:
 * a scripted message's "web_search" becomes a server_tool_use block (its
 * query as input_json_delta fragments), a web_search_tool_result block
 * whole in its content_block_start (results with encrypted_content, or an
 * error code), and text blocks whose citations_delta events cite the
 * results (web_search_result_location with cited_text and
 * encrypted_index); the message_delta's usage counts the searches in
 * server_tool_use.web_search_requests.  The request must declare the tool.
 *
 *   "web_search": {"query": "...", "results": [{"title", "url", "page_age"?}],
 *                  "error": "max_uses_exceeded"?, "searches": 1?,
 *                  "answer": [{"text": "...", "cite": [0, ...]?}]}
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "mock/mock_int.h"
#include "sha256.h"
#include "xalloc.h"

static const char *const ws_keys[] = { "query", "results", "error", "searches", "answer", NULL };

static int
ws_fail(char *err, size_t errlen, int i, const char *what)
{
	mock_errf(err, errlen, "responses[%d].web_search: %s", i, what);
	return -1;
}

int
mock_websearch_check(const cJSON *ws, int i, char *err, size_t errlen)
{
	const cJSON *it, *r, *c;
	int nres;

	if (ws == NULL)
		return 0;
	if (!cJSON_IsObject(ws))
		return ws_fail(err, errlen, i, "expected an object");
	cJSON_ArrayForEach(it, ws)
		if (!mock_key_in(it->string, ws_keys))
			return ws_fail(err, errlen, i, "unknown key (query, results, error, searches, answer)");
	if (!cJSON_IsString(json_get(ws, "query")))
		return ws_fail(err, errlen, i, "\"query\" must be a string");
	nres = cJSON_GetArraySize(json_get(ws, "results"));
	cJSON_ArrayForEach(r, json_get(ws, "results"))
		if (!cJSON_IsString(json_get(r, "url")) || !cJSON_IsString(json_get(r, "title")))
			return ws_fail(err, errlen, i, "each result needs a \"url\" and a \"title\"");
	cJSON_ArrayForEach(r, json_get(ws, "answer")) {
		if (!cJSON_IsString(json_get(r, "text")))
			return ws_fail(err, errlen, i, "each answer part needs a \"text\"");
		cJSON_ArrayForEach(c, json_get(r, "cite"))
			if (!cJSON_IsNumber(c) || c->valueint < 0 || c->valueint >= nres)
				return ws_fail(err, errlen, i, "\"cite\" holds indexes of results");
	}
	return 0;
}

/* Did the request declare the web search server tool? */
static bool
ws_declared(const struct call *k)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, json_get(k->body, "tools"))
		if (strncmp(json_str(t, "type", ""), "web_search_", 11) == 0 &&
		    strcmp(json_str(t, "name", ""), "web_search") == 0)
			return true;
	return false;
}

void
mock_websearch_check_request(struct call *k, const struct resp *r)
{
	const cJSON *t;

	if (r == NULL || r->web_search == NULL || k->body == NULL)
		return;
	if (!ws_declared(k)) {
		mock_problem(k, "tools: the scripted reply searches the web but the request declares "
		    "no web search tool ({\"type\": \"web_search_20250305\", \"name\": \"web_search\"})");
		return;
	}
	cJSON_ArrayForEach(t, json_get(k->body, "tools"))
		if (json_get(t, "allowed_domains") != NULL && json_get(t, "blocked_domains") != NULL)
			mock_problem(k, "tools.web_search: allowed_domains and blocked_domains cannot "
			    "both be given");
}

static cJSON *
ws_event(const char *type, int index)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", type);
	cJSON_AddNumberToObject(o, "index", index);
	return o;
}

static void
ws_start(struct reply *r, int index, cJSON *block)
{
	cJSON *ev = ws_event("content_block_start", index);

	cJSON_AddItemToObject(ev, "content_block", block);
	mock_sse_event(r, "content_block_start", ev);
}

static void
ws_delta(struct reply *r, int index, cJSON *delta)
{
	cJSON *ev = ws_event("content_block_delta", index);

	cJSON_AddItemToObject(ev, "delta", delta);
	mock_sse_event(r, "content_block_delta", ev);
}

static void
ws_delta_str(struct reply *r, int index, const char *type, const char *key, const char *s, size_t n)
{
	cJSON *d = cJSON_CreateObject();
	char *piece = xstrndup(s, n);

	cJSON_AddStringToObject(d, "type", type);
	cJSON_AddStringToObject(d, key, piece);
	free(piece);
	ws_delta(r, index, d);
}

static void
ws_stop(struct reply *r, int index)
{
	mock_sse_event(r, "content_block_stop", ws_event("content_block_stop", index));
}

/* What the API sends as opaque encrypted data: here a digest, stable per input. */
static void
ws_opaque(const char *prefix, const char *s, char out[SHA256_HEX_LEN + 8])
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex(s, strlen(s), hex);
	snprintf(out, SHA256_HEX_LEN + 8, "%s%s", prefix, hex);
}

int
mock_websearch_render(struct call *k, struct reply *r, int index)
{
	const cJSON *ws = k->resp->web_search, *res, *part, *c;
	const char *q = json_str(ws, "query", "");
	char id[64], opaque[SHA256_HEX_LEN + 8];
	struct buf input = BUF_INIT(BUF_NOLIMIT);
	cJSON *b, *content;
	size_t n, half;

	snprintf(id, sizeof id, "srvtoolu_mock_%06d", k->n);
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "server_tool_use");
	cJSON_AddStringToObject(b, "id", id);
	cJSON_AddStringToObject(b, "name", "web_search");
	cJSON_AddObjectToObject(b, "input");
	ws_start(r, index, b);
	buf_puts(&input, "{\"query\":");
	{
		cJSON *qs = cJSON_CreateString(q);
		char *s = cJSON_PrintUnformatted(qs);

		buf_puts(&input, s);
		free(s);
		cJSON_Delete(qs);
	}
	buf_putc(&input, '}');
	/* Two fragments, cut inside the query, as the API cuts them anywhere. */
	n = input.len;
	half = n / 2;
	ws_delta_str(r, index, "input_json_delta", "partial_json", "", 0);
	ws_delta_str(r, index, "input_json_delta", "partial_json", input.data, half);
	ws_delta_str(r, index, "input_json_delta", "partial_json", input.data + half, n - half);
	ws_stop(r, index++);
	buf_release(&input);

	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "web_search_tool_result");
	cJSON_AddStringToObject(b, "tool_use_id", id);
	if (json_str(ws, "error", NULL) != NULL) {
		content = cJSON_AddObjectToObject(b, "content");
		cJSON_AddStringToObject(content, "type", "web_search_tool_result_error");
		cJSON_AddStringToObject(content, "error_code", json_str(ws, "error", ""));
	} else {
		content = cJSON_AddArrayToObject(b, "content");
		cJSON_ArrayForEach(res, json_get(ws, "results")) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "type", "web_search_result");
			cJSON_AddStringToObject(o, "title", json_str(res, "title", ""));
			cJSON_AddStringToObject(o, "url", json_str(res, "url", ""));
			ws_opaque("enc_", json_str(res, "url", ""), opaque);
			cJSON_AddStringToObject(o, "encrypted_content", opaque);
			if (json_str(res, "page_age", NULL) != NULL)
				cJSON_AddStringToObject(o, "page_age", json_str(res, "page_age", ""));
			else
				cJSON_AddNullToObject(o, "page_age");
			cJSON_AddItemToArray(content, o);
		}
	}
	ws_start(r, index, b);
	ws_stop(r, index++);

	cJSON_ArrayForEach(part, json_get(ws, "answer")) {
		const char *text = json_str(part, "text", "");

		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", "");
		if (json_get(part, "cite") != NULL)
			cJSON_AddArrayToObject(b, "citations");
		ws_start(r, index, b);
		cJSON_ArrayForEach(c, json_get(part, "cite")) {
			const cJSON *src = cJSON_GetArrayItem(json_get(ws, "results"), c->valueint);
			cJSON *d = cJSON_CreateObject(), *cit;

			cJSON_AddStringToObject(d, "type", "citations_delta");
			cit = cJSON_AddObjectToObject(d, "citation");
			cJSON_AddStringToObject(cit, "type", "web_search_result_location");
			cJSON_AddStringToObject(cit, "cited_text", text);
			cJSON_AddStringToObject(cit, "url", json_str(src, "url", ""));
			cJSON_AddStringToObject(cit, "title", json_str(src, "title", ""));
			ws_opaque("idx_", json_str(src, "url", ""), opaque);
			cJSON_AddStringToObject(cit, "encrypted_index", opaque);
			ws_delta(r, index, d);
		}
		n = strlen(text);
		ws_delta_str(r, index, "text_delta", "text", text, n / 2);
		ws_delta_str(r, index, "text_delta", "text", text + n / 2, n - n / 2);
		ws_stop(r, index++);
	}
	return index;
}

void
mock_websearch_usage(const struct call *k, cJSON *usage)
{
	const cJSON *ws = k->resp != NULL ? k->resp->web_search : NULL;
	cJSON *st;

	if (ws == NULL || usage == NULL)
		return;
	st = cJSON_AddObjectToObject(usage, "server_tool_use");
	cJSON_AddNumberToObject(st, "web_search_requests",
	    (double)json_int(ws, "searches", json_get(ws, "error") != NULL ? 0 : 1));
}
