/* CRC-32, table-driven, a byte at a time: see crc32.h. */
#include "autoconf.h"

#include "crc32.h"

static uint32_t crc32_table[256];
static int crc32_ready;

static void
crc32_init(void)
{
	uint32_t i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc32_table[i] = c;
	}
	crc32_ready = 1;
}

uint32_t
crc32_update(uint32_t crc, const void *data, size_t n)
{
	const unsigned char *p = data;

	if (!crc32_ready)
		crc32_init();
	crc = ~crc;
	while (n-- > 0)
		crc = crc32_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
