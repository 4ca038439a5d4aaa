/* The budget and the schema of a Claude Code -p run: see wire/ccrun.h. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "ccrun.h"
#include "ev.h"
#include "event.h"
#include "jschema.h"
#include "json.h"
#include "xalloc.h"

struct ccrun {
	struct ev_loop		*loop;
	struct event_bus	*bus;
	struct agent		*agent;
	double			 budget;	/* <= 0: none */
	double			 cost;		/* of the usage events so far */
	bool			 over;
	uint64_t		 stop_timer;
	cJSON			*schema;	/* NULL: none */
	int			 retries;	/* answers sent back so far */
	char			*again;		/* the prompt that sends one back, not yet submitted */
	uint64_t		 again_timer;
};

static void
ccrun_stop(struct ev_loop *loop, void *arg)
{
	struct ccrun *r = arg;

	r->stop_timer = 0;
	/* A turn that ended with the call that passed the budget is done, not stopped. */
	if (r->agent == NULL || !agent_busy(r->agent))
		return;
	r->over = true;
	agent_interrupt(r->agent);
}

static void
ccrun_on_event(const cJSON *ev, void *arg)
{
	struct ccrun *r = arg;

	if (strcmp(json_str(ev, "type", ""), "usage") != 0 || json_bool(ev, "replay", false))
		return;
	r->cost += json_num(ev, "cost_usd", 0);
	if (r->budget > 0 && r->cost > r->budget && !r->over && r->stop_timer == 0)
		r->stop_timer = ev_timer_add(r->loop, 0, ccrun_stop, r);
}

struct ccrun *
ccrun_new(struct ev_loop *loop, struct event_bus *bus, const char *max_budget_usd,
    const char *json_schema, struct buf *err)
{
	struct ccrun *r;
	double budget = 0;
	cJSON *schema = NULL;
	char *end;
	int line, col;

	if (max_budget_usd != NULL) {
		errno = 0;
		budget = strtod(max_budget_usd, &end);
		if (errno != 0 || end == max_budget_usd || *end != '\0' || !(budget > 0)) {
			buf_printf(err, "--max-budget-usd takes an amount of dollars above 0, "
			    "not \"%s\"", max_budget_usd);
			return NULL;
		}
	}
	if (json_schema != NULL) {
		schema = json_parse_at(json_schema, strlen(json_schema), &line, &col);
		if (!cJSON_IsObject(schema)) {
			if (schema == NULL)
				buf_printf(err, "--json-schema is not valid JSON (line %d, column %d)",
				    line, col);
			else
				buf_puts(err, "--json-schema must be a JSON Schema object");
			cJSON_Delete(schema);
			return NULL;
		}
	}
	r = xcalloc(1, sizeof *r);
	r->loop = loop;
	r->bus = bus;
	r->budget = budget;
	r->schema = schema;
	event_subscribe(bus, ccrun_on_event, r);
	return r;
}

void
ccrun_free(struct ccrun *r)
{
	if (r == NULL)
		return;
	if (r->stop_timer != 0)
		ev_timer_cancel(r->loop, r->stop_timer);
	if (r->again_timer != 0)
		ev_timer_cancel(r->loop, r->again_timer);
	free(r->again);
	event_unsubscribe(r->bus, ccrun_on_event, r);
	cJSON_Delete(r->schema);
	free(r);
}

static void
ccrun_submit_again(struct ev_loop *loop, void *arg)
{
	struct ccrun *r = arg;

	(void)loop;
	r->again_timer = 0;
	/* The turn that gave the answer is over: nothing else can be running.  If it is, say so. */
	if (r->agent != NULL && r->again != NULL && agent_submit(r->agent, r->again) == -1) {
		fputs("tandem: --json-schema: the answer could not be sent back to the model\n", stderr);
		exit(1);
	}
	free(r->again);
	r->again = NULL;
}

bool
ccrun_retry(struct ccrun *r, const cJSON *result)
{
	struct buf why = BUF_INIT(BUF_NOLIMIT), p = BUF_INIT(BUF_NOLIMIT);
	cJSON *v;

	if (r == NULL || r->schema == NULL || r->over || r->agent == NULL ||
	    r->retries >= CCRUN_SCHEMA_RETRIES || json_bool(result, "is_error", false) ||
	    strcmp(json_str(result, "stop_reason", ""), "interrupted") == 0)
		return false;
	v = ccrun_structured(r, json_str(result, "text", ""), &why);
	if (v != NULL) {
		cJSON_Delete(v);
		buf_release(&why);
		return false;
	}
	r->retries++;
	buf_printf(&p, "Your final answer is not what --json-schema asks: %s.  Reply again with "
	    "only the JSON value, valid for the schema in your instructions, and nothing else.",
	    buf_cstr(&why));
	free(r->again);
	r->again = buf_detach(&p, NULL);
	if (r->again_timer == 0)
		r->again_timer = ev_timer_add(r->loop, 0, ccrun_submit_again, r);
	buf_release(&why);
	return true;
}

void
ccrun_set_agent(struct ccrun *r, struct agent *agent)
{
	if (r != NULL)
		r->agent = agent;
}

char *
ccrun_prompt(const struct ccrun *r)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char *s;

	if (r == NULL || r->schema == NULL)
		return NULL;
	s = cJSON_PrintUnformatted(r->schema);
	buf_printf(&b, "Structured output: when the task is done, your final message must be "
	    "only one JSON value that is valid for this JSON Schema, with no other text "
	    "before or after it and no code fence:\n%s", s != NULL ? s : "{}");
	cJSON_free(s);
	return buf_detach(&b, NULL);
}

bool
ccrun_over_budget(const struct ccrun *r)
{
	return r != NULL && r->over;
}

void
ccrun_budget_message(const struct ccrun *r, struct buf *out)
{
	buf_printf(out, "the run cost $%.4f, more than --max-budget-usd %g; it was stopped",
	    r->cost, r->budget);
}

bool
ccrun_has_schema(const struct ccrun *r)
{
	return r != NULL && r->schema != NULL;
}

/* The answer without white space around it and without a ``` fence. */
static void
ccrun_unfence(const char *text, struct buf *out)
{
	const char *s = text, *e = text + strlen(text);

	while (s < e && strchr(" \t\r\n", *s) != NULL)
		s++;
	while (e > s && strchr(" \t\r\n", e[-1]) != NULL)
		e--;
	if (e - s >= 6 && strncmp(s, "```", 3) == 0 && strncmp(e - 3, "```", 3) == 0) {
		s = memchr(s, '\n', (size_t)(e - s));
		if (s == NULL)
			return;
		e -= 3;
	}
	buf_append(out, s, (size_t)(e - s));
}

cJSON *
ccrun_structured(const struct ccrun *r, const char *text, struct buf *why)
{
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	cJSON *v = NULL;
	int line, col;

	ccrun_unfence(text != NULL ? text : "", &body);
	if (body.len == 0) {
		buf_puts(why, "the final answer is empty, not JSON for --json-schema");
		goto out;
	}
	v = json_parse_at(body.data, body.len, &line, &col);
	if (v == NULL) {
		buf_printf(why, "the final answer is not JSON (line %d, column %d), as "
		    "--json-schema asks", line, col);
		goto out;
	}
	if (jschema_check(r->schema, v, why) == -1) {
		struct buf what = BUF_INIT(BUF_NOLIMIT);

		buf_printf(&what, "the final answer is not valid for --json-schema: %s", buf_cstr(why));
		buf_reset(why);
		buf_puts(why, buf_cstr(&what));
		buf_release(&what);
		cJSON_Delete(v);
		v = NULL;
	}
out:
	buf_release(&body);
	return v;
}
