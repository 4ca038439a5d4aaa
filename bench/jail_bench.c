/*
 * jail_bench: what the command sandbox adds to starting a command.  Runs
 * `/bin/true` (and `bash -c true`) through proc_spawn N times unconfined
 * and N times through jail_enter (workspace-write, network off), the four
 * cases in turn, waits for each, and prints the median and the 90th
 * percentile of each, and the differences of the medians and of the
 * fastest runs: the sandbox's start-up cost (budget: under 5 ms).
 *
 *	jail_bench [RUNS] [WORKSPACE]
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "jail/jail.h"
#include "proc.h"

static double
bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One spawn-to-reaped time, or -1. */
static double
bench_once(const char *const *argv, struct jail *j, const char *dir)
{
	struct proc_spec spec = {
		.argv = argv, .dir = dir, .in = PROC_IO_NULL, .out = PROC_IO_NULL,
		.err = PROC_IO_NULL, .redact_env = true,
	};
	struct buf err = BUF_INIT(1024);
	struct proc p;
	double t0 = bench_now_ms();
	int st;

	if (j != NULL) {
		spec.pre_exec = jail_enter;
		spec.arg = j;
		spec.env_set = jail_env_set();
		spec.env_unset = jail_env_unset();
	}
	if (proc_spawn(&spec, &p, &err) == -1) {
		fprintf(stderr, "jail_bench: %s\n", buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	while (waitpid(p.pid, &st, 0) == -1 && errno == EINTR)
		;
	proc_forget(p.pid);
	buf_release(&err);
	return bench_now_ms() - t0;
}

/* One case's times, sorted: its line, and its median and minimum for the differences. */
static void
bench_report(const char *name, double *t, int runs, double *median, double *min)
{
	qsort(t, (size_t)runs, sizeof *t, bench_cmp);
	*median = t[runs / 2];
	*min = t[0];
	printf("%-34s median %7.3f ms   p90 %7.3f ms   min %7.3f ms\n", name, t[runs / 2],
	    t[runs * 9 / 10], t[0]);
}

/*
 * The four cases taken in turn, run after run, so that a load that comes
 * and goes on the machine weighs on each alike.
 */
static int
bench_all(const char *const *argv[2], struct jail *j, const char *dir, int runs,
    double med[4], double min[4])
{
	static const char *const names[4] = {
		"/bin/true, unconfined", "/bin/true, sandboxed", "bash -c true, unconfined",
		"bash -c true, sandboxed",
	};
	double *t[4];
	int i, c, rc = -1;

	for (c = 0; c < 4; c++)
		t[c] = calloc((size_t)runs, sizeof **t);
	for (c = 0; c < 4; c++)
		if (t[c] == NULL)
			goto out;
	for (i = 0; i < runs; i++)
		for (c = 0; c < 4; c++)
			if ((t[c][i] = bench_once(argv[c / 2], c % 2 ? j : NULL, dir)) < 0)
				goto out;
	for (c = 0; c < 4; c++)
		bench_report(names[c], t[c], runs, &med[c], &min[c]);
	rc = 0;
out:
	for (c = 0; c < 4; c++)
		free(t[c]);
	return rc;
}

int
main(int argc, char **argv)
{
	static const char *const true_argv[] = { "/bin/true", NULL };
	static const char *const bash_argv[] = { "/bin/bash", "-c", "true", NULL };
	struct jail_config cfg;
	struct buf err = BUF_INIT(1024);
	const char *dir;
	char *end, cwd[4096];
	long runs = 200;
	const char *const *argvs[2] = { true_argv, bash_argv };
	double med[4], min[4];
	struct jail *j;
	int rc = 1;

	if (argc > 1) {
		errno = 0;
		runs = strtol(argv[1], &end, 10);
		if (errno != 0 || *end != '\0' || runs < 10 || runs > 100000) {
			fprintf(stderr, "jail_bench: RUNS must be a number from 10 to 100000\n");
			return 2;
		}
	}
	dir = argc > 2 ? argv[2] : getcwd(cwd, sizeof cwd);
	memset(&cfg, 0, sizeof cfg);
	if (jail_config_flag(&cfg, "mode", "workspace-write", &err) == -1)
		goto out;
	j = jail_new(&cfg, true, dir, getenv("HOME"));
	if (!jail_usable(j)) {
		fprintf(stderr, "jail_bench: the sandbox cannot run here: %s\n", jail_unusable(j));
		jail_free(j);
		goto out;
	}
	printf("jail_bench: %ld runs each, workspace %s, Landlock ABI %d\n", runs, dir,
	    jail_landlock_abi(j));
	if (bench_all(argvs, j, dir, (int)runs, med, min) == 0) {
		printf("the sandbox adds %.3f ms to /bin/true and %.3f ms to bash -c true "
		    "(median; budget 5 ms): %s\n", med[1] - med[0], med[3] - med[2],
		    med[1] - med[0] < 5.0 && med[3] - med[2] < 5.0 ? "within" : "OVER");
		printf("at the least: %.3f ms and %.3f ms (the fastest runs, which a load "
		    "disturbs least)\n", min[1] - min[0], min[3] - min[2]);
		rc = 0;
	}
	jail_free(j);
out:
	if (err.len > 0)
		fprintf(stderr, "jail_bench: %s\n", buf_cstr(&err));
	jail_config_release(&cfg);
	buf_release(&err);
	return rc;
}
