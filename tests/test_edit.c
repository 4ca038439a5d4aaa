/*
 * Unit tests of the tools that change code (edit_file, write_file,
 * apply_patch) and of tools/fsutil: hostile paths and symbolic links,
 * files changed between preview and apply, binary, CRLF and unterminated
 * files, odd file names, a 100 MB file, failing and multi-file patches,
 * file modes and snapshots.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "diff.h"
#include "fsutil.h"
#include "sha256.h"
#include "t.h"
#include "tool.h"
#include "xalloc.h"

static char root[PATH_MAX], outside[PATH_MAX], snaps[PATH_MAX + 32];
static struct tool_env env;

/* --- helpers --- */

static char *
path_in(const char *dir, const char *name)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

static void
put(const char *dir, const char *name, const char *data, size_t len)
{
	char *p = path_in(dir, name);
	FILE *f = fopen(p, "wb");

	if (f == NULL) {
		T_FAIL("cannot create %s", p);
		free(p);
		return;
	}
	fwrite(data, 1, len, f);
	fclose(f);
	free(p);
}

static void
puts_in(const char *dir, const char *name, const char *s)
{
	put(dir, name, s, strlen(s));
}

/* The file's content, or NULL if it does not exist; the caller frees. */
static char *
get(const char *dir, const char *name)
{
	char *p = path_in(dir, name), *data;
	struct buf err = BUF_INIT(4096);
	size_t len;

	if (fsutil_read_file(p, (size_t)1 << 30, &data, &len, &err) != 0)
		data = NULL;
	buf_release(&err);
	free(p);
	return data;
}

static bool
exists(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	struct stat st;
	bool ok = lstat(p, &st) == 0;

	free(p);
	return ok;
}

static mode_t
mode_of(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	struct stat st;
	mode_t m = stat(p, &st) == 0 ? st.st_mode & 07777 : 0;

	free(p);
	return m;
}

/* A JSON object from key/value string pairs, NULL-terminated. */
static cJSON *
args(const char *k, ...)
{
	cJSON *o = cJSON_CreateObject();
	va_list ap;

	va_start(ap, k);
	while (k != NULL) {
		const char *v = va_arg(ap, const char *);

		if (strcmp(k, "replace_all") == 0)
			cJSON_AddBoolToObject(o, k, strcmp(v, "true") == 0);
		else
			cJSON_AddStringToObject(o, k, v);
		k = va_arg(ap, const char *);
	}
	va_end(ap);
	return o;
}

/* Run tool t on input (consumed); the result is in out (caller releases). */
static void
run(const struct tool_def *t, cJSON *input, struct tool_out *out)
{
	tool_out_init(out);
	t->run(&env, input, out);
	cJSON_Delete(input);
}

static int
preview(const struct tool_def *t, cJSON *input, struct buf *diff)
{
	int rc;

	buf_init(diff, BUF_NOLIMIT);
	rc = t->preview(&env, input, diff);
	cJSON_Delete(input);
	return rc;
}

static const char *
meta_str(const struct tool_out *out, int i, const char *key)
{
	cJSON *files = cJSON_GetObjectItem(out->meta, "files");
	cJSON *f = cJSON_GetArrayItem(files, i), *v = cJSON_GetObjectItem(f, key);

	if (v == NULL)
		return "(missing)";
	return cJSON_IsNull(v) ? "null" : cJSON_IsString(v) ? v->valuestring : "(not a string)";
}

static int
meta_count(const struct tool_out *out)
{
	return cJSON_GetArraySize(cJSON_GetObjectItem(out->meta, "files"));
}

static void
sha_of(const char *s, char hex[SHA256_HEX_LEN + 1])
{
	sha256_hex(s, strlen(s), hex);
}

static void
setup(void)
{
	char t1[] = "/tmp/tandem-edit-XXXXXX", t2[] = "/tmp/tandem-out-XXXXXX";
	char t3[] = "/tmp/tandem-snap-XXXXXX";
	char *r;

	umask(022);
	r = realpath(mkdtemp(t1), NULL);
	snprintf(root, sizeof root, "%s", r);
	free(r);
	r = realpath(mkdtemp(t2), NULL);
	snprintf(outside, sizeof outside, "%s", r);
	free(r);
	r = realpath(mkdtemp(t3), NULL);
	/* a directory that does not exist yet: fsutil creates it 0700 */
	snprintf(snaps, sizeof snaps, "%s/session/files", r);
	free(r);
	env.root = root;
	env.session_dir = NULL;
	env.snap_dir = snaps;
}

/* --- edit_file --- */

T_TEST(edit_replaces_and_snapshots)
{
	char before[65], after[65], *snap, *got;
	struct tool_out out;
	struct stat st;

	puts_in(root, "a.c", "int a;\nint b;\nint c;\n");
	run(&tool_edit_file, args("path", "a.c", "old_string", "int b;",
	    "new_string", "long b;\nlong b2;", NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "edited a.c: 1 replacement at line 2 (+2 -1)");
	got = get(root, "a.c");
	T_EQ_STR(got, "int a;\nlong b;\nlong b2;\nint c;\n");
	free(got);
	sha_of("int a;\nint b;\nint c;\n", before);
	sha_of("int a;\nlong b;\nlong b2;\nint c;\n", after);
	T_EQ_INT(meta_count(&out), 1);
	T_EQ_STR(meta_str(&out, 0, "path"), "a.c");
	T_EQ_STR(meta_str(&out, 0, "before"), before);
	T_EQ_STR(meta_str(&out, 0, "after"), after);
	/* the old content is stored under its hash, 0600 in a 0700 directory */
	snap = get(snaps, before);
	T_EQ_STR(snap, "int a;\nint b;\nint c;\n");
	free(snap);
	T_EQ_INT(mode_of(snaps, before), 0600);
	T_OK(stat(snaps, &st) == 0 && (st.st_mode & 0777) == 0700);
	tool_out_release(&out);
}

T_TEST(edit_several_matches)
{
	struct tool_out out;
	char *got;

	puts_in(root, "m.txt", "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
	run(&tool_edit_file, args("path", "m.txt", "old_string", "x = 1", "new_string", "x = 3",
	    NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "old_string matches 3 places in m.txt (lines 1, 3, 5)");
	T_CONTAINS(buf_cstr(&out.text), "replace_all");
	T_OK(out.meta == NULL);
	tool_out_release(&out);
	got = get(root, "m.txt");
	T_EQ_STR(got, "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
	free(got);
	run(&tool_edit_file, args("path", "m.txt", "old_string", "x = 1", "new_string", "x = 3",
	    "replace_all", "true", NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "edited m.txt: 3 replacements at lines 1, 3, 5 (+3 -3)");
	tool_out_release(&out);
	got = get(root, "m.txt");
	T_EQ_STR(got, "x = 3\ny = 2\nx = 3\nz\nx = 3\n");
	free(got);
}

T_TEST(edit_refuses_pointless_and_malformed_input)
{
	struct tool_out out;
	char *got;

	puts_in(root, "s.txt", "same\n");
	run(&tool_edit_file, args("path", "s.txt", "old_string", "same", "new_string", "same",
	    NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "the same");
	tool_out_release(&out);
	run(&tool_edit_file, args("path", "s.txt", "old_string", "", "new_string", "x", NULL),
	    &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "write_file");
	tool_out_release(&out);
	run(&tool_edit_file, args("path", "s.txt", "old_string", "same", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "new_string");
	tool_out_release(&out);
	run(&tool_edit_file, args("old_string", "a", "new_string", "b", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "path");
	tool_out_release(&out);
	run(&tool_edit_file, args("path", "nope.txt", "old_string", "a", "new_string", "b",
	    NULL), &out);
	T_OK(out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "nope.txt does not exist; use write_file to create a file");
	tool_out_release(&out);
	T_OK(!exists(root, "nope.txt"));
	/* an empty file may be filled with an empty old_string */
	puts_in(root, "empty.txt", "");
	run(&tool_edit_file, args("path", "empty.txt", "old_string", "", "new_string", "hi\n",
	    NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "empty.txt");
	T_EQ_STR(got, "hi\n");
	free(got);
	/* a directory */
	mkdir(root, 0755);
	run(&tool_edit_file, args("path", ".", "old_string", "a", "new_string", "b", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "directory");
	tool_out_release(&out);
}

T_TEST(edit_no_match_explains)
{
	struct tool_out out;
	const char *text = "int main(void)\n{\n\tint total = 0;\n\ttotal += 1;\n\treturn total;\n}\n";

	puts_in(root, "w.c", text);
	/* spaces where the file has a tab */
	run(&tool_edit_file, args("path", "w.c", "old_string", "    int total = 0;\n    total += 1;",
	    "new_string", "x", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "old_string was not found in w.c.");
	T_CONTAINS(buf_cstr(&out.text), "matches lines 3-4 when whitespace is ignored");
	T_CONTAINS(buf_cstr(&out.text), "3\t\tint total = 0;\n4\t\ttotal += 1;\n");
	tool_out_release(&out);
	/* a typo: the closest lines are shown with their numbers */
	run(&tool_edit_file, args("path", "w.c", "old_string", "\ttotal += 2;\n\treturn total;",
	    "new_string", "x", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "The most similar part of the file is at line 4:");
	T_CONTAINS(buf_cstr(&out.text), "4\t\ttotal += 1;\n5\t\treturn total;\n");
	tool_out_release(&out);
	/* nothing like it */
	run(&tool_edit_file, args("path", "w.c", "old_string", "qqqqqqqqqqqqqqqqqqqqqqqqqq",
	    "new_string", "x", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "Nothing in the file resembles it");
	tool_out_release(&out);
	{
		char *got = get(root, "w.c");

		T_EQ_STR(got, text);
		free(got);
	}
}

T_TEST(edit_refuses_binary)
{
	struct tool_out out;

	put(root, "bin.dat", "abc\0def\n", 8);
	run(&tool_edit_file, args("path", "bin.dat", "old_string", "abc", "new_string", "x",
	    NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "binary");
	tool_out_release(&out);
}

T_TEST(edit_keeps_crlf)
{
	struct tool_out out;
	struct buf d;
	char *got;

	puts_in(root, "dos.txt", "one\r\ntwo\r\nthree\r\n");
	T_EQ_INT(preview(&tool_edit_file, args("path", "dos.txt", "old_string", "one\ntwo",
	    "new_string", "1\n2\n2.5", NULL), &d), 0);
	T_CONTAINS(buf_cstr(&d), "-one\r\n-two\r\n+1\r\n+2\r\n+2.5\r\n");
	buf_release(&d);
	run(&tool_edit_file, args("path", "dos.txt", "old_string", "one\ntwo",
	    "new_string", "1\n2\n2.5", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "dos.txt");
	T_EQ_STR(got, "1\r\n2\r\n2.5\r\nthree\r\n");
	free(got);
	/* a single-line match, and a new line break, in the file's style */
	run(&tool_edit_file, args("path", "dos.txt", "old_string", "three",
	    "new_string", "3\n4", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "dos.txt");
	T_EQ_STR(got, "1\r\n2\r\n2.5\r\n3\r\n4\r\n");
	free(got);
}

T_TEST(edit_file_without_final_newline)
{
	struct tool_out out;
	struct buf d;
	char *got;

	puts_in(root, "nonl.txt", "a\nb");
	T_EQ_INT(preview(&tool_edit_file, args("path", "nonl.txt", "old_string", "b",
	    "new_string", "c", NULL), &d), 0);
	T_EQ_STR(buf_cstr(&d), "--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n a\n-b\n"
	    "\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
	buf_release(&d);
	run(&tool_edit_file, args("path", "nonl.txt", "old_string", "b", "new_string", "c",
	    NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "nonl.txt");
	T_EQ_STR(got, "a\nc");
	free(got);
}

T_TEST(edit_keeps_mode)
{
	struct tool_out out;
	char *p = path_in(root, "run.sh");

	puts_in(root, "run.sh", "#!/bin/sh\necho hi\n");
	chmod(p, 0755);
	run(&tool_edit_file, args("path", "run.sh", "old_string", "hi", "new_string", "hello",
	    NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	T_EQ_INT(mode_of(root, "run.sh"), 0755);
	chmod(p, 0600);
	run(&tool_write_file, args("path", "run.sh", "content", "#!/bin/sh\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	T_EQ_INT(mode_of(root, "run.sh"), 0600);
	free(p);
	/* a new file: 0644 minus the umask (022 here) */
	run(&tool_write_file, args("path", "fresh.txt", "content", "x\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	T_EQ_INT(mode_of(root, "fresh.txt"), 0644);
}

T_TEST(edit_non_utf8_file_name)
{
	struct tool_out out;
	char *got;
	const char *name = "caf\xe9-\xff.txt";

	puts_in(root, name, "latin\n");
	run(&tool_edit_file, args("path", name, "old_string", "latin", "new_string", "one",
	    NULL), &out);
	T_OK(!out.is_error);
	/* the meta path is valid JSON text: the bad bytes are replaced */
	T_CONTAINS(meta_str(&out, 0, "path"), "caf\xef\xbf\xbd-");
	tool_out_release(&out);
	got = get(root, name);
	T_EQ_STR(got, "one\n");
	free(got);
	run(&tool_write_file, args("path", "dir\xfe/x.txt", "content", "y\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	T_OK(exists(root, "dir\xfe/x.txt"));
}

/* --- paths and symbolic links --- */

T_TEST(paths_outside_are_refused)
{
	struct tool_out out;
	char *abs_out = path_in(outside, "victim.txt"), *dotdot;
	const struct tool_def *tools[] = { &tool_edit_file, &tool_write_file };
	size_t i;

	puts_in(outside, "victim.txt", "secret\n");
	dotdot = path_in("..", strrchr(outside, '/') + 1);
	{
		char *p = path_in(dotdot, "victim.txt");

		free(dotdot);
		dotdot = p;
	}
	for (i = 0; i < 2; i++) {
		const char *paths[] = { abs_out, dotdot, "../../../../../../etc/passwd",
		    "/etc/passwd", "sub/../../x" };
		size_t j;

		for (j = 0; j < sizeof paths / sizeof *paths; j++) {
			cJSON *in = tools[i] == &tool_edit_file ?
			    args("path", paths[j], "old_string", "secret", "new_string", "x", NULL) :
			    args("path", paths[j], "content", "x", NULL);

			run(tools[i], in, &out);
			if (!out.is_error)
				T_FAIL("%s accepted %s", tools[i]->name, paths[j]);
			T_OK(out.meta == NULL);
			tool_out_release(&out);
		}
	}
	{
		char *got = get(outside, "victim.txt");

		T_EQ_STR(got, "secret\n");
		free(got);
	}
	T_OK(!exists(outside, "x"));
	free(abs_out);
	free(dotdot);
}

T_TEST(symlink_escapes_are_refused)
{
	struct tool_out out;
	char *p, *target;

	puts_in(outside, "target.txt", "outside\n");
	/* a link inside the root to a file outside */
	p = path_in(root, "link.txt");
	target = path_in(outside, "target.txt");
	T_OK(symlink(target, p) == 0);
	free(p);
	free(target);
	run(&tool_edit_file, args("path", "link.txt", "old_string", "outside", "new_string", "x",
	    NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "outside the workspace");
	tool_out_release(&out);
	run(&tool_write_file, args("path", "link.txt", "content", "x", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	/* a linked directory that leads outside */
	p = path_in(root, "outdir");
	T_OK(symlink(outside, p) == 0);
	free(p);
	run(&tool_write_file, args("path", "outdir/new.txt", "content", "x", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	run(&tool_edit_file, args("path", "outdir/target.txt", "old_string", "outside",
	    "new_string", "x", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	/* a dangling link inside pointing outside: writing must not create its target */
	p = path_in(root, "dangling");
	target = path_in(outside, "created-by-tandem.txt");
	T_OK(symlink(target, p) == 0);
	free(p);
	free(target);
	run(&tool_write_file, args("path", "dangling", "content", "x", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "symbolic link");
	tool_out_release(&out);
	T_OK(!exists(outside, "created-by-tandem.txt"));
	{
		char *got = get(outside, "target.txt");

		T_EQ_STR(got, "outside\n");
		free(got);
	}
	/* a patch through the linked directory */
	run(&tool_apply_patch, args("patch", "--- a/outdir/target.txt\n+++ b/outdir/target.txt\n"
	    "@@ -1 +1 @@\n-outside\n+x\n", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	{
		char *got = get(outside, "target.txt");

		T_EQ_STR(got, "outside\n");
		free(got);
	}
}

T_TEST(symlinks_inside_are_written_through)
{
	struct tool_out out;
	struct stat st;
	char *p, *got;

	p = path_in(root, "real");
	T_OK(mkdir(p, 0755) == 0);
	free(p);
	puts_in(root, "real/file.txt", "v1\n");
	p = path_in(root, "alias.txt");
	T_OK(symlink("real/file.txt", p) == 0);
	run(&tool_edit_file, args("path", "alias.txt", "old_string", "v1", "new_string", "v2",
	    NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(meta_str(&out, 0, "path"), "real/file.txt");
	tool_out_release(&out);
	got = get(root, "real/file.txt");
	T_EQ_STR(got, "v2\n");
	free(got);
	T_OK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
	free(p);
	/* a linked directory inside the root */
	p = path_in(root, "reallink");
	T_OK(symlink("real", p) == 0);
	free(p);
	run(&tool_write_file, args("path", "reallink/new.txt", "content", "n\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "real/new.txt");
	T_EQ_STR(got, "n\n");
	free(got);
	/* a dangling link to a new file inside: the target is created */
	p = path_in(root, "later");
	T_OK(symlink("real/later.txt", p) == 0);
	free(p);
	run(&tool_write_file, args("path", "later", "content", "L\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "real/later.txt");
	T_EQ_STR(got, "L\n");
	free(got);
}

/* A directory or file swapped for a link after the path was checked. */
T_TEST(swapped_paths_are_caught_at_write_time)
{
	struct buf err = BUF_INIT(4096);
	char *sub = path_in(root, "swap"), *moved = path_in(root, "swap-moved");
	char *abs = path_in(root, "swap/f.txt"), *target = path_in(outside, "swapped.txt");
	char *got;

	T_OK(mkdir(sub, 0755) == 0);
	puts_in(root, "swap/f.txt", "inside\n");
	/* the directory becomes a link to outside after sandbox_resolve gave abs */
	T_OK(rename(sub, moved) == 0);
	T_OK(symlink(outside, sub) == 0);
	T_EQ_INT(fsutil_write_atomic(root, abs, "evil\n", 5, NULL, &err), -1);
	T_CONTAINS(buf_cstr(&err), "outside the workspace");
	T_OK(!exists(outside, "f.txt"));
	/* the file becomes a link to outside */
	unlink(sub);
	T_OK(rename(moved, sub) == 0);
	unlink(abs);
	T_OK(symlink(target, abs) == 0);
	buf_reset(&err);
	T_EQ_INT(fsutil_write_atomic(root, abs, "evil\n", 5, NULL, &err), -1);
	T_CONTAINS(buf_cstr(&err), "outside the workspace through the symbolic link");
	T_OK(!exists(outside, "swapped.txt"));
	buf_reset(&err);
	T_EQ_INT(fsutil_remove(root, abs, NULL, &err), -1);
	got = get(root, "swap-moved");
	T_OK(got == NULL);
	free(got);
	/* mkdirs refuses to leave the root, even through a link */
	buf_reset(&err);
	T_EQ_INT(fsutil_mkdirs(root, outside, &err), -1);
	free(abs);
	abs = path_in(root, "outdir2");
	T_OK(symlink(outside, abs) == 0);
	free(abs);
	abs = path_in(root, "outdir2/made");
	buf_reset(&err);
	T_EQ_INT(fsutil_mkdirs(root, abs, &err), -1);
	T_OK(!exists(outside, "made"));
	buf_release(&err);
	free(sub);
	free(moved);
	free(abs);
	free(target);
}

/* Deny ed-secret (and below), for reads and edits. */
static bool
deny_ed_secret(void *arg, enum sandbox_access access, const char *path)
{
	(void)arg;
	(void)access;
	return strcmp(path, "ed-secret") == 0 || strncmp(path, "ed-secret/", 10) == 0;
}

/* The write tools hold the path they reached to the deny rules. */
T_TEST(writes_hold_to_deny_rules)
{
	static const struct sandbox_policy pol = { deny_ed_secret, NULL };
	struct tool_out out;
	char *p, *got;

	T_OK(mkdir(p = path_in(root, "ed-secret"), 0755) == 0);
	free(p);
	puts_in(root, "ed-secret/k.txt", "key\n");
	T_OK(symlink("ed-secret", p = path_in(root, "ed-docs")) == 0);
	free(p);
	env.policy = &pol;
	run(&tool_write_file, args("path", "ed-docs/k.txt", "content", "evil\n", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "ed-docs/k.txt leads to ed-secret/k.txt, which a deny rule covers");
	tool_out_release(&out);
	run(&tool_write_file, args("path", "ed-docs/new/deep.txt", "content", "evil\n", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	run(&tool_edit_file, args("path", "ed-docs/k.txt", "old_string", "key",
	    "new_string", "evil", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "deny rule");
	tool_out_release(&out);
	/* apply_patch reads and writes through the same walk */
	run(&tool_apply_patch, args("patch", "--- a/ed-docs/k.txt\n+++ b/ed-docs/k.txt\n"
	    "@@ -1 +1 @@\n-key\n+evil\n", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "deny rule");
	tool_out_release(&out);
	got = get(root, "ed-secret/k.txt");
	T_EQ_STR(got, "key\n");
	free(got);
	T_OK(!exists(root, "ed-secret/new"));
	/* a new file in new directories elsewhere is still fine */
	run(&tool_write_file, args("path", "ed-ok/a/b.txt", "content", "fine\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	env.policy = NULL;
	/* without the policy the same write goes through: the checks above can fail */
	run(&tool_write_file, args("path", "ed-docs/k.txt", "content", "now\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "ed-secret/k.txt");
	T_EQ_STR(got, "now\n");
	free(got);
}

/* --- preview and apply --- */

T_TEST(preview_does_not_write)
{
	struct buf d;
	char *got;

	puts_in(root, "p.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
	T_EQ_INT(preview(&tool_edit_file, args("path", "p.txt", "old_string", "5\n",
	    "new_string", "five\n", NULL), &d), 0);
	T_EQ_STR(buf_cstr(&d), "--- a/p.txt\n+++ b/p.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n"
	    "+five\n 6\n 7\n 8\n");
	buf_release(&d);
	got = get(root, "p.txt");
	T_EQ_STR(got, "1\n2\n3\n4\n5\n6\n7\n8\n");
	free(got);
	/* a preview of an edit that would fail gives -1 and the reason */
	T_EQ_INT(preview(&tool_edit_file, args("path", "p.txt", "old_string", "9\n",
	    "new_string", "x", NULL), &d), -1);
	T_CONTAINS(buf_cstr(&d), "not found");
	buf_release(&d);
	T_EQ_INT(preview(&tool_write_file, args("path", "newdir/q.txt", "content", "q\n", NULL),
	    &d), 0);
	T_EQ_STR(buf_cstr(&d), "--- /dev/null\n+++ b/newdir/q.txt\n@@ -0,0 +1 @@\n+q\n");
	buf_release(&d);
	T_OK(!exists(root, "newdir"));
	T_EQ_INT(preview(&tool_apply_patch, args("patch", "--- a/p.txt\n+++ b/p.txt\n"
	    "@@ -1,2 +1,2 @@\n-1\n+one\n 2\n", NULL), &d), 0);
	T_EQ_STR(buf_cstr(&d), "--- a/p.txt\n+++ b/p.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n");
	buf_release(&d);
	got = get(root, "p.txt");
	T_EQ_STR(got, "1\n2\n3\n4\n5\n6\n7\n8\n");
	free(got);
}

T_TEST(file_changed_between_preview_and_apply)
{
	char h1[65], h2[65], *got;
	struct tool_out out;
	struct buf d, err = BUF_INIT(4096);
	char *abs = path_in(root, "race.txt");

	puts_in(root, "race.txt", "alpha\nbeta\ngamma\n");
	T_EQ_INT(fsutil_hash_file(abs, h1), 0);
	T_EQ_INT(preview(&tool_edit_file, args("path", "race.txt", "old_string", "beta",
	    "new_string", "BETA", NULL), &d), 0);
	buf_release(&d);
	/* the user changes another line: the edit applies to the new content */
	puts_in(root, "race.txt", "ALPHA\nbeta\ngamma\n");
	T_EQ_INT(fsutil_hash_file(abs, h2), 0);
	T_OK(strcmp(h1, h2) != 0);
	run(&tool_edit_file, args("path", "race.txt", "old_string", "beta", "new_string", "BETA",
	    NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "race.txt");
	T_EQ_STR(got, "ALPHA\nBETA\ngamma\n");
	free(got);
	/* the matched text itself goes away: the edit fails, nothing stale is written */
	T_EQ_INT(preview(&tool_edit_file, args("path", "race.txt", "old_string", "gamma",
	    "new_string", "GAMMA", NULL), &d), 0);
	buf_release(&d);
	puts_in(root, "race.txt", "replaced by the user\n");
	run(&tool_edit_file, args("path", "race.txt", "old_string", "gamma", "new_string", "GAMMA",
	    NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	got = get(root, "race.txt");
	T_EQ_STR(got, "replaced by the user\n");
	free(got);
	/* the last guard: the write checks the file still holds what was read */
	T_EQ_INT(fsutil_write_atomic(root, abs, "stale\n", 6, h1, &err), -1);
	T_CONTAINS(buf_cstr(&err), "changed after it was read");
	got = get(root, "race.txt");
	T_EQ_STR(got, "replaced by the user\n");
	free(got);
	buf_reset(&err);
	T_EQ_INT(fsutil_write_atomic(root, abs, "x", 1, "", &err), -1);
	T_CONTAINS(buf_cstr(&err), "created by something else");
	buf_reset(&err);
	T_EQ_INT(fsutil_hash_file(abs, h2), 0);
	T_EQ_INT(fsutil_write_atomic(root, abs, "fresh\n", 6, h2, &err), 0);
	got = get(root, "race.txt");
	T_EQ_STR(got, "fresh\n");
	free(got);
	unlink(abs);
	T_EQ_INT(fsutil_hash_file(abs, h2), FSUTIL_MISSING);
	T_EQ_STR(h2, "");
	T_EQ_INT(fsutil_write_atomic(root, abs, "x", 1, h1, &err), -1);
	T_CONTAINS(buf_cstr(&err), "was removed");
	T_OK(!exists(root, "race.txt"));
	buf_release(&err);
	free(abs);
}

/* --- write_file --- */

T_TEST(write_creates_and_replaces)
{
	struct tool_out out;
	char sha[65], *got;

	run(&tool_write_file, args("path", "deep/er/new.c", "content", "a\nb\n", NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "created deep/er/new.c (2 lines)");
	T_EQ_STR(meta_str(&out, 0, "before"), "null");
	sha_of("a\nb\n", sha);
	T_EQ_STR(meta_str(&out, 0, "after"), sha);
	tool_out_release(&out);
	T_EQ_INT(mode_of(root, "deep/er"), 0755);
	run(&tool_write_file, args("path", "deep/er/new.c", "content", "a\nc\nd\n", NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "wrote deep/er/new.c (+2 -1)");
	T_EQ_STR(meta_str(&out, 0, "before"), sha);
	tool_out_release(&out);
	got = get(snaps, sha);
	T_EQ_STR(got, "a\nb\n");
	free(got);
	run(&tool_write_file, args("path", "deep/er/new.c", "content", "a\nc\nd\n", NULL), &out);
	T_OK(!out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "already has this content");
	T_OK(out.meta == NULL);
	tool_out_release(&out);
	run(&tool_write_file, args("path", "deep", "content", "x", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "directory");
	tool_out_release(&out);
	/* a parent that is a file */
	run(&tool_write_file, args("path", "deep/er/new.c/inner", "content", "x", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	run(&tool_write_file, args("path", "", "content", "x", NULL), &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	run(&tool_write_file, args("path", "nocontent.txt", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "content");
	tool_out_release(&out);
}

/* --- apply_patch --- */

T_TEST(patch_multi_file_create_delete)
{
	struct tool_out out;
	char sha[65], *got;

	puts_in(root, "one.txt", "1\n2\n3\n");
	puts_in(root, "two.txt", "a\nb\nc\n");
	puts_in(root, "gone.txt", "bye\nnow\n");
	run(&tool_apply_patch, args("patch",
	    "Some words before the patch.\n"
	    "--- a/one.txt\n+++ b/one.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n"
	    "--- a/two.txt\t2024-01-01 10:00:00\n+++ b/two.txt\t2024-01-01 10:00:01\n"
	    "@@ -2,2 +2,3 @@\n b\n c\n+d\n"
	    "--- /dev/null\n+++ b/made/new.txt\n@@ -0,0 +1,2 @@\n+fresh\n+file\n"
	    "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-bye\n-now\n", NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "applied the patch to 4 files:\n"
	    "  modified one.txt (+1 -1)\n  modified two.txt (+1 -0)\n"
	    "  created made/new.txt (2 lines)\n  deleted gone.txt (2 lines)");
	T_EQ_INT(meta_count(&out), 4);
	T_EQ_STR(meta_str(&out, 2, "path"), "made/new.txt");
	T_EQ_STR(meta_str(&out, 2, "before"), "null");
	T_EQ_STR(meta_str(&out, 3, "path"), "gone.txt");
	T_EQ_STR(meta_str(&out, 3, "after"), "null");
	sha_of("bye\nnow\n", sha);
	T_EQ_STR(meta_str(&out, 3, "before"), sha);
	tool_out_release(&out);
	got = get(root, "one.txt");
	T_EQ_STR(got, "1\ntwo\n3\n");
	free(got);
	got = get(root, "two.txt");
	T_EQ_STR(got, "a\nb\nc\nd\n");
	free(got);
	got = get(root, "made/new.txt");
	T_EQ_STR(got, "fresh\nfile\n");
	free(got);
	T_OK(!exists(root, "gone.txt"));
	got = get(snaps, sha);
	T_EQ_STR(got, "bye\nnow\n");
	free(got);
}

T_TEST(patch_failing_second_hunk_writes_nothing)
{
	struct tool_out out;
	char *got;
	const char *f1 = "keep 1\nkeep 2\nkeep 3\n";
	const char *f2 = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\n";

	puts_in(root, "first.txt", f1);
	puts_in(root, "second.txt", f2);
	run(&tool_apply_patch, args("patch",
	    "--- a/first.txt\n+++ b/first.txt\n@@ -1,3 +1,3 @@\n keep 1\n-keep 2\n+KEEP 2\n keep 3\n"
	    "--- a/second.txt\n+++ b/second.txt\n@@ -1,3 +1,3 @@\n l1\n-l2\n+L2\n l3\n"
	    "@@ -9,3 +9,3 @@\n l9\n-l10 is different\n+L10\n l11\n", NULL), &out);
	T_OK(out.is_error);
	T_OK(out.meta == NULL);
	T_CONTAINS(buf_cstr(&out.text), "hunk 2 of second.txt (@@ -9,3 +9,3 @@) does not match "
	    "the file; nothing was written.");
	T_CONTAINS(buf_cstr(&out.text), "expects these lines at line 9:\n1\tl9\n2\tl10 is different\n3\tl11\n");
	T_CONTAINS(buf_cstr(&out.text), "The most similar lines in the file are at line 9:\n"
	    "7\tl7\n8\tl8\n9\tl9\n10\tl10\n11\tl11\n");
	tool_out_release(&out);
	got = get(root, "first.txt");
	T_EQ_STR(got, f1);
	free(got);
	got = get(root, "second.txt");
	T_EQ_STR(got, f2);
	free(got);
}

T_TEST(patch_offsets_and_fuzz)
{
	struct tool_out out;
	char *got;

	puts_in(root, "off.txt", "x\nx2\nx3\nhead\nmid\ntail\nz\n");
	/* stated at line 1, really at line 4 */
	run(&tool_apply_patch, args("patch", "--- off.txt\n+++ off.txt\n@@ -1,3 +1,3 @@\n head\n"
	    "-mid\n+MID\n tail\n", NULL), &out);
	T_OK(!out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "off.txt: hunk 1 applied at offset +3 (line 4, not 1)");
	tool_out_release(&out);
	got = get(root, "off.txt");
	T_EQ_STR(got, "x\nx2\nx3\nhead\nMID\ntail\nz\n");
	free(got);
	/* trailing whitespace lost by the model; no a/ b/ */
	puts_in(root, "ws.txt", "a  \nb\nc\n");
	run(&tool_apply_patch, args("patch", "--- ws.txt\n+++ ws.txt\n@@ -1,3 +1,3 @@\n a\n-b\n"
	    "+B\n c\n", NULL), &out);
	T_OK(!out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "whitespace at line ends");
	tool_out_release(&out);
	got = get(root, "ws.txt");
	T_EQ_STR(got, "a  \nB\nc\n");
	free(got);
	/* a blank context line whose leading space was stripped */
	puts_in(root, "blank.txt", "a\n\nb\n");
	run(&tool_apply_patch, args("patch", "--- a/blank.txt\n+++ b/blank.txt\n@@ -1,3 +1,3 @@\n"
	    " a\n\n-b\n+B\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "blank.txt");
	T_EQ_STR(got, "a\n\nB\n");
	free(got);
	/* hunks out of order */
	puts_in(root, "order.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
	run(&tool_apply_patch, args("patch", "--- a/order.txt\n+++ b/order.txt\n"
	    "@@ -7,2 +7,2 @@\n 7\n-8\n+eight\n@@ -1,2 +1,2 @@\n 1\n-2\n+two\n", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "must be in file order");
	tool_out_release(&out);
}

T_TEST(patch_git_style_crlf_and_no_newline)
{
	struct tool_out out;
	char *got;

	puts_in(root, "g.txt", "x\ny\n");
	puts_in(root, "crlf.txt", "a\r\nb\r\nc\r\n");
	puts_in(root, "nonl2.txt", "last");
	run(&tool_apply_patch, args("patch",
	    "diff --git a/g.txt b/g.txt\nindex 3e75765..b3d9c2a 100644\n"
	    "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+why\n"
	    "diff --git a/crlf.txt b/crlf.txt\n--- a/crlf.txt\n+++ b/crlf.txt\n"
	    "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n"
	    "diff --git a/nonl2.txt b/nonl2.txt\n--- a/nonl2.txt\n+++ b/nonl2.txt\n"
	    "@@ -1 +1,2 @@\n-last\n\\ No newline at end of file\n+last\n+more\n"
	    "\\ No newline at end of file\n"
	    "diff --git a/gitnew.txt b/gitnew.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
	    NULL), &out);
	T_OK(!out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "created gitnew.txt (0 lines)");
	tool_out_release(&out);
	got = get(root, "g.txt");
	T_EQ_STR(got, "x\nwhy\n");
	free(got);
	got = get(root, "crlf.txt");
	T_EQ_STR(got, "a\r\nB\r\nB2\r\nc\r\n");
	free(got);
	got = get(root, "nonl2.txt");
	T_EQ_STR(got, "last\nmore");
	free(got);
	got = get(root, "gitnew.txt");
	T_EQ_STR(got, "");
	free(got);
	/* quoted git paths with escapes */
	puts_in(root, "sp ace\xc3\xa4.txt", "q\n");
	run(&tool_apply_patch, args("patch",
	    "diff --git \"a/sp ace\\303\\244.txt\" \"b/sp ace\\303\\244.txt\"\n"
	    "--- \"a/sp ace\\303\\244.txt\"\n+++ \"b/sp ace\\303\\244.txt\"\n"
	    "@@ -1 +1 @@\n-q\n+Q\n", NULL), &out);
	T_OK(!out.is_error);
	tool_out_release(&out);
	got = get(root, "sp ace\xc3\xa4.txt");
	T_EQ_STR(got, "Q\n");
	free(got);
}

T_TEST(patch_hostile_and_malformed)
{
	struct tool_out out;
	const char *bad[] = {
		"",
		"just some text\nwithout a patch\n",
		"@@ -1 +1 @@\n-a\n+b\n",
		"--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+x\n",
		"--- /etc/hosts\n+++ /etc/hosts\n@@ -1 +1 @@\n-a\n+b\n",
		"--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n",
		"--- a/one.txt\n+++ b/one.txt\n@@ -1,9 +1,1 @@\n 1\n-2\n+x\n 3\n",
		"--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n",
		"--- /dev/null\n+++ b/one.txt\n@@ -0,0 +1 @@\n+exists already\n",
		"--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,2 @@\n context\n+x\n",
		"--- a/two.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
		"--- a/one.txt\n+++ b/one.txt\n@@ -1 +1 @@\n-1\n+x\n--- a/one.txt\n+++ b/one.txt\n"
		"@@ -1 +1 @@\n-1\n+y\n",
		"--- a/one.txt\n+++ b/one.txt\n",
		"--- a/one.txt\n+++ b/one.txt\n@@\n+only an addition\n",
		"diff --git a/one.txt b/renamed.txt\nsimilarity index 90%\nrename from one.txt\n"
		"rename to renamed.txt\n--- a/one.txt\n+++ b/renamed.txt\n@@ -1 +1 @@\n-nope\n+x\n",
		"diff --git a/bin b/bin\nGIT binary patch\nliteral 0\n",
	};
	size_t i;
	char *one, *two;

	one = get(root, "one.txt");
	two = get(root, "two.txt");
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		run(&tool_apply_patch, args("patch", bad[i], NULL), &out);
		if (!out.is_error)
			T_FAIL("patch %zu was accepted: %s", i, buf_cstr(&out.text));
		T_OK(out.meta == NULL);
		T_OK(out.text.len > 0);
		tool_out_release(&out);
	}
	{
		char *g1 = get(root, "one.txt"), *g2 = get(root, "two.txt");

		T_EQ_STR(g1, one);
		T_EQ_STR(g2, two);
		free(g1);
		free(g2);
	}
	T_OK(!exists(root, "c.txt"));
	T_OK(!exists(root, "renamed.txt"));
	free(one);
	free(two);
}

T_TEST(patch_rolls_back_when_a_write_fails)
{
	struct tool_out out;
	char *got;

	puts_in(root, "rb.txt", "old\n");
	puts_in(root, "blocker", "a file where a directory is needed\n");
	run(&tool_apply_patch, args("patch",
	    "--- a/rb.txt\n+++ b/rb.txt\n@@ -1 +1 @@\n-old\n+new\n"
	    "--- /dev/null\n+++ b/blocker/inside.txt\n@@ -0,0 +1 @@\n+x\n", NULL), &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "put back; nothing changed");
	T_OK(out.meta == NULL);
	tool_out_release(&out);
	got = get(root, "rb.txt");
	T_EQ_STR(got, "old\n");
	free(got);
}

T_TEST(patch_round_trips_our_own_diffs)
{
	unsigned seed = 4242;
	int round, bad = 0;

	for (round = 0; round < 200 && bad < 3; round++) {
		struct buf a = BUF_INIT(BUF_NOLIMIT), b = BUF_INIT(BUF_NOLIMIT);
		struct buf u = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(1024);
		struct tool_out out;
		int i, na = (int)(rand_r(&seed) % 30), nb = (int)(rand_r(&seed) % 30);
		char *got;

		for (i = 0; i < na; i++)
			buf_printf(&a, "%c%s", 'a' + (int)(rand_r(&seed) % 4),
			    i < na - 1 || rand_r(&seed) % 3 ? "\n" : "");
		for (i = 0; i < nb; i++)
			buf_printf(&b, "%c%s", 'a' + (int)(rand_r(&seed) % 4),
			    i < nb - 1 || rand_r(&seed) % 3 ? "\n" : "");
		put(root, "rt.txt", a.data ? a.data : "", a.len);
		diff_unified(a.data ? a.data : "", a.len, b.data ? b.data : "", b.len, "rt.txt",
		    &u, &err);
		if (u.len > 0) {
			run(&tool_apply_patch, args("patch", u.data, NULL), &out);
			got = get(root, "rt.txt");
			if (out.is_error || strcmp(got, b.data ? b.data : "") != 0) {
				T_FAIL("round %d: %s\n%s", round, buf_cstr(&out.text), u.data);
				bad++;
			}
			free(got);
			tool_out_release(&out);
		}
		buf_release(&a);
		buf_release(&b);
		buf_release(&u);
		buf_release(&err);
	}
}

/* --- fsutil --- */

T_TEST(snapshots_are_content_addressed)
{
	struct buf err = BUF_INIT(4096);
	char hex[65], again[65], want[65], *data, *p;
	size_t len;
	struct stat st1, st2;

	sha_of("snapshot me\n", want);
	T_EQ_INT(fsutil_snapshot(snaps, "snapshot me\n", 12, hex, &err), 0);
	T_EQ_STR(hex, want);
	p = path_in(snaps, hex);
	T_OK(stat(p, &st1) == 0);
	T_EQ_INT(st1.st_mode & 0777, 0600);
	/* the same content again: stored once, not rewritten */
	T_EQ_INT(fsutil_snapshot(snaps, "snapshot me\n", 12, again, &err), 0);
	T_EQ_STR(again, hex);
	T_OK(stat(p, &st2) == 0 && st1.st_ino == st2.st_ino);
	T_EQ_INT(fsutil_snapshot_load(snaps, hex, &data, &len, &err), 0);
	T_EQ_INT(len, 12);
	T_EQ_STR(data, "snapshot me\n");
	free(data);
	/* hostile names and damaged snapshots */
	T_EQ_INT(fsutil_snapshot_load(snaps, "../../../etc/passwd", &data, &len, &err), -1);
	T_EQ_INT(fsutil_snapshot_load(snaps, "ABCDEF", &data, &len, &err), -1);
	put(snaps, hex, "tampered\n", 9);
	buf_reset(&err);
	T_EQ_INT(fsutil_snapshot_load(snaps, hex, &data, &len, &err), -1);
	T_CONTAINS(buf_cstr(&err), "damaged");
	T_OK(data == NULL);
	/* an empty file has a snapshot too */
	T_EQ_INT(fsutil_snapshot(snaps, "", 0, hex, &err), 0);
	T_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	T_EQ_INT(fsutil_snapshot("relative/dir", "x", 1, hex, &err), -1);
	free(p);
	buf_release(&err);
}

T_TEST(binary_detection)
{
	char buf[4096];
	size_t i;
	unsigned seed = 1;

	const char *text[] = { "plain text\n", "", "gr\xc3\xbc\xc3\x9f dich\n",
		/* a few Latin-1 bytes in text are not enough */
		"caf\xe9 and more plain words around it\n", "\x1b[31mred\x1b[0m\n" };

	for (i = 0; i < sizeof text / sizeof *text; i++)
		if (fsutil_is_binary(text[i], strlen(text[i])))
			T_FAIL("text %zu taken for binary", i);
	T_OK(fsutil_is_binary("\x01\x02\x03\x04" "abc", 7));
	T_OK(fsutil_is_binary("a\0b", 3));
	for (i = 0; i < sizeof buf; i++)
		buf[i] = (char)(rand_r(&seed) % 255 + 1);
	T_OK(fsutil_is_binary(buf, sizeof buf));
	/* a NUL after the first 8 KB is not looked at */
	{
		char *big = xmalloc(20000);

		memset(big, 'a', 20000);
		big[10000] = '\0';
		T_OK(!fsutil_is_binary(big, 20000));
		free(big);
	}
}

T_TEST(read_refuses_odd_files)
{
	struct buf err = BUF_INIT(4096);
	char *fifo = path_in(root, "fifo"), *data;
	size_t len;

	T_OK(mkfifo(fifo, 0600) == 0);
	T_EQ_INT(fsutil_read_file(fifo, 1024, &data, &len, &err), -1);
	T_CONTAINS(buf_cstr(&err), "not a regular file");
	buf_reset(&err);
	T_EQ_INT(fsutil_read_file(root, 1024, &data, &len, &err), -1);
	T_CONTAINS(buf_cstr(&err), "is a directory");
	buf_reset(&err);
	T_EQ_INT(fsutil_read_file("/nonexistent/x", 1024, &data, &len, &err), FSUTIL_MISSING);
	puts_in(root, "small.txt", "0123456789");
	free(fifo);
	fifo = path_in(root, "small.txt");
	buf_reset(&err);
	T_EQ_INT(fsutil_read_file(fifo, 5, &data, &len, &err), -1);
	T_CONTAINS(buf_cstr(&err), "more than");
	T_EQ_INT(fsutil_read_file(fifo, 10, &data, &len, &err), 0);
	T_EQ_INT(len, 10);
	free(data);
	free(fifo);
	buf_release(&err);
	{
		struct tool_out out;

		run(&tool_edit_file, args("path", "fifo", "old_string", "a", "new_string", "b", NULL),
		    &out);
		T_OK(out.is_error);
		tool_out_release(&out);
	}
}

/* A 100 MB file is edited in reasonable time; a larger one than the cap is refused. */
T_TEST(hundred_megabyte_file)
{
	size_t n = 100u << 20, i;
	char *big = xmalloc(n), *p = path_in(root, "big.txt"), *got;
	struct tool_out out;
	struct rusage ru;
	double t0;
	FILE *f;
	int fd;

	for (i = 0; i < n; i++)
		big[i] = i % 100 == 99 ? '\n' : (char)('a' + (i / 100) % 26);
	memcpy(big + n / 2, "UNIQUE MARKER", 13);
	f = fopen(p, "wb");
	fwrite(big, 1, n, f);
	fclose(f);
	t0 = t_cpu();
	run(&tool_edit_file, args("path", "big.txt", "old_string", "UNIQUE MARKER",
	    "new_string", "the marker was edited", NULL), &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "edited big.txt: 1 replacement at line 524289 (+1 -1)");
	tool_out_release(&out);
	printf("# 100 MB edit took %.2f s\n", t_cpu() - t0);
	T_OK(t_cpu() - t0 < 30.0 * t_slack());
	getrusage(RUSAGE_SELF, &ru);
	printf("# peak RSS %ld MB\n", ru.ru_maxrss / 1024);
	T_OK(ru.ru_maxrss < 1024L * 1024);	/* under 1 GB for a 100 MB file */
	got = get(root, "big.txt");
	T_OK(got != NULL && memcmp(got + n / 2, "the marker was edited", 21) == 0);
	T_OK(got != NULL && memcmp(got, big, n / 2) == 0);
	free(got);
	free(big);
	/* larger than FSUTIL_MAX_FILE (a sparse file): refused, with the reason */
	fd = open(p, O_WRONLY | O_TRUNC);
	T_OK(fd != -1 && ftruncate(fd, (off_t)FSUTIL_MAX_FILE + 1) == 0);
	close(fd);
	run(&tool_edit_file, args("path", "big.txt", "old_string", "a", "new_string", "b", NULL),
	    &out);
	T_OK(out.is_error);
	T_CONTAINS(buf_cstr(&out.text), "more than the 128 MB the editing tools handle");
	tool_out_release(&out);
	unlink(p);
	free(p);
}

T_TEST(tool_definitions)
{
	const struct tool_def *defs[] = { &tool_edit_file, &tool_write_file, &tool_apply_patch };
	size_t i;

	for (i = 0; i < 3; i++) {
		cJSON *s = cJSON_Parse(defs[i]->schema);

		T_OK(s != NULL);
		T_OK(cJSON_GetObjectItem(s, "properties") != NULL);
		T_OK(cJSON_IsArray(cJSON_GetObjectItem(s, "required")));
		T_EQ_INT(defs[i]->cls, TOOL_WRITE);
		T_OK(defs[i]->run != NULL && defs[i]->preview != NULL);
		T_OK(strlen(defs[i]->description) > 100);
		cJSON_Delete(s);
	}
	T_EQ_STR(tool_edit_file.name, "edit_file");
	T_EQ_STR(tool_write_file.name, "write_file");
	T_EQ_STR(tool_apply_patch.name, "apply_patch");
}

static void
cleanup(void)
{
	char cmd[3 * PATH_MAX + 64];

	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%.*s'", root, outside,
	    (int)(strlen(snaps) - strlen("/session/files")), snaps);
	if (system(cmd) != 0)
		printf("# could not clean up\n");
}

int
main(void)
{
	setup();
	T_RUN(edit_replaces_and_snapshots);
	T_RUN(edit_several_matches);
	T_RUN(edit_refuses_pointless_and_malformed_input);
	T_RUN(edit_no_match_explains);
	T_RUN(edit_refuses_binary);
	T_RUN(edit_keeps_crlf);
	T_RUN(edit_file_without_final_newline);
	T_RUN(edit_keeps_mode);
	T_RUN(edit_non_utf8_file_name);
	T_RUN(paths_outside_are_refused);
	T_RUN(symlink_escapes_are_refused);
	T_RUN(symlinks_inside_are_written_through);
	T_RUN(swapped_paths_are_caught_at_write_time);
	T_RUN(writes_hold_to_deny_rules);
	T_RUN(preview_does_not_write);
	T_RUN(file_changed_between_preview_and_apply);
	T_RUN(write_creates_and_replaces);
	T_RUN(patch_multi_file_create_delete);
	T_RUN(patch_failing_second_hunk_writes_nothing);
	T_RUN(patch_offsets_and_fuzz);
	T_RUN(patch_git_style_crlf_and_no_newline);
	T_RUN(patch_hostile_and_malformed);
	T_RUN(patch_rolls_back_when_a_write_fails);
	T_RUN(patch_round_trips_our_own_diffs);
	T_RUN(snapshots_are_content_addressed);
	T_RUN(binary_detection);
	T_RUN(read_refuses_odd_files);
	T_RUN(hundred_megabyte_file);
	T_RUN(tool_definitions);
	cleanup();
	return t_done();
}
