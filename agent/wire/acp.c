/* The Agent Client Protocol agent: see acp.h. */
#include "autoconf.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acp.h"
#include "agent.h"
#include "buf.h"
#include "config/config.h"
#include "ev.h"
#include "event.h"
#include "fsutil.h"
#include "jail/jail.h"
#include "json.h"
#include "rules/perm.h"
#include "wire.h"
#include "xalloc.h"

#define ACP_PROTOCOL_VERSION	1
#define ACP_FLUSH_MS		1500
#define ACP_FILE_MAX		(4u * 1024 * 1024)	/* a write_file's old text shown in its diff */
#define ACP_LIVE_MAX		(16u * 1024)	/* a running command's output shown: its tail */
#define ACP_SUB_LINE_MAX	160		/* a replayed subagent call's input shown: its start */

/* JSON-RPC error codes. */
enum {
	ACP_PARSE_ERROR = -32700,
	ACP_INVALID_REQUEST = -32600,
	ACP_METHOD_NOT_FOUND = -32601,
	ACP_INVALID_PARAMS = -32602,
	ACP_INTERNAL_ERROR = -32603,
	ACP_NOT_FOUND = -32002
};

/* The modes of session/new's reply: tandem's permission modes. */
static const struct {
	const char	*id;
	const char	*name;
	const char	*description;
} acp_modes[] = {
	{ "ask",		"Ask",		"Every edit and command asks first" },
	{ "accept-edits",	"Accept edits",	"Edits apply; commands ask" },
	{ "plan",		"Plan",		"Nothing changes: edits and commands are refused" },
	{ "yolo",		"Yolo",		"Everything runs without asking (deny rules still hold)" },
};

/* A session/request_permission the client has not answered yet. */
struct acp_perm {
	int		 rpc_id;
	char		*tool_id;
	bool		 settled;	/* cancelled on our side: the answer is ignored */
	struct acp_perm	*next;
	cJSON		*ask;		/* exit_plan's or ask_user's approval_request, or NULL */
	int		 q;		/* ask_user: the question asked */
	cJSON		*answers;	/* ask_user: {question: label} so far */
};

static bool acp_plan_ask(struct acp *, const cJSON *ev);
static void acp_plan_answered(struct acp *, struct acp_perm *, bool picked, const char *opt);
static void acp_on_todos(struct acp *, const cJSON *ev);

struct acp {
	struct ev_loop		*loop;
	struct config		*base;
	struct wire_out		*out;
	struct wire_in		*in;
	bool			 eof;
	int			 next_rpc;

	/* The one session. */
	struct event_bus	*bus;
	struct agent		*agent;
	struct config		*cfg;		/* base, or owned (own_cfg) */
	bool			 own_cfg;
	struct config		 cfg_store;
	char			*session_id;
	cJSON			*prompt_rpc;	/* the id of the session/prompt being answered */
	bool			 cancelled;
	cJSON			*errors;	/* the turn's fatal errors */
	cJSON			*tools;		/* id -> tandem's tool name */
	struct buf		 live;		/* the running call's output so far (its tail) */
	char			*live_id;
	struct acp_perm		*perms;
};

/* --- JSON-RPC ------------------------------------------------------------ */

static void
acp_send(struct acp *p, cJSON *m)
{
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	wire_out_json(p->out, m);
	cJSON_Delete(m);
}

static void
acp_result(struct acp *p, const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
	cJSON_AddItemToObject(m, "result", result != NULL ? result : cJSON_CreateObject());
	acp_send(p, m);
}

static void
acp_error(struct acp *p, const cJSON *id, int code, const char *message)
{
	cJSON *m = cJSON_CreateObject(), *e;

	cJSON_AddItemToObject(m, "id", id != NULL ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
	e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	acp_send(p, m);
}

static void
acp_update(struct acp *p, cJSON *update)
{
	cJSON *m = cJSON_CreateObject(), *params;

	cJSON_AddStringToObject(m, "method", "session/update");
	params = cJSON_AddObjectToObject(m, "params");
	cJSON_AddStringToObject(params, "sessionId", p->session_id != NULL ? p->session_id : "");
	cJSON_AddItemToObject(params, "update", update);
	acp_send(p, m);
}

static cJSON *
acp_text_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

static void
acp_chunk(struct acp *p, const char *kind, const char *text)
{
	cJSON *u = cJSON_CreateObject();

	cJSON_AddStringToObject(u, "sessionUpdate", kind);
	cJSON_AddItemToObject(u, "content", acp_text_block(text));
	acp_update(p, u);
}

/* --- tool calls ---------------------------------------------------------- */

static void
acp_abs(const struct acp *p, const char *path, struct buf *out)
{
	if (path[0] == '/')
		buf_puts(out, path);
	else if (path[0] == '\0' || strcmp(path, ".") == 0)
		buf_puts(out, p->cfg->root);
	else
		buf_printf(out, "%s/%s", p->cfg->root, path);
}

static void
acp_title(const char *name, const cJSON *input, struct buf *t)
{
	const char *path = json_str(input, "path", NULL), *pat = json_str(input, "pattern", NULL);

	if (strcmp(name, "run_bash") == 0)
		buf_printf(t, "Run `%s`", json_str(input, "command", ""));
	else if (strcmp(name, "read_file") == 0)
		buf_printf(t, "Read %s", path != NULL ? path : "a file");
	else if (strcmp(name, "edit_file") == 0)
		buf_printf(t, "Edit %s", path != NULL ? path : "a file");
	else if (strcmp(name, "write_file") == 0)
		buf_printf(t, "Write %s", path != NULL ? path : "a file");
	else if (strcmp(name, "list_dir") == 0)
		buf_printf(t, "List %s", path != NULL ? path : ".");
	else if (strcmp(name, "web_fetch") == 0)
		buf_printf(t, "Fetch %s", json_str(input, "url", ""));
	else if (strcmp(name, "web_search") == 0)
		buf_printf(t, "Search the web: %s", json_str(input, "query", ""));
	else if (pat != NULL)
		buf_printf(t, "%s %s", name, pat);
	else
		buf_puts(t, name);
}

/* Does real (a real path) lie in dir (a real path) or below it? */
static bool
acp_under(const char *real, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0' ||
	    (n > 0 && dir[n - 1] == '/'));
}

/*
 * The text a write_file would replace, for its diff, or NULL: read only as
 * the file tools would read it, a regular file in the workspace (or an
 * added directory) that no Read deny rule covers, without blocking on a
 * FIFO.  The call is shown before the rules and the person decide on it.
 */
static char *
acp_old_text(const struct acp *p, const char *abs, size_t *len)
{
	struct buf err = BUF_INIT(1024);
	char *real = realpath(abs, NULL), *data = NULL;
	bool inside = false;
	size_t i;

	*len = 0;
	if (real == NULL)
		goto out;
	inside = acp_under(real, p->cfg->root);
	for (i = 0; !inside && p->cfg->add_dirs != NULL && p->cfg->add_dirs[i] != NULL; i++)
		inside = acp_under(real, p->cfg->add_dirs[i]);
	if (!inside || perm_path_denied(p->cfg->rules, SANDBOX_READ, abs) ||
	    fsutil_read_file(real, ACP_FILE_MAX, &data, len, &err) != 0) {
		free(data);
		data = NULL;
		*len = 0;
	}
out:
	free(real);
	buf_release(&err);
	return data;
}

/* The diff content of an edit: whole-file text is not needed, the changed part is. */
static cJSON *
acp_edit_content(const struct acp *p, const char *name, const cJSON *input)
{
	cJSON *arr = cJSON_CreateArray(), *d;
	struct buf abs = BUF_INIT(PATH_MAX * 2);
	const char *path = json_str(input, "path", NULL);

	if (path == NULL || (strcmp(name, "edit_file") != 0 && strcmp(name, "write_file") != 0)) {
		if (strcmp(name, "apply_patch") == 0) {
			d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "type", "content");
			cJSON_AddItemToObject(d, "content", acp_text_block(json_str(input, "patch", "")));
			cJSON_AddItemToArray(arr, d);
		}
		return arr;
	}
	acp_abs(p, path, &abs);
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "type", "diff");
	cJSON_AddStringToObject(d, "path", buf_cstr(&abs));
	if (strcmp(name, "edit_file") == 0) {
		cJSON_AddStringToObject(d, "oldText", json_str(input, "old_string", ""));
		cJSON_AddStringToObject(d, "newText", json_str(input, "new_string", ""));
	} else {
		size_t n;
		char *old = acp_old_text(p, buf_cstr(&abs), &n);

		if (old != NULL)
			json_add_str_n(d, "oldText", old, n);
		else
			cJSON_AddNullToObject(d, "oldText");
		free(old);
		cJSON_AddStringToObject(d, "newText", json_str(input, "content", ""));
	}
	cJSON_AddItemToArray(arr, d);
	buf_release(&abs);
	return arr;
}

/* A tool call's fields, for tool_call and for a permission request's toolCall. */
static cJSON *
acp_tool_call(struct acp *p, const char *id, const char *name, const cJSON *input, const char *status)
{
	cJSON *u = cJSON_CreateObject(), *loc;
	struct buf t = BUF_INIT(64 * 1024), abs = BUF_INIT(PATH_MAX * 2);
	const char *path = json_str(input, "path", NULL);

	acp_title(name, input, &t);
	cJSON_AddStringToObject(u, "toolCallId", id);
	json_add_str_n(u, "title", buf_cstr(&t), t.len);
	cJSON_AddStringToObject(u, "kind", wire_tool_kind(name));
	cJSON_AddStringToObject(u, "status", status);
	cJSON_AddItemToObject(u, "content", acp_edit_content(p, name, input));
	cJSON_AddItemToObject(u, "rawInput", cJSON_IsObject(input) ? cJSON_Duplicate(input, true) :
	    cJSON_CreateObject());
	loc = cJSON_AddArrayToObject(u, "locations");
	if (path != NULL) {
		cJSON *l = cJSON_CreateObject();

		acp_abs(p, path, &abs);
		cJSON_AddStringToObject(l, "path", buf_cstr(&abs));
		cJSON_AddItemToArray(loc, l);
	}
	buf_release(&t);
	buf_release(&abs);
	return u;
}

static void
acp_on_tool_use(struct acp *p, const cJSON *ev)
{
	const char *id = json_str(ev, "id", ""), *name = json_str(ev, "name", "");
	cJSON *u = acp_tool_call(p, id, name, json_get(ev, "input"), "pending");

	cJSON_AddStringToObject(u, "sessionUpdate", "tool_call");
	acp_update(p, u);
	cJSON_DeleteItemFromObjectCaseSensitive(p->tools, id);
	cJSON_AddItemToObject(p->tools, id, cJSON_CreateString(name));
}

static void
acp_on_tool_result(struct acp *p, const cJSON *ev)
{
	const char *id = json_str(ev, "id", "");
	const char *name = json_str(p->tools, id, json_str(ev, "name", ""));
	bool failed = json_bool(ev, "is_error", false);
	cJSON *u = cJSON_CreateObject(), *c, *arr;

	cJSON_AddStringToObject(u, "sessionUpdate", "tool_call_update");
	cJSON_AddStringToObject(u, "toolCallId", id);
	cJSON_AddStringToObject(u, "status", failed ? "failed" : "completed");
	/* An edit keeps its diff as content; anything else shows its output. */
	if (failed || strcmp(wire_tool_kind(name), "edit") != 0) {
		arr = cJSON_AddArrayToObject(u, "content");
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "type", "content");
		cJSON_AddItemToObject(c, "content", acp_text_block(json_str(ev, "content", "")));
		cJSON_AddItemToArray(arr, c);
	}
	cJSON_AddItemToObject(u, "rawOutput", cJSON_CreateString(json_str(ev, "content", "")));
	acp_update(p, u);
}

/* A running call's live output: in_progress, with the tail of what it printed so far. */
static void
acp_on_progress(struct acp *p, const cJSON *ev)
{
	const char *id = json_str(ev, "id", ""), *out = json_str(ev, "output", "");
	cJSON *u = cJSON_CreateObject(), *arr, *c, *t;
	size_t n = strlen(out);

	if (p->live_id == NULL || strcmp(p->live_id, id) != 0) {
		free(p->live_id);
		p->live_id = xstrdup(id);
		buf_reset(&p->live);
	}
	if (n >= ACP_LIVE_MAX) {
		buf_reset(&p->live);
		out += n - ACP_LIVE_MAX / 2;
		n = ACP_LIVE_MAX / 2;
	} else if (p->live.len + n > ACP_LIVE_MAX) {
		buf_consume(&p->live, p->live.len + n - ACP_LIVE_MAX / 2 < p->live.len ?
		    p->live.len + n - ACP_LIVE_MAX / 2 : p->live.len);
	}
	buf_append(&p->live, out, n);
	cJSON_AddStringToObject(u, "sessionUpdate", "tool_call_update");
	cJSON_AddStringToObject(u, "toolCallId", id);
	cJSON_AddStringToObject(u, "status", "in_progress");
	arr = cJSON_AddArrayToObject(u, "content");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "content");
	t = cJSON_AddObjectToObject(c, "content");
	cJSON_AddStringToObject(t, "type", "text");
	json_add_str_n(t, "text", buf_cstr(&p->live), p->live.len);
	cJSON_AddItemToArray(arr, c);
	acp_update(p, u);
}

/*
 * A loaded session's subagent call (a replayed subagent event): a line of
 * its agent call's progress, as the live session's tool_call_update showed
 * it (the type, the call and its input; the counts of the moment are not
 * kept).
 */
static void
acp_on_subagent_replay(struct acp *p, const cJSON *ev)
{
	const cJSON *in = json_get(ev, "event");
	struct buf line = BUF_INIT(BUF_NOLIMIT);
	char *input;
	size_t n;
	cJSON *pe;

	if (strcmp(json_str(ev, "state", ""), "tool") != 0)
		return;
	input = json_print(json_get(in, "input"));
	n = input != NULL ? strlen(input) : 0;
	buf_printf(&line, "%s · %s %.*s%s\n", json_str(ev, "agent", ""),
	    wire_cc_tool(json_str(in, "name", "?")), (int)(n > ACP_SUB_LINE_MAX ? ACP_SUB_LINE_MAX : n),
	    input != NULL ? input : "", n > ACP_SUB_LINE_MAX ? "…" : "");
	free(input);
	pe = cJSON_CreateObject();
	cJSON_AddStringToObject(pe, "id", json_str(ev, "parent_tool_use_id", ""));
	cJSON_AddStringToObject(pe, "output", buf_cstr(&line));
	acp_on_progress(p, pe);
	cJSON_Delete(pe);
	buf_release(&line);
}

/* --- approvals ----------------------------------------------------------- */

static const struct {
	const char	*id;
	const char	*name;
} acp_options[] = {
	{ "allow_once",		"Allow" },
	{ "allow_always",	"Always allow" },
	{ "reject_once",	"Reject" },
	{ "reject_always",	"Always reject" },
};

static void
acp_ask(struct acp *p, const cJSON *ev)
{
	struct acp_perm *k;
	cJSON *m, *params, *opts;
	size_t i;

	if (acp_plan_ask(p, ev))
		return;
	k = xcalloc(1, sizeof *k);
	m = cJSON_CreateObject();
	k->rpc_id = ++p->next_rpc;
	k->tool_id = xstrdup(json_str(ev, "id", ""));
	k->next = p->perms;
	p->perms = k;
	cJSON_AddNumberToObject(m, "id", k->rpc_id);
	cJSON_AddStringToObject(m, "method", "session/request_permission");
	params = cJSON_AddObjectToObject(m, "params");
	cJSON_AddStringToObject(params, "sessionId", p->session_id);
	cJSON_AddItemToObject(params, "toolCall", acp_tool_call(p, k->tool_id, json_str(ev, "name", ""),
	    json_get(ev, "input"), "pending"));
	opts = cJSON_AddArrayToObject(params, "options");
	for (i = 0; i < sizeof acp_options / sizeof acp_options[0]; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "optionId", acp_options[i].id);
		cJSON_AddStringToObject(o, "name", acp_options[i].name);
		cJSON_AddStringToObject(o, "kind", acp_options[i].id);
		cJSON_AddItemToArray(opts, o);
	}
	acp_send(p, m);
}

static struct acp_perm *
acp_perm_take(struct acp *p, int rpc_id)
{
	struct acp_perm **pp, *k;

	for (pp = &p->perms; (k = *pp) != NULL; pp = &k->next)
		if (k->rpc_id == rpc_id) {
			*pp = k->next;
			return k;
		}
	return NULL;
}

static void
acp_perm_free(struct acp_perm *k)
{
	free(k->tool_id);
	cJSON_Delete(k->ask);
	cJSON_Delete(k->answers);
	free(k);
}

/* The client's answer to a session/request_permission. */
static void
acp_answered(struct acp *p, const cJSON *msg)
{
	const cJSON *id = json_get(msg, "id");
	struct acp_perm *k = cJSON_IsNumber(id) ? acp_perm_take(p, id->valueint) : NULL;
	const cJSON *outcome = json_get(json_get(msg, "result"), "outcome");
	const char *what = json_str(outcome, "outcome", ""), *opt = json_str(outcome, "optionId", "");

	if (k == NULL)
		return;
	if (k->ask != NULL && !k->settled && p->agent != NULL) {
		acp_plan_answered(p, k, json_get(msg, "error") == NULL && strcmp(what, "selected") == 0,
		    opt);
		return;
	}
	if (!k->settled && p->agent != NULL) {
		if (json_get(msg, "error") != NULL || strcmp(what, "selected") != 0)
			agent_answer(p->agent, k->tool_id, APPROVAL_DENY, "the prompt was cancelled", NULL);
		else if (strcmp(opt, "allow_once") == 0)
			agent_answer(p->agent, k->tool_id, APPROVAL_ALLOW, NULL, NULL);
		else if (strcmp(opt, "allow_always") == 0)
			agent_answer(p->agent, k->tool_id, APPROVAL_ALWAYS, NULL, NULL);
		else if (strcmp(opt, "reject_always") == 0)
			agent_answer(p->agent, k->tool_id, APPROVAL_NEVER, NULL, NULL);
		else
			agent_answer(p->agent, k->tool_id, APPROVAL_DENY, NULL, NULL);
	}
	acp_perm_free(k);
}

/* --- the event stream ---------------------------------------------------- */

static const char *
acp_stop_reason(struct acp *p, const cJSON *ev)
{
	const char *sr = json_str(ev, "stop_reason", "");

	if (p->cancelled || strcmp(sr, "interrupted") == 0)
		return "cancelled";
	if (strcmp(sr, "max_tokens") == 0)
		return "max_tokens";
	if (strcmp(sr, "refusal") == 0)
		return "refusal";
	if (strcmp(sr, "error") == 0 && json_int(ev, "turns", 0) >= p->cfg->max_turns)
		return "max_turn_requests";
	if (strcmp(sr, "error") == 0)
		return NULL;
	return "end_turn";
}

static void
acp_on_result(struct acp *p, const cJSON *ev)
{
	const char *stop = acp_stop_reason(p, ev);
	struct acp_perm *k;

	while ((k = p->perms) != NULL) {
		p->perms = k->next;
		acp_perm_free(k);
	}
	if (p->prompt_rpc == NULL)
		return;
	if (stop != NULL) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "stopReason", stop);
		acp_result(p, p->prompt_rpc, r);
	} else {
		struct buf m = BUF_INIT(64 * 1024);
		const cJSON *e;

		cJSON_ArrayForEach(e, p->errors)
			buf_printf(&m, "%s%s", m.len > 0 ? "; " : "", e->valuestring);
		acp_error(p, p->prompt_rpc, ACP_INTERNAL_ERROR, m.len > 0 ? buf_cstr(&m) : "the turn failed");
		buf_release(&m);
	}
	cJSON_Delete(p->prompt_rpc);
	p->prompt_rpc = NULL;
	p->cancelled = false;
}

static void
acp_on_event(const cJSON *ev, void *arg)
{
	struct acp *p = arg;
	const char *type = json_str(ev, "type", "");

	if (strcmp(type, "session") == 0 && p->session_id == NULL) {
		p->session_id = xstrdup(json_str(ev, "id", ""));
	} else if (strcmp(type, "turn_start") == 0) {
		cJSON_Delete(p->errors);
		p->errors = cJSON_CreateArray();
		if (json_bool(ev, "replay", false))
			acp_chunk(p, "user_message_chunk", json_str(ev, "prompt", ""));
	} else if (strcmp(type, "text") == 0) {
		acp_chunk(p, "agent_message_chunk", json_str(ev, "text", ""));
	} else if (strcmp(type, "thinking") == 0) {
		acp_chunk(p, "agent_thought_chunk", json_str(ev, "text", ""));
	} else if (strcmp(type, "tool_use") == 0) {
		acp_on_tool_use(p, ev);
	} else if (strcmp(type, "tool_progress") == 0) {
		acp_on_progress(p, ev);
	} else if (strcmp(type, "tool_result") == 0) {
		acp_on_tool_result(p, ev);
	} else if (strcmp(type, "subagent") == 0 && json_bool(ev, "replay", false)) {
		/* live, the agent call's tool_progress carries them */
		acp_on_subagent_replay(p, ev);
	} else if (strcmp(type, "approval_request") == 0) {
		acp_ask(p, ev);
	} else if (strcmp(type, "todos") == 0) {
		acp_on_todos(p, ev);
	} else if (strcmp(type, "error") == 0 && json_bool(ev, "fatal", false) && p->errors != NULL) {
		cJSON_AddItemToArray(p->errors, cJSON_CreateString(json_str(ev, "message", "")));
	} else if (strcmp(type, "result") == 0) {
		acp_on_result(p, ev);
	}
}

/* --- sessions ------------------------------------------------------------ */

static void
acp_end_session(struct acp *p)
{
	struct acp_perm *k;

	agent_free(p->agent);
	p->agent = NULL;
	if (p->bus != NULL) {
		event_unsubscribe(p->bus, acp_on_event, p);
		event_bus_free(p->bus);
		p->bus = NULL;
	}
	if (p->own_cfg)
		config_release(&p->cfg_store);
	p->own_cfg = false;
	p->cfg = p->base;
	free(p->session_id);
	p->session_id = NULL;
	while ((k = p->perms) != NULL) {
		p->perms = k->next;
		acp_perm_free(k);
	}
	cJSON_Delete(p->prompt_rpc);
	p->prompt_rpc = NULL;
}

/*
 * What the command line forbids holds in every session, whatever its cwd:
 * the rules given as flags (--deny above all), the disabled tools and the
 * sandbox's mode.
 */
static int
acp_copy_limits(struct acp *p, struct config *cfg, struct buf *err)
{
	const struct jail_layer *flag = &p->base->sandbox.layers[JAIL_LAYER_FLAG];
	const cJSON *row;

	cJSON_ArrayForEach(row, p->base->rule_sources) {
		const cJSON *list = cJSON_GetArrayItem(row, 0), *rule = cJSON_GetArrayItem(row, 1),
		    *src = cJSON_GetArrayItem(row, 2);

		if (cJSON_IsString(list) && cJSON_IsString(rule) && cJSON_IsString(src) &&
		    strcmp(src->valuestring, "flag") == 0 &&
		    config_set_flag(cfg, list->valuestring, rule->valuestring, err) == -1)
			return -1;
	}
	if (p->base->disabled_tools != NULL &&
	    strcmp(json_str(p->base->sources, "disabled_tools", ""), "flag") == 0 &&
	    config_set_flag(cfg, "disabled_tools", p->base->disabled_tools, err) == -1)
		return -1;
	if (flag->has_mode &&
	    jail_config_flag(&cfg->sandbox, "mode", jail_mode_name(flag->mode), err) == -1)
		return -1;
	return 0;
}

/* Copy what the command line set on base into a session's own config. */
static int
acp_copy_flags(struct acp *p, struct config *cfg, struct buf *err)
{
	static const char *const keys[] = { "provider", "model", "base_url", NULL };
	char n[32];
	size_t i;

	for (i = 0; keys[i] != NULL; i++) {
		const char *v = keys[i][0] == 'p' ? p->base->provider : keys[i][0] == 'm' ?
		    p->base->model : p->base->base_url;

		if (v != NULL && strcmp(json_str(p->base->sources, keys[i], ""), "flag") == 0 &&
		    config_set_flag(cfg, keys[i], v, err) == -1)
			return -1;
	}
	if (strcmp(json_str(p->base->sources, "permissions.mode", ""), "flag") == 0 &&
	    config_set_flag(cfg, "permission-mode", perm_mode_name(p->base->mode), err) == -1)
		return -1;
	if (p->base->mcp_flags != NULL)
		cfg->mcp_flags = cJSON_Duplicate(p->base->mcp_flags, 1);
	snprintf(n, sizeof n, "%d", p->base->max_turns);
	if (strcmp(json_str(p->base->sources, "max_turns", ""), "flag") == 0 &&
	    config_set_flag(cfg, "max-turns", n, err) == -1)
		return -1;
	return acp_copy_limits(p, cfg, err);
}

/* ACP's [{name, value}] as Claude Code's {name: value}, into o[key]. */
static void
acp_mcp_pairs(cJSON *o, const char *key, const cJSON *pairs)
{
	cJSON *m = cJSON_AddObjectToObject(o, key);
	const cJSON *kv;

	cJSON_ArrayForEach(kv, pairs)
		if (json_str(kv, "name", NULL) != NULL)
			cJSON_AddStringToObject(m, json_str(kv, "name", ""), json_str(kv, "value", ""));
}

/*
 * The MCP servers of session/new and session/load, in ACP's shape (stdio
 * {name, command, args, env: [{name, value}]}; http and sse {type, name,
 * url, headers: [{name, value}]}), added to cfg as one more --mcp-config
 * so that the session's agent starts them.  An entry without a name is
 * skipped with a sentence on stderr.
 */
static void
acp_mcp_servers(struct config *cfg, const cJSON *servers)
{
	cJSON *doc, *all;
	const cJSON *sv;
	char *text;

	if (cJSON_GetArraySize(servers) == 0)
		return;
	doc = cJSON_CreateObject();
	all = cJSON_AddObjectToObject(doc, "mcpServers");
	cJSON_ArrayForEach(sv, servers) {
		const char *name = json_str(sv, "name", NULL), *type = json_str(sv, "type", "stdio");
		const cJSON *args = json_get(sv, "args"), *a;
		cJSON *o, *arr;

		if (name == NULL || name[0] == '\0') {
			fprintf(stderr, "tandem: acp: an MCP server without a name was skipped\n");
			continue;
		}
		o = cJSON_CreateObject();
		if (strcmp(type, "stdio") == 0) {
			cJSON_AddStringToObject(o, "command", json_str(sv, "command", ""));
			arr = cJSON_AddArrayToObject(o, "args");
			cJSON_ArrayForEach(a, args)
				if (cJSON_IsString(a))
					cJSON_AddItemToArray(arr, cJSON_CreateString(a->valuestring));
			acp_mcp_pairs(o, "env", json_get(sv, "env"));
		} else {
			cJSON_AddStringToObject(o, "type", type);
			cJSON_AddStringToObject(o, "url", json_str(sv, "url", ""));
			acp_mcp_pairs(o, "headers", json_get(sv, "headers"));
		}
		cJSON_DeleteItemFromObject(all, name);
		cJSON_AddItemToObject(all, name, o);
	}
	text = cJSON_PrintUnformatted(doc);
	if (cfg->mcp_flags == NULL)
		cfg->mcp_flags = cJSON_CreateArray();
	cJSON_AddItemToArray(cfg->mcp_flags, cJSON_CreateString(text));
	cJSON_free(text);
	cJSON_Delete(doc);
}

static cJSON *
acp_modes_json(struct acp *p)
{
	cJSON *m = cJSON_CreateObject(), *arr;
	size_t i;

	cJSON_AddStringToObject(m, "currentModeId", perm_mode_name(agent_mode(p->agent)));
	arr = cJSON_AddArrayToObject(m, "availableModes");
	for (i = 0; i < sizeof acp_modes / sizeof acp_modes[0]; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "id", acp_modes[i].id);
		cJSON_AddStringToObject(o, "name", acp_modes[i].name);
		cJSON_AddStringToObject(o, "description", acp_modes[i].description);
		cJSON_AddItemToArray(arr, o);
	}
	return m;
}

/*
 * Start the session in cwd (resume_id: load that one) with the client's
 * MCP servers (may be NULL); 0, or -1 with a sentence in err.
 */
static int
acp_start_session(struct acp *p, const char *cwd, const char *resume_id, const cJSON *servers,
    struct buf *err)
{
	char *real = realpath(cwd, NULL), msg[1024];
	struct buf warn = BUF_INIT(BUF_NOLIMIT);
	struct stat st;
	int rc = -1;

	acp_end_session(p);
	if (real == NULL || stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		buf_printf(err, "cwd \"%s\" is not a directory", cwd);
		goto out;
	}
	/* a session of its own root, or with servers of its own, gets its own config */
	if (strcmp(real, p->base->root) != 0 || cJSON_GetArraySize(servers) > 0) {
		config_init(&p->cfg_store);
		p->own_cfg = true;
		p->cfg = &p->cfg_store;
		if (config_set_flag(p->cfg, "root", real, err) == -1 ||
		    config_load(p->cfg, &warn, err) == -1 || acp_copy_flags(p, p->cfg, err) == -1)
			goto out;
		if (warn.len > 0)
			fputs(buf_cstr(&warn), stderr);
		acp_mcp_servers(p->cfg, servers);
	}
	if (chdir(real) == -1) {
		buf_printf(err, "cannot enter %s", real);
		goto out;
	}
	p->bus = event_bus_new();
	event_subscribe(p->bus, acp_on_event, p);
	if (resume_id != NULL)
		p->session_id = xstrdup(resume_id);
	p->agent = agent_new(p->loop, p->bus, p->cfg, resume_id, false, true, msg, sizeof msg);
	if (p->agent == NULL) {
		buf_puts(err, msg);
		goto out;
	}
	/* session/load: the conversation so far, before the reply. */
	if (resume_id != NULL)
		agent_replay(p->agent);
	rc = 0;
out:
	if (rc == -1)
		acp_end_session(p);
	free(real);
	buf_release(&warn);
	return rc;
}

/* --- methods ------------------------------------------------------------- */

typedef void acp_method_fn(struct acp *, const cJSON *id, const cJSON *params);

static void
acp_m_initialize(struct acp *p, const cJSON *id, const cJSON *params)
{
	cJSON *r = cJSON_CreateObject(), *caps, *pc, *mc, *info;

	(void)params;
	cJSON_AddNumberToObject(r, "protocolVersion", ACP_PROTOCOL_VERSION);
	caps = cJSON_AddObjectToObject(r, "agentCapabilities");
	cJSON_AddBoolToObject(caps, "loadSession", true);
	pc = cJSON_AddObjectToObject(caps, "promptCapabilities");
	cJSON_AddBoolToObject(pc, "image", false);
	cJSON_AddBoolToObject(pc, "audio", false);
	cJSON_AddBoolToObject(pc, "embeddedContext", true);
	mc = cJSON_AddObjectToObject(caps, "mcpCapabilities");
	cJSON_AddBoolToObject(mc, "http", true);
	cJSON_AddBoolToObject(mc, "sse", true);
	cJSON_AddArrayToObject(r, "authMethods");
	info = cJSON_AddObjectToObject(r, "agentInfo");
	cJSON_AddStringToObject(info, "name", "tandem");
	cJSON_AddStringToObject(info, "title", "tandem");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	acp_result(p, id, r);
}

static void
acp_m_session(struct acp *p, const cJSON *id, const cJSON *params, bool load)
{
	struct buf err = BUF_INIT(4096);
	const char *cwd = json_str(params, "cwd", NULL);
	const char *sid = json_str(params, "sessionId", NULL);
	cJSON *r;

	if (cwd == NULL || cwd[0] != '/' || (load && sid == NULL)) {
		acp_error(p, id, ACP_INVALID_PARAMS, load ? "session/load needs sessionId and an "
		    "absolute cwd" : "session/new needs an absolute cwd");
		goto out;
	}
	if (acp_start_session(p, cwd, load ? sid : NULL, json_get(params, "mcpServers"), &err) == -1) {
		acp_error(p, id, load ? ACP_NOT_FOUND : ACP_INTERNAL_ERROR, buf_cstr(&err));
		goto out;
	}
	r = cJSON_CreateObject();
	if (!load)
		cJSON_AddStringToObject(r, "sessionId", p->session_id != NULL ? p->session_id : "");
	cJSON_AddItemToObject(r, "modes", acp_modes_json(p));
	acp_result(p, id, r);
out:
	buf_release(&err);
}

static void
acp_m_new(struct acp *p, const cJSON *id, const cJSON *params)
{
	acp_m_session(p, id, params, false);
}

static void
acp_m_load(struct acp *p, const cJSON *id, const cJSON *params)
{
	acp_m_session(p, id, params, true);
}

static bool
acp_our_session(struct acp *p, const cJSON *id, const cJSON *params)
{
	const char *sid = json_str(params, "sessionId", "");

	if (p->agent != NULL && p->session_id != NULL && strcmp(sid, p->session_id) == 0)
		return true;
	if (id != NULL)
		acp_error(p, id, ACP_NOT_FOUND, "no such session: start one with session/new");
	return false;
}

/* A prompt's blocks as the text the model gets. */
static void
acp_prompt_text(const cJSON *blocks, struct buf *out)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, blocks) {
		const char *type = json_str(b, "type", "");
		const cJSON *res = json_get(b, "resource");

		if (out->len > 0)
			buf_puts(out, "\n\n");
		if (strcmp(type, "text") == 0) {
			buf_puts(out, json_str(b, "text", ""));
		} else if (strcmp(type, "resource") == 0 && json_get(res, "text") != NULL) {
			buf_printf(out, "<resource uri=\"%s\">\n%s\n</resource>", json_str(res, "uri", ""),
			    json_str(res, "text", ""));
		} else if (strcmp(type, "resource_link") == 0) {
			buf_printf(out, "Attached: %s (%s)", json_str(b, "name", ""), json_str(b, "uri", ""));
		} else {
			buf_printf(out, "[a %s block was left out: tandem takes text, resources and "
			    "links]", type[0] != '\0' ? type : "malformed");
		}
	}
}

static void
acp_m_prompt(struct acp *p, const cJSON *id, const cJSON *params)
{
	struct buf text = BUF_INIT(WIRE_LINE_MAX);

	if (!acp_our_session(p, id, params))
		goto out;
	if (p->prompt_rpc != NULL || agent_busy(p->agent)) {
		acp_error(p, id, ACP_INVALID_REQUEST, "a prompt is already running in this session");
		goto out;
	}
	acp_prompt_text(json_get(params, "prompt"), &text);
	if (text.len == 0) {
		acp_error(p, id, ACP_INVALID_PARAMS, "the prompt has no text");
		goto out;
	}
	p->cancelled = false;
	p->prompt_rpc = cJSON_Duplicate(id, true);
	if (agent_submit(p->agent, buf_cstr(&text)) != 0) {
		cJSON_Delete(p->prompt_rpc);
		p->prompt_rpc = NULL;
		acp_error(p, id, ACP_INTERNAL_ERROR, "the prompt could not be started");
	}
out:
	buf_release(&text);
}

static void
acp_m_cancel(struct acp *p, const cJSON *id, const cJSON *params)
{
	struct acp_perm *k;

	if (!acp_our_session(p, id, params) || p->prompt_rpc == NULL)
		return;
	p->cancelled = true;
	/* The permission requests still open are settled as cancelled; their late answers are dropped. */
	for (k = p->perms; k != NULL; k = k->next)
		if (!k->settled) {
			k->settled = true;
			agent_answer(p->agent, k->tool_id, APPROVAL_DENY, "the prompt was cancelled", NULL);
		}
	agent_interrupt(p->agent);
}

static void
acp_m_set_mode(struct acp *p, const cJSON *id, const cJSON *params)
{
	const char *mode = json_str(params, "modeId", "");
	enum perm_mode m;
	cJSON *u;

	if (!acp_our_session(p, id, params))
		return;
	if (perm_mode_parse(mode, &m) == -1) {
		acp_error(p, id, ACP_INVALID_PARAMS, "unknown mode: the modes are ask, accept-edits, "
		    "plan and yolo");
		return;
	}
	agent_set_mode(p->agent, m);
	acp_result(p, id, NULL);
	u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "sessionUpdate", "current_mode_update");
	cJSON_AddStringToObject(u, "currentModeId", perm_mode_name(m));
	acp_update(p, u);
}

static void
acp_m_authenticate(struct acp *p, const cJSON *id, const cJSON *params)
{
	(void)params;
	acp_result(p, id, NULL);
}

static const struct {
	const char	*method;
	acp_method_fn	*fn;
	bool		 notification;	/* has no id, gets no answer */
} acp_methods[] = {
	{ "initialize",		acp_m_initialize,	false },
	{ "authenticate",	acp_m_authenticate,	false },
	{ "session/new",	acp_m_new,		false },
	{ "session/load",	acp_m_load,		false },
	{ "session/prompt",	acp_m_prompt,		false },
	{ "session/set_mode",	acp_m_set_mode,		false },
	{ "session/cancel",	acp_m_cancel,		true },
};

void
acp_input_line(struct acp *p, const char *line, size_t n)
{
	cJSON *msg;
	const cJSON *id, *method;
	int l, c;
	size_t i;

	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (n == 0)
		return;
	msg = json_parse_at(line, n, &l, &c);
	if (msg == NULL) {
		acp_error(p, NULL, ACP_PARSE_ERROR, "Parse error: a line that is not JSON");
		return;
	}
	id = json_get(msg, "id");
	method = json_get(msg, "method");
	if (!cJSON_IsObject(msg) || strcmp(json_str(msg, "jsonrpc", ""), "2.0") != 0 ||
	    (id != NULL && !cJSON_IsNumber(id) && !cJSON_IsString(id) && !cJSON_IsNull(id)) ||
	    (method != NULL && !cJSON_IsString(method))) {
		acp_error(p, NULL, ACP_INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message");
		goto out;
	}
	if (method == NULL) {
		/* A response to one of our requests. */
		if (id != NULL)
			acp_answered(p, msg);
		goto out;
	}
	for (i = 0; i < sizeof acp_methods / sizeof acp_methods[0]; i++)
		if (strcmp(acp_methods[i].method, method->valuestring) == 0)
			break;
	if (i == sizeof acp_methods / sizeof acp_methods[0]) {
		if (id != NULL)
			acp_error(p, id, ACP_METHOD_NOT_FOUND, "Method not found");
		goto out;
	}
	if (!acp_methods[i].notification && id == NULL)
		goto out;
	acp_methods[i].fn(p, acp_methods[i].notification ? NULL : id, json_get(msg, "params"));
out:
	cJSON_Delete(msg);
}

static void
acp_line(void *arg, const char *line, size_t n)
{
	acp_input_line(arg, line, n);
}

static void
acp_too_long(void *arg, size_t size)
{
	struct acp *p = arg;
	struct buf m = BUF_INIT(256);

	buf_printf(&m, "Invalid request: a message of %zu bytes, more than %u", size, WIRE_LINE_MAX);
	acp_error(p, NULL, ACP_INVALID_REQUEST, buf_cstr(&m));
	buf_release(&m);
}

static void
acp_eof(void *arg)
{
	struct acp *p = arg;

	p->eof = true;
	if (p->agent != NULL && agent_busy(p->agent))
		agent_interrupt(p->agent);
	ev_break(p->loop);
}

static void
acp_on_signal(struct ev_loop *loop, int signo, void *arg)
{
	struct acp *p = arg;

	(void)signo;
	p->eof = true;
	if (p->agent != NULL && agent_busy(p->agent))
		agent_interrupt(p->agent);
	ev_break(loop);
}

struct acp *
acp_new(struct ev_loop *loop, struct config *base, int in_fd, int out_fd)
{
	struct acp *p = xcalloc(1, sizeof *p);

	p->loop = loop;
	p->base = base;
	p->cfg = base;
	p->out = wire_out_new(loop, out_fd);
	p->tools = cJSON_CreateObject();
	buf_init(&p->live, BUF_NOLIMIT);
	if (in_fd >= 0)
		p->in = wire_in_new(loop, in_fd, WIRE_LINE_MAX, acp_line, acp_too_long, acp_eof, p);
	return p;
}

void
acp_free(struct acp *p)
{
	if (p == NULL)
		return;
	acp_end_session(p);
	wire_in_free(p->in);
	wire_out_free(p->out);
	cJSON_Delete(p->tools);
	cJSON_Delete(p->errors);
	buf_release(&p->live);
	free(p->live_id);
	free(p);
}

int
acp_run(struct ev_loop *loop, struct config *base)
{
	struct acp *p = acp_new(loop, base, STDIN_FILENO, STDOUT_FILENO);
	int64_t until;

	signal(SIGPIPE, SIG_IGN);
	ev_signal_add(loop, SIGINT, acp_on_signal, p);
	ev_signal_add(loop, SIGTERM, acp_on_signal, p);
	/* The client gone with its terminal: an orderly end, as SIGTERM. */
	ev_signal_add(loop, SIGHUP, acp_on_signal, p);
	while (!p->eof)
		if (ev_run_once(loop, -1) == -1)
			break;
	/* The interrupted turn's last updates and its answer, briefly. */
	until = ev_now_ms() + ACP_FLUSH_MS;
	while (p->agent != NULL && agent_busy(p->agent) && ev_now_ms() < until)
		ev_run_once(loop, 50);
	wire_out_flush(p->out, ACP_FLUSH_MS);
	ev_signal_del(loop, SIGINT);
	ev_signal_del(loop, SIGTERM);
	ev_signal_del(loop, SIGHUP);
	acp_free(p);
	return 0;
}

/* --- the plan the pair shares: the todo list, a plan's approval, questions --- */

/*
 * ACP's permission request is a pick among fixed options, so the plan and
 * the questions fit it only partly: exit_plan offers "approve, accept
 * edits", "approve, ask" and "keep planning" (no reason, no edit);
 * ask_user asks its questions one request at a time, an option each: a
 * multi-select takes one option (its answer says so) and there is no
 * "other" (the client cannot type an answer into a permission request).
 */

/* The todo list as a plan update: each entry's content, priority and status. */
static void
acp_on_todos(struct acp *p, const cJSON *ev)
{
	cJSON *u = cJSON_CreateObject(), *entries;
	const cJSON *t;

	cJSON_AddStringToObject(u, "sessionUpdate", "plan");
	entries = cJSON_AddArrayToObject(u, "entries");
	cJSON_ArrayForEach(t, json_get(ev, "todos")) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "content", json_str(t, "content", ""));
		cJSON_AddStringToObject(e, "priority", "medium");
		cJSON_AddStringToObject(e, "status", json_str(t, "status", "pending"));
		cJSON_AddItemToArray(entries, e);
	}
	acp_update(p, u);
}

static void
acp_plan_option(cJSON *opts, const char *id, const char *name, const char *kind)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "optionId", id);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddItemToArray(opts, o);
}

/* The request for k as it stands: the plan, or its question k->q. */
static void
acp_plan_request(struct acp *p, struct acp_perm *k)
{
	const char *name = json_str(k->ask, "name", "");
	const cJSON *input = json_get(k->ask, "input"), *q, *o;
	cJSON *m = cJSON_CreateObject(), *params, *opts, *call, *content, *c;
	struct buf text = BUF_INIT(BUF_NOLIMIT), label = BUF_INIT(BUF_NOLIMIT);
	char id[32];
	int i = 0;

	k->rpc_id = ++p->next_rpc;
	k->next = p->perms;
	p->perms = k;
	cJSON_AddNumberToObject(m, "id", k->rpc_id);
	cJSON_AddStringToObject(m, "method", "session/request_permission");
	params = cJSON_AddObjectToObject(m, "params");
	cJSON_AddStringToObject(params, "sessionId", p->session_id);
	call = acp_tool_call(p, k->tool_id, name, input, "pending");
	opts = cJSON_AddArrayToObject(params, "options");
	if (strcmp(name, "exit_plan") == 0) {
		buf_puts(&text, json_str(input, "plan", ""));
		cJSON_ReplaceItemInObject(call, "title", cJSON_CreateString("Approve the plan"));
		acp_plan_option(opts, "plan_accept_edits", "Approve, and accept edits", "allow_always");
		acp_plan_option(opts, "plan_ask", "Approve, and ask before each edit", "allow_once");
		acp_plan_option(opts, "plan_keep", "Keep planning", "reject_once");
	} else {
		q = cJSON_GetArrayItem(json_get(input, "questions"), k->q);
		buf_printf(&text, "[%s] %s%s", json_str(q, "header", ""), json_str(q, "question", ""),
		    json_bool(q, "multiSelect", false) ? " (pick one)" : "");
		cJSON_ReplaceItemInObject(call, "title", cJSON_CreateString(buf_cstr(&text)));
		cJSON_ArrayForEach(o, json_get(q, "options")) {
			snprintf(id, sizeof id, "answer_%d", i++);
			buf_reset(&label);
			buf_printf(&label, "%s: %s", json_str(o, "label", ""), json_str(o, "description", ""));
			acp_plan_option(opts, id, buf_cstr(&label), "allow_once");
		}
		acp_plan_option(opts, "decline", "Decline to answer", "reject_once");
	}
	content = cJSON_CreateArray();
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "content");
	cJSON_AddItemToObject(c, "content", acp_text_block(buf_cstr(&text)));
	cJSON_AddItemToArray(content, c);
	cJSON_ReplaceItemInObject(call, "content", content);
	cJSON_AddItemToObject(params, "toolCall", call);
	buf_release(&text);
	buf_release(&label);
	acp_send(p, m);
}

/* exit_plan and ask_user ask through their own requests; false for any other call. */
static bool
acp_plan_ask(struct acp *p, const cJSON *ev)
{
	const char *name = json_str(ev, "name", "");
	struct acp_perm *k;

	if (strcmp(name, "exit_plan") != 0 && strcmp(name, "ask_user") != 0)
		return false;
	k = xcalloc(1, sizeof *k);
	k->tool_id = xstrdup(json_str(ev, "id", ""));
	k->ask = cJSON_Duplicate(ev, 1);
	k->answers = cJSON_CreateObject();
	acp_plan_request(p, k);
	return true;
}

static void
acp_plan_mode(struct acp *p, enum perm_mode m)
{
	cJSON *u = cJSON_CreateObject();

	agent_set_mode(p->agent, m);
	cJSON_AddStringToObject(u, "sessionUpdate", "current_mode_update");
	cJSON_AddStringToObject(u, "currentModeId", perm_mode_name(m));
	acp_update(p, u);
}

/* The client picked opt (picked false: it cancelled or failed) for k, taken off the list. */
static void
acp_plan_answered(struct acp *p, struct acp_perm *k, bool picked, const char *opt)
{
	const cJSON *input = json_get(k->ask, "input"), *q, *o;
	struct buf a = BUF_INIT(BUF_NOLIMIT);
	cJSON *in;
	char *end;
	long n;

	if (strcmp(json_str(k->ask, "name", ""), "exit_plan") == 0) {
		if (picked && strncmp(opt, "plan_", 5) == 0 && strcmp(opt, "plan_keep") != 0) {
			acp_plan_mode(p, strcmp(opt, "plan_accept_edits") == 0 ? PERM_ACCEPT_EDITS :
			    PERM_ASK);
			agent_answer(p->agent, k->tool_id, APPROVAL_ALLOW, NULL, NULL);
		} else {
			agent_answer(p->agent, k->tool_id, APPROVAL_DENY, picked ? "the plan is sent "
			    "back: the user keeps planning. Revise it (still in plan mode: read-only) "
			    "and call exit_plan again" : "the prompt was cancelled", NULL);
		}
		acp_perm_free(k);
		return;
	}
	q = cJSON_GetArrayItem(json_get(input, "questions"), k->q);
	n = picked && strncmp(opt, "answer_", 7) == 0 ? strtol(opt + 7, &end, 10) : -1;
	o = n >= 0 && *end == '\0' ? cJSON_GetArrayItem(json_get(q, "options"), (int)n) : NULL;
	if (o == NULL) {
		agent_answer(p->agent, k->tool_id, APPROVAL_DENY, picked ? "the user declined to "
		    "answer: go on with your best judgement, or ask in words" :
		    "the prompt was cancelled", NULL);
		acp_perm_free(k);
		return;
	}
	buf_puts(&a, json_str(o, "label", ""));
	if (json_bool(q, "multiSelect", false))
		buf_puts(&a, " (the editor lets the user pick one option only)");
	cJSON_AddStringToObject(k->answers, json_str(q, "question", ""), buf_cstr(&a));
	buf_release(&a);
	if (++k->q < cJSON_GetArraySize(json_get(input, "questions"))) {
		acp_plan_request(p, k);
		return;
	}
	in = cJSON_Duplicate(input, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(in, "answers");
	cJSON_AddItemToObject(in, "answers", cJSON_Duplicate(k->answers, 1));
	agent_answer(p->agent, k->tool_id, APPROVAL_ALLOW, NULL, in);
	cJSON_Delete(in);
	acp_perm_free(k);
}
