/*
 * mcp_int: what the MCP client's files share (mcp.c: the servers' lifecycle,
 * calls, the proxy and the registry; mcp_tools.c: a server's tool set, its
 * names and schemas; mcp_cmd.c: `tandem mcp list|approve` and the report;
 * mcp_res.c: the servers' prompts and resources, and a prompt's expansion).
 * Not for use outside mcp*.c: the rest of tandem uses mcp.h.
 */
#ifndef TANDEM_MCP_INT_H
#define TANDEM_MCP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "mcp.h"
#include "mcp_config.h"
#include "tool.h"

#define MCP_INIT_TIMEOUT_MS	30000
#define MCP_PAGES_MAX		100
#define MCP_BACKOFF_MAX_MS	30000
#define MCP_IMAGES_MAX		(8 * 1024 * 1024)
#define MCP_PROGRESS_TIMES	10	/* progress keeps a call alive up to this many timeouts */


enum mcp_state {
	MCP_OFF,	/* not run: not approved, or a bad entry */
	MCP_STARTING,
	MCP_READY,
	MCP_DEAD	/* exited or failed; started again on its next use */
};

/* By enum mcp_state. */
extern const char *const mcp_state_names[];

enum mcp_req_kind {
	MCP_REQ_INIT,
	MCP_REQ_LIST,
	MCP_REQ_CALL,
	MCP_REQ_PAGE,		/* a page of prompts/list or resources/list (mcp_res.c) */
	MCP_REQ_FETCH		/* prompts/get or resources/read for a prompt (mcp_res.c) */
};

enum mcp_pager_kind { MCP_PROMPTS, MCP_RESOURCES, MCP_PAGERS };

/* A list other than the tools, read page by page: the server's prompts or resources. */
struct mcp_pager {
	bool			 offered;	/* the server declared the capability */
	bool			 busy, again;
	int			 pages;
	cJSON			*acc;		/* the items of the pages so far */
	cJSON			*list;		/* the last whole list (an array), or NULL */
};

struct mcp_fetch;

struct mcp_call;
struct mcp_server;

struct mcp_pending {
	int64_t			 id;
	enum mcp_req_kind	 kind;
	struct mcp_call		*call;
	enum mcp_pager_kind	 pager;		/* MCP_REQ_PAGE */
	struct mcp_fetch	*fetch;		/* MCP_REQ_FETCH */
	struct mcp_pending	*next;
};

struct mcp_tool {
	struct tool_def		 def;
	char			*name, *desc, *schema, *remote;
	struct mcp_server	*srv;
};

struct mcp_toolset {
	struct mcp_tool		*v;
	size_t			 n;
	size_t			 bytes;		/* of their definitions in a request */
	struct mcp_toolset	*older;		/* kept until mcp_free: calls may hold them */
};

struct mcp_server {
	struct mcp		*m;
	struct mcp_server_cfg	 cfg;
	enum mcp_state		 state;
	struct mcp_stdio	*io;
	struct mcp_httpc	*hc;
	struct mcp_stdio	*zombie;	/* a handle given up, freed on the next loop turn */
	struct mcp_httpc	*hzombie;
	uint64_t		 zombie_timer;
	int64_t			 next_id;
	struct mcp_pending	*pending;
	struct mcp_call		*queued;	/* calls waiting for the server to be ready */
	cJSON			*acc;		/* the tools of the pages so far */
	int			 pages;
	bool			 listing, list_again;
	cJSON			*staged;	/* a whole new list, until mcp_sync */
	struct mcp_toolset	*tools;
	char			*error;
	char			*version;
	struct buf		 notes;		/* tools left out, lines skipped */
	unsigned long		 skipped;	/* stdout lines that were no JSON */
	int			 fails;
	int64_t			 retry_at;
	uint64_t		 init_timer;
	bool			 first;		/* its first start: the first request waits for it */
	bool			 reask;		/* a project's server whose tools changed since approval */
	struct mcp_pager	 pager[MCP_PAGERS];
};

struct mcp_call {
	struct mcp		*m;
	struct mcp_server	*srv;
	char			*remote;
	char			*id;
	cJSON			*args;
	tool_async_done_fn	*done;
	tool_async_progress_fn	*progress;	/* NULL: nobody watches */
	void			*arg;
	int64_t			 rpc_id;	/* 0: not sent */
	int64_t			 token;		/* its progressToken */
	int64_t			 progressed;	/* when the server last told progress (0: never) */
	int64_t			 t0;
	uint64_t		 timer, fire;
	bool			 over;
	struct tool_out		 out;
	struct mcp_call		*next;		/* in srv->queued */
};

struct mcp {
	struct ev_loop		*loop;
	struct http		*http;
	struct mcp_opts		 o;
	char			*root;
	struct mcp_server	*srv;
	size_t			 n;
	bool			 deferred;
	void			(*wait_fn)(void *);
	void			*wait_arg;
	uint64_t		 wait_timer, wait_check;
	int64_t			 started;
	struct tool_def		 proxy;
	void			(*changed)(void *, int ready, int total);
	void			*changed_arg;
	int			 told_ready;
};

/* The async side of every MCP tool (mcp.c). */
extern const struct tool_async mcp_tool_async;

/* Is any server still starting? (mcp.c) */
bool			 mcp_starting(const struct mcp *m);

/* A request to s (mcp.c); its id, or -1 when the server did not take it. */
int64_t			 mcp_request(struct mcp_server *s, enum mcp_req_kind kind, const char *method,
			    cJSON *params, struct mcp_call *call);
/* The server is ready when its tools, prompts and resources are listed (mcp.c). */
void			 mcp_maybe_ready(struct mcp_server *s);

/* mcp_res.c */
void			 mcp_pager_start(struct mcp_server *s, enum mcp_pager_kind k);
void			 mcp_pager_answer(struct mcp_server *s, enum mcp_pager_kind k,
			    const cJSON *result, const cJSON *error);
bool			 mcp_pagers_busy(const struct mcp_server *s);
void			 mcp_pagers_release(struct mcp_server *s);
void			 mcp_fetch_answer(struct mcp_fetch *f, const cJSON *result, const cJSON *error);
void			 mcp_fetch_failed(struct mcp_fetch *f, const char *why);
void			 mcp_res_report(const struct mcp_server *s, struct buf *out);

/* mcp_tools.c */
void			 mcp_toolset_free(struct mcp_toolset *ts);
char			*mcp_cut(const char *s, size_t max);
struct mcp_toolset	*mcp_toolset_build(struct mcp_server *s, const cJSON *list, struct buf *notes);
void			 mcp_toolset_hash(const struct mcp_toolset *ts, char hex[65]);

#endif
