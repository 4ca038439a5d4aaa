/* The workspace's file names, for the completion index: see filelist.h. */
#include "autoconf.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "filelist.h"
#include "ignore.h"

#define FILELIST_CHUNK	(64 * 1024)

struct filelist {
	bool		(*hide)(void *, const char *);
	void		*hide_arg;
	int		 fd;
	size_t		 max, count;
	int		 failed;
	char		 out[FILELIST_CHUNK];
	size_t		 used;
};

static void
filelist_flush(struct filelist *fl)
{
	size_t off = 0;

	while (off < fl->used && !fl->failed) {
		ssize_t w = write(fl->fd, fl->out + off, fl->used - off);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			fl->failed = 1;
		else
			off += (size_t)w;
	}
	fl->used = 0;
}

static void
filelist_put(struct filelist *fl, const char *s, size_t n)
{
	if (n > sizeof fl->out)
		return;
	if (fl->used + n > sizeof fl->out)
		filelist_flush(fl);
	memcpy(fl->out + fl->used, s, n);
	fl->used += n;
}

static enum ignore_visit
filelist_visit(void *arg, const struct ignore_entry *e)
{
	struct filelist *fl = arg;

	if (e->type != IGNORE_FILE && e->type != IGNORE_DIR && e->type != IGNORE_LINK)
		return IGNORE_CONTINUE;
	if (fl->hide != NULL && fl->hide(fl->hide_arg, e->path))
		return e->type == IGNORE_DIR ? IGNORE_SKIP : IGNORE_CONTINUE;
	filelist_put(fl, e->path, e->pathlen);
	if (e->type == IGNORE_DIR)
		filelist_put(fl, "/", 1);
	filelist_put(fl, "", 1);
	if (++fl->count >= fl->max || fl->failed)
		return IGNORE_STOP;
	return IGNORE_CONTINUE;
}

int
filelist_write(const char *root, int fd, size_t max)
{
	return filelist_write_hiding(root, fd, max, NULL, NULL);
}

int
filelist_write_hiding(const char *root, int fd, size_t max, bool (*hide)(void *, const char *),
    void *arg)
{
	struct filelist fl;
	struct buf err = BUF_INIT(1024);
	struct ignore *ig = ignore_new(root);
	int r;

	memset(&fl, 0, sizeof fl);
	fl.hide = hide;
	fl.hide_arg = arg;
	fl.fd = fd;
	fl.max = max;
	r = ignore_walk(ig, root, "", 0, filelist_visit, &fl, NULL, &err);
	filelist_flush(&fl);
	ignore_free(ig);
	buf_release(&err);
	return r == -1 || fl.failed ? -1 : 0;
}

void
filelist_main(void *root)
{
	_exit(filelist_write(root, 1, FILELIST_MAX) == 0 ? 0 : 1);
}
