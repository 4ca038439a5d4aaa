/* Claude Code's stream-json: see sjson.h. */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "buf.h"
#include "claude/claude.h"
#include "ccrun.h"
#include "config/config.h"
#include "ev.h"
#include "event.h"
#include "hooks.h"
#include "json.h"
#include "mcp/mcp.h"
#include "mcp/mcp_config.h"
#include "sjson.h"
#include "tool.h"
#include "wire.h"
#include "xalloc.h"
#include "web/web.h"

/* How long the output may take to drain at exit. */
#define SJSON_FLUSH_MS		1500

/* tandem's own events, passed on as system messages of the same subtype. */
static const char *const sjson_own[] = {
	"approval", "tool_progress", "cache_break", "compaction", "retry", "rewind",
	"context", "error", NULL
};

/* A can_use_tool request the host has not answered yet. */
struct sjson_ask {
	char			*request_id;
	char			*tool_id;
	char			*tool;		/* tandem's name */
	cJSON			*cc_input;	/* what the host was shown */
	struct sjson_ask	*next;
};

struct sjson {
	struct ev_loop		*loop;
	struct event_bus	*bus;
	struct agent		*agent;
	struct sjson_opts	 o;
	struct wire_out		*out;
	struct wire_in		*in;
	char			*session_id;
	char			*model;

	/* The model response being put together. */
	cJSON			*blocks;	/* its content so far */
	struct buf		 cur;		/* the text of the open text/thinking block */
	const char		*cur_kind;	/* "text", "thinking", NULL: none open */
	bool			 started;	/* message_start was sent (partial messages) */
	char			 msg_id[48];
	cJSON			*held;		/* user messages waiting for the assistant message */

	/* The turn. */
	bool			 in_turn;
	int64_t			 turn_ms;
	cJSON			*tools;		/* id -> {name, input} (Claude Code's) */
	cJSON			*denials;
	cJSON			*errors;
	int64_t			 u_in, u_out, u_cr, u_cw;
	double			 cost_before;

	/* The input side. */
	cJSON			*prompts;	/* waiting for the running turn */
	struct sjson_ask	*asks;
	unsigned		 ask_seq;
	size_t			 lineno;
	bool			 eof;
	cJSON			*denies;	/* tool ids to deny on the next loop turn */
	uint64_t		 deny_timer;
	bool			 quit;
	int			 signo;
	bool			 done;		/* a one-prompt run's result came */
	bool			 failed;
	bool			 interrupted;
};

static void sjson_emit(struct sjson *, cJSON *msg);

/* --- output -------------------------------------------------------------- */

/* A message of type with the fields every message carries. */
static cJSON *
sjson_msg(struct sjson *s, const char *type)
{
	cJSON *m = cJSON_CreateObject();
	char uuid[37];

	cJSON_AddStringToObject(m, "type", type);
	wire_uuid(uuid);
	cJSON_AddStringToObject(m, "uuid", uuid);
	cJSON_AddStringToObject(m, "session_id", s->session_id != NULL ? s->session_id : "");
	cJSON_AddNullToObject(m, "parent_tool_use_id");
	return m;
}

static void
sjson_emit(struct sjson *s, cJSON *msg)
{
	/* --output-format json: Claude Code's one result object, nothing before it. */
	if (s->o.result_only && strcmp(json_str(msg, "type", ""), "result") != 0) {
		cJSON_Delete(msg);
		return;
	}
	wire_out_json(s->out, msg);
	cJSON_Delete(msg);
}

static void
sjson_stream_event(struct sjson *s, cJSON *event)
{
	cJSON *m;

	if (!s->o.partial) {
		cJSON_Delete(event);
		return;
	}
	m = sjson_msg(s, "stream_event");
	cJSON_AddItemToObject(m, "event", event);
	sjson_emit(s, m);
}

static cJSON *
sjson_usage(int64_t in, int64_t out, int64_t cr, int64_t cw)
{
	cJSON *u = cJSON_CreateObject();

	cJSON_AddNumberToObject(u, "input_tokens", (double)in);
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens", (double)cw);
	cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)cr);
	cJSON_AddNumberToObject(u, "output_tokens", (double)out);
	return u;
}

/* Is name one of the comma-separated list's items? */
static bool
sjson_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p != NULL && *p != '\0'; p += strcspn(p, ",")) {
		p += strspn(p, ", ");
		if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
			return true;
	}
	return false;
}

static void
sjson_init(struct sjson *s)
{
	cJSON *m = sjson_msg(s, "system"), *tools, *empty;
	size_t i;

	cJSON_AddStringToObject(m, "subtype", "init");
	cJSON_AddStringToObject(m, "cwd", s->o.cfg->root);
	tools = cJSON_AddArrayToObject(m, "tools");
	for (i = 0; tool_table[i] != NULL; i++) {
		const char *name = tool_table[i]->name;
		const char *dis = s->o.cfg->disabled_tools;

		if (sjson_listed(dis, name) || (strcmp(name, "skill") == 0 && !claude_has_skills(s->o.cfg)))
			continue;
		cJSON_AddItemToArray(tools, cJSON_CreateString(wire_cc_tool(name)));
	}
	web_cc_tool_names(s->o.cfg, tools);
	mcp_servers_json(s->agent != NULL ? agent_mcp(s->agent) : NULL,
	    cJSON_AddArrayToObject(m, "mcp_servers"));
	cJSON_AddStringToObject(m, "model", s->model != NULL ? s->model : s->o.cfg->model);
	cJSON_AddStringToObject(m, "permissionMode", s->agent != NULL ?
	    hooks_mode_name(agent_mode(s->agent)) : "default");
	empty = cJSON_AddArrayToObject(m, "slash_commands");
	(void)empty;
	cJSON_AddStringToObject(m, "apiKeySource", "ANTHROPIC_API_KEY");
	cJSON_AddStringToObject(m, "claude_code_version", "tandem " PACKAGE_VERSION);
	cJSON_AddStringToObject(m, "output_style", "default");
	cJSON_AddArrayToObject(m, "agents");
	cJSON_AddArrayToObject(m, "skills");
	cJSON_AddArrayToObject(m, "plugins");
	sjson_emit(s, m);
}

/* --- the assistant message ----------------------------------------------- */

static void
sjson_close_block(struct sjson *s)
{
	cJSON *b, *ev;

	if (s->cur_kind == NULL)
		return;
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", s->cur_kind);
	if (strcmp(s->cur_kind, "thinking") == 0) {
		json_add_str_n(b, "thinking", buf_cstr(&s->cur), s->cur.len);
		cJSON_AddStringToObject(b, "signature", "");
	} else {
		json_add_str_n(b, "text", buf_cstr(&s->cur), s->cur.len);
	}
	cJSON_AddItemToArray(s->blocks, b);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "type", "content_block_stop");
	cJSON_AddNumberToObject(ev, "index", cJSON_GetArraySize(s->blocks) - 1);
	sjson_stream_event(s, ev);
	buf_reset(&s->cur);
	s->cur_kind = NULL;
}

/* A message id in the API's shape: "msg_" and 24 hex digits. */
static void
sjson_msg_id(struct sjson *s)
{
	char uuid[37];
	size_t i, j = 4;

	wire_uuid(uuid);
	memcpy(s->msg_id, "msg_", 4);
	for (i = 0; uuid[i] != '\0' && j < 28; i++)
		if (uuid[i] != '-')
			s->msg_id[j++] = uuid[i];
	s->msg_id[j] = '\0';
}

static void
sjson_start_message(struct sjson *s)
{
	cJSON *ev, *msg;

	if (s->started)
		return;
	s->started = true;
	sjson_msg_id(s);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "type", "message_start");
	msg = cJSON_AddObjectToObject(ev, "message");
	cJSON_AddStringToObject(msg, "id", s->msg_id);
	cJSON_AddStringToObject(msg, "type", "message");
	cJSON_AddStringToObject(msg, "role", "assistant");
	cJSON_AddStringToObject(msg, "model", s->model != NULL ? s->model : "");
	cJSON_AddArrayToObject(msg, "content");
	cJSON_AddNullToObject(msg, "stop_reason");
	cJSON_AddItemToObject(msg, "usage", sjson_usage(0, 0, 0, 0));
	sjson_stream_event(s, ev);
}

/* Start a block of kind (text/thinking/tool_use) for the partial stream. */
static void
sjson_block_start(struct sjson *s, cJSON *block)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "type", "content_block_start");
	cJSON_AddNumberToObject(ev, "index", cJSON_GetArraySize(s->blocks));
	cJSON_AddItemToObject(ev, "content_block", block);
	sjson_stream_event(s, ev);
}

static void
sjson_delta(struct sjson *s, const char *kind, const char *text)
{
	cJSON *ev, *d, *b;
	bool thinking = strcmp(kind, "thinking") == 0;

	sjson_start_message(s);
	if (s->cur_kind != NULL && strcmp(s->cur_kind, kind) != 0)
		sjson_close_block(s);
	if (s->cur_kind == NULL) {
		s->cur_kind = thinking ? "thinking" : "text";
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", s->cur_kind);
		cJSON_AddStringToObject(b, thinking ? "thinking" : "text", "");
		if (thinking)
			cJSON_AddStringToObject(b, "signature", "");
		sjson_block_start(s, b);
	}
	buf_puts(&s->cur, text);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "type", "content_block_delta");
	cJSON_AddNumberToObject(ev, "index", cJSON_GetArraySize(s->blocks));
	d = cJSON_AddObjectToObject(ev, "delta");
	cJSON_AddStringToObject(d, "type", thinking ? "thinking_delta" : "text_delta");
	cJSON_AddStringToObject(d, thinking ? "thinking" : "text", text);
	sjson_stream_event(s, ev);
}

static void
sjson_tool_use(struct sjson *s, const cJSON *ev)
{
	const char *id = json_str(ev, "id", ""), *name = json_str(ev, "name", "");
	cJSON *b, *in = wire_cc_input(s->o.cfg->root, name, json_get(ev, "input"));
	cJSON *start, *d, *de, *rec;
	char *json;

	sjson_start_message(s);
	sjson_close_block(s);
	start = cJSON_CreateObject();
	cJSON_AddStringToObject(start, "type", "tool_use");
	cJSON_AddStringToObject(start, "id", id);
	cJSON_AddStringToObject(start, "name", wire_cc_tool(name));
	cJSON_AddObjectToObject(start, "input");
	sjson_block_start(s, start);
	json = json_print(in);
	de = cJSON_CreateObject();
	cJSON_AddStringToObject(de, "type", "content_block_delta");
	cJSON_AddNumberToObject(de, "index", cJSON_GetArraySize(s->blocks));
	d = cJSON_AddObjectToObject(de, "delta");
	cJSON_AddStringToObject(d, "type", "input_json_delta");
	cJSON_AddStringToObject(d, "partial_json", json);
	free(json);
	sjson_stream_event(s, de);
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "tool_use");
	cJSON_AddStringToObject(b, "id", id);
	cJSON_AddStringToObject(b, "name", wire_cc_tool(name));
	cJSON_AddItemToObject(b, "input", cJSON_Duplicate(in, true));
	cJSON_AddItemToArray(s->blocks, b);
	de = cJSON_CreateObject();
	cJSON_AddStringToObject(de, "type", "content_block_stop");
	cJSON_AddNumberToObject(de, "index", cJSON_GetArraySize(s->blocks) - 1);
	sjson_stream_event(s, de);
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "name", name);
	cJSON_AddItemToObject(rec, "input", in);
	cJSON_DeleteItemFromObjectCaseSensitive(s->tools, id);
	cJSON_AddItemToObject(s->tools, id, rec);
}

/* The model response is complete (its usage came, or the turn ended): say it. */
static void
sjson_flush_message(struct sjson *s, const cJSON *usage)
{
	cJSON *m, *msg, *b, *ev, *d;
	bool tools = false;
	const char *stop;

	sjson_close_block(s);
	if (cJSON_GetArraySize(s->blocks) > 0 || usage != NULL) {
		cJSON_ArrayForEach(b, s->blocks)
			if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
				tools = true;
		stop = tools ? "tool_use" : "end_turn";
		if (s->msg_id[0] == '\0')
			sjson_msg_id(s);
		if (s->started) {
			ev = cJSON_CreateObject();
			cJSON_AddStringToObject(ev, "type", "message_delta");
			d = cJSON_AddObjectToObject(ev, "delta");
			cJSON_AddStringToObject(d, "stop_reason", stop);
			cJSON_AddNullToObject(d, "stop_sequence");
			cJSON_AddItemToObject(ev, "usage", sjson_usage(json_int(usage, "input_tokens", 0),
			    json_int(usage, "output_tokens", 0), json_int(usage, "cache_read_input_tokens", 0),
			    json_int(usage, "cache_creation_input_tokens", 0)));
			sjson_stream_event(s, ev);
			ev = cJSON_CreateObject();
			cJSON_AddStringToObject(ev, "type", "message_stop");
			sjson_stream_event(s, ev);
		}
		m = sjson_msg(s, "assistant");
		msg = cJSON_AddObjectToObject(m, "message");
		cJSON_AddStringToObject(msg, "id", s->msg_id);
		cJSON_AddStringToObject(msg, "type", "message");
		cJSON_AddStringToObject(msg, "role", "assistant");
		cJSON_AddStringToObject(msg, "model", s->model != NULL ? s->model : "");
		cJSON_AddItemToObject(msg, "content", s->blocks);
		s->blocks = cJSON_CreateArray();
		cJSON_AddStringToObject(msg, "stop_reason", stop);
		cJSON_AddNullToObject(msg, "stop_sequence");
		cJSON_AddItemToObject(msg, "usage", sjson_usage(json_int(usage, "input_tokens", 0),
		    json_int(usage, "output_tokens", 0), json_int(usage, "cache_read_input_tokens", 0),
		    json_int(usage, "cache_creation_input_tokens", 0)));
		sjson_emit(s, m);
	}
	s->started = false;
	s->msg_id[0] = '\0';
	while (cJSON_GetArraySize(s->held) > 0)
		sjson_emit(s, cJSON_DetachItemFromArray(s->held, 0));
}

/*
 * A subagent's call, result or answer, as Claude Code shows a subagent's
 * messages: whole messages whose parent_tool_use_id is the agent call's.
 */
static void
sjson_subagent(struct sjson *s, const cJSON *ev)
{
	const char *state = json_str(ev, "state", ""), *parent = json_str(ev, "parent_tool_use_id", "");
	const cJSON *in = json_get(ev, "event");
	cJSON *m, *msg, *content, *b;
	char uuid[37];

	if (strcmp(state, "tool") == 0 || (strcmp(state, "end") == 0 && json_str(ev, "answer", NULL) != NULL)) {
		m = sjson_msg(s, "assistant");
		msg = cJSON_AddObjectToObject(m, "message");
		wire_uuid(uuid);
		cJSON_AddStringToObject(msg, "id", uuid);
		cJSON_AddStringToObject(msg, "type", "message");
		cJSON_AddStringToObject(msg, "role", "assistant");
		cJSON_AddStringToObject(msg, "model", s->model != NULL ? s->model : "");
		content = cJSON_AddArrayToObject(msg, "content");
		b = cJSON_CreateObject();
		if (strcmp(state, "tool") == 0) {
			cJSON_AddStringToObject(b, "type", "tool_use");
			cJSON_AddStringToObject(b, "id", json_str(in, "id", ""));
			cJSON_AddStringToObject(b, "name", wire_cc_tool(json_str(in, "name", "")));
			cJSON_AddItemToObject(b, "input", wire_cc_input(s->o.cfg->root, json_str(in, "name", ""),
			    json_get(in, "input")));
		} else {
			cJSON_AddStringToObject(b, "type", "text");
			cJSON_AddStringToObject(b, "text", json_str(ev, "answer", ""));
		}
		cJSON_AddItemToArray(content, b);
		cJSON_AddStringToObject(msg, "stop_reason", strcmp(state, "tool") == 0 ? "tool_use" : "end_turn");
		cJSON_AddNullToObject(msg, "stop_sequence");
		cJSON_AddItemToObject(msg, "usage", sjson_usage(0, 0, 0, 0));
	} else if (strcmp(state, "tool_result") == 0) {
		m = sjson_msg(s, "user");
		msg = cJSON_AddObjectToObject(m, "message");
		cJSON_AddStringToObject(msg, "role", "user");
		content = cJSON_AddArrayToObject(msg, "content");
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "tool_result");
		cJSON_AddStringToObject(b, "tool_use_id", json_str(in, "id", ""));
		cJSON_AddStringToObject(b, "content", json_str(in, "content", ""));
		cJSON_AddBoolToObject(b, "is_error", json_bool(in, "is_error", false));
		cJSON_AddItemToArray(content, b);
	} else
		return;
	cJSON_ReplaceItemInObjectCaseSensitive(m, "parent_tool_use_id", cJSON_CreateString(parent));
	sjson_emit(s, m);
}

/* --- the host's approvals ------------------------------------------------ */

static void
sjson_ask_free(struct sjson_ask *k)
{
	free(k->request_id);
	free(k->tool_id);
	free(k->tool);
	cJSON_Delete(k->cc_input);
	free(k);
}

static struct sjson_ask *
sjson_ask_take(struct sjson *s, const char *request_id, const char *tool_id)
{
	struct sjson_ask **p, *k;

	for (p = &s->asks; (k = *p) != NULL; p = &k->next)
		if ((request_id != NULL && strcmp(k->request_id, request_id) == 0) ||
		    (tool_id != NULL && strcmp(k->tool_id, tool_id) == 0)) {
			*p = k->next;
			k->next = NULL;
			return k;
		}
	return NULL;
}

static void
sjson_ask_host(struct sjson *s, const cJSON *ev)
{
	struct sjson_ask *k = xcalloc(1, sizeof *k);
	const char *name = json_str(ev, "name", "");
	cJSON *m = cJSON_CreateObject(), *r, *sugg, *rule;
	const cJSON *a;
	char id[64];

	snprintf(id, sizeof id, "tandem-%u", ++s->ask_seq);
	k->request_id = xstrdup(id);
	k->tool_id = xstrdup(json_str(ev, "id", ""));
	k->tool = xstrdup(name);
	k->cc_input = wire_cc_input(s->o.cfg->root, name, json_get(ev, "input"));
	k->next = s->asks;
	s->asks = k;
	cJSON_AddStringToObject(m, "type", "control_request");
	cJSON_AddStringToObject(m, "request_id", id);
	r = cJSON_AddObjectToObject(m, "request");
	cJSON_AddStringToObject(r, "subtype", "can_use_tool");
	cJSON_AddStringToObject(r, "tool_name", wire_cc_tool(name));
	cJSON_AddItemToObject(r, "input", cJSON_Duplicate(k->cc_input, true));
	cJSON_AddStringToObject(r, "tool_use_id", k->tool_id);
	cJSON_AddStringToObject(r, "decision_reason", json_str(ev, "reason", ""));
	cJSON_AddStringToObject(r, "description", json_str(ev, "preview", ""));
	sugg = cJSON_AddArrayToObject(r, "permission_suggestions");
	cJSON_ArrayForEach(a, json_get(ev, "always")) {
		cJSON *rules;

		if (!cJSON_IsString(a))
			continue;
		rule = cJSON_CreateObject();
		cJSON_AddStringToObject(rule, "type", "addRules");
		rules = cJSON_AddArrayToObject(rule, "rules");
		cJSON_AddItemToArray(rules, cJSON_CreateString(a->valuestring));
		cJSON_AddStringToObject(rule, "behavior", "allow");
		cJSON_AddStringToObject(rule, "destination", "session");
		cJSON_AddItemToArray(sugg, rule);
	}
	wire_out_json(s->out, m);
	cJSON_Delete(m);
}

/* The host no longer needs to answer for tool_id (it got its result). */
static void
sjson_ask_cancel(struct sjson *s, const char *tool_id)
{
	struct sjson_ask *k = sjson_ask_take(s, NULL, tool_id);
	cJSON *m;

	if (k == NULL)
		return;
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "type", "control_cancel_request");
	cJSON_AddStringToObject(m, "request_id", k->request_id);
	wire_out_json(s->out, m);
	cJSON_Delete(m);
	sjson_ask_free(k);
}

/* The host's answer to one of our can_use_tool requests. */
static void
sjson_host_answer(struct sjson *s, const cJSON *resp)
{
	struct sjson_ask *k = sjson_ask_take(s, json_str(resp, "request_id", ""), NULL);
	const cJSON *r = json_get(resp, "response");
	const char *behavior = json_str(r, "behavior", "");

	if (k == NULL)
		return;
	if (s->agent == NULL) {
		sjson_ask_free(k);
		return;
	}
	if (strcmp(json_str(resp, "subtype", ""), "success") != 0 ||
	    (strcmp(behavior, "allow") != 0 && strcmp(behavior, "deny") != 0)) {
		struct buf why = BUF_INIT(4096);

		buf_printf(&why, "the host could not answer the approval: %s",
		    json_str(resp, "error", "its answer was neither allow nor deny"));
		agent_answer(s->agent, k->tool_id, APPROVAL_DENY, buf_cstr(&why), NULL);
		buf_release(&why);
	} else if (strcmp(behavior, "deny") == 0) {
		agent_answer(s->agent, k->tool_id, APPROVAL_DENY, json_str(r, "message", NULL), NULL);
		if (json_bool(r, "interrupt", false))
			agent_interrupt(s->agent);
	} else {
		const cJSON *upd = json_get(r, "updatedInput");

		if (cJSON_IsObject(upd) && !cJSON_Compare(upd, k->cc_input, true)) {
			cJSON *in = wire_tandem_input(s->o.cfg->root, k->tool, upd);
			struct buf why = BUF_INIT(4096);

			/* A changed input is checked against the rules again, as a hook's is. */
			agent_answer_updated(s->agent, k->tool_id, in, &why);
			buf_release(&why);
			cJSON_Delete(in);
		} else {
			agent_answer(s->agent, k->tool_id, APPROVAL_ALLOW, NULL, NULL);
		}
	}
	sjson_ask_free(k);
}

/* The calls nobody can approve any more, denied on the next loop turn (not inside the emit). */
static void
sjson_deny_now(struct ev_loop *loop, void *arg)
{
	struct sjson *s = arg;
	cJSON *id;

	(void)loop;
	s->deny_timer = 0;
	while (cJSON_GetArraySize(s->denies) > 0) {
		id = cJSON_DetachItemFromArray(s->denies, 0);
		if (s->agent != NULL)
			agent_answer(s->agent, id->valuestring, APPROVAL_DENY,
			    "nobody can approve it: the host's input has ended", NULL);
		cJSON_Delete(id);
	}
}

static void
sjson_deny_later(struct sjson *s, const char *id)
{
	cJSON_AddItemToArray(s->denies, cJSON_CreateString(id));
	if (s->deny_timer == 0)
		s->deny_timer = ev_timer_add(s->loop, 0, sjson_deny_now, s);
}

/* --- the event stream ---------------------------------------------------- */

static bool
sjson_is_own(const char *type)
{
	size_t i;

	for (i = 0; sjson_own[i] != NULL; i++)
		if (strcmp(sjson_own[i], type) == 0)
			return true;
	return false;
}

static void
sjson_system(struct sjson *s, const cJSON *ev, const char *subtype)
{
	cJSON *m = sjson_msg(s, "system"), *c;
	const cJSON *f;

	cJSON_AddStringToObject(m, "subtype", subtype);
	cJSON_ArrayForEach(f, ev) {
		if (strcmp(f->string, "type") == 0 || json_get(m, f->string) != NULL)
			continue;
		c = cJSON_Duplicate(f, true);
		cJSON_AddItemToObject(m, f->string, c);
	}
	sjson_emit(s, m);
}

static void
sjson_tool_result(struct sjson *s, const cJSON *ev)
{
	const char *id = json_str(ev, "id", "");
	cJSON *m = sjson_msg(s, "user"), *msg, *content, *b;

	sjson_ask_cancel(s, id);
	msg = cJSON_AddObjectToObject(m, "message");
	cJSON_AddStringToObject(msg, "role", "user");
	content = cJSON_AddArrayToObject(msg, "content");
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "tool_result");
	cJSON_AddStringToObject(b, "tool_use_id", id);
	cJSON_AddStringToObject(b, "content", json_str(ev, "content", ""));
	cJSON_AddBoolToObject(b, "is_error", json_bool(ev, "is_error", false));
	cJSON_AddItemToArray(content, b);
	cJSON_AddStringToObject(m, "tool_use_result", json_str(ev, "content", ""));
	/* A result may be ready before the response that asked for it is complete. */
	if (cJSON_GetArraySize(s->blocks) > 0 || s->cur_kind != NULL)
		cJSON_AddItemToArray(s->held, m);
	else
		sjson_emit(s, m);
}

static void
sjson_denial(struct sjson *s, const cJSON *ev)
{
	const char *id = json_str(ev, "id", "");
	const cJSON *t = json_get(s->tools, id);
	cJSON *d;

	if (strcmp(json_str(ev, "decision", ""), "deny") != 0)
		return;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "tool_name", wire_cc_tool(json_str(t, "name", "")));
	cJSON_AddStringToObject(d, "tool_use_id", id);
	cJSON_AddItemToObject(d, "tool_input", t != NULL ? cJSON_Duplicate(json_get(t, "input"), true) :
	    cJSON_CreateObject());
	cJSON_AddItemToArray(s->denials, d);
}

static void
sjson_reset_turn(struct sjson *s)
{
	cJSON_Delete(s->tools);
	cJSON_Delete(s->denials);
	cJSON_Delete(s->errors);
	s->tools = cJSON_CreateObject();
	s->denials = cJSON_CreateArray();
	s->errors = cJSON_CreateArray();
	s->u_in = s->u_out = s->u_cr = s->u_cw = 0;
}

static void
sjson_result(struct sjson *s, const cJSON *ev)
{
	cJSON *m = sjson_msg(s, "result"), *mu, *one;
	const cJSON *u = json_get(ev, "usage");
	const char *stop = json_str(ev, "stop_reason", "");
	bool is_error = json_bool(ev, "is_error", false) || strcmp(stop, "interrupted") == 0;
	int turns = (int)json_int(ev, "turns", 0);
	double cost = json_num(u, "cost_usd", 0);
	const char *subtype = !is_error ? "success" :
	    turns >= s->o.cfg->max_turns && strcmp(stop, "error") == 0 ? "error_max_turns" :
	    "error_during_execution";
	struct buf why = BUF_INIT(BUF_NOLIMIT);
	cJSON *structured = NULL;
	bool failed = json_bool(ev, "is_error", false);

	if (ccrun_over_budget(s->o.run)) {
		subtype = "error_max_budget_usd";
		ccrun_budget_message(s->o.run, &why);
		is_error = failed = true;
		stop = "max_budget_usd";
	} else if (!is_error && ccrun_has_schema(s->o.run) &&
	    (structured = ccrun_structured(s->o.run, json_str(ev, "text", ""), &why)) == NULL) {
		subtype = "error_max_structured_output_retries";
		is_error = failed = true;
	}
	if (why.len > 0)
		cJSON_AddItemToArray(s->errors, cJSON_CreateString(buf_cstr(&why)));
	buf_release(&why);
	sjson_flush_message(s, NULL);
	cJSON_AddStringToObject(m, "subtype", subtype);
	cJSON_AddBoolToObject(m, "is_error", is_error);
	cJSON_AddNumberToObject(m, "duration_ms", (double)(ev_now_ms() - s->turn_ms));
	cJSON_AddNumberToObject(m, "duration_api_ms", (double)(ev_now_ms() - s->turn_ms));
	cJSON_AddNumberToObject(m, "num_turns", turns);
	cJSON_AddStringToObject(m, "result", json_str(ev, "text", ""));
	cJSON_AddStringToObject(m, "stop_reason", stop);
	cJSON_AddNumberToObject(m, "total_cost_usd", cost);
	cJSON_AddItemToObject(m, "usage", sjson_usage(s->u_in, s->u_out, s->u_cr, s->u_cw));
	mu = cJSON_AddObjectToObject(m, "modelUsage");
	one = cJSON_AddObjectToObject(mu, s->model != NULL ? s->model : s->o.cfg->model);
	cJSON_AddNumberToObject(one, "inputTokens", json_num(u, "input_tokens", 0));
	cJSON_AddNumberToObject(one, "outputTokens", json_num(u, "output_tokens", 0));
	cJSON_AddNumberToObject(one, "cacheReadInputTokens", json_num(u, "cache_read_input_tokens", 0));
	cJSON_AddNumberToObject(one, "cacheCreationInputTokens",
	    json_num(u, "cache_creation_input_tokens", 0));
	cJSON_AddNumberToObject(one, "webSearchRequests", 0);
	cJSON_AddNumberToObject(one, "costUSD", cost);
	cJSON_AddItemToObject(m, "permission_denials", s->denials);
	s->denials = cJSON_CreateArray();
	if (structured != NULL)
		cJSON_AddItemToObject(m, "structured_output", structured);
	if (is_error) {
		if (cJSON_GetArraySize(s->errors) == 0)
			cJSON_AddItemToArray(s->errors, cJSON_CreateString(
			    strcmp(stop, "interrupted") == 0 ? "interrupted" : "the turn failed"));
		cJSON_AddItemToObject(m, "errors", s->errors);
		s->errors = cJSON_CreateArray();
	}
	sjson_emit(s, m);
	s->in_turn = false;
	s->failed = failed;
	s->interrupted = strcmp(stop, "interrupted") == 0;
}

static void sjson_next_prompt(struct sjson *);

static void
sjson_on_event(const cJSON *ev, void *arg)
{
	struct sjson *s = arg;
	const char *type = json_str(ev, "type", "");

	if (json_bool(ev, "replay", false))
		return;
	if (strcmp(type, "session") == 0) {
		free(s->session_id);
		s->session_id = xstrdup(json_str(ev, "id", ""));
		free(s->model);
		s->model = xstrdup(json_str(ev, "model", ""));
	} else if (strcmp(type, "turn_start") == 0) {
		s->in_turn = true;
		s->turn_ms = ev_now_ms();
		sjson_reset_turn(s);
		if (s->agent != NULL && agent_model(s->agent) != NULL) {
			free(s->model);
			s->model = xstrdup(agent_model(s->agent));
		}
		sjson_init(s);
	} else if (strcmp(type, "text") == 0 || strcmp(type, "thinking") == 0) {
		sjson_delta(s, type, json_str(ev, "text", ""));
	} else if (strcmp(type, "tool_use") == 0) {
		sjson_tool_use(s, ev);
	} else if (strcmp(type, "usage") == 0) {
		s->u_in += json_int(ev, "input_tokens", 0);
		s->u_out += json_int(ev, "output_tokens", 0);
		s->u_cr += json_int(ev, "cache_read_input_tokens", 0);
		s->u_cw += json_int(ev, "cache_creation_input_tokens", 0);
		sjson_flush_message(s, ev);
	} else if (strcmp(type, "tool_result") == 0) {
		sjson_tool_result(s, ev);
	} else if (strcmp(type, "subagent") == 0) {
		sjson_subagent(s, ev);
	} else if (strcmp(type, "approval_request") == 0) {
		if (s->o.host_permissions && !s->eof)
			sjson_ask_host(s, ev);
		else
			sjson_deny_later(s, json_str(ev, "id", ""));
	} else if (strcmp(type, "result") == 0) {
		/* An answer the schema refuses goes back to the model: the run goes on. */
		if (ccrun_retry(s->o.run, ev))
			return;
		sjson_result(s, ev);
		s->done = true;
		if (s->o.input_stream)
			sjson_next_prompt(s);
		else
			ev_break(s->loop);
		return;
	}
	if (strcmp(type, "approval") == 0)
		sjson_denial(s, ev);
	if (strcmp(type, "error") == 0 && json_bool(ev, "fatal", false))
		cJSON_AddItemToArray(s->errors, cJSON_CreateString(json_str(ev, "message", "")));
	if (sjson_is_own(type))
		sjson_system(s, ev, type);
}

/* --- input --------------------------------------------------------------- */

static void
sjson_control_ok(struct sjson *s, const char *request_id, cJSON *response)
{
	cJSON *m = cJSON_CreateObject(), *r;

	cJSON_AddStringToObject(m, "type", "control_response");
	r = cJSON_AddObjectToObject(m, "response");
	cJSON_AddStringToObject(r, "subtype", "success");
	cJSON_AddStringToObject(r, "request_id", request_id);
	cJSON_AddItemToObject(r, "response", response != NULL ? response : cJSON_CreateObject());
	wire_out_json(s->out, m);
	cJSON_Delete(m);
}

static void
sjson_control_error(struct sjson *s, const char *request_id, const char *msg)
{
	cJSON *m = cJSON_CreateObject(), *r;
	struct buf e = BUF_INIT(4096);

	buf_puts(&e, msg);
	cJSON_AddStringToObject(m, "type", "control_response");
	r = cJSON_AddObjectToObject(m, "response");
	cJSON_AddStringToObject(r, "subtype", "error");
	cJSON_AddStringToObject(r, "request_id", request_id);
	cJSON_AddStringToObject(r, "error", buf_cstr(&e));
	wire_out_json(s->out, m);
	cJSON_Delete(m);
	buf_release(&e);
}

typedef int sjson_control_fn(struct sjson *, const cJSON *req, cJSON **resp, struct buf *err);

/*
 * initialize's mcpServers (Claude Code's --mcp-config shape, sent there by
 * an SDK under --await-initialize) join the configuration as one more
 * --mcp-config entry and the servers start again.  true when at least one
 * could be configured (or none was given); else false and the reasons in why.
 */
static bool
sjson_mcp_servers(struct sjson *s, const cJSON *servers, struct buf *why)
{
	struct mcp_config mc;
	cJSON *doc;
	char *text;
	size_t i, good = 0;

	if (!cJSON_IsObject(servers)) {
		buf_puts(why, "initialize: \"mcpServers\" must be an object of named servers");
		return false;
	}
	doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "mcpServers", cJSON_Duplicate(servers, 1));
	mcp_config_init(&mc);
	if (mcp_config_add_json(&mc, doc, "initialize", false, why) == 0)
		for (i = 0; i < mc.n; i++) {
			if (mc.v[i].error == NULL)
				good++;
			else
				buf_printf(why, "%s%s", why->len > 0 ? "; " : "", mc.v[i].error);
		}
	if (mc.n == 0 && why->len == 0) {
		mcp_config_release(&mc);
		cJSON_Delete(doc);
		return true;	/* none given, none missing */
	}
	mcp_config_release(&mc);
	if (good == 0 || s->agent == NULL) {
		if (why->len == 0)
			buf_puts(why, "initialize: the session has not started");
		cJSON_Delete(doc);
		return false;
	}
	text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (s->o.cfg->mcp_flags == NULL)
		s->o.cfg->mcp_flags = cJSON_CreateArray();
	cJSON_AddItemToArray(s->o.cfg->mcp_flags, cJSON_CreateString(text));
	cJSON_free(text);
	if (agent_mcp_restart(s->agent) == -1) {
		buf_printf(why, "%sinitialize: a turn is running; the servers start after it",
		    why->len > 0 ? "; " : "");
		return false;
	}
	if (why->len > 0)
		fprintf(stderr, "tandem: %s\n", buf_cstr(why));
	return true;
}

static int
sjson_c_initialize(struct sjson *s, const cJSON *req, cJSON **resp, struct buf *err)
{
	cJSON *r = cJSON_CreateObject(), *models, *one;
	struct buf extra = BUF_INIT(1024 * 1024);
	const cJSON *p;
	const char *model = s->model != NULL ? s->model : s->o.cfg->model;

	(void)err;
	/* A custom system prompt and its appendix join tandem's own (they cannot replace it). */
	cJSON_ArrayForEach(p, json_get(req, "systemPrompt"))
		if (cJSON_IsString(p) && p->valuestring[0] != '\0')
			buf_printf(&extra, "%s%s", extra.len > 0 ? "\n\n" : "", p->valuestring);
	p = json_get(req, "systemPrompt");
	if (cJSON_IsString(p) && p->valuestring[0] != '\0')
		buf_printf(&extra, "%s%s", extra.len > 0 ? "\n\n" : "", p->valuestring);
	p = json_get(req, "appendSystemPrompt");
	if (cJSON_IsString(p) && p->valuestring[0] != '\0')
		buf_printf(&extra, "%s%s", extra.len > 0 ? "\n\n" : "", p->valuestring);
	if (extra.len > 0 && s->agent != NULL)
		agent_set_host_prompt(s->agent, buf_cstr(&extra));
	buf_release(&extra);
	cJSON_AddArrayToObject(r, "commands");
	cJSON_AddArrayToObject(r, "agents");
	cJSON_AddStringToObject(r, "output_style", "default");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "available_output_styles"),
	    cJSON_CreateString("default"));
	models = cJSON_AddArrayToObject(r, "models");
	one = cJSON_CreateObject();
	cJSON_AddStringToObject(one, "value", model);
	cJSON_AddStringToObject(one, "displayName", model);
	cJSON_AddStringToObject(one, "description", "the model tandem is configured with");
	cJSON_AddItemToArray(models, one);
	cJSON_AddObjectToObject(r, "account");
	cJSON_AddStringToObject(r, "cwd", s->o.cfg->root);
	cJSON_AddStringToObject(r, "session_id", s->session_id != NULL ? s->session_id : "");
	cJSON_AddNumberToObject(r, "pid", (double)getpid());
	p = json_get(req, "mcpServers");
	if (p != NULL) {
		struct buf why = BUF_INIT(8192);
		bool ok = sjson_mcp_servers(s, p, &why);

		cJSON_AddBoolToObject(r, "mcp_servers_applied", ok);
		if (!ok) {
			cJSON_AddStringToObject(r, "mcp_servers_error", buf_cstr(&why));
			fprintf(stderr, "tandem: the MCP servers of initialize were not started: %s\n",
			    buf_cstr(&why));
		}
		buf_release(&why);
	}
	*resp = r;
	return 0;
}

static int
sjson_c_interrupt(struct sjson *s, const cJSON *req, cJSON **resp, struct buf *err)
{
	(void)req;
	(void)resp;
	(void)err;
	if (s->agent != NULL && agent_busy(s->agent))
		agent_interrupt(s->agent);
	return 0;
}

static int
sjson_c_mode(struct sjson *s, const cJSON *req, cJSON **resp, struct buf *err)
{
	const char *name = json_str(req, "mode", "");
	enum perm_mode m;

	(void)resp;
	if (strcmp(name, "dontAsk") == 0)
		name = "default";
	if (perm_mode_parse(name, &m) == -1) {
		buf_printf(err, "unknown permission mode \"%s\" (default, acceptEdits, plan, "
		    "bypassPermissions)", name);
		return -1;
	}
	if (s->agent != NULL)
		agent_set_mode(s->agent, m);
	return 0;
}

static int
sjson_c_model(struct sjson *s, const cJSON *req, cJSON **resp, struct buf *err)
{
	const char *model = json_str(req, "model", NULL);

	(void)resp;
	(void)err;
	if (model == NULL || model[0] == '\0' || strcmp(model, "default") == 0)
		model = s->o.cfg->model;
	if (s->agent != NULL)
		agent_set_model(s->agent, model);
	free(s->model);
	s->model = xstrdup(model);
	return 0;
}

static int
sjson_c_mcp_status(struct sjson *s, const cJSON *req, cJSON **resp, struct buf *err)
{
	(void)req;
	(void)err;
	*resp = cJSON_CreateObject();
	mcp_servers_json(s->agent != NULL ? agent_mcp(s->agent) : NULL,
	    cJSON_AddArrayToObject(*resp, "mcpServers"));
	return 0;
}

static const struct {
	const char		*subtype;
	sjson_control_fn	*fn;
} sjson_controls[] = {
	{ "initialize",			sjson_c_initialize },
	{ "interrupt",			sjson_c_interrupt },
	{ "set_permission_mode",	sjson_c_mode },
	{ "set_model",			sjson_c_model },
	{ "mcp_status",			sjson_c_mcp_status },
};

static void
sjson_control(struct sjson *s, const cJSON *msg)
{
	const char *rid = json_str(msg, "request_id", NULL);
	const cJSON *req = json_get(msg, "request");
	const char *sub = json_str(req, "subtype", "");
	struct buf err = BUF_INIT(4096);
	cJSON *resp = NULL;
	size_t i;

	if (rid == NULL) {
		fputs("tandem: a control_request without a request_id was ignored\n", stderr);
		return;
	}
	for (i = 0; i < sizeof sjson_controls / sizeof sjson_controls[0]; i++)
		if (strcmp(sjson_controls[i].subtype, sub) == 0)
			break;
	if (i == sizeof sjson_controls / sizeof sjson_controls[0]) {
		buf_printf(&err, "tandem does not support the control request \"%s\"", sub);
		sjson_control_error(s, rid, buf_cstr(&err));
	} else if (sjson_controls[i].fn(s, req, &resp, &err) == -1) {
		sjson_control_error(s, rid, buf_cstr(&err));
		cJSON_Delete(resp);
	} else {
		sjson_control_ok(s, rid, resp);
	}
	buf_release(&err);
}

/* The text of a user message's content: a string, or its text blocks. */
static int
sjson_prompt_text(const cJSON *content, struct buf *out)
{
	const cJSON *b;

	if (cJSON_IsString(content)) {
		buf_puts(out, content->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(content))
		return -1;
	cJSON_ArrayForEach(b, content) {
		const char *type = json_str(b, "type", "");

		if (strcmp(type, "text") == 0)
			buf_printf(out, "%s%s", out->len > 0 ? "\n\n" : "", json_str(b, "text", ""));
		else
			fprintf(stderr, "tandem: a %s block in a user message was left out "
			    "(stream-json input takes text)\n", type[0] != '\0' ? type : "malformed");
	}
	return 0;
}

static void
sjson_next_prompt(struct sjson *s)
{
	cJSON *p;

	if (s->agent == NULL || agent_busy(s->agent))
		return;
	while (!s->quit && cJSON_GetArraySize(s->prompts) > 0) {
		int rc;

		p = cJSON_DetachItemFromArray(s->prompts, 0);
		rc = agent_submit(s->agent, p->valuestring);
		cJSON_Delete(p);
		if (rc == 0)
			return;
	}
	if (s->eof || s->quit)
		ev_break(s->loop);
}

void
sjson_input_line(struct sjson *s, const char *line, size_t n)
{
	cJSON *msg;
	const char *type;
	int l, c;

	s->lineno++;
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (n == 0)
		return;
	msg = json_parse_at(line, n, &l, &c);
	if (!cJSON_IsObject(msg)) {
		fprintf(stderr, "tandem: stdin line %zu is not a JSON object (at column %d); "
		    "it was ignored\n", s->lineno, c);
		cJSON_Delete(msg);
		return;
	}
	type = json_str(msg, "type", "");
	if (strcmp(type, "user") == 0) {
		struct buf text = BUF_INIT(WIRE_LINE_MAX);

		if (sjson_prompt_text(json_get(json_get(msg, "message"), "content"), &text) == -1 ||
		    text.len == 0)
			fprintf(stderr, "tandem: stdin line %zu: a user message without text was "
			    "ignored\n", s->lineno);
		else
			cJSON_AddItemToArray(s->prompts, cJSON_CreateString(buf_cstr(&text)));
		buf_release(&text);
		sjson_next_prompt(s);
	} else if (strcmp(type, "control_request") == 0) {
		sjson_control(s, msg);
	} else if (strcmp(type, "control_response") == 0) {
		sjson_host_answer(s, json_get(msg, "response"));
	} else if (strcmp(type, "control_cancel_request") == 0 || strcmp(type, "keep_alive") == 0 ||
	    strcmp(type, "update_environment_variables") == 0) {
		/* Our answers go at once, so nothing of the host's is pending to cancel. */
	} else {
		fprintf(stderr, "tandem: stdin line %zu: a message of type \"%s\" was ignored\n",
		    s->lineno, type);
	}
	cJSON_Delete(msg);
}

static void
sjson_line(void *arg, const char *line, size_t n)
{
	sjson_input_line(arg, line, n);
}

static void
sjson_too_long(void *arg, size_t size)
{
	struct sjson *s = arg;

	s->lineno++;
	fprintf(stderr, "tandem: stdin line %zu is %zu bytes, more than the %u a line may have; "
	    "it was ignored\n", s->lineno, size, WIRE_LINE_MAX);
}

static void
sjson_eof(void *arg)
{
	struct sjson *s = arg;

	s->eof = true;
	/* What was read still runs; a turn waiting for the host's answer cannot get it. */
	if (s->agent != NULL && agent_busy(s->agent)) {
		if (s->asks != NULL)
			agent_interrupt(s->agent);
		return;
	}
	if (cJSON_GetArraySize(s->prompts) == 0)
		ev_break(s->loop);
}

static void
sjson_on_signal(struct ev_loop *loop, int signo, void *arg)
{
	struct sjson *s = arg;

	(void)loop;
	if (s->quit || s->agent == NULL || !agent_busy(s->agent)) {
		wire_out_flush(s->out, 200);
		_exit(128 + signo);
	}
	s->quit = true;
	s->signo = signo;
	agent_interrupt(s->agent);
}

/* --- the front end ------------------------------------------------------- */

struct sjson *
sjson_new(struct ev_loop *loop, struct event_bus *bus, const struct sjson_opts *o)
{
	struct sjson *s = xcalloc(1, sizeof *s);

	s->loop = loop;
	s->bus = bus;
	s->o = *o;
	s->out = wire_out_new(loop, o->out_fd);
	s->blocks = cJSON_CreateArray();
	s->held = cJSON_CreateArray();
	s->prompts = cJSON_CreateArray();
	s->denies = cJSON_CreateArray();
	buf_init(&s->cur, BUF_NOLIMIT);
	sjson_reset_turn(s);
	event_subscribe(bus, sjson_on_event, s);
	return s;
}

int
sjson_run(struct sjson *s, struct agent *agent, const char *prompt)
{
	int rc;

	s->agent = agent;
	ev_signal_add(s->loop, SIGINT, sjson_on_signal, s);
	ev_signal_add(s->loop, SIGTERM, sjson_on_signal, s);
	/* A closed terminal or a dropped ssh ends the run as SIGTERM does. */
	ev_signal_add(s->loop, SIGHUP, sjson_on_signal, s);
	signal(SIGPIPE, SIG_IGN);
	if (s->o.input_stream) {
		s->in = wire_in_new(s->loop, s->o.in_fd, WIRE_LINE_MAX, sjson_line, sjson_too_long,
		    sjson_eof, s);
		if (prompt != NULL && prompt[0] != '\0')
			cJSON_AddItemToArray(s->prompts, cJSON_CreateString(prompt));
		sjson_next_prompt(s);
		while (ev_run_once(s->loop, -1) != -1)
			if ((s->quit || (s->eof && cJSON_GetArraySize(s->prompts) == 0)) &&
			    !agent_busy(agent))
				break;
	} else {
		if (agent_submit(agent, prompt) != 0) {
			fputs("tandem: the prompt could not be started\n", stderr);
			return 1;
		}
		while (!s->done)
			if (ev_run_once(s->loop, -1) == -1)
				break;
	}
	ev_signal_del(s->loop, SIGINT);
	ev_signal_del(s->loop, SIGTERM);
	ev_signal_del(s->loop, SIGHUP);
	if (wire_out_flush(s->out, SJSON_FLUSH_MS) == -1)
		fputs("tandem: the output could not be written in time; some lines were lost\n", stderr);
	if (wire_out_lost(s->out) > 0)
		fprintf(stderr, "tandem: %zu output lines were lost: the reader did not keep up\n",
		    wire_out_lost(s->out));
	if (s->quit)
		return 128 + s->signo;
	if (s->o.input_stream)
		return 0;
	rc = s->interrupted ? 130 : s->failed ? 1 : 0;
	return rc;
}

void
sjson_free(struct sjson *s)
{
	struct sjson_ask *k;

	if (s == NULL)
		return;
	event_unsubscribe(s->bus, sjson_on_event, s);
	while ((k = s->asks) != NULL) {
		s->asks = k->next;
		sjson_ask_free(k);
	}
	if (s->deny_timer != 0)
		ev_timer_cancel(s->loop, s->deny_timer);
	cJSON_Delete(s->denies);
	wire_in_free(s->in);
	wire_out_free(s->out);
	cJSON_Delete(s->blocks);
	cJSON_Delete(s->held);
	cJSON_Delete(s->prompts);
	cJSON_Delete(s->tools);
	cJSON_Delete(s->denials);
	cJSON_Delete(s->errors);
	buf_release(&s->cur);
	free(s->session_id);
	free(s->model);
	free(s);
}
