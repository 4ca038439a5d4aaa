/*
 * crc32: the CRC-32 of zlib, gzip and PNG (reflected polynomial
 * 0xEDB88320), to catch a record damaged at rest: a flipped bit, a
 * torn sector.  Not a defence against someone who rewrites the record.
 */
#ifndef TANDEM_CRC32_H
#define TANDEM_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* crc extended by n bytes of data; start with 0.  crc32_update(0, "123456789", 9) is 0xcbf43926. */
uint32_t	crc32_update(uint32_t crc, const void *data, size_t n);

#endif
