/*
 * subtype: the kinds of subagent the agent tool can start.
 *
 * Three are built in (Explore, Plan, general-purpose); the others come
 * from agent definition files in Claude Code's format: Markdown with a
 * YAML-like frontmatter (name, description, tools, disallowedTools, model,
 * maxTurns) whose body is the subagent's system prompt.  They are read
 * from ~/.claude/agents, <root>/.claude/agents and <root>/.tandem/agents;
 * a later source's type of the same name replaces an earlier one's.  The
 * last two are the project's (project): their model waits for trust when
 * it is dearer than the session's (agent.h: agent_project_model).
 * Tool names in tools: lists are Claude Code's, mapped through
 * tools/toolnames; a type that lists Agent (or Task) may start subagents.
 *
 * A list owns its types and their strings: subtype_list_free frees them.
 */
#ifndef TANDEM_SUBTYPE_H
#define TANDEM_SUBTYPE_H

#include <stdbool.h>

#include "buf.h"

struct subtype {
	char		*name;
	char		*description;
	char		*prompt;	/* the system prompt */
	char		**tools;	/* tandem names allowed, NULL-terminated; NULL: the parent's */
	char		**disallowed;	/* tandem names refused, NULL-terminated; NULL: none */
	char		*model;		/* haiku, sonnet, opus, inherit, an id; NULL: inherit */
	int		 max_turns;	/* model calls; 0: no limit of its own */
	bool		 read_only;	/* only the tools that change nothing */
	bool		 may_spawn;	/* it may start subagents of its own */
	bool		 project;	/* from the workspace's .claude/agents or .tandem/agents */
	char		*source;	/* "built-in", or the file it came from */
	char		*ignored;	/* the frontmatter's keys tandem does not honour ("color"), or NULL */
	struct subtype	*next;
};

/*
 * Every type for the workspace root and home (either may be NULL): the
 * built-in ones, then the files' in source order.  Problems with a file
 * (no frontmatter, no name) are added to warn, one sentence a line, and
 * the file is skipped.  Caller frees with subtype_list_free.
 */
struct subtype	*subtype_load(const char *root, const char *home, struct buf *warn);
void		 subtype_list_free(struct subtype *);
/* The type of that name (case-insensitive), or NULL. */
const struct subtype *subtype_find(const struct subtype *, const char *name);
/* Parse one definition file's text; NULL with why on error.  source is kept. */
struct subtype	*subtype_parse(const char *text, const char *source, struct buf *why);
struct tool_def;
/*
 * Whether a type lets its subagent call the tandem tool name; def is the
 * tool's when it is not the table's (an MCP tool), else NULL.  A read-only
 * type has the MCP tools whose server marks them readOnlyHint, and the
 * MCP proxy (its calls are asked again under the tool they resolve to).
 */
bool		 subtype_allows(const struct subtype *, const char *tool, const struct tool_def *def);
/*
 * The model id want (a definition's model: haiku, sonnet, opus, inherit,
 * or an id) means: an alias through Claude Code's ANTHROPIC_DEFAULT_*_MODEL
 * in the environment, else on Anthropic (anthropic) the model it means
 * today, else NULL (the session's, an OpenAI-compatible server having no
 * such models); inherit: NULL; an id as it is.
 */
const char	*subtype_model_id(const char *want, bool anthropic);
/*
 * The list for /agents: a line per type, with where it came from.  held,
 * when not NULL, says of a project's type whether its model waits for
 * trust (arg is its own): it appends the reason to why and returns true.
 */
void		 subtype_describe(const struct subtype *, struct buf *out,
		    bool (*held)(const struct subtype *, void *arg, struct buf *why), void *arg);

#endif
