/*
 * lib/gitbin and lib/sha1: SHA-1 and git blob ids against known vectors
 * and `git hash-object`, Adler-32, stored zlib blocks, base85 and its line
 * format, and binary patches that real `git apply` takes in both
 * directions, byte for byte; the reader's summary of them.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gitbin.h"
#include "sha1.h"
#include "t.h"
#include "t_tree.h"

static const char zero_id[] = "0000000000000000000000000000000000000000";

T_TEST(sha1_vectors)
{
	static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA1_HEX_LEN + 1], *million = malloc(1000000);

	sha1_hex("", 0, hex);
	T_EQ_STR(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	sha1_hex("abc", 3, hex);
	T_EQ_STR(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	sha1_hex(m448, strlen(m448), hex);
	T_EQ_STR(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	memset(million, 'a', 1000000);
	sha1_hex(million, 1000000, hex);
	T_EQ_STR(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	free(million);
}

T_TEST(git_blob_ids)
{
	static const char bin[] = "\0\1\2\377tail";
	char hex[SHA1_HEX_LEN + 1], got[64] = "";
	FILE *f;

	sha1_git_blob("", 0, hex);
	T_EQ_STR(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	sha1_git_blob("hello\n", 6, hex);
	T_EQ_STR(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
	/* and what git itself says of bytes with NULs */
	put("hash.bin", bin, sizeof bin - 1);
	sha1_git_blob(bin, sizeof bin - 1, hex);
	f = popen("cd \"$GITBIN_ROOT\" && git hash-object hash.bin", "r");
	T_OK(f != NULL && fgets(got, sizeof got, f) != NULL);
	if (f != NULL)
		pclose(f);
	got[strcspn(got, "\n")] = '\0';
	T_EQ_STR(hex, got);
}

/* Adler-32 the slow way: the modulo after every byte. */
static uint32_t
adler_slow(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

T_TEST(adler32)
{
	unsigned char *ff = malloc(100000);
	uint32_t whole;

	T_EQ_INT(gitbin_adler32(1, "", 0), 1);
	T_EQ_INT(gitbin_adler32(1, "Wikipedia", 9), 0x11E60398);
	memset(ff, 0xff, 100000);
	/* past the 5552-byte runs where the sums must be cut */
	T_EQ_INT(gitbin_adler32(1, ff, 100000), 0x149a302c);
	T_EQ_INT(gitbin_adler32(1, ff, 100000), adler_slow(ff, 100000));
	/* in pieces as at once */
	whole = gitbin_adler32(1, ff, 100000);
	T_EQ_INT(gitbin_adler32(gitbin_adler32(1, ff, 7777), ff + 7777, 100000 - 7777), whole);
	free(ff);
}

T_TEST(base85_vectors)
{
	/* what git writes for an empty file: zlib at level 1, one empty block */
	static const unsigned char empty_z[] = { 0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01 };
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	gitbin_base85(&b, empty_z, sizeof empty_z);
	T_EQ_STR(buf_cstr(&b), "cmV?d00001");
	buf_reset(&b);
	gitbin_base85(&b, "\0\0\0\0\377\377\377\377", 8);
	T_EQ_STR(buf_cstr(&b), "00000|NsC0");
	buf_reset(&b);
	/* a short last group is padded with zeros and still five digits */
	gitbin_base85(&b, "\1", 1);
	T_EQ_STR(buf_cstr(&b), "0RR91");
	buf_reset(&b);
	gitbin_base85(&b, "", 0);
	T_EQ_INT(b.len, 0);
	buf_release(&b);
}

T_TEST(zlib_stored_blocks)
{
	static const unsigned char empty[] = { 0x78, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff, 0, 0, 0, 1 };
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	unsigned char *big = calloc(1, 70000);
	const unsigned char *z;

	gitbin_zlib_stored(&b, "", 0);
	T_OK(b.len == sizeof empty && memcmp(b.data, empty, sizeof empty) == 0);
	buf_reset(&b);
	gitbin_zlib_stored(&b, big, 70000);
	z = (const unsigned char *)b.data;
	/* two blocks: 65535 bytes, not final; then 4465, final */
	T_EQ_INT(b.len, 2 + 5 + 65535 + 5 + 4465 + 4);
	T_OK(z[2] == 0 && z[3] == 0xff && z[4] == 0xff && z[5] == 0 && z[6] == 0);
	z += 7 + 65535;
	T_OK(z[0] == 1 && z[1] == (4465 & 0xff) && z[2] == (4465 >> 8) &&
	    z[3] == (unsigned char)~(4465 & 0xff) && z[4] == (unsigned char)~(4465 >> 8));
	free(big);
	buf_release(&b);
}

T_TEST(literal_lines)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), want = BUF_INIT(BUF_NOLIMIT);
	unsigned char data[100];
	const char *p, *nl;
	int lines = 0;

	gitbin_literal(&b, "", 0);
	/* 11 bytes of stream: "K" and three groups */
	T_OK(strncmp(buf_cstr(&b), "literal 0\nK", 11) == 0);
	T_EQ_INT(b.len, 10 + 1 + 15 + 1 + 1);
	T_OK(b.len > 2 && b.data[b.len - 2] == '\n' && b.data[b.len - 1] == '\n');
	buf_reset(&b);
	/* 100 bytes make a 111-byte stream: lines of 52, 52 and 7 bytes */
	memset(data, 7, sizeof data);
	gitbin_literal(&b, data, sizeof data);
	p = buf_cstr(&b) + strlen("literal 100\n");
	T_OK(strncmp(buf_cstr(&b), "literal 100\n", 12) == 0);
	while ((nl = strchr(p, '\n')) != NULL && nl > p) {
		size_t len = (size_t)(nl - p);

		T_OK(lines < 2 ? p[0] == 'z' && len == 1 + 65 : p[0] == 'G' && len == 1 + 10);
		lines++;
		p = nl + 1;
	}
	T_EQ_INT(lines, 3);
	T_OK(strcmp(p, "\n") == 0);
	buf_release(&b);
	buf_release(&want);
}

/* Bytes that look like nothing: NULs, high bytes, a few runs. */
static unsigned char *
noise(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (i % 97 < 5) ? 0 : (unsigned char)(seed >> 16);
	}
	return p;
}

/* The git diff of one path (NULL: not there) with its binary patch. */
static void
git_patch(struct buf *out, const char *path, const unsigned char *old, size_t on,
    const unsigned char *new, size_t nn)
{
	char oid[SHA1_HEX_LEN + 1], nid[SHA1_HEX_LEN + 1];

	snprintf(oid, sizeof oid, "%s", zero_id);
	snprintf(nid, sizeof nid, "%s", zero_id);
	if (old != NULL)
		sha1_git_blob(old, on, oid);
	if (new != NULL)
		sha1_git_blob(new, nn, nid);
	buf_printf(out, "diff --git a/%s b/%s\n", path, path);
	if (old == NULL)
		buf_puts(out, "new file mode 100644\n");
	if (new == NULL)
		buf_puts(out, "deleted file mode 100644\n");
	buf_printf(out, "index %s..%s%s\n", oid, nid, old && new ? " 100644" : "");
	gitbin_patch(out, old ? old : (const unsigned char *)"", on, new ? new : (const unsigned char *)"", nn);
}

/* Is root/rel exactly these n bytes (NULL: absent)? */
static int
same(const char *rel, const unsigned char *want, size_t n)
{
	char p[PATH_MAX + 64];
	unsigned char *got;
	size_t r;
	FILE *f;
	int ok;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "rb");
	if (want == NULL)
		return f == NULL || (fclose(f), 0);
	if (f == NULL)
		return 0;
	got = malloc(n + 1);
	r = fread(got, 1, n + 1, f);
	fclose(f);
	ok = r == n && memcmp(got, want, n) == 0;
	free(got);
	return ok;
}

static int
sh(const char *cmd)
{
	char line[512];

	snprintf(line, sizeof line, "cd \"$GITBIN_ROOT\" && %s 2>apply.err", cmd);
	return system(line);
}

T_TEST(git_applies_both_ways)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	/* a change across stored blocks, a file made, one removed, one from empty */
	size_t an = 200000, bn = 70001;
	unsigned char *a = noise(an, 1), *b = noise(bn, 2), *c = noise(3, 3), *d = noise(1, 4);
	unsigned char *e = noise(65535, 5);

	t_tree_mkdirs(root, 0755);
	T_OK(sh("git init -q repo") == 0);
	put("repo/a.bin", (char *)a, an);
	put("repo/d.bin", (char *)d, 1);
	put("repo/e.bin", "", 0);
	git_patch(&p, "a.bin", a, an, b, bn);
	git_patch(&p, "c.bin", NULL, 0, c, 3);
	git_patch(&p, "d.bin", d, 1, NULL, 0);
	git_patch(&p, "e.bin", (unsigned char *)"", 0, e, 65535);
	put("p.diff", p.data, p.len);
	T_OK(sh("cd repo && git apply --check ../p.diff") == 0);
	T_OK(sh("cd repo && git apply ../p.diff") == 0);
	T_OK(same("repo/a.bin", b, bn));
	T_OK(same("repo/c.bin", c, 3));
	T_OK(same("repo/d.bin", NULL, 0));
	T_OK(same("repo/e.bin", e, 65535));
	T_OK(sh("cd repo && git apply -R --check ../p.diff") == 0);
	T_OK(sh("cd repo && git apply -R ../p.diff") == 0);
	T_OK(same("repo/a.bin", a, an));
	T_OK(same("repo/c.bin", NULL, 0));
	T_OK(same("repo/d.bin", d, 1));
	T_OK(same("repo/e.bin", (unsigned char *)"", 0));
	/* and outside a repository, as patch(1) would be used */
	T_OK(sh("mkdir plain && cp repo/a.bin repo/d.bin repo/e.bin plain/ && cd plain && git apply ../p.diff") == 0);
	T_OK(same("plain/a.bin", b, bn) && same("plain/c.bin", c, 3));
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	buf_release(&p);
}

T_TEST(git_refuses_a_wrong_patch)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	unsigned char *a = noise(300, 6), *b = noise(400, 7);
	char *at;

	put("wrong/x.bin", (char *)a, 300);
	T_OK(sh("cd wrong && git init -q") == 0);
	/* the patch is checked against the file: one byte off and git says no */
	a[10] ^= 1;
	git_patch(&p, "x.bin", a, 300, b, 400);
	put("w1.diff", p.data, p.len);
	T_OK(sh("cd wrong && git apply --check ../w1.diff") != 0);
	a[10] ^= 1;
	/* a base85 digit changed: the inflated data or its Adler-32 are wrong */
	buf_reset(&p);
	git_patch(&p, "x.bin", a, 300, b, 400);
	at = strstr(p.data, "literal 400\n") + 12 + 20;
	*at = *at == '0' ? '1' : '0';
	put("w2.diff", p.data, p.len);
	T_OK(sh("cd wrong && git apply --check ../w2.diff") != 0);
	free(a);
	free(b);
	buf_release(&p);
}

T_TEST(summary)
{
	static const char text[] =
	    "diff --git a/t.txt b/t.txt\n"
	    "--- a/t.txt\n+++ b/t.txt\n@@ -1 +1 @@\n-a\n+b\n"
	    "diff --git a/img x.bin b/img x.bin\n"
	    "index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644\n"
	    "GIT binary patch\nliteral 70001\nzcmV?d00001\nKcmV?d0000\n\nliteral 200000\nHcmV?d00001\n\n"
	    "diff --git a/n.bin b/n.bin\nnew file mode 100644\n"
	    "index 0000000000000000000000000000000000000000..3333333333333333333333333333333333333333\n"
	    "GIT binary patch\nliteral 3\nHcmV?d00001\n\nliteral 0\nHcmV?d00001\n\n"
	    "# d: nothing -> dir\n";
	static const char want[] =
	    "diff --git a/t.txt b/t.txt\n"
	    "--- a/t.txt\n+++ b/t.txt\n@@ -1 +1 @@\n-a\n+b\n"
	    "diff --git a/img x.bin b/img x.bin\n"
	    "Binary file img x.bin changed (200000 -> 70001 bytes)\n"
	    "diff --git a/n.bin b/n.bin\nnew file mode 100644\n"
	    "Binary file n.bin changed (0 -> 3 bytes)\n"
	    "# d: nothing -> dir\n";
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	T_EQ_INT(gitbin_summarize(text, sizeof text - 1, &b), 0);
	T_EQ_STR(buf_cstr(&b), want);
	/* text without binary patches, index lines included, is as it was */
	buf_reset(&b);
	gitbin_summarize(want, sizeof want - 1, &b);
	T_EQ_STR(buf_cstr(&b), want);
	buf_reset(&b);
	gitbin_summarize("index abc..def\n", 15, &b);
	T_EQ_STR(buf_cstr(&b), "index abc..def\n");
	buf_release(&b);
}

int
main(void)
{
	t_tree_init("test_gitbin");
	setenv("GITBIN_ROOT", root, 1);
	T_RUN(sha1_vectors);
	T_RUN(git_blob_ids);
	T_RUN(adler32);
	T_RUN(base85_vectors);
	T_RUN(zlib_stored_blocks);
	T_RUN(literal_lines);
	T_RUN(git_applies_both_ways);
	T_RUN(git_refuses_a_wrong_patch);
	T_RUN(summary);
	t_tree_remove(root);
	return t_done();
}
