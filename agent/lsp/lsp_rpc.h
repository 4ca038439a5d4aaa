/*
 * lsp_rpc: the Language Server Protocol's base protocol, alone: messages
 * framed by a header ("Content-Length: N\r\n", other fields ignored,
 * "\r\n" to end it) and N bytes of JSON.
 *
 * The reader owns its buffer; it hands each body to a callback and keeps
 * nothing of it.  A header that names no length, a length past the limit
 * or a header longer than LSP_HEADER_MAX is garbage: the reader stops for
 * good (lsp_frames_broken) and says why, since the stream can no longer
 * be cut into messages.
 */
#ifndef TANDEM_LSP_RPC_H
#define TANDEM_LSP_RPC_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define LSP_HEADER_MAX	4096		/* bytes of one message's header */
#define LSP_BODY_MAX	(16u * 1024 * 1024)	/* bytes of one message's body */

typedef void lsp_body_fn(void *arg, const char *body, size_t n);

struct lsp_frames {
	struct buf	 in;		/* what is read and not yet a whole message */
	size_t		 max;		/* the largest body taken */
	size_t		 need;		/* the body's length once the header is read; 0: in the header */
	bool		 in_body;
	const char	*broken;	/* why the stream cannot be read on (static text), or NULL */
	unsigned long	 messages;	/* bodies handed over so far */
};

void	lsp_frames_init(struct lsp_frames *, size_t max);
void	lsp_frames_release(struct lsp_frames *);
/* Hand each complete body in p (n bytes, cut anywhere) to fn; nothing once broken. */
void	lsp_frames_feed(struct lsp_frames *, const char *p, size_t n, lsp_body_fn *fn, void *arg);
/* Why the stream is garbage, or NULL while it is sound. */
const char *lsp_frames_broken(const struct lsp_frames *);
/* Append body (n bytes) to out with its header. */
void	lsp_frame_put(struct buf *out, const char *body, size_t n);

#endif
