/*
 * call: one streamed model call, for turns and for compaction summaries.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "turn_int.h"
#include "call.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "xalloc.h"

static int64_t
call_retry_base_ms(void)
{
	const char *s = getenv("TANDEM_RETRY_BASE_MS");
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return 500;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= 0 ? v : 500;
}

/* What the server asked for: Retry-After-Ms, or Retry-After in seconds or as a date; -1: nothing. */
static int64_t
call_retry_after(struct http_req *req)
{
	const char *ms = req != NULL ? http_header(req, "retry-after-ms") : NULL;
	const char *s = req != NULL ? http_header(req, "retry-after") : NULL;
	char *end;
	double v;

	if (ms != NULL) {
		v = strtod(ms, &end);
		if (end != ms && v > 0 && v <= 60000)
			return (int64_t)v;
	}
	if (s != NULL) {
		struct tm tm;
		const char *rest;

		v = strtod(s, &end);
		if (end != s && v > 0 && v <= 60)
			return (int64_t)(v * 1000);
		/* Or an HTTP date: "Wed, 21 Oct 2026 07:28:00 GMT". */
		memset(&tm, 0, sizeof tm);
		rest = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		if (rest != NULL && *rest == '\0') {
			double d = difftime(timegm(&tm), time(NULL));

			if (d > 0 && d <= 60)
				return (int64_t)(d * 1000);
			if (d <= 0)
				return 0;
		}
	}
	return -1;
}

/*
 * A conversation's retries of its turn's call: the attempts made, the
 * backoff's timer, and whether the key helper ran again for this call.
 */
struct call_retry {
	struct ev_loop	*loop;
	uint64_t	 timer;		/* the backoff before the next attempt; 0: none */
	int		 attempt;	/* retries of this call */
	bool		 helper_retried;	/* a 401 ran the helper again for this call */
};

struct call_retry *
call_retry_new(struct ev_loop *loop)
{
	struct call_retry *cr = xcalloc(1, sizeof *cr);

	cr->loop = loop;
	return cr;
}

void
call_retry_free(struct call_retry *cr)
{
	if (cr == NULL)
		return;
	if (cr->timer != 0)
		ev_timer_cancel(cr->loop, cr->timer);
	free(cr);
}

/*
 * What the session's MCP servers said for the requests: the servers
 * whose tools changed before this one (for its cache break) and the
 * configuration's warnings, kept for a late subscriber.  prompt.c fills
 * them (it starts the servers and takes their tools); this file reads
 * the change, resume.c's replay takes the warnings.
 */
struct mcp_notes {
	struct buf	 changed;
	char		*warnings;
};

struct mcp_notes *
call_mcp_notes_new(void)
{
	return xcalloc(1, sizeof(struct mcp_notes));
}

void
call_mcp_notes_free(struct mcp_notes *n)
{
	if (n == NULL)
		return;
	buf_release(&n->changed);
	free(n->warnings);
	free(n);
}

struct buf *
call_mcp_changed(struct agent *a)
{
	return &agent_mcp_notes(a)->changed;
}

void
call_mcp_set_warnings(struct agent *a, char *w)
{
	free(agent_mcp_notes(a)->warnings);
	agent_mcp_notes(a)->warnings = w;
}

char *
call_mcp_take_warnings(struct agent *a)
{
	char *w = agent_mcp_notes(a)->warnings;

	agent_mcp_notes(a)->warnings = NULL;
	return w;
}

void
call_retry_reset(struct conversation *cv)
{
	conversation_retry(cv)->attempt = 0;
}

int
call_attempts(const struct conversation *cv)
{
	return conversation_retry(cv)->attempt + 1;
}

bool
call_retry_next(struct conversation *cv, struct http_req *req, int *attempt, int64_t *delay)
{
	struct call_retry *cr = conversation_retry(cv);

	if (cr->attempt >= agent_config(conversation_agent(cv))->retries)
		return false;
	cr->attempt++;
	*attempt = cr->attempt;
	*delay = call_backoff_ms(req, cr->attempt);
	return true;
}

void
call_retry_wait(struct conversation *cv, int64_t delay, ev_timer_fn *fn, void *arg)
{
	struct call_retry *cr = conversation_retry(cv);

	cr->timer = ev_timer_add(cr->loop, delay, fn, arg);
}

void
call_retry_fired(struct conversation *cv)
{
	conversation_retry(cv)->timer = 0;
}

void
call_retry_cancel(struct conversation *cv)
{
	struct call_retry *cr = conversation_retry(cv);

	if (cr->timer != 0)
		ev_timer_cancel(cr->loop, cr->timer);
	cr->timer = 0;
}

bool
call_reauth_may(const struct conversation *cv)
{
	return agent_config(conversation_agent(cv))->api_key_helper != NULL && !conversation_retry(cv)->helper_retried;
}

void
call_reauth_tried(struct conversation *cv)
{
	conversation_retry(cv)->helper_retried = true;
}

int64_t
call_backoff_ms(struct http_req *req, int attempt)
{
	int64_t delay = call_retry_after(req), base = call_retry_base_ms(), cap = base * 16;
	double d = (double)base;
	int i;

	if (delay >= 0)
		return delay;
	for (i = 1; i < attempt && d < (double)cap; i++)
		d *= 2;
	if (d > (double)cap)
		d = (double)cap;
	d *= 1.0 - 0.25 * ((double)rand() / RAND_MAX);
	return (int64_t)d;
}

double
call_add_usage(struct conversation *cv, const struct usage *u)
{
	double cost = modelset_cost(cv, u);

	conversation_count_usage(cv, u, cost);
	return cost;
}

static bool
call_retryable_status(long status)
{
	return status == 408 || status == 409 || status == 429 || status >= 500;
}

/* An error type that asking again cannot mend. */
static bool
call_request_at_fault(const char *et)
{
	return et != NULL && (strcmp(et, "invalid_request_error") == 0 ||
	    strcmp(et, "authentication_error") == 0 || strcmp(et, "permission_error") == 0);
}

static void
call_on_headers(void *arg, struct http_req *req, long status)
{
	struct call *c = arg;

	c->status = status;
	stream_set_content_type(c->stream, http_header(req, "content-type"));
}

static int
call_on_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct call *c = arg;
	unsigned long progress;
	int rc;

	if (c->status != 200) {
		if (c->errbody.len < AGENT_ERRBODY_MAX)
			buf_append(&c->errbody, p, n);
		return 0;
	}
	progress = stream_progress(c->stream);
	rc = stream_feed(c->stream, p, n);
	/* Only content keeps the stall timer from firing: not pings, not white space. */
	if (c->stall_on_progress && stream_progress(c->stream) != progress)
		http_progress(req);
	return rc;
}

/* An HTTP error status: what it means, in e. */
static void
call_classify_status(struct call *c, struct http_req *req, struct call_end *e)
{
	struct conversation *cv = c->cv;
	struct agent *a = conversation_agent(cv);
	struct buf msg = BUF_INIT(64 * 1024), type = BUF_INIT(256);
	const char *retry = http_header(req, "x-should-retry");

	provider_error_text(buf_cstr(&c->errbody), c->errbody.len, c->status, &msg, &type);
	if (e->cause.len == 0)
		buf_puts(&e->cause, buf_cstr(&msg));
	e->kind = CALL_FATAL;
	if (compact_is_overflow(c->status, buf_cstr(&type), buf_cstr(&msg)) && c->overflow_ok) {
		e->kind = CALL_OVERFLOW;
		buf_puts(&e->msg, buf_cstr(&msg));
	} else if (c->status == 401 && c->reauth_ok) {
		e->kind = CALL_REAUTH;
		buf_puts(&e->msg, buf_cstr(&msg));
	} else if (c->status == 401 || c->status == 403) {
		buf_printf(&e->msg, "the model server refused the API key (HTTP %ld: %s); check %s",
		    c->status, buf_cstr(&msg),
		    agent_proto(a) == STREAM_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
	} else if (c->status == 400 && modelcat_param_setting(buf_cstr(&msg)) != NULL) {
		e->param_setting = modelcat_param_setting(buf_cstr(&msg));
		buf_printf(&e->msg, "the model server refused a parameter of the request (HTTP 400: "
		    "%s); the setting \"%s\" controls it (`tandem config` shows where it is set)",
		    buf_cstr(&msg), e->param_setting);
	} else if (c->status == 404 && strcmp(buf_cstr(&type), "not_found_error") == 0 &&
	    strstr(buf_cstr(&msg), "model") != NULL) {
		buf_printf(&e->msg, "the model server does not know the model \"%s\" (HTTP 404: %s); "
		    "`tandem models` lists the models it offers", agent_model(a), buf_cstr(&msg));
	} else if (retry != NULL ? strcmp(retry, "true") != 0 : !call_retryable_status(c->status)) {
		/* x-should-retry, when the server sends it, decides. */
		buf_printf(&e->msg, "the model server answered HTTP %ld: %s", c->status, buf_cstr(&msg));
	} else {
		e->kind = CALL_RETRY;
		buf_printf(&e->msg, "HTTP %ld: %s", c->status, buf_cstr(&msg));
	}
	buf_release(&msg);
	buf_release(&type);
}

/*
 * How the call ended, in e.  A broken transfer or stream whose complete
 * tool calls can stand is partial; else it is asked again.
 */
static void
call_classify(struct call *c, const struct http_result *r, struct call_end *e)
{
	struct conversation *cv = c->cv;
	const cJSON *b;
	bool broken = false;

	if (r->fail == HTTP_OK && c->status == 200)
		stream_finish(c->stream);
	if (r->fail != HTTP_OK)
		buf_puts(&e->cause, r->error);
	/* The whole answer came, then the connection broke: the answer stands. */
	if (r->fail != HTTP_OK && r->fail != HTTP_ABORTED && c->status == 200 &&
	    stream_complete(c->stream) && stream_error(c->stream) == NULL) {
		e->kind = CALL_DONE;
	} else if (r->fail == HTTP_TIMEOUT_DEADLINE) {
		/* A server this slow (or a trickle) is not asked again. */
		e->kind = CALL_FATAL;
		buf_printf(&e->msg, "the model server took too long to answer: %s (timeouts.deadline_ms "
		    "sets the limit, 0 turns it off)", r->error);
	} else if (r->fail != HTTP_OK && r->fail != HTTP_ABORTED) {
		const char *what = r->fail == HTTP_CONNECT ? "cannot connect to the model server" :
		    r->fail == HTTP_TIMEOUT_CONNECT ? "connecting to the model server timed out" :
		    r->fail == HTTP_TIMEOUT_FIRST_BYTE ? "the model server did not start answering in time" :
		    r->fail == HTTP_TIMEOUT_STALL ? "the model server went silent in the middle of the answer" :
		    "the connection to the model server broke";

		buf_printf(&e->msg, "%s: %s", what, r->error);
		broken = true;
	} else if (c->status != 200) {
		call_classify_status(c, e->req, e);
	} else if (stream_not_sse(c->stream)) {
		/*
		 * An empty body is retried; a page or text will be the same the next
		 * time (a portal, a proxy, a wrong base_url); a JSON error is
		 * retried unless its type says the request itself is at fault.
		 */
		const char *et = stream_error_type(c->stream);

		if (e->cause.len == 0)
			buf_puts(&e->cause, stream_error(c->stream));
		buf_printf(&e->msg, "%s (HTTP %ld from %s)", stream_error(c->stream), c->status,
		    modelset_base_url(conversation_agent(cv)));
		if (strcmp(et, "not_event_stream") == 0 || call_request_at_fault(et))
			e->kind = CALL_FATAL;
		else
			broken = true;
	} else if (stream_error(c->stream) != NULL) {
		const char *et = stream_error_type(c->stream);

		if (e->cause.len == 0)
			buf_puts(&e->cause, stream_error(c->stream));
		buf_printf(&e->msg, "the model server reported an error mid-stream: %s%s%s%s",
		    stream_error(c->stream), et ? " (" : "", et ? et : "", et ? ")" : "");
		/* Some errors cannot go away by asking again. */
		if (compact_is_overflow(0, et, stream_error(c->stream)) && c->overflow_ok &&
		    stream_output_bytes(c->stream) == 0)
			e->kind = CALL_OVERFLOW;
		else if (call_request_at_fault(et))
			e->kind = CALL_FATAL;
		else
			broken = true;
	} else if (!stream_complete(c->stream)) {
		buf_puts(&e->msg, "the answer stream ended before it was complete");
		broken = true;
	} else {
		e->kind = CALL_DONE;
	}
	if (e->kind == CALL_DONE) {
		e->stop_reason = stream_stop_reason(c->stream) != NULL ?
		    stream_stop_reason(c->stream) : "end_turn";
		return;
	}
	if (!broken)
		return;
	/* A broken transfer or stream.  Tool calls that completed are kept. */
	cJSON_ArrayForEach(b, stream_content(c->stream))
		if (strcmp(json_str(b, "type", ""), "tool_use") == 0 &&
		    !json_bool(b, "_incomplete", false))
			e->ntools++;
	e->kind = e->ntools > 0 ? CALL_PARTIAL : CALL_RETRY;
}

static void
call_on_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct call *c = arg;
	struct call_end e;

	memset(&e, 0, sizeof e);
	buf_init(&e.msg, 64 * 1024);
	buf_init(&e.cause, 64 * 1024);
	e.kind = CALL_RETRY;
	e.req = req;
	e.fail = r->fail;
	e.status = c->status;
	call_classify(c, r, &e);
	c->req = NULL;
	c->end(c->cv, c, &e);
	buf_release(&e.msg);
	buf_release(&e.cause);
}

/*
 * TANDEM_DEBUG=conv: a line for each request saying how much of it was
 * made afresh, to TANDEM_DEBUG_FILE or standard error.
 */
static void
call_trace_made(const struct conv *conv, size_t bytes)
{
	const char *path = getenv("TANDEM_DEBUG_FILE");
	FILE *f = path != NULL && *path != '\0' ? fopen(path, "a") : NULL;
	struct conv_made made;

	conv_take_made(conv, &made);
	fprintf(f != NULL ? f : stderr, "conv: request of %d messages, %zu bytes; made afresh: "
	    "%d texts, %d fingerprints, %d sizes, %d checks; %d changes\n", conv_count(conv), bytes,
	    made.texts, made.hashes, made.sizes, made.checks, made.changes);
	if (f != NULL)
		fclose(f);
}

/*
 * TANDEM_DEBUG=conv: the body built from what the conversation keeps
 * must be the one built from its messages alone, byte for byte.
 */
static void
call_verify_body(const struct provider_request *kept, const struct http_body *parts)
{
	struct provider_request pr = *kept;
	struct curl_slist *headers = NULL;
	struct buf fresh = BUF_INIT(BUF_NOLIMIT), joined = BUF_INIT(BUF_NOLIMIT);
	const struct buf *body = &joined;
	char *url = NULL;
	size_t i = 0;

	http_body_join(parts, &joined);
	pr.messages = kept->conv->messages;
	pr.conv = NULL;
	provider_build(&pr, &url, &headers, &fresh);
	while (i < body->len && i < fresh.len && body->data[i] == fresh.data[i])
		i++;
	if (i != body->len || i != fresh.len)
		fatal("TANDEM_DEBUG=conv: the request built from the kept messages differs at "
		    "byte %zu of %zu from the one built afresh (%zu bytes)", i, body->len, fresh.len);
	call_trace_made(kept->conv, body->len);
	free(url);
	curl_slist_free_all(headers);
	buf_release(&fresh);
	buf_release(&joined);
}

void
call_start(struct conversation *cv, struct call *c, const struct call_request *rq, call_end_fn *end,
    int *max_tokens)
{
	struct agent *a = conversation_agent(cv);
	static const struct http_handler proto = { call_on_headers, call_on_body, call_on_done, NULL };
	static const struct stream_handler none = { NULL, NULL, NULL, NULL };
	struct http_handler hh = proto;
	struct provider_request pr;
	struct http_timeouts to;
	struct curl_slist *headers = NULL;
	struct http_body body;
	char *url = NULL;

	memset(&pr, 0, sizeof pr);
	modelset_auth(cv, &pr);
	pr.model = rq->model != NULL ? rq->model :
	    conversation_model(cv) != NULL ? conversation_model(cv) : agent_model(a);
	modelset_shape_request(cv, &pr);
	if (rq->model != NULL) {
		pr.thinking = PROVIDER_THINK_NONE;
		pr.effort = NULL;
	}
	if (rq->no_budget && pr.thinking == PROVIDER_THINK_BUDGET)
		pr.thinking = PROVIDER_THINK_NONE;
	pr.system_static = rq->system_static;
	pr.system_dynamic = rq->system_dynamic;
	pr.tools = rq->tools;
	pr.messages = rq->messages;
	pr.conv = rq->conv;
	pr.cache = rq->cache;
	provider_build_body(&pr, &url, &headers, &body);
	if (pr.conv != NULL && agent_debug("conv"))
		call_verify_body(&pr, &body);
	if (max_tokens != NULL)
		*max_tokens = pr.max_tokens;
	modelset_timeouts(cv, pr.max_tokens, rq->stall_on_progress, &to);
	hh.arg = c;
	c->cv = cv;
	c->end = end;
	c->status = 0;
	c->stall_on_progress = rq->stall_on_progress;
	buf_init(&c->errbody, AGENT_ERRBODY_MAX);
	c->stream = stream_new(agent_proto(a), rq->sh != NULL ? rq->sh : &none);
	c->req = http_post_body(agent_http(a), url, headers, &body, &to, &hh);
	free(url);
}

void
call_cancel(struct call *c)
{
	if (c->req != NULL)
		http_cancel(c->req);
	c->req = NULL;
	call_release(c);
}

void
call_abort(struct call *c)
{
	if (c->req != NULL)
		http_cancel(c->req);
	c->req = NULL;
}

void
call_release(struct call *c)
{
	stream_free(c->stream);
	c->stream = NULL;
	c->req = NULL;
	buf_release(&c->errbody);
}

/* What the response cost and how the prompt cache fared. */
void
call_record_usage(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	bool has = false;
	struct usage u = stream_usage(conversation_call(cv)->stream, &has);
	struct cachewatch_break br;
	double cost;

	if (!has)
		return;
	conversation_set_last_usage(cv, &u);
	if (cachewatch_after(conversation_cachewatch(cv), &u, &br)) {
		cJSON *rec = cJSON_CreateObject();

		br.cost_usd = modelset_break_cost(cv, &br, &u);
		cachewatch_price_last(conversation_cachewatch(cv), br.cost_usd);

		cJSON_AddStringToObject(rec, "k", "cache_break");
		cachewatch_break_fields(&br, rec);
		emit_cache_break(conversation_bus(cv), &br,
		    agent_mcp_notes(a)->changed.len > 0 ? buf_cstr(&agent_mcp_notes(a)->changed) : NULL);
		if (record_log(cv, rec) == -1)
			agent_unsaved(cv);
	}
	cost = call_add_usage(cv, &u);
	modelset_calibrate(cv, &u);
	conversation_retry(cv)->helper_retried = false;
	emit_usage(conversation_bus(cv), &u, cost);
	emit_context(conversation_bus(cv), u.input + u.cache_write + u.cache_read + u.output, modelset_window(cv),
	    compact_stage_name(conv_stage(conversation_conv(cv))));
}

/* Wall-clock time (the cache's age must survive a restart), shifted by TANDEM_CLOCK_OFFSET_MS. */
int64_t
call_clock_ms(void)
{
	const char *s = getenv("TANDEM_CLOCK_OFFSET_MS");
	struct timespec ts;
	char *end;
	long long off = 0;

	if (s != NULL && *s != '\0') {
		off = strtoll(s, &end, 10);
		if (*end != '\0')
			off = 0;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + off;
}
