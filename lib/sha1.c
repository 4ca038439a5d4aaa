/* SHA-1 through libcrypto's EVP interface: see sha1.h. */
#include "autoconf.h"

#include <stdio.h>

#include <openssl/evp.h>

#include "sha1.h"
#include "xalloc.h"

/* The digest of the parts, one after the other. */
static void
sha1_parts(const void *const *part, const size_t *len, size_t nparts, char hex[SHA1_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t k;

	if (c == NULL || EVP_DigestInit_ex(c, EVP_sha1(), NULL) != 1)
		fatal("libcrypto cannot start a SHA-1 digest");
	for (k = 0; k < nparts; k++)
		if (len[k] > 0 && EVP_DigestUpdate(c, part[k], len[k]) != 1)
			fatal("libcrypto SHA-1 update failed");
	if (EVP_DigestFinal_ex(c, md, &n) != 1 || n != 20)
		fatal("libcrypto SHA-1 final failed");
	EVP_MD_CTX_free(c);
	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[SHA1_HEX_LEN] = '\0';
}

void
sha1_hex(const void *data, size_t n, char hex[SHA1_HEX_LEN + 1])
{
	const void *part[1] = { data };
	size_t len[1] = { n };

	sha1_parts(part, len, 1, hex);
}

void
sha1_git_blob(const void *data, size_t n, char hex[SHA1_HEX_LEN + 1])
{
	char head[48];
	const void *part[2] = { head, data };
	size_t len[2];
	int h = snprintf(head, sizeof head, "blob %zu", n);

	if (h < 0 || (size_t)h >= sizeof head)
		fatal("a blob header does not fit");
	len[0] = (size_t)h + 1;		/* the NUL is part of the header */
	len[1] = n;
	sha1_parts(part, len, 2, hex);
}
