/* The transcript's items and view: see transcript.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "json.h"
#include "mdview.h"
#include "theme.h"
#include "toolshow.h"
#include "transcript.h"
#include "udiff.h"
#include "xalloc.h"

#define TR_RESULT_MAX	(256 * 1024)	/* what a result keeps for showing */
#define TR_SUB_INDENT	4		/* columns a subagent's transcript is indented by */

enum tr_kind { TR_PROMPT, TR_TEXT, TR_THINKING, TR_TOOL, TR_NOTICE };

struct tr_item {
	enum tr_kind	 kind;
	int		 turn;
	bool		 gap;		/* an empty line before it */
	bool		 expanded;
	bool		 stale;		/* lines must be built again */
	bool		 queued;	/* on the dirty list */
	struct mdview	 md;		/* TR_TEXT */
	struct buf	 raw;		/* TR_THINKING text, TR_TOOL result, TR_PROMPT/TR_NOTICE text */
	struct slvec	 lines;
	int		 role;		/* TR_NOTICE */
	char		*id, *name, *summary, *reason;
	bool		 has_result, is_error, denied, interrupted;
	cJSON		*input;		/* TR_TOOL: an edit's or a search's input, until its result */
	char		*diff;		/* TR_TOOL: what an edit did, as a unified diff, or NULL */
	char		 found[32];	/* TR_TOOL: what a search found ("3 files") */
	const struct theme_glyphs *glyphs;	/* TR_TOOL: the transcript's */
	/* TR_TOOL, an agent call: its subagent's transcript and its state */
	struct tr_item	**kids;
	size_t		 nkids, capkids;
	char		*sub_agent;	/* its type; NULL: no subagent (yet) */
	int		 sub_calls;
	int64_t		 sub_tokens;
	bool		 sub_running;
};

struct tr_pos {
	size_t		 item, line;
	uint32_t	 row;
};

struct transcript {
	struct tr_item	**items;
	size_t		 n, cap;
	size_t		*dirty;
	size_t		 ndirty, capdirty;
	bool		 open_block;	/* the last TR_TEXT/TR_THINKING item takes deltas */
	struct sline	 sep;
	int		 width, height;
	bool		 follow;
	struct tr_pos	 top;
	size_t		 sel;		/* the selected item, or SIZE_MAX */
	char		*query;
	struct tr_pos	 match;
	bool		 has_match;
	struct theme_glyphs glyphs;
	uint64_t	 gen;		/* counts changes to tool items and the selection */
};

struct transcript *
tr_new(void)
{
	struct transcript *tr = xcalloc(1, sizeof *tr);

	sline_init(&tr->sep);
	tr->follow = true;
	tr->width = 80;
	tr->height = 24;
	tr->sel = SIZE_MAX;
	theme_glyphs_default(&tr->glyphs, false);
	return tr;
}

static void
tr_item_free(struct tr_item *it)
{
	size_t k;

	for (k = 0; k < it->nkids; k++)
		tr_item_free(it->kids[k]);
	free(it->kids);
	free(it->sub_agent);
	if (it->kind == TR_TEXT)
		mdview_release(&it->md);
	buf_release(&it->raw);
	slvec_release(&it->lines);
	free(it->id);
	free(it->name);
	free(it->summary);
	free(it->reason);
	cJSON_Delete(it->input);
	free(it->diff);
	free(it);
}

void
tr_free(struct transcript *tr)
{
	size_t i;

	if (tr == NULL)
		return;
	for (i = 0; i < tr->n; i++)
		tr_item_free(tr->items[i]);
	free(tr->items);
	free(tr->dirty);
	sline_release(&tr->sep);
	free(tr->query);
	free(tr);
}

static void
tr_mark(struct transcript *tr, size_t i)
{
	struct tr_item *it = tr->items[i];

	it->stale = true;
	if (it->queued)
		return;
	if (tr->ndirty == tr->capdirty) {
		tr->capdirty = tr->capdirty ? tr->capdirty * 2 : 8;
		tr->dirty = xreallocarray(tr->dirty, tr->capdirty, sizeof *tr->dirty);
	}
	tr->dirty[tr->ndirty++] = i;
	it->queued = true;
}

static struct tr_item *
tr_add(struct transcript *tr, enum tr_kind kind, int turn)
{
	struct tr_item *it = xcalloc(1, sizeof *it);
	struct tr_item *prev = tr->n ? tr->items[tr->n - 1] : NULL;

	it->kind = kind;
	it->turn = turn;
	buf_init(&it->raw, TR_RESULT_MAX);
	slvec_init(&it->lines);
	if (kind == TR_TEXT) {
		mdview_init(&it->md);
		mdview_set_width(&it->md, tr->width);
	}
	/* Tool calls in a row stay together. */
	it->gap = prev != NULL && !(prev->kind == TR_TOOL && kind == TR_TOOL);
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? tr->cap * 2 : 64;
		tr->items = xreallocarray(tr->items, tr->cap, sizeof *tr->items);
	}
	tr->items[tr->n++] = it;
	tr->open_block = false;
	tr_mark(tr, tr->n - 1);
	return it;
}

size_t
tr_count(const struct transcript *tr)
{
	return tr->n;
}

void
tr_prompt(struct transcript *tr, int turn, const char *text)
{
	struct tr_item *it = tr_add(tr, TR_PROMPT, turn);

	buf_puts(&it->raw, text);
}

/* The open block of kind for turn, or a new one. */
static struct tr_item *
tr_block(struct transcript *tr, enum tr_kind kind, int turn)
{
	struct tr_item *last = tr->n ? tr->items[tr->n - 1] : NULL;

	if (tr->open_block && last != NULL && last->kind == kind && last->turn == turn)
		return last;
	last = tr_add(tr, kind, turn);
	tr->open_block = true;
	return last;
}

void
tr_text(struct transcript *tr, int turn, const char *s, size_t n)
{
	struct tr_item *it = tr_block(tr, TR_TEXT, turn);

	mdview_append(&it->md, s, n);
	tr_mark(tr, tr->n - 1);
}

void
tr_thinking(struct transcript *tr, int turn, const char *s, size_t n)
{
	struct tr_item *it = tr_block(tr, TR_THINKING, turn);

	/* Past its cap thinking stops growing on screen; the model's record is the agent's. */
	if (it->raw.len + n < TR_RESULT_MAX)
		buf_append(&it->raw, s, n);
	tr_mark(tr, tr->n - 1);
}

void
tr_tool_use(struct transcript *tr, int turn, const char *id, const char *name, const char *summary)
{
	struct tr_item *it = tr_add(tr, TR_TOOL, turn);

	it->id = xstrdup(id ? id : "");
	it->name = xstrdup(name ? name : "tool");
	it->summary = xstrdup(summary ? summary : "");
	it->glyphs = &tr->glyphs;
	tr->gen++;
}

/*
 * The newest tool item for id (results come soon after their call), or a
 * subagent's call under its agent call; *top: the transcript's item it is
 * or is under.  NULL when there is none.
 */
static struct tr_item *
tr_find_tool(const struct transcript *tr, const char *id, size_t *top)
{
	size_t i = tr->n, k;

	if (id == NULL)
		return NULL;
	while (i-- > 0) {
		struct tr_item *it = tr->items[i];

		if (it->kind != TR_TOOL)
			continue;
		*top = i;
		if (strcmp(it->id, id) == 0)
			return it;
		for (k = it->nkids; k-- > 0;)
			if (it->kids[k]->kind == TR_TOOL && strcmp(it->kids[k]->id, id) == 0)
				return it->kids[k];
	}
	return NULL;
}

void
tr_tool_result(struct transcript *tr, const char *id, bool is_error, const char *content)
{
	size_t i;
	struct tr_item *it = tr_find_tool(tr, id, &i);
	size_t n;

	if (it == NULL)
		return;
	it->has_result = true;
	it->is_error = is_error;
	buf_reset(&it->raw);
	n = strlen(content ? content : "");
	if (n >= TR_RESULT_MAX)
		n = TR_RESULT_MAX - 1;
	buf_append(&it->raw, content ? content : "", n);
	if (it->input != NULL && !is_error) {
		ts_found(it->name, json_str(it->input, "output_mode", NULL), buf_cstr(&it->raw), it->found,
		    sizeof it->found);
		if (it->diff == NULL && ts_is_edit(it->name))
			it->diff = ts_edit_diff(it->name, it->input, buf_cstr(&it->raw));
	}
	/* A failed edit changed nothing: its preview is not what happened. */
	if (is_error) {
		free(it->diff);
		it->diff = NULL;
	}
	cJSON_Delete(it->input);
	it->input = NULL;
	it->stale = true;
	tr->gen++;
	tr_mark(tr, i);
}

void
tr_tool_input(struct transcript *tr, const char *id, const cJSON *input)
{
	size_t i;
	struct tr_item *it = tr_find_tool(tr, id, &i);

	if (it == NULL || input == NULL)
		return;
	/* Only what a finished call's lines are made from. */
	if (!ts_is_edit(it->name) && strcmp(it->name, "glob") != 0 && strcmp(it->name, "grep") != 0)
		return;
	cJSON_Delete(it->input);
	it->input = cJSON_Duplicate(input, 1);
}

void
tr_tool_diff(struct transcript *tr, const char *id, const char *diff)
{
	size_t i;
	struct tr_item *it = tr_find_tool(tr, id, &i);

	if (it == NULL || diff == NULL || *diff == '\0')
		return;
	if (!ts_is_edit(it->name))
		return;
	free(it->diff);
	it->diff = xstrdup(diff);
	it->stale = true;
	tr_mark(tr, i);
}

void
tr_tool_denied(struct transcript *tr, const char *id, const char *reason)
{
	size_t i;
	struct tr_item *it = tr_find_tool(tr, id, &i);

	if (it == NULL)
		return;
	it->denied = true;
	free(it->diff);
	it->diff = NULL;
	tr->gen++;
	/* The agent's own report of a denial carries no reason: keep the user's. */
	if (reason != NULL && *reason != '\0') {
		free(it->reason);
		it->reason = xstrdup(reason);
	}
	it->stale = true;
	tr_mark(tr, i);
}

void
tr_tool_interrupted(struct transcript *tr, const char *id)
{
	size_t i;
	struct tr_item *it = tr_find_tool(tr, id, &i);

	if (it == NULL)
		return;
	it->interrupted = true;
	it->stale = true;
	tr->gen++;
	tr_mark(tr, i);
}

/* ---- a subagent's transcript, under its agent call ---- */

/* The agent call parent's item and its index, or NULL. */
static struct tr_item *
tr_sub_parent(const struct transcript *tr, const char *parent, size_t *top)
{
	size_t i = tr->n;

	while (parent != NULL && i-- > 0)
		if (tr->items[i]->kind == TR_TOOL && strcmp(tr->items[i]->id, parent) == 0) {
			*top = i;
			return tr->items[i];
		}
	return NULL;
}

static struct tr_item *
tr_sub_add(struct transcript *tr, struct tr_item *p, enum tr_kind kind)
{
	struct tr_item *it = xcalloc(1, sizeof *it);

	it->kind = kind;
	it->turn = p->turn;
	it->stale = true;
	buf_init(&it->raw, TR_RESULT_MAX);
	slvec_init(&it->lines);
	if (kind == TR_TEXT) {
		mdview_init(&it->md);
		mdview_set_width(&it->md, tr->width > TR_SUB_INDENT + 8 ? tr->width - TR_SUB_INDENT : 8);
	}
	it->glyphs = &tr->glyphs;
	if (p->nkids == p->capkids) {
		p->capkids = p->capkids ? p->capkids * 2 : 8;
		p->kids = xreallocarray(p->kids, p->capkids, sizeof *p->kids);
	}
	p->kids[p->nkids++] = it;
	return it;
}

void
tr_sub_state(struct transcript *tr, const char *parent, const char *agent, int calls, int64_t tokens,
    bool running)
{
	size_t i;
	struct tr_item *p = tr_sub_parent(tr, parent, &i);

	if (p == NULL)
		return;
	free(p->sub_agent);
	p->sub_agent = xstrdup(agent != NULL ? agent : "");
	p->sub_calls = calls;
	p->sub_tokens = tokens;
	p->sub_running = running;
	p->stale = true;
	tr->gen++;
	tr_mark(tr, i);
}

void
tr_sub_text(struct transcript *tr, const char *parent, const char *s, size_t n)
{
	size_t i;
	struct tr_item *p = tr_sub_parent(tr, parent, &i), *it;

	if (p == NULL || n == 0)
		return;
	it = p->nkids > 0 ? p->kids[p->nkids - 1] : NULL;
	if (it == NULL || it->kind != TR_TEXT)
		it = tr_sub_add(tr, p, TR_TEXT);
	mdview_append(&it->md, s, n);
	it->stale = true;
	p->stale = true;
	tr_mark(tr, i);
}

void
tr_sub_tool_use(struct transcript *tr, const char *parent, const char *id, const char *name,
    const char *summary)
{
	size_t i;
	struct tr_item *p = tr_sub_parent(tr, parent, &i), *it;

	if (p == NULL)
		return;
	it = tr_sub_add(tr, p, TR_TOOL);
	it->id = xstrdup(id ? id : "");
	it->name = xstrdup(name ? name : "tool");
	it->summary = xstrdup(summary ? summary : "");
	/* the first text after a call is a new block */
	p->stale = true;
	tr->gen++;
	tr_mark(tr, i);
}

void
tr_notice(struct transcript *tr, int role, const char *text)
{
	struct tr_item *it = tr_add(tr, TR_NOTICE, 0);

	it->role = role;
	buf_puts(&it->raw, text);
}

void
tr_end_block(struct transcript *tr)
{
	tr->open_block = false;
}

/*
 * A notice's lines, each wrapping under where its text starts: a table's
 * row ("  Esc          interrupt the turn") under its second column, an
 * indented line under its indent.
 */
static void
tr_notice_lines(struct slvec *out, const char *text, size_t n, int role)
{
	const char *p = text, *end = text + n;
	char hang[41];

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		struct sline *l = slvec_push(out);
		size_t col;

		while (q < le && *q == ' ')
			q++;
		if (q > p) {
			const char *w = q;

			while (w < le && *w != ' ')
				w++;
			if (w + 2 < le && w[0] == ' ' && w[1] == ' ') {
				while (w < le && *w == ' ')
					w++;
				q = w;
			}
		}
		col = (size_t)(q - p) < sizeof hang - 1 ? (size_t)(q - p) : sizeof hang - 1;
		memset(hang, ' ', col);
		hang[col] = '\0';
		sline_mark_body(l);
		sline_set_cont(l, hang, role);
		sline_add(l, p, (size_t)(le - p), role, 0);
		p = nl ? nl + 1 : end;
	}
	if (n == 0)
		slvec_push(out);
}

/* Add text's lines, the first after first_prefix, the others after cont. */
static void
tr_add_lines(struct slvec *out, const char *text, size_t n, const char *first_prefix,
    int prefix_role, const char *cont, int role, unsigned attr, unsigned flags, size_t max)
{
	const char *p = text, *end = text + n;
	size_t count = 0;

	while (p < end || count == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct sline *l;

		if (count == max)
			break;
		l = slvec_push(out);
		sline_adds(l, count == 0 ? first_prefix : cont, prefix_role, 0);
		sline_mark_body(l);
		sline_set_cont(l, cont, prefix_role);
		sline_add(l, p, (size_t)(le - p), role, attr);
		l->flags |= (uint8_t)flags;
		count++;
		p = nl ? nl + 1 : end;
	}
}

static size_t
tr_count_lines(const char *s, size_t n)
{
	size_t k = n > 0 ? 1 : 0, i;

	for (i = 0; i < n; i++)
		if (s[i] == '\n' && i + 1 < n)
			k++;
	return k;
}

/* The byte offset where line k of s starts (n when s has fewer lines). */
static size_t
tr_line_start(const char *s, size_t n, size_t k)
{
	size_t i = 0;

	while (k > 0 && i < n) {
		const char *nl = memchr(s + i, '\n', n - i);

		if (nl == NULL)
			return n;
		i = (size_t)(nl - s) + 1;
		k--;
	}
	return i;
}

/* The fold: how many lines it hides and the key that shows them, or folds them again. */
static void
tr_fold_line(struct slvec *out, size_t hidden, bool expanded)
{
	struct sline *l = slvec_push(out);
	char t[96];

	if (expanded)
		snprintf(t, sizeof t, "    (%s to collapse)", TS_EXPAND_KEY);
	else
		snprintf(t, sizeof t, "    \xE2\x80\xA6 %zu more line%s (%s to expand)", hidden, hidden == 1 ? "" : "s",
		    TS_EXPAND_KEY);
	sline_adds(l, t, ROLE_DIM, 0);
	l->flags |= SL_NOWRAP;
}

/* A copy of src after indent (its wrapped rows too). */
static void
tr_indent_line(struct slvec *out, const struct sline *src, const char *indent)
{
	struct sline *l = slvec_push(out);
	char cont[96];

	sline_adds(l, indent, ROLE_DIM, 0);
	sline_add_slice(l, src, 0, src->body);
	sline_mark_body(l);
	snprintf(cont, sizeof cont, "%s%s", indent, src->cont != NULL ? src->cont : "");
	sline_set_cont(l, cont, src->cont != NULL ? src->cont_role : ROLE_DIM);
	sline_add_slice(l, src, src->body, src->len);
	l->flags = src->flags;
}

/* A hunk made without the file's line numbers ("@@ -0,3 ..."): its lines show none. */
static void
tr_unnumber(struct udiff *d)
{
	bool off = false;
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct udiff_line *u = &d->lines[i];

		if (u->kind == UD_HUNK)
			off = u->len > 6 && memcmp(u->text, "@@ -0,", 6) == 0 && u->text[6] != '0';
		else if (off)
			u->old_no = u->new_no = 0;
	}
}

/* An edit's hunk under its result line, as the diff pane colours it; folded past TS_HUNK_LINES. */
static void
tr_build_hunk(struct tr_item *it)
{
	struct udiff d;
	struct slvec v, body;
	size_t i, shown;
	bool after_file = true;

	udiff_parse(&d, it->diff, strlen(it->diff));
	tr_unnumber(&d);
	slvec_init(&v);
	slvec_init(&body);
	udiff_render(&d, &v);
	for (i = 0; i < d.n && i < v.n; i++) {
		const struct udiff_line *u = &d.lines[i];

		/* The line above names the file: a header is news only in a patch of several. */
		if (u->kind == UD_FILE) {
			after_file = true;
			/* A deleted file is named on its "---" line. */
			if (d.files > 1 && u->len > 4 && u->text[0] == '+')
				tr_indent_line(&body, &v.v[u->len == 13 && memcmp(u->text, "+++ /dev/null", 13) == 0 &&
				    i > 0 ? i - 1 : i], "    ");
			continue;
		}
		if (u->kind == UD_NOTE && d.hunks > 0)
			continue;
		/* Between hunks their header says where the next one is; the first needs none. */
		if (u->kind == UD_HUNK && (after_file || (u->len > 6 && memcmp(u->text, "@@ -0,", 6) == 0))) {
			after_file = false;
			continue;
		}
		after_file = false;
		tr_indent_line(&body, &v.v[i], "    ");
	}
	shown = it->expanded || body.n <= TS_HUNK_LINES + 1 ? body.n : TS_HUNK_LINES;
	for (i = 0; i < shown; i++) {
		struct sline *l = slvec_push(&it->lines);

		sline_copy(l, &body.v[i]);
	}
	if (body.n > TS_HUNK_LINES + 1)
		tr_fold_line(&it->lines, body.n - shown, it->expanded);
	slvec_release(&body);
	slvec_release(&v);
	udiff_release(&d);
}

/* A command's output: its first and last lines, the count of those between. */
static void
tr_build_output(struct tr_item *it, const char *lead, int role)
{
	const char *res = buf_cstr(&it->raw);
	size_t n = it->raw.len, lines = tr_count_lines(res, n), tail;

	if (it->expanded || lines <= TS_HEAD_LINES + TS_TAIL_LINES + 1) {
		tr_add_lines(&it->lines, res, n, lead, ROLE_DIM, "    ", role, 0,
		    it->expanded ? SL_CHARWRAP : SL_NOWRAP, SIZE_MAX);
		if (it->expanded && lines > TS_HEAD_LINES + TS_TAIL_LINES + 1)
			tr_fold_line(&it->lines, 0, true);
		return;
	}
	tr_add_lines(&it->lines, res, n, lead, ROLE_DIM, "    ", role, 0, SL_NOWRAP, TS_HEAD_LINES);
	tr_fold_line(&it->lines, lines - TS_HEAD_LINES - TS_TAIL_LINES, false);
	tail = tr_line_start(res, n, lines - TS_TAIL_LINES);
	tr_add_lines(&it->lines, res + tail, n - tail, "    ", ROLE_DIM, "    ", role, 0, SL_NOWRAP, TS_TAIL_LINES);
}

/* The call's line: what it is and what it touched (and, for a search, what it found). */
static void
tr_build_call(struct tr_item *it)
{
	struct sline *l = slvec_push(&it->lines);
	char *mcp = ts_mcp_name(it->name, NULL);

	sline_adds(l, it->glyphs->g[GLYPH_CALL], it->denied ? ROLE_TOOL_DENIED : it->interrupted ? ROLE_WARNING :
	    it->is_error ? ROLE_TOOL_FAILED :
	    it->has_result ? ROLE_TOOL_DONE : ROLE_TOOL_QUEUED, 0);
	sline_add(l, " ", 1, ROLE_TEXT, 0);
	sline_mark_body(l);
	sline_set_cont(l, "  ", ROLE_DIM);
	sline_adds(l, mcp != NULL ? mcp : it->name, ROLE_ACCENT, TA_BOLD);
	if (it->summary[0] != '\0') {
		sline_add(l, " ", 1, ROLE_TEXT, 0);
		sline_adds(l, it->summary, ROLE_TEXT, 0);
	}
	if (it->found[0] != '\0') {
		sline_adds(l, " \xC2\xB7 ", ROLE_DIM, 0);
		sline_adds(l, it->found, ROLE_DIM, 0);
	}
	free(mcp);
}

/* An edit's language-server errors (what follows its first paragraph), once expanded. */
static void
tr_build_diags(struct tr_item *it, const char *res)
{
	const char *p = it->found[0] != '\0' ? strstr(res, "\n\n") : NULL;

	if (p == NULL)
		return;
	if (!it->expanded) {
		char more[96];
		struct sline *l = slvec_push(&it->lines);

		snprintf(more, sizeof more, "    \xE2\x80\xA6 %s (%s to expand)", it->found, TS_EXPAND_KEY);
		sline_adds(l, more, ROLE_DIM, 0);
		return;
	}
	p += 2;
	tr_add_lines(&it->lines, p, strlen(p), "    ", ROLE_DIM, "    ", ROLE_ERROR, 0, SL_CHARWRAP, SIZE_MAX);
}

static struct slvec *tr_lines(struct tr_item *);

/*
 * An agent call's subagent: folded, a live line while it runs (its type,
 * its current call, its figures) and how to see the rest; expanded, its
 * own transcript (its text, its calls as the transcript shows calls).
 */
static void
tr_build_sub(struct tr_item *it, const char *lead)
{
	struct tr_item *cur = NULL;
	struct sline *l;
	char figs[96];
	size_t k, j, calls = 0;

	for (k = 0; k < it->nkids; k++)
		if (it->kids[k]->kind == TR_TOOL) {
			cur = it->kids[k];
			calls++;
		}
	if (it->expanded)
		for (k = 0; k < it->nkids; k++) {
			struct slvec *v = tr_lines(it->kids[k]);

			for (j = 0; j < v->n; j++)
				tr_indent_line(&it->lines, &v->v[j], "    ");
		}
	snprintf(figs, sizeof figs, " \xC2\xB7 %d model call%s, %lld tokens", it->sub_calls,
	    it->sub_calls == 1 ? "" : "s", (long long)it->sub_tokens);
	if (it->sub_running) {
		l = slvec_push(&it->lines);
		sline_adds(l, lead, ROLE_DIM, 0);
		sline_mark_body(l);
		sline_set_cont(l, "    ", ROLE_DIM);
		sline_adds(l, it->sub_agent != NULL ? it->sub_agent : "subagent", ROLE_ACCENT, 0);
		sline_adds(l, " \xC2\xB7 ", ROLE_DIM, 0);
		if (cur != NULL) {
			sline_adds(l, cur->name, ROLE_TEXT, TA_BOLD);
			if (cur->summary[0] != '\0') {
				sline_add(l, " ", 1, ROLE_TEXT, 0);
				sline_adds(l, cur->summary, ROLE_TEXT, 0);
			}
		} else
			sline_adds(l, "starting", ROLE_DIM, 0);
		sline_adds(l, figs, ROLE_DIM, 0);
		l->flags |= SL_NOWRAP;
	}
	if (!it->expanded && it->nkids > 0) {
		char t[128];

		l = slvec_push(&it->lines);
		snprintf(t, sizeof t, "    \xE2\x80\xA6 its subagent's transcript: %zu call%s (%s to expand)", calls,
		    calls == 1 ? "" : "s", TS_EXPAND_KEY);
		sline_adds(l, t, ROLE_DIM, 0);
		l->flags |= SL_NOWRAP;
	}
}

static void
tr_build_tool(struct tr_item *it)
{
	const char *res = buf_cstr(&it->raw);
	size_t nl = tr_count_lines(res, it->raw.len);
	char more[96], lead[32];
	int role = it->is_error && !it->interrupted ? ROLE_ERROR : ROLE_TOOL_OUTPUT;
	struct sline *l;

	snprintf(lead, sizeof lead, "  %s ", it->glyphs->g[GLYPH_RESULT]);
	tr_build_call(it);
	if (it->sub_agent != NULL || it->nkids > 0)
		tr_build_sub(it, lead);
	if (it->denied) {
		l = slvec_push(&it->lines);
		sline_adds(l, lead, ROLE_DIM, 0);
		sline_adds(l, "denied", ROLE_TOOL_DENIED, TA_BOLD);
		if (it->reason != NULL) {
			sline_adds(l, ": ", ROLE_TOOL_DENIED, 0);
			sline_adds(l, it->reason, ROLE_TOOL_DENIED, 0);
		}
		return;
	}
	if (!it->has_result)
		return;
	if (ts_is_command(it->name) || strcmp(it->name, "!") == 0) {
		tr_build_output(it, lead, role);
		return;
	}
	if (it->diff != NULL) {
		tr_add_lines(&it->lines, res, it->raw.len, lead, ROLE_DIM, "    ", role, 0, SL_NOWRAP, 1);
		tr_build_hunk(it);
		tr_build_diags(it, res);
		return;
	}
	if (it->expanded) {
		tr_add_lines(&it->lines, res, it->raw.len, lead, ROLE_DIM, "    ", role, 0, SL_CHARWRAP, SIZE_MAX);
		if (nl > 1)
			tr_fold_line(&it->lines, 0, true);
		return;
	}
	tr_add_lines(&it->lines, res, it->raw.len, lead, ROLE_DIM, "    ", role, 0, SL_NOWRAP, 1);
	if (nl > 1) {
		snprintf(more, sizeof more, " \xE2\x80\xA6 +%zu line%s (%s to expand)", nl - 1, nl == 2 ? "" : "s",
		    TS_EXPAND_KEY);
		sline_adds(&it->lines.v[it->lines.n - 1], more, ROLE_DIM, 0);
	}
}

static void
tr_build_thinking(struct tr_item *it)
{
	struct sline *l;
	char tmp[96];
	size_t words = 0, i;
	bool in = false;

	if (it->expanded) {
		tr_add_lines(&it->lines, it->raw.data ? it->raw.data : "", it->raw.len, "\xE2\x88\xB4 ",
		    ROLE_THINKING, "  ", ROLE_THINKING, TA_ITALIC, 0, SIZE_MAX);
		return;
	}
	for (i = 0; i < it->raw.len; i++) {
		bool sp = it->raw.data[i] == ' ' || it->raw.data[i] == '\n';

		if (!sp && !in)
			words++;
		in = !sp;
	}
	l = slvec_push(&it->lines);
	snprintf(tmp, sizeof tmp, "\xE2\x88\xB4 thinking (%zu words)", words);
	sline_adds(l, tmp, ROLE_THINKING, TA_ITALIC);
	l->flags |= SL_NOWRAP;
}

static void
tr_build(struct tr_item *it)
{
	slvec_truncate(&it->lines, 0);
	switch (it->kind) {
	case TR_PROMPT:
		tr_add_lines(&it->lines, buf_cstr(&it->raw), it->raw.len, "\xE2\x80\xBA ", ROLE_USER,
		    "  ", ROLE_USER, TA_BOLD, 0, SIZE_MAX);
		break;
	case TR_THINKING:
		tr_build_thinking(it);
		break;
	case TR_TOOL:
		tr_build_tool(it);
		break;
	case TR_NOTICE:
		tr_notice_lines(&it->lines, buf_cstr(&it->raw), it->raw.len, it->role);
		break;
	case TR_TEXT:
		break;
	}
}

/* The item's lines, current. */
static struct slvec *
tr_lines(struct tr_item *it)
{
	if (it->kind == TR_TEXT) {
		if (it->stale)
			mdview_update(&it->md);
		it->stale = false;
		return &it->md.lines;
	}
	if (it->stale) {
		tr_build(it);
		it->stale = false;
	}
	return &it->lines;
}

bool
tr_update(struct transcript *tr)
{
	size_t i;
	bool any = tr->ndirty > 0;

	for (i = 0; i < tr->ndirty; i++) {
		struct tr_item *it = tr->items[tr->dirty[i]];

		it->queued = false;
		tr_lines(it);
	}
	tr->ndirty = 0;
	return any;
}

/* ---- the view ---- */

static size_t
tr_nlines(struct transcript *tr, size_t i)
{
	struct tr_item *it = tr->items[i];

	return tr_lines(it)->n + (it->gap && tr_lines(it)->n > 0);
}

static struct sline *
tr_line(struct transcript *tr, size_t i, size_t k)
{
	struct tr_item *it = tr->items[i];
	struct slvec *v = tr_lines(it);

	if (it->gap) {
		if (k == 0)
			return &tr->sep;
		k--;
	}
	return &v->v[k];
}

static uint32_t
tr_rows(struct transcript *tr, const struct tr_pos *p)
{
	return sline_rows(tr_line(tr, p->item, p->line), tr->width);
}

static bool
tr_prev_line(struct transcript *tr, struct tr_pos *p)
{
	if (p->line > 0) {
		p->line--;
		return true;
	}
	while (p->item > 0) {
		size_t n = tr_nlines(tr, --p->item);

		if (n > 0) {
			p->line = n - 1;
			return true;
		}
	}
	return false;
}

static bool
tr_next_line(struct transcript *tr, struct tr_pos *p)
{
	if (p->item < tr->n && p->line + 1 < tr_nlines(tr, p->item)) {
		p->line++;
		return true;
	}
	while (p->item + 1 < tr->n) {
		if (tr_nlines(tr, ++p->item) > 0) {
			p->line = 0;
			return true;
		}
	}
	return false;
}

/* The first line at or after p (p may point past a shrunk item). */
static bool
tr_clamp(struct transcript *tr, struct tr_pos *p)
{
	if (tr->n == 0)
		return false;
	if (p->item >= tr->n) {
		p->item = tr->n - 1;
		p->line = SIZE_MAX;
	}
	if (p->line >= tr_nlines(tr, p->item)) {
		size_t n = tr_nlines(tr, p->item);

		if (n > 0) {
			p->line = n - 1;
			p->row = UINT32_MAX;
		} else {
			p->line = 0;
			p->row = 0;
			if (!tr_next_line(tr, p) && !tr_prev_line(tr, p))
				return false;
		}
	}
	if (p->row >= tr_rows(tr, p))
		p->row = tr_rows(tr, p) - 1;
	return true;
}

/* The top of the view when following the end. */
static bool
tr_bottom_top(struct transcript *tr, struct tr_pos *out)
{
	struct tr_pos p;
	uint32_t left = tr->height > 0 ? (uint32_t)tr->height : 1;

	if (tr->n == 0)
		return false;
	p.item = tr->n - 1;
	p.line = SIZE_MAX;
	p.row = 0;
	if (!tr_clamp(tr, &p))
		return false;
	for (;;) {
		uint32_t r = tr_rows(tr, &p);

		if (r >= left) {
			p.row = r - left;
			*out = p;
			return true;
		}
		left -= r;
		if (!tr_prev_line(tr, &p))
			break;
	}
	p.row = 0;
	*out = p;
	return true;
}

static bool
tr_view_top(struct transcript *tr, struct tr_pos *p)
{
	if (tr->follow)
		return tr_bottom_top(tr, p);
	*p = tr->top;
	return tr_clamp(tr, p);
}

void
tr_set_size(struct transcript *tr, int width, int height)
{
	size_t i;

	width = width > 0 ? width : 1;
	/* Tables are laid out for the width: the replies that hold one are drawn again. */
	if (width != tr->width)
		for (i = 0; i < tr->n; i++) {
			struct tr_item *it = tr->items[i];
			size_t k;

			if (it->kind == TR_TEXT && mdview_set_width(&it->md, width))
				tr_mark(tr, i);
			for (k = 0; k < it->nkids; k++)
				if (it->kids[k]->kind == TR_TEXT && mdview_set_width(&it->kids[k]->md,
				    width > TR_SUB_INDENT + 8 ? width - TR_SUB_INDENT : 8)) {
					it->kids[k]->stale = true;
					tr_mark(tr, i);
				}
		}
	tr->width = width;
	tr->height = height > 0 ? height : 1;
}

bool
tr_following(const struct transcript *tr)
{
	return tr->follow;
}

/* Rows from p to the end, counting no further than limit. */
static uint32_t
tr_rows_below(struct transcript *tr, struct tr_pos p, uint32_t limit)
{
	uint32_t total = tr_rows(tr, &p) - p.row;

	while (total <= limit && tr_next_line(tr, &p))
		total += tr_rows(tr, &p);
	return total;
}

void
tr_scroll(struct transcript *tr, int rows)
{
	struct tr_pos p;
	uint32_t n;

	tr_update(tr);
	if (rows == 0 || !tr_view_top(tr, &p))
		return;
	if (rows < 0) {
		n = (uint32_t)-rows;
		while (n > 0) {
			if (p.row > 0) {
				uint32_t d = p.row < n ? p.row : n;

				p.row -= d;
				n -= d;
				continue;
			}
			if (!tr_prev_line(tr, &p))
				break;
			p.row = tr_rows(tr, &p) - 1;
			n--;
		}
		tr->top = p;
		tr->follow = false;
		if (tr_rows_below(tr, p, (uint32_t)tr->height) <= (uint32_t)tr->height &&
		    p.item == 0 && p.line == 0 && p.row == 0)
			tr->follow = true;
		return;
	}
	n = (uint32_t)rows;
	while (n > 0) {
		uint32_t r = tr_rows(tr, &p);

		if (p.row + 1 < r) {
			uint32_t d = r - 1 - p.row < n ? r - 1 - p.row : n;

			p.row += d;
			n -= d;
			continue;
		}
		if (!tr_next_line(tr, &p))
			break;
		p.row = 0;
		n--;
	}
	tr->top = p;
	tr->follow = tr_rows_below(tr, p, (uint32_t)tr->height) <= (uint32_t)tr->height;
}

void
tr_top(struct transcript *tr)
{
	tr->top.item = tr->top.line = 0;
	tr->top.row = 0;
	tr->follow = false;
	if (tr->n == 0 || tr_rows_below(tr, tr->top, (uint32_t)tr->height) <= (uint32_t)tr->height)
		tr->follow = true;
}

void
tr_bottom(struct transcript *tr)
{
	tr->follow = true;
}

int
tr_paint(struct transcript *tr, tr_row_fn *fn, void *arg)
{
	struct tr_pos p;
	int y = 0;

	tr_update(tr);
	if (!tr_view_top(tr, &p))
		return 0;
	do {
		struct sline *l = tr_line(tr, p.item, p.line);
		uint32_t r, rows = sline_rows(l, tr->width);
		bool sel = p.item == tr->sel && l != &tr->sep;

		for (r = p.row; r < rows && y < tr->height; r++)
			fn(arg, y++, l, r, sel);
		p.row = 0;
	} while (y < tr->height && tr_next_line(tr, &p));
	return y;
}

void
tr_expand_all(struct transcript *tr, bool expanded)
{
	size_t i;

	for (i = 0; i < tr->n; i++) {
		struct tr_item *it = tr->items[i];

		if ((it->kind == TR_TOOL || it->kind == TR_THINKING) && it->expanded != expanded) {
			it->expanded = expanded;
			it->stale = true;
		}
	}
}

void
tr_set_glyphs(struct transcript *tr, const struct theme_glyphs *g)
{
	size_t i;

	if (memcmp(&tr->glyphs, g, sizeof *g) == 0)
		return;
	tr->glyphs = *g;
	for (i = 0; i < tr->n; i++)
		if (tr->items[i]->kind == TR_TOOL)
			tr->items[i]->stale = true;
}

static bool
tr_expandable(const struct tr_item *it)
{
	return (it->kind == TR_TOOL && (it->has_result || it->nkids > 0)) || it->kind == TR_THINKING;
}

void
tr_select(struct transcript *tr, int dir)
{
	size_t i = tr->sel;
	struct tr_pos p;

	if (i == SIZE_MAX)
		i = tr->n;
	for (;;) {
		if (dir < 0 ? i == 0 : i + 1 >= tr->n)
			return;
		i = dir < 0 ? i - 1 : i + 1;
		if (i < tr->n && tr_expandable(tr->items[i]))
			break;
	}
	tr->sel = i;
	tr->gen++;
	/* Bring it into view when it is above the view's top. */
	if (tr_view_top(tr, &p) && i < p.item) {
		tr->top.item = i;
		tr->top.line = 0;
		tr->top.row = 0;
		tr->follow = false;
	} else if (!tr->follow && dir > 0) {
		struct tr_pos q = { i, 0, 0 };

		if (tr_rows_below(tr, q, (uint32_t)tr->height) <= (uint32_t)tr->height)
			tr->follow = true;
	}
}

void
tr_select_none(struct transcript *tr)
{
	if (tr->sel != SIZE_MAX)
		tr->gen++;
	tr->sel = SIZE_MAX;
}

static void
tr_call_of(const struct tr_item *it, struct tr_call *out)
{
	out->id = it->id;
	out->name = it->name;
	out->summary = it->summary;
	out->text = buf_cstr(&it->raw);
	out->len = it->raw.len;
	out->diff = it->diff;
	out->reason = it->reason;
	out->is_error = it->is_error;
	out->denied = it->denied;
	out->interrupted = it->interrupted;
	out->done = it->has_result || it->denied;
}

bool
tr_call_followed(const struct transcript *tr, struct tr_call *out)
{
	size_t i;

	if (tr->sel < tr->n && tr->items[tr->sel]->kind == TR_TOOL) {
		tr_call_of(tr->items[tr->sel], out);
		return true;
	}
	for (i = tr->n; i-- > 0;) {
		const struct tr_item *it = tr->items[i];

		if (it->kind == TR_TOOL) {
			tr_call_of(it, out);
			return true;
		}
	}
	return false;
}

uint64_t
tr_gen(const struct transcript *tr)
{
	return tr->gen;
}

bool
tr_toggle_selected(struct transcript *tr)
{
	struct tr_item *it;

	if (tr->sel >= tr->n)
		return false;
	it = tr->items[tr->sel];
	it->expanded = !it->expanded;
	it->stale = true;
	return true;
}

bool
tr_copy_source(const struct transcript *tr, struct buf *out)
{
	const struct tr_item *it;
	size_t i;

	if (tr->sel < tr->n) {
		it = tr->items[tr->sel];
		buf_append(out, it->raw.data ? it->raw.data : "", it->raw.len);
		return true;
	}
	for (i = tr->n; i-- > 0;) {
		it = tr->items[i];
		if (it->kind == TR_TEXT && it->md.src.len > 0) {
			buf_append(out, it->md.src.data, it->md.src.len);
			return true;
		}
	}
	return false;
}

const char *
tr_query(const struct transcript *tr)
{
	return tr->query;
}

void
tr_search_clear(struct transcript *tr)
{
	free(tr->query);
	tr->query = NULL;
	tr->has_match = false;
}

/* Does q occur in l, ignoring ASCII case? */
static bool
tr_line_matches(const struct sline *l, const char *q)
{
	size_t qn = strlen(q), i;

	if (l->text == NULL || qn == 0 || qn > l->len)
		return false;
	for (i = 0; i + qn <= l->len; i++)
		if (strncasecmp(l->text + i, q, qn) == 0)
			return true;
	return false;
}

int
tr_search(struct transcript *tr, const char *query, bool older)
{
	struct tr_pos p;
	bool moved;

	if (query == NULL || *query == '\0')
		return -1;
	if (tr->query == NULL || strcmp(tr->query, query) != 0) {
		free(tr->query);
		tr->query = xstrdup(query);
		tr->has_match = false;
	}
	tr_update(tr);
	if (tr->has_match)
		p = tr->match;
	else if (!tr_view_top(tr, &p))
		return -1;
	else if (older && tr->follow) {
		/* From the end: the newest match first. */
		p.item = tr->n - 1;
		p.line = SIZE_MAX;
		if (!tr_clamp(tr, &p))
			return -1;
		if (tr_line_matches(tr_line(tr, p.item, p.line), query))
			goto found;
	}
	for (;;) {
		moved = older ? tr_prev_line(tr, &p) : tr_next_line(tr, &p);
		if (!moved)
			return -1;
		if (tr_line_matches(tr_line(tr, p.item, p.line), query))
			break;
	}
found:
	p.row = 0;
	tr->match = p;
	tr->has_match = true;
	tr->top = p;
	tr->follow = false;
	/* A little context above the match. */
	tr_scroll(tr, -(tr->height > 6 ? 2 : 0));
	return 0;
}

void
tr_print(struct transcript *tr, FILE *f)
{
	size_t i, k;

	tr_update(tr);
	for (i = 0; i < tr->n; i++) {
		size_t n = tr_nlines(tr, i);

		for (k = 0; k < n; k++) {
			const struct sline *l = tr_line(tr, i, k);

			if (l->len > 0)
				fwrite(l->text, 1, l->len, f);
			fputc('\n', f);
		}
	}
}

void
tr_turn_lines(struct transcript *tr, int turn, struct slvec *out)
{
	size_t i, k;

	tr_update(tr);
	for (i = 0; i < tr->n; i++) {
		if (tr->items[i]->kind == TR_NOTICE || tr->items[i]->turn != turn)
			continue;
		for (k = 0; k < tr_nlines(tr, i); k++)
			sline_copy(slvec_push(out), tr_line(tr, i, k));
	}
}
