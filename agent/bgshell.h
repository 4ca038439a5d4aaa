/*
 * bgshell: the background shells, commands the model starts on purpose
 * (run_bash with run_in_background: a dev server, a watcher) and keeps
 * past the call and the turn.
 *
 * It owns each shell after its spawn (agent/exec.c spawns it through the
 * same gate and sandbox as any command): its output, redacted and kept in
 * a bounded buffer with a read mark, its exit, and its end.  bash_output
 * and kill_shell (tools/tool.h's shell_op) run here, in tandem itself.
 * Every shell dies with tandem: its process group gets SIGTERM (then
 * SIGKILL) at exit, and the shell was spawned with a death signal, so a
 * killed tandem leaves none behind either.
 */
#ifndef TANDEM_BGSHELL_H
#define TANDEM_BGSHELL_H

#include <sys/types.h>

#include "buf.h"
#include "ev.h"
#include "tool.h"

/* Bytes of output a shell keeps that were not read yet; older ones are dropped. */
#define BGSHELL_KEEP	(256u * 1024)

/*
 * Take a started shell: pid (its own process group), fd (its output, the
 * read end), tag (its TANDEM_COMMAND_ID=..., for its orphans).  Writes
 * the sentence for the model into out.  Returns the shell's number.
 */
int	bgshell_adopt(struct ev_loop *, pid_t pid, int fd, const char *tag,
	    const char *command, struct buf *out);
/* Run a shell_op tool with input, into out. */
void	bgshell_run(const struct tool_def *, const cJSON *input, struct tool_out *out);
/* End every shell now (also done at exit). */
void	bgshell_end_all(void);
/*
 * bash_output and kill_shell for ids that are not a shell's (a background
 * subagent's agent_N): fn(arg, op, id, out) returns true when it knew the
 * id (one hook; NULL: none).
 */
void	bgshell_on_other(bool (*fn)(void *, enum tool_shell_op, const char *id, struct tool_out *),
	    void *arg);
/* Call fn(arg) each time a shell ends (one hook; NULL: none). */
void	bgshell_on_end(void (*fn)(void *), void *arg);
/* How many shells are still running. */
int	bgshell_running(void);
/* The running shells, as "bash_N (`command`)" joined by ", ", into out; how many. */
int	bgshell_describe(struct buf *out);

#endif
