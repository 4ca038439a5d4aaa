/* Child processes: see proc.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ev.h"
#include "proc.h"
#include "redact.h"
#include "xalloc.h"

extern char **environ;

/* The longest failure sentence a child sends back before its exec. */
#define PROC_REPORT_MAX	1024
/* Once the child has ended, how long what it left may run before its keeper kills it. */
#define PROC_LINGER_MS	200
/* What proc_kill sends a keeper for SIGKILL (which would end the keeper alone). */
#define PROC_KEEPER_KILL SIGUSR1

/* The children proc spawned and nobody reaped yet: proc_sweep leaves them alone. */
static pid_t	*proc_pids;
static size_t	 proc_npids, proc_cappids;
static bool	 proc_reaper_on;

/* In a forked child: where a failure before the exec is reported, and who forked it. */
static int	 proc_report_fd = -1;
static pid_t	 proc_parent;

/*
 * The life pipe: tandem alone holds its write end, every keeper a read
 * end.  When tandem ends, however it ends, the kernel closes the write end
 * and each keeper reads EOF.  A pipe rather than PR_SET_PDEATHSIG, which
 * fires when the thread that forked ends, not the process.
 */
static int	 proc_life[2] = { -1, -1 };
static pid_t	 proc_life_owner;
static void	 proc_life_atfork_child(void);
/* Whether a keeper executes the program again (proc_keeper_reexec). */
static bool	 proc_reexec;

static void
proc_remember(pid_t pid)
{
	if (proc_npids == proc_cappids) {
		proc_cappids = proc_cappids != 0 ? proc_cappids * 2 : 16;
		proc_pids = xreallocarray(proc_pids, proc_cappids, sizeof *proc_pids);
	}
	proc_pids[proc_npids++] = pid;
}

static bool
proc_known(pid_t pid)
{
	size_t i;

	for (i = 0; i < proc_npids; i++)
		if (proc_pids[i] == pid)
			return true;
	return false;
}

void
proc_forget(pid_t pid)
{
	size_t i;

	for (i = 0; i < proc_npids; i++)
		if (proc_pids[i] == pid) {
			proc_pids[i] = proc_pids[--proc_npids];
			return;
		}
}

/* Has pid ended (reaped here) before until? */
static bool
proc_reaped_by(pid_t pid, int64_t until)
{
	for (;;) {
		pid_t r = waitpid(pid, NULL, WNOHANG);
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (r == pid || (r == -1 && errno == ECHILD)) {
			proc_forget(pid);
			return true;
		}
		if (ev_now_ms() >= until)
			return false;
		nanosleep(&ts, NULL);
	}
}

void
proc_end(pid_t pid, int grace_ms)
{
	if (proc_reaped_by(pid, ev_now_ms() + grace_ms))
		return;
	proc_kill(pid, SIGTERM);
	if (!proc_reaped_by(pid, ev_now_ms() + 300))
		proc_kill(pid, SIGKILL);
	(void)proc_reaped_by(pid, ev_now_ms() + 1000);
}

char *
proc_which(const char *command)
{
	const char *path = getenv("PATH"), *p;
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (command == NULL || command[0] == '\0')
		return NULL;
	if (strchr(command, '/') != NULL)
		return access(command, X_OK) == 0 ? xstrdup(command) : NULL;
	for (p = path != NULL ? path : "/usr/local/bin:/usr/bin:/bin"; ; ) {
		size_t n = strcspn(p, ":");

		buf_reset(&b);
		if (n == 0)
			buf_puts(&b, ".");
		else
			buf_append(&b, p, n);
		buf_printf(&b, "/%s", command);
		if (access(buf_cstr(&b), X_OK) == 0)
			return buf_detach(&b, NULL);
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	buf_release(&b);
	return NULL;
}

int
proc_alive(void)
{
	return (int)proc_npids;
}

void
proc_kill(pid_t pid, int sig)
{
	if (pid <= 0)
		return;
	/*
	 * The keeper passes the signal on to everything below it; SIGKILL,
	 * which would end the keeper and free what it holds, is asked for as
	 * PROC_KEEPER_KILL.
	 */
	kill(pid, sig == SIGKILL ? PROC_KEEPER_KILL : sig);
}

/* The length of the name in a "NAME=value" entry. */
static size_t
proc_env_namelen(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq != NULL ? (size_t)(eq - e) : strlen(e);
}

static bool
proc_env_listed(const char *const *list, const char *e, size_t n)
{
	for (; list != NULL && *list != NULL; list++)
		if (proc_env_namelen(*list) == n && strncmp(*list, e, n) == 0)
			return true;
	return false;
}

/* The child's environment (the array is the caller's to free, the strings are not). */
static char **
proc_env_build(const struct proc_spec *s)
{
	size_t n = 0, k = 0;
	char **env, **e;
	const char *const *a;

	for (e = environ; e != NULL && *e != NULL; e++)
		n++;
	for (a = s->env_set; a != NULL && *a != NULL; a++)
		n++;
	env = xcalloc(n + 1, sizeof *env);
	for (e = environ; e != NULL && *e != NULL; e++) {
		size_t l = proc_env_namelen(*e);

		if (proc_env_listed(s->env_unset, *e, l) || proc_env_listed(s->env_set, *e, l))
			continue;
		if (s->redact_env) {
			char *name = xstrndup(*e, l);
			bool drop = redact_env_removed(name);

			free(name);
			if (drop)
				continue;
		}
		env[k++] = *e;
	}
	for (a = s->env_set; a != NULL && *a != NULL; a++)
		env[k++] = (char *)*a;
	env[k] = NULL;
	return env;
}

/* In struct proc_pipes: what the child opens or copies itself (no descriptor of ours). */
#define PROC_CHILD_NULL		(-2)	/* /dev/null, opened in the child */
#define PROC_CHILD_STDOUT	(-3)	/* a copy of the child's stdout */

/* The three streams: what becomes 0, 1, 2 in the child, and the parent's pipe ends. */
struct proc_pipes {
	int	child[3];	/* ours to close after the spawn, unless borrowed */
	bool	borrowed[3];	/* the caller's own descriptor: not closed */
	int	parent[3];
};

static void
proc_pipes_close(struct proc_pipes *pp, bool parent_too)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (pp->child[i] >= 0 && !pp->borrowed[i])
			close(pp->child[i]);
		pp->child[i] = -1;
		if (parent_too && pp->parent[i] != -1)
			close(pp->parent[i]);
		if (parent_too)
			pp->parent[i] = -1;
	}
}

static int
proc_pipes_open(const struct proc_spec *s, struct proc_pipes *pp, struct buf *err)
{
	enum proc_io how[3] = { s->in, s->out, s->err };
	int fds[3] = { s->in_fd, s->out_fd, s->err_fd };
	int i, p[2];

	for (i = 0; i < 3; i++) {
		pp->child[i] = pp->parent[i] = -1;
		pp->borrowed[i] = false;
	}
	for (i = 0; i < 3; i++) {
		switch (how[i]) {
		case PROC_IO_NULL:
			pp->child[i] = PROC_CHILD_NULL;
			break;
		case PROC_IO_PIPE:
			/* Off 0-2, so that the child's dup2s never clobber one another. */
			if (pipe2(p, O_CLOEXEC) == -1) {
				buf_printf(err, "cannot create a pipe: %s", strerror(errno));
				goto fail;
			}
			pp->child[i] = i == 0 ? p[0] : p[1];
			pp->parent[i] = i == 0 ? p[1] : p[0];
			fcntl(pp->parent[i], F_SETFL, fcntl(pp->parent[i], F_GETFL) | O_NONBLOCK);
			if (pp->child[i] <= 2) {
				int hi = fcntl(pp->child[i], F_DUPFD_CLOEXEC, 3);

				close(pp->child[i]);
				pp->child[i] = hi;
				if (hi == -1) {
					buf_printf(err, "cannot create a pipe: %s", strerror(errno));
					goto fail;
				}
			}
			break;
		case PROC_IO_FD:
			if (fds[i] > 2 && fcntl(fds[i], F_GETFD) != -1) {
				pp->child[i] = fds[i];
				pp->borrowed[i] = true;
			} else if ((pp->child[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) == -1) {
				buf_printf(err, "cannot pass descriptor %d: %s", fds[i], strerror(errno));
				goto fail;
			}
			break;
		case PROC_IO_STDOUT:
			if (i != 2) {
				buf_puts(err, "only stderr can go into stdout");
				goto fail;
			}
			pp->child[2] = PROC_CHILD_STDOUT;
			break;
		}
	}
	return 0;
fail:
	proc_pipes_close(pp, true);
	return -1;
}

/* --- posix_spawn ----------------------------------------------------------- */

static int
proc_spawn_posix(const struct proc_spec *s, struct proc_pipes *pp, char **env,
    pid_t *pid, struct buf *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t all, none;
	const char *path = s->argv[0];
	int i, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	for (i = 0; i < 3; i++)
		if (pp->child[i] == PROC_CHILD_NULL)
			posix_spawn_file_actions_addopen(&fa, i, "/dev/null", O_RDWR, 0);
		else if (pp->child[i] == PROC_CHILD_STDOUT)
			posix_spawn_file_actions_adddup2(&fa, 1, 2);
		else
			posix_spawn_file_actions_adddup2(&fa, pp->child[i], i);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (s->dir != NULL)
		posix_spawn_file_actions_addchdir_np(&fa, s->dir);
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(pid, path, &fa, &at, (char *const *)s->argv, env);
	if (rc == ENOENT && s->alt_path != NULL) {
		path = s->alt_path;
		rc = posix_spawn(pid, path, &fa, &at, (char *const *)s->argv, env);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		if (s->dir != NULL)
			buf_printf(err, "cannot run %s in %s: %s", path, s->dir, strerror(rc));
		else
			buf_printf(err, "cannot run %s: %s", path, strerror(rc));
		return -1;
	}
	return 0;
}

/* --- fork and exec --------------------------------------------------------- */

/* In the child: send why it cannot go on to the parent, and end. */
static void __attribute__((noreturn))
proc_child_fail(const char *msg)
{
	size_t n = strnlen(msg, PROC_REPORT_MAX);

	if (proc_report_fd != -1)
		(void)!write(proc_report_fd, msg, n > 0 ? n : 1);
	_exit(126);
}

static void __attribute__((noreturn))
proc_child(const struct proc_spec *s, struct proc_pipes *pp, char **env, int report)
{
	struct buf err = BUF_INIT(PROC_REPORT_MAX);
	sigset_t none;
	int i;

	proc_report_fd = report;
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			signal(i, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (i = 0; i < 3; i++) {
		int fd = pp->child[i];

		if (fd == PROC_CHILD_NULL) {
			if ((fd = open("/dev/null", O_RDWR)) == -1)
				proc_child_fail("cannot open /dev/null");
			if (fd != i && (dup2(fd, i) == -1 || close(fd) == -1))
				proc_child_fail("cannot set up the child's standard streams");
			continue;
		}
		if (dup2(fd == PROC_CHILD_STDOUT ? 1 : fd, i) == -1)
			proc_child_fail("cannot set up the child's standard streams");
	}
	/* Nothing of tandem's but the report pipe survives the exec. */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	environ = env;
	if (s->pre_exec != NULL && s->pre_exec(s->arg, &err) == -1)
		proc_child_fail(err.len > 0 ? buf_cstr(&err) : "the child's set-up failed");
	if (s->dir != NULL && chdir(s->dir) == -1) {
		buf_reset(&err);
		buf_printf(&err, "cannot enter %s: %s", s->dir, strerror(errno));
		proc_child_fail(buf_cstr(&err));
	}
	if (s->main != NULL) {
		close(report);
		proc_report_fd = -1;
		s->main(s->arg);
		_exit(0);
	}
	execve(s->argv[0], (char *const *)s->argv, environ);
	if (errno == ENOENT && s->alt_path != NULL)
		execve(s->alt_path, (char *const *)s->argv, environ);
	buf_reset(&err);
	buf_printf(&err, "cannot run %s: %s", s->alt_path != NULL ? s->alt_path : s->argv[0],
	    strerror(errno));
	proc_child_fail(buf_cstr(&err));
}

/* --- the children of a process ------------------------------------------ */

typedef void proc_child_fn(pid_t pid, void *arg);

static int	proc_stat(pid_t pid, pid_t *ppid, char *state);

/* Whether the kernel lists each thread's children (CONFIG_PROC_CHILDREN). */
static bool
proc_children_listed(void)
{
	static int listed = -1;

	if (listed == -1)
		listed = access("/proc/thread-self/children", R_OK) == 0;
	return listed == 1;
}

/* fn for each pid in a /proc/.../children list, read whole first (fn may kill). */
static void
proc_children_file(const char *path, proc_child_fn *fn, void *arg)
{
	char buf[8192], *p, *end;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;
	long v;

	if (fd == -1)
		return;
	while (got < (ssize_t)sizeof buf - 1 &&
	    ((n = read(fd, buf + got, sizeof buf - 1 - (size_t)got)) > 0 || (n == -1 && errno == EINTR)))
		got += n > 0 ? n : 0;
	close(fd);
	buf[got] = '\0';
	for (p = buf; *p != '\0'; p = end) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || end == p)
			break;
		if (v > 0)
			fn((pid_t)v, arg);
	}
}

/*
 * fn for each child of pid: the kernel's list of each of its threads'
 * children when it has one, else every process in /proc whose parent is
 * pid.  A child born meanwhile may be missed: callers that must find all
 * call again.
 */
static void
proc_each_child(pid_t pid, proc_child_fn *fn, void *arg)
{
	char path[128], *end;
	struct dirent *d;
	DIR *dir;
	pid_t ppid;
	char state;
	long v;
	int n;

	if (proc_children_listed()) {
		n = snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
		if (n < 0 || (size_t)n >= sizeof path || (dir = opendir(path)) == NULL)
			return;
		while ((d = readdir(dir)) != NULL) {
			if (d->d_name[0] == '.')
				continue;
			n = snprintf(path, sizeof path, "/proc/%ld/task/%s/children", (long)pid,
			    d->d_name);
			if (n > 0 && (size_t)n < sizeof path)
				proc_children_file(path, fn, arg);
		}
		closedir(dir);
		return;
	}
	if ((dir = opendir("/proc")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		errno = 0;
		v = strtol(d->d_name, &end, 10);
		if (errno == 0 && end != d->d_name && *end == '\0' && v > 0 &&
		    proc_stat((pid_t)v, &ppid, &state) == 0 && ppid == pid)
			fn((pid_t)v, arg);
	}
	closedir(dir);
}

/* --- the keeper ------------------------------------------------------------ */

/* A child's exit status or signal, for its keeper to end the same way. */
static void __attribute__((noreturn))
proc_keeper_exit(int st)
{
	if (WIFSIGNALED(st)) {
		struct rlimit no_core = { 0, 0 };
		sigset_t one;

		setrlimit(RLIMIT_CORE, &no_core);
		signal(WTERMSIG(st), SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, WTERMSIG(st));
		kill(getpid(), WTERMSIG(st));
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		_exit(128 + WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* Close every descriptor but a and b. */
static void
proc_close_except(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 0)
		close_range(0, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0U, 0);
}

/*
 * A signal on its way down a tree: each process below the keeper gets sig
 * once, a parent before its children (so that nothing forks again after a
 * SIGKILL).  Other signals reach the keeper's process group at once first
 * (kill 0): a shell must not see its child end of SIGTERM and go on before
 * its own SIGTERM comes; the walk then skips the group.
 */
struct proc_tree {
	int	sig;
	int	depth;
	int	sent;
};

static void
proc_tree_visit(pid_t pid, void *arg)
{
	struct proc_tree *t = arg;

	if ((t->sig == SIGKILL || getpgid(pid) != getpgrp()) && kill(pid, t->sig) == 0)
		t->sent++;
	if (t->depth < 64) {
		t->depth++;
		proc_each_child(pid, proc_tree_visit, t);
		t->depth--;
	}
}

/*
 * SIGKILL everything below the keeper and reap it, until nothing is left
 * (what a killed process had comes back to the keeper, the subreaper, and
 * is killed on the next pass).  The child's status goes to *st when it is
 * reaped here.  Returns how many processes were killed.
 */
static int
proc_keeper_end(pid_t child, int *st)
{
	int killed = 0, s;
	pid_t w;

	for (;;) {
		struct proc_tree t = { SIGKILL, 0, 0 };

		proc_each_child(getpid(), proc_tree_visit, &t);
		killed += t.sent;
		w = waitpid(-1, &s, 0);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			return killed;
		if (w == child)
			*st = s;
		while ((w = waitpid(-1, &s, WNOHANG)) > 0)
			if (w == child)
				*st = s;
	}
}

/* tandem ended while the child ran: say so, durably, where the caller asked. */
static void
proc_keeper_note(const char *path, int killed)
{
	char line[128];
	int fd, n;

	if (path == NULL)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1)
		return;
	n = snprintf(line, sizeof line, "tandem ended while it ran; its keeper killed %d "
	    "process%s\n", killed, killed == 1 ? "" : "es");
	if (n > 0 && (size_t)n < sizeof line)
		(void)!write(fd, line, (size_t)n);
	(void)fsync(fd);
	close(fd);
}

/*
 * The keeper's loop: it waits for the child, the orphans it adopts, a
 * signal from tandem to pass on, and the end of the life pipe.  When the
 * child ends, what it left gets PROC_LINGER_MS to end by itself; then the
 * keeper kills the rest and ends as the child did.
 */
static void __attribute__((noreturn))
proc_keeper_loop(pid_t child, int sfd, const char *note)
{
	int64_t until = 0;
	int st = 0, s;
	bool done = false;
	pid_t w;

	for (;;) {
		struct pollfd pf[2] = { { sfd, POLLIN, 0 }, { proc_life[0], POLLIN, 0 } };
		struct signalfd_siginfo si;
		int timeout = -1;

		if (done) {
			int64_t left = until - ev_now_ms();

			if (left <= 0)
				break;
			timeout = (int)left;
		}
		if (poll(pf, 2, timeout) == -1 && errno != EINTR)
			break;
		if (pf[1].revents != 0) {
			/* No writer is left: tandem is gone, whatever ended it. */
			int killed = proc_keeper_end(child, &st);

			if (!done)
				proc_keeper_note(note, killed);
			proc_keeper_exit(st);
		}
		if ((pf[0].revents & POLLIN) && read(sfd, &si, sizeof si) == (ssize_t)sizeof si &&
		    si.ssi_signo != SIGCHLD && (pid_t)si.ssi_pid == proc_parent) {
			/* Only tandem's signals are orders; the child's own `kill 0` reaches it as well. */
			struct proc_tree t = { (int)si.ssi_signo, 0, 0 };

			if (t.sig == PROC_KEEPER_KILL)
				break;
			/* The keeper gets its own copy too, blocked, from itself: ignored above. */
			kill(0, t.sig);
			proc_each_child(getpid(), proc_tree_visit, &t);
		}
		while ((w = waitpid(-1, &s, WNOHANG)) > 0)
			if (w == child) {
				st = s;
				done = true;
				until = ev_now_ms() + PROC_LINGER_MS;
			}
		if (done && w == -1 && errno == ECHILD)
			proc_keeper_exit(st);
	}
	(void)proc_keeper_end(child, &st);
	proc_keeper_exit(st);
}

void
proc_keeper_reexec(void)
{
	proc_reexec = true;
}

/*
 * In the keeper, once the child runs: tandem executed again as the keeper
 * alone, so that a long-lived keeper does not hold a copy of tandem's
 * memory.  The subreaper mark, the blocked signals (pending ones too) and
 * the children stay across the exec.  Returns when it cannot be done: the
 * keeper then goes on as it is.
 */
static void
proc_keeper_exec(pid_t child, int sfd, const char *note, bool long_lived)
{
	char nums[4][24];
	long v[4] = { (long)child, sfd, proc_life[0], (long)proc_parent };
	const char *argv[8] = { "tandem", PROC_KEEPER_ARG };
	char *envp[] = { NULL };
	int i, n;

	if (!proc_reexec || !long_lived)
		return;
	for (i = 0; i < 4; i++) {
		n = snprintf(nums[i], sizeof nums[i], "%ld", v[i]);
		if (n < 0 || (size_t)n >= sizeof nums[i])
			return;
		argv[2 + i] = nums[i];
	}
	argv[6] = note;
	argv[7] = NULL;
	if (fcntl(sfd, F_SETFD, 0) == -1 || fcntl(proc_life[0], F_SETFD, 0) == -1)
		return;
	execve("/proc/self/exe", (char *const *)argv, envp);
}

void
proc_keeper_main(int argc, char **argv)
{
	long v[4];
	char *end;
	int i;

	if (argc < 6)
		_exit(127);
	for (i = 0; i < 4; i++) {
		errno = 0;
		v[i] = strtol(argv[2 + i], &end, 10);
		if (errno != 0 || end == argv[2 + i] || *end != '\0' || v[i] <= 0)
			_exit(127);
	}
	proc_life[0] = (int)v[2];
	proc_parent = (pid_t)v[3];
	/* The exec made it dumpable again: a command must not trace its keeper. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	proc_keeper_loop((pid_t)v[0], (int)v[1], argc > 6 ? argv[6] : NULL);
}

/*
 * In the keeper, tandem's fork: the leader of a new session, the child
 * subreaper of everything below, which starts the child (posix_spawn when
 * it can) and then holds only the life pipe and its signals.
 */
static void __attribute__((noreturn))
proc_keeper(const struct proc_spec *s, struct proc_pipes *pp, char **env, int report)
{
	struct buf err = BUF_INIT(PROC_REPORT_MAX);
	sigset_t all;
	pid_t child;
	int sfd;

	proc_report_fd = report;
	proc_life_atfork_child();
	setsid();
	/* Nobody's to read or trace: a forked keeper holds a copy of tandem's memory. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	signal(SIGCHLD, SIG_DFL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1 ||
	    (sfd = signalfd(-1, &all, SFD_CLOEXEC)) == -1)
		proc_child_fail("cannot start the keeper of the child");
	if (s->pre_exec == NULL && s->main == NULL) {
		if (proc_spawn_posix(s, pp, env, &child, &err) == -1)
			proc_child_fail(buf_cstr(&err));
	} else if ((child = fork()) == -1) {
		proc_child_fail("cannot fork");
	} else if (child == 0) {
		close(sfd);
		close(proc_life[0]);
		/* The child's own again: the sandbox writes its /proc/self/uid_map. */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		proc_child(s, pp, env, report);
	}
	/* Nothing of the child's streams, of the report pipe or of tandem's stays open here. */
	proc_close_except(sfd, proc_life[0]);
	proc_report_fd = -1;
	proc_keeper_exec(child, sfd, s->ended_note, s->long_lived);
	proc_keeper_loop(child, sfd, s->ended_note);
}

/*
 * In every fork of tandem (the editor's, the demo's, a keeper): the write
 * end goes at once, so that only tandem keeps the keepers waiting.
 */
static void
proc_life_atfork_child(void)
{
	if (proc_life[1] != -1 && proc_life_owner != getpid()) {
		close(proc_life[1]);
		proc_life[1] = -1;
	}
}

/* The life pipe, made once, off 0-2; -1 with err when it cannot be. */
static int
proc_life_open(struct buf *err)
{
	int p[2], i;

	static bool atfork;

	if (proc_life[0] != -1 && proc_life_owner == getpid())
		return 0;
	/* A fork of tandem that spawns on its own: its children live by it, not by tandem. */
	if (proc_life[0] != -1) {
		close(proc_life[0]);
		if (proc_life[1] != -1)
			close(proc_life[1]);
		proc_life[0] = proc_life[1] = -1;
	}
	if (!atfork && pthread_atfork(NULL, NULL, proc_life_atfork_child) == 0)
		atfork = true;
	if (pipe2(p, O_CLOEXEC) == -1) {
		buf_printf(err, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 2; i++)
		if (p[i] <= 2) {
			int hi = fcntl(p[i], F_DUPFD_CLOEXEC, 3);

			close(p[i]);
			p[i] = hi;
		}
	if (p[0] == -1 || p[1] == -1) {
		buf_printf(err, "cannot create a pipe: %s", strerror(errno));
		if (p[0] != -1)
			close(p[0]);
		if (p[1] != -1)
			close(p[1]);
		return -1;
	}
	proc_life[0] = p[0];
	proc_life[1] = p[1];
	proc_life_owner = getpid();
	return 0;
}

static int
proc_spawn_kept(const struct proc_spec *s, struct proc_pipes *pp, char **env,
    pid_t *pidp, struct buf *err)
{
	char msg[PROC_REPORT_MAX + 1];
	size_t got = 0;
	int r[2];
	pid_t pid;

	if (proc_life_open(err) == -1)
		return -1;
	if (pipe2(r, O_CLOEXEC) == -1) {
		buf_printf(err, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	proc_parent = getpid();
	pid = fork();
	if (pid == -1) {
		buf_printf(err, "cannot fork: %s", strerror(errno));
		close(r[0]);
		close(r[1]);
		return -1;
	}
	if (pid == 0) {
		close(r[0]);
		proc_keeper(s, pp, env, r[1]);
	}
	close(r[1]);
	/* Until the exec (or main) the child may still fail: wait for its word. */
	for (;;) {
		ssize_t n = read(r[0], msg + got, PROC_REPORT_MAX - got);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == PROC_REPORT_MAX)
			break;
	}
	close(r[0]);
	if (got == 0) {
		*pidp = pid;
		return 0;
	}
	msg[got] = '\0';
	buf_puts(err, msg);
	proc_kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	return -1;
}

int
proc_spawn(const struct proc_spec *s, struct proc *p, struct buf *err)
{
	struct proc_pipes pp;
	char **env;
	pid_t pid = -1;
	int rc;

	p->pid = -1;
	p->in = p->out = p->err = -1;
	if (s->main == NULL && (s->argv == NULL || s->argv[0] == NULL)) {
		buf_puts(err, "nothing to run");
		return -1;
	}
	if (proc_pipes_open(s, &pp, err) == -1)
		return -1;
	env = proc_env_build(s);
	rc = proc_spawn_kept(s, &pp, env, &pid, err);
	free(env);
	proc_pipes_close(&pp, rc == -1);
	if (rc == -1)
		return -1;
	p->pid = pid;
	p->in = pp.parent[0];
	p->out = pp.parent[1];
	p->err = pp.parent[2];
	proc_remember(pid);
	return 0;
}

/* --- orphans --------------------------------------------------------------- */

int
proc_subreaper(void)
{
	if (proc_reaper_on)
		return 0;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		return -1;
	proc_reaper_on = true;
	return 0;
}

/* The parent and state of pid, from /proc/pid/stat; -1 when it is gone. */
static int
proc_stat(pid_t pid, pid_t *ppid, char *state)
{
	char path[64], line[512], *rp, *end;
	FILE *f;
	long v;
	int n;

	n = snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (n < 0 || (size_t)n >= sizeof path || (f = fopen(path, "re")) == NULL)
		return -1;
	n = fgets(line, sizeof line, f) != NULL;
	fclose(f);
	/* The name is in parentheses and may hold anything: start after the last ')'. */
	if (!n || (rp = strrchr(line, ')')) == NULL || rp[1] != ' ' || rp[2] == '\0')
		return -1;
	*state = rp[2];
	errno = 0;
	v = strtol(rp + 3, &end, 10);
	if (errno != 0 || end == rp + 3)
		return -1;
	*ppid = (pid_t)v;
	return 0;
}

/* Whether pid's environment holds the entry tag. */
static bool
proc_env_has(pid_t pid, const char *tag)
{
	char path[64];
	struct buf env = BUF_INIT(1024 * 1024);
	size_t tl = strlen(tag), off;
	bool found = false;
	int fd, n;

	n = snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if (n < 0 || (size_t)n >= sizeof path || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	for (;;) {
		char chunk[8192];
		ssize_t r = read(fd, chunk, sizeof chunk);

		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0 || buf_append(&env, chunk, (size_t)r) == -1)
			break;
	}
	close(fd);
	for (off = 0; off < env.len; off += strnlen(env.data + off, env.len - off) + 1)
		if (env.len - off >= tl + 1 && memcmp(env.data + off, tag, tl) == 0 &&
		    env.data[off + tl] == '\0') {
			found = true;
			break;
		}
	buf_release(&env);
	return found;
}

/* End pid if it is an orphan of the command tagged tag: 1 if it did. */
static int
proc_sweep_one(pid_t pid, const char *tag)
{
	pid_t ppid;
	char state;

	if (proc_known(pid) || proc_stat(pid, &ppid, &state) == -1 || ppid != getpid())
		return 0;
	/* A zombie orphan has no environment left to tell: reap it all the same. */
	if (state != 'Z' && !proc_env_has(pid, tag))
		return 0;
	if (state != 'Z')
		proc_kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	return 1;
}

/* What one sweep is after, and how many it ended. */
struct proc_sweep {
	const char	*tag;
	int		 ended;
};

static void
proc_sweep_visit(pid_t pid, void *arg)
{
	struct proc_sweep *w = arg;

	w->ended += proc_sweep_one(pid, w->tag);
}

/* One pass over tandem's children; how many it ended. */
static int
proc_sweep_pass(const char *tag)
{
	struct proc_sweep w = { tag, 0 };

	proc_each_child(getpid(), proc_sweep_visit, &w);
	return w.ended;
}

int
proc_sweep(const char *tag)
{
	int total = 0, n, pass;

	if (!proc_reaper_on)
		return 0;
	/* An orphan's own children come back to tandem when it ends: look again. */
	for (pass = 0; pass < 8 && (n = proc_sweep_pass(tag)) > 0; pass++)
		total += n;
	return total;
}

void
proc_watch_close(struct ev_loop *loop, struct proc_watch *w)
{
	if (w->fd == -1)
		return;
	if (loop != NULL)
		ev_io_del(loop, w->fd);
	close(w->fd);
	w->fd = -1;
	w->eof = true;
}

enum proc_drain
proc_drain(struct ev_loop *loop, struct proc_watch *w, size_t chunk, proc_chunk_fn *fn, void *arg)
{
	char data[PROC_CHUNK_MAX];
	enum proc_drain why;
	ssize_t n;

	if (chunk == 0 || chunk > sizeof data)
		chunk = sizeof data;
	for (;;) {
		n = read(w->fd, data, chunk);
		if (n > 0) {
			if (fn(arg, data, (size_t)n) == -1) {
				why = PROC_DRAIN_STOPPED;
				break;
			}
			if ((size_t)n == chunk)
				return PROC_DRAIN_AGAIN;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return PROC_DRAIN_AGAIN;
		why = n == 0 ? PROC_DRAIN_EOF : PROC_DRAIN_ERROR;
		break;
	}
	proc_watch_close(loop, w);
	return why;
}

void
proc_watch_exit(struct proc_watch *w, int status)
{
	proc_forget(w->pid);
	w->exited = true;
	w->status = status;
}

bool
proc_watch_done(const struct proc_watch *w)
{
	return w->exited && w->eof;
}
