/*
 * fuzz: what the libFuzzer targets of tests/fuzz share.
 *
 * FUZZ_CHECK(cond) aborts with the failed condition when an invariant
 * does not hold, so libFuzzer keeps the input as a crash.  fuzz_split
 * picks a split point of n bytes from the input's own first byte, so a
 * split feed is reproducible from the input alone.
 */
#ifndef TANDEM_FUZZ_H
#define TANDEM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A chunk length in 1..max from a seed byte (the feed is cut in such pieces). */
static inline size_t
fuzz_chunk(uint8_t seed, size_t max)
{
	size_t c = (size_t)(seed % 17) + 1;

	return c < max ? c : max;
}

#endif
