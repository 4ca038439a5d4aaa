/* libcurl multi on the poll loop: see http.h. */
#include "autoconf.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "ev.h"
#include "http.h"
#include "xalloc.h"

#define HTTP_MAX_HEADERS 64
/* curl's own upload buffer, and the larger one a big body is given (curl's most). */
#define HTTP_UPLOAD_CHUNK	(64L * 1024)
#define HTTP_UPLOAD_BUFFER	(2L * 1024 * 1024)

struct http {
	struct ev_loop	*loop;
	CURLM		*multi;
	uint64_t	 timer;
	struct http_req	*reqs;		/* a list of requests in flight */
	int		 nactive;
	bool		 in_action;	/* inside curl_multi_socket_action */
};

struct http_req {
	struct http		*http;
	struct http_req		*next;
	CURL			*easy;
	struct curl_slist	*headers;
	struct http_body	 body;		/* n 0: a GET */
	size_t			 sent;		/* where curl reads the body next */
	struct http_handler	 h;
	struct http_timeouts	 to;
	char			 errbuf[CURL_ERROR_SIZE];
	char			*hdr_name[HTTP_MAX_HEADERS];
	char			*hdr_value[HTTP_MAX_HEADERS];
	int			 nhdr;
	bool			 headers_told;
	bool			 got_body;
	bool			 cancelled;
	bool			 aborted;
	enum http_fail		 timeout;	/* HTTP_OK until one of ours fires */
	uint64_t		 wait_timer;	/* first byte or stall */
	uint64_t		 deadline_timer;
	long			 status;
};

static void http_check_done(struct http *);

static void
http_on_socket(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct http *http = arg;
	int flags = 0, running;

	if (revents & POLLIN)
		flags |= CURL_CSELECT_IN;
	if (revents & POLLOUT)
		flags |= CURL_CSELECT_OUT;
	if (revents & (POLLERR | POLLHUP | POLLNVAL))
		flags |= CURL_CSELECT_ERR;
	http->in_action = true;
	curl_multi_socket_action(http->multi, fd, flags, &running);
	http->in_action = false;
	http_check_done(http);
}

static int
http_socket_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct http *http = userp;

	switch (what) {
	case CURL_POLL_REMOVE:
		ev_io_del(http->loop, s);
		break;
	case CURL_POLL_IN:
		ev_io_add(http->loop, s, POLLIN, http_on_socket, http);
		break;
	case CURL_POLL_OUT:
		ev_io_add(http->loop, s, POLLOUT, http_on_socket, http);
		break;
	case CURL_POLL_INOUT:
		ev_io_add(http->loop, s, POLLIN | POLLOUT, http_on_socket, http);
		break;
	}
	return 0;
}

static void
http_on_timer(struct ev_loop *loop, void *arg)
{
	struct http *http = arg;
	int running;

	http->timer = 0;
	http->in_action = true;
	curl_multi_socket_action(http->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	http->in_action = false;
	http_check_done(http);
}

static int
http_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct http *http = userp;

	if (http->timer != 0)
		ev_timer_cancel(http->loop, http->timer);
	http->timer = 0;
	if (timeout_ms >= 0)
		http->timer = ev_timer_add(http->loop, timeout_ms, http_on_timer, http);
	return 0;
}

struct http *
http_new(struct ev_loop *loop)
{
	static bool global_done;
	struct http *http;

	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return NULL;
		global_done = true;
	}
	http = xcalloc(1, sizeof *http);
	http->loop = loop;
	http->multi = curl_multi_init();
	if (http->multi == NULL) {
		free(http);
		return NULL;
	}
	curl_multi_setopt(http->multi, CURLMOPT_SOCKETFUNCTION, http_socket_cb);
	curl_multi_setopt(http->multi, CURLMOPT_SOCKETDATA, http);
	curl_multi_setopt(http->multi, CURLMOPT_TIMERFUNCTION, http_timer_cb);
	curl_multi_setopt(http->multi, CURLMOPT_TIMERDATA, http);
	return http;
}

static void
http_req_free(struct http_req *req)
{
	struct http *http = req->http;
	struct http_req **pp;
	int i;

	for (pp = &http->reqs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == req) {
			*pp = req->next;
			break;
		}
	}
	if (req->wait_timer != 0)
		ev_timer_cancel(http->loop, req->wait_timer);
	if (req->deadline_timer != 0)
		ev_timer_cancel(http->loop, req->deadline_timer);
	if (req->easy != NULL) {
		curl_multi_remove_handle(http->multi, req->easy);
		curl_easy_cleanup(req->easy);
		http->nactive--;
	}
	curl_slist_free_all(req->headers);
	for (i = 0; i < req->nhdr; i++) {
		free(req->hdr_name[i]);
		free(req->hdr_value[i]);
	}
	http_body_release(&req->body);
	free(req);
}

void
http_free(struct http *http)
{
	if (http == NULL)
		return;
	while (http->reqs != NULL)
		http_req_free(http->reqs);
	if (http->timer != 0)
		ev_timer_cancel(http->loop, http->timer);
	curl_multi_cleanup(http->multi);
	free(http);
}

int
http_active(const struct http *http)
{
	return http->nactive;
}

/* One of our timers ended the transfer: tell the caller why, and free it. */
static void
http_time_out(struct http_req *req, enum http_fail why, const char *msg)
{
	struct http_result r;
	int running;

	req->timeout = why;
	/* Pausing then erroring out from the write callback is awkward: end it here. */
	curl_multi_remove_handle(req->http->multi, req->easy);
	req->http->in_action = true;
	curl_multi_socket_action(req->http->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	req->http->in_action = false;
	r.status = req->status;
	r.fail = why;
	r.error = msg;
	curl_easy_cleanup(req->easy);
	req->easy = NULL;
	req->http->nactive--;
	if (req->h.done != NULL)
		req->h.done(req->h.arg, req, &r);
	http_req_free(req);
}

static void
http_on_wait_timeout(struct ev_loop *loop, void *arg)
{
	struct http_req *req = arg;
	struct buf msg = BUF_INIT(256);

	req->wait_timer = 0;
	if (req->got_body)
		buf_printf(&msg, "the server sent %s for %ld ms in the middle of the response",
		    req->to.stall_on_progress ? "no content" : "nothing", req->to.stall_ms);
	else
		buf_printf(&msg, "the server sent nothing for %ld ms after the request",
		    req->to.first_byte_ms);
	http_time_out(req, req->got_body ? HTTP_TIMEOUT_STALL : HTTP_TIMEOUT_FIRST_BYTE,
	    buf_cstr(&msg));
	buf_release(&msg);
}

static void
http_on_deadline(struct ev_loop *loop, void *arg)
{
	struct http_req *req = arg;
	struct buf msg = BUF_INIT(256);

	req->deadline_timer = 0;
	buf_printf(&msg, "the server had not finished the response %.1f s after the request",
	    (double)req->to.deadline_ms / 1000.0);
	http_time_out(req, HTTP_TIMEOUT_DEADLINE, buf_cstr(&msg));
	buf_release(&msg);
}

static void
http_arm_wait(struct http_req *req)
{
	long ms = req->got_body ? req->to.stall_ms : req->to.first_byte_ms;

	if (req->wait_timer != 0)
		ev_timer_cancel(req->http->loop, req->wait_timer);
	req->wait_timer = 0;
	if (ms > 0)
		req->wait_timer = ev_timer_add(req->http->loop, ms, http_on_wait_timeout, req);
}

static size_t
http_header_cb(char *p, size_t size, size_t n, void *userp)
{
	struct http_req *req = userp;
	size_t len = size * n, k;
	char *colon;

	if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		/* A new status line (after a 100 Continue or a redirect): start over. */
		int i;

		for (i = 0; i < req->nhdr; i++) {
			free(req->hdr_name[i]);
			free(req->hdr_value[i]);
		}
		req->nhdr = 0;
		return len;
	}
	colon = memchr(p, ':', len);
	if (colon == NULL || req->nhdr == HTTP_MAX_HEADERS)
		return len;
	k = (size_t)(colon - p);
	req->hdr_name[req->nhdr] = xmemdup(p, k);
	colon++;
	while (colon < p + len && (*colon == ' ' || *colon == '\t'))
		colon++;
	k = (size_t)(p + len - colon);
	while (k > 0 && (colon[k - 1] == '\r' || colon[k - 1] == '\n' || colon[k - 1] == ' '))
		k--;
	req->hdr_value[req->nhdr] = xmemdup(colon, k);
	req->nhdr++;
	return len;
}

static size_t
http_write_cb(char *p, size_t size, size_t n, void *userp)
{
	struct http_req *req = userp;
	size_t len = size * n;

	if (req->cancelled)
		return 0;
	if (!req->headers_told) {
		req->headers_told = true;
		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->status);
		if (req->h.headers != NULL)
			req->h.headers(req->h.arg, req, req->status);
		if (req->cancelled)
			return 0;
	}
	/* With stall_on_progress only the first byte arms the stall timer here. */
	if (!req->got_body || !req->to.stall_on_progress) {
		req->got_body = true;
		http_arm_wait(req);
	}
	if (req->h.body != NULL && req->h.body(req->h.arg, req, p, len) == -1) {
		req->aborted = true;
		return 0;
	}
	return req->cancelled ? 0 : len;
}

void
http_progress(struct http_req *req)
{
	if (req != NULL && !req->cancelled && req->easy != NULL && req->got_body)
		http_arm_wait(req);
}

const char *
http_header(const struct http_req *req, const char *name)
{
	int i;

	for (i = req->nhdr - 1; i >= 0; i--)
		if (strcasecmp(req->hdr_name[i], name) == 0)
			return req->hdr_value[i];
	return NULL;
}

static enum http_fail
http_classify(CURLcode rc, bool got_body)
{
	switch (rc) {
	case CURLE_OK:
		return HTTP_OK;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SSL_CONNECT_ERROR:
		return HTTP_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return got_body ? HTTP_TIMEOUT_STALL : HTTP_TIMEOUT_CONNECT;
	case CURLE_WRITE_ERROR:
		return HTTP_ABORTED;
	default:
		return HTTP_BROKEN;
	}
}

static void
http_check_done(struct http *http)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(http->multi, &left)) != NULL) {
		struct http_req *req = NULL;
		struct http_result r;
		struct buf text = BUF_INIT(1024);

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&req);
		if (req == NULL)
			continue;
		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->status);
		r.status = req->status;
		r.fail = http_classify(msg->data.result, req->got_body);
		if (req->aborted)
			r.fail = HTTP_ABORTED;
		if (r.fail != HTTP_OK)
			buf_puts(&text, req->errbuf[0] ? req->errbuf :
			    curl_easy_strerror(msg->data.result));
		r.error = buf_cstr(&text);
		if (!req->headers_told && r.fail == HTTP_OK) {
			req->headers_told = true;
			if (req->h.headers != NULL)
				req->h.headers(req->h.arg, req, req->status);
		}
		if (!req->cancelled && req->h.done != NULL)
			req->h.done(req->h.arg, req, &r);
		buf_release(&text);
		http_req_free(req);
	}
}

static void
http_start_failed(struct ev_loop *loop, void *arg)
{
	struct http_req *req = arg;
	struct http_result r = { 0, HTTP_CONNECT, "curl could not start the request" };

	req->wait_timer = 0;
	if (req->h.done != NULL)
		req->h.done(req->h.arg, req, &r);
	http_req_free(req);
}

int
http_body_take(struct http_body *b, struct buf *t)
{
	struct http_part *p;

	if (b->n == HTTP_PARTS_MAX) {
		buf_release(t);
		return -1;
	}
	p = &b->part[b->n++];
	memset(p, 0, sizeof *p);
	p->own = buf_detach(t, &p->len);
	if (p->own == NULL)
		p->own = xstrdup("");
	b->len += p->len;
	return 0;
}

int
http_body_hold(struct http_body *b, const char *(*at)(void *), void (*release)(void *),
    void *arg, size_t len)
{
	struct http_part *p;

	if (b->n == HTTP_PARTS_MAX) {
		if (release != NULL)
			release(arg);
		return -1;
	}
	p = &b->part[b->n++];
	memset(p, 0, sizeof *p);
	p->at = at;
	p->release = release;
	p->arg = arg;
	p->len = len;
	b->len += len;
	return 0;
}

/* Where part p's bytes are now. */
static const char *
http_part_data(const struct http_part *p)
{
	return p->own != NULL ? p->own : p->at(p->arg);
}

int
http_body_join(const struct http_body *b, struct buf *out)
{
	int i, rc = buf_reserve(out, b->len);

	for (i = 0; i < b->n && rc == 0; i++)
		rc = buf_append(out, http_part_data(&b->part[i]), b->part[i].len);
	return rc;
}

void
http_body_release(struct http_body *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		free(b->part[i].own);
		if (b->part[i].own == NULL && b->part[i].release != NULL)
			b->part[i].release(b->part[i].arg);
	}
	memset(b, 0, sizeof *b);
}

/* curl asks for the next bytes of the body: copied from the parts where they are. */
static size_t
http_read_cb(char *to, size_t size, size_t nitems, void *arg)
{
	struct http_req *req = arg;
	size_t room = size * nitems, got = 0, skip = req->sent;
	int i;

	for (i = 0; i < req->body.n && got < room; i++) {
		const struct http_part *p = &req->body.part[i];
		size_t n;

		if (skip >= p->len) {
			skip -= p->len;
			continue;
		}
		n = p->len - skip < room - got ? p->len - skip : room - got;
		memcpy(to + got, http_part_data(p) + skip, n);
		got += n;
		skip = 0;
	}
	req->sent += got;
	return got;
}

/* curl sends the body again (a connection that was gone, a redirect): from offset. */
static int
http_seek_cb(void *arg, curl_off_t offset, int origin)
{
	struct http_req *req = arg;

	if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > req->body.len)
		return CURL_SEEKFUNC_CANTSEEK;
	req->sent = (size_t)offset;
	return CURL_SEEKFUNC_OK;
}

/* The body as curl takes it: one buffer of its own in place, pieces through the callback. */
static void
http_set_body(struct http_req *req)
{
	const struct http_body *b = &req->body;

	curl_easy_setopt(req->easy, CURLOPT_POST, 1L);
	if (b->n == 1 && b->part[0].own != NULL) {
		curl_easy_setopt(req->easy, CURLOPT_POSTFIELDS, b->part[0].own);
	} else {
		curl_easy_setopt(req->easy, CURLOPT_READFUNCTION, http_read_cb);
		curl_easy_setopt(req->easy, CURLOPT_READDATA, req);
		curl_easy_setopt(req->easy, CURLOPT_SEEKFUNCTION, http_seek_cb);
		curl_easy_setopt(req->easy, CURLOPT_SEEKDATA, req);
		/* A long conversation goes in a few large writes, not in many of 64 KB. */
		if (b->len > HTTP_UPLOAD_CHUNK)
			curl_easy_setopt(req->easy, CURLOPT_UPLOAD_BUFFERSIZE, (long)HTTP_UPLOAD_BUFFER);
	}
	curl_easy_setopt(req->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)b->len);
}

/* POST body (taken; a body of no parts is a GET). */
static struct http_req *
http_request(struct http *http, const char *url, struct curl_slist *headers,
    struct http_body *body, const struct http_timeouts *to,
    const struct http_handler *h, void (*setup)(void *, CURL *), void *setup_arg)
{
	struct http_req *req = xcalloc(1, sizeof *req);

	req->http = http;
	req->headers = headers;
	req->body = *body;
	memset(body, 0, sizeof *body);
	req->h = *h;
	req->to = *to;
	req->next = http->reqs;
	http->reqs = req;
	req->easy = curl_easy_init();
	if (req->easy == NULL) {
		req->wait_timer = ev_timer_add(http->loop, 0, http_start_failed, req);
		return req;
	}
	http->nactive++;
	curl_easy_setopt(req->easy, CURLOPT_URL, url);
	if (req->body.n > 0)
		http_set_body(req);
	else
		curl_easy_setopt(req->easy, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(req->easy, CURLOPT_HTTPHEADER, req->headers);
	curl_easy_setopt(req->easy, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(req->easy, CURLOPT_WRITEDATA, req);
	curl_easy_setopt(req->easy, CURLOPT_HEADERFUNCTION, http_header_cb);
	curl_easy_setopt(req->easy, CURLOPT_HEADERDATA, req);
	curl_easy_setopt(req->easy, CURLOPT_PRIVATE, req);
	curl_easy_setopt(req->easy, CURLOPT_ERRORBUFFER, req->errbuf);
	curl_easy_setopt(req->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(req->easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(req->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(req->easy, CURLOPT_USERAGENT, "tandem/" PACKAGE_VERSION);
	if (to->connect_ms > 0)
		curl_easy_setopt(req->easy, CURLOPT_CONNECTTIMEOUT_MS, to->connect_ms);
	if (setup != NULL)
		setup(setup_arg, req->easy);
	if (curl_multi_add_handle(http->multi, req->easy) != CURLM_OK) {
		curl_easy_cleanup(req->easy);
		req->easy = NULL;
		http->nactive--;
		req->wait_timer = ev_timer_add(http->loop, 0, http_start_failed, req);
		return req;
	}
	http_arm_wait(req);
	if (to->deadline_ms > 0)
		req->deadline_timer = ev_timer_add(http->loop, to->deadline_ms, http_on_deadline, req);
	return req;
}

struct http_req *
http_post(struct http *http, const char *url, struct curl_slist *headers,
    const char *body, size_t len, const struct http_timeouts *to,
    const struct http_handler *h)
{
	return http_post_take(http, url, headers, xmemdup(body != NULL ? body : "", len), len, to, h);
}

struct http_req *
http_post_take(struct http *http, const char *url, struct curl_slist *headers,
    char *body, size_t len, const struct http_timeouts *to, const struct http_handler *h)
{
	struct http_body b;
	struct http_part *p = &b.part[0];

	memset(&b, 0, sizeof b);
	p->own = body != NULL ? body : xstrdup("");
	p->len = body != NULL ? len : 0;
	b.n = 1;
	b.len = p->len;
	return http_request(http, url, headers, &b, to, h, NULL, NULL);
}

struct http_req *
http_post_body(struct http *http, const char *url, struct curl_slist *headers,
    struct http_body *body, const struct http_timeouts *to, const struct http_handler *h)
{
	struct buf none = BUF_INIT(1);

	/* No parts at all is still a POST, of nothing. */
	if (body->n == 0)
		http_body_take(body, &none);
	return http_request(http, url, headers, body, to, h, NULL, NULL);
}

struct http_req *
http_get(struct http *http, const char *url, struct curl_slist *headers,
    const struct http_timeouts *to, const struct http_handler *h)
{
	struct http_body none;

	memset(&none, 0, sizeof none);
	return http_request(http, url, headers, &none, to, h, NULL, NULL);
}

struct http_req *
http_get_with(struct http *http, const char *url, struct curl_slist *headers,
    const struct http_timeouts *to, const struct http_handler *h,
    void (*setup)(void *, CURL *), void *setup_arg)
{
	struct http_body none;

	memset(&none, 0, sizeof none);
	return http_request(http, url, headers, &none, to, h, setup, setup_arg);
}

static void
http_reap_cancelled(struct ev_loop *loop, void *arg)
{
	struct http_req *req = arg;

	req->wait_timer = 0;
	http_req_free(req);
}

void
http_cancel(struct http_req *req)
{
	if (req == NULL || req->cancelled)
		return;
	req->cancelled = true;
	if (req->wait_timer != 0)
		ev_timer_cancel(req->http->loop, req->wait_timer);
	if (req->deadline_timer != 0)
		ev_timer_cancel(req->http->loop, req->deadline_timer);
	req->deadline_timer = 0;
	/* Inside curl's own callbacks the handle must not be removed: defer. */
	req->wait_timer = ev_timer_add(req->http->loop, 0, http_reap_cancelled, req);
}
