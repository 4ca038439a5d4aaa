/* The poll() event loop: see ev.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "xalloc.h"

#define EV_NSIG 65

struct ev_io {
	int		 fd;
	int		 events;
	ev_io_fn	*fn;
	void		*arg;
	bool		 dead;
};

struct ev_timer {
	uint64_t	 id;
	int64_t		 when;
	ev_timer_fn	*fn;
	void		*arg;
};

struct ev_child {
	pid_t		 pid;
	ev_child_fn	*fn;
	void		*arg;
	bool		 reaped;
	int		 status;
};

struct ev_sig {
	ev_signal_fn	*fn;
	void		*arg;
	bool		 installed;
	struct sigaction old;
};

struct ev_loop {
	struct ev_io	*ios;
	size_t		 nios, capios;
	struct ev_timer	*timers;		/* a binary heap on (when, id) */
	size_t		 ntimers, captimers;
	uint64_t	 next_timer_id;
	struct ev_child	*children;
	size_t		 nchildren, capchildren;
	struct ev_sig	 sigs[EV_NSIG];
	int		 sigpipe[2];
	bool		 stop;
	uint64_t	 wakeups;
	struct pollfd	*pfds;
	size_t		 cappfds;
};

/* The self-pipe's write end, for the async-signal-safe handler. */
static volatile sig_atomic_t ev_sigfd = -1;

static void
ev_sig_handler(int signo)
{
	int saved = errno;
	unsigned char c = (unsigned char)signo;

	if (ev_sigfd != -1)
		(void)!write(ev_sigfd, &c, 1);
	errno = saved;
}

int64_t
ev_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
ev_set_nonblock_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl != -1)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fl = fcntl(fd, F_GETFD);
	if (fl != -1)
		fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

struct ev_loop *
ev_loop_new(void)
{
	struct ev_loop *loop = xcalloc(1, sizeof *loop);

	if (pipe(loop->sigpipe) == -1) {
		free(loop);
		return NULL;
	}
	ev_set_nonblock_cloexec(loop->sigpipe[0]);
	ev_set_nonblock_cloexec(loop->sigpipe[1]);
	ev_sigfd = loop->sigpipe[1];
	loop->next_timer_id = 1;
	return loop;
}

void
ev_loop_free(struct ev_loop *loop)
{
	int i;

	if (loop == NULL)
		return;
	for (i = 1; i < EV_NSIG; i++)
		ev_signal_del(loop, i);
	ev_sigfd = -1;
	close(loop->sigpipe[0]);
	close(loop->sigpipe[1]);
	free(loop->ios);
	free(loop->timers);
	free(loop->children);
	free(loop->pfds);
	free(loop);
}

static struct ev_io *
ev_io_find(struct ev_loop *loop, int fd)
{
	size_t i;

	for (i = 0; i < loop->nios; i++)
		if (loop->ios[i].fd == fd && !loop->ios[i].dead)
			return &loop->ios[i];
	return NULL;
}

int
ev_io_add(struct ev_loop *loop, int fd, int events, ev_io_fn *fn, void *arg)
{
	struct ev_io *io = ev_io_find(loop, fd);

	if (io == NULL) {
		if (loop->nios == loop->capios) {
			loop->capios = loop->capios ? loop->capios * 2 : 16;
			loop->ios = xreallocarray(loop->ios, loop->capios, sizeof *loop->ios);
		}
		io = &loop->ios[loop->nios++];
	}
	io->fd = fd;
	io->events = events;
	io->fn = fn;
	io->arg = arg;
	io->dead = false;
	return 0;
}

int
ev_io_mod(struct ev_loop *loop, int fd, int events)
{
	struct ev_io *io = ev_io_find(loop, fd);

	if (io == NULL)
		return -1;
	io->events = events;
	return 0;
}

void
ev_io_del(struct ev_loop *loop, int fd)
{
	struct ev_io *io = ev_io_find(loop, fd);

	/* Marked now, compacted between iterations, so a dispatch in progress stays valid. */
	if (io != NULL)
		io->dead = true;
}

static void
ev_io_compact(struct ev_loop *loop)
{
	size_t i, j = 0;

	for (i = 0; i < loop->nios; i++)
		if (!loop->ios[i].dead)
			loop->ios[j++] = loop->ios[i];
	loop->nios = j;
}

static bool
ev_timer_before(const struct ev_timer *a, const struct ev_timer *b)
{
	return a->when < b->when || (a->when == b->when && a->id < b->id);
}

static void
ev_heap_up(struct ev_timer *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct ev_timer t;

		if (!ev_timer_before(&h[i], &h[p]))
			break;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static void
ev_heap_down(struct ev_timer *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct ev_timer t;

		if (l < n && ev_timer_before(&h[l], &h[m]))
			m = l;
		if (r < n && ev_timer_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			break;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void
ev_heap_remove(struct ev_loop *loop, size_t i)
{
	loop->timers[i] = loop->timers[--loop->ntimers];
	if (i < loop->ntimers) {
		ev_heap_down(loop->timers, loop->ntimers, i);
		ev_heap_up(loop->timers, i);
	}
}

uint64_t
ev_timer_add(struct ev_loop *loop, int64_t ms, ev_timer_fn *fn, void *arg)
{
	struct ev_timer *t;

	if (loop->ntimers == loop->captimers) {
		loop->captimers = loop->captimers ? loop->captimers * 2 : 16;
		loop->timers = xreallocarray(loop->timers, loop->captimers, sizeof *loop->timers);
	}
	t = &loop->timers[loop->ntimers];
	t->id = loop->next_timer_id++;
	t->when = ev_now_ms() + (ms > 0 ? ms : 0);
	t->fn = fn;
	t->arg = arg;
	ev_heap_up(loop->timers, loop->ntimers++);
	return loop->next_timer_id - 1;
}

void
ev_timer_cancel(struct ev_loop *loop, uint64_t id)
{
	size_t i;

	if (id == 0)
		return;
	for (i = 0; i < loop->ntimers; i++) {
		if (loop->timers[i].id == id) {
			ev_heap_remove(loop, i);
			return;
		}
	}
}

int
ev_signal_add(struct ev_loop *loop, int signo, ev_signal_fn *fn, void *arg)
{
	struct ev_sig *s;
	struct sigaction sa;

	if (signo <= 0 || signo >= EV_NSIG)
		return -1;
	s = &loop->sigs[signo];
	s->fn = fn;
	s->arg = arg;
	if (s->installed)
		return 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ev_sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | (signo == SIGCHLD ? SA_NOCLDSTOP : 0);
	if (sigaction(signo, &sa, &s->old) == -1)
		return -1;
	s->installed = true;
	return 0;
}

void
ev_signal_del(struct ev_loop *loop, int signo)
{
	struct ev_sig *s;

	if (signo <= 0 || signo >= EV_NSIG)
		return;
	s = &loop->sigs[signo];
	if (s->installed)
		sigaction(signo, &s->old, NULL);
	memset(s, 0, sizeof *s);
}

static void
ev_reap(struct ev_loop *loop, int signo, void *arg)
{
	size_t i;

	for (i = 0; i < loop->nchildren; i++) {
		struct ev_child *c = &loop->children[i];
		int status;
		pid_t r;

		if (c->reaped)
			continue;
		do
			r = waitpid(c->pid, &status, WNOHANG);
		while (r == -1 && errno == EINTR);
		if (r == c->pid || (r == -1 && errno == ECHILD)) {
			c->reaped = true;
			c->status = r == c->pid ? status : 0;
		}
	}
	/* Run the callbacks after the scan: they may add children. */
	for (i = 0; i < loop->nchildren; ) {
		struct ev_child c = loop->children[i];

		if (!c.reaped) {
			i++;
			continue;
		}
		loop->children[i] = loop->children[--loop->nchildren];
		if (c.fn != NULL)
			c.fn(loop, c.pid, c.status, c.arg);
	}
}

int
ev_child_add(struct ev_loop *loop, pid_t pid, ev_child_fn *fn, void *arg)
{
	struct ev_child *c;

	if (!loop->sigs[SIGCHLD].installed &&
	    ev_signal_add(loop, SIGCHLD, ev_reap, NULL) == -1)
		return -1;
	if (loop->nchildren == loop->capchildren) {
		loop->capchildren = loop->capchildren ? loop->capchildren * 2 : 8;
		loop->children = xreallocarray(loop->children, loop->capchildren,
		    sizeof *loop->children);
	}
	c = &loop->children[loop->nchildren++];
	c->pid = pid;
	c->fn = fn;
	c->arg = arg;
	c->reaped = false;
	c->status = 0;
	/* The child may have exited before we were told: look once now. */
	{
		unsigned char b = SIGCHLD;

		(void)!write(loop->sigpipe[1], &b, 1);
	}
	return 0;
}

void
ev_child_del(struct ev_loop *loop, pid_t pid)
{
	size_t i;

	for (i = 0; i < loop->nchildren; i++)
		if (loop->children[i].pid == pid)
			loop->children[i].fn = NULL;
}

void
ev_break(struct ev_loop *loop)
{
	loop->stop = true;
}

uint64_t
ev_wakeups(const struct ev_loop *loop)
{
	return loop->wakeups;
}

static void
ev_drain_signals(struct ev_loop *loop)
{
	unsigned char b[64];
	bool seen[EV_NSIG] = { false };
	ssize_t n, i;
	int s;

	while ((n = read(loop->sigpipe[0], b, sizeof b)) > 0)
		for (i = 0; i < n; i++)
			if (b[i] < EV_NSIG)
				seen[b[i]] = true;
	for (s = 1; s < EV_NSIG; s++) {
		if (!seen[s])
			continue;
		if (s == SIGCHLD) {
			ev_reap(loop, s, NULL);
			if (loop->sigs[s].fn != NULL && loop->sigs[s].fn != ev_reap)
				loop->sigs[s].fn(loop, s, loop->sigs[s].arg);
		} else if (loop->sigs[s].fn != NULL)
			loop->sigs[s].fn(loop, s, loop->sigs[s].arg);
	}
}

static void
ev_run_timers(struct ev_loop *loop)
{
	int64_t now = ev_now_ms();
	uint64_t limit = loop->next_timer_id;

	/* Timers added by a callback wait for the next turn (limit). */
	while (loop->ntimers > 0 && loop->timers[0].when <= now &&
	    loop->timers[0].id < limit) {
		struct ev_timer t = loop->timers[0];

		ev_heap_remove(loop, 0);
		t.fn(loop, t.arg);
	}
}

static bool
ev_has_work(const struct ev_loop *loop)
{
	size_t i;

	if (loop->ntimers > 0 || loop->nchildren > 0)
		return true;
	for (i = 0; i < loop->nios; i++)
		if (!loop->ios[i].dead)
			return true;
	return false;
}

int
ev_run_once(struct ev_loop *loop, int timeout_ms)
{
	size_t n, i, nfds;
	int timeout = timeout_ms, r;

	ev_io_compact(loop);
	if (loop->ntimers > 0) {
		int64_t d = loop->timers[0].when - ev_now_ms();

		if (d < 0)
			d = 0;
		if (d > 0x7fffffff)
			d = 0x7fffffff;
		if (timeout < 0 || d < timeout)
			timeout = (int)d;
	}
	n = loop->nios + 1;
	if (n > loop->cappfds) {
		loop->cappfds = n * 2;
		loop->pfds = xreallocarray(loop->pfds, loop->cappfds, sizeof *loop->pfds);
	}
	loop->pfds[0].fd = loop->sigpipe[0];
	loop->pfds[0].events = POLLIN;
	loop->pfds[0].revents = 0;
	for (i = 0; i < loop->nios; i++) {
		loop->pfds[i + 1].fd = loop->ios[i].fd;
		loop->pfds[i + 1].events = (short)loop->ios[i].events;
		loop->pfds[i + 1].revents = 0;
	}
	nfds = loop->nios + 1;
	r = poll(loop->pfds, nfds, timeout);
	loop->wakeups++;
	if (r == -1 && errno != EINTR)
		return -1;
	if (r > 0 && (loop->pfds[0].revents & POLLIN))
		ev_drain_signals(loop);
	if (r > 0) {
		for (i = 1; i < nfds; i++) {
			struct ev_io *io;
			int fd = loop->pfds[i].fd, rev = loop->pfds[i].revents;

			if (rev == 0)
				continue;
			io = ev_io_find(loop, fd);
			if (io != NULL && io->fn != NULL)
				io->fn(loop, fd, rev, io->arg);
		}
	}
	ev_run_timers(loop);
	return 0;
}

int
ev_run(struct ev_loop *loop)
{
	loop->stop = false;
	while (!loop->stop && ev_has_work(loop))
		if (ev_run_once(loop, -1) == -1)
			return -1;
	return 0;
}
