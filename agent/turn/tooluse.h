/*
 * tooluse: the scheduler's callbacks after the gate (gate.h).
 *
 * Owns what happens around a tool call that may run: the crash point at
 * its start, its output as tool_progress events (redacted, the newest
 * bytes only past a few MB), and its end: the effects ledger, the files
 * record and their snapshots (so a rewind can be redone), the tool_result
 * event and the PostToolUse hooks, whose words join the result.  When the
 * last call is done the turn settles (agent_settle).
 */
#ifndef TANDEM_TOOLUSE_H
#define TANDEM_TOOLUSE_H

#include "turn_int.h"

struct tooluse_guard;
struct tooluse_progress;

/*
 * The session's guard of the protected names (tooluse.c's): freed at the
 * session's end, the background shells it holds for ended first.  The
 * user's own command pauses it, and what it made is the user's.
 */
struct tooluse_guard *tooluse_guard_new(void);
void	 tooluse_guard_free(struct tooluse_guard *);
void	 tooluse_guard_pause(struct conversation *cv);
void	 tooluse_guard_resume_user(struct conversation *cv);
/* A conversation's running call's output (tooluse.c's). */
struct tooluse_progress *tooluse_progress_new(void);
void	 tooluse_progress_free(struct tooluse_progress *);

/* The scheduler's callbacks for agent a: the gate, then these. */
void	 tooluse_ops(struct conversation *cv, struct sched_ops *ops);
/*
 * At the end of a turn: the background shells still running are named in
 * a record of the turn (wsnap_note_record), since what they change from
 * then on is in no snapshot.  0, or -1 when the log could not be written.
 */
int	 tooluse_turn_end(struct conversation *cv);
/* With the sandbox in workspace-write mode: the protected names' watch begins (protect.h). */
void	 tooluse_protect_warm(struct conversation *cv);

#endif
