/*
 * mock_int: what the files of the mock model server share: the scenario's
 * responses, the server, its connections and requests, and the functions
 * one file calls in another.  The server is split by what it speaks:
 * mock_scenario.c loads the scenario; mock_anthropic.c and mock_openai.c
 * check and answer their protocols; mock_echo.c checks that what the mock
 * sent comes back; mock_cache.c simulates the prompt cache and the usage;
 * mock_render.c renders replies and their faults; mock_models.c answers
 * the model endpoints; mock_http.c is the HTTP/1.1 server and its loop;
 * mock.c holds the shared helpers, handling one request and the public API
 * (mock.h).  Internal to tests/mock/.
 */
#ifndef TANDEM_MOCK_INT_H
#define TANDEM_MOCK_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "sha256.h"

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

extern const char *const mock_fault_names[];	/* by enum fault, NULL-terminated */

#define FAULT_KINDS_MAX	16

/* One scripted response; the strings point into the scenario tree. */
struct resp {
	enum resp_kind	 kind;
	int		 index;
	const char	*text, *thinking, *signature, *redacted;
	const char	*stop_reason, *model, *match;
	const char	*group;		/* serving one uses up the others of its group */
	const cJSON	*tool_uses;	/* array of {id?, name, input?} */
	const cJSON	*usage;		/* explicit figures, or NULL: auto */
	const cJSON	*headers;	/* object of strings, or NULL */
	const cJSON	*body;		/* error body, or NULL: the default */
	const cJSON	*expect;	/* strings the request must contain */
	const cJSON	*expect_absent;	/* strings it must not contain */
	const cJSON	*match_last;	/* strings the newest input must contain */
	const cJSON	*web_search;	/* the server tool's blocks to send (mock_websearch.c), or NULL */
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
	char		*text;		/* resp's text with its {{after:...}} filled, or NULL */
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

/* A tool call id of the request and the assistant message that carries it. */
struct call_ref {
	const char	*id;
	const cJSON	*msg;
	int		 at;	/* the message's index */
};

/* Logging, small JSON helpers, the shared checks, handling one request (mock.c). */

/* Milliseconds on the monotonic clock. */
int64_t mock_now(void);

void mock_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void mock_trace(struct mock *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

char *mock_read_file(const char *path, size_t *lenp, char *err, size_t errlen);

void mock_problem(struct call *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *mock_hdr(const struct req *rq, const char *name);

bool mock_is_int(const cJSON *v);

bool mock_str_eq(const cJSON *v, const char *s);

/* The compact JSON of a block (or array of blocks) without cache_control. */
char *mock_canon_block(const cJSON *block);

/* content as an array of blocks: a string becomes one text block (caller deletes). */
cJSON *mock_content_blocks(const cJSON *content);

void mock_hash_chain(const char *prev, const char *tag, const char *text, char out[MOCK_HASH_LEN]);

void mock_check_content_type(struct call *k);

void mock_check_model_stream(struct call *k);

enum proto mock_route(const char *path);

void mock_call_check(struct call *k);

void mock_call_select(struct call *k);

/* The request's method, path, target and headers, into a log record. */
void mock_log_request_head(cJSON *o, const struct req *rq);

/* Write one record to the log as a line, and free it. */
void mock_log_write(struct mock *m, cJSON *o);

void mock_call_finish(struct call *k, struct reply *r);

/* The scenario (mock_scenario.c). */

bool mock_key_in(const char *key, const char *const *list);

int mock_scen_load(struct mock *m, const char *text, size_t len, const char *base, char *err, size_t errlen);

/* The directory part of path ("." when it has none); the caller frees. */
char *mock_dir_of(const char *path);

/* Anthropic Messages: checks and streamed replies (mock_anthropic.c). */

void mock_check_anthropic_headers(struct call *k);

int mock_ids_find(const cJSON *ids, const char *id);

/* "a, b, c" from an array of strings or of objects with an "id"; the caller frees. */
char *mock_ids_join(const cJSON *ids);

int mock_call_ref_cmp(const void *a, const void *b);

bool mock_tool_name_ok(const char *s);

void mock_check_anthropic(struct call *k);
/* The web search server tool (mock_websearch.c): a scenario's "web_search", its check and blocks. */
int mock_websearch_check(const cJSON *ws, int index, char *err, size_t errlen);
void mock_websearch_check_request(struct call *k, const struct resp *r);
/* The blocks from index on; the next index. */
int mock_websearch_render(struct call *k, struct reply *r, int index);
void mock_websearch_usage(const struct call *k, cJSON *usage);

void mock_render_anthropic(struct call *k, struct reply *r, const struct usage *u, const cJSON *tools, const char *sig);

/* OpenAI chat completions: checks and streamed replies (mock_openai.c). */

void mock_check_openai_headers(struct call *k);

void mock_check_openai(struct call *k);

void mock_render_openai(struct call *k, struct reply *r, const struct usage *u, const cJSON *tools);

/* What the mock sent must come back (mock_echo.c). */

void mock_check_sent(struct call *k);

/* Every thinking block whose signature the mock issued must carry its own text. */
void mock_check_signatures(struct call *k);

/* The prompt cache and usage (mock_cache.c). */

long mock_output_tokens(const struct resp *r);

void mock_usage_compute(struct call *k, struct usage *u);

/* Rendering replies, faults (mock_render.c). */

const char *mock_status_reason(int status);

void mock_reply_init(struct reply *r);

void mock_reply_release(struct reply *r);

void mock_reply_header(struct reply *r, const char *name, const char *value);

/* Append "event: NAME" (if any) and "data: JSON" as one event; takes data. */
void mock_sse_event(struct reply *r, const char *event, cJSON *data);

void mock_sse_raw(struct reply *r, const char *text);

void mock_reply_error(const struct call *k, struct reply *r, int status, const char *message);

/* Turn the problems into one message, as the real API names one. */
char *mock_problems_text(const cJSON *problems);

/* The end of the next piece of s from pos, never inside a UTF-8 sequence. */
size_t mock_split_next(const char *s, size_t n, size_t pos, size_t *turn);

/* The stop reason in the protocol's words (Anthropic: col 0, OpenAI: col 1). */
const char *mock_stop_reason(const struct resp *r, bool tools, int col);

const char *mock_reply_model(const struct call *k);

void mock_render(struct call *k, struct reply *r);

/* The model endpoints (mock_models.c). */

bool mock_is_models_route(const char *path);

void mock_models(struct mock *m, struct conn *c);

/*
 * With the scenario's "models", /v1/messages is checked against the
 * model's ModelInfo as the real API checks it: a model it does not have,
 * max_tokens above the limit, a thinking type or effort level the model
 * does not take, and (for a model without budget thinking) sampling
 * parameters.
 */
void mock_check_models(struct call *k);

/* HTTP/1.1 connections and the loop (mock_http.c). */

void mock_conn_free(struct conn *c);

#endif
