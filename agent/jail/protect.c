/* Protected names a sandboxed command creates: see protect.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "protect.h"
#include "xalloc.h"

/*
 * What the watch sees: creations and moves in, removals (for the names
 * known), and files written: an existing "gitdir:" file below the root
 * rewritten in place to name another repository.
 */
#define PROTECT_MASK	(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | \
			 IN_CLOSE_WRITE | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

/*
 * The protected names.  deep: at any depth (git finds a repository from
 * any directory below it); else only in the root, where tandem, Claude
 * Code, direnv and the editors look, so that an `npm install` unpacking a
 * package's own CLAUDE.md or .vscode/ is left alone.
 */
static const struct {
	const char	*name;
	bool		 deep;
	const char	*kind;
} protect_names[] = {
	{ ".git", true, "git metadata, whose config and hooks the next git command runs" },
	{ "AGENTS.md", false, "a memory file, read into the next session's prompt" },
	{ "CLAUDE.md", false, "a memory file, read into the next session's prompt" },
	{ "CLAUDE.local.md", false, "a memory file, read into the next session's prompt" },
	{ "TANDEM.md", false, "a memory file, read into the next session's prompt" },
	{ ".tandem", false, "a settings folder (hooks, rules, commands)" },
	{ ".claude", false, "a settings folder (hooks, rules, commands)" },
	{ ".mcp.json", false, "MCP servers, which tandem would start" },
	{ ".envrc", false, "a direnv script, run when a shell enters the folder" },
	{ ".vscode", false, "editor settings and tasks, which an editor runs" },
	{ ".idea", false, "IDE settings and run configurations" },
};
static const char protect_bare_kind[] = "an embedded git repository (HEAD, objects/, refs/), "
    "whose config and hooks a git command run inside it runs";

struct protect_item {
	char		*rel;
	const char	*kind;
	char		*where;		/* "was moved to ...", "was removed (...)" */
	int		 again;		/* caught again after the first time */
};

/* A file of an existing repository as it was, to put back what a command changed. */
struct protect_saved {
	char	*name;
	char	*data;
	size_t	 len;
	mode_t	 mode;
};

struct protect_dir {
	int	 wd;
	char	*rel;		/* "" for the root */
	char	 role;		/* 'd' a directory, 'g' an existing repository's .git, 'h' its hooks */
	bool	 hooks;		/* 'd' that is also core.hooksPath's folder */
	struct protect_saved *saved;	/* 'g': its config; 'h': its hooks, as they were */
	size_t	 nsaved;
};

struct protect {
	struct ev_loop		*loop;
	char			*root, *qdir;
	protect_notify_fn	*notify;
	void			*arg;
	int			 fd;		/* inotify; -1: none (yet, or at all) */
	bool			 in_loop;
	bool			 partial;	/* some directory is not watched: walk at the end */
	bool			 lost;		/* events were lost: walk now */
	int			 holds, paused;
	struct protect_dir	*dirs;		/* sorted by wd */
	size_t			 ndirs;
	char			**known;	/* protected paths that were there, or were allowed */
	size_t			 nknown;
	char			**deferred;	/* created while paused */
	size_t			 ndeferred;
	bool			 started;	/* the first walk was begun */
	char			**warm;		/* its directories still to walk */
	size_t			 nwarm;
	uint64_t		 warm_timer;
	char			*hooks_rel;	/* core.hooksPath's folder in the root; NULL: none */
	char			*move_from;	/* the last directory moved away, and its cookie */
	uint32_t		 move_cookie;
	unsigned		 serial;
	struct protect_item	*items;		/* caught since the last sentence */
	size_t			 nitems;
	int			 background;	/* holds for background shells: tell at once */
	struct buf		 pending;	/* sentences for the model */
};

static void protect_drain(struct protect *);
static void protect_repo(struct protect *, const char *);

/* Directories the first walk reads in one slice of the loop's time (a few ms). */
#define PROTECT_WARM_SLICE	64

/* In an existing repository below the root: its config and its hooks. */
#define PROTECT_GIT_MASK (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR | \
			 IN_DONT_FOLLOW | IN_EXCL_UNLINK)
#define PROTECT_CONFIG_MAX (1024 * 1024)
#define PROTECT_HOOKS_MAX	64	/* hooks of one folder kept to put back */
static const char protect_config_kind[] = "the config of an existing repository, which can "
    "name programs the next git command runs; the one it replaced is back";
static const char protect_hook_kind[] = "a git hook of an existing repository, which the "
    "next git command runs; one it replaced is back";
static const char protect_commondir_kind[] = "a commondir file, which would send an existing "
    "repository to another config";

/* --- the table --------------------------------------------------------------- */

const char *
protect_kind(const char *rel)
{
	const char *base = strrchr(rel, '/');
	bool top = base == NULL;
	size_t i;

	base = base != NULL ? base + 1 : rel;
	for (i = 0; i < sizeof protect_names / sizeof protect_names[0]; i++)
		if (strcmp(base, protect_names[i].name) == 0 && (top || protect_names[i].deep))
			return protect_names[i].kind;
	return NULL;
}

static const char protect_hooks_kind[] = "the folder core.hooksPath names, whose hooks "
    "the next git command runs";

/* protect_kind, and the folder of the root repository's core.hooksPath. */
static const char *
protect_kind_of(const struct protect *p, const char *rel)
{
	if (p->hooks_rel != NULL && strcmp(rel, p->hooks_rel) == 0)
		return protect_hooks_kind;
	return protect_kind(rel);
}

static void
protect_path(const struct protect *p, const char *rel, struct buf *out)
{
	buf_reset(out);
	buf_puts(out, p->root);
	if (rel[0] != '\0')
		buf_printf(out, "/%s", rel);
}

static void
protect_join(const char *dir, const char *name, struct buf *out)
{
	buf_reset(out);
	if (dir[0] != '\0')
		buf_printf(out, "%s/", dir);
	buf_puts(out, name);
}

/* Would git take the directory rel for a repository of its own (is_git_directory)? */
static bool
protect_is_bare(const struct protect *p, const char *rel)
{
	struct buf path = BUF_INIT(PATH_MAX + 64);
	struct stat st;
	int dirfd;
	bool yes = false;

	protect_path(p, rel, &path);
	dirfd = open(buf_cstr(&path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	buf_release(&path);
	if (dirfd == -1)
		return false;
	if (fstatat(dirfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
	    fstatat(dirfd, "objects", &st, 0) == 0 && S_ISDIR(st.st_mode) &&
	    fstatat(dirfd, "refs", &st, 0) == 0 && S_ISDIR(st.st_mode))
		yes = true;
	close(dirfd);
	return yes;
}

/* --- the names known ----------------------------------------------------------- */

static ssize_t
protect_strv_find(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

static void
protect_strv_add(char ***v, size_t *n, const char *s)
{
	if (protect_strv_find(*v, *n, s) != -1)
		return;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

static void
protect_strv_del(char **v, size_t *n, const char *s)
{
	ssize_t i = protect_strv_find(v, *n, s);

	if (i == -1)
		return;
	free(v[i]);
	v[i] = v[--*n];
}

static void
protect_strv_clear(char ***v, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

/* The names known below from, now below to. */
static void
protect_known_move(struct protect *p, const char *from, const char *to)
{
	struct buf b = BUF_INIT(PATH_MAX + 64);
	size_t i, n = strlen(from);

	for (i = 0; i < p->nknown; i++)
		if (strncmp(p->known[i], from, n) == 0 && p->known[i][n] == '/') {
			buf_reset(&b);
			buf_printf(&b, "%s%s", to, p->known[i] + n);
			free(p->known[i]);
			p->known[i] = xstrdup(buf_cstr(&b));
		}
	buf_release(&b);
}

/* --- the quarantine ------------------------------------------------------------ */

/* Remove what is at name in dirfd, whatever it is (the quarantine's last resort). */
static void
protect_rmtree(int at, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (unlinkat(at, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
		return;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			protect_rmtree(dirfd(d), de->d_name);
	closedir(d);
	(void)unlinkat(at, name, AT_REMOVEDIR);
}

/* Forget what was caught and told. */
static void
protect_items_clear(struct protect *p)
{
	size_t i;

	for (i = 0; i < p->nitems; i++) {
		free(p->items[i].rel);
		free(p->items[i].where);
	}
	free(p->items);
	p->items = NULL;
	p->nitems = 0;
}

static void
protect_item_add(struct protect *p, const char *rel, const char *kind, const char *where)
{
	size_t i;

	/* a command that makes the name again and again is told once, with a count */
	for (i = 0; i < p->nitems; i++)
		if (strcmp(p->items[i].rel, rel) == 0) {
			p->items[i].again++;
			return;
		}
	p->items = xreallocarray(p->items, p->nitems + 1, sizeof *p->items);
	p->items[p->nitems].rel = xstrdup(rel);
	p->items[p->nitems].kind = kind;
	p->items[p->nitems].where = xstrdup(where);
	p->items[p->nitems].again = 0;
	p->nitems++;
}

/*
 * Move rel aside: into qdir/N/, named as it was.  A bare repository in the
 * root itself cannot move: its HEAD does, and git no longer sees one.
 */
static void
protect_catch(struct protect *p, const char *rel, const char *kind)
{
	struct buf src = BUF_INIT(PATH_MAX + 64), dst = BUF_INIT(PATH_MAX + 64),
	    where = BUF_INIT(BUF_NOLIMIT);
	const char *what = rel[0] != '\0' ? rel : "HEAD", *base;
	struct stat st;

	protect_path(p, what, &src);
	if (lstat(buf_cstr(&src), &st) == -1)
		goto out;
	base = strrchr(what, '/');
	base = base != NULL ? base + 1 : what;
	(void)mkdir(p->qdir, 0700);
	buf_printf(&dst, "%s/%u", p->qdir, ++p->serial);
	(void)mkdir(buf_cstr(&dst), 0700);
	buf_printf(&dst, "/%s", base);
	if (rename(buf_cstr(&src), buf_cstr(&dst)) == 0) {
		size_t i, n = strlen(what);

		/* what is watched in it is out of the workspace now */
		for (i = 0; p->fd != -1 && i < p->ndirs; i++)
			if (strncmp(p->dirs[i].rel, what, n) == 0 &&
			    (p->dirs[i].rel[n] == '\0' || p->dirs[i].rel[n] == '/'))
				(void)inotify_rm_watch(p->fd, p->dirs[i].wd);
		buf_printf(&where, "was moved to %s", buf_cstr(&dst));
	}
	else {
		buf_printf(&where, "was removed (it could not be moved aside: %s)", strerror(errno));
		protect_rmtree(AT_FDCWD, buf_cstr(&src));
	}
	protect_item_add(p, what, kind, buf_cstr(&where));
out:
	buf_release(&src);
	buf_release(&dst);
	buf_release(&where);
}

/* The sentence for what was caught, to the user and (later) to the model. */
static void
protect_tell(struct protect *p)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	if (p->nitems == 0)
		return;
	buf_puts(&s, "[sandbox: a sandboxed command created what would run or be loaded "
	    "outside the sandbox, and tandem stopped it: ");
	for (i = 0; i < p->nitems; i++) {
		const struct protect_item *it = &p->items[i];

		buf_printf(&s, "%s%s (%s) %s", i > 0 ? "; " : "", it->rel, it->kind, it->where);
		if (it->again > 0)
			buf_printf(&s, ", and %d more time%s as it was made again (in %s)", it->again,
			    it->again > 1 ? "s" : "", p->qdir);
	}
	buf_puts(&s, "; to keep such a file, move it back yourself, or run the command outside "
	    "the sandbox (\"sandbox\": false, the user is asked first).]");
	protect_items_clear(p);
	if (p->notify != NULL)
		p->notify(p->arg, buf_cstr(&s));
	if (p->pending.len > 0)
		buf_putc(&p->pending, '\n');
	buf_append(&p->pending, s.data, s.len);
	buf_release(&s);
}

/* A protected rel that is new: caught, kept for the end of a pause, or allowed. */
static void
protect_found(struct protect *p, const char *rel, const char *kind)
{
	if (p->holds > 0 && p->paused == 0)
		protect_catch(p, rel, kind);
	else if (p->holds > 0)
		protect_strv_add(&p->deferred, &p->ndeferred, rel);
	else {
		protect_strv_add(&p->known, &p->nknown, rel);
		protect_repo(p, rel);
	}
}

/* --- the watch ----------------------------------------------------------------- */

static struct protect_dir *
protect_dir_find(struct protect *p, int wd)
{
	size_t lo = 0, hi = p->ndirs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->dirs[mid].wd == wd)
			return &p->dirs[mid];
		if (p->dirs[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The file at rel, whole (up to PROTECT_CONFIG_MAX), or NULL. */
static char *
protect_slurp(const struct protect *p, const char *rel, size_t *len)
{
	struct buf path = BUF_INIT(PATH_MAX + 64), data = BUF_INIT(PROTECT_CONFIG_MAX);
	char chunk[8192];
	ssize_t n;
	int fd;

	protect_path(p, rel, &path);
	fd = open(buf_cstr(&path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	buf_release(&path);
	if (fd == -1)
		return NULL;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		if (buf_append(&data, chunk, (size_t)n) == -1)
			break;
	close(fd);
	buf_putc(&data, '\0');
	*len = data.len > 0 ? data.len - 1 : 0;
	return buf_detach(&data, NULL);
}

/* Does a hooks folder's name run?  (Not git's samples, not tandem's own put-back.) */
static bool
protect_hook_name(const char *name)
{
	size_t n = strlen(name);

	return !(n >= 7 && strcmp(name + n - 7, ".sample") == 0) &&
	    !(n >= 15 && strcmp(name + n - 15, ".tandem-restore") == 0);
}

static struct protect_saved *
protect_saved_find(struct protect_dir *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nsaved; i++)
		if (strcmp(d->saved[i].name, name) == 0)
			return &d->saved[i];
	return NULL;
}

/* Keep data (owned from here on; NULL: the file is gone) as name's state in d. */
static void
protect_saved_set(struct protect_dir *d, const char *name, char *data, size_t len, mode_t mode)
{
	struct protect_saved *v = protect_saved_find(d, name);

	if (v == NULL && data == NULL)
		return;
	if (v == NULL) {
		d->saved = xreallocarray(d->saved, d->nsaved + 1, sizeof *d->saved);
		v = &d->saved[d->nsaved++];
		v->name = xstrdup(name);
		v->data = NULL;
	}
	free(v->data);
	v->data = data;
	v->len = len;
	v->mode = mode;
}

static void
protect_saved_clear(struct protect_dir *d)
{
	size_t i;

	for (i = 0; i < d->nsaved; i++) {
		free(d->saved[i].name);
		free(d->saved[i].data);
	}
	free(d->saved);
	d->saved = NULL;
	d->nsaved = 0;
}

/* The file name in d as it is now (NULL: none, or not a regular file). */
static char *
protect_saved_read(const struct protect *p, const struct protect_dir *d, const char *name,
    size_t *len, mode_t *mode)
{
	struct buf rel = BUF_INIT(PATH_MAX + 64), path = BUF_INIT(PATH_MAX + 64);
	struct stat st;
	char *data = NULL;

	protect_join(d->rel, name, &rel);
	protect_path(p, buf_cstr(&rel), &path);
	if (lstat(buf_cstr(&path), &st) == 0 && S_ISREG(st.st_mode)) {
		data = protect_slurp(p, buf_cstr(&rel), len);
		*mode = st.st_mode & 07777;
	}
	buf_release(&rel);
	buf_release(&path);
	return data;
}

/* What d guards, as it is when the watch begins: a .git's config, a hooks folder's hooks. */
static void
protect_save_dir(struct protect *p, struct protect_dir *d)
{
	struct buf path = BUF_INIT(PATH_MAX + 64);
	struct dirent *de;
	size_t len = 0;
	mode_t mode = 0;
	char *data;
	DIR *dir;

	if (d->role == 'g') {
		data = protect_saved_read(p, d, "config", &len, &mode);
		protect_saved_set(d, "config", data, len, mode);
		goto out;
	}
	protect_path(p, d->rel, &path);
	if ((dir = opendir(buf_cstr(&path))) == NULL)
		goto out;
	while ((de = readdir(dir)) != NULL && d->nsaved < PROTECT_HOOKS_MAX)
		if (de->d_name[0] != '.' && protect_hook_name(de->d_name) &&
		    (data = protect_saved_read(p, d, de->d_name, &len, &mode)) != NULL)
			protect_saved_set(d, de->d_name, data, len, mode);
	closedir(dir);
out:
	buf_release(&path);
}

/* Watch rel in its role; a directory watched already (moved, seen again) gets its new path. */
static bool
protect_watch(struct protect *p, const char *rel, char role)
{
	struct buf path = BUF_INIT(PATH_MAX + 64);
	struct protect_dir *d;
	size_t i;
	int wd;

	protect_path(p, rel, &path);
	/* a folder may be both in the tree and a hooks folder: a role's mask adds to the other's */
	wd = inotify_add_watch(p->fd, buf_cstr(&path), role == 'd' ? PROTECT_MASK :
	    PROTECT_GIT_MASK | IN_MASK_ADD);
	buf_release(&path);
	if (wd == -1) {
		/* ENOSPC: the kernel's limit of watches; the walk at the end covers the rest. */
		if (errno != ENOENT && errno != ENOTDIR)
			p->partial = true;
		return false;
	}
	if ((d = protect_dir_find(p, wd)) != NULL) {
		free(d->rel);
		d->rel = xstrdup(rel);
		if ((role == 'h' && d->role == 'd') || (role == 'd' && d->role == 'h')) {
			d->role = 'd';
			if (!d->hooks)
				protect_save_dir(p, d);
			d->hooks = true;
		}
		return true;
	}
	p->dirs = xreallocarray(p->dirs, p->ndirs + 1, sizeof *p->dirs);
	for (i = p->ndirs; i > 0 && p->dirs[i - 1].wd > wd; i--)
		p->dirs[i] = p->dirs[i - 1];
	memset(&p->dirs[i], 0, sizeof p->dirs[i]);
	p->dirs[i].wd = wd;
	p->dirs[i].rel = xstrdup(rel);
	p->dirs[i].role = role;
	if (role != 'd')
		protect_save_dir(p, &p->dirs[i]);
	p->ndirs++;
	return true;
}

/*
 * An existing repository below the root (the root's own .git is bound
 * read-only by the sandbox): its config and hooks are watched, so that a
 * command may commit there but not plant what the next git command runs.
 */
static void
protect_repo(struct protect *p, const char *rel)
{
	struct buf hooks = BUF_INIT(PATH_MAX + 64), path = BUF_INIT(PATH_MAX + 64);
	const char *base = strrchr(rel, '/');
	struct stat st;

	protect_path(p, rel, &path);
	if (p->fd == -1 || base == NULL || strcmp(base, "/.git") != 0 ||
	    lstat(buf_cstr(&path), &st) == -1 || !S_ISDIR(st.st_mode))
		goto out;
	protect_watch(p, rel, 'g');
	protect_join(rel, "hooks", &hooks);
	protect_watch(p, buf_cstr(&hooks), 'h');
out:
	buf_release(&hooks);
	buf_release(&path);
}

static void
protect_unwatch(struct protect *p, int wd)
{
	struct protect_dir *d = protect_dir_find(p, wd);
	size_t i;

	if (d == NULL)
		return;
	i = (size_t)(d - p->dirs);
	free(d->rel);
	protect_saved_clear(d);
	memmove(&p->dirs[i], &p->dirs[i + 1], (p->ndirs - i - 1) * sizeof *p->dirs);
	p->ndirs--;
}

/*
 * Walk the directories on the stack and what is below them, at most
 * budget of them: watch each directory, and hand each protected name to
 * found.  fresh: all of it is new (it was just created or moved in); else
 * a name already known is left alone.  Nothing below a .git is walked: it
 * is git's, and a protected name itself.
 */
static void
protect_walk_step(struct protect *p, char ***stackp, size_t *nstackp, bool fresh, bool watch,
    size_t budget)
{
	struct buf path = BUF_INIT(PATH_MAX + 64), sub = BUF_INIT(PATH_MAX + 64);

	while (*nstackp > 0 && budget-- > 0) {
		char *rel = (*stackp)[--*nstackp];
		struct dirent *de;
		const char *kind;
		DIR *d;
		int fd;

		if (protect_is_bare(p, rel) && (fresh ||
		    protect_strv_find(p->known, p->nknown, rel) == -1)) {
			protect_found(p, rel, protect_bare_kind);
			/* the root itself is still walked: only its HEAD was moved */
			if (rel[0] != '\0') {
				free(rel);
				continue;
			}
		}
		if (watch)
			protect_watch(p, rel, 'd');
		protect_path(p, rel, &path);
		fd = open(buf_cstr(&path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 || (d = fdopendir(fd)) == NULL) {
			if (fd != -1)
				close(fd);
			free(rel);
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			struct stat st;
			bool isdir;

			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			protect_join(rel, de->d_name, &sub);
			if ((kind = protect_kind_of(p, buf_cstr(&sub))) != NULL) {
				if (fresh || protect_strv_find(p->known, p->nknown, buf_cstr(&sub)) == -1)
					protect_found(p, buf_cstr(&sub), kind);
				else if (watch)
					protect_repo(p, buf_cstr(&sub));
				continue;
			}
			isdir = de->d_type == DT_DIR;
			if (de->d_type == DT_UNKNOWN)
				isdir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISDIR(st.st_mode);
			if (isdir) {
				*stackp = xreallocarray(*stackp, *nstackp + 1, sizeof **stackp);
				(*stackp)[(*nstackp)++] = xstrdup(buf_cstr(&sub));
			}
		}
		closedir(d);
		free(rel);
	}
	buf_release(&path);
	buf_release(&sub);
}

static void
protect_walk(struct protect *p, const char *top, bool fresh, bool watch)
{
	char **stack = NULL;
	size_t nstack = 0;

	protect_strv_add(&stack, &nstack, top);
	protect_walk_step(p, &stack, &nstack, fresh, watch, SIZE_MAX);
	free(stack);
}

/*
 * A file d guards (a .git's config, a hook) was written: the new one is
 * caught and the old one put back.  A trusted writer's or the user's own
 * change (no sandboxed command, or paused) is the one kept from then on.
 */
static void
protect_guarded(struct protect *p, struct protect_dir *d, const char *name, const char *kind)
{
	struct buf rel = BUF_INIT(PATH_MAX + 64), tmp = BUF_INIT(PATH_MAX + 64),
	    dst = BUF_INIT(PATH_MAX + 64);
	struct protect_saved *was;
	size_t n = 0;
	mode_t mode = 0;
	char *now;
	int fd;

	now = protect_saved_read(p, d, name, &n, &mode);
	was = protect_saved_find(d, name);
	if (now != NULL && was != NULL && was->data != NULL && n == was->len &&
	    memcmp(now, was->data, n) == 0)
		goto out;	/* as it was (what tandem put back, too) */
	if (p->holds == 0 || p->paused > 0) {
		protect_saved_set(d, name, now, n, mode);
		now = NULL;
		goto out;
	}
	if (now == NULL)
		goto out;
	protect_join(d->rel, name, &rel);
	protect_catch(p, buf_cstr(&rel), kind);
	if (was == NULL || was->data == NULL)
		goto out;
	protect_path(p, d->rel, &tmp);
	buf_printf(&tmp, "/.%s.tandem-restore", name);
	protect_path(p, buf_cstr(&rel), &dst);
	fd = open(buf_cstr(&tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    was->mode & 0777);
	if (fd != -1) {
		bool ok = write(fd, was->data, was->len) == (ssize_t)was->len &&
		    fchmod(fd, was->mode & 0777) == 0;

		close(fd);
		if (!ok || rename(buf_cstr(&tmp), buf_cstr(&dst)) == -1)
			(void)unlink(buf_cstr(&tmp));
	}
out:
	free(now);
	buf_release(&rel);
	buf_release(&tmp);
	buf_release(&dst);
}

/* A hooks folder made in an existing repository: what is in it already is caught. */
static void
protect_hooks_scan(struct protect *p, const char *rel)
{
	struct buf path = BUF_INIT(PATH_MAX + 64), sub = BUF_INIT(PATH_MAX + 64);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	DIR *d;

	protect_path(p, rel, &path);
	if (p->holds == 0 || p->paused > 0 || (d = opendir(buf_cstr(&path))) == NULL)
		goto out;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    protect_hook_name(de->d_name))
			protect_strv_add(&names, &n, de->d_name);
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		protect_join(rel, names[i], &sub);
		protect_catch(p, buf_cstr(&sub), protect_hook_kind);
	}
	protect_strv_clear(&names, &n);
out:
	buf_release(&path);
	buf_release(&sub);
}

/* What happened in an existing repository's .git or hooks. */
static void
protect_repo_event(struct protect *p, struct protect_dir *d, const struct inotify_event *e)
{
	struct buf rel = BUF_INIT(PATH_MAX + 64);
	char *dir = xstrdup(d->rel);

	protect_join(dir, e->name, &rel);
	if (d->role == 'g' && strcmp(e->name, "config") == 0)
		protect_guarded(p, d, "config", protect_config_kind);
	else if (d->role == 'g' && strcmp(e->name, "commondir") == 0 && p->holds > 0 &&
	    p->paused == 0)
		/* it would send git to another directory's config */
		protect_catch(p, buf_cstr(&rel), protect_commondir_kind);
	else if (d->role == 'g' && strcmp(e->name, "hooks") == 0 && (e->mask & IN_ISDIR)) {
		protect_watch(p, buf_cstr(&rel), 'h');
		protect_hooks_scan(p, buf_cstr(&rel));
	} else if (d->role == 'h' && protect_hook_name(e->name) && !(e->mask & IN_ISDIR))
		protect_guarded(p, d, e->name, protect_hook_kind);
	free(dir);
	buf_release(&rel);
}

static void
protect_event(struct protect *p, const struct inotify_event *e)
{
	struct buf rel = BUF_INIT(PATH_MAX + 64);
	struct protect_dir *d;
	const char *kind;
	char *dir;

	if (e->mask & IN_Q_OVERFLOW) {
		p->lost = true;
		return;
	}
	if (e->mask & IN_IGNORED) {
		protect_unwatch(p, e->wd);
		return;
	}
	if ((d = protect_dir_find(p, e->wd)) == NULL || e->len == 0)
		return;
	if (d->role != 'd') {
		protect_repo_event(p, d, e);
		return;
	}
	if (d->hooks && !(e->mask & (IN_ISDIR | IN_DELETE | IN_MOVED_FROM)) &&
	    protect_hook_name(e->name))
		protect_guarded(p, d, e->name, protect_hook_kind);
	dir = xstrdup(d->rel);
	protect_join(dir, e->name, &rel);
	kind = protect_kind_of(p, buf_cstr(&rel));
	if (e->mask & (IN_DELETE | IN_MOVED_FROM)) {
		protect_strv_del(p->known, &p->nknown, buf_cstr(&rel));
		protect_strv_del(p->deferred, &p->ndeferred, buf_cstr(&rel));
		if ((e->mask & IN_MOVED_FROM) && (e->mask & IN_ISDIR)) {
			free(p->move_from);
			p->move_from = xstrdup(buf_cstr(&rel));
			p->move_cookie = e->cookie;
		}
	} else if ((e->mask & IN_MOVED_TO) && (e->mask & IN_ISDIR) && kind == NULL &&
	    p->move_from != NULL && e->cookie == p->move_cookie) {
		/* moved within the workspace: what was known in it still is, under its new name */
		protect_known_move(p, p->move_from, buf_cstr(&rel));
		protect_walk(p, buf_cstr(&rel), false, true);
	} else if (e->mask & IN_CLOSE_WRITE) {
		/* written in place: of the names, only a "gitdir:" file below the root can be */
		if (kind != NULL && p->holds > 0 && p->paused == 0)
			protect_catch(p, buf_cstr(&rel), kind);
	} else if (kind != NULL)
		protect_found(p, buf_cstr(&rel), kind);
	else if ((strcmp(e->name, "HEAD") == 0 || strcmp(e->name, "objects") == 0 ||
	    strcmp(e->name, "refs") == 0) && protect_is_bare(p, dir))
		protect_found(p, dir, protect_bare_kind);
	else if (e->mask & IN_ISDIR)
		/* made before its watch was on: what is in it is new too */
		protect_walk(p, buf_cstr(&rel), true, true);
	free(dir);
	buf_release(&rel);
}

/* Read every event queued; a lost one means a walk of the whole tree. */
static void
protect_drain(struct protect *p)
{
	char ev[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	if (p->fd == -1)
		return;
	while ((n = read(p->fd, ev, sizeof ev)) > 0) {
		const char *q = ev;

		while (q < ev + n) {
			const struct inotify_event *e = (const struct inotify_event *)(const void *)q;

			protect_event(p, e);
			q += sizeof *e + e->len;
		}
	}
	if (p->lost) {
		p->lost = false;
		protect_walk(p, "", false, true);
	}
}

static void
protect_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct protect *p = arg;

	protect_drain(p);
	/* a foreground command's catches are told once, with its result */
	if (p->background > 0)
		protect_tell(p);
}

/* rel of a path in the root (relative, or absolute below it), or NULL; no "..". */
static char *
protect_rel_of(const struct protect *p, const char *path)
{
	size_t rl = strlen(p->root), n;
	char *rel;

	if (path[0] == '/') {
		if (strncmp(path, p->root, rl) != 0 || path[rl] != '/')
			return NULL;
		path += rl + 1;
	}
	while (strncmp(path, "./", 2) == 0)
		path += 2;
	if (path[0] == '\0' || strstr(path, "..") != NULL)
		return NULL;
	rel = xstrdup(path);
	n = strlen(rel);
	while (n > 0 && rel[n - 1] == '/')
		rel[--n] = '\0';
	return rel;
}

/*
 * The root repository's core.hooksPath, when it names a folder in the
 * workspace (husky's .husky/, a .githooks/): its hooks run with the user's
 * next commit, so they are guarded as an existing repository's are.
 * Only the repository's own config is read: a global one's folder is
 * outside the workspace, where a sandboxed command does not write.
 */
static void
protect_hooks_path(struct protect *p)
{
	bool core = false;
	size_t len = 0;
	char *cfg = protect_slurp(p, ".git/config", &len), *line, *next, *rel;

	for (line = cfg; line != NULL && *line != '\0'; line = next) {
		char *eq, *k, *v, *end;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		k = line + strspn(line, " \t");
		if (*k == '[') {
			core = strncasecmp(k, "[core]", 6) == 0;
			continue;
		}
		if (!core || (eq = strchr(k, '=')) == NULL)
			continue;
		*eq = '\0';
		for (end = eq; end > k && (end[-1] == ' ' || end[-1] == '\t'); end--)
			end[-1] = '\0';
		if (strcasecmp(k, "hookspath") != 0)
			continue;
		v = eq + 1 + strspn(eq + 1, " \t\"");
		v[strcspn(v, "\"#;\r")] = '\0';
		for (end = v + strlen(v); end > v && (end[-1] == ' ' || end[-1] == '\t'); end--)
			end[-1] = '\0';
		if ((rel = protect_rel_of(p, v)) != NULL) {
			protect_watch(p, rel, 'h');
			free(p->hooks_rel);
			p->hooks_rel = rel;
		}
	}
	free(cfg);
}

/* The watch's first walk, begun: the names there now are known. */
static void
protect_begin(struct protect *p)
{
	if (p->started)
		return;
	p->started = true;
	p->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (p->fd == -1)
		p->partial = true;
	else
		protect_hooks_path(p);
	protect_strv_add(&p->warm, &p->nwarm, "");
}

/* A slice of the first walk in the loop's time; the next one after the loop ran. */
static void
protect_warm_slice(struct ev_loop *loop, void *arg)
{
	struct protect *p = arg;

	p->warm_timer = 0;
	protect_walk_step(p, &p->warm, &p->nwarm, false, p->fd != -1, PROTECT_WARM_SLICE);
	if (p->nwarm > 0)
		p->warm_timer = ev_timer_add(loop, 0, protect_warm_slice, p);
}

/* The first hold: the walk is finished now, before the command runs. */
static void
protect_start(struct protect *p)
{
	protect_begin(p);
	if (p->warm_timer != 0)
		ev_timer_cancel(p->loop, p->warm_timer);
	p->warm_timer = 0;
	protect_walk_step(p, &p->warm, &p->nwarm, false, p->fd != -1, SIZE_MAX);
}

/* --- the API ------------------------------------------------------------------- */

struct protect *
protect_new(struct ev_loop *loop, const char *root, const char *qdir, protect_notify_fn *notify,
    void *arg)
{
	struct protect *p = xcalloc(1, sizeof *p);

	p->loop = loop;
	p->root = xstrdup(root);
	p->qdir = xstrdup(qdir);
	p->notify = notify;
	p->arg = arg;
	p->fd = -1;
	buf_init(&p->pending, BUF_NOLIMIT);
	return p;
}

void
protect_free(struct protect *p)
{
	size_t i;

	if (p == NULL)
		return;
	if (p->holds > 0) {
		p->holds = 1;
		p->paused = 0;
		protect_release(p, false);
	}
	if (p->warm_timer != 0)
		ev_timer_cancel(p->loop, p->warm_timer);
	protect_strv_clear(&p->warm, &p->nwarm);
	if (p->in_loop)
		ev_io_del(p->loop, p->fd);
	if (p->fd != -1)
		close(p->fd);
	for (i = 0; i < p->ndirs; i++) {
		free(p->dirs[i].rel);
		protect_saved_clear(&p->dirs[i]);
	}
	free(p->dirs);
	protect_strv_clear(&p->known, &p->nknown);
	protect_strv_clear(&p->deferred, &p->ndeferred);
	protect_items_clear(p);
	buf_release(&p->pending);
	free(p->move_from);
	free(p->hooks_rel);
	free(p->root);
	free(p->qdir);
	free(p);
}

void
protect_warm(struct protect *p)
{
	if (p == NULL || p->started)
		return;
	protect_begin(p);
	p->warm_timer = ev_timer_add(p->loop, 0, protect_warm_slice, p);
}

void
protect_set_quarantine(struct protect *p, const char *qdir)
{
	if (p == NULL || strcmp(p->qdir, qdir) == 0)
		return;
	free(p->qdir);
	p->qdir = xstrdup(qdir);
	p->serial = 0;
}

void
protect_hold(struct protect *p, bool background)
{
	if (p == NULL)
		return;
	p->background += background;
	if (p->holds == 0) {
		/* what happened while no sandboxed command ran is allowed */
		protect_drain(p);
		if (p->partial && p->started && p->nwarm == 0)
			protect_walk(p, "", false, false);	/* what no watch saw, too */
		protect_start(p);
	}
	p->holds++;
	if (p->fd != -1 && !p->in_loop && ev_io_add(p->loop, p->fd, POLLIN, protect_on_read, p) == 0)
		p->in_loop = true;
}

void
protect_release(struct protect *p, bool background)
{
	if (p == NULL || p->holds == 0)
		return;
	p->background -= background && p->background > 0;
	protect_drain(p);
	if (p->partial)
		protect_walk(p, "", false, false);
	if (--p->holds == 0 && p->in_loop) {
		/* an idle loop ends when nothing is watched: this fd must not keep it */
		ev_io_del(p->loop, p->fd);
		p->in_loop = false;
	}
	protect_tell(p);
}

void
protect_pause(struct protect *p)
{
	if (p == NULL)
		return;
	protect_drain(p);
	protect_tell(p);
	p->paused++;
}

void
protect_resume(struct protect *p, bool all, const char *const *mine)
{
	size_t i, j;

	if (p == NULL || p->paused == 0)
		return;
	protect_drain(p);
	if (--p->paused > 0)
		return;
	/*
	 * While a sandboxed background command runs, what appeared may be its
	 * plant, timed to an approved command: only the paths a file tool
	 * names as its own are kept then.
	 */
	if (p->background > 0)
		all = false;
	for (i = 0; i < p->ndeferred; i++) {
		bool theirs = all;
		const char *kind = protect_kind_of(p, p->deferred[i]);

		for (j = 0; !theirs && mine != NULL && mine[j] != NULL; j++)
			theirs = strcmp(mine[j], p->deferred[i]) == 0;
		if (theirs || p->holds == 0)
			protect_strv_add(&p->known, &p->nknown, p->deferred[i]);
		else
			protect_catch(p, p->deferred[i], kind != NULL ? kind : protect_bare_kind);
	}
	protect_strv_clear(&p->deferred, &p->ndeferred);
	protect_tell(p);
}

int
protect_take(struct protect *p, struct buf *out)
{
	if (p == NULL || p->pending.len == 0)
		return 0;
	buf_printf(out, "\n%s", buf_cstr(&p->pending));
	buf_reset(&p->pending);
	return 1;
}

size_t
protect_watched(const struct protect *p)
{
	return p != NULL ? p->ndirs : 0;
}
