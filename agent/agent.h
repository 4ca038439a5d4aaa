/*
 * agent: one conversation with a model, driven by the event loop.
 *
 * Front ends (tui/, the headless printer, tests) drive it with a handful of
 * calls and learn everything that happens from the event stream (event.h).
 * Nothing here blocks: agent_submit() starts a turn and returns; the turn
 * runs on the loop, emitting events, until turn_end.
 */
#ifndef TANDEM_AGENT_H
#define TANDEM_AGENT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "usercmd.h"

struct agent;
struct ev_loop;
struct event_bus;
struct config;
struct buf;

enum perm_mode {
	PERM_ASK,		/* every write and command asks */
	PERM_ACCEPT_EDITS,	/* edits apply; commands ask */
	PERM_PLAN,		/* nothing changes: writes and commands are refused */
	PERM_YOLO		/* everything is allowed */
};

enum approval {
	APPROVAL_ALLOW,
	APPROVAL_DENY,
	APPROVAL_ALWAYS,	/* allow, and remember a rule for the session */
	APPROVAL_NEVER		/* deny, and deny calls like it for the rest of the session */
};

/*
 * A new agent on loop, emitting on bus, configured by cfg (which must
 * outlive it).  resume_id: go on with that session (NULL: a new one);
 * fork: with resume_id, go on in a new session copied from it.
 * interactive: somebody can answer approval requests (a resumed
 * conversation is then replayed as events for the screen).
 * NULL with a sentence in err (err_size bytes) on failure.
 */
struct agent	*agent_new(struct ev_loop *, struct event_bus *, const struct config *cfg,
		    const char *resume_id, bool fork, bool interactive,
		    char *err, size_t err_size);
void		 agent_free(struct agent *);

/*
 * Start a turn with prompt; -1 when a turn is already running.  After a
 * write of the session failed, the session is first read again from disk
 * (and replayed as events); -2 when that fails too (an error event says
 * why; the prompt was not taken).
 */
int		 agent_submit(struct agent *, const char *prompt);
bool		 agent_busy(const struct agent *);
/*
 * Answer the approval_request for tool_use id.  reason (may be NULL) goes
 * to the model with a denial.  For an edit, edited_input (may be NULL)
 * replaces the tool's input (the user changed the proposal); not owned.
 */
void		 agent_answer(struct agent *, const char *id, enum approval,
		    const char *reason, const cJSON *edited_input);
/*
 * Keep text (copied) as a content block of the next prompt's user message,
 * after the prompt itself: a user command's framed output, an attachment.
 */
void		 agent_attach(struct agent *, const char *text);
/*
 * Keep the image in file (tandem's own, e.g. a paste) for the next prompt,
 * checked and stored in the session's files/ (attach.h); 0, or -1 with err.
 */
int		 agent_attach_image(struct agent *, const char *file, const char *name, struct buf *err);
/* Run the user's own shell command (usercmd.h) in the workspace root. */
struct usercmd	*agent_user_command(struct agent *, const char *command, usercmd_output_fn *output,
		    usercmd_done_fn *done, void *arg);
/*
 * Allow the waiting call id with input in place of its own (a host changed
 * it, as a hook's updatedInput does): checked against the rules and the
 * mode again first.  0; -1 when id is not waiting, or when the rules deny
 * the new input (the call is then denied, the sentence in why).
 */
int		 agent_answer_updated(struct agent *, const char *id, const cJSON *input,
		    struct buf *why);
/* Instructions of a host (an SDK's system prompt) added to the system prompt's dynamic part; copied. */
void		 agent_set_host_prompt(struct agent *, const char *text);
/*
 * Start the MCP servers again from the configuration (after a host added
 * --mcp-config entries to it, as an SDK's initialize does); the next turn
 * takes their tools.  0; -1 while a turn runs.
 */
int		 agent_mcp_restart(struct agent *);
/* The MCP resources as mentions, "server:uri" each followed by a NUL (mcp_mentions). */
void		 agent_mcp_mentions(struct agent *, struct buf *out);
/* Stop the running turn: abort the stream, kill tools; every tool_use gets a result. */
void		 agent_interrupt(struct agent *);
/*
 * Emit the session event again and, for a resumed session, its
 * conversation as replayed events (replay: true), for a front end that
 * subscribed after agent_new.
 */
void		 agent_replay(struct agent *);
/*
 * Go on with session id (listed by `tandem sessions`) in place of the
 * current conversation: 0, or -1 (busy, unknown or damaged session) with
 * one sentence in report.  The session event and the replayed
 * conversation follow.
 */
int		 agent_resume(struct agent *, const char *id, struct buf *report);

/* Compact the conversation now (/compact); focus may be NULL. -1 when busy. */
int		 agent_compact(struct agent *, const char *focus);
/* Start a new, empty conversation (/clear). -1 when busy. */
int		 agent_clear(struct agent *);
/*
 * A human-readable report for a slash command: what is "context" (tokens,
 * window, stage, cache efficiency, the last cache break), "cost" (tokens
 * and dollars, last request and session), or "memory" (the memory files
 * loaded).  Appended to out.
 */
void		 agent_report(struct agent *, const char *what, struct buf *out);

/*
 * The turns of the conversation, for the turn browser: an array of
 * {turn, prompt, tools: [names], files: [paths changed by tandem's tools],
 * bash: bool (run_bash ran: its changes are not tracked), tokens, ms,
 * time}.  The caller frees it.
 */
cJSON		*agent_turns(struct agent *);

/*
 * Turn's changes (its tools' and commands', undone ones left out) as one
 * git-style unified diff appended to out, for the diff pane, --diff and
 * `git apply -R`; binary files, links, directories and content not kept
 * are named on lines of their own (agent/turndiff.c).  0, or -1 with err
 * when there is no such turn.
 */
int		 agent_turn_diff(struct agent *, int turn, struct buf *out, struct buf *err);

enum rewind_what {
	REWIND_CONVERSATION = 1,
	REWIND_FILES = 2,
	REWIND_BOTH = 3
};

/*
 * Go back to just before turn's prompt: the conversation, the files
 * tandem's tools changed (restored from their snapshots), or both.  A
 * rewind is a record in the log: nothing is deleted, and agent_redo undoes
 * it.  A file changed outside tandem since tandem last wrote it is left
 * alone unless force.  report says what was done.  0; 1 when some file
 * was left alone; -1 (busy, no such turn) with the reason in report.
 * A "rewind" event follows, then the conversation replayed as events.
 */
int		 agent_rewind(struct agent *, int turn, enum rewind_what, bool force,
		    struct buf *report);
/* Undo the last rewind, if the conversation has not moved on since. */
int		 agent_redo(struct agent *, bool force, struct buf *report);
/*
 * Go on in a new session holding the conversation through turn (0: all),
 * with its own log and an empty effects ledger; its first run_bash is
 * shown, not run, until the user confirms.  A session event follows.
 */
int		 agent_fork(struct agent *, int turn, struct buf *report);
/* The session this one was forked from, or NULL. */
const char	*agent_forked_from(const struct agent *);

enum perm_mode	 agent_mode(const struct agent *);
struct mcp;
/* The agent's MCP servers (mcp.h), or NULL when none are configured. */
struct mcp	*agent_mcp(const struct agent *);
void		 agent_set_mode(struct agent *, enum perm_mode);
const char	*agent_model(const struct agent *);
void		 agent_set_model(struct agent *, const char *model);
/*
 * The model a definition of the project's own (an agent definition of
 * <root>/.claude/agents or .tandem/agents, a command of its .claude or
 * .tandem commands; def names it and its file, as the line below says it)
 * asks for in place of the session's model: model itself, or NULL (the
 * session's model answers) while the project is untrusted and model costs
 * more per token than the session's (models.h: prices_dearer, at the price
 * file's and the user's "prices"), as a project's settings' model does
 * (config.h).  A NULL is said in an error event (not fatal), once per
 * definition and model.
 */
const char	*agent_project_model(struct agent *, const char *def, const char *model);
/*
 * Whether agent_project_model would hold model back now: then why gets
 * "costs more per token than the session's M" (or "has no price ...").
 */
bool		 agent_project_model_held(struct agent *, const char *model, struct buf *why);
/*
 * Run the settings' apiKeyHelper: its first line of output is the key
 * (*key, the caller frees; NULL when there is no helper).  0, or -1 with
 * a sentence in err.
 */
int		 agent_key_helper(const struct config *, char **key, struct buf *err);
/* The effort level of the next requests (NULL or "": the model's default). */
void		 agent_set_effort(struct agent *, const char *level);
const char	*agent_effort(const struct agent *);
struct model_caps;
/* What is known of the model now (models.h); the agent's. */
const struct model_caps *agent_model_caps(const struct agent *);
/*
 * The models the server offers, as a table (`tandem models`), in the
 * background: fn gets the text, or NULL and a sentence.  The agent must
 * outlive the answer.
 */
typedef void agent_models_fn(void *arg, const char *table, const char *err);
void		 agent_list_models(struct agent *, agent_models_fn *, void *arg);
const char	*agent_session_id(const struct agent *);
/* The session's directory (its log, files/, queue.json), or NULL. */
const char	*agent_session_dir(const struct agent *);

/* The static, cacheable part of the system prompt (for bench/). */
const char	*agent_system_prompt(void);

const char	*perm_mode_name(enum perm_mode);
/* 0 and *out, or -1 for an unknown name. */
int		 perm_mode_parse(const char *name, enum perm_mode *out);

#endif
