/*
 * conversation: the session (struct agent) and its conversations (struct
 * conversation), which no other file sees inside, with the functions the
 * turn's modules read and set them by; a conversation's phase
 * (agent_phase, the one transition function), whether it is busy, the
 * session's failed write told once (agent_unsaved), a hook's notes, and
 * what the modules may ask of the turn (agent_call_model, agent_settle,
 * agent_session_start) through the session's turn_ops, so that no module
 * calls back up into the turn (agent.c).  It calls nothing of the turn,
 * so that every module may call it.  life.c makes the parts and hands them
 * over (agent_alloc, conversation_make).  See turn_int.h.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "turn_int.h"
#include "turn.h"
#include "tool.h"
#include "store/wsnap.h"
#include "xalloc.h"

/*
 * The session: what its conversations share.  The loop, HTTP, the MCP
 * servers, hooks, the sandbox, snapshots, the session log and ledger, the
 * model catalogue and the model in use, the settings and the "always"
 * answers.  main is the conversation the front ends talk to.
 */
struct agent {
	const struct turn_ops	*ops;		/* the turn's, for its modules */
	struct ev_loop		*loop;
	struct event_bus	*bus;		/* the session's events; a conversation may have its own */
	const struct config	*cfg;
	bool			 interactive;
	struct http		*http;
	struct mcp		*mcp;		/* the MCP servers; NULL: none */
	struct mcp_notes	*mcpn;		/* the servers changed before this request, the warnings (call.c) */
	struct tool_env		 env;
	struct sandbox_policy	 policy;	/* the deny rules, for the tools' walks */
	struct session		*session;
	struct session_facts	*sf;		/* resumed, the failed write told, the phase log (conversation.c) */
	struct session_snaps	*snaps;		/* files/, wsnap, the guard, a fork's dry run (conversation.c) */
	struct session_perms	*perms;		/* the permission mode, the "always" answers (conversation.c) */

	/* The model: its name, protocol and server, limits and capabilities, prices, the key. */
	struct modelset		*ms;		/* the model in use and what is known of it (modelset.c) */

	/* Hooks, the sandbox and memory files (hooks.h, jail.h, memory.h). */
	struct hooks		*hooks;
	struct jail		*jail;		/* the command sandbox (jail.h) */
	struct hook_run		*start_run;	/* SessionStart */
	struct prompt_facts	*pf;		/* memory, SessionStart context, host prompt (prompt.c) */
	struct web		*web;		/* web_fetch and web_search (web/web.h) */
	struct lsp		*lsp;		/* the language servers (lsp/lsp.h); NULL: none */
	struct claude		*claude;	/* skills, commands' and skills' grants (claude/claude.h) */

	struct conversation	*main;		/* the front ends' conversation */
	struct subagents	*subs;		/* the agent tool's subagents (sub/subagent.h) */
	struct conversation	*convs;		/* every conversation of the session, main first */
};

/*
 * One conversation of a session: its messages, its turn and phase, its
 * model call, compaction and cache accounting, the turn's record, the
 * next prompt's attachments, the answer and the usage.  It points to its
 * session (a).  Only the main conversation writes the session's log; a
 * second one keeps its messages in memory (durable false).
 */
struct conversation {
	struct agent		*a;		/* its session */
	struct conversation	*next;		/* the session's next conversation */
	struct event_bus	*bus;		/* where its events go */
	bool			 durable;	/* its records go to the session's log */
	struct conv		 conv;
	struct sched		*sched;		/* one response's tool calls */
	char			*model;		/* its own model (a subagent's); NULL: the session's */
	struct prompt_state	*prompt;	/* its system prompt and tools' schemas (prompt.c) */
	struct tooluse_progress	*progress;	/* the running call's output (tooluse.c) */

	/* The turn in progress. */
	struct turn_state	*ts;		/* its phase, calls, failure, hook stop (conversation.c) */
	int			 turn;
	struct call		 call;		/* the turn's model call (call.h) */
	struct call_retry	*retry;		/* the call's attempts and backoff (call.c) */
	struct modelset_conv	*mconv;		/* the wait for the model's caps, the estimate sent (modelset.c) */

	struct usage_acct	*usage;		/* the last request's, the totals, the cost (conversation.c) */

	/* Context economy. */
	struct cachewatch	*cw;
	struct compaction	*cmp;		/* its compaction's state (compaction.c) */

	struct inbox		*inbox;		/* the next prompt's attachments, the ! commands (inbox.c) */
	struct plan		*plan;		/* the todo list, the plan, the questions (plan/plan.h) */

	struct turn_record	*record;	/* the turn's record in the log (record.c) */

	struct turn_flow	*tf;		/* its hooks waited for, MCP prompt, stop reason (agent.c) */
};

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

/*
 * A conversation's turn in progress: its phase (agent_phase the one
 * writer), its model calls so far, how it will end (failed), and whether
 * a hook said "continue": false.
 */
struct turn_state {
	enum turn_phase	 phase;
	int		 calls;		/* model calls in this turn */
	bool		 failed;
	bool		 hook_stop;
};

struct turn_state *
conversation_state_new(void)
{
	return xcalloc(1, sizeof(struct turn_state));
}

void
conversation_state_free(struct turn_state *ts)
{
	free(ts);
}

enum turn_phase
conversation_phase(const struct conversation *cv)
{
	return cv->ts->phase;
}

void
conversation_turn_start(struct conversation *cv)
{
	cv->ts->calls = 0;
	cv->ts->hook_stop = false;
}

int
conversation_calls(const struct conversation *cv)
{
	return cv->ts->calls;
}

void
conversation_count_call(struct conversation *cv)
{
	cv->ts->calls++;
}

bool
conversation_failed(const struct conversation *cv)
{
	return cv->ts->failed;
}

void
conversation_set_failed(struct conversation *cv, bool failed)
{
	cv->ts->failed = failed;
}

bool
conversation_hook_stopped(const struct conversation *cv)
{
	return cv->ts->hook_stop;
}

/*
 * What the session's modules note of it: where phase changes are logged
 * (TANDEM_DEBUG=phase), whether its failed write was told already, and
 * whether it was resumed rather than started.
 */
struct session_facts {
	FILE	*trace;		/* NULL: not logged */
	bool	 unsaved_told;
	bool	 resumed;
};

struct session_facts *
agent_facts_new(FILE *trace)
{
	struct session_facts *sf = xcalloc(1, sizeof *sf);

	sf->trace = trace;
	return sf;
}

void
agent_facts_free(struct session_facts *sf)
{
	if (sf == NULL)
		return;
	if (sf->trace != NULL && sf->trace != stderr)
		fclose(sf->trace);
	free(sf);
}

void
agent_unsaved_reset(struct agent *a)
{
	a->sf->unsaved_told = false;
}

bool
agent_resumed(const struct agent *a)
{
	return a->sf->resumed;
}

void
agent_set_resumed(struct agent *a, bool resumed)
{
	a->sf->resumed = resumed;
}

/*
 * The session's snapshots: the folder of the write tools' contents, the
 * workspace snapshots around commands, the guard of the protected names
 * (tooluse.c's, made and freed by life.c) and a fork's dry run.
 */
struct session_snaps {
	char			*dir;		/* the session's files/ folder */
	struct wsnap		*wsnap;		/* NULL: none yet */
	struct tooluse_guard	*guard;
	bool			 fork_dry_run;	/* a fork's first run_bash is shown, not run */
};

struct session_snaps *
agent_snaps_new(void)
{
	return xcalloc(1, sizeof(struct session_snaps));
}

void
agent_snaps_free(struct session_snaps *sn)
{
	if (sn == NULL)
		return;
	free(sn->dir);
	wsnap_free(sn->wsnap);
	free(sn);
}

const char *
agent_snap_dir(const struct agent *a)
{
	return a->snaps->dir;
}

struct wsnap *
agent_wsnap(const struct agent *a)
{
	return a->snaps->wsnap;
}

void
agent_set_snap_dir(struct agent *a, char *dir)
{
	free(a->snaps->dir);
	a->snaps->dir = dir;
}

void
agent_set_wsnap(struct agent *a, struct wsnap *w)
{
	wsnap_free(a->snaps->wsnap);
	a->snaps->wsnap = w;
}

struct tooluse_guard *
agent_guard(const struct agent *a)
{
	return a->snaps->guard;
}

void
agent_set_guard(struct agent *a, struct tooluse_guard *g)
{
	a->snaps->guard = g;
}

bool
agent_fork_dry_run(const struct agent *a)
{
	return a->snaps->fork_dry_run;
}

void
agent_set_fork_dry_run(struct agent *a, bool on)
{
	a->snaps->fork_dry_run = on;
}

const char *
agent_phase_name(enum turn_phase p)
{
	return (unsigned)p < PHASE_COUNT ? agent_phase_names[p] : "?";
}

/* The one place where the turn changes phase. */
void
agent_phase(struct conversation *cv, enum turn_phase to)
{
	if (cv->ts->phase == to)
		return;
	if (cv->a->sf->trace != NULL) {
		fprintf(cv->a->sf->trace, "turn %d: %s -> %s\n", cv->turn, agent_phase_name(cv->ts->phase),
		    agent_phase_name(to));
		fflush(cv->a->sf->trace);
	}
	cv->ts->phase = to;
}

bool
agent_in_turn(const struct conversation *cv)
{
	return cv->ts->phase != PHASE_IDLE && cv->ts->phase != PHASE_SUMMARY;
}

bool
conversation_busy(const struct conversation *cv)
{
	return cv->ts->phase != PHASE_IDLE;
}

/* A hook's warnings and messages, for the user; "continue": false ends the turn. */
void
agent_hook_notes(struct conversation *cv, const struct hook_outcome *o)
{
	if (o->warnings != NULL)
		event_error(cv->bus, 0, "%s", o->warnings);
	if (o->system_message != NULL)
		event_error(cv->bus, 0, "%s", o->system_message);
	if (o->stop && !cv->ts->hook_stop) {
		cv->ts->hook_stop = true;
		event_error(cv->bus, 0, "a hook ended the turn%s%s", o->stop_reason != NULL ? ": " : "",
		    o->stop_reason != NULL ? o->stop_reason : "");
	}
}

/* Hooks nobody waits for (PreCompact, SessionEnd): their answer changes nothing. */
void
agent_hooks_ignored(void *arg, struct hook_outcome *o)
{
}

/* A summary call ended; then_call: the turn's request waited for it (compacting). */
void
agent_summary_done(struct conversation *cv, bool then_call)
{
	if (then_call) {
		agent_call_model(cv);
		return;
	}
	agent_phase(cv, PHASE_IDLE);
	emit_compaction_done(cv->bus);
}

/* /compact started its summary outside a turn. */
void
agent_summary_started(struct conversation *cv)
{
	agent_phase(cv, PHASE_SUMMARY);
}

/*
 * A write the session's promises rest on failed: say so once (the
 * session's sentence names the directory and the cause).  -1.
 */
int
agent_unsaved(struct conversation *cv)
{
	const char *why = session_error(cv->a->session);

	if (!cv->a->sf->unsaved_told) {
		cv->a->sf->unsaved_told = true;
		event_error(cv->bus, 1, "%s", why != NULL ? why : "could not save the session");
		emit_session_unsaved(cv->bus, why != NULL ? why : "", session_dir(cv->a->session));
	}
	cv->ts->failed = true;
	return -1;
}

/* The words of a comma-separated list (TANDEM_DEBUG's, a setting's). */
bool
agent_listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	while (list != NULL && *list != '\0') {
		size_t k = strcspn(list, ", ");

		if (k == n && strncmp(list, word, n) == 0)
			return true;
		list += k;
		list += strspn(list, ", ");
	}
	return false;
}

/* Is name in the comma-separated list of disabled tools, or a tool it needs? */
bool
agent_tool_disabled(const struct config *cfg, const char *name)
{
	const struct tool_def *t = tool_find(name);

	if (t != NULL && t->needs != NULL && agent_listed(cfg->disabled_tools, t->needs))
		return true;
	return agent_listed(cfg->disabled_tools, name);
}

bool
agent_debug(const char *what)
{
	return agent_listed(getenv("TANDEM_DEBUG"), what);
}

/* --- the session's life (life.c makes and frees its services) -------------- */

struct agent *
agent_alloc(struct ev_loop *loop, struct event_bus *bus, const struct config *cfg,
    bool interactive, FILE *trace, const struct agent_services *sv)
{
	struct agent *a = xcalloc(1, sizeof *a);

	a->ops = &agent_turn_ops;
	a->loop = loop;
	a->bus = bus;
	a->cfg = cfg;
	a->interactive = interactive;
	a->sf = agent_facts_new(trace);
	a->snaps = agent_snaps_new();
	a->perms = agent_perms_new(cfg->mode);
	a->ms = sv->ms;
	a->mcpn = sv->mcpn;
	a->claude = sv->claude;
	a->hooks = sv->hooks;
	a->jail = sv->jail;
	a->pf = sv->pf;
	a->http = sv->http;
	return a;
}

void
agent_release(struct agent *a)
{
	agent_perms_free(a->perms);
	agent_snaps_free(a->snaps);
	agent_facts_free(a->sf);
	free(a);
}

/* --- the session's getters for the turn's modules --------------------------- */

const struct turn_ops *
agent_ops(const struct agent *a)
{
	return a->ops;
}

struct event_bus *
agent_bus(const struct agent *a)
{
	return a->bus;
}

struct mcp_notes *
agent_mcp_notes(const struct agent *a)
{
	return a->mcpn;
}

struct tool_env *
agent_env(struct agent *a)
{
	return &a->env;
}

struct sandbox_policy *
agent_policy(struct agent *a)
{
	return &a->policy;
}

struct session *
agent_session(const struct agent *a)
{
	return a->session;
}

void
agent_set_session(struct agent *a, struct session *session)
{
	a->session = session;
}

struct modelset *
agent_modelset(const struct agent *a)
{
	return a->ms;
}

struct hooks *
agent_hooks(const struct agent *a)
{
	return a->hooks;
}

void
agent_set_hooks(struct agent *a, struct hooks *hooks)
{
	a->hooks = hooks;
}

struct jail *
agent_jail(const struct agent *a)
{
	return a->jail;
}

struct hook_run *
agent_start_run(const struct agent *a)
{
	return a->start_run;
}

void
agent_set_start_run(struct agent *a, struct hook_run *start_run)
{
	a->start_run = start_run;
}

struct prompt_facts *
agent_prompt_facts(const struct agent *a)
{
	return a->pf;
}

struct web *
agent_web(const struct agent *a)
{
	return a->web;
}

void
agent_set_web(struct agent *a, struct web *web)
{
	a->web = web;
}

struct lsp *
agent_lsp(const struct agent *a)
{
	return a->lsp;
}

void
agent_set_lsp(struct agent *a, struct lsp *lsp)
{
	a->lsp = lsp;
}

struct claude *
agent_claude(const struct agent *a)
{
	return a->claude;
}

struct subagents *
agent_subs(const struct agent *a)
{
	return a->subs;
}

void
agent_set_subs(struct agent *a, struct subagents *subs)
{
	a->subs = subs;
}

struct conversation *
agent_convs(const struct agent *a)
{
	return a->convs;
}

void
agent_set_mcp(struct agent *a, struct mcp *mcp)
{
	a->mcp = mcp;
}

void
agent_set_main(struct agent *a, struct conversation *main)
{
	a->main = main;
}

void
agent_set_http(struct agent *a, struct http *http)
{
	a->http = http;
}

/* --- a conversation's life and parts ---------------------------------------- */

struct conversation *
conversation_make(struct agent *a, struct event_bus *bus, const struct conversation_parts *parts)
{
	struct conversation *cv = xcalloc(1, sizeof *cv);

	cv->a = a;
	cv->bus = bus != NULL ? bus : a->bus;
	cv->sched = parts->sched;
	cv->prompt = parts->prompt;
	cv->progress = parts->progress;
	cv->retry = parts->retry;
	cv->mconv = parts->mconv;
	cv->cw = parts->cw;
	cv->cmp = parts->cmp;
	cv->inbox = parts->inbox;
	cv->plan = parts->plan;
	cv->record = parts->record;
	cv->tf = parts->tf;
	cv->ts = conversation_state_new();
	cv->usage = conversation_usage_new();
	conv_init(&cv->conv);
	return cv;
}

void
conversation_set_sched(struct conversation *cv, struct sched *s)
{
	cv->sched = s;
}

void
conversation_take_parts(struct conversation *cv, struct conversation_parts *out)
{
	*out = (struct conversation_parts){
		.sched = cv->sched, .prompt = cv->prompt, .progress = cv->progress,
		.retry = cv->retry, .mconv = cv->mconv, .cw = cv->cw, .cmp = cv->cmp,
		.inbox = cv->inbox, .plan = cv->plan, .record = cv->record, .tf = cv->tf,
	};
	cv->sched = NULL;
	cv->prompt = NULL;
	cv->progress = NULL;
	cv->retry = NULL;
	cv->mconv = NULL;
	cv->cw = NULL;
	cv->cmp = NULL;
	cv->inbox = NULL;
	cv->plan = NULL;
	cv->record = NULL;
	cv->tf = NULL;
}

void
conversation_destroy(struct conversation *cv)
{
	conv_release(&cv->conv);
	free(cv->model);
	free(cv->usage);
	conversation_state_free(cv->ts);
	free(cv);
}

struct conversation *
conversation_next(const struct conversation *cv)
{
	return cv->next;
}

bool
conversation_durable(const struct conversation *cv)
{
	return cv->durable;
}

void
conversation_set_durable(struct conversation *cv, bool durable)
{
	cv->durable = durable;
}

const char *
conversation_model(const struct conversation *cv)
{
	return cv->model;
}

void
conversation_set_model(struct conversation *cv, char *model)
{
	free(cv->model);
	cv->model = model;
}

int
conversation_turn(const struct conversation *cv)
{
	return cv->turn;
}

void
conversation_set_turn(struct conversation *cv, int turn)
{
	cv->turn = turn;
}

struct call *
conversation_call(struct conversation *cv)
{
	return &cv->call;
}

struct prompt_state *
conversation_prompt(const struct conversation *cv)
{
	return cv->prompt;
}

struct tooluse_progress *
conversation_progress(const struct conversation *cv)
{
	return cv->progress;
}

struct call_retry *
conversation_retry(const struct conversation *cv)
{
	return cv->retry;
}

struct modelset_conv *
conversation_mconv(const struct conversation *cv)
{
	return cv->mconv;
}

struct cachewatch *
conversation_cachewatch(const struct conversation *cv)
{
	return cv->cw;
}

struct compaction *
conversation_compaction(const struct conversation *cv)
{
	return cv->cmp;
}

struct inbox *
conversation_inbox(const struct conversation *cv)
{
	return cv->inbox;
}

struct turn_record *
conversation_record(const struct conversation *cv)
{
	return cv->record;
}

struct turn_flow *
conversation_flow(const struct conversation *cv)
{
	return cv->tf;
}

/* --- the session's getters for the front ends (agent.h) -------------------- */

const char *
agent_session_id(const struct agent *a)
{
	const struct conversation *cv = a->main;

	return session_id(cv->a->session);
}

const char *
agent_session_dir(const struct agent *a)
{
	const struct conversation *cv = a->main;

	return cv->a->session != NULL ? session_dir(cv->a->session) : NULL;
}

struct mcp *
agent_mcp(const struct agent *a)
{
	return a->mcp;
}

/*
 * The session's permission mode and its "always" and "never" answers:
 * gate.c checks a call against them and adds the person's answers,
 * plan.c and webfetch.c ask them too, and gate.c calls those two, so
 * they are here, where every one of them may ask.
 */
struct session_perms {
	enum perm_mode		 mode;
	struct perm_rules	*rules;
};

struct session_perms *
agent_perms_new(enum perm_mode mode)
{
	struct session_perms *p = xcalloc(1, sizeof *p);

	p->mode = mode;
	p->rules = perm_rules_new();
	return p;
}

void
agent_perms_free(struct session_perms *p)
{
	if (p == NULL)
		return;
	perm_rules_free(p->rules);
	free(p);
}

void
agent_forget_answers(struct agent *a)
{
	perm_rules_free(a->perms->rules);
	a->perms->rules = perm_rules_new();
}

enum perm_mode
agent_mode(const struct agent *a)
{
	return a->perms->mode;
}

void
agent_set_mode(struct agent *a, enum perm_mode mode)
{
	a->perms->mode = mode;
}

bool
agent_busy(const struct agent *a)
{
	return conversation_busy(a->main);
}

/* --- for the modules outside turn/ (turn.h) -------------------------------- */

struct conversation *
agent_main(const struct agent *a)
{
	return a->main;
}

struct ev_loop *
agent_loop(const struct agent *a)
{
	return a->loop;
}

const struct config *
agent_config(const struct agent *a)
{
	return a->cfg;
}

struct http *
agent_http(const struct agent *a)
{
	return a->http;
}

bool
agent_interactive(const struct agent *a)
{
	return a->interactive;
}

struct perm_rules *
agent_session_rules(const struct agent *a)
{
	return a->perms->rules;
}

struct agent *
conversation_agent(const struct conversation *cv)
{
	return cv->a;
}

struct event_bus *
conversation_bus(const struct conversation *cv)
{
	return cv->bus;
}

struct conv *
conversation_conv(struct conversation *cv)
{
	return &cv->conv;
}

const struct conv *
conversation_msgs(const struct conversation *cv)
{
	return &cv->conv;
}

struct sched *
conversation_sched(const struct conversation *cv)
{
	return cv->sched;
}

/* It joins its session's list of conversations, last. */
void
conversation_link(struct conversation *cv)
{
	struct conversation **p;

	for (p = &cv->a->convs; *p != NULL; p = &(*p)->next)
		;
	*p = cv;
}

/* It leaves that list. */
void
conversation_unlink(struct conversation *cv)
{
	struct conversation **p;

	for (p = &cv->a->convs; *p != NULL; p = &(*p)->next)
		if (*p == cv) {
			*p = cv->next;
			break;
		}
}

void
agent_kick_all(struct agent *a)
{
	struct conversation *cv;

	for (cv = a->convs; cv != NULL; cv = cv->next)
		sched_kick(cv->sched);
}

struct plan *
conversation_plan(const struct conversation *cv)
{
	return cv->plan;
}

/* A conversation's usage: the last request's, the sum of all, what they cost. */
struct usage_acct {
	struct usage	 last, totals;
	double		 cost;
};

struct usage_acct *
conversation_usage_new(void)
{
	return xcalloc(1, sizeof(struct usage_acct));
}

void
conversation_add_cost(struct conversation *cv, double usd)
{
	cv->usage->cost += usd;
}

void
conversation_count_usage(struct conversation *cv, const struct usage *u, double cost)
{
	struct usage *t = &cv->usage->totals;

	t->input += u->input;
	t->output += u->output;
	t->cache_write += u->cache_write;
	t->cache_read += u->cache_read;
	cv->usage->cost += cost;
}

void
conversation_set_last_usage(struct conversation *cv, const struct usage *u)
{
	if (u != NULL)
		cv->usage->last = *u;
	else
		memset(&cv->usage->last, 0, sizeof cv->usage->last);
}

const struct usage *
conversation_last_usage(const struct conversation *cv)
{
	return &cv->usage->last;
}

const struct usage *
conversation_totals(const struct conversation *cv)
{
	return &cv->usage->totals;
}

double
conversation_cost(const struct conversation *cv)
{
	return cv->usage->cost;
}

/* --- what the modules may ask of the turn (agent.c's turn_ops) -------------- */

void
agent_call_model(struct conversation *cv)
{
	cv->a->ops->call_model(cv);
}

void
agent_settle(struct conversation *cv)
{
	cv->a->ops->settle(cv);
}

void
agent_session_start(struct conversation *cv, const char *source)
{
	cv->a->ops->session_start(cv, source);
}
