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

#include "turn_int.h"

/* Use sess from now on (the old one is closed): its files, the tools' roots, the hooks. */
void	 resume_use_session(struct conversation *cv, struct session *sess);
/* The prompt cache's fingerprint into the session (cache.json), for a later resume.  0 or -1. */
int	 resume_save_cache(struct conversation *cv);
/* And back (a bad file is ignored: it is advisory). */
void	 resume_load_cache(struct conversation *cv);
/*
 * After a failed write: read the session again from disk (keeping its
 * lock) and show that conversation.  0, or -1 with the reason in report.
 */
int	 resume_reload(struct conversation *cv, struct buf *report);
/*
 * At agent_new: a new session, the session resume_id, or (fork) a new
 * session copied from it.  0, or -1 with a sentence in err.
 */
int	 resume_start_session(struct conversation *cv, const char *resume_id, bool fork, char *err,
	    size_t err_size);
/*
 * What a fork keeps of its source's history beside the messages: the
 * "files" records (not undone) and "turn" records of the turns the
 * messages hold, through turn through (0: all), copied.  Caller frees.
 */
cJSON	*resume_fork_history(const struct session *from, int through, const cJSON *messages);
/*
 * Log that history (taken) into the agent's session: an edit's content
 * copied from src_snap_dir, a command's content named in the store's refs.
 * 0, or -1 with the session failed.
 */
int	 resume_adopt_history(struct conversation *cv, cJSON *hist, const char *src_snap_dir);
/* Show the conversation to the front end as the events that made it (replay: true). */
void	 resume_replay_history(struct conversation *cv);

#endif
