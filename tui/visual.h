/*
 * visual: the user's $VISUAL (or $EDITOR, or vi) run on one file as a
 * child of the loop, in the terminal's foreground.
 *
 * visual_start forks the editor in its own process group and makes that
 * group the terminal's foreground one; the loop goes on serving the agent
 * (streams, tools, approvals) while it runs.  When it exits the terminal's
 * foreground is tandem's again and done gets the wait status.  The caller
 * gives the terminal up before (app_screen_leave) and takes it back in
 * done (app_screen_enter).  A struct visual is the caller's and must
 * stay put while its editor runs; it owns the child only.
 */
#ifndef TANDEM_TUI_VISUAL_H
#define TANDEM_TUI_VISUAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ev_loop;

typedef void visual_done_fn(int status, void *arg);

struct visual {
	pid_t		 pid;		/* 0: none running */
	struct ev_loop	*loop;
	visual_done_fn	*done;
	void		*arg;
};

/* Start the editor on path; 0, or -1 with err set (done is then never called). */
int	 visual_start(struct visual *, struct ev_loop *, const char *path, visual_done_fn *done, void *arg,
	    char *err, size_t errsize);
bool	 visual_running(const struct visual *);
/* Stop a running editor (tandem is leaving): done is not called. */
void	 visual_stop(struct visual *);

#endif
