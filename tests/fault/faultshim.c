/*
 * faultshim: an LD_PRELOAD library that makes one chosen file-system call
 * fail, so that every durable write's failure path can be tested without
 * root or a full disk.
 *
 * Configured by the environment:
 *   FAULT_OPS     the calls that count, comma-separated, from: write,
 *                 pwrite, fsync, fdatasync, rename, open (open, openat,
 *                 creat), ftruncate, link (link, linkat), mkfifo (mkfifo,
 *                 mkfifoat, mknod, mknodat); "all" for every one (default
 *                 "all"); a link or a FIFO counts by the name it makes
 *   FAULT_PATH    count only calls on paths (or descriptors of files)
 *                 under this prefix (default: every path)
 *   FAULT_OPEN    "write": count only opens that may write (O_WRONLY,
 *                 O_RDWR, O_CREAT, O_TRUNC); default: every open
 *   FAULT_N       the number of the call that fails (1-based; 0 or unset:
 *                 none fails, calls are only counted)
 *   FAULT_ERRNO   ENOSPC (default), EIO, EDQUOT, EROFS or EACCES
 *   FAULT_STICKY  1: every counted call from the N-th on fails (a disk that
 *                 stays full); default: only the N-th
 *   FAULT_STATE   a file holding the shared counter, so that forked and
 *                 exec'd children count with their parent; created if
 *                 missing.  Without it each process counts alone.
 *   FAULT_MAIN_ONLY 1: count only in the process that loaded the library
 *                 first, not in the children it forks (tandem's built-in
 *                 tools run in forked children)
 *   FAULT_REPORT  a file that the count is written to at exit (the
 *                 highest count of any process sharing FAULT_STATE)
 *
 * Under AddressSanitizer the preloaded library comes before the runtime:
 * run with ASAN_OPTIONS=verify_asan_link_order=0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum fault_op { OP_WRITE = 1, OP_PWRITE = 2, OP_FSYNC = 4, OP_FDATASYNC = 8,
	OP_RENAME = 16, OP_OPEN = 32, OP_FTRUNCATE = 64, OP_LINK = 128, OP_MKFIFO = 256 };

static const struct { const char *name; unsigned bit; } fault_names[] = {
	{ "write", OP_WRITE }, { "pwrite", OP_PWRITE }, { "fsync", OP_FSYNC },
	{ "fdatasync", OP_FDATASYNC }, { "rename", OP_RENAME }, { "open", OP_OPEN },
	{ "ftruncate", OP_FTRUNCATE }, { "link", OP_LINK }, { "mkfifo", OP_MKFIFO },
	{ "all", 0x1ff },
};

static struct {
	bool		 ready;
	unsigned	 ops;
	const char	*prefix;
	size_t		 prefix_len;
	bool		 open_write_only;
	long		 n;
	int		 err;
	bool		 sticky;
	long		*counter;	/* shared, or &local */
	long		 local;
	const char	*report;
	bool		 main_only;
	pid_t		 owner;
	int		 busy;		/* inside the shim: calls of our own pass */
} fault;

static void
fault_setup(void)
{
	const char *v;

	if (fault.ready)
		return;
	fault.ready = true;
	fault.counter = &fault.local;
	v = getenv("FAULT_OPS");
	if (v == NULL || *v == '\0')
		v = "all";
	while (*v != '\0') {
		size_t len = strcspn(v, ","), i;

		for (i = 0; i < sizeof fault_names / sizeof fault_names[0]; i++)
			if (strlen(fault_names[i].name) == len && strncmp(v, fault_names[i].name, len) == 0)
				fault.ops |= fault_names[i].bit;
		v += len;
		if (*v == ',')
			v++;
	}
	fault.prefix = getenv("FAULT_PATH");
	fault.prefix_len = fault.prefix != NULL ? strlen(fault.prefix) : 0;
	v = getenv("FAULT_OPEN");
	fault.open_write_only = v != NULL && strcmp(v, "write") == 0;
	v = getenv("FAULT_N");
	fault.n = v != NULL ? strtol(v, NULL, 10) : 0;
	v = getenv("FAULT_ERRNO");
	fault.err = v == NULL ? ENOSPC : strcmp(v, "EIO") == 0 ? EIO :
	    strcmp(v, "EDQUOT") == 0 ? EDQUOT : strcmp(v, "EROFS") == 0 ? EROFS :
	    strcmp(v, "EACCES") == 0 ? EACCES : ENOSPC;
	v = getenv("FAULT_STICKY");
	fault.sticky = v != NULL && strcmp(v, "1") == 0;
	fault.report = getenv("FAULT_REPORT");
	v = getenv("FAULT_MAIN_ONLY");
	fault.main_only = v != NULL && strcmp(v, "1") == 0;
	fault.owner = getpid();
	v = getenv("FAULT_STATE");
	if (v != NULL && *v != '\0') {
		int fd = (int)syscall(SYS_openat, AT_FDCWD, v, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd != -1) {
			void *p;

			if (syscall(SYS_ftruncate, fd, (off_t)sizeof(long)) == 0) {
				p = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
				if (p != MAP_FAILED)
					fault.counter = p;
			}
			syscall(SYS_close, fd);
		}
	}
}

static bool
fault_under(const char *path)
{
	char abs[PATH_MAX];

	if (fault.prefix == NULL || fault.prefix_len == 0)
		return true;
	if (path == NULL)
		return false;
	if (path[0] != '/') {
		size_t n;

		if (getcwd(abs, sizeof abs) == NULL)
			return false;
		n = strlen(abs);
		if (snprintf(abs + n, sizeof abs - n, "/%s", path) < 0)
			return false;
		path = abs;
	}
	return strncmp(path, fault.prefix, fault.prefix_len) == 0;
}

static bool
fault_fd_under(int fd)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	if (fault.prefix == NULL || fault.prefix_len == 0)
		return true;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return false;
	path[n] = '\0';
	return fault_under(path);
}

/* Count a call of op on a matching file: true when it is to fail (errno set). */
static bool
fault_hit(unsigned op, bool matches)
{
	long c;

	fault_setup();
	if (fault.busy || !(fault.ops & op) || !matches)
		return false;
	if (fault.main_only && getpid() != fault.owner)
		return false;
	c = __atomic_add_fetch(fault.counter, 1, __ATOMIC_SEQ_CST);
	if (fault.n > 0 && (c == fault.n || (fault.sticky && c > fault.n))) {
		errno = fault.err;
		return true;
	}
	return false;
}

static bool
fault_fd_hit(unsigned op, int fd)
{
	fault_setup();
	if (fault.busy || !(fault.ops & op))
		return false;
	return fault_hit(op, fault_fd_under(fd));
}

__attribute__((constructor)) static void
fault_init(void)
{
	fault_setup();
}

__attribute__((destructor)) static void
fault_report(void)
{
	char line[32];
	int fd, n;

	fault_setup();
	if (fault.report == NULL || (fault.main_only && getpid() != fault.owner))
		return;
	n = snprintf(line, sizeof line, "%ld\n", *fault.counter);
	fd = (int)syscall(SYS_openat, AT_FDCWD, fault.report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd != -1) {
		syscall(SYS_write, fd, line, (size_t)n);
		syscall(SYS_close, fd);
	}
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t
write(int fd, const void *p, size_t n)
{
	if (fd > 2 && fault_fd_hit(OP_WRITE, fd))
		return -1;
	return NEXT(write)(fd, p, n);
}

ssize_t
pwrite(int fd, const void *p, size_t n, off_t off)
{
	if (fault_fd_hit(OP_PWRITE, fd))
		return -1;
	return NEXT(pwrite)(fd, p, n, off);
}

ssize_t
pwrite64(int fd, const void *p, size_t n, off_t off)
{
	if (fault_fd_hit(OP_PWRITE, fd))
		return -1;
	return NEXT(pwrite64)(fd, p, n, off);
}

int
fsync(int fd)
{
	if (fault_fd_hit(OP_FSYNC, fd))
		return -1;
	return NEXT(fsync)(fd);
}

int
fdatasync(int fd)
{
	if (fault_fd_hit(OP_FDATASYNC, fd))
		return -1;
	return NEXT(fdatasync)(fd);
}

int
ftruncate(int fd, off_t len)
{
	if (fault_fd_hit(OP_FTRUNCATE, fd))
		return -1;
	return NEXT(ftruncate)(fd, len);
}

int
rename(const char *from, const char *to)
{
	fault_setup();
	if (fault_hit(OP_RENAME, fault_under(to)))
		return -1;
	return NEXT(rename)(from, to);
}

int
renameat(int fromfd, const char *from, int tofd, const char *to)
{
	fault_setup();
	if (fault_hit(OP_RENAME, tofd == AT_FDCWD || to[0] == '/' ? fault_under(to) :
	    fault_fd_under(tofd)))
		return -1;
	return NEXT(renameat)(fromfd, from, tofd, to);
}

/* Is the name made at path (relative to dirfd) under the prefix? */
static bool
fault_at_under(int dirfd, const char *path)
{
	return dirfd == AT_FDCWD || path[0] == '/' ? fault_under(path) : fault_fd_under(dirfd);
}

int
link(const char *from, const char *to)
{
	fault_setup();
	if (fault_hit(OP_LINK, fault_under(to)))
		return -1;
	return NEXT(link)(from, to);
}

int
linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	fault_setup();
	if (fault_hit(OP_LINK, fault_at_under(tofd, to)))
		return -1;
	return NEXT(linkat)(fromfd, from, tofd, to, flags);
}

int
mkfifo(const char *path, mode_t mode)
{
	fault_setup();
	if (fault_hit(OP_MKFIFO, fault_under(path)))
		return -1;
	return NEXT(mkfifo)(path, mode);
}

int
mkfifoat(int dirfd, const char *path, mode_t mode)
{
	fault_setup();
	if (fault_hit(OP_MKFIFO, fault_at_under(dirfd, path)))
		return -1;
	return NEXT(mkfifoat)(dirfd, path, mode);
}

int
mknod(const char *path, mode_t mode, dev_t dev)
{
	fault_setup();
	if (fault_hit(OP_MKFIFO, fault_under(path)))
		return -1;
	return NEXT(mknod)(path, mode, dev);
}

int
mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	fault_setup();
	if (fault_hit(OP_MKFIFO, fault_at_under(dirfd, path)))
		return -1;
	return NEXT(mknodat)(dirfd, path, mode, dev);
}

static bool
fault_open_counts(int flags)
{
	fault_setup();
	return !fault.open_write_only || (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
}

static mode_t
fault_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = fault_mode(flags, ap);
	va_end(ap);
	if (fault_open_counts(flags) && fault_hit(OP_OPEN, fault_under(path)))
		return -1;
	return NEXT(open)(path, flags, mode);
}

int
open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = fault_mode(flags, ap);
	va_end(ap);
	if (fault_open_counts(flags) && fault_hit(OP_OPEN, fault_under(path)))
		return -1;
	return NEXT(open64)(path, flags, mode);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = fault_mode(flags, ap);
	va_end(ap);
	if (fault_open_counts(flags) && fault_hit(OP_OPEN, dirfd == AT_FDCWD || path[0] == '/' ?
	    fault_under(path) : fault_fd_under(dirfd)))
		return -1;
	return NEXT(openat)(dirfd, path, flags, mode);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = fault_mode(flags, ap);
	va_end(ap);
	if (fault_open_counts(flags) && fault_hit(OP_OPEN, dirfd == AT_FDCWD || path[0] == '/' ?
	    fault_under(path) : fault_fd_under(dirfd)))
		return -1;
	return NEXT(openat64)(dirfd, path, flags, mode);
}

int
creat(const char *path, mode_t mode)
{
	if (fault_hit(OP_OPEN, fault_under(path)))
		return -1;
	return NEXT(creat)(path, mode);
}
