/* An MCP server over stdio: see mcp_stdio.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ev.h"
#include "file.h"
#include "mcp_config.h"
#include "mcp_stdio.h"
#include "proc.h"
#include "xalloc.h"

#define MCP_TERM_AFTER_MS	2000	/* stdin closed: the server's time to leave */
#define MCP_KILL_AFTER_MS	2000	/* SIGTERM sent: the time before SIGKILL */

struct mcp_stdio {
	struct ev_loop		*loop;
	struct mcp_stdio_ops	 ops;
	pid_t			 pid;		/* the server's keeper (proc.h) */
	int			 in, out, err;	/* our ends; -1 when closed */
	struct buf		 queue;		/* bytes for the server's stdin */
	struct mcp_lines	 lines;
	struct buf		 log;
	uint64_t		 timer;
	int			 stage;		/* 0 running, 1 stdin closed, 2 TERM sent, 3 KILL sent */
	bool			 reaped;
	bool			 disposing;	/* frees itself once the server is gone */
	int			 status;
};

void
mcp_lines_init(struct mcp_lines *l, size_t max)
{
	buf_init(&l->line, max + 1);
	l->skipping = false;
	l->max = max;
	l->dropped = 0;
}

void
mcp_lines_release(struct mcp_lines *l)
{
	buf_release(&l->line);
}

static void
mcp_lines_emit(struct mcp_lines *l, mcp_line_fn *fn, void *arg)
{
	size_t n = l->line.len;

	if (n > 0 && l->line.data[n - 1] == '\r')
		n--;
	if (n > 0)
		fn(arg, l->line.data, n);
	buf_reset(&l->line);
}

void
mcp_lines_feed(struct mcp_lines *l, const char *p, size_t n, mcp_line_fn *fn, void *arg)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl != NULL ? (size_t)(nl - p) : n;

		if (!l->skipping && l->line.len + take > l->max) {
			l->skipping = true;
			l->dropped++;
			buf_release(&l->line);
		}
		if (!l->skipping)
			buf_append(&l->line, p, take);
		if (nl == NULL)
			return;
		if (!l->skipping)
			mcp_lines_emit(l, fn, arg);
		l->skipping = false;
		p = nl + 1;
		n -= take + 1;
	}
}

/* --- the handle ------------------------------------------------------------ */

static void mcp_stdio_check_done(struct mcp_stdio *);

static void
mcp_stdio_close(struct mcp_stdio *m, int *fd)
{
	if (*fd == -1)
		return;
	ev_io_del(m->loop, *fd);
	close(*fd);
	*fd = -1;
}

static void
mcp_stdio_flush(struct mcp_stdio *m)
{
	int r;

	if (m->in == -1)
		return;
	if ((r = file_write_queue(m->in, &m->queue)) == -1) {
		/* The server closed its stdin: what is queued can never go. */
		buf_reset(&m->queue);
		mcp_stdio_close(m, &m->in);
		return;
	}
	ev_io_mod(m->loop, m->in, r == 1 ? POLLOUT : 0);
}

static void
mcp_stdio_on_in(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct mcp_stdio *m = arg;

	(void)loop;
	(void)fd;
	(void)revents;
	mcp_stdio_flush(m);
}

static void
mcp_stdio_line(void *arg, const char *line, size_t n)
{
	struct mcp_stdio *m = arg;

	if (m->ops.line != NULL)
		m->ops.line(m->ops.arg, line, n);
}

/* Read what fd has; 1 when it closed. */
static int
mcp_stdio_read(struct mcp_stdio *m, int *fd)
{
	char chunk[65536];
	int rounds;

	for (rounds = 0; rounds < 16; rounds++) {
		ssize_t r = read(*fd, chunk, sizeof chunk);

		if (r > 0) {
			if (fd == &m->out) {
				unsigned long before = m->lines.dropped;

				mcp_lines_feed(&m->lines, chunk, (size_t)r, mcp_stdio_line, m);
				if (m->lines.dropped != before && m->ops.log != NULL) {
					static const char msg[] =
					    "tandem: a line of the server's output passed the limit "
					    "and was dropped\n";

					buf_append_tail(&m->log, msg, sizeof msg - 1, MCP_LOG_KEEP);
					m->ops.log(m->ops.arg, msg, sizeof msg - 1);
				}
			} else {
				buf_append_tail(&m->log, chunk, (size_t)r, MCP_LOG_KEEP);
				if (m->ops.log != NULL)
					m->ops.log(m->ops.arg, chunk, (size_t)r);
			}
			if (*fd == -1)
				return 1;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		mcp_stdio_close(m, fd);
		return 1;
	}
	return 0;
}

static void
mcp_stdio_on_out(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct mcp_stdio *m = arg;

	(void)loop;
	(void)revents;
	if (fd == m->out) {
		if (mcp_stdio_read(m, &m->out) == 1)
			mcp_stdio_check_done(m);
	} else if (fd == m->err) {
		(void)mcp_stdio_read(m, &m->err);
	}
}

static void
mcp_stdio_fire_exit(struct ev_loop *loop, void *arg)
{
	struct mcp_stdio *m = arg;

	(void)loop;
	m->timer = 0;
	if (m->disposing) {
		mcp_stdio_free(m);
		return;
	}
	if (m->ops.exit != NULL) {
		void (*fn)(void *, int) = m->ops.exit;

		m->ops.exit = NULL;
		fn(m->ops.arg, m->status);
	}
}

/* Gone when the keeper is reaped; what stdout still holds is read first. */
static void
mcp_stdio_check_done(struct mcp_stdio *m)
{
	if (!m->reaped)
		return;
	if (m->out != -1)
		(void)mcp_stdio_read(m, &m->out);
	if (m->err != -1)
		(void)mcp_stdio_read(m, &m->err);
	mcp_stdio_close(m, &m->out);
	mcp_stdio_close(m, &m->err);
	mcp_stdio_close(m, &m->in);
	if (m->timer != 0)
		ev_timer_cancel(m->loop, m->timer);
	/* Not from inside a read callback: the owner may free the handle. */
	m->timer = ev_timer_add(m->loop, 0, mcp_stdio_fire_exit, m);
}

static void
mcp_stdio_on_child(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct mcp_stdio *m = arg;

	(void)loop;
	(void)pid;
	m->reaped = true;
	m->status = status;
	proc_forget(pid);
	mcp_stdio_check_done(m);
}

struct mcp_stdio *
mcp_stdio_start(struct ev_loop *loop, const struct mcp_server_cfg *s, const char *dir,
    const struct mcp_stdio_ops *ops, struct buf *err)
{
	const char **argv;
	struct proc_spec spec;
	struct proc p;
	struct mcp_stdio *m;
	char *program = proc_which(s->command);
	size_t i, n = 0;
	int rc;

	if (program == NULL)
		program = xstrdup(s->command);	/* the exec says why it cannot run */
	while (s->args != NULL && s->args[n] != NULL)
		n++;
	argv = xcalloc(n + 2, sizeof *argv);
	argv[0] = program;
	for (i = 0; i < n; i++)
		argv[i + 1] = s->args[i];
	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.dir = s->cwd != NULL ? s->cwd : dir;
	spec.in = spec.out = spec.err = PROC_IO_PIPE;
	spec.redact_env = true;
	spec.long_lived = true;
	spec.env_set = (const char *const *)s->env;
	rc = proc_spawn(&spec, &p, err);
	free(argv);
	free(program);
	if (rc == -1)
		return NULL;
	m = xcalloc(1, sizeof *m);
	m->loop = loop;
	m->ops = *ops;
	m->pid = p.pid;
	m->in = p.in;
	m->out = p.out;
	m->err = p.err;
	buf_init(&m->queue, MCP_QUEUE_MAX);
	buf_init(&m->log, MCP_LOG_KEEP + 1);
	mcp_lines_init(&m->lines, MCP_LINE_MAX);
	ev_io_add(loop, m->in, 0, mcp_stdio_on_in, m);
	ev_io_add(loop, m->out, POLLIN, mcp_stdio_on_out, m);
	ev_io_add(loop, m->err, POLLIN, mcp_stdio_on_out, m);
	ev_child_add(loop, p.pid, mcp_stdio_on_child, m);
	return m;
}

int
mcp_stdio_send(struct mcp_stdio *m, const char *p, size_t n)
{
	if (m->in == -1 || m->stage > 0)
		return -1;
	if (m->queue.len + n + 1 > MCP_QUEUE_MAX)
		return -1;
	buf_append(&m->queue, p, n);
	buf_putc(&m->queue, '\n');
	mcp_stdio_flush(m);
	return 0;
}

static void
mcp_stdio_escalate(struct ev_loop *loop, void *arg)
{
	struct mcp_stdio *m = arg;

	(void)loop;
	m->timer = 0;
	if (m->reaped)
		return;
	if (m->stage == 1) {
		m->stage = 2;
		proc_kill(m->pid, SIGTERM);
		m->timer = ev_timer_add(m->loop, MCP_KILL_AFTER_MS, mcp_stdio_escalate, m);
	} else {
		m->stage = 3;
		proc_kill(m->pid, SIGKILL);
	}
}

void
mcp_stdio_stop(struct mcp_stdio *m)
{
	if (m->stage > 0 || m->reaped)
		return;
	m->stage = 1;
	buf_reset(&m->queue);
	mcp_stdio_close(m, &m->in);
	m->timer = ev_timer_add(m->loop, MCP_TERM_AFTER_MS, mcp_stdio_escalate, m);
}

void
mcp_stdio_free(struct mcp_stdio *m)
{
	if (m == NULL)
		return;
	if (m->timer != 0)
		ev_timer_cancel(m->loop, m->timer);
	mcp_stdio_close(m, &m->in);
	mcp_stdio_close(m, &m->out);
	mcp_stdio_close(m, &m->err);
	if (!m->reaped) {
		ev_child_del(m->loop, m->pid);
		proc_end(m->pid, 100);
	}
	buf_release(&m->queue);
	buf_release(&m->log);
	mcp_lines_release(&m->lines);
	free(m);
}

void
mcp_stdio_dispose(struct mcp_stdio *m)
{
	if (m == NULL)
		return;
	memset(&m->ops, 0, sizeof m->ops);
	m->disposing = true;
	if (m->reaped) {
		if (m->timer != 0)
			ev_timer_cancel(m->loop, m->timer);
		mcp_stdio_free(m);
		return;
	}
	mcp_stdio_stop(m);
}

pid_t
mcp_stdio_pid(const struct mcp_stdio *m)
{
	return m->pid;
}

const char *
mcp_stdio_log(const struct mcp_stdio *m)
{
	return buf_cstr(&m->log);
}
