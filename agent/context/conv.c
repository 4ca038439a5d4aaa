/* The conversation model: see conv.h. */
#include "autoconf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "compact.h"
#include "conv.h"
#include "json.h"
#include "xalloc.h"

#define CONV_WIRE_ANTHROPIC	0
#define CONV_WIRE_OPENAI	1

/* What is kept of one message (never the last). */
struct conv_entry {
	const cJSON	*m;
	int		 stamp;		/* also in m->valueint, see conv_sync */
	size_t		 at[2];		/* CONV_WIRE_*: where its text starts in the joined texts */
	int64_t		 bytes;
};

/*
 * The wire texts of one protocol's kept messages, joined by commas: the
 * conversation's, and each request's that sends them while it is in
 * flight (conv_pin_wires).  A request reads its first len bytes; texts
 * may be appended behind them (the buffer may move), never changed: a
 * change of what is held goes to a copy.
 */
struct conv_text {
	struct buf	b;
	int		refs;
};

/* The tool_use ids of the messages checked: a set of strings, open addressing. */
struct conv_ids {
	char	**slot;
	size_t	  cap;		/* a power of 2, or 0 */
	size_t	  n;
};

struct conv_cache {
	struct conv_entry *ent;
	int		   nent, cap;
	uint64_t	  *hash;	/* of every message, the last one's made afresh */
	int		   hcap;
	/*
	 * The first nhash entries' fingerprints are known, and the first
	 * nsized entries' bytes, whose sum is bytes: entries are only ever
	 * added at the end or dropped from an index on, so what is known is
	 * always the front, and a request looks only at what is new.
	 */
	int		   nhash, nsized;
	int64_t		   bytes;
	/*
	 * The wire texts of the first nwire[w] entries, joined by commas in
	 * one buffer (CONV_WIRE_*): a request copies them in one go.
	 */
	struct conv_text  *wires[2];
	int		   nwire[2];
	int		   stamp;	/* the last stamp given */
	enum compact_stage stage;	/* the deepest compaction applied */
	const cJSON	  *last;	/* the last message, as conv_sync found it */
	int		   count;	/* and how many there are */
	/* conv_check's state after the first checked messages (all entries). */
	int		   checked;
	bool		   want_user;	/* the role of the next message */
	cJSON		  *uses;	/* the tool_use ids of the last checked message */
	struct conv_ids	   ids;
	struct conv_made   made;	/* since conv_take_made */
};

static void
conv_ids_clear(struct conv_ids *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->slot[i]);
	free(s->slot);
	memset(s, 0, sizeof *s);
}

/* FNV-1a. */
static size_t
conv_ids_hash(const char *id)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *id != '\0'; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ULL;
	return (size_t)h;
}

static bool
conv_ids_has(const struct conv_ids *s, const char *id)
{
	size_t i;

	if (s->cap == 0)
		return false;
	for (i = conv_ids_hash(id) & (s->cap - 1); s->slot[i] != NULL; i = (i + 1) & (s->cap - 1))
		if (strcmp(s->slot[i], id) == 0)
			return true;
	return false;
}

static void
conv_ids_add(struct conv_ids *s, const char *id)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		struct conv_ids t = { NULL, s->cap > 0 ? s->cap * 2 : 64, 0 };
		size_t k;

		t.slot = xcalloc(t.cap, sizeof *t.slot);
		for (k = 0; k < s->cap; k++) {
			if (s->slot[k] == NULL)
				continue;
			for (i = conv_ids_hash(s->slot[k]) & (t.cap - 1); t.slot[i] != NULL;
			    i = (i + 1) & (t.cap - 1))
				;
			t.slot[i] = s->slot[k];
			t.n++;
		}
		free(s->slot);
		*s = t;
	}
	for (i = conv_ids_hash(id) & (s->cap - 1); s->slot[i] != NULL; i = (i + 1) & (s->cap - 1))
		;
	s->slot[i] = xstrdup(id);
	s->n++;
}

static struct conv_text *
conv_text_new(void)
{
	struct conv_text *t = xcalloc(1, sizeof *t);

	buf_init(&t->b, BUF_NOLIMIT);
	t->refs = 1;
	return t;
}

void
conv_text_unref(struct conv_text *t)
{
	if (t == NULL || --t->refs > 0)
		return;
	buf_release(&t->b);
	free(t);
}

const char *
conv_text_data(const struct conv_text *t)
{
	return t->b.data;
}

/* Keep the first n bytes of *tp: in place, or in a copy when a request holds them too. */
static void
conv_text_truncate(struct conv_text **tp, size_t n)
{
	struct conv_text *t = *tp, *c;

	if (t->refs == 1) {
		buf_truncate(&t->b, n);
		return;
	}
	c = conv_text_new();
	if (buf_append(&c->b, t->b.data, n) == -1)
		fatal("out of memory");
	conv_text_unref(t);
	*tp = c;
}

static void
conv_check_reset(struct conv_cache *k)
{
	k->checked = 0;
	k->want_user = true;
	cJSON_Delete(k->uses);
	k->uses = NULL;
	conv_ids_clear(&k->ids);
}

/* Forget the entries from the index from on. */
static void
conv_drop(struct conv_cache *k, int from)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (from < k->nwire[i]) {
			conv_text_truncate(&k->wires[i], k->ent[from].at[i]);
			k->nwire[i] = from;
		}
	}
	for (i = from; i < k->nsized; i++)
		k->bytes -= k->ent[i].bytes;
	if (from < k->nsized)
		k->nsized = from;
	if (from < k->nhash)
		k->nhash = from;
	if (from < k->nent)
		k->nent = from;
	if (k->checked > k->nent)
		conv_check_reset(k);
}

/*
 * Line the entries up with the messages, at the cost of what is new: the
 * newest entry's message is looked for from the end back (through live
 * messages only, so a message freed since is never read); the messages
 * after it are new and get entries, but for the last.  A change at the
 * front (the first message is another) or at the end (the newest entry's
 * message is gone) drops them all; a change in place or in the middle is
 * not seen here: conv_changed() says so (and conv_verify() checks it).
 * The stamp, kept in the message object's valueint (unused for an
 * object, never printed), tells a new message from one freed before it
 * that had the same address.
 */
static struct conv_cache *
conv_sync(const struct conv *c)
{
	struct conv_cache *k = c->cache;
	cJSON *head = c->messages->child, *last = conv_last(c), *m = NULL;
	int i;

	/* Messages taken away or put in at the front (compaction): all again. */
	if (k->nent > 0 && (head != k->ent[0].m || head->valueint != k->ent[0].stamp))
		conv_drop(k, 0);
	if (k->nent > 0) {
		const struct conv_entry *e = &k->ent[k->nent - 1];

		for (m = last; m != NULL && m != e->m; m = m != head ? m->prev : NULL)
			;
		if (m == NULL || m->valueint != e->stamp) {
			conv_drop(k, 0);
			m = NULL;
		} else if (m == last) {
			/* The newest entry's message is the last again: it may grow. */
			conv_drop(k, k->nent - 1);
			m = m != head ? m->prev : NULL;
		}
	}
	m = k->nent > 0 ? m->next : head;
	for (i = k->nent; m != NULL && m->next != NULL; m = m->next, i++) {
		struct conv_entry *e;

		if (i >= k->cap) {
			k->cap = k->cap > 0 ? 2 * k->cap : 64;
			k->ent = xreallocarray(k->ent, (size_t)k->cap, sizeof *k->ent);
		}
		e = &k->ent[i];
		memset(e, 0, sizeof *e);
		k->stamp = k->stamp == INT_MAX ? 1 : k->stamp + 1;
		e->m = m;
		e->stamp = m->valueint = k->stamp;
		k->nent = i + 1;
	}
	k->last = last;
	k->count = last != NULL ? k->nent + 1 : 0;
	return k;
}

int
conv_verify(const struct conv *c, struct buf *why)
{
	struct conv_cache *k = conv_sync(c);
	const cJSON *m, *last = NULL;
	int i = 0;

	cJSON_ArrayForEach(m, c->messages) {
		if (m->next != NULL && (i >= k->nent || k->ent[i].m != m ||
		    m->valueint != k->ent[i].stamp)) {
			buf_printf(why, "message %d is not the one kept (a change was not told "
			    "with conv_changed)", i);
			return -1;
		}
		last = m;
		i++;
	}
	if (i != k->count || last != k->last || last != conv_last(c)) {
		buf_printf(why, "%d messages, %d kept; the last is %s", i, k->count,
		    last == conv_last(c) ? "right" : "not cJSON's last");
		return -1;
	}
	return 0;
}

void
conv_init(struct conv *c)
{
	c->messages = cJSON_CreateArray();
	if (c->messages == NULL)
		fatal("out of memory");
	c->cache = xcalloc(1, sizeof *c->cache);
	c->cache->wires[0] = conv_text_new();
	c->cache->wires[1] = conv_text_new();
	conv_check_reset(c->cache);
}

void
conv_release(struct conv *c)
{
	cJSON_Delete(c->messages);
	c->messages = NULL;
	if (c->cache != NULL) {
		conv_drop(c->cache, 0);
		conv_check_reset(c->cache);
		conv_text_unref(c->cache->wires[0]);
		conv_text_unref(c->cache->wires[1]);
		free(c->cache->ent);
		free(c->cache->hash);
		free(c->cache);
	}
	c->cache = NULL;
}

void
conv_clear(struct conv *c)
{
	conv_release(c);
	conv_init(c);
}

void
conv_replace(struct conv *c, cJSON *messages)
{
	cJSON_Delete(c->messages);
	c->messages = messages != NULL ? messages : cJSON_CreateArray();
	if (c->messages == NULL)
		fatal("out of memory");
	conv_changed(c);
}

enum compact_stage
conv_stage(const struct conv *c)
{
	return c->cache->stage;
}

void
conv_compacted(struct conv *c, enum compact_stage stage)
{
	if (stage > c->cache->stage || stage == COMPACT_NONE)
		c->cache->stage = stage;
}

void
conv_changed(const struct conv *c)
{
	c->cache->made.changes++;
	conv_drop(c->cache, 0);
	conv_check_reset(c->cache);
}

static int
conv_wire_index(enum stream_proto proto)
{
	return proto == STREAM_OPENAI ? CONV_WIRE_OPENAI : CONV_WIRE_ANTHROPIC;
}

/* Make the wire texts of the entries not made yet: the joined texts of proto's kind. */
static struct buf *
conv_make_wires(struct conv_cache *k, enum stream_proto proto, conv_wire_fn *wire)
{
	int w = conv_wire_index(proto), i;
	struct buf *j = &k->wires[w]->b;

	for (i = k->nwire[w]; i < k->nent; i++) {
		size_t at = j->len, start;

		k->ent[i].at[w] = at;
		if (at > 0 && buf_putc(j, ',') == -1)
			fatal("out of memory");
		start = j->len;
		if (wire(proto, k->ent[i].m, j) == -1)
			fatal("out of memory");
		/* OpenAI's may be empty (a message that becomes none): no comma then. */
		if (j->len == start)
			buf_truncate(j, at);
		k->nwire[w] = i + 1;
		k->made.texts++;
	}
	return j;
}

int
conv_append_wires(const struct conv *c, enum stream_proto proto, conv_wire_fn *wire,
    struct buf *out, bool *first, const cJSON **last)
{
	struct conv_cache *k = conv_sync(c);
	struct buf *j = conv_make_wires(k, proto, wire);
	int rc = 0;

	*last = k->last;
	if (j->len == 0)
		return 0;
	/* The texts and a little more (the last message, the end): one allocation. */
	rc |= buf_reserve(out, j->len + 4096);
	if (!*first)
		rc |= buf_putc(out, ',');
	*first = false;
	rc |= buf_append(out, j->data, j->len);
	return rc != 0 ? -1 : 0;
}

struct conv_text *
conv_pin_wires(const struct conv *c, enum stream_proto proto, conv_wire_fn *wire,
    size_t *len, const cJSON **last)
{
	struct conv_cache *k = conv_sync(c);
	struct buf *j = conv_make_wires(k, proto, wire);
	struct conv_text *t = k->wires[conv_wire_index(proto)];

	*last = k->last;
	*len = j->len;
	if (j->len == 0)
		return NULL;
	t->refs++;
	return t;
}

const uint64_t *
conv_hashes(const struct conv *c, uint64_t (*hash)(const cJSON *), int *n)
{
	struct conv_cache *k = conv_sync(c);
	int i, count = k->count;

	if (count > k->hcap) {
		k->hcap = count > 2 * k->hcap ? count : 2 * k->hcap;
		k->hash = xreallocarray(k->hash, (size_t)k->hcap, sizeof *k->hash);
	}
	for (i = k->nhash; i < k->nent; i++) {
		k->hash[i] = hash(k->ent[i].m);
		k->made.hashes++;
	}
	k->nhash = k->nent;
	if (count > 0) {
		k->hash[count - 1] = hash(k->last);
		k->made.hashes++;
	}
	*n = count;
	return k->hash;
}

void
conv_take_made(const struct conv *c, struct conv_made *out)
{
	*out = c->cache->made;
	memset(&c->cache->made, 0, sizeof c->cache->made);
}

int64_t
conv_json_bytes(const struct conv *c, int64_t (*size)(const cJSON *))
{
	struct conv_cache *k = conv_sync(c);
	int i, count = k->count;

	for (i = k->nsized; i < k->nent; i++) {
		k->ent[i].bytes = size(k->ent[i].m);
		k->bytes += k->ent[i].bytes;
		k->made.sizes++;
	}
	k->nsized = k->nent;
	k->made.sizes += count > 0;
	/* As compact_estimate counts an array: brackets and commas. */
	return 2 + k->bytes + (count > 0 ? size(k->last) + count - 1 : 0);
}

void
conv_add(struct conv *c, const char *role, cJSON *content, int turn)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddItemToObject(m, "content", content);
	cJSON_AddNumberToObject(m, "_turn", turn);
	cJSON_AddItemToArray(c->messages, m);
}

void
conv_add_user_text(struct conv *c, const char *text, int turn)
{
	cJSON *content = cJSON_CreateArray(), *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	conv_add(c, "user", content, turn);
}

cJSON *
conv_text_messages(const char *text)
{
	cJSON *msgs = cJSON_CreateArray(), *m = cJSON_CreateObject(), *content, *b;

	cJSON_AddStringToObject(m, "role", "user");
	content = cJSON_AddArrayToObject(m, "content");
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	cJSON_AddItemToArray(msgs, m);
	return msgs;
}

int
conv_count(const struct conv *c)
{
	return cJSON_GetArraySize(c->messages);
}

/* cJSON (1.7.13 on) keeps the last item of an array as its first item's prev. */
cJSON *
conv_last(const struct conv *c)
{
	cJSON *m = c->messages->child;

	if (m == NULL || m->prev != NULL)
		return m != NULL ? m->prev : NULL;
	while (m->next != NULL)
		m = m->next;
	return m;
}

/* The position of id in ids (an array of strings), or -1. */
static int
conv_id_index(const cJSON *ids, const char *id)
{
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, ids) {
		if (strcmp(it->valuestring, id) == 0)
			return i;
		i++;
	}
	return -1;
}

/* The tool_result blocks of one message against the tool_use ids before it. */
static int
conv_check_results(const cJSON *content, const cJSON *uses, int i, struct buf *why)
{
	const cJSON *b;
	int k = 0, n = cJSON_GetArraySize(uses);

	cJSON_ArrayForEach(b, content) {
		const char *id = json_str(b, "tool_use_id", "");
		int at;

		if (strcmp(json_str(b, "type", ""), "tool_result") != 0)
			continue;
		at = conv_id_index(uses, id);
		if (at == -1) {
			buf_printf(why, "message %d answers the tool_use %s, which the message "
			    "before it does not hold", i, id);
			return -1;
		}
		if (at < k) {
			buf_printf(why, "message %d answers the tool_use %s twice", i, id);
			return -1;
		}
		if (at > k) {
			buf_printf(why, "message %d does not answer the tool_use %s (or answers "
			    "out of order)", i, cJSON_GetStringValue(cJSON_GetArrayItem(uses, k)));
			return -1;
		}
		k++;
	}
	if (k != n) {
		buf_printf(why, "message %d has %d tool_result blocks for %d tool_use blocks", i, k, n);
		return -1;
	}
	return 0;
}

int
conv_check_messages(const cJSON *messages, bool open_end, int *bad, struct buf *why)
{
	const cJSON *m;
	const char *want = "user";
	int i = 0, rc = 0;
	size_t start = why != NULL ? why->len : 0, k;
	cJSON *uses = cJSON_CreateArray(), *seen = cJSON_CreateObject();

	cJSON_ArrayForEach(m, messages) {
		const char *role = json_str(m, "role", "");
		const cJSON *b, *content = json_get(m, "content");

		if (strcmp(role, want) != 0) {
			buf_printf(why, "message %d is %s, expected %s (a record is duplicated or "
			    "missing)", i, role, want);
			goto bad;
		}
		if (conv_check_results(content, uses, i, why) == -1)
			goto bad;
		cJSON_Delete(uses);
		uses = cJSON_CreateArray();
		if (strcmp(role, "assistant") == 0) {
			cJSON_ArrayForEach(b, content) {
				const char *id = json_str(b, "id", "");

				if (strcmp(json_str(b, "type", ""), "tool_use") != 0)
					continue;
				if (json_get(seen, id) != NULL) {
					buf_printf(why, "message %d repeats the tool_use %s (a record is "
					    "duplicated)", i, id);
					goto bad;
				}
				cJSON_AddTrueToObject(seen, id);
				cJSON_AddItemToArray(uses, cJSON_CreateString(id));
			}
		}
		want = strcmp(role, "user") == 0 ? "assistant" : "user";
		i++;
	}
	/* Calls the last message made are still to be answered: fine only at an open end. */
	if (!open_end && cJSON_GetArraySize(uses) > 0) {
		buf_printf(why, "message %d has tool_use blocks that nothing answers", i - 1);
		i--;
		goto bad;
	}
	goto out;
bad:
	rc = -1;
	if (bad != NULL)
		*bad = i;
	/* Roles and ids come from the log: the sentence stays one line. */
	for (k = start; why != NULL && k < why->len; k++)
		if ((unsigned char)why->data[k] < 0x20 || why->data[k] == 0x7f)
			why->data[k] = '?';
out:
	cJSON_Delete(uses);
	cJSON_Delete(seen);
	return rc;
}

/*
 * One message against the state after the messages before it, as
 * conv_check_messages checks it; commit: the state goes past it.
 */
static int
conv_check_one(struct conv_cache *k, const cJSON *m, bool commit)
{
	struct buf scratch = BUF_INIT(4096);
	const char *role = json_str(m, "role", "");
	const cJSON *content = json_get(m, "content"), *b;
	cJSON *uses = cJSON_CreateArray(), *empty = cJSON_CreateArray();
	int rc = -1;

	if (strcmp(role, k->want_user ? "user" : "assistant") != 0 ||
	    conv_check_results(content, k->uses != NULL ? k->uses : empty, 0, &scratch) == -1)
		goto out;
	if (!k->want_user) {
		cJSON_ArrayForEach(b, content) {
			const char *id = json_str(b, "id", "");

			if (strcmp(json_str(b, "type", ""), "tool_use") != 0)
				continue;
			if (conv_ids_has(&k->ids, id) || conv_id_index(uses, id) != -1)
				goto out;
			cJSON_AddItemToArray(uses, cJSON_CreateString(id));
		}
	}
	rc = 0;
	if (commit) {
		cJSON_ArrayForEach(b, uses)
			conv_ids_add(&k->ids, b->valuestring);
		cJSON_Delete(k->uses);
		k->uses = uses;
		uses = NULL;
		k->want_user = !k->want_user;
	}
out:
	cJSON_Delete(uses);
	cJSON_Delete(empty);
	buf_release(&scratch);
	return rc;
}

int
conv_check(const struct conv *c, struct buf *why)
{
	struct conv_cache *k = conv_sync(c);
	const cJSON *last = k->last;

	for (; k->checked < k->nent; k->checked++) {
		k->made.checks++;
		if (conv_check_one(k, k->ent[k->checked].m, true) == -1)
			goto full;
	}
	k->made.checks += last != NULL;
	if (last == NULL || conv_check_one(k, last, false) == 0)
		return 0;
full:
	/* A fault: the whole check again, for its sentence. */
	conv_check_reset(k);
	return conv_check_messages(c->messages, true, NULL, why);
}
