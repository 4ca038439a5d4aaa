/*
 * t_tree.h: a temporary tree for the tools' unit tests.  The test sets
 * root (a real path); put() and puts_file() create files below it,
 * with their parent directories.
 */
#ifndef TANDEM_T_TREE_H
#define TANDEM_T_TREE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

#endif
