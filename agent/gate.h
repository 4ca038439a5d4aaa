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
 *   5. sandbox auto-allow: the slot where a sandbox that contains the call
 *      allows it without asking (empty for now);
 *   6. the host's decision: the slot where a front end that decides for
 *      the user (the SDK protocol's can_use_tool) answers (empty for now);
 *   7. the person: an approval_request event, answered by agent_answer.
 * Each stage either decides (go, refuse, ask, later) or passes the call on.
 */
#ifndef TANDEM_GATE_H
#define TANDEM_GATE_H

#include "agent_int.h"

enum sched_gate	 gate_check(void *arg, struct sched_call *c, struct buf *why);

#endif
