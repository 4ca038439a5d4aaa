/* Tests for tui/mdview.c: Markdown to styled lines, whole and streamed. */
#include "autoconf.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unistd.h>

#include "mdview.h"
#include "synhl.h"
#include "t.h"
#include "theme.h"

static struct slvec
render(const char *md)
{
	struct slvec v;

	slvec_init(&v);
	mdview_render(md, strlen(md), &v);
	return v;
}

static const char *
line(const struct slvec *v, size_t i)
{
	return i < v->n && v->v[i].text ? v->v[i].text : "";
}

/* The role at the first occurrence of needle in line i, or -1. */
static int
role_of(const struct slvec *v, size_t i, const char *needle)
{
	const char *p;

	if (i >= v->n || v->v[i].text == NULL || (p = strstr(v->v[i].text, needle)) == NULL)
		return -1;
	return sline_style_at(&v->v[i], (uint32_t)(p - v->v[i].text))->role;
}

static int
attr_of(const struct slvec *v, size_t i, const char *needle)
{
	const char *p;

	if (i >= v->n || v->v[i].text == NULL || (p = strstr(v->v[i].text, needle)) == NULL)
		return -1;
	return sline_style_at(&v->v[i], (uint32_t)(p - v->v[i].text))->attr;
}

T_TEST(heading_and_emphasis)
{
	struct slvec v = render("# Title\n\nSome *emph*, **strong** and `code`.\n");

	T_EQ_INT(v.n, 3);
	T_EQ_STR(line(&v, 0), "Title");
	T_EQ_INT(role_of(&v, 0, "Title"), ROLE_HEADING);
	T_OK(attr_of(&v, 0, "Title") & TA_BOLD);
	T_EQ_STR(line(&v, 1), "");
	T_EQ_STR(line(&v, 2), "Some emph, strong and code.");
	T_OK(attr_of(&v, 2, "emph") & TA_ITALIC);
	T_OK(attr_of(&v, 2, "strong") & TA_BOLD);
	T_EQ_INT(role_of(&v, 2, "code"), ROLE_CODE);
	T_EQ_INT(role_of(&v, 2, "Some"), ROLE_TEXT);
	slvec_release(&v);
}

T_TEST(fenced_code_is_framed_with_language)
{
	struct slvec v = render("```python\ndef f():\n\treturn 1\n```\n");

	T_EQ_INT(v.n, 4);
	T_CONTAINS(line(&v, 0), "python");
	T_EQ_INT(role_of(&v, 0, "\xE2\x95\xAD"), ROLE_CODE_FRAME);
	/* A closed box as wide as its widest line: the right edge lines up. */
	T_EQ_STR(line(&v, 1), "\xE2\x94\x82 def f():     \xE2\x94\x82");
	T_EQ_STR(line(&v, 2), "\xE2\x94\x82     return 1 \xE2\x94\x82");
	T_EQ_INT(role_of(&v, 1, "def"), ROLE_CODE);
	T_OK(v.v[1].flags & SL_CHARWRAP);
	T_EQ_STR(v.v[1].cont, "\xE2\x94\x82 ");
	T_CONTAINS(line(&v, 3), "\xE2\x95\xB0");
	slvec_release(&v);
}

T_TEST(lists_nested_and_ordered)
{
	struct slvec v = render("- one\n- two\n  - inner\n- [x] done\n\n3. three\n4. four\n");

	T_EQ_STR(line(&v, 0), "\xE2\x80\xA2 one");
	T_EQ_INT(v.v[0].body, strlen("\xE2\x80\xA2 "));
	T_EQ_STR(v.v[0].cont, "  ");
	T_EQ_STR(line(&v, 1), "\xE2\x80\xA2 two");
	T_EQ_STR(line(&v, 2), "  \xE2\x97\xA6 inner");
	T_EQ_STR(line(&v, 3), "\xE2\x80\xA2 [x] done");
	T_EQ_STR(line(&v, 4), "");
	T_EQ_STR(line(&v, 5), "3. three");
	T_EQ_STR(line(&v, 6), "4. four");
	T_EQ_INT(v.n, 7);
	slvec_release(&v);
}

T_TEST(loose_list_items_are_separated)
{
	struct slvec v = render("1. first\n\n2. second\n   more\n");

	T_EQ_STR(line(&v, 0), "1. first");
	T_EQ_STR(line(&v, 1), "");
	T_EQ_STR(line(&v, 2), "2. second more");
	T_EQ_INT(v.n, 3);
	slvec_release(&v);
}

T_TEST(quote_keeps_its_bar_when_wrapped)
{
	struct slvec v = render("> quoted\n> more\n>\n> again\n");

	T_EQ_STR(line(&v, 0), "\xE2\x94\x82 quoted more");
	T_EQ_STR(v.v[0].cont, "\xE2\x94\x82 ");
	T_EQ_INT(role_of(&v, 0, "quoted"), ROLE_QUOTE);
	T_EQ_STR(line(&v, 1), "\xE2\x94\x82");
	T_EQ_STR(line(&v, 2), "\xE2\x94\x82 again");
	slvec_release(&v);
}

T_TEST(table_with_alignment_and_wide_chars)
{
	struct slvec v = render("| a | b |\n|:--|--:|\n| 1 | two |\n| \xE6\xBC\xA2\xE5\xAD\x97 | 3 |\n");

	T_EQ_INT(v.n, 6);
	/* The first column is as wide as its widest cell: two wide characters, 4 columns. */
	T_EQ_STR(line(&v, 0), "\xE2\x94\x8C\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80"
	    "\xE2\x94\x80\xE2\x94\xAC\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x94\x90");
	T_EQ_STR(line(&v, 1), "\xE2\x94\x82 a    \xE2\x94\x82   b \xE2\x94\x82");
	T_EQ_STR(line(&v, 3), "\xE2\x94\x82 1    \xE2\x94\x82 two \xE2\x94\x82");
	T_EQ_STR(line(&v, 4), "\xE2\x94\x82 \xE6\xBC\xA2\xE5\xAD\x97 \xE2\x94\x82   3 \xE2\x94\x82");
	T_OK(v.v[1].flags & SL_NOWRAP);
	T_OK(attr_of(&v, 1, "a") & TA_BOLD);
	slvec_release(&v);
}

T_TEST(links_show_their_address_unless_the_text_is_it)
{
	struct slvec v = render("see [the docs](https://x.org/d) and <https://y.org>\n");

	T_EQ_STR(line(&v, 0), "see the docs (https://x.org/d) and https://y.org");
	T_EQ_INT(role_of(&v, 0, "the docs"), ROLE_LINK);
	T_OK(attr_of(&v, 0, "the docs") & TA_UNDERLINE);
	T_EQ_INT(role_of(&v, 0, "(https"), ROLE_DIM);
	slvec_release(&v);
}

T_TEST(entities_html_and_breaks)
{
	struct slvec v = render("a &amp; b &#x1F600; &#0; &bogus; <b>raw</b>  \nnext\n");

	T_EQ_STR(line(&v, 0), "a & b \xF0\x9F\x98\x80 \xEF\xBF\xBD &bogus; <b>raw</b>");
	T_EQ_STR(line(&v, 1), "next");
	slvec_release(&v);
}

T_TEST(control_and_invalid_bytes_are_shown_safely)
{
	struct slvec v = render("bell\x07 esc\x1b[2J bad\xff\xfe end\n");
	size_t i;

	T_EQ_INT(v.n, 1);
	for (i = 0; i < v.v[0].len; i++)
		T_OK((unsigned char)v.v[0].text[i] >= 0x20);
	T_CONTAINS(line(&v, 0), "\xE2\x90\x87");	/* the bell's control picture */
	T_CONTAINS(line(&v, 0), "\xE2\x90\x9B[2J");
	T_CONTAINS(line(&v, 0), "\xEF\xBF\xBD");
	slvec_release(&v);
}

T_TEST(hostile_nesting_and_sizes)
{
	struct slvec v;
	char *deep = malloc(4001), *wide = malloc(400);
	size_t i;

	for (i = 0; i < 4000; i++)
		deep[i] = i % 2 ? ' ' : '>';
	deep[4000] = '\0';
	v = render(deep);
	slvec_release(&v);
	for (i = 0; i < 399; i++)
		wide[i] = i % 2 ? 'x' : '|';
	wide[399] = '\0';
	memcpy(wide + 390, "|\n|-|-", 6);
	v = render(wide);
	slvec_release(&v);
	v = render("```\nno end\n");
	T_OK(v.n >= 3);
	slvec_release(&v);
	v = render("");
	T_EQ_INT(v.n, 0);
	slvec_release(&v);
	v = render("\r\n\r\n   \n");
	T_EQ_INT(v.n, 0);
	slvec_release(&v);
	free(deep);
	free(wide);
}

static const char *const docs[] = {
	"# Plan\n\nFirst *para* with `code`.\n\n## Steps\n\n1. one\n2. two\n\n   still two\n\n3. three\n\nAfter the list.\n",
	"```c\nint x;\n\nint y;\n```\n\nText after.\n\n~~~~\n```\nnot closed by this\n~~~~\nout\n",
	"> a quote\n\n> another quote\n\n- a\n\n- b\n\n  - c\n\nend\n\n---\nlast\n",
	"| h1 | h2 |\n|----|----|\n| x | y |\n\npara\n\n    indented code\n\n    more code\n\nplain\n",
	"Unicode: \xE6\xBC\xA2\xE5\xAD\x97 e\xCC\x81 \xF0\x9F\x98\x80\n\n* star\n+ plus\n\n10) ten\n11) eleven\n\nfin",
	"no newline at end",
	"line\n\n\n\n\nfar\n\n```\n\n\n```\n\nx\n",
	"Intro text\n```python\nx = 1\n\tindented\n\n\ny\n```\nafter\n- item\n```\nnot in the list\n```\n",
	"> quote\n```sh\nmake\n```\n| a |\n|---|\n| 1 |\n~~~~ c++\ncode ``` inside\n~~~~\n",
	"para\n\n```js extra words\nlet a;\r\nlet b",
	"```{weird}\nx\n```\n```\n\0nul\n",
};

static bool
same(const struct slvec *a, const struct slvec *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!sline_equal(&a->v[i], &b->v[i]))
			return false;
	return true;
}

/* Streaming in pieces of every size gives the whole render, updated or not in between. */
T_TEST(streamed_tail_equals_whole_render)
{
	size_t d, i;
	static const size_t steps[] = { 1, 2, 3, 5, 8, 13, 64, 1000 };

	for (d = 0; d < sizeof docs / sizeof docs[0]; d++) {
		struct slvec whole = render(docs[d]);
		size_t n = strlen(docs[d]);

		for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			struct mdview m;
			size_t off, k = 0;

			mdview_init(&m);
			for (off = 0; off < n; off += steps[i]) {
				mdview_append(&m, docs[d] + off, off + steps[i] > n ? n - off : steps[i]);
				if (++k % 3 == 0)
					mdview_update(&m);
			}
			mdview_update(&m);
			if (!same(&whole, &m.lines))
				T_FAIL("doc %zu in steps of %zu differs from the whole render", d, steps[i]);
			mdview_release(&m);
		}
		slvec_release(&whole);
	}
}

/* Finished blocks are not rendered again: their lines (and wrap caches) stay. */
T_TEST(finished_blocks_keep_their_lines)
{
	struct mdview m;
	const char *a = "First paragraph.\n\nSecond one.\n\n";
	struct sline *first;
	char *text;
	int k;

	mdview_init(&m);
	mdview_append(&m, a, strlen(a));
	mdview_append(&m, "Third", 5);
	T_OK(mdview_update(&m));
	/* "First paragraph." is final; "Second one." waits for the next line to start. */
	T_EQ_INT(m.ncommitted, 1);
	T_OK(m.stable > 0);
	first = &m.lines.v[0];
	T_EQ_INT(sline_rows(first, 5), 3);
	text = first->text;
	for (k = 0; k < 50; k++) {
		mdview_append(&m, " more", 5);
		mdview_update(&m);
	}
	/* Same memory, same cached wrap: the first block was never rebuilt. */
	T_OK(m.lines.v[0].text == text);
	T_EQ_INT(m.lines.v[0].wrap_w, 5);
	T_OK(!mdview_update(&m));
	mdview_release(&m);
}

/* A growing code block is drawn line by line: earlier code lines are not rebuilt. */
T_TEST(open_fence_grows_without_reparsing)
{
	struct mdview m;
	char line[64], *second;
	int k;

	mdview_init(&m);
	mdview_append(&m, "Look:\n```c\n", 12);
	for (k = 0; k < 100; k++) {
		snprintf(line, sizeof line, "int v%d = %d;\n", k, k);
		mdview_append(&m, line, strlen(line));
	}
	mdview_update(&m);
	T_OK(m.fast);
	T_EQ_INT(m.ncommitted, 1);
	second = m.lines.v[m.fast_base + 1].text;
	T_EQ_STR(second, "\xE2\x94\x82 int v1 = 1;   \xE2\x94\x82");
	mdview_append(&m, "int more", 8);
	mdview_update(&m);
	T_OK(m.lines.v[m.fast_base + 1].text == second);
	T_EQ_STR(m.lines.v[m.lines.n - 2].text, "\xE2\x94\x82 int more      \xE2\x94\x82");
	mdview_append(&m, ";\n```\n", 6);
	mdview_update(&m);
	T_OK(!m.fast);
	T_CONTAINS(m.lines.v[m.lines.n - 1].text, "\xE2\x95\xB0");
	mdview_release(&m);
}

/* An open fence holds back the boundary: a blank line inside code is not one. */
T_TEST(no_boundary_inside_an_open_fence)
{
	struct mdview m;
	const char *s = "```\ncode\n\nstill code\n\nmore\n";

	mdview_init(&m);
	mdview_append(&m, s, strlen(s));
	T_EQ_INT(m.stable, 0);
	mdview_append(&m, "```\n\nafter\n", 11);
	mdview_update(&m);
	T_OK(m.stable > 0);
	mdview_release(&m);
}

/* The widest line of v in columns. */
static size_t
widest(const struct slvec *v)
{
	size_t i, w = 0;

	for (i = 0; i < v->n; i++)
		if (sline_width(&v->v[i]) > w)
			w = sline_width(&v->v[i]);
	return w;
}

/* The lines joined, for searching across them. */
static char *
joined(const struct slvec *v)
{
	return slvec_text(v, 0, v->n);
}

T_TEST(wide_table_fits_the_pane)
{
	static const char md[] =
	    "| Module | Owner | Purpose | Status | Notes | Link |\n"
	    "|---|---|---|---|---|---|\n"
	    "| agent/stream.c | core team | decodes the model's answer stream for both providers | stable | linear in blocks since the last release | https://example.com/docs/stream |\n"
	    "| tui/mdview.c | tui | renders Markdown while it streams | changing | tables now fit | https://example.com/docs/mdview |\n";
	static const char quoted[] =
	    "> | a | b | c |\n> |---|---|---|\n> | one two three four five six | seven eight nine ten | x |\n";
	const char *heads[] = { "Module", "Owner", "Purpose", "Status", "Notes", "Link" };
	struct slvec v, nat;
	char *all;
	size_t i;

	slvec_init(&v);
	mdview_render_width(md, strlen(md), 80, &v);
	T_OK(v.n > 6);
	T_OK(widest(&v) <= 80);
	/* Every column is there: its header, and the border between each. */
	for (i = 0; i < 6; i++)
		T_OK(strstr(line(&v, 1), heads[i]) != NULL);
	T_OK(strncmp(line(&v, 0), "\xE2\x94\x8C", 3) == 0);
	T_OK(strstr(line(&v, 0), "\xE2\x94\x90") != NULL);
	/* Cells wrap instead of being cut: every word of the long cell is drawn. */
	all = joined(&v);
	T_OK(strstr(all, "providers") != NULL);
	T_OK(strstr(all, "release") != NULL);
	T_OK(strstr(all, "stable") != NULL);
	free(all);
	/* Narrow columns keep their width: "Owner"'s cells fit a fair share. */
	T_OK(strstr(line(&v, 3), "core team") != NULL || strstr(line(&v, 4), "core team") != NULL);

	/* Without a width the table keeps its natural width (wider than 80). */
	slvec_init(&nat);
	mdview_render(md, strlen(md), &nat);
	T_OK(widest(&nat) > 80);
	slvec_release(&nat);
	slvec_release(&v);

	/* Too narrow for the borders: each column gets one cell, nothing breaks. */
	slvec_init(&v);
	mdview_render_width(md, strlen(md), 10, &v);
	T_OK(v.n > 0);
	slvec_release(&v);

	/* Inside a quote the bars count too. */
	slvec_init(&v);
	mdview_render_width(quoted, strlen(quoted), 30, &v);
	T_OK(widest(&v) <= 30);
	slvec_release(&v);
}

T_TEST(short_delimiter_rows_make_tables)
{
	struct slvec v = render("|a|b|\n|-|-|\n|x|y|\n");
	struct slvec w = render("a | b\n:-|-:\nx | y\n");
	struct slvec c = render("```\n|a|b|\n|-|-|\n```\n");

	T_OK(strncmp(line(&v, 0), "\xE2\x94\x8C", 3) == 0);
	T_OK(strstr(line(&v, 1), "a") != NULL && strstr(line(&v, 1), "\xE2\x94\x82") != NULL);
	T_OK(strncmp(line(&w, 0), "\xE2\x94\x8C", 3) == 0);
	/* In code they stay as written. */
	T_OK(strstr(line(&c, 2), "|-|-|") != NULL);
	slvec_release(&v);
	slvec_release(&w);
	slvec_release(&c);
	/* A lone "-|-" under a line without a pipe is not a table. */
	v = render("title\n-|-\n");
	T_OK(strstr(line(&v, 0), "\xE2\x94\x8C") == NULL);
	slvec_release(&v);
}

T_TEST(reference_links_resolve_when_their_definition_arrives)
{
	static const char md[] = "See [the docs][d] first.\n\nMore text here.\n\n[d]: http://example.org/d\n";
	struct mdview m;
	struct slvec whole;
	size_t off, i;
	char *t;

	mdview_init(&m);
	/* Before the definition the reference is plain text. */
	mdview_append(&m, md, 42);
	mdview_update(&m);
	t = joined(&m.lines);
	T_OK(strstr(t, "[the docs][d]") != NULL);
	free(t);
	for (off = 42; off < sizeof md - 1; off += 3) {
		mdview_append(&m, md + off, off + 3 > sizeof md - 1 ? sizeof md - 1 - off : 3);
		mdview_update(&m);
	}
	t = joined(&m.lines);
	T_OK(strstr(t, "the docs (http://example.org/d)") != NULL);
	T_OK(strstr(t, "[d]") == NULL);
	free(t);
	slvec_init(&whole);
	mdview_render(md, sizeof md - 1, &whole);
	T_EQ_INT(m.lines.n, whole.n);
	for (i = 0; i < whole.n && i < m.lines.n; i++)
		T_OK(sline_equal(&m.lines.v[i], &whole.v[i]));
	slvec_release(&whole);
	mdview_release(&m);

	/* The last line, without its newline, already counts. */
	mdview_init(&m);
	mdview_append(&m, "[x][y]\n\n[y]: /there", 19);
	mdview_update(&m);
	t = joined(&m.lines);
	T_OK(strstr(t, "x (/there)") != NULL);
	free(t);
	mdview_release(&m);
}

T_TEST(nul_bytes_keep_the_rest)
{
	static const char md[] = "para `co\0de` after\nmore \0 text\n\n```\ncode \0 line\n```\n";
	struct slvec v;
	char *t;

	slvec_init(&v);
	mdview_render(md, sizeof md - 1, &v);
	t = joined(&v);
	T_OK(strstr(t, "co\xEF\xBF\xBD" "de after more \xEF\xBF\xBD text") != NULL);
	T_OK(strstr(t, "code \xEF\xBF\xBD line") != NULL);
	free(t);
	slvec_release(&v);
}

T_TEST(html5_entities_decode)
{
	struct slvec v = render("&Aacute; &hearts; &fjlig; &NotNestedGreaterGreater; &CounterClockwiseContourIntegral; &bogus; &amp &#x41;\n");

	T_EQ_STR(line(&v, 0), "\xC3\x81 \xE2\x99\xA5 fj \xE2\xAA\xA2\xCC\xB8 \xE2\x88\xB3 &bogus; &amp A");
	slvec_release(&v);
}

T_TEST(width_change_lays_tables_out_again)
{
	static const char md[] = "| one | two | three |\n|---|---|---|\n| a long cell of words | another long cell | third long cell here |\n\nafter\n\nend";
	struct mdview m;

	mdview_init(&m);
	T_OK(!mdview_set_width(&m, 100));
	mdview_append(&m, md, sizeof md - 1);
	mdview_update(&m);
	T_OK(widest(&m.lines) <= 100);
	T_OK(widest(&m.lines) > 40);
	T_OK(mdview_set_width(&m, 40));
	T_OK(mdview_update(&m));
	T_OK(widest(&m.lines) <= 40);
	T_OK(!mdview_set_width(&m, 40));
	mdview_release(&m);
}

/* A one-line block gets a box as wide as its text, closed on the right, not the pane's width. */
T_TEST(code_frame_is_closed_at_the_block_width)
{
	struct slvec v;

	slvec_init(&v);
	mdview_render_width("```\nx\n```\n", 10, 80, &v);
	T_EQ_INT(v.n, 3);
	T_EQ_STR(line(&v, 0), "\xE2\x95\xAD\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x95\xAE");
	T_EQ_STR(line(&v, 1), "\xE2\x94\x82 x \xE2\x94\x82");
	T_EQ_STR(line(&v, 2), "\xE2\x95\xB0\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\xE2\x95\xAF");
	T_OK(!(v.v[0].flags & SL_FILL));
	T_OK(!(v.v[2].flags & SL_FILL));
	T_EQ_INT(role_of(&v, 1, " \xE2\x94\x82"), ROLE_CODE_FRAME);
	slvec_release(&v);
	/* Its label widens it; the edges stay in one column. */
	slvec_init(&v);
	mdview_render_width("```python\nx\n```\n", 16, 80, &v);
	T_EQ_INT(sline_width(&v.v[0]), sline_width(&v.v[1]));
	T_EQ_INT(sline_width(&v.v[1]), sline_width(&v.v[2]));
	slvec_release(&v);
}

/* A block wider than the pane keeps the open frame (to the edge) and wraps its lines. */
T_TEST(code_frame_wider_than_the_pane_is_open)
{
	struct slvec v;
	const char *md = "```\nabcdefghijklmnopqrstuvwxyz\n```\n";

	slvec_init(&v);
	mdview_render_width(md, strlen(md), 20, &v);
	T_OK(v.v[0].flags & SL_FILL);
	T_EQ_STR(line(&v, 1), "\xE2\x94\x82 abcdefghijklmnopqrstuvwxyz");
	T_OK(v.v[2].flags & SL_FILL);
	slvec_release(&v);
}

/* A code block is highlighted by the syntax its tag names, read from a nanorc. */
T_TEST(code_block_is_highlighted_by_its_tag)
{
	char dir[] = "/tmp/test_tui_md.XXXXXX", path[256];
	struct slvec v;
	const char *md = "```tiny\nint x = \"s\"; /* a\nb */ int\n```\n";
	FILE *f;

	T_OK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/tiny.nanorc", dir);
	T_OK((f = fopen(path, "w")) != NULL);
	fputs("syntax tiny \"\\.tiny$\"\n"
	    "color green \"\\<(int|char)\\>\"\n"
	    "color brightyellow \"\"[^\"]*\"\"\n"
	    "color blue start=\"/\\*\" end=\"\\*/\"\n"
	    "header \"^#!.*tinyrun\"\n", f);
	fclose(f);
	synhl_configure(NULL, dir);
	v = render(md);
	T_EQ_INT(role_of(&v, 1, "int"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role_of(&v, 1, "\"s\""), ROLE_SYNTAX_YELLOW);
	T_EQ_INT(role_of(&v, 1, "x ="), ROLE_CODE);
	T_EQ_INT(role_of(&v, 1, "/* a"), ROLE_SYNTAX_BLUE);
	/* The comment goes on into the next line, and ends there. */
	T_EQ_INT(role_of(&v, 2, "b */"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(role_of(&v, 2, " int"), ROLE_CODE);
	T_EQ_INT(role_of(&v, 2, "int"), ROLE_SYNTAX_GREEN);
	slvec_release(&v);
	/* Without a tag, the syntax whose header the first line matches. */
	v = render("```\n#!/usr/bin/tinyrun\nint y;\n```\n");
	T_EQ_INT(role_of(&v, 2, "int"), ROLE_SYNTAX_GREEN);
	slvec_release(&v);
	/* Streamed in pieces (the open block drawn line by line), the same as whole. */
	{
		static const char *const streamed[] = {
			"```tiny\nint x = \"s\"; /* a\nb */ int\nchar wider line here\n```\n",
			"```\n#!/usr/bin/tinyrun\nint y; /* c\n*/\n",
		};
		size_t d, i, off;

		for (d = 0; d < 2; d++)
			for (i = 1; i <= 7; i += 3) {
				struct slvec whole = render(streamed[d]);
				struct mdview m;
				size_t n = strlen(streamed[d]);

				mdview_init(&m);
				for (off = 0; off < n; off += i) {
					mdview_append(&m, streamed[d] + off, off + i > n ? n - off : i);
					mdview_update(&m);
				}
				if (!same(&whole, &m.lines))
					T_FAIL("highlighted doc %zu in steps of %zu differs from the whole render", d, i);
				mdview_release(&m);
				slvec_release(&whole);
			}
	}
	/* An unknown tag: plain, no error. */
	v = render("```nosuch\nint x;\n```\n");
	T_EQ_INT(role_of(&v, 1, "int"), ROLE_CODE);
	slvec_release(&v);
	/* No syntax files at all: plain. */
	synhl_configure(NULL, NULL);
	v = render(md);
	T_EQ_INT(role_of(&v, 1, "int"), ROLE_CODE);
	slvec_release(&v);
	remove(path);
	rmdir(dir);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	/* Plain code unless a test names its syntax files: the system's may differ. */
	synhl_configure(NULL, NULL);
	T_RUN(heading_and_emphasis);
	T_RUN(fenced_code_is_framed_with_language);
	T_RUN(lists_nested_and_ordered);
	T_RUN(loose_list_items_are_separated);
	T_RUN(quote_keeps_its_bar_when_wrapped);
	T_RUN(table_with_alignment_and_wide_chars);
	T_RUN(links_show_their_address_unless_the_text_is_it);
	T_RUN(entities_html_and_breaks);
	T_RUN(control_and_invalid_bytes_are_shown_safely);
	T_RUN(hostile_nesting_and_sizes);
	T_RUN(streamed_tail_equals_whole_render);
	T_RUN(finished_blocks_keep_their_lines);
	T_RUN(open_fence_grows_without_reparsing);
	T_RUN(no_boundary_inside_an_open_fence);
	T_RUN(wide_table_fits_the_pane);
	T_RUN(short_delimiter_rows_make_tables);
	T_RUN(reference_links_resolve_when_their_definition_arrives);
	T_RUN(nul_bytes_keep_the_rest);
	T_RUN(html5_entities_decode);
	T_RUN(width_change_lays_tables_out_again);
	T_RUN(code_frame_is_closed_at_the_block_width);
	T_RUN(code_frame_wider_than_the_pane_is_open);
	T_RUN(code_block_is_highlighted_by_its_tag);
	synhl_shutdown();
	return t_done();
}
