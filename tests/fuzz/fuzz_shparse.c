/*
 * Fuzz target for the shell splitter: any input is split without a crash,
 * a leak or undefined behaviour, and the parts keep their invariants.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/shparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_parts(const struct shparse_parts *p)
{
	size_t i, k, cmd;
	bool unsure = false;

	for (i = 0; i < p->n; i++) {
		const struct shparse_part *pt = &p->v[i];

		if (pt->text == NULL || pt->nwords == 0 || pt->words == NULL || pt->level < 0)
			abort();
		for (k = 0; k < pt->nwords; k++)
			if (pt->words[k].raw == NULL || pt->words[k].plain == NULL)
				abort();
		for (cmd = 0; cmd < pt->nwords && (pt->words[cmd].flags &
		    (SHPARSE_W_ASSIGN | SHPARSE_W_REDIR)); cmd++)
			;
		/* An expanded command word is never plain. */
		if (cmd < pt->nwords && (pt->words[cmd].flags & SHPARSE_W_EXPAND) &&
		    (!pt->dynamic || !pt->unsure))
			abort();
		/* Nothing dynamic is allowed, even by "*". */
		if (pt->dynamic && shparse_allows("*", NULL, pt))
			abort();
		/* "*" denies every part. */
		if (!shparse_denies("*", NULL, pt))
			abort();
		unsure = unsure || pt->unsure;
	}
	if (unsure != p->unsure)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shparse_parts p;
	char *s = malloc(size + 1);
	char *sq;
	size_t pos = 0;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&p, 0, sizeof(p));
	shparse_split(s, &p);
	check_parts(&p);
	shparse_parts_release(&p);
	sq = shparse_squeeze(s);
	for (;;) {
		char *w = shparse_word(sq, &pos);

		if (w == NULL)
			break;
		free(w);
	}
	free(sq);
	free(s);
	return 0;
}
