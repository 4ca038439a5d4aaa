/*
 * replay: tui_replay, the screen fed from a JSONL file of events.
 *
 * The events go through the event bus exactly as the agent's would, at a
 * chosen pace, on the loop, so a screen test or a benchmark sees what a
 * user would.  Directives in the file pause it: a sleep, a wait for
 * SIGUSR1 (a test's "next step"), or quit.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "tui.h"
#include "ev.h"
#include "event.h"
#include "json.h"

#define REPLAY_BATCH	256	/* events a turn at full speed */
#define REPLAY_FILE_MAX	(256 * 1024 * 1024)

struct replay {
	struct app		*a;
	struct ev_loop		*loop;
	struct event_bus	*bus;
	cJSON			**ev;
	size_t			 n, pos;
	const struct tui_replay_opts *opts;
	uint64_t		 timer;
	bool			 paused;
};

static void replay_step(struct ev_loop *, void *);

static void
replay_arm(struct replay *r, int64_t ms)
{
	if (r->timer == 0)
		r->timer = ev_timer_add(r->loop, ms, replay_step, r);
}

static void
replay_quit(struct ev_loop *loop, void *arg)
{
	struct replay *r = arg;

	r->timer = 0;
	app_quit(r->a);
}

static void
replay_done(struct replay *r)
{
	struct tui_stats *st = r->opts->stats;

	if (st != NULL) {
		st->script_done_ms = ev_now_ms();
		st->wakeups_at_done = ev_wakeups(r->loop);
	}
	if (r->opts->quit_at_end)
		r->timer = ev_timer_add(r->loop, r->opts->linger_ms, replay_quit, r);
}

/* A directive; true when the step must stop here. */
static bool
replay_directive(struct replay *r, const cJSON *d)
{
	const char *what = json_str(d, "replay", "");

	if (strcmp(what, "sleep") == 0) {
		replay_arm(r, json_int(d, "ms", 0));
		return true;
	}
	if (strcmp(what, "pause") == 0) {
		r->paused = true;
		return true;
	}
	if (strcmp(what, "quit") == 0) {
		app_quit(r->a);
		return true;
	}
	return false;
}

static void
replay_step(struct ev_loop *loop, void *arg)
{
	struct replay *r = arg;
	int64_t until = ev_now_ms() + 4;
	int sent = 0;

	r->timer = 0;
	while (r->pos < r->n && !r->a->quit) {
		cJSON *e = r->ev[r->pos++];

		/* A directive names itself; an event's "replay": true is the event's own. */
		if (cJSON_IsString(json_get(e, "replay"))) {
			if (replay_directive(r, e))
				return;
			continue;
		}
		r->ev[r->pos - 1] = NULL;
		event_set_turn(r->bus, (int)json_int(e, "turn", event_turn(r->bus)));
		event_emit(r->bus, e);
		if (r->opts->pace_ms > 0 || ++sent >= REPLAY_BATCH || ev_now_ms() >= until)
			break;
	}
	if (r->pos >= r->n) {
		replay_done(r);
		return;
	}
	replay_arm(r, r->opts->pace_ms);
}

static void
replay_on_usr1(struct ev_loop *loop, int signo, void *arg)
{
	struct replay *r = arg;

	if (r->paused) {
		r->paused = false;
		replay_arm(r, 0);
	}
}

static void
replay_start(struct app *a, void *arg)
{
	struct replay *r = arg;

	r->a = a;
	ev_signal_add(r->loop, SIGUSR1, replay_on_usr1, r);
	replay_arm(r, 0);
}

/* Read the script: one JSON object a line; blank lines and # comments are skipped. */
static int
replay_load(struct replay *r, const char *path)
{
	struct buf b = BUF_INIT(REPLAY_FILE_MAX);
	char chunk[65536], *p, *end;
	FILE *f = fopen(path, "r");
	size_t n, cap = 0;
	int line = 0;

	if (f == NULL) {
		fprintf(stderr, "tandem: %s: cannot open the replay file\n", path);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (buf_append(&b, chunk, n) == -1) {
			fprintf(stderr, "tandem: %s: larger than %d MB\n", path, REPLAY_FILE_MAX >> 20);
			fclose(f);
			return -1;
		}
	fclose(f);
	for (p = b.data, end = b.data + b.len; p != NULL && p < end; ) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *s = p;
		int el, ec;
		cJSON *e;

		line++;
		p = nl ? nl + 1 : end;
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == le || *s == '#')
			continue;
		e = json_parse_at(s, (size_t)(le - s), &el, &ec);
		if (e == NULL || !cJSON_IsObject(e)) {
			fprintf(stderr, "tandem: %s:%d:%d: not a JSON object\n", path, line, e ? 1 : ec);
			cJSON_Delete(e);
			buf_release(&b);
			return -1;
		}
		if (r->n == cap) {
			cap = cap ? cap * 2 : 256;
			r->ev = xreallocarray(r->ev, cap, sizeof *r->ev);
		}
		r->ev[r->n++] = e;
	}
	buf_release(&b);
	return 0;
}

int
tui_replay(struct ev_loop *loop, struct event_bus *bus, const struct tui_opts *opts,
    const struct tui_replay_opts *ropts)
{
	struct replay r;
	size_t i;
	int status;

	memset(&r, 0, sizeof r);
	r.loop = loop;
	r.bus = bus;
	r.opts = ropts;
	if (ropts->stats != NULL) {
		memset(ropts->stats, 0, sizeof *ropts->stats);
		ropts->stats->start_ms = ev_now_ms();
	}
	if (replay_load(&r, ropts->path) == -1)
		status = 2;
	else
		status = tui_main(loop, bus, NULL, NULL, opts, ropts->stats, replay_start, &r);
	ev_timer_cancel(loop, r.timer);
	ev_signal_del(loop, SIGUSR1);
	for (i = 0; i < r.n; i++)
		cJSON_Delete(r.ev[i]);
	free(r.ev);
	return status;
}
