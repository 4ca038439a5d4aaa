/*
 * usercmd: a shell command the user runs from the input line ("!make").
 *
 * It is the user's own command, so no approval and no sandbox: bash -c in
 * the workspace root, through the same spawn and capture as run_bash (its
 * own process group, stdin from /dev/null, stdout and stderr together,
 * the output capped at TOOL_BASH_CAP with its head and tail kept, escape
 * sequences cleaned, orphans swept, killed whole by usercmd_kill), on the
 * loop.  The output a caller sees has every known key redacted.
 *
 * usercmd_frame() writes what the model is told about it: framed as run by
 * the user, its output marked as data and not as instructions.
 */
#ifndef TANDEM_USERCMD_H
#define TANDEM_USERCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct ev_loop;
struct tool_env;
struct usercmd;

/* A piece of live output, redacted (the caller shows it). */
typedef void usercmd_output_fn(void *arg, const char *p, size_t n);
/*
 * The command ended (or was killed): output is its capped, cleaned and
 * redacted output with the exit status, framed what usercmd_frame makes of
 * it for the model; both valid during the call.  The handle is freed after
 * the call.
 */
typedef void usercmd_done_fn(void *arg, const char *command, const char *output,
    const char *framed, bool failed, int64_t ms);

/*
 * Start command in env's root.  Never NULL; a failure to start is reported
 * through done on the next loop turn.  env's strings must outlive the run.
 */
struct usercmd	*usercmd_start(struct ev_loop *, const struct tool_env *env, const char *command,
		    usercmd_output_fn *output, usercmd_done_fn *done, void *arg);
/* Kill the command and its children; done still fires (the output says it was interrupted). */
void		 usercmd_kill(struct usercmd *);

/* Append what the model is told about a command the user ran, to out. */
void		 usercmd_frame(const char *command, const char *output, struct buf *out);

#endif
