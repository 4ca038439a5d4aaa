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
 *   effects.json   the effects ledger of side-effecting tools
 *   files/         content-addressed snapshots (written by the tools)
 * No API key is ever written.  The session owns its files and memory.
 */
#ifndef TANDEM_SESSION_H
#define TANDEM_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct buf;
struct session;

#define SESSION_VERSION 1

/* A new session for root; forked_from may be NULL. */
struct session	*session_create(const char *home, const char *root, const char *model,
		    const char *forked_from, struct buf *err);
/*
 * Open an existing session by id and replay its log: a torn last line is
 * ignored; any other malformed line, or a checkpoint of an unknown version
 * or that does not parse, fails with the file and line in err and leaves
 * every file untouched.
 */
struct session	*session_open(const char *home, const char *id, struct buf *err);
void		 session_close(struct session *);

const char	*session_id(const struct session *);
const char	*session_dir(const struct session *);
const cJSON	*session_meta(const struct session *);

/* Append a record (taken); "k" names its kind.  Not yet fsynced. */
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

/* Record a side-effecting tool's completion in the ledger (atomic rewrite). */
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
/* The last turn number in the log. */
int		 session_turns(const struct session *);
/* Update meta.json (atomic): first prompt, turns. */
void		 session_note_turn(struct session *, int turn, const char *prompt);

/* The newest session whose cwd is root (caller frees), or NULL. */
char		*session_newest(const char *home, const char *root);
/* A table of sessions (all, or of root only) into out. */
void		 session_list(const char *home, const char *root, struct buf *out);
/* Remove sessions older than days (0: none); how many went. */
int		 session_prune(const char *home, int days);

/* Write data to path atomically: temp file, fsync, rename, fsync of the directory. */
int		 session_write_atomic(const char *path, const char *data, size_t n, struct buf *err);

/*
 * Crash testing: TANDEM_CRASH_AFTER=label:n makes the process exit with
 * status 137 right after the n-th pass of the point named label.
 */
void		 crash_point(const char *label);

#endif
