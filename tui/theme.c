/* Theme roles and theme files: see theme.h. */
#include "autoconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "theme.h"
#include "utf8.h"
#include "xalloc.h"

#define THEME_FILE_MAX	(64 * 1024)

/*
 * The roles: name, built-in style (the dark theme, in the file syntax),
 * and what the role colors.  The order is enum role's.
 */
static const struct theme_role {
	const char	*name;
	const char	*spec;
	const char	*what;
} theme_roles[ROLE_COUNT] = {
	[ROLE_TEXT]		= { "text", "default default", "ordinary text" },
	[ROLE_DIM]		= { "dim", "244/white default", "secondary text" },
	[ROLE_ACCENT]		= { "accent", "75/cyan default bold", "marks and highlights" },
	[ROLE_USER]		= { "user", "81/cyan default bold", "the user's prompts" },
	[ROLE_HEADING]		= { "heading", "117/cyan default bold", "Markdown headings" },
	[ROLE_CODE]		= { "code", "180/yellow default", "inline code and code blocks" },
	[ROLE_CODE_FRAME]	= { "code-frame", "241/blue default", "the frame around code blocks" },
	[ROLE_LINK]		= { "link", "75/blue default underline", "links" },
	[ROLE_QUOTE]		= { "quote", "250/white default italic", "block quotes" },
	[ROLE_THINKING]		= { "thinking", "243/white default italic", "the model's thinking" },
	[ROLE_DIFF_ADD]		= { "diff-add", "114/green default", "added lines" },
	[ROLE_DIFF_DEL]		= { "diff-del", "174/red default", "removed lines" },
	[ROLE_DIFF_CONTEXT]	= { "diff-context", "default default", "unchanged lines" },
	[ROLE_DIFF_HUNK]	= { "diff-hunk", "73/cyan default", "hunk headers" },
	[ROLE_DIFF_SPAN_ADD]	= { "diff-span-add", "16/black 114/green bold mono:reverse", "the changed part of an added line" },
	[ROLE_DIFF_SPAN_DEL]	= { "diff-span-del", "16/black 174/red bold mono:reverse", "the changed part of a removed line" },
	[ROLE_DIFF_FILE]	= { "diff-file", "default default bold", "file names in diffs" },
	[ROLE_LINENO]		= { "lineno", "243/white default", "line numbers" },
	[ROLE_TOOL_QUEUED]	= { "tool-queued", "245/white default", "a tool call not started yet" },
	[ROLE_TOOL_WAITING]	= { "tool-waiting", "221/yellow default bold", "a tool call waiting for approval" },
	[ROLE_TOOL_RUNNING]	= { "tool-running", "75/cyan default", "a running tool" },
	[ROLE_TOOL_DONE]	= { "tool-done", "114/green default", "a finished tool" },
	[ROLE_TOOL_FAILED]	= { "tool-failed", "203/red default bold", "a failed tool" },
	[ROLE_TOOL_DENIED]	= { "tool-denied", "208/magenta default", "a denied tool" },
	[ROLE_TOOL_OUTPUT]	= { "tool-output", "246/white default", "live output of a running command" },
	[ROLE_STATUS]		= { "status", "252/white 236/black", "the status bar" },
	[ROLE_STATUS_MODEL]	= { "status-model", "117/cyan 236/black bold", "the model name" },
	[ROLE_STATUS_CONTEXT]	= { "status-context", "252/white 236/black", "context used" },
	[ROLE_STATUS_TOKENS]	= { "status-tokens", "250/white 236/black", "token counts" },
	[ROLE_STATUS_COST]	= { "status-cost", "150/green 236/black", "cost" },
	[ROLE_STATUS_MODE]	= { "status-mode", "221/yellow 236/black bold", "the permission mode" },
	[ROLE_STATUS_STAGE]	= { "status-stage", "180/yellow 236/black", "the compaction stage" },
	[ROLE_STATUS_BUSY]	= { "status-busy", "75/cyan 236/black bold", "a turn or retry in progress" },
	[ROLE_APPROVAL]		= { "approval", "221/yellow default bold", "the approval prompt" },
	[ROLE_APPROVAL_KEY]	= { "approval-key", "16/black 221/yellow bold mono:reverse", "the keys of the approval prompt" },
	[ROLE_ERROR]		= { "error", "203/red default bold", "errors" },
	[ROLE_WARNING]		= { "warning", "221/yellow default bold", "warnings (cache breaks, retries)" },
	[ROLE_SELECTION]	= { "selection", "default 238/blue mono:reverse", "the selected item" },
	[ROLE_MATCH]		= { "match", "16/black 220/yellow mono:reverse,bold", "search matches" },
	[ROLE_BORDER]		= { "border", "241/blue default", "pane borders" },
	[ROLE_TITLE]		= { "title", "245/white default", "pane titles" },
	[ROLE_TITLE_FOCUS]	= { "title-focus", "75/cyan default bold mono:underline", "the focused pane's title" },
	[ROLE_INPUT]		= { "input", "default default", "the input editor" },
	[ROLE_SYNTAX_RED]	= { "syntax-red", "210/red default", "code nano's syntax files color red" },
	[ROLE_SYNTAX_GREEN]	= { "syntax-green", "114/green default", "code they color green" },
	[ROLE_SYNTAX_YELLOW]	= { "syntax-yellow", "221/yellow default", "code they color yellow" },
	[ROLE_SYNTAX_BLUE]	= { "syntax-blue", "111/blue default", "code they color blue" },
	[ROLE_SYNTAX_MAGENTA]	= { "syntax-magenta", "176/magenta default", "code they color magenta" },
	[ROLE_SYNTAX_CYAN]	= { "syntax-cyan", "80/cyan default", "code they color cyan" },
};

/*
 * The glyph sets: name in theme files, built-in (checked against
 * fc-query's charset of DejaVuSansMono.ttf: U+25CF and U+2514 are there,
 * U+23FA and U+23BF are not) and ASCII.
 */
static const struct theme_glyph_def {
	const char	*name;
	const char	*unicode;
	const char	*ascii;
} theme_glyph_defs[GLYPH_COUNT] = {
	[GLYPH_CALL]	= { "glyph-call", "\xE2\x97\x8F", "*" },
	[GLYPH_RESULT]	= { "glyph-result", "\xE2\x94\x94", "|" },
};

static const struct theme_name {
	const char	*name;
	int		 value;
} theme_colors[] = {
	{ "black", 0 }, { "red", 1 }, { "green", 2 }, { "yellow", 3 },
	{ "blue", 4 }, { "magenta", 5 }, { "cyan", 6 }, { "white", 7 },
	{ "bright-black", 8 }, { "grey", 8 }, { "gray", 8 }, { "bright-red", 9 },
	{ "bright-green", 10 }, { "bright-yellow", 11 }, { "bright-blue", 12 },
	{ "bright-magenta", 13 }, { "bright-cyan", 14 }, { "bright-white", 15 },
}, theme_attrs[] = {
	{ "none", 0 }, { "bold", TA_BOLD }, { "dim", TA_DIM }, { "italic", TA_ITALIC },
	{ "underline", TA_UNDERLINE }, { "reverse", TA_REVERSE },
	{ "standout", TA_STANDOUT }, { "strike", TA_STRIKE },
};

const char *
theme_role_name(int role)
{
	if (role < 0 || role >= ROLE_COUNT)
		return NULL;
	return theme_roles[role].name;
}

int
theme_role_lookup(const char *name, size_t n)
{
	int i;

	for (i = 0; i < ROLE_COUNT; i++)
		if (strlen(theme_roles[i].name) == n && memcmp(theme_roles[i].name, name, n) == 0)
			return i;
	return -1;
}

static int
theme_table_lookup(const struct theme_name *t, size_t nt, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < nt; i++)
		if (strlen(t[i].name) == n && strncasecmp(t[i].name, s, n) == 0)
			return t[i].value;
	return -1;
}

/* The RGB of a 256-color index, as xterm defines the palette. */
static void
theme_rgb(int c, int rgb[3])
{
	static const int base[16][3] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
		{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
		{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
		{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
	};
	static const int level[6] = { 0, 95, 135, 175, 215, 255 };
	int i;

	if (c < 16) {
		for (i = 0; i < 3; i++)
			rgb[i] = base[c][i];
	} else if (c < 232) {
		c -= 16;
		rgb[0] = level[c / 36];
		rgb[1] = level[(c / 6) % 6];
		rgb[2] = level[c % 6];
	} else
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
}

/* WCAG's relative luminance of a 256-palette color. */
static double
theme_luminance(int c)
{
	static const double w[3] = { 0.2126, 0.7152, 0.0722 };
	double l = 0;
	int rgb[3], i;

	theme_rgb(c, rgb);
	for (i = 0; i < 3; i++) {
		double v = rgb[i] / 255.0;

		v = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
		l += w[i] * v;
	}
	return l;
}

double
theme_contrast(const struct theme *t, int role)
{
	const struct theme_style *s = &t->role[role];
	int fg = s->fg.c256 >= 0 ? s->fg.c256 : t->term_fg.c256;
	int bg = s->bg.c256 >= 0 ? s->bg.c256 : t->term_bg.c256;
	double a = theme_luminance(fg), b = theme_luminance(bg);

	return a > b ? (a + 0.05) / (b + 0.05) : (b + 0.05) / (a + 0.05);
}

int
theme_nearest8(int c256)
{
	int rgb[3], best = 0, i;
	long bestd = -1;

	if (c256 < 0)
		return -1;
	if (c256 < 16)
		return c256 % 8;
	theme_rgb(c256, rgb);
	for (i = 0; i < 8; i++) {
		int p[3];
		long d = 0;
		int k;

		theme_rgb(i, p);
		for (k = 0; k < 3; k++)
			d += (long)(p[k] - rgb[k]) * (p[k] - rgb[k]);
		if (bestd < 0 || d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best;
}

/* The 256-color index nearest to an RGB value (the cube or the grey ramp). */
static int
theme_from_rgb(int r, int g, int b)
{
	int v[3] = { r, g, b }, idx[3], i, cube, grey, gi, p[3];
	long dc = 0, dg = 0;

	for (i = 0; i < 3; i++)
		idx[i] = v[i] < 48 ? 0 : v[i] < 115 ? 1 : (v[i] - 35) / 40;
	cube = 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
	gi = ((r + g + b) / 3 - 8) / 10;
	if (gi < 0)
		gi = 0;
	if (gi > 23)
		gi = 23;
	grey = 232 + gi;
	theme_rgb(cube, p);
	for (i = 0; i < 3; i++)
		dc += (long)(p[i] - v[i]) * (p[i] - v[i]);
	theme_rgb(grey, p);
	for (i = 0; i < 3; i++)
		dg += (long)(p[i] - v[i]) * (p[i] - v[i]);
	return dg < dc ? grey : cube;
}

/* One color level: default, a name, 0-255 or #rrggbb; -2 when malformed. */
static int
theme_level(const char *s, size_t n)
{
	char tmp[16], *end;
	long v;
	int named;

	if ((n == 7 && strncasecmp(s, "default", 7) == 0) || (n == 1 && s[0] == '-'))
		return -1;
	named = theme_table_lookup(theme_colors, sizeof theme_colors / sizeof theme_colors[0], s, n);
	if (named >= 0)
		return named;
	if (n == 0 || n >= sizeof tmp)
		return -2;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (tmp[0] == '#') {
		if (n != 7)
			return -2;
		errno = 0;
		v = strtol(tmp + 1, &end, 16);
		if (errno != 0 || *end != '\0' || !isxdigit((unsigned char)tmp[1]))
			return -2;
		return theme_from_rgb((int)(v >> 16) & 255, (int)(v >> 8) & 255, (int)v & 255);
	}
	if (!isdigit((unsigned char)tmp[0]))
		return -2;
	errno = 0;
	v = strtol(tmp, &end, 10);
	if (errno != 0 || *end != '\0' || v > 255)
		return -2;
	return (int)v;
}

/* "C" or "C256/C8"; 0, or -1 when malformed. */
static int
theme_color_parse(const char *s, size_t n, struct theme_color *out)
{
	const char *slash = memchr(s, '/', n);
	int a, b;

	if (slash == NULL) {
		if ((a = theme_level(s, n)) == -2)
			return -1;
		out->c256 = (int16_t)a;
		out->c8 = (int16_t)theme_nearest8(a);
		return 0;
	}
	a = theme_level(s, (size_t)(slash - s));
	b = theme_level(slash + 1, n - (size_t)(slash - s) - 1);
	if (a == -2 || b == -2 || b > 7)
		return -1;
	out->c256 = (int16_t)a;
	out->c8 = (int16_t)b;
	return 0;
}

/* "bold,italic" or "mono:reverse"; 0, or -1 naming the bad word in bad. */
static int
theme_attrs_parse(const char *s, size_t n, struct theme_style *st, const char **bad, size_t *badn)
{
	bool mono = false;
	size_t i = 0;

	if (n > 5 && strncasecmp(s, "mono:", 5) == 0) {
		mono = true;
		i = 5;
	}
	while (i < n) {
		size_t j = i;
		int a;

		while (j < n && s[j] != ',')
			j++;
		a = theme_table_lookup(theme_attrs, sizeof theme_attrs / sizeof theme_attrs[0], s + i, j - i);
		if (a < 0) {
			*bad = s + i;
			*badn = j - i;
			return -1;
		}
		if (mono)
			st->mono |= (uint8_t)a;
		else
			st->attrs |= (uint8_t)a;
		i = j + 1;
	}
	return 0;
}

/* Split the next whitespace-separated token of [*p, end). */
static bool
theme_token(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *s = *p;

	while (s < end && isspace((unsigned char)*s))
		s++;
	if (s == end)
		return false;
	*tok = s;
	while (s < end && !isspace((unsigned char)*s))
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
	return true;
}

/* Parse "fg [bg] [attrs...]" into st; -1 with a sentence in err. */
static int
theme_spec_parse(const char *s, const char *end, struct theme_style *st, char *err, size_t err_size)
{
	const char *tok, *bad;
	size_t len, badn;
	int ntok = 0;

	memset(st, 0, sizeof *st);
	st->fg.c256 = st->fg.c8 = st->bg.c256 = st->bg.c8 = -1;
	while (theme_token(&s, end, &tok, &len)) {
		ntok++;
		if (ntok == 1) {
			if (theme_color_parse(tok, len, &st->fg) == -1) {
				snprintf(err, err_size, "unknown color '%.*s'", (int)len, tok);
				return -1;
			}
			continue;
		}
		if (ntok == 2 && theme_color_parse(tok, len, &st->bg) == 0)
			continue;
		if (theme_attrs_parse(tok, len, st, &bad, &badn) == -1) {
			if (ntok == 2 && badn == len)
				snprintf(err, err_size, "unknown color or attribute '%.*s'", (int)len, tok);
			else
				snprintf(err, err_size, "unknown attribute '%.*s'", (int)badn, bad);
			return -1;
		}
	}
	if (ntok == 0) {
		snprintf(err, err_size, "a style needs at least a foreground color");
		return -1;
	}
	return 0;
}

const char *
theme_glyph_name(int glyph)
{
	if (glyph < 0 || glyph >= GLYPH_COUNT)
		return NULL;
	return theme_glyph_defs[glyph].name;
}

void
theme_glyphs_default(struct theme_glyphs *g, bool ascii)
{
	int i;

	for (i = 0; i < GLYPH_COUNT; i++)
		snprintf(g->g[i], sizeof g->g[i], "%s",
		    ascii ? theme_glyph_defs[i].ascii : theme_glyph_defs[i].unicode);
}

bool
theme_glyphs_ascii_wanted(const char *codeset, const char *term)
{
	if (codeset == NULL || (strcasecmp(codeset, "UTF-8") != 0 && strcasecmp(codeset, "utf8") != 0))
		return true;
	return term != NULL && (strcmp(term, "linux") == 0 || strncmp(term, "linux-", 6) == 0);
}

/* "glyph-NAME = X": one character of one column; 1 when the line is not a glyph's. */
static int
theme_glyph_line(const char *name, size_t n, const char *v, const char *end, struct theme *out,
    char *err, size_t err_size)
{
	size_t len;
	int i;

	for (i = 0; i < GLYPH_COUNT; i++)
		if (strlen(theme_glyph_defs[i].name) == n && memcmp(theme_glyph_defs[i].name, name, n) == 0)
			break;
	if (i == GLYPH_COUNT)
		return 1;
	while (v < end && isspace((unsigned char)*v))
		v++;
	len = (size_t)(end - v);
	if (len == 0 || len >= sizeof out->glyphs.g[i] || !utf8_valid(v, len) || utf8_width(v, len) != 1) {
		snprintf(err, err_size, "%s must be one character one column wide", theme_glyph_defs[i].name);
		return -1;
	}
	memcpy(out->glyphs.g[i], v, len);
	out->glyphs.g[i][len] = '\0';
	return 0;
}

void
theme_default(struct theme *t)
{
	char err[128];
	int i;

	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", "default");
	/* The built-in theme is the dark one: light grey on black. */
	t->term_fg.c256 = 252;
	t->term_fg.c8 = 7;
	t->term_bg.c256 = 16;
	t->term_bg.c8 = 0;
	theme_glyphs_default(&t->glyphs, false);
	for (i = 0; i < ROLE_COUNT; i++) {
		const char *s = theme_roles[i].spec;

		/* The table is ours: a bad entry is a programming error caught by the tests. */
		if (theme_spec_parse(s, s + strlen(s), &t->role[i], err, sizeof err) == -1)
			fatal("built-in theme role %s: %s", theme_roles[i].name, err);
	}
}

static bool
theme_is_hex_color(const char *h, const char *end)
{
	int i;

	if (end - h < 7)
		return false;
	for (i = 1; i <= 6; i++)
		if (!isxdigit((unsigned char)h[i]))
			return false;
	return h + 7 == end || isspace((unsigned char)h[7]) || h[7] == '/';
}

/* Parse one line; 0 (also for blank and comment lines) or -1 with err. */
static int
theme_line(const char *s, const char *end, struct theme *out, char *err, size_t err_size)
{
	const char *hash = memchr(s, '#', (size_t)(end - s)), *eq, *name, *nend;
	int role, g;

	/* "#" starts a comment, unless it is a color: "#" and six hex digits. */
	while (hash != NULL && theme_is_hex_color(hash, end))
		hash = memchr(hash + 1, '#', (size_t)(end - hash - 1));
	if (hash != NULL)
		end = hash;
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (s == end)
		return 0;
	eq = memchr(s, '=', (size_t)(end - s));
	if (eq == NULL) {
		snprintf(err, err_size, "expected 'role = fg bg attrs'");
		return -1;
	}
	name = s;
	nend = eq;
	while (nend > name && isspace((unsigned char)nend[-1]))
		nend--;
	role = theme_role_lookup(name, (size_t)(nend - name));
	if (role < 0 && (g = theme_glyph_line(name, (size_t)(nend - name), eq + 1, end, out, err,
	    err_size)) != 1)
		return g;
	if (role < 0 && (size_t)(nend - name) == 8 && memcmp(name, "terminal", 8) == 0) {
		struct theme_style ts;

		/* "terminal = FG BG": the default colors the theme is made for. */
		if (theme_spec_parse(eq + 1, end, &ts, err, err_size) == -1)
			return -1;
		if (ts.fg.c256 < 0 || ts.bg.c256 < 0) {
			snprintf(err, err_size, "terminal needs two colors, not 'default'");
			return -1;
		}
		out->term_fg = ts.fg;
		out->term_bg = ts.bg;
		return 0;
	}
	if (role < 0) {
		snprintf(err, err_size, "unknown role '%.*s'", (int)(nend - name), name);
		return -1;
	}
	return theme_spec_parse(eq + 1, end, &out->role[role], err, err_size);
}

int
theme_parse(const char *text, size_t n, const char *fname, struct theme *out, char *err, size_t err_size)
{
	const char *p = text, *end = text + n;
	int line = 0;

	theme_default(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char why[160];

		line++;
		if (memchr(p, '\0', (size_t)(le - p)) != NULL) {
			snprintf(err, err_size, "%s:%d: a NUL byte: not a theme file", fname, line);
			theme_default(out);
			return -1;
		}
		if (theme_line(p, le, out, why, sizeof why) == -1) {
			snprintf(err, err_size, "%s:%d: %s", fname, line, why);
			theme_default(out);
			return -1;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static bool
theme_name_ok(const char *name)
{
	const char *p;

	if (*name == '\0' || strlen(name) > 48)
		return false;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return false;
	return true;
}

int
theme_load(const char *dir, const char *name, struct theme *out, char *err, size_t err_size)
{
	char path[4096], *text;
	size_t n = 0;
	FILE *f;
	int r;

	theme_default(out);
	if (!theme_name_ok(name)) {
		snprintf(err, err_size, "'%s' is not a theme name (letters, digits, '-' and '_')", name);
		return -1;
	}
	r = snprintf(path, sizeof path, "%s/%s.theme", dir, name);
	if (r < 0 || (size_t)r >= sizeof path) {
		snprintf(err, err_size, "the theme directory's path is too long");
		return -1;
	}
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = xmalloc(THEME_FILE_MAX + 1);
	n = fread(text, 1, THEME_FILE_MAX + 1, f);
	fclose(f);
	if (n > THEME_FILE_MAX) {
		snprintf(err, err_size, "%s: larger than %d bytes: not a theme file", path, THEME_FILE_MAX);
		free(text);
		return -1;
	}
	r = theme_parse(text, n, path, out, err, err_size);
	free(text);
	if (r == 0)
		snprintf(out->name, sizeof out->name, "%s", name);
	return r;
}

static int
theme_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t
theme_list(const char *dir, char ***names)
{
	struct dirent *de;
	size_t n = 0, cap = 0;
	DIR *d;

	*names = NULL;
	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char *name;

		if (len <= 6 || strcmp(de->d_name + len - 6, ".theme") != 0)
			continue;
		name = xstrndup(de->d_name, len - 6);
		if (!theme_name_ok(name)) {
			free(name);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			*names = xreallocarray(*names, cap, sizeof **names);
		}
		(*names)[n++] = name;
	}
	closedir(d);
	if (n > 1)
		qsort(*names, n, sizeof **names, theme_cmp);
	return n;
}

void
theme_list_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void
theme_resolve(const struct theme_style *st, enum theme_depth depth, int *fg, int *bg, unsigned *attrs)
{
	*attrs = st->attrs;
	switch (depth) {
	case THEME_256:
		*fg = st->fg.c256;
		*bg = st->bg.c256;
		break;
	case THEME_8:
		*fg = st->fg.c8;
		*bg = st->bg.c8;
		break;
	default:
		*fg = *bg = -1;
		*attrs |= st->mono;
		break;
	}
}

const char *
theme_role_what(int role)
{
	if (role < 0 || role >= ROLE_COUNT)
		return NULL;
	return theme_roles[role].what;
}
