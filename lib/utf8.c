/* UTF-8 helpers: see utf8.h. */
#include "autoconf.h"

#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "utf8.h"

size_t
utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c, min;
	size_t len, i;

	if (n == 0) {
		*cp = 0xFFFD;
		return 0;
	}
	c = u[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xE0) == 0xC0) {
		len = 2;
		c &= 0x1F;
		min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3;
		c &= 0x0F;
		min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else
		goto bad;
	if (len > n)
		goto bad;
	for (i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80)
			goto bad;
		c = (c << 6) | (u[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		goto bad;
	*cp = c;
	return len;
bad:
	*cp = 0xFFFD;
	return 1;
}

size_t
utf8_encode(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

bool
utf8_valid(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		size_t l = utf8_decode(s + i, n - i, &cp);

		if (cp == 0xFFFD && !(l == 3 && (unsigned char)s[i] == 0xEF))
			return false;
		i += l;
	}
	return true;
}

size_t
utf8_complete_prefix(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, back, need;

	/* Look at most 3 bytes back for the lead byte of an unfinished sequence. */
	for (back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = u[n - back];

		if ((c & 0xC0) == 0x80)
			continue;
		if (c < 0x80)
			return n;
		need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 :
		    (c & 0xF8) == 0xF0 ? 4 : 1;
		return need > back ? n - back : n;
	}
	(void)i;
	return n;
}

size_t
utf8_floor(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	while (n > 0 && (u[n] & 0xC0) == 0x80)
		n--;
	return n;
}

int
utf8_sanitize(struct buf *out, const char *s, size_t n)
{
	size_t i = 0, run = 0;

	while (i < n) {
		uint32_t cp;
		size_t l = utf8_decode(s + i, n - i, &cp);

		if (cp == 0xFFFD && l == 1) {
			if (buf_append(out, s + run, i - run) == -1 ||
			    buf_append(out, "\xEF\xBF\xBD", 3) == -1)
				return -1;
			run = i + 1;
		}
		i += l;
	}
	return buf_append(out, s + run, n - run);
}

bool
utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
}

size_t
utf8_picture(uint32_t cp, char out[4])
{
	if (cp < 0x20)
		return utf8_encode(0x2400 + cp, out);
	if (cp == 0x7F)
		return utf8_encode(0x2421, out);
	return utf8_encode(0xFFFD, out);
}

int
utf8_sanitize_term(struct buf *out, const char *s, size_t n, const char *keep)
{
	size_t i = 0, run = 0;

	while (i < n) {
		uint32_t cp;
		size_t l = utf8_decode(s + i, n - i, &cp);
		char pic[4];
		bool bad = cp == 0xFFFD && l == 1;

		if (bad || (utf8_is_control(cp) &&
		    (cp == 0 || keep == NULL || strchr(keep, (int)cp) == NULL))) {
			if (buf_append(out, s + run, i - run) == -1 ||
			    buf_append(out, pic, bad ? utf8_encode(0xFFFD, pic) :
			    utf8_picture(cp, pic)) == -1)
				return -1;
			run = i + l;
		}
		i += l;
	}
	return buf_append(out, s + run, n - run);
}

int
utf8_cpwidth(uint32_t cp)
{
	if (cp == 0)
		return 0;
	if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
		return -1;
	return wcwidth((wchar_t)cp);
}

size_t
utf8_cluster(const char *s, size_t n, int *width)
{
	uint32_t cp;
	size_t len, l;
	int w;

	if (n == 0) {
		*width = 0;
		return 0;
	}
	len = utf8_decode(s, n, &cp);
	w = utf8_cpwidth(cp);
	*width = w < 0 ? 1 : w;
	while (len < n) {
		l = utf8_decode(s + len, n - len, &cp);
		if (cp == UTF8_ZWJ && len + l < n) {
			/* A joined sequence (a family, a profession) is one character. */
			len += l;
			len += utf8_decode(s + len, n - len, &cp);
			continue;
		}
		if (utf8_cpwidth(cp) != 0 || cp == 0)
			break;
		len += l;
	}
	return len;
}

size_t
utf8_width(const char *s, size_t n)
{
	size_t i = 0, w = 0;

	while (i < n) {
		int cw;
		uint32_t cp;
		size_t l = utf8_cluster(s + i, n - i, &cw);

		/* Controls count 0 here, as they always did. */
		utf8_decode(s + i, n - i, &cp);
		if (utf8_cpwidth(cp) > 0)
			w += (size_t)cw;
		i += l;
	}
	return w;
}
