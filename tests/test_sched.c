/*
 * The scheduler with tools of its own: slow reads run in parallel, writes
 * run alone and in order, a failed write skips the rest of the batch,
 * results come back in tool_use order, and every call gets exactly one
 * result, also on interrupt.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ev.h"
#include "exec.h"
#include "json.h"
#include "sched.h"
#include "t.h"

/* With "log", it appends "+tag" there when it starts and "-tag" when it ends. */
static void
slow_read(const struct tool_env *env, const cJSON *in, struct tool_out *out)
{
	const char *log = json_str(in, "log", NULL);
	FILE *f;

	if (log != NULL && (f = fopen(log, "a")) != NULL) {
		fprintf(f, "+%s\n", json_str(in, "tag", ""));
		fclose(f);
	}
	usleep((useconds_t)json_int(in, "ms", 300) * 1000);
	if (log != NULL && (f = fopen(log, "a")) != NULL) {
		fprintf(f, "-%s\n", json_str(in, "tag", ""));
		fclose(f);
	}
	buf_printf(&out->text, "read %s", json_str(in, "tag", ""));
}

/* Appends its tag to a file, so the order of writes is visible on disk. */
static void
append_write(const struct tool_env *env, const cJSON *in, struct tool_out *out)
{
	FILE *f = fopen(json_str(in, "file", "/dev/null"), "a");

	usleep(50000);
	if (json_bool(in, "fail", false)) {
		tool_out_error(out, "write %s failed", json_str(in, "tag", ""));
	} else {
		fprintf(f, "%s\n", json_str(in, "tag", ""));
		buf_printf(&out->text, "wrote %s", json_str(in, "tag", ""));
	}
	fclose(f);
}

static const struct tool_def t_read = {
	.name = "slow_read", .description = "", .schema = "{}", .cls = TOOL_READ_ONLY,
	.run = slow_read
};
static const struct tool_def t_write = {
	.name = "append", .description = "", .schema = "{}", .cls = TOOL_WRITE,
	.run = append_write
};

/*
 * An asynchronous tool (as MCP tools are): answers after "ms" on a loop
 * timer, with an image block; "parallel" in its def lets two run at once.
 */
struct a_job {
	struct ev_loop		*loop;
	uint64_t		 timer;
	tool_async_done_fn	*done;
	void			*arg;
	char			 tag[32];
	int64_t			 t0;
};
static struct ev_loop *a_loop;
static int a_running, a_most;

static void
a_fire(struct ev_loop *loop, void *arg)
{
	struct a_job *j = arg;
	struct tool_out out;

	tool_out_init(&out);
	if (j->timer == 0) {
		tool_out_error(&out, "interrupted");
	} else {
		buf_printf(&out.text, "async %s", j->tag);
		out.blocks = cJSON_Parse("[{\"type\":\"image\",\"source\":{\"type\":\"base64\","
		    "\"media_type\":\"image/png\",\"data\":\"AAAA\"}}]");
	}
	a_running--;
	j->done(j->arg, &out, ev_now_ms() - j->t0);
	tool_out_release(&out);
	free(j);
}

static void *
a_start(const struct tool_def *def, const cJSON *in, const char *id,
    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg)
{
	struct a_job *j = calloc(1, sizeof *j);

	j->loop = a_loop;
	j->done = done;
	j->arg = arg;
	j->t0 = ev_now_ms();
	snprintf(j->tag, sizeof j->tag, "%s", json_str(in, "tag", ""));
	j->timer = ev_timer_add(a_loop, json_int(in, "ms", 300), a_fire, j);
	if (++a_running > a_most)
		a_most = a_running;
	return j;
}

static void
a_cancel(void *job)
{
	struct a_job *j = job;

	ev_timer_cancel(j->loop, j->timer);
	j->timer = 0;
	ev_timer_add(j->loop, 0, a_fire, j);
}

static const struct tool_async a_ops = { a_start, a_cancel };
static const struct tool_def t_async = {
	.name = "async", .description = "", .schema = "{}", .cls = TOOL_HIGH_IMPACT,
	.parallel = true, .async = &a_ops
};
static const struct tool_def t_async_alone = {
	.name = "async_alone", .description = "", .schema = "{}", .cls = TOOL_HIGH_IMPACT,
	.async = &a_ops
};

static const struct tool_def *
find(void *arg, const char *name)
{
	(void)arg;
	if (strcmp(name, "async") == 0)
		return &t_async;
	if (strcmp(name, "async_alone") == 0 || strcmp(name, "proxy") == 0)
		return &t_async_alone;
	return NULL;
}

/* "proxy" calls become calls of the tool they name. */
static int
resolve(void *arg, char **name, cJSON **input, struct buf *why)
{
	const char *target;

	(void)arg;
	if (strcmp(*name, "proxy") != 0)
		return 1;
	target = json_str(*input, "tool", NULL);
	if (target == NULL) {
		buf_puts(why, "the proxy needs a tool");
		return -1;
	}
	free(*name);
	*name = strdup(target);
	return 0;
}

static const struct tool_def *
lookup(const char *name)
{
	if (strcmp(name, "slow_read") == 0)
		return &t_read;
	if (strcmp(name, "append") == 0)
		return &t_write;
	return NULL;
}

struct run {
	struct ev_loop	*loop;
	int		 finished;
	int		 idle;
	bool		 ask;
	char		 order[256];	/* ids in the order they finished */
};

static enum sched_gate
gate(void *arg, struct sched_call *c, struct buf *why)
{
	struct run *r = arg;

	return r->ask && c->tool->cls != TOOL_READ_ONLY ? SCHED_ASK : SCHED_GO;
}

static void
finished(void *arg, struct sched_call *c)
{
	struct run *r = arg;

	r->finished++;
	strncat(r->order, c->id, sizeof r->order - strlen(r->order) - 2);
	strncat(r->order, " ", sizeof r->order - strlen(r->order) - 1);
}

static void
idle(void *arg)
{
	struct run *r = arg;

	r->idle++;
	ev_break(r->loop);
}

static struct sched *
new_sched(struct run *r, const struct tool_env *env)
{
	struct sched_ops ops = { gate, NULL, NULL, finished, idle, r };
	struct sched *s;

	memset(r, 0, sizeof *r);
	r->loop = ev_loop_new();
	s = sched_new(r->loop, env, &ops);
	sched_set_lookup(s, lookup);
	return s;
}

static void
add(struct sched *s, const char *id, const char *name, const char *json)
{
	cJSON *in = cJSON_Parse(json);

	sched_add(s, id, name, in, NULL);
	cJSON_Delete(in);
}

static char file[64];

static const char *
slurp(void)
{
	static char b[256];
	FILE *f = fopen(file, "r");
	size_t n = f ? fread(b, 1, sizeof b - 1, f) : 0;

	b[n] = '\0';
	if (f)
		fclose(f);
	return b;
}

/* Whether call id comes to ask within 10 s (a failed call before it would skip it). */
static bool
wait_for_ask(struct run *r, struct sched *s, const char *id)
{
	int64_t until = ev_now_ms() + 10000;

	while (sched_find(s, id)->state != SCHED_WAITING && ev_now_ms() < until)
		ev_run_once(r->loop, 100);
	return sched_find(s, id)->state == SCHED_WAITING;
}

T_TEST(reads_run_in_parallel)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s;
	char id[8], json[160];
	cJSON *res;
	int i;

	unlink(file);
	s = new_sched(&r, &env);
	for (i = 0; i < 3; i++) {
		snprintf(id, sizeof id, "r%d", i + 1);
		snprintf(json, sizeof json, "{\"ms\":400,\"tag\":\"%c\",\"log\":\"%s\"}",
		    "abc"[i], file);
		add(s, id, "slow_read", json);
	}
	ev_run(r.loop);
	T_EQ_INT(r.finished, 3);
	T_EQ_INT(r.idle, 1);
	/*
	 * All three had started before the first ended (one after another,
	 * each would end before the next starts): told by the order, not by
	 * the time taken, which a loaded machine or valgrind stretches.
	 */
	T_EQ_INT(strspn(slurp(), "+abc\n"), 9);
	res = sched_results(s);
	T_EQ_INT(cJSON_GetArraySize(res), 3);
	T_EQ_STR(json_str(cJSON_GetArrayItem(res, 0), "tool_use_id", ""), "r1");
	T_EQ_STR(json_str(cJSON_GetArrayItem(res, 2), "content", ""), "read c");
	cJSON_Delete(res);
	sched_free(s);
	ev_loop_free(r.loop);
}

T_TEST(writes_alone_in_order)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s;
	char json[160];
	cJSON *res;

	unlink(file);
	s = new_sched(&r, &env);
	/* A slow read, then writes: the first write waits for the read. */
	add(s, "r1", "slow_read", "{\"ms\":200,\"tag\":\"x\"}");
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w1\"}", file);
	add(s, "w1", "append", json);
	add(s, "r2", "slow_read", "{\"ms\":10,\"tag\":\"y\"}");
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w2\"}", file);
	add(s, "w2", "append", json);
	ev_run(r.loop);
	T_EQ_STR(r.order, "r1 w1 r2 w2 ");
	T_EQ_STR(slurp(), "w1\nw2\n");
	res = sched_results(s);
	T_EQ_STR(json_str(cJSON_GetArrayItem(res, 1), "tool_use_id", ""), "w1");
	T_EQ_STR(json_str(cJSON_GetArrayItem(res, 3), "tool_use_id", ""), "w2");
	cJSON_Delete(res);
	sched_free(s);
	ev_loop_free(r.loop);
}

T_TEST(failed_write_skips_the_rest)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s;
	char json[160];
	cJSON *res;

	unlink(file);
	s = new_sched(&r, &env);
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w1\",\"fail\":true}", file);
	add(s, "w1", "append", json);
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w2\"}", file);
	add(s, "w2", "append", json);
	add(s, "r1", "slow_read", "{\"ms\":1}");
	ev_run(r.loop);
	T_EQ_INT(r.finished, 3);
	T_EQ_STR(slurp(), "");
	res = sched_results(s);
	T_OK(json_bool(cJSON_GetArrayItem(res, 0), "is_error", false));
	T_OK(json_bool(cJSON_GetArrayItem(res, 1), "is_error", false));
	T_CONTAINS(json_str(cJSON_GetArrayItem(res, 1), "content", ""), "skipped");
	T_CONTAINS(json_str(cJSON_GetArrayItem(res, 2), "content", ""), "skipped");
	cJSON_Delete(res);
	sched_free(s);
	ev_loop_free(r.loop);
}

static void
interrupt_soon(struct ev_loop *loop, void *arg)
{
	sched_interrupt(arg, "interrupted by the user");
}

T_TEST(interrupt_answers_every_call)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s;
	cJSON *res, *b;
	int64_t t0 = ev_now_ms();

	s = new_sched(&r, &env);
	r.ask = true;
	add(s, "r1", "slow_read", "{\"ms\":5000}");
	add(s, "w1", "append", "{\"file\":\"/dev/null\"}");
	add(s, "w2", "append", "{\"file\":\"/dev/null\"}");
	ev_timer_add(r.loop, 100, interrupt_soon, s);
	ev_run(r.loop);
	T_OK(ev_now_ms() - t0 < 3000);	/* the 5 s read was killed */
	T_EQ_INT(r.finished, 3);
	T_EQ_INT(sched_pending(s), 0);
	T_EQ_INT(exec_alive(), 0);
	res = sched_results(s);
	T_EQ_INT(cJSON_GetArraySize(res), 3);
	cJSON_ArrayForEach(b, res)
		T_OK(json_bool(b, "is_error", false));
	cJSON_Delete(res);
	r.ask = false;
	sched_free(s);
	ev_loop_free(r.loop);
}

T_TEST(approval_then_run)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s;
	char json[160];

	unlink(file);
	s = new_sched(&r, &env);
	r.ask = true;
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w1\"}", file);
	add(s, "w1", "append", json);
	add(s, "w2", "append", json);
	T_EQ_INT(sched_find(s, "w1")->state, SCHED_WAITING);
	T_EQ_INT(sched_find(s, "w2")->state, SCHED_QUEUED);	/* waits for w1 */
	sched_answer(s, "w1", true, NULL, NULL);
	ev_run_once(r.loop, 1000);
	T_OK(wait_for_ask(&r, s, "w2"));
	sched_answer(s, "w2", false, "not that one", NULL);
	ev_run(r.loop);
	T_EQ_STR(slurp(), "w1\n");
	T_OK(sched_find(s, "w2")->denied);
	T_CONTAINS(buf_cstr(&sched_find(s, "w2")->result), "not that one");
	r.ask = false;
	sched_free(s);
	ev_loop_free(r.loop);
}

/*
 * An answer with an edited input: what runs is the edit, and the result
 * starts with the note that the user changed it and how (inputnote.c);
 * an "edit" equal to the proposal adds nothing; a huge change is cut.
 */
T_TEST(edited_input_is_told)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s;
	struct buf big = BUF_INIT(BUF_NOLIMIT);
	char json[512];
	cJSON *ed;
	const char *res;
	int i;

	unlink(file);
	s = new_sched(&r, &env);
	r.ask = true;
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w1\",\"text\":\"a\\nb\\nc\\n\"}", file);
	add(s, "w1", "append", json);
	add(s, "w2", "append", json);
	add(s, "w3", "append", json);
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"USER\",\"text\":\"a\\nB\\nc\\n\"}", file);
	ed = cJSON_Parse(json);
	sched_answer(s, "w1", true, NULL, ed);
	cJSON_Delete(ed);
	T_OK(wait_for_ask(&r, s, "w2"));
	T_EQ_STR(slurp(), "USER\n");
	res = buf_cstr(&sched_find(s, "w1")->result);
	T_OK(strncmp(res, "The user changed this call before it ran", 40) == 0);
	T_CONTAINS(res, "\"tag\": you sent \"w1\"; what ran: \"USER\"");
	T_CONTAINS(res, "--- text (yours)\n+++ text (what ran)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c");
	T_CONTAINS(res, "\n\nwrote USER");
	/* the same input given back (as SDK hosts do): no note */
	snprintf(json, sizeof json, "{\"file\":\"%s\",\"tag\":\"w1\",\"text\":\"a\\nb\\nc\\n\"}", file);
	ed = cJSON_Parse(json);
	sched_answer(s, "w2", true, NULL, ed);
	cJSON_Delete(ed);
	T_OK(wait_for_ask(&r, s, "w3"));
	T_EQ_STR(buf_cstr(&sched_find(s, "w2")->result), "wrote w1");
	/* a long change: the note is cut at INPUTNOTE_MAX and says how much is left */
	for (i = 0; i < 3000; i++)
		buf_printf(&big, "line %d\n", i);
	ed = cJSON_Parse(json);
	cJSON_DeleteItemFromObject(ed, "text");
	cJSON_AddStringToObject(ed, "text", buf_cstr(&big));
	sched_answer(s, "w3", true, NULL, ed);
	cJSON_Delete(ed);
	ev_run(r.loop);
	res = buf_cstr(&sched_find(s, "w3")->result);
	T_OK(strlen(res) < 8 * 1024 + 200);
	T_CONTAINS(res, "more bytes of the change are not shown");
	T_CONTAINS(res, "\n\nwrote w1");
	buf_release(&big);
	r.ask = false;
	sched_free(s);
	ev_loop_free(r.loop);
}

T_TEST(async_tools_run_on_the_loop)
{
	struct tool_env env = { .root = "/" };
	struct run r;
	struct sched *s = new_sched(&r, &env);
	const cJSON *b;
	cJSON *res, *content;
	int64_t t0;

	a_loop = r.loop;
	sched_set_finder(s, find, resolve, NULL);
	a_most = a_running = 0;
	t0 = ev_now_ms();
	add(s, "a1", "async", "{\"ms\":300,\"tag\":\"x\"}");
	add(s, "a2", "async", "{\"ms\":300,\"tag\":\"y\"}");
	add(s, "a3", "async_alone", "{\"ms\":100,\"tag\":\"z\"}");
	add(s, "a4", "proxy", "{\"tool\":\"async\",\"tag\":\"p\",\"ms\":10}");
	add(s, "a5", "proxy", "{}");
	ev_run(r.loop);
	T_EQ_INT(r.finished, 5);
	/* Parallel by hint, never beside the one that runs alone. */
	T_EQ_INT(a_most, 2);
	T_OK(ev_now_ms() - t0 < 1000);
	T_EQ_STR(r.order, "a5 a1 a2 a3 a4 ");
	res = sched_results(s);
	b = cJSON_GetArrayItem(res, 0);
	content = json_get(b, "content");
	T_OK(cJSON_IsArray(content));
	T_EQ_STR(json_str(cJSON_GetArrayItem(content, 0), "text", ""), "async x");
	T_EQ_STR(json_str(cJSON_GetArrayItem(content, 1), "type", ""), "image");
	{
		char *p = cJSON_PrintUnformatted(json_get(cJSON_GetArrayItem(res, 3), "content"));

		T_OK(strstr(p, "async p") != NULL);
		free(p);
	}
	T_OK(json_bool(cJSON_GetArrayItem(res, 4), "is_error", false));
	cJSON_Delete(res);
	sched_reset(s);
	/* An interrupt cancels a running async call; it still gets one result. */
	add(s, "i1", "async", "{\"ms\":5000}");
	sched_interrupt(s, "interrupted");
	t0 = ev_now_ms();
	ev_run(r.loop);
	T_OK(ev_now_ms() - t0 < 1000);
	T_EQ_INT(sched_pending(s), 0);
	T_EQ_INT(a_running, 0);
	sched_free(s);
	ev_loop_free(r.loop);
}

int
main(void)
{
	snprintf(file, sizeof file, "/tmp/tandem-sched-%ld", (long)getpid());
	T_RUN(reads_run_in_parallel);
	T_RUN(writes_alone_in_order);
	T_RUN(failed_write_skips_the_rest);
	T_RUN(interrupt_answers_every_call);
	T_RUN(approval_then_run);
	T_RUN(edited_input_is_told);
	T_RUN(async_tools_run_on_the_loop);
	unlink(file);
	return t_done();
}
