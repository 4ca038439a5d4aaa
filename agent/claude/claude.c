/* A session's skills, and the agent's calls into agent/claude/: see claude.h. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "skill.h"
#include "xalloc.h"

#include "claude/claude.h"
#include "claude/grant.h"
#include "claude/notice.h"
#include "commands.h"
#include "config/config.h"

struct claude {
	const struct config	*cfg;
	struct skill_list	 skills;
};

/* Claude Code's subagents (.claude/agents): read by nothing yet, so named. */
static void
claude_agents(const char *base, struct notices *notices)
{
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	if (base == NULL)
		return;
	buf_printf(&dir, "%s/.claude/agents", base);
	if ((d = opendir(buf_cstr(&dir))) != NULL) {
		while ((e = readdir(d)) != NULL)
			n += e->d_name[0] != '.';
		closedir(d);
	}
	if (n > 0)
		notice_add(notices, "subagents folder", buf_cstr(&dir), NULL,
		    "tandem runs no subagents yet; their prompts are not read");
	buf_release(&dir);
}

/* The skills' and commands' fields, and subagents, that tandem does not honour. */
static void
claude_scan_notices(const struct config *cfg, const struct skill_list *skills)
{
	struct command_list cl;
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (i = 0; i < skills->n; i++) {
		const struct skill_info *s = &skills->v[i];

		buf_reset(&path);
		buf_printf(&path, "%s/SKILL.md", s->dir);
		if (s->unknown != NULL)
			notice_add(cfg->notices, "skill field", s->unknown, buf_cstr(&path),
			    "not a field tandem knows");
		if (s->model != NULL)
			notice_add(cfg->notices, "skill field", "model", buf_cstr(&path),
			    "the session's model answers; /model changes it");
	}
	claude_agents(cfg->root, cfg->notices);
	claude_agents(getenv("HOME"), cfg->notices);
	buf_release(&path);
	/* The commands' front matter goes on the list as they are read. */
	commands_scan(cfg, &cl);
	commands_list_release(&cl);
}

void
claude_notices(const struct config *cfg)
{
	struct skill_list l;

	skill_scan(cfg->root, cfg->config_dir, getenv("HOME"), &l);
	claude_scan_notices(cfg, &l);
	skill_list_release(&l);
}

struct claude *
claude_new(const struct config *cfg)
{
	struct claude *c = xcalloc(1, sizeof *c);

	c->cfg = cfg;
	skill_scan(cfg->root, cfg->config_dir, getenv("HOME"), &c->skills);
	claude_scan_notices(cfg, &c->skills);
	return c;
}

void
claude_free(struct claude *c)
{
	if (c == NULL)
		return;
	skill_list_release(&c->skills);
	free(c);
}

bool
claude_has_skills(const struct config *cfg)
{
	struct skill_list l;
	bool any = false;
	size_t i;

	skill_scan(cfg->root, cfg->config_dir, getenv("HOME"), &l);
	for (i = 0; i < l.n; i++)
		any = any || l.v[i].model_invocable;
	skill_list_release(&l);
	return any;
}

void
claude_prompt(const struct claude *c, struct buf *out)
{
	size_t i, n = 0;

	if (c == NULL)
		return;
	for (i = 0; i < c->skills.n; i++) {
		const struct skill_info *s = &c->skills.v[i];

		if (!s->model_invocable)
			continue;
		if (n++ == 0)
			buf_puts(out, "\n# Skills\n\nWhen one of these fits the task, load it with the "
			    "skill tool before you start, and follow it.\n");
		buf_printf(out, "- %s: %s\n", s->name, s->description);
	}
}

void
claude_report(const struct claude *c, struct buf *out)
{
	size_t i;

	if (c == NULL || c->skills.n == 0) {
		buf_puts(out, "No skills: none in .tandem/skills, .claude/skills, the config "
		    "directory's skills or ~/.claude/skills.\n");
		return;
	}
	buf_printf(out, "Skills (%zu):\n", c->skills.n);
	for (i = 0; i < c->skills.n; i++) {
		const struct skill_info *s = &c->skills.v[i];

		buf_printf(out, "  %-28s %s\n      %s (%s%s%s)\n", s->name, s->description, s->dir,
		    s->project ? "project" : "user",
		    s->model_invocable ? "" : ", only as a /command",
		    s->user_invocable ? "" : ", not a /command");
	}
}

bool
claude_gate(struct claude *c, int turn, const char *prompt, const char *tool, enum tool_class cls,
    const cJSON *input)
{
	const struct skill_info *s;
	struct buf path = BUF_INIT(BUF_NOLIMIT);

	if (c == NULL)
		return false;
	if (strcmp(tool, "skill") == 0 && json_str(input, "file", NULL) == NULL &&
	    (s = skill_find(&c->skills, json_str(input, "name", NULL))) != NULL &&
	    s->allowed_tools != NULL && (!s->project || c->cfg->trusted)) {
		buf_printf(&path, "%s/SKILL.md", s->dir);
		grant_for_turn(c->cfg->grants, turn,
		    grant_rules(s->allowed_tools, c->cfg->root, buf_cstr(&path), c->cfg->notices));
	}
	buf_release(&path);
	return grant_allows(c->cfg->grants, c->cfg, turn, prompt, tool, cls, input);
}
