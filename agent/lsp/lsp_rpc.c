/* The LSP base protocol's framing: see lsp_rpc.h. */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lsp_rpc.h"
#include "utf8.h"

void
lsp_frames_init(struct lsp_frames *f, size_t max)
{
	memset(f, 0, sizeof *f);
	buf_init(&f->in, max + LSP_HEADER_MAX + 1);
	f->max = max;
}

void
lsp_frames_release(struct lsp_frames *f)
{
	buf_release(&f->in);
}

const char *
lsp_frames_broken(const struct lsp_frames *f)
{
	return f->broken;
}

/* The header's Content-Length (h is len bytes without the blank line); -1 when none or bad. */
static long long
lsp_header_length(const char *h, size_t len)
{
	static const char key[] = "content-length:";
	long long v = -1;
	size_t i = 0;

	while (i < len) {
		const char *eol = memchr(h + i, '\n', len - i);
		size_t n = eol != NULL ? (size_t)(eol - (h + i)) : len - i;

		if (n >= sizeof key - 1 && strncasecmp(h + i, key, sizeof key - 1) == 0) {
			char num[32], *end;
			size_t j = sizeof key - 1, k = 0;

			while (j < n && (h[i + j] == ' ' || h[i + j] == '\t'))
				j++;
			while (j < n && h[i + j] != '\r' && k + 1 < sizeof num)
				num[k++] = h[i + j++];
			num[k] = '\0';
			if (k == 0 || num[0] < '0' || num[0] > '9')
				return -1;
			errno = 0;
			v = strtoll(num, &end, 10);
			if (errno != 0 || *end != '\0')
				return -1;
		}
		i += n + 1;
	}
	return v;
}

/* One step: a header or a body out of f->in; false when more bytes are needed. */
static bool
lsp_frames_step(struct lsp_frames *f, lsp_body_fn *fn, void *arg)
{
	if (!f->in_body) {
		const char *end = NULL;
		size_t i;
		long long n;

		for (i = 0; i + 3 < f->in.len + 0 && end == NULL; i++)
			if (memcmp(f->in.data + i, "\r\n\r\n", 4) == 0)
				end = f->in.data + i;
		if (end == NULL) {
			if (f->in.len > LSP_HEADER_MAX)
				f->broken = "a message header passed 4 KB";
			return false;
		}
		n = lsp_header_length(f->in.data, (size_t)(end - f->in.data));
		if (n < 0) {
			f->broken = "a message header names no Content-Length";
			return false;
		}
		if ((unsigned long long)n > f->max) {
			f->broken = "a message is larger than the limit";
			return false;
		}
		buf_consume(&f->in, (size_t)(end - f->in.data) + 4);
		f->need = (size_t)n;
		f->in_body = true;
	}
	if (f->in.len < f->need)
		return false;
	f->in_body = false;
	f->messages++;
	fn(arg, f->need > 0 ? f->in.data : "", f->need);
	buf_consume(&f->in, f->need);
	return true;
}

void
lsp_frames_feed(struct lsp_frames *f, const char *p, size_t n, lsp_body_fn *fn, void *arg)
{
	while (n > 0 && f->broken == NULL) {
		size_t room = f->in.limit - 1 - f->in.len, take = n < room ? n : room;

		if (buf_append(&f->in, p, take) == -1) {
			f->broken = "out of room for a message";
			return;
		}
		p += take;
		n -= take;
		while (f->broken == NULL && lsp_frames_step(f, fn, arg))
			;
	}
}

void
lsp_frame_put(struct buf *out, const char *body, size_t n)
{
	buf_printf(out, "Content-Length: %zu\r\n\r\n", n);
	buf_append(out, body, n);
}

/* --- positions ------------------------------------------------------------ */

bool
lsp_line_of(const char *text, size_t len, long ln, const char **p, size_t *n)
{
	size_t i = 0;
	const char *nl;

	for (; ln > 0; ln--) {
		nl = i < len ? memchr(text + i, '\n', len - i) : NULL;
		if (nl == NULL)
			return false;
		i = (size_t)(nl - text) + 1;
	}
	if (i > len)
		return false;
	nl = memchr(text + i, '\n', len - i);
	*p = text + i;
	*n = nl != NULL ? (size_t)(nl - (text + i)) : len - i;
	return true;
}

/* The units one code point takes in enc. */
static long
lsp_units(uint32_t cp, size_t bytes, enum lsp_enc enc)
{
	if (enc == LSP_ENC_UTF8)
		return (long)bytes;
	if (enc == LSP_ENC_UTF32)
		return 1;
	return cp >= 0x10000 ? 2 : 1;
}

long
lsp_col_to_chars(const char *line, size_t n, long units, enum lsp_enc enc)
{
	size_t i = 0;
	long chars = 0, u = 0;

	while (i < n && u < units) {
		uint32_t cp;
		size_t k = utf8_decode(line + i, n - i, &cp);

		if (k == 0)
			k = 1;
		u += lsp_units(cp, k, enc);
		i += k;
		chars++;
	}
	return chars + (units > u ? units - u : 0) + 1;
}

long
lsp_chars_to_col(const char *line, size_t n, long chars, enum lsp_enc enc)
{
	size_t i = 0;
	long u = 0;

	for (; i < n && chars > 1; chars--) {
		uint32_t cp;
		size_t k = utf8_decode(line + i, n - i, &cp);

		if (k == 0)
			k = 1;
		u += lsp_units(cp, k, enc);
		i += k;
	}
	return u + (chars > 1 ? chars - 1 : 0);
}

/* Paths. */

char *
lsp_path_uri(const char *abs)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const unsigned char *p;

	buf_puts(&b, "file://");
	for (p = (const unsigned char *)abs; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p) != NULL)
			buf_putc(&b, *p);
		else
			buf_printf(&b, "%%%02X", *p);
	}
	return buf_detach(&b, NULL);
}

