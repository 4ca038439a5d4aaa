/*
 * mention_bench: the @path completion on a large workspace.  Makes a tree
 * of N files (default 100,000: 1,000 directories of 100, plus an ignored
 * build/ of 10,000 and a .gitignore), then times the listing the index is
 * built from (tools/filelist.c into a pipe, as the child does) and the
 * ranking of the whole index for a few queries (lib/fuzzy.c, as one Tab
 * does).  The tree is kept in MENTION_BENCH_DIR (default
 * /tmp/tandem-mention-bench) and made again when its file count differs.
 *
 *	bench/mention_bench [N]
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "filelist.h"
#include "fuzzy.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void
touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1) {
		fprintf(stderr, "mention_bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

static void
make_tree(const char *dir, long n)
{
	char path[4096], stamp[4200];
	long d, f, made = 0;
	FILE *s;

	snprintf(stamp, sizeof stamp, "%s/.stamp-%ld", dir, n);
	if (access(stamp, F_OK) == 0)
		return;
	fprintf(stderr, "mention_bench: making %ld files in %s\n", n, dir);
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/build", dir);
	mkdir(path, 0755);
	for (f = 0; f < 10000; f++) {
		snprintf(path, sizeof path, "%s/build/obj_%05ld.o", dir, f);
		touch(path);
	}
	snprintf(path, sizeof path, "%s/.gitignore", dir);
	if ((s = fopen(path, "w")) != NULL) {
		fputs("build/\n*.tmp\n", s);
		fclose(s);
	}
	for (d = 0; made < n; d++) {
		snprintf(path, sizeof path, "%s/module_%04ld", dir, d);
		mkdir(path, 0755);
		for (f = 0; f < 100 && made < n; f++, made++) {
			snprintf(path, sizeof path, "%s/module_%04ld/source_file_%03ld.c", dir, d, f);
			touch(path);
		}
	}
	touch(stamp);
}

int
main(int argc, char **argv)
{
	const char *dir = getenv("MENTION_BENCH_DIR");
	static const char *const queries[] = { "m12sf42", "source_file_099.c", "zzzz", "module_0999/" };
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
	struct buf raw = BUF_INIT(BUF_NOLIMIT);
	char chunk[65536], **paths;
	size_t np = 0, i, k, best[6];
	double t0, t_list, t_rank;
	int pfd[2], status;
	ssize_t r;
	pid_t pid;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp/tandem-mention-bench";
	if (n <= 0) {
		fprintf(stderr, "usage: mention_bench [FILES]\n");
		return 2;
	}
	make_tree(dir, n);
	if (pipe(pfd) == -1)
		return 1;
	t0 = now_ms();
	if ((pid = fork()) == 0) {
		close(pfd[0]);
		_exit(filelist_write(dir, pfd[1], FILELIST_MAX) == 0 ? 0 : 1);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], chunk, sizeof chunk)) > 0)
		buf_append(&raw, chunk, (size_t)r);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	for (i = 0; i < raw.len; i++)
		np += raw.data[i] == '\0';
	paths = calloc(np ? np : 1, sizeof *paths);
	for (i = 0, k = 0; k < np; k++) {
		paths[k] = raw.data + i;
		i += strlen(raw.data + i) + 1;
	}
	t_list = now_ms() - t0;
	printf("listing %zu entries (files and directories; build/ ignored): %.0f ms\n", np, t_list);
	for (i = 0; i < sizeof queries / sizeof queries[0]; i++) {
		int rep, reps = 5;
		size_t got = 0;

		t0 = now_ms();
		for (rep = 0; rep < reps; rep++)
			got = fuzzy_best(queries[i], (const char *const *)paths, np, best, 6);
		t_rank = (now_ms() - t0) / reps;
		printf("ranking @%-18s %zu shown, best %-40s %.1f ms\n", queries[i], got,
		    got > 0 ? paths[best[0]] : "-", t_rank);
	}
	free(paths);
	buf_release(&raw);
	return 0;
}
