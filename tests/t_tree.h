/*
 * t_tree.h: a temporary tree for the tools' unit tests.  The test sets
 * root (a real path); put() and puts_file() create files below it,
 * with their parent directories; t_tree_mkdir() and t_tree_link() make
 * directories and symbolic links below it; t_tree_mkdtemp() makes a new
 * temporary directory (a real path), t_tree_init() makes root one, and
 * t_tree_remove() removes a tree.  A test that includes tool.h first also
 * gets t_tree_run(), which runs a tool in root.
 */
#ifndef TANDEM_T_TREE_H
#define TANDEM_T_TREE_H

#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

/* Create root/rel (and its parents) holding n bytes of s. */
static void __attribute__((unused))
put(const char *rel, const char *s, size_t n)
{
	char p[PATH_MAX + 64], *slash;
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (slash = p + strlen(root) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "wb");
	if (f == NULL) {
		perror(p);
		exit(1);
	}
	fwrite(s, 1, n, f);
	fclose(f);
}

static void __attribute__((unused))
puts_file(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

/* root + the formatted rest (the caller frees); exits when out of memory. */
static char *t_tree_at(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));

static char *
t_tree_at(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(root);
	char *p;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0 || (p = malloc(n + (size_t)k + 1)) == NULL)
		exit(2);
	memcpy(p, root, n);
	va_start(ap, fmt);
	vsnprintf(p + n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Create the directory dir (an absolute path) and its missing parents with mode. */
static void __attribute__((unused))
t_tree_mkdirs(const char *dir, mode_t mode)
{
	char p[PATH_MAX + 64], *s;

	snprintf(p, sizeof p, "%s", dir);
	for (s = p + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, mode);
			*s = '/';
		}
	mkdir(p, mode);
}

/* Create root/rel, a directory (mode 0755). */
static void __attribute__((unused))
t_tree_mkdir(const char *rel)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	mkdir(p, 0755);
}

/* Create root/rel, a symbolic link to target. */
static void __attribute__((unused))
t_tree_link(const char *target, const char *rel)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	(void)!symlink(target, p);
}

/* A new directory from a mkdtemp template, as a real path (the caller frees); exits on failure. */
static __attribute__((unused)) char *
t_tree_mkdtemp(const char *tmpl)
{
	char t[PATH_MAX], *real;

	snprintf(t, sizeof t, "%s", tmpl);
	if (mkdtemp(t) == NULL || (real = realpath(t, NULL)) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	return real;
}

/* Make root a new directory $TMPDIR/name.XXXXXX (or in /tmp), as a real path; exits on failure. */
static void __attribute__((unused))
t_tree_init(const char *name)
{
	const char *tmp = getenv("TMPDIR");
	char t[PATH_MAX];

	snprintf(t, sizeof t, "%s/%s.XXXXXX", tmp != NULL ? tmp : "/tmp", name);
	if (mkdtemp(t) == NULL || realpath(t, root) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
}

static int __attribute__((unused))
t_tree_remove_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

/* Remove dir and everything below it (links are removed, not followed). */
static void __attribute__((unused))
t_tree_remove(const char *dir)
{
	if (dir[0] != '\0')
		nftw(dir, t_tree_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#ifdef TANDEM_TOOL_H
/*
 * Run tool t on the JSON input json in root, under policy (NULL: no deny
 * rules); out is released and filled with the result, whose text is
 * returned.  A malformed json ends the test program.
 */
static __attribute__((unused)) const char *
t_tree_run(const struct tool_def *t, const char *json, const struct sandbox_policy *policy,
    struct tool_out *out)
{
	struct tool_env env = { .root = root, .policy = policy };
	cJSON *input = cJSON_Parse(json);

	if (input == NULL) {
		printf("# bad test JSON: %s\n", json);
		exit(1);
	}
	tool_out_release(out);
	tool_out_init(out);
	t->run(&env, input, out);
	cJSON_Delete(input);
	return buf_cstr(&out->text);
}
#endif

#endif
