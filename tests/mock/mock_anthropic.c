/* The mock model server: anthropic Messages: checks and streamed replies (see mock_int.h). */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "mock/mock.h"
#include "mock/mock_int.h"
#include "sha256.h"
#include "xalloc.h"

/* ---------------------------------------------------------------------
 * Anthropic Messages checks, worded like the real API's 400s.
 */

static const char *const server_block_types[] = {
	"server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
	"code_execution_tool_result", "bash_code_execution_tool_result",
	"text_editor_code_execution_tool_result", "tool_search_tool_result",
	"container_upload", "mcp_tool_use", "mcp_tool_result", NULL
};

void
mock_check_anthropic_headers(struct call *k)
{
	const char *key = mock_hdr(k->rq, "x-api-key");
	const char *auth = mock_hdr(k->rq, "authorization");
	const char *ver = mock_hdr(k->rq, "anthropic-version");

	if ((key == NULL || key[0] == '\0') &&
	    (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0 || auth[7] == '\0'))
		mock_problem(k, "x-api-key: header is required (or Authorization: Bearer <token>)");
	if (ver == NULL)
		mock_problem(k, "anthropic-version: header is required");
	else if (strcmp(ver, "2023-06-01") != 0)
		mock_problem(k, "anthropic-version: \"%s\" is not a valid version (expected 2023-06-01)", ver);
	mock_check_content_type(k);
}

static void
check_cache_control(struct call *k, const cJSON *cc, const char *where, int *count)
{
	const cJSON *ttl;

	if (cc == NULL || cJSON_IsNull(cc))
		return;
	(*count)++;
	ttl = json_get(cc, "ttl");
	if (!cJSON_IsObject(cc) || !mock_str_eq(json_get(cc, "type"), "ephemeral"))
		mock_problem(k, "%s.cache_control: expected {\"type\":\"ephemeral\"}", where);
	else if (ttl != NULL && !mock_str_eq(ttl, "5m") && !mock_str_eq(ttl, "1h"))
		mock_problem(k, "%s.cache_control.ttl: expected \"5m\" or \"1h\"", where);
}

static void
check_text_block(struct call *k, const cJSON *b, const char *where)
{
	const cJSON *text = json_get(b, "text");

	if (!cJSON_IsString(text))
		mock_problem(k, "%s.text: Field required", where);
	else if (text->valuestring[0] == '\0')
		mock_problem(k, "%s.text: text content blocks must be non-empty", where);
}

static void
check_tool_result(struct call *k, const cJSON *b, const char *where, int *ncc)
{
	const cJSON *id = json_get(b, "tool_use_id"), *c = json_get(b, "content"), *e;
	const cJSON *is_error = json_get(b, "is_error");
	char sub[256];
	int j = 0;

	if (!cJSON_IsString(id) || id->valuestring[0] == '\0')
		mock_problem(k, "%s.tool_use_id: Field required", where);
	if (is_error != NULL && !cJSON_IsBool(is_error))
		mock_problem(k, "%s.is_error: Input should be a valid boolean", where);
	if (c == NULL || cJSON_IsString(c))
		return;
	if (!cJSON_IsArray(c)) {
		mock_problem(k, "%s.content: expected a string or an array of blocks", where);
		return;
	}
	cJSON_ArrayForEach(e, c) {
		const char *type = json_str(e, "type", "");

		snprintf(sub, sizeof sub, "%s.content.%d", where, j++);
		if (strcmp(type, "text") == 0)
			check_text_block(k, e, sub);
		else if (strcmp(type, "image") != 0 && strcmp(type, "document") != 0 &&
		    strcmp(type, "search_result") != 0)
			mock_problem(k, "%s.type: tool_result content blocks must be text, image, document "
			    "or search_result, not \"%s\"", sub, type);
		check_cache_control(k, json_get(e, "cache_control"), sub, ncc);
	}
}

static void
check_block(struct call *k, const cJSON *b, bool assistant, const char *where, int *ncc)
{
	const char *type = json_str(b, "type", NULL);

	if (!cJSON_IsObject(b) || type == NULL) {
		mock_problem(k, "%s.type: Field required", where);
		return;
	}
	check_cache_control(k, json_get(b, "cache_control"), where, ncc);
	if (strcmp(type, "text") == 0)
		check_text_block(k, b, where);
	else if (strcmp(type, "image") == 0 || strcmp(type, "document") == 0) {
		if (!cJSON_IsObject(json_get(b, "source")))
			mock_problem(k, "%s.source: Field required", where);
	} else if (strcmp(type, "tool_use") == 0) {
		if (!assistant)
			mock_problem(k, "%s: tool_use blocks may only appear in assistant messages", where);
		if (json_str(b, "id", "")[0] == '\0' || json_str(b, "name", "")[0] == '\0')
			mock_problem(k, "%s: tool_use blocks need an id and a name", where);
		if (!cJSON_IsObject(json_get(b, "input")))
			mock_problem(k, "%s.input: Input should be a valid dictionary", where);
	} else if (strcmp(type, "tool_result") == 0) {
		if (assistant)
			mock_problem(k, "%s: tool_result blocks may only appear in user messages", where);
		check_tool_result(k, b, where, ncc);
	} else if (strcmp(type, "thinking") == 0) {
		if (!assistant)
			mock_problem(k, "%s: thinking blocks may only appear in assistant messages", where);
		if (!cJSON_IsString(json_get(b, "thinking")))
			mock_problem(k, "%s.thinking: Field required", where);
		if (json_str(b, "signature", "")[0] == '\0')
			mock_problem(k, "%s.signature: Field required", where);
	} else if (strcmp(type, "redacted_thinking") == 0) {
		if (!assistant)
			mock_problem(k, "%s: redacted_thinking blocks may only appear in assistant messages", where);
		if (!cJSON_IsString(json_get(b, "data")))
			mock_problem(k, "%s.data: Field required", where);
	} else if (!mock_key_in(type, server_block_types))
		mock_problem(k, "%s.type: unknown content block type \"%s\"", where, type);
}

/* prev: the role of message i - 1, or NULL. */
static void
check_message(struct call *k, const cJSON *msg, int i, int n, const char *prev, int *ncc)
{
	const cJSON *content = json_get(msg, "content"), *b;
	const char *role = json_str(msg, "role", "");
	bool assistant = strcmp(role, "assistant") == 0;
	char where[128];
	int j = 0;

	if (!assistant && strcmp(role, "user") != 0) {
		mock_problem(k, "messages.%d.role: Input should be 'user' or 'assistant'", i);
		return;
	}
	if (i == 0 && assistant)
		mock_problem(k, "messages.0.role: the first message must use the \"user\" role");
	else if (prev != NULL && strcmp(prev, role) == 0)
		mock_problem(k, "messages.%d.role: roles must alternate between \"user\" and \"assistant\"", i);
	if (cJSON_IsString(content)) {
		if (content->valuestring[0] == '\0' && !(assistant && i == n - 1))
			mock_problem(k, "messages.%d: all messages must have non-empty content except for "
			    "the optional final assistant message", i);
		return;
	}
	if (!cJSON_IsArray(content)) {
		mock_problem(k, "messages.%d.content: expected a string or an array of content blocks", i);
		return;
	}
	if (cJSON_GetArraySize(content) == 0 && !(assistant && i == n - 1))
		mock_problem(k, "messages.%d: all messages must have non-empty content except for "
		    "the optional final assistant message", i);
	cJSON_ArrayForEach(b, content) {
		snprintf(where, sizeof where, "messages.%d.content.%d", i, j++);
		check_block(k, b, assistant, where, ncc);
	}
}

/* The ids of the tool_use blocks of an assistant message, as a string array. */
static cJSON *
tool_use_ids(const cJSON *msg)
{
	cJSON *ids = cJSON_CreateArray();
	const cJSON *b;

	cJSON_ArrayForEach(b, json_get(msg, "content")) {
		if (mock_str_eq(json_get(b, "type"), "tool_use") && cJSON_IsString(json_get(b, "id")))
			cJSON_AddItemToArray(ids, cJSON_CreateString(json_str(b, "id", "")));
	}
	return ids;
}

int
mock_ids_find(const cJSON *ids, const char *id)
{
	const cJSON *e;
	int i = 0;

	cJSON_ArrayForEach(e, ids) {
		if (strcmp(e->valuestring, id) == 0)
			return i;
		i++;
	}
	return -1;
}

/* "a, b, c" from an array of strings or of objects with an "id"; the caller frees. */
char *
mock_ids_join(const cJSON *ids)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const cJSON *e;

	cJSON_ArrayForEach(e, ids)
		buf_printf(&b, "%s%s", b.len ? ", " : "",
		    cJSON_IsString(e) ? e->valuestring : json_str(e, "id", ""));
	return buf_detach(&b, NULL);
}

/*
 * The user message after an assistant message with tool_use blocks must
 * begin with exactly one tool_result per id; no tool_result anywhere may
 * name an id the previous assistant message did not use.
 */
static void
check_results_after(struct call *k, const cJSON *ids, const cJSON *user, int i)
{
	const cJSON *content = json_get(user, "content"), *b;
	cJSON *seen = cJSON_CreateArray(), *missing = cJSON_CreateArray(), *e;
	bool leading = true;
	char *list;
	int j = 0;

	cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL)) {
		const char *id = json_str(b, "tool_use_id", "");

		if (!mock_str_eq(json_get(b, "type"), "tool_result")) {
			leading = false;
		} else if (mock_ids_find(ids, id) < 0) {
			mock_problem(k, "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "
			    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
			    i, j, id);
		} else if (mock_ids_find(seen, id) >= 0) {
			mock_problem(k, "messages.%d.content.%d: duplicate tool_result for tool_use_id %s", i, j, id);
		} else if (leading) {
			cJSON_AddItemToArray(seen, cJSON_CreateString(id));
		}
		j++;
	}
	cJSON_ArrayForEach(e, ids) {
		if (mock_ids_find(seen, e->valuestring) < 0)
			cJSON_AddItemToArray(missing, cJSON_CreateString(e->valuestring));
	}
	if (cJSON_GetArraySize(missing) > 0) {
		list = mock_ids_join(missing);
		mock_problem(k, "messages.%d: Did not find %d tool_result block(s) at the beginning of this message "
		    "(missing: %s). Messages following tool_use blocks must begin with a matching number of "
		    "tool_result blocks.", i, cJSON_GetArraySize(missing), list);
		free(list);
	}
	cJSON_Delete(seen);
	cJSON_Delete(missing);
}

int
mock_call_ref_cmp(const void *a, const void *b)
{
	const struct call_ref *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : (x->at > y->at) - (x->at < y->at);
}

/* Sorted by id then message, a repeated tool_use id sits next to its twin. */
static void
check_unique_ids(struct call *k, struct call_ref *all, size_t n)
{
	size_t j;

	if (n > 1)
		qsort(all, n, sizeof *all, mock_call_ref_cmp);
	for (j = 1; j < n; j++)
		if (strcmp(all[j].id, all[j - 1].id) == 0)
			mock_problem(k, "messages.%d: tool_use ids must be unique (%s appears twice)",
			    all[j].at, all[j].id);
}

static void
check_pairing(struct call *k, const cJSON *msgs)
{
	const cJSON *msg, *e;
	cJSON *prev = cJSON_CreateArray();
	struct call_ref *all = NULL;
	size_t nall = 0, capall = 0;
	int i = 0, n = cJSON_GetArraySize(msgs);

	cJSON_ArrayForEach(msg, msgs) {
		if (mock_str_eq(json_get(msg, "role"), "assistant")) {
			cJSON_Delete(prev);
			prev = tool_use_ids(msg);
			/* Ids point into msgs, which outlives this check. */
			cJSON_ArrayForEach(e, json_get(msg, "content")) {
				if (!mock_str_eq(json_get(e, "type"), "tool_use") ||
				    !cJSON_IsString(json_get(e, "id")))
					continue;
				if (nall == capall) {
					capall = capall ? capall * 2 : 64;
					all = xreallocarray(all, capall, sizeof *all);
				}
				all[nall].id = json_get(e, "id")->valuestring;
				all[nall].msg = msg;
				all[nall++].at = i;
			}
			if (cJSON_GetArraySize(prev) > 0 && i == n - 1) {
				char *list = mock_ids_join(prev);

				mock_problem(k, "messages.%d: `tool_use` ids were found without `tool_result` blocks "
				    "immediately after: %s. Each `tool_use` block must have a corresponding "
				    "`tool_result` block in the next message.", i, list);
				free(list);
			}
		} else {
			check_results_after(k, prev, msg, i);
			cJSON_Delete(prev);
			prev = cJSON_CreateArray();
		}
		i++;
	}
	check_unique_ids(k, all, nall);
	free(all);
	cJSON_Delete(prev);
}

static void
check_system(struct call *k, const cJSON *sys, int *ncc)
{
	const cJSON *b;
	char where[64];
	int j = 0;

	if (sys == NULL || cJSON_IsString(sys))
		return;
	if (!cJSON_IsArray(sys)) {
		mock_problem(k, "system: expected a string or an array of text blocks");
		return;
	}
	cJSON_ArrayForEach(b, sys) {
		snprintf(where, sizeof where, "system.%d", j++);
		if (!mock_str_eq(json_get(b, "type"), "text"))
			mock_problem(k, "%s.type: system blocks must be of type \"text\"", where);
		else
			check_text_block(k, b, where);
		check_cache_control(k, json_get(b, "cache_control"), where, ncc);
	}
}

bool
mock_tool_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return n >= 1 && n <= 128;
}

static void
check_anthropic_tools(struct call *k, const cJSON *tools, int *ncc)
{
	const cJSON *t;
	cJSON *names;
	int i = 0;

	if (tools == NULL)
		return;
	if (!cJSON_IsArray(tools)) {
		mock_problem(k, "tools: expected an array");
		return;
	}
	names = cJSON_CreateArray();
	cJSON_ArrayForEach(t, tools) {
		const char *name = json_str(t, "name", NULL), *type = json_str(t, "type", "custom");
		const cJSON *schema = json_get(t, "input_schema");

		char where[64];

		snprintf(where, sizeof where, "tools.%d", i);
		check_cache_control(k, json_get(t, "cache_control"), where, ncc);
		if (strcmp(type, "custom") != 0) {
			i++;	/* a server tool: the API defines its schema */
			continue;
		}
		if (name == NULL || !mock_tool_name_ok(name))
			mock_problem(k, "tools.%d.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i);
		else if (mock_ids_find(names, name) >= 0)
			mock_problem(k, "tools: Tool names must be unique (\"%s\" appears twice)", name);
		else
			cJSON_AddItemToArray(names, cJSON_CreateString(name));
		if (!cJSON_IsString(json_get(t, "description")))
			mock_problem(k, "tools.%d.description: Field required", i);
		if (!cJSON_IsObject(schema))
			mock_problem(k, "tools.%d.input_schema: Field required", i);
		else if (!mock_str_eq(json_get(schema, "type"), "object"))
			mock_problem(k, "tools.%d.input_schema.type: Input should be 'object'", i);
		i++;
	}
	cJSON_Delete(names);
}

static void
check_thinking_param(struct call *k)
{
	const cJSON *th = json_get(k->body, "thinking");
	const char *type = json_str(th, "type", "");
	int64_t budget = json_int(th, "budget_tokens", -1);
	int64_t max = json_int(k->body, "max_tokens", 0);

	if (th == NULL)
		return;
	if (strcmp(type, "enabled") == 0) {
		if (!mock_is_int(json_get(th, "budget_tokens")) || budget < 1024)
			mock_problem(k, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
		else if (budget >= max)
			mock_problem(k, "`max_tokens` must be greater than `thinking.budget_tokens`");
	} else if (strcmp(type, "adaptive") != 0 && strcmp(type, "disabled") != 0)
		mock_problem(k, "thinking.type: expected \"enabled\", \"adaptive\" or \"disabled\"");
}

void
mock_check_anthropic(struct call *k)
{
	const cJSON *b = k->body, *msgs = json_get(b, "messages"), *msg, *max;
	const char *prev = NULL;
	int ncc = 0, i = 0, n;

	mock_check_model_stream(k);
	max = json_get(b, "max_tokens");
	if (max == NULL)
		mock_problem(k, "max_tokens: Field required");
	else if (!mock_is_int(max) || max->valuedouble < 1)
		mock_problem(k, "max_tokens: Input should be an integer greater than 0");
	if (!cJSON_IsArray(msgs)) {
		mock_problem(k, "messages: Field required (an array)");
		msgs = NULL;
	} else if (cJSON_GetArraySize(msgs) == 0)
		mock_problem(k, "messages: at least one message is required");
	n = cJSON_GetArraySize(msgs);
	cJSON_ArrayForEach(msg, msgs) {
		if (!cJSON_IsObject(msg))
			mock_problem(k, "messages.%d: expected an object", i);
		else
			check_message(k, msg, i, n, prev, &ncc);
		prev = json_str(msg, "role", NULL);
		i++;
	}
	check_pairing(k, msgs);
	check_system(k, json_get(b, "system"), &ncc);
	check_anthropic_tools(k, json_get(b, "tools"), &ncc);
	check_thinking_param(k);
	check_cache_control(k, json_get(b, "cache_control"), "(top level)", &ncc);
	if (ncc > MOCK_BREAKPOINTS_MAX)
		mock_problem(k, "A maximum of %d blocks with cache_control may be provided. Found %d.",
		    MOCK_BREAKPOINTS_MAX, ncc);
}

static cJSON *
anth_usage(const struct usage *u, bool start)
{
	cJSON *o = cJSON_CreateObject(), *cc;

	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "cache_creation_input_tokens", (double)u->creation);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->read);
	if (start) {
		cc = cJSON_AddObjectToObject(o, "cache_creation");
		cJSON_AddNumberToObject(cc, "ephemeral_5m_input_tokens", u->creation_1h ? 0 : (double)u->creation);
		cJSON_AddNumberToObject(cc, "ephemeral_1h_input_tokens", u->creation_1h ? (double)u->creation : 0);
	}
	cJSON_AddNumberToObject(o, "output_tokens", start ? 1 : (double)u->output);
	if (start)
		cJSON_AddStringToObject(o, "service_tier", "standard");
	return o;
}

static cJSON *
anth_event(const char *type, int index)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", type);
	if (index >= 0)
		cJSON_AddNumberToObject(o, "index", index);
	return o;
}

static void
anth_block_start(struct reply *r, int index, cJSON *block)
{
	cJSON *ev = anth_event("content_block_start", index);

	cJSON_AddItemToObject(ev, "content_block", block);
	mock_sse_event(r, "content_block_start", ev);
}

static void
anth_delta(struct reply *r, int index, const char *dtype, const char *key, const char *s, size_t n)
{
	cJSON *ev = anth_event("content_block_delta", index), *d;
	char *piece = xstrndup(s, n);

	d = cJSON_AddObjectToObject(ev, "delta");
	cJSON_AddStringToObject(d, "type", dtype);
	cJSON_AddStringToObject(d, key, piece);
	free(piece);
	mock_sse_event(r, "content_block_delta", ev);
}

static void
anth_block_stop(struct reply *r, int index)
{
	mock_sse_event(r, "content_block_stop", anth_event("content_block_stop", index));
}

/* Deltas of s split into irregular pieces; an empty s still gets one. */
static void
anth_split(struct reply *r, int index, const char *dtype, const char *key, const char *s, bool lead_empty)
{
	size_t n = strlen(s), pos = 0, turn = (size_t)index, end;

	if (lead_empty || n == 0)
		anth_delta(r, index, dtype, key, "", 0);
	while (pos < n) {
		end = mock_split_next(s, n, pos, &turn);
		anth_delta(r, index, dtype, key, s + pos, end - pos);
		pos = end;
	}
}

static void
anth_thinking(struct reply *r, int index, const char *thinking, const char *sig)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "thinking");
	cJSON_AddStringToObject(b, "thinking", "");
	cJSON_AddStringToObject(b, "signature", "");
	anth_block_start(r, index, b);
	anth_split(r, index, "thinking_delta", "thinking", thinking, false);
	anth_delta(r, index, "signature_delta", "signature", sig, strlen(sig));
	anth_block_stop(r, index);
}

static void
anth_tool(struct reply *r, int index, const cJSON *t)
{
	cJSON *b = cJSON_CreateObject();
	char *input = json_print(json_get(t, "input"));

	cJSON_AddStringToObject(b, "type", "tool_use");
	cJSON_AddStringToObject(b, "id", json_str(t, "id", ""));
	cJSON_AddStringToObject(b, "name", json_str(t, "name", ""));
	cJSON_AddItemToObject(b, "input", cJSON_CreateObject());
	anth_block_start(r, index, b);
	/* An empty input streams as a single "" fragment, as the API does. */
	anth_split(r, index, "input_json_delta", "partial_json",
	    strcmp(input, "{}") == 0 ? "" : input, true);
	anth_block_stop(r, index);
	free(input);
}

static void
anth_message_start(const struct call *k, struct reply *r, const struct usage *u)
{
	cJSON *ev, *msg;
	char id[64];

	ev = anth_event("message_start", -1);
	msg = cJSON_AddObjectToObject(ev, "message");
	snprintf(id, sizeof id, "msg_mock_%06d", k->n);
	cJSON_AddStringToObject(msg, "id", id);
	cJSON_AddStringToObject(msg, "type", "message");
	cJSON_AddStringToObject(msg, "role", "assistant");
	cJSON_AddStringToObject(msg, "model", mock_reply_model(k));
	cJSON_AddItemToObject(msg, "content", cJSON_CreateArray());
	cJSON_AddNullToObject(msg, "stop_reason");
	cJSON_AddNullToObject(msg, "stop_sequence");
	cJSON_AddItemToObject(msg, "usage", anth_usage(u, true));
	mock_sse_event(r, "message_start", ev);
}

void
mock_render_anthropic(struct call *k, struct reply *r, const struct usage *u, const cJSON *tools, const char *sig)
{
	const struct resp *rs = k->resp;
	cJSON *ev, *b, *d;
	const cJSON *t;
	int index = 0;

	anth_message_start(k, r, u);
	mock_sse_event(r, "ping", anth_event("ping", -1));
	if (rs->redacted != NULL) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "redacted_thinking");
		cJSON_AddStringToObject(b, "data", rs->redacted);
		anth_block_start(r, index, b);
		anth_block_stop(r, index++);
	}
	if (rs->thinking != NULL)
		anth_thinking(r, index++, rs->thinking, sig);
	if (rs->web_search != NULL)
		index = mock_websearch_render(k, r, index);
	if (rs->text != NULL) {
		const char *text = k->text != NULL ? k->text : rs->text;

		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", "");
		anth_block_start(r, index, b);
		if (text[0] != '\0')
			anth_split(r, index, "text_delta", "text", text, false);
		anth_block_stop(r, index++);
	}
	cJSON_ArrayForEach(t, tools)
		anth_tool(r, index++, t);
	ev = anth_event("message_delta", -1);
	d = cJSON_AddObjectToObject(ev, "delta");
	cJSON_AddStringToObject(d, "stop_reason", mock_stop_reason(rs, cJSON_GetArraySize(tools) > 0, 0));
	cJSON_AddNullToObject(d, "stop_sequence");
	cJSON_AddItemToObject(ev, "usage", anth_usage(u, false));
	mock_websearch_usage(k, json_get(ev, "usage"));
	k->usage = cJSON_Duplicate(json_get(ev, "usage"), true);
	mock_sse_event(r, "message_delta", ev);
	mock_sse_event(r, "message_stop", anth_event("message_stop", -1));
}
