/* Tool calls in child processes: see exec.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bgshell.h"
#include "buf.h"
#include "ev.h"
#include "exec.h"
#include "file.h"
#include "forksrv/forksrv.h"
#include "jail/jail.h"
#include "json.h"
#include "proc.h"
#include "redact.h"
#include "run_bash.h"
#include "xalloc.h"

/* A built-in tool's whole answer travels through the pipe: bound it. */
#define EXEC_RESULT_MAX	(16u * 1024 * 1024)
/* After the shell exits, how long a background child may hold the pipe. */
#define EXEC_LINGER_MS	200
#define EXEC_KILL_GRACE_MS 1000

struct exec_job {
	struct ev_loop		*loop;
	const struct tool_def	*tool;
	exec_progress_fn	*progress;
	exec_done_fn		*done;
	void			*arg;
	struct proc_watch	 w;		/* the child and its output pipe */
	int64_t			 start;
	bool			 timed_out, interrupted, finished;
	int			 timeout_ms;
	uint64_t		 timer;		/* timeout, or linger after exit */
	uint64_t		 kill_timer;
	struct buf		 result;	/* built-in: the JSON from the child */
	struct bash_capture	 cap;		/* run_bash */
	bool			 is_bash;
	struct tool_out		 failed;	/* could not start, or answered at once */
	char			 tag[48];	/* run_bash: TANDEM_COMMAND_ID=n, for the orphan sweep */
	const struct jail	*jail;		/* run_bash: the sandbox it runs in; NULL: none */
	struct buf		 note;		/* run_bash: the keeper's note if tandem ends first */
	int			 srv_call;	/* a built-in in the fork server (forksrv): its call */
};

static int exec_nalive;

int
exec_alive(void)
{
	return exec_nalive;
}

static void exec_maybe_finish(struct exec_job *);

static void
exec_kill_group(struct exec_job *job, int sig)
{
	if (job->srv_call > 0 && !job->w.exited)
		forksrv_kill(job->srv_call, sig);
	else if (job->srv_call == 0 && job->w.pid > 0)
		proc_kill(job->w.pid, sig);
}

static void
exec_hard_kill(struct ev_loop *loop, void *arg)
{
	struct exec_job *job = arg;

	job->kill_timer = 0;
	exec_kill_group(job, SIGKILL);
}

static void
exec_terminate(struct exec_job *job)
{
	exec_kill_group(job, SIGTERM);
	exec_kill_group(job, SIGCONT);
	if (job->kill_timer == 0)
		job->kill_timer = ev_timer_add(job->loop, EXEC_KILL_GRACE_MS, exec_hard_kill, job);
}

/* Run in the child: the tool, then its tool_out as JSON on fd; the child ends after it. */
static void
exec_child(const struct tool_def *tool, const cJSON *input, const struct tool_env *env, int fd)
{
	struct tool_out out;
	cJSON *j;
	char *s;
	size_t len;

	tool_out_init(&out);
	tool->run(env, input, &out);
	j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "is_error", out.is_error);
	json_add_str_n(j, "content", buf_cstr(&out.text), out.text.len);
	if (out.meta != NULL) {
		cJSON_AddItemToObject(j, "meta", out.meta);
		out.meta = NULL;
	}
	s = cJSON_PrintUnformatted(j);
	len = s != NULL ? strlen(s) : 0;
	(void)file_write_all(fd, s != NULL ? s : "", len);
	/* The child ends when this returns: what it built goes first, so nothing is lost. */
	free(s);
	cJSON_Delete(j);
	tool_out_release(&out);
}

/* A run_bash chunk feeds the capture and the live output; a worker's fills its result. */
static int
exec_on_chunk(void *arg, const char *p, size_t n)
{
	struct exec_job *job = arg;

	if (job->is_bash) {
		bash_capture_feed(&job->cap, p, n);
		if (job->progress != NULL)
			job->progress(job->arg, p, n);
	} else if (buf_append(&job->result, p, n) == -1) {
		exec_terminate(job);
	}
	return 0;
}

static void
exec_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct exec_job *job = arg;

	if (proc_drain(loop, &job->w, PROC_CHUNK_MAX, exec_on_chunk, job) != PROC_DRAIN_AGAIN)
		exec_maybe_finish(job);
}

static void
exec_linger_over(struct ev_loop *loop, void *arg)
{
	struct exec_job *job = arg;

	/* The shell is gone but something it started holds the pipe: end it. */
	job->timer = 0;
	exec_kill_group(job, SIGKILL);
	proc_watch_close(loop, &job->w);
	job->w.eof = true;
	exec_maybe_finish(job);
}

static void
exec_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct exec_job *job = arg;

	if (job->srv_call > 0) {
		/* Not one of proc's children: the server's, which reaped it. */
		job->w.exited = true;
		job->w.status = status;
	} else
		proc_watch_exit(&job->w, status);
	if (job->timer != 0)
		ev_timer_cancel(loop, job->timer);
	job->timer = 0;
	if (!job->w.eof)
		job->timer = ev_timer_add(loop, EXEC_LINGER_MS, exec_linger_over, job);
	exec_maybe_finish(job);
}

static void
exec_on_server_exit(struct ev_loop *loop, int call, int status, void *arg)
{
	exec_on_exit(loop, call, status, arg);
}

static void
exec_on_timeout(struct ev_loop *loop, void *arg)
{
	struct exec_job *job = arg;

	job->timer = 0;
	job->timed_out = true;
	exec_terminate(job);
}

static void
exec_result_from_child(struct exec_job *job, struct tool_out *out)
{
	cJSON *j;

	if (job->interrupted) {
		tool_out_error(out, "interrupted by the user before %s finished", job->tool->name);
		return;
	}
	if (!WIFEXITED(job->w.status) || WEXITSTATUS(job->w.status) != 0 || job->result.len == 0) {
		if (WIFSIGNALED(job->w.status))
			tool_out_error(out, "%s crashed (signal %d); its result is unknown",
			    job->tool->name, WTERMSIG(job->w.status));
		else
			tool_out_error(out, "%s failed without a result (exit status %d)",
			    job->tool->name, WIFEXITED(job->w.status) ? WEXITSTATUS(job->w.status) : -1);
		return;
	}
	j = cJSON_ParseWithLength(job->result.data, job->result.len);
	if (j == NULL) {
		tool_out_error(out, "%s returned a malformed result", job->tool->name);
		return;
	}
	buf_puts(&out->text, json_str(j, "content", ""));
	out->is_error = json_bool(j, "is_error", false);
	out->meta = cJSON_DetachItemFromObjectCaseSensitive(j, "meta");
	cJSON_Delete(j);
}

static void
exec_finish(struct exec_job *job, struct tool_out *out)
{
	int64_t ms = ev_now_ms() - job->start;

	job->finished = true;
	if (job->timer != 0)
		ev_timer_cancel(job->loop, job->timer);
	if (job->kill_timer != 0)
		ev_timer_cancel(job->loop, job->kill_timer);
	/* What the command left running (setsid, double fork) ends with it. */
	if (job->is_bash && job->tag[0] != '\0')
		proc_sweep(job->tag);
	job->done(job->arg, out, ms);
	tool_out_release(out);
	if (job->is_bash)
		bash_capture_release(&job->cap);
	buf_release(&job->result);
	buf_release(&job->note);
	exec_nalive--;
	free(job);
}

static void
exec_maybe_finish(struct exec_job *job)
{
	struct tool_out out;

	if (job->finished || !proc_watch_done(&job->w))
		return;
	tool_out_init(&out);
	if (job->is_bash) {
		bash_capture_finish(&job->cap, job->w.status, job->timed_out,
		    job->interrupted, job->timeout_ms, &out);
		/* Nothing it started is left: its keeper ended the rest before it ended itself. */
		if (job->jail != NULL && !job->timed_out && !job->interrupted)
			jail_note(job->jail, job->w.status, &out.text);
	} else
		exec_result_from_child(job, &out);
	exec_finish(job, &out);
}

static void
exec_report_failure(struct ev_loop *loop, void *arg)
{
	struct exec_job *job = arg;

	exec_finish(job, &job->failed);
}

/* What the worker needs, in the child. */
struct exec_worker {
	const struct tool_def	*tool;
	const cJSON		*input;
	const struct tool_env	*env;
};

static void
exec_worker_main(void *arg)
{
	const struct exec_worker *w = arg;

	exec_child(w->tool, w->input, w->env, 1);
}

static pid_t
exec_fork_builtin(struct exec_job *job, const cJSON *input, const struct tool_env *env,
    struct buf *err)
{
	struct exec_worker w = { job->tool, input, env };
	struct proc_spec spec = {
		.in = PROC_IO_NULL,
		.out = PROC_IO_PIPE,
		.err_fd = 2,
		.redact_env = true,
		.main = exec_worker_main,
		.arg = &w,
	};
	struct proc p;

	/* Where a worker's own complaint (a sanitizer's report) goes: tandem's stderr. */
	spec.err = fcntl(2, F_GETFD) != -1 ? PROC_IO_FD : PROC_IO_NULL;
	if (proc_spawn(&spec, &p, err) == -1)
		return -1;
	job->w.fd = p.out;
	return p.pid;
}

/* Every command gets a tag its descendants inherit, and tandem adopts its orphans. */
static pid_t
exec_spawn_bash(struct exec_job *job, const struct tool_env *env, const cJSON *input,
    const char *id, const char *cmd, bool background, struct buf *err)
{
	static unsigned long exec_serial;
	const char *const *js = jail_env_set();
	const char *set[8] = { job->tag, NULL };
	/* A background shell dies with tandem, however tandem ends. */
	struct bash_spawn_opts o = { .env_set = set };
	size_t i;

	int n = snprintf(job->tag, sizeof job->tag, "TANDEM_COMMAND_ID=%ld.%lu",
	    (long)getpid(), ++exec_serial);

	if (n < 0 || (size_t)n >= sizeof job->tag)
		job->tag[0] = '\0';
	proc_subreaper();
	/* In the sandbox: its set-up before the exec, and an environment without ways out. */
	if (jail_applies(env->jail, input)) {
		job->jail = env->jail;
		for (i = 0; js[i] != NULL && i + 2 < sizeof set / sizeof set[0]; i++)
			set[i + 1] = js[i];
		set[i + 1] = NULL;
		o.env_unset = jail_env_unset();
		o.pre_exec = jail_enter;
		o.arg = env->jail;
	}
	o.long_lived = background;
	/* Its keeper ends the whole tree when tandem ends; a resume can then say so. */
	if (!background && env->session_dir != NULL && id != NULL) {
		buf_printf(&job->note, "%s/", env->session_dir);
		bash_note_name(&job->note, id);
		o.ended_note = buf_cstr(&job->note);
	}
	return bash_spawn(env->root, cmd, &o, &job->w.fd, err);
}

struct exec_job *
exec_start(struct ev_loop *loop, const struct tool_def *tool, const cJSON *input,
    const struct tool_env *env, const char *id,
    exec_progress_fn *progress, exec_done_fn *done, void *arg)
{
	struct exec_job *job = xcalloc(1, sizeof *job);
	struct buf err = BUF_INIT(4096);

	job->loop = loop;
	job->tool = tool;
	job->progress = progress;
	job->done = done;
	job->arg = arg;
	job->w.fd = -1;
	job->start = ev_now_ms();
	job->is_bash = tool->run == NULL && tool->shell_op == TOOL_SHELL_NONE;
	buf_init(&job->result, EXEC_RESULT_MAX);
	buf_init(&job->note, 8192);
	tool_out_init(&job->failed);
	exec_nalive++;

	if (tool->shell_op != TOOL_SHELL_NONE) {
		/* Its state is tandem's own: answered here, reported from the loop. */
		bgshell_run(tool, input, &job->failed);
		goto ready;
	}
	if (job->is_bash && json_bool(input, "run_in_background", false)) {
		const char *cmd = json_str(input, "command", NULL);

		job->is_bash = false;
		if (cmd == NULL || cmd[0] == '\0') {
			buf_puts(&err, "run_bash needs a non-empty \"command\" string");
			goto fail;
		}
		job->w.pid = exec_spawn_bash(job, env, input, id, cmd, true, &err);
		if (job->w.pid == -1)
			goto fail;
		bgshell_adopt(loop, job->w.pid, job->w.fd, job->tag, cmd, &job->failed.text);
		job->w.fd = -1;
		goto ready;
	}
	if (job->is_bash) {
		const char *cmd = json_str(input, "command", NULL);

		if (cmd == NULL || cmd[0] == '\0') {
			buf_puts(&err, "run_bash needs a non-empty \"command\" string");
			goto fail;
		}
		job->timeout_ms = bash_timeout_ms(input);
		bash_capture_init(&job->cap, env->session_dir, id);
		job->w.pid = exec_spawn_bash(job, env, input, id, cmd, false, &err);
		if (job->w.pid == -1) {
			bash_capture_release(&job->cap);
			job->is_bash = false;
			goto fail;
		}
		job->timer = ev_timer_add(loop, job->timeout_ms, exec_on_timeout, job);
	} else if ((job->srv_call = forksrv_call(loop, tool, input, env, exec_child,
	    exec_on_server_exit, job, &job->w.fd)) > 0) {
		/* In a child of the fork server: no copy of tandem as it is now. */
		job->w.pid = job->srv_call;
		ev_io_add(loop, job->w.fd, POLLIN, exec_on_read, job);
		buf_release(&err);
		return job;
	} else {
		job->w.pid = exec_fork_builtin(job, input, env, &err);
		if (job->w.pid == -1)
			goto fail;
	}
	ev_io_add(loop, job->w.fd, POLLIN, exec_on_read, job);
	ev_child_add(loop, job->w.pid, exec_on_exit, job);
	buf_release(&err);
	return job;
fail:
	tool_out_error(&job->failed, "%s could not start: %s", tool->name, buf_cstr(&err));
ready:
	job->w.pid = 0;
	buf_release(&err);
	job->w.exited = job->w.eof = true;
	job->timer = ev_timer_add(loop, 0, exec_report_failure, job);
	return job;
}

void
exec_kill(struct exec_job *job)
{
	if (job == NULL || job->finished)
		return;
	job->interrupted = true;
	if (job->w.pid > 0 && !job->w.exited)
		exec_terminate(job);
	else if (job->w.pid > 0)
		exec_kill_group(job, SIGKILL);
}
