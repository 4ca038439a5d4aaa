/*
 * grep_bench: run the grep tool once, in process, the way the agent's
 * child does, and print its result; bench/grep_bench.sh times it.
 *
 *	grep_bench ROOT INPUT_JSON [RUNS]
 *
 * With RUNS > 1 the tool runs that many times and the median wall time of
 * one run is printed to stderr (in milliseconds), free of process start-up.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "tool.h"
#include "xalloc.h"

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct tool_env env = { .root = NULL };
	struct tool_out out;
	double *ms;
	cJSON *input;
	char *root, *end;
	long runs = 1, i;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: grep_bench ROOT INPUT_JSON [RUNS]\n");
		return 2;
	}
	if (argc == 4) {
		errno = 0;
		runs = strtol(argv[3], &end, 10);
		if (errno != 0 || *end != '\0' || runs < 1 || runs > 1000) {
			fprintf(stderr, "grep_bench: RUNS must be 1 to 1000\n");
			return 2;
		}
	}
	root = realpath(argv[1], NULL);
	input = cJSON_Parse(argv[2]);
	if (root == NULL || input == NULL) {
		fprintf(stderr, "grep_bench: bad root or JSON\n");
		return 2;
	}
	env.root = root;
	ms = xcalloc((size_t)runs, sizeof *ms);
	tool_out_init(&out);
	for (i = 0; i < runs; i++) {
		double t0 = bench_now();

		tool_out_release(&out);
		tool_out_init(&out);
		tool_grep.run(&env, input, &out);
		ms[i] = bench_now() - t0;
	}
	fwrite(out.text.data ? out.text.data : "", 1, out.text.len, stdout);
	if (runs > 1) {
		qsort(ms, (size_t)runs, sizeof *ms, bench_cmp);
		fprintf(stderr, "%.2f\n", ms[runs / 2]);
	}
	tool_out_release(&out);
	cJSON_Delete(input);
	free(ms);
	free(root);
	return out.is_error ? 1 : 0;
}
