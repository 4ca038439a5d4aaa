/*
 * agent_int: what the agent's modules share (agent.c, prompt, modelset,
 * gate, call, timeline, resume, emit): struct agent and the turn's
 * functions the others call.  Not for front ends: they use agent.h.
 */
#ifndef TANDEM_AGENT_INT_H
#define TANDEM_AGENT_INT_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cachewatch.h"
#include "compact.h"
#include "config.h"
#include "conv.h"
#include "ev.h"
#include "fsutil.h"
#include "event.h"
#include "http.h"
#include "hooks.h"
#include "json.h"
#include "memory.h"
#include "modelcat.h"
#include "models.h"
#include "perm.h"
#include "provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "session.h"
#include "stream.h"
#include "xalloc.h"

#define AGENT_MAX_CONTINUATIONS	3
#define AGENT_MAX_STOP_BLOCKS	3	/* Stop hooks that keep a turn going, in a row */
#define AGENT_SESSION_END_MS	5000	/* how long SessionEnd hooks may hold the exit */
#define AGENT_ERRBODY_MAX	(256 * 1024)
#define AGENT_PROGRESS_FULL	(2u * 1024 * 1024)
#define AGENT_NOT_SAVED "not run: the session could not be saved, so nothing more runs in this turn"


struct agent {
	struct ev_loop		*loop;
	struct event_bus	*bus;
	const struct config	*cfg;
	bool			 interactive;
	struct http		*http;
	struct sched		*sched;
	struct tool_env		 env;
	struct sandbox_policy	 policy;	/* the deny rules, for the tools' walks */
	struct conv		 conv;
	cJSON			*tools;
	char			*sys_static;
	char			*sys_dynamic;
	char			*model;
	char			*base_url;
	struct session		*session;
	bool			 resumed;	/* the session was resumed, not started */
	char			*snap_dir;
	bool			 checkpoint_a;	/* side-effecting tools may run */
	bool			 fork_dry_run;	/* a fork's first run_bash is shown, not run */
	enum stream_proto	 proto;
	enum perm_mode		 mode;
	struct perm_rules	*session_rules;	/* "always" answers */
	struct redact_stream	 progress_redact;	/* the running call's output */

	/* The turn in progress. */
	bool			 busy;
	bool			 interrupting;
	bool			 failed;
	bool			 unsaved_told;	/* the session's failed write was reported */
	int			 turn;
	int			 calls;		/* model calls in this turn */
	int			 continuations;
	int			 attempt;	/* retries of this call */
	struct http_req		*req;
	struct stream		*stream;
	long			 status;
	struct buf		 errbody;
	bool			 stream_done;	/* the response is complete and recorded */
	char			*stop_reason;
	bool			 paused;	/* pause_turn: the next response goes on with this one */
	bool			 continuing;	/* the next response's text goes on with the answer */
	struct buf		 answer;	/* the text of the turn's answer: the result's */
	uint64_t		 retry_timer;
	size_t			 progress_bytes;

	struct usage		 last, totals;
	double			 cost;

	/* The model: its limits and capabilities, prices, the key (models.h, modelcat.h). */
	struct modelcat		*cat;
	struct model_caps	 caps;		/* of model, as best known now */
	struct prices		*prices;
	char			*effort;	/* /effort, else the setting; NULL: none */
	char			*helper_key;	/* apiKeyHelper's output */
	bool			 helper_retried; /* a 401 ran the helper again for this call */
	bool			 models_waited;	/* the first request of model waited once */
	bool			 caps_sent;	/* a request of model went out with caps */
	uint64_t		 models_timer;	/* that wait */
	int64_t			 est_sent;	/* the estimated tokens of the request in flight */
	bool			 think_noted;	/* the note about an unused setting was given */
	char			*models_note;	/* why the limits come from the table */

	/* Context economy. */
	struct cachewatch	*cw;
	struct compact_thresholds th;
	enum compact_stage	 stage;		/* the deepest stage applied */
	int			 summary_failures;
	bool			 overflow_retried;
	struct {
		struct http_req	*req;
		struct stream	*stream;
		long		 status;
		struct buf	 errbody;
		int		 keep;
		int64_t		 tokens_before;
		bool		 then_call;	/* a model call waits for it */
	} sum;
	bool			 compacting;	/* a /compact summary is running */

	/* For the turn's record in the log (the turn browser reads it). */
	char			*turn_prompt;
	int64_t			 turn_started;
	cJSON			*turn_tools;
	int64_t			 turn_tokens;

	/* Hooks and memory files (hooks.h, memory.h). */
	struct hooks		*hooks;
	struct hook_run		*hook_run;	/* UserPromptSubmit or Stop: the turn waits for it */
	struct hook_run		*start_run;	/* SessionStart */
	bool			 prompt_waits;	/* the prompt waits for SessionStart */
	bool			 hook_stop;	/* a hook said "continue": false */
	int			 stop_blocks;	/* Stop hooks that kept this turn going */
	char			*session_context;	/* SessionStart hooks' additionalContext */
	char			*memory;	/* the memory files, for the dynamic system prompt */
	char			*memory_report;	/* for /memory */
};

bool	 agent_path_denied(void *arg, enum sandbox_access access, const char *path);
int	 agent_unsaved(struct agent *a);
int	 agent_halt(struct agent *a);
int	 agent_add(struct agent *a, const char *role, cJSON *content);
void	 agent_emit_session(struct agent *a, bool resumed);
void	 agent_emit_approval(struct agent *a, const char *id, const char *decision, const char *by);
void	 agent_hook_notes(struct agent *a, const struct hook_outcome *o);
void	 agent_on_text(void *arg, int index, const char *s, size_t n);
void	 agent_on_thinking(void *arg, int index, const char *s, size_t n);
void	 agent_on_block(void *arg, int index, const cJSON *block);
void	 agent_fail(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void	 agent_response_done(struct agent *a, const char *stop_reason);
void	 agent_compacted(struct agent *a, enum compact_stage stage, int64_t before, int64_t after);
bool	 agent_auto_compact(struct agent *a);
void	 agent_session_start(struct agent *a, const char *source);

#endif
