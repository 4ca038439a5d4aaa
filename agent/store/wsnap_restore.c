/* Putting a command's record back or forward, and the browser's lines: see wsnap.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "fsutil.h"
#include "json.h"
#include "sandbox.h"
#include "session.h"
#include "sha256.h"
#include "wsnap.h"
#include "wsnap_int.h"
#include "xalloc.h"

/* --- restoring ----------------------------------------------------------- */

/* What is at name in dfd now: its kind, and the hash of a file's or link's content. */
static enum wsnap_kind
wsnap_current(struct wsnap *ws, int dfd, const char *name, struct stat *st, char hex[SHA256_HEX_LEN + 1],
    char **data, size_t *len)
{
	enum wsnap_kind k;

	hex[0] = '\0';
	*data = NULL;
	*len = 0;
	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == -1)
		return WK_NONE;
	k = wsnap_kind_of(st->st_mode);
	if (k == WK_FILE) {
		struct sandbox_at at = { dfd, (char *)name, (char *)name, (char *)name, true, *st };
		struct buf err = BUF_INIT(4096);

		if (fsutil_read_at(&at, FSUTIL_MAX_FILE, data, len, &err) == 0)
			sha256_hex(*data, *len, hex);
		buf_release(&err);
	} else if (k == WK_LINK) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, target, sizeof target);

		if (n >= 0 && (size_t)n < sizeof target) {
			*data = xmemdup(target, (size_t)n);
			*len = (size_t)n;
			sha256_hex(target, (size_t)n, hex);
		}
	}
	(void)ws;
	return k;
}

static enum wsnap_kind
wsnap_kind_named(const char *s)
{
	size_t i;

	for (i = 1; s != NULL && i <= WK_LAST; i++)
		if (strcmp(s, wsnap_kinds[i]) == 0)
			return (enum wsnap_kind)i;
	return WK_NONE;
}

/* Set mode on the file, directory or FIFO name of dfd without following a link. */
static int
wsnap_chmod(int dfd, const char *name, unsigned mode)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc = -1;

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISFIFO(st.st_mode)))
		rc = fchmod(fd, mode & 07777);
	close(fd);
	return rc;
}

/* Make room for the wanted kind: remove what is there (a directory only when empty). */
static int
wsnap_clear(int dfd, const char *name, enum wsnap_kind cur, struct buf *err)
{
	if (cur == WK_NONE)
		return 0;
	if (unlinkat(dfd, name, cur == WK_DIR ? AT_REMOVEDIR : 0) == 0)
		return 0;
	if (cur == WK_DIR && (errno == ENOTEMPTY || errno == EEXIST))
		buf_puts(err, "kept: something tandem did not record is left in the directory");
	else
		buf_printf(err, "cannot remove it: %s", strerror(errno));
	return -1;
}

/*
 * A new name in dfd for what make makes (a hard link, a FIFO), to be
 * renamed over the name it is for: 0 with the name in tmp, or -1.
 */
static int
wsnap_make_tmp(int dfd, char *tmp, size_t size, int (*make)(int, const char *, const void *),
    const void *arg)
{
	static unsigned long counter;
	struct timespec ts;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (snprintf(tmp, size, ".tandem-%ld-%lx%lx.tmp", (long)getpid(),
		    (unsigned long)ts.tv_nsec, ++counter) >= (int)size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (make(dfd, tmp, arg) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	return -1;
}

/* The name of a file to link to: its directory's descriptor and its name there. */
struct wsnap_to {
	int		 dfd;
	char		*name;
	char		*path;		/* as the record names it */
	bool		 linked;	/* the file was made a link of it (not a copy) */
};

static void
wsnap_to_release(struct wsnap_to *to)
{
	if (to->dfd != -1)
		close(to->dfd);
	free(to->name);
	free(to->path);
	to->dfd = -1;
	to->name = to->path = NULL;
}

static int
wsnap_make_link(int dfd, const char *tmp, const void *arg)
{
	const struct wsnap_to *to = arg;

	return linkat(to->dfd, to->name, dfd, tmp, 0);
}

static int
wsnap_make_fifo(int dfd, const char *tmp, const void *arg)
{
	(void)arg;
	return mkfifoat(dfd, tmp, 0600);
}

/*
 * Put what make makes at a new name in dfd (mode set on it when mode is
 * not -1) and rename it over name, then sync the directory: what was at
 * name stays until the rename, whole.  0, or -1 with what failed (the
 * new name removed).
 */
static int
wsnap_place(int dfd, const char *name, int (*make)(int, const char *, const void *), const void *arg,
    long mode, const char *what, struct buf *err)
{
	char tmp[128];

	if (wsnap_make_tmp(dfd, tmp, sizeof tmp, make, arg) == -1) {
		buf_printf(err, "cannot make %s: %s", what, strerror(errno));
		return -1;
	}
	if ((mode != -1 && wsnap_chmod(dfd, tmp, (unsigned)mode) == -1) ||
	    renameat(dfd, tmp, dfd, name) == -1) {
		int saved = errno;

		unlinkat(dfd, tmp, 0);
		buf_printf(err, "cannot put %s in place: %s", what, strerror(saved));
		return -1;
	}
	if (file_fsync_dirfd(dfd) == -1) {
		buf_printf(err, "made %s but could not sync its directory: %s", what, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Put the wanted state in place at name of dfd: a file as a hard link of
 * to when to is not NULL, as a copy when that cannot be done (a line of
 * report says why).  0 or -1 (err).
 */
static int
wsnap_apply(struct wsnap *ws, int dfd, const char *name, const char *rel, enum wsnap_kind cur,
    const struct stat *curst, enum wsnap_kind want, const char *hash, unsigned mode,
    struct wsnap_to *to, struct buf *report, struct buf *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc = -1;

	if ((want == WK_FILE || want == WK_LINK) && to == NULL &&
	    fsutil_snapshot_load(ws->store, hash, &data, &len, err) == -1)
		goto out;
	if (want == WK_NONE) {
		rc = wsnap_clear(dfd, name, cur, err);
	} else if (want == WK_DIR) {
		if (cur != WK_DIR && (wsnap_clear(dfd, name, cur, err) == -1 ||
		    (mkdirat(dfd, name, 0700) == -1 && errno != EEXIST))) {
			if (err->len == 0)
				buf_printf(err, "cannot make the directory: %s", strerror(errno));
			goto out;
		}
		rc = wsnap_chmod(dfd, name, mode);
		if (rc == -1)
			buf_printf(err, "cannot set its mode: %s", strerror(errno));
	} else if (want == WK_FIFO) {
		if (cur == WK_FIFO) {
			rc = wsnap_chmod(dfd, name, mode);
			if (rc == -1)
				buf_printf(err, "cannot set its mode: %s", strerror(errno));
			goto out;
		}
		if (cur == WK_DIR && wsnap_clear(dfd, name, cur, err) == -1)
			goto out;
		rc = wsnap_place(dfd, name, wsnap_make_fifo, NULL, (long)mode, "the FIFO", err);
	} else if (want == WK_LINK) {
		if ((cur != WK_NONE && wsnap_clear(dfd, name, cur, err) == -1))
			goto out;
		if (symlinkat(data, dfd, name) == -1) {
			buf_printf(err, "cannot make the link: %s", strerror(errno));
			goto out;
		}
		rc = 0;
	} else {
		struct sandbox_at at = { dfd, (char *)name, (char *)rel, (char *)rel, cur == WK_FILE, *curst };

		if (cur != WK_FILE && cur != WK_NONE && wsnap_clear(dfd, name, cur, err) == -1)
			goto out;
		if (to != NULL) {
			struct buf lerr = BUF_INIT(4096);

			/* the partner has the bytes and the mode: nothing is written */
			rc = wsnap_place(dfd, name, wsnap_make_link, to, -1, "the hard link", &lerr);
			if (rc == 0) {
				to->linked = true;
				buf_release(&lerr);
				goto out;
			}
			buf_printf(report, "%s: restored as a copy, not as a hard link of %s (%s)\n", rel,
			    to->path, buf_cstr(&lerr));
			buf_release(&lerr);
			if (fsutil_snapshot_load(ws->store, hash, &data, &len, err) == -1)
				goto out;
			rc = -1;
		}
		at.exists = cur == WK_FILE;
		/* a temporary file renamed over the name: a hard link is never written through */
		if (fsutil_write_place(&at, data, len, NULL, err) == -1)
			goto out;
		rc = wsnap_chmod(dfd, name, mode);
		if (rc == -1)
			buf_printf(err, "cannot set its mode: %s", strerror(errno));
	}
out:
	free(data);
	return rc;
}

/* The directory part of path ("." for none) and its last name. */
static void
wsnap_split(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	*dir = slash != NULL ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	*base = slash != NULL ? slash + 1 : path;
}

/* Is the absolute path beneath one of the extra roots (not the root itself)? */
static bool
wsnap_in_extra(const struct wsnap *ws, const char *path)
{
	size_t i, n;

	for (i = 0; ws->extra != NULL && ws->extra[i] != NULL; i++) {
		n = strlen(ws->extra[i]);
		if (strncmp(path, ws->extra[i], n) == 0 && path[n] == '/' && path[n + 1] != '\0')
			return true;
	}
	return false;
}

/* Is path one a record may name: inside the workspace or an extra root, with a last name? */
static bool
wsnap_path_ok(const struct wsnap *ws, const char *path, const char *base)
{
	return path[0] != '\0' && (path[0] != '/' || wsnap_in_extra(ws, path)) && strcmp(base, "..") != 0 &&
	    strcmp(base, ".") != 0 && base[0] != '\0';
}

/*
 * The directory of path (a record's), reached through directories only,
 * open: an fd, or -1 (err says why when it is not just missing).
 */
static int
wsnap_open_dir(struct wsnap *ws, const char *dir, struct buf *err)
{
	struct sandbox sb = { ws->root, (const char *const *)ws->extra, NULL };
	struct sandbox_at at;
	int fd;

	if (sandbox_walk(&sb, dir, SANDBOX_EDIT, 0, &at, err) == -1)
		return -1;
	if (strcmp(at.rel, dir) != 0 || !at.exists) {
		sandbox_at_release(&at);
		return -1;
	}
	fd = sandbox_open_at(&at, O_RDONLY | O_DIRECTORY, err);
	sandbox_at_release(&at);
	return fd;
}

/*
 * The name path of a record, reached through directories only: its
 * directory open (an fd, or -1), its lstat in st, its last name in *base
 * (path's).
 */
static int
wsnap_open_named(struct wsnap *ws, const char *path, struct stat *st, const char **base)
{
	struct buf err = BUF_INIT(4096);
	char *dir;
	int dfd = -1;

	wsnap_split(path, &dir, base);
	if (wsnap_path_ok(ws, path, *base))
		dfd = wsnap_open_dir(ws, dir, &err);
	buf_release(&err);
	free(dir);
	if (dfd != -1 && fstatat(dfd, *base, st, AT_SYMLINK_NOFOLLOW) == -1) {
		close(dfd);
		dfd = -1;
	}
	return dfd;
}

/* Is the file cur one inode with a name of links that keep does not list? */
static bool
wsnap_linked_to(struct wsnap *ws, const cJSON *links, const cJSON *keep, const struct stat *cur)
{
	const cJSON *l, *k;
	bool linked = false;

	cJSON_ArrayForEach(l, links) {
		const char *base;
		struct stat st;
		bool kept = false;
		int dfd;

		if (!cJSON_IsString(l))
			continue;
		cJSON_ArrayForEach(k, keep)
			if (cJSON_IsString(k) && strcmp(k->valuestring, l->valuestring) == 0)
				kept = true;
		if (kept || (dfd = wsnap_open_named(ws, l->valuestring, &st, &base)) == -1)
			continue;
		close(dfd);
		if (S_ISREG(st.st_mode) && st.st_dev == cur->st_dev && st.st_ino == cur->st_ino)
			linked = true;
	}
	return linked;
}

enum wsnap_partner { WP_NONE, WP_SAME, WP_FOUND };

/*
 * Of links (the names a record says a file shared its inode with), one to
 * restore the file as a hard link of: a regular file now that holds hash
 * with mode (WP_FOUND, *to filled; the caller releases it), or one that is
 * already the file cur (WP_SAME).  WP_NONE: none, the file is a copy.
 */
static enum wsnap_partner
wsnap_partner(struct wsnap *ws, const cJSON *links, const struct stat *cur, const char *hash,
    unsigned mode, struct wsnap_to *to)
{
	const cJSON *l;
	enum wsnap_partner found = WP_NONE;

	to->dfd = -1;
	to->name = to->path = NULL;
	if (hash == NULL)
		return WP_NONE;
	cJSON_ArrayForEach(l, links) {
		char *data, hex[SHA256_HEX_LEN + 1];
		const char *base;
		struct stat st;
		size_t len;
		int dfd;

		if (!cJSON_IsString(l) || (dfd = wsnap_open_named(ws, l->valuestring, &st, &base)) == -1)
			continue;
		if (wsnap_current(ws, dfd, base, &st, hex, &data, &len) != WK_FILE) {
			free(data);
			close(dfd);
			continue;
		}
		free(data);
		if (cur != NULL && st.st_dev == cur->st_dev && st.st_ino == cur->st_ino) {
			close(dfd);
			found = WP_SAME;
			break;
		}
		if (found == WP_NONE && strcmp(hex, hash) == 0 && (st.st_mode & 07777) == (mode & 07777)) {
			to->dfd = dfd;
			to->name = xstrdup(base);
			to->path = xstrdup(l->valuestring);
			found = WP_FOUND;
			continue;
		}
		close(dfd);
	}
	if (found != WP_FOUND)
		wsnap_to_release(to);
	return found;
}

/* One file of a record back (or forward).  0 done, 1 left alone, -1 the store failed. */
static int
wsnap_restore_one(struct wsnap *ws, const cJSON *f, bool undo, bool force, struct buf *report)
{
	struct sandbox sb = { ws->root, (const char *const *)ws->extra, NULL };
	struct sandbox_at at;
	struct buf err = BUF_INIT(4096);
	const char *path = json_str(f, "path", ""), *base, *lost = json_str(f, "lost", NULL);
	enum wsnap_kind want = wsnap_kind_named(json_str(f, undo ? "was" : "now", NULL));
	enum wsnap_kind have = wsnap_kind_named(json_str(f, undo ? "now" : "was", NULL)), cur;
	const char *wanth = json_str(f, undo ? "before" : "after", NULL);
	const char *haveh = json_str(f, undo ? "after" : "before", NULL);
	unsigned mode = (unsigned)json_int(f, undo ? "mode_before" : "mode_after", 0644);
	const cJSON *links = json_get(f, undo ? "links_before" : "links_after");
	const cJSON *unlinks = json_get(f, undo ? "links_after" : "links_before");
	char *dir = NULL, *data = NULL, hex[SHA256_HEX_LEN + 1];
	struct wsnap_to to = { -1, NULL, NULL, false };
	enum wsnap_partner partner = WP_NONE;
	bool split = false, relink;
	size_t len = 0;
	struct stat st;
	int rc = 1, pfd = -1;

	if (lost != NULL && (strcmp(lost, "both") == 0 || strcmp(lost, undo ? "before" : "after") == 0)) {
		buf_printf(report, "%s: not restorable (%s)\n", path, json_str(f, "why", "not kept"));
		return 1;
	}
	/* what the command left was not kept: whether the user changed it since cannot be told */
	if (lost != NULL && (have == WK_FILE || have == WK_LINK)) {
		buf_printf(report, "%s: left alone: what the command left was not kept (%s)\n", path,
		    json_str(f, "why", "not kept"));
		return 1;
	}
	wsnap_split(path, &dir, &base);
	if (!wsnap_path_ok(ws, path, base)) {
		buf_printf(report, "%s: not a path inside the workspace: left alone\n", path);
		free(dir);
		return 1;
	}
	if (sandbox_walk(&sb, dir, SANDBOX_EDIT, want != WK_NONE ? SANDBOX_PARENTS : 0, &at, &err) == -1)
		goto out;
	/*
	 * The record's paths are reached through directories only: a link on
	 * the way now (a directory replaced by one, and left so) leads to
	 * what the record is not about, inside the workspace or out.
	 */
	if (strcmp(at.rel, dir) != 0) {
		buf_printf(&err, "its directory %s is reached through a link now (it is %s): left alone",
		    dir, at.rel);
		sandbox_at_release(&at);
		goto out;
	}
	/* the walk makes the missing parents of dir; dir itself too (its own entry sets its mode) */
	if (!at.exists && want != WK_NONE && at.dirfd != -1 && mkdirat(at.dirfd, at.name, 0700) == 0) {
		sandbox_at_release(&at);
		if (sandbox_walk(&sb, dir, SANDBOX_EDIT, 0, &at, &err) == -1)
			goto out;
	}
	if (!at.exists) {
		sandbox_at_release(&at);
		if (want == WK_NONE && (have == WK_NONE || force)) {
			rc = 0;
			goto out;
		}
		buf_puts(&err, "its directory is gone");
		goto out;
	}
	pfd = sandbox_open_at(&at, O_RDONLY | O_DIRECTORY, &err);
	sandbox_at_release(&at);
	if (pfd == -1)
		goto out;
	cur = wsnap_current(ws, pfd, base, &st, hex, &data, &len);
	if (want == WK_FILE && links != NULL)
		partner = wsnap_partner(ws, links, cur == WK_FILE ? &st : NULL, wanth, mode, &to);
	/* one inode with a name it was not linked to: made a file of its own */
	if (want == WK_FILE && cur == WK_FILE && links != NULL && st.st_nlink > 1)
		split = wsnap_linked_to(ws, unlinks, links, &st);
	/*
	 * Already as wanted (a second redo, a command undone by hand); a file
	 * that holds what it should but is not the hard link it was, or is
	 * one it was not, is linked again or split.
	 */
	relink = partner == WP_FOUND || split;
	if (cur == want && (want == WK_NONE || want == WK_DIR || want == WK_FIFO ||
	    (wanth != NULL && strcmp(hex, wanth) == 0)) &&
	    (want == WK_NONE || (st.st_mode & 07777) == mode || want == WK_LINK) && !relink) {
		rc = 0;
		goto out;
	}
	/* relinking (or splitting) what already holds the wanted bytes loses nothing */
	if (!force && !(cur == want && relink && wanth != NULL && strcmp(hex, wanth) == 0) &&
	    (cur != have || ((have == WK_FILE || have == WK_LINK) &&
	    (haveh == NULL || strcmp(hex, haveh) != 0)))) {
		buf_printf(report, "%s changed since the command tandem ran left it: left alone\n", path);
		goto out;
	}
	/* What is there now is kept too, so nothing is lost even when forced. */
	if (cur == WK_FILE && data != NULL && !wsnap_secret(data, len)) {
		struct wsnap_scan sc;

		memset(&sc, 0, sizeof sc);
		sc.ws = ws;
		sc.err = &err;
		sc.storefd = wsnap_store_fd(ws, &err);
		if (sc.storefd == -1 || wsnap_put(&sc, -1, NULL, data, len, hex) == -1) {
			if (sc.storefd != -1)
				close(sc.storefd);
			if (ws->sess != NULL)
				session_fail_in(ws->sess, "snapshots/", ws->store, errno != 0 ? errno : EIO);
			rc = -1;
			goto out;
		}
		close(sc.storefd);
	}
	if (wsnap_apply(ws, pfd, base, path, cur, &st, want, wanth, mode, partner == WP_FOUND ? &to : NULL,
	    report, &err) == -1)
		goto out;
	rc = 0;
	if (want == WK_NONE)
		buf_printf(report, "removed %s%s\n", path, cur == WK_DIR ? "/" : "");
	else if (to.linked)
		buf_printf(report, "restored %s (a hard link of %s)\n", path, to.path);
	else if (split && partner == WP_NONE)
		buf_printf(report, "restored %s as a file of its own\n", path);
	else if (cur == want && want != WK_LINK && (wanth == NULL || strcmp(hex, wanth) == 0))
		buf_printf(report, "mode of %s set to %03o\n", path, mode & 07777);
	else
		buf_printf(report, "restored %s%s\n", path, want == WK_DIR ? "/" : "");
out:
	if (rc != 0 && err.len > 0)
		buf_printf(report, "%s: %s\n", path, buf_cstr(&err));
	if (pfd != -1)
		close(pfd);
	wsnap_to_release(&to);
	free(dir);
	free(data);
	buf_release(&err);
	return rc;
}

int
wsnap_restore(struct wsnap *ws, const cJSON *rec, bool undo, bool force, struct buf *report)
{
	const cJSON *files = json_get(rec, "files"), *nt;
	int n = cJSON_GetArraySize(files), i, pass, rc = 0;

	/* a record that only notes what no snapshot covers */
	if (json_bool(rec, "running", false)) {
		if (undo)
			cJSON_ArrayForEach(nt, json_get(rec, "notes"))
				if (cJSON_IsString(nt))
					buf_printf(report, "%s\n", nt->valuestring);
		return 0;
	}
	if (ws == NULL) {
		buf_printf(report, "the changes of %s were recorded but snapshots are off "
		    "(snapshots.enabled): left alone\n", json_str(rec, "by", "a command"));
		return 1;
	}
	/*
	 * Directories to be there first, parents before what they hold; then
	 * everything else, what a directory holds before the directory.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = pass == 0 ? 0 : n - 1; pass == 0 ? i < n : i >= 0; i += pass == 0 ? 1 : -1) {
			const cJSON *f = cJSON_GetArrayItem(files, i);
			bool dir = wsnap_kind_named(json_str(f, undo ? "was" : "now", NULL)) == WK_DIR;
			int r;

			if (dir != (pass == 0))
				continue;
			r = wsnap_restore_one(ws, f, undo, force, report);
			if (r == -1)
				return -1;
			if (r == 1)
				rc = 1;
		}
	}
	if (json_bool(rec, "git", false))
		buf_printf(report, "%s changed .git/: its files were rewound, the repository's HEAD, "
		    "index and refs were not\n", json_str(rec, "by", "a command"));
	/* the files changed under the index: the next walk reads them */
	ws->dirty = true;
	return rc;
}

/* --- the browser's lines ------------------------------------------------- */

/* How the browser names a change: its sign and word. */
enum wsnap_verb { WV_CREATED, WV_DELETED, WV_REPLACED, WV_MODE, WV_CHANGED, WV_LINKS };

static const struct {
	const char	*sign;
	const char	*word;
} wsnap_verbs[] = {
	{ "+", "created" }, { "-", "deleted" }, { "~", "replaced" }, { "m", "mode" }, { "~", "changed" },
	{ "~", "hard links changed" },
};

static enum wsnap_verb
wsnap_verb_of(const cJSON *f)
{
	const char *was = json_str(f, "was", NULL), *now = json_str(f, "now", NULL);

	if (was == NULL)
		return WV_CREATED;
	if (now == NULL)
		return WV_DELETED;
	if (strcmp(was, now) != 0)
		return WV_REPLACED;
	if (strcmp(json_str(f, "before", ""), json_str(f, "after", "")) == 0 &&
	    json_str(f, "lost", NULL) == NULL) {
		/* the same bytes and mode on another inode: only what it is linked to changed */
		if (json_int(f, "mode_before", -1) == json_int(f, "mode_after", -1))
			return WV_LINKS;
		return WV_MODE;
	}
	return WV_CHANGED;
}

void
wsnap_describe(const cJSON *rec, const char *who, struct buf *out)
{
	const cJSON *f, *nt;
	const char *by = json_str(rec, "by", "command");

	/* Who wrote it, in the user's words: a call's id means nothing to them. */
	if (who != NULL)
		buf_printf(out, "  %s:\n", who);
	else
		buf_printf(out, "  %s:\n", strcmp(by, "!command") == 0 ? "your ! command" : by);
	cJSON_ArrayForEach(f, json_get(rec, "files")) {
		enum wsnap_verb v = wsnap_verb_of(f);
		const char *kind = json_str(f, v == WV_DELETED ? "was" : "now", "");
		int64_t mb = json_int(f, "mode_before", -1), ma = json_int(f, "mode_after", -1);

		buf_printf(out, "    %s %s%s  %s", wsnap_verbs[v].sign, json_str(f, "path", ""),
		    strcmp(kind, "dir") == 0 ? "/" : "", wsnap_verbs[v].word);
		if ((v == WV_MODE || v == WV_CHANGED) && mb != ma)
			buf_printf(out, " %03llo -> %03llo", (unsigned long long)mb, (unsigned long long)ma);
		if (json_str(f, "lost", NULL) != NULL)
			buf_printf(out, "  (not restorable: %s)", json_str(f, "why", ""));
		buf_putc(out, '\n');
	}
	if (json_bool(rec, "git", false))
		buf_puts(out, "    ! changed .git/: files can be rewound, HEAD and the index are not\n");
	cJSON_ArrayForEach(nt, json_get(rec, "notes"))
		if (cJSON_IsString(nt))
			buf_printf(out, "    ! %s\n", nt->valuestring);
}

void
wsnap_turn_add(cJSON *turn, const cJSON *rec, const char *who)
{
	struct buf b = BUF_INIT(1 << 20);
	cJSON *lines;
	const char *p, *nl;

	if (!wsnap_is_record(rec))
		return;
	lines = json_get(turn, "changes");
	if (lines == NULL)
		lines = cJSON_AddArrayToObject(turn, "changes");
	wsnap_describe(rec, who, &b);
	for (p = buf_cstr(&b); (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		char *line = xstrndup(p, (size_t)(nl - p));

		cJSON_AddItemToArray(lines, cJSON_CreateString(line));
		free(line);
	}
	buf_release(&b);
}
