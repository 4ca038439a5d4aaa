/*
 * The agent: a conversation's turn (DESIGN.md §4), for the main
 * conversation and any other of the session alike.
 *
 * A turn is a sequence of phases (enum turn_phase, turn_int.h), and every
 * change of phase goes through agent_phase() (conversation.c), which
 * TANDEM_DEBUG=phase logs.  This file reads as the turn does:
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
 * emit (every event's constructor).  They never call back up into this
 * file: what they ask of the turn (call the model, settle, SessionStart)
 * goes through agent_turn_ops, at the end of it.
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
#include "turn_int.h"
#include "attach.h"
#include "inbox.h"
#include "mcp/mcp.h"
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
#include "claude/claude.h"
#include "plan/plan.h"
#include "sub/subagent.h"

/*
 * What agent.c alone keeps of the turn's flow: the UserPromptSubmit or
 * Stop run the turn waits for, the Stop hooks that kept it going, the
 * prompt's MCP prompt and resources being read (mcp_expand) with the
 * hooks' context kept while they are, the last response's stop reason
 * and the max_tokens continuations asked for.
 */
struct turn_flow {
	struct hook_run		*run;		/* the turn waits for it; NULL: none */
	int			 stop_blocks;	/* Stop hooks that kept this turn going */
	struct mcp_expand	*expand;
	char			*context;	/* the hooks' context, for the expanded prompt */
	char			*stop_reason;	/* the last response's */
	int			 continuations;	/* after max_tokens, in this turn */
};

struct turn_flow *
agent_flow_new(void)
{
	return xcalloc(1, sizeof(struct turn_flow));
}

void
agent_flow_free(struct turn_flow *tf)
{
	if (tf == NULL)
		return;
	hooks_cancel(tf->run);
	mcp_expand_cancel(tf->expand);
	free(tf->context);
	free(tf->stop_reason);
	free(tf);
}

void
agent_flow_cancel(struct conversation *cv)
{
	struct turn_flow *tf = conversation_flow(cv);

	hooks_cancel(tf->run);
	tf->run = NULL;
}

static void agent_end_turn(struct conversation *, const char *stop_reason, bool failed);
static void agent_proceed(struct conversation *);
static bool agent_next_call(struct conversation *);
static void agent_prompt_hooks(struct conversation *);
static void turn_call_model(struct conversation *);
static void turn_settle(struct conversation *);


/* --- idle -> prompt: the front end's prompt ------------------------------- */

int
agent_submit(struct agent *a, const char *prompt)
{
	return conversation_submit(agent_main(a), prompt);
}

int
conversation_submit(struct conversation *cv, const char *prompt)
{
	struct turn_flow *tf = conversation_flow(cv);
	struct agent *a = conversation_agent(cv);

	if (conversation_busy(cv))
		return -1;
	/* The session could not be saved: try again now, from what is on disk. */
	if (session_error(agent_session(a)) != NULL) {
		struct buf why = BUF_INIT(8192);

		if (cv != agent_main(a))
			return -2;

		if (resume_reload(cv, &why) == -1) {
			agent_unsaved_reset(a);
			event_error(conversation_bus(cv), 1, "%s", buf_cstr(&why));
			buf_release(&why);
			return -2;
		}
		buf_release(&why);
	}
	conversation_set_failed(cv, false);
	compaction_turn_start(cv);
	/* Turn numbers never repeat, also after a rewind: the log stays unambiguous. */
	if (session_turns(agent_session(a)) > conversation_turn(cv))
		conversation_set_turn(cv, session_turns(agent_session(a)));
	conversation_set_turn(cv, conversation_turn(cv) + 1);
	agent_phase(cv, PHASE_PROMPT);
	record_turn_start(cv, prompt);
	/* A command's model holds for the main conversation's turn (claude.h). */
	if (cv == agent_main(a))
		claude_turn_start(agent_claude(a), a, prompt);
	conversation_turn_start(cv);
	tf->continuations = 0;
	call_retry_reset(cv);
	tf->stop_blocks = 0;
	event_set_turn(conversation_bus(cv), conversation_turn(cv));
	emit_turn_start(conversation_bus(cv), prompt, false);
	agent_prompt_hooks(cv);
	return 0;
}

/*
 * The prompt's text (the user's, or an MCP prompt's), its MCP resources
 * (blocks, taken) and what UserPromptSubmit hooks added go to the model.
 */
static void
agent_send_prompt(struct conversation *cv, const char *text, cJSON *blocks, const char *context)
{
	struct agent *a = conversation_agent(cv);
	const char *prompt = record_turn_prompt(cv);
	cJSON *content = cJSON_CreateArray(), *b;

	cJSON_AddItemToArray(content, record_text_block(text));
	while (blocks != NULL && (b = cJSON_DetachItemFromArray(blocks, 0)) != NULL)
		cJSON_AddItemToArray(content, b);
	cJSON_Delete(blocks);
	/* @path mentions and images, read now (attach.h). */
	attach_mentions(agent_env(a), agent_config(a)->rules, agent_mode(a), conversation_bus(cv),
	    agent_model_caps(a)->image_input, prompt, content);
	inbox_take(cv, content);
	plan_prompt_note(cv, content);
	if (context != NULL)
		cJSON_AddItemToArray(content, record_text_block(context));
	if (record_add_user(cv, content) == -1 || session_note_turn(agent_session(a), conversation_turn(cv),
	    prompt) == -1) {
		agent_halt(cv);
		return;
	}
	prompt_build_dynamic(cv);
	agent_next_call(cv);
}

static void
agent_prompt_expanded(void *arg, const char *text, cJSON *blocks, const cJSON *notes,
    const char *error)
{
	struct conversation *cv = arg;
	struct turn_flow *tf = conversation_flow(cv);
	char *context = tf->context;
	const cJSON *n;

	cJSON_ArrayForEach(n, notes) {
		cJSON *ev = event_new(conversation_bus(cv), "attachment"), *it;

		cJSON_ArrayForEach(it, n)
			cJSON_AddItemToObject(ev, it->string, cJSON_Duplicate(it, 1));
		event_emit(conversation_bus(cv), ev);
	}

	tf->expand = NULL;
	tf->context = NULL;
	if (error != NULL) {
		cJSON_Delete(blocks);
		free(context);
		agent_fail(cv, "%s", error);
		return;
	}
	agent_send_prompt(cv, text, blocks, context);
	free(context);
}

/* An MCP prompt (/mcp__server__prompt) or @server:uri mentions are read first (mcp.h). */
static void
agent_start_prompt(struct conversation *cv, const char *prompt, const char *context)
{
	struct turn_flow *tf = conversation_flow(cv);

	tf->expand = mcp_expand_start(agent_mcp(conversation_agent(cv)), prompt, agent_prompt_expanded, cv);
	if (tf->expand != NULL) {
		free(tf->context);
		tf->context = context != NULL ? xstrdup(context) : NULL;
		agent_phase(cv, PHASE_MCP_FETCH);
		return;
	}
	agent_send_prompt(cv, prompt, NULL, context);
}

static void
agent_prompt_hooked(void *arg, struct hook_outcome *o)
{
	struct conversation *cv = arg;

	conversation_flow(cv)->run = NULL;
	agent_hook_notes(cv, o);
	if (o->decision == HOOK_BLOCK || o->stop) {
		event_error(conversation_bus(cv), 0, "a UserPromptSubmit hook blocked the prompt: %s",
		    o->reason != NULL ? o->reason : o->stop_reason != NULL ? o->stop_reason :
		    "no reason given");
		agent_end_turn(cv, "blocked", true);
		return;
	}
	agent_start_prompt(cv, record_turn_prompt(cv), o->additional_context);
}

/* After SessionStart (if it still runs), UserPromptSubmit hooks see the prompt first. */
static void
agent_prompt_hooks(struct conversation *cv)
{
	struct turn_flow *tf = conversation_flow(cv);
	struct agent *a = conversation_agent(cv);
	cJSON *f;
	enum hook_event ev;
	const char *type;

	if (agent_start_run(a) != NULL) {
		agent_phase(cv, PHASE_SESSION_WAIT);
		return;
	}
	/* a subagent's prompt is not the user's: SubagentStart instead (sub/subagent.h) */
	ev = sub_hook_event(agent_subs(a), cv, false, &type, NULL);
	if (hooks_has(agent_hooks(a), ev, type)) {
		f = cJSON_CreateObject();
		if (ev == HOOK_USER_PROMPT_SUBMIT)
			cJSON_AddStringToObject(f, "prompt", record_turn_prompt(cv));
		(void)sub_hook_event(agent_subs(a), cv, false, &type, f);
		cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(agent_mode(a)));
		tf->run = hooks_run(agent_hooks(a), ev, f, agent_prompt_hooked, cv);
		cJSON_Delete(f);
		if (tf->run != NULL) {
			agent_phase(cv, PHASE_PROMPT_HOOKS);
			return;
		}
	}
	agent_start_prompt(cv, record_turn_prompt(cv), NULL);
}

static void
agent_session_started(void *arg, struct hook_outcome *o)
{
	struct conversation *cv = arg;
	struct agent *a = conversation_agent(cv);

	agent_set_start_run(a, NULL);
	agent_hook_notes(cv, o);
	prompt_set_session_context(a, o->additional_context);
	o->additional_context = NULL;
	if (conversation_phase(cv) == PHASE_SESSION_WAIT)
		agent_prompt_hooks(cv);
}

/* SessionStart hooks (source: startup, resume, clear); their context joins the system prompt. */
static void
turn_session_start(struct conversation *cv, const char *source)
{
	struct agent *a = conversation_agent(cv);
	cJSON *f;

	prompt_set_session_context(a, NULL);
	hooks_cancel(agent_start_run(a));
	agent_set_start_run(a, NULL);
	if (!hooks_has(agent_hooks(a), HOOK_SESSION_START, source))
		return;
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "source", source);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(agent_mode(a)));
	agent_set_start_run(a, hooks_run(agent_hooks(a), HOOK_SESSION_START, f, agent_session_started, cv));
	cJSON_Delete(f);
}

/* --- request: [models_wait] [compacting] -> streaming ---------------------- */

/* One more model call for this turn, unless that would pass its cap (--max-turns). */
static bool
agent_next_call(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);

	if (conversation_calls(cv) >= agent_config(a)->max_turns) {
		agent_fail(cv, "this turn reached its cap of %d model calls (--max-turns); "
		    "send another prompt to go on", agent_config(a)->max_turns);
		return false;
	}
	conversation_count_call(cv);
	call_retry_reset(cv);
	turn_call_model(cv);
	return true;
}

static void agent_call_ended(struct conversation *, struct call *, const struct call_end *);

/*
 * TANDEM_DEBUG=conv: what the conversation keeps of its messages (the
 * fingerprints, the size, the check) must be what they give afresh.
 */
static void
agent_verify_conv(struct conversation *cv)
{
	struct buf why = BUF_INIT(4096);
	const uint64_t *h;
	const cJSON *m;
	char *sys = prompt_system_text(cv);
	int n, i = 0;

	if (conv_verify(conversation_conv(cv), &why) == -1)
		fatal("TANDEM_DEBUG=conv: %s", buf_cstr(&why));
	h = conv_hashes(conversation_conv(cv), cachewatch_message_hash, &n);
	if (n != conv_count(conversation_conv(cv)))
		fatal("TANDEM_DEBUG=conv: %d fingerprints for %d messages", n, conv_count(conversation_conv(cv)));
	cJSON_ArrayForEach(m, conversation_conv(cv)->messages) {
		if (h[i] != cachewatch_message_hash(m))
			fatal("TANDEM_DEBUG=conv: the kept fingerprint of message %d is stale", i);
		i++;
	}
	if (prompt_estimate(cv) != compact_estimate(sys, prompt_tools(cv), conversation_conv(cv)->messages))
		fatal("TANDEM_DEBUG=conv: the kept size is %lld tokens, afresh %lld",
		    (long long)prompt_estimate(cv),
		    (long long)compact_estimate(sys, prompt_tools(cv), conversation_conv(cv)->messages));
	if (conv_check_messages(conversation_conv(cv)->messages, true, NULL,
	    &why) != conv_check(conversation_conv(cv), &why))
		fatal("TANDEM_DEBUG=conv: the kept check differs from the whole one (%s)",
		    buf_cstr(&why));
	free(sys);
	buf_release(&why);
}

static void
turn_call_model(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct stream_handler sh = { agent_on_text, agent_on_thinking, agent_on_block, cv };
	struct call_request rq;
	struct buf why = BUF_INIT(4096);
	const uint64_t *hashes;
	int nhashes;

	if (session_error(agent_session(a)) != NULL) {
		agent_halt(cv);
		return;
	}
	if (modelset_wait(cv) || agent_mcp_wait(cv)) {
		agent_phase(cv, PHASE_MODELS_WAIT);
		return;
	}
	modelset_caps_used(cv);
	if (compaction_before_call(cv)) {
		agent_phase(cv, PHASE_COMPACTING);
		return;
	}
	/* Nothing goes out before the log that explains it is on disk. */
	if (session_sync(agent_session(a)) == -1) {
		agent_halt(cv);
		return;
	}
	/* Nor a conversation the API would refuse, whatever put it in memory. */
	if (conv_check(conversation_conv(cv), &why) == -1) {
		agent_fail(cv, "the conversation is not valid (%s), so it was not sent; go on "
		    "from an earlier turn with tandem --resume %s --fork --rewind-to N",
		    buf_cstr(&why), session_id(agent_session(a)));
		buf_release(&why);
		return;
	}
	buf_release(&why);
	hashes = conv_hashes(conversation_conv(cv), cachewatch_message_hash, &nhashes);
	cachewatch_before_hashes(conversation_cachewatch(cv), prompt_sys_static(cv), prompt_tools(cv),
	    agent_model(a), hashes, nhashes,
	    call_clock_ms());
	modelset_sending(cv, prompt_estimate(cv));
	if (agent_debug("conv"))
		agent_verify_conv(cv);
	memset(&rq, 0, sizeof rq);
	rq.system_static = prompt_sys_static(cv);
	rq.system_dynamic = prompt_sys_dynamic(cv);
	rq.tools = prompt_tools(cv);
	rq.conv = conversation_conv(cv);
	rq.cache = agent_proto(a) == STREAM_ANTHROPIC;
	rq.stall_on_progress = true;
	rq.sh = &sh;
	record_call_start(cv);
	conversation_call(cv)->overflow_ok = compaction_overflow_ok(cv);
	conversation_call(cv)->reauth_ok = call_reauth_may(cv);
	agent_phase(cv, PHASE_STREAMING);
	call_start(cv, conversation_call(cv), &rq, agent_call_ended, NULL);
	crash_point("request-sent");
}

/* --- streaming ------------------------------------------------------------ */

void
agent_on_text(void *arg, int index, const char *s, size_t n)
{
	struct conversation *cv = arg;

	emit_text(conversation_bus(cv), s, n, false);
}

void
agent_on_thinking(void *arg, int index, const char *s, size_t n)
{
	struct conversation *cv = arg;

	emit_thinking(conversation_bus(cv), s, n);
}

/* A block is complete: a tool call is scheduled at once (it runs when the gate lets it). */
void
agent_on_block(void *arg, int index, const cJSON *block)
{
	struct conversation *cv = arg;

	/* A call cut off before its block stopped is never run (nor recorded). */
	if (strcmp(json_str(block, "type", ""), "tool_use") != 0 || conversation_phase(cv) == PHASE_ENDING ||
	    json_bool(block, "_incomplete", false))
		return;
	emit_tool_use(conversation_bus(cv), json_str(block, "id", ""), json_str(block, "name", ""),
	    json_get(block, "input"), false);
	sched_add(conversation_sched(cv), json_str(block, "id", ""), json_str(block, "name", ""),
	    json_get(block, "input"), json_str(block, "_input_error", NULL));
}

static void
agent_retry_now(struct ev_loop *loop, void *arg)
{
	struct conversation *cv = arg;

	call_retry_fired(cv);
	turn_call_model(cv);
}

/* streaming -> retry_wait: ask again after a backoff, or fail when out of attempts. */
static void
agent_retry(struct conversation *cv, struct http_req *req, const char *reason)
{
	int64_t delay;
	int attempt;

	call_release(conversation_call(cv));
	if (!call_retry_next(cv, req, &attempt, &delay)) {
		agent_fail(cv, "%s (gave up after %d attempts)", reason, call_attempts(cv));
		return;
	}
	emit_retry(conversation_bus(cv), attempt, delay, reason);
	agent_phase(cv, PHASE_RETRY_WAIT);
	call_retry_wait(cv, delay, agent_retry_now, cv);
}

/* The turn's model call ended: what its end means for the turn. */
static void
agent_call_ended(struct conversation *cv, struct call *c, const struct call_end *e)
{
	const char *msg = buf_cstr(&e->msg);

	if (e->kind == CALL_DONE) {
		agent_response_done(cv, e->stop_reason);
	} else if (e->kind == CALL_PARTIAL) {
		event_error(conversation_bus(cv), 0, "%s; continuing from the %d tool call%s it completed",
		    msg, e->ntools, e->ntools == 1 ? "" : "s");
		agent_response_done(cv, "tool_use");
	} else if (e->kind == CALL_RETRY) {
		agent_retry(cv, e->req, msg);
	} else if (e->kind == CALL_OVERFLOW) {
		/* Too big for the window: compact as hard as it goes and send it again, once. */
		call_release(c);
		if (compaction_overflow(cv))
			turn_call_model(cv);
		else if (e->status != 200)
			agent_fail(cv, "the conversation does not fit the model's context window, and "
			    "nothing more can be compacted: %s", msg);
		else
			agent_fail(cv, "%s; nothing more can be compacted", msg);
	} else if (e->kind == CALL_REAUTH) {
		struct buf kerr = BUF_INIT(4096);

		/* The helper's key may have expired: ask it again, once. */
		call_reauth_tried(cv);
		call_release(c);
		if (modelset_run_key_helper(cv, &kerr) == 0)
			turn_call_model(cv);
		else
			agent_fail(cv, "the model server refused the key (HTTP 401), and %s",
			    buf_cstr(&kerr));
		buf_release(&kerr);
	} else {
		/* What tandem knew of the model was wrong: ask again next time. */
		if (e->param_setting != NULL)
			modelset_forget(cv);
		call_release(c);
		agent_fail(cv, "%s", msg);
	}
}

/* streaming -> tools: the response is over; record it, then go on once the tools are done. */
void
agent_response_done(struct conversation *cv, const char *stop_reason)
{
	struct turn_flow *tf = conversation_flow(cv);
	cJSON *content;
	int ntools;

	call_record_usage(cv);
	content = record_complete_blocks(stream_take_content(conversation_call(cv)->stream), &ntools);
	if (cJSON_GetArraySize(content) == 0 && strcmp(stop_reason, "refusal") != 0 &&
	    strcmp(stop_reason, "pause_turn") != 0)
		event_error(conversation_bus(cv), 0, "the model sent an empty answer (stop reason %s)", stop_reason);
	/* Not on disk: no tool runs and nothing more is sent. */
	if (record_response(cv, content) == -1 || session_error(agent_session(conversation_agent(cv))) != NULL ||
	    (ntools > 0 && record_checkpoint_a(cv) == -1)) {
		call_release(conversation_call(cv));
		agent_halt(cv);
		return;
	}
	free(tf->stop_reason);
	tf->stop_reason = xstrdup(ntools > 0 && strcmp(stop_reason, "max_tokens") != 0 ?
	    "tool_use" : stop_reason);
	call_release(conversation_call(cv));
	agent_phase(cv, PHASE_TOOLS);
	turn_settle(cv);
}

/* --- tools -> decide ------------------------------------------------------ */

/*
 * All done, go on: the response is recorded, every tool call has its
 * result and the PostToolUse hooks have spoken.  The one place a turn
 * moves on from its tools (or, ending, to its end).
 */
static void
turn_settle(struct conversation *cv)
{
	if ((conversation_phase(cv) == PHASE_TOOLS || conversation_phase(cv) == PHASE_ENDING) &&
	    sched_pending(conversation_sched(cv)) == 0 && hooks_post_pending(agent_hooks(conversation_agent(cv))) == 0)
		agent_proceed(cv);
}

static void
agent_stop_hooked(void *arg, struct hook_outcome *o)
{
	struct conversation *cv = arg;
	struct turn_flow *tf = conversation_flow(cv);

	tf->run = NULL;
	agent_hook_notes(cv, o);
	if (o->decision != HOOK_BLOCK || conversation_hook_stopped(cv)) {
		agent_end_turn(cv, "end_turn", false);
		return;
	}
	if (tf->stop_blocks >= AGENT_MAX_STOP_BLOCKS) {
		event_error(conversation_bus(cv), 0, "Stop hooks kept the turn going %d times in a row; "
		    "stopping here", tf->stop_blocks);
		agent_end_turn(cv, "end_turn", false);
		return;
	}
	tf->stop_blocks++;
	if (record_add_text(cv, o->reason) == -1) {
		agent_halt(cv);
		return;
	}
	agent_next_call(cv);
}

/* tools -> stop_hooks: the model is done; Stop hooks may send it on.  True when they run. */
static bool
agent_stop_hooks(struct conversation *cv)
{
	struct turn_flow *tf = conversation_flow(cv);
	struct agent *a = conversation_agent(cv);
	cJSON *f;
	const char *type;
	enum hook_event ev = sub_hook_event(agent_subs(a), cv, true, &type, NULL);

	if (!hooks_has(agent_hooks(a), ev, type))
		return false;
	f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "stop_hook_active", tf->stop_blocks > 0);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(agent_mode(a)));
	if (ev == HOOK_SUBAGENT_STOP) {
		(void)sub_hook_event(agent_subs(a), cv, true, &type, f);
		json_add_str_n(f, "last_assistant_message", buf_cstr(record_answer(cv)), record_answer(cv)->len);
	}
	tf->run = hooks_run(agent_hooks(a), ev, f, agent_stop_hooked, cv);
	cJSON_Delete(f);
	if (tf->run != NULL)
		agent_phase(cv, PHASE_STOP_HOOKS);
	return tf->run != NULL;
}

/* The response and all its tools are done: the stop reason decides what comes next. */
static void
agent_proceed(struct conversation *cv)
{
	struct turn_flow *tf = conversation_flow(cv);
	struct agent *a = conversation_agent(cv);
	const char *sr = tf->stop_reason != NULL ? tf->stop_reason : "end_turn";
	bool had_tools = sched_count(conversation_sched(cv)) > 0;

	if (had_tools) {
		cJSON *last = conv_last(conversation_conv(cv));

		/* Results answer the tool_use blocks of the assistant message just recorded. */
		if (last != NULL && strcmp(json_str(last, "role", ""), "assistant") == 0 &&
		    session_error(agent_session(a)) == NULL &&
		    record_add(cv, "user", sched_results(conversation_sched(cv))) == 0 &&
		    conversation_durable(cv) && session_checkpoint(agent_session(a), 'B',
		    conversation_turn(cv), conversation_calls(cv), record_tokens_used(cv), NULL) == -1)
			agent_unsaved(cv);
		sched_reset(conversation_sched(cv));
	}
	if (session_error(agent_session(a)) != NULL) {
		agent_unsaved(cv);
		agent_end_turn(cv, "error", true);
		return;
	}
	if (conversation_phase(cv) == PHASE_ENDING) {
		agent_end_turn(cv, conversation_failed(cv) ? "error" : "interrupted",
		    conversation_failed(cv));
		return;
	}
	if (conversation_hook_stopped(cv)) {
		agent_end_turn(cv, "stopped_by_hook", false);
		return;
	}
	if (strcmp(sr, "max_tokens") == 0) {
		if (tf->continuations >= AGENT_MAX_CONTINUATIONS) {
			event_error(conversation_bus(cv), 0, "the answer reached max_tokens %d times; stopping here",
			    tf->continuations + 1);
			agent_end_turn(cv, "max_tokens", false);
			return;
		}
		tf->continuations++;
		event_error(conversation_bus(cv), 0, "the answer reached the max_tokens limit; asking the model "
		    "to continue (%d of %d)", tf->continuations, AGENT_MAX_CONTINUATIONS);
		/* After tool results the next answer starts afresh; after text it goes on. */
		record_set_continuing(cv, !had_tools);
		if (record_add_text(cv, had_tools ? "Your answer was cut off by the output limit. "
		    "Continue where you stopped; resend any tool call that was cut off." :
		    "Your answer was cut off by the output limit. Continue exactly where you stopped.") == -1) {
			agent_halt(cv);
			return;
		}
	} else if (strcmp(sr, "tool_use") == 0) {
		if (!had_tools) {
			agent_end_turn(cv, "end_turn", false);
			return;
		}
	} else if (strcmp(sr, "pause_turn") == 0) {
		/* The server paused a long turn: send it back as it is; the rest joins it. */
		record_set_paused(cv);
	} else {
		if (strcmp(sr, "refusal") == 0)
			event_error(conversation_bus(cv), 0, "the model declined to answer this request");
		if (strcmp(sr, "end_turn") == 0 && agent_stop_hooks(cv))
			return;
		agent_end_turn(cv, sr, false);
		return;
	}
	agent_next_call(cv);
}

/* --- ending: interrupt, failure, -> idle ------------------------------------ */

/*
 * After agent_unsaved: stop the turn before anything more is sent or
 * run.  Calls not yet run end unrun; the turn ends once each has its
 * result.  -1.
 */
int
agent_halt(struct conversation *cv)
{
	agent_unsaved(cv);
	if (!agent_in_turn(cv))
		return -1;
	if (sched_pending(conversation_sched(cv)) > 0) {
		if (conversation_phase(cv) != PHASE_ENDING) {
			agent_phase(cv, PHASE_ENDING);
			sched_interrupt(conversation_sched(cv), AGENT_NOT_SAVED);
		}
		return -1;
	}
	agent_end_turn(cv, "error", true);
	return -1;
}

void
agent_fail(struct conversation *cv, const char *fmt, ...)
{
	struct buf m = BUF_INIT(64 * 1024);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&m, fmt, ap);
	va_end(ap);
	event_error(conversation_bus(cv), 1, "%s", buf_cstr(&m));
	buf_release(&m);
	conversation_set_failed(cv, true);
	/* Every tool_use must still get its result before the turn ends. */
	if (sched_pending(conversation_sched(cv)) > 0) {
		agent_phase(cv, PHASE_ENDING);
		sched_interrupt(conversation_sched(cv), "the turn failed before this call ran");
		return;
	}
	agent_end_turn(cv, "error", true);
}

void
agent_interrupt(struct agent *a)
{
	conversation_interrupt(agent_main(a));
}

void
conversation_interrupt(struct conversation *cv)
{
	struct turn_flow *tf = conversation_flow(cv);
	enum turn_phase from = conversation_phase(cv);

	if (!agent_in_turn(cv) || conversation_phase(cv) == PHASE_ENDING)
		return;
	agent_phase(cv, PHASE_ENDING);
	hooks_cancel_tools(agent_hooks(conversation_agent(cv)));
	if (from == PHASE_MCP_FETCH) {
		mcp_expand_cancel(tf->expand);
		tf->expand = NULL;
		free(tf->context);
		tf->context = NULL;
	}
	if (from == PHASE_SESSION_WAIT || from == PHASE_PROMPT_HOOKS || from == PHASE_STOP_HOOKS ||
	    from == PHASE_MCP_FETCH) {
		/* The prompt or the Stop hooks had not let the model go on yet. */
		agent_end_turn(cv, "interrupted", false);
		return;
	}
	call_retry_cancel(cv);
	modelset_wait_cancel(cv);
	/* A summary the next call waits for: the call will not come. */
	if (compaction_call_waits(cv))
		compaction_cancel(cv);
	if (conversation_call(cv)->req != NULL) {
		cJSON *content;
		int ntools;

		call_abort(conversation_call(cv));
		/*
		 * Keep what was said: the blocks still open close as cut off (the
		 * text the user saw stays; a tool call still streaming is dropped),
		 * and every scheduled tool_use stays, to be answered.
		 */
		stream_finish(conversation_call(cv)->stream);
		call_record_usage(cv);
		content = record_complete_blocks(stream_take_content(conversation_call(cv)->stream), &ntools);
		/* A failure is reported; agent_proceed then ends the turn as failed. */
		if (record_response(cv, content) == 0 && ntools > 0)
			record_checkpoint_a(cv);
		call_release(conversation_call(cv));
	}
	if (sched_pending(conversation_sched(cv)) > 0)
		sched_interrupt(conversation_sched(cv), "interrupted by the user before this call ran");
	else
		turn_settle(cv);
}

/* ending (or any phase of a turn) -> idle: the turn's record, and its end as events. */
static void
agent_end_turn(struct conversation *cv, const char *stop_reason, bool failed)
{
	struct turn_flow *tf = conversation_flow(cv);
	struct agent *a = conversation_agent(cv);
	cJSON *rec;

	if (session_error(agent_session(a)) == NULL && tooluse_turn_end(cv) == -1)
		agent_unsaved(cv);
	rec = record_turn(cv, stop_reason);
	/* A turn whose record is not on disk is not shown as done. */
	if (session_error(agent_session(a)) != NULL) {
		cJSON_Delete(rec);
	} else if (record_log(cv, rec) == -1 || record_sync(cv) == -1 ||
	    (conversation_durable(cv) && resume_save_cache(cv) == -1)) {
		agent_unsaved(cv);
	}
	if (session_error(agent_session(a)) != NULL) {
		stop_reason = "error";
		failed = true;
	}
	agent_phase(cv, PHASE_IDLE);
	call_retry_cancel(cv);
	hooks_cancel_tools(agent_hooks(a));
	hooks_cancel(tf->run);
	tf->run = NULL;
	sched_reset(conversation_sched(cv));
	if (cv == agent_main(a))
		claude_turn_end(agent_claude(a), a);
	emit_turn_end(conversation_bus(cv), stop_reason, false);
	emit_result(conversation_bus(cv), buf_cstr(record_answer(cv)), record_answer(cv)->len, stop_reason,
	    failed, conversation_calls(cv),
	    conversation_totals(cv), conversation_cost(cv), session_id(agent_session(a)));
}

/* --- the agent's life ------------------------------------------------------- */

/* What the turn's modules may ask of it (conversation.c calls through it). */
const struct turn_ops agent_turn_ops = {
	.call_model = turn_call_model,
	.settle = turn_settle,
	.session_start = turn_session_start,
	.submit = conversation_submit,
	.interrupt = conversation_interrupt,
};
