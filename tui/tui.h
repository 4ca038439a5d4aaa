/*
 * tui: tandem's full-screen terminal front end (DESIGN.md §8).
 *
 * tui_run takes over the terminal (ncurses), subscribes to the event bus,
 * drives the agent with the user's prompts and answers, and returns when
 * the user quits.  Everything runs on the caller's loop: no threads, no
 * timers while idle.  tui_replay is the same screen with no agent, fed
 * from a JSONL file of events, for screen tests and benchmarks.
 *
 * The options are only read during the call; nothing is kept after it.
 */
#ifndef TANDEM_TUI_TUI_H
#define TANDEM_TUI_TUI_H

#include <stdbool.h>
#include <stdint.h>

struct ev_loop;
struct event_bus;
struct agent;
struct config;

struct tui_opts {
	const char	*theme;		/* a theme name; NULL: "dark" (NO_COLOR: "mono") */
	bool		 mouse;		/* capture the mouse (wheel scrolling, click to focus) */
	bool		 print_on_exit;	/* write the transcript to stdout after leaving the screen */
	const char	*initial_prompt; /* sent at once when not NULL */
	const char	*datadir;	/* themes dir override, NULL: TANDEM_DATADIR "/themes" then ./themes */
	/*
	 * The settings the agent runs with, or NULL.  The screen lists custom
	 * commands and sessions from them, and when the project holds back
	 * trust items it asks the user, and on yes trusts the project and puts
	 * them in effect (so cfg is changed, and must outlive the agent).
	 */
	struct config	*cfg;
	bool		 no_resume_line; /* the session is not one to go on with (the demo's) */
};

/*
 * Run the full-screen UI on loop until the user quits; subscribes to bus;
 * calls agent (which may be NULL for tests: then prompts are echoed into
 * the transcript and nothing else happens).  Returns the exit status (0, or
 * 130 if quit while a turn ran; 1 when the terminal cannot be used, with a
 * sentence on stderr).
 */
int	 tui_run(struct ev_loop *, struct event_bus *, struct agent *, const struct tui_opts *);

/* What a replay measured, for bench/. */
struct tui_stats {
	int64_t		 start_ms;	/* ev_now_ms() when tui_replay was called */
	int64_t		 first_frame_ms; /* ... when the first frame was on the terminal */
	int64_t		 script_done_ms; /* ... when the last event of the script was fed */
	uint64_t	 frames;
	uint64_t	 wakeups_at_done; /* ev_wakeups() then */
};

struct tui_replay_opts {
	const char	*path;		/* JSONL: one event a line */
	int		 pace_ms;	/* between events; 0: as fast as the loop goes */
	bool		 quit_at_end;	/* leave when the script is done */
	int		 linger_ms;	/* with quit_at_end: stay this long after it */
	struct tui_stats *stats;	/* may be NULL */
};

/*
 * Replay mode for tests and benchmarks: tui_run with agent NULL plus
 * events read from a JSONL file fed at a given pace.  Besides events, a
 * line may be a directive: {"replay":"sleep","ms":N} waits, {"replay":
 * "pause"} waits for SIGUSR1, {"replay":"quit"} leaves.  Returns as
 * tui_run does; 2 when the file cannot be read or a line is not JSON
 * (naming the file and line on stderr).
 */
int	 tui_replay(struct ev_loop *, struct event_bus *, const struct tui_opts *,
	    const struct tui_replay_opts *);

#endif
