/* The MCP client: see mcp.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "ev.h"
#include "json.h"
#include "mcp.h"
#include "model/http.h"
#include "mcp_config.h"
#include "mcp_http.h"
#include "mcp_stdio.h"
#include "redact.h"
#include "sha256.h"
#include "xalloc.h"
#include "mcp_int.h"

/* Asked for first; the rest are accepted when a server picks them (newest first). */
static const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07", NULL
};

const char *const mcp_state_names[] = { "off", "starting", "ready", "failed" };

static void mcp_server_start(struct mcp_server *);
static void mcp_server_died(struct mcp_server *, const char *why);
static void mcp_call_finish(struct mcp_call *, bool is_error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void mcp_send_call(struct mcp_call *);
static void mcp_check_wait(struct mcp *);

static const struct tool_async mcp_proxy_async;
static int64_t mcp_tokens;	/* the last progressToken given */

static const char mcp_proxy_desc[] =
    "Use the tools of the MCP servers configured for this workspace. Their definitions are "
    "not loaded, to keep requests small: first search, {\"search\": \"words\"} (\"*\" lists "
    "every tool), which returns the matching tools with their names, descriptions and "
    "input schemas; then call one, {\"tool\": \"mcp__server__tool\", \"arguments\": {...}}.";
static const char mcp_proxy_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"search\":{\"type\":\"string\",\"description\":\"words to look for in the tools' names and "
    "descriptions, or * for all\"},"
    "\"tool\":{\"type\":\"string\",\"description\":\"the tool to call, as the search named it\"},"
    "\"arguments\":{\"type\":\"object\",\"description\":\"the tool's input\"}}}";

/* --- sending ---------------------------------------------------------------- */

static int
mcp_send(struct mcp_server *s, cJSON *msg)
{
	char *text;
	int r = -1;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	text = json_print(msg);
	if (s->io != NULL)
		r = mcp_stdio_send(s->io, text, strlen(text));
	else if (s->hc != NULL)
		r = mcp_http_send(s->hc, text, strlen(text));
	free(text);
	cJSON_Delete(msg);
	return r;
}

int64_t
mcp_request(struct mcp_server *s, enum mcp_req_kind kind, const char *method, cJSON *params,
    struct mcp_call *call)
{
	cJSON *msg = cJSON_CreateObject();
	struct mcp_pending *p;
	int64_t id = ++s->next_id;

	cJSON_AddNumberToObject(msg, "id", (double)id);
	cJSON_AddStringToObject(msg, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(msg, "params", params);
	if (mcp_send(s, msg) == -1)
		return -1;
	p = xcalloc(1, sizeof *p);
	p->id = id;
	p->kind = kind;
	p->call = call;
	p->next = s->pending;
	s->pending = p;
	return id;
}

static void
mcp_notify(struct mcp_server *s, const char *method, cJSON *params)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(msg, "params", params);
	(void)mcp_send(s, msg);
}

static struct mcp_pending *
mcp_pending_take(struct mcp_server *s, int64_t id)
{
	struct mcp_pending **pp, *p;

	for (pp = &s->pending; (p = *pp) != NULL; pp = &p->next)
		if (p->id == id) {
			*pp = p->next;
			return p;
		}
	return NULL;
}

static void
mcp_pending_drop_call(struct mcp_server *s, struct mcp_call *c)
{
	struct mcp_pending **pp, *p;

	for (pp = &s->pending; (p = *pp) != NULL; pp = &p->next)
		if (p->call == c) {
			*pp = p->next;
			free(p);
			return;
		}
}

/* --- the lifecycle -------------------------------------------------------- */

static void
mcp_list_tools(struct mcp_server *s, const char *cursor)
{
	cJSON *params = NULL;

	if (cursor != NULL) {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "cursor", cursor);
	} else {
		cJSON_Delete(s->acc);
		s->acc = cJSON_CreateArray();
		s->pages = 0;
	}
	s->listing = true;
	s->list_again = false;
	if (mcp_request(s, MCP_REQ_LIST, "tools/list", params, NULL) == -1)
		mcp_server_died(s, "it stopped reading its input");
}

static void
mcp_ready(struct mcp_server *s)
{
	struct mcp_call *c, *next;

	if (s->init_timer != 0)
		ev_timer_cancel(s->m->loop, s->init_timer);
	s->init_timer = 0;
	s->state = MCP_READY;
	s->fails = 0;
	c = s->queued;
	s->queued = NULL;
	for (; c != NULL; c = next) {
		next = c->next;
		c->next = NULL;
		mcp_send_call(c);
	}
	mcp_check_wait(s->m);
}

void
mcp_maybe_ready(struct mcp_server *s)
{
	if (s->state == MCP_STARTING && !s->listing && !mcp_pagers_busy(s))
		mcp_ready(s);
}

static void
mcp_on_init(struct mcp_server *s, const cJSON *result)
{
	const char *v = json_str(result, "protocolVersion", "");
	size_t i;

	for (i = 0; mcp_versions[i] != NULL && strcmp(mcp_versions[i], v) != 0; i++)
		;
	if (mcp_versions[i] == NULL) {
		struct buf why = BUF_INIT(1024);

		buf_printf(&why, "it speaks MCP protocol version \"%.64s\", which tandem does not "
		    "(tandem speaks %s to %s)", v, mcp_versions[i - 1], mcp_versions[0]);
		mcp_server_died(s, buf_cstr(&why));
		buf_release(&why);
		return;
	}
	free(s->version);
	s->version = xstrdup(v);
	if (s->hc != NULL)
		mcp_http_set_version(s->hc, v);
	mcp_notify(s, "notifications/initialized", NULL);
	s->pager[MCP_PROMPTS].offered = json_get(json_get(result, "capabilities"), "prompts") != NULL;
	s->pager[MCP_RESOURCES].offered =
	    json_get(json_get(result, "capabilities"), "resources") != NULL;
	mcp_pager_start(s, MCP_PROMPTS);
	mcp_pager_start(s, MCP_RESOURCES);
	if (json_get(json_get(result, "capabilities"), "tools") == NULL) {
		cJSON_Delete(s->staged);
		s->staged = cJSON_CreateArray();
		mcp_maybe_ready(s);
		return;
	}
	mcp_list_tools(s, NULL);
}

static void
mcp_on_list(struct mcp_server *s, const cJSON *result)
{
	const cJSON *t, *tools = json_get(result, "tools");
	const char *cursor = json_str(result, "nextCursor", NULL);

	cJSON_ArrayForEach(t, tools)
		cJSON_AddItemToArray(s->acc, cJSON_Duplicate(t, 1));
	if (cursor != NULL && cursor[0] != '\0' && ++s->pages < MCP_PAGES_MAX) {
		mcp_list_tools(s, cursor);
		return;
	}
	s->listing = false;
	cJSON_Delete(s->staged);
	s->staged = s->acc;
	s->acc = NULL;
	if (s->list_again) {
		mcp_list_tools(s, NULL);
		return;
	}
	mcp_maybe_ready(s);
}

static void
mcp_answer(struct mcp_server *s, const cJSON *id, cJSON *result, int code, const char *msg)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
	if (result != NULL)
		cJSON_AddItemToObject(r, "result", result);
	else {
		cJSON *e = cJSON_AddObjectToObject(r, "error");

		cJSON_AddNumberToObject(e, "code", code);
		cJSON_AddStringToObject(e, "message", msg);
	}
	(void)mcp_send(s, r);
}

/* A server's request: every one is answered. */
static void
mcp_on_request(struct mcp_server *s, const char *method, const cJSON *id)
{
	if (strcmp(method, "ping") == 0) {
		mcp_answer(s, id, cJSON_CreateObject(), 0, NULL);
	} else if (strcmp(method, "roots/list") == 0) {
		struct buf uri = BUF_INIT(BUF_NOLIMIT);
		cJSON *res = cJSON_CreateObject(), *roots = cJSON_AddArrayToObject(res, "roots");
		cJSON *r = cJSON_CreateObject();
		const char *base = strrchr(s->m->root, '/');

		buf_printf(&uri, "file://%s", s->m->root);
		cJSON_AddStringToObject(r, "uri", buf_cstr(&uri));
		cJSON_AddStringToObject(r, "name", base != NULL && base[1] != '\0' ? base + 1 : "/");
		cJSON_AddItemToArray(roots, r);
		buf_release(&uri);
		mcp_answer(s, id, res, 0, NULL);
	} else {
		struct buf msg = BUF_INIT(1024);

		buf_printf(&msg, "tandem does not offer %.100s", method);
		mcp_answer(s, id, NULL, -32601, buf_cstr(&msg));
		buf_release(&msg);
	}
}

static void mcp_on_progress(struct mcp_server *, const cJSON *params);

static void
mcp_on_notification(struct mcp_server *s, const char *method, const cJSON *params)
{
	if (strcmp(method, "notifications/tools/list_changed") == 0) {
		if (s->listing)
			s->list_again = true;
		else if (s->state == MCP_READY)
			mcp_list_tools(s, NULL);
	} else if (strcmp(method, "notifications/prompts/list_changed") == 0) {
		mcp_pager_start(s, MCP_PROMPTS);
	} else if (strcmp(method, "notifications/resources/list_changed") == 0) {
		mcp_pager_start(s, MCP_RESOURCES);
	} else if (strcmp(method, "notifications/progress") == 0) {
		mcp_on_progress(s, params);
	} else if (strcmp(method, "notifications/message") == 0) {
		char *d = json_print(json_get(params, "data"));

		if (s->notes.len < 8192)
			buf_printf(&s->notes, "log %s: %.200s\n", json_str(params, "level", "info"), d);
		free(d);
	}
}

static void mcp_on_call_result(struct mcp_call *, const cJSON *result, const cJSON *error);

static void
mcp_on_response(struct mcp_server *s, const cJSON *msg)
{
	const cJSON *id = json_get(msg, "id"), *res = json_get(msg, "result");
	const cJSON *err = json_get(msg, "error");
	struct mcp_pending *p;

	if (!cJSON_IsNumber(id) || (p = mcp_pending_take(s, (int64_t)id->valuedouble)) == NULL)
		return;	/* an answer to nothing, or to a call given up */
	if (p->kind == MCP_REQ_CALL) {
		mcp_on_call_result(p->call, res, err);
	} else if (p->kind == MCP_REQ_PAGE) {
		mcp_pager_answer(s, p->pager, res, err);
	} else if (p->kind == MCP_REQ_FETCH) {
		mcp_fetch_answer(p->fetch, res, err);
	} else if (err != NULL || !cJSON_IsObject(res)) {
		struct buf why = BUF_INIT(1024);

		buf_printf(&why, "it answered %s with an error: %.300s",
		    p->kind == MCP_REQ_INIT ? "initialize" : "tools/list",
		    json_str(err, "message", "no result"));
		if (p->kind == MCP_REQ_INIT)
			mcp_server_died(s, buf_cstr(&why));
		else {
			buf_printf(&s->notes, "%s\n", buf_cstr(&why));
			s->listing = false;
			if (s->state == MCP_STARTING) {
				cJSON_Delete(s->staged);
				s->staged = cJSON_CreateArray();
				mcp_maybe_ready(s);
			}
		}
		buf_release(&why);
	} else if (p->kind == MCP_REQ_INIT) {
		mcp_on_init(s, res);
	} else {
		mcp_on_list(s, res);
	}
	free(p);
}

/* One message from the server (a line of stdout, a JSON reply, an SSE event). */
static void
mcp_on_message(void *arg, const char *text, size_t n)
{
	struct mcp_server *s = arg;
	cJSON *msg = cJSON_ParseWithLength(text, n);
	const char *method;

	if (msg == NULL || !cJSON_IsObject(msg)) {
		s->skipped++;
		if (s->notes.len < 8192)
			buf_printf(&s->notes, "skipped output that is no JSON-RPC message: %.80s\n",
			    text);
		cJSON_Delete(msg);
		return;
	}
	if (cJSON_IsArray(msg)) {
		cJSON_Delete(msg);
		return;
	}
	method = json_str(msg, "method", NULL);
	if (method != NULL && json_get(msg, "id") != NULL)
		mcp_on_request(s, method, json_get(msg, "id"));
	else if (method != NULL)
		mcp_on_notification(s, method, json_get(msg, "params"));
	else
		mcp_on_response(s, msg);
	cJSON_Delete(msg);
}

static void
mcp_on_log(void *arg, const char *p, size_t n)
{
	(void)arg;
	(void)p;
	(void)n;
}

/* The last line of what the server wrote on stderr, for an error sentence. */
static void
mcp_log_tail(const struct mcp_server *s, struct buf *out)
{
	const char *log = s->io != NULL ? mcp_stdio_log(s->io) : "";
	size_t n = strlen(log);
	const char *end, *start;

	while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == '\r'))
		n--;
	end = log + n;
	for (start = end; start > log && start[-1] != '\n'; start--)
		;
	if (end > start)
		buf_printf(out, "; its log ends: %.*s", (int)(end - start > 300 ? 300 : end - start),
		    start);
}

static void
mcp_on_exit(void *arg, int status)
{
	struct mcp_server *s = arg;
	struct buf why = BUF_INIT(4096);

	if (status == -1)
		buf_puts(&why, "it exited");
	else if (WIFEXITED(status))
		buf_printf(&why, "it exited with status %d", WEXITSTATUS(status));
	else
		buf_printf(&why, "it was killed by signal %d", WIFSIGNALED(status) ?
		    WTERMSIG(status) : 0);
	if (s->io == NULL)
		goto out;	/* the exit of a handle already given up */
	mcp_log_tail(s, &why);
	mcp_server_died(s, buf_cstr(&why));
out:
	buf_release(&why);
}

static void
mcp_on_init_timeout(struct ev_loop *loop, void *arg)
{
	struct mcp_server *s = arg;

	(void)loop;
	s->init_timer = 0;
	mcp_server_died(s, "it did not finish starting within 30 s");
}

static void
mcp_on_http_fail(void *arg, const char *why)
{
	mcp_server_died(arg, why);
}

static void
mcp_server_start(struct mcp_server *s)
{
	static const struct mcp_stdio_ops ops_proto = { mcp_on_message, mcp_on_log, mcp_on_exit, NULL };
	struct mcp_stdio_ops ops = ops_proto;
	struct buf err = BUF_INIT(4096);
	cJSON *params, *caps, *info;

	free(s->error);
	s->error = NULL;
	s->state = MCP_STARTING;
	s->listing = s->list_again = false;
	if (s->cfg.type == MCP_STDIO) {
		ops.arg = s;
		s->io = mcp_stdio_start(s->m->loop, &s->cfg, s->m->root, &ops, &err);
	} else {
		struct mcp_http_ops hops = { mcp_on_message, mcp_on_http_fail, s };

		s->hc = mcp_http_new(s->m->loop, s->m->http, &s->cfg, &hops, &err);
	}
	if (s->io == NULL && s->hc == NULL) {
		mcp_server_died(s, buf_cstr(&err));
		buf_release(&err);
		return;
	}
	buf_release(&err);
	s->init_timer = ev_timer_add(s->m->loop, MCP_INIT_TIMEOUT_MS, mcp_on_init_timeout, s);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "protocolVersion", mcp_versions[0]);
	caps = cJSON_AddObjectToObject(params, "capabilities");
	cJSON_AddFalseToObject(cJSON_AddObjectToObject(caps, "roots"), "listChanged");
	info = cJSON_AddObjectToObject(params, "clientInfo");
	cJSON_AddStringToObject(info, "name", "tandem");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	if (mcp_request(s, MCP_REQ_INIT, "initialize", params, NULL) == -1)
		mcp_server_died(s, "it did not take its first message");
}

static void
mcp_free_zombie(struct ev_loop *loop, void *arg)
{
	struct mcp_server *s = arg;

	(void)loop;
	s->zombie_timer = 0;
	mcp_stdio_dispose(s->zombie);
	s->zombie = NULL;
	mcp_http_free(s->hzombie);
	s->hzombie = NULL;
}

static void
mcp_server_died(struct mcp_server *s, const char *why)
{
	struct mcp_pending *p, *next;
	struct mcp_call *c, *cnext;
	int64_t backoff = 1000;
	int i;

	if (s->state == MCP_DEAD)
		return;
	if (s->init_timer != 0)
		ev_timer_cancel(s->m->loop, s->init_timer);
	s->init_timer = 0;
	s->state = MCP_DEAD;
	free(s->error);
	s->error = xstrdup(why);
	for (i = 0; i < s->fails && backoff < MCP_BACKOFF_MAX_MS; i++)
		backoff *= 2;
	s->fails++;
	s->retry_at = ev_now_ms() + (backoff > MCP_BACKOFF_MAX_MS ? MCP_BACKOFF_MAX_MS : backoff);
	for (p = s->pending, s->pending = NULL; p != NULL; p = next) {
		next = p->next;
		if (p->call != NULL)
			mcp_call_finish(p->call, true, "the MCP server %s failed during this call: %s. "
			    "It is started again when one of its tools is next called.",
			    s->cfg.name, why);
		if (p->fetch != NULL)
			mcp_fetch_failed(p->fetch, why);
		free(p);
	}
	for (c = s->queued, s->queued = NULL; c != NULL; c = cnext) {
		cnext = c->next;
		c->next = NULL;
		mcp_call_finish(c, true, "the MCP server %s could not be started: %s", s->cfg.name,
		    why);
	}
	/* Not freed here: this may run inside one of the handle's own callbacks. */
	if (s->io != NULL) {
		s->zombie = s->io;
		s->io = NULL;
	}
	if (s->hc != NULL) {
		s->hzombie = s->hc;
		s->hc = NULL;
	}
	if ((s->zombie != NULL || s->hzombie != NULL) && s->zombie_timer == 0)
		s->zombie_timer = ev_timer_add(s->m->loop, 0, mcp_free_zombie, s);
	s->listing = false;
	cJSON_Delete(s->acc);
	s->acc = NULL;
	for (i = 0; i < MCP_PAGERS; i++) {
		s->pager[i].busy = s->pager[i].again = false;
		cJSON_Delete(s->pager[i].acc);
		s->pager[i].acc = NULL;
	}
	mcp_check_wait(s->m);
}

/* --- calls ------------------------------------------------------------------- */

static void
mcp_call_free(struct mcp_call *c)
{
	free(c->remote);
	free(c->id);
	cJSON_Delete(c->args);
	tool_out_release(&c->out);
	free(c);
}

static void
mcp_call_fire(struct ev_loop *loop, void *arg)
{
	struct mcp_call *c = arg;

	(void)loop;
	c->fire = 0;
	c->done(c->arg, &c->out, ev_now_ms() - c->t0);
	mcp_call_free(c);
}

/* The call has its result: done comes on the next loop turn. */
static void
mcp_call_over(struct mcp_call *c)
{
	c->over = true;
	if (c->timer != 0)
		ev_timer_cancel(c->m->loop, c->timer);
	c->timer = 0;
	if (c->srv != NULL && c->rpc_id != 0)
		mcp_pending_drop_call(c->srv, c);
	c->fire = ev_timer_add(c->m->loop, 0, mcp_call_fire, c);
}

static void
mcp_call_finish(struct mcp_call *c, bool is_error, const char *fmt, ...)
{
	va_list ap;

	if (c->over)
		return;
	buf_reset(&c->out.text);
	va_start(ap, fmt);
	buf_vprintf(&c->out.text, fmt, ap);
	va_end(ap);
	c->out.is_error = is_error;
	mcp_call_over(c);
}

static void
mcp_call_cancelled(struct mcp_call *c, const char *reason)
{
	cJSON *params;

	if (c->srv != NULL && c->rpc_id != 0 && c->srv->state == MCP_READY) {
		params = cJSON_CreateObject();
		cJSON_AddNumberToObject(params, "requestId", (double)c->rpc_id);
		cJSON_AddStringToObject(params, "reason", reason);
		mcp_notify(c->srv, "notifications/cancelled", params);
	}
}

static void
mcp_on_call_timeout(struct ev_loop *loop, void *arg)
{
	struct mcp_call *c = arg;
	long ms = c->m->o.timeout_ms;

	(void)loop;
	c->timer = 0;
	mcp_call_cancelled(c, "timed out");
	if (c->progressed != 0 && ev_now_ms() - c->t0 >= (int64_t)ms * MCP_PROGRESS_TIMES)
		mcp_call_finish(c, true, "the MCP server %s told progress but did not answer this "
		    "call within %ld s in all (%d times the setting mcp.timeout_ms); it was cancelled",
		    c->srv->cfg.name, ms * MCP_PROGRESS_TIMES / 1000, MCP_PROGRESS_TIMES);
	else if (c->progressed != 0)
		mcp_call_finish(c, true, "the MCP server %s neither answered this call nor told "
		    "progress for %ld s; it was cancelled (the limit is the setting mcp.timeout_ms)",
		    c->srv->cfg.name, ms / 1000);
	else
		mcp_call_finish(c, true, "the MCP server %s did not answer this call within %ld s; it "
		    "was cancelled (the limit is the setting mcp.timeout_ms)", c->srv->cfg.name,
		    ms / 1000);
}

/*
 * notifications/progress of a call in flight: shown as its live output,
 * and its timeout starts again, up to MCP_PROGRESS_TIMES the limit in all.
 */
static void
mcp_on_progress(struct mcp_server *s, const cJSON *params)
{
	const cJSON *tok = json_get(params, "progressToken"), *total = json_get(params, "total");
	const struct mcp_pending *p;
	struct mcp_call *c = NULL;
	struct buf line = BUF_INIT(4096);
	int64_t now = ev_now_ms(), limit = s->m->o.timeout_ms, left;

	if (!cJSON_IsNumber(tok))
		return;
	for (p = s->pending; p != NULL && c == NULL; p = p->next)
		if (p->kind == MCP_REQ_CALL && p->call != NULL && !p->call->over &&
		    p->call->token == (int64_t)tok->valuedouble)
			c = p->call;
	if (c == NULL)
		return;
	c->progressed = now;
	left = c->t0 + limit * MCP_PROGRESS_TIMES - now;
	if (c->timer != 0 && left > 0) {
		ev_timer_cancel(s->m->loop, c->timer);
		c->timer = ev_timer_add(s->m->loop, left < limit ? left : limit, mcp_on_call_timeout, c);
	}
	if (c->progress == NULL)
		return;
	buf_printf(&line, "progress %g", json_num(params, "progress", 0));
	if (cJSON_IsNumber(total))
		buf_printf(&line, "/%g", total->valuedouble);
	if (json_str(params, "message", NULL) != NULL)
		buf_printf(&line, ": %.200s", json_str(params, "message", ""));
	buf_putc(&line, '\n');
	c->progress(c->arg, line.data, line.len);
	buf_release(&line);
}

static void
mcp_send_call(struct mcp_call *c)
{
	cJSON *params = cJSON_CreateObject();
	int64_t id;

	cJSON_AddStringToObject(params, "name", c->remote);
	cJSON_AddItemToObject(params, "arguments", cJSON_Duplicate(c->args, 1));
	/* a server that tells progress keeps the call alive (mcp_on_progress) */
	c->token = ++mcp_tokens;
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "_meta"), "progressToken",
	    (double)c->token);
	id = mcp_request(c->srv, MCP_REQ_CALL, "tools/call", params, c);
	if (id == -1) {
		mcp_call_finish(c, true, "the MCP server %s did not take the call", c->srv->cfg.name);
		return;
	}
	c->rpc_id = id;
}

/* Spill text past the cap to the session directory, and cut it. */
static void
mcp_cap(struct mcp_call *c)
{
	struct buf *t = &c->out.text;
	const char *dir = c->m->o.env != NULL ? c->m->o.env->session_dir : NULL;
	struct buf path = BUF_INIT(BUF_NOLIMIT), clean = BUF_INIT(BUF_NOLIMIT);
	size_t total = t->len, keep = MCP_RESULT_CAP;
	int fd = -1;

	if (total <= MCP_RESULT_CAP)
		return;
	while (keep > 0 && ((unsigned char)t->data[keep] & 0xc0) == 0x80)
		keep--;
	if (dir != NULL) {
		char *name = mcp_sanitize(c->id, false, 64);

		buf_printf(&path, "%s/mcp-%s.txt", dir, name);
		free(name);
		fd = open(buf_cstr(&path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		/* The file is the whole result as the model may read it: keys redacted, as in the result. */
		redact_text(t->data, total, &clean);
		if (fd != -1 && write(fd, clean.data, clean.len) != (ssize_t)clean.len) {
			close(fd);
			unlink(buf_cstr(&path));
			fd = -1;
		}
		if (fd != -1)
			close(fd);
	}
	buf_truncate(t, keep);
	buf_printf(t, "\n[the result was cut at %zu of %zu bytes", keep, total);
	if (fd != -1)
		buf_printf(t, "; all of it is in %s (read it in parts with read_file)", buf_cstr(&path));
	buf_puts(t, "]");
	buf_release(&path);
	buf_release(&clean);
}

static void
mcp_content_block(struct mcp_call *c, const cJSON *b, size_t *image_bytes)
{
	const char *type = json_str(b, "type", "");
	struct buf *t = &c->out.text;

	if (t->len > 0 && t->data[t->len - 1] != '\n' && strcmp(type, "image") != 0)
		buf_putc(t, '\n');
	if (strcmp(type, "text") == 0) {
		buf_puts(t, json_str(b, "text", ""));
	} else if (strcmp(type, "image") == 0) {
		const char *data = json_str(b, "data", ""), *mime = json_str(b, "mimeType", "");
		cJSON *img, *src;

		if (strncmp(mime, "image/", 6) != 0 || *image_bytes + strlen(data) > MCP_IMAGES_MAX) {
			buf_printf(t, "[an image (%s) was left out: %s]", mime,
			    strncmp(mime, "image/", 6) != 0 ? "not an image type" : "too large");
			return;
		}
		*image_bytes += strlen(data);
		if (c->out.blocks == NULL)
			c->out.blocks = cJSON_CreateArray();
		img = cJSON_CreateObject();
		cJSON_AddStringToObject(img, "type", "image");
		src = cJSON_AddObjectToObject(img, "source");
		cJSON_AddStringToObject(src, "type", "base64");
		cJSON_AddStringToObject(src, "media_type", mime);
		cJSON_AddStringToObject(src, "data", data);
		cJSON_AddItemToArray(c->out.blocks, img);
	} else if (strcmp(type, "resource_link") == 0) {
		buf_printf(t, "[resource link: %s <%s>%s%s%s]", json_str(b, "name", ""),
		    json_str(b, "uri", ""), json_get(b, "mimeType") != NULL ? " (" : "",
		    json_str(b, "mimeType", ""), json_get(b, "mimeType") != NULL ? ")" : "");
		if (json_get(b, "description") != NULL)
			buf_printf(t, " %s", json_str(b, "description", ""));
	} else if (strcmp(type, "resource") == 0) {
		const cJSON *r = json_get(b, "resource");

		if (json_get(r, "text") != NULL)
			buf_printf(t, "[resource %s]\n%s", json_str(r, "uri", ""), json_str(r, "text", ""));
		else
			buf_printf(t, "[resource %s (%s, binary) not shown]", json_str(r, "uri", ""),
			    json_str(r, "mimeType", "?"));
	} else {
		buf_printf(t, "[a %s block was left out]", type);
	}
}

static void
mcp_on_call_result(struct mcp_call *c, const cJSON *result, const cJSON *error)
{
	const cJSON *content = json_get(result, "content"), *b;
	const cJSON *structured = json_get(result, "structuredContent");
	size_t image_bytes = 0;

	c->rpc_id = 0;	/* answered: nothing to drop or cancel */
	if (error != NULL || !cJSON_IsObject(result)) {
		mcp_call_finish(c, true, "the MCP server %s refused the call: %s (code %d)",
		    c->srv->cfg.name, json_str(error, "message", "no result"),
		    (int)json_int(error, "code", 0));
		return;
	}
	buf_reset(&c->out.text);
	cJSON_ArrayForEach(b, content)
		mcp_content_block(c, b, &image_bytes);
	if (structured != NULL && c->out.text.len == 0) {
		char *s = json_print(structured);

		buf_puts(&c->out.text, s);
		free(s);
	}
	if (c->out.text.len == 0 && c->out.blocks == NULL)
		buf_puts(&c->out.text, "(the tool returned nothing)");
	c->out.is_error = json_bool(result, "isError", false);
	mcp_cap(c);
	mcp_call_over(c);
}

static void *
mcp_tool_start(const struct tool_def *def, const cJSON *input, const char *id,
    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg)
{
	struct mcp_tool *t = def->owner;
	struct mcp_server *s = t->srv;
	struct mcp_call *c = xcalloc(1, sizeof *c);
	int64_t now = ev_now_ms();

	c->m = s->m;
	c->srv = s;
	c->remote = xstrdup(t->remote);
	c->id = xstrdup(id);
	c->args = cJSON_IsObject(input) ? cJSON_Duplicate(input, 1) : cJSON_CreateObject();
	c->done = done;
	c->progress = progress;
	c->arg = arg;
	c->t0 = now;
	tool_out_init(&c->out);
	c->timer = ev_timer_add(s->m->loop, s->m->o.timeout_ms, mcp_on_call_timeout, c);
	if (s->state == MCP_DEAD && (now < s->retry_at || s->zombie != NULL ||
	    s->hzombie != NULL)) {
		mcp_call_finish(c, true, "the MCP server %s is down (%s); tandem starts it again "
		    "in %lld s, when one of its tools is called", s->cfg.name,
		    s->error != NULL ? s->error : "it failed",
		    (long long)((s->retry_at - now + 999) / 1000));
		return c;
	}
	if (s->state == MCP_DEAD || s->state == MCP_OFF) {
		if (s->state == MCP_OFF) {
			mcp_call_finish(c, true, "the MCP server %s is not running: %s", s->cfg.name,
			    s->error != NULL ? s->error : "it is not approved");
			return c;
		}
		mcp_server_start(s);
	}
	if (s->state == MCP_READY)
		mcp_send_call(c);
	else if (s->state == MCP_STARTING) {
		struct mcp_call **pp = &s->queued;

		while (*pp != NULL)
			pp = &(*pp)->next;
		*pp = c;
	} else
		mcp_call_finish(c, true, "the MCP server %s could not be started: %s", s->cfg.name,
		    s->error != NULL ? s->error : "it failed");
	return c;
}

static void
mcp_tool_cancel(void *job)
{
	struct mcp_call *c = job;
	struct mcp_call **pp;

	if (c->over)
		return;
	for (pp = &c->srv->queued; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	mcp_call_cancelled(c, "interrupted by the user");
	mcp_call_finish(c, true, "interrupted: the call was cancelled");
}

const struct tool_async mcp_tool_async = { mcp_tool_start, mcp_tool_cancel };

/* --- the proxy ----------------------------------------------------------------- */

static bool
mcp_matches(const struct mcp_tool *t, const char *query)
{
	char word[128];
	const char *p = query;

	while (*p != '\0') {
		size_t n;

		while (*p == ' ' || *p == ',')
			p++;
		n = strcspn(p, " ,");
		if (n == 0)
			break;
		if (n == 1 && *p == '*')
			return true;
		if (n >= sizeof word)
			n = sizeof word - 1;
		memcpy(word, p, n);
		word[n] = '\0';
		if (strcasestr(t->name, word) != NULL || strcasestr(t->desc, word) != NULL)
			return true;
		p += n;
	}
	return false;
}

static void *
mcp_proxy_start(const struct tool_def *def, const cJSON *input, const char *id,
    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg)
{
	struct mcp *m = def->owner;
	struct mcp_call *c = xcalloc(1, sizeof *c);
	const char *q = json_str(input, "search", "*");
	size_t i, k, found = 0;

	c->m = m;
	c->id = xstrdup(id);
	c->done = done;
	c->arg = arg;
	c->t0 = ev_now_ms();
	tool_out_init(&c->out);
	for (i = 0; i < m->n; i++) {
		const struct mcp_toolset *ts = m->srv[i].tools;

		for (k = 0; ts != NULL && k < ts->n && found < 20; k++) {
			if (!mcp_matches(&ts->v[k], q[0] != '\0' ? q : "*"))
				continue;
			found++;
			buf_printf(&c->out.text, "%s\n  %s\n  input schema: %s\n\n", ts->v[k].name,
			    ts->v[k].desc, ts->v[k].schema);
		}
	}
	if (found == 0)
		buf_printf(&c->out.text, "no MCP tool matches \"%s\"; search \"*\" for all of them", q);
	else
		buf_puts(&c->out.text, "Call one with {\"tool\": NAME, \"arguments\": {...}}.");
	mcp_cap(c);
	mcp_call_over(c);
	return c;
}

static void
mcp_proxy_cancel(void *job)
{
	(void)job;	/* a search is over before anyone could cancel it */
}

static const struct tool_async mcp_proxy_async = { mcp_proxy_start, mcp_proxy_cancel };

static const struct mcp_tool *
mcp_tool_lookup(const struct mcp *m, const char *name)
{
	size_t i, k;

	for (i = 0; i < m->n; i++) {
		const struct mcp_toolset *ts = m->srv[i].tools;

		for (k = 0; ts != NULL && k < ts->n; k++)
			if (strcmp(ts->v[k].name, name) == 0)
				return &ts->v[k];
	}
	return NULL;
}

const struct tool_def *
mcp_find(void *arg, const char *name)
{
	struct mcp *m = arg;
	const struct mcp_tool *t;

	if (m == NULL || m->n == 0)
		return NULL;
	if (strcmp(name, MCP_PROXY_TOOL) == 0)
		return m->deferred ? &m->proxy : NULL;
	t = mcp_tool_lookup(m, name);
	return t != NULL ? &t->def : NULL;
}

int
mcp_resolve(struct mcp *m, char **name, cJSON **input, struct buf *why)
{
	const char *tool;
	const cJSON *args;

	if (m == NULL || !m->deferred || strcmp(*name, MCP_PROXY_TOOL) != 0)
		return 1;
	tool = json_str(*input, "tool", NULL);
	if (tool == NULL)
		return 1;
	if (mcp_tool_lookup(m, tool) == NULL) {
		buf_printf(why, "there is no MCP tool named \"%s\"; search for it first with "
		    "{\"search\": \"words\"}", tool);
		return -1;
	}
	args = json_get(*input, "arguments");
	if (args != NULL && !cJSON_IsObject(args)) {
		buf_puts(why, "\"arguments\" must be an object: the tool's input");
		return -1;
	}
	free(*name);
	*name = xstrdup(tool);
	args = args != NULL ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	cJSON_Delete(*input);
	*input = (cJSON *)args;
	return 0;
}

/* --- the registry --------------------------------------------------------- */

struct mcp *
mcp_new(struct ev_loop *loop, struct http *http, struct mcp_config *mc, const struct mcp_opts *o)
{
	struct mcp *m = xcalloc(1, sizeof *m);
	size_t i;

	m->loop = loop;
	m->http = http;
	m->o = *o;
	if (m->o.timeout_ms <= 0)
		m->o.timeout_ms = MCP_TIMEOUT_MS;
	if (m->o.defer_bytes == 0)
		m->o.defer_bytes = MCP_DEFER_BYTES;
	if (m->o.start_wait_ms <= 0)
		m->o.start_wait_ms = MCP_START_WAIT_MS;
	m->root = xstrdup(o->root != NULL ? o->root : "/");
	m->n = mc->n;
	m->srv = xcalloc(mc->n + 1, sizeof *m->srv);
	for (i = 0; i < mc->n; i++) {
		struct mcp_server *s = &m->srv[i];

		s->m = m;
		s->cfg = mc->v[i];
		buf_init(&s->notes, 64 * 1024);
		s->state = MCP_OFF;
		if (s->cfg.error != NULL)
			s->error = xstrdup(s->cfg.error);
		else if (!s->cfg.approved)
			s->error = xstrdup("a project's server, not yet approved (tandem mcp approve)");
	}
	free(mc->v);
	mcp_config_init(mc);
	m->proxy.name = MCP_PROXY_TOOL;
	m->proxy.description = mcp_proxy_desc;
	m->proxy.schema = mcp_proxy_schema;
	m->proxy.cls = TOOL_READ_ONLY;
	m->proxy.async = &mcp_proxy_async;
	m->proxy.owner = m;
	return m;
}

void
mcp_start(struct mcp *m)
{
	size_t i;

	if (m == NULL)
		return;
	m->started = ev_now_ms();
	for (i = 0; i < m->n; i++)
		if (m->srv[i].error == NULL) {
			m->srv[i].first = true;
			mcp_server_start(&m->srv[i]);
		}
	mcp_check_wait(m);
}

void
mcp_free(struct mcp *m)
{
	size_t i;

	if (m == NULL)
		return;
	if (m->wait_timer != 0)
		ev_timer_cancel(m->loop, m->wait_timer);
	if (m->wait_check != 0)
		ev_timer_cancel(m->loop, m->wait_check);
	for (i = 0; i < m->n; i++) {
		struct mcp_server *s = &m->srv[i];
		struct mcp_pending *p, *next;

		if (s->init_timer != 0)
			ev_timer_cancel(m->loop, s->init_timer);
		for (p = s->pending; p != NULL; p = next) {
			next = p->next;
			free(p);
		}
		if (s->zombie_timer != 0)
			ev_timer_cancel(m->loop, s->zombie_timer);
		mcp_stdio_free(s->zombie);
		mcp_stdio_free(s->io);
		mcp_http_free(s->hzombie);
		mcp_http_free(s->hc);
		cJSON_Delete(s->acc);
		cJSON_Delete(s->staged);
		mcp_toolset_free(s->tools);
		mcp_pagers_release(s);
		free(s->error);
		free(s->version);
		buf_release(&s->notes);
		mcp_server_cfg_release(&s->cfg);
	}
	free(m->srv);
	free(m->root);
	free(m);
}

int
mcp_count(const struct mcp *m, int *ready)
{
	size_t i;
	int n = 0;

	*ready = 0;
	for (i = 0; m != NULL && i < m->n; i++) {
		n++;
		if (m->srv[i].state == MCP_READY)
			(*ready)++;
	}
	return n;
}

bool
mcp_starting(const struct mcp *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->srv[i].first && m->srv[i].state == MCP_STARTING)
			return true;
	return false;
}

/* No wait for the servers' first start is running any more. */
static void
mcp_wait_stop(struct mcp *m)
{
	if (m->wait_timer != 0)
		ev_timer_cancel(m->loop, m->wait_timer);
	if (m->wait_check != 0)
		ev_timer_cancel(m->loop, m->wait_check);
	m->wait_timer = m->wait_check = 0;
	m->wait_fn = NULL;
}

static void
mcp_wait_over(struct ev_loop *loop, void *arg)
{
	struct mcp *m = arg;
	void (*fn)(void *) = m->wait_fn;

	(void)loop;
	mcp_wait_stop(m);
	/* The time is up for every server's first start. */
	m->started = ev_now_ms() - m->o.start_wait_ms;
	if (fn != NULL)
		fn(m->wait_arg);
}

void
mcp_on_change(struct mcp *m, void (*fn)(void *, int ready, int total), void *arg)
{
	if (m == NULL)
		return;
	m->changed = fn;
	m->changed_arg = arg;
	m->told_ready = -1;
}

/* Called on every state change: the owner hears of a new count of ready servers. */
static void
mcp_check_wait(struct mcp *m)
{
	int ready, total = mcp_count(m, &ready);

	if (m->changed != NULL && ready != m->told_ready) {
		m->told_ready = ready;
		m->changed(m->changed_arg, ready, total);
	}
	if (m->wait_fn != NULL && !mcp_starting(m) && m->wait_check == 0)
		m->wait_check = ev_timer_add(m->loop, 0, mcp_wait_over, m);
}

bool
mcp_wait(struct mcp *m, void (*fn)(void *), void *arg)
{
	int64_t left;

	if (m == NULL || m->wait_fn != NULL || !mcp_starting(m))
		return false;
	left = m->started + m->o.start_wait_ms - ev_now_ms();
	if (left <= 0)
		return false;
	m->wait_fn = fn;
	m->wait_arg = arg;
	m->wait_timer = ev_timer_add(m->loop, left, mcp_wait_over, m);
	return true;
}

void
mcp_wait_cancel(struct mcp *m)
{
	if (m == NULL || m->wait_fn == NULL)
		return;
	mcp_wait_stop(m);
}

bool
mcp_sync(struct mcp *m, struct buf *servers)
{
	bool changed = false, deferred;
	size_t i, bytes = 0;

	if (m == NULL)
		return false;
	for (i = 0; i < m->n; i++) {
		struct mcp_server *s = &m->srv[i];
		struct mcp_toolset *ts;

		if (s->staged == NULL)
			continue;
		if (servers != NULL && s->tools != NULL)
			buf_printf(servers, "%s%s", servers->len > 0 ? "," : "", s->cfg.name);
		ts = mcp_toolset_build(s, s->staged, &s->notes);
		if (s->cfg.project && s->cfg.tools_hash[0] != '\0') {
			char h[65];

			mcp_toolset_hash(ts, h);
			s->reask = strcmp(h, s->cfg.tools_hash) != 0;
			if (s->reask) {
				/* Third-party text nobody has read does not go into the prompt. */
				cJSON *none = cJSON_CreateArray();

				mcp_toolset_free(ts);
				ts = mcp_toolset_build(s, none, NULL);
				cJSON_Delete(none);
			}
		}
		cJSON_Delete(s->staged);
		s->staged = NULL;
		ts->older = s->tools;
		s->tools = ts;
		changed = true;
	}
	for (i = 0; i < m->n; i++)
		if (m->srv[i].tools != NULL)
			bytes += m->srv[i].tools->bytes;
	deferred = m->o.defer_bytes > 0 && bytes > (size_t)m->o.defer_bytes;
	if (deferred != m->deferred)
		changed = true;
	m->deferred = deferred;
	return changed;
}

static void
mcp_tool_json(cJSON *arr, const char *name, const char *desc, const char *schema)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "description", desc);
	cJSON_AddItemToObject(o, "input_schema", cJSON_Parse(schema));
	cJSON_AddItemToArray(arr, o);
}

void
mcp_tools_json(struct mcp *m, cJSON *arr)
{
	size_t i, k;

	if (m == NULL || m->n == 0)
		return;
	if (m->deferred) {
		mcp_tool_json(arr, m->proxy.name, m->proxy.description, m->proxy.schema);
		return;
	}
	for (i = 0; i < m->n; i++) {
		const struct mcp_toolset *ts = m->srv[i].tools;

		for (k = 0; ts != NULL && k < ts->n; k++)
			mcp_tool_json(arr, ts->v[k].name, ts->v[k].desc, ts->v[k].schema);
	}
}

const char *
mcp_server_of(struct mcp *m, const char *tool_name)
{
	const struct mcp_tool *t = m != NULL ? mcp_tool_lookup(m, tool_name) : NULL;

	return t != NULL ? t->srv->cfg.name : NULL;
}

void
mcp_servers_json(const struct mcp *m, cJSON *arr)
{
	static const char *const cc[] = { "pending", "pending", "connected", "failed" };
	size_t i;

	for (i = 0; m != NULL && i < m->n; i++) {
		const struct mcp_server *s = &m->srv[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", s->cfg.name);
		cJSON_AddStringToObject(o, "status", s->cfg.error != NULL || !s->cfg.approved ?
		    "disabled" : cc[s->state]);
		cJSON_AddItemToArray(arr, o);
	}
}

struct mcp *
mcp_from_config(struct ev_loop *loop, struct http *http, const struct config *cfg,
    const struct tool_env *env, struct buf *warnings)
{
	struct mcp_config mc;
	struct mcp_opts o;
	const cJSON *it;
	struct mcp *m;

	mcp_config_init(&mc);
	mcp_config_load(&mc, cfg, warnings);
	cJSON_ArrayForEach(it, cfg->mcp_flags) {
		struct buf err = BUF_INIT(8192);

		if (cJSON_IsString(it) && mcp_config_add_arg(&mc, it->valuestring, &err) == -1)
			buf_printf(warnings, "tandem: %s\n", buf_cstr(&err));
		buf_release(&err);
	}
	if (mc.n == 0) {
		mcp_config_release(&mc);
		return NULL;
	}
	memset(&o, 0, sizeof o);
	o.timeout_ms = cfg->mcp_timeout_ms;
	o.defer_bytes = cfg->mcp_defer_bytes;
	o.start_wait_ms = cfg->mcp_start_wait_ms;
	o.root = cfg->root;
	o.env = env;
	m = mcp_new(loop, http, &mc, &o);
	mcp_config_release(&mc);
	return m;
}

int
mcp_resolve_cb(void *arg, char **name, cJSON **input, struct buf *why)
{
	return mcp_resolve(arg, name, input, why);
}

int
mcp_inject(struct mcp *m, const char *name, const cJSON *tools)
{
	struct mcp_config mc;
	struct buf err = BUF_INIT(1024);
	struct mcp_server *s;
	cJSON *doc = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(doc, name);
	size_t i;

	cJSON_AddStringToObject(e, "command", "true");
	mcp_config_init(&mc);
	if (mcp_config_add_json(&mc, doc, "mcp_inject", false, &err) == -1 || mc.n != 1) {
		cJSON_Delete(doc);
		mcp_config_release(&mc);
		buf_release(&err);
		return -1;
	}
	cJSON_Delete(doc);
	buf_release(&err);
	for (i = 0; i < m->n && strcmp(m->srv[i].cfg.name, name) != 0; i++)
		;
	if (i == m->n) {
		m->srv = xreallocarray(m->srv, m->n + 1, sizeof *m->srv);
		memset(&m->srv[m->n], 0, sizeof m->srv[m->n]);
		s = &m->srv[m->n++];
		s->m = m;
		s->cfg = mc.v[0];
		buf_init(&s->notes, 64 * 1024);
		free(mc.v);
	} else {
		s = &m->srv[i];
		mcp_config_release(&mc);
	}
	s->state = MCP_READY;
	cJSON_Delete(s->staged);
	s->staged = cJSON_Duplicate(tools, 1);
	return 0;
}
