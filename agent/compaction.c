/*
 * compaction: keeping the agent's conversation inside the model's window.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "agent_int.h"
#include "call.h"
#include "compaction.h"
#include "modelset.h"
#include "prompt.h"
#include "plan/plan.h"

void
compaction_applied(struct agent *a, enum compact_stage stage, int64_t before, int64_t after)
{
	cJSON *rec = cJSON_CreateObject();

	plan_compacted(a);
	conv_changed(&a->conv);
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
	emit_compaction(a->bus, compact_stage_name(stage), before, after);
	emit_context(a->bus, modelset_est_tokens(a, after), modelset_window(a),
	    compact_stage_name(a->stage));
}

/* What the summary call brought: the summary replaces the old turns, or they collapse. */
static void
compaction_finish(struct agent *a, const char *summary, const char *why)
{
	if (summary != NULL && compact_apply_summary(a->conv.messages, a->sum.keep, summary, NULL) > 0) {
		cJSON *rec = cJSON_CreateObject();

		conv_changed(&a->conv);
		cJSON_AddStringToObject(rec, "k", "summary");
		cJSON_AddStringToObject(rec, "text", summary);
		if (session_append(a->session, rec) == -1)
			agent_unsaved(a);
		a->summary_failures = 0;
		compaction_applied(a, COMPACT_SUMMARY, a->sum.tokens_before, prompt_estimate(a));
	} else {
		a->summary_failures++;
		event_error(a->bus, 0, "the summary for compaction failed (%s); collapsing instead",
		    why != NULL ? why : "no summary came back");
		if (compact_collapse(a->conv.messages, a->sum.keep, NULL) > 0) {
			conv_changed(&a->conv);
			compaction_applied(a, COMPACT_COLLAPSE, a->sum.tokens_before, prompt_estimate(a));
		}
		if (a->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES)
			event_error(a->bus, 0, "automatic compaction stopped after %d failed summaries "
			    "in a row; use /compact to try again", a->summary_failures);
	}
}

/* The summary call ended: a summary is not asked for twice, whatever the end. */
static void
compaction_summary_ended(struct agent *a, struct call *c, const struct call_end *e)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	bool then_call = a->sum.then_call;
	const cJSON *b;

	if (e->fail == HTTP_OK && c->status == 200) {
		bool has = false;
		struct usage u = stream_usage(c->stream, &has);

		cJSON_ArrayForEach(b, stream_content(c->stream))
			if (strcmp(json_str(b, "type", ""), "text") == 0)
				buf_puts(&text, json_str(b, "text", ""));
		if (has)
			(void)call_add_usage(a, &u);
	}
	compaction_finish(a, e->cause.len == 0 && text.len > 0 ? buf_cstr(&text) : NULL,
	    e->cause.len > 0 ? buf_cstr(&e->cause) : NULL);
	call_release(c);
	buf_release(&text);
	agent_summary_done(a, then_call);
}

/* Ask the model for a summary of all but the newest keep turns. */
static int
compaction_start(struct agent *a, int keep, const char *focus, bool then_call)
{
	struct call_request rq;
	cJSON *msgs;

	msgs = compact_summary_request(a->conv.messages, keep, focus,
	    (size_t)modelset_est_window(a) * 2);
	if (msgs == NULL)
		return -1;
	memset(&rq, 0, sizeof rq);
	rq.system_static = compact_summary_system();
	rq.messages = msgs;
	/* A summary needs no thinking: only what the model would do anyway. */
	rq.no_budget = true;
	a->sum.keep = keep;
	a->sum.then_call = then_call;
	a->sum.tokens_before = prompt_estimate(a);
	call_start(a, &a->sum.call, &rq, compaction_summary_ended, NULL);
	cJSON_Delete(msgs);
	return 0;
}

/* PreCompact hooks hear of a summary; their answer changes nothing. */
static void
compaction_pre_hooks(struct agent *a, const char *trigger, const char *focus)
{
	cJSON *f;

	if (!hooks_has(a->hooks, HOOK_PRE_COMPACT, trigger))
		return;
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "trigger", trigger);
	cJSON_AddStringToObject(f, "custom_instructions", focus != NULL ? focus : "");
	hooks_run(a->hooks, HOOK_PRE_COMPACT, f, agent_hooks_ignored, a);
	cJSON_Delete(f);
}

bool
compaction_before_call(struct agent *a)
{
	struct compact_outcome o;
	char *sys = prompt_system_text(a);

	compact_auto_at(a->conv.messages, sys, a->tools, modelset_est_window(a), &a->th,
	    a->summary_failures < COMPACT_MAX_SUMMARY_FAILURES, prompt_estimate(a), &o);
	free(sys);
	if (o.stage != COMPACT_NONE)
		compaction_applied(a, o.stage, o.tokens_before, o.tokens_after);
	if (o.need_summary)
		compaction_pre_hooks(a, "auto", NULL);
	if (o.need_summary && compaction_start(a, o.keep_turns, NULL, true) == 0)
		return true;
	return false;
}

bool
compaction_overflow(struct agent *a)
{
	struct compact_outcome o;
	char *sys = prompt_system_text(a);

	compact_overflow(a->conv.messages, sys, a->tools, &o);
	conv_changed(&a->conv);
	free(sys);
	if (o.stage == COMPACT_NONE)
		return false;
	compaction_applied(a, o.stage, o.tokens_before, o.tokens_after);
	return true;
}

void
compaction_cancel(struct agent *a)
{
	call_cancel(&a->sum.call);
	a->sum.then_call = false;
}

bool
compaction_running(const struct agent *a)
{
	return a->sum.call.req != NULL;
}

int
agent_compact(struct agent *a, const char *focus)
{
	int keep;

	if (agent_busy(a))
		return -1;
	compact_micro(a->conv.messages, COMPACT_KEEP_ROUNDS, NULL);
	conv_changed(&a->conv);
	keep = compact_summary_keep(a->conv.messages);
	if (keep < 0) {
		event_error(a->bus, 0, "nothing to compact yet");
		return 0;
	}
	/* Asked for by the user: summaries are on again. */
	a->summary_failures = 0;
	compaction_pre_hooks(a, "manual", focus);
	if (a->sys_dynamic == NULL)
		prompt_build_dynamic(a);
	if (compaction_start(a, keep, focus, false) == -1) {
		event_error(a->bus, 0, "nothing to compact yet");
		return 0;
	}
	agent_summary_started(a);
	return 0;
}
