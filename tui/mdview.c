/* Markdown rendering with md4c: see mdview.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <md4c.h>

#include "buf.h"
#include "mdline.h"
#include "mdview.h"
#include "synhl.h"
#include "theme.h"
#include "utf8.h"
#include "wrap.h"
#include "xalloc.h"

#define MDR_MAXDEPTH	32
#define MDR_MAXSPANS	32
#define MDR_CELL_MAX	48
#define MDR_FLAGS	(MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS | \
			 MD_FLAG_NOHTML | MD_FLAG_PERMISSIVEURLAUTOLINKS | \
			 MD_FLAG_PERMISSIVEWWWAUTOLINKS)

/* A container: a quote, a list or a list item. */
struct mdr_box {
	MD_BLOCKTYPE	 kind;
	bool		 tight;		/* lists */
	unsigned	 next;		/* ordered lists: the next item's number */
	char		 delim;
	char		 marker[32];	/* items: drawn on the item's first line */
	bool		 marked;
	bool		 content;	/* a block was emitted inside */
};

struct mdr_span {
	uint8_t		 role, attr;
};

struct mdr_table {
	struct sline	*cells;		/* rows * cols, row-major */
	MD_ALIGN	*align;
	unsigned	 cols, rows, caprows;
	unsigned	 head_rows;
	int		 row, col;	/* the cell being filled */
};

struct mdr {
	struct slvec	*out;
	struct mdr_box	 box[MDR_MAXDEPTH];
	int		 nbox, nover;
	bool		 top_content;
	MD_BLOCKTYPE	 leaf;		/* MD_BLOCK_DOC when outside P, H, CODE and cells */
	ssize_t		 cur;		/* the open line in out, or -1 */
	struct mdr_span	 span[MDR_MAXSPANS];
	int		 nspan, spanover;
	uint8_t		 role, attr;
	char		*href;
	uint32_t	 link_start;
	struct buf	 code;
	char		 lang[64];
	struct mdr_table *table;
	size_t		 base;		/* out's lines before this render */
	bool		 sep_pending;	/* a top-level block began after a line: gap before its first */
	int		 width;		/* the pane's columns; 0: tables take their natural width */
	bool		 tables;	/* a table was drawn (its layout depends on width) */
};

static void
mdr_mark_content(struct mdr *r)
{
	int i;

	r->top_content = true;
	for (i = 0; i < r->nbox; i++)
		r->box[i].content = true;
}

static bool
mdr_in_quote(const struct mdr *r)
{
	int i;

	for (i = 0; i < r->nbox; i++)
		if (r->box[i].kind == MD_BLOCK_QUOTE)
			return true;
	return false;
}

/*
 * Start a line with the containers' prefixes: quote bars, and an item's
 * marker on its first line (spaces after).  blank: a separator line, which
 * draws the quote bars only and leaves markers for the item's content.
 */
static struct sline *
mdr_line(struct mdr *r, bool blank)
{
	struct buf cont = BUF_INIT(BUF_NOLIMIT);
	struct sline *l;
	int i, nbox;

	/* The gap before a top-level block, drawn once the block draws a line. */
	if (r->sep_pending) {
		r->sep_pending = false;
		nbox = r->nbox;
		r->nbox = 0;
		mdr_line(r, true);
		r->nbox = nbox;
	}
	l = slvec_push(r->out);

	for (i = 0; i < r->nbox; i++) {
		struct mdr_box *b = &r->box[i];
		size_t w, k;

		if (b->kind == MD_BLOCK_QUOTE) {
			sline_adds(l, blank && i == r->nbox - 1 ? "\xE2\x94\x82" : "\xE2\x94\x82 ", ROLE_QUOTE, 0);
			buf_puts(&cont, "\xE2\x94\x82 ");
		} else if (b->kind == MD_BLOCK_LI) {
			w = wrap_width(b->marker, strlen(b->marker));
			if (!blank && !b->marked) {
				sline_adds(l, b->marker, ROLE_ACCENT, 0);
				b->marked = true;
			} else if (!blank) {
				for (k = 0; k < w; k++)
					sline_add(l, " ", 1, ROLE_TEXT, 0);
			}
			for (k = 0; k < w; k++)
				buf_putc(&cont, ' ');
		}
	}
	if (blank) {
		/* Trailing spaces of a separator are noise. */
		while (l->len > 0 && l->text[l->len - 1] == ' ')
			l->text[--l->len] = '\0';
	}
	sline_mark_body(l);
	sline_set_cont(l, buf_cstr(&cont), mdr_in_quote(r) ? ROLE_QUOTE : ROLE_TEXT);
	buf_release(&cont);
	return l;
}

/* A new block begins: separate it from the one before in its container. */
static void
mdr_block_start(struct mdr *r)
{
	bool sep;

	r->cur = -1;
	/*
	 * Only between lines: a block that draws none (an empty heading or
	 * quote) leaves no gap, as a range that draws none leaves none.
	 */
	if (r->nbox == 0)
		sep = r->top_content && r->out->n > r->base;
	else {
		struct mdr_box *b = &r->box[r->nbox - 1];

		sep = b->content;
		if (b->kind == MD_BLOCK_LI && r->nbox >= 2 && r->box[r->nbox - 2].tight)
			sep = false;
		if ((b->kind == MD_BLOCK_UL || b->kind == MD_BLOCK_OL) && b->tight)
			sep = false;
	}
	if (sep && r->nbox == 0)
		r->sep_pending = true;
	else if (sep)
		mdr_line(r, true);
	mdr_mark_content(r);
}

/* The line text goes to: the current table cell, or the open output line. */
static struct sline *
mdr_target(struct mdr *r)
{
	if (r->table != NULL && r->table->row >= 0 && r->table->col >= 0 &&
	    (unsigned)r->table->col < r->table->cols)
		return &r->table->cells[r->table->row * r->table->cols + (unsigned)r->table->col];
	if (r->table != NULL)
		return NULL;
	if (r->cur < 0) {
		if (r->leaf == MD_BLOCK_DOC)
			mdr_mark_content(r);
		mdr_line(r, false);
		r->cur = (ssize_t)r->out->n - 1;
	}
	return &r->out->v[r->cur];
}

static void
mdr_put(struct mdr *r, const char *s, size_t n)
{
	struct sline *l = mdr_target(r);

	if (l != NULL)
		sline_add(l, s, n, r->role, r->attr);
}

static uint8_t
mdr_base_role(const struct mdr *r)
{
	if (r->leaf == MD_BLOCK_H)
		return ROLE_HEADING;
	return mdr_in_quote(r) ? ROLE_QUOTE : ROLE_TEXT;
}

static void
mdr_span_push(struct mdr *r, int role, unsigned add)
{
	if (r->nspan == MDR_MAXSPANS) {
		r->spanover++;
		return;
	}
	r->span[r->nspan].role = r->role;
	r->span[r->nspan].attr = r->attr;
	r->nspan++;
	if (role >= 0)
		r->role = (uint8_t)role;
	r->attr |= (uint8_t)add;
}

static void
mdr_span_pop(struct mdr *r)
{
	if (r->spanover > 0) {
		r->spanover--;
		return;
	}
	if (r->nspan == 0)
		return;
	r->nspan--;
	r->role = r->span[r->nspan].role;
	r->attr = r->span[r->nspan].attr;
}

static void
mdr_attr_copy(const MD_ATTRIBUTE *a, char *out, size_t size)
{
	size_t n = a->size < size - 1 ? a->size : size - 1;

	if (n > 0)
		memcpy(out, a->text, n);
	out[n] = '\0';
}

static void
mdr_box_push(struct mdr *r, MD_BLOCKTYPE kind, const void *detail)
{
	struct mdr_box *b, *list;
	int depth = 0, i;

	if (r->nbox == MDR_MAXDEPTH) {
		r->nover++;
		return;
	}
	b = &r->box[r->nbox];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	if (kind == MD_BLOCK_UL) {
		b->tight = ((const MD_BLOCK_UL_DETAIL *)detail)->is_tight != 0;
	} else if (kind == MD_BLOCK_OL) {
		const MD_BLOCK_OL_DETAIL *d = detail;

		b->tight = d->is_tight != 0;
		b->next = d->start;
		b->delim = d->mark_delimiter;
	} else if (kind == MD_BLOCK_LI && r->nbox > 0) {
		const MD_BLOCK_LI_DETAIL *d = detail;
		static const char *const bullets[] = { "\xE2\x80\xA2", "\xE2\x97\xA6", "\xE2\x96\xAA" };
		const char *task = !d->is_task ? "" : d->task_mark == ' ' ? "[ ] " : "[x] ";

		list = &r->box[r->nbox - 1];
		for (i = 0; i < r->nbox; i++)
			if (r->box[i].kind == MD_BLOCK_UL || r->box[i].kind == MD_BLOCK_OL)
				depth++;
		if (list->kind == MD_BLOCK_OL)
			snprintf(b->marker, sizeof b->marker, "%u%c %s", list->next++,
			    list->delim ? list->delim : '.', task);
		else
			snprintf(b->marker, sizeof b->marker, "%s %s", bullets[(depth + 2) % 3], task);
	}
	r->nbox++;
}

static void
mdr_box_pop(struct mdr *r)
{
	if (r->nover > 0) {
		r->nover--;
		return;
	}
	if (r->nbox > 0)
		r->nbox--;
}

static void
mdr_table_begin(struct mdr *r, const MD_BLOCK_TABLE_DETAIL *d)
{
	struct mdr_table *t = xcalloc(1, sizeof *t);

	t->cols = d->col_count > 0 ? d->col_count : 1;
	if (t->cols > 64)
		t->cols = 64;
	t->head_rows = d->head_row_count;
	t->align = xcalloc(t->cols, sizeof *t->align);
	t->row = t->col = -1;
	r->table = t;
}

static void
mdr_table_row(struct mdr_table *t)
{
	unsigned i;

	if (t->rows == t->caprows) {
		t->caprows = t->caprows ? t->caprows * 2 : 8;
		t->cells = xreallocarray(t->cells, (size_t)t->caprows * t->cols, sizeof *t->cells);
	}
	for (i = 0; i < t->cols; i++)
		sline_init(&t->cells[(size_t)t->rows * t->cols + i]);
	t->row = (int)t->rows++;
	t->col = -1;
}

static void
mdr_table_free(struct mdr_table *t)
{
	size_t i;

	for (i = 0; i < (size_t)t->rows * t->cols; i++)
		sline_release(&t->cells[i]);
	free(t->cells);
	free(t->align);
	free(t);
}

/* A border line: left, fill and joint glyphs for each column. */
static void
mdr_table_rule(struct mdr *r, const int *w, unsigned cols, const char *left, const char *mid,
    const char *right)
{
	struct sline *l = mdr_line(r, false);
	unsigned c;
	int k;

	sline_adds(l, left, ROLE_BORDER, 0);
	for (c = 0; c < cols; c++) {
		for (k = 0; k < w[c] + 2; k++)
			sline_adds(l, "\xE2\x94\x80", ROLE_BORDER, 0);
		sline_adds(l, c + 1 < cols ? mid : right, ROLE_BORDER, 0);
	}
	l->flags |= SL_NOWRAP;
}

static void
mdr_pad(struct sline *l, int n)
{
	for (; n > 0; n--)
		sline_add(l, " ", 1, ROLE_TEXT, 0);
}

/* One table row: each cell wrapped in its column, as many lines as the tallest. */
static void
mdr_table_emit_row(struct mdr *r, unsigned row, const int *w)
{
	struct mdr_table *t = r->table;
	struct wrap_row *rows[64] = { NULL };
	uint32_t caps[64] = { 0 }, n[64] = { 0 }, height = 1, k;
	unsigned c;

	for (c = 0; c < t->cols; c++) {
		struct sline *cell = &t->cells[(size_t)row * t->cols + c];

		n[c] = wrap_text(cell->text ? cell->text : "", cell->len, 0, w[c], w[c], false,
		    &rows[c], &caps[c]);
		if (n[c] > height)
			height = n[c];
	}
	for (k = 0; k < height; k++) {
		struct sline *l = mdr_line(r, false);

		sline_adds(l, "\xE2\x94\x82", ROLE_BORDER, 0);
		for (c = 0; c < t->cols; c++) {
			struct sline *cell = &t->cells[(size_t)row * t->cols + c];
			int cw = 0, gap;

			sline_add(l, " ", 1, ROLE_TEXT, 0);
			if (k < n[c] && cell->text != NULL)
				cw = (int)wrap_width(cell->text + rows[c][k].start, rows[c][k].end - rows[c][k].start);
			gap = w[c] - cw;
			if (t->align[c] == MD_ALIGN_RIGHT)
				mdr_pad(l, gap);
			else if (t->align[c] == MD_ALIGN_CENTER)
				mdr_pad(l, gap / 2);
			if (k < n[c])
				sline_add_slice(l, cell, rows[c][k].start, rows[c][k].end);
			if (t->align[c] == MD_ALIGN_CENTER)
				mdr_pad(l, gap - gap / 2);
			else if (t->align[c] != MD_ALIGN_RIGHT)
				mdr_pad(l, gap);
			sline_adds(l, " \xE2\x94\x82", ROLE_BORDER, 0);
		}
		l->flags |= SL_NOWRAP;
	}
	for (c = 0; c < t->cols; c++)
		free(rows[c]);
}

/* Columns the containers' prefixes take on a line (quote bars, item markers). */
static int
mdr_prefix_width(const struct mdr *r)
{
	int i, w = 0;

	for (i = 0; i < r->nbox; i++) {
		if (r->box[i].kind == MD_BLOCK_QUOTE)
			w += 2;
		else if (r->box[i].kind == MD_BLOCK_LI)
			w += (int)wrap_width(r->box[i].marker, strlen(r->box[i].marker));
	}
	return w;
}

/*
 * Share avail columns among the columns fairly: a column that needs no
 * more than an equal share keeps its width, the others split what is left
 * equally (the first ones get the odd columns).  Each gets at least 1.
 */
static void
mdr_table_fit(int *w, unsigned cols, int avail)
{
	bool fixed[64] = { false };
	unsigned c, left = cols;
	int budget = avail, share, extra;
	bool again = true;

	if (avail < (int)cols) {
		for (c = 0; c < cols; c++)
			w[c] = 1;
		return;
	}
	while (again && left > 0) {
		again = false;
		share = budget / (int)left;
		for (c = 0; c < cols; c++) {
			if (!fixed[c] && w[c] <= share) {
				fixed[c] = true;
				budget -= w[c];
				left--;
				again = true;
			}
		}
	}
	if (left == 0)
		return;
	share = budget / (int)left;
	extra = budget % (int)left;
	for (c = 0; c < cols; c++) {
		if (fixed[c])
			continue;
		w[c] = share + (extra > 0);
		if (extra > 0)
			extra--;
	}
}

static void
mdr_table_end(struct mdr *r)
{
	struct mdr_table *t = r->table;
	int w[64], sum = 0, avail;
	unsigned c, row;

	for (c = 0; c < t->cols; c++) {
		w[c] = 3;
		for (row = 0; row < t->rows; row++) {
			const struct sline *cell = &t->cells[(size_t)row * t->cols + c];
			int cw = (int)sline_width(cell);

			if (cw > w[c])
				w[c] = cw;
		}
		if (r->width <= 0 && w[c] > MDR_CELL_MAX)
			w[c] = MDR_CELL_MAX;
		sum += w[c];
	}
	/* "│ cell │ cell │": one border, then a space, the cell, a space and a border each. */
	if (r->width > 0) {
		avail = r->width - mdr_prefix_width(r) - 1 - 3 * (int)t->cols;
		if (sum > avail)
			mdr_table_fit(w, t->cols, avail);
	}
	r->tables = true;
	mdr_table_rule(r, w, t->cols, "\xE2\x94\x8C", "\xE2\x94\xAC", "\xE2\x94\x90");
	for (row = 0; row < t->rows; row++) {
		if (row == t->head_rows && row > 0)
			mdr_table_rule(r, w, t->cols, "\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4");
		mdr_table_emit_row(r, row, w);
	}
	mdr_table_rule(r, w, t->cols, "\xE2\x94\x94", "\xE2\x94\xB4", "\xE2\x94\x98");
	mdr_table_free(t);
	r->table = NULL;
}

/*
 * Expand tabs to 4-column stops from the start of the code line, in role;
 * *col is the column reached so far.
 */
static void
mdr_code_piece(struct sline *l, const char *s, size_t n, size_t *col, int role)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		while (j < n && s[j] != '\t' && s[j] != '\0')
			j++;
		if (l != NULL)
			sline_add(l, s + i, j - i, role, 0);
		*col += utf8_width(s + i, j - i);
		if (j < n && s[j] == '\0') {
			/* As md4c's code blocks have it (the fast path draws the same). */
			if (l != NULL)
				sline_add(l, "\xEF\xBF\xBD", 3, role, 0);
			(*col)++;
			j++;
		} else if (j < n) {
			size_t pad = 4 - *col % 4;

			*col += pad;
			while (l != NULL && pad-- > 0)
				sline_add(l, " ", 1, role, 0);
			j++;
		}
		i = j;
	}
}

/* A code line, highlighted by syn (NULL: plain); the columns it takes. */
static size_t
mdr_code_line(struct sline *l, const char *s, size_t n, const struct synhl_syntax *syn, uint64_t *state)
{
	const struct synhl_run *runs;
	size_t col = 0, k, i;

	if (syn == NULL) {
		mdr_code_piece(l, s, n, &col, ROLE_CODE);
		return col;
	}
	k = synhl_line(syn, s, n, state, &runs);
	for (i = 0; i < k; i++) {
		size_t from = runs[i].off, to = i + 1 < k ? runs[i + 1].off : n;

		mdr_code_piece(l, s + from, to - from, &col, runs[i].role == SYNHL_BASE ? ROLE_CODE : runs[i].role);
	}
	return col;
}

/* The columns of a code line once its tabs are expanded. */
static size_t
mdr_code_cols(const char *s, size_t n)
{
	size_t col = 0;

	mdr_code_piece(NULL, s, n, &col, ROLE_CODE);
	return col;
}

static void
mdr_rule(struct sline *l, size_t cols)
{
	while (cols-- > 0)
		sline_adds(l, "\xE2\x94\x80", ROLE_CODE_FRAME, 0);
}

/*
 * "╭─ lang ─────": filled to the pane's edge (inner 0: the block is wider
 * than the pane), or closed at inner + 4 columns with "╮".
 */
static void
mdr_code_top(struct sline *l, const char *lang, size_t inner)
{
	size_t used = 1;

	sline_adds(l, "\xE2\x95\xAD\xE2\x94\x80", ROLE_CODE_FRAME, 0);
	if (lang[0] != '\0') {
		sline_add(l, " ", 1, ROLE_CODE_FRAME, 0);
		sline_adds(l, lang, ROLE_CODE_FRAME, TA_BOLD);
		sline_add(l, " ", 1, ROLE_CODE_FRAME, 0);
		used += utf8_width(lang, strlen(lang)) + 2;
	}
	if (inner == 0) {
		sline_adds(l, "\xE2\x94\x80", ROLE_CODE_FRAME, 0);
		l->flags |= SL_FILL | SL_NOWRAP;
		return;
	}
	mdr_rule(l, inner + 2 > used ? inner + 2 - used : 1);
	sline_adds(l, "\xE2\x95\xAE", ROLE_CODE_FRAME, 0);
	l->flags |= SL_NOWRAP;
}

static void
mdr_code_bottom(struct sline *l, size_t inner)
{
	sline_adds(l, "\xE2\x95\xB0\xE2\x94\x80", ROLE_CODE_FRAME, 0);
	l->flags |= SL_NOWRAP;
	if (inner == 0) {
		l->flags |= SL_FILL;
		return;
	}
	mdr_rule(l, inner + 1);
	sline_adds(l, "\xE2\x95\xAF", ROLE_CODE_FRAME, 0);
}

/*
 * The inner width of a code block's box: its widest line, at least its
 * label; 0 when the box would not fit the pane (then the frame is open on
 * the right and the lines wrap).
 */
static size_t
mdr_code_inner(struct mdr *r, const char *s, const char *end)
{
	size_t inner = r->lang[0] != '\0' ? utf8_width(r->lang, strlen(r->lang)) + 2 : 1;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t c = mdr_code_cols(s, (size_t)(le - s));

		if (c > inner)
			inner = c;
		s = nl ? nl + 1 : end;
	}
	/* The box is laid out for the pane: a new width lays it out again. */
	if (r->width > 0) {
		r->tables = true;
		if ((int)inner + 4 + mdr_prefix_width(r) > r->width)
			return 0;
	}
	return inner;
}

/* The syntax a block's tag names; without a tag, the one whose header its first line matches. */
static const struct synhl_syntax *
mdr_code_syntax(const char *lang, const char *code, size_t n)
{
	const char *nl;

	if (lang[0] != '\0')
		return synhl_for_lang(lang, strlen(lang));
	if ((nl = memchr(code, '\n', n)) != NULL)
		n = (size_t)(nl - code);
	return n > 0 ? synhl_for_file(NULL, code, n) : NULL;
}

static void
mdr_code_emit(struct mdr *r)
{
	const char *s = buf_cstr(&r->code), *end = s + r->code.len;
	const struct synhl_syntax *syn = mdr_code_syntax(r->lang, s, (size_t)(end - s));
	struct buf cont = BUF_INIT(BUF_NOLIMIT);
	struct sline *l = mdr_line(r, false);
	size_t inner = mdr_code_inner(r, s, end);
	uint64_t state = 0;

	mdr_code_top(l, r->lang, inner);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t cols;

		l = mdr_line(r, false);
		sline_adds(l, "\xE2\x94\x82 ", ROLE_CODE_FRAME, 0);
		sline_mark_body(l);
		buf_reset(&cont);
		buf_puts(&cont, l->cont ? l->cont : "");
		buf_puts(&cont, "\xE2\x94\x82 ");
		sline_set_cont(l, buf_cstr(&cont), ROLE_CODE_FRAME);
		cols = mdr_code_line(l, s, (size_t)(le - s), syn, &state);
		if (inner > 0) {
			for (; cols < inner; cols++)
				sline_add(l, " ", 1, ROLE_CODE, 0);
			sline_adds(l, " \xE2\x94\x82", ROLE_CODE_FRAME, 0);
		}
		l->flags |= SL_CHARWRAP;
		s = nl ? nl + 1 : end;
	}
	l = mdr_line(r, false);
	mdr_code_bottom(l, inner);
	buf_reset(&r->code);
	buf_release(&cont);
}

static int
mdr_enter_block(MD_BLOCKTYPE type, void *detail, void *arg)
{
	struct mdr *r = arg;

	switch (type) {
	case MD_BLOCK_DOC:
		break;
	case MD_BLOCK_QUOTE:
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		mdr_block_start(r);
		mdr_box_push(r, type, detail);
		break;
	case MD_BLOCK_LI:
		r->cur = -1;
		if (r->nbox > 0 && !r->box[r->nbox - 1].tight && r->box[r->nbox - 1].content)
			mdr_line(r, true);
		mdr_mark_content(r);
		mdr_box_push(r, type, detail);
		r->role = mdr_base_role(r);
		r->attr = 0;
		break;
	case MD_BLOCK_HR: {
		struct sline *l;

		mdr_block_start(r);
		l = mdr_line(r, false);
		sline_adds(l, "\xE2\x94\x80", ROLE_DIM, 0);
		l->flags |= SL_FILL | SL_NOWRAP;
		break;
	}
	case MD_BLOCK_H:
		mdr_block_start(r);
		r->leaf = type;
		r->role = ROLE_HEADING;
		r->attr = ((const MD_BLOCK_H_DETAIL *)detail)->level == 1 ? TA_BOLD | TA_UNDERLINE : TA_BOLD;
		break;
	case MD_BLOCK_P:
		if (r->table != NULL)
			break;
		mdr_block_start(r);
		r->leaf = type;
		r->role = mdr_base_role(r);
		r->attr = 0;
		break;
	case MD_BLOCK_CODE:
		mdr_block_start(r);
		r->leaf = type;
		mdr_attr_copy(&((const MD_BLOCK_CODE_DETAIL *)detail)->lang, r->lang, sizeof r->lang);
		buf_reset(&r->code);
		break;
	case MD_BLOCK_HTML:
		mdr_block_start(r);
		r->leaf = MD_BLOCK_P;
		r->role = mdr_base_role(r);
		r->attr = 0;
		break;
	case MD_BLOCK_TABLE:
		mdr_block_start(r);
		mdr_table_begin(r, detail);
		break;
	case MD_BLOCK_THEAD:
	case MD_BLOCK_TBODY:
		break;
	case MD_BLOCK_TR:
		mdr_table_row(r->table);
		break;
	case MD_BLOCK_TH:
	case MD_BLOCK_TD:
		if (r->table != NULL && r->table->row >= 0) {
			r->table->col++;
			if (r->table->col >= 0 && (unsigned)r->table->col < r->table->cols)
				r->table->align[r->table->col] = ((const MD_BLOCK_TD_DETAIL *)detail)->align;
		}
		r->role = ROLE_TEXT;
		r->attr = type == MD_BLOCK_TH ? TA_BOLD : 0;
		break;
	}
	return 0;
}

static int
mdr_leave_block(MD_BLOCKTYPE type, void *detail, void *arg)
{
	struct mdr *r = arg;

	switch (type) {
	case MD_BLOCK_QUOTE:
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		r->cur = -1;
		mdr_box_pop(r);
		break;
	case MD_BLOCK_LI:
		if (r->nover == 0 && r->nbox > 0 && !r->box[r->nbox - 1].marked)
			mdr_line(r, false);
		r->cur = -1;
		mdr_box_pop(r);
		break;
	case MD_BLOCK_CODE:
		mdr_code_emit(r);
		r->leaf = MD_BLOCK_DOC;
		r->cur = -1;
		break;
	case MD_BLOCK_TABLE:
		if (r->table != NULL)
			mdr_table_end(r);
		r->cur = -1;
		break;
	case MD_BLOCK_H:
	case MD_BLOCK_P:
	case MD_BLOCK_HTML:
		r->leaf = MD_BLOCK_DOC;
		r->cur = -1;
		r->role = mdr_base_role(r);
		r->attr = 0;
		break;
	default:
		break;
	}
	(void)detail;
	return 0;
}

static int
mdr_enter_span(MD_SPANTYPE type, void *detail, void *arg)
{
	struct mdr *r = arg;
	struct sline *l;

	switch (type) {
	case MD_SPAN_EM:
		mdr_span_push(r, -1, TA_ITALIC);
		break;
	case MD_SPAN_STRONG:
		mdr_span_push(r, -1, TA_BOLD);
		break;
	case MD_SPAN_DEL:
		mdr_span_push(r, -1, TA_STRIKE);
		break;
	case MD_SPAN_U:
		mdr_span_push(r, -1, TA_UNDERLINE);
		break;
	case MD_SPAN_CODE:
		mdr_span_push(r, ROLE_CODE, 0);
		break;
	case MD_SPAN_A: {
		const MD_SPAN_A_DETAIL *d = detail;

		free(r->href);
		r->href = xmemdup(d->href.text, d->href.size);
		l = mdr_target(r);
		r->link_start = l ? l->len : 0;
		mdr_span_push(r, ROLE_LINK, TA_UNDERLINE);
		break;
	}
	case MD_SPAN_IMG:
		mdr_span_push(r, ROLE_LINK, 0);
		mdr_put(r, "[image: ", 8);
		break;
	default:
		mdr_span_push(r, -1, 0);
		break;
	}
	return 0;
}

/* After a link: its address, unless the text already says it. */
static void
mdr_link_end(struct mdr *r)
{
	struct sline *l = mdr_target(r);
	size_t tl, hl;

	if (l == NULL || r->href == NULL || r->href[0] == '\0')
		return;
	tl = l->len >= r->link_start ? l->len - r->link_start : 0;
	hl = strlen(r->href);
	if (tl <= hl && memcmp(r->href + hl - tl, l->text + r->link_start, tl) == 0)
		return;
	sline_adds(l, " (", ROLE_DIM, 0);
	sline_adds(l, r->href, ROLE_DIM, 0);
	sline_adds(l, ")", ROLE_DIM, 0);
}

static int
mdr_leave_span(MD_SPANTYPE type, void *detail, void *arg)
{
	struct mdr *r = arg;

	if (type == MD_SPAN_IMG)
		mdr_put(r, "]", 1);
	mdr_span_pop(r);
	if (type == MD_SPAN_A) {
		mdr_link_end(r);
		free(r->href);
		r->href = NULL;
	}
	(void)detail;
	return 0;
}

/* The HTML5 named character references, generated: see scripts/gen-entities.py. */
static const struct mdr_entity {
	const char	*name;		/* without '&' and ';' */
	const char	*utf8;
} mdr_entities[] = {
#include "mdentities.inc"
};

static int
mdr_entity_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct mdr_entity *)elem)->name);
}

static void
mdr_entity(struct mdr *r, const char *s, size_t n)
{
	const struct mdr_entity *e;
	char tmp[16], out[4], name[40], *end;
	unsigned long cp = 0;

	if (n > 2 && n < sizeof tmp && s[1] == '#') {
		memcpy(tmp, s, n);
		tmp[n - 1] = '\0';
		if (tmp[2] == 'x' || tmp[2] == 'X')
			cp = strtoul(tmp + 3, &end, 16);
		else
			cp = strtoul(tmp + 2, &end, 10);
		if (*end != '\0' || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			cp = 0xFFFD;
		mdr_put(r, out, utf8_encode((uint32_t)cp, out));
		return;
	}
	/* "&name;": md4c only reports the shape, the table says whether it is one. */
	if (n > 2 && n - 2 < sizeof name && s[0] == '&' && s[n - 1] == ';') {
		memcpy(name, s + 1, n - 2);
		name[n - 2] = '\0';
		e = bsearch(name, mdr_entities, sizeof mdr_entities / sizeof mdr_entities[0],
		    sizeof mdr_entities[0], mdr_entity_cmp);
		if (e != NULL) {
			mdr_put(r, e->utf8, strlen(e->utf8));
			return;
		}
	}
	mdr_put(r, s, n);
}

/*
 * Text that may hold NUL bytes (md4c passes them raw in code): each one
 * becomes U+FFFD, as CommonMark says, to the code buffer or the line.
 */
static void
mdr_put_text(struct mdr *r, const char *s, size_t n, bool code)
{
	while (n > 0) {
		const char *z = memchr(s, '\0', n);
		size_t k = z != NULL ? (size_t)(z - s) : n;

		if (code)
			buf_append(&r->code, s, k);
		else
			mdr_put(r, s, k);
		if (z == NULL)
			break;
		if (code)
			buf_append(&r->code, "\xEF\xBF\xBD", 3);
		else
			mdr_put(r, "\xEF\xBF\xBD", 3);
		s += k + 1;
		n -= k + 1;
	}
}

static int
mdr_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *arg)
{
	struct mdr *r = arg;

	if (r->leaf == MD_BLOCK_CODE) {
		/* md4c reports a NUL in code twice: as NULLCHAR and in the text. */
		if (type != MD_TEXT_NULLCHAR)
			mdr_put_text(r, s, n, true);
		return 0;
	}
	switch (type) {
	case MD_TEXT_NULLCHAR:
		mdr_put(r, "\xEF\xBF\xBD", 3);
		break;
	case MD_TEXT_BR:
		if (r->table != NULL)
			mdr_put(r, " ", 1);
		else
			r->cur = -1;
		break;
	case MD_TEXT_SOFTBR:
		mdr_put(r, " ", 1);
		break;
	case MD_TEXT_ENTITY:
		mdr_entity(r, s, n);
		break;
	default:
		mdr_put_text(r, s, n, false);
		break;
	}
	return 0;
}

/* Render with tables fitted to width columns (0: their natural width); true when a table was drawn. */
static bool
mdview_render_at(const char *s, size_t n, int width, struct slvec *out)
{
	struct buf wide = BUF_INIT(BUF_NOLIMIT);
	MD_PARSER p;
	struct mdr r;
	bool tables;

	memset(&p, 0, sizeof p);
	p.flags = MDR_FLAGS;
	p.enter_block = mdr_enter_block;
	p.leave_block = mdr_leave_block;
	p.enter_span = mdr_enter_span;
	p.leave_span = mdr_leave_span;
	p.text = mdr_text;
	memset(&r, 0, sizeof r);
	r.out = out;
	r.cur = -1;
	r.leaf = MD_BLOCK_DOC;
	r.width = width;
	r.base = out->n;
	buf_init(&r.code, BUF_NOLIMIT);
	if (n > 0 && memchr(s, '|', n) != NULL && mdline_widen_delims(s, n, &wide)) {
		s = wide.data;
		n = wide.len;
	}
	if (n > 0)
		md_parse(s, (MD_SIZE)n, &p, &r);
	/* An aborted parse (out of memory inside md4c) can leave a table open. */
	if (r.table != NULL)
		mdr_table_free(r.table);
	free(r.href);
	buf_release(&r.code);
	buf_release(&wide);
	tables = r.tables;
	return tables;
}

void
mdview_render(const char *s, size_t n, struct slvec *out)
{
	mdview_render_at(s, n, 0, out);
}

void
mdview_render_width(const char *s, size_t n, int width, struct slvec *out)
{
	mdview_render_at(s, n, width, out);
}

/* ---- streaming ---- */

void
mdview_init(struct mdview *m)
{
	memset(m, 0, sizeof *m);
	buf_init(&m->src, BUF_NOLIMIT);
	buf_init(&m->defs, BUF_NOLIMIT);
	slvec_init(&m->lines);
}

void
mdview_release(struct mdview *m)
{
	buf_release(&m->defs);
	buf_release(&m->src);
	slvec_release(&m->lines);
	memset(m, 0, sizeof *m);
}

/*
 * Render src[from..to) at the view's width.  The link reference
 * definitions seen anywhere so far go before it, then a blank line (they
 * draw nothing, and an open fence at the end cannot swallow them), so a
 * reference resolves whichever block its definition arrives in, and the
 * first definition of a label wins, as in the whole text.
 */
static void
mdview_render_range(struct mdview *m, size_t from, size_t to, struct slvec *out)
{
	struct slvec tmp;
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	const char *s = m->src.data + from;
	size_t n = to - from;

	slvec_init(&tmp);
	if (m->defs.len > 0) {
		buf_append(&text, m->defs.data, m->defs.len);
		buf_putc(&text, '\n');
		buf_append(&text, s, n);
		s = text.data;
		n = text.len;
	}
	if (mdview_render_at(s, n, m->width, &tmp))
		m->tables = true;
	buf_release(&text);
	if (tmp.n > 0 && out->n > 0)
		slvec_push(out);
	slvec_move(out, &tmp);
	slvec_release(&tmp);
}

/* src[stable..at) is final: render it for good. */
static void
mdview_commit(struct mdview *m, size_t at)
{
	slvec_truncate(&m->lines, m->ncommitted);
	mdview_render_range(m, m->stable, at, &m->lines);
	m->ncommitted = m->lines.n;
	m->stable = at;
	m->fast = false;
}

/*
 * A link reference definition on one line ("[label]: destination", up to
 * 3 spaces before it), as md4c reads it: a line that draws nothing alone.
 */
static bool
mdview_ref_def(const char *s, size_t n)
{
	struct slvec tmp;
	size_t i = 0;
	bool def;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	if (i >= n || s[i] != '[' || i + 1 >= n || s[i + 1] == '^')
		return false;
	for (i++; i < n && s[i] != ']'; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '[')
			return false;
	}
	if (i + 1 >= n || s[i + 1] != ':')
		return false;
	slvec_init(&tmp);
	mdview_render_at(s, n, 0, &tmp);
	def = tmp.n == 0;
	slvec_release(&tmp);
	return def;
}

/* Scan the complete lines that arrived for stable boundaries. */
static void
mdview_scan(struct mdview *m)
{
	const char *s = m->src.data;

	while (m->scan < m->src.len) {
		const char *ls = s + m->scan;
		const char *nl;
		size_t n, flen;
		bool info, was_open;
		char fc;

		/* Search a long unfinished line only once per byte. */
		if (m->seek < m->scan)
			m->seek = m->scan;
		nl = memchr(s + m->seek, '\n', m->src.len - m->seek);
		if (nl == NULL) {
			m->seek = m->src.len;
			return;
		}
		n = (size_t)(nl - ls);
		if (m->fence_char != 0) {
			if (mdline_fence(ls, n, &fc, &flen, &info) && fc == m->fence_char &&
			    flen >= m->fence_len && !info)
				m->fence_char = 0;
			m->prev_cells = 0;
			m->prev_open = false;
		} else if (mdline_blank(ls, n)) {
			m->prev_blank = true;
			m->prev_def = false;
			m->prev_cells = 0;
			m->prev_open = false;
			m->table = false;
		} else {
			/* A definition cannot interrupt a paragraph: it follows a blank line, a closed block or another. */
			bool def = (!m->prev_open || m->prev_def) && !m->table &&
			    mdview_ref_def(ls, n);

			bool fence = mdline_fence(ls, n, &fc, &flen, &info);

			/*
			 * After a blank line, a line in column 0 that is not a list item
			 * starts a new top-level block; so does a fence in column 0 (it
			 * closes a paragraph, a list, a quote or a table).
			 */
			if (((m->prev_blank && !mdline_list_marker(ls, n)) || (fence && ls[0] == fc && !m->table)) &&
			    ls[0] != ' ' && ls[0] != '\t' && m->scan > m->stable)
				mdview_commit(m, m->scan);
			was_open = m->prev_open;
			m->prev_blank = false;
			m->prev_def = def;
			if (def) {
				buf_append(&m->defs, ls, n);
				buf_putc(&m->defs, '\n');
				m->defs_new = true;
			}
			/* A delimiter row opens a table only under a header row (not a heading). */
			/*
			 * Only a sure table: a delimiter row under a row that starts a
			 * block at the top (not a heading, item, quote or lazy line).
			 * Taking a table for text only delays a commit; the reverse
			 * would hide a fence.
			 */
			if (m->prev_cells > 0 && mdline_table_delim(ls, n))
				m->table = true;
			/* md4c takes a header row without a pipe too, when the delimiter row has one. */
			m->prev_cells = !was_open && !mdline_list_marker(ls, n) &&
			    ls[0] != '>' && ls[0] != '\t' && !(n >= 4 && memcmp(ls, "    ", 4) == 0) &&
			    (mdline_row_cells(ls, n) > 0 || ls[0] != '#');
			/* A paragraph line may go on (lazily); a heading or a fence does not. */
			m->prev_open = !fence && !(ls[0] == '#' && mdline_row_cells(ls, n) == 0 &&
			    n > 1 && (ls[1] == ' ' || ls[1] == '#'));
			if (m->table)
				fence = false;
			if (fence) {
				m->fence_char = fc;
				m->fence_len = flen;
			}
		}
		m->scan += n + 1;
	}
}

void
mdview_append(struct mdview *m, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (buf_append(&m->src, s, n) == -1)
		fatal("out of memory for a reply");
	m->dirty = true;
	mdview_scan(m);
}

static void
mdview_fast_line(struct mdview *m, const char *s, size_t n, uint64_t *state)
{
	struct sline *l = slvec_push(&m->lines);
	size_t cols;

	/* A CRLF line ends before its CR, as md4c has it. */
	if (n > 0 && s[n - 1] == '\r')
		n--;
	sline_adds(l, "\xE2\x94\x82 ", ROLE_CODE_FRAME, 0);
	sline_mark_body(l);
	sline_set_cont(l, "\xE2\x94\x82 ", ROLE_CODE_FRAME);
	cols = mdr_code_line(l, s, n, m->fast_syn, state);
	if (m->fast_inner > 0) {
		for (; cols < m->fast_inner; cols++)
			sline_add(l, " ", 1, ROLE_CODE, 0);
		sline_adds(l, " \xE2\x94\x82", ROLE_CODE_FRAME, 0);
	}
	l->flags |= SL_CHARWRAP;
}

/* The widest line of s[0..n) (its last line may be unfinished), CRs at the ends left out. */
static size_t
mdview_fast_cols(const char *s, size_t n)
{
	const char *end = s + n, *nl;
	size_t w = 0, c, len;

	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		len = (size_t)((nl ? nl : end) - s);
		if (len > 0 && s[len - 1] == '\r')
			len--;
		if ((c = mdr_code_cols(s, len)) > w)
			w = c;
		s = nl ? nl + 1 : end;
	}
	return w;
}

/*
 * The tail is a code fence still open, starting in column 0: draw only the
 * lines that arrived, as mdr_code_emit would (its box is drawn again when
 * a line widens it).  False when it is not.
 */
static bool
mdview_fast_fence(struct mdview *m)
{
	const char *s = m->src.data + m->stable, *end = m->src.data + m->src.len, *nl;
	struct sline *l;
	size_t flen, want, inner;
	bool info, redraw = false;
	char fc;

	if (m->fence_char == 0 || s[0] != m->fence_char)
		return false;
	/* The unfinished last line closes the fence already (the reply may end there). */
	if (m->scan < m->src.len && m->scan > m->stable &&
	    mdline_fence(m->src.data + m->scan, m->src.len - m->scan, &fc, &flen, &info) &&
	    fc == m->fence_char && flen >= m->fence_len && !info) {
		m->fast = false;
		return false;
	}
	if (!m->fast) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL || !mdline_fence_lang(s, (size_t)(nl - s), m->fast_lang, sizeof m->fast_lang))
			return false;
		slvec_truncate(&m->lines, m->ncommitted);
		if (m->ncommitted > 0)
			slvec_push(&m->lines);
		m->fast_syn = NULL;
		m->fast = true;
		m->fast_open = false;
		m->fast_start = (size_t)(nl + 1 - m->src.data);
		m->fast_base = m->lines.n + 1;
		m->fast_widest = m->fast_lang[0] != '\0' ? utf8_width(m->fast_lang, strlen(m->fast_lang)) + 2 : 1;
		m->fast_off = m->fast_start;
		m->fast_inner = (size_t)-1;
		redraw = true;
	}
	/* The box takes the widest line; one wider than the pane opens it, for good. */
	want = mdview_fast_cols(m->src.data + m->fast_off, (size_t)(end - (m->src.data + m->fast_off)));
	if (want > m->fast_widest)
		m->fast_widest = want;
	if (m->width > 0) {
		m->tables = true;
		if ((int)m->fast_widest + 4 > m->width)
			m->fast_open = true;
	}
	inner = m->fast_open ? 0 : m->fast_widest;
	if (inner != m->fast_inner)
		redraw = true;
	/* Until its first line is whole, an untagged block's syntax may change with it. */
	if (m->fast_lines == 0 || redraw) {
		const struct synhl_syntax *syn = mdr_code_syntax(m->fast_lang, m->src.data + m->fast_start,
		    (size_t)(end - (m->src.data + m->fast_start)));

		if (syn != m->fast_syn)
			redraw = true;
		m->fast_syn = syn;
	}
	if (redraw) {
		slvec_truncate(&m->lines, m->fast_base - 1);
		l = slvec_push(&m->lines);
		sline_set_cont(l, "", ROLE_TEXT);
		m->fast_inner = inner;
		mdr_code_top(l, m->fast_lang, inner);
		m->fast_lines = 0;
		m->fast_off = m->fast_start;
		m->fast_state = 0;
	}
	slvec_truncate(&m->lines, m->fast_base + m->fast_lines);
	s = m->src.data + m->fast_off;
	while ((nl = memchr(s, '\n', (size_t)(end - s))) != NULL) {
		mdview_fast_line(m, s, (size_t)(nl - s), &m->fast_state);
		m->fast_lines++;
		s = nl + 1;
	}
	m->fast_off = (size_t)(s - m->src.data);
	if (s < end) {
		/* The unfinished line is drawn again when it grows: from the same state. */
		uint64_t st = m->fast_state;

		mdview_fast_line(m, s, (size_t)(end - s), &st);
	}
	l = slvec_push(&m->lines);
	sline_set_cont(l, "", ROLE_TEXT);
	mdr_code_bottom(l, m->fast_inner);
	return true;
}

/* Render the committed text again, as one range (after a new definition or width). */
static void
mdview_rerender(struct mdview *m)
{
	slvec_truncate(&m->lines, 0);
	m->ncommitted = 0;
	m->fast = false;
	if (m->stable > 0)
		mdview_render_range(m, 0, m->stable, &m->lines);
	m->ncommitted = m->lines.n;
}

bool
mdview_set_width(struct mdview *m, int width)
{
	if (width == m->width)
		return false;
	m->width = width;
	if (!m->tables)
		return false;
	m->relayout = true;
	m->dirty = true;
	return true;
}

static bool mdview_update_tail(struct mdview *);

bool
mdview_update(struct mdview *m)
{
	size_t keep;
	bool tail_def, changed;

	if (!m->dirty)
		return false;
	m->dirty = false;
	/* The unfinished last line may be a definition already: it counts until it ends. */
	keep = m->defs.len;
	tail_def = m->fence_char == 0 && m->scan < m->src.len && !m->table &&
	    (!m->prev_open || m->prev_def) &&
	    mdview_ref_def(m->src.data + m->scan, m->src.len - m->scan);
	if (tail_def) {
		buf_append(&m->defs, m->src.data + m->scan, m->src.len - m->scan);
		buf_putc(&m->defs, '\n');
	}
	if ((m->defs_new || m->relayout || tail_def || m->tail_def) && m->ncommitted > 0)
		mdview_rerender(m);
	m->tail_def = tail_def;
	m->defs_new = false;
	m->relayout = false;
	changed = mdview_update_tail(m);
	buf_truncate(&m->defs, keep);
	return changed;
}

/* The tail after the committed lines. */
static bool
mdview_update_tail(struct mdview *m)
{
	if (mdview_fast_fence(m))
		return true;
	m->fast = false;
	slvec_truncate(&m->lines, m->ncommitted);
	mdview_render_range(m, m->stable, m->src.len, &m->lines);
	return true;
}
