/*
 * event: the agent's one event stream (DESIGN.md §3).
 *
 * An event is a cJSON object {"type": ..., "turn": N, ...fields}; the same
 * object is what `--output-format events` prints, one a line.
 * Subscribers (the TUI panes, the headless printer, the session log, the
 * hook runner) get each event in the order they subscribed; they must not
 * keep the pointer after returning.
 */
#ifndef TANDEM_EVENT_H
#define TANDEM_EVENT_H

#include <cjson/cJSON.h>

struct event_bus;

typedef void event_fn(const cJSON *event, void *arg);

struct event_bus *event_bus_new(void);
void	event_bus_free(struct event_bus *);
void	event_subscribe(struct event_bus *, event_fn *, void *arg);
void	event_unsubscribe(struct event_bus *, event_fn *, void *arg);
/* The turn number stamped on every event. */
void	event_set_turn(struct event_bus *, int turn);
int	event_turn(const struct event_bus *);

/* A new event of type, stamped with the turn; pass it to event_emit. */
cJSON	*event_new(struct event_bus *, const char *type);
/* Deliver ev to every subscriber, then free it (takes ownership). */
void	event_emit(struct event_bus *, cJSON *ev);
/* Shorthand for an error event. */
void	event_error(struct event_bus *, int fatal, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
