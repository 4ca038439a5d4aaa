/* Unit tests of the plan tools' checks and results (tools/plantools.c) and of the list a conversation holds (agent/plan/plan.c). */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "json.h"
#include "plan/plan.h"
#include "plantools.h"
#include "t.h"
#include "tool.h"

static void
run(const struct tool_def *t, const char *input, struct tool_out *out)
{
	cJSON *in = cJSON_Parse(input);

	tool_out_init(out);
	t->run(NULL, in, out);
	cJSON_Delete(in);
}

T_TEST(todo_checks)
{
	struct tool_out out;

	run(&tool_todo_write, "{\"todos\":[{\"content\":\"a\",\"status\":\"completed\"},"
	    "{\"content\":\"b\",\"status\":\"in_progress\"},{\"content\":\"c\",\"status\":\"pending\"}]}", &out);
	T_OK(!out.is_error);
	T_EQ_STR(buf_cstr(&out.text), "Todo list updated: 1 of 3 done, 1 in progress. Mark each step "
	    "completed as soon as it is done.");
	tool_out_release(&out);
	run(&tool_todo_write, "{\"todos\":[{\"content\":\"a\",\"status\":\"in_progress\"},"
	    "{\"content\":\"b\",\"status\":\"in_progress\"}]}", &out);
	T_OK(out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "only one todo may be in_progress") != NULL);
	tool_out_release(&out);
	run(&tool_todo_write, "{\"todos\":[{\"content\":\"a\",\"status\":\"done\"}]}", &out);
	T_OK(out.is_error);
	tool_out_release(&out);
	run(&tool_todo_write, "{\"todos\":{}}", &out);
	T_OK(out.is_error);
	tool_out_release(&out);
}

T_TEST(ask_checks_and_answers)
{
	static const char q[] = "{\"question\":\"Q?\",\"header\":\"H\",\"options\":"
	    "[{\"label\":\"A\",\"description\":\"a\"},{\"label\":\"B\",\"description\":\"b\"}]}";
	struct buf in = BUF_INIT(BUF_NOLIMIT);
	struct tool_out out;

	buf_printf(&in, "{\"questions\":[%s],\"answers\":{\"Q?\":\"B\"}}", q);
	run(&tool_ask_user, buf_cstr(&in), &out);
	T_OK(!out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "\"Q?\" -> B") != NULL);
	tool_out_release(&out);
	buf_reset(&in);
	buf_printf(&in, "{\"questions\":[%s]}", q);
	run(&tool_ask_user, buf_cstr(&in), &out);
	T_OK(out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "nobody answered") != NULL);
	tool_out_release(&out);
	buf_reset(&in);
	buf_printf(&in, "{\"questions\":[%s,%s,%s,%s,%s]}", q, q, q, q, q);
	run(&tool_ask_user, buf_cstr(&in), &out);
	T_OK(out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "1 to 4 questions") != NULL);
	tool_out_release(&out);
	run(&tool_ask_user, "{\"questions\":[{\"question\":\"Q?\",\"options\":[{\"label\":\"A\"}]}]}", &out);
	T_OK(out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "2 to 4 options") != NULL);
	tool_out_release(&out);
	buf_release(&in);
}

T_TEST(plan_result)
{
	struct tool_out out;

	run(&tool_exit_plan, "{\"plan\":\"# P\"}", &out);
	T_OK(!out.is_error);
	T_OK(strstr(buf_cstr(&out.text), "approved the plan") != NULL);
	tool_out_release(&out);
	run(&tool_exit_plan, "{\"plan\":\"\"}", &out);
	T_OK(out.is_error);
	tool_out_release(&out);
}

/* The list of a conversation: the last todo_write that did not fail, or a compaction's note. */
T_TEST(list_of_messages)
{
	static const char conv[] =
	    "[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"todo_write\","
	    "\"input\":{\"todos\":[{\"content\":\"one\",\"status\":\"pending\"}]}}]},"
	    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]},"
	    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"todo_write\","
	    "\"input\":{\"todos\":[{\"content\":\"bad\",\"status\":\"x\"}]}}]},"
	    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"is_error\":true,"
	    "\"content\":\"no\"}]}]";
	static const char noted[] =
	    "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"summary\"},{\"type\":\"text\","
	    "\"text\":\"" PLAN_TODO_NOTE "[{\\\"content\\\":\\\"kept\\\",\\\"status\\\":\\\"in_progress\\\"}]\"}]}]";
	cJSON *m = cJSON_Parse(conv), *l = plan_todos_of(m);
	char *s = cJSON_PrintUnformatted(l);

	T_EQ_STR(s, "[{\"content\":\"one\",\"status\":\"pending\"}]");
	cJSON_free(s);
	cJSON_Delete(l);
	cJSON_Delete(m);
	m = cJSON_Parse(noted);
	T_OK(m != NULL);
	l = plan_todos_of(m);
	s = cJSON_PrintUnformatted(l);
	T_EQ_STR(s, "[{\"content\":\"kept\",\"status\":\"in_progress\"}]");
	cJSON_free(s);
	cJSON_Delete(l);
	cJSON_Delete(m);
	l = plan_todos_of(NULL);
	T_EQ_INT(cJSON_GetArraySize(l), 0);
	cJSON_Delete(l);
}

int
main(void)
{
	T_RUN(todo_checks);
	T_RUN(ask_checks_and_answers);
	T_RUN(plan_result);
	T_RUN(list_of_messages);
	return t_done();
}
