/* The built-in tools' fork server: see forksrv.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "file.h"
#include "forksrv.h"
#include "proc.h"
#include "rules/perm.h"
#include "xalloc.h"

/* The longest message either way (a tool's name and numbers). */
#define FORKSRV_MSG_MAX	256
/* The largest input a call sends (its file content, for write_file). */
#define FORKSRV_INPUT_MAX (256u * 1024 * 1024)

/* The tools it serves: their work is their input and the tool environment's. */
static const char *const forksrv_tools[] = {
	"read_file", "list_dir", "glob", "grep", "edit_file", "write_file", "apply_patch", NULL
};

/* A call running in the server (tandem's side) or its child (the server's side). */
struct forksrv_call {
	int		 id;
	pid_t		 pid;		/* the server's side */
	forksrv_exit_fn	*on_exit;
	void		*arg;
};

struct forksrv {
	struct ev_loop		*loop;
	pid_t			 pid;		/* its keeper's */
	int			 sock;		/* -1 once closed */
	char			*print;		/* what it was started for (forksrv_print) */
	const struct tool_env	*env;
	forksrv_run_fn		*run;
	struct forksrv_call	*calls;
	size_t			 ncalls, cap;
};

/* The server new calls go to; a replaced one lives on until it is reaped. */
static struct forksrv *forksrv_cur;
static int forksrv_serial;

static bool
forksrv_serves(const struct tool_def *tool)
{
	size_t i;

	if (tool->run == NULL || tool->async != NULL || tool_find(tool->name) != tool)
		return false;
	for (i = 0; forksrv_tools[i] != NULL; i++)
		if (strcmp(forksrv_tools[i], tool->name) == 0)
			return true;
	return false;
}

/* What a call's child would find in its copy: the environment, the rules, the directory of now. */
static char *
forksrv_print(const struct tool_env *env)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *const *r;
	char cwd[4096];

	buf_printf(&b, "%p %p %p %p %p %lu\n", (const void *)env, (const void *)env->policy,
	    env->policy != NULL ? (const void *)env->policy->denied : NULL,
	    env->policy != NULL ? env->policy->arg : NULL, (const void *)env->jail,
	    perm_rules_generation());
	buf_printf(&b, "%s\n%s\n%s\n", env->root != NULL ? env->root : "(none)",
	    env->session_dir != NULL ? env->session_dir : "(none)",
	    env->snap_dir != NULL ? env->snap_dir : "(none)");
	for (r = env->extra_roots; r != NULL && *r != NULL; r++)
		buf_printf(&b, "+%s\n", *r);
	/* The directory it runs in (acp enters each session's). */
	buf_printf(&b, "%s\n", getcwd(cwd, sizeof cwd) != NULL ? cwd : "(unknown)");
	return buf_detach(&b, NULL);
}

/* --- in the server ---------------------------------------------------------- */

/* A message with up to two descriptors; the number of bytes, 0 at the end, -1. */
static ssize_t
forksrv_recv(int sock, char *msg, size_t cap, int fds[2])
{
	union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } u;
	struct iovec iov = { msg, cap - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
	    .msg_controllen = sizeof u.b };
	struct cmsghdr *c;
	ssize_t n;

	fds[0] = fds[1] = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds, CMSG_DATA(c), (k > 2 ? 2 : k) * sizeof(int));
		}
	msg[n] = '\0';
	return n;
}

/* In a call's child: the input from the memory file, the tool run, never back. */
static void __attribute__((noreturn))
forksrv_child(const struct forksrv *s, const char *name, int out, int in)
{
	struct buf text = BUF_INIT(FORKSRV_INPUT_MAX);
	const struct tool_def *tool = tool_find(name);
	sigset_t none;
	cJSON *input;
	int nul;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	if (dup2(out, 1) == -1 || (nul = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1 ||
	    dup2(nul, 0) == -1)
		_exit(126);
	close(nul);
	close(out);
	if (file_read_fd(in, FORKSRV_INPUT_MAX, 0, &text, NULL) == -1 || tool == NULL)
		_exit(126);
	close(in);
	close_range(3, ~0U, 0);
	if ((input = cJSON_ParseWithLength(text.data != NULL ? text.data : "", text.len)) == NULL)
		_exit(126);
	buf_release(&text);
	s->run(tool, input, s->env, 1);
	cJSON_Delete(input);
	_exit(0);
}

static void
forksrv_send(int sock, const char *msg)
{
	while (send(sock, msg, strlen(msg), MSG_NOSIGNAL) == -1 && errno == EINTR)
		;
}

/* "C id name" with the output pipe and the input: a child for it. */
static void
forksrv_start_call(struct forksrv *s, int sfd, const char *msg, const int fds[2])
{
	char name[64];
	int id;
	pid_t pid;

	if (sscanf(msg, "C %d %63s", &id, name) != 2 || fds[0] == -1 || fds[1] == -1)
		return;
	pid = fork();
	if (pid == 0) {
		close(sfd);
		forksrv_child(s, name, fds[0], fds[1]);
	}
	if (pid == -1) {
		char line[64];

		snprintf(line, sizeof line, "E %d %d", id, 126 << 8);
		forksrv_send(0, line);
		return;
	}
	setpgid(pid, pid);
	if (s->ncalls == s->cap) {
		s->cap = s->cap != 0 ? 2 * s->cap : 8;
		s->calls = xreallocarray(s->calls, s->cap, sizeof *s->calls);
	}
	s->calls[s->ncalls].id = id;
	s->calls[s->ncalls++].pid = pid;
}

/* "K id sig": to the call's process group (or the child itself, before it has one). */
static void
forksrv_kill_call(const struct forksrv *s, const char *msg)
{
	int id, sig;
	size_t i;

	if (sscanf(msg, "K %d %d", &id, &sig) != 2)
		return;
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].id == id && kill(-s->calls[i].pid, sig) == -1)
			kill(s->calls[i].pid, sig);
}

/* Every child that ended: "E id status" to tandem. */
static void
forksrv_reap(struct forksrv *s)
{
	char line[64];
	size_t i;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (i = 0; i < s->ncalls; i++)
			if (s->calls[i].pid == pid) {
				snprintf(line, sizeof line, "E %d %d", s->calls[i].id, st);
				forksrv_send(0, line);
				s->calls[i] = s->calls[--s->ncalls];
				break;
			}
}

/*
 * The server: its socket to tandem is its standard input.  Nothing else
 * of tandem's stays open.  When tandem closes the socket (or is gone) it
 * ends its calls' children and itself.
 */
static void
forksrv_main(void *arg)
{
	struct forksrv *s = arg;
	sigset_t chld;
	int sfd, fds[2];
	char msg[FORKSRV_MSG_MAX];
	size_t i;

	close_range(3, ~0U, 0);
	/* It holds a copy of tandem's memory, secrets too: nobody's to read or trace. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if ((sfd = signalfd(-1, &chld, SFD_CLOEXEC)) == -1)
		_exit(1);
	s->calls = NULL;
	s->ncalls = s->cap = 0;
	for (;;) {
		struct pollfd pf[2] = { { 0, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		struct signalfd_siginfo si;
		ssize_t n;

		if (poll(pf, 2, -1) == -1 && errno != EINTR)
			break;
		if (pf[1].revents & POLLIN) {
			(void)!read(sfd, &si, sizeof si);
			forksrv_reap(s);
		}
		if (pf[0].revents == 0)
			continue;
		n = forksrv_recv(0, msg, sizeof msg, fds);
		if (n <= 0)
			break;
		if (msg[0] == 'C')
			forksrv_start_call(s, sfd, msg, fds);
		else if (msg[0] == 'K')
			forksrv_kill_call(s, msg);
		for (i = 0; i < 2; i++)
			if (fds[i] != -1)
				close(fds[i]);
	}
	for (i = 0; i < s->ncalls; i++)
		kill(-s->calls[i].pid, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

/* --- in tandem -------------------------------------------------------------- */

static void
forksrv_close(struct forksrv *s)
{
	if (s->sock == -1)
		return;
	ev_io_del(s->loop, s->sock);
	close(s->sock);
	s->sock = -1;
}

/* The call id ended with status: its owner is told, and it is forgotten. */
static void
forksrv_ended(struct forksrv *s, int id, int status)
{
	size_t i;

	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].id == id) {
			struct forksrv_call c = s->calls[i];

			s->calls[i] = s->calls[--s->ncalls];
			c.on_exit(s->loop, c.id, status, c.arg);
			return;
		}
}

static void
forksrv_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct forksrv *s = arg;
	char msg[FORKSRV_MSG_MAX];
	int fds[2], id, st;
	ssize_t n;

	for (;;) {
		n = forksrv_recv(fd, msg, sizeof msg, fds);
		if (fds[0] != -1)
			close(fds[0]);
		if (fds[1] != -1)
			close(fds[1]);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			break;
		if (sscanf(msg, "E %d %d", &id, &st) == 2)
			forksrv_ended(s, id, st);
	}
	/* The server is gone: its exit, when it is reaped, ends what is left. */
	forksrv_close(s);
	if (forksrv_cur == s)
		forksrv_cur = NULL;
}

/* The server's keeper was reaped: the calls it still had died with it. */
static void
forksrv_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct forksrv *s = arg;

	proc_forget(pid);
	forksrv_close(s);
	if (forksrv_cur == s)
		forksrv_cur = NULL;
	while (s->ncalls > 0)
		forksrv_ended(s, s->calls[0].id, SIGKILL);
	free(s->calls);
	free(s->print);
	free(s);
}

static struct forksrv *
forksrv_new(struct ev_loop *loop, const struct tool_env *env, forksrv_run_fn *run, char *print)
{
	struct forksrv *s = xcalloc(1, sizeof *s);
	struct proc_spec spec = {
		.in = PROC_IO_FD,
		.out = PROC_IO_NULL,
		.err_fd = 2,
		.redact_env = true,
		.main = forksrv_main,
		.long_lived = true,
		.arg = s,
	};
	struct buf err = BUF_INIT(1024);
	struct proc p;
	int sv[2];

	s->loop = loop;
	s->env = env;
	s->run = run;
	s->print = print;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		goto fail;
	spec.in_fd = sv[1];
	spec.err = fcntl(2, F_GETFD) != -1 ? PROC_IO_FD : PROC_IO_NULL;
	if (proc_spawn(&spec, &p, &err) == -1) {
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	close(sv[1]);
	s->pid = p.pid;
	s->sock = sv[0];
	fcntl(s->sock, F_SETFL, fcntl(s->sock, F_GETFL) | O_NONBLOCK);
	ev_io_add(loop, s->sock, POLLIN, forksrv_on_read, s);
	ev_child_add(loop, s->pid, forksrv_on_exit, s);
	buf_release(&err);
	return s;
fail:
	buf_release(&err);
	free(s->print);
	free(s);
	return NULL;
}

/* The server for env now: the one there is, a new one, or NULL (none may serve). */
static struct forksrv *
forksrv_for(struct ev_loop *loop, const struct tool_env *env, forksrv_run_fn *run)
{
	char *print = forksrv_print(env);
	struct forksrv *s = forksrv_cur;

	if (s != NULL && s->loop == loop && s->run == run && strcmp(s->print, print) == 0) {
		free(print);
		return s;
	}
	if (s != NULL && s->ncalls > 0) {
		free(print);
		return NULL;
	}
	/* What it holds is not what is now: it ends, and a new copy is taken. */
	if (s != NULL)
		forksrv_close(s);
	forksrv_cur = forksrv_new(loop, env, run, print);
	return forksrv_cur;
}

/* The input in a memory file, read from its start: -1 when it cannot be. */
static int
forksrv_input(const cJSON *input)
{
	char *text = cJSON_PrintUnformatted(input);
	int fd = text != NULL ? memfd_create("tandem-tool-input", MFD_CLOEXEC) : -1;

	if (fd != -1 && (file_write_all(fd, text, strlen(text)) == -1 ||
	    lseek(fd, 0, SEEK_SET) == -1)) {
		close(fd);
		fd = -1;
	}
	free(text);
	return fd;
}

int
forksrv_call(struct ev_loop *loop, const struct tool_def *tool, const cJSON *input,
    const struct tool_env *env, forksrv_run_fn *run, forksrv_exit_fn *on_exit, void *arg,
    int *out_fd)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } u;
	char msg[FORKSRV_MSG_MAX];
	struct iovec iov;
	struct msghdr mh;
	struct forksrv *s;
	int p[2], in, n, id;
	ssize_t sent;

	if (!forksrv_serves(tool) || (s = forksrv_for(loop, env, run)) == NULL)
		return 0;
	if ((in = forksrv_input(input)) == -1)
		return 0;
	if (pipe2(p, O_CLOEXEC) == -1) {
		close(in);
		return 0;
	}
	id = forksrv_serial = forksrv_serial == 1000000000 ? 1 : forksrv_serial + 1;
	n = snprintf(msg, sizeof msg, "C %d %s", id, tool->name);
	iov.iov_base = msg;
	iov.iov_len = n > 0 && (size_t)n < sizeof msg ? (size_t)n : 0;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.b;
	mh.msg_controllen = sizeof u.b;
	CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), (int[2]){ p[1], in }, 2 * sizeof(int));
	do
		sent = iov.iov_len > 0 ? sendmsg(s->sock, &mh, MSG_NOSIGNAL) : -1;
	while (sent == -1 && errno == EINTR);
	close(p[1]);
	close(in);
	if (sent == -1) {
		close(p[0]);
		return 0;
	}
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	if (s->ncalls == s->cap) {
		s->cap = s->cap != 0 ? 2 * s->cap : 8;
		s->calls = xreallocarray(s->calls, s->cap, sizeof *s->calls);
	}
	s->calls[s->ncalls].id = id;
	s->calls[s->ncalls].pid = 0;
	s->calls[s->ncalls].on_exit = on_exit;
	s->calls[s->ncalls++].arg = arg;
	*out_fd = p[0];
	return id;
}

void
forksrv_kill(int call, int sig)
{
	struct forksrv *s = forksrv_cur;
	char msg[64];
	size_t i;

	/* A server is replaced only when it has no call: the current one has it, or none. */
	if (s == NULL || s->sock == -1)
		return;
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].id == call) {
			snprintf(msg, sizeof msg, "K %d %d", call, sig);
			forksrv_send(s->sock, msg);
			return;
		}
}
