/*
 * subhost: the session's side of the subagents (agent/sub/subagent.h):
 * their conversations, and the tool finder that knows the agent tool.
 */
#ifndef TANDEM_SUBHOST_H
#define TANDEM_SUBHOST_H

#include <cjson/cJSON.h>

#include "buf.h"
#include "tool.h"

struct agent;
struct conversation;

/* The session's subagents (a->subs), once its conversations can be made. */
void	 subhost_start(struct agent *);
/* The scheduler's finder (arg: the conversation): the agent tool, then the MCP tools. */
const struct tool_def *subhost_find(void *arg, const char *name);
int	 subhost_resolve(void *arg, char **name, cJSON **input, struct buf *why);
/* The agent tool joins the conversation's tools (the main one's). */
void	 subhost_tools(struct conversation *);

#endif
