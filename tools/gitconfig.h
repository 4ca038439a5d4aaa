/*
 * gitconfig: a small reader of git's configuration files, enough to find
 * settings such as core.excludesFile the way git does.
 *
 * Understood: "[section]", "[section \"subsection\"]" (quoted, "\"
 * escapes, case kept) and the old "[section.subsection]" (lowercased);
 * section and key names in any case; "key = value" with double quotes,
 * the escapes \n \t \b \\ \", "\" at the end of a line to continue it,
 * "#" and ";" comments outside quotes, blanks around the value dropped and
 * inner runs kept; "key" alone (a boolean true: no value); a UTF-8 BOM at
 * the start; a key on the header's line ("[core] editor = vi").
 * Not followed: include.path and includeIf (their files are not read).
 * A file git would refuse (a bad line, an unknown escape, an open quote)
 * gives -1 and a sentence naming the line.
 */
#ifndef TANDEM_GITCONFIG_H
#define TANDEM_GITCONFIG_H

#include <stddef.h>

struct buf;

/*
 * The last value of key ("core.excludesFile", "remote.origin.url": the
 * section and the name match in any case, a subsection exactly) in the
 * configuration text[0..len).  Returns 1 with *value set (the caller
 * frees it), 0 when the key is absent or only given without a value, -1
 * with a sentence in err when the text is not valid configuration.
 */
int	 gitconfig_get(const char *text, size_t len, const char *key, char **value,
	    struct buf *err);

/*
 * gitconfig_get on the file at path: 0 when there is no such file; the
 * error sentence starts with the path.  At most 1 MB of it is read.
 */
int	 gitconfig_get_file(const char *path, const char *key, char **value,
	    struct buf *err);

/*
 * A path setting as git expands it: "~" or "~/..." starts at home.
 * Returns the path (the caller frees it), or NULL for "~user/..." (not
 * supported) or "~" without a home.
 */
char	*gitconfig_path(const char *value, const char *home);

#endif
