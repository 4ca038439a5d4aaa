/*
 * utf8: the few UTF-8 operations tandem needs, on byte strings.
 *
 * Nothing here allocates except utf8_sanitize, whose result the caller frees.
 */
#ifndef TANDEM_UTF8_H
#define TANDEM_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

/*
 * Decode one code point from s (at most n bytes).  Returns its length in
 * bytes (1-4), with *cp set; an invalid or truncated sequence gives 1 and
 * *cp = 0xFFFD.
 */
size_t	 utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encode cp into out (4 bytes of room); returns the length. */
size_t	 utf8_encode(uint32_t cp, char *out);
bool	 utf8_valid(const char *s, size_t n);
/*
 * The length of the longest prefix of s[0..n) that does not end inside a
 * multi-byte sequence: where to cut a stream so that no character is split.
 */
size_t	 utf8_complete_prefix(const char *s, size_t n);
/* The largest cut point <= n that falls on a character boundary. */
size_t	 utf8_floor(const char *s, size_t n);
/* Append s to out with invalid sequences replaced by U+FFFD. */
int	 utf8_sanitize(struct buf *out, const char *s, size_t n);
/*
 * The visible stand-in for a character a terminal must not get raw: a C0
 * control's picture (U+2400 + cp), U+2421 for DEL, U+FFFD for the rest
 * (C1 controls).  out needs 4 bytes; returns the length.
 */
size_t	 utf8_picture(uint32_t cp, char out[4]);
/* A C0 or C1 control character, or DEL. */
bool	 utf8_is_control(uint32_t cp);
/*
 * Append s to out made safe for a terminal: invalid sequences become
 * U+FFFD and every control character not in keep (e.g. "\n\t"; NULL keeps
 * none) its picture, so escape sequences (OSC 52 clipboard writes, window
 * titles, cursor moves) are shown, never obeyed.  The TUI draws text
 * this way; headless output on a terminal is written this way.
 */
int	 utf8_sanitize_term(struct buf *out, const char *s, size_t n, const char *keep);
/* Terminal columns of one code point (wcwidth; -1 for controls). */
int	 utf8_cpwidth(uint32_t cp);
/* The zero width joiner, which makes one character of the two it stands between. */
#define UTF8_ZWJ 0x200Du
/*
 * The length in bytes of the character cluster at s: a code point with the
 * zero-width ones after it (combining marks, variation selectors), and
 * what a zero width joiner joins to it (a joined emoji is one character).
 * *width gets its columns: the first code point's (a control counts 1).
 */
size_t	 utf8_cluster(const char *s, size_t n, int *width);
/* Columns of a string, cluster by cluster (controls count 0). */
size_t	 utf8_width(const char *s, size_t n);

#endif
