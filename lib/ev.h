/*
 * ev: the one poll() loop that drives tandem.
 *
 * It watches file descriptors, runs one-shot monotonic timers, turns signals
 * into loop callbacks through a self-pipe (the handler only writes a byte),
 * and reaps the children it was told about.  No threads.  When nothing is
 * due, poll() sleeps with no timeout: an idle tandem makes no wakeups.
 *
 * Callbacks may add and remove any watcher, including their own.  The loop
 * owns its bookkeeping only; the arg pointers stay the caller's.
 */
#ifndef TANDEM_EV_H
#define TANDEM_EV_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

struct ev_loop;

typedef void ev_io_fn(struct ev_loop *, int fd, int revents, void *arg);
typedef void ev_timer_fn(struct ev_loop *, void *arg);
typedef void ev_signal_fn(struct ev_loop *, int signo, void *arg);
typedef void ev_child_fn(struct ev_loop *, pid_t pid, int status, void *arg);

struct ev_loop	*ev_loop_new(void);
/* Restores the signal dispositions it changed; closes only its own pipe. */
void		 ev_loop_free(struct ev_loop *);

/* Watch fd for events (POLLIN, POLLOUT); one watcher per fd. */
int		 ev_io_add(struct ev_loop *, int fd, int events, ev_io_fn *, void *arg);
int		 ev_io_mod(struct ev_loop *, int fd, int events);
void		 ev_io_del(struct ev_loop *, int fd);

/* A one-shot timer after ms milliseconds (0: on the next turn).  Ids are never 0. */
uint64_t	 ev_timer_add(struct ev_loop *, int64_t ms, ev_timer_fn *, void *arg);
void		 ev_timer_cancel(struct ev_loop *, uint64_t id);

/* Route signo to fn on the loop (replaces an earlier route for signo). */
int		 ev_signal_add(struct ev_loop *, int signo, ev_signal_fn *, void *arg);
void		 ev_signal_del(struct ev_loop *, int signo);

/* Call fn once pid has exited, with its wait status; the loop reaps it. */
int		 ev_child_add(struct ev_loop *, pid_t pid, ev_child_fn *, void *arg);
/* Forget pid (it will still be reaped, silently). */
void		 ev_child_del(struct ev_loop *, pid_t pid);

/* Run until ev_break() or until nothing is watched; 0, or -1 on a poll error. */
int		 ev_run(struct ev_loop *);
/* Run one iteration, waiting at most timeout_ms (-1: until something happens). */
int		 ev_run_once(struct ev_loop *, int timeout_ms);
void		 ev_break(struct ev_loop *);

/* Monotonic milliseconds. */
int64_t		 ev_now_ms(void);
/* Wakeups (poll returns) so far: bench/ reads it to prove an idle loop sleeps. */
uint64_t	 ev_wakeups(const struct ev_loop *);

#endif
