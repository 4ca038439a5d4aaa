/*
 * askpick: ask_user's questions answered by keys, and the plan pane
 * (the picker, or else the todo list).
 *
 * The answers go back as Claude Code's SDK sends them: the call's input
 * with "answers": {question text: answer}, a multi-select's labels joined
 * by ", ", "Other" as the words typed.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "askpick.h"
#include "ev.h"
#include "event.h"
#include "json.h"
#include "todoview.h"
#include "utf8.h"

#define ASKPICK_OTHER_MAX	4096
#define ASKPICK_TODO_MAX	8	/* rows of the checklist at most */

struct askpick {
	cJSON		*queue;		/* the approval_request events, the first being answered */
	cJSON		*answers;	/* {question: answer} so far */
	int		 q;		/* the question shown */
	int		 cur;		/* the line under the cursor; the last is Other */
	bool		 ticked[5];
	struct buf	 other;		/* Other's words */
};

static const cJSON *
askpick_question(const struct askpick *p)
{
	return cJSON_GetArrayItem(json_get(json_get(cJSON_GetArrayItem(p->queue, 0), "input"),
	    "questions"), p->q);
}

static int
askpick_nopt(const struct askpick *p)
{
	int n = cJSON_GetArraySize(json_get(askpick_question(p), "options"));

	return n > 4 ? 4 : n;
}

static void
askpick_clear(struct askpick *p)
{
	p->cur = 0;
	memset(p->ticked, 0, sizeof p->ticked);
	buf_reset(&p->other);
}

bool
askpick_on(const struct app *a)
{
	return a->pick != NULL && cJSON_GetArraySize(a->pick->queue) > 0;
}

void
askpick_open(struct app *a, const cJSON *ev)
{
	if (a->pick == NULL) {
		a->pick = xcalloc(1, sizeof *a->pick);
		a->pick->queue = cJSON_CreateArray();
		a->pick->answers = cJSON_CreateObject();
		buf_init(&a->pick->other, ASKPICK_OTHER_MAX);
	}
	cJSON_AddItemToArray(a->pick->queue, cJSON_Duplicate(ev, 1));
	if (cJSON_GetArraySize(a->pick->queue) == 1) {
		a->pick->q = 0;
		askpick_clear(a->pick);
	}
	app_dirty(a, D_PANES | D_LAYOUT);
}

/* The first request is done with: the next one, if any, is asked. */
static void
askpick_next_request(struct app *a)
{
	struct askpick *p = a->pick;

	cJSON_DeleteItemFromArray(p->queue, 0);
	cJSON_Delete(p->answers);
	p->answers = cJSON_CreateObject();
	p->q = 0;
	askpick_clear(p);
	app_dirty(a, D_PANES | D_LAYOUT);
}

void
askpick_settled(struct app *a, const char *id)
{
	struct askpick *p = a->pick;
	const cJSON *ev;
	int i = 0;

	if (p == NULL)
		return;
	cJSON_ArrayForEach(ev, p->queue) {
		if (strcmp(json_str(ev, "id", ""), id) == 0) {
			if (i == 0)
				askpick_next_request(a);
			else
				cJSON_DeleteItemFromArray(p->queue, i);
			return;
		}
		i++;
	}
}

/* Answer (allow with the answers) or decline the first request. */
static void
askpick_send(struct app *a, bool answered)
{
	const cJSON *ev = cJSON_GetArrayItem(a->pick->queue, 0);
	char *id = xstrdup(json_str(ev, "id", ""));
	cJSON *in = cJSON_Duplicate(json_get(ev, "input"), 1);

	cJSON_DeleteItemFromObjectCaseSensitive(in, "answers");
	cJSON_AddItemToObject(in, "answers", cJSON_Duplicate(a->pick->answers, 1));
	tv_decided(&a->tools, id, answered ? "allow" : "deny", ev_now_ms());
	if (!answered)
		tr_tool_denied(a->tr, id, "the user declined to answer");
	if (a->agent != NULL) {
		a->be->answer(a->agent, id, answered ? APPROVAL_ALLOW : APPROVAL_DENY, answered ? NULL :
		    "the user declined to answer: go on with your best judgement, or ask in words",
		    answered ? in : NULL);
	} else {
		cJSON *e = event_new(a->bus, "approval");

		cJSON_AddStringToObject(e, "id", id);
		cJSON_AddStringToObject(e, "decision", answered ? "allow" : "deny");
		cJSON_AddStringToObject(e, "by", "user");
		cJSON_AddItemToObject(e, "answers", cJSON_Duplicate(a->pick->answers, 1));
		event_emit(a->bus, e);
	}
	cJSON_Delete(in);
	askpick_settled(a, id);
	free(id);
	app_tick_arm(a);
	app_dirty(a, D_TOOLS | D_TRANSCRIPT | D_PANES | D_LAYOUT);
}

/* The answer to the question shown, from the ticks, the cursor and Other's words. */
static void
askpick_answer(struct app *a)
{
	struct askpick *p = a->pick;
	const cJSON *q = askpick_question(p), *opts = json_get(q, "options");
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	int n = askpick_nopt(p), i;
	bool multi = json_bool(q, "multiSelect", false);

	if (multi) {
		for (i = 0; i < n; i++)
			if (p->ticked[i])
				buf_printf(&b, "%s%s", b.len > 0 ? ", " : "",
				    json_str(cJSON_GetArrayItem(opts, i), "label", ""));
		if (p->other.len > 0)
			buf_printf(&b, "%s%s", b.len > 0 ? ", " : "", buf_cstr(&p->other));
		if (b.len == 0 && p->cur < n)
			buf_puts(&b, json_str(cJSON_GetArrayItem(opts, p->cur), "label", ""));
	} else if (p->cur < n) {
		buf_puts(&b, json_str(cJSON_GetArrayItem(opts, p->cur), "label", ""));
	} else {
		buf_puts(&b, buf_cstr(&p->other));
	}
	if (b.len == 0) {
		app_set_hint(a, false, "%s", "type an answer on the Other line, or pick an option");
		buf_release(&b);
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(p->answers, json_str(q, "question", ""));
	cJSON_AddStringToObject(p->answers, json_str(q, "question", ""), buf_cstr(&b));
	buf_release(&b);
	p->q++;
	askpick_clear(p);
	if (askpick_question(p) == NULL)
		askpick_send(a, true);
}

/* The last character of b goes. */
static void
askpick_erase(struct buf *b)
{
	size_t n = b->len - 1;

	while (n > 0 && ((unsigned char)b->data[n] & 0xC0) == 0x80)
		n--;
	buf_truncate(b, n);
}

void
askpick_key(struct app *a, int key)
{
	struct askpick *p = a->pick;
	int n = askpick_nopt(p);
	bool multi = json_bool(askpick_question(p), "multiSelect", false);
	char s[4];

	if (key == ASKPICK_UP)
		p->cur = p->cur > 0 ? p->cur - 1 : n;
	else if (key == ASKPICK_DOWN)
		p->cur = p->cur < n ? p->cur + 1 : 0;
	else if (key == ASKPICK_ENTER)
		askpick_answer(a);
	else if (key == ASKPICK_CANCEL)
		askpick_send(a, false);
	else if (key == ASKPICK_BACKSPACE && p->cur == n && p->other.len > 0)
		askpick_erase(&p->other);
	else if (key >= 0x20 && p->cur == n) {
		/* on the Other line every key is a word's */
		size_t k = utf8_encode((uint32_t)key, s);

		buf_append(&p->other, s, k);
	} else if (key >= '1' && key <= '0' + n + 1) {
		p->cur = key - '1';
		if (p->cur < n && multi)
			p->ticked[p->cur] = !p->ticked[p->cur];
		else if (p->cur < n)
			askpick_answer(a);
	} else if (key == ' ' && multi && p->cur < n) {
		p->ticked[p->cur] = !p->ticked[p->cur];
	}
	app_dirty(a, D_PANES);
}

/* The picker as lines: the question, its options, Other, the keys. */
static void
askpick_lines(struct app *a, struct slvec *out)
{
	struct askpick *p = a->pick;
	const cJSON *q = askpick_question(p), *o;
	int n = askpick_nopt(p), total = cJSON_GetArraySize(json_get(json_get(
	    cJSON_GetArrayItem(p->queue, 0), "input"), "questions")), i = 0;
	bool multi = json_bool(q, "multiSelect", false);
	struct sline *l = slvec_push(out);
	char num[32];

	snprintf(num, sizeof num, " question %d/%d  ", p->q + 1, total);
	sline_adds(l, num, ROLE_DIM, 0);
	sline_adds(l, "[", ROLE_ACCENT, 0);
	sline_adds(l, json_str(q, "header", ""), ROLE_ACCENT, TA_BOLD);
	sline_adds(l, "] ", ROLE_ACCENT, 0);
	sline_adds(l, json_str(q, "question", ""), ROLE_HEADING, TA_BOLD);
	l->flags |= SL_NOWRAP;
	cJSON_ArrayForEach(o, json_get(q, "options")) {
		if (i >= n)
			break;
		l = slvec_push(out);
		snprintf(num, sizeof num, "%d ", i + 1);
		sline_adds(l, i == p->cur ? " \xE2\x96\xB8 " : "   ", ROLE_ACCENT, TA_BOLD);
		sline_adds(l, num, ROLE_APPROVAL_KEY, TA_BOLD);
		if (multi)
			sline_adds(l, p->ticked[i] ? "[x] " : "[ ] ", ROLE_ACCENT, 0);
		sline_adds(l, json_str(o, "label", ""), ROLE_TEXT, i == p->cur ? TA_BOLD : 0);
		if (json_str(o, "description", "")[0] != '\0') {
			sline_adds(l, " \xE2\x80\x94 ", ROLE_DIM, 0);
			sline_adds(l, json_str(o, "description", ""), ROLE_DIM, 0);
		}
		l->flags |= SL_NOWRAP;
		i++;
	}
	l = slvec_push(out);
	snprintf(num, sizeof num, "%d ", n + 1);
	sline_adds(l, p->cur == n ? " \xE2\x96\xB8 " : "   ", ROLE_ACCENT, TA_BOLD);
	sline_adds(l, num, ROLE_APPROVAL_KEY, TA_BOLD);
	sline_adds(l, "Other: ", ROLE_TEXT, p->cur == n ? TA_BOLD : 0);
	if (p->other.len > 0)
		sline_adds(l, buf_cstr(&p->other), ROLE_INPUT, 0);
	else
		sline_adds(l, p->cur == n ? "type your answer" : "your own answer", ROLE_DIM, TA_ITALIC);
	l->flags |= SL_NOWRAP;
	l = slvec_push(out);
	snprintf(num, sizeof num, "1-%d", n + 1);
	sline_adds(l, " \xE2\x86\x91\xE2\x86\x93 move  ", ROLE_DIM, 0);
	sline_adds(l, num, ROLE_DIM, 0);
	sline_adds(l, multi ? " or Space tick  Enter answers  Esc declines" :
	    " pick  Enter answers  Esc declines", ROLE_DIM, 0);
	l->flags |= SL_NOWRAP;
}

int
askpick_rows(struct app *a)
{
	int max = LINES / 3;

	if (askpick_on(a))
		return askpick_nopt(a->pick) + 3;
	return tdv_rows(&a->todo, app_busy(a), max < ASKPICK_TODO_MAX ? max : ASKPICK_TODO_MAX);
}

void
askpick_paint(struct app *a)
{
	static const char *const spin[] = {
		"\xE2\xA0\x8B", "\xE2\xA0\x99", "\xE2\xA0\xB9", "\xE2\xA0\xB8", "\xE2\xA0\xBC",
		"\xE2\xA0\xB4", "\xE2\xA0\xA6", "\xE2\xA0\xA7", "\xE2\xA0\x87", "\xE2\xA0\x8F",
	};
	WINDOW *w = a->win[PANE_PLAN];
	struct rect *r = &a->rect[PANE_PLAN];
	struct draw_ctx c = { &a->roles, w, 0, r->w, -1, NULL };
	struct slvec lines;
	size_t i;

	slvec_init(&lines);
	werase(w);
	if (askpick_on(a))
		askpick_lines(a, &lines);
	else
		tdv_lines(&a->todo, r->h, app_busy(a) ? spin[a->spin % 10] : NULL, &lines);
	for (i = 0; i < lines.n && (int)i < r->h; i++)
		draw_row(&c, (int)i, &lines.v[i], 0);
	slvec_release(&lines);
	wnoutrefresh(w);
}

void
askpick_free(struct app *a)
{
	if (a->pick == NULL)
		return;
	cJSON_Delete(a->pick->queue);
	cJSON_Delete(a->pick->answers);
	buf_release(&a->pick->other);
	free(a->pick);
	a->pick = NULL;
}
