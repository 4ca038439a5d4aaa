/* The mock model server: openAI chat completions: checks and streamed replies (see mock_int.h). */
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
 * OpenAI-compatible chat completions checks.
 */

void
mock_check_openai_headers(struct call *k)
{
	const char *auth = mock_hdr(k->rq, "authorization");

	/* Local servers need no key, but a key that is sent must be well formed. */
	if (auth != NULL && (strncasecmp(auth, "Bearer ", 7) != 0 || auth[7] == '\0'))
		mock_problem(k, "authorization: expected \"Bearer <key>\"");
	mock_check_content_type(k);
}

static void
check_openai_tool_calls(struct call *k, const cJSON *calls, int i, cJSON *pending)
{
	const cJSON *c, *fn;
	int j = 0;

	if (!cJSON_IsArray(calls)) {
		mock_problem(k, "messages.%d.tool_calls: expected an array", i);
		return;
	}
	cJSON_ArrayForEach(c, calls) {
		const char *id = json_str(c, "id", "");
		const cJSON *args;
		cJSON *parsed;

		fn = json_get(c, "function");
		args = json_get(fn, "arguments");
		if (id[0] == '\0')
			mock_problem(k, "messages.%d.tool_calls.%d.id: Field required", i, j);
		else if (mock_ids_find(pending, id) >= 0)
			mock_problem(k, "messages.%d.tool_calls.%d.id: duplicate id %s", i, j, id);
		else
			cJSON_AddItemToArray(pending, cJSON_CreateString(id));
		if (!mock_str_eq(json_get(c, "type"), "function"))
			mock_problem(k, "messages.%d.tool_calls.%d.type: expected \"function\"", i, j);
		if (json_str(fn, "name", "")[0] == '\0')
			mock_problem(k, "messages.%d.tool_calls.%d.function.name: Field required", i, j);
		if (!cJSON_IsString(args)) {
			mock_problem(k, "messages.%d.tool_calls.%d.function.arguments: expected a JSON string", i, j);
		} else if (args->valuestring[0] != '\0') {
			parsed = cJSON_Parse(args->valuestring);
			if (!cJSON_IsObject(parsed))
				mock_problem(k, "messages.%d.tool_calls.%d.function.arguments: not a JSON object", i, j);
			cJSON_Delete(parsed);
		}
		j++;
	}
}

static void
check_unanswered(struct call *k, cJSON *pending, int i)
{
	char *list;

	if (cJSON_GetArraySize(pending) == 0)
		return;
	list = mock_ids_join(pending);
	mock_problem(k, "messages.%d: An assistant message with 'tool_calls' must be followed by tool messages "
	    "responding to each 'tool_call_id'. The following tool_call_ids did not have response "
	    "messages: %s", i, list);
	free(list);
	while (cJSON_GetArraySize(pending) > 0)
		cJSON_DeleteItemFromArray(pending, 0);
}

static bool
openai_content_ok(const cJSON *c, bool nullable)
{
	const cJSON *part;

	if (cJSON_IsString(c) || (nullable && (c == NULL || cJSON_IsNull(c))))
		return true;
	if (!cJSON_IsArray(c))
		return false;
	cJSON_ArrayForEach(part, c) {
		if (!cJSON_IsString(json_get(part, "type")))
			return false;
	}
	return true;
}

static void
check_openai_message(struct call *k, const cJSON *msg, int i, cJSON *pending, int *last_call)
{
	static const char *const roles[] = { "system", "developer", "user", "assistant", "tool", NULL };
	const char *role = json_str(msg, "role", "");
	const cJSON *calls = json_get(msg, "tool_calls");
	const char *id;
	int at;

	if (!mock_key_in(role, roles)) {
		mock_problem(k, "messages.%d.role: expected system, developer, user, assistant or tool", i);
		return;
	}
	if (strcmp(role, "tool") != 0)
		check_unanswered(k, pending, *last_call);
	if (strcmp(role, "tool") == 0) {
		id = json_str(msg, "tool_call_id", "");
		at = mock_ids_find(pending, id);
		if (at < 0)
			mock_problem(k, "messages.%d: messages with role 'tool' must be a response to a preceding "
			    "message with 'tool_calls' (tool_call_id \"%s\" is not pending)", i, id);
		else
			cJSON_DeleteItemFromArray(pending, at);
		if (!openai_content_ok(json_get(msg, "content"), false))
			mock_problem(k, "messages.%d.content: expected a string or an array of parts", i);
	} else if (strcmp(role, "assistant") == 0) {
		if (!openai_content_ok(json_get(msg, "content"), true))
			mock_problem(k, "messages.%d.content: expected a string, null or an array of parts", i);
		if (calls != NULL) {
			check_openai_tool_calls(k, calls, i, pending);
			*last_call = i;
		} else if (!cJSON_IsString(json_get(msg, "content")))
			mock_problem(k, "messages.%d: an assistant message needs content or tool_calls", i);
	} else if (!openai_content_ok(json_get(msg, "content"), false))
		mock_problem(k, "messages.%d.content: expected a string or an array of parts", i);
}

static void
check_openai_tools(struct call *k, const cJSON *tools)
{
	const cJSON *t, *fn, *params;
	int i = 0;

	if (tools == NULL)
		return;
	if (!cJSON_IsArray(tools)) {
		mock_problem(k, "tools: expected an array");
		return;
	}
	cJSON_ArrayForEach(t, tools) {
		fn = json_get(t, "function");
		params = json_get(fn, "parameters");
		if (!mock_str_eq(json_get(t, "type"), "function"))
			mock_problem(k, "tools.%d.type: expected \"function\"", i);
		if (json_str(fn, "name", NULL) == NULL || !mock_tool_name_ok(json_str(fn, "name", "")))
			mock_problem(k, "tools.%d.function.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i);
		if (params != NULL && !cJSON_IsObject(params))
			mock_problem(k, "tools.%d.function.parameters: expected a JSON schema object", i);
		i++;
	}
}

void
mock_check_openai(struct call *k)
{
	const cJSON *b = k->body, *msgs = json_get(b, "messages"), *msg;
	static const char *const limits[] = { "max_tokens", "max_completion_tokens", NULL };
	cJSON *pending = cJSON_CreateArray();
	const char *const *l;
	int i = 0, last_call = 0;

	mock_check_model_stream(k);
	if (!cJSON_IsTrue(json_get(json_get(b, "stream_options"), "include_usage")))
		mock_problem(k, "stream_options.include_usage: must be true (usage is read from the final chunk)");
	for (l = limits; *l != NULL; l++) {
		const cJSON *v = json_get(b, *l);

		if (v != NULL && (!mock_is_int(v) || v->valuedouble < 1))
			mock_problem(k, "%s: expected an integer greater than 0", *l);
	}
	if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0)
		mock_problem(k, "messages: a non-empty array is required");
	cJSON_ArrayForEach(msg, (cJSON_IsArray(msgs) ? msgs : NULL)) {
		if (!cJSON_IsObject(msg))
			mock_problem(k, "messages.%d: expected an object", i);
		else
			check_openai_message(k, msg, i, pending, &last_call);
		i++;
	}
	check_unanswered(k, pending, last_call);
	cJSON_Delete(pending);
	check_openai_tools(k, json_get(b, "tools"));
}

/* A chat.completion.chunk around delta (taken); finish may be NULL. */
static cJSON *
oai_chunk(const struct call *k, cJSON *delta, const char *finish, double created)
{
	cJSON *o = cJSON_CreateObject(), *choices, *c;
	char id[64];

	snprintf(id, sizeof id, "chatcmpl-mock-%06d", k->n);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "object", "chat.completion.chunk");
	cJSON_AddNumberToObject(o, "created", created);
	cJSON_AddStringToObject(o, "model", mock_reply_model(k));
	cJSON_AddStringToObject(o, "system_fingerprint", "fp_mock");
	choices = cJSON_AddArrayToObject(o, "choices");
	if (delta != NULL) {
		c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "index", 0);
		cJSON_AddItemToObject(c, "delta", delta);
		cJSON_AddNullToObject(c, "logprobs");
		if (finish != NULL)
			cJSON_AddStringToObject(c, "finish_reason", finish);
		else
			cJSON_AddNullToObject(c, "finish_reason");
		cJSON_AddItemToArray(choices, c);
	}
	cJSON_AddNullToObject(o, "usage");
	return o;
}

static void
oai_split(const struct call *k, struct reply *r, const char *key, const char *s, double created)
{
	size_t n = strlen(s), pos = 0, turn = 0, end;
	cJSON *d;
	char *piece;

	while (pos < n) {
		end = mock_split_next(s, n, pos, &turn);
		piece = xstrndup(s + pos, end - pos);
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, key, piece);
		mock_sse_event(r, NULL, oai_chunk(k, d, NULL, created));
		free(piece);
		pos = end;
	}
}

/* Tool call fragments: id, type and name only in the first one of an index. */
static void
oai_tool(const struct call *k, struct reply *r, int index, const cJSON *t, double created)
{
	char *args = json_print(json_get(t, "input"));
	size_t n = strlen(args), pos = 0, turn = (size_t)index, end;
	cJSON *d, *calls, *c, *fn;
	bool first = true;

	if (strcmp(args, "{}") == 0)
		n = 0;
	do {
		end = first ? 0 : mock_split_next(args, n, pos, &turn);
		d = cJSON_CreateObject();
		calls = cJSON_AddArrayToObject(d, "tool_calls");
		c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "index", index);
		if (first) {
			cJSON_AddStringToObject(c, "id", json_str(t, "id", ""));
			cJSON_AddStringToObject(c, "type", "function");
		}
		fn = cJSON_AddObjectToObject(c, "function");
		if (first)
			cJSON_AddStringToObject(fn, "name", json_str(t, "name", ""));
		{
			char *piece = xstrndup(args + pos, end - pos);

			cJSON_AddStringToObject(fn, "arguments", piece);
			free(piece);
		}
		cJSON_AddItemToArray(calls, c);
		mock_sse_event(r, NULL, oai_chunk(k, d, NULL, created));
		pos = end;
		first = false;
	} while (pos < n);
	free(args);
}

static cJSON *
oai_usage(const struct usage *u)
{
	cJSON *o = cJSON_CreateObject(), *d;
	long prompt = u->input + u->creation + u->read;

	cJSON_AddNumberToObject(o, "prompt_tokens", (double)prompt);
	cJSON_AddNumberToObject(o, "completion_tokens", (double)u->output);
	cJSON_AddNumberToObject(o, "total_tokens", (double)(prompt + u->output));
	d = cJSON_AddObjectToObject(o, "prompt_tokens_details");
	cJSON_AddNumberToObject(d, "cached_tokens", (double)u->read);
	d = cJSON_AddObjectToObject(o, "completion_tokens_details");
	cJSON_AddNumberToObject(d, "reasoning_tokens", (double)u->reasoning);
	return o;
}

void
mock_render_openai(struct call *k, struct reply *r, const struct usage *u, const cJSON *tools)
{
	const struct resp *rs = k->resp;
	double created = (double)time(NULL);
	const cJSON *t;
	cJSON *d, *last;
	int index = 0;

	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "role", "assistant");
	cJSON_AddStringToObject(d, "content", "");
	mock_sse_event(r, NULL, oai_chunk(k, d, NULL, created));
	/* Reasoning goes where llama.cpp and vLLM put it. */
	if (rs->thinking != NULL)
		oai_split(k, r, "reasoning_content", rs->thinking, created);
	if (rs->text != NULL)
		oai_split(k, r, "content", k->text != NULL ? k->text : rs->text, created);
	cJSON_ArrayForEach(t, tools)
		oai_tool(k, r, index++, t, created);
	mock_sse_event(r, NULL, oai_chunk(k, cJSON_CreateObject(),
	    mock_stop_reason(rs, cJSON_GetArraySize(tools) > 0, 1), created));
	last = oai_chunk(k, NULL, NULL, created);
	cJSON_ReplaceItemInObjectCaseSensitive(last, "usage", oai_usage(u));
	k->usage = cJSON_Duplicate(json_get(last, "usage"), true);
	mock_sse_event(r, NULL, last);
	mock_sse_raw(r, "data: [DONE]\n\n");
}
