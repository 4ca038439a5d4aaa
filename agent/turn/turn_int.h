/*
 * turn_int: what the turn's modules share (agent.c, prompt, modelset,
 * gate, call, timeline, resume, ...): the functions of the session
 * (struct agent) and of its conversations (struct conversation), both
 * conversation.c's and complete nowhere else, and the turn's functions
 * the others call.  Not for front ends: they use agent.h.
 */
#ifndef TANDEM_TURN_INT_H
#define TANDEM_TURN_INT_H

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
#include "context/cachewatch.h"
#include "call.h"
#include "context/compact.h"
#include "config/config.h"
#include "context/conv.h"
#include "ev.h"
#include "fsutil.h"
#include "emit.h"
#include "event.h"
#include "model/http.h"
#include "hooks.h"
#include "json.h"
#include "context/memory.h"
#include "model/modelcat.h"
#include "model/models.h"
#include "rules/perm.h"
#include "model/provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "store/session.h"
#include "model/stream.h"
#include "xalloc.h"
#include "turn.h"

#define AGENT_MAX_CONTINUATIONS	3
#define AGENT_MAX_STOP_BLOCKS	3	/* Stop hooks that keep a turn going, in a row */
#define AGENT_SESSION_END_MS	5000	/* how long SessionEnd hooks may hold the exit */
#define AGENT_ERRBODY_MAX	(256 * 1024)
#define AGENT_PROGRESS_FULL	(2u * 1024 * 1024)
#define AGENT_NOT_SAVED "not run: the session could not be saved, so nothing more runs in this turn"


/*
 * The phases of a turn.  Every change goes through agent_phase(), the one
 * transition function (TANDEM_DEBUG=phase logs each change).  Facts that
 * are not phases stay flags: hook_stop (a hook said "continue": false) and
 * failed (how the turn will end), beside the phase in conversation.c's
 * struct turn_state; whether the response's checkpoint A is
 * on disk (side effects may run) and how the next response is recorded
 * (paused, continuing) are record.c's (record_checkpoint_made,
 * record_set_paused); whether the turn's one hard compaction was made is
 * compaction's (compaction_overflow_ok).
 */
enum turn_phase {
	PHASE_IDLE,		/* no turn: a prompt may come */
	PHASE_PROMPT,		/* the prompt is taken; its hooks and the request come next */
	PHASE_SESSION_WAIT,	/* the prompt waits for the SessionStart hooks */
	PHASE_PROMPT_HOOKS,	/* UserPromptSubmit hooks see the prompt */
	PHASE_MCP_FETCH,	/* the prompt waits for its MCP prompt and resources (mcp_expand) */
	PHASE_MODELS_WAIT,	/* the request waits (bounded) for what the server says of the model */
	PHASE_COMPACTING,	/* a summary call runs; the request waits for it */
	PHASE_STREAMING,	/* the model call is in flight; tools start as their blocks complete */
	PHASE_RETRY_WAIT,	/* the backoff before the call is made again */
	PHASE_TOOLS,		/* the response is recorded; its tools and PostToolUse hooks finish */
	PHASE_STOP_HOOKS,	/* Stop hooks say whether the turn ends */
	PHASE_ENDING,		/* interrupted or failed: every call gets its result, then the turn ends */
	PHASE_SUMMARY,		/* no turn: a /compact summary runs */
	PHASE_COUNT
};

/*
 * The session (struct agent) and its conversations (struct conversation):
 * conversation.c's, reached through the functions below.
 */
struct conversation;
struct subagents;

/* What the turn's modules may ask of it; agent.c's agent_turn_ops. */
struct turn_ops {
	void	(*call_model)(struct conversation *);
	void	(*settle)(struct conversation *);
	void	(*session_start)(struct conversation *, const char *source);
	int	(*submit)(struct conversation *, const char *prompt);
	void	(*interrupt)(struct conversation *);
};
extern const struct turn_ops agent_turn_ops;

struct agent;

/*
 * What life.c makes for a session before it has one (agent_alloc takes
 * them; agent_release frees the session's own parts, not these).
 */
struct agent_services {
	struct modelset		*ms;
	struct mcp_notes	*mcpn;
	struct claude		*claude;
	struct hooks		*hooks;
	struct jail		*jail;
	struct prompt_facts	*pf;
	struct http		*http;
};
struct agent *agent_alloc(struct ev_loop *loop, struct event_bus *bus, const struct config *cfg,
    bool interactive, FILE *trace, const struct agent_services *sv);
void	 agent_release(struct agent *a);

/* The session's services and parts (conversation.c owns struct agent). */
const struct turn_ops *agent_ops(const struct agent *);
struct event_bus *agent_bus(const struct agent *);
struct mcp_notes *agent_mcp_notes(const struct agent *);
struct tool_env *agent_env(struct agent *);
struct sandbox_policy *agent_policy(struct agent *);
struct session *agent_session(const struct agent *);
void	 agent_set_session(struct agent *, struct session *);
struct modelset *agent_modelset(const struct agent *);
struct hooks *agent_hooks(const struct agent *);
void	 agent_set_hooks(struct agent *, struct hooks *);
struct jail *agent_jail(const struct agent *);
struct hook_run *agent_start_run(const struct agent *);
void	 agent_set_start_run(struct agent *, struct hook_run *);
struct prompt_facts *agent_prompt_facts(const struct agent *);
struct web *agent_web(const struct agent *);
void	 agent_set_web(struct agent *, struct web *);
struct lsp *agent_lsp(const struct agent *);
void	 agent_set_lsp(struct agent *, struct lsp *);
struct claude *agent_claude(const struct agent *);
struct subagents *agent_subs(const struct agent *);
void	 agent_set_subs(struct agent *, struct subagents *);
struct conversation *agent_convs(const struct agent *);
void	 agent_set_mcp(struct agent *, struct mcp *);
void	 agent_set_main(struct agent *, struct conversation *);
void	 agent_set_http(struct agent *, struct http *);

/*
 * What life.c makes for a conversation (conversation_make takes them,
 * conversation_take_parts gives them back to be freed).
 */
struct conversation_parts {
	struct sched		*sched;
	struct prompt_state	*prompt;
	struct tooluse_progress	*progress;
	struct call_retry	*retry;
	struct modelset_conv	*mconv;
	struct cachewatch	*cw;
	struct compaction	*cmp;
	struct inbox		*inbox;
	struct plan		*plan;
	struct turn_record	*record;
	struct turn_flow	*tf;
};

/*
 * A conversation (conversation.c's struct conversation) of session a, on
 * bus (NULL: the session's), with its parts; its scheduler comes later
 * (conversation_set_sched), once the session's tool environment is set.
 * conversation_take_parts moves the parts out of it, leaving NULL;
 * conversation_destroy frees what is left: its messages, model, usage,
 * turn state and itself.
 */
struct conversation *conversation_make(struct agent *a, struct event_bus *bus,
    const struct conversation_parts *parts);
void	 conversation_set_sched(struct conversation *, struct sched *);
void	 conversation_take_parts(struct conversation *, struct conversation_parts *out);
void	 conversation_destroy(struct conversation *);

/* Its parts and facts, for the turn's modules. */
struct conversation	*conversation_next(const struct conversation *);
bool	 conversation_durable(const struct conversation *);
void	 conversation_set_durable(struct conversation *, bool durable);
/* Its own model (a subagent's; NULL: the session's); set takes model and frees the one before. */
const char *conversation_model(const struct conversation *);
void	 conversation_set_model(struct conversation *, char *model);
/* The turn's number in the session's log. */
int	 conversation_turn(const struct conversation *);
void	 conversation_set_turn(struct conversation *, int turn);
/* Its messages, to read (conversation_conv, turn.h, to change). */
const struct conv	*conversation_msgs(const struct conversation *);
struct call		*conversation_call(struct conversation *);
struct prompt_state	*conversation_prompt(const struct conversation *);
struct tooluse_progress	*conversation_progress(const struct conversation *);
struct call_retry	*conversation_retry(const struct conversation *);
struct modelset_conv	*conversation_mconv(const struct conversation *);
struct cachewatch	*conversation_cachewatch(const struct conversation *);
struct compaction	*conversation_compaction(const struct conversation *);
struct inbox		*conversation_inbox(const struct conversation *);
struct turn_record	*conversation_record(const struct conversation *);
struct turn_flow	*conversation_flow(const struct conversation *);


/* A new conversation of the session a, on bus (NULL: the session's); NULL and err on failure. */
struct conversation *conversation_new(struct agent *a, struct event_bus *bus, char *err, size_t err_size);
/* Remove it from its session and free it (not the main one: agent_free does). */
void	 conversation_free(struct conversation *);
/* Send a prompt in it, as agent_submit does in the main one. */
int	 conversation_submit(struct conversation *, const char *prompt);
/* Stop its turn, as agent_interrupt does the main one's. */
void	 conversation_interrupt(struct conversation *);
/* It joins its session's list of conversations (last), or leaves it. */
void	 conversation_link(struct conversation *);
void	 conversation_unlink(struct conversation *);
/* The conversation is not idle. */
bool	 conversation_busy(const struct conversation *);

/*
 * Its usage (conversation.c's struct usage_acct): the last request's, the
 * sum of every call's (turns, summaries, web tools) and what they cost
 * (conversation_add_cost, turn.h, adds a cost alone).
 */
struct usage_acct *conversation_usage_new(void);
void	 conversation_count_usage(struct conversation *, const struct usage *, double cost);
/* The last request's usage is u (NULL: none yet). */
void	 conversation_set_last_usage(struct conversation *, const struct usage *u);
const struct usage *conversation_last_usage(const struct conversation *);
const struct usage *conversation_totals(const struct conversation *);
double	 conversation_cost(const struct conversation *);

int	 agent_unsaved(struct conversation *cv);
int	 agent_halt(struct conversation *cv);
void	 agent_emit_session(struct conversation *cv, bool resumed);
void	 agent_hook_notes(struct conversation *cv, const struct hook_outcome *o);
void	 agent_on_text(void *arg, int index, const char *s, size_t n);
void	 agent_on_thinking(void *arg, int index, const char *s, size_t n);
void	 agent_on_block(void *arg, int index, const cJSON *block);
void	 agent_fail(struct conversation *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void	 agent_response_done(struct conversation *cv, const char *stop_reason);
/* The turn's next model call: compaction first if due, then the request. */
void	 agent_call_model(struct conversation *cv);
/* Hooks nobody waits for (PreCompact, SessionEnd). */
void	 agent_hooks_ignored(void *arg, struct hook_outcome *o);
/* A /compact summary started; the summary call ended (then_call: a model call waits for it). */
void	 agent_summary_started(struct conversation *cv);
void	 agent_summary_done(struct conversation *cv, bool then_call);
void	 agent_session_start(struct conversation *cv, const char *source);

/*
 * What agent.c alone keeps of the turn (struct turn_flow): the hooks the
 * turn waits for, the prompt's MCP expansion, the stop reason, the
 * continuations.  Freeing cancels what runs; agent_flow_cancel ends the
 * hook run waited for.
 */
struct turn_flow *agent_flow_new(void);
void	 agent_flow_free(struct turn_flow *);
void	 agent_flow_cancel(struct conversation *cv);

/*
 * The turn in progress (conversation.c's struct turn_state): its phase,
 * its model calls, whether it failed, whether a hook stopped it.
 */
struct turn_state *conversation_state_new(void);
void	 conversation_state_free(struct turn_state *);
enum turn_phase conversation_phase(const struct conversation *cv);
/* A turn starts: no model call yet, no hook said stop. */
void	 conversation_turn_start(struct conversation *cv);
int	 conversation_calls(const struct conversation *cv);
void	 conversation_count_call(struct conversation *cv);
bool	 conversation_failed(const struct conversation *cv);
void	 conversation_set_failed(struct conversation *cv, bool failed);
/* A hook said "continue": false in this turn (agent_hook_notes). */
bool	 conversation_hook_stopped(const struct conversation *cv);

/*
 * What the session's modules note of it (conversation.c's struct
 * session_facts): the phase log (closed when freed, unless stderr), the
 * failed write told once (agent_unsaved; agent_unsaved_reset tells the
 * next one again), the session resumed rather than started.
 */
struct session_facts *agent_facts_new(FILE *trace);
void	 agent_facts_free(struct session_facts *);
void	 agent_unsaved_reset(struct agent *a);
bool	 agent_resumed(const struct agent *a);
void	 agent_set_resumed(struct agent *a, bool resumed);

/*
 * The session's snapshots (conversation.c's struct session_snaps): the
 * write tools' contents folder (files/), the workspace snapshots (NULL
 * until a session is in use), the guard of the protected names
 * (tooluse.c's struct tooluse_guard, made and freed by life.c) and a
 * fork's dry run of its first command.  agent_set_snap_dir and
 * agent_set_wsnap take what they are given and free the one before;
 * agent_snaps_free frees the folder's name and wsnap, not the guard.
 */
struct session_snaps *agent_snaps_new(void);
void	 agent_snaps_free(struct session_snaps *);
const char *agent_snap_dir(const struct agent *a);
struct wsnap *agent_wsnap(const struct agent *a);
void	 agent_set_snap_dir(struct agent *a, char *dir);
void	 agent_set_wsnap(struct agent *a, struct wsnap *w);
struct tooluse_guard *agent_guard(const struct agent *a);
void	 agent_set_guard(struct agent *a, struct tooluse_guard *g);
bool	 agent_fork_dry_run(const struct agent *a);
void	 agent_set_fork_dry_run(struct agent *a, bool on);

/*
 * The session's permission mode and its "always" and "never" answers
 * (conversation.c's struct session_perms; agent_mode, agent_set_mode,
 * agent.h, and agent_session_rules, turn.h, read and set them).
 * agent_forget_answers drops the answers, as a switch to another session
 * does.
 */
struct session_perms *agent_perms_new(enum perm_mode mode);
void	 agent_perms_free(struct session_perms *);
void	 agent_forget_answers(struct agent *a);

/* The one transition function of the turn. */
void	 agent_phase(struct conversation *cv, enum turn_phase to);
const char *agent_phase_name(enum turn_phase);
/* A turn is running (not idle, not a /compact summary outside a turn). */
bool	 agent_in_turn(const struct conversation *cv);
/* All done, go on: when the tools and their hooks are done, the turn moves on. */
void	 agent_settle(struct conversation *cv);

/* MCP (agent.c): the servers' status for a front end; the first request's wait. */
void	agent_mcp_changed(void *agent, int ready, int total);
bool	agent_mcp_wait(struct conversation *);

#endif
