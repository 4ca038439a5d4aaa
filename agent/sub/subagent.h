/*
 * subagent: the agent tool and the subagents it runs.
 *
 * A subagent is a second conversation of the session (DESIGN.md §12a):
 * the agent tool (Claude Code's Agent/Task shape: description, prompt,
 * subagent_type, model) opens one with its type's system prompt and
 * tools, sends it the prompt and, when its turn ends, gives the calling
 * conversation the subagent's final answer and a line of its cost.  It
 * runs on the loop as an asynchronous tool, so several calls of one
 * response run at once.
 *
 * The session owns one struct subagents (sub_new, sub_free).  The turn
 * asks it about every call of every conversation (sub_gate): a subagent
 * may call only its type's tools, and a call that changes things waits
 * while another conversation's such call runs (sub_started and
 * sub_finished hold that one slot), so the snapshots around each write
 * stay its own.  What a subagent does is told on the caller's bus: its
 * tool calls as the agent call's progress (one line each), its approval
 * requests with "subagent" saying who asks, and a "subagent" event per
 * change of its state (start, tool, usage, end) with parent_tool_use_id.
 * A background run (run_in_background) gives its call a result at once
 * (agent_N); bash_output and kill_shell reach it through bgshell's hook
 * for other ids, and its end goes to the caller's next prompt.
 *
 * The subagents reach their conversations only through the host's
 * functions (struct sub_host, given by the turn), never its structs.
 */
#ifndef TANDEM_SUBAGENT_H
#define TANDEM_SUBAGENT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "hooks.h"
#include "tool.h"

struct conversation;
struct event_bus;
struct ev_loop;
struct subtype;

/* What a subagent's conversation is opened with. */
struct sub_spec {
	const char	*system;	/* its system prompt */
	const struct subtype *type;	/* its tools: subtype_allows */
	const char	*model;		/* a model id; NULL: the session's as the subagent starts */
};

/* What the turn gives the subagents (agent/turn/subhost.c). */
struct sub_host {
	/* A new conversation of session on bus, its tools filtered by spec; NULL on failure. */
	struct conversation *(*open)(void *session, struct event_bus *bus, const struct sub_spec *);
	/* Send it the prompt as part of parent's turn: 0, or -1. */
	int	(*submit)(struct conversation *, struct conversation *parent, const char *prompt);
	/* Stop its turn (Esc): its calls end interrupted, then its turn ends. */
	void	(*stop)(struct conversation *);
	void	(*close)(struct conversation *);
	/* The conversation that holds the tool call id, or NULL. */
	struct conversation *(*owner)(void *session, const char *id);
	struct event_bus *(*bus)(struct conversation *);
	/* Gate again every conversation's calls that were told to wait. */
	void	(*kick)(void *session);
	/* A subagent's cost joins its caller's (the session's total); its tokens stay apart. */
	void	(*charge)(struct conversation *, double cost);
	/* Whether the conversation is the front ends' (background runs are its only). */
	bool	(*is_main)(struct conversation *);
	/* Text for the conversation's next prompt (a background run's end). */
	void	(*inbox)(struct conversation *, const char *text);
	/* A subagent's call joins its caller's turn's list of tools (the turn browser's). */
	void	(*note_tool)(struct conversation *, const char *name);
	/* Append rec (taken) to the session's log: 0, or -1. */
	int	(*log)(struct conversation *, cJSON *rec);
	/*
	 * The model id an alias (haiku, sonnet, opus) means with the session's
	 * provider; NULL: keep.  def is the definition that names it when that is
	 * the project's (agent.h: agent_project_model), else NULL.
	 */
	const char *(*model_for)(void *session, const char *alias, const char *def);
	/*
	 * Whether a project's definition's model (an alias or an id) waits for
	 * trust now, with the reason appended to why; NULL: never.
	 */
	bool	(*model_held)(void *session, const char *alias, struct buf *why);
};

/* sub_gate's answers. */
enum sub_verdict {
	SUB_PASS,		/* the rest of the gate decides */
	SUB_REFUSE,		/* the reason is in why */
	SUB_LATER		/* another conversation is changing things: wait */
};

struct subagents;

/* The session's subagents; root and home find the agent definition files. */
struct subagents *sub_new(struct ev_loop *, const struct sub_host *, void *session,
		    const char *root, const char *home);
/*
 * The session ends: from now on the subagents tell nothing, start nothing
 * and their calls' cancels do nothing, while the session frees every
 * conversation.  Then sub_free frees them (their conversations are gone).
 */
void		 sub_close(struct subagents *);
void		 sub_free(struct subagents *);
/* The agent tool (its tandem name "agent", or Agent and Task), else NULL. */
const struct tool_def *sub_tool(struct subagents *, const char *name);
/* The agent tool's schema for the tools list, added to tools (an array). */
void		 sub_tool_json(struct subagents *, cJSON *tools);
/* Whether cv may call tool (def: its definition) now; exclusive: the call changes things. */
enum sub_verdict sub_gate(struct subagents *, struct conversation *cv, const char *tool,
		    const struct tool_def *def, bool exclusive, struct buf *why);
/* A call the gate let through started, or finished (holds and frees the writer's slot). */
void		 sub_started(struct subagents *, struct conversation *cv, bool exclusive);
void		 sub_finished(struct subagents *, struct conversation *cv, bool exclusive);
/* Whether cv is a subagent's conversation; its description for an approval ("Explore: ..."). */
const char	*sub_who(struct subagents *, const struct conversation *cv);
/*
 * The hooks a conversation's turn runs: UserPromptSubmit and Stop for the
 * main one, SubagentStart and SubagentStop for a subagent, whose type is
 * then *type (the matcher's subject) and whose agent_id and agent_type
 * join fields (when not NULL).
 */
enum hook_event	 sub_hook_event(struct subagents *, const struct conversation *cv, bool stop,
		    const char **type, cJSON *fields);
/* The types and their sources for /agents. */
void		 sub_describe(struct subagents *, struct buf *out);
/* The subagents' runs, tokens and cost so far, a line for /cost (nothing before the first). */
void		 sub_cost_report(const struct subagents *, struct buf *out);
/* The definition files' problems (a sentence a line), or NULL: for the user at start. */
const char	*sub_warnings(const struct subagents *);
/*
 * A message of cv's (role and its content), or blocks joined to its last
 * message: if cv is a subagent's, to the session's log now, as a "submsg"
 * record with its parent call (so a crash loses none of what it did).
 * 0, or -1 when the log could not be written.
 */
int		 sub_record(struct subagents *, struct conversation *cv, const char *role,
		    const cJSON *content);
/*
 * What the subagent of the agent call parent said and did, from the
 * session's "submsg" records: "subagent" events with replay set on bus
 * (text, tool, tool_result), for a front end showing a resumed session.
 */
void		 sub_replay(const cJSON *submsgs, const char *parent, struct event_bus *bus);
/* Its calls' names, attributed ("grep (Explore)"), added to names (an array). */
void		 sub_tool_names(const cJSON *submsgs, const char *parent, cJSON *names);
/* Subagents running now. */
int		 sub_running(const struct subagents *);

#endif
