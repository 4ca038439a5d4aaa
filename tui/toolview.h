/*
 * toolview: the tools pane's model, one entry per tool call.
 *
 * An entry moves through the states the event stream reports: queued
 * (tool_use), waiting for approval (approval_request), running (approved,
 * or live output arrived), done or failed (tool_result), denied (an
 * approval that denied it).  A running command keeps the tail of its live
 * output for the pane to show.  tv_summary says in a few words what a call
 * does ("src/a.c", "make check"), from a table of tools and input keys.
 *
 * The toolview owns its entries; tv_release frees them.
 */
#ifndef TANDEM_TUI_TOOLVIEW_H
#define TANDEM_TUI_TOOLVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"

enum tv_state { TV_QUEUED, TV_WAITING, TV_RUNNING, TV_DONE, TV_FAILED, TV_DENIED, TV_INTERRUPTED };

struct tv_entry {
	char		*id, *name, *summary;
	enum tv_state	 state;
	int		 turn;
	int64_t		 started;	/* ms, when it began running (0: not yet) */
	int64_t		 duration;	/* ms, once finished (-1: unknown) */
	struct buf	 out;		/* the tail of the live output */
};

struct toolview {
	struct tv_entry	*v;
	size_t		 n, cap;
};

void	 tv_init(struct toolview *);
void	 tv_release(struct toolview *);
/* A short description of a call's input; the caller frees. */
char	*tv_summary(const char *name, const cJSON *input);
/* The entry for id, or NULL. */
struct tv_entry *tv_find(struct toolview *, const char *id);
void	 tv_use(struct toolview *, const char *id, const char *name, const cJSON *input,
	    int turn);
void	 tv_waiting(struct toolview *, const char *id);
/*
 * An approval decision ("allow", "always", "deny").  The agent decides
 * when a call is next to run, so an allowed call is running from now on.
 */
void	 tv_decided(struct toolview *, const char *id, const char *decision, int64_t now);
void	 tv_progress(struct toolview *, const char *id, const char *out, size_t n, int64_t now);
void	 tv_result(struct toolview *, const char *id, bool is_error, int64_t duration_ms,
	    int64_t now);
/* The user interrupted the finished call (Esc): not a failure of its own. */
void	 tv_interrupted(struct toolview *, const char *id);
/* Is any entry running (the spinner's timer runs only then)? */
bool	 tv_any_running(const struct toolview *);
/* The last n lines of an entry's output, copied into lines[] (pointers into out). */
size_t	 tv_tail(const struct tv_entry *, size_t n, const char **lines, size_t *lens);
const char *tv_state_name(enum tv_state);

#endif
