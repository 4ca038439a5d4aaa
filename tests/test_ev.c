/* Unit tests of lib/ev: timers, fds, signals, children. */
#include "autoconf.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ev.h"
#include "t.h"

static int order[8], norder;

static void
note(struct ev_loop *loop, void *arg)
{
	order[norder++] = (int)(intptr_t)arg;
}

T_TEST(timers_in_order)
{
	struct ev_loop *loop = ev_loop_new();
	uint64_t dropped;

	norder = 0;
	ev_timer_add(loop, 30, note, (void *)3);
	ev_timer_add(loop, 10, note, (void *)1);
	dropped = ev_timer_add(loop, 15, note, (void *)9);
	ev_timer_add(loop, 20, note, (void *)2);
	ev_timer_cancel(loop, dropped);
	T_EQ_INT(ev_run(loop), 0);
	T_EQ_INT(norder, 3);
	T_EQ_INT(order[0], 1);
	T_EQ_INT(order[1], 2);
	T_EQ_INT(order[2], 3);
	ev_loop_free(loop);
}

static char got[16];
static size_t ngot;

static void
on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	ssize_t n = read(fd, got + ngot, sizeof got - 1 - ngot);

	if (n <= 0) {
		ev_io_del(loop, fd);
		return;
	}
	ngot += (size_t)n;
}

T_TEST(fd_readable_and_eof)
{
	struct ev_loop *loop = ev_loop_new();
	int p[2];

	T_EQ_INT(pipe(p), 0);
	ngot = 0;
	ev_io_add(loop, p[0], POLLIN, on_read, NULL);
	T_EQ_INT(write(p[1], "hi", 2), 2);
	close(p[1]);
	ev_run(loop);
	got[ngot] = '\0';
	T_EQ_STR(got, "hi");
	close(p[0]);
	ev_loop_free(loop);
}

static int sigs_seen;

static void
on_signal(struct ev_loop *loop, int signo, void *arg)
{
	sigs_seen++;
	ev_break(loop);
}

static void
raise_usr1(struct ev_loop *loop, void *arg)
{
	raise(SIGUSR1);
}

T_TEST(signal_through_self_pipe)
{
	struct ev_loop *loop = ev_loop_new();

	sigs_seen = 0;
	ev_signal_add(loop, SIGUSR1, on_signal, NULL);
	ev_timer_add(loop, 5, raise_usr1, NULL);
	ev_timer_add(loop, 5000, note, NULL);	/* keeps the loop alive; must not fire */
	norder = 0;
	ev_run(loop);
	T_EQ_INT(sigs_seen, 1);
	T_EQ_INT(norder, 0);
	ev_loop_free(loop);
}

static int child_status = -1;

static void
on_child(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	child_status = status;
}

T_TEST(child_reaped)
{
	struct ev_loop *loop = ev_loop_new();
	pid_t pid = fork();

	/* exec, so that a checker such as valgrind cannot change the status. */
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
		_exit(7);
	}
	ev_child_add(loop, pid, on_child, NULL);
	ev_run(loop);
	T_OK(WIFEXITED(child_status));
	T_EQ_INT(WEXITSTATUS(child_status), 7);
	T_OK(waitpid(pid, NULL, WNOHANG) == -1);	/* already reaped */
	ev_loop_free(loop);
}

T_TEST(idle_loop_sleeps)
{
	struct ev_loop *loop = ev_loop_new();
	int p[2];
	uint64_t before;

	/* With one quiet fd and no timers, a bounded wait wakes once, not in a spin. */
	T_EQ_INT(pipe(p), 0);
	ev_io_add(loop, p[0], POLLIN, on_read, NULL);
	before = ev_wakeups(loop);
	ev_run_once(loop, 50);
	T_EQ_INT(ev_wakeups(loop) - before, 1);
	close(p[0]);
	close(p[1]);
	ev_loop_free(loop);
}

int
main(void)
{
	T_RUN(timers_in_order);
	T_RUN(fd_readable_and_eof);
	T_RUN(signal_through_self_pipe);
	T_RUN(child_reaped);
	T_RUN(idle_loop_sleeps);
	return t_done();
}
