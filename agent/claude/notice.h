/*
 * notice: the never-silent list.  Whatever tandem reads from a Claude Code
 * setup (or its own) and does not honour -- a settings key, a hook event or
 * hook type, a command feature, a skill field -- is named here once, with
 * the file it came from and why.  The front ends show the list: a notice at
 * start in the TUI, lines on stderr for -p, a section of `tandem config`.
 *
 * Any module that reads such material adds to the one list the session's
 * struct config holds (cfg->notices):
 *
 *	notice_add(cfg->notices, "hook event", "Setup", path,
 *	    "tandem has no such moment");
 *
 * The list owns copies of every string; notice_free() frees them.
 */
#ifndef TANDEM_NOTICE_H
#define TANDEM_NOTICE_H

#include <stddef.h>

struct buf;
struct notices;

struct notices *notice_new(void);
void	notice_free(struct notices *);
/*
 * Name one item tandem does not honour.  kind says what it is ("settings
 * key", "hook event", "hook type", "command feature", "skill field"), name
 * the item itself ("statusLine", "Setup"), source the file it came from
 * (NULL: none), why one short reason without a final period.  The same
 * kind, name and source again is dropped: each is named once.  A NULL list
 * is a no-op, so callers without one need no check.
 */
void	notice_add(struct notices *, const char *kind, const char *name, const char *source,
	    const char *why);
size_t	notice_count(const struct notices *);
/* Items added since the last notice_take_new: what a front end has not shown yet. */
size_t	notice_pending(const struct notices *);
/*
 * One line per item, "SOURCE: KIND NAME is not honoured (WHY)\n", each after
 * prefix (e.g. "tandem: ", or "  ").  notice_format lists them all;
 * notice_take_new only those not taken before, and marks them shown.
 */
void	notice_format(const struct notices *, const char *prefix, struct buf *out);
void	notice_take_new(struct notices *, const char *prefix, struct buf *out);

#endif
