/*
 * tui: the screen's life: setting the terminal up, the event stream in,
 * frames out, signals, and giving the terminal back.
 *
 * Frames: whatever changes marks panes dirty (app_dirty, app.c); the loop
 * here paints once per iteration when something is dirty, at most every
 * APP_FRAME_MS (it sleeps in poll for the rest), and never while the
 * terminal is handed over.  A tick timer runs only while a tool runs or a
 * retry waits.  Idle, the loop sleeps with no timeout at all.
 */
#include "autoconf.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "tui.h"
#include "claude/notice.h"
#include "config/config.h"
#include "hooks/cctranscript.h"
#include "ev.h"
#include "event.h"
#include "json.h"
#include "statusline.h"

/* The one app, for the allocation failure hook (which takes no argument). */
static struct app *tui_current;

static void
tui_frame(struct app *a)
{
	paint_frame(a);
	a->last_frame = ev_now_ms();
	if (a->stats != NULL) {
		if (a->stats->frames == 0)
			a->stats->first_frame_ms = a->last_frame;
		a->stats->frames++;
	}
}

/*
 * Paint what is dirty if a frame is due; how long the loop may sleep (-1:
 * until something happens).
 */
static int
tui_paint_due(struct app *a)
{
	int64_t wait;

	if (a->dirty == 0 || a->away || a->screen == NULL)
		return -1;
	wait = a->last_frame + APP_FRAME_MS - ev_now_ms();
	if (wait > 0)
		return (int)wait;
	tui_frame(a);
	return -1;
}

/* ---- the event stream ---- */

static void
tui_on_session(struct app *a, const cJSON *ev)
{
	const char *from = json_str(ev, "forked_from", "");

	snprintf(a->cwd, sizeof a->cwd, "%s", json_str(ev, "cwd", a->cwd));
	snprintf(a->session_id, sizeof a->session_id, "%s", json_str(ev, "id", ""));
	/* A resumed or forked session replays its conversation next. */
	if (json_bool(ev, "resumed", false) && tr_count(a->tr) > 0)
		app_reset_view(a);
	if (*from != '\0')
		app_notice(a, ROLE_DIM, "forked from session %s into %s", from, json_str(ev, "id", ""));
	/* The event says it only when the fork happens; the agent knows it for good. */
	if (a->agent != NULL && a->be->forked_from != NULL)
		from = a->be->forked_from(a->agent);
	st_set_fork(&a->st, from);
	app_dirty(a, D_STATUS);
}

/* The conversation was rewound: it is replayed next, from the start. */
static void
tui_on_rewind(struct app *a, const cJSON *ev)
{
	const char *what = json_str(ev, "what", "conversation");

	if (a->br.on)
		browse_close(a);
	app_reset_view(a);
	if (strcmp(what, "redo") == 0) {
		app_notice(a, ROLE_DIM, "%s", "redone: the rewind is undone");
		return;
	}
	a->rewound_turn = (int)json_int(ev, "to_turn", 0);
	a->rewound_what = strcmp(what, "files") == 0 ? REWIND_FILES : strcmp(what, "conversation") == 0 ?
	    REWIND_CONVERSATION : REWIND_BOTH;
	app_notice(a, ROLE_DIM, "rewound (%s) to before turn %d", what, a->rewound_turn);
}

static void
tui_on_turn_start(struct app *a, const cJSON *ev)
{
	a->turn = (int)json_int(ev, "turn", a->turn + 1);
	a->local_busy = true;
	a->tools_scroll = 0;
	tr_prompt(a->tr, a->turn, json_str(ev, "prompt", ""));
	tr_bottom(a->tr);
	app_dirty(a, D_TRANSCRIPT | D_TOOLS | D_LAYOUT);
}

static void
tui_on_text(struct app *a, const cJSON *ev)
{
	const char *t = json_str(ev, "text", "");

	tr_text(a->tr, (int)json_int(ev, "turn", a->turn), t, strlen(t));
	app_dirty(a, D_TRANSCRIPT);
}

static void
tui_on_thinking(struct app *a, const cJSON *ev)
{
	const char *t = json_str(ev, "text", "");

	tr_thinking(a->tr, (int)json_int(ev, "turn", a->turn), t, strlen(t));
	app_dirty(a, D_TRANSCRIPT);
}

static void
tui_on_tool_use(struct app *a, const cJSON *ev)
{
	const char *id = json_str(ev, "id", ""), *name = json_str(ev, "name", "tool");
	int turn = (int)json_int(ev, "turn", a->turn);
	char *summary;

	tv_use(&a->tools, id, name, json_get(ev, "input"), turn);
	summary = tv_summary(name, json_get(ev, "input"));
	tr_end_block(a->tr);
	tr_tool_use(a->tr, turn, id, name, summary);
	tr_tool_input(a->tr, id, json_get(ev, "input"));
	free(summary);
	app_dirty(a, D_TOOLS | D_TRANSCRIPT | D_LAYOUT);
}

static void
tui_on_tool_progress(struct app *a, const cJSON *ev)
{
	const char *out = json_str(ev, "output", "");

	tv_progress(&a->tools, json_str(ev, "id", ""), out, strlen(out), ev_now_ms());
	app_tick_arm(a);
	app_dirty(a, D_TOOLS);
}

/* An approved call waits for another conversation's change: its line says so. */
static void
tui_on_tool_wait(struct app *a, const cJSON *ev)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&b, "%s\n", json_str(ev, "note", "approved; waits"));
	tv_progress(&a->tools, json_str(ev, "id", ""), b.data, b.len, ev_now_ms());
	buf_release(&b);
	app_dirty(a, D_TOOLS);
}

static void
tui_on_approval_request(struct app *a, const cJSON *ev)
{
	tv_waiting(&a->tools, json_str(ev, "id", ""));
	tr_tool_diff(a->tr, json_str(ev, "id", ""), json_str(ev, "preview", NULL));
	approve_request(a, ev);
	notify_wait(a, false, "an approval waits for you");
	app_dirty(a, D_TOOLS | D_LAYOUT);
}

static void
tui_on_approval(struct app *a, const cJSON *ev)
{
	const char *id = json_str(ev, "id", ""), *d = json_str(ev, "decision", "allow");

	tv_decided(&a->tools, id, d, ev_now_ms());
	if (strcmp(d, "deny") == 0)
		tr_tool_denied(a->tr, id, json_str(ev, "reason", NULL));
	approve_settled(a, id);
	app_tick_arm(a);
	app_dirty(a, D_TOOLS | D_TRANSCRIPT);
}

/*
 * A replayed result (a resume, a rewind) carries no "denied" flag: the
 * record keeps only the text the model was given, which says so.  The
 * user's reason follows ", saying: ".
 */
static bool
tui_replayed_denial(const cJSON *ev, const char *text, const char **reason)
{
	static const char lead[] = "the user denied this ";
	const char *r;

	*reason = NULL;
	if (json_bool(ev, "denied", false))
		return true;
	if (!json_bool(ev, "replay", false) || !json_bool(ev, "is_error", false) || text == NULL ||
	    strncmp(text, lead, sizeof lead - 1) != 0)
		return false;
	if ((r = strstr(text, ", saying: ")) != NULL)
		*reason = r + 10;
	return true;
}

/* A command the user stopped with Esc ends in run_bash's note: it did not fail of itself. */
static void
tui_mark_interrupted(struct app *a, const char *id, const cJSON *content)
{
	const struct tv_entry *e = tv_find(&a->tools, id);

	if (e == NULL || e->state != TV_FAILED || !cJSON_IsString(content) ||
	    strstr(content->valuestring, "[interrupted by the user;") == NULL)
		return;
	tv_interrupted(&a->tools, id);
	tr_tool_interrupted(a->tr, id);
}

static void
tui_on_tool_result(struct app *a, const cJSON *ev)
{
	const char *id = json_str(ev, "id", "");
	const cJSON *content = json_get(ev, "content");
	char *text = NULL;
	const char *reason;

	if (tui_replayed_denial(ev, cJSON_IsString(content) ? content->valuestring : NULL, &reason)) {
		tv_decided(&a->tools, id, "deny", ev_now_ms());
		tr_tool_denied(a->tr, id, reason);
	}
	/* A replayed result's duration is not known. */
	tv_result(&a->tools, id, json_bool(ev, "is_error", false),
	    json_bool(ev, "replay", false) ? -1 : json_int(ev, "duration_ms", -1), ev_now_ms());
	/* Content is text, or blocks of text: show the text. */
	if (cJSON_IsString(content))
		tr_tool_result(a->tr, id, json_bool(ev, "is_error", false), content->valuestring);
	else {
		struct buf b = BUF_INIT(1024 * 1024);
		const cJSON *block;

		cJSON_ArrayForEach(block, content) {
			const char *t = json_str(block, "text", NULL);

			if (t != NULL) {
				if (b.len > 0)
					buf_putc(&b, '\n');
				buf_puts(&b, t);
			}
		}
		text = buf_detach(&b, NULL);
		tr_tool_result(a->tr, id, json_bool(ev, "is_error", false), text);
		free(text);
	}
	tui_mark_interrupted(a, id, content);
	approve_settled(a, id);
	app_dirty(a, D_TOOLS | D_TRANSCRIPT | D_LAYOUT);
}

/*
 * A subagent's state, text and calls, under its agent call: the call's
 * live line and its transcript (tr_sub_*); its calls' results, diffs and
 * denials then find them by their ids.
 */
static void
tui_on_subagent(struct app *a, const cJSON *ev)
{
	const char *parent = json_str(ev, "parent_tool_use_id", ""), *state = json_str(ev, "state", "");
	const cJSON *in = json_get(ev, "event");

	if (strcmp(state, "text") == 0) {
		const char *t = json_str(in, "text", "");

		tr_sub_text(a->tr, parent, t, strlen(t));
	} else if (strcmp(state, "tool") == 0) {
		const char *name = json_str(in, "name", "tool");
		char *summary = tv_summary(name, json_get(in, "input"));

		tr_sub_tool_use(a->tr, parent, json_str(in, "id", ""), name, summary);
		tr_tool_input(a->tr, json_str(in, "id", ""), json_get(in, "input"));
		free(summary);
	} else if (strcmp(state, "tool_result") == 0) {
		const char *id = json_str(in, "id", "");

		if (json_bool(in, "denied", false))
			tr_tool_denied(a->tr, id, NULL);
		tr_tool_result(a->tr, id, json_bool(in, "is_error", false), json_str(in, "content", ""));
	}
	if (!json_bool(ev, "replay", false))
		tr_sub_state(a->tr, parent, json_str(ev, "agent", ""), (int)json_int(ev, "calls", 0),
		    json_int(ev, "tokens", 0), strcmp(state, "end") != 0);
	app_dirty(a, D_TRANSCRIPT);
}

static void
tui_on_compaction(struct app *a, const cJSON *ev)
{
	char before[16], after[16];

	st_tokens(json_int(ev, "tokens_before", 0), before, sizeof before);
	st_tokens(json_int(ev, "tokens_after", 0), after, sizeof after);
	app_notice(a, ROLE_DIM, "compacted (%s): %s \xE2\x86\x92 %s tokens", json_str(ev, "stage", "?"), before, after);
}

static void
tui_on_cache_break(struct app *a, const cJSON *ev)
{
	char dropped[16], usd[32];
	double cost = json_num(ev, "cost_usd", -1);

	st_tokens(json_int(ev, "dropped_tokens", 0), dropped, sizeof dropped);
	st_break_price(cost, usd, sizeof usd);
	app_notice(a, ROLE_WARNING, "\xE2\x9A\xA0 prompt cache break: %s tokens no longer cached (%s), %s%s",
	    dropped, a->st.cb_causes, usd, cost < 0 ? "" : " more than a cache read");
}

static void
tui_on_retry(struct app *a, const cJSON *ev)
{
	app_tick_arm(a);
}

static void
tui_on_error(struct app *a, const cJSON *ev)
{
	app_notice(a, ROLE_ERROR, "%s%s", json_bool(ev, "fatal", false) ? "fatal error: " : "error: ",
	    json_str(ev, "message", "(no message)"));
}

static void
tui_on_turn_end(struct app *a, const cJSON *ev)
{
	const char *why = json_str(ev, "stop_reason", "end_turn");

	a->local_busy = false;
	queue_turn_ended(a, why);
	notify_turn_ended(a, why);
	tr_end_block(a->tr);
	if (strcmp(why, "end_turn") != 0 && strcmp(why, "tool_use") != 0 && strcmp(why, "stop_sequence") != 0)
		app_notice(a, strcmp(why, "interrupted") == 0 ? ROLE_WARNING : ROLE_DIM, "(stopped: %s)", why);
	app_dirty(a, D_TRANSCRIPT | D_TOOLS);
}

static const struct tui_event {
	const char	*type;
	void		 (*fn)(struct app *, const cJSON *);
} tui_events[] = {
	{ "session", tui_on_session },
	{ "turn_start", tui_on_turn_start },
	{ "text", tui_on_text },
	{ "thinking", tui_on_thinking },
	{ "tool_use", tui_on_tool_use },
	{ "tool_progress", tui_on_tool_progress },
	{ "tool_wait", tui_on_tool_wait },
	{ "approval_request", tui_on_approval_request },
	{ "approval", tui_on_approval },
	{ "tool_result", tui_on_tool_result },
	{ "subagent", tui_on_subagent },
	{ "compaction", tui_on_compaction },
	{ "cache_break", tui_on_cache_break },
	{ "retry", tui_on_retry },
	{ "error", tui_on_error },
	{ "turn_end", tui_on_turn_end },
	{ "rewind", tui_on_rewind },
	{ "attachment", mention_on_attachment },
};

/* A project's status line command is project code: it runs once the project is trusted. */
static bool
tui_statusline_allowed(const struct app *a)
{
	const char *src = json_str(a->cfg->sources, "statusLine", "");
	size_t n = strlen(a->cfg->root);

	return a->cfg->trusted || strncmp(src, a->cfg->root, n) != 0 || src[n] != '/';
}

/* The session changed: the status line command runs again (debounced, off the loop). */
static void
tui_statusline_poke(struct app *a)
{
	struct sl_info in;
	struct buf tp = BUF_INIT(BUF_NOLIMIT);

	if (a->sl == NULL || !tui_statusline_allowed(a))
		return;
	memset(&in, 0, sizeof in);
	if (a->session_id[0] != '\0')
		buf_printf(&tp, "%s/sessions/%s/" CCTR_FILE, a->cfg->home, a->session_id);
	in.session_id = a->session_id;
	in.transcript_path = buf_cstr(&tp);
	in.cwd = a->cfg->root;
	in.model = a->st.model;
	in.cost_usd = a->st.cost;
	in.duration_ms = ev_now_ms() - a->opened_at;
	in.ctx_tokens = a->st.ctx_tokens;
	in.ctx_window = a->st.ctx_window;
	in.total_in = a->st.total.in + a->st.total.cache_read + a->st.total.cache_write;
	in.total_out = a->st.total.out;
	statusline_update(a->sl, &in);
	buf_release(&tp);
}

static void
tui_statusline_changed(void *arg)
{
	struct app *a = arg;
	const char *why = statusline_error(a->sl);

	if (why != NULL && !a->sl_warned) {
		a->sl_warned = true;
		app_notice(a, ROLE_WARNING, "%s; tandem's own status bar is shown until it works", why);
	}
	app_dirty(a, D_STATUS);
}

static void
tui_statusline_start(struct app *a)
{
	struct buf why = BUF_INIT(1024);

	if (a->cfg == NULL || a->cfg->status_line == NULL)
		return;
	a->sl = statusline_new(a->loop, a->cfg->status_line, a->cfg->root, tui_statusline_changed, a, &why);
	if (why.len > 0)
		app_notice(a, ROLE_WARNING, "%s", buf_cstr(&why));
	else if (!tui_statusline_allowed(a))
		app_notice(a, ROLE_DIM, "this project's statusLine command runs once the project is trusted");
	buf_release(&why);
	tui_statusline_poke(a);
}

static void
tui_event(const cJSON *ev, void *arg)
{
	struct app *a = arg;
	const char *type = json_str(ev, "type", "");
	size_t i;

	if (st_event(&a->st, ev, ev_now_ms())) {
		app_dirty(a, D_STATUS);
		tui_statusline_poke(a);
	}
	if (tdv_event(&a->todo, ev)) {
		app_dirty(a, D_PLAN | D_LAYOUT);
		app_tick_arm(a);
	}
	for (i = 0; i < sizeof tui_events / sizeof tui_events[0]; i++) {
		if (strcmp(tui_events[i].type, type) == 0) {
			tui_events[i].fn(a, ev);
			break;
		}
	}
	/* The session's id is known once its event is taken in. */
	if (strcmp(type, "session") == 0)
		tui_statusline_poke(a);
}

/* ---- the terminal ---- */

static void
tui_on_signal(struct ev_loop *loop, int signo, void *arg)
{
	struct app *a = arg;

	if (signo == SIGWINCH || signo == SIGCONT) {
		app_resize(a);
		return;
	}
	a->end_signal = signo;
	app_quit(a);
}

/* ---- what keys and commands ask for ---- */

static void tui_act(struct app *, struct app_action *);

static void
tui_do_send(struct app *a, struct app_action *act)
{
	struct app_action then = { DO_NOTHING, NULL };

	if (!cmds_run(a, act->text, &then) && !bang_run(a, act->text))
		app_submit(a, act->text);
	tui_act(a, &then);
}

static void
tui_do_submit(struct app *a, struct app_action *act)
{
	app_submit(a, act->text);
}

static void
tui_do_keys_help(struct app *a, struct app_action *act)
{
	keys_help(a);
	app_dirty(a, D_PANES);
}

static void
tui_do_edit(struct app *a, struct app_action *act)
{
	approve_edit(a);
}

static void
tui_do_suspend(struct app *a, struct app_action *act)
{
	app_screen_leave(a);
	kill(getpid(), SIGSTOP);
	app_screen_enter(a);
}

static void
tui_do_quit(struct app *a, struct app_action *act)
{
	app_quit(a);
}

static void (*const tui_dos[DO_COUNT])(struct app *, struct app_action *) = {
	[DO_SEND] = tui_do_send,
	[DO_SUBMIT] = tui_do_submit,
	[DO_KEYS_HELP] = tui_do_keys_help,
	[DO_EDIT] = tui_do_edit,
	[DO_SUSPEND] = tui_do_suspend,
	[DO_QUIT] = tui_do_quit,
};

/* Perform an action and release it. */
static void
tui_act(struct app *a, struct app_action *act)
{
	if ((unsigned)act->what < DO_COUNT && tui_dos[act->what] != NULL)
		tui_dos[act->what](a, act);
	free(act->text);
	act->text = NULL;
	act->what = DO_NOTHING;
}

static void
tui_on_stdin(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct app *a = arg;
	struct app_action act;

	if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		/* The terminal went away: nobody is left to answer. */
		ev_io_del(loop, fd);
		app_quit(a);
		return;
	}
	/* In order: keys after Enter see what the line did; none once the terminal is handed over. */
	while (!a->away && keys_next(a, &act))
		tui_act(a, &act);
}

static void
tui_fatal_hook(void)
{
	if (tui_current != NULL && tui_current->screen != NULL) {
		app_term_modes(false);
		endwin();
	}
}

/* The themes directory: the option, the installed one, or ./themes. */
static void
tui_themes_dir(struct app *a, const char *datadir)
{
	struct stat st;

	if (datadir != NULL)
		snprintf(a->themes_dir, sizeof a->themes_dir, "%s", datadir);
	else if (stat(TANDEM_DATADIR "/themes", &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(a->themes_dir, sizeof a->themes_dir, "%s", TANDEM_DATADIR "/themes");
	else
		snprintf(a->themes_dir, sizeof a->themes_dir, "%s", "themes");
}

/*
 * A UTF-8 locale for wcwidth and wide curses, whatever the environment says;
 * true when the terminal needs the ASCII glyphs (the user's locale is not
 * UTF-8, or TERM is linux).
 */
static bool
tui_locale(void)
{
	const char *cs;
	bool ascii;

	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	ascii = theme_glyphs_ascii_wanted(cs, getenv("TERM"));
	if (cs == NULL || strcmp(cs, "UTF-8") != 0)
		if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
			setlocale(LC_CTYPE, "en_US.UTF-8");
	return ascii;
}

static void
tui_theme_initial(struct app *a, const char *name, struct buf *warn)
{
	char err[512], path[PATH_MAX + 64];
	const char *want = name ? name : a->no_color ? "mono" : "dark";

	/* The default theme not installed is no news: the built-in one is the same. */
	snprintf(path, sizeof path, "%s/%s.theme", a->themes_dir, want);
	if (name == NULL && access(path, R_OK) != 0) {
		theme_default(&a->theme);
		return;
	}
	if (theme_load(a->themes_dir, want, &a->theme, err, sizeof err) == -1)
		buf_printf(warn, "theme %s: %s; using the built-in theme", want, err);
}

static struct app *
tui_new(struct ev_loop *loop, struct event_bus *bus, const struct tui_backend *be, struct agent *agent,
    const struct tui_opts *opts, struct tui_stats *stats)
{
	struct app *a = xcalloc(1, sizeof *a);
	const char *nc = getenv("NO_COLOR");

	a->loop = loop;
	a->bus = bus;
	a->be = be;
	a->agent = agent;
	a->cfg = agent != NULL ? opts->cfg : NULL;
	a->mouse = opts->mouse;
	a->print_on_exit = opts->print_on_exit;
	a->no_resume_line = opts->no_resume_line;
	a->stats = stats;
	a->no_color = nc != NULL && *nc != '\0';
	a->tr = tr_new();
	tv_init(&a->tools);
	tdv_init(&a->todo);
	st_init(&a->st);
	ed_init(&a->ed);
	ed_init(&a->aux);
	buf_init(&a->hint, 4096);
	udiff_view_init(&a->diff);
	browse_init(&a->br);
	a->focus = PANE_INPUT;
	a->zoom = -1;
	if (getcwd(a->cwd, sizeof a->cwd) == NULL)
		snprintf(a->cwd, sizeof a->cwd, "%s", ".");
	tui_themes_dir(a, opts->datadir);
	if (agent != NULL) {
		st_set_mode(&a->st, app_mode_name(a, be->mode(agent)));
		st_set_model(&a->st, be->model(agent));
	}
	return a;
}

static void
tui_free(struct app *a)
{
	paint_free(a);
	if (a->keywin != NULL)
		delwin(a->keywin);
	approve_free(a);
	udiff_view_release(&a->diff);
	browse_release(&a->br);
	cmds_free(a);
	queue_free(a);
	mention_free(a);
	notify_free(a);
	paste_free(a);
	free(a->deferred_prompt);
	statusline_free(a->sl);
	tr_free(a->tr);
	tv_release(&a->tools);
	tdv_release(&a->todo);
	askpick_free(a);
	ed_release(&a->ed);
	ed_release(&a->aux);
	buf_release(&a->hint);
	buf_release(&a->pastebuf);
	free(a);
}

static int
tui_screen_open(struct app *a)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fputs("tandem: the full-screen UI needs a terminal; use -p PROMPT to run without one\n", stderr);
		return -1;
	}
	a->screen = newterm(NULL, stdout, stdin);
	if (a->screen == NULL) {
		fprintf(stderr, "tandem: cannot use the terminal type '%s': set TERM to a known type (e.g. xterm-256color)\n",
		    term ? term : "(unset)");
		return -1;
	}
	set_term(a->screen);
	raw();
	noecho();
	nonl();
	set_escdelay(25);
	curs_set(0);
	keys_setup(a);
	app_term_modes(true);
	return 0;
}

static void
tui_screen_close(struct app *a)
{
	if (a->screen == NULL)
		return;
	app_term_modes(false);
	paint_free(a);
	if (a->keywin != NULL) {
		delwin(a->keywin);
		a->keywin = NULL;
	}
	endwin();
	delscreen(a->screen);
	a->screen = NULL;
}

/* The answer about the project's trust items; then the initial prompt may go. */
static void
tui_trust_answer(struct app *a, bool yes, const int arg[2])
{
	struct buf err = BUF_INIT(4096);
	char *prompt, *model;

	if (yes) {
		if (a->be->trust(a->cfg, &err) == -1)
			app_notice(a, ROLE_WARNING, "trusted for this run only: %s", buf_cstr(&err));
		model = a->cfg->model != NULL ? xstrdup(a->cfg->model) : NULL;
		a->be->apply_trusted(a->cfg);
		/*
		 * A project's model that waited (a dearer one) answers from now on,
		 * unless the session runs on another than the settings gave.
		 */
		if (model != NULL && a->cfg->model != NULL && strcmp(model, a->cfg->model) != 0 &&
		    strcmp(a->be->model(a->agent), model) == 0) {
			a->be->set_model(a->agent, a->cfg->model);
			st_set_model(&a->st, a->be->model(a->agent));
		}
		free(model);
		/* A project may set the permission mode too. */
		if (a->be->mode(a->agent) != a->cfg->mode) {
			a->be->set_mode(a->agent, a->cfg->mode);
			st_set_mode(&a->st, app_mode_name(a, a->be->mode(a->agent)));
		}
		app_notice(a, ROLE_DIM, "trusted %s: its hooks and allow rules are in effect", a->cfg->root);
		tui_statusline_poke(a);
	} else {
		app_notice(a, ROLE_DIM, "not trusted: this project's hooks and allow rules are ignored "
		    "(tandem asks again next time; --trust honours them)");
	}
	buf_release(&err);
	prompt = a->deferred_prompt;
	a->deferred_prompt = NULL;
	if (prompt != NULL)
		app_submit(a, prompt);
	free(prompt);
}

/* Before the first prompt: may this project's hooks and allow rules be honoured? */
static bool
tui_trust_ask(struct app *a)
{
	struct buf items = BUF_INIT(64 * 1024), list = BUF_INIT(128 * 1024);
	size_t i;

	if (a->cfg == NULL || !a->cfg->project_defines_trust_items || a->cfg->trusted) {
		buf_release(&list);
		buf_release(&items);
		return false;
	}
	a->be->trust_items(a->cfg, &items);
	while (items.len > 0 && items.data[items.len - 1] == '\n')
		items.data[--items.len] = '\0';
	/* Each item on its own line, indented. */
	for (i = 0; i < items.len; i++)
		if (items.data[i] == '\n')
			buf_puts(&list, "\n  ");
		else
			buf_putc(&list, items.data[i]);
	app_notice(a, ROLE_WARNING, "This project defines what waits for trust:\n  %s\n"
	    "tandem honours them only in a trusted project (%s). Hooks run commands on your machine; "
	    "allow rules let tools run without asking; a provider, a server or a dearer model "
	    "(in its settings, agent definitions or commands) decides where your conversation goes "
	    "and what it costs.", buf_cstr(&list), a->cfg->root);
	buf_release(&list);
	buf_release(&items);
	approve_ask(a, "Trust this project and honour them?", tui_trust_answer, NULL);
	return true;
}

/*
 * Ended by a signal (a closed terminal, a kill): where the session can be
 * picked up, on stderr, for whoever still reads it.
 */
static void
tui_resume_hint(const struct app *a)
{
	const char *dir, *id;

	if (a->end_signal == 0 || a->agent == NULL || a->be->session_dir == NULL ||
	    (dir = a->be->session_dir(a->agent)) == NULL || (id = strrchr(dir, '/')) == NULL)
		return;
	fprintf(stderr, "tandem: ended by %s; resume with: tandem --resume %s\n",
	    a->end_signal == SIGHUP ? "SIGHUP" : "SIGTERM", id + 1);
}

/* What was read and is not honoured, named once (claude/notice.h). */
static void
tui_notices(struct app *a)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (a->cfg == NULL || notice_pending(a->cfg->notices) == 0)
		return;
	notice_take_new(a->cfg->notices, "  ", &b);
	while (b.len > 0 && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	app_notice(a, ROLE_WARNING, "Read but not honoured (`tandem config` lists them too):\n%s",
	    buf_cstr(&b));
	buf_release(&b);
}

/* The bearings a session starts with: version, model, directory, session, mode, sandbox. */
static void
tui_start_line(struct app *a)
{
	const char *home = getenv("HOME");
	size_t hl = home != NULL ? strlen(home) : 0;
	char dir[PATH_MAX + 2];

	if (hl > 1 && strncmp(a->cwd, home, hl) == 0 && (a->cwd[hl] == '/' || a->cwd[hl] == '\0'))
		snprintf(dir, sizeof dir, "~%s", a->cwd + hl);
	else
		snprintf(dir, sizeof dir, "%s", a->cwd);
	app_notice(a, ROLE_DIM, "tandem %s · %s · %s · session %s · mode %s · %s", PACKAGE_VERSION,
	    a->st.model, dir, a->session_id[0] != '\0' ? a->session_id : "(new)", a->st.mode,
	    a->st.sandbox[0] != '\0' ? a->st.sandbox : "no sandbox");
	tui_notices(a);
}

static const int tui_signals[] = { SIGWINCH, SIGCONT, SIGTERM, SIGHUP };

int
tui_main(struct ev_loop *loop, struct event_bus *bus, const struct tui_backend *be, struct agent *agent,
    const struct tui_opts *opts, struct tui_stats *stats, void (*start)(struct app *, void *), void *arg)
{
	struct buf warn = BUF_INIT(4096);
	struct app *a;
	size_t i;
	int status;
	bool ascii = tui_locale();

	a = tui_new(loop, bus, be, agent, opts, stats);
	a->ascii_glyphs = ascii;
	notify_init(a);
	tui_theme_initial(a, opts->theme, &warn);
	if (tui_screen_open(a) == -1) {
		buf_release(&warn);
		tui_free(a);
		return 1;
	}
	tui_current = a;
	xalloc_set_fatal_hook(tui_fatal_hook);
	paint_theme_apply(a);
	if (warn.len > 0)
		app_notice(a, ROLE_ERROR, "%s", buf_cstr(&warn));
	buf_release(&warn);
	event_subscribe(bus, tui_event, a);
	a->opened_at = ev_now_ms();
	tui_statusline_start(a);
	ev_io_add(loop, STDIN_FILENO, POLLIN, tui_on_stdin, a);
	for (i = 0; i < sizeof tui_signals / sizeof tui_signals[0]; i++)
		ev_signal_add(loop, tui_signals[i], tui_on_signal, a);
	tui_frame(a);
	if (start != NULL)
		start(a, arg);
	if (a->agent != NULL)
		tui_start_line(a);
	if (tui_trust_ask(a)) {
		if (opts->initial_prompt != NULL && *opts->initial_prompt != '\0')
			a->deferred_prompt = xstrdup(opts->initial_prompt);
	} else if (opts->initial_prompt != NULL && *opts->initial_prompt != '\0')
		app_submit(a, opts->initial_prompt);
	while (!a->quit)
		if (ev_run_once(loop, tui_paint_due(a)) == -1 && errno != EINTR)
			break;
	ev_timer_cancel(loop, a->tick_timer);
	ev_io_del(loop, STDIN_FILENO);
	for (i = 0; i < sizeof tui_signals / sizeof tui_signals[0]; i++)
		ev_signal_del(loop, tui_signals[i]);
	event_unsubscribe(bus, tui_event, a);
	approve_edit_stop(a);
	if (a->away)
		app_screen_enter(a);
	tui_screen_close(a);
	xalloc_set_fatal_hook(NULL);
	tui_current = NULL;
	if (a->print_on_exit) {
		tr_print(a->tr, stdout);
		fflush(stdout);
	}
	tui_resume_hint(a);
	/* Where to pick up again, after a quit: the session's id, once it holds a turn. */
	if (a->end_signal == 0 && a->agent != NULL && a->session_id[0] != '\0' && a->turn > 0 &&
	    !a->no_resume_line) {
		printf("tandem: to go on with this session: tandem --resume %s\n", a->session_id);
		fflush(stdout);
	}
	status = a->status_code;
	tui_free(a);
	return status;
}
