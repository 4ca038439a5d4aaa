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
	char		*link;		/* a link's target, read while the directory is open */
	struct stat	 st;		/* lstat of the entry */
	bool		 stat_ok;
};

struct list_state {
	struct list_entry *v;
	size_t		 n;
	size_t		 cap;
	size_t		 hidden;
	size_t		 denied;	/* left out by the deny rules */
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

/* The target of the link name in d, or NULL. */
static char *
list_link(DIR *d, const char *name)
{
	char target[4096];
	ssize_t n = readlinkat(dirfd(d), name, target, sizeof target - 1);

	if (n < 0)
		return NULL;
	return xstrndup(target, (size_t)n);
}

/*
 * Read the directory open on dfd (taking it) into ls, skipping the
 * ignored and what env's deny rules cover.
 */
static int
list_read(struct list_state *ls, int dfd, const char *rel, struct ignore *ig,
    const struct tool_env *env)
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
		if (ig != NULL ? ignore_match(ig, buf_cstr(&path), e.stat_ok && S_ISDIR(e.st.st_mode)) :
		    strcmp(de->d_name, ".git") == 0) {
			ls->hidden++;
			continue;
		}
		if (tool_denied(env, SANDBOX_READ, buf_cstr(&path))) {
			ls->denied++;
			continue;
		}
		if (ls->n == ls->cap) {
			ls->cap = ls->cap ? ls->cap * 2 : 64;
			ls->v = xreallocarray(ls->v, ls->cap, sizeof *ls->v);
		}
		e.name = xstrdup(de->d_name);
		if (e.stat_ok && S_ISLNK(e.st.st_mode))
			e.link = list_link(d, de->d_name);
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
list_format(struct buf *b, const struct list_entry *e)
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
		buf_puts(b, " -> ");
		if (e->link != NULL)
			utf8_sanitize(b, e->link, strlen(e->link));
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
list_print(struct tool_out *out, const struct list_state *ls)
{
	struct buf line = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	buf_reset(&out->text);
	for (i = 0; i < ls->n && i < LIST_MAX; i++) {
		buf_reset(&line);
		list_format(&line, &ls->v[i]);
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
	tool_note_denied(&out->text, ls->denied);
}

/* Paths in messages may hold any bytes, but the model must get UTF-8. */

static void
list_dir_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct list_state ls;
	struct buf err = BUF_INIT(4096);
	const char *path = json_str(input, "path", ".");
	struct sandbox sb;
	struct sandbox_at at;
	struct ignore *ig = NULL;
	size_t i;
	int fd;

	memset(&ls, 0, sizeof ls);
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, &err) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	if (!S_ISDIR(at.st.st_mode)) {
		tool_out_error(out, "%s is a file, not a directory; use read_file to read it",
		    at.rel);
		goto out;
	}
	fd = sandbox_open_at(&at, O_RDONLY | O_DIRECTORY, &err);
	if (fd == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	/* the rules of the workspace's own .gitignore files; an extra root has none */
	ig = at.rel[0] == '/' ? NULL : ignore_new(env->root);
	if (list_read(&ls, fd, at.rel, ig, env) == -1) {
		tool_out_error(out, "cannot list %s: %s", at.rel, strerror(errno));
		goto out;
	}
	list_print(out, &ls);
	ignore_notes(&out->text, ig, NULL);
out:
	for (i = 0; i < ls.n; i++) {
		free(ls.v[i].name);
		free(ls.v[i].link);
	}
	free(ls.v);
	ignore_free(ig);
	buf_release(&err);
	sandbox_at_release(&at);
	tool_out_sanitize(out);
}

const struct tool_def tool_list_dir = {
	.name = "list_dir",
	.description =
	    "List one directory (default: the workspace root) by name: directories "
	    "end in \"/\", files show their size, symlinks \"-> target\". Leaves out "
	    ".git and git-ignored entries (the last line counts them). Not "
	    "recursive: glob (\"src/**/*.c\") looks deeper.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	    "\"description\":\"The directory (default: the root)\"}},"
	    "\"additionalProperties\":false}",
	.cls = TOOL_READ_ONLY,
	.run = list_dir_run,
	.preview = NULL,
};
