/* The mock model server: see mock.h and tests/mock/README.md. */
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
#include "sha256.h"
#include "file.h"
#include "json.h"
#include "mock/mock.h"
#include "mock/mock_int.h"
#include "sha256.h"
#include "xalloc.h"

const char *const mock_fault_names[] = {
	"none", "drop", "error", "stall", "529", "429", "500", "onebyte", "slow", NULL
};

int64_t
mock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
mock_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	if (vsnprintf(err, errlen, fmt, ap) < 0)
		err[0] = '\0';
	va_end(ap);
}

void
mock_trace(struct mock *m, const char *fmt, ...)
{
	va_list ap;

	if (m->trace == NULL)
		return;
	va_start(ap, fmt);
	fputs("mockmodel: ", m->trace);
	vfprintf(m->trace, fmt, ap);
	fputc('\n', m->trace);
	fflush(m->trace);
	va_end(ap);
}

char *
mock_read_file(const char *path, size_t *lenp, char *err, size_t errlen)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	if (file_read(path, MOCK_FILE_MAX, 0, &b, &st) == 0)
		return buf_detach(&b, lenp);
	buf_release(&b);
	if (st.fail == FILE_TOO_BIG)
		mock_errf(err, errlen, "%s is larger than 64 MiB", path);
	else
		mock_errf(err, errlen, "cannot %s %s: %s", st.fail == FILE_READ ? "read" : "open",
		    path, strerror(errno));
	return NULL;
}

/* ---------------------------------------------------------------------
 * Problems, headers, small JSON helpers.
 */

void
mock_problem(struct call *k, const char *fmt, ...)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(k->problems, cJSON_CreateString(buf_cstr(&b)));
	buf_release(&b);
}

const char *
mock_hdr(const struct req *rq, const char *name)
{
	return json_str(rq->headers, name, NULL);
}

bool
mock_is_int(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble > -9e18 && v->valuedouble < 9e18 &&
	    v->valuedouble == (double)(int64_t)v->valuedouble;
}

bool
mock_str_eq(const cJSON *v, const char *s)
{
	return cJSON_IsString(v) && strcmp(v->valuestring, s) == 0;
}

/* Drop cache_control from a block (and the blocks inside its content). */
static void
strip_cache_control(cJSON *v)
{
	cJSON *e;

	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(e, v)
			strip_cache_control(e);
		return;
	}
	if (!cJSON_IsObject(v))
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(v, "cache_control");
	e = json_get(v, "content");
	if (cJSON_IsArray(e))
		strip_cache_control(e);
}

/* Is there a cache_control where strip_cache_control would remove one? */
static bool
has_cache_control(const cJSON *v)
{
	const cJSON *e;

	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(e, v)
			if (has_cache_control(e))
				return true;
		return false;
	}
	if (!cJSON_IsObject(v))
		return false;
	if (json_get(v, "cache_control") != NULL)
		return true;
	e = json_get(v, "content");
	return cJSON_IsArray(e) && has_cache_control(e);
}

/* The compact JSON of a block (or array of blocks) without cache_control. */
char *
mock_canon_block(const cJSON *block)
{
	cJSON *d;
	char *s;

	/* Most blocks have no breakpoint: print them as they are. */
	if (!has_cache_control(block))
		return json_print(block);
	d = cJSON_Duplicate(block, true);
	if (d == NULL)
		fatal("out of memory copying JSON");
	strip_cache_control(d);
	s = json_print(d);
	cJSON_Delete(d);
	return s;
}

/* content as an array of blocks: a string becomes one text block (caller deletes). */
cJSON *
mock_content_blocks(const cJSON *content)
{
	cJSON *arr, *t;

	if (cJSON_IsArray(content)) {
		arr = cJSON_Duplicate(content, true);
		if (arr == NULL)
			fatal("out of memory copying JSON");
		return arr;
	}
	arr = cJSON_CreateArray();
	if (cJSON_IsString(content)) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "text");
		cJSON_AddStringToObject(t, "text", content->valuestring);
		cJSON_AddItemToArray(arr, t);
	}
	return arr;
}

void
mock_hash_chain(const char *prev, const char *tag, const char *text, char out[MOCK_HASH_LEN])
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&b, "%s\n%s\n", prev, tag);
	buf_puts(&b, text);
	sha256_hex(b.data, b.len, out);
	buf_release(&b);
}

/* The conversation a request belongs to: a hash of its first user message. */
static void
conv_key(struct call *k)
{
	const cJSON *msgs = json_get(k->body, "messages"), *msg;
	char *s;

	memset(k->conv, 0, sizeof k->conv);
	cJSON_ArrayForEach(msg, msgs) {
		cJSON *blocks;

		if (!mock_str_eq(json_get(msg, "role"), "user"))
			continue;
		blocks = k->proto == P_ANTHROPIC ?
		    mock_content_blocks(json_get(msg, "content")) : cJSON_Duplicate(msg, true);
		s = mock_canon_block(blocks);
		mock_hash_chain("conv", k->proto == P_ANTHROPIC ? "a" : "o", s, k->conv);
		free(s);
		cJSON_Delete(blocks);
		return;
	}
}

/* ---------------------------------------------------------------------
 * Checks shared by both protocols.
 */

void
mock_check_content_type(struct call *k)
{
	const char *ct = mock_hdr(k->rq, "content-type");
	size_t n = strlen("application/json");

	if (ct == NULL)
		mock_problem(k, "content-type: header is required (application/json)");
	else if (strncasecmp(ct, "application/json", n) != 0 ||
	    (ct[n] != '\0' && ct[n] != ';' && ct[n] != ' '))
		mock_problem(k, "content-type: expected application/json, got \"%s\"", ct);
}

void
mock_check_model_stream(struct call *k)
{
	const cJSON *model = json_get(k->body, "model");

	if (!cJSON_IsString(model) || model->valuestring[0] == '\0')
		mock_problem(k, "model: Field required (a non-empty string)");
	if (!cJSON_IsTrue(json_get(k->body, "stream")))
		mock_problem(k, "stream: must be true (the client is expected to stream)");
}

/* ---------------------------------------------------------------------
 * Handling one request: check, choose, render, log.
 */

enum proto
mock_route(const char *path)
{
	if (strcmp(path, "/v1/messages") == 0)
		return P_ANTHROPIC;
	if (strcmp(path, "/v1/chat/completions") == 0)
		return P_OPENAI;
	return P_NONE;
}

void
mock_call_check(struct call *k)
{
	struct req *rq = k->rq;
	int line, col;

	if (strcmp(rq->method, "POST") != 0) {
		mock_problem(k, "method %s: %s takes POST", rq->method, rq->path);
		return;
	}
	if (k->proto == P_ANTHROPIC)
		mock_check_anthropic_headers(k);
	else
		mock_check_openai_headers(k);
	if (rq->body.len == 0) {
		mock_problem(k, "body: a JSON object is required");
		return;
	}
	k->body = json_parse_at(rq->body.data, rq->body.len, &line, &col);
	if (k->body == NULL) {
		mock_problem(k, "body: not valid JSON (line %d, column %d)", line, col);
		return;
	}
	if (!cJSON_IsObject(k->body)) {
		mock_problem(k, "body: expected a JSON object");
		return;
	}
	if (k->proto == P_ANTHROPIC)
		mock_check_anthropic(k);
	else
		mock_check_openai(k);
	conv_key(k);
	mock_check_sent(k);
	if (k->proto == P_ANTHROPIC)
		mock_check_signatures(k);
	mock_check_models(k);
}

/*
 * The newest input: the messages after the last assistant message (what
 * the user typed, or the tools' results), each as compact JSON, so that a
 * branching scenario can answer what was just said rather than anything
 * said earlier in the conversation.
 */
static char *
newest_input(const cJSON *body)
{
	const cJSON *msgs = json_get(body, "messages"), *m, *from = NULL;
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char *s;

	cJSON_ArrayForEach(m, (cJSON_IsArray(msgs) ? msgs : NULL)) {
		const cJSON *role = json_get(m, "role");

		if (cJSON_IsString(role) && strcmp(role->valuestring, "assistant") == 0)
			from = m;
	}
	m = from != NULL ? from->next : cJSON_IsArray(msgs) ? msgs->child : NULL;
	for (; m != NULL; m = m->next) {
		s = json_print(m);
		buf_puts(&b, s);
		buf_putc(&b, '\n');
		free(s);
	}
	return buf_detach(&b, NULL);
}

/* Whether every string of v (a string or an array) is in hay. */
static bool
all_in(const cJSON *v, const char *hay)
{
	const cJSON *e;

	if (cJSON_IsString(v))
		return strstr(hay, v->valuestring) != NULL;
	cJSON_ArrayForEach(e, (cJSON_IsArray(v) ? v : NULL))
		if (strstr(hay, e->valuestring) == NULL)
			return false;
	return true;
}

static bool
resp_matches(const struct resp *r, const char *body, const char *newest)
{
	if (r->match != NULL && strstr(body, r->match) == NULL)
		return false;
	return r->match_last == NULL || all_in(r->match_last, newest);
}

/* A response whose "match" and "match_last" hold, else the next one in order. */
static struct resp *
pick(struct mock *m, const char *body, const char *newest)
{
	size_t i;

	for (i = 0; i < m->nresps; i++)
		if (m->resps[i].remaining > 0 &&
		    (m->resps[i].match != NULL || m->resps[i].match_last != NULL) &&
		    resp_matches(&m->resps[i], body, newest))
			return &m->resps[i];
	for (i = 0; i < m->nresps; i++)
		if (m->resps[i].remaining > 0 && m->resps[i].match == NULL &&
		    m->resps[i].match_last == NULL)
			return &m->resps[i];
	return NULL;
}

/* The text of the request's last tool result, into b. */
static void
last_result(const cJSON *body, struct buf *b)
{
	const cJSON *msgs = json_get(body, "messages"), *m, *blk, *c, *t;
	const cJSON *last = NULL;

	cJSON_ArrayForEach(m, (cJSON_IsArray(msgs) ? msgs : NULL)) {
		const cJSON *role = json_get(m, "role");

		if (cJSON_IsString(role) && strcmp(role->valuestring, "tool") == 0)
			last = json_get(m, "content");
		cJSON_ArrayForEach(blk, (cJSON_IsArray(json_get(m, "content")) ? json_get(m, "content") : NULL)) {
			t = json_get(blk, "type");
			if (cJSON_IsString(t) && strcmp(t->valuestring, "tool_result") == 0)
				last = json_get(blk, "content");
		}
	}
	if (cJSON_IsString(last)) {
		buf_puts(b, last->valuestring);
		return;
	}
	cJSON_ArrayForEach(c, (cJSON_IsArray(last) ? last : NULL)) {
		t = json_get(c, "text");
		if (cJSON_IsString(t))
			buf_puts(b, t->valuestring);
	}
}

#define AFTER_MAX	200	/* bytes of a quote, at most */

/*
 * The response's text with each {{after:KEY}} replaced by what follows the
 * first KEY in the last tool result, to the end of that line (empty when
 * KEY is not there): a scripted model can quote the reason a user gave
 * for a denial, or the command they edited.
 */
static char *
fill_text(const char *text, const cJSON *body)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT), res = BUF_INIT(BUF_NOLIMIT), key = BUF_INIT(BUF_NOLIMIT);
	const char *p = text, *open, *close, *at;
	size_t n;

	if (strstr(text, "{{after:") == NULL)
		return NULL;
	last_result(body, &res);
	while ((open = strstr(p, "{{after:")) != NULL &&
	    (close = strstr(open + 8, "}}")) != NULL) {
		buf_append(&out, p, (size_t)(open - p));
		buf_reset(&key);
		buf_append(&key, open + 8, (size_t)(close - open - 8));
		at = key.len > 0 ? strstr(buf_cstr(&res), buf_cstr(&key)) : NULL;
		if (at != NULL) {
			at += key.len;
			n = strcspn(at, "\n");
			if (n > AFTER_MAX) {
				n = AFTER_MAX;
				/* not inside a UTF-8 sequence */
				while (n > 0 && ((unsigned char)at[n] & 0xc0) == 0x80)
					n--;
			}
			buf_append(&out, at, n);
		}
		p = close + 2;
	}
	buf_puts(&out, p);
	buf_release(&res);
	buf_release(&key);
	return buf_detach(&out, NULL);
}

static void
call_expect(struct call *k, const struct resp *r, const char *body)
{
	const cJSON *e;

	if (cJSON_IsString(r->expect) && strstr(body, r->expect->valuestring) == NULL)
		mock_problem(k, "the request does not contain \"%s\" (scenario response %d expects it)",
		    r->expect->valuestring, r->index);
	cJSON_ArrayForEach(e, (cJSON_IsArray(r->expect) ? r->expect : NULL)) {
		if (strstr(body, e->valuestring) == NULL)
			mock_problem(k, "the request does not contain \"%s\" (scenario response %d expects it)",
			    e->valuestring, r->index);
	}
	if (cJSON_IsString(r->expect_absent) && strstr(body, r->expect_absent->valuestring) != NULL)
		mock_problem(k, "the request contains \"%s\" (scenario response %d forbids it)",
		    r->expect_absent->valuestring, r->index);
	cJSON_ArrayForEach(e, (cJSON_IsArray(r->expect_absent) ? r->expect_absent : NULL)) {
		if (strstr(body, e->valuestring) != NULL)
			mock_problem(k, "the request contains \"%s\" (scenario response %d forbids it)",
			    e->valuestring, r->index);
	}
	mock_websearch_check_request(k, r);
}

void
mock_call_select(struct call *k)
{
	const char *body = buf_cstr(&k->rq->body);
	struct resp *r;
	char *newest = NULL;
	size_t i;

	/* printed only for a scenario that branches on it: a soak's bodies are large */
	for (i = 0; i < k->m->nresps && newest == NULL; i++)
		if (k->m->resps[i].match_last != NULL)
			newest = newest_input(k->body);
	r = pick(k->m, body, newest != NULL ? newest : "");
	free(newest);
	if (r == NULL) {
		mock_problem(k, "the scenario has no response left for request %d (%zu scripted, all used)",
		    k->n, k->m->nresps);
		return;
	}
	call_expect(k, r, body);
	if (cJSON_GetArraySize(k->problems) > 0)
		return;
	k->resp = r;
	r->remaining--;
	/* the other branches of a step are not taken later by another request */
	for (i = 0; r->group != NULL && i < k->m->nresps; i++)
		if (k->m->resps[i].group != NULL && strcmp(k->m->resps[i].group, r->group) == 0)
			k->m->resps[i].remaining = 0;
	if (r->text != NULL)
		k->text = fill_text(r->text, k->body);
}

/* The request's method, path, target and headers, into a log record. */
void
mock_log_request_head(cJSON *o, const struct req *rq)
{
	cJSON_AddStringToObject(o, "method", rq->method != NULL ? rq->method : "");
	cJSON_AddStringToObject(o, "path", rq->path != NULL ? rq->path : "");
	cJSON_AddStringToObject(o, "target", rq->target != NULL ? rq->target : "");
	cJSON_AddItemToObject(o, "headers", rq->headers != NULL ?
	    cJSON_Duplicate(rq->headers, true) : cJSON_CreateObject());
}

/* Write one record to the log as a line, and free it. */
void
mock_log_write(struct mock *m, cJSON *o)
{
	char *line = json_print(o);

	fprintf(m->log, "%s\n", line);
	fflush(m->log);
	free(line);
	cJSON_Delete(o);
}

static void
call_log(struct call *k, const struct reply *r)
{
	struct mock *m = k->m;
	struct req *rq = k->rq;
	char hex[SHA256_HEX_LEN + 1];
	cJSON *o;

	if (m->log == NULL)
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", k->n);
	mock_log_request_head(o, rq);
	cJSON_AddNumberToObject(o, "body_bytes", (double)rq->body.len);
	/* The bytes as sent, to compare two clients' requests byte for byte. */
	sha256_hex(rq->body.data != NULL ? rq->body.data : "", rq->body.len, hex);
	cJSON_AddStringToObject(o, "body_sha256", hex);
	/* A reference, not a copy: a long session's bodies are large. */
	if (m->log_no_body)
		cJSON_AddNullToObject(o, "body");
	else if (k->body != NULL)
		cJSON_AddItemReferenceToObject(o, "body", k->body);
	else if (rq->body.len > 0)
		json_add_str_n(o, "body", rq->body.data, rq->body.len);
	else
		cJSON_AddNullToObject(o, "body");
	cJSON_AddItemToObject(o, "problems", cJSON_Duplicate(k->problems, true));
	if (k->resp != NULL)
		cJSON_AddNumberToObject(o, "response", k->resp->index);
	else
		cJSON_AddNullToObject(o, "response");
	cJSON_AddNumberToObject(o, "status", r->status);
	cJSON_AddNumberToObject(o, "reply_bytes", (double)r->body.len);
	cJSON_AddNumberToObject(o, "t_ms", (double)(mock_now() - m->started));
	if (k->fault != F_NONE) {
		cJSON_AddStringToObject(o, "fault", mock_fault_names[k->fault]);
		if (k->fault_at >= 0)
			cJSON_AddNumberToObject(o, "fault_at", (double)k->fault_at);
	} else {
		cJSON_AddNullToObject(o, "fault");
	}
	if (k->usage != NULL)
		cJSON_AddItemToObject(o, "usage", cJSON_Duplicate(k->usage, true));
	else
		cJSON_AddNullToObject(o, "usage");
	mock_log_write(m, o);
}

void
mock_call_finish(struct call *k, struct reply *r)
{
	struct mock *m = k->m;
	const cJSON *p;
	int np = cJSON_GetArraySize(k->problems);

	call_log(k, r);
	if (k->resp != NULL)
		mock_trace(m, "#%d %s %s -> %d (response %d)", k->n, k->rq->method, k->rq->target,
		    r->status, k->resp->index);
	else
		mock_trace(m, "#%d %s %s -> %d", k->n, k->rq->method, k->rq->target, r->status);
	cJSON_ArrayForEach(p, k->problems)
		mock_trace(m, "#%d problem: %s", k->n, p->valuestring);
	if (np > 0)
		m->nfailed++;
	cJSON_Delete(k->problems);
	cJSON_Delete(k->body);
	cJSON_Delete(k->usage);
	free(k->text);
	k->text = NULL;
}

/* ---------------------------------------------------------------------
 * The public API.
 */

void
mock_opts_init(struct mock_opts *o)
{
	memset(o, 0, sizeof *o);
	o->idle_timeout_ms = 30000;
	o->cache_ttl_ms = -1;
	o->stop_fd = -1;
}

struct mock *
mock_new(const struct mock_opts *o, char *err, size_t errlen)
{
	struct mock *m = xcalloc(1, sizeof *m);
	char *text = NULL, *base = NULL;
	size_t len = 0;
	int rc = -1, i;

	m->lfd = -1;
	for (i = 0; i < MOCK_FILL; i++)
		m->fill[i] = -1;
	m->no_accept = o->no_accept;
	m->started = mock_now();
	m->log_no_body = o->log_no_body;
	m->stop_fd = o->stop_fd;
	m->trace = o->trace;
	m->idle_ms = o->idle_timeout_ms > 0 ? o->idle_timeout_ms : 0;
	m->ttl_ms = o->cache_ttl_ms;
	m->port_wanted = o->port;
	if (o->scenario_path != NULL) {
		text = mock_read_file(o->scenario_path, &len, err, errlen);
		base = mock_dir_of(o->scenario_path);
	} else if (o->scenario_text != NULL) {
		text = xstrdup(o->scenario_text);
		len = strlen(text);
		base = xstrdup(o->base_dir != NULL ? o->base_dir : ".");
	} else
		mock_errf(err, errlen, "no scenario given");
	if (text == NULL)
		goto out;
	if (mock_scen_load(m, text, len, base, err, errlen) == -1)
		goto out;
	if (o->log_path != NULL) {
		m->log = fopen(o->log_path, "we");
		if (m->log == NULL) {
			mock_errf(err, errlen, "cannot open %s: %s", o->log_path, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	free(text);
	free(base);
	if (rc == -1) {
		mock_free(m);
		return NULL;
	}
	return m;
}

/*
 * With no_accept, connections of our own fill the listen backlog, which is
 * never drained: the kernel then drops a client's SYNs and its connect
 * hangs until the client's connect timeout.
 */
static void
mock_fill_backlog(struct mock *m, const struct sockaddr_in *sa)
{
	int i;

	for (i = 0; i < MOCK_FILL; i++) {
		m->fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (m->fill[i] >= 0 && connect(m->fill[i], (const struct sockaddr *)sa, sizeof *sa) == -1 &&
		    errno != EINPROGRESS)
			mock_trace(m, "filling the backlog: %s", strerror(errno));
	}
}

int
mock_listen(struct mock *m, int *port, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	socklen_t salen = sizeof sa;
	int one = 1;

	if (m->port_wanted < 0 || m->port_wanted > 65535) {
		mock_errf(err, errlen, "port %d is out of range", m->port_wanted);
		return -1;
	}
	m->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->lfd == -1) {
		mock_errf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(m->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)m->port_wanted);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(m->lfd, (struct sockaddr *)&sa, sizeof sa) == -1 ||
	    listen(m->lfd, m->no_accept ? 0 : 128) == -1 ||
	    getsockname(m->lfd, (struct sockaddr *)&sa, &salen) == -1) {
		mock_errf(err, errlen, "cannot listen on 127.0.0.1:%d: %s", m->port_wanted, strerror(errno));
		close(m->lfd);
		m->lfd = -1;
		return -1;
	}
	*port = ntohs(sa.sin_port);
	if (m->no_accept)
		mock_fill_backlog(m, &sa);
	return 0;
}

int
mock_requests(const struct mock *m)
{
	return m->nreq;
}

int
mock_failures(const struct mock *m)
{
	return m->nfailed;
}

void
mock_free(struct mock *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nconns; i++)
		mock_conn_free(m->conns[i]);
	free(m->conns);
	if (m->lfd >= 0)
		close(m->lfd);
	for (i = 0; i < MOCK_FILL; i++)
		if (m->fill[i] >= 0)
			close(m->fill[i]);
	if (m->log != NULL)
		fclose(m->log);
	for (i = 0; i < m->nresps; i++)
		free(m->resps[i].fixture);
	free(m->resps);
	for (i = 0; i < m->nsent; i++) {
		cJSON_Delete(m->sent[i].tools);
		free(m->sent[i].thinking);
		free(m->sent[i].signature);
		free(m->sent[i].redacted);
	}
	free(m->sent);
	for (i = 0; i < m->nsigs; i++) {
		free(m->sigs[i].signature);
		free(m->sigs[i].thinking);
	}
	free(m->sigs);
	free(m->cache);
	cJSON_Delete(m->scenario);
	free(m);
}

int
mock_serve(const struct mock_opts *o, char *err, size_t errlen)
{
	struct mock *m = mock_new(o, err, errlen);
	int port, rc;

	if (m == NULL)
		return -1;
	if (mock_listen(m, &port, err, errlen) == -1) {
		mock_free(m);
		return -1;
	}
	if (o->on_listen != NULL)
		o->on_listen(port, o->on_listen_arg);
	rc = mock_run(m);
	mock_free(m);
	return rc;
}
