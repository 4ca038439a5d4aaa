/*
 * prompt: what the model is told before the conversation.
 *
 * Owns the static system prompt (cacheable, the same for every session),
 * the dynamic part (date, workspace, git branch, SessionStart context,
 * memory files), the tools' schemas as the request sends them, and which
 * tools the settings disable.
 */
#ifndef TANDEM_PROMPT_H
#define TANDEM_PROMPT_H

#include "agent_int.h"

bool	 prompt_tool_disabled(const struct config *cfg, const char *name);
void	 prompt_build_dynamic(struct agent *a);
cJSON *	 prompt_tools_json(const struct config *cfg);
char *	 prompt_system_text(const struct agent *a);
int64_t	 prompt_estimate(const struct agent *a);

#endif
