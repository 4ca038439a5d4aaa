/*
 * wsnap: workspace snapshots, so that a rewind covers what commands did
 * (run_bash, PostToolUse hooks, MCP tools that may write, the user's
 * "!command" through wsnap_join, and any other writer given this API).
 *
 * A stat index of the workspace (device, inode, size, mtime and ctime in
 * nanoseconds, mode, type) is kept with the session (wsnap.idx).  Before a
 * writer runs, wsnap_before walks the tree and reads, hashes and stores
 * only the files whose stat changed since the last snapshot (or whose
 * mtime is at or after that snapshot's time: a write in the same clock
 * tick); a file is stat'ed again after it was read, and read again if it
 * changed meanwhile.  After the writer, wsnap_after walks again and turns
 * the difference into a "files" record of the session log:
 *
 *   {"k":"files","turn":T,"id":"toolu_..","by":"run_bash","files":[
 *      {"path":"a.c","before":sha|null,"after":sha|null,
 *       "was":"file|dir|link|other","now":"file|dir|link|other",
 *       "mode_before":420,"mode_after":493,
 *       "lost":"before|after|both","why":"..."}], "git":true, "notes":[..]}
 *
 * "was"/"now" are absent where there was (is) nothing: created and
 * deleted ("fifo" is a kind too; "other" a socket or a device).
 * "links_before"/"links_after" (absent in older records, and when the
 * file had no other name) list the other names, within the roots, of a
 * file side's inode: a restore makes the file a hard link of one that
 * holds the wanted content and mode, or splits it from a name it was not
 * linked to (an empty list against a side that has names), else writes
 * a copy.  A change that only gave a file another inode is recorded when
 * its names changed.  "lost" names a side whose content was not kept (an
 * ignored file, one over the size cap, a socket or device): that change
 * is named at rewind as not restorable, never skipped silently.  "git" flags a
 * command that changed .git/ (HEAD, the index, refs): files can be
 * rewound, the repository's state is not.
 *
 * Content goes to a store shared by the sessions of one root,
 * $TANDEM_HOME/snapshots/<root key>/<sha-256>, the layout of the edit
 * snapshots (fsutil.h), written by a reflink (FICLONE) where the file
 * system can, else by a copy.  Every record also appends the hashes it
 * names to the store's refs/<session id> (fdatasync'd before the record
 * is logged), so that a disk budget (snapshots.store_mb), checked when a
 * session starts, prunes first the content no record of any session of
 * the root names, oldest first, and only then, if the store is still over
 * the budget, the oldest content records name; never what this session's
 * index holds.  The refs file of a session that is gone is dropped.  A
 * restore of content pruned says so, file by file.  Ignored files (the search tools' rules, ignore.h) are indexed
 * but not stored; an ignored directory is indexed as one entry.  FIFOs,
 * sockets and devices are never opened; symbolic links are stored as links.
 *
 * wsnap_restore puts a record's files back (undo) or forward (redo)
 * through the descriptor walk of sandbox.h: a link planted in the
 * workspace cannot send a restore outside it; files, hard links and FIFOs
 * are put in place by rename (then the directory synced), so a hard link
 * is never written through; each file is checked
 * against the state the record left (a change since is left alone unless
 * forced); a created directory goes only when nothing is left in it.
 *
 * Every write failure of the store or the index fails the session
 * (session_fail) when there is one.  struct wsnap owns its index; records
 * given to it are only read.
 */
#ifndef TANDEM_WSNAP_H
#define TANDEM_WSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct buf;
struct ev_loop;
struct session;
struct wsnap;

/* The settings (tandem-config.5), in the units the settings files use. */
struct wsnap_settings {
	bool	enabled;	/* snapshots.enabled */
	int	max_file_mb;	/* snapshots.max_file_mb: larger files are not kept */
	int	max_snapshot_mb; /* snapshots.max_snapshot_mb: content one snapshot reads */
	int	max_files;	/* snapshots.max_files: entries indexed */
	int	store_mb;	/* snapshots.store_mb: the shared store's disk budget */
};
#define WSNAP_SETTINGS_DEFAULT	{ true, 16, 256, 200000, 2048 }

/*
 * Snapshots of root (a real path) with the store under home; the index
 * lives in sess's directory (sess may be NULL: no index file, no log, no
 * session to fail).  Prunes the store to its budget.  NULL when disabled.
 */
struct wsnap	*wsnap_new(const char *home, const char *root, struct session *sess,
		    const struct wsnap_settings *);
void		 wsnap_free(struct wsnap *);

/*
 * Cover the extra roots too (real paths, NULL-terminated; copied): their
 * entries are indexed under their absolute paths, with the same store
 * and records, each root with its own ignore rules, and restored through
 * the descriptor walk beneath all the roots.
 */
void		 wsnap_set_roots(struct wsnap *, const char *const *extra);

/*
 * Take the first snapshot in the background: slices of loop's idle time
 * (each reads for about 40 ms, then the loop runs), paused while a writer
 * runs, until every file is kept or over a budget.  A writer that comes
 * first finishes it in wsnap_before.
 */
void		 wsnap_warm(struct wsnap *, struct ev_loop *loop);
/* Is that still going on? */
bool		 wsnap_warming(const struct wsnap *);

/* The store's directory (owned). */
const char	*wsnap_store(const struct wsnap *);

/*
 * Before a writer runs: bring the index and the store up to date.  0, or
 * -1 when the store could not be written (err, which may be NULL; the
 * session is failed).  A workspace that cannot be read is a note, not -1.
 */
int		 wsnap_before(struct wsnap *, struct buf *err);

/*
 * After it: what changed since wsnap_before, as the "files" array of a
 * record (the caller's; an empty array when nothing changed); *git set
 * when .git/ changed; notes (may be NULL) gets what was not kept.  NULL
 * with err (may be NULL) when the store could not be written.
 */
cJSON		*wsnap_after(struct wsnap *, bool *git, struct buf *notes, struct buf *err);

/*
 * wsnap_after, logged: a "files" record of turn with the writer's id and
 * name appended to the session when something changed.  0 or -1.
 */
int		 wsnap_record(struct wsnap *, int turn, const char *id, const char *by);

/*
 * A "files" record of turn with no files, only note: what a rewind of the
 * turn cannot cover (a background shell still running), marked
 * "running": true; its rewind only reports the note.  0 or -1.
 */
int		 wsnap_note_record(struct wsnap *, int turn, const char *id, const char *by,
		    const char *note);

/*
 * Log rec, a record of a session of this root (a fork's source), as this
 * session's own: the content it names goes to this session's refs first,
 * so that pruning keeps it.  Takes rec.  0, or -1 with the session failed.
 */
int		 wsnap_adopt(struct wsnap *, cJSON *rec);
/*
 * For a writer that may run while another does (the user's "!command",
 * also during a turn): busy says another writer may be running now.  Like
 * wsnap_before, except that when busy and a window is open (wsnap_before
 * ran, wsnap_record not yet) it joins that window instead of starting
 * anew, and while it runs wsnap_before joins its window too.  Each
 * writer's wsnap_record then takes what changed since the last record,
 * with a note that writers overlapped; the window closes with the last.
 * 0, or -1 as wsnap_before.
 */
int		 wsnap_join(struct wsnap *, bool busy, struct buf *err);
/* Its end: wsnap_record for it, the window kept open for the others. */
int		 wsnap_leave(struct wsnap *, int turn, const char *id, const char *by);
/*
 * For the intents of writers (intent.h): wsnap_before's index written to
 * wsnap.idx at once, its hash in id ("" when no window is open); 0 or -1.
 * wsnap_rearm: after a crash, that index (if wsnap.idx still is the one id
 * names) becomes an open window again, so wsnap_record compares the tree
 * against it.
 */
int		 wsnap_keep_before(struct wsnap *, char id[65]);
bool		 wsnap_rearm(struct wsnap *, const char *id);
/* A number no other wsnap of this process has had (is this still the one joined?). */
uint64_t	 wsnap_epoch(const struct wsnap *);

/* Is rec (a "files" record) one of wsnap's? */
bool		 wsnap_is_record(const cJSON *rec);

/*
 * Undo (or redo) the record rec, one line a file into report.  0 done,
 * 1 some file was left alone (changed since, or not restorable), -1 when
 * the store could not be written (the current content is kept first).
 */
int		 wsnap_restore(struct wsnap *, const cJSON *rec, bool undo, bool force,
		    struct buf *report);

/*
 * Lines for the turn browser: what the command of rec changed, two-space
 * indented, under "who:" (the command as the user knows it; NULL: its kind).
 */
void		 wsnap_describe(const cJSON *rec, const char *who, struct buf *out);
/* For agent_turns: rec's lines appended to turn's "changes" array (if rec is wsnap's). */
void		 wsnap_turn_add(cJSON *turn, const cJSON *rec, const char *who);

/* A note about the workspace (over the budget), or NULL. */
const char	*wsnap_note(const struct wsnap *);

/* Index entries (tests, bench). */
size_t		 wsnap_count(const struct wsnap *);
/* How many threads the next walk runs on (bench; TANDEM_WSNAP_THREADS sets it). */
int		 wsnap_threads(const struct wsnap *);
/* Bytes read and stored by the last snapshot (tests, bench). */
uint64_t	 wsnap_last_read(const struct wsnap *);

#endif
