/*
 * acp: `tandem acp`, an Agent Client Protocol (v1) agent on stdio, for
 * editors such as Zed (DESIGN.md §12).
 *
 * JSON-RPC 2.0, one message a line.  Methods: initialize, session/new (its
 * cwd is the workspace; the reply lists the modes), session/load (the
 * history is replayed as session/update notifications before the reply),
 * session/prompt (text, resource and resource_link blocks; the reply, with
 * its stopReason, comes when the turn ends), session/cancel (a
 * notification: pending permission requests are answered cancelled and the
 * prompt returns stopReason cancelled), session/set_mode.  Updates:
 * agent_message_chunk, agent_thought_chunk, tool_call (title, kind read /
 * edit / execute / search, status, content; an edit's content is a diff
 * {path (absolute), oldText, newText}), tool_call_update, plan.  Approvals
 * go to the client as session/request_permission (allow_once,
 * allow_always, reject_once, reject_always).
 *
 * One session at a time: a session/new or session/load replaces the one
 * before.  The session's agent, config and queues are acp's own.
 */
#ifndef TANDEM_ACP_H
#define TANDEM_ACP_H

#include <stddef.h>

struct acp;
struct config;
struct ev_loop;

/* Serve stdin/stdout until stdin ends; base: the flags' and settings' config. */
int		 acp_run(struct ev_loop *, struct config *base);

/* For the fuzz target: an acp on out_fd with no input fd; one line as if read. */
struct acp	*acp_new(struct ev_loop *, struct config *base, int in_fd, int out_fd);
void		 acp_input_line(struct acp *, const char *line, size_t n);
void		 acp_free(struct acp *);

#endif
