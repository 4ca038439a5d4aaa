/*
 * The agent: one conversation and its turn loop (DESIGN.md §4).
 *
 * A turn: the prompt goes into the conversation; a model call streams the
 * answer (text out as events at once, each tool_use scheduled as soon as
 * its block completes); when the stream has ended and every tool has its
 * result, the stop reason decides: send the results and call again, end,
 * continue after max_tokens, or resend after pause_turn.  Failures of the
 * transport are retried with backoff; everything is on the loop.
 */
#include "autoconf.h"
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
#include "cachewatch.h"
#include "compact.h"
#include "config.h"
#include "conv.h"
#include "ev.h"
#include "fsutil.h"
#include "event.h"
#include "http.h"
#include "hooks.h"
#include "json.h"
#include "memory.h"
#include "modelcat.h"
#include "models.h"
#include "perm.h"
#include "provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "session.h"
#include "stream.h"
#include "xalloc.h"
#include "agent_int.h"
#include "call.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "resume.h"
#include "timeline.h"

static int agent_extend_last(struct agent *a, cJSON *blocks);
static bool agent_last_is(const struct agent *a, const char *role);
static int agent_add_user(struct agent *a, cJSON *content);
static cJSON * agent_text_block(const char *text);
static int agent_add_text(struct agent *a, const char *text);
static int64_t agent_tokens_used(const struct agent *a);
static int agent_checkpoint_a(struct agent *a);
static void agent_started(void *arg, struct sched_call *c);
static void agent_emit_progress(struct agent *a, const char *id, const char *p, size_t n);
static void agent_progress(void *arg, struct sched_call *c, const char *p, size_t n);
static int agent_snapshot_after(struct agent *a, const cJSON *files);
static void agent_post_hooked(void *arg, const char *id, struct hook_outcome *o);
static void agent_finished(void *arg, struct sched_call *c);
static void agent_tools_idle(void *arg);
static cJSON * agent_usage_json(const struct usage *u);
static void agent_end_turn(struct agent *a, const char *stop_reason, bool failed);
static bool agent_blank(const char *s);
static cJSON * agent_complete_blocks(cJSON *content, int *ntools);
static int agent_record_response(struct agent *a, cJSON *content);
static void agent_stop_hooked(void *arg, struct hook_outcome *o);
static bool agent_stop_hooks(struct agent *a);
static void agent_proceed(struct agent *a);
static bool agent_next_call(struct agent *a);
static void agent_start_prompt(struct agent *a, const char *prompt, const char *context);
static void agent_prompt_hooked(void *arg, struct hook_outcome *o);
static void agent_prompt_hooks(struct agent *a);
static void agent_session_started(void *arg, struct hook_outcome *o);
static void agent_hooks_ignored(void *arg, struct hook_outcome *o);

const char *
agent_session_id(const struct agent *a)
{
	return session_id(a->session);
}

const char *
agent_model(const struct agent *a)
{
	return a->model;
}

enum perm_mode
agent_mode(const struct agent *a)
{
	return a->mode;
}

void
agent_set_mode(struct agent *a, enum perm_mode mode)
{
	a->mode = mode;
}

bool
agent_busy(const struct agent *a)
{
	return a->busy || a->compacting;
}

/* The tools' policy: the configured deny rules, on the path a walk reached. */
bool
agent_path_denied(void *arg, enum sandbox_access access, const char *path)
{
	return perm_path_denied(arg, access, path);
}

/*
 * A write the session's promises rest on failed: say so once (the
 * session's sentence names the directory and the cause).  -1.
 */
int
agent_unsaved(struct agent *a)
{
	const char *why = session_error(a->session);

	if (!a->unsaved_told) {
		cJSON *ev = event_new(a->bus, "session_unsaved");

		a->unsaved_told = true;
		event_error(a->bus, 1, "%s", why != NULL ? why : "could not save the session");
		cJSON_AddStringToObject(ev, "message", why != NULL ? why : "");
		cJSON_AddStringToObject(ev, "dir", session_dir(a->session));
		event_emit(a->bus, ev);
	}
	a->failed = true;
	return -1;
}

/*
 * After agent_unsaved: stop the turn before anything more is sent or
 * run.  Calls not yet run end unrun; the turn ends once each has its
 * result.  -1.
 */
int
agent_halt(struct agent *a)
{
	agent_unsaved(a);
	if (!a->busy)
		return -1;
	if (sched_pending(a->sched) > 0) {
		if (!a->interrupting) {
			a->interrupting = true;
			a->stream_done = true;
			sched_interrupt(a->sched, AGENT_NOT_SAVED);
		}
		return -1;
	}
	agent_end_turn(a, "error", true);
	return -1;
}

/* Add a message to the conversation and to the log.  0, or -1 (reported). */
int
agent_add(struct agent *a, const char *role, cJSON *content)
{
	conv_add(&a->conv, role, content, a->turn);
	if (session_log_message(a->session, conv_last(&a->conv)) == -1)
		return agent_unsaved(a);
	return 0;
}

/* Append blocks (an array, taken) to the last message, in memory and in the log. */
static int
agent_extend_last(struct agent *a, cJSON *blocks)
{
	cJSON *rec = cJSON_CreateObject(), *dst = json_get(conv_last(&a->conv), "content"), *b;

	cJSON_AddStringToObject(rec, "k", "extend");
	cJSON_AddItemToObject(rec, "content", cJSON_Duplicate(blocks, 1));
	while ((b = blocks->child) != NULL)
		cJSON_AddItemToArray(dst, cJSON_DetachItemViaPointer(blocks, b));
	cJSON_Delete(blocks);
	if (session_append(a->session, rec) == -1)
		return agent_unsaved(a);
	return 0;
}

static bool
agent_last_is(const struct agent *a, const char *role)
{
	const cJSON *last = conv_last(&a->conv);

	return last != NULL && strcmp(json_str(last, "role", ""), role) == 0;
}

/*
 * Blocks (an array, taken) for the model.  After an answer that was empty
 * or interrupted the last message is already the user's: they join it, as
 * two user messages in a row would make the next request invalid.
 */
static int
agent_add_user(struct agent *a, cJSON *content)
{
	if (agent_last_is(a, "user"))
		return agent_extend_last(a, content);
	return agent_add(a, "user", content);
}

static cJSON *
agent_text_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

static int
agent_add_text(struct agent *a, const char *text)
{
	cJSON *content = cJSON_CreateArray();

	cJSON_AddItemToArray(content, agent_text_block(text));
	return agent_add_user(a, content);
}

static int64_t
agent_tokens_used(const struct agent *a)
{
	return a->last.input + a->last.cache_read + a->last.cache_write + a->last.output;
}

/*
 * The response named its tools and is in the log: checkpoint A, after
 * which side-effecting tools may run (read-only ones may already have).
 */
static int
agent_checkpoint_a(struct agent *a)
{
	cJSON *pending = cJSON_CreateArray(), *b;
	int rc;

	cJSON_ArrayForEach(b, json_get(conv_last(&a->conv), "content"))
		if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
			cJSON_AddItemToArray(pending, cJSON_Duplicate(b, 1));
	rc = session_checkpoint(a->session, 'A', a->turn, a->calls, agent_tokens_used(a), pending);
	cJSON_Delete(pending);
	/* Without checkpoint A on disk nothing with side effects may run. */
	if (rc == -1)
		return agent_unsaved(a);
	a->checkpoint_a = true;
	/* An interrupted turn starts nothing: its waiting calls end unrun. */
	if (!a->interrupting)
		sched_kick(a->sched);
	return 0;
}

void
agent_emit_session(struct agent *a, bool resumed)
{
	cJSON *ev = event_new(a->bus, "session");

	cJSON_AddStringToObject(ev, "id", session_id(a->session));
	cJSON_AddStringToObject(ev, "model", a->model);
	cJSON_AddStringToObject(ev, "provider", a->proto == STREAM_OPENAI ? "openai" : "anthropic");
	cJSON_AddStringToObject(ev, "cwd", a->cfg->root);
	cJSON_AddBoolToObject(ev, "resumed", resumed);
	event_emit(a->bus, ev);
}

/* --- permissions and the scheduler's callbacks --------------------------- */

void
agent_emit_approval(struct agent *a, const char *id, const char *decision, const char *by)
{
	cJSON *ev = event_new(a->bus, "approval");

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "decision", decision);
	cJSON_AddStringToObject(ev, "by", by);
	event_emit(a->bus, ev);
}

/* A hook's warnings and messages, for the user. */
void
agent_hook_notes(struct agent *a, const struct hook_outcome *o)
{
	if (o->warnings != NULL)
		event_error(a->bus, 0, "%s", o->warnings);
	if (o->system_message != NULL)
		event_error(a->bus, 0, "%s", o->system_message);
	if (o->stop && !a->hook_stop) {
		a->hook_stop = true;
		event_error(a->bus, 0, "a hook ended the turn%s%s", o->stop_reason != NULL ? ": " : "",
		    o->stop_reason != NULL ? o->stop_reason : "");
	}
}

static void
agent_started(void *arg, struct sched_call *c)
{
	struct agent *a = arg;

	a->progress_bytes = 0;
	crash_point("tool-started");
}

static void
agent_emit_progress(struct agent *a, const char *id, const char *p, size_t n)
{
	cJSON *ev = event_new(a->bus, "tool_progress");

	cJSON_AddStringToObject(ev, "id", id);
	json_add_str_n(ev, "output", p, n);
	cJSON_AddNumberToObject(ev, "bytes", (double)n);
	event_emit(a->bus, ev);
}

static void
agent_progress(void *arg, struct sched_call *c, const char *p, size_t n)
{
	struct agent *a = arg;
	struct buf clean = BUF_INIT(BUF_NOLIMIT);

	/* Past a few MB only the newest bytes matter to anyone watching. */
	a->progress_bytes += n;
	if (a->progress_bytes > AGENT_PROGRESS_FULL && n > 2048) {
		p += n - 2048;
		n = 2048;
	}
	/* A key is replaced before anyone sees it, even split across two reads. */
	redact_stream_feed(&a->progress_redact, p, n, &clean);
	if (clean.len > 0)
		agent_emit_progress(a, c->id, clean.data, clean.len);
	buf_release(&clean);
}

/*
 * Keep what tandem wrote, so that a rewind can be redone.  A snapshot
 * that cannot be written fails the session: a later rewind would promise
 * what it cannot restore.  0 or -1.
 */
static int
agent_snapshot_after(struct agent *a, const cJSON *files)
{
	const cJSON *f;
	int rc = 0;

	cJSON_ArrayForEach(f, files) {
		struct buf err = BUF_INIT(4096);
		struct sandbox sb = { a->cfg->root, (const char *const *)a->cfg->add_dirs, NULL };
		struct sandbox_at at;
		char *data = NULL, hex[SHA256_HEX_LEN + 1];
		size_t len = 0;

		/* read through the walk's descriptor, as the tool wrote it */
		if (rc == 0 && json_str(f, "after", NULL) != NULL &&
		    sandbox_walk(&sb, json_str(f, "path", ""), SANDBOX_READ, SANDBOX_MUST_EXIST,
		    &at, &err) == 0) {
			if (fsutil_read_at(&at, FSUTIL_MAX_FILE, &data, &len, &err) == 0) {
				errno = 0;
				if (fsutil_snapshot(a->snap_dir, data, len, hex, &err) == -1)
					rc = session_fail(a->session, "files/", errno != 0 ? errno : EIO);
			}
			sandbox_at_release(&at);
		}
		free(data);
		buf_release(&err);
	}
	return rc;
}

/* A PostToolUse hook's word for the model goes with the call's result. */
static void
agent_post_hooked(void *arg, const char *id, struct hook_outcome *o)
{
	struct agent *a = arg;
	struct sched_call *c = sched_find(a->sched, id);

	agent_hook_notes(a, o);
	if (c != NULL && o->decision == HOOK_BLOCK && o->reason != NULL)
		buf_printf(&c->result, "\n\nPostToolUse hook: %s", o->reason);
	if (c != NULL && o->additional_context != NULL)
		buf_printf(&c->result, "\n\n%s", o->additional_context);
	if (c != NULL)
		redact_buf(&c->result);
	if (a->busy && a->stream_done && sched_pending(a->sched) == 0 &&
	    hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
}

static void
agent_finished(void *arg, struct sched_call *c)
{
	struct agent *a = arg;
	struct buf rest = BUF_INIT(BUF_NOLIMIT);
	cJSON *ev;

	redact_stream_flush(&a->progress_redact, &rest);
	if (rest.len > 0)
		agent_emit_progress(a, c->id, rest.data, rest.len);
	buf_release(&rest);
	/* Before it is logged, shown, handed to hooks or sent: no key in it. */
	redact_buf(&c->result);
	if (c->tool != NULL && c->tool->cls != TOOL_READ_ONLY && c->ran) {
		crash_point("tool-done");
		if (session_effect(a->session, c->id, c->name, buf_cstr(&c->result), c->is_error) == -1)
			agent_unsaved(a);
	}
	if (c->meta != NULL && cJSON_GetArraySize(json_get(c->meta, "files")) > 0) {
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "files");
		cJSON_AddNumberToObject(rec, "turn", a->turn);
		cJSON_AddStringToObject(rec, "id", c->id);
		cJSON_AddItemToObject(rec, "files", cJSON_Duplicate(json_get(c->meta, "files"), 1));
		/* The calls after this one are refused by the gate; the turn ends when they are. */
		if (session_append(a->session, rec) == -1 ||
		    agent_snapshot_after(a, json_get(c->meta, "files")) == -1)
			agent_unsaved(a);
	}
	if (a->turn_tools != NULL)
		cJSON_AddItemToArray(a->turn_tools, cJSON_CreateString(c->name));
	ev = event_new(a->bus, "tool_result");

	cJSON_AddStringToObject(ev, "id", c->id);
	cJSON_AddStringToObject(ev, "name", c->name);
	cJSON_AddBoolToObject(ev, "is_error", c->is_error);
	json_add_str_n(ev, "content", buf_cstr(&c->result), c->result.len);
	cJSON_AddNumberToObject(ev, "duration_ms", (double)c->duration_ms);
	if (c->denied)
		cJSON_AddBoolToObject(ev, "denied", 1);
	event_emit(a->bus, ev);
	if (c->ran && session_error(a->session) == NULL)
		hooks_post_tool(a->hooks, c->id, c->name, c->input, buf_cstr(&c->result),
		    c->result.len, c->is_error, a->mode, agent_post_hooked, a);
}

static void
agent_tools_idle(void *arg)
{
	struct agent *a = arg;

	if (a->stream_done && hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
}

/* --- the stream ---------------------------------------------------------- */

void
agent_on_text(void *arg, int index, const char *s, size_t n)
{
	struct agent *a = arg;
	cJSON *ev = event_new(a->bus, "text");

	json_add_str_n(ev, "text", s, n);
	event_emit(a->bus, ev);
}

void
agent_on_thinking(void *arg, int index, const char *s, size_t n)
{
	struct agent *a = arg;
	cJSON *ev = event_new(a->bus, "thinking");

	json_add_str_n(ev, "text", s, n);
	event_emit(a->bus, ev);
}

void
agent_on_block(void *arg, int index, const cJSON *block)
{
	struct agent *a = arg;
	cJSON *ev;

	/* A call cut off before its block stopped is never run (nor recorded). */
	if (strcmp(json_str(block, "type", ""), "tool_use") != 0 || a->interrupting ||
	    json_bool(block, "_incomplete", false))
		return;
	ev = event_new(a->bus, "tool_use");
	cJSON_AddStringToObject(ev, "id", json_str(block, "id", ""));
	cJSON_AddStringToObject(ev, "name", json_str(block, "name", ""));
	cJSON_AddItemToObject(ev, "input", cJSON_Duplicate(json_get(block, "input"), 1));
	event_emit(a->bus, ev);
	sched_add(a->sched, json_str(block, "id", ""), json_str(block, "name", ""),
	    json_get(block, "input"), json_str(block, "_input_error", NULL));
}

/* --- ending a turn ------------------------------------------------------- */

static cJSON *
agent_usage_json(const struct usage *u)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "output_tokens", (double)u->output);
	cJSON_AddNumberToObject(o, "cache_creation_input_tokens", (double)u->cache_write);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->cache_read);
	return o;
}

static void
agent_end_turn(struct agent *a, const char *stop_reason, bool failed)
{
	cJSON *ev;

	{
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "turn");
		cJSON_AddNumberToObject(rec, "turn", a->turn);
		cJSON_AddStringToObject(rec, "prompt", a->turn_prompt != NULL ? a->turn_prompt : "");
		cJSON_AddItemToObject(rec, "tools", a->turn_tools != NULL ? a->turn_tools : cJSON_CreateArray());
		a->turn_tools = NULL;
		cJSON_AddNumberToObject(rec, "tokens",
		    (double)(a->totals.input + a->totals.output + a->totals.cache_read +
		    a->totals.cache_write - a->turn_tokens));
		cJSON_AddNumberToObject(rec, "ms", (double)(ev_now_ms() - a->turn_started));
		cJSON_AddNumberToObject(rec, "time", (double)time(NULL));
		cJSON_AddStringToObject(rec, "stop_reason", stop_reason);
		/* A turn whose record is not on disk is not shown as done. */
		if (session_error(a->session) != NULL) {
			cJSON_Delete(rec);
		} else if (session_append(a->session, rec) == -1 || session_sync(a->session) == -1 ||
		    resume_save_cache(a) == -1) {
			agent_unsaved(a);
		}
		if (session_error(a->session) != NULL) {
			stop_reason = "error";
			failed = true;
		}
	}
	a->busy = false;
	a->interrupting = false;
	if (a->retry_timer != 0)
		ev_timer_cancel(a->loop, a->retry_timer);
	a->retry_timer = 0;
	hooks_cancel_tools(a->hooks);
	hooks_cancel(a->hook_run);
	a->hook_run = NULL;
	a->prompt_waits = false;
	sched_reset(a->sched);
	ev = event_new(a->bus, "turn_end");
	cJSON_AddStringToObject(ev, "stop_reason", stop_reason);
	event_emit(a->bus, ev);
	ev = event_new(a->bus, "result");
	json_add_str_n(ev, "text", buf_cstr(&a->answer), a->answer.len);
	cJSON_AddStringToObject(ev, "stop_reason", stop_reason);
	cJSON_AddBoolToObject(ev, "is_error", failed);
	cJSON_AddNumberToObject(ev, "turns", a->calls);
	{
		cJSON *u = agent_usage_json(&a->totals);

		cJSON_AddNumberToObject(u, "cost_usd", a->cost);
		cJSON_AddItemToObject(ev, "usage", u);
	}
	cJSON_AddStringToObject(ev, "session_id", session_id(a->session));
	event_emit(a->bus, ev);
}

void
agent_fail(struct agent *a, const char *fmt, ...)
{
	struct buf m = BUF_INIT(64 * 1024);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&m, fmt, ap);
	va_end(ap);
	event_error(a->bus, 1, "%s", buf_cstr(&m));
	buf_release(&m);
	a->failed = true;
	/* Every tool_use must still get its result before the turn ends. */
	if (sched_pending(a->sched) > 0) {
		a->interrupting = true;
		a->stream_done = true;
		sched_interrupt(a->sched, "the turn failed before this call ran");
		return;
	}
	agent_end_turn(a, "error", true);
}

static bool
agent_blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/*
 * Keep the blocks that can go back to the model.  A tool_use or thinking
 * block cut off before its content_block_stop cannot (broken input, no
 * signature); cut-off text can, and is what the user saw; a text block
 * with nothing but white space cannot (the API refuses it).
 */
static cJSON *
agent_complete_blocks(cJSON *content, int *ntools)
{
	cJSON *b, *next;

	*ntools = 0;
	for (b = content->child; b != NULL; b = next) {
		bool text = strcmp(json_str(b, "type", ""), "text") == 0;

		next = b->next;
		if (text && agent_blank(json_str(b, "text", "")))
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		else if (text)
			cJSON_DeleteItemFromObjectCaseSensitive(b, "_incomplete");
		else if (json_bool(b, "_incomplete", false))
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		else if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
			(*ntools)++;
	}
	return content;
}

/*
 * Record a response's content (taken): a new assistant message, or more
 * of the paused one after pause_turn.  Nothing is recorded for an empty
 * response: an empty assistant message would make the next request
 * invalid.  Its text becomes the answer, or goes on with it.
 */
static int
agent_record_response(struct agent *a, cJSON *content)
{
	const cJSON *b;
	bool extend = a->paused && agent_last_is(a, "assistant");

	if (!a->continuing)
		buf_reset(&a->answer);
	a->paused = a->continuing = false;
	cJSON_ArrayForEach(b, content)
		if (strcmp(json_str(b, "type", ""), "text") == 0)
			buf_puts(&a->answer, json_str(b, "text", ""));
	if (cJSON_GetArraySize(content) == 0) {
		cJSON_Delete(content);
		return 0;
	}
	if (extend)
		return agent_extend_last(a, content);
	return agent_add(a, "assistant", content);
}

/* The response is over: record it, then go on once the tools are done. */
void
agent_response_done(struct agent *a, const char *stop_reason)
{
	cJSON *content;
	int ntools;

	call_record_usage(a);
	content = agent_complete_blocks(stream_take_content(a->stream), &ntools);
	if (cJSON_GetArraySize(content) == 0 && strcmp(stop_reason, "refusal") != 0 &&
	    strcmp(stop_reason, "pause_turn") != 0)
		event_error(a->bus, 0, "the model sent an empty answer (stop reason %s)", stop_reason);
	/* Not on disk: no tool runs and nothing more is sent. */
	if (agent_record_response(a, content) == -1 || session_error(a->session) != NULL ||
	    (ntools > 0 && agent_checkpoint_a(a) == -1)) {
		call_drop(a);
		agent_halt(a);
		return;
	}
	free(a->stop_reason);
	a->stop_reason = xstrdup(ntools > 0 && strcmp(stop_reason, "max_tokens") != 0 ?
	    "tool_use" : stop_reason);
	call_drop(a);
	a->stream_done = true;
	if (sched_pending(a->sched) == 0 && hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
}

/* The messages were compacted: log them, and say so.  A failed write is reported. */
void
agent_compacted(struct agent *a, enum compact_stage stage, int64_t before, int64_t after)
{
	cJSON *rec = cJSON_CreateObject(), *ev;

	cJSON_AddStringToObject(rec, "k", "replace");
	cJSON_AddStringToObject(rec, "stage", compact_stage_name(stage));
	cJSON_AddItemToObject(rec, "messages", cJSON_Duplicate(a->conv.messages, 1));
	if (session_append(a->session, rec) == -1 || session_sync(a->session) == -1) {
		agent_unsaved(a);
		return;
	}
	crash_point("compaction");
	if (stage > a->stage)
		a->stage = stage;
	ev = event_new(a->bus, "compaction");
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(stage));
	cJSON_AddNumberToObject(ev, "tokens_before", (double)before);
	cJSON_AddNumberToObject(ev, "tokens_after", (double)after);
	event_emit(a->bus, ev);
	ev = event_new(a->bus, "context");
	cJSON_AddNumberToObject(ev, "tokens", (double)modelset_est_tokens(a, after));
	cJSON_AddNumberToObject(ev, "window", (double)modelset_window(a));
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(a->stage));
	event_emit(a->bus, ev);
}

/*
 * Before a request: compact if the conversation has grown past a
 * threshold.  True when a summary call was started (it makes the request
 * when it is done).
 */
bool
agent_auto_compact(struct agent *a)
{
	struct compact_outcome o;
	char *sys = prompt_system_text(a);

	compact_auto(a->conv.messages, sys, a->tools, modelset_est_window(a), &a->th,
	    a->summary_failures < COMPACT_MAX_SUMMARY_FAILURES, &o);
	free(sys);
	if (o.stage != COMPACT_NONE)
		agent_compacted(a, o.stage, o.tokens_before, o.tokens_after);
	if (o.need_summary && hooks_has(a->hooks, HOOK_PRE_COMPACT, "auto")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "trigger", "auto");
		cJSON_AddStringToObject(f, "custom_instructions", "");
		hooks_run(a->hooks, HOOK_PRE_COMPACT, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
	}
	if (o.need_summary && call_sum_start(a, o.keep_turns, NULL, true) == 0)
		return true;
	return false;
}

static void
agent_stop_hooked(void *arg, struct hook_outcome *o)
{
	struct agent *a = arg;

	a->hook_run = NULL;
	agent_hook_notes(a, o);
	if (o->decision != HOOK_BLOCK || a->hook_stop) {
		agent_end_turn(a, "end_turn", false);
		return;
	}
	if (a->stop_blocks >= AGENT_MAX_STOP_BLOCKS) {
		event_error(a->bus, 0, "Stop hooks kept the turn going %d times in a row; "
		    "stopping here", a->stop_blocks);
		agent_end_turn(a, "end_turn", false);
		return;
	}
	a->stop_blocks++;
	if (agent_add_text(a, o->reason) == -1) {
		agent_halt(a);
		return;
	}
	agent_next_call(a);
}

/* The model is done: Stop hooks may send it on.  True when they run (the turn waits). */
static bool
agent_stop_hooks(struct agent *a)
{
	cJSON *f;

	if (!hooks_has(a->hooks, HOOK_STOP, NULL))
		return false;
	f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "stop_hook_active", a->stop_blocks > 0);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
	a->hook_run = hooks_run(a->hooks, HOOK_STOP, f, agent_stop_hooked, a);
	cJSON_Delete(f);
	return a->hook_run != NULL;
}

/* The response and all its tools are done: decide what comes next. */
static void
agent_proceed(struct agent *a)
{
	const char *sr = a->stop_reason != NULL ? a->stop_reason : "end_turn";
	bool had_tools = sched_count(a->sched) > 0;

	if (had_tools) {
		cJSON *last = conv_last(&a->conv);

		/* Results answer the tool_use blocks of the assistant message just recorded. */
		if (last != NULL && strcmp(json_str(last, "role", ""), "assistant") == 0 &&
		    session_error(a->session) == NULL &&
		    agent_add(a, "user", sched_results(a->sched)) == 0 &&
		    session_checkpoint(a->session, 'B', a->turn, a->calls, agent_tokens_used(a), NULL) == -1)
			agent_unsaved(a);
		sched_reset(a->sched);
	}
	if (session_error(a->session) != NULL) {
		agent_unsaved(a);
		agent_end_turn(a, "error", true);
		return;
	}
	if (a->interrupting) {
		agent_end_turn(a, a->failed ? "error" : "interrupted", a->failed);
		return;
	}
	if (a->hook_stop) {
		agent_end_turn(a, "stopped_by_hook", false);
		return;
	}
	if (strcmp(sr, "max_tokens") == 0) {
		if (a->continuations >= AGENT_MAX_CONTINUATIONS) {
			event_error(a->bus, 0, "the answer reached max_tokens %d times; stopping here",
			    a->continuations + 1);
			agent_end_turn(a, "max_tokens", false);
			return;
		}
		a->continuations++;
		event_error(a->bus, 0, "the answer reached the max_tokens limit; asking the model "
		    "to continue (%d of %d)", a->continuations, AGENT_MAX_CONTINUATIONS);
		/* After tool results the next answer starts afresh; after text it goes on. */
		a->continuing = !had_tools;
		if (agent_add_text(a, had_tools ? "Your answer was cut off by the output limit. "
		    "Continue where you stopped; resend any tool call that was cut off." :
		    "Your answer was cut off by the output limit. Continue exactly where you stopped.") == -1) {
			agent_halt(a);
			return;
		}
	} else if (strcmp(sr, "tool_use") == 0) {
		if (!had_tools) {
			agent_end_turn(a, "end_turn", false);
			return;
		}
	} else if (strcmp(sr, "pause_turn") == 0) {
		/* The server paused a long turn: send it back as it is; the rest joins it. */
		a->paused = a->continuing = true;
	} else {
		if (strcmp(sr, "refusal") == 0)
			event_error(a->bus, 0, "the model declined to answer this request");
		if (strcmp(sr, "end_turn") == 0 && agent_stop_hooks(a))
			return;
		agent_end_turn(a, sr, false);
		return;
	}
	agent_next_call(a);
}

/* One more model call for this turn, unless that would pass its cap (--max-turns). */
static bool
agent_next_call(struct agent *a)
{
	if (a->calls >= a->cfg->max_turns) {
		agent_fail(a, "this turn reached its cap of %d model calls (--max-turns); "
		    "send another prompt to go on", a->cfg->max_turns);
		return false;
	}
	a->calls++;
	a->attempt = 0;
	call_model(a);
	return true;
}

/* --- the front end's calls ----------------------------------------------- */

/* The prompt (and what UserPromptSubmit hooks added) goes to the model. */
static void
agent_start_prompt(struct agent *a, const char *prompt, const char *context)
{
	cJSON *content = cJSON_CreateArray();

	cJSON_AddItemToArray(content, agent_text_block(prompt));
	if (context != NULL)
		cJSON_AddItemToArray(content, agent_text_block(context));
	if (agent_add_user(a, content) == -1 || session_note_turn(a->session, a->turn, prompt) == -1) {
		agent_halt(a);
		return;
	}
	prompt_build_dynamic(a);
	agent_next_call(a);
}

static void
agent_prompt_hooked(void *arg, struct hook_outcome *o)
{
	struct agent *a = arg;

	a->hook_run = NULL;
	agent_hook_notes(a, o);
	if (o->decision == HOOK_BLOCK || o->stop) {
		event_error(a->bus, 0, "a UserPromptSubmit hook blocked the prompt: %s",
		    o->reason != NULL ? o->reason : o->stop_reason != NULL ? o->stop_reason :
		    "no reason given");
		agent_end_turn(a, "blocked", true);
		return;
	}
	agent_start_prompt(a, a->turn_prompt, o->additional_context);
}

/* After SessionStart (if it still runs), UserPromptSubmit hooks see the prompt first. */
static void
agent_prompt_hooks(struct agent *a)
{
	cJSON *f;

	a->prompt_waits = a->start_run != NULL;
	if (a->prompt_waits)
		return;
	if (hooks_has(a->hooks, HOOK_USER_PROMPT_SUBMIT, NULL)) {
		f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "prompt", a->turn_prompt);
		cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
		a->hook_run = hooks_run(a->hooks, HOOK_USER_PROMPT_SUBMIT, f, agent_prompt_hooked, a);
		cJSON_Delete(f);
		if (a->hook_run != NULL)
			return;
	}
	agent_start_prompt(a, a->turn_prompt, NULL);
}

static void
agent_session_started(void *arg, struct hook_outcome *o)
{
	struct agent *a = arg;

	a->start_run = NULL;
	agent_hook_notes(a, o);
	free(a->session_context);
	a->session_context = o->additional_context;
	o->additional_context = NULL;
	if (a->busy && a->prompt_waits)
		agent_prompt_hooks(a);
}

/* SessionStart hooks (source: startup, resume, clear); their context joins the system prompt. */
void
agent_session_start(struct agent *a, const char *source)
{
	cJSON *f;

	free(a->session_context);
	a->session_context = NULL;
	hooks_cancel(a->start_run);
	a->start_run = NULL;
	if (!hooks_has(a->hooks, HOOK_SESSION_START, source))
		return;
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "source", source);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
	a->start_run = hooks_run(a->hooks, HOOK_SESSION_START, f, agent_session_started, a);
	cJSON_Delete(f);
}

/* Hooks nobody waits for (PreCompact, SessionEnd): their answer changes nothing. */
static void
agent_hooks_ignored(void *arg, struct hook_outcome *o)
{
}

int
agent_submit(struct agent *a, const char *prompt)
{
	cJSON *ev;

	if (a->busy)
		return -1;
	if (a->compacting)
		return -1;
	/* The session could not be saved: try again now, from what is on disk. */
	if (session_error(a->session) != NULL) {
		struct buf why = BUF_INIT(8192);

		if (resume_reload(a, &why) == -1) {
			a->unsaved_told = false;
			event_error(a->bus, 1, "%s", buf_cstr(&why));
			buf_release(&why);
			return -2;
		}
		buf_release(&why);
	}
	a->busy = true;
	a->interrupting = false;
	a->failed = false;
	a->overflow_retried = false;
	/* Turn numbers never repeat, also after a rewind: the log stays unambiguous. */
	if (session_turns(a->session) > a->turn)
		a->turn = session_turns(a->session);
	a->turn++;
	free(a->turn_prompt);
	a->turn_prompt = xstrdup(prompt);
	a->turn_started = ev_now_ms();
	cJSON_Delete(a->turn_tools);
	a->turn_tools = cJSON_CreateArray();
	a->turn_tokens = a->totals.input + a->totals.output + a->totals.cache_read +
	    a->totals.cache_write;
	a->calls = 0;
	a->continuations = 0;
	a->paused = a->continuing = false;
	buf_reset(&a->answer);
	a->attempt = 0;
	a->stop_blocks = 0;
	a->hook_stop = false;
	event_set_turn(a->bus, a->turn);
	ev = event_new(a->bus, "turn_start");
	cJSON_AddStringToObject(ev, "prompt", prompt);
	event_emit(a->bus, ev);
	agent_prompt_hooks(a);
	return 0;
}

void
agent_interrupt(struct agent *a)
{
	if (!a->busy || a->interrupting)
		return;
	a->interrupting = true;
	hooks_cancel_tools(a->hooks);
	if (a->hook_run != NULL || a->prompt_waits) {
		/* The prompt or the Stop hooks had not let the model go on yet. */
		agent_end_turn(a, "interrupted", false);
		return;
	}
	if (a->retry_timer != 0) {
		ev_timer_cancel(a->loop, a->retry_timer);
		a->retry_timer = 0;
	}
	if (a->models_timer != 0) {
		ev_timer_cancel(a->loop, a->models_timer);
		a->models_timer = 0;
	}
	/* A summary the next call waits for: the call will not come. */
	if (a->sum.req != NULL && a->sum.then_call)
		call_sum_cancel(a);
	if (a->req != NULL) {
		cJSON *content;
		int ntools;

		http_cancel(a->req);
		a->req = NULL;
		/*
		 * Keep what was said: the blocks still open close as cut off (the
		 * text the user saw stays; a tool call still streaming is dropped),
		 * and every scheduled tool_use stays, to be answered.
		 */
		stream_finish(a->stream);
		call_record_usage(a);
		content = agent_complete_blocks(stream_take_content(a->stream), &ntools);
		/* A failure is reported; agent_proceed then ends the turn as failed. */
		if (agent_record_response(a, content) == 0 && ntools > 0)
			agent_checkpoint_a(a);
		call_drop(a);
		a->stream_done = true;
	}
	if (a->stream == NULL)
		a->stream_done = true;
	if (sched_pending(a->sched) > 0)
		sched_interrupt(a->sched, "interrupted by the user before this call ran");
	else
		agent_proceed(a);
}

int
agent_compact(struct agent *a, const char *focus)
{
	int keep;

	if (a->busy || a->compacting)
		return -1;
	compact_micro(a->conv.messages, COMPACT_KEEP_ROUNDS, NULL);
	keep = compact_summary_keep(a->conv.messages);
	if (keep < 0) {
		event_error(a->bus, 0, "nothing to compact yet");
		return 0;
	}
	/* Asked for by the user: summaries are on again. */
	a->summary_failures = 0;
	if (hooks_has(a->hooks, HOOK_PRE_COMPACT, "manual")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "trigger", "manual");
		cJSON_AddStringToObject(f, "custom_instructions", focus != NULL ? focus : "");
		hooks_run(a->hooks, HOOK_PRE_COMPACT, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
	}
	if (a->sys_dynamic == NULL)
		prompt_build_dynamic(a);
	if (call_sum_start(a, keep, focus, false) == -1) {
		event_error(a->bus, 0, "nothing to compact yet");
		return 0;
	}
	a->compacting = true;
	return 0;
}

void
agent_report(struct agent *a, const char *what, struct buf *out)
{

	if (strcmp(what, "cost") == 0) {
		buf_printf(out, "Session %s, model %s\n", session_id(a->session), a->model);
		buf_printf(out, "Last request: %lld in, %lld out, %lld cache read, %lld cache write\n",
		    (long long)a->last.input, (long long)a->last.output,
		    (long long)a->last.cache_read, (long long)a->last.cache_write);
		buf_printf(out, "Session total: %lld in, %lld out, %lld cache read, %lld cache write\n",
		    (long long)a->totals.input, (long long)a->totals.output,
		    (long long)a->totals.cache_read, (long long)a->totals.cache_write);
		buf_printf(out, "Cost: $%.4f\n", a->cost);
		if (prices_find(a->prices, a->model) == NULL)
			buf_printf(out, "No price is known for %s (the price file %s, or \"prices\" in "
			    "the settings)\n", a->model, a->prices->path != NULL ? a->prices->path : "(none)");
		else
			buf_printf(out, "Prices from %s, checked %s\n", a->prices->path != NULL ?
			    a->prices->path : "the settings", a->prices->checked != NULL ? a->prices->checked : "?");
	} else if (strcmp(what, "context") == 0) {
		int64_t used = a->last.input + a->last.cache_read + a->last.cache_write + a->last.output;

		buf_printf(out, "Context: %lld of %lld tokens (%.0f%%), %d messages\n",
		    (long long)used, (long long)modelset_window(a),
		    modelset_window(a) > 0 ? 100.0 * (double)used / (double)modelset_window(a) : 0.0,
		    conv_count(&a->conv));
		buf_printf(out, "Next request: about %lld tokens (estimated)\n",
		    (long long)modelset_est_tokens(a, prompt_estimate(a)));
		buf_printf(out, "Model: %s, window %lld, output up to %lld, thinking %s, limits from %s%s%s\n",
		    a->model, (long long)modelset_window(a), (long long)a->caps.max_output,
		    model_thinking_name(&a->caps),
		    a->caps.source == MODEL_SERVER ? "the server" : a->caps.source == MODEL_CACHE ?
		    "the server (cached)" : "tandem's table", a->models_note != NULL ? ": " : "",
		    a->models_note != NULL ? a->models_note : "");
		if (a->caps.calib > 0)
			buf_printf(out, "Token estimate: calibrated, %.2f tokens per estimated token\n",
			    a->caps.calib);
		buf_printf(out, "Compaction: stage %s; thresholds micro %.0f%%, collapse %.0f%%, "
		    "summary %.0f%%%s\n", compact_stage_name(a->stage), a->th.micro * 100,
		    a->th.collapse * 100, a->th.summary * 100,
		    a->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES ?
		    " (automatic summaries stopped after failures)" : "");
		cachewatch_report(a->cw, out);
	} else if (strcmp(what, "memory") == 0) {
		buf_puts(out, a->memory_report != NULL ? a->memory_report : "");
	} else {
		buf_printf(out, "Nothing to report for \"%s\".\n", what);
	}
}

struct agent *
agent_new(struct ev_loop *loop, struct event_bus *bus, const struct config *cfg,
    const char *resume_id, bool fork, bool interactive, char *err, size_t err_size)
{
	static const struct sched_ops ops_proto = {
		gate_check, agent_started, agent_progress, agent_finished, agent_tools_idle, NULL
	};
	struct sched_ops ops = ops_proto;
	struct agent *a = xcalloc(1, sizeof *a);

	buf_init(&a->answer, BUF_NOLIMIT);
	a->loop = loop;
	a->bus = bus;
	a->cfg = cfg;
	a->interactive = interactive;
	a->proto = cfg->provider != NULL && strcmp(cfg->provider, "openai") == 0 ?
	    STREAM_OPENAI : STREAM_ANTHROPIC;
	a->model = xstrdup(cfg->model);
	a->base_url = xstrdup(cfg->base_url != NULL ? cfg->base_url : provider_default_base(a->proto));
	a->mode = cfg->mode;
	a->session_rules = perm_rules_new();
	buf_init(&a->progress_redact.hold, BUF_NOLIMIT);
	a->hooks = hooks_new(loop, cfg);
	hooks_attach(a->hooks, bus);
	{
		struct buf mem = BUF_INIT(BUF_NOLIMIT), report = BUF_INIT(BUF_NOLIMIT);

		memory_load(cfg, &mem, &report);
		a->memory = buf_detach(&mem, NULL);
		a->memory_report = buf_detach(&report, NULL);
	}
	/* Retry jitter must differ between processes that fail together. */
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		srand((unsigned)ts.tv_nsec ^ (unsigned)ts.tv_sec ^ ((unsigned)getpid() << 16));
	}
	a->http = http_new(loop);
	if (a->http == NULL) {
		snprintf(err, err_size, "libcurl could not be started");
		agent_free(a);
		return NULL;
	}
	{
		struct modelcat_opts mo;
		struct buf perr = BUF_INIT(4096);

		memset(&mo, 0, sizeof mo);
		mo.loop = loop;
		mo.http = a->http;
		mo.proto = a->proto;
		mo.base_url = a->base_url;
		mo.home = cfg->home;
		mo.headers = modelset_auth_headers;
		mo.headers_arg = a;
		a->cat = modelcat_new(&mo);
		modelcat_get(a->cat, a->model, &a->caps);
		a->prices = prices_load(NULL, cfg->prices, &perr);
		if (a->prices == NULL) {
			snprintf(err, err_size, "%s", buf_cstr(&perr));
			buf_release(&perr);
			agent_free(a);
			return NULL;
		}
		buf_release(&perr);
		a->effort = cfg->effort != NULL ? xstrdup(cfg->effort) : NULL;
	}
	if (cfg->api_key_helper != NULL) {
		struct buf kerr = BUF_INIT(4096);

		if (modelset_run_key_helper(a, &kerr) == -1) {
			snprintf(err, err_size, "%s", buf_cstr(&kerr));
			buf_release(&kerr);
			agent_free(a);
			return NULL;
		}
		buf_release(&kerr);
	}
	/* In the background: the first frame never waits for the provider. */
	(void)modelcat_refresh(a->cat, a->model, modelset_models_done, a);
	a->sys_static = xstrdup(agent_system_prompt());
	a->tools = prompt_tools_json(cfg);
	{
		const char *ttl = getenv("TANDEM_CACHE_TTL_MS");
		char *end;
		long long v = ttl != NULL ? strtoll(ttl, &end, 10) : 0;

		a->cw = cachewatch_new(cfg->cache_ttl_ms > 0 ? cfg->cache_ttl_ms :
		    ttl != NULL && *end == '\0' && v > 0 ? v : 0);
	}
	a->th.micro = cfg->compact_micro;
	a->th.collapse = cfg->compact_collapse;
	a->th.summary = cfg->compact_summary;
	conv_init(&a->conv);
	if (resume_start_session(a, resume_id, fork, err, err_size) == -1) {
		agent_free(a);
		return NULL;
	}
	ops.arg = a;
	a->sched = sched_new(loop, &a->env, &ops);
	a->resumed = resume_id != NULL;
	/* A front end that subscribes later asks for the replay (agent_replay). */
	agent_emit_session(a, a->resumed);
	if (session_note(a->session) != NULL)
		event_error(a->bus, 0, "%s", session_note(a->session));
	if (resume_id != NULL && !fork)
		resume_load_cache(a);
	agent_session_start(a, resume_id != NULL ? "resume" : "startup");
	return a;
}

void
agent_free(struct agent *a)
{
	if (a == NULL)
		return;
	if (a->retry_timer != 0)
		ev_timer_cancel(a->loop, a->retry_timer);
	if (a->models_timer != 0)
		ev_timer_cancel(a->loop, a->models_timer);
	a->models_timer = 0;
	if (a->req != NULL)
		http_cancel(a->req);
	stream_free(a->stream);
	buf_release(&a->errbody);
	if (a->sum.req != NULL)
		http_cancel(a->sum.req);
	a->retry_timer = 0;
	a->req = NULL;
	a->sum.req = NULL;
	/* SessionEnd hooks get a few seconds; nothing may start a request meanwhile. */
	a->interrupting = true;
	hooks_cancel_tools(a->hooks);
	hooks_cancel(a->hook_run);
	hooks_cancel(a->start_run);
	a->hook_run = a->start_run = NULL;
	if (hooks_has(a->hooks, HOOK_SESSION_END, "exit")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "reason", "exit");
		hooks_run(a->hooks, HOOK_SESSION_END, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
		hooks_drain(a->hooks, AGENT_SESSION_END_MS);
	}
	hooks_free(a->hooks);
	a->hooks = NULL;
	stream_free(a->sum.stream);
	buf_release(&a->sum.errbody);
	cachewatch_free(a->cw);
	sched_free(a->sched);
	modelcat_free(a->cat);
	model_caps_release(&a->caps);
	prices_free(a->prices);
	free(a->effort);
	free(a->helper_key);
	free(a->models_note);
	http_free(a->http);
	conv_release(&a->conv);
	cJSON_Delete(a->tools);
	perm_rules_free(a->session_rules);
	redact_stream_release(&a->progress_redact);
	free(a->sys_static);
	free(a->sys_dynamic);
	free(a->model);
	free(a->base_url);
	session_close(a->session);
	free(a->snap_dir);
	free(a->stop_reason);
	buf_release(&a->answer);
	free(a->turn_prompt);
	cJSON_Delete(a->turn_tools);
	free(a->session_context);
	free(a->memory);
	free(a->memory_report);
	free(a);
}
