/* Tests for tui/udiff.c: unified diff parsing, pairing, changed spans. */
#include "autoconf.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "theme.h"
#include "synhl.h"
#include "udiff.h"

static const char sample[] =
    "--- a/src/a.c\n"
    "+++ b/src/a.c\n"
    "@@ -10,5 +10,6 @@ int f(void)\n"
    " int x;\n"
    "-\treturn count + 1;\n"
    "-\t/* old */\n"
    "+\treturn count;\n"
    "+\t/* new */\n"
    "+\tadded();\n"
    " }\n"
    " \n";

T_TEST(parse_counts_and_numbers)
{
	struct udiff d;

	udiff_parse(&d, sample, strlen(sample));
	T_EQ_INT(d.n, 11);
	T_EQ_INT(d.adds, 3);
	T_EQ_INT(d.dels, 2);
	T_EQ_INT(d.hunks, 1);
	T_EQ_INT(d.files, 1);
	T_EQ_STR(d.file, "src/a.c");
	T_EQ_INT(d.lines[0].kind, UD_FILE);
	T_EQ_INT(d.lines[2].kind, UD_HUNK);
	T_EQ_INT(d.lines[3].kind, UD_CONTEXT);
	T_EQ_INT(d.lines[3].old_no, 10);
	T_EQ_INT(d.lines[3].new_no, 10);
	T_EQ_INT(d.lines[4].kind, UD_DEL);
	T_EQ_INT(d.lines[4].old_no, 11);
	T_EQ_INT(d.lines[4].new_no, 0);
	T_EQ_INT(d.lines[6].kind, UD_ADD);
	T_EQ_INT(d.lines[6].new_no, 11);
	T_EQ_INT(d.lines[8].new_no, 13);
	T_EQ_INT(d.lines[9].old_no, 13);
	T_EQ_INT(d.lines[9].new_no, 14);
	udiff_release(&d);
}

T_TEST(removed_and_added_runs_are_paired_with_spans)
{
	struct udiff d;
	const struct udiff_line *o, *n;

	udiff_parse(&d, sample, strlen(sample));
	o = &d.lines[4];
	n = &d.lines[6];
	T_EQ_INT(o->pair, 6);
	T_EQ_INT(n->pair, 4);
	/* "\treturn count + 1;" vs "\treturn count;" (tabs drawn as 4 spaces): " + 1" changed. */
	T_EQ_INT(o->span_start, strlen("    return count"));
	T_EQ_INT(o->span_end, strlen("    return count + 1"));
	T_EQ_INT(n->span_start, n->span_end);
	T_EQ_INT(d.lines[5].pair, 7);
	/* The third addition has no partner. */
	T_EQ_INT(d.lines[8].pair, -1);
	T_EQ_INT(d.lines[8].span_start, d.lines[8].span_end);
	udiff_release(&d);
}

T_TEST(span_respects_utf8)
{
	size_t pre, suf;

	/* é (C3 A9) and è (C3 A8) share a first byte: the span must start before it. */
	udiff_span("caf\xC3\xA9!", 6, "caf\xC3\xA8!", 6, &pre, &suf);
	T_EQ_INT(pre, 3);
	T_EQ_INT(suf, 1);
	udiff_span("same", 4, "same", 4, &pre, &suf);
	T_EQ_INT(pre + suf, 4);
	udiff_span("abc", 3, "xyz", 3, &pre, &suf);
	T_EQ_INT(pre, 0);
	T_EQ_INT(suf, 0);
	/* Prefix and suffix never overlap. */
	udiff_span("aaa", 3, "aaaa", 4, &pre, &suf);
	T_OK(pre + suf <= 3);
	udiff_span("", 0, "x", 1, &pre, &suf);
	T_EQ_INT(pre + suf, 0);
	/* Same last byte of different characters: not a suffix. */
	udiff_span("x\xE2\x82\xAC", 4, "x\xE2\x84\xAC", 4, &pre, &suf);
	T_EQ_INT(pre, 1);
	T_EQ_INT(suf, 0);
}

T_TEST(a_dash_line_inside_a_hunk_is_a_removal)
{
	const char *s = "@@ -1,2 +1,1 @@\n--- not a header\n keep\n";
	struct udiff d;

	udiff_parse(&d, s, strlen(s));
	T_EQ_INT(d.lines[1].kind, UD_DEL);
	T_EQ_INT(d.lines[1].len, strlen("-- not a header"));
	T_EQ_INT(d.dels, 1);
	T_EQ_INT(d.files, 0);
	udiff_release(&d);
}

T_TEST(malformed_input_becomes_notes)
{
	const char *bad[] = {
		"@@ -x,y +1 @@\n+added?\n",
		"@@ -1,99999999999 +1 @@\n-a\n",
		"just a command line\n",
		"\\ No newline at end of file\n",
		"@@ -1 +1 @@",
		"",
		"\n\n\r\n",
	};
	size_t i, k;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct udiff d;
		struct slvec v;

		udiff_parse(&d, bad[i], strlen(bad[i]));
		for (k = 0; k < d.n; k++)
			T_OK(d.lines[k].len <= strlen(bad[i]));
		slvec_init(&v);
		udiff_render(&d, &v);
		udiff_render_split(&d, 10, &v);
		slvec_release(&v);
		udiff_release(&d);
	}
	{
		struct udiff d;

		udiff_parse(&d, bad[0], strlen(bad[0]));
		T_EQ_INT(d.lines[0].kind, UD_NOTE);
		T_EQ_INT(d.lines[1].kind, UD_NOTE);
		T_EQ_INT(d.adds, 0);
		udiff_release(&d);
	}
}

T_TEST(a_hunk_stops_after_its_counts)
{
	const char *s = "@@ -1 +1 @@\n-a\n+b\n-trailing text\n";
	struct udiff d;

	udiff_parse(&d, s, strlen(s));
	T_EQ_INT(d.dels, 1);
	T_EQ_INT(d.adds, 1);
	T_EQ_INT(d.lines[3].kind, UD_NOTE);
	udiff_release(&d);
}

T_TEST(crlf_and_lost_context_space)
{
	const char *s = "@@ -1,3 +1,3 @@\r\n a\r\n\r\n-b\r\n+c\r\n";
	struct udiff d;

	udiff_parse(&d, s, strlen(s));
	T_EQ_INT(d.lines[1].len, 1);
	T_EQ_INT(d.lines[2].kind, UD_CONTEXT);
	T_EQ_INT(d.lines[2].old_no, 2);
	T_EQ_INT(d.lines[4].kind, UD_ADD);
	T_EQ_INT(d.lines[4].new_no, 3);
	udiff_release(&d);
}

T_TEST(render_numbers_colors_and_spans)
{
	struct udiff d;
	struct slvec v;
	const struct sline *l;
	const char *p;

	udiff_parse(&d, sample, strlen(sample));
	slvec_init(&v);
	udiff_render(&d, &v);
	T_EQ_INT(v.n, d.n);
	l = &v.v[4];
	T_CONTAINS(l->text, "11    - ");
	T_EQ_INT(sline_style_at(l, 0)->role, ROLE_LINENO);
	p = strstr(l->text, " + 1");
	T_OK(p != NULL);
	if (p != NULL) {
		T_EQ_INT(sline_style_at(l, (uint32_t)(p - l->text))->role, ROLE_DIFF_SPAN_DEL);
		T_EQ_INT(sline_style_at(l, (uint32_t)(p - l->text - 1))->role, ROLE_DIFF_DEL);
	}
	T_EQ_INT(sline_style_at(&v.v[2], 0)->role, ROLE_DIFF_HUNK);
	T_OK(v.v[4].cont != NULL);
	slvec_release(&v);

	/* Side by side: a removal and its addition on one row, cut to width. */
	slvec_init(&v);
	udiff_render_split(&d, 61, &v);
	T_EQ_INT(v.n, 9);
	T_CONTAINS(v.v[4].text, "return count + 1;");
	T_CONTAINS(v.v[4].text, "return count;");
	T_EQ_INT(sline_width(&v.v[4]), 61);
	T_EQ_INT(sline_width(&v.v[7]), 61);
	slvec_release(&v);
	udiff_release(&d);
}

static char *
strndup_or(const char *s, size_t n)
{
	static char b[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(b[k], sizeof b[k], "%.*s", (int)n, s);
	return b[k];
}

/* The role at the first occurrence of needle in l, or -1. */
static int
role_at(const struct sline *l, const char *needle)
{
	const char *p = l->text ? strstr(l->text, needle) : NULL;

	return p ? sline_style_at(l, (uint32_t)(p - l->text))->role : -1;
}

/* A tab that became spaces is shown, not drawn as two identical lines. */
T_TEST(tab_to_spaces_shows_the_whitespace)
{
	static const char text[] = "--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n-\tx = 1;\n-foo bar\n"
	    "+    x = 1;\n+foo baz\n";
	struct udiff d;
	struct slvec v;

	udiff_parse(&d, text, strlen(text));
	T_EQ_INT(d.lines[3].kind, UD_DEL);
	T_EQ_STR(strndup_or(d.lines[3].text, d.lines[3].len), "\xE2\x86\x92   x = 1;");
	T_EQ_STR(strndup_or(d.lines[5].text, d.lines[5].len), "\xC2\xB7\xC2\xB7\xC2\xB7\xC2\xB7x = 1;");
	/* The marks are the changed span, one column each as the blanks were. */
	T_EQ_INT(d.lines[3].span_start, 0);
	T_EQ_INT(d.lines[3].span_end, strlen("\xE2\x86\x92   "));
	T_EQ_INT(d.lines[5].span_end, 8);
	/* A change of more than blanks keeps its spaces as they are. */
	T_EQ_STR(strndup_or(d.lines[6].text, d.lines[6].len), "foo baz");
	slvec_init(&v);
	udiff_render(&d, &v);
	T_EQ_INT(role_at(&v.v[3], "\xE2\x86\x92"), ROLE_DIFF_SPAN_DEL);
	T_EQ_INT(role_at(&v.v[3], "x = 1"), ROLE_DIFF_DEL);
	T_EQ_INT(role_at(&v.v[5], "\xC2\xB7"), ROLE_DIFF_SPAN_ADD);
	T_OK(strcmp(v.v[3].text + v.v[3].body, v.v[5].text + v.v[5].body) != 0);
	T_EQ_INT(sline_width(&v.v[3]), sline_width(&v.v[5]));
	slvec_release(&v);
	udiff_release(&d);
}

/* Lines are colored by the syntax of the file the header names, each side's regions apart. */
T_TEST(diff_is_highlighted_by_its_file)
{
	static const char text[] = "--- a/src/x.tiny\n+++ b/src/x.tiny\n@@ -1,4 +1,4 @@\n int a;\n"
	    "-int n = 1;\n-int b; /* old\n+int n = 2;\n+long b;\n  more */ int\n";
	char dir[] = "/tmp/test_tui_diff.XXXXXX", path[256];
	struct udiff d;
	struct slvec v;
	FILE *f;

	T_OK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/tiny.nanorc", dir);
	T_OK((f = fopen(path, "w")) != NULL);
	fputs("syntax tiny \"\\.tiny$\"\ncolor green \"\\<int\\>\"\ncolor blue start=\"/\\*\" end=\"\\*/\"\n", f);
	fclose(f);
	synhl_configure(NULL, dir);
	udiff_parse(&d, text, strlen(text));
	slvec_init(&v);
	udiff_render(&d, &v);
	T_EQ_INT(role_at(&v.v[3], "int"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role_at(&v.v[3], "a;"), ROLE_DIFF_CONTEXT);
	T_EQ_INT(role_at(&v.v[4], "int"), ROLE_SYNTAX_GREEN);
	/* The changed span keeps its own color. */
	T_EQ_INT(role_at(&v.v[4], "1;"), ROLE_DIFF_SPAN_DEL);
	T_EQ_INT(role_at(&v.v[6], "2;"), ROLE_DIFF_SPAN_ADD);
	T_EQ_INT(role_at(&v.v[5], "/* old"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(role_at(&v.v[5], "b;"), ROLE_DIFF_DEL);
	T_EQ_INT(role_at(&v.v[7], "long"), ROLE_DIFF_ADD);
	/* The comment the old side opened does not color the new side's context line... */
	T_EQ_INT(role_at(&v.v[8], "more"), ROLE_DIFF_CONTEXT);
	slvec_release(&v);
	/* ... and the split view colors each half by its own side. */
	slvec_init(&v);
	udiff_render_split(&d, 81, &v);
	T_EQ_INT(role_at(&v.v[3], "int"), ROLE_SYNTAX_GREEN);
	/* On the left the old side's comment goes on into it. */
	T_EQ_INT(role_at(&v.v[6], "more"), ROLE_SYNTAX_BLUE);
	slvec_release(&v);
	udiff_release(&d);
	synhl_configure(NULL, NULL);
	remove(path);
	rmdir(dir);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	/* Plain lines unless a test names its syntax files. */
	synhl_configure(NULL, NULL);
	T_RUN(parse_counts_and_numbers);
	T_RUN(removed_and_added_runs_are_paired_with_spans);
	T_RUN(span_respects_utf8);
	T_RUN(a_dash_line_inside_a_hunk_is_a_removal);
	T_RUN(malformed_input_becomes_notes);
	T_RUN(a_hunk_stops_after_its_counts);
	T_RUN(crlf_and_lost_context_space);
	T_RUN(render_numbers_colors_and_spans);
	T_RUN(tab_to_spaces_shows_the_whitespace);
	T_RUN(diff_is_highlighted_by_its_file);
	synhl_shutdown();
	return t_done();
}
