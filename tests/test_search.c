/* Unit tests of tools/ignore and the glob and grep tools, on a real temporary tree. */
#include "autoconf.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "ignore.h"
#include "pathglob.h"
#include "tool.h"
#include "xalloc.h"
#include "t.h"
#include "t_tree.h"

static char outside[PATH_MAX];
static struct tool_out out;

/* Set a file's modification time to base + sec. */
static void
age(const char *rel, time_t sec)
{
	char p[PATH_MAX + 64];
	struct timespec ts[2];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	ts[0].tv_sec = ts[1].tv_sec = 1700000000 + sec;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW);
}

/* The deny rules the next run sees (NULL: none). */
static const struct sandbox_policy *run_policy;

/* Deny dn/.env and dn/private (and below). */
static bool
deny_dn(void *arg, enum sandbox_access access, const char *path)
{
	(void)arg;
	(void)access;
	return strcmp(path, "dn/.env") == 0 || strcmp(path, "dn/private") == 0 ||
	    strncmp(path, "dn/private/", 11) == 0;
}

/* Run a tool on a JSON input under run_policy; the result is in out. */
static const char *
run(const struct tool_def *t, const char *json)
{
	return t_tree_run(t, json, run_policy, &out);
}

/* pathglob in the glob tool's mode */

static const struct {
	const char	*pat;
	const char	*path;
	bool		 match;
} fn_cases[] = {
	{ "*.c", "main.c", true },
	{ "*.c", "src/main.c", false },
	{ "*.c", ".c", true },
	{ "src/*.c", "src/main.c", true },
	{ "src/*.c", "src/sub/main.c", false },
	{ "**/*.c", "main.c", true },
	{ "**/*.c", "a/b/c/main.c", true },
	{ "**/*.c", "a/b/c/main.h", false },
	{ "src/**", "src/a", true },
	{ "src/**", "src/a/b/c", true },
	{ "src/**", "src", false },
	{ "a/**/b", "a/b", true },
	{ "a/**/b", "a/x/b", true },
	{ "a/**/b", "a/x/y/z/b", true },
	{ "a/**/b", "a/x/y/z/c", false },
	{ "a/**/b", "x/a/b", false },
	{ "**", "anything/at/all", true },
	{ "**/x/**/y", "p/x/q/r/y", true },
	{ "**/x/**/y", "p/x/q/r/z", false },
	{ "a**b", "axxb", true },
	{ "a**b", "ax/xb", false },
	{ "?.txt", "a.txt", true },
	{ "?.txt", "ab.txt", false },
	{ "?.txt", "\xc3\xa9.txt", true },
	{ "?", "/", false },
	{ "[abc].c", "b.c", true },
	{ "[abc].c", "d.c", false },
	{ "[!abc].c", "d.c", true },
	{ "[^abc].c", "a.c", false },
	{ "[a-c]x", "bx", true },
	{ "[a-c]x", "dx", false },
	{ "[]]", "]", true },
	{ "[[:digit:]]*", "7up", true },
	{ "[[:digit:]]*", "up", false },
	{ "[\xc3\xa0-\xc3\xbf]", "\xc3\xa9", true },
	{ "[abc", "[abc", true },
	{ "\\*", "*", true },
	{ "\\*", "x", false },
	{ "*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
	{ "foo", "foo", true },
	{ "foo", "foobar", false },
	{ "", "", true },
};

T_TEST(fnmatch_table)
{
	size_t i;

	for (i = 0; i < sizeof fn_cases / sizeof fn_cases[0]; i++) {
		bool m = pathglob_match(PATHGLOB_TOOL, fn_cases[i].pat, strlen(fn_cases[i].pat),
		    fn_cases[i].path, strlen(fn_cases[i].path));

		if (m != fn_cases[i].match)
			T_FAIL("pathglob_match(TOOL, \"%s\", \"%s\") == %d", fn_cases[i].pat,
			    fn_cases[i].path, m);
	}
}

/* Many "**" against a deep path must stay fast (no exponential backtracking). */
T_TEST(fnmatch_no_blowup)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT), pat = BUF_INIT(BUF_NOLIMIT);
	clock_t t0 = clock();
	int i;

	for (i = 0; i < 60; i++)
		buf_puts(&path, "a/");
	buf_puts(&path, "c");
	for (i = 0; i < 20; i++)
		buf_puts(&pat, "**/a*/");
	buf_puts(&pat, "b");
	T_OK(!pathglob_match(PATHGLOB_TOOL, pat.data, pat.len, path.data, path.len));
	/* An exponential search takes hours here; the bound holds under valgrind on a loaded machine too. */
	T_OK((double)(clock() - t0) / CLOCKS_PER_SEC < 300.0);
	buf_release(&path);
	buf_release(&pat);
}

T_TEST(braces)
{
	struct buf err = BUF_INIT(4096);
	char **v;
	int n;

	n = pathglob_braces("src/*.{c,h}", 16, &v, &err);
	T_EQ_INT(n, 2);
	if (n == 2) {
		T_EQ_STR(v[0], "src/*.c");
		T_EQ_STR(v[1], "src/*.h");
		T_OK(v[2] == NULL);
	}
	pathglob_braces_free(v);
	n = pathglob_braces("{a,b{1,2}}x{,y}", 16, &v, &err);
	T_EQ_INT(n, 6);
	if (n == 6) {
		T_EQ_STR(v[0], "ax");
		T_EQ_STR(v[1], "axy");
		T_EQ_STR(v[2], "b1x");
		T_EQ_STR(v[5], "b2xy");
	}
	pathglob_braces_free(v);
	n = pathglob_braces("plain\\{x}", 16, &v, &err);
	T_EQ_INT(n, 1);
	if (n == 1)
		T_EQ_STR(v[0], "plain\\{x}");
	pathglob_braces_free(v);
	T_EQ_INT(pathglob_braces("a{b,c", 16, &v, &err), -1);
	T_CONTAINS(buf_cstr(&err), "unbalanced");
	T_OK(v == NULL);
	buf_reset(&err);
	T_EQ_INT(pathglob_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"
	    "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", 64, &v, &err), -1);
	T_CONTAINS(buf_cstr(&err), "more than 64");
	buf_release(&err);
}

/* ignore_match */

static void
make_ignore_tree(void)
{
	puts_file("ig/.gitignore",
	    "# build output\n"
	    "\n"
	    "*.o\n"
	    "/only-root.txt\n"
	    "logs/\n"
	    "doc/*.html\n"
	    "**/cache\n"
	    "deep/**/tmp\n"
	    "!important.o\n"
	    "trailing   \n"
	    "\\#hash\n"
	    "\\!bang\n"
	    "out/**\n"
	    "*.swp\r\n");
	puts_file("ig/.git/info/exclude", "excluded-by-info\n");
	puts_file("ig/sub/.gitignore", "!keep.o\n/local\nnested-only\n");
	puts_file("ig/sub/inner/.gitignore", "*.txt\n!wanted.txt\n");
}

T_TEST(ignore_rules)
{
	struct ignore *ig;
	char r[PATH_MAX + 8];

	make_ignore_tree();
	snprintf(r, sizeof r, "%s/ig", root);
	ig = ignore_new(r);
	T_OK(ignore_match(ig, ".git", true));
	T_OK(ignore_match(ig, "sub/.git", false));
	T_OK(ignore_match(ig, "a.o", false));
	T_OK(ignore_match(ig, "x/y/z.o", false));
	T_OK(!ignore_match(ig, "important.o", false));
	T_OK(!ignore_match(ig, "a.c", false));
	T_OK(ignore_match(ig, "only-root.txt", false));
	T_OK(!ignore_match(ig, "sub/only-root.txt", false));
	T_OK(ignore_match(ig, "logs", true));
	T_OK(!ignore_match(ig, "logs", false));
	T_OK(ignore_match(ig, "sub/logs", true));
	T_OK(ignore_match(ig, "doc/a.html", false));
	T_OK(!ignore_match(ig, "x/doc/a.html", false));
	T_OK(!ignore_match(ig, "doc/sub/a.html", false));
	T_OK(ignore_match(ig, "cache", true));
	T_OK(ignore_match(ig, "a/b/cache", false));
	T_OK(ignore_match(ig, "deep/tmp", true));
	T_OK(ignore_match(ig, "deep/a/b/tmp", true));
	T_OK(!ignore_match(ig, "other/a/tmp", true));
	T_OK(ignore_match(ig, "trailing", false));
	T_OK(ignore_match(ig, "#hash", false));
	T_OK(ignore_match(ig, "!bang", false));
	T_OK(ignore_match(ig, "out/x", false));
	T_OK(!ignore_match(ig, "out", true));
	T_OK(ignore_match(ig, "f.swp", false));
	T_OK(ignore_match(ig, "excluded-by-info", false));
	/* Nested: sub/.gitignore re-includes keep.o and anchors /local to sub/. */
	T_OK(!ignore_match(ig, "sub/keep.o", false));
	T_OK(ignore_match(ig, "sub/other.o", false));
	T_OK(ignore_match(ig, "sub/local", false));
	T_OK(!ignore_match(ig, "sub/x/local", false));
	T_OK(ignore_match(ig, "sub/x/nested-only", false));
	T_OK(!ignore_match(ig, "nested-only", false));
	T_OK(ignore_match(ig, "sub/inner/notes.txt", false));
	T_OK(!ignore_match(ig, "sub/inner/wanted.txt", false));
	T_OK(!ignore_match(ig, "sub/notes.txt", false));
	/* Back up and down again: the stack follows. */
	T_OK(!ignore_match(ig, "nested-only", false));
	T_OK(ignore_match(ig, "sub/inner/deeper/x.txt", false));
	T_OK(ignore_match(ig, "sub/local", false));
	ignore_free(ig);
}

struct collect {
	struct buf	 b;
	bool		 skip_sub;
};

static enum ignore_visit
collect_visit(void *arg, const struct ignore_entry *e)
{
	struct collect *c = arg;

	buf_append(&c->b, e->path, e->pathlen);
	buf_puts(&c->b, e->type == IGNORE_DIR ? "/\n" : e->type == IGNORE_LINK ? "@\n" : "\n");
	return c->skip_sub && strcmp(e->name, "sub") == 0 ? IGNORE_SKIP : IGNORE_CONTINUE;
}

T_TEST(ignore_walk_order_and_skips)
{
	struct collect c = { BUF_INIT(BUF_NOLIMIT), false };
	struct ignore_walk_stats st = { 0, 0, 0 };
	struct buf err = BUF_INIT(4096);
	struct ignore *ig = ignore_new(root);

	puts_file("w/b.c", "");
	puts_file("w/a.c", "");
	puts_file("w/a.o", "");
	puts_file("w/sub/z.c", "");
	puts_file("w/sub/y.o", "");
	puts_file("w/.git/config", "");
	puts_file("w/.gitignore", "*.o\n");
	t_tree_link("/", "w/rootlink");
	T_EQ_INT(ignore_walk(ig, root, "w", 0, collect_visit, &c, &st, &err), 0);
	T_EQ_STR(buf_cstr(&c.b), "w/.gitignore\nw/a.c\nw/b.c\nw/rootlink@\nw/sub/\nw/sub/z.c\n");
	T_EQ_INT(st.hidden, 3);
	buf_reset(&c.b);
	c.skip_sub = true;
	T_EQ_INT(ignore_walk(ig, root, "w", 0, collect_visit, &c, NULL, &err), 0);
	T_EQ_STR(buf_cstr(&c.b), "w/.gitignore\nw/a.c\nw/b.c\nw/rootlink@\nw/sub/\n");
	buf_reset(&c.b);
	c.skip_sub = false;
	T_EQ_INT(ignore_walk(NULL, root, "w", 1, collect_visit, &c, NULL, &err), 0);
	T_EQ_STR(buf_cstr(&c.b), "w/.gitignore\nw/a.c\nw/a.o\nw/b.c\nw/rootlink@\nw/sub/\n");
	T_EQ_INT(ignore_walk(ig, root, "no/such", 0, collect_visit, &c, NULL, &err), -1);
	T_CONTAINS(buf_cstr(&err), "cannot open the directory no/such");
	ignore_free(ig);
	buf_release(&c.b);
	buf_release(&err);
}

/* glob */

static void
make_glob_tree(void)
{
	puts_file("g/.gitignore", "ignored/\n*.tmp\n");
	puts_file("g/main.c", "");
	puts_file("g/util.h", "");
	puts_file("g/src/a.c", "");
	puts_file("g/src/b.h", "");
	puts_file("g/src/deep/er/c.c", "");
	puts_file("g/ignored/x.c", "");
	puts_file("g/scratch.tmp", "");
	puts_file("g/.git/hooks/pre.c", "");
	age("g/main.c", 10);
	age("g/util.h", 20);
	age("g/src/a.c", 30);
	age("g/src/b.h", 5);
	age("g/src/deep/er/c.c", 40);
}

T_TEST(glob_patterns)
{
	make_glob_tree();
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"**/*.c\",\"path\":\"g\"}"),
	    "g/src/deep/er/c.c\ng/src/a.c\ng/main.c\n");
	T_OK(!out.is_error);
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"*.c\",\"path\":\"g\"}"), "g/main.c\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"g/**/*.{c,h}\"}"),
	    "g/src/deep/er/c.c\ng/src/a.c\ng/util.h\ng/main.c\ng/src/b.h\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"./g/src/*\"}"), "g/src/a.c\ng/src/b.h\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"g/src/?.[ch]\"}"), "g/src/a.c\ng/src/b.h\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"{g/src,g}/*.h\"}"), "g/util.h\ng/src/b.h\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"**\",\"path\":\"g/src\"}"),
	    "g/src/deep/er/c.c\ng/src/a.c\ng/src/b.h\n");
	/* Wildcards in directory components (the walk prunes by them). */
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"g/*/*.c\"}"), "g/src/a.c\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"*/s?c/**/c.c\"}"), "g/src/deep/er/c.c\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"*/*/deep/*/*\"}"), "g/src/deep/er/c.c\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"g/[a-r]*/**\"}"),
	    "No files match g/[a-r]*/** in . [3 entries skipped: .git and git-ignored]\n");
	/* Absolute inside the workspace is taken as relative to the root. */
	{
		char json[PATH_MAX + 64];

		snprintf(json, sizeof json, "{\"pattern\":\"%s/g/*.h\"}", root);
		T_EQ_STR(run(&tool_glob, json), "g/util.h\n");
	}
}

T_TEST(glob_none_and_errors)
{
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"*.rs\",\"path\":\"g\"}"),
	    "No files match *.rs in g (a pattern without \"/\" matches only that"
	    " directory's own files; try **/*.rs) [3 entries skipped: .git and git-ignored]\n");
	T_OK(!out.is_error);
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"missing/dir/*.c\"}"),
	    "No files match missing/dir/*.c in .\n");
	run(&tool_glob, "{\"pattern\":\"../*\"}");
	T_OK(out.is_error);
	run(&tool_glob, "{\"pattern\":\"g/../../x\"}");
	T_OK(out.is_error);
	run(&tool_glob, "{\"pattern\":\"{g,..}/*\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "may not use");
	run(&tool_glob, "{\"pattern\":\"/etc/*\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	run(&tool_glob, "{\"pattern\":\"*\",\"path\":\"../..\"}");
	T_OK(out.is_error);
	run(&tool_glob, "{\"pattern\":\"{a,b\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "unbalanced");
	run(&tool_glob, "{\"pattern\":\"*\",\"path\":\"g/main.c\"}");
	T_OK(out.is_error);
	run(&tool_glob, "{}");
	T_OK(out.is_error);
}

T_TEST(glob_symlinks)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/secret.c", outside);
	fclose(fopen(p, "w"));
	puts_file("s/real.c", "");
	age("s/real.c", 1);
	t_tree_link(outside, "s/outdir");
	t_tree_link(p, "s/outfile.c");
	t_tree_link("real.c", "s/alias.c");
	t_tree_link("nowhere.c", "s/dangling.c");
	t_tree_link("..", "s/loop");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"s/**/*.c\"}"), "s/alias.c\ns/real.c\n");
	/* Nor through a link named in the pattern's literal part. */
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"s/outdir/*.c\"}"),
	    "No files match s/outdir/*.c in .\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"s/loop/s/*.c\"}"),
	    "No files match s/loop/s/*.c in .\n");
}

T_TEST(glob_odd_names)
{
	puts_file("odd2/b\xe9.c", "");
	puts_file("odd2/\xc3\xa9t\xc3\xa9.c", "");
	age("odd2/b\xe9.c", 2);
	age("odd2/\xc3\xa9t\xc3\xa9.c", 1);
	/* "?" takes a bad byte or a whole UTF-8 character; output is UTF-8. */
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"odd2/b?.c\"}"), "odd2/b\xef\xbf\xbd.c\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"odd2/?t?.c\"}"), "odd2/\xc3\xa9t\xc3\xa9.c\n");
	T_EQ_STR(run(&tool_glob, "{\"pattern\":\"odd2/*\"}"),
	    "odd2/b\xef\xbf\xbd.c\nodd2/\xc3\xa9t\xc3\xa9.c\n");
}

T_TEST(glob_cap)
{
	char name[64];
	const char *text;
	int i;

	for (i = 0; i < 250; i++) {
		snprintf(name, sizeof name, "cap/f%03d.txt", i);
		puts_file(name, "");
		age(name, i);
	}
	text = run(&tool_glob, "{\"pattern\":\"cap/*.txt\"}");
	T_OK(!out.is_error);
	T_OK(strncmp(text, "cap/f249.txt\ncap/f248.txt\n", 26) == 0);
	T_CONTAINS(text, "cap/f050.txt\n[200 of 250 matching files shown, newest first;"
	    " narrow the pattern or give a path to see the rest]\n");
	T_OK(strstr(text, "cap/f049.txt") == NULL);
}

/* grep */

static void
make_grep_tree(void)
{
	puts_file("t/.gitignore", "build/\n*.min.js\n");
	puts_file("t/a.c",
	    "#include <stdio.h>\n"
	    "int main(void)\n"
	    "{\n"
	    "\tprintf(\"hello\\n\");\n"
	    "\treturn 0;\n"
	    "}\n");
	puts_file("t/b.h", "int helper(void);\nint Hello;\n");
	puts_file("t/notes.txt", "hello world\nbye\n");
	puts_file("t/build/gen.c", "hello from build\n");
	puts_file("t/app.min.js", "hello minified\n");
	put("t/blob.bin", "hello\0binary", 12);
	puts_file("t/dos.txt", "first hello\r\nsecond\r\n");
	puts_file("t/nonl.txt", "no newline hello");
	puts_file("t/sub/.gitignore", "*.txt\n!keep.txt\n");
	puts_file("t/sub/drop.txt", "hello dropped\n");
	puts_file("t/sub/keep.txt", "hello kept\n");
}

T_TEST(grep_files_mode)
{
	make_grep_tree();
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hello\",\"path\":\"t\"}"),
	    "t/a.c\nt/dos.txt\nt/nonl.txt\nt/notes.txt\nt/sub/keep.txt\n");
	T_OK(!out.is_error);
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hello\",\"path\":\"t\",\"ignore_case\":true}"),
	    "t/a.c\nt/b.h\nt/dos.txt\nt/nonl.txt\nt/notes.txt\nt/sub/keep.txt\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"(?i)HELLO\",\"path\":\"t\",\"glob\":\"*.{c,h}\"}"),
	    "t/a.c\nt/b.h\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hello\",\"path\":\"t\",\"glob\":\"!*.txt\"}"),
	    "t/a.c\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hello\",\"path\":\"t\",\"glob\":\"sub/*\"}"),
	    "t/sub/keep.txt\n");
	/* An ignored directory named as path is searched. */
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hello\",\"path\":\"t/build\"}"),
	    "t/build/gen.c\n");
}

T_TEST(grep_content_mode)
{
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hel+o\",\"path\":\"t\","
	    "\"output_mode\":\"content\"}"),
	    "t/a.c:4:\tprintf(\"hello\\n\");\n"
	    "t/dos.txt:1:first hello\n"
	    "t/nonl.txt:1:no newline hello\n"
	    "t/notes.txt:1:hello world\n"
	    "t/sub/keep.txt:1:hello kept\n");
	/* "$" matches before CRLF and at the end of a file without a newline. */
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"hello$\",\"path\":\"t\","
	    "\"output_mode\":\"content\"}"),
	    "t/dos.txt:1:first hello\n"
	    "t/nonl.txt:1:no newline hello\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"^\\\\s*return\",\"path\":\"t/a.c\","
	    "\"output_mode\":\"content\"}"),
	    "t/a.c:5:\treturn 0;\n");
}

T_TEST(grep_context)
{
	puts_file("ctx/f.txt", "1\n2\nmatch 3\n4\n5\n6\n7\nmatch 8\nmatch 9\n10\n11\n12\n13\n14\nmatch 15\n");
	puts_file("ctx/g.txt", "match a\nb\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"match\",\"path\":\"ctx\","
	    "\"output_mode\":\"content\",\"context\":1}"),
	    "ctx/f.txt-2-2\n"
	    "ctx/f.txt:3:match 3\n"
	    "ctx/f.txt-4-4\n"
	    "--\n"
	    "ctx/f.txt-7-7\n"
	    "ctx/f.txt:8:match 8\n"
	    "ctx/f.txt:9:match 9\n"
	    "ctx/f.txt-10-10\n"
	    "--\n"
	    "ctx/f.txt-14-14\n"
	    "ctx/f.txt:15:match 15\n"
	    "--\n"
	    "ctx/g.txt:1:match a\n"
	    "ctx/g.txt-2-b\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"match [38]\",\"path\":\"ctx/f.txt\","
	    "\"output_mode\":\"content\",\"context\":2}"),
	    "ctx/f.txt-1-1\n"
	    "ctx/f.txt-2-2\n"
	    "ctx/f.txt:3:match 3\n"
	    "ctx/f.txt-4-4\n"
	    "ctx/f.txt-5-5\n"
	    "ctx/f.txt-6-6\n"
	    "ctx/f.txt-7-7\n"
	    "ctx/f.txt:8:match 8\n"
	    "ctx/f.txt-9-match 9\n"
	    "ctx/f.txt-10-10\n");
}

T_TEST(grep_count_mode)
{
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"match\",\"path\":\"ctx\","
	    "\"output_mode\":\"count\"}"),
	    "ctx/f.txt:4\nctx/g.txt:1\n");
	run(&tool_grep, "{\"pattern\":\"x\",\"output_mode\":\"lines\"}");
	T_OK(out.is_error);
}

T_TEST(grep_lines_not_spanned)
{
	puts_file("span/f.txt", "ends with a\nb starts\na b\n");
	/* \s could match the newline: only a match within one line counts. */
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"a\\\\sb\",\"path\":\"span\","
	    "\"output_mode\":\"content\"}"),
	    "span/f.txt:3:a b\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"a\\\\nb\",\"path\":\"span\"}"),
	    "No matches for a\\nb in span (1 file searched)\n");
}

T_TEST(grep_invalid_regex)
{
	const char *text = run(&tool_grep, "{\"pattern\":\"foo(bar\"}");

	T_OK(out.is_error);
	T_CONTAINS(text, "invalid regex: missing closing parenthesis at offset 7");
	run(&tool_grep, "{\"pattern\":\"[z-a]\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "invalid regex");
	run(&tool_grep, "{\"pattern\":\"\"}");
	T_OK(out.is_error);
	run(&tool_grep, "{\"pattern\":\"x\",\"max_results\":0}");
	T_OK(out.is_error);
	run(&tool_grep, "{\"pattern\":\"x\",\"glob\":\"{a\"}");
	T_OK(out.is_error);
}

/* Catastrophic backtracking hits PCRE2's limit: reported, not hung. */
T_TEST(grep_match_limit)
{
	char line[64];

	memset(line, 'a', 40);
	memcpy(line + 40, "!\n", 3);
	puts_file("evil/x.txt", line);
	puts_file("evil/y.txt", "fine\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"(a+)+$|fine\",\"path\":\"evil\","
	    "\"output_mode\":\"content\"}"),
	    "evil/y.txt:1:fine\n"
	    "[the pattern failed in 1 file (match limit exceeded), which may hold more"
	    " matches; simplify the pattern]\n");
	T_OK(!out.is_error);
}

T_TEST(grep_binary_and_outside)
{
	char p[PATH_MAX + 64];

	run(&tool_grep, "{\"pattern\":\"hello\",\"path\":\"t/blob.bin\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "binary");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"binary\",\"path\":\"t\"}"),
	    "No matches for binary in t (8 files searched, 1 binary skipped)\n");
	run(&tool_grep, "{\"pattern\":\"root\",\"path\":\"/etc\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	run(&tool_grep, "{\"pattern\":\"root\",\"path\":\"../../../etc/passwd\"}");
	T_OK(out.is_error);
	/* A link to a directory outside is not followed during a walk. */
	snprintf(p, sizeof p, "%s/leak.txt", outside);
	{
		FILE *f = fopen(p, "w");

		fputs("TOPSECRET\n", f);
		fclose(f);
	}
	t_tree_link(outside, "t/outlink");
	t_tree_link(p, "t/outfile.txt");
	T_CONTAINS(run(&tool_grep, "{\"pattern\":\"TOPSECRET\"}"), "No matches for TOPSECRET in . (");
	T_OK(!out.is_error);
}

T_TEST(grep_caps)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT);
	const char *text;
	char name[64];
	int i;

	for (i = 1; i <= 300; i++)
		buf_printf(&s, "line %d %s\n", i, "......................................"
		    "..............................................");
	put("cap/lines.txt", s.data, s.len);
	buf_release(&s);
	for (i = 0; i < 150; i++) {
		snprintf(name, sizeof name, "cap/f%03d.txt", i);
		puts_file(name, "x\n");
	}
	/* A pattern matching everything stops at max_results. */
	text = run(&tool_grep, "{\"pattern\":\"\",\"path\":\"cap\"}");
	T_OK(out.is_error);
	text = run(&tool_grep, "{\"pattern\":\"^\",\"path\":\"cap/lines.txt\","
	    "\"output_mode\":\"content\"}");
	T_OK(!out.is_error);
	T_OK(strncmp(text, "cap/lines.txt:1:line 1 ...", 26) == 0);
	T_CONTAINS(text, "..\ncap/lines.txt:100:line 100 ...");
	T_CONTAINS(text, "..\n[stopped at max_results=100 matching"
	    " lines; narrow the search with path, glob or a more specific pattern,"
	    " or raise max_results]\n");
	T_OK(strstr(text, ":101:") == NULL);
	text = run(&tool_grep, "{\"pattern\":\".\",\"path\":\"cap\",\"max_results\":3}");
	T_EQ_STR(text, "cap/f000.txt\ncap/f001.txt\ncap/f002.txt\n[stopped at max_results=3"
	    " files; narrow the search with path, glob or a more specific pattern, or"
	    " raise max_results]\n");
	/* And the byte cap, whatever max_results says. */
	text = run(&tool_grep, "{\"pattern\":\"x|line\",\"path\":\"cap\","
	    "\"output_mode\":\"content\",\"max_results\":100000,\"context\":3}");
	T_OK(!out.is_error);
	T_OK(out.text.len <= TOOL_READ_CAP);
	T_CONTAINS(text, "[output truncated at 20 KB; narrow the search with path, glob or a"
	    " more specific pattern, or use output_mode files or count]\n");
	text = run(&tool_grep, "{\"pattern\":\"x\",\"path\":\"cap\",\"output_mode\":\"count\","
	    "\"max_results\":1000}");
	T_CONTAINS(text, "cap/f149.txt:1\n");
}

T_TEST(grep_long_line_window)
{
	size_t n = 1024 * 1024;
	char *s = xmalloc(n + 1);
	const char *text;

	memset(s, 'q', n);
	memcpy(s + n / 2, "NEEDLE", 6);
	s[n] = '\n';
	put("long/min.js", s, n + 1);
	free(s);
	text = run(&tool_grep, "{\"pattern\":\"NEEDLE\",\"path\":\"long\","
	    "\"output_mode\":\"content\"}");
	T_OK(!out.is_error);
	T_OK(out.text.len < 1000);
	T_OK(strncmp(text, "long/min.js:1:[... 524163 bytes] ", 33) == 0);
	T_CONTAINS(text, "qqqNEEDLEqqq");
	T_CONTAINS(text, " [... 523913 bytes]\n");
}

T_TEST(grep_odd_names_and_utf8)
{
	puts_file("odd/caf\xe9.txt", "latin1 caf\xe9 here\n");
	puts_file("odd/utf.txt", "na\xc3\xafve \xe2\x82\xac 5\n");
	/* Invalid UTF-8 is searched (but "." never matches a bad byte). */
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"latin1 caf\",\"path\":\"odd\","
	    "\"output_mode\":\"content\"}"),
	    "odd/caf\xef\xbf\xbd.txt:1:latin1 caf\xef\xbf\xbd here\n");
	/* UTF mode: "." is one character, and case folding is Unicode's. */
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"na.ve . \\\\d\",\"path\":\"odd\","
	    "\"output_mode\":\"content\"}"),
	    "odd/utf.txt:1:na\xc3\xafve \xe2\x82\xac 5\n");
	T_EQ_STR(run(&tool_grep, "{\"pattern\":\"NA\xc3\x8fVE\",\"path\":\"odd\","
	    "\"ignore_case\":true}"), "odd/utf.txt\n");
}

/* Deny rules hold on every file a search visits, and the result says how many. */
T_TEST(search_skips_denied)
{
	char p[PATH_MAX + 64];

	puts_file("dn/.env", "KEY=denied-marker\n");
	puts_file("dn/ok.txt", "KEY=fine\n");
	puts_file("dn/private/a.txt", "KEY=private-marker\n");
	puts_file("dn/private/b.txt", "KEY=private-marker\n");
	snprintf(p, sizeof p, "%s/dn/lnk", root);
	(void)!symlink("private", p);
	/* without rules everything is found: the checks below can fail */
	run_policy = NULL;
	T_CONTAINS(run(&tool_grep, "{\"pattern\":\"KEY\",\"path\":\"dn\",\"output_mode\":\"content\"}"),
	    "denied-marker");
	/* the rules see paths relative to the root, as reached */
	{
		static const struct sandbox_policy dn = { deny_dn, NULL };

		run_policy = &dn;
		run(&tool_grep, "{\"pattern\":\"KEY\",\"path\":\"dn\",\"output_mode\":\"content\"}");
		T_OK(!out.is_error);
		T_CONTAINS(buf_cstr(&out.text), "dn/ok.txt:1:KEY=fine");
		T_OK(strstr(buf_cstr(&out.text), "marker") == NULL);
		/* .env and the directory private/ (not entered) */
		T_CONTAINS(buf_cstr(&out.text), "[2 files were left out by deny rules]");
		run(&tool_glob, "{\"pattern\":\"dn/**/*\"}");
		T_CONTAINS(buf_cstr(&out.text), "dn/ok.txt");
		T_OK(strstr(buf_cstr(&out.text), ".env") == NULL);
		T_OK(strstr(buf_cstr(&out.text), "private/") == NULL);
		T_CONTAINS(buf_cstr(&out.text), "left out by deny rules");
		/* grep given the link: it reaches dn/private, which is denied */
		run(&tool_grep, "{\"pattern\":\"KEY\",\"path\":\"dn/lnk\"}");
		T_OK(out.is_error);
		T_CONTAINS(buf_cstr(&out.text), "dn/private, which a deny rule covers");
		/* grep given one denied file */
		run(&tool_grep, "{\"pattern\":\"KEY\",\"path\":\"dn/.env\"}");
		T_OK(out.is_error);
		T_CONTAINS(buf_cstr(&out.text), "deny rule");
	}
	run_policy = NULL;
}

int
main(void)
{
	char *r = t_tree_mkdtemp("/tmp/tandem-search-XXXXXX");
	char *o = t_tree_mkdtemp("/tmp/tandem-sout-XXXXXX");

	snprintf(root, sizeof root, "%s", r);
	snprintf(outside, sizeof outside, "%s", o);
	free(r);
	free(o);
	tool_out_init(&out);
	T_RUN(fnmatch_table);
	T_RUN(fnmatch_no_blowup);
	T_RUN(braces);
	T_RUN(ignore_rules);
	T_RUN(ignore_walk_order_and_skips);
	T_RUN(glob_patterns);
	T_RUN(glob_none_and_errors);
	T_RUN(glob_symlinks);
	T_RUN(glob_odd_names);
	T_RUN(glob_cap);
	T_RUN(grep_files_mode);
	T_RUN(grep_content_mode);
	T_RUN(grep_context);
	T_RUN(grep_count_mode);
	T_RUN(grep_lines_not_spanned);
	T_RUN(grep_invalid_regex);
	T_RUN(grep_match_limit);
	T_RUN(grep_binary_and_outside);
	T_RUN(grep_caps);
	T_RUN(grep_long_line_window);
	T_RUN(grep_odd_names_and_utf8);
	T_RUN(search_skips_denied);
	tool_out_release(&out);
	t_tree_remove(root);
	t_tree_remove(outside);
	return t_done();
}
