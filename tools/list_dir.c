/*
 * list_dir: the entries of one directory, sorted, with .git and
 * git-ignored entries left out and counted.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "ignore.h"
#include "json.h"
#include "sandbox.h"
#include "tool.h"
#include "utf8.h"
#include "xalloc.h"

#define LIST_MAX	500		/* entries shown */
#define LIST_NOTE_ROOM	300

struct list_entry {
	char		*name;
	struct stat	 st;		/* lstat of the entry */
	bool		 stat_ok;
};

struct list_state {
	struct list_entry *v;
	size_t		 n;
	size_t		 cap;
	size_t		 hidden;
};

static int
list_cmp(const void *a, const void *b)
{
	return strcmp(((const struct list_entry *)a)->name,
	    ((const struct list_entry *)b)->name);
}

static void
list_size(struct buf *b, intmax_t size)
{
	static const char *const units[] = { "KB", "MB", "GB", "TB" };
	double v = (double)size;
	size_t u = 0;

	if (size < 1024) {
		buf_printf(b, "%jd B", size);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	buf_printf(b, "%.1f %s", v, units[u]);
}

/* Read the directory open on dfd (taking it) into ls, skipping the ignored. */
static int
list_read(struct list_state *ls, int dfd, const char *rel, struct ignore *ig)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	struct dirent *de;
	DIR *d = fdopendir(dfd);

	if (d == NULL) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		struct list_entry e;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		memset(&e, 0, sizeof e);
		e.stat_ok = fstatat(dirfd(d), de->d_name, &e.st, AT_SYMLINK_NOFOLLOW) == 0;
		buf_reset(&path);
		if (strcmp(rel, ".") != 0) {
			buf_puts(&path, rel);
			buf_putc(&path, '/');
		}
		buf_puts(&path, de->d_name);
		if (ignore_match(ig, buf_cstr(&path), e.stat_ok && S_ISDIR(e.st.st_mode))) {
			ls->hidden++;
			continue;
		}
		if (ls->n == ls->cap) {
			ls->cap = ls->cap ? ls->cap * 2 : 64;
			ls->v = xreallocarray(ls->v, ls->cap, sizeof *ls->v);
		}
		e.name = xstrdup(de->d_name);
		ls->v[ls->n++] = e;
	}
	closedir(d);
	buf_release(&path);
	if (ls->n > 1)
		qsort(ls->v, ls->n, sizeof *ls->v, list_cmp);
	return 0;
}

/* One entry as a line: "dir/", "file  12.0 KB", "link -> target". */
static void
list_format(struct buf *b, const struct list_entry *e, const char *abs)
{
	utf8_sanitize(b, e->name, strlen(e->name));
	if (!e->stat_ok) {
		buf_puts(b, "  (cannot stat)");
	} else if (S_ISDIR(e->st.st_mode)) {
		buf_putc(b, '/');
	} else if (S_ISREG(e->st.st_mode)) {
		buf_puts(b, "  ");
		list_size(b, (intmax_t)e->st.st_size);
	} else if (S_ISLNK(e->st.st_mode)) {
		char target[4096];
		struct buf lp = BUF_INIT(BUF_NOLIMIT);
		ssize_t n;

		buf_printf(&lp, "%s/%s", abs, e->name);
		n = readlink(buf_cstr(&lp), target, sizeof target - 1);
		buf_release(&lp);
		buf_puts(b, " -> ");
		if (n >= 0)
			utf8_sanitize(b, target, (size_t)n);
		else
			buf_puts(b, "(unreadable link)");
	} else if (S_ISFIFO(e->st.st_mode)) {
		buf_puts(b, "  (fifo)");
	} else if (S_ISSOCK(e->st.st_mode)) {
		buf_puts(b, "  (socket)");
	} else {
		buf_puts(b, "  (device)");
	}
	buf_putc(b, '\n');
}

static void
list_print(struct tool_out *out, const struct list_state *ls, const char *abs)
{
	struct buf line = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	buf_reset(&out->text);
	for (i = 0; i < ls->n && i < LIST_MAX; i++) {
		buf_reset(&line);
		list_format(&line, &ls->v[i], abs);
		if (out->text.len + line.len > TOOL_READ_CAP - LIST_NOTE_ROOM)
			break;
		buf_append(&out->text, line.data, line.len);
	}
	buf_release(&line);
	if (ls->n == 0)
		buf_puts(&out->text, "(empty directory)\n");
	if (i < ls->n)
		buf_printf(&out->text, "[%zu of %zu entries shown; use glob with a pattern"
		    " to find the others]\n", i, ls->n);
	if (ls->hidden > 0)
		buf_printf(&out->text, "[%zu entr%s hidden: .git and git-ignored]\n",
		    ls->hidden, ls->hidden == 1 ? "y" : "ies");
}

/* Paths in messages may hold any bytes, but the model must get UTF-8. */

static void
list_dir_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct list_state ls;
	struct buf err = BUF_INIT(4096);
	const char *path = json_str(input, "path", ".");
	char *abs = NULL, *rel = NULL;
	struct ignore *ig = NULL;
	struct stat st;
	size_t i;
	int fd;

	memset(&ls, 0, sizeof ls);
	if (sandbox_resolve(env->root, path, true, &abs, &rel, &err) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd == -1 || fstat(fd, &st) == -1) {
		tool_out_error(out, "cannot open %s: %s", rel, strerror(errno));
		if (fd != -1)
			close(fd);
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		tool_out_error(out, "%s is a file, not a directory; use read_file to read it", rel);
		goto out;
	}
	ig = ignore_new(env->root);
	if (list_read(&ls, fd, rel, ig) == -1) {
		tool_out_error(out, "cannot list %s: %s", rel, strerror(errno));
		goto out;
	}
	list_print(out, &ls, abs);
	ignore_notes(&out->text, ig, NULL);
out:
	for (i = 0; i < ls.n; i++)
		free(ls.v[i].name);
	free(ls.v);
	ignore_free(ig);
	buf_release(&err);
	free(abs);
	free(rel);
	tool_out_sanitize(out);
}

const struct tool_def tool_list_dir = {
	.name = "list_dir",
	.description =
	    "List one directory of the workspace (default: the root), sorted by "
	    "name, one entry a line: directories end with \"/\", files show their "
	    "size, symbolic links show \"-> target\". .git and git-ignored entries "
	    "are left out (the last line says how many). Not recursive: use glob "
	    "(e.g. \"src/**/*.c\") to find files deeper down.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"path\":{\"type\":\"string\",\"description\":"
	    "\"The directory, relative to the workspace root (default: the root).\"}},"
	    "\"additionalProperties\":false}",
	.cls = TOOL_READ_ONLY,
	.run = list_dir_run,
	.preview = NULL,
};
