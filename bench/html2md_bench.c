/*
 * html2md_bench: HTML to Markdown (agent/web/html2md.c) on a 1 MB page,
 * against the budget of DESIGN.md §13 (under 50 ms), and the memory it
 * takes on a page as large as web_fetch ever reads (its 10 MB cap).
 *
 *	bench/html2md_bench [PAGE.html]
 *
 * The 1 MB page is bzip2's DocBook manual (bzip2-doc) repeated, or PAGE.
 * Prints the median of 15 runs and the peak RSS growth of each size.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "buf.h"
#include "file.h"
#include "web/html2md.h"

#define RUNS	15

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static long
peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The page repeated (its body's inside) up to about size bytes. */
static void
grow(const struct buf *page, size_t size, struct buf *out)
{
	buf_puts(out, "<!DOCTYPE html><html><head><title>bench</title></head><body>\n");
	while (out->len < size)
		buf_append(out, page->data, page->len);
	buf_puts(out, "</body></html>\n");
}

static double
run_cap(const struct buf *html, size_t cap, size_t *md_len, bool *cut)
{
	struct buf md = BUF_INIT(BUF_NOLIMIT);
	struct html2md_result r;
	double t0 = now_ms(), t;

	if (html2md(html->data, html->len, "http://127.0.0.1/manual.html", cap, &md, &r) != 0) {
		fprintf(stderr, "html2md_bench: the parser failed\n");
		exit(1);
	}
	t = now_ms() - t0;
	*md_len = md.len;
	*cut = r.truncated;
	buf_release(&md);
	return t;
}

/* As web_fetch converts: the Markdown capped at 100 KB. */
static double
run(const struct buf *html, size_t *md_len, bool *cut)
{
	return run_cap(html, 100u * 1024, md_len, cut);
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/usr/share/doc/bzip2/manual.html";
	struct buf page = BUF_INIT(BUF_NOLIMIT), one = BUF_INIT(BUF_NOLIMIT), ten = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;
	double t[RUNS];
	size_t md_len;
	long before, after;
	bool cut;
	int i;

	if (file_read(path, 64u * 1024 * 1024, FILE_REGULAR, &page, &st) != 0) {
		fprintf(stderr, "html2md_bench: cannot read %s (apt-get install bzip2-doc)\n", path);
		return 2;
	}
	grow(&page, 1024 * 1024, &one);
	for (i = 0; i < RUNS; i++)
		t[i] = run(&one, &md_len, &cut);
	qsort(t, RUNS, sizeof t[0], cmp_double);
	printf("html2md 1 MB page (%zu bytes): median %.1f ms, min %.1f ms, max %.1f ms "
	    "(budget 50 ms): %s\n", one.len, t[RUNS / 2], t[0], t[RUNS - 1],
	    t[RUNS / 2] < 50.0 ? "ok" : "OVER BUDGET");
	printf("  Markdown returned: %zu bytes%s\n", md_len, cut ? " (cut at the 100 KB cap)" : "");
	for (i = 0; i < 5; i++)
		t[i] = run_cap(&one, 64u * 1024 * 1024, &md_len, &cut);
	qsort(t, 5, sizeof t[0], cmp_double);
	printf("  the whole 1 MB page, uncapped (%zu bytes of Markdown): median %.1f ms\n",
	    md_len, t[2]);
	before = peak_kb();
	grow(&page, 10u * 1024 * 1024, &ten);
	t[0] = run(&ten, &md_len, &cut);
	after = peak_kb();
	printf("html2md 10 MB page (web_fetch's read cap): %.1f ms, peak RSS grew %ld KB "
	    "(%.1fx the page)\n", t[0], after - before, (double)(after - before) * 1024.0 /
	    (double)ten.len);
	/* A page that is all script: nothing to keep, so the parse goes on to its limit. */
	buf_reset(&ten);
	buf_puts(&ten, "<html><body><script>");
	while (ten.len < 10u * 1024 * 1024)
		buf_puts(&ten, "var a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; function f(x) { return x; }\n");
	buf_puts(&ten, "</script></body></html>");
	before = peak_kb();
	t[0] = run(&ten, &md_len, &cut);
	after = peak_kb();
	printf("html2md 10 MB page of script (no text: parsed up to %u MB): %.1f ms, peak RSS grew "
	    "%ld KB\n", HTML2MD_PARSE_MAX / (1024 * 1024), t[0], after - before);
	buf_release(&page);
	buf_release(&one);
	buf_release(&ten);
	return t[RUNS / 2] < 50.0 ? 0 : 1;
}
