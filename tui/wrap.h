/*
 * wrap: where to break a UTF-8 line into screen rows.
 *
 * Pure functions over byte strings.  Widths come from wcwidth (the locale
 * must be UTF-8): a wide character takes two columns and is never split
 * across rows; zero-width characters (combining marks, joiners, variation
 * selectors) stay with the character before them.  Word wrap breaks at
 * spaces and drops the spaces at the break; a word longer than a row is
 * cut between characters.  Character wrap (code, output) cuts anywhere and
 * keeps every space.
 */
#ifndef TANDEM_TUI_WRAP_H
#define TANDEM_TUI_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One screen row: the bytes [start, end) of the line. */
struct wrap_row {
	uint32_t	 start, end;
};

/*
 * The length in bytes of the character cluster at s (a character and the
 * zero-width ones after it), with its width in columns in *width.
 */
size_t	 wrap_cluster(const char *s, size_t n, int *width);

/* Columns of s[0..n). */
size_t	 wrap_width(const char *s, size_t n);

/*
 * Break s[start..n) into rows: the first row has first_w columns, the
 * others cont_w (each at least 1 is assumed).  Rows are stored in *rows
 * (grown with xreallocarray; *cap is its capacity) and counted in the
 * result, which is at least 1.
 */
uint32_t wrap_text(const char *s, size_t n, size_t start, int first_w, int cont_w,
	    bool charwrap, struct wrap_row **rows, uint32_t *cap);

/* The longest prefix of s[0..n) that fits in cols columns, in bytes. */
size_t	 wrap_fit(const char *s, size_t n, int cols);

#endif
