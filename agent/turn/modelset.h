/*
 * modelset: the model the agent talks to and how a request is shaped for it.
 *
 * Owns the model and effort in use, what is known of the model (its caps
 * from the catalogue, the bounded wait for them), the window and the
 * calibration of the token estimate, the credentials (the key, the
 * apiKeyHelper's key, gateway headers), the request's output, thinking
 * and effort fields, the call's timeouts, and the price of a usage.
 */
#ifndef TANDEM_MODELSET_H
#define TANDEM_MODELSET_H

#include "turn_int.h"

struct modelset;

/*
 * The session's model (modelset.c's): the one the settings name, its
 * protocol and its server; what is known of it modelset_init fills.
 */
struct modelset *modelset_new(const struct config *cfg);
void	 modelset_free(struct modelset *);
/* The server the model is asked on (agent_model and agent_proto, agent.h and turn.h, the rest). */
const char *modelset_base_url(const struct agent *a);
/*
 * What it keeps of one conversation's requests (struct modelset_conv,
 * modelset.c's): the wait for the model's caps, the estimate sent.
 */
struct modelset_conv *modelset_conv_new(struct ev_loop *);
/* Free it; a wait is cancelled. */
void	 modelset_conv_free(struct modelset_conv *);
/* A request that waits for the model's caps (modelset_wait) waits no longer, nor is sent. */
void	 modelset_wait_cancel(struct conversation *cv);
/* The request going out is est estimated tokens (modelset_calibrate compares its usage). */
void	 modelset_sending(struct conversation *cv, int64_t est);
/* A request of the model goes out with what is known of it now. */
void	 modelset_caps_used(struct conversation *cv);
/* The price lines of /cost, the model's lines of /context. */
void	 modelset_report_prices(const struct conversation *cv, struct buf *out);
void	 modelset_report_model(const struct conversation *cv, struct buf *out);
/* The context window: the setting, else the model's. */
int64_t	 modelset_window(const struct conversation *cv);
/* The window in estimated tokens (compact_estimate's units), by the model's calibration. */
int64_t	 modelset_est_window(const struct conversation *cv);
/* Tokens for an estimate, calibrated. */
int64_t	 modelset_est_tokens(const struct conversation *cv, int64_t est);
/* Who is asking: the key (the key helper's first), a gateway token, custom headers. */
void	 modelset_auth(const struct conversation *cv, struct provider_request *pr);
/* The same as HTTP headers, for the model catalogue's requests (arg: the agent). */
struct curl_slist *modelset_auth_headers(void *arg);
/* Run apiKeyHelper again; its key replaces the one held.  0, or -1 with a sentence in err. */
int	 modelset_run_key_helper(struct conversation *cv, struct buf *err);
/* The request's output length, thinking and effort: only what this model takes. */
void	 modelset_shape_request(struct conversation *cv, struct provider_request *pr);
/* The catalogue answered for model (a modelcat callback; arg: the agent). */
void	 modelset_models_done(void *arg, const char *model, enum modelcat_outcome out,
	    const char *note);
/*
 * With nothing known of the model but tandem's table and the server's
 * answer on the way, the first request waits a bounded time for it (the
 * turn's models_wait phase; agent_call_model follows).  True: it waits.
 */
bool	 modelset_wait(struct conversation *cv);
/* Learn how many real tokens an estimated one is, from a request's usage. */
void	 modelset_calibrate(struct conversation *cv, const struct usage *u);
/* What a usage costs at the model's prices (0 when none is known). */
double	 modelset_cost(const struct conversation *cv, const struct usage *u);
/* The price of cache break br in the response with usage u (models.h: prices_break_cost). */
double	modelset_break_cost(const struct conversation *, const struct cachewatch_break *br,
	    const struct usage *u);
/* The timeouts of a model call that may write max_tokens tokens. */
void	 modelset_timeouts(const struct conversation *cv, int max_tokens, bool stall_on_progress,
	    struct http_timeouts *to);
/* The server refused a parameter of the request: ask the catalogue again. */
void	 modelset_forget(struct conversation *cv);
/*
 * At the agent's start: the model catalogue (its answer comes in the
 * background), the prices, the effort and the key helper's key.  0, or -1
 * with a sentence in err.
 */
int	 modelset_init(struct conversation *cv, char *err, size_t err_size);

#endif
