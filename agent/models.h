/*
 * models: what tandem knows of each model, as a table of data: its
 * context window and its prices in dollars per million tokens.  Update
 * prices here; a model missing from the table gets the defaults of its
 * family (the longest matching name prefix) or of the provider.
 */
#ifndef TANDEM_MODELS_H
#define TANDEM_MODELS_H

#include <stdint.h>

#include "stream.h"

struct model_info {
	const char	*name;		/* or a name prefix, ending in '-' or '*' */
	int64_t		 window;	/* context window, tokens */
	double		 in;		/* $ per million input tokens */
	double		 out;
	double		 cache_write;
	double		 cache_read;
};

/* Never NULL. */
const struct model_info *model_find(const char *name);
/* The cost in dollars of one response's usage. */
double	model_cost(const struct model_info *, const struct usage *);

#endif
