/* The one map between tandem's tool names and Claude Code's: see toolnames.h. */
#include "autoconf.h"

#include <string.h>

#include "toolnames.h"
#include "xalloc.h"

/*
 * One line per Claude Code name; append new tools' lines.  The first line
 * of a tandem tool gives the name shown for it.
 */
const struct toolname toolnames[] = {
	/* Claude Code		tandem		a rule also covers */
	{ "Bash",		"run_bash",	{ NULL } },
	{ "Edit",		"edit_file",	{ "write_file", "apply_patch" } },
	{ "MultiEdit",		"edit_file",	{ NULL } },
	{ "Write",		"write_file",	{ NULL } },
	{ "Read",		"read_file",	{ "grep", "glob", "list_dir" } },
	{ "Grep",		"grep",		{ NULL } },
	{ "Glob",		"glob",		{ NULL } },
	{ "LS",			"list_dir",	{ NULL } },
	{ "BashOutput",		"bash_output",	{ NULL } },
	{ "TaskOutput",		"bash_output",	{ NULL } },
	{ "KillShell",		"kill_shell",	{ NULL } },
	{ "KillBash",		"kill_shell",	{ NULL } },
	{ "TaskStop",		"kill_shell",	{ NULL } },
	{ "WebFetch",		"web_fetch",	{ NULL } },
	{ "WebSearch",		"web_search",	{ NULL } },
	{ "TodoWrite",		"todo_write",	{ NULL } },
	{ "TaskCreate",		"todo_write",	{ NULL } },
	{ "TaskUpdate",		"todo_write",	{ NULL } },
	{ "TaskList",		"todo_write",	{ NULL } },
	{ "Agent",		"agent",	{ NULL } },
	{ "Task",		"agent",	{ NULL } },
	{ "AskUserQuestion",	"ask_user",	{ NULL } },
	{ "ExitPlanMode",	"exit_plan",	{ NULL } },
	{ "LSP",		"code",		{ NULL } },
	{ "NotebookEdit",	NULL,		{ NULL } },
	{ "NotebookRead",	NULL,		{ NULL } },
	{ "SlashCommand",	NULL,		{ NULL } },
	{ "Skill",		"skill",	{ NULL } },
};

const size_t toolnames_n = sizeof(toolnames) / sizeof(toolnames[0]);

const struct toolname *
toolname_find(const char *cc)
{
	size_t i;

	for (i = 0; cc != NULL && i < toolnames_n; i++)
		if (strcmp(toolnames[i].cc, cc) == 0)
			return &toolnames[i];
	return NULL;
}

const char *
toolname_tandem(const char *name)
{
	const struct toolname *t = toolname_find(name);

	return t != NULL && t->tandem != NULL ? t->tandem : name;
}

const char *
toolname_cc_next(const char *tandem, size_t *i)
{
	for (; tandem != NULL && *i < toolnames_n; (*i)++)
		if (toolnames[*i].tandem != NULL && strcmp(toolnames[*i].tandem, tandem) == 0)
			return toolnames[(*i)++].cc;
	return NULL;
}

const char *
toolname_cc(const char *tandem)
{
	size_t i = 0;

	return toolname_cc_next(tandem, &i);
}

const char *
toolname_cc_or_self(const char *tandem)
{
	const char *cc = toolname_cc(tandem);

	return cc != NULL ? cc : tandem;
}

bool
toolname_is_mcp(const char *name)
{
	return name != NULL && strncmp(name, "mcp__", 5) == 0 && name[5] != '\0';
}

char *
toolname_mcp_scope(const char *name)
{
	const char *sep;
	size_t n;
	char *s;

	if (!toolname_is_mcp(name))
		return NULL;
	sep = strstr(name + 5, "__");
	if (sep == NULL) {
		n = strlen(name);
		s = xmalloc(n + 3);
		memcpy(s, name, n);
		memcpy(s + n, "__", 3);
		return s;
	}
	if (strcmp(sep, "__*") == 0)
		return xstrndup(name, (size_t)(sep - name) + 2);
	return xstrdup(name);
}

bool
toolname_mcp_covers(const char *scope, const char *tool)
{
	size_t n;

	if (scope == NULL || tool == NULL)
		return false;
	n = strlen(scope);
	return n > 2 && strcmp(scope + n - 2, "__") == 0 ? strncmp(tool, scope, n) == 0 :
	    strcmp(tool, scope) == 0;
}
