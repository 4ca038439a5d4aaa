/*
 * redact: the secrets tandem holds, kept out of what it runs, shows, logs
 * and sends.
 *
 * It owns one process-wide registry, because the thing it guards, the
 * environment, is process-wide too:
 *   - the names of the environment variables no child may inherit (names or
 *     fnmatch(3) patterns to remove, and to keep in spite of that), the
 *     provider keys tandem uses being removed by default;
 *   - the secret values: those of the variables removed, and any key tandem
 *     reads elsewhere (redact_add).
 *
 * redact_env_scrub() takes the removed variables out of tandem's own
 * environment once they have been read: their values are saved (for
 * tandem's own use, redact_env_saved) and registered as secrets, their bytes
 * in the environment block are overwritten (so /proc/PID/environ shows
 * nothing) and the process is made non-dumpable.  Children then inherit a
 * clean environment; redact_env_child() removes whatever was set since, in a
 * child just before exec.
 *
 * Text is redacted by replacing every occurrence of a secret with
 * REDACT_MARK.  A stream (struct redact_stream) does the same over text that
 * arrives in pieces, holding back a tail that may be the start of a secret
 * until the next piece shows whether it is, so a key split across two reads
 * is caught.  Values shorter than REDACT_MIN bytes are not treated as
 * secrets: they would match everywhere.
 */
#ifndef TANDEM_REDACT_H
#define TANDEM_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define REDACT_MARK	"[redacted]"
#define REDACT_MIN	8

/* Variables removed from every child's environment, whatever the settings say to add. */
extern const char *const redact_default_names[];

/* Add a name or pattern ("AWS_*") to remove from children's environments. */
void		 redact_env_remove(const char *pattern);
/* Add a name or pattern to keep even when a remove pattern matches it. */
void		 redact_env_keep(const char *pattern);
/* Is the variable called name removed (matched by a remove pattern, and by no keep one)? */
bool		 redact_env_removed(const char *name);
/*
 * Take every removed variable out of this process's environment, as
 * described above; returns how many were taken out.  Safe to call again.
 */
size_t		 redact_env_scrub(void);
/* The value a scrubbed variable had, or NULL; owned by the registry. */
const char	*redact_env_saved(const char *name);
/* In a child before exec: unset every removed variable still set. */
void		 redact_env_child(void);

/* Register a secret value (copied); a NULL, short or known value is ignored. */
void		 redact_add(const char *secret);
size_t		 redact_count(void);
/* Forget every secret, pattern and saved value (for tests). */
void		 redact_reset(void);

/* Append s[0..n) to out with every secret replaced by REDACT_MARK. */
void		 redact_text(const char *s, size_t n, struct buf *out);
/* Redact b in place; true when something was replaced. */
bool		 redact_buf(struct buf *b);

/*
 * Redact b in place, the secrets tandem knows and every word that looks
 * like a credential: a run of REDACT_WORD_MIN or more letters, digits and
 * "+-/=_" holding two of lower case, upper case and digits.  For what a
 * program that handles keys says (apiKeyHelper's standard error), which
 * may hold a key tandem was never told of.  True when something was replaced.
 */
#define REDACT_WORD_MIN	16
bool		 redact_keylike(struct buf *b);

struct redact_stream {
	struct buf	 hold;		/* the tail that may begin a secret */
};
#define REDACT_STREAM_INIT	{ BUF_INIT(BUF_NOLIMIT) }

/* Redact the next n bytes of a stream; what is settled is appended to out. */
void		 redact_stream_feed(struct redact_stream *, const char *p, size_t n,
		    struct buf *out);
/* The end of the stream: whatever is held, redacted, goes to out. */
void		 redact_stream_flush(struct redact_stream *, struct buf *out);
/* Like feed and flush, writing to fd (all of it, retrying short writes). */
void		 redact_stream_write(struct redact_stream *, int fd, const char *p, size_t n);
void		 redact_stream_write_flush(struct redact_stream *, int fd);
void		 redact_stream_release(struct redact_stream *);

#endif
