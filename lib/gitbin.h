/*
 * gitbin: git's binary patches, written without a compression library.
 *
 * `git apply` takes a binary file's change as "GIT binary patch" and two
 * literal hunks, the new content and then the old (so the patch applies
 * in both directions, as `git diff --binary` writes it):
 *
 *	literal <size>\n
 *	<base85 lines>
 *	\n
 *
 * The content goes in as a zlib stream (RFC 1950) whose deflate blocks
 * are all stored ones (RFC 1951 type 00, at most 65535 bytes each), which
 * any inflater reads; the stream is cut into lines of at most 52 bytes,
 * each line a length letter ('A'..'Z' for 1..26, 'a'..'z' for 27..52) and
 * the bytes in git's base85 (groups of four bytes, the last padded with
 * zeros, as five digits of git's alphabet, most significant first).
 *
 * gitbin_summarize is the other side: it turns the binary patches of a
 * diff back into one line each, for a reader rather than for git.
 *
 * Everything appends to a caller's buf and returns 0, or -1 when the buf
 * refused (its limit).
 */
#ifndef TANDEM_GITBIN_H
#define TANDEM_GITBIN_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/* Adler-32 (RFC 1950) of n bytes, going on from adler (1 to start). */
uint32_t gitbin_adler32(uint32_t adler, const void *data, size_t n);
/* n bytes as a zlib stream of stored blocks. */
int	 gitbin_zlib_stored(struct buf *out, const void *data, size_t n);
/* n bytes in git's base85, padded to a group of four (5 chars per group). */
int	 gitbin_base85(struct buf *out, const void *data, size_t n);
/* One literal hunk: "literal <n>", the base85 lines, an empty line. */
int	 gitbin_literal(struct buf *out, const void *data, size_t n);
/* "GIT binary patch", the new content's literal, then the old's. */
int	 gitbin_patch(struct buf *out, const void *old, size_t on, const void *new, size_t nn);

/*
 * The diff text with every "GIT binary patch" (and the "index" line before
 * it) as one line, "Binary file <path> changed (<old> -> <new> bytes)";
 * everything else is copied as it is.
 */
int	 gitbin_summarize(const char *text, size_t n, struct buf *out);

#endif
