/* git binary patches with stored deflate blocks: see gitbin.h. */
#include "autoconf.h"

#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "gitbin.h"

#define GITBIN_ADLER_MOD	65521u
#define GITBIN_BLOCK		65535u	/* the most a stored block holds */
#define GITBIN_LINE		52	/* the most bytes one base85 line holds */

static const char gitbin_b85[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

uint32_t
gitbin_adler32(uint32_t adler, const void *data, size_t n)
{
	const unsigned char *p = data;
	uint32_t a = adler & 0xffff, b = adler >> 16;
	size_t i, run;

	while (n > 0) {
		/* 5552 bytes is the most that cannot overflow 32 bits before the modulo */
		run = n < 5552 ? n : 5552;
		for (i = 0; i < run; i++) {
			a += p[i];
			b += a;
		}
		a %= GITBIN_ADLER_MOD;
		b %= GITBIN_ADLER_MOD;
		p += run;
		n -= run;
	}
	return b << 16 | a;
}

int
gitbin_zlib_stored(struct buf *out, const void *data, size_t n)
{
	/* CM 8 (deflate), a 32K window, level "fastest"; 0x7801 is a multiple of 31 */
	static const unsigned char head[2] = { 0x78, 0x01 };
	const unsigned char *p = data;
	uint32_t adler = gitbin_adler32(1, data, n);
	unsigned char blk[5], tail[4];
	size_t run;

	if (buf_append(out, head, sizeof head) == -1)
		return -1;
	do {
		run = n < GITBIN_BLOCK ? n : GITBIN_BLOCK;
		blk[0] = run == n ? 1 : 0;	/* BFINAL on the last; BTYPE 00, stored */
		blk[1] = (unsigned char)(run & 0xff);
		blk[2] = (unsigned char)(run >> 8);
		blk[3] = (unsigned char)(~run & 0xff);
		blk[4] = (unsigned char)((~run >> 8) & 0xff);
		if (buf_append(out, blk, sizeof blk) == -1 || buf_append(out, p, run) == -1)
			return -1;
		p += run;
		n -= run;
	} while (n > 0);
	tail[0] = (unsigned char)(adler >> 24);
	tail[1] = (unsigned char)(adler >> 16);
	tail[2] = (unsigned char)(adler >> 8);
	tail[3] = (unsigned char)adler;
	return buf_append(out, tail, sizeof tail);
}

int
gitbin_base85(struct buf *out, const void *data, size_t n)
{
	const unsigned char *p = data;
	char group[5];
	size_t i, k;

	for (i = 0; i < n; i += 4) {
		uint32_t v = 0;

		for (k = 0; k < 4; k++)
			v = v << 8 | (i + k < n ? p[i + k] : 0);
		for (k = 5; k-- > 0; v /= 85)
			group[k] = gitbin_b85[v % 85];
		if (buf_append(out, group, sizeof group) == -1)
			return -1;
	}
	return 0;
}

int
gitbin_literal(struct buf *out, const void *data, size_t n)
{
	struct buf z = BUF_INIT(BUF_NOLIMIT);
	size_t i, run;
	int rc = -1;

	if (buf_printf(out, "literal %zu\n", n) == -1 || gitbin_zlib_stored(&z, data, n) == -1)
		goto out;
	for (i = 0; i < z.len; i += run) {
		run = z.len - i < GITBIN_LINE ? z.len - i : GITBIN_LINE;
		if (buf_putc(out, run <= 26 ? 'A' + (int)run - 1 : 'a' + (int)run - 27) == -1 ||
		    gitbin_base85(out, z.data + i, run) == -1 || buf_putc(out, '\n') == -1)
			goto out;
	}
	rc = buf_putc(out, '\n');
out:
	buf_release(&z);
	return rc;
}

int
gitbin_patch(struct buf *out, const void *old, size_t on, const void *new, size_t nn)
{
	if (buf_puts(out, "GIT binary patch\n") == -1 || gitbin_literal(out, new, nn) == -1)
		return -1;
	return gitbin_literal(out, old, on);
}

/* ---- the reader's side ---- */

struct gitbin_line {
	const char	*p;
	size_t		 len;		/* without the '\n' */
	size_t		 next;		/* the offset of the line after */
};

static bool
gitbin_getline(const char *text, size_t n, size_t at, struct gitbin_line *l)
{
	const char *nl;

	if (at >= n)
		return false;
	l->p = text + at;
	nl = memchr(l->p, '\n', n - at);
	l->len = nl ? (size_t)(nl - l->p) : n - at;
	l->next = at + l->len + (nl != NULL);
	return true;
}

static bool
gitbin_prefix(const struct gitbin_line *l, const char *s)
{
	size_t k = strlen(s);

	return l->len >= k && memcmp(l->p, s, k) == 0;
}

/* The size of a "literal N" or "delta N" line; false if it is neither. */
static bool
gitbin_hunk_size(const struct gitbin_line *l, unsigned long long *size)
{
	size_t k = gitbin_prefix(l, "literal ") ? 8 : gitbin_prefix(l, "delta ") ? 6 : 0;
	unsigned long long v = 0;

	if (k == 0 || k == l->len)
		return false;
	for (; k < l->len; k++) {
		if (l->p[k] < '0' || l->p[k] > '9' || v > (~0ULL - 9) / 10)
			return false;
		v = v * 10 + (unsigned)(l->p[k] - '0');
	}
	*size = v;
	return true;
}

/* The path of "diff --git a/P b/P", or all after "diff --git " if it is not that. */
static void
gitbin_name(const struct gitbin_line *l, const char **name, size_t *len)
{
	const char *r = l->p + 11;
	size_t rl = l->len - 11, pl = rl >= 5 ? (rl - 5) / 2 : 0;

	if (rl >= 5 && (rl - 5) % 2 == 0 && memcmp(r, "a/", 2) == 0 &&
	    memcmp(r + 2 + pl, " b/", 3) == 0 && memcmp(r + 2, r + 5 + pl, pl) == 0) {
		*name = r + 2;
		*len = pl;
	} else {
		*name = r;
		*len = rl;
	}
}

int
gitbin_summarize(const char *text, size_t n, struct buf *out)
{
	struct gitbin_line l, held = { NULL, 0, 0 };
	const char *name = "";
	size_t at = 0, name_len = 0;
	bool have_held = false;

	while (gitbin_getline(text, n, at, &l)) {
		unsigned long long size[2] = { 0, 0 };
		int hunks = 0, r;

		at = l.next;
		if (l.len == 16 && memcmp(l.p, "GIT binary patch", 16) == 0) {
			struct gitbin_line h;

			have_held = false;	/* its ids say nothing to a reader */
			while (hunks < 2 && gitbin_getline(text, n, at, &h) &&
			    gitbin_hunk_size(&h, &size[hunks])) {
				hunks++;
				at = h.next;
				while (gitbin_getline(text, n, at, &h) && (at = h.next, h.len > 0))
					;
			}
			if (hunks == 2)
				r = buf_printf(out, "Binary file %.*s changed (%llu -> %llu bytes)\n",
				    (int)name_len, name, size[1], size[0]);
			else
				r = buf_printf(out, "Binary file %.*s changed (%llu bytes now)\n",
				    (int)name_len, name, size[0]);
			if (r == -1)
				return -1;
			continue;
		}
		if (have_held && buf_append(out, held.p, held.next - (size_t)(held.p - text)) == -1)
			return -1;
		have_held = false;
		if (gitbin_prefix(&l, "index ")) {
			held = l;
			have_held = true;
			continue;
		}
		if (gitbin_prefix(&l, "diff --git "))
			gitbin_name(&l, &name, &name_len);
		if (buf_append(out, l.p, l.next - (size_t)(l.p - text)) == -1)
			return -1;
	}
	if (have_held && buf_append(out, held.p, held.next - (size_t)(held.p - text)) == -1)
		return -1;
	return 0;
}
