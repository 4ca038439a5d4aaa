/*
 * subhost: the session's side of the subagents (agent/sub/subagent.h):
 * their conversations.
 */
#ifndef TANDEM_SUBHOST_H
#define TANDEM_SUBHOST_H

struct agent;
struct conversation;

/* The session's subagents (a->subs), once its conversations can be made. */
void	 subhost_start(struct agent *);
#endif
