/* lib/file: whole-file reads with a cap, atomic writes, their failures. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "t.h"
#include "t_tree.h"

static char *
path_of(const char *rel)
{
	static char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return p;
}

/* How many entries of root hold ".tmp." (leftover temporary files). */
static int
leftovers(void)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d != NULL)
		closedir(d);
	return n;
}

T_TEST(read_whole)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	put("a", "hello\0world", 11);
	T_EQ_INT(file_read(path_of("a"), 11, 0, &b, &st), 0);
	T_EQ_INT(b.len, 11);
	T_OK(memcmp(b.data, "hello\0world", 11) == 0);
	T_EQ_INT(st.size, 11);
	T_OK(!st.truncated);
	buf_release(&b);
	/* Empty is fine. */
	put("empty", "", 0);
	T_EQ_INT(file_read(path_of("empty"), 10, FILE_REGULAR, &b, &st), 0);
	T_EQ_INT(b.len, 0);
	buf_release(&b);
}

T_TEST(read_cap)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	puts_file("big", "0123456789");
	T_EQ_INT(file_read(path_of("big"), 9, 0, &b, &st), -1);
	T_EQ_INT(st.fail, FILE_TOO_BIG);
	T_EQ_INT(errno, EFBIG);
	buf_release(&b);
	T_EQ_INT(file_read(path_of("big"), 9, FILE_TRUNCATE, &b, &st), 0);
	T_OK(st.truncated);
	T_EQ_INT(b.len, 9);
	T_EQ_INT(st.size, 10);
	buf_release(&b);
	T_EQ_INT(file_read(path_of("big"), 0, FILE_TRUNCATE, &b, &st), 0);
	T_OK(st.truncated);
	T_EQ_INT(b.len, 0);
	buf_release(&b);
	/* A cap of the whole address space reads all. */
	T_EQ_INT(file_read(path_of("big"), (size_t)-1, 0, &b, &st), 0);
	T_EQ_INT(b.len, 10);
	buf_release(&b);
}

T_TEST(read_failures)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	T_EQ_INT(file_read(path_of("none"), 10, 0, &b, &st), -1);
	T_EQ_INT(st.fail, FILE_MISSING);
	T_EQ_INT(file_read(path_of("a/x"), 10, 0, &b, &st), -1);	/* a is a file */
	T_EQ_INT(st.fail, FILE_MISSING);
	mkdir(path_of("dir"), 0755);
	T_EQ_INT(file_read(path_of("dir"), 10, FILE_REGULAR, &b, &st), -1);
	T_EQ_INT(st.fail, FILE_NOT_REGULAR);
	file_error(&err, "dir", &st, errno, 10);
	T_EQ_STR(buf_cstr(&err), "dir is not a regular file");
	buf_reset(&err);
	/* Without FILE_REGULAR a directory fails to read. */
	T_EQ_INT(file_read(path_of("dir"), 10, 0, &b, &st), -1);
	T_EQ_INT(st.fail, FILE_READ);
	file_error(&err, "dir", &st, errno, 10);
	T_EQ_STR(buf_cstr(&err), "cannot read dir: Is a directory");
	/* FILE_NOFOLLOW refuses a link. */
	T_EQ_INT(symlink("a", path_of("link")), 0);
	T_EQ_INT(file_read(path_of("link"), 100, 0, &b, &st), 0);
	buf_release(&b);
	T_EQ_INT(file_read(path_of("link"), 100, FILE_NOFOLLOW, &b, &st), -1);
	T_EQ_INT(st.fail, FILE_OPEN);
	T_EQ_INT(errno, ELOOP);
	/* A FIFO without a writer does not block with FILE_REGULAR. */
	T_EQ_INT(mkfifo(path_of("fifo"), 0600), 0);
	T_EQ_INT(file_read(path_of("fifo"), 10, FILE_REGULAR, &b, &st), -1);
	T_EQ_INT(st.fail, FILE_NOT_REGULAR);
	buf_release(&b);
	buf_release(&err);
}

T_TEST(write_atomic)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;
	struct stat sb;

	T_EQ_INT(file_write_atomic(path_of("w"), "one", 3, 0640, 0, &st), 0);
	T_EQ_INT(stat(path_of("w"), &sb), 0);
	T_EQ_INT(sb.st_mode & 07777, 0640);
	T_EQ_INT(file_read(path_of("w"), 100, 0, &b, &st), 0);
	T_EQ_STR(buf_cstr(&b), "one");
	buf_release(&b);
	/* An existing file keeps its mode with FILE_KEEP_MODE, gets mode without. */
	T_EQ_INT(chmod(path_of("w"), 0604), 0);
	T_EQ_INT(file_write_atomic(path_of("w"), "two", 3, 0600, FILE_KEEP_MODE, &st), 0);
	T_EQ_INT(stat(path_of("w"), &sb), 0);
	T_EQ_INT(sb.st_mode & 07777, 0604);
	T_EQ_INT(file_write_atomic(path_of("w"), "three", 5, 0600, 0, &st), 0);
	T_EQ_INT(stat(path_of("w"), &sb), 0);
	T_EQ_INT(sb.st_mode & 07777, 0600);
	T_EQ_INT(file_read(path_of("w"), 100, 0, &b, &st), 0);
	T_EQ_STR(buf_cstr(&b), "three");
	buf_release(&b);
	/* A leftover temporary file of this process does not stop the write. */
	{
		char tmp[PATH_MAX + 80];

		snprintf(tmp, sizeof tmp, "%s/w.tmp.%ld", root, (long)getpid());
		put(strrchr(tmp, '/') + 1, "stale", 5);
		T_EQ_INT(file_write_atomic(path_of("w"), "four", 4, 0600, 0, &st), 0);
		T_EQ_INT(unlink(tmp), 0);
	}
	T_EQ_INT(leftovers(), 0);
}

T_TEST(write_failures)
{
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	T_EQ_INT(file_write_atomic(path_of("nodir/w"), "x", 1, 0600, 0, &st), -1);
	T_EQ_INT(st.fail, FILE_CREATE);
	T_EQ_INT(errno, ENOENT);
	file_error(&err, "nodir/w", &st, errno, 0);
	T_EQ_STR(buf_cstr(&err), "cannot create a file next to nodir/w: No such file or directory");
	buf_reset(&err);
	/* The rename over a directory fails; the temporary file is gone. */
	mkdir(path_of("isdir"), 0755);
	T_EQ_INT(file_write_atomic(path_of("isdir"), "x", 1, 0600, 0, &st), -1);
	T_EQ_INT(st.fail, FILE_WRITE);
	file_error(&err, "isdir", &st, errno, 0);
	T_CONTAINS(buf_cstr(&err), "cannot write isdir: ");
	T_EQ_INT(leftovers(), 0);
	buf_release(&err);
}

T_TEST(fsync_dirs)
{
	int fd;

	T_EQ_INT(file_fsync_parent(path_of("w")), 0);
	fd = open(root, O_RDONLY | O_DIRECTORY);
	T_OK(fd >= 0);
	T_EQ_INT(file_fsync_dirfd(fd), 0);
	close(fd);
	T_EQ_INT(file_fsync_dirfd(-1), -1);
	T_EQ_INT(errno, EBADF);
}

int
main(void)
{
	char tmpl[] = "/tmp/tandem-test-file-XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, root) == NULL)
		return 1;
	T_RUN(read_whole);
	T_RUN(read_cap);
	T_RUN(read_failures);
	T_RUN(write_atomic);
	T_RUN(write_failures);
	T_RUN(fsync_dirs);
	t_tree_remove(root);
	return t_done();
}
