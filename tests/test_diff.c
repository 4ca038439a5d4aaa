/*
 * Unit tests of tools/diff: exact unified output on known cases, minimality
 * against an O(NM) LCS, agreement with GNU diff and patch(1) on random
 * cases, large inputs, the size cap, intra-line spans and the helpers.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "diff.h"
#include "t.h"
#include "xalloc.h"

static char *
unified(const char *a, const char *b)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(1024);
	char *s;

	if (diff_unified(a, strlen(a), b, strlen(b), "f", &out, &err) != 0) {
		buf_release(&out);
		buf_release(&err);
		return NULL;
	}
	buf_release(&err);
	s = buf_detach(&out, NULL);
	return s;
}

static void
check_unified(const char *a, const char *b, const char *want, int line)
{
	char *got = unified(a, b);

	if (got == NULL || strcmp(got, want) != 0)
		T_FAIL("line %d: got\n%s\nwant\n%s", line, got ? got : "(null)", want);
	free(got);
}

#define CHECK_UNIFIED(a, b, want) check_unified(a, b, want, __LINE__)

T_TEST(known_small_cases)
{
	CHECK_UNIFIED("a\nb\n", "a\nb\n", "");
	CHECK_UNIFIED("", "", "");
	CHECK_UNIFIED("", "a\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n");
	CHECK_UNIFIED("a\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n");
	CHECK_UNIFIED("a\n", "a",
	    "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n");
	CHECK_UNIFIED("a", "a\n",
	    "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
	CHECK_UNIFIED("a\nb", "a\nc",
	    "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
	    "+c\n\\ No newline at end of file\n");
	CHECK_UNIFIED("x\na\nb\nc\n", "a\nb\nc\n",
	    "--- a/f\n+++ b/f\n@@ -1,4 +1,3 @@\n-x\n a\n b\n c\n");
	CHECK_UNIFIED("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
	    "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
	/* an insertion at the end of a file with no final newline */
	CHECK_UNIFIED("a\nb", "a\nb\nc\n",
	    "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n");
	/* CRLF bytes are kept in the lines */
	CHECK_UNIFIED("a\r\nb\r\n", "a\r\nc\r\n",
	    "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n");
}

/* Lines "1".."n" with some replaced. */
static char *
numbered(int n, const int *changed, int nchanged)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	int i, j;

	for (i = 1; i <= n; i++) {
		int hit = 0;

		for (j = 0; j < nchanged; j++)
			hit |= changed[j] == i;
		if (hit)
			buf_printf(&b, "changed %d\n", i);
		else
			buf_printf(&b, "%d\n", i);
	}
	return buf_detach(&b, NULL);
}

T_TEST(hunk_merging_like_diff_u)
{
	int c1[] = { 5, 12 }, c2[] = { 5, 13 };
	char *a = numbered(30, NULL, 0), *b = numbered(30, c1, 2), *c = numbered(30, c2, 2);
	char *u;

	/* six unchanged lines between two changes: one hunk */
	u = unified(a, b);
	T_CONTAINS(u, "@@ -2,14 +2,14 @@\n 2\n 3\n 4\n-5\n+changed 5\n 6\n");
	T_OK(strstr(strstr(u, "@@ -2,14") + 1, "@@ -") == NULL);
	free(u);
	/* seven: two hunks */
	u = unified(a, c);
	T_CONTAINS(u, "@@ -2,7 +2,7 @@\n");
	T_CONTAINS(u, "@@ -10,7 +10,7 @@\n 10\n 11\n 12\n-13\n+changed 13\n 14\n 15\n 16\n");
	free(u);
	free(a);
	free(b);
	free(c);
}

/* The diff's own lines, applied to a, must give b. */
static char *
apply_struct(const struct diff *d, const char *a, size_t alen)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	size_t p = 0, i;
	long line = 1;

	for (i = 0; i < d->nlines; i++) {
		const struct diff_line *l = &d->lines[i];

		if (l->kind == DIFF_ADD) {
			buf_append(&out, l->text, l->len);
			if (l->eol)
				buf_putc(&out, '\n');
			continue;
		}
		/* copy the unchanged lines up to this one */
		while (line < l->old_no) {
			const char *nl = memchr(a + p, '\n', alen - p);
			size_t e = nl ? (size_t)(nl - a) + 1 : alen;

			buf_append(&out, a + p, e - p);
			p = e;
			line++;
		}
		{
			const char *nl = memchr(a + p, '\n', alen - p);
			size_t e = nl ? (size_t)(nl - a) + 1 : alen;

			if (e - p != l->len + l->eol || memcmp(a + p, l->text, l->len) != 0)
				return buf_detach(&out, NULL);	/* garbage: caller compares */
			if (l->kind == DIFF_CTX)
				buf_append(&out, a + p, e - p);
			p = e;
			line++;
		}
	}
	buf_append(&out, a + p, alen - p);
	return buf_detach(&out, NULL);
}

/* Shortest edit length by dynamic programming, to check minimality. */
static long
lcs_edits(char **al, int na, char **bl, int nb)
{
	int *row = xcalloc((size_t)(nb + 1) * (size_t)(na + 1), sizeof(int)), i, j;
	long r;

	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++) {
			int *c = &row[i * (nb + 1) + j];

			if (strcmp(al[i - 1], bl[j - 1]) == 0)
				*c = row[(i - 1) * (nb + 1) + j - 1] + 1;
			else {
				int up = row[(i - 1) * (nb + 1) + j], left = row[i * (nb + 1) + j - 1];

				*c = up > left ? up : left;
			}
		}
	r = na + nb - 2L * row[na * (nb + 1) + nb];
	free(row);
	return r;
}

/* A random text of up to maxlines lines over a small alphabet. */
static char *
random_text(unsigned *seed, int maxlines, int alphabet, char **lines, int *n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	int i, count = (int)(rand_r(seed) % (unsigned)(maxlines + 1));

	for (i = 0; i < count; i++) {
		char l[16];

		snprintf(l, sizeof l, "%c", 'a' + (int)(rand_r(seed) % (unsigned)alphabet));
		buf_puts(&b, l);
		/* the last line sometimes has no newline */
		if (i < count - 1 || rand_r(seed) % 4 != 0) {
			buf_putc(&b, '\n');
			l[1] = '\n';
			l[2] = '\0';
		}
		lines[i] = xstrdup(l);
	}
	*n = count;
	return buf_detach(&b, NULL);
}

T_TEST(random_cases_minimal_and_exact)
{
	unsigned seed = 12345;
	int round, bad = 0;

	for (round = 0; round < 3000 && bad < 5; round++) {
		char *al[64], *bl[64], *a, *b, *back;
		int na, nb, i, alpha = 2 + round % 5;
		struct buf err = BUF_INIT(1024);
		struct diff *d;

		a = random_text(&seed, round % 3 == 0 ? 8 : 40, alpha, al, &na);
		b = random_text(&seed, round % 3 == 0 ? 8 : 40, alpha, bl, &nb);
		d = diff_compute(a, strlen(a), b, strlen(b), &err);
		if (d == NULL) {
			T_FAIL("diff failed: %s", buf_cstr(&err));
			bad++;
		} else {
			long want = lcs_edits(al, na, bl, nb);

			if (d->added + d->removed != want) {
				T_FAIL("round %d: %ld edits, the shortest is %ld\n%s---\n%s",
				    round, d->added + d->removed, want, a, b);
				bad++;
			}
			back = apply_struct(d, a, strlen(a));
			if (strcmp(back, b) != 0) {
				T_FAIL("round %d: applying the diff gives the wrong text", round);
				bad++;
			}
			free(back);
		}
		diff_free(d);
		buf_release(&err);
		for (i = 0; i < na; i++)
			free(al[i]);
		for (i = 0; i < nb; i++)
			free(bl[i]);
		free(a);
		free(b);
	}
}

static void
write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	fputs(s, f);
	fclose(f);
}

static char *
read_all(FILE *f)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char chunk[4096];
	size_t n;

	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, n);
	return buf_detach(&b, NULL);
}

/* The body of a unified diff: everything from the first "@@". */
static const char *
body(const char *u)
{
	const char *p = strstr(u, "@@");

	return p ? p : "";
}

/* Count of "+" and "-" lines in a unified diff body. */
static long
edits_in(const char *u)
{
	long n = 0;
	const char *p = body(u);

	while (*p) {
		if ((*p == '+' || *p == '-') && !(p[0] == '-' && p[1] == '-' && p[2] == '-'))
			n++;
		p = strchr(p, '\n');
		p = p ? p + 1 : "";
	}
	return n;
}

T_TEST(random_cases_against_gnu_diff_and_patch)
{
	char dir[] = "/tmp/tandem-diff-XXXXXX", fa[128], fb[128], fp[128], cmd[512];
	unsigned seed = 777;
	int round, same = 0, bad = 0;

	if (mkdtemp(dir) == NULL) {
		T_FAIL("mkdtemp");
		return;
	}
	snprintf(fa, sizeof fa, "%s/a", dir);
	snprintf(fb, sizeof fb, "%s/b", dir);
	snprintf(fp, sizeof fp, "%s/p", dir);
	for (round = 0; round < 150 && bad < 5; round++) {
		char *al[64], *bl[64], *a, *b, *ours, *theirs, *patched;
		int na, nb, i;
		FILE *f;

		a = random_text(&seed, 40, 3 + round % 4, al, &na);
		b = random_text(&seed, 40, 3 + round % 4, bl, &nb);
		write_file(fa, a);
		write_file(fb, b);
		ours = unified(a, b);
		snprintf(cmd, sizeof cmd, "diff -u %s %s", fa, fb);
		f = popen(cmd, "r");
		theirs = read_all(f);
		pclose(f);
		if (edits_in(ours) != edits_in(theirs)) {
			T_FAIL("round %d: %ld edits, diff -u has %ld", round, edits_in(ours),
			    edits_in(theirs));
			bad++;
		}
		same += strcmp(body(ours), body(theirs)) == 0;
		/* patch(1) must turn a into b with our diff */
		write_file(fp, ours);
		snprintf(cmd, sizeof cmd, "patch -s -o - %s < %s 2>/dev/null", fa, fp);
		if (ours[0] != '\0') {
			f = popen(cmd, "r");
			patched = read_all(f);
			pclose(f);
		} else
			patched = xstrdup(a);
		if (strcmp(patched, b) != 0) {
			T_FAIL("round %d: patch(1) did not reproduce b\n%s", round, ours);
			bad++;
		}
		free(patched);
		free(ours);
		free(theirs);
		for (i = 0; i < na; i++)
			free(al[i]);
		for (i = 0; i < nb; i++)
			free(bl[i]);
		free(a);
		free(b);
	}
	/* ties may be broken differently, but most outputs are identical */
	printf("# %d of 150 random diffs identical to diff -u\n", same);
	T_OK(same > 75);
	unlink(fa);
	unlink(fb);
	unlink(fp);
	rmdir(dir);
}

/* n lines of distinct text. */
static char *
big_text(long n, const char *tag)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	long i;

	for (i = 0; i < n; i++)
		buf_printf(&b, "line %ld of the %s text, padded to a realistic length\n", i, tag);
	return buf_detach(&b, NULL);
}

T_TEST(large_inputs_are_fast)
{
	char *a = big_text(50000, "same"), *b = xstrdup(a), *c = big_text(50000, "other");
	struct buf err = BUF_INIT(1024);
	struct diff *d;
	double t0;
	char *p;

	/* scattered edits in a 50,000-line file */
	p = strstr(b, "line 100 of");
	p[0] = 'L';
	p = strstr(b, "line 25000 of");
	p[0] = 'L';
	p = strstr(b, "line 49999 of");
	p[0] = 'L';
	t0 = t_cpu();
	d = diff_compute(a, strlen(a), b, strlen(b), &err);
	T_OK(d != NULL);
	T_EQ_INT(d->nhunks, 3);
	T_EQ_INT(d->added, 3);
	T_EQ_INT(d->removed, 3);
	T_EQ_INT(d->hunks[1].old_start, 25001 - 3);
	diff_free(d);
	/* two entirely different files: every line only on one side */
	d = diff_compute(a, strlen(a), c, strlen(c), &err);
	T_OK(d != NULL);
	T_EQ_INT(d->removed, 50000);
	T_EQ_INT(d->added, 50000);
	diff_free(d);
	T_OK(t_cpu() - t0 < 2.0 * t_slack());
	free(a);
	free(b);
	free(c);
	buf_release(&err);
}

T_TEST(repetitive_worst_case_is_bounded_and_correct)
{
	unsigned seed = 99;
	struct buf a = BUF_INIT(BUF_NOLIMIT), b = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(1024);
	struct diff *d;
	char *back;
	double t0;
	long i;

	/* two random texts over {x, y}: every line can match, the distance is huge */
	for (i = 0; i < 60000; i++) {
		buf_puts(&a, rand_r(&seed) % 2 ? "x\n" : "y\n");
		buf_puts(&b, rand_r(&seed) % 2 ? "x\n" : "y\n");
	}
	t0 = t_cpu();
	d = diff_compute(a.data, a.len, b.data, b.len, &err);
	T_OK(d != NULL);
	T_OK(t_cpu() - t0 < 10.0 * t_slack());
	back = apply_struct(d, a.data, a.len);
	T_OK(strcmp(back, b.data) == 0);
	free(back);
	diff_free(d);
	buf_release(&a);
	buf_release(&b);
	buf_release(&err);
}

T_TEST(hundred_megabytes_one_change)
{
	size_t n = 100u << 20, i;
	char *a = xmalloc(n + 1), *b;
	struct buf err = BUF_INIT(1024), out = BUF_INIT(BUF_NOLIMIT);
	double t0;

	for (i = 0; i < n; i++)
		a[i] = (i % 64 == 63) ? '\n' : (char)('a' + (i / 64) % 26);
	a[n] = '\0';
	b = xmemdup(a, n);
	b[n / 2] = '#';
	t0 = t_cpu();
	T_EQ_INT(diff_unified(a, n, b, n, "big", &out, &err), 0);
	T_OK(t_cpu() - t0 < 3.0 * t_slack());
	T_EQ_INT(diff_count_lines(out.data, out.len), 2 + 1 + 3 + 2 + 3);
	T_CONTAINS(out.data, "@@ -819198,7 +819198,7 @@\n");
	free(a);
	free(b);
	buf_release(&out);
	buf_release(&err);
}

T_TEST(absurd_size_is_refused)
{
	struct buf a = BUF_INIT(BUF_NOLIMIT), b = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(1024);
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	long i;

	for (i = 0; i < DIFF_MAX_LINES / 2 + 10; i++) {
		buf_puts(&a, "a\n");
		buf_puts(&b, "b\n");
	}
	T_OK(diff_compute(a.data, a.len, b.data, b.len, &err) == NULL);
	T_CONTAINS(buf_cstr(&err), "more than the 2000000 lines");
	buf_reset(&err);
	T_EQ_INT(diff_unified(a.data, a.len, b.data, b.len, "x", &out, &err), -1);
	T_EQ_INT(out.len, 0);
	buf_release(&a);
	buf_release(&b);
	buf_release(&err);
	buf_release(&out);
}

T_TEST(structured_lines_and_spans)
{
	const char *a = "keep\nint x = 1;\ncaf\xc3\xa9 ok\nsame\n";
	const char *b = "keep\nint x = 2;\ncaf\xc3\xa8 ok\nsame\nnew\n";
	struct buf err = BUF_INIT(1024);
	struct diff *d = diff_compute(a, strlen(a), b, strlen(b), &err);
	const struct diff_line *l;

	T_OK(d != NULL);
	T_EQ_INT(d->nhunks, 1);
	T_EQ_INT(d->nlines, 7);
	l = d->lines;
	T_EQ_INT(l[0].kind, DIFF_CTX);
	T_EQ_INT(l[0].old_no, 1);
	T_EQ_INT(l[0].new_no, 1);
	T_EQ_INT(l[1].kind, DIFF_DEL);
	T_EQ_INT(l[1].old_no, 2);
	T_EQ_INT(l[1].new_no, 0);
	T_EQ_INT(l[2].kind, DIFF_DEL);
	T_EQ_INT(l[3].kind, DIFF_ADD);
	T_EQ_INT(l[3].new_no, 2);
	T_EQ_INT(l[3].old_no, 0);
	/* "int x = 1;" / "int x = 2;": just the digit */
	T_OK(l[1].has_span && l[3].has_span);
	T_EQ_INT(l[1].span_start, 8);
	T_EQ_INT(l[1].span_end, 9);
	T_EQ_INT(l[3].span_start, 8);
	T_EQ_INT(l[3].span_end, 9);
	/* é / è share a lead byte: the span is the whole character */
	T_EQ_INT(l[2].span_start, 3);
	T_EQ_INT(l[2].span_end, 5);
	T_EQ_INT(l[4].span_start, 3);
	T_EQ_INT(l[4].span_end, 5);
	T_EQ_INT(l[6].kind, DIFF_ADD);
	T_OK(!l[6].has_span);
	T_EQ_INT(l[5].kind, DIFF_CTX);
	T_EQ_INT(l[5].old_no, 4);
	T_EQ_INT(l[5].new_no, 4);
	T_OK(l[6].eol);
	T_EQ_INT((long)l[6].len, 3);
	T_OK(memcmp(l[6].text, "new", 3) == 0);
	diff_free(d);
	buf_release(&err);
}

T_TEST(span_of_insertion_inside_a_line)
{
	const char *a = "call(a, b)\n", *b = "call(a, x, b)\n";
	struct buf err = BUF_INIT(1024);
	struct diff *d = diff_compute(a, strlen(a), b, strlen(b), &err);

	T_OK(d != NULL && d->nlines == 2);
	/* the deleted line's span is empty; the added line's is "x, " */
	T_EQ_INT(d->lines[0].span_start, 8);
	T_EQ_INT(d->lines[0].span_end, 8);
	T_EQ_INT(d->lines[1].span_start, 8);
	T_EQ_INT(d->lines[1].span_end, 11);
	diff_free(d);
	buf_release(&err);
}

T_TEST(nearest_and_loose_and_excerpt)
{
	const char *text = "int main(void)\n{\n\tint total = 0;\n\ttotal += 1;\n\treturn total;\n}\n";
	const char *w;
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	size_t tl = strlen(text);
	long first = -2;

	T_EQ_INT(diff_count_lines(text, tl), 6);
	T_EQ_INT(diff_count_lines("a\nb", 3), 2);
	T_EQ_INT(diff_count_lines("", 0), 0);
	/* a typo: the nearest window is still found */
	w = "int totl = 0;\ntotal += 1;\n";
	T_EQ_INT(diff_nearest(text, tl, w, strlen(w)), 2);
	w = "zzzzzzzzzzzzzzzzzzzzz\n";
	T_EQ_INT(diff_nearest(text, tl, w, strlen(w)), -1);
	T_EQ_INT(diff_nearest(text, tl, "", 0), -1);
	T_EQ_INT(diff_nearest("", 0, "x", 1), -1);
	/* spaces instead of a tab */
	w = "    int total = 0;\n    total += 1;";
	T_EQ_INT(diff_find_loose(text, tl, w, strlen(w), &first), 1);
	T_EQ_INT(first, 2);
	T_EQ_INT(diff_find_loose(text, tl, "total", 5, &first), 3);
	T_EQ_INT(first, 2);
	T_EQ_INT(diff_find_loose(text, tl, "nothing", 7, &first), 0);
	T_EQ_INT(diff_find_loose(text, tl, "  \n\t", 4, &first), 0);
	/* the first line may end a line, the last may start one */
	w = "total = 0;\ntotal +=";
	T_EQ_INT(diff_find_loose(text, tl, w, strlen(w), &first), 1);
	w = "total = 0;\nreturn";
	T_EQ_INT(diff_find_loose(text, tl, w, strlen(w), &first), 0);
	T_EQ_INT(diff_excerpt(&out, text, tl, 4, 10), 0);
	T_EQ_STR(buf_cstr(&out), "5\t\treturn total;\n6\t}\n");
	buf_reset(&out);
	T_EQ_INT(diff_excerpt(&out, "a\r\nb", 4, 0, 2), 0);
	T_EQ_STR(buf_cstr(&out), "1\ta\n2\tb\n");
	buf_release(&out);
}

T_TEST(nearest_in_a_big_text)
{
	char *t = big_text(300000, "huge"), *p, *q;
	struct buf w = BUF_INIT(BUF_NOLIMIT);
	long at;

	/* 300,000 lines x 20 wanted lines: the bounded candidate search */
	p = strstr(t, "line 123456 of");
	q = strstr(t, "line 123476 of");
	buf_append(&w, p, (size_t)(q - p));
	w.data[30] = 'X';	/* a typo in the first line */
	T_EQ_INT(diff_count_lines(w.data, w.len), 20);
	at = diff_nearest(t, strlen(t), w.data, w.len);
	T_EQ_INT(at, 123456);
	buf_release(&w);
	free(t);
}

int
main(void)
{
	T_RUN(known_small_cases);
	T_RUN(hunk_merging_like_diff_u);
	T_RUN(random_cases_minimal_and_exact);
	T_RUN(random_cases_against_gnu_diff_and_patch);
	T_RUN(large_inputs_are_fast);
	T_RUN(repetitive_worst_case_is_bounded_and_correct);
	T_RUN(hundred_megabytes_one_change);
	T_RUN(absurd_size_is_refused);
	T_RUN(structured_lines_and_spans);
	T_RUN(span_of_insertion_inside_a_line);
	T_RUN(nearest_and_loose_and_excerpt);
	T_RUN(nearest_in_a_big_text);
	return t_done();
}
