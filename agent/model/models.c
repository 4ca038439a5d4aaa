/* The built-in model table and the price file: see models.h. */
#include "autoconf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fsutil.h"
#include "json.h"
#include "models.h"
#include "xalloc.h"

/*
 * The offline fallback, by family: the provider's own answer (modelcat.h)
 * replaces it whenever there is one.  Longest prefix wins; "*" entries
 * match any name with that prefix.
 */
static const struct model_row {
	const char	*match;
	int64_t		 window;
	int64_t		 max_output;
	unsigned	 thinking;
	bool		 adaptive_default;
	const char	*effort;	/* comma-separated levels, or NULL */
	bool		 image;
	bool		 completion_tokens;
} model_rows[] = {
	{ "claude-opus-5*",	1000000, 128000, MODEL_THINK_ADAPTIVE, true, "low,medium,high,max", true, false },
	{ "claude-sonnet-5*",	1000000, 128000, MODEL_THINK_ADAPTIVE, true, "low,medium,high,max", true, false },
	{ "claude-fable-5*",	1000000, 128000, MODEL_THINK_ADAPTIVE, true, "low,medium,high,max", true, false },
	{ "claude-haiku-4*",	200000,	64000,	MODEL_THINK_ENABLED, false, NULL, true, false },
	{ "claude-opus-4*",	200000,	32000,	MODEL_THINK_ENABLED, false, NULL, true, false },
	{ "claude-opus-4-5*",	200000,	64000,	MODEL_THINK_ENABLED, false, "low,medium,high", true, false },
	{ "claude-sonnet-4*",	200000,	64000,	MODEL_THINK_ENABLED, false, NULL, true, false },
	{ "claude-3-7-sonnet*",	200000,	64000,	MODEL_THINK_ENABLED, false, NULL, true, false },
	{ "claude-3*",		200000,	8192,	0, false, NULL, true, false },
	{ "claude-*",		200000,	8192,	0, false, NULL, true, false },
	{ "gpt-5*",		400000,	128000,	0, false, NULL, true, true },
	{ "gpt-4.1*",		1047576, 32768,	0, false, NULL, true, false },
	{ "gpt-4o*",		128000,	16384,	0, false, NULL, true, false },
	{ "o1*",		200000,	100000,	0, false, NULL, true, true },
	{ "o3*",		200000,	100000,	0, false, NULL, true, true },
	{ "o4-mini*",		200000,	100000,	0, false, NULL, true, true },
	/* Local models (Ollama, llama.cpp, vLLM): the server says its real context. */
	{ "llama*",		131072,	0,	0, false, NULL, false, false },
	{ "qwen*",		131072,	0,	0, false, NULL, false, false },
	{ "mistral*",		32768,	0,	0, false, NULL, false, false },
	{ "gemma*",		131072,	0,	0, false, NULL, false, false },
	{ "deepseek*",		131072,	0,	0, false, NULL, false, false },
};

static const struct model_row model_unknown = { "unknown", 128000, 0, 0, false, NULL, false, false };

/* The length of match's prefix that name has, or -1. */
static long
model_match_len(const char *match, const char *name)
{
	size_t n = strlen(match);
	bool star = n > 0 && match[n - 1] == '*';

	if (star)
		n--;
	if (strncmp(name, match, n) != 0 || (!star && name[n] != '\0'))
		return -1;
	return (long)n;
}

/* A level's name goes into requests: a short word of [a-z0-9_-], or it is not kept. */
static bool
model_effort_name_ok(const char *level, size_t n)
{
	size_t i;

	if (n == 0 || n > 32)
		return false;
	for (i = 0; i < n; i++)
		if (!((level[i] >= 'a' && level[i] <= 'z') || (level[i] >= '0' && level[i] <= '9') ||
		    level[i] == '_' || level[i] == '-'))
			return false;
	return true;
}

void
model_add_effort(struct model_caps *c, const char *level, size_t n)
{
	if (c->neffort < MODEL_EFFORT_MAX && model_effort_name_ok(level, n))
		c->effort[c->neffort++] = xstrndup(level, n);
}

void
model_builtin(const char *model, struct model_caps *out)
{
	const struct model_row *best = &model_unknown;
	long bestlen = -1, l;
	const char *p, *q;
	size_t i;

	memset(out, 0, sizeof *out);
	for (i = 0; model != NULL && i < sizeof model_rows / sizeof model_rows[0]; i++) {
		l = model_match_len(model_rows[i].match, model);
		if (l > bestlen) {
			best = &model_rows[i];
			bestlen = l;
		}
	}
	out->id = xstrdup(model != NULL ? model : "");
	out->window = best->window;
	out->max_output = best->max_output;
	out->thinking = best->thinking;
	out->adaptive_default = best->adaptive_default;
	out->image_input = best->image;
	out->completion_tokens = best->completion_tokens;
	out->source = MODEL_TABLE;
	for (p = best->effort; p != NULL && *p != '\0'; p = *q != '\0' ? q + 1 : q) {
		q = strchr(p, ',');
		if (q == NULL)
			q = p + strlen(p);
		model_add_effort(out, p, (size_t)(q - p));
	}
}

void
model_caps_copy(struct model_caps *dst, const struct model_caps *src)
{
	int i;

	*dst = *src;
	dst->id = xstrdup(src->id != NULL ? src->id : "");
	for (i = 0; i < src->neffort; i++)
		dst->effort[i] = xstrdup(src->effort[i]);
}

void
model_caps_release(struct model_caps *c)
{
	int i;

	free(c->id);
	for (i = 0; i < c->neffort; i++)
		free(c->effort[i]);
	memset(c, 0, sizeof *c);
}

bool
model_has_effort(const struct model_caps *c, const char *level)
{
	int i;

	for (i = 0; level != NULL && i < c->neffort; i++)
		if (strcmp(c->effort[i], level) == 0)
			return true;
	return false;
}

const char *
model_thinking_name(const struct model_caps *c)
{
	switch (c->thinking & (MODEL_THINK_ADAPTIVE | MODEL_THINK_ENABLED)) {
	case MODEL_THINK_ADAPTIVE:
		return "adaptive";
	case MODEL_THINK_ENABLED:
		return "enabled";
	case MODEL_THINK_ADAPTIVE | MODEL_THINK_ENABLED:
		return "adaptive, enabled";
	default:
		return "none";
	}
}

static const char *const model_source_names[] = { "table", "cache", "server" };

cJSON *
model_caps_to_json(const struct model_caps *c)
{
	cJSON *o = cJSON_CreateObject(), *e;
	int i;

	cJSON_AddStringToObject(o, "id", c->id != NULL ? c->id : "");
	cJSON_AddNumberToObject(o, "window", (double)c->window);
	cJSON_AddNumberToObject(o, "max_output", (double)c->max_output);
	cJSON_AddBoolToObject(o, "thinking_adaptive", (c->thinking & MODEL_THINK_ADAPTIVE) != 0);
	cJSON_AddBoolToObject(o, "thinking_enabled", (c->thinking & MODEL_THINK_ENABLED) != 0);
	cJSON_AddBoolToObject(o, "adaptive_default", c->adaptive_default);
	e = cJSON_AddArrayToObject(o, "effort");
	for (i = 0; i < c->neffort; i++)
		cJSON_AddItemToArray(e, cJSON_CreateString(c->effort[i]));
	cJSON_AddBoolToObject(o, "image_input", c->image_input);
	cJSON_AddBoolToObject(o, "completion_tokens", c->completion_tokens);
	cJSON_AddStringToObject(o, "source", model_source_names[c->source]);
	cJSON_AddNumberToObject(o, "calib", c->calib);
	cJSON_AddNumberToObject(o, "fetched_at", (double)c->fetched_at);
	return o;
}

int
model_caps_from_json(const cJSON *o, struct model_caps *c)
{
	const cJSON *e;

	memset(c, 0, sizeof *c);
	if (!cJSON_IsObject(o) || !cJSON_IsString(json_get(o, "id")))
		return -1;
	c->id = xstrdup(json_str(o, "id", ""));
	c->window = json_int(o, "window", 0);
	c->max_output = json_int(o, "max_output", 0);
	if (json_bool(o, "thinking_adaptive", false))
		c->thinking |= MODEL_THINK_ADAPTIVE;
	if (json_bool(o, "thinking_enabled", false))
		c->thinking |= MODEL_THINK_ENABLED;
	c->adaptive_default = json_bool(o, "adaptive_default", false);
	cJSON_ArrayForEach(e, json_get(o, "effort"))
		if (cJSON_IsString(e))
			model_add_effort(c, e->valuestring, strlen(e->valuestring));
	c->image_input = json_bool(o, "image_input", false);
	c->completion_tokens = json_bool(o, "completion_tokens", false);
	c->source = MODEL_CACHE;
	e = json_get(o, "calib");
	c->calib = cJSON_IsNumber(e) ? e->valuedouble : 0;
	c->fetched_at = json_int(o, "fetched_at", 0);
	return 0;
}

/* ---------------------------------------------------------------------
 * Prices.
 */

#define PRICES_MAX	(1024 * 1024)	/* the largest price file read */

static void
price_read(const cJSON *o, struct price *p)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "input", offsetof(struct price, input) },
		{ "output", offsetof(struct price, output) },
		{ "cache_write_5m", offsetof(struct price, cache_write_5m) },
		{ "cache_write_1h", offsetof(struct price, cache_write_1h) },
		{ "cache_read", offsetof(struct price, cache_read) },
	};
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = json_get(o, keys[i].key);

		if (cJSON_IsNumber(v) && v->valuedouble >= 0)
			*(double *)(void *)((char *)p + keys[i].off) = v->valuedouble;
	}
	/* A file that names one cache-write price means it for both lifetimes. */
	if (p->cache_write_1h == 0 && p->cache_write_5m > 0 && json_get(o, "cache_write_1h") == NULL)
		p->cache_write_1h = p->cache_write_5m;
}

static int
price_entry_read(const char *match, const cJSON *o, struct price_entry *e)
{
	const cJSON *lc;

	if (!cJSON_IsObject(o) || match == NULL || match[0] == '\0')
		return -1;
	memset(e, 0, sizeof *e);
	e->match = xstrdup(match);
	price_read(o, &e->base);
	lc = json_get(o, "long_context");
	if (cJSON_IsObject(lc) && json_int(lc, "above", 0) > 0) {
		e->long_above = json_int(lc, "above", 0);
		e->longctx = e->base;
		price_read(lc, &e->longctx);
	}
	return 0;
}

/* Put e in the table, replacing an entry of the same match. */
static void
prices_put(struct prices *t, struct price_entry *e)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].match, e->match) == 0) {
			free(t->v[i].match);
			t->v[i] = *e;
			return;
		}
	t->v = xreallocarray(t->v, (size_t)t->n + 1, sizeof *t->v);
	t->v[t->n++] = *e;
}

static char *
prices_default_path(void)
{
	static const char *const dirs[] = { TANDEM_DATADIR, TANDEM_SRCDIR "/data" };
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	const char *env = getenv("TANDEM_PRICES");
	size_t i;

	if (env != NULL && env[0] != '\0')
		return xstrdup(env);
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		FILE *f;

		buf_truncate(&p, 0);
		buf_printf(&p, "%s/prices.json", dirs[i]);
		if ((f = fopen(buf_cstr(&p), "r")) != NULL) {
			fclose(f);
			return buf_detach(&p, NULL);
		}
	}
	buf_release(&p);
	return NULL;
}

struct prices *
prices_load(const char *path, const cJSON *overrides, struct buf *err)
{
	struct prices *t = xcalloc(1, sizeof *t);
	struct price_entry e;
	const cJSON *m;
	cJSON *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	int line, col, rc;

	t->path = path != NULL ? xstrdup(path) : prices_default_path();
	rc = t->path != NULL ? fsutil_read_file(t->path, PRICES_MAX, &text, &len, err) : FSUTIL_MISSING;
	if (rc == -1) {
		prices_free(t);
		return NULL;
	}
	if (rc == 0) {
		doc = json_parse_at(text, len, &line, &col);
		free(text);
		if (doc == NULL || !cJSON_IsArray(json_get(doc, "models"))) {
			buf_printf(err, "%s:%d:%d: the price file is not valid (a JSON object with a "
			    "\"models\" array)", t->path, doc == NULL ? line : 1, doc == NULL ? col : 1);
			cJSON_Delete(doc);
			prices_free(t);
			return NULL;
		}
		t->checked = xstrdup(json_str(doc, "checked", ""));
		cJSON_ArrayForEach(m, json_get(doc, "models"))
			if (price_entry_read(json_str(m, "match", NULL), m, &e) == 0)
				prices_put(t, &e);
		cJSON_Delete(doc);
	}
	cJSON_ArrayForEach(m, overrides)
		if (price_entry_read(m->string, m, &e) == 0)
			prices_put(t, &e);
	return t;
}

void
prices_free(struct prices *t)
{
	int i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].match);
	free(t->v);
	free(t->checked);
	free(t->path);
	free(t);
}

const struct price_entry *
prices_find(const struct prices *t, const char *model)
{
	const struct price_entry *best = NULL;
	long bestlen = -1, l;
	int i;

	for (i = 0; t != NULL && model != NULL && i < t->n; i++) {
		l = model_match_len(t->v[i].match, model);
		if (l > bestlen) {
			best = &t->v[i];
			bestlen = l;
		}
	}
	return best;
}

bool
prices_dearer(const struct prices *t, const char *model, const char *than)
{
	const struct price_entry *m, *o;

	if (model != NULL && than != NULL && strcmp(model, than) == 0)
		return false;
	m = prices_find(t, model);
	o = prices_find(t, than);
	return m == NULL || o == NULL || m->base.input > o->base.input ||
	    m->base.output > o->base.output;
}

double
prices_cost(const struct price_entry *e, const struct usage *u, bool long_ttl)
{
	const struct price *p;
	int64_t in;

	if (e == NULL)
		return 0;
	in = u->input + u->cache_read + u->cache_write;
	p = e->long_above > 0 && in > e->long_above ? &e->longctx : &e->base;
	return ((double)u->input * p->input + (double)u->output * p->output +
	    (double)u->cache_write * (long_ttl ? p->cache_write_1h : p->cache_write_5m) +
	    (double)u->cache_read * p->cache_read) / 1e6;
}

double
prices_break_cost(const struct price_entry *e, int64_t dropped, int64_t in_tokens, bool long_ttl)
{
	const struct price *p;
	double write, d;

	if (e == NULL)
		return -1;
	p = e->long_above > 0 && in_tokens > e->long_above ? &e->longctx : &e->base;
	write = long_ttl ? p->cache_write_1h : p->cache_write_5m;
	if (write <= 0)
		write = p->input;
	d = (double)(dropped > 0 ? dropped : 0) * (write - p->cache_read) / 1e6;
	return d > 0 ? d : 0;
}
