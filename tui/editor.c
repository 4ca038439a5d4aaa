/* The input editor's model: see editor.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "editor.h"
#include "utf8.h"
#include "xalloc.h"

#define ED_TEXT_MAX	(4 * 1024 * 1024)

void
ed_init(struct editor *e)
{
	memset(e, 0, sizeof *e);
	buf_init(&e->text, ED_TEXT_MAX);
	buf_init(&e->query, 4096);
	e->goal = -1;
}

void
ed_release(struct editor *e)
{
	size_t i;

	buf_release(&e->text);
	buf_release(&e->query);
	for (i = 0; i < e->nhist; i++)
		free(e->hist[i]);
	free(e->hist);
	free(e->draft);
	memset(e, 0, sizeof *e);
}

const char *
ed_text(const struct editor *e)
{
	return buf_cstr(&e->text);
}

bool
ed_empty(const struct editor *e)
{
	return e->text.len == 0;
}

void
ed_clear(struct editor *e)
{
	buf_reset(&e->text);
	e->cur = 0;
	e->goal = -1;
}

void
ed_set(struct editor *e, const char *s)
{
	ed_clear(e);
	ed_insert(e, s, strlen(s));
}

/* Insert bytes as they are (already clean) at the cursor. */
static void
ed_raw_insert(struct editor *e, const char *s, size_t n)
{
	size_t tail = e->text.len - e->cur, room = e->text.limit - e->text.len - 1;

	/* A paste past the limit keeps what fits, cut on a character. */
	if (n > room)
		n = utf8_floor(s, room);
	if (n == 0 || buf_append(&e->text, s, n) == -1)
		return;
	memmove(e->text.data + e->cur + n, e->text.data + e->cur, tail);
	memcpy(e->text.data + e->cur, s, n);
	e->cur += n;
}

void
ed_insert(struct editor *e, const char *s, size_t n)
{
	size_t i = 0;

	e->goal = -1;
	while (i < n) {
		size_t j = i, room = e->text.limit - e->text.len - 1;

		while (j < n && ((unsigned char)s[j] >= 0x20 || s[j] == '\t') && s[j] != 0x7F)
			j++;
		/* Sanitizing can triple a byte (U+FFFD): clean only what can fit. */
		if (j - i > room / 3) {
			j = i + utf8_floor(s + i, room / 3);
			n = j;
		}
		if (j > i) {
			struct buf clean = BUF_INIT(ED_TEXT_MAX);

			utf8_sanitize(&clean, s + i, j - i);
			ed_raw_insert(e, buf_cstr(&clean), clean.len);
			buf_release(&clean);
		}
		if (j < n) {
			if (s[j] == '\r') {
				ed_raw_insert(e, "\n", 1);
				if (j + 1 < n && s[j + 1] == '\n')
					j++;
			} else if (s[j] == '\n')
				ed_raw_insert(e, "\n", 1);
			j++;
		}
		i = j;
	}
}

/* The start of the character cluster before off. */
static size_t
ed_prev(const struct editor *e, size_t off)
{
	const char *s = e->text.data;

	while (off > 0) {
		uint32_t cp;

		off--;
		while (off > 0 && ((unsigned char)s[off] & 0xC0) == 0x80)
			off--;
		utf8_decode(s + off, e->text.len - off, &cp);
		if (utf8_cpwidth(cp) != 0 || s[off] == '\n')
			break;
	}
	return off;
}

static size_t
ed_next(const struct editor *e, size_t off)
{
	int w;

	if (off >= e->text.len)
		return e->text.len;
	if (e->text.data[off] == '\n')
		return off + 1;
	return off + wrap_cluster(e->text.data + off, e->text.len - off, &w);
}

bool
ed_backspace(struct editor *e)
{
	size_t p;

	if (e->cur == 0)
		return false;
	p = ed_prev(e, e->cur);
	memmove(e->text.data + p, e->text.data + e->cur, e->text.len - e->cur + 1);
	e->text.len -= e->cur - p;
	e->cur = p;
	e->goal = -1;
	return true;
}

bool
ed_delete(struct editor *e)
{
	size_t n;

	if (e->cur >= e->text.len)
		return false;
	n = ed_next(e, e->cur);
	memmove(e->text.data + e->cur, e->text.data + n, e->text.len - n + 1);
	e->text.len -= n - e->cur;
	e->goal = -1;
	return true;
}

void
ed_left(struct editor *e)
{
	e->cur = ed_prev(e, e->cur);
	e->goal = -1;
}

void
ed_right(struct editor *e)
{
	e->cur = ed_next(e, e->cur);
	e->goal = -1;
}

static bool
ed_is_word(char c)
{
	return c != ' ' && c != '\n' && c != '\t';
}

void
ed_word_left(struct editor *e)
{
	/* Words are runs of non-blank bytes, so this stops on a character boundary. */
	while (e->cur > 0 && !ed_is_word(e->text.data[e->cur - 1]))
		e->cur--;
	while (e->cur > 0 && ed_is_word(e->text.data[e->cur - 1]))
		e->cur--;
	e->goal = -1;
}

void
ed_word_right(struct editor *e)
{
	while (e->cur < e->text.len && !ed_is_word(e->text.data[e->cur]))
		e->cur++;
	while (e->cur < e->text.len && ed_is_word(e->text.data[e->cur]))
		e->cur++;
	e->goal = -1;
}

static size_t
ed_line_start(const struct editor *e, size_t off)
{
	while (off > 0 && e->text.data[off - 1] != '\n')
		off--;
	return off;
}

static size_t
ed_line_end(const struct editor *e, size_t off)
{
	while (off < e->text.len && e->text.data[off] != '\n')
		off++;
	return off;
}

void
ed_home(struct editor *e)
{
	e->cur = ed_line_start(e, e->cur);
	e->goal = -1;
}

void
ed_end(struct editor *e)
{
	e->cur = ed_line_end(e, e->cur);
	e->goal = -1;
}

/* Put the cursor on the line starting at ls, at the goal column. */
static void
ed_goto_col(struct editor *e, size_t ls)
{
	size_t le = ed_line_end(e, ls);

	e->cur = ls + wrap_fit(e->text.data + ls, le - ls, e->goal);
}

static void
ed_set_goal(struct editor *e)
{
	size_t ls = ed_line_start(e, e->cur);

	if (e->goal < 0)
		e->goal = (int)wrap_width(e->text.data + ls, e->cur - ls);
}

bool
ed_up(struct editor *e)
{
	size_t ls = e->text.len ? ed_line_start(e, e->cur) : 0;

	if (ls == 0)
		return false;
	ed_set_goal(e);
	ed_goto_col(e, ed_line_start(e, ls - 1));
	return true;
}

bool
ed_down(struct editor *e)
{
	size_t le = ed_line_end(e, e->cur);

	if (le >= e->text.len)
		return false;
	ed_set_goal(e);
	ed_goto_col(e, le + 1);
	return true;
}

static void
ed_cut(struct editor *e, size_t from, size_t to)
{
	memmove(e->text.data + from, e->text.data + to, e->text.len - to + 1);
	e->text.len -= to - from;
	e->cur = from;
	e->goal = -1;
}

void
ed_kill_to_end(struct editor *e)
{
	size_t le = ed_line_end(e, e->cur);

	/* At the end of a line, join the next one. */
	if (le == e->cur && le < e->text.len)
		le++;
	if (le > e->cur)
		ed_cut(e, e->cur, le);
}

void
ed_kill_to_start(struct editor *e)
{
	size_t ls = ed_line_start(e, e->cur);

	if (ls < e->cur)
		ed_cut(e, ls, e->cur);
}

void
ed_kill_word(struct editor *e)
{
	size_t end = e->cur;

	while (e->cur > 0 && !ed_is_word(e->text.data[e->cur - 1]))
		e->cur--;
	while (e->cur > 0 && ed_is_word(e->text.data[e->cur - 1]))
		e->cur--;
	if (e->cur < end)
		ed_cut(e, e->cur, end);
}

void
ed_history_add(struct editor *e, const char *s)
{
	if (*s == '\0' || (e->nhist > 0 && strcmp(e->hist[e->nhist - 1], s) == 0)) {
		e->hpos = e->nhist;
		return;
	}
	if (e->nhist == ED_HISTORY_MAX) {
		free(e->hist[0]);
		memmove(e->hist, e->hist + 1, (e->nhist - 1) * sizeof *e->hist);
		e->nhist--;
	}
	e->hist = xreallocarray(e->hist, e->nhist + 1, sizeof *e->hist);
	e->hist[e->nhist++] = xstrdup(s);
	e->hpos = e->nhist;
}

char *
ed_take(struct editor *e)
{
	char *s = xstrdup(ed_text(e));

	ed_history_add(e, s);
	ed_clear(e);
	free(e->draft);
	e->draft = NULL;
	return s;
}

bool
ed_history_prev(struct editor *e)
{
	if (e->hpos == 0 || e->nhist == 0)
		return false;
	if (e->hpos >= e->nhist) {
		free(e->draft);
		e->draft = xstrdup(ed_text(e));
		e->hpos = e->nhist;
	}
	e->hpos--;
	ed_set(e, e->hist[e->hpos]);
	return true;
}

bool
ed_history_next(struct editor *e)
{
	if (e->hpos >= e->nhist)
		return false;
	e->hpos++;
	if (e->hpos == e->nhist) {
		ed_set(e, e->draft ? e->draft : "");
		free(e->draft);
		e->draft = NULL;
	} else
		ed_set(e, e->hist[e->hpos]);
	return true;
}

/* The newest entry at or before from (an index, or nhist for none) holding the query. */
static size_t
ed_search_from(const struct editor *e, size_t from)
{
	size_t i = from + 1;

	if (from >= e->nhist)
		i = e->nhist;
	while (i-- > 0)
		if (strstr(e->hist[i], buf_cstr(&e->query)) != NULL)
			return i;
	return e->nhist;
}

void
ed_search_start(struct editor *e)
{
	e->searching = true;
	buf_reset(&e->query);
	e->match = e->nhist;
	free(e->draft);
	e->draft = xstrdup(ed_text(e));
}

void
ed_search_type(struct editor *e, const char *s, size_t n)
{
	size_t m;

	buf_append(&e->query, s, n);
	m = ed_search_from(e, e->match < e->nhist ? e->match : e->nhist);
	e->match = m;
}

void
ed_search_erase(struct editor *e)
{
	size_t n = e->query.len;

	if (n == 0)
		return;
	n = utf8_floor(e->query.data, n - 1);
	buf_truncate(&e->query, n);
	e->match = n > 0 ? ed_search_from(e, e->nhist) : e->nhist;
}

void
ed_search_next(struct editor *e)
{
	size_t m;

	if (e->match == 0 || e->match >= e->nhist)
		return;
	m = ed_search_from(e, e->match - 1);
	if (m < e->nhist)
		e->match = m;
}

const char *
ed_search_match(const struct editor *e)
{
	return e->searching && e->match < e->nhist ? e->hist[e->match] : NULL;
}

void
ed_search_end(struct editor *e, bool accept)
{
	const char *m = ed_search_match(e);

	e->searching = false;
	if (accept && m != NULL) {
		ed_set(e, m);
		e->hpos = e->match;
	} else
		ed_set(e, e->draft ? e->draft : "");
	free(e->draft);
	e->draft = NULL;
	buf_reset(&e->query);
}

size_t
ed_complete(struct editor *e, const char *const *names, size_t n, struct buf *hint)
{
	const char *t = ed_text(e), *first = NULL;
	size_t tl = e->text.len, i, count = 0, common = 0;

	if (tl == 0 || t[0] != '/' || strpbrk(t, " \n") != NULL)
		return 0;
	for (i = 0; i < n; i++) {
		size_t k = 0;

		if (strncmp(names[i], t, tl) != 0)
			continue;
		if (hint != NULL) {
			if (count > 0)
				buf_putc(hint, ' ');
			buf_puts(hint, names[i]);
		}
		if (first == NULL) {
			first = names[i];
			common = strlen(first);
		} else {
			while (k < common && first[k] == names[i][k])
				k++;
			common = k;
		}
		count++;
	}
	if (count == 1) {
		char *s = xmalloc(strlen(first) + 2);

		memcpy(s, first, strlen(first));
		memcpy(s + strlen(first), " ", 2);
		ed_set(e, s);
		free(s);
	} else if (count > 1 && common > tl) {
		char *s = xstrndup(first, common);

		ed_set(e, s);
		free(s);
	}
	return count;
}

static void
ed_layout_push(struct ed_layout *lo, size_t start, size_t end, unsigned line)
{
	if (lo->nrows == lo->cap) {
		lo->cap = lo->cap ? lo->cap * 2 : 8;
		lo->rows = xreallocarray(lo->rows, lo->cap, sizeof *lo->rows);
		lo->line_of = xreallocarray(lo->line_of, lo->cap, sizeof *lo->line_of);
	}
	lo->rows[lo->nrows].start = (uint32_t)start;
	lo->rows[lo->nrows].end = (uint32_t)end;
	lo->line_of[lo->nrows] = line;
	lo->nrows++;
}

void
ed_layout(const struct editor *e, int width, int prompt_w, struct ed_layout *lo)
{
	const char *s = ed_text(e);
	size_t ls = 0, n = e->text.len;
	int avail = width - prompt_w - 1;
	unsigned line = 0;
	struct wrap_row *rows = NULL;
	uint32_t cap = 0;

	lo->nrows = 0;
	lo->cur_row = 0;
	lo->cur_col = prompt_w;
	if (avail < 1)
		avail = 1;
	for (;;) {
		size_t le = ls;
		uint32_t nr, k;

		while (le < n && s[le] != '\n')
			le++;
		nr = wrap_text(s, le, ls, avail, avail, true, &rows, &cap);
		for (k = 0; k < nr; k++) {
			bool last = k + 1 == nr;

			if (e->cur >= rows[k].start && (e->cur < rows[k].end ||
			    (e->cur == rows[k].end && last))) {
				lo->cur_row = (int)lo->nrows;
				lo->cur_col = prompt_w + (int)wrap_width(s + rows[k].start, e->cur - rows[k].start);
			}
			ed_layout_push(lo, rows[k].start, rows[k].end, line);
		}
		if (le >= n)
			break;
		ls = le + 1;
		line++;
	}
	free(rows);
}

void
ed_layout_release(struct ed_layout *lo)
{
	free(lo->rows);
	free(lo->line_of);
	memset(lo, 0, sizeof *lo);
}
