/*
 * todoview: the model's todo list as the screen keeps it: the current
 * list (the agent's "todos" events) and each turn's (todo_write calls
 * whose result was not an error, live or replayed), and the checklist's
 * styled lines: done, the current step with its activeForm and spinner,
 * pending.  Knows no app.  A struct todoview owns its lists.
 */
#ifndef TANDEM_TUI_TODOVIEW_H
#define TANDEM_TUI_TODOVIEW_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "sline.h"

struct todoview {
	cJSON	*current;	/* an array in TodoWrite's shape */
	cJSON	*turns;		/* {"N": the list turn N left} */
	cJSON	*calls;		/* {id: {turn, todos} or {turn, plan}}: calls waiting for their result */
	cJSON	*plans;		/* {"N": the first line of the plan approved in turn N} */
};

void	 tdv_init(struct todoview *);
void	 tdv_release(struct todoview *);
/* Forget every list (a new view: a rewind, a resumed conversation replays them). */
void	 tdv_reset(struct todoview *);
/* An event of the agent's stream; true when a list changed. */
bool	 tdv_event(struct todoview *, const cJSON *ev);
/* The rows the checklist wants (its title and items, at most max; 0: nothing to show). */
int	 tdv_rows(const struct todoview *, bool busy, int max);
/* Is a step in progress (the spinner turns)? */
bool	 tdv_active(const struct todoview *);
/* The checklist in rows lines (the title first), the window around the current step. */
void	 tdv_lines(const struct todoview *, int rows, const char *spinner, struct slvec *out);
/* The list turn left, or NULL when it wrote none; the view's. */
const cJSON *tdv_turn(const struct todoview *, int turn);
/* The first line of the plan approved in turn (", edited" added when the person changed it), or NULL. */
const char *tdv_plan(const struct todoview *, int turn);
/* One line for list: "✓ a · ▸ b · ☐ c". */
void	 tdv_summary(const cJSON *list, struct buf *out);

#endif
