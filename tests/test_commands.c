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
#include "claude/ccsettings.h"
#include "claude/grant.h"
#include "claude/notice.h"
#include "commands.h"
#include "fmatter.h"
#include "json.h"
#include "rules/perm.h"
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

/* The notices as text. */
static char *
notices_text(void)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	notice_format(cfg.notices, "", &b);
	return buf_detach(&b, NULL);
}

T_TEST(claude_commands)
{
	struct command_list l;
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	const struct command_info *spec = NULL, *both = NULL;
	char *text;
	size_t i;

	puts_file("proj/.claude/commands/kiro/spec.md", "---\ndescription: Write the spec\n"
	    "argument-hint: [feature]\nallowed-tools: Bash(git add:*), Read\nmodel: opus\n"
	    "colour: blue\n---\nSpec for $1.\n");
	puts_file("proj/.claude/commands/both.md", "CLAUDE BOTH\n");
	commands_scan(&cfg, &l);
	for (i = 0; i < l.n; i++) {
		if (strcmp(l.v[i].name, "spec") == 0)
			spec = &l.v[i];
		if (strcmp(l.v[i].name, "both") == 0)
			both = &l.v[i];
		T_OK(strchr(l.v[i].name, '/') == NULL);
	}
	T_OK(spec != NULL && both != NULL);
	if (spec != NULL) {
		T_EQ_STR(spec->folder, "kiro");
		T_EQ_STR(spec->argument_hint, "[feature]");
		T_EQ_STR(spec->allowed_tools, "Bash(git add:*), Read");
		T_OK(spec->project);
	}
	/* .tandem/commands comes before .claude/commands. */
	if (both != NULL)
		T_EQ_STR(both->description, "PROJECT $ARGUMENTS");
	commands_list_release(&l);
	commands_list(&cfg, &out);
	T_CONTAINS(buf_cstr(&out), "Write the spec  (project:kiro)");
	buf_release(&out);
	text = notices_text();
	T_CONTAINS(text, "spec.md: command field \"colour\" is not honoured");
	T_CONTAINS(text, "spec.md: command field \"model\" is not honoured (a Claude Code alias");
	free(text);
	T_EQ_INT(expand("/spec login", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Spec for login.");
	buf_release(&out);
}

T_TEST(skill_commands)
{
	struct command_list l;
	bool saw = false, hidden = false;
	struct buf out;
	size_t i;

	puts_file("proj/.claude/skills/tidy/SKILL.md", "---\nname: tidy\ndescription: Tidy up\n---\n"
	    "Tidy $ARGUMENTS now.\n");
	puts_file("proj/.claude/skills/quiet/SKILL.md", "---\ndescription: Not a command\n"
	    "user-invocable: false\n---\nNo.\n");
	commands_scan(&cfg, &l);
	for (i = 0; i < l.n; i++) {
		saw = saw || (strcmp(l.v[i].name, "tidy") == 0 && l.v[i].skill);
		hidden = hidden || strcmp(l.v[i].name, "quiet") == 0;
	}
	T_OK(saw);
	T_OK(!hidden);
	commands_list_release(&l);
	T_EQ_INT(expand("/tidy src", &out), 0);
	T_EQ_STR(buf_cstr(&out), "Tidy src now.");
	buf_release(&out);
}

T_TEST(front_matter)
{
	const char *body;
	cJSON *fm;

	fm = fmatter_parse("---\nname: \"x\"\nargument-hint: [file]\nallowed-tools:\n  - Read\n"
	    "  - Bash(ls:*)\nmetadata:\n  version: 1\n---\nBODY\n", &body);
	T_EQ_STR(json_str(fm, "name", "?"), "x");
	T_EQ_STR(json_str(fm, "argument-hint", "?"), "[file]");
	T_EQ_STR(json_str(fm, "allowed-tools", "?"), "Read, Bash(ls:*)");
	T_EQ_STR(json_str(fm, "metadata", "?"), "version: 1");
	T_EQ_STR(body, "BODY\n");
	cJSON_Delete(fm);
	/* Never closed: no header at all. */
	fm = fmatter_parse("---\nname: x\nno end\n", &body);
	T_OK(fm->child == NULL);
	T_EQ_STR(body, "---\nname: x\nno end\n");
	cJSON_Delete(fm);
}

T_TEST(grants)
{
	struct perm_rules *r = grant_rules("[Bash(git add:*), \"Read\"]", cfg.root, "x.md", cfg.notices);
	cJSON *add = cJSON_Parse("{\"command\":\"git add a.c\"}"), *push = cJSON_Parse("{\"command\":\"git push\"}");
	cJSON *rm = cJSON_Parse("{\"command\":\"git add a.c; rm -rf /\"}");
	struct buf err = BUF_INIT(1024);

	T_OK(r != NULL);
	T_EQ_INT((int)perm_rules_count(r, PERM_LIST_ALLOW), 2);
	grant_for_prompt(cfg.grants, "the prompt", r);
	T_OK(grant_allows(cfg.grants, &cfg, 1, "the prompt", "run_bash", TOOL_HIGH_IMPACT, add));
	T_OK(!grant_allows(cfg.grants, &cfg, 1, "the prompt", "run_bash", TOOL_HIGH_IMPACT, push));
	/* Part by part: the rule never covers a command joined to it. */
	T_OK(!grant_allows(cfg.grants, &cfg, 1, "the prompt", "run_bash", TOOL_HIGH_IMPACT, rm));
	T_OK(!grant_allows(cfg.grants, &cfg, 1, "another prompt", "run_bash", TOOL_HIGH_IMPACT, add));
	/* The settings' ask rules still ask. */
	perm_rules_add(cfg.rules, PERM_LIST_ASK, "Bash(git add secret*)", &err);
	cJSON_Delete(add);
	add = cJSON_Parse("{\"command\":\"git add secret.txt\"}");
	T_OK(!grant_allows(cfg.grants, &cfg, 1, "the prompt", "run_bash", TOOL_HIGH_IMPACT, add));
	/* A turn's grant (a skill's) holds for that turn only. */
	grant_for_turn(cfg.grants, 7, grant_rules("Bash(make:*)", cfg.root, "s.md", NULL));
	cJSON_Delete(push);
	push = cJSON_Parse("{\"command\":\"make check\"}");
	T_OK(grant_allows(cfg.grants, &cfg, 7, "x", "run_bash", TOOL_HIGH_IMPACT, push));
	T_OK(!grant_allows(cfg.grants, &cfg, 8, "x", "run_bash", TOOL_HIGH_IMPACT, push));
	cJSON_Delete(add);
	cJSON_Delete(push);
	cJSON_Delete(rm);
	buf_release(&err);
}

T_TEST(claude_settings)
{
	cJSON *cc = cJSON_Parse("{\"cleanupPeriodDays\": 9, \"outputStyle\": \"x\", \"model\": \"opus\","
	    "\"permissions\": {\"allow\": [\"Read\"], \"defaultMode\": \"plan\", \"bogus\": 1},"
	    "\"sandbox\": {\"enabled\": true, \"network\": {}}, \"alwaysThinkingEnabled\": false}");
	struct notices *n = notice_new();
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *t = ccsettings_translate(cc, "/x/settings.json", n);

	T_EQ_INT(json_get(t, "retention_days")->valueint, 9);
	T_EQ_STR(json_str(json_get(t, "permissions"), "mode", "?"), "plan");
	T_OK(cJSON_IsArray(json_get(json_get(t, "permissions"), "allow")));
	T_EQ_STR(json_str(json_get(t, "sandbox"), "mode", "?"), "workspace-write");
	T_EQ_STR(json_str(t, "thinking", "?"), "off");
	T_OK(json_get(t, "model") == NULL && json_get(t, "outputStyle") == NULL);
	notice_format(n, "", &b);
	T_CONTAINS(buf_cstr(&b), "settings key \"outputStyle\"");
	T_CONTAINS(buf_cstr(&b), "settings key \"model\"");
	T_CONTAINS(buf_cstr(&b), "settings key \"permissions.bogus\"");
	T_CONTAINS(buf_cstr(&b), "settings key \"sandbox.network\"");
	T_EQ_INT((int)notice_count(n), 4);
	/* Named once. */
	notice_add(n, "settings key", "outputStyle", "/x/settings.json", "again");
	T_EQ_INT((int)notice_count(n), 4);
	T_EQ_INT((int)notice_pending(n), 4);
	buf_reset(&b);
	notice_take_new(n, "", &b);
	T_EQ_INT((int)notice_pending(n), 0);
	cJSON_Delete(cc);
	cJSON_Delete(t);
	notice_free(n);
	buf_release(&b);
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
	/* No ~/.claude/commands or skills of whoever runs the tests. */
	{
		char *home = t_tree_at("/home");

		setenv("HOME", home, 1);
		free(home);
	}

	T_RUN(arguments);
	T_RUN(no_placeholder_appends);
	T_RUN(project_wins);
	T_RUN(not_custom);
	T_RUN(errors);
	T_RUN(frontmatter);
	T_RUN(listing);
	T_RUN(claude_commands);
	T_RUN(skill_commands);
	T_RUN(front_matter);
	T_RUN(grants);
	T_RUN(claude_settings);

	config_release(&cfg);
	t_tree_remove(root);
	return t_done();
}
