/*
 * mcp_stdio: an MCP server as a child process speaking newline-delimited
 * JSON-RPC on its stdin and stdout.
 *
 * The server is started by lib/proc (its own session, default signals,
 * the redacted variables removed, no descriptor of tandem's but its
 * pipes) under proc's keeper, which kills the server and everything it
 * started when tandem ends, whatever the exit, so no server outlives
 * tandem.  Writes go through a queue and never block the loop; stdout
 * is cut into lines of at most MCP_LINE_MAX bytes (longer ones are
 * dropped and logged); stderr is the server's log (its last
 * MCP_LOG_KEEP bytes are kept).  Stop: stdin closed, then SIGTERM, then
 * SIGKILL to the whole tree.
 *
 * The handle owns its pipes and its child; the exit callback fires once
 * when stdout has closed and the keeper has been reaped.
 */
#ifndef TANDEM_MCP_STDIO_H
#define TANDEM_MCP_STDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

#define MCP_LINE_MAX	(16u * 1024 * 1024)
#define MCP_LOG_KEEP	(16u * 1024)
#define MCP_QUEUE_MAX	(64u * 1024 * 1024)

struct ev_loop;
struct mcp_server_cfg;

/* The line framing, alone (the fuzz target drives it). */
typedef void mcp_line_fn(void *arg, const char *line, size_t n);
struct mcp_lines {
	struct buf	 line;
	bool		 skipping;	/* inside a line that passed the limit */
	size_t		 max;
	unsigned long	 dropped;	/* lines over the limit */
};
void	mcp_lines_init(struct mcp_lines *, size_t max);
void	mcp_lines_release(struct mcp_lines *);
/* Call fn for each complete line (without its LF or CRLF); empty lines are skipped. */
void	mcp_lines_feed(struct mcp_lines *, const char *p, size_t n, mcp_line_fn *fn, void *arg);

struct mcp_stdio_ops {
	void	(*line)(void *arg, const char *line, size_t n);
	void	(*log)(void *arg, const char *p, size_t n);
	/* The server is gone: status is its wait status (or -1 when unknown). */
	void	(*exit)(void *arg, int status);
	void	*arg;
};

struct mcp_stdio;

/* Start the server of s in dir; NULL with a sentence in err. */
struct mcp_stdio *mcp_stdio_start(struct ev_loop *, const struct mcp_server_cfg *s,
		    const char *dir, const struct mcp_stdio_ops *, struct buf *err);
/* Queue p (n bytes) and a newline; -1 when the queue is full or stdin is closed. */
int		 mcp_stdio_send(struct mcp_stdio *, const char *p, size_t n);
/* Begin the stop (stdin closed, then the signals); exit still fires. */
void		 mcp_stdio_stop(struct mcp_stdio *);
/* Stop now and free: SIGTERM, a short wait, SIGKILL; no callback fires. */
void		 mcp_stdio_free(struct mcp_stdio *);
/* Stop on the loop and free once the server is gone; no callback fires. */
void		 mcp_stdio_dispose(struct mcp_stdio *);
/* The keeper's pid (the server's process group and session). */
pid_t		 mcp_stdio_pid(const struct mcp_stdio *);
/* The last bytes of the server's stderr. */
const char	*mcp_stdio_log(const struct mcp_stdio *);

#endif
