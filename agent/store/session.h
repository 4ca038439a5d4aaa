/*
 * session: the durable record of one conversation (DESIGN.md §7).
 *
 * $TANDEM_HOME/sessions/<id>/ holds (files 0600, directories 0700):
 *   log.jsonl      the write-ahead log: one JSON object a line, appended,
 *                  fsynced before every request.  {"k":"msg",...} records
 *                  rebuild the messages; "rewind" and "replace" records
 *                  move the head without deleting history.
 *   meta.json      id, cwd, model, created, first prompt, turns, fork origin
 *   checkpoints/   turn-NNNN-A.json / -B.json around each tool round
 *   effects.jsonl  the effects ledger of side-effecting tools, appended
 *                  (effects.json: the whole-object form of older sessions)
 *   files/         content-addressed snapshots (written by the tools)
 *   lock           flock()ed while a process uses the session; holds
 *                  "pid start-time since" of the holder
 * No API key is ever written.  The session owns its files and memory.
 *
 * Every write is checked.  The first that fails (a full disk, an I/O
 * error) makes the session refuse every later write with -1, and
 * session_error() holds one sentence naming the directory, the file,
 * the cause and, for a full disk, the free space.  A failed append is cut
 * back off the log; a failed fsync is never retried (Linux may drop the
 * dirty pages and report success the next time): only reopening the
 * session (session_reopen) reads again what is really on disk.
 */
#ifndef TANDEM_SESSION_H
#define TANDEM_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct buf;
struct session;

#define SESSION_VERSION 1
/* Sessions of each workspace that retention never removes, however old they look. */
#define SESSION_KEEP 5

/* A new session for root; forked_from may be NULL. */
struct session	*session_create(const char *home, const char *root, const char *model,
		    const char *forked_from, struct buf *err);
/* session_open's flags. */
#define SESSION_OPEN_READ_ONLY	 0x1	/* no lock, no repair, no appends: a fork's source */
#define SESSION_OPEN_DAMAGED_OK	 0x2	/* replay a conversation that fails conv_check */

/*
 * Open an existing session by id, lock it and replay its log.  A torn
 * last line (a crash mid-append) is cut off the file and a "note" record
 * says so (also in session_note()).  Any other malformed line, a
 * checkpoint of an unknown version or that does not parse, or a
 * conversation that breaks the API's invariants (conv_check_messages)
 * fails with the file and line in err and leaves every file untouched; so
 * does a session another process holds (err names it and offers --fork).
 */
struct session	*session_open(const char *home, const char *id, unsigned flags,
		    struct buf *err);
/*
 * Read the session again from disk, keeping its lock: after a failed
 * write, once there is room.  0 (*sp is the fresh session, the old one is
 * freed), or -1 with err (*sp is left as it was).
 */
int		 session_reopen(struct session **sp, struct buf *err);
void		 session_close(struct session *);

const char	*session_id(const struct session *);
const char	*session_dir(const struct session *);
const cJSON	*session_meta(const struct session *);

/* The sentence of the first failed write, or NULL. */
const char	*session_error(const struct session *);
/* Mark the session failed by a write of its own (what: the file) with errnum; -1. */
int		 session_fail(struct session *, const char *what, int errnum);
/* The same for a write under dir (the snapshot store): its free space, its remedy. */
int		 session_fail_in(struct session *, const char *what, const char *dir, int errnum);
/* What opening repaired (a torn tail cut off), or NULL. */
const char	*session_note(const struct session *);
/* Whether another process holds session id's lock. */
bool		 session_locked(const char *home, const char *id);

/* Append a record (taken); "k" names its kind.  Not yet fsynced.  0 or -1. */
int		 session_append(struct session *, cJSON *rec);
/* Append a message record: {"k":"msg","role","content","turn"}. */
int		 session_log_message(struct session *, const cJSON *message);
/* Make everything appended so far durable. */
int		 session_sync(struct session *);
/* Byte length of the log (what a checkpoint points at). */
int64_t		 session_log_size(const struct session *);

/* Write checkpoint which ('A' or 'B') of turn/call atomically; pending may be NULL. */
int		 session_checkpoint(struct session *, char which, int turn, int call,
		    int64_t tokens_used, const cJSON *pending);
/* The newest checkpoint (owned by the session), or NULL. */
const cJSON	*session_last_checkpoint(const struct session *);

/* Record a side-effecting tool's completion in the ledger (a line appended and synced). */
int		 session_effect(struct session *, const char *id, const char *name,
		    const char *result, bool is_error);
/* The ledger entry of id, or NULL. */
const cJSON	*session_effect_find(const struct session *, const char *id);

/* The messages the log rebuilds (owned by the session; copy to use). */
const cJSON	*session_messages(const struct session *);
/*
 * Take the messages (the caller owns them); from then on the session
 * keeps only its bookkeeping, not a second copy of the conversation.
 */
cJSON		*session_take_messages(struct session *);
/*
 * What rewind needs: the "files" records ({"k":"files","turn","id",
 * "files":[{path,before,after}], "undone"?}), the "turn" records
 * ({"turn","prompt","tools","tokens","ms","time"}) and the newest rewind
 * that redo would undo (NULL if none).  All owned by the session.
 */
const cJSON	*session_files(const struct session *);
const cJSON	*session_turninfo(const struct session *);
const cJSON	*session_last_rewind(const struct session *);
/* The "intent" records, in log order (intent.h), owned by the session. */
const cJSON	*session_intents(const struct session *);
/* The subagents' messages as logged ("submsg" records: parent, agent, role, content), oldest first. */
const cJSON	*session_submsgs(const struct session *);
/* The last turn number in the log. */
int		 session_turns(const struct session *);
/* Update meta.json (atomic): first prompt, turns.  0 or -1. */
int		 session_note_turn(struct session *, int turn, const char *prompt);

/* The newest session whose cwd is root, by the sequence meta "seq" (caller frees), or NULL. */
char		*session_newest(const char *home, const char *root);
/* A table of sessions (all, or of root only) into out. */
void		 session_list(const char *home, const char *root, struct buf *out);
/*
 * Remove the sessions unused for more than days (0: none) that no process
 * holds, age counted from the newest record of any session (or the clock,
 * if it is earlier), never the SESSION_KEEP newest of a workspace; how
 * many went.
 */
int		 session_prune(const char *home, int days);

/* Write data to path atomically: temp file, fsync, rename, fsync of the directory. */
int		 session_write_atomic(const char *path, const char *data, size_t n, struct buf *err);

/*
 * Crash testing: TANDEM_CRASH_AFTER=label:n makes the process exit with
 * status 137 right after the n-th pass of the point named label.
 */
void		 crash_point(const char *label);

#endif
