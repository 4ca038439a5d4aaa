/* An image from the clipboard: see paste.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "ev.h"
#include "paste.h"
#include "proc.h"

static const struct paste_tool {
	const char	*env;		/* set when this clipboard is there */
	const char	*name;
	const char	*cmd;
} paste_tools[] = {
	{ "WAYLAND_DISPLAY", "wl-paste", "command -v wl-paste >/dev/null || exit 127; "
	    "exec wl-paste --no-newline --type image/png" },
	{ "DISPLAY", "xclip", "command -v xclip >/dev/null || exit 127; "
	    "exec xclip -selection clipboard -t image/png -o" },
};

static void
paste_done(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct app *a = arg;
	struct paste *p = &a->clip;
	struct buf err = BUF_INIT(4096);
	char name[64];
	struct stat st;

	proc_forget(pid);
	p->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		app_notice(a, ROLE_ERROR, "%s is not installed: no image can be pasted", p->tool);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(p->file, &st) == -1 || st.st_size == 0)
		app_notice(a, ROLE_ERROR, "the clipboard holds no image (%s found none)", p->tool);
	else {
		snprintf(name, sizeof name, "clipboard-%u.png", p->serial);
		if (a->be->attach_image(a->agent, p->file, name, &err) == -1)
			app_notice(a, ROLE_ERROR, "the clipboard's image is refused: %s", buf_cstr(&err));
		else
			app_notice(a, ROLE_DIM, "the clipboard's image (%s, %.1f KB) goes with your next prompt",
			    name, (double)st.st_size / 1024.0);
	}
	unlink(p->file);
	buf_release(&err);
}

void
paste_image(struct app *a)
{
	struct paste *p = &a->clip;
	struct buf err = BUF_INIT(1024);
	const struct paste_tool *t = NULL;
	const char *tmp = getenv("TMPDIR");
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct proc_spec spec = { .argv = argv, .in = PROC_IO_NULL, .out = PROC_IO_FD, .err = PROC_IO_NULL };
	struct proc pr;
	size_t i;
	int fd;

	if (a->agent == NULL || a->be->attach_image == NULL) {
		app_notice(a, ROLE_ERROR, "%s", "pasting an image needs a session");
		return;
	}
	if (p->pid != 0)
		return;
	for (i = 0; i < sizeof paste_tools / sizeof paste_tools[0] && t == NULL; i++)
		if (getenv(paste_tools[i].env) != NULL && *getenv(paste_tools[i].env) != '\0')
			t = &paste_tools[i];
	if (t == NULL) {
		app_notice(a, ROLE_ERROR, "%s", "no clipboard to paste an image from (neither WAYLAND_DISPLAY "
		    "nor DISPLAY is set)");
		return;
	}
	snprintf(p->file, sizeof p->file, "%s/tandem-paste-%ld-%u.png", tmp != NULL && *tmp != '\0' ? tmp :
	    "/tmp", (long)getpid(), ++p->serial);
	if ((fd = open(p->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) == -1) {
		app_notice(a, ROLE_ERROR, "%s: %s", p->file, strerror(errno));
		return;
	}
	argv[2] = t->cmd;
	spec.out_fd = fd;
	spec.redact_env = true;
	p->tool = t->name;
	if (proc_spawn(&spec, &pr, &err) == -1) {
		app_notice(a, ROLE_ERROR, "%s could not start: %s", t->name, buf_cstr(&err));
		unlink(p->file);
	} else {
		p->pid = pr.pid;
		ev_child_add(a->loop, pr.pid, paste_done, a);
		app_set_hint(a, false, "reading the clipboard's image with %s", t->name);
	}
	close(fd);
	buf_release(&err);
}

void
paste_free(struct app *a)
{
	if (a->clip.pid != 0) {
		ev_child_del(a->loop, a->clip.pid);
		proc_kill(a->clip.pid, SIGKILL);
		proc_forget(a->clip.pid);
		unlink(a->clip.file);
	}
}
