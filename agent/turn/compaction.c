/*
 * compaction: keeping the agent's conversation inside the model's window.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "turn_int.h"
#include "call.h"
#include "compaction.h"
#include "modelset.h"
#include "prompt.h"
#include "plan/plan.h"
#include "record.h"

/* A conversation's compaction: how far it went, and the summary call. */
struct compaction {
	struct compact_thresholds th;
	int			 summary_failures;
	bool			 overflow_retried;	/* the turn's one hard compaction was made */
	struct call		 call;		/* the summary call */
	int			 keep;
	int64_t			 tokens_before;
	bool			 then_call;	/* a model call waits for it */
};

struct compaction *
compaction_new(const struct config *cfg)
{
	struct compaction *cmp = xcalloc(1, sizeof *cmp);

	cmp->th.micro = cfg->compact_micro;
	cmp->th.collapse = cfg->compact_collapse;
	cmp->th.summary = cfg->compact_summary;
	return cmp;
}

void
compaction_free(struct compaction *cmp)
{
	if (cmp == NULL)
		return;
	call_cancel(&cmp->call);
	free(cmp);
}

void
compaction_applied(struct conversation *cv, enum compact_stage stage, int64_t before, int64_t after)
{
	cJSON *rec = cJSON_CreateObject();

	plan_compacted(cv);
	conv_changed(conversation_conv(cv));
	cJSON_AddStringToObject(rec, "k", "replace");
	cJSON_AddStringToObject(rec, "stage", compact_stage_name(stage));
	cJSON_AddItemToObject(rec, "messages", cJSON_Duplicate(conversation_conv(cv)->messages, 1));
	if (record_log(cv, rec) == -1 || record_sync(cv) == -1) {
		agent_unsaved(cv);
		return;
	}
	crash_point("compaction");
	conv_compacted(conversation_conv(cv), stage);
	emit_compaction(conversation_bus(cv), compact_stage_name(stage), before, after);
	emit_context(conversation_bus(cv), modelset_est_tokens(cv, after), modelset_window(cv),
	    compact_stage_name(conv_stage(conversation_conv(cv))));
}

/* What the summary call brought: the summary replaces the old turns, or they collapse. */
static void
compaction_finish(struct conversation *cv, const char *summary, const char *why)
{
	struct compaction *cmp = conversation_compaction(cv);

	if (summary != NULL && compact_apply_summary(conversation_conv(cv)->messages, cmp->keep, summary, NULL) > 0) {
		cJSON *rec = cJSON_CreateObject();

		conv_changed(conversation_conv(cv));
		cJSON_AddStringToObject(rec, "k", "summary");
		cJSON_AddStringToObject(rec, "text", summary);
		if (record_log(cv, rec) == -1)
			agent_unsaved(cv);
		cmp->summary_failures = 0;
		compaction_applied(cv, COMPACT_SUMMARY, cmp->tokens_before, prompt_estimate(cv));
	} else {
		cmp->summary_failures++;
		event_error(conversation_bus(cv), 0, "the summary for compaction failed (%s); collapsing instead",
		    why != NULL ? why : "no summary came back");
		if (compact_collapse(conversation_conv(cv)->messages, cmp->keep, NULL) > 0) {
			conv_changed(conversation_conv(cv));
			compaction_applied(cv, COMPACT_COLLAPSE, cmp->tokens_before, prompt_estimate(cv));
		}
		if (cmp->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES)
			event_error(conversation_bus(cv), 0, "automatic compaction stopped after %d failed summaries "
			    "in a row; use /compact to try again", cmp->summary_failures);
	}
}

/* The summary call ended: a summary is not asked for twice, whatever the end. */
static void
compaction_summary_ended(struct conversation *cv, struct call *c, const struct call_end *e)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	bool then_call = conversation_compaction(cv)->then_call;
	const cJSON *b;

	if (e->fail == HTTP_OK && c->status == 200) {
		bool has = false;
		struct usage u = stream_usage(c->stream, &has);

		cJSON_ArrayForEach(b, stream_content(c->stream))
			if (strcmp(json_str(b, "type", ""), "text") == 0)
				buf_puts(&text, json_str(b, "text", ""));
		if (has)
			(void)call_add_usage(cv, &u);
	}
	compaction_finish(cv, e->cause.len == 0 && text.len > 0 ? buf_cstr(&text) : NULL,
	    e->cause.len > 0 ? buf_cstr(&e->cause) : NULL);
	call_release(c);
	buf_release(&text);
	agent_summary_done(cv, then_call);
}

/* Ask the model for a summary of all but the newest keep turns. */
static int
compaction_start(struct conversation *cv, int keep, const char *focus, bool then_call)
{
	struct compaction *cmp = conversation_compaction(cv);
	struct call_request rq;
	cJSON *msgs;

	msgs = compact_summary_request(conversation_conv(cv)->messages, keep, focus,
	    (size_t)modelset_est_window(cv) * 2);
	if (msgs == NULL)
		return -1;
	memset(&rq, 0, sizeof rq);
	rq.system_static = compact_summary_system();
	rq.messages = msgs;
	/* A summary needs no thinking: only what the model would do anyway. */
	rq.no_budget = true;
	cmp->keep = keep;
	cmp->then_call = then_call;
	cmp->tokens_before = prompt_estimate(cv);
	call_start(cv, &cmp->call, &rq, compaction_summary_ended, NULL);
	cJSON_Delete(msgs);
	return 0;
}

/* PreCompact hooks hear of a summary; their answer changes nothing. */
static void
compaction_pre_hooks(struct conversation *cv, const char *trigger, const char *focus)
{
	struct agent *a = conversation_agent(cv);
	cJSON *f;

	if (!hooks_has(agent_hooks(a), HOOK_PRE_COMPACT, trigger))
		return;
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "trigger", trigger);
	cJSON_AddStringToObject(f, "custom_instructions", focus != NULL ? focus : "");
	hooks_run(agent_hooks(a), HOOK_PRE_COMPACT, f, agent_hooks_ignored, cv);
	cJSON_Delete(f);
}

bool
compaction_before_call(struct conversation *cv)
{
	struct compaction *cmp = conversation_compaction(cv);
	struct compact_outcome o;
	char *sys = prompt_system_text(cv);

	compact_auto_at(conversation_conv(cv)->messages, sys, prompt_tools(cv), modelset_est_window(cv), &cmp->th,
	    cmp->summary_failures < COMPACT_MAX_SUMMARY_FAILURES, prompt_estimate(cv), &o);
	free(sys);
	if (o.stage != COMPACT_NONE)
		compaction_applied(cv, o.stage, o.tokens_before, o.tokens_after);
	if (o.need_summary)
		compaction_pre_hooks(cv, "auto", NULL);
	if (o.need_summary && compaction_start(cv, o.keep_turns, NULL, true) == 0)
		return true;
	return false;
}

bool
compaction_overflow(struct conversation *cv)
{
	struct compact_outcome o;
	char *sys = prompt_system_text(cv);

	conversation_compaction(cv)->overflow_retried = true;
	compact_overflow(conversation_conv(cv)->messages, sys, prompt_tools(cv), &o);
	conv_changed(conversation_conv(cv));
	free(sys);
	if (o.stage == COMPACT_NONE)
		return false;
	compaction_applied(cv, o.stage, o.tokens_before, o.tokens_after);
	return true;
}

void
compaction_cancel(struct conversation *cv)
{
	struct compaction *cmp = conversation_compaction(cv);

	call_cancel(&cmp->call);
	cmp->then_call = false;
}

bool
compaction_running(const struct conversation *cv)
{
	return conversation_compaction(cv)->call.req != NULL;
}

bool
compaction_call_waits(const struct conversation *cv)
{
	return compaction_running(cv) && conversation_compaction(cv)->then_call;
}

void
compaction_reset(struct conversation *cv)
{
	conv_compacted(conversation_conv(cv), COMPACT_NONE);
	conversation_compaction(cv)->summary_failures = 0;
}

void
compaction_turn_start(struct conversation *cv)
{
	conversation_compaction(cv)->overflow_retried = false;
}

bool
compaction_overflow_ok(const struct conversation *cv)
{
	return !conversation_compaction(cv)->overflow_retried;
}

void
compaction_report(const struct conversation *cv, struct buf *out)
{
	const struct compaction *cmp = conversation_compaction(cv);

	buf_printf(out, "Compaction: stage %s; thresholds micro %.0f%%, collapse %.0f%%, "
	    "summary %.0f%%%s\n", compact_stage_name(conv_stage(conversation_msgs(cv))), cmp->th.micro * 100,
	    cmp->th.collapse * 100, cmp->th.summary * 100,
	    cmp->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES ?
	    " (automatic summaries stopped after failures)" : "");
}

int
agent_compact(struct agent *a, const char *focus)
{
	struct conversation *cv = agent_main(a);
	int keep;

	if (conversation_busy(cv))
		return -1;
	compact_micro(conversation_conv(cv)->messages, COMPACT_KEEP_ROUNDS, NULL);
	conv_changed(conversation_conv(cv));
	keep = compact_summary_keep(conversation_conv(cv)->messages);
	if (keep < 0) {
		event_error(conversation_bus(cv), 0, "nothing to compact yet");
		return 0;
	}
	/* Asked for by the user: summaries are on again. */
	conversation_compaction(cv)->summary_failures = 0;
	compaction_pre_hooks(cv, "manual", focus);
	if (prompt_sys_dynamic(cv) == NULL)
		prompt_build_dynamic(cv);
	if (compaction_start(cv, keep, focus, false) == -1) {
		event_error(conversation_bus(cv), 0, "nothing to compact yet");
		return 0;
	}
	agent_summary_started(cv);
	return 0;
}
