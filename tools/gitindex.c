/* A bounded reader of git's index file: see gitindex.h. */
#include "autoconf.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "file.h"
#include "gitindex.h"
#include "sha1.h"
#include "sha256.h"
#include "xalloc.h"

/* The stat data before an entry's object id: ten 32-bit fields. */
#define GI_STAT		40
#define GI_MODE_TYPE	0170000u
#define GI_FLAG_EXTENDED 0x4000u
#define GI_NAME_MASK	0x0fffu

struct gitindex {
	char		*names;		/* NUL after each path */
	size_t		 nlen, ncap;
	size_t		*off;		/* while reading: where each path starts */
	size_t		 n, cap;
	const char	**v;		/* then: the paths, sorted and unique */
	size_t		 nv;
	/*
	 * The names' bound: version 4's prefixes let a small file name long
	 * paths many times over, which no real index needs.
	 */
	size_t		 max_names;
};

static uint32_t
gi_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned
gi_be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* A path git would check out: no empty, ".", ".." or ".git" component. */
static bool
gi_path_ok(const char *p, size_t len, bool dir)
{
	size_t i = 0;

	if (dir) {
		if (len < 2 || p[len - 1] != '/')
			return false;
		len--;
	}
	if (len == 0)
		return false;
	while (i <= len) {
		const char *c = p + i, *slash = memchr(c, '/', len - i);
		size_t n = slash != NULL ? (size_t)(slash - c) : len - i;

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') ||
		    (n == 4 && strncasecmp(c, ".git", 4) == 0))
			return false;
		i += n + 1;
	}
	return true;
}

static int
gi_add(struct gitindex *gi, const char *p, size_t len, struct buf *err)
{
	if (len + 1 > gi->max_names - gi->nlen) {
		buf_printf(err, "the index's names come to more than %zu bytes", gi->max_names);
		return -1;
	}
	if (gi->nlen + len + 1 > gi->ncap) {
		while (gi->nlen + len + 1 > gi->ncap)
			gi->ncap = gi->ncap ? gi->ncap * 2 : 4096;
		gi->names = xrealloc(gi->names, gi->ncap);
	}
	if (gi->n == gi->cap) {
		gi->cap = gi->cap ? gi->cap * 2 : 256;
		gi->off = xreallocarray(gi->off, gi->cap, sizeof(*gi->off));
	}
	memcpy(gi->names + gi->nlen, p, len);
	gi->names[gi->nlen + len] = '\0';
	gi->off[gi->n++] = gi->nlen;
	gi->nlen += len + 1;
	return 0;
}

static int
gi_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Point v at the names, sorted (a hostile index need not be) and unique. */
static void
gi_finish(struct gitindex *gi)
{
	size_t i, k = 0;
	bool sorted = true;

	free(gi->v);
	gi->v = xreallocarray(NULL, gi->n + 1, sizeof(*gi->v));
	for (i = 0; i < gi->n; i++) {
		gi->v[i] = gi->names + gi->off[i];
		if (i > 0 && strcmp(gi->v[i - 1], gi->v[i]) > 0)
			sorted = false;
	}
	if (!sorted)
		qsort(gi->v, gi->n, sizeof(*gi->v), gi_strcmp);
	for (i = 0; i < gi->n; i++)
		if (k == 0 || strcmp(gi->v[k - 1], gi->v[i]) != 0)
			gi->v[k++] = gi->v[i];
	gi->nv = k;
}

/* The trailing checksum: the hash of all before it, or zeros (index.skipHash). */
static bool
gi_checksum_ok(const unsigned char *p, size_t len, size_t hashlen)
{
	char want[SHA256_HEX_LEN + 1], got[SHA256_HEX_LEN + 1];
	static const char hexd[] = "0123456789abcdef";
	const unsigned char *sum = p + len - hashlen;
	size_t i;
	bool zero = true;

	for (i = 0; i < hashlen; i++) {
		got[2 * i] = hexd[sum[i] >> 4];
		got[2 * i + 1] = hexd[sum[i] & 15];
		zero &= sum[i] == 0;
	}
	got[2 * hashlen] = '\0';
	if (zero)
		return true;
	if (hashlen == 20)
		sha1_hex(p, len - hashlen, want);
	else
		sha256_hex(p, len - hashlen, want);
	return strcmp(want, got) == 0;
}

/* Version 4's prefix length: git's varint, whose every byte but the last has 0x80. */
static int
gi_varint(const unsigned char **q, const unsigned char *end, size_t *out)
{
	const unsigned char *p = *q;
	size_t v;

	if (p >= end)
		return -1;
	v = *p & 127;
	while (*p++ & 128) {
		if (p >= end || v > (SIZE_MAX >> 8))
			return -1;
		v = ((v + 1) << 7) | (*p & 127);
	}
	*out = v;
	*q = p;
	return 0;
}

struct gi_reader {
	const unsigned char *p, *q, *end;
	unsigned	 version;
	size_t		 hashlen;
	struct buf	 path;		/* version 4: the previous entry's path */
};

/* One entry at r->q; its path (kept or not) goes to gi. */
static int
gi_entry(struct gi_reader *r, struct gitindex *gi, uint32_t i, struct buf *err)
{
	const unsigned char *e = r->q, *nul;
	size_t fixed = GI_STAT + r->hashlen + 2, name, cut;
	unsigned flags, type;
	uint32_t mode;

	if ((size_t)(r->end - r->q) < fixed)
		goto short_entry;
	mode = gi_be32(e + 24);
	flags = gi_be16(e + GI_STAT + r->hashlen);
	r->q += fixed;
	if (flags & GI_FLAG_EXTENDED) {
		if (r->version < 3) {
			buf_printf(err, "index entry %u has extended flags in a version 2 index", i);
			return -1;
		}
		if (r->end - r->q < 2)
			goto short_entry;
		r->q += 2;	/* skip-worktree, intent-to-add: tracked all the same */
	}
	if (r->version == 4 && gi_varint(&r->q, r->end, &cut) != 0)
		goto short_entry;
	if ((nul = memchr(r->q, '\0', (size_t)(r->end - r->q))) == NULL)
		goto short_entry;
	name = (size_t)(nul - r->q);
	if (r->version == 4) {
		if (cut > r->path.len || r->path.len - cut + name > PATH_MAX) {
			buf_printf(err, "index entry %u's compressed path is out of bounds", i);
			return -1;
		}
		buf_truncate(&r->path, r->path.len - cut);
		buf_append(&r->path, r->q, name);
		r->q = nul + 1;
	} else {
		size_t total = ((size_t)(r->q - e) + name + 8) & ~(size_t)7;

		if ((flags & GI_NAME_MASK) != (name < GI_NAME_MASK ? name : GI_NAME_MASK)) {
			buf_printf(err, "index entry %u's name length disagrees with its flags", i);
			return -1;
		}
		if (name > PATH_MAX) {
			buf_printf(err, "index entry %u's path is longer than %d bytes", i, PATH_MAX);
			return -1;
		}
		if (total > (size_t)(r->end - e))
			goto short_entry;
		buf_reset(&r->path);
		buf_append(&r->path, r->q, name);
		r->q = e + total;
	}
	type = mode & GI_MODE_TYPE;
	if ((type == 0100000 || type == 0120000 || type == 0160000 || type == 0040000) &&
	    gi_path_ok(buf_cstr(&r->path), r->path.len, type == 0040000))
		return gi_add(gi, r->path.data, r->path.len, err);
	return 0;
short_entry:
	buf_printf(err, "index entry %u is cut short", i);
	return -1;
}

/* The extensions after the entries: each one is skipped by its size. */
static int
gi_extensions(struct gi_reader *r, char **shared, struct buf *err)
{
	static const char hexd[] = "0123456789abcdef";

	while (r->end - r->q >= 8) {
		uint32_t size = gi_be32(r->q + 4);
		const unsigned char *sig = r->q;
		size_t i;
		bool zero = true;

		r->q += 8;
		if (size > (size_t)(r->end - r->q)) {
			buf_puts(err, "an index extension runs past the end");
			return -1;
		}
		if (memcmp(sig, "link", 4) == 0 && shared != NULL && *shared == NULL) {
			if (size < r->hashlen) {
				buf_puts(err, "the index's link extension is cut short");
				return -1;
			}
			*shared = xmalloc(2 * r->hashlen + 1);
			for (i = 0; i < r->hashlen; i++) {
				(*shared)[2 * i] = hexd[r->q[i] >> 4];
				(*shared)[2 * i + 1] = hexd[r->q[i] & 15];
				zero &= r->q[i] == 0;
			}
			(*shared)[2 * r->hashlen] = '\0';
			if (zero) {
				free(*shared);
				*shared = NULL;
			}
		}
		r->q += size;
	}
	if (r->q != r->end) {
		buf_puts(err, "the index has stray bytes after its extensions");
		return -1;
	}
	return 0;
}

struct gitindex *
gitindex_parse(const void *data, size_t len, size_t hashlen, char **shared, struct buf *err)
{
	struct gitindex *gi = xcalloc(1, sizeof(*gi));
	struct gi_reader r;
	uint32_t count, i;

	memset(&r, 0, sizeof(r));
	buf_init(&r.path, BUF_NOLIMIT);
	gi->max_names = len < (GITINDEX_MAX_NAMES - 65536) / 4 ? 4 * len + 65536 :
	    GITINDEX_MAX_NAMES;
	if (shared != NULL)
		*shared = NULL;
	r.p = data;
	r.hashlen = hashlen;
	if (hashlen != 20 && hashlen != 32) {
		buf_puts(err, "an index hash is 20 or 32 bytes");
		goto fail;
	}
	if (len < 12 + hashlen || memcmp(r.p, "DIRC", 4) != 0) {
		buf_puts(err, "the index does not start with a git index header");
		goto fail;
	}
	r.version = gi_be32(r.p + 4);
	count = gi_be32(r.p + 8);
	if (r.version < 2 || r.version > 4) {
		buf_printf(err, "the index is of version %u; versions 2 to 4 are read", r.version);
		goto fail;
	}
	/* every entry takes its fixed part and at least two more bytes */
	if (count > (len - 12 - hashlen) / (GI_STAT + hashlen + 4)) {
		buf_printf(err, "the index claims %u entries, more than its size can hold", count);
		goto fail;
	}
	if (!gi_checksum_ok(r.p, len, hashlen)) {
		buf_puts(err, "the index's checksum does not match its content");
		goto fail;
	}
	r.q = r.p + 12;
	r.end = r.p + len - hashlen;
	for (i = 0; i < count; i++)
		if (gi_entry(&r, gi, i, err) != 0)
			goto fail;
	if (gi_extensions(&r, shared, err) != 0)
		goto fail;
	buf_release(&r.path);
	gi_finish(gi);
	return gi;
fail:
	buf_release(&r.path);
	if (shared != NULL) {
		free(*shared);
		*shared = NULL;
	}
	gitindex_free(gi);
	return NULL;
}

static struct gitindex *
gi_read_file(const char *path, size_t hashlen, char **shared, struct buf *err)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(1024);
	struct file_status st;
	struct gitindex *gi = NULL;

	if (file_read(path, GITINDEX_MAX_BYTES, FILE_REGULAR, &text, &st) != 0) {
		if (st.fail == FILE_TOO_BIG)
			buf_printf(err, "%s is larger than %zu MB", path, GITINDEX_MAX_BYTES >> 20);
		else if (st.fail != FILE_MISSING)
			buf_printf(err, "%s cannot be read", path);
		goto out;
	}
	gi = gitindex_parse(text.data, text.len, hashlen, shared, &why);
	if (gi == NULL)
		buf_printf(err, "%s: %s", path, buf_cstr(&why));
out:
	buf_release(&text);
	buf_release(&why);
	return gi;
}

struct gitindex *
gitindex_read(const char *gitdir, size_t hashlen, struct buf *err)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	struct gitindex *gi, *base;
	char *shared = NULL;
	size_t i;

	buf_printf(&path, "%s/index", gitdir);
	gi = gi_read_file(buf_cstr(&path), hashlen, &shared, err);
	if (gi == NULL || shared == NULL)
		goto out;
	/* a split index: the shared part's paths count too (one level, no more) */
	buf_reset(&path);
	buf_printf(&path, "%s/sharedindex.%s", gitdir, shared);
	base = gi_read_file(buf_cstr(&path), hashlen, NULL, err);
	if (base == NULL) {
		if (err->len == 0)
			buf_printf(err, "%s is missing", buf_cstr(&path));
		gitindex_free(gi);
		gi = NULL;
		goto out;
	}
	gi->max_names = gi->max_names + base->max_names < GITINDEX_MAX_NAMES ?
	    gi->max_names + base->max_names : GITINDEX_MAX_NAMES;
	for (i = 0; i < base->nv && gi != NULL; i++) {
		if (gi_add(gi, base->v[i], strlen(base->v[i]), err) != 0) {
			gitindex_free(gi);
			gi = NULL;
		}
	}
	gitindex_free(base);
	if (gi != NULL)
		gi_finish(gi);	/* the arena may have moved, and the order is to make */
out:
	free(shared);
	buf_release(&path);
	return gi;
}

void
gitindex_free(struct gitindex *gi)
{
	if (gi == NULL)
		return;
	free(gi->names);
	free(gi->off);
	free(gi->v);
	free(gi);
}

size_t
gitindex_count(const struct gitindex *gi)
{
	return gi->nv;
}

const char *
gitindex_path(const struct gitindex *gi, size_t i)
{
	return gi->v[i];
}

/* name against the string key[0..len): <0, 0, >0 as strcmp. */
static int
gi_cmp(const char *name, const char *key, size_t len)
{
	int c = strncmp(name, key, len);

	if (c != 0)
		return c;
	return name[len] != '\0';
}

/* The first path not below key[0..len). */
static size_t
gi_lower(const struct gitindex *gi, const char *key, size_t len)
{
	size_t lo = 0, hi = gi->nv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gi_cmp(gi->v[mid], key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
gitindex_has(const struct gitindex *gi, const char *path, size_t len)
{
	size_t i = gi_lower(gi, path, len);

	return i < gi->nv && gi_cmp(gi->v[i], path, len) == 0;
}

bool
gitindex_has_below(const struct gitindex *gi, const char *path, size_t len)
{
	char *key;
	size_t i;
	bool r;

	if (len == 0)
		return gi->nv > 0;
	key = xmalloc(len + 1);
	memcpy(key, path, len);
	key[len] = '/';
	i = gi_lower(gi, key, len + 1);
	r = i < gi->nv && strncmp(gi->v[i], key, len + 1) == 0;
	free(key);
	return r;
}
