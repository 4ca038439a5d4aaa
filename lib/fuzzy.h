/*
 * fuzzy: ranking paths by how well a typed query matches them, for the
 * @path completion.
 *
 * A query matches a path when its characters appear in it in order
 * (ASCII case folded).  The score rewards matched characters that start a
 * component or a word (after '/', '_', '-', '.', ' ' or a lower-to-upper
 * change), runs of consecutive matches and matches inside the last
 * component (the file's name), and takes a little off for gaps and for
 * length, so "mc" ranks "main.c" over "lib/some/macro.c".  The cost is
 * linear in the path's length (a forward pass, then one backward pass
 * that tightens the match), with no allocation.
 */
#ifndef TANDEM_FUZZY_H
#define TANDEM_FUZZY_H

#include <stddef.h>

/* The score of query against s (higher is better), or -1 when it does not match. */
int	 fuzzy_score(const char *query, size_t qn, const char *s, size_t n);

/*
 * The k best of n candidates: their indexes into best, best first (ties:
 * shorter, then earlier).  Returns how many matched, at most k.
 */
size_t	 fuzzy_best(const char *query, const char *const *cands, size_t n, size_t *best, size_t k);

#endif
