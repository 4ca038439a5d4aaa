/*
 * modelcat: the model catalogue — each model's limits and capabilities as
 * its provider states them, fetched in the background and cached.
 *
 * Sources, asked in the background on the loop (nothing waits for them
 * but, for a bounded time, the first request of a model with no cached
 * answer):
 *   anthropic: GET /v1/models/{id} (ModelInfo: max_input_tokens,
 *              max_tokens, capabilities), and GET /v1/models to list;
 *   openai:    GET /v1/models (vLLM's max_model_len and the like, where the
 *              server says anything), then llama.cpp's GET /props (n_ctx),
 *              then Ollama's GET /api/ps (the running model's context) and
 *              POST /api/show (its parameters, num_ctx).
 * Answers are cached in TANDEM_HOME/models.json per base URL and model and
 * refreshed when older than a day; offline, the cached answer or the
 * built-in table (models.h) stands.
 *
 * The parse functions are pure, for tests and fuzzing.  Ownership: the
 * catalogue owns its entries; modelcat_get copies into the caller's
 * struct, which the caller releases (model_caps_release).
 */
#ifndef TANDEM_MODELCAT_H
#define TANDEM_MODELCAT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "models.h"
#include "stream.h"

struct buf;
struct ev_loop;
struct http;
struct modelcat;

#define MODELCAT_MAX_AGE_S	86400	/* a cached answer older than this is asked again */

/* What the provider said of the model, for a note. */
enum modelcat_outcome {
	MODELCAT_FOUND,		/* the server described the model */
	MODELCAT_UNKNOWN_MODEL,	/* the server lists its models, and this one is not among them */
	MODELCAT_UNAVAILABLE	/* no answer (404, 401, a timeout, a gateway): the table stands */
};

/*
 * Builds the headers of a request to the provider (auth, version); the
 * catalogue frees them.  Set by the owner, who knows the keys.
 */
typedef struct curl_slist *modelcat_headers_fn(void *arg);
/* A refresh finished; caps is the model's best caps now. */
typedef void modelcat_done_fn(void *arg, const char *model, enum modelcat_outcome,
    const char *note);

struct modelcat_opts {
	struct ev_loop		*loop;
	struct http		*http;
	enum stream_proto	 proto;
	const char		*base_url;	/* with or without /v1 */
	const char		*home;		/* TANDEM_HOME; NULL: no cache */
	modelcat_headers_fn	*headers;
	void			*headers_arg;
	long			 timeout_ms;	/* per request; 0: 5000 */
};

struct modelcat	*modelcat_new(const struct modelcat_opts *);
/* Cancels any fetch (no callback) and frees. */
void		 modelcat_free(struct modelcat *);

/*
 * The model's caps as best known now (this run's answer, else the cache,
 * else the built-in table), copied into out.
 */
void	modelcat_get(struct modelcat *, const char *model, struct model_caps *out);
/*
 * Ask the provider about model in the background unless a fresh answer is
 * cached or a fetch is running; done (may be NULL) fires once it ends.
 * Returns true when a fetch is running afterwards.
 */
bool	modelcat_refresh(struct modelcat *, const char *model, modelcat_done_fn *, void *arg);
/* A fetch for model is running. */
bool	modelcat_busy(const struct modelcat *, const char *model);
/* Forget what is known of model (a 400 showed the answer was wrong). */
void	modelcat_forget(struct modelcat *, const char *model);
/* Record the token-estimate calibration of model (kept in the cache). */
void	modelcat_calibrate(struct modelcat *, const char *model, double calib);

/*
 * Every model the server offers: done gets a JSON array of caps objects
 * (model_caps_to_json), the callee's to free, or NULL and a sentence.
 */
typedef void modelcat_list_fn(void *arg, cJSON *list, const char *err);
void	modelcat_list_start(struct modelcat *, modelcat_list_fn *done, void *arg);
/* The same, running the loop until the answer (for `tandem models`). */
cJSON	*modelcat_list(struct modelcat *, struct buf *err);
/*
 * The list as a table: one line a model, with window, output limit,
 * thinking kind, effort levels and price; current marked.
 */
void	modelcat_format(const cJSON *list, const struct prices *, const char *current,
	    struct buf *out);

/* The pure parsers: 0 when the answer said something of the model. */
int	modelcat_parse_anthropic(const cJSON *info, struct model_caps *out);
int	modelcat_parse_openai_models(const cJSON *list, const char *model, struct model_caps *out);
int	modelcat_parse_llamacpp_props(const cJSON *props, struct model_caps *out);
int	modelcat_parse_ollama_ps(const cJSON *ps, const char *model, struct model_caps *out);
int	modelcat_parse_ollama_show(const cJSON *show, struct model_caps *out);

/*
 * A 400's message that names a request parameter tandem sets: the setting
 * that controls it ("thinking", "effort", "max_tokens"), or NULL.
 */
const char *modelcat_param_setting(const char *message);

#endif
