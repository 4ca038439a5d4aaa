/*
 * fuzz_patch: tools/patch.c on arbitrary bytes.  The input is copied to a
 * buffer of exactly its size (no NUL after it), parsed, and the plan is
 * checked: refused means a sentence and an empty plan; accepted means at
 * least one file, names that fit the operation, hunk lines inside the
 * input, a numbered hunk holding exactly the lines its header counts, and
 * no hunk that changes nothing.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "patch.h"
#include "xalloc.h"

static void
fuzz_check_hunk(const struct patch_file *f, const struct patch_hunk *h, const char *in,
    size_t len)
{
	long olds = 0, news = 0;
	size_t i, changes = 0;

	for (i = 0; i < h->n; i++) {
		const struct patch_line *l = &h->lines[i];

		if (l->kind != ' ' && l->kind != '-' && l->kind != '+')
			abort();
		if (l->len > 0 && (l->text < in || l->text + l->len > in + len))
			abort();
		olds += l->kind != '+';
		news += l->kind != '-';
		changes += l->kind != ' ';
	}
	if (changes == 0 && !(f->codex && f->op == PATCH_ADD))
		abort();
	if (h->ranged && !f->codex && (olds != h->old_count || news != h->new_count))
		abort();
	if (f->op == PATCH_ADD && f->codex && olds != 0)
		abort();
}

static void
fuzz_check(const struct patch_plan *pl, const char *in, size_t len)
{
	size_t i, j;

	if (pl->nf == 0)
		abort();
	for (i = 0; i < pl->nf; i++) {
		const struct patch_file *f = &pl->files[i];

		switch (f->op) {
		case PATCH_ADD:
			if (f->new_name == NULL || f->old_name != NULL)
				abort();
			break;
		case PATCH_DELETE:
			if (f->old_name == NULL || f->new_name != NULL)
				abort();
			break;
		case PATCH_MODIFY:
			if (f->old_name == NULL || f->new_name == NULL ||
			    strcmp(f->old_name, f->new_name) != 0)
				abort();
			break;
		case PATCH_RENAME:
		case PATCH_COPY:
			if (f->old_name == NULL || f->new_name == NULL)
				abort();
			break;
		default:
			abort();
		}
		if ((f->old_name != NULL && f->old_name[0] == '\0') ||
		    (f->new_name != NULL && f->new_name[0] == '\0'))
			abort();
		for (j = 0; j < f->nh; j++)
			fuzz_check_hunk(f, &f->hunks[j], in, len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	struct patch_plan pl;
	char *in = xmalloc(size ? size : 1);

	memcpy(in, data, size);
	if (patch_parse(in, size, &pl, &err) == 0) {
		fuzz_check(&pl, in, size);
		patch_plan_release(&pl);
	} else if (err.len == 0 || pl.nf != 0 || pl.files != NULL)
		abort();
	buf_release(&err);
	free(in);
	return 0;
}
