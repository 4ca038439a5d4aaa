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
 *
 * And positions: a column counts UTF-16 units unless the server chose
 * UTF-8 bytes or UTF-32 code points; the model and the user count
 * characters (code points), 1-based.
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

/* The position encodings (UTF-16 is the protocol's default). */
enum lsp_enc { LSP_ENC_UTF16 = 0, LSP_ENC_UTF8, LSP_ENC_UTF32 };

/* The bytes of 0-based line ln of text (len bytes) in *p and *n; false past its end. */
bool	lsp_line_of(const char *text, size_t len, long ln, const char **p, size_t *n);
/* A 0-based column in enc's units on line (n bytes) as a 1-based character column. */
long	lsp_col_to_chars(const char *line, size_t n, long units, enum lsp_enc);
/* A 1-based character column on line as a 0-based column in enc's units. */
long	lsp_chars_to_col(const char *line, size_t n, long chars, enum lsp_enc);

/* abs as a file:// uri, its bytes outside [A-Za-z0-9/-._~] escaped; caller frees. */
char	*lsp_path_uri(const char *abs);

#endif
