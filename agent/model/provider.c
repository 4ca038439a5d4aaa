/* Request building for both wire formats: see provider.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "turn/attach.h"
#include "context/conv.h"
#include "http.h"
#include "provider.h"
#include "xalloc.h"

#define PROVIDER_THINKING_MIN	1024	/* the least thinking budget the API takes */

const char *
provider_default_base(enum stream_proto proto)
{
	return proto == STREAM_OPENAI ? "https://api.openai.com" : "https://api.anthropic.com";
}

/* base without trailing slashes and without a final /v1, then suffix. */
char *
provider_url(const char *base, const char *suffix)
{
	struct buf u = BUF_INIT(8192);
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	if (n >= 3 && strncmp(base + n - 3, "/v1", 3) == 0)
		n -= 3;
	buf_append(&u, base, n);
	buf_puts(&u, suffix);
	return buf_detach(&u, NULL);
}

cJSON *
provider_clean_block(const cJSON *block)
{
	cJSON *c = cJSON_Duplicate(block, 1), *it, *next;

	if (c == NULL)
		fatal("out of memory");
	for (it = c->child; it != NULL; it = next) {
		next = it->next;
		if (it->string != NULL && it->string[0] == '_')
			cJSON_Delete(cJSON_DetachItemViaPointer(c, it));
	}
	return c;
}

static cJSON *
provider_ephemeral(void)
{
	cJSON *cc = cJSON_CreateObject();

	cJSON_AddStringToObject(cc, "type", "ephemeral");
	return cc;
}

static bool
provider_has_private_keys(const cJSON *block)
{
	const cJSON *it;

	for (it = block != NULL ? block->child : NULL; it != NULL; it = it->next)
		if (it->string != NULL && it->string[0] == '_')
			return true;
	return false;
}

static const char *
provider_kept_at(void *arg)
{
	return conv_text_data(arg);
}

static void
provider_kept_release(void *arg)
{
	conv_text_unref(arg);
}

/*
 * The kept messages of the conversation (all but the last), after a
 * comma unless *first: copied into out, or, with held, not copied at all:
 * what out holds so far becomes held's next part, the kept texts the one
 * after it, and out goes on empty with what follows them.
 */
static int
provider_kept(const struct provider_request *r, enum stream_proto proto, struct buf *out,
    struct http_body *held, bool *first, const cJSON **last)
{
	struct conv_text *t;
	size_t len;
	int rc = 0;

	if (held == NULL)
		return conv_append_wires(r->conv, proto, provider_message_wire, out, first, last);
	t = conv_pin_wires(r->conv, proto, provider_message_wire, &len, last);
	if (t == NULL)
		return 0;
	if (!*first)
		rc = buf_putc(out, ',');
	*first = false;
	rc |= http_body_take(held, out);
	rc |= http_body_hold(held, provider_kept_at, provider_kept_release, t, len);
	return rc != 0 ? -1 : 0;
}

/*
 * One message as the Anthropic API takes it, written straight into out
 * (copying a long conversation block by block would cost more than
 * printing it); mark: its last block gets a cache breakpoint.
 */
static int
anthropic_append_message(struct buf *out, const cJSON *m, bool mark_last)
{
	const cJSON *content = json_get(m, "content"), *b;
	const char *role = json_str(m, "role", "user");
	int rc = buf_puts(out, "{\"role\":\"");

	rc |= buf_json_escape(out, role, strlen(role));
	rc |= buf_puts(out, "\",\"content\":[");
	if (cJSON_IsString(content)) {
		rc |= buf_puts(out, "{\"type\":\"text\",\"text\":\"");
		rc |= buf_json_escape(out, content->valuestring, strlen(content->valuestring));
		rc |= buf_puts(out, mark_last ?
		    "\",\"cache_control\":{\"type\":\"ephemeral\"}}" : "\"}");
	} else {
		cJSON_ArrayForEach(b, content) {
			const char *t = json_str(b, "type", "");
			/* Thinking blocks cannot carry a breakpoint. */
			bool mark = mark_last && b->next == NULL &&
			    strcmp(t, "thinking") != 0 && strcmp(t, "redacted_thinking") != 0;

			if (b != content->child)
				rc |= buf_putc(out, ',');
			if (mark || provider_has_private_keys(b)) {
				/* An image the conversation names by its file: its bytes now. */
				cJSON *c = strcmp(t, "image") == 0 && json_get(b, "_file") != NULL ?
				    attach_image_request(b) : json_get(b, "_images") != NULL ?
				    attach_result_request(b) : provider_clean_block(b);

				if (mark)
					cJSON_AddItemToObject(c, "cache_control", provider_ephemeral());
				rc |= json_append(out, c);
				cJSON_Delete(c);
			} else {
				rc |= json_append(out, b);
			}
		}
	}
	rc |= buf_puts(out, "]}");
	return rc != 0 ? -1 : 0;
}

/*
 * The messages, the newest block with a cache breakpoint.  Those of a
 * conversation but the last come as it keeps them (conv_append_wires).
 */
static int
anthropic_append_messages(struct buf *out, const struct provider_request *r,
    struct http_body *held)
{
	const cJSON *m, *last;
	bool first = true;
	int rc = buf_putc(out, '[');

	if (r->conv != NULL) {
		rc |= provider_kept(r, STREAM_ANTHROPIC, out, held, &first, &last);
		if (last != NULL) {
			if (!first)
				rc |= buf_putc(out, ',');
			rc |= anthropic_append_message(out, last, r->cache);
		}
	} else {
		cJSON_ArrayForEach(m, r->messages) {
			if (m != r->messages->child)
				rc |= buf_putc(out, ',');
			rc |= anthropic_append_message(out, m, r->cache && m->next == NULL);
		}
	}
	rc |= buf_putc(out, ']');
	return rc != 0 ? -1 : 0;
}

/* Append "Name: value" lines of custom (newline-separated) to h. */
static struct curl_slist *
provider_custom_headers(struct curl_slist *h, const char *custom)
{
	const char *p = custom, *e;

	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		if (e == NULL)
			e = p + strlen(p);
		if (memchr(p, ':', (size_t)(e - p)) != NULL) {
			char *line = xstrndup(p, (size_t)(e - p));
			size_t n = strlen(line);

			while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
				line[--n] = '\0';
			h = curl_slist_append(h, line);
			free(line);
		}
		p = *e != '\0' ? e + 1 : e;
	}
	return h;
}

struct curl_slist *
provider_auth_headers(const struct provider_request *r)
{
	struct curl_slist *h = NULL;
	struct buf line = BUF_INIT(8192);
	bool token = r->auth_token != NULL && r->auth_token[0] != '\0';
	bool key = r->api_key != NULL && r->api_key[0] != '\0';

	if (r->proto == STREAM_ANTHROPIC) {
		/* A gateway's token stands in for the key; a key goes as x-api-key. */
		if (key || !token) {
			buf_printf(&line, "x-api-key: %s", key ? r->api_key : "");
			h = curl_slist_append(h, buf_cstr(&line));
		}
		if (token) {
			buf_truncate(&line, 0);
			buf_printf(&line, "authorization: Bearer %s", r->auth_token);
			h = curl_slist_append(h, buf_cstr(&line));
		}
		h = curl_slist_append(h, "anthropic-version: 2023-06-01");
	} else if (key || token) {
		buf_printf(&line, "authorization: Bearer %s", key ? r->api_key : r->auth_token);
		h = curl_slist_append(h, buf_cstr(&line));
	}
	buf_release(&line);
	return provider_custom_headers(h, r->custom_headers);
}

/*
 * The API takes a thinking budget of at least 1024 tokens and below
 * max_tokens: a smaller budget is raised to the least, and a budget that
 * leaves the answer no room gets max_tokens of its own on top.
 */
static void
anthropic_limits(const struct provider_request *r, int *max_tokens, int *budget)
{
	*max_tokens = r->max_tokens;
	*budget = r->thinking == PROVIDER_THINK_BUDGET ? r->thinking_budget : 0;
	if (*budget <= 0)
		return;
	if (*budget < PROVIDER_THINKING_MIN)
		*budget = PROVIDER_THINKING_MIN;
	if (*max_tokens <= *budget)
		*max_tokens = *budget + (r->max_tokens > 0 ? r->max_tokens : PROVIDER_THINKING_MIN);
	/* Within the model's limit, the budget gives way to the answer. */
	if (r->max_output > 0 && *max_tokens > r->max_output) {
		*max_tokens = (int)r->max_output;
		*budget = *max_tokens / 2 > PROVIDER_THINKING_MIN ? *max_tokens / 2 : PROVIDER_THINKING_MIN;
		if (*budget >= *max_tokens)
			*budget = 0;
	}
}

static int
anthropic_build(const struct provider_request *r, char **url,
    struct curl_slist **headers, struct buf *body, struct http_body *held)
{
	cJSON *req = cJSON_CreateObject(), *sys, *blk, *tools, *t;
	int rc, max_tokens, budget;

	*url = provider_url(r->base_url, "/v1/messages");
	*headers = provider_auth_headers(r);
	*headers = curl_slist_append(*headers, "content-type: application/json");
	*headers = curl_slist_append(*headers, "accept: text/event-stream");

	anthropic_limits(r, &max_tokens, &budget);
	cJSON_AddStringToObject(req, "model", r->model);
	cJSON_AddNumberToObject(req, "max_tokens", max_tokens);
	cJSON_AddBoolToObject(req, "stream", 1);
	sys = cJSON_AddArrayToObject(req, "system");
	blk = cJSON_CreateObject();
	cJSON_AddStringToObject(blk, "type", "text");
	cJSON_AddStringToObject(blk, "text", r->system_static);
	if (r->cache)
		cJSON_AddItemToObject(blk, "cache_control", provider_ephemeral());
	cJSON_AddItemToArray(sys, blk);
	if (r->system_dynamic != NULL && r->system_dynamic[0] != '\0') {
		blk = cJSON_CreateObject();
		cJSON_AddStringToObject(blk, "type", "text");
		cJSON_AddStringToObject(blk, "text", r->system_dynamic);
		cJSON_AddItemToArray(sys, blk);
	}
	if (r->tools != NULL && cJSON_GetArraySize(r->tools) > 0) {
		tools = cJSON_Duplicate(r->tools, 1);
		if (r->cache) {
			t = cJSON_GetArrayItem(tools, cJSON_GetArraySize(tools) - 1);
			cJSON_AddItemToObject(t, "cache_control", provider_ephemeral());
		}
		cJSON_AddItemToObject(req, "tools", tools);
	}
	if (r->thinking == PROVIDER_THINK_BUDGET && budget > 0) {
		cJSON *th = cJSON_AddObjectToObject(req, "thinking");

		cJSON_AddStringToObject(th, "type", "enabled");
		cJSON_AddNumberToObject(th, "budget_tokens", budget);
	} else if (r->thinking == PROVIDER_THINK_ADAPTIVE || r->thinking == PROVIDER_THINK_OFF) {
		cJSON *th = cJSON_AddObjectToObject(req, "thinking");

		cJSON_AddStringToObject(th, "type", r->thinking == PROVIDER_THINK_OFF ? "disabled" : "adaptive");
	}
	if (r->effort != NULL && r->effort[0] != '\0') {
		cJSON *oc = cJSON_AddObjectToObject(req, "output_config");

		cJSON_AddStringToObject(oc, "effort", r->effort);
	}
	/* The head, then the messages spliced in before its closing brace. */
	rc = json_append(body, req);
	cJSON_Delete(req);
	if (rc == -1 || body->len == 0)
		return -1;
	buf_truncate(body, body->len - 1);
	rc = buf_puts(body, ",\"messages\":");
	if (rc == 0)
		rc = anthropic_append_messages(body, r, held);
	if (rc == 0)
		rc = buf_putc(body, '}');
	return rc;
}

/* The text of a tool_result's content (a string or text blocks). */
static void
openai_result_text(const cJSON *content, struct buf *out)
{
	const cJSON *b;

	if (cJSON_IsString(content)) {
		buf_puts(out, content->valuestring);
		return;
	}
	cJSON_ArrayForEach(b, content)
		buf_puts(out, json_str(b, "text", ""));
}

static void
openai_add_user(cJSON *out, const cJSON *content)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	const cJSON *b;
	cJSON *parts = NULL;

	if (cJSON_IsString(content)) {
		buf_puts(&text, content->valuestring);
	} else {
		/* Tool results first, as role "tool" messages, then the text. */
		cJSON_ArrayForEach(b, content) {
			const char *type = json_str(b, "type", "");

			if (strcmp(type, "tool_result") == 0) {
				cJSON *m = cJSON_CreateObject();
				struct buf rt = BUF_INIT(BUF_NOLIMIT);

				cJSON_AddStringToObject(m, "role", "tool");
				cJSON_AddStringToObject(m, "tool_call_id", json_str(b, "tool_use_id", ""));
				if (json_bool(b, "is_error", false))
					buf_puts(&rt, "Error: ");
				openai_result_text(json_get(b, "content"), &rt);
				cJSON_AddStringToObject(m, "content", buf_cstr(&rt));
				/* A tool message takes no image: the user message after it does. */
				if (json_get(b, "_images") != NULL) {
					const cJSON *ib;

					cJSON_ArrayForEach(ib, json_get(b, "content"))
						if (strcmp(json_str(ib, "type", ""), "image") == 0 &&
						    json_get(ib, "_file") != NULL) {
							if (parts == NULL)
								parts = cJSON_CreateArray();
							cJSON_AddItemToArray(parts, attach_image_openai(ib));
						}
				}
				buf_release(&rt);
				cJSON_AddItemToArray(out, m);
			} else if (strcmp(type, "text") == 0) {
				if (text.len > 0)
					buf_putc(&text, '\n');
				buf_puts(&text, json_str(b, "text", ""));
			} else if (strcmp(type, "image") == 0 && json_get(b, "_file") != NULL) {
				/* Images go in the user message as parts (a tool message takes none). */
				if (parts == NULL)
					parts = cJSON_CreateArray();
				cJSON_AddItemToArray(parts, attach_image_openai(b));
			}
		}
	}
	if (parts != NULL) {
		cJSON *m = cJSON_CreateObject(), *tp = cJSON_CreateObject();

		cJSON_AddStringToObject(tp, "type", "text");
		cJSON_AddStringToObject(tp, "text", buf_cstr(&text));
		cJSON_InsertItemInArray(parts, 0, tp);
		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddItemToObject(m, "content", parts);
		cJSON_AddItemToArray(out, m);
	} else if (text.len > 0) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddStringToObject(m, "content", buf_cstr(&text));
		cJSON_AddItemToArray(out, m);
	}
	buf_release(&text);
}

static void
openai_add_assistant(cJSON *out, const cJSON *content)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	cJSON *m = cJSON_CreateObject(), *calls = NULL;
	const cJSON *b;

	cJSON_AddStringToObject(m, "role", "assistant");
	if (cJSON_IsString(content))
		buf_puts(&text, content->valuestring);
	if (!cJSON_IsArray(content))
		content = NULL;
	cJSON_ArrayForEach(b, content) {
		const char *type = json_str(b, "type", "");

		if (strcmp(type, "text") == 0) {
			buf_puts(&text, json_str(b, "text", ""));
		} else if (strcmp(type, "tool_use") == 0) {
			cJSON *c = cJSON_CreateObject(), *fn;
			char *args = json_print(json_get(b, "input"));

			if (calls == NULL)
				calls = cJSON_CreateArray();
			cJSON_AddStringToObject(c, "id", json_str(b, "id", ""));
			cJSON_AddStringToObject(c, "type", "function");
			fn = cJSON_AddObjectToObject(c, "function");
			cJSON_AddStringToObject(fn, "name", json_str(b, "name", ""));
			cJSON_AddStringToObject(fn, "arguments", args);
			free(args);
			cJSON_AddItemToArray(calls, c);
		}
	}
	if (text.len > 0)
		cJSON_AddStringToObject(m, "content", buf_cstr(&text));
	else
		cJSON_AddNullToObject(m, "content");
	if (calls != NULL)
		cJSON_AddItemToObject(m, "tool_calls", calls);
	cJSON_AddItemToArray(out, m);
	buf_release(&text);
}

/*
 * The OpenAI messages one conversation message becomes (none or more),
 * each after a comma unless *first.
 */
static int
openai_append_message(struct buf *out, const cJSON *m, bool *first)
{
	cJSON *msgs = cJSON_CreateArray(), *it;
	int rc = 0;

	if (msgs == NULL)
		fatal("out of memory");
	if (strcmp(json_str(m, "role", ""), "assistant") == 0)
		openai_add_assistant(msgs, json_get(m, "content"));
	else
		openai_add_user(msgs, json_get(m, "content"));
	cJSON_ArrayForEach(it, msgs) {
		if (!*first)
			rc |= buf_putc(out, ',');
		*first = false;
		rc |= json_append(out, it);
	}
	cJSON_Delete(msgs);
	return rc != 0 ? -1 : 0;
}

int
provider_message_wire(enum stream_proto proto, const cJSON *m, struct buf *out)
{
	bool first = true;

	if (proto == STREAM_OPENAI)
		return openai_append_message(out, m, &first);
	return anthropic_append_message(out, m, false);
}

/*
 * The request object is printed whole but for its messages and tools,
 * which follow in the order cJSON would print them: the messages but the
 * newest come as the conversation keeps them.
 */
static int
openai_build(const struct provider_request *r, char **url,
    struct curl_slist **headers, struct buf *body, struct http_body *held)
{
	cJSON *req = cJSON_CreateObject(), *m, *so, *tools, *t;
	const cJSON *it, *last;
	struct buf sys = BUF_INIT(BUF_NOLIMIT);
	bool first = true;
	int rc;

	*url = provider_url(r->base_url, "/v1/chat/completions");
	*headers = provider_auth_headers(r);
	*headers = curl_slist_append(*headers, "content-type: application/json");
	*headers = curl_slist_append(*headers, "accept: text/event-stream");
	cJSON_AddStringToObject(req, "model", r->model);
	cJSON_AddBoolToObject(req, "stream", 1);
	so = cJSON_AddObjectToObject(req, "stream_options");
	cJSON_AddBoolToObject(so, "include_usage", 1);
	cJSON_AddNumberToObject(req, r->completion_tokens ? "max_completion_tokens" : "max_tokens",
	    r->max_tokens);
	if (r->effort != NULL && r->effort[0] != '\0')
		cJSON_AddStringToObject(req, "reasoning_effort", r->effort);
	rc = json_append(body, req);
	cJSON_Delete(req);
	if (rc == -1 || body->len == 0)
		return -1;
	buf_truncate(body, body->len - 1);
	rc |= buf_puts(body, ",\"messages\":[");
	buf_puts(&sys, r->system_static);
	if (r->system_dynamic != NULL && r->system_dynamic[0] != '\0') {
		buf_puts(&sys, "\n\n");
		buf_puts(&sys, r->system_dynamic);
	}
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "system");
	cJSON_AddStringToObject(m, "content", buf_cstr(&sys));
	rc |= json_append(body, m);
	cJSON_Delete(m);
	buf_release(&sys);
	first = false;
	if (r->conv != NULL) {
		rc |= provider_kept(r, STREAM_OPENAI, body, held, &first, &last);
		if (last != NULL)
			rc |= openai_append_message(body, last, &first);
	} else {
		cJSON_ArrayForEach(it, r->messages)
			rc |= openai_append_message(body, it, &first);
	}
	rc |= buf_putc(body, ']');
	if (r->tools != NULL && cJSON_GetArraySize(r->tools) > 0) {
		tools = cJSON_CreateArray();
		cJSON_ArrayForEach(t, r->tools) {
			cJSON *ot = cJSON_CreateObject(), *fn;

			cJSON_AddStringToObject(ot, "type", "function");
			fn = cJSON_AddObjectToObject(ot, "function");
			cJSON_AddStringToObject(fn, "name", json_str(t, "name", ""));
			cJSON_AddStringToObject(fn, "description", json_str(t, "description", ""));
			cJSON_AddItemToObject(fn, "parameters",
			    cJSON_Duplicate(json_get(t, "input_schema"), 1));
			cJSON_AddItemToArray(tools, ot);
		}
		rc |= buf_puts(body, ",\"tools\":");
		rc |= json_append(body, tools);
		cJSON_Delete(tools);
	}
	rc |= buf_putc(body, '}');
	return rc != 0 ? -1 : 0;
}

int
provider_build(const struct provider_request *r, char **url,
    struct curl_slist **headers, struct buf *body)
{
	if (r->proto == STREAM_OPENAI)
		return openai_build(r, url, headers, body, NULL);
	return anthropic_build(r, url, headers, body, NULL);
}

int
provider_build_body(const struct provider_request *r, char **url,
    struct curl_slist **headers, struct http_body *body)
{
	struct buf rest = BUF_INIT(BUF_NOLIMIT);
	int rc;

	memset(body, 0, sizeof *body);
	rc = r->proto == STREAM_OPENAI ? openai_build(r, url, headers, &rest, body) :
	    anthropic_build(r, url, headers, &rest, body);
	if (http_body_take(body, &rest) == -1)
		rc = -1;
	return rc;
}

void
provider_error_text(const char *body, size_t n, long status, struct buf *out, struct buf *type)
{
	cJSON *j = cJSON_ParseWithLength(body, n), *err;
	const char *msg = NULL, *t = NULL;

	err = json_get(j, "error");
	if (cJSON_IsObject(err)) {
		msg = json_str(err, "message", NULL);
		t = json_str(err, "type", NULL);
		if (t == NULL)
			t = json_str(err, "code", NULL);
	} else if (cJSON_IsString(err)) {
		msg = err->valuestring;
	} else if (j != NULL) {
		msg = json_str(j, "message", NULL);
	}
	if (t != NULL)
		buf_puts(type, t);
	if (msg != NULL) {
		buf_puts(out, msg);
	} else if (n > 0 && j == NULL) {
		/* Not JSON: a proxy page, say; its first line is the best clue. */
		size_t k = 0;

		while (k < n && k < 200 && body[k] != '\n')
			k++;
		buf_append(out, body, k);
	} else {
		buf_printf(out, "HTTP status %ld", status);
	}
	cJSON_Delete(j);
}
