/*
 * t_fixtures.h: the captured streams of tests/fixtures/sse, for the test
 * programs of the SSE parser and the stream decoders.  find_fixtures()
 * finds the folder (under $top_srcdir, here, or beside the program) and
 * sets fixdir, need_fixtures() bails out without it; fixture() reads one
 * of them whole (the caller frees), read_file() any file; rnd() is the
 * xorshift that picks the random chunk sizes the tests feed them in.
 */
#ifndef TANDEM_T_FIXTURES_H
#define TANDEM_T_FIXTURES_H

#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"
#include "xalloc.h"

static char fixdir[4096];

/* The next number of a deterministic sequence (state: not 0). */
static __attribute__((unused)) uint32_t
rnd(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static __attribute__((unused)) char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char chunk[8192];
	size_t k;

	if (f == NULL)
		return NULL;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, k);
	fclose(f);
	return buf_detach(&b, len);
}

static __attribute__((unused)) int
try_dir(const char *base)
{
	char probe[4200];
	int n;

	n = snprintf(fixdir, sizeof fixdir, "%s/tests/fixtures/sse", base);
	if (n < 0 || (size_t)n >= sizeof fixdir)
		return 0;
	n = snprintf(probe, sizeof probe, "%s/expected.json", fixdir);
	return n > 0 && (size_t)n < sizeof probe && access(probe, R_OK) == 0;
}

static __attribute__((unused)) int
find_fixtures(const char *argv0)
{
	const char *top = getenv("top_srcdir");
	char *copy, up[4200];

	if (top != NULL && try_dir(top))
		return 1;
	if (try_dir("."))
		return 1;
	copy = xstrdup(argv0);
	snprintf(up, sizeof up, "%s/..", dirname(copy));
	free(copy);
	return try_dir(up);
}

/* find_fixtures, or the test program bails out (TAP) and exits 1. */
static __attribute__((unused)) void
need_fixtures(const char *argv0)
{
	if (!find_fixtures(argv0)) {
		printf("Bail out! tests/fixtures/sse not found (set top_srcdir)\n");
		exit(1);
	}
}

static __attribute__((unused)) char *
fixture(const char *name, size_t *len)
{
	char path[8400];

	snprintf(path, sizeof path, "%s/%s", fixdir, name);
	return read_file(path, len);
}

#endif
