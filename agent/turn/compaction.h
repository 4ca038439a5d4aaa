/*
 * compaction: keeping the agent's conversation inside the model's window.
 *
 * Owns when compaction happens (before a request past a threshold,
 * /compact, the one hard compaction after the server said the request
 * overflowed), the summary call (a model call through call.h), what a
 * failed summary falls back to, the PreCompact hooks, and recording a
 * compaction in the log with its events.  compact.h holds the pure
 * transformations of the messages.
 */
#ifndef TANDEM_COMPACTION_H
#define TANDEM_COMPACTION_H

#include "turn_int.h"

struct compaction;

/* A conversation's compaction, with the thresholds of cfg; freed with its summary call cancelled. */
struct compaction *compaction_new(const struct config *cfg);
void	 compaction_free(struct compaction *);
/* The messages were compacted to stage: log them, and say so.  A failed write is reported. */
void	 compaction_applied(struct conversation *, enum compact_stage, int64_t before, int64_t after);
/*
 * Before a request: compact if the conversation has grown past a
 * threshold.  True when a summary call was started (the request waits
 * for it: agent_summary_done).
 */
bool	 compaction_before_call(struct conversation *);
/* The server said the request overflowed: compact as hard as it goes.  True when anything was. */
bool	 compaction_overflow(struct conversation *);
/* Drop the summary call in flight; no callback comes from it after this. */
void	 compaction_cancel(struct conversation *);
/* A summary call is in flight. */
bool	 compaction_running(const struct conversation *);
/* One is, and a model call waits for it. */
bool	 compaction_call_waits(const struct conversation *);
/* The messages were replaced (reloaded, rewound): no stage applied, summaries on again. */
void	 compaction_reset(struct conversation *);
/* A turn starts: its one hard compaction after an overflow is still to come. */
void	 compaction_turn_start(struct conversation *);
/* A request may be retried after an overflow (compaction_overflow was not called this turn). */
bool	 compaction_overflow_ok(const struct conversation *);
/* The "Compaction:" line of /context. */
void	 compaction_report(const struct conversation *, struct buf *out);

#endif
