/*
 * mcp_http: an MCP server over HTTP: the streamable HTTP transport, and
 * the legacy HTTP+SSE one as a fallback (or when configured as "sse").
 *
 * Streamable HTTP: every message is a POST with "Accept:
 * application/json, text/event-stream"; the reply is one JSON message or
 * an event stream of them (read by agent/sse.c), or 202 for a
 * notification.  The Mcp-Session-Id the server gives with its initialize
 * reply goes with every later request, and MCP-Protocol-Version once
 * negotiated.  After initialize a GET event stream is opened for the
 * server's own messages (list_changed); a server without one (405) is
 * fine.  A server that refuses the first POST (400, 404, 405) is
 * tried the legacy way: a GET event stream whose "endpoint" event names
 * where to POST, the replies coming on the stream.
 *
 * The handle owns its requests; no callback fires after mcp_http_free.
 */
#ifndef TANDEM_MCP_HTTP_H
#define TANDEM_MCP_HTTP_H

#include <stddef.h>

struct buf;
struct ev_loop;
struct http;
struct mcp_httpc;
struct mcp_server_cfg;

struct mcp_http_ops {
	/* One JSON-RPC message from the server. */
	void	(*message)(void *arg, const char *text, size_t n);
	/* The server cannot be used: one sentence. */
	void	(*fail)(void *arg, const char *why);
	void	*arg;
};

struct mcp_httpc *mcp_http_new(struct ev_loop *, struct http *, const struct mcp_server_cfg *,
		    const struct mcp_http_ops *, struct buf *err);
void		 mcp_http_free(struct mcp_httpc *);
/* Send one message (copied); 0, or -1 when the handle has failed. */
int		 mcp_http_send(struct mcp_httpc *, const char *text, size_t n);
/* The protocol version negotiated: sent as MCP-Protocol-Version from now on. */
void		 mcp_http_set_version(struct mcp_httpc *, const char *version);

#endif
