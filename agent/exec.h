/*
 * exec: run one tool call in a child process watched by the loop.
 *
 * Built-in tools run their function in a forked child, which writes its
 * tool_out as one JSON object to a pipe (the file tools in a child of the
 * fork server, forksrv.h, when it may serve them; the others, and those
 * it may not, in a fork of tandem under a keeper); run_bash is spawned with
 * bash -c and its output streamed.  Either can be killed (its whole process
 * group) at any time.  The done callback fires exactly once per job, also
 * after exec_kill; after it the job is freed.
 */
#ifndef TANDEM_EXEC_H
#define TANDEM_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "tool.h"

struct ev_loop;
struct exec_job;

/* A delta of live output (run_bash only). */
typedef void exec_progress_fn(void *arg, const char *p, size_t n);
/* The result; out is the callback's to use during the call (freed after). */
typedef void exec_done_fn(void *arg, struct tool_out *out, int64_t duration_ms);

/*
 * Start tool on input (copied) with env (whose strings must outlive the
 * job).  id names the call (for spill files).  Never NULL: a failure to
 * start is reported through done, on the next loop turn.
 */
struct exec_job	*exec_start(struct ev_loop *, const struct tool_def *tool, const cJSON *input,
		    const struct tool_env *env, const char *id,
		    exec_progress_fn *progress, exec_done_fn *done, void *arg);
/* Kill the job (its process group); done still fires, with an interrupted result. */
void		 exec_kill(struct exec_job *);
/* How many jobs are alive (for leak checks). */
int		 exec_alive(void);

#endif
