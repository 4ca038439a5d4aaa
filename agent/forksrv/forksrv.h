/*
 * forksrv: the fork server of the built-in tools that read and write
 * files.  Such a call ran in a fork of tandem made for it (under a keeper
 * of its own, itself a fork): two copies of the whole agent for each
 * call, costing more the longer the session.  Instead one server, started
 * through proc (under its keeper, held like any child, ended with
 * tandem) while tandem is small, forks a child for each call; the child
 * runs the tool in a fresh copy of the server, a copy of tandem as it was
 * then, so nothing of one call reaches the next.
 *
 * It serves the tools of forksrv.c's list only, whose work depends on
 * nothing but their input and the tool environment, and only while that
 * environment (the same struct, its paths, its policy, and every
 * permission rule: perm_rules_generation) and tandem's working directory
 * are what they were when the server started.  When it is not, a server with no call running is replaced by
 * a new one; otherwise the call is not served (the caller forks as before).
 *
 * It owns the server (its keeper's pid, reaped on the loop), the socket to
 * it and the calls running in it.
 */
#ifndef TANDEM_FORKSRV_H
#define TANDEM_FORKSRV_H

#include <sys/types.h>

#include <cjson/cJSON.h>

#include "tool.h"

struct ev_loop;

/* Runs the tool in the call's child, its answer written to fd; the child ends when it returns. */
typedef void forksrv_run_fn(const struct tool_def *, const cJSON *input,
	    const struct tool_env *, int fd);
/* The call's child ended with the wait status status (a signal when the server died). */
typedef void forksrv_exit_fn(struct ev_loop *, int call, int status, void *arg);

/*
 * Run tool on input in a child of the server, through run (the same
 * function every time).  Returns the call's number (> 0) with *out_fd the
 * read end of the child's output pipe (non-blocking, close-on-exec, the
 * caller's); on_exit(arg) comes on the loop once the child has ended.
 * 0: not served here, nothing started (the caller runs it otherwise).
 */
int	forksrv_call(struct ev_loop *, const struct tool_def *, const cJSON *input,
	    const struct tool_env *, forksrv_run_fn *run, forksrv_exit_fn *on_exit, void *arg,
	    int *out_fd);
/* Send sig to the call's child (its process group). */
void	forksrv_kill(int call, int sig);

#endif
