/*
 * mcp_config: the MCP servers to run, in Claude Code's shape.
 *
 * {"mcpServers": {"name": {"command", "args", "env", "cwd"} |
 * {"type": "http" | "sse", "url", "headers"}}} from the user's settings,
 * the project's settings, the project's .mcp.json and --mcp-config (a file
 * or inline JSON, repeatable); a later source's server of the same name
 * replaces an earlier one.  ${VAR} and ${VAR:-default} are expanded in
 * command, args, env values, url and header values.
 *
 * A project's servers (.mcp.json and .tandem/settings.json, files a cloned
 * repository brings) run only once the project is trusted and each server
 * is approved: approvals are kept under home (mcp-approved.json), keyed by
 * a hash of all that decides what runs and what it is sent (type, command,
 * args, env, cwd, url, headers), so a changed server asks again; the approval also holds a hash of the tools it then listed,
 * whose change (a description rewritten) asks again too (mcp.c).
 *
 * Names: a server's tools are mcp__<server>__<tool> to the model, the rules
 * and the hooks, each part sanitized to [A-Za-z0-9_-], "__" inside a
 * server name squeezed to "_", the whole at most 64 bytes.
 *
 * struct mcp_config owns everything in it.
 */
#ifndef TANDEM_MCP_CONFIG_H
#define TANDEM_MCP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct buf;
struct config;

#define MCP_NAME_MAX 64

enum mcp_transport {
	MCP_STDIO,
	MCP_HTTP,	/* streamable HTTP */
	MCP_SSE		/* the legacy HTTP+SSE transport */
};

struct mcp_server_cfg {
	char			*name;		/* as configured */
	char			*key;		/* sanitized: the <server> of mcp__<server>__<tool> */
	enum mcp_transport	 type;
	char			*command;
	char			**args;		/* NULL-terminated */
	char			**env;		/* "NAME=value", NULL-terminated */
	char			*cwd;		/* NULL: the workspace root */
	char			*url;
	char			**headers;	/* "Name: value", NULL-terminated */
	char			*source;	/* the file it came from, or "--mcp-config" */
	bool			 project;	/* a project's server: needs approval */
	bool			 approved;	/* may run (always true for the user's own) */
	char			 hash[65];	/* of mcp_server_identity */
	char			 tools_hash[65];	/* approved: of its tools as then listed ("": any) */
	char			*error;		/* why it cannot run (a bad entry), or NULL */
};

struct mcp_config {
	struct mcp_server_cfg	*v;
	size_t			 n;
};

void	mcp_config_init(struct mcp_config *);
void	mcp_config_release(struct mcp_config *);
void	mcp_server_cfg_release(struct mcp_server_cfg *);
/*
 * Add the servers of doc ({"mcpServers": {...}}, or the inner object
 * itself) from source.  A bad server entry is kept with its error (so
 * `tandem mcp list` shows it); a doc that is no object is -1 with a
 * sentence in err.
 */
int	mcp_config_add_json(struct mcp_config *, const cJSON *doc, const char *source,
	    bool project, struct buf *err);
/* --mcp-config ARG: a file, or JSON text when it starts with '{'.  -1 with a sentence in err. */
int	mcp_config_add_arg(struct mcp_config *, const char *arg, struct buf *err);
/*
 * The settings files' mcpServers and, once cfg->trusted, the project's
 * .mcp.json; then the approvals.  Problems go to warnings, one line each.
 */
void	mcp_config_load(struct mcp_config *, const struct config *, struct buf *warnings);
/*
 * Record the approval of a project's server under home, with the hash of
 * its tools' names, descriptions and schemas as they were shown.  0, or
 * -1 with a sentence in err.
 */
int	mcp_config_record(const struct config *, const struct mcp_server_cfg *,
	    const char *tools_hash, struct buf *err);

/*
 * What the approval of s covers, as unambiguous text (each field framed by
 * its length) appended to out: its hash is the approval's key.
 */
void	mcp_server_identity(const struct mcp_server_cfg *, struct buf *out);
/*
 * Every field of s that decides what runs and what it is sent, for a
 * person to read before approving: one "  key: value" line each.
 */
void	mcp_server_describe(const struct mcp_server_cfg *, struct buf *out);

/* Expand ${VAR} and ${VAR:-default} in s into out; -1 naming the unset variable in err. */
int	mcp_expand(const char *s, struct buf *out, struct buf *err);
/*
 * s with every byte outside [A-Za-z0-9_-] made '_', runs of '_' squeezed
 * when squeeze, cut to max bytes (at least 1 byte: "_" for "").  Caller frees.
 */
char	*mcp_sanitize(const char *s, bool squeeze, size_t max);

#endif
