/*
 * udiff: unified diffs for the diff pane, parsed and colored.
 *
 * udiff_parse reads a unified diff (one or more files, "---"/"+++" headers,
 * "@@ -a,b +c,d @@" hunks) and numbers every line.  Within a hunk a run of
 * removed lines followed by a run of added lines is paired line by line,
 * and each pair gets its changed span: the middle left after the common
 * prefix and suffix.  Anything that is not a diff is kept as note lines, so
 * any text can be shown.
 *
 * The udiff owns a copy of the text; line texts point into it.  Rendering
 * appends styled lines (sline.h) to a caller's slvec.
 */
#ifndef TANDEM_TUI_UDIFF_H
#define TANDEM_TUI_UDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "sline.h"

enum udiff_kind { UD_NOTE, UD_FILE, UD_HUNK, UD_CONTEXT, UD_ADD, UD_DEL };

struct udiff_line {
	enum udiff_kind	 kind;
	const char	*text;		/* without the marker column */
	size_t		 len;
	int		 old_no, new_no;	/* 0: none */
	long		 pair;		/* the paired line's index, or -1 */
	size_t		 span_start, span_end;	/* the changed bytes; equal: none */
	bool		 ws;		/* the pair differs only in blanks, shown in the span */
};

struct udiff {
	char		*src;
	struct udiff_line *lines;
	size_t		 n, cap;
	int		 adds, dels, files, hunks;
	char		*file;		/* the first file's name, or NULL */
};

/* Parse n bytes of text; never fails (non-diff text becomes notes). */
void	 udiff_parse(struct udiff *, const char *text, size_t n);
void	 udiff_release(struct udiff *);

/*
 * The changed middle of a against b: *pre bytes in common at the start and
 * *suf at the end, both on character boundaries and not overlapping.
 */
void	 udiff_span(const char *a, size_t an, const char *b, size_t bn, size_t *pre, size_t *suf);

/* Unified view: line numbers, markers, colors, highlighted spans. */
void	 udiff_render(const struct udiff *, struct slvec *out);
/* Side by side at width columns (old left, new right), cut to fit. */
void	 udiff_render_split(const struct udiff *, int width, struct slvec *out);

/*
 * The diff pane's view: a diff (or a command, as lines), its title, the
 * lines made for the pane's width, and the scroll.  Whoever shows a
 * change fills it (approve.c); it paints itself, side by side from 120
 * columns on.
 */
struct udiff_view {
	struct udiff	 d;
	bool		 on;		/* it has something */
	bool		 live;		/* ... and it is the pending approval's */
	bool		 asked;		/* ... or one the user asked for (/diff): shown in every layout until Esc */
	bool		 follows;	/* ... or the transcript's followed call (paint.c), wide only */
	unsigned long long follow_gen;	/* the transcript's tr_gen it was made at */
	char		 title[256];
	struct slvec	 lines;
	int		 lines_w;	/* the width lines were made for (-1: unified) */
	int		 scroll;
};

struct draw_roles;

void	 udiff_view_init(struct udiff_view *);
void	 udiff_view_release(struct udiff_view *);
/* Show text (a unified diff, or notes) under title and its +/- counts, scrolled to the top. */
void	 udiff_view_show(struct udiff_view *, const char *title, const char *text, size_t n);
/* Scroll by rows (down: positive); INT_MIN/INT_MAX: the top/the last line. */
void	 udiff_view_scroll(struct udiff_view *, int rows);
/* Rows the pane wants in the stacked layout: its title and lines; 0 when it is empty. */
int	 udiff_view_rows(const struct udiff_view *);
/* Paint the view into w (width by height cells); focused: the pane has the keys. */
void	 udiff_view_paint(struct udiff_view *, const struct draw_roles *, WINDOW *w, int width, int height,
	    bool focused);

#endif
