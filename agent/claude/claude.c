/* A session's skills, and the agent's calls into agent/claude/: see claude.h. */
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "skill.h"
#include "xalloc.h"

#include "claude/claude.h"
#include "claude/grant.h"
#include "claude/notice.h"
#include "agent.h"
#include "commands.h"
#include "config/config.h"
#include "context/memory.h"
#include "rules/perm.h"

#define CLAUDE_NESTED_MAX	64	/* nested memory files loaded in one session */

struct claude {
	const struct config	*cfg;
	struct skill_list	 skills;
	char			*nested[CLAUDE_NESTED_MAX];	/* the directories whose CLAUDE.md was looked for */
	size_t			 nnested;
	struct buf		 nested_report;	/* what /memory adds */
	char			*model_before;	/* the session's model while a command's turn runs */
};

/* Claude Code's subagents (.claude/agents): read by nothing yet, so named. */
/* The skills' and commands' fields that tandem does not honour (subagents: sub/subtype.h). */
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
		/* An allowed-tools entry tandem cannot read is named now, not when it is used. */
		perm_rules_free(grant_rules(s->allowed_tools, cfg->root, buf_cstr(&path), cfg->notices));
	}
	buf_release(&path);
	/* The commands' front matter goes on the list as they are read. */
	commands_scan(cfg, &cl);
	for (i = 0; i < cl.n; i++)
		if (!cl.v[i].skill)
			perm_rules_free(grant_rules(cl.v[i].allowed_tools, cfg->root, cl.v[i].path,
			    cfg->notices));
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
	buf_init(&c->nested_report, BUF_NOLIMIT);
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
	while (c->nnested > 0)
		free(c->nested[--c->nnested]);
	buf_release(&c->nested_report);
	free(c->model_before);
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

/* Was dir (relative to the root) looked at before?  Remembers it if not. */
static bool
claude_nested_seen(struct claude *c, const char *dir)
{
	size_t i;

	for (i = 0; i < c->nnested; i++)
		if (strcmp(c->nested[i], dir) == 0)
			return true;
	if (c->nnested == CLAUDE_NESTED_MAX)
		return true;
	c->nested[c->nnested++] = xstrdup(dir);
	return false;
}

/* The file tools and the member that names where they work. */
static const char *const claude_path_tools[] = {
	"read_file", "edit_file", "write_file", "list_dir", "glob", "grep", NULL
};

void
claude_nested_memory(struct claude *c, const char *tool, const cJSON *input, struct buf *result)
{
	struct buf dir = BUF_INIT(BUF_NOLIMIT), path = BUF_INIT(BUF_NOLIMIT);
	struct buf text = BUF_INIT(BUF_NOLIMIT), report = BUF_INIT(BUF_NOLIMIT);
	const char *p, *root;
	char *real = NULL;
	struct stat st;
	size_t i, rl, end;
	bool file_tool = false;

	if (c == NULL)
		return;
	for (i = 0; claude_path_tools[i] != NULL; i++)
		file_tool = file_tool || strcmp(claude_path_tools[i], tool) == 0;
	p = json_str(input, "path", NULL);
	root = c->cfg->root;
	if (!file_tool || p == NULL || p[0] == '\0')
		goto out;
	if (p[0] == '/')
		buf_puts(&path, p);
	else
		buf_printf(&path, "%s/%s", root, p);
	real = realpath(buf_cstr(&path), NULL);
	rl = strlen(root);
	if (real == NULL || strncmp(real, root, rl) != 0 || (real[rl] != '/' && real[rl] != '\0'))
		goto out;
	/* The directory the call works in, then each one above it below the root. */
	buf_puts(&dir, real + rl + (real[rl] == '/'));
	if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode)) {
		const char *slash = strrchr(buf_cstr(&dir), '/');

		buf_truncate(&dir, slash != NULL ? (size_t)(slash - dir.data) : 0);
	}
	while (dir.len > 0) {
		if (!claude_nested_seen(c, buf_cstr(&dir))) {
			buf_reset(&path);
			buf_printf(&path, "%s/%s/CLAUDE.md", root, buf_cstr(&dir));
			if (access(buf_cstr(&path), R_OK) == 0)
				memory_load_one(c->cfg, buf_cstr(&path), &text, &report);
		}
		end = dir.len;
		while (end > 0 && dir.data[end - 1] != '/')
			end--;
		buf_truncate(&dir, end > 0 ? end - 1 : 0);
	}
	if (text.len > 0) {
		buf_printf(result, "\n\n[Memory for the files here, which you follow as the project's "
		    "instructions:]\n%s", buf_cstr(&text));
		buf_puts(&c->nested_report, buf_cstr(&report));
	}
out:
	free(real);
	buf_release(&dir);
	buf_release(&path);
	buf_release(&text);
	buf_release(&report);
}

void
claude_memory_report(const struct claude *c, struct buf *out)
{
	if (c != NULL && c->nested_report.len > 0)
		buf_printf(out, "Loaded when the model worked in their folders:\n%s",
		    buf_cstr(&c->nested_report));
}

void
claude_turn_start(struct claude *c, struct agent *a, const char *prompt)
{
	const char *m, *def;

	if (c == NULL || (m = grant_model(c->cfg->grants, prompt, &def)) == NULL)
		return;
	/* A project's command may pick a dearer model only once the project is trusted. */
	if (def != NULL && (m = agent_project_model(a, def, m)) == NULL)
		return;
	if (strcmp(m, agent_model(a)) == 0)
		return;
	free(c->model_before);
	c->model_before = xstrdup(agent_model(a));
	agent_set_model(a, m);
}

void
claude_turn_end(struct claude *c, struct agent *a)
{
	if (c == NULL || c->model_before == NULL)
		return;
	agent_set_model(a, c->model_before);
	free(c->model_before);
	c->model_before = NULL;
}
