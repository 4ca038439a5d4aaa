/* Growable byte buffer with a size limit: see buf.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

void
buf_init(struct buf *b, size_t limit)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->limit = limit;
}

void
buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

/* Make room for n more bytes plus the NUL; -1 past the limit. */
static int
buf_grow(struct buf *b, size_t n)
{
	size_t need, cap;

	if (n > b->limit || b->len > b->limit - n) {
		buf_release(b);
		return -1;
	}
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
	return 0;
}

int
buf_reserve(struct buf *b, size_t n)
{
	return buf_grow(b, n);
}

int
buf_append(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) == -1)
		return -1;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int
buf_putc(struct buf *b, int c)
{
	char ch = (char)c;

	return buf_append(b, &ch, 1);
}

int
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	char small[256];
	int n;

	va_copy(cp, ap);
	n = vsnprintf(small, sizeof small, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof small)
		return buf_append(b, small, (size_t)n);
	if (buf_grow(b, (size_t)n) == -1)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

int
buf_json_escape(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		size_t elen = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (buf_append(b, s + run, i - run) == -1)
			return -1;
		run = i + 1;
		esc[0] = '\\';
		switch (c) {
		case '"':  esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			elen = 6;
		}
		if (buf_append(b, esc, elen) == -1)
			return -1;
	}
	return buf_append(b, s + run, n - run);
}

const char *
buf_cstr(const struct buf *b)
{
	return b->data != NULL ? b->data : "";
}

char *
buf_detach(struct buf *b, size_t *lenp)
{
	char *p = b->data != NULL ? b->data : xstrdup("");

	if (lenp != NULL)
		*lenp = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void
buf_append_tail(struct buf *b, const char *p, size_t n, size_t keep)
{
	if (n > keep) {
		p += n - keep;
		n = keep;
	}
	if (b->len + n > keep)
		buf_consume(b, b->len + n - keep);
	buf_append(b, p, n);
}

void
buf_truncate(struct buf *b, size_t n)
{
	if (n < b->len) {
		b->len = n;
		b->data[n] = '\0';
	}
}
