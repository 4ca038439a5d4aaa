/*
 * headless: `tandem -p PROMPT`: run one prompt to the end with nobody at
 * the keyboard, print, and exit.
 *
 * text: the final answer on stdout, errors on stderr.  events: every event
 * of the stream as one JSON object a line, `result` last.  Claude Code's
 * stream-json is sjson.h's.  A run that passes --max-budget-usd, or whose
 * answer is still not valid for --json-schema once the model was asked
 * again (wire/ccrun.h), says so on stderr and exits 1.
 */
#ifndef TANDEM_HEADLESS_H
#define TANDEM_HEADLESS_H

#include <stdbool.h>

struct agent;
struct ccrun;
struct ev_loop;
struct event_bus;
struct headless;

/* Subscribe to bus before the agent exists, so its first event is printed. */
struct headless	*headless_new(struct ev_loop *, struct event_bus *, bool events);
/* The run's budget and schema (wire/ccrun.h), checked at its end; NULL: none. */
void		 headless_set_run(struct headless *, struct ccrun *);
/* Submit prompt and run the loop until the turn ends; the exit status (DESIGN.md §11). */
int		 headless_run(struct headless *, struct agent *, const char *prompt);
void		 headless_free(struct headless *);

#endif
