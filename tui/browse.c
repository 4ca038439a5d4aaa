/* The turn browser: see browse.h. */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "browse.h"
#include "gitbin.h"
#include "json.h"
#include "theme.h"
#include "wrap.h"

#define BROWSE_PROMPT_COLS	56	/* of a prompt on the list */
#define BROWSE_INDENT		"        "

void
browse_init(struct browser *br)
{
	memset(br, 0, sizeof *br);
	slvec_init(&br->lines);
}

void
browse_release(struct browser *br)
{
	cJSON_Delete(br->turns);
	br->turns = NULL;
	slvec_release(&br->lines);
	br->on = br->pick = br->detail = false;
}

/* ---- the lines (pure) ---- */

/* "14:02 · 1.2k tokens · 2.1s", whatever of it the turn knows. */
static void
browse_figures(const cJSON *t, char *out, size_t size)
{
	time_t when = (time_t)json_num(t, "time", 0);
	int64_t ms = json_int(t, "ms", 0);
	char clock[16] = "", tok[16], dur[24];
	struct tm tm;
	int r;

	if (when > 0 && localtime_r(&when, &tm) != NULL)
		strftime(clock, sizeof clock, "%H:%M", &tm);
	st_tokens(json_int(t, "tokens", 0), tok, sizeof tok);
	if (ms < 1000)
		snprintf(dur, sizeof dur, "%lldms", (long long)(ms > 0 ? ms : 0));
	else
		snprintf(dur, sizeof dur, "%.1fs", (double)ms / 1000.0);
	r = snprintf(out, size, "%s%s%s tokens \xC2\xB7 %s", clock, *clock ? " \xC2\xB7 " : "", tok, dur);
	if (r < 0)
		out[0] = '\0';
}

/* The tools, each once with its count: "edit_file ×2, run_bash". */
static void
browse_tools(const cJSON *t, struct buf *out)
{
	const cJSON *tools = json_get(t, "tools"), *x, *y;
	int i = 0;

	cJSON_ArrayForEach(x, tools) {
		int count = 0, j = 0;
		bool seen = false;

		if (!cJSON_IsString(x))
			continue;
		cJSON_ArrayForEach(y, tools) {
			if (cJSON_IsString(y) && strcmp(y->valuestring, x->valuestring) == 0) {
				seen |= j < i;
				count++;
			}
			j++;
		}
		i++;
		if (seen)
			continue;
		buf_printf(out, "%s%s", out->len ? ", " : "", x->valuestring);
		if (count > 1)
			buf_printf(out, " \xC3\x97%d", count);
	}
}

static void
browse_files(const cJSON *t, struct buf *out)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, json_get(t, "files"))
		if (cJSON_IsString(f))
			buf_printf(out, "%s%s", out->len ? ", " : "", f->valuestring);
}

/* A legend line: pairs of a key and what it does. */
static void
browse_legend(struct slvec *out, const char *const *pairs, size_t n)
{
	struct sline *l = slvec_push(out);
	size_t i;

	sline_adds(l, " ", ROLE_DIM, 0);
	for (i = 0; i + 1 < n; i += 2) {
		if (i > 0)
			sline_adds(l, " \xC2\xB7 ", ROLE_DIM, 0);
		sline_adds(l, pairs[i], ROLE_APPROVAL_KEY, TA_BOLD);
		sline_adds(l, " ", ROLE_DIM, 0);
		sline_adds(l, pairs[i + 1], ROLE_DIM, 0);
	}
	sline_set_cont(l, " ", ROLE_DIM);
}

static void
browse_text(struct slvec *out, const char *text, int role, unsigned attr)
{
	struct sline *l = slvec_push(out);

	sline_adds(l, text, role, attr);
	sline_set_cont(l, " ", role);
}

/* The first line of a prompt, cut to cols columns. */
static void
browse_prompt_head(struct sline *l, const char *p, int cols, int role)
{
	size_t n = strcspn(p, "\n"), fit = wrap_fit(p, n, cols);

	sline_add(l, p, fit, role, 0);
	if (fit < n || p[n] == '\n')
		sline_adds(l, "\xE2\x80\xA6", ROLE_DIM, 0);
}

/* What each command of the turn changed (wsnap_turn_add's lines). */
static void
browse_changes(const cJSON *t, struct slvec *out)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, json_get(t, "changes"))
		if (cJSON_IsString(x))
			browse_text(out, x->valuestring,
			    strncmp(x->valuestring, "    !", 5) == 0 ? ROLE_WARNING : ROLE_DIM, 0);
}

/* A turn is numbered by its place in the conversation as it stands, not by the session's count. */
static void
browse_entry(const cJSON *t, int nth, bool selected, struct slvec *out)
{
	struct buf b = BUF_INIT(64 * 1024);
	struct sline *l = slvec_push(out);
	char num[16], fig[96];

	snprintf(num, sizeof num, "%3d", nth);
	sline_adds(l, selected ? " \xE2\x96\xB8 " : "   ", ROLE_ACCENT, TA_BOLD);
	sline_adds(l, num, ROLE_ACCENT, TA_BOLD);
	sline_adds(l, "  ", ROLE_TEXT, 0);
	browse_prompt_head(l, json_str(t, "prompt", ""), BROWSE_PROMPT_COLS, ROLE_USER);
	browse_figures(t, fig, sizeof fig);
	sline_adds(l, "  ", ROLE_TEXT, 0);
	sline_adds(l, fig, ROLE_DIM, 0);
	l->flags |= SL_NOWRAP;

	l = slvec_push(out);
	sline_adds(l, BROWSE_INDENT, ROLE_TEXT, 0);
	sline_mark_body(l);
	sline_set_cont(l, BROWSE_INDENT, ROLE_TEXT);
	browse_tools(t, &b);
	sline_adds(l, b.len ? buf_cstr(&b) : "no tools", ROLE_DIM, 0);
	if (json_bool(t, "bash", false))
		sline_adds(l, "  \xE2\x9A\xA0 run_bash: its changes are not tracked", ROLE_WARNING, 0);
	buf_reset(&b);
	browse_files(t, &b);
	if (b.len > 0) {
		sline_adds(l, "  files: ", ROLE_DIM, 0);
		sline_adds(l, buf_cstr(&b), ROLE_DIFF_FILE, 0);
	}
	buf_release(&b);
	browse_changes(t, out);
}

void
browse_list(const cJSON *turns, int sel, bool pick, struct slvec *out, size_t *sel_from, size_t *sel_to)
{
	static const char *const keys[] = {
		"Enter", "view the turn", "r", "rewind the conversation", "f", "the files", "b", "both",
		"k", "fork from it", "u", "redo (undo the last rewind)", "d", "diff", "Esc", "close",
	};
	static const char *const pick_keys[] = {
		"Enter", "edit this prompt: sending it rewinds the conversation to before its turn",
		"Esc", "cancel",
	};
	const cJSON *t;
	int i = 0;

	*sel_from = *sel_to = 0;
	if (pick) {
		browse_legend(out, pick_keys, sizeof pick_keys / sizeof pick_keys[0]);
	} else {
		browse_legend(out, keys, sizeof keys / sizeof keys[0]);
		browse_text(out, " Rewound files come back from tandem's snapshots, commands' changes too "
		    "(those of ignored and oversized files are named, not restored).", ROLE_DIM, 0);
	}
	slvec_push(out);
	cJSON_ArrayForEach(t, turns) {
		if (i == sel)
			*sel_from = out->n;
		browse_entry(t, i + 1, i == sel, out);
		if (i == sel)
			*sel_to = out->n;
		i++;
	}
	if (i == 0)
		browse_text(out, "   no turns yet", ROLE_DIM, 0);
}

void
browse_detail(const cJSON *t, int nth, struct slvec *body, struct slvec *out)
{
	static const char *const keys[] = {
		"r", "rewind the conversation to before it", "f", "the files", "b", "both",
		"k", "fork from it", "d", "its diff", "Esc", "back to the list",
	};
	struct buf b = BUF_INIT(256 * 1024), list = BUF_INIT(256 * 1024);
	char fig[96];
	const char *p, *nl;

	browse_figures(t, fig, sizeof fig);
	buf_printf(&b, " Turn %d \xC2\xB7 %s", nth, fig);
	browse_text(out, buf_cstr(&b), ROLE_HEADING, TA_BOLD);
	buf_reset(&b);
	browse_tools(t, &list);
	buf_printf(&b, " Tools: %s", list.len ? buf_cstr(&list) : "none");
	browse_text(out, buf_cstr(&b), ROLE_TEXT, 0);
	buf_reset(&b);
	buf_reset(&list);
	browse_files(t, &list);
	buf_printf(&b, " Files changed by tandem: %s", list.len ? buf_cstr(&list) : "none");
	browse_text(out, buf_cstr(&b), ROLE_TEXT, 0);
	if (json_bool(t, "bash", false))
		browse_text(out, " \xE2\x9A\xA0 This turn ran commands (run_bash): what they changed is not "
		    "tracked, and a rewind does not undo it.", ROLE_WARNING, 0);
	browse_changes(t, out);
	browse_legend(out, keys, sizeof keys / sizeof keys[0]);
	slvec_push(out);
	buf_release(&b);
	buf_release(&list);
	if (body != NULL && body->n > 0) {
		slvec_move(out, body);
		return;
	}
	/* Not in the transcript (cleared from the view): the prompt at least. */
	p = json_str(t, "prompt", "");
	do {
		struct sline *l = slvec_push(out);

		nl = strchr(p, '\n');
		sline_adds(l, p == json_str(t, "prompt", "") ? "\xE2\x80\xBA " : "  ", ROLE_USER, TA_BOLD);
		sline_mark_body(l);
		sline_set_cont(l, "  ", ROLE_USER);
		sline_add(l, p, nl ? (size_t)(nl - p) : strlen(p), ROLE_USER, 0);
		p = nl ? nl + 1 : NULL;
	} while (p != NULL);
}

size_t
browse_scroll(struct slvec *lines, size_t top, size_t from, size_t to, int width, int height)
{
	size_t i;
	int rows;

	if (lines->n == 0 || width < 1 || height < 1)
		return 0;
	if (top >= lines->n)
		top = lines->n - 1;
	if (to > lines->n)
		to = lines->n;
	if (from >= to)
		return top;
	if (from < top)
		return from;
	for (;;) {
		rows = 0;
		for (i = top; i < to; i++)
			rows += (int)sline_rows(&lines->v[i], width);
		if (rows <= height || top >= from)
			return top;
		top++;
	}
}

/* ---- the browser on the screen ---- */

static const cJSON *
browse_selected(const struct app *a)
{
	return cJSON_GetArrayItem(a->br.turns, a->br.sel);
}

static void
browse_render(struct app *a)
{
	struct browser *br = &a->br;

	slvec_truncate(&br->lines, 0);
	if (br->detail) {
		struct slvec body;

		slvec_init(&body);
		tr_turn_lines(a->tr, (int)json_int(browse_selected(a), "turn", 0), &body);
		browse_detail(browse_selected(a), br->sel + 1, &body, &br->lines);
		slvec_release(&body);
		br->sel_from = br->sel_to = 0;
	} else {
		browse_list(br->turns, br->sel, br->pick, &br->lines, &br->sel_from, &br->sel_to);
	}
	app_dirty(a, D_TRANSCRIPT);
}

/* Each turn that wrote a todo list shows it, as the list stood at the turn's end. */
static void
browse_todos(const struct app *a, cJSON *turns)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *t, *changes;
	const cJSON *list;

	cJSON_ArrayForEach(t, turns) {
		const char *plan = tdv_plan(&a->todo, (int)json_int(t, "turn", 0));

		list = tdv_turn(&a->todo, (int)json_int(t, "turn", 0));
		if (!cJSON_IsArray(changes = json_get(t, "changes")))
			changes = cJSON_AddArrayToObject(t, "changes");
		if (plan != NULL) {
			buf_reset(&b);
			buf_printf(&b, BROWSE_INDENT "plan approved: %s", plan);
			cJSON_AddItemToArray(changes, cJSON_CreateString(buf_cstr(&b)));
		}
		if (list == NULL || cJSON_GetArraySize(list) == 0)
			continue;
		buf_reset(&b);
		buf_puts(&b, BROWSE_INDENT "todo: ");
		tdv_summary(list, &b);
		cJSON_AddItemToArray(changes, cJSON_CreateString(buf_cstr(&b)));
	}
	buf_release(&b);
}

void
browse_open(struct app *a, bool pick)
{
	cJSON *turns;
	int n;

	if (a->agent == NULL) {
		app_notice(a, ROLE_DIM, "%s", "no agent: no turns to browse");
		return;
	}
	turns = a->be->turns(a->agent);
	n = cJSON_GetArraySize(turns);
	if (n == 0) {
		cJSON_Delete(turns);
		app_notice(a, ROLE_DIM, "%s", pick ? "no earlier prompt to edit" : "no turns yet");
		return;
	}
	browse_release(&a->br);
	browse_init(&a->br);
	browse_todos(a, turns);
	a->br.turns = turns;
	a->br.on = true;
	a->br.pick = pick;
	a->br.sel = n - 1;
	a->focus = PANE_INPUT;
	tr_select_none(a->tr);
	browse_render(a);
	app_dirty(a, D_PANES | D_LAYOUT);
}

void
browse_close(struct app *a)
{
	browse_release(&a->br);
	browse_init(&a->br);
	app_dirty(a, D_PANES | D_LAYOUT);
}

void
browse_move(struct app *a, int delta)
{
	struct browser *br = &a->br;
	int n = cJSON_GetArraySize(br->turns);

	if (br->detail) {
		long top = delta == INT_MIN ? 0 : delta == INT_MAX ? LONG_MAX : (long)br->top + delta;

		if (top < 0 || br->lines.n == 0)
			top = 0;
		else if ((size_t)top >= br->lines.n)
			top = (long)br->lines.n - 1;
		br->top = (size_t)top;
		app_dirty(a, D_TRANSCRIPT);
		return;
	}
	if (delta == INT_MIN || (long)br->sel + delta < 0)
		br->sel = 0;
	else if (delta == INT_MAX || (long)br->sel + delta >= n)
		br->sel = n - 1;
	else
		br->sel += delta;
	browse_render(a);
}

/* Enter: the turn in full (the list again from there), or in pick mode its prompt to edit. */
void
browse_enter(struct app *a)
{
	struct browser *br = &a->br;
	const cJSON *t = browse_selected(a);

	/* the ! commands since the last prompt have no prompt to edit */
	if (br->pick && json_bool(t, "pending", false)) {
		app_notice(a, ROLE_DIM, "%s", "that turn has no prompt yet: pick an earlier one");
		return;
	}
	if (br->pick) {
		int turn = (int)json_int(t, "turn", 0);

		ed_set(&a->ed, json_str(t, "prompt", ""));
		browse_close(a);
		/* The input's rule says so until it is sent or cancelled. */
		a->resend_turn = turn;
		return;
	}
	br->detail = !br->detail;
	br->top = 0;
	browse_render(a);
}

/* Esc: from a turn back to the list, from the list out. */
void
browse_back(struct app *a)
{
	if (a->br.detail) {
		a->br.detail = false;
		a->br.top = 0;
		browse_render(a);
		return;
	}
	browse_close(a);
}

/* r, f, b, k, u: act on the selected turn, then close. */
void
browse_act(struct app *a, int key)
{
	int turn = (int)json_int(browse_selected(a), "turn", 0);

	if (a->br.pick)
		return;
	browse_close(a);
	switch (key) {
	case 'r':
		browse_rewind(a, turn, REWIND_CONVERSATION);
		break;
	case 'f':
		browse_rewind(a, turn, REWIND_FILES);
		break;
	case 'b':
		browse_rewind(a, turn, REWIND_BOTH);
		break;
	case 'k':
		browse_fork(a, turn);
		break;
	case 'u':
		browse_redo(a);
		break;
	case 'd':
		browse_diff(a, turn);
		break;
	}
}

void
browse_diff(struct app *a, int turn)
{
	struct buf d = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096), shown = BUF_INIT(BUF_NOLIMIT);
	char title[64];

	if (a->be->turn_diff == NULL) {
		app_notice(a, ROLE_ERROR, "%s", "this backend cannot show a turn's diff");
	} else if (a->be->turn_diff(a->agent, turn, &d, &err) == -1) {
		app_notice(a, ROLE_ERROR, "%s", buf_cstr(&err));
	} else {
		(void)snprintf(title, sizeof title, "turn %d", turn);
		/* a binary patch is for git apply: the pane says one line of it */
		(void)gitbin_summarize(d.data ? d.data : "", d.len, &shown);
		if (shown.len == 0)
			buf_puts(&shown, "no file changes");
		udiff_view_show(&a->diff, title, buf_cstr(&shown), shown.len);
		app_dirty(a, D_DIFF | D_LAYOUT | D_PANES);
	}
	buf_release(&d);
	buf_release(&err);
	buf_release(&shown);
}

/* ---- rewind, redo, fork ---- */

/* The agent's report, in the role its result deserves. */
static void
browse_report(struct app *a, int r, struct buf *report)
{
	while (report->len > 0 && report->data[report->len - 1] == '\n')
		report->data[--report->len] = '\0';
	app_notice(a, r == -1 ? ROLE_ERROR : r == 1 ? ROLE_WARNING : ROLE_DIM, "%s",
	    report->len ? buf_cstr(report) : r == -1 ? "failed" : "done");
}

/*
 * The user's word on files changed outside tandem.  The rewind is done
 * but for them; agent_rewind cannot be asked again for the same turn (the
 * conversation is already there and its file records are marked undone),
 * so it is redone first (which leaves those files alone too) and then
 * rewound again with force.
 */
static void
browse_force_rewind(struct app *a, bool yes, const int arg[2])
{
	struct buf scratch = BUF_INIT(64 * 1024), report = BUF_INIT(64 * 1024);

	if (!yes) {
		app_notice(a, ROLE_DIM, "%s", "the files changed outside tandem were left alone");
		goto out;
	}
	if (a->be->redo(a->agent, false, &scratch) == -1) {
		browse_report(a, -1, &scratch);
		goto out;
	}
	browse_report(a, a->be->rewind(a->agent, arg[0], (enum rewind_what)arg[1], true, &report), &report);
out:
	buf_release(&scratch);
	buf_release(&report);
}

/* The same for a redo: rewind again (those files stay), then redo with force. */
static void
browse_force_redo(struct app *a, bool yes, const int arg[2])
{
	struct buf scratch = BUF_INIT(64 * 1024), report = BUF_INIT(64 * 1024);

	if (!yes) {
		app_notice(a, ROLE_DIM, "%s", "the files changed outside tandem were left alone");
		goto out;
	}
	if (a->be->rewind(a->agent, arg[0], (enum rewind_what)arg[1], false, &scratch) == -1) {
		browse_report(a, -1, &scratch);
		goto out;
	}
	browse_report(a, a->be->redo(a->agent, true, &report), &report);
out:
	buf_release(&scratch);
	buf_release(&report);
}

static const char browse_question[] =
    "Overwrite the files listed above with tandem's snapshots?";

void
browse_rewind(struct app *a, int turn, enum rewind_what what)
{
	struct buf report = BUF_INIT(64 * 1024);
	int r, arg[2] = { turn, (int)what };

	if (a->agent == NULL) {
		app_notice(a, ROLE_DIM, "%s", "no agent: nothing to rewind");
		return;
	}
	r = a->be->rewind(a->agent, turn, what, false, &report);
	browse_report(a, r, &report);
	buf_release(&report);
	if (r == 1)
		approve_ask(a, browse_question, browse_force_rewind, arg);
}

void
browse_redo(struct app *a)
{
	struct buf report = BUF_INIT(64 * 1024);
	int r, arg[2] = { a->rewound_turn, a->rewound_what };

	if (a->agent == NULL) {
		app_notice(a, ROLE_DIM, "%s", "no agent: nothing to redo");
		return;
	}
	r = a->be->redo(a->agent, false, &report);
	browse_report(a, r, &report);
	buf_release(&report);
	/* Which rewind was undone is known only if this screen saw it. */
	if (r == 1 && arg[0] > 0)
		approve_ask(a, browse_question, browse_force_redo, arg);
}

void
browse_fork(struct app *a, int turn)
{
	struct buf report = BUF_INIT(64 * 1024);

	if (a->agent == NULL) {
		app_notice(a, ROLE_DIM, "%s", "no agent: nothing to fork");
		return;
	}
	browse_report(a, a->be->fork_at(a->agent, turn, &report), &report);
	buf_release(&report);
}

/* Send an edited earlier prompt: back to before its turn, then on from there. */
int
browse_resend(struct app *a, const char *text)
{
	struct buf report = BUF_INIT(64 * 1024);
	int turn = a->resend_turn, r;

	a->resend_turn = 0;
	if (a->agent == NULL)
		return -1;
	r = a->be->rewind(a->agent, turn, REWIND_CONVERSATION, false, &report);
	if (r == -1) {
		browse_report(a, r, &report);
		buf_release(&report);
		return -1;
	}
	buf_release(&report);
	app_submit(a, text);
	return 0;
}
