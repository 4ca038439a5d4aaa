/*
 * fuzz_ignore: the .gitignore matcher and the glob helpers (tools/ignore.c).
 *
 * The input is a rules file, a NUL byte, then paths one per line (a path
 * ending in "/" is a directory).  Invariants:
 *  - the verdicts do not depend on the order of the calls (the matcher
 *    keeps a stack of loaded rule files): forwards equals backwards;
 *  - a ".git" entry is always ignored;
 *  - a rules file of one anchored, escaped path ignores exactly that
 *    path, and pathglob_match (gitignore mode) of an escaped path matches it;
 *  - pathglob_braces returns at most max patterns, or -1 with a sentence.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fuzz.h"
#include "ignore.h"
#include "pathglob.h"

#define FZ_PATHS 64

static char fz_root[64];

static void
fz_write(const char *rules, size_t n)
{
	char path[128];
	int fd;

	if (fz_root[0] == '\0') {
		snprintf(fz_root, sizeof fz_root, "/tmp/fuzz_ignore.XXXXXX");
		FUZZ_CHECK(mkdtemp(fz_root) != NULL);
	}
	snprintf(path, sizeof path, "%s/.gitignore", fz_root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd != -1);
	FUZZ_CHECK(write(fd, rules, n) == (ssize_t)n);
	close(fd);
}

/* A path git could hold: clean components, no control bytes, not under .git. */
static bool
fz_plain(const char *p)
{
	const char *s = p, *c;

	if (*p == '\0' || p[strlen(p) - 1] == '/')
		return false;
	for (c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.') ||
		    (n == 4 && memcmp(s, ".git", 4) == 0))
			return false;
		if (e == NULL)
			break;
		s = e + 1;
	}
	return true;
}

static void
fz_escape(struct buf *b, const char *p)
{
	for (; *p; p++) {
		if (strchr("*?[]\\ !#", *p) != NULL)
			buf_putc(b, '\\');
		buf_putc(b, *p);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, '\0', size);
	char *paths[FZ_PATHS], **alts;
	bool dir[FZ_PATHS], fwd[FZ_PATHS];
	struct buf err = BUF_INIT(BUF_NOLIMIT), one = BUF_INIT(BUF_NOLIMIT);
	struct ignore *ig;
	size_t np = 0, i, rl;
	const char *s, *end = (const char *)data + size;
	int n;

	if (size > 16384)
		return 0;
	rl = nul ? (size_t)(nul - (const char *)data) : size;
	for (s = nul ? nul + 1 : end; s < end && np < FZ_PATHS;) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		size_t len = e ? (size_t)(e - s) : (size_t)(end - s);

		if (len > 0 && memchr(s, '\0', len) == NULL) {
			dir[np] = s[len - 1] == '/';
			paths[np] = strndup(s, dir[np] ? len - 1 : len);
			FUZZ_CHECK(paths[np] != NULL);
			np++;
		}
		s = e ? e + 1 : end;
	}
	fz_write((const char *)data, rl);
	ig = ignore_new(fz_root);
	for (i = 0; i < np; i++)
		fwd[i] = ignore_match(ig, paths[i], dir[i]);
	for (i = np; i-- > 0;)
		FUZZ_CHECK(ignore_match(ig, paths[i], dir[i]) == fwd[i]);
	FUZZ_CHECK(ignore_match(ig, ".git", true));
	ignore_free(ig);

	for (i = 0; i < np && i < 4; i++) {
		if (!fz_plain(paths[i]))
			continue;
		buf_reset(&one);
		fz_escape(&one, paths[i]);
		FUZZ_CHECK(pathglob_match(PATHGLOB_GITIGNORE, one.data, one.len, paths[i], strlen(paths[i])));
		buf_reset(&one);
		buf_putc(&one, '/');
		fz_escape(&one, paths[i]);
		buf_putc(&one, '\n');
		fz_write(one.data, one.len);
		ig = ignore_new(fz_root);
		if (!ignore_match(ig, paths[i], dir[i])) {
			fprintf(stderr, "rule %s does not ignore %s\n", buf_cstr(&one), paths[i]);
			FUZZ_CHECK(!"an escaped anchored path ignores itself");
		}
		ignore_free(ig);
	}

	if (rl < 256) {
		char *pat = strndup((const char *)data, rl);

		FUZZ_CHECK(pat != NULL);
		n = pathglob_braces(pat, 16, &alts, &err);
		if (n >= 0) {
			FUZZ_CHECK(n <= 16 && alts != NULL);
			for (i = 0; i < (size_t)n; i++)
				FUZZ_CHECK(alts[i] != NULL);
			FUZZ_CHECK(alts[n] == NULL);
			pathglob_braces_free(alts);
		} else {
			FUZZ_CHECK(err.len > 0);
		}
		free(pat);
	}
	for (i = 0; i < np; i++)
		free(paths[i]);
	buf_release(&err);
	buf_release(&one);
	return 0;
}
