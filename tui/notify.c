/* Notifications when tandem waits for the user: see notify.h. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "config/config.h"
#include "ev.h"
#include "event.h"
#include "file.h"
#include "notify.h"

static const struct notify_name {
	const char		*name;
	enum notify_style	 style;
} notify_names[] = {
	{ "off", NOTIFY_OFF }, { "bell", NOTIFY_BELL }, { "osc9", NOTIFY_OSC9 },
	{ "osc777", NOTIFY_OSC777 }, { "osc99", NOTIFY_OSC99 },
};

/* Which terminal, from what it leaves in the environment (tmux keeps most of these). */
static enum notify_style
notify_detect(const char *(*env)(const char *))
{
	const char *tp = env("TERM_PROGRAM"), *term = env("TERM"), *lc = env("LC_TERMINAL");

	if (env("KITTY_WINDOW_ID") != NULL || (term != NULL && strstr(term, "kitty") != NULL))
		return NOTIFY_OSC99;
	if (env("WT_SESSION") != NULL || (lc != NULL && strcmp(lc, "iTerm2") == 0) ||
	    (tp != NULL && (strcmp(tp, "iTerm.app") == 0 || strcmp(tp, "WezTerm") == 0 ||
	    strcmp(tp, "ghostty") == 0)))
		return NOTIFY_OSC9;
	if ((term != NULL && (strncmp(term, "rxvt", 4) == 0 || strncmp(term, "foot", 4) == 0)) ||
	    env("VTE_VERSION") != NULL)
		return NOTIFY_OSC777;
	return NOTIFY_BELL;
}

enum notify_style
notify_style_for(const char *setting, const char *(*env)(const char *))
{
	size_t i;

	for (i = 0; setting != NULL && i < sizeof notify_names / sizeof notify_names[0]; i++)
		if (strcmp(setting, notify_names[i].name) == 0)
			return notify_names[i].style;
	return notify_detect(env);
}

/* A title or body without control bytes or ';' (which would end a field). */
static void
notify_clean(struct buf *out, const char *s)
{
	for (; *s != '\0'; s++)
		buf_putc(out, (unsigned char)*s < 0x20 || *s == 0x7f || *s == ';' ? ' ' : *s);
}

void
notify_bytes(enum notify_style style, bool tmux, const char *title, const char *body, struct buf *out)
{
	struct buf osc = BUF_INIT(4096);
	size_t i;

	if (style == NOTIFY_OFF)
		return;
	switch (style) {
	case NOTIFY_OSC9:
		buf_puts(&osc, "\033]9;");
		notify_clean(&osc, title);
		buf_puts(&osc, ": ");
		notify_clean(&osc, body);
		buf_puts(&osc, "\a");
		break;
	case NOTIFY_OSC777:
		buf_puts(&osc, "\033]777;notify;");
		notify_clean(&osc, title);
		buf_putc(&osc, ';');
		notify_clean(&osc, body);
		buf_puts(&osc, "\a");
		break;
	case NOTIFY_OSC99:
		buf_puts(&osc, "\033]99;i=tandem:d=0:p=title;");
		notify_clean(&osc, title);
		buf_puts(&osc, "\033\\\033]99;i=tandem:d=1:p=body;");
		notify_clean(&osc, body);
		buf_puts(&osc, "\033\\");
		break;
	default:
		break;
	}
	/* The bell rings through tmux itself (its bell-action); the OSC needs the passthrough. */
	buf_putc(out, '\a');
	if (osc.len > 0 && tmux) {
		buf_puts(out, "\033Ptmux;");
		for (i = 0; i < osc.len; i++) {
			if (osc.data[i] == '\033')
				buf_putc(out, '\033');
			buf_putc(out, osc.data[i]);
		}
		buf_puts(out, "\033\\");
	} else if (osc.len > 0) {
		buf_append(out, osc.data, osc.len);
	}
	buf_release(&osc);
}

static const char *
notify_getenv(const char *name)
{
	return getenv(name);
}

void
notify_init(struct app *a)
{
	struct notify *n = &a->notify;
	const char *style = a->cfg != NULL ? a->cfg->notify_style : "auto";

	n->style = notify_style_for(style, notify_getenv);
	n->tmux = getenv("TMUX") != NULL;
	n->idle_ms = a->cfg != NULL ? a->cfg->notify_idle_ms : 60000;
}

static void
notify_cancel(struct app *a)
{
	if (a->notify.timer != 0)
		ev_timer_cancel(a->loop, a->notify.timer);
	a->notify.timer = 0;
}

void
notify_free(struct app *a)
{
	notify_cancel(a);
}

/* Ring and show it now. */
static void
notify_send(struct app *a)
{
	struct buf out = BUF_INIT(8192);

	notify_bytes(a->notify.style, a->notify.tmux, "tandem", a->notify.what, &out);
	fflush(stdout);
	(void)file_write_all(STDOUT_FILENO, out.data != NULL ? out.data : "", out.len);
	buf_release(&out);
}

/* Idle long enough: the hook for a finished turn, and the terminal where focus is not known. */
static void
notify_idle(struct ev_loop *loop, void *arg)
{
	struct app *a = arg;
	cJSON *ev;

	a->notify.timer = 0;
	if (!a->notify.focus_known)
		notify_send(a);
	if (a->notify.turn_done && a->bus != NULL) {
		ev = event_new(a->bus, "idle");
		cJSON_AddStringToObject(ev, "message", a->notify.what);
		event_emit(a->bus, ev);
	}
}

void
notify_wait(struct app *a, bool turn_done, const char *what)
{
	struct notify *n = &a->notify;

	snprintf(n->what, sizeof n->what, "%s", what);
	n->turn_done = turn_done;
	notify_cancel(a);
	if (n->focus_known && !n->focused)
		notify_send(a);
	if (n->idle_ms > 0 && (turn_done || !n->focus_known))
		n->timer = ev_timer_add(a->loop, n->idle_ms, notify_idle, a);
}

void
notify_turn_ended(struct app *a, const char *why)
{
	if (strcmp(why, "interrupted") == 0 || a->queue.n > 0)
		return;
	notify_wait(a, true, "the turn is done, tandem waits for your next prompt");
}

void
notify_focus(struct app *a, bool in)
{
	a->notify.focus_known = true;
	a->notify.focused = in;
}

void
notify_activity(struct app *a)
{
	notify_cancel(a);
}
