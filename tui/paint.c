/*
 * paint: drawing the panes with curses.
 *
 * Each pane is a window; a frame erases and redraws only the dirty ones
 * (what is visible, from the models' wrap caches), wnoutrefresh-es each
 * and calls doupdate once, with the cursor hidden meanwhile.  curses sends
 * only the cells that changed, so nothing flickers.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "draw.h"
#include "ev.h"
#include "json.h"
#include "statusline.h"
#include "utf8.h"
#include "wrap.h"

#define PAINT_TAIL	3	/* output lines under a running command */

static const char *const paint_spinner[] = {
	"\xE2\xA0\x8B", "\xE2\xA0\x99", "\xE2\xA0\xB9", "\xE2\xA0\xB8", "\xE2\xA0\xBC",
	"\xE2\xA0\xB4", "\xE2\xA0\xA6", "\xE2\xA0\xA7", "\xE2\xA0\x87", "\xE2\xA0\x8F",
};

/* Per tool state: icon and role (the spinner replaces the running icon). */
static const struct paint_state {
	const char	*icon;
	int		 role;
} paint_states[] = {
	[TV_QUEUED]	= { "\xC2\xB7", ROLE_TOOL_QUEUED },
	[TV_WAITING]	= { "?", ROLE_TOOL_WAITING },
	[TV_RUNNING]	= { "", ROLE_TOOL_RUNNING },
	[TV_DONE]	= { "\xE2\x9C\x93", ROLE_TOOL_DONE },
	[TV_FAILED]	= { "\xE2\x9C\x97", ROLE_TOOL_FAILED },
	[TV_DENIED]	= { "\xE2\x8A\x98", ROLE_TOOL_DENIED },
	[TV_INTERRUPTED] = { "\xE2\x9C\x97", ROLE_WARNING },
};

/* The theme's glyphs, or the ASCII set where the terminal cannot draw them. */
static void
paint_glyphs_apply(struct app *a)
{
	struct theme_glyphs ascii;

	theme_glyphs_default(&ascii, true);
	tr_set_glyphs(a->tr, a->ascii_glyphs ? &ascii : &a->theme.glyphs);
	a->roles.ascii = a->ascii_glyphs;
}

void
paint_theme_apply(struct app *a)
{
	int i;

	if (a->no_color || !has_colors())
		a->depth = THEME_MONO;
	else {
		start_color();
		use_default_colors();
		a->depth = COLORS >= 256 ? THEME_256 : COLORS >= 8 ? THEME_8 : THEME_MONO;
		if (COLOR_PAIRS <= ROLE_COUNT)
			a->depth = THEME_MONO;
	}
	for (i = 0; i < ROLE_COUNT; i++) {
		int fg, bg;
		unsigned ta;

		theme_resolve(&a->theme.role[i], a->depth, &fg, &bg, &ta);
		a->roles.attr[i] = draw_ta(ta);
		a->roles.pair[i] = 0;
		if (a->depth != THEME_MONO && init_pair((short)(i + 1), (short)fg, (short)bg) == OK)
			a->roles.pair[i] = (short)(i + 1);
	}
	paint_glyphs_apply(a);
	app_dirty(a, D_PANES | D_LAYOUT | D_CLEAR);
}

static void
paint_tr_row(void *arg, int y, struct sline *l, uint32_t row, bool selected)
{
	struct draw_ctx *c = arg;
	int over = c->over;

	if (selected)
		c->over = ROLE_SELECTION;
	draw_row(c, y + 1, l, row);
	c->over = over;
}

/* The turn browser, over the transcript's window. */
static void
paint_browser(struct app *a)
{
	WINDOW *w = a->win[PANE_TRANSCRIPT];
	struct rect *r = &a->rect[PANE_TRANSCRIPT];
	struct browser *br = &a->br;
	struct draw_ctx c = { &a->roles, w, 0, r->w, -1, NULL };
	char right[64] = "", title[48];
	int y = 1;
	size_t i;

	werase(w);
	if (br->detail) {
		snprintf(title, sizeof title, "turn %lld", (long long)json_int(cJSON_GetArrayItem(br->turns,
		    br->sel), "turn", 0));
	} else {
		snprintf(title, sizeof title, "%s", br->pick ? "edit an earlier prompt" : "turns");
		br->top = browse_scroll(&br->lines, br->top, br->sel_from, br->sel_to, r->w, r->h - 1);
	}
	snprintf(right, sizeof right, "%d of %d", br->sel + 1, cJSON_GetArraySize(br->turns));
	draw_title(&a->roles, w, 0, r->w, title, right, true);
	for (i = br->top; i < br->lines.n && y < r->h; i++) {
		struct sline *l = &br->lines.v[i];
		uint32_t k, rows = sline_rows(l, r->w);

		c.over = i >= br->sel_from && i < br->sel_to ? ROLE_SELECTION : -1;
		for (k = 0; k < rows && y < r->h; k++)
			draw_row(&c, y++, l, k);
	}
	wnoutrefresh(w);
}

static void
paint_transcript(struct app *a)
{
	WINDOW *w = a->win[PANE_TRANSCRIPT];
	struct rect *r = &a->rect[PANE_TRANSCRIPT];
	bool border = r->x + r->w < COLS && a->zoom < 0;
	int width = r->w - (border ? 1 : 0), y;
	struct draw_ctx c = { &a->roles, w, 0, width, -1, tr_query(a->tr) };
	char right[128] = "";

	if (a->br.on) {
		paint_browser(a);
		return;
	}
	werase(w);
	tr_set_size(a->tr, width, r->h - 1);
	if (tr_query(a->tr) != NULL)
		snprintf(right, sizeof right, "search: %.60s", tr_query(a->tr));
	else if (!tr_following(a->tr))
		snprintf(right, sizeof right, "%s", "scrolled \xE2\x80\x94 End to follow");
	draw_title(&a->roles, w, 0, width, "transcript", right, a->focus == PANE_TRANSCRIPT);
	tr_paint(a->tr, paint_tr_row, &c);
	if (border) {
		for (y = 0; y < r->h; y++) {
			wmove(w, y, width);
			draw_cluster(&a->roles, w, y == 0 ? "\xE2\x94\xAC" : "\xE2\x94\x82", 3, ROLE_BORDER, 0);
		}
	}
	wnoutrefresh(w);
}

/*
 * Stacked, the tools pane gives its rows back to the transcript once
 * nothing runs and nothing waits for the user: the transcript's lines
 * say what each call did.
 */
static bool
paint_tool_shown(const struct app *a, const struct tv_entry *e)
{
	if (layout_wide(COLS) || a->zoom == PANE_TOOLS || a->focus == PANE_TOOLS)
		return true;
	if (e->state == TV_QUEUED)
		return e->turn >= a->turn && app_busy(a);
	return e->state == TV_RUNNING || e->state == TV_WAITING;
}

static int
paint_tool_height(const struct tv_entry *e)
{
	size_t lines = 0;
	const char *s;

	if (e->state != TV_RUNNING || e->out.len == 0)
		return 1;
	for (s = e->out.data; s != NULL && (s = memchr(s, '\n', e->out.len - (size_t)(s - e->out.data))) != NULL; s++)
		if (++lines >= PAINT_TAIL)
			break;
	return 1 + (int)(lines > 0 ? lines : 1);
}

int
paint_tool_rows(struct app *a)
{
	size_t i = a->tools.n;
	int rows = 0;

	while (i-- > 0 && rows < 64) {
		if (!paint_tool_shown(a, &a->tools.v[i]))
			break;
		rows += paint_tool_height(&a->tools.v[i]);
	}
	return rows > 0 ? rows + 1 : 0;
}

static void
paint_duration(int64_t ms, char *out, size_t size)
{
	if (ms < 0)
		snprintf(out, size, "%s", "");
	else if (ms < 1000)
		snprintf(out, size, "%lldms", (long long)ms);
	else if (ms < 60000)
		snprintf(out, size, "%.1fs", (double)ms / 1000.0);
	else
		snprintf(out, size, "%lldm%02llds", (long long)(ms / 60000), (long long)(ms / 1000 % 60));
}

/* One tool entry at row y: icon, name, summary, and its state on the right. */
static void
paint_tool_line(struct app *a, struct draw_ctx *c, int y, const struct tv_entry *e, int64_t now)
{
	const struct paint_state *ps = &paint_states[e->state];
	char right[48], dur[24];
	struct sline l;
	int room;
	size_t rw;

	sline_init(&l);
	sline_add(&l, " ", 1, ROLE_TEXT, 0);
	sline_adds(&l, e->state == TV_RUNNING ? paint_spinner[a->spin % 10] : ps->icon, ps->role, TA_BOLD);
	sline_add(&l, " ", 1, ROLE_TEXT, 0);
	sline_adds(&l, e->name, ROLE_ACCENT, 0);
	sline_add(&l, " ", 1, ROLE_TEXT, 0);
	if (e->state == TV_RUNNING)
		paint_duration(now - e->started, dur, sizeof dur);
	else
		paint_duration(e->duration, dur, sizeof dur);
	if (e->state == TV_RUNNING)
		snprintf(right, sizeof right, "running %llds", (long long)((now - e->started) / 1000));
	else if (e->state == TV_DONE)
		snprintf(right, sizeof right, "%s", dur);
	else if (e->state == TV_FAILED)
		snprintf(right, sizeof right, "failed %s", dur);
	else
		snprintf(right, sizeof right, "%s", tv_state_name(e->state));
	rw = wrap_width(right, strlen(right));
	room = c->width - (int)sline_width(&l) - (int)rw - 2;
	if (room > 0) {
		size_t fit = wrap_fit(e->summary, strlen(e->summary), room);

		sline_add(&l, e->summary, fit, ROLE_TEXT, 0);
		while ((int)sline_width(&l) < c->width - (int)rw - 1)
			sline_add(&l, " ", 1, ROLE_TEXT, 0);
	}
	sline_adds(&l, right, ps->role, 0);
	l.flags = SL_NOWRAP;
	draw_row(c, y, &l, 0);
	sline_release(&l);
}

static void
paint_tool_tail(struct draw_ctx *c, int y, const char *s, size_t n)
{
	struct sline l;

	sline_init(&l);
	sline_adds(&l, "   \xE2\x94\x82 ", ROLE_BORDER, 0);
	sline_add(&l, s, n, ROLE_TOOL_OUTPUT, 0);
	l.flags = SL_NOWRAP;
	draw_row(c, y, &l, 0);
	sline_release(&l);
}

static void
paint_tools(struct app *a)
{
	WINDOW *w = a->win[PANE_TOOLS];
	struct rect *r = &a->rect[PANE_TOOLS];
	struct draw_ctx c = { &a->roles, w, 0, r->w, -1, NULL };
	int64_t now = ev_now_ms();
	int y = r->h, skip = a->tools_scroll;
	size_t i = a->tools.n, first;
	char right[48];

	werase(w);
	snprintf(right, sizeof right, "%zu", a->tools.n);
	draw_title(&a->roles, w, 0, r->w, "tools", a->tools.n ? right : "", a->focus == PANE_TOOLS);
	/* Newest at the bottom: find the first entry that fits, then draw down. */
	while (i > 0 && y > 1) {
		int h = paint_tool_height(&a->tools.v[i - 1]);

		if (!paint_tool_shown(a, &a->tools.v[i - 1]))
			break;
		if (skip > 0) {
			skip--;
			i--;
			continue;
		}
		if (y - h < 1)
			break;
		y -= h;
		i--;
	}
	first = i;
	for (i = first; y < r->h && i < a->tools.n; i++) {
		const struct tv_entry *e = &a->tools.v[i];
		const char *lines[PAINT_TAIL];
		size_t lens[PAINT_TAIL], n, k;

		if (a->tools_scroll > 0 && a->tools.n - i <= (size_t)a->tools_scroll)
			break;
		paint_tool_line(a, &c, y++, e, now);
		if (e->state != TV_RUNNING)
			continue;
		n = tv_tail(e, (size_t)(paint_tool_height(e) - 1), lines, lens);
		for (k = 0; k < n && y < r->h; k++)
			paint_tool_tail(&c, y++, lines[k], lens[k]);
	}
	if (a->tools.n == 0 && r->h > 1) {
		struct sline l;

		sline_init(&l);
		sline_adds(&l, " no tool calls yet", ROLE_DIM, 0);
		draw_row(&c, 1, &l, 0);
		sline_release(&l);
	}
	wnoutrefresh(w);
}

static void
paint_diff(struct app *a)
{
	udiff_view_paint(&a->diff, &a->roles, a->win[PANE_DIFF], a->rect[PANE_DIFF].w, a->rect[PANE_DIFF].h,
	    a->focus == PANE_DIFF);
}

/* The followed call's title: what it is and what it touched. */
static void
paint_follow_title(struct udiff_view *v, const struct tr_call *c)
{
	const char *state = c->denied ? "  denied" : c->interrupted ? "  interrupted" :
	    c->is_error ? "  failed" : "";

	if (c->done && !c->is_error && c->diff != NULL && v->d.file != NULL)
		(void)snprintf(v->title, sizeof v->title, "%s  +%d \xE2\x88\x92%d", v->d.file, v->d.adds, v->d.dels);
	else
		(void)snprintf(v->title, sizeof v->title, "%s %s%s", c->name, c->summary, state);
}

/*
 * The diff pane follows the selected call (else the newest finished one):
 * an edit's diff, a command's output, a denial.  A pending approval or
 * what the user asked for (/diff, a turn's diff) has it first.
 */
static void
paint_follow(struct app *a)
{
	struct udiff_view *v = &a->diff;
	struct tr_call c;
	const char *text;
	char denied[512];
	size_t n;

	if (v->live || (v->asked && !v->follows)) {
		v->follows = false;
		return;
	}
	/* Stacked, the pane would not be shown: nothing to make. */
	if (!layout_wide(COLS)) {
		v->on = v->follows = false;
		return;
	}
	if (v->follows && v->follow_gen == tr_gen(a->tr))
		return;
	/* Nothing to follow: an answered approval's text does not stay. */
	if (!tr_call_followed(a->tr, &c)) {
		if (v->on)
			app_dirty(a, D_DIFF | D_LAYOUT);
		v->on = v->follows = false;
		return;
	}
	if (!c.done)
		text = "(running; its output shows here when it is done)";
	else if (c.denied) {
		(void)snprintf(denied, sizeof denied, "denied%s%s", c.reason != NULL ? ": " : "",
		    c.reason != NULL ? c.reason : "");
		text = denied;
	} else if (c.diff != NULL && !c.is_error)
		text = c.diff;
	else
		text = c.len > 0 ? c.text : "(no output)";
	n = strlen(text);
	udiff_view_show(v, c.name, text, n);
	v->asked = false;
	v->follows = true;
	v->follow_gen = tr_gen(a->tr);
	paint_follow_title(v, &c);
	app_dirty(a, D_DIFF | D_LAYOUT);
}

/* The label before the text being edited, by mode. */
static const char *
paint_input_label(const struct app *a)
{
	if (a->mode == MODE_SEARCH)
		return "search \xE2\x80\xBA ";
	if (a->mode == MODE_REASON)
		return "why? \xE2\x80\xBA ";
	if (a->ed.searching)
		return "history \xE2\x80\xBA ";
	return "\xE2\x80\xBA ";
}

/* The input's top rule, with the hint (completions, what a mode wants). */
static void
paint_input_rule(struct app *a, struct draw_ctx *c)
{
	struct sline rule;

	sline_init(&rule);
	sline_adds(&rule, "\xE2\x94\x80", ROLE_BORDER, 0);
	queue_rule(a, &rule);
	if (a->hint.len > 0) {
		sline_adds(&rule, " ", ROLE_BORDER, 0);
		sline_add(&rule, a->hint.data, a->hint.len, ROLE_ACCENT, 0);
		sline_adds(&rule, " ", ROLE_BORDER, 0);
	} else if (a->ed.searching) {
		sline_adds(&rule, " Enter keeps it, Esc goes back, Ctrl+R older ", ROLE_DIM, 0);
	} else if (a->resend_turn > 0 && a->mode == MODE_EDIT) {
		char what[128];

		snprintf(what, sizeof what, " turn %d's prompt: Enter rewinds to before it and sends; Esc cancels ",
		    a->resend_turn);
		sline_adds(&rule, what, ROLE_ACCENT, 0);
	}
	sline_adds(&rule, "\xE2\x94\x80", ROLE_BORDER, 0);
	rule.flags = SL_NOWRAP | SL_FILL;
	draw_row(c, 0, &rule, 0);
	sline_release(&rule);
}

/* History search: the query, then what it found. */
static void
paint_input_history(struct app *a, struct draw_ctx *c, const char *label, int *cy, int *cx)
{
	const char *q = a->ed.query.data ? a->ed.query.data : "", *m = ed_search_match(&a->ed);
	struct sline l;

	sline_init(&l);
	sline_adds(&l, label, ROLE_ACCENT, TA_BOLD);
	sline_add(&l, q, a->ed.query.len, ROLE_INPUT, TA_UNDERLINE);
	sline_adds(&l, "  ", ROLE_INPUT, 0);
	sline_adds(&l, m ? m : "(no match)", ROLE_DIM, 0);
	l.flags = SL_NOWRAP;
	draw_row(c, 1, &l, 0);
	sline_release(&l);
	*cy = a->rect[PANE_INPUT].y + 1;
	*cx = (int)wrap_width(label, strlen(label)) + (int)wrap_width(q, a->ed.query.len);
}

/* One row of the text being edited (the label on the first, its width of spaces after). */
static void
paint_input_row(struct draw_ctx *c, int y, const char *label, int lw, bool first, int role,
    const char *s, size_t n, int text_role)
{
	struct sline l;
	int k;

	sline_init(&l);
	if (first)
		sline_adds(&l, label, role, TA_BOLD);
	else
		for (k = 0; k < lw; k++)
			sline_add(&l, " ", 1, ROLE_INPUT, 0);
	sline_add(&l, s, n, text_role, 0);
	l.flags = SL_NOWRAP;
	draw_row(c, y, &l, 0);
	sline_release(&l);
}

static void
paint_input(struct app *a, int *cy, int *cx)
{
	WINDOW *w = a->win[PANE_INPUT];
	struct rect *r = &a->rect[PANE_INPUT];
	struct draw_ctx c = { &a->roles, w, 0, r->w, -1, NULL };
	const struct editor *e = a->mode == MODE_EDIT ? &a->ed : &a->aux;
	const char *label = paint_input_label(a), *text = ed_text(e);
	int lw = (int)wrap_width(label, strlen(label)), first, y;
	int role = a->mode == MODE_EDIT ? ROLE_USER : ROLE_ACCENT;
	struct ed_layout lo;
	unsigned k;

	werase(w);
	paint_input_rule(a, &c);
	if (a->mode == MODE_EDIT && a->ed.searching) {
		paint_input_history(a, &c, label, cy, cx);
		wnoutrefresh(w);
		return;
	}
	memset(&lo, 0, sizeof lo);
	ed_layout(e, r->w, lw, &lo);
	first = lo.cur_row - (r->h - 2);
	if (first < 0)
		first = 0;
	for (k = (unsigned)first, y = 1; k < lo.nrows && y < r->h; k++, y++)
		paint_input_row(&c, y, label, lw, k == 0, role, text + lo.rows[k].start,
		    lo.rows[k].end - lo.rows[k].start, ROLE_INPUT);
	if (ed_empty(e) && a->mode == MODE_EDIT && r->h > 1)
		paint_input_row(&c, 1, label, lw, true, role, "? for keys, / for commands", 26, ROLE_DIM);
	*cy = r->y + 1 + lo.cur_row - first;
	*cx = lo.cur_col;
	ed_layout_release(&lo);
	wnoutrefresh(w);
}

static void
paint_status(struct app *a)
{
	WINDOW *w = a->win[PANE_STATUS];
	struct rect *r = &a->rect[PANE_STATUS];
	struct draw_ctx c = { &a->roles, w, 0, r->w, -1, NULL };
	struct sline l;

	werase(w);
	sline_init(&l);
	if (statusline_text(a->sl) != NULL)
		st_format_custom(&a->st, statusline_text(a->sl), r->w, &l);
	else
		st_format(&a->st, r->w, ev_now_ms(), &l);
	draw_row(&c, 0, &l, 0);
	sline_release(&l);
	wnoutrefresh(w);
}

/* The input editor's rows wanted: its text rows and the rule. */
static int
paint_input_rows(struct app *a)
{
	const struct editor *e = a->mode == MODE_EDIT ? &a->ed : &a->aux;
	const char *label = paint_input_label(a);
	struct ed_layout lo;
	int rows;

	memset(&lo, 0, sizeof lo);
	ed_layout(e, COLS, (int)wrap_width(label, strlen(label)), &lo);
	rows = (int)lo.nrows + 1;
	ed_layout_release(&lo);
	return rows;
}

void
paint_free(struct app *a)
{
	int i;

	for (i = 0; i < PANE_COUNT; i++) {
		if (a->win[i] != NULL)
			delwin(a->win[i]);
		a->win[i] = NULL;
	}
}

void
paint_place(struct app *a)
{
	struct layout_req q;
	int i;

	memset(&q, 0, sizeof q);
	q.rows = LINES;
	q.cols = COLS;
	q.input_rows = paint_input_rows(a);
	q.approval_rows = approve_count(a) > 0 || approve_asking(a) ? 2 : 0;
	q.tool_rows = paint_tool_rows(a);
	q.diff_rows = a->diff.on && (a->diff.live || a->diff.asked || layout_wide(COLS)) ? udiff_view_rows(&a->diff) : 0;
	if (q.diff_rows > 0 && q.diff_rows < 3)
		q.diff_rows = 3;
	q.zoom = a->br.on ? PANE_TRANSCRIPT : a->zoom;
	q.plan_rows = a->br.on ? 0 : askpick_rows(a);
	if (memcmp(&q, &a->req, sizeof q) == 0 && !(a->dirty & D_LAYOUT))
		return;
	a->req = q;
	layout_compute(&q, a->rect);
	paint_free(a);
	for (i = 0; i < PANE_COUNT; i++) {
		struct rect *r = &a->rect[i];

		if (r->h <= 0 || r->w <= 0)
			continue;
		a->win[i] = newwin(r->h, r->w, r->y, r->x);
		if (a->win[i] != NULL) {
			wbkgdset(a->win[i], (chtype)' ' | COLOR_PAIR(a->roles.pair[i == PANE_STATUS ? ROLE_STATUS : ROLE_TEXT]));
			leaveok(a->win[i], TRUE);
		}
	}
	if (a->win[PANE_INPUT] != NULL)
		leaveok(a->win[PANE_INPUT], FALSE);
	a->dirty |= D_PANES;
}

int
paint_pane_at(const struct app *a, int y, int x)
{
	int i;

	for (i = 0; i < PANE_COUNT; i++) {
		const struct rect *r = &a->rect[i];

		if (r->h > 0 && y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
			return i;
	}
	return -1;
}

/*
 * The panes a frame composes, in order: its dirty bit and who paints it.
 * The input is painted last, apart, as the terminal's cursor stays where
 * its window's is.
 */
static const struct paint_pane {
	int		 pane;
	unsigned	 dirty;
	void		 (*paint)(struct app *);
} paint_panes[] = {
	{ PANE_TRANSCRIPT, D_TRANSCRIPT, paint_transcript },
	{ PANE_TOOLS, D_TOOLS, paint_tools },
	{ PANE_DIFF, D_DIFF, paint_diff },
	{ PANE_APPROVAL, D_APPROVAL, approve_paint },
	{ PANE_STATUS, D_STATUS, paint_status },
	{ PANE_PLAN, D_PLAN, askpick_paint },
};

void
paint_frame(struct app *a)
{
	size_t i;
	unsigned d;
	int cy = 0, cx = 0;
	bool show_cursor;

	tr_update(a->tr);
	paint_follow(a);
	if (st_set_waiting(&a->st, approve_count(a) > 0 ? "waiting for your approval" : approve_asking(a) ||
	    askpick_on(a) ? "waiting for your answer" : a->mode == MODE_REASON ? "waiting for your reason" : NULL))
		a->dirty |= D_STATUS;
	paint_place(a);
	d = a->dirty;
	a->dirty = 0;
	if (d & D_CLEAR)
		clearok(curscr, TRUE);
	for (i = 0; i < sizeof paint_panes / sizeof paint_panes[0]; i++)
		if ((d & paint_panes[i].dirty) && a->win[paint_panes[i].pane])
			paint_panes[i].paint(a);
	/* The input last: the terminal's cursor stays where its window's is. */
	if (a->win[PANE_INPUT]) {
		if (d & D_INPUT)
			paint_input(a, &cy, &cx);
		else {
			getyx(a->win[PANE_INPUT], cy, cx);
			cy += a->rect[PANE_INPUT].y;
		}
		wmove(a->win[PANE_INPUT], cy - a->rect[PANE_INPUT].y, cx);
		wnoutrefresh(a->win[PANE_INPUT]);
	}
	show_cursor = a->focus == PANE_INPUT && a->win[PANE_INPUT] != NULL && !a->br.on && !approve_asking(a);
	curs_set(0);
	doupdate();
	if (show_cursor)
		curs_set(1);
}
