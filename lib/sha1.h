/*
 * sha1: SHA-1 digests through libcrypto, as lowercase hex, and git's blob
 * ids (the SHA-1 of "blob <len>\0" and the content), which a git binary
 * patch names its two sides by.  SHA-1 is here for git's names only,
 * never for anything that must resist a forger.
 */
#ifndef TANDEM_SHA1_H
#define TANDEM_SHA1_H

#include <stddef.h>

#define SHA1_HEX_LEN 40

/* hex gets 40 hex digits and a NUL. */
void	sha1_hex(const void *data, size_t n, char hex[SHA1_HEX_LEN + 1]);
/* The id git gives a blob of these n bytes (`git hash-object`). */
void	sha1_git_blob(const void *data, size_t n, char hex[SHA1_HEX_LEN + 1]);

#endif
