/* The background shells: see bgshell.h. */
#include "autoconf.h"

#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bgshell.h"
#include "json.h"
#include "proc.h"
#include "redact.h"
#include "run_bash.h"
#include "xalloc.h"

#define BGSHELL_KILL_GRACE_MS	1000
#define BGSHELL_CHUNK		16384

struct bgshell {
	struct bgshell		*next;
	struct ev_loop		*loop;
	int			 n;
	struct proc_watch	 w;		/* the shell and its output pipe */
	bool			 killed;
	char			*command;
	char			 tag[48];
	struct buf		 out;		/* the unread tail, redacted */
	size_t			 dropped;	/* unread bytes dropped for the bound */
	struct redact_stream	 redact;
	uint64_t		 kill_timer;
};

static struct bgshell *bgshell_list;
static int bgshell_serial;
static void (*bgshell_end_fn)(void *);
static bool (*bgshell_other_fn)(void *, enum tool_shell_op, const char *, struct tool_out *);
static void *bgshell_other_arg;
static void *bgshell_end_arg;

static struct bgshell *
bgshell_find(const char *id)
{
	struct bgshell *sh;
	char *end;
	long n;

	if (id == NULL || strncmp(id, "bash_", 5) != 0)
		return NULL;
	errno = 0;
	n = strtol(id + 5, &end, 10);
	if (errno != 0 || end == id + 5 || *end != '\0')
		return NULL;
	for (sh = bgshell_list; sh != NULL; sh = sh->next)
		if (sh->n == n)
			return sh;
	return NULL;
}

/* Append redacted bytes, keeping at most BGSHELL_KEEP unread. */
static void
bgshell_keep(struct bgshell *sh, const char *p, size_t n)
{
	struct buf clean = BUF_INIT(BGSHELL_KEEP * 2);

	redact_stream_feed(&sh->redact, p, n, &clean);
	if (clean.len > 0)
		buf_append(&sh->out, clean.data, clean.len);
	buf_release(&clean);
	if (sh->out.len > BGSHELL_KEEP) {
		size_t cut = sh->out.len - BGSHELL_KEEP;

		memmove(sh->out.data, sh->out.data + cut, BGSHELL_KEEP);
		buf_truncate(&sh->out, BGSHELL_KEEP);
		sh->dropped += cut;
	}
}

static int
bgshell_on_chunk(void *arg, const char *p, size_t n)
{
	bgshell_keep(arg, p, n);
	return 0;
}

/* The pipe is over: what the redaction still held back is kept too. */
static void
bgshell_flush(struct bgshell *sh)
{
	struct buf rest = BUF_INIT(BGSHELL_KEEP);

	redact_stream_flush(&sh->redact, &rest);
	if (rest.len > 0)
		bgshell_keep(sh, rest.data, rest.len);
	buf_release(&rest);
}

static void
bgshell_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct bgshell *sh = arg;

	if (proc_drain(loop, &sh->w, BGSHELL_CHUNK, bgshell_on_chunk, sh) != PROC_DRAIN_AGAIN)
		bgshell_flush(sh);
}

static void
bgshell_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct bgshell *sh = arg;

	proc_watch_exit(&sh->w, status);
	/* What it left behind ends with it. */
	if (sh->tag[0] != '\0')
		proc_sweep(sh->tag);
	if (sh->w.fd != -1)
		bgshell_on_read(loop, sh->w.fd, POLLIN, sh);
	if (sh->kill_timer != 0)
		ev_timer_cancel(loop, sh->kill_timer);
	sh->kill_timer = 0;
	if (bgshell_end_fn != NULL)
		bgshell_end_fn(bgshell_end_arg);
}

void
bgshell_on_other(bool (*fn)(void *, enum tool_shell_op, const char *, struct tool_out *), void *arg)
{
	bgshell_other_fn = fn;
	bgshell_other_arg = arg;
}

void
bgshell_on_end(void (*fn)(void *), void *arg)
{
	bgshell_end_fn = fn;
	bgshell_end_arg = arg;
}

static void
bgshell_hard_kill(struct ev_loop *loop, void *arg)
{
	struct bgshell *sh = arg;

	sh->kill_timer = 0;
	if (!sh->w.exited)
		proc_kill(sh->w.pid, SIGKILL);
}

static void
bgshell_atexit(void)
{
	bgshell_end_all();
}

int
bgshell_adopt(struct ev_loop *loop, pid_t pid, int fd, const char *tag, const char *command,
    struct buf *out)
{
	struct bgshell *sh = xcalloc(1, sizeof *sh);

	if (bgshell_serial == 0)
		atexit(bgshell_atexit);
	sh->loop = loop;
	sh->n = ++bgshell_serial;
	sh->w = (struct proc_watch){ .pid = pid, .fd = fd };
	sh->command = xstrdup(command);
	snprintf(sh->tag, sizeof sh->tag, "%s", tag != NULL ? tag : "");
	buf_init(&sh->out, BGSHELL_KEEP * 2);
	sh->redact = (struct redact_stream)REDACT_STREAM_INIT;
	sh->next = bgshell_list;
	bgshell_list = sh;
	ev_io_add(loop, fd, POLLIN, bgshell_on_read, sh);
	ev_child_add(loop, pid, bgshell_on_exit, sh);
	buf_printf(out, "Command running in the background with ID: bash_%d (process group %ld). "
	    "Read its output with bash_output and end it with kill_shell; it ends when "
	    "tandem exits.", sh->n, (long)pid);
	return sh->n;
}

static void
bgshell_status(const struct bgshell *sh, struct buf *b)
{
	if (sh->killed)
		buf_puts(b, "killed");
	else if (!sh->w.exited)
		buf_puts(b, "running");
	else if (WIFEXITED(sh->w.status))
		buf_printf(b, "exited %d", WEXITSTATUS(sh->w.status));
	else
		buf_printf(b, "exited on signal %d", WIFSIGNALED(sh->w.status) ?
		    WTERMSIG(sh->w.status) : 0);
}

/* The unread output (only the lines matching re, when given), then the mark moves. */
static void
bgshell_read(struct bgshell *sh, const regex_t *re, struct tool_out *out)
{
	struct buf *t = &out->text;
	size_t take = sh->out.len, start = 0;

	if (sh->dropped > 0)
		buf_printf(t, "[%zu bytes of earlier output were dropped before they were read]\n",
		    sh->dropped);
	if (take > TOOL_BASH_CAP)
		take = TOOL_BASH_CAP;
	/* Whole lines, when there is more than fits. */
	if (take < sh->out.len) {
		const char *nl = memrchr(sh->out.data, '\n', take);

		if (nl != NULL)
			take = (size_t)(nl - sh->out.data) + 1;
	}
	if (re == NULL)
		bash_clean_text(t, sh->out.data != NULL ? sh->out.data : "", take);
	else
		while (start < take) {
			const char *p = sh->out.data + start;
			const char *nl = memchr(p, '\n', take - start);
			size_t len = nl != NULL ? (size_t)(nl - p) : take - start;
			char *line = xstrndup(p, len);

			if (regexec(re, line, 0, NULL, 0) == 0) {
				bash_clean_text(t, p, len);
				buf_putc(t, '\n');
			}
			free(line);
			start += len + (nl != NULL);
		}
	if (take == 0)
		buf_puts(t, "(no new output)\n");
	if (take > 0) {
		memmove(sh->out.data, sh->out.data + take, sh->out.len - take);
		buf_truncate(&sh->out, sh->out.len - take);
	}
	sh->dropped = 0;
	if (sh->out.len > 0)
		buf_printf(t, "[%zu more bytes are waiting: call bash_output again]\n", sh->out.len);
	buf_printf(t, "status: ");
	bgshell_status(sh, t);
}

static void
bgshell_kill(struct bgshell *sh, struct tool_out *out)
{
	if (sh->w.exited || sh->killed) {
		buf_printf(&out->text, "bash_%d is not running (", sh->n);
		bgshell_status(sh, &out->text);
		buf_puts(&out->text, "); nothing was killed");
		return;
	}
	sh->killed = true;
	proc_kill(sh->w.pid, SIGTERM);
	proc_kill(sh->w.pid, SIGCONT);
	if (sh->tag[0] != '\0')
		proc_sweep(sh->tag);
	if (sh->kill_timer == 0)
		sh->kill_timer = ev_timer_add(sh->loop, BGSHELL_KILL_GRACE_MS, bgshell_hard_kill, sh);
	buf_printf(&out->text, "Killed bash_%d (%s): its whole process tree was sent SIGTERM, "
	    "then SIGKILL if it is still there in %d ms.", sh->n, sh->command,
	    BGSHELL_KILL_GRACE_MS);
}

void
bgshell_run(const struct tool_def *tool, const cJSON *input, struct tool_out *out)
{
	const char *id = json_str(input, "shell_id", NULL);
	const char *filter = json_str(input, "filter", NULL);
	struct bgshell *sh = bgshell_find(id);
	regex_t re;
	char msg[256];
	int rc;

	if (sh == NULL && id != NULL && bgshell_other_fn != NULL &&
	    bgshell_other_fn(bgshell_other_arg, tool->shell_op, id, out))
		return;
	if (sh == NULL) {
		tool_out_error(out, "there is no background shell %s%s%s; run_bash with "
		    "run_in_background true returns the id (like bash_1)",
		    id != NULL ? "\"" : "", id != NULL ? id : "(shell_id is missing)",
		    id != NULL ? "\"" : "");
		return;
	}
	if (tool->shell_op == TOOL_SHELL_KILL) {
		bgshell_kill(sh, out);
		return;
	}
	if (filter == NULL || filter[0] == '\0') {
		bgshell_read(sh, NULL, out);
		return;
	}
	if ((rc = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(rc, &re, msg, sizeof msg);
		tool_out_error(out, "filter is not a valid regular expression (%s); nothing was read",
		    msg);
		return;
	}
	bgshell_read(sh, &re, out);
	regfree(&re);
}

int
bgshell_running(void)
{
	const struct bgshell *sh;
	int n = 0;

	for (sh = bgshell_list; sh != NULL; sh = sh->next)
		n += !sh->w.exited;
	return n;
}

int
bgshell_describe(struct buf *out)
{
	const struct bgshell *sh;
	int n = 0;

	for (sh = bgshell_list; sh != NULL; sh = sh->next) {
		if (sh->w.exited)
			continue;
		buf_printf(out, "%sbash_%d (`%.80s%s`)", n > 0 ? ", " : "", sh->n, sh->command,
		    strlen(sh->command) > 80 ? "\xE2\x80\xA6" : "");
		n++;
	}
	return n;
}

void
bgshell_end_all(void)
{
	struct bgshell *sh;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i, left;

	for (sh = bgshell_list; sh != NULL; sh = sh->next)
		if (!sh->w.exited) {
			proc_kill(sh->w.pid, SIGTERM);
			proc_kill(sh->w.pid, SIGCONT);
		}
	/* A short grace, then what is left is killed outright. */
	for (i = 0; i < 25; i++) {
		left = 0;
		for (sh = bgshell_list; sh != NULL; sh = sh->next)
			if (!sh->w.exited && kill(-sh->w.pid, 0) == 0) {
				int st;

				if (waitpid(sh->w.pid, &st, WNOHANG) == sh->w.pid)
					proc_watch_exit(&sh->w, st);
				left++;
			}
		if (left == 0)
			break;
		nanosleep(&ts, NULL);
	}
	for (sh = bgshell_list; sh != NULL; sh = sh->next) {
		if (kill(-sh->w.pid, 0) == 0)
			proc_kill(sh->w.pid, SIGKILL);
		if (sh->tag[0] != '\0')
			proc_sweep(sh->tag);
		if (!sh->w.exited)
			sh->killed = true;
	}
}
