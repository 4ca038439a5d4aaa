/*
 * intent: what a rewind needs after a crash, in the log before a writer
 * runs.
 *
 * Before a call that may change anything starts (any tool not read-only),
 * an "intent" record goes to the session's log and the log is synced:
 *
 *   {"k":"intent","turn":T,"id":"toolu_..","name":"edit_file",
 *    "files":[{"path":"a.c","before":sha|null}],
 *    "snap":"<hash of wsnap.idx>"}
 *
 * "files" (write tools) names the paths of the call's input with their
 * content before it ran, kept in the session's files/ store; "snap"
 * (commands and other snapshotted writers) names the before-snapshot,
 * written to wsnap.idx at once (wsnap_keep_before).  The call's "files"
 * records are logged before its result reaches the effects ledger
 * (tooluse.c), so an intent without a ledger entry is a call that a crash
 * cut off.  When the session is opened again, intent_recover writes what
 * such a call never did: its "files" record (the input's paths compared
 * with their before content, or the tree compared with the before-snapshot
 * by wsnap_record) and then its ledger entry, an "interrupted" result.
 *
 * A user's "!command" or a PostToolUse hook has an intent with "marked":
 * true and, when it ended, {"k":"intent","done":id,"by":by}; one without
 * that mark is recorded at open the same way.
 *
 * One marker record {"k":"intent","since":true}, logged before the first
 * checkpoint A that writes intents, says that from then on every call that
 * started has an intent: a pending call without one never started.
 */
#ifndef TANDEM_INTENT_H
#define TANDEM_INTENT_H

#include <stdbool.h>

struct conversation;
struct sched_call;

/* The marker, once per session, before a response's calls may run.  0 or -1. */
int	intent_mark(struct conversation *);
/*
 * The intent of c, which is about to run; snapped: a workspace snapshot
 * was taken for it (wsnap_before).  Logged and synced.  0 or -1.
 */
int	intent_started(struct conversation *, const struct sched_call *c, bool snapped);
/*
 * A snapshotted writer with no ledger entry (the user's "!command", a
 * PostToolUse hook), id and by as its record will name them, about to run
 * for turn: its before-snapshot in the log; and its end, after its record
 * (without a ledger entry, this mark says it ended).  0 or -1.
 */
int	intent_marked_started(struct conversation *, const char *id, int turn, const char *by);
int	intent_marked_done(struct conversation *, const char *id, const char *by);
/* Every writer of by still open is done (the PostToolUse hooks' window closed).  0 or -1. */
int	intent_marked_close(struct conversation *, const char *by);
/*
 * The session was opened: finish the records of every call that has an
 * intent and no ledger entry.  0 or -1 (the session is failed).
 */
int	intent_recover(struct conversation *);
/* Did the call id certainly never start (the session records intents and has none for it)? */
bool	intent_never_started(const struct conversation *, const char *id);

/* Whether the keeper of call id's command left its note: tandem ended while it ran. */
bool	intent_keeper_ended(const struct conversation *, const char *id);

#endif
