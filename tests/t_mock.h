/*
 * t_mock.h: the mock model server in a child of a unit test, as tandem
 * --demo runs it: listening in the parent (so the port is known before
 * the child runs), serving in the child, stopped when the parent closes
 * the pipe.  Include mock/mock.h first.
 */
#ifndef TANDEM_T_MOCK_H
#define TANDEM_T_MOCK_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child serving scenario, its port in *port and the pipe that stops it in *stop_w; -1 on failure. */
static pid_t
t_mock_start(const char *scenario, int *port, int *stop_w)
{
	struct mock_opts o;
	struct mock *m;
	char err[256];
	int pfd[2];
	pid_t pid;

	if (pipe(pfd) == -1)
		return -1;
	mock_opts_init(&o);
	o.scenario_text = scenario;
	o.idle_timeout_ms = 0;
	o.stop_fd = pfd[0];
	m = mock_new(&o, err, sizeof err);
	if (m == NULL || mock_listen(m, port, err, sizeof err) == -1) {
		printf("# %s\n", err);
		mock_free(m);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int rc;

		close(pfd[1]);
		rc = mock_run(m);
		mock_free(m);
		_exit(rc == 0 ? 0 : 1);
	}
	mock_free(m);
	close(pfd[0]);
	*stop_w = pfd[1];
	return pid;
}

/* Stop the child and reap it: its exit status (128 + the signal that killed it), or -1. */
static int
t_mock_stop(pid_t pid, int stop_w)
{
	int status = -1;

	close(stop_w);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
