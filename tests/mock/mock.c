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
#include "json.h"
#include "mock/mock.h"
#include "sha256.h"
#include "xalloc.h"

#define MOCK_HEAD_MAX		(64 * 1024)
#define MOCK_BODY_MAX		((size_t)32 * 1024 * 1024)	/* the real API's limit */
#define MOCK_IN_MAX		(MOCK_BODY_MAX * 2)		/* chunked framing included */
#define MOCK_FILE_MAX		((size_t)64 * 1024 * 1024)
#define MOCK_BREAKPOINTS_MAX	4
#define MOCK_LOOKBACK_BLOCKS	20
#define MOCK_TTL_DEFAULT	300000L
#define MOCK_TTL_1H		3600000L
#define MOCK_NEVER		INT64_MAX
#define MOCK_HASH_LEN		(SHA256_HEX_LEN + 1)
#define MOCK_FILL		3	/* more than a backlog of 0 admits */

enum proto { P_NONE, P_ANTHROPIC, P_OPENAI };

enum resp_kind { RK_MESSAGE, RK_FIXTURE, RK_ERROR };

/* Faults a response may suffer at random (its "faults" modifier). */
enum fault { F_NONE, F_DROP, F_ERROR, F_STALL, F_529, F_429, F_500, F_ONEBYTE, F_SLOW };

static const char *const fault_names[] = {
	"none", "drop", "error", "stall", "529", "429", "500", "onebyte", "slow", NULL
};

#define FAULT_KINDS_MAX	16

/* One scripted response; the strings point into the scenario tree. */
struct resp {
	enum resp_kind	 kind;
	int		 index;
	const char	*text, *thinking, *signature, *redacted;
	const char	*stop_reason, *model, *match;
	const cJSON	*tool_uses;	/* array of {id?, name, input?} */
	const cJSON	*usage;		/* explicit figures, or NULL: auto */
	const cJSON	*headers;	/* object of strings, or NULL */
	const cJSON	*body;		/* error body, or NULL: the default */
	const cJSON	*expect;	/* strings the request must contain */
	const cJSON	*expect_absent;	/* strings it must not contain */
	char		*fixture;	/* owned */
	size_t		 fixture_len;
	int		 status;
	long		 chunk, delay_ms, first_byte_ms;
	long		 close_after, stall_after, stall_ms, error_after;
	bool		 close_at_end;	/* the whole body, then a drop: no end of the chunked body */
	int		 remaining;
	/* "faults": a seeded generator picks one fault (or none) per serve. */
	bool		 faulty;
	uint64_t	 rng;
	double		 fault_rate;
	enum fault	 kinds[FAULT_KINDS_MAX];
	int		 nkinds;
	long		 fault_stall_ms, fault_slow_ms, fault_retry_ms;
};

/* A reply with tool calls that the mock sent: later requests must echo it. */
struct sent {
	enum proto	 proto;
	int		 nreq;
	bool		 seen;
	char		 conv[MOCK_HASH_LEN];
	cJSON		*tools;		/* array of {id, name, input} as sent */
	char		*thinking, *signature, *redacted;
};

struct sig {
	char		*signature, *thinking;
};

struct cache_entry {
	char		 hash[MOCK_HASH_LEN];
	int64_t		 expires;
};

/* What is being written back on a connection. */
struct reply {
	int		 status;
	cJSON		*hdrs;		/* lowercased name -> value */
	bool		 stream;	/* a body of unknown length (SSE) */
	struct buf	 head;
	struct buf	 body;
	size_t		*bounds;	/* ends of events in body: the default writes */
	size_t		 nbounds, capbounds;
	bool		 chunked;
	bool		 close;
	long		 chunk, delay_ms, first_byte_ms;
	long		 close_after, stall_after, stall_ms;
};

struct req {
	char		*method, *target, *path;
	int		 minor;
	cJSON		*headers;	/* lowercased name -> value */
	struct buf	 body;
	bool		 keep_alive;
};

enum conn_state { CS_READ, CS_WRITE, CS_CLOSE };

struct conn {
	int		 fd;
	enum conn_state	 state;
	struct buf	 in;
	/* the request being read */
	size_t		 head_len;	/* 0 until the head is parsed */
	size_t		 content_length;
	bool		 chunked_body;
	bool		 continue_sent;
	struct req	 rq;
	/* the reply being written */
	struct reply	 r;
	struct buf	 out;
	size_t		 out_off;
	size_t		 pos, bi;
	bool		 head_sent, term_sent, stalled;
	bool		 eof;		/* the client shut down its side */
	bool		 dead;		/* drop at once */
	int64_t		 next_at;
};

struct mock {
	cJSON		*scenario;
	struct resp	*resps;
	size_t		 nresps;
	bool		 require_all;
	bool		 check_echo;	/* later requests must carry the tool calls sent */
	long		 ttl_ms;
	long		 cache_min_tokens;
	long		 idle_ms;
	int		 stop_fd;
	FILE		*trace;
	FILE		*log;
	bool		 log_no_body;
	int		 port_wanted;
	int		 lfd;
	bool		 no_accept;	/* never accept: connects hang (connect timeouts) */
	int		 fill[MOCK_FILL];	/* our own connections that fill the backlog */
	struct conn	**conns;
	size_t		 nconns, capconns;
	int		 nreq, nfailed;
	int64_t		 last_activity;
	int64_t		 started;	/* for the log's t_ms */
	struct sent	*sent;
	size_t		 nsent, capsent;
	struct sig	*sigs;
	size_t		 nsigs, capsigs;
	struct cache_entry *cache;
	size_t		 ncache, capcache;
	/* The model endpoints (scenario "models", ...): NULL answers 404. */
	const cJSON	*models;	/* Anthropic ModelInfo objects */
	const cJSON	*openai_models;	/* OpenAI's list object */
	const cJSON	*llamacpp_props;
	const cJSON	*ollama_ps;
	const cJSON	*ollama_show;	/* {"model name": show answer} */
};

/* The per-request context of the handler. */
struct call {
	struct mock	*m;
	int		 n;
	enum proto	 proto;
	struct req	*rq;
	cJSON		*body;		/* the parsed request, or NULL */
	cJSON		*problems;	/* array of strings */
	struct resp	*resp;
	cJSON		*usage;		/* as sent, or NULL */
	bool		 not_found;	/* the model is not the scenario's: 404 */
	char		 conv[MOCK_HASH_LEN];
	enum fault	 fault;		/* injected by the response's "faults" */
	long		 fault_at;	/* body byte where it struck, or -1 */
};

struct usage {
	long		 input, creation, read, output, reasoning;
	bool		 creation_1h;
};

/* Block-by-block serialization of a prompt in cache prefix order. */
struct pblock {
	size_t		 end;		/* bytes up to the end of this block */
	char		 hash[MOCK_HASH_LEN];
	bool		 bp;		/* a cache_control breakpoint */
	long		 ttl_ms;
};

struct prefix {
	struct pblock	*b;
	size_t		 n, cap;
	size_t		 bytes;
	char		 last[MOCK_HASH_LEN];
};

static int64_t
mock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	if (vsnprintf(err, errlen, fmt, ap) < 0)
		err[0] = '\0';
	va_end(ap);
}

static void
mock_trace(struct mock *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
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

static char *
read_file(const char *path, size_t *lenp, char *err, size_t errlen)
{
	struct buf b = BUF_INIT(MOCK_FILE_MAX);
	char chunk[65536];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (buf_append(&b, chunk, (size_t)n) == -1) {
			close(fd);
			errf(err, errlen, "%s is larger than 64 MiB", path);
			return NULL;
		}
	}
	close(fd);
	if (n == -1) {
		buf_release(&b);
		errf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	return buf_detach(&b, lenp);
}

/* ---------------------------------------------------------------------
 * The scenario.
 */

static const char *const resp_keys[] = {
	"text", "thinking", "signature", "redacted_thinking", "tool_uses",
	"stop_reason", "usage", "model", "fixture", "status", "body",
	"headers", "chunk", "delay_ms", "first_byte_delay_ms",
	"close_after_bytes", "stall_after_bytes", "stall_ms",
	"error_after_bytes", "close_at_end", "match", "repeat", "expect_contains",
	"expect_absent", "faults", "comment", NULL
};

/* Keys that only a scripted message may carry. */
static const char *const message_keys[] = {
	"text", "thinking", "signature", "redacted_thinking", "tool_uses",
	"stop_reason", "usage", "model", NULL
};

static const char *const usage_keys[] = {
	"input_tokens", "output_tokens", "cache_creation_input_tokens",
	"cache_read_input_tokens", NULL
};

static bool
key_in(const char *key, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(key, *list) == 0)
			return true;
	return false;
}

/* A non-negative integer member; def when absent; -2 when malformed. */
static long
scen_long(const cJSON *obj, const char *key, long def)
{
	const cJSON *v = json_get(obj, key);

	if (v == NULL)
		return def;
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble > (double)INT_MAX ||
	    v->valuedouble != (double)(long)v->valuedouble)
		return -2;
	return (long)v->valuedouble;
}

/* A string member or NULL; *bad set when present and not a string. */
static const char *
scen_str(const cJSON *obj, const char *key, bool *bad)
{
	const cJSON *v = json_get(obj, key);

	if (v == NULL)
		return NULL;
	if (!cJSON_IsString(v)) {
		*bad = true;
		return NULL;
	}
	return v->valuestring;
}

static int
scen_strings(const cJSON *v, const char *what, int i, char *err, size_t errlen)
{
	const cJSON *s;

	if (v == NULL || cJSON_IsString(v))
		return 0;
	if (!cJSON_IsArray(v)) {
		errf(err, errlen, "responses[%d].%s: expected a string or an array of strings", i, what);
		return -1;
	}
	cJSON_ArrayForEach(s, v) {
		if (!cJSON_IsString(s)) {
			errf(err, errlen, "responses[%d].%s: expected strings", i, what);
			return -1;
		}
	}
	return 0;
}

static int
scen_tool_uses(const cJSON *arr, int i, char *err, size_t errlen)
{
	const cJSON *t, *k;
	int j = 0;

	if (!cJSON_IsArray(arr)) {
		errf(err, errlen, "responses[%d].tool_uses: expected an array", i);
		return -1;
	}
	cJSON_ArrayForEach(t, arr) {
		if (!cJSON_IsObject(t) || !cJSON_IsString(json_get(t, "name"))) {
			errf(err, errlen, "responses[%d].tool_uses[%d]: expected an object with a \"name\"", i, j);
			return -1;
		}
		cJSON_ArrayForEach(k, t) {
			if (strcmp(k->string, "id") == 0 && cJSON_IsString(k))
				continue;
			if (strcmp(k->string, "input") == 0 && cJSON_IsObject(k))
				continue;
			if (strcmp(k->string, "name") == 0)
				continue;
			errf(err, errlen, "responses[%d].tool_uses[%d]: bad key \"%s\" (id: string, name: string, input: object)",
			    i, j, k->string);
			return -1;
		}
		j++;
	}
	return 0;
}

static int
scen_usage(const cJSON *u, int i, char *err, size_t errlen)
{
	const cJSON *k;

	if (u == NULL || (cJSON_IsString(u) && strcmp(u->valuestring, "auto") == 0))
		return 0;
	if (!cJSON_IsObject(u)) {
		errf(err, errlen, "responses[%d].usage: expected \"auto\" or an object", i);
		return -1;
	}
	cJSON_ArrayForEach(k, u) {
		if (!key_in(k->string, usage_keys) || scen_long(u, k->string, 0) < 0) {
			errf(err, errlen, "responses[%d].usage.%s: expected one of input_tokens, output_tokens, "
			    "cache_creation_input_tokens, cache_read_input_tokens with a count", i, k->string);
			return -1;
		}
	}
	return 0;
}

static int
scen_headers(const cJSON *h, int i, char *err, size_t errlen)
{
	const cJSON *k;
	const char *p;

	if (h == NULL)
		return 0;
	if (!cJSON_IsObject(h)) {
		errf(err, errlen, "responses[%d].headers: expected an object of strings", i);
		return -1;
	}
	cJSON_ArrayForEach(k, h) {
		bool ok = cJSON_IsString(k) && k->string[0] != '\0';

		for (p = k->string; ok && *p != '\0'; p++)
			ok = *p > ' ' && *p < 0x7f && *p != ':';
		for (p = ok ? k->valuestring : ""; ok && *p != '\0'; p++)
			ok = *p != '\r' && *p != '\n';
		if (!ok) {
			errf(err, errlen, "responses[%d].headers.%s: expected a header name and a one-line string", i, k->string);
			return -1;
		}
	}
	return 0;
}

static int
scen_fixture(struct resp *r, const char *path, const char *base, char *err, size_t errlen)
{
	struct buf full = BUF_INIT(BUF_NOLIMIT);
	char ferr[512];

	if (path[0] == '/' || base == NULL)
		buf_puts(&full, path);
	else
		buf_printf(&full, "%s/%s", base, path);
	r->fixture = read_file(buf_cstr(&full), &r->fixture_len, ferr, sizeof ferr);
	buf_release(&full);
	if (r->fixture == NULL) {
		errf(err, errlen, "responses[%d].fixture: %s", r->index, ferr);
		return -1;
	}
	return 0;
}

static int
scen_kind(struct resp *r, const cJSON *o, char *err, size_t errlen)
{
	const cJSON *k;
	bool fixture = json_get(o, "fixture") != NULL;
	bool status = json_get(o, "status") != NULL;

	if (fixture && status) {
		errf(err, errlen, "responses[%d]: \"fixture\" and \"status\" cannot be combined", r->index);
		return -1;
	}
	cJSON_ArrayForEach(k, o) {
		if (!key_in(k->string, resp_keys)) {
			errf(err, errlen, "responses[%d]: unknown key \"%s\"", r->index, k->string);
			return -1;
		}
		if ((fixture || status) && key_in(k->string, message_keys)) {
			errf(err, errlen, "responses[%d]: \"%s\" cannot be combined with \"%s\"",
			    r->index, k->string, fixture ? "fixture" : "status");
			return -1;
		}
		if (!status && strcmp(k->string, "body") == 0) {
			errf(err, errlen, "responses[%d]: \"body\" needs a \"status\"", r->index);
			return -1;
		}
	}
	r->kind = fixture ? RK_FIXTURE : status ? RK_ERROR : RK_MESSAGE;
	return 0;
}

static int
scen_modifiers(struct resp *r, const cJSON *o, char *err, size_t errlen)
{
	static const char *const names[] = {
		"chunk", "delay_ms", "first_byte_delay_ms", "close_after_bytes",
		"stall_after_bytes", "stall_ms", "error_after_bytes", "repeat"
	};
	long *slots[] = {
		&r->chunk, &r->delay_ms, &r->first_byte_ms, &r->close_after,
		&r->stall_after, &r->stall_ms, &r->error_after, NULL
	};
	long repeat = -1;
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		long v = scen_long(o, names[i], -1);

		if (v == -2) {
			errf(err, errlen, "responses[%d].%s: expected a non-negative integer", r->index, names[i]);
			return -1;
		}
		if (slots[i] != NULL)
			*slots[i] = v;
		else
			repeat = v;
	}
	if (repeat == 0) {
		errf(err, errlen, "responses[%d].repeat: must be at least 1", r->index);
		return -1;
	}
	r->remaining = repeat > 0 ? (int)repeat : 1;
	if (r->chunk == 0) {
		errf(err, errlen, "responses[%d].chunk: must be at least 1", r->index);
		return -1;
	}
	return 0;
}

static int
scen_fault_kinds(struct resp *r, const cJSON *kinds, char *err, size_t errlen)
{
	const cJSON *k;
	int i;

	if (!cJSON_IsArray(kinds) || cJSON_GetArraySize(kinds) == 0) {
		errf(err, errlen, "responses[%d].faults.kinds: expected a non-empty array of fault names", r->index);
		return -1;
	}
	cJSON_ArrayForEach(k, kinds) {
		for (i = 1; fault_names[i] != NULL; i++)
			if (cJSON_IsString(k) && strcmp(k->valuestring, fault_names[i]) == 0)
				break;
		if (fault_names[i] == NULL || r->nkinds == FAULT_KINDS_MAX) {
			errf(err, errlen, "responses[%d].faults.kinds: expected at most %d of drop, error, stall, "
			    "529, 429, 500, onebyte, slow", r->index, FAULT_KINDS_MAX);
			return -1;
		}
		r->kinds[r->nkinds++] = (enum fault)i;
	}
	return 0;
}

/* "faults": {"seed", "rate", "kinds", "stall_ms", "slow_ms", "retry_after_ms"}. */
static int
scen_faults(struct resp *r, const cJSON *f, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"seed", "rate", "kinds", "stall_ms", "slow_ms", "retry_after_ms", "comment", NULL
	};
	const cJSON *k, *rate = json_get(f, "rate");
	long seed;

	if (f == NULL)
		return 0;
	if (!cJSON_IsObject(f) || r->kind == RK_ERROR) {
		errf(err, errlen, "responses[%d].faults: expected an object, on a message or a fixture", r->index);
		return -1;
	}
	cJSON_ArrayForEach(k, f) {
		if (!key_in(k->string, keys)) {
			errf(err, errlen, "responses[%d].faults: unknown key \"%s\"", r->index, k->string);
			return -1;
		}
	}
	seed = scen_long(f, "seed", 1);
	r->fault_stall_ms = scen_long(f, "stall_ms", -1);
	r->fault_slow_ms = scen_long(f, "slow_ms", 1);
	r->fault_retry_ms = scen_long(f, "retry_after_ms", -1);
	if (seed == -2 || r->fault_stall_ms == -2 || r->fault_slow_ms == -2 || r->fault_retry_ms == -2) {
		errf(err, errlen, "responses[%d].faults: seed, stall_ms, slow_ms and retry_after_ms take "
		    "non-negative integers", r->index);
		return -1;
	}
	if (!cJSON_IsNumber(rate) || rate->valuedouble < 0 || rate->valuedouble > 1) {
		errf(err, errlen, "responses[%d].faults.rate: expected a number from 0 to 1", r->index);
		return -1;
	}
	r->fault_rate = rate->valuedouble;
	r->rng = (uint64_t)seed;
	r->faulty = true;
	return scen_fault_kinds(r, json_get(f, "kinds"), err, errlen);
}

static int
scen_resp(struct resp *r, const cJSON *o, const char *base, char *err, size_t errlen)
{
	bool bad = false;
	const char *fixture;

	if (!cJSON_IsObject(o)) {
		errf(err, errlen, "responses[%d]: expected an object", r->index);
		return -1;
	}
	if (scen_kind(r, o, err, errlen) == -1 || scen_modifiers(r, o, err, errlen) == -1)
		return -1;
	r->text = scen_str(o, "text", &bad);
	r->thinking = scen_str(o, "thinking", &bad);
	r->signature = scen_str(o, "signature", &bad);
	r->redacted = scen_str(o, "redacted_thinking", &bad);
	r->stop_reason = scen_str(o, "stop_reason", &bad);
	r->model = scen_str(o, "model", &bad);
	r->match = scen_str(o, "match", &bad);
	fixture = scen_str(o, "fixture", &bad);
	if (bad) {
		errf(err, errlen, "responses[%d]: text, thinking, signature, redacted_thinking, stop_reason, "
		    "model, match and fixture take strings", r->index);
		return -1;
	}
	if (r->signature != NULL && r->thinking == NULL) {
		errf(err, errlen, "responses[%d]: \"signature\" needs \"thinking\"", r->index);
		return -1;
	}
	r->tool_uses = json_get(o, "tool_uses");
	if (r->tool_uses != NULL && scen_tool_uses(r->tool_uses, r->index, err, errlen) == -1)
		return -1;
	r->usage = json_get(o, "usage");
	if (scen_usage(r->usage, r->index, err, errlen) == -1)
		return -1;
	if (cJSON_IsString(r->usage))
		r->usage = NULL;
	if (json_get(o, "close_at_end") != NULL && !cJSON_IsBool(json_get(o, "close_at_end"))) {
		errf(err, errlen, "responses[%d].close_at_end: expected true or false", r->index);
		return -1;
	}
	r->close_at_end = cJSON_IsTrue(json_get(o, "close_at_end"));
	r->headers = json_get(o, "headers");
	r->expect = json_get(o, "expect_contains");
	r->expect_absent = json_get(o, "expect_absent");
	if (scen_headers(r->headers, r->index, err, errlen) == -1 ||
	    scen_strings(r->expect, "expect_contains", r->index, err, errlen) == -1 ||
	    scen_strings(r->expect_absent, "expect_absent", r->index, err, errlen) == -1)
		return -1;
	if (r->kind == RK_ERROR) {
		r->status = (int)scen_long(o, "status", 0);
		if (r->status < 200 || r->status > 599) {
			errf(err, errlen, "responses[%d].status: expected an HTTP status (200-599)", r->index);
			return -1;
		}
		r->body = json_get(o, "body");
	}
	if (scen_faults(r, json_get(o, "faults"), err, errlen) == -1)
		return -1;
	if (r->kind == RK_FIXTURE)
		return scen_fixture(r, fixture, base, err, errlen);
	return 0;
}

static int
scen_top(struct mock *m, const cJSON *root, char *err, size_t errlen)
{
	static const char *const top_keys[] = {
		"responses", "cache_ttl_ms", "cache_min_tokens", "require_all", "check_echo",
		"comment", "models", "openai_models", "llamacpp_props", "ollama_ps", "ollama_show", NULL
	};
	const cJSON *k;
	long ttl, min;

	if (!cJSON_IsObject(root) || !cJSON_IsArray(json_get(root, "responses"))) {
		errf(err, errlen, "the scenario must be an object with a \"responses\" array");
		return -1;
	}
	cJSON_ArrayForEach(k, root) {
		if (!key_in(k->string, top_keys)) {
			errf(err, errlen, "unknown top-level key \"%s\"", k->string);
			return -1;
		}
	}
	ttl = scen_long(root, "cache_ttl_ms", MOCK_TTL_DEFAULT);
	min = scen_long(root, "cache_min_tokens", 0);
	if (ttl < 0 || min < 0) {
		errf(err, errlen, "cache_ttl_ms and cache_min_tokens take non-negative integers");
		return -1;
	}
	if ((json_get(root, "require_all") != NULL && !cJSON_IsBool(json_get(root, "require_all"))) ||
	    (json_get(root, "check_echo") != NULL && !cJSON_IsBool(json_get(root, "check_echo")))) {
		errf(err, errlen, "require_all and check_echo take true or false");
		return -1;
	}
	m->require_all = cJSON_IsTrue(json_get(root, "require_all"));
	m->models = json_get(root, "models");
	m->openai_models = json_get(root, "openai_models");
	m->llamacpp_props = json_get(root, "llamacpp_props");
	m->ollama_ps = json_get(root, "ollama_ps");
	m->ollama_show = json_get(root, "ollama_show");
	if ((m->models != NULL && !cJSON_IsArray(m->models)) ||
	    (m->openai_models != NULL && !cJSON_IsObject(m->openai_models))) {
		errf(err, errlen, "\"models\" takes an array of ModelInfo objects, \"openai_models\" "
		    "a list object");
		return -1;
	}
	m->check_echo = json_bool(root, "check_echo", true);
	if (m->ttl_ms < 0)
		m->ttl_ms = ttl;
	m->cache_min_tokens = min;
	return 0;
}

static int
scen_load(struct mock *m, const char *text, size_t len, const char *base, char *err, size_t errlen)
{
	const cJSON *arr, *o;
	int line, col, i = 0;

	m->scenario = json_parse_at(text, len, &line, &col);
	if (m->scenario == NULL) {
		errf(err, errlen, "the scenario is not valid JSON (line %d, column %d)", line, col);
		return -1;
	}
	if (scen_top(m, m->scenario, err, errlen) == -1)
		return -1;
	arr = json_get(m->scenario, "responses");
	m->nresps = (size_t)cJSON_GetArraySize(arr);
	m->resps = xcalloc(m->nresps ? m->nresps : 1, sizeof *m->resps);
	cJSON_ArrayForEach(o, arr) {
		m->resps[i].index = i;
		if (scen_resp(&m->resps[i], o, base, err, errlen) == -1)
			return -1;
		i++;
	}
	return 0;
}

/* The directory part of path ("." when it has none); the caller frees. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* ---------------------------------------------------------------------
 * Problems, headers, small JSON helpers.
 */

static void
problem(struct call *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
problem(struct call *k, const char *fmt, ...)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(k->problems, cJSON_CreateString(buf_cstr(&b)));
	buf_release(&b);
}

static const char *
hdr(const struct req *rq, const char *name)
{
	return json_str(rq->headers, name, NULL);
}

static bool
is_int(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble > -9e18 && v->valuedouble < 9e18 &&
	    v->valuedouble == (double)(int64_t)v->valuedouble;
}

static bool
str_eq(const cJSON *v, const char *s)
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
static char *
canon_block(const cJSON *block)
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
static cJSON *
content_blocks(const cJSON *content)
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

static void
hash_chain(const char *prev, const char *tag, const char *text, char out[MOCK_HASH_LEN])
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

		if (!str_eq(json_get(msg, "role"), "user"))
			continue;
		blocks = k->proto == P_ANTHROPIC ?
		    content_blocks(json_get(msg, "content")) : cJSON_Duplicate(msg, true);
		s = canon_block(blocks);
		hash_chain("conv", k->proto == P_ANTHROPIC ? "a" : "o", s, k->conv);
		free(s);
		cJSON_Delete(blocks);
		return;
	}
}

/* ---------------------------------------------------------------------
 * Checks shared by both protocols.
 */

static void
check_content_type(struct call *k)
{
	const char *ct = hdr(k->rq, "content-type");
	size_t n = strlen("application/json");

	if (ct == NULL)
		problem(k, "content-type: header is required (application/json)");
	else if (strncasecmp(ct, "application/json", n) != 0 ||
	    (ct[n] != '\0' && ct[n] != ';' && ct[n] != ' '))
		problem(k, "content-type: expected application/json, got \"%s\"", ct);
}

static void
check_model_stream(struct call *k)
{
	const cJSON *model = json_get(k->body, "model");

	if (!cJSON_IsString(model) || model->valuestring[0] == '\0')
		problem(k, "model: Field required (a non-empty string)");
	if (!cJSON_IsTrue(json_get(k->body, "stream")))
		problem(k, "stream: must be true (the client is expected to stream)");
}

/* ---------------------------------------------------------------------
 * Anthropic Messages checks, worded like the real API's 400s.
 */

static const char *const server_block_types[] = {
	"server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
	"code_execution_tool_result", "bash_code_execution_tool_result",
	"text_editor_code_execution_tool_result", "tool_search_tool_result",
	"container_upload", "mcp_tool_use", "mcp_tool_result", NULL
};

static void
check_anthropic_headers(struct call *k)
{
	const char *key = hdr(k->rq, "x-api-key");
	const char *auth = hdr(k->rq, "authorization");
	const char *ver = hdr(k->rq, "anthropic-version");

	if ((key == NULL || key[0] == '\0') &&
	    (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0 || auth[7] == '\0'))
		problem(k, "x-api-key: header is required (or Authorization: Bearer <token>)");
	if (ver == NULL)
		problem(k, "anthropic-version: header is required");
	else if (strcmp(ver, "2023-06-01") != 0)
		problem(k, "anthropic-version: \"%s\" is not a valid version (expected 2023-06-01)", ver);
	check_content_type(k);
}

static void
check_cache_control(struct call *k, const cJSON *cc, const char *where, int *count)
{
	const cJSON *ttl;

	if (cc == NULL || cJSON_IsNull(cc))
		return;
	(*count)++;
	ttl = json_get(cc, "ttl");
	if (!cJSON_IsObject(cc) || !str_eq(json_get(cc, "type"), "ephemeral"))
		problem(k, "%s.cache_control: expected {\"type\":\"ephemeral\"}", where);
	else if (ttl != NULL && !str_eq(ttl, "5m") && !str_eq(ttl, "1h"))
		problem(k, "%s.cache_control.ttl: expected \"5m\" or \"1h\"", where);
}

static void
check_text_block(struct call *k, const cJSON *b, const char *where)
{
	const cJSON *text = json_get(b, "text");

	if (!cJSON_IsString(text))
		problem(k, "%s.text: Field required", where);
	else if (text->valuestring[0] == '\0')
		problem(k, "%s.text: text content blocks must be non-empty", where);
}

static void
check_tool_result(struct call *k, const cJSON *b, const char *where, int *ncc)
{
	const cJSON *id = json_get(b, "tool_use_id"), *c = json_get(b, "content"), *e;
	const cJSON *is_error = json_get(b, "is_error");
	char sub[256];
	int j = 0;

	if (!cJSON_IsString(id) || id->valuestring[0] == '\0')
		problem(k, "%s.tool_use_id: Field required", where);
	if (is_error != NULL && !cJSON_IsBool(is_error))
		problem(k, "%s.is_error: Input should be a valid boolean", where);
	if (c == NULL || cJSON_IsString(c))
		return;
	if (!cJSON_IsArray(c)) {
		problem(k, "%s.content: expected a string or an array of blocks", where);
		return;
	}
	cJSON_ArrayForEach(e, c) {
		const char *type = json_str(e, "type", "");

		snprintf(sub, sizeof sub, "%s.content.%d", where, j++);
		if (strcmp(type, "text") == 0)
			check_text_block(k, e, sub);
		else if (strcmp(type, "image") != 0 && strcmp(type, "document") != 0 &&
		    strcmp(type, "search_result") != 0)
			problem(k, "%s.type: tool_result content blocks must be text, image, document "
			    "or search_result, not \"%s\"", sub, type);
		check_cache_control(k, json_get(e, "cache_control"), sub, ncc);
	}
}

static void
check_block(struct call *k, const cJSON *b, bool assistant, const char *where, int *ncc)
{
	const char *type = json_str(b, "type", NULL);

	if (!cJSON_IsObject(b) || type == NULL) {
		problem(k, "%s.type: Field required", where);
		return;
	}
	check_cache_control(k, json_get(b, "cache_control"), where, ncc);
	if (strcmp(type, "text") == 0)
		check_text_block(k, b, where);
	else if (strcmp(type, "image") == 0 || strcmp(type, "document") == 0) {
		if (!cJSON_IsObject(json_get(b, "source")))
			problem(k, "%s.source: Field required", where);
	} else if (strcmp(type, "tool_use") == 0) {
		if (!assistant)
			problem(k, "%s: tool_use blocks may only appear in assistant messages", where);
		if (json_str(b, "id", "")[0] == '\0' || json_str(b, "name", "")[0] == '\0')
			problem(k, "%s: tool_use blocks need an id and a name", where);
		if (!cJSON_IsObject(json_get(b, "input")))
			problem(k, "%s.input: Input should be a valid dictionary", where);
	} else if (strcmp(type, "tool_result") == 0) {
		if (assistant)
			problem(k, "%s: tool_result blocks may only appear in user messages", where);
		check_tool_result(k, b, where, ncc);
	} else if (strcmp(type, "thinking") == 0) {
		if (!assistant)
			problem(k, "%s: thinking blocks may only appear in assistant messages", where);
		if (!cJSON_IsString(json_get(b, "thinking")))
			problem(k, "%s.thinking: Field required", where);
		if (json_str(b, "signature", "")[0] == '\0')
			problem(k, "%s.signature: Field required", where);
	} else if (strcmp(type, "redacted_thinking") == 0) {
		if (!assistant)
			problem(k, "%s: redacted_thinking blocks may only appear in assistant messages", where);
		if (!cJSON_IsString(json_get(b, "data")))
			problem(k, "%s.data: Field required", where);
	} else if (!key_in(type, server_block_types))
		problem(k, "%s.type: unknown content block type \"%s\"", where, type);
}

/* prev: the role of message i - 1, or NULL. */
static void
check_message(struct call *k, const cJSON *msg, int i, int n, const char *prev, int *ncc)
{
	const cJSON *content = json_get(msg, "content"), *b;
	const char *role = json_str(msg, "role", "");
	bool assistant = strcmp(role, "assistant") == 0;
	char where[128];
	int j = 0;

	if (!assistant && strcmp(role, "user") != 0) {
		problem(k, "messages.%d.role: Input should be 'user' or 'assistant'", i);
		return;
	}
	if (i == 0 && assistant)
		problem(k, "messages.0.role: the first message must use the \"user\" role");
	else if (prev != NULL && strcmp(prev, role) == 0)
		problem(k, "messages.%d.role: roles must alternate between \"user\" and \"assistant\"", i);
	if (cJSON_IsString(content)) {
		if (content->valuestring[0] == '\0' && !(assistant && i == n - 1))
			problem(k, "messages.%d: all messages must have non-empty content except for "
			    "the optional final assistant message", i);
		return;
	}
	if (!cJSON_IsArray(content)) {
		problem(k, "messages.%d.content: expected a string or an array of content blocks", i);
		return;
	}
	if (cJSON_GetArraySize(content) == 0 && !(assistant && i == n - 1))
		problem(k, "messages.%d: all messages must have non-empty content except for "
		    "the optional final assistant message", i);
	cJSON_ArrayForEach(b, content) {
		snprintf(where, sizeof where, "messages.%d.content.%d", i, j++);
		check_block(k, b, assistant, where, ncc);
	}
}

/* The ids of the tool_use blocks of an assistant message, as a string array. */
static cJSON *
tool_use_ids(const cJSON *msg)
{
	cJSON *ids = cJSON_CreateArray();
	const cJSON *b;

	cJSON_ArrayForEach(b, json_get(msg, "content")) {
		if (str_eq(json_get(b, "type"), "tool_use") && cJSON_IsString(json_get(b, "id")))
			cJSON_AddItemToArray(ids, cJSON_CreateString(json_str(b, "id", "")));
	}
	return ids;
}

static int
ids_find(const cJSON *ids, const char *id)
{
	const cJSON *e;
	int i = 0;

	cJSON_ArrayForEach(e, ids) {
		if (strcmp(e->valuestring, id) == 0)
			return i;
		i++;
	}
	return -1;
}

/* "a, b, c" from an array of strings or of objects with an "id"; the caller frees. */
static char *
ids_join(const cJSON *ids)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const cJSON *e;

	cJSON_ArrayForEach(e, ids)
		buf_printf(&b, "%s%s", b.len ? ", " : "",
		    cJSON_IsString(e) ? e->valuestring : json_str(e, "id", ""));
	return buf_detach(&b, NULL);
}

/*
 * The user message after an assistant message with tool_use blocks must
 * begin with exactly one tool_result per id; no tool_result anywhere may
 * name an id the previous assistant message did not use.
 */
static void
check_results_after(struct call *k, const cJSON *ids, const cJSON *user, int i)
{
	const cJSON *content = json_get(user, "content"), *b;
	cJSON *seen = cJSON_CreateArray(), *missing = cJSON_CreateArray(), *e;
	bool leading = true;
	char *list;
	int j = 0;

	cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL)) {
		const char *id = json_str(b, "tool_use_id", "");

		if (!str_eq(json_get(b, "type"), "tool_result")) {
			leading = false;
		} else if (ids_find(ids, id) < 0) {
			problem(k, "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "
			    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
			    i, j, id);
		} else if (ids_find(seen, id) >= 0) {
			problem(k, "messages.%d.content.%d: duplicate tool_result for tool_use_id %s", i, j, id);
		} else if (leading) {
			cJSON_AddItemToArray(seen, cJSON_CreateString(id));
		}
		j++;
	}
	cJSON_ArrayForEach(e, ids) {
		if (ids_find(seen, e->valuestring) < 0)
			cJSON_AddItemToArray(missing, cJSON_CreateString(e->valuestring));
	}
	if (cJSON_GetArraySize(missing) > 0) {
		list = ids_join(missing);
		problem(k, "messages.%d: Did not find %d tool_result block(s) at the beginning of this message "
		    "(missing: %s). Messages following tool_use blocks must begin with a matching number of "
		    "tool_result blocks.", i, cJSON_GetArraySize(missing), list);
		free(list);
	}
	cJSON_Delete(seen);
	cJSON_Delete(missing);
}

/* A tool call id of the request and the assistant message that carries it. */
struct call_ref {
	const char	*id;
	const cJSON	*msg;
	int		 at;	/* the message's index */
};

static int
call_ref_cmp(const void *a, const void *b)
{
	const struct call_ref *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : (x->at > y->at) - (x->at < y->at);
}

/* Sorted by id then message, a repeated tool_use id sits next to its twin. */
static void
check_unique_ids(struct call *k, struct call_ref *all, size_t n)
{
	size_t j;

	if (n > 1)
		qsort(all, n, sizeof *all, call_ref_cmp);
	for (j = 1; j < n; j++)
		if (strcmp(all[j].id, all[j - 1].id) == 0)
			problem(k, "messages.%d: tool_use ids must be unique (%s appears twice)",
			    all[j].at, all[j].id);
}

static void
check_pairing(struct call *k, const cJSON *msgs)
{
	const cJSON *msg, *e;
	cJSON *prev = cJSON_CreateArray();
	struct call_ref *all = NULL;
	size_t nall = 0, capall = 0;
	int i = 0, n = cJSON_GetArraySize(msgs);

	cJSON_ArrayForEach(msg, msgs) {
		if (str_eq(json_get(msg, "role"), "assistant")) {
			cJSON_Delete(prev);
			prev = tool_use_ids(msg);
			/* Ids point into msgs, which outlives this check. */
			cJSON_ArrayForEach(e, json_get(msg, "content")) {
				if (!str_eq(json_get(e, "type"), "tool_use") ||
				    !cJSON_IsString(json_get(e, "id")))
					continue;
				if (nall == capall) {
					capall = capall ? capall * 2 : 64;
					all = xreallocarray(all, capall, sizeof *all);
				}
				all[nall].id = json_get(e, "id")->valuestring;
				all[nall].msg = msg;
				all[nall++].at = i;
			}
			if (cJSON_GetArraySize(prev) > 0 && i == n - 1) {
				char *list = ids_join(prev);

				problem(k, "messages.%d: `tool_use` ids were found without `tool_result` blocks "
				    "immediately after: %s. Each `tool_use` block must have a corresponding "
				    "`tool_result` block in the next message.", i, list);
				free(list);
			}
		} else {
			check_results_after(k, prev, msg, i);
			cJSON_Delete(prev);
			prev = cJSON_CreateArray();
		}
		i++;
	}
	check_unique_ids(k, all, nall);
	free(all);
	cJSON_Delete(prev);
}

static void
check_system(struct call *k, const cJSON *sys, int *ncc)
{
	const cJSON *b;
	char where[64];
	int j = 0;

	if (sys == NULL || cJSON_IsString(sys))
		return;
	if (!cJSON_IsArray(sys)) {
		problem(k, "system: expected a string or an array of text blocks");
		return;
	}
	cJSON_ArrayForEach(b, sys) {
		snprintf(where, sizeof where, "system.%d", j++);
		if (!str_eq(json_get(b, "type"), "text"))
			problem(k, "%s.type: system blocks must be of type \"text\"", where);
		else
			check_text_block(k, b, where);
		check_cache_control(k, json_get(b, "cache_control"), where, ncc);
	}
}

static bool
tool_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return n >= 1 && n <= 128;
}

static void
check_anthropic_tools(struct call *k, const cJSON *tools, int *ncc)
{
	const cJSON *t;
	cJSON *names;
	int i = 0;

	if (tools == NULL)
		return;
	if (!cJSON_IsArray(tools)) {
		problem(k, "tools: expected an array");
		return;
	}
	names = cJSON_CreateArray();
	cJSON_ArrayForEach(t, tools) {
		const char *name = json_str(t, "name", NULL), *type = json_str(t, "type", "custom");
		const cJSON *schema = json_get(t, "input_schema");

		char where[64];

		snprintf(where, sizeof where, "tools.%d", i);
		check_cache_control(k, json_get(t, "cache_control"), where, ncc);
		if (strcmp(type, "custom") != 0) {
			i++;	/* a server tool: the API defines its schema */
			continue;
		}
		if (name == NULL || !tool_name_ok(name))
			problem(k, "tools.%d.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i);
		else if (ids_find(names, name) >= 0)
			problem(k, "tools: Tool names must be unique (\"%s\" appears twice)", name);
		else
			cJSON_AddItemToArray(names, cJSON_CreateString(name));
		if (!cJSON_IsString(json_get(t, "description")))
			problem(k, "tools.%d.description: Field required", i);
		if (!cJSON_IsObject(schema))
			problem(k, "tools.%d.input_schema: Field required", i);
		else if (!str_eq(json_get(schema, "type"), "object"))
			problem(k, "tools.%d.input_schema.type: Input should be 'object'", i);
		i++;
	}
	cJSON_Delete(names);
}

static void
check_thinking_param(struct call *k)
{
	const cJSON *th = json_get(k->body, "thinking");
	const char *type = json_str(th, "type", "");
	int64_t budget = json_int(th, "budget_tokens", -1);
	int64_t max = json_int(k->body, "max_tokens", 0);

	if (th == NULL)
		return;
	if (strcmp(type, "enabled") == 0) {
		if (!is_int(json_get(th, "budget_tokens")) || budget < 1024)
			problem(k, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
		else if (budget >= max)
			problem(k, "`max_tokens` must be greater than `thinking.budget_tokens`");
	} else if (strcmp(type, "adaptive") != 0 && strcmp(type, "disabled") != 0)
		problem(k, "thinking.type: expected \"enabled\", \"adaptive\" or \"disabled\"");
}

static void
check_anthropic(struct call *k)
{
	const cJSON *b = k->body, *msgs = json_get(b, "messages"), *msg, *max;
	const char *prev = NULL;
	int ncc = 0, i = 0, n;

	check_model_stream(k);
	max = json_get(b, "max_tokens");
	if (max == NULL)
		problem(k, "max_tokens: Field required");
	else if (!is_int(max) || max->valuedouble < 1)
		problem(k, "max_tokens: Input should be an integer greater than 0");
	if (!cJSON_IsArray(msgs)) {
		problem(k, "messages: Field required (an array)");
		msgs = NULL;
	} else if (cJSON_GetArraySize(msgs) == 0)
		problem(k, "messages: at least one message is required");
	n = cJSON_GetArraySize(msgs);
	cJSON_ArrayForEach(msg, msgs) {
		if (!cJSON_IsObject(msg))
			problem(k, "messages.%d: expected an object", i);
		else
			check_message(k, msg, i, n, prev, &ncc);
		prev = json_str(msg, "role", NULL);
		i++;
	}
	check_pairing(k, msgs);
	check_system(k, json_get(b, "system"), &ncc);
	check_anthropic_tools(k, json_get(b, "tools"), &ncc);
	check_thinking_param(k);
	check_cache_control(k, json_get(b, "cache_control"), "(top level)", &ncc);
	if (ncc > MOCK_BREAKPOINTS_MAX)
		problem(k, "A maximum of %d blocks with cache_control may be provided. Found %d.",
		    MOCK_BREAKPOINTS_MAX, ncc);
}

/* ---------------------------------------------------------------------
 * OpenAI-compatible chat completions checks.
 */

static void
check_openai_headers(struct call *k)
{
	const char *auth = hdr(k->rq, "authorization");

	/* Local servers need no key, but a key that is sent must be well formed. */
	if (auth != NULL && (strncasecmp(auth, "Bearer ", 7) != 0 || auth[7] == '\0'))
		problem(k, "authorization: expected \"Bearer <key>\"");
	check_content_type(k);
}

static void
check_openai_tool_calls(struct call *k, const cJSON *calls, int i, cJSON *pending)
{
	const cJSON *c, *fn;
	int j = 0;

	if (!cJSON_IsArray(calls)) {
		problem(k, "messages.%d.tool_calls: expected an array", i);
		return;
	}
	cJSON_ArrayForEach(c, calls) {
		const char *id = json_str(c, "id", "");
		const cJSON *args;
		cJSON *parsed;

		fn = json_get(c, "function");
		args = json_get(fn, "arguments");
		if (id[0] == '\0')
			problem(k, "messages.%d.tool_calls.%d.id: Field required", i, j);
		else if (ids_find(pending, id) >= 0)
			problem(k, "messages.%d.tool_calls.%d.id: duplicate id %s", i, j, id);
		else
			cJSON_AddItemToArray(pending, cJSON_CreateString(id));
		if (!str_eq(json_get(c, "type"), "function"))
			problem(k, "messages.%d.tool_calls.%d.type: expected \"function\"", i, j);
		if (json_str(fn, "name", "")[0] == '\0')
			problem(k, "messages.%d.tool_calls.%d.function.name: Field required", i, j);
		if (!cJSON_IsString(args)) {
			problem(k, "messages.%d.tool_calls.%d.function.arguments: expected a JSON string", i, j);
		} else if (args->valuestring[0] != '\0') {
			parsed = cJSON_Parse(args->valuestring);
			if (!cJSON_IsObject(parsed))
				problem(k, "messages.%d.tool_calls.%d.function.arguments: not a JSON object", i, j);
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
	list = ids_join(pending);
	problem(k, "messages.%d: An assistant message with 'tool_calls' must be followed by tool messages "
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

	if (!key_in(role, roles)) {
		problem(k, "messages.%d.role: expected system, developer, user, assistant or tool", i);
		return;
	}
	if (strcmp(role, "tool") != 0)
		check_unanswered(k, pending, *last_call);
	if (strcmp(role, "tool") == 0) {
		id = json_str(msg, "tool_call_id", "");
		at = ids_find(pending, id);
		if (at < 0)
			problem(k, "messages.%d: messages with role 'tool' must be a response to a preceding "
			    "message with 'tool_calls' (tool_call_id \"%s\" is not pending)", i, id);
		else
			cJSON_DeleteItemFromArray(pending, at);
		if (!openai_content_ok(json_get(msg, "content"), false))
			problem(k, "messages.%d.content: expected a string or an array of parts", i);
	} else if (strcmp(role, "assistant") == 0) {
		if (!openai_content_ok(json_get(msg, "content"), true))
			problem(k, "messages.%d.content: expected a string, null or an array of parts", i);
		if (calls != NULL) {
			check_openai_tool_calls(k, calls, i, pending);
			*last_call = i;
		} else if (!cJSON_IsString(json_get(msg, "content")))
			problem(k, "messages.%d: an assistant message needs content or tool_calls", i);
	} else if (!openai_content_ok(json_get(msg, "content"), false))
		problem(k, "messages.%d.content: expected a string or an array of parts", i);
}

static void
check_openai_tools(struct call *k, const cJSON *tools)
{
	const cJSON *t, *fn, *params;
	int i = 0;

	if (tools == NULL)
		return;
	if (!cJSON_IsArray(tools)) {
		problem(k, "tools: expected an array");
		return;
	}
	cJSON_ArrayForEach(t, tools) {
		fn = json_get(t, "function");
		params = json_get(fn, "parameters");
		if (!str_eq(json_get(t, "type"), "function"))
			problem(k, "tools.%d.type: expected \"function\"", i);
		if (json_str(fn, "name", NULL) == NULL || !tool_name_ok(json_str(fn, "name", "")))
			problem(k, "tools.%d.function.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i);
		if (params != NULL && !cJSON_IsObject(params))
			problem(k, "tools.%d.function.parameters: expected a JSON schema object", i);
		i++;
	}
}

static void
check_openai(struct call *k)
{
	const cJSON *b = k->body, *msgs = json_get(b, "messages"), *msg;
	static const char *const limits[] = { "max_tokens", "max_completion_tokens", NULL };
	cJSON *pending = cJSON_CreateArray();
	const char *const *l;
	int i = 0, last_call = 0;

	check_model_stream(k);
	if (!cJSON_IsTrue(json_get(json_get(b, "stream_options"), "include_usage")))
		problem(k, "stream_options.include_usage: must be true (usage is read from the final chunk)");
	for (l = limits; *l != NULL; l++) {
		const cJSON *v = json_get(b, *l);

		if (v != NULL && (!is_int(v) || v->valuedouble < 1))
			problem(k, "%s: expected an integer greater than 0", *l);
	}
	if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0)
		problem(k, "messages: a non-empty array is required");
	cJSON_ArrayForEach(msg, (cJSON_IsArray(msgs) ? msgs : NULL)) {
		if (!cJSON_IsObject(msg))
			problem(k, "messages.%d: expected an object", i);
		else
			check_openai_message(k, msg, i, pending, &last_call);
		i++;
	}
	check_unanswered(k, pending, last_call);
	cJSON_Delete(pending);
	check_openai_tools(k, json_get(b, "tools"));
}

/* ---------------------------------------------------------------------
 * What the mock sent must come back: tool calls with their results,
 * thinking blocks unchanged.
 */

/*
 * Every tool call id of the request's assistant messages, sorted by id then
 * message: one pass over a long conversation instead of one per id looked up.
 */
static struct call_ref *
call_index(const struct call *k, size_t *np)
{
	struct call_ref *v = NULL;
	size_t n = 0, cap = 0;
	const cJSON *msg, *b;
	int i = 0;

	cJSON_ArrayForEach(msg, json_get(k->body, "messages")) {
		const cJSON *list = json_get(msg, k->proto == P_OPENAI ? "tool_calls" : "content");

		if (!str_eq(json_get(msg, "role"), "assistant") || !cJSON_IsArray(list))
			list = NULL;
		cJSON_ArrayForEach(b, list) {
			const char *id = json_str(b, "id", NULL);

			if (id == NULL || (k->proto == P_ANTHROPIC && !str_eq(json_get(b, "type"), "tool_use")))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n].id = id;
			v[n].msg = msg;
			v[n++].at = i;
		}
		i++;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, call_ref_cmp);
	*np = n;
	return v;
}

/* The index of the first assistant message that carries tool call id, or -1. */
static int
find_call_message(const struct call_ref *v, size_t n, const char *id, const cJSON **msgp)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(v[lo].id, id) != 0)
		return -1;
	*msgp = v[lo].msg;
	return v[lo].at;
}

/* The block (or OpenAI tool call) for id in an assistant message, and its position. */
static const cJSON *
find_call(const struct call *k, const cJSON *msg, const char *id, int *pos)
{
	const cJSON *b;
	int j = 0;

	cJSON_ArrayForEach(b, json_get(msg, k->proto == P_OPENAI ? "tool_calls" : "content")) {
		if (str_eq(json_get(b, "id"), id) &&
		    (k->proto == P_OPENAI || str_eq(json_get(b, "type"), "tool_use"))) {
			*pos = j;
			return b;
		}
		j++;
	}
	return NULL;
}

/* The input a client echoed: a tool_use's input, or a tool call's parsed arguments. */
static cJSON *
echoed_input(const struct call *k, const cJSON *call)
{
	const char *args;

	if (k->proto == P_ANTHROPIC)
		return cJSON_Duplicate(json_get(call, "input"), true);
	args = json_str(json_get(call, "function"), "arguments", NULL);
	if (args == NULL)
		return NULL;
	if (args[0] == '\0')
		return cJSON_CreateObject();
	return cJSON_Parse(args);
}

static void
check_sent_calls(struct call *k, const struct sent *s, const cJSON *msg, int i)
{
	const cJSON *t;
	int pos;

	cJSON_ArrayForEach(t, s->tools) {
		const char *id = json_str(t, "id", "");
		const cJSON *call = find_call(k, msg, id, &pos);
		const char *name;
		cJSON *input;

		if (call == NULL) {
			problem(k, "messages.%d: the assistant message lacks tool call %s that the server "
			    "sent in reply to request %d", i, id, s->nreq);
			continue;
		}
		name = k->proto == P_OPENAI ? json_str(json_get(call, "function"), "name", "") :
		    json_str(call, "name", "");
		if (strcmp(name, json_str(t, "name", "")) != 0)
			problem(k, "messages.%d: tool call %s was sent as \"%s\" but came back as \"%s\"",
			    i, id, json_str(t, "name", ""), name);
		input = echoed_input(k, call);
		if (!cJSON_Compare(input, json_get(t, "input"), true))
			problem(k, "messages.%d.%s.%d: the input of %s differs from what the server sent",
			    i, k->proto == P_OPENAI ? "tool_calls" : "content", pos, id);
		cJSON_Delete(input);
	}
}

/* Thinking sent with tool calls must precede them in the echoed message, unchanged. */
static void
check_sent_thinking(struct call *k, const struct sent *s, const cJSON *msg, int i)
{
	const cJSON *b;
	bool thinking = false, redacted = false;
	int j = 0, first_tool = -1, at = -1;

	cJSON_ArrayForEach(b, json_get(msg, "content")) {
		const char *type = json_str(b, "type", "");

		if (strcmp(type, "tool_use") == 0 && first_tool < 0)
			first_tool = j;
		if (s->signature != NULL && strcmp(type, "thinking") == 0 &&
		    str_eq(json_get(b, "signature"), s->signature) &&
		    str_eq(json_get(b, "thinking"), s->thinking)) {
			thinking = true;
			at = j;
		}
		if (s->redacted != NULL && strcmp(type, "redacted_thinking") == 0 &&
		    str_eq(json_get(b, "data"), s->redacted))
			redacted = true;
		j++;
	}
	if (s->signature != NULL && !thinking)
		problem(k, "messages.%d: the thinking block sent in reply to request %d was not passed back "
		    "unchanged with its signature", i, s->nreq);
	else if (s->signature != NULL && first_tool >= 0 && at > first_tool)
		problem(k, "messages.%d.content.%d: the thinking block must precede the tool_use blocks", i, at);
	if (s->redacted != NULL && !redacted)
		problem(k, "messages.%d: the redacted_thinking block sent in reply to request %d was not "
		    "passed back unchanged", i, s->nreq);
}

static void
check_sent(struct call *k)
{
	struct mock *m = k->m;
	size_t i, nrefs;
	struct call_ref *refs = call_index(k, &nrefs);

	for (i = 0; i < m->nsent; i++) {
		struct sent *s = &m->sent[i];
		const cJSON *t, *msg = NULL;
		bool same = k->conv[0] != '\0' && strcmp(k->conv, s->conv) == 0;
		int at = -1;

		if (s->proto != k->proto)
			continue;
		cJSON_ArrayForEach(t, s->tools) {
			at = find_call_message(refs, nrefs, json_str(t, "id", ""), &msg);
			if (at >= 0)
				break;
		}
		if (at < 0) {
			if (same && !s->seen && m->check_echo) {
				char *list = ids_join(s->tools);

				problem(k, "the request does not carry the tool call(s) %s that the server sent in "
				    "reply to request %d: echo the assistant message and answer each with exactly "
				    "one %s", list, s->nreq,
				    k->proto == P_OPENAI ? "role \"tool\" message" : "tool_result block");
				free(list);
			}
			s->seen = s->seen || same;
			continue;
		}
		s->seen = true;
		check_sent_calls(k, s, msg, at);
		if (k->proto == P_ANTHROPIC)
			check_sent_thinking(k, s, msg, at);
	}
	free(refs);
}

/* Every thinking block whose signature the mock issued must carry its own text. */
static void
check_signatures(struct call *k)
{
	const cJSON *msg, *b;
	size_t s;
	int i = 0, j;

	cJSON_ArrayForEach(msg, json_get(k->body, "messages")) {
		j = 0;
		cJSON_ArrayForEach(b, (cJSON_IsArray(json_get(msg, "content")) ? json_get(msg, "content") : NULL)) {
			const char *sig = json_str(b, "signature", NULL);

			for (s = 0; sig != NULL && str_eq(json_get(b, "type"), "thinking") &&
			    s < k->m->nsigs; s++) {
				if (strcmp(k->m->sigs[s].signature, sig) == 0 &&
				    !str_eq(json_get(b, "thinking"), k->m->sigs[s].thinking))
					problem(k, "messages.%d.content.%d: Invalid `signature` in `thinking` block "
					    "(the thinking text was changed)", i, j);
			}
			j++;
		}
		i++;
	}
}

/* ---------------------------------------------------------------------
 * The prompt cache: prefixes in Anthropic's order (tools, system,
 * messages), a chained hash at the end of every block, tokens as bytes/4.
 */

static void
prefix_add(struct prefix *p, const char *tag, const cJSON *block, long ttl_default)
{
	const cJSON *cc = json_get(block, "cache_control");
	struct pblock *pb;
	char *s = canon_block(block);

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->b = xreallocarray(p->b, p->cap, sizeof *p->b);
	}
	pb = &p->b[p->n++];
	p->bytes += strlen(tag) + strlen(s);
	pb->end = p->bytes;
	hash_chain(p->last, tag, s, pb->hash);
	memcpy(p->last, pb->hash, sizeof p->last);
	pb->bp = cJSON_IsObject(cc);
	pb->ttl_ms = str_eq(json_get(cc, "ttl"), "1h") ? MOCK_TTL_1H : ttl_default;
	free(s);
}

static void
prefix_anthropic(struct prefix *p, const cJSON *body, long ttl)
{
	const cJSON *t, *msg, *b, *sys = json_get(body, "system");
	cJSON *blocks;

	cJSON_ArrayForEach(t, json_get(body, "tools"))
		prefix_add(p, "tool", t, ttl);
	blocks = content_blocks(sys);
	cJSON_ArrayForEach(b, blocks)
		prefix_add(p, "system", b, ttl);
	cJSON_Delete(blocks);
	cJSON_ArrayForEach(msg, json_get(body, "messages")) {
		const cJSON *content = json_get(msg, "content");

		/* An array is walked in place; a string becomes one text block. */
		if (cJSON_IsArray(content)) {
			cJSON_ArrayForEach(b, content)
				prefix_add(p, json_str(msg, "role", "?"), b, ttl);
			continue;
		}
		blocks = content_blocks(content);
		cJSON_ArrayForEach(b, blocks)
			prefix_add(p, json_str(msg, "role", "?"), b, ttl);
		cJSON_Delete(blocks);
	}
	/* A top-level cache_control puts the breakpoint on the last block. */
	if (cJSON_IsObject(json_get(body, "cache_control")) && p->n > 0)
		p->b[p->n - 1].bp = true;
}

static void
prefix_openai(struct prefix *p, const cJSON *body, long ttl)
{
	const cJSON *t, *msg;

	cJSON_ArrayForEach(t, json_get(body, "tools"))
		prefix_add(p, "tool", t, ttl);
	cJSON_ArrayForEach(msg, json_get(body, "messages"))
		prefix_add(p, "message", msg, ttl);
	/* OpenAI-style servers cache the whole prompt by themselves. */
	if (p->n > 0)
		p->b[p->n - 1].bp = true;
}

static struct cache_entry *
cache_find(struct mock *m, const char *hash, int64_t now)
{
	size_t i;

	for (i = 0; i < m->ncache; i++)
		if (m->cache[i].expires > now && strcmp(m->cache[i].hash, hash) == 0)
			return &m->cache[i];
	return NULL;
}

static void
cache_put(struct mock *m, const char *hash, int64_t expires, int64_t now)
{
	struct cache_entry *e = cache_find(m, hash, now);
	size_t i, kept = 0;

	if (e != NULL) {
		if (e->expires < expires)
			e->expires = expires;
		return;
	}
	for (i = 0; i < m->ncache; i++)
		if (m->cache[i].expires > now)
			m->cache[kept++] = m->cache[i];
	m->ncache = kept;
	if (m->ncache == m->capcache) {
		m->capcache = m->capcache ? m->capcache * 2 : 64;
		m->cache = xreallocarray(m->cache, m->capcache, sizeof *m->cache);
	}
	e = &m->cache[m->ncache++];
	memcpy(e->hash, hash, sizeof e->hash);
	e->expires = expires;
}

/* A block boundary the cache looks at: within 20 blocks before a breakpoint. */
static bool
prefix_lookable(const struct prefix *p, size_t j, bool anthropic)
{
	size_t b;

	if (!anthropic)
		return true;
	for (b = j; b < p->n && b - j <= MOCK_LOOKBACK_BLOCKS; b++)
		if (p->b[b].bp)
			return true;
	return false;
}

/*
 * Read the longest cached prefix, then write every breakpoint's prefix:
 * read = tokens of the hit, creation = from there to the last breakpoint,
 * input = the rest.  A hit refreshes the entry's TTL, as the real cache does.
 */
static void
cache_simulate(struct mock *m, const struct prefix *p, bool anthropic, struct usage *u)
{
	int64_t now = mock_now();
	struct cache_entry *hit = NULL, *e;
	long total = (long)(p->bytes / 4), read = 0, last = -1;
	size_t j;

	for (j = 0; j < p->n; j++) {
		long tok = (long)(p->b[j].end / 4);

		if (p->b[j].bp && tok >= m->cache_min_tokens) {
			last = tok;
			u->creation_1h = p->b[j].ttl_ms == MOCK_TTL_1H;
		}
		if (!prefix_lookable(p, j, anthropic) || (e = cache_find(m, p->b[j].hash, now)) == NULL)
			continue;
		hit = e;
		read = tok;
	}
	if (hit != NULL)
		hit->expires = now + m->ttl_ms;
	u->read = read;
	u->creation = anthropic && last > read ? last - read : 0;
	u->input = total - u->read - u->creation;
	for (j = 0; j < p->n; j++)
		if (p->b[j].bp && (long)(p->b[j].end / 4) >= m->cache_min_tokens)
			cache_put(m, p->b[j].hash, now + p->b[j].ttl_ms, now);
}

static long
output_tokens(const struct resp *r)
{
	const cJSON *t;
	size_t bytes = 0;

	if (r->text != NULL)
		bytes += strlen(r->text);
	if (r->thinking != NULL)
		bytes += strlen(r->thinking);
	cJSON_ArrayForEach(t, r->tool_uses) {
		char *s = json_print(json_get(t, "input") ? json_get(t, "input") : t);

		bytes += strlen(s) + strlen(json_str(t, "name", ""));
		free(s);
	}
	return bytes / 4 > 0 ? (long)(bytes / 4) : 1;
}

static void
usage_compute(struct call *k, struct usage *u)
{
	struct prefix p;
	const struct resp *r = k->resp;
	const cJSON *x = r->usage;

	memset(&p, 0, sizeof p);
	memset(u, 0, sizeof *u);
	sha256_hex(json_str(k->body, "model", ""), strlen(json_str(k->body, "model", "")), p.last);
	if (k->proto == P_ANTHROPIC)
		prefix_anthropic(&p, k->body, k->m->ttl_ms);
	else
		prefix_openai(&p, k->body, k->m->ttl_ms);
	cache_simulate(k->m, &p, k->proto == P_ANTHROPIC, u);
	free(p.b);
	if (r->kind == RK_MESSAGE) {
		u->output = output_tokens(r);
		u->reasoning = r->thinking != NULL ? (long)strlen(r->thinking) / 4 : 0;
	}
	u->input = json_int(x, "input_tokens", u->input);
	u->output = json_int(x, "output_tokens", u->output);
	u->creation = json_int(x, "cache_creation_input_tokens", u->creation);
	u->read = json_int(x, "cache_read_input_tokens", u->read);
}

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

static const char *
status_reason(int status)
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

static void
reply_init(struct reply *r)
{
	memset(r, 0, sizeof *r);
	buf_init(&r->head, BUF_NOLIMIT);
	buf_init(&r->body, BUF_NOLIMIT);
	r->hdrs = cJSON_CreateObject();
	r->status = 200;
	r->chunk = r->delay_ms = r->first_byte_ms = -1;
	r->close_after = r->stall_after = r->stall_ms = -1;
}

static void
reply_release(struct reply *r)
{
	buf_release(&r->head);
	buf_release(&r->body);
	free(r->bounds);
	cJSON_Delete(r->hdrs);
	memset(r, 0, sizeof *r);
}

static void
reply_header(struct reply *r, const char *name, const char *value)
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
static void
sse_event(struct reply *r, const char *event, cJSON *data)
{
	if (event != NULL)
		buf_printf(&r->body, "event: %s\n", event);
	buf_puts(&r->body, "data: ");
	json_append(&r->body, data);
	buf_puts(&r->body, "\n\n");
	reply_bound(r);
	cJSON_Delete(data);
}

static void
sse_raw(struct reply *r, const char *text)
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
	reply_header(r, k->proto == P_OPENAI ? "x-request-id" : "request-id", id);
}

static void
reply_error(const struct call *k, struct reply *r, int status, const char *message)
{
	cJSON *body = error_body(k, status, NULL, message);

	r->status = status;
	reply_header(r, "content-type", "application/json");
	reply_ids(k, r);
	json_append(&r->body, body);
	cJSON_Delete(body);
}

/* Turn the problems into one message, as the real API names one. */
static char *
problems_text(const cJSON *problems)
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
static size_t
split_next(const char *s, size_t n, size_t pos, size_t *turn)
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
static const char *
stop_reason(const struct resp *r, bool tools, int col)
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

static const char *
reply_model(const struct call *k)
{
	if (k->resp->model != NULL)
		return k->resp->model;
	return json_str(k->body, "model", "mock-model");
}

static cJSON *
anth_usage(const struct usage *u, bool start)
{
	cJSON *o = cJSON_CreateObject(), *cc;

	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "cache_creation_input_tokens", (double)u->creation);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->read);
	if (start) {
		cc = cJSON_AddObjectToObject(o, "cache_creation");
		cJSON_AddNumberToObject(cc, "ephemeral_5m_input_tokens", u->creation_1h ? 0 : (double)u->creation);
		cJSON_AddNumberToObject(cc, "ephemeral_1h_input_tokens", u->creation_1h ? (double)u->creation : 0);
	}
	cJSON_AddNumberToObject(o, "output_tokens", start ? 1 : (double)u->output);
	if (start)
		cJSON_AddStringToObject(o, "service_tier", "standard");
	return o;
}

static cJSON *
anth_event(const char *type, int index)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", type);
	if (index >= 0)
		cJSON_AddNumberToObject(o, "index", index);
	return o;
}

static void
anth_block_start(struct reply *r, int index, cJSON *block)
{
	cJSON *ev = anth_event("content_block_start", index);

	cJSON_AddItemToObject(ev, "content_block", block);
	sse_event(r, "content_block_start", ev);
}

static void
anth_delta(struct reply *r, int index, const char *dtype, const char *key, const char *s, size_t n)
{
	cJSON *ev = anth_event("content_block_delta", index), *d;
	char *piece = xstrndup(s, n);

	d = cJSON_AddObjectToObject(ev, "delta");
	cJSON_AddStringToObject(d, "type", dtype);
	cJSON_AddStringToObject(d, key, piece);
	free(piece);
	sse_event(r, "content_block_delta", ev);
}

static void
anth_block_stop(struct reply *r, int index)
{
	sse_event(r, "content_block_stop", anth_event("content_block_stop", index));
}

/* Deltas of s split into irregular pieces; an empty s still gets one. */
static void
anth_split(struct reply *r, int index, const char *dtype, const char *key, const char *s, bool lead_empty)
{
	size_t n = strlen(s), pos = 0, turn = (size_t)index, end;

	if (lead_empty || n == 0)
		anth_delta(r, index, dtype, key, "", 0);
	while (pos < n) {
		end = split_next(s, n, pos, &turn);
		anth_delta(r, index, dtype, key, s + pos, end - pos);
		pos = end;
	}
}

static void
anth_thinking(struct reply *r, int index, const char *thinking, const char *sig)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "thinking");
	cJSON_AddStringToObject(b, "thinking", "");
	cJSON_AddStringToObject(b, "signature", "");
	anth_block_start(r, index, b);
	anth_split(r, index, "thinking_delta", "thinking", thinking, false);
	anth_delta(r, index, "signature_delta", "signature", sig, strlen(sig));
	anth_block_stop(r, index);
}

static void
anth_tool(struct reply *r, int index, const cJSON *t)
{
	cJSON *b = cJSON_CreateObject();
	char *input = json_print(json_get(t, "input"));

	cJSON_AddStringToObject(b, "type", "tool_use");
	cJSON_AddStringToObject(b, "id", json_str(t, "id", ""));
	cJSON_AddStringToObject(b, "name", json_str(t, "name", ""));
	cJSON_AddItemToObject(b, "input", cJSON_CreateObject());
	anth_block_start(r, index, b);
	/* An empty input streams as a single "" fragment, as the API does. */
	anth_split(r, index, "input_json_delta", "partial_json",
	    strcmp(input, "{}") == 0 ? "" : input, true);
	anth_block_stop(r, index);
	free(input);
}

static void
anth_message_start(const struct call *k, struct reply *r, const struct usage *u)
{
	cJSON *ev, *msg;
	char id[64];

	ev = anth_event("message_start", -1);
	msg = cJSON_AddObjectToObject(ev, "message");
	snprintf(id, sizeof id, "msg_mock_%06d", k->n);
	cJSON_AddStringToObject(msg, "id", id);
	cJSON_AddStringToObject(msg, "type", "message");
	cJSON_AddStringToObject(msg, "role", "assistant");
	cJSON_AddStringToObject(msg, "model", reply_model(k));
	cJSON_AddItemToObject(msg, "content", cJSON_CreateArray());
	cJSON_AddNullToObject(msg, "stop_reason");
	cJSON_AddNullToObject(msg, "stop_sequence");
	cJSON_AddItemToObject(msg, "usage", anth_usage(u, true));
	sse_event(r, "message_start", ev);
}

static void
render_anthropic(struct call *k, struct reply *r, const struct usage *u, const cJSON *tools, const char *sig)
{
	const struct resp *rs = k->resp;
	cJSON *ev, *b, *d;
	const cJSON *t;
	int index = 0;

	anth_message_start(k, r, u);
	sse_event(r, "ping", anth_event("ping", -1));
	if (rs->redacted != NULL) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "redacted_thinking");
		cJSON_AddStringToObject(b, "data", rs->redacted);
		anth_block_start(r, index, b);
		anth_block_stop(r, index++);
	}
	if (rs->thinking != NULL)
		anth_thinking(r, index++, rs->thinking, sig);
	if (rs->text != NULL) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", "");
		anth_block_start(r, index, b);
		if (rs->text[0] != '\0')
			anth_split(r, index, "text_delta", "text", rs->text, false);
		anth_block_stop(r, index++);
	}
	cJSON_ArrayForEach(t, tools)
		anth_tool(r, index++, t);
	ev = anth_event("message_delta", -1);
	d = cJSON_AddObjectToObject(ev, "delta");
	cJSON_AddStringToObject(d, "stop_reason", stop_reason(rs, cJSON_GetArraySize(tools) > 0, 0));
	cJSON_AddNullToObject(d, "stop_sequence");
	cJSON_AddItemToObject(ev, "usage", anth_usage(u, false));
	k->usage = cJSON_Duplicate(json_get(ev, "usage"), true);
	sse_event(r, "message_delta", ev);
	sse_event(r, "message_stop", anth_event("message_stop", -1));
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
	cJSON_AddStringToObject(o, "model", reply_model(k));
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
		end = split_next(s, n, pos, &turn);
		piece = xstrndup(s + pos, end - pos);
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, key, piece);
		sse_event(r, NULL, oai_chunk(k, d, NULL, created));
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
		end = first ? 0 : split_next(args, n, pos, &turn);
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
		sse_event(r, NULL, oai_chunk(k, d, NULL, created));
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

static void
render_openai(struct call *k, struct reply *r, const struct usage *u, const cJSON *tools)
{
	const struct resp *rs = k->resp;
	double created = (double)time(NULL);
	const cJSON *t;
	cJSON *d, *last;
	int index = 0;

	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "role", "assistant");
	cJSON_AddStringToObject(d, "content", "");
	sse_event(r, NULL, oai_chunk(k, d, NULL, created));
	/* Reasoning goes where llama.cpp and vLLM put it. */
	if (rs->thinking != NULL)
		oai_split(k, r, "reasoning_content", rs->thinking, created);
	if (rs->text != NULL)
		oai_split(k, r, "content", rs->text, created);
	cJSON_ArrayForEach(t, tools)
		oai_tool(k, r, index++, t, created);
	sse_event(r, NULL, oai_chunk(k, cJSON_CreateObject(),
	    stop_reason(rs, cJSON_GetArraySize(tools) > 0, 1), created));
	last = oai_chunk(k, NULL, NULL, created);
	cJSON_ReplaceItemInObjectCaseSensitive(last, "usage", oai_usage(u));
	k->usage = cJSON_Duplicate(json_get(last, "usage"), true);
	sse_event(r, NULL, last);
	sse_raw(r, "data: [DONE]\n\n");
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
		sse_raw(r, "data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"server_error\","
		    "\"param\":null,\"code\":null}}\n\n");
		sse_raw(r, "data: [DONE]\n\n");
	} else {
		sse_raw(r, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
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
		render_openai(k, r, u, *tools);
	else
		render_anthropic(k, r, u, *tools, *sig);
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
		reply_header(r, "content-type", "text/plain; charset=utf-8");
		buf_puts(&r->body, b->valuestring);
		return;
	}
	reply_header(r, "content-type", "application/json");
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
		reply_header(r, name, e->valuestring);
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
	reply_header(r, "content-type", "application/json");
	if (status == 429 && k->resp->fault_retry_ms >= 0) {
		snprintf(ms, sizeof ms, "%ld", k->resp->fault_retry_ms);
		reply_header(r, "retry-after-ms", ms);
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

static void
render(struct call *k, struct reply *r)
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
		usage_compute(k, &u);
	if (rs->kind == RK_ERROR) {
		render_error(k, r);
	} else {
		r->stream = true;
		reply_header(r, "content-type", "text/event-stream; charset=utf-8");
		reply_header(r, "cache-control", "no-cache");
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

static void check_models(struct call *);

/* ---------------------------------------------------------------------
 * Handling one request: check, choose, render, log.
 */

static enum proto
route(const char *path)
{
	if (strcmp(path, "/v1/messages") == 0)
		return P_ANTHROPIC;
	if (strcmp(path, "/v1/chat/completions") == 0)
		return P_OPENAI;
	return P_NONE;
}

static void
call_check(struct call *k)
{
	struct req *rq = k->rq;
	int line, col;

	if (strcmp(rq->method, "POST") != 0) {
		problem(k, "method %s: %s takes POST", rq->method, rq->path);
		return;
	}
	if (k->proto == P_ANTHROPIC)
		check_anthropic_headers(k);
	else
		check_openai_headers(k);
	if (rq->body.len == 0) {
		problem(k, "body: a JSON object is required");
		return;
	}
	k->body = json_parse_at(rq->body.data, rq->body.len, &line, &col);
	if (k->body == NULL) {
		problem(k, "body: not valid JSON (line %d, column %d)", line, col);
		return;
	}
	if (!cJSON_IsObject(k->body)) {
		problem(k, "body: expected a JSON object");
		return;
	}
	if (k->proto == P_ANTHROPIC)
		check_anthropic(k);
	else
		check_openai(k);
	conv_key(k);
	check_sent(k);
	if (k->proto == P_ANTHROPIC)
		check_signatures(k);
	check_models(k);
}

/* A response whose "match" is in the body, else the next one in order. */
static struct resp *
pick(struct mock *m, const char *body)
{
	size_t i;

	for (i = 0; i < m->nresps; i++)
		if (m->resps[i].remaining > 0 && m->resps[i].match != NULL &&
		    strstr(body, m->resps[i].match) != NULL)
			return &m->resps[i];
	for (i = 0; i < m->nresps; i++)
		if (m->resps[i].remaining > 0 && m->resps[i].match == NULL)
			return &m->resps[i];
	return NULL;
}

static void
call_expect(struct call *k, const struct resp *r, const char *body)
{
	const cJSON *e;

	if (cJSON_IsString(r->expect) && strstr(body, r->expect->valuestring) == NULL)
		problem(k, "the request does not contain \"%s\" (scenario response %d expects it)",
		    r->expect->valuestring, r->index);
	cJSON_ArrayForEach(e, (cJSON_IsArray(r->expect) ? r->expect : NULL)) {
		if (strstr(body, e->valuestring) == NULL)
			problem(k, "the request does not contain \"%s\" (scenario response %d expects it)",
			    e->valuestring, r->index);
	}
	if (cJSON_IsString(r->expect_absent) && strstr(body, r->expect_absent->valuestring) != NULL)
		problem(k, "the request contains \"%s\" (scenario response %d forbids it)",
		    r->expect_absent->valuestring, r->index);
	cJSON_ArrayForEach(e, (cJSON_IsArray(r->expect_absent) ? r->expect_absent : NULL)) {
		if (strstr(body, e->valuestring) != NULL)
			problem(k, "the request contains \"%s\" (scenario response %d forbids it)",
			    e->valuestring, r->index);
	}
}

static void
call_select(struct call *k)
{
	const char *body = buf_cstr(&k->rq->body);
	struct resp *r = pick(k->m, body);

	if (r == NULL) {
		problem(k, "the scenario has no response left for request %d (%zu scripted, all used)",
		    k->n, k->m->nresps);
		return;
	}
	call_expect(k, r, body);
	if (cJSON_GetArraySize(k->problems) > 0)
		return;
	k->resp = r;
	r->remaining--;
}

/* The request's method, path, target and headers, into a log record. */
static void
log_request_head(cJSON *o, const struct req *rq)
{
	cJSON_AddStringToObject(o, "method", rq->method != NULL ? rq->method : "");
	cJSON_AddStringToObject(o, "path", rq->path != NULL ? rq->path : "");
	cJSON_AddStringToObject(o, "target", rq->target != NULL ? rq->target : "");
	cJSON_AddItemToObject(o, "headers", rq->headers != NULL ?
	    cJSON_Duplicate(rq->headers, true) : cJSON_CreateObject());
}

/* Write one record to the log as a line, and free it. */
static void
log_write(struct mock *m, cJSON *o)
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
	cJSON *o;

	if (m->log == NULL)
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", k->n);
	log_request_head(o, rq);
	cJSON_AddNumberToObject(o, "body_bytes", (double)rq->body.len);
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
		cJSON_AddStringToObject(o, "fault", fault_names[k->fault]);
		if (k->fault_at >= 0)
			cJSON_AddNumberToObject(o, "fault_at", (double)k->fault_at);
	} else {
		cJSON_AddNullToObject(o, "fault");
	}
	if (k->usage != NULL)
		cJSON_AddItemToObject(o, "usage", cJSON_Duplicate(k->usage, true));
	else
		cJSON_AddNullToObject(o, "usage");
	log_write(m, o);
}

static void
call_finish(struct call *k, struct reply *r)
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
}

/* ---------------------------------------------------------------------
 * The model endpoints: the Anthropic Models API, OpenAI's /v1/models,
 * llama.cpp's /props, Ollama's /api/ps and /api/show.  They are not
 * scripted responses: they answer from the scenario's "models" and the
 * like, 404 where it has none, and are logged (with "kind": "models" and
 * "n": 0) only when the scenario describes models.
 */

static const cJSON *
models_find(const struct mock *m, const char *id)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, m->models)
		if (strcmp(json_str(it, "id", ""), id) == 0)
			return it;
	return NULL;
}

/* A path segment with %XX decoded (the caller frees). */
static char *
unescape_dup(const char *s)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	unsigned v;

	for (; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] != '\0' && s[2] != '\0' && sscanf(s + 1, "%2x", &v) == 1) {
			buf_putc(&b, (int)v);
			s += 2;
		} else {
			buf_putc(&b, *s);
		}
	}
	return buf_detach(&b, NULL);
}

static bool
is_models_route(const char *path)
{
	return strcmp(path, "/v1/models") == 0 || strncmp(path, "/v1/models/", 11) == 0 ||
	    strcmp(path, "/props") == 0 || strcmp(path, "/api/ps") == 0 ||
	    strcmp(path, "/api/show") == 0;
}

static void
models_reply(struct reply *r, int status, const cJSON *body, const char *error)
{
	cJSON *e = NULL;

	r->status = status;
	reply_header(r, "content-type", "application/json");
	if (body == NULL) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "type", "error");
		cJSON_AddItemToObject(e, "error", cJSON_CreateObject());
		cJSON_AddStringToObject(json_get(e, "error"), "type", "not_found_error");
		cJSON_AddStringToObject(json_get(e, "error"), "message", error);
		body = e;
	}
	json_append(&r->body, body);
	cJSON_Delete(e);
}

static void
models_log(struct mock *m, const struct req *rq, int status)
{
	cJSON *o;

	if (m->log == NULL || (m->models == NULL && m->openai_models == NULL &&
	    m->llamacpp_props == NULL && m->ollama_ps == NULL && m->ollama_show == NULL))
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", 0);
	cJSON_AddStringToObject(o, "kind", "models");
	log_request_head(o, rq);
	cJSON_AddNumberToObject(o, "status", status);
	cJSON_AddNumberToObject(o, "t_ms", (double)(mock_now() - m->started));
	log_write(m, o);
}

static void
mock_models(struct mock *m, struct conn *c)
{
	const struct req *rq = &c->rq;
	const char *path = rq->path;
	cJSON *list = NULL, *body = NULL;
	const cJSON *hit = NULL;

	reply_release(&c->r);
	reply_init(&c->r);
	if (strcmp(path, "/v1/models") == 0 && m->openai_models != NULL) {
		hit = m->openai_models;
	} else if (strcmp(path, "/v1/models") == 0 && m->models != NULL) {
		const cJSON *it;

		list = cJSON_CreateObject();
		cJSON_AddItemToObject(list, "data", cJSON_CreateArray());
		cJSON_ArrayForEach(it, m->models)
			cJSON_AddItemToArray(json_get(list, "data"), cJSON_Duplicate(it, true));
		cJSON_AddBoolToObject(list, "has_more", 0);
		hit = list;
	} else if (strncmp(path, "/v1/models/", 11) == 0 && m->models != NULL) {
		char *id = unescape_dup(path + 11);

		hit = models_find(m, id);
		free(id);
	} else if (strcmp(path, "/props") == 0) {
		hit = m->llamacpp_props;
	} else if (strcmp(path, "/api/ps") == 0) {
		hit = m->ollama_ps;
	} else if (strcmp(path, "/api/show") == 0 && m->ollama_show != NULL) {
		body = cJSON_ParseWithLength(rq->body.data != NULL ? rq->body.data : "", rq->body.len);
		hit = json_get(m->ollama_show, json_str(body, "model", json_str(body, "name", "")));
	}
	models_reply(&c->r, hit != NULL ? 200 : 404, hit, "not found");
	models_log(m, rq, c->r.status);
	mock_trace(m, "models %s %s -> %d", rq->method, rq->target, c->r.status);
	cJSON_Delete(list);
	cJSON_Delete(body);
}

/*
 * With the scenario's "models", /v1/messages is checked against the
 * model's ModelInfo as the real API checks it: a model it does not have,
 * max_tokens above the limit, a thinking type or effort level the model
 * does not take, and (for a model without budget thinking) sampling
 * parameters.
 */
static void
check_models(struct call *k)
{
	const cJSON *info, *caps, *th, *eff;
	const char *model = json_str(k->body, "model", ""), *type, *level;
	static const char *const sampling[] = { "temperature", "top_p", "top_k", NULL };
	int i;

	if (k->m->models == NULL || k->proto != P_ANTHROPIC)
		return;
	info = models_find(k->m, model);
	if (info == NULL) {
		k->not_found = true;
		problem(k, "model: %s", model);
		return;
	}
	if (json_int(info, "max_tokens", 0) > 0 &&
	    json_int(k->body, "max_tokens", 0) > json_int(info, "max_tokens", 0))
		problem(k, "max_tokens: %lld > %lld, which is the maximum allowed number of output "
		    "tokens for %s", (long long)json_int(k->body, "max_tokens", 0),
		    (long long)json_int(info, "max_tokens", 0), model);
	caps = json_get(info, "capabilities");
	th = json_get(k->body, "thinking");
	type = json_str(th, "type", NULL);
	if (type != NULL && strcmp(type, "disabled") != 0 &&
	    !json_bool(json_get(json_get(json_get(caps, "thinking"), "types"), type), "supported", false))
		problem(k, "thinking.type.%s is not supported for this model", type);
	level = json_str(json_get(k->body, "output_config"), "effort", NULL);
	eff = json_get(caps, "effort");
	if (level != NULL && !json_bool(json_get(eff, level), "supported", false))
		problem(k, "output_config.effort: \"%s\" is not supported for this model", level);
	if (!json_bool(json_get(json_get(json_get(caps, "thinking"), "types"), "enabled"), "supported", false))
		for (i = 0; sampling[i] != NULL; i++)
			if (json_get(k->body, sampling[i]) != NULL)
				problem(k, "%s: only the default is supported for this model", sampling[i]);
}

static void
mock_handle(struct mock *m, struct conn *c)
{
	struct call k;
	char *msg;

	if (is_models_route(c->rq.path)) {
		mock_models(m, c);
		return;
	}
	memset(&k, 0, sizeof k);
	k.m = m;
	k.n = ++m->nreq;
	k.rq = &c->rq;
	k.problems = cJSON_CreateArray();
	k.proto = route(c->rq.path);
	reply_release(&c->r);
	reply_init(&c->r);
	if (k.proto == P_NONE) {
		problem(&k, "no such route: %s %s (the mock serves POST /v1/messages and "
		    "POST /v1/chat/completions)", c->rq.method, c->rq.path);
		reply_error(&k, &c->r, 404, cJSON_GetArrayItem(k.problems, 0)->valuestring);
	} else {
		call_check(&k);
		if (cJSON_GetArraySize(k.problems) == 0)
			call_select(&k);
		if (cJSON_GetArraySize(k.problems) > 0) {
			msg = problems_text(k.problems);
			reply_error(&k, &c->r, k.not_found ? 404 : 400, msg);
			free(msg);
		} else
			render(&k, &c->r);
	}
	call_finish(&k, &c->r);
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
	problem(&k, "malformed HTTP request: %s", why);
	reply_release(&c->r);
	reply_init(&c->r);
	reply_error(&k, &c->r, status, why);
	c->r.close = true;
	call_finish(&k, &c->r);
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
	const char *te = hdr(rq, "transfer-encoding"), *cl = hdr(rq, "content-length");
	const char *conn = hdr(rq, "connection");
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
	reply_init(&c->r);
	return c;
}

static void
conn_free(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	buf_release(&c->in);
	buf_release(&c->out);
	req_release(&c->rq);
	buf_release(&c->rq.body);
	reply_release(&c->r);
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
	buf_printf(&r->head, "HTTP/1.%d %d %s\r\n", http11 ? 1 : 0, r->status, status_reason(r->status));
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
	reply_release(&c->r);
	reply_init(&c->r);
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
		const char *expect = hdr(&c->rq, "expect");

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
			conn_free(m->conns[i]);
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
		text = read_file(o->scenario_path, &len, err, errlen);
		base = dir_of(o->scenario_path);
	} else if (o->scenario_text != NULL) {
		text = xstrdup(o->scenario_text);
		len = strlen(text);
		base = xstrdup(o->base_dir != NULL ? o->base_dir : ".");
	} else
		errf(err, errlen, "no scenario given");
	if (text == NULL)
		goto out;
	if (scen_load(m, text, len, base, err, errlen) == -1)
		goto out;
	if (o->log_path != NULL) {
		m->log = fopen(o->log_path, "we");
		if (m->log == NULL) {
			errf(err, errlen, "cannot open %s: %s", o->log_path, strerror(errno));
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
		errf(err, errlen, "port %d is out of range", m->port_wanted);
		return -1;
	}
	m->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->lfd == -1) {
		errf(err, errlen, "socket: %s", strerror(errno));
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
		errf(err, errlen, "cannot listen on 127.0.0.1:%d: %s", m->port_wanted, strerror(errno));
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
		conn_free(m->conns[i]);
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
