/* The agent tool and the subagents it runs: see subagent.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgshell.h"
#include "ev.h"
#include "event.h"
#include "json.h"
#include "subagent.h"
#include "subtype.h"
#include "toolnames.h"
#include "xalloc.h"

#define SUB_ANSWER_MAX	(256 * 1024)	/* of a subagent's answer, what its caller gets */
#define SUB_LINE_MAX	160		/* a progress line's summary of a call's input */

/* One subagent: the agent call that started it and its conversation. */
struct sub_run {
	struct subagents	*s;
	struct conversation	*cv;
	struct conversation	*parent;
	struct event_bus	*bus;		/* its conversation's own */
	char			*id;		/* the agent call's */
	char			*who;		/* "Explore: find the parser" */
	const struct subtype	*type;
	tool_async_progress_fn	*progress;
	tool_async_done_fn	*done;
	void			*arg;
	int64_t			 started;
	int			 calls;		/* its model calls */
	int64_t			 tokens;
	double			 cost;
	struct buf		 answer;
	char			*stop_reason;
	char			*error;		/* why it could not start, or its last error */
	bool			 is_error;
	bool			 ended;
	bool			 stopping;
	bool			 background;	/* run_in_background: the call returned at its start */
	bool			 detached;	/* and its call has its result: no progress, no done */
	int			 n;		/* agent_N, for bash_output and kill_shell */
	struct buf		 bglog;		/* a background run's calls, not yet read */
	char			*final;		/* a background run's result, once it ended */
	uint64_t		 detach_timer;
	uint64_t		 timer;
	uint64_t		 stop_timer;
	struct sub_run		*next;
};

struct subagents {
	struct ev_loop		*loop;
	const struct sub_host	*host;
	void			*session;
	char			*root;
	char			*home;
	struct subtype		*types;
	struct buf		 warn;		/* the definition files' problems */
	struct tool_def		 def;
	struct sub_run		*runs;
	struct conversation	*writer;	/* holds the slot of calls that change things */
	bool			 closing;	/* sub_free: nothing more is told or started */
	int			 serial;	/* the last agent_N */
	int			 done_runs;	/* for /cost: the subagents that ended */
	int64_t			 tokens;
	double			 cost;
	int			 writes;
};

static void *sub_start(const struct tool_def *, const cJSON *input, const char *id,
    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg);
static void sub_cancel(void *job);
static bool sub_shell_op(void *arg, enum tool_shell_op op, const char *id, struct tool_out *out);

static const struct tool_async sub_async = { sub_start, sub_cancel };

static const char sub_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"description\":{\"type\":\"string\",\"description\":\"3-5 words\"},"
    "\"prompt\":{\"type\":\"string\",\"description\":\"the whole task; it sees nothing else\"},"
    "\"subagent_type\":{\"type\":\"string\"},"
    "\"model\":{\"type\":\"string\",\"description\":\"haiku, sonnet, opus, inherit\"}},"
    "\"required\":[\"description\",\"prompt\",\"subagent_type\"]}";

/* The types, read again when no subagent runs (their files may have changed). */
static void
sub_reload(struct subagents *s)
{
	if (s->runs != NULL)
		return;
	subtype_list_free(s->types);
	buf_reset(&s->warn);
	s->types = subtype_load(s->root, s->home, &s->warn);
}

struct subagents *
sub_new(struct ev_loop *loop, const struct sub_host *host, void *session, const char *root,
    const char *home)
{
	struct subagents *s = xcalloc(1, sizeof *s);

	s->loop = loop;
	s->host = host;
	s->session = session;
	s->root = root != NULL ? xstrdup(root) : NULL;
	s->home = home != NULL ? xstrdup(home) : NULL;
	buf_init(&s->warn, 64 * 1024);
	s->def.name = "agent";
	s->def.description = "Start a subagent";
	s->def.schema = sub_schema;
	s->def.cls = TOOL_READ_ONLY;
	s->def.parallel = true;
	s->def.async = &sub_async;
	s->def.owner = s;
	bgshell_on_other(sub_shell_op, s);
	sub_reload(s);
	return s;
}

static void
sub_run_free(struct sub_run *r)
{
	struct sub_run **p;

	for (p = &r->s->runs; *p != NULL; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	if (r->timer != 0)
		ev_timer_cancel(r->s->loop, r->timer);
	if (r->stop_timer != 0)
		ev_timer_cancel(r->s->loop, r->stop_timer);
	if (r->detach_timer != 0)
		ev_timer_cancel(r->s->loop, r->detach_timer);
	/* closing: the session frees its conversations itself */
	if (r->cv != NULL && !r->s->closing)
		r->s->host->close(r->cv);
	if (r->s->writer == r->cv && r->cv != NULL) {
		r->s->writer = NULL;
		r->s->writes = 0;
	}
	if (r->bus != NULL)
		event_bus_free(r->bus);
	free(r->id);
	free(r->who);
	buf_release(&r->answer);
	free(r->stop_reason);
	free(r->error);
	buf_release(&r->bglog);
	free(r->final);
	free(r);
}

void
sub_close(struct subagents *s)
{
	if (s != NULL)
		s->closing = true;
}

void
sub_free(struct subagents *s)
{
	if (s == NULL)
		return;
	s->closing = true;
	bgshell_on_other(NULL, NULL);
	while (s->runs != NULL)
		sub_run_free(s->runs);
	subtype_list_free(s->types);
	buf_release(&s->warn);
	free(s->root);
	free(s->home);
	free(s);
}

const struct tool_def *
sub_tool(struct subagents *s, const char *name)
{
	if (s == NULL || name == NULL)
		return NULL;
	return strcmp(toolname_tandem(name), "agent") == 0 ? &s->def : NULL;
}

void
sub_tool_json(struct subagents *s, cJSON *tools)
{
	struct buf d = BUF_INIT(BUF_NOLIMIT);
	const struct subtype *t;
	cJSON *o;

	if (s == NULL)
		return;
	sub_reload(s);
	buf_puts(&d, "Hand a task to a subagent: a fresh context that returns only its final "
	    "answer. Calls in one response run at once. Types:");
	for (t = s->types; t != NULL; t = t->next)
		buf_printf(&d, "\n- %s: %s", t->name, t->description);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", "agent");
	cJSON_AddStringToObject(o, "description", buf_cstr(&d));
	cJSON_AddItemToObject(o, "input_schema", cJSON_Parse(sub_schema));
	cJSON_AddItemToArray(tools, o);
	buf_release(&d);
}

static struct sub_run *
sub_run_of(const struct subagents *s, const struct conversation *cv)
{
	struct sub_run *r;

	for (r = s != NULL ? s->runs : NULL; r != NULL; r = r->next)
		if (r->cv == cv && cv != NULL)
			return r;
	return NULL;
}

const char *
sub_who(struct subagents *s, const struct conversation *cv)
{
	struct sub_run *r = sub_run_of(s, cv);

	return r != NULL ? r->who : NULL;
}

void
sub_cost_report(const struct subagents *s, struct buf *out)
{
	if (s == NULL || s->done_runs == 0)
		return;
	buf_printf(out, "Subagents: %d run%s, %lld tokens, $%.4f (in the cost above)\n", s->done_runs,
	    s->done_runs == 1 ? "" : "s", (long long)s->tokens, s->cost);
}

const char *
sub_warnings(const struct subagents *s)
{
	return s != NULL && s->warn.len > 0 ? buf_cstr(&s->warn) : NULL;
}

int
sub_running(const struct subagents *s)
{
	const struct sub_run *r;
	int n = 0;

	for (r = s != NULL ? s->runs : NULL; r != NULL; r = r->next)
		n += !r->ended;
	return n;
}

/* subtype_describe's question: does the project's type t's model wait for trust? */
static bool
sub_model_held(const struct subtype *t, void *arg, struct buf *why)
{
	struct subagents *s = arg;

	return s->host->model_held != NULL && s->host->model_held(s->session, t->model, why);
}

void
sub_describe(struct subagents *s, struct buf *out)
{
	sub_reload(s);
	subtype_describe(s->types, out, sub_model_held, s);
	if (s->warn.len > 0)
		buf_printf(out, "\n%s", buf_cstr(&s->warn));
}

enum hook_event
sub_hook_event(struct subagents *s, const struct conversation *cv, bool stop, const char **type,
    cJSON *fields)
{
	struct sub_run *r = sub_run_of(s, cv);

	*type = NULL;
	if (r == NULL)
		return stop ? HOOK_STOP : HOOK_USER_PROMPT_SUBMIT;
	*type = r->type->name;
	if (fields != NULL) {
		cJSON_AddStringToObject(fields, "agent_id", r->id);
		cJSON_AddStringToObject(fields, "agent_type", r->type->name);
	}
	return stop ? HOOK_SUBAGENT_STOP : HOOK_SUBAGENT_START;
}

enum sub_verdict
sub_gate(struct subagents *s, struct conversation *cv, const char *tool,
    const struct tool_def *def, bool exclusive, struct buf *why)
{
	struct sub_run *r = sub_run_of(s, cv);

	if (s == NULL)
		return SUB_PASS;
	if (r != NULL && !subtype_allows(r->type, tool, def)) {
		buf_printf(why, "the %s subagent may not use %s: its type does not allow it; do "
		    "the task with the tools you have, or say what you could not do", r->type->name,
		    toolname_cc_or_self(tool));
		return SUB_REFUSE;
	}
	if (exclusive && s->writer != NULL && s->writer != cv) {
		const char *who = sub_who(s, s->writer);

		if (who != NULL)
			buf_printf(why, "waits for the %s subagent to finish its change", who);
		else
			buf_puts(why, "waits for the main conversation to finish its change");
		return SUB_LATER;
	}
	return SUB_PASS;
}

void
sub_started(struct subagents *s, struct conversation *cv, bool exclusive)
{
	if (s == NULL || !exclusive)
		return;
	if (s->writer == NULL || s->writer == cv) {
		s->writer = cv;
		s->writes++;
	}
}

void
sub_finished(struct subagents *s, struct conversation *cv, bool exclusive)
{
	if (s == NULL || !exclusive || s->writer != cv)
		return;
	if (--s->writes <= 0) {
		s->writer = NULL;
		s->writes = 0;
		s->host->kick(s->session);
	}
}

/* --- one subagent's life ------------------------------------------------- */

/* A "subagent" event on the caller's bus: its state for the front ends. */
static void
sub_tell(struct sub_run *r, const char *state, const cJSON *inner)
{
	struct event_bus *bus = r->parent != NULL ? r->s->host->bus(r->parent) : NULL;
	cJSON *ev;

	if (bus == NULL)
		return;
	ev = event_new(bus, "subagent");
	cJSON_AddStringToObject(ev, "parent_tool_use_id", r->id);
	cJSON_AddStringToObject(ev, "state", state);
	cJSON_AddStringToObject(ev, "agent", r->type != NULL ? r->type->name : "");
	cJSON_AddStringToObject(ev, "who", r->who);
	cJSON_AddNumberToObject(ev, "calls", r->calls);
	cJSON_AddNumberToObject(ev, "tokens", (double)r->tokens);
	cJSON_AddNumberToObject(ev, "cost_usd", r->cost);
	if (inner != NULL)
		cJSON_AddItemToObject(ev, "event", cJSON_Duplicate(inner, 1));
	if (strcmp(state, "end") == 0 && r->answer.len > 0)
		json_add_str_n(ev, "answer", r->answer.data, r->answer.len);
	event_emit(bus, ev);
}

/*
 * The subagent in the session's log: its start, and at its end its answer
 * (its messages went there as they were said: sub_record).
 */
static void
sub_log(struct sub_run *r, const char *state, bool end)
{
	cJSON *rec;

	if (r->cv == NULL)
		return;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "subagent");
	cJSON_AddStringToObject(rec, "state", state);
	cJSON_AddNumberToObject(rec, "turn", r->parent != NULL ? event_turn(r->s->host->bus(r->parent)) :
	    event_turn(r->bus));
	cJSON_AddStringToObject(rec, "parent", r->id);
	cJSON_AddStringToObject(rec, "agent", r->type->name);
	cJSON_AddStringToObject(rec, "who", r->who);
	if (end) {
		json_add_str_n(rec, "answer", r->answer.data != NULL ? r->answer.data : "", r->answer.len);
		cJSON_AddStringToObject(rec, "stop_reason", r->stop_reason != NULL ? r->stop_reason : "");
		cJSON_AddNumberToObject(rec, "calls", r->calls);
		cJSON_AddNumberToObject(rec, "tokens", (double)r->tokens);
		cJSON_AddNumberToObject(rec, "cost_usd", r->cost);
	}
	/* a log that cannot be written is the turn's to report; the answer still goes back */
	(void)r->s->host->log(r->cv, rec);
}

int
sub_record(struct subagents *s, struct conversation *cv, const char *role, const cJSON *content)
{
	struct sub_run *r = sub_run_of(s, cv);
	cJSON *rec;

	if (r == NULL || s->closing)
		return 0;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "submsg");
	cJSON_AddNumberToObject(rec, "turn", r->parent != NULL ? event_turn(s->host->bus(r->parent)) : 0);
	cJSON_AddStringToObject(rec, "parent", r->id);
	cJSON_AddStringToObject(rec, "agent", r->type->name);
	cJSON_AddStringToObject(rec, "who", r->who);
	cJSON_AddStringToObject(rec, "role", role);
	cJSON_AddItemToObject(rec, "content", cJSON_Duplicate(content, 1));
	return s->host->log(cv, rec);
}

/* A replayed "subagent" event of the record rec for its parent call. */
static cJSON *
sub_replay_event(struct event_bus *bus, const cJSON *rec, const char *state)
{
	cJSON *ev = event_new(bus, "subagent");

	cJSON_AddStringToObject(ev, "parent_tool_use_id", json_str(rec, "parent", ""));
	cJSON_AddStringToObject(ev, "state", state);
	cJSON_AddStringToObject(ev, "agent", json_str(rec, "agent", ""));
	cJSON_AddStringToObject(ev, "who", json_str(rec, "who", ""));
	cJSON_AddBoolToObject(ev, "replay", 1);
	return ev;
}

void
sub_replay(const cJSON *submsgs, const char *parent, struct event_bus *bus)
{
	const cJSON *rec, *b;

	cJSON_ArrayForEach(rec, submsgs) {
		bool user = strcmp(json_str(rec, "role", ""), "user") == 0;

		if (strcmp(json_str(rec, "parent", ""), parent) != 0)
			continue;
		cJSON_ArrayForEach(b, json_get(rec, "content")) {
			const char *type = json_str(b, "type", "");
			cJSON *ev, *in;

			if (!user && strcmp(type, "text") == 0) {
				ev = sub_replay_event(bus, rec, "text");
				in = cJSON_AddObjectToObject(ev, "event");
				cJSON_AddStringToObject(in, "type", "text");
				cJSON_AddStringToObject(in, "text", json_str(b, "text", ""));
			} else if (!user && strcmp(type, "tool_use") == 0) {
				ev = sub_replay_event(bus, rec, "tool");
				in = cJSON_AddObjectToObject(ev, "event");
				cJSON_AddStringToObject(in, "type", "tool_use");
				cJSON_AddStringToObject(in, "id", json_str(b, "id", ""));
				cJSON_AddStringToObject(in, "name", json_str(b, "name", ""));
				cJSON_AddItemToObject(in, "input", cJSON_Duplicate(json_get(b, "input"), 1));
			} else if (user && strcmp(type, "tool_result") == 0) {
				const cJSON *c = json_get(b, "content");

				ev = sub_replay_event(bus, rec, "tool_result");
				in = cJSON_AddObjectToObject(ev, "event");
				cJSON_AddStringToObject(in, "type", "tool_result");
				cJSON_AddStringToObject(in, "id", json_str(b, "tool_use_id", ""));
				cJSON_AddStringToObject(in, "content", cJSON_IsString(c) ? c->valuestring : "");
				cJSON_AddBoolToObject(in, "is_error", json_bool(b, "is_error", false));
			} else
				continue;
			event_emit(bus, ev);
		}
	}
}

void
sub_tool_names(const cJSON *submsgs, const char *parent, cJSON *names)
{
	const cJSON *rec, *b;
	struct buf n = BUF_INIT(BUF_NOLIMIT);

	cJSON_ArrayForEach(rec, submsgs) {
		if (strcmp(json_str(rec, "parent", ""), parent) != 0 ||
		    strcmp(json_str(rec, "role", ""), "assistant") != 0)
			continue;
		cJSON_ArrayForEach(b, json_get(rec, "content"))
			if (strcmp(json_str(b, "type", ""), "tool_use") == 0) {
				buf_reset(&n);
				buf_printf(&n, "%s (%s)", json_str(b, "name", "?"), json_str(rec, "agent", "?"));
				cJSON_AddItemToArray(names, cJSON_CreateString(buf_cstr(&n)));
			}
	}
	buf_release(&n);
}

/* The agent call's result: the answer and a line of its cost; then the subagent goes. */
static void
sub_finish(struct ev_loop *loop, void *arg)
{
	struct sub_run *r = arg;
	struct tool_out out;
	tool_async_done_fn *done = r->done;
	void *darg = r->arg;
	int64_t ms = ev_now_ms() - r->started;

	(void)loop;
	r->timer = 0;
	tool_out_init(&out);
	if (r->error != NULL && r->cv == NULL) {
		tool_out_error(&out, "%s", r->error);
	} else {
		if (r->answer.len > 0)
			buf_append(&out.text, r->answer.data, r->answer.len);
		else
			buf_puts(&out.text, "(the subagent gave no answer)");
		if (r->error != NULL)
			buf_printf(&out.text, "\n\n(the subagent's last error: %s)", r->error);
		buf_printf(&out.text, "\n\n[%s subagent: %s, %d model call%s, %lld tokens, $%.4f, %.1f s]",
		    r->type->name, r->stop_reason != NULL ? r->stop_reason : "ended", r->calls,
		    r->calls == 1 ? "" : "s", (long long)r->tokens, r->cost, (double)ms / 1000.0);
		out.is_error = r->is_error;
	}
	sub_tell(r, "end", NULL);
	sub_log(r, "end", true);
	if (r->cv != NULL) {
		r->s->done_runs++;
		r->s->tokens += r->tokens;
		r->s->cost += r->cost;
		if (r->parent != NULL)
			r->s->host->charge(r->parent, r->cost);
	}
	if (r->detached) {
		struct buf note = BUF_INIT(BUF_NOLIMIT);

		/* the parent's next turn gets it; bash_output still can */
		buf_printf(&note, "The background subagent agent_%d (%s) ended:\n\n%s", r->n, r->who,
		    buf_cstr(&out.text));
		r->s->host->inbox(r->parent, buf_cstr(&note));
		buf_release(&note);
		r->final = xstrdup(buf_cstr(&out.text));
		if (r->cv != NULL)
			r->s->host->close(r->cv);
		r->cv = NULL;
		tool_out_release(&out);
		return;
	}
	sub_run_free(r);
	done(darg, &out, ms);
	tool_out_release(&out);
}

/* A background run's call returns at once, with the id its output and end answer to. */
static void
sub_detach(struct ev_loop *loop, void *arg)
{
	struct sub_run *r = arg;
	struct tool_out out;

	(void)loop;
	r->detach_timer = 0;
	if (r->ended)
		return;		/* it ended before: sub_finish gives the call its result */
	tool_out_init(&out);
	buf_printf(&out.text, "The %s subagent runs in the background as agent_%d. Its answer comes "
	    "with the next prompt; bash_output with shell_id agent_%d shows what it did so far, "
	    "kill_shell stops it.", r->type->name, r->n, r->n);
	r->detached = true;
	r->progress = NULL;
	r->done(r->arg, &out, ev_now_ms() - r->started);
	r->done = NULL;
	tool_out_release(&out);
}

static void
sub_end_soon(struct sub_run *r)
{
	r->ended = true;
	if (r->s->closing)
		return;
	if (r->timer == 0)
		r->timer = ev_timer_add(r->s->loop, 0, sub_finish, r);
}

/* A call of the subagent as one line of the agent call's progress. */
static void
sub_tool_line(struct sub_run *r, const cJSON *ev)
{
	struct buf line = BUF_INIT(64 * 1024);
	char *in = json_print(json_get(ev, "input"));
	size_t n = in != NULL ? strlen(in) : 0;

	buf_printf(&line, "%s · %s %.*s%s · %d call%s, %lld tokens\n", r->type->name,
	    toolname_cc_or_self(json_str(ev, "name", "?")), (int)(n > SUB_LINE_MAX ? SUB_LINE_MAX : n),
	    in != NULL ? in : "", n > SUB_LINE_MAX ? "…" : "", r->calls + 1, r->calls + 1 == 1 ? "" : "s",
	    (long long)r->tokens);
	if (r->progress != NULL)
		r->progress(r->arg, buf_cstr(&line), line.len);
	if (r->background)
		buf_append(&r->bglog, line.data, line.len);
	free(in);
	buf_release(&line);
}

/* The subagent's approved call waits for another's change: a line of the agent call's progress. */
static void
sub_wait_line(struct sub_run *r, const cJSON *ev)
{
	struct buf line = BUF_INIT(64 * 1024);

	buf_printf(&line, "%s · %s %s\n", r->type->name, toolname_cc_or_self(json_str(ev, "name", "?")),
	    json_str(ev, "note", ""));
	if (r->progress != NULL)
		r->progress(r->arg, buf_cstr(&line), line.len);
	if (r->background)
		buf_append(&r->bglog, line.data, line.len);
	buf_release(&line);
}

/* An approval the subagent waits for, asked on the caller's bus, saying who asks. */
static void
sub_forward_approval(struct sub_run *r, const cJSON *ev)
{
	struct event_bus *bus = r->s->host->bus(r->parent);
	cJSON *fw = event_new(bus, "approval_request"), *it;
	struct buf reason = BUF_INIT(BUF_NOLIMIT);

	cJSON_ArrayForEach(it, ev)
		if (strcmp(it->string, "type") != 0 && strcmp(it->string, "turn") != 0 &&
		    strcmp(it->string, "reason") != 0)
			cJSON_AddItemToObject(fw, it->string, cJSON_Duplicate(it, 1));
	buf_printf(&reason, "the %s subagent asks: %s", r->who, json_str(ev, "reason", ""));
	cJSON_AddStringToObject(fw, "reason", buf_cstr(&reason));
	cJSON_AddStringToObject(fw, "subagent", r->who);
	cJSON_AddStringToObject(fw, "parent_tool_use_id", r->id);
	buf_release(&reason);
	event_emit(bus, fw);
}

/* The type's maxTurns was reached and the turn goes on: stop it. */
static void
sub_stop_now(struct ev_loop *loop, void *arg)
{
	struct sub_run *r = arg;

	(void)loop;
	r->stop_timer = 0;
	if (!r->ended && r->cv != NULL)
		r->s->host->stop(r->cv);
}

/* What the subagent's conversation says, on its own bus. */
static void
sub_event(const cJSON *ev, void *arg)
{
	struct sub_run *r = arg;
	const char *type = json_str(ev, "type", "");

	if (r->ended || r->s->closing)
		return;
	if (strcmp(type, "tool_use") == 0) {
		struct buf name = BUF_INIT(BUF_NOLIMIT);

		sub_tool_line(r, ev);
		sub_tell(r, "tool", ev);
		buf_printf(&name, "%s:%s", r->type->name, json_str(ev, "name", "?"));
		if (r->parent != NULL)
			r->s->host->note_tool(r->parent, buf_cstr(&name));
		buf_release(&name);
	} else if (strcmp(type, "tool_result") == 0) {
		sub_tell(r, "tool_result", ev);
	} else if (strcmp(type, "text") == 0) {
		sub_tell(r, "text", ev);
	} else if (strcmp(type, "tool_wait") == 0) {
		sub_wait_line(r, ev);
		sub_tell(r, "tool_wait", ev);
	} else if (strcmp(type, "approval_request") == 0) {
		sub_forward_approval(r, ev);
	} else if (strcmp(type, "approval") == 0) {
		struct event_bus *bus = r->s->host->bus(r->parent);
		cJSON *fw = cJSON_Duplicate(ev, 1);

		cJSON_DeleteItemFromObject(fw, "turn");
		cJSON_AddNumberToObject(fw, "turn", event_turn(bus));
		event_emit(bus, fw);
	} else if (strcmp(type, "usage") == 0) {
		r->calls++;
		r->tokens += json_int(ev, "input_tokens", 0) + json_int(ev, "output_tokens", 0) +
		    json_int(ev, "cache_creation_input_tokens", 0) + json_int(ev, "cache_read_input_tokens", 0);
		r->cost += json_num(ev, "cost_usd", 0);
		sub_tell(r, "usage", NULL);
		if (r->type->max_turns > 0 && r->calls >= r->type->max_turns && !r->stopping) {
			r->stopping = true;
			free(r->error);
			r->error = xstrdup("it reached its type's maxTurns");
			/* not from inside the call's end: from the loop, if its turn goes on */
			r->stop_timer = ev_timer_add(r->s->loop, 0, sub_stop_now, r);
		}
	} else if (strcmp(type, "error") == 0) {
		free(r->error);
		r->error = xstrdup(json_str(ev, "message", "an error"));
	} else if (strcmp(type, "result") == 0) {
		buf_reset(&r->answer);
		buf_append(&r->answer, json_str(ev, "text", ""), strlen(json_str(ev, "text", "")));
		free(r->stop_reason);
		r->stop_reason = xstrdup(json_str(ev, "stop_reason", "end_turn"));
		r->is_error = json_bool(ev, "is_error", false);
		sub_end_soon(r);
	}
}

/*
 * The model a call names, else its type, as the session's provider spells
 * it; NULL: the session's.  A call's model is the model's choice, made in
 * the user's conversation; a type's is its definition's, and a project's
 * definition may not pick a dearer model than the session's until the
 * project is trusted (agent.h: agent_project_model).
 */
static const char *
sub_model(struct subagents *s, const cJSON *input, const struct subtype *t)
{
	const char *want = json_str(input, "model", NULL);
	struct buf def = BUF_INIT(BUF_NOLIMIT);
	const char *m;

	if (want == NULL && t->project)
		buf_printf(&def, "the agent definition %s (subagent type %s)", t->source, t->name);
	if (want == NULL)
		want = t->model;
	m = s->host->model_for(s->session, want == NULL || want[0] == '\0' ? "inherit" : want,
	    def.len > 0 ? buf_cstr(&def) : NULL);
	buf_release(&def);
	return m;
}

static void *
sub_start(const struct tool_def *def, const cJSON *input, const char *id,
    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg)
{
	struct subagents *s = def->owner;
	struct sub_run *r = xcalloc(1, sizeof *r);
	const char *prompt = json_str(input, "prompt", NULL);
	const char *desc = json_str(input, "description", "");
	const char *tname = json_str(input, "subagent_type", "general-purpose");
	struct buf who = BUF_INIT(BUF_NOLIMIT);
	struct sub_spec spec;

	sub_reload(s);
	r->s = s;
	r->id = xstrdup(id);
	r->progress = progress;
	r->done = done;
	r->arg = arg;
	r->started = ev_now_ms();
	buf_init(&r->answer, SUB_ANSWER_MAX);
	r->next = s->runs;
	s->runs = r;
	r->parent = s->host->owner(s->session, id);
	r->type = subtype_find(s->types, tname);
	buf_printf(&who, "%s: %s", tname, desc);
	r->who = buf_detach(&who, NULL);
	if (prompt == NULL || prompt[0] == '\0') {
		r->error = xstrdup("the agent call needs a prompt: the whole task, as the subagent "
		    "sees nothing of this conversation");
		goto fail;
	}
	if (r->type == NULL) {
		struct buf b = BUF_INIT(BUF_NOLIMIT);
		const struct subtype *t;

		buf_printf(&b, "there is no subagent type \"%s\"; the types are:", tname);
		for (t = s->types; t != NULL; t = t->next)
			buf_printf(&b, " %s", t->name);
		r->error = buf_detach(&b, NULL);
		goto fail;
	}
	if (json_bool(input, "run_in_background", false)) {
		if (r->parent == NULL || !s->host->is_main(r->parent)) {
			r->error = xstrdup("a subagent cannot start a subagent in the background: call the "
			    "agent tool without run_in_background");
			goto fail;
		}
		r->background = true;
		r->n = ++s->serial;
		buf_init(&r->bglog, 64 * 1024);
	}
	r->bus = event_bus_new();
	event_subscribe(r->bus, sub_event, r);
	spec.system = r->type->prompt;
	spec.type = r->type;
	spec.model = sub_model(s, input, r->type);
	r->cv = s->host->open(s->session, r->bus, &spec);
	if (r->cv == NULL) {
		r->error = xstrdup("the subagent's conversation could not be opened");
		goto fail;
	}
	sub_tell(r, "start", NULL);
	sub_log(r, "start", false);
	if (s->host->submit(r->cv, r->parent, prompt) == -1) {
		s->host->close(r->cv);
		r->cv = NULL;
		r->error = xstrdup("the subagent could not be started: the session could not be saved");
		goto fail;
	}
	if (r->background)
		r->detach_timer = ev_timer_add(s->loop, 0, sub_detach, r);
	return r;
fail:
	sub_end_soon(r);
	return r;
}

/* bash_output and kill_shell for agent_N (bgshell.h's other ids). */
static bool
sub_shell_op(void *arg, enum tool_shell_op op, const char *id, struct tool_out *out)
{
	struct subagents *s = arg;
	struct sub_run *r;
	char *end;
	long n;

	if (strncmp(id, "agent_", 6) != 0)
		return false;
	n = strtol(id + 6, &end, 10);
	for (r = s->runs; r != NULL; r = r->next)
		if (r->background && r->n == n && *end == '\0')
			break;
	if (r == NULL) {
		tool_out_error(out, "there is no background subagent %s; the agent tool with "
		    "run_in_background true returns the id (like agent_1)", id);
		return true;
	}
	if (op == TOOL_SHELL_KILL) {
		if (r->final != NULL) {
			buf_printf(&out->text, "agent_%d had already ended.", r->n);
			return true;
		}
		free(r->error);
		r->error = xstrdup("stopped by kill_shell");
		s->host->stop(r->cv);
		buf_printf(&out->text, "agent_%d (%s) is stopped: its calls end interrupted, and what "
		    "it did so far comes with the next prompt.", r->n, r->who);
		return true;
	}
	if (r->bglog.len > 0)
		buf_append(&out->text, r->bglog.data, r->bglog.len);
	buf_reset(&r->bglog);
	if (r->final != NULL)
		buf_printf(&out->text, "%sagent_%d ended:\n\n%s", out->text.len > 0 ? "\n" : "", r->n,
		    r->final);
	else
		buf_printf(&out->text, "%sagent_%d (%s) is still running: %d model call%s, %lld tokens "
		    "so far.", out->text.len > 0 ? "\n" : "", r->n, r->who, r->calls,
		    r->calls == 1 ? "" : "s", (long long)r->tokens);
	return true;
}

static void
sub_cancel(void *job)
{
	struct sub_run *r = job;

	if (r->s->closing)
		return;
	if (r->ended || r->cv == NULL) {
		sub_end_soon(r);
		return;
	}
	free(r->error);
	r->error = xstrdup("interrupted");
	r->s->host->stop(r->cv);
}
