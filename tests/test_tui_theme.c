/* Tests for tui/theme.c: the role table, theme files, errors, fallbacks. */
#include "autoconf.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "theme.h"

static char themes_dir[4096];

static int
parse(const char *text, struct theme *t, char *err, size_t n)
{
	return theme_parse(text, strlen(text), "x.theme", t, err, n);
}

T_TEST(every_role_has_a_name_and_a_valid_builtin_style)
{
	struct theme t;
	int i;

	theme_default(&t);
	for (i = 0; i < ROLE_COUNT; i++) {
		const char *n = theme_role_name(i);

		T_OK(n != NULL);
		T_OK(theme_role_what(i) != NULL);
		T_EQ_INT(theme_role_lookup(n, strlen(n)), i);
	}
	T_OK(theme_role_name(ROLE_COUNT) == NULL);
	T_OK(theme_role_name(-1) == NULL);
	T_EQ_INT(theme_role_lookup("diff-add", 8), ROLE_DIFF_ADD);
	T_EQ_INT(theme_role_lookup("diff-ad", 7), -1);
	T_EQ_INT(t.role[ROLE_TEXT].fg.c256, -1);
	T_EQ_INT(t.role[ROLE_ACCENT].fg.c256, 75);
	T_EQ_INT(t.role[ROLE_ACCENT].fg.c8, 6);
	T_EQ_INT(t.role[ROLE_ACCENT].attrs, TA_BOLD);
	T_EQ_INT(t.role[ROLE_DIFF_SPAN_ADD].mono, TA_REVERSE);
}

T_TEST(parse_colors_attributes_and_comments)
{
	struct theme t;
	char err[256] = "";

	T_EQ_INT(parse("# a comment\n\n  text = red   # trailing\n"
	    "heading=#ff8700/yellow default bold,underline\n"
	    "code = 214 17 italic mono:reverse,bold\n"
	    "link = bright-blue - underline\n"
	    "dim = default\n", &t, err, sizeof err), 0);
	T_EQ_STR(err, "");
	T_EQ_INT(t.role[ROLE_TEXT].fg.c256, 1);
	T_EQ_INT(t.role[ROLE_TEXT].bg.c256, -1);
	T_EQ_INT(t.role[ROLE_HEADING].fg.c256, 208);
	T_EQ_INT(t.role[ROLE_HEADING].fg.c8, 3);
	T_EQ_INT(t.role[ROLE_HEADING].attrs, TA_BOLD | TA_UNDERLINE);
	T_EQ_INT(t.role[ROLE_CODE].fg.c256, 214);
	T_EQ_INT(t.role[ROLE_CODE].bg.c256, 17);
	T_EQ_INT(t.role[ROLE_CODE].attrs, TA_ITALIC);
	T_EQ_INT(t.role[ROLE_CODE].mono, TA_REVERSE | TA_BOLD);
	T_EQ_INT(t.role[ROLE_LINK].fg.c256, 12);
	T_EQ_INT(t.role[ROLE_LINK].fg.c8, 4);
	T_EQ_INT(t.role[ROLE_LINK].bg.c256, -1);
	T_EQ_INT(t.role[ROLE_DIM].fg.c256, -1);
	/* Unnamed roles keep the built-in style. */
	T_EQ_INT(t.role[ROLE_ACCENT].fg.c256, 75);
}

#define T_PARSE_ERR(text, want) do {					\
	struct theme t_t;						\
	char t_e[256] = "";						\
	T_EQ_INT(parse((text), &t_t, t_e, sizeof t_e), -1);		\
	T_CONTAINS(t_e, (want));					\
	/* A failed parse leaves the built-in theme. */			\
	T_EQ_INT(t_t.role[ROLE_ACCENT].fg.c256, 75);			\
	T_EQ_INT(t_t.role[ROLE_TEXT].fg.c256, -1);			\
} while (0)

T_TEST(errors_name_the_file_and_line)
{
	T_PARSE_ERR("text = red\nnosuchrole = red\n", "x.theme:2: unknown role 'nosuchrole'");
	T_PARSE_ERR("\n\n\ntext = purple\n", "x.theme:4: unknown color 'purple'");
	T_PARSE_ERR("text = red blue blinky\n", "x.theme:1: unknown attribute 'blinky'");
	T_PARSE_ERR("text = red bold,wobbly\n", "unknown attribute 'wobbly'");
	T_PARSE_ERR("text = 256\n", "unknown color '256'");
	T_PARSE_ERR("text = -1\n", "unknown color");
	T_PARSE_ERR("text = 12/9\n", "unknown color");
	/* Not six hex digits: a comment, so nothing is left. */
	T_PARSE_ERR("text = #12345\n", "needs at least a foreground");
	T_PARSE_ERR("text = #gggggg\n", "needs at least a foreground");
	T_PARSE_ERR("text = red/#00ff00\n", "unknown color 'red/#00ff00'");
	T_PARSE_ERR("text red\n", "x.theme:1: expected 'role = fg bg attrs'");
	T_PARSE_ERR("text =\n", "needs at least a foreground");
	T_PARSE_ERR("text = red nocolor\n", "unknown color or attribute 'nocolor'");
	T_PARSE_ERR("text = mono:\n", "unknown color");
	{
		struct theme t;
		char err[256];

		T_EQ_INT(theme_parse("text = red\n\0x", 13, "nul.theme", &t, err, sizeof err), -1);
		T_CONTAINS(err, "nul.theme:2: a NUL byte");
	}
}

T_TEST(resolve_per_depth)
{
	struct theme t;
	int fg, bg;
	unsigned attrs;
	char err[128];

	T_EQ_INT(parse("diff-span-add = 16/black 114/green bold mono:reverse\n", &t, err, sizeof err), 0);
	theme_resolve(&t.role[ROLE_DIFF_SPAN_ADD], THEME_256, &fg, &bg, &attrs);
	T_EQ_INT(fg, 16);
	T_EQ_INT(bg, 114);
	T_EQ_INT(attrs, TA_BOLD);
	theme_resolve(&t.role[ROLE_DIFF_SPAN_ADD], THEME_8, &fg, &bg, &attrs);
	T_EQ_INT(fg, 0);
	T_EQ_INT(bg, 2);
	theme_resolve(&t.role[ROLE_DIFF_SPAN_ADD], THEME_MONO, &fg, &bg, &attrs);
	T_EQ_INT(fg, -1);
	T_EQ_INT(bg, -1);
	T_EQ_INT(attrs, TA_BOLD | TA_REVERSE);
}

T_TEST(nearest_basic_color)
{
	T_EQ_INT(theme_nearest8(-1), -1);
	T_EQ_INT(theme_nearest8(9), 1);
	T_EQ_INT(theme_nearest8(196), 1);	/* pure red */
	T_EQ_INT(theme_nearest8(46), 2);	/* pure green */
	T_EQ_INT(theme_nearest8(21), 4);	/* pure blue */
	T_EQ_INT(theme_nearest8(231), 7);	/* white */
	T_EQ_INT(theme_nearest8(16), 0);	/* black */
	T_EQ_INT(theme_nearest8(51), 6);	/* cyan */
}

T_TEST(shipped_themes_load)
{
	static const char *const names[] = { "dark", "light", "high-contrast", "solarized-dark", "mono" };
	struct theme t, def;
	char err[512], **list;
	size_t i, n;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		err[0] = '\0';
		if (theme_load(themes_dir, names[i], &t, err, sizeof err) != 0)
			T_FAIL("theme %s: %s", names[i], err);
		T_EQ_STR(t.name, names[i]);
	}
	/* dark.theme is the built-in theme, role for role. */
	theme_default(&def);
	T_EQ_INT(theme_load(themes_dir, "dark", &t, err, sizeof err), 0);
	T_OK(memcmp(t.role, def.role, sizeof def.role) == 0);
	/* mono has no colors at all. */
	T_EQ_INT(theme_load(themes_dir, "mono", &t, err, sizeof err), 0);
	for (i = 0; i < ROLE_COUNT; i++)
		T_OK(t.role[i].fg.c256 == -1 && t.role[i].bg.c256 == -1);
	n = theme_list(themes_dir, &list);
	T_OK(n >= 5);
	for (i = 1; i < n; i++)
		T_OK(strcmp(list[i - 1], list[i]) < 0);
	theme_list_free(list, n);
}

/*
 * WCAG AA for every shipped theme that has colors: text roles 4.5:1, the
 * parts that are no text (borders, the code frame) 3:1, on the terminal
 * colors the theme states.
 */
T_TEST(shipped_themes_have_contrast)
{
	static const char *const names[] = { "dark", "light", "solarized-dark", "high-contrast" };
	char dir[4096], err[256];
	size_t i;
	int r;

	snprintf(dir, sizeof dir, "%s/themes", getenv("top_srcdir") != NULL ? getenv("top_srcdir") : ".");
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct theme t;

		T_EQ_INT(theme_load(dir, names[i], &t, err, sizeof err), 0);
		for (r = 0; r < ROLE_COUNT; r++) {
			double want = r == ROLE_BORDER || r == ROLE_CODE_FRAME ? 3.0 : 4.5;
			double got = theme_contrast(&t, r);

			if (got < want)
				T_FAIL("%s: %s is %.2f:1, under %.1f:1", names[i], theme_role_name(r), got, want);
		}
	}
}

T_TEST(load_refuses_bad_names_and_missing_files)
{
	struct theme t;
	char err[512];

	T_EQ_INT(theme_load(themes_dir, "../etc/passwd", &t, err, sizeof err), -1);
	T_CONTAINS(err, "not a theme name");
	T_EQ_INT(theme_load(themes_dir, "", &t, err, sizeof err), -1);
	T_EQ_INT(theme_load(themes_dir, "no-such-theme", &t, err, sizeof err), -1);
	T_CONTAINS(err, "no-such-theme.theme");
	T_EQ_INT(t.role[ROLE_ACCENT].fg.c256, 75);
	{
		char **list = NULL;

		T_EQ_INT(theme_list("/nonexistent/dir", &list), 0);
		T_OK(list == NULL);
	}
}

T_TEST(malformed_file_on_disk_names_file_and_line)
{
	char path[4200], err[512];
	struct theme t;
	FILE *f;

	snprintf(path, sizeof path, "./broken-%d.theme", (int)getpid());
	f = fopen(path, "w");
	T_OK(f != NULL);
	if (f == NULL)
		return;
	fputs("text = red\naccent = blue\nheading = mauve\n", f);
	fclose(f);
	snprintf(path, sizeof path, "broken-%d", (int)getpid());
	T_EQ_INT(theme_load(".", path, &t, err, sizeof err), -1);
	T_CONTAINS(err, ".theme:3: unknown color 'mauve'");
	T_EQ_INT(t.role[ROLE_TEXT].fg.c256, -1);
	snprintf(path, sizeof path, "./broken-%d.theme", (int)getpid());
	remove(path);
}

T_TEST(glyph_sets_and_theme_lines)
{
	struct theme t;
	struct theme_glyphs g;
	char err[256] = "";

	theme_default(&t);
	T_EQ_STR(t.glyphs.g[GLYPH_CALL], "\xE2\x97\x8F");
	T_EQ_STR(t.glyphs.g[GLYPH_RESULT], "\xE2\x94\x94");
	theme_glyphs_default(&g, true);
	T_EQ_STR(g.g[GLYPH_CALL], "*");
	T_EQ_STR(g.g[GLYPH_RESULT], "|");
	T_EQ_STR(theme_glyph_name(GLYPH_CALL), "glyph-call");
	T_OK(theme_glyph_name(GLYPH_COUNT) == NULL);
	T_EQ_INT(parse("glyph-call = \xE2\x80\xA2\nglyph-result = >\ndim = red\n", &t, err, sizeof err), 0);
	T_EQ_STR(t.glyphs.g[GLYPH_CALL], "\xE2\x80\xA2");
	T_EQ_STR(t.glyphs.g[GLYPH_RESULT], ">");
	T_EQ_INT(t.role[ROLE_DIM].fg.c256, 1);
	T_EQ_INT(parse("glyph-call = ab\n", &t, err, sizeof err), -1);
	T_CONTAINS(err, "x.theme:1: glyph-call must be one character one column wide");
	T_EQ_STR(t.glyphs.g[GLYPH_CALL], "\xE2\x97\x8F");
	T_EQ_INT(parse("glyph-result = \xE4\xB8\xAD\n", &t, err, sizeof err), -1);
	T_CONTAINS(err, "glyph-result must be one character");
	T_EQ_INT(parse("glyph-result =\n", &t, err, sizeof err), -1);
	T_EQ_INT(parse("glyph-other = x\n", &t, err, sizeof err), -1);
	T_CONTAINS(err, "unknown role 'glyph-other'");
}

T_TEST(ascii_glyphs_where_utf8_cannot_be_drawn)
{
	T_OK(!theme_glyphs_ascii_wanted("UTF-8", "xterm-256color"));
	T_OK(!theme_glyphs_ascii_wanted("utf8", NULL));
	T_OK(theme_glyphs_ascii_wanted("ANSI_X3.4-1968", "xterm"));
	T_OK(theme_glyphs_ascii_wanted("ISO-8859-1", "xterm"));
	T_OK(theme_glyphs_ascii_wanted(NULL, "xterm"));
	T_OK(theme_glyphs_ascii_wanted("UTF-8", "linux"));
	T_OK(theme_glyphs_ascii_wanted("UTF-8", "linux-16color"));
	T_OK(!theme_glyphs_ascii_wanted("UTF-8", "linuxish"));
}

int
main(void)
{
	const char *src = getenv("top_srcdir");

	setlocale(LC_ALL, "C.UTF-8");
	snprintf(themes_dir, sizeof themes_dir, "%s/themes", src && *src ? src : ".");
	T_RUN(every_role_has_a_name_and_a_valid_builtin_style);
	T_RUN(parse_colors_attributes_and_comments);
	T_RUN(errors_name_the_file_and_line);
	T_RUN(resolve_per_depth);
	T_RUN(nearest_basic_color);
	T_RUN(shipped_themes_load);
	T_RUN(shipped_themes_have_contrast);
	T_RUN(load_refuses_bad_names_and_missing_files);
	T_RUN(malformed_file_on_disk_names_file_and_line);
	T_RUN(glyph_sets_and_theme_lines);
	T_RUN(ascii_glyphs_where_utf8_cannot_be_drawn);
	return t_done();
}
