/* Line diffs (Myers, linear space) and unified diff text: see diff.h. */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diff.h"
#include "utf8.h"
#include "xalloc.h"

/* One side of the changed middle: its lines as ids, and which changed. */
struct side {
	const char	*text;
	size_t		*off;		/* n + 1 line starts into text */
	long		 n;
	uint32_t	*id;		/* equal lines share an id */
	char		*chg;		/* 1: not part of the common subsequence */
};

/* The Myers search over the lines that can match (see diff_lines). */
struct myers {
	const uint32_t	*a, *b;
	char		*ca, *cb;
	long		*fv, *bv;	/* furthest x per diagonal, forward and back */
	long		 voff;		/* fv[k + voff] is diagonal k */
	long		 max_cost;	/* past this d, split where it got furthest */
};

/* A run of changed lines: old [a0, a1) became new [b0, b1), 0-based, whole text. */
struct change {
	long	a0, a1, b0, b1;
};

#define DIFF_NOWHERE	(-1L)
/* Common trailing lines kept in the middle for changes to slide into. */
#define DIFF_SLIDE_LINES	64

static size_t
diff_common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	/* memcmp in blocks first: a 100 MB file costs a few milliseconds. */
	while (n - i >= 4096 && memcmp(a + i, b + i, 4096) == 0)
		i += 4096;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static size_t
diff_common_suffix(const char *a, size_t alen, const char *b, size_t blen, size_t max)
{
	size_t i = 0;

	while (max - i >= 4096 &&
	    memcmp(a + alen - i - 4096, b + blen - i - 4096, 4096) == 0)
		i += 4096;
	while (i < max && a[alen - i - 1] == b[blen - i - 1])
		i++;
	return i;
}

static int
diff_is_line_start(const char *t, size_t pos, size_t floor)
{
	return pos == floor || t[pos - 1] == '\n';
}

/*
 * Cut the common leading and trailing whole lines: the middle is
 * a[pre, *aend) and b[pre, *bend).  Returns pre.
 */
static size_t
diff_trim(const char *a, size_t alen, const char *b, size_t blen,
    size_t *aend, size_t *bend)
{
	size_t n = alen < blen ? alen : blen, p, pre, s, qa, qb;
	const char *nl;

	p = diff_common_prefix(a, b, n);
	nl = p > 0 ? memrchr(a, '\n', p) : NULL;
	pre = nl != NULL ? (size_t)(nl - a) + 1 : 0;
	if (p == alen && p == blen) {
		*aend = *bend = alen;
		return alen;
	}
	s = diff_common_suffix(a, alen, b, blen, n - pre);
	qa = alen - s;
	qb = blen - s;
	if (!diff_is_line_start(a, qa, pre) || !diff_is_line_start(b, qb, pre)) {
		/* Move to the next line start inside the common tail. */
		nl = memchr(a + qa, '\n', alen - qa);
		if (nl == NULL) {
			qa = alen;
			qb = blen;
		} else {
			qb += (size_t)(nl - a) + 1 - qa;
			qa = (size_t)(nl - a) + 1;
		}
	}
	/*
	 * Give back a few common lines to the middle, so that a change can
	 * slide down into them as diff -u would place it (diff_compact).
	 */
	for (n = 0; n < DIFF_SLIDE_LINES && qa < alen; n++) {
		nl = memchr(a + qa, '\n', alen - qa);
		s = nl != NULL ? (size_t)(nl - a) + 1 - qa : alen - qa;
		qa += s;
		qb += s;
	}
	*aend = qa;
	*bend = qb;
	return pre;
}

static long
diff_count_range(const char *t, size_t from, size_t to)
{
	long n = 0;
	const char *p = t + from, *end = t + to, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p = nl + 1;
	}
	return n + (p < end);
}

long
diff_count_lines(const char *text, size_t len)
{
	return diff_count_range(text, 0, len);
}

/* Line starts of t[from, to): n + 1 offsets, the last one == to. */
static size_t *
diff_split(const char *t, size_t from, size_t to, long *np)
{
	long n = diff_count_range(t, from, to), i = 0;
	size_t *off = xreallocarray(NULL, (size_t)n + 1, sizeof(*off));
	size_t p = from;

	while (i < n) {
		const char *nl = memchr(t + p, '\n', to - p);

		off[i++] = p;
		p = nl != NULL ? (size_t)(nl - t) + 1 : to;
	}
	off[n] = to;
	*np = n;
	return off;
}

static uint64_t
diff_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n-- > 0)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/* The table that gives equal lines one id. */
struct idtab {
	uint32_t	*slot;		/* id + 1, or 0 */
	size_t		 mask;
	const char	**ptr;		/* per id: one of its lines */
	size_t		*len;
	uint64_t	*hash;
	long		*count[2];	/* per id: how often in a, in b */
	uint32_t	 nids;
};

static uint32_t
idtab_get(struct idtab *t, const char *p, size_t n, int which)
{
	uint64_t h = diff_hash(p, n);
	size_t i = (size_t)h & t->mask;
	uint32_t id;

	while (t->slot[i] != 0) {
		id = t->slot[i] - 1;
		if (t->hash[id] == h && t->len[id] == n && memcmp(t->ptr[id], p, n) == 0) {
			t->count[which][id]++;
			return id;
		}
		i = (i + 1) & t->mask;
	}
	id = t->nids++;
	t->slot[i] = id + 1;
	t->ptr[id] = p;
	t->len[id] = n;
	t->hash[id] = h;
	t->count[which][id] = 1;
	t->count[!which][id] = 0;
	return id;
}

static void
diff_assign_ids(struct side *a, struct side *b, long **count_a, long **count_b)
{
	struct idtab t;
	size_t total = (size_t)a->n + (size_t)b->n, cap = 16;
	long i;

	while (cap < total * 2)
		cap <<= 1;
	t.slot = xcalloc(cap, sizeof(*t.slot));
	t.mask = cap - 1;
	t.ptr = xreallocarray(NULL, total + 1, sizeof(*t.ptr));
	t.len = xreallocarray(NULL, total + 1, sizeof(*t.len));
	t.hash = xreallocarray(NULL, total + 1, sizeof(*t.hash));
	t.count[0] = xreallocarray(NULL, total + 1, sizeof(long));
	t.count[1] = xreallocarray(NULL, total + 1, sizeof(long));
	t.nids = 0;
	a->id = xreallocarray(NULL, (size_t)a->n + 1, sizeof(*a->id));
	b->id = xreallocarray(NULL, (size_t)b->n + 1, sizeof(*b->id));
	for (i = 0; i < a->n; i++)
		a->id[i] = idtab_get(&t, a->text + a->off[i], a->off[i + 1] - a->off[i], 0);
	for (i = 0; i < b->n; i++)
		b->id[i] = idtab_get(&t, b->text + b->off[i], b->off[i + 1] - b->off[i], 1);
	free(t.slot);
	free(t.ptr);
	free(t.len);
	free(t.hash);
	*count_a = t.count[0];
	*count_b = t.count[1];
}

static void
myers_mark(char *c, long from, long to)
{
	while (from < to)
		c[from++] = 1;
}

/*
 * Step d of the search from one end of a[a0,a1) x b[b0,b1): forward from
 * the start in fv, or (back) from the end in reversed coordinates in bv.
 * Returns 1 with the split in *sx,*sy when check is set and the path
 * overlaps the other search's.
 */
static int
myers_step(struct myers *m, long a0, long a1, long b0, long b1, long d, bool back,
    int check, long *sx, long *sy)
{
	long n = a1 - a0, mm = b1 - b0, delta = n - mm, k;
	long *v = (back ? m->bv : m->fv) + m->voff, *w = (back ? m->fv : m->bv) + m->voff;
	/* the lines in the search's direction: a_at[step * x] is its x-th */
	const uint32_t *a_at = back ? m->a + a1 - 1 : m->a + a0;
	const uint32_t *b_at = back ? m->b + b1 - 1 : m->b + b0;
	long step = back ? -1 : 1;
	/* the backward step runs second, when the forward one has done d too */
	long reach = back ? d : d - 1;

	for (k = -d; k <= d; k += 2) {
		long x = DIFF_NOWHERE, y, c;

		if (k < -mm || k > n)
			continue;
		if (d == 0)
			x = 0;
		else {
			/* down from k+1, or right from k-1, whichever stays in the grid and gets further */
			if (k + 1 <= d - 1 && k + 1 <= n && v[k + 1] != DIFF_NOWHERE &&
			    v[k + 1] - k <= mm)
				x = v[k + 1];
			if (k - 1 >= -(d - 1) && k - 1 >= -mm && v[k - 1] != DIFF_NOWHERE &&
			    v[k - 1] + 1 <= n && v[k - 1] + 1 > x)
				x = v[k - 1] + 1;
		}
		if (x == DIFF_NOWHERE) {
			v[k] = DIFF_NOWHERE;
			continue;
		}
		y = x - k;
		while (x < n && y < mm && a_at[step * x] == b_at[step * y]) {
			x++;
			y++;
		}
		v[k] = x;
		c = delta - k;	/* the same diagonal, seen from the other end */
		if (check && c >= -reach && c <= reach && c >= -mm && c <= n &&
		    w[c] != DIFF_NOWHERE && x + w[c] >= n) {
			*sx = back ? n - x : x;
			*sy = back ? mm - y : y;
			return 1;
		}
	}
	return 0;
}

/* Too costly: split where either search got furthest. */
static void
myers_furthest(struct myers *m, long n, long mm, long d, long *sx, long *sy)
{
	long *fv = m->fv + m->voff, *bv = m->bv + m->voff, k, best = -1;

	for (k = -d; k <= d; k += 2) {
		if (k < -mm || k > n)
			continue;
		if (fv[k] != DIFF_NOWHERE && 2 * fv[k] - k > best) {
			best = 2 * fv[k] - k;
			*sx = fv[k];
			*sy = fv[k] - k;
		}
		if (bv[k] != DIFF_NOWHERE && 2 * bv[k] - k > best) {
			best = 2 * bv[k] - k;
			*sx = n - bv[k];
			*sy = mm - (bv[k] - k);
		}
	}
}

/*
 * Where to split a[a0,a1) x b[b0,b1) (both non-empty, ends differing):
 * a point on a shortest edit path, found by searching from both ends.
 */
static void
myers_split(struct myers *m, long a0, long a1, long b0, long b1, long *sx, long *sy)
{
	long n = a1 - a0, mm = b1 - b0, d;
	int odd = ((n - mm) & 1) != 0;

	*sx = *sy = -1;
	for (d = 0;; d++) {
		if (myers_step(m, a0, a1, b0, b1, d, false, odd && d > 0, sx, sy))
			break;
		if (myers_step(m, a0, a1, b0, b1, d, true, !odd, sx, sy))
			break;
		if (d >= m->max_cost) {
			myers_furthest(m, n, mm, d, sx, sy);
			break;
		}
	}
	*sx += a0;
	*sy += b0;
}

static void
myers_run(struct myers *m, long a0, long a1, long b0, long b1)
{
	for (;;) {
		long x, y;

		while (a0 < a1 && b0 < b1 && m->a[a0] == m->b[b0]) {
			a0++;
			b0++;
		}
		while (a0 < a1 && b0 < b1 && m->a[a1 - 1] == m->b[b1 - 1]) {
			a1--;
			b1--;
		}
		if (a0 == a1 || b0 == b1) {
			myers_mark(m->ca, a0, a1);
			myers_mark(m->cb, b0, b1);
			return;
		}
		myers_split(m, a0, a1, b0, b1, &x, &y);
		if ((x == a0 && y == b0) || (x == a1 && y == b1) || x < a0 || x > a1 ||
		    y < b0 || y > b1) {
			/* cannot happen; never loop forever if it does */
			myers_mark(m->ca, a0, a1);
			myers_mark(m->cb, b0, b1);
			return;
		}
		/* recurse into the smaller part so the stack stays shallow */
		if ((x - a0) + (y - b0) <= (a1 - x) + (b1 - y)) {
			myers_run(m, a0, x, b0, y);
			a0 = x;
			b0 = y;
		} else {
			myers_run(m, x, a1, y, b1);
			a1 = x;
			b1 = y;
		}
	}
}

/* The bound on d before the search settles for a good split. */
static long
myers_cost_bound(long total)
{
	long c = (1L << 28) / (total > 0 ? total : 1);

	if (c < 256)
		c = 256;
	if (c > 4096)
		c = 4096;
	return c;
}

/*
 * A line found in only one text is changed whatever the alignment: mark
 * it, and run Myers over the rest (as GNU diff does), which keeps totally
 * different files linear.  The shortest edit script is unchanged.
 */
static void
diff_lines(struct side *a, struct side *b)
{
	long *ca_count, *cb_count, i, na = 0, nb = 0;
	uint32_t *ra, *rb;
	long *ma, *mb;
	struct myers m;

	diff_assign_ids(a, b, &ca_count, &cb_count);
	ra = xreallocarray(NULL, (size_t)a->n + 1, sizeof(*ra));
	rb = xreallocarray(NULL, (size_t)b->n + 1, sizeof(*rb));
	ma = xreallocarray(NULL, (size_t)a->n + 1, sizeof(*ma));
	mb = xreallocarray(NULL, (size_t)b->n + 1, sizeof(*mb));
	for (i = 0; i < a->n; i++) {
		if (cb_count[a->id[i]] == 0)
			a->chg[i] = 1;
		else {
			ra[na] = a->id[i];
			ma[na++] = i;
		}
	}
	for (i = 0; i < b->n; i++) {
		if (ca_count[b->id[i]] == 0)
			b->chg[i] = 1;
		else {
			rb[nb] = b->id[i];
			mb[nb++] = i;
		}
	}
	m.a = ra;
	m.b = rb;
	m.ca = xcalloc((size_t)na + 1, 1);
	m.cb = xcalloc((size_t)nb + 1, 1);
	m.voff = nb + 1;
	m.fv = xreallocarray(NULL, (size_t)(na + nb + 3), sizeof(long));
	m.bv = xreallocarray(NULL, (size_t)(na + nb + 3), sizeof(long));
	m.max_cost = myers_cost_bound(na + nb);
	myers_run(&m, 0, na, 0, nb);
	for (i = 0; i < na; i++)
		if (m.ca[i])
			a->chg[ma[i]] = 1;
	for (i = 0; i < nb; i++)
		if (m.cb[i])
			b->chg[mb[i]] = 1;
	free(m.ca);
	free(m.cb);
	free(m.fv);
	free(m.bv);
	free(ra);
	free(rb);
	free(ma);
	free(mb);
	free(ca_count);
	free(cb_count);
}

/* Each unchanged line of x: the index of its partner in y. */
static long *
diff_partners(const char *cx, long nx, const char *cy, long ny)
{
	long *p = xreallocarray(NULL, (size_t)nx + 1, sizeof(*p)), i, j = 0;

	for (i = 0; i < nx; i++) {
		if (cx[i])
			continue;
		while (j < ny && cy[j])
			j++;
		p[i] = j++;
	}
	return p;
}

/* Does the run of x ending before e sit where y has changes too? */
static int
diff_aligned(const char *cy, long ny, const long *partner, long e, long nx)
{
	long yp = e < nx ? partner[e] : ny;

	return yp > 0 && cy[yp - 1];
}

/*
 * Slide each run of changed lines of x to a canonical place, as diff -u
 * does: a run whose first line equals the line after it can move down
 * one line without changing the edit's length.  Runs go as far down as
 * they can, unless on the way they passed a place where y changed too:
 * then they stop there, so a replacement shows as one change.
 */
static void
diff_compact(char *cx, const uint32_t *ix, long nx, const char *cy, long ny)
{
	long *partner = diff_partners(cx, nx, cy, ny), i = 0;

	while (i < nx) {
		long s = i, e, len, aligned;

		if (!cx[i]) {
			i++;
			continue;
		}
		e = s;
		while (e < nx && cx[e])
			e++;
		do {
			len = e - s;
			while (s > 0 && !cx[s - 1] && ix[s - 1] == ix[e - 1]) {
				cx[--s] = 1;
				cx[--e] = 0;
				partner[e] = partner[s];
				while (s > 0 && cx[s - 1])
					s--;
			}
			aligned = diff_aligned(cy, ny, partner, e, nx) ? e : -1;
			while (e < nx && ix[s] == ix[e]) {
				cx[s] = 0;
				cx[e] = 1;
				partner[s] = partner[e];
				s++;
				e++;
				while (e < nx && cx[e])
					e++;
				if (diff_aligned(cy, ny, partner, e, nx))
					aligned = e;
			}
		} while (len != e - s);
		while (aligned != -1 && e > aligned) {
			cx[--s] = 1;
			cx[--e] = 0;
			partner[e] = partner[s];
		}
		i = e;
	}
	free(partner);
}

/* Everything the hunk builder needs about one text. */
struct view {
	const char	*text;
	size_t		 len;
	long		 pre_lines;	/* lines before the middle */
	size_t		 ctx_before[DIFF_CONTEXT + 1];	/* starts of the last lines before it */
	int		 nbefore;
	struct side	 mid;
	size_t		 tail;		/* where the common tail starts */
	long		 total;		/* lines in the whole text */
};

/* The byte range of 0-based line i of v (only lines near a change are asked for). */
static void
view_line(const struct view *v, long i, size_t *s, size_t *e)
{
	if (i < v->pre_lines) {
		int j = v->nbefore - (int)(v->pre_lines - i);

		*s = v->ctx_before[j];
		*e = v->ctx_before[j + 1];
	} else if (i < v->pre_lines + v->mid.n) {
		*s = v->mid.off[i - v->pre_lines];
		*e = v->mid.off[i - v->pre_lines + 1];
	} else {
		long k = i - v->pre_lines - v->mid.n;
		size_t p = v->tail;
		const char *nl;

		for (;;) {
			nl = memchr(v->text + p, '\n', v->len - p);
			*s = p;
			*e = p = nl != NULL ? (size_t)(nl - v->text) + 1 : v->len;
			if (k-- == 0 || p == v->len)
				break;
		}
	}
}

static void
view_init(struct view *v, const char *t, size_t len, size_t pre, size_t end)
{
	long before;
	size_t p = pre;
	int i;

	memset(v, 0, sizeof(*v));
	v->text = t;
	v->len = len;
	v->pre_lines = diff_count_range(t, 0, pre);
	before = v->pre_lines < DIFF_CONTEXT ? v->pre_lines : DIFF_CONTEXT;
	v->nbefore = (int)before;
	v->ctx_before[before] = pre;
	for (i = (int)before - 1; i >= 0; i--) {
		const char *nl = p >= 2 ? memrchr(t, '\n', p - 1) : NULL;

		p = nl != NULL ? (size_t)(nl - t) + 1 : 0;
		v->ctx_before[i] = p;
	}
	v->mid.text = t;
	v->mid.off = diff_split(t, pre, end, &v->mid.n);
	v->mid.chg = xcalloc((size_t)v->mid.n + 1, 1);
	v->tail = end;
}

static void
view_release(struct view *v)
{
	free(v->mid.off);
	free(v->mid.id);
	free(v->mid.chg);
}

/* The changes of the middle, in whole-text line numbers. */
static struct change *
diff_changes(const struct view *va, const struct view *vb, size_t *nchanges)
{
	struct change *c = NULL;
	size_t n = 0, cap = 0;
	long i = 0, j = 0;

	while (i < va->mid.n || j < vb->mid.n) {
		long si = i, sj = j;

		if (i < va->mid.n && j < vb->mid.n && !va->mid.chg[i] && !vb->mid.chg[j]) {
			i++;
			j++;
			continue;
		}
		while (i < va->mid.n && va->mid.chg[i])
			i++;
		while (j < vb->mid.n && vb->mid.chg[j])
			j++;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			c = xreallocarray(c, cap, sizeof(*c));
		}
		c[n].a0 = va->pre_lines + si;
		c[n].a1 = va->pre_lines + i;
		c[n].b0 = vb->pre_lines + sj;
		c[n].b1 = vb->pre_lines + j;
		n++;
	}
	*nchanges = n;
	return c;
}

/* The diff being built: lines record store offsets until the end. */
struct builder {
	struct diff	*d;
	size_t		 cap_lines, cap_hunks;
	struct buf	 store;
	size_t		*text_off;
};

static void
builder_line(struct builder *bd, enum diff_kind kind, long old_no, long new_no,
    const struct view *v, long idx)
{
	struct diff *d = bd->d;
	struct diff_line *l;
	size_t s, e;

	if (d->nlines == bd->cap_lines) {
		bd->cap_lines = bd->cap_lines ? bd->cap_lines * 2 : 64;
		d->lines = xreallocarray(d->lines, bd->cap_lines, sizeof(*d->lines));
		bd->text_off = xreallocarray(bd->text_off, bd->cap_lines, sizeof(size_t));
	}
	view_line(v, idx, &s, &e);
	l = &d->lines[d->nlines];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->old_no = old_no;
	l->new_no = new_no;
	l->eol = e > s && v->text[e - 1] == '\n';
	l->len = e - s - (l->eol ? 1 : 0);
	bd->text_off[d->nlines] = bd->store.len;
	buf_append(&bd->store, v->text + s, l->len);
	d->nlines++;
}

/* The differing middle of two paired lines, on character boundaries. */
static void
diff_span(struct diff_line *del, struct diff_line *add)
{
	size_t n = del->len < add->len ? del->len : add->len, p = 0, s = 0;

	while (p < n && del->text[p] == add->text[p])
		p++;
	p = utf8_floor(del->text, p);
	while (s < n - p && del->text[del->len - 1 - s] == add->text[add->len - 1 - s])
		s++;
	/* do not start the common tail inside a character */
	while (s > 0 && ((unsigned char)del->text[del->len - s] & 0xC0) == 0x80)
		s--;
	del->has_span = add->has_span = true;
	del->span_start = add->span_start = p;
	del->span_end = del->len - s;
	add->span_end = add->len - s;
}

/* Pair the i-th deleted line of each change with its i-th added line. */
static void
diff_pair_spans(struct diff *d)
{
	size_t i = 0;

	while (i < d->nlines) {
		size_t ds = i, as, ae, k;

		while (i < d->nlines && d->lines[i].kind == DIFF_DEL)
			i++;
		as = i;
		while (i < d->nlines && d->lines[i].kind == DIFF_ADD)
			i++;
		ae = i;
		for (k = 0; ds + k < as && as + k < ae; k++)
			diff_span(&d->lines[ds + k], &d->lines[as + k]);
		if (i == ds)
			i++;
	}
}

/* One hunk over changes c[first, last]. */
static void
builder_hunk(struct builder *bd, const struct view *va, const struct view *vb,
    const struct change *c, size_t first, size_t last)
{
	struct diff *d = bd->d;
	struct diff_hunk *h;
	long ctx0 = c[first].a0 < DIFF_CONTEXT ? c[first].a0 : DIFF_CONTEXT;
	long ai = c[first].a0 - ctx0, bi = c[first].b0 - ctx0, aend, k;
	size_t ci;

	if (d->nhunks == bd->cap_hunks) {
		bd->cap_hunks = bd->cap_hunks ? bd->cap_hunks * 2 : 8;
		d->hunks = xreallocarray(d->hunks, bd->cap_hunks, sizeof(*d->hunks));
	}
	h = &d->hunks[d->nhunks++];
	h->first = d->nlines;
	h->old_start = ai;
	h->new_start = bi;
	for (ci = first; ci <= last; ci++) {
		for (; ai < c[ci].a0; ai++, bi++)
			builder_line(bd, DIFF_CTX, ai + 1, bi + 1, va, ai);
		for (k = c[ci].a0; k < c[ci].a1; k++)
			builder_line(bd, DIFF_DEL, k + 1, 0, va, k);
		for (k = c[ci].b0; k < c[ci].b1; k++)
			builder_line(bd, DIFF_ADD, 0, k + 1, vb, k);
		d->removed += c[ci].a1 - c[ci].a0;
		d->added += c[ci].b1 - c[ci].b0;
		ai = c[ci].a1;
		bi = c[ci].b1;
	}
	aend = ai + DIFF_CONTEXT < va->total ? ai + DIFF_CONTEXT : va->total;
	for (; ai < aend; ai++, bi++)
		builder_line(bd, DIFF_CTX, ai + 1, bi + 1, va, ai);
	h->count = d->nlines - h->first;
	h->old_count = ai - h->old_start;
	h->new_count = bi - h->new_start;
	/* diff -u: an empty range names the line before it */
	h->old_start += h->old_count > 0;
	h->new_start += h->new_count > 0;
}

static void
diff_build(struct diff *d, const struct view *va, const struct view *vb,
    const struct change *c, size_t nc)
{
	struct builder bd;
	size_t i = 0, j;

	memset(&bd, 0, sizeof(bd));
	bd.d = d;
	buf_init(&bd.store, BUF_NOLIMIT);
	while (i < nc) {
		j = i;
		while (j + 1 < nc && c[j + 1].a0 - c[j].a1 <= 2 * DIFF_CONTEXT)
			j++;
		builder_hunk(&bd, va, vb, c, i, j);
		i = j + 1;
	}
	d->store = buf_detach(&bd.store, NULL);
	for (i = 0; i < d->nlines; i++)
		d->lines[i].text = d->store + bd.text_off[i];
	free(bd.text_off);
	diff_pair_spans(d);
}

struct diff *
diff_compute(const char *a, size_t alen, const char *b, size_t blen, struct buf *err)
{
	struct diff *d;
	struct view va, vb;
	struct change *c;
	size_t pre, aend, bend, nc;
	long na, nb;

	pre = diff_trim(a, alen, b, blen, &aend, &bend);
	na = diff_count_range(a, pre, aend);
	nb = diff_count_range(b, pre, bend);
	if (na + nb > DIFF_MAX_LINES) {
		buf_printf(err, "the change spans %ld old and %ld new lines, more than "
		    "the %d lines a diff is computed for", na, nb, DIFF_MAX_LINES);
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	view_init(&va, a, alen, pre, aend);
	view_init(&vb, b, blen, pre, bend);
	va.total = va.pre_lines + va.mid.n + diff_count_range(a, aend, alen);
	vb.total = vb.pre_lines + vb.mid.n + diff_count_range(b, bend, blen);
	diff_lines(&va.mid, &vb.mid);
	diff_compact(va.mid.chg, va.mid.id, va.mid.n, vb.mid.chg, vb.mid.n);
	diff_compact(vb.mid.chg, vb.mid.id, vb.mid.n, va.mid.chg, va.mid.n);
	c = diff_changes(&va, &vb, &nc);
	diff_build(d, &va, &vb, c, nc);
	free(c);
	view_release(&va);
	view_release(&vb);
	return d;
}

void
diff_free(struct diff *d)
{
	if (d == NULL)
		return;
	free(d->hunks);
	free(d->lines);
	free(d->store);
	free(d);
}

static int
diff_range(struct buf *out, long start, long count)
{
	if (count == 1)
		return buf_printf(out, "%ld", start);
	return buf_printf(out, "%ld,%ld", start, count);
}

int
diff_format(const struct diff *d, const char *old_label, const char *new_label,
    struct buf *out)
{
	static const char mark[] = { ' ', '-', '+' };
	size_t h, i;
	int rc = 0;

	if (d->nhunks == 0)
		return 0;
	rc |= buf_printf(out, "--- %s\n+++ %s\n", old_label, new_label);
	for (h = 0; h < d->nhunks && rc == 0; h++) {
		const struct diff_hunk *hk = &d->hunks[h];

		rc |= buf_puts(out, "@@ -");
		rc |= diff_range(out, hk->old_start, hk->old_count);
		rc |= buf_puts(out, " +");
		rc |= diff_range(out, hk->new_start, hk->new_count);
		rc |= buf_puts(out, " @@\n");
		for (i = hk->first; i < hk->first + hk->count && rc == 0; i++) {
			const struct diff_line *l = &d->lines[i];

			rc |= buf_putc(out, mark[l->kind]);
			rc |= buf_append(out, l->text, l->len);
			rc |= buf_putc(out, '\n');
			if (!l->eol)
				rc |= buf_puts(out, "\\ No newline at end of file\n");
		}
	}
	return rc != 0 ? -1 : 0;
}

int
diff_unified(const char *a, size_t alen, const char *b, size_t blen,
    const char *path, struct buf *out, struct buf *err)
{
	struct diff *d = diff_compute(a, alen, b, blen, err);
	struct buf ol = BUF_INIT(BUF_NOLIMIT), nl = BUF_INIT(BUF_NOLIMIT);
	int rc;

	if (d == NULL)
		return -1;
	buf_printf(&ol, "a/%s", path);
	buf_printf(&nl, "b/%s", path);
	rc = diff_format(d, buf_cstr(&ol), buf_cstr(&nl), out);
	if (rc != 0)
		buf_puts(err, "the diff is longer than its buffer allows");
	buf_release(&ol);
	buf_release(&nl);
	diff_free(d);
	return rc;
}

/* --- Helpers for the write tools' messages. --- */

static int
diff_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* s[*b, *e) with whitespace cut from both ends. */
static void
diff_strip(const char *s, size_t *b, size_t *e)
{
	while (*b < *e && diff_space(s[*b]))
		(*b)++;
	while (*e > *b && diff_space(s[*e - 1]))
		(*e)--;
}

/* How alike two lines are, 0..1: their common start and end against the longer. */
static double
diff_line_sim(const char *x, size_t xl, const char *y, size_t yl)
{
	size_t n = xl < yl ? xl : yl, p = 0, s = 0, max = xl > yl ? xl : yl;

	if (max == 0)
		return 1.0;
	while (p < n && x[p] == y[p])
		p++;
	while (s < n - p && x[xl - 1 - s] == y[yl - 1 - s])
		s++;
	return (double)(p + s) / (double)max;
}

struct lines {
	const char	*t;
	size_t		*off;
	long		 n;
};

static void
lines_init(struct lines *l, const char *t, size_t len)
{
	l->t = t;
	l->off = diff_split(t, 0, len, &l->n);
}

static double
diff_window_score(const struct lines *t, long at, const struct lines *w)
{
	double sum = 0;
	long j;

	for (j = 0; j < w->n && at + j < t->n; j++) {
		size_t tb = t->off[at + j], te = t->off[at + j + 1];
		size_t wb = w->off[j], we = w->off[j + 1];

		diff_strip(t->t, &tb, &te);
		diff_strip(w->t, &wb, &we);
		sum += diff_line_sim(t->t + tb, te - tb, w->t + wb, we - wb);
	}
	return sum / (double)w->n;
}

static uint64_t
diff_stripped_hash(const struct lines *l, long i, size_t *n)
{
	size_t b = l->off[i], e = l->off[i + 1];

	diff_strip(l->t, &b, &e);
	*n = e - b;
	return diff_hash(l->t + b, e - b);
}

struct whash {
	uint64_t	h;
	long		j;
};

static int
whash_cmp(const void *x, const void *y)
{
	const struct whash *p = x, *q = y;

	if (p->h != q->h)
		return p->h < q->h ? -1 : 1;
	return p->j < q->j ? -1 : p->j > q->j;
}

/* The first entry of w (sorted, n entries) with hash h, or n. */
static size_t
whash_find(const struct whash *w, size_t n, uint64_t h)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Candidate windows for a big text: where a distinctive line of want occurs. */
static long
diff_nearest_big(const struct lines *t, const struct lines *w, double *best)
{
	struct whash *wh = xreallocarray(NULL, (size_t)w->n, sizeof(*wh));
	char *seen = xcalloc((size_t)t->n + 1, 1);
	long i, j, at = -1, evaluated = 0;
	size_t n, nw = 0, k;

	for (j = 0; j < w->n; j++) {
		wh[nw].h = diff_stripped_hash(w, j, &n);
		wh[nw].j = j;
		if (n >= 4)	/* "}" and blank lines match everywhere */
			nw++;
	}
	qsort(wh, nw, sizeof(*wh), whash_cmp);
	for (i = 0; i < t->n && evaluated < 20000; i++) {
		uint64_t h = diff_stripped_hash(t, i, &n);

		if (n < 4)
			continue;
		for (k = whash_find(wh, nw, h); k < nw && wh[k].h == h; k++) {
			long at0 = i - wh[k].j;
			double s;

			if (at0 < 0 || seen[at0])
				continue;
			seen[at0] = 1;
			evaluated++;
			s = diff_window_score(t, at0, w);
			if (s > *best) {
				*best = s;
				at = at0;
			}
		}
	}
	free(wh);
	free(seen);
	return at;
}

long
diff_nearest(const char *text, size_t len, const char *want, size_t wantlen)
{
	struct lines t, w;
	double best = 0;
	long at = -1, i, last;

	lines_init(&t, text, len);
	lines_init(&w, want, wantlen);
	if (w.n == 0 || t.n == 0)
		goto out;
	if ((double)t.n * (double)w.n <= 4e6) {
		last = t.n > w.n ? t.n - w.n : 0;
		for (i = 0; i <= last; i++) {
			double s = diff_window_score(&t, i, &w);

			if (s > best) {
				best = s;
				at = i;
			}
		}
	} else
		at = diff_nearest_big(&t, &w, &best);
	if (best < 0.4)
		at = -1;
out:
	free(t.off);
	free(w.off);
	return at;
}

/* text with all whitespace removed, and where each line starts in it. */
static char *
diff_squeeze(const char *t, size_t len, size_t **offp, long *np)
{
	size_t *srcoff, *off, o = 0;
	char *s = xmalloc(len + 1);
	long n, i;

	srcoff = diff_split(t, 0, len, &n);
	off = xreallocarray(NULL, (size_t)n + 1, sizeof(*off));
	for (i = 0; i < n; i++) {
		size_t p;

		off[i] = o;
		for (p = srcoff[i]; p < srcoff[i + 1]; p++)
			if (!diff_space(t[p]))
				s[o++] = t[p];
	}
	off[n] = o;
	s[o] = '\0';
	free(srcoff);
	*offp = off;
	*np = n;
	return s;
}

/* Does want (squeezed, k lines) match text (squeezed) at line i? */
static int
diff_loose_at(const char *ts, const size_t *toff, long i, const char *ws,
    const size_t *woff, long k)
{
	size_t tl, wl;
	long j;

	if (k == 1) {
		tl = toff[i + 1] - toff[i];
		wl = woff[1] - woff[0];
		return wl > 0 && memmem(ts + toff[i], tl, ws, wl) != NULL;
	}
	tl = toff[i + 1] - toff[i];
	wl = woff[1] - woff[0];
	if (wl > tl || memcmp(ts + toff[i + 1] - wl, ws, wl) != 0)
		return 0;
	for (j = 1; j < k - 1; j++) {
		tl = toff[i + j + 1] - toff[i + j];
		wl = woff[j + 1] - woff[j];
		if (tl != wl || memcmp(ts + toff[i + j], ws + woff[j], wl) != 0)
			return 0;
	}
	tl = toff[i + k] - toff[i + k - 1];
	wl = woff[k] - woff[k - 1];
	return wl <= tl && memcmp(ts + toff[i + k - 1], ws + woff[k - 1], wl) == 0;
}

long
diff_find_loose(const char *text, size_t len, const char *want, size_t wantlen,
    long *first_line)
{
	size_t *toff, *woff;
	char *ts, *ws;
	long tn, wn, i, found = 0;

	*first_line = -1;
	ws = diff_squeeze(want, wantlen, &woff, &wn);
	if (wn == 0 || woff[wn] == 0) {
		free(ws);
		free(woff);
		return 0;
	}
	ts = diff_squeeze(text, len, &toff, &tn);
	for (i = 0; i + wn <= tn && found < 100; i++) {
		if (diff_loose_at(ts, toff, i, ws, woff, wn)) {
			if (found++ == 0)
				*first_line = i;
		}
	}
	free(ts);
	free(toff);
	free(ws);
	free(woff);
	return found;
}

/* How much of one line an excerpt shows. */
#define DIFF_EXCERPT_WIDTH	240

int
diff_excerpt(struct buf *out, const char *text, size_t len, long first, long n)
{
	size_t p = 0;
	long i = 0;
	int rc = 0;

	if (first < 0)
		first = 0;
	while (i < first && p < len) {
		const char *nl = memchr(text + p, '\n', len - p);

		p = nl != NULL ? (size_t)(nl - text) + 1 : len;
		i++;
	}
	for (; i < first + n && p < len && rc == 0; i++) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl != NULL ? (size_t)(nl - text) : len, show;

		if (e > p && text[e - 1] == '\r')
			e--;
		show = e - p;
		if (show > DIFF_EXCERPT_WIDTH)
			show = utf8_floor(text + p, DIFF_EXCERPT_WIDTH);
		rc |= buf_printf(out, "%ld\t", i + 1);
		rc |= buf_append(out, text + p, show);
		if (show < e - p)
			rc |= buf_printf(out, " [... %zu more bytes]", e - p - show);
		rc |= buf_putc(out, '\n');
		p = nl != NULL ? (size_t)(nl - text) + 1 : len;
	}
	return rc != 0 ? -1 : 0;
}
