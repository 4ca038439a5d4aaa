/*
 * Unit tests of tools/sandbox: the descriptor walk confines every path to
 * the roots, both with openat2() and with the O_NOFOLLOW walk, and the
 * tools stay inside while a child swaps directories for links in a loop.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "sandbox.h"
#include "tool.h"
#include "t.h"
#include "t_tree.h"

static char outside[PATH_MAX], extra[PATH_MAX];

static void
at_path(char *p, size_t n, const char *base, const char *rel)
{
	snprintf(p, n, "%s/%s", base, rel);
}

static void
put_at(const char *base, const char *rel, const char *s)
{
	char p[PATH_MAX + 64];
	FILE *f;

	at_path(p, sizeof p, base, rel);
	f = fopen(p, "w");
	if (f == NULL) {
		perror(p);
		exit(1);
	}
	fputs(s, f);
	fclose(f);
}

static void
setup(void)
{
	char *r = t_tree_mkdtemp("/tmp/tandem-sbx-XXXXXX"), *o = t_tree_mkdtemp("/tmp/tandem-out-XXXXXX");
	char *x = t_tree_mkdtemp("/tmp/tandem-extra-XXXXXX");
	char p[PATH_MAX + 64];

	snprintf(root, sizeof root, "%s", r);
	snprintf(outside, sizeof outside, "%s", o);
	snprintf(extra, sizeof extra, "%s", x);
	free(r);
	free(o);
	free(x);
	puts_file("src/a.c", "int a;\n");
	puts_file("secret/key", "SECRET-MARKER\n");
	put_at(outside, "f.txt", "OUTSIDE-MARKER\n");
	put_at(extra, "e.txt", "extra\n");
	t_tree_link(outside, "escape");
	t_tree_link("src", "inner");
	t_tree_link("../../../../../../../..", "updots");
	t_tree_link("src/../..", "climb");
	at_path(p, sizeof p, outside, "f.txt");
	t_tree_link(p, "file-out");
	t_tree_link("src/a.c", "file-in");
	t_tree_link("src/gone.c", "dangling");
	at_path(p, sizeof p, outside, "gone.c");
	t_tree_link(p, "dangling-out");
	t_tree_link("/proc/self/root", "magic");
	t_tree_link("/proc/self/root/etc", "magic-etc");
	t_tree_link("secret", "docs");
	t_tree_link(extra, "to-extra");
	t_tree_link("loop-b", "loop-a");
	t_tree_link("loop-a", "loop-b");
	at_path(p, sizeof p, root, "fifo");
	mkfifo(p, 0600);
}

/* Deny secret and everything in it, as a deny rule on secret would. */
static bool
deny_secret(void *arg, enum sandbox_access access, const char *path)
{
	(void)arg;
	(void)access;
	return strcmp(path, "secret") == 0 || strncmp(path, "secret/", 7) == 0;
}

static const struct sandbox_policy policy = { deny_secret, NULL };

static int
walk(const char *path, int flags, struct sandbox_at *at, struct buf *err)
{
	const char *extras[] = { extra, NULL };
	struct sandbox sb = { root, extras, &policy };

	buf_reset(err);
	return sandbox_walk(&sb, path, SANDBOX_READ, flags, at, err);
}

static int
resolve(const char *path, bool must, char **abs, char **rel)
{
	struct buf err = BUF_INIT(4096);
	int rc = sandbox_resolve(root, path, must, abs, rel, &err);

	buf_release(&err);
	return rc;
}

T_TEST(inside_paths)
{
	char *abs, *rel;

	T_EQ_INT(resolve("src/a.c", true, &abs, &rel), 0);
	T_EQ_STR(rel, "src/a.c");
	free(abs);
	free(rel);
	T_EQ_INT(resolve("", true, &abs, &rel), 0);
	T_EQ_STR(rel, ".");
	free(abs);
	free(rel);
	T_EQ_INT(resolve("./src/../src/a.c", true, &abs, &rel), 0);
	T_EQ_STR(rel, "src/a.c");
	free(abs);
	free(rel);
	/* A symlink inside the workspace to inside is fine. */
	T_EQ_INT(resolve("inner/a.c", true, &abs, &rel), 0);
	T_EQ_STR(rel, "src/a.c");
	free(abs);
	free(rel);
}

T_TEST(new_files)
{
	char *abs, *rel;

	T_EQ_INT(resolve("src/new/deeper/x.c", false, &abs, &rel), 0);
	T_EQ_STR(rel, "src/new/deeper/x.c");
	free(abs);
	free(rel);
	T_EQ_INT(resolve("src/missing/../../../etc/passwd", false, &abs, &rel), -1);
	T_EQ_INT(resolve("src/nothere.c", true, &abs, &rel), -1);
}

T_TEST(outside_paths)
{
	char *abs, *rel;
	char p[PATH_MAX + 16];

	T_EQ_INT(resolve("../x", false, &abs, &rel), -1);
	T_EQ_INT(resolve("/etc/passwd", true, &abs, &rel), -1);
	T_EQ_INT(resolve("escape/anything", false, &abs, &rel), -1);
	T_EQ_INT(resolve("escape", true, &abs, &rel), -1);
	snprintf(p, sizeof p, "%s/src/a.c", root);
	T_EQ_INT(resolve(p, true, &abs, &rel), 0);	/* absolute but inside */
	free(abs);
	free(rel);
}

T_TEST(prefix_is_not_inside)
{
	char sibling[PATH_MAX + 8];

	snprintf(sibling, sizeof sibling, "%sX/a", root);
	T_OK(!sandbox_inside(root, sibling));
	T_OK(sandbox_inside(root, root));
	T_OK(sandbox_inside("/", "/etc"));
}

/* Each path that must be refused, and a word its message must hold. */
static const struct {
	const char	*path;
	const char	*says;
} refused[] = {
	{ "..", "outside the workspace" },
	{ "../x", "outside the workspace" },
	{ "src/../../x", "outside the workspace" },
	{ "/etc/passwd", "outside the workspace" },
	{ "/proc/self/root/etc/passwd", "outside the workspace" },
	{ "escape/f.txt", "outside the workspace" },
	{ "escape", "outside the workspace" },
	{ "updots/etc", "outside the workspace" },
	{ "climb", "outside the workspace" },
	{ "file-out", "outside the workspace" },
	{ "dangling-out", "outside the workspace" },
	{ "magic", "outside the workspace" },
	{ "magic/etc/passwd", "outside the workspace" },
	{ "magic-etc/passwd", "outside the workspace" },
	{ "loop-a", "too many symbolic links" },
	{ "secret/key", "deny rule" },
	{ "docs/key", "which a deny rule covers" },
	{ "src/a.c/x", "not a directory" },
};

/* The walk itself, run once with openat2 and once with the O_NOFOLLOW walk. */
static void
walk_cases(void)
{
	struct buf err = BUF_INIT(4096);
	struct sandbox_at at;
	char p[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		if (walk(refused[i].path, SANDBOX_MUST_EXIST, &at, &err) == 0) {
			T_FAIL("%s was not refused (reached %s)", refused[i].path, at.rel);
			sandbox_at_release(&at);
			continue;
		}
		T_CONTAINS(buf_cstr(&err), refused[i].says);
		T_EQ_INT(at.dirfd, -1);
	}
	/* links inside are followed, and the walk says where it arrived */
	T_EQ_INT(walk("file-in", SANDBOX_MUST_EXIST, &at, &err), 0);
	T_EQ_STR(at.rel, "src/a.c");
	T_EQ_STR(at.name, "a.c");
	T_OK(S_ISREG(at.st.st_mode));
	sandbox_at_release(&at);
	T_EQ_INT(walk("inner/../inner/./a.c", SANDBOX_MUST_EXIST, &at, &err), 0);
	T_EQ_STR(at.rel, "src/a.c");
	sandbox_at_release(&at);
	/* a dangling link inside names the file it would create */
	T_EQ_INT(walk("dangling", 0, &at, &err), 0);
	T_OK(!at.exists);
	T_EQ_STR(at.rel, "src/gone.c");
	T_OK(at.dirfd != -1);
	sandbox_at_release(&at);
	T_EQ_INT(walk("dangling", SANDBOX_MUST_EXIST, &at, &err), -1);
	/* the root itself, and a path that climbs back to it */
	T_EQ_INT(walk("src/..", SANDBOX_MUST_EXIST, &at, &err), 0);
	T_EQ_STR(at.rel, ".");
	T_EQ_STR(at.name, ".");
	T_OK(S_ISDIR(at.st.st_mode));
	sandbox_at_release(&at);
	/* extra roots: absolute paths in them, and links into them */
	at_path(p, sizeof p, extra, "e.txt");
	T_EQ_INT(walk(p, SANDBOX_MUST_EXIST, &at, &err), 0);
	T_EQ_STR(at.rel, p);
	sandbox_at_release(&at);
	T_EQ_INT(walk("to-extra/e.txt", SANDBOX_MUST_EXIST, &at, &err), 0);
	T_EQ_STR(at.rel, p);
	sandbox_at_release(&at);
	at_path(p, sizeof p, extra, "../x");
	T_EQ_INT(walk(p, 0, &at, &err), -1);
	T_CONTAINS(buf_cstr(&err), "outside the workspace");
	/* a FIFO is reached, never opened: no hang */
	alarm(5);
	T_EQ_INT(walk("fifo", SANDBOX_MUST_EXIST, &at, &err), 0);
	T_OK(S_ISFIFO(at.st.st_mode));
	T_EQ_INT(sandbox_open_at(&at, O_RDONLY, &err), -1);
	T_CONTAINS(buf_cstr(&err), "not a regular file");
	sandbox_at_release(&at);
	alarm(0);
	/* missing parents are named, created only when asked */
	T_EQ_INT(walk("src/new/deeper/x.c", 0, &at, &err), 0);
	T_EQ_INT(at.dirfd, -1);
	T_EQ_STR(at.rel, "src/new/deeper/x.c");
	T_EQ_STR(at.name, "x.c");
	sandbox_at_release(&at);
	T_EQ_INT(walk("made/here/x.c", SANDBOX_PARENTS, &at, &err), 0);
	T_OK(at.dirfd != -1);
	T_OK(!at.exists);
	sandbox_at_release(&at);
	at_path(p, sizeof p, root, "made/here");
	T_OK(access(p, F_OK) == 0);
	T_EQ_INT(walk("escape/made/x.c", SANDBOX_PARENTS, &at, &err), -1);
	at_path(p, sizeof p, outside, "made");
	T_OK(access(p, F_OK) != 0);
	buf_release(&err);
}

T_TEST(walk_with_openat2)
{
	if (!sandbox_use_openat2(true)) {
		printf("# this kernel has no openat2; the O_NOFOLLOW walk ran instead\n");
	}
	walk_cases();
}

T_TEST(walk_with_nofollow_fallback)
{
	T_OK(!sandbox_use_openat2(false));
	walk_cases();
	sandbox_use_openat2(true);
}

/* What one walk costs, each way (printed, not checked). */
T_TEST(walk_cost)
{
	struct buf err = BUF_INIT(4096);
	struct sandbox_at at;
	struct timespec t0, t1;
	int mode, i, n = 20000;

	puts_file("c1/c2/c3/c4/f.txt", "x\n");
	for (mode = 0; mode < 2; mode++) {
		bool on = sandbox_use_openat2(mode == 0);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < n; i++) {
			if (walk("c1/c2/c3/c4/f.txt", SANDBOX_MUST_EXIST, &at, &err) != 0)
				break;
			sandbox_at_release(&at);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		T_EQ_INT(i, n);
		printf("# %s: %.2f us a walk of a 5-component path\n",
		    on ? "openat2" : "O_NOFOLLOW walk",
		    ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
		    n / 1e3);
	}
	sandbox_use_openat2(true);
	buf_release(&err);
}

/*
 * The race: a child swaps directories and links as fast as it can while
 * the tools run.  pub/ is a real directory, then a link to a directory
 * outside, then a link to secret/ (denied), round after round.  The tools
 * may fail (the path is gone for an instant), but what they return and
 * write must never be outside or denied.
 */

/* Swap two names at once, so pub always exists: a directory or a link. */
static void
exchange(const char *a, const char *b)
{
	(void)!renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

static pid_t
swapper_start(void)
{
	char dir[PATH_MAX + 64], lout[PATH_MAX + 64], lsec[PATH_MAX + 64];
	pid_t pid;

	at_path(dir, sizeof dir, root, "pub");
	at_path(lout, sizeof lout, root, "pub.out");
	at_path(lsec, sizeof lsec, root, "pub.sec");
	(void)!symlink(outside, lout);
	(void)!symlink("secret", lsec);
	pid = fork();
	if (pid != 0)
		return pid;
	for (;;) {
		exchange(dir, lout);	/* pub -> outside */
		exchange(dir, lout);
		exchange(dir, lsec);	/* pub -> secret */
		exchange(dir, lsec);
	}
}

/* After the swapper: the directory back at pub, whichever name holds it. */
static void
swapper_undo(void)
{
	char dir[PATH_MAX + 64], other[PATH_MAX + 64];
	static const char *const names[] = { "pub.out", "pub.sec" };
	struct stat st;
	size_t i;

	at_path(dir, sizeof dir, root, "pub");
	for (i = 0; i < 2; i++) {
		at_path(other, sizeof other, root, names[i]);
		if (lstat(other, &st) == 0 && S_ISDIR(st.st_mode))
			exchange(dir, other);
	}
}

static const char *
race_run(const struct tool_def *t, const struct tool_env *env, const char *json,
    struct tool_out *out)
{
	cJSON *input = cJSON_Parse(json);

	tool_out_release(out);
	tool_out_init(out);
	t->run(env, input, out);
	cJSON_Delete(input);
	return buf_cstr(&out->text);
}

static bool
leaked(const char *text)
{
	return strstr(text, "OUTSIDE-MARKER") != NULL || strstr(text, "SECRET-MARKER") != NULL ||
	    strstr(text, "outside-only") != NULL || strstr(text, "secret-only") != NULL;
}

static char *
slurp(const char *base, const char *rel)
{
	char p[PATH_MAX + 64], *s = NULL;
	size_t n = 0;
	FILE *f;

	at_path(p, sizeof p, base, rel);
	f = fopen(p, "r");
	if (f == NULL)
		return NULL;
	s = calloc(1, 4096);
	n = fread(s, 1, 4095, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* How many entries a directory has. */
static int
entries(const char *base, const char *rel)
{
	char cmd[PATH_MAX * 2];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof cmd, "ls -A '%s/%s' | wc -l", base, rel);
	f = popen(cmd, "r");
	if (f != NULL) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

static void
race(bool openat2, int rounds)
{
	struct tool_env env = { .root = root, .policy = &policy };
	struct tool_out out;
	struct timespec t0, t1;
	long ok[5] = { 0 }, leaks = 0, refused_out = 0, refused_deny = 0;
	int i, out_before, sec_before;
	pid_t pid;
	char *s;

	sandbox_use_openat2(openat2);
	tool_out_init(&out);
	puts_file("pub/f.txt", "public file\n");
	puts_file("pub/e.txt", "a\n");
	puts_file("secret/f.txt", "SECRET-MARKER\n");
	puts_file("secret/w.txt", "SECRET-W\n");
	puts_file("secret/e.txt", "a\n");
	puts_file("secret/secret-only.txt", "x\n");
	put_at(outside, "f.txt", "OUTSIDE-MARKER\n");
	put_at(outside, "w.txt", "OUTSIDE-W\n");
	put_at(outside, "e.txt", "a\n");
	put_at(outside, "outside-only.txt", "x\n");
	out_before = entries(outside, "");
	sec_before = entries(root, "secret");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = swapper_start();
	/*
	 * At least rounds rounds, and on until every tool has worked and both
	 * kinds of refusal were seen (a loaded machine may leave the swapper
	 * asleep in one state for a while), but not forever.
	 */
	for (i = 0; i < rounds * 20 && (i < rounds || ok[0] == 0 || ok[1] == 0 ||
	    ok[2] == 0 || ok[3] == 0 || refused_out == 0 || refused_deny == 0); i++) {
		char json[256];

		s = (char *)race_run(&tool_read_file, &env, "{\"path\":\"pub/f.txt\"}", &out);
		leaks += leaked(s);
		ok[0] += !out.is_error;
		refused_out += out.is_error && strstr(s, "outside the workspace") != NULL;
		refused_deny += out.is_error && strstr(s, "deny rule") != NULL;
		snprintf(json, sizeof json, "{\"path\":\"pub/w.txt\",\"content\":\"round %d\\n\"}", i);
		race_run(&tool_write_file, &env, json, &out);
		ok[1] += !out.is_error;
		race_run(&tool_edit_file, &env, i % 2 ?
		    "{\"path\":\"pub/e.txt\",\"old_string\":\"b\",\"new_string\":\"a\"}" :
		    "{\"path\":\"pub/e.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}", &out);
		ok[2] += !out.is_error;
		s = (char *)race_run(&tool_list_dir, &env, "{\"path\":\"pub\"}", &out);
		leaks += leaked(s);
		ok[3] += !out.is_error;
		s = (char *)race_run(&tool_grep, &env, i % 2 ?
		    "{\"pattern\":\"MARKER|file\",\"path\":\"pub\",\"output_mode\":\"content\"}" :
		    "{\"pattern\":\"MARKER|file\",\"path\":\".\",\"output_mode\":\"content\"}", &out);
		leaks += leaked(s);
		ok[4] += !out.is_error;
		if (leaked(s))
			printf("# leaked: %s\n", s);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	swapper_undo();
	printf("# %s, %d rounds in %.2f s: read_file %ld ok, write_file %ld, edit_file %ld, "
	    "list_dir %ld, grep %ld; read_file refused %ld times outside, %ld times denied; "
	    "%ld leaks\n", openat2 ? "openat2" : "O_NOFOLLOW walk",
	    i, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	    ok[0], ok[1], ok[2], ok[3], ok[4], refused_out, refused_deny, leaks);
	T_EQ_INT(leaks, 0);
	/* the swaps were seen: both kinds of refusal happened */
	T_OK(refused_out > 0 && refused_deny > 0);
	/* the tools did run, most of the time: the test is not vacuous */
	T_OK(ok[0] > 0 && ok[1] > 0 && ok[3] > 0);
	/* nothing outside or denied was written, and nothing new appeared there */
	s = slurp(outside, "w.txt");
	T_EQ_STR(s, "OUTSIDE-W\n");
	free(s);
	s = slurp(outside, "e.txt");
	T_EQ_STR(s, "a\n");
	free(s);
	s = slurp(root, "secret/w.txt");
	T_EQ_STR(s, "SECRET-W\n");
	free(s);
	s = slurp(root, "secret/e.txt");
	T_EQ_STR(s, "a\n");
	free(s);
	T_EQ_INT(entries(outside, ""), out_before);
	T_EQ_INT(entries(root, "secret"), sec_before);
	s = slurp(root, "pub/w.txt");
	T_OK(s != NULL && strncmp(s, "round ", 6) == 0);
	free(s);
	tool_out_release(&out);
	sandbox_use_openat2(true);
}

T_TEST(race_openat2)
{
	race(true, 1500);
}

T_TEST(race_nofollow_walk)
{
	race(false, 1500);
}

/*
 * Links, modes, removal of emptied directories and writes through the
 * walk (fsutil_*_in): in the workspace and in an extra root, never through
 * a link that leads out, and a link itself is never followed.
 */
T_TEST(link_mode_and_write_in_roots)
{
	const char *extras[] = { extra, NULL };
	struct sandbox sb = { root, extras, NULL };
	struct buf err = BUF_INIT(4096);
	char p[PATH_MAX + 64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	/* A link in the extra root, by its absolute path; replaced in place. */
	at_path(p, sizeof p, extra, "ln");
	T_EQ_INT(fsutil_symlink_in(&sb, p, "e.txt", &err), 0);
	T_EQ_INT(fsutil_symlink_in(&sb, p, "other", &err), 0);
	n = readlink(p, target, sizeof target - 1);
	T_OK(n == 5 && memcmp(target, "other", 5) == 0);
	/* A regular file is not replaced by a link. */
	at_path(p, sizeof p, extra, "e.txt");
	T_EQ_INT(fsutil_symlink_in(&sb, p, "x", &err), -1);
	T_CONTAINS(buf_cstr(&err), "exists and is not a symbolic link");
	/* Not through a link that leads outside: nothing appears there. */
	buf_reset(&err);
	T_EQ_INT(fsutil_symlink_in(&sb, "escape/made-here", "x", &err), -1);
	at_path(p, sizeof p, outside, "made-here");
	T_OK(lstat(p, &st) == -1);
	/* Without the extra root, its paths are refused. */
	{
		struct sandbox only = { root, NULL, NULL };

		at_path(p, sizeof p, extra, "ln2");
		buf_reset(&err);
		T_EQ_INT(fsutil_symlink_in(&only, p, "e.txt", &err), -1);
		T_OK(lstat(p, &st) == -1);
	}
	/* Removing a link removes the link, not what it points to. */
	at_path(p, sizeof p, root, "src/to-a");
	T_EQ_INT(fsutil_symlink_in(&sb, "src/to-a", "a.c", &err), 0);
	T_EQ_INT(fsutil_unlink_link_in(&sb, "src/to-a", &err), 0);
	T_OK(lstat(p, &st) == -1);
	at_path(p, sizeof p, root, "src/a.c");
	T_EQ_INT(lstat(p, &st), 0);
	buf_reset(&err);
	T_EQ_INT(fsutil_unlink_link_in(&sb, "src/a.c", &err), -1);
	T_CONTAINS(buf_cstr(&err), "is not a symbolic link");
	/* A mode, set through a descriptor; not on what a link outside reaches. */
	at_path(p, sizeof p, extra, "e.txt");
	T_EQ_INT(fsutil_chmod_in(&sb, p, 0751, &err), 0);
	T_EQ_INT(stat(p, &st), 0);
	T_EQ_INT(st.st_mode & 0777, 0751);
	buf_reset(&err);
	T_EQ_INT(fsutil_chmod_in(&sb, "file-out", 0777, &err), -1);
	at_path(p, sizeof p, outside, "f.txt");
	T_EQ_INT(stat(p, &st), 0);
	T_OK((st.st_mode & 0777) != 0777);
	/* A write in the extra root creates its directories; removal empties them back to the root. */
	at_path(p, sizeof p, extra, "d1/d2/new.txt");
	T_EQ_INT(fsutil_write_in(&sb, p, "new\n", 4, "", &err), 0);
	T_EQ_INT(stat(p, &st), 0);
	buf_reset(&err);
	T_EQ_INT(fsutil_write_in(&sb, p, "again\n", 6, "", &err), -1);	/* it exists now */
	T_EQ_INT(fsutil_remove_in(&sb, p, NULL, &err), 0);
	T_EQ_INT(fsutil_rmdir_empty_in(&sb, p), 2);
	at_path(p, sizeof p, extra, "d1");
	T_OK(lstat(p, &st) == -1);
	T_EQ_INT(lstat(extra, &st), 0);
	/* The root itself is never removed, even empty below. */
	at_path(p, sizeof p, root, "lone/x");
	T_EQ_INT(fsutil_write_in(&sb, "lone/x", "x", 1, NULL, &err), 0);
	T_EQ_INT(fsutil_remove_in(&sb, "lone/x", NULL, &err), 0);
	T_EQ_INT(fsutil_rmdir_empty_in(&sb, p), 1);
	T_EQ_INT(lstat(root, &st), 0);
	buf_release(&err);
}

int
main(void)
{
	setup();
	T_RUN(inside_paths);
	T_RUN(new_files);
	T_RUN(outside_paths);
	T_RUN(prefix_is_not_inside);
	T_RUN(walk_with_openat2);
	T_RUN(walk_with_nofollow_fallback);
	T_RUN(walk_cost);
	T_RUN(link_mode_and_write_in_roots);
	T_RUN(race_openat2);
	T_RUN(race_nofollow_walk);
	t_tree_remove(root);
	t_tree_remove(outside);
	t_tree_remove(extra);
	return t_done();
}
