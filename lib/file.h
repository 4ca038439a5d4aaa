/*
 * file: whole files by path.  Reading a whole file with a size cap, writing
 * one atomically (a temporary file in the same directory, every byte
 * written, fsync, rename over the old one, fsync of the directory), and
 * fsync of a directory.
 *
 * Failures return -1 with errno set and say in a struct file_status which
 * step failed, so each caller keeps its own sentence; file_error() gives the
 * plain one.  Paths only: the tools' confined reads and writes go through
 * descriptors from the sandbox walk instead (tools/fsutil.h).
 */
#ifndef TANDEM_FILE_H
#define TANDEM_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct buf;

enum file_flags {
	FILE_REGULAR	= 1 << 0,	/* read: refuse what is not a regular file (and never block on a FIFO) */
	FILE_TRUNCATE	= 1 << 1,	/* read: stop at max bytes instead of failing */
	FILE_NOFOLLOW	= 1 << 2,	/* read: refuse a symbolic link as the last part */
	FILE_KEEP_MODE	= 1 << 3	/* write: an existing file keeps its own mode */
};

/* The step that failed. */
enum file_fail {
	FILE_OK,
	FILE_MISSING,	/* read: the path does not exist (ENOENT, ENOTDIR) */
	FILE_OPEN,	/* read: it cannot be opened */
	FILE_NOT_REGULAR, /* read with FILE_REGULAR: a directory, device, FIFO... */
	FILE_READ,	/* read: read(2) failed */
	FILE_TOO_BIG,	/* read: more than max bytes (errno EFBIG) */
	FILE_CREATE,	/* write: the temporary file cannot be created */
	FILE_WRITE,	/* write: writing, fsync or the rename failed; the old file is whole */
	FILE_SYNC_DIR	/* write: renamed, but the directory's fsync failed */
};

struct file_status {
	enum file_fail	 fail;
	off_t		 size;		/* read: the size fstat gave (-1 before the open) */
	bool		 truncated;	/* read with FILE_TRUNCATE: there was more than max */
};

/*
 * Append the whole of path to out, at most max bytes.  0, or -1 with errno
 * and st->fail (st may be NULL).  On failure out keeps what was read.
 */
int	file_read(const char *path, size_t max, unsigned flags, struct buf *out,
	    struct file_status *st);
/* The same from an open descriptor (not closed). */
int	file_read_fd(int fd, size_t max, unsigned flags, struct buf *out, struct file_status *st);

/*
 * Replace path by data[0..len) atomically, with mode (exactly, umask aside;
 * FILE_KEEP_MODE: an existing file's own).  0, or -1 with errno and
 * st->fail; after FILE_SYNC_DIR the new contents are in place.
 */
int	file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
	    unsigned flags, struct file_status *st);

/* Write all of data to fd, again after EINTR.  0, or -1 with errno (ENOSPC for a write of 0). */
int	file_write_all(int fd, const void *data, size_t len);

/*
 * Write from the front of q what the non-blocking fd takes now, again after
 * EINTR, and drop it from q: 0 when q is empty, 1 when fd would block (the
 * rest stays), -1 with errno when fd failed (ENOSPC for a write of 0).
 */
int	file_write_queue(int fd, struct buf *q);

/*
 * An unlinked temporary file in $TMPDIR (else /tmp) holding data[0..len),
 * at offset 0: a child's stdin.  Where O_TMPFILE is missing it has the name
 * TAG.XXXXXX for a moment.  The descriptor (close-on-exec), or -1 with err
 * filled when err is not NULL.
 */
int	file_temp(const void *data, size_t len, const char *tag, struct buf *err);

/* fsync the directory that holds path.  0, or -1 with errno. */
int	file_fsync_parent(const char *path);
/* fsync an open directory; file systems that cannot (EINVAL, EROFS) count as done. */
int	file_fsync_dirfd(int dfd);

/* The plain sentence for a failure: "cannot read PATH: REASON" and the like. */
void	file_error(struct buf *err, const char *path, const struct file_status *st, int errnum,
	    size_t max);

#endif
