/*
 * The walk of one root for a workspace snapshot (wsnap_int.h), on more
 * than one thread when the tree is big.
 *
 * A snapshot before a command on an unchanged tree is all walk: a
 * readdir and an lstat per entry, which the kernel takes nearly all of
 * the time for.  So the walk is split in two phases:
 *
 *  - the scan, on up to WSNAP_THREADS threads: each reads directories,
 *    stats their entries, matches them against its own ignore rules and
 *    looks them up in the index, which no one changes meanwhile.  An
 *    entry whose stat is the index's is marked seen (each entry is seen
 *    by one thread only); any other goes on the thread's list of entries
 *    to visit.  Threads share directories through a small queue of open
 *    descriptors: a thread about to descend hands the directory over
 *    instead while the queue is short, so a tree with one big directory
 *    is split as well as a flat one;
 *  - the visits, on the calling thread alone, in each list's order: the
 *    index entries made or changed, content read and stored, changes
 *    recorded (wsnap_visit).  Each entry's directory is opened again one
 *    component at a time without following links, so a directory
 *    swapped for a link between the two phases cannot lead a read
 *    outside the root.
 *
 * The threads block every signal, own nothing when they end, and are
 * all joined before wsnap_walk_root returns: the process forks only when
 * it is single-threaded again.  One thread (a small tree, one CPU, or
 * TANDEM_WSNAP_THREADS=1) runs the same code on the caller's thread.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "ignore.h"
#include "wsnap_int.h"
#include "xalloc.h"

#define WSNAP_DEPTH	128
#define WSNAP_THREADS	4	/* at most; the kernel's walk scales to about that */
#define WSNAP_PAR_MIN	2000	/* index entries below which one thread walks */

/* An entry for the visits: its stat, in the index's terms. */
struct wsnap_later {
	size_t		 off;		/* of its path in the walker's names */
	uint64_t	 dev, ino, size;
	int64_t		 mtime, ctime;
	uint32_t	 mode;
	bool		 ignored;
};

/* A directory handed from one thread to another. */
struct wsnap_job {
	int		 fd;
	int		 depth;
	char		*path;
};

struct wsnap_par;

/* One thread's part of the scan. */
struct wsnap_walker {
	struct wsnap_par	*par;
	struct ignore		*ig;
	struct buf		 path;
	struct buf		 names;		/* the paths of later, NUL-separated */
	struct wsnap_later	*later;
	size_t			 nlater, caplater;
	pthread_t		 tid;
	bool			 started;
};

/* One root's scan. */
struct wsnap_par {
	const struct wsnap_scan	*sc;		/* only read while the threads run */
	const char		*ignroot;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	struct wsnap_job	*q;
	size_t			 nq, capq;
	int			 busy;		/* threads inside a job */
	int			 nthreads;
	atomic_size_t		 seen;
	atomic_bool		 truncated;
};

static int
wsnap_ncpu(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && (c = CPU_COUNT(&set)) > 0 && c < n)
		n = c;
	return n < 1 ? 1 : n > WSNAP_THREADS ? WSNAP_THREADS : (int)n;
}

/* How many threads walk: TANDEM_WSNAP_THREADS, else by the tree's size and the CPUs. */
static int
wsnap_nthreads(const struct wsnap *ws)
{
	const char *s = getenv("TANDEM_WSNAP_THREADS");
	char *end;
	long v;

	if (s != NULL && *s != '\0') {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno == 0 && *end == '\0' && v >= 1)
			return v > WSNAP_THREADS ? WSNAP_THREADS : (int)v;
	}
	return ws->n < WSNAP_PAR_MIN ? 1 : wsnap_ncpu();
}

int
wsnap_threads(const struct wsnap *ws)
{
	return wsnap_nthreads(ws);
}

/* Is path (relative in the root, absolute in an extra root) one of the other roots? */
static bool
wsnap_other_root(const struct wsnap_scan *sc, const char *path)
{
	const struct wsnap *ws = sc->ws;
	size_t i, n = strlen(ws->root);

	if (sc->rel > 0 && strcmp(path, ws->root) == 0)
		return true;
	for (i = 0; ws->extra != NULL && ws->extra[i] != NULL; i++) {
		const char *x = ws->extra[i];

		if (sc->rel > 0 && strcmp(path, x) == 0)
			return true;
		if (sc->rel == 0 && strncmp(x, ws->root, n) == 0 && x[n] == '/' && strcmp(x + n + 1, path) == 0)
			return true;
	}
	return false;
}

static void
wsnap_later_add(struct wsnap_walker *w, const struct stat *st, bool ignored)
{
	struct wsnap_later *t;

	if (w->nlater == w->caplater) {
		w->caplater = w->caplater ? w->caplater * 2 : 64;
		w->later = xreallocarray(w->later, w->caplater, sizeof *w->later);
	}
	t = &w->later[w->nlater++];
	t->off = w->names.len;
	buf_append(&w->names, w->path.data, w->path.len + 1);
	t->dev = (uint64_t)st->st_dev;
	t->ino = (uint64_t)st->st_ino;
	t->size = (uint64_t)st->st_size;
	t->mtime = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	t->ctime = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	t->mode = (uint32_t)st->st_mode;
	t->ignored = ignored;
}

/* Hand the directory sub (open) to another thread if the queue is short; true if handed. */
static bool
wsnap_share(struct wsnap_walker *w, int sub, int depth)
{
	struct wsnap_par *par = w->par;
	bool handed = false;

	if (par->nthreads < 2)
		return false;
	pthread_mutex_lock(&par->mu);
	if (par->nq < (size_t)par->nthreads) {
		if (par->nq == par->capq) {
			par->capq = par->capq ? par->capq * 2 : 8;
			par->q = xreallocarray(par->q, par->capq, sizeof *par->q);
		}
		par->q[par->nq].fd = sub;
		par->q[par->nq].depth = depth;
		par->q[par->nq].path = xmemdup(w->path.data, w->path.len + 1);
		par->nq++;
		handed = true;
		pthread_cond_signal(&par->cv);
	}
	pthread_mutex_unlock(&par->mu);
	return handed;
}

/* Scan the directory fd (owned) whose path is w->path. */
static void
wsnap_scan_dir(struct wsnap_walker *w, int fd, int depth)
{
	struct wsnap_par *par = w->par;
	const struct wsnap_scan *sc = par->sc;
	const struct wsnap *ws = sc->ws;
	DIR *d = fdopendir(fd);
	struct dirent *de;
	size_t base = w->path.len;

	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		struct wsnap_ent *e;
		struct stat st;
		bool ignored, dir;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, ".git") == 0)
			continue;
		if (atomic_load_explicit(&par->truncated, memory_order_relaxed))
			break;
		/* a path too long for the index is not walked (and so never taken for deleted) */
		if (base + 1 + strlen(name) >= PATH_MAX)
			continue;
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		buf_truncate(&w->path, base);
		if (base > 0)
			buf_putc(&w->path, '/');
		buf_puts(&w->path, name);
		/* tandem's own home (its logs, this store) is never part of the workspace */
		if (sc->rel == 0 && ws->skip != NULL && strcmp(buf_cstr(&w->path), ws->skip) == 0)
			continue;
		if (sc->rel > 0 && ws->home != NULL && strcmp(buf_cstr(&w->path), ws->home) == 0)
			continue;
		dir = S_ISDIR(st.st_mode);
		/* a root inside another is walked once, as itself */
		if (dir && wsnap_other_root(sc, buf_cstr(&w->path)))
			continue;
		if (atomic_fetch_add_explicit(&par->seen, 1, memory_order_relaxed) >=
		    (size_t)ws->set.max_files) {
			atomic_store(&par->truncated, true);
			break;
		}
		ignored = w->ig != NULL && ignore_match(w->ig, buf_cstr(&w->path) + sc->rel, dir);
		e = wsnap_find(ws, w->path.data, w->path.len);
		if (e != NULL && wsnap_unchanged(ws, e, &st, ignored))
			e->gen = ws->gen;
		else
			wsnap_later_add(w, &st, ignored);
		if (dir && !ignored && depth < WSNAP_DEPTH) {
			int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct stat sst;

			if (sub == -1)
				continue;
			if (fstat(sub, &sst) == -1 || sst.st_ino != st.st_ino || sst.st_dev != st.st_dev) {
				close(sub);
				continue;
			}
			if (!wsnap_share(w, sub, depth + 1))
				wsnap_scan_dir(w, sub, depth + 1);
		}
	}
	buf_truncate(&w->path, base);
	closedir(d);
}

/* A thread's loop: take a directory from the queue until none is left and none is busy. */
static void *
wsnap_worker(void *arg)
{
	struct wsnap_walker *w = arg;
	struct wsnap_par *par = w->par;
	struct wsnap_job job;

	w->ig = ignore_new(par->ignroot);
	pthread_mutex_lock(&par->mu);
	for (;;) {
		while (par->nq == 0 && par->busy > 0)
			pthread_cond_wait(&par->cv, &par->mu);
		if (par->nq == 0)
			break;
		job = par->q[--par->nq];
		par->busy++;
		pthread_mutex_unlock(&par->mu);
		buf_reset(&w->path);
		buf_puts(&w->path, job.path);
		free(job.path);
		wsnap_scan_dir(w, job.fd, job.depth);
		pthread_mutex_lock(&par->mu);
		par->busy--;
		if (par->busy == 0 && par->nq == 0)
			pthread_cond_broadcast(&par->cv);
	}
	pthread_mutex_unlock(&par->mu);
	ignore_free(w->ig);
	w->ig = NULL;
	return NULL;
}

/*
 * The directory of path (relative to the root at rootfd) opened one
 * component at a time, never through a link; *cache (a path) and
 * *cfd keep the last one.  An fd (the cache's), or -1.
 */
static int
wsnap_parent(int rootfd, const char *path, struct buf *cache, int *cfd)
{
	const char *slash = strrchr(path, '/'), *p, *q;
	size_t n = slash != NULL ? (size_t)(slash - path) : 0;
	struct buf comp = BUF_INIT(NAME_MAX + 1);
	int fd;

	if (*cfd != -2 && cache->len == n && (n == 0 || memcmp(cache->data, path, n) == 0))
		return *cfd;
	if (*cfd >= 0 && *cfd != rootfd)
		close(*cfd);
	buf_reset(cache);
	buf_append(cache, path, n);
	if (n == 0) {
		*cfd = rootfd;
		buf_release(&comp);
		return rootfd;
	}
	fd = rootfd;
	for (p = path; p < path + n; p = q + 1) {
		int next;

		q = memchr(p, '/', (size_t)(path + n - p));
		if (q == NULL)
			q = path + n;
		buf_reset(&comp);
		buf_append(&comp, p, (size_t)(q - p));
		next = openat(fd, buf_cstr(&comp), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != rootfd)
			close(fd);
		fd = next;
		if (fd == -1)
			break;
	}
	buf_release(&comp);
	*cfd = fd;
	return fd;
}

static void
wsnap_walker_free(struct wsnap_walker *w)
{
	buf_release(&w->path);
	buf_release(&w->names);
	free(w->later);
}

int
wsnap_walk_root(struct wsnap_scan *sc, int fd, const char *ignroot)
{
	struct wsnap_walker wk[WSNAP_THREADS];
	struct wsnap_par par;
	struct buf cache = BUF_INIT(PATH_MAX);
	sigset_t all, old;
	int n = wsnap_nthreads(sc->ws), i, cfd = -2, rc = 0;
	size_t k;

	memset(&par, 0, sizeof par);
	memset(wk, 0, sizeof wk);
	par.sc = sc;
	par.ignroot = ignroot;
	par.nthreads = n;
	atomic_init(&par.seen, sc->seen);
	atomic_init(&par.truncated, false);
	pthread_mutex_init(&par.mu, NULL);
	pthread_cond_init(&par.cv, NULL);
	par.capq = 8;
	par.q = xcalloc(par.capq, sizeof *par.q);
	par.q[0].fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	par.q[0].path = xmemdup(sc->path.data != NULL ? sc->path.data : "", sc->path.len + 1);
	par.nq = par.q[0].fd != -1;
	for (i = 0; i < n; i++) {
		wk[i].par = &par;
		buf_init(&wk[i].path, PATH_MAX);
		buf_init(&wk[i].names, BUF_NOLIMIT);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 1; i < n; i++)
		wk[i].started = pthread_create(&wk[i].tid, NULL, wsnap_worker, &wk[i]) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	wsnap_worker(&wk[0]);
	for (i = 1; i < n; i++)
		if (wk[i].started)
			pthread_join(wk[i].tid, NULL);
	sc->seen = atomic_load(&par.seen);
	if (atomic_load(&par.truncated))
		sc->truncated = true;
	/* the visits, on this thread */
	for (i = 0; i < n; i++) {
		for (k = 0; rc == 0 && k < wk[i].nlater; k++) {
			const struct wsnap_later *t = &wk[i].later[k];
			const char *path = wk[i].names.data + t->off, *name;
			struct stat st;
			int dfd;

			memset(&st, 0, sizeof st);
			st.st_dev = (dev_t)t->dev;
			st.st_ino = (ino_t)t->ino;
			st.st_size = (off_t)t->size;
			st.st_mtim.tv_sec = (time_t)(t->mtime / 1000000000);
			st.st_mtim.tv_nsec = (long)(t->mtime % 1000000000);
			st.st_ctim.tv_sec = (time_t)(t->ctime / 1000000000);
			st.st_ctim.tv_nsec = (long)(t->ctime % 1000000000);
			st.st_mode = (mode_t)t->mode;
			dfd = wsnap_parent(fd, path + sc->rel, &cache, &cfd);
			name = strrchr(path, '/');
			name = name != NULL ? name + 1 : path;
			buf_reset(&sc->path);
			buf_puts(&sc->path, path);
			rc = wsnap_visit(sc, dfd, name, &st, t->ignored);
		}
		wsnap_walker_free(&wk[i]);
	}
	if (cfd >= 0 && cfd != fd)
		close(cfd);
	buf_release(&cache);
	for (k = 0; k < par.nq; k++) {
		close(par.q[k].fd);
		free(par.q[k].path);
	}
	free(par.q);
	pthread_cond_destroy(&par.cv);
	pthread_mutex_destroy(&par.mu);
	return rc;
}
