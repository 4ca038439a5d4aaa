/*
 * Tests for agent/cachewatch.c: a realistic session on a fake clock gives
 * no break; each single change (tools, model, system, messages, a wait
 * past the TTL) gives exactly one break with that cause; a collapse with
 * nothing changed is "unknown"; small drops are not breaks; retries,
 * forget, "_" keys and malformed input.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "context/cachewatch.h"
#include "json.h"
#include "t.h"

/* Tokens each appended message adds to the prompt. */
#define SIM_MSG_TOKENS	1200
#define SIM_BASE	5000	/* system prompt and tools */
#define SIM_STEP_MS	20000

/*
 * A conversation and what the provider would report: each request reads
 * everything the previous one cached and writes what it added.
 */
struct sim {
	struct cachewatch	*cw;
	cJSON			*tools;
	cJSON			*msgs;
	char			 sys[128];
	char			 model[64];
	int64_t			 now;
	int64_t			 prompt;	/* tokens of the next request */
	int64_t			 cached;	/* what the previous request left */
	int			 breaks;
	struct cachewatch_break	 last;
	int			 ids;
};

static cJSON *
text_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

static void
add_message(struct sim *s, const char *role, cJSON *block)
{
	cJSON *m = cJSON_CreateObject(), *c = cJSON_AddArrayToObject(m, "content");

	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddItemToArray(c, block);
	cJSON_AddNumberToObject(m, "_turn", 1);
	cJSON_AddItemToArray(s->msgs, m);
	s->prompt += SIM_MSG_TOKENS;
}

static cJSON *
make_tools(const char *extra)
{
	static const char *names[] = { "read_file", "grep", "run_bash", "edit_file" };
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		cJSON *t = cJSON_CreateObject();

		cJSON_AddStringToObject(t, "name", names[i]);
		cJSON_AddStringToObject(t, "description", "a tool");
		cJSON_AddItemToObject(t, "input_schema", cJSON_Parse("{\"type\":\"object\"}"));
		cJSON_AddItemToArray(arr, t);
	}
	if (extra != NULL) {
		cJSON *t = cJSON_CreateObject();

		cJSON_AddStringToObject(t, "name", extra);
		cJSON_AddItemToArray(arr, t);
	}
	return arr;
}

static void
sim_init(struct sim *s)
{
	memset(s, 0, sizeof *s);
	s->cw = cachewatch_new(0);
	s->tools = make_tools(NULL);
	s->msgs = cJSON_CreateArray();
	snprintf(s->sys, sizeof s->sys, "You are tandem, a coding agent.");
	snprintf(s->model, sizeof s->model, "claude-sonnet-4-5");
	s->now = 1000000;
	s->prompt = SIM_BASE;
	add_message(s, "user", text_block("fix the parser"));
}

static void
sim_release(struct sim *s)
{
	cachewatch_free(s->cw);
	cJSON_Delete(s->tools);
	cJSON_Delete(s->msgs);
}

/* The model answered with a tool call and its result came back. */
static void
sim_grow(struct sim *s)
{
	cJSON *use = cJSON_CreateObject(), *res = cJSON_CreateObject();
	char id[32];

	snprintf(id, sizeof id, "toolu_%d", ++s->ids);
	cJSON_AddStringToObject(use, "type", "tool_use");
	cJSON_AddStringToObject(use, "id", id);
	cJSON_AddStringToObject(use, "name", "read_file");
	cJSON_AddItemToObject(use, "input", cJSON_Parse("{\"path\":\"src/parse.c\"}"));
	add_message(s, "assistant", use);
	cJSON_AddStringToObject(res, "type", "tool_result");
	cJSON_AddStringToObject(res, "tool_use_id", id);
	cJSON_AddStringToObject(res, "content", "int parse(void) { return 0; }\n");
	add_message(s, "user", res);
}

/* Send the request; read < 0 means "what the previous one cached". */
static bool
sim_send_read(struct sim *s, int64_t read)
{
	struct usage u;
	struct cachewatch_break b;
	bool broke;

	if (read < 0)
		read = s->cached;
	cachewatch_before(s->cw, s->sys, s->tools, s->model, s->msgs, s->now);
	u.input = 3;
	u.output = 200;
	u.cache_read = read;
	u.cache_write = s->prompt - read;
	broke = cachewatch_after(s->cw, &u, &b);
	if (broke) {
		s->breaks++;
		s->last = b;
	}
	s->cached = s->prompt;
	s->now += SIM_STEP_MS;
	return broke;
}

static bool
sim_send(struct sim *s)
{
	return sim_send_read(s, -1);
}

/* A realistic stretch: n requests, the conversation growing between them. */
static void
sim_run(struct sim *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sim_send(s);
		sim_grow(s);
	}
}

T_TEST(session_of_30_requests_has_no_break)
{
	struct sim s;
	struct buf r = BUF_INIT(BUF_NOLIMIT);

	sim_init(&s);
	sim_run(&s, 30);
	T_EQ_INT(s.breaks, 0);
	T_EQ_INT(cachewatch_breaks(s.cw), 0);
	T_OK(cachewatch_last_break(s.cw) == NULL);
	T_OK(cachewatch_efficiency(s.cw) > 0.999);
	cachewatch_report(s.cw, &r);
	T_CONTAINS(buf_cstr(&r), "30 requests");
	T_CONTAINS(buf_cstr(&r), "Cache efficiency: 100.0%");
	T_CONTAINS(buf_cstr(&r), "Cache breaks: none");
	buf_release(&r);
	sim_release(&s);
}

/* Run 10 requests, apply change, then 10 more: exactly one break, cause want. */
static void
one_break(void (*change)(struct sim *), int64_t read_after, unsigned want)
{
	struct sim s;
	int i;

	sim_init(&s);
	sim_run(&s, 10);
	change(&s);
	T_OK(sim_send_read(&s, read_after));
	T_EQ_INT(s.last.causes, want);
	T_EQ_INT(s.last.request, 11);
	T_EQ_INT(s.last.read, read_after);
	T_EQ_INT(s.last.dropped_tokens, s.last.expected - read_after);
	sim_grow(&s);
	for (i = 0; i < 10; i++) {
		sim_send(&s);
		sim_grow(&s);
	}
	T_EQ_INT(s.breaks, 1);
	T_EQ_INT(cachewatch_breaks(s.cw), 1);
	sim_release(&s);
}

static void
change_tools(struct sim *s)
{
	cJSON_Delete(s->tools);
	s->tools = make_tools("apply_patch");
}

static void
change_model(struct sim *s)
{
	snprintf(s->model, sizeof s->model, "claude-opus-4-1");
}

static void
change_system(struct sim *s)
{
	snprintf(s->sys, sizeof s->sys, "You are tandem, a careful coding agent.");
}

static void
wait_past_ttl(struct sim *s)
{
	s->now += CACHEWATCH_TTL_MS + 1;
}

static void
wait_within_ttl(struct sim *s)
{
	s->now += CACHEWATCH_TTL_MS - SIM_STEP_MS - 1;
}

static void
no_change(struct sim *s)
{
	(void)s;
}

/* A compaction: the oldest messages become one digest. */
static void
compact_messages(struct sim *s)
{
	int i;

	for (i = 0; i < 8; i++)
		cJSON_DeleteItemFromArray(s->msgs, 0);
	/* Both at the front: Debian's cJSON 1.7.15 cannot insert anywhere else. */
	cJSON_InsertItemInArray(s->msgs, 0, cJSON_Parse(
	    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}"));
	cJSON_InsertItemInArray(s->msgs, 0, cJSON_Parse(
	    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"digest\"}]}"));
	s->prompt -= 6 * SIM_MSG_TOKENS;
}

/* A rewind: the newest exchanges are dropped, and a new prompt follows. */
static void
rewind_messages(struct sim *s)
{
	int i;

	for (i = 0; i < 6; i++)
		cJSON_DeleteItemFromArray(s->msgs, cJSON_GetArraySize(s->msgs) - 1);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(s->msgs, cJSON_GetArraySize(s->msgs) - 1),
	    "content", cJSON_Parse("[{\"type\":\"text\",\"text\":\"try another way\"}]"));
}

T_TEST(tools_change_is_one_break)
{
	one_break(change_tools, 0, CACHEWATCH_TOOLS_CHANGED);
}

T_TEST(model_switch_is_one_break)
{
	one_break(change_model, 0, CACHEWATCH_MODEL_CHANGED);
}

T_TEST(system_change_is_one_break)
{
	one_break(change_system, 0, CACHEWATCH_SYSTEM_CHANGED);
}

T_TEST(wait_past_ttl_is_one_break)
{
	one_break(wait_past_ttl, 0, CACHEWATCH_TTL_EXPIRED);
}

T_TEST(compaction_is_messages_changed)
{
	one_break(compact_messages, SIM_BASE, CACHEWATCH_MESSAGES_CHANGED);
}

T_TEST(rewind_is_messages_changed)
{
	one_break(rewind_messages, SIM_BASE, CACHEWATCH_MESSAGES_CHANGED);
}

T_TEST(collapse_with_nothing_changed_is_unknown)
{
	one_break(no_change, 100, CACHEWATCH_UNKNOWN);
}

T_TEST(wait_within_ttl_is_no_cause)
{
	/* Still inside the TTL: a drop there is unexplained. */
	one_break(wait_within_ttl, 0, CACHEWATCH_UNKNOWN);
}

T_TEST(changes_without_a_drop_are_no_break)
{
	struct sim s;

	sim_init(&s);
	sim_run(&s, 5);
	change_tools(&s);
	change_model(&s);
	wait_past_ttl(&s);
	T_OK(!sim_send(&s));
	T_EQ_INT(s.breaks, 0);
	sim_release(&s);
}

T_TEST(several_causes_together)
{
	struct sim s;
	cJSON *c;

	sim_init(&s);
	sim_run(&s, 5);
	change_tools(&s);
	wait_past_ttl(&s);
	T_OK(sim_send_read(&s, 0));
	T_EQ_INT(s.last.causes, CACHEWATCH_TOOLS_CHANGED | CACHEWATCH_TTL_EXPIRED);
	c = cachewatch_causes_json(s.last.causes);
	T_EQ_INT(cJSON_GetArraySize(c), 2);
	T_EQ_STR(cJSON_GetArrayItem(c, 0)->valuestring, "tools_changed");
	T_EQ_STR(cJSON_GetArrayItem(c, 1)->valuestring, "ttl_expired");
	cJSON_Delete(c);
	sim_release(&s);
}

/* The threshold: more than 2,000 tokens and more than 5% of what was expected. */
static bool
drop_breaks(int64_t prompt, int64_t drop)
{
	struct sim s;
	bool broke;

	sim_init(&s);
	sim_send(&s);
	s.prompt = prompt;
	sim_send(&s);
	broke = sim_send_read(&s, prompt - drop);
	sim_release(&s);
	return broke;
}

T_TEST(small_drops_are_not_breaks)
{
	T_OK(!drop_breaks(100000, 1500));	/* under 2,000 tokens */
	T_OK(!drop_breaks(100000, 2000));	/* exactly 2,000: not more */
	T_OK(!drop_breaks(100000, 4999));	/* under 5% */
	T_OK(!drop_breaks(100000, 5000));	/* exactly 5%: not more */
	T_OK(!drop_breaks(30000, 1999));	/* over 5% but under 2,000 */
	T_OK(drop_breaks(100000, 5001));
	T_OK(drop_breaks(30000, 2001));
	T_OK(!drop_breaks(100000, -3000));	/* more than expected read: fine */
}

T_TEST(retry_keeps_the_change)
{
	struct sim s;
	struct usage u = { 3, 100, 0, 0 };

	sim_init(&s);
	sim_run(&s, 5);
	change_tools(&s);
	/* The first attempt failed: no usage, so no cachewatch_after. */
	cachewatch_before(s.cw, s.sys, s.tools, s.model, s.msgs, s.now);
	s.now += 1000;
	T_OK(sim_send_read(&s, 0));
	T_EQ_INT(s.last.causes, CACHEWATCH_TOOLS_CHANGED);
	/* after() without a before() since does nothing. */
	T_OK(!cachewatch_after(s.cw, &u, NULL));
	T_EQ_INT(cachewatch_breaks(s.cw), 1);
	sim_release(&s);
}

T_TEST(forget_starts_afresh)
{
	struct sim s;

	sim_init(&s);
	sim_run(&s, 5);
	cachewatch_forget(s.cw);
	cJSON_Delete(s.msgs);
	s.msgs = cJSON_CreateArray();
	s.prompt = SIM_BASE;
	add_message(&s, "user", text_block("a new conversation"));
	T_OK(!sim_send_read(&s, 0));
	sim_grow(&s);
	T_OK(!sim_send(&s));
	T_EQ_INT(cachewatch_breaks(s.cw), 0);
	sim_release(&s);
}

T_TEST(bookkeeping_keys_are_not_changes)
{
	struct sim s;
	cJSON *first;

	sim_init(&s);
	sim_run(&s, 5);
	first = cJSON_GetArrayItem(s.msgs, 1);
	cJSON_ReplaceItemInObject(first, "_turn", cJSON_CreateNumber(7));
	cJSON_AddTrueToObject(cJSON_GetArrayItem(json_get(first, "content"), 0), "_seen");
	T_OK(sim_send_read(&s, 100));
	T_EQ_INT(s.last.causes, CACHEWATCH_UNKNOWN);
	/* A real edit of the same message is seen. */
	sim_grow(&s);
	sim_send(&s);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(json_get(first, "content"), 0), "name",
	    cJSON_CreateString("grep"));
	T_OK(sim_send_read(&s, 100));
	T_EQ_INT(s.last.causes, CACHEWATCH_MESSAGES_CHANGED);
	sim_release(&s);
}

T_TEST(break_event_fields_and_report)
{
	struct sim s;
	struct buf r = BUF_INIT(BUF_NOLIMIT);
	cJSON *ev = cJSON_CreateObject();
	char *txt;

	sim_init(&s);
	sim_run(&s, 10);
	change_model(&s);
	T_OK(sim_send_read(&s, 0));
	cachewatch_break_fields(&s.last, ev);
	txt = json_print(ev);
	T_CONTAINS(txt, "\"causes\":[\"model_changed\"]");
	T_EQ_INT(json_int(ev, "dropped_tokens", -1), s.last.expected);
	T_EQ_INT(s.last.expected, SIM_BASE + 19 * SIM_MSG_TOKENS);
	free(txt);
	cJSON_Delete(ev);
	cachewatch_report(s.cw, &r);
	T_CONTAINS(buf_cstr(&r), "11 requests");
	T_CONTAINS(buf_cstr(&r), "Cache breaks: 1; the last at request 11");
	T_CONTAINS(buf_cstr(&r), "(model_changed)");
	/* One request of ten read nothing of what it could. */
	T_OK(cachewatch_efficiency(s.cw) > 0.80 && cachewatch_efficiency(s.cw) < 0.95);
	buf_release(&r);
	sim_release(&s);
}

/* The caller prices a break; the event carries the price and /cost lists it. */
T_TEST(break_price_in_event_and_cost_report)
{
	struct sim s;
	struct buf r = BUF_INIT(BUF_NOLIMIT);
	cJSON *ev = cJSON_CreateObject();

	sim_init(&s);
	cachewatch_cost_report(s.cw, &r);
	T_CONTAINS(buf_cstr(&r), "Cache breaks: none");
	buf_reset(&r);
	sim_run(&s, 5);
	change_model(&s);
	T_OK(sim_send_read(&s, 0));
	/* Before it is priced: unknown, and no cost_usd in the event. */
	T_OK(cachewatch_last_break(s.cw)->cost_usd < 0);
	cachewatch_break_fields(cachewatch_last_break(s.cw), ev);
	T_OK(json_get(ev, "cost_usd") == NULL);
	cJSON_Delete(ev);
	cachewatch_price_last(s.cw, 0.25);
	cachewatch_price_last(s.cw, 9.0);	/* priced once only */
	T_OK(cachewatch_last_break(s.cw)->cost_usd == 0.25);
	ev = cJSON_CreateObject();
	cachewatch_break_fields(cachewatch_last_break(s.cw), ev);
	T_OK(json_num(ev, "cost_usd", -1) == 0.25);
	cJSON_Delete(ev);
	/* A second break the caller cannot price (a model without one). */
	sim_run(&s, 3);
	T_OK(sim_send_read(&s, 0));
	cachewatch_price_last(s.cw, -1);
	cachewatch_cost_report(s.cw, &r);
	T_CONTAINS(buf_cstr(&r), "Cache breaks: 2, $0.2500 to write the dropped tokens again "
	    "(1 at an unknown price)");
	T_CONTAINS(buf_cstr(&r), "(model_changed), $0.2500");
	T_CONTAINS(buf_cstr(&r), "(unknown), price unknown");
	buf_release(&r);
	sim_release(&s);
}

T_TEST(cause_names)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT);

	T_EQ_STR(cachewatch_cause_name(CACHEWATCH_SYSTEM_CHANGED), "system_changed");
	T_EQ_STR(cachewatch_cause_name(CACHEWATCH_MESSAGES_CHANGED), "messages_changed");
	T_EQ_STR(cachewatch_cause_name(CACHEWATCH_UNKNOWN), "unknown");
	T_OK(cachewatch_cause_name(0) == NULL);
	T_OK(cachewatch_cause_name(CACHEWATCH_TOOLS_CHANGED | CACHEWATCH_MODEL_CHANGED) == NULL);
	T_OK(cachewatch_cause_name(1u << 20) == NULL);
	cachewatch_causes_text(CACHEWATCH_SYSTEM_CHANGED | CACHEWATCH_TTL_EXPIRED, &t);
	T_EQ_STR(buf_cstr(&t), "system_changed, ttl_expired");
	buf_release(&t);
}

T_TEST(fresh_watcher_and_malformed_input)
{
	struct cachewatch *cw = cachewatch_new(-5);
	struct usage u = { 10, 10, 50000, 0 };
	struct buf r = BUF_INIT(BUF_NOLIMIT);
	cJSON *odd = cJSON_Parse("[1, \"x\", null, {\"role\":7,\"content\":\"plain\"},"
	    " {\"content\":[3, {\"_a\":1}]}]");

	T_OK(cachewatch_efficiency(cw) < 0);
	cachewatch_report(cw, &r);
	T_CONTAINS(buf_cstr(&r), "0 requests");
	T_CONTAINS(buf_cstr(&r), "not measured yet");
	T_OK(!cachewatch_after(cw, &u, NULL));
	cachewatch_before(cw, NULL, NULL, NULL, NULL, 0);
	T_OK(!cachewatch_after(cw, &u, NULL));
	/* Messages that are not an array, and an array of junk. */
	cachewatch_before(cw, "s", odd, "m", cJSON_GetArrayItem(odd, 1), 10);
	u.cache_write = 0;
	T_OK(cachewatch_after(cw, &u, NULL));
	T_EQ_INT(cachewatch_last_break(cw)->causes,
	    CACHEWATCH_SYSTEM_CHANGED | CACHEWATCH_TOOLS_CHANGED | CACHEWATCH_MODEL_CHANGED);
	u.cache_write = 50000;
	cachewatch_before(cw, "s", odd, "m", odd, 20);
	T_OK(!cachewatch_after(cw, &u, NULL));
	/* The default TTL applies when given a nonsense one: exactly it is not past it. */
	u.cache_write = 0;
	cachewatch_before(cw, "s", odd, "m", odd, 20 + CACHEWATCH_TTL_MS);
	T_OK(cachewatch_after(cw, &u, NULL));
	T_EQ_INT(cachewatch_last_break(cw)->causes, CACHEWATCH_UNKNOWN);
	T_EQ_INT(cachewatch_breaks(cw), 2);
	cJSON_Delete(odd);
	buf_release(&r);
	cachewatch_free(cw);
	cachewatch_free(NULL);
}

T_TEST(custom_ttl)
{
	struct sim s;

	sim_init(&s);
	cachewatch_free(s.cw);
	s.cw = cachewatch_new(60 * 60 * 1000);
	sim_run(&s, 5);
	wait_past_ttl(&s);
	T_OK(sim_send_read(&s, 0));
	T_EQ_INT(s.last.causes, CACHEWATCH_UNKNOWN);
	sim_release(&s);
}

int
main(void)
{
	T_RUN(session_of_30_requests_has_no_break);
	T_RUN(tools_change_is_one_break);
	T_RUN(model_switch_is_one_break);
	T_RUN(system_change_is_one_break);
	T_RUN(wait_past_ttl_is_one_break);
	T_RUN(compaction_is_messages_changed);
	T_RUN(rewind_is_messages_changed);
	T_RUN(collapse_with_nothing_changed_is_unknown);
	T_RUN(wait_within_ttl_is_no_cause);
	T_RUN(changes_without_a_drop_are_no_break);
	T_RUN(several_causes_together);
	T_RUN(small_drops_are_not_breaks);
	T_RUN(retry_keeps_the_change);
	T_RUN(forget_starts_afresh);
	T_RUN(bookkeeping_keys_are_not_changes);
	T_RUN(break_event_fields_and_report);
	T_RUN(break_price_in_event_and_cost_report);
	T_RUN(cause_names);
	T_RUN(fresh_watcher_and_malformed_input);
	T_RUN(custom_ttl);
	return t_done();
}
