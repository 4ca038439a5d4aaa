/*
 * emit: the agent's event stream, one constructor per event (DESIGN.md §3).
 *
 * Every event the agent emits is built here, so the stream's schema (each
 * type's name and fields, in their order) lives in this one file; front
 * ends, the session log, hooks and tests read it.  event.h is the bus the
 * events travel on.  A "replay" event repeats one from the log for a front
 * end (replay: true); it carries what the log kept.
 */
#ifndef TANDEM_EMIT_H
#define TANDEM_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct event_bus;
struct usage;
struct cachewatch_break;

/* session: the conversation in use; forked_from NULL leaves the field out. */
void	emit_session(struct event_bus *, const char *id, const char *model,
	    const char *provider, const char *cwd, bool resumed, const char *forked_from);
void	emit_session_unsaved(struct event_bus *, const char *message, const char *dir);
void	emit_turn_start(struct event_bus *, const char *prompt, bool replay);
void	emit_turn_end(struct event_bus *, const char *stop_reason, bool replay);
/* result: the turn's answer and what it cost. */
void	emit_result(struct event_bus *, const char *text, size_t len, const char *stop_reason,
	    bool is_error, int turns, const struct usage *totals, double cost,
	    const char *session_id);
void	emit_text(struct event_bus *, const char *s, size_t n, bool replay);
void	emit_thinking(struct event_bus *, const char *s, size_t n);
void	emit_tool_use(struct event_bus *, const char *id, const char *name,
	    const cJSON *input, bool replay);
void	emit_tool_progress(struct event_bus *, const char *id, const char *p, size_t n);
/* tool_result; denied adds "denied": true (never on a replay). */
void	emit_tool_result(struct event_bus *, const char *id, const char *name, bool is_error,
	    const char *content, size_t len, int64_t duration_ms, bool denied, bool replay);
void	emit_approval(struct event_bus *, const char *id, const char *decision, const char *by);
/* approval_request; always is a NULL-terminated list of rules an "always" adds. */
void	emit_approval_request(struct event_bus *, const char *id, const char *name,
	    const cJSON *input, const char *preview, size_t preview_len, const char *cwd,
	    const char *reason, char *const *always);
void	emit_retry(struct event_bus *, int attempt, int64_t delay_ms, const char *reason);
void	emit_usage(struct event_bus *, const struct usage *, double cost_usd);
void	emit_context(struct event_bus *, int64_t tokens, int64_t window, const char *stage);
/* mcp_servers (may be NULL): the MCP servers whose tools changed before the request. */
void	emit_cache_break(struct event_bus *, const struct cachewatch_break *, const char *mcp_servers);
void	emit_compaction(struct event_bus *, const char *stage, int64_t before, int64_t after);
void	emit_compaction_done(struct event_bus *);
void	emit_rewind(struct event_bus *, const char *what, int to_turn);
/* The usage fields of a result or usage event, as an object (the caller owns it). */
cJSON	*emit_usage_json(const struct usage *);

/* mcp_status: how many of the configured MCP servers are ready. */
void	emit_mcp_status(struct event_bus *bus, int ready, int total);
/* lsp_status: the language servers' state ("clangd ready, gopls starting"). */
void	emit_lsp_status(struct event_bus *bus, const char *servers);

#endif
