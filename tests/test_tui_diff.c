/* Tests for tui/udiff.c: unified diff parsing, pairing, changed spans. */
#include "autoconf.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "theme.h"
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

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	T_RUN(parse_counts_and_numbers);
	T_RUN(removed_and_added_runs_are_paired_with_spans);
	T_RUN(span_respects_utf8);
	T_RUN(a_dash_line_inside_a_hunk_is_a_removal);
	T_RUN(malformed_input_becomes_notes);
	T_RUN(a_hunk_stops_after_its_counts);
	T_RUN(crlf_and_lost_context_space);
	T_RUN(render_numbers_colors_and_spans);
	return t_done();
}
