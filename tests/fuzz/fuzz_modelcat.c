/*
 * Fuzz target: what the providers say of their models (modelcat.h's
 * parsers, which read servers tandem does not control) and the caps' JSON
 * round trip.  Invariants: no parser fails and changes the caps' shape, a
 * window or output limit is never negative, at most MODEL_EFFORT_MAX
 * levels are kept, and caps survive to JSON and back unchanged.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/modelcat.h"
#include "model/models.h"

static void
check_caps(const struct model_caps *c)
{
	struct model_caps back;
	cJSON *j;

	if (c->window < 0 || c->max_output < 0 || c->neffort < 0 || c->neffort > MODEL_EFFORT_MAX)
		abort();
	j = model_caps_to_json(c);
	if (model_caps_from_json(j, &back) != 0 || back.window != c->window ||
	    back.max_output != c->max_output || back.thinking != c->thinking ||
	    back.neffort != c->neffort || strcmp(back.id, c->id) != 0)
		abort();
	model_caps_release(&back);
	cJSON_Delete(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	struct model_caps c;

	if (doc == NULL)
		return 0;
	if (modelcat_parse_anthropic(doc, &c) == 0) {
		check_caps(&c);
		model_caps_release(&c);
	}
	model_builtin("fuzz-model", &c);
	(void)modelcat_parse_openai_models(doc, "fuzz-model", &c);
	(void)modelcat_parse_llamacpp_props(doc, &c);
	(void)modelcat_parse_ollama_ps(doc, "fuzz-model", &c);
	(void)modelcat_parse_ollama_show(doc, &c);
	check_caps(&c);
	model_caps_release(&c);
	if (model_caps_from_json(doc, &c) == 0)
		model_caps_release(&c);
	cJSON_Delete(doc);
	return 0;
}
