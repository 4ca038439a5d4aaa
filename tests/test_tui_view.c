/*
 * Tests for the TUI's models: the transcript view (visible-only painting,
 * scrolling, search), the tools pane's states, the status bar and the layout.
 */
#include "autoconf.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "layout.h"
#include "status.h"
#include "t.h"
#include "theme.h"
#include "toolshow.h"
#include "toolview.h"
#include "transcript.h"

struct rows {
	int	 n;
	char	 text[64][128];
	bool	 sel[64];
};

static void
collect(void *arg, int y, struct sline *l, uint32_t row, bool selected)
{
	struct rows *r = arg;

	/* The row as painted: the prefix (or the continuation), then the text. */
	if (y < 64) {
		snprintf(r->text[y], sizeof r->text[y], "%.*s%.*s",
		    row == 0 ? (int)l->body : l->cont ? (int)strlen(l->cont) : 0,
		    row == 0 ? (l->text ? l->text : "") : l->cont ? l->cont : "",
		    (int)(l->rows[row].end - l->rows[row].start), l->text ? l->text + l->rows[row].start : "");
		r->sel[y] = selected;
	}
	r->n++;
}

static struct transcript *
long_session(int turns)
{
	struct transcript *tr = tr_new();
	char buf[128];
	int i;

	for (i = 1; i <= turns; i++) {
		snprintf(buf, sizeof buf, "prompt %d", i);
		tr_prompt(tr, i, buf);
		snprintf(buf, sizeof buf, "Answer number %d with some words.\n", i);
		tr_text(tr, i, buf, strlen(buf));
		tr_end_block(tr);
	}
	return tr;
}

T_TEST(follows_the_end_and_paints_only_what_is_visible)
{
	struct transcript *tr = long_session(2000);
	struct rows r;

	tr_set_size(tr, 40, 5);
	memset(&r, 0, sizeof r);
	T_EQ_INT(tr_paint(tr, collect, &r), 5);
	T_EQ_INT(r.n, 5);
	T_OK(tr_following(tr));
	T_EQ_STR(r.text[4], "Answer number 2000 with some words.");
	T_EQ_STR(r.text[2], "\xE2\x80\xBA prompt 2000");
	tr_free(tr);
}

T_TEST(scrolling_up_and_back_down)
{
	struct transcript *tr = long_session(50);
	struct rows r;

	tr_set_size(tr, 40, 4);
	tr_scroll(tr, -4);
	T_OK(!tr_following(tr));
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "");
	T_EQ_STR(r.text[1], "\xE2\x80\xBA prompt 49");
	/* New text does not move a scrolled view. */
	tr_text(tr, 99, "new\n", 4);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[1], "\xE2\x80\xBA prompt 49");
	tr_scroll(tr, 100);
	T_OK(tr_following(tr));
	tr_top(tr);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "\xE2\x80\xBA prompt 1");
	tr_scroll(tr, -10);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "\xE2\x80\xBA prompt 1");
	tr_bottom(tr);
	T_OK(tr_following(tr));
	tr_free(tr);
}

T_TEST(wrapped_rows_scroll_one_at_a_time)
{
	struct transcript *tr = tr_new();
	struct rows r;

	tr_text(tr, 1, "aaaa bbbb cccc dddd eeee\n", 25);
	tr_set_size(tr, 4, 2);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "dddd");
	T_EQ_STR(r.text[1], "eeee");
	tr_scroll(tr, -1);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "cccc");
	T_EQ_STR(r.text[1], "dddd");
	/* A narrower pane wraps the same logical line again. */
	tr_set_size(tr, 9, 2);
	tr_bottom(tr);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "cccc dddd");
	tr_free(tr);
}

T_TEST(search_moves_the_view_to_matches)
{
	struct transcript *tr = long_session(30);
	struct rows r;

	/* Tall enough for two rows of context above a match. */
	tr_set_size(tr, 40, 8);
	T_EQ_INT(tr_search(tr, "NUMBER 7 ", true), 0);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[2], "Answer number 7 with some words.");
	T_EQ_INT(tr_search(tr, "number 7 ", true), -1);
	T_EQ_INT(tr_search(tr, "prompt 2", true), 0);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[2], "\xE2\x80\xBA prompt 2");
	T_EQ_INT(tr_search(tr, "prompt 29", false), 0);
	T_EQ_INT(tr_search(tr, "", true), -1);
	T_EQ_STR(tr_query(tr), "prompt 29");
	tr_search_clear(tr);
	T_OK(tr_query(tr) == NULL);
	tr_free(tr);
}

T_TEST(tool_items_are_compact_until_expanded)
{
	struct transcript *tr = tr_new();
	struct rows r;

	tr_tool_use(tr, 1, "t1", "read_file", "src/a.c");
	tr_tool_result(tr, "t1", false, "one\ntwo\nthree");
	tr_tool_use(tr, 1, "t2", "run_bash", "rm -rf /");
	tr_tool_denied(tr, "t2", "no way");
	tr_tool_denied(tr, "t2", NULL);
	tr_tool_result(tr, "nope", false, "ignored");
	tr_set_size(tr, 60, 10);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_INT(r.n, 4);
	T_EQ_STR(r.text[0], "\xE2\x97\x8F read_file src/a.c");
	T_EQ_STR(r.text[1], "  \xE2\x94\x94 one \xE2\x80\xA6 +2 lines (Ctrl+O to expand)");
	T_EQ_STR(r.text[3], "  \xE2\x94\x94 denied: no way");
	tr_select(tr, -1);
	T_OK(tr_toggle_selected(tr));
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_INT(r.n, 7);
	T_OK(r.sel[0]);
	T_EQ_STR(r.text[3], "    three");
	T_EQ_STR(r.text[4], "    (Ctrl+O to collapse)");
	tr_expand_all(tr, false);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_INT(r.n, 4);
	tr_free(tr);
}

T_TEST(thinking_is_collapsed)
{
	struct transcript *tr = tr_new();
	struct rows r;

	tr_thinking(tr, 1, "one two ", 8);
	tr_thinking(tr, 1, "three", 5);
	tr_set_size(tr, 60, 10);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_INT(r.n, 1);
	T_EQ_STR(r.text[0], "\xE2\x88\xB4 thinking (3 words)");
	tr_expand_all(tr, true);
	memset(&r, 0, sizeof r);
	tr_paint(tr, collect, &r);
	T_EQ_STR(r.text[0], "\xE2\x88\xB4 one two three");
	tr_free(tr);
}

T_TEST(toolview_states)
{
	struct toolview tv;
	cJSON *in = cJSON_Parse("{\"command\":\"make check\\nand more\"}");
	struct tv_entry *e;
	const char *lines[3];
	size_t lens[3];

	tv_init(&tv);
	tv_use(&tv, "a", "run_bash", in, 1);
	e = tv_find(&tv, "a");
	T_EQ_STR(e->summary, "make check");
	T_EQ_INT(e->state, TV_QUEUED);
	tv_waiting(&tv, "a");
	T_EQ_INT(e->state, TV_WAITING);
	tv_decided(&tv, "a", "allow", 1000);
	T_EQ_INT(e->state, TV_RUNNING);
	T_OK(tv_any_running(&tv));
	tv_progress(&tv, "a", "one\ntwo\n50%\r75%\rdone\nlast", strlen("one\ntwo\n50%\r75%\rdone\nlast"), 1100);
	T_EQ_INT(tv_tail(e, 3, lines, lens), 3);
	T_EQ_INT(lens[1], 4);
	T_OK(strncmp(lines[1], "done", 4) == 0);
	T_OK(strncmp(lines[2], "last", 4) == 0);
	tv_result(&tv, "a", false, -1, 3000);
	T_EQ_INT(e->state, TV_DONE);
	T_EQ_INT(e->duration, 2000);
	T_OK(!tv_any_running(&tv));
	tv_use(&tv, "b", "edit_file", NULL, 1);
	tv_decided(&tv, "b", "deny", 0);
	tv_result(&tv, "b", true, 5, 0);
	T_EQ_INT(tv_find(&tv, "b")->state, TV_DENIED);
	tv_use(&tv, "c", "grep", NULL, 1);
	tv_result(&tv, "c", true, 7, 0);
	/* Allowed by the mode or a rule: no waiting, it runs from the decision on. */
	tv_use(&tv, "d", "run_bash", NULL, 1);
	tv_decided(&tv, "d", "allow", 4000);
	T_EQ_INT(tv_find(&tv, "d")->state, TV_RUNNING);
	T_EQ_INT(tv_find(&tv, "d")->started, 4000);
	tv_result(&tv, "d", false, -1, 4500);
	tv_decided(&tv, "d", "allow", 5000);
	T_EQ_INT(tv_find(&tv, "d")->state, TV_DONE);
	T_EQ_INT(tv_find(&tv, "c")->state, TV_FAILED);
	T_OK(tv_find(&tv, "zz") == NULL);
	tv_progress(&tv, "zz", "x", 1, 0);
	tv_release(&tv);
	cJSON_Delete(in);
}

/* Paint tr at 70 columns into r. */
static void
paint_all(struct transcript *tr, struct rows *r)
{
	tr_set_size(tr, 70, 40);
	memset(r, 0, sizeof *r);
	tr_paint(tr, collect, r);
}

T_TEST(a_command_shows_its_first_and_last_lines)
{
	struct transcript *tr = tr_new();
	struct rows r;

	tr_tool_use(tr, 1, "b", "run_bash", "make");
	tr_tool_result(tr, "b", false, "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8");
	paint_all(tr, &r);
	T_EQ_INT(r.n, 7);
	T_EQ_STR(r.text[1], "  \xE2\x94\x94 l1");
	T_EQ_STR(r.text[3], "    l3");
	T_EQ_STR(r.text[4], "    \xE2\x80\xA6 3 more lines (Ctrl+O to expand)");
	T_EQ_STR(r.text[5], "    l7");
	T_EQ_STR(r.text[6], "    l8");
	tr_expand_all(tr, true);
	paint_all(tr, &r);
	T_EQ_INT(r.n, 10);
	T_EQ_STR(r.text[9], "    (Ctrl+O to collapse)");
	tr_free(tr);
}

T_TEST(an_edit_shows_its_hunk_folded_past_eight_lines)
{
	struct transcript *tr = tr_new();
	cJSON *in = cJSON_Parse("{\"path\":\"a.c\",\"old_string\":\"x\\ny\",\"new_string\":\"X\\nY\\nZ\"}");
	cJSON *big = cJSON_Parse("{\"path\":\"n.txt\",\"content\":\"1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11\\n\"}");
	struct rows r;

	tr_tool_use(tr, 1, "e", "edit_file", "a.c");
	tr_tool_input(tr, "e", in);
	tr_tool_result(tr, "e", false, "edited a.c: 1 replacement at line 6 (+3 -2)");
	paint_all(tr, &r);
	T_EQ_INT(r.n, 7);
	T_EQ_STR(r.text[2], "    6   - x");
	T_EQ_STR(r.text[4], "      6 + X");
	T_EQ_STR(r.text[6], "      8 + Z");
	tr_tool_use(tr, 1, "w", "write_file", "n.txt");
	tr_tool_input(tr, "w", big);
	tr_tool_result(tr, "w", false, "created n.txt (11 lines)");
	paint_all(tr, &r);
	T_EQ_STR(r.text[r.n - 1], "    \xE2\x80\xA6 3 more lines (Ctrl+O to expand)");
	T_EQ_STR(r.text[r.n - 2], "        8 + 8");
	tr_select(tr, -1);
	T_OK(tr_toggle_selected(tr));
	paint_all(tr, &r);
	T_EQ_STR(r.text[r.n - 2], "       11 + 11");
	T_EQ_STR(r.text[r.n - 1], "    (Ctrl+O to collapse)");
	/* A failed edit shows its error, not a hunk. */
	tr_tool_use(tr, 1, "f", "edit_file", "a.c");
	tr_tool_input(tr, "f", in);
	tr_tool_diff(tr, "f", "--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-x\n+X\n");
	tr_tool_result(tr, "f", true, "old_string was not found in a.c.");
	paint_all(tr, &r);
	T_EQ_STR(r.text[r.n - 1], "  \xE2\x94\x94 old_string was not found in a.c.");
	cJSON_Delete(in);
	cJSON_Delete(big);
	tr_free(tr);
}

T_TEST(a_codex_patch_is_named_and_shown)
{
	const char *patch = "*** Begin Patch\n*** Update File: src/a.c\n@@ int f\n-old\n+new\n"
	    "*** Add File: b.txt\n+hi\n*** Delete File: c.c\n*** Update File: d.c\n@@\n ctx\n-q\n*** End Patch\n";
	cJSON *in = cJSON_CreateObject();
	char *s, found[32];
	struct transcript *tr = tr_new();
	struct rows r;

	s = ts_patch_files(patch);
	T_EQ_STR(s, "src/a.c, b.txt, c.c and 1 more");
	free(s);
	s = ts_patch_files("--- a/x.c\n+++ /dev/null\n");
	T_EQ_STR(s, "x.c");
	free(s);
	cJSON_AddStringToObject(in, "patch", patch);
	tr_tool_use(tr, 1, "p", "apply_patch", "src/a.c, b.txt, c.c and 1 more");
	tr_tool_input(tr, "p", in);
	tr_tool_result(tr, "p", false, "applied");
	paint_all(tr, &r);
	T_EQ_STR(r.text[0], "\xE2\x97\x8F apply_patch src/a.c, b.txt, c.c and 1 more");
	T_EQ_STR(r.text[2], "    +++ b/src/a.c");
	T_EQ_STR(r.text[3], "        - old");
	T_EQ_STR(r.text[4], "        + new");
	ts_found("grep", "content", "a.c:1:x\nb.c:2:y\n[stopped at max_results=2 lines]\n", found, sizeof found);
	T_EQ_STR(found, "2 lines");
	ts_found("glob", NULL, "No files match *.z in .", found, sizeof found);
	T_EQ_STR(found, "no matches");
	/* an edit's language-server errors (agent/lsp), summed over its files */
	ts_found("apply_patch", NULL, "applied\n\nclangd: 2 new errors in a.c since it was read:\n"
	    "  a.c:1:1: x\n  a.c:2:1: y\n\nclangd: 1 new error in b.c since it was read:\n  b.c:3:1: z",
	    found, sizeof found);
	T_EQ_STR(found, "3 new errors");
	ts_found("edit_file", NULL, "edited a.c: 1 replacement at line 6 (+1 -1)", found, sizeof found);
	T_EQ_STR(found, "");
	ts_found("edit_file", NULL, "edited a.c: 1 replacement at line 6 (+1 -1)\n\n"
	    "[clangd: no diagnostics for a.c: its language server is still starting]", found, sizeof found);
	T_EQ_STR(found, "");
	s = ts_mcp_name("mcp__every__echo", NULL);
	T_EQ_STR(s, "every:echo (MCP)");
	free(s);
	T_OK(ts_mcp_name("read_file", NULL) == NULL);
	cJSON_Delete(in);
	tr_free(tr);
}

T_TEST(tool_summaries)
{
	cJSON *p = cJSON_Parse("{\"patch\":\"--- a/x.c\\n+++ b/x.c\\n@@\\n--- a/y\\n+++ b/y.c\\n\"}");
	cJSON *o = cJSON_Parse("{\"n\":1,\"what\":\"else\"}");
	char *s;

	s = tv_summary("apply_patch", p);
	T_EQ_STR(s, "x.c, y.c");
	free(s);
	s = tv_summary("mystery", o);
	T_EQ_STR(s, "else");
	free(s);
	s = tv_summary("read_file", o);
	T_EQ_STR(s, "else");
	free(s);
	cJSON_AddNumberToObject(o, "offset", 10);
	cJSON_AddNumberToObject(o, "limit", 40);
	cJSON_AddStringToObject(o, "path", "src/a.c");
	s = tv_summary("read_file", o);
	T_EQ_STR(s, "src/a.c:10-49");
	free(s);
	s = tv_summary("read_file", NULL);
	T_EQ_STR(s, "");
	free(s);
	cJSON_Delete(p);
	cJSON_Delete(o);
}

T_TEST(status_fields_and_narrowing)
{
	struct status st;
	struct sline l;
	cJSON *ev;
	char n[16];

	st_init(&st);
	ev = cJSON_Parse("{\"type\":\"session\",\"model\":\"claude-sonnet-4-5\"}");
	T_OK(st_event(&st, ev, 0));
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"context\",\"tokens\":41000,\"window\":200000,\"stage\":\"micro\"}");
	st_event(&st, ev, 0);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"usage\",\"input_tokens\":1200,\"output_tokens\":350,"
	    "\"cache_read_input_tokens\":38000,\"cache_creation_input_tokens\":2000,\"cost_usd\":0.031}");
	st_event(&st, ev, 0);
	st_event(&st, ev, 0);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"cache_break\",\"dropped_tokens\":36000,\"causes\":[\"tools_changed\",7]}");
	st_event(&st, ev, 0);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"retry\",\"attempt\":2,\"delay_ms\":3500,\"reason\":\"overloaded\"}");
	st_event(&st, ev, 1000);
	cJSON_Delete(ev);
	T_EQ_INT(st.total.out, 700);
	sline_init(&l);
	st_format(&st, 400, 1000, &l);
	T_CONTAINS(l.text, "sonnet-4-5");
	T_CONTAINS(l.text, "ctx 41k/200k 20%");
	T_CONTAINS(l.text, "\xE2\x86\x91" "1.2k \xE2\x86\x93" "350 \xE2\x9F\xB2" "38k \xE2\x9C\x8E" "2.0k");
	T_CONTAINS(l.text, "$0.06");
	T_CONTAINS(l.text, "micro");
	T_CONTAINS(l.text, "retry 2 in 4s: overloaded");
	T_CONTAINS(l.text, "cache break: tools_changed \xE2\x88\x92" "36k");
	sline_release(&l);
	/* Narrow: the least important go first; the model, context and mode stay. */
	sline_init(&l);
	st_format(&st, 60, 3000, &l);
	T_CONTAINS(l.text, "sonnet-4-5");
	T_CONTAINS(l.text, "ctx 41k");
	T_CONTAINS(l.text, "ask");
	T_OK(strstr(l.text, "\xCE\xA3") == NULL);
	T_OK(sline_width(&l) <= 60);
	sline_release(&l);
	st_tokens(999, n, sizeof n);
	T_EQ_STR(n, "999");
	st_tokens(2500000, n, sizeof n);
	T_EQ_STR(n, "2.5M");
	st_tokens(-5, n, sizeof n);
	T_EQ_STR(n, "0");
}

static void
check_rects(const struct rect *r, int rows, int cols)
{
	int i;

	for (i = 0; i < PANE_COUNT; i++) {
		if (r[i].h == 0)
			continue;
		T_OK(r[i].y >= 0 && r[i].x >= 0 && r[i].w > 0);
		T_OK(r[i].y + r[i].h <= rows);
		T_OK(r[i].x + r[i].w <= cols);
	}
}

T_TEST(layout_narrow_wide_zoom_and_tiny)
{
	struct layout_req q = { 24, 80, 2, 0, 0, 0, -1, 0 };
	struct rect r[PANE_COUNT];

	layout_compute(&q, r);
	check_rects(r, 24, 80);
	T_EQ_INT(r[PANE_STATUS].y, 23);
	T_EQ_INT(r[PANE_INPUT].h, 2);
	T_EQ_INT(r[PANE_TRANSCRIPT].h, 21);
	T_EQ_INT(r[PANE_TOOLS].h, 0);
	T_EQ_INT(r[PANE_DIFF].h, 0);
	q.tool_rows = 4;
	q.diff_rows = 30;
	q.approval_rows = 2;
	layout_compute(&q, r);
	check_rects(r, 24, 80);
	T_OK(r[PANE_TRANSCRIPT].h >= 3);
	T_OK(r[PANE_DIFF].h >= 3);
	T_EQ_INT(r[PANE_APPROVAL].h, 2);
	T_EQ_INT(r[PANE_TOOLS].y, r[PANE_TRANSCRIPT].h);
	q.rows = 50;
	q.cols = 200;
	layout_compute(&q, r);
	check_rects(r, 50, 200);
	T_EQ_INT(r[PANE_TRANSCRIPT].x, 0);
	T_EQ_INT(r[PANE_TOOLS].x, r[PANE_TRANSCRIPT].w);
	T_EQ_INT(r[PANE_DIFF].x, r[PANE_TOOLS].x);
	T_EQ_INT(r[PANE_TRANSCRIPT].w + r[PANE_TOOLS].w, 200);
	q.zoom = PANE_DIFF;
	layout_compute(&q, r);
	T_EQ_INT(r[PANE_DIFF].w, 200);
	T_EQ_INT(r[PANE_TRANSCRIPT].h, 0);
	q.zoom = -1;
	q.rows = 3;
	q.cols = 10;
	q.input_rows = 40;
	layout_compute(&q, r);
	check_rects(r, 3, 10);
	q.rows = 1;
	layout_compute(&q, r);
	check_rects(r, 1, 10);
	T_OK(!layout_wide(139));
	T_OK(layout_wide(140));
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	T_RUN(follows_the_end_and_paints_only_what_is_visible);
	T_RUN(scrolling_up_and_back_down);
	T_RUN(wrapped_rows_scroll_one_at_a_time);
	T_RUN(search_moves_the_view_to_matches);
	T_RUN(tool_items_are_compact_until_expanded);
	T_RUN(a_command_shows_its_first_and_last_lines);
	T_RUN(an_edit_shows_its_hunk_folded_past_eight_lines);
	T_RUN(a_codex_patch_is_named_and_shown);
	T_RUN(thinking_is_collapsed);
	T_RUN(toolview_states);
	T_RUN(tool_summaries);
	T_RUN(status_fields_and_narrowing);
	T_RUN(layout_narrow_wide_zoom_and_tiny);
	return t_done();
}
