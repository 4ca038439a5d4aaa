/* Unit tests of the read_file and list_dir tools, on a real temporary tree. */
#include "autoconf.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "tool.h"
#include "xalloc.h"
#include "t.h"
#include "t_tree.h"

static char outside[PATH_MAX];
static struct tool_out out;

/* The deny rules the next run sees (NULL: none). */
static const struct sandbox_policy *run_policy;

/* Deny rd/secret (and below) and rd/.env. */
static bool
deny_rd(void *arg, enum sandbox_access access, const char *path)
{
	(void)arg;
	(void)access;
	return strcmp(path, "rd/.env") == 0 || strcmp(path, "rd/secret") == 0 ||
	    strncmp(path, "rd/secret/", 10) == 0;
}

static const struct sandbox_policy rd_policy = { deny_rd, NULL };

/* Run a tool on a JSON input under run_policy; the result is in out. */
static const char *
run(const struct tool_def *t, const char *json)
{
	return t_tree_run(t, json, run_policy, &out);
}

static void
setup(void)
{
	char *r = t_tree_mkdtemp("/tmp/tandem-read-XXXXXX");
	char *o = t_tree_mkdtemp("/tmp/tandem-rout-XXXXXX");

	snprintf(root, sizeof root, "%s", r);
	snprintf(outside, sizeof outside, "%s", o);
	free(r);
	free(o);
	tool_out_init(&out);
}

static void
teardown(void)
{
	tool_out_release(&out);
	t_tree_remove(root);
	t_tree_remove(outside);
}

static long
maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* read_file */

T_TEST(read_numbers_lines)
{
	puts_file("a.txt", "alpha\nbeta\n\tgamma\n");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"a.txt\"}"),
	    "     1\talpha\n     2\tbeta\n     3\t\tgamma\n");
	T_OK(!out.is_error);
	/* The same file by its absolute path. */
	{
		char json[PATH_MAX + 64];

		snprintf(json, sizeof json, "{\"path\":\"%s/a.txt\"}", root);
		T_EQ_STR(run(&tool_read_file, json),
		    "     1\talpha\n     2\tbeta\n     3\t\tgamma\n");
	}
}

T_TEST(read_offset_limit)
{
	puts_file("five.txt", "1\n2\n3\n4\n5\n");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"five.txt\",\"offset\":2,\"limit\":2}"),
	    "     2\t2\n     3\t3\n"
	    "[lines 2-3 shown; the file goes on (10 bytes in all): call read_file"
	    " with offset 4 to read on]\n");
	/* Up to the end: no note. */
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"five.txt\",\"offset\":4,\"limit\":2}"),
	    "     4\t4\n     5\t5\n");
	/* Numbers as strings are accepted, offset 0 means 1. */
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"five.txt\",\"offset\":\"5\"}"),
	    "     5\t5\n");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"five.txt\",\"offset\":0,\"limit\":1}"),
	    "     1\t1\n[lines 1-1 shown; the file goes on (10 bytes in all): call"
	    " read_file with offset 2 to read on]\n");
	run(&tool_read_file, "{\"path\":\"five.txt\",\"offset\":-3}");
	T_OK(out.is_error);
	run(&tool_read_file, "{\"path\":\"five.txt\",\"limit\":0}");
	T_OK(out.is_error);
	run(&tool_read_file, "{\"path\":\"five.txt\",\"limit\":\"lots\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "limit must be a whole number");
}

T_TEST(read_past_end)
{
	puts_file("three.txt", "a\nb\nc");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"three.txt\",\"offset\":9}"),
	    "offset 9 is past the end of three.txt (it has 3 lines)");
	T_OK(out.is_error);
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"three.txt\",\"offset\":3}"),
	    "     3\tc\n");
	T_OK(!out.is_error);
}

T_TEST(read_no_final_newline_and_crlf)
{
	puts_file("nonl.txt", "x\ny");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"nonl.txt\"}"),
	    "     1\tx\n     2\ty\n");
	puts_file("dos.txt", "one\r\ntwo\r\n\r\n");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"dos.txt\"}"),
	    "     1\tone\n     2\ttwo\n     3\t\n"
	    "[the file has CRLF line endings; the \\r is not shown]\n");
}

T_TEST(read_empty_binary_dir_fifo)
{
	char p[PATH_MAX + 64];

	puts_file("empty.txt", "");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"empty.txt\"}"), "empty.txt is empty (0 bytes)\n");
	T_OK(!out.is_error);
	put("bin.dat", "PK\003\004\000\000data", 10);
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"bin.dat\"}"),
	    "bin.dat is a binary file (10 bytes); not shown");
	T_OK(out.is_error);
	t_tree_mkdir("sub");
	run(&tool_read_file, "{\"path\":\"sub\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "use list_dir");
	/* A fifo must be refused, not block the tool forever. */
	snprintf(p, sizeof p, "%s/pipe", root);
	T_EQ_INT(mkfifo(p, 0600), 0);
	run(&tool_read_file, "{\"path\":\"pipe\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "not a regular file");
	run(&tool_read_file, "{\"path\":\"missing.txt\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "does not exist");
	run(&tool_read_file, "{}");
	T_OK(out.is_error);
}

T_TEST(read_refuses_outside)
{
	char p[PATH_MAX + 64], json[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/secret.txt", outside);
	fclose(fopen(p, "w"));
	run(&tool_read_file, "{\"path\":\"../../../../etc/passwd\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	run(&tool_read_file, "{\"path\":\"/etc/passwd\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	t_tree_link(p, "leak.txt");
	run(&tool_read_file, "{\"path\":\"leak.txt\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	t_tree_link(outside, "outdir");
	run(&tool_read_file, "{\"path\":\"outdir/secret.txt\"}");
	T_OK(out.is_error);
	snprintf(json, sizeof json, "{\"path\":\"%s/secret.txt\"}", outside);
	run(&tool_read_file, json);
	T_OK(out.is_error);
	/* A link that stays inside is fine. */
	puts_file("real.txt", "inside\n");
	t_tree_link("real.txt", "alias.txt");
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"alias.txt\"}"), "     1\tinside\n");
}

T_TEST(read_sanitizes_utf8)
{
	put("latin1.txt", "caf\xe9\nok \xe2\x9c\x93\n", 12);
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"latin1.txt\"}"),
	    "     1\tcaf\xef\xbf\xbd\n     2\tok \xe2\x9c\x93\n");
	/* A file whose name is not UTF-8: the message must still be UTF-8. */
	put("bad\xff.bin", "\0\0", 2);
	{
		cJSON *in = cJSON_CreateObject();
		struct tool_env env = { .root = root };

		cJSON_AddStringToObject(in, "path", "bad\xff.bin");
		tool_out_release(&out);
		tool_out_init(&out);
		tool_read_file.run(&env, in, &out);
		cJSON_Delete(in);
		T_OK(out.is_error);
		T_EQ_STR(buf_cstr(&out.text),
		    "bad\xef\xbf\xbd.bin is a binary file (2 bytes); not shown");
	}
}

T_TEST(read_long_lines)
{
	size_t n = 5000;
	char *s = xmalloc(n + 2), *want = xmalloc(2200);

	memset(s, 'x', n);
	s[n] = '\n';
	put("long.txt", s, n + 1);
	snprintf(want, 2200, "     1\t%.*s [line truncated: 2000 of 5000 bytes shown]\n",
	    2000, s);
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"long.txt\"}"), want);
	/* A multi-byte character on the cut is not split. */
	memset(s, 'y', n);
	memcpy(s + 1999, "\xc3\xa9", 2);
	put("cut.txt", s, n);
	snprintf(want, 2200, "     1\t%.*s [line truncated: 1999 of 5000 bytes shown]\n",
	    1999, s);
	T_EQ_STR(run(&tool_read_file, "{\"path\":\"cut.txt\"}"), want);
	free(s);
	free(want);
}

T_TEST(read_huge_single_line)
{
	size_t n = 24u * 1024 * 1024;
	char *s = xmalloc(n);
	const char *text;

	memset(s, 'z', n);
	s[n - 1] = '\n';
	put("huge.json", s, n);
	free(s);
	text = run(&tool_read_file, "{\"path\":\"huge.json\"}");
	T_OK(!out.is_error);
	T_OK(strlen(text) < 2100);
	T_CONTAINS(text, "[line truncated: 2000 of 25165823 bytes shown]");
}

T_TEST(read_output_cap)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT);
	char json[128];
	const char *text, *note;
	long next;
	int i;

	for (i = 1; i <= 3000; i++)
		buf_printf(&s, "line %04d %s\n", i,
		    "................................................................."
		    ".................");
	put("big.txt", s.data, s.len);
	buf_release(&s);
	text = run(&tool_read_file, "{\"path\":\"big.txt\"}");
	T_OK(!out.is_error);
	T_OK(out.text.len <= TOOL_READ_CAP);
	note = strstr(text, "[output capped at 20 KB: lines 1-");
	T_OK(note != NULL);
	if (note == NULL)
		return;
	T_CONTAINS(note, "call read_file with offset ");
	next = strtol(strstr(note, "offset ") + 7, NULL, 10);
	T_OK(next > 100 && next < 400);
	/* The last line shown is next - 1, and reading on starts at next. */
	snprintf(json, sizeof json, "line %04ld", next - 1);
	T_CONTAINS(text, json);
	snprintf(json, sizeof json, "line %04ld", next);
	T_OK(strstr(text, json) == NULL);
	snprintf(json, sizeof json, "{\"path\":\"big.txt\",\"offset\":%ld,\"limit\":1}", next);
	text = run(&tool_read_file, json);
	snprintf(json, sizeof json, "%6ld\tline %04ld ", next, next);
	T_OK(strncmp(text, json, strlen(json)) == 0);
}

/* A 100 MB file: reading near its end is one streamed pass, in little memory. */
T_TEST(read_100mb_file)
{
	size_t block = 1024 * 1024, lines_per = block / 64, blocks = 100, i;
	char *b = xmalloc(block + 1), json[128], p[PATH_MAX + 64], want[256];
	const char *text;
	long rss0, rss1;
	double t0, t1;
	FILE *f;

	for (i = 0; i < lines_per; i++)
		snprintf(b + i * 64, 65, "%-63s\n", "a line of exactly sixty-four bytes");
	snprintf(p, sizeof p, "%s/100mb.txt", root);
	f = fopen(p, "wb");
	for (i = 0; i < blocks; i++)
		fwrite(b, 1, block, f);
	fclose(f);
	free(b);
	rss0 = maxrss_kb();
	t0 = t_now();
	snprintf(json, sizeof json, "{\"path\":\"100mb.txt\",\"offset\":%zu}",
	    lines_per * blocks - 1);
	text = run(&tool_read_file, json);
	t1 = t_now();
	rss1 = maxrss_kb();
	snprintf(want, sizeof want, "%7zu\t%-63s\n%7zu\t%-63s\n", lines_per * blocks - 1,
	    "a line of exactly sixty-four bytes", lines_per * blocks,
	    "a line of exactly sixty-four bytes");
	/* %7zu: the numbers have 7 digits, wider than the 6 of the format. */
	T_EQ_STR(text, want);
	T_OK(!out.is_error);
	printf("# 100 MB, offset near the end: %.3f s, max RSS grew %ld KB\n",
	    t1 - t0, rss1 - rss0);
	T_OK(rss1 - rss0 < 8 * 1024);
	T_OK(t1 - t0 < 20.0);
	/* The start of it is quick and says the file goes on. */
	t0 = t_now();
	text = run(&tool_read_file, "{\"path\":\"100mb.txt\",\"limit\":3}");
	t1 = t_now();
	T_CONTAINS(text, "the file goes on (104857600 bytes in all): call read_file"
	    " with offset 4");
	T_OK(t1 - t0 < 1.0);
	unlink(p);
}

/* list_dir */

T_TEST(list_basic)
{
	char p[PATH_MAX + 64];

	t_tree_mkdir("ls");
	t_tree_mkdir("ls/zdir");
	puts_file("ls/b.txt", "hello");
	put("ls/a.bin", "", 0);
	{
		char *big = xcalloc(1, 3 * 1024 * 1024 / 2);

		put("ls/c.dat", big, 3 * 1024 * 1024 / 2);
		free(big);
	}
	t_tree_link("b.txt", "ls/link");
	snprintf(p, sizeof p, "%s/ls/fifo", root);
	mkfifo(p, 0600);
	T_EQ_STR(run(&tool_list_dir, "{\"path\":\"ls\"}"),
	    "a.bin  0 B\n"
	    "b.txt  5 B\n"
	    "c.dat  1.5 MB\n"
	    "fifo  (fifo)\n"
	    "link -> b.txt\n"
	    "zdir/\n");
	T_OK(!out.is_error);
	T_EQ_STR(run(&tool_list_dir, "{\"path\":\"ls/zdir\"}"), "(empty directory)\n");
}

T_TEST(list_hides_git_and_ignored)
{
	t_tree_mkdir("proj");
	t_tree_mkdir("proj/.git");
	puts_file("proj/.git/HEAD", "ref: refs/heads/main\n");
	puts_file("proj/.gitignore", "*.log\nbuild/\n!keep.log\n");
	puts_file("proj/a.log", "x");
	puts_file("proj/keep.log", "x");
	puts_file("proj/main.c", "int main;\n");
	puts_file("proj/build/out.o", "x");
	puts_file("proj/sub/.gitignore", "secret*\n");
	puts_file("proj/sub/secret.txt", "x");
	puts_file("proj/sub/public.txt", "x");
	/* The root's .gitignore names no "proj/": rules are read from the root down. */
	T_EQ_STR(run(&tool_list_dir, "{\"path\":\"proj\"}"),
	    ".gitignore  23 B\n"
	    "keep.log  1 B\n"
	    "main.c  10 B\n"
	    "sub/\n"
	    "[3 entries hidden: .git and git-ignored]\n");
	T_EQ_STR(run(&tool_list_dir, "{\"path\":\"proj/sub\"}"),
	    ".gitignore  8 B\n"
	    "public.txt  1 B\n"
	    "[1 entry hidden: .git and git-ignored]\n");
}

T_TEST(list_errors_and_names)
{
	puts_file("plain.txt", "x");
	run(&tool_list_dir, "{\"path\":\"plain.txt\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "use read_file");
	run(&tool_list_dir, "{\"path\":\"..\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	t_tree_link(outside, "away");
	run(&tool_list_dir, "{\"path\":\"away\"}");
	T_OK(out.is_error);
	run(&tool_list_dir, "{\"path\":\"nope\"}");
	T_OK(out.is_error);
	t_tree_mkdir("odd");
	puts_file("odd/n\xe9w.txt", "");
	T_EQ_STR(run(&tool_list_dir, "{\"path\":\"odd\"}"), "n\xef\xbf\xbdw.txt  0 B\n");
}

T_TEST(list_cap)
{
	char name[64];
	const char *text;
	int i;

	t_tree_mkdir("many");
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "many/f%03d", i);
		puts_file(name, "");
	}
	text = run(&tool_list_dir, "{\"path\":\"many\"}");
	T_OK(!out.is_error);
	T_OK(out.text.len <= TOOL_READ_CAP);
	T_CONTAINS(text, "f000  0 B\n");
	T_CONTAINS(text, "f499  0 B\n");
	T_OK(strstr(text, "f500") == NULL);
	T_CONTAINS(text, "[500 of 600 entries shown; use glob with a pattern to find the others]\n");
}

T_TEST(list_root_default)
{
	const char *text = run(&tool_list_dir, "{}");

	T_OK(!out.is_error);
	T_CONTAINS(text, "a.txt  ");
	T_CONTAINS(text, "proj/\n");
}

/* The path the walk reached is held to the deny rules, and listings count what they leave out. */
T_TEST(read_and_list_hold_to_deny_rules)
{
	char p[PATH_MAX + 64];

	puts_file("rd/.env", "KEY=denied-marker\n");
	puts_file("rd/ok.txt", "fine\n");
	puts_file("rd/secret/k.txt", "secret-marker\n");
	snprintf(p, sizeof p, "%s/rd/docs", root);
	(void)!symlink("secret", p);
	snprintf(p, sizeof p, "%s/rd/env-link", root);
	(void)!symlink(".env", p);
	/* without rules the link is read: the checks below can fail */
	run_policy = NULL;
	T_CONTAINS(run(&tool_read_file, "{\"path\":\"rd/docs/k.txt\"}"), "secret-marker");
	run_policy = &rd_policy;
	run(&tool_read_file, "{\"path\":\"rd/docs/k.txt\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "rd/docs/k.txt leads to rd/secret/k.txt, which a deny rule covers");
	run(&tool_read_file, "{\"path\":\"rd/env-link\"}");
	T_OK(out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "denied-marker") == NULL);
	run(&tool_read_file, "{\"path\":\"rd/ok.txt\"}");
	T_OK(!out.is_error);
	run(&tool_list_dir, "{\"path\":\"rd\"}");
	T_CONTAINS(buf_cstr(&out.text), "ok.txt");
	T_CONTAINS(buf_cstr(&out.text), "docs -> secret");
	T_OK(strstr(buf_cstr(&out.text), ".env  ") == NULL);	/* the file's line, with its size */
	T_OK(strstr(buf_cstr(&out.text), "secret/") == NULL);
	T_CONTAINS(buf_cstr(&out.text), "[2 files were left out by deny rules]");
	run(&tool_list_dir, "{\"path\":\"rd/docs\"}");
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "deny rule");
	run_policy = NULL;
}

int
main(void)
{
	setup();
	/* First, while the peak RSS is still low: it checks the peak. */
	T_RUN(read_100mb_file);
	T_RUN(read_numbers_lines);
	T_RUN(read_offset_limit);
	T_RUN(read_past_end);
	T_RUN(read_no_final_newline_and_crlf);
	T_RUN(read_empty_binary_dir_fifo);
	T_RUN(read_refuses_outside);
	T_RUN(read_sanitizes_utf8);
	T_RUN(read_long_lines);
	T_RUN(read_huge_single_line);
	T_RUN(read_output_cap);
	T_RUN(list_basic);
	T_RUN(list_hides_git_and_ignored);
	T_RUN(list_errors_and_names);
	T_RUN(list_cap);
	T_RUN(list_root_default);
	T_RUN(read_and_list_hold_to_deny_rules);
	teardown();
	return t_done();
}
