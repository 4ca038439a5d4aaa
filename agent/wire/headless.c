/* Headless mode: see wire/headless.h. */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "ev.h"
#include "event.h"
#include "headless.h"
#include "buf.h"
#include "ccrun.h"
#include "json.h"
#include "utf8.h"
#include "xalloc.h"

struct headless {
	struct ev_loop		*loop;
	struct event_bus	*bus;
	struct agent		*agent;
	bool			 stream_json;
	bool			 out_tty;	/* stdout is a terminal: text is sanitized */
	bool			 err_tty;
	bool			 done;
	bool			 failed;
	bool			 interrupted;
	bool			 signalled;
	int64_t			 first_signal;	/* when the interrupt began (ms) */
	struct ccrun		*run;		/* --max-budget-usd, --json-schema; NULL: none */
};

/* A second signal within this time is the same one delivered twice (timeout(1) does that). */
#define HEADLESS_SIGNAL_DEBOUNCE_MS	500

/*
 * Write model or server text.  On a terminal its escape sequences (an OSC
 * 52 clipboard write, a window title, cursor moves) and other control
 * characters are shown as pictures, as the TUI draws them; into a pipe or
 * a file the text goes as it is.
 */
static void
headless_put(FILE *f, bool tty, const char *s)
{
	struct buf clean = BUF_INIT(BUF_NOLIMIT);

	if (!tty) {
		fputs(s, f);
		return;
	}
	utf8_sanitize_term(&clean, s, strlen(s), "\n\t");
	fwrite(buf_cstr(&clean), 1, clean.len, f);
	buf_release(&clean);
}

/*
 * The end of a run that passed --max-budget-usd, or whose answer is not
 * valid for --json-schema: one sentence on stderr, exit 1; true when so.
 */
static bool
headless_limits(struct headless *h, const cJSON *ev)
{
	struct buf why = BUF_INIT(BUF_NOLIMIT);
	cJSON *v = NULL;
	bool failed = false;

	if (ccrun_over_budget(h->run)) {
		ccrun_budget_message(h->run, &why);
		failed = true;
	} else if (!json_bool(ev, "is_error", false) && ccrun_has_schema(h->run) &&
	    strcmp(json_str(ev, "stop_reason", ""), "interrupted") != 0) {
		v = ccrun_structured(h->run, json_str(ev, "text", ""), &why);
		failed = v == NULL;
		cJSON_Delete(v);
	}
	if (failed) {
		fputs("tandem: ", stderr);
		headless_put(stderr, h->err_tty, buf_cstr(&why));
		fputc('\n', stderr);
		h->done = h->failed = true;
		ev_break(h->loop);
	}
	buf_release(&why);
	return failed;
}

static void
headless_on_event(const cJSON *ev, void *arg)
{
	struct headless *h = arg;
	const char *type = json_str(ev, "type", "");

	/* An answer the schema refuses goes back to the model: the run goes on. */
	if (strcmp(type, "result") == 0 && ccrun_retry(h->run, ev))
		return;
	if (h->stream_json) {
		char *s = cJSON_PrintUnformatted(ev);

		if (s != NULL) {
			fputs(s, stdout);
			fputc('\n', stdout);
			fflush(stdout);
			cJSON_free(s);
		}
	} else if (strcmp(type, "error") == 0) {
		fputs("tandem: ", stderr);
		headless_put(stderr, h->err_tty, json_str(ev, "message", ""));
		fputc('\n', stderr);
	} else if (strcmp(type, "result") == 0 && !headless_limits(h, ev)) {
		const char *text = json_str(ev, "text", "");

		headless_put(stdout, h->out_tty, text);
		if (text[0] != '\0' && text[strlen(text) - 1] != '\n')
			fputc('\n', stdout);
		fflush(stdout);
		/* What was printed is only what came before the interrupt: say so. */
		if (strcmp(json_str(ev, "stop_reason", ""), "interrupted") == 0)
			fputs("tandem: interrupted\n", stderr);
	}
	if (strcmp(type, "result") == 0 && h->stream_json)
		headless_limits(h, ev);
	if (strcmp(type, "result") == 0 && !h->done) {
		h->done = true;
		h->failed = json_bool(ev, "is_error", false);
		if (strcmp(json_str(ev, "stop_reason", ""), "interrupted") == 0)
			h->interrupted = true;
		ev_break(h->loop);
	}
}

static void
headless_on_signal(struct ev_loop *loop, int signo, void *arg)
{
	struct headless *h = arg;
	int64_t now = ev_now_ms();

	h->interrupted = true;
	if (h->signalled && now - h->first_signal < HEADLESS_SIGNAL_DEBOUNCE_MS)
		return;
	/*
	 * The first signal ends the turn cleanly (tools killed, every call
	 * answered, the result printed); a second one, later, is the way out
	 * of an interrupt that does not finish.
	 */
	if (h->signalled || h->agent == NULL || !agent_busy(h->agent)) {
		fputs("tandem: interrupted\n", stderr);
		exit(130);
	}
	h->signalled = true;
	h->first_signal = now;
	agent_interrupt(h->agent);
}

struct headless *
headless_new(struct ev_loop *loop, struct event_bus *bus, bool stream_json)
{
	struct headless *h = xcalloc(1, sizeof *h);

	h->loop = loop;
	h->bus = bus;
	h->stream_json = stream_json;
	h->out_tty = isatty(STDOUT_FILENO) == 1;
	h->err_tty = isatty(STDERR_FILENO) == 1;
	event_subscribe(bus, headless_on_event, h);
	return h;
}

void
headless_set_run(struct headless *h, struct ccrun *run)
{
	h->run = run;
}

int
headless_run(struct headless *h, struct agent *agent, const char *prompt)
{
	h->agent = agent;
	ev_signal_add(h->loop, SIGINT, headless_on_signal, h);
	ev_signal_add(h->loop, SIGTERM, headless_on_signal, h);
	/* A closed terminal or a dropped ssh ends the run as SIGTERM does. */
	ev_signal_add(h->loop, SIGHUP, headless_on_signal, h);
	signal(SIGPIPE, SIG_IGN);
	if (agent_submit(agent, prompt) == -1) {
		fputs("tandem: a turn is already running\n", stderr);
		return 1;
	}
	while (!h->done)
		if (ev_run_once(h->loop, -1) == -1)
			break;
	ev_signal_del(h->loop, SIGINT);
	ev_signal_del(h->loop, SIGTERM);
	ev_signal_del(h->loop, SIGHUP);
	if (h->interrupted)
		return 130;
	return h->failed ? 1 : 0;
}

void
headless_free(struct headless *h)
{
	if (h == NULL)
		return;
	event_unsubscribe(h->bus, headless_on_event, h);
	free(h);
}
