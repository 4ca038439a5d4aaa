/*
 * approve: the queue of approval requests, the prompt, the diff pane's
 * content, and editing a proposal in the user's editor.
 *
 * Requests queue in arrival order; the first is shown (diff pane and the
 * prompt line) and answered with y, n, a or e.  An answer goes to the agent
 * with agent_answer; with no agent (replays) an "approval" event is emitted
 * instead, so the screen shows what the agent would report.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "draw.h"
#include "ev.h"
#include "event.h"
#include "askpick.h"
#include "json.h"
#include "mdview.h"
#include "utf8.h"
#include "visual.h"

#define APPROVE_EDIT_MAX	(16 * 1024 * 1024)

/* Per tool: how to ask, and which input the editor changes. */
static const struct approve_tool {
	const char	*name;
	const char	*verb;
	const char	*field;		/* edited with e */
	const char	*target;	/* the input that names what changes */
} approve_tools[] = {
	{ "edit_file", "Apply this edit to", "new_string", "path" },
	{ "write_file", "Write", "content", "path" },
	{ "apply_patch", "Apply this patch", "patch", NULL },
	{ "run_bash", "Run this command", "command", NULL },
	{ "web_fetch", "Fetch", "url", "url" },
	{ "web_search", "Search the web for", "query", "query" },
	{ "exit_plan", "Approve this plan", "plan", NULL },
};

static const struct approve_tool *
approve_tool(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof approve_tools / sizeof approve_tools[0]; i++)
		if (strcmp(approve_tools[i].name, name) == 0)
			return &approve_tools[i];
	return NULL;
}

/* Answer the pending approval at index i. */
static void	 approve_answer_at(struct app *, size_t i, enum approval, const char *reason,
		    const cJSON *edited);

static void
approve_pending_free(struct pending *p)
{
	free(p->id);
	free(p->name);
	free(p->preview);
	free(p->reason);
	free(p->always);
	cJSON_Delete(p->input);
}

void
approve_free(struct app *a)
{
	size_t i;

	for (i = 0; i < a->ap.n; i++)
		approve_pending_free(&a->ap.pend[i]);
	free(a->ap.pend);
	a->ap.pend = NULL;
	a->ap.n = a->ap.cap = 0;
	free(a->ap.ask.question);
	memset(&a->ap.ask, 0, sizeof a->ap.ask);
}

void
approve_ask(struct app *a, const char *question, ask_fn *fn, const int arg[2])
{
	free(a->ap.ask.question);
	a->ap.ask.question = xstrdup(question);
	a->ap.ask.fn = fn;
	a->ap.ask.arg[0] = arg != NULL ? arg[0] : 0;
	a->ap.ask.arg[1] = arg != NULL ? arg[1] : 0;
	app_dirty(a, D_APPROVAL | D_LAYOUT | D_PANES);
}

bool
approve_asking(const struct app *a)
{
	return a->ap.ask.question != NULL;
}

void
approve_ask_answer(struct app *a, bool yes)
{
	struct ask q = a->ap.ask;

	if (q.question == NULL)
		return;
	/* Cleared first: the answer may ask again. */
	memset(&a->ap.ask, 0, sizeof a->ap.ask);
	app_dirty(a, D_APPROVAL | D_LAYOUT | D_PANES);
	q.fn(a, yes, q.arg);
	free(q.question);
}

/* The question being asked, and its keys. */
static void
approve_ask_prompt(struct app *a, struct sline *out)
{
	sline_add(out, " ", 1, ROLE_APPROVAL, 0);
	sline_adds(out, a->ap.ask.question, ROLE_APPROVAL, 0);
	sline_adds(out, "  ", ROLE_APPROVAL, 0);
	sline_adds(out, "y", ROLE_APPROVAL_KEY, TA_BOLD);
	sline_adds(out, "es  ", ROLE_APPROVAL, 0);
	sline_adds(out, "n", ROLE_APPROVAL_KEY, TA_BOLD);
	sline_adds(out, "o", ROLE_APPROVAL, 0);
	out->flags |= SL_NOWRAP;
}

/* The directory a command runs in: its input's, else the session's. */
static const char *
approve_dir(const struct app *a, const struct pending *p)
{
	const char *d = json_str(p->input, "cwd", NULL);

	if (d == NULL)
		d = json_str(p->input, "workdir", NULL);
	return d != NULL ? d : a->cwd;
}

static void
approve_show_command(struct app *a, const struct pending *p)
{
	const char *cmd = json_str(p->input, "command", p->preview ? p->preview : "");
	const char *desc = json_str(p->input, "description", NULL);
	const char *s = cmd, *nl;
	struct sline *l;
	bool first = true;

	do {
		nl = strchr(s, '\n');
		l = slvec_push(&a->diff.lines);
		sline_adds(l, first ? "$ " : "  ", ROLE_ACCENT, TA_BOLD);
		sline_mark_body(l);
		sline_set_cont(l, "  ", ROLE_ACCENT);
		sline_add(l, s, nl ? (size_t)(nl - s) : strlen(s), ROLE_CODE, TA_BOLD);
		l->flags |= SL_CHARWRAP;
		first = false;
		s = nl ? nl + 1 : NULL;
	} while (s != NULL && *s != '\0');
	l = slvec_push(&a->diff.lines);
	sline_adds(l, "  in ", ROLE_DIM, 0);
	sline_adds(l, approve_dir(a, p), ROLE_DIFF_FILE, 0);
	if (desc != NULL) {
		l = slvec_push(&a->diff.lines);
		sline_adds(l, "  ", ROLE_DIM, 0);
		sline_adds(l, desc, ROLE_DIM, TA_ITALIC);
	}
	snprintf(a->diff.title, sizeof a->diff.title, "%s", "command");
	a->diff.lines_w = -1;
}

/* Under the proposal: why it asks, and what "always" would allow from now on. */
static void
approve_show_why(struct app *a, const struct pending *p)
{
	struct sline *l;

	if (p->reason[0] != '\0') {
		l = slvec_push(&a->diff.lines);
		sline_adds(l, "  asks: ", ROLE_DIM, 0);
		sline_adds(l, p->reason, ROLE_DIM, TA_ITALIC);
	}
	if (p->always[0] != '\0') {
		l = slvec_push(&a->diff.lines);
		sline_adds(l, "  a allows: ", ROLE_DIM, 0);
		sline_adds(l, p->always, ROLE_DIM, 0);
		l = slvec_push(&a->diff.lines);
		sline_adds(l, "  N denies: ", ROLE_DIM, 0);
		sline_adds(l, p->always, ROLE_DIM, 0);
	}
}

void
approve_show(struct app *a)
{
	const struct pending *p;

	if (a->ap.n == 0) {
		a->diff.live = false;
		app_dirty(a, D_DIFF | D_APPROVAL | D_LAYOUT);
		return;
	}
	p = &a->ap.pend[0];
	udiff_release(&a->diff.d);
	slvec_truncate(&a->diff.lines, 0);
	a->diff.on = a->diff.live = true;
	a->diff.asked = false;
	a->diff.scroll = 0;
	if (strcmp(p->name, "run_bash") == 0) {
		approve_show_command(a, p);
	} else if (strcmp(p->name, "exit_plan") == 0) {
		const char *plan = json_str(p->input, "plan", "");

		/* the plan as the model wrote it, rendered */
		mdview_render(plan, strlen(plan), &a->diff.lines);
		snprintf(a->diff.title, sizeof a->diff.title, "%s", "plan");
		a->diff.lines_w = -1;
	} else {
		const char *text = p->preview ? p->preview : "";

		udiff_parse(&a->diff.d, text, strlen(text));
		if (a->diff.d.file != NULL)
			snprintf(a->diff.title, sizeof a->diff.title, "%s  +%d \xE2\x88\x92%d", a->diff.d.file,
			    a->diff.d.adds, a->diff.d.dels);
		else
			snprintf(a->diff.title, sizeof a->diff.title, "%s  +%d \xE2\x88\x92%d", p->name,
			    a->diff.d.adds, a->diff.d.dels);
		udiff_render(&a->diff.d, &a->diff.lines);
		a->diff.lines_w = -1;
	}
	approve_show_why(a, p);
	app_dirty(a, D_DIFF | D_APPROVAL | D_LAYOUT | D_PANES);
}

void
approve_request(struct app *a, const cJSON *ev)
{
	struct pending *p;
	const cJSON *input = json_get(ev, "input"), *rule;
	struct buf always = BUF_INIT(BUF_NOLIMIT);

	if (strcmp(json_str(ev, "name", ""), "ask_user") == 0) {
		buf_release(&always);
		askpick_open(a, ev);
		return;
	}
	if (a->ap.n == a->ap.cap) {
		a->ap.cap = a->ap.cap ? a->ap.cap * 2 : 4;
		a->ap.pend = xreallocarray(a->ap.pend, a->ap.cap, sizeof *a->ap.pend);
	}
	p = &a->ap.pend[a->ap.n++];
	p->id = xstrdup(json_str(ev, "id", ""));
	p->name = xstrdup(json_str(ev, "name", "tool"));
	p->preview = xstrdup(json_str(ev, "preview", ""));
	p->reason = xstrdup(json_str(ev, "reason", ""));
	cJSON_ArrayForEach(rule, json_get(ev, "always"))
		if (cJSON_IsString(rule))
			buf_printf(&always, "%s%s", always.len > 0 ? ", " : "", rule->valuestring);
	p->always = buf_detach(&always, NULL);
	p->input = input != NULL ? cJSON_Duplicate(input, 1) : cJSON_CreateObject();
	if (p->input == NULL)
		fatal("out of memory");
	if (a->ap.n == 1)
		approve_show(a);
	else
		app_dirty(a, D_APPROVAL);
}

void
approve_settled(struct app *a, const char *id)
{
	size_t i;

	askpick_settled(a, id);
	for (i = 0; i < a->ap.n; i++) {
		if (strcmp(a->ap.pend[i].id, id) != 0)
			continue;
		approve_pending_free(&a->ap.pend[i]);
		memmove(&a->ap.pend[i], &a->ap.pend[i + 1], (a->ap.n - i - 1) * sizeof *a->ap.pend);
		a->ap.n--;
		if (i == 0)
			approve_show(a);
		else
			app_dirty(a, D_APPROVAL);
		if (a->ap.n == 0 && a->mode == MODE_REASON) {
			a->mode = MODE_EDIT;
			buf_reset(&a->hint);
		}
		return;
	}
}

static const char *
approve_decision(enum approval d)
{
	return d == APPROVAL_DENY || d == APPROVAL_NEVER ? "deny" : d == APPROVAL_ALWAYS ? "always" :
	    "allow";
}

void
approve_answer(struct app *a, enum approval d, const char *reason, const cJSON *edited)
{
	if (a->ap.n > 0)
		approve_answer_at(a, 0, d, reason, edited);
}

/*
 * exit_plan: y approves into ask, a into accept-edits, e approves the
 * edited plan (into ask), n sends it back with the reason.
 */
static enum approval
approve_plan_answer(struct app *a, enum approval d, const char **reason, struct buf *why)
{
	if (d == APPROVAL_DENY || d == APPROVAL_NEVER) {
		buf_printf(why, "the plan is sent back%s%s. Revise it (still in plan mode: "
		    "read-only) and call exit_plan again", *reason != NULL ? ": " : "",
		    *reason != NULL ? *reason : "");
		*reason = buf_cstr(why);
		return APPROVAL_DENY;
	}
	app_mode_change(a, d == APPROVAL_ALWAYS ? PERM_ACCEPT_EDITS : PERM_ASK);
	return APPROVAL_ALLOW;
}

static void
approve_answer_at(struct app *a, size_t i, enum approval d, const char *reason, const cJSON *edited)
{
	struct buf why = BUF_INIT(BUF_NOLIMIT);
	char *id;

	if (strcmp(a->ap.pend[i].name, "exit_plan") == 0)
		d = approve_plan_answer(a, d, &reason, &why);
	id = xstrdup(a->ap.pend[i].id);
	if (d == APPROVAL_DENY || d == APPROVAL_NEVER)
		tr_tool_denied(a->tr, id, reason != NULL ? reason :
		    d == APPROVAL_NEVER ? "denied for the rest of the session" : NULL);
	tv_decided(&a->tools, id, approve_decision(d), ev_now_ms());
	if (a->agent != NULL)
		a->be->answer(a->agent, id, d, reason, edited);
	else {
		cJSON *ev = event_new(a->bus, "approval");

		cJSON_AddStringToObject(ev, "id", id);
		cJSON_AddStringToObject(ev, "decision", approve_decision(d));
		cJSON_AddStringToObject(ev, "by", "user");
		if (reason != NULL)
			cJSON_AddStringToObject(ev, "reason", reason);
		event_emit(a->bus, ev);
	}
	approve_settled(a, id);
	app_tick_arm(a);
	app_dirty(a, D_TOOLS | D_TRANSCRIPT);
	buf_release(&why);
	free(id);
}

/*
 * "· reason" after what out holds, in width columns: whole, or as many
 * whole words as fit and "…", never a word cut; nothing when not one fits.
 */
static void
approve_reason_fit(struct sline *out, const char *reason, int width)
{
	size_t used = sline_width(out) + 2, n = strlen(reason), fit = 0, i = 0;

	if (width <= 0 || used >= (size_t)width)
		return;
	if (used + utf8_width(reason, n) <= (size_t)width)
		fit = n;
	else
		while (i < n) {
			size_t end = i;

			while (end < n && reason[end] != ' ')
				end++;
			if (used + utf8_width(reason, end) + 1 > (size_t)width)
				break;
			fit = end;
			i = end + 1;
		}
	if (fit == 0)
		return;
	sline_adds(out, "\xC2\xB7 ", ROLE_APPROVAL, 0);
	sline_add(out, reason, fit, ROLE_APPROVAL, TA_ITALIC);
	if (fit < n)
		sline_adds(out, "\xE2\x80\xA6", ROLE_APPROVAL, 0);
}

/* exit_plan's question and keys. */
static void
approve_plan_prompt(struct sline *out)
{
	static const char *const keys[][2] = {
		{ "y", "es, then ask" }, { "a", "ccept edits" }, { "n", "o, revise (say why)" },
		{ "e", "dit it" },
	};
	size_t i;

	sline_adds(out, "Approve this plan?  ", ROLE_APPROVAL, 0);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		sline_adds(out, keys[i][0], ROLE_APPROVAL_KEY, TA_BOLD);
		sline_adds(out, keys[i][1], ROLE_APPROVAL, 0);
		sline_adds(out, "  ", ROLE_APPROVAL, 0);
	}
	out->flags |= SL_NOWRAP;
}

void
approve_prompt(struct app *a, struct sline *out)
{
	const struct pending *p;
	const struct approve_tool *t;
	const char *target;
	static const char *const keys[][2] = {
		{ "y", "es" }, { "n", "o" }, { "a", "lways" }, { "N", "ever" }, { "e", "dit" },
	};
	size_t i;

	if (approve_asking(a)) {
		approve_ask_prompt(a, out);
		return;
	}
	if (a->ap.n == 0)
		return;
	p = &a->ap.pend[0];
	t = approve_tool(p->name);
	sline_add(out, " ", 1, ROLE_APPROVAL, 0);
	if (a->mode == MODE_REASON) {
		sline_adds(out, "Deny: say why below (optional), Enter sends, Esc goes back", ROLE_APPROVAL, 0);
		out->flags |= SL_NOWRAP;
		return;
	}
	if (strcmp(p->name, "exit_plan") == 0 && ed_empty(&a->ed)) {
		approve_plan_prompt(out);
		return;
	}
	if (t == NULL) {
		sline_adds(out, "Allow ", ROLE_APPROVAL, 0);
		sline_adds(out, p->name, ROLE_APPROVAL, TA_BOLD);
	} else {
		sline_adds(out, t->verb, ROLE_APPROVAL, 0);
		target = t->target ? json_str(p->input, t->target, NULL) : NULL;
		if (target != NULL) {
			sline_add(out, " ", 1, ROLE_APPROVAL, 0);
			sline_adds(out, target, ROLE_APPROVAL, TA_BOLD);
		}
		if (strcmp(p->name, "run_bash") == 0) {
			sline_adds(out, " in ", ROLE_APPROVAL, 0);
			sline_adds(out, approve_dir(a, p), ROLE_APPROVAL, TA_BOLD);
		}
	}
	sline_adds(out, "?  ", ROLE_APPROVAL, 0);
	if (!ed_empty(&a->ed)) {
		/* The keys answer only while the prompt is empty (typing must not approve). */
		sline_adds(out, "(empty the prompt to answer)", ROLE_DIM, 0);
		out->flags |= SL_NOWRAP;
		return;
	}
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (i == 4 && (t == NULL || t->field == NULL))
			break;
		sline_adds(out, keys[i][0], ROLE_APPROVAL_KEY, TA_BOLD);
		sline_adds(out, keys[i][1], ROLE_APPROVAL, 0);
		sline_adds(out, "  ", ROLE_APPROVAL, 0);
	}
	/* Why it asks, where the width allows (the diff pane says it too). */
	if (p->reason[0] != '\0')
		approve_reason_fit(out, p->reason, a->rect[PANE_APPROVAL].w);
	out->flags |= SL_NOWRAP;
}

/* Write s to a new temporary file; its path in path, or -1. */
static int
approve_tmpfile(const char *s, char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	size_t n = strlen(s), off = 0;
	int fd, r;

	r = snprintf(path, size, "%s/tandem-edit-XXXXXX", dir && *dir ? dir : "/tmp");
	if (r < 0 || (size_t)r >= size || (fd = mkstemp(path)) == -1)
		return -1;
	while (off < n) {
		ssize_t w = write(fd, s + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			unlink(path);
			return -1;
		}
		off += (size_t)w;
	}
	close(fd);
	return 0;
}

static char *
approve_read(const char *path, size_t *len)
{
	struct buf b = BUF_INIT(APPROVE_EDIT_MAX);
	char chunk[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (buf_append(&b, chunk, n) == -1)
			break;
	fclose(f);
	return buf_detach(&b, len);
}

/* A proposal out in the editor: which one, and what it said. */
struct approve_edit {
	char		*id;		/* the approval's; it may be settled while the editor runs */
	char		 path[4096];
	char		*orig;
	const struct approve_tool *t;
	struct visual	 child;
};

static void
approve_edit_free(struct approve_edit *e)
{
	if (e == NULL)
		return;
	unlink(e->path);
	free(e->id);
	free(e->orig);
	free(e);
}

/* The editor exited: the terminal is ours again; approve the edit if the request still waits. */
static void
approve_edited(int status, void *arg)
{
	struct app *a = arg;
	struct approve_edit *e = a->ap.editing;
	const struct pending *p;
	char *text;
	size_t len, i, olen;
	cJSON *edited;

	a->ap.editing = NULL;
	app_screen_enter(a);
	text = approve_read(e->path, &len);
	for (i = 0; i < a->ap.n && strcmp(a->ap.pend[i].id, e->id) != 0; i++)
		;
	if (i == a->ap.n) {
		app_notice(a, ROLE_WARNING, "%s", "the request was settled while the editor was open: the edit is not used");
		goto out;
	}
	p = &a->ap.pend[i];
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text == NULL) {
		app_notice(a, ROLE_WARNING, "the editor failed (status %d): nothing was approved",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	/* Editors end files with a newline; the proposal may not have had one. */
	olen = strlen(e->orig);
	if (len > 0 && text[len - 1] == '\n' && (strcmp(p->name, "run_bash") == 0 ||
	    olen == 0 || e->orig[olen - 1] != '\n'))
		text[--len] = '\0';
	if (len == olen && memcmp(text, e->orig, len) == 0) {
		app_notice(a, ROLE_DIM, "%s", "unchanged: approved as proposed");
		approve_answer_at(a, i, APPROVAL_ALLOW, NULL, NULL);
		goto out;
	}
	edited = cJSON_Duplicate(p->input, 1);
	if (edited == NULL)
		fatal("out of memory");
	cJSON_DeleteItemFromObjectCaseSensitive(edited, e->t->field);
	json_add_str_n(edited, e->t->field, text, len);
	app_notice(a, ROLE_DIM, "approved with your edit of %s", e->t->field);
	approve_answer_at(a, i, APPROVAL_ALLOW, NULL, edited);
	cJSON_Delete(edited);
out:
	free(text);
	approve_edit_free(e);
}

void
approve_edit(struct app *a)
{
	const struct pending *p;
	const struct approve_tool *t;
	const char *orig;
	struct approve_edit *e;
	char err[256];

	if (a->ap.n == 0 || a->ap.editing != NULL)
		return;
	p = &a->ap.pend[0];
	t = approve_tool(p->name);
	if (t == NULL || (orig = json_str(p->input, t->field, NULL)) == NULL) {
		app_notice(a, ROLE_WARNING, "nothing to edit in a %s call", p->name);
		return;
	}
	e = xcalloc(1, sizeof *e);
	if (approve_tmpfile(orig, e->path, sizeof e->path) == -1) {
		app_notice(a, ROLE_ERROR, "cannot write a temporary file: %s", strerror(errno));
		free(e);
		return;
	}
	e->id = xstrdup(p->id);
	e->orig = xstrdup(orig);
	e->t = t;
	/* The loop goes on while the editor owns the terminal: streams and tools run, approvals queue. */
	app_screen_leave(a);
	a->ap.editing = e;
	if (visual_start(&e->child, a->loop, e->path, approve_edited, a, err, sizeof err) == -1) {
		a->ap.editing = NULL;
		app_screen_enter(a);
		app_notice(a, ROLE_WARNING, "%s: nothing was approved", err);
		approve_edit_free(e);
	}
}

void
approve_edit_stop(struct app *a)
{
	if (a->ap.editing == NULL)
		return;
	visual_stop(&a->ap.editing->child);
	approve_edit_free(a->ap.editing);
	a->ap.editing = NULL;
}

size_t
approve_count(const struct app *a)
{
	return a->ap.n;
}

void
approve_paint(struct app *a)
{
	WINDOW *w = a->win[PANE_APPROVAL];
	struct rect *r = &a->rect[PANE_APPROVAL];
	struct draw_ctx c = { &a->roles, w, 0, r->w, -1, NULL };
	char right[48] = "";
	struct sline l;

	werase(w);
	if (a->ap.n > 1 && !approve_asking(a))
		snprintf(right, sizeof right, "1 of %zu pending", a->ap.n);
	if (r->h > 1)
		draw_title(&a->roles, w, 0, r->w, approve_asking(a) ? "question" : "approval", right, true);
	sline_init(&l);
	approve_prompt(a, &l);
	draw_row(&c, r->h - 1, &l, 0);
	sline_release(&l);
	wnoutrefresh(w);
}
