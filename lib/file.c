/* Whole files by path: read with a cap, write atomically, fsync a directory: see file.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "xalloc.h"

static int
file_fail(struct file_status *st, enum file_fail fail, int errnum)
{
	st->fail = fail;
	errno = errnum;
	return -1;
}

int
file_read_fd(int fd, size_t max, unsigned flags, struct buf *out, struct file_status *stp)
{
	struct file_status dummy;
	struct file_status *st = stp != NULL ? stp : &dummy;
	struct stat sb;
	char chunk[65536];
	size_t got = 0;
	ssize_t r;

	st->fail = FILE_OK;
	st->truncated = false;
	st->size = -1;
	if (fstat(fd, &sb) == -1)
		return file_fail(st, FILE_OPEN, errno);
	st->size = sb.st_size;
	if ((flags & FILE_REGULAR) && !S_ISREG(sb.st_mode))
		return file_fail(st, FILE_NOT_REGULAR, EINVAL);
	for (;;) {
		size_t want = sizeof chunk;

		/* One byte past max tells "exactly max" from "more". */
		if (max - got < want - 1)
			want = max - got + 1;
		r = read(fd, chunk, want);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return file_fail(st, FILE_READ, errno);
		if (r == 0)
			return 0;
		if ((size_t)r > max - got) {
			buf_append(out, chunk, max - got);
			if (flags & FILE_TRUNCATE) {
				st->truncated = true;
				return 0;
			}
			return file_fail(st, FILE_TOO_BIG, EFBIG);
		}
		if (buf_append(out, chunk, (size_t)r) == -1)
			return file_fail(st, FILE_TOO_BIG, EFBIG);
		got += (size_t)r;
	}
}

int
file_read(const char *path, size_t max, unsigned flags, struct buf *out, struct file_status *stp)
{
	struct file_status dummy;
	struct file_status *st = stp != NULL ? stp : &dummy;
	int oflags = O_RDONLY | O_CLOEXEC, fd, rc, e;

	if (flags & FILE_REGULAR)
		oflags |= O_NONBLOCK;
	if (flags & FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	st->size = -1;
	st->truncated = false;
	fd = open(path, oflags);
	if (fd == -1)
		return file_fail(st, errno == ENOENT || errno == ENOTDIR ? FILE_MISSING : FILE_OPEN,
		    errno);
	rc = file_read_fd(fd, max, flags, out, st);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Create a new temporary file next to path: its name goes to tmp. */
static int
file_mktemp(const char *path, mode_t mode, struct buf *tmp)
{
	static unsigned counter;
	int tries, fd = -1;

	for (tries = 0; tries < 100; tries++) {
		buf_reset(tmp);
		buf_printf(tmp, "%s.tmp.%ld", path, (long)getpid());
		if (tries > 0)
			buf_printf(tmp, ".%u", ++counter);
		fd = open(buf_cstr(tmp), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd != -1 || errno != EEXIST)
			break;
	}
	return fd;
}

int
file_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

int
file_write_queue(int fd, struct buf *q)
{
	while (q->len > 0) {
		ssize_t w = write(fd, q->data, q->len);

		if (w > 0) {
			buf_consume(q, (size_t)w);
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (w == 0)
			errno = ENOSPC;
		return -1;
	}
	return 0;
}

int
file_temp(const void *data, size_t len, const char *tag, struct buf *err)
{
	const char *dir = getenv("TMPDIR");
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	int fd = -1;

	if (dir == NULL || dir[0] != '/')
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
	if (fd == -1) {
		buf_printf(&path, "%s/%s.XXXXXX", dir, tag);
		fd = mkostemp(path.data, O_CLOEXEC);
		if (fd != -1)
			unlink(path.data);
	}
	buf_release(&path);
	if (fd == -1) {
		if (err != NULL)
			buf_printf(err, "cannot create a temporary file in %s: %s", dir, strerror(errno));
		return -1;
	}
	if (file_write_all(fd, data, len) == -1 || lseek(fd, 0, SEEK_SET) == -1) {
		if (err != NULL)
			buf_printf(err, "cannot write a temporary file in %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, unsigned flags,
    struct file_status *stp)
{
	struct file_status dummy;
	struct file_status *st = stp != NULL ? stp : &dummy;
	struct buf tmp = BUF_INIT(BUF_NOLIMIT);
	struct stat sb;
	int fd, e;

	st->fail = FILE_OK;
	st->size = -1;
	st->truncated = false;
	if ((flags & FILE_KEEP_MODE) && stat(path, &sb) == 0)
		mode = sb.st_mode & 07777;
	fd = file_mktemp(path, 0600, &tmp);
	if (fd == -1) {
		e = errno;
		buf_release(&tmp);
		return file_fail(st, FILE_CREATE, e);
	}
	if (file_write_all(fd, data, len) == -1 || fchmod(fd, mode) == -1 || fsync(fd) == -1) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) == -1 || rename(buf_cstr(&tmp), path) == -1) {
		e = errno;
		goto fail;
	}
	buf_release(&tmp);
	/* The rename is only durable once the directory is. */
	if (file_fsync_parent(path) == -1)
		return file_fail(st, FILE_SYNC_DIR, errno);
	return 0;
fail:
	unlink(buf_cstr(&tmp));
	buf_release(&tmp);
	return file_fail(st, FILE_WRITE, e);
}

int
file_fsync_parent(const char *path)
{
	char *copy = xstrdup(path), *d = dirname(copy);
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0, e;

	if (fd != -1) {
		rc = fsync(fd);
		e = errno;
		close(fd);
		errno = e;
	}
	free(copy);
	return rc;
}

int
file_fsync_dirfd(int dfd)
{
	if (fsync(dfd) == -1 && errno != EINVAL && errno != EROFS)
		return -1;
	return 0;
}

void
file_error(struct buf *err, const char *path, const struct file_status *st, int errnum,
    size_t max)
{
	switch (st->fail) {
	case FILE_NOT_REGULAR:
		buf_printf(err, "%s is not a regular file", path);
		break;
	case FILE_TOO_BIG:
		buf_printf(err, "%s is larger than %zu bytes", path, max);
		break;
	case FILE_CREATE:
		buf_printf(err, "cannot create a file next to %s: %s", path, strerror(errnum));
		break;
	case FILE_WRITE:
	case FILE_SYNC_DIR:
		buf_printf(err, "cannot write %s: %s", path, strerror(errnum));
		break;
	default:
		buf_printf(err, "cannot read %s: %s", path, strerror(errnum));
		break;
	}
}
