/*
 * t_tree.h: a temporary tree for the tools' unit tests.  The test sets
 * root (a real path); put() and puts_file() create files below it,
 * with their parent directories; t_tree_remove() removes a tree.
 */
#ifndef TANDEM_T_TREE_H
#define TANDEM_T_TREE_H

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

/* Create root/rel (and its parents) holding n bytes of s. */
static void
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

static void
puts_file(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
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

#endif
