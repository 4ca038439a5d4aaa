/*
 * jail_bench: what the command sandbox adds to starting a command.  Runs
 * `/bin/true` (and `bash -c true`) through proc_spawn N times unconfined
 * and N times through jail_enter (workspace-write, network off), waits
 * for each, and prints the median and the 90th percentile of each, and the
 * difference: the sandbox's start-up cost (budget: under 5 ms).
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
#include "jail.h"
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

static int
bench_case(const char *name, const char *const *argv, struct jail *j, const char *dir, int runs,
    double *median)
{
	double *t = calloc((size_t)runs, sizeof *t);
	int i;

	if (t == NULL)
		return -1;
	for (i = 0; i < runs; i++)
		if ((t[i] = bench_once(argv, j, dir)) < 0) {
			free(t);
			return -1;
		}
	qsort(t, (size_t)runs, sizeof *t, bench_cmp);
	*median = t[runs / 2];
	printf("%-34s median %7.3f ms   p90 %7.3f ms   min %7.3f ms\n", name, t[runs / 2],
	    t[runs * 9 / 10], t[0]);
	free(t);
	return 0;
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
	double plain, jailed, bplain, bjailed;
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
	if (bench_case("/bin/true, unconfined", true_argv, NULL, dir, (int)runs, &plain) == 0 &&
	    bench_case("/bin/true, sandboxed", true_argv, j, dir, (int)runs, &jailed) == 0 &&
	    bench_case("bash -c true, unconfined", bash_argv, NULL, dir, (int)runs, &bplain) == 0 &&
	    bench_case("bash -c true, sandboxed", bash_argv, j, dir, (int)runs, &bjailed) == 0) {
		printf("the sandbox adds %.3f ms to /bin/true and %.3f ms to bash -c true "
		    "(median; budget 5 ms): %s\n", jailed - plain, bjailed - bplain,
		    jailed - plain < 5.0 && bjailed - bplain < 5.0 ? "within" : "OVER");
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
