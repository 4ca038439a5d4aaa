/*
 * resume: going on with a session that is on disk.
 *
 * Owns opening or creating the agent's session at start (resume, fork),
 * switching to another session (/resume), reading it again after a failed
 * write, reconciling tool calls that the log shows without results (the
 * process died while they ran), the prompt cache's saved state, and the
 * replay of a conversation as events for a front end.
 */
#ifndef TANDEM_RESUME_H
#define TANDEM_RESUME_H

#include "agent_int.h"

void	 resume_use_session(struct agent *a, struct session *sess);
int	 resume_save_cache(struct agent *a);
void	 resume_load_cache(struct agent *a);
int	 resume_reload(struct agent *a, struct buf *report);
int	 resume_start_session(struct agent *a, const char *resume_id, bool fork, char *err, size_t err_size);
void	 resume_replay_history(struct agent *a);

#endif
