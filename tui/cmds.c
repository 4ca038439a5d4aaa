/*
 * cmds: the slash commands, one table.
 *
 * Each entry has a name, what its argument is, a help line and a handler.
 * A command the agent cannot do yet (no agent call for it) has a NULL
 * handler and says so; adding it is one line here.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "json.h"

typedef void cmd_fn(struct app *, const char *arg);

struct cmd {
	const char	*name;
	const char	*arg;
	const char	*help;
	cmd_fn		*fn;		/* NULL: not available yet */
};

static void cmd_help(struct app *, const char *);
static void cmd_clear(struct app *, const char *);
static void cmd_compact(struct app *, const char *);
static void cmd_context(struct app *, const char *);
static void cmd_cost(struct app *, const char *);
static void cmd_model(struct app *, const char *);
static void cmd_theme(struct app *, const char *);
static void cmd_keys(struct app *, const char *);
static void cmd_quit(struct app *, const char *);
static void cmd_turns(struct app *, const char *);
static void cmd_rewind(struct app *, const char *);
static void cmd_redo(struct app *, const char *);
static void cmd_fork(struct app *, const char *);

static const struct cmd cmd_table[] = {
	{ "/help", "", "the slash commands and the keys", cmd_help },
	{ "/clear", "", "start a new, empty conversation", cmd_clear },
	{ "/compact", "[focus]", "compact the conversation now", cmd_compact },
	{ "/context", "", "what fills the context window", cmd_context },
	{ "/cost", "", "tokens and dollars, last request and session", cmd_cost },
	{ "/model", "[name]", "show or change the model", cmd_model },
	{ "/theme", "[name]", "list the themes or switch to one", cmd_theme },
	{ "/keys", "", "the keys", cmd_keys },
	{ "/turns", "", "the turns so far: prompts, tools, files, tokens", cmd_turns },
	{ "/rewind", "[N] [what]", "back to before turn N (conversation, files, both)", cmd_rewind },
	{ "/redo", "[force]", "undo the last rewind", cmd_redo },
	{ "/fork", "[N]", "go on in a new session from turn N", cmd_fork },
	{ "/resume", "[id]", "continue another session", NULL },
	{ "/quit", "", "leave tandem", cmd_quit },
};

#define CMD_COUNT (sizeof cmd_table / sizeof cmd_table[0])

const char *const *
cmds_names(size_t *n)
{
	static const char *names[CMD_COUNT];
	size_t i;

	for (i = 0; i < CMD_COUNT; i++)
		names[i] = cmd_table[i].name;
	*n = CMD_COUNT;
	return names;
}

void
cmds_help(struct app *a)
{
	struct buf b = BUF_INIT(16 * 1024);
	size_t i;

	buf_puts(&b, "Slash commands (Tab completes):\n");
	for (i = 0; i < CMD_COUNT; i++) {
		char head[96];

		snprintf(head, sizeof head, "%s %s", cmd_table[i].name, cmd_table[i].arg);
		buf_printf(&b, "  %-18s %s%s\n", head, cmd_table[i].help,
		    cmd_table[i].fn ? "" : " (not available yet)");
	}
	buf_puts(&b, "Press ? on an empty prompt for the keys.");
	tr_notice(a->tr, ROLE_DIM, buf_cstr(&b));
	tr_bottom(a->tr);
	buf_release(&b);
}

static void
cmd_help(struct app *a, const char *arg)
{
	cmds_help(a);
}

static void
cmd_keys(struct app *a, const char *arg)
{
	keys_help(a);
}

static void
cmd_quit(struct app *a, const char *arg)
{
	app_quit(a);
}

static void
cmd_clear(struct app *a, const char *arg)
{
	if (a->agent != NULL && a->be->clear_all(a->agent) == -1) {
		app_notice(a, ROLE_ERROR, "%s", "a turn is running: press Esc first, then /clear");
		return;
	}
	app_reset_view(a);
	app_notice(a, ROLE_DIM, "%s", "a new conversation");
}

static void
cmd_compact(struct app *a, const char *arg)
{
	if (a->agent == NULL) {
		app_notice(a, ROLE_DIM, "%s", "no agent to compact");
		return;
	}
	if (a->be->compact(a->agent, *arg ? arg : NULL) == -1)
		app_notice(a, ROLE_ERROR, "%s", "a turn is running: /compact when it is done");
}

/* /context and /cost: the agent's report, in the transcript. */
static void
cmd_report(struct app *a, const char *what)
{
	struct buf out = BUF_INIT(256 * 1024);

	if (a->agent == NULL) {
		app_notice(a, ROLE_DIM, "no agent: nothing to report for /%s", what);
		return;
	}
	a->be->report(a->agent, what, &out);
	app_notice(a, ROLE_TEXT, "%s", out.len ? buf_cstr(&out) : "(nothing to report)");
	buf_release(&out);
}

static void
cmd_context(struct app *a, const char *arg)
{
	cmd_report(a, "context");
}

static void
cmd_cost(struct app *a, const char *arg)
{
	cmd_report(a, "cost");
}

static void
cmd_model(struct app *a, const char *arg)
{
	if (*arg == '\0') {
		app_notice(a, ROLE_DIM, "model: %s", a->agent ? a->be->model(a->agent) : a->st.model);
		return;
	}
	if (a->agent != NULL) {
		a->be->set_model(a->agent, arg);
		st_set_model(&a->st, a->be->model(a->agent));
	} else
		st_set_model(&a->st, arg);
	app_notice(a, ROLE_DIM, "model: %s", a->st.model);
}

/* The agent, or a notice that there is none; NULL then. */
static struct agent *
cmd_agent(struct app *a, const char *what)
{
	if (a->agent == NULL)
		app_notice(a, ROLE_DIM, "no agent: nothing to %s", what);
	return a->agent;
}

static void
cmd_turns(struct app *a, const char *arg)
{
	struct buf b = BUF_INIT(256 * 1024);
	const cJSON *t, *x;
	cJSON *turns;
	char tok[16];

	if (cmd_agent(a, "list") == NULL)
		return;
	turns = a->be->turns(a->agent);
	buf_puts(&b, "Turns (/rewind N goes back to before turn N, /fork N goes on from it):");
	cJSON_ArrayForEach(t, turns) {
		const char *p = json_str(t, "prompt", "");

		st_tokens(json_int(t, "tokens", 0), tok, sizeof tok);
		buf_printf(&b, "\n  %3lld  %-.50s%s  %s tokens, %.1fs", (long long)json_int(t, "turn", 0), p,
		    strlen(p) > 50 ? "\xE2\x80\xA6" : "", tok, (double)json_int(t, "ms", 0) / 1000.0);
		if (cJSON_GetArraySize(json_get(t, "tools")) > 0) {
			buf_puts(&b, "; tools:");
			cJSON_ArrayForEach(x, json_get(t, "tools"))
				if (cJSON_IsString(x))
					buf_printf(&b, " %s", x->valuestring);
		}
		if (cJSON_GetArraySize(json_get(t, "files")) > 0) {
			buf_puts(&b, "; files:");
			cJSON_ArrayForEach(x, json_get(t, "files"))
				if (cJSON_IsString(x))
					buf_printf(&b, " %s", x->valuestring);
		}
		if (json_bool(t, "bash", false))
			buf_puts(&b, " (ran commands: their changes are not tracked)");
	}
	if (cJSON_GetArraySize(turns) == 0)
		buf_puts(&b, " none yet");
	cJSON_Delete(turns);
	app_notice(a, ROLE_TEXT, "%s", buf_cstr(&b));
	buf_release(&b);
}

/* The agent's report after a rewind, redo or fork, in the role its result deserves. */
static void
cmd_report_result(struct app *a, int r, struct buf *report)
{
	app_notice(a, r == -1 ? ROLE_ERROR : r == 1 ? ROLE_WARNING : ROLE_DIM, "%s",
	    report->len ? buf_cstr(report) : r == -1 ? "failed" : "done");
}

static void
cmd_rewind(struct app *a, const char *arg)
{
	struct buf report = BUF_INIT(64 * 1024);
	enum rewind_what what = REWIND_BOTH;
	bool force = false, bad = false;
	long turn = a->turn;
	const char *p = arg;

	if (cmd_agent(a, "rewind") == NULL)
		return;
	while (*p != '\0') {
		size_t n = strcspn(p, " \t");
		char *word = xstrndup(p, n), *end;

		p += n;
		p += strspn(p, " \t");
		if (*word == '\0')
			;
		else if (strcmp(word, "conversation") == 0)
			what = REWIND_CONVERSATION;
		else if (strcmp(word, "files") == 0)
			what = REWIND_FILES;
		else if (strcmp(word, "both") == 0)
			what = REWIND_BOTH;
		else if (strcmp(word, "force") == 0)
			force = true;
		else {
			turn = strtol(word, &end, 10);
			bad |= *end != '\0' || turn < 1;
		}
		free(word);
	}
	if (bad || turn < 1) {
		app_notice(a, ROLE_ERROR, "%s", "usage: /rewind [turn] [conversation|files|both] [force]"
		    " (the default: the last turn, both)");
		return;
	}
	cmd_report_result(a, a->be->rewind(a->agent, (int)turn, what, force, &report), &report);
	buf_release(&report);
}

static void
cmd_redo(struct app *a, const char *arg)
{
	struct buf report = BUF_INIT(64 * 1024);

	if (cmd_agent(a, "redo") == NULL)
		return;
	cmd_report_result(a, a->be->redo(a->agent, strcmp(arg, "force") == 0, &report), &report);
	buf_release(&report);
}

static void
cmd_fork(struct app *a, const char *arg)
{
	struct buf report = BUF_INIT(64 * 1024);
	char *end;
	long turn = 0;

	if (cmd_agent(a, "fork") == NULL)
		return;
	if (*arg != '\0') {
		turn = strtol(arg, &end, 10);
		if (*end != '\0' || turn < 0) {
			app_notice(a, ROLE_ERROR, "%s", "usage: /fork [turn]");
			return;
		}
	}
	cmd_report_result(a, a->be->fork_at(a->agent, (int)turn, &report), &report);
	buf_release(&report);
}

int
cmds_theme(struct app *a, const char *name)
{
	char err[512];
	struct theme t;

	if (theme_load(a->themes_dir, name, &t, err, sizeof err) == -1) {
		app_notice(a, ROLE_ERROR, "theme %s: %s (keeping %s)", name, err, a->theme.name);
		return -1;
	}
	a->theme = t;
	paint_theme_apply(a);
	return 0;
}

static void
cmd_theme(struct app *a, const char *arg)
{
	struct buf b = BUF_INIT(8 * 1024);
	char **names;
	size_t n, i;

	if (*arg != '\0') {
		if (cmds_theme(a, arg) == 0)
			app_notice(a, ROLE_DIM, "theme: %s%s", a->theme.name,
			    a->no_color ? " (NO_COLOR: attributes only)" : "");
		return;
	}
	n = theme_list(a->themes_dir, &names);
	buf_printf(&b, "theme: %s; themes in %s:", a->theme.name, a->themes_dir);
	for (i = 0; i < n; i++)
		buf_printf(&b, " %s", names[i]);
	if (n == 0)
		buf_puts(&b, " none");
	theme_list_free(names, n);
	app_notice(a, ROLE_DIM, "%s", buf_cstr(&b));
	buf_release(&b);
}

bool
cmds_run(struct app *a, const char *text)
{
	size_t i, len;
	const char *arg;
	char *trimmed;

	if (text[0] != '/' || text[1] == '/' || text[1] == '\0' || isspace((unsigned char)text[1]))
		return false;
	len = strcspn(text, " \t\n");
	arg = text + len;
	while (isspace((unsigned char)*arg))
		arg++;
	trimmed = xstrdup(arg);
	for (len = strlen(trimmed); len > 0 && isspace((unsigned char)trimmed[len - 1]); len--)
		trimmed[len - 1] = '\0';
	len = strcspn(text, " \t\n");
	for (i = 0; i < CMD_COUNT; i++) {
		if (strlen(cmd_table[i].name) != len || strncmp(cmd_table[i].name, text, len) != 0)
			continue;
		if (cmd_table[i].fn == NULL)
			app_notice(a, ROLE_WARNING, "%s is not available yet (start tandem with --resume ID)",
			    cmd_table[i].name);
		else
			cmd_table[i].fn(a, trimmed);
		free(trimmed);
		app_dirty(a, D_PANES | D_LAYOUT);
		return true;
	}
	app_notice(a, ROLE_ERROR, "unknown command %.*s: /help lists them", (int)len, text);
	free(trimmed);
	return true;
}
