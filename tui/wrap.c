/* Row breaking: see wrap.h. */
#include "autoconf.h"

#include "utf8.h"
#include "wrap.h"
#include "xalloc.h"

size_t
wrap_cluster(const char *s, size_t n, int *width)
{
	return utf8_cluster(s, n, width);
}

size_t
wrap_width(const char *s, size_t n)
{
	size_t i = 0, cols = 0;

	while (i < n) {
		int w;

		i += wrap_cluster(s + i, n - i, &w);
		cols += (size_t)w;
	}
	return cols;
}

size_t
wrap_fit(const char *s, size_t n, int cols)
{
	size_t i = 0;
	int used = 0;

	while (i < n) {
		int w;
		size_t l = wrap_cluster(s + i, n - i, &w);

		if (used + w > cols)
			break;
		used += w;
		i += l;
	}
	return i;
}

static void
wrap_emit(struct wrap_row **rows, uint32_t *cap, uint32_t *nrows, size_t start, size_t end)
{
	if (*nrows == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		*rows = xreallocarray(*rows, *cap, sizeof **rows);
	}
	(*rows)[*nrows].start = (uint32_t)start;
	(*rows)[*nrows].end = (uint32_t)end;
	(*nrows)++;
}

/* Fill one row from pos; returns where the next row starts, *end where this one ends. */
static size_t
wrap_row_fill(const char *s, size_t n, size_t pos, int avail, bool charwrap, size_t *end)
{
	size_t row_start = pos, sp_start = pos, brk_end = pos, brk_next = pos;
	bool in_space = false;
	int col = 0;

	while (pos < n) {
		int cw;
		size_t cl = wrap_cluster(s + pos, n - pos, &cw);
		bool is_sp = !charwrap && s[pos] == ' ';

		if (is_sp && !in_space) {
			sp_start = pos;
			in_space = true;
		} else if (!is_sp && in_space) {
			brk_end = sp_start;
			brk_next = pos;
			in_space = false;
		}
		if (col + cw > avail && pos > row_start) {
			if (is_sp && sp_start > row_start) {
				*end = sp_start;
				while (pos < n && s[pos] == ' ')
					pos++;
				return pos;
			}
			if (brk_end > row_start) {
				*end = brk_end;
				return brk_next;
			}
			*end = pos;
			return pos;
		}
		col += cw;
		pos += cl;
	}
	*end = n;
	return n;
}

uint32_t
wrap_text(const char *s, size_t n, size_t start, int first_w, int cont_w, bool charwrap,
    struct wrap_row **rows, uint32_t *cap)
{
	uint32_t nrows = 0;
	size_t pos = start;
	int avail = first_w < 1 ? 1 : first_w;

	if (cont_w < 1)
		cont_w = 1;
	do {
		size_t end, next = wrap_row_fill(s, n, pos, avail, charwrap, &end);

		wrap_emit(rows, cap, &nrows, pos, end);
		pos = next;
		avail = cont_w;
	} while (pos < n);
	return nrows;
}
