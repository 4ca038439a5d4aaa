/*
 * skill: skills, the cross-agent SKILL.md standard, and the skill tool.
 *
 * A skill is a folder holding SKILL.md: front matter (name, description,
 * allowed-tools, argument-hint, disable-model-invocation, user-invocable,
 * license, compatibility, metadata) and a body of instructions; other
 * files beside it (templates, rules, scripts) are its own.  Folders, the
 * first of a name winning: <root>/.tandem/skills, <root>/.claude/skills,
 * <config_dir>/skills, ~/.claude/skills.
 *
 * Only each skill's name and description go in the system prompt; the
 * skill tool ("skill", Claude Code's Skill) gives the model a skill's body
 * when it asks, with the list of files beside it, and one of those files
 * when asked for it.
 *
 * struct skill_list owns its strings; skill_list_release frees them.
 */
#ifndef TANDEM_SKILL_H
#define TANDEM_SKILL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define SKILL_FILE_MAX	(256 * 1024)
#define SKILL_MAX	512	/* skills past this many are not listed */

struct skill_info {
	char	*name;
	char	*description;	/* never NULL */
	char	*dir;		/* the skill's folder, absolute */
	char	*allowed_tools;	/* NULL: none */
	char	*argument_hint;	/* NULL: none */
	char	*model;		/* NULL: none (not honoured: the session's model answers) */
	char	*unknown;	/* front matter fields tandem does not know, ", "-separated; NULL: none */
	bool	 model_invocable;	/* not disable-model-invocation */
	bool	 user_invocable;	/* also a /name command */
	bool	 project;	/* the project's, not the user's */
};

struct skill_list {
	struct skill_info	*v;
	size_t			 n;
};

/* The skills under root, config_dir and home (each may be NULL), sorted by name. */
void	skill_scan(const char *root, const char *config_dir, const char *home, struct skill_list *);
void	skill_list_release(struct skill_list *);
const struct skill_info *skill_find(const struct skill_list *, const char *name);
/* The body of a skill's SKILL.md (front matter left out) into out; 0, or -1 with err. */
int	skill_body(const struct skill_info *, struct buf *out, struct buf *err);

extern const struct tool_def tool_skill;

#endif
