/* The mock model server: the scenario (see mock_int.h). */
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
 * The scenario.
 */

static const char *const resp_keys[] = {
	"text", "thinking", "signature", "redacted_thinking", "tool_uses",
	"stop_reason", "usage", "model", "fixture", "status", "body",
	"headers", "chunk", "delay_ms", "first_byte_delay_ms",
	"close_after_bytes", "stall_after_bytes", "stall_ms",
	"error_after_bytes", "close_at_end", "match", "match_last", "group", "repeat", "expect_contains",
	"expect_absent", "faults", "comment", "web_search", NULL
};

/* Keys that only a scripted message may carry. */
static const char *const message_keys[] = {
	"text", "thinking", "signature", "redacted_thinking", "tool_uses",
	"stop_reason", "usage", "model", "web_search", NULL
};

static const char *const usage_keys[] = {
	"input_tokens", "output_tokens", "cache_creation_input_tokens",
	"cache_read_input_tokens", NULL
};

bool
mock_key_in(const char *key, const char *const *list)
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
		mock_errf(err, errlen, "responses[%d].%s: expected a string or an array of strings", i, what);
		return -1;
	}
	cJSON_ArrayForEach(s, v) {
		if (!cJSON_IsString(s)) {
			mock_errf(err, errlen, "responses[%d].%s: expected strings", i, what);
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
		mock_errf(err, errlen, "responses[%d].tool_uses: expected an array", i);
		return -1;
	}
	cJSON_ArrayForEach(t, arr) {
		if (!cJSON_IsObject(t) || !cJSON_IsString(json_get(t, "name"))) {
			mock_errf(err, errlen, "responses[%d].tool_uses[%d]: expected an object with a \"name\"", i, j);
			return -1;
		}
		cJSON_ArrayForEach(k, t) {
			if (strcmp(k->string, "id") == 0 && cJSON_IsString(k))
				continue;
			if (strcmp(k->string, "input") == 0 && cJSON_IsObject(k))
				continue;
			if (strcmp(k->string, "name") == 0)
				continue;
			mock_errf(err, errlen, "responses[%d].tool_uses[%d]: bad key \"%s\" (id: string, name: string, input: object)",
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
		mock_errf(err, errlen, "responses[%d].usage: expected \"auto\" or an object", i);
		return -1;
	}
	cJSON_ArrayForEach(k, u) {
		if (!mock_key_in(k->string, usage_keys) || scen_long(u, k->string, 0) < 0) {
			mock_errf(err, errlen, "responses[%d].usage.%s: expected one of input_tokens, output_tokens, "
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
		mock_errf(err, errlen, "responses[%d].headers: expected an object of strings", i);
		return -1;
	}
	cJSON_ArrayForEach(k, h) {
		bool ok = cJSON_IsString(k) && k->string[0] != '\0';

		for (p = k->string; ok && *p != '\0'; p++)
			ok = *p > ' ' && *p < 0x7f && *p != ':';
		for (p = ok ? k->valuestring : ""; ok && *p != '\0'; p++)
			ok = *p != '\r' && *p != '\n';
		if (!ok) {
			mock_errf(err, errlen, "responses[%d].headers.%s: expected a header name and a one-line string", i, k->string);
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
	r->fixture = mock_read_file(buf_cstr(&full), &r->fixture_len, ferr, sizeof ferr);
	buf_release(&full);
	if (r->fixture == NULL) {
		mock_errf(err, errlen, "responses[%d].fixture: %s", r->index, ferr);
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
		mock_errf(err, errlen, "responses[%d]: \"fixture\" and \"status\" cannot be combined", r->index);
		return -1;
	}
	cJSON_ArrayForEach(k, o) {
		if (!mock_key_in(k->string, resp_keys)) {
			mock_errf(err, errlen, "responses[%d]: unknown key \"%s\"", r->index, k->string);
			return -1;
		}
		if ((fixture || status) && mock_key_in(k->string, message_keys)) {
			mock_errf(err, errlen, "responses[%d]: \"%s\" cannot be combined with \"%s\"",
			    r->index, k->string, fixture ? "fixture" : "status");
			return -1;
		}
		if (!status && strcmp(k->string, "body") == 0) {
			mock_errf(err, errlen, "responses[%d]: \"body\" needs a \"status\"", r->index);
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
			mock_errf(err, errlen, "responses[%d].%s: expected a non-negative integer", r->index, names[i]);
			return -1;
		}
		if (slots[i] != NULL)
			*slots[i] = v;
		else
			repeat = v;
	}
	if (repeat == 0) {
		mock_errf(err, errlen, "responses[%d].repeat: must be at least 1", r->index);
		return -1;
	}
	r->remaining = repeat > 0 ? (int)repeat : 1;
	if (r->chunk == 0) {
		mock_errf(err, errlen, "responses[%d].chunk: must be at least 1", r->index);
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
		mock_errf(err, errlen, "responses[%d].faults.kinds: expected a non-empty array of fault names", r->index);
		return -1;
	}
	cJSON_ArrayForEach(k, kinds) {
		for (i = 1; mock_fault_names[i] != NULL; i++)
			if (cJSON_IsString(k) && strcmp(k->valuestring, mock_fault_names[i]) == 0)
				break;
		if (mock_fault_names[i] == NULL || r->nkinds == FAULT_KINDS_MAX) {
			mock_errf(err, errlen, "responses[%d].faults.kinds: expected at most %d of drop, error, stall, "
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
		mock_errf(err, errlen, "responses[%d].faults: expected an object, on a message or a fixture", r->index);
		return -1;
	}
	cJSON_ArrayForEach(k, f) {
		if (!mock_key_in(k->string, keys)) {
			mock_errf(err, errlen, "responses[%d].faults: unknown key \"%s\"", r->index, k->string);
			return -1;
		}
	}
	seed = scen_long(f, "seed", 1);
	r->fault_stall_ms = scen_long(f, "stall_ms", -1);
	r->fault_slow_ms = scen_long(f, "slow_ms", 1);
	r->fault_retry_ms = scen_long(f, "retry_after_ms", -1);
	if (seed == -2 || r->fault_stall_ms == -2 || r->fault_slow_ms == -2 || r->fault_retry_ms == -2) {
		mock_errf(err, errlen, "responses[%d].faults: seed, stall_ms, slow_ms and retry_after_ms take "
		    "non-negative integers", r->index);
		return -1;
	}
	if (!cJSON_IsNumber(rate) || rate->valuedouble < 0 || rate->valuedouble > 1) {
		mock_errf(err, errlen, "responses[%d].faults.rate: expected a number from 0 to 1", r->index);
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
		mock_errf(err, errlen, "responses[%d]: expected an object", r->index);
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
	r->group = scen_str(o, "group", &bad);
	fixture = scen_str(o, "fixture", &bad);
	if (bad) {
		mock_errf(err, errlen, "responses[%d]: text, thinking, signature, redacted_thinking, stop_reason, "
		    "model, match, group and fixture take strings", r->index);
		return -1;
	}
	if (r->signature != NULL && r->thinking == NULL) {
		mock_errf(err, errlen, "responses[%d]: \"signature\" needs \"thinking\"", r->index);
		return -1;
	}
	r->tool_uses = json_get(o, "tool_uses");
	if (r->tool_uses != NULL && scen_tool_uses(r->tool_uses, r->index, err, errlen) == -1)
		return -1;
	r->web_search = json_get(o, "web_search");
	if (mock_websearch_check(r->web_search, r->index, err, errlen) == -1)
		return -1;
	r->usage = json_get(o, "usage");
	if (scen_usage(r->usage, r->index, err, errlen) == -1)
		return -1;
	if (cJSON_IsString(r->usage))
		r->usage = NULL;
	if (json_get(o, "close_at_end") != NULL && !cJSON_IsBool(json_get(o, "close_at_end"))) {
		mock_errf(err, errlen, "responses[%d].close_at_end: expected true or false", r->index);
		return -1;
	}
	r->close_at_end = cJSON_IsTrue(json_get(o, "close_at_end"));
	r->headers = json_get(o, "headers");
	r->expect = json_get(o, "expect_contains");
	r->expect_absent = json_get(o, "expect_absent");
	r->match_last = json_get(o, "match_last");
	if (scen_headers(r->headers, r->index, err, errlen) == -1 ||
	    scen_strings(r->match_last, "match_last", r->index, err, errlen) == -1 ||
	    scen_strings(r->expect, "expect_contains", r->index, err, errlen) == -1 ||
	    scen_strings(r->expect_absent, "expect_absent", r->index, err, errlen) == -1)
		return -1;
	if (r->kind == RK_ERROR) {
		r->status = (int)scen_long(o, "status", 0);
		if (r->status < 200 || r->status > 599) {
			mock_errf(err, errlen, "responses[%d].status: expected an HTTP status (200-599)", r->index);
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
		mock_errf(err, errlen, "the scenario must be an object with a \"responses\" array");
		return -1;
	}
	cJSON_ArrayForEach(k, root) {
		if (!mock_key_in(k->string, top_keys)) {
			mock_errf(err, errlen, "unknown top-level key \"%s\"", k->string);
			return -1;
		}
	}
	ttl = scen_long(root, "cache_ttl_ms", MOCK_TTL_DEFAULT);
	min = scen_long(root, "cache_min_tokens", 0);
	if (ttl < 0 || min < 0) {
		mock_errf(err, errlen, "cache_ttl_ms and cache_min_tokens take non-negative integers");
		return -1;
	}
	if ((json_get(root, "require_all") != NULL && !cJSON_IsBool(json_get(root, "require_all"))) ||
	    (json_get(root, "check_echo") != NULL && !cJSON_IsBool(json_get(root, "check_echo")))) {
		mock_errf(err, errlen, "require_all and check_echo take true or false");
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
		mock_errf(err, errlen, "\"models\" takes an array of ModelInfo objects, \"openai_models\" "
		    "a list object");
		return -1;
	}
	m->check_echo = json_bool(root, "check_echo", true);
	if (m->ttl_ms < 0)
		m->ttl_ms = ttl;
	m->cache_min_tokens = min;
	return 0;
}

int
mock_scen_load(struct mock *m, const char *text, size_t len, const char *base, char *err, size_t errlen)
{
	const cJSON *arr, *o;
	int line, col, i = 0;

	m->scenario = json_parse_at(text, len, &line, &col);
	if (m->scenario == NULL) {
		mock_errf(err, errlen, "the scenario is not valid JSON (line %d, column %d)", line, col);
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
char *
mock_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}
