/*
 * bang: "!command" on the input line runs the user's own shell command now.
 *
 * No approval and no sandbox: it is the user's.  It runs on the loop
 * (agent/usercmd.c, through the backend), its output shows in the
 * transcript as a "!" item (compact, expandable like a tool's result),
 * and command and output, framed as run by the user, go with the next
 * prompt to the model.  Esc kills it while it runs.  One at a time.
 *
 * The state is struct bang, one in struct app; nothing here allocates
 * beyond what bang_release frees.
 */
#ifndef TANDEM_TUI_BANG_H
#define TANDEM_TUI_BANG_H

#include <stdbool.h>

struct app;
struct usercmd;

struct bang {
	struct usercmd	*run;		/* the running command, or NULL */
	unsigned	 serial;
	char		 id[32];	/* its transcript item */
	char		 last[96];	/* the last line of its output, for the hint */
};

/* If text is "!command", run it (or say why not) and return true. */
bool	 bang_run(struct app *, const char *text);
/* Esc: kill the running command; true when there was one. */
bool	 bang_interrupt(struct app *);
/* Is a command running? */
bool	 bang_busy(const struct app *);

#endif
