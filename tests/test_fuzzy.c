/* Tests for lib/fuzzy.c: what matches, how the matches rank, and the top k. */
#include "autoconf.h"

#include <string.h>

#include "fuzzy.h"
#include "t.h"

static int
sc(const char *q, const char *s)
{
	return fuzzy_score(q, strlen(q), s, strlen(s));
}

T_TEST(subsequence_matches_case_folded)
{
	T_OK(sc("mc", "main.c") > 0);
	T_OK(sc("MAIN", "src/main.c") > 0);
	T_OK(sc("main", "src/MaIn.c") > 0);
	T_EQ_INT(sc("cm", "main.c"), -1);
	T_EQ_INT(sc("xyz", "main.c"), -1);
	T_EQ_INT(sc("mainn", "main.c"), -1);
	T_EQ_INT(sc("", "anything"), 0);
	T_EQ_INT(sc("a", ""), -1);
}

T_TEST(ranking_prefers_names_boundaries_and_runs)
{
	/* The file's name over a directory's. */
	T_OK(sc("main", "src/main.c") > sc("main", "main/src/x.c"));
	/* Word starts over letters in the middle. */
	T_OK(sc("rb", "tools/run_bash.c") > sc("rb", "tools/sorbet.c"));
	/* A run over scattered letters. */
	T_OK(sc("edit", "tui/editor.c") > sc("edit", "tests/e/d/i/t.c"));
	/* Shorter over longer, all else equal. */
	T_OK(sc("x", "x.c") > sc("x", "x.cccccccccccccccccccccccc"));
	/* camelCase humps are boundaries. */
	T_OK(sc("fb", "fooBar.c") > sc("fb", "foobar.c"));
}

T_TEST(best_k_in_order)
{
	const char *c[] = { "lib/some/macro.c", "main.c", "docs/readme", "src/main.c", "m/a/i/n" };
	size_t best[3];

	T_EQ_INT((int)fuzzy_best("main", c, 5, best, 3), 3);
	T_EQ_STR(c[best[0]], "main.c");
	T_EQ_STR(c[best[1]], "src/main.c");
	T_EQ_INT((int)fuzzy_best("zzz", c, 5, best, 3), 0);
	T_EQ_INT((int)fuzzy_best("mc", c, 5, best, 1), 1);
	T_EQ_STR(c[best[0]], "main.c");
	T_EQ_INT((int)fuzzy_best("", c, 5, best, 2), 2);
	T_EQ_STR(c[best[0]], "main.c");
	T_EQ_INT((int)fuzzy_best("main", c, 5, best, 0), 0);
}

T_TEST(long_paths_stay_linear)
{
	static char s[1 << 16];
	size_t i;

	for (i = 0; i < sizeof s - 1; i++)
		s[i] = 'a';
	s[sizeof s - 1] = '\0';
	T_EQ_INT(fuzzy_score("aaaaaaaab", 9, s, strlen(s)), -1);
	T_OK(fuzzy_score("aaaaaaaaa", 9, s, strlen(s)) > 0);
}

int
main(void)
{
	T_RUN(subsequence_matches_case_folded);
	T_RUN(ranking_prefers_names_boundaries_and_runs);
	T_RUN(best_k_in_order);
	T_RUN(long_paths_stay_linear);
	return t_done();
}
