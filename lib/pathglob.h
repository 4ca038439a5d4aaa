/*
 * pathglob: the one matcher of "/"-separated path patterns, for ignore
 * rules, permission rules and the glob and grep tools.
 *
 * Every mode shares the syntax: "*" and "?" never match "/"; "[...]"
 * is a bracket class ("!" or "^" negates, "]" first is itself, ranges,
 * "\" escapes, "[:alpha:]" and git's other ASCII classes; an unknown
 * class name makes the pattern match nothing) that never matches "/";
 * "\" makes the next character literal.  The modes differ where the users
 * of the matcher differ:
 *
 *  PATHGLOB_GITIGNORE  git's wildmatch with WM_PATHNAME, as .gitignore
 *	lines are matched (after the caller has removed "!", a trailing "/"
 *	and a leading "/").  Byte-wise: "?" and a class take one byte.  "**"
 *	is special only as a whole component: a leading "**" + "/" matches
 *	any leading directories, "/" + "**" + "/" zero or more directories,
 *	a final "/" + "**" everything inside; any other "**" is "*".  An
 *	unterminated "[" or a final "\" matches nothing.
 *  PATHGLOB_TOOL  the glob tool and grep's glob filter: as GITIGNORE, but
 *	"?" and a class take one UTF-8 character (ranges are over code
 *	points), an unterminated "[" is itself and a final "\" is itself.
 *	Case-sensitive.  "{a,b}" is expanded beforehand by pathglob_braces.
 *  PATHGLOB_PERM  permission patterns: byte-wise, and "**" crosses "/"
 *	wherever it stands ("a**b" matches "a/x/b"); "**" + "/" skips zero or
 *	more whole directories.
 *
 * Matching is bounded: wildmatch's two abort results cut the search, so
 * hostile patterns ("*a*a*a*a*b", "**" + "/" repeated) cost no more than
 * a polynomial of small degree.  Nothing here allocates except the
 * pathglob_match_or_parent/any_name helpers (transiently) and
 * pathglob_braces, whose result the caller frees.
 */
#ifndef TANDEM_PATHGLOB_H
#define TANDEM_PATHGLOB_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

enum pathglob_mode {
	PATHGLOB_GITIGNORE,
	PATHGLOB_TOOL,
	PATHGLOB_PERM
};

/* Does path (pathlen bytes, no NUL needed) match the pattern? */
bool	 pathglob_match(enum pathglob_mode mode, const char *pat, size_t patlen,
	    const char *path, size_t pathlen);

/* pathglob_match on NUL-terminated strings. */
bool	 pathglob_matchs(enum pathglob_mode mode, const char *pat, const char *path);

/*
 * Does the pattern match path or one of the directories it lies in
 * (both "src/" + "**" and "src" cover "src/a/b.c")?  A leading "/" in path
 * is kept: "/" itself is never tried.
 */
bool	 pathglob_match_or_parent(enum pathglob_mode mode, const char *pat,
	    const char *path);

/* Does the pattern match any one name along path ("*.key" and "a/b.key")? */
bool	 pathglob_match_any_name(enum pathglob_mode mode, const char *pat,
	    const char *path);

/* Does s hold a character that is special to the matcher ("*?[\")? */
bool	 pathglob_has_wild(const char *s, size_t n);

/*
 * Expand the "{a,b}" alternatives of pat (nested, with "\" escapes) into
 * at most max patterns.  On success returns the count and sets *out to a
 * NULL-terminated array that the caller frees with pathglob_braces_free.
 * Returns -1 with a sentence in err for unbalanced braces or too many
 * alternatives (then *out is NULL).
 */
int	 pathglob_braces(const char *pat, size_t max, char ***out, struct buf *err);
void	 pathglob_braces_free(char **list);

#endif
