/*
 * sandbox: confine the paths a tool is given to the workspace.
 *
 * A path is taken relative to the root (an absolute path is taken as is)
 * and checked on its real path: "..", absolute paths and symbolic links
 * that lead outside the root are refused.  For a path that does not exist
 * yet, the nearest existing ancestor is resolved and the rest must not
 * climb out with "..".
 */
#ifndef TANDEM_SANDBOX_H
#define TANDEM_SANDBOX_H

#include <stdbool.h>

struct buf;

/*
 * Resolve path inside root.  On success returns 0 and sets *abs (the real
 * absolute path; for a missing file, the real parent plus the name) and,
 * if rel is not NULL, *rel (the path relative to root, "." for the root
 * itself); both are the caller's to free.  On failure returns -1 and puts
 * one sentence for the model in err.
 */
int	sandbox_resolve(const char *root, const char *path, bool must_exist,
	    char **abs, char **rel, struct buf *err);

/* Is abs (a real absolute path) the root or below it? */
bool	sandbox_inside(const char *root, const char *abs);

#endif
