/*
 * Tests for agent/hooks.c: matching, the input JSON, reading answers, exit
 * codes, timeouts and cancelling, with real shell scripts as hooks on a
 * real event loop.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "ev.h"
#include "event.h"
#include "hooks.h"
#include "json.h"
#include "t.h"
#include "t_tree.h"
#include "xalloc.h"

static struct ev_loop *loop;
static struct config cfg;


/* Write an executable script ws/hooks/name. */
static void
script(const char *name, const char *text)
{
	char *path = t_tree_at("/ws/hooks/%s", name);
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	chmod(path, 0755);
	free(path);
}

static char *
slurp(const char *path)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, n);
	fclose(f);
	return buf_detach(&b, NULL);
}

/* Replace the settings' hooks with json. */
static void
settings(const char *json)
{
	cJSON_Delete(cfg.hooks);
	cfg.hooks = cJSON_Parse(json);
	if (cfg.hooks == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", json);
		exit(2);
	}
}

/* What a run delivered. */
struct got {
	int			 calls;
	struct hook_outcome	 o;
};

static void
got_done(void *arg, struct hook_outcome *o)
{
	struct got *g = arg;

	g->calls++;
	g->o = *o;
	/* Take every pointer: the runner frees what is left. */
	memset(o, 0, sizeof *o);
}

static void
got_release(struct got *g)
{
	free(g->o.reason);
	cJSON_Delete(g->o.updated_input);
	free(g->o.additional_context);
	free(g->o.system_message);
	free(g->o.stop_reason);
	free(g->o.warnings);
	memset(g, 0, sizeof *g);
}

static void
wait_for(struct got *g, int ms)
{
	int64_t end = ev_now_ms() + ms;

	while (g->calls == 0 && ev_now_ms() < end)
		ev_run_once(loop, 50);
}

/* Run ev with fields (JSON text or NULL) and wait for the outcome; 0 if nothing ran. */
static int
run(struct hooks *h, enum hook_event ev, const char *fields, struct got *g)
{
	cJSON *f = fields != NULL ? cJSON_Parse(fields) : NULL;
	struct hook_run *r;

	memset(g, 0, sizeof *g);
	r = hooks_run(h, ev, f, got_done, g);
	cJSON_Delete(f);
	if (r == NULL)
		return 0;
	/* Never from inside hooks_run. */
	if (g->calls != 0)
		return -1;
	wait_for(g, 10000);
	return g->calls;
}

static const char bash_rm[] =
    "{\"tool_name\":\"run_bash\",\"tool_use_id\":\"toolu_1\",\"tool_input\":{\"command\":\"rm -rf build\"}}";
static const char bash_ls[] =
    "{\"tool_name\":\"run_bash\",\"tool_use_id\":\"toolu_2\",\"tool_input\":{\"command\":\"ls\"}}";

T_TEST(event_names)
{
	int i;

	for (i = 0; i < HOOK_NEVENTS; i++)
		T_EQ_INT(hooks_event_parse(hooks_event_name((enum hook_event)i)), i);
	T_EQ_INT(hooks_event_parse("PreToolUse"), HOOK_PRE_TOOL_USE);
	T_EQ_INT(hooks_event_parse("pretooluse"), -1);
	T_EQ_INT(hooks_event_parse(NULL), -1);
	T_EQ_STR(hooks_mode_name(PERM_YOLO), "bypassPermissions");
	T_EQ_STR(hooks_mode_name(PERM_ASK), "default");
}

T_TEST(matching)
{
	struct hooks *h = hooks_new(loop, &cfg);

	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}");
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "run_bash"));
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "Bash"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "read_file"));
	T_OK(!hooks_has(h, HOOK_POST_TOOL_USE, "run_bash"));
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, NULL));
	settings("{\"PreToolUse\":[{\"matcher\":\"run_bash\",\"hooks\":[{\"command\":\"true\"}]}]}");
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "Bash"));
	/* The whole name must match: "Ba" is not "Bash", "Edit" is not "MultiEdit"'s prefix. */
	settings("{\"PreToolUse\":[{\"matcher\":\"Ba\",\"hooks\":[{\"command\":\"true\"}]}]}");
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "run_bash"));
	settings("{\"PreToolUse\":[{\"matcher\":\"Edit|Write\",\"hooks\":[{\"command\":\"true\"}]}]}");
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "edit_file"));
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "write_file"));
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "MultiEdit"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "read_file"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "apply_patch"));
	settings("{\"PreToolUse\":[{\"matcher\":\".*_file\",\"hooks\":[{\"command\":\"true\"}]}]}");
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "read_file"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "grep"));
	/* Empty, "*" and a missing matcher match everything. */
	settings("{\"PreToolUse\":[{\"matcher\":\"\",\"hooks\":[{\"command\":\"true\"}]}],"
	    "\"PostToolUse\":[{\"matcher\":\"*\",\"hooks\":[{\"command\":\"true\"}]}],"
	    "\"Stop\":[{\"hooks\":[{\"command\":\"true\"}]}]}");
	T_OK(hooks_has(h, HOOK_PRE_TOOL_USE, "grep"));
	T_OK(hooks_has(h, HOOK_POST_TOOL_USE, "anything"));
	T_OK(hooks_has(h, HOOK_STOP, NULL));
	/* Events without a subject ignore the matcher; SessionStart matches its source. */
	settings("{\"UserPromptSubmit\":[{\"matcher\":\"nothing\",\"hooks\":[{\"command\":\"true\"}]}],"
	    "\"SessionStart\":[{\"matcher\":\"startup|resume\",\"hooks\":[{\"command\":\"true\"}]}]}");
	T_OK(hooks_has(h, HOOK_USER_PROMPT_SUBMIT, NULL));
	T_OK(hooks_has(h, HOOK_SESSION_START, "resume"));
	T_OK(!hooks_has(h, HOOK_SESSION_START, "clear"));
	/* Broken entries never match. */
	settings("{\"PreToolUse\":[{\"matcher\":\"(\",\"hooks\":[{\"command\":\"true\"}]},"
	    "{\"matcher\":7,\"hooks\":[{\"command\":\"true\"}]},"
	    "{\"matcher\":\"grep\"},"
	    "{\"matcher\":\"glob\",\"hooks\":[{\"type\":\"prompt\",\"command\":\"true\"}]},"
	    "{\"matcher\":\"list_dir\",\"hooks\":[{\"type\":\"command\",\"command\":\"\"}, 3]}]}");
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "read_file"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "grep"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "glob"));
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "list_dir"));
	T_OK(!hooks_has(h, (enum hook_event)99, "list_dir"));
	cJSON_Delete(cfg.hooks);
	cfg.hooks = NULL;
	T_OK(!hooks_has(h, HOOK_PRE_TOOL_USE, "run_bash"));
	hooks_free(h);
}

T_TEST(validate)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);
	cJSON *j = cJSON_Parse("{\"PreToolUse\":[{\"matcher\":\"(\",\"hooks\":[{\"command\":\"true\"}]},"
	    "{\"matcher\":\"grep\"},"
	    "{\"hooks\":[{\"type\":\"agent\",\"prompt\":\"x\"},{\"command\":\"\"},"
	    "{\"command\":\"true\",\"timeout\":-1},{\"command\":\"true\",\"timeout\":5}]}],"
	    "\"Stop\":[{\"hooks\":[{\"command\":\"true\",\"if\":\"Bash(git *)\"}]}],"
	    "\"PostToolUse\":[{\"hooks\":[{\"type\":\"http\",\"url\":\"\"},{\"command\":\"true\",\"if\":3}]}],"
	    "\"CwdChanged\":[],\"Bogus\":[]}");

	hooks_validate(j, &w);
	T_CONTAINS(buf_cstr(&w), "hooks.PreToolUse[0]: the matcher \"(\" is not a valid regular expression");
	T_CONTAINS(buf_cstr(&w), "hooks.PreToolUse[1]: \"hooks\" must be an array");
	/* What tandem does not honour is a notice (hooks_unhonoured), not a warning too. */
	T_OK(strstr(buf_cstr(&w), "agent") == NULL);
	T_CONTAINS(buf_cstr(&w), "hooks.Stop[0].hooks[0]: \"if\" applies to tool events only");
	T_CONTAINS(buf_cstr(&w), "hooks.PostToolUse[0].hooks[0]: \"url\" must be a non-empty string");
	T_CONTAINS(buf_cstr(&w), "hooks.PostToolUse[0].hooks[1]: \"if\": must be a permission rule");
	T_OK(strstr(buf_cstr(&w), "CwdChanged") == NULL);
	T_CONTAINS(buf_cstr(&w), "hooks.PreToolUse[2].hooks[1]: \"command\" must be a non-empty string");
	T_CONTAINS(buf_cstr(&w), "hooks.PreToolUse[2].hooks[2]: \"timeout\" must be a number");
	T_OK(strstr(buf_cstr(&w), "hooks[3]") == NULL);
	T_OK(strstr(buf_cstr(&w), "Bogus") == NULL);
	buf_reset(&w);
	hooks_validate(NULL, &w);
	T_EQ_INT(w.len, 0);
	cJSON_Delete(j);
	buf_release(&w);
}

static void
got_unhonoured(void *arg, const char *kind, const char *name, const char *why)
{
	buf_printf(arg, "%s %s: %s\n", kind, name, why);
}

T_TEST(unhonoured)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);
	cJSON *j = cJSON_Parse("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"true\",\"async\":true},"
	    "{\"type\":\"agent\",\"prompt\":\"x\"},{\"type\":\"http\",\"url\":\"http://x\"}]}],"
	    "\"SubagentStop\":[],\"TeammateIdle\":[],\"Nonsense\":[],\"PostCompact\":[]}");

	hooks_unhonoured(j, got_unhonoured, &w);
	T_CONTAINS(buf_cstr(&w), "hook field async: tandem waits for every hook");
	T_CONTAINS(buf_cstr(&w), "hook type agent: tandem has no agent hooks");
	T_CONTAINS(buf_cstr(&w), "hook event TeammateIdle: tandem has no agent teams");
	/* subagents are tandem's: their events are honoured */
	T_OK(strstr(buf_cstr(&w), "SubagentStop") == NULL);
	T_CONTAINS(buf_cstr(&w), "hook event Nonsense: not an event");
	T_OK(strstr(buf_cstr(&w), "http") == NULL);
	T_OK(strstr(buf_cstr(&w), "PostCompact") == NULL);
	cJSON_Delete(j);
	buf_release(&w);
}

T_TEST(nothing_matches)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	settings("{\"PreToolUse\":[{\"matcher\":\"grep\",\"hooks\":[{\"command\":\"true\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 0);
	T_EQ_INT(run(h, HOOK_STOP, NULL, &g), 0);
	T_EQ_INT(hooks_pending(h), 0);
	hooks_free(h);
}

T_TEST(input_json)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *path = t_tree_at("/ws/input.json"), *text, *ws = t_tree_at("/ws");
	cJSON *in;
	struct got g;

	hooks_set_session(h, "sess-1", "/tmp/log.jsonl");
	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"command\":\"cat > input.json\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_EQ_INT(g.o.nhooks, 1);
	T_OK(g.o.warnings == NULL);
	got_release(&g);
	text = slurp(path);
	in = text != NULL ? cJSON_Parse(text) : NULL;
	T_OK(in != NULL);
	T_EQ_STR(json_str(in, "session_id", NULL), "sess-1");
	T_EQ_STR(json_str(in, "transcript_path", NULL), "/tmp/log.jsonl");
	T_EQ_STR(json_str(in, "cwd", NULL), ws);
	T_EQ_STR(json_str(in, "hook_event_name", NULL), "PreToolUse");
	T_EQ_STR(json_str(in, "tool_name", NULL), "Bash");
	T_EQ_STR(json_str(in, "tandem_tool_name", NULL), "run_bash");
	T_EQ_STR(json_str(in, "tool_use_id", NULL), "toolu_1");
	T_EQ_STR(json_str(json_get(in, "tool_input"), "command", NULL), "rm -rf build");
	cJSON_Delete(in);
	free(text);

	/* A file tool also gets Claude Code's absolute file_path. */
	settings("{\"PreToolUse\":[{\"matcher\":\"Edit\",\"hooks\":[{\"command\":\"cat > input.json\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, "{\"tool_name\":\"edit_file\",\"tool_input\":"
	    "{\"path\":\"src/a.c\",\"old_string\":\"a\",\"new_string\":\"b\"}}", &g), 1);
	got_release(&g);
	text = slurp(path);
	in = text != NULL ? cJSON_Parse(text) : NULL;
	T_EQ_STR(json_str(in, "tool_name", NULL), "Edit");
	T_EQ_STR(json_str(json_get(in, "tool_input"), "path", NULL), "src/a.c");
	{
		char *abs = t_tree_at("/ws/src/a.c");

		T_EQ_STR(json_str(json_get(in, "tool_input"), "file_path", NULL), abs);
		free(abs);
	}
	T_EQ_STR(json_str(json_get(in, "tool_input"), "new_string", NULL), "b");
	cJSON_Delete(in);
	free(text);

	/* A tool without a Claude Code name keeps its own. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"cat > input.json\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, "{\"tool_name\":\"apply_patch\",\"tool_input\":{\"patch\":\"x\"}}",
	    &g), 1);
	got_release(&g);
	text = slurp(path);
	in = text != NULL ? cJSON_Parse(text) : NULL;
	T_EQ_STR(json_str(in, "tool_name", NULL), "apply_patch");
	T_EQ_STR(json_str(in, "tandem_tool_name", NULL), "apply_patch");
	T_OK(json_get(json_get(in, "tool_input"), "file_path") == NULL);
	cJSON_Delete(in);
	free(text);
	free(path);
	free(ws);
	hooks_free(h);
}

T_TEST(environment)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *ws = t_tree_at("/ws");
	struct buf want = BUF_INIT(BUF_NOLIMIT);
	struct got g;

	/* The hook runs in the root, with Claude Code's CLAUDE_PROJECT_DIR. */
	settings("{\"UserPromptSubmit\":[{\"hooks\":[{\"command\":\"pwd; echo \\\"$CLAUDE_PROJECT_DIR\\\"; echo \\\"$TANDEM_PROJECT_DIR\\\"\"}]}]}");
	T_EQ_INT(run(h, HOOK_USER_PROMPT_SUBMIT, "{\"prompt\":\"hi\"}", &g), 1);
	buf_printf(&want, "%s\n%s\n%s", ws, ws, ws);
	T_EQ_STR(g.o.additional_context, buf_cstr(&want));
	got_release(&g);
	buf_release(&want);
	free(ws);
	hooks_free(h);
}

T_TEST(exit2_blocks_rm_rf)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	script("no-rm.sh", "#!/bin/sh\n"
	    "if grep -q 'rm -rf'; then echo 'rm -rf is not allowed here' >&2; exit 2; fi\n"
	    "exit 0\n");
	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	    "\"command\":\"\\\"$CLAUDE_PROJECT_DIR\\\"/hooks/no-rm.sh\",\"timeout\":30}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_DENY);
	T_EQ_STR(g.o.reason, "rm -rf is not allowed here");
	T_OK(g.o.warnings == NULL);
	got_release(&g);
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_OK(g.o.reason == NULL);
	got_release(&g);
	/* Exit 2 with nothing on stderr still blocks, with a reason naming the hook. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"exit 2\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_DENY);
	T_CONTAINS(g.o.reason, "exit 2");
	got_release(&g);
	hooks_free(h);
}

T_TEST(rewrites_input)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	/* Claude Code's hookSpecificOutput shape. */
	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"command\":"
	    "\"echo '{\\\"hookSpecificOutput\\\":{\\\"hookEventName\\\":\\\"PreToolUse\\\","
	    "\\\"permissionDecision\\\":\\\"allow\\\",\\\"permissionDecisionReason\\\":\\\"made safe\\\","
	    "\\\"updatedInput\\\":{\\\"command\\\":\\\"rm -ri build\\\"}}}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_ALLOW);
	T_EQ_STR(g.o.reason, "made safe");
	T_EQ_STR(json_str(g.o.updated_input, "command", NULL), "rm -ri build");
	got_release(&g);
	/* The top-level shape, without a decision: the input changes, the rules still decide. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":"
	    "\"echo '{\\\"updatedInput\\\":{\\\"command\\\":\\\"ls -l\\\"}}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_EQ_STR(json_str(g.o.updated_input, "command", NULL), "ls -l");
	got_release(&g);
	/* A Claude Code script that edits file_path: tandem's path follows it. */
	script("redirect.sh", "#!/bin/sh\n"
	    "jq -c '. as $i | {hookSpecificOutput: {hookEventName: \"PreToolUse\", updatedInput: "
	    "($i.tool_input | .file_path = ($i.cwd + \"/safe/\" + ($i.tool_input.file_path | split(\"/\") | last)))}}'\n");
	settings("{\"PreToolUse\":[{\"matcher\":\"Write\",\"hooks\":[{\"command\":\"hooks/redirect.sh\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, "{\"tool_name\":\"write_file\",\"tool_input\":"
	    "{\"path\":\"src/out.txt\",\"content\":\"x\"}}", &g), 1);
	T_OK(g.o.warnings == NULL);
	T_EQ_STR(json_str(g.o.updated_input, "path", NULL), "safe/out.txt");
	T_OK(json_get(g.o.updated_input, "file_path") == NULL);
	T_EQ_STR(json_str(g.o.updated_input, "content", NULL), "x");
	got_release(&g);
	/* updatedInput that is not an object is refused with a warning. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"updatedInput\\\":\\\"rm -rf /\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_OK(g.o.updated_input == NULL);
	T_CONTAINS(g.o.warnings, "\"updatedInput\" must be an object");
	got_release(&g);
	hooks_free(h);
}

T_TEST(decisions)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"permissionDecision\\\":\\\"deny\\\",\\\"reason\\\":\\\"nope\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_DENY);
	T_EQ_STR(g.o.reason, "nope");
	got_release(&g);
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"hookSpecificOutput\\\":{\\\"permissionDecision\\\":\\\"ask\\\"}}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_ASK);
	got_release(&g);
	/* The older "decision" field. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"decision\\\":\\\"approve\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_ALLOW);
	got_release(&g);
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"r\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_DENY);
	T_EQ_STR(g.o.reason, "r");
	got_release(&g);
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"permissionDecision\\\":\\\"maybe\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "unknown decision \"maybe\"");
	got_release(&g);
	/* continue:false, systemMessage. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo '{\\\"continue\\\":false,\\\"stopReason\\\":\\\"halt\\\",\\\"systemMessage\\\":\\\"careful\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_OK(g.o.stop);
	T_EQ_STR(g.o.stop_reason, "halt");
	T_EQ_STR(g.o.system_message, "careful");
	got_release(&g);
	hooks_free(h);
}

T_TEST(timeout_kills_group)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *pidfile = t_tree_at("/ws/child.pid"), *text;
	int64_t t0 = ev_now_ms();
	struct got g;
	long pid = 0;
	int i;

	unlink(pidfile);
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"sleep 30 & echo $! > child.pid; wait\","
	    "\"timeout\":0.3}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_OK(ev_now_ms() - t0 < 3000);
	T_OK(ev_now_ms() - t0 >= 250);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "timed out after 0.3 s and was killed");
	got_release(&g);
	text = slurp(pidfile);
	T_OK(text != NULL);
	if (text != NULL)
		pid = strtol(text, NULL, 10);
	T_OK(pid > 0);
	/* The background sleep was in the hook's group: it is gone too. */
	for (i = 0; i < 100 && pid > 0 && kill((pid_t)pid, 0) == 0; i++)
		usleep(20000);
	T_OK(pid > 0 && kill((pid_t)pid, 0) == -1 && errno == ESRCH);
	free(text);
	free(pidfile);
	hooks_free(h);
}

T_TEST(garbage_and_failures)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	/* Plain text on a tool event: ignored, no warning. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo checking things\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_OK(g.o.warnings == NULL && g.o.additional_context == NULL);
	got_release(&g);
	/* Broken JSON: a warning, and the call goes on. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"printf '{\\\"decision\\\": \\\"block'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "printed malformed JSON (ignored)");
	got_release(&g);
	/* Binary noise. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"head -c 3000 /dev/urandom\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	got_release(&g);
	/* Exit 1: a warning with the first line of stderr; the call goes on. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo oops >&2; echo more >&2; exit 1\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "failed (exit 1): oops");
	/* One line per hook: the rest of stderr stays out. */
	T_OK(g.o.warnings != NULL && strchr(g.o.warnings, '\n') == NULL);
	got_release(&g);
	/* A command that does not exist: exit 127, a warning. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"/nonexistent/hook.sh\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "exit 127");
	got_release(&g);
	/* Killed by a signal. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"kill -9 $$\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_CONTAINS(g.o.warnings, "killed by signal 9");
	got_release(&g);
	/* Too much output: refused, and the hook is not left stuck on a full pipe. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"head -c 3000000 /dev/zero | tr '\\\\0' '{'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_CONTAINS(g.o.warnings, "printed more than");
	got_release(&g);
	hooks_free(h);
}

T_TEST(leftover_child_does_not_hang)
{
	struct hooks *h = hooks_new(loop, &cfg);
	int64_t t0 = ev_now_ms();
	struct got g;

	/* The hook exits at once but leaves a child holding its stdout. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"sleep 20 & echo '{\\\"decision\\\":\\\"approve\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_OK(ev_now_ms() - t0 < 3000);
	T_EQ_INT(g.o.decision, HOOK_ALLOW);
	got_release(&g);
	hooks_free(h);
}

T_TEST(post_tool_use_sees_result)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *path = t_tree_at("/ws/post.json"), *text;
	cJSON *fields = cJSON_Parse(bash_ls), *in;
	struct got g;

	cJSON_AddItemToObject(fields, "tool_response", hooks_tool_response("run_bash", "a\nb\n", 4, false));
	settings("{\"PostToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"command\":\"cat > post.json; "
	    "echo '{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"lint failed\\\"}'\"}]}]}");
	memset(&g, 0, sizeof g);
	T_OK(hooks_run(h, HOOK_POST_TOOL_USE, fields, got_done, &g) != NULL);
	wait_for(&g, 10000);
	T_EQ_INT(g.calls, 1);
	T_EQ_INT(g.o.decision, HOOK_BLOCK);
	T_EQ_STR(g.o.reason, "lint failed");
	got_release(&g);
	text = slurp(path);
	in = text != NULL ? cJSON_Parse(text) : NULL;
	T_EQ_STR(json_str(in, "hook_event_name", NULL), "PostToolUse");
	T_EQ_STR(json_str(in, "tool_name", NULL), "Bash");
	T_EQ_STR(json_str(json_get(in, "tool_response"), "stdout", NULL), "a\nb\n");
	T_EQ_STR(json_str(json_get(in, "tool_response"), "content", NULL), "a\nb\n");
	T_OK(json_bool(json_get(in, "tool_response"), "success", false));
	T_EQ_STR(json_str(json_get(in, "tool_input"), "command", NULL), "ls");
	cJSON_Delete(in);
	free(text);
	/* Exit 2 after a tool: the model is told (block). */
	settings("{\"PostToolUse\":[{\"hooks\":[{\"command\":\"echo 'format the file' >&2; exit 2\"}]}]}");
	memset(&g, 0, sizeof g);
	T_OK(hooks_run(h, HOOK_POST_TOOL_USE, fields, got_done, &g) != NULL);
	wait_for(&g, 10000);
	T_EQ_INT(g.o.decision, HOOK_BLOCK);
	T_EQ_STR(g.o.reason, "format the file");
	got_release(&g);
	cJSON_Delete(fields);
	free(path);
	hooks_free(h);
}

T_TEST(user_prompt_submit)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	/* Both shapes of additionalContext, merged in settings order. */
	settings("{\"UserPromptSubmit\":[{\"hooks\":[{\"command\":\"sleep 0.1; echo '{\\\"hookSpecificOutput\\\":"
	    "{\\\"hookEventName\\\":\\\"UserPromptSubmit\\\",\\\"additionalContext\\\":\\\"ctx A\\\"}}'\"}]},"
	    "{\"hooks\":[{\"command\":\"echo '{\\\"additionalContext\\\":\\\"ctx B\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_USER_PROMPT_SUBMIT, "{\"prompt\":\"fix it\"}", &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_EQ_INT(g.o.nhooks, 2);
	T_EQ_STR(g.o.additional_context, "ctx A\nctx B");
	got_release(&g);
	/* The prompt is in the input. */
	settings("{\"UserPromptSubmit\":[{\"hooks\":[{\"command\":\"jq -r .prompt\"}]}]}");
	T_EQ_INT(run(h, HOOK_USER_PROMPT_SUBMIT, "{\"prompt\":\"fix it\"}", &g), 1);
	T_EQ_STR(g.o.additional_context, "fix it");
	got_release(&g);
	/* Exit 2 blocks the prompt. */
	settings("{\"UserPromptSubmit\":[{\"hooks\":[{\"command\":\"echo 'no secrets in prompts' >&2; exit 2\"}]}]}");
	T_EQ_INT(run(h, HOOK_USER_PROMPT_SUBMIT, "{\"prompt\":\"my key is sk-1\"}", &g), 1);
	T_EQ_INT(g.o.decision, HOOK_BLOCK);
	T_EQ_STR(g.o.reason, "no secrets in prompts");
	got_release(&g);
	hooks_free(h);
}

T_TEST(big_input)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct buf prompt = BUF_INIT(BUF_NOLIMIT);
	cJSON *fields = cJSON_CreateObject();
	struct got g;
	size_t i;

	/* Far more than a pipe holds: stdin is a file, so nothing can stall. */
	for (i = 0; i < 300000; i++)
		buf_putc(&prompt, 'x');
	cJSON_AddStringToObject(fields, "prompt", buf_cstr(&prompt));
	settings("{\"UserPromptSubmit\":[{\"hooks\":[{\"command\":\"jq -r '.prompt | length'\"}]}]}");
	memset(&g, 0, sizeof g);
	T_OK(hooks_run(h, HOOK_USER_PROMPT_SUBMIT, fields, got_done, &g) != NULL);
	wait_for(&g, 10000);
	T_EQ_STR(g.o.additional_context, "300000");
	got_release(&g);
	cJSON_Delete(fields);
	buf_release(&prompt);
	hooks_free(h);
}

T_TEST(stop_hook)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	settings("{\"Stop\":[{\"hooks\":[{\"command\":\"if jq -e .stop_hook_active >/dev/null; then exit 0; fi; "
	    "echo '{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"run the tests first\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_STOP, "{\"stop_hook_active\":false}", &g), 1);
	T_EQ_INT(g.o.decision, HOOK_BLOCK);
	T_EQ_STR(g.o.reason, "run the tests first");
	got_release(&g);
	T_EQ_INT(run(h, HOOK_STOP, "{\"stop_hook_active\":true}", &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	got_release(&g);
	/* Events that cannot block: exit 2 is a warning. */
	settings("{\"Notification\":[{\"hooks\":[{\"command\":\"echo no >&2; exit 2\"}]}],"
	    "\"SessionStart\":[{\"hooks\":[{\"command\":\"echo '{\\\"decision\\\":\\\"block\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_NOTIFICATION, "{\"message\":\"m\"}", &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "Notification cannot be blocked: no");
	got_release(&g);
	T_EQ_INT(run(h, HOOK_SESSION_START, "{\"source\":\"startup\"}", &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	got_release(&g);
	hooks_free(h);
}

T_TEST(parallel_and_merged)
{
	struct hooks *h = hooks_new(loop, &cfg);
	int64_t t0 = ev_now_ms();
	struct got g;

	/* Three hooks of 0.4 s each finish in well under 1.2 s: they run at once. */
	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":["
	    "{\"command\":\"sleep 0.4; echo '{\\\"permissionDecision\\\":\\\"allow\\\",\\\"updatedInput\\\":{\\\"command\\\":\\\"x\\\"}}'\"},"
	    "{\"command\":\"sleep 0.4; echo 'first reason' >&2; exit 2\"}]},"
	    "{\"matcher\":\"*\",\"hooks\":[{\"command\":\"sleep 0.4; echo '{\\\"permissionDecision\\\":\\\"deny\\\","
	    "\\\"permissionDecisionReason\\\":\\\"second reason\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_OK(ev_now_ms() - t0 < 1100);
	T_EQ_INT(g.o.nhooks, 3);
	/* Deny beats allow; a denied call is not rewritten. */
	T_EQ_INT(g.o.decision, HOOK_DENY);
	T_EQ_STR(g.o.reason, "first reason\nsecond reason");
	T_OK(g.o.updated_input == NULL);
	got_release(&g);
	/* Ask beats allow. */
	settings("{\"PreToolUse\":[{\"hooks\":["
	    "{\"command\":\"echo '{\\\"permissionDecision\\\":\\\"allow\\\"}'\"},"
	    "{\"command\":\"echo '{\\\"permissionDecision\\\":\\\"ask\\\",\\\"reason\\\":\\\"look\\\"}'\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_ASK);
	T_EQ_STR(g.o.reason, "look");
	got_release(&g);
	/* The same command from two files runs once. */
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo x >> count.txt\"}]},"
	    "{\"matcher\":\"Bash\",\"hooks\":[{\"command\":\"echo x >> count.txt\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.nhooks, 1);
	got_release(&g);
	hooks_free(h);
}

T_TEST(claude_code_script)
{
	struct hooks *h = hooks_new(loop, &cfg);
	struct got g;

	/* Written for Claude Code, unchanged: matcher "Bash", jq on tool_input.command. */
	script("block-dangerous.sh", "#!/bin/bash\n"
	    "input=$(cat)\n"
	    "tool=$(echo \"$input\" | jq -r '.tool_name')\n"
	    "command=$(echo \"$input\" | jq -r '.tool_input.command // empty')\n"
	    "if [[ \"$tool\" == \"Bash\" && \"$command\" == *\"rm -rf\"* ]]; then\n"
	    "  echo \"Blocked: $command\" >&2\n"
	    "  exit 2\n"
	    "fi\n"
	    "exit 0\n");
	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	    "\"command\":\"$CLAUDE_PROJECT_DIR/hooks/block-dangerous.sh\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_rm, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_DENY);
	T_EQ_STR(g.o.reason, "Blocked: rm -rf build");
	got_release(&g);
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_OK(g.o.warnings == NULL);
	got_release(&g);
	hooks_free(h);
}

static int cancelled_calls;

static void
cancelled_done(void *arg, struct hook_outcome *o)
{
	cancelled_calls++;
}

T_TEST(cancel_and_free)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *pidfile = t_tree_at("/ws/cancel.pid"), *text;
	struct hook_run *r;
	long pid = 0;
	int i;

	unlink(pidfile);
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"echo $$ > cancel.pid; exec sleep 30\"}]}]}");
	r = hooks_run(h, HOOK_PRE_TOOL_USE, NULL, cancelled_done, NULL);
	T_OK(r != NULL);
	T_EQ_INT(hooks_pending(h), 1);
	for (i = 0; i < 200 && (text = slurp(pidfile)) == NULL; i++)
		ev_run_once(loop, 10);
	for (i = 0; i < 50 && text != NULL && strchr(text, '\n') == NULL; i++) {
		free(text);
		usleep(10000);
		text = slurp(pidfile);
	}
	T_OK(text != NULL);
	if (text != NULL)
		pid = strtol(text, NULL, 10);
	free(text);
	hooks_cancel(r);
	T_EQ_INT(hooks_pending(h), 0);
	for (i = 0; i < 100 && pid > 0 && kill((pid_t)pid, 0) == 0; i++)
		ev_run_once(loop, 20);
	T_OK(pid > 0 && kill((pid_t)pid, 0) == -1);
	/* hooks_free with runs in flight: no callback afterwards. */
	T_OK(hooks_run(h, HOOK_PRE_TOOL_USE, NULL, cancelled_done, NULL) != NULL);
	hooks_free(h);
	for (i = 0; i < 10; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(cancelled_calls, 0);
	free(pidfile);
}

T_TEST(spawn_failure_is_async)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *old = getenv("TMPDIR") != NULL ? xstrdup(getenv("TMPDIR")) : NULL;
	struct got g;

	/* No place for the input file: the hook cannot start, and says so later. */
	setenv("TMPDIR", "/nonexistent-dir-for-tandem-tests", 1);
	settings("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"true\"}]}]}");
	T_EQ_INT(run(h, HOOK_PRE_TOOL_USE, bash_ls, &g), 1);
	T_EQ_INT(g.o.decision, HOOK_CONTINUE);
	T_CONTAINS(g.o.warnings, "could not start");
	got_release(&g);
	if (old != NULL)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	hooks_free(h);
}

static int bus_errors;
static char bus_last[512];

static void
bus_sink(const cJSON *ev, void *arg)
{
	if (strcmp(json_str(ev, "type", ""), "error") == 0) {
		bus_errors++;
		snprintf(bus_last, sizeof bus_last, "%s", json_str(ev, "message", ""));
	}
}

T_TEST(notification_on_approval_request)
{
	struct event_bus *bus = event_bus_new();
	struct hooks *h = hooks_new(loop, &cfg);
	char *path = t_tree_at("/ws/notify.json"), *text = NULL;
	cJSON *ev, *in;
	int i;

	unlink(path);
	settings("{\"Notification\":[{\"matcher\":\"permission_prompt\",\"hooks\":["
	    "{\"command\":\"cat > notify.json\"},{\"command\":\"exit 1\"}]}]}");
	event_subscribe(bus, bus_sink, NULL);
	hooks_attach(h, bus);
	ev = event_new(bus, "approval_request");
	cJSON_AddStringToObject(ev, "id", "toolu_9");
	cJSON_AddStringToObject(ev, "name", "run_bash");
	event_emit(bus, ev);
	T_EQ_INT(hooks_pending(h), 1);
	for (i = 0; i < 500 && hooks_pending(h) > 0; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(hooks_pending(h), 0);
	text = slurp(path);
	in = text != NULL ? cJSON_Parse(text) : NULL;
	T_EQ_STR(json_str(in, "hook_event_name", NULL), "Notification");
	T_EQ_STR(json_str(in, "notification_type", NULL), "permission_prompt");
	T_EQ_STR(json_str(in, "message", NULL), "tandem needs your permission to use Bash");
	/* The failing hook's warning went out as a non-fatal error event. */
	T_EQ_INT(bus_errors, 1);
	T_CONTAINS(bus_last, "failed (exit 1)");
	/* Other events run nothing. */
	event_emit(bus, event_new(bus, "turn_start"));
	T_EQ_INT(hooks_pending(h), 0);
	cJSON_Delete(in);
	free(text);
	free(path);
	hooks_free(h);
	event_bus_free(bus);
}

T_TEST(drain_at_exit)
{
	struct hooks *h = hooks_new(loop, &cfg);
	char *path = t_tree_at("/ws/end.txt"), *text;
	int64_t t0;

	unlink(path);
	settings("{\"SessionEnd\":[{\"hooks\":[{\"command\":\"sleep 0.2; jq -r .reason > end.txt\"}]}]}");
	{
		cJSON *f = cJSON_Parse("{\"reason\":\"exit\"}");

		T_OK(hooks_run(h, HOOK_SESSION_END, f, cancelled_done, NULL) != NULL);
		cJSON_Delete(f);
	}
	hooks_drain(h, 5000);
	T_EQ_INT(hooks_pending(h), 0);
	text = slurp(path);
	T_EQ_STR(text, "exit\n");
	free(text);
	T_EQ_INT(cancelled_calls, 1);
	/* A hook that outlives the grace is killed, and drain returns on time. */
	settings("{\"SessionEnd\":[{\"hooks\":[{\"command\":\"sleep 30\"}]}]}");
	T_OK(hooks_run(h, HOOK_SESSION_END, NULL, cancelled_done, NULL) != NULL);
	t0 = ev_now_ms();
	hooks_drain(h, 300);
	T_OK(ev_now_ms() - t0 < 2000);
	T_EQ_INT(hooks_pending(h), 0);
	T_EQ_INT(cancelled_calls, 1);
	free(path);
	hooks_free(h);
}

static int kicks;

static void
count_kick(void *arg)
{
	kicks++;
}

T_TEST(pre_tool_for_a_gate)
{
	struct hooks *h = hooks_new(loop, &cfg);
	cJSON *rm = cJSON_Parse("{\"command\":\"rm -rf x\"}"), *ls = cJSON_Parse("{\"command\":\"ls\"}");
	struct hook_outcome o;
	int i;

	/* No hook: an answer at once. */
	settings("{\"PreToolUse\":[{\"matcher\":\"Edit\",\"hooks\":[{\"command\":\"exit 2\"}]}]}");
	T_EQ_INT(hooks_pre_tool(h, "t1", "run_bash", rm, PERM_ASK, count_kick, NULL, &o), 0);
	T_EQ_INT(o.nhooks, 0);
	T_EQ_INT(o.decision, HOOK_CONTINUE);
	/* Two calls at once, each with its own verdict. */
	settings("{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"command\":"
	    "\"if grep -q 'rm -rf'; then echo no >&2; exit 2; fi; jq -r .permission_mode\"}]}]}");
	kicks = 0;
	T_EQ_INT(hooks_pre_tool(h, "t1", "run_bash", rm, PERM_YOLO, count_kick, NULL, &o), 1);
	T_EQ_INT(hooks_pre_tool(h, "t2", "run_bash", ls, PERM_YOLO, count_kick, NULL, &o), 1);
	T_EQ_INT(hooks_pre_tool(h, "t1", "run_bash", rm, PERM_YOLO, count_kick, NULL, &o), 1);
	for (i = 0; i < 500 && kicks < 2; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(kicks, 2);
	T_EQ_INT(hooks_pre_tool(h, "t2", "run_bash", ls, PERM_YOLO, count_kick, NULL, &o), 0);
	T_EQ_INT(o.nhooks, 1);
	T_EQ_INT(o.decision, HOOK_CONTINUE);
	hook_outcome_release(&o);
	T_EQ_INT(hooks_pre_tool(h, "t1", "run_bash", rm, PERM_YOLO, count_kick, NULL, &o), 0);
	T_EQ_INT(o.decision, HOOK_DENY);
	T_EQ_STR(o.reason, "no");
	hook_outcome_release(&o);
	T_OK(o.reason == NULL);
	/* Asked again (the gate starts over after a later stage waited): the same verdict, no new run. */
	T_EQ_INT(hooks_pre_tool(h, "t1", "run_bash", rm, PERM_YOLO, count_kick, NULL, &o), 0);
	T_EQ_INT(o.decision, HOOK_DENY);
	T_EQ_STR(o.reason, "no");
	T_OK(o.warnings == NULL);
	T_EQ_INT(hooks_pending(h), 0);
	hook_outcome_release(&o);
	/* Forgotten at the end of the turn: asking again starts over. */
	hooks_cancel_tools(h);
	T_EQ_INT(hooks_pre_tool(h, "t1", "run_bash", rm, PERM_YOLO, count_kick, NULL, &o), 1);
	/* An interrupt kills what runs; no kick comes. */
	hooks_cancel_tools(h);
	T_EQ_INT(hooks_pending(h), 0);
	for (i = 0; i < 10; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(kicks, 2);
	/* Freeing with a verdict not yet taken does not leak (valgrind checks). */
	T_EQ_INT(hooks_pre_tool(h, "t3", "run_bash", rm, PERM_YOLO, count_kick, NULL, &o), 1);
	for (i = 0; i < 500 && kicks < 3; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(kicks, 3);
	cJSON_Delete(rm);
	cJSON_Delete(ls);
	hooks_free(h);
}

struct post_got {
	int		 calls;
	char		 id[32];
	enum hook_decision decision;
	char		 reason[128];
	int		 pending_inside;
	struct hooks	*h;
};

static void
post_done(void *arg, const char *id, struct hook_outcome *o)
{
	struct post_got *g = arg;

	g->calls++;
	snprintf(g->id, sizeof g->id, "%s", id);
	g->decision = o->decision;
	snprintf(g->reason, sizeof g->reason, "%s", o->reason != NULL ? o->reason : "");
	g->pending_inside = hooks_post_pending(g->h);
}

T_TEST(post_tool_for_results)
{
	struct hooks *h = hooks_new(loop, &cfg);
	cJSON *in = cJSON_Parse("{\"path\":\"a.c\",\"old_string\":\"x\",\"new_string\":\"y\"}");
	struct post_got g;
	int i;

	memset(&g, 0, sizeof g);
	g.h = h;
	settings("{\"PostToolUse\":[{\"matcher\":\"Edit|Write\",\"hooks\":[{\"command\":"
	    "\"jq -e '.tool_response.success and .tool_input.file_path != null' >/dev/null && "
	    "echo 'run the formatter' >&2 && exit 2\"}]}]}");
	T_EQ_INT(hooks_post_tool(h, "t1", "read_file", in, "x", 1, false, PERM_ASK, post_done, &g), 0);
	T_EQ_INT(hooks_post_tool(h, "t2", "edit_file", in, "ok", 2, false, PERM_ASK, post_done, &g), 1);
	T_EQ_INT(hooks_post_pending(h), 1);
	T_EQ_INT(g.calls, 0);
	for (i = 0; i < 500 && g.calls == 0; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(g.calls, 1);
	T_EQ_STR(g.id, "t2");
	T_EQ_INT(g.decision, HOOK_BLOCK);
	T_EQ_STR(g.reason, "run the formatter");
	/* Already off the books when the callback runs: it may send the results. */
	T_EQ_INT(g.pending_inside, 0);
	/* Cancelled runs never call back. */
	T_EQ_INT(hooks_post_tool(h, "t3", "write_file", in, "ok", 2, false, PERM_ASK, post_done, &g), 1);
	hooks_cancel_tools(h);
	T_EQ_INT(hooks_post_pending(h), 0);
	for (i = 0; i < 10; i++)
		ev_run_once(loop, 20);
	T_EQ_INT(g.calls, 1);
	/* Freed with a run in flight: no leak, no call. */
	T_EQ_INT(hooks_post_tool(h, "t4", "write_file", in, "ok", 2, false, PERM_ASK, post_done, &g), 1);
	cJSON_Delete(in);
	hooks_free(h);
	T_EQ_INT(g.calls, 1);
}

T_TEST(tool_response_shape)
{
	cJSON *r = hooks_tool_response("read_file", "text", 4, true);

	T_EQ_STR(json_str(r, "content", NULL), "text");
	T_OK(json_bool(r, "is_error", false));
	T_OK(!json_bool(r, "success", true));
	T_OK(json_get(r, "stdout") == NULL);
	cJSON_Delete(r);
	r = hooks_tool_response("Bash", "o\xff", 2, false);
	T_EQ_STR(json_str(r, "stdout", NULL), "o\xef\xbf\xbd");
	cJSON_Delete(r);
}

int
main(void)
{
	char *ws, *dir;

	signal(SIGPIPE, SIG_IGN);
	t_tree_init("tandem-hooks");
	ws = t_tree_at("/ws");
	dir = t_tree_at("/ws/hooks");
	mkdir(ws, 0700);
	mkdir(dir, 0700);
	loop = ev_loop_new();
	config_init(&cfg);
	free(cfg.root);
	cfg.root = ws;

	T_RUN(event_names);
	T_RUN(matching);
	T_RUN(validate);
	T_RUN(nothing_matches);
	T_RUN(input_json);
	T_RUN(environment);
	T_RUN(exit2_blocks_rm_rf);
	T_RUN(rewrites_input);
	T_RUN(decisions);
	T_RUN(timeout_kills_group);
	T_RUN(garbage_and_failures);
	T_RUN(leftover_child_does_not_hang);
	T_RUN(post_tool_use_sees_result);
	T_RUN(user_prompt_submit);
	T_RUN(big_input);
	T_RUN(stop_hook);
	T_RUN(parallel_and_merged);
	T_RUN(claude_code_script);
	T_RUN(cancel_and_free);
	T_RUN(spawn_failure_is_async);
	T_RUN(notification_on_approval_request);
	T_RUN(drain_at_exit);
	T_RUN(pre_tool_for_a_gate);
	T_RUN(post_tool_for_results);
	T_RUN(tool_response_shape);
	T_RUN(unhonoured);

	config_release(&cfg);
	ev_loop_free(loop);
	t_tree_remove(root);
	free(dir);
	return t_done();
}
