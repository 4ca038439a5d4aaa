/* Ordered parallel tool execution: see sched.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "exec.h"
#include "inputnote.h"
#include "json.h"
#include "redact.h"
#include "sched.h"
#include "xalloc.h"

struct sched {
	struct ev_loop		*loop;
	const struct tool_env	*env;
	struct sched_ops	 ops;
	struct sched_call	*head, **tail;
	int			 running;
	bool			 pumping;
	bool			 skip_rest;	/* a write failed */
	bool			 idle_told;
	uint64_t		 idle_timer;
	const struct tool_def	*(*lookup)(const char *);
	const struct tool_def	*(*find)(void *, const char *);
	int			(*resolve)(void *, char **, cJSON **, struct buf *);
	void			*find_arg;
	/* the agent's own async tools (the web tools, the language servers' code tool) */
	const struct tool_def	*(*more[SCHED_MORE_MAX])(void *, const char *);
	void			*more_arg[SCHED_MORE_MAX];
	size_t			 nmore;
	bool			(*hold)(void *, struct sched_call *);
	void			(*unhold)(void *, struct sched_call *);
	void			*hold_arg;
};

static void sched_pump(struct sched *);
static const struct tool_def *sched_lookup(struct sched *, const char *);

struct sched *
sched_new(struct ev_loop *loop, const struct tool_env *env, const struct sched_ops *ops)
{
	struct sched *s = xcalloc(1, sizeof *s);

	s->loop = loop;
	s->env = env;
	s->ops = *ops;
	s->tail = &s->head;
	s->idle_told = true;
	s->lookup = tool_find;
	return s;
}

static void
sched_call_free(struct sched_call *c)
{
	free(c->id);
	free(c->name);
	cJSON_Delete(c->input);
	cJSON_Delete(c->meta);
	cJSON_Delete(c->blocks);
	buf_release(&c->result);
	free(c->input_note);
	free(c);
}

void
sched_reset(struct sched *s)
{
	struct sched_call *c, *next;

	for (c = s->head; c != NULL; c = next) {
		next = c->next;
		if (c->job != NULL)
			exec_kill(c->job);	/* should not happen: all are done */
		else if (c->ajob != NULL)
			c->tool->async->cancel(c->ajob);
		else
			sched_call_free(c);
	}
	s->head = NULL;
	s->tail = &s->head;
	s->running = 0;
	s->skip_rest = false;
	s->idle_told = true;
}

void
sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	if (s->idle_timer != 0)
		ev_timer_cancel(s->loop, s->idle_timer);
	sched_reset(s);
	free(s);
}

static void
sched_finish(struct sched *s, struct sched_call *c, bool is_error, const char *text)
{
	c->state = SCHED_DONE;
	c->is_error = is_error;
	if (text != NULL) {
		buf_reset(&c->result);
		buf_puts(&c->result, text);
	}
	if (s->ops.finished != NULL)
		s->ops.finished(s->ops.arg, c);
}

void
sched_add(struct sched *s, const char *id, const char *name, const cJSON *input,
    const char *parse_error)
{
	struct sched_call *c = xcalloc(1, sizeof *c);

	c->id = xstrdup(id != NULL ? id : "");
	c->name = xstrdup(name != NULL ? name : "");
	c->input = input != NULL ? cJSON_Duplicate(input, 1) : cJSON_CreateObject();
	c->tool = sched_lookup(s, c->name);
	buf_init(&c->result, 64u * 1024 * 1024);
	c->state = SCHED_QUEUED;
	*s->tail = c;
	s->tail = &c->next;
	s->idle_told = false;
	if (c->tool != NULL && parse_error == NULL && s->resolve != NULL) {
		struct buf why = BUF_INIT(64 * 1024);
		int r = s->resolve(s->find_arg, &c->name, &c->input, &why);

		if (r == 0)
			c->tool = sched_lookup(s, c->name);
		if (r == 0 && c->tool == NULL)
			buf_printf(&why, "unknown tool \"%s\"", c->name);
		if (r == -1 || c->tool == NULL) {
			sched_finish(s, c, true, buf_cstr(&why));
			buf_release(&why);
			sched_pump(s);
			return;
		}
		buf_release(&why);
	}
	if (c->tool == NULL) {
		struct buf b = BUF_INIT(4096);
		size_t i;

		buf_printf(&b, "unknown tool \"%s\"; the tools are:", c->name);
		for (i = 0; tool_table[i] != NULL; i++)
			buf_printf(&b, " %s", tool_table[i]->name);
		sched_finish(s, c, true, buf_cstr(&b));
		buf_release(&b);
	} else if (parse_error != NULL) {
		struct buf b = BUF_INIT(4096);

		buf_printf(&b, "the input of this %s call was not valid JSON (%s); "
		    "send the call again with a complete JSON object", c->name, parse_error);
		sched_finish(s, c, true, buf_cstr(&b));
		buf_release(&b);
	}
	sched_pump(s);
}

/* The tool of that name: the table's (or the test's), then the finder's. */
static const struct tool_def *
sched_lookup(struct sched *s, const char *name)
{
	const struct tool_def *t = s->lookup(name);
	size_t i;

	if (t == NULL && s->find != NULL)
		t = s->find(s->find_arg, name);
	for (i = 0; t == NULL && i < s->nmore; i++)
		t = s->more[i](s->more_arg[i], name);
	return t;
}

/* exec callbacks get a small context naming both the scheduler and the call. */
struct sched_ctx {
	struct sched		*s;
	struct sched_call	*c;
};

static void
sched_ctx_progress(void *arg, const char *p, size_t n)
{
	struct sched_ctx *x = arg;

	if (x->s->ops.progress != NULL)
		x->s->ops.progress(x->s->ops.arg, x->c, p, n);
}

static void
sched_ctx_done(void *arg, struct tool_out *out, int64_t ms)
{
	struct sched_ctx *x = arg;
	struct sched *s = x->s;
	struct sched_call *c = x->c;

	free(x);
	c->job = NULL;
	c->ajob = NULL;
	c->duration_ms = ms;
	c->meta = out->meta;
	out->meta = NULL;
	c->blocks = out->blocks;
	out->blocks = NULL;
	s->running--;
	buf_reset(&c->result);
	if (c->input_note != NULL) {
		buf_puts(&c->result, c->input_note);
		buf_puts(&c->result, "\n\n");
	}
	buf_append(&c->result, buf_cstr(&out->text), out->text.len);
	c->is_error = out->is_error;
	if (s->hold != NULL && s->hold(s->hold_arg, c)) {
		c->held = true;
		return;
	}
	sched_release(s, c);
}

void
sched_release(struct sched *s, struct sched_call *c)
{
	c->held = false;
	if (c->is_error && c->tool->cls == TOOL_WRITE)
		s->skip_rest = true;
	sched_finish(s, c, c->is_error, NULL);
	sched_pump(s);
}

void
sched_set_hold(struct sched *s, bool (*hold)(void *, struct sched_call *),
    void (*unhold)(void *, struct sched_call *), void *arg)
{
	s->hold = hold;
	s->unhold = unhold;
	s->hold_arg = arg;
}


static void
sched_start(struct sched *s, struct sched_call *c)
{
	struct sched_ctx *x = xmalloc(sizeof *x);

	x->s = s;
	x->c = c;
	c->state = SCHED_RUNNING;
	c->ran = true;
	s->running++;
	if (s->ops.started != NULL)
		s->ops.started(s->ops.arg, c);
	if (c->tool->async != NULL)
		c->ajob = c->tool->async->start(c->tool, c->input, c->id, sched_ctx_progress,
		    sched_ctx_done, x);
	else
		c->job = exec_start(s->loop, c->tool, c->input, s->env, c->id,
		    sched_ctx_progress, sched_ctx_done, x);
}

static void
sched_tell_idle(struct ev_loop *loop, void *arg)
{
	struct sched *s = arg;

	s->idle_timer = 0;
	if (sched_pending(s) == 0 && !s->idle_told) {
		s->idle_told = true;
		if (s->ops.idle != NULL)
			s->ops.idle(s->ops.arg);
	}
}

/* Gate and start every call whose turn has come. */
static void
sched_pump(struct sched *s)
{
	struct sched_call *c;
	bool blocked = false;	/* an earlier exclusive call is not done */
	bool earlier_busy = false;	/* some earlier call is not done */

	if (s->pumping)
		return;
	s->pumping = true;
	for (c = s->head; c != NULL; c = c->next) {
		bool exclusive;

		if (c->state == SCHED_DONE)
			continue;
		exclusive = c->tool->cls != TOOL_READ_ONLY && !c->tool->parallel;
		if (s->skip_rest && c->state == SCHED_QUEUED) {
			sched_finish(s, c, true, "skipped: an earlier edit in this batch failed; "
			    "check it and send this call again if it still applies");
			continue;
		}
		if (c->state == SCHED_QUEUED && !blocked &&
		    (!exclusive || !earlier_busy) &&
		    (exclusive || s->running < SCHED_MAX_PARALLEL)) {
			struct buf why = BUF_INIT(64 * 1024);
			enum sched_gate g = s->ops.gate != NULL ?
			    s->ops.gate(s->ops.arg, c, &why) : SCHED_GO;

			/* the person said yes: the gate's only word left is when */
			if (c->approved && g == SCHED_ASK)
				g = SCHED_GO;

			if (g == SCHED_GO)
				sched_start(s, c);
			else if (g == SCHED_ASK)
				c->state = SCHED_WAITING;
			else if (g == SCHED_LATER)
				;	/* stays queued, and holds the calls after it */
			else {
				c->denied = true;
				sched_finish(s, c, true, buf_cstr(&why));
			}
			buf_release(&why);
		}
		if (c->state != SCHED_DONE) {
			earlier_busy = true;
			if (exclusive)
				blocked = true;
		}
	}
	s->pumping = false;
	if (sched_pending(s) == 0 && !s->idle_told && s->idle_timer == 0)
		s->idle_timer = ev_timer_add(s->loop, 0, sched_tell_idle, s);
}

void
sched_set_lookup(struct sched *s, const struct tool_def *(*lookup)(const char *))
{
	s->lookup = lookup;
}

void
sched_set_finder(struct sched *s, const struct tool_def *(*find)(void *, const char *),
    int (*resolve)(void *, char **, cJSON **, struct buf *), void *arg)
{
	s->find = find;
	s->resolve = resolve;
	s->find_arg = arg;
}

void
sched_set_more(struct sched *s, const struct tool_def *(*find)(void *, const char *), void *arg)
{
	if (s->nmore == SCHED_MORE_MAX)
		fatal("more than %d extra tool finders", SCHED_MORE_MAX);
	s->more[s->nmore] = find;
	s->more_arg[s->nmore++] = arg;
}

void
sched_kick(struct sched *s)
{
	sched_pump(s);
}

struct sched_call *
sched_find(struct sched *s, const char *id)
{
	struct sched_call *c;

	for (c = s->head; c != NULL; c = c->next)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

void
sched_answer(struct sched *s, const char *id, bool allow, const char *reason,
    const cJSON *edited_input)
{
	struct sched_call *c = sched_find(s, id);

	if (c == NULL || c->state != SCHED_WAITING)
		return;
	if (edited_input != NULL) {
		free(c->input_note);
		c->input_note = inputnote_build(c->input, edited_input);
		cJSON_Delete(c->input);
		c->input = cJSON_Duplicate(edited_input, 1);
	}
	if (allow) {
		c->approved = true;
		c->state = SCHED_QUEUED;
	} else {
		struct buf b = BUF_INIT(64 * 1024);

		buf_printf(&b, "the user denied this %s call", c->name);
		if (reason != NULL && reason[0] != '\0')
			buf_printf(&b, ", saying: %s", reason);
		else
			buf_puts(&b, "; ask what they want instead, or take another approach");
		c->denied = true;
		sched_finish(s, c, true, buf_cstr(&b));
		buf_release(&b);
	}
	sched_pump(s);
}

void
sched_interrupt(struct sched *s, const char *why)
{
	struct sched_call *c;

	s->pumping = true;
	for (c = s->head; c != NULL; c = c->next) {
		if (c->state == SCHED_RUNNING && c->job != NULL)
			exec_kill(c->job);
		else if (c->state == SCHED_RUNNING && c->ajob != NULL)
			c->tool->async->cancel(c->ajob);
		else if (c->state == SCHED_RUNNING && c->held && s->unhold != NULL)
			s->unhold(s->hold_arg, c);
		else if (c->state == SCHED_QUEUED || c->state == SCHED_WAITING)
			sched_finish(s, c, true, why);
	}
	s->pumping = false;
	sched_pump(s);
}

int
sched_pending(const struct sched *s)
{
	const struct sched_call *c;
	int n = 0;

	for (c = s->head; c != NULL; c = c->next)
		if (c->state != SCHED_DONE)
			n++;
	return n;
}

int
sched_count(const struct sched *s)
{
	const struct sched_call *c;
	int n = 0;

	for (c = s->head; c != NULL; c = c->next)
		n++;
	return n;
}

cJSON *
sched_results(const struct sched *s)
{
	const struct sched_call *c;
	cJSON *arr = cJSON_CreateArray();

	for (c = s->head; c != NULL; c = c->next) {
		cJSON *b = cJSON_CreateObject();

		cJSON_AddStringToObject(b, "type", "tool_result");
		cJSON_AddStringToObject(b, "tool_use_id", c->id);
		if (c->blocks != NULL) {
			cJSON *blk = cJSON_AddArrayToObject(b, "content"), *t, *it;

			if (c->result.len > 0) {
				t = cJSON_CreateObject();
				cJSON_AddStringToObject(t, "type", "text");
				json_add_str_n(t, "text", buf_cstr(&c->result), c->result.len);
				cJSON_AddItemToArray(blk, t);
			}
			cJSON_ArrayForEach(it, c->blocks) {
				cJSON_AddItemToArray(blk, cJSON_Duplicate(it, 1));
				/* An image read_file found, named by its file (agent/attach.c). */
				if (json_get(it, "_file") != NULL && json_get(b, "_images") == NULL)
					cJSON_AddBoolToObject(b, "_images", 1);
			}
		} else
			json_add_str_n(b, "content", buf_cstr(&c->result), c->result.len);
		if (c->is_error)
			cJSON_AddBoolToObject(b, "is_error", 1);
		cJSON_AddItemToArray(arr, b);
	}
	return arr;
}

void
sched_call_set_input(struct sched_call *c, cJSON *input)
{
	cJSON_Delete(c->input);
	c->input = input;
}

void
sched_call_append_result(struct sched_call *c, const char *text)
{
	buf_puts(&c->result, text);
}

void
sched_call_redact_result(struct sched_call *c)
{
	redact_buf(&c->result);
}
