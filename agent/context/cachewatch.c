/* The prompt-cache break detector: see cachewatch.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cachewatch.h"
#include "json.h"
#include "sha256.h"
#include "xalloc.h"

/*
 * What was hashed of one request.  A message is kept as the first 64 bits
 * of its SHA-256: enough to tell two versions apart, at 8 bytes a message.
 */
struct cw_note {
	bool	  set;
	char	  system[SHA256_HEX_LEN + 1];
	char	  tools[SHA256_HEX_LEN + 1];
	char	  model[SHA256_HEX_LEN + 1];
	uint64_t *msgs;
	int	  nmsgs;
	int	  cap;
	int64_t	  at_ms;
};

struct cachewatch {
	int64_t			 ttl_ms;
	struct cw_note		 prev;		/* the last answered request */
	struct cw_note		 next;		/* the request in flight */
	int64_t			 prev_read;	/* its usage */
	int64_t			 prev_write;
	int			 requests;
	int64_t			 reads, writes;
	int64_t			 eff_read;	/* reads, each capped at its expectation */
	int64_t			 eff_expected;
	int			 nbreaks;
	struct cachewatch_break	 last;
	struct cachewatch_break	 listed[CACHEWATCH_LISTED];	/* the first breaks, for /cost */
	int			 nlisted;
	double			 breaks_usd;	/* the priced breaks' sum */
	int			 unpriced;	/* breaks whose price is unknown */
};

static const char *const cw_names[] = {
	"system_changed", "tools_changed", "model_changed",
	"messages_changed", "ttl_expired", "unknown"
};
#define CW_NCAUSES ((int)(sizeof cw_names / sizeof cw_names[0]))

struct cachewatch *
cachewatch_new(int64_t ttl_ms)
{
	struct cachewatch *cw = xcalloc(1, sizeof *cw);

	cw->ttl_ms = ttl_ms > 0 ? ttl_ms : CACHEWATCH_TTL_MS;
	return cw;
}

void
cachewatch_free(struct cachewatch *cw)
{
	if (cw == NULL)
		return;
	free(cw->prev.msgs);
	free(cw->next.msgs);
	free(cw);
}

static void
cw_hash_text(const char *s, char hex[SHA256_HEX_LEN + 1])
{
	sha256_hex(s != NULL ? s : "", s != NULL ? strlen(s) : 0, hex);
}

static void
cw_hash_json(const cJSON *j, char hex[SHA256_HEX_LEN + 1])
{
	char *s = j != NULL ? json_print(j) : NULL;

	cw_hash_text(s, hex);
	free(s);
}

/* Hash key and value of every member of obj that is sent ("_" keys are not). */
static void
cw_hash_members(struct sha256_ctx *h, const cJSON *obj)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, obj) {
		char *v;

		if (it->string != NULL && it->string[0] == '_')
			continue;
		if (it->string != NULL)
			sha256_update(h, it->string, strlen(it->string) + 1);
		v = json_print(it);
		sha256_update(h, v, strlen(v) + 1);
		free(v);
	}
}

uint64_t
cachewatch_message_hash(const cJSON *m)
{
	struct sha256_ctx *h = sha256_begin();
	const char *role = json_str(m, "role", "");
	const cJSON *content = json_get(m, "content"), *b;
	char hex[SHA256_HEX_LEN + 1];
	uint64_t v = 0;
	int i;

	sha256_update(h, role, strlen(role) + 1);
	if (cJSON_IsArray(content)) {
		cJSON_ArrayForEach(b, content) {
			sha256_update(h, "{", 1);
			cw_hash_members(h, b);
		}
	} else if (cJSON_IsString(content)) {
		sha256_update(h, content->valuestring, strlen(content->valuestring));
	}
	sha256_end(h, hex);
	for (i = 0; i < 16; i++)
		v = v << 4 | (uint64_t)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
	return v;
}

void
cachewatch_before(struct cachewatch *cw, const char *system_static, const cJSON *tools,
    const char *model, const cJSON *messages, int64_t now_ms)
{
	const cJSON *m;
	int count = cJSON_IsArray(messages) ? cJSON_GetArraySize(messages) : 0, i = 0;
	uint64_t *h = xcalloc((size_t)count + 1, sizeof *h);

	if (count > 0)
		cJSON_ArrayForEach(m, messages)
			h[i++] = cachewatch_message_hash(m);
	cachewatch_before_hashes(cw, system_static, tools, model, h, i, now_ms);
	free(h);
}

void
cachewatch_before_hashes(struct cachewatch *cw, const char *system_static, const cJSON *tools,
    const char *model, const uint64_t *hashes, int count, int64_t now_ms)
{
	struct cw_note *n = &cw->next;

	cw_hash_text(system_static, n->system);
	cw_hash_json(tools, n->tools);
	cw_hash_text(model, n->model);
	if (count > n->cap) {
		n->msgs = xreallocarray(n->msgs, (size_t)count, sizeof *n->msgs);
		n->cap = count;
	}
	n->nmsgs = count > 0 ? count : 0;
	if (n->nmsgs > 0)
		memcpy(n->msgs, hashes, (size_t)n->nmsgs * sizeof *n->msgs);
	n->at_ms = now_ms;
	n->set = true;
}

/*
 * The previous request cached its whole message list (its newest message
 * carried a breakpoint), so this one must begin with all of it.
 */
static bool
cw_messages_changed(const struct cw_note *prev, const struct cw_note *next)
{
	if (next->nmsgs < prev->nmsgs)
		return true;
	return prev->nmsgs > 0 &&
	    memcmp(prev->msgs, next->msgs, (size_t)prev->nmsgs * sizeof *prev->msgs) != 0;
}

static unsigned
cw_causes(const struct cachewatch *cw)
{
	const struct cw_note *p = &cw->prev, *n = &cw->next;
	unsigned c = 0;

	if (strcmp(p->system, n->system) != 0)
		c |= CACHEWATCH_SYSTEM_CHANGED;
	if (strcmp(p->tools, n->tools) != 0)
		c |= CACHEWATCH_TOOLS_CHANGED;
	if (strcmp(p->model, n->model) != 0)
		c |= CACHEWATCH_MODEL_CHANGED;
	if (cw_messages_changed(p, n))
		c |= CACHEWATCH_MESSAGES_CHANGED;
	if (n->at_ms - p->at_ms > cw->ttl_ms)
		c |= CACHEWATCH_TTL_EXPIRED;
	return c != 0 ? c : CACHEWATCH_UNKNOWN;
}

/* The note in flight becomes the one the next request is compared with. */
static void
cw_promote(struct cachewatch *cw, const struct usage *u)
{
	struct cw_note t = cw->prev;

	cw->prev = cw->next;
	cw->next = t;
	cw->next.set = false;
	cw->prev_read = u->cache_read;
	cw->prev_write = u->cache_write;
}

bool
cachewatch_after(struct cachewatch *cw, const struct usage *u, struct cachewatch_break *out)
{
	int64_t expected, drop;
	bool broke = false;

	if (!cw->next.set)
		return false;
	cw->requests++;
	cw->reads += u->cache_read;
	cw->writes += u->cache_write;
	if (cw->prev.set) {
		expected = cw->prev_read + cw->prev_write;
		drop = expected - u->cache_read;
		cw->eff_expected += expected;
		cw->eff_read += u->cache_read < expected ? u->cache_read : expected;
		if (drop > CACHEWATCH_MIN_DROP && drop * 100 > expected * CACHEWATCH_MIN_DROP_PCT) {
			cw->last.request = cw->requests;
			cw->last.expected = expected;
			cw->last.read = u->cache_read;
			cw->last.dropped_tokens = drop;
			cw->last.causes = cw_causes(cw);
			cw->last.cost_usd = -1;
			cw->nbreaks++;
			cw->unpriced++;
			if (cw->nlisted < CACHEWATCH_LISTED)
				cw->listed[cw->nlisted++] = cw->last;
			if (out != NULL)
				*out = cw->last;
			broke = true;
		}
	}
	cw_promote(cw, u);
	return broke;
}

void
cachewatch_forget(struct cachewatch *cw)
{
	cw->prev.set = false;
	cw->prev.nmsgs = 0;
}

void
cachewatch_price_last(struct cachewatch *cw, double usd)
{
	if (cw->nbreaks == 0 || cw->last.cost_usd >= 0 || usd < 0)
		return;
	cw->last.cost_usd = usd;
	cw->breaks_usd += usd;
	cw->unpriced--;
	if (cw->nlisted > 0 && cw->listed[cw->nlisted - 1].request == cw->last.request)
		cw->listed[cw->nlisted - 1].cost_usd = usd;
}

void
cachewatch_cost_report(const struct cachewatch *cw, struct buf *out)
{
	int i;

	if (cw->nbreaks == 0) {
		buf_puts(out, "Cache breaks: none\n");
		return;
	}
	buf_printf(out, "Cache breaks: %d, $%.4f to write the dropped tokens again", cw->nbreaks,
	    cw->breaks_usd);
	if (cw->unpriced > 0)
		buf_printf(out, " (%d at an unknown price)", cw->unpriced);
	buf_puts(out, "\n");
	for (i = 0; i < cw->nlisted; i++) {
		const struct cachewatch_break *b = &cw->listed[i];

		buf_printf(out, "  request %d: %lld tokens no longer cached (", b->request,
		    (long long)b->dropped_tokens);
		cachewatch_causes_text(b->causes, out);
		if (b->cost_usd >= 0)
			buf_printf(out, "), $%.4f\n", b->cost_usd);
		else
			buf_puts(out, "), price unknown\n");
	}
	if (cw->nbreaks > cw->nlisted)
		buf_printf(out, "  and %d more\n", cw->nbreaks - cw->nlisted);
}

const struct cachewatch_break *
cachewatch_last_break(const struct cachewatch *cw)
{
	return cw->nbreaks > 0 ? &cw->last : NULL;
}

int
cachewatch_breaks(const struct cachewatch *cw)
{
	return cw->nbreaks;
}

double
cachewatch_efficiency(const struct cachewatch *cw)
{
	if (cw->eff_expected <= 0)
		return -1;
	return (double)cw->eff_read / (double)cw->eff_expected;
}

const char *
cachewatch_cause_name(unsigned cause)
{
	int i;

	for (i = 0; i < CW_NCAUSES; i++)
		if (cause == 1u << i)
			return cw_names[i];
	return NULL;
}

cJSON *
cachewatch_causes_json(unsigned causes)
{
	cJSON *arr = cJSON_CreateArray();
	int i;

	if (arr == NULL)
		fatal("out of memory");
	for (i = 0; i < CW_NCAUSES; i++)
		if (causes & 1u << i)
			cJSON_AddItemToArray(arr, cJSON_CreateString(cw_names[i]));
	return arr;
}

void
cachewatch_causes_text(unsigned causes, struct buf *out)
{
	const char *sep = "";
	int i;

	for (i = 0; i < CW_NCAUSES; i++) {
		if (causes & 1u << i) {
			buf_printf(out, "%s%s", sep, cw_names[i]);
			sep = ", ";
		}
	}
}

void
cachewatch_break_fields(const struct cachewatch_break *b, cJSON *ev)
{
	cJSON_AddNumberToObject(ev, "dropped_tokens", (double)b->dropped_tokens);
	cJSON_AddItemToObject(ev, "causes", cachewatch_causes_json(b->causes));
	if (b->cost_usd >= 0)
		cJSON_AddNumberToObject(ev, "cost_usd", b->cost_usd);
}

void
cachewatch_report(const struct cachewatch *cw, struct buf *out)
{
	double eff = cachewatch_efficiency(cw);

	buf_printf(out, "Prompt cache: %d request%s, %lld tokens read from the cache, "
	    "%lld written to it\n", cw->requests, cw->requests == 1 ? "" : "s",
	    (long long)cw->reads, (long long)cw->writes);
	if (eff < 0)
		buf_puts(out, "Cache efficiency: not measured yet\n");
	else
		buf_printf(out, "Cache efficiency: %.1f%% (cache reads against what the "
		    "previous requests wrote and read)\n", 100.0 * eff);
	if (cw->nbreaks == 0) {
		buf_puts(out, "Cache breaks: none\n");
		return;
	}
	buf_printf(out, "Cache breaks: %d; the last at request %d: %lld of %lld tokens "
	    "not read (", cw->nbreaks, cw->last.request, (long long)cw->last.dropped_tokens,
	    (long long)cw->last.expected);
	cachewatch_causes_text(cw->last.causes, out);
	if (cw->last.cost_usd >= 0)
		buf_printf(out, "), $%.4f\n", cw->last.cost_usd);
	else
		buf_puts(out, "), price unknown\n");
}

/*
 * The state that matters for the next request, as JSON, so that a resumed
 * session can explain a break caused by what changed while it was closed:
 * another model, other tools, or simply the time that passed.  Message
 * hashes are kept as hex strings (they do not fit a JSON number).
 */
cJSON *
cachewatch_save(const struct cachewatch *cw)
{
	cJSON *j = cJSON_CreateObject(), *msgs;
	char hex[17];
	int i;

	if (!cw->prev.set)
		return j;
	cJSON_AddStringToObject(j, "system", cw->prev.system);
	cJSON_AddStringToObject(j, "tools", cw->prev.tools);
	cJSON_AddStringToObject(j, "model", cw->prev.model);
	cJSON_AddNumberToObject(j, "at_ms", (double)cw->prev.at_ms);
	cJSON_AddNumberToObject(j, "read", (double)cw->prev_read);
	cJSON_AddNumberToObject(j, "write", (double)cw->prev_write);
	msgs = cJSON_AddArrayToObject(j, "msgs");
	for (i = 0; i < cw->prev.nmsgs; i++) {
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)cw->prev.msgs[i]);
		cJSON_AddItemToArray(msgs, cJSON_CreateString(hex));
	}
	return j;
}

int
cachewatch_load(struct cachewatch *cw, const cJSON *j)
{
	const cJSON *msgs = json_get(j, "msgs"), *h;
	struct cw_note *p = &cw->prev;
	int n = cJSON_GetArraySize(msgs);

	if (!cJSON_IsArray(msgs) || strlen(json_str(j, "system", "")) != SHA256_HEX_LEN ||
	    strlen(json_str(j, "tools", "")) != SHA256_HEX_LEN ||
	    strlen(json_str(j, "model", "")) != SHA256_HEX_LEN)
		return -1;
	memcpy(p->system, json_str(j, "system", ""), SHA256_HEX_LEN + 1);
	memcpy(p->tools, json_str(j, "tools", ""), SHA256_HEX_LEN + 1);
	memcpy(p->model, json_str(j, "model", ""), SHA256_HEX_LEN + 1);
	if (n > p->cap) {
		p->msgs = xreallocarray(p->msgs, (size_t)n, sizeof *p->msgs);
		p->cap = n;
	}
	p->nmsgs = 0;
	cJSON_ArrayForEach(h, msgs) {
		char *end;
		unsigned long long v = cJSON_IsString(h) ? strtoull(h->valuestring, &end, 16) : 0;

		if (!cJSON_IsString(h) || *end != '\0')
			return -1;
		p->msgs[p->nmsgs++] = (uint64_t)v;
	}
	p->at_ms = json_int(j, "at_ms", 0);
	cw->prev_read = json_int(j, "read", 0);
	cw->prev_write = json_int(j, "write", 0);
	p->set = true;
	return 0;
}
