/* Fuzzy path matching: see fuzzy.h. */
#include "autoconf.h"

#include <string.h>

#include "fuzzy.h"

#define FUZZY_MATCH	16
#define FUZZY_BOUNDARY	10
#define FUZZY_RUN	6
#define FUZZY_NAME	4
#define FUZZY_FIRST	8

static int
fuzzy_fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
fuzzy_boundary(const char *s, size_t i)
{
	unsigned char p, c;

	if (i == 0)
		return 1;
	p = (unsigned char)s[i - 1];
	c = (unsigned char)s[i];
	return p == '/' || p == '_' || p == '-' || p == '.' || p == ' ' ||
	    (p >= 'a' && p <= 'z' && c >= 'A' && c <= 'Z');
}

int
fuzzy_score(const char *q, size_t qn, const char *s, size_t n)
{
	size_t i, j, start, end, name = 0, prev = (size_t)-1;
	int score = 0;

	if (qn == 0)
		return 0;
	/* Forward: the earliest end of a match. */
	for (i = 0, j = 0; i < n && j < qn; i++)
		if (fuzzy_fold((unsigned char)s[i]) == fuzzy_fold((unsigned char)q[j]))
			j++;
	if (j < qn)
		return -1;
	end = i;
	/* Backward from there: the latest start, so the match is as tight as it gets. */
	for (i = end, j = qn; i > 0 && j > 0; i--)
		if (fuzzy_fold((unsigned char)s[i - 1]) == fuzzy_fold((unsigned char)q[j - 1]))
			j--;
	start = i;
	for (i = n; i > 0; i--)
		if (s[i - 1] == '/' && i < n) {
			name = i;
			break;
		}
	for (i = start, j = 0; i < end && j < qn; i++) {
		if (fuzzy_fold((unsigned char)s[i]) != fuzzy_fold((unsigned char)q[j]))
			continue;
		score += FUZZY_MATCH;
		if (fuzzy_boundary(s, i))
			score += j == 0 ? FUZZY_BOUNDARY + FUZZY_FIRST : FUZZY_BOUNDARY;
		if (prev != (size_t)-1 && prev + 1 == i)
			score += FUZZY_RUN;
		else if (prev != (size_t)-1)
			score -= (int)(i - prev - 1 > 8 ? 8 : i - prev - 1);
		if (i >= name)
			score += FUZZY_NAME;
		prev = i;
		j++;
	}
	score -= (int)(n / 8);
	return score < 1 ? 1 : score;
}

size_t
fuzzy_best(const char *query, const char *const *cands, size_t n, size_t *best, size_t k)
{
	int scores[64];
	size_t lens[64], qn = strlen(query), got = 0, i, p, m;

	if (k > sizeof scores / sizeof scores[0])
		k = sizeof scores / sizeof scores[0];
	if (k == 0)
		return 0;
	for (i = 0; i < n; i++) {
		size_t len = strlen(cands[i]);
		int sc = fuzzy_score(query, qn, cands[i], len);

		if (sc < 0)
			continue;
		/* Its place in the top k: a higher score, then a shorter path, goes first. */
		for (p = got; p > 0; p--)
			if (!(sc > scores[p - 1] || (sc == scores[p - 1] && len < lens[p - 1])))
				break;
		if (p >= k)
			continue;
		for (m = got < k ? got : k - 1; m > p; m--) {
			best[m] = best[m - 1];
			scores[m] = scores[m - 1];
			lens[m] = lens[m - 1];
		}
		best[p] = i;
		scores[p] = sc;
		lens[p] = len;
		if (got < k)
			got++;
	}
	return got;
}
