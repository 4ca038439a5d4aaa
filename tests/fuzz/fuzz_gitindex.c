/*
 * fuzz_gitindex: the reader of git's index file (tools/gitindex.c).
 *
 * The input's first byte picks the hash length (bit 0: SHA-256's 32
 * bytes, else SHA-1's 20) and whether the rest is taken as it is (bit 1)
 * or gets a zero trailer (index.skipHash), so the entries are reached
 * past the checksum.  Invariants:
 *  - an accepted index's paths are strictly sorted, each is found by
 *    gitindex_has and its directories by gitindex_has_below, and none is
 *    empty, absolute, longer than PATH_MAX or holds a "", ".", ".." or
 *    ".git" component;
 *  - the same bytes with their real checksum in place of the zeros are
 *    accepted alike, with the same paths;
 *  - a refusal says why.
 */
#include "autoconf.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "fuzz.h"
#include "gitindex.h"
#include "sha1.h"
#include "sha256.h"

static void
fz_check_path(const struct gitindex *gi, const char *p)
{
	size_t n = strlen(p), i = 0, k;

	FUZZ_CHECK(n > 0 && n <= PATH_MAX && p[0] != '/');
	FUZZ_CHECK(gitindex_has(gi, p, n));
	if (p[n - 1] == '/')
		n--;	/* a sparse directory entry */
	while (i <= n) {
		const char *c = p + i, *slash = memchr(c, '/', n - i);

		k = slash != NULL ? (size_t)(slash - c) : n - i;
		FUZZ_CHECK(k > 0);
		FUZZ_CHECK(!(k == 1 && c[0] == '.'));
		FUZZ_CHECK(!(k == 2 && c[0] == '.' && c[1] == '.'));
		FUZZ_CHECK(!(k == 4 && strncasecmp(c, ".git", 4) == 0));
		if (slash != NULL)
			FUZZ_CHECK(gitindex_has_below(gi, p, (size_t)(slash - p)));
		i += k + 1;
	}
}

static void
fz_unhex(const char *hex, unsigned char *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int hi = hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10;
		int lo = hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10;

		out[i] = (unsigned char)(hi << 4 | lo);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf in = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096);
	struct gitindex *gi, *again;
	char hex[SHA256_HEX_LEN + 1], *shared = NULL;
	unsigned char sum[32];
	size_t hashlen, i;
	bool as_is;

	if (size == 0)
		return 0;
	hashlen = (data[0] & 1) ? 32 : 20;
	as_is = (data[0] & 2) != 0;
	buf_append(&in, data + 1, size - 1);
	if (!as_is) {
		memset(sum, 0, sizeof sum);
		buf_append(&in, sum, hashlen);
	}
	gi = gitindex_parse(in.data ? in.data : "", in.len, hashlen, &shared, &err);
	if (gi == NULL) {
		FUZZ_CHECK(err.len > 0 && shared == NULL);
		goto out;
	}
	for (i = 0; i < gitindex_count(gi); i++) {
		if (i > 0)
			FUZZ_CHECK(strcmp(gitindex_path(gi, i - 1), gitindex_path(gi, i)) < 0);
		fz_check_path(gi, gitindex_path(gi, i));
	}
	if (!as_is) {
		if (hashlen == 20)
			sha1_hex(in.data, in.len - hashlen, hex);
		else
			sha256_hex(in.data, in.len - hashlen, hex);
		fz_unhex(hex, (unsigned char *)in.data + in.len - hashlen, hashlen);
		buf_reset(&err);
		again = gitindex_parse(in.data, in.len, hashlen, NULL, &err);
		FUZZ_CHECK(again != NULL);
		FUZZ_CHECK(gitindex_count(again) == gitindex_count(gi));
		for (i = 0; i < gitindex_count(gi); i++)
			FUZZ_CHECK(strcmp(gitindex_path(gi, i), gitindex_path(again, i)) == 0);
		gitindex_free(again);
	}
	gitindex_free(gi);
out:
	free(shared);
	buf_release(&in);
	buf_release(&err);
	return 0;
}
