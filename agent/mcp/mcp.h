/*
 * mcp: the MCP client: the configured servers, their lifecycle on the
 * loop, their tools as tool_defs, and the calls to them.
 *
 * Servers start in the background (mcp_start); nothing waits for them
 * except, a bounded time, the first request of a turn (mcp_wait).  Each
 * server is initialized (protocol version negotiated as the official SDKs
 * do: ask for the newest, accept any supported version the server picks),
 * then its tools are listed (all pages).  A server's requests are always
 * answered: ping, roots/list (the workspace root), -32601 for the rest
 * (sampling, elicitation).  A server that dies fails its pending calls
 * and is started again on its next use, with backoff.
 *
 * Tools: mcp__<server>__<tool> (mcp_config.h), class TOOL_HIGH_IMPACT for
 * the rules and modes whatever the server claims; readOnlyHint only lets
 * a call run in parallel and a read-only subagent (Explore, Plan) have
 * the tool (sub/subtype.h).  A tool list that changes (list_changed, a
 * restart) takes effect at mcp_sync, which the agent calls between turns,
 * so the tools of one turn's requests never change.  Tool defs stay valid
 * until mcp_free.
 *
 * When the tools' definitions would add more than defer_bytes to a
 * request, the model gets one fixed tool instead (MCP_PROXY_TOOL) that
 * searches the MCP tools and calls any of them: the first request stays
 * small and its cached prefix does not move when a server's list does.
 *
 * Prompts and resources (mcp_res.c): a server that declares them has its
 * prompts and resources listed (all pages, again on list_changed) before
 * it counts as ready.  A user's prompt "/mcp__<server>__<prompt> words"
 * becomes the text of prompts/get, its words given to the prompt's
 * declared arguments in order (the last takes the rest of the line); an
 * "@<server>:<uri>" mention in a prompt brings the resource's text
 * (resources/read) as an attachment block.
 *
 * struct mcp owns its servers, tools and calls.
 */
#ifndef TANDEM_MCP_H
#define TANDEM_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "tool.h"

#define MCP_PROXY_TOOL		"mcp"
#define MCP_TIMEOUT_MS		120000
#define MCP_DEFER_BYTES		8192
#define MCP_START_WAIT_MS	5000
#define MCP_RESULT_CAP		(40 * 1024)
#define MCP_SCHEMA_MAX		(16 * 1024)
#define MCP_DESC_MAX		2048

struct buf;
struct ev_loop;
struct http;
struct mcp;
struct mcp_config;

struct mcp_opts {
	long	 timeout_ms;	/* one call; 0: MCP_TIMEOUT_MS */
	long	 defer_bytes;	/* 0: MCP_DEFER_BYTES; -1: never defer */
	long	 start_wait_ms;	/* 0: MCP_START_WAIT_MS */
	const char *root;	/* the workspace root: servers' cwd and the root they are told of */
	const struct tool_env *env;	/* where results spill (env->session_dir) */
};

/* Take over mc's servers (mc is left empty). */
struct mcp	*mcp_new(struct ev_loop *, struct http *, struct mcp_config *mc,
		    const struct mcp_opts *);
struct config;
/*
 * The servers of cfg's settings files, .mcp.json and --mcp-config
 * (mcp_config.h), or NULL when there are none; problems go to warnings.
 * Not started yet (mcp_start).
 */
struct mcp	*mcp_from_config(struct ev_loop *, struct http *, const struct config *,
		    const struct tool_env *env, struct buf *warnings);
/*
 * `tandem mcp list` (start the servers, wait for them a bounded time,
 * report) and `tandem mcp approve` (the project's servers).  0, or -1
 * with a sentence in err.
 */
int		 mcp_command(const struct config *, const char *what, struct buf *out,
		    struct buf *err);
/* mcp_resolve in the shape of sched_set_finder's resolve. */
int		 mcp_resolve_cb(void *mcp, char **name, cJSON **input, struct buf *why);
/* Stops every server (bounded: a server that does not go is killed). */
void		 mcp_free(struct mcp *);
/* Start every approved server in the background. */
void		 mcp_start(struct mcp *);
/* fn hears of every change of the number of ready servers (for a status bar). */
void		 mcp_on_change(struct mcp *, void (*fn)(void *, int ready, int total), void *arg);
/* Servers configured, and ready now. */
int		 mcp_count(const struct mcp *, int *ready);
/*
 * Some server is still starting and its start is younger than
 * start_wait_ms: fn(arg) runs once when none is (or the time is up); true.
 * Otherwise false (fn is not called).
 */
bool		 mcp_wait(struct mcp *, void (*fn)(void *), void *arg);
/*
 * Take in tool lists that changed since the last sync; true when the
 * tools changed.  servers (may be NULL) gets the names, comma-separated,
 * of the servers whose earlier list was replaced.
 */
bool		 mcp_sync(struct mcp *, struct buf *servers);
/* Append the tools the model gets (or the proxy) to arr, in the request's shape. */
void		 mcp_tools_json(struct mcp *, cJSON *arr);
/* The tool of that name (an MCP tool or the proxy), or NULL. */
const struct tool_def *mcp_find(void *mcp, const char *name);
/*
 * The proxy's call of a deferred tool, resolved: *name and *input
 * replaced (the caller frees the old ones) with the tool's own; 0, 1 when
 * it is no proxy call, -1 with a sentence in why (a search is answered by
 * the proxy itself).
 */
int		 mcp_resolve(struct mcp *, char **name, cJSON **input, struct buf *why);
/*
 * A server known by its tools/list "tools" array alone, ready, without a
 * process (benchmarks and tests); a later call with the same name is its
 * list changing.  Only before any server has started.  0, or -1.
 */
int		 mcp_inject(struct mcp *, const char *name, const cJSON *tools);
/* The servers, their state, errors and tools, for `tandem mcp list` and /mcp. */
void		 mcp_report(struct mcp *, bool tools, struct buf *out);
/*
 * Append {name, status} for every server to arr, in Claude Code's words:
 * connected, pending (starting, or not yet started), failed, disabled
 * (a bad entry or one not approved).
 */
void		 mcp_servers_json(const struct mcp *, cJSON *arr);
/*
 * The end of a prompt's expansion: on success prompt is its text (the
 * prompt's own, or the MCP prompt's) and blocks its attachments, one text
 * block per mention, a failed read included as a block saying why; on
 * failure prompt is NULL and error one sentence (nothing should be sent).
 * blocks is the callee's to free either way; notes (not the callee's) has
 * one {path: "server:uri", kind: "mcp", bytes, error} a mention, in the
 * shape of the "attachment" event.
 */
typedef void mcp_expand_fn(void *arg, const char *prompt, cJSON *blocks, const cJSON *notes,
		    const char *error);
struct mcp_expand;
/*
 * Expand prompt: when it is "/mcp__..." or mentions "@<server>:<uri>",
 * wait (bounded, as mcp_wait) for servers still starting, send prompts/get
 * and resources/read, and call done on a later loop turn, the reads
 * bounded by mcp.timeout_ms.  NULL (done is not called) when the prompt
 * uses no MCP server.
 */
struct mcp_expand *mcp_expand_start(struct mcp *, const char *prompt, mcp_expand_fn *done,
		    void *arg);
/* Give up an expansion whose done has not run (done is not called). */
void		 mcp_expand_cancel(struct mcp_expand *);
/* Every server's resources as mentions: "server:uri" and a NUL each, appended to out. */
void		 mcp_mentions(const struct mcp *, struct buf *out);
/* Forget a waiter of mcp_wait (its fn is not called). */
void		 mcp_wait_cancel(struct mcp *);

/* The server's name for an MCP tool name (mcp__s__t), or NULL. */
const char	*mcp_server_of(struct mcp *, const char *tool_name);

#endif
