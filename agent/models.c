/* The model table: see models.h. */
#include "autoconf.h"

#include <stdbool.h>
#include <string.h>

#include "models.h"

/* Longest prefix wins; "*" entries match any name with that prefix. */
static const struct model_info models[] = {
	{ "claude-opus-4*",	200000, 15.00, 75.00, 18.75, 1.50 },
	{ "claude-opus-4-5*",	200000,  5.00, 25.00,  6.25, 0.50 },
	{ "claude-sonnet-4*",	200000,  3.00, 15.00,  3.75, 0.30 },
	{ "claude-haiku-4*",	200000,  1.00,  5.00,  1.25, 0.10 },
	{ "claude-3-7-sonnet*",	200000,  3.00, 15.00,  3.75, 0.30 },
	{ "claude-3-5-haiku*",	200000,  0.80,  4.00,  1.00, 0.08 },
	{ "claude-3-opus*",	200000, 15.00, 75.00, 18.75, 1.50 },
	{ "claude-*",		200000,  3.00, 15.00,  3.75, 0.30 },
	{ "gpt-4o-mini*",	128000,  0.15,  0.60,  0.00, 0.075 },
	{ "gpt-4o*",		128000,  2.50, 10.00,  0.00, 1.25 },
	{ "gpt-4.1*",		1047576, 2.00,  8.00,  0.00, 0.50 },
	{ "gpt-5*",		400000,  1.25, 10.00,  0.00, 0.125 },
	{ "o3*",		200000,  2.00,  8.00,  0.00, 0.50 },
	{ "o4-mini*",		200000,  1.10,  4.40,  0.00, 0.275 },
	/* Local models (Ollama, llama.cpp, vLLM) cost nothing; windows vary. */
	{ "llama*",		131072,  0, 0, 0, 0 },
	{ "qwen*",		131072,  0, 0, 0, 0 },
	{ "mistral*",		32768,   0, 0, 0, 0 },
	{ "gemma*",		131072,  0, 0, 0, 0 },
	{ "deepseek*",		131072,  0, 0, 0, 0 },
};

static const struct model_info unknown = { "unknown", 128000, 0, 0, 0, 0 };

const struct model_info *
model_find(const char *name)
{
	const struct model_info *best = NULL;
	size_t bestlen = 0, i;

	if (name == NULL)
		return &unknown;
	for (i = 0; i < sizeof models / sizeof models[0]; i++) {
		const char *m = models[i].name;
		size_t n = strlen(m);
		bool star = n > 0 && m[n - 1] == '*';

		if (star)
			n--;
		if (strncmp(name, m, n) != 0 || (!star && name[n] != '\0'))
			continue;
		if (best == NULL || n > bestlen) {
			best = &models[i];
			bestlen = n;
		}
	}
	return best != NULL ? best : &unknown;
}

double
model_cost(const struct model_info *m, const struct usage *u)
{
	return ((double)u->input * m->in + (double)u->output * m->out +
	    (double)u->cache_write * m->cache_write +
	    (double)u->cache_read * m->cache_read) / 1e6;
}
