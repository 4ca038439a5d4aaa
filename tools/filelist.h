/*
 * filelist: the workspace's file names, for the @path completion index.
 *
 * filelist_write walks root with the ignore rules (tools/ignore.c: .git
 * and git-ignored entries left out, links not followed) and writes each
 * file's and directory's path relative to root to fd, a NUL after each
 * (directories with a trailing '/'), at most max of them.  It is meant to
 * run in a child process (lib/proc.c's main), so the walk never holds up
 * tandem's loop; filelist_main is that child's body.
 */
#ifndef TANDEM_FILELIST_H
#define TANDEM_FILELIST_H

#include <stdbool.h>
#include <stddef.h>

#define FILELIST_MAX	1000000

/* 0, or -1 when root cannot be walked or fd cannot be written. */
int	 filelist_write(const char *root, int fd, size_t max);
/*
 * The same, leaving out each path (relative to root) for which hide (may be
 * NULL) says true, and for a directory what is below it too.
 */
int	 filelist_write_hiding(const char *root, int fd, size_t max,
	    bool (*hide)(void *arg, const char *path), void *arg);
/* A child's body: filelist_write(root, 1, FILELIST_MAX), then _exit. */
void	 filelist_main(void *root);

#endif
