/*
 * theme: the UI roles and the theme files that color them.
 *
 * Every piece of the screen is drawn in a role (text, heading, diff-add,
 * tool-running, ...).  A theme maps each role to a foreground, a
 * background and attributes, with a 256-color value, an 8-color fallback
 * and extra attributes for monochrome terminals.  The role table (name,
 * built-in style, meaning) is data: theme.c holds it once.
 *
 * A theme file is text, one "role = fg bg attrs" a line (see
 * themes/dark.theme for the full description).  Parsing is pure; applying
 * a theme to ncurses is tui/paint.c's job.  Nothing here allocates except
 * theme_list(), whose result the caller frees with theme_list_free().
 */
#ifndef TANDEM_TUI_THEME_H
#define TANDEM_TUI_THEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum role {
	ROLE_TEXT,
	ROLE_DIM,
	ROLE_ACCENT,
	ROLE_USER,
	ROLE_HEADING,
	ROLE_CODE,
	ROLE_CODE_FRAME,
	ROLE_LINK,
	ROLE_QUOTE,
	ROLE_THINKING,
	ROLE_DIFF_ADD,
	ROLE_DIFF_DEL,
	ROLE_DIFF_CONTEXT,
	ROLE_DIFF_HUNK,
	ROLE_DIFF_SPAN_ADD,
	ROLE_DIFF_SPAN_DEL,
	ROLE_DIFF_FILE,
	ROLE_LINENO,
	ROLE_TOOL_QUEUED,
	ROLE_TOOL_WAITING,
	ROLE_TOOL_RUNNING,
	ROLE_TOOL_DONE,
	ROLE_TOOL_FAILED,
	ROLE_TOOL_DENIED,
	ROLE_TOOL_OUTPUT,
	ROLE_STATUS,
	ROLE_STATUS_MODEL,
	ROLE_STATUS_CONTEXT,
	ROLE_STATUS_TOKENS,
	ROLE_STATUS_COST,
	ROLE_STATUS_MODE,
	ROLE_STATUS_STAGE,
	ROLE_STATUS_BUSY,
	ROLE_APPROVAL,
	ROLE_APPROVAL_KEY,
	ROLE_ERROR,
	ROLE_WARNING,
	ROLE_SELECTION,
	ROLE_MATCH,
	ROLE_BORDER,
	ROLE_TITLE,
	ROLE_TITLE_FOCUS,
	ROLE_INPUT,
	/* What nano's syntax files call each hue (synhl.c maps the names). */
	ROLE_SYNTAX_RED,
	ROLE_SYNTAX_GREEN,
	ROLE_SYNTAX_YELLOW,
	ROLE_SYNTAX_BLUE,
	ROLE_SYNTAX_MAGENTA,
	ROLE_SYNTAX_CYAN,
	ROLE_COUNT
};

/* Attribute bits, shared with the style runs of tui/sline.h. */
enum {
	TA_BOLD		= 1 << 0,
	TA_DIM		= 1 << 1,
	TA_ITALIC	= 1 << 2,
	TA_UNDERLINE	= 1 << 3,
	TA_REVERSE	= 1 << 4,
	TA_STANDOUT	= 1 << 5,
	TA_STRIKE	= 1 << 6	/* drawn dim: curses has no strike-through */
};

/* A color: -1 is the terminal's default. */
struct theme_color {
	int16_t	 c256;		/* 0-255 */
	int16_t	 c8;		/* 0-7: the fallback on an 8-color terminal */
};

struct theme_style {
	struct theme_color fg, bg;
	uint8_t	 attrs;		/* in every mode */
	uint8_t	 mono;		/* added when there is no color */
};

/*
 * The glyphs the transcript marks tool calls with: one column each, UTF-8.
 * The built-in set uses characters DejaVu Sans Mono and the Linux
 * console's fonts have (U+25CF, U+2514); the ASCII set replaces them
 * where the locale is not UTF-8 or TERM is linux.  A theme file may set
 * them with "glyph-call = X" and "glyph-result = X".
 */
enum theme_glyph {
	GLYPH_CALL,		/* before a tool call's name */
	GLYPH_RESULT,		/* before its result, indented under it */
	GLYPH_COUNT
};

struct theme_glyphs {
	char	 g[GLYPH_COUNT][16];
};

struct theme {
	char			name[64];
	struct theme_style	role[ROLE_COUNT];
	struct theme_glyphs	glyphs;
	/*
	 * The terminal's own colors the theme is made for ("terminal = FG BG"
	 * in its file): what "default" stands for when its contrast is
	 * measured.  tandem never paints them.
	 */
	struct theme_color	term_fg, term_bg;
};

/* The color depth a theme is resolved for. */
enum theme_depth { THEME_MONO = 0, THEME_8 = 8, THEME_256 = 256 };

/* The role's name in theme files ("diff-span-add"), or NULL. */
const char	*theme_role_name(int role);
/* What the role colors, in a few words, or NULL. */
const char	*theme_role_what(int role);
/* The role for a name, or -1. */
int		 theme_role_lookup(const char *name, size_t n);

/* The built-in theme (the same as themes/dark.theme). */
void		 theme_default(struct theme *);

/*
 * Parse a theme file's text over the built-in theme.  fname names the
 * file in errors.  0, or -1 with "fname:LINE: what is wrong" in err; *out
 * is then the built-in theme.
 */
int		 theme_parse(const char *text, size_t n, const char *fname,
		    struct theme *out, char *err, size_t err_size);

/*
 * Load dir/NAME.theme.  name must be a plain name (letters, digits, '-',
 * '_').  0, or -1 with a sentence in err and *out the built-in theme.
 */
int		 theme_load(const char *dir, const char *name, struct theme *out,
		    char *err, size_t err_size);

/* The theme names in dir, sorted; *names is the caller's (theme_list_free). */
size_t		 theme_list(const char *dir, char ***names);
void		 theme_list_free(char **names, size_t n);

/*
 * What a style becomes at depth: fg and bg (-1 default) and TA_* attrs.
 * In THEME_MONO both colors are -1 and the mono attributes are added.
 */
void		 theme_resolve(const struct theme_style *, enum theme_depth,
		    int *fg, int *bg, unsigned *attrs);

/* The built-in glyph set, or the ASCII one. */
void		 theme_glyphs_default(struct theme_glyphs *, bool ascii);
/* The glyph's name in theme files ("glyph-call"), or NULL. */
const char	*theme_glyph_name(int glyph);
/*
 * Whether a terminal needs the ASCII glyphs: codeset is the user's locale's
 * (nl_langinfo(CODESET) before tandem picks a UTF-8 one), term is $TERM;
 * either may be NULL.
 */
bool		 theme_glyphs_ascii_wanted(const char *codeset, const char *term);

/*
 * The WCAG contrast ratio (1 to 21) of the role's foreground on its
 * background: 256-palette colors as xterm defines them (the 16 ANSI ones
 * with xterm's default palette), "default" as the theme's terminal colors.
 */
double		 theme_contrast(const struct theme *, int role);

/* The nearest of the 8 basic colors to a 256-color index. */
int		 theme_nearest8(int c256);

#endif
