/*
 * plan: the plan the pair shares, for one conversation: its todo list
 * (todo_write's last list), the person asked by ask_user and exit_plan,
 * and the mode after an approved plan.
 *
 * The list lives in the conversation (todo_write's tool_use blocks, or the
 * note a compaction leaves), so resume, rewind and fork restore the list
 * of their turn; struct plan keeps the current one, told to the front ends
 * as "todos" events ({todos: [...], replay}).  Owns its list; the agent
 * owns struct plan (agent.plan).
 */
#ifndef TANDEM_PLAN_H
#define TANDEM_PLAN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"

struct conversation;
struct plan;
struct sched_call;

/* The text a compaction's note on the list starts with. */
#define PLAN_TODO_NOTE	"[todo list before compaction] "

struct plan	*plan_new(void);
void		 plan_free(struct plan *);

/* The current list (an array in TodoWrite's shape, maybe empty); the plan's. */
const cJSON	*plan_todos(const struct plan *);

/*
 * The gate's stage for the tools that ask the person (ask_user,
 * exit_plan): -1 for any other call (the next stage decides), else a
 * sched_gate: SCHED_ASK with an approval_request out (its answer, with
 * the answers or the edited plan in its input, comes by agent_answer),
 * or SCHED_REFUSE with why (nobody to ask; not in plan mode).
 */
int		 plan_gate(struct conversation *, struct sched_call *, struct buf *why);
/* A call has its result: a new list is kept and told; an approved plan ends plan mode. */
void		 plan_call_done(struct conversation *, const struct sched_call *);
/* The conversation was replaced (resume, rewind, fork): its list; tell: a "todos" event, replay set. */
void		 plan_sync(struct conversation *, bool tell);
/* The messages were compacted: when the list's tool_use went, a note keeps it. */
void		 plan_compacted(struct conversation *);

/*
 * A prompt sent in plan mode says so, in a text block after it (content:
 * the user message's blocks): the model explores read-only and ends with
 * exit_plan.  In the message, not the system prompt, so the cache holds.
 */
void		 plan_prompt_note(struct conversation *, cJSON *content);

/* The list in messages: the last todo_write that did not fail, or a compaction's note; owned. */
cJSON		*plan_todos_of(const cJSON *messages);

#endif
