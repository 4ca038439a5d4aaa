/*
 * hooks: user commands run at points of a session, in the shape Claude Code
 * users already write (settings "hooks": {"PreToolUse": [{"matcher": "Bash",
 * "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}).
 *
 * A hook is a child process on the event loop: it gets the event as one
 * JSON object on stdin, may answer with JSON on stdout, and its exit status
 * says the rest (0: read stdout; 2: block, stderr is the reason; anything
 * else: a warning, and the session goes on).  Every hook that matches an
 * event runs at once, in parallel; when the last one is done, their answers
 * are merged (in settings order) into one hook_outcome for the caller.
 * Nothing here blocks: hooks_run returns at once and the answer comes
 * through a callback on a later turn of the loop.
 *
 * The matcher is a PCRE2 regular expression that must match a whole name:
 * for PreToolUse and PostToolUse the tool's (tandem's name or any Claude
 * Code alias of it, so "Bash" and "run_bash" both match run_bash); for
 * SessionStart the source, PreCompact the trigger, SessionEnd the reason,
 * Notification the notification_type, SubagentStart and SubagentStop the
 * agent_type.  Missing, "" and "*" match anything;
 * other events ignore the matcher.
 *
 * The hooks are read from cfg->hooks each time (so a project trusted after
 * hooks_new takes effect at once); struct hooks owns its runs and their
 * children.  A run's outcome belongs to the runner: the done callback may
 * take any of its pointers by setting the member to NULL.
 */
#ifndef TANDEM_HOOKS_H
#define TANDEM_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent.h"

struct buf;
struct config;
struct ev_loop;
struct event_bus;
struct hooks;
struct hook_run;

#define HOOK_TIMEOUT_DEFAULT_S	60
#define HOOK_TIMEOUT_MAX_S	3600

enum hook_event {
	HOOK_SESSION_START,
	HOOK_USER_PROMPT_SUBMIT,
	HOOK_PRE_TOOL_USE,
	HOOK_POST_TOOL_USE,
	HOOK_STOP,
	HOOK_PRE_COMPACT,
	HOOK_SESSION_END,
	HOOK_NOTIFICATION,
	HOOK_POST_TOOL_USE_FAILURE,	/* a call's result is an error (instead of PostToolUse) */
	HOOK_PERMISSION_REQUEST,	/* a call needs a person: a hook may answer instead */
	HOOK_PERMISSION_DENIED,		/* a rule or the mode refused a call */
	HOOK_POST_COMPACT,
	HOOK_STOP_FAILURE,		/* the turn ended on an API error */
	HOOK_INSTRUCTIONS_LOADED,	/* a memory file went into the prompt */
	HOOK_SUBAGENT_START,		/* a subagent's prompt: its context may grow (instead of UserPromptSubmit) */
	HOOK_SUBAGENT_STOP,		/* a subagent is done: "block" sends it on (instead of Stop) */
	HOOK_NEVENTS
};

/* Ordered: when hooks disagree, the larger wins. */
enum hook_decision {
	HOOK_CONTINUE,		/* no opinion: go on as without hooks */
	HOOK_ALLOW,		/* PreToolUse: run the call without asking anyone */
	HOOK_ASK,		/* PreToolUse: ask the user even where rules allow */
	HOOK_BLOCK,		/* UserPromptSubmit: drop the prompt; PostToolUse: tell
				   the model; Stop: do not stop, go on with the reason */
	HOOK_DENY		/* PreToolUse: refuse the call; the reason goes to the model */
};

struct hook_outcome {
	enum hook_decision decision;
	char	*reason;		/* why (deny, block, ask); NULL if none was given */
	cJSON	*updated_input;		/* PreToolUse: the input to use instead; NULL */
	char	*additional_context;	/* text for the model; NULL */
	char	*system_message;	/* text for the user; NULL */
	bool	 stop;			/* a hook said "continue": false: end the turn */
	char	*stop_reason;		/* its "stopReason" for the user; NULL */
	char	*warnings;		/* one line per hook that failed, timed out or
					   printed malformed JSON; NULL if none */
	int	 nhooks;		/* how many hooks ran */
};

typedef void hook_done_fn(void *arg, struct hook_outcome *);

/* "PreToolUse" ...; and back (-1 for an unknown name). */
const char	*hooks_event_name(enum hook_event);
int		 hooks_event_parse(const char *name);
/* Claude Code's name of a permission mode ("default", "acceptEdits", "plan", "bypassPermissions"). */
const char	*hooks_mode_name(enum perm_mode);

/*
 * Problems in a "hooks" settings object (may be NULL), one line each, into
 * warnings: a matcher that is not a valid expression, an entry without
 * hooks, a hook without a command, a bad timeout.  Such entries never run.
 * What tandem reads and does not honour (an event it has no moment for, a
 * hook type it lacks) is not here: config_load names it as a notice
 * through hooks_unhonoured, once, with its settings file.
 */
void		 hooks_validate(const cJSON *hooks, struct buf *warnings);

/* Hooks for cfg (which must outlive them) on loop. */
struct hooks	*hooks_new(struct ev_loop *, const struct config *cfg);
/* Kills every hook still running; no done callback fires after it. */
void		 hooks_free(struct hooks *);
/* The session the hooks' input names (both copied; NULL leaves a value as is). */
void		 hooks_set_session(struct hooks *, const char *session_id, const char *transcript_path);
/*
 * Run Notification hooks for the approval requests on bus (the same
 * moment Claude Code notifies: the agent waits for the user), and, not
 * waited for, PermissionDenied (an approval denied by a rule or the
 * mode), PostCompact (a compaction), StopFailure (a turn that ended on an
 * error), InstructionsLoaded (each memory file, when the session starts);
 * warnings become non-fatal error events.  The events also feed the
 * transcript (hooks/cctranscript.h).
 */
void		 hooks_attach(struct hooks *, struct event_bus *);

/*
 * What a "hooks" settings object (may be NULL) holds that tandem does not
 * honour: Claude Code's events tandem has no moment for (and unknown ones),
 * hook types other than command, http and prompt, and handler fields
 * tandem ignores.  fn is called once per item with its kind ("hook event",
 * "hook type", "hook field"), its name and why; the never-silent notice
 * (claude/notice.h) takes them with the settings file's name.
 */
typedef void hooks_unhonoured_fn(void *arg, const char *kind, const char *name, const char *why);
void		 hooks_unhonoured(const cJSON *hooks, hooks_unhonoured_fn *, void *arg);

/* Would any hook run for ev and this subject (tool name, source, ...; NULL: any)? */
bool		 hooks_has(const struct hooks *, enum hook_event, const char *subject);
/*
 * Run every hook matching ev.  fields (not taken; may be NULL) is merged
 * into the hook's input: tool_name (tandem's or an alias), tool_input,
 * tool_use_id, tool_response, prompt, source, trigger, reason, message,
 * stop_hook_active, permission_mode, ...  The input's tool_name is the
 * Claude Code name where the tool has one, with "tandem_tool_name" beside
 * it, and a file tool's tool_input also carries Claude Code's "file_path"
 * (absolute).  done is called once, on a later loop turn, with the merged
 * outcome.  NULL when no hook matches (done is then never called).
 */
struct hook_run	*hooks_run(struct hooks *, enum hook_event, const cJSON *fields,
		    hook_done_fn *done, void *arg);
/* Kill a run's hooks and forget it: its done callback will not fire. */
void		 hooks_cancel(struct hook_run *);
/* Free what an outcome holds (for outcomes the caller was handed to keep). */
void		 hook_outcome_release(struct hook_outcome *);

/*
 * PreToolUse from a scheduler gate, which is asked again for the same call
 * after SCHED_LATER.  The first time the hooks start and this returns 1:
 * answer SCHED_LATER; kick(arg) is called when they are done (call
 * sched_kick there).  Asked again while they run: 1.  Once they are done:
 * 0, with their outcome in *out (release it with hook_outcome_release);
 * asked again for the same call (the gate starts over after a later
 * stage waited), the same verdict without its notes, until
 * hooks_cancel_tools.  When no hook matches: 0 at once, with an empty
 * outcome (HOOK_CONTINUE, nhooks 0).
 */
int		 hooks_pre_tool(struct hooks *, const char *id, const char *tool,
		    const cJSON *input, enum perm_mode, void (*kick)(void *), void *arg,
		    struct hook_outcome *out);
/*
 * PermissionRequest from the gate, just before a call would wait for a
 * person: as hooks_pre_tool.  An outcome of HOOK_ALLOW (with its
 * updated_input, may be NULL) runs the call without asking; HOOK_DENY
 * refuses it with the reason; anything else asks the person.
 */
int		 hooks_permission_request(struct hooks *, const char *id, const char *tool,
		    const cJSON *input, enum perm_mode, void (*kick)(void *), void *arg,
		    struct hook_outcome *out);
/*
 * PostToolUse for a finished call (result: what the model will see); for
 * a call whose result is an error, PostToolUseFailure (with "error" and
 * "is_interrupt" instead of "tool_response"), as Claude Code does.
 * done(arg, id, outcome) comes on a later loop turn; 0 when no hook
 * matches (done never comes), else 1.
 */
typedef void hook_post_fn(void *arg, const char *id, struct hook_outcome *);
int		 hooks_post_tool(struct hooks *, const char *id, const char *tool,
		    const cJSON *input, const char *result, size_t n, bool is_error,
		    enum perm_mode, hook_post_fn *done, void *arg);
/* PostToolUse runs in flight: the results wait for them. */
int		 hooks_post_pending(const struct hooks *);
/* Kill and forget every PreToolUse and PostToolUse run (interrupt, end of turn). */
void		 hooks_cancel_tools(struct hooks *);
/* Runs in progress. */
int		 hooks_pending(const struct hooks *);
/* At exit (SessionEnd): run the loop until no run is left, at most timeout_ms. */
void		 hooks_drain(struct hooks *, int timeout_ms);

/*
 * A tool_response for PostToolUse from a tool's result: {"content",
 * "is_error", "success"}, and for run_bash also "stdout" (the combined
 * output) and "stderr" ("") as Claude Code's Bash response has them.
 * The caller owns it.
 */
cJSON		*hooks_tool_response(const char *tool_name, const char *content, size_t n,
		    bool is_error);

#endif
