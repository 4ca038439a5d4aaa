/*
 * mdline: what one line of Markdown source is, read the way md4c reads
 * it, without parsing it: blank, a fence, a list marker, a table's header
 * or delimiter row, the container prefix ('>' markers); and the widening
 * of GFM's short delimiter rows for md4c.  Pure functions over (s, n), no
 * state; mdview.c uses them to find stable block boundaries in a stream.
 */
#ifndef TANDEM_TUI_MDLINE_H
#define TANDEM_TUI_MDLINE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* Only blanks (space, tab, CR). */
bool	 mdline_blank(const char *s, size_t n);
/* A line that may continue a list after a blank line: "- ", "* ", "+ ", "12. ", "3) ". */
bool	 mdline_list_marker(const char *s, size_t n);
/* A table's delimiter row ("|---|:--:|", "--- | ---"): after it every line is a row. */
bool	 mdline_table_delim(const char *s, size_t n);
/* The cells of a line that could be a table's row (an unescaped pipe, no ATX heading); 0: none. */
size_t	 mdline_row_cells(const char *s, size_t n);
bool	 mdline_header_row(const char *s, size_t n);
/* A fence line: up to 3 spaces, then 3 or more ` or ~; *c, *len and *info describe it. */
bool	 mdline_fence(const char *s, size_t n, char *c, size_t *len, bool *info);
/* The language of a fence line in column 0, when md4c would read it the same: plain characters. */
bool	 mdline_fence_lang(const char *s, size_t n, char *lang, size_t size);
/* The container prefix of a line: up to 3 spaces and '>' markers, as many as there are. */
size_t	 mdline_container_prefix(const char *s, size_t n);
/* A GFM delimiter row; *short_: a cell has fewer than the 3 dashes md4c asks for. */
bool	 mdline_delim_row(const char *s, size_t n, bool *short_);
/*
 * Copy s to out with the short dash runs of GFM delimiter rows made 3
 * long (md4c 0.4 takes no fewer); false when nothing needed it (out is
 * then left empty).
 */
bool	 mdline_widen_delims(const char *s, size_t n, struct buf *out);

#endif
