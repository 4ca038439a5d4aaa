/*
 * The agent: one conversation and its turn (DESIGN.md §4).
 *
 * A turn is a sequence of phases (enum turn_phase, agent_int.h), and every
 * change of phase goes through agent_phase(), which TANDEM_DEBUG=phase
 * logs.  This file reads as the turn does:
 *
 *   idle --submit--> prompt --> [session_wait] --> [prompt_hooks] --> [mcp_fetch]
 *     --> request: [models_wait] [compacting] --> streaming
 *     streaming --(end of the call, call.h)--> tools | retry_wait | ending
 *     retry_wait --> streaming
 *     tools --(every call has its result: agent_settle)--> decide:
 *       results or max_tokens or pause_turn --> streaming (the next call)
 *       end_turn --> [stop_hooks] --> idle
 *     any phase of a turn --interrupt or failure--> ending --> idle
 *   idle --/compact--> summary --> idle
 *
 * The modules around it: prompt (the system prompt and tool schemas),
 * modelset (the model and the request's shape), call (one streamed model
 * call), compaction, gate (whether a tool call may run), tooluse (the
 * scheduler's other callbacks), record (the conversation and its log),
 * timeline (rewind, redo, fork), resume (sessions on disk, replay) and
 * emit (every event's constructor).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jail/jail.h"
#include "agent_int.h"
#include "claude/claude.h"
#include "attach.h"
#include "inbox.h"
#include "mcp/mcp.h"
#include "lsp/lsp.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"
#include "tooluse.h"
#include "store/wsnap.h"
#include "jail/protect.h"
#include "bgshell.h"
#include "web/web.h"
#include "plan/plan.h"

static void agent_end_turn(struct agent *, const char *stop_reason, bool failed);
static void agent_proceed(struct agent *);
static bool agent_next_call(struct agent *);
static void agent_prompt_hooks(struct agent *);

/* --- phases --------------------------------------------------------------- */

static const char *const agent_phase_names[PHASE_COUNT] = {
	[PHASE_IDLE] = "idle",
	[PHASE_PROMPT] = "prompt",
	[PHASE_SESSION_WAIT] = "session_wait",
	[PHASE_PROMPT_HOOKS] = "prompt_hooks",
	[PHASE_MCP_FETCH] = "mcp_fetch",
	[PHASE_MODELS_WAIT] = "models_wait",
	[PHASE_COMPACTING] = "compacting",
	[PHASE_STREAMING] = "streaming",
	[PHASE_RETRY_WAIT] = "retry_wait",
	[PHASE_TOOLS] = "tools",
	[PHASE_STOP_HOOKS] = "stop_hooks",
	[PHASE_ENDING] = "ending",
	[PHASE_SUMMARY] = "summary"
};

const char *
agent_phase_name(enum turn_phase p)
{
	return (unsigned)p < PHASE_COUNT ? agent_phase_names[p] : "?";
}

/* Where phase transitions are logged: TANDEM_DEBUG=phase, to TANDEM_DEBUG_FILE or stderr. */
static FILE *
agent_trace_open(void)
{
	const char *path = getenv("TANDEM_DEBUG_FILE");
	FILE *f;

	if (!prompt_listed(getenv("TANDEM_DEBUG"), "phase"))
		return NULL;
	if (path == NULL || *path == '\0')
		return stderr;
	f = fopen(path, "a");
	if (f == NULL) {
		fprintf(stderr, "tandem: TANDEM_DEBUG_FILE %s cannot be opened (%s); phase "
		    "transitions go to standard error\n", path, strerror(errno));
		return stderr;
	}
	return f;
}

/* The one place where the turn changes phase. */
void
agent_phase(struct agent *a, enum turn_phase to)
{
	if (a->phase == to)
		return;
	if (a->trace != NULL) {
		fprintf(a->trace, "turn %d: %s -> %s\n", a->turn, agent_phase_name(a->phase),
		    agent_phase_name(to));
		fflush(a->trace);
	}
	a->phase = to;
}

bool
agent_in_turn(const struct agent *a)
{
	return a->phase != PHASE_IDLE && a->phase != PHASE_SUMMARY;
}

bool
agent_busy(const struct agent *a)
{
	return a->phase != PHASE_IDLE;
}

const char *
agent_session_id(const struct agent *a)
{
	return session_id(a->session);
}

const char *
agent_session_dir(const struct agent *a)
{
	return a->session != NULL ? session_dir(a->session) : NULL;
}

const char *
agent_model(const struct agent *a)
{
	return a->model;
}

struct mcp *
agent_mcp(const struct agent *a)
{
	return a->mcp;
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

void
agent_emit_session(struct agent *a, bool resumed)
{
	emit_session(a->bus, session_id(a->session), a->model,
	    a->proto == STREAM_OPENAI ? "openai" : "anthropic", a->cfg->root, resumed, NULL);
}

/* A hook's warnings and messages, for the user; "continue": false ends the turn. */
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

/* Hooks nobody waits for (PreCompact, SessionEnd): their answer changes nothing. */
void
agent_hooks_ignored(void *arg, struct hook_outcome *o)
{
}

/* --- idle -> prompt: the front end's prompt ------------------------------- */

int
agent_submit(struct agent *a, const char *prompt)
{
	if (agent_busy(a))
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
	a->failed = false;
	a->overflow_retried = false;
	/* Turn numbers never repeat, also after a rewind: the log stays unambiguous. */
	if (session_turns(a->session) > a->turn)
		a->turn = session_turns(a->session);
	a->turn++;
	agent_phase(a, PHASE_PROMPT);
	free(a->turn_prompt);
	a->turn_prompt = xstrdup(prompt);
	claude_turn_start(a->claude, a, prompt);
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
	emit_turn_start(a->bus, prompt, false);
	agent_prompt_hooks(a);
	return 0;
}

/*
 * The prompt's text (the user's, or an MCP prompt's), its MCP resources
 * (blocks, taken) and what UserPromptSubmit hooks added go to the model.
 */
static void
agent_send_prompt(struct agent *a, const char *text, cJSON *blocks, const char *context)
{
	const char *prompt = a->turn_prompt;
	cJSON *content = cJSON_CreateArray(), *b;

	cJSON_AddItemToArray(content, record_text_block(text));
	while (blocks != NULL && (b = cJSON_DetachItemFromArray(blocks, 0)) != NULL)
		cJSON_AddItemToArray(content, b);
	cJSON_Delete(blocks);
	/* @path mentions and images, read now (attach.h). */
	attach_mentions(&a->env, a->cfg->rules, a->mode, a->bus, a->caps.image_input, prompt, content);
	inbox_take(a, content);
	plan_prompt_note(a, content);
	if (context != NULL)
		cJSON_AddItemToArray(content, record_text_block(context));
	if (record_add_user(a, content) == -1 || session_note_turn(a->session, a->turn, prompt) == -1) {
		agent_halt(a);
		return;
	}
	prompt_build_dynamic(a);
	agent_next_call(a);
}

static void
agent_prompt_expanded(void *arg, const char *text, cJSON *blocks, const cJSON *notes,
    const char *error)
{
	struct agent *a = arg;
	char *context = a->mcp_context;
	const cJSON *n;

	cJSON_ArrayForEach(n, notes) {
		cJSON *ev = event_new(a->bus, "attachment"), *it;

		cJSON_ArrayForEach(it, n)
			cJSON_AddItemToObject(ev, it->string, cJSON_Duplicate(it, 1));
		event_emit(a->bus, ev);
	}

	a->mcp_expand = NULL;
	a->mcp_context = NULL;
	if (error != NULL) {
		cJSON_Delete(blocks);
		free(context);
		agent_fail(a, "%s", error);
		return;
	}
	agent_send_prompt(a, text, blocks, context);
	free(context);
}

/* An MCP prompt (/mcp__server__prompt) or @server:uri mentions are read first (mcp.h). */
static void
agent_start_prompt(struct agent *a, const char *prompt, const char *context)
{
	a->mcp_expand = mcp_expand_start(a->mcp, prompt, agent_prompt_expanded, a);
	if (a->mcp_expand != NULL) {
		free(a->mcp_context);
		a->mcp_context = context != NULL ? xstrdup(context) : NULL;
		agent_phase(a, PHASE_MCP_FETCH);
		return;
	}
	agent_send_prompt(a, prompt, NULL, context);
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

	if (a->start_run != NULL) {
		agent_phase(a, PHASE_SESSION_WAIT);
		return;
	}
	if (hooks_has(a->hooks, HOOK_USER_PROMPT_SUBMIT, NULL)) {
		f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "prompt", a->turn_prompt);
		cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
		a->hook_run = hooks_run(a->hooks, HOOK_USER_PROMPT_SUBMIT, f, agent_prompt_hooked, a);
		cJSON_Delete(f);
		if (a->hook_run != NULL) {
			agent_phase(a, PHASE_PROMPT_HOOKS);
			return;
		}
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
	if (a->phase == PHASE_SESSION_WAIT)
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

/* --- request: [models_wait] [compacting] -> streaming ---------------------- */

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
	agent_call_model(a);
	return true;
}

static void agent_call_ended(struct agent *, struct call *, const struct call_end *);

/*
 * TANDEM_DEBUG=conv: what the conversation keeps of its messages (the
 * fingerprints, the size, the check) must be what they give afresh.
 */
static void
agent_verify_conv(struct agent *a)
{
	struct buf why = BUF_INIT(4096);
	const uint64_t *h;
	const cJSON *m;
	char *sys = prompt_system_text(a);
	int n, i = 0;

	if (conv_verify(&a->conv, &why) == -1)
		fatal("TANDEM_DEBUG=conv: %s", buf_cstr(&why));
	h = conv_hashes(&a->conv, cachewatch_message_hash, &n);
	if (n != conv_count(&a->conv))
		fatal("TANDEM_DEBUG=conv: %d fingerprints for %d messages", n, conv_count(&a->conv));
	cJSON_ArrayForEach(m, a->conv.messages) {
		if (h[i] != cachewatch_message_hash(m))
			fatal("TANDEM_DEBUG=conv: the kept fingerprint of message %d is stale", i);
		i++;
	}
	if (prompt_estimate(a) != compact_estimate(sys, a->tools, a->conv.messages))
		fatal("TANDEM_DEBUG=conv: the kept size is %lld tokens, afresh %lld",
		    (long long)prompt_estimate(a),
		    (long long)compact_estimate(sys, a->tools, a->conv.messages));
	if (conv_check_messages(a->conv.messages, true, NULL, &why) != conv_check(&a->conv, &why))
		fatal("TANDEM_DEBUG=conv: the kept check differs from the whole one (%s)",
		    buf_cstr(&why));
	free(sys);
	buf_release(&why);
}

void
agent_call_model(struct agent *a)
{
	struct stream_handler sh = { agent_on_text, agent_on_thinking, agent_on_block, a };
	struct call_request rq;
	struct buf why = BUF_INIT(4096);
	const uint64_t *hashes;
	int nhashes;

	if (session_error(a->session) != NULL) {
		agent_halt(a);
		return;
	}
	if (modelset_wait(a) || agent_mcp_wait(a)) {
		agent_phase(a, PHASE_MODELS_WAIT);
		return;
	}
	a->caps_sent = true;
	if (compaction_before_call(a)) {
		agent_phase(a, PHASE_COMPACTING);
		return;
	}
	/* Nothing goes out before the log that explains it is on disk. */
	if (session_sync(a->session) == -1) {
		agent_halt(a);
		return;
	}
	/* Nor a conversation the API would refuse, whatever put it in memory. */
	if (conv_check(&a->conv, &why) == -1) {
		agent_fail(a, "the conversation is not valid (%s), so it was not sent; go on "
		    "from an earlier turn with tandem --resume %s --fork --rewind-to N",
		    buf_cstr(&why), session_id(a->session));
		buf_release(&why);
		return;
	}
	buf_release(&why);
	hashes = conv_hashes(&a->conv, cachewatch_message_hash, &nhashes);
	cachewatch_before_hashes(a->cw, a->sys_static, a->tools, a->model, hashes, nhashes,
	    call_clock_ms());
	a->est_sent = prompt_estimate(a);
	if (prompt_listed(getenv("TANDEM_DEBUG"), "conv"))
		agent_verify_conv(a);
	memset(&rq, 0, sizeof rq);
	rq.system_static = a->sys_static;
	rq.system_dynamic = a->sys_dynamic;
	rq.tools = a->tools;
	rq.conv = &a->conv;
	rq.cache = a->proto == STREAM_ANTHROPIC;
	rq.stall_on_progress = true;
	rq.sh = &sh;
	a->checkpoint_a = false;
	a->call.overflow_ok = !a->overflow_retried;
	a->call.reauth_ok = a->cfg->api_key_helper != NULL && !a->helper_retried;
	agent_phase(a, PHASE_STREAMING);
	call_start(a, &a->call, &rq, agent_call_ended, NULL);
	crash_point("request-sent");
}

/* A summary call ended; then_call: the turn's request waited for it (compacting). */
void
agent_summary_done(struct agent *a, bool then_call)
{
	if (then_call) {
		agent_call_model(a);
		return;
	}
	agent_phase(a, PHASE_IDLE);
	emit_compaction_done(a->bus);
}

/* /compact started its summary outside a turn. */
void
agent_summary_started(struct agent *a)
{
	agent_phase(a, PHASE_SUMMARY);
}

/* --- streaming ------------------------------------------------------------ */

void
agent_on_text(void *arg, int index, const char *s, size_t n)
{
	struct agent *a = arg;

	emit_text(a->bus, s, n, false);
}

void
agent_on_thinking(void *arg, int index, const char *s, size_t n)
{
	struct agent *a = arg;

	emit_thinking(a->bus, s, n);
}

/* A block is complete: a tool call is scheduled at once (it runs when the gate lets it). */
void
agent_on_block(void *arg, int index, const cJSON *block)
{
	struct agent *a = arg;

	/* A call cut off before its block stopped is never run (nor recorded). */
	if (strcmp(json_str(block, "type", ""), "tool_use") != 0 || a->phase == PHASE_ENDING ||
	    json_bool(block, "_incomplete", false))
		return;
	emit_tool_use(a->bus, json_str(block, "id", ""), json_str(block, "name", ""),
	    json_get(block, "input"), false);
	sched_add(a->sched, json_str(block, "id", ""), json_str(block, "name", ""),
	    json_get(block, "input"), json_str(block, "_input_error", NULL));
}

static void
agent_retry_now(struct ev_loop *loop, void *arg)
{
	struct agent *a = arg;

	a->retry_timer = 0;
	agent_call_model(a);
}

/* streaming -> retry_wait: ask again after a backoff, or fail when out of attempts. */
static void
agent_retry(struct agent *a, struct http_req *req, const char *reason)
{
	int64_t delay;

	call_release(&a->call);
	if (a->attempt >= a->cfg->retries) {
		agent_fail(a, "%s (gave up after %d attempts)", reason, a->attempt + 1);
		return;
	}
	a->attempt++;
	delay = call_backoff_ms(req, a->attempt);
	emit_retry(a->bus, a->attempt, delay, reason);
	agent_phase(a, PHASE_RETRY_WAIT);
	a->retry_timer = ev_timer_add(a->loop, delay, agent_retry_now, a);
}

/* The turn's model call ended: what its end means for the turn. */
static void
agent_call_ended(struct agent *a, struct call *c, const struct call_end *e)
{
	const char *msg = buf_cstr(&e->msg);

	if (e->kind == CALL_DONE) {
		agent_response_done(a, e->stop_reason);
	} else if (e->kind == CALL_PARTIAL) {
		event_error(a->bus, 0, "%s; continuing from the %d tool call%s it completed",
		    msg, e->ntools, e->ntools == 1 ? "" : "s");
		agent_response_done(a, "tool_use");
	} else if (e->kind == CALL_RETRY) {
		agent_retry(a, e->req, msg);
	} else if (e->kind == CALL_OVERFLOW) {
		/* Too big for the window: compact as hard as it goes and send it again, once. */
		a->overflow_retried = true;
		call_release(c);
		if (compaction_overflow(a))
			agent_call_model(a);
		else if (e->status != 200)
			agent_fail(a, "the conversation does not fit the model's context window, and "
			    "nothing more can be compacted: %s", msg);
		else
			agent_fail(a, "%s; nothing more can be compacted", msg);
	} else if (e->kind == CALL_REAUTH) {
		struct buf kerr = BUF_INIT(4096);

		/* The helper's key may have expired: ask it again, once. */
		a->helper_retried = true;
		call_release(c);
		if (modelset_run_key_helper(a, &kerr) == 0)
			agent_call_model(a);
		else
			agent_fail(a, "the model server refused the key (HTTP 401), and %s",
			    buf_cstr(&kerr));
		buf_release(&kerr);
	} else {
		/* What tandem knew of the model was wrong: ask again next time. */
		if (e->param_setting != NULL)
			modelset_forget(a);
		call_release(c);
		agent_fail(a, "%s", msg);
	}
}

/* streaming -> tools: the response is over; record it, then go on once the tools are done. */
void
agent_response_done(struct agent *a, const char *stop_reason)
{
	cJSON *content;
	int ntools;

	call_record_usage(a);
	content = record_complete_blocks(stream_take_content(a->call.stream), &ntools);
	if (cJSON_GetArraySize(content) == 0 && strcmp(stop_reason, "refusal") != 0 &&
	    strcmp(stop_reason, "pause_turn") != 0)
		event_error(a->bus, 0, "the model sent an empty answer (stop reason %s)", stop_reason);
	/* Not on disk: no tool runs and nothing more is sent. */
	if (record_response(a, content) == -1 || session_error(a->session) != NULL ||
	    (ntools > 0 && record_checkpoint_a(a) == -1)) {
		call_release(&a->call);
		agent_halt(a);
		return;
	}
	free(a->stop_reason);
	a->stop_reason = xstrdup(ntools > 0 && strcmp(stop_reason, "max_tokens") != 0 ?
	    "tool_use" : stop_reason);
	call_release(&a->call);
	agent_phase(a, PHASE_TOOLS);
	agent_settle(a);
}

/* --- tools -> decide ------------------------------------------------------ */

/*
 * All done, go on: the response is recorded, every tool call has its
 * result and the PostToolUse hooks have spoken.  The one place a turn
 * moves on from its tools (or, ending, to its end).
 */
void
agent_settle(struct agent *a)
{
	if ((a->phase == PHASE_TOOLS || a->phase == PHASE_ENDING) &&
	    sched_pending(a->sched) == 0 && hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
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
	if (record_add_text(a, o->reason) == -1) {
		agent_halt(a);
		return;
	}
	agent_next_call(a);
}

/* tools -> stop_hooks: the model is done; Stop hooks may send it on.  True when they run. */
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
	if (a->hook_run != NULL)
		agent_phase(a, PHASE_STOP_HOOKS);
	return a->hook_run != NULL;
}

/* The response and all its tools are done: the stop reason decides what comes next. */
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
		    record_add(a, "user", sched_results(a->sched)) == 0 &&
		    session_checkpoint(a->session, 'B', a->turn, a->calls, record_tokens_used(a), NULL) == -1)
			agent_unsaved(a);
		sched_reset(a->sched);
	}
	if (session_error(a->session) != NULL) {
		agent_unsaved(a);
		agent_end_turn(a, "error", true);
		return;
	}
	if (a->phase == PHASE_ENDING) {
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
		if (record_add_text(a, had_tools ? "Your answer was cut off by the output limit. "
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

/* --- ending: interrupt, failure, -> idle ------------------------------------ */

/*
 * A write the session's promises rest on failed: say so once (the
 * session's sentence names the directory and the cause).  -1.
 */
int
agent_unsaved(struct agent *a)
{
	const char *why = session_error(a->session);

	if (!a->unsaved_told) {
		a->unsaved_told = true;
		event_error(a->bus, 1, "%s", why != NULL ? why : "could not save the session");
		emit_session_unsaved(a->bus, why != NULL ? why : "", session_dir(a->session));
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
	if (!agent_in_turn(a))
		return -1;
	if (sched_pending(a->sched) > 0) {
		if (a->phase != PHASE_ENDING) {
			agent_phase(a, PHASE_ENDING);
			sched_interrupt(a->sched, AGENT_NOT_SAVED);
		}
		return -1;
	}
	agent_end_turn(a, "error", true);
	return -1;
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
		agent_phase(a, PHASE_ENDING);
		sched_interrupt(a->sched, "the turn failed before this call ran");
		return;
	}
	agent_end_turn(a, "error", true);
}

void
agent_interrupt(struct agent *a)
{
	enum turn_phase from = a->phase;

	if (!agent_in_turn(a) || a->phase == PHASE_ENDING)
		return;
	agent_phase(a, PHASE_ENDING);
	hooks_cancel_tools(a->hooks);
	if (from == PHASE_MCP_FETCH) {
		mcp_expand_cancel(a->mcp_expand);
		a->mcp_expand = NULL;
		free(a->mcp_context);
		a->mcp_context = NULL;
	}
	if (from == PHASE_SESSION_WAIT || from == PHASE_PROMPT_HOOKS || from == PHASE_STOP_HOOKS ||
	    from == PHASE_MCP_FETCH) {
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
	if (compaction_running(a) && a->sum.then_call)
		compaction_cancel(a);
	if (a->call.req != NULL) {
		cJSON *content;
		int ntools;

		call_abort(&a->call);
		/*
		 * Keep what was said: the blocks still open close as cut off (the
		 * text the user saw stays; a tool call still streaming is dropped),
		 * and every scheduled tool_use stays, to be answered.
		 */
		stream_finish(a->call.stream);
		call_record_usage(a);
		content = record_complete_blocks(stream_take_content(a->call.stream), &ntools);
		/* A failure is reported; agent_proceed then ends the turn as failed. */
		if (record_response(a, content) == 0 && ntools > 0)
			record_checkpoint_a(a);
		call_release(&a->call);
	}
	if (sched_pending(a->sched) > 0)
		sched_interrupt(a->sched, "interrupted by the user before this call ran");
	else
		agent_settle(a);
}

/* ending (or any phase of a turn) -> idle: the turn's record, and its end as events. */
static void
agent_end_turn(struct agent *a, const char *stop_reason, bool failed)
{
	cJSON *rec;

	if (session_error(a->session) == NULL && tooluse_turn_end(a) == -1)
		agent_unsaved(a);
	rec = cJSON_CreateObject();
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
	agent_phase(a, PHASE_IDLE);
	if (a->retry_timer != 0)
		ev_timer_cancel(a->loop, a->retry_timer);
	a->retry_timer = 0;
	hooks_cancel_tools(a->hooks);
	hooks_cancel(a->hook_run);
	a->hook_run = NULL;
	sched_reset(a->sched);
	claude_turn_end(a->claude, a);
	emit_turn_end(a->bus, stop_reason, false);
	emit_result(a->bus, buf_cstr(&a->answer), a->answer.len, stop_reason, failed, a->calls,
	    &a->totals, a->cost, session_id(a->session));
}

/* --- the agent's life ------------------------------------------------------- */

struct agent *
agent_new(struct ev_loop *loop, struct event_bus *bus, const struct config *cfg,
    const char *resume_id, bool fork, bool interactive, char *err, size_t err_size)
{
	struct sched_ops ops;
	struct agent *a = xcalloc(1, sizeof *a);

	buf_init(&a->answer, BUF_NOLIMIT);
	a->trace = agent_trace_open();
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
	a->plan = plan_new();
	buf_init(&a->progress_redact.hold, BUF_NOLIMIT);
	a->hooks = hooks_new(loop, cfg);
	a->jail = jail_new(&cfg->sandbox, cfg->trusted, cfg->root, getenv("HOME"));
	hooks_attach(a->hooks, bus);
	{
		struct buf mem = BUF_INIT(BUF_NOLIMIT), report = BUF_INIT(BUF_NOLIMIT);

		memory_load(cfg, &mem, &report);
		a->memory = buf_detach(&mem, NULL);
		a->memory_report = buf_detach(&report, NULL);
	}
	a->claude = claude_new(cfg);
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
	if (modelset_init(a, err, err_size) == -1) {
		agent_free(a);
		return NULL;
	}
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
	tooluse_ops(a, &ops);
	a->sched = sched_new(loop, &a->env, &ops);
	a->web = web_new(a);
	tooluse_protect_warm(a);
	a->lsp = lsp_new(loop, cfg, &a->env, a->jail, bus, a->sched);
	lsp_tools_json(a->lsp, a->tools);
	prompt_mcp_start(a);
	a->resumed = resume_id != NULL;
	/* A front end that subscribes later asks for the replay (agent_replay). */
	agent_emit_session(a, a->resumed);
	if (!interactive)
		jail_announce(a->jail, a->bus);
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
	call_cancel(&a->call);
	call_cancel(&a->sum.call);
	a->retry_timer = 0;
	/* SessionEnd hooks get a few seconds; nothing may start a request meanwhile. */
	if (agent_in_turn(a))
		agent_phase(a, PHASE_ENDING);
	hooks_cancel_tools(a->hooks);
	hooks_cancel(a->hook_run);
	hooks_cancel(a->start_run);
	a->hook_run = a->start_run = NULL;
	if (hooks_has(a->hooks, HOOK_SESSION_END, "exit")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "reason", "exit");
		hooks_run(a->hooks, HOOK_SESSION_END, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
	}
	/* and the hooks the last events started (StopFailure, PermissionDenied, ...) finish */
	hooks_drain(a->hooks, AGENT_SESSION_END_MS);
	hooks_free(a->hooks);
	jail_free(a->jail);
	a->hooks = NULL;
	cachewatch_free(a->cw);
	lsp_free(a->lsp);
	sched_free(a->sched);
	web_free(a->web);
	plan_free(a->plan);
	mcp_expand_cancel(a->mcp_expand);
	free(a->mcp_context);
	mcp_free(a->mcp);
	buf_release(&a->mcp_changed);
	free(a->mcp_warnings);
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
	/* the background shells end with tandem: what they did is looked at first */
	if (a->protect_bg)
		bgshell_end_all();
	protect_free(a->protect);
	wsnap_free(a->wsnap);
	free(a->stop_reason);
	buf_release(&a->answer);
	free(a->turn_prompt);
	cJSON_Delete(a->turn_tools);
	cJSON_Delete(a->attach);
	free(a->session_context);
	free(a->host_prompt);
	free(a->memory);
	claude_free(a->claude);
	free(a->memory_report);
	if (a->trace != NULL && a->trace != stderr)
		fclose(a->trace);
	free(a);
}
