/*
 * toolnames: the one map between tandem's tool names and Claude Code's.
 *
 * Users bring Claude Code's names in permission rules ("Bash(git *)"),
 * hook matchers, agent definitions' tools: lists and the SDKs' flags; the
 * SDKs and editors read them back in stream-json and ACP.  Every one of
 * those places asks this table, so a tool's Claude Code name is written
 * once: one line in toolnames.c.
 *
 * A line is one Claude Code name.  Several names may stand for one tandem
 * tool (Agent and Task are both agent); the first line of a tandem tool
 * gives the name shown for it.  A line whose tandem tool is NULL names a
 * Claude Code tool tandem lacks: rules and matchers of that name load and
 * cover nothing.  MCP tools are named alike on both sides
 * (mcp__server__tool).
 */
#ifndef TANDEM_TOOLNAMES_H
#define TANDEM_TOOLNAMES_H

#include <stdbool.h>
#include <stddef.h>

#define TOOLNAME_COVERS	4	/* tandem tools one permission rule name covers */

struct toolname {
	const char	*cc;		/* Claude Code's name: "Bash" */
	const char	*tandem;	/* tandem's tool: "run_bash"; NULL: tandem has none */
	/* What a permission rule of this name also covers, as Claude Code means it (Edit: write_file too). */
	const char	*also[TOOLNAME_COVERS - 1];
};

/* The table, in order; toolnames_n lines. */
extern const struct toolname	toolnames[];
extern const size_t		toolnames_n;

/* The line of a Claude Code name, or NULL. */
const struct toolname *toolname_find(const char *cc);
/* tandem's name for a Claude Code name; any other name (tandem's own, MCP) as it is; NULL for NULL. */
const char	*toolname_tandem(const char *name);
/* The Claude Code name shown for a tandem tool, or NULL when it has none. */
const char	*toolname_cc(const char *tandem);
/* The Claude Code name shown for a tool, else its own name (for the wire formats). */
const char	*toolname_cc_or_self(const char *tandem);
/*
 * The Claude Code names of a tandem tool, one a call: start with *i = 0;
 * NULL when there are no more.
 */
const char	*toolname_cc_next(const char *tandem, size_t *i);
/* Whether name is an MCP tool's (mcp__server__tool, or mcp__server__ for all of a server's). */
bool		 toolname_is_mcp(const char *name);
/*
 * What an MCP name in a permission rule or an agent's tools: list covers,
 * as Claude Code reads it: "mcp__server__" (every tool of the server) for
 * mcp__server, mcp__server__* and mcp__server__; the tool's own name for
 * mcp__server__tool.  NULL for a name that is no MCP name.  Caller frees.
 */
char		*toolname_mcp_scope(const char *name);
/* Whether scope (from toolname_mcp_scope) covers the tool named tool. */
bool		 toolname_mcp_covers(const char *scope, const char *tool);

#endif
