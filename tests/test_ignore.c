/*
 * Tests for tools/gitconfig.c and the rules tools/ignore.c finds for a
 * workspace, on real repositories built with git; the files the walk
 * keeps are compared with `git ls-files --others --cached --exclude-standard`.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "filelist.h"
#include "gitconfig.h"
#include "gitindex.h"
#include "ignore.h"
#include "xalloc.h"
#include "t.h"
#include "t_tree.h"

static bool git_ok;

static int
sh(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT);
	va_list ap;
	int r;

	va_start(ap, fmt);
	buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	r = system(buf_cstr(&cmd));
	buf_release(&cmd);
	return r;
}

static char *
abs_of(const char *rel)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&b, "%s/%s", root, rel);
	return buf_detach(&b, NULL);
}

/* gitconfig */

static const struct {
	const char	*text;
	const char	*want;		/* NULL: absent */
} gc_cases[] = {
	{ "[core]\n\texcludesFile = ~/x\n", "~/x" },
	{ "[CORE]\n\tEXCLUDESFILE=a\n", "a" },
	{ "[core]\nexcludesfile = a\nexcludesfile = b\n", "b" },
	{ "[core] excludesFile = inline\n", "inline" },
	{ "[core]\n  excludesFile   =   two  words  \n", "two  words" },
	{ "[core]\nexcludesFile = \"  quoted # not a comment \"\n",
	  "  quoted # not a comment " },
	{ "[core]\nexcludesFile = a # comment\n", "a" },
	{ "[core]\nexcludesFile = a ; comment\n", "a" },
	{ "[core]\nexcludesFile = a\\\nb\n", "ab" },
	{ "[core]\nexcludesFile = a\\tb\\\\c\\\"d\n", "a\tb\\c\"d" },
	{ "[core]\r\nexcludesFile = crlf\r\n", "crlf" },
	{ "\xef\xbb\xbf[core]\nexcludesFile = bom\n", "bom" },
	{ "# comment\n; another\n[core]\n\n\texcludesFile = c\n", "c" },
	{ "[core]\nexcludesFile\n", NULL },			/* no value */
	{ "[core \"sub\"]\nexcludesFile = a\n", NULL },	/* another section */
	{ "[corex]\nexcludesFile = a\n", NULL },
	{ "[user]\nexcludesFile = a\n[core]\nother = b\n", NULL },
	{ "[core]\nexcludesFile = a\n[user]\nexcludesFile = b\n", "a" },
	{ "[core]\nexcludesFile = last", "last" },		/* no final newline */
	{ "[core]\nexcludesFile = a\\", "a" },		/* "\" then the end, as git */
	{ "", NULL },
};

T_TEST(gitconfig_values)
{
	struct buf err = BUF_INIT(4096);
	size_t i;
	char *v;
	int r;

	for (i = 0; i < sizeof gc_cases / sizeof gc_cases[0]; i++) {
		buf_reset(&err);
		r = gitconfig_get(gc_cases[i].text, strlen(gc_cases[i].text),
		    "core.excludesFile", &v, &err);
		if (r != (gc_cases[i].want != NULL) || (v == NULL) != (gc_cases[i].want == NULL) ||
		    (v != NULL && strcmp(v, gc_cases[i].want) != 0))
			T_FAIL("case %zu: r=%d value \"%s\" (%s), expected \"%s\"", i, r,
			    v ? v : "(none)", buf_cstr(&err),
			    gc_cases[i].want ? gc_cases[i].want : "(none)");
		free(v);
	}
	buf_release(&err);
}

T_TEST(gitconfig_subsections)
{
	static const char text[] =
	    "[remote \"Origin\"]\n\turl = one\n"
	    "[remote \"a\\\"b\"]\n\turl = two\n"
	    "[Remote.Old]\n\turl = three\n";
	struct buf err = BUF_INIT(4096);
	char *v;

	T_EQ_INT(gitconfig_get(text, strlen(text), "remote.Origin.url", &v, &err), 1);
	T_EQ_STR(v, "one");
	free(v);
	T_EQ_INT(gitconfig_get(text, strlen(text), "remote.origin.url", &v, &err), 0);
	T_EQ_INT(gitconfig_get(text, strlen(text), "remote.a\"b.URL", &v, &err), 1);
	T_EQ_STR(v, "two");
	free(v);
	/* The old syntax lowercases the subsection. */
	T_EQ_INT(gitconfig_get(text, strlen(text), "remote.old.url", &v, &err), 1);
	T_EQ_STR(v, "three");
	free(v);
	buf_release(&err);
}

T_TEST(gitconfig_errors)
{
	static const struct {
		const char	*text;
		const char	*line;
	} bad[] = {
		{ "[core\nx = 1\n", "line 1 " },
		{ "[core]\nexcludesFile = \"open\n", "line 2 " },
		{ "[core]\n\nexcludesFile = a\\qb\n", "line 3 " },
		{ "[core]\n=x\n", "line 2 " },
		{ "x = 1\n", "line 1 " },
		{ "[core]\nexcludes File = a\n", "line 2 " },
		{ "[co re]\n", "line 1 " },
		{ "[core \"sub]\n", "line 1 " },
	};
	struct buf err = BUF_INIT(4096);
	size_t i;
	char *v;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		buf_reset(&err);
		if (gitconfig_get(bad[i].text, strlen(bad[i].text), "core.excludesFile",
		    &v, &err) != -1 || v != NULL)
			T_FAIL("case %zu accepted", i);
		else
			T_CONTAINS(buf_cstr(&err), bad[i].line);
	}
	buf_release(&err);
}

/* Where git and the reader agree on real files. */
T_TEST(gitconfig_against_git)
{
	static const char *const texts[] = {
		"[core]\n\texcludesFile = \"a b\"  c\\td # x\n",
		"[Core]\nExcludesFile = one\n[core]\nexcludesfile = two\\\n  three\n",
		"[core] excludesFile = ~/x ; y\n",
	};
	struct buf err = BUF_INIT(4096), cmd = BUF_INIT(BUF_NOLIMIT);
	char *path = abs_of("gc/config"), line[512], *v;
	size_t i, n;
	FILE *f;

	if (!git_ok)
		return;
	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		puts_file("gc/config", texts[i]);
		buf_reset(&cmd);
		buf_printf(&cmd, "git config --file %s --get core.excludesFile", path);
		f = popen(buf_cstr(&cmd), "r");
		n = f != NULL ? fread(line, 1, sizeof line - 1, f) : 0;
		if (f != NULL)
			pclose(f);
		line[n] = '\0';
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		T_EQ_INT(gitconfig_get_file(path, "core.excludesFile", &v, &err), 1);
		T_EQ_STR(v, line);
		free(v);
	}
	free(path);
	path = abs_of("gc/none");
	T_EQ_INT(gitconfig_get_file(path, "core.excludesFile", &v, &err), 0);
	free(path);
	path = abs_of("gc/config");
	puts_file("gc/config", "[core\n");
	buf_reset(&err);
	T_EQ_INT(gitconfig_get_file(path, "core.excludesFile", &v, &err), -1);
	T_CONTAINS(buf_cstr(&err), "gc/config: line 1 is not valid git configuration");
	free(path);
	buf_release(&err);
	buf_release(&cmd);
}

T_TEST(gitconfig_paths)
{
	char *p;

	p = gitconfig_path("~/a/b", "/home/u");
	T_EQ_STR(p, "/home/u/a/b");
	free(p);
	p = gitconfig_path("~", "/home/u");
	T_EQ_STR(p, "/home/u");
	free(p);
	p = gitconfig_path("/abs/x", NULL);
	T_EQ_STR(p, "/abs/x");
	free(p);
	p = gitconfig_path("rel/x", "/home/u");
	T_EQ_STR(p, "rel/x");
	free(p);
	T_OK(gitconfig_path("~other/x", "/home/u") == NULL);
	T_OK(gitconfig_path("~/x", NULL) == NULL);
}

/* repositories */

/*
 * The monorepo: a root .gitignore, info/exclude, a package with its own
 * .gitignore, an excludes file through ~/.gitconfig, a linked worktree.
 */
static void
make_monorepo(void)
{
	puts_file("home/.gitconfig", "[user]\n\tname = T\n\temail = t@example.org\n"
	    "[core]\n\texcludesFile = ~/global-ignore\n");
	puts_file("home/global-ignore", "*.swp\n");
	puts_file("mono/.gitignore", "node_modules/\n/build/\n*.log\n!keep.log\n"
	    "dist\n**/gen/*.c\nodd?\n");
	puts_file("mono/README", "r\n");
	puts_file("mono/pkg/.gitignore", "\xef\xbb\xbf" "first-rule\n/local-only\n");
	puts_file("mono/pkg/src/a.c", "hello\n");
	puts_file("mono/pkg/src/gen/x.c", "hello\n");
	puts_file("mono/pkg/src/gen/x.h", "hello\n");
	puts_file("mono/pkg/node_modules/dep/index.js", "hello\n");
	puts_file("mono/pkg/build/out.o", "hello\n");
	puts_file("mono/pkg/build.txt", "hello\n");
	puts_file("mono/pkg/x.log", "hello\n");
	puts_file("mono/pkg/keep.log", "hello\n");
	puts_file("mono/pkg/dist", "hello\n");
	puts_file("mono/pkg/first-rule", "hello\n");
	puts_file("mono/pkg/local-only", "hello\n");
	puts_file("mono/pkg/sub/local-only", "hello\n");
	puts_file("mono/pkg/notes.swp", "hello\n");
	puts_file("mono/pkg/secret.txt", "hello\n");
	puts_file("mono/pkg/odd\xc3\xa9", "hello\n");
	puts_file("mono/pkg/oddx", "hello\n");
	puts_file("mono/build/root-out", "hello\n");
	if (sh("cd %s/mono && git init -q && git add README .gitignore pkg/src/a.c &&"
	    " git commit -qm init && printf 'secret.txt\\n' >> .git/info/exclude", root) != 0)
		T_FAIL("cannot build the repository");
}

struct collect {
	struct buf	 b;
};

static enum ignore_visit
collect_visit(void *arg, const struct ignore_entry *e)
{
	struct collect *c = arg;

	if (e->type != IGNORE_DIR) {
		buf_append(&c->b, e->path, e->pathlen);
		buf_putc(&c->b, '\n');
	}
	return IGNORE_CONTINUE;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of s, sorted bytewise, joined again. */
static char *
sorted_lines(char *s, char sep)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	char **v = NULL, *p, *e;
	size_t n = 0, i;

	for (p = s; *p != '\0'; p = e + 1) {
		e = strchr(p, sep);
		if (e == NULL)
			break;
		*e = '\0';
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = p;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_str);
	for (i = 0; i < n; i++) {
		buf_puts(&out, v[i]);
		buf_putc(&out, '\n');
	}
	free(v);
	return buf_detach(&out, NULL);
}

/* What the walk keeps of dir, sorted. */
static char *
walk_files(const char *dir)
{
	struct collect c = { BUF_INIT(BUF_NOLIMIT) };
	struct buf err = BUF_INIT(4096);
	struct ignore *ig = ignore_new(dir);
	char *s;

	if (ignore_walk(ig, dir, "", 0, collect_visit, &c, NULL, &err) == -1)
		T_FAIL("walk: %s", buf_cstr(&err));
	ignore_free(ig);
	buf_release(&err);
	s = sorted_lines(c.b.data ? c.b.data : "", '\n');
	buf_release(&c.b);
	return s;
}

/* What git lists in dir, sorted. */
static char *
git_files(const char *dir)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT), got = BUF_INIT(BUF_NOLIMIT);
	char chunk[4096], *s;
	size_t r;
	FILE *f;

	buf_printf(&cmd, "cd %s && git ls-files -z --others --cached --exclude-standard", dir);
	f = popen(buf_cstr(&cmd), "r");
	while (f != NULL && (r = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&got, chunk, r);
	if (f != NULL)
		pclose(f);
	s = sorted_lines(got.data ? got.data : "", '\0');
	buf_release(&cmd);
	buf_release(&got);
	return s;
}

static void
same_as_git(const char *rel)
{
	char *dir = abs_of(rel), *w = walk_files(dir), *g = git_files(dir);

	if (strcmp(w, g) != 0)
		T_FAIL("in %s the walk keeps\n%s\nand git lists\n%s", rel, w, g);
	T_OK(strlen(g) > 0);
	free(dir);
	free(w);
	free(g);
}

T_TEST(package_of_a_monorepo)
{
	char *dir, *top;
	struct ignore *ig;

	if (!git_ok)
		return;
	make_monorepo();
	dir = abs_of("mono/pkg");
	ig = ignore_new(dir);
	top = abs_of("mono");
	T_EQ_STR(ignore_top(ig), top);
	free(top);
	T_OK(ignore_excludes(ig) != NULL && strstr(ignore_excludes(ig), "home/global-ignore"));
	T_OK(ignore_match(ig, "node_modules", true));	/* the root's rule */
	T_OK(!ignore_match(ig, "build", true));		/* anchored at the top */
	T_OK(ignore_match(ig, "x.log", false));
	T_OK(!ignore_match(ig, "keep.log", false));
	T_OK(ignore_match(ig, "secret.txt", false));		/* info/exclude */
	T_OK(ignore_match(ig, "notes.swp", false));		/* the excludes file */
	T_OK(ignore_match(ig, "first-rule", false));		/* after a BOM */
	T_OK(ignore_match(ig, "local-only", false));
	T_OK(!ignore_match(ig, "sub/local-only", false));
	T_OK(ignore_match(ig, "src/gen/x.c", false));
	T_OK(!ignore_match(ig, "src/gen/x.h", false));
	T_OK(!ignore_match(ig, "odd\xc3\xa9", false));	/* "?" is one byte */
	T_OK(ignore_match(ig, "oddx", false));
	T_OK(ignore_note(ig) == NULL);
	ignore_free(ig);
	free(dir);
	same_as_git("mono/pkg");
	same_as_git("mono");
}

T_TEST(linked_worktree)
{
	char *dir, *top;
	struct ignore *ig;

	if (!git_ok)
		return;
	if (sh("cd %s/mono && git worktree add -q ../wt 2>/dev/null", root) != 0) {
		T_FAIL("git worktree add failed");
		return;
	}
	puts_file("wt/pkg/secret.txt", "s\n");
	puts_file("wt/pkg/node_modules/x.js", "s\n");
	puts_file("wt/pkg/b.log", "s\n");
	puts_file("wt/pkg/c.swp", "s\n");
	puts_file("wt/pkg/kept.c", "s\n");
	dir = abs_of("wt/pkg");
	ig = ignore_new(dir);
	top = abs_of("wt");
	T_EQ_STR(ignore_top(ig), top);
	free(top);
	T_OK(ignore_match(ig, "secret.txt", false));		/* the main info/exclude */
	T_OK(ignore_match(ig, "node_modules", true));
	T_OK(ignore_match(ig, "c.swp", false));
	T_OK(!ignore_match(ig, "kept.c", false));
	ignore_free(ig);
	free(dir);
	same_as_git("wt/pkg");
	same_as_git("wt");
}

T_TEST(excludes_file_lookup)
{
	char *dir = abs_of("mono/pkg"), *xdg = abs_of("xdg"), *home = abs_of("home");
	char *other = abs_of("other.gitconfig");
	struct ignore *ig;

	if (!git_ok)
		goto out;
	/* XDG's config is read before ~/.gitconfig, which wins. */
	puts_file("xdg/git/config", "[core]\n\texcludesFile = ~/xdg-named\n");
	setenv("XDG_CONFIG_HOME", xdg, 1);
	ig = ignore_new(dir);
	T_OK(strstr(ignore_excludes(ig), "home/global-ignore") != NULL);
	ignore_free(ig);
	/* Without ~/.gitconfig the XDG one counts. */
	sh("mv %s/.gitconfig %s/gitconfig.off", home, home);
	ig = ignore_new(dir);
	T_OK(strstr(ignore_excludes(ig), "home/xdg-named") != NULL);
	ignore_free(ig);
	/* Without either: $XDG_CONFIG_HOME/git/ignore. */
	sh("rm %s/git/config", xdg);
	puts_file("xdg/git/ignore", "*.xdg\n");
	puts_file("mono/pkg/y.xdg", "y\n");
	ig = ignore_new(dir);
	T_OK(strstr(ignore_excludes(ig), "xdg/git/ignore") != NULL);
	T_OK(ignore_match(ig, "y.xdg", false));
	ignore_free(ig);
	same_as_git("mono/pkg");
	/* And ~/.config/git/ignore when XDG_CONFIG_HOME is unset. */
	unsetenv("XDG_CONFIG_HOME");
	puts_file("home/.config/git/ignore", "*.cfg\n");
	puts_file("mono/pkg/z.cfg", "z\n");
	ig = ignore_new(dir);
	T_OK(ignore_match(ig, "z.cfg", false));
	T_OK(!ignore_match(ig, "y.xdg", false));
	ignore_free(ig);
	same_as_git("mono/pkg");
	/* The repository's own config wins over the user's. */
	sh("cd %s/mono && git config core.excludesFile repo-ignore", root);
	puts_file("mono/repo-ignore", "*.repo\n");
	puts_file("mono/pkg/q.repo", "q\n");
	puts_file("mono/pkg/repo-ignore", "*.cfg\n");	/* not this one: it starts at the top */
	ig = ignore_new(dir);
	T_OK(strstr(ignore_excludes(ig), "mono/repo-ignore") != NULL);
	T_OK(ignore_match(ig, "q.repo", false));
	ignore_free(ig);
	same_as_git("mono/pkg");
	sh("cd %s/mono && git config --unset core.excludesFile", root);
	/* GIT_CONFIG_GLOBAL stands for both user files. */
	puts_file("other.gitconfig", "[core]\n\texcludesFile = ~/other-ignore\n");
	puts_file("home/other-ignore", "*.other\n");
	puts_file("mono/pkg/w.other", "w\n");
	setenv("GIT_CONFIG_GLOBAL", other, 1);
	ig = ignore_new(dir);
	T_OK(ignore_match(ig, "w.other", false));
	T_OK(!ignore_match(ig, "z.cfg", false));
	ignore_free(ig);
	same_as_git("mono/pkg");
	unsetenv("GIT_CONFIG_GLOBAL");
	/* A broken ~/.gitconfig is passed over with a note. */
	puts_file("home/.gitconfig", "[core]\n\texcludesFile = \"open\n");
	ig = ignore_new(dir);
	T_OK(ignore_note(ig) != NULL);
	T_CONTAINS(ignore_note(ig), ".gitconfig: line 2 is not valid git configuration");
	T_OK(ignore_match(ig, "z.cfg", false));
	ignore_free(ig);
	sh("mv %s/gitconfig.off %s/.gitconfig", home, home);
out:
	free(dir);
	free(xdg);
	free(home);
	free(other);
}

T_TEST(outside_a_repository)
{
	char *dir = abs_of("plain");
	struct ignore *ig;

	puts_file("plain/.gitignore", "*.o\n");
	puts_file("plain/sub/.gitignore", "x\n");
	ig = ignore_new(dir);
	T_EQ_STR(ignore_top(ig), dir);
	T_OK(ignore_match(ig, "a.o", false));
	T_OK(ignore_match(ig, "sub/x", false));
	T_OK(!ignore_match(ig, "x", false));
	T_OK(!ignore_match(ig, "", true));
	ignore_free(ig);
	free(dir);
}

T_TEST(gitdir_file_forms)
{
	char *dir = abs_of("gf/work");
	struct ignore *ig;

	/* A relative gitdir: line, as submodules write it. */
	puts_file("gf/real/info/exclude", "from-real\n");
	puts_file("gf/work/.git", "gitdir: ../real\n");
	ig = ignore_new(dir);
	T_OK(ignore_match(ig, "from-real", false));
	ignore_free(ig);
	/* A .git file that names nothing: its directory is the top, no info/exclude. */
	puts_file("gf/work/.git", "gitdir: ../missing\n");
	puts_file("gf/work/.gitignore", "local\n");
	ig = ignore_new(dir);
	T_EQ_STR(ignore_top(ig), dir);
	T_OK(!ignore_match(ig, "from-real", false));
	T_OK(ignore_match(ig, "local", false));
	ignore_free(ig);
	free(dir);
}

T_TEST(symlinked_gitignore_not_read)
{
	char *dir = abs_of("sl"), *link = abs_of("sl/.gitignore");
	struct ignore *ig;

	puts_file("sl/rules", "*.o\n");
	T_EQ_INT(symlink("rules", link), 0);
	ig = ignore_new(dir);
	T_OK(!ignore_match(ig, "a.o", false));
	ignore_free(ig);
	free(dir);
	free(link);
}

/*
 * Files git tracks under an ignore rule: b/.gitignore holding "*" with a
 * committed b/keep.c, a top "build/" rule with tracked and untracked files
 * below it (the untracked stay hidden, as git does not look there), a
 * deeper level, and index versions 2, 3 and 4.
 */
static void
make_tracked_ignored(const char *top)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	static const char *const files[] = {
		"README", ".gitignore", "b/.gitignore", "b/keep.c", "b/junk.c",
		"build/keep.txt", "build/junk.o", "build/sub/x.o", "build/t/y.c",
		"src/deep/er/.gitignore", "src/deep/er/gen.c", "src/deep/er/new.c",
		"src/deep/er/d2/f.c", "src/plain.c",
	};
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		buf_reset(&p);
		buf_printf(&p, "%s/%s", top, files[i]);
		puts_file(p.data + strlen(root) + 1, "hello\n");
	}
	buf_reset(&p);
	buf_printf(&p, "%s/.gitignore", top);
	puts_file(p.data + strlen(root) + 1, "build/\n*.o\n");
	buf_reset(&p);
	buf_printf(&p, "%s/b/.gitignore", top);
	puts_file(p.data + strlen(root) + 1, "*\n");
	buf_reset(&p);
	buf_printf(&p, "%s/src/deep/er/.gitignore", top);
	puts_file(p.data + strlen(root) + 1, "*.c\nd2/\n");
	if (sh("cd %s && git init -q && git add README .gitignore src/plain.c && "
	    "git add -f b/.gitignore b/keep.c build/keep.txt build/t/y.c build/junk.o "
	    "src/deep/er/.gitignore src/deep/er/gen.c src/deep/er/d2/f.c && "
	    "git commit -qm init && rm build/junk.o && touch build/junk.o", top) != 0)
		T_FAIL("cannot build the repository in %s", top);
	buf_release(&p);
}

/* The paths filelist_write (the @ index) gives for dir, sorted, files only. */
static char *
filelist_files(const char *dir)
{
	struct buf got = BUF_INIT(BUF_NOLIMIT), out = BUF_INIT(BUF_NOLIMIT);
	char tmpl[] = "/tmp/tandem-fl-XXXXXX", chunk[4096], *s, *p;
	int fd = mkstemp(tmpl);
	ssize_t r;

	if (fd == -1 || filelist_write(dir, fd, FILELIST_MAX) != 0)
		T_FAIL("filelist_write failed");
	lseek(fd, 0, SEEK_SET);
	while (fd != -1 && (r = read(fd, chunk, sizeof chunk)) > 0)
		buf_append(&got, chunk, (size_t)r);
	if (fd != -1)
		close(fd);
	unlink(tmpl);
	for (p = got.data; p != NULL && p < got.data + got.len; p += strlen(p) + 1)
		if (p[0] != '\0' && p[strlen(p) - 1] != '/') {
			buf_puts(&out, p);
			buf_putc(&out, '\0');
		}
	s = sorted_lines(out.data ? out.data : "", '\0');
	buf_release(&got);
	buf_release(&out);
	return s;
}

T_TEST(tracked_files_under_ignore_rules)
{
	char *dir, *g, *fl;
	struct ignore *ig;
	int v;

	if (!git_ok)
		return;
	dir = abs_of("tr");
	mkdir(dir, 0755);
	make_tracked_ignored(dir);
	for (v = 2; v <= 4; v++) {
		if (sh("cd %s && git update-index --index-version %d", dir, v) != 0)
			T_FAIL("git update-index --index-version %d", v);
		ig = ignore_new(dir);
		T_OK(!ignore_match(ig, "b/keep.c", false));
		T_OK(ignore_match(ig, "b/junk.c", false));
		T_OK(!ignore_match(ig, "build", true));
		T_OK(!ignore_match(ig, "build/keep.txt", false));
		T_OK(!ignore_match(ig, "build/junk.o", false));	/* tracked, under two rules */
		T_OK(ignore_match(ig, "build/sub", true));	/* below an ignored directory */
		T_OK(!ignore_match(ig, "build/t", true));
		T_OK(!ignore_match(ig, "build/t/y.c", false));
		T_OK(!ignore_match(ig, "src/deep/er/gen.c", false));
		T_OK(ignore_match(ig, "src/deep/er/new.c", false));
		T_OK(!ignore_match(ig, "src/deep/er/d2/f.c", false));
		T_OK(ignore_note(ig) == NULL);
		ignore_free(ig);
		same_as_git("tr");
		same_as_git("tr/src");
		same_as_git("tr/build");
		g = git_files(dir);
		fl = filelist_files(dir);
		if (strcmp(g, fl) != 0)
			T_FAIL("index version %d: the @ index has\n%s\nand git lists\n%s", v, fl, g);
		free(g);
		free(fl);
	}
	/* a split index: the shared part's paths count too */
	if (sh("cd %s && git update-index --index-version 2 && git update-index --split-index && "
	    "printf 'hello\\n' > b/split.c && git add -f b/split.c && "
	    "ls .git/sharedindex.* >/dev/null", dir) != 0)
		T_FAIL("git update-index --split-index");
	ig = ignore_new(dir);
	T_OK(!ignore_match(ig, "b/keep.c", false));	/* in the shared index */
	T_OK(!ignore_match(ig, "b/split.c", false));	/* in the split one */
	T_OK(ignore_match(ig, "b/junk.c", false));
	T_OK(ignore_note(ig) == NULL);
	ignore_free(ig);
	same_as_git("tr");
	/* a SHA-256 repository: longer ids, another checksum */
	if (sh("mkdir -p %s/s256/b && cd %s/s256 && git init -q --object-format=sha256 && "
	    "printf '*\\n' > b/.gitignore && printf 'hello\\n' > b/keep.c && "
	    "printf 'hello\\n' > b/junk.c && git add -f b/.gitignore b/keep.c", root, root) == 0) {
		char *s256 = abs_of("s256");

		ig = ignore_new(s256);
		T_OK(!ignore_match(ig, "b/keep.c", false));
		T_OK(ignore_match(ig, "b/junk.c", false));
		T_OK(ignore_note(ig) == NULL);
		ignore_free(ig);
		same_as_git("s256");
		free(s256);
	}
	/* a repository nested in another: its own index counts */
	puts_file("tr/inner/x", "x\n");
	free(dir);
	dir = abs_of("tr/inner");
	make_tracked_ignored(dir);
	same_as_git("tr/inner");
	same_as_git("tr/inner/b");
	free(dir);
}

/* A version 4 entry: mode 100644, no object id, the prefix cut, the suffix. */
static void
v4_entry(struct buf *b, unsigned cut, const char *suffix)
{
	unsigned char fixed[62];
	size_t n = strlen(suffix);

	memset(fixed, 0, sizeof fixed);
	fixed[26] = 0x81;
	fixed[27] = 0xa4;
	fixed[60] = (unsigned char)((n > 0xfff ? 0xfff : n) >> 8);
	fixed[61] = (unsigned char)(n > 0xfff ? 0xff : n & 0xff);
	buf_append(b, fixed, sizeof fixed);
	if (cut >= 128) {
		buf_putc(b, (int)(0x80 | (((cut >> 7) - 1) & 0x7f)));
		buf_putc(b, (int)(cut & 0x7f));
	} else
		buf_putc(b, (int)cut);
	buf_append(b, suffix, n + 1);
}

/* A version 4 index's header for count entries (v4_entry adds them). */
static void
v4_index(struct buf *b, unsigned count)
{
	unsigned char hdr[12] = { 'D', 'I', 'R', 'C', 0, 0, 0, 4 };

	hdr[8] = (unsigned char)(count >> 24);
	hdr[9] = (unsigned char)(count >> 16);
	hdr[10] = (unsigned char)(count >> 8);
	hdr[11] = (unsigned char)count;
	buf_append(b, hdr, sizeof hdr);
}

T_TEST(index_paths_and_bounds)
{
	static const unsigned char zeros[20];
	struct buf b = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096), longp = BUF_INIT(BUF_NOLIMIT);
	struct gitindex *gi;
	unsigned i;

	/* paths git refuses are left out; the others are kept, prefix-decoded */
	v4_index(&b, 6);
	v4_entry(&b, 0, ".git/config");
	v4_entry(&b, 11, "a/../x");
	v4_entry(&b, 6, "ok/x.c");
	v4_entry(&b, 1, "h");
	v4_entry(&b, 6, "sub/.GIT/hooks/pre-commit");
	v4_entry(&b, 25, "/abs");
	buf_append(&b, zeros, sizeof zeros);
	gi = gitindex_parse(b.data, b.len, 20, NULL, &err);
	T_OK(gi != NULL);
	if (gi != NULL) {
		T_EQ_INT(gitindex_count(gi), 2);
		T_OK(gitindex_has(gi, "ok/x.c", 6) && gitindex_has(gi, "ok/x.h", 6));
		T_OK(!gitindex_has(gi, ".git/config", 11));
		T_OK(gitindex_has_below(gi, "ok", 2) && !gitindex_has_below(gi, "sub", 3));
	}
	gitindex_free(gi);
	/* a long path repeated by prefixes: refused at four times the file's size */
	buf_reset(&b);
	buf_puts(&longp, "a/");
	for (i = 0; i < 4000; i++)
		buf_putc(&longp, 'x');
	v4_index(&b, 2000);
	v4_entry(&b, 0, buf_cstr(&longp));
	for (i = 1; i < 2000; i++)
		v4_entry(&b, 1, (i & 1) ? "y" : "z");
	buf_append(&b, zeros, sizeof zeros);
	buf_reset(&err);
	T_OK(gitindex_parse(b.data, b.len, 20, NULL, &err) == NULL);
	T_CONTAINS(buf_cstr(&err), "names come to more than");
	/* a cut longer than the previous path, a count the size cannot hold */
	buf_reset(&b);
	v4_index(&b, 1);
	v4_entry(&b, 3, "x");
	buf_append(&b, zeros, sizeof zeros);
	buf_reset(&err);
	T_OK(gitindex_parse(b.data, b.len, 20, NULL, &err) == NULL);
	T_CONTAINS(buf_cstr(&err), "out of bounds");
	buf_reset(&b);
	v4_index(&b, 1000);
	v4_entry(&b, 0, "x");
	buf_append(&b, zeros, sizeof zeros);
	buf_reset(&err);
	T_OK(gitindex_parse(b.data, b.len, 20, NULL, &err) == NULL);
	T_CONTAINS(buf_cstr(&err), "more than its size can hold");
	buf_release(&b);
	buf_release(&err);
	buf_release(&longp);
}

/* A hostile or damaged index is refused with a sentence, and the rules still apply. */
T_TEST(index_refused_when_damaged)
{
	static const unsigned char two[] = "DIRC\0\0\0\2\xff\xff\xff\xff";
	struct buf err = BUF_INIT(4096), idx = BUF_INIT(BUF_NOLIMIT);
	char *dir, *path, *gitdir, *shared = NULL;
	struct gitindex *gi;
	struct ignore *ig;
	FILE *f;
	int fd;

	T_OK(gitindex_parse(two, sizeof two - 1, 20, NULL, &err) == NULL);
	T_OK(err.len > 0);
	buf_reset(&err);
	T_OK(gitindex_parse("DIRC", 4, 20, &shared, &err) == NULL && shared == NULL);
	buf_reset(&err);
	if (!git_ok)
		goto out;
	dir = abs_of("dmg");
	mkdir(dir, 0755);
	make_tracked_ignored(dir);
	path = abs_of("dmg/.git/index");
	gitdir = abs_of("dmg/.git");
	gi = gitindex_read(gitdir, 20, &err);
	free(gitdir);
	T_OK(gi != NULL && gitindex_has(gi, "b/keep.c", 8) && !gitindex_has(gi, "b/keep", 6));
	T_OK(gi != NULL && gitindex_has_below(gi, "build", 5) && !gitindex_has_below(gi, "buil", 4));
	gitindex_free(gi);
	/* one flipped byte in a name: the checksum refuses it */
	if ((f = fopen(path, "r+b")) != NULL) {
		fseek(f, 100, SEEK_SET);
		fputc('#', f);
		fclose(f);
	}
	ig = ignore_new(dir);
	T_OK(ignore_match(ig, "b/keep.c", false));
	T_OK(ignore_note(ig) != NULL && strstr(ignore_note(ig), "checksum does not match"));
	ignore_free(ig);
	/* a FIFO in its place is not waited on */
	unlink(path);
	T_EQ_INT(mkfifo(path, 0600), 0);
	ig = ignore_new(dir);
	T_OK(ignore_match(ig, "b/keep.c", false));
	ignore_free(ig);
	unlink(path);
	/* a huge sparse file is not read */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_OK(fd != -1 && ftruncate(fd, (off_t)GITINDEX_MAX_BYTES + 1) == 0);
	if (fd != -1)
		close(fd);
	ig = ignore_new(dir);
	T_OK(ignore_note(ig) != NULL && strstr(ignore_note(ig), "larger than"));
	ignore_free(ig);
	free(path);
	free(dir);
out:
	buf_release(&idx);
	buf_release(&err);
}

int
main(void)
{
	char tmpl[] = "/tmp/tandem-ignore-XXXXXX", *r, *home;

	if (mkdtemp(tmpl) == NULL || (r = realpath(tmpl, NULL)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(root, sizeof root, "%s", r);
	free(r);
	home = abs_of("home");
	mkdir(home, 0755);
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_CONFIG_GLOBAL");
	git_ok = system("git --version >/dev/null 2>&1") == 0;
	if (!git_ok)
		printf("# git not found: the repository cases are skipped\n");
	T_RUN(gitconfig_values);
	T_RUN(gitconfig_subsections);
	T_RUN(gitconfig_errors);
	T_RUN(gitconfig_against_git);
	T_RUN(gitconfig_paths);
	T_RUN(package_of_a_monorepo);
	T_RUN(linked_worktree);
	T_RUN(excludes_file_lookup);
	T_RUN(outside_a_repository);
	T_RUN(gitdir_file_forms);
	T_RUN(symlinked_gitignore_not_read);
	T_RUN(tracked_files_under_ignore_rules);
	T_RUN(index_refused_when_damaged);
	T_RUN(index_paths_and_bounds);
	t_tree_remove(root);
	free(home);
	return t_done();
}
