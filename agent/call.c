/*
 * call: one streamed model call, for turns and for compaction summaries.
 *
 * Owns the request in flight: building it, the stream it feeds, the HTTP
 * status and error body, usage totals, the retry with backoff (honouring
 * Retry-After), and the classification of how the call ended.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cachewatch.h"
#include "compact.h"
#include "config.h"
#include "conv.h"
#include "ev.h"
#include "fsutil.h"
#include "event.h"
#include "http.h"
#include "hooks.h"
#include "json.h"
#include "memory.h"
#include "modelcat.h"
#include "models.h"
#include "perm.h"
#include "provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "session.h"
#include "stream.h"
#include "xalloc.h"
#include "agent_int.h"
#include "call.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "resume.h"
#include "timeline.h"

static bool call_retryable_status(long status);
static int64_t call_retry_base_ms(void);
static int64_t call_retry_after(struct http_req *req);
static void call_retry_now(struct ev_loop *loop, void *arg);
static void call_retry(struct agent *a, struct http_req *req, const char *reason);
static void call_on_headers(void *arg, struct http_req *req, long status);
static int call_on_body(void *arg, struct http_req *req, const char *p, size_t n);
static void call_on_done(void *arg, struct http_req *req, const struct http_result *r);
static void call_sum_headers(void *arg, struct http_req *req, long status);
static int call_sum_body(void *arg, struct http_req *req, const char *p, size_t n);
static void call_sum_finish(struct agent *a, const char *summary, const char *why);
static void call_sum_done(void *arg, struct http_req *req, const struct http_result *r);
static int64_t call_clock_ms(void);

/* --- the model call ------------------------------------------------------ */

void
call_drop(struct agent *a)
{
	stream_free(a->stream);
	a->stream = NULL;
	a->req = NULL;
	buf_release(&a->errbody);
}

static bool
call_retryable_status(long status)
{
	return status == 408 || status == 409 || status == 429 || status >= 500;
}

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

static void
call_retry_now(struct ev_loop *loop, void *arg)
{
	struct agent *a = arg;

	a->retry_timer = 0;
	call_model(a);
}

/* Retry the call after a backoff, or fail the turn when out of attempts. */
static void
call_retry(struct agent *a, struct http_req *req, const char *reason)
{
	int64_t delay = call_retry_after(req), base = call_retry_base_ms(), cap = base * 16;
	cJSON *ev;

	if (a->attempt >= a->cfg->retries) {
		call_drop(a);
		agent_fail(a, "%s (gave up after %d attempts)", reason, a->attempt + 1);
		return;
	}
	a->attempt++;
	if (delay < 0) {
		double d = (double)base;
		int i;

		for (i = 1; i < a->attempt && d < (double)cap; i++)
			d *= 2;

		if (d > (double)cap)
			d = (double)cap;
		d *= 1.0 - 0.25 * ((double)rand() / RAND_MAX);
		delay = (int64_t)d;
	}
	call_drop(a);
	ev = event_new(a->bus, "retry");
	cJSON_AddNumberToObject(ev, "attempt", a->attempt);
	cJSON_AddNumberToObject(ev, "delay_ms", (double)delay);
	cJSON_AddStringToObject(ev, "reason", reason);
	event_emit(a->bus, ev);
	a->retry_timer = ev_timer_add(a->loop, delay, call_retry_now, a);
}

static void
call_on_headers(void *arg, struct http_req *req, long status)
{
	struct agent *a = arg;

	a->status = status;
	stream_set_content_type(a->stream, http_header(req, "content-type"));
}

static int
call_on_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct agent *a = arg;
	unsigned long progress;
	int rc;

	if (a->status != 200) {
		if (a->errbody.len < AGENT_ERRBODY_MAX)
			buf_append(&a->errbody, p, n);
		return 0;
	}
	progress = stream_progress(a->stream);
	rc = stream_feed(a->stream, p, n);
	/* Only content keeps the stall timer from firing: not pings, not white space. */
	if (stream_progress(a->stream) != progress)
		http_progress(req);
	return rc;
}

void
call_record_usage(struct agent *a)
{
	bool has = false;
	struct usage u = stream_usage(a->stream, &has);
	double cost;
	cJSON *ev;

	if (!has)
		return;
	a->last = u;
	{
		struct cachewatch_break br;

		if (cachewatch_after(a->cw, &u, &br)) {
			cJSON *rec = cJSON_CreateObject();

			ev = event_new(a->bus, "cache_break");
			cachewatch_break_fields(&br, ev);
			cJSON_AddStringToObject(rec, "k", "cache_break");
			cachewatch_break_fields(&br, rec);
			event_emit(a->bus, ev);
			if (session_append(a->session, rec) == -1)
				agent_unsaved(a);
		}
	}
	a->totals.input += u.input;
	a->totals.output += u.output;
	a->totals.cache_write += u.cache_write;
	a->totals.cache_read += u.cache_read;
	cost = modelset_cost(a, &u);
	a->cost += cost;
	modelset_calibrate(a, &u);
	a->helper_retried = false;
	ev = event_new(a->bus, "usage");
	cJSON_AddNumberToObject(ev, "input_tokens", (double)u.input);
	cJSON_AddNumberToObject(ev, "output_tokens", (double)u.output);
	cJSON_AddNumberToObject(ev, "cache_creation_input_tokens", (double)u.cache_write);
	cJSON_AddNumberToObject(ev, "cache_read_input_tokens", (double)u.cache_read);
	cJSON_AddNumberToObject(ev, "cost_usd", cost);
	event_emit(a->bus, ev);
	ev = event_new(a->bus, "context");
	cJSON_AddNumberToObject(ev, "tokens", (double)(u.input + u.cache_write + u.cache_read + u.output));
	cJSON_AddNumberToObject(ev, "window", (double)modelset_window(a));
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(a->stage));
	event_emit(a->bus, ev);
}

static void
call_on_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct agent *a = arg;
	struct buf msg = BUF_INIT(64 * 1024), type = BUF_INIT(256);
	int ntools = 0;

	if (r->fail == HTTP_OK && a->status == 200)
		stream_finish(a->stream);
	/* The whole answer came, then the connection broke: the answer stands. */
	if (r->fail != HTTP_OK && r->fail != HTTP_ABORTED && a->status == 200 && a->stream != NULL &&
	    stream_complete(a->stream) && stream_error(a->stream) == NULL) {
		const char *sr = stream_stop_reason(a->stream);

		agent_response_done(a, sr != NULL ? sr : "end_turn");
		goto out;
	}
	if (r->fail == HTTP_TIMEOUT_DEADLINE) {
		/* A server this slow (or a trickle) is not asked again. */
		call_drop(a);
		agent_fail(a, "the model server took too long to answer: %s (timeouts.deadline_ms "
		    "sets the limit, 0 turns it off)", r->error);
		goto out;
	}
	if (r->fail != HTTP_OK && r->fail != HTTP_ABORTED) {
		const char *what = r->fail == HTTP_CONNECT ? "cannot connect to the model server" :
		    r->fail == HTTP_TIMEOUT_CONNECT ? "connecting to the model server timed out" :
		    r->fail == HTTP_TIMEOUT_FIRST_BYTE ? "the model server did not start answering in time" :
		    r->fail == HTTP_TIMEOUT_STALL ? "the model server went silent in the middle of the answer" :
		    "the connection to the model server broke";

		buf_printf(&msg, "%s: %s", what, r->error);
	} else if (a->status != 200) {
		provider_error_text(buf_cstr(&a->errbody), a->errbody.len, a->status, &msg, &type);
		if (compact_is_overflow(a->status, buf_cstr(&type), buf_cstr(&msg)) && !a->overflow_retried) {
			struct compact_outcome o;
			char *sys = prompt_system_text(a);

			/* Too big for the window: compact as hard as it goes and retry once. */
			a->overflow_retried = true;
			call_drop(a);
			compact_overflow(a->conv.messages, sys, a->tools, &o);
			free(sys);
			if (o.stage != COMPACT_NONE) {
				agent_compacted(a, o.stage, o.tokens_before, o.tokens_after);
				call_model(a);
				goto out;
			}
			agent_fail(a, "the conversation does not fit the model's context window, and "
			    "nothing more can be compacted: %s", buf_cstr(&msg));
			goto out;
		}
		if (a->status == 401 && a->cfg->api_key_helper != NULL && !a->helper_retried) {
			struct buf kerr = BUF_INIT(4096);

			/* The helper's key may have expired: ask it again, once. */
			a->helper_retried = true;
			call_drop(a);
			if (modelset_run_key_helper(a, &kerr) == 0)
				call_model(a);
			else
				agent_fail(a, "the model server refused the key (HTTP 401), and %s",
				    buf_cstr(&kerr));
			buf_release(&kerr);
			goto out;
		}
		if (a->status == 401 || a->status == 403) {
			struct buf m2 = BUF_INIT(64 * 1024);

			buf_printf(&m2, "the model server refused the API key (HTTP %ld: %s); check %s",
			    a->status, buf_cstr(&msg),
			    a->proto == STREAM_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
			call_drop(a);
			agent_fail(a, "%s", buf_cstr(&m2));
			buf_release(&m2);
			goto out;
		}
		if (a->status == 400 && modelcat_param_setting(buf_cstr(&msg)) != NULL) {
			const char *setting = modelcat_param_setting(buf_cstr(&msg));

			/* What tandem knew of the model was wrong: ask again next time. */
			modelcat_forget(a->cat, a->model);
			model_caps_release(&a->caps);
			modelcat_get(a->cat, a->model, &a->caps);
			(void)modelcat_refresh(a->cat, a->model, modelset_models_done, a);
			call_drop(a);
			agent_fail(a, "the model server refused a parameter of the request (HTTP 400: %s); "
			    "the setting \"%s\" controls it (`tandem config` shows where it is set)",
			    buf_cstr(&msg), setting);
			goto out;
		}
		if (a->status == 404 && strcmp(buf_cstr(&type), "not_found_error") == 0 &&
		    strstr(buf_cstr(&msg), "model") != NULL) {
			call_drop(a);
			agent_fail(a, "the model server does not know the model \"%s\" (HTTP 404: %s); "
			    "`tandem models` lists the models it offers", a->model, buf_cstr(&msg));
			goto out;
		}
		/* x-should-retry, when the server sends it, decides. */
		if (http_header(req, "x-should-retry") != NULL ?
		    strcmp(http_header(req, "x-should-retry"), "true") != 0 :
		    !call_retryable_status(a->status)) {
			call_drop(a);
			agent_fail(a, "the model server answered HTTP %ld: %s", a->status, buf_cstr(&msg));
			goto out;
		}
		{
			struct buf m2 = BUF_INIT(64 * 1024);

			buf_printf(&m2, "HTTP %ld: %s", a->status, buf_cstr(&msg));
			buf_reset(&msg);
			buf_puts(&msg, buf_cstr(&m2));
			buf_release(&m2);
		}
		call_retry(a, req, buf_cstr(&msg));
		goto out;
	} else if (stream_not_sse(a->stream)) {
		const char *et = stream_error_type(a->stream);

		/*
		 * An empty body is retried; a page or text will be the same the next
		 * time (a portal, a proxy, a wrong base_url); a JSON error is
		 * retried unless its type says the request itself is at fault.
		 */
		buf_printf(&msg, "%s (HTTP %ld from %s)", stream_error(a->stream), a->status,
		    a->base_url);
		if (strcmp(et, "not_event_stream") == 0 || strcmp(et, "invalid_request_error") == 0 ||
		    strcmp(et, "authentication_error") == 0 || strcmp(et, "permission_error") == 0) {
			call_drop(a);
			agent_fail(a, "%s", buf_cstr(&msg));
			goto out;
		}
	} else if (stream_error(a->stream) != NULL) {
		const char *et = stream_error_type(a->stream);

		buf_printf(&msg, "the model server reported an error mid-stream: %s%s%s%s",
		    stream_error(a->stream), et ? " (" : "", et ? et : "", et ? ")" : "");
		/* Some errors cannot go away by asking again. */
		if (compact_is_overflow(0, et, stream_error(a->stream)) && !a->overflow_retried &&
		    stream_output_bytes(a->stream) == 0) {
			struct compact_outcome o;
			char *sys = prompt_system_text(a);

			a->overflow_retried = true;
			call_drop(a);
			compact_overflow(a->conv.messages, sys, a->tools, &o);
			free(sys);
			if (o.stage != COMPACT_NONE) {
				agent_compacted(a, o.stage, o.tokens_before, o.tokens_after);
				call_model(a);
				goto out;
			}
			agent_fail(a, "%s; nothing more can be compacted", buf_cstr(&msg));
			goto out;
		}
		if (et != NULL && (strcmp(et, "invalid_request_error") == 0 ||
		    strcmp(et, "authentication_error") == 0 || strcmp(et, "permission_error") == 0)) {
			call_drop(a);
			agent_fail(a, "%s", buf_cstr(&msg));
			goto out;
		}
	} else if (!stream_complete(a->stream)) {
		buf_puts(&msg, "the answer stream ended before it was complete");
	} else {
		const char *sr = stream_stop_reason(a->stream);

		agent_response_done(a, sr != NULL ? sr : "end_turn");
		goto out;
	}
	/* A broken transfer or stream.  Tool calls that completed are kept. */
	{
		const cJSON *b;

		cJSON_ArrayForEach(b, stream_content(a->stream))
			if (strcmp(json_str(b, "type", ""), "tool_use") == 0 &&
			    !json_bool(b, "_incomplete", false))
				ntools++;
	}
	if (ntools > 0) {
		event_error(a->bus, 0, "%s; continuing from the %d tool call%s it completed",
		    buf_cstr(&msg), ntools, ntools == 1 ? "" : "s");
		agent_response_done(a, "tool_use");
	} else {
		call_retry(a, req, buf_cstr(&msg));
	}
out:
	buf_release(&msg);
	buf_release(&type);
}

static void
call_sum_headers(void *arg, struct http_req *req, long status)
{
	struct agent *a = arg;

	a->sum.status = status;
}

static int
call_sum_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct agent *a = arg;

	if (a->sum.status != 200)
		return buf_append(&a->sum.errbody, p, n) == -1 ? -1 : 0;
	return stream_feed(a->sum.stream, p, n);
}

static void
call_sum_finish(struct agent *a, const char *summary, const char *why)
{
	int64_t after;

	if (summary != NULL && compact_apply_summary(a->conv.messages, a->sum.keep, summary, NULL) > 0) {
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "summary");
		cJSON_AddStringToObject(rec, "text", summary);
		if (session_append(a->session, rec) == -1)
			agent_unsaved(a);
		a->summary_failures = 0;
		after = prompt_estimate(a);
		agent_compacted(a, COMPACT_SUMMARY, a->sum.tokens_before, after);
	} else {
		a->summary_failures++;
		event_error(a->bus, 0, "the summary for compaction failed (%s); collapsing instead",
		    why != NULL ? why : "no summary came back");
		if (compact_collapse(a->conv.messages, a->sum.keep, NULL) > 0)
			agent_compacted(a, COMPACT_COLLAPSE, a->sum.tokens_before, prompt_estimate(a));
		if (a->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES)
			event_error(a->bus, 0, "automatic compaction stopped after %d failed summaries "
			    "in a row; use /compact to try again", a->summary_failures);
	}
}

static void
call_sum_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct agent *a = arg;
	struct buf text = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(4096), type = BUF_INIT(256);
	const cJSON *b;
	bool then_call = a->sum.then_call;

	if (r->fail != HTTP_OK) {
		buf_puts(&why, r->error);
	} else if (a->sum.status != 200) {
		provider_error_text(buf_cstr(&a->sum.errbody), a->sum.errbody.len, a->sum.status, &why, &type);
	} else {
		stream_finish(a->sum.stream);
		if (stream_error(a->sum.stream) != NULL)
			buf_puts(&why, stream_error(a->sum.stream));
		cJSON_ArrayForEach(b, stream_content(a->sum.stream))
			if (strcmp(json_str(b, "type", ""), "text") == 0)
				buf_puts(&text, json_str(b, "text", ""));
		{
			bool has = false;
			struct usage u = stream_usage(a->sum.stream, &has);

			if (has) {
				a->totals.input += u.input;
				a->totals.output += u.output;
				a->totals.cache_write += u.cache_write;
				a->totals.cache_read += u.cache_read;
				a->cost += modelset_cost(a, &u);
			}
		}
	}
	call_sum_finish(a, why.len == 0 && text.len > 0 ? buf_cstr(&text) : NULL,
	    why.len > 0 ? buf_cstr(&why) : NULL);
	stream_free(a->sum.stream);
	a->sum.stream = NULL;
	a->sum.req = NULL;
	buf_release(&a->sum.errbody);
	buf_release(&text);
	buf_release(&why);
	buf_release(&type);
	a->compacting = false;
	if (then_call)
		call_model(a);
	else
		event_emit(a->bus, event_new(a->bus, "compaction_done"));
}

/* Drop the summary call in flight; no callback comes from it after this. */
void
call_sum_cancel(struct agent *a)
{
	http_cancel(a->sum.req);
	a->sum.req = NULL;
	stream_free(a->sum.stream);
	a->sum.stream = NULL;
	buf_release(&a->sum.errbody);
	a->sum.then_call = false;
}

/* Ask the model for a summary of all but the newest keep turns. */
int
call_sum_start(struct agent *a, int keep, const char *focus, bool then_call)
{
	static const struct http_handler proto = { call_sum_headers, call_sum_body, call_sum_done, NULL };
	struct stream_handler sh = { NULL, NULL, NULL, NULL };
	struct http_handler hh = proto;
	struct provider_request pr;
	struct http_timeouts to;
	struct curl_slist *headers = NULL;
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	cJSON *msgs;
	char *url = NULL;

	msgs = compact_summary_request(a->conv.messages, keep, focus, (size_t)modelset_est_window(a) * 2);
	if (msgs == NULL)
		return -1;
	memset(&pr, 0, sizeof pr);
	modelset_auth(a, &pr);
	pr.model = a->model;
	modelset_shape_request(a, &pr);
	/* A summary needs no thinking: only what the model would do anyway. */
	if (pr.thinking == PROVIDER_THINK_BUDGET)
		pr.thinking = PROVIDER_THINK_NONE;
	pr.system_static = compact_summary_system();
	pr.messages = msgs;
	provider_build(&pr, &url, &headers, &body);
	cJSON_Delete(msgs);
	modelset_timeouts(a, pr.max_tokens, false, &to);
	hh.arg = a;
	a->sum.keep = keep;
	a->sum.then_call = then_call;
	a->sum.status = 0;
	a->sum.tokens_before = prompt_estimate(a);
	buf_init(&a->sum.errbody, AGENT_ERRBODY_MAX);
	a->sum.stream = stream_new(a->proto, &sh);
	a->sum.req = http_post(a->http, url, headers, body.data, body.len, &to, &hh);
	free(url);
	buf_release(&body);
	return 0;
}

static int64_t
call_clock_ms(void)
{
	const char *s = getenv("TANDEM_CLOCK_OFFSET_MS");
	char *end;
	long long off = 0;

	if (s != NULL && *s != '\0') {
		off = strtoll(s, &end, 10);
		if (*end != '\0')
			off = 0;
	}
	{
		struct timespec ts;

		/* Wall-clock time: the cache's age must survive a restart (resume). */
		clock_gettime(CLOCK_REALTIME, &ts);
		return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + off;
	}
}

void
call_model(struct agent *a)
{
	static const struct http_handler handler_proto = {
		call_on_headers, call_on_body, call_on_done, NULL
	};
	struct stream_handler sh = { agent_on_text, agent_on_thinking, agent_on_block, a };
	struct http_handler hh = handler_proto;
	struct provider_request pr;
	struct http_timeouts to;
	struct curl_slist *headers = NULL;
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	char *url = NULL;

	if (session_error(a->session) != NULL) {
		agent_halt(a);
		return;
	}
	if (modelset_wait(a))
		return;
	a->caps_sent = true;
	if (agent_auto_compact(a))
		return;
	/* Nothing goes out before the log that explains it is on disk. */
	if (session_sync(a->session) == -1) {
		agent_halt(a);
		return;
	}
	/* Nor a conversation the API would refuse, whatever put it in memory. */
	{
		struct buf why = BUF_INIT(4096);

		if (conv_check(&a->conv, &why) == -1) {
			agent_fail(a, "the conversation is not valid (%s), so it was not sent; go on "
			    "from an earlier turn with tandem --resume %s --fork --rewind-to N",
			    buf_cstr(&why), session_id(a->session));
			buf_release(&why);
			return;
		}
		buf_release(&why);
	}
	memset(&pr, 0, sizeof pr);
	modelset_auth(a, &pr);
	pr.model = a->model;
	modelset_shape_request(a, &pr);
	pr.system_static = a->sys_static;
	pr.system_dynamic = a->sys_dynamic;
	pr.tools = a->tools;
	pr.messages = a->conv.messages;
	pr.cache = a->proto == STREAM_ANTHROPIC;
	provider_build(&pr, &url, &headers, &body);
	cachewatch_before(a->cw, a->sys_static, a->tools, a->model, a->conv.messages, call_clock_ms());
	{
		char *sys = prompt_system_text(a);

		a->est_sent = compact_estimate(sys, a->tools, a->conv.messages);
		free(sys);
	}

	modelset_timeouts(a, pr.max_tokens, true, &to);
	hh.arg = a;
	a->status = 0;
	a->stream_done = false;
	a->checkpoint_a = false;
	buf_init(&a->errbody, AGENT_ERRBODY_MAX);
	a->stream = stream_new(a->proto, &sh);
	a->req = http_post(a->http, url, headers, body.data, body.len, &to, &hh);
	crash_point("request-sent");
	free(url);
	buf_release(&body);
}
