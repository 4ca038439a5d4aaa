/*
 * sandbox: confine the paths a tool is given to the workspace (and to
 * the extra roots the user added).  This is path confinement, not an
 * operating-system sandbox: it decides which files the file tools open.
 *
 * Every path is resolved beneath a descriptor of its root, one component
 * at a time, so that what is checked is what is used: openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS where the
 * kernel has it, else openat() with O_NOFOLLOW on each single name.  The
 * walk follows symbolic links itself, by reading them: a link whose
 * target stays inside a root is followed and the path actually reached is
 * tracked; one that leads outside ("..", an absolute target, a magic link
 * such as /proc/self/root) is refused.  The result is a directory
 * descriptor and one name in it, which the tools open, create, rename and
 * list through (openat, renameat, fdopendir): never a second lookup of
 * the whole path by name.
 *
 * The reached path is then checked against the policy (the path deny
 * rules, from the agent): swapping docs/ for a link to secret/ between the
 * agent's check and the tool's use stays inside the workspace, so the
 * tool must check where it really arrived.
 *
 * Paths are relative to the workspace root ("." for the root itself), or
 * absolute for files in an extra root.  Ownership: every char * in a
 * result is the caller's (released by sandbox_at_release).
 */
#ifndef TANDEM_SANDBOX_H
#define TANDEM_SANDBOX_H

#include <stdbool.h>
#include <sys/stat.h>

struct buf;

enum sandbox_access { SANDBOX_READ, SANDBOX_EDIT };

/* The agent's answer to "may a tool touch this path?" */
struct sandbox_policy {
	/* true: path (as above) is denied for access. */
	bool	(*denied)(void *arg, enum sandbox_access, const char *path);
	void	*arg;
};

struct sandbox {
	const char		*root;		/* the workspace root, a real path */
	const char *const	*extra;		/* more roots (real paths), NULL-terminated; may be NULL */
	const struct sandbox_policy *policy;	/* may be NULL: nothing is denied */
};

/* What a walk reached: the directory holding the last name, and the name. */
struct sandbox_at {
	int		 dirfd;		/* owned; -1 when a parent directory is missing */
	char		*name;		/* the last component; "." for a root itself */
	char		*rel;		/* the path reached (relative, or absolute in an extra root) */
	char		*abs;		/* the same as an absolute path */
	bool		 exists;
	struct stat	 st;		/* lstat of name, when it exists (never a link) */
};

/* sandbox_walk flags */
#define SANDBOX_MUST_EXIST	0x1	/* a missing file is an error */
#define SANDBOX_PARENTS		0x2	/* create missing directories (0777 minus the umask) */

/*
 * Walk path beneath the roots, as described above.  0 with *at filled, or
 * -1 with one sentence for the model in err (*at is then released).  A
 * missing file is 0 with at->exists false (unless SANDBOX_MUST_EXIST);
 * when its parent is missing too, at->dirfd is -1 and the missing part
 * may not hold "..".  Denied by the policy is an error too.
 */
int	sandbox_walk(const struct sandbox *, const char *path, enum sandbox_access,
	    int flags, struct sandbox_at *at, struct buf *err);
void	sandbox_at_release(struct sandbox_at *);

/*
 * Open what at names with oflags (O_NOFOLLOW, O_NONBLOCK, O_NOCTTY and
 * O_CLOEXEC are added) and check it is still the file the walk saw: an fd,
 * or -1 with a sentence in err.  Refuses FIFOs, sockets and devices
 * without opening them.
 */
int	sandbox_open_at(const struct sandbox_at *, int oflags, struct buf *err);

/*
 * Resolve path inside root (no extra roots, no policy).  On success
 * returns 0 and sets *abs (the absolute path reached; for a missing file,
 * the reached parent plus the name) and, if rel is not NULL, *rel (the
 * path relative to root, "." for the root itself); both are the caller's
 * to free.  On failure returns -1 and puts one sentence for the model in
 * err.  The answer may be stale by the time the path is used by name:
 * tools use sandbox_walk and its descriptors instead.
 */
int	sandbox_resolve(const char *root, const char *path, bool must_exist,
	    char **abs, char **rel, struct buf *err);

/* Is abs (an absolute path) the root or below it (by name)? */
bool	sandbox_inside(const char *root, const char *abs);

/*
 * Tests: false makes the walk use openat() with O_NOFOLLOW even where
 * openat2() exists; true (the default) uses openat2() when it works.
 * Returns whether openat2() is in use afterwards.
 */
bool	sandbox_use_openat2(bool);

#endif
