/*
 * fuzz_gitconfig: libFuzzer target for the git-config reader
 * (tools/gitconfig.c).  The input is a configuration file; a few keys are
 * looked up in it, of each shape the reader knows (plain, subsection,
 * old-style subsection).  Whatever the bytes, the reader must return 1, 0
 * or -1, set a value only on 1 and an error only on -1, and never read
 * past the input (ASan watches that: the copy has no NUL after it).
 *
 *	clang -fsanitize=fuzzer,address -Ibuild -Ilib -Itools \
 *	    tests/fuzz/fuzz_gitconfig.c tools/gitconfig.c lib/buf.c lib/xalloc.c
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gitconfig.h"

static const char *const fuzz_keys[] = {
	"core.excludesFile", "remote.origin.url", "a.B.c", "x.y",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	size_t i;

	if (text == NULL)
		return 0;
	if (size > 0)
		memcpy(text, data, size);
	for (i = 0; i < sizeof fuzz_keys / sizeof fuzz_keys[0]; i++) {
		struct buf err = BUF_INIT(4096);
		char *value = (char *)1;
		int r = gitconfig_get(text, size, fuzz_keys[i], &value, &err);

		if (r < -1 || r > 1 || (r == 1) != (value != NULL) ||
		    (r == -1) != (err.len > 0))
			abort();
		free(value);
		buf_release(&err);
	}
	free(text);
	return 0;
}
