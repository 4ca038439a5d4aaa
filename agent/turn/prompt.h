/*
 * prompt: what the model is told before the conversation.
 *
 * Owns the static system prompt (cacheable, the same for every session),
 * the dynamic part (date, workspace, git branch, SessionStart context,
 * memory files), the tools' schemas as the request sends them, and which
 * tools the settings disable, and when the MCP servers' tools join them.
 */
#ifndef TANDEM_PROMPT_H
#define TANDEM_PROMPT_H

#include "turn_int.h"

/*
 * A conversation's prompt (struct prompt_state, prompt.c's): the static
 * system prompt, the dynamic one, the tools' schemas.
 */
struct prompt_state *prompt_new(const struct config *cfg);
void	 prompt_free(struct prompt_state *);
/* The schemas the request sends; a conversation being opened adds to them and filters them. */
cJSON	*prompt_tools(const struct conversation *cv);
const char *prompt_sys_static(const struct conversation *cv);
/* NULL until the first prompt builds it (prompt_build_dynamic). */
const char *prompt_sys_dynamic(const struct conversation *cv);
/* A subagent type's system prompt (NULL or empty: the session's). */
void	 prompt_set_static(struct conversation *cv, const char *text);

/*
 * What the session's dynamic prompt says (struct prompt_facts, prompt.c's):
 * the memory files, loaded when it is made, and their report; the
 * SessionStart hooks' context; a wire host's prompt (agent_set_host_prompt).
 */
struct prompt_facts *prompt_facts_new(const struct config *cfg);
void	 prompt_facts_free(struct prompt_facts *);
/* The SessionStart hooks' context (taken; NULL: none), for the next dynamic prompt. */
void	 prompt_set_session_context(struct agent *a, char *text);
/* The memory files' report, for /memory. */
const char *prompt_memory_report(const struct agent *a);

/* Does the comma-separated list (NULL: empty) hold word? */
bool	 prompt_listed(const char *list, const char *word);
/* Is the tool name disabled by the settings (disabled_tools), itself or the tool it needs? */
bool	 prompt_tool_disabled(const struct config *cfg, const char *name);
/* Build the dynamic part of the system prompt again (before each prompt's first call). */
void	 prompt_build_dynamic(struct conversation *cv);
/* The schemas of the tools the settings leave on, as the request sends them. */
cJSON	*prompt_tools_json(const struct config *cfg);
/* The whole system prompt as one text (the caller frees it). */
char	*prompt_system_text(const struct conversation *cv);
/* The estimated tokens (bytes / 4) of the next request: system prompt, tools, messages. */
int64_t	 prompt_estimate(const struct conversation *cv);

/* Start the configured MCP servers in the background; their tools are taken at the first request (agent_mcp_wait). */
void	 prompt_mcp_start(struct conversation *cv);

/* The scheduler's finder (arg: the conversation): the agent tool, then the MCP tools. */
const struct tool_def *prompt_find(void *arg, const char *name);
int	 prompt_resolve(void *arg, char **name, cJSON **input, struct buf *why);
/* The agent tool joins the conversation's tools (the main one's). */
void	 prompt_sub_tools(struct conversation *);

#endif
