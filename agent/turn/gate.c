/*
 * gate: whether a tool call may run, in a fixed order of stages.
 *
 *   1. the tool's availability and the session's health (nothing runs that
 *      the log could not record; side effects wait for checkpoint A);
 *   2. the rules and the permission mode (perm.h), and a fork's first
 *      command, which is shown before it runs;
 *   3. PreToolUse hooks (hooks.h), which may deny, allow, ask or rewrite
 *      the input (rewritten input is checked against the rules again);
 *   4. the session's "always" answers;
 *   5. sandbox auto-allow: a command the sandbox confines, with the
 *      network off, runs without asking (jail.h);
 *   6. the host's decision: the slot where a front end that decides for
 *      the user (the SDK protocol's can_use_tool) answers (empty for now);
 *   7. the person: an approval_request event, answered by agent_answer.
 * Each stage either decides (go, refuse, ask, later) or passes the call on.
 * A call a deny rule could catch but cannot be checked against (a program
 * named by an expansion: perm_deny_unsure) is allowed by no stage but the
 * person: hooks, "always" answers and the sandbox pass it on.
 */
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
#include "context/cachewatch.h"
#include "context/compact.h"
#include "config/config.h"
#include "context/conv.h"
#include "ev.h"
#include "fsutil.h"
#include "event.h"
#include "model/http.h"
#include "hooks.h"
#include "jail/jail.h"
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
#include "turn_int.h"
#include "claude/claude.h"
#include "sub/subagent.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"
#include "web/web.h"
#include "plan/plan.h"

/* A stage that does not decide: the next one looks at the call. */
#define GATE_PASS	(-1)

/* What the stages learn on the way. */
struct gate_ctx {
	enum perm_verdict	 v;		/* the rules' verdict (the hooks may change it) */
	bool			 hook_ask;	/* a PreToolUse hook asked for the person */
	char			*hook_reason;	/* and why */
	/*
	 * A deny rule (the user's or a "never" of the session) could catch
	 * the call but cannot be checked against it: only the person may
	 * allow it (perm_deny_unsure).
	 */
	bool			 deny_unsure;
	char			*sandbox_note;	/* why the sandbox did not allow it, or NULL */
};

static char ** gate_explain(struct conversation *cv, const struct sched_call *c, const cJSON *input, bool hook_ask, const char *hook_reason, struct buf *reason);
static void gate_headless_hint(struct conversation *cv, const struct sched_call *c, const char *note, struct buf *why);
static void gate_kick(void *arg);
static bool gate_deny_unsure(struct conversation *cv, const struct sched_call *c);
static int gate_pre_hooks(struct conversation *cv, struct sched_call *c, struct hook_outcome *ho, struct gate_ctx *g, struct buf *why);

/*
 * Why c asks, into reason, and the rules an "always" answer adds (see
 * perm_explain); hook_reason is set when a PreToolUse hook asked.
 */
static char **
gate_explain(struct conversation *cv, const struct sched_call *c, const cJSON *input, bool hook_ask,
    const char *hook_reason, struct buf *reason)
{
	struct agent *a = conversation_agent(cv);
	struct buf scratch = BUF_INIT(4096);
	bool fork_first = agent_fork_dry_run(a) && strcmp(c->name, "run_bash") == 0;
	char **always = perm_explain(agent_config(a)->rules, agent_mode(a), c->name, c->tool->cls, input,
	    hook_ask || fork_first ? &scratch : reason);

	if (hook_ask)
		buf_printf(reason, "a PreToolUse hook asked for approval%s%s",
		    hook_reason != NULL ? ": " : "", hook_reason != NULL ? hook_reason : "");
	else if (fork_first)
		buf_puts(reason, "this session is a fork: its first command is shown before it runs");
	web_explain(agent_web(a), c->id, reason, &always);
	buf_release(&scratch);
	return always;
}

static void
gate_headless_hint(struct conversation *cv, const struct sched_call *c, const char *note, struct buf *why)
{
	struct buf reason = BUF_INIT(4096), flags = BUF_INIT(BUF_NOLIMIT);
	char **always = gate_explain(cv, c, c->input, false, NULL, &reason);
	size_t i;

	if (note != NULL)
		buf_printf(&reason, "; not run sandboxed without a prompt: %s", note);
	for (i = 0; always[i] != NULL; i++)
		buf_printf(&flags, "%s--allow '%s'", i > 0 ? " " : "", always[i]);
	buf_printf(why, "%s needs approval (%s), and in headless mode nobody can give it. ",
	    c->name, buf_cstr(&reason));
	if (gate_deny_unsure(cv, c))
		buf_puts(why, "No rule or mode can allow it: only a person, asked in an "
		    "interactive session, can.");
	else if (c->tool->cls == TOOL_WRITE)
		buf_printf(why, "The user can rerun with --permission-mode accept-edits, or %s.",
		    buf_cstr(&flags));
	else
		buf_printf(why, "The user can rerun with %s, or --permission-mode yolo.",
		    buf_cstr(&flags));
	perm_strv_free(always);
	buf_release(&reason);
	buf_release(&flags);
}

static void
gate_kick(void *arg)
{
	struct conversation *cv = arg;

	sched_kick(conversation_sched(cv));
}

/* Could a deny rule, the user's or the session's, catch c unseen? */
static bool
gate_deny_unsure(struct conversation *cv, const struct sched_call *c)
{
	struct agent *a = conversation_agent(cv);

	return perm_deny_unsure(agent_config(a)->rules, c->name, c->input) ||
	    perm_deny_unsure(agent_session_rules(a), c->name, c->input) || web_person_only(agent_web(a), c->id);
}

/*
 * Apply what the PreToolUse hooks said about c: SCHED_GO or SCHED_REFUSE,
 * or -1 to go on with the verdict g->v (the input may have been rewritten,
 * and was then checked against the rules again).
 */
static int
gate_pre_hooks(struct conversation *cv, struct sched_call *c, struct hook_outcome *ho,
    struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);
	enum perm_verdict *v = &g->v;

	agent_hook_notes(cv, ho);
	if (ho->decision == HOOK_DENY || ho->stop) {
		buf_reset(why);
		buf_printf(why, "A PreToolUse hook refused this call: %s", ho->reason != NULL ?
		    ho->reason : ho->stop_reason != NULL ? ho->stop_reason : "it ended the turn");
		emit_approval(conversation_bus(cv), c->id, "deny", "hook");
		return SCHED_REFUSE;
	}
	if (ho->updated_input != NULL) {
		sched_call_set_input(c, ho->updated_input);
		ho->updated_input = NULL;
		buf_reset(why);
		*v = perm_check(agent_config(a)->rules, agent_mode(a), c->name, c->tool->cls, c->input, why);
		g->deny_unsure = gate_deny_unsure(cv, c);
		if (*v == PERM_VERDICT_DENY) {
			emit_approval(conversation_bus(cv), c->id, "deny",
			    agent_mode(a) == PERM_PLAN ? "mode" : "rule");
			return SCHED_REFUSE;
		}
	}
	/*
	 * A fork's first command still waits for the user, and so does one a
	 * deny rule could catch unseen: a hook's allow does not outweigh it.
	 */
	if (ho->decision == HOOK_ALLOW && !g->deny_unsure &&
	    !(agent_fork_dry_run(a) && strcmp(c->name, "run_bash") == 0)) {
		emit_approval(conversation_bus(cv), c->id, "allow", "hook");
		return SCHED_GO;
	}
	if (ho->decision == HOOK_ASK && !agent_interactive(a)) {
		buf_reset(why);
		buf_puts(why, "A PreToolUse hook asked for the user's approval of this call");
		if (ho->reason != NULL)
			buf_printf(why, " (%s)", ho->reason);
		buf_puts(why, ", and in headless mode nobody can give it.");
		emit_approval(conversation_bus(cv), c->id, "deny", "hook");
		return SCHED_REFUSE;
	}
	if (ho->decision == HOOK_ASK)
		*v = PERM_VERDICT_ASK;
	return -1;
}

typedef int gate_stage_fn(struct conversation *, struct sched_call *, struct gate_ctx *, struct buf *why);

/* 1. The tool is on, the session can record what it does, checkpoint A is on disk. */
static int
gate_health(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);

	if (prompt_tool_disabled(agent_config(a), c->name)) {
		buf_printf(why, "the tool %s is disabled in this session", c->name);
		return SCHED_REFUSE;
	}
	/* Nothing runs that the session could not record. */
	if (session_error(agent_session(a)) != NULL) {
		buf_puts(why, AGENT_NOT_SAVED);
		return SCHED_REFUSE;
	}
	/* Side effects wait until checkpoint A records who asked for them. */
	if (c->tool->cls != TOOL_READ_ONLY && !record_checkpoint_made(cv))
		return SCHED_LATER;
	return GATE_PASS;
}

/* 2. The rules and the mode; a fork's first command is shown before it runs. */
static int
gate_rules(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);

	g->v = perm_check(agent_config(a)->rules, agent_mode(a), c->name, c->tool->cls, c->input, why);
	g->deny_unsure = gate_deny_unsure(cv, c);
	/* what the person answered "never" to in this session */
	if (g->v != PERM_VERDICT_DENY && perm_rules_count(agent_session_rules(a), PERM_LIST_DENY) > 0) {
		struct buf w2 = BUF_INIT(1024);

		if (perm_check(agent_session_rules(a), PERM_ASK, c->name, c->tool->cls, c->input, &w2) ==
		    PERM_VERDICT_DENY) {
			buf_reset(why);
			buf_printf(why, "the user rejected calls like this one for the rest of the "
			    "session (%s): do not try them again, take another approach", buf_cstr(&w2));
			g->v = PERM_VERDICT_DENY;
		}
		buf_release(&w2);
	}
	if (agent_fork_dry_run(a) && strcmp(c->name, "run_bash") == 0 && g->v != PERM_VERDICT_DENY) {
		if (!agent_interactive(a)) {
			buf_reset(why);
			buf_printf(why, "dry run: this session is a fork, so its first command is "
			    "shown and not run: %s\nNothing was executed; ask the user to confirm "
			    "before running commands here.", json_str(c->input, "command", ""));
			agent_set_fork_dry_run(a, false);
			return SCHED_REFUSE;
		}
		g->v = PERM_VERDICT_ASK;
	}
	if (g->v == PERM_VERDICT_DENY) {
		emit_approval(conversation_bus(cv), c->id, "deny",
		    agent_mode(a) == PERM_PLAN ? "mode" : "rule");
		return SCHED_REFUSE;
	}
	return web_gate(agent_web(a), c, &g->v, &g->deny_unsure);
}

/* 3. PreToolUse hooks, after the rules and the mode (DESIGN.md §4, step 5). */
static int
gate_hooks(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);
	struct hook_outcome ho;
	int d;

	if (hooks_pre_tool(agent_hooks(a), c->id, c->name, c->input, agent_mode(a), gate_kick, cv, &ho) == 1)
		return SCHED_LATER;
	d = gate_pre_hooks(cv, c, &ho, g, why);
	g->hook_ask = ho.decision == HOOK_ASK;
	g->hook_reason = ho.reason != NULL ? xstrdup(ho.reason) : NULL;
	hook_outcome_release(&ho);
	return d >= 0 ? d : GATE_PASS;
}

/*
 * 4. What the person already allowed for the session: "always" rules
 * allow what they name, and together with the allow rules (the ask rules
 * still asking) a command part by part; never a call a deny rule could
 * catch unseen.
 */
static int
gate_always(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);
	struct buf w2 = BUF_INIT(1024);
	struct perm_rules *session;
	int d = GATE_PASS;

	/*
	 * A command's or a loaded skill's allowed-tools, for this turn of the
	 * main conversation (claude/claude.h): a subagent's turn is not the
	 * command's, even when its prompt repeats the command's text or its
	 * turn has the same number.
	 */
	if (cv == agent_main(a) && claude_gate(agent_claude(a), conversation_turn(cv), record_turn_prompt(cv),
	    c->name, c->tool->cls, c->input) &&
	    g->v == PERM_VERDICT_ASK && !agent_fork_dry_run(a) && !g->hook_ask && !g->deny_unsure) {
		emit_approval(conversation_bus(cv), c->id, "allow", "rule");
		return SCHED_GO;
	}
	if (g->v != PERM_VERDICT_ASK || agent_fork_dry_run(a) || g->hook_ask || g->deny_unsure ||
	    perm_rules_count(agent_session_rules(a), PERM_LIST_ALLOW) == 0)
		return GATE_PASS;
	session = perm_rules_dup(agent_session_rules(a));
	perm_rules_merge_list(session, agent_config(a)->rules, PERM_LIST_ALLOW);
	perm_rules_merge_list(session, agent_config(a)->rules, PERM_LIST_ASK);
	if (perm_check(agent_session_rules(a), PERM_ASK, c->name, c->tool->cls, c->input, &w2) ==
	    PERM_VERDICT_ALLOW ||
	    perm_check(session, PERM_ASK, c->name, c->tool->cls, c->input, &w2) ==
	    PERM_VERDICT_ALLOW) {
		emit_approval(conversation_bus(cv), c->id, "allow", "rule");
		d = SCHED_GO;
	}
	perm_rules_free(session);
	buf_release(&w2);
	return d;
}

/* 5. The verdict allows it. */
static int
gate_allowed(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);

	if (g->v != PERM_VERDICT_ALLOW)
		return GATE_PASS;
	if (c->tool->cls != TOOL_READ_ONLY)
		emit_approval(conversation_bus(cv), c->id, "allow", agent_mode(a) == PERM_YOLO ||
		    agent_mode(a) == PERM_ACCEPT_EDITS ? "mode" : "rule");
	return SCHED_GO;
}

/*
 * 6. Sandbox auto-allow: a command the sandbox confines (its writes, its
 * processes, no network) is allowed here without asking, with an approval
 * event by "sandbox"; ask rules, and hooks that ask, still ask, and so does
 * a command a deny rule could catch unseen (the sandbox changes where a
 * command may write, never what a deny rule means), and one that may touch
 * a file the file tools' deny rules cover (the sandbox does not hide it).
 */
static int
gate_sandbox(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);
	struct buf note = BUF_INIT(1024);

	if (g->v != PERM_VERDICT_ASK || g->hook_ask || agent_fork_dry_run(a) || g->deny_unsure ||
	    !jail_auto_allow(agent_jail(a), agent_config(a)->rules, agent_mode(a), c->name, c->input, why))
		return GATE_PASS;
	/* The sandbox confines writes to the workspace; it does not hide what the deny rules cover. */
	if (perm_command_touches_denied(agent_config(a)->rules, c->input, &note)) {
		buf_reset(why);
		g->sandbox_note = buf_detach(&note, NULL);
		return GATE_PASS;
	}
	buf_release(&note);
	emit_approval(conversation_bus(cv), c->id, "allow", "sandbox");
	return SCHED_GO;
}

/*
 * 7. The slot for the host's decision: a front end that decides for the
 * person (the SDK protocol's can_use_tool) answers here: SCHED_GO,
 * SCHED_REFUSE with its reason, or SCHED_ASK while it decides (its answer
 * comes through agent_answer).  PermissionRequest hooks answer here
 * (hooks.h); a call a deny rule could catch unseen, or a fork's first
 * command, still goes to the person.
 */
static int
gate_host(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);
	struct hook_outcome ho;
	int d = GATE_PASS;

	if (hooks_permission_request(agent_hooks(a), c->id, c->name, c->input, agent_mode(a), gate_kick, cv, &ho) == 1)
		return SCHED_LATER;
	agent_hook_notes(cv, &ho);
	if (ho.decision == HOOK_DENY) {
		buf_reset(why);
		buf_printf(why, "A PermissionRequest hook refused this call: %s",
		    ho.reason != NULL ? ho.reason : "no reason given");
		emit_approval(conversation_bus(cv), c->id, "deny", "hook");
		d = SCHED_REFUSE;
	} else if (ho.decision == HOOK_ALLOW && !g->deny_unsure &&
	    !(agent_fork_dry_run(a) && strcmp(c->name, "run_bash") == 0)) {
		if (ho.updated_input != NULL) {
			sched_call_set_input(c, ho.updated_input);
			ho.updated_input = NULL;
		}
		/* A rewritten input is checked against the rules again; a deny rule still denies. */
		if (perm_check(agent_config(a)->rules, agent_mode(a), c->name, c->tool->cls, c->input, why) ==
		    PERM_VERDICT_DENY) {
			emit_approval(conversation_bus(cv), c->id, "deny", "rule");
			d = SCHED_REFUSE;
		} else {
			emit_approval(conversation_bus(cv), c->id, "allow", "hook");
			d = SCHED_GO;
		}
	}
	hook_outcome_release(&ho);
	return d;
}

/* 8. The person: an approval_request, or, headless, a refusal that says how to allow it. */
static int
gate_person(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);
	struct buf preview = BUF_INIT(8u * 1024 * 1024), reason = BUF_INIT(4096);
	char **always;

	buf_reset(why);
	if (!agent_interactive(a)) {
		gate_headless_hint(cv, c, g->sandbox_note, why);
		emit_approval(conversation_bus(cv), c->id, "deny", "mode");
		return SCHED_REFUSE;
	}
	if (c->tool->preview != NULL) {
		if (c->tool->preview(agent_env(a), c->input, &preview) == -1) {
			/* The change cannot be made as asked: no need to ask anyone. */
			buf_puts(why, buf_cstr(&preview));
			buf_release(&preview);
			return SCHED_REFUSE;
		}
	} else if (c->tool->async != NULL) {
		char *args = cJSON_Print(c->input);

		buf_printf(&preview, "%s %s", c->name, args);
		free(args);
	} else {
		buf_printf(&preview, "$ %s\n(in %s)", json_str(c->input, "command", ""), agent_config(a)->root);
	}
	always = gate_explain(cv, c, c->input, g->hook_ask, g->hook_reason, &reason);
	jail_explain(agent_jail(a), c->name, c->input, &reason);
	if (g->sandbox_note != NULL)
		buf_printf(&reason, "%snot run sandboxed without a prompt: %s",
		    reason.len > 0 ? "; " : "", g->sandbox_note);
	emit_approval_request(conversation_bus(cv), c->id, c->name, c->input, buf_cstr(&preview), preview.len,
	    agent_config(a)->root, buf_cstr(&reason), always);
	perm_strv_free(always);
	buf_release(&reason);
	buf_release(&preview);
	return SCHED_ASK;
}

/*
 * A subagent calls only its type's tools; a call that changes things
 * waits while another conversation's runs (sub/subagent.h).
 */
static int
gate_subagent(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	struct agent *a = conversation_agent(cv);

	(void)g;
	/* a subagent's effects are its caller's: they wait for the checkpoint that names the call */
	if (c->tool == sub_tool(agent_subs(a), c->name) && !record_checkpoint_made(cv))
		return SCHED_LATER;
	switch (sub_gate(agent_subs(a), cv, c->name, c->tool,
	    c->tool->cls != TOOL_READ_ONLY && !c->tool->parallel, why)) {
	case SUB_REFUSE:
		return SCHED_REFUSE;
	case SUB_LATER:
		return SCHED_LATER;
	default:
		return GATE_PASS;
	}
}

/* 3b. The tools whose call is a question to the person (plan.h): they always ask. */
static int
gate_asks(struct conversation *cv, struct sched_call *c, struct gate_ctx *g, struct buf *why)
{
	int d = plan_gate(cv, c, why);

	return d == -1 ? GATE_PASS : d;
}

/*
 * An approved call that changes things waits while another conversation's
 * such call runs, and says so once on its line ("tool_wait"; a subagent's
 * reaches its agent call's line).
 */
static enum sched_gate
gate_approved(struct conversation *cv, struct sched_call *c, struct buf *why)
{
	struct buf note = BUF_INIT(BUF_NOLIMIT);
	cJSON *ev;

	buf_puts(&note, "approved; ");
	if (sub_gate(agent_subs(conversation_agent(cv)), cv, c->name, c->tool, c->tool->cls != TOOL_READ_ONLY
	    && !c->tool->parallel,
	    &note) != SUB_LATER) {
		buf_release(&note);
		return SCHED_GO;
	}
	(void)why;
	if (!c->wait_told) {
		c->wait_told = true;
		ev = event_new(conversation_bus(cv), "tool_wait");
		cJSON_AddStringToObject(ev, "id", c->id);
		cJSON_AddStringToObject(ev, "name", c->name);
		cJSON_AddStringToObject(ev, "note", buf_cstr(&note));
		event_emit(conversation_bus(cv), ev);
	}
	buf_release(&note);
	return SCHED_LATER;
}

/* The stages, in their fixed order: the first that decides, decides. */
static gate_stage_fn *const gate_stages[] = {
	gate_health, gate_subagent, gate_rules, gate_hooks, gate_asks, gate_always, gate_allowed,
	gate_sandbox, gate_host,
	gate_person
};

enum sched_gate
gate_check(void *arg, struct sched_call *c, struct buf *why)
{
	struct conversation *cv = arg;
	struct gate_ctx g = { PERM_VERDICT_ASK, false, NULL, false, NULL };
	size_t i;
	int d = GATE_PASS;

	/* allowed by the person: it runs when no other conversation is changing things */
	if (c->approved)
		return gate_approved(cv, c, why);
	for (i = 0; i < sizeof gate_stages / sizeof gate_stages[0] && d == GATE_PASS; i++)
		d = gate_stages[i](cv, c, &g, why);
	free(g.hook_reason);
	free(g.sandbox_note);
	return d == GATE_PASS ? SCHED_ASK : (enum sched_gate)d;
}

/* The conversation whose scheduler holds the call id: approvals name calls, not conversations. */
static struct conversation *
gate_owner(struct agent *a, const char *id)
{
	struct conversation *cv;

	for (cv = agent_convs(a); cv != NULL; cv = conversation_next(cv))
		if (sched_find(conversation_sched(cv), id) != NULL)
			return cv;
	return agent_main(a);
}

void
agent_answer(struct agent *a, const char *id, enum approval decision, const char *reason,
    const cJSON *edited_input)
{
	struct conversation *cv = gate_owner(a, id);
	struct sched_call *c = sched_find(conversation_sched(cv), id);
	bool deny = decision == APPROVAL_DENY || decision == APPROVAL_NEVER;

	if (c == NULL || c->state != SCHED_WAITING)
		return;
	emit_approval(conversation_bus(cv), id, deny ? "deny" : decision == APPROVAL_ALWAYS ? "always" : "allow",
	    "user");
	if (decision == APPROVAL_NEVER) {
		struct buf err = BUF_INIT(4096);
		char **like = perm_never_rules(agent_config(conversation_agent(cv))->rules,
		    agent_mode(conversation_agent(cv)), c->name, c->tool->cls,
		    c->input);
		size_t i;

		/*
		 * The rules "always" would add, as deny rules of the session (never
		 * saved), each sure to deny this call again; paths are read against
		 * the workspace root, as the user's rules are.
		 */
		perm_rules_set_root(agent_session_rules(conversation_agent(cv)),
		    perm_rules_root(agent_config(conversation_agent(cv))->rules));
		for (i = 0; like[i] != NULL; i++) {
			buf_reset(&err);
			perm_rules_add(agent_session_rules(conversation_agent(cv)), PERM_LIST_DENY, like[i], &err);
		}
		perm_strv_free(like);
		buf_release(&err);
		if (reason == NULL)
			reason = "the user rejects calls like this one for the rest of the session: "
			    "do not try them again, take another approach";
	}
	/*
	 * A call a deny rule could catch unseen is allowed this once: a rule
	 * remembered for it would never apply (gate_always passes it on).
	 */
	if (decision == APPROVAL_ALWAYS && !gate_deny_unsure(cv, c)) {
		struct buf err = BUF_INIT(4096), asked = BUF_INIT(4096);
		char **always = gate_explain(cv, c, edited_input != NULL ? edited_input : c->input,
		    false, NULL, &asked);
		size_t i;

		perm_rules_set_root(agent_session_rules(conversation_agent(cv)),
		    perm_rules_root(agent_config(conversation_agent(cv))->rules));
		for (i = 0; always[i] != NULL; i++) {
			buf_reset(&err);
			perm_rules_add(agent_session_rules(conversation_agent(cv)), PERM_LIST_ALLOW, always[i], &err);
			if (strcmp(c->name, "run_bash") == 0 &&
			    config_save_local_allow(agent_config(conversation_agent(cv)), always[i], &err) == -1)
				event_error(conversation_bus(cv), 0, "could not save the rule %s: %s", always[i],
				    buf_cstr(&err));
		}
		perm_strv_free(always);
		buf_release(&err);
		buf_release(&asked);
	}
	if (strcmp(c->name, "run_bash") == 0 && !deny)
		agent_set_fork_dry_run(conversation_agent(cv), false);
	sched_answer(conversation_sched(cv), id, !deny, reason, edited_input);
}

int
agent_answer_updated(struct agent *a, const char *id, const cJSON *input, struct buf *why)
{
	struct conversation *cv = gate_owner(a, id);
	struct sched_call *c = sched_find(conversation_sched(cv), id);

	if (c == NULL || c->state != SCHED_WAITING)
		return -1;
	if (perm_check(agent_config(conversation_agent(cv))->rules, agent_mode(conversation_agent(cv)),
	    c->name, c->tool->cls, input, why) ==
	    PERM_VERDICT_DENY) {
		agent_answer(a, id, APPROVAL_DENY, buf_cstr(why), NULL);
		return -1;
	}
	agent_answer(a, id, APPROVAL_ALLOW, NULL, input);
	return 0;
}
