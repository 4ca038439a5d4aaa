/*
 * t.h: a tiny TAP test harness for tandem's unit tests.
 *
 *	T_TEST(name) { ... T_OK(cond); T_EQ_STR(a, b); T_EQ_INT(a, b); ... }
 *	int main(void) { T_RUN(name); ...; return t_done(); }
 *
 * Each test case is one TAP line ("ok 3 - name"); a failed check prints
 * where and why as a TAP comment and fails its case.  automake's
 * tap-driver.sh counts the cases, so `make check` reports every case.
 */
#ifndef TANDEM_T_H
#define TANDEM_T_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int t_count, t_failed_cases, t_case_failed;

#define T_TEST(name) static void t_##name(void)

#define T_RUN(name) do {						\
	t_case_failed = 0;						\
	t_##name();							\
	t_count++;							\
	if (t_case_failed)						\
		t_failed_cases++;					\
	printf("%s %d - %s\n", t_case_failed ? "not ok" : "ok",	\
	    t_count, #name);						\
	fflush(stdout);							\
} while (0)

#define T_FAIL(...) do {						\
	printf("# %s:%d: ", __FILE__, __LINE__);			\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	t_case_failed = 1;						\
} while (0)

#define T_OK(cond) do {							\
	if (!(cond))							\
		T_FAIL("check failed: %s", #cond);			\
} while (0)

#define T_EQ_INT(a, b) do {						\
	long long t_a = (long long)(a), t_b = (long long)(b);		\
	if (t_a != t_b)							\
		T_FAIL("%s == %lld, expected %lld", #a, t_a, t_b);	\
} while (0)

#define T_EQ_STR(a, b) do {						\
	const char *t_a = (a), *t_b = (b);				\
	if (t_a == NULL || t_b == NULL || strcmp(t_a, t_b) != 0)	\
		T_FAIL("%s == \"%s\", expected \"%s\"", #a,		\
		    t_a ? t_a : "(null)", t_b ? t_b : "(null)");	\
} while (0)

#define T_CONTAINS(hay, needle) do {					\
	const char *t_h = (hay), *t_n = (needle);			\
	if (t_h == NULL || strstr(t_h, t_n) == NULL)			\
		T_FAIL("%s does not contain \"%s\": \"%.300s\"", #hay,	\
		    t_n, t_h ? t_h : "(null)");				\
} while (0)

static inline int
t_done(void)
{
	printf("1..%d\n", t_count);
	return t_failed_cases ? 1 : 0;
}

/* Is this test running under valgrind (its preloaded core)? */
static int __attribute__((unused))
t_under_valgrind(void)
{
	const char *pre = getenv("LD_PRELOAD");

	return pre != NULL && strstr(pre, "valgrind") != NULL;
}

/* Time budgets stretch under valgrind, which runs code some 50 times slower. */
static double __attribute__((unused))
t_slack(void)
{
	return t_under_valgrind() ? 100.0 : 1.0;
}

/*
 * Seconds of this process's CPU time: for a bound on the work an
 * algorithm does, which other processes on a loaded machine do not move
 * as they move the wall clock.
 */
static double __attribute__((unused))
t_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds on the monotonic clock. */
static double __attribute__((unused))
t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
