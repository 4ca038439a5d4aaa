/* The todo list on the screen: see todoview.h. */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "theme.h"
#include "todoview.h"
#include "xalloc.h"

#define TDV_DONE	"\xE2\x9C\x93"	/* ✓ */
#define TDV_PENDING	"\xE2\x98\x90"	/* ☐ */
#define TDV_NOW		"\xE2\x96\xB8"	/* ▸ */

void
tdv_init(struct todoview *v)
{
	v->current = cJSON_CreateArray();
	v->turns = cJSON_CreateObject();
	v->calls = cJSON_CreateObject();
	v->plans = cJSON_CreateObject();
}

void
tdv_release(struct todoview *v)
{
	cJSON_Delete(v->current);
	cJSON_Delete(v->turns);
	cJSON_Delete(v->calls);
	cJSON_Delete(v->plans);
	v->current = v->turns = v->calls = v->plans = NULL;
}

void
tdv_reset(struct todoview *v)
{
	tdv_release(v);
	tdv_init(v);
}

static void
tdv_set_turn(struct todoview *v, int turn, const cJSON *todos)
{
	char key[16];

	snprintf(key, sizeof key, "%d", turn);
	cJSON_DeleteItemFromObjectCaseSensitive(v->turns, key);
	cJSON_AddItemToObject(v->turns, key, cJSON_Duplicate(todos, 1));
}

bool
tdv_event(struct todoview *v, const cJSON *ev)
{
	const char *type = json_str(ev, "type", "");
	const char *id = json_str(ev, "id", "");
	const cJSON *todos;

	if (strcmp(type, "todos") == 0 && cJSON_IsArray(todos = json_get(ev, "todos"))) {
		cJSON_Delete(v->current);
		v->current = cJSON_Duplicate(todos, 1);
		return true;
	}
	if (strcmp(type, "tool_use") == 0 && strcmp(json_str(ev, "name", ""), "todo_write") == 0 &&
	    cJSON_IsArray(todos = json_get(json_get(ev, "input"), "todos"))) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddNumberToObject(c, "turn", (double)json_int(ev, "turn", 0));
		cJSON_AddItemToObject(c, "todos", cJSON_Duplicate(todos, 1));
		cJSON_DeleteItemFromObjectCaseSensitive(v->calls, id);
		cJSON_AddItemToObject(v->calls, id, c);
		return false;
	}
	if (strcmp(type, "tool_use") == 0 && strcmp(json_str(ev, "name", ""), "exit_plan") == 0) {
		const char *plan = json_str(json_get(ev, "input"), "plan", "");
		cJSON *c = cJSON_CreateObject();

		plan += strspn(plan, "# \n");
		cJSON_AddNumberToObject(c, "turn", (double)json_int(ev, "turn", 0));
		json_add_str_n(c, "plan", plan, strcspn(plan, "\n"));
		cJSON_DeleteItemFromObjectCaseSensitive(v->calls, id);
		cJSON_AddItemToObject(v->calls, id, c);
		return false;
	}
	if (strcmp(type, "tool_result") == 0 && json_get(json_get(v->calls, id), "plan") != NULL) {
		cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(v->calls, id);
		char key[16];

		if (!json_bool(ev, "is_error", false)) {
			struct buf b = BUF_INIT(BUF_NOLIMIT);

			buf_puts(&b, json_str(c, "plan", ""));
			if (strstr(json_str(ev, "content", ""), "changed this call") != NULL)
				buf_puts(&b, ", edited");
			snprintf(key, sizeof key, "%d", (int)json_int(c, "turn", 0));
			cJSON_DeleteItemFromObjectCaseSensitive(v->plans, key);
			cJSON_AddStringToObject(v->plans, key, buf_cstr(&b));
			buf_release(&b);
		}
		cJSON_Delete(c);
		return false;
	}
	if (strcmp(type, "tool_result") == 0 && json_get(v->calls, id) != NULL) {
		cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(v->calls, id);

		if (!json_bool(ev, "is_error", false)) {
			tdv_set_turn(v, (int)json_int(c, "turn", 0), json_get(c, "todos"));
			/* a replay brings no "todos" event per call: the last one says where it ends */
			if (json_bool(ev, "replay", false)) {
				cJSON_Delete(v->current);
				v->current = cJSON_Duplicate(json_get(c, "todos"), 1);
			}
		}
		cJSON_Delete(c);
		return true;
	}
	return false;
}

static int
tdv_count(const cJSON *list, const char *status)
{
	const cJSON *t;
	int n = 0;

	cJSON_ArrayForEach(t, list)
		if (status == NULL || strcmp(json_str(t, "status", ""), status) == 0)
			n++;
	return n;
}

bool
tdv_active(const struct todoview *v)
{
	return tdv_count(v->current, "in_progress") > 0;
}

int
tdv_rows(const struct todoview *v, bool busy, int max)
{
	int n = tdv_count(v->current, NULL);

	/* While a turn runs, or while steps are left (a resumed or rewound list). */
	if (n == 0 || (!busy && tdv_count(v->current, "completed") == n))
		return 0;
	if (max < 2)
		return 0;
	return n + 1 > max ? max : n + 1;
}

/* One item: its box, its text (activeForm while in progress). */
static void
tdv_item(const cJSON *t, const char *spinner, struct sline *l)
{
	const char *st = json_str(t, "status", "");

	sline_adds(l, "  ", ROLE_TEXT, 0);
	if (strcmp(st, "completed") == 0) {
		sline_adds(l, TDV_DONE " ", ROLE_TOOL_DONE, TA_BOLD);
		sline_adds(l, json_str(t, "content", ""), ROLE_DIM, 0);
	} else if (strcmp(st, "in_progress") == 0) {
		sline_adds(l, spinner != NULL ? spinner : TDV_NOW, ROLE_TOOL_RUNNING, TA_BOLD);
		sline_adds(l, " ", ROLE_TEXT, 0);
		sline_adds(l, json_str(t, "activeForm", json_str(t, "content", "")), ROLE_TEXT,
		    TA_BOLD);
	} else {
		sline_adds(l, TDV_PENDING " ", ROLE_DIM, 0);
		sline_adds(l, json_str(t, "content", ""), ROLE_TEXT, 0);
	}
	l->flags |= SL_NOWRAP;
}

void
tdv_lines(const struct todoview *v, int rows, const char *spinner, struct slvec *out)
{
	int n = tdv_count(v->current, NULL), done = tdv_count(v->current, "completed");
	int show = rows - 1, first = 0, i = 0, now = -1;
	const cJSON *t;
	struct sline *l;
	char title[64];

	cJSON_ArrayForEach(t, v->current) {
		if (now < 0 && strcmp(json_str(t, "status", ""), "completed") != 0)
			now = i;
		i++;
	}
	/* The window: from just before the first step not done, as far as it fits. */
	if (show < n && now > 0)
		first = now - 1 + show > n ? n - show : now - 1;
	snprintf(title, sizeof title, " todo %d/%d", done, n);
	l = slvec_push(out);
	sline_adds(l, title, ROLE_HEADING, TA_BOLD);
	if (first > 0 || first + show < n) {
		snprintf(title, sizeof title, "  (%d more)", n - show);
		sline_adds(l, title, ROLE_DIM, 0);
	}
	l->flags |= SL_NOWRAP;
	i = 0;
	cJSON_ArrayForEach(t, v->current) {
		if (i >= first && i < first + show)
			tdv_item(t, spinner, slvec_push(out));
		i++;
	}
}

const cJSON *
tdv_turn(const struct todoview *v, int turn)
{
	char key[16];

	snprintf(key, sizeof key, "%d", turn);
	return json_get(v->turns, key);
}

const char *
tdv_plan(const struct todoview *v, int turn)
{
	char key[16];

	snprintf(key, sizeof key, "%d", turn);
	return json_str(v->plans, key, NULL);
}

void
tdv_summary(const cJSON *list, struct buf *out)
{
	const cJSON *t;
	bool first = true;

	cJSON_ArrayForEach(t, list) {
		const char *st = json_str(t, "status", "");

		buf_printf(out, "%s%s %s", first ? "" : " \xC2\xB7 ",
		    strcmp(st, "completed") == 0 ? TDV_DONE : strcmp(st, "in_progress") == 0 ?
		    TDV_NOW : TDV_PENDING, json_str(t, "content", ""));
		first = false;
	}
}
