/*
 * grant: what a command's or a skill's allowed-tools lets run without
 * asking, and only while it runs.
 *
 * A custom command's allowed-tools holds for the turn its prompt starts (the
 * grant is keyed by that prompt's text); a skill's from the moment the model
 * loads it (the skill tool) to the end of that turn (keyed by the turn's
 * number).  The entries are permission rules in Claude Code's spelling
 * ("Bash(git add:*)", "Read"), read by perm.c's stricter matcher; deny rules
 * and ask rules of the settings still deny and ask, hooks still run, and a
 * project's command or skill grants nothing until the project is trusted.
 *
 * The list lives in the session's struct config (cfg->grants), which the
 * command expander and the gate both see; it owns its rules.
 */
#ifndef TANDEM_GRANT_H
#define TANDEM_GRANT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "tool.h"

struct config;
struct grants;
struct notices;

struct grants *grant_new(void);
void	grant_free(struct grants *);
/*
 * Rules from allowed_tools ("A, B(x y), C" or space-separated) into a new
 * rule set whose root is root; an entry tandem cannot read is named on
 * notices (may be NULL) with source.  NULL when there is none.
 */
struct perm_rules *grant_rules(const char *allowed_tools, const char *root, const char *source,
	    struct notices *notices);
/* While the turn whose prompt is prompt runs, rules allow (rules are taken). */
void	grant_for_prompt(struct grants *, const char *prompt, struct perm_rules *rules);
/*
 * While the turn whose prompt is prompt runs, the model answers (a
 * command's model).  def names a project's command ("the command /x
 * (path)"), whose model waits for trust when it is dearer (agent.h:
 * agent_project_model); NULL for the user's.
 */
void	grant_model_for_prompt(struct grants *, const char *prompt, const char *model,
	    const char *def);
/* The model a grant names for the turn whose prompt is prompt, and its *def; NULL: the session's. */
const char *grant_model(const struct grants *, const char *prompt, const char **def);
/* From now to the end of turn number turn, rules allow (rules are taken). */
void	grant_for_turn(struct grants *, int turn, struct perm_rules *rules);
/*
 * Does a grant of this turn (its number and prompt) allow the call?  The
 * settings' ask rules (cfg->rules) still ask: a grant never answers them.
 */
bool	grant_allows(const struct grants *, const struct config *, int turn, const char *prompt,
	    const char *tool, enum tool_class, const cJSON *input);

#endif
