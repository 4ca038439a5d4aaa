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

#include <stddef.h>

#include "sline.h"

enum udiff_kind { UD_NOTE, UD_FILE, UD_HUNK, UD_CONTEXT, UD_ADD, UD_DEL };

struct udiff_line {
	enum udiff_kind	 kind;
	const char	*text;		/* without the marker column */
	size_t		 len;
	int		 old_no, new_no;	/* 0: none */
	long		 pair;		/* the paired line's index, or -1 */
	size_t		 span_start, span_end;	/* the changed bytes; equal: none */
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

#endif
