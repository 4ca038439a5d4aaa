/*
 * ignore: which files of the workspace the search tools see.
 *
 * Three parts:
 *  - the .gitignore matcher: .git/info/exclude and the .gitignore of the
 *    root and of every directory below it (each applies to its own
 *    subtree, deeper files and later lines winning), with git's syntax:
 *    comments, "!" negation, trailing "/" for directories only, anchoring
 *    by a leading or inner "/", "*", "?", "[...]" and "**".  .git itself
 *    is always ignored.  Rule files are loaded lazily as a walk descends
 *    and dropped as it climbs back, so a match costs a scan of the rules
 *    of the current directory chain and nothing else;
 *  - the walk: a depth-first, name-sorted walk of a subtree that skips
 *    ignored entries, never follows symbolic links and allocates nothing
 *    per file;
 *  - glob patterns: ignore_fnmatch (the matcher the rules use) and
 *    ignore_braces ("{a,b}" expansion) for glob and grep.
 *
 * struct ignore owns its rules; ignore_free() frees them.  Paths given to
 * and returned by this module are relative to the root, "/"-separated,
 * without a leading "./"; "" is the root itself.
 */
#ifndef TANDEM_IGNORE_H
#define TANDEM_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct ignore;

/*
 * A matcher for the tree at root (an absolute path; copied).  Reads
 * root/.git/info/exclude and root/.gitignore now, the other .gitignore
 * files when a path below their directory is first matched.  Never fails:
 * unreadable rule files count as empty.
 */
struct ignore	*ignore_new(const char *root);
void		 ignore_free(struct ignore *);

/*
 * Is relpath ignored?  Checks relpath itself against the rules of its
 * parent directories; it does not check whether one of those parents is
 * ignored (a walk never descends into one).  Fastest when successive calls
 * come in walk order, since the loaded rule files are kept as a stack.
 */
bool		 ignore_match(struct ignore *, const char *relpath, bool is_dir);

enum ignore_type {
	IGNORE_FILE,		/* a regular file */
	IGNORE_DIR,
	IGNORE_LINK,		/* a symbolic link (never followed) */
	IGNORE_OTHER		/* fifo, socket, device */
};

struct ignore_entry {
	const char	*path;		/* relative to the root */
	size_t		 pathlen;
	const char	*name;		/* the last component of path */
	int		 dirfd;		/* the directory holding it, for openat() */
	enum ignore_type type;
	int		 depth;		/* 1 for the start directory's entries */
};

/* What a visit function returns. */
enum ignore_visit {
	IGNORE_CONTINUE,
	IGNORE_SKIP,		/* for a directory: do not descend into it */
	IGNORE_STOP		/* end the walk */
};

struct ignore_walk_stats {
	size_t	 hidden;	/* entries skipped as .git or git-ignored */
	size_t	 unreadable;	/* directories that could not be opened */
	size_t	 too_deep;	/* directories not entered past the depth limit */
};

/*
 * Walk the directory start (relative to the root, "" for the root; a
 * real path, as sandbox_resolve gives, since it is opened as it is) depth
 * first, entries sorted by name (bytewise), calling visit for each entry
 * that is not ignored (ig may be NULL: nothing is, except .git), then
 * descending into directories unless visit returned IGNORE_SKIP.  max_depth
 * (0: no limit) stops the descent below that depth; the walk also stops
 * descending at a fixed depth limit to bound open descriptors.  Returns 0,
 * or -1 with a sentence in err when start cannot be opened.  stats may be
 * NULL.
 */
int		 ignore_walk(struct ignore *ig, const char *root, const char *start,
		    int max_depth, enum ignore_visit (*visit)(void *arg,
		    const struct ignore_entry *), void *arg,
		    struct ignore_walk_stats *stats, struct buf *err);

/*
 * ignore_walk from a directory already open on fd (taken, and closed),
 * whose path relative to the root is start: the tools open it with
 * sandbox_walk, so the walk never looks the start up by name.  Entries
 * below are opened with openat() and O_NOFOLLOW from their parent's
 * descriptor.  Returns 0.
 */
int		 ignore_walk_fd(struct ignore *ig, int fd, const char *start,
		    int max_depth, enum ignore_visit (*visit)(void *arg,
		    const struct ignore_entry *), void *arg,
		    struct ignore_walk_stats *stats);

/*
 * Match path against a glob pattern, git's way: "*", "?" and "[...]"
 * (with "!" or "^" to negate, ranges and [:class:]) never match "/";
 * "**" as a whole path component matches any number of components
 * ("**" alone at the end: one or more); "\" escapes the next character.
 * "?" and classes match one UTF-8 character.  No "{}" here: see
 * ignore_braces.
 */
bool		 ignore_fnmatch(const char *pat, size_t patlen,
		    const char *path, size_t pathlen);

/*
 * Expand the "{a,b}" alternatives of pat (nested, with "\" escapes) into
 * at most max patterns.  On success returns the count and sets *out to a
 * NULL-terminated array that the caller frees with ignore_braces_free.
 * Returns -1 with a sentence in err for unbalanced braces or too many
 * alternatives.
 */
int		 ignore_braces(const char *pat, size_t max, char ***out,
		    struct buf *err);
void		 ignore_braces_free(char **list);

#endif
