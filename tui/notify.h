/*
 * notify: telling the user that tandem waits for them (an approval, a
 * finished turn) when they are not looking.
 *
 * The terminal reports focus (CSI ?1004h; tui.c turns it on with the
 * bracketed paste): once it has said "out", a wait notifies at once;
 * while it says "in", never.  A terminal that never reports focus gets
 * the notification after notifications.idle_ms (60 s) without a key.
 *
 * A notification is the bell and, by terminal, a desktop notification:
 * OSC 9 (iTerm2, WezTerm, Windows Terminal, Ghostty), OSC 777 (urxvt,
 * foot, VTE) or OSC 99 (kitty), chosen from the environment ("auto") or
 * by notifications.style; inside tmux it goes through tmux's passthrough
 * (DCS tmux; ... ST, which needs "allow-passthrough on").  A finished
 * turn left idle for notifications.idle_ms also fires the Notification
 * hook with notification_type idle_prompt, through an "idle" event on the
 * bus (agent/hooks.c); approvals fire it already (permission_prompt).
 *
 * The state is struct notify in struct app.
 */
#ifndef TANDEM_TUI_NOTIFY_H
#define TANDEM_TUI_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct app;

enum notify_style { NOTIFY_OFF, NOTIFY_BELL, NOTIFY_OSC9, NOTIFY_OSC777, NOTIFY_OSC99 };

struct notify {
	enum notify_style style;
	bool		 tmux;
	bool		 focus_known, focused;
	int		 idle_ms;
	uint64_t	 timer;
	bool		 turn_done;	/* the wait is a finished turn (idle_prompt) */
	char		 what[160];	/* what waits, for the message */
};

/* The style for a setting ("auto", "osc9", ...) and an environment (getenv-like). */
enum notify_style notify_style_for(const char *setting, const char *(*env)(const char *));
/* The bytes of one notification, tmux-wrapped or not, to out. */
void	 notify_bytes(enum notify_style, bool tmux, const char *title, const char *body, struct buf *out);

void	 notify_init(struct app *);
void	 notify_free(struct app *);
/* The terminal said focus in or out. */
void	 notify_focus(struct app *, bool in);
/* A key: the user is here. */
void	 notify_activity(struct app *);
/* tandem waits for the user: an approval (turn_done false) or a finished turn. */
void	 notify_wait(struct app *, bool turn_done, const char *what);
/* A turn ended with why: a wait, unless the user stopped it or a queued prompt goes next. */
void	 notify_turn_ended(struct app *, const char *why);

#endif
