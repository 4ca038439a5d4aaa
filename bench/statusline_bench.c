/*
 * statusline_bench: keypress to screen while a status line command runs
 * (tui/statusline.c), against the same keys without one.  The real tandem
 * runs in a 100x30 pseudo-terminal with a private home whose settings say
 * statusLine {"command": "sleep 5"}; keys are typed while the command
 * sleeps (it is killed at 3 s), and each key's time from its write to the
 * first byte of the redraw is taken.
 *
 *	statusline_bench TANDEM_BINARY WORKDIR
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEYS	100

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Read whatever comes until the screen has been quiet for quiet_ms. */
static void
settle(int fd, int quiet_ms)
{
	char buf[65536];
	struct pollfd p = { fd, POLLIN, 0 };

	while (poll(&p, 1, quiet_ms) > 0)
		if (read(fd, buf, sizeof buf) <= 0)
			return;
}

static pid_t
start(const char *tandem, const char *home, int *fdp)
{
	struct winsize ws = { 30, 100, 0, 0 };
	char *slave, env[3][1200];
	int fd, sfd;
	pid_t pid;

	fd = posix_openpt(O_RDWR | O_NOCTTY);
	if (fd == -1 || grantpt(fd) == -1 || unlockpt(fd) == -1 || (slave = ptsname(fd)) == NULL)
		return -1;
	ioctl(fd, TIOCSWINSZ, &ws);
	snprintf(env[0], sizeof env[0], "%s/state", home);
	snprintf(env[1], sizeof env[1], "%s/config", home);
	snprintf(env[2], sizeof env[2], "%s/ws", home);
	pid = fork();
	if (pid == 0) {
		setsid();
		if ((sfd = open(slave, O_RDWR)) == -1)
			_exit(126);
		ioctl(sfd, TIOCSCTTY, 0);
		dup2(sfd, 0);
		dup2(sfd, 1);
		dup2(sfd, 2);
		if (sfd > 2)
			close(sfd);
		setenv("TERM", "xterm-256color", 1);
		setenv("LANG", "C.UTF-8", 1);
		setenv("TANDEM_HOME", env[0], 1);
		setenv("XDG_STATE_HOME", env[0], 1);
		setenv("XDG_CONFIG_HOME", env[1], 1);
		setenv("HOME", home, 1);
		setenv("ANTHROPIC_API_KEY", "bench-key", 1);
		setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1", 1);
		if (chdir(env[2]) == -1)
			_exit(125);
		execl(tandem, tandem, (char *)NULL);
		_exit(127);
	}
	*fdp = fd;
	return pid;
}

static void
write_settings(const char *home, const char *command)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof path, "%s/config/tandem/settings.json", home);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	if (command != NULL)
		fprintf(f, "{\"statusLine\": {\"type\": \"command\", \"command\": \"%s\"}}\n", command);
	else
		fputs("{}\n", f);
	fclose(f);
}

/* KEYS keys, 20 ms apart, from 400 ms after the first frame: while the command sleeps. */
static void
run(const char *tandem, const char *home, const char *command)
{
	double lat[KEYS], t0, started;
	int fd, i, status;
	pid_t pid;

	write_settings(home, command);
	if ((pid = start(tandem, home, &fd)) == -1)
		exit(1);
	settle(fd, 200);
	started = now_ms();
	for (i = 0; i < KEYS; i++) {
		struct pollfd p = { fd, POLLIN, 0 };

		settle(fd, 15);
		t0 = now_ms();
		(void)!write(fd, i % 2 ? "\x7f" : "x", 1);
		poll(&p, 1, 5000);
		lat[i] = now_ms() - t0;
	}
	started = (now_ms() - started) / 1000.0;
	qsort(lat, KEYS, sizeof *lat, cmp_double);
	printf("%-22s keypress to screen: %.2f ms median, %.2f ms p95, %.2f ms max "
	    "(%d keys in %.1f s)\n", command != NULL ? command : "no status line", lat[KEYS / 2],
	    lat[KEYS * 95 / 100], lat[KEYS - 1], KEYS, started);
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	close(fd);
}

int
main(int argc, char **argv)
{
	char dir[1200], *tandem;

	if (argc != 3) {
		fputs("usage: statusline_bench TANDEM_BINARY WORKDIR\n", stderr);
		return 2;
	}
	snprintf(dir, sizeof dir, "%s/config", argv[2]);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/config/tandem", argv[2]);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/ws", argv[2]);
	mkdir(dir, 0700);
	if ((tandem = realpath(argv[1], NULL)) == NULL) {
		perror(argv[1]);
		return 1;
	}
	run(tandem, argv[2], NULL);
	run(tandem, argv[2], "sleep 5");
	run(tandem, argv[2], "echo fast");
	free(tandem);
	return 0;
}
