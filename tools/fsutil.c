/* Bounded reads, atomic writes and snapshots for the write tools: see fsutil.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
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
#include "sha256.h"
#include "utf8.h"
#include "xalloc.h"

/* How much of a file fsutil_is_binary looks at. */
#define FSUTIL_SNIFF	8192

static int
fsutil_read_fd(int fd, const char *abs, size_t cap, char **data, size_t *len,
    struct buf *err)
{
	struct stat st;
	size_t n = 0, size;
	char *p;

	if (fstat(fd, &st) == -1) {
		buf_printf(err, "cannot stat %s: %s", abs, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		buf_printf(err, "%s is a directory, not a file", abs);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		buf_printf(err, "%s is not a regular file", abs);
		return -1;
	}
	if ((uintmax_t)st.st_size > cap) {
		buf_printf(err, "%s is %jd bytes, more than the %zu MB the editing tools "
		    "handle; change it with run_bash (sed, a script) instead",
		    abs, (intmax_t)st.st_size, cap >> 20);
		return -1;
	}
	size = (size_t)st.st_size;
	p = xmalloc(size + 1);
	for (;;) {
		char probe[4096];
		ssize_t r;

		if (n < size)
			r = read(fd, p + n, size - n);
		else
			r = read(fd, probe, sizeof probe);	/* at the end, or did it grow? */
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			buf_printf(err, "cannot read %s: %s", abs, strerror(errno));
			free(p);
			return -1;
		}
		if (r == 0)
			break;
		if (n == size) {
			if (size + (size_t)r > cap) {
				buf_printf(err, "%s grew past %zu MB while it was read", abs, cap >> 20);
				free(p);
				return -1;
			}
			size = size * 2 + sizeof probe < cap ? size * 2 + sizeof probe : cap;
			p = xrealloc(p, size + 1);
			memcpy(p + n, probe, (size_t)r);
		}
		n += (size_t)r;
	}
	p[n] = '\0';
	*data = p;
	*len = n;
	return 0;
}

int
fsutil_read_file(const char *abs, size_t cap, char **data, size_t *len, struct buf *err)
{
	int fd, rc;

	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO must not hang the tool */
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1) {
		if (errno == ENOENT || errno == ENOTDIR) {
			buf_printf(err, "%s does not exist", abs);
			return FSUTIL_MISSING;
		}
		buf_printf(err, "cannot open %s: %s", abs, strerror(errno));
		return -1;
	}
	rc = fsutil_read_fd(fd, abs, cap, data, len, err);
	close(fd);
	return rc;
}

int
fsutil_read_at(const struct sandbox_at *at, size_t cap, char **data, size_t *len,
    struct buf *err)
{
	int fd, rc;

	*data = NULL;
	*len = 0;
	if (!at->exists) {
		buf_printf(err, "%s does not exist", at->rel);
		return FSUTIL_MISSING;
	}
	if (S_ISDIR(at->st.st_mode)) {
		buf_printf(err, "%s is a directory, not a file", at->rel);
		return -1;
	}
	fd = sandbox_open_at(at, O_RDONLY, err);
	if (fd == -1)
		return -1;
	rc = fsutil_read_fd(fd, at->rel, cap, data, len, err);
	close(fd);
	return rc;
}

/* Control characters that do not occur in text files. */
static bool
fsutil_odd_control(unsigned char c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
	    c != '\v' && c != '\b' && c != 0x1b;
}

bool
fsutil_is_binary(const char *data, size_t len)
{
	size_t n = len < FSUTIL_SNIFF ? len : FSUTIL_SNIFF, i = 0, odd = 0;

	if (memchr(data, '\0', n) != NULL)
		return true;
	/* a multi-byte character cut by the sniff limit is not held against it */
	if (n < len)
		n = utf8_complete_prefix(data, n);
	while (i < n) {
		uint32_t cp;
		size_t k = utf8_decode(data + i, n - i, &cp);

		if (cp == 0xFFFD && k == 1)
			odd++;
		else if (k == 1 && fsutil_odd_control((unsigned char)data[i]))
			odd++;
		i += k;
	}
	return odd * 10 > n;
}

static int
fsutil_hash_fd(int fd, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256_ctx *c = sha256_begin();
	char chunk[65536];

	for (;;) {
		ssize_t r = read(fd, chunk, sizeof chunk);

		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			sha256_end(c, hex);
			return -1;
		}
		if (r == 0)
			break;
		sha256_update(c, chunk, (size_t)r);
	}
	sha256_end(c, hex);
	return 0;
}

int
fsutil_hash_file(const char *abs, char hex[SHA256_HEX_LEN + 1])
{
	struct stat st;
	int fd, rc;

	hex[0] = '\0';
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1)
		return errno == ENOENT || errno == ENOTDIR ? FSUTIL_MISSING : -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	rc = fsutil_hash_fd(fd, hex);
	close(fd);
	if (rc != 0)
		hex[0] = '\0';
	return rc;
}

static char *
fsutil_join(const char *dir, const char *name)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_puts(&b, dir);
	if (b.len == 0 || b.data[b.len - 1] != '/')
		buf_putc(&b, '/');
	buf_puts(&b, name);
	return buf_detach(&b, NULL);
}

/*
 * Open dir (trusted: the snapshot directory) for writing into, without
 * following a link at its last component.
 */
static int
fsutil_open_dir(const char *dir, struct buf *err)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (dfd == -1)
		buf_printf(err, "cannot open the directory %s: %s", dir, strerror(errno));
	return dfd;
}

/* Does the file name in dfd hold what expect says (see fsutil_write_atomic)? */
static int
fsutil_check_expect(int dfd, const char *name, const char *shown, const char *expect,
    struct buf *err)
{
	char hex[SHA256_HEX_LEN + 1];
	int fd, rc;

	if (expect == NULL)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd == -1 && errno == ENOENT) {
		if (expect[0] == '\0')
			return 0;
		buf_printf(err, "%s was removed after it was read; nothing was written", shown);
		return -1;
	}
	if (fd == -1) {
		buf_printf(err, "cannot open %s: %s", shown, strerror(errno));
		return -1;
	}
	if (expect[0] == '\0') {
		close(fd);
		buf_printf(err, "%s was created by something else meanwhile; nothing was "
		    "written.  Read it and try again", shown);
		return -1;
	}
	rc = fsutil_hash_fd(fd, hex);
	close(fd);
	if (rc != 0 || strcmp(hex, expect) != 0) {
		buf_printf(err, "%s changed after it was read (another program wrote it); "
		    "nothing was written.  Read it again and redo the change", shown);
		return -1;
	}
	return 0;
}

/* A temporary file in dfd, opened for writing; its name goes to tmp. */
static int
fsutil_mktemp(int dfd, char *tmp, size_t size)
{
	static unsigned long counter;
	struct timespec ts;
	int tries, fd = -1;

	for (tries = 0; tries < 100; tries++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (snprintf(tmp, size, ".tandem-%ld-%lx%lx.tmp", (long)getpid(),
		    (unsigned long)ts.tv_nsec, ++counter) >= (int)size)
			return -1;
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd != -1 || errno != EEXIST)
			break;
	}
	return fd;
}

/*
 * Write data as name in dfd through a temporary file and a rename, with
 * the given mode (and owner, when old is not NULL).
 */
static int
fsutil_write_at(int dfd, const char *name, const char *shown, const void *data,
    size_t len, mode_t mode, const struct stat *old, struct buf *err)
{
	char tmp[128];
	int fd, saved;

	fd = fsutil_mktemp(dfd, tmp, sizeof tmp);
	if (fd == -1) {
		buf_printf(err, "cannot create a temporary file next to %s: %s", shown,
		    strerror(errno));
		return -1;
	}
	/* keep the owner when we may (we may not when it is someone else's) */
	if (old != NULL && (old->st_uid != geteuid() || old->st_gid != getegid()))
		(void)!fchown(fd, old->st_uid, old->st_gid);
	/* after fchown, which may clear the set-id bits */
	if (file_write_all(fd, data, len) == -1 || fchmod(fd, mode) == -1)
		goto fail;
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, name) == -1)
		goto fail;
	/* some file systems cannot fsync a directory; the rename is done anyway */
	if (file_fsync_dirfd(dfd) == -1)
		goto fail_after;
	return 0;
fail:
	saved = errno;
	if (fd != -1)
		close(fd);
	unlinkat(dfd, tmp, 0);
	buf_printf(err, "cannot write %s: %s", shown, strerror(saved));
	return -1;
fail_after:
	buf_printf(err, "wrote %s but could not sync its directory: %s", shown, strerror(errno));
	return -1;
}

static mode_t
fsutil_new_mode(void)
{
	mode_t mask = umask(022);

	umask(mask);
	return 0644 & ~mask;
}

/* The target of a legacy call (root + abs): walked beneath root, link-free. */
static int
fsutil_place_open(const char *root, const char *abs, struct sandbox_at *at, struct buf *err)
{
	struct sandbox sb = { root, NULL, NULL };

	if (sandbox_walk(&sb, abs, SANDBOX_EDIT, 0, at, err) != 0)
		return -1;
	return 0;
}

/* Is at a place a file can be written to: a name in an open directory? */
static int
fsutil_place_ok(const struct sandbox_at *at, struct buf *err)
{
	if (at->dirfd == -1) {
		buf_printf(err, "the directory of %s does not exist; nothing was written", at->rel);
		return -1;
	}
	if (strcmp(at->name, ".") == 0) {
		buf_printf(err, "%s is a directory, not a file; nothing was written", at->rel);
		return -1;
	}
	return 0;
}

int
fsutil_write_place(const struct sandbox_at *at, const void *data, size_t len,
    const char *expect, struct buf *err)
{
	struct stat st;
	int exists;

	if (fsutil_place_ok(at, err) != 0)
		return -1;
	exists = fstatat(at->dirfd, at->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISLNK(st.st_mode)) {
		buf_printf(err, "%s became a symbolic link while it was written; nothing was written",
		    at->rel);
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		buf_printf(err, "%s is not a regular file; nothing was written", at->rel);
		return -1;
	}
	if (fsutil_check_expect(at->dirfd, at->name, at->rel, expect, err) != 0)
		return -1;
	return fsutil_write_at(at->dirfd, at->name, at->rel, data, len,
	    exists ? st.st_mode & 07777 : fsutil_new_mode(), exists ? &st : NULL, err);
}

int
fsutil_write_atomic(const char *root, const char *abs, const void *data, size_t len,
    const char *expect, struct buf *err)
{
	struct sandbox_at at;
	int rc;

	if (fsutil_place_open(root, abs, &at, err) != 0)
		return -1;
	rc = fsutil_write_place(&at, data, len, expect, err);
	sandbox_at_release(&at);
	return rc;
}

int
fsutil_remove_place(const struct sandbox_at *at, const char *expect, struct buf *err)
{
	struct stat st;

	if (at->dirfd == -1 || strcmp(at->name, ".") == 0 ||
	    fstatat(at->dirfd, at->name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		buf_printf(err, "%s does not exist", at->rel);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		buf_printf(err, "%s is not a regular file; nothing was removed", at->rel);
		return -1;
	}
	if (fsutil_check_expect(at->dirfd, at->name, at->rel, expect, err) != 0)
		return -1;
	if (unlinkat(at->dirfd, at->name, 0) == -1) {
		buf_printf(err, "cannot remove %s: %s", at->rel, strerror(errno));
		return -1;
	}
	if (file_fsync_dirfd(at->dirfd) == -1) {
		buf_printf(err, "removed %s but could not sync its directory: %s", at->rel,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
fsutil_remove(const char *root, const char *abs, const char *expect, struct buf *err)
{
	struct sandbox_at at;
	int rc;

	if (fsutil_place_open(root, abs, &at, err) != 0)
		return -1;
	rc = fsutil_remove_place(&at, expect, err);
	sandbox_at_release(&at);
	return rc;
}

/* mkdir -p for the trusted directory dir (the snapshot directory). */
static int
fsutil_mkpath(const char *dir, mode_t mode, struct buf *err)
{
	char *p = xstrdup(dir), *s = p;
	int rc = -1;

	for (;;) {
		struct stat st;
		char save;

		while (*s == '/')
			s++;
		s += strcspn(s, "/");
		save = *s;
		*s = '\0';
		if (mkdir(p, mode) == -1 && errno != EEXIST) {
			buf_printf(err, "cannot create the directory %s: %s", p, strerror(errno));
			goto out;
		}
		if (stat(p, &st) == -1 || !S_ISDIR(st.st_mode)) {
			buf_printf(err, "%s exists and is not a directory", p);
			goto out;
		}
		*s = save;
		if (save == '\0')
			break;
	}
	rc = 0;
out:
	free(p);
	return rc;
}

int
fsutil_mkdirs(const char *root, const char *dir, struct buf *err)
{
	struct sandbox sb = { root, NULL, NULL };

	return fsutil_mkdirs_in(&sb, dir, err);
}

static bool
fsutil_is_hex(const char *s)
{
	size_t i;

	for (i = 0; i < SHA256_HEX_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[SHA256_HEX_LEN] == '\0';
}

int
fsutil_snapshot(const char *snap_dir, const void *data, size_t len,
    char hex[SHA256_HEX_LEN + 1], struct buf *err)
{
	struct stat st;
	int dfd, rc;

	sha256_hex(data, len, hex);
	if (snap_dir[0] != '/') {
		buf_printf(err, "the snapshot directory %s is not an absolute path", snap_dir);
		return -1;
	}
	if (fsutil_mkpath(snap_dir, 0700, err) != 0)
		return -1;
	dfd = fsutil_open_dir(snap_dir, err);
	if (dfd == -1)
		return -1;
	/* content-addressed: the same name means the same content, already safe */
	if (fstatat(dfd, hex, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    (uintmax_t)st.st_size == len) {
		close(dfd);
		return 0;
	}
	rc = fsutil_write_at(dfd, hex, hex, data, len, 0600, NULL, err);
	close(dfd);
	return rc;
}

int
fsutil_snapshot_load(const char *snap_dir, const char *hex, char **data, size_t *len,
    struct buf *err)
{
	char got[SHA256_HEX_LEN + 1], *path;
	int rc;

	*data = NULL;
	*len = 0;
	if (hex == NULL || !fsutil_is_hex(hex)) {
		buf_printf(err, "not a snapshot name: %s", hex ? hex : "(null)");
		return -1;
	}
	path = fsutil_join(snap_dir, hex);
	rc = fsutil_read_file(path, FSUTIL_MAX_FILE, data, len, err);
	free(path);
	if (rc != 0)
		return -1;
	sha256_hex(*data, *len, got);
	if (strcmp(got, hex) != 0) {
		buf_printf(err, "the snapshot %s is damaged (its content does not match its name)", hex);
		free(*data);
		*data = NULL;
		*len = 0;
		return -1;
	}
	return 0;
}

static void
fsutil_meta_add(cJSON *files, const char *rel, const char *before, const char *after)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str_n(o, "path", rel, strlen(rel));
	if (before != NULL)
		cJSON_AddStringToObject(o, "before", before);
	else
		cJSON_AddNullToObject(o, "before");
	if (after != NULL)
		cJSON_AddStringToObject(o, "after", after);
	else
		cJSON_AddNullToObject(o, "after");
	cJSON_AddItemToArray(files, o);
}

int
fsutil_replace_at(const struct sandbox_at *at, const char *snap_dir, const char *old,
    size_t oldlen, const char *new, size_t newlen, cJSON *files, struct buf *err)
{
	char before[SHA256_HEX_LEN + 1] = "", after[SHA256_HEX_LEN + 1] = "";
	int rc;

	if (old != NULL) {
		if (snap_dir != NULL) {
			if (fsutil_snapshot(snap_dir, old, oldlen, before, err) != 0)
				return -1;
		} else
			sha256_hex(old, oldlen, before);
	}
	if (new != NULL) {
		sha256_hex(new, newlen, after);
		rc = fsutil_write_place(at, new, newlen, before, err);
	} else
		rc = fsutil_remove_place(at, old != NULL ? before : NULL, err);
	if (rc == 0 && files != NULL)
		fsutil_meta_add(files, at->rel, old != NULL ? before : NULL,
		    new != NULL ? after : NULL);
	return rc;
}

/*
 * Symbolic links and modes, for apply_patch.  Each checks, right before it
 * acts, that the directory it acts in is still inside the root.
 */

/*
 * The directory holding path's last name, reached by the walk beneath the
 * roots: an open descriptor, and the name in *base (pointing into path).
 * -1 with a sentence in err.
 */
static int
fsutil_parent_open(const struct sandbox *sb, const char *path, const char **base,
    struct buf *err)
{
	const char *slash = strrchr(path, '/');
	struct sandbox_at at;
	char *dir;
	int fd = -1;

	*base = slash != NULL ? slash + 1 : path;
	if (**base == '\0' || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0) {
		buf_printf(err, "%s is not a path to a file", path);
		return -1;
	}
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	if (sandbox_walk(sb, dir, SANDBOX_EDIT, SANDBOX_MUST_EXIST, &at, err) != 0) {
		free(dir);
		return -1;
	}
	free(dir);
	if (!S_ISDIR(at.st.st_mode))
		buf_printf(err, "the directory of %s is not a directory", path);
	else if (strcmp(at.name, ".") == 0)
		fd = fcntl(at.dirfd, F_DUPFD_CLOEXEC, 0);
	else
		fd = openat(at.dirfd, at.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 && S_ISDIR(at.st.st_mode))
		buf_printf(err, "cannot open the directory of %s: %s", path, strerror(errno));
	sandbox_at_release(&at);
	return fd;
}

int
fsutil_symlink_in(const struct sandbox *sb, const char *path, const char *target,
    struct buf *err)
{
	const char *base;
	int dfd = fsutil_parent_open(sb, path, &base, err), rc = -1, n;
	char tmp[NAME_MAX + 64];
	struct stat st;

	if (dfd == -1)
		return -1;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode)) {
		buf_printf(err, "%s exists and is not a symbolic link", path);
		goto out;
	}
	n = snprintf(tmp, sizeof(tmp), ".%s.tandem-link-%ld", base, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		buf_printf(err, "the path %s is too long", path);
		goto out;
	}
	(void)unlinkat(dfd, tmp, 0);
	if (symlinkat(target, dfd, tmp) == -1) {
		buf_printf(err, "cannot create the symbolic link %s: %s", path, strerror(errno));
		goto out;
	}
	if (renameat(dfd, tmp, dfd, base) == -1) {
		buf_printf(err, "cannot create the symbolic link %s: %s", path, strerror(errno));
		(void)unlinkat(dfd, tmp, 0);
		goto out;
	}
	(void)file_fsync_dirfd(dfd);	/* the link is made either way */
	rc = 0;
out:
	close(dfd);
	return rc;
}

int
fsutil_unlink_link_in(const struct sandbox *sb, const char *path, struct buf *err)
{
	const char *base;
	int dfd = fsutil_parent_open(sb, path, &base, err), rc = -1;
	struct stat st;

	if (dfd == -1)
		return -1;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISLNK(st.st_mode))
		buf_printf(err, "%s is not a symbolic link", path);
	else if (unlinkat(dfd, base, 0) == -1)
		buf_printf(err, "cannot remove %s: %s", path, strerror(errno));
	else
		rc = 0;
	close(dfd);
	return rc;
}

int
fsutil_chmod_in(const struct sandbox *sb, const char *path, unsigned mode, struct buf *err)
{
	struct sandbox_at at;
	int fd, rc = -1;

	if (sandbox_walk(sb, path, SANDBOX_EDIT, SANDBOX_MUST_EXIST, &at, err) != 0)
		return -1;
	if (!S_ISREG(at.st.st_mode))
		buf_printf(err, "%s is not a regular file", path);
	else if ((fd = sandbox_open_at(&at, O_RDONLY, err)) != -1) {
		if (fchmod(fd, (mode_t)(mode & 0777)) == -1)
			buf_printf(err, "cannot change the mode of %s: %s", path, strerror(errno));
		else
			rc = 0;
		close(fd);
	}
	sandbox_at_release(&at);
	return rc;
}

int
fsutil_rmdir_empty_in(const struct sandbox *sb, const char *path)
{
	struct buf ignored = BUF_INIT(4096);
	char *dir = xstrdup(path), *slash;
	struct sandbox_at at;
	int n = 0;

	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		bool gone;

		*slash = '\0';
		buf_reset(&ignored);
		if (sandbox_walk(sb, dir, SANDBOX_EDIT, SANDBOX_MUST_EXIST, &at, &ignored) != 0)
			break;
		/* a root itself ("."), or what is not a directory, stays */
		gone = strcmp(at.name, ".") != 0 && S_ISDIR(at.st.st_mode) &&
		    unlinkat(at.dirfd, at.name, AT_REMOVEDIR) == 0;
		if (gone)
			(void)file_fsync_dirfd(at.dirfd);
		sandbox_at_release(&at);
		if (!gone)
			break;
		n++;
	}
	buf_release(&ignored);
	free(dir);
	return n;
}

/* The path-based forms: the workspace root alone. */
int
fsutil_symlink(const char *root, const char *abs, const char *target, struct buf *err)
{
	struct sandbox sb = { root, NULL, NULL };

	return fsutil_symlink_in(&sb, abs, target, err);
}

int
fsutil_unlink_link(const char *root, const char *abs, struct buf *err)
{
	struct sandbox sb = { root, NULL, NULL };

	return fsutil_unlink_link_in(&sb, abs, err);
}

int
fsutil_chmod(const char *root, const char *abs, unsigned mode, struct buf *err)
{
	struct sandbox sb = { root, NULL, NULL };

	return fsutil_chmod_in(&sb, abs, mode, err);
}

int
fsutil_rmdir_empty(const char *root, const char *abs)
{
	struct sandbox sb = { root, NULL, NULL };

	return fsutil_rmdir_empty_in(&sb, abs);
}

int
fsutil_mkdirs_in(const struct sandbox *sb, const char *dir, struct buf *err)
{
	struct sandbox_at at;
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	int rc;

	/* every component a directory on the way, so each is created as needed */
	buf_puts(&p, dir);
	buf_puts(&p, "/.");
	rc = sandbox_walk(sb, buf_cstr(&p), SANDBOX_EDIT, SANDBOX_PARENTS, &at, err);
	buf_release(&p);
	if (rc == 0)
		sandbox_at_release(&at);
	return rc;
}

int
fsutil_write_in(const struct sandbox *sb, const char *path, const void *data, size_t len,
    const char *expect, struct buf *err)
{
	struct sandbox_at at;
	int rc;

	if (sandbox_walk(sb, path, SANDBOX_EDIT, SANDBOX_PARENTS, &at, err) != 0)
		return -1;
	rc = fsutil_write_place(&at, data, len, expect, err);
	sandbox_at_release(&at);
	return rc;
}

int
fsutil_remove_in(const struct sandbox *sb, const char *path, const char *expect,
    struct buf *err)
{
	struct sandbox_at at;
	int rc;

	if (sandbox_walk(sb, path, SANDBOX_EDIT, SANDBOX_MUST_EXIST, &at, err) != 0)
		return -1;
	rc = fsutil_remove_place(&at, expect, err);
	sandbox_at_release(&at);
	return rc;
}

int
fsutil_replace(const char *root, const char *snap_dir, const char *abs, const char *rel,
    const char *old, size_t oldlen, const char *new, size_t newlen, cJSON *files,
    struct buf *err)
{
	struct sandbox_at at;
	int rc;

	if (fsutil_place_open(root, abs, &at, err) != 0)
		return -1;
	/* the caller's name for the file goes into the record */
	free(at.rel);
	at.rel = xstrdup(rel);
	rc = fsutil_replace_at(&at, snap_dir, old, oldlen, new, newlen, files, err);
	sandbox_at_release(&at);
	return rc;
}
