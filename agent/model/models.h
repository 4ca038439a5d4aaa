/*
 * models: what tandem knows of each model, and what it costs.
 *
 * struct model_caps holds one model's limits and capabilities: its context
 * window, its output limit, the kinds of thinking it takes, its effort
 * levels, whether it takes images.  They come from the provider (see
 * modelcat.h, which fetches and caches them); model_builtin() is the
 * offline fallback, a small table of model families in this file.
 *
 * Prices are data, not code: a price file (data/prices.json, installed
 * with tandem) read by prices_load(), whose entries the settings' "prices"
 * object overrides.
 *
 * Ownership: a struct model_caps owns its strings (model_caps_release);
 * a struct prices owns its entries (prices_free).
 */
#ifndef TANDEM_MODELS_H
#define TANDEM_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "stream.h"

struct buf;

/* Thinking kinds (bits of model_caps.thinking). */
#define MODEL_THINK_ADAPTIVE	0x1u	/* thinking: {type: "adaptive"}, depth set by effort */
#define MODEL_THINK_ENABLED	0x2u	/* thinking: {type: "enabled", budget_tokens} */

#define MODEL_EFFORT_MAX	8	/* levels kept per model */

enum model_source {
	MODEL_TABLE,		/* the built-in table */
	MODEL_CACHE,		/* the provider's answer, cached under TANDEM_HOME */
	MODEL_SERVER		/* the provider's answer, this run */
};

struct model_caps {
	char		*id;
	int64_t		 window;	/* input tokens; 0: unknown */
	int64_t		 max_output;	/* the most max_tokens may be; 0: unknown */
	unsigned	 thinking;	/* MODEL_THINK_* bits the model takes */
	bool		 adaptive_default; /* thinks adaptively when the request says nothing */
	char		*effort[MODEL_EFFORT_MAX]; /* levels, as the provider names them */
	int		 neffort;
	bool		 image_input;
	bool		 completion_tokens; /* OpenAI: max_completion_tokens, not max_tokens */
	enum model_source source;
	double		 calib;		/* real tokens per estimated token; 0: not measured */
	int64_t		 fetched_at;	/* unix seconds, for the cache */
};

/* The built-in caps of model (the longest matching family); never fails. */
void	model_builtin(const char *model, struct model_caps *out);
void	model_caps_copy(struct model_caps *dst, const struct model_caps *src);
void	model_caps_release(struct model_caps *);
/* Add an effort level (n bytes) to c: a short word of [a-z0-9_-], else ignored. */
void	model_add_effort(struct model_caps *, const char *level, size_t n);
/* Whether the model lists effort level. */
bool	model_has_effort(const struct model_caps *, const char *level);
/* "adaptive", "enabled", "adaptive, enabled" or "none". */
const char *model_thinking_name(const struct model_caps *);

/* The caps as JSON (for the cache and `tandem models`), and back. */
cJSON	*model_caps_to_json(const struct model_caps *);
int	 model_caps_from_json(const cJSON *, struct model_caps *);

struct price {
	double	input, output, cache_write_5m, cache_write_1h, cache_read;
};

struct price_entry {
	char		*match;		/* a name, or a prefix ending in '*' */
	struct price	 base;
	int64_t		 long_above;	/* 0: no long-context tier */
	struct price	 longctx;	/* when a request's input is above long_above */
};

struct prices {
	struct price_entry *v;
	int		 n;
	char		*checked;	/* the date the figures were checked */
	char		*path;		/* the file they came from */
};

/*
 * The price file: path, else $TANDEM_DATADIR's prices.json, else the
 * source tree's data/prices.json (an uninstalled build).  A missing file
 * gives an empty table (every cost 0); a malformed one fails with a
 * sentence naming it.  overrides (the settings' "prices": {"match": {...}},
 * may be NULL) replace or add entries.
 */
struct prices *prices_load(const char *path, const cJSON *overrides, struct buf *err);
void	 prices_free(struct prices *);
/* The entry for model (longest match), or NULL. */
const struct price_entry *prices_find(const struct prices *, const char *model);
/*
 * Would model cost more per token than than, at these prices: a higher
 * input or output price, or either without a price (tandem would count
 * its cost as 0)?  A model never costs more than itself.  What a project
 * may choose without trust is decided by it (config.h, agent.h).
 */
bool	 prices_dearer(const struct prices *, const char *model, const char *than);
/*
 * The cost in dollars of one response's usage; cache writes at the 1-hour
 * price when long_ttl.  A NULL entry costs 0.
 */
double	 prices_cost(const struct price_entry *, const struct usage *, bool long_ttl);
/*
 * The price in dollars of a prompt-cache break of dropped tokens, in a
 * request whose input (uncached, cache read and cache write) was in_tokens:
 * writing the dropped tokens to the cache again, at the cache-write price
 * (the 1-hour one when long_ttl; the input price where the entry has no
 * cache-write price), less what reading them from the cache would have
 * cost.  Never below 0.  -1 for a NULL entry: the price is unknown.
 */
double	 prices_break_cost(const struct price_entry *, int64_t dropped, int64_t in_tokens,
	    bool long_ttl);

#endif
