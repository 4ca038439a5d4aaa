/* Tests for agent/memory.c: which files load, in what order, imports and their limits. */
#include "autoconf.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "context/memory.h"
#include "t.h"
#include "t_tree.h"
#include "utf8.h"
#include "xalloc.h"

static struct config cfg;


static void
rm(const char *rel)
{
	char *path = t_tree_at("/%s", rel);

	unlink(path);
	free(path);
}

/* A fresh world: empty project and config dir. */
static void
reset_world(void)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&cmd, "rm -rf '%s/home' '%s/outside'", root, root);
	if (system(buf_cstr(&cmd)) != 0)
		exit(2);
	buf_release(&cmd);
	puts_file("home/proj/.keep", "");
	puts_file("home/.config/tandem/.keep", "");
	cfg.trusted = false;
}

struct loaded {
	int		 n;
	struct buf	 prompt, report;
};

static void
load(struct loaded *l)
{
	buf_init(&l->prompt, BUF_NOLIMIT);
	buf_init(&l->report, BUF_NOLIMIT);
	l->n = memory_load(&cfg, &l->prompt, &l->report);
}

static void
loaded_release(struct loaded *l)
{
	buf_release(&l->prompt);
	buf_release(&l->report);
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return n;
}

T_TEST(no_files)
{
	struct loaded l;

	reset_world();
	load(&l);
	T_EQ_INT(l.n, 0);
	T_EQ_INT(l.prompt.len, 0);
	T_CONTAINS(buf_cstr(&l.report), "No memory files");
	loaded_release(&l);
}

T_TEST(order_and_report)
{
	struct loaded l;
	const char *u, *a, *c, *t;

	reset_world();
	puts_file("home/.config/tandem/TANDEM.md", "USER RULES\n");
	puts_file("home/proj/AGENTS.md", "AGENTS RULES\n");
	puts_file("home/proj/CLAUDE.md", "CLAUDE RULES");
	puts_file("home/proj/TANDEM.md", "TANDEM RULES\n");
	load(&l);
	T_EQ_INT(l.n, 4);
	u = strstr(buf_cstr(&l.prompt), "USER RULES");
	a = strstr(buf_cstr(&l.prompt), "AGENTS RULES");
	c = strstr(buf_cstr(&l.prompt), "CLAUDE RULES\n");
	t = strstr(buf_cstr(&l.prompt), "TANDEM RULES");
	T_OK(u != NULL && a != NULL && c != NULL && t != NULL);
	/* The user's first, then the project's: the more specific words come last. */
	T_OK(u < a && a < c && c < t);
	T_CONTAINS(buf_cstr(&l.prompt), "# Memory files");
	T_CONTAINS(buf_cstr(&l.prompt), "## AGENTS.md\n");
	T_CONTAINS(buf_cstr(&l.prompt), "## ~/.config/tandem/TANDEM.md\n");
	T_CONTAINS(buf_cstr(&l.report), "Memory files (4,");
	T_CONTAINS(buf_cstr(&l.report), "AGENTS.md");
	T_CONTAINS(buf_cstr(&l.report), "13 bytes");
	T_OK(strstr(buf_cstr(&l.report), "Left out") == NULL);
	loaded_release(&l);
}

T_TEST(imports)
{
	struct loaded l;

	reset_world();
	puts_file("home/proj/AGENTS.md",
	    "Read @docs/style.md, and @docs/missing.md.\n"
	    "Ask @alice; mail me@example.com.\n"
	    "```\n@docs/fenced.md\n```\n"
	    "Not `@docs/span.md` either.\n"
	    "@docs/style.md again\n");
	puts_file("home/proj/docs/style.md", "STYLE: tabs\nsee (@../AGENTS.md) and @./sub/deep.md\n");
	puts_file("home/proj/docs/sub/deep.md", "DEEP\n");
	puts_file("home/proj/docs/fenced.md", "FENCED\n");
	puts_file("home/proj/docs/span.md", "SPAN\n");
	load(&l);
	T_EQ_INT(l.n, 3);
	T_CONTAINS(buf_cstr(&l.prompt), "## docs/style.md (imported by AGENTS.md)\n\nSTYLE: tabs");
	T_CONTAINS(buf_cstr(&l.prompt), "## docs/sub/deep.md (imported by docs/style.md)\n\nDEEP");
	/* No file twice, not even the one that started it. */
	T_EQ_INT(count(buf_cstr(&l.prompt), "STYLE: tabs"), 1);
	T_EQ_INT(count(buf_cstr(&l.prompt), "## AGENTS.md"), 1);
	T_OK(strstr(buf_cstr(&l.prompt), "FENCED") == NULL);
	T_OK(strstr(buf_cstr(&l.prompt), "SPAN") == NULL);
	T_CONTAINS(buf_cstr(&l.report), "imported from AGENTS.md");
	T_CONTAINS(buf_cstr(&l.report), "AGENTS.md: @docs/missing.md: no such file");
	T_OK(strstr(buf_cstr(&l.report), "alice") == NULL);
	T_OK(strstr(buf_cstr(&l.report), "example.com") == NULL);
	loaded_release(&l);
}

T_TEST(depth_limit)
{
	struct loaded l;
	char name[64], text[128];
	int i;

	reset_world();
	puts_file("home/proj/AGENTS.md", "@d1.md\n");
	for (i = 1; i <= 7; i++) {
		snprintf(name, sizeof name, "home/proj/d%d.md", i);
		snprintf(text, sizeof text, "LEVEL%d @d%d.md\n", i, i + 1);
		puts_file(name, text);
	}
	load(&l);
	/* AGENTS.md and five levels of imports. */
	T_EQ_INT(l.n, 6);
	T_CONTAINS(buf_cstr(&l.prompt), "LEVEL5");
	T_OK(strstr(buf_cstr(&l.prompt), "LEVEL6") == NULL);
	T_CONTAINS(buf_cstr(&l.report), "d5.md: @d6.md: imports nest deeper than 5");
	loaded_release(&l);
}

T_TEST(where_imports_may_come_from)
{
	struct loaded l;

	reset_world();
	puts_file("outside/secret.md", "OUTSIDE\n");
	puts_file("home/notes.md", "HOME NOTES\n");
	puts_file("home/.ssh/id_rsa.md", "PRIVATE KEY\n");
	puts_file("home/.config/tandem/shared.md", "SHARED\n");
	puts_file("home/.config/tandem/settings.json", "{\"TOKEN\": 1}\n");
	puts_file("home/proj/AGENTS.md", "@../../outside/secret.md @~/notes.md @~/.ssh/id_rsa.md "
	    "@~/.config/tandem/shared.md @~/.config/tandem/settings.json\n");
	load(&l);
	/* Nor, from the config directory, what is not Markdown (settings.json holds keys). */
	T_OK(strstr(buf_cstr(&l.prompt), "TOKEN") == NULL);
	T_CONTAINS(buf_cstr(&l.report), "settings.json: refused: not a Markdown file");
	T_OK(strstr(buf_cstr(&l.prompt), "OUTSIDE") == NULL);
	T_CONTAINS(buf_cstr(&l.report), "@../../outside/secret.md: refused: outside the project");
	T_CONTAINS(buf_cstr(&l.prompt), "HOME NOTES");
	T_CONTAINS(buf_cstr(&l.prompt), "SHARED");
	/* An untrusted project does not reach hidden files in $HOME. */
	T_OK(strstr(buf_cstr(&l.prompt), "PRIVATE KEY") == NULL);
	T_CONTAINS(buf_cstr(&l.report), "@~/.ssh/id_rsa.md: refused: a hidden path in $HOME");
	loaded_release(&l);
	cfg.trusted = true;
	load(&l);
	T_CONTAINS(buf_cstr(&l.prompt), "PRIVATE KEY");
	loaded_release(&l);
	/* The user's own files may import what they like from $HOME. */
	cfg.trusted = false;
	rm("home/proj/AGENTS.md");
	puts_file("home/.config/tandem/AGENTS.md", "@~/.ssh/id_rsa.md\n");
	load(&l);
	T_CONTAINS(buf_cstr(&l.prompt), "PRIVATE KEY");
	loaded_release(&l);
}

T_TEST(links)
{
	struct loaded l;
	char *target, *link;

	reset_world();
	puts_file("home/proj/AGENTS.md", "ONCE\n");
	target = t_tree_at("/home/proj/AGENTS.md");
	link = t_tree_at("/home/proj/CLAUDE.md");
	T_EQ_INT(symlink(target, link), 0);
	load(&l);
	T_EQ_INT(l.n, 1);
	T_EQ_INT(count(buf_cstr(&l.prompt), "ONCE"), 1);
	loaded_release(&l);
	free(target);
	free(link);
	/* A project file that leads outside is refused. */
	reset_world();
	puts_file("outside/x.md", "LINKED OUT\n");
	target = t_tree_at("/outside/x.md");
	link = t_tree_at("/home/proj/AGENTS.md");
	T_EQ_INT(symlink(target, link), 0);
	load(&l);
	T_EQ_INT(l.n, 0);
	T_OK(strstr(buf_cstr(&l.prompt), "LINKED OUT") == NULL);
	T_CONTAINS(buf_cstr(&l.report), "refused: it leads to");
	loaded_release(&l);
	free(target);
	free(link);
}

T_TEST(caps)
{
	struct loaded l;
	struct buf big = BUF_INIT(BUF_NOLIMIT);
	char name[64];
	int i;

	reset_world();
	/* 100,000 bytes of two-byte characters after one odd byte: the cut falls inside one. */
	buf_putc(&big, 'x');
	while (big.len < 100001)
		buf_puts(&big, "\xc3\xa9");
	put("home/proj/AGENTS.md", big.data, big.len);
	load(&l);
	T_EQ_INT(l.n, 1);
	T_OK(l.prompt.len < MEMORY_FILE_MAX + 1024);
	T_OK(utf8_valid(l.prompt.data, l.prompt.len));
	T_CONTAINS(buf_cstr(&l.prompt), "[cut here: the file has 100001 bytes");
	T_CONTAINS(buf_cstr(&l.report), "(cut from 100001 bytes)");
	loaded_release(&l);

	/* The whole stays under its cap; what does not fit is named. */
	reset_world();
	buf_reset(&big);
	while (big.len < 60000)
		buf_puts(&big, "0123456789");
	puts_file("home/proj/AGENTS.md", "@p1.md @p2.md @p3.md @p4.md @p5.md @p6.md\n");
	for (i = 1; i <= 6; i++) {
		snprintf(name, sizeof name, "home/proj/p%d.md", i);
		put(name, big.data, big.len);
	}
	load(&l);
	T_OK(l.prompt.len < MEMORY_TOTAL_MAX + 4096);
	T_CONTAINS(buf_cstr(&l.report), "p6.md: left out: the memory files already hold");
	loaded_release(&l);

	/* Not text. */
	reset_world();
	put("home/proj/AGENTS.md", "a\0b", 3);
	load(&l);
	T_EQ_INT(l.n, 0);
	T_CONTAINS(buf_cstr(&l.report), "AGENTS.md: cannot read: it is not text");
	loaded_release(&l);
	/* A directory where a file should be. */
	reset_world();
	puts_file("home/proj/TANDEM.md/x", "");
	load(&l);
	T_EQ_INT(l.n, 0);
	T_CONTAINS(buf_cstr(&l.report), "not a regular file");
	loaded_release(&l);
	buf_release(&big);
}

int
main(void)
{
	char *real;

	t_tree_init("tandem-memory");
	config_init(&cfg);
	free(cfg.root);
	free(cfg.config_dir);
	cfg.root = t_tree_at("/home/proj");
	cfg.config_dir = t_tree_at("/home/.config/tandem");
	real = t_tree_at("/home");
	setenv("HOME", real, 1);
	free(real);

	T_RUN(no_files);
	T_RUN(order_and_report);
	T_RUN(imports);
	T_RUN(depth_limit);
	T_RUN(where_imports_may_come_from);
	T_RUN(links);
	T_RUN(caps);

	config_release(&cfg);
	t_tree_remove(root);
	return t_done();
}
