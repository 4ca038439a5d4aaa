/*
 * ccrun: the limits Claude Code's -p flags put on a run, for the headless
 * front ends (headless.c, sjson.c).
 *
 * --max-budget-usd: the cost of the usage events is summed; once it passes
 * the budget while the turn would go on, the turn is interrupted (on the
 * next loop turn, never from inside the event) and the run ends as Claude
 * Code's "error_max_budget_usd", exit status 1.
 *
 * --json-schema: the model is told (in the system prompt) to end with only
 * a JSON value valid for the schema; the final answer is then parsed (a
 * ```json fence around it is allowed) and checked (lib/jschema.h).  A valid
 * answer is the result's structured_output.  An invalid one is sent back
 * to the model with the problem, as a new prompt, up to
 * CCRUN_SCHEMA_RETRIES times; then the run fails as
 * "error_max_structured_output_retries", with the problem named.
 *
 * struct ccrun owns its copy of the schema; the loop, bus and agent stay
 * the caller's.
 */
#ifndef TANDEM_CCRUN_H
#define TANDEM_CCRUN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

struct agent;
struct buf;
struct ev_loop;
struct event_bus;
struct ccrun;

/*
 * Read the two flags' values (either may be NULL: not given); NULL with a
 * sentence in err when one is malformed (a budget that is not a positive
 * number, a schema that is not a JSON object).  Subscribes to bus.
 */
struct ccrun	*ccrun_new(struct ev_loop *, struct event_bus *, const char *max_budget_usd,
		    const char *json_schema, struct buf *err);
void		 ccrun_free(struct ccrun *);
/* The agent a passed budget interrupts. */
void		 ccrun_set_agent(struct ccrun *, struct agent *);
/* What the system prompt must add for the schema (the caller frees), or NULL. */
char		*ccrun_prompt(const struct ccrun *);
/* The budget was passed and the turn was stopped. */
bool		 ccrun_over_budget(const struct ccrun *);
/* The sentence that says so ("the run cost $0.0312, more than --max-budget-usd 0.01"). */
void		 ccrun_budget_message(const struct ccrun *, struct buf *out);
/* A schema was given. */
bool		 ccrun_has_schema(const struct ccrun *);
/*
 * The final answer against the schema: the value (the caller's to free),
 * or NULL with the problem in why.
 */
cJSON		*ccrun_structured(const struct ccrun *, const char *text, struct buf *why);

#define CCRUN_SCHEMA_RETRIES	2

/*
 * A turn's result (a result event) whose answer is not valid for the
 * schema, with retries left: the problem goes back to the model as the
 * next prompt (on the next loop turn) and true is returned: the run is
 * not over, the caller waits for the next result.  False otherwise.
 */
bool		 ccrun_retry(struct ccrun *, const cJSON *result);

#endif
