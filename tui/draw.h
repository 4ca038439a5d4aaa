/*
 * draw: putting styled lines (sline.h) into a curses window: one cell
 * cluster, a row of a wrapped line with search matches and a selection
 * colour over it, a pane's title rule.  It knows the roles' curses
 * attributes (struct draw_roles, filled from the theme by paint.c) and
 * nothing of the app: every pane paints itself with it.
 */
#ifndef TANDEM_TUI_DRAW_H
#define TANDEM_TUI_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "sline.h"
#include "theme.h"

struct draw_roles {
	attr_t		 attr[ROLE_COUNT];
	short		 pair[ROLE_COUNT];
	bool		 ascii;		/* the terminal draws ASCII only: every other glyph stands in */
};

/* Where and how rows are drawn. */
struct draw_ctx {
	const struct draw_roles *roles;
	WINDOW		*w;
	int		 x0, width;
	int		 over;		/* a role drawn over everything (selection), or -1 */
	const char	*query;		/* matches shown in ROLE_MATCH, or NULL */
};

/* Curses attributes for TA_* bits. */
attr_t	 draw_ta(unsigned ta);
/* Draw one character cluster s[0..n) in role with extra attributes, at the cursor. */
void	 draw_cluster(const struct draw_roles *, WINDOW *, const char *s, size_t n, int role, unsigned ta);
/*
 * The ASCII stand-in of one code point of width cols (1 or 2) for a
 * terminal that draws ASCII only (the Linux console, a locale that is not
 * UTF-8): lines for box drawing, ^ v < > for arrows, * for bullets, a
 * spinner's frames turning through | / - \, '?' (or "??") for the rest.
 */
const char *draw_ascii(uint32_t cp, int cols);
/* The cluster cols times. */
void	 draw_fill(const struct draw_roles *, WINDOW *, int cols, const char *s, size_t n, int role, unsigned ta);
/* Draw row `row` of l at line y of the context's window. */
void	 draw_row(struct draw_ctx *, int y, struct sline *l, uint32_t row);
/* A pane title: "─ name ─── right ─" on row y, accent when focused. */
void	 draw_title(const struct draw_roles *, WINDOW *, int y, int width, const char *name, const char *right,
	    bool focused);

#endif
