/* The mock model server: the prompt cache and usage (see mock_int.h). */
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
 * The prompt cache: prefixes in Anthropic's order (tools, system,
 * messages), a chained hash at the end of every block, tokens as bytes/4.
 */

static void
prefix_add(struct prefix *p, const char *tag, const cJSON *block, long ttl_default)
{
	const cJSON *cc = json_get(block, "cache_control");
	struct pblock *pb;
	char *s = mock_canon_block(block);

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->b = xreallocarray(p->b, p->cap, sizeof *p->b);
	}
	pb = &p->b[p->n++];
	p->bytes += strlen(tag) + strlen(s);
	pb->end = p->bytes;
	mock_hash_chain(p->last, tag, s, pb->hash);
	memcpy(p->last, pb->hash, sizeof p->last);
	pb->bp = cJSON_IsObject(cc);
	pb->ttl_ms = mock_str_eq(json_get(cc, "ttl"), "1h") ? MOCK_TTL_1H : ttl_default;
	free(s);
}

static void
prefix_anthropic(struct prefix *p, const cJSON *body, long ttl)
{
	const cJSON *t, *msg, *b, *sys = json_get(body, "system");
	cJSON *blocks;

	cJSON_ArrayForEach(t, json_get(body, "tools"))
		prefix_add(p, "tool", t, ttl);
	blocks = mock_content_blocks(sys);
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
		blocks = mock_content_blocks(content);
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

long
mock_output_tokens(const struct resp *r)
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

void
mock_usage_compute(struct call *k, struct usage *u)
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
		u->output = mock_output_tokens(r);
		u->reasoning = r->thinking != NULL ? (long)strlen(r->thinking) / 4 : 0;
	}
	u->input = json_int(x, "input_tokens", u->input);
	u->output = json_int(x, "output_tokens", u->output);
	u->creation = json_int(x, "cache_creation_input_tokens", u->creation);
	u->read = json_int(x, "cache_read_input_tokens", u->read);
}
