/* proc: spawning, the child's session and signals, hooks, killing, sweeping orphans. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "proc.h"
#include "t.h"

/* Everything the child writes on fd until EOF (fd is non-blocking). */
static void
read_all(int fd, struct buf *out)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char chunk[4096];
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, 10000) <= 0)
			return;
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return;
		buf_append(out, chunk, (size_t)n);
	}
}

static int
run_sh(const char *cmd, struct proc_spec *spec, struct buf *out, struct buf *err)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct proc p;
	int status = -1;

	spec->argv = argv;
	if (proc_spawn(spec, &p, err) == -1)
		return -1;
	if (p.out != -1) {
		read_all(p.out, out);
		close(p.out);
	}
	waitpid(p.pid, &status, 0);
	proc_forget(p.pid);
	return status;
}

T_TEST(pipes_env_dir)
{
	struct buf out = BUF_INIT(65536), err = BUF_INIT(1024);
	const char *set[] = { "PROC_TEST_A=one", NULL }, *unset[] = { "PROC_TEST_B", NULL };
	struct proc_spec spec = {
		.dir = "/",
		.out = PROC_IO_PIPE, .err = PROC_IO_STDOUT,
		.env_set = set, .env_unset = unset,
	};
	int st;

	setenv("PROC_TEST_B", "two", 1);
	st = run_sh("echo \"$PROC_TEST_A:${PROC_TEST_B-gone}:$(pwd)\"; echo err >&2; read x || echo eof",
	    &spec, &out, &err);
	T_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	T_EQ_STR(buf_cstr(&out), "one:gone:/\nerr\neof\n");
	T_EQ_INT(proc_alive(), 0);
	buf_release(&out);
	buf_release(&err);
}

static int
hook_fails(void *arg, struct buf *err)
{
	buf_puts(err, "the hook said no");
	return -1;
}

static int
hook_marks(void *arg, struct buf *err)
{
	return setenv("PROC_HOOKED", "yes", 1);
}

T_TEST(hook_runs_and_fails_plainly)
{
	struct buf out = BUF_INIT(65536), err = BUF_INIT(1024);
	struct proc_spec spec = { .out = PROC_IO_PIPE, .pre_exec = hook_fails };
	struct proc p;
	const char *argv[] = { "/bin/true", NULL };

	spec.argv = argv;
	T_EQ_INT(proc_spawn(&spec, &p, &err), -1);
	T_EQ_STR(buf_cstr(&err), "the hook said no");
	T_EQ_INT(p.out, -1);
	T_EQ_INT(proc_alive(), 0);
	/* The hook runs before the exec, in the child: what it sets, the program sees. */
	spec.pre_exec = hook_marks;
	buf_reset(&err);
	run_sh("echo $PROC_HOOKED", &spec, &out, &err);
	T_EQ_STR(buf_cstr(&out), "yes\n");
	T_OK(getenv("PROC_HOOKED") == NULL);	/* in the child only */
	buf_release(&out);
	buf_release(&err);
}

T_TEST(missing_program_and_dir)
{
	struct buf out = BUF_INIT(65536), err = BUF_INIT(1024);
	const char *argv[] = { "/nonexistent/prog", NULL };
	struct proc_spec spec = { .argv = argv, .out = PROC_IO_PIPE };
	struct proc p;

	if (t_under_valgrind()) {
		/*
		 * valgrind runs posix_spawn's vfork as a fork, so the failed exec
		 * cannot be reported back: the child exits 127 instead.
		 */
		int status = 0;

		if (proc_spawn(&spec, &p, &err) == 0) {
			if (p.out != -1)
				close(p.out);
			waitpid(p.pid, &status, 0);
			proc_forget(p.pid);
			T_OK(WIFEXITED(status) && WEXITSTATUS(status) == 127);
		} else {
			T_CONTAINS(buf_cstr(&err), "cannot run /nonexistent/prog");
		}
	} else {
		T_EQ_INT(proc_spawn(&spec, &p, &err), -1);
		T_CONTAINS(buf_cstr(&err), "cannot run /nonexistent/prog");
	}
	/* The alternative program is tried when the first is missing. */
	spec.alt_path = "/bin/sh";
	buf_reset(&err);
	T_OK(run_sh("echo alt", &spec, &out, &err) != -1);
	buf_reset(&err);
	spec.dir = "/nonexistent-dir";
	spec.pre_exec = hook_marks;	/* the fork path reports it too */
	T_EQ_INT(run_sh("true", &spec, &out, &err), -1);
	T_CONTAINS(buf_cstr(&err), "/nonexistent-dir");
	T_EQ_INT(proc_alive(), 0);
	buf_release(&out);
	buf_release(&err);
}

/* Both spawn paths: own session, no controlling terminal, default signals, empty mask. */
static void
check_session(proc_hook_fn *hook)
{
	struct buf out = BUF_INIT(65536), ids = BUF_INIT(65536), err = BUF_INIT(1024);
	struct proc_spec spec = { .out = PROC_IO_PIPE, .pre_exec = hook };
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGINT, SIG_IGN);
	/*
	 * The mask is read by the first program the child runs: a shell that
	 * has forked before (ps, a subshell) may exec with SIGCHLD still blocked.
	 */
	run_sh("exec grep -E '^(SigBlk|SigIgn)' /proc/self/status", &spec, &out, &err);
	run_sh("ps -o sid=,pgid= -p $$ | tr -s ' '; (: >/dev/tty) 2>/dev/null && echo tty || echo notty",
	    &spec, &ids, &err);
	signal(SIGINT, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	T_CONTAINS(buf_cstr(&ids), "notty");
	T_CONTAINS(buf_cstr(&out), "SigBlk:\t0000000000000000");
	/* Signals 1-31 (32 and up are the C library's own, and cannot be set). */
	{
		const char *ig = strstr(buf_cstr(&out), "SigIgn:\t");
		unsigned long long mask = ig != NULL ? strtoull(ig + 8, NULL, 16) : ~0ULL;

		T_EQ_INT(mask & 0x7fffffffULL, 0);
	}
	/* sid == pgid == the shell's pid: read back what ps said. */
	{
		long sid = 0, pgid = 0;

		T_EQ_INT(sscanf(buf_cstr(&ids), " %ld %ld", &sid, &pgid), 2);
		T_OK(sid == pgid && sid > 0);
		T_OK(sid != getsid(0));
	}
	buf_release(&out);
	buf_release(&ids);
	buf_release(&err);
}

T_TEST(session_and_signals_posix_spawn)
{
	check_session(NULL);
}

T_TEST(session_and_signals_fork)
{
	check_session(hook_marks);
}

T_TEST(kill_reaches_the_group)
{
	struct buf err = BUF_INIT(1024);
	const char *argv[] = { "/bin/sh", "-c", "sleep 30 & sleep 30 & wait", NULL };
	struct proc_spec spec = { .argv = argv, .out = PROC_IO_PIPE };
	struct proc p;
	struct buf out = BUF_INIT(4096);
	int st;

	T_EQ_INT(proc_spawn(&spec, &p, &err), 0);
	usleep(100000);
	proc_kill(p.pid, SIGKILL);
	waitpid(p.pid, &st, 0);
	proc_forget(p.pid);
	/* EOF on the pipe means both sleeps (which hold it) are gone too. */
	read_all(p.out, &out);
	close(p.out);
	T_OK(WIFSIGNALED(st));
	buf_release(&err);
	buf_release(&out);
}

/* Poll up to 5 s for pid to be gone (a zombie of ours is reaped on the way). */
static bool
gone_soon(pid_t pid)
{
	int i;

	for (i = 0; i < 500; i++) {
		(void)waitpid(pid, NULL, WNOHANG);
		if (kill(pid, 0) == -1)
			return true;
		usleep(10000);
	}
	return false;
}

T_TEST(the_keeper_ends_what_the_command_left)
{
	struct buf out = BUF_INIT(65536), err = BUF_INIT(1024);
	struct proc_spec spec = { .out = PROC_IO_PIPE };
	long pid = 0;

	/* A daemon: setsid, double fork, no environment, its output elsewhere. */
	run_sh("(setsid env -i sleep 30 >/dev/null 2>&1 & echo $!) ", &spec, &out, &err);
	T_EQ_INT(sscanf(buf_cstr(&out), "%ld", &pid), 1);
	/* The keeper was reaped: it had killed and reaped the daemon first. */
	T_EQ_INT(kill((pid_t)pid, 0), -1);
	buf_release(&out);
	buf_release(&err);
}

T_TEST(sweep_ends_orphans)
{
	struct buf err = BUF_INIT(1024);
	const char *set[] = { "PROC_TAG=42", NULL };
	const char *argv[] = { "/bin/sh", "-c", "setsid sleep 30 >/dev/null 2>&1 & echo $!; exec sleep 30", NULL };
	struct proc_spec spec = { .argv = argv, .out = PROC_IO_PIPE, .env_set = set };
	struct proc p;
	char line[64] = "";
	long pid = 0;
	int i;

	T_EQ_INT(proc_subreaper(), 0);
	T_EQ_INT(proc_spawn(&spec, &p, &err), 0);
	for (i = 0; i < 500 && read(p.out, line, sizeof line - 1) <= 0; i++)
		usleep(10000);
	T_EQ_INT(sscanf(line, "%ld", &pid), 1);
	/* Its keeper killed from outside: what it held comes back to us, the subreaper. */
	kill(p.pid, SIGKILL);
	waitpid(p.pid, NULL, 0);
	proc_forget(p.pid);
	for (i = 0; i < 500 && proc_sweep("PROC_TAG=41") == 0; i++) {
		pid_t ppid = 0;
		char path[64], buf[512], *rp;
		FILE *f;

		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if ((f = fopen(path, "r")) == NULL)
			break;
		if (fgets(buf, sizeof buf, f) != NULL && (rp = strrchr(buf, ')')) != NULL)
			ppid = (pid_t)strtol(rp + 4, NULL, 10);
		fclose(f);
		if (ppid == getpid())
			break;
		usleep(10000);
	}
	T_EQ_INT(kill((pid_t)pid, 0), 0);		/* not PROC_TAG=41's */
	T_OK(proc_sweep("PROC_TAG=42") >= 1);
	T_EQ_INT(kill((pid_t)pid, 0), -1);		/* gone, and reaped */
	/* The command's own sleep, orphaned too. */
	(void)proc_sweep("PROC_TAG=42");
	close(p.out);
	buf_release(&err);
}

/* Everything a child started dies with tandem: the middle process stands in for tandem. */
T_TEST(the_keeper_ends_the_tree_when_tandem_dies)
{
	int p[2];
	pid_t mid;
	long pid = 0, keeper = 0;
	char line[128] = "";
	int i;

	T_EQ_INT(pipe(p), 0);
	mid = fork();
	if (mid == 0) {
		/* A grandchild that left the session and the environment, and holds no pipe. */
		const char *argv[] = { "/bin/sh", "-c",
		    "setsid env -i sleep 30 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 30", NULL };
		struct proc_spec spec = { .argv = argv, .out = PROC_IO_PIPE };
		struct buf err = BUF_INIT(1024);
		char got[64] = "";
		struct proc c;

		close(p[0]);
		if (proc_spawn(&spec, &c, &err) == -1)
			_exit(1);
		for (i = 0; i < 500 && read(c.out, got, sizeof got - 1) <= 0; i++)
			usleep(10000);
		dprintf(p[1], "%ld %s", (long)c.pid, got);
		/* Dies without a word, as with SIGKILL. */
		_exit(0);
	}
	close(p[1]);
	T_OK(read(p[0], line, sizeof line - 1) > 0);
	close(p[0]);
	waitpid(mid, NULL, 0);
	T_EQ_INT(sscanf(line, "%ld %ld", &keeper, &pid), 2);
	T_OK(gone_soon((pid_t)pid));
	T_OK(gone_soon((pid_t)keeper));
}

/* The keeper ends as its child did: its exit status, or its signal. */
T_TEST(the_keeper_ends_as_the_child_did)
{
	struct buf out = BUF_INIT(4096), err = BUF_INIT(1024);
	struct proc_spec spec = { .out = PROC_IO_PIPE };
	int st;

	st = run_sh("exit 3", &spec, &out, &err);
	T_OK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	st = run_sh("kill -TERM $$", &spec, &out, &err);
	T_OK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	spec.pre_exec = hook_marks;	/* the fork path too */
	st = run_sh("exit 5", &spec, &out, &err);
	T_OK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
	T_EQ_INT(proc_alive(), 0);
	buf_release(&out);
	buf_release(&err);
}

/* proc_kill's SIGKILL reaches what left the group, and the keeper ends as the child did. */
T_TEST(kill_reaches_what_left_the_group)
{
	struct buf err = BUF_INIT(1024);
	const char *argv[] = { "/bin/sh", "-c",
	    "setsid sh -c 'exec sleep 30' & echo $!; exec sleep 30", NULL };
	struct proc_spec spec = { .argv = argv, .out = PROC_IO_PIPE };
	struct proc p;
	char line[64] = "";
	long pid = 0;
	int st = 0, i;

	T_EQ_INT(proc_spawn(&spec, &p, &err), 0);
	for (i = 0; i < 500 && read(p.out, line, sizeof line - 1) <= 0; i++)
		usleep(10000);
	T_EQ_INT(sscanf(line, "%ld", &pid), 1);
	proc_kill(p.pid, SIGKILL);
	waitpid(p.pid, &st, 0);
	proc_forget(p.pid);
	T_OK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	T_EQ_INT(kill((pid_t)pid, 0), -1);
	close(p.out);
	buf_release(&err);
}

/* A shell whose stdout is a pipe the test watches (pid 0 when it did not start). */
static void
spawn_watched(const char *cmd, struct proc_watch *w)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct proc_spec spec = { .argv = argv, .out = PROC_IO_PIPE };
	struct buf err = BUF_INIT(1024);
	struct proc p;

	*w = (struct proc_watch){ .fd = -1 };
	if (proc_spawn(&spec, &p, &err) == 0)
		*w = (struct proc_watch){ .pid = p.pid, .fd = p.out };
	buf_release(&err);
}

static void
wait_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	(void)poll(&pfd, 1, 10000);
}

static void
reap(struct proc_watch *w)
{
	int st = 0;

	if (waitpid(w->pid, &st, 0) == w->pid)
		proc_watch_exit(w, st);
}

/* What the chunk function saw. */
struct seen {
	struct buf	out;
	int		calls;
	size_t		largest;
};

static int
seen_chunk(void *arg, const char *p, size_t n)
{
	struct seen *s = arg;

	s->calls++;
	if (n > s->largest)
		s->largest = n;
	return buf_append(&s->out, p, n);
}

/* Drain until the pipe is over, waiting for it between calls; how many calls it took. */
static enum proc_drain
drain_to_end(struct proc_watch *w, size_t chunk, struct seen *s, int *calls)
{
	enum proc_drain why;

	*calls = 0;
	do {
		wait_readable(w->fd);
		why = proc_drain(NULL, w, chunk, seen_chunk, s);
		++*calls;
	} while (why == PROC_DRAIN_AGAIN && *calls < 1000);
	return why;
}

T_TEST(drain_reads_to_eof_then_the_exit)
{
	struct seen s = { .out = BUF_INIT(4096) };
	struct proc_watch w;
	int calls;

	spawn_watched("printf hello; sleep 0.1; printf ' world'; exit 3", &w);
	T_OK(w.pid > 0);
	T_EQ_INT(drain_to_end(&w, 0, &s, &calls), PROC_DRAIN_EOF);
	T_EQ_STR(buf_cstr(&s.out), "hello world");
	T_EQ_INT(w.fd, -1);
	T_OK(w.eof);
	T_OK(!proc_watch_done(&w));	/* the pipe is over, the exit not yet seen */
	reap(&w);
	T_OK(proc_watch_done(&w));
	T_OK(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 3);
	T_EQ_INT(proc_alive(), 0);
	buf_release(&s.out);
}

T_TEST(drain_returns_when_the_pipe_would_block)
{
	struct seen s = { .out = BUF_INIT(4096) };
	struct proc_watch w;
	int calls;

	spawn_watched("printf first; exec sleep 30", &w);
	wait_readable(w.fd);
	T_EQ_INT(proc_drain(NULL, &w, 0, seen_chunk, &s), PROC_DRAIN_AGAIN);
	T_EQ_STR(buf_cstr(&s.out), "first");
	T_OK(w.fd != -1 && !w.eof);
	/* Nothing new: EAGAIN at once, nothing handed on. */
	T_EQ_INT(proc_drain(NULL, &w, 0, seen_chunk, &s), PROC_DRAIN_AGAIN);
	T_EQ_INT(s.calls, 1);
	proc_kill(w.pid, SIGKILL);
	reap(&w);
	T_OK(WIFSIGNALED(w.status));
	T_EQ_INT(drain_to_end(&w, 0, &s, &calls), PROC_DRAIN_EOF);
	T_OK(proc_watch_done(&w));
	buf_release(&s.out);
}

T_TEST(drain_yields_after_a_full_chunk)
{
	struct seen s = { .out = BUF_INIT(4096) };
	struct proc_watch w;
	int calls;

	/* 100 bytes, all in the pipe before the first read. */
	spawn_watched("head -c 100 /dev/zero", &w);
	reap(&w);
	T_EQ_INT(drain_to_end(&w, 16, &s, &calls), PROC_DRAIN_EOF);
	T_EQ_INT(s.out.len, 100);
	T_EQ_INT(s.largest, 16);
	/* Six full chunks, each a return to the loop; the seventh call reads 4 bytes and EOF. */
	T_EQ_INT(calls, 7);
	T_EQ_INT(s.calls, 7);
	buf_release(&s.out);
}

T_TEST(drain_stops_at_the_cap)
{
	struct seen s = { .out = BUF_INIT(10) };
	struct proc_watch w;
	int calls;

	spawn_watched("printf 0123456789abcdef; exec sleep 30", &w);
	T_EQ_INT(drain_to_end(&w, 0, &s, &calls), PROC_DRAIN_STOPPED);
	/* The pipe is closed although the child still runs and holds its end. */
	T_EQ_INT(w.fd, -1);
	T_OK(w.eof);
	T_EQ_INT(kill(w.pid, 0), 0);
	T_EQ_INT(s.out.len, 0);		/* the append that would pass the limit released it */
	proc_kill(w.pid, SIGKILL);
	reap(&w);
	T_OK(proc_watch_done(&w));
	T_EQ_INT(proc_alive(), 0);
	buf_release(&s.out);
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	alarms++;
}

T_TEST(drain_retries_a_read_a_signal_interrupted)
{
	struct seen s = { .out = BUF_INIT(4096) };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { .it_value = { 0, 100000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct proc_watch w;

	spawn_watched("sleep 0.5; printf late", &w);
	/* A blocking read, interrupted (no SA_RESTART) by the alarm before the output comes. */
	T_EQ_INT(fcntl(w.fd, F_SETFL, fcntl(w.fd, F_GETFL) & ~O_NONBLOCK), 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	T_EQ_INT(proc_drain(NULL, &w, 0, seen_chunk, &s), PROC_DRAIN_EOF);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	T_EQ_INT(alarms, 1);
	T_EQ_STR(buf_cstr(&s.out), "late");
	reap(&w);
	T_OK(proc_watch_done(&w));
	buf_release(&s.out);
}

T_TEST(drain_reports_a_read_error)
{
	struct seen s = { .out = BUF_INIT(4096) };
	struct proc_watch w = { .fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC) };

	T_OK(w.fd != -1);
	T_EQ_INT(proc_drain(NULL, &w, 0, seen_chunk, &s), PROC_DRAIN_ERROR);
	T_EQ_INT(w.fd, -1);
	T_OK(w.eof);
	T_EQ_INT(s.calls, 0);
	/* Closing again does nothing. */
	proc_watch_close(NULL, &w);
	T_EQ_INT(w.fd, -1);
	buf_release(&s.out);
}

/* On a real loop: a child that closes its output early, then runs on, then exits. */
struct early {
	struct proc_watch	w;
	struct seen		s;
	int			order;		/* 1: EOF came first; 2: the exit came first */
};

static void
early_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct early *e = arg;

	if (proc_drain(loop, &e->w, 0, seen_chunk, &e->s) != PROC_DRAIN_AGAIN && e->order == 0)
		e->order = 1;
}

static void
early_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct early *e = arg;

	proc_watch_exit(&e->w, status);
	if (e->order == 0)
		e->order = 2;
}

T_TEST(drain_a_child_that_closes_early_on_the_loop)
{
	struct ev_loop *loop = ev_loop_new();
	struct early e = { .s = { .out = BUF_INIT(4096) } };
	int64_t deadline = ev_now_ms() + 10000;

	spawn_watched("printf bye; exec >&-; sleep 0.3; exit 7", &e.w);
	T_EQ_INT(ev_io_add(loop, e.w.fd, POLLIN, early_on_read, &e), 0);
	T_EQ_INT(ev_child_add(loop, e.w.pid, early_on_exit, &e), 0);
	while (!proc_watch_done(&e.w) && ev_now_ms() < deadline)
		ev_run_once(loop, 100);
	T_OK(proc_watch_done(&e.w));
	T_EQ_INT(e.order, 1);
	T_EQ_STR(buf_cstr(&e.s.out), "bye");
	T_OK(WIFEXITED(e.w.status) && WEXITSTATUS(e.w.status) == 7);
	T_EQ_INT(proc_alive(), 0);
	/* The pipe's watcher is gone with it: nothing is left for the loop. */
	T_EQ_INT(ev_run(loop), 0);
	ev_loop_free(loop);
	buf_release(&e.s.out);
}

int
main(void)
{
	T_RUN(pipes_env_dir);
	T_RUN(hook_runs_and_fails_plainly);
	T_RUN(missing_program_and_dir);
	T_RUN(session_and_signals_posix_spawn);
	T_RUN(session_and_signals_fork);
	T_RUN(kill_reaches_the_group);
	T_RUN(the_keeper_ends_what_the_command_left);
	T_RUN(sweep_ends_orphans);
	T_RUN(the_keeper_ends_the_tree_when_tandem_dies);
	T_RUN(kill_reaches_what_left_the_group);
	T_RUN(the_keeper_ends_as_the_child_did);
	T_RUN(drain_reads_to_eof_then_the_exit);
	T_RUN(drain_returns_when_the_pipe_would_block);
	T_RUN(drain_yields_after_a_full_chunk);
	T_RUN(drain_stops_at_the_cap);
	T_RUN(drain_retries_a_read_a_signal_interrupted);
	T_RUN(drain_reports_a_read_error);
	T_RUN(drain_a_child_that_closes_early_on_the_loop);
	return t_done();
}
