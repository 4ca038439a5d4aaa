/*
 * fuzz_image: libFuzzer target for the image header parser (lib/image.c).
 * The input is a file's bytes.  Whatever they are, image_probe must
 * return 0 or -1, give a size only on 0 (both sides at least 1) and a type
 * whose magic the bytes start with, image_check must agree with it and the
 * limits, and neither may read past the input (ASan watches that: the
 * copy is exactly the input's size).
 *
 *	clang -fsanitize=fuzzer,address -Ibuild -Ilib tests/fuzz/fuzz_image.c lib/image.c lib/buf.c lib/xalloc.c
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *p = malloc(size ? size : 1);
	struct image_info im, ic;
	char err[256];
	int r, c;

	if (p == NULL)
		return 0;
	memcpy(p, data, size);
	r = image_probe(p, size, &im);
	FUZZ_CHECK(r == 0 || r == -1);
	if (r == 0) {
		FUZZ_CHECK(im.width > 0 && im.height > 0 && im.mime != NULL);
		FUZZ_CHECK(im.type == IMAGE_PNG ? p[0] == 0x89 : im.type == IMAGE_JPEG ? p[0] == 0xFF :
		    im.type == IMAGE_GIF ? p[0] == 'G' : im.type == IMAGE_WEBP ? p[0] == 'R' : 0);
		FUZZ_CHECK(image_tokens(im.width, im.height) >= 1);
	} else {
		FUZZ_CHECK(im.width == 0 && im.height == 0);
	}
	c = image_check(p, size, &ic, err, sizeof err);
	FUZZ_CHECK(c == 0 || c == -1);
	FUZZ_CHECK(c == 0 ? r == 0 && ic.width <= IMAGE_MAX_SIDE && ic.height <= IMAGE_MAX_SIDE :
	    err[0] != '\0');
	free(p);
	return 0;
}
