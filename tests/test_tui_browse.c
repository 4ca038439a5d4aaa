/*
 * Tests for the turn browser's lines (the list, one turn in full, keeping
 * the selection in view), a turn's lines taken from the transcript, and
 * the fork's origin on the status bar.
 */
#include "autoconf.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse.h"
#include "status.h"
#include "t.h"
#include "theme.h"
#include "transcript.h"

static const char turns_json[] =
    "[{\"turn\":1,\"prompt\":\"write a.txt\",\"tools\":[\"write_file\"],\"files\":[\"a.txt\"],"
    "\"bash\":false,\"tokens\":1234,\"ms\":2100,\"time\":0},"
    " {\"turn\":2,\"prompt\":\"fix it\\nand then some more\",\"tools\":[\"edit_file\",\"run_bash\","
    "\"edit_file\"],\"files\":[\"a.txt\",\"sub/b.txt\"],\"bash\":true,\"tokens\":45000,\"ms\":350},"
    " {\"turn\":3,\"prompt\":\"\",\"tools\":[],\"files\":[]},"
    " {\"turn\":4,\"prompt\":\"build\",\"tools\":[\"run_bash\"],\"files\":[\"out.o\"],"
    "\"changes\":[\"  run_bash toolu_1:\",\"    + out.o  created\","
    "\"    ! changed .git/: files can be rewound, HEAD and the index are not\"]}]";

static char *
text(const struct slvec *v, size_t from, size_t to)
{
	return slvec_text(v, from, to);
}

/* After a rewind the session's turns go 1, 2, 5: the browser numbers them 1, 2, 3. */
T_TEST(turns_are_numbered_by_their_place)
{
	cJSON *turns = cJSON_Parse("[{\"turn\":1,\"prompt\":\"one\"},{\"turn\":2,\"prompt\":\"two\"},"
	    "{\"turn\":5,\"prompt\":\"after the rewind\"}]");
	struct slvec v, body;
	size_t from, to;
	char *all;

	slvec_init(&v);
	browse_list(turns, 2, false, &v, &from, &to);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "  3  after the rewind");
	T_OK(strstr(all, "  5  after") == NULL);
	free(all);
	slvec_release(&v);
	slvec_init(&v);
	slvec_init(&body);
	browse_detail(cJSON_GetArrayItem(turns, 2), 3, &body, &v);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "Turn 3 ");
	free(all);
	slvec_release(&v);
	slvec_release(&body);
	cJSON_Delete(turns);
}

T_TEST(list_shows_every_turn_and_marks_the_selection)
{
	cJSON *turns = cJSON_Parse(turns_json);
	struct slvec v;
	size_t from, to;
	char *all, *sel;

	slvec_init(&v);
	browse_list(turns, 1, false, &v, &from, &to);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "r rewind the conversation");
	T_CONTAINS(all, "k fork from it");
	T_CONTAINS(all, "commands' changes too");
	/* What each command changed, and a warning about .git/. */
	T_CONTAINS(all, "    + out.o  created");
	T_CONTAINS(all, "changed .git/: files can be rewound");
	T_CONTAINS(all, "  1  write a.txt");
	T_CONTAINS(all, "1.2k tokens \xC2\xB7 2.1s");
	T_CONTAINS(all, "45k tokens \xC2\xB7 350ms");
	/* The same tool twice is counted, in the order first used. */
	T_CONTAINS(all, "edit_file \xC3\x97" "2, run_bash");
	T_CONTAINS(all, "run_bash: its changes are not tracked");
	T_CONTAINS(all, "files: a.txt, sub/b.txt");
	T_CONTAINS(all, "no tools");
	/* A prompt of several lines shows its first, and says there is more. */
	T_CONTAINS(all, "fix it\xE2\x80\xA6");
	T_OK(strstr(all, "and then some more") == NULL);
	T_EQ_INT(to - from, 2);
	sel = text(&v, from, to);
	T_CONTAINS(sel, "\xE2\x96\xB8   2  fix it");
	T_OK(strstr(sel, "write a.txt") == NULL);
	free(sel);
	free(all);
	slvec_truncate(&v, 0);
	browse_list(turns, 0, true, &v, &from, &to);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "edit this prompt");
	T_OK(strstr(all, "k fork") == NULL);
	free(all);
	all = text(&v, from, from + 1);
	T_CONTAINS(all, "write a.txt");
	free(all);
	slvec_release(&v);
	cJSON_Delete(turns);
}

T_TEST(list_survives_malformed_turns)
{
	static const char *const bad[] = {
		"[]", "{}", "[1, \"x\", null, [], {}]",
		"[{\"turn\":\"x\",\"prompt\":5,\"tools\":\"run_bash\",\"files\":{\"a\":1},\"bash\":\"yes\"}]",
		"[{\"tools\":[1, null, {\"n\":1}, \"grep\"],\"files\":[2, \"f\"],\"tokens\":-5,\"ms\":-1,"
		"\"time\":-100}]",
		"[{\"prompt\":\"\\u0007bell\\u001b[31mred\\ttab\"}]",
	};
	size_t i, from, to;
	struct slvec v;
	cJSON *turns;
	char *all;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		turns = cJSON_Parse(bad[i]);
		T_OK(turns != NULL);
		slvec_init(&v);
		browse_list(turns, 0, false, &v, &from, &to);
		T_OK(v.n >= 3);
		T_OK(from <= to && to <= v.n);
		all = text(&v, 0, v.n);
		T_OK(all != NULL);
		/* Control characters never reach the terminal. */
		T_OK(strchr(all, '\033') == NULL && strchr(all, '\007') == NULL);
		free(all);
		slvec_release(&v);
		cJSON_Delete(turns);
	}
	slvec_init(&v);
	browse_list(NULL, -1, false, &v, &from, &to);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "no turns yet");
	T_EQ_INT(from, 0);
	T_EQ_INT(to, 0);
	free(all);
	slvec_release(&v);
}

T_TEST(a_long_prompt_is_cut_on_the_list)
{
	char prompt[3000], json[3200];
	cJSON *turns;
	struct slvec v;
	size_t from, to;

	memset(prompt, 'x', sizeof prompt - 1);
	prompt[sizeof prompt - 1] = '\0';
	snprintf(json, sizeof json, "[{\"turn\":1,\"prompt\":\"%s\"}]", prompt);
	turns = cJSON_Parse(json);
	slvec_init(&v);
	browse_list(turns, 0, false, &v, &from, &to);
	T_OK(sline_width(&v.v[from]) < 100);
	T_CONTAINS(v.v[from].text, "x\xE2\x80\xA6");
	slvec_release(&v);
	cJSON_Delete(turns);
}

T_TEST(detail_shows_the_turn_in_full)
{
	cJSON *turns = cJSON_Parse(turns_json);
	struct slvec v, body;
	char *all;

	slvec_init(&v);
	slvec_init(&body);
	browse_detail(cJSON_GetArrayItem(turns, 1), 2, &body, &v);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "Turn 2 \xC2\xB7 45k tokens");
	T_CONTAINS(all, "Tools: edit_file \xC3\x97" "2, run_bash");
	T_CONTAINS(all, "Files changed by tandem: a.txt, sub/b.txt");
	T_CONTAINS(all, "what they changed is not tracked");
	/* With no transcript lines, the whole prompt, every line of it. */
	T_CONTAINS(all, "fix it\n  and then some more");
	free(all);
	slvec_truncate(&v, 0);
	sline_adds(slvec_push(&body), "BODY LINE", ROLE_TEXT, 0);
	browse_detail(cJSON_GetArrayItem(turns, 0), 1, &body, &v);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "Tools: write_file");
	T_CONTAINS(all, "BODY LINE");
	T_OK(strstr(all, "not tracked") == NULL);
	T_EQ_INT(body.n, 0);
	free(all);
	slvec_truncate(&v, 0);
	browse_detail(cJSON_GetArrayItem(turns, 2), 3, NULL, &v);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "Tools: none");
	T_CONTAINS(all, "Files changed by tandem: none");
	free(all);
	slvec_release(&v);
	slvec_release(&body);
	cJSON_Delete(turns);
}

T_TEST(scroll_keeps_the_selection_in_view)
{
	struct slvec v;
	size_t i;

	slvec_init(&v);
	for (i = 0; i < 40; i++) {
		char s[32];

		snprintf(s, sizeof s, "line %zu", i);
		sline_adds(slvec_push(&v), s, ROLE_TEXT, 0);
	}
	T_EQ_INT(browse_scroll(&v, 0, 0, 2, 80, 10), 0);
	T_EQ_INT(browse_scroll(&v, 0, 30, 32, 80, 10), 22);
	T_EQ_INT(browse_scroll(&v, 22, 4, 6, 80, 10), 4);
	T_EQ_INT(browse_scroll(&v, 4, 5, 7, 80, 10), 4);
	/* Taller than the pane: its first line shows. */
	T_EQ_INT(browse_scroll(&v, 0, 10, 30, 80, 5), 10);
	/* Wrapped lines count their rows. */
	sline_adds(&v.v[39], " and a long tail that wraps at a width of twenty", ROLE_TEXT, 0);
	T_EQ_INT(browse_scroll(&v, 0, 38, 40, 20, 4), 38);
	T_EQ_INT(browse_scroll(&v, 100, 0, 0, 80, 10), 39);
	T_EQ_INT(browse_scroll(&v, 5, 0, 0, 0, 0), 0);
	slvec_release(&v);
	slvec_init(&v);
	T_EQ_INT(browse_scroll(&v, 3, 0, 2, 80, 10), 0);
	slvec_release(&v);
}

T_TEST(a_turns_lines_come_from_the_transcript)
{
	struct transcript *tr = tr_new();
	struct slvec v;
	char *all;

	tr_prompt(tr, 1, "first prompt");
	tr_text(tr, 1, "first answer\n", 13);
	tr_end_block(tr);
	tr_notice(tr, ROLE_DIM, "a notice between turns");
	tr_prompt(tr, 2, "second prompt");
	tr_tool_use(tr, 2, "t1", "read_file", "a.txt");
	tr_tool_result(tr, "t1", false, "contents");
	tr_text(tr, 2, "second answer\n", 14);
	tr_end_block(tr);
	slvec_init(&v);
	tr_turn_lines(tr, 2, &v);
	all = text(&v, 0, v.n);
	T_CONTAINS(all, "second prompt");
	T_CONTAINS(all, "read_file");
	T_CONTAINS(all, "second answer");
	T_OK(strstr(all, "first") == NULL);
	T_OK(strstr(all, "notice") == NULL);
	free(all);
	slvec_truncate(&v, 0);
	tr_turn_lines(tr, 7, &v);
	T_EQ_INT(v.n, 0);
	slvec_release(&v);
	tr_free(tr);
}

T_TEST(status_names_the_forks_origin)
{
	struct status st;
	struct sline l;

	st_init(&st);
	st_set_model(&st, "claude-sonnet-4-5");
	st_set_fork(&st, "20261130-014012-a1b2c3");
	sline_init(&l);
	st_format(&st, 200, 0, &l);
	T_CONTAINS(l.text, "fork of 014012-a1b2c3");
	sline_release(&l);
	/* Narrow: the model and mode stay, the fork goes before them. */
	sline_init(&l);
	st_format(&st, 40, 0, &l);
	T_CONTAINS(l.text, "sonnet-4-5");
	T_OK(strstr(l.text, "fork of") == NULL);
	T_OK(sline_width(&l) <= 40);
	sline_release(&l);
	st_set_fork(&st, "not-a-session-id");
	sline_init(&l);
	st_format(&st, 200, 0, &l);
	T_CONTAINS(l.text, "fork of not-a-session-id");
	sline_release(&l);
	st_set_fork(&st, NULL);
	sline_init(&l);
	st_format(&st, 200, 0, &l);
	T_OK(strstr(l.text, "fork of") == NULL);
	sline_release(&l);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	T_RUN(turns_are_numbered_by_their_place);
	T_RUN(list_shows_every_turn_and_marks_the_selection);
	T_RUN(list_survives_malformed_turns);
	T_RUN(a_long_prompt_is_cut_on_the_list);
	T_RUN(detail_shows_the_turn_in_full);
	T_RUN(scroll_keeps_the_selection_in_view);
	T_RUN(a_turns_lines_come_from_the_transcript);
	T_RUN(status_names_the_forks_origin);
	return t_done();
}
