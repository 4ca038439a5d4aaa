/* Styled logical lines: see sline.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sline.h"
#include "utf8.h"
#include "xalloc.h"

#define SLINE_TAB	4

void
sline_init(struct sline *l)
{
	memset(l, 0, sizeof *l);
}

void
sline_release(struct sline *l)
{
	free(l->text);
	free(l->runs);
	free(l->cont);
	free(l->rows);
	sline_init(l);
}

void
sline_unwrap(struct sline *l)
{
	l->wrap_w = 0;
	l->nrows = 0;
}

static void
sline_grow(struct sline *l, size_t more)
{
	size_t need = (size_t)l->len + more + 1;

	if (need > UINT32_MAX)
		fatal("a line of %zu bytes is too long", need);
	if (need <= l->cap)
		return;
	l->cap = l->cap ? l->cap : 32;
	while (l->cap < need)
		l->cap = need > UINT32_MAX / 2 ? (uint32_t)need : l->cap * 2;
	l->text = xrealloc(l->text, l->cap);
}

static void
sline_style(struct sline *l, int role, unsigned attr)
{
	struct srun *last = l->nruns ? &l->runs[l->nruns - 1] : NULL;

	if (last != NULL && last->role == role && last->attr == attr)
		return;
	if (last != NULL && last->off == l->len) {
		last->role = (uint8_t)role;
		last->attr = (uint8_t)attr;
		/* Merge with the run before when the styles now agree. */
		if (l->nruns > 1 && last[-1].role == last->role && last[-1].attr == last->attr)
			l->nruns--;
		return;
	}
	if (l->nruns == l->capruns) {
		l->capruns = l->capruns ? l->capruns * 2 : 4;
		l->runs = xreallocarray(l->runs, l->capruns, sizeof *l->runs);
	}
	l->runs[l->nruns].off = l->len;
	l->runs[l->nruns].role = (uint8_t)role;
	l->runs[l->nruns].attr = (uint8_t)attr;
	l->nruns++;
}

static void
sline_raw(struct sline *l, const char *s, size_t n)
{
	sline_grow(l, n);
	memcpy(l->text + l->len, s, n);
	l->len += (uint32_t)n;
	l->text[l->len] = '\0';
}

void
sline_add(struct sline *l, const char *s, size_t n, int role, unsigned attr)
{
	size_t i = 0;

	if (n == 0)
		return;
	sline_style(l, role, attr);
	while (i < n) {
		size_t run = i;
		uint32_t cp;
		size_t cl;
		char tmp[4];
		int w;

		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7F)
			run++;
		if (run > i) {
			sline_raw(l, s + i, run - i);
			i = run;
			continue;
		}
		cl = utf8_decode(s + i, n - i, &cp);
		i += cl;
		if (cp == '\t') {
			size_t col = utf8_width(l->text ? l->text : "", l->len);
			size_t k, pad = SLINE_TAB - col % SLINE_TAB;

			for (k = 0; k < pad; k++)
				sline_raw(l, " ", 1);
			continue;
		}
		if (cp == '\r')
			continue;
		if (cp == '\n')
			cp = ' ';
		w = cp == ' ' ? 1 : utf8_cpwidth(cp);
		/* wcwidth calls NUL zero-width: it is a control character like the others. */
		if (w < 0 || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
		    (cp == 0xFFFD && cl == 1)) {
			sline_raw(l, tmp, utf8_picture(cp, tmp));
			continue;
		}
		/* A combining mark with nothing to combine with gets a dotted circle. */
		if (w == 0 && l->len == 0)
			sline_raw(l, "\xE2\x97\x8C", 3);
		sline_raw(l, tmp, utf8_encode(cp, tmp));
	}
	sline_unwrap(l);
}

void
sline_adds(struct sline *l, const char *s, int role, unsigned attr)
{
	sline_add(l, s, strlen(s), role, attr);
}

void
sline_add_slice(struct sline *l, const struct sline *src, uint32_t from, uint32_t to)
{
	uint32_t i;

	if (to > src->len)
		to = src->len;
	for (i = 0; i < src->nruns && from < to; i++) {
		uint32_t rs = src->runs[i].off;
		uint32_t re = i + 1 < src->nruns ? src->runs[i + 1].off : src->len;

		if (re <= from)
			continue;
		if (rs < from)
			rs = from;
		if (re > to)
			re = to;
		if (re > rs) {
			sline_style(l, src->runs[i].role, src->runs[i].attr);
			sline_raw(l, src->text + rs, re - rs);
		}
	}
	sline_unwrap(l);
}

void
sline_mark_body(struct sline *l)
{
	l->body = l->len;
	sline_unwrap(l);
}

void
sline_set_cont(struct sline *l, const char *cont, int role)
{
	free(l->cont);
	l->cont = cont != NULL && *cont != '\0' ? xstrdup(cont) : NULL;
	l->cont_role = (uint8_t)role;
	sline_unwrap(l);
}

const struct srun *
sline_style_at(const struct sline *l, uint32_t off)
{
	static const struct srun plain = { 0, 0, 0 };
	uint32_t lo = 0, hi = l->nruns;

	if (l->nruns == 0 || off < l->runs[0].off)
		return &plain;
	/* The last run that starts at or before off. */
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (l->runs[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &l->runs[lo];
}

uint32_t
sline_rows(struct sline *l, int width)
{
	int pw, cw;

	if (width < 1)
		width = 1;
	if (l->wrap_w == width && l->nrows > 0)
		return l->nrows;
	if (l->flags & SL_NOWRAP) {
		if (l->caprows == 0) {
			l->rows = xrealloc(l->rows, sizeof *l->rows);
			l->caprows = 1;
		}
		l->rows[0].start = l->body;
		l->rows[0].end = l->len;
		l->nrows = 1;
	} else {
		pw = (int)wrap_width(l->text ? l->text : "", l->body);
		cw = l->cont ? (int)wrap_width(l->cont, strlen(l->cont)) : 0;
		l->nrows = wrap_text(l->text ? l->text : "", l->len, l->body, width - pw, width - cw,
		    (l->flags & SL_CHARWRAP) != 0, &l->rows, &l->caprows);
	}
	l->wrap_w = width;
	return l->nrows;
}

size_t
sline_width(const struct sline *l)
{
	return l->text ? wrap_width(l->text, l->len) : 0;
}

void
sline_copy(struct sline *dst, const struct sline *src)
{
	sline_init(dst);
	if (src->len > 0 || src->text != NULL) {
		dst->text = xmemdup(src->text ? src->text : "", src->len);
		dst->len = src->len;
		dst->cap = src->len + 1;
	}
	if (src->nruns > 0) {
		dst->runs = xreallocarray(NULL, src->nruns, sizeof *dst->runs);
		memcpy(dst->runs, src->runs, src->nruns * sizeof *dst->runs);
		dst->nruns = dst->capruns = src->nruns;
	}
	dst->body = src->body;
	dst->cont = src->cont ? xstrdup(src->cont) : NULL;
	dst->cont_role = src->cont_role;
	dst->flags = src->flags;
}

bool
sline_equal(const struct sline *a, const struct sline *b)
{
	uint32_t i;

	if (a->len != b->len || a->body != b->body || a->flags != b->flags ||
	    a->nruns != b->nruns || a->cont_role != b->cont_role)
		return false;
	if (a->len > 0 && memcmp(a->text, b->text, a->len) != 0)
		return false;
	for (i = 0; i < a->nruns; i++)
		if (a->runs[i].off != b->runs[i].off || a->runs[i].role != b->runs[i].role ||
		    a->runs[i].attr != b->runs[i].attr)
			return false;
	if ((a->cont == NULL) != (b->cont == NULL))
		return false;
	return a->cont == NULL || strcmp(a->cont, b->cont) == 0;
}

void
slvec_init(struct slvec *v)
{
	memset(v, 0, sizeof *v);
}

void
slvec_release(struct slvec *v)
{
	slvec_truncate(v, 0);
	free(v->v);
	slvec_init(v);
}

struct sline *
slvec_push(struct slvec *v)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->v = xreallocarray(v->v, v->cap, sizeof *v->v);
	}
	sline_init(&v->v[v->n]);
	return &v->v[v->n++];
}

void
slvec_truncate(struct slvec *v, size_t n)
{
	while (v->n > n)
		sline_release(&v->v[--v->n]);
}

void
slvec_move(struct slvec *dst, struct slvec *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		*slvec_push(dst) = src->v[i];
	src->n = 0;
}

char *
slvec_text(const struct slvec *v, size_t from, size_t to)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	if (to > v->n)
		to = v->n;
	for (i = from; i < to; i++) {
		if (i > from)
			buf_putc(&b, '\n');
		if (v->v[i].len > 0)
			buf_append(&b, v->v[i].text, v->v[i].len);
	}
	return buf_detach(&b, NULL);
}
