/*
 * run_bash: the shell tool.  Unlike the other tools it is not run as a
 * function: agent/exec.c spawns it and streams its output, using the pieces
 * here: the spawn itself, and the capture that keeps the head and the tail
 * of the output within TOOL_BASH_CAP and spills the whole of it to a file.
 *
 * Output is kept by length, never as a C string.  The spill file has the
 * raw bytes; the model gets them cleaned (escape sequences dropped,
 * carriage-return redraws collapsed to their last state, other control
 * bytes as \xNN), always with the tail and the exit status.  All spill
 * writes go through one function (bash_spill_write), and a failed one is
 * reported to the model instead of the file's name.
 */
#ifndef TANDEM_RUN_BASH_H
#define TANDEM_RUN_BASH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "proc.h"
#include "redact.h"
#include "tool.h"

#define BASH_TIMEOUT_DEFAULT_MS	120000
#define BASH_TIMEOUT_MAX_MS	600000

/* What a command's spawn adds (all optional; strings are the caller's). */
struct bash_spawn_opts {
	const char *const *env_set;	/* "NAME=value", NULL-ended */
	const char *const *env_unset;	/* names, NULL-ended */
	proc_hook_fn	*pre_exec;	/* the sandbox, in the child */
	const char	*ended_note;	/* created if tandem ends while it runs (proc.h) */
	bool		 long_lived;	/* a background shell (proc.h) */
	void		*arg;
};

/*
 * Start `bash -c command` in dir through proc (its own session, stdin from
 * /dev/null, stdout and stderr into one pipe whose read end (non-blocking,
 * close-on-exec) goes to *outfd).  o may be NULL.  Returns the pid, or -1
 * with err filled.
 */
/*
 * Append the name (no directory) of the note a command's keeper leaves in
 * the session's directory when tandem ends while call_id's command runs.
 */
void	bash_note_name(struct buf *name, const char *call_id);
pid_t	bash_spawn(const char *dir, const char *command, const struct bash_spawn_opts *o,
	    int *outfd, struct buf *err);

/* The timeout asked for in input, clamped to (0, BASH_TIMEOUT_MAX_MS]. */
int	bash_timeout_ms(const cJSON *input);

struct bash_capture {
	struct buf	 head;		/* the first TOOL_BASH_CAP/2 bytes */
	char		*tail;		/* a ring of the last TOOL_BASH_CAP/2 bytes */
	size_t		 tail_len, tail_pos;
	size_t		 total;
	int		 spill_fd;	/* -1 until the output passes the cap */
	bool		 spill_tried;
	int		 spill_err;	/* errno of a failed spill; 0: none */
	char		*spill_path;	/* owned */
	const char	*spill_dir;	/* not owned; NULL: no spill */
	char		*spill_name;	/* owned: a name unique to this call */
	struct redact_stream spill_redact;	/* keys never reach the spill file */
};

void	bash_capture_init(struct bash_capture *, const char *spill_dir, const char *call_id);
void	bash_capture_feed(struct bash_capture *, const char *p, size_t n);
/*
 * The result for the model: the output (head, an elision note naming the
 * spill file, tail), then the exit status, a timeout or a signal.
 * status is a wait status; timed_out and interrupted say why it was killed.
 */
void	bash_capture_finish(struct bash_capture *, int status, bool timed_out,
	    bool interrupted, int timeout_ms, struct tool_out *out);
void	bash_capture_release(struct bash_capture *);
/* Append p cleaned as a result shows it (escapes dropped, CR redraws collapsed). */
void	bash_clean_text(struct buf *out, const char *p, size_t n);

#endif
