/* Workspace confinement of tool paths: see sandbox.h. */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "sandbox.h"
#include "xalloc.h"

bool
sandbox_inside(const char *root, const char *abs)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return abs[0] == '/';
	return strncmp(root, abs, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

static char *
sandbox_join(const char *a, const char *b)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);

	buf_puts(&p, a);
	if (p.len == 0 || p.data[p.len - 1] != '/')
		buf_putc(&p, '/');
	buf_puts(&p, b);
	return buf_detach(&p, NULL);
}

/* The real path of the longest existing prefix of path, plus the missing rest. */
static char *
sandbox_realish(const char *path, struct buf *err)
{
	char *copy = xstrdup(path), *real, *cut, *out;
	size_t n = strlen(copy);

	for (;;) {
		real = realpath(copy, NULL);
		if (real != NULL)
			break;
		if (errno != ENOENT && errno != ENOTDIR) {
			buf_printf(err, "cannot resolve %s: %s", path, strerror(errno));
			free(copy);
			return NULL;
		}
		cut = strrchr(copy, '/');
		if (cut == NULL || cut == copy) {
			free(copy);
			return xstrdup(path);
		}
		*cut = '\0';
	}
	if (strlen(copy) == n) {
		free(copy);
		return real;
	}
	/*
	 * The missing tail must not climb back out; its empty and "." names
	 * go, so "a//b" and "a/./b" name what "a/b" names.
	 */
	{
		struct buf tail = BUF_INIT(BUF_NOLIMIT);
		const char *p = path + strlen(copy) + 1;

		while (*p != '\0') {
			size_t seg = strcspn(p, "/");

			if ((seg == 2 && p[0] == '.' && p[1] == '.')) {
				buf_printf(err, "path %s uses \"..\" below a directory that does not exist", path);
				buf_release(&tail);
				free(real);
				free(copy);
				return NULL;
			}
			if (seg > 0 && !(seg == 1 && p[0] == '.')) {
				if (tail.len > 0)
					buf_putc(&tail, '/');
				buf_append(&tail, p, seg);
			}
			p += seg;
			while (*p == '/')
				p++;
		}
		out = tail.len > 0 ? sandbox_join(real, buf_cstr(&tail)) : xstrdup(real);
		buf_release(&tail);
	}
	free(real);
	free(copy);
	return out;
}

int
sandbox_resolve(const char *root, const char *path, bool must_exist,
    char **abs, char **rel, struct buf *err)
{
	char *joined, *real;
	struct stat st;

	*abs = NULL;
	if (rel != NULL)
		*rel = NULL;
	if (path == NULL || path[0] == '\0')
		path = ".";
	if (strlen(path) >= PATH_MAX) {
		buf_printf(err, "path is too long (%zu bytes)", strlen(path));
		return -1;
	}
	joined = path[0] == '/' ? xstrdup(path) : sandbox_join(root, path);
	real = sandbox_realish(joined, err);
	free(joined);
	if (real == NULL)
		return -1;
	if (!sandbox_inside(root, real)) {
		buf_printf(err, "path %s is outside the workspace %s; use a path inside it", path, root);
		free(real);
		return -1;
	}
	if (must_exist && lstat(real, &st) == -1) {
		buf_printf(err, "%s does not exist", path);
		free(real);
		return -1;
	}
	if (rel != NULL) {
		size_t n = strlen(root);
		const char *r = real + n;

		if (n == 1)
			r = real + 1;
		while (*r == '/')
			r++;
		*rel = xstrdup(*r ? r : ".");
	}
	*abs = real;
	return 0;
}
