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

/* Box drawing U+2500..U+257F: which of - | + each one draws as. */
static char
draw_ascii_box(uint32_t cp)
{
	static const uint32_t horiz[] = {
		0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254c, 0x254d, 0x2550,
		0x2574, 0x2576, 0x2578, 0x257a, 0x257c, 0x257e
	};
	static const uint32_t vert[] = {
		0x2502, 0x2503, 0x2506, 0x2507, 0x250a, 0x250b, 0x254e, 0x254f, 0x2551,
		0x2575, 0x2577, 0x2579, 0x257b, 0x257d, 0x257f
	};
	size_t i;

	for (i = 0; i < sizeof horiz / sizeof horiz[0]; i++)
		if (horiz[i] == cp)
			return '-';
	for (i = 0; i < sizeof vert / sizeof vert[0]; i++)
		if (vert[i] == cp)
			return '|';
	return '+';
}

const char *
draw_ascii(uint32_t cp, int cols)
{
	/* The glyphs tandem draws itself, and the common punctuation of text. */
	static const struct { uint32_t cp; const char *s; } tab[] = {
		{ 0x00a0, " " }, { 0x00b7, "." }, { 0x00d7, "x" }, { 0x2013, "-" }, { 0x2014, "-" },
		{ 0x2018, "'" }, { 0x2019, "'" }, { 0x201c, "\"" }, { 0x201d, "\"" }, { 0x2022, "*" },
		{ 0x2026, "." }, { 0x2039, "<" }, { 0x203a, ">" }, { 0x2190, "<" }, { 0x2191, "^" },
		{ 0x2192, ">" }, { 0x2193, "v" }, { 0x21b5, "<" }, { 0x2212, "-" }, { 0x2218, "o" },
		{ 0x2298, "/" }, { 0x03a3, "S" }, { 0x25a0, "#" }, { 0x25aa, "-" }, { 0x25b6, ">" },
		{ 0x25b8, ">" }, { 0x25b4, "^" }, { 0x25be, "v" }, { 0x25c0, "<" }, { 0x25cf, "*" },
		{ 0x25e6, "o" }, { 0x2713, "v" }, { 0x2714, "v" }, { 0x2717, "x" }, { 0x2718, "x" },
		{ 0x270e, "e" }, { 0x27f2, "@" }, { 0x2588, "#" }, { 0x2591, ":" }, { 0x2592, ":" },
		{ 0x2593, "#" }, { 0x26a0, "!" }, { 0x2234, ":" }, { 0x25cc, "o" }, { 0x25c6, "*" },
	};
	/* A spinner's braille frames, in their order, as a turning bar. */
	static const uint32_t spin[] = {
		0x280b, 0x2819, 0x2839, 0x2838, 0x283c, 0x2834, 0x2826, 0x2827, 0x2807, 0x280f
	};
	static const char bars[] = "|/-\\";
	static char one[2];
	size_t i;

	if (cp >= 0x2500 && cp <= 0x257f) {
		one[0] = draw_ascii_box(cp);
		one[1] = '\0';
		return one;
	}
	for (i = 0; i < sizeof spin / sizeof spin[0]; i++)
		if (spin[i] == cp) {
			one[0] = bars[i % 4];
			one[1] = '\0';
			return one;
		}
	for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (tab[i].cp == cp)
			return tab[i].s;
	return cols >= 2 ? "??" : "?";
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
		/* Only the base of a cluster stands in for it; its marks go with it. */
		if (ro->ascii && cp >= 0x80) {
			const char *a;

			if (k > 0)
				continue;
			a = draw_ascii(cp, (int)utf8_width(s, n));
			for (; *a != '\0' && k < CCHARW_MAX; a++) {
				wc[0] = (wchar_t)(unsigned char)*a;
				wc[1] = L'\0';
				if (setcchar(&cc, wc, ro->attr[role] | draw_ta(ta), ro->pair[role], NULL) == OK)
					wadd_wch(w, &cc);
			}
			return;
		}
		/* Curses draws one spacing character a cell: a joined emoji shows as its first. */
		if (cp == UTF8_ZWJ)
			break;
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

