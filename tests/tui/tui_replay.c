/*
 * tui_replay: the TUI fed from a JSONL event script, for the screen tests
 * (tests/tui/) and the benchmarks (bench/tui_bench).
 *
 *	tui_replay [--pace MS] [--quit-at-end] [--linger MS] [--theme NAME]
 *	    [--datadir DIR] [--no-mouse] [--print] [--stats FILE] SCRIPT
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "event.h"
#include "tui.h"

static int
replay_num(const char *s, const char *flag)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > 3600 * 1000) {
		fprintf(stderr, "tui_replay: %s wants a number of milliseconds, not '%s'\n", flag, s);
		exit(2);
	}
	return (int)v;
}

static void
replay_usage(void)
{
	fputs("usage: tui_replay [--pace MS] [--quit-at-end] [--linger MS] [--theme NAME]\n"
	    "                  [--datadir DIR] [--no-mouse] [--print] [--stats FILE] SCRIPT\n", stderr);
	exit(2);
}

int
main(int argc, char **argv)
{
	struct tui_opts opts = { .mouse = true };
	struct tui_replay_opts ro = { NULL, 0, false, 0, NULL };
	struct tui_stats stats;
	const char *stats_path = NULL;
	struct ev_loop *loop;
	struct event_bus *bus;
	int i, status;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--pace") == 0 && i + 1 < argc)
			ro.pace_ms = replay_num(argv[++i], a);
		else if (strcmp(a, "--linger") == 0 && i + 1 < argc)
			ro.linger_ms = replay_num(argv[++i], a);
		else if (strcmp(a, "--quit-at-end") == 0)
			ro.quit_at_end = true;
		else if (strcmp(a, "--theme") == 0 && i + 1 < argc)
			opts.theme = argv[++i];
		else if (strcmp(a, "--datadir") == 0 && i + 1 < argc)
			opts.datadir = argv[++i];
		else if (strcmp(a, "--no-mouse") == 0)
			opts.mouse = false;
		else if (strcmp(a, "--print") == 0)
			opts.print_on_exit = true;
		else if (strcmp(a, "--stats") == 0 && i + 1 < argc)
			stats_path = argv[++i];
		else if (a[0] == '-' || ro.path != NULL)
			replay_usage();
		else
			ro.path = a;
	}
	if (ro.path == NULL)
		replay_usage();
	if (stats_path != NULL)
		ro.stats = &stats;
	loop = ev_loop_new();
	bus = event_bus_new();
	if (loop == NULL)
		return 1;
	status = tui_replay(loop, bus, &opts, &ro);
	if (stats_path != NULL) {
		FILE *f = fopen(stats_path, "w");

		if (f != NULL) {
			fprintf(f, "first_frame_ms %lld\nscript_ms %lld\nframes %llu\nwakeups_at_done %llu\nwakeups_total %llu\n",
			    (long long)(stats.first_frame_ms - stats.start_ms),
			    (long long)(stats.script_done_ms - stats.start_ms),
			    (unsigned long long)stats.frames, (unsigned long long)stats.wakeups_at_done,
			    (unsigned long long)ev_wakeups(loop));
			fclose(f);
		}
	}
	event_bus_free(bus);
	ev_loop_free(loop);
	return status;
}
