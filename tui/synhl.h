/*
 * synhl: syntax highlighting from nano's syntax files.
 *
 * tandem writes no lexers of its own: it reads the syntax definitions the
 * nano package maintains (the .nanorc files of /usr/share/nano on Debian) at run
 * time, and the user's own: the files ~/.nanorc and ~/.config/nano/nanorc
 * name with `include`, and the syntaxes they define.  The user's come
 * first, so a syntax of the same name there wins.  $TANDEM_SYNTAX_DIR
 * replaces the system directory (an empty value: none).
 *
 * Of a nanorc this reads `syntax`, `header`, `color`, `icolor` (single
 * line and start=/end= regions), `include` and `extendsyntax`; `magic`,
 * `comment`, `linter`, `formatter` and the rest are ignored.  The regexes
 * are POSIX extended ones with GNU's \< \> \b, compiled by regcomp as nano
 * compiles them.  nano's color names become a few theme roles (one per
 * hue: syntax-red for red, brightred, crimson ...), so every theme
 * chooses the colors and the mono theme shows none; backgrounds and
 * nano's bold/italic are not used.
 *
 * Loading is lazy (the first lookup reads the files; a syntax's color
 * regexes are compiled on its first use), so a frame that shows no code
 * pays nothing.  The set is the process's: renderers (mdview, udiff) are
 * pure functions of their text and look syntaxes up here.  Highlighted
 * lines are cached, keyed by the syntax, the line's text and the state of
 * the multi-line regions at its start.  A line is highlighted up to
 * SYNHL_LINE_MAX bytes and SYNHL_MATCH_MAX matches; the rest keeps the
 * caller's style.
 */
#ifndef TANDEM_TUI_SYNHL_H
#define TANDEM_TUI_SYNHL_H

#include <stddef.h>
#include <stdint.h>

#define SYNHL_LINE_MAX	2048
#define SYNHL_MATCH_MAX	512

struct synhl_syntax;

/* A styled stretch of a line from byte off on; role SYNHL_BASE: the caller's. */
struct synhl_run {
	uint32_t	 off;
	uint8_t		 role;
};

#define SYNHL_BASE	255

/*
 * Where syntaxes are read from: home ($HOME, for ~/.nanorc and
 * ~/.config/nano/nanorc; NULL: none) and the system directory (NULL:
 * none).  Forgets what was loaded; the next lookup reads them.  Without
 * a call, $HOME and $TANDEM_SYNTAX_DIR or /usr/share/nano are used.
 */
void	 synhl_configure(const char *home, const char *sysdir);
/* Free everything loaded (at exit, and for leak checks). */
void	 synhl_shutdown(void);

/* The syntax for a Markdown code block's language tag ("c", "py", "bash"), or NULL. */
const struct synhl_syntax *synhl_for_lang(const char *tag, size_t n);
/* The syntax for a file name, else by its first line (`header`), or NULL. */
const struct synhl_syntax *synhl_for_file(const char *name, const char *first, size_t firstn);
/* The syntax's name ("c"). */
const char *synhl_name(const struct synhl_syntax *);

/*
 * Highlight s[0..n): the runs (the first at 0, offsets ascending and on
 * character boundaries) are returned in *runs, valid until the next call;
 * their number is the result.  *state is the multi-line regions open at
 * the line's start (0 at a file's or block's start) and becomes those
 * open at its end.
 */
size_t	 synhl_line(const struct synhl_syntax *, const char *s, size_t n, uint64_t *state,
	    const struct synhl_run **runs);

#endif
