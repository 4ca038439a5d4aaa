/*
 * lsp_int: what the files of agent/lsp/ share (private to the folder).
 *
 * struct lsp owns its definitions (one per server kind), each definition
 * its one running server (the workspace is the one root), and the
 * documents the tools have touched.  A server's state changes reach the
 * waiting edits and code calls through lsp_poke().
 */
#ifndef TANDEM_LSP_INT_H
#define TANDEM_LSP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "lsp.h"
#include "lsp_rpc.h"

#define LSP_LOG_KEEP		(8u * 1024)
#define LSP_QUEUE_MAX		(64u * 1024 * 1024)
#define LSP_FILE_MAX		(4u * 1024 * 1024)	/* documents past this are not sent */
#define LSP_START_MS		20000	/* initialize answered within (startupTimeout) */
#define LSP_REQUEST_MS		10000	/* a code request answered within */
#define LSP_FLOOD_BYTES		(32u * 1024 * 1024)	/* a second's output past this is a flood */
#define LSP_MAX_RESTARTS	3
#define LSP_ERRORS_SHOWN	10	/* new errors listed per file */

enum lsp_state { LSP_OFF = 0, LSP_STARTING, LSP_READY, LSP_STOPPING, LSP_DEAD };

struct lsp_server;

/* A server kind: a settings entry or a built-in default. */
struct lsp_def {
	char		*name;
	char		*command;
	char		**args;		/* NULL-ended */
	char		**env;		/* "NAME=value", NULL-ended; NULL: none */
	char		**exts;		/* ".c", NULL-ended */
	char		**langs;	/* the languageId of each of exts */
	cJSON		*init_options;	/* initializationOptions, or NULL */
	cJSON		*settings;	/* answered to workspace/configuration, or NULL */
	int		 start_ms;
	int		 max_restarts;
	int		 failures;	/* unexpected ends so far */
	int64_t		 retry_at;	/* no restart before (backoff) */
	bool		 dropped;	/* gave up: told once, never started again */
	struct lsp_server *srv;		/* NULL: not running */
	struct lsp_def	*next;
};

/* A file a tool read or wrote. */
struct lsp_doc {
	char		*rel;		/* relative to the root */
	char		*uri;
	const char	*lang;
	struct lsp_def	*def;
	struct lsp_server *open_in;	/* the server instance it is open in, or NULL */
	int		 version;
	char		*text;		/* as the server has it */
	size_t		 len;
	char		*pending;	/* as it was read while its server started: opened so */
	size_t		 pending_len;
	cJSON		*diags;		/* the newest diagnostics (an array), or NULL */
	int		 diag_version;	/* their version; -1: none yet */
	uint64_t	 diag_seq;	/* publications so far */
	cJSON		*baseline;	/* the error messages when it was first read, or NULL */
	struct lsp_doc	*next;
};

typedef void lsp_reply_fn(struct lsp_server *, void *arg, const cJSON *result, const cJSON *error);

struct lsp_req {
	long		 id;
	lsp_reply_fn	*fn;
	void		*arg;
	struct lsp_req	*next;
};

struct lsp_server {
	struct lsp	*lsp;
	const struct lsp_server_events *ev;	/* the owner's */
	struct lsp_def	*def;
	enum lsp_state	 state;
	pid_t		 pid;
	int		 in, out, err;
	bool		 reaped;
	bool		 cleanly;	/* shutdown was asked: its end is no crash */
	struct buf	 queue;
	struct lsp_frames frames;
	struct buf	 log;
	long		 next_id;
	struct lsp_req	*reqs;
	enum lsp_enc	 enc;
	bool		 pull;		/* it offers textDocument/diagnostic */
	bool		 watch;		/* it registered workspace/didChangeWatchedFiles (or did not say) */
	uint64_t	 timer;		/* the start's or the stop's */
	int64_t		 flood_at;	/* the second being counted */
	size_t		 flood_bytes;
	const char	*why;		/* the sentence of its end, when it was killed */
	char		 why_buf[128];	/* for a why made of parts */
	bool		 closing;	/* lsp_server_close runs: no event reaches the owner */
	long		 shutdown_id;
	uint64_t	 free_timer;	/* ended: freed on the next loop turn */
	struct lsp_server *next;	/* in lsp's list of ended servers not yet freed */
};

/* A conversation's scheduler the servers hold edits of (lsp_new's, lsp_join's). */
struct lsp_join {
	struct lsp		*lsp;
	struct sched		*sched;
	struct lsp_join		*next;
};

struct lsp {
	struct ev_loop		*loop;
	const struct config	*cfg;
	const struct tool_env	*env;
	struct jail		*jail;
	struct jail		*ro_jail;	/* untrusted: the servers' read-only sandbox; lazy */
	struct event_bus	*bus;
	struct lsp_join		*joins;		/* the schedulers whose calls pass through it */
	bool			 told_untrusted;
	int			 wait_ms;
	struct lsp_def		*defs;
	struct lsp_doc		*docs;
	struct lsp_wait		*waits;
	struct lsp_job		*jobs;
	uint64_t		 poke_timer;
	struct lsp_server	*ended;		/* gone, freed on the next loop turn */
	char			*status_last;
	struct tool_def		 code;		/* the code tool, owner = this */
};

/* lsp_conf.c: the definitions from settings, then the built-in ones found on PATH. */
struct lsp_def	*lsp_conf_load(const struct config *, struct buf *warnings);
void		 lsp_def_free(struct lsp_def *);
/* The language of rel's extension in def, or NULL. */
const char	*lsp_def_lang(const struct lsp_def *, const char *rel);

/*
 * What a server tells its owner (lsp.c's): it is ready, it ended (status:
 * its wait status), a notification came.  The server calls nothing above
 * it but these.
 */
struct lsp_server_events {
	void	(*ready)(struct lsp_server *);
	void	(*end)(struct lsp_server *, int status);
	void	(*notify)(struct lsp_server *, const char *method, const cJSON *params);
};

/* lsp_server.c */
/* "WHAT N" to the trace file (TANDEM_LSP_TRACE), for bench/lsp_bench.sh. */
void	lsp_trace_note(const char *what, long long n);
struct lsp_server *lsp_server_start(struct lsp *, struct lsp_def *,
	    const struct lsp_server_events *, struct buf *err);
/* Send a request; fn gets the reply (or an error object when the server ends first). */
void	lsp_server_request(struct lsp_server *, const char *method, cJSON *params,
	    lsp_reply_fn *fn, void *arg);
void	lsp_server_notify(struct lsp_server *, const char *method, cJSON *params);
/* Forget the replies for arg (the waiter went away). */
void	lsp_server_forget(struct lsp_server *, void *arg);
/* Kill it with a sentence (why) for the user; the end is seen on the loop. */
void	lsp_server_fail(struct lsp_server *, const char *why);
/* shutdown, exit, then the signals: politely, within about a second; frees it. */
void	lsp_server_close(struct lsp_server *);
const char *lsp_server_log(const struct lsp_server *);

/* lsp.c */
/* Something changed: move every waiter on. */
void	lsp_poke(struct lsp *);
/* The document for rel (made when mk), with its server definition; NULL when no server takes it. */
struct lsp_doc *lsp_doc_get(struct lsp *, const char *rel, bool mk);
/* Does rel, links followed, stay inside the workspace (or not exist yet)? */
bool lsp_inside(const struct lsp *, const char *rel);
/* Make sure d is open in a ready server: 1 open, 0 not yet (starting), -1 never (no server). */
int	lsp_doc_ensure(struct lsp *, struct lsp_doc *);
/* The server for d running (started when needed); NULL with the reason when it cannot be. */
struct lsp_server *lsp_doc_server(struct lsp *, struct lsp_doc *, const char **why);

/* The file of a file:// uri relative to the root (or absolute outside it); caller frees. */
char	*lsp_uri_path(const struct lsp *, const char *uri);

/* lsp_tool.c */
extern const struct tool_async lsp_code_async;
extern const char lsp_code_schema[];
extern const char lsp_code_description[];
void	lsp_jobs_cancel_all(struct lsp *);

#endif
