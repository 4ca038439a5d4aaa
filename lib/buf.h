/*
 * buf: a growable byte buffer with a hard size limit.
 *
 * Invariants: data is NULL or points to cap bytes; when data is non-NULL,
 * data[len] == '\0', so the contents can always be read as a C string.
 * len never exceeds limit.  An append that would pass the limit fails,
 * frees the buffer (len 0, data NULL) and returns -1: a runaway stream
 * cannot grow memory without bound, and the caller learns of it once.
 *
 * The buffer owns data; buf_release() frees it, buf_detach() hands it over.
 */
#ifndef TANDEM_BUF_H
#define TANDEM_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
	size_t	 limit;
};

#define BUF_NOLIMIT SIZE_MAX
#define BUF_INIT(lim) { NULL, 0, 0, (lim) }

void	 buf_init(struct buf *b, size_t limit);
/* Free the memory; the buffer can be used again (same limit). */
void	 buf_release(struct buf *b);
/* Empty the buffer but keep its memory. */
void	 buf_reset(struct buf *b);
/* 0, or -1 when the limit would be passed (the buffer is then released). */
int	 buf_append(struct buf *b, const void *p, size_t n);
/* Room for n more bytes in one allocation (what is known to come); -1 past the limit. */
int	 buf_reserve(struct buf *b, size_t n);
int	 buf_puts(struct buf *b, const char *s);
int	 buf_putc(struct buf *b, int c);
int	 buf_printf(struct buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));
/* Append s as the inside of a JSON string (no surrounding quotes). */
int	 buf_json_escape(struct buf *b, const char *s, size_t n);
/* The contents as a C string; "" when empty.  Valid until the next change. */
const char *buf_cstr(const struct buf *b);
/* Take the contents (NUL-terminated, never NULL); the caller frees. */
char	*buf_detach(struct buf *b, size_t *lenp);
/* Drop the first n bytes. */
void	 buf_consume(struct buf *b, size_t n);
/* Append p[0..n), then drop from the front what passes keep: the last keep bytes stay. */
void	 buf_append_tail(struct buf *b, const char *p, size_t n, size_t keep);
/* Shorten to n bytes (n <= len). */
void	 buf_truncate(struct buf *b, size_t n);

#endif
