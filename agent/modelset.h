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

#include "agent_int.h"

int64_t	 modelset_window(const struct agent *a);
int64_t	 modelset_est_window(const struct agent *a);
int64_t	 modelset_est_tokens(const struct agent *a, int64_t est);
void	 modelset_auth(const struct agent *a, struct provider_request *pr);
struct curl_slist *	 modelset_auth_headers(void *arg);
int	 modelset_run_key_helper(struct agent *a, struct buf *err);
void	 modelset_shape_request(struct agent *a, struct provider_request *pr);
void	 modelset_models_done(void *arg, const char *model, enum modelcat_outcome out, const char *note);
bool	 modelset_wait(struct agent *a);
void	 modelset_calibrate(struct agent *a, const struct usage *u);
double	 modelset_cost(const struct agent *a, const struct usage *u);
void	 modelset_timeouts(const struct agent *a, int max_tokens, bool stall_on_progress,
    struct http_timeouts *to);

#endif
