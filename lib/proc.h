/*
 * proc: the one way tandem starts a child process (a command, a hook, a
 * built-in tool's worker) and ends it.
 *
 * It owns everything between "the caller wants a process" and "the program
 * runs": the pipes (the caller chooses, per stream, /dev/null, a pipe, one
 * of its descriptors, or stderr into stdout; the parent ends are
 * non-blocking and close-on-exec, and no other descriptor of tandem reaches
 * the child), the child's environment (the redacted variables removed,
 * the caller's additions set), its own session (setsid: no controlling
 * terminal, so no writes to /dev/tty and no TIOCSTI into tandem's prompt),
 * signal dispositions back to default and an empty signal mask, the
 * working directory, and an optional pre-exec hook run in the child (the
 * command sandbox).  posix_spawn when no hook or in-process main is
 * needed; fork and exec otherwise, with any failure before the exec sent
 * back to the parent as one sentence.
 *
 * It also owns ending.  Every child has a keeper: tandem forks it, it leads
 * the child's session, is the child subreaper of everything below (an
 * orphan that called setsid or double-forked comes back to it, not to
 * init) and starts the child.  The pid proc_spawn gives is the keeper's;
 * it ends as the child did, once the child has ended and what the child
 * left has ended too (after PROC_LINGER_MS it kills the rest).  It holds
 * the read end of a pipe only tandem writes to: when tandem ends, by
 * SIGKILL too, it reads EOF and kills the whole tree, so nothing tandem
 * started outlives it by more than a moment.  proc_kill asks the keeper to
 * pass a signal to the whole tree.  proc_sweep ends what a command left
 * behind that came back to tandem (tandem is also a subreaper, for a
 * keeper killed from outside).  Reaping the keeper stays the caller's
 * (through ev_child_add); proc_forget tells proc it was reaped.
 *
 * And the parent's side of a running child on the loop (struct proc_watch):
 * reading its output pipe until it would block, with a cap the caller's
 * chunk function enforces, EINTR retried and the pipe closed at its end;
 * recording its exit.  The caller keeps the loop's watchers and decides what
 * the output and the exit mean.
 */
#ifndef TANDEM_PROC_H
#define TANDEM_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "buf.h"

struct ev_loop;

/* Where one of the child's standard streams goes. */
enum proc_io {
	PROC_IO_NULL = 0,	/* /dev/null */
	PROC_IO_PIPE,		/* a pipe; the parent's end in struct proc */
	PROC_IO_FD,		/* the caller's descriptor (dup'ed; the caller keeps it) */
	PROC_IO_STDOUT,		/* stderr only: the same as stdout */
};

/*
 * Run in the child before the exec (or main), after its streams, session
 * and signals are set and before it enters dir.  Returns 0 to go on, or -1
 * with err filled: the spawn then fails with that sentence.  The child's
 * environment is in place (setenv and unsetenv change what runs).  It may fork:
 * only the process in which it returns 0 goes on to the exec; the others
 * must end themselves and close every descriptor they do not need.
 */
typedef int proc_hook_fn(void *arg, struct buf *err);
/* Run in the child instead of an exec (a built-in tool's worker); must not return. */
typedef void proc_main_fn(void *arg);

struct proc_spec {
	const char *const *argv;	/* argv[0] is the program's path; NULL with main */
	const char	*alt_path;	/* tried when argv[0] does not exist (/bin/sh for bash) */
	const char	*dir;		/* working directory; NULL: tandem's */
	enum proc_io	 in, out, err;
	int		 in_fd, out_fd, err_fd;	/* for PROC_IO_FD */
	bool		 redact_env;	/* drop the variables no child may inherit */
	const char *const *env_set;	/* "NAME=value" entries to set, NULL-ended */
	const char *const *env_unset;	/* names to remove, NULL-ended */
	proc_hook_fn	*pre_exec;
	proc_main_fn	*main;
	const char	*ended_note;	/* created by the keeper when it killed the child because
					   tandem ended (for a resume to tell); NULL: none */
	bool		 long_lived;	/* a background shell, a server: its keeper drops its
					   copy of tandem's memory (proc_keeper_reexec) */
	void		*arg;		/* for pre_exec and main */
};

struct proc {
	pid_t	pid;		/* also the process group and session id */
	int	in, out, err;	/* the parent's pipe ends, -1 when not a pipe */
};

/*
 * Start a child as spec says.  On success fills p and returns 0; the
 * caller owns the pipe ends and reaps the pid.  On failure returns -1 with
 * err filled, nothing left open and no child left behind.
 */
int	proc_spawn(const struct proc_spec *spec, struct proc *p, struct buf *err);
/*
 * Send sig to everything below the keeper pid (the child, its group, and
 * what left the group); SIGKILL also ends the keeper, once all is reaped.
 */
void	proc_kill(pid_t pid, int sig);
/* The caller reaped pid: it is no longer one of proc's children. */
void	proc_forget(pid_t pid);
/*
 * Reap pid, blocking: grace_ms for it to end by itself, then SIGTERM and
 * 300 ms more, then SIGKILL and up to a second; proc_forget on the way.
 * For a child whose loop watcher the caller has removed.
 */
void	proc_end(pid_t pid, int grace_ms);
/*
 * The program command names: itself when it holds a '/', else the first
 * executable of that name on PATH; NULL when none is executable.  The
 * caller frees it.
 */
char	*proc_which(const char *command);
/* How many spawned children are not yet forgotten (for leak checks). */
int	proc_alive(void);

/*
 * A child watched on the loop with its output pipe, and how far it has
 * ended.  The owner embeds it, adds the loop's watchers (ev_io_add on fd,
 * ev_child_add on pid) and reaps through them.
 */
struct proc_watch {
	pid_t	pid;		/* 0: none */
	int	fd;		/* the parent's end of its output pipe; -1 once closed */
	bool	exited;		/* reaped; status holds its wait status */
	bool	eof;		/* the pipe is over and closed */
	int	status;
};

/* The largest read proc_drain makes at once. */
#define PROC_CHUNK_MAX	65536

/* Takes n bytes read from the pipe; -1 stops the reading (a cap was hit). */
typedef int proc_chunk_fn(void *arg, const char *p, size_t n);

/* Why proc_drain returned. */
enum proc_drain {
	PROC_DRAIN_AGAIN = 0,	/* nothing more now, or one full chunk: the loop calls again */
	PROC_DRAIN_EOF,		/* the child's end of the pipe is closed */
	PROC_DRAIN_ERROR,	/* a read failed (EINTR is retried, not an error) */
	PROC_DRAIN_STOPPED,	/* fn returned -1 */
};

/*
 * Read w's non-blocking pipe as far as it goes now, in reads of at most
 * chunk bytes (0, or more than PROC_CHUNK_MAX: PROC_CHUNK_MAX), each
 * handed to fn.  A full chunk returns PROC_DRAIN_AGAIN, so the loop's
 * other watchers run between large chunks.  Any other return means the
 * pipe is over: proc_watch_close has been done.  loop may be NULL (fd not
 * watched).
 */
enum proc_drain proc_drain(struct ev_loop *loop, struct proc_watch *w, size_t chunk,
	    proc_chunk_fn *fn, void *arg);
/* Stop reading w's pipe: its watcher removed, closed, eof set; nothing when closed already. */
void	proc_watch_close(struct ev_loop *loop, struct proc_watch *w);
/* w's child was reaped with status: recorded, and proc forgets the pid. */
void	proc_watch_exit(struct proc_watch *w, int status);
/* Exited, and its pipe is over: nothing more will come from it. */
bool	proc_watch_done(const struct proc_watch *w);

/*
 * The keepers of long-lived children drop their copy of tandem's memory
 * (which would otherwise stay, page by page, as tandem changes its own):
 * once the child is started, such a keeper executes tandem again
 * (/proc/self/exe) with PROC_KEEPER_ARG, and main hands that to
 * proc_keeper_main before anything else.  A short command's keeper does
 * not: the exec would delay its end by a few milliseconds.  Without the
 * call (the unit tests) every keeper goes on in the forked copy.
 */
#define PROC_KEEPER_ARG	"--tandem-internal-keeper"
void	proc_keeper_reexec(void);
/* The keeper, in the program executed again: never returns. */
void	proc_keeper_main(int argc, char **argv) __attribute__((noreturn));

/*
 * Make tandem the subreaper of everything it starts (once; later calls do
 * nothing).  Returns 0, or -1 when the kernel refuses.
 */
int	proc_subreaper(void);
/*
 * End the orphans of one command: every child of tandem that proc did not
 * spawn itself and whose environment holds tag ("NAME=value", set through
 * env_set) is killed and reaped, and zombies of such orphans are reaped.
 * Returns how many processes it ended.
 */
int	proc_sweep(const char *tag);

#endif
