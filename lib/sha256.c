/* SHA-256 through libcrypto's EVP interface: see sha256.h. */
#include "autoconf.h"

#include <stdlib.h>

#include <openssl/evp.h>

#include "sha256.h"
#include "xalloc.h"

struct sha256_ctx {
	EVP_MD_CTX *md;
};

struct sha256_ctx *
sha256_begin(void)
{
	struct sha256_ctx *c = xmalloc(sizeof *c);

	c->md = EVP_MD_CTX_new();
	if (c->md == NULL || EVP_DigestInit_ex(c->md, EVP_sha256(), NULL) != 1)
		fatal("libcrypto cannot start a SHA-256 digest");
	return c;
}

void
sha256_update(struct sha256_ctx *c, const void *data, size_t n)
{
	if (n > 0 && EVP_DigestUpdate(c->md, data, n) != 1)
		fatal("libcrypto SHA-256 update failed");
}

void
sha256_end(struct sha256_ctx *c, char hex[SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (EVP_DigestFinal_ex(c->md, md, &n) != 1 || n != 32)
		fatal("libcrypto SHA-256 final failed");
	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
	EVP_MD_CTX_free(c->md);
	free(c);
}

void
sha256_hex(const void *data, size_t n, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256_ctx *c = sha256_begin();

	sha256_update(c, data, n);
	sha256_end(c, hex);
}
