/*
 * life: a session's life and its conversations': agent_new and agent_free,
 * conversation_new and conversation_free, and the session's report for
 * the front ends (agent_report).  Nothing below the front ends calls it.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "turn_int.h"
#include "inbox.h"
#include "claude/claude.h"
#include "jail/jail.h"
#include "lsp/lsp.h"
#include "mcp/mcp.h"
#include "plan/plan.h"
#include "compaction.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "sub/subagent.h"
#include "subhost.h"
#include "tooluse.h"
#include "web/web.h"

/* Where phase transitions are logged: TANDEM_DEBUG=phase, to TANDEM_DEBUG_FILE or stderr. */
static FILE *
agent_trace_open(void)
{
	const char *path = getenv("TANDEM_DEBUG_FILE");
	FILE *f;

	if (!agent_debug("phase"))
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

/* A conversation's own parts: its prompt, cache accounting, compaction, record, ... */
static struct conversation *
conversation_alloc(struct agent *a, struct event_bus *bus)
{
	const struct config *cfg = agent_config(a);
	const char *ttl = getenv("TANDEM_CACHE_TTL_MS");
	char *end;
	long long v = ttl != NULL ? strtoll(ttl, &end, 10) : 0;
	struct conversation_parts parts = {
		.progress = tooluse_progress_new(),
		.prompt = prompt_new(cfg),
		.retry = call_retry_new(agent_loop(a)),
		.mconv = modelset_conv_new(agent_loop(a)),
		.tf = agent_flow_new(),
		.cw = cachewatch_new(cfg->cache_ttl_ms > 0 ? cfg->cache_ttl_ms :
		    ttl != NULL && *end == '\0' && v > 0 ? v : 0),
		.cmp = compaction_new(cfg),
		.record = record_new(),
		.inbox = inbox_new(),
		.plan = plan_new(),
	};

	return conversation_make(a, bus, &parts);
}

/* Its scheduler, once the session's tool environment is set; it joins the session's list. */
static void
conversation_attach(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct sched_ops ops;

	tooluse_ops(cv, &ops);
	conversation_set_sched(cv, sched_new(agent_loop(a), agent_env(a), &ops));
	sched_set_finder(conversation_sched(cv), prompt_find, prompt_resolve, cv);
	conversation_link(cv);
}

struct conversation *
conversation_new(struct agent *a, struct event_bus *bus, char *err, size_t err_size)
{
	struct conversation *cv = conversation_alloc(a, bus);

	(void)err;
	(void)err_size;
	conversation_set_turn(cv, session_turns(agent_session(a)));
	conversation_attach(cv);
	return cv;
}

/* Its calls, timers and hooks end; what it owns is freed. */
static void
conversation_release(struct conversation *cv)
{
	struct conversation_parts p;

	conversation_take_parts(cv, &p);
	call_retry_free(p.retry);
	modelset_conv_free(p.mconv);
	call_cancel(conversation_call(cv));
	compaction_free(p.cmp);
	agent_flow_free(p.tf);
	cachewatch_free(p.cw);
	sched_free(p.sched);
	prompt_free(p.prompt);
	tooluse_progress_free(p.progress);
	record_free(p.record);
	inbox_free(p.inbox);
	plan_free(p.plan);
}

void
conversation_free(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);

	if (cv == NULL || cv == agent_main(a))
		return;
	conversation_unlink(cv);
	if (agent_in_turn(cv))
		agent_phase(cv, PHASE_ENDING);
	/* a held edit of its scheduler goes with it */
	lsp_leave(agent_lsp(a), conversation_sched(cv));
	conversation_release(cv);
	conversation_destroy(cv);
}

struct agent *
agent_new(struct ev_loop *loop, struct event_bus *bus, const struct config *cfg,
    const char *resume_id, bool fork, bool interactive, char *err, size_t err_size)
{
	struct agent_services sv = {
		.ms = modelset_new(cfg),
		.mcpn = call_mcp_notes_new(),
		.claude = claude_new(cfg),
		.hooks = hooks_new(loop, cfg),
		.jail = jail_new(&cfg->sandbox, cfg->trusted, cfg->root, getenv("HOME")),
		.pf = prompt_facts_new(cfg),
		.http = http_new(loop),
	};
	struct agent *a = agent_alloc(loop, bus, cfg, interactive, agent_trace_open(), &sv);
	struct conversation *cv;

	agent_set_guard(a, tooluse_guard_new());
	hooks_attach(agent_hooks(a), bus);
	/* Retry jitter must differ between processes that fail together. */
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		srand((unsigned)ts.tv_nsec ^ (unsigned)ts.tv_sec ^ ((unsigned)getpid() << 16));
	}
	cv = conversation_alloc(a, NULL);
	agent_set_main(a, cv);
	conversation_set_durable(cv, true);
	if (agent_http(a) == NULL) {
		snprintf(err, err_size, "libcurl could not be started");
		agent_free(a);
		return NULL;
	}
	if (modelset_init(cv, err, err_size) == -1) {
		agent_free(a);
		return NULL;
	}
	if (resume_start_session(cv, resume_id, fork, err, err_size) == -1) {
		agent_free(a);
		return NULL;
	}
	subhost_start(a);
	conversation_attach(cv);
	agent_set_web(a, web_new(a));
	prompt_sub_tools(cv);
	tooluse_protect_warm(cv);
	agent_set_lsp(a, lsp_new(loop, cfg, agent_env(a), agent_jail(a), bus, conversation_sched(cv)));
	lsp_tools_json(agent_lsp(a), prompt_tools(cv));
	prompt_mcp_start(cv);
	agent_set_resumed(a, resume_id != NULL);
	/* A front end that subscribes later asks for the replay (agent_replay). */
	agent_emit_session(cv, agent_resumed(a));
	if (!interactive)
		jail_announce(agent_jail(a), agent_bus(a));
	if (session_note(agent_session(a)) != NULL)
		event_error(agent_bus(a), 0, "%s", session_note(agent_session(a)));
	if (resume_id != NULL && !fork)
		resume_load_cache(cv);
	agent_session_start(cv, resume_id != NULL ? "resume" : "startup");
	return a;
}

void
agent_free(struct agent *a)
{
	struct conversation *cv;

	if (a == NULL)
		return;
	sub_close(agent_subs(a));
	while (agent_convs(a) != NULL && conversation_next(agent_convs(a)) != NULL)
		conversation_free(conversation_next(agent_convs(a)));
	cv = agent_main(a);
	if (cv != NULL) {
		call_cancel(conversation_call(cv));
		compaction_cancel(cv);
		/* SessionEnd hooks get a few seconds; nothing may start a request meanwhile. */
		if (agent_in_turn(cv))
			agent_phase(cv, PHASE_ENDING);
	}
	hooks_cancel_tools(agent_hooks(a));
	if (cv != NULL)
		agent_flow_cancel(cv);
	hooks_cancel(agent_start_run(a));
	agent_set_start_run(a, NULL);
	if (cv != NULL && hooks_has(agent_hooks(a), HOOK_SESSION_END, "exit")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "reason", "exit");
		hooks_run(agent_hooks(a), HOOK_SESSION_END, f, agent_hooks_ignored, cv);
		cJSON_Delete(f);
	}
	/* and the hooks the last events started (StopFailure, PermissionDenied, ...) finish */
	hooks_drain(agent_hooks(a), AGENT_SESSION_END_MS);
	hooks_free(agent_hooks(a));
	jail_free(agent_jail(a));
	agent_set_hooks(a, NULL);
	lsp_free(agent_lsp(a));
	if (cv != NULL)
		conversation_release(cv);
	claude_free(agent_claude(a));
	web_free(agent_web(a));
	mcp_free(agent_mcp(a));
	call_mcp_notes_free(agent_mcp_notes(a));
	modelset_free(agent_modelset(a));
	http_free(agent_http(a));
	session_close(agent_session(a));
	tooluse_guard_free(agent_guard(a));
	prompt_facts_free(agent_prompt_facts(a));
	sub_free(agent_subs(a));
	if (cv != NULL)
		conversation_destroy(cv);
	/* after the subagents: their conversations' last phase changes are logged */
	agent_release(a);
}

void
agent_report(struct agent *a, const char *what, struct buf *out)
{
	struct conversation *cv = agent_main(a);

	if (strcmp(what, "mcp") == 0) {
		mcp_report(agent_mcp(a), true, out);
	} else if (strcmp(what, "skills") == 0) {
		claude_report(agent_claude(a), out);
	} else if (strcmp(what, "cost") == 0) {
		const struct usage *l = conversation_last_usage(cv), *t = conversation_totals(cv);

		buf_printf(out, "Session %s, model %s\n", session_id(agent_session(a)), agent_model(a));
		buf_printf(out, "Last request: %lld in, %lld out, %lld cache read, %lld cache write\n",
		    (long long)l->input, (long long)l->output,
		    (long long)l->cache_read, (long long)l->cache_write);
		buf_printf(out, "Session total: %lld in, %lld out, %lld cache read, %lld cache write\n",
		    (long long)t->input, (long long)t->output,
		    (long long)t->cache_read, (long long)t->cache_write);
		buf_printf(out, "Cost: $%.4f\n", conversation_cost(cv));
		sub_cost_report(agent_subs(a), out);
		cachewatch_cost_report(conversation_cachewatch(cv), out);
		modelset_report_prices(cv, out);
	} else if (strcmp(what, "context") == 0) {
		int64_t used = record_tokens_used(cv);

		buf_printf(out, "Context: %lld of %lld tokens (%.0f%%), %d messages\n",
		    (long long)used, (long long)modelset_window(cv),
		    modelset_window(cv) > 0 ? 100.0 * (double)used / (double)modelset_window(cv) : 0.0,
		    conv_count(conversation_conv(cv)));
		buf_printf(out, "Next request: about %lld tokens (estimated)\n",
		    (long long)modelset_est_tokens(cv, prompt_estimate(cv)));
		modelset_report_model(cv, out);
		compaction_report(cv, out);
		cachewatch_report(conversation_cachewatch(cv), out);
	} else if (strcmp(what, "memory") == 0) {
		buf_puts(out, prompt_memory_report(a));
		claude_memory_report(agent_claude(a), out);
	} else if (strcmp(what, "agents") == 0) {
		sub_describe(agent_subs(a), out);
	} else {
		buf_printf(out, "Nothing to report for \"%s\".\n", what);
	}
}
