/* Tests for tui/editor.c: editing, cursor, history, search, completion, layout. */
#include "autoconf.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "editor.h"
#include "t.h"

static void
type(struct editor *e, const char *s)
{
	ed_insert(e, s, strlen(s));
}

T_TEST(insert_and_delete_utf8)
{
	struct editor e;

	ed_init(&e);
	type(&e, "h\xC3\xA9llo");
	T_EQ_STR(ed_text(&e), "h\xC3\xA9llo");
	T_EQ_INT(e.cur, 6);
	ed_left(&e);
	ed_left(&e);
	ed_left(&e);
	T_EQ_INT(e.cur, 3);
	ed_left(&e);
	T_EQ_INT(e.cur, 1);
	T_OK(ed_delete(&e));
	T_EQ_STR(ed_text(&e), "hllo");
	ed_end(&e);
	T_OK(ed_backspace(&e));
	T_EQ_STR(ed_text(&e), "hll");
	ed_home(&e);
	T_OK(!ed_backspace(&e));
	ed_end(&e);
	T_OK(!ed_delete(&e));
	ed_release(&e);
}

T_TEST(combining_marks_move_with_their_letter)
{
	struct editor e;

	ed_init(&e);
	type(&e, "ae\xCC\x81z");
	ed_left(&e);
	T_EQ_INT(e.cur, 4);
	ed_left(&e);
	T_EQ_INT(e.cur, 1);	/* before "e" + U+0301, not between them */
	ed_right(&e);
	T_EQ_INT(e.cur, 4);
	ed_backspace(&e);
	T_EQ_STR(ed_text(&e), "az");
	ed_release(&e);
}

T_TEST(controls_are_dropped_and_newlines_normalized)
{
	struct editor e;

	ed_init(&e);
	ed_insert(&e, "a\r\nb\rc\x1b[31m\x07\x7f\td\xff", 17);
	T_EQ_STR(ed_text(&e), "a\nb\nc[31m\td\xEF\xBF\xBD");
	ed_release(&e);
}

T_TEST(lines_up_down_keep_the_column)
{
	struct editor e;

	ed_init(&e);
	type(&e, "first line\nab\nthird line");
	T_OK(ed_up(&e));
	T_EQ_INT(e.cur, strlen("first line\nab"));
	T_OK(ed_up(&e));
	T_EQ_INT(e.cur, strlen("first line"));
	T_OK(!ed_up(&e));
	T_OK(ed_down(&e));
	T_OK(ed_down(&e));
	T_EQ_INT(e.cur, strlen("first line\nab\nthird line"));
	T_OK(!ed_down(&e));
	ed_release(&e);
}

T_TEST(kill_and_words)
{
	struct editor e;

	ed_init(&e);
	type(&e, "one two  three");
	ed_kill_word(&e);
	T_EQ_STR(ed_text(&e), "one two  ");
	ed_word_left(&e);
	T_EQ_INT(e.cur, 4);
	ed_kill_to_end(&e);
	T_EQ_STR(ed_text(&e), "one ");
	ed_kill_to_start(&e);
	T_EQ_STR(ed_text(&e), "");
	type(&e, "a\nb");
	ed_home(&e);
	ed_left(&e);
	ed_kill_to_end(&e);
	T_EQ_STR(ed_text(&e), "ab");
	ed_word_right(&e);
	T_EQ_INT(e.cur, 2);
	ed_release(&e);
}

T_TEST(history_walks_and_keeps_the_draft)
{
	struct editor e;
	char *s;

	ed_init(&e);
	type(&e, "first");
	s = ed_take(&e);
	T_EQ_STR(s, "first");
	free(s);
	type(&e, "second");
	free(ed_take(&e));
	type(&e, "second");
	free(ed_take(&e));
	T_EQ_INT(e.nhist, 2);
	type(&e, "draft");
	T_OK(ed_history_prev(&e));
	T_EQ_STR(ed_text(&e), "second");
	T_OK(ed_history_prev(&e));
	T_EQ_STR(ed_text(&e), "first");
	T_OK(!ed_history_prev(&e));
	T_OK(ed_history_next(&e));
	T_OK(ed_history_next(&e));
	T_EQ_STR(ed_text(&e), "draft");
	T_OK(!ed_history_next(&e));
	free(ed_take(&e));
	T_EQ_INT(e.nhist, 3);
	ed_release(&e);
}

T_TEST(history_search)
{
	struct editor e;
	const char *hist[] = { "make check", "git status", "make bench", "ls" };
	size_t i;

	ed_init(&e);
	for (i = 0; i < 4; i++)
		ed_history_add(&e, hist[i]);
	type(&e, "typed");
	ed_search_start(&e);
	ed_search_type(&e, "make", 4);
	T_EQ_STR(ed_search_match(&e), "make bench");
	ed_search_next(&e);
	T_EQ_STR(ed_search_match(&e), "make check");
	ed_search_next(&e);
	T_EQ_STR(ed_search_match(&e), "make check");
	ed_search_type(&e, "x", 1);
	T_OK(ed_search_match(&e) == NULL);
	ed_search_erase(&e);
	T_EQ_STR(ed_search_match(&e), "make bench");
	ed_search_end(&e, false);
	T_EQ_STR(ed_text(&e), "typed");
	ed_search_start(&e);
	ed_search_type(&e, "stat", 4);
	ed_search_end(&e, true);
	T_EQ_STR(ed_text(&e), "git status");
	ed_release(&e);
}

T_TEST(completion_of_slash_commands)
{
	static const char *const names[] = { "/help", "/clear", "/compact", "/context", "/cost" };
	struct editor e;
	struct buf hint = BUF_INIT(1024);

	ed_init(&e);
	type(&e, "/h");
	T_EQ_INT(ed_complete(&e, names, 5, &hint), 1);
	T_EQ_STR(ed_text(&e), "/help ");
	ed_clear(&e);
	buf_reset(&hint);
	type(&e, "/co");
	T_EQ_INT(ed_complete(&e, names, 5, &hint), 3);
	T_EQ_STR(ed_text(&e), "/co");
	T_EQ_STR(buf_cstr(&hint), "/compact /context /cost");
	ed_clear(&e);
	type(&e, "/con");
	T_EQ_INT(ed_complete(&e, names, 5, NULL), 1);
	T_EQ_STR(ed_text(&e), "/context ");
	ed_clear(&e);
	type(&e, "/c");
	T_EQ_INT(ed_complete(&e, names, 5, NULL), 4);
	T_EQ_STR(ed_text(&e), "/c");
	ed_clear(&e);
	type(&e, "plain");
	T_EQ_INT(ed_complete(&e, names, 5, NULL), 0);
	ed_clear(&e);
	type(&e, "/help me");
	T_EQ_INT(ed_complete(&e, names, 5, NULL), 0);
	buf_release(&hint);
	ed_release(&e);
}

T_TEST(layout_wraps_and_places_the_cursor)
{
	struct editor e;
	struct ed_layout lo;

	memset(&lo, 0, sizeof lo);
	ed_init(&e);
	ed_layout(&e, 20, 2, &lo);
	T_EQ_INT(lo.nrows, 1);
	T_EQ_INT(lo.cur_row, 0);
	T_EQ_INT(lo.cur_col, 2);
	/* 20 columns, 2 of prompt, 1 kept for the cursor: 17 a row. */
	type(&e, "abcdefghijklmnopqrstuvwxyz\nend");
	ed_layout(&e, 20, 2, &lo);
	T_EQ_INT(lo.nrows, 3);
	T_EQ_INT(lo.rows[1].start, 17);
	T_EQ_INT(lo.line_of[2], 1);
	T_EQ_INT(lo.cur_row, 2);
	T_EQ_INT(lo.cur_col, 5);
	ed_home(&e);
	ed_up(&e);
	ed_layout(&e, 20, 2, &lo);
	T_EQ_INT(lo.cur_row, 0);
	T_EQ_INT(lo.cur_col, 2);
	ed_clear(&e);
	type(&e, "\xE6\xBC\xA2\xE5\xAD\x97");
	ed_layout(&e, 20, 2, &lo);
	T_EQ_INT(lo.cur_col, 6);
	ed_layout_release(&lo);
	ed_release(&e);
}

T_TEST(a_paste_past_the_limit_keeps_what_fits)
{
	struct editor e;
	size_t n = 5 * 1024 * 1024;
	char *big = malloc(n);

	memset(big, 'x', n);
	big[n - 1] = '\xE2';
	ed_init(&e);
	ed_insert(&e, big, n);
	T_OK(e.text.len > 0);
	T_OK(e.text.len < n);
	T_EQ_INT(e.cur, e.text.len);
	type(&e, "more");
	T_OK(e.text.len < n);
	ed_release(&e);
	free(big);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	T_RUN(insert_and_delete_utf8);
	T_RUN(combining_marks_move_with_their_letter);
	T_RUN(controls_are_dropped_and_newlines_normalized);
	T_RUN(lines_up_down_keep_the_column);
	T_RUN(kill_and_words);
	T_RUN(history_walks_and_keeps_the_draft);
	T_RUN(history_search);
	T_RUN(completion_of_slash_commands);
	T_RUN(layout_wraps_and_places_the_cursor);
	T_RUN(a_paste_past_the_limit_keeps_what_fits);
	return t_done();
}
