/*
 * sline: styled logical lines, the unit every pane keeps and paints.
 *
 * A logical line is sanitized UTF-8 text (no control characters: they are
 * shown as control pictures, invalid bytes as U+FFFD) with style runs
 * (a theme role and TA_* attributes from a byte offset on).  Lines are
 * never hard-wrapped: they are wrapped at paint time, and the wrap is cached
 * in the line keyed by the width, so a frame costs what is visible.
 *
 * The first `body` bytes of the text are a prefix drawn on the first row
 * only (a list bullet, a quote bar); wrapped rows start with `cont`
 * instead (spaces, or the quote bar again) drawn in cont_role.
 *
 * An sline owns its text, runs, cont and wrap cache; sline_release frees
 * them.  An slvec owns its lines.
 */
#ifndef TANDEM_TUI_SLINE_H
#define TANDEM_TUI_SLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wrap.h"

enum {
	SL_NOWRAP	= 1 << 0,	/* cut at the pane's edge instead of wrapping */
	SL_FILL		= 1 << 1,	/* repeat the last character to the edge (rules, frames) */
	SL_CHARWRAP	= 1 << 2	/* wrap anywhere, keep spaces (code, output) */
};

struct srun {
	uint32_t	 off;		/* the run lasts until the next run's off */
	uint8_t		 role;
	uint8_t		 attr;
};

struct sline {
	char		*text;
	uint32_t	 len;
	uint32_t	 body;
	struct srun	*runs;
	uint32_t	 nruns, capruns;
	char		*cont;
	uint8_t		 cont_role;
	uint8_t		 flags;
	uint32_t	 cap;
	/* The wrap cache: rows at width wrap_w (0: none). */
	int		 wrap_w;
	uint32_t	 nrows, caprows;
	struct wrap_row	*rows;
};

struct slvec {
	struct sline	*v;
	size_t		 n, cap;
};

void	 sline_init(struct sline *);
void	 sline_release(struct sline *);
/* Append n bytes of s in role and attr, sanitized. */
void	 sline_add(struct sline *, const char *s, size_t n, int role, unsigned attr);
void	 sline_adds(struct sline *, const char *s, int role, unsigned attr);
/* Append src's bytes [from, to) with their styles. */
void	 sline_add_slice(struct sline *, const struct sline *src, uint32_t from, uint32_t to);
/* Mark the text so far as the first-row prefix. */
void	 sline_mark_body(struct sline *);
void	 sline_set_cont(struct sline *, const char *cont, int role);
/* The style at byte off. */
const struct srun *sline_style_at(const struct sline *, uint32_t off);
/* Drop the wrap cache (after a change to the text). */
void	 sline_unwrap(struct sline *);
/* Rows at width (>= 1), computed once per width. */
uint32_t sline_rows(struct sline *, int width);
/* Display columns of the whole text. */
size_t	 sline_width(const struct sline *);
/* Deep copy. */
void	 sline_copy(struct sline *dst, const struct sline *src);
/* Compare text, runs, body, cont and flags (for tests). */
bool	 sline_equal(const struct sline *, const struct sline *);

void	 slvec_init(struct slvec *);
void	 slvec_release(struct slvec *);
/* A new empty line at the end; the pointer is valid until the next push. */
struct sline *slvec_push(struct slvec *);
/* Free the lines from n on. */
void	 slvec_truncate(struct slvec *, size_t n);
/* Move src's lines to the end of dst (src is left empty). */
void	 slvec_move(struct slvec *dst, struct slvec *src);
/* Plain text of a line range, joined with '\n' (for tests and print-on-exit). */
char	*slvec_text(const struct slvec *, size_t from, size_t to);

#endif
