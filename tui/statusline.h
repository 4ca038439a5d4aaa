/*
 * statusline: Claude Code's statusLine setting, {"type": "command",
 * "command": "...", "padding": N}: a command whose first line of output
 * is the status bar.
 *
 * The command runs off the loop's critical path: a child process (bash -c,
 * in the project root, the secrets left out of its environment) that gets
 * Claude Code's status JSON on stdin (session_id, transcript_path, cwd,
 * model {id, display_name}, workspace {current_dir, project_dir}, version,
 * output_style, cost, context_window) and whose stdout is read on the
 * loop.  Updates are debounced (SL_DEBOUNCE_MS); one run at a time, the
 * newest update waits for it; a run is bounded (SL_TIMEOUT_MS, then killed
 * with its group).  Escape sequences and control characters of the output
 * are dropped.  A command that fails, times out or prints nothing gives
 * the bar back to tandem's own until a later run succeeds.
 *
 * struct statusline owns its child, its timers and its copies.
 */
#ifndef TANDEM_TUI_STATUSLINE_H
#define TANDEM_TUI_STATUSLINE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct buf;
struct ev_loop;
struct statusline;

#define SL_DEBOUNCE_MS	300
#define SL_TIMEOUT_MS	3000
#define SL_OUT_MAX	(64u * 1024)

/* What the command's input says of the session (any string may be NULL). */
struct sl_info {
	const char	*session_id;
	const char	*transcript_path;
	const char	*cwd;
	const char	*model;		/* the model's id */
	double		 cost_usd;
	int64_t		 duration_ms;	/* since the session's screen opened */
	int64_t		 ctx_tokens, ctx_window;
	int64_t		 total_in, total_out;
};

/*
 * A status line for setting (cfg->status_line), run in root; changed(arg)
 * is called when the text to show changes.  NULL when setting is NULL;
 * NULL with a sentence in why when it cannot be used (not a command).
 */
struct statusline *statusline_new(struct ev_loop *, const cJSON *setting, const char *root,
		    void (*changed)(void *), void *arg, struct buf *why);
void		 statusline_free(struct statusline *);
/* The session changed: run the command again (debounced).  The strings are copied. */
void		 statusline_update(struct statusline *, const struct sl_info *);
/* The line to show (padding included), or NULL: tandem's own bar. */
const char	*statusline_text(const struct statusline *);
/* Why the last run gave no line ("timed out after 3 s"), or NULL. */
const char	*statusline_error(const struct statusline *);
/* A run is in progress. */
bool		 statusline_running(const struct statusline *);

/* Claude Code's display name of a model id: "claude-sonnet-4-5" -> "Sonnet 4.5". */
void		 statusline_model_name(const char *id, struct buf *out);

#endif
