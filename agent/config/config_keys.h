/*
 * config_keys: the table of every setting tandem reads (its dotted name, the
 * kind of value it takes, the member of struct config it fills), the
 * providers' defaults, what makes a value valid, storing a valid value with
 * where it came from, and printing the whole table for `tandem config`.
 *
 * Internal to the config module: config.c reads the layered files and the
 * flags through it.  A setting another part of tandem adds is one row in
 * cfg_keys[] (and one member of struct config).
 */
#ifndef TANDEM_CONFIG_KEYS_H
#define TANDEM_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "rules/perm.h"

struct buf;
struct config;

enum cfg_type {
	CFG_STRING,
	CFG_BOOL,
	CFG_INT,
	CFG_RATIO,	/* a number above 0 and at most 1 */
	CFG_MODE,
	CFG_PROVIDER,
	CFG_RULES,
	CFG_HOOKS,
	CFG_ENV_NAMES,	/* names or patterns of environment variables; min 1: to keep */
	CFG_DIRS,	/* directories, added up across layers and flags */
	CFG_OBJECT,	/* a JSON object; a later layer's members replace an earlier one's */
	CFG_CHOICE,	/* one of the words of the key's choices */
	CFG_JSON	/* a JSON object or array, taken whole: a later layer's replaces it */
};

/* One setting; the table drives loading, flags and printing. */
struct cfg_key {
	const char	*name;
	enum cfg_type	 type;
	size_t		 off;		/* the member of struct config */
	long		 min, max;	/* CFG_INT */
	enum perm_list	 list;		/* CFG_RULES */
};

extern const struct cfg_key cfg_keys[];
extern const size_t cfg_nkeys;

/* A provider's defaults. */
struct cfg_provider {
	const char	*name;
	const char	*model;		/* the default model */
	const char	*url_env;	/* where the base URL may come from */
	const char	*key_env;	/* where the API key comes from */
};

extern const struct cfg_provider cfg_providers[];

/* The member of struct config that key k fills. */
#define CFG_MEMBER(cfg, k, type) ((type *)(void *)((char *)(cfg) + (k)->off))

/* The key called name (or one of its aliases; flag: command-line spellings too), or NULL. */
const struct cfg_key *cfg_key_find(const char *name, bool flag);
/* Is name a group of keys ("permissions", "timeouts")? */
bool	cfg_is_group(const char *name);
/* The index of provider name in cfg_providers[], or -1. */
int	cfg_provider(const char *name);

/* Where key's value came from: "default", a file's path, "flag" or "env". */
const char *cfg_source(const struct config *cfg, const char *key);
void	cfg_set_source(struct config *cfg, const char *key, const char *source);
/* For lists: each source once, in order, joined with ", ". */
void	cfg_add_source(struct config *cfg, const char *key, const char *source);
/* Replace *slot by a copy of v (NULL: none). */
void	cfg_set_string(char **slot, const char *v);

/* Is v right for k?  If not, the reason ("must be ...") goes to why. */
bool	cfg_valid(const struct cfg_key *k, const cJSON *v, struct buf *why);
/* Store a valid scalar v for k, from source. */
void	cfg_store(struct config *cfg, const struct cfg_key *k, const cJSON *v, const char *source);

/* Does the project hold anything back until it is trusted? */
bool	cfg_holds_any(const struct config *cfg);

#endif
