/*
 * prompt: what the model is told before the conversation.
 *
 * Owns the static system prompt (cacheable, the same for every session),
 * the dynamic part (date, workspace, git branch, SessionStart context,
 * memory files), the tools' schemas as the request sends them, and which
 * tools the settings disable: struct prompt_state, one a conversation.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "context/cachewatch.h"
#include "context/compact.h"
#include "config/config.h"
#include "context/conv.h"
#include "ev.h"
#include "fsutil.h"
#include "file.h"
#include "event.h"
#include "model/http.h"
#include "hooks.h"
#include "emit.h"
#include "mcp/mcp.h"
#include "json.h"
#include "context/memory.h"
#include "model/modelcat.h"
#include "model/models.h"
#include "rules/perm.h"
#include "model/provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "store/session.h"
#include "model/stream.h"
#include "xalloc.h"
#include "web/web.h"
#include "turn_int.h"
#include "claude/claude.h"
#include "sub/subagent.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "lsp/lsp.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"

static void prompt_git_branch(const char *root, struct buf *out);

/*
 * A conversation's prompt: the system prompt's static part (the session's
 * or a subagent type's), its dynamic part (NULL until the first prompt
 * builds it) and the tools' schemas as the request sends them.
 */
struct prompt_state {
	char	*sys_static;
	char	*sys_dynamic;
	cJSON	*tools;
};

static const char prompt_static[] =
    "You are tandem, a coding agent pair-programming with a developer in their "
    "terminal, working in their repository through tools. The developer sees every "
    "tool call, approves edits and commands, and can rewind any turn.\n\n"
    "Work like a careful senior engineer: read before you edit, make the smallest "
    "change that does the job, keep the code's existing style, and run the tests "
    "when there are any. Use paths relative to the workspace root. Several "
    "independent read-only tool calls may be made in one response; they run in "
    "parallel. When a tool fails, read its message: it says what to do next. If "
    "the user denies a call, do not retry it unchanged. Be brief: say what you did "
    "and what is left, without repeating file contents the user can see.";

const char *
agent_system_prompt(void)
{
	return prompt_static;
}

/*
 * What the session's dynamic system prompt says beside the date and the
 * workspace: the memory files (and their report, for /memory), the
 * SessionStart hooks' context, a wire host's system prompt.
 */
struct prompt_facts {
	char	*memory;
	char	*memory_report;
	char	*session_context;
	char	*host_prompt;
};

struct prompt_facts *
prompt_facts_new(const struct config *cfg)
{
	struct prompt_facts *pf = xcalloc(1, sizeof *pf);
	struct buf mem = BUF_INIT(BUF_NOLIMIT), report = BUF_INIT(BUF_NOLIMIT);

	memory_load(cfg, &mem, &report);
	pf->memory = buf_detach(&mem, NULL);
	pf->memory_report = buf_detach(&report, NULL);
	return pf;
}

void
prompt_facts_free(struct prompt_facts *pf)
{
	if (pf == NULL)
		return;
	free(pf->memory);
	free(pf->memory_report);
	free(pf->session_context);
	free(pf->host_prompt);
	free(pf);
}

void
prompt_set_session_context(struct agent *a, char *text)
{
	free(agent_prompt_facts(a)->session_context);
	agent_prompt_facts(a)->session_context = text;
}

const char *
prompt_memory_report(const struct agent *a)
{
	return agent_prompt_facts(a)->memory_report != NULL ? agent_prompt_facts(a)->memory_report : "";
}

struct prompt_state *
prompt_new(const struct config *cfg)
{
	struct prompt_state *ps = xcalloc(1, sizeof *ps);

	ps->sys_static = xstrdup(prompt_static);
	ps->tools = prompt_tools_json(cfg);
	return ps;
}

void
prompt_free(struct prompt_state *ps)
{
	if (ps == NULL)
		return;
	cJSON_Delete(ps->tools);
	free(ps->sys_static);
	free(ps->sys_dynamic);
	free(ps);
}

cJSON *
prompt_tools(const struct conversation *cv)
{
	return conversation_prompt(cv)->tools;
}

cJSON *
conversation_tools(const struct conversation *cv)
{
	return conversation_prompt(cv)->tools;
}

const char *
prompt_sys_static(const struct conversation *cv)
{
	return conversation_prompt(cv)->sys_static;
}

const char *
prompt_sys_dynamic(const struct conversation *cv)
{
	return conversation_prompt(cv)->sys_dynamic;
}

void
prompt_set_static(struct conversation *cv, const char *text)
{
	free(conversation_prompt(cv)->sys_static);
	conversation_prompt(cv)->sys_static = xstrdup(text != NULL && text[0] != '\0' ? text : prompt_static);
}

bool
prompt_listed(const char *list, const char *word)
{
	return agent_listed(list, word);
}

/* Is name in the comma-separated list of disabled tools, or a tool it needs? */
bool
prompt_tool_disabled(const struct config *cfg, const char *name)
{
	if (strcmp(name, "skill") == 0 && !claude_has_skills(cfg))
		return true;	/* no skill to load: the tool costs every request for nothing */
	return agent_tool_disabled(cfg, name);
}

/* The git branch, read from .git/HEAD without starting a process. */
static void
prompt_git_branch(const char *root, struct buf *out)
{
	struct buf path = BUF_INIT(8192), head = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;
	char *line;

	buf_printf(&path, "%s/.git/HEAD", root);
	if (file_read(buf_cstr(&path), 511, FILE_REGULAR | FILE_TRUNCATE, &head, &st) == 0 &&
	    head.len > 0) {
		line = head.data;
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "ref: refs/heads/", 16) == 0)
			buf_puts(out, line + 16);
		else
			buf_printf(out, "(detached at %.12s)", line);
	}
	buf_release(&head);
	buf_release(&path);
}

void
prompt_build_dynamic(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	const struct prompt_facts *pf = agent_prompt_facts(a);
	struct buf d = BUF_INIT(BUF_NOLIMIT), branch = BUF_INIT(1024);
	char date[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	localtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d", &tm);
	prompt_git_branch(cfg->root, &branch);
	buf_printf(&d, "Today's date: %s\nWorkspace root: %s\n", date, cfg->root);
	for (i = 0; cfg->add_dirs != NULL && cfg->add_dirs[i] != NULL; i++)
		buf_printf(&d, "Also usable by the file tools (give absolute paths): %s\n",
		    cfg->add_dirs[i]);
	if (branch.len > 0)
		buf_printf(&d, "Git branch: %s\n", buf_cstr(&branch));
	if (pf->session_context != NULL)
		buf_printf(&d, "\n%s\n", pf->session_context);
	if (pf->memory != NULL && pf->memory[0] != '\0')
		buf_printf(&d, "\n%s", pf->memory);
	claude_prompt(agent_claude(a), &d);
	if (pf->host_prompt != NULL)
		buf_printf(&d, "\n%s\n", pf->host_prompt);
	buf_release(&branch);
	free(conversation_prompt(cv)->sys_dynamic);
	conversation_prompt(cv)->sys_dynamic = buf_detach(&d, NULL);
}

void
agent_set_host_prompt(struct agent *a, const char *text)
{
	free(agent_prompt_facts(a)->host_prompt);
	agent_prompt_facts(a)->host_prompt = text != NULL && text[0] != '\0' ? xstrdup(text) : NULL;
}

cJSON *
prompt_tools_json(const struct config *cfg)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; tool_table[i] != NULL; i++) {
		const struct tool_def *t = tool_table[i];
		cJSON *o, *schema;

		if (prompt_tool_disabled(cfg, t->name))
			continue;
		o = cJSON_CreateObject();
		schema = cJSON_Parse(t->schema);

		if (schema == NULL)
			fatal("the input schema of tool %s is not valid JSON", t->name);
		cJSON_AddStringToObject(o, "name", t->name);
		cJSON_AddStringToObject(o, "description", t->description);
		cJSON_AddItemToObject(o, "input_schema", schema);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* --- context economy: compaction and the summary call -------------------- */

char *
prompt_system_text(const struct conversation *cv)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_puts(&b, conversation_prompt(cv)->sys_static);
	if (conversation_prompt(cv)->sys_dynamic != NULL) {
		buf_puts(&b, "\n\n");
		buf_puts(&b, conversation_prompt(cv)->sys_dynamic);
	}
	return buf_detach(&b, NULL);
}

int64_t
prompt_estimate(const struct conversation *cv)
{
	char *sys = prompt_system_text(cv);
	int64_t t = compact_estimate_bytes(sys, conversation_prompt(cv)->tools,
	    conv_json_bytes(conversation_msgs(cv), compact_message_bytes));

	free(sys);
	return t;
}

/* The MCP servers' tools join the schemas: servers start in the background, their tools are taken between turns. */

void
agent_mcp_changed(void *arg, int ready, int total)
{
	struct conversation *cv = arg;

	emit_mcp_status(conversation_bus(cv), ready, total);
}

void
prompt_mcp_start(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct buf w = BUF_INIT(BUF_NOLIMIT);

	buf_init(call_mcp_changed(a), 4096);
	agent_set_mcp(a, mcp_from_config(agent_loop(a), agent_http(a), agent_config(a), agent_env(a), &w));
	mcp_on_change(agent_mcp(a), agent_mcp_changed, cv);
	if (w.len > 0) {
		event_error(conversation_bus(cv), 0, "%s", buf_cstr(&w));
		call_mcp_set_warnings(a, buf_detach(&w, NULL));
	}
	buf_release(&w);
	sched_set_finder(conversation_sched(cv), prompt_find, prompt_resolve, cv);
	mcp_start(agent_mcp(a));
}

int
agent_mcp_restart(struct agent *a)
{
	struct conversation *cv = agent_main(a);

	if (conversation_busy(cv))
		return -1;
	mcp_free(agent_mcp(a));
	agent_set_mcp(a, NULL);
	buf_release(call_mcp_changed(a));
	call_mcp_set_warnings(a, NULL);
	prompt_mcp_start(cv);
	return 0;
}

void
agent_mcp_mentions(struct agent *a, struct buf *out)
{
	mcp_mentions(agent_mcp(a), out);
}

static void
agent_mcp_ready(void *arg)
{
	agent_call_model(arg);
}

/*
 * The first request of a turn: wait a bounded time for servers starting,
 * then take their tools.  A subagent's conversation is part of its
 * parent's turn and keeps the tools it opened with (subhost.c).
 */
bool
agent_mcp_wait(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	int i;

	if (agent_mcp(a) == NULL || conversation_calls(cv) > 1 || cv != agent_main(a))
		return false;
	if (mcp_wait(agent_mcp(a), agent_mcp_ready, cv))
		return true;
	buf_release(call_mcp_changed(a));
	if (mcp_sync(agent_mcp(a), call_mcp_changed(a))) {
		struct prompt_state *ps = conversation_prompt(cv);

		cJSON_Delete(ps->tools);
		ps->tools = prompt_tools_json(agent_config(a));
		mcp_tools_json(agent_mcp(a), ps->tools);
		lsp_tools_json(agent_lsp(a), ps->tools);
		web_tools_json(agent_web(a), ps->tools);
		prompt_sub_tools(cv);
		for (i = cJSON_GetArraySize(ps->tools) - 1; i >= 0; i--)
			if (prompt_tool_disabled(agent_config(a), json_str(cJSON_GetArrayItem(ps->tools, i),
			    "name", "")))
				cJSON_DeleteItemFromArray(ps->tools, i);
	}
	return false;
}

const struct tool_def *
prompt_find(void *arg, const char *name)
{
	struct conversation *cv = arg;
	struct agent *a = conversation_agent(cv);
	const struct tool_def *t = sub_tool(agent_subs(a), name);

	return t != NULL ? t : mcp_find(agent_mcp(a), name);
}

int
prompt_resolve(void *arg, char **name, cJSON **input, struct buf *why)
{
	struct conversation *cv = arg;

	return mcp_resolve_cb(agent_mcp(conversation_agent(cv)), name, input, why);
}

void
prompt_sub_tools(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);

	if (cv == agent_main(a))
		sub_tool_json(agent_subs(a), conversation_prompt(cv)->tools);
}
