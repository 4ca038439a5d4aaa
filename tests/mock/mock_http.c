/* The mock model server: hTTP/1.1 connections and the loop (see mock_int.h). */
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

static void
mock_handle(struct mock *m, struct conn *c)
{
	struct call k;
	char *msg;

	if (mock_is_models_route(c->rq.path)) {
		mock_models(m, c);
		return;
	}
	memset(&k, 0, sizeof k);
	k.m = m;
	k.n = ++m->nreq;
	k.rq = &c->rq;
	k.problems = cJSON_CreateArray();
	k.proto = mock_route(c->rq.path);
	mock_reply_release(&c->r);
	mock_reply_init(&c->r);
	if (k.proto == P_NONE) {
		mock_problem(&k, "no such route: %s %s (the mock serves POST /v1/messages and "
		    "POST /v1/chat/completions)", c->rq.method, c->rq.path);
		mock_reply_error(&k, &c->r, 404, cJSON_GetArrayItem(k.problems, 0)->valuestring);
	} else {
		mock_call_check(&k);
		if (cJSON_GetArraySize(k.problems) == 0)
			mock_call_select(&k);
		if (cJSON_GetArraySize(k.problems) > 0) {
			msg = mock_problems_text(k.problems);
			mock_reply_error(&k, &c->r, k.not_found ? 404 : 400, msg);
			free(msg);
		} else
			mock_render(&k, &c->r);
	}
	mock_call_finish(&k, &c->r);
}

/* A request that is not even HTTP: answer, log, and close. */
static void
mock_bad_http(struct mock *m, struct conn *c, int status, const char *why)
{
	struct call k;

	memset(&k, 0, sizeof k);
	k.m = m;
	k.n = ++m->nreq;
	k.rq = &c->rq;
	if (c->rq.method == NULL) {
		c->rq.method = xstrdup("");
		c->rq.target = xstrdup("");
		c->rq.path = xstrdup("");
	}
	k.problems = cJSON_CreateArray();
	mock_problem(&k, "malformed HTTP request: %s", why);
	mock_reply_release(&c->r);
	mock_reply_init(&c->r);
	mock_reply_error(&k, &c->r, status, why);
	c->r.close = true;
	mock_call_finish(&k, &c->r);
}

/* ---------------------------------------------------------------------
 * HTTP/1.1 on one connection.
 */

static void
req_release(struct req *rq)
{
	free(rq->method);
	free(rq->target);
	free(rq->path);
	cJSON_Delete(rq->headers);
	buf_release(&rq->body);
	memset(rq, 0, sizeof *rq);
	buf_init(&rq->body, MOCK_BODY_MAX);
}

static bool
is_token(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 0x7f || strchr("()<>@,;:\\\"/[]?={}", s[i]) != NULL)
			return false;
	return n > 0;
}

static int
parse_request_line(struct req *rq, const char *line, size_t n)
{
	const char *sp1 = memchr(line, ' ', n), *sp2, *q;

	if (sp1 == NULL || !is_token(line, (size_t)(sp1 - line)))
		return -1;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(line + n - sp1 - 1));
	if (sp2 == NULL || sp2 == sp1 + 1 || sp1[1] != '/')
		return -1;
	if ((size_t)(line + n - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return -1;
	rq->minor = sp2[8] - '0';
	rq->method = xstrndup(line, (size_t)(sp1 - line));
	rq->target = xstrndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
	q = strchr(rq->target, '?');
	rq->path = q != NULL ? xstrndup(rq->target, (size_t)(q - rq->target)) : xstrdup(rq->target);
	return 0;
}

static int
parse_header_line(struct req *rq, const char *line, size_t n)
{
	const char *colon = memchr(line, ':', n), *v, *e;
	char *name, *value;
	const char *old;
	size_t i;

	if (colon == NULL || !is_token(line, (size_t)(colon - line)))
		return -1;
	name = xstrndup(line, (size_t)(colon - line));
	for (i = 0; name[i] != '\0'; i++)
		if (name[i] >= 'A' && name[i] <= 'Z')
			name[i] = (char)(name[i] - 'A' + 'a');
	for (v = colon + 1, e = line + n; v < e && (*v == ' ' || *v == '\t'); v++)
		;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	old = json_str(rq->headers, name, NULL);
	if (old != NULL) {
		struct buf b = BUF_INIT(BUF_NOLIMIT);

		buf_printf(&b, "%s, ", old);
		buf_append(&b, v, (size_t)(e - v));
		value = buf_detach(&b, NULL);
		cJSON_DeleteItemFromObjectCaseSensitive(rq->headers, name);
	} else
		value = xstrndup(v, (size_t)(e - v));
	json_add_str_n(rq->headers, name, value, strlen(value));
	free(name);
	free(value);
	return 0;
}

/* The end of the head (after its blank line), or 0 when not there yet. */
static size_t
head_end(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != '\n')
			continue;
		if (i + 1 < n && p[i + 1] == '\n')
			return i + 2;
		if (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Does the comma-separated header value list hold token (any case)? */
static bool
has_token(const char *list, const char *token)
{
	size_t n = strlen(token), len;
	const char *p = list;

	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		len = strcspn(p, ", \t");
		if (len == n && strncasecmp(p, token, n) == 0)
			return true;
		p += len;
	}
	return false;
}

static int
parse_framing(struct conn *c, int *status, const char **why)
{
	struct req *rq = &c->rq;
	const char *te = mock_hdr(rq, "transfer-encoding"), *cl = mock_hdr(rq, "content-length");
	const char *conn = mock_hdr(rq, "connection");
	char *end;
	unsigned long long v;

	if (te != NULL && cl != NULL) {
		*why = "both transfer-encoding and content-length";
		return -1;
	}
	if (te != NULL && strcasecmp(te, "chunked") != 0) {
		*status = 501;
		*why = "unsupported transfer-encoding";
		return -1;
	}
	c->chunked_body = te != NULL;
	if (cl != NULL) {
		errno = 0;
		v = strtoull(cl, &end, 10);
		if (cl[0] < '0' || cl[0] > '9' || *end != '\0' || errno != 0) {
			*why = "bad content-length";
			return -1;
		}
		if (v > MOCK_BODY_MAX) {
			*status = 413;
			*why = "request body larger than 32 MB";
			return -1;
		}
		c->content_length = (size_t)v;
	}
	if (rq->minor == 1)
		rq->keep_alive = !has_token(conn, "close");
	else
		rq->keep_alive = has_token(conn, "keep-alive");
	return 0;
}

/* 1: the head is parsed; 0: need more; -1: malformed (*status, *why set). */
static int
http_parse_head(struct conn *c, int *status, const char **why)
{
	const char *p = c->in.data, *line, *nl;
	size_t n = c->in.len, skip = 0, end, len;
	bool first = true;

	while (skip < n && (p[skip] == '\r' || p[skip] == '\n'))
		skip++;
	end = head_end(p + skip, n - skip);
	if (end == 0 || skip + end > MOCK_HEAD_MAX) {
		if (n - skip <= MOCK_HEAD_MAX)
			return 0;
		*status = 431;
		*why = "request head larger than 64 KiB";
		return -1;
	}
	c->rq.headers = cJSON_CreateObject();
	*status = 400;
	for (line = p + skip; line < p + skip + end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(p + skip + end - line));
		len = (size_t)(nl - line);
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (len == 0)
			break;
		if (first ? parse_request_line(&c->rq, line, len) : parse_header_line(&c->rq, line, len)) {
			*why = first ? "bad request line" : "bad header line";
			return -1;
		}
		first = false;
	}
	if (parse_framing(c, status, why) == -1)
		return -1;
	c->head_len = skip + end;
	return 1;
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* The next line from *i: its length without CR LF; -1 when incomplete. */
static long
next_line(const char *p, size_t n, size_t *i, size_t *len)
{
	const char *nl = memchr(p + *i, '\n', n - *i);
	size_t l;

	if (nl == NULL)
		return -1;
	l = (size_t)(nl - (p + *i));
	*len = l > 0 && p[*i + l - 1] == '\r' ? l - 1 : l;
	*i += l + 1;
	return 0;
}

/*
 * Decode a chunked body from scratch into out.
 * 1: complete (*used bytes); 0: need more; -1: malformed; -2: too large.
 */
static int
chunked_decode(const char *p, size_t n, struct buf *out, size_t *used)
{
	size_t i = 0, len, size, start, k;
	int h;

	buf_reset(out);
	for (;;) {
		start = i;
		if (next_line(p, n, &i, &len) == -1)
			return n - start > 4096 ? -1 : 0;
		for (size = 0, k = 0; k < len && (h = hexval(p[start + k])) >= 0; k++) {
			if (size > MOCK_BODY_MAX)
				return -2;
			size = size * 16 + (size_t)h;
		}
		if (k == 0 || (k < len && p[start + k] != ';' && p[start + k] != ' ' && p[start + k] != '\t'))
			return -1;
		if (size > MOCK_BODY_MAX)
			return -2;
		if (size == 0)
			break;
		if (n - i < size + 1)
			return 0;
		if (buf_append(out, p + i, size) == -1)
			return -2;
		i += size;
		if (p[i] == '\r') {
			if (n - i < 2)
				return 0;
			i++;
		}
		if (p[i] != '\n')
			return -1;
		i++;
	}
	for (;;) {	/* trailers, up to the blank line */
		if (next_line(p, n, &i, &len) == -1)
			return 0;
		if (len == 0)
			break;
	}
	*used = i;
	return 1;
}

/* 1: the body is complete; 0: need more; -1: malformed. */
static int
http_body(struct conn *c, int *status, const char **why)
{
	size_t avail = c->in.len - c->head_len, used = 0;
	int r;

	if (!c->chunked_body) {
		if (avail < c->content_length)
			return 0;
		buf_append(&c->rq.body, c->in.data + c->head_len, c->content_length);
		buf_consume(&c->in, c->head_len + c->content_length);
		return 1;
	}
	r = chunked_decode(c->in.data + c->head_len, avail, &c->rq.body, &used);
	if (r == 1) {
		buf_consume(&c->in, c->head_len + used);
		return 1;
	}
	if (r == 0)
		return 0;
	*status = r == -2 ? 413 : 400;
	*why = r == -2 ? "request body larger than 32 MB" : "bad chunked encoding";
	return -1;
}

static struct conn *
conn_new(int fd)
{
	struct conn *c = xcalloc(1, sizeof *c);

	c->fd = fd;
	c->state = CS_READ;
	buf_init(&c->in, MOCK_IN_MAX);
	buf_init(&c->out, BUF_NOLIMIT);
	buf_init(&c->rq.body, MOCK_BODY_MAX);
	mock_reply_init(&c->r);
	return c;
}

void
mock_conn_free(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	buf_release(&c->in);
	buf_release(&c->out);
	req_release(&c->rq);
	buf_release(&c->rq.body);
	mock_reply_release(&c->r);
	free(c);
}

/* Write what is queued; -1 when the client is gone. */
static int
conn_flush(struct mock *m, struct conn *c)
{
	ssize_t n;

	while (c->out_off < c->out.len) {
		n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		c->out_off += (size_t)n;
		m->last_activity = mock_now();
	}
	buf_reset(&c->out);
	c->out_off = 0;
	return 0;
}

static bool
conn_pending(const struct conn *c)
{
	return c->out_off < c->out.len;
}

static void
conn_read(struct mock *m, struct conn *c)
{
	char chunk[65536];
	ssize_t n;

	for (;;) {
		n = recv(c->fd, chunk, sizeof chunk, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == 0) {
			/* A request already whole is still answered (conn_step). */
			c->eof = true;
			return;
		}
		if (n < 0) {
			c->dead = true;
			return;
		}
		m->last_activity = mock_now();
		if (buf_append(&c->in, chunk, (size_t)n) == -1) {
			c->dead = true;
			return;
		}
	}
}

static void
conn_start(struct conn *c)
{
	struct reply *r = &c->r;
	bool http11 = c->rq.minor == 1;
	const cJSON *h;

	r->chunked = r->stream && http11;
	/* HTTP/1.0 streams end at EOF. */
	if (!c->rq.keep_alive || (r->stream && !http11) || c->eof)
		r->close = true;
	buf_reset(&r->head);
	buf_printf(&r->head, "HTTP/1.%d %d %s\r\n", http11 ? 1 : 0, r->status, mock_status_reason(r->status));
	buf_puts(&r->head, "server: tandem-mockmodel\r\n");
	cJSON_ArrayForEach(h, r->hdrs)
		buf_printf(&r->head, "%s: %s\r\n", h->string, h->valuestring);
	if (r->chunked)
		buf_puts(&r->head, "transfer-encoding: chunked\r\n");
	else if (!r->stream)
		buf_printf(&r->head, "content-length: %zu\r\n", r->body.len);
	buf_printf(&r->head, "connection: %s\r\n\r\n", r->close ? "close" : "keep-alive");
	c->state = CS_WRITE;
	c->pos = c->bi = 0;
	c->head_sent = c->term_sent = c->stalled = false;
	c->next_at = mock_now() + (r->first_byte_ms > 0 ? r->first_byte_ms : 0);
}

/* The end of the next write from c->pos. */
static size_t
conn_piece_end(struct conn *c)
{
	struct reply *r = &c->r;
	size_t end = r->body.len;

	if (r->chunk > 0) {
		if ((size_t)r->chunk < end - c->pos)
			end = c->pos + (size_t)r->chunk;
	} else {
		while (c->bi < r->nbounds && r->bounds[c->bi] <= c->pos)
			c->bi++;
		if (c->bi < r->nbounds && r->bounds[c->bi] < end)
			end = r->bounds[c->bi];
	}
	if (r->close_after >= 0 && (size_t)r->close_after > c->pos && (size_t)r->close_after < end)
		end = (size_t)r->close_after;
	if (r->stall_after >= 0 && !c->stalled && (size_t)r->stall_after > c->pos &&
	    (size_t)r->stall_after < end)
		end = (size_t)r->stall_after;
	return end;
}

static void
conn_done(struct conn *c)
{
	bool close_it = c->r.close;

	req_release(&c->rq);
	mock_reply_release(&c->r);
	mock_reply_init(&c->r);
	c->head_len = 0;
	c->content_length = 0;
	c->chunked_body = false;
	c->continue_sent = false;
	c->state = close_it ? CS_CLOSE : CS_READ;
}

/* Queue the next write of the reply, applying the scenario's modifiers. */
static void
conn_produce(struct conn *c, int64_t now)
{
	struct reply *r = &c->r;
	size_t end;

	if (!c->head_sent) {
		buf_append(&c->out, r->head.data, r->head.len);
		c->head_sent = true;
		return;
	}
	if (r->close_after >= 0 && c->pos >= (size_t)r->close_after) {
		c->state = CS_CLOSE;
		return;
	}
	if (r->stall_after >= 0 && !c->stalled && c->pos >= (size_t)r->stall_after &&
	    c->pos < r->body.len) {
		c->stalled = true;
		c->next_at = r->stall_ms >= 0 ? now + r->stall_ms : MOCK_NEVER;
		return;
	}
	if (c->pos < r->body.len) {
		end = conn_piece_end(c);
		if (r->chunked)
			buf_printf(&c->out, "%zx\r\n", end - c->pos);
		buf_append(&c->out, r->body.data + c->pos, end - c->pos);
		if (r->chunked)
			buf_puts(&c->out, "\r\n");
		c->pos = end;
		c->next_at = now + (r->delay_ms > 0 ? r->delay_ms : 0);
		return;
	}
	if (r->chunked && !c->term_sent) {
		buf_puts(&c->out, "0\r\n\r\n");
		c->term_sent = true;
		return;
	}
	conn_done(c);
}

/* Take the next request off the input, if it is whole; 1 when one was handled. */
static int
conn_take_request(struct mock *m, struct conn *c)
{
	const char *why = NULL;
	int status = 400, r;

	if (c->head_len == 0) {
		r = http_parse_head(c, &status, &why);
		if (r == 0)
			return 0;
		if (r < 0)
			goto bad;
	}
	r = http_body(c, &status, &why);
	if (r == 0) {
		const char *expect = mock_hdr(&c->rq, "expect");

		/* curl waits for this before sending a large body. */
		if (!c->continue_sent && c->rq.minor == 1 && expect != NULL &&
		    strcasecmp(expect, "100-continue") == 0) {
			buf_puts(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
			c->continue_sent = true;
		}
		return 0;
	}
	if (r < 0)
		goto bad;
	mock_handle(m, c);
	conn_start(c);
	return 1;
bad:
	mock_bad_http(m, c, status, why);
	buf_reset(&c->in);
	conn_start(c);
	return 1;
}

static void
conn_step(struct mock *m, struct conn *c, int64_t now)
{
	while (!c->dead) {
		if (conn_flush(m, c) == -1) {
			c->dead = true;
			return;
		}
		if (conn_pending(c))
			return;
		if (c->state == CS_CLOSE) {
			c->dead = true;
			return;
		}
		if (c->state == CS_READ) {
			if (conn_take_request(m, c) == 0) {
				if (c->eof)
					c->dead = true;
				return;
			}
			continue;
		}
		/* A client that gave up on a reply stalled for good is gone for good. */
		if (c->eof && c->stalled && c->next_at == MOCK_NEVER) {
			c->dead = true;
			return;
		}
		if (now < c->next_at)
			return;
		conn_produce(c, now);
	}
}

/* ---------------------------------------------------------------------
 * The loop.
 */

static void
mock_accept(struct mock *m)
{
	int fd, one = 1;

	for (;;) {
		fd = accept(m->lfd, NULL, NULL);
		if (fd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1 ||
		    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
			close(fd);
			continue;
		}
		m->last_activity = mock_now();
		if (m->nconns >= 256) {
			close(fd);
			continue;
		}
		/* Each event its own segment, as a streaming server flushes them. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (m->nconns == m->capconns) {
			m->capconns = m->capconns ? m->capconns * 2 : 8;
			m->conns = xreallocarray(m->conns, m->capconns, sizeof *m->conns);
		}
		m->conns[m->nconns++] = conn_new(fd);
	}
}

static void
mock_reap(struct mock *m)
{
	size_t i, kept = 0;

	for (i = 0; i < m->nconns; i++) {
		if (m->conns[i]->dead) {
			mock_conn_free(m->conns[i]);
			m->last_activity = mock_now();
		} else
			m->conns[kept++] = m->conns[i];
	}
	m->nconns = kept;
}

/* Is some reply still due to be written (not stalled for good)? */
static bool
mock_busy(const struct mock *m, int64_t now, int64_t *next)
{
	bool busy = false;
	size_t i;

	for (i = 0; i < m->nconns; i++) {
		const struct conn *c = m->conns[i];

		/* A client that stops mid-request does not keep the mock alive. */
		if (c->state == CS_READ && !conn_pending(c))
			continue;
		if (c->state == CS_WRITE && !conn_pending(c) && c->next_at == MOCK_NEVER)
			continue;
		busy = true;
		if (c->state == CS_WRITE && !conn_pending(c) && c->next_at < *next)
			*next = c->next_at > now ? c->next_at : now;
	}
	return busy;
}

static int
mock_timeout(struct mock *m, int64_t now, bool *idle_over)
{
	int64_t next = MOCK_NEVER, wait;
	bool busy = mock_busy(m, now, &next);

	*idle_over = false;
	if (!busy && m->idle_ms > 0) {
		if (now - m->last_activity >= m->idle_ms) {
			*idle_over = true;
			return 0;
		}
		if (m->last_activity + m->idle_ms < next)
			next = m->last_activity + m->idle_ms;
	}
	if (next == MOCK_NEVER)
		return -1;
	wait = next - now;
	return wait > INT_MAX ? INT_MAX : (int)(wait < 0 ? 0 : wait);
}

static int
mock_result(struct mock *m)
{
	size_t i;
	int unused = 0;

	for (i = 0; i < m->nresps; i++)
		unused += m->resps[i].remaining > 0;
	if (m->require_all && unused > 0) {
		mock_trace(m, "%d scripted response(s) were never used (require_all)", unused);
		return 1;
	}
	return m->nfailed > 0 ? 1 : 0;
}

/* Fill *pfd: the listener, stop_fd, then one slot per connection. */
static size_t
mock_pollfds(struct mock *m, struct pollfd **pfd)
{
	size_t i, n = m->nconns + 2;

	*pfd = xreallocarray(*pfd, n, sizeof **pfd);
	(*pfd)[0].fd = m->lfd;
	(*pfd)[0].events = m->no_accept ? 0 : POLLIN;
	(*pfd)[1].fd = m->stop_fd;
	(*pfd)[1].events = POLLIN;
	for (i = 0; i < m->nconns; i++) {
		struct conn *c = m->conns[i];

		(*pfd)[i + 2].fd = c->fd;
		(*pfd)[i + 2].events = (short)((c->eof ? 0 : POLLIN) | (conn_pending(c) ? POLLOUT : 0));
	}
	return n;
}

static void
mock_dispatch(struct mock *m, const struct pollfd *pfd, size_t npfd)
{
	size_t i;

	for (i = 2; i < npfd; i++) {
		struct conn *c = m->conns[i - 2];
		short rev = pfd[i].revents;

		if (rev & (POLLIN | POLLHUP | POLLERR))
			conn_read(m, c);
		if ((rev & (POLLHUP | POLLERR)) && !(rev & POLLIN))
			c->dead = true;
	}
	if ((pfd[0].revents & POLLIN) && !m->no_accept)
		mock_accept(m);
}

int
mock_run(struct mock *m)
{
	struct pollfd *pfd = NULL;
	size_t i, npfd;
	bool idle_over;
	int timeout, rc = 0;

	m->last_activity = mock_now();
	for (;;) {
		int64_t now = mock_now();

		for (i = 0; i < m->nconns; i++)
			conn_step(m, m->conns[i], now);
		mock_reap(m);
		timeout = mock_timeout(m, now, &idle_over);
		if (idle_over) {
			mock_trace(m, "idle for %ld ms: exiting", m->idle_ms);
			break;
		}
		npfd = mock_pollfds(m, &pfd);
		if (poll(pfd, (nfds_t)npfd, timeout) == -1) {
			if (errno == EINTR)
				continue;
			mock_trace(m, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		if (m->stop_fd >= 0 && pfd[1].revents != 0) {
			mock_trace(m, "stopped");
			break;
		}
		mock_dispatch(m, pfd, npfd);
	}
	free(pfd);
	return rc == -1 ? -1 : mock_result(m);
}
