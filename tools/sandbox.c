/* Workspace confinement of tool paths by a descriptor walk: see sandbox.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#include "buf.h"
#include "sandbox.h"
#include "xalloc.h"

#define SANDBOX_MAX_LINKS	40	/* symbolic links followed in one walk */
#define SANDBOX_MAX_DEPTH	128	/* directories held open in one walk */

#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
static bool sandbox_openat2 = true;
#else
static bool sandbox_openat2 = false;
#endif

bool
sandbox_use_openat2(bool on)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	sandbox_openat2 = on;
#else
	(void)on;
#endif
	return sandbox_openat2;
}

bool
sandbox_inside(const char *root, const char *abs)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return abs[0] == '/';
	return strncmp(root, abs, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

/* One walk in progress. */
struct sandbox_walker {
	const struct sandbox *sb;
	const char	*given;		/* the path as the tool got it, for messages */
	int		 flags;
	const char	*root;		/* the root being walked */
	int		 fds[SANDBOX_MAX_DEPTH + 1];	/* fds[0]: the root */
	size_t		 marks[SANDBOX_MAX_DEPTH + 1];	/* rel's length at each level */
	int		 depth;
	struct buf	 rel;		/* reached below root, no leading "/" */
	char		*todo;		/* what is left to walk */
	size_t		 pos;
	int		 links;
};

static void
sandbox_close_all(struct sandbox_walker *w)
{
	while (w->depth >= 0) {
		if (w->fds[w->depth] != -1)
			close(w->fds[w->depth]);
		w->depth--;
	}
}

/* The root an absolute path is in (the longest that holds it), or NULL. */
static const char *
sandbox_root_of(const struct sandbox *sb, const char *path)
{
	const char *best = NULL;
	size_t i;

	if (sandbox_inside(sb->root, path))
		best = sb->root;
	for (i = 0; sb->extra != NULL && sb->extra[i] != NULL; i++)
		if (sandbox_inside(sb->extra[i], path) &&
		    (best == NULL || strlen(sb->extra[i]) > strlen(best)))
			best = sb->extra[i];
	return best;
}

/* Start over at root, with todo (owned) left to walk. */
static int
sandbox_start(struct sandbox_walker *w, const char *root, char *todo, struct buf *err)
{
	sandbox_close_all(w);
	w->depth = 0;
	w->root = root;
	w->fds[0] = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf_reset(&w->rel);
	w->marks[0] = 0;
	free(w->todo);
	w->todo = todo;
	w->pos = 0;
	if (w->fds[0] == -1) {
		buf_printf(err, "cannot open the directory %s: %s", root, strerror(errno));
		w->depth = -1;
		return -1;
	}
	return 0;
}

/* Start at the root holding path (absolute), or say it is outside. */
static int
sandbox_start_abs(struct sandbox_walker *w, const char *path, struct buf *err)
{
	const char *root = sandbox_root_of(w->sb, path);
	size_t n;

	if (root == NULL) {
		buf_printf(err, "path %s is outside the workspace %s; use a path inside it",
		    w->given, w->sb->root);
		return -1;
	}
	n = strcmp(root, "/") == 0 ? 1 : strlen(root);
	return sandbox_start(w, root, xstrdup(path + n), err);
}

/* The next component of todo, or NULL at the end; *last when nothing follows. */
static char *
sandbox_next(struct sandbox_walker *w, bool *last)
{
	const char *p = w->todo + w->pos;
	size_t n;
	char *name;

	while (*p == '/')
		p++;
	if (*p == '\0')
		return NULL;
	n = strcspn(p, "/");
	name = xstrndup(p, n);
	p += n;
	w->pos = (size_t)(p - w->todo);
	while (*p == '/')
		p++;
	*last = *p == '\0';
	return name;
}

#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
static int
sandbox_openat2_dir(int dfd, const char *path)
{
	struct open_how how;

	memset(&how, 0, sizeof how);
	how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS;
	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof how);
}
#endif

/* One directory below the top, opened without following a link. */
static int
sandbox_open_step(int dfd, const char *name)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	if (sandbox_openat2) {
		int fd = sandbox_openat2_dir(dfd, name);

		if (fd != -1 || errno != ENOSYS)
			return fd;
		sandbox_openat2 = false;
	}
#endif
	return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int
sandbox_push(struct sandbox_walker *w, int fd, const char *name, struct buf *err)
{
	if (w->depth >= SANDBOX_MAX_DEPTH) {
		close(fd);
		buf_printf(err, "path %s is too deep to walk", w->given);
		return -1;
	}
	w->depth++;
	w->fds[w->depth] = fd;
	w->marks[w->depth] = w->rel.len;
	if (w->rel.len > 0)
		buf_putc(&w->rel, '/');
	buf_puts(&w->rel, name);
	return 0;
}

/*
 * The fast path: open all but the last component at once with openat2
 * (no links, nothing above the root).  Only for a plain path whose last
 * component is not itself a link (a link there may lead up with ".."
 * from a level this path skipped).  true when it did the work.
 */
static bool
sandbox_fast(struct sandbox_walker *w)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	const char *p = w->todo, *slash;
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	struct stat st;
	int fd;
	bool ok = false;

	if (!sandbox_openat2)
		return false;
	while (*p == '/')
		p++;
	/* plain components only: no "", ".", "..", no trailing "/" */
	for (slash = p; *slash != '\0'; slash += strcspn(slash, "/"), slash += *slash == '/') {
		size_t n = strcspn(slash, "/");

		if (n == 0 || (n == 1 && slash[0] == '.') ||
		    (n == 2 && slash[0] == '.' && slash[1] == '.'))
			return false;
	}
	slash = strrchr(p, '/');
	if (slash == NULL)
		return false;
	buf_append(&dir, p, (size_t)(slash - p));
	fd = sandbox_openat2_dir(w->fds[w->depth], buf_cstr(&dir));
	if (fd == -1 && errno == ENOSYS)
		sandbox_openat2 = false;
	if (fd == -1)
		goto out;
	if (fstatat(fd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		close(fd);
		goto out;
	}
	if (sandbox_push(w, fd, buf_cstr(&dir), &dir) != 0)
		goto out;
	w->pos = (size_t)(slash - w->todo);
	ok = true;
out:
	buf_release(&dir);
	return ok;
#else
	(void)w;
	return false;
#endif
}

/* Read the link name in the top directory and walk its target next. */
static int
sandbox_follow(struct sandbox_walker *w, const char *name, struct buf *err)
{
	char target[PATH_MAX];
	struct buf next = BUF_INIT(BUF_NOLIMIT);
	ssize_t n;

	if (++w->links > SANDBOX_MAX_LINKS) {
		buf_printf(err, "path %s goes through too many symbolic links", w->given);
		return -1;
	}
	n = readlinkat(w->fds[w->depth], name, target, sizeof target - 1);
	if (n == -1) {
		buf_printf(err, "cannot read the symbolic link %s in %s: %s", name, w->given,
		    strerror(errno));
		return -1;
	}
	target[n] = '\0';
	buf_puts(&next, target);
	buf_putc(&next, '/');
	buf_puts(&next, w->todo + w->pos);
	if (target[0] == '/') {
		char *abs = buf_detach(&next, NULL);
		int rc;

		if (sandbox_root_of(w->sb, abs) == NULL) {
			buf_printf(err, "path %s leads outside the workspace through the symbolic "
			    "link %s (to %s); use a path inside it", w->given, name, target);
			free(abs);
			return -1;
		}
		rc = sandbox_start_abs(w, abs, err);
		free(abs);
		return rc;
	}
	free(w->todo);
	w->todo = buf_detach(&next, NULL);
	w->pos = 0;
	return 0;
}

/* Does the rest of todo (a missing part) climb with ".."? */
static bool
sandbox_rest_climbs(const char *p)
{
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

/* Fill at's paths from the walker (rel below the current root). */
static void
sandbox_names(struct sandbox_walker *w, struct sandbox_at *at)
{
	struct buf abs = BUF_INIT(BUF_NOLIMIT);

	buf_puts(&abs, w->root);
	if (w->rel.len > 0) {
		if (abs.data[abs.len - 1] != '/')
			buf_putc(&abs, '/');
		buf_append(&abs, w->rel.data, w->rel.len);
	}
	at->abs = buf_detach(&abs, NULL);
	if (w->root == w->sb->root)
		at->rel = xstrdup(w->rel.len > 0 ? buf_cstr(&w->rel) : ".");
	else
		at->rel = xstrdup(at->abs);
}

/* A missing directory on the way: the rest is only named, not walked. */
static int
sandbox_missing(struct sandbox_walker *w, struct sandbox_at *at, const char *name,
    struct buf *err)
{
	const char *rest = w->todo + w->pos, *last;

	if (w->flags & SANDBOX_MUST_EXIST) {
		buf_printf(err, "%s does not exist", w->given);
		return -1;
	}
	if (sandbox_rest_climbs(rest)) {
		buf_printf(err, "path %s uses \"..\" below a directory that does not exist",
		    w->given);
		return -1;
	}
	if (w->rel.len > 0)
		buf_putc(&w->rel, '/');
	buf_puts(&w->rel, name);
	/* The missing rest is named without its empty and "." names: "a//b" is "a/b". */
	while (*rest != '\0') {
		size_t n = strcspn(rest, "/");

		if (n > 0 && !(n == 1 && rest[0] == '.')) {
			buf_putc(&w->rel, '/');
			buf_append(&w->rel, rest, n);
		}
		rest += n;
		while (*rest == '/')
			rest++;
	}
	last = strrchr(buf_cstr(&w->rel), '/');
	at->name = xstrdup(last != NULL ? last + 1 : buf_cstr(&w->rel));
	at->dirfd = -1;
	at->exists = false;
	return 0;
}

/* The last component: a file, a link to follow, or nothing yet. */
static int
sandbox_final(struct sandbox_walker *w, struct sandbox_at *at, const char *name,
    bool *done, struct buf *err)
{
	struct stat st;

	*done = false;
	if (fstatat(w->fds[w->depth], name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return sandbox_follow(w, name, err);
		at->exists = true;
		at->st = st;
	} else if (errno != ENOENT) {
		buf_printf(err, "cannot look at %s: %s", w->given, strerror(errno));
		return -1;
	} else if (w->flags & SANDBOX_MUST_EXIST) {
		buf_printf(err, "%s does not exist", w->given);
		return -1;
	}
	at->name = xstrdup(name);
	if (w->rel.len > 0)
		buf_putc(&w->rel, '/');
	buf_puts(&w->rel, name);
	at->dirfd = w->fds[w->depth];
	w->fds[w->depth] = -1;
	*done = true;
	return 0;
}

/* A directory on the way: enter it, follow it, or create it. */
static int
sandbox_enter(struct sandbox_walker *w, struct sandbox_at *at, const char *name,
    bool *done, struct buf *err)
{
	struct stat st;
	int fd, tries;

	*done = false;
	for (tries = 0; tries < 2; tries++) {
		fd = sandbox_open_step(w->fds[w->depth], name);
		if (fd != -1)
			return sandbox_push(w, fd, name, err);
		if (errno == ENOENT && (w->flags & SANDBOX_PARENTS) &&
		    (mkdirat(w->fds[w->depth], name, 0777) == 0 || errno == EEXIST))
			continue;
		break;
	}
	if (errno == ENOENT) {
		*done = true;
		return sandbox_missing(w, at, name, err);
	}
	if (fstatat(w->fds[w->depth], name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return sandbox_follow(w, name, err);
		if (!S_ISDIR(st.st_mode) && !(w->flags & (SANDBOX_MUST_EXIST | SANDBOX_PARENTS))) {
			/* as good as missing: a write there fails when it makes the directory */
			*done = true;
			return sandbox_missing(w, at, name, err);
		}
		if (!S_ISDIR(st.st_mode)) {
			buf_printf(err, "path %s goes through %s, which is not a directory",
			    w->given, name);
			return -1;
		}
	}
	buf_printf(err, "cannot open the directory %s in %s: %s", name, w->given,
	    strerror(errno));
	return -1;
}

/* Walk what is left of todo. */
static int
sandbox_run(struct sandbox_walker *w, struct sandbox_at *at, struct buf *err)
{
	bool last, done = false;
	char *name;
	int rc = 0;

	(void)sandbox_fast(w);	/* else the component walk does it all */
	while (rc == 0 && !done && (name = sandbox_next(w, &last)) != NULL) {
		if (strcmp(name, ".") == 0)
			;
		else if (strcmp(name, "..") == 0) {
			if (w->depth == 0) {
				buf_printf(err, "path %s is outside the workspace %s; use a path "
				    "inside it", w->given, w->sb->root);
				rc = -1;
			} else {
				close(w->fds[w->depth]);
				buf_truncate(&w->rel, w->marks[w->depth]);
				w->depth--;
			}
		} else if (last)
			rc = sandbox_final(w, at, name, &done, err);
		else
			rc = sandbox_enter(w, at, name, &done, err);
		free(name);
	}
	if (rc == 0 && !done) {
		/* the path ends at a directory: a root, or after "." or ".." */
		at->name = xstrdup(".");
		at->dirfd = w->fds[w->depth];
		w->fds[w->depth] = -1;
		if (fstat(at->dirfd, &at->st) == -1) {
			buf_printf(err, "cannot look at %s: %s", w->given, strerror(errno));
			rc = -1;
		} else
			at->exists = true;
	}
	return rc;
}

static void
sandbox_at_clear(struct sandbox_at *at)
{
	memset(at, 0, sizeof *at);
	at->dirfd = -1;
}

void
sandbox_at_release(struct sandbox_at *at)
{
	if (at->dirfd != -1)
		close(at->dirfd);
	free(at->name);
	free(at->rel);
	free(at->abs);
	sandbox_at_clear(at);
}

/* The policy's word on the reached path. */
static int
sandbox_check_policy(const struct sandbox *sb, enum sandbox_access access,
    const char *given, const struct sandbox_at *at, struct buf *err)
{
	if (sb->policy == NULL || sb->policy->denied == NULL ||
	    !sb->policy->denied(sb->policy->arg, access, at->rel))
		return 0;
	if (strcmp(given, at->rel) == 0)
		buf_printf(err, "%s is covered by a deny rule; it was not %s", at->rel,
		    access == SANDBOX_READ ? "read" : "changed");
	else
		buf_printf(err, "%s leads to %s, which a deny rule covers; it was not %s",
		    given, at->rel, access == SANDBOX_READ ? "read" : "changed");
	return -1;
}

int
sandbox_walk(const struct sandbox *sb, const char *path, enum sandbox_access access,
    int flags, struct sandbox_at *at, struct buf *err)
{
	struct sandbox_walker w;
	int rc;

	sandbox_at_clear(at);
	if (path == NULL || path[0] == '\0')
		path = ".";
	if (strlen(path) >= PATH_MAX) {
		buf_printf(err, "path is too long (%zu bytes)", strlen(path));
		return -1;
	}
	memset(&w, 0, sizeof w);
	w.sb = sb;
	w.given = path;
	w.flags = flags;
	w.depth = -1;
	buf_init(&w.rel, BUF_NOLIMIT);
	if (path[0] == '/')
		rc = sandbox_start_abs(&w, path, err);
	else
		rc = sandbox_start(&w, sb->root, xstrdup(path), err);
	if (rc == 0)
		rc = sandbox_run(&w, at, err);
	if (rc == 0) {
		sandbox_names(&w, at);
		rc = sandbox_check_policy(sb, access, path, at, err);
	}
	sandbox_close_all(&w);
	buf_release(&w.rel);
	free(w.todo);
	if (rc != 0)
		sandbox_at_release(at);
	return rc;
}

int
sandbox_open_at(const struct sandbox_at *at, int oflags, struct buf *err)
{
	struct stat st;
	int fd;

	if (!at->exists || at->dirfd == -1) {
		buf_printf(err, "%s does not exist", at->rel);
		return -1;
	}
	if (!S_ISREG(at->st.st_mode) && !S_ISDIR(at->st.st_mode)) {
		buf_printf(err, "%s is not a regular file; not opened", at->rel);
		return -1;
	}
	fd = openat(at->dirfd, at->name, oflags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ELOOP)
			buf_printf(err, "%s became a symbolic link while it was opened; not opened",
			    at->rel);
		else
			buf_printf(err, "cannot open %s: %s", at->rel, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || st.st_dev != at->st.st_dev || st.st_ino != at->st.st_ino) {
		buf_printf(err, "%s changed while it was opened; not opened", at->rel);
		close(fd);
		return -1;
	}
	return fd;
}

int
sandbox_resolve(const char *root, const char *path, bool must_exist,
    char **abs, char **rel, struct buf *err)
{
	struct sandbox sb = { root, NULL, NULL };
	struct sandbox_at at;

	*abs = NULL;
	if (rel != NULL)
		*rel = NULL;
	if (sandbox_walk(&sb, path, SANDBOX_READ, must_exist ? SANDBOX_MUST_EXIST : 0,
	    &at, err) != 0)
		return -1;
	*abs = at.abs;
	at.abs = NULL;
	if (rel != NULL) {
		*rel = at.rel;
		at.rel = NULL;
	}
	sandbox_at_release(&at);
	return 0;
}
