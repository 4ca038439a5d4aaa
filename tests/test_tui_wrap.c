/* Tests for tui/wrap.c and tui/sline.c: rows, wide and combining characters. */
#include "autoconf.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "sline.h"
#include "t.h"
#include "theme.h"
#include "wrap.h"
#include "xalloc.h"

/* The rows of s at width, as "row|row|row". */
static char *
rows_of(const char *s, size_t start, int first_w, int cont_w, bool charwrap)
{
	struct wrap_row *rows = NULL;
	uint32_t cap = 0, n, i;
	char *out = xcalloc(1, strlen(s) * 2 + 64);
	size_t len = 0;

	n = wrap_text(s, strlen(s), start, first_w, cont_w, charwrap, &rows, &cap);
	for (i = 0; i < n; i++) {
		if (i > 0)
			out[len++] = '|';
		memcpy(out + len, s + rows[i].start, rows[i].end - rows[i].start);
		len += rows[i].end - rows[i].start;
	}
	free(rows);
	return out;
}

#define T_ROWS(s, w, want) do {					\
	char *t_r = rows_of((s), 0, (w), (w), false);		\
	T_EQ_STR(t_r, (want));					\
	free(t_r);						\
} while (0)

T_TEST(word_wrap_breaks_at_spaces)
{
	T_ROWS("the quick brown fox", 10, "the quick|brown fox");
	T_ROWS("the quick brown fox", 9, "the quick|brown fox");
	T_ROWS("the quick brown fox", 8, "the|quick|brown|fox");
	T_ROWS("a  b", 1, "a|b");
	T_ROWS("", 5, "");
	T_ROWS("exactly10c", 10, "exactly10c");
}

T_TEST(long_words_are_cut)
{
	T_ROWS("abcdefghij", 4, "abcd|efgh|ij");
	T_ROWS("hi abcdefghij", 4, "hi|abcd|efgh|ij");
}

T_TEST(wide_characters_are_never_split)
{
	/* Each takes two columns: three fit in 6, not in 5. */
	T_ROWS("\xE6\xBC\xA2\xE5\xAD\x97\xE6\xBC\xA2\xE5\xAD\x97", 5,
	    "\xE6\xBC\xA2\xE5\xAD\x97|\xE6\xBC\xA2\xE5\xAD\x97");
	T_ROWS("\xE6\xBC\xA2\xE5\xAD\x97\xE6\xBC\xA2", 6, "\xE6\xBC\xA2\xE5\xAD\x97\xE6\xBC\xA2");
	/* A row too narrow for one still takes it (progress, never a loop). */
	T_ROWS("\xE6\xBC\xA2\xE5\xAD\x97", 1, "\xE6\xBC\xA2|\xE5\xAD\x97");
	T_EQ_INT(wrap_width("\xE6\xBC\xA2x", 4), 3);
}

T_TEST(combining_marks_stay_with_their_letter)
{
	int w;

	/* e + U+0301: one column, never a row break between them. */
	T_EQ_INT(wrap_cluster("e\xCC\x81x", 4, &w), 3);
	T_EQ_INT(w, 1);
	T_ROWS("abe\xCC\x81" "cd", 3, "abe\xCC\x81|cd");
	T_EQ_INT(wrap_width("e\xCC\x81\xCC\x82", 5), 1);
	T_EQ_INT(wrap_fit("ae\xCC\x81z", 5, 2), 4);
}

T_TEST(character_wrap_keeps_spaces)
{
	char *r = rows_of("ab  cd", 0, 3, 3, true);

	T_EQ_STR(r, "ab |"" cd");
	free(r);
	r = rows_of("  x", 0, 2, 2, true);
	T_EQ_STR(r, "  |x");
	free(r);
}

T_TEST(first_row_and_continuation_widths)
{
	char *r = rows_of("- aaa bbb ccc", 2, 4, 6, false);

	T_EQ_STR(r, "aaa|bbb|ccc");
	free(r);
	r = rows_of("x", 0, 0, 0, false);
	T_EQ_STR(r, "x");
	free(r);
}

T_TEST(sline_prefix_cont_and_cache)
{
	struct sline l;

	sline_init(&l);
	sline_adds(&l, "\xE2\x80\xA2 ", ROLE_ACCENT, 0);
	sline_mark_body(&l);
	sline_set_cont(&l, "  ", ROLE_TEXT);
	sline_adds(&l, "one two three", ROLE_TEXT, TA_BOLD);
	T_EQ_INT(sline_rows(&l, 7), 3);
	T_EQ_INT(l.wrap_w, 7);
	T_EQ_INT(l.rows[0].start, l.body);
	T_EQ_INT(sline_rows(&l, 80), 1);
	T_EQ_INT(sline_rows(&l, 7), 3);
	T_EQ_INT(sline_style_at(&l, 0)->role, ROLE_ACCENT);
	T_EQ_INT(sline_style_at(&l, l.body)->attr, TA_BOLD);
	l.flags |= SL_NOWRAP;
	sline_unwrap(&l);
	T_EQ_INT(sline_rows(&l, 3), 1);
	sline_release(&l);
}

T_TEST(sline_sanitizes)
{
	struct sline l;

	sline_init(&l);
	sline_adds(&l, "\xCC\x81", ROLE_TEXT, 0);
	/* A lone combining mark gets a dotted circle to sit on. */
	T_EQ_STR(l.text, "\xE2\x97\x8C\xCC\x81");
	sline_release(&l);
	sline_init(&l);
	sline_add(&l, "a\tb\x1b[1m\r\x7f\xc3\x28z", 12, ROLE_TEXT, 0);
	T_EQ_STR(l.text, "a   b\xE2\x90\x9B[1m\xE2\x90\xA1\xEF\xBF\xBD(z");
	T_EQ_INT(sline_width(&l), 13);
	sline_release(&l);
}

T_TEST(sline_runs_merge_and_slice)
{
	struct sline a, b;

	sline_init(&a);
	sline_adds(&a, "ab", ROLE_TEXT, 0);
	sline_adds(&a, "cd", ROLE_TEXT, 0);
	T_EQ_INT(a.nruns, 1);
	sline_adds(&a, "EF", ROLE_CODE, 0);
	T_EQ_INT(a.nruns, 2);
	sline_init(&b);
	sline_add_slice(&b, &a, 3, 5);
	T_EQ_STR(b.text, "dE");
	T_EQ_INT(b.nruns, 2);
	T_EQ_INT(sline_style_at(&b, 1)->role, ROLE_CODE);
	T_OK(!sline_equal(&a, &b));
	sline_release(&b);
	sline_copy(&b, &a);
	T_OK(sline_equal(&a, &b));
	sline_release(&a);
	sline_release(&b);
}

T_TEST(slvec_text_has_no_hard_wraps)
{
	struct slvec v;
	char *t;

	slvec_init(&v);
	sline_adds(slvec_push(&v), "a long line that would wrap on screen", ROLE_TEXT, 0);
	sline_adds(slvec_push(&v), "second", ROLE_TEXT, 0);
	sline_rows(&v.v[0], 5);
	t = slvec_text(&v, 0, 2);
	T_EQ_STR(t, "a long line that would wrap on screen\nsecond");
	free(t);
	slvec_release(&v);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	T_RUN(word_wrap_breaks_at_spaces);
	T_RUN(long_words_are_cut);
	T_RUN(wide_characters_are_never_split);
	T_RUN(combining_marks_stay_with_their_letter);
	T_RUN(character_wrap_keeps_spaces);
	T_RUN(first_row_and_continuation_widths);
	T_RUN(sline_prefix_cont_and_cache);
	T_RUN(sline_sanitizes);
	T_RUN(sline_runs_merge_and_slice);
	T_RUN(slvec_text_has_no_hard_wraps);
	return t_done();
}
