/*
 * hooks_int.h: private to hooks.c and agent/hooks/: the hook types that
 * are not a command.  An "http" hook posts the event's JSON to a URL the
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

#endif
