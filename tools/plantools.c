/*
 * plantools: the three tools of the plan the pair shares, in Claude Code's
 * shapes (TodoWrite, ExitPlanMode, AskUserQuestion): todo_write, exit_plan
 * and ask_user.  Their run functions only check the input and word the
 * result; what they do to the session (the list kept and shown, the
 * person asked, the mode after a plan) is agent/plan/plan.c's.
 *
 * ask_user's answers and exit_plan's edited plan reach the run through
 * the input the person (or a host) approved: {"answers": {question:
 * answer}} as Claude Code's SDK sends them.
 */
#include "autoconf.h"

#include <string.h>

#include "json.h"
#include "plantools.h"
#include "tool.h"

int
plantools_check_todos(const cJSON *todos, struct buf *why)
{
	static const char *const states[] = { "pending", "in_progress", "completed" };
	const cJSON *t;
	int active = 0, i = 0;
	size_t k;

	if (!cJSON_IsArray(todos)) {
		buf_puts(why, "todos must be an array of {content, status, activeForm}");
		return -1;
	}
	cJSON_ArrayForEach(t, todos) {
		const char *st = json_str(t, "status", "");

		i++;
		if (json_str(t, "content", "")[0] == '\0') {
			buf_printf(why, "todos[%d] has no content", i - 1);
			return -1;
		}
		for (k = 0; k < 3 && strcmp(st, states[k]) != 0; k++)
			;
		if (k == 3) {
			buf_printf(why, "todos[%d].status must be pending, in_progress or completed",
			    i - 1);
			return -1;
		}
		if (k == 1 && ++active > 1) {
			buf_puts(why, "only one todo may be in_progress at a time: finish one first");
			return -1;
		}
	}
	return 0;
}

static void
plantools_todo_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	const cJSON *todos = json_get(input, "todos"), *t;
	int n[3] = { 0, 0, 0 };

	(void)env;
	if (plantools_check_todos(todos, &out->text) == -1) {
		out->is_error = true;
		return;
	}
	cJSON_ArrayForEach(t, todos) {
		const char *st = json_str(t, "status", "");

		n[strcmp(st, "completed") == 0 ? 2 : strcmp(st, "in_progress") == 0 ? 1 : 0]++;
	}
	buf_printf(&out->text, "Todo list updated: %d of %d done, %d in progress. Mark each step "
	    "completed as soon as it is done.", n[2], n[0] + n[1] + n[2], n[1]);
}

int
plantools_check_questions(const cJSON *qs, struct buf *why)
{
	const cJSON *q;
	int n = cJSON_GetArraySize(qs), i = 0, k;

	if (!cJSON_IsArray(qs) || n < 1 || n > 4) {
		buf_puts(why, "questions must hold 1 to 4 questions");
		return -1;
	}
	cJSON_ArrayForEach(q, qs) {
		k = cJSON_GetArraySize(json_get(q, "options"));
		if (json_str(q, "question", "")[0] == '\0') {
			buf_printf(why, "questions[%d] has no question text", i);
			return -1;
		}
		if (!cJSON_IsArray(json_get(q, "options")) || k < 2 || k > 4) {
			buf_printf(why, "questions[%d] must offer 2 to 4 options (the user can always "
			    "answer in their own words too)", i);
			return -1;
		}
		i++;
	}
	return 0;
}

static void
plantools_ask_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	const cJSON *qs = json_get(input, "questions"), *answers = json_get(input, "answers"), *q;

	(void)env;
	if (plantools_check_questions(qs, &out->text) == -1) {
		out->is_error = true;
		return;
	}
	if (!cJSON_IsObject(answers) || cJSON_GetArraySize(answers) == 0) {
		tool_out_error(out, "nobody answered these questions; go on with your best judgement "
		    "and say which choice you made");
		return;
	}
	buf_puts(&out->text, "The user answered your questions:");
	cJSON_ArrayForEach(q, qs) {
		const char *text = json_str(q, "question", "");

		buf_printf(&out->text, "\n- \"%s\" -> %s", text, json_str(answers, text,
		    "(no answer)"));
	}
	buf_puts(&out->text, "\nGo on with these answers in mind.");
}

static void
plantools_plan_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	(void)env;
	if (json_str(input, "plan", "")[0] == '\0') {
		tool_out_error(out, "plan is empty: give the plan as Markdown");
		return;
	}
	buf_puts(&out->text, "The user approved the plan: plan mode is over, you may make the "
	    "changes now. Follow the plan as approved; track its steps with todo_write.");
}

const struct tool_def tool_todo_write = {
	.name = "todo_write",
	.description =
	    "The checklist of multi-step work (3+ steps, or a list the user gave), shown to the "
	    "user. Send the whole list each time; one step in_progress before you start it, "
	    "completed once done. Not for one-step tasks.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\",\"items\":{"
	    "\"properties\":{\"content\":{\"type\":\"string\"},"
	    "\"status\":{\"enum\":[\"pending\",\"in_progress\",\"completed\"]},"
	    "\"activeForm\":{\"type\":\"string\"}}}}},\"required\":[\"todos\"]}",
	.cls = TOOL_READ_ONLY,
	.run = plantools_todo_run,
};

const struct tool_def tool_exit_plan = {
	.name = "exit_plan",
	.description =
	    "Plan mode only: when research is done, ask the user to approve your plan "
	    "(Markdown: steps, files). Approved: go ahead. Sent back: revise, call again.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":\"string\"}},"
	    "\"required\":[\"plan\"]}",
	.cls = TOOL_READ_ONLY,
	.run = plantools_plan_run,
};

const struct tool_def tool_ask_user = {
	.name = "ask_user",
	.description =
	    "Ask 1-4 multiple-choice questions when a choice is the user's. Each: short "
	    "header, 2-4 options; they may answer in their own words.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"questions\":{\"type\":\"array\",\"items\":{"
	    "\"properties\":{\"question\":{\"type\":\"string\"},"
	    "\"header\":{\"type\":\"string\"},\"options\":{\"type\":\"array\",\"items\":{"
	    "\"properties\":{\"label\":{\"type\":\"string\"},"
	    "\"description\":{\"type\":\"string\"}}}},\"multiSelect\":{\"type\":\"boolean\"}}}}},"
	    "\"required\":[\"questions\"]}",
	.cls = TOOL_READ_ONLY,
	.run = plantools_ask_run,
};
