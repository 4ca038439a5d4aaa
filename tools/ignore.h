/*
 * ignore: which files of the workspace the search tools see.
 *
 * Three parts:
 *  - finding the rules as git does for the workspace root: the repository
 *    is the nearest directory at or above the root holding a .git (a
 *    directory, or a file whose "gitdir: " line names one, as in linked
 *    worktrees and submodules); its top may lie above the root (tandem
 *    started in a package of a monorepo).  The rules are, lowest first:
 *    the user's excludes file (core.excludesFile from /etc/gitconfig,
 *    $XDG_CONFIG_HOME/git/config or ~/.config/git/config, ~/.gitconfig
 *    and the repository's config, the last one set winning; else
 *    $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore), info/exclude
 *    of the common git directory (the main repository's for a linked
 *    worktree), then the .gitignore of the top and of every directory
 *    down to each path, deeper files and later lines winning.  Outside
 *    a repository only the .gitignore files from the root down count;
 *  - the .gitignore syntax: comments, "!" negation, trailing "/" for
 *    directories only, anchoring by a leading or inner "/", a UTF-8 BOM
 *    skipped, trailing blanks and a CR dropped, and the patterns matched
 *    by pathglob's PATHGLOB_GITIGNORE mode (bytes, as git).  .git itself
 *    is always ignored.  Rule files below the root are loaded lazily as a
 *    walk descends and dropped as it climbs back;
 *  - the walk: a depth-first, name-sorted walk of a subtree that skips
 *    ignored entries, never follows symbolic links and allocates nothing
 *    per file.
 *
 * struct ignore owns its rules; ignore_free() frees them.  Paths given to
 * and returned by this module are relative to the workspace root,
 * "/"-separated, without a leading "./"; "" is the root itself.
 */
#ifndef TANDEM_IGNORE_H
#define TANDEM_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct ignore;

/*
 * A matcher for the tree at root (an absolute real path; copied).  Finds
 * the repository and reads the excludes file, info/exclude and the
 * .gitignore files from the top down to root now, the others when a path
 * below their directory is first matched.  Uses HOME, XDG_CONFIG_HOME,
 * GIT_CONFIG_GLOBAL and GIT_CONFIG_NOSYSTEM.  Never fails: unreadable
 * rule files count as empty, a configuration file git would refuse is
 * passed over with a note.
 */
struct ignore	*ignore_new(const char *root);
void		 ignore_free(struct ignore *);

/* The repository's top (the root itself outside a repository). */
const char	*ignore_top(const struct ignore *);
/* The excludes file that is read (it may not exist), or NULL. */
const char	*ignore_excludes(const struct ignore *);
/* Lines about configuration that was passed over, or NULL. */
const char	*ignore_note(const struct ignore *);

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

/* The depth below which a walk does not descend (its too_deep). */
#define IGNORE_WALK_DEPTH	128

/*
 * Append the lines a search tool adds after its results: directories a
 * walk left out (deeper than the limit, unreadable: so an empty result
 * is not taken for "nothing there") and configuration that was passed
 * over.  ig and st may be NULL.
 */
void		 ignore_notes(struct buf *out, const struct ignore *ig,
		    const struct ignore_walk_stats *st);

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

#endif
