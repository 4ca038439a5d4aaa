/* Tests for tui/synhl.c: reading nanorc files and highlighting lines. */
#include "autoconf.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "synhl.h"
#include "t.h"
#include "theme.h"

static char tmp[64];

static void
write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmp, name);
	if ((f = fopen(path, "w")) == NULL) {
		T_FAIL("cannot write %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* The role at the first occurrence of needle in s (highlighted from *state), or -1. */
static int
role_in(const struct synhl_syntax *syn, const char *s, uint64_t *state, const char *needle)
{
	const struct synhl_run *runs;
	const char *p = strstr(s, needle);
	size_t k, i, off;
	int role = -1;

	if (syn == NULL || p == NULL)
		return -1;
	off = (size_t)(p - s);
	k = synhl_line(syn, s, strlen(s), state, &runs);
	for (i = 0; i < k && runs[i].off <= off; i++)
		role = runs[i].role;
	return role;
}

static int
role1(const struct synhl_syntax *syn, const char *s, const char *needle)
{
	uint64_t st = 0;

	return role_in(syn, s, &st, needle);
}

/* nano's quoting, color names, icolor, regions, header and extendsyntax. */
T_TEST(nanorc_reader)
{
	const struct synhl_syntax *s;
	uint64_t st = 0;

	write_file("toy.nanorc",
	    "## a toy\n"
	    "syntax toy \"\\.toy$\" \"(^|/)Toyfile$\"\n"
	    "header \"^#!.*toyrun\"\n"
	    "magic \"toy script\"\n"
	    "comment \"#\"\n"
	    "linter toylint\n"
	    "color brightgreen \"\\<(let|in)\\>\"\n"
	    "icolor red \"\\<select\\>\"\n"
	    /* A regex holding quotes: it ends at a quote before a blank or the end. */
	    "color yellow \"\"([^\"]|\\\\\")*\"\"\n"
	    "color bold,magenta \"@[a-z]+\"\n"
	    "color #0a0 \"%[a-z]+\"\n"
	    "color ,green \"[[:space:]]+$\"\n"
	    "color nosuchcolor \"zzz\"\n"
	    "color cyan \"(unclosed\"\n"
	    "color blue start=\"\\(\\*\" end=\"\\*\\)\"\n"
	    "syntax default\n"
	    "color red \".\"\n");
	write_file("zz-more.nanorc", "extendsyntax toy color brightcyan \"\\<extra\\>\"\n");
	synhl_configure(NULL, tmp);
	s = synhl_for_file("dir/a.toy", NULL, 0);
	T_OK(s != NULL);
	T_EQ_STR(s ? synhl_name(s) : "", "toy");
	T_OK(synhl_for_file("x/Toyfile", NULL, 0) == s);
	T_OK(synhl_for_file("run", "#!/usr/bin/toyrun -x", 20) == s);
	T_OK(synhl_for_file("a.txt", "plain", 5) == NULL);
	T_OK(synhl_for_lang("toy", 3) == s);
	T_OK(synhl_for_lang("TOY", 3) == s);
	/* "syntax default" is not a language. */
	T_OK(synhl_for_lang("default", 7) == NULL);
	T_EQ_INT(role1(s, "let x = 1 in x", "let"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role1(s, "let x = 1 in x", "x ="), SYNHL_BASE);
	T_EQ_INT(role1(s, "letter", "letter"), SYNHL_BASE);
	T_EQ_INT(role1(s, "SELECT a", "SELECT"), ROLE_SYNTAX_RED);
	T_EQ_INT(role1(s, "say \"a \\\" b\" ok", "\\\" b"), ROLE_SYNTAX_YELLOW);
	T_EQ_INT(role1(s, "say \"a \\\" b\" ok", "ok"), SYNHL_BASE);
	T_EQ_INT(role1(s, "x @name", "@name"), ROLE_SYNTAX_MAGENTA);
	T_EQ_INT(role1(s, "x %pct", "%pct"), ROLE_SYNTAX_GREEN);
	/* A background alone, an unknown color and a bad regex color nothing. */
	T_EQ_INT(role1(s, "x   ", "   "), SYNHL_BASE);
	T_EQ_INT(role1(s, "zzz (unclosed", "zzz"), SYNHL_BASE);
	T_EQ_INT(role1(s, "an extra", "extra"), ROLE_SYNTAX_CYAN);
	/* A region over lines: open at the end of the first, closed in the second. */
	T_EQ_INT(role_in(s, "a (* b", &st, "(*"), ROLE_SYNTAX_BLUE);
	T_OK(st != 0);
	T_EQ_INT(role_in(s, "middle", &st, "middle"), ROLE_SYNTAX_BLUE);
	T_OK(st != 0);
	T_EQ_INT(role_in(s, "c *) let", &st, "c *)"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(st, 0);
	st = 0;
	T_EQ_INT(role_in(s, "c *) let", &st, "let"), ROLE_SYNTAX_GREEN);
	synhl_shutdown();
}

/* The user's nanorc comes first: its include lines and its own syntaxes win. */
T_TEST(user_nanorc_and_includes)
{
	char home[128], cfg[160], sys[128];
	const struct synhl_syntax *s;

	snprintf(home, sizeof home, "%s/home", tmp);
	snprintf(sys, sizeof sys, "%s/sys", tmp);
	mkdir(home, 0700);
	mkdir(sys, 0700);
	snprintf(cfg, sizeof cfg, "%s/home/.config", tmp);
	mkdir(cfg, 0700);
	snprintf(cfg, sizeof cfg, "%s/home/.config/nano", tmp);
	mkdir(cfg, 0700);
	write_file("sys/toy.nanorc", "syntax toy \"\\.toy$\"\ncolor red \"\\<kw\\>\"\n");
	write_file("home/my.nanorc", "syntax toy \"\\.toy$\"\ncolor green \"\\<kw\\>\"\n");
	write_file("home/.config/nano/nanorc", "set autoindent\ninclude \"~/my*.nanorc\"\n");
	synhl_configure(home, sys);
	s = synhl_for_lang("toy", 3);
	T_EQ_INT(role1(s, "a kw", "kw"), ROLE_SYNTAX_GREEN);
	/* Without the user's, the system's. */
	synhl_configure(NULL, sys);
	s = synhl_for_lang("toy", 3);
	T_EQ_INT(role1(s, "a kw", "kw"), ROLE_SYNTAX_RED);
	/* No directory at all: nothing, and no error. */
	synhl_configure(NULL, "/nonexistent/nano");
	T_OK(synhl_for_lang("c", 1) == NULL);
	T_OK(synhl_for_file("a.c", "int x;", 6) == NULL);
	synhl_shutdown();
}

/* A huge line and a slow regex are capped: the frame is not held up. */
T_TEST(caps_bound_the_work)
{
	const struct synhl_syntax *s;
	const struct synhl_run *runs;
	struct timespec t0, t1;
	uint64_t st = 0;
	size_t n = 1 << 20, k, i;
	char *big = malloc(n + 1);
	double ms;

	write_file("slow.nanorc", "syntax slow \"\\.slow$\"\ncolor red \"(a|aa)*(a|aa)*(a|aa)*c\"\n"
	    "color green \"a\"\n");
	synhl_configure(NULL, tmp);
	s = synhl_for_lang("slow", 4);
	T_OK(s != NULL);
	memset(big, 'a', n);
	big[n] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	k = synhl_line(s, big, n, &st, &runs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* Generous: a loaded machine; uncapped, this takes minutes. */
	T_OK(ms < 3000);
	/* Past the caps the caller's style goes on. */
	T_OK(k >= 1 && runs[k - 1].role == SYNHL_BASE && runs[k - 1].off <= SYNHL_LINE_MAX);
	for (i = 1; i < k; i++)
		T_OK(runs[i].off > runs[i - 1].off);
	free(big);
	synhl_shutdown();
}

/* A character is never split between two styles. */
T_TEST(runs_keep_characters_whole)
{
	const struct synhl_syntax *s;
	const struct synhl_run *runs;
	const char *line = "x\xC3\xA9y";
	uint64_t st = 0;
	size_t k, i;

	write_file("bytes.nanorc", "syntax bytes \"\\.bytes$\"\ncolor red \"x.\"\n");
	synhl_configure(NULL, tmp);
	s = synhl_for_lang("bytes", 5);
	k = synhl_line(s, line, strlen(line), &st, &runs);
	for (i = 0; i < k; i++)
		T_OK(((unsigned char)line[runs[i].off] & 0xC0) != 0x80);
	synhl_shutdown();
}

/* The real nano files, as Debian installs them (scripts/install-deps.sh installs nano). */
T_TEST(real_c_and_python)
{
	const struct synhl_syntax *c, *py;
	uint64_t st = 0;

	if (access("/usr/share/nano/c.nanorc", R_OK) != 0) {
		printf("# skipped: /usr/share/nano/c.nanorc is not installed\n");
		return;
	}
	synhl_configure(NULL, "/usr/share/nano");
	c = synhl_for_lang("c", 1);
	T_OK(c != NULL && strcmp(synhl_name(c), "c") == 0);
	T_OK(synhl_for_file("src/main.c", NULL, 0) == c);
	T_OK(synhl_for_lang("cpp", 3) == c);
	T_EQ_INT(role1(c, "static int f(void) { return 0; }", "int"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role1(c, "static int f(void) { return 0; }", "return"), ROLE_SYNTAX_MAGENTA);
	T_EQ_INT(role1(c, "static int f(void) { return 0; }", "f("), SYNHL_BASE);
	T_EQ_INT(role1(c, "\tif (x) puts(\"hi there\");", "if"), ROLE_SYNTAX_YELLOW);
	T_EQ_INT(role1(c, "\tif (x) puts(\"hi there\");", "hi there"), ROLE_SYNTAX_YELLOW);
	T_EQ_INT(role1(c, "x = 1; // note", "// note"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(role1(c, "#include <stdio.h>", "#include"), ROLE_SYNTAX_CYAN);
	T_EQ_INT(role_in(c, "int a; /* starts", &st, "/* starts"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(role_in(c, "still comment int", &st, "int"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(role_in(c, "ends */ int b;", &st, "ends"), ROLE_SYNTAX_BLUE);
	T_EQ_INT(role_in(c, "int c;", &st, "int"), ROLE_SYNTAX_GREEN);
	py = synhl_for_lang("python", 6);
	T_OK(py != NULL && synhl_for_lang("py", 2) == py);
	T_OK(synhl_for_file("tool", "#!/usr/bin/env python3", 22) == py);
	T_EQ_INT(role1(py, "def f(x):  # note", "def"), ROLE_SYNTAX_CYAN);
	T_EQ_INT(role1(py, "def f(x):  # note", "# note"), ROLE_SYNTAX_RED);
	T_EQ_INT(role1(py, "    return 'abc' or None", "return"), ROLE_SYNTAX_CYAN);
	T_EQ_INT(role1(py, "    return 'abc' or None", "'abc'"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role1(py, "    return 'abc' or None", "None"), ROLE_SYNTAX_MAGENTA);
	st = 0;
	T_EQ_INT(role_in(py, "s = \"\"\"doc", &st, "doc"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role_in(py, "more words", &st, "words"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role_in(py, "end\"\"\" + x", &st, "end"), ROLE_SYNTAX_GREEN);
	T_EQ_INT(role_in(py, "import os", &st, "import"), ROLE_SYNTAX_CYAN);
	T_EQ_INT(role_in(py, "import os", &st, "os"), SYNHL_BASE);
	/* The same line again comes from the cache, with the same state. */
	st = 0;
	T_EQ_INT(role_in(py, "s = \"\"\"doc", &st, "doc"), ROLE_SYNTAX_GREEN);
	T_OK(st != 0);
	synhl_shutdown();
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	snprintf(tmp, sizeof tmp, "/tmp/test_tui_synhl.XXXXXX");
	if (mkdtemp(tmp) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	T_RUN(nanorc_reader);
	T_RUN(user_nanorc_and_includes);
	T_RUN(caps_bound_the_work);
	T_RUN(runs_keep_characters_whole);
	T_RUN(real_c_and_python);
	{
		char cmd[128];

		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			T_FAIL("cannot remove %s", tmp);
	}
	return t_done();
}
