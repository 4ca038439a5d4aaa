/*
 * app: the services every tui/ module may call (app.h): dirty marks,
 * notices, the hint, submitting a prompt, the tick timer, and handing the
 * terminal over and taking it back.
 *
 * A leaf: it calls only the models (transcript, tools, editor), the
 * backend and the loop, never the modules that paint, read keys, run
 * commands or approve, and never tui.c.  Nothing here paints: app_dirty
 * only marks, and the loop in tui.c paints once per turn of the loop.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "app.h"
#include "ev.h"

static const char *const app_mode_names[] = {
	[PERM_ASK] = "ask", [PERM_ACCEPT_EDITS] = "accept-edits", [PERM_PLAN] = "plan", [PERM_YOLO] = "yolo",
};

/* What each mode means, in one line, for the notice a change gives. */
static const char *const app_mode_whats[] = {
	[PERM_ASK] = "every edit and command asks first",
	[PERM_ACCEPT_EDITS] = "edits apply without asking; commands still ask",
	[PERM_PLAN] = "read-only: the model explores and plans, nothing is changed",
	[PERM_YOLO] = "every call runs without asking; only deny rules still stop one",
};

const char *
app_mode_what(enum perm_mode m)
{
	return (unsigned)m < 4 ? app_mode_whats[m] : "";
}

void
app_mode_change(struct app *a, enum perm_mode m)
{
	a->yolo_confirm = false;
	if (a->agent != NULL)
		a->be->set_mode(a->agent, m);
	st_set_mode(&a->st, app_mode_name(a, a->agent != NULL ? a->be->mode(a->agent) : m));
	app_notice(a, m == PERM_YOLO ? ROLE_WARNING : ROLE_DIM, "mode %s: %s",
	    app_mode_name(a, m), app_mode_what(m));
}

const char *
app_mode_name(const struct app *a, enum perm_mode m)
{
	if (a->be != NULL && a->be->mode_name != NULL)
		return a->be->mode_name(m);
	return (unsigned)m < 4 ? app_mode_names[m] : "?";
}

bool
app_busy(const struct app *a)
{
	if (a->agent != NULL)
		return a->be->busy(a->agent);
	return a->local_busy;
}

void
app_dirty(struct app *a, unsigned what)
{
	a->dirty |= what;
}

static bool
app_needs_tick(const struct app *a)
{
	return tv_any_running(&a->tools) || (tdv_active(&a->todo) && app_busy(a)) ||
	    (a->st.retrying && ev_now_ms() < a->st.retry_until + 1000);
}

static void
app_tick(struct ev_loop *loop, void *arg)
{
	struct app *a = arg;

	a->tick_timer = 0;
	a->spin++;
	app_dirty(a, D_TOOLS | D_STATUS | D_PLAN);
	app_tick_arm(a);
}

void
app_tick_arm(struct app *a)
{
	if (a->tick_timer == 0 && app_needs_tick(a))
		a->tick_timer = ev_timer_add(a->loop, APP_TICK_MS, app_tick, a);
}

void
app_quit(struct app *a)
{
	if (app_busy(a)) {
		a->status_code = 130;
		if (a->agent != NULL)
			a->be->interrupt(a->agent);
	}
	a->quit = true;
}

void
app_notice(struct app *a, int role, const char *fmt, ...)
{
	struct buf b = BUF_INIT(1024 * 1024);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	tr_notice(a->tr, role, buf_cstr(&b));
	tr_bottom(a->tr);
	buf_release(&b);
	app_dirty(a, D_TRANSCRIPT);
}

void
app_set_hint(struct app *a, bool sticky, const char *fmt, ...)
{
	va_list ap;

	buf_reset(&a->hint);
	va_start(ap, fmt);
	buf_vprintf(&a->hint, fmt, ap);
	va_end(ap);
	a->hint_sticky = sticky;
	app_dirty(a, D_INPUT);
}

void
app_submit(struct app *a, const char *text)
{
	if (queue_take(a, text))
		return;
	if (a->agent == NULL) {
		tr_prompt(a->tr, ++a->turn, text);
		tr_bottom(a->tr);
		app_dirty(a, D_TRANSCRIPT | D_LAYOUT);
		return;
	}
	switch (a->be->submit(a->agent, text)) {
	case -1:
		app_notice(a, ROLE_WARNING, "%s", "a turn is running: wait for it, or press Esc to stop it");
		ed_set(&a->ed, text);
		break;
	case -2:
		/* The session still cannot be saved (the error says why): the prompt stays. */
		ed_set(&a->ed, text);
		break;
	}
	tr_bottom(a->tr);
	app_dirty(a, D_PANES);
}

void
app_reset_view(struct app *a)
{
	tr_free(a->tr);
	a->tr = tr_new();
	tv_release(&a->tools);
	tv_init(&a->tools);
	tdv_reset(&a->todo);
	a->tools_scroll = 0;
	a->expand_all = false;
	/* What the diff pane showed belongs to the old view (a rewound turn's diff, a call): not kept. */
	if (!a->diff.live)
		a->diff.on = a->diff.asked = a->diff.follows = false;
	app_dirty(a, D_PANES | D_LAYOUT);
}

/* ---- the terminal ---- */

void
app_term_modes(bool on)
{
	/* Bracketed paste, and focus reports for the notifications (notify.h). */
	const char *s = on ? "\033[?2004h\033[?1004h" : "\033[?2004l\033[?1004l";

	fflush(stdout);
	(void)!write(STDOUT_FILENO, s, strlen(s));
}

void
app_resize(struct app *a)
{
	struct winsize ws;

	/* While the terminal is handed over, the size is read when it comes back. */
	if (a->away)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	app_dirty(a, D_LAYOUT | D_PANES | D_CLEAR);
}

void
app_screen_leave(struct app *a)
{
	app_term_modes(false);
	def_prog_mode();
	endwin();
	/* Not one key is read, nor a frame painted, until the terminal is back. */
	a->away = true;
	ev_io_mod(a->loop, STDIN_FILENO, 0);
}

void
app_screen_enter(struct app *a)
{
	a->away = false;
	ev_io_mod(a->loop, STDIN_FILENO, POLLIN);
	reset_prog_mode();
	app_term_modes(true);
	app_resize(a);
}
