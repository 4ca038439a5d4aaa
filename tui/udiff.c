/* Unified diff parsing and coloring: see udiff.h. */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "theme.h"
#include "draw.h"
#include "synhl.h"
#include "udiff.h"
#include "wrap.h"
#include "xalloc.h"

static struct udiff_line *
udiff_push(struct udiff *d, enum udiff_kind kind, const char *text, size_t len)
{
	struct udiff_line *l;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 32;
		d->lines = xreallocarray(d->lines, d->cap, sizeof *d->lines);
	}
	l = &d->lines[d->n++];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->text = text;
	l->len = len;
	l->pair = -1;
	return l;
}

/*
 * Tabs become spaces to the next 4-column stop of the line's own text, so
 * that widths measured here agree with what is drawn.  The changed span's
 * offsets move with the text.  In a pair that differs only in whitespace
 * the span shows it: a tab as "→" and the spaces to its stop, a space as
 * "·", each one column as before.
 */
static void
udiff_expand_tabs(struct udiff *d)
{
	size_t i, need = 0, k, off = 0;
	char *out;

	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->lines[i].len; k++)
			need += d->lines[i].text[k] == '\t' ? 6 : 2;
	out = xmalloc(need + 1);
	for (i = 0; i < d->n; i++) {
		struct udiff_line *l = &d->lines[i];
		size_t start = off, col = 0, ss = l->span_start, se = l->span_end;

		for (k = 0; k < l->len; k++) {
			unsigned char c = (unsigned char)l->text[k];
			bool shown = l->ws && k >= l->span_start && k < l->span_end;

			if (k == l->span_start)
				ss = off - start;
			if (k == l->span_end)
				se = off - start;
			if (c == '\t') {
				if (shown) {
					memcpy(out + off, "\xE2\x86\x92", 3);
					off += 3;
				} else
					out[off++] = ' ';
				while (++col % 4 != 0)
					out[off++] = ' ';
				continue;
			}
			if (c == ' ' && shown) {
				memcpy(out + off, "\xC2\xB7", 2);
				off += 2;
				col++;
				continue;
			}
			out[off++] = (char)c;
			if ((c & 0xC0) != 0x80)
				col++;
		}
		if (l->span_start >= l->len)
			ss = off - start;
		if (l->span_end >= l->len)
			se = off - start;
		l->text = out + start;
		l->len = off - start;
		l->span_start = ss;
		l->span_end = se;
	}
	out[off] = '\0';
	free(d->src);
	d->src = out;
}

/* Whether a and b are the same once blanks are left out. */
static bool
udiff_same_but_blanks(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < an && (a[i] == ' ' || a[i] == '\t'))
			i++;
		while (j < bn && (b[j] == ' ' || b[j] == '\t'))
			j++;
		if (i == an || j == bn)
			return i == an && j == bn;
		if (a[i++] != b[j++])
			return false;
	}
}

/* A number at *p (advanced past it); def when there is none. */
static long
udiff_num(const char **p, const char *end, long def)
{
	long v = 0;
	int digits = 0;

	while (*p < end && **p >= '0' && **p <= '9' && digits < 9) {
		v = v * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	return digits ? v : def;
}

/* "@@ -a[,b] +c[,d] @@"; 0 with the numbers, or -1. */
static int
udiff_hunk_header(const char *s, size_t n, long *a, long *b, long *c, long *dd)
{
	const char *p = s + 2, *end = s + n;

	if (n < 4 || memcmp(s, "@@", 2) != 0)
		return -1;
	while (p < end && *p == ' ')
		p++;
	if (p == end || *p++ != '-')
		return -1;
	*a = udiff_num(&p, end, -1);
	*b = 1;
	if (p < end && *p == ',') {
		p++;
		*b = udiff_num(&p, end, -1);
	}
	while (p < end && *p == ' ')
		p++;
	if (p == end || *p++ != '+')
		return -1;
	*c = udiff_num(&p, end, -1);
	*dd = 1;
	if (p < end && *p == ',') {
		p++;
		*dd = udiff_num(&p, end, -1);
	}
	return *a < 0 || *b < 0 || *c < 0 || *dd < 0 ? -1 : 0;
}

static void
udiff_file_name(struct udiff *d, const char *s, size_t n)
{
	size_t i = 4, j;

	if (d->file != NULL)
		return;
	if (n > 6 && (memcmp(s + 4, "a/", 2) == 0 || memcmp(s + 4, "b/", 2) == 0))
		i = 6;
	for (j = i; j < n && s[j] != '\t'; j++)
		;
	if (j > i && !(j - i == 9 && memcmp(s + i, "/dev/null", 9) == 0))
		d->file = xstrndup(s + i, j - i);
}

static size_t
udiff_back_to_char(const char *s, size_t k)
{
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	return k;
}

void
udiff_span(const char *a, size_t an, const char *b, size_t bn, size_t *pre, size_t *suf)
{
	size_t p = 0, s = 0, max = an < bn ? an : bn;

	while (p < max && a[p] == b[p])
		p++;
	/* Never cut a character in two. */
	if (p < an || p < bn) {
		size_t pa = p < an ? udiff_back_to_char(a, p) : p;
		size_t pb = p < bn ? udiff_back_to_char(b, p) : p;

		p = pa < pb ? pa : pb;
	}
	while (s < max - p && a[an - 1 - s] == b[bn - 1 - s])
		s++;
	while (s > 0 && ((an - s < an && ((unsigned char)a[an - s] & 0xC0) == 0x80) ||
	    (bn - s < bn && ((unsigned char)b[bn - s] & 0xC0) == 0x80)))
		s--;
	*pre = p;
	*suf = s;
}

/* Pair the run of removals [ds, de) with the additions [as, ae). */
static void
udiff_pair(struct udiff *d, size_t ds, size_t de, size_t as, size_t ae)
{
	size_t k;

	for (k = 0; ds + k < de && as + k < ae; k++) {
		struct udiff_line *o = &d->lines[ds + k], *nw = &d->lines[as + k];
		size_t pre, suf;

		o->pair = (long)(as + k);
		nw->pair = (long)(ds + k);
		udiff_span(o->text, o->len, nw->text, nw->len, &pre, &suf);
		/* Nothing in common: the whole line changed, which its color already says. */
		if (pre + suf == 0 && !udiff_same_but_blanks(o->text, o->len, nw->text, nw->len))
			continue;
		/* Only blanks changed (a tab to spaces): the span will show them. */
		o->ws = nw->ws = udiff_same_but_blanks(o->text, o->len, nw->text, nw->len);
		o->span_start = pre;
		o->span_end = o->len - suf;
		nw->span_start = pre;
		nw->span_end = nw->len - suf;
	}
}

static void
udiff_pair_all(struct udiff *d)
{
	size_t i = 0;

	while (i < d->n) {
		size_t ds, de, ae;

		if (d->lines[i].kind != UD_DEL) {
			i++;
			continue;
		}
		ds = i;
		while (i < d->n && d->lines[i].kind == UD_DEL)
			i++;
		de = i;
		while (i < d->n && d->lines[i].kind == UD_ADD)
			i++;
		ae = i;
		udiff_pair(d, ds, de, de, ae);
	}
}

void
udiff_parse(struct udiff *d, const char *text, size_t n)
{
	const char *p, *end;
	long old_left = 0, new_left = 0, a, b, c, dd;
	int old_no = 0, new_no = 0;

	memset(d, 0, sizeof *d);
	d->src = xmemdup(text, n);
	p = d->src;
	end = d->src + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		struct udiff_line *l;

		if (len > 0 && p[len - 1] == '\r')
			len--;
		if ((old_left > 0 || new_left > 0) && len > 0 &&
		    (p[0] == ' ' || (p[0] == '-' && old_left > 0) || (p[0] == '+' && new_left > 0))) {
			enum udiff_kind k = p[0] == ' ' ? UD_CONTEXT : p[0] == '-' ? UD_DEL : UD_ADD;

			l = udiff_push(d, k, p + 1, len - 1);
			if (k != UD_ADD) {
				l->old_no = old_no++;
				old_left--;
			}
			if (k != UD_DEL) {
				l->new_no = new_no++;
				new_left--;
			}
			d->adds += k == UD_ADD;
			d->dels += k == UD_DEL;
		} else if ((old_left > 0 || new_left > 0) && len == 0) {
			/* An empty context line whose space was lost (editors strip it). */
			l = udiff_push(d, UD_CONTEXT, p, 0);
			l->old_no = old_no++;
			l->new_no = new_no++;
			old_left--;
			new_left--;
		} else if (udiff_hunk_header(p, len, &a, &b, &c, &dd) == 0) {
			udiff_push(d, UD_HUNK, p, len);
			old_left = b;
			new_left = dd;
			old_no = (int)a;
			new_no = (int)c;
			d->hunks++;
		} else if (len >= 4 && (memcmp(p, "--- ", 4) == 0 || memcmp(p, "+++ ", 4) == 0)) {
			udiff_push(d, UD_FILE, p, len);
			if (p[0] == '+')
				d->files++;
			udiff_file_name(d, p, len);
		} else {
			old_left = new_left = 0;
			udiff_push(d, UD_NOTE, p, len);
		}
		p = nl ? nl + 1 : end;
	}
	/* Paired before tabs are expanded: a tab that became spaces is a change. */
	udiff_pair_all(d);
	udiff_expand_tabs(d);
}

void
udiff_release(struct udiff *d)
{
	free(d->src);
	free(d->lines);
	free(d->file);
	memset(d, 0, sizeof *d);
}

static int
udiff_digits(const struct udiff *d)
{
	int max = 0, w = 1;
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (d->lines[i].old_no > max)
			max = d->lines[i].old_no;
		if (d->lines[i].new_no > max)
			max = d->lines[i].new_no;
	}
	while (max >= 10) {
		max /= 10;
		w++;
	}
	return w;
}

static void
udiff_lineno(struct sline *l, int no, int digits)
{
	char tmp[16];

	if (no > 0)
		snprintf(tmp, sizeof tmp, "%*d", digits, no);
	else
		snprintf(tmp, sizeof tmp, "%*s", digits, "");
	sline_adds(l, tmp, ROLE_LINENO, 0);
}

/*
 * Syntax highlighting while a diff is rendered: the syntax of the file
 * being shown, and the multi-line regions open on its old side (context
 * and removed lines) and on its new side (context and added lines).
 */
struct udiff_hl {
	const struct synhl_syntax *syn;
	uint64_t	 old_st, new_st;
	bool		 old_only;	/* the left half of the split view: context lines are the old side's */
};

/* A file header ("--- a/x.c", "+++ b/x.c") names the syntax; a hunk starts the regions afresh. */
static void
udiff_hl_header(struct udiff_hl *hl, const struct udiff_line *u)
{
	const struct synhl_syntax *syn;
	char name[1024];
	size_t i = 4, j;

	hl->old_st = hl->new_st = 0;
	if (u->kind != UD_FILE)
		return;
	if (u->len > 6 && (memcmp(u->text + 4, "a/", 2) == 0 || memcmp(u->text + 4, "b/", 2) == 0))
		i = 6;
	for (j = i; j < u->len && u->text[j] != '\t'; j++)
		;
	if (j == i || j - i >= sizeof name || (j - i == 9 && memcmp(u->text + i, "/dev/null", 9) == 0))
		return;
	memcpy(name, u->text + i, j - i);
	name[j - i] = '\0';
	/* "---" names the old file, "+++" the new: the new one's syntax when there is one. */
	syn = synhl_for_file(name, NULL, 0);
	if (u->text[0] == '-' || syn != NULL)
		hl->syn = syn;
}

/* The runs of a +/-/context line, or 0 without a syntax; each side's regions go on. */
static size_t
udiff_hl_line(struct udiff_hl *hl, const struct udiff_line *u, const struct synhl_run **runs)
{
	if (hl == NULL || hl->syn == NULL)
		return 0;
	if (u->kind == UD_DEL || hl->old_only)
		return synhl_line(hl->syn, u->text, u->len, &hl->old_st, runs);
	if (u->kind == UD_CONTEXT)
		(void)synhl_line(hl->syn, u->text, u->len, &hl->old_st, runs);
	return synhl_line(hl->syn, u->text, u->len, &hl->new_st, runs);
}

/* Bytes [from, to) of a line in role, where the syntax colors them in its own. */
static void
udiff_add_hl(struct sline *l, const char *text, size_t from, size_t to, int role,
    const struct synhl_run *runs, size_t nruns)
{
	size_t i;

	if (nruns == 0) {
		sline_add(l, text + from, to - from, role, 0);
		return;
	}
	for (i = 0; i < nruns && from < to; i++) {
		size_t rs = runs[i].off, re = i + 1 < nruns ? runs[i + 1].off : to;

		if (re <= from)
			continue;
		if (rs < from)
			rs = from;
		if (re > to)
			re = to;
		if (re > rs)
			sline_add(l, text + rs, re - rs, runs[i].role == SYNHL_BASE ? role : runs[i].role, 0);
		from = re;
	}
	if (from < to)
		sline_add(l, text + from, to - from, role, 0);
}

/* The text of a +/-/context line, its changed span highlighted, the rest in the syntax's colors. */
static void
udiff_body(struct sline *l, const struct udiff_line *u, size_t from, size_t to, struct udiff_hl *hl)
{
	int role = u->kind == UD_ADD ? ROLE_DIFF_ADD : u->kind == UD_DEL ? ROLE_DIFF_DEL : ROLE_DIFF_CONTEXT;
	int span = u->kind == UD_ADD ? ROLE_DIFF_SPAN_ADD : ROLE_DIFF_SPAN_DEL;
	size_t ss = u->span_start, se = u->span_end;
	const struct synhl_run *runs = NULL;
	size_t nruns = udiff_hl_line(hl, u, &runs);

	if (to > u->len)
		to = u->len;
	if (ss >= se || u->kind == UD_CONTEXT) {
		udiff_add_hl(l, u->text, from, to, role, runs, nruns);
		return;
	}
	if (ss < from)
		ss = from;
	if (se > to)
		se = to;
	if (ss > to)
		ss = to;
	if (se < ss)
		se = ss;
	udiff_add_hl(l, u->text, from, ss, role, runs, nruns);
	sline_add(l, u->text + ss, se - ss, span, 0);
	udiff_add_hl(l, u->text, se, to, role, runs, nruns);
}

static const char *
udiff_marker(enum udiff_kind k)
{
	return k == UD_ADD ? "+" : k == UD_DEL ? "-" : " ";
}

void
udiff_render(const struct udiff *d, struct slvec *out)
{
	int digits = udiff_digits(d);
	struct udiff_hl hl = { NULL, 0, 0, false };
	char cont[64];
	size_t i;

	snprintf(cont, sizeof cont, "%*s", 2 * digits + 4, "");
	for (i = 0; i < d->n; i++) {
		const struct udiff_line *u = &d->lines[i];
		struct sline *l = slvec_push(out);

		switch (u->kind) {
		case UD_FILE:
			udiff_hl_header(&hl, u);
			sline_add(l, u->text, u->len, ROLE_DIFF_FILE, TA_BOLD);
			break;
		case UD_HUNK:
			udiff_hl_header(&hl, u);
			sline_add(l, u->text, u->len, ROLE_DIFF_HUNK, 0);
			break;
		case UD_NOTE:
			sline_add(l, u->text, u->len, ROLE_DIM, 0);
			break;
		default:
			udiff_lineno(l, u->old_no, digits);
			sline_add(l, " ", 1, ROLE_LINENO, 0);
			udiff_lineno(l, u->new_no, digits);
			sline_add(l, " ", 1, ROLE_LINENO, 0);
			sline_adds(l, udiff_marker(u->kind), u->kind == UD_ADD ? ROLE_DIFF_ADD :
			    u->kind == UD_DEL ? ROLE_DIFF_DEL : ROLE_DIFF_CONTEXT, TA_BOLD);
			sline_add(l, " ", 1, ROLE_DIFF_CONTEXT, 0);
			sline_mark_body(l);
			sline_set_cont(l, cont, ROLE_LINENO);
			udiff_body(l, u, 0, u->len, &hl);
			l->flags |= SL_CHARWRAP;
			break;
		}
	}
}

/* One half of a side-by-side row: number, marker and text cut to w columns. */
static void
udiff_half(struct sline *l, const struct udiff_line *u, bool left, int digits, int w, struct udiff_hl *hl)
{
	int used = 0;

	if (u == NULL) {
		for (; used < w; used++)
			sline_add(l, " ", 1, ROLE_DIFF_CONTEXT, 0);
		return;
	}
	udiff_lineno(l, left ? u->old_no : u->new_no, digits);
	sline_add(l, " ", 1, ROLE_LINENO, 0);
	sline_adds(l, udiff_marker(u->kind), u->kind == UD_ADD ? ROLE_DIFF_ADD :
	    u->kind == UD_DEL ? ROLE_DIFF_DEL : ROLE_DIFF_CONTEXT, TA_BOLD);
	sline_add(l, " ", 1, ROLE_DIFF_CONTEXT, 0);
	used = digits + 3;
	if (w > used) {
		size_t fit = wrap_fit(u->text, u->len, w - used);

		udiff_body(l, u, 0, fit, hl);
		used += (int)wrap_width(u->text, fit);
	}
	for (; used < w; used++)
		sline_add(l, " ", 1, ROLE_DIFF_CONTEXT, 0);
}

void
udiff_render_split(const struct udiff *d, int width, struct slvec *out)
{
	int digits = udiff_digits(d), half = (width - 1) / 2;
	/* Each half keeps its own side's regions. */
	struct udiff_hl hl_old = { NULL, 0, 0, true }, hl_new = { NULL, 0, 0, false };
	size_t i = 0;

	while (i < d->n) {
		const struct udiff_line *u = &d->lines[i];
		const struct udiff_line *left = NULL, *right = NULL;
		struct sline *l;

		if (u->kind == UD_FILE || u->kind == UD_HUNK || u->kind == UD_NOTE) {
			if (u->kind != UD_NOTE) {
				udiff_hl_header(&hl_old, u);
				udiff_hl_header(&hl_new, u);
			}
			l = slvec_push(out);
			sline_add(l, u->text, u->len, u->kind == UD_FILE ? ROLE_DIFF_FILE :
			    u->kind == UD_HUNK ? ROLE_DIFF_HUNK : ROLE_DIM, u->kind == UD_FILE ? TA_BOLD : 0);
			l->flags |= SL_NOWRAP;
			i++;
			continue;
		}
		if (u->kind == UD_CONTEXT) {
			left = right = u;
			i++;
		} else if (u->kind == UD_DEL) {
			left = u;
			right = u->pair >= 0 ? &d->lines[u->pair] : NULL;
			i++;
		} else {
			/* An addition paired with a removal was drawn with it. */
			if (u->pair >= 0) {
				i++;
				continue;
			}
			right = u;
			i++;
		}
		l = slvec_push(out);
		udiff_half(l, left, true, digits, half, &hl_old);
		sline_adds(l, "\xE2\x94\x82", ROLE_BORDER, 0);
		udiff_half(l, right, false, digits, width - 1 - half, &hl_new);
		l->flags |= SL_NOWRAP;
	}
}

/* ---- the view ---- */

void
udiff_view_init(struct udiff_view *v)
{
	memset(v, 0, sizeof *v);
	slvec_init(&v->lines);
	v->lines_w = -1;
}

void
udiff_view_release(struct udiff_view *v)
{
	udiff_release(&v->d);
	slvec_release(&v->lines);
}

void
udiff_view_show(struct udiff_view *v, const char *title, const char *text, size_t n)
{
	udiff_release(&v->d);
	slvec_truncate(&v->lines, 0);
	udiff_parse(&v->d, text, n);
	udiff_render(&v->d, &v->lines);
	v->lines_w = -1;
	v->on = v->asked = true;
	v->live = v->follows = false;
	v->scroll = 0;
	/* a long title is cut, which is all it needs */
	(void)snprintf(v->title, sizeof v->title, "%s  +%d \xE2\x88\x92%d", title, v->d.adds, v->d.dels);
}

void
udiff_view_scroll(struct udiff_view *v, int rows)
{
	if (rows == INT_MIN)
		v->scroll = 0;
	else if (rows == INT_MAX)
		v->scroll = v->lines.n > 0 ? (int)v->lines.n - 1 : 0;
	else {
		v->scroll += rows;
		if (v->scroll < 0)
			v->scroll = 0;
	}
}

int
udiff_view_rows(const struct udiff_view *v)
{
	return (int)v->lines.n + (v->lines.n ? 1 : (int)v->d.n + 1);
}

void
udiff_view_paint(struct udiff_view *v, const struct draw_roles *roles, WINDOW *w, int width, int height,
    bool focused)
{
	struct draw_ctx c = { roles, w, 0, width, -1, NULL };
	bool split = width >= 120 && v->d.hunks > 0;
	size_t i;
	int y = 1;

	werase(w);
	if (v->on && (split ? v->lines_w != width : v->lines_w != -1)) {
		slvec_truncate(&v->lines, 0);
		if (split)
			udiff_render_split(&v->d, width, &v->lines);
		else
			udiff_render(&v->d, &v->lines);
		v->lines_w = split ? width : -1;
	}
	draw_title(roles, w, 0, width, v->live ? "diff" : v->follows ? "result" : "last diff", v->on ? v->title : "", focused);
	if (v->scroll > 0 && (size_t)v->scroll >= v->lines.n)
		v->scroll = v->lines.n > 0 ? (int)v->lines.n - 1 : 0;
	for (i = (size_t)v->scroll; v->on && i < v->lines.n && y < height; i++) {
		struct sline *l = &v->lines.v[i];
		uint32_t k, rows = sline_rows(l, width);

		for (k = 0; k < rows && y < height; k++)
			draw_row(&c, y++, l, k);
	}
	if (!v->on && height > 1) {
		struct sline l;

		sline_init(&l);
		sline_adds(&l, " no pending change", ROLE_DIM, 0);
		draw_row(&c, 1, &l, 0);
		sline_release(&l);
	}
	wnoutrefresh(w);
}
