/*
 * wsnap_bench: the workspace snapshot taken before a command, timed on a
 * generated tree (see bench/README.md).
 *
 *	bench/wsnap_bench [DIR [FILES [RUNS]]]
 *
 * DIR (default /tmp/tandem-wsnap-bench) is made afresh: FILES files
 * (default 20,000) of 1-8 KB in 100 files a directory, a .gitignore with
 * the usual rules and an ignored build/ of 1,000 files.  Then it times
 *   first:     the first snapshot (everything read, hashed and stored);
 *   unchanged: the snapshot before a command on the unchanged tree (the
 *              median of RUNS);
 *   changed:   the same after 100 files were rewritten (median of RUNS,
 *              100 other files each run);
 *   after:     wsnap_after on an unchanged tree (the walk after a command);
 *   one thread: "unchanged" again with the walk on one thread
 *              (TANDEM_WSNAP_THREADS=1), for the ratio.
 * The budget for "unchanged" is 30 ms; the exit status is 1 past it.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "store/wsnap.h"

#define BENCH_BUDGET_MS	30.0

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void
write_file(const char *path, size_t size, unsigned seed)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (f == NULL) {
		fprintf(stderr, "wsnap_bench: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	for (i = 0; i < size; i++)
		fputc("abcdefghij \n"[(seed * 31 + i * 7) % 12], f);
	fclose(f);
}

/* The floor: the same walk with no index, no ignore rules, no hashing. */
static long
bare_walk(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	long n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' || (de->d_name[1] == '.' &&
		    de->d_name[2] == '\0')))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		n++;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (sub != -1)
				n += bare_walk(sub);
		}
	}
	closedir(d);
	return n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static long
arg_long(const char *s, long def)
{
	char *end;
	long v;

	if (s == NULL)
		return def;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < 1) {
		fprintf(stderr, "wsnap_bench: not a positive number: %s\n", s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp/tandem-wsnap-bench";
	long files = arg_long(argc > 2 ? argv[2] : NULL, 20000);
	long runs = arg_long(argc > 3 ? argv[3] : NULL, 9), i, r;
	struct wsnap_settings set = WSNAP_SETTINGS_DEFAULT;
	struct buf p = BUF_INIT(4096), root = BUF_INIT(4096), home = BUF_INIT(4096);
	struct wsnap *ws;
	double t, first, *un, *ch, *af, *bw, *one;
	bool git;

	nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	buf_printf(&root, "%s/tree", dir);
	buf_printf(&home, "%s/home", dir);
	if (mkdir(dir, 0700) == -1 || mkdir(buf_cstr(&root), 0755) == -1 ||
	    mkdir(buf_cstr(&home), 0700) == -1) {
		fprintf(stderr, "wsnap_bench: cannot make %s: %s\n", dir, strerror(errno));
		return 2;
	}
	for (i = 0; i < files; i++) {
		if (i % 100 == 0) {
			buf_reset(&p);
			buf_printf(&p, "%s/src%03ld", buf_cstr(&root), i / 100);
			mkdir(buf_cstr(&p), 0755);
		}
		buf_reset(&p);
		buf_printf(&p, "%s/src%03ld/f%05ld.c", buf_cstr(&root), i / 100, i);
		write_file(buf_cstr(&p), 1024 + (size_t)(i * 7919 % 7168), (unsigned)i);
	}
	buf_reset(&p);
	buf_printf(&p, "%s/.gitignore", buf_cstr(&root));
	{
		FILE *f = fopen(buf_cstr(&p), "w");

		if (f == NULL)
			return 2;
		fputs("*.o\n*.a\n*.so\nbuild/\nnode_modules/\n*.log\n.env\n/dist\n*.tmp\n", f);
		fclose(f);
	}
	buf_reset(&p);
	buf_printf(&p, "%s/build", buf_cstr(&root));
	mkdir(buf_cstr(&p), 0755);
	for (i = 0; i < 1000; i++) {
		buf_reset(&p);
		buf_printf(&p, "%s/build/o%04ld.o", buf_cstr(&root), i);
		write_file(buf_cstr(&p), 512, (unsigned)i);
	}
	/* the tree is older than the snapshots: no file is re-hashed for being recent */
	sleep(1);

	ws = wsnap_new(buf_cstr(&home), buf_cstr(&root), NULL, &set);
	if (ws == NULL)
		return 2;
	t = now_ms();
	if (wsnap_before(ws, NULL) == -1)
		return 2;
	first = now_ms() - t;
	printf("files: %ld (+ 1,000 ignored in build/), entries indexed: %zu\n", files, wsnap_count(ws));
	printf("first snapshot:             %8.1f ms  (%.1f MB read and stored)\n", first,
	    (double)wsnap_last_read(ws) / 1048576.0);

	un = calloc((size_t)runs, sizeof *un);
	ch = calloc((size_t)runs, sizeof *ch);
	af = calloc((size_t)runs, sizeof *af);
	bw = calloc((size_t)runs, sizeof *bw);
	one = calloc((size_t)runs, sizeof *one);
	if (un == NULL || ch == NULL || af == NULL || bw == NULL || one == NULL)
		return 2;
	for (r = 0; r < runs; r++) {
		t = now_ms();
		bare_walk(open(buf_cstr(&root), O_RDONLY | O_DIRECTORY));
		bw[r] = now_ms() - t;
	}
	for (r = 0; r < runs; r++) {
		t = now_ms();
		wsnap_before(ws, NULL);
		un[r] = now_ms() - t;
	}
	for (r = 0; r < runs; r++) {
		cJSON *changes;

		t = now_ms();
		changes = wsnap_after(ws, &git, NULL, NULL);
		af[r] = now_ms() - t;
		cJSON_Delete(changes);
		wsnap_before(ws, NULL);
	}
	for (r = 0; r < runs; r++) {
		for (i = 0; i < 100; i++) {
			long k = (r * 100 + i) * 97 % files;

			buf_reset(&p);
			buf_printf(&p, "%s/src%03ld/f%05ld.c", buf_cstr(&root), k / 100, k);
			write_file(buf_cstr(&p), 2048, (unsigned)(k + r + 1));
		}
		t = now_ms();
		wsnap_before(ws, NULL);
		ch[r] = now_ms() - t;
	}
	setenv("TANDEM_WSNAP_THREADS", "1", 1);
	for (r = 0; r < runs; r++) {
		t = now_ms();
		wsnap_before(ws, NULL);
		one[r] = now_ms() - t;
	}
	unsetenv("TANDEM_WSNAP_THREADS");
	qsort(one, (size_t)runs, sizeof *one, cmp_double);
	qsort(un, (size_t)runs, sizeof *un, cmp_double);
	qsort(ch, (size_t)runs, sizeof *ch, cmp_double);
	qsort(af, (size_t)runs, sizeof *af, cmp_double);
	qsort(bw, (size_t)runs, sizeof *bw, cmp_double);
	printf("the floor (readdir + fstatat only): %.1f ms  (median of %ld)\n", bw[runs / 2], runs);
	printf("before a command, unchanged: %7.1f ms  (median of %ld; budget %.0f ms; walk on %d threads)\n",
	    un[runs / 2], runs, BENCH_BUDGET_MS, wsnap_threads(ws));
	printf("before a command, 100 changed: %5.1f ms  (median of %ld)\n", ch[runs / 2], runs);
	printf("after a command, unchanged:  %7.1f ms  (median of %ld)\n", af[runs / 2], runs);
	printf("unchanged, walk on 1 thread: %7.1f ms  (median of %ld)\n", one[runs / 2], runs);
	wsnap_free(ws);
	nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	buf_release(&p);
	buf_release(&root);
	buf_release(&home);
	t = un[runs / 2];
	free(un);
	free(ch);
	free(af);
	free(bw);
	free(one);
	return t <= BENCH_BUDGET_MS ? 0 : 1;
}
