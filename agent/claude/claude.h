/*
 * claude: a session's skills, and the agent's few calls into agent/claude/.
 *
 * At start it reads the skills (tools/skill.h) and the custom commands
 * once, so that the fields they hold and tandem does not honour are on the
 * never-silent list before the front end shows it.  Only each skill's name
 * and description go in the system prompt (claude_prompt); the skill tool
 * gives a body on demand, and when the model loads a skill its
 * allowed-tools hold to the end of the turn (claude_gate, grant.h).
 *
 * struct claude is the agent's (its one pointer, a->claude); claude_free frees it.
 */
#ifndef TANDEM_CLAUDE_H
#define TANDEM_CLAUDE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "tool.h"

struct agent;
struct buf;
struct claude;
struct config;

struct claude *claude_new(const struct config *);
/* Only the notices claude_new would add, for `tandem config`. */
void	claude_notices(const struct config *);
void	claude_free(struct claude *);
/* Are there skills to offer (the skill tool is left out otherwise)? */
bool	claude_has_skills(const struct config *);
/* The skills' section of the system prompt's dynamic part, appended to out (nothing if none). */
void	claude_prompt(const struct claude *, struct buf *out);
/* What /skills shows. */
void	claude_report(const struct claude *, struct buf *out);
/*
 * At the gate, for every call: a call of the skill tool starts that skill's
 * allowed-tools for the rest of turn; true when a command's or a skill's
 * grant of this turn allows the call (the settings' ask rules still ask).
 */
bool	claude_gate(struct claude *, int turn, const char *prompt, const char *tool,
	    enum tool_class, const cJSON *input);

/*
 * After a file tool's call: the CLAUDE.md of each folder from the one it
 * worked in up to (not including) the root, not read before in this
 * session, appended to its result (with their imports, memory.h).
 */
void	claude_nested_memory(struct claude *, const char *tool, const cJSON *input,
	    struct buf *result);
/*
 * A turn starts with prompt: when a custom command's model was given for it
 * (grant.h), the agent changes to that model; claude_turn_end changes back.
 */
void	claude_turn_start(struct claude *, struct agent *, const char *prompt);
void	claude_turn_end(struct claude *, struct agent *);
/* What /memory adds: the nested files loaded so far. */
void	claude_memory_report(const struct claude *, struct buf *out);

#endif
