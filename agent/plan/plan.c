/* The plan the pair shares: see plan.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "turn/turn.h"
#include "buf.h"
#include "config/config.h"
#include "context/conv.h"
#include "emit.h"
#include "event.h"
#include "ev.h"
#include "json.h"
#include "model/http.h"
#include "rules/perm.h"
#include "sched.h"
#include "xalloc.h"
#include "plan/plan.h"
#include "plantools.h"

struct plan {
	cJSON	*todos;		/* the current list, an array */
};

struct plan *
plan_new(void)
{
	struct plan *p = xcalloc(1, sizeof *p);

	p->todos = cJSON_CreateArray();
	return p;
}

void
plan_free(struct plan *p)
{
	if (p == NULL)
		return;
	cJSON_Delete(p->todos);
	free(p);
}

const cJSON *
plan_todos(const struct plan *p)
{
	return p->todos;
}

/* Keep list (taken) and tell the front ends. */
static void
plan_set(struct conversation *cv, cJSON *list, bool replay)
{
	cJSON *ev;

	cJSON_Delete(conversation_plan(cv)->todos);
	conversation_plan(cv)->todos = list;
	ev = event_new(conversation_bus(cv), "todos");
	cJSON_AddItemToObject(ev, "todos", cJSON_Duplicate(list, 1));
	if (replay)
		cJSON_AddBoolToObject(ev, "replay", true);
	event_emit(conversation_bus(cv), ev);
}

/* What the person sees in the approval request: the plan, or the questions. */
static void
plan_preview(const struct sched_call *c, struct buf *out)
{
	const cJSON *q, *o;

	if (strcmp(c->name, "exit_plan") == 0) {
		buf_puts(out, json_str(c->input, "plan", ""));
		return;
	}
	cJSON_ArrayForEach(q, json_get(c->input, "questions")) {
		buf_printf(out, "[%s] %s%s\n", json_str(q, "header", ""), json_str(q, "question", ""),
		    json_bool(q, "multiSelect", false) ? " (any of)" : "");
		cJSON_ArrayForEach(o, json_get(q, "options"))
			buf_printf(out, "  - %s: %s\n", json_str(o, "label", ""),
			    json_str(o, "description", ""));
	}
}

int
plan_gate(struct conversation *cv, struct sched_call *c, struct buf *why)
{
	struct buf preview = BUF_INIT(BUF_NOLIMIT);
	char *none[] = { NULL };
	bool plan = strcmp(c->name, "exit_plan") == 0;

	if (!plan && strcmp(c->name, "ask_user") != 0)
		return -1;
	buf_reset(why);
	if (plan && agent_mode(conversation_agent(cv)) != PERM_PLAN) {
		buf_printf(why, "not in plan mode (the mode is %s): no approval is needed, go on "
		    "with the work", perm_mode_name(agent_mode(conversation_agent(cv))));
		return SCHED_REFUSE;
	}
	if (!plan && plantools_check_questions(json_get(c->input, "questions"), why) == -1)
		return SCHED_REFUSE;
	if (!agent_interactive(conversation_agent(cv))) {
		buf_puts(why, plan ? "no person to ask: this run is headless, so nobody can approve "
		    "the plan; stay in plan mode and give the plan as your answer" :
		    "no person to ask: this run is headless; go on with your best judgement and "
		    "say which choice you made");
		emit_approval(conversation_bus(cv), c->id, "deny", "mode");
		return SCHED_REFUSE;
	}
	plan_preview(c, &preview);
	emit_approval_request(conversation_bus(cv), c->id, c->name, c->input, buf_cstr(&preview), preview.len,
	    agent_config(conversation_agent(cv))->root, plan ? "the plan waits for your approval" : "the model asks you", none);
	buf_release(&preview);
	return SCHED_ASK;
}

void
plan_call_done(struct conversation *cv, const struct sched_call *c)
{
	if (c->is_error || !c->ran)
		return;
	if (strcmp(c->name, "todo_write") == 0)
		plan_set(cv, cJSON_Duplicate(json_get(c->input, "todos"), 1), false);
	else if (strcmp(c->name, "exit_plan") == 0 && agent_mode(conversation_agent(cv)) == PERM_PLAN)
		agent_set_mode(conversation_agent(cv), PERM_ASK);	/* a front end that chose the mode has set it already */
}

/* The ids of todo_write calls whose result was not an error, in messages. */
static bool
plan_call_ok(const cJSON *messages, const char *id)
{
	const cJSON *m, *b;

	cJSON_ArrayForEach(m, messages)
		cJSON_ArrayForEach(b, json_get(m, "content"))
			if (strcmp(json_str(b, "type", ""), "tool_result") == 0 &&
			    strcmp(json_str(b, "tool_use_id", ""), id) == 0)
				return !json_bool(b, "is_error", false);
	return false;
}

cJSON *
plan_todos_of(const cJSON *messages)
{
	const cJSON *m, *b, *last = NULL;
	cJSON *noted = NULL;
	size_t n = strlen(PLAN_TODO_NOTE);

	cJSON_ArrayForEach(m, messages) {
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *type = json_str(b, "type", ""), *text = json_str(b, "text", "");

			if (strcmp(type, "tool_use") == 0 &&
			    strcmp(json_str(b, "name", ""), "todo_write") == 0 &&
			    cJSON_IsArray(json_get(json_get(b, "input"), "todos")) &&
			    plan_call_ok(messages, json_str(b, "id", ""))) {
				last = json_get(json_get(b, "input"), "todos");
				cJSON_Delete(noted);
				noted = NULL;
			} else if (strcmp(type, "text") == 0 && strncmp(text, PLAN_TODO_NOTE, n) == 0) {
				cJSON *j = cJSON_Parse(text + n);

				if (cJSON_IsArray(j)) {
					cJSON_Delete(noted);
					noted = j;
					last = NULL;
				} else
					cJSON_Delete(j);
			}
		}
	}
	if (noted != NULL)
		return noted;
	return last != NULL ? cJSON_Duplicate(last, 1) : cJSON_CreateArray();
}

void
plan_prompt_note(struct conversation *cv, cJSON *content)
{
	cJSON *b;

	if (agent_mode(conversation_agent(cv)) != PERM_PLAN)
		return;
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", "(plan mode: explore and plan read-only, no edits or "
	    "commands; when the plan is ready, present it with exit_plan for the user's approval)");
	cJSON_AddItemToArray(content, b);
}

void
plan_sync(struct conversation *cv, bool tell)
{
	if (tell) {
		plan_set(cv, plan_todos_of(conversation_conv(cv)->messages), true);
		return;
	}
	cJSON_Delete(conversation_plan(cv)->todos);
	conversation_plan(cv)->todos = plan_todos_of(conversation_conv(cv)->messages);
}

void
plan_compacted(struct conversation *cv)
{
	cJSON *have = plan_todos_of(conversation_conv(cv)->messages), *first, *content, *block;
	char *list;
	struct buf text = BUF_INIT(BUF_NOLIMIT);

	first = cJSON_GetArrayItem(conversation_conv(cv)->messages, 0);
	content = json_get(first, "content");
	if (cJSON_GetArraySize(conversation_plan(cv)->todos) == 0 || cJSON_Compare(have, conversation_plan(cv)->todos, true) ||
	    strcmp(json_str(first, "role", ""), "user") != 0) {
		cJSON_Delete(have);
		return;
	}
	cJSON_Delete(have);
	if (cJSON_IsString(content)) {
		block = cJSON_CreateObject();
		cJSON_AddStringToObject(block, "type", "text");
		cJSON_AddStringToObject(block, "text", content->valuestring);
		content = cJSON_CreateArray();
		cJSON_AddItemToArray(content, block);
		cJSON_ReplaceItemInObjectCaseSensitive(first, "content", content);
	}
	if (!cJSON_IsArray(content))
		return;
	list = cJSON_PrintUnformatted(conversation_plan(cv)->todos);
	buf_printf(&text, "%s%s", PLAN_TODO_NOTE, list);
	free(list);
	block = cJSON_CreateObject();
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", buf_cstr(&text));
	cJSON_AddItemToArray(content, block);
	buf_release(&text);
	conv_changed(conversation_conv(cv));
}
