/*
 * Tests for agent/forksrv: the file tools run in children of one fork
 * server, not in a fork of tandem each, and see what tandem holds now:
 * the file a call wrote, a deny rule added after the server started, a
 * workspace root changed in place.  A call's child is killed on demand;
 * a server killed from outside fails its calls and the next call gets a
 * new one; nothing of it is left once tandem lets go.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "ev.h"
#include "exec.h"
#include "forksrv/forksrv.h"
#include "json.h"
#include "proc.h"
#include "rules/perm.h"
#include "sandbox.h"
#include "t.h"
#include "tool.h"
#include "xalloc.h"

static struct ev_loop *loop;
static char root[64], root2[64];

struct res {
	bool		 done;
	bool		 is_error;
	struct buf	 text;
	int		 status;
};

static void
on_done(void *arg, struct tool_out *out, int64_t ms)
{
	struct res *r = arg;

	(void)ms;
	r->done = true;
	r->is_error = out->is_error;
	buf_puts(&r->text, buf_cstr(&out->text));
	ev_break(loop);
}

static void
wait_done(bool *done)
{
	int64_t until = ev_now_ms() + 10000;

	while (!*done && ev_now_ms() < until)
		ev_run_once(loop, 100);
}

/*
 * Run tool on input (JSON text) through exec_start; r gets the result.
 * Served, the call has no keeper of its own: the children tandem has are
 * the server's keeper, and the one it replaces (replaced: 1) until reaped.
 */
static void
run_in(const struct tool_def *tool, const char *input, const struct tool_env *env,
    struct res *r, int replaced)
{
	cJSON *in = cJSON_Parse(input);
	int64_t until = ev_now_ms() + 5000;

	memset(r, 0, sizeof *r);
	buf_init(&r->text, BUF_NOLIMIT);
	exec_start(loop, tool, in, env, "t1", NULL, on_done, r);
	T_EQ_INT(proc_alive(), 1 + replaced);
	wait_done(&r->done);
	T_OK(r->done);
	while (proc_alive() > 1 && ev_now_ms() < until)
		ev_run_once(loop, 50);
	T_EQ_INT(proc_alive(), 1);
	cJSON_Delete(in);
}

static void
run(const struct tool_def *tool, const char *input, const struct tool_env *env, struct res *r)
{
	run_in(tool, input, env, r, 0);
}

static void
put(const char *dir, const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static bool
policy_denied(void *arg, enum sandbox_access access, const char *path)
{
	return perm_path_denied(arg, access, path);
}

T_TEST(tools_see_what_tandem_holds_now)
{
	struct perm_rules *rules = perm_rules_new();
	struct sandbox_policy policy = { policy_denied, rules };
	struct tool_env env = { .root = root, .policy = &policy };
	struct buf err = BUF_INIT(1024);
	struct res r;

	perm_rules_set_root(rules, root);
	put(root, "a.txt", "alpha\n");
	put(root, "secret.txt", "hidden\n");
	put(root2, "a.txt", "beta\n");
	run(&tool_read_file, "{\"path\":\"a.txt\"}", &env, &r);
	T_CONTAINS(buf_cstr(&r.text), "alpha");
	buf_release(&r.text);
	/* A file a call writes, the next call reads. */
	run(&tool_write_file, "{\"path\":\"b.txt\",\"content\":\"written\\n\"}", &env, &r);
	T_OK(!r.is_error);
	buf_release(&r.text);
	run(&tool_read_file, "{\"path\":\"b.txt\"}", &env, &r);
	T_CONTAINS(buf_cstr(&r.text), "written");
	buf_release(&r.text);
	/* A deny rule added after the server started holds. */
	run(&tool_read_file, "{\"path\":\"secret.txt\"}", &env, &r);
	T_CONTAINS(buf_cstr(&r.text), "hidden");
	buf_release(&r.text);
	T_OK(perm_rules_add(rules, PERM_LIST_DENY, "Read(secret.txt)", &err) == 0);
	run_in(&tool_read_file, "{\"path\":\"secret.txt\"}", &env, &r, 1);
	T_OK(r.is_error);
	T_OK(strstr(buf_cstr(&r.text), "hidden") == NULL);
	buf_release(&r.text);
	/* The root changed in place (the same struct): the new one is read. */
	env.root = root2;
	perm_rules_set_root(rules, root2);
	run_in(&tool_read_file, "{\"path\":\"a.txt\"}", &env, &r, 1);
	T_CONTAINS(buf_cstr(&r.text), "beta");
	buf_release(&r.text);
	perm_rules_free(rules);
	buf_release(&err);
}

/* A call's child that takes its time (forksrv_call's run). */
static void
sleepy(const struct tool_def *tool, const cJSON *input, const struct tool_env *env, int fd)
{
	(void)tool;
	(void)input;
	(void)env;
	(void)fd;
	sleep(30);
	_exit(0);
}

struct ended {
	bool	done;
	int	status;
};

static void
on_exit_call(struct ev_loop *l, int call, int status, void *arg)
{
	struct ended *e = arg;

	(void)l;
	(void)call;
	e->done = true;
	e->status = status;
}

/* The keeper of the server: tandem's one child. */
static pid_t
server_keeper(void)
{
	char path[64], line[256];
	FILE *f;
	long pid = 0;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(line, sizeof line, f) != NULL)
		pid = strtol(line, NULL, 10);
	fclose(f);
	return (pid_t)pid;
}

T_TEST(a_call_is_killed_and_a_dead_server_replaced)
{
	struct tool_env env = { .root = root };
	struct ended e = { false, 0 }, e2 = { false, 0 };
	cJSON *in = cJSON_Parse("{\"path\":\"a.txt\"}");
	int fd = -1, id;
	int64_t t0;
	pid_t keeper;
	struct res r;

	id = forksrv_call(loop, &tool_read_file, in, &env, sleepy, on_exit_call, &e, &fd);
	T_OK(id > 0 && fd >= 0);
	t0 = ev_now_ms();
	forksrv_kill(id, SIGKILL);
	wait_done(&e.done);
	T_OK(e.done && WIFSIGNALED(e.status) && WTERMSIG(e.status) == SIGKILL);
	T_OK(ev_now_ms() - t0 < 5000);
	close(fd);
	/*
	 * The server of the test before, replaced by this one, is reaped
	 * first: its keeper must not be the child taken for this one's (it
	 * can take a while to end, under valgrind).
	 */
	t0 = ev_now_ms();
	while (proc_alive() > 1 && ev_now_ms() - t0 < 10000)
		ev_run_once(loop, 50);
	T_EQ_INT(proc_alive(), 1);
	/* Its keeper killed from outside: the call in it fails, the next call works. */
	id = forksrv_call(loop, &tool_read_file, in, &env, sleepy, on_exit_call, &e2, &fd);
	T_OK(id > 0);
	keeper = server_keeper();
	T_OK(keeper > 0 && kill(keeper, SIGKILL) == 0);
	wait_done(&e2.done);
	T_OK(e2.done && WIFSIGNALED(e2.status));
	close(fd);
	run(&tool_read_file, "{\"path\":\"a.txt\"}", &env, &r);
	T_CONTAINS(buf_cstr(&r.text), "alpha");
	buf_release(&r.text);
	cJSON_Delete(in);
}

T_TEST(other_tools_are_not_served)
{
	struct tool_env env = { .root = root };
	cJSON *in = cJSON_Parse("{\"command\":\"true\"}");
	struct ended e = { false, 0 };
	int fd = -1;

	T_EQ_INT(forksrv_call(loop, &tool_run_bash, in, &env, sleepy, on_exit_call, &e, &fd), 0);
	T_EQ_INT(fd, -1);
	cJSON_Delete(in);
}

int
main(void)
{
	char tmpl[] = "/tmp/test_forksrv.XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (dir == NULL)
		return 1;
	snprintf(root, sizeof root, "%s/w1", dir);
	snprintf(root2, sizeof root2, "%s/w2", dir);
	mkdir(root, 0700);
	mkdir(root2, 0700);
	loop = ev_loop_new();
	T_RUN(tools_see_what_tandem_holds_now);
	T_RUN(a_call_is_killed_and_a_dead_server_replaced);
	T_RUN(other_tools_are_not_served);
	ev_loop_free(loop);
	{
		char cmd[128];

		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return t_done();
}
