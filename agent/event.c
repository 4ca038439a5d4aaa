/* The event stream: see event.h. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

#include "buf.h"
#include "event.h"
#include "xalloc.h"

struct event_sub {
	event_fn	*fn;
	void		*arg;
};

struct event_bus {
	struct event_sub *subs;
	size_t		 nsubs, cap;
	int		 turn;
};

struct event_bus *
event_bus_new(void)
{
	return xcalloc(1, sizeof(struct event_bus));
}

void
event_bus_free(struct event_bus *bus)
{
	if (bus == NULL)
		return;
	free(bus->subs);
	free(bus);
}

void
event_subscribe(struct event_bus *bus, event_fn *fn, void *arg)
{
	if (bus->nsubs == bus->cap) {
		bus->cap = bus->cap ? bus->cap * 2 : 4;
		bus->subs = xreallocarray(bus->subs, bus->cap, sizeof *bus->subs);
	}
	bus->subs[bus->nsubs].fn = fn;
	bus->subs[bus->nsubs].arg = arg;
	bus->nsubs++;
}

void
event_unsubscribe(struct event_bus *bus, event_fn *fn, void *arg)
{
	size_t i;

	for (i = 0; i < bus->nsubs; i++) {
		if (bus->subs[i].fn == fn && bus->subs[i].arg == arg) {
			bus->nsubs--;
			for (; i < bus->nsubs; i++)
				bus->subs[i] = bus->subs[i + 1];
			return;
		}
	}
}

void
event_set_turn(struct event_bus *bus, int turn)
{
	bus->turn = turn;
}

int
event_turn(const struct event_bus *bus)
{
	return bus->turn;
}

cJSON *
event_new(struct event_bus *bus, const char *type)
{
	cJSON *ev = cJSON_CreateObject();

	if (ev == NULL)
		fatal("out of memory");
	cJSON_AddStringToObject(ev, "type", type);
	cJSON_AddNumberToObject(ev, "turn", bus->turn);
	return ev;
}

void
event_emit(struct event_bus *bus, cJSON *ev)
{
	size_t i;

	for (i = 0; i < bus->nsubs; i++)
		bus->subs[i].fn(ev, bus->subs[i].arg);
	cJSON_Delete(ev);
}

void
event_error(struct event_bus *bus, int is_fatal, const char *fmt, ...)
{
	struct buf b = BUF_INIT(64 * 1024);
	va_list ap;
	cJSON *ev;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ev = event_new(bus, "error");
	cJSON_AddStringToObject(ev, "message", buf_cstr(&b));
	cJSON_AddBoolToObject(ev, "fatal", is_fatal ? 1 : 0);
	buf_release(&b);
	event_emit(bus, ev);
}
