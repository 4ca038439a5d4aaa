/*
 * sched: the order in which one response's tool calls run.
 *
 * Calls are added in tool_use order, as each block completes in the
 * stream.  Read-only calls run in parallel (at most SCHED_MAX_PARALLEL);
 * a write or high-impact call waits for every call before it and runs
 * alone; a call after it waits for it.  A failed write skips every later
 * call of the batch.  Every call ends with exactly one result, whatever
 * happens: denial, error, skip or interrupt.
 *
 * The scheduler owns its calls.  The owner decides permissions through
 * the gate callback and hears of each state change through the others.
 */
#ifndef TANDEM_SCHED_H
#define TANDEM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "tool.h"

#define SCHED_MAX_PARALLEL 4
#define SCHED_MORE_MAX	4

struct ev_loop;
struct exec_job;
struct sched;

enum sched_state {
	SCHED_QUEUED,
	SCHED_WAITING,		/* for an approval */
	SCHED_RUNNING,
	SCHED_DONE
};

enum sched_gate {
	SCHED_GO,		/* run it */
	SCHED_ASK,		/* wait for sched_answer */
	SCHED_REFUSE,		/* do not run: the reason is the result */
	SCHED_LATER		/* not yet: ask again after sched_kick */
};

struct sched_call {
	char			*id;
	char			*name;
	cJSON			*input;
	const struct tool_def	*tool;		/* NULL: unknown tool */
	enum sched_state	 state;
	bool			 is_error;
	bool			 denied;	/* refused by a rule, mode, hook or person */
	bool			 ran;		/* it was started (so it may have had effects) */
	struct buf		 result;
	/* The input was changed before it ran (sched_answer): the note put before the result. */
	char			*input_note;
	cJSON			*meta;		/* from write tools */
	cJSON			*blocks;	/* content blocks after the text (images), or NULL */
	void			*ajob;		/* an asynchronous tool's call */
	bool			 held;		/* its tool returned; the owner holds it (sched_set_hold) */
	/*
	 * The person allowed it (sched_answer): it is gated again only for
	 * when it may run (a SCHED_ASK then means go); wait_told: the gate
	 * said why it waits.
	 */
	bool			 approved, wait_told;
	int64_t			 duration_ms;
	struct exec_job		*job;
	struct sched_call	*next;
};

struct sched_ops {
	/* The call is next to run: may it?  On SCHED_REFUSE put the reason in why. */
	enum sched_gate	(*gate)(void *arg, struct sched_call *, struct buf *why);
	void	(*started)(void *arg, struct sched_call *);
	void	(*progress)(void *arg, struct sched_call *, const char *p, size_t n);
	/* The call has its result (state SCHED_DONE). */
	void	(*finished)(void *arg, struct sched_call *);
	/* Every call added so far is done. */
	void	(*idle)(void *arg);
	void	*arg;
};

struct sched	*sched_new(struct ev_loop *, const struct tool_env *, const struct sched_ops *);
void		 sched_free(struct sched *);
/* Find tools with lookup instead of tool_find (tests use their own tools). */
void		 sched_set_lookup(struct sched *, const struct tool_def *(*lookup)(const char *));
/*
 * Tools beyond the table (MCP): find names the lookup does not know;
 * resolve, when not NULL, may turn a call into another tool's before it
 * is gated (0: *name and *input replaced; 1: left alone; -1: the call
 * fails with why).
 */
/*
 * One more finder, asked last: tools the agent's own modules run on the
 * loop (the web tools, the language servers' code tool); each call adds
 * one, at most SCHED_MORE_MAX.
 */
void		 sched_set_more(struct sched *, const struct tool_def *(*find)(void *, const char *),
		    void *arg);
void		 sched_set_finder(struct sched *, const struct tool_def *(*find)(void *, const char *),
		    int (*resolve)(void *, char **name, cJSON **input, struct buf *why), void *arg);
/*
 * After a call's tool has returned, its result in place: hold (with arg)
 * returns true when it keeps the call running and lets it go later with
 * sched_release (the language servers' errors join an edit's result).
 * sched_interrupt asks unhold to let a held call go now.
 */
void		 sched_set_hold(struct sched *, bool (*hold)(void *, struct sched_call *),
		    void (*unhold)(void *, struct sched_call *), void *arg);
void		 sched_release(struct sched *, struct sched_call *);
/* Add a call (input copied); parse_error non-NULL means the input was not valid JSON. */
void		 sched_add(struct sched *, const char *id, const char *name,
		    const cJSON *input, const char *parse_error);
/*
 * The answer to a SCHED_ASK: an allowed call is queued again, approved,
 * and runs when the gate lets it (another conversation's write may hold
 * it back); edited_input (copied) replaces the input if
 * not NULL, and when it differs the result starts with a note saying so
 * and showing the change (inputnote.h), as the model sees only its own
 * input in the conversation.
 */
void		 sched_answer(struct sched *, const char *id, bool allow, const char *reason,
		    const cJSON *edited_input);
/* Gate again the calls that were told SCHED_LATER. */
void		 sched_kick(struct sched *);
/* Kill what runs and end every other call with an "interrupted" result. */
void		 sched_interrupt(struct sched *, const char *why);
/* Calls not yet done. */
int		 sched_pending(const struct sched *);
int		 sched_count(const struct sched *);
struct sched_call *sched_find(struct sched *, const char *id);
/* The tool_result blocks, in tool_use order (caller owns the array). */
cJSON		*sched_results(const struct sched *);
/* Forget every call (all must be done). */
void		 sched_reset(struct sched *);

/*
 * The owner changes a call only through these: the input before it runs
 * (taken; a PreToolUse hook rewrote it), and the result once it is done
 * (a PostToolUse hook's words appended, secrets replaced).
 */
void		 sched_call_set_input(struct sched_call *, cJSON *input);
void		 sched_call_append_result(struct sched_call *, const char *text);
void		 sched_call_redact_result(struct sched_call *);

#endif
