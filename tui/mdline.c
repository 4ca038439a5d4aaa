/*
 * mdline: one line of Markdown source classified (mdline.h).
 */
#include "autoconf.h"

#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "mdline.h"

/* The container prefix of a line: up to 3 spaces and '>' markers, as many as there are. */
size_t
mdline_container_prefix(const char *s, size_t n)
{
	size_t i = 0, k;

	for (;;) {
		for (k = 0; i < n && s[i] == ' ' && k < 3; k++)
			i++;
		if (i < n && s[i] == '>') {
			i++;
			if (i < n && s[i] == ' ')
				i++;
			continue;
		}
		return i;
	}
}

/*
 * A GFM delimiter row: cells of optional ':', one or more '-', optional
 * ':', between pipes (the outer ones optional); at least one pipe.  *short_
 * says whether a cell has fewer than the 3 dashes md4c asks for.
 */
bool
mdline_delim_row(const char *s, size_t n, bool *short_)
{
	size_t i = 0, dashes, cells = 0;
	bool pipe = false;

	*short_ = false;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '|') {
		pipe = true;
		i++;
	}
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < n && s[i] == ':')
			i++;
		for (dashes = 0; i < n && s[i] == '-'; i++)
			dashes++;
		if (dashes == 0)
			return false;
		if (dashes < 3)
			*short_ = true;
		if (i < n && s[i] == ':')
			i++;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		cells++;
		if (i < n && s[i] != '|')
			return false;
		if (i < n) {
			pipe = true;
			i++;
		}
	}
	return pipe && cells > 0;
}

/*
 * md4c 0.4 takes a delimiter row only with 3 dashes a cell; GFM takes
 * one ("|-|-|").  Copy s to out with the short dash runs of such rows
 * (after a row holding a pipe, outside code) made 3 long; false when
 * nothing needed it (out is then left empty).
 */
bool
mdline_widen_delims(const char *s, size_t n, struct buf *out)
{
	size_t off = 0, done = 0, flen = 0, k;
	bool prev_pipe = false, info, shorts, changed = false;
	char fence = 0, fc;

	while (off < n) {
		const char *ls = s + off, *nl = memchr(ls, '\n', n - off);
		size_t len = nl != NULL ? (size_t)(nl - ls) : n - off;
		size_t pre = mdline_container_prefix(ls, len);
		const char *body = ls + pre;
		size_t blen = len - pre;

		if (fence != 0) {
			if (mdline_fence(body, blen, &fc, &k, &info) && fc == fence && k >= flen && !info)
				fence = 0;
			prev_pipe = false;
		} else if (mdline_fence(body, blen, &fc, &k, &info)) {
			fence = fc;
			flen = k;
			prev_pipe = false;
		} else if (blen >= 4 && memcmp(body, "    ", 4) == 0) {
			prev_pipe = false;
		} else if (prev_pipe && mdline_delim_row(body, blen, &shorts) && shorts) {
			buf_append(out, s + done, (size_t)(body - s) - done);
			for (k = 0; k < blen; k++) {
				buf_putc(out, body[k]);
				if (body[k] == '-' && (k + 1 == blen || body[k + 1] != '-')) {
					size_t run = 1;

					while (run <= k && body[k - run] == '-')
						run++;
					for (; run < 3; run++)
						buf_putc(out, '-');
				}
			}
			done = (size_t)(body + blen - s);
			changed = true;
			prev_pipe = true;
		} else {
			prev_pipe = !mdline_blank(body, blen) && mdline_header_row(body, blen);
		}
		off += len + (nl != NULL);
	}
	if (!changed)
		return false;
	buf_append(out, s + done, n - done);
	return true;
}
bool
mdline_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* A line that may continue a list after a blank line: "- ", "* ", "+ ", "12. ", "3) ". */
bool
mdline_list_marker(const char *s, size_t n)
{
	size_t i = 0;

	if (n >= 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+'))
		return n == 1 || s[1] == ' ' || s[1] == '\t' || s[1] == '\r';
	while (i < n && i < 10 && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0 || i == n || (s[i] != '.' && s[i] != ')'))
		return false;
	return i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\t' || s[i + 1] == '\r';
}

/* A table's delimiter row ("|---|:--:|", "--- | ---"): after it every line is a row. */
bool
mdline_table_delim(const char *s, size_t n)
{
	bool dash = false, pipe = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '-')
			dash = true;
		else if (s[i] == '|')
			pipe = true;
		else if (s[i] != ':' && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	}
	return dash && pipe;
}

/*
 * The cells of a line that could be a table's row: it holds an unescaped
 * pipe and is no ATX heading; 0 when it cannot be one.
 */
size_t
mdline_row_cells(const char *s, size_t n)
{
	size_t i = 0, k, pipes = 0, cells;
	bool lead, trail = false;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	/* An ATX heading: 1 to 6 '#', then a blank or the end. */
	for (k = 0; i + k < n && s[i + k] == '#'; k++)
		;
	if (k >= 1 && k <= 6 && (i + k == n || s[i + k] == ' ' || s[i + k] == '\t'))
		return 0;
	lead = i < n && s[i] == '|';
	for (; i < n; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '|') {
			pipes++;
			trail = i + 1 == n;
		}
	}
	if (pipes == 0)
		return 0;
	cells = pipes + 1 - lead - trail;
	return cells > 0 ? cells : 0;
}
bool
mdline_header_row(const char *s, size_t n)
{
	return mdline_row_cells(s, n) > 0;
}

/* A fence line: up to 3 spaces, then 3 or more ` or ~; *c and *len describe it. */
bool
mdline_fence(const char *s, size_t n, char *c, size_t *len, bool *info)
{
	size_t i = 0, k;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	if (i == n || (s[i] != '`' && s[i] != '~'))
		return false;
	*c = s[i];
	for (k = i; k < n && s[k] == *c; k++)
		;
	if (k - i < 3)
		return false;
	*len = k - i;
	*info = !mdline_blank(s + k, n - k);
	/* A backtick fence's info string may not hold a backtick. */
	if (*c == '`' && memchr(s + k, '`', n - k) != NULL)
		return false;
	return true;
}

/* The language of a fence line in column 0, when md4c would read it the same: plain characters. */
bool
mdline_fence_lang(const char *s, size_t n, char *lang, size_t size)
{
	size_t i = 0, k = 0;

	/* The fence's own character only: "~~~```" has the info string "```". */
	while (i < n && s[i] == s[0])
		i++;
	while (i < n && s[i] == ' ')
		i++;
	while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
		char c = s[i++];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '+' || c == '#' || c == '.' || c == '_' || c == '-') || k + 1 >= size)
			return false;
		lang[k++] = c;
	}
	lang[k] = '\0';
	return true;
}
