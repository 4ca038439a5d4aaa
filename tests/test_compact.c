/*
 * Tests for agent/compact.c.  A generated session (turns of read_file,
 * grep, run_bash, edit_file and apply_patch rounds with big results) is
 * compacted stage by stage; every result must pass conv_check (roles
 * alternate, every tool_use answered at the start of the next message),
 * shrink, and keep its newest part byte for byte.  A growing session goes
 * micro -> collapse -> summary as it crosses the thresholds.  Plus the
 * estimate, the plan, idempotence and malformed input.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "context/compact.h"
#include "context/conv.h"
#include "json.h"
#include "t.h"
#include "xalloc.h"

static int ids;

/* n bytes of code-like text (quotes, newlines, tabs), varied by seed. */
static char *
filler(size_t n, int seed)
{
	static const char line[] = "\tif (p->len > \"limit\") return fail(p, %d);\n";
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	while (b.len < n)
		buf_printf(&b, line, seed++);
	buf_truncate(&b, n);
	return buf_detach(&b, NULL);
}

static cJSON *
text_block(const char *t)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", t);
	return b;
}

/* A tool_use block (added to uses) and its result (added to results). */
static void
tool_round_call(cJSON *uses, cJSON *results, const char *name, const char *input,
    size_t result_bytes, bool is_error)
{
	cJSON *u = cJSON_CreateObject(), *r = cJSON_CreateObject();
	char id[32], *content = filler(result_bytes, ids);

	snprintf(id, sizeof id, "toolu_%04d", ++ids);
	cJSON_AddStringToObject(u, "type", "tool_use");
	cJSON_AddStringToObject(u, "id", id);
	cJSON_AddStringToObject(u, "name", name);
	cJSON_AddItemToObject(u, "input", cJSON_Parse(input));
	cJSON_AddItemToArray(uses, u);
	cJSON_AddStringToObject(r, "type", "tool_result");
	cJSON_AddStringToObject(r, "tool_use_id", id);
	cJSON_AddStringToObject(r, "content", content);
	if (is_error)
		cJSON_AddTrueToObject(r, "is_error");
	cJSON_AddItemToArray(results, r);
	free(content);
}

/*
 * One turn: a prompt, rounds tool rounds cycling through the tools (two
 * parallel read_files, grep, run_bash, edit_file, apply_patch), a final
 * answer.  big: bytes of each big result.
 */
static void
gen_turn(struct conv *c, int turn, int rounds, size_t big)
{
	char prompt[128], input[256], *code = filler(big / 4, turn);
	int r;

	snprintf(prompt, sizeof prompt, "Turn %d: fix bug #%d in the parser\nand run the tests",
	    turn, turn);
	conv_add_user_text(c, prompt, turn);
	for (r = 0; r < rounds; r++) {
		cJSON *uses = cJSON_CreateArray(), *results = cJSON_CreateArray();

		cJSON_AddItemToArray(uses, text_block("Let me look."));
		switch (r % 5) {
		case 0:
			snprintf(input, sizeof input, "{\"path\":\"src/parse%d.c\"}", turn);
			tool_round_call(uses, results, "read_file", input, big, false);
			tool_round_call(uses, results, "read_file", "{\"path\":\"src/lex.c\"}", big, false);
			break;
		case 1:
			tool_round_call(uses, results, "grep", "{\"pattern\":\"fail\\\\(\"}", big / 2, false);
			break;
		case 2:
			tool_round_call(uses, results, "run_bash", "{\"command\":\"make check\\necho done\"}",
			    big, r % 2 == 0);
			break;
		case 3: {
			cJSON *in = cJSON_CreateObject();
			char *s;

			snprintf(input, sizeof input, "src/parse%d.c", turn);
			cJSON_AddStringToObject(in, "path", input);
			cJSON_AddStringToObject(in, "old_string", code);
			cJSON_AddStringToObject(in, "new_string", code);
			s = json_print(in);
			tool_round_call(uses, results, "edit_file", s, 40, false);
			free(s);
			cJSON_Delete(in);
			break;
		}
		default:
			tool_round_call(uses, results, "apply_patch", "{\"patch\":\"--- a/src/x.c\\n"
			    "+++ b/src/x.c\\n@@ -1 +1 @@\\n-a\\n+b\\n--- /dev/null\\n+++ b/src/new.c\\n"
			    "@@ -0,0 +1 @@\\n+c\\n\"}", 60, false);
			tool_round_call(uses, results, "list_dir", "{}", 3, false);
			break;
		}
		conv_add(c, "assistant", uses, turn);
		conv_add(c, "user", results, turn);
	}
	{
		cJSON *a = cJSON_CreateArray();

		cJSON_AddItemToArray(a, text_block("Fixed; the tests pass."));
		conv_add(c, "assistant", a, turn);
	}
	free(code);
}

static void
gen_session(struct conv *c, int turns, int rounds, size_t big)
{
	int t;

	conv_init(c);
	for (t = 1; t <= turns; t++)
		gen_turn(c, t, rounds, big);
}

/* A tool_result whose tool_use is not in the message before it (the API refuses those). */
static bool
has_orphan_result(const cJSON *messages)
{
	const cJSON *m, *prev = NULL, *b, *u;

	cJSON_ArrayForEach(m, messages) {
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			bool found = false;

			if (strcmp(json_str(b, "type", ""), "tool_result") != 0)
				continue;
			cJSON_ArrayForEach(u, json_get(prev, "content"))
				if (strcmp(json_str(u, "type", ""), "tool_use") == 0 &&
				    strcmp(json_str(u, "id", "?"), json_str(b, "tool_use_id", "")) == 0)
					found = true;
			if (!found) {
				printf("# orphan tool_result %s\n", json_str(b, "tool_use_id", ""));
				return true;
			}
		}
		prev = m;
	}
	return false;
}

/*
 * The conversation passes conv_check, and has no orphan tool_result
 * (conv_check does not look for those); prints why when not.
 */
static bool
valid(const struct conv *c)
{
	struct buf why = BUF_INIT(4096);
	bool ok = conv_check(c, &why) == 0;

	if (!ok)
		printf("# conv_check: %s\n", buf_cstr(&why));
	buf_release(&why);
	return ok && !has_orphan_result(c->messages);
}

static int64_t
est(const struct conv *c)
{
	return compact_estimate("system", NULL, c->messages);
}

/* The JSON of messages[from..] (caller frees). */
static char *
tail_json(const cJSON *messages, int from)
{
	cJSON *t = cJSON_CreateArray();
	int i, n = cJSON_GetArraySize(messages);
	char *s;

	for (i = from; i < n; i++)
		cJSON_AddItemToArray(t, cJSON_Duplicate(cJSON_GetArrayItem(messages, i), 1));
	s = json_print(t);
	cJSON_Delete(t);
	return s;
}

/* Index of the keep-th newest message that starts a turn. */
static int
turn_start(const cJSON *messages, int keep)
{
	int i, seen = 0;

	for (i = cJSON_GetArraySize(messages) - 1; i >= 0; i--) {
		const cJSON *m = cJSON_GetArrayItem(messages, i);
		const cJSON *b0 = cJSON_GetArrayItem(json_get(m, "content"), 0);

		if (strcmp(json_str(m, "role", ""), "user") == 0 &&
		    strcmp(json_str(b0, "type", ""), "tool_result") != 0 && ++seen == keep)
			return i;
	}
	return -1;
}

static const char *
first_text(const cJSON *messages, int i)
{
	const cJSON *m = cJSON_GetArrayItem(messages, i);

	return json_str(cJSON_GetArrayItem(json_get(m, "content"), 0), "text", "");
}

/* --- estimate and plan ------------------------------------------------------ */

T_TEST(estimate_is_json_bytes_over_4)
{
	cJSON *m = cJSON_Parse("[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	    "\"text\":\"say \\\"hi\\\"\\n\\tplease\"}]},{\"role\":\"assistant\",\"content\":"
	    "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"grep\",\"input\":{\"n\":12.5,"
	    "\"b\":true,\"f\":false,\"z\":null,\"a\":[1,2,3]}}]}]");
	char *s = json_print(m);
	int64_t want = ((int64_t)strlen(s) + 3) / 4;

	T_EQ_INT(compact_estimate(NULL, NULL, m), want);
	T_EQ_INT(compact_estimate("12345678", NULL, m), want + 2);
	T_EQ_INT(compact_estimate("12345678", m, NULL), want + 2);
	/* Bookkeeping keys are never sent, so never counted. */
	cJSON_AddNumberToObject(cJSON_GetArrayItem(m, 0), "_turn", 12345);
	cJSON_AddStringToObject(cJSON_GetArrayItem(m, 1), "_compact", "collapse");
	T_EQ_INT(compact_estimate(NULL, NULL, m), want);
	T_EQ_INT(compact_estimate(NULL, NULL, NULL), 0);
	T_EQ_INT(compact_estimate("", NULL, NULL), 0);
	free(s);
	cJSON_Delete(m);
}

T_TEST(plan_follows_the_thresholds)
{
	struct compact_thresholds th = { 0.5, 0.7, 0.85 }, off = { 0, 0.7, 0 };

	T_EQ_INT(compact_plan(0, 1000, &th), COMPACT_NONE);
	T_EQ_INT(compact_plan(499, 1000, &th), COMPACT_NONE);
	T_EQ_INT(compact_plan(500, 1000, &th), COMPACT_MICRO);
	T_EQ_INT(compact_plan(699, 1000, &th), COMPACT_MICRO);
	T_EQ_INT(compact_plan(700, 1000, &th), COMPACT_COLLAPSE);
	T_EQ_INT(compact_plan(850, 1000, &th), COMPACT_SUMMARY);
	T_EQ_INT(compact_plan(5000, 1000, &th), COMPACT_SUMMARY);
	T_EQ_INT(compact_plan(500, 0, &th), COMPACT_NONE);
	T_EQ_INT(compact_plan(500, -7, &th), COMPACT_NONE);
	T_EQ_INT(compact_plan(-5, 1000, &th), COMPACT_NONE);
	T_EQ_INT(compact_plan(600, 1000, &off), COMPACT_NONE);
	T_EQ_INT(compact_plan(990, 1000, &off), COMPACT_COLLAPSE);
	T_EQ_INT(compact_plan(860, 1000, NULL), COMPACT_SUMMARY);
	T_EQ_INT(compact_plan(510, 1000, NULL), COMPACT_MICRO);
	T_EQ_STR(compact_stage_name(COMPACT_NONE), "none");
	T_EQ_STR(compact_stage_name(COMPACT_MICRO), "micro");
	T_EQ_STR(compact_stage_name(COMPACT_COLLAPSE), "collapse");
	T_EQ_STR(compact_stage_name(COMPACT_SUMMARY), "summary");
	T_EQ_STR(compact_stage_name((enum compact_stage)42), "none");
}

/* --- micro ------------------------------------------------------------------ */

T_TEST(micro_elides_old_read_only_results)
{
	struct conv c;
	struct compact_stats st = { 0, 0, 0 };
	cJSON *before, *m;
	int64_t e0;
	int n, i, count;
	char *tail0, *tail1;

	gen_session(&c, 4, 5, 8000);
	before = cJSON_Duplicate(c.messages, 1);
	count = cJSON_GetArraySize(c.messages);
	e0 = est(&c);
	/* The newest 4 rounds: their results are the last 4 tool_result messages. */
	tail0 = tail_json(c.messages, count - 9);
	n = compact_micro(c.messages, 4, &st);
	T_OK(n > 0);
	T_EQ_INT(st.results_elided, n);
	T_OK(st.bytes_saved > 0);
	T_OK(valid(&c));
	T_OK(est(&c) < e0);
	T_OK(e0 - est(&c) >= st.bytes_saved / 4 - 1 && e0 - est(&c) <= st.bytes_saved / 4 + 1);
	tail1 = tail_json(c.messages, count - 9);
	T_EQ_STR(tail1, tail0);
	T_EQ_INT(cJSON_GetArraySize(c.messages), count);
	/* Each message: assistants untouched; results elided only for read-only tools. */
	for (i = 0; i < count; i++) {
		cJSON *old = cJSON_GetArrayItem(before, i), *b, *ob;
		int k = 0;

		m = cJSON_GetArrayItem(c.messages, i);
		if (strcmp(json_str(m, "role", ""), "assistant") == 0) {
			T_OK(cJSON_Compare(m, old, 1));
			continue;
		}
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *content = json_str(b, "content", "");

			ob = cJSON_GetArrayItem(json_get(old, "content"), k++);
			T_EQ_STR(json_str(b, "tool_use_id", "-"), json_str(ob, "tool_use_id", "-"));
			T_OK(json_bool(b, "is_error", false) == json_bool(ob, "is_error", false));
			if (strncmp(content, "[result elided", 14) == 0)
				T_OK(strstr(content, "call read_file again") != NULL ||
				    strstr(content, "call grep again") != NULL);
			else
				T_OK(cJSON_Compare(b, ob, 1));
		}
	}
	/* Every old read result went; run_bash results all stayed. */
	{
		char *all = json_print(c.messages);
		const char *p = all;
		int bash = 0;

		while ((p = strstr(p, "make check")) != NULL) {
			bash++;
			p++;
		}
		T_OK(bash > 0);
		free(all);
	}
	T_OK(strstr(tail1, "[result elided") == NULL);
	free(tail0);
	free(tail1);
	cJSON_Delete(before);
	conv_release(&c);
}

T_TEST(micro_twice_is_a_no_op)
{
	struct conv c;
	char *once, *twice;

	gen_session(&c, 3, 6, 3000);
	T_OK(compact_micro(c.messages, 2, NULL) > 0);
	once = json_print(c.messages);
	T_EQ_INT(compact_micro(c.messages, 2, NULL), 0);
	twice = json_print(c.messages);
	T_EQ_STR(twice, once);
	/* Keeping fewer rounds then elides more, still validly. */
	T_OK(compact_micro(c.messages, 0, NULL) > 0);
	T_OK(valid(&c));
	T_EQ_INT(compact_micro(c.messages, -3, NULL), 0);
	free(once);
	free(twice);
	conv_release(&c);
}

T_TEST(micro_leaves_small_results_and_errors_flagged)
{
	struct conv c;
	cJSON *uses = cJSON_CreateArray(), *res = cJSON_CreateArray(), *r;

	conv_init(&c);
	conv_add_user_text(&c, "look", 1);
	tool_round_call(uses, res, "list_dir", "{}", 5, false);
	tool_round_call(uses, res, "read_file", "{\"path\":\"x\"}", 500, true);
	tool_round_call(uses, res, "run_bash", "{\"command\":\"ls\"}", 500, false);
	conv_add(&c, "assistant", uses, 1);
	conv_add(&c, "user", res, 1);
	T_EQ_INT(compact_micro(c.messages, 0, NULL), 1);
	res = json_get(cJSON_GetArrayItem(c.messages, 2), "content");
	r = cJSON_GetArrayItem(res, 0);
	T_EQ_INT(strlen(json_str(r, "content", "")), 5);
	r = cJSON_GetArrayItem(res, 1);
	T_EQ_STR(json_str(r, "content", ""),
	    "[result elided to save context; call read_file again if needed]");
	T_OK(json_bool(r, "is_error", false));
	T_EQ_STR(json_str(r, "tool_use_id", ""), json_str(cJSON_GetArrayItem(
	    json_get(cJSON_GetArrayItem(c.messages, 1), "content"), 1), "id", "?"));
	r = cJSON_GetArrayItem(res, 2);
	T_EQ_INT(strlen(json_str(r, "content", "")), 500);
	T_OK(valid(&c));
	conv_release(&c);
}

/* --- collapse --------------------------------------------------------------- */

T_TEST(collapse_keeps_newest_turns_whole)
{
	struct conv c;
	struct compact_stats st = { 0, 0, 0 };
	int cut, n, removed;
	int64_t e0;
	char *kept0, *kept1;
	const char *digest;

	gen_session(&c, 6, 5, 4000);
	cut = turn_start(c.messages, 2);
	n = cJSON_GetArraySize(c.messages);
	kept0 = tail_json(c.messages, cut);
	e0 = est(&c);
	removed = compact_collapse(c.messages, 2, &st);
	T_EQ_INT(removed, cut);
	T_EQ_INT(st.messages_replaced, cut);
	T_OK(valid(&c));
	T_OK(est(&c) < e0);
	T_EQ_INT(cJSON_GetArraySize(c.messages), n - cut + 2);
	kept1 = tail_json(c.messages, 2);
	T_EQ_STR(kept1, kept0);
	digest = first_text(c.messages, 0);
	T_OK(strncmp(digest, "Earlier in this session (collapsed):", 36) == 0);
	T_CONTAINS(digest, "prompts: \"Turn 1: fix bug #1 in the parser and run the tests\"; \"Turn 2:");
	T_CONTAINS(digest, "Turn 4: fix bug #4");
	T_OK(strstr(digest, "Turn 5:") == NULL);
	T_CONTAINS(digest, "files read: src/parse1.c, src/lex.c, src/parse2.c");
	T_CONTAINS(digest, "files changed: src/parse1.c, src/x.c, src/new.c, src/parse2.c");
	T_CONTAINS(digest, "commands run: `make check ...`");
	T_OK(strstr(digest, "fail(p") == NULL);
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 0), "_compact", ""), "collapse");
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 1), "role", ""), "assistant");
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 1), "_compact", ""), "collapse");
	T_EQ_INT(json_int(cJSON_GetArrayItem(c.messages, 0), "_turn", 0), 4);
	T_EQ_INT(json_int(cJSON_GetArrayItem(c.messages, 1), "_turn", 0), 4);
	free(kept0);
	free(kept1);
	conv_release(&c);
}

T_TEST(collapse_again_folds_the_old_digest)
{
	struct conv c;
	int n;
	const char *digest;

	gen_session(&c, 5, 3, 2000);
	T_OK(compact_collapse(c.messages, 3, NULL) > 0);
	gen_turn(&c, 6, 3, 2000);
	gen_turn(&c, 7, 3, 2000);
	n = compact_collapse(c.messages, 2, NULL);
	T_OK(n > 0);
	T_OK(valid(&c));
	digest = first_text(c.messages, 0);
	T_OK(strncmp(digest, "Earlier in this session (collapsed):", 36) == 0);
	T_CONTAINS(digest, "Turn 1:");
	T_CONTAINS(digest, "After that (collapsed):");
	T_CONTAINS(digest, "Turn 5:");
	T_OK(strstr(digest, "Turn 6:") == NULL);
	/* Exactly one digest and one acknowledgement lead the conversation. */
	T_OK(json_get(cJSON_GetArrayItem(c.messages, 2), "_compact") == NULL);
	T_EQ_INT(turn_start(c.messages, 2), 2);
	/* Nothing left to collapse with two turns kept. */
	T_EQ_INT(compact_collapse(c.messages, 2, NULL), 0);
	conv_release(&c);
}

/* A log replayed without "_" keys: earlier digests are still known by their words. */
T_TEST(digest_known_without_its_mark)
{
	struct conv c;
	cJSON *m;
	const char *d;
	int i;

	gen_session(&c, 4, 2, 500);
	T_OK(compact_collapse(c.messages, 2, NULL) > 0);
	cJSON_ArrayForEach(m, c.messages)
		cJSON_DeleteItemFromObject(m, "_compact");
	gen_turn(&c, 5, 2, 500);
	T_OK(compact_collapse(c.messages, 2, NULL) > 0);
	T_OK(valid(&c));
	d = first_text(c.messages, 0);
	T_OK(strncmp(d, "Earlier in this session (collapsed):\nprompts: \"Turn 1", 50) == 0);
	T_CONTAINS(d, "After that (collapsed):\nprompts: \"Turn 3:");
	for (i = 2; i < cJSON_GetArraySize(c.messages); i++)
		T_OK(strstr(first_text(c.messages, i), "(collapsed)") == NULL);
	/* The same for a summary. */
	T_OK(compact_apply_summary(c.messages, 1, "what happened", NULL) > 0);
	cJSON_ArrayForEach(m, c.messages)
		cJSON_DeleteItemFromObject(m, "_compact");
	gen_turn(&c, 6, 1, 100);
	{
		cJSON *req = compact_summary_request(c.messages, 1, NULL, 0);

		T_CONTAINS(first_text(req, 0), "(Earlier context)\nSummary of the earlier part");
		T_OK(strstr(first_text(req, 0), "Assistant: Understood") == NULL);
		cJSON_Delete(req);
	}
	conv_release(&c);
}

T_TEST(collapse_inside_one_long_turn)
{
	struct conv c;
	int n0, cut;
	char *kept0, *kept1;

	gen_session(&c, 1, 12, 3000);
	n0 = cJSON_GetArraySize(c.messages);
	/* The newest 4 model calls: the final answer and the 3 rounds before it. */
	cut = n0 - 7;
	kept0 = tail_json(c.messages, cut);
	T_EQ_INT(compact_collapse(c.messages, 2, NULL), 0);
	T_EQ_INT(compact_collapse(c.messages, 1, NULL), 0);
	T_EQ_INT(compact_collapse(c.messages, 0, NULL), cut);
	T_OK(valid(&c));
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 1), "role", ""), "assistant");
	T_OK(json_get(cJSON_GetArrayItem(c.messages, 1), "_compact") == NULL);
	kept1 = tail_json(c.messages, 1);
	T_EQ_STR(kept1, kept0);
	T_CONTAINS(first_text(c.messages, 0), "prompts: \"Turn 1: fix bug #1");
	free(kept0);
	free(kept1);
	/* Again: the digest alone is older than the kept calls, so nothing. */
	T_EQ_INT(compact_collapse(c.messages, 0, NULL), 0);
	T_EQ_INT(compact_summary_keep(c.messages), -1);
	/* One more call, and there is something older again. */
	gen_turn(&c, 2, 0, 10);
	T_EQ_INT(compact_summary_keep(c.messages), 1);
	conv_release(&c);
}

T_TEST(collapse_with_nothing_older)
{
	struct conv c;
	char *before, *after;

	conv_init(&c);
	T_EQ_INT(compact_collapse(c.messages, 2, NULL), 0);
	conv_add_user_text(&c, "hello", 1);
	T_EQ_INT(compact_collapse(c.messages, 2, NULL), 0);
	conv_add(&c, "assistant", cJSON_Parse("[{\"type\":\"text\",\"text\":\"hi\"}]"), 1);
	before = json_print(c.messages);
	T_EQ_INT(compact_collapse(c.messages, 1, NULL), 0);
	T_EQ_INT(compact_apply_summary(c.messages, 1, "a summary", NULL), 0);
	T_OK(compact_summary_request(c.messages, 1, NULL, 0) == NULL);
	after = json_print(c.messages);
	T_EQ_STR(after, before);
	free(before);
	free(after);
	conv_release(&c);
}

/* --- summary ---------------------------------------------------------------- */

T_TEST(summary_request_renders_the_older_part)
{
	struct conv c;
	cJSON *req;
	const char *text;
	char *all;

	gen_session(&c, 4, 5, 6000);
	req = compact_summary_request(c.messages, 2, "the parser bug", 0);
	T_OK(req != NULL);
	T_EQ_INT(cJSON_GetArraySize(req), 1);
	T_EQ_STR(json_str(cJSON_GetArrayItem(req, 0), "role", ""), "user");
	all = json_print(req);
	T_OK(strstr(all, "\"_") == NULL);
	text = first_text(req, 0);
	T_CONTAINS(text, "<transcript>");
	T_CONTAINS(text, "User: Turn 1: fix bug #1");
	T_CONTAINS(text, "Turn 2: fix bug #2");
	T_OK(strstr(text, "Turn 3:") == NULL);
	T_CONTAINS(text, "Assistant called read_file {\"path\":\"src/parse1.c\"}");
	T_CONTAINS(text, "Result of read_file: ");
	T_CONTAINS(text, "Result of run_bash (error): ");
	T_CONTAINS(text, "more bytes]");
	T_CONTAINS(text, "Assistant: Fixed; the tests pass.");
	T_CONTAINS(text, "Pay particular attention to: the parser bug");
	T_OK(strlen(compact_summary_system()) > 100);
	free(all);
	cJSON_Delete(req);
	conv_release(&c);
}

T_TEST(summary_request_is_capped)
{
	struct conv c;
	cJSON *req;
	const char *text;

	gen_session(&c, 20, 5, 6000);
	req = compact_summary_request(c.messages, 2, NULL, 20000);
	text = first_text(req, 0);
	T_OK(strlen(text) < 20000 + 400);
	T_CONTAINS(text, "bytes of the middle left out");
	T_CONTAINS(text, "Turn 1: fix");
	T_CONTAINS(text, "Turn 18");
	T_OK(strstr(text, "Pay particular") == NULL);
	cJSON_Delete(req);
	/* A tiny cap still gives a well-formed request. */
	req = compact_summary_request(c.messages, 2, "", 50);
	T_OK(req != NULL && strlen(first_text(req, 0)) < 400);
	cJSON_Delete(req);
	conv_release(&c);
}

T_TEST(apply_summary_replaces_the_older_part)
{
	struct conv c;
	struct compact_stats st = { 0, 0, 0 };
	int cut;
	int64_t e0;
	char *kept0, *kept1, *before;

	gen_session(&c, 5, 5, 5000);
	cut = turn_start(c.messages, 2);
	kept0 = tail_json(c.messages, cut);
	before = json_print(c.messages);
	T_EQ_INT(compact_apply_summary(c.messages, 2, "", &st), 0);
	T_EQ_INT(compact_apply_summary(c.messages, 2, " \n\t", &st), 0);
	T_EQ_INT(compact_apply_summary(c.messages, 2, NULL, &st), 0);
	kept1 = json_print(c.messages);
	T_EQ_STR(kept1, before);
	free(kept1);
	e0 = est(&c);
	T_EQ_INT(compact_apply_summary(c.messages, 2, "The user is fixing parser bugs.", &st), cut);
	T_OK(valid(&c));
	T_OK(est(&c) < e0);
	T_OK(st.bytes_saved > 0);
	T_CONTAINS(first_text(c.messages, 0), "The user is fixing parser bugs.");
	T_CONTAINS(first_text(c.messages, 0), "the conversation was compacted");
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 0), "_compact", ""), "summary");
	kept1 = tail_json(c.messages, 2);
	T_EQ_STR(kept1, kept0);
	/* The next summary is given the earlier one to summarise. */
	gen_turn(&c, 6, 2, 1000);
	{
		cJSON *req = compact_summary_request(c.messages, 2, NULL, 0);

		T_CONTAINS(first_text(req, 0), "(Earlier context)\nSummary of the earlier part");
		T_CONTAINS(first_text(req, 0), "The user is fixing parser bugs.");
		cJSON_Delete(req);
	}
	free(kept0);
	free(kept1);
	free(before);
	conv_release(&c);
}

/* --- the pipeline ----------------------------------------------------------- */

/* The estimate of messages after micro alone, on a copy. */
static int64_t
est_after_micro(const cJSON *messages)
{
	cJSON *copy = cJSON_Duplicate(messages, 1);
	int64_t e;

	compact_micro(copy, COMPACT_KEEP_ROUNDS, NULL);
	e = compact_estimate("sys", NULL, copy);
	cJSON_Delete(copy);
	return e;
}

static void
restore(struct conv *c, const cJSON *pristine)
{
	cJSON_Delete(c->messages);
	c->messages = cJSON_Duplicate(pristine, 1);
}

T_TEST(stages_at_their_thresholds)
{
	struct conv c;
	struct compact_outcome o;
	int64_t e, em;
	cJSON *pristine, *req;

	gen_session(&c, 8, 5, 4000);
	pristine = cJSON_Duplicate(c.messages, 1);
	e = compact_estimate("sys", NULL, c.messages);
	em = est_after_micro(c.messages);
	T_OK(em < e * 8 / 10);

	/* 40%: nothing. */
	compact_auto(c.messages, "sys", NULL, e * 100 / 40, NULL, true, &o);
	T_EQ_INT(o.stage, COMPACT_NONE);
	T_OK(!o.need_summary);
	T_EQ_INT(o.tokens_before, e);
	T_EQ_INT(o.tokens_after, e);
	T_EQ_INT(o.stats.results_elided + o.stats.messages_replaced, 0);

	/* 55%, under 50% after micro: micro alone. */
	compact_auto(c.messages, "sys", NULL, e * 100 / 55, NULL, true, &o);
	T_EQ_INT(o.stage, COMPACT_MICRO);
	T_EQ_INT(o.tokens_after, em);
	T_OK(o.stats.results_elided > 0);
	T_EQ_INT(o.stats.messages_replaced, 0);
	T_OK(!o.need_summary);
	T_OK(valid(&c));

	/* 75% even after micro: micro, measured, then collapse keeping 2 turns. */
	restore(&c, pristine);
	compact_auto(c.messages, "sys", NULL, em * 100 / 75, NULL, true, &o);
	T_EQ_INT(o.stage, COMPACT_COLLAPSE);
	T_OK(o.stats.results_elided > 0);
	T_EQ_INT(o.stats.messages_replaced, turn_start(pristine, 2));
	T_OK(o.tokens_after < em);
	T_EQ_INT(o.tokens_after, compact_estimate("sys", NULL, c.messages));
	T_EQ_INT(turn_start(c.messages, 2), 2);
	T_OK(!o.need_summary);
	T_OK(valid(&c));

	/* The newest turn alone is over 85%: everything mechanical, then a summary inside it. */
	restore(&c, pristine);
	compact_auto(c.messages, "sys", NULL, e / 20, NULL, true, &o);
	T_EQ_INT(o.stage, COMPACT_COLLAPSE);
	T_OK(o.need_summary);
	T_EQ_INT(o.keep_turns, 0);
	T_OK(valid(&c));
	req = compact_summary_request(c.messages, o.keep_turns, NULL, 0);
	T_OK(req != NULL);
	T_CONTAINS(first_text(req, 0), "Turn 7:");
	cJSON_Delete(req);
	T_OK(compact_apply_summary(c.messages, o.keep_turns, "all of it", NULL) > 0);
	T_OK(valid(&c));

	/* The same with summaries stopped: collapse inside the newest turn. */
	restore(&c, pristine);
	compact_auto(c.messages, "sys", NULL, e / 20, NULL, false, &o);
	T_OK(!o.need_summary);
	T_EQ_INT(o.stage, COMPACT_COLLAPSE);
	T_OK(o.tokens_after < o.tokens_before);
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 1), "role", ""), "assistant");
	T_EQ_INT(cJSON_GetArraySize(c.messages), 1 + 2 * COMPACT_KEEP_ROUNDS - 1);
	T_OK(valid(&c));
	cJSON_Delete(pristine);
	conv_release(&c);
}

T_TEST(micro_skipped_when_the_gain_is_small)
{
	struct conv c;
	struct compact_outcome o;
	int64_t e;
	char *before, *after;

	/* Mostly run_bash output: micro would save little of the window. */
	gen_session(&c, 2, 3, 200);
	gen_turn(&c, 3, 3, 60000);
	e = compact_estimate(NULL, NULL, c.messages);
	before = json_print(c.messages);
	compact_auto(c.messages, NULL, NULL, e * 100 / 60, NULL, true, &o);
	T_EQ_INT(o.stage, COMPACT_NONE);
	after = json_print(c.messages);
	T_EQ_STR(after, before);
	free(before);
	free(after);
	conv_release(&c);
}

/* The agent's side of the growing session: compaction before each request. */
struct grow {
	int64_t		 window;
	int		 request;
	int		 first[4];
	int		 summaries;
};

static void
grow_request(struct conv *c, struct grow *g)
{
	struct compact_outcome o;

	g->request++;
	compact_auto(c->messages, "sys", NULL, g->window, NULL, true, &o);
	T_OK(valid(c));
	if (o.stage != COMPACT_NONE) {
		T_OK(o.tokens_after < o.tokens_before);
		if (g->first[o.stage] == 0)
			g->first[o.stage] = g->request;
	}
	if (o.need_summary) {
		cJSON *req = compact_summary_request(c->messages, o.keep_turns, NULL,
		    (size_t)g->window * 2);
		int64_t e0 = est(c);

		T_OK(req != NULL);
		T_OK(compact_estimate(compact_summary_system(), NULL, req) < g->window);
		cJSON_Delete(req);
		T_OK(compact_apply_summary(c->messages, o.keep_turns,
		    "Summary: parser bugs fixed so far; now running the long test suite.", NULL) > 0);
		T_OK(valid(c));
		T_OK(est(c) < e0);
		T_OK(compact_plan(est(c), g->window, NULL) < COMPACT_SUMMARY);
		if (g->first[COMPACT_SUMMARY] == 0)
			g->first[COMPACT_SUMMARY] = g->request;
		g->summaries++;
	}
	T_OK(est(c) < g->window);
}

/* Like gen_turn, with a request before each model call. */
static void
grow_turn(struct conv *c, struct grow *g, int turn, int rounds, size_t big, bool bash_only)
{
	struct conv one;
	int i, n;

	ids += 1000;
	conv_init(&one);
	gen_turn(&one, turn, rounds, big);
	if (bash_only) {
		conv_release(&one);
		conv_init(&one);
		conv_add_user_text(&one, "Now run the whole slow suite and fix what fails", turn);
		for (i = 0; i < rounds; i++) {
			cJSON *uses = cJSON_CreateArray(), *res = cJSON_CreateArray();

			tool_round_call(uses, res, "run_bash", "{\"command\":\"make check-slow\"}", big, false);
			conv_add(&one, "assistant", uses, turn);
			conv_add(&one, "user", res, turn);
		}
		conv_add(&one, "assistant", cJSON_Parse("[{\"type\":\"text\",\"text\":\"done\"}]"), turn);
	}
	n = cJSON_GetArraySize(one.messages);
	for (i = 0; i < n; i++) {
		cJSON *m = cJSON_DetachItemFromArray(one.messages, 0);
		bool user = strcmp(json_str(m, "role", ""), "user") == 0;

		cJSON_AddItemToArray(c->messages, m);
		if (user)
			grow_request(c, g);
	}
	conv_release(&one);
}

/*
 * A session grows call by call in a fixed window, compacted before each
 * request as the agent does: ordinary turns bring micro, then collapse;
 * a last turn of long command outputs, too big for any mechanical stage,
 * brings summaries.  Every step shrinks and stays valid, and no request
 * is ever over the window.
 */
T_TEST(growing_session_goes_micro_collapse_summary)
{
	struct grow g;
	struct conv c;
	int t;

	memset(&g, 0, sizeof g);
	g.window = 60000;
	conv_init(&c);
	for (t = 1; t <= 30; t++)
		grow_turn(&c, &g, t, 5, 3000, false);
	T_OK(g.first[COMPACT_MICRO] > 0);
	T_OK(g.first[COMPACT_COLLAPSE] > g.first[COMPACT_MICRO]);
	T_EQ_INT(g.summaries, 0);
	grow_turn(&c, &g, 31, 60, 9000, true);
	printf("# %d requests: first micro at %d, collapse at %d, summary at %d; %d summaries\n",
	    g.request, g.first[COMPACT_MICRO], g.first[COMPACT_COLLAPSE],
	    g.first[COMPACT_SUMMARY], g.summaries);
	T_OK(g.first[COMPACT_SUMMARY] > g.first[COMPACT_COLLAPSE]);
	T_OK(g.summaries >= 2);
	conv_release(&c);
}

T_TEST(overflow_compacts_hard)
{
	struct conv c;
	struct compact_outcome o;

	gen_session(&c, 6, 5, 3000);
	compact_overflow(c.messages, "sys", NULL, &o);
	T_EQ_INT(o.stage, COMPACT_COLLAPSE);
	T_OK(o.stats.results_elided > 0);
	T_OK(o.tokens_after < o.tokens_before / 3);
	T_OK(valid(&c));
	T_EQ_INT(turn_start(c.messages, 1), 2);
	/* Again: only the newest turn is left, so it is cut inside. */
	compact_overflow(c.messages, "sys", NULL, &o);
	T_EQ_INT(o.stage, COMPACT_COLLAPSE);
	T_OK(valid(&c));
	T_EQ_STR(json_str(cJSON_GetArrayItem(c.messages, 1), "role", ""), "assistant");
	/* And then nothing more can go. */
	compact_overflow(c.messages, "sys", NULL, &o);
	T_EQ_INT(o.stage, COMPACT_NONE);
	T_EQ_INT(o.tokens_after, o.tokens_before);
	conv_release(&c);
	conv_init(&c);
	conv_add_user_text(&c, "hi", 1);
	compact_overflow(c.messages, NULL, NULL, &o);
	T_EQ_INT(o.stage, COMPACT_NONE);
	conv_release(&c);
}

T_TEST(overflow_errors_are_recognised)
{
	T_OK(compact_is_overflow(413, NULL, NULL));
	T_OK(compact_is_overflow(413, "request_too_large", "Request exceeds the maximum size"));
	T_OK(compact_is_overflow(400, "invalid_request_error",
	    "prompt is too long: 210534 tokens > 200000 maximum"));
	T_OK(compact_is_overflow(400, "invalid_request_error", "This model's maximum context "
	    "length is 128000 tokens. However, your messages resulted in 130412 tokens."));
	T_OK(compact_is_overflow(400, "context_length_exceeded", NULL));
	T_OK(compact_is_overflow(400, NULL, "the request exceeds the available context size, "
	    "try increasing it"));
	T_OK(compact_is_overflow(400, "invalid_request_error", "Input is too long: too many "
	    "tokens for the context WINDOW"));
	T_OK(!compact_is_overflow(400, "invalid_request_error", "messages: roles must alternate"));
	T_OK(!compact_is_overflow(400, NULL, NULL));
	T_OK(!compact_is_overflow(429, "rate_limit_error", "too many tokens per minute"));
	T_OK(!compact_is_overflow(500, "api_error", "context length"));
	T_OK(!compact_is_overflow(200, NULL, "prompt is too long"));
}

/* Random cut sizes over many shapes: no pair is ever split. */
T_TEST(pairs_never_split)
{
	int turns, rounds, keep;

	for (turns = 1; turns <= 5; turns++) {
		for (rounds = 0; rounds <= 6; rounds++) {
			for (keep = 0; keep <= 3; keep++) {
				struct conv c;

				ids = 0;
				gen_session(&c, turns, rounds, 300);
				compact_micro(c.messages, keep, NULL);
				T_OK(valid(&c));
				compact_collapse(c.messages, keep, NULL);
				T_OK(valid(&c));
				gen_turn(&c, turns + 1, rounds, 300);
				compact_apply_summary(c.messages, keep, "s", NULL);
				T_OK(valid(&c));
				compact_collapse(c.messages, keep, NULL);
				T_OK(valid(&c));
				conv_release(&c);
			}
		}
	}
}

/* --- malformed input -------------------------------------------------------- */

T_TEST(hostile_input)
{
	static const char *cases[] = {
		"[]",
		"{}",
		"\"messages\"",
		"[1, \"x\", null, [], {}]",
		"[{\"role\":\"user\",\"content\":\"plain text prompt\"},"
		" {\"role\":\"assistant\",\"content\":\"plain answer\"},"
		" {\"role\":\"user\",\"content\":\"second\"},"
		" {\"role\":\"assistant\",\"content\":\"ok\"}]",
		"[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"nope\","
		" \"content\":[{\"type\":\"text\",\"text\":\"orphan result orphan result orphan result"
		" orphan result orphan result orphan result\"}]}]},"
		" {\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"name\":\"read_file\"},"
		" {\"type\":\"tool_use\",\"id\":\"a\",\"name\":7,\"input\":\"str\"}, 5, {\"type\":[]}]},"
		" {\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"a\"},"
		" {\"type\":\"tool_result\",\"content\":{\"odd\":1}}]},"
		" {\"role\":\"assistant\",\"content\":[{\"type\":\"text\"}]},"
		" {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\"}]},"
		" {\"role\":\"assistant\",\"content\":[]},"
		" {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"last\"}]}]",
		"[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"x\","
		" \"name\":\"apply_patch\",\"input\":{\"patch\":\"+++ \\n--- \\n+++ b/\\n\"}}]},"
		" {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"go\"}]},"
		" {\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]},"
		" {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"again\"}]}]",
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *m = cJSON_Parse(cases[i]), *req;
		struct compact_outcome o;

		T_OK(m != NULL);
		compact_estimate("s", m, m);
		compact_micro(m, 0, NULL);
		req = compact_summary_request(m, 1, "f", 100);
		cJSON_Delete(req);
		compact_apply_summary(m, 1, "sum", NULL);
		compact_collapse(m, 0, NULL);
		compact_collapse(m, 1, NULL);
		compact_auto(m, NULL, NULL, 1, NULL, true, &o);
		compact_auto(m, NULL, NULL, 1, NULL, false, &o);
		compact_overflow(m, NULL, m, &o);
		T_OK(compact_summary_keep(m) >= -1);
		cJSON_Delete(m);
	}
	compact_micro(NULL, 1, NULL);
	T_EQ_INT(compact_collapse(NULL, 1, NULL), 0);
	T_OK(compact_summary_request(NULL, 1, NULL, 0) == NULL);
	T_EQ_INT(compact_apply_summary(NULL, 1, "x", NULL), 0);
}

/* A valid conversation of plain-string contents still compacts validly. */
T_TEST(string_contents)
{
	struct conv c;
	const char *d;
	int t;

	conv_init(&c);
	for (t = 1; t <= 4; t++) {
		char p[64];

		snprintf(p, sizeof p, "question %d", t);
		conv_add(&c, "user", cJSON_CreateString(p), t);
		conv_add(&c, "assistant", cJSON_CreateString("answer"), t);
	}
	T_EQ_INT(compact_collapse(c.messages, 1, NULL), 6);
	T_OK(valid(&c));
	d = first_text(c.messages, 0);
	T_CONTAINS(d, "prompts: \"question 1\"; \"question 2\"; \"question 3\"");
	T_CONTAINS(d, "files read: none");
	conv_release(&c);
}

T_TEST(digest_lists_are_capped_and_unique)
{
	struct conv c;
	const char *d;
	int t;

	conv_init(&c);
	for (t = 1; t <= 60; t++) {
		cJSON *uses = cJSON_CreateArray(), *res = cJSON_CreateArray();
		char in[64];

		conv_add_user_text(&c, t % 2 ? "same prompt" : "same prompt", t);
		snprintf(in, sizeof in, "{\"path\":\"f%02d.c\"}", t);
		tool_round_call(uses, res, "read_file", in, 10, false);
		tool_round_call(uses, res, "read_file", "{\"path\":\"dup.c\"}", 10, false);
		conv_add(&c, "assistant", uses, t);
		conv_add(&c, "user", res, t);
		conv_add(&c, "assistant", cJSON_Parse("[{\"type\":\"text\",\"text\":\"ok\"}]"), t);
	}
	T_OK(compact_collapse(c.messages, 1, NULL) > 0);
	T_OK(valid(&c));
	d = first_text(c.messages, 0);
	T_CONTAINS(d, "prompts: \"same prompt\"\n");
	T_CONTAINS(d, "files read: f01.c, dup.c, f02.c");
	T_CONTAINS(d, "f39.c, (and 20 more)");
	T_OK(strstr(d, "f40.c") == NULL);
	conv_release(&c);
}

/* --- what the conversation keeps of its messages (conv.c) -------------------- */

static int made;

static int64_t
count_bytes(const cJSON *m)
{
	made++;
	return compact_message_bytes(m);
}

static uint64_t
count_hash(const cJSON *m)
{
	char *s = json_print(m);
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	made++;
	for (i = 0; s[i] != '\0'; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	free(s);
	return h;
}

static int
print_wire(enum stream_proto proto, const cJSON *m, struct buf *out)
{
	(void)proto;
	made++;
	return json_append(out, m);
}

/* The size, the fingerprints, the wire and the check, against the messages afresh. */
static bool
kept_is_fresh(const struct conv *c)
{
	struct buf why = BUF_INIT(4096), w = BUF_INIT(BUF_NOLIMIT), fresh = BUF_INIT(BUF_NOLIMIT);
	const uint64_t *h;
	const cJSON *m, *last = NULL;
	bool ok = true, first = true;
	int n, i = 0;

	ok &= compact_estimate_bytes(NULL, NULL, conv_json_bytes(c, count_bytes)) ==
	    compact_estimate(NULL, NULL, c->messages);
	h = conv_hashes(c, count_hash, &n);
	ok &= n == conv_count(c);
	cJSON_ArrayForEach(m, c->messages) {
		ok &= i < n && h[i] == count_hash(m);
		if (m->next != NULL) {
			if (fresh.len > 0)
				buf_putc(&fresh, ',');
			json_append(&fresh, m);
		}
		i++;
	}
	conv_append_wires(c, STREAM_ANTHROPIC, print_wire, &w, &first, &last);
	ok &= last == conv_last(c) && w.len == fresh.len &&
	    (w.len == 0 || memcmp(w.data, fresh.data, w.len) == 0);
	ok &= conv_check(c, &why) == conv_check_messages(c->messages, true, NULL, &why);
	ok &= conv_verify(c, &why) == 0;
	if (!ok)
		printf("# kept state differs: %s\n", buf_cstr(&why));
	buf_release(&why);
	buf_release(&w);
	buf_release(&fresh);
	return ok;
}

T_TEST(conv_keeps_each_message_once)
{
	struct conv c;
	cJSON *a;
	int n;

	ids = 0;
	gen_session(&c, 3, 4, 300);
	n = conv_count(&c);
	made = 0;
	T_EQ_INT((int)conv_json_bytes(&c, count_bytes), (int)conv_json_bytes(&c, count_bytes));
	/* Every message the first time; then only the last, made afresh each time. */
	T_EQ_INT(made, n + 1);
	made = 0;
	conv_hashes(&c, count_hash, &n);
	conv_hashes(&c, count_hash, &n);
	T_EQ_INT(made, n + 1);
	T_OK(kept_is_fresh(&c));
	/* Two more messages: the old last and the first new one are made, and the new last. */
	gen_turn(&c, 4, 0, 300);
	made = 0;
	conv_hashes(&c, count_hash, &n);
	T_EQ_INT(made, 3);
	T_OK(kept_is_fresh(&c));
	/* The last message grows (record_extend_last): never kept, so never stale. */
	a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, text_block("And one more thing."));
	conv_add(&c, "user", a, 5);
	T_OK(kept_is_fresh(&c));
	cJSON_AddItemToArray(json_get(conv_last(&c), "content"), text_block("Joined."));
	T_OK(kept_is_fresh(&c));
	/* Compaction changes the front: seen without being told. */
	compact_collapse(c.messages, 1, NULL);
	T_OK(kept_is_fresh(&c));
	/* A change in place must be told. */
	gen_turn(&c, 6, 6, 3000);
	T_OK(kept_is_fresh(&c));
	T_OK(compact_micro(c.messages, 1, NULL) > 0);
	conv_changed(&c);
	T_OK(kept_is_fresh(&c));
	/* Messages taken from the end (a rewind), then others added at the same place. */
	cJSON_DeleteItemFromArray(c.messages, conv_count(&c) - 1);
	cJSON_DeleteItemFromArray(c.messages, conv_count(&c) - 1);
	cJSON_DeleteItemFromArray(c.messages, conv_count(&c) - 1);
	T_OK(kept_is_fresh(&c));
	gen_turn(&c, 7, 2, 300);
	T_OK(kept_is_fresh(&c));
	conv_replace(&c, cJSON_Parse("[{\"role\":\"user\",\"content\":\"hi\"}]"));
	T_OK(kept_is_fresh(&c));
	conv_release(&c);
}

T_TEST(conv_check_kept_agrees_on_faults)
{
	struct conv c;
	struct buf why = BUF_INIT(4096), whole = BUF_INIT(4096);
	cJSON *uses, *results, *u;

	ids = 0;
	gen_session(&c, 2, 3, 100);
	T_EQ_INT(conv_check(&c, &why), 0);
	/* A tool_use id that an earlier message used: refused, with the whole check's words. */
	conv_add_user_text(&c, "again", 3);
	uses = cJSON_CreateArray();
	results = cJSON_CreateArray();
	tool_round_call(uses, results, "read_file", "{\"path\":\"a\"}", 10, false);
	u = cJSON_GetArrayItem(uses, 0);
	cJSON_ReplaceItemInObjectCaseSensitive(u, "id", cJSON_CreateString("toolu_0001"));
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(results, 0), "tool_use_id",
	    cJSON_CreateString("toolu_0001"));
	conv_add(&c, "assistant", uses, 3);
	T_EQ_INT(conv_check(&c, &why), -1);
	T_EQ_INT(conv_check_messages(c.messages, true, NULL, &whole), -1);
	T_EQ_STR(buf_cstr(&why), buf_cstr(&whole));
	T_CONTAINS(buf_cstr(&why), "repeats the tool_use toolu_0001");
	/* Answered and checked again: still the same fault, now inside what is kept. */
	conv_add(&c, "user", results, 3);
	buf_reset(&why);
	T_EQ_INT(conv_check(&c, &why), -1);
	T_CONTAINS(buf_cstr(&why), "repeats the tool_use toolu_0001");
	/* Two user messages in a row. */
	conv_release(&c);
	ids = 0;
	gen_session(&c, 1, 2, 100);
	T_EQ_INT(conv_check(&c, &why), 0);
	conv_add_user_text(&c, "one", 2);
	conv_add_user_text(&c, "two", 2);
	buf_reset(&why);
	T_EQ_INT(conv_check(&c, &why), -1);
	T_CONTAINS(buf_cstr(&why), "expected assistant");
	conv_release(&c);
	buf_release(&why);
	buf_release(&whole);
}

int
main(void)
{
	T_RUN(estimate_is_json_bytes_over_4);
	T_RUN(plan_follows_the_thresholds);
	T_RUN(micro_elides_old_read_only_results);
	T_RUN(micro_twice_is_a_no_op);
	T_RUN(micro_leaves_small_results_and_errors_flagged);
	T_RUN(collapse_keeps_newest_turns_whole);
	T_RUN(collapse_again_folds_the_old_digest);
	T_RUN(digest_known_without_its_mark);
	T_RUN(collapse_inside_one_long_turn);
	T_RUN(collapse_with_nothing_older);
	T_RUN(summary_request_renders_the_older_part);
	T_RUN(summary_request_is_capped);
	T_RUN(apply_summary_replaces_the_older_part);
	T_RUN(stages_at_their_thresholds);
	T_RUN(micro_skipped_when_the_gain_is_small);
	T_RUN(growing_session_goes_micro_collapse_summary);
	T_RUN(overflow_compacts_hard);
	T_RUN(overflow_errors_are_recognised);
	T_RUN(pairs_never_split);
	T_RUN(hostile_input);
	T_RUN(string_contents);
	T_RUN(digest_lists_are_capped_and_unique);
	T_RUN(conv_keeps_each_message_once);
	T_RUN(conv_check_kept_agrees_on_faults);
	return t_done();
}
