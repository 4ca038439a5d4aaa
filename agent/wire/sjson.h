/*
 * sjson: Claude Code's stream-json, so the official Agent SDKs drive tandem
 * as their executable (DESIGN.md §12).
 *
 * Output (--output-format stream-json): one JSON message a line on stdout:
 * system/init at the start of each turn; one assistant message (a Messages
 * API message) per model response; a user message per tool result;
 * stream_event messages with --include-partial-messages; a result at the end
 * of each turn (subtype success, error_max_turns or error_during_execution,
 * with usage, modelUsage, total_cost_usd and permission_denials; with
 * --max-budget-usd or --json-schema also error_max_budget_usd,
 * error_max_structured_output_retries and structured_output, wire/ccrun.h).
 * With result_only (--output-format json) the result is all that is written.  tandem's
 * own events (approval, tool_progress, cache_break, compaction, retry,
 * rewind, context, error) are system messages of that subtype.  Every
 * message carries uuid, session_id and parent_tool_use_id.  Tools are named
 * and shaped as Claude Code's (wire.h).
 *
 * Input (--input-format stream-json): user messages and control requests as
 * JSON lines on stdin, any number of turns (a prompt that comes while a
 * turn runs waits for it).  Control requests: initialize, interrupt,
 * set_permission_mode, set_model, mcp_status; any other subtype gets an
 * error control_response.  With host_permissions (--permission-prompt-tool
 * stdio) an approval is asked of the host as a can_use_tool control request;
 * its answer allows (with an updated input, checked against the rules
 * again) or denies (with a message).  At the end of stdin the running turn
 * is given a moment to finish, then interrupted; the output is flushed and
 * sjson_run returns.
 *
 * struct sjson owns its queues and copies; the agent and loop stay the caller's.
 */
#ifndef TANDEM_SJSON_H
#define TANDEM_SJSON_H

#include <stdbool.h>
#include <stddef.h>

struct agent;
struct config;
struct ev_loop;
struct event_bus;
struct sjson;
struct ccrun;

struct sjson_opts {
	struct config		*cfg;		/* must outlive the sjson; initialize's mcpServers join its mcp_flags */
	bool			 input_stream;	/* --input-format stream-json */
	bool			 partial;	/* --include-partial-messages */
	bool			 host_permissions; /* --permission-prompt-tool stdio */
	int			 out_fd;	/* usually 1 */
	int			 in_fd;		/* usually 0; -1: none (tests, fuzzing) */
	bool			 result_only;	/* --output-format json: only the result message */
	struct ccrun		*run;		/* the budget and schema (wire/ccrun.h); NULL: none */
};

/* Subscribe to bus before the agent exists, so its session event is seen. */
struct sjson	*sjson_new(struct ev_loop *, struct event_bus *, const struct sjson_opts *);
/*
 * Run until the end: with input_stream until stdin ends and the last turn
 * is over, else the one prompt.  The exit status (DESIGN.md §14).
 */
int		 sjson_run(struct sjson *, struct agent *, const char *prompt);
/* One stdin line, as if read (the fuzz target's entry); the agent may not be set yet. */
void		 sjson_input_line(struct sjson *, const char *line, size_t n);
void		 sjson_free(struct sjson *);

#endif
