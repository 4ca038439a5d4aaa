/*
 * draw: the curses primitives every pane paints with (draw.h).
 */
#include "autoconf.h"

#include <string.h>
#include <strings.h>

#include "draw.h"
#include "utf8.h"
#include "wrap.h"

#define DRAW_MATCHES	16

attr_t
draw_ta(unsigned ta)
{
	attr_t a = A_NORMAL;

	if (ta & TA_BOLD)
		a |= A_BOLD;
	if (ta & (TA_DIM | TA_STRIKE))
		a |= A_DIM;
	if (ta & TA_ITALIC)
		a |= A_ITALIC;
	if (ta & TA_UNDERLINE)
		a |= A_UNDERLINE;
	if (ta & TA_REVERSE)
		a |= A_REVERSE;
	if (ta & TA_STANDOUT)
		a |= A_STANDOUT;
	return a;
}

/* Draw one character cluster s[0..n) in role with extra attributes. */
void
draw_cluster(const struct draw_roles *ro, WINDOW *w, const char *s, size_t n, int role, unsigned ta)
{
	wchar_t wc[CCHARW_MAX + 1];
	size_t i = 0;
	int k = 0;
	cchar_t cc;

	while (i < n && k < CCHARW_MAX) {
		uint32_t cp;

		i += utf8_decode(s + i, n - i, &cp);
		wc[k++] = (wchar_t)cp;
	}
	wc[k] = L'\0';
	if (setcchar(&cc, wc, ro->attr[role] | draw_ta(ta), ro->pair[role], NULL) == OK)
		wadd_wch(w, &cc);
}

void
draw_fill(const struct draw_roles *ro, WINDOW *w, int cols, const char *s, size_t n, int role, unsigned ta)
{
	for (; cols > 0; cols--)
		draw_cluster(ro, w, s, n, role, ta);
}

/* Match intervals of the query in [from, to) of l. */
static int
draw_matches(const struct sline *l, const char *q, uint32_t from, uint32_t to, uint32_t m[][2])
{
	size_t qn = q ? strlen(q) : 0;
	uint32_t i;
	int n = 0;

	if (qn == 0 || l->text == NULL)
		return 0;
	for (i = from; i + qn <= to + qn && i + qn <= l->len && n < DRAW_MATCHES; i++) {
		if (i >= to)
			break;
		if (strncasecmp(l->text + i, q, qn) == 0) {
			m[n][0] = i;
			m[n][1] = (uint32_t)(i + qn);
			n++;
			i += (uint32_t)qn - 1;
		}
	}
	return n;
}

/* Draw l's bytes [from, to) in their styles; returns the columns used. */
static int
draw_bytes(struct draw_ctx *c, const struct sline *l, uint32_t from, uint32_t to, int cols)
{
	uint32_t m[DRAW_MATCHES][2], pos = from;
	int nm = draw_matches(l, c->query, from, to, m), used = 0, k = 0;

	while (pos < to) {
		const struct srun *st = sline_style_at(l, pos);
		int cw, role = st->role;
		size_t cl = wrap_cluster(l->text + pos, to - pos, &cw);
		unsigned ta = st->attr;

		if (used + cw > cols)
			break;
		while (k < nm && m[k][1] <= pos)
			k++;
		if (k < nm && pos >= m[k][0])
			role = ROLE_MATCH;
		else if (c->over >= 0) {
			role = c->over;
			ta &= ~(unsigned)TA_REVERSE;
		}
		draw_cluster(c->roles, c->w, l->text + pos, cl, role, ta);
		used += cw;
		pos += (uint32_t)cl;
	}
	return used;
}

/* Draw row `row` of l at line y of the context's window. */
void
draw_row(struct draw_ctx *c, int y, struct sline *l, uint32_t row)
{
	uint32_t rows = sline_rows(l, c->width);
	int used = 0;

	wmove(c->w, y, c->x0);
	if (row >= rows)
		return;
	if (row == 0)
		used += draw_bytes(c, l, 0, l->body, c->width);
	else if (l->cont != NULL) {
		size_t n = strlen(l->cont), fit = wrap_fit(l->cont, n, c->width);
		size_t i = 0;

		while (i < fit) {
			int cw;
			size_t cl = wrap_cluster(l->cont + i, fit - i, &cw);

			draw_cluster(c->roles, c->w, l->cont + i, cl, c->over >= 0 ? c->over : l->cont_role, 0);
			used += cw;
			i += cl;
		}
	}
	used += draw_bytes(c, l, l->rows[row].start, l->rows[row].end, c->width - used);
	if ((l->flags & SL_FILL) && l->len > 0 && used < c->width) {
		size_t last = utf8_floor(l->text, l->len - 1);
		const struct srun *st = sline_style_at(l, (uint32_t)last);

		draw_fill(c->roles, c->w, c->width - used, l->text + last, l->len - last,
		    c->over >= 0 ? c->over : st->role, st->attr);
		return;
	}
	if (c->over >= 0)
		draw_fill(c->roles, c->w, c->width - used, " ", 1, c->over, 0);
}

/* A pane title: "─ name ─── right ─" on row y, accent when focused. */
void
draw_title(const struct draw_roles *ro, WINDOW *w, int y, int width, const char *name, const char *right, bool focused)
{
	struct sline l;
	struct draw_ctx c = { ro, w, 0, width, -1, NULL };

	sline_init(&l);
	sline_adds(&l, "\xE2\x94\x80 ", ROLE_BORDER, 0);
	sline_adds(&l, name, focused ? ROLE_TITLE_FOCUS : ROLE_TITLE, 0);
	sline_adds(&l, " ", ROLE_BORDER, 0);
	if (right != NULL && *right != '\0') {
		size_t used = sline_width(&l), rw = wrap_width(right, strlen(right));

		while ((int)(used + rw + 3) < width && used < 4096) {
			sline_adds(&l, "\xE2\x94\x80", ROLE_BORDER, 0);
			used++;
		}
		sline_adds(&l, " ", ROLE_BORDER, 0);
		sline_adds(&l, right, ROLE_DIM, 0);
		sline_adds(&l, " ", ROLE_BORDER, 0);
	}
	sline_adds(&l, "\xE2\x94\x80", ROLE_BORDER, 0);
	l.flags = SL_NOWRAP | SL_FILL;
	draw_row(&c, y, &l, 0);
	sline_release(&l);
}

