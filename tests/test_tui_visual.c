/*
 * Tests for tui/visual.c: $VISUAL run as a child on the loop.  The loop
 * keeps turning while the editor runs (a timer fires meanwhile), the
 * wait status arrives in done, a stopped editor calls nothing, and a
 * command that cannot be built is refused with a sentence.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ev.h"
#include "t.h"
#include "visual.h"
#include "xalloc.h"

struct seen {
	int	 calls, status, ticks;
};

static void
done(int status, void *arg)
{
	struct seen *s = arg;

	s->calls++;
	s->status = status;
}

static void
tick(struct ev_loop *loop, void *arg)
{
	struct seen *s = arg;

	s->ticks++;
	ev_timer_add(loop, 20, tick, s);
}

/* Turn the loop until done was called or ms passed. */
static void
run_until(struct ev_loop *loop, const struct seen *s, int ms)
{
	int64_t end = ev_now_ms() + ms;

	while (s->calls == 0 && ev_now_ms() < end)
		ev_run_once(loop, 50);
}

static char *
tmpfile_with(const char *text)
{
	char *path = xstrdup("/tmp/tandem-visual-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

T_TEST(the_editor_runs_on_the_loop_and_changes_the_file)
{
	struct ev_loop *loop = ev_loop_new();
	struct visual v = { 0 };
	struct seen s = { 0 };
	char err[256] = "", *path = tmpfile_with("hello\n"), got[64] = "";
	FILE *f;

	setenv("VISUAL", "sleep 0.3; sed -i s/hello/EDITED/", 1);
	ev_timer_add(loop, 20, tick, &s);
	T_EQ_INT(visual_start(&v, loop, path, done, &s, err, sizeof err), 0);
	T_OK(visual_running(&v));
	run_until(loop, &s, 5000);
	T_EQ_INT(s.calls, 1);
	T_OK(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0);
	/* 300 ms of editor at a 20 ms timer: the loop went on meanwhile. */
	T_OK(s.ticks >= 5);
	T_OK(!visual_running(&v));
	f = fopen(path, "r");
	T_OK(f != NULL && fgets(got, sizeof got, f) != NULL);
	T_EQ_STR(got, "EDITED\n");
	if (f != NULL)
		fclose(f);
	unlink(path);
	free(path);
	ev_loop_free(loop);
}

T_TEST(the_wait_status_is_the_editors)
{
	struct ev_loop *loop = ev_loop_new();
	struct visual v = { 0 };
	struct seen s = { 0 };
	char err[256] = "", *path = tmpfile_with("x");

	setenv("VISUAL", "exit 3; :", 1);
	T_EQ_INT(visual_start(&v, loop, path, done, &s, err, sizeof err), 0);
	run_until(loop, &s, 5000);
	T_EQ_INT(s.calls, 1);
	T_OK(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 3);
	unlink(path);
	free(path);
	ev_loop_free(loop);
}

T_TEST(editor_falls_back_from_visual)
{
	struct ev_loop *loop = ev_loop_new();
	struct visual v = { 0 };
	struct seen s = { 0 };
	char err[256] = "", *path = tmpfile_with("x");

	unsetenv("VISUAL");
	setenv("EDITOR", "exit 4; :", 1);
	T_EQ_INT(visual_start(&v, loop, path, done, &s, err, sizeof err), 0);
	run_until(loop, &s, 5000);
	T_OK(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 4);
	unsetenv("EDITOR");
	unlink(path);
	free(path);
	ev_loop_free(loop);
}

T_TEST(one_editor_at_a_time_and_a_stopped_one_calls_nothing)
{
	struct ev_loop *loop = ev_loop_new();
	struct visual v = { 0 };
	struct seen s = { 0 };
	char err[256] = "", *path = tmpfile_with("x");
	pid_t pid;

	/* the editor says when it runs: it is stopped as an editor, not while it starts */
	setenv("VISUAL", "echo up >\"$1.up\"; sleep 30; :", 1);
	T_EQ_INT(visual_start(&v, loop, path, done, &s, err, sizeof err), 0);
	pid = v.pid;
	T_EQ_INT(visual_start(&v, loop, path, done, &s, err, sizeof err), -1);
	T_EQ_STR(err, "an editor is already open");
	{
		char up[4200];
		int i;

		snprintf(up, sizeof up, "%s.up", path);
		for (i = 0; i < 500 && access(up, F_OK) != 0; i++)
			usleep(20000);
		T_OK(access(up, F_OK) == 0);
		unlink(up);
	}
	visual_stop(&v);
	T_OK(!visual_running(&v));
	/* The editor's whole group got SIGTERM; it is gone within a moment. */
	{
		int st = 0, i;
		pid_t r = 0;

		for (i = 0; i < 100 && r == 0; i++) {
			r = waitpid(pid, &st, WNOHANG);
			if (r == 0)
				usleep(20000);
		}
		T_OK(r == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	}
	ev_run_once(loop, 50);
	T_EQ_INT(s.calls, 0);
	unlink(path);
	free(path);
	ev_loop_free(loop);
}

T_TEST(a_command_too_long_is_refused)
{
	struct ev_loop *loop = ev_loop_new();
	struct visual v = { 0 };
	struct seen s = { 0 };
	char err[256] = "", big[2048];

	memset(big, 'e', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	setenv("VISUAL", big, 1);
	T_EQ_INT(visual_start(&v, loop, "/nonexistent", done, &s, err, sizeof err), -1);
	T_EQ_STR(err, "the editor's command is too long");
	T_OK(!visual_running(&v));
	ev_loop_free(loop);
}

int
main(void)
{
	T_RUN(the_editor_runs_on_the_loop_and_changes_the_file);
	T_RUN(the_wait_status_is_the_editors);
	T_RUN(editor_falls_back_from_visual);
	T_RUN(one_editor_at_a_time_and_a_stopped_one_calls_nothing);
	T_RUN(a_command_too_long_is_refused);
	return t_done();
}
