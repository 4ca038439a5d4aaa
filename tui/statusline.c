/* Claude Code's status line command: see statusline.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "file.h"
#include "json.h"
#include "proc.h"
#include "statusline.h"
#include "utf8.h"
#include "xalloc.h"

struct statusline {
	struct ev_loop	*loop;
	char		*command;
	char		*root;
	int		 padding;
	void		(*changed)(void *);
	void		*arg;

	char		*input;		/* the newest status JSON, not yet run */
	uint64_t	 debounce;	/* the timer before the next run */
	struct proc_watch w;		/* the run in progress; pid 0: none */
	uint64_t	 deadline;	/* its timeout */
	bool		 timed_out;
	struct buf	 out;

	char		*text;		/* what the bar shows; NULL: tandem's own */
	char		*error;		/* why the last run gave nothing; NULL */
};

static void sl_start(struct statusline *);

/* Drop escape sequences (CSI, OSC, two-byte) so the bar shows only the text. */
static void
sl_strip_escapes(const char *s, size_t n, struct buf *out)
{
	size_t i = 0;

	while (i < n) {
		/* A no-break space (status line programs pad with it) is a space on the bar. */
		if (i + 1 < n && (unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] == 0xa0) {
			buf_putc(out, ' ');
			i += 2;
			continue;
		}
		if (s[i] != '\x1b') {
			buf_putc(out, s[i++]);
			continue;
		}
		i++;
		if (i < n && s[i] == '[') {
			for (i++; i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e); i++)
				;
			i++;
		} else if (i < n && s[i] == ']') {
			for (i++; i < n && s[i] != '\a' && !(s[i] == '\x1b' && i + 1 < n && s[i + 1] == '\\'); i++)
				;
			i += i < n && s[i] == '\x1b' ? 2 : 1;
		} else if (i < n) {
			i++;
		}
	}
}

static void
sl_set(struct statusline *sl, char *text, char *error)
{
	bool same = ((text == NULL && sl->text == NULL) ||
	    (text != NULL && sl->text != NULL && strcmp(text, sl->text) == 0)) &&
	    (error == NULL) == (sl->error == NULL);

	free(sl->text);
	sl->text = text;
	free(sl->error);
	sl->error = error;
	if (!same && sl->changed != NULL)
		sl->changed(sl->arg);
}

/* The run is over: its first line, or tandem's own bar with the reason. */
static void
sl_finish(struct statusline *sl)
{
	struct buf line = BUF_INIT(BUF_NOLIMIT), clean = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(1024);
	const char *o = sl->out.data != NULL ? sl->out.data : "";
	size_t n = strcspn(o, "\r\n");
	int st = sl->w.status;

	if (sl->deadline != 0)
		ev_timer_cancel(sl->loop, sl->deadline);
	sl->deadline = 0;
	memset(&sl->w, 0, sizeof sl->w);
	sl->w.fd = -1;
	sl_strip_escapes(o, n, &line);
	if (sl->timed_out)
		buf_printf(&why, "the status line command timed out after %d s", SL_TIMEOUT_MS / 1000);
	else if (WIFSIGNALED(st))
		buf_printf(&why, "the status line command was killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) != 0)
		buf_printf(&why, "the status line command failed (exit %d)", WEXITSTATUS(st));
	else if (line.len == 0)
		buf_puts(&why, "the status line command printed nothing");
	if (why.len > 0) {
		sl_set(sl, NULL, buf_detach(&why, NULL));
	} else {
		buf_printf(&clean, "%*s", sl->padding, "");
		utf8_sanitize_term(&clean, line.data, line.len, NULL);
		sl_set(sl, buf_detach(&clean, NULL), NULL);
	}
	buf_release(&line);
	buf_release(&clean);
	buf_release(&why);
	buf_reset(&sl->out);
	/* An update that came during the run runs now. */
	if (sl->input != NULL && sl->debounce == 0)
		sl_start(sl);
}

static int
sl_take(void *arg, const char *p, size_t n)
{
	struct statusline *sl = arg;

	if (sl->out.len + n > SL_OUT_MAX)
		return -1;
	buf_append(&sl->out, p, n);
	return 0;
}

static void
sl_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct statusline *sl = arg;

	(void)fd;
	(void)revents;
	if (proc_drain(loop, &sl->w, 0, sl_take, sl) != PROC_DRAIN_AGAIN && sl->w.exited)
		sl_finish(sl);
}

static void
sl_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct statusline *sl = arg;

	(void)pid;
	proc_watch_exit(&sl->w, status);
	/* Whatever it started and left holding the pipe is not waited for. */
	if (!sl->w.eof && proc_drain(loop, &sl->w, 0, sl_take, sl) == PROC_DRAIN_AGAIN)
		proc_watch_close(loop, &sl->w);
	sl_finish(sl);
}

static void
sl_on_timeout(struct ev_loop *loop, void *arg)
{
	struct statusline *sl = arg;

	(void)loop;
	sl->deadline = 0;
	sl->timed_out = true;
	proc_kill(sl->w.pid, SIGKILL);
}

static void
sl_start(struct statusline *sl)
{
	const char *argv[] = { "/bin/bash", "-c", sl->command, NULL };
	struct proc_spec spec = {
		.argv = argv,
		.alt_path = "/bin/sh",
		.dir = sl->root,
		.in = PROC_IO_FD,
		.out = PROC_IO_PIPE,
		.err = PROC_IO_NULL,
		.redact_env = true,
	};
	struct buf err = BUF_INIT(4096);
	struct proc c;
	int in;

	if (sl->w.pid != 0 || sl->input == NULL)
		return;
	in = file_temp(sl->input, strlen(sl->input), "tandem-status", NULL);
	free(sl->input);
	sl->input = NULL;
	if (in == -1) {
		sl_set(sl, NULL, xstrdup("the status line's input could not be written"));
		return;
	}
	spec.in_fd = in;
	if (proc_spawn(&spec, &c, &err) == -1) {
		close(in);
		sl_set(sl, NULL, buf_detach(&err, NULL));
		buf_release(&err);
		return;
	}
	close(in);
	buf_release(&err);
	sl->timed_out = false;
	sl->w.pid = c.pid;
	sl->w.fd = c.out;
	sl->w.exited = sl->w.eof = false;
	fcntl(c.out, F_SETFL, fcntl(c.out, F_GETFL) | O_NONBLOCK);
	ev_io_add(sl->loop, c.out, POLLIN, sl_on_read, sl);
	ev_child_add(sl->loop, c.pid, sl_on_exit, sl);
	sl->deadline = ev_timer_add(sl->loop, SL_TIMEOUT_MS, sl_on_timeout, sl);
}

static void
sl_on_debounce(struct ev_loop *loop, void *arg)
{
	struct statusline *sl = arg;

	(void)loop;
	sl->debounce = 0;
	sl_start(sl);
}

void
statusline_model_name(const char *id, struct buf *out)
{
	const char *p = id, *dash;
	size_t n;
	bool first = true, number = false;

	if (id == NULL || strncmp(id, "claude-", 7) != 0 || id[7] == '\0') {
		buf_puts(out, id != NULL ? id : "");
		return;
	}
	for (p = id + 7; *p != '\0'; p = *dash != '\0' ? dash + 1 : dash) {
		dash = strchr(p, '-');
		if (dash == NULL)
			dash = p + strlen(p);
		n = (size_t)(dash - p);
		/* A release date ("20250929") says nothing on a bar. */
		if (n == 8 && strspn(p, "0123456789") >= 8)
			continue;
		if (p[0] >= '0' && p[0] <= '9') {
			buf_printf(out, "%s%.*s", number ? "." : first ? "" : " ", (int)n, p);
			number = true;
		} else {
			buf_printf(out, "%s%c%.*s", first ? "" : " ",
			    p[0] >= 'a' && p[0] <= 'z' ? p[0] - 'a' + 'A' : p[0], (int)n - 1, p + 1);
			number = false;
		}
		first = false;
	}
}

static char *
sl_input(const struct sl_info *in)
{
	cJSON *j = cJSON_CreateObject(), *m, *o;
	struct buf name = BUF_INIT(256);
	const char *cwd = in->cwd != NULL ? in->cwd : "";
	char *s;

	cJSON_AddStringToObject(j, "hook_event_name", "Status");
	cJSON_AddStringToObject(j, "session_id", in->session_id != NULL ? in->session_id : "");
	cJSON_AddStringToObject(j, "transcript_path",
	    in->transcript_path != NULL ? in->transcript_path : "");
	cJSON_AddStringToObject(j, "cwd", cwd);
	m = cJSON_AddObjectToObject(j, "model");
	cJSON_AddStringToObject(m, "id", in->model != NULL ? in->model : "");
	statusline_model_name(in->model, &name);
	cJSON_AddStringToObject(m, "display_name", buf_cstr(&name));
	o = cJSON_AddObjectToObject(j, "workspace");
	cJSON_AddStringToObject(o, "current_dir", cwd);
	cJSON_AddStringToObject(o, "project_dir", cwd);
	cJSON_AddStringToObject(j, "version", PACKAGE_VERSION);
	o = cJSON_AddObjectToObject(j, "output_style");
	cJSON_AddStringToObject(o, "name", "default");
	o = cJSON_AddObjectToObject(j, "cost");
	cJSON_AddNumberToObject(o, "total_cost_usd", in->cost_usd);
	cJSON_AddNumberToObject(o, "total_duration_ms", (double)in->duration_ms);
	cJSON_AddNumberToObject(o, "total_api_duration_ms", 0);
	cJSON_AddNumberToObject(o, "total_lines_added", 0);
	cJSON_AddNumberToObject(o, "total_lines_removed", 0);
	o = cJSON_AddObjectToObject(j, "context_window");
	cJSON_AddNumberToObject(o, "total_input_tokens", (double)in->total_in);
	cJSON_AddNumberToObject(o, "total_output_tokens", (double)in->total_out);
	cJSON_AddNumberToObject(o, "context_window_size", (double)in->ctx_window);
	if (in->ctx_window > 0) {
		double used = (double)in->ctx_tokens * 100.0 / (double)in->ctx_window;

		cJSON_AddNumberToObject(o, "used_percentage", used);
		cJSON_AddNumberToObject(o, "remaining_percentage", used > 100 ? 0 : 100 - used);
	}
	cJSON_AddBoolToObject(j, "exceeds_200k_tokens", in->ctx_tokens > 200000);
	s = json_print(j);
	cJSON_Delete(j);
	buf_release(&name);
	return s;
}

struct statusline *
statusline_new(struct ev_loop *loop, const cJSON *setting, const char *root,
    void (*changed)(void *), void *arg, struct buf *why)
{
	struct statusline *sl;
	const char *cmd = json_str(setting, "command", "");
	const cJSON *pad = json_get(setting, "padding");

	if (setting == NULL)
		return NULL;
	if (!cJSON_IsObject(setting) || strcmp(json_str(setting, "type", "command"), "command") != 0 ||
	    cmd[0] == '\0') {
		buf_puts(why, "statusLine must be {\"type\": \"command\", \"command\": \"...\"}; "
		    "tandem's own status bar is shown");
		return NULL;
	}
	sl = xcalloc(1, sizeof *sl);
	sl->loop = loop;
	sl->command = xstrdup(cmd);
	sl->root = xstrdup(root != NULL ? root : ".");
	sl->padding = cJSON_IsNumber(pad) && pad->valuedouble >= 0 && pad->valuedouble <= 40 ?
	    (int)pad->valuedouble : 0;
	sl->changed = changed;
	sl->arg = arg;
	sl->w.fd = -1;
	buf_init(&sl->out, SL_OUT_MAX);
	return sl;
}

void
statusline_free(struct statusline *sl)
{
	if (sl == NULL)
		return;
	if (sl->debounce != 0)
		ev_timer_cancel(sl->loop, sl->debounce);
	if (sl->deadline != 0)
		ev_timer_cancel(sl->loop, sl->deadline);
	if (sl->w.pid != 0 && !sl->w.exited) {
		proc_kill(sl->w.pid, SIGKILL);
		ev_child_del(sl->loop, sl->w.pid);
		proc_forget(sl->w.pid);
	}
	proc_watch_close(sl->loop, &sl->w);
	buf_release(&sl->out);
	free(sl->input);
	free(sl->command);
	free(sl->root);
	free(sl->text);
	free(sl->error);
	free(sl);
}

void
statusline_update(struct statusline *sl, const struct sl_info *in)
{
	char *s;

	if (sl == NULL)
		return;
	s = sl_input(in);
	if (sl->input != NULL && strcmp(sl->input, s) == 0) {
		free(s);
		return;
	}
	free(sl->input);
	sl->input = s;
	if (sl->debounce == 0)
		sl->debounce = ev_timer_add(sl->loop, SL_DEBOUNCE_MS, sl_on_debounce, sl);
}

const char *
statusline_text(const struct statusline *sl)
{
	return sl != NULL ? sl->text : NULL;
}

const char *
statusline_error(const struct statusline *sl)
{
	return sl != NULL ? sl->error : NULL;
}

bool
statusline_running(const struct statusline *sl)
{
	return sl != NULL && sl->w.pid != 0;
}
