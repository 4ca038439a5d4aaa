/*
 * call: one streamed model call, for turns and for compaction summaries.
 *
 * Owns the request in flight: building it (credentials, the model's
 * settings, timeouts), the stream it feeds, the HTTP status and error
 * body, the backoff of a retry (honouring Retry-After), the usage totals,
 * and the classification of how the call ended: done, partial (it broke
 * after complete tool calls), retry, overflow, reauth (the key helper may
 * mend a refused key) or fatal, each with one sentence for the user.
 * What to do about an end is the caller's: the turn (agent.c) and the
 * summary (summary.c) decide differently.
 */
#ifndef TANDEM_CALL_H
#define TANDEM_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "ev.h"
#include "model/http.h"
#include "model/stream.h"

struct conversation;
struct call;

enum call_end_kind {
	CALL_DONE,		/* the answer is complete */
	CALL_PARTIAL,		/* it broke off after complete tool calls: go on with them */
	CALL_RETRY,		/* asking again may mend it */
	CALL_OVERFLOW,		/* the request does not fit the window (only with overflow_ok) */
	CALL_REAUTH,		/* the key was refused (only with reauth_ok) */
	CALL_FATAL		/* asking again does not mend it */
};

struct call_end {
	enum call_end_kind	 kind;
	struct http_req		*req;		/* for its headers; only during the callback */
	enum http_fail		 fail;		/* the transport's outcome */
	long			 status;
	const char		*stop_reason;	/* CALL_DONE */
	int			 ntools;	/* CALL_PARTIAL: the tool calls it completed */
	const char		*param_setting;	/* a refused parameter: the setting behind it */
	struct buf		 msg;		/* the sentence for the user */
	struct buf		 cause;		/* the transport's, server's or stream's own words */
};

/* The call ended (exactly once, unless call_cancel came first). */
typedef void call_end_fn(struct conversation *, struct call *, const struct call_end *);

struct call {
	struct http_req		*req;		/* NULL: no call in flight */
	struct stream		*stream;
	long			 status;
	struct buf		 errbody;
	bool			 stall_on_progress;
	bool			 overflow_ok;	/* an overflow ends as CALL_OVERFLOW */
	bool			 reauth_ok;	/* an HTTP 401 ends as CALL_REAUTH */
	call_end_fn		*end;
	struct conversation	*cv;
};

struct call_request {
	const char		*system_static;
	const char		*system_dynamic;	/* may be NULL */
	const cJSON		*tools;			/* may be NULL */
	const cJSON		*messages;
	const struct conv	*conv;		/* or the conversation's, with what it keeps */
	bool			 cache;		/* mark the prompt cache's breakpoints */
	bool			 no_budget;	/* no thinking budget (a summary needs none) */
	bool			 stall_on_progress;	/* only content keeps the stall timer off */
	const struct stream_handler *sh;	/* where the stream's text and blocks go */
	const char		*model;		/* a side call's own model (no thinking, no effort); NULL: the agent's */
};

/* Send the request; end hears how it ended.  max_tokens of it in *max_tokens (may be NULL). */
void	 call_start(struct conversation *, struct call *, const struct call_request *, call_end_fn *end,
	    int *max_tokens);
/* Stop the call in flight; no callback comes from it after this. */
void	 call_cancel(struct call *);
/* Stop the transfer but keep what the stream holds (an interrupted answer); no callback comes. */
void	 call_abort(struct call *);
/* The turn's call: its usage into the totals, the prompt cache's watch and the calibration, as events. */
void	 call_record_usage(struct conversation *);
/* Wall-clock ms (the prompt cache's age survives a restart), shifted by TANDEM_CLOCK_OFFSET_MS. */
int64_t	 call_clock_ms(void);
/* Drop the stream and the error body of a call that ended (or never started). */
void	 call_release(struct call *);
/*
 * A conversation's retries of its turn's call (struct call_retry, call.c's):
 * the attempts, the backoff's timer, the key helper's second run.
 */
struct call_retry *call_retry_new(struct ev_loop *);
/* Free it; its timer is cancelled. */
void	 call_retry_free(struct call_retry *);

/*
 * What the MCP servers said for the session's requests (call.c's struct
 * mcp_notes, a->mcpn): the servers whose tools changed before this
 * request (call_mcp_changed: the buffer mcp_sync fills; the request's
 * cache break names them) and the configuration's warnings, kept for a
 * late subscriber (call_mcp_set_warnings takes w and frees the one
 * before; call_mcp_take_warnings hands them over, NULL: none).
 */
struct agent;
struct mcp_notes *call_mcp_notes_new(void);
void	 call_mcp_notes_free(struct mcp_notes *);
struct buf *call_mcp_changed(struct agent *a);
void	 call_mcp_set_warnings(struct agent *a, char *w);
char	*call_mcp_take_warnings(struct agent *a);
/* A new call of the turn: no attempt made again yet. */
void	 call_retry_reset(struct conversation *);
/* The attempts made of this call, the first one included. */
int	 call_attempts(const struct conversation *);
/* One more attempt, its number and the delay before it; false: none is left (cfg->retries). */
bool	 call_retry_next(struct conversation *, struct http_req *, int *attempt, int64_t *delay);
/* fn(arg) runs after delay ms, unless call_retry_cancel comes first; it calls call_retry_fired. */
void	 call_retry_wait(struct conversation *, int64_t delay, ev_timer_fn *fn, void *arg);
void	 call_retry_fired(struct conversation *);
void	 call_retry_cancel(struct conversation *);
/* A refused key may be asked of the key helper again (once a call); it was. */
bool	 call_reauth_may(const struct conversation *);
void	 call_reauth_tried(struct conversation *);
/* The delay before retry number attempt (1, 2, ...): Retry-After, else jittered backoff. */
int64_t	 call_backoff_ms(struct http_req *, int attempt);
/* Add a call's usage to the session's totals; its cost. */
double	 call_add_usage(struct conversation *, const struct usage *);

#endif
