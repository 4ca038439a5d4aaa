/*
 * Tests of tools/patch.c (the one patch parser) and of apply_patch on it:
 * the corpus of real commits and model-shaped variants in
 * $top_srcdir/../shared/fixtures/patches (skipped with a note when absent),
 * then renames, copies, modes, symbolic links, the Codex envelope, line
 * endings, stale offsets, ambiguity, overlapping hunks, strictness;
 * several cases are checked against real git apply and GNU patch.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fsutil.h"
#include "patch.h"
#include "t.h"
#include "tool.h"
#include "xalloc.h"

static char base[PATH_MAX], root[PATH_MAX + 64];
static struct tool_env env;
static int dirs;

/* --- helpers --- */

static void
sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof cmd || system(cmd) != 0)
		T_FAIL("command failed: %s", cmd);
}

/* A fresh, empty workspace; root names it. */
static void
fresh(void)
{
	char *real;
	int n;

	n = snprintf(root, sizeof root, "%s/w%d", base, dirs++);
	if (n < 0 || (size_t)n >= sizeof root || mkdir(root, 0755) != 0) {
		printf("Bail out! cannot make %s\n", root);
		exit(1);
	}
	real = realpath(root, NULL);
	snprintf(root, sizeof root, "%s", real);
	free(real);
	env.root = root;
	env.session_dir = NULL;
	env.snap_dir = NULL;
}

static void
put(const char *rel, const char *data, size_t len)
{
	char p[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (slash = p + strlen(root) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	if ((f = fopen(p, "wb")) == NULL) {
		T_FAIL("cannot create %s", p);
		return;
	}
	fwrite(data, 1, len, f);
	fclose(f);
}

static void
puts_in(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

/* The file's content (NULL: missing); *len its length.  The caller frees. */
static char *
getn(const char *rel, size_t *len)
{
	char p[PATH_MAX * 2], *data;
	struct buf err = BUF_INIT(4096);

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (fsutil_read_file(p, (size_t)1 << 30, &data, len, &err) != 0)
		data = NULL;
	buf_release(&err);
	return data;
}

static char *
get(const char *rel)
{
	size_t len;

	return getn(rel, &len);
}

static bool
exists(const char *rel)
{
	char p[PATH_MAX * 2];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return lstat(p, &st) == 0;
}

static unsigned
mode_of(const char *rel)
{
	char p[PATH_MAX * 2];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return lstat(p, &st) == 0 ? (unsigned)st.st_mode & 07777 : 0;
}

static void
apply(const char *patch, struct tool_out *out)
{
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "patch", patch);
	tool_out_init(out);
	tool_apply_patch.run(&env, in, out);
	cJSON_Delete(in);
}

/* Apply and expect success. */
static void
ok(const char *patch)
{
	struct tool_out out;

	apply(patch, &out);
	if (out.is_error)
		T_FAIL("refused: %s", buf_cstr(&out.text));
	tool_out_release(&out);
}

/* Apply and expect a refusal whose text holds want. */
static void
refused(const char *patch, const char *want)
{
	struct tool_out out;

	apply(patch, &out);
	if (!out.is_error)
		T_FAIL("accepted: %s\n%s", buf_cstr(&out.text), patch);
	else if (want != NULL)
		T_CONTAINS(buf_cstr(&out.text), want);
	T_OK(out.meta == NULL);
	tool_out_release(&out);
}

static void
expect_file(const char *rel, const char *want)
{
	char *got = get(rel);

	if (want == NULL) {
		if (exists(rel))
			T_FAIL("%s exists", rel);
	} else
		T_EQ_STR(got, want);
	free(got);
}

static bool
have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* --- the corpus --- */

struct corpus_tally {
	int	 cases, applied, refused, partial, wrong, bad_refusal;
	int	 again_done, again_refused;	/* the same patch on its own result */
};

static void
corpus_write(const cJSON *files)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, files) {
		if (cJSON_IsString(f))
			put(f->string, f->valuestring, strlen(f->valuestring));
	}
}

/* Does the tree hold exactly files (null: absent)? */
static bool
corpus_same(const cJSON *files, char *why, size_t whylen)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, files) {
		size_t len;
		char *got = getn(f->string, &len);
		bool same = cJSON_IsString(f) ? got != NULL && len == strlen(f->valuestring) &&
		    memcmp(got, f->valuestring, len) == 0 : got == NULL && !exists(f->string);

		free(got);
		if (!same) {
			snprintf(why, whylen, "%s differs", f->string);
			return false;
		}
	}
	return true;
}

/*
 * The patch again on the tree it made: already applied (a success that
 * changes nothing) or refused, and never a change.
 */
static void
corpus_again(const char *id, const char *patch, const cJSON *after, struct corpus_tally *t)
{
	struct tool_out out;
	char why[512];

	apply(patch, &out);
	if (!corpus_same(after, why, sizeof why))
		T_FAIL("%s: applied twice, %s", id, why);
	else if (out.is_error)
		t->again_refused++;
	else if (strstr(buf_cstr(&out.text), "the patch is already applied") != NULL)
		t->again_done++;
	else
		T_FAIL("%s: applied twice without a change, but not said to be already applied: %s",
		    id, buf_cstr(&out.text));
	tool_out_release(&out);
}

static void
corpus_case(const cJSON *c, struct corpus_tally *t)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
	const char *patch = cJSON_GetStringValue(cJSON_GetObjectItem(c, "patch"));
	const cJSON *before = cJSON_GetObjectItem(c, "before");
	const cJSON *after = cJSON_GetObjectItem(c, "after");
	bool nospace = id != NULL && strstr(id, "-nospace") != NULL;
	struct tool_out out;
	char why[512];

	if (id == NULL || patch == NULL || before == NULL || after == NULL) {
		T_FAIL("a corpus case lacks id, patch, before or after");
		return;
	}
	t->cases++;
	fresh();
	corpus_write(before);
	apply(patch, &out);
	if (!out.is_error) {
		if (corpus_same(after, why, sizeof why)) {
			t->applied++;
			corpus_again(id, patch, after, t);
		} else {
			t->wrong++;
			T_FAIL("%s: applied, but %s", id, why);
		}
	} else {
		t->refused++;
		if (!corpus_same(before, why, sizeof why)) {
			t->partial++;
			T_FAIL("%s: refused, but %s from before", id, why);
		}
		if (!nospace) {
			t->bad_refusal++;
			T_FAIL("%s: refused: %.600s", id, buf_cstr(&out.text));
		}
	}
	tool_out_release(&out);
}

T_TEST(corpus)
{
	const char *top = getenv("top_srcdir");
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	struct corpus_tally t;
	char *line = NULL;
	size_t cap = 0;
	FILE *p;

	memset(&t, 0, sizeof(t));
	snprintf(path, sizeof path, "%s/../shared/fixtures/patches/corpus.jsonl.gz",
	    top != NULL ? top : "..");
	if (access(path, R_OK) != 0) {
		printf("# skip: %s is absent (the shared fixtures are not beside the tree)\n", path);
		return;
	}
	snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
	if ((p = popen(cmd, "r")) == NULL) {
		T_FAIL("cannot run %s", cmd);
		return;
	}
	while (getline(&line, &cap, p) > 0) {
		cJSON *c = cJSON_Parse(line);

		if (c == NULL) {
			T_FAIL("a corpus line is not JSON");
			continue;
		}
		corpus_case(c, &t);
		cJSON_Delete(c);
	}
	free(line);
	T_EQ_INT(pclose(p), 0);
	printf("# corpus: %d cases, %d applied byte-identically, %d refused (-nospace), "
	    "%d partial, %d wrong\n", t.cases, t.applied, t.refused, t.partial, t.wrong);
	printf("# corpus again on its result: %d said to be already applied, %d refused, "
	    "none changed\n", t.again_done, t.again_refused);
	T_OK(t.again_done >= 170);
	T_EQ_INT(t.cases, 174);
	T_EQ_INT(t.partial, 0);
	T_EQ_INT(t.wrong, 0);
	T_EQ_INT(t.bad_refusal, 0);
}

/* --- renames, copies, modes, links --- */

T_TEST(rename_copy_and_modes)
{
	fresh();
	puts_in("old.txt", "a\nb\nc\n");
	puts_in("src.c", "int x;\n");
	puts_in("run.sh", "echo hi\n");
	ok("diff --git a/old.txt b/new dir/new.txt\nsimilarity index 80%\nrename from old.txt\n"
	    "rename to new dir/new.txt\n--- a/old.txt\n+++ b/new dir/new.txt\n"
	    "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	    "diff --git a/src.c b/copy.c\nsimilarity index 100%\ncopy from src.c\ncopy to copy.c\n"
	    "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 104755\n"
	    "diff --git a/tool b/tool\nnew file mode 100755\n--- /dev/null\n+++ b/tool\n"
	    "@@ -0,0 +1 @@\n+#!/bin/sh\n");
	expect_file("old.txt", NULL);
	expect_file("new dir/new.txt", "a\nB\nc\n");
	/* a directory emptied by the patch goes, as with git apply; the root stays */
	puts_in("deep/er/only.txt", "x\n");
	ok("--- a/deep/er/only.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
	T_OK(!exists("deep"));
	T_OK(exists("."));
	expect_file("src.c", "int x;\n");
	expect_file("copy.c", "int x;\n");
	T_EQ_INT(mode_of("run.sh"), 0755);	/* setuid masked */
	T_EQ_INT(mode_of("tool"), 0755);
	expect_file("tool", "#!/bin/sh\n");
	/* a rename onto an existing file is refused, and nothing moves */
	puts_in("x.txt", "x\n");
	puts_in("y.txt", "y\n");
	refused("diff --git a/x.txt b/y.txt\nrename from x.txt\nrename to y.txt\n",
	    "already exists");
	expect_file("x.txt", "x\n");
}

T_TEST(symlink_entries)
{
	fresh();
	puts_in("target.txt", "t\n");
	ok("diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
	    "@@ -0,0 +1 @@\n+target.txt\n\\ No newline at end of file\n");
	{
		char p[PATH_MAX * 2], buf[64];
		ssize_t n;

		snprintf(p, sizeof p, "%s/link", root);
		n = readlink(p, buf, sizeof buf);
		T_OK(n == 10 && memcmp(buf, "target.txt", 10) == 0);
	}
	refused("diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n"
	    "@@ -0,0 +1 @@\n+../../../etc/passwd\n\\ No newline at end of file\n",
	    "outside the workspace");
	refused("diff --git a/evil2 b/evil2\nnew file mode 120000\n--- /dev/null\n+++ b/evil2\n"
	    "@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n", "outside the workspace");
	T_OK(!exists("evil") && !exists("evil2"));
	/* retarget, then delete */
	puts_in("other.txt", "o\n");
	ok("diff --git a/link b/link\nindex 1..2 120000\n--- a/link\n+++ b/link\n"
	    "@@ -1 +1 @@\n-target.txt\n\\ No newline at end of file\n+other.txt\n"
	    "\\ No newline at end of file\n");
	expect_file("link", "o\n");
	ok("diff --git a/link b/link\ndeleted file mode 120000\n--- a/link\n+++ /dev/null\n"
	    "@@ -1 +0,0 @@\n-other.txt\n\\ No newline at end of file\n");
	T_OK(!exists("link"));
	expect_file("other.txt", "o\n");
	/* a link deleted or renamed as if it were a file: refused, its target kept */
	sh("cd '%s' && ln -s other.txt l2", root);
	refused("--- a/l2\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n", "symbolic link");
	refused("diff --git a/l2 b/l3\nrename from l2\nrename to l3\n", "symbolic link");
	expect_file("other.txt", "o\n");
	T_OK(exists("l2") && !exists("l3"));
	/* changed as a file: the change goes to the file it names */
	ok("--- a/l2\n+++ b/l2\n@@ -1 +1 @@\n-o\n+O\n");
	expect_file("other.txt", "O\n");
}

/* --- the Codex envelope --- */

T_TEST(codex_envelope)
{
	fresh();
	puts_in("a.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n"
	    "    def f(self):\n        return 1\n");
	puts_in("gone.txt", "bye\n");
	puts_in("mv.txt", "one\ntwo\n");
	ok("*** Begin Patch\n*** Add File: new/hello.txt\n+hello\n+world\n"
	    "*** Update File: a.py\n@@ class B:\n@@     def f(self):\n-        return 1\n"
	    "+        return 2\n*** Delete File: gone.txt\n*** Update File: mv.txt\n"
	    "*** Move to: moved.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n");
	expect_file("new/hello.txt", "hello\nworld\n");
	expect_file("a.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n"
	    "    def f(self):\n        return 2\n");
	expect_file("gone.txt", NULL);
	expect_file("mv.txt", NULL);
	expect_file("moved.txt", "one\nTWO\n");
	/* without the context line the change fits both classes: refused */
	puts_in("a.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n"
	    "    def f(self):\n        return 1\n");
	refused("*** Begin Patch\n*** Update File: a.py\n@@\n     def f(self):\n"
	    "-        return 1\n+        return 3\n*** End Patch\n", "fits equally well at lines 2 and 6");
	/* tolerance: trailing, then leading whitespace */
	puts_in("ws.txt", "x = 1   \n  y = 2\n");
	ok("*** Begin Patch\n*** Update File: ws.txt\n x = 1\n-y = 2\n+y = 3\n*** End Patch\n");
	expect_file("ws.txt", "x = 1   \ny = 3\n");
	refused("*** Begin Patch\n*** Update File: ws.txt\n-nothing like it\n+z\n*** End Patch\n",
	    "does not match");
	refused("*** Begin Patch\n*** Update File: ws.txt\n-y = 3\n+z\n", "*** End Patch");
	refused("*** Begin Patch\n*** Frobnicate File: ws.txt\n*** End Patch\n", "is not");
}

/* --- line endings --- */

T_TEST(line_endings)
{
	fresh();
	/* a CRLF file patched without "\r": added lines take the file's ending */
	puts_in("crlf.txt", "a\r\nb\r\nc\r\n");
	ok("--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n");
	expect_file("crlf.txt", "a\r\nB\r\nB2\r\nc\r\n");
	/* a mixed file, the patch carrying "\r" where the lines have it */
	puts_in("mixed.txt", "GET / HTTP/1.1\r\nHost: x\r\n\r\nbody\nmore\n");
	ok("--- a/mixed.txt\n+++ b/mixed.txt\n@@ -1,5 +1,5 @@\n GET / HTTP/1.1\r\n-Host: x\r\n"
	    "+Host: y\r\n \r\n body\n-more\n+MORE\n");
	expect_file("mixed.txt", "GET / HTTP/1.1\r\nHost: y\r\n\r\nbody\nMORE\n");
	/* CRLF to LF is a real change when the patch says so */
	puts_in("conv.txt", "one\r\ntwo\r\n");
	ok("--- a/conv.txt\n+++ b/conv.txt\n@@ -1,2 +1,2 @@\n-one\r\n-two\r\n+one\n+two\n");
	expect_file("conv.txt", "one\ntwo\n");
	/* no newline at the end, both ways */
	puts_in("nonl.txt", "last");
	ok("--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1 +1,2 @@\n-last\n\\ No newline at end of file\n"
	    "+last\n+more\n");
	expect_file("nonl.txt", "last\nmore\n");
	ok("--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n last\n-more\n+end\n"
	    "\\ No newline at end of file\n");
	expect_file("nonl.txt", "last\nend");
	/* a new file keeps the patch's endings */
	ok("--- /dev/null\n+++ b/new.bat\n@@ -0,0 +1,2 @@\n+@echo off\r\n+exit\r\n");
	expect_file("new.bat", "@echo off\r\nexit\r\n");
}

/* --- placement --- */

static const char *twins =
    "int f(void)\n{\n\tint a = 0;\n\treturn a;\n}\n\n"
    "int g(void)\n{\n\tint a = 0;\n\treturn a;\n}\n\n"
    "int h(void)\n{\n\tint b = 0;\n\treturn b;\n}\n";

/* Ten lines, a unique function u, then the twins f (line 17) and g (line 23). */
static const char *stale_file =
    "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
    "int u(void)\n{\n\tint c = 0;\n\treturn c;\n}\n\n"
    "int f(void)\n{\n\tint a = 0;\n\treturn a;\n}\n\n"
    "int g(void)\n{\n\tint a = 0;\n\treturn a;\n}\n";
static const char *stale_want =
    "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
    "int u(void)\n{\n\tint c = 1;\n\treturn c;\n}\n\n"
    "int f(void)\n{\n\tint a = 0;\n\treturn a;\n}\n\n"
    "int g(void)\n{\n\tint a = 1;\n\treturn a;\n}\n";
/*
 * Both hunks stated 7 lines early.  The second, on its own, is nearest to f
 * (1 line away); with the first hunk's offset carried it lands on g.
 */
static const char *stale_patch =
    "--- a/t.c\n+++ b/t.c\n@@ -5,3 +5,3 @@\n int u(void)\n {\n-\tint c = 0;\n+\tint c = 1;\n"
    "@@ -17,3 +17,3 @@\n {\n-\tint a = 0;\n+\tint a = 1;\n \treturn a;\n";

T_TEST(stale_offsets_in_repeated_code)
{
	fresh();
	puts_in("t.c", stale_file);
	ok(stale_patch);
	expect_file("t.c", stale_want);
	if (have("patch")) {
		/* GNU patch agrees */
		fresh();
		puts_in("t.c", stale_file);
		puts_in("p.diff", stale_patch);
		sh("cd '%s' && patch -s -p1 < p.diff >/dev/null", root);
		expect_file("t.c", stale_want);
	} else
		printf("# skip: GNU patch is not installed\n");
}

T_TEST(ambiguity_lists_candidates)
{
	fresh();
	puts_in("t.c", twins);
	/* stated at line 4: f's and g's bodies are 3 lines away on either side */
	refused("--- a/t.c\n+++ b/t.c\n@@ -5,2 +5,2 @@\n {\n-\tint a = 0;\n+\tint a = 2;\n",
	    "fits equally well at lines 2 and 8");
	refused("--- a/t.c\n+++ b/t.c\n@@\n {\n-\tint a = 0;\n+\tint a = 2;\n",
	    "fits equally well at lines 2 and 8");
	expect_file("t.c", twins);
}

T_TEST(overlapping_hunks_and_two_sections)
{
	fresh();
	puts_in("o.txt", "1\n2\n3\n4\n5\n6\n");
	/* the second hunk starts on the first one's last context line */
	ok("--- a/o.txt\n+++ b/o.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n"
	    "@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n");
	expect_file("o.txt", "1\ntwo\n3\nfour\n5\n6\n");
	ok("--- a/o.txt\n+++ b/o.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n two\n"
	    "--- a/o.txt\n+++ b/o.txt\n@@ -5,2 +5,2 @@\n 5\n-6\n+six\n");
	expect_file("o.txt", "one\ntwo\n3\nfour\n5\nsix\n");
	/* plain diff -u headers */
	ok("--- o.txt.orig\t2024-01-01 00:00:00\n+++ o.txt\t2024-01-01 00:00:01\n"
	    "@@ -1 +1 @@\n-one\n+ONE\n");
	expect_file("o.txt", "ONE\ntwo\n3\nfour\n5\nsix\n");
	/* diff -N: a new file named on both sides, the old one at the epoch */
	ok("--- n.txt\t1970-01-01 00:00:00.000000000 +0000\n"
	    "+++ n.txt\t2024-01-01 00:00:00.000000000 +0000\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	expect_file("n.txt", "x\ny\n");
	refused("--- m.txt\n+++ m.txt\n@@ -1 +1 @@\n-x\n+y\n", "does not exist");
}

/* --- strictness --- */

T_TEST(counts_enforced)
{
	fresh();
	puts_in("c.txt", "a\nb\nc\nd\ne\n");
	/*
	 * A context line that lost its space, changes after it: refused when the
	 * counts do not confirm it as context, never half applied ...
	 */
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,4 +1,4 @@\n a\n-b\n+B\nc\n d\n-e\n+E\n",
	    "starts with neither");
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,6 +1,6 @@\n a\n-b\n+B\nc\n d\n-e\n+E\n",
	    "starts with neither");
	/* ... or when the line is not what the file has there */
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\nX\n d\n-e\n+E\n",
	    "does not match");
	expect_file("c.txt", "a\nb\nc\nd\ne\n");
	/* ... and applied, with a note, when the counts and the file agree */
	{
		struct tool_out out;

		apply("--- a/c.txt\n+++ b/c.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\nc\n d\n-e\n+E\n",
		    &out);
		T_OK(!out.is_error);
		T_CONTAINS(buf_cstr(&out.text), "without the leading space");
		tool_out_release(&out);
		expect_file("c.txt", "a\nB\nc\nd\nE\n");
		puts_in("c.txt", "a\nb\nc\nd\ne\n");
	}
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n-d\n+D\n",
	    "counts as complete");
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n", "ends after");
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,0 +1,0 @@\n", "empty");
	refused("--- a/c.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n a\n b\n", "changes nothing");
	refused("--- a/c.txt\n+++ b/c.txt\n", "no hunks");
	refused("diff --git a/bin b/bin\nGIT binary patch\nliteral 0\n", "binary");
	refused("diff --git a/c.txt b/c.txt\n--- a/secret\n+++ b/secret\n@@ -1 +1 @@\n-a\n+A\n",
	    "other files");
	expect_file("c.txt", "a\nb\nc\nd\ne\n");
}

T_TEST(header_only_and_quoted)
{
	fresh();
	ok("diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n");
	expect_file("empty.txt", "");
	puts_in("sp ace\xc3\xa4.txt", "q\n");
	ok("diff --git \"a/sp ace\\303\\244.txt\" \"b/sp ace\\303\\244.txt\"\n"
	    "--- \"a/sp ace\\303\\244.txt\"\n+++ \"b/sp ace\\303\\244.txt\"\n"
	    "@@ -1 +1 @@\n-q\n+Q\n");
	expect_file("sp ace\xc3\xa4.txt", "Q\n");
	refused("--- \"a/bad\\q\"\n+++ \"b/bad\\q\"\n@@ -1 +1 @@\n-q\n+Q\n", "escape");
}

/* What the parser reports for the permission check's attacks. */
T_TEST(parser_names)
{
	struct buf err = BUF_INIT(4096);
	struct patch_plan pl;
	const char *hide =
	    "--- a/ok.txt\n+++ b/ok.txt\n@@ -1,1 +1,50 @@\n-x\n+y\n"
	    "--- a/secret/x\n+++ b/secret/x\n@@ -1 +1 @@\n-a\n+b\n";

	T_EQ_INT(patch_parse("--- \"a/secr\\145t/key\"\n+++ \"b/secr\\145t/key\"\n"
	    "@@ -1 +1 @@\n-a\n+b\n", 60, &pl, &err), 0);
	T_EQ_INT((int)pl.nf, 1);
	T_EQ_STR(pl.files[0].new_name, "secret/key");
	patch_plan_release(&pl);
	T_EQ_INT(patch_parse("diff --git a/secret/x b/secret/x\nnew file mode 100644\n", 54,
	    &pl, &err), 0);
	T_EQ_INT((int)pl.nf, 1);
	T_EQ_STR(pl.files[0].new_name, "secret/x");
	T_EQ_INT(pl.files[0].op, PATCH_ADD);
	patch_plan_release(&pl);
	T_EQ_INT(patch_parse(hide, strlen(hide), &pl, &err), -1);
	T_CONTAINS(buf_cstr(&err), "more old");
	buf_reset(&err);
	T_EQ_INT(patch_parse("diff --git a/a b/b\nrename from a\nrename to b\n", 46, &pl, &err), 0);
	T_EQ_INT(pl.files[0].op, PATCH_RENAME);
	T_EQ_STR(pl.files[0].old_name, "a");
	T_EQ_STR(pl.files[0].new_name, "b");
	patch_plan_release(&pl);
	buf_release(&err);
}

T_TEST(cross_check_git_apply)
{
	const char *p = "diff --git a/m.txt b/m.txt\nold mode 100644\nnew mode 100755\n"
	    "--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n x\r\n-y\r\n+Y\r\n"
	    "diff --git a/m.txt b/n.txt\ncopy from m.txt\ncopy to n.txt\n";
	char *mine, *theirs;

	if (!have("git")) {
		printf("# skip: git is not installed\n");
		return;
	}
	fresh();
	put("m.txt", "x\r\ny\r\n", 6);
	ok(p);
	mine = get("n.txt");
	T_EQ_INT(mode_of("m.txt"), 0755);
	fresh();
	put("m.txt", "x\r\ny\r\n", 6);
	puts_in("p.diff", p);
	sh("cd '%s' && git init -q . && git apply p.diff", root);
	theirs = get("n.txt");
	T_EQ_STR(mine, theirs);
	expect_file("m.txt", "x\r\nY\r\n");
	T_EQ_INT(mode_of("m.txt"), 0755);
	free(mine);
	free(theirs);
}

/* Apply, expect success, and return the result's text (the caller frees). */
static char *
ok_text(const char *patch)
{
	struct tool_out out;
	char *text;

	apply(patch, &out);
	if (out.is_error)
		T_FAIL("refused: %s", buf_cstr(&out.text));
	text = xstrdup(buf_cstr(&out.text));
	tool_out_release(&out);
	return text;
}

/*
 * "index a..b 100644" on an executable: the mode is kept (a note says the
 * line disagrees), as git apply and GNU patch keep it; old/new mode lines
 * still change it.
 */
T_TEST(index_line_mode_kept)
{
	const char *p = "diff --git a/run.sh b/run.sh\nindex 1a2b3c4..5d6e7f8 100644\n"
	    "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo a\n+echo b\n";
	char *text;

	fresh();
	puts_in("run.sh", "#!/bin/sh\necho a\n");
	sh("chmod 755 '%s/run.sh'", root);
	text = ok_text(p);
	expect_file("run.sh", "#!/bin/sh\necho b\n");
	T_EQ_INT(mode_of("run.sh"), 0755);
	T_CONTAINS(text, "index line gives mode 100644");
	T_CONTAINS(text, "the mode was kept");
	free(text);
	/* an index line that agrees says nothing */
	text = ok_text("diff --git a/run.sh b/run.sh\nindex 1a2b3c4..5d6e7f8 100755\n"
	    "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo b\n+echo c\n");
	T_OK(strstr(text, "index line") == NULL);
	T_EQ_INT(mode_of("run.sh"), 0755);
	free(text);
	/* and a 644 file patched with "100755" stays 644 */
	puts_in("plain.txt", "a\n");
	sh("chmod 644 '%s/plain.txt'", root);
	ok("diff --git a/plain.txt b/plain.txt\nindex 1..2 100755\n--- a/plain.txt\n"
	    "+++ b/plain.txt\n@@ -1 +1 @@\n-a\n+b\n");
	T_EQ_INT(mode_of("plain.txt"), 0644);
	/* the real programs agree */
	if (have("git")) {
		fresh();
		puts_in("run.sh", "#!/bin/sh\necho a\n");
		puts_in("p.diff", p);
		sh("cd '%s' && chmod 755 run.sh && git init -q . && git apply p.diff", root);
		T_EQ_INT(mode_of("run.sh"), 0755);
	}
	if (have("patch")) {
		fresh();
		puts_in("run.sh", "#!/bin/sh\necho a\n");
		puts_in("p.diff", p);
		sh("cd '%s' && chmod 755 run.sh && patch -s -p1 <p.diff", root);
		T_EQ_INT(mode_of("run.sh"), 0755);
	}
}

/*
 * A Codex "@@ line" that occurs more than once: the first occurrence after
 * the previous hunk, as the format seeks forward; a note says so.
 */
T_TEST(codex_repeated_anchor)
{
	char *text;

	fresh();
	puts_in("c.ini", "[section]\n  key = 1\n[section]\n  key = 2\n[section]\n  key = 3\n");
	text = ok_text("*** Begin Patch\n*** Update File: c.ini\n@@ [section]\n-  key = 1\n"
	    "+  key = 10\n@@ [section]\n-  key = 2\n+  key = 20\n*** End Patch\n");
	expect_file("c.ini", "[section]\n  key = 10\n[section]\n  key = 20\n[section]\n"
	    "  key = 3\n");
	T_CONTAINS(text, "occurs 3 times after line 0; the first, line 1, was taken");
	free(text);
	/* two levels: the class, then its method, each the first after the last */
	puts_in("a.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n"
	    "    def f(self):\n        return 1\n    def g(self):\n        return 1\n");
	ok("*** Begin Patch\n*** Update File: a.py\n@@ class B:\n@@     def f(self):\n"
	    "-        return 1\n+        return 2\n@@     def g(self):\n-        return 1\n"
	    "+        return 3\n*** End Patch\n");
	expect_file("a.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n"
	    "    def f(self):\n        return 2\n    def g(self):\n        return 3\n");
	/* an anchor not found after the previous hunk is still refused */
	refused("*** Begin Patch\n*** Update File: a.py\n@@ class B:\n-        return 2\n"
	    "+        return 4\n@@ class A:\n-        return 1\n+        return 5\n*** End Patch\n",
	    "is not in the file after line");
}

/*
 * A hunk whose new text is there and whose old text is not: already
 * applied.  The patch succeeds (the files end as the patch means them to),
 * with a note; a patch wholly applied writes nothing and says so.
 */
T_TEST(already_applied_hunks)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), p = BUF_INIT(BUF_NOLIMIT);
	char *text;
	int i;

	for (i = 1; i <= 30; i++)
		buf_printf(&b, "%d\n", i);
	buf_puts(&p, "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n"
	    "@@ -22,7 +22,7 @@\n 22\n 23\n 24\n-25\n+TWENTYFIVE\n 26\n 27\n 28\n");
	fresh();
	puts_in("f", buf_cstr(&b));
	ok(buf_cstr(&p));
	/* again: every hunk is already applied, nothing is written, no error */
	{
		char *want = get("f");

		text = ok_text(buf_cstr(&p));
		T_CONTAINS(text, "the patch is already applied");
		T_CONTAINS(text, "hunk 1 is already applied (its new lines are at line 2)");
		T_CONTAINS(text, "hunk 2 is already applied");
		T_CONTAINS(text, "f unchanged: all 2 hunks were already applied");
		expect_file("f", want);
		free(text);
		/* the approval's preview says so too, instead of an empty diff */
		{
			struct buf pv = BUF_INIT(BUF_NOLIMIT);
			cJSON *in = cJSON_CreateObject();

			cJSON_AddStringToObject(in, "patch", buf_cstr(&p));
			T_EQ_INT(tool_apply_patch.preview(&env, in, &pv), 0);
			T_CONTAINS(buf_cstr(&pv), "already applied: nothing would change");
			cJSON_Delete(in);
			buf_release(&pv);
		}
		/* git agrees the tree holds the patch's result: it applies in reverse */
		if (have("git")) {
			puts_in("p.diff", buf_cstr(&p));
			sh("cd '%s' && git apply -R --check p.diff", root);
		}
		/* half applied: the other hunk is applied, the first noted */
		sh("cd '%s' && sed -i 's/^TWENTYFIVE$/25/' f", root);
		text = ok_text(buf_cstr(&p));
		T_CONTAINS(text, "applied the patch to 1 file");
		T_CONTAINS(text, "(1 of its 2 hunks was already applied)");
		T_CONTAINS(text, "hunk 1 is already applied");
		T_OK(strstr(text, "hunk 2 is already") == NULL);
		expect_file("f", want);
		free(text);
		free(want);
	}
	/*
	 * Applied twice, a patch whose addition keeps its context as it was:
	 * once another hunk is found applied, the addition's new text counts
	 * as applied too, so it does not go in twice.
	 */
	puts_in("two.txt", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n");
	{
		const char *twice = "--- a/two.txt\n+++ b/two.txt\n@@ -1,3 +1,4 @@\n a\n+NEW\n b\n c\n"
		    "@@ -8,3 +9,3 @@\n h\n-i\n+I\n j\n";

		ok(twice);
		expect_file("two.txt", "a\nNEW\nb\nc\nd\ne\nf\ng\nh\nI\nj\nk\nl\n");
		text = ok_text(twice);
		T_CONTAINS(text, "the patch is already applied");
		expect_file("two.txt", "a\nNEW\nb\nc\nd\ne\nf\ng\nh\nI\nj\nk\nl\n");
		free(text);
	}
	/* a created file that exists with the same text; with another text: refused */
	puts_in("n.txt", "new\n");
	text = ok_text("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n");
	T_CONTAINS(text, "already applied");
	free(text);
	refused("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+other\n", "already exists");
	/* a hunk whose new text is only context is not taken for applied */
	puts_in("g", "a\nb\nc\n");
	refused("--- a/g\n+++ b/g\n@@ -1,2 +1,1 @@\n a\n-x\n", "does not match");
	/* the Codex envelope too */
	puts_in("h.py", "def f():\n    return 2\n");
	text = ok_text("*** Begin Patch\n*** Update File: h.py\n@@ def f():\n-    return 1\n"
	    "+    return 2\n*** End Patch\n");
	T_CONTAINS(text, "already applied");
	free(text);
	buf_release(&b);
	buf_release(&p);
}

/*
 * Random trees and changes, written by git itself (git diff -M with
 * renames, modes, CRLF and unterminated lines): apply_patch must leave
 * exactly what git committed.
 */
static void
rand_text(unsigned *seed, struct buf *b)
{
	int i, n = 1 + (int)(rand_r(seed) % 40);

	for (i = 0; i < n; i++) {
		static const char *const words[] = { "{", "}", "\treturn 0;", "int x;", "",
		    "foo();", "bar(1, 2);", "/* note */", "  ", "x = y;" };
		unsigned r = rand_r(seed);

		buf_puts(b, words[r % 10]);
		if (r % 7 == 0)
			buf_printf(b, " %d", (int)(r % 5));
		if (i == n - 1 && r % 5 == 0)
			break;	/* no newline at the end */
		buf_puts(b, r % 9 == 0 ? "\r\n" : "\n");
	}
}

/* Change some lines of text: replace, insert, delete. */
static void
rand_change(unsigned *seed, const char *text, struct buf *out)
{
	const char *p = text;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t n = nl != NULL ? (size_t)(nl - p) + 1 : strlen(p);
		unsigned r = rand_r(seed) % 12;

		if (r == 0)
			buf_puts(out, "inserted();\n");
		if (r != 1 && r != 2)
			buf_append(out, p, n);
		else if (r == 2)
			buf_puts(out, "changed();\n");
		p += n;
	}
	if (rand_r(seed) % 4 == 0)
		buf_puts(out, "tail();");
}

T_TEST(random_git_diffs)
{
	unsigned seed = 1234;
	int round, bad = 0;

	if (!have("git")) {
		printf("# skip: git is not installed\n");
		return;
	}
	for (round = 0; round < 30 && bad < 3; round++) {
		struct buf names[4], before[4], after[4];
		char repo[PATH_MAX + 64], *patch;
		size_t plen;
		int i;

		fresh();
		snprintf(repo, sizeof repo, "%s", root);
		sh("cd '%s' && git init -q . && git config core.autocrlf false", repo);
		for (i = 0; i < 4; i++) {
			buf_init(&names[i], 256);
			buf_init(&before[i], BUF_NOLIMIT);
			buf_init(&after[i], BUF_NOLIMIT);
			buf_printf(&names[i], "d%d/f%d.c", i % 2, i);
			rand_text(&seed, &before[i]);
			put(buf_cstr(&names[i]), before[i].data, before[i].len);
		}
		sh("cd '%s' && git add -A && git -c user.name=t -c user.email=t@t commit -qm a", repo);
		for (i = 0; i < 4; i++) {
			rand_change(&seed, buf_cstr(&before[i]), &after[i]);
			put(buf_cstr(&names[i]), after[i].data, after[i].len);
		}
		/* a rename, a mode change, a new file, a deletion */
		sh("cd '%s' && git mv d0/f0.c moved/f0.c 2>/dev/null || (mkdir -p moved && "
		    "git mv d0/f0.c moved/f0.c)", repo);
		if (round % 2 == 0)
			sh("cd '%s' && chmod 755 d1/f1.c", repo);
		if (round % 3 == 0)
			sh("cd '%s' && printf 'new\\r\\nfile' > d1/new.c && git rm -qf d0/f2.c", repo);
		sh("cd '%s' && git add -A && git diff --cached -M --binary > ../p%d.diff && "
		    "git -c user.name=t -c user.email=t@t commit -qm b && mkdir ../after%d && "
		    "cp -a . ../after%d && rm -rf ../after%d/.git && git reset -q --hard HEAD~1 && "
		    "rm -rf .git", repo, round, round, round, round);
		{
			char pp[PATH_MAX * 2];
			struct buf err = BUF_INIT(4096);

			snprintf(pp, sizeof pp, "%s/../p%d.diff", repo, round);
			if (fsutil_read_file(pp, (size_t)1 << 24, &patch, &plen, &err) != 0)
				T_FAIL("no patch: %s", buf_cstr(&err));
			buf_release(&err);
		}
		{
			struct tool_out out;

			apply(patch, &out);
			if (out.is_error) {
				T_FAIL("round %d refused: %s\n%s", round, buf_cstr(&out.text), patch);
				bad++;
			}
			tool_out_release(&out);
		}
		/* the same bytes, modes and directories as git's own tree */
		{
			char cmd[PATH_MAX * 3];
			int n = snprintf(cmd, sizeof cmd, "diff -r '%s' '%s/../after%d' && "
			    "cd '%s' && find . -type f -perm -100 | sort > ../x1 && cd ../after%d && "
			    "find . -type f -perm -100 | sort > ../x2 && cmp -s ../x1 ../x2",
			    repo, repo, round, repo, round);

			if (n < 0 || (size_t)n >= sizeof cmd || system(cmd) != 0) {
				T_FAIL("round %d: the tree differs from git's\n%s", round, patch);
				bad++;
			}
		}
		free(patch);
		for (i = 0; i < 4; i++) {
			buf_release(&names[i]);
			buf_release(&before[i]);
			buf_release(&after[i]);
		}
	}
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	n = snprintf(base, sizeof base, "%s/tandem-patch-XXXXXX", tmp ? tmp : "/tmp");
	if (n < 0 || (size_t)n >= sizeof base || mkdtemp(base) == NULL) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	T_RUN(corpus);
	T_RUN(rename_copy_and_modes);
	T_RUN(symlink_entries);
	T_RUN(codex_envelope);
	T_RUN(line_endings);
	T_RUN(stale_offsets_in_repeated_code);
	T_RUN(ambiguity_lists_candidates);
	T_RUN(overlapping_hunks_and_two_sections);
	T_RUN(counts_enforced);
	T_RUN(header_only_and_quoted);
	T_RUN(parser_names);
	T_RUN(cross_check_git_apply);
	T_RUN(index_line_mode_kept);
	T_RUN(codex_repeated_anchor);
	T_RUN(already_applied_hunks);
	T_RUN(random_git_diffs);
	sh("rm -rf '%s'", base);
	return t_done();
}
