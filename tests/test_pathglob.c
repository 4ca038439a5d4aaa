/*
 * Tests for lib/pathglob.c: each mode on its own, where the modes differ,
 * and the gitignore mode cross-checked against real `git check-ignore`.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "pathglob.h"
#include "t.h"
#include "t_tree.h"

struct pg_case {
	const char	*pat;
	const char	*path;
	bool		 match;
};

static void
check_cases(enum pathglob_mode mode, const char *name, const struct pg_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pathglob_matchs(mode, c[i].pat, c[i].path) != c[i].match)
			T_FAIL("%s: \"%s\" against \"%s\" should %s", name, c[i].pat,
			    c[i].path, c[i].match ? "match" : "not match");
}

#define CHECK(mode, cases) check_cases(mode, #mode, cases, sizeof cases / sizeof cases[0])

static const struct pg_case gitignore_cases[] = {
	/* "?" and "*" take bytes and never "/". */
	{ "?.txt", "a.txt", true },
	{ "?.txt", "\xc3\xa9.txt", false },
	{ "??.txt", "\xc3\xa9.txt", true },
	{ "?", "/", false },
	{ "a*", "a/b", false },
	{ "*", "", true },
	{ "*.c", ".c", true },
	/* "**" forms. */
	{ "**/foo", "foo", true },
	{ "**/foo", "a/b/foo", true },
	{ "**/foo", "a/xfoo", false },
	{ "foo/**", "foo/a/b", true },
	{ "foo/**", "foo", false },
	{ "a/**/b", "a/b", true },
	{ "a/**/b", "a/x/y/b", true },
	{ "a/**/b", "a/xb", false },
	{ "a**b", "axxb", true },
	{ "a**b", "ax/xb", false },		/* not a whole component: "*" */
	{ "**a", "x/a", false },
	{ "**", "any/thing", true },
	{ "a/**/**/b", "a/b", true },
	/* Classes as wildmatch has them. */
	{ "[[:alpha:]]x", "qx", true },
	{ "[[:alpha:]]x", "1x", false },
	{ "[[:digit:][:upper:]]", "Q", true },
	{ "[[:digit:][:upper:]]", "q", false },
	{ "[[:space:]]", " ", true },
	{ "[[:punct:]]", "!", true },
	{ "[[:xdigit:]]", "g", false },
	{ "[[:nosuch:]]", "a", false },
	{ "[[:alpha:]", "[", false },
	{ "[[:alpha]", "[", true },		/* no ":]": "[" and the rest are members */
	{ "[a-c]", "b", true },
	{ "[!a-c]", "b", false },
	{ "[^a-c]", "d", true },
	{ "[]a]", "]", true },
	{ "[!]a]", "]", false },
	{ "[a-]", "-", true },
	{ "[-a]", "-", true },
	{ "[\\]]", "]", true },
	{ "[a\\-z]", "m", false },
	{ "[a\\-z]", "-", true },
	{ "[/]", "/", false },
	{ "a[/]b", "a/b", false },
	{ "[\xc3\xa9]", "\xc3", true },		/* a byte of the two */
	{ "[abc", "[abc", false },		/* unterminated: nothing */
	{ "[abc", "a", false },
	/* Escapes. */
	{ "\\*", "*", true },
	{ "\\*", "x", false },
	{ "\\?", "?", true },
	{ "\\[a]", "[a]", true },
	{ "a\\", "a\\", false },		/* a final "\" matches nothing */
	{ "", "", true },
	{ "*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
};

static const struct pg_case tool_cases[] = {
	{ "?.txt", "\xc3\xa9.txt", true },	/* a UTF-8 character */
	{ "??.txt", "\xc3\xa9.txt", false },
	{ "[\xc3\xa0-\xc3\xbf]", "\xc3\xa9", true },
	{ "*\xc3\xa9", "x\xc3\xa9", true },
	{ "[abc", "[abc", true },		/* unterminated: itself */
	{ "a\\", "a\\", true },
	{ "*.C", "a.c", false },		/* case-sensitive */
	{ "src/**", "src", false },
	{ "src/**", "src/a/b", true },
	{ "**/*.c", "main.c", true },
	{ "a**b", "ax/xb", false },
	{ "[[:alpha:]]", "\xc3\xa9", false },	/* classes are ASCII */
	{ "{a,b}", "a", false },		/* braces are pathglob_braces' job */
};

static const struct pg_case perm_cases[] = {
	{ "a**b", "ax/y/b", true },		/* "**" crosses "/" anywhere */
	{ "src/**", "src/x/y", true },
	{ "**/test_*.c", "test_b.c", true },
	{ "**/test_*.c", "a/b/test_d.c", true },
	{ "*.md", "a/b.md", false },
	{ "?", "\xc3\xa9", false },		/* bytes */
	{ "[ab].txt", "a.txt", true },
	{ "\\*.lit", "*.lit", true },
	{ "\\*.lit", "x.lit", false },
	{ "/etc/**", "/etc/passwd", true },
	{ "a\\", "a\\", true },
};

T_TEST(gitignore_mode)
{
	CHECK(PATHGLOB_GITIGNORE, gitignore_cases);
}

T_TEST(tool_mode)
{
	CHECK(PATHGLOB_TOOL, tool_cases);
}

T_TEST(perm_mode)
{
	CHECK(PATHGLOB_PERM, perm_cases);
}

/* Each difference between the modes, seen from one pattern. */
T_TEST(modes_differ)
{
	static const struct {
		const char	*pat, *path;
		bool		 gitignore, tool, perm;
	} d[] = {
		{ "?", "\xc3\xa9", false, true, false },
		{ "a**b", "a/b", false, false, true },
		{ "[ab", "[ab", false, true, false },
		{ "x\\", "x\\", false, true, true },
		{ "a/*", "a/b", true, true, true },
	};
	size_t i;

	for (i = 0; i < sizeof d / sizeof d[0]; i++) {
		T_OK(pathglob_matchs(PATHGLOB_GITIGNORE, d[i].pat, d[i].path) == d[i].gitignore);
		T_OK(pathglob_matchs(PATHGLOB_TOOL, d[i].pat, d[i].path) == d[i].tool);
		T_OK(pathglob_matchs(PATHGLOB_PERM, d[i].pat, d[i].path) == d[i].perm);
	}
}

T_TEST(lengths_not_nul)
{
	/* Only patlen and pathlen bytes count. */
	T_OK(pathglob_match(PATHGLOB_GITIGNORE, "a*XYZ", 2, "abc/d", 3));
	T_OK(!pathglob_match(PATHGLOB_GITIGNORE, "a*", 2, "abc/d", 5));
	T_OK(pathglob_match(PATHGLOB_TOOL, "[a]", 3, "ab", 1));
}

T_TEST(parent_and_any_name)
{
	T_OK(pathglob_match_or_parent(PATHGLOB_PERM, "src", "src/a/b.c"));
	T_OK(pathglob_match_or_parent(PATHGLOB_PERM, "src/a", "src/a/b.c"));
	T_OK(!pathglob_match_or_parent(PATHGLOB_PERM, "src/b", "src/a/b.c"));
	T_OK(pathglob_match_or_parent(PATHGLOB_PERM, "/etc", "/etc/x"));
	T_OK(!pathglob_match_or_parent(PATHGLOB_PERM, "/", "/etc/x"));
	T_OK(pathglob_match_any_name(PATHGLOB_PERM, "*.key", "a/b.key/c"));
	T_OK(pathglob_match_any_name(PATHGLOB_GITIGNORE, "node_modules", "a/node_modules/x"));
	T_OK(!pathglob_match_any_name(PATHGLOB_PERM, "b", "a//c"));
}

T_TEST(no_blowup)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT), pat = BUF_INIT(BUF_NOLIMIT);
	clock_t t0 = clock();
	int i, m;

	for (i = 0; i < 60; i++)
		buf_puts(&path, "a/");
	buf_puts(&path, "c");
	for (i = 0; i < 20; i++)
		buf_puts(&pat, "**/a*/");
	buf_puts(&pat, "b");
	for (m = PATHGLOB_GITIGNORE; m <= PATHGLOB_PERM; m++)
		T_OK(!pathglob_match((enum pathglob_mode)m, pat.data, pat.len, path.data,
		    path.len));
	buf_reset(&pat);
	buf_reset(&path);
	for (i = 0; i < 30; i++)
		buf_puts(&pat, "*a");
	buf_putc(&pat, 'b');
	for (i = 0; i < 3000; i++)
		buf_putc(&path, 'a');
	for (m = PATHGLOB_GITIGNORE; m <= PATHGLOB_PERM; m++)
		T_OK(!pathglob_match((enum pathglob_mode)m, pat.data, pat.len, path.data,
		    path.len));
	/*
	 * An exponential search takes hours here; the matcher's polynomial one
	 * takes a fraction of a second, and about 40 s of CPU under valgrind
	 * on a loaded machine: the bound tells the two apart with room for both.
	 */
	T_OK((double)(clock() - t0) / CLOCKS_PER_SEC < 300.0);
	buf_release(&path);
	buf_release(&pat);
}

T_TEST(braces)
{
	struct buf err = BUF_INIT(4096);
	char **v;

	T_EQ_INT(pathglob_braces("*.{c,h}", 4, &v, &err), 2);
	T_EQ_STR(v[0], "*.c");
	T_EQ_STR(v[1], "*.h");
	pathglob_braces_free(v);
	T_EQ_INT(pathglob_braces("{a,b}{c,d}{e,f}", 4, &v, &err), -1);
	T_CONTAINS(buf_cstr(&err), "more than 4");
	T_OK(v == NULL);
	buf_release(&err);
}

/* The cross-check with git. */

static const char *const xpats[] = {
	"*", "?", "??", "a?c", "*.c", "a*", "*a*", "a/*", "a/*/c", "*/b", "a/**", "**/c",
	"a/**/c", "**/b/**", "a**c", "**a", "[abc]", "[!abc]", "[^a]*", "[a-c]/*",
	"[]]", "[!]]x", "[a-]", "[[:alpha:]]*", "[[:digit:]]", "[[:upper:]]*",
	"[[:space:]]*", "[[:punct:]]*", "[[:alnum:]_]*", "[[:bogus:]]", "[[:alpha]",
	"\\*", "\\?x", "a\\bc", "[\\]]", "[abc", "x[", "\xc3\xa9", "?.txt", "??.txt",
	"[\xc3\xa9]?.txt", "*.tx[tT]", "a/**/**/c", "a/b/c", "b", "*c", "**/*.c",
	"[a-c][!d-f]", "*[[:digit:]]", "x/**/y", NULL
};

static const char *const xpaths[] = {
	"a", "b", "c", "ab", "abc", "a.c", "x.c", ".c", "a/b", "a/c", "a/b/c", "a/x/y/c",
	"b/b", "x/b/y", "axc", "a/xc", "xa", "x/a", "]", "]x", "-", "Zeta", "zeta", "7",
	"9lives", " lead", "!bang", "_x", "*", "?x", "abc", "[abc", "x[", "\xc3\xa9",
	"\xc3\xa9.txt", "e.txt", "e.txT", "e.tXt", "d", "ad", "ae", "a9", "s/t/u.c",
	"[", "a[b", NULL
};

static char xdir[64];

static bool
have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

/* What `git check-ignore` says of every path for an anchored pattern. */
static int
git_verdicts(const char *pat, const char *const *paths, bool *ignored, size_t n)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT), got = BUF_INIT(BUF_NOLIMIT);
	char path[128], chunk[4096];
	size_t i, k, r;
	FILE *f;

	snprintf(path, sizeof path, "%s/repo/.gitignore", xdir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "/%s\n", pat);
	fclose(f);
	snprintf(path, sizeof path, "%s/paths", xdir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		fwrite(paths[i], 1, strlen(paths[i]) + 1, f);
	fclose(f);
	buf_printf(&cmd, "cd %s/repo && git check-ignore --no-index -z --stdin < ../paths", xdir);
	f = popen(buf_cstr(&cmd), "r");
	while (f != NULL && (r = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&got, chunk, r);
	if (f != NULL)
		pclose(f);
	for (i = 0; i < n; i++)
		ignored[i] = false;
	for (k = 0; k < got.len; k += strlen(got.data + k) + 1)
		for (i = 0; i < n; i++)
			if (strcmp(got.data + k, paths[i]) == 0)
				ignored[i] = true;
	buf_release(&cmd);
	buf_release(&got);
	return 0;
}

T_TEST(gitignore_mode_against_git)
{
	bool ignored[64];
	size_t n, i, p, checked = 0, yes = 0, bad = 0;
	char cmd[256];

	if (!have_git()) {
		printf("# git not found: cross-check skipped\n");
		return;
	}
	for (n = 0; xpaths[n] != NULL; n++)
		;
	snprintf(xdir, sizeof xdir, "/tmp/tandem-pathglob-XXXXXX");
	if (mkdtemp(xdir) == NULL) {
		T_FAIL("mkdtemp");
		return;
	}
	snprintf(cmd, sizeof cmd, "mkdir %s/repo && git init -q %s/repo", xdir, xdir);
	T_EQ_INT(system(cmd), 0);
	for (p = 0; xpats[p] != NULL; p++) {
		if (git_verdicts(xpats[p], xpaths, ignored, n) == -1) {
			T_FAIL("cannot run git for %s", xpats[p]);
			break;
		}
		for (i = 0; i < n; i++, checked++) {
			/* git also ignores what lies in an ignored directory. */
			bool m = pathglob_match_or_parent(PATHGLOB_GITIGNORE, xpats[p], xpaths[i]);

			yes += ignored[i];
			if (m != ignored[i] && bad++ < 20)
				T_FAIL("\"%s\" against \"%s\": git says %s", xpats[p], xpaths[i],
				    ignored[i] ? "ignored" : "not ignored");
		}
	}
	printf("# %zu pattern/path pairs checked against git, %zu ignored, %zu disagree\n",
	    checked, yes, bad);
	T_EQ_INT(bad, 0);
	T_OK(yes > 100 && yes < checked - 100);
}

/* A small generator with a fixed seed, so every run checks the same cases. */
static unsigned long rng = 20261201;

static size_t
pick(size_t n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (size_t)(rng >> 33) % n;
}

static void
random_text(struct buf *b, const char *const *alphabet, size_t nalpha, size_t maxlen)
{
	size_t len = 1 + pick(maxlen), i;

	buf_reset(b);
	for (i = 0; i < len; i++)
		buf_puts(b, alphabet[pick(nalpha)]);
}

/* Generated patterns and paths: any disagreement with git fails. */
T_TEST(gitignore_mode_against_git_generated)
{
	static const char *const palpha[] = {
		"a", "b", "a", "b", "*", "*", "**", "?", "[", "]", "!", "^", "-", "/",
		"\\", ":", "[:alpha:]", "[:digit:]", "\xc3\xa9", "x", "/**/", "**/",
	};
	static const char *const salpha[] = {
		"a", "b", "a", "b", "/", "-", "]", "[", ":", "!", "x", "\xc3\xa9", "7", "\\",
		"*", "?",
	};
	enum { NPATHS = 40, NPATS = 250 };
	char *paths[NPATHS];
	bool ignored[NPATHS];
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i, p, bad = 0, yes = 0;

	if (!have_git())
		return;
	for (i = 0; i < NPATHS; i++) {
		/* A path git takes: no empty component, no "/" at either end, no ":" (magic) first. */
		do
			random_text(&b, salpha, sizeof salpha / sizeof salpha[0], 6);
		while (b.data[0] == '/' || b.data[0] == ':' || b.data[b.len - 1] == '/' ||
		    strstr(b.data, "//"));
		paths[i] = buf_detach(&b, NULL);
	}
	for (p = 0; p < NPATS; p++) {
		do
			random_text(&b, palpha, sizeof palpha / sizeof palpha[0], 5);
		while (b.data[b.len - 1] == '/');	/* that would mean directories only */
		if (git_verdicts(buf_cstr(&b), (const char *const *)paths, ignored, NPATHS) == -1) {
			T_FAIL("cannot run git");
			break;
		}
		for (i = 0; i < NPATHS; i++) {
			bool m = pathglob_match_or_parent(PATHGLOB_GITIGNORE, buf_cstr(&b), paths[i]);

			yes += ignored[i];
			if (m != ignored[i] && bad++ < 20)
				T_FAIL("\"%s\" against \"%s\": git says %s", buf_cstr(&b), paths[i],
				    ignored[i] ? "ignored" : "not ignored");
		}
	}
	printf("# %d generated patterns against %d paths: %zu ignored by git, %zu disagree\n",
	    NPATS, NPATHS, yes, bad);
	T_EQ_INT(bad, 0);
	T_OK(yes > 50);
	for (i = 0; i < NPATHS; i++)
		free(paths[i]);
	buf_release(&b);
	t_tree_remove(xdir);
}

int
main(void)
{
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", "/nonexistent", 1);
	unsetenv("XDG_CONFIG_HOME");
	T_RUN(gitignore_mode);
	T_RUN(tool_mode);
	T_RUN(perm_mode);
	T_RUN(modes_differ);
	T_RUN(lengths_not_nul);
	T_RUN(parent_and_any_name);
	T_RUN(no_blowup);
	T_RUN(braces);
	T_RUN(gitignore_mode_against_git);
	T_RUN(gitignore_mode_against_git_generated);
	return t_done();
}
