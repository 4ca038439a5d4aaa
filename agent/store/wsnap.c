/* Workspace snapshots around commands, and their rewind: see wsnap.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "buf.h"
#include "ev.h"
#include "file.h"
#include "fsutil.h"
#include "ignore.h"
#include "json.h"
#include "redact.h"
#include "sandbox.h"
#include "session.h"
#include "sha256.h"
#include "wsnap.h"
#include "wsnap_int.h"
#include "xalloc.h"

#define WSNAP_MB	((uint64_t)1 << 20)
#define WSNAP_IDX_MAGIC	"TWSNAPIDX2\n"
#define WSNAP_IDX_MAX	((size_t)1 << 30)
#define WSNAP_WARM_MS	40	/* the content one slice of the first snapshot reads for */
#define WSNAP_WARM_GAP	25	/* the loop's own time between two slices */
#define WSNAP_READ_MS	3000	/* a snapshot around a writer reads for at most this long */

const char *const wsnap_kinds[] = { "", "file", "dir", "link", "other", "fifo" };

#define WSNAP_LINKS_MAX	32	/* the names a record gives for one file's hard links */

static const struct {
	unsigned	 flag;
	const char	*why;
} wsnap_whys[] = {
	{ WF_IGNORED, "ignored by the ignore rules, so not kept" },
	{ WF_OVER, "larger than snapshots.max_file_mb, so not kept" },
	{ WF_BUDGET, "over the snapshot budget (snapshots.max_snapshot_mb, snapshots.store_mb)" },
	{ WF_UNREAD, "could not be read whole (unreadable, or changing while read)" },
	{ WF_SECRET, "it holds a key tandem keeps secret, so it is not copied" },
};
#define WSNAP_WHY_SOCKET "a socket, which only the process that made it can serve"
#define WSNAP_WHY_DEVICE "a device, which tandem does not make"

/* --- the index ----------------------------------------------------------- */

static uint64_t
wsnap_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void
wsnap_tab_put(struct wsnap *ws, struct wsnap_ent *e)
{
	size_t i = (size_t)wsnap_hash(e->path, strlen(e->path)) & (ws->cap - 1);

	while (ws->tab[i] != NULL)
		i = (i + 1) & (ws->cap - 1);
	ws->tab[i] = e;
}

/* Grow (or just rebuild) the table to hold need entries at half load. */
static void
wsnap_tab_resize(struct wsnap *ws, size_t need)
{
	struct wsnap_ent **old = ws->tab;
	size_t oldcap = ws->cap, i, cap = 1024;

	while (cap < need * 2)
		cap *= 2;
	ws->tab = xcalloc(cap, sizeof *ws->tab);
	ws->cap = cap;
	for (i = 0; i < oldcap; i++)
		if (old[i] != NULL)
			wsnap_tab_put(ws, old[i]);
	free(old);
}

struct wsnap_ent *
wsnap_find(const struct wsnap *ws, const char *path, size_t n)
{
	size_t i;

	if (ws->cap == 0)
		return NULL;
	i = (size_t)wsnap_hash(path, n) & (ws->cap - 1);
	while (ws->tab[i] != NULL) {
		if (strncmp(ws->tab[i]->path, path, n) == 0 && ws->tab[i]->path[n] == '\0')
			return ws->tab[i];
		i = (i + 1) & (ws->cap - 1);
	}
	return NULL;
}

static struct wsnap_ent *
wsnap_add(struct wsnap *ws, const char *path, size_t n)
{
	struct wsnap_ent *e = xcalloc(1, sizeof *e);

	e->path = xstrndup(path, n);
	if ((ws->n + 1) * 2 > ws->cap)
		wsnap_tab_resize(ws, ws->n + 1);
	wsnap_tab_put(ws, e);
	ws->n++;
	return e;
}

/* Drop the entries whose gen is not gen (the walk did not see them). */
static void
wsnap_sweep(struct wsnap *ws, uint32_t gen)
{
	size_t i, kept = 0;

	for (i = 0; i < ws->cap; i++) {
		struct wsnap_ent *e = ws->tab[i];

		if (e == NULL)
			continue;
		if (e->gen != gen) {
			free(e->path);
			free(e);
			ws->tab[i] = NULL;
		} else {
			kept++;
		}
	}
	ws->n = kept;
	wsnap_tab_resize(ws, kept);
}

enum wsnap_kind
wsnap_kind_of(mode_t m)
{
	if (S_ISREG(m))
		return WK_FILE;
	if (S_ISDIR(m))
		return WK_DIR;
	if (S_ISLNK(m))
		return WK_LINK;
	if (S_ISFIFO(m))
		return WK_FIFO;
	return WK_OTHER;
}

static int64_t
wsnap_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static bool
wsnap_stat_same(const struct wsnap_ent *e, const struct stat *st)
{
	return e->dev == (uint64_t)st->st_dev && e->ino == (uint64_t)st->st_ino &&
	    e->size == (uint64_t)st->st_size && e->mtime == wsnap_ns(&st->st_mtim) &&
	    e->ctime == wsnap_ns(&st->st_ctim) && e->mode == (uint32_t)st->st_mode;
}

static void
wsnap_stat_set(struct wsnap_ent *e, const struct stat *st)
{
	e->dev = (uint64_t)st->st_dev;
	e->ino = (uint64_t)st->st_ino;
	e->size = (uint64_t)st->st_size;
	e->mtime = wsnap_ns(&st->st_mtim);
	e->ctime = wsnap_ns(&st->st_ctim);
	e->mode = (uint32_t)st->st_mode;
	e->kind = (uint8_t)wsnap_kind_of(st->st_mode);
}

static int64_t
wsnap_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return wsnap_ns(&t);
}

/* --- the index file ------------------------------------------------------ */

static void
wsnap_put_u64(struct buf *b, uint64_t v)
{
	unsigned char c[8];
	int i;

	for (i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	buf_append(b, c, 8);
}

static uint64_t
wsnap_get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Write the index next to the session's log (atomically).  0 or -1. */
static int
wsnap_save(struct wsnap *ws)
{
	struct buf b = BUF_INIT(WSNAP_IDX_MAX), err = BUF_INIT(4096);
	char hex[SHA256_HEX_LEN + 1];
	size_t i;
	int rc = 0;

	if (ws->idxpath == NULL || !ws->dirty)
		return 0;
	buf_puts(&b, WSNAP_IDX_MAGIC);
	wsnap_put_u64(&b, (uint64_t)ws->last_time);
	wsnap_put_u64(&b, ws->n);
	for (i = 0; i < ws->cap; i++) {
		const struct wsnap_ent *e = ws->tab[i];
		size_t n;

		if (e == NULL)
			continue;
		n = strlen(e->path);
		wsnap_put_u64(&b, n);
		buf_append(&b, e->path, n);
		wsnap_put_u64(&b, e->dev);
		wsnap_put_u64(&b, e->ino);
		wsnap_put_u64(&b, e->size);
		wsnap_put_u64(&b, (uint64_t)e->mtime);
		wsnap_put_u64(&b, (uint64_t)e->ctime);
		wsnap_put_u64(&b, e->mode);
		buf_putc(&b, e->kind);
		buf_putc(&b, e->flags);
		buf_append(&b, e->hash[0] != '\0' ? e->hash : "-", e->hash[0] != '\0' ? SHA256_HEX_LEN : 1);
	}
	if (b.data == NULL) {
		rc = -1;
		errno = EFBIG;
	} else {
		sha256_hex(b.data, b.len, hex);
		buf_append(&b, hex, SHA256_HEX_LEN);
		errno = 0;
		rc = session_write_atomic(ws->idxpath, b.data, b.len, &err);
		if (rc == 0)
			memcpy(ws->saved, hex, sizeof hex);
	}
	if (rc == -1 && ws->sess != NULL)
		session_fail(ws->sess, "wsnap.idx", errno != 0 ? errno : EIO);
	if (rc == 0)
		ws->dirty = false;
	buf_release(&b);
	buf_release(&err);
	return rc;
}

/* Read the index back; a damaged or missing file leaves it empty (a full walk rebuilds it). */
static void
wsnap_load(struct wsnap *ws)
{
	struct buf err = BUF_INIT(4096);
	char *data = NULL, hex[SHA256_HEX_LEN + 1];
	const unsigned char *p, *end;
	size_t len = 0, ml = strlen(WSNAP_IDX_MAGIC);
	uint64_t n, i;

	if (ws->idxpath == NULL || fsutil_read_file(ws->idxpath, WSNAP_IDX_MAX, &data, &len, &err) != 0)
		goto out;
	if (len < ml + 16 + SHA256_HEX_LEN || memcmp(data, WSNAP_IDX_MAGIC, ml) != 0)
		goto out;
	sha256_hex(data, len - SHA256_HEX_LEN, hex);
	if (memcmp(hex, data + len - SHA256_HEX_LEN, SHA256_HEX_LEN) != 0)
		goto out;
	p = (const unsigned char *)data + ml;
	end = (const unsigned char *)data + len - SHA256_HEX_LEN;
	ws->last_time = (int64_t)wsnap_get_u64(p);
	n = wsnap_get_u64(p + 8);
	p += 16;
	for (i = 0; i < n; i++) {
		struct wsnap_ent *e;
		uint64_t pl;
		size_t hl;

		if (end - p < 8)
			break;
		pl = wsnap_get_u64(p);
		p += 8;
		if (pl == 0 || pl > PATH_MAX || (uint64_t)(end - p) < pl + 48 + 3)
			break;
		e = wsnap_add(ws, (const char *)p, (size_t)pl);
		p += pl;
		e->dev = wsnap_get_u64(p);
		e->ino = wsnap_get_u64(p + 8);
		e->size = wsnap_get_u64(p + 16);
		e->mtime = (int64_t)wsnap_get_u64(p + 24);
		e->ctime = (int64_t)wsnap_get_u64(p + 32);
		e->mode = (uint32_t)wsnap_get_u64(p + 40);
		e->kind = p[48];
		e->flags = p[49];
		p += 50;
		hl = *p == '-' ? 1 : SHA256_HEX_LEN;
		if ((size_t)(end - p) < hl || e->kind > WK_LAST)
			break;
		/* an index written before FIFOs were a kind of their own */
		if (e->kind == WK_OTHER)
			e->kind = (uint8_t)wsnap_kind_of(e->mode);
		if (hl == SHA256_HEX_LEN)
			memcpy(e->hash, p, SHA256_HEX_LEN);
		p += hl;
	}
	if (i != n || p != end) {
		/* Damaged: start over with an empty index. */
		wsnap_sweep(ws, ws->gen + 1);
		ws->last_time = 0;
	} else {
		memcpy(ws->saved, hex, sizeof hex);
	}
out:
	free(data);
	buf_release(&err);
}

/* --- the store ----------------------------------------------------------- */

/* mkdir -p for the store (0700): it is tandem's own, below TANDEM_HOME. */
static int
wsnap_mkdirs(const char *dir, struct buf *err)
{
	char *p = xstrdup(dir), *s;
	int rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST) {
			buf_printf(err, "cannot make the snapshot store %s: %s", p, strerror(errno));
			rc = -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

int
wsnap_store_fd(const struct wsnap *ws, struct buf *err)
{
	int fd;

	if (wsnap_mkdirs(ws->store, err) == -1)
		return -1;
	fd = open(ws->store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		buf_printf(err, "cannot open the snapshot store %s: %s", ws->store, strerror(errno));
	return fd;
}

static void
wsnap_store_fail(struct wsnap_scan *sc, const char *what)
{
	if (sc->errnum == 0) {
		sc->errnum = errno != 0 ? errno : EIO;
		buf_printf(sc->err, "cannot write the snapshot store %s (%s): %s", sc->ws->store, what,
		    strerror(sc->errnum));
	}
}

/*
 * Store len bytes of data (the content of srcfd, which may be cloned
 * instead of copied) under its hash.  0 stored, 1 not kept (the store's
 * budget), 2 the source changed after it was read (a clone would differ),
 * -1 a failed write.
 */
int
wsnap_put(struct wsnap_scan *sc, int srcfd, const struct stat *was, const char *data, size_t len,
    char hex[SHA256_HEX_LEN + 1])
{
	struct wsnap *ws = sc->ws;
	struct stat st;
	char tmp[SHA256_HEX_LEN + 40];
	bool cloned = false;
	size_t off = 0;
	int fd, n;

	sha256_hex(data, len, hex);
	if (fstatat(sc->storefd, hex, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == len) {
		/* in use again: the pruning goes by age */
		utimensat(sc->storefd, hex, NULL, 0);
		return 0;
	}
	if (ws->set.store_mb > 0 && ws->store_bytes + len > (uint64_t)ws->set.store_mb * WSNAP_MB)
		return 1;
	n = snprintf(tmp, sizeof tmp, ".tmp.%ld.%s", (long)getpid(), hex);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return -1;
	errno = 0;
	fd = openat(sc->storefd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1) {
		wsnap_store_fail(sc, "open");
		return -1;
	}
#ifdef FICLONE
	if (srcfd >= 0 && len > 0 && ioctl(fd, FICLONE, srcfd) == 0) {
		cloned = true;
		if (fstat(srcfd, &st) == -1 || st.st_size != was->st_size ||
		    wsnap_ns(&st.st_mtim) != wsnap_ns(&was->st_mtim) ||
		    wsnap_ns(&st.st_ctim) != wsnap_ns(&was->st_ctim)) {
			close(fd);
			unlinkat(sc->storefd, tmp, 0);
			return 2;
		}
	}
#else
	(void)srcfd;
	(void)was;
#endif
	while (!cloned && off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			wsnap_store_fail(sc, "write");
			close(fd);
			unlinkat(sc->storefd, tmp, 0);
			return -1;
		}
		off += (size_t)w;
	}
	if (close(fd) == -1 || renameat(sc->storefd, tmp, sc->storefd, hex) == -1) {
		wsnap_store_fail(sc, "rename");
		unlinkat(sc->storefd, tmp, 0);
		return -1;
	}
	ws->store_bytes += len;
	sc->wrote = true;
	return 0;
}

static void
wsnap_rbuf(struct wsnap *ws, size_t n)
{
	if (ws->rcap < n + 1) {
		ws->rcap = n + 1 < 65536 ? 65536 : n + 1;
		free(ws->rbuf);
		ws->rbuf = xmalloc(ws->rcap);
	}
}

/* Does data hold a secret of the redact registry (a provider key)? */
bool
wsnap_secret(const char *data, size_t n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	bool found;

	if (redact_count() == 0 || n < REDACT_MIN)
		return false;
	redact_text(data, n, &b);
	found = b.len != n || (n > 0 && memcmp(b.data, data, n) != 0);
	buf_release(&b);
	return found;
}

/*
 * Read, hash and keep the regular file name of dfd that lstat'ed as *st
 * (updated to the stat it had while read).  Sets e->hash and e->flags.
 * 0, or -1 when the store could not be written.
 */
static int
wsnap_capture_file(struct wsnap_scan *sc, int dfd, const char *name, struct stat *st,
    struct wsnap_ent *e)
{
	struct wsnap *ws = sc->ws;
	uint64_t cap = (uint64_t)ws->set.max_file_mb * WSNAP_MB;
	int tries, rc;

	e->hash[0] = '\0';
	e->flags &= (uint8_t)~(WF_KEPT | WF_WHY);
	if ((uint64_t)st->st_size > cap) {
		e->flags |= WF_OVER;
		return 0;
	}
	for (tries = 0; tries < 3; tries++) {
		struct stat a, b;
		size_t got = 0;
		ssize_t r;
		int fd;

		if (sc->read + (uint64_t)st->st_size > (uint64_t)ws->set.max_snapshot_mb * WSNAP_MB ||
		    (sc->deadline != 0 && ev_now_ms() > sc->deadline)) {
			e->flags |= WF_BUDGET;
			sc->pending++;
			return 0;
		}
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd == -1)
			break;
		if (fstat(fd, &a) == -1 || !S_ISREG(a.st_mode) || a.st_ino != st->st_ino ||
		    (uint64_t)a.st_size > cap) {
			close(fd);
			break;
		}
		wsnap_rbuf(ws, (size_t)a.st_size);
		/* one byte more than the size: a file that grew is read again */
		while (got <= (size_t)a.st_size &&
		    (r = read(fd, ws->rbuf + got, (size_t)a.st_size + 1 - got)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			got += (size_t)r;
		}
		sc->read += got;
		if (got != (size_t)a.st_size) {
			close(fd);
			*st = a;
			continue;
		}
		if (wsnap_secret(ws->rbuf, got)) {
			close(fd);
			*st = a;
			e->flags |= WF_SECRET;
			return 0;
		}
		rc = wsnap_put(sc, fd, &a, ws->rbuf, got, e->hash);
		if (fstat(fd, &b) == -1)
			b = a;
		close(fd);
		if (rc == -1)
			return -1;
		if (rc == 2 || b.st_size != a.st_size || wsnap_ns(&b.st_mtim) != wsnap_ns(&a.st_mtim) ||
		    wsnap_ns(&b.st_ctim) != wsnap_ns(&a.st_ctim)) {
			*st = b;
			e->hash[0] = '\0';
			continue;
		}
		*st = b;
		if (rc == 1) {
			e->hash[0] = '\0';
			e->flags |= WF_BUDGET;
		} else {
			e->flags |= WF_KEPT;
		}
		return 0;
	}
	e->hash[0] = '\0';
	e->flags |= WF_UNREAD;
	return 0;
}

/* A symbolic link is kept as its target's bytes. */
static int
wsnap_capture_link(struct wsnap_scan *sc, int dfd, const char *name, struct wsnap_ent *e)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, target, sizeof target);
	int rc;

	e->hash[0] = '\0';
	e->flags &= (uint8_t)~(WF_KEPT | WF_WHY);
	if (n < 0 || (size_t)n >= sizeof target) {
		e->flags |= WF_UNREAD;
		return 0;
	}
	rc = wsnap_put(sc, -1, NULL, target, (size_t)n, e->hash);
	if (rc == -1)
		return -1;
	if (rc == 0)
		e->flags |= WF_KEPT;
	else {
		e->flags |= WF_BUDGET;
		e->hash[0] = '\0';
	}
	return 0;
}

/* --- the walk and the changes -------------------------------------------- */

/* One side of a change. */
struct wsnap_side {
	uint8_t		 kind, flags;
	uint32_t	 mode;
	uint64_t	 size, dev, ino;
	int64_t		 mtime, ctime;
	char		 hash[SHA256_HEX_LEN + 1];
};

static void
wsnap_side_of(const struct wsnap_ent *e, struct wsnap_side *s)
{
	s->kind = e->kind;
	s->flags = e->flags;
	s->mode = e->mode;
	s->size = e->size;
	s->dev = e->dev;
	s->ino = e->ino;
	s->mtime = e->mtime;
	s->ctime = e->ctime;
	memcpy(s->hash, e->hash, sizeof s->hash);
}

static const char *
wsnap_why(const struct wsnap_side *s)
{
	size_t i;

	if (s->kind == WK_OTHER)
		return S_ISSOCK(s->mode) ? WSNAP_WHY_SOCKET : WSNAP_WHY_DEVICE;
	for (i = 0; i < sizeof wsnap_whys / sizeof wsnap_whys[0]; i++)
		if (s->flags & wsnap_whys[i].flag)
			return wsnap_whys[i].why;
	return "not a regular file, link, FIFO or directory, so not kept";
}

/* Is there content the side would need that is not kept? */
static bool
wsnap_side_lost(const struct wsnap_side *s)
{
	return s->kind == WK_OTHER || ((s->kind == WK_FILE || s->kind == WK_LINK) &&
	    !(s->flags & WF_KEPT));
}

static void
wsnap_add_side(cJSON *o, const char *hk, const char *kk, const char *mk, const struct wsnap_side *s)
{
	if (s->kind == WK_NONE || s->hash[0] == '\0')
		cJSON_AddNullToObject(o, hk);
	else
		cJSON_AddStringToObject(o, hk, s->hash);
	if (s->kind != WK_NONE) {
		cJSON_AddStringToObject(o, kk, wsnap_kinds[s->kind]);
		cJSON_AddNumberToObject(o, mk, s->mode & 07777);
	}
}

/* --- hard links ---------------------------------------------------------- */

static int
wsnap_cmp_lnk(const void *x, const void *y)
{
	const struct wsnap_lnk *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return strcmp(a->path, b->path);
}

/*
 * The index's files that share an inode with another of them (all of
 * them, or only those the walk of gen saw), sorted by inode and path.
 * The array is the caller's; the paths are the entries'.
 */
static struct wsnap_lnk *
wsnap_links(const struct wsnap *ws, bool seen, size_t *n)
{
	struct wsnap_lnk *v = xcalloc(ws->n + 1, sizeof *v);
	size_t i, k = 0, j, run;

	for (i = 0; i < ws->cap; i++) {
		const struct wsnap_ent *e = ws->tab[i];

		if (e != NULL && e->kind == WK_FILE && (!seen || e->gen == ws->gen) && k < ws->n) {
			v[k].dev = e->dev;
			v[k].ino = e->ino;
			v[k].path = e->path;
			k++;
		}
	}
	qsort(v, k, sizeof *v, wsnap_cmp_lnk);
	/* only the runs of two or more */
	for (i = 0, j = 0; i < k; i += run) {
		for (run = 1; i + run < k && v[i + run].dev == v[i].dev && v[i + run].ino == v[i].ino; run++)
			;
		if (run > 1) {
			memmove(&v[j], &v[i], run * sizeof *v);
			j += run;
		}
	}
	*n = j;
	return v;
}

/* key: the other names of the inode dev/ino in v, but self (none: no key). */
static void
wsnap_links_put(cJSON *o, const char *key, const struct wsnap_lnk *v, size_t n, uint64_t dev,
    uint64_t ino, const char *self)
{
	size_t lo = 0, hi = n, mid;
	cJSON *arr = NULL;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].dev < dev || (v[mid].dev == dev && v[mid].ino < ino))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].dev == dev && v[lo].ino == ino; lo++) {
		if (strcmp(v[lo].path, self) == 0)
			continue;
		if (arr == NULL)
			arr = cJSON_AddArrayToObject(o, key);
		if (cJSON_GetArraySize(arr) >= WSNAP_LINKS_MAX)
			break;
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[lo].path));
	}
}

static void
wsnap_pend_add(struct wsnap_scan *sc, cJSON *o, const struct wsnap_side *b, const struct wsnap_side *a,
    bool only)
{
	struct wsnap_pend *p;

	if (sc->npend == sc->cappend) {
		sc->cappend = sc->cappend ? sc->cappend * 2 : 64;
		sc->pend = xreallocarray(sc->pend, sc->cappend, sizeof *sc->pend);
	}
	p = &sc->pend[sc->npend++];
	p->o = o;
	p->dev[0] = b->dev;
	p->ino[0] = b->ino;
	p->file[0] = b->kind == WK_FILE;
	p->dev[1] = a->dev;
	p->ino[1] = a->ino;
	p->file[1] = a->kind == WK_FILE;
	p->only = only;
}

/*
 * Each change with a file on a side gets the other names of its inode,
 * within the roots, on that side ("links_before", "links_after"), so that
 * a restore makes them one file again.  A change recorded only because
 * the inode changed goes when its names did not.
 */
static void
wsnap_links_add(struct wsnap_scan *sc)
{
	struct wsnap_lnk *la;
	const cJSON *lb, *lk;
	size_t nla, i;

	if (sc->npend == 0)
		return;
	la = wsnap_links(sc->ws, true, &nla);
	for (i = 0; i < sc->npend; i++) {
		struct wsnap_pend *p = &sc->pend[i];
		const char *path = json_str(p->o, "path", "");

		if (p->file[0])
			wsnap_links_put(p->o, "links_before", sc->lb, sc->nlb, p->dev[0], p->ino[0], path);
		if (p->file[1])
			wsnap_links_put(p->o, "links_after", la, nla, p->dev[1], p->ino[1], path);
		lb = json_get(p->o, "links_before");
		lk = json_get(p->o, "links_after");
		if (p->only && ((lb == NULL && lk == NULL) || cJSON_Compare(lb, lk, true))) {
			cJSON_Delete(cJSON_DetachItemViaPointer(sc->changes, p->o));
			continue;
		}
		/* a file on both sides, linked on one only: the other says it was not */
		if (p->file[0] && p->file[1] && (lb == NULL) != (lk == NULL))
			cJSON_AddArrayToObject(p->o, lb == NULL ? "links_before" : "links_after");
	}
	free(la);
}

/* Record the change of path from b to a, if there is one. */
static void
wsnap_change(struct wsnap_scan *sc, const char *path, const struct wsnap_side *b,
    const struct wsnap_side *a)
{
	bool content, lostb, losta, only = false;
	cJSON *o;

	if (sc->changes == NULL)
		return;
	if (b->kind == a->kind) {
		if (b->kind == WK_DIR || b->kind == WK_FIFO)
			content = false;
		else if ((b->flags & WF_KEPT) && (a->flags & WF_KEPT))
			content = strcmp(b->hash, a->hash) != 0;
		else	/* one side not kept: only the stat can tell */
			content = b->size != a->size || b->mtime != a->mtime ||
			    b->ctime != a->ctime || b->ino != a->ino;
		/* the same bytes on another inode: a hard link broken or made, perhaps */
		if (!content && (b->mode & 07777) == (a->mode & 07777)) {
			if (b->kind != WK_FILE || (b->dev == a->dev && b->ino == a->ino))
				return;
			only = true;
		}
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", path);
	wsnap_add_side(o, "before", "was", "mode_before", b);
	wsnap_add_side(o, "after", "now", "mode_after", a);
	lostb = wsnap_side_lost(b);
	losta = wsnap_side_lost(a);
	if (lostb || losta) {
		cJSON_AddStringToObject(o, "lost", lostb && losta ? "both" : lostb ? "before" : "after");
		cJSON_AddStringToObject(o, "why", wsnap_why(lostb ? b : a));
	}
	cJSON_AddItemToArray(sc->changes, o);
	if (b->kind == WK_FILE || a->kind == WK_FILE)
		wsnap_pend_add(sc, o, b, a, only);
}

bool
wsnap_unchanged(const struct wsnap *ws, const struct wsnap_ent *e, const struct stat *st, bool ignored)
{
	/* content that did not fit the last time is tried again */
	bool retry = e->kind == WK_FILE && !(e->flags & (WF_KEPT | WF_IGNORED | WF_OVER | WF_SECRET));

	return wsnap_stat_same(e, st) && e->mtime < ws->last_time && !retry &&
	    (bool)(e->flags & WF_IGNORED) == ignored;
}

int
wsnap_visit(struct wsnap_scan *sc, int dfd, const char *name, struct stat *st, bool ignored)
{
	struct wsnap *ws = sc->ws;
	const char *path = buf_cstr(&sc->path);
	struct wsnap_ent *e = wsnap_find(ws, path, sc->path.len);
	struct wsnap_side before = { 0 }, after;
	enum wsnap_kind kind = wsnap_kind_of(st->st_mode);

	if (e == NULL) {
		e = wsnap_add(ws, path, sc->path.len);
		path = e->path;
		ws->dirty = true;
	} else {
		wsnap_side_of(e, &before);
		/* content that did not fit the last time is tried again */
		if (wsnap_unchanged(ws, e, st, ignored)) {
			e->gen = ws->gen;
			return 0;
		}
		ws->dirty = true;
	}
	e->gen = ws->gen;
	e->flags = ignored ? WF_IGNORED : 0;
	if (!ignored && kind == WK_FILE) {
		if (wsnap_capture_file(sc, dfd, name, st, e) == -1)
			return -1;
	} else if (!ignored && kind == WK_LINK) {
		if (wsnap_capture_link(sc, dfd, name, e) == -1)
			return -1;
	} else {
		e->hash[0] = '\0';
	}
	wsnap_stat_set(e, st);
	wsnap_side_of(e, &after);
	wsnap_change(sc, e->path, &before, &after);
	return 0;
}

/* The stat signature of the repository's state: HEAD, the index, the refs. */
static char *
wsnap_git_sig(int rootfd)
{
	static const char *const names[] = {
		".git", ".git/HEAD", ".git/index", ".git/refs/heads", ".git/packed-refs", ".git/ORIG_HEAD",
	};
	struct buf b = BUF_INIT(4096);
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct stat st;

		if (fstatat(rootfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			buf_printf(&b, "%llu:%lld:%lld;", (unsigned long long)st.st_ino,
			    (long long)st.st_size, (long long)wsnap_ns(&st.st_mtim));
		else
			buf_puts(&b, "-;");
		if (i == 0 && !(fstatat(rootfd, names[0], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode)))
			break;
	}
	return buf_detach(&b, NULL);
}

static int
wsnap_cmp_path(const void *x, const void *y)
{
	const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;

	return strcmp(json_str(a, "path", ""), json_str(b, "path", ""));
}

/* Sort the changes by path: parents before what is in them. */
static void
wsnap_sort(cJSON *changes)
{
	int n = cJSON_GetArraySize(changes), i;
	cJSON **v;

	if (n < 2)
		return;
	v = xcalloc((size_t)n, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = cJSON_DetachItemFromArray(changes, 0);
	qsort(v, (size_t)n, sizeof *v, wsnap_cmp_path);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(changes, v[i]);
	free(v);
}

/*
 * lstat of path (relative to rootfd, or absolute in an extra root, whose
 * path is a real one) reached through directories only: a link on the way
 * is not followed.  0, or -1 when it is not there so reached.
 */
static int
wsnap_lstat_beneath(int rootfd, const char *path, struct stat *st)
{
	const char *p = path, *slash;
	int fd, next, rc;

	fd = path[0] == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) :
	    fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	while (fd != -1 && *p == '/')
		p++;
	while (fd != -1 && (slash = strchr(p, '/')) != NULL) {
		char *name = xstrndup(p, (size_t)(slash - p));

		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		free(name);
		close(fd);
		fd = next;
		for (p = slash; *p == '/'; p++)
			;
	}
	if (fd == -1)
		return -1;
	rc = fstatat(fd, p, st, AT_SYMLINK_NOFOLLOW);
	close(fd);
	return rc;
}

/*
 * One walk of the workspace: the index brought up to date, the changes
 * since the last walk into changes (NULL: not recorded).  0 or -1.
 */
static int
wsnap_scan(struct wsnap *ws, cJSON *changes, bool *git, int64_t deadline, struct buf *err)
{
	struct wsnap_scan sc;
	int64_t start = wsnap_now();
	int rootfd, rc = 0;
	size_t i, gone = 0;
	char *sig;

	memset(&sc, 0, sizeof sc);
	sc.ws = ws;
	sc.changes = changes;
	sc.err = err;
	sc.deadline = deadline;
	buf_init(&sc.path, PATH_MAX);
	sc.storefd = wsnap_store_fd(ws, err);
	if (sc.storefd == -1) {
		if (ws->sess != NULL)
			session_fail_in(ws->sess, "snapshots/", ws->store, errno != 0 ? errno : EIO);
		return -1;
	}
	rootfd = open(ws->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd == -1) {
		buf_printf(err, "cannot open the workspace %s: %s", ws->root, strerror(errno));
		close(sc.storefd);
		return -1;
	}
	sig = wsnap_git_sig(rootfd);
	if (git != NULL)
		*git = ws->git != NULL && strcmp(sig, ws->git) != 0;
	free(ws->git);
	ws->git = sig;
	/* the hard links as the index has them, before the walk changes it */
	if (changes != NULL)
		sc.lb = wsnap_links(ws, false, &sc.nlb);
	ws->gen++;
	rc = wsnap_walk_root(&sc, rootfd, ws->root);
	close(rootfd);
	/* the extra roots: entries under their absolute paths, each with its own rules */
	for (i = 0; rc == 0 && ws->extra != NULL && ws->extra[i] != NULL; i++) {
		int xfd = open(ws->extra[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (xfd == -1)
			continue;
		buf_reset(&sc.path);
		buf_puts(&sc.path, ws->extra[i]);
		sc.rel = sc.path.len + 1;
		rc = wsnap_walk_root(&sc, xfd, ws->extra[i]);
		close(xfd);
		buf_reset(&sc.path);
		sc.rel = 0;
	}
	buf_release(&sc.path);
	if (rc == 0 && sc.wrote && (syncfs(sc.storefd) == -1 || fsync(sc.storefd) == -1)) {
		wsnap_store_fail(&sc, "fsync");
		rc = -1;
	}
	close(sc.storefd);
	if (rc == -1) {
		free(sc.lb);
		free(sc.pend);
		errno = sc.errnum;
		if (ws->sess != NULL)
			session_fail_in(ws->sess, "snapshots/", ws->store, sc.errnum != 0 ? sc.errnum : EIO);
		return -1;
	}
	free(ws->note);
	ws->note = NULL;
	if (sc.truncated) {
		struct buf b = BUF_INIT(4096);

		buf_printf(&b, "the workspace has more than %d files and directories: snapshots cover "
		    "the first %d, so commands' changes past them are not rewound (setting "
		    "snapshots.max_files)", ws->set.max_files, ws->set.max_files);
		ws->note = buf_detach(&b, NULL);
		/* what the walk did not reach is not taken for deleted */
		for (i = 0; i < ws->cap; i++)
			if (ws->tab[i] != NULL)
				ws->tab[i]->gen = ws->gen;
	}
	rootfd = open(ws->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < ws->cap; i++) {
		struct wsnap_ent *e = ws->tab[i];
		struct wsnap_side b, none = { 0 };
		struct stat st;

		if (e == NULL || e->gen == ws->gen)
			continue;
		ws->dirty = true;
		gone++;
		/*
		 * Still there, below a directory now ignored: out of the index,
		 * not deleted.  Reached through directories only: below a
		 * directory replaced by a link, what the link leads to is not it.
		 */
		if (rootfd != -1 && wsnap_lstat_beneath(rootfd, e->path, &st) == 0)
			continue;
		wsnap_side_of(e, &b);
		wsnap_change(&sc, e->path, &b, &none);
	}
	if (rootfd != -1)
		close(rootfd);
	/* before the sweep: the before side's names are entries' */
	wsnap_links_add(&sc);
	free(sc.lb);
	free(sc.pend);
	/* the table is rebuilt only when entries went */
	if (gone > 0)
		wsnap_sweep(ws, ws->gen);
	if (changes != NULL)
		wsnap_sort(changes);
	ws->last_time = start;
	ws->last_read = sc.read;
	ws->pending = sc.pending;
	if (sc.pending > 0 && ws->note == NULL) {
		struct buf b = BUF_INIT(4096);

		buf_printf(&b, "%zu files were not kept yet (over snapshots.max_snapshot_mb, "
		    "snapshots.store_mb or %d s of reading): a command's change to one of them "
		    "is not rewound", sc.pending, WSNAP_READ_MS / 1000);
		ws->note = buf_detach(&b, NULL);
	}
	return 0;
}

/* --- the API ------------------------------------------------------------- */

static void
wsnap_free_roots(struct wsnap *ws)
{
	size_t i;

	for (i = 0; ws->extra != NULL && ws->extra[i] != NULL; i++)
		free(ws->extra[i]);
	free(ws->extra);
	ws->extra = NULL;
}

void
wsnap_set_roots(struct wsnap *ws, const char *const *extra)
{
	size_t n = 0, i;

	if (ws == NULL)
		return;
	wsnap_free_roots(ws);
	while (extra != NULL && extra[n] != NULL)
		n++;
	if (n == 0)
		return;
	ws->extra = xcalloc(n + 1, sizeof *ws->extra);
	for (i = 0; i < n; i++)
		ws->extra[i] = xstrdup(extra[i]);
}

static int
wsnap_cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The hashes the index holds, sorted (the caller frees the array, not the strings). */
static const char **
wsnap_index_hashes(const struct wsnap *ws, size_t *n)
{
	const char **v = xcalloc(ws->n + 1, sizeof *v);
	size_t i;

	*n = 0;
	for (i = 0; i < ws->cap; i++)
		if (ws->tab[i] != NULL && (ws->tab[i]->flags & WF_KEPT) && *n < ws->n)
			v[(*n)++] = ws->tab[i]->hash;
	qsort(v, *n, sizeof *v, wsnap_cmp_str);
	return v;
}

/* One file of the store, for pruning. */
struct wsnap_obj {
	int64_t		 t;
	uint64_t	 size;
	bool		 ref;		/* a record of some session of the root names it */
	bool		 gone;
	char		 name[SHA256_HEX_LEN + 1];
};

static int
wsnap_cmp_obj(const void *x, const void *y)
{
	const struct wsnap_obj *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

static int
wsnap_cmp_objname(const void *x, const void *y)
{
	const struct wsnap_obj *a = x, *b = y;

	return strcmp(a->name, b->name);
}

/* Mark the objects of v (sorted by name) that the whole lines of p name; what is left over. */
static size_t
wsnap_refs_mark(struct wsnap_obj *v, size_t n, const char *p, size_t len)
{
	size_t at = 0, i;

	for (i = 0; i < len; i++) {
		struct wsnap_obj key, *o;

		if (p[i] != '\n')
			continue;
		if (i - at == SHA256_HEX_LEN) {
			memcpy(key.name, p + at, SHA256_HEX_LEN);
			key.name[SHA256_HEX_LEN] = '\0';
			o = bsearch(&key, v, n, sizeof *v, wsnap_cmp_objname);
			if (o != NULL)
				o->ref = true;
		}
		at = i + 1;
	}
	return len - at;
}

/* Does the session that owns refs file name still exist (unknown: yes)? */
static bool
wsnap_session_exists(const struct wsnap *ws, const char *name)
{
	struct buf p = BUF_INIT(PATH_MAX);
	struct stat st;
	bool there;

	if (ws->sessions == NULL)
		return true;
	buf_printf(&p, "%s/%s", ws->sessions, name);
	there = p.data == NULL || lstat(buf_cstr(&p), &st) == 0 || errno != ENOENT;
	buf_release(&p);
	return there;
}

/*
 * The store's refs files: the one of a session that is gone is dropped;
 * with v (sorted by name), what the others name is marked in it.  Read in
 * pieces, so a long history costs no memory.
 */
static void
wsnap_refs_scan(struct wsnap *ws, int storefd, struct wsnap_obj *v, size_t n)
{
	char chunk[64 * (SHA256_HEX_LEN + 1)];
	struct dirent *de;
	DIR *d;
	int fd = openat(storefd, "refs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t have = 0, left;
		ssize_t r;
		int rf;

		if (de->d_name[0] == '.')
			continue;
		if (!wsnap_session_exists(ws, de->d_name)) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (v == NULL)
			continue;
		rf = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (rf == -1)
			continue;
		while ((r = read(rf, chunk + have, sizeof chunk - have)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			have += (size_t)r;
			left = wsnap_refs_mark(v, n, chunk, have);
			/* a line longer than a hash is no hash: dropped with what is left */
			if (left > SHA256_HEX_LEN)
				left = 0;
			memmove(chunk, chunk + have - left, left);
			have = left;
		}
		close(rf);
	}
	closedir(d);
}

/*
 * How much the store holds.  Past the budget, oldest first down to three
 * quarters of it: first what no record of the root's sessions names, then
 * (still over) what records name; never what this index holds.  Cheap
 * within the budget: one stat a file, the refs files not read.
 */
static void
wsnap_prune(struct wsnap *ws)
{
	struct wsnap_obj *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t budget = (uint64_t)ws->set.store_mb * WSNAP_MB, total = 0;
	struct dirent *de;
	DIR *d;
	int fd = open(ws->store, O_RDONLY | O_DIRECTORY | O_CLOEXEC), pass;

	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (strlen(de->d_name) != SHA256_HEX_LEN ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof *v);
		}
		memset(&v[n], 0, sizeof v[n]);
		v[n].t = wsnap_ns(&st.st_mtim);
		v[n].size = (uint64_t)st.st_size;
		memcpy(v[n].name, de->d_name, sizeof v[n].name);
		total += v[n].size;
		n++;
	}
	if (budget > 0 && total > budget) {
		size_t nused;
		const char **used = wsnap_index_hashes(ws, &nused), *key;

		qsort(v, n, sizeof *v, wsnap_cmp_objname);
		wsnap_refs_scan(ws, dirfd(d), v, n);
		qsort(v, n, sizeof *v, wsnap_cmp_obj);
		for (pass = 0; pass < 2; pass++)
			for (i = 0; i < n && total > budget / 4 * 3; i++) {
				key = v[i].name;
				if (v[i].gone || v[i].ref != (pass == 1) ||
				    bsearch(&key, used, nused, sizeof *used, wsnap_cmp_str) != NULL)
					continue;
				if (unlinkat(dirfd(d), v[i].name, 0) == 0) {
					total -= v[i].size;
					v[i].gone = true;
				}
			}
		free(used);
	} else {
		wsnap_refs_scan(ws, dirfd(d), NULL, 0);
	}
	ws->store_bytes = total;
	closedir(d);
	free(v);
}

static uint64_t wsnap_epochs;

struct wsnap *
wsnap_new(const char *home, const char *root, struct session *sess,
    const struct wsnap_settings *set)
{
	struct buf p = BUF_INIT(PATH_MAX * 2);
	char key[SHA256_HEX_LEN + 1], *real;
	struct wsnap *ws;
	size_t n;

	if (set == NULL || !set->enabled || home == NULL || root == NULL || home[0] != '/')
		return NULL;
	ws = xcalloc(1, sizeof *ws);
	ws->root = xstrdup(root);
	wsnap_mkdirs(home, &p);
	buf_reset(&p);
	real = realpath(home, NULL);
	n = strlen(root);
	if (real != NULL && strncmp(real, root, n) == 0 && (real[n] == '/' || (n == 1 && root[0] == '/')))
		ws->skip = xstrdup(real + n + (n == 1 ? 0 : 1));
	else if (real != NULL && strcmp(real, root) == 0)
		ws->skip = xstrdup("");
	ws->home = real;
	ws->sess = sess;
	ws->set = *set;
	if (ws->set.max_files < 1)
		ws->set.max_files = 1;
	sha256_hex(root, strlen(root), key);
	buf_printf(&p, "%s/snapshots/%.16s", home, key);
	ws->store = buf_detach(&p, NULL);
	if (sess != NULL) {
		buf_printf(&p, "%s/wsnap.idx", session_dir(sess));
		ws->idxpath = buf_detach(&p, NULL);
		buf_printf(&p, "%s/refs/%s", ws->store, session_id(sess));
		ws->refs = buf_detach(&p, NULL);
	}
	buf_printf(&p, "%s/sessions", home);
	ws->sessions = buf_detach(&p, NULL);
	ws->epoch = ++wsnap_epochs;
	buf_release(&p);
	wsnap_tab_resize(ws, 0);
	wsnap_load(ws);
	wsnap_prune(ws);
	return ws;
}

void
wsnap_free(struct wsnap *ws)
{
	size_t i;

	if (ws == NULL)
		return;
	if (ws->warm_timer != 0)
		ev_timer_cancel(ws->loop, ws->warm_timer);
	for (i = 0; i < ws->cap; i++)
		if (ws->tab[i] != NULL) {
			free(ws->tab[i]->path);
			free(ws->tab[i]);
		}
	free(ws->tab);
	free(ws->root);
	wsnap_free_roots(ws);
	free(ws->skip);
	free(ws->home);
	free(ws->store);
	free(ws->idxpath);
	free(ws->git);
	free(ws->note);
	free(ws->rbuf);
	free(ws->sessions);
	free(ws->refs);
	free(ws);
}

const char *
wsnap_store(const struct wsnap *ws)
{
	return ws->store;
}

const char *
wsnap_note(const struct wsnap *ws)
{
	return ws != NULL ? ws->note : NULL;
}

size_t
wsnap_count(const struct wsnap *ws)
{
	return ws->n;
}

uint64_t
wsnap_last_read(const struct wsnap *ws)
{
	return ws->last_read;
}

/* One slice of the first snapshot, while no writer runs; again until nothing is left. */
static void
wsnap_warm_tick(struct ev_loop *loop, void *arg)
{
	struct wsnap *ws = arg;
	struct buf err = BUF_INIT(4096);

	ws->warm_timer = 0;
	if (ws->armed) {
		ws->warm_timer = ev_timer_add(loop, 200, wsnap_warm_tick, ws);
		return;
	}
	if (ws->sess != NULL && session_error(ws->sess) != NULL)
		return;
	if (wsnap_scan(ws, NULL, NULL, ev_now_ms() + WSNAP_WARM_MS, &err) == 0) {
		if (ws->pending > 0 && ws->last_read > 0)
			ws->warm_timer = ev_timer_add(loop, WSNAP_WARM_GAP, wsnap_warm_tick, ws);
		else
			wsnap_save(ws);	/* the next session of this one starts from it */
	}
	buf_release(&err);
}

void
wsnap_warm(struct wsnap *ws, struct ev_loop *loop)
{
	if (ws == NULL || loop == NULL || ws->warm_timer != 0)
		return;
	ws->loop = loop;
	ws->warm_timer = ev_timer_add(loop, 0, wsnap_warm_tick, ws);
}

bool
wsnap_warming(const struct wsnap *ws)
{
	return ws != NULL && ws->warm_timer != 0;
}

int
wsnap_before(struct wsnap *ws, struct buf *err)
{
	struct buf own = BUF_INIT(4096);
	int rc = 0;

	if (ws == NULL)
		return 0;
	if (ws->sess != NULL && session_error(ws->sess) != NULL)
		return -1;
	/* a ! command's window is open: this writer joins it (wsnap_join) */
	if (ws->armed && ws->users > 0) {
		ws->overlap = true;
		return 0;
	}
	if (wsnap_scan(ws, NULL, NULL, ev_now_ms() + WSNAP_READ_MS, err != NULL ? err : &own) == -1) {
		/* a failed store write fails the session; an unreadable workspace is only noted */
		rc = ws->sess != NULL && session_error(ws->sess) == NULL ? 0 : -1;
		if (rc == 0) {
			free(ws->note);
			ws->note = xstrdup(buf_cstr(err != NULL ? err : &own));
		}
	} else {
		ws->armed = true;
	}
	buf_release(&own);
	return rc;
}

cJSON *
wsnap_after(struct wsnap *ws, bool *git, struct buf *notes, struct buf *err)
{
	struct buf own = BUF_INIT(4096);
	cJSON *changes = cJSON_CreateArray(), *f;
	int rc;

	*git = false;
	if (ws == NULL || !ws->armed)
		return changes;
	ws->armed = false;
	rc = wsnap_scan(ws, changes, git, ev_now_ms() + WSNAP_READ_MS, err != NULL ? err : &own);
	buf_release(&own);
	if (rc == -1) {
		cJSON_Delete(changes);
		return NULL;
	}
	if (notes != NULL) {
		cJSON_ArrayForEach(f, changes)
			if (json_str(f, "lost", NULL) != NULL)
				buf_printf(notes, "%s: %s\n", json_str(f, "path", ""), json_str(f, "why", ""));
		if (ws->note != NULL)
			buf_printf(notes, "%s\n", ws->note);
	}
	return changes;
}

#define WSNAP_OVERLAP "another writer ran at the same time (a ! command, a tool or a hook): " \
	"what either changed meanwhile may be recorded with the other"

/*
 * Append the content changes names (before and after) to this session's
 * refs file, durably, so that pruning keeps it (wsnap_prune).  0, or -1
 * with the session failed.
 */
static int
wsnap_refs_add(struct wsnap *ws, const cJSON *changes)
{
	static const char *const sides[] = { "before", "after" };
	struct buf b = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096);
	const cJSON *f;
	char *dir = NULL;
	size_t i;
	int fd = -1, rc = -1;

	if (ws->refs == NULL)
		return 0;
	cJSON_ArrayForEach(f, changes)
		for (i = 0; i < sizeof sides / sizeof sides[0]; i++) {
			const char *h = json_str(f, sides[i], NULL);

			if (h != NULL && strlen(h) == SHA256_HEX_LEN) {
				buf_append(&b, h, SHA256_HEX_LEN);
				buf_putc(&b, '\n');
			}
		}
	if (b.len == 0) {
		rc = 0;
		goto out;
	}
	dir = xstrndup(ws->refs, (size_t)(strrchr(ws->refs, '/') - ws->refs));
	errno = 0;
	if (wsnap_mkdirs(dir, &err) == -1)
		goto out;
	fd = open(ws->refs, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		goto out;
	if (file_write_all(fd, b.data != NULL ? b.data : "", b.len) == -1)
		goto out;
	if (fdatasync(fd) == -1)
		goto out;
	rc = close(fd);
	fd = -1;
out:
	if (rc == -1)
		session_fail_in(ws->sess, "snapshots/refs", ws->store, errno != 0 ? errno : EIO);
	if (fd != -1)
		close(fd);
	free(dir);
	buf_release(&b);
	buf_release(&err);
	return rc;
}

int
wsnap_record(struct wsnap *ws, int turn, const char *id, const char *by)
{
	struct buf notes = BUF_INIT(64 * 1024), err = BUF_INIT(4096);
	cJSON *changes, *rec, *nv;
	bool git;
	int rc = 0;

	if (ws == NULL || !ws->armed)
		return 0;
	changes = wsnap_after(ws, &git, &notes, &err);
	if (changes == NULL) {
		rc = -1;
		goto out;
	}
	if (cJSON_GetArraySize(changes) == 0 && !git) {
		cJSON_Delete(changes);
		goto out;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "files");
	cJSON_AddNumberToObject(rec, "turn", turn);
	cJSON_AddStringToObject(rec, "id", id);
	cJSON_AddStringToObject(rec, "by", by);
	cJSON_AddItemToObject(rec, "files", changes);
	if (git)
		cJSON_AddBoolToObject(rec, "git", 1);
	if (ws->note != NULL || ws->overlap) {
		nv = cJSON_AddArrayToObject(rec, "notes");
		if (ws->note != NULL)
			cJSON_AddItemToArray(nv, cJSON_CreateString(ws->note));
		if (ws->overlap)
			cJSON_AddItemToArray(nv, cJSON_CreateString(WSNAP_OVERLAP));
	}
	/* what the record needs is named before the record promises it */
	if (ws->sess != NULL && wsnap_refs_add(ws, changes) == -1) {
		cJSON_Delete(rec);
		rc = -1;
	} else if (ws->sess != NULL) {
		crash_point("wsnap-record");
		rc = session_append(ws->sess, rec);
	} else {
		cJSON_Delete(rec);
	}
	if (rc == 0)
		rc = wsnap_save(ws);
out:
	/* a ! command still running keeps the window open for its own record */
	if (rc == 0 && ws->users > 0)
		ws->armed = true;
	if (!ws->armed)
		ws->overlap = false;
	buf_release(&notes);
	buf_release(&err);
	return rc;
}

int
wsnap_adopt(struct wsnap *ws, cJSON *rec)
{
	if (ws == NULL || ws->sess == NULL) {
		cJSON_Delete(rec);
		return 0;
	}
	/* the content the record names is this session's to keep, before it says so */
	if (wsnap_refs_add(ws, json_get(rec, "files")) == -1) {
		cJSON_Delete(rec);
		return -1;
	}
	return session_append(ws->sess, rec);
}

int
wsnap_join(struct wsnap *ws, bool busy, struct buf *err)
{
	int rc;

	if (ws == NULL)
		return 0;
	if (ws->sess != NULL && session_error(ws->sess) != NULL)
		return -1;
	if (ws->armed && (busy || ws->users > 0)) {
		ws->users++;
		ws->overlap = true;
		return 0;
	}
	rc = wsnap_before(ws, err);
	if (rc == 0 && ws->armed)
		ws->users++;
	return rc;
}

int
wsnap_leave(struct wsnap *ws, int turn, const char *id, const char *by)
{
	if (ws == NULL)
		return 0;
	if (ws->users > 0)
		ws->users--;
	return wsnap_record(ws, turn, id, by);
}

uint64_t
wsnap_epoch(const struct wsnap *ws)
{
	return ws != NULL ? ws->epoch : 0;
}

bool
wsnap_is_record(const cJSON *rec)
{
	return json_str(rec, "by", NULL) != NULL;
}

int
wsnap_note_record(struct wsnap *ws, int turn, const char *id, const char *by, const char *note)
{
	cJSON *rec, *nv;

	if (ws == NULL || ws->sess == NULL)
		return 0;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "files");
	cJSON_AddNumberToObject(rec, "turn", turn);
	cJSON_AddStringToObject(rec, "id", id);
	cJSON_AddStringToObject(rec, "by", by);
	cJSON_AddArrayToObject(rec, "files");
	cJSON_AddBoolToObject(rec, "running", 1);
	nv = cJSON_AddArrayToObject(rec, "notes");
	cJSON_AddItemToArray(nv, cJSON_CreateString(note));
	return session_append(ws->sess, rec);
}

/*
 * The before-snapshot, durable (intent.h): the index wsnap_before built is
 * written to wsnap.idx now, not only at the next record, so that after a
 * crash mid-command the tree can still be compared against it.  Its hash
 * goes to id.  0, or -1 with the session failed.
 */
int
wsnap_keep_before(struct wsnap *ws, char id[SHA256_HEX_LEN + 1])
{
	id[0] = '\0';
	if (ws == NULL || !ws->armed)
		return 0;
	/* an index never written (an empty workspace) is written too: it is what is compared */
	if (ws->saved[0] == '\0')
		ws->dirty = true;
	if (wsnap_save(ws) == -1)
		return -1;
	memcpy(id, ws->saved, SHA256_HEX_LEN + 1);
	return 0;
}

/*
 * After a crash: open the window of a writer that never got its record,
 * with the index read from wsnap.idx as its before-snapshot.  Only when
 * that index is the one id names (a later write replaced it: false).
 */
bool
wsnap_rearm(struct wsnap *ws, const char *id)
{
	if (ws == NULL || id == NULL || ws->saved[0] == '\0' || strcmp(ws->saved, id) != 0)
		return false;
	ws->armed = true;
	return true;
}
