/*
 * gate: whether a tool call may run, in a fixed order of stages.
 *
 *   1. health: the tool is on, the session can record what it does
 *      (nothing runs that the log could not record), and side effects
 *      wait for checkpoint A;
 *   2. rules: the rules and the permission mode (perm.h), and a fork's
 *      first command, which is shown before it runs;
 *   3. hooks: PreToolUse hooks (hooks.h) may deny, allow, ask or rewrite
 *      the input (rewritten input is checked against the rules again);
 *   3b. asks: ask_user and exit_plan are questions to the person
 *      (plan/plan.h): asked whatever the rules allow, refused at once
 *      when nobody can answer;
 *   4. always: the session's "always" answers;
 *   5. allowed: the verdict of the rules and the mode allows it;
 *   6. sandbox: the slot for sandbox auto-allow (a call the sandbox
 *      contains runs without asking); empty for now;
 *   7. host: the slot for a host that decides for the person (the SDK
 *      protocol's can_use_tool); empty for now;
 *   8. person: an approval_request event, answered by agent_answer (or,
 *      headless, a refusal that says how to allow the call).
 * Each stage decides (go, refuse, ask, later) or passes the call on; the
 * stages are a table in gate.c, in this order.  The module also owns
 * agent_answer (the person's answer, and the "always" rules it adds).
 */
#ifndef TANDEM_GATE_H
#define TANDEM_GATE_H

#include "turn_int.h"

/*
 * The scheduler's gate (sched_ops.gate; arg: the agent): may call c run
 * now?  SCHED_GO, SCHED_ASK (an approval_request went out; agent_answer
 * answers it), SCHED_REFUSE with the reason in why, or SCHED_LATER (ask
 * again after sched_kick: checkpoint A, or a PreToolUse hook, is pending).
 */
enum sched_gate	 gate_check(void *arg, struct sched_call *c, struct buf *why);

#endif
