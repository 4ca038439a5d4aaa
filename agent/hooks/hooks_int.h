/*
 * hooks_int.h: private to agent/hooks/ (hooks.c and its parts; the
 * folder's public interface is agent/hooks.h).  The hook types that are
 * not a command.  An "http" hook posts the event's JSON to a URL the
 * settings allow (hook_http.c); a "prompt" hook asks the model, in one
 * small streamed call, whether the event may go on (hook_prompt.c).  Both
 * run on the loop through http.h and answer once, through done, on a
 * later loop turn; hook_remote_cancel stops one (no done after it).
 */
#ifndef TANDEM_HOOKS_INT_H
#define TANDEM_HOOKS_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct buf;
struct config;
struct http;
struct hook_remote;

/*
 * The answer: status (an HTTP status; 0 when none came) and the body (an
 * http hook's response; a prompt hook's model text), or error (one
 * sentence; then status and body say nothing).
 */
typedef void hook_remote_done(void *arg, long status, const char *body, size_t n,
    const char *error);

/*
 * POST input (JSON text) to hook's "url" with its "headers" ($VAR and
 * ${VAR} filled from the environment only for names in its
 * "allowedEnvVars", and in cfg->http_hook_env when that is set).  NULL with
 * a sentence in err when the URL is not one cfg->http_hook_urls allows.
 */
struct hook_remote *hook_http_start(struct http *, const struct config *, const cJSON *hook,
		    const char *input, int timeout_ms, hook_remote_done *, void *arg, struct buf *err);
/* Is url one the settings allow (cfg->http_hook_urls: patterns with *; NULL: any)? */
int		 hook_http_allowed(const struct config *, const char *url);

/*
 * Ask the model (hook's "model", else the session's) hook's "prompt", with
 * $ARGUMENTS replaced by input, told to answer {"ok": true} or {"ok":
 * false, "reason": "..."}.  The model's text comes to done.
 */
struct hook_remote *hook_prompt_start(struct http *, const struct config *, const cJSON *hook,
		    const char *input, int timeout_ms, hook_remote_done *, void *arg, struct buf *err);

void		 hook_remote_cancel(struct hook_remote *);

/* --- hooks.c and its parts (hook_output.c, hook_bus.c) ------------------ */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "hooks.h"

#define HOOK_OUT_MAX	(1024u * 1024)	/* stdout kept; a longer answer is refused */
#define HOOK_ERR_MAX	(64u * 1024)	/* stderr kept (the block reason) */

struct hook_event_def {
	const char	*name;
	const char	*subject;	/* the input member the matcher is tried on; NULL: none */
	bool		 can_block;	/* exit 2 / "block" means something */
};
extern const struct hook_event_def hook_events[HOOK_NEVENTS];

/* The hook types: "command" runs a program, "http" posts to a URL, "prompt" asks the model. */
enum hook_kind { HOOK_KIND_COMMAND, HOOK_KIND_HTTP, HOOK_KIND_PROMPT, HOOK_NKINDS };

/* A PreToolUse or PermissionRequest verdict being reached for one call, until its gate takes it. */
struct hook_pre {
	struct hooks		*h;
	enum hook_event		 ev;
	char			*id;
	struct hook_run		*run;		/* NULL once done */
	struct hook_outcome	 o;
	bool			 taken;		/* given to the gate once: later asks get a copy */
	void			(*kick)(void *);
	void			*arg;
	struct hook_pre		*next;
};

/* A PostToolUse run's caller. */
struct hook_post {
	char			*id;
	hook_post_fn		*done;
	void			*arg;
};

struct hooks {
	struct ev_loop		*loop;
	const struct config	*cfg;
	char			*session_id;
	char			*transcript_path;
	struct event_bus	*bus;
	struct hook_run		*runs;
	struct hook_pre		*pres;
	struct cctr		*tr;		/* the transcript in Claude Code's shape */
	struct http		*http;		/* http and prompt hooks' requests; made on first use */
	cJSON			*calls;		/* tool_use id -> {name, input}, for the bus's events */
	char			*last_error;	/* the turn's last fatal error, for StopFailure */
};

struct hook_proc {
	struct hook_run	*run;
	enum hook_kind	 kind;
	cJSON		*hook;		/* the handler's settings (a copy) */
	struct hook_remote *remote;	/* an http or prompt hook in flight */
	long		 http_status;
	char		*remote_error;
	char		*command;	/* what runs: the command, URL or prompt */
	int		 timeout_ms;
	pid_t		 pid;
	int		 out_fd, err_fd;
	struct buf	 out, err;
	bool		 out_over;	/* stdout passed HOOK_OUT_MAX */
	bool		 exited, timed_out, finished;
	int		 status;
	uint64_t	 timer;		/* the timeout; after exit, the linger */
	char		*spawn_error;
};

struct hook_run {
	struct hooks		*h;
	enum hook_event		 ev;
	hook_done_fn		*done;
	void			*arg;
	struct hook_proc	*procs;
	size_t			 nprocs, nleft;
	uint64_t		 deliver_timer;
	char			*sent_file_path;	/* the absolute file_path the hooks saw */
	struct hook_post	*post;			/* PostToolUse runs: the caller */
	struct hook_run		*next;
};

/* The tool events: matched on the tool's names, and the only ones an "if" rule applies to. */
bool	hooks_is_tool_event(enum hook_event);
/* A warning line into an outcome; a line appended to a list of lines. */
void	hooks_warn(struct hook_outcome *, const char *, ...) __attribute__((format(printf, 2, 3)));
void	hooks_append_line(char **dst, const char *line);
/* s without white space around it, copied. */
char	*hooks_trim(const char *s, size_t n);
/* A tool event's fields: tool_name, tool_input, tool_use_id, permission_mode (the caller's). */
cJSON	*hooks_tool_fields(const char *id, const char *tool, const cJSON *input, enum perm_mode);
/* The done callback of the hooks nobody waits for: their warnings and messages on the bus. */
void	hooks_notified(void *arg, struct hook_outcome *);

/* hook_output.c: one finished hook's answer (exit status, stdout, stderr) as an outcome, and their sum. */
void	hooks_interpret(const struct hook_run *, const struct hook_proc *, struct hook_outcome *one);
void	hooks_merge(struct hook_outcome *all, struct hook_outcome *one);

/* hook_bus.c: the events of the bus that start hooks not waited for. */
void	hooks_on_bus(struct hooks *, const cJSON *event);

#endif
