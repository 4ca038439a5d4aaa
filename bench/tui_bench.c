/*
 * tui_bench: the TUI's figures (DESIGN.md §10), measured through a real
 * pseudo-terminal around the replay driver (tests/tui/tui_replay):
 *
 *	start to first frame	wall time from fork+exec to the first screen byte,
 *				and the driver's own start-to-first-frame
 *	idle RSS		VmRSS of the idle process after its first frame
 *	idle wakeups		poll() returns per second while nothing happens
 *	stream 1 MB		CPU seconds to stream 1 MB of Markdown text, minus
 *				the same script with events the TUI ignores
 *	keypress latency	key written to the pty -> first byte of the redraw,
 *				at 10 and at 2,000 turns of transcript
 *	syntax highlighting	CPU a frame costs while C code streams into a
 *				block, highlighted and plain; the first frame
 *	PgUp latency		the same for PgUp through 300 turns of long
 *				command outputs and edits
 *
 *	tui_bench REPLAY_BINARY [WORKDIR]
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *replay_bin;
static char workdir[1024];

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

struct child {
	pid_t	 pid;
	int	 fd;		/* the pty master */
	double	 started;
};

/* Run the replay driver on script in a new 100x30 pty. */
static int
child_start(struct child *c, const char *script, const char *const *extra)
{
	struct winsize ws = { 30, 100, 0, 0 };
	const char *argv[16];
	char *slave;
	int n = 0, i, sfd;

	c->fd = posix_openpt(O_RDWR | O_NOCTTY);
	if (c->fd == -1 || grantpt(c->fd) == -1 || unlockpt(c->fd) == -1 || (slave = ptsname(c->fd)) == NULL)
		return -1;
	ioctl(c->fd, TIOCSWINSZ, &ws);
	argv[n++] = replay_bin;
	for (i = 0; extra && extra[i] && n < 14; i++)
		argv[n++] = extra[i];
	argv[n++] = script;
	argv[n] = NULL;
	c->started = now_ms();
	c->pid = fork();
	if (c->pid == 0) {
		setsid();
		sfd = open(slave, O_RDWR);
		if (sfd == -1)
			_exit(126);
		ioctl(sfd, TIOCSCTTY, 0);
		dup2(sfd, 0);
		dup2(sfd, 1);
		dup2(sfd, 2);
		if (sfd > 2)
			close(sfd);
		setenv("TERM", "xterm-256color", 1);
		setenv("LANG", "C.UTF-8", 1);
		execv(replay_bin, (char *const *)argv);
		_exit(127);
	}
	return c->pid > 0 ? 0 : -1;
}

/* Read what is there for up to ms; the bytes read, -1 at EOF. */
static long
child_drain(struct child *c, int ms)
{
	char buf[65536];
	struct pollfd p = { c->fd, POLLIN, 0 };
	long total = 0;

	while (poll(&p, 1, ms) > 0) {
		ssize_t n = read(c->fd, buf, sizeof buf);

		if (n <= 0)
			return total > 0 ? total : -1;
		total += n;
		ms = ms > 5 ? 5 : ms;
	}
	return total;
}

/* Drain until the screen has been quiet for quiet_ms. */
static void
child_settle(struct child *c, int quiet_ms, int max_ms)
{
	double end = now_ms() + max_ms;

	while (now_ms() < end) {
		char buf[65536];
		struct pollfd p = { c->fd, POLLIN, 0 };

		if (poll(&p, 1, quiet_ms) <= 0)
			return;
		if (read(c->fd, buf, sizeof buf) <= 0)
			return;
	}
}

static int
child_wait(struct child *c, struct rusage *ru)
{
	struct rusage tmp;
	int status = 0;
	pid_t r;

	/* Keep reading so the child never blocks on a full pty. */
	while ((r = wait4(c->pid, &status, WNOHANG, &tmp)) == 0)
		if (child_drain(c, 20) == -1)
			break;
	if (r == 0)
		while ((r = wait4(c->pid, &status, 0, &tmp)) == -1 && errno == EINTR)
			;
	if (ru != NULL)
		*ru = tmp;
	close(c->fd);
	return status;
}

static long
rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

static long
stat_field(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ' ')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
path_in(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", workdir, name);
}

static FILE *
script_open(const char *name, char *path, size_t size)
{
	FILE *f;

	path_in(path, size, name);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	fputs("{\"type\":\"session\",\"turn\":0,\"id\":\"b\",\"model\":\"claude-sonnet-4-5\",\"cwd\":\"/tmp\"}\n", f);
	return f;
}

static void
bench_startup(void)
{
	static const char *const extra[] = { "--quit-at-end", "--stats", NULL, NULL };
	double wall[20], inproc[20];
	char script[1200], stats[1200];
	const char *args[4];
	int i, n = 20;
	FILE *f = script_open("empty.jsonl", script, sizeof script);

	fclose(f);
	path_in(stats, sizeof stats, "stats.txt");
	memcpy(args, extra, sizeof args);
	args[2] = stats;
	for (i = 0; i < n; i++) {
		struct child c;
		char b;
		struct pollfd p;

		if (child_start(&c, script, args) == -1)
			exit(1);
		p.fd = c.fd;
		p.events = POLLIN;
		poll(&p, 1, 5000);
		wall[i] = now_ms() - c.started;
		(void)!read(c.fd, &b, 1);
		child_wait(&c, NULL);
		inproc[i] = (double)stat_field(stats, "first_frame_ms");
	}
	qsort(wall, (size_t)n, sizeof *wall, cmp_double);
	qsort(inproc, (size_t)n, sizeof *inproc, cmp_double);
	printf("start to first frame: %.1f ms median (fork+exec to the first screen byte; max %.1f ms);"
	    " %.0f ms inside the process (budget < 20 ms)\n", wall[n / 2], wall[n - 1], inproc[n / 2]);
}

static void
bench_idle(void)
{
	static const char *const extra[] = { "--quit-at-end", "--linger", "3000", "--stats", NULL, NULL };
	char script[1200], stats[1200];
	const char *args[6];
	struct child c;
	long rss, before, after;
	double t0;
	FILE *f = script_open("idle.jsonl", script, sizeof script);

	/* Let the first frames happen before the idle period is counted. */
	fputs("{\"replay\":\"sleep\",\"ms\":500}\n", f);
	fclose(f);
	path_in(stats, sizeof stats, "stats-idle.txt");
	memcpy(args, extra, sizeof args);
	args[4] = stats;
	if (child_start(&c, script, args) == -1)
		exit(1);
	child_settle(&c, 300, 2000);
	rss = rss_kb(c.pid);
	t0 = now_ms();
	child_wait(&c, NULL);
	before = stat_field(stats, "wakeups_at_done");
	after = stat_field(stats, "wakeups_total");
	printf("idle RSS: %.1f MB after the first frame (budget < 8 MB)\n", (double)rss / 1024.0);
	/* The linger timer that ends the run is one wakeup of its own. */
	printf("idle wakeups: %ld in %.1f s of idling, the exit timer included (budget: 0 a second)\n",
	    after - before - 1 < 0 ? 0 : after - before - 1, (now_ms() - t0) / 1000.0 + 0.3);
}

static void
write_stream(FILE *f, const char *type, size_t bytes)
{
	static const char *const pieces[] = {
		"The parser keeps a small state machine; ", "each **token** is `checked` before ",
		"it is consumed, so errors stay local.\\n\\n", "## A heading\\n\\n", "- a list item with words\\n",
		"- another item\\n\\n", "```c\\nint parse(const char *s)\\n{\\n\\treturn s[0];\\n}\\n```\\n\\n",
		"| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\n", "> quoted advice, kept short.\\n\\n",
		"Plain prose follows, wrapping at the pane's width and no earlier. ",
	};
	size_t done = 0, k = 0;

	fputs("{\"type\":\"turn_start\",\"turn\":1,\"prompt\":\"stream a megabyte\"}\n", f);
	while (done < bytes) {
		const char *p = pieces[k++ % (sizeof pieces / sizeof pieces[0])];

		fprintf(f, "{\"type\":\"%s\",\"turn\":1,\"text\":\"%s\"}\n", type, p);
		done += strlen(p);
	}
	fputs("{\"type\":\"turn_end\",\"turn\":1,\"stop_reason\":\"end_turn\"}\n", f);
}

static double
cpu_of(const char *script)
{
	static const char *const extra[] = { "--quit-at-end", NULL };
	struct rusage ru;
	struct child c;

	if (child_start(&c, script, extra) == -1)
		exit(1);
	child_wait(&c, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void
bench_stream(void)
{
	char text[1200], noop[1200];
	FILE *f = script_open("stream.jsonl", text, sizeof text);
	double full, base;

	write_stream(f, "text", 1024 * 1024);
	fclose(f);
	f = script_open("noop.jsonl", noop, sizeof noop);
	write_stream(f, "ignored", 1024 * 1024);
	fclose(f);
	full = cpu_of(text);
	base = cpu_of(noop);
	printf("stream 1 MB of Markdown: %.3f s CPU in all; %.3f s of it the TUI's"
	    " (the rest reads and parses the JSON script) (budget < 0.5 s)\n", full, full - base);
}

/*
 * What one frame costs while a reply streams: the 1 MB script, then 200
 * small deltas 20 ms apart (a frame each), against the script alone.
 */
static void
bench_frame_cost(void)
{
	char with[1200], without[1200];
	FILE *f = script_open("frames.jsonl", with, sizeof with);
	double a, b;
	int k;

	write_stream(f, "text", 1024 * 1024);
	for (k = 0; k < 200; k++)
		fprintf(f, "{\"replay\":\"sleep\",\"ms\":20}\n"
		    "{\"type\":\"text\",\"turn\":1,\"text\":\"and a few more words \"}\n");
	fclose(f);
	f = script_open("frames0.jsonl", without, sizeof without);
	write_stream(f, "text", 1024 * 1024);
	fclose(f);
	a = cpu_of(with);
	b = cpu_of(without);
	printf("a frame while streaming, 1 MB into the reply: %.3f ms CPU (200 frames: %.3f s)\n",
	    (a - b) * 1000.0 / 200.0, a - b);
}

static void
write_turns(FILE *f, int turns)
{
	int t;

	for (t = 1; t <= turns; t++) {
		fprintf(f, "{\"type\":\"turn_start\",\"turn\":%d,\"prompt\":\"question number %d\"}\n", t, t);
		fprintf(f, "{\"type\":\"text\",\"turn\":%d,\"text\":\"An answer with **some** `code` and a list:\\n\\n- one\\n- two\\n\\n```sh\\nmake check\\n```\\n\"}\n", t);
		fprintf(f, "{\"type\":\"tool_use\",\"turn\":%d,\"id\":\"t%d\",\"name\":\"read_file\",\"input\":{\"path\":\"src/f%d.c\"}}\n", t, t, t);
		fprintf(f, "{\"type\":\"tool_result\",\"turn\":%d,\"id\":\"t%d\",\"name\":\"read_file\",\"is_error\":false,\"content\":\"line\\nline\\nline\",\"duration_ms\":3}\n", t, t);
		fprintf(f, "{\"type\":\"turn_end\",\"turn\":%d,\"stop_reason\":\"end_turn\"}\n", t);
	}
}

static void
bench_latency(int turns)
{
	char script[1200], name[64];
	double lat[200];
	struct child c;
	int i, n = 200;
	long rss;
	FILE *f;

	snprintf(name, sizeof name, "turns-%d.jsonl", turns);
	f = script_open(name, script, sizeof script);
	write_turns(f, turns);
	fclose(f);
	if (child_start(&c, script, NULL) == -1)
		exit(1);
	child_settle(&c, 500, 60000);
	rss = rss_kb(c.pid);
	for (i = 0; i < n; i++) {
		const char *key = i % 2 ? "\x7f" : "x";
		struct pollfd p = { c.fd, POLLIN, 0 };
		double t0;

		child_settle(&c, 30, 1000);
		t0 = now_ms();
		(void)!write(c.fd, key, 1);
		poll(&p, 1, 2000);
		lat[i] = now_ms() - t0;
	}
	kill(c.pid, SIGTERM);
	child_wait(&c, NULL);
	qsort(lat, (size_t)n, sizeof *lat, cmp_double);
	printf("keypress to screen at %d turns: %.2f ms median, %.2f ms p95 (budget < 5 ms, flat);"
	    " RSS %.1f MB\n", turns, lat[n / 2], lat[n * 95 / 100], (double)rss / 1024.0);
}

/*
 * Syntax highlighting (tui/synhl.c): a reply that streams 200 lines of C
 * into a code block, one line a frame, with nano's syntax files and
 * without ($TANDEM_SYNTAX_DIR empty); the CPU a frame costs, minus the
 * same script without the lines.  Then the first frame of a script whose
 * first reply holds a C block, both ways.
 */
static void
write_code(FILE *f, int lines)
{
	int k;

	fputs("{\"type\":\"turn_start\",\"turn\":1,\"prompt\":\"stream code\"}\n"
	    "{\"type\":\"text\",\"turn\":1,\"text\":\"Here it is:\\n\\n```c\\n\"}\n", f);
	for (k = 0; k < lines; k++)
		fprintf(f, "{\"replay\":\"sleep\",\"ms\":20}\n"
		    "{\"type\":\"text\",\"turn\":1,\"text\":\"\\tif (n > %d && s[%d] != '\\\\0') return f(\\\"%d\\\", n); /* step %d */\\n\"}\n",
		    k % 10, k % 10, k % 10, k % 10);
}

static double
frame_cpu(const char *dir, const char *with, const char *without, int lines)
{
	double best = -1;
	int r;

	setenv("TANDEM_SYNTAX_DIR", dir, 1);
	for (r = 0; r < 3; r++) {
		double v = (cpu_of(with) - cpu_of(without)) * 1000.0 / lines;

		if (best < 0 || v < best)
			best = v;
	}
	return best;
}

static long
first_frame(const char *dir, const char *script)
{
	static const char *const extra[] = { "--quit-at-end", "--stats", NULL, NULL };
	const char *args[4];
	char stats[1200];
	long v[9];
	int i;

	setenv("TANDEM_SYNTAX_DIR", dir, 1);
	path_in(stats, sizeof stats, "stats-syntax.txt");
	memcpy(args, extra, sizeof args);
	args[2] = stats;
	for (i = 0; i < 9; i++) {
		struct child c;

		if (child_start(&c, script, args) == -1)
			exit(1);
		child_wait(&c, NULL);
		v[i] = stat_field(stats, "first_frame_ms");
	}
	for (i = 1; i < 9; i++) {
		long x = v[i];
		int j = i;

		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	return v[4];
}

static void
bench_syntax(void)
{
	char with[1200], without[1200];
	const char *nano = getenv("TUI_BENCH_NANO") ? getenv("TUI_BENCH_NANO") : "/usr/share/nano";
	double hl, plain;
	int lines = 200;
	FILE *f;

	if (access(nano, R_OK) != 0) {
		printf("syntax highlighting: %s is not there (install nano); skipped\n", nano);
		return;
	}
	f = script_open("code.jsonl", with, sizeof with);
	write_code(f, lines);
	fputs("{\"type\":\"text\",\"turn\":1,\"text\":\"```\\n\"}\n", f);
	fclose(f);
	f = script_open("code0.jsonl", without, sizeof without);
	write_code(f, 0);
	fputs("{\"type\":\"text\",\"turn\":1,\"text\":\"```\\n\"}\n", f);
	fclose(f);
	hl = frame_cpu(nano, with, without, lines);
	plain = frame_cpu("", with, without, lines);
	printf("a frame while C code streams into a block: %.3f ms CPU highlighted, %.3f ms plain"
	    " (%.2fx; budget 1.5x)\n", hl, plain, plain > 0 ? hl / plain : 0.0);
	f = script_open("code1.jsonl", with, sizeof with);
	write_code(f, 0);
	fputs("{\"type\":\"text\",\"turn\":1,\"text\":\"int main(void) { return 0; } /* ok */\\n```\\n\"}\n", f);
	fclose(f);
	printf("first frame, a C block in the first reply: %ld ms highlighted, %ld ms plain (budget < 5 ms)\n",
	    first_frame(nano, with), first_frame("", with));
	unsetenv("TANDEM_SYNTAX_DIR");
}

/* Turns whose calls have long results: a 2,000-line command output and a 40-line edit. */
static void
write_long_turns(FILE *f, int turns)
{
	int t, k;

	for (t = 1; t <= turns; t++) {
		fprintf(f, "{\"type\":\"turn_start\",\"turn\":%d,\"prompt\":\"build number %d\"}\n", t, t);
		fprintf(f, "{\"type\":\"tool_use\",\"turn\":%d,\"id\":\"b%d\",\"name\":\"run_bash\",\"input\":{\"command\":\"make\"}}\n", t, t);
		fprintf(f, "{\"type\":\"tool_result\",\"turn\":%d,\"id\":\"b%d\",\"name\":\"run_bash\",\"is_error\":false,\"content\":\"", t, t);
		for (k = 0; k < 2000; k++)
			fprintf(f, "CC src/file%d.o\\n", k);
		fprintf(f, "done\",\"duration_ms\":3}\n");
		fprintf(f, "{\"type\":\"tool_use\",\"turn\":%d,\"id\":\"e%d\",\"name\":\"edit_file\",\"input\":{\"path\":\"src/f%d.c\",\"old_string\":\"", t, t, t);
		for (k = 0; k < 20; k++)
			fprintf(f, "old line %d\\n", k);
		fprintf(f, "\",\"new_string\":\"");
		for (k = 0; k < 20; k++)
			fprintf(f, "new line %d\\n", k);
		fprintf(f, "\"}}\n");
		fprintf(f, "{\"type\":\"tool_result\",\"turn\":%d,\"id\":\"e%d\",\"name\":\"edit_file\",\"is_error\":false,\"content\":\"edited src/f%d.c: 1 replacement at line 5 (+20 -20)\",\"duration_ms\":3}\n", t, t, t);
		fprintf(f, "{\"type\":\"turn_end\",\"turn\":%d,\"stop_reason\":\"end_turn\"}\n", t);
	}
}

/* PgUp through a transcript of long results: each key's redraw. */
static void
bench_scroll_long(int turns)
{
	char script[1200], name[64];
	double lat[200];
	struct child c;
	int i, n = 200;
	long rss;
	FILE *f;

	snprintf(name, sizeof name, "long-%d.jsonl", turns);
	f = script_open(name, script, sizeof script);
	write_long_turns(f, turns);
	fclose(f);
	if (child_start(&c, script, NULL) == -1)
		exit(1);
	child_settle(&c, 500, 120000);
	rss = rss_kb(c.pid);
	for (i = 0; i < n; i++) {
		struct pollfd p = { c.fd, POLLIN, 0 };
		double t0;

		child_settle(&c, 30, 1000);
		t0 = now_ms();
		(void)!write(c.fd, "\x1b[5~", 4);
		poll(&p, 1, 2000);
		lat[i] = now_ms() - t0;
	}
	kill(c.pid, SIGTERM);
	child_wait(&c, NULL);
	qsort(lat, (size_t)n, sizeof *lat, cmp_double);
	printf("PgUp to screen at %d turns of 2,000-line outputs and 40-line edits: %.2f ms median,"
	    " %.2f ms p95; RSS %.1f MB\n", turns, lat[n / 2], lat[n * 95 / 100], (double)rss / 1024.0);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: tui_bench REPLAY_BINARY [WORKDIR]\n", stderr);
		return 2;
	}
	replay_bin = argv[1];
	if (argc > 2)
		snprintf(workdir, sizeof workdir, "%s", argv[2]);
	else {
		snprintf(workdir, sizeof workdir, "%s/tandem-tui-bench.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		    (int)getpid());
		mkdir(workdir, 0700);
	}
	signal(SIGPIPE, SIG_IGN);
	bench_startup();
	bench_idle();
	bench_stream();
	bench_frame_cost();
	bench_syntax();
	bench_latency(10);
	bench_latency(2000);
	bench_scroll_long(300);
	return 0;
}
