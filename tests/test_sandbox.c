/* Unit tests of tools/sandbox: paths outside the workspace are refused. */
#include "autoconf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "sandbox.h"
#include "t.h"

static char root[PATH_MAX], outside[PATH_MAX];

static void
setup(void)
{
	char tmpl[] = "/tmp/tandem-sbx-XXXXXX", tmpl2[] = "/tmp/tandem-out-XXXXXX";
	char *r = mkdtemp(tmpl), *o = mkdtemp(tmpl2), *real;
	char p[PATH_MAX + 64];

	real = realpath(r, NULL);
	snprintf(root, sizeof root, "%s", real);
	free(real);
	real = realpath(o, NULL);
	snprintf(outside, sizeof outside, "%s", real);
	free(real);
	snprintf(p, sizeof p, "%s/src", root);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/src/a.c", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof p, "%s/escape", root);
	(void)!symlink(outside, p);
	snprintf(p, sizeof p, "%s/inner", root);
	(void)!symlink("src", p);
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

int
main(void)
{
	setup();
	T_RUN(inside_paths);
	T_RUN(new_files);
	T_RUN(outside_paths);
	T_RUN(prefix_is_not_inside);
	{
		char cmd[PATH_MAX * 2 + 32];

		snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
		(void)!system(cmd);
	}
	return t_done();
}
