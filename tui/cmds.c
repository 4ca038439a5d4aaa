/*
 * cmds: the slash commands, one table.
 *
 * Each entry has a name, what its argument is, a help line and a handler.
 * A name that is not built in is looked up among the custom commands
 * (Markdown prompts in .tandem/commands/ and the user's config directory,
 * agent/commands.h): its expanded text is sent as the prompt.
 */
#include "autoconf.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "copy.h"
#include "config/config.h"
#include "json.h"

/* A command changes what it owns; what the loop should do next it puts in then. */
typedef void cmd_fn(struct app *, const char *arg, struct app_action *then);

struct cmd {
	const char	*name;
	const char	*arg;
	const char	*help;
	cmd_fn		*fn;
};

static void cmd_help(struct app *, const char *, struct app_action *);
static void cmd_clear(struct app *, const char *, struct app_action *);
static void cmd_compact(struct app *, const char *, struct app_action *);
static void cmd_context(struct app *, const char *, struct app_action *);
static void cmd_cost(struct app *, const char *, struct app_action *);
static void cmd_model(struct app *, const char *, struct app_action *);
static void cmd_effort(struct app *, const char *, struct app_action *);
static void cmd_theme(struct app *, const char *, struct app_action *);
static void cmd_copy(struct app *, const char *, struct app_action *);
static void cmd_keys(struct app *, const char *, struct app_action *);
static void cmd_quit(struct app *, const char *, struct app_action *);
static void cmd_turns(struct app *, const char *, struct app_action *);
static void cmd_diff(struct app *, const char *, struct app_action *);
static void cmd_rewind(struct app *, const char *, struct app_action *);
static void cmd_redo(struct app *, const char *, struct app_action *);
static void cmd_fork(struct app *, const char *, struct app_action *);
static void cmd_resume(struct app *, const char *, struct app_action *);
static void cmd_memory(struct app *, const char *, struct app_action *);
static void cmd_skills(struct app *, const char *, struct app_action *);
static void cmd_agents(struct app *, const char *, struct app_action *);
static void cmd_mcp(struct app *, const char *, struct app_action *);
static void cmd_mode(struct app *, const char *, struct app_action *);
static void cmd_plan(struct app *, const char *, struct app_action *);
static void cmd_init(struct app *, const char *, struct app_action *);
static void cmd_review(struct app *, const char *, struct app_action *);

static const struct cmd cmd_table[] = {
	{ "/help", "", "the slash commands and the keys", cmd_help },
	{ "/clear", "", "start a new, empty conversation", cmd_clear },
	{ "/compact", "[focus]", "compact the conversation now", cmd_compact },
	{ "/context", "", "what fills the context window", cmd_context },
	{ "/cost", "", "tokens and dollars, last request and session", cmd_cost },
	{ "/model", "[name]", "list the server's models, or change to one", cmd_model },
	{ "/mode", "[name]", "list the permission modes, or change to one (yolo asks to be sure)", cmd_mode },
	{ "/plan", "[prompt]", "plan mode: the model explores read-only and asks you to approve its plan",
	    cmd_plan },
	{ "/effort", "[level]", "show or set the effort level (off: the model's default)", cmd_effort },
	{ "/theme", "[name]", "list the themes or switch to one", cmd_theme },
	{ "/copy", "[N]", "copy the newest reply (or its Nth code block; -1 the last) as written", cmd_copy },
	{ "/keys", "", "the keys", cmd_keys },
	{ "/memory", "", "the memory files loaded (AGENTS.md, CLAUDE.md, TANDEM.md, .claude/)", cmd_memory },
	{ "/agents", "", "the subagent types (built in, .claude/agents, .tandem/agents) and their sources", cmd_agents },
	{ "/mcp", "", "the MCP servers: state, errors, tools, prompts, resources", cmd_mcp },
	{ "/skills", "", "the skills: .tandem/skills, .claude/skills, yours", cmd_skills },
	{ "/turns", "", "the turns so far: prompts, tools, files, tokens", cmd_turns },
	{ "/diff", "[N]", "what turn N (default: the last) changed, as a diff: its tools' and commands' files", cmd_diff },
	{ "/rewind", "[N] [what]", "the turn browser; or back to before turn N (conversation, files, both)",
	    cmd_rewind },
	{ "/redo", "[force]", "undo the last rewind", cmd_redo },
	{ "/fork", "[N]", "go on in a new session from turn N", cmd_fork },
	{ "/resume", "[id]", "list this directory's sessions, or continue one", cmd_resume },
	{ "/quit", "", "leave tandem", cmd_quit },
	{ "/init", "[notes]", "explore the repository and write or improve AGENTS.md (you approve the edit)",
	    cmd_init },
	{ "/review", "[ref|path]", "review the uncommitted changes (or since ref, or under path); edits nothing",
	    cmd_review },
};

#define CMD_COUNT (sizeof cmd_table / sizeof cmd_table[0])

/* The custom commands, or none (no settings: a replay). */
static void
cmds_custom(struct app *a, struct command_list *list)
{
	memset(list, 0, sizeof *list);
	if (a->cfg != NULL && a->be != NULL)
		a->be->commands_scan(a->cfg, list);
}

static void
cmds_custom_release(struct app *a, struct command_list *list)
{
	if (a->cfg != NULL && a->be != NULL)
		a->be->commands_release(list);
}

void
cmds_free(struct app *a)
{
	size_t i;

	for (i = 0; i < a->ncmd_names; i++)
		free(a->cmd_names[i]);
	free(a->cmd_names);
	a->cmd_names = NULL;
	a->ncmd_names = 0;
}

const char *const *
cmds_names(struct app *a, size_t *n)
{
	struct command_list list;
	struct buf b = BUF_INIT(4096);
	size_t i, k = 0;

	cmds_free(a);
	cmds_custom(a, &list);
	a->cmd_names = xreallocarray(NULL, CMD_COUNT + list.n, sizeof *a->cmd_names);
	for (i = 0; i < CMD_COUNT; i++)
		a->cmd_names[k++] = xstrdup(cmd_table[i].name);
	for (i = 0; i < list.n; i++) {
		buf_reset(&b);
		buf_printf(&b, "/%s", list.v[i].name);
		a->cmd_names[k++] = xstrdup(buf_cstr(&b));
	}
	a->ncmd_names = k;
	buf_release(&b);
	cmds_custom_release(a, &list);
	*n = k;
	return (const char *const *)a->cmd_names;
}

void
cmds_help(struct app *a)
{
	struct buf b = BUF_INIT(256 * 1024);
	struct command_list list;
	char head[160];
	size_t i;

	buf_puts(&b, "Slash commands (Tab completes):\n");
	for (i = 0; i < CMD_COUNT; i++) {
		snprintf(head, sizeof head, "%s %s", cmd_table[i].name, cmd_table[i].arg);
		buf_printf(&b, "  %-18s %s\n", head, cmd_table[i].help);
	}
	cmds_custom(a, &list);
	if (list.n > 0)
		buf_puts(&b, "Custom commands (.tandem/commands/, .claude/commands/, ~/.config/tandem/commands/, ~/.claude/commands/, skills):\n");
	for (i = 0; i < list.n; i++) {
		const struct command_info *c = &list.v[i];

		snprintf(head, sizeof head, "/%s %s", c->name, c->argument_hint ? c->argument_hint : "");
		buf_printf(&b, "  %-18s %s%s(%s%s%s%s)\n", head, c->description, *c->description ? " " : "",
		    c->project ? "project" : "user", c->folder ? ":" : "", c->folder ? c->folder : "",
		    c->skill ? ", skill" : "");
	}
	cmds_custom_release(a, &list);
	buf_puts(&b, "Press ? on an empty prompt for the keys.");
	tr_notice(a->tr, ROLE_DIM, buf_cstr(&b));
	tr_bottom(a->tr);
	buf_release(&b);
}

static void
cmd_help(struct app *a, const char *arg, struct app_action *then)
{
	cmds_help(a);
}

static void
cmd_keys(struct app *a, const char *arg, struct app_action *then)
{
	then->what = DO_KEYS_HELP;
}

static void
cmd_quit(struct app *a, const char *arg, struct app_action *then)
{
	then->what = DO_QUIT;
}

static void
cmd_clear(struct app *a, const char *arg, struct app_action *then)
{
	if (a->agent != NULL && a->be->clear_all(a->agent) == -1) {
		app_notice(a, ROLE_ERROR, "%s", "a turn is running: press Esc first, then /clear");
		return;
	}
	app_reset_view(a);
	app_notice(a, ROLE_DIM, "%s", "a new conversation");
}

static void
cmd_compact(struct app *a, const char *arg, struct app_action *then)
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
cmd_context(struct app *a, const char *arg, struct app_action *then)
{
	cmd_report(a, "context");
}

static void
cmd_cost(struct app *a, const char *arg, struct app_action *then)
{
	cmd_report(a, "cost");
}

static void
cmd_memory(struct app *a, const char *arg, struct app_action *then)
{
	cmd_report(a, "memory");
}

static void
cmd_skills(struct app *a, const char *arg, struct app_action *then)
{
	cmd_report(a, "skills");
}

static void
cmd_agents(struct app *a, const char *arg, struct app_action *then)
{
	cmd_report(a, "agents");
}

static void
cmd_mcp(struct app *a, const char *arg, struct app_action *then)
{
	cmd_report(a, "mcp");
}

static void
cmd_models_listed(void *arg, const char *table, const char *err)
{
	struct app *a = arg;

	if (table != NULL)
		app_notice(a, ROLE_DIM, "%s/model NAME changes to one.", table);
	else
		app_notice(a, ROLE_ERROR, "%s", err);
}

static void
cmd_mode(struct app *a, const char *arg, struct app_action *then)
{
	static const enum perm_mode all[] = { PERM_ASK, PERM_ACCEPT_EDITS, PERM_PLAN, PERM_YOLO };
	enum perm_mode m;
	size_t i;

	(void)then;
	if (arg == NULL || arg[0] == '\0') {
		struct buf b = BUF_INIT(4096);

		for (i = 0; i < sizeof all / sizeof all[0]; i++)
			buf_printf(&b, "%s%-13s %s\n", strcmp(app_mode_name(a, all[i]), a->st.mode) == 0 ?
			    "* " : "  ", app_mode_name(a, all[i]), app_mode_what(all[i]));
		buf_puts(&b, "Shift+Tab goes ask, accept-edits, plan; /mode yolo asks to be sure.");
		app_notice(a, ROLE_TEXT, "%s", buf_cstr(&b));
		buf_release(&b);
		return;
	}
	for (i = 0; i < sizeof all / sizeof all[0] && strcmp(app_mode_name(a, all[i]), arg) != 0; i++)
		;
	if (i == sizeof all / sizeof all[0]) {
		app_notice(a, ROLE_ERROR, "no mode \"%s\": ask, accept-edits, plan or yolo", arg);
		return;
	}
	m = all[i];
	if (m == PERM_YOLO && strcmp(a->st.mode, app_mode_name(a, PERM_YOLO)) != 0) {
		a->yolo_confirm = true;
		app_set_hint(a, true, "yolo: no call asks first. y to switch, any other key to stay in %s",
		    a->st.mode);
		return;
	}
	app_mode_change(a, m);
}

/* Plan mode, and the rest of the line sent as the prompt to plan for. */
static void
cmd_plan(struct app *a, const char *arg, struct app_action *then)
{
	if (strcmp(a->st.mode, app_mode_name(a, PERM_PLAN)) != 0)
		app_mode_change(a, PERM_PLAN);
	if (arg != NULL && arg[0] != '\0') {
		then->what = DO_SUBMIT;
		then->text = xstrdup(arg);
	}
}

static void
cmd_model(struct app *a, const char *arg, struct app_action *then)
{
	if (*arg == '\0') {
		app_notice(a, ROLE_DIM, "model: %s", a->agent ? a->be->model(a->agent) : a->st.model);
		if (a->agent != NULL && a->be->list_models != NULL)
			a->be->list_models(a->agent, cmd_models_listed, a);
		return;
	}
	if (a->agent != NULL) {
		a->be->set_model(a->agent, arg);
		st_set_model(&a->st, a->be->model(a->agent));
	} else
		st_set_model(&a->st, arg);
	app_notice(a, ROLE_DIM, "model: %s", a->st.model);
}

static void
cmd_effort(struct app *a, const char *arg, struct app_action *then)
{
	const char *e;

	if (a->agent == NULL || a->be->set_effort == NULL) {
		app_notice(a, ROLE_DIM, "no agent: no effort level");
		return;
	}
	if (*arg != '\0')
		a->be->set_effort(a->agent, strcmp(arg, "off") == 0 ? NULL : arg);
	e = a->be->effort(a->agent);
	app_notice(a, ROLE_DIM, "effort: %s", e != NULL ? e : "the model's default");
}

/* The agent, or a notice that there is none; NULL then. */
static struct agent *
cmd_agent(struct app *a, const char *what)
{
	if (a->agent == NULL)
		app_notice(a, ROLE_DIM, "no agent: nothing to %s", what);
	return a->agent;
}

/*
 * The session's number of the conversation's nth turn, as the browser and
 * /turns number them (1, 2, 3 in the conversation as it stands, whatever
 * rewinds took away); 0 when there is none.
 */
static int
cmd_turn_at(struct app *a, long nth)
{
	cJSON *turns = a->be->turns(a->agent);
	const cJSON *t = nth >= 1 && nth <= INT_MAX ? cJSON_GetArrayItem(turns, (int)nth - 1) : NULL;
	int turn = t != NULL ? (int)json_int(t, "turn", 0) : 0;

	cJSON_Delete(turns);
	return turn;
}

static void
cmd_turns(struct app *a, const char *arg, struct app_action *then)
{
	struct buf b = BUF_INIT(256 * 1024);
	const cJSON *t, *x;
	cJSON *turns;
	char tok[16];
	int nth = 0;

	if (cmd_agent(a, "list") == NULL)
		return;
	turns = a->be->turns(a->agent);
	buf_puts(&b, "Turns (/rewind N goes back to before turn N, /fork N goes on from it):");
	cJSON_ArrayForEach(t, turns) {
		const char *p = json_str(t, "prompt", "");

		st_tokens(json_int(t, "tokens", 0), tok, sizeof tok);
		buf_printf(&b, "\n  %3d  %-.50s%s  %s tokens, %.1fs", ++nth, p,
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

/*
 * /diff [N]: the files a turn's tools and commands changed, command by
 * command, and all of it as one unified diff in the diff pane.
 */
static void
cmd_diff(struct app *a, const char *arg, struct app_action *then)
{
	struct buf b = BUF_INIT(256 * 1024);
	const cJSON *x, *found = NULL;
	cJSON *turns;
	char *end;
	long turn = 0;

	(void)then;
	if (*arg != '\0') {
		turn = strtol(arg, &end, 10);
		if (*end != '\0' || turn < 1 || turn > 1000000000) {
			app_notice(a, ROLE_ERROR, "%s", "usage: /diff [turn] (the default: the last turn)");
			return;
		}
	}
	if (cmd_agent(a, "show") == NULL)
		return;
	turns = a->be->turns(a->agent);
	if (turn == 0)
		turn = cJSON_GetArraySize(turns);
	found = turn >= 1 && turn <= cJSON_GetArraySize(turns) ? cJSON_GetArrayItem(turns, (int)turn - 1) : NULL;
	if (found == NULL) {
		buf_printf(&b, "there is no turn %ld in this conversation", turn);
	} else {
		buf_printf(&b, "Turn %ld changed:", turn);
		cJSON_ArrayForEach(x, json_get(found, "files"))
			if (cJSON_IsString(x))
				buf_printf(&b, "\n  %s", x->valuestring);
		if (cJSON_GetArraySize(json_get(found, "files")) == 0)
			buf_puts(&b, " no files");
		cJSON_ArrayForEach(x, json_get(found, "changes"))
			if (cJSON_IsString(x))
				buf_printf(&b, "\n%s", x->valuestring);
	}
	app_notice(a, ROLE_TEXT, "%s", buf_cstr(&b));
	if (found != NULL)
		browse_diff(a, (int)json_int(found, "turn", 0));
	cJSON_Delete(turns);
	buf_release(&b);
}

/* The agent's report after a forced rewind or redo, in the role its result deserves. */
static void
cmd_report_result(struct app *a, int r, struct buf *report)
{
	while (report->len > 0 && report->data[report->len - 1] == '\n')
		report->data[--report->len] = '\0';
	app_notice(a, r == -1 ? ROLE_ERROR : r == 1 ? ROLE_WARNING : ROLE_DIM, "%s",
	    report->len ? buf_cstr(report) : r == -1 ? "failed" : "done");
}

/* /rewind: the browser; /rewind N [what] [force]: straight there. */
static void
cmd_rewind(struct app *a, const char *arg, struct app_action *then)
{
	struct buf report = BUF_INIT(64 * 1024);
	enum rewind_what what = REWIND_BOTH;
	bool force = false, bad = false, typed = false;
	long turn = a->turn;
	const char *p = arg;

	if (cmd_agent(a, "rewind") == NULL)
		return;
	if (*arg == '\0') {
		browse_open(a, false);
		return;
	}
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
			bad |= *end != '\0' || turn < 1 || turn > 1000000000;
			typed = true;
		}
		free(word);
	}
	if (bad || turn < 1) {
		app_notice(a, ROLE_ERROR, "%s", "usage: /rewind [turn] [conversation|files|both] [force]"
		    " (the default: the last turn, both; no argument: the turn browser)");
		return;
	}
	/* A number typed is the browser's; the default is the last turn. */
	turn = turn == a->turn && !typed ? turn : cmd_turn_at(a, turn);
	if (turn == 0) {
		app_notice(a, ROLE_ERROR, "%s", "there is no such turn in this conversation (/turns lists them)");
		buf_release(&report);
		return;
	}
	if (force)
		cmd_report_result(a, a->be->rewind(a->agent, (int)turn, what, true, &report), &report);
	else
		browse_rewind(a, (int)turn, what);
	buf_release(&report);
}

static void
cmd_redo(struct app *a, const char *arg, struct app_action *then)
{
	struct buf report = BUF_INIT(64 * 1024);

	if (cmd_agent(a, "redo") == NULL)
		return;
	if (strcmp(arg, "force") == 0)
		cmd_report_result(a, a->be->redo(a->agent, true, &report), &report);
	else if (*arg == '\0')
		browse_redo(a);
	else
		app_notice(a, ROLE_ERROR, "%s", "usage: /redo [force]");
	buf_release(&report);
}

static void
cmd_fork(struct app *a, const char *arg, struct app_action *then)
{
	char *end;
	long turn = 0;

	if (cmd_agent(a, "fork") == NULL)
		return;
	if (*arg != '\0') {
		turn = strtol(arg, &end, 10);
		if (*end != '\0' || turn < 0 || turn > 1000000000) {
			app_notice(a, ROLE_ERROR, "%s", "usage: /fork [turn]");
			return;
		}
		/* The browser's number (0: all of it). */
		if (turn > 0 && (turn = cmd_turn_at(a, turn)) == 0) {
			app_notice(a, ROLE_ERROR, "%s", "there is no such turn in this conversation (/turns lists them)");
			return;
		}
	}
	browse_fork(a, (int)turn);
}

/* /resume: this directory's sessions; /resume ID: go on with one. */
static void
cmd_resume(struct app *a, const char *arg, struct app_action *then)
{
	struct buf out = BUF_INIT(256 * 1024);

	if (cmd_agent(a, "resume") == NULL)
		return;
	if (*arg == '\0') {
		if (a->cfg == NULL) {
			app_notice(a, ROLE_DIM, "%s", "no settings: no sessions to list");
		} else {
			a->be->sessions(a->cfg->home, a->cfg->root, &out);
			buf_puts(&out, "Resume one with /resume ID (or tandem -r ID).");
			app_notice(a, ROLE_TEXT, "%s", buf_cstr(&out));
		}
	} else if (strchr(arg, ' ') != NULL || strchr(arg, '/') != NULL) {
		app_notice(a, ROLE_ERROR, "%s", "usage: /resume [session id]");
	} else if (a->be->resume(a->agent, arg, &out) == -1) {
		app_notice(a, ROLE_ERROR, "cannot resume %s: %s", arg, out.len ? buf_cstr(&out) : "failed");
	} else {
		app_notice(a, ROLE_DIM, "resumed session %s", arg);
	}
	buf_release(&out);
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
cmd_copy(struct app *a, const char *arg, struct app_action *then)
{
	copy_run(a, arg);
}

static void
cmd_theme(struct app *a, const char *arg, struct app_action *then)
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

/* A custom command: its prompt is sent; true when name was one (or could not be used). */
static bool
cmds_custom_run(struct app *a, const char *text, struct app_action *then)
{
	struct buf prompt = BUF_INIT(1024 * 1024), err = BUF_INIT(4096);
	int r;

	if (a->cfg == NULL || a->be == NULL)
		return false;
	/* An MCP server's prompt: the agent asks the server for its text (mcp.h). */
	if (strncmp(text, "/mcp__", 6) == 0) {
		r = 0;
		buf_puts(&prompt, text);
	} else
		r = a->be->commands_expand(a->cfg, text, &prompt, &err);
	if (r == -1)
		app_notice(a, ROLE_ERROR, "%s", err.len ? buf_cstr(&err) : "the command cannot be used");
	else if (r == 0 && app_busy(a)) {
		app_notice(a, ROLE_WARNING, "%s", "a turn is running: wait for it, or press Esc to stop it");
		ed_set(&a->ed, text);
	} else if (r == 0) {
		then->what = DO_SUBMIT;
		then->text = buf_detach(&prompt, NULL);
	}
	buf_release(&prompt);
	buf_release(&err);
	return r != 1;
}

/* /init and /review: the agent builds the prompt (the diff for /review), which is sent. */
static void
cmds_prompt_run(struct app *a, const char *name, const char *arg, struct app_action *then)
{
	struct buf line = BUF_INIT(64 * 1024), prompt = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096);

	buf_printf(&line, "%s%s%s", name, *arg ? " " : "", arg);
	if (a->cfg == NULL || a->be == NULL || a->be->prompt_expand == NULL)
		app_notice(a, ROLE_DIM, "no agent: %s cannot run here", name);
	else if (app_busy(a)) {
		app_notice(a, ROLE_WARNING, "%s", "a turn is running: wait for it, or press Esc to stop it");
		ed_set(&a->ed, buf_cstr(&line));
	} else if (a->be->prompt_expand(a->cfg, buf_cstr(&line), &prompt, &err) != 0)
		app_notice(a, ROLE_ERROR, "%s: %s", name, err.len ? buf_cstr(&err) : "cannot be used");
	else {
		then->what = DO_SUBMIT;
		then->text = buf_detach(&prompt, NULL);
	}
	buf_release(&line);
	buf_release(&prompt);
	buf_release(&err);
}

static void
cmd_init(struct app *a, const char *arg, struct app_action *then)
{
	cmds_prompt_run(a, "/init", arg, then);
}

static void
cmd_review(struct app *a, const char *arg, struct app_action *then)
{
	cmds_prompt_run(a, "/review", arg, then);
}

bool
cmds_run(struct app *a, const char *text, struct app_action *then)
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
		cmd_table[i].fn(a, trimmed, then);
		free(trimmed);
		app_dirty(a, D_PANES | D_LAYOUT);
		return true;
	}
	free(trimmed);
	if (!cmds_custom_run(a, text, then))
		app_notice(a, ROLE_ERROR, "unknown command %.*s: /help lists them", (int)len, text);
	app_dirty(a, D_PANES | D_LAYOUT);
	return true;
}
