/*
 * sha256: SHA-256 digests through libcrypto, as lowercase hex.
 */
#ifndef TANDEM_SHA256_H
#define TANDEM_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* hex gets 64 hex digits and a NUL. */
void	sha256_hex(const void *data, size_t n, char hex[SHA256_HEX_LEN + 1]);

struct sha256_ctx;
struct sha256_ctx *sha256_begin(void);
void	sha256_update(struct sha256_ctx *, const void *data, size_t n);
/* Finishes and frees the context. */
void	sha256_end(struct sha256_ctx *, char hex[SHA256_HEX_LEN + 1]);

#endif
