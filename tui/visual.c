/*
 * visual: $VISUAL as a child of the loop (visual.h).
 *
 * The child puts itself in a new process group and takes the terminal's
 * foreground (SIGTTOU ignored for that one call) before it runs the
 * editor through sh, so the editor never reads from a background group.
 * tandem, now in the background, reads nothing and paints nothing (the
 * caller made sure) until the child is reaped; then it takes the
 * foreground back.  Without a controlling terminal (tcsetpgrp fails) the
 * editor just runs.
 */
#include "autoconf.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ev.h"
#include "visual.h"

/* Make pgrp the terminal's foreground group, from any group. */
static void
visual_foreground(pid_t pgrp)
{
	struct sigaction ign, old;

	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGTTOU, &ign, &old);
	(void)tcsetpgrp(STDIN_FILENO, pgrp);
	sigaction(SIGTTOU, &old, NULL);
}

static void
visual_exited(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct visual *v = arg;
	visual_done_fn *done = v->done;
	void *darg = v->arg;

	v->pid = 0;
	v->done = NULL;
	v->arg = NULL;
	visual_foreground(getpgrp());
	if (done != NULL)
		done(status, darg);
}

int
visual_start(struct visual *v, struct ev_loop *loop, const char *path, visual_done_fn *done, void *arg,
    char *err, size_t errsize)
{
	const char *ed = getenv("VISUAL");
	char cmd[1024];
	sigset_t all, old;
	pid_t pid;
	int r;

	if (v->pid != 0) {
		snprintf(err, errsize, "%s", "an editor is already open");
		return -1;
	}
	if (ed == NULL || *ed == '\0')
		ed = getenv("EDITOR");
	if (ed == NULL || *ed == '\0')
		ed = "vi";
	/* The path is an argument, never part of the command text. */
	r = snprintf(cmd, sizeof cmd, "%s \"$1\"", ed);
	if (r < 0 || (size_t)r >= sizeof cmd) {
		snprintf(err, errsize, "%s", "the editor's command is too long");
		return -1;
	}
	/*
	 * The child starts with every signal blocked, so a SIGTERM sent before
	 * it has its default actions back (visual_stop right after the start)
	 * waits for them instead of running tandem's handler in the child.
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == -1) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(err, errsize, "cannot start the editor: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int i;

		setpgid(0, 0);
		visual_foreground(getpid());
		/* every signal to its default (tandem's handlers and ignores are not the editor's) */
		for (i = 1; i < NSIG; i++)
			(void)signal(i, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* Both sides set the group, so it is set whichever runs first. */
	(void)setpgid(pid, pid);
	v->pid = pid;
	v->loop = loop;
	v->done = done;
	v->arg = arg;
	if (ev_child_add(loop, pid, visual_exited, v) == -1) {
		kill(pid, SIGKILL);
		v->pid = 0;
		visual_foreground(getpgrp());
		snprintf(err, errsize, "cannot watch the editor: %s", strerror(errno));
		return -1;
	}
	return 0;
}

bool
visual_running(const struct visual *v)
{
	return v->pid != 0;
}

void
visual_stop(struct visual *v)
{
	if (v->pid == 0)
		return;
	ev_child_del(v->loop, v->pid);
	kill(-v->pid, SIGTERM);
	kill(-v->pid, SIGCONT);
	v->pid = 0;
	v->done = NULL;
	v->arg = NULL;
	visual_foreground(getpgrp());
}
