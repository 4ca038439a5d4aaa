/*
 * mdview: Markdown to styled lines, whole or while it streams.
 *
 * mdview_render parses text with md4c (CommonMark plus GitHub tables,
 * strike-through and task lists; raw HTML is shown as text) and appends
 * styled logical lines: headings, emphasis, inline code, fenced code
 * blocks framed with their language, lists, quotes, tables, links.
 * Top-level blocks are separated by one empty line.
 *
 * struct mdview is a reply that grows by deltas.  Only the tail after the
 * last stable block boundary is parsed again: a blank line followed by a
 * line that starts in column 0 and is not a list item, with no code fence
 * open.  Everything before it is rendered once and keeps its lines (and
 * their wrap caches).  The result equals mdview_render_width of the whole
 * text: link reference definitions are kept aside as they arrive and given
 * to every range rendered, and a new one renders the committed text again,
 * so a reference resolves once its definition has arrived.
 *
 * The mdview owns its source and lines; mdview_release frees them.
 */
#ifndef TANDEM_TUI_MDVIEW_H
#define TANDEM_TUI_MDVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "sline.h"

struct synhl_syntax;

/* Render n bytes of Markdown, appending lines to out (tables at their natural width). */
void	 mdview_render(const char *s, size_t n, struct slvec *out);
/*
 * The same for a pane of width columns: a table wider than that shares
 * the width among its columns (one that needs less than an equal share
 * keeps its width, the others split the rest) and wraps its cells; 0 is
 * mdview_render.
 */
void	 mdview_render_width(const char *s, size_t n, int width, struct slvec *out);

struct mdview {
	struct buf	 src;
	size_t		 stable;	/* src[0..stable) is in lines[0..ncommitted) for good */
	size_t		 scan;		/* the boundary scanner's position (a line start) */
	size_t		 seek;		/* how far the line at scan was searched for its end */
	struct slvec	 lines;
	size_t		 ncommitted;
	bool		 dirty;		/* the tail has changed since the last update */
	/* The scanner's state at scan. */
	char		 fence_char;
	size_t		 fence_len;
	bool		 prev_blank;
	bool		 table;		/* a table may be open: it ends only at a blank line */
	bool		 prev_open;	/* the line before was text a lazy line could continue */
	size_t		 prev_cells;	/* the line before could be a table's header row of so many cells */
	/*
	 * An open code fence at the tail grows line by line without md4c:
	 * fast_base is the index of its first code line, fast_lines how many
	 * complete lines are drawn, fast_off where the next one starts.
	 */
	bool		 fast;
	size_t		 fast_base, fast_lines, fast_off;
	const struct synhl_syntax *fast_syn;	/* its language's syntax, or NULL */
	uint64_t	 fast_state;	/* the syntax's regions open after fast_lines */
	char		 fast_lang[64];
	size_t		 fast_start;	/* its first code line's offset */
	size_t		 fast_widest;	/* the box's inner width so far */
	size_t		 fast_inner;	/* the width its lines were drawn for (0: open on the right) */
	bool		 fast_open;	/* wider than the pane: open on the right until it ends */
	/* Tables are laid out for width; a width change lays them out again. */
	int		 width;
	bool		 tables;	/* some rendered range held a table */
	bool		 relayout;
	/* The link reference definition lines seen so far, and whether one is new. */
	struct buf	 defs;
	bool		 defs_new;
	bool		 prev_def;	/* the line before was a definition */
	bool		 tail_def;	/* the last update took the unfinished line as one */
};

void	 mdview_init(struct mdview *);
void	 mdview_release(struct mdview *);
/* Add a delta of text (any bytes; invalid UTF-8 is shown as U+FFFD). */
void	 mdview_append(struct mdview *, const char *s, size_t n);
/* Bring lines up to date; true when they changed. */
bool	 mdview_update(struct mdview *);
/*
 * The pane's width (0 at first: natural widths).  True when the lines
 * must be laid out again (a table was drawn); mdview_update does it.
 */
bool	 mdview_set_width(struct mdview *, int width);

#endif
