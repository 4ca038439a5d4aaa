/* Tests for agent/commands.c: finding, describing and expanding custom slash commands. */
#include "autoconf.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "commands.h"
#include "config/config.h"
#include "t.h"
#include "t_tree.h"
#include "xalloc.h"

static struct config cfg;


/* Expand line: the return value, and the prompt or error in out. */
static int
expand(const char *line, struct buf *out)
{
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	int r;

	buf_init(out, BUF_NOLIMIT);
	r = commands_expand(&cfg, line, out, &err);
	if (r == -1) {
		buf_reset(out);
		buf_puts(out, buf_cstr(&err));
	}
	buf_release(&err);
	return r;
}

T_TEST(arguments)
{
	struct buf out;

	puts_file("proj/.tandem/commands/review.md", "---\ndescription: Review a file\n---\n"
	    "Review $ARGUMENTS carefully.\nFirst: $1, second: $2, tenth: $10, none: $9.\n");
	T_EQ_INT(expand("/review src/a.c \"two words\" z", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Review src/a.c \"two words\" z carefully.\n"
	    "First: src/a.c, second: two words, tenth: src/a.c0, none: .");
	buf_release(&out);
	/* No arguments. */
	T_EQ_INT(expand("/review", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Review  carefully.\nFirst: , second: , tenth: 0, none: .");
	buf_release(&out);
	/* Leading and trailing blanks of the arguments go. */
	T_EQ_INT(expand("/review \t x  \n", &out), 0);
	T_CONTAINS(buf_cstr(&out), "Review x carefully.");
	buf_release(&out);
}

T_TEST(no_placeholder_appends)
{
	struct buf out;

	puts_file("proj/.tandem/commands/fix.md", "Fix the failing tests.\n\n");
	T_EQ_INT(expand("/fix only the parser", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Fix the failing tests.\n\nARGUMENTS: only the parser");
	buf_release(&out);
	T_EQ_INT(expand("/fix", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Fix the failing tests.");
	buf_release(&out);
}

T_TEST(project_wins)
{
	struct buf out;

	puts_file("proj/.tandem/commands/both.md", "PROJECT $ARGUMENTS");
	puts_file("cfg/commands/both.md", "USER $ARGUMENTS");
	puts_file("cfg/commands/mine.md", "MINE $ARGUMENTS");
	T_EQ_INT(expand("/both x", &out), 0);
	T_EQ_STR(buf_cstr(&out), "PROJECT x");
	buf_release(&out);
	T_EQ_INT(expand("/mine y", &out), 0);
	T_EQ_STR(buf_cstr(&out), "MINE y");
	buf_release(&out);
}

T_TEST(not_custom)
{
	struct buf out;

	T_EQ_INT(expand("/nosuch x", &out), 1);
	T_EQ_INT(out.len, 0);
	buf_release(&out);
	T_EQ_INT(expand("review", &out), 1);
	buf_release(&out);
	T_EQ_INT(expand("/", &out), 1);
	buf_release(&out);
	/* Names that could leave the directory are not names. */
	puts_file("proj/.tandem/secret.md", "SECRET");
	T_EQ_INT(expand("/../secret", &out), 1);
	buf_release(&out);
	T_EQ_INT(expand("/.hidden", &out), 1);
	buf_release(&out);
	T_EQ_INT(expand("/a/b", &out), 1);
	buf_release(&out);
	T_EQ_INT(commands_expand(&cfg, NULL, &out, &out), 1);
}

T_TEST(errors)
{
	struct buf out, big = BUF_INIT(BUF_NOLIMIT);
	char *dir;

	while (big.len <= COMMANDS_FILE_MAX)
		buf_puts(&big, "0123456789abcdef");
	puts_file("proj/.tandem/commands/huge.md", buf_cstr(&big));
	T_EQ_INT(expand("/huge", &out), -1);
	T_CONTAINS(buf_cstr(&out), "larger than 64 KB");
	buf_release(&out);
	dir = t_tree_at("/proj/.tandem/commands/dir.md");
	t_tree_mkdirs(dir, 0700);
	T_EQ_INT(expand("/dir", &out), -1);
	T_CONTAINS(buf_cstr(&out), "is not a regular file");
	buf_release(&out);
	free(dir);
	buf_release(&big);
}

T_TEST(frontmatter)
{
	struct buf out;

	/* An unclosed header is text. */
	puts_file("proj/.tandem/commands/open.md", "---\ndescription: x\nbody\n");
	T_EQ_INT(expand("/open", &out), 0);
	T_EQ_STR(buf_cstr(&out), "---\ndescription: x\nbody");
	buf_release(&out);
	/* CRLF and quotes. */
	puts_file("proj/.tandem/commands/crlf.md", "---\r\ndescription: \"Quoted\"\r\nargument-hint: [file]\r\n---\r\nDo $1\r\n");
	T_EQ_INT(expand("/crlf a.c", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Do a.c");
	buf_release(&out);
}

T_TEST(listing)
{
	struct command_list l;
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	size_t i;
	bool saw_both = false, saw_mine = false, saw_first = false, saw_crlf = false;

	puts_file("proj/.tandem/commands/first-line.md", "\n\n# Explain the code   \n\nmore\n");
	puts_file("proj/.tandem/commands/notes.txt", "not a command");
	puts_file("proj/.tandem/commands/bad name.md", "x");
	commands_scan(&cfg, &l);
	for (i = 0; i < l.n; i++) {
		if (i > 0)
			T_OK(strcmp(l.v[i - 1].name, l.v[i].name) < 0);
		T_OK(strchr(l.v[i].name, ' ') == NULL);
		T_OK(strcmp(l.v[i].name, "notes") != 0);
		if (strcmp(l.v[i].name, "both") == 0) {
			saw_both = true;
			T_OK(l.v[i].project);
			T_EQ_STR(l.v[i].description, "PROJECT $ARGUMENTS");
		}
		if (strcmp(l.v[i].name, "mine") == 0) {
			saw_mine = true;
			T_OK(!l.v[i].project);
		}
		if (strcmp(l.v[i].name, "first-line") == 0) {
			saw_first = true;
			T_EQ_STR(l.v[i].description, "Explain the code");
		}
		if (strcmp(l.v[i].name, "crlf") == 0) {
			saw_crlf = true;
			T_EQ_STR(l.v[i].description, "Quoted");
			T_EQ_STR(l.v[i].argument_hint, "[file]");
		}
	}
	T_OK(saw_both && saw_mine && saw_first && saw_crlf);
	commands_list_release(&l);
	T_EQ_INT(l.n, 0);
	commands_list(&cfg, &out);
	T_CONTAINS(buf_cstr(&out), "/review");
	T_CONTAINS(buf_cstr(&out), "Review a file  (project)");
	T_CONTAINS(buf_cstr(&out), "/crlf [file]");
	T_CONTAINS(buf_cstr(&out), "MINE $ARGUMENTS  (user)");
	/* The user's /both is hidden by the project's. */
	T_OK(strstr(buf_cstr(&out), "USER $ARGUMENTS") == NULL);
	buf_release(&out);
}

int
main(void)
{
	t_tree_init("tandem-commands");
	config_init(&cfg);
	free(cfg.root);
	free(cfg.config_dir);
	cfg.root = t_tree_at("/proj");
	cfg.config_dir = t_tree_at("/cfg");

	T_RUN(arguments);
	T_RUN(no_placeholder_appends);
	T_RUN(project_wins);
	T_RUN(not_custom);
	T_RUN(errors);
	T_RUN(frontmatter);
	T_RUN(listing);

	config_release(&cfg);
	t_tree_remove(root);
	return t_done();
}
