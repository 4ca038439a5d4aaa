/* The status bar's model: see status.h. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "status.h"
#include "theme.h"
#include "wrap.h"

#define ST_MAXSEG	16

void
st_init(struct status *st)
{
	memset(st, 0, sizeof *st);
	snprintf(st->stage, sizeof st->stage, "%s", "none");
	snprintf(st->mode, sizeof st->mode, "%s", "ask");
}

void
st_set_mode(struct status *st, const char *mode)
{
	snprintf(st->mode, sizeof st->mode, "%s", mode ? mode : "?");
}

void
st_set_model(struct status *st, const char *model)
{
	snprintf(st->model, sizeof st->model, "%s", model ? model : "");
}

void
st_set_fork(struct status *st, const char *from)
{
	snprintf(st->forked_from, sizeof st->forked_from, "%s", from ? from : "");
}

void
st_tokens(int64_t n, char *out, size_t size)
{
	if (n < 0)
		n = 0;
	if (n < 1000)
		snprintf(out, size, "%lld", (long long)n);
	else if (n < 10000)
		snprintf(out, size, "%.1fk", (double)n / 1000.0);
	else if (n < 1000000)
		snprintf(out, size, "%lldk", (long long)(n / 1000));
	else
		snprintf(out, size, "%.1fM", (double)n / 1000000.0);
}

void
st_break_price(double usd, char *out, size_t size)
{
	if (usd < 0)
		snprintf(out, size, "%s", "price unknown");
	else
		snprintf(out, size, usd > 0 && usd < 0.01 ? "$%.4f" : "$%.2f", usd);
}

static void
st_usage(struct status *st, const cJSON *ev)
{
	st->last.in = json_int(ev, "input_tokens", 0);
	st->last.out = json_int(ev, "output_tokens", 0);
	st->last.cache_write = json_int(ev, "cache_creation_input_tokens", 0);
	st->last.cache_read = json_int(ev, "cache_read_input_tokens", 0);
	st->total.in += st->last.in;
	st->total.out += st->last.out;
	st->total.cache_write += st->last.cache_write;
	st->total.cache_read += st->last.cache_read;
	st->cost += json_num(ev, "cost_usd", 0);
}

static void
st_cache_break(struct status *st, const cJSON *ev)
{
	const cJSON *causes = json_get(ev, "causes"), *c;
	size_t used = 0;

	st->cache_break = true;
	st->cb_dropped = json_int(ev, "dropped_tokens", 0);
	st->cb_cost = json_num(ev, "cost_usd", -1);
	st->cb_causes[0] = '\0';
	cJSON_ArrayForEach(c, causes) {
		int r;

		if (!cJSON_IsString(c))
			continue;
		r = snprintf(st->cb_causes + used, sizeof st->cb_causes - used, "%s%s",
		    used ? "," : "", c->valuestring);
		if (r < 0 || (size_t)r >= sizeof st->cb_causes - used)
			break;
		used += (size_t)r;
	}
	if (used == 0)
		snprintf(st->cb_causes, sizeof st->cb_causes, "%s", "unknown");
	else if (json_str(ev, "mcp_servers", NULL) != NULL && used < sizeof st->cb_causes)
		snprintf(st->cb_causes + used, sizeof st->cb_causes - used, " (mcp %s)",
		    json_str(ev, "mcp_servers", ""));
}

bool
st_event(struct status *st, const cJSON *ev, int64_t now)
{
	const char *type = json_str(ev, "type", "");

	if (strcmp(type, "session") == 0) {
		st_set_model(st, json_str(ev, "model", st->model));
		st->unsaved = false;
	} else if (strcmp(type, "sandbox") == 0) {
		snprintf(st->sandbox, sizeof st->sandbox, "%s%s", json_bool(ev, "active", false) ?
		    "sandbox " : "no sandbox: ", json_str(ev, "mode", "?"));
	} else if (strcmp(type, "session_unsaved") == 0) {
		st->unsaved = true;
	} else if (strcmp(type, "context") == 0) {
		st->ctx_tokens = json_int(ev, "tokens", 0);
		st->ctx_window = json_int(ev, "window", 0);
		snprintf(st->stage, sizeof st->stage, "%s", json_str(ev, "stage", "none"));
	} else if (strcmp(type, "usage") == 0) {
		st_usage(st, ev);
		st->retrying = false;
	} else if (strcmp(type, "compaction") == 0) {
		snprintf(st->stage, sizeof st->stage, "%s", json_str(ev, "stage", st->stage));
		st->ctx_tokens = json_int(ev, "tokens_after", st->ctx_tokens);
	} else if (strcmp(type, "cache_break") == 0) {
		st_cache_break(st, ev);
	} else if (strcmp(type, "retry") == 0) {
		st->retrying = true;
		st->retry_attempt = (int)json_int(ev, "attempt", 1);
		st->retry_until = now + json_int(ev, "delay_ms", 0);
		snprintf(st->retry_reason, sizeof st->retry_reason, "%s", json_str(ev, "reason", ""));
	} else if (strcmp(type, "mcp_status") == 0) {
		st->mcp_ready = (int)json_int(ev, "ready", 0);
		st->mcp_total = (int)json_int(ev, "total", 0);
	} else if (strcmp(type, "lsp_status") == 0) {
		snprintf(st->lsp, sizeof st->lsp, "%s", json_str(ev, "servers", ""));
	} else if (strcmp(type, "turn_start") == 0) {
		st->busy = true;
	} else if (strcmp(type, "turn_end") == 0) {
		st->busy = false;
		st->retrying = false;
	} else if (strcmp(type, "text") == 0 || strcmp(type, "tool_use") == 0) {
		/* The stream is flowing again: a pending retry has happened. */
		if (!st->retrying)
			return false;
		st->retrying = false;
	} else
		return false;
	return true;
}

struct st_seg {
	char	 text[160];
	int	 role;
	int	 prio;		/* lower stays longer */
};

static void
st_seg(struct st_seg *segs, int *n, int prio, int role, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
st_seg(struct st_seg *segs, int *n, int prio, int role, const char *fmt, ...)
{
	va_list ap;

	if (*n >= ST_MAXSEG)
		return;
	va_start(ap, fmt);
	vsnprintf(segs[*n].text, sizeof segs[*n].text, fmt, ap);
	va_end(ap);
	segs[*n].role = role;
	segs[*n].prio = prio;
	(*n)++;
}

static void
st_segments(const struct status *st, int64_t now, struct st_seg *segs, int *n)
{
	char a[16], b[16], c[16], d[16];

	/* "claude-" says nothing on a narrow bar. */
	st_seg(segs, n, 0, ROLE_STATUS_MODEL, "%s", st->model[0] == '\0' ? "no model" :
	    strncmp(st->model, "claude-", 7) == 0 && st->model[7] != '\0' ? st->model + 7 : st->model);
	st_tokens(st->ctx_tokens, a, sizeof a);
	st_tokens(st->ctx_window, b, sizeof b);
	if (st->ctx_window > 0)
		st_seg(segs, n, 1, ROLE_STATUS_CONTEXT, "ctx %s/%s %d%%", a, b,
		    (int)(st->ctx_tokens * 100 / st->ctx_window));
	else
		st_seg(segs, n, 1, ROLE_STATUS_CONTEXT, "ctx %s", a);
	st_tokens(st->last.in, a, sizeof a);
	st_tokens(st->last.out, b, sizeof b);
	st_tokens(st->last.cache_read, c, sizeof c);
	st_tokens(st->last.cache_write, d, sizeof d);
	st_seg(segs, n, 6, ROLE_STATUS_TOKENS, "\xE2\x86\x91%s \xE2\x86\x93%s \xE2\x9F\xB2%s \xE2\x9C\x8E%s",
	    a, b, c, d);
	st_tokens(st->total.in + st->total.cache_read + st->total.cache_write, a, sizeof a);
	st_tokens(st->total.out, b, sizeof b);
	st_seg(segs, n, 8, ROLE_STATUS_TOKENS, "\xCE\xA3\xE2\x86\x91%s \xE2\x86\x93%s", a, b);
	st_seg(segs, n, 5, ROLE_STATUS_COST, st->cost > 0 && st->cost < 0.01 ? "$%.3f" : "$%.2f", st->cost);
	st_seg(segs, n, 2, ROLE_STATUS_MODE, "%s", st->mode);
	if (st->sandbox[0] != '\0')
		st_seg(segs, n, 3, strncmp(st->sandbox, "no ", 3) == 0 ? ROLE_WARNING : ROLE_STATUS_MODE,
		    "%s", st->sandbox);
	if (st->mcp_total > 0)
		st_seg(segs, n, 7, ROLE_STATUS_STAGE, "mcp %d/%d", st->mcp_ready, st->mcp_total);
	if (st->lsp[0] != '\0')
		st_seg(segs, n, 7, ROLE_STATUS_STAGE, "lsp %s", st->lsp);
	/* Ids are date-time-random: the date is the least telling part on a narrow bar. */
	if (st->forked_from[0] != '\0')
		st_seg(segs, n, 4, ROLE_STATUS_STAGE, "fork of %s", strlen(st->forked_from) == 22 &&
		    st->forked_from[8] == '-' ? st->forked_from + 9 : st->forked_from);
	if (strcmp(st->stage, "none") != 0 && st->stage[0] != '\0')
		st_seg(segs, n, 7, ROLE_STATUS_STAGE, "%s", st->stage);
	if (st->retrying) {
		int64_t left = st->retry_until - now;

		st_seg(segs, n, 3, ROLE_WARNING, "retry %d in %llds%s%s", st->retry_attempt,
		    (long long)(left > 0 ? (left + 999) / 1000 : 0), st->retry_reason[0] ? ": " : "",
		    st->retry_reason);
	} else if (st->waiting[0] != '\0')
		st_seg(segs, n, 1, ROLE_TOOL_WAITING, "\xE2\x97\x86 %s", st->waiting);
	else if (st->busy)
		st_seg(segs, n, 4, ROLE_STATUS_BUSY, "\xE2\x97\x8F working");
	if (st->unsaved)
		st_seg(segs, n, 0, ROLE_ERROR, "\xE2\x9A\xA0 not saved: see the error, then send again to retry");
	if (st->cache_break) {
		char usd[32];

		st_tokens(st->cb_dropped, a, sizeof a);
		st_break_price(st->cb_cost, usd, sizeof usd);
		st_seg(segs, n, 4, ROLE_WARNING, "\xE2\x9A\xA0 cache break: %s \xE2\x88\x92%s %s", st->cb_causes, a,
		    st->cb_cost < 0 ? "$?" : usd);
	}
}

/* What stays beside a status line command's text: the mode and what tandem waits for. */
static void
st_custom_segments(const struct status *st, struct st_seg *segs, int *n)
{
	st_seg(segs, n, 2, ROLE_STATUS_MODE, "%s", st->mode);
	if (st->waiting[0] != '\0')
		st_seg(segs, n, 1, ROLE_TOOL_WAITING, "\xE2\x97\x86 %s", st->waiting);
	else if (st->busy)
		st_seg(segs, n, 4, ROLE_STATUS_BUSY, "\xE2\x97\x8F working");
	if (st->unsaved)
		st_seg(segs, n, 0, ROLE_ERROR, "\xE2\x9A\xA0 not saved: see the error, then send again to retry");
}

void
st_format_custom(const struct status *st, const char *text, int width, struct sline *out)
{
	struct st_seg segs[ST_MAXSEG];
	int n = 0, i, right = 0, room;

	st_custom_segments(st, segs, &n);
	for (i = 0; i < n; i++)
		right += (int)wrap_width(segs[i].text, strlen(segs[i].text)) + 3;
	room = width - right - 1;
	if (room < 0)
		room = 0;
	sline_add(out, text, wrap_fit(text, strlen(text), room), ROLE_STATUS, 0);
	for (i = 0; i < n; i++) {
		sline_adds(out, " \xE2\x94\x82 ", ROLE_STATUS, 0);
		sline_adds(out, segs[i].text, segs[i].role, 0);
	}
	out->flags |= SL_NOWRAP | SL_FILL;
	sline_add(out, " ", 1, ROLE_STATUS, 0);
}

void
st_format(const struct status *st, int width, int64_t now, struct sline *out)
{
	struct st_seg segs[ST_MAXSEG];
	bool keep[ST_MAXSEG];
	int n = 0, i, total, worst;
	size_t used;

	st_segments(st, now, segs, &n);
	for (i = 0; i < n; i++)
		keep[i] = true;
	for (;;) {
		total = 1;
		for (i = 0; i < n; i++)
			if (keep[i])
				total += (int)wrap_width(segs[i].text, strlen(segs[i].text)) + 3;
		if (total <= width)
			break;
		worst = -1;
		for (i = 0; i < n; i++)
			if (keep[i] && segs[i].prio > 0 && (worst < 0 || segs[i].prio > segs[worst].prio))
				worst = i;
		if (worst < 0)
			break;
		keep[worst] = false;
	}
	sline_add(out, " ", 1, ROLE_STATUS, 0);
	for (i = 0, used = 0; i < n; i++) {
		if (!keep[i])
			continue;
		if (used++ > 0)
			sline_adds(out, " \xE2\x94\x82 ", ROLE_STATUS, 0);
		sline_adds(out, segs[i].text, segs[i].role, 0);
	}
	out->flags |= SL_NOWRAP | SL_FILL;
	sline_add(out, " ", 1, ROLE_STATUS, 0);
}

bool
st_set_waiting(struct status *st, const char *what)
{
	if (what == NULL)
		what = "";
	if (strcmp(st->waiting, what) == 0)
		return false;
	(void)snprintf(st->waiting, sizeof st->waiting, "%s", what);
	return true;
}
