/*
 * wsnap_int: what wsnap.c (the index, the walk, the store) and
 * wsnap_restore.c (putting records back, the browser's lines) share.
 * Not for other modules: wsnap.h is the API.
 */
#ifndef TANDEM_WSNAP_INT_H
#define TANDEM_WSNAP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "buf.h"
#include "sha256.h"
#include "wsnap.h"

struct ignore;

/* WK_OTHER: a socket or a device; WK_FIFO last, so an index of old stays readable. */
enum wsnap_kind { WK_NONE, WK_FILE, WK_DIR, WK_LINK, WK_OTHER, WK_FIFO };
#define WK_LAST		WK_FIFO

/* The names of the kinds in the records. */
extern const char *const wsnap_kinds[];

/* Why content was not kept (entry flags; WF_KEPT: it is in the store). */
#define WF_KEPT		0x01
#define WF_IGNORED	0x02
#define WF_OVER		0x04	/* over snapshots.max_file_mb */
#define WF_BUDGET	0x08	/* over the snapshot's or the store's budget */
#define WF_UNREAD	0x10	/* could not be read, or kept changing while read */
#define WF_SECRET	0x20	/* holds a secret tandem knows: never written to its disk */
#define WF_WHY		(WF_IGNORED | WF_OVER | WF_BUDGET | WF_UNREAD | WF_SECRET)

struct wsnap_ent {
	char		*path;
	uint64_t	 dev, ino, size;
	int64_t		 mtime, ctime;
	uint32_t	 mode;
	uint32_t	 gen;
	uint8_t		 kind, flags;
	char		 hash[SHA256_HEX_LEN + 1];	/* "" when not kept */
};

struct wsnap {
	char			*root;
	char			**extra;	/* the extra roots (real paths, NULL-terminated), or NULL */
	char			*skip;		/* TANDEM_HOME relative to root when inside it, or NULL */
	char			*home;		/* TANDEM_HOME's real path (skipped in an extra root), or NULL */
	char			*store;
	char			*idxpath;	/* NULL: not kept on disk */
	struct session		*sess;
	struct wsnap_settings	 set;
	struct wsnap_ent	**tab;		/* open addressing on path */
	size_t			 cap, n;
	uint32_t		 gen;
	int64_t			 last_time;	/* when the last walk began (ns) */
	uint64_t		 store_bytes;
	uint64_t		 last_read;
	char			*git;		/* the stat signature of .git */
	char			*note;
	bool			 armed;		/* wsnap_before ran, wsnap_after not yet */
	bool			 dirty;		/* the index differs from wsnap.idx */
	char			 saved[SHA256_HEX_LEN + 1]; /* wsnap.idx's own hash, as written or read ("": none) */
	struct ev_loop		*loop;		/* wsnap_warm's: the first snapshot in slices */
	uint64_t		 warm_timer;
	size_t			 pending;	/* files the last walk left unread */
	char			*rbuf;
	size_t			 rcap;
	/* The records' references and the writers that overlap (wsnap_record, wsnap_prune). */
	char			*sessions;	/* TANDEM_HOME/sessions: whose refs files are still wanted */
	char			*refs;		/* the store's refs/<session id>, or NULL: no session */
	uint64_t		 epoch;		/* wsnap_epoch's */
	int			 users;		/* wsnap_join's writers in the armed window */
	bool			 overlap;	/* another writer joined the window */
};

/* A file's name by its inode: the hard links of the workspace. */
struct wsnap_lnk {
	uint64_t	 dev, ino;
	const char	*path;		/* an index entry's */
};

/* A change with a file on a side, to be given the names that file shares its inode with. */
struct wsnap_pend {
	cJSON		*o;
	uint64_t	 dev[2], ino[2];	/* before, after */
	bool		 file[2];
	bool		 only;		/* recorded for its links alone: dropped when they stayed */
};

/* One walk. */
struct wsnap_scan {
	struct wsnap	*ws;
	cJSON		*changes;	/* NULL: just bring the index up to date */
	struct buf	 path;
	size_t		 rel;		/* where path's part relative to the walked root begins */
	uint64_t	 read;
	size_t		 seen;
	bool		 truncated;
	int		 storefd;
	bool		 wrote;
	int		 errnum;	/* of a failed store write */
	struct buf	*err;
	int64_t		 deadline;	/* ev_now_ms() past which no more is read; 0: none */
	size_t		 pending;	/* files left unread by the budget or the deadline */
	struct wsnap_lnk *lb;		/* the hard links before the walk (recorded walks) */
	size_t		 nlb;
	struct wsnap_pend *pend;	/* the changes with a file on a side */
	size_t		 npend, cappend;
};

enum wsnap_kind	 wsnap_kind_of(mode_t);
/* The index entry of path (n bytes), or NULL. */
struct wsnap_ent *wsnap_find(const struct wsnap *, const char *path, size_t n);
/* Does the entry still hold what the file of stat st (ignored or not) holds? */
bool		 wsnap_unchanged(const struct wsnap *, const struct wsnap_ent *,
		    const struct stat *st, bool ignored);
/*
 * Bring the entry of sc->path (the entry name in the directory dfd,
 * lstat'ed as st) up to date, and record its change.  0, or -1 when the
 * store could not be written.
 */
int		 wsnap_visit(struct wsnap_scan *, int dfd, const char *name, struct stat *st,
		    bool ignored);
/*
 * Walk the root open as fd (not closed) whose path so far is sc->path
 * ("" for the workspace, its absolute path for an extra root), with the
 * ignore rules of ignroot: the entries whose stat the index holds are
 * marked seen, the others visited (wsnap_walk.c).  0 or -1.
 */
int		 wsnap_walk_root(struct wsnap_scan *, int fd, const char *ignroot);
/* The store's directory, made if missing, opened: an fd, or -1 with err. */
int		 wsnap_store_fd(const struct wsnap *, struct buf *err);
/*
 * Store data (the content of srcfd, which may be cloned instead; -1: none)
 * under its hash.  0 stored, 1 not kept (the store's budget), 2 srcfd
 * changed since was, -1 a failed write (sc->err says it).
 */
int		 wsnap_put(struct wsnap_scan *, int srcfd, const struct stat *was,
		    const char *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
/* Does data hold a secret of the redact registry (a provider key)? */
bool		 wsnap_secret(const char *data, size_t n);

#endif
