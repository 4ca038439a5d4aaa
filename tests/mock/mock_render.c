/* The mock model server: rendering replies, faults (see mock_int.h). */
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
 * Rendering replies.
 */

static const struct {
	int		 status;
	const char	*reason, *type, *message;
} statuses[] = {
	{ 200, "OK", NULL, NULL },
	{ 400, "Bad Request", "invalid_request_error", "Invalid request" },
	{ 401, "Unauthorized", "authentication_error", "invalid x-api-key" },
	{ 402, "Payment Required", "billing_error", "Your credit balance is too low" },
	{ 403, "Forbidden", "permission_error", "Your API key does not have permission to use the specified resource." },
	{ 404, "Not Found", "not_found_error", "Not found" },
	{ 405, "Method Not Allowed", "invalid_request_error", "Method not allowed" },
	{ 408, "Request Timeout", "timeout_error", "Request timed out" },
	{ 409, "Conflict", "conflict_error", "Conflict" },
	{ 413, "Payload Too Large", "request_too_large", "Request exceeds the maximum allowed number of bytes." },
	{ 429, "Too Many Requests", "rate_limit_error", "Number of requests has exceeded your rate limit." },
	{ 431, "Request Header Fields Too Large", "invalid_request_error", "Request headers are too large" },
	{ 500, "Internal Server Error", "api_error", "Internal server error" },
	{ 501, "Not Implemented", "api_error", "Not implemented" },
	{ 502, "Bad Gateway", "api_error", "Bad gateway" },
	{ 503, "Service Unavailable", "api_error", "Service unavailable" },
	{ 504, "Gateway Timeout", "timeout_error", "Request timed out" },
	{ 529, "Overloaded", "overloaded_error", "Overloaded" },
};

static int
status_row(int status)
{
	size_t i;

	for (i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
		if (statuses[i].status == status)
			return (int)i;
	return -1;
}

const char *
mock_status_reason(int status)
{
	int i = status_row(status);

	return i >= 0 ? statuses[i].reason : status < 400 ? "OK" : "Error";
}

static const char *
status_type(int status)
{
	int i = status_row(status);

	if (i >= 0 && statuses[i].type != NULL)
		return statuses[i].type;
	return status >= 500 ? "api_error" : "invalid_request_error";
}

static const char *
status_message(int status)
{
	int i = status_row(status);

	if (i >= 0 && statuses[i].message != NULL)
		return statuses[i].message;
	return status >= 500 ? "Internal server error" : "Invalid request";
}

void
mock_reply_init(struct reply *r)
{
	memset(r, 0, sizeof *r);
	buf_init(&r->head, BUF_NOLIMIT);
	buf_init(&r->body, BUF_NOLIMIT);
	r->hdrs = cJSON_CreateObject();
	r->status = 200;
	r->chunk = r->delay_ms = r->first_byte_ms = -1;
	r->close_after = r->stall_after = r->stall_ms = -1;
}

void
mock_reply_release(struct reply *r)
{
	buf_release(&r->head);
	buf_release(&r->body);
	free(r->bounds);
	cJSON_Delete(r->hdrs);
	memset(r, 0, sizeof *r);
}

void
mock_reply_header(struct reply *r, const char *name, const char *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(r->hdrs, name);
	cJSON_AddStringToObject(r->hdrs, name, value);
}

/* Mark the end of an event: by default each event is one write. */
static void
reply_bound(struct reply *r)
{
	if (r->nbounds == r->capbounds) {
		r->capbounds = r->capbounds ? r->capbounds * 2 : 64;
		r->bounds = xreallocarray(r->bounds, r->capbounds, sizeof *r->bounds);
	}
	r->bounds[r->nbounds++] = r->body.len;
}

/* Append "event: NAME" (if any) and "data: JSON" as one event; takes data. */
void
mock_sse_event(struct reply *r, const char *event, cJSON *data)
{
	if (event != NULL)
		buf_printf(&r->body, "event: %s\n", event);
	buf_puts(&r->body, "data: ");
	json_append(&r->body, data);
	buf_puts(&r->body, "\n\n");
	reply_bound(r);
	cJSON_Delete(data);
}

void
mock_sse_raw(struct reply *r, const char *text)
{
	buf_puts(&r->body, text);
	reply_bound(r);
}

/* The error body of the request's protocol; message may be NULL. */
static cJSON *
error_body(const struct call *k, int status, const char *type, const char *message)
{
	cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();
	char id[64];

	if (message == NULL)
		message = status_message(status);
	if (k->proto == P_OPENAI) {
		cJSON_AddStringToObject(e, "message", message);
		cJSON_AddStringToObject(e, "type", status >= 500 ? "server_error" :
		    type != NULL ? type : "invalid_request_error");
		cJSON_AddNullToObject(e, "param");
		if (status == 429)
			cJSON_AddStringToObject(e, "code", "rate_limit_exceeded");
		else
			cJSON_AddNullToObject(e, "code");
		cJSON_AddItemToObject(o, "error", e);
		return o;
	}
	cJSON_AddStringToObject(o, "type", "error");
	cJSON_AddStringToObject(e, "type", type != NULL ? type : status_type(status));
	cJSON_AddStringToObject(e, "message", message);
	cJSON_AddItemToObject(o, "error", e);
	snprintf(id, sizeof id, "req_mock_%06d", k->n);
	cJSON_AddStringToObject(o, "request_id", id);
	return o;
}

static void
reply_ids(const struct call *k, struct reply *r)
{
	char id[64];

	snprintf(id, sizeof id, "req_mock_%06d", k->n);
	mock_reply_header(r, k->proto == P_OPENAI ? "x-request-id" : "request-id", id);
}

void
mock_reply_error(const struct call *k, struct reply *r, int status, const char *message)
{
	cJSON *body = error_body(k, status, NULL, message);

	r->status = status;
	mock_reply_header(r, "content-type", "application/json");
	reply_ids(k, r);
	json_append(&r->body, body);
	cJSON_Delete(body);
}

/* Turn the problems into one message, as the real API names one. */
char *
mock_problems_text(const cJSON *problems)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const cJSON *p;

	cJSON_ArrayForEach(p, problems)
		buf_printf(&b, "%s%s", b.len ? "; " : "", p->valuestring);
	return buf_detach(&b, NULL);
}

/* Piece sizes for splitting text: irregular, like tokens. */
static const size_t split_sizes[] = { 5, 11, 3, 17, 8, 2, 13, 6 };

/* The end of the next piece of s from pos, never inside a UTF-8 sequence. */
size_t
mock_split_next(const char *s, size_t n, size_t pos, size_t *turn)
{
	size_t e = pos + split_sizes[(*turn)++ % (sizeof split_sizes / sizeof split_sizes[0])];

	if (e >= n)
		return n;
	while (e < n && ((unsigned char)s[e] & 0xC0) == 0x80)
		e++;
	return e;
}

static const char *const stop_names[][2] = {
	{ "end_turn", "stop" }, { "tool_use", "tool_calls" }, { "max_tokens", "length" },
	{ "stop_sequence", "stop" }, { "refusal", "content_filter" },
	{ "pause_turn", "stop" }, { "model_context_window_exceeded", "length" },
};

/* The stop reason in the protocol's words (Anthropic: col 0, OpenAI: col 1). */
const char *
mock_stop_reason(const struct resp *r, bool tools, int col)
{
	const char *s = r->stop_reason;
	size_t i;

	if (s == NULL)
		return stop_names[tools ? 1 : 0][col];
	for (i = 0; i < sizeof stop_names / sizeof stop_names[0]; i++) {
		if (strcmp(s, stop_names[i][0]) == 0 || strcmp(s, stop_names[i][1]) == 0)
			return strcmp(s, stop_names[i][col]) == 0 ? s : stop_names[i][col];
	}
	return s;
}

/* The tool calls as sent, with ids filled in; the caller deletes. */
static cJSON *
sent_tools(const struct call *k)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	const cJSON *t, *input;
	char id[64];
	int i = 0;

	cJSON_ArrayForEach(t, k->resp->tool_uses) {
		o = cJSON_CreateObject();
		snprintf(id, sizeof id, k->proto == P_OPENAI ? "call_mock_%d_%d" : "toolu_mock_%d_%d", k->n, i++);
		cJSON_AddStringToObject(o, "id", json_str(t, "id", id));
		cJSON_AddStringToObject(o, "name", json_str(t, "name", ""));
		input = json_get(t, "input");
		cJSON_AddItemToObject(o, "input", input != NULL ? cJSON_Duplicate(input, true) : cJSON_CreateObject());
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static char *
make_signature(const char *thinking)
{
	char hex[SHA256_HEX_LEN + 1];
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	sha256_hex(thinking, strlen(thinking), hex);
	buf_printf(&b, "EqMock%.48s", hex);
	return buf_detach(&b, NULL);
}

const char *
mock_reply_model(const struct call *k)
{
	if (k->resp->model != NULL)
		return k->resp->model;
	return json_str(k->body, "model", "mock-model");
}

/* Event boundaries of a fixture: after each blank line, whatever the line ends. */
static void
fixture_bounds(struct reply *r)
{
	const char *s = r->body.data;
	size_t n = r->body.len, i, save = r->body.len;

	for (i = 0; i + 1 < n; i++) {
		size_t end = 0;

		if (s[i] == '\n' && s[i + 1] == '\n')
			end = i + 2;
		else if (s[i] == '\r' && s[i + 1] == '\r')
			end = i + 2;
		else if (i + 3 < n && memcmp(s + i, "\r\n\r\n", 4) == 0)
			end = i + 4;
		if (end == 0)
			continue;
		r->body.len = end;
		reply_bound(r);
		i = end - 1;
	}
	r->body.len = save;
}

/*
 * Cut the stream at the first event boundary at or after n bytes and send
 * an error event; false when the stream is shorter than that.
 */
static bool
apply_error_after(const struct call *k, struct reply *r, long n)
{
	size_t cut = 0, i;

	for (i = 0; i < r->nbounds && (long)cut < n; i++)
		cut = r->bounds[i];
	if ((long)cut < n)
		return false;
	buf_truncate(&r->body, cut);
	r->nbounds = i;
	if (k->proto == P_OPENAI) {
		mock_sse_raw(r, "data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"server_error\","
		    "\"param\":null,\"code\":null}}\n\n");
		mock_sse_raw(r, "data: [DONE]\n\n");
	} else {
		mock_sse_raw(r, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
		    "\"message\":\"Overloaded\"}}\n\n");
	}
	return true;
}

static void
remember_sent(struct call *k, const cJSON *tools, const char *sig)
{
	struct mock *m = k->m;
	struct sent *s;

	if (sig != NULL) {
		if (m->nsigs == m->capsigs) {
			m->capsigs = m->capsigs ? m->capsigs * 2 : 16;
			m->sigs = xreallocarray(m->sigs, m->capsigs, sizeof *m->sigs);
		}
		m->sigs[m->nsigs].signature = xstrdup(sig);
		m->sigs[m->nsigs++].thinking = xstrdup(k->resp->thinking);
	}
	if (cJSON_GetArraySize(tools) == 0)
		return;
	if (m->nsent == m->capsent) {
		m->capsent = m->capsent ? m->capsent * 2 : 16;
		m->sent = xreallocarray(m->sent, m->capsent, sizeof *m->sent);
	}
	s = &m->sent[m->nsent++];
	memset(s, 0, sizeof *s);
	s->proto = k->proto;
	s->nreq = k->n;
	memcpy(s->conv, k->conv, sizeof s->conv);
	s->tools = cJSON_Duplicate(tools, true);
	/* OpenAI has no thinking signatures to pass back. */
	if (k->proto == P_ANTHROPIC) {
		s->thinking = sig != NULL ? xstrdup(k->resp->thinking) : NULL;
		s->signature = sig != NULL ? xstrdup(sig) : NULL;
		s->redacted = k->resp->redacted != NULL ? xstrdup(k->resp->redacted) : NULL;
	}
}

/* Render a scripted message; *tools and *sig get what was sent (caller frees). */
static void
render_message(struct call *k, struct reply *r, const struct usage *u, cJSON **tools, char **sig)
{
	*tools = sent_tools(k);
	*sig = NULL;
	if (k->resp->thinking != NULL && k->proto == P_ANTHROPIC)
		*sig = k->resp->signature != NULL ? xstrdup(k->resp->signature) :
		    make_signature(k->resp->thinking);
	if (k->proto == P_OPENAI)
		mock_render_openai(k, r, u, *tools);
	else
		mock_render_anthropic(k, r, u, *tools, *sig);
}

/* Will the client get the whole stream?  Only then must it pass the reply back. */
static bool
reply_whole(const struct reply *r, bool error_sent)
{
	if (error_sent)
		return false;
	if (r->close_after >= 0 && (size_t)r->close_after < r->body.len)
		return false;
	return !(r->stall_after >= 0 && r->stall_ms < 0 && (size_t)r->stall_after < r->body.len);
}

static void
render_error(const struct call *k, struct reply *r)
{
	const cJSON *b = k->resp->body;
	cJSON *def;

	r->status = k->resp->status;
	if (cJSON_IsString(b)) {
		mock_reply_header(r, "content-type", "text/plain; charset=utf-8");
		buf_puts(&r->body, b->valuestring);
		return;
	}
	mock_reply_header(r, "content-type", "application/json");
	if (b != NULL) {
		json_append(&r->body, b);
		return;
	}
	def = error_body(k, r->status, NULL, NULL);
	json_append(&r->body, def);
	cJSON_Delete(def);
}

/* Scenario headers override the defaults; framing stays the mock's. */
static void
reply_scenario_headers(struct reply *r, const cJSON *h)
{
	const cJSON *e;
	char name[256];
	size_t i;

	cJSON_ArrayForEach(e, h) {
		for (i = 0; e->string[i] != '\0' && i + 1 < sizeof name; i++)
			name[i] = (char)(e->string[i] >= 'A' && e->string[i] <= 'Z' ?
			    e->string[i] - 'A' + 'a' : e->string[i]);
		name[i] = '\0';
		if (strcmp(name, "content-length") == 0 || strcmp(name, "transfer-encoding") == 0)
			continue;
		if (strcmp(name, "connection") == 0) {
			r->close = strcasecmp(e->valuestring, "close") == 0;
			continue;
		}
		mock_reply_header(r, name, e->valuestring);
	}
}

/* The next number of a response's fault generator (splitmix64). */
static uint64_t
fault_rand(struct resp *rs)
{
	uint64_t z = (rs->rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Does this fault keep the client from getting the whole reply? */
static bool
fault_fails(enum fault f)
{
	return f != F_NONE && f != F_ONEBYTE && f != F_SLOW;
}

static bool
fault_is_status(enum fault f)
{
	return f == F_529 || f == F_429 || f == F_500;
}

/* Roll the dice for one serve of a response with "faults". */
static enum fault
fault_pick(struct resp *rs)
{
	double roll;

	if (!rs->faulty)
		return F_NONE;
	roll = (double)(fault_rand(rs) >> 11) / 9007199254740992.0;
	if (roll >= rs->fault_rate)
		return F_NONE;
	return rs->kinds[fault_rand(rs) % (uint64_t)rs->nkinds];
}

static void
fault_status(struct call *k, struct reply *r)
{
	int status = k->fault == F_529 ? 529 : k->fault == F_429 ? 429 : 500;
	cJSON *body = error_body(k, status, NULL, NULL);
	char ms[32];

	r->status = status;
	mock_reply_header(r, "content-type", "application/json");
	if (status == 429 && k->resp->fault_retry_ms >= 0) {
		snprintf(ms, sizeof ms, "%ld", k->resp->fault_retry_ms);
		mock_reply_header(r, "retry-after-ms", ms);
	}
	json_append(&r->body, body);
	cJSON_Delete(body);
}

/*
 * Strike a rendered stream: cut it, stall it, end it with an error event,
 * or trickle it.  A stream too short to cut is left whole.
 */
static void
fault_stream(struct call *k, struct reply *r, bool *error_sent)
{
	struct resp *rs = k->resp;
	size_t len = r->body.len, last = r->nbounds >= 2 ? r->bounds[r->nbounds - 2] : 0;

	k->fault_at = -1;
	if ((k->fault == F_DROP || k->fault == F_STALL) && len > 1)
		k->fault_at = (long)(1 + fault_rand(rs) % (len - 1));
	else if (k->fault == F_ERROR && last > 0)
		k->fault_at = (long)(1 + fault_rand(rs) % last);
	if (k->fault == F_DROP && k->fault_at > 0) {
		r->close_after = k->fault_at;
	} else if (k->fault == F_STALL && k->fault_at > 0) {
		r->stall_after = k->fault_at;
		r->stall_ms = rs->fault_stall_ms;
	} else if (k->fault == F_ERROR && k->fault_at > 0) {
		*error_sent = apply_error_after(k, r, k->fault_at);
	} else if (k->fault == F_ONEBYTE) {
		r->chunk = 1;
	} else if (k->fault == F_SLOW) {
		r->chunk = (long)(1 + fault_rand(rs) % 16);
		r->delay_ms = rs->fault_slow_ms;
	} else {
		k->fault = F_NONE;
	}
}

void
mock_render(struct call *k, struct reply *r)
{
	struct resp *rs = k->resp;
	struct usage u;
	cJSON *tools = NULL;
	char *sig = NULL;
	bool error_sent = false;

	k->fault = fault_pick(rs);
	k->fault_at = -1;
	reply_ids(k, r);
	if (fault_is_status(k->fault)) {
		/* A failed serve does not use the response up: the retry gets it. */
		fault_status(k, r);
		rs->remaining++;
		return;
	}
	if (rs->kind != RK_ERROR)
		mock_usage_compute(k, &u);
	if (rs->kind == RK_ERROR) {
		render_error(k, r);
	} else {
		r->stream = true;
		mock_reply_header(r, "content-type", "text/event-stream; charset=utf-8");
		mock_reply_header(r, "cache-control", "no-cache");
		if (rs->kind == RK_MESSAGE) {
			render_message(k, r, &u, &tools, &sig);
		} else {
			buf_append(&r->body, rs->fixture, rs->fixture_len);
			fixture_bounds(r);
		}
		if (rs->error_after >= 0)
			error_sent = apply_error_after(k, r, rs->error_after);
	}
	r->chunk = rs->chunk;
	r->delay_ms = rs->delay_ms;
	r->first_byte_ms = rs->first_byte_ms;
	r->close_after = rs->close_after;
	r->stall_after = rs->stall_after;
	r->stall_ms = rs->stall_ms;
	if (rs->close_at_end && r->stream)
		r->close_after = (long)r->body.len;
	if (k->fault != F_NONE)
		fault_stream(k, r, &error_sent);
	if (fault_fails(k->fault))
		rs->remaining++;
	if (tools != NULL && reply_whole(r, error_sent))
		remember_sent(k, tools, sig);
	cJSON_Delete(tools);
	free(sig);
	reply_scenario_headers(r, rs->headers);
}

