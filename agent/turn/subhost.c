/*
 * subhost: what the subagents (agent/sub/subagent.h) may ask of the
 * session's conversations: open one with a type's prompt and tools, send
 * it a prompt as part of the caller's turn, stop it, close it.
 */
#include "autoconf.h"

#include <string.h>

#include "turn_int.h"
#include "prompt.h"
#include "lsp/lsp.h"
#include "mcp/mcp.h"
#include "web/web.h"
#include "inbox.h"
#include "record.h"
#include "sub/subagent.h"
#include "sub/subtype.h"
#include "subhost.h"

static struct conversation *
subhost_open(void *session, struct event_bus *bus, const struct sub_spec *spec)
{
	struct agent *a = session;
	char err[256];
	struct conversation *cv = conversation_new(a, bus, err, sizeof err);
	cJSON *tools;
	int i;

	if (cv == NULL)
		return NULL;
	/* the session's other tools, as the main conversation has them, then the type's filter */
	sched_set_more(conversation_sched(cv), web_find, agent_web(a));
	lsp_join(agent_lsp(a), conversation_sched(cv));
	/* the MCP tools of the parent's turn (its finder, prompt_find, already finds them) */
	tools = prompt_tools(cv);
	mcp_tools_json(agent_mcp(a), tools);
	web_tools_json(agent_web(a), tools);
	lsp_tools_json(agent_lsp(a), tools);
	prompt_set_static(cv, spec->system);
	for (i = cJSON_GetArraySize(tools) - 1; i >= 0; i--) {
		const char *name = json_str(cJSON_GetArrayItem(tools, i), "name", "");

		if (!subtype_allows(spec->type, name, mcp_find(agent_mcp(a), name)))
			cJSON_DeleteItemFromArray(tools, i);
	}
	if (subtype_allows(spec->type, "agent", NULL))
		sub_tool_json(agent_subs(a), tools);
	/*
	 * inherit is the caller's model as it starts: a command's model that
	 * the main conversation changes to and back (claude/claude.h) is the
	 * main conversation's, not a running subagent's
	 */
	conversation_set_model(cv, xstrdup(spec->model != NULL ? spec->model : agent_model(a)));
	return cv;
}

static int
subhost_submit(struct conversation *cv, struct conversation *parent, const char *prompt)
{
	if (agent_ops(conversation_agent(cv))->submit(cv, prompt) != 0)
		return -1;
	/* its effects are the caller's turn's: a rewind of that turn undoes them */
	if (parent != NULL) {
		conversation_set_turn(cv, conversation_turn(parent));
		event_set_turn(conversation_bus(cv), conversation_turn(cv));
	}
	return 0;
}

static void
subhost_stop(struct conversation *cv)
{
	agent_ops(conversation_agent(cv))->interrupt(cv);
}

static void
subhost_close(struct conversation *cv)
{
	conversation_free(cv);
}

static struct conversation *
subhost_owner(void *session, const char *id)
{
	struct agent *a = session;
	struct conversation *cv;

	for (cv = agent_convs(a); cv != NULL; cv = conversation_next(cv))
		if (sched_find(conversation_sched(cv), id) != NULL)
			return cv;
	return NULL;
}

static struct event_bus *
subhost_bus(struct conversation *cv)
{
	return conversation_bus(cv);
}

static void
subhost_kick(void *session)
{
	agent_kick_all(session);
}

/*
 * The model a type names: CLAUDE_CODE_SUBAGENT_MODEL over every type's,
 * as subtype_model_id maps it for the session's provider.  What a
 * project's definition (def) names, so mapped, waits for trust when it
 * costs more than the session's model (agent_project_model); the
 * environment's CLAUDE_CODE_SUBAGENT_MODEL is the user's.
 */
static const char *
subhost_model_for(void *session, const char *want, const char *def)
{
	struct agent *a = session;
	const char *all = getenv("CLAUDE_CODE_SUBAGENT_MODEL"), *v;

	if (all != NULL && all[0] != '\0') {
		want = all;
		def = NULL;
	}
	v = subtype_model_id(want, agent_proto(a) == STREAM_ANTHROPIC);
	return def != NULL ? agent_project_model(a, def, v) : v;
}

/* Would a project's definition's model want wait for trust now (for /agents)? */
static bool
subhost_model_held(void *session, const char *want, struct buf *why)
{
	struct agent *a = session;
	const char *all = getenv("CLAUDE_CODE_SUBAGENT_MODEL"), *v;
	struct buf reason = BUF_INIT(BUF_NOLIMIT);
	bool held;

	if (all != NULL && all[0] != '\0')
		return false;
	v = subtype_model_id(want, agent_proto(a) == STREAM_ANTHROPIC);
	if ((held = agent_project_model_held(a, v, &reason)))
		buf_printf(why, "%s %s", v, buf_cstr(&reason));
	buf_release(&reason);
	return held;
}

static int
subhost_log(struct conversation *cv, cJSON *rec)
{
	struct agent *a = conversation_agent(cv);

	if (session_error(agent_session(a)) != NULL) {
		cJSON_Delete(rec);
		return -1;
	}
	return session_append(agent_session(a), rec);
}

static void
subhost_charge(struct conversation *cv, double cost)
{
	conversation_add_cost(cv, cost);
}

static void
subhost_note_tool(struct conversation *cv, const char *name)
{
	record_turn_tool(cv, name);
}

static bool
subhost_is_main(struct conversation *cv)
{
	return cv == agent_main(conversation_agent(cv));
}

static void
subhost_inbox(struct conversation *cv, const char *text)
{
	inbox_add_text(cv, text);
}

static const struct sub_host subhost = {
	.is_main = subhost_is_main,
	.inbox = subhost_inbox,
	.note_tool = subhost_note_tool,
	.charge = subhost_charge,
	.log = subhost_log,
	.open = subhost_open,
	.submit = subhost_submit,
	.stop = subhost_stop,
	.close = subhost_close,
	.owner = subhost_owner,
	.bus = subhost_bus,
	.kick = subhost_kick,
	.model_for = subhost_model_for,
	.model_held = subhost_model_held,
};

void
subhost_start(struct agent *a)
{
	agent_set_subs(a, sub_new(agent_loop(a), &subhost, a, agent_config(a)->root, getenv("HOME")));
	if (sub_warnings(agent_subs(a)) != NULL)
		event_error(agent_bus(a), 0, "%s", sub_warnings(agent_subs(a)));
}
