/* An MCP server over HTTP: see mcp_http.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "ev.h"
#include "model/http.h"
#include "mcp_config.h"
#include "mcp_http.h"
#include "model/sse.h"
#include "xalloc.h"

#define MCP_HTTP_BODY_MAX	(32u * 1024 * 1024)

struct mcp_hreq;

struct mcp_httpc {
	struct ev_loop		*loop;
	struct http		*http;
	struct mcp_http_ops	 ops;
	char			*url;
	char			**headers;	/* the configuration's, "Name: value" */
	char			*session;	/* Mcp-Session-Id */
	char			*version;
	bool			 legacy;	/* HTTP+SSE */
	bool			 tried_post;	/* the first POST got an answer */
	bool			 failed;
	char			*endpoint;	/* legacy: where to POST */
	struct mcp_hreq		*stream;	/* legacy: the GET */
	struct buf		 held;		/* legacy: messages before the endpoint, one a line */
	char			*first;		/* the first message, resent on a fallback */
	struct mcp_hreq		*reqs;
	/*
	 * Messages to POST, one a line: sent from a loop timer, since a send
	 * may come from inside one of curl's callbacks, where curl takes no
	 * new request.
	 */
	struct buf		 out;
	uint64_t		 out_timer;
	bool			 want_listen;	/* open the GET stream for the server's own messages */
	bool			 listening;
};

struct mcp_hreq {
	struct mcp_httpc	*hc;
	struct http_req		*req;
	struct mcp_hreq		*next;
	struct sse		 sse;
	struct buf		 body;
	long			 status;
	bool			 is_sse;
	bool			 is_first;
	bool			 is_stream;
	bool			 is_listen;	/* streamable HTTP's optional GET stream */
};

static void mcp_http_legacy(struct mcp_httpc *);
static int mcp_http_send_raw(struct mcp_httpc *, const char *, size_t);

/* The held messages go out again, before anything queued after them. */
static void
mcp_http_requeue(struct mcp_httpc *hc)
{
	if (hc->held.len == 0)
		return;
	buf_append(&hc->held, hc->out.data != NULL ? hc->out.data : "", hc->out.len);
	buf_release(&hc->out);
	hc->out = hc->held;
	buf_init(&hc->held, MCP_HTTP_BODY_MAX);
	(void)mcp_http_send_raw(hc, "", 0);
}

static void
mcp_http_fail(struct mcp_httpc *hc, const char *why)
{
	if (hc->failed)
		return;
	hc->failed = true;
	hc->ops.fail(hc->ops.arg, why);
}

static void
mcp_hreq_unlink(struct mcp_hreq *r)
{
	struct mcp_hreq **pp;

	for (pp = &r->hc->reqs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	if (r->hc->stream == r)
		r->hc->stream = NULL;
	sse_release(&r->sse);
	buf_release(&r->body);
	free(r);
}

static void
mcp_hreq_event(void *arg, const char *event, const char *data, size_t len)
{
	struct mcp_hreq *r = arg;
	struct mcp_httpc *hc = r->hc;

	if (r->is_stream && strcmp(event, "endpoint") == 0) {
		struct buf u = BUF_INIT(BUF_NOLIMIT);
		const char *p, *q;

		if (strncmp(data, "http://", 7) == 0 || strncmp(data, "https://", 8) == 0)
			buf_append(&u, data, len);
		else {
			/* Relative to the stream's origin. */
			p = strstr(hc->url, "://");
			q = p != NULL ? strchr(p + 3, '/') : NULL;
			buf_append(&u, hc->url, q != NULL ? (size_t)(q - hc->url) : strlen(hc->url));
			if (len == 0 || data[0] != '/')
				buf_putc(&u, '/');
			buf_append(&u, data, len);
		}
		free(hc->endpoint);
		hc->endpoint = buf_detach(&u, NULL);
		/* What waited for the endpoint goes now. */
		mcp_http_requeue(hc);
		return;
	}
	if (len > 0 && (event[0] == '\0' || strcmp(event, "message") == 0))
		hc->ops.message(hc->ops.arg, data, len);
}

static void
mcp_hreq_headers(void *arg, struct http_req *req, long status)
{
	struct mcp_hreq *r = arg;
	const char *ct = http_header(req, "content-type");
	const char *sid = http_header(req, "mcp-session-id");

	r->status = status;
	r->is_sse = ct != NULL && strncasecmp(ct, "text/event-stream", 17) == 0;
	if (sid != NULL && r->hc->session == NULL && status / 100 == 2)
		r->hc->session = xstrdup(sid);
}

static int
mcp_hreq_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct mcp_hreq *r = arg;

	http_progress(req);
	if (r->status / 100 == 2 && r->is_sse)
		return sse_feed(&r->sse, p, n) == -1 ? -1 : 0;
	return buf_append(&r->body, p, n) == -1 ? -1 : 0;
}

static void
mcp_hreq_done(void *arg, struct http_req *req, const struct http_result *res)
{
	struct mcp_hreq *r = arg;
	struct mcp_httpc *hc = r->hc;
	struct buf why = BUF_INIT(4096);

	(void)req;
	r->req = NULL;
	if (r->is_listen) {
		/* Optional (405: the server offers none): its end is no failure. */
		if (r->is_sse)
			sse_finish(&r->sse);
		mcp_hreq_unlink(r);
		buf_release(&why);
		return;
	}
	if (r->is_first && !hc->legacy && (res->status == 400 || res->status == 404 ||
	    res->status == 405)) {
		/* No streamable HTTP here: try the older transport. */
		mcp_hreq_unlink(r);
		buf_release(&why);
		mcp_http_legacy(hc);
		return;
	}
	if (res->status == 401 || res->status == 403)
		buf_printf(&why, "%s answered %ld: it wants OAuth sign-in or a token, and tandem does "
		    "not sign in for you; give the token in the server's \"headers\", e.g. "
		    "\"Authorization\": \"Bearer ${TOKEN}\"", hc->url, res->status);
	else if (res->fail != HTTP_OK && !(r->is_stream && res->fail == HTTP_ABORTED))
		buf_printf(&why, "%s: %s", hc->url, res->error != NULL && res->error[0] != '\0' ?
		    res->error : "the request failed");
	else if (res->status == 404 && hc->session != NULL)
		buf_puts(&why, "the server ended the session (404)");
	else if (res->status / 100 != 2)
		buf_printf(&why, "%s answered HTTP %ld: %.200s", hc->url, res->status,
		    buf_cstr(&r->body));
	else if (r->is_stream)
		buf_puts(&why, "the server closed its event stream");
	if (r->is_first && why.len == 0) {
		free(hc->first);
		hc->first = NULL;
	}
	if (r->is_sse)
		sse_finish(&r->sse);
	else if (why.len == 0 && r->body.len > 0 && res->status == 200 && !hc->legacy)
		hc->ops.message(hc->ops.arg, r->body.data, r->body.len);	/* legacy POSTs say "Accepted" */
	mcp_hreq_unlink(r);
	if (why.len > 0)
		mcp_http_fail(hc, buf_cstr(&why));
	else if (!hc->legacy)
		mcp_http_requeue(hc);
	buf_release(&why);
}

static struct curl_slist *
mcp_http_headers(struct mcp_httpc *hc, bool post)
{
	struct curl_slist *h = NULL;
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	if (post) {
		h = curl_slist_append(h, "Content-Type: application/json");
		h = curl_slist_append(h, hc->legacy ? "Accept: application/json" :
		    "Accept: application/json, text/event-stream");
	} else
		h = curl_slist_append(h, "Accept: text/event-stream");
	if (hc->session != NULL) {
		buf_printf(&b, "Mcp-Session-Id: %s", hc->session);
		h = curl_slist_append(h, buf_cstr(&b));
		buf_reset(&b);
	}
	if (hc->version != NULL) {
		buf_printf(&b, "MCP-Protocol-Version: %s", hc->version);
		h = curl_slist_append(h, buf_cstr(&b));
	}
	for (i = 0; hc->headers != NULL && hc->headers[i] != NULL; i++)
		h = curl_slist_append(h, hc->headers[i]);
	buf_release(&b);
	return h;
}

static struct mcp_hreq *
mcp_hreq_new(struct mcp_httpc *hc)
{
	struct mcp_hreq *r = xcalloc(1, sizeof *r);

	r->hc = hc;
	sse_init(&r->sse, mcp_hreq_event, r);
	buf_init(&r->body, MCP_HTTP_BODY_MAX);
	r->next = hc->reqs;
	hc->reqs = r;
	return r;
}

static const struct http_timeouts mcp_http_to = { 10000, 0, 0, 0, false };

static void
mcp_http_legacy(struct mcp_httpc *hc)
{
	static const struct http_handler proto = {
		mcp_hreq_headers, mcp_hreq_body, mcp_hreq_done, NULL
	};
	struct http_handler h = proto;
	struct mcp_hreq *r;

	hc->legacy = true;
	if (hc->first != NULL) {
		struct buf b = BUF_INIT(MCP_HTTP_BODY_MAX);

		buf_puts(&b, hc->first);
		buf_putc(&b, '\n');
		buf_append(&b, hc->held.data != NULL ? hc->held.data : "", hc->held.len);
		buf_release(&hc->held);
		hc->held = b;
		free(hc->first);
		hc->first = NULL;
	}
	r = mcp_hreq_new(hc);
	r->is_stream = true;
	hc->stream = r;
	h.arg = r;
	r->req = http_get(hc->http, hc->url, mcp_http_headers(hc, false), &mcp_http_to, &h);
}

static void
mcp_http_post(struct mcp_httpc *hc, const char *text, size_t n)
{
	static const struct http_handler proto = {
		mcp_hreq_headers, mcp_hreq_body, mcp_hreq_done, NULL
	};
	struct http_handler h = proto;
	struct mcp_hreq *r;

	r = mcp_hreq_new(hc);
	if (!hc->legacy && !hc->tried_post) {
		hc->tried_post = true;
		r->is_first = true;
		hc->first = xstrndup(text, n);
	}
	h.arg = r;
	r->req = http_post(hc->http, hc->legacy ? hc->endpoint : hc->url, mcp_http_headers(hc, true),
	    text, n, &mcp_http_to, &h);
}

static void
mcp_http_flush(struct ev_loop *loop, void *arg)
{
	struct mcp_httpc *hc = arg;
	char *all, *line, *nl;

	(void)loop;
	hc->out_timer = 0;
	if (hc->want_listen && !hc->listening && !hc->legacy && !hc->failed) {
		static const struct http_handler proto = {
			mcp_hreq_headers, mcp_hreq_body, mcp_hreq_done, NULL
		};
		struct http_handler h = proto;
		struct mcp_hreq *r = mcp_hreq_new(hc);

		hc->listening = true;
		r->is_listen = true;
		h.arg = r;
		r->req = http_get(hc->http, hc->url, mcp_http_headers(hc, false), &mcp_http_to, &h);
	}
	all = buf_detach(&hc->out, NULL);
	buf_init(&hc->out, MCP_HTTP_BODY_MAX);
	for (line = all; !hc->failed && (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		if (hc->legacy && hc->endpoint == NULL) {
			buf_append(&hc->held, line, (size_t)(nl + 1 - line));
			continue;
		}
		mcp_http_post(hc, line, (size_t)(nl - line));
		/* Until the first answer says which transport this is, one at a time. */
		if (!hc->legacy && hc->first != NULL && hc->reqs != NULL && hc->reqs->is_first &&
		    hc->reqs->req != NULL) {
			buf_puts(&hc->held, nl + 1);
			break;
		}
	}
	free(all);
}

static int
mcp_http_send_raw(struct mcp_httpc *hc, const char *text, size_t n)
{
	if (hc->failed)
		return -1;
	if (n > 0 && (buf_append(&hc->out, text, n) == -1 || buf_putc(&hc->out, '\n') == -1))
		return -1;
	if (hc->out_timer == 0)
		hc->out_timer = ev_timer_add(hc->loop, 0, mcp_http_flush, hc);
	return 0;
}

int
mcp_http_send(struct mcp_httpc *hc, const char *text, size_t n)
{
	return n == 0 ? 0 : mcp_http_send_raw(hc, text, n);
}

void
mcp_http_set_version(struct mcp_httpc *hc, const char *version)
{
	free(hc->version);
	hc->version = xstrdup(version);
	/* After initialize: the server's own messages (list_changed) may come on a GET stream. */
	hc->want_listen = true;
}

struct mcp_httpc *
mcp_http_new(struct ev_loop *loop, struct http *http, const struct mcp_server_cfg *s,
    const struct mcp_http_ops *ops, struct buf *err)
{
	struct mcp_httpc *hc;
	size_t i, n = 0;

	if (http == NULL) {
		buf_puts(err, "HTTP is not available here");
		return NULL;
	}
	hc = xcalloc(1, sizeof *hc);
	hc->loop = loop;
	hc->http = http;
	hc->ops = *ops;
	hc->url = xstrdup(s->url);
	while (s->headers != NULL && s->headers[n] != NULL)
		n++;
	hc->headers = xcalloc(n + 1, sizeof *hc->headers);
	for (i = 0; i < n; i++)
		hc->headers[i] = xstrdup(s->headers[i]);
	buf_init(&hc->held, MCP_HTTP_BODY_MAX);
	buf_init(&hc->out, MCP_HTTP_BODY_MAX);
	if (s->type == MCP_SSE)
		mcp_http_legacy(hc);
	return hc;
}

void
mcp_http_free(struct mcp_httpc *hc)
{
	size_t i;

	if (hc == NULL)
		return;
	while (hc->reqs != NULL) {
		if (hc->reqs->req != NULL)
			http_cancel(hc->reqs->req);
		mcp_hreq_unlink(hc->reqs);
	}
	for (i = 0; hc->headers[i] != NULL; i++)
		free(hc->headers[i]);
	free(hc->headers);
	free(hc->url);
	free(hc->session);
	free(hc->version);
	free(hc->endpoint);
	free(hc->first);
	if (hc->out_timer != 0)
		ev_timer_cancel(hc->loop, hc->out_timer);
	buf_release(&hc->held);
	buf_release(&hc->out);
	free(hc);
}
