/* The model catalogue: see modelcat.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "ev.h"
#include "fsutil.h"
#include "http.h"
#include "json.h"
#include "modelcat.h"
#include "provider.h"
#include "xalloc.h"

#define MODELCAT_BODY_MAX	(4 * 1024 * 1024)
#define MODELCAT_FILE_MAX	(8 * 1024 * 1024)
#define MODELCAT_TIMEOUT_MS	5000
#define MODELCAT_MAX_TOKENS	100000000	/* a larger window or limit is not believed */

/* One step of a fetch: a request and what to make of its answer. */
enum mc_step {
	MC_ANTHROPIC_GET,	/* GET /v1/models/{id} */
	MC_ANTHROPIC_LIST,	/* after a 404: GET /v1/models, is the model unknown? */
	MC_OPENAI_MODELS,	/* GET /v1/models */
	MC_LLAMACPP_PROPS,	/* GET /props */
	MC_OLLAMA_PS,		/* GET /api/ps */
	MC_OLLAMA_SHOW,		/* POST /api/show */
	MC_DONE
};

struct mc_entry {
	char			*model;
	struct model_caps	 caps;
	bool			 answered;	/* caps are the provider's (this run or cached) */
};

struct mc_fetch {
	struct modelcat		*cat;
	char			*model;
	enum mc_step		 step;
	struct http_req		*req;
	struct buf		 body;
	struct model_caps	 caps;		/* built up over the steps */
	bool			 found;		/* some step described the model */
	bool			 listed;	/* the server answered a list without it */
	modelcat_done_fn	*done;
	void			*arg;
	struct mc_fetch		*next;
};

struct modelcat {
	struct modelcat_opts	 o;
	char			*base_url;
	char			*home;
	struct mc_entry		*v;
	size_t			 n;
	struct mc_fetch		*fetches;
	/* modelcat_list's wait */
	bool			 list_done;
	cJSON			*list;
	struct buf		 list_err;
};

static void mc_step_start(struct mc_fetch *);

/* ---------------------------------------------------------------------
 * Parsing what the servers say.
 */

/* A token count a server states, if it is believable; else 0. */
static int64_t
mc_sane(int64_t v)
{
	return v > 0 && v <= MODELCAT_MAX_TOKENS ? v : 0;
}

static bool
mc_supported(const cJSON *o, const char *key)
{
	return json_bool(json_get(o, key), "supported", false);
}

int
modelcat_parse_anthropic(const cJSON *info, struct model_caps *out)
{
	const cJSON *caps, *th, *types, *eff, *lvl;
	const char *id = json_str(info, "id", NULL);

	if (!cJSON_IsObject(info) || id == NULL)
		return -1;
	model_builtin(id, out);
	out->source = MODEL_SERVER;
	if (mc_sane(json_int(info, "max_input_tokens", 0)) > 0)
		out->window = json_int(info, "max_input_tokens", 0);
	if (mc_sane(json_int(info, "max_tokens", 0)) > 0)
		out->max_output = json_int(info, "max_tokens", 0);
	caps = json_get(info, "capabilities");
	if (!cJSON_IsObject(caps))
		return 0;
	th = json_get(caps, "thinking");
	types = json_get(th, "types");
	out->thinking = 0;
	if (json_bool(th, "supported", false)) {
		if (mc_supported(types, "adaptive"))
			out->thinking |= MODEL_THINK_ADAPTIVE;
		if (mc_supported(types, "enabled"))
			out->thinking |= MODEL_THINK_ENABLED;
	}
	/* A model that no longer takes a budget thinks adaptively unless told not to. */
	out->adaptive_default = (out->thinking & MODEL_THINK_ADAPTIVE) != 0 &&
	    (out->thinking & MODEL_THINK_ENABLED) == 0;
	while (out->neffort > 0)
		free(out->effort[--out->neffort]);
	eff = json_get(caps, "effort");
	if (json_bool(eff, "supported", false))
		cJSON_ArrayForEach(lvl, eff)
			if (cJSON_IsObject(lvl) && json_bool(lvl, "supported", false))
				model_add_effort(out, lvl->string, strlen(lvl->string));
	out->image_input = mc_supported(caps, "image_input");
	return 0;
}

/* The first positive integer among keys of o. */
static int64_t
mc_first_int(const cJSON *o, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		if (mc_sane(json_int(o, *keys, 0)) > 0)
			return json_int(o, *keys, 0);
	return 0;
}

int
modelcat_parse_openai_models(const cJSON *list, const char *model, struct model_caps *out)
{
	static const char *const window_keys[] = {
		"max_model_len", "context_length", "context_window", "max_context_length", NULL
	};
	static const char *const output_keys[] = { "max_output_tokens", "max_completion_tokens", NULL };
	const cJSON *m;

	cJSON_ArrayForEach(m, json_get(list, "data")) {
		if (strcmp(json_str(m, "id", ""), model) != 0)
			continue;
		if (mc_first_int(m, window_keys) <= 0)
			return -1;
		out->window = mc_first_int(m, window_keys);
		if (mc_first_int(m, output_keys) > 0)
			out->max_output = mc_first_int(m, output_keys);
		out->source = MODEL_SERVER;
		return 0;
	}
	return -1;
}

int
modelcat_parse_llamacpp_props(const cJSON *props, struct model_caps *out)
{
	int64_t n = mc_sane(json_int(json_get(props, "default_generation_settings"), "n_ctx", 0));

	if (n <= 0)
		n = mc_sane(json_int(props, "n_ctx", 0));
	if (n <= 0)
		return -1;
	out->window = n;
	out->source = MODEL_SERVER;
	return 0;
}

/* Ollama names a model "name:tag"; a request's model may leave out ":latest". */
static bool
mc_ollama_same(const char *a, const char *b)
{
	size_t la = strcspn(a, ":"), lb = strcspn(b, ":");
	const char *ta = a[la] == ':' ? a + la + 1 : "latest";
	const char *tb = b[lb] == ':' ? b + lb + 1 : "latest";

	return la == lb && strncmp(a, b, la) == 0 && strcmp(ta, tb) == 0;
}

int
modelcat_parse_ollama_ps(const cJSON *ps, const char *model, struct model_caps *out)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, json_get(ps, "models")) {
		const char *name = json_str(m, "name", json_str(m, "model", ""));

		if (!mc_ollama_same(name, model) || mc_sane(json_int(m, "context_length", 0)) <= 0)
			continue;
		out->window = json_int(m, "context_length", 0);
		out->source = MODEL_SERVER;
		return 0;
	}
	return -1;
}

int
modelcat_parse_ollama_show(const cJSON *show, struct model_caps *out)
{
	const char *params = json_str(show, "parameters", ""), *p;
	const cJSON *it;
	char *end;
	long v;

	/* The context the server runs the model with: num_ctx, if the Modelfile sets it. */
	for (p = params; (p = strstr(p, "num_ctx")) != NULL; p += 7) {
		if (p != params && p[-1] != '\n')
			continue;
		v = strtol(p + 7, &end, 10);
		if (end != p + 7 && mc_sane(v) > 0) {
			out->window = v;
			out->source = MODEL_SERVER;
			return 0;
		}
	}
	/*
	 * Only the trained length: the server runs the model with its own
	 * default context and truncates beyond it without a word, so the
	 * window is the smaller of the two.
	 */
	cJSON_ArrayForEach(it, json_get(show, "model_info")) {
		size_t n = it->string != NULL ? strlen(it->string) : 0;

		if (n > 15 && strcmp(it->string + n - 15, ".context_length") == 0 &&
		    cJSON_IsNumber(it) && it->valuedouble >= 1 && it->valuedouble <= MODELCAT_MAX_TOKENS) {
			out->window = (int64_t)it->valuedouble < 4096 ? (int64_t)it->valuedouble : 4096;
			out->source = MODEL_SERVER;
			return 0;
		}
	}
	return -1;
}

const char *
modelcat_param_setting(const char *message)
{
	static const struct { const char *word, *setting; } words[] = {
		{ "budget_tokens", "thinking" }, { "thinking", "thinking" },
		{ "output_config", "effort" }, { "effort", "effort" },
		{ "max_completion_tokens", "max_tokens" }, { "max_tokens", "max_tokens" },
	};
	size_t i;

	for (i = 0; message != NULL && i < sizeof words / sizeof words[0]; i++)
		if (strstr(message, words[i].word) != NULL)
			return words[i].setting;
	return NULL;
}

/* ---------------------------------------------------------------------
 * The cache: TANDEM_HOME/models.json, {"version": 1, "models": {KEY: caps}}
 * with KEY "<base url> <model>".
 */

static char *
mc_key(const struct modelcat *cat, const char *model)
{
	struct buf k = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&k, "%s %s", cat->base_url, model);
	return buf_detach(&k, NULL);
}

static char *
mc_cache_path(const struct modelcat *cat)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&p, "%s/models.json", cat->home);
	return buf_detach(&p, NULL);
}

static cJSON *
mc_cache_read(const struct modelcat *cat)
{
	struct buf err = BUF_INIT(1024);
	char *path, *text = NULL;
	size_t len = 0;
	cJSON *doc = NULL;

	if (cat->home == NULL)
		return NULL;
	path = mc_cache_path(cat);
	if (fsutil_read_file(path, MODELCAT_FILE_MAX, &text, &len, &err) == 0)
		doc = cJSON_ParseWithLength(text, len);
	if (doc != NULL && (json_int(doc, "version", 0) != 1 || !cJSON_IsObject(json_get(doc, "models")))) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(text);
	free(path);
	buf_release(&err);
	return doc;
}

/* Store (caps non-NULL) or drop model's entry; the cache is a convenience: failures are quiet. */
static void
mc_cache_put(const struct modelcat *cat, const char *model, const struct model_caps *caps)
{
	struct buf err = BUF_INIT(1024);
	cJSON *doc, *models;
	char *path, *key, *text;

	if (cat->home == NULL)
		return;
	doc = mc_cache_read(cat);
	if (doc == NULL) {
		doc = cJSON_CreateObject();
		cJSON_AddNumberToObject(doc, "version", 1);
		cJSON_AddObjectToObject(doc, "models");
	}
	models = json_get(doc, "models");
	key = mc_key(cat, model);
	cJSON_DeleteItemFromObjectCaseSensitive(models, key);
	if (caps != NULL)
		cJSON_AddItemToObject(models, key, model_caps_to_json(caps));
	text = cJSON_Print(doc);
	path = mc_cache_path(cat);
	if (text != NULL)
		(void)fsutil_write_atomic(cat->home, path, text, strlen(text), NULL, &err);
	free(text);
	free(path);
	free(key);
	cJSON_Delete(doc);
	buf_release(&err);
}

/* ---------------------------------------------------------------------
 * Entries.
 */

static struct mc_entry *
mc_entry(struct modelcat *cat, const char *model, bool create)
{
	size_t i;

	for (i = 0; i < cat->n; i++)
		if (strcmp(cat->v[i].model, model) == 0)
			return &cat->v[i];
	if (!create)
		return NULL;
	cat->v = xreallocarray(cat->v, cat->n + 1, sizeof *cat->v);
	memset(&cat->v[cat->n], 0, sizeof cat->v[cat->n]);
	cat->v[cat->n].model = xstrdup(model);
	model_builtin(model, &cat->v[cat->n].caps);
	return &cat->v[cat->n++];
}

/* Load model's cached answer into its entry, once. */
static struct mc_entry *
mc_lookup(struct modelcat *cat, const char *model)
{
	struct mc_entry *e = mc_entry(cat, model, false);
	struct model_caps c;
	cJSON *doc;
	char *key;

	if (e != NULL)
		return e;
	e = mc_entry(cat, model, true);
	doc = mc_cache_read(cat);
	key = mc_key(cat, model);
	if (doc != NULL && model_caps_from_json(json_get(json_get(doc, "models"), key), &c) == 0) {
		model_caps_release(&e->caps);
		e->caps = c;
		e->answered = true;
	}
	free(key);
	cJSON_Delete(doc);
	return e;
}

void
modelcat_get(struct modelcat *cat, const char *model, struct model_caps *out)
{
	model_caps_copy(out, &mc_lookup(cat, model)->caps);
}

bool
modelcat_busy(const struct modelcat *cat, const char *model)
{
	const struct mc_fetch *f;

	for (f = cat->fetches; f != NULL; f = f->next)
		if (strcmp(f->model, model) == 0)
			return true;
	return false;
}

void
modelcat_forget(struct modelcat *cat, const char *model)
{
	struct mc_entry *e = mc_lookup(cat, model);

	model_caps_release(&e->caps);
	model_builtin(model, &e->caps);
	e->answered = false;
	mc_cache_put(cat, model, NULL);
}

void
modelcat_calibrate(struct modelcat *cat, const char *model, double calib)
{
	struct mc_entry *e = mc_lookup(cat, model);

	e->caps.calib = calib;
	if (e->answered)
		mc_cache_put(cat, model, &e->caps);
}

/* ---------------------------------------------------------------------
 * Fetching.
 */

/* base without a trailing "/" or "/v1", then path. */
static char *
mc_url(const struct modelcat *cat, const char *path)
{
	return provider_url(cat->base_url, path);
}

static void
mc_fetch_free(struct mc_fetch *f)
{
	struct mc_fetch **pp;

	for (pp = &f->cat->fetches; *pp != NULL; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	if (f->req != NULL)
		http_cancel(f->req);
	buf_release(&f->body);
	model_caps_release(&f->caps);
	free(f->model);
	free(f);
}

static void
mc_finish(struct mc_fetch *f)
{
	struct modelcat *cat = f->cat;
	struct mc_entry *e = mc_lookup(cat, f->model);
	enum modelcat_outcome out = MODELCAT_UNAVAILABLE;
	struct buf note = BUF_INIT(1024);
	modelcat_done_fn *done = f->done;
	void *arg = f->arg;
	char *model = xstrdup(f->model);

	if (f->found) {
		f->caps.calib = e->caps.calib;
		f->caps.fetched_at = (int64_t)time(NULL);
		model_caps_release(&e->caps);
		model_caps_copy(&e->caps, &f->caps);
		e->answered = true;
		mc_cache_put(cat, f->model, &e->caps);
		out = MODELCAT_FOUND;
	} else if (f->listed) {
		out = MODELCAT_UNKNOWN_MODEL;
		buf_printf(&note, "the server does not offer the model \"%s\"; `tandem models` "
		    "lists the models it has", f->model);
	} else {
		buf_printf(&note, "the server did not describe the model \"%s\"; its limits "
		    "come from tandem's own table", f->model);
	}
	mc_fetch_free(f);
	if (done != NULL)
		done(arg, model, out, buf_cstr(&note));
	free(model);
	buf_release(&note);
}

/* The next step after step, given what was learned. */
static enum mc_step
mc_next(const struct mc_fetch *f, long status)
{
	switch (f->step) {
	case MC_ANTHROPIC_GET:
		return !f->found && status == 404 ? MC_ANTHROPIC_LIST : MC_DONE;
	case MC_OPENAI_MODELS:
		return f->found ? MC_DONE : MC_LLAMACPP_PROPS;
	case MC_LLAMACPP_PROPS:
		return f->found ? MC_DONE : MC_OLLAMA_PS;
	case MC_OLLAMA_PS:
		return f->found ? MC_DONE : MC_OLLAMA_SHOW;
	default:
		return MC_DONE;
	}
}

/* Make what the answer of the current step says part of f. */
static void
mc_digest(struct mc_fetch *f, long status, const cJSON *doc)
{
	struct model_caps c;
	const cJSON *m;

	if (status != 200 || doc == NULL)
		return;
	switch (f->step) {
	case MC_ANTHROPIC_GET:
		if (modelcat_parse_anthropic(doc, &c) == 0) {
			model_caps_release(&f->caps);
			f->caps = c;
			f->found = true;
		}
		break;
	case MC_ANTHROPIC_LIST:
		f->listed = cJSON_IsArray(json_get(doc, "data"));
		cJSON_ArrayForEach(m, json_get(doc, "data"))
			if (strcmp(json_str(m, "id", ""), f->model) == 0)
				f->listed = false;
		break;
	case MC_OPENAI_MODELS:
		f->found = modelcat_parse_openai_models(doc, f->model, &f->caps) == 0;
		break;
	case MC_LLAMACPP_PROPS:
		f->found = modelcat_parse_llamacpp_props(doc, &f->caps) == 0;
		break;
	case MC_OLLAMA_PS:
		f->found = modelcat_parse_ollama_ps(doc, f->model, &f->caps) == 0;
		break;
	case MC_OLLAMA_SHOW:
		f->found = modelcat_parse_ollama_show(doc, &f->caps) == 0;
		break;
	default:
		break;
	}
}

static int
mc_on_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct mc_fetch *f = arg;

	(void)req;
	return buf_append(&f->body, p, n) == 0 ? 0 : -1;
}

static void
mc_on_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct mc_fetch *f = arg;
	cJSON *doc;

	(void)req;
	f->req = NULL;
	doc = r->fail == HTTP_OK ? cJSON_ParseWithLength(f->body.data != NULL ? f->body.data : "",
	    f->body.len) : NULL;
	mc_digest(f, r->fail == HTTP_OK ? r->status : 0, doc);
	cJSON_Delete(doc);
	f->step = mc_next(f, r->fail == HTTP_OK ? r->status : 0);
	if (f->step == MC_DONE)
		mc_finish(f);
	else
		mc_step_start(f);
}

static void
mc_step_start(struct mc_fetch *f)
{
	static const struct http_handler proto = { NULL, mc_on_body, mc_on_done, NULL };
	struct modelcat *cat = f->cat;
	struct http_handler h = proto;
	struct http_timeouts to = { .connect_ms = 0 };
	struct curl_slist *hd = cat->o.headers != NULL ? cat->o.headers(cat->o.headers_arg) : NULL;
	struct buf path = BUF_INIT(BUF_NOLIMIT), body = BUF_INIT(BUF_NOLIMIT);
	char *url, *esc;

	to.connect_ms = cat->o.timeout_ms;
	to.first_byte_ms = cat->o.timeout_ms;
	to.stall_ms = cat->o.timeout_ms;
	h.arg = f;
	buf_truncate(&f->body, 0);
	switch (f->step) {
	case MC_ANTHROPIC_GET:
		esc = curl_easy_escape(NULL, f->model, 0);
		buf_printf(&path, "/v1/models/%s", esc != NULL ? esc : "");
		curl_free(esc);
		break;
	case MC_ANTHROPIC_LIST:
		buf_puts(&path, "/v1/models?limit=1000");
		break;
	case MC_OPENAI_MODELS:
		buf_puts(&path, "/v1/models");
		break;
	case MC_LLAMACPP_PROPS:
		buf_puts(&path, "/props");
		break;
	case MC_OLLAMA_PS:
		buf_puts(&path, "/api/ps");
		break;
	case MC_OLLAMA_SHOW: {
		cJSON *o = cJSON_CreateObject();

		buf_puts(&path, "/api/show");
		cJSON_AddStringToObject(o, "model", f->model);
		json_append(&body, o);
		cJSON_Delete(o);
		hd = curl_slist_append(hd, "content-type: application/json");
		break;
	}
	default:
		break;
	}
	url = mc_url(cat, buf_cstr(&path));
	if (f->step == MC_OLLAMA_SHOW)
		f->req = http_post(cat->o.http, url, hd, body.data, body.len, &to, &h);
	else
		f->req = http_get(cat->o.http, url, hd, &to, &h);
	free(url);
	buf_release(&path);
	buf_release(&body);
}

bool
modelcat_refresh(struct modelcat *cat, const char *model, modelcat_done_fn *done, void *arg)
{
	struct mc_entry *e = mc_lookup(cat, model);
	struct mc_fetch *f;

	if (modelcat_busy(cat, model))
		return true;
	if (e->answered && (int64_t)time(NULL) - e->caps.fetched_at < MODELCAT_MAX_AGE_S)
		return false;
	if (cat->o.http == NULL)
		return false;
	f = xcalloc(1, sizeof *f);
	f->cat = cat;
	f->model = xstrdup(model);
	f->step = cat->o.proto == STREAM_ANTHROPIC ? MC_ANTHROPIC_GET : MC_OPENAI_MODELS;
	buf_init(&f->body, MODELCAT_BODY_MAX);
	model_caps_copy(&f->caps, &e->caps);
	f->done = done;
	f->arg = arg;
	f->next = cat->fetches;
	cat->fetches = f;
	mc_step_start(f);
	return true;
}

struct modelcat *
modelcat_new(const struct modelcat_opts *o)
{
	struct modelcat *cat = xcalloc(1, sizeof *cat);

	cat->o = *o;
	if (cat->o.timeout_ms <= 0)
		cat->o.timeout_ms = MODELCAT_TIMEOUT_MS;
	cat->base_url = xstrdup(o->base_url != NULL ? o->base_url : "");
	cat->home = o->home != NULL ? xstrdup(o->home) : NULL;
	cat->o.base_url = cat->base_url;
	cat->o.home = cat->home;
	buf_init(&cat->list_err, 1024);
	return cat;
}

void
modelcat_free(struct modelcat *cat)
{
	size_t i;

	if (cat == NULL)
		return;
	while (cat->fetches != NULL)
		mc_fetch_free(cat->fetches);
	for (i = 0; i < cat->n; i++) {
		free(cat->v[i].model);
		model_caps_release(&cat->v[i].caps);
	}
	free(cat->v);
	free(cat->base_url);
	free(cat->home);
	cJSON_Delete(cat->list);
	buf_release(&cat->list_err);
	free(cat);
}

/* ---------------------------------------------------------------------
 * Listing.
 */

struct mc_list {
	struct modelcat		*cat;
	struct buf		 body;
	char			*url;
	modelcat_list_fn	*done;
	void			*arg;
};

static int
mc_list_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct mc_list *l = arg;

	(void)req;
	return buf_append(&l->body, p, n) == 0 ? 0 : -1;
}

/* The answer of a list request as caps objects, or NULL with a sentence in err. */
static cJSON *
mc_list_parse(struct mc_list *l, const struct http_result *r, struct buf *err)
{
	struct modelcat *cat = l->cat;
	struct model_caps c;
	cJSON *doc, *out, *m;

	doc = r->fail == HTTP_OK && r->status == 200 ?
	    cJSON_ParseWithLength(l->body.data != NULL ? l->body.data : "", l->body.len) : NULL;
	if (doc == NULL || !cJSON_IsArray(json_get(doc, "data"))) {
		buf_printf(err, "%s did not list its models (", l->url);
		if (r->fail != HTTP_OK)
			buf_printf(err, "no answer: %s)", r->error);
		else if (r->status != 200)
			buf_printf(err, "HTTP %ld)", r->status);
		else
			buf_puts(err, "the answer is not a model list)");
		cJSON_Delete(doc);
		return NULL;
	}
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(m, json_get(doc, "data")) {
		const char *id = json_str(m, "id", NULL);

		if (id == NULL)
			continue;
		if (cat->o.proto == STREAM_ANTHROPIC && modelcat_parse_anthropic(m, &c) == 0) {
			/* The list holds whole ModelInfo objects: they stand for this run. */
			struct mc_entry *e = mc_lookup(cat, id);

			c.calib = e->caps.calib;
			c.fetched_at = (int64_t)time(NULL);
			model_caps_release(&e->caps);
			model_caps_copy(&e->caps, &c);
			e->answered = true;
		} else {
			modelcat_get(cat, id, &c);
			(void)modelcat_parse_openai_models(doc, id, &c);
		}
		cJSON_AddItemToArray(out, model_caps_to_json(&c));
		model_caps_release(&c);
	}
	cJSON_Delete(doc);
	return out;
}

static void
mc_list_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct mc_list *l = arg;
	struct buf err = BUF_INIT(4096);
	cJSON *list;

	(void)req;
	list = mc_list_parse(l, r, &err);
	l->done(l->arg, list, buf_cstr(&err));
	buf_release(&err);
	buf_release(&l->body);
	free(l->url);
	free(l);
}

void
modelcat_list_start(struct modelcat *cat, modelcat_list_fn *done, void *arg)
{
	static const struct http_handler proto = { NULL, mc_list_body, mc_list_done, NULL };
	struct http_handler h = proto;
	struct http_timeouts to = { .connect_ms = 0 };
	struct mc_list *l = xcalloc(1, sizeof *l);

	l->cat = cat;
	l->done = done;
	l->arg = arg;
	buf_init(&l->body, MODELCAT_BODY_MAX);
	h.arg = l;
	to.connect_ms = to.first_byte_ms = to.stall_ms = cat->o.timeout_ms;
	l->url = mc_url(cat, cat->o.proto == STREAM_ANTHROPIC ? "/v1/models?limit=1000" : "/v1/models");
	(void)http_get(cat->o.http, l->url, cat->o.headers != NULL ?
	    cat->o.headers(cat->o.headers_arg) : NULL, &to, &h);
}

struct mc_wait {
	bool	 done;
	cJSON	*list;
	struct buf *err;
};

static void
mc_wait_done(void *arg, cJSON *list, const char *err)
{
	struct mc_wait *w = arg;

	w->done = true;
	w->list = list;
	if (list == NULL)
		buf_puts(w->err, err);
}

cJSON *
modelcat_list(struct modelcat *cat, struct buf *err)
{
	struct mc_wait w = { false, NULL, err };

	modelcat_list_start(cat, mc_wait_done, &w);
	while (!w.done && ev_run_once(cat->o.loop, -1) == 0)
		;
	return w.list;
}

/* "1M", "200K", "8192". */
static void
mc_tokens(char *out, size_t n, int64_t v)
{
	if (v <= 0)
		snprintf(out, n, "?");
	else if (v >= 1000000 && v % 1000000 == 0)
		snprintf(out, n, "%lldM", (long long)(v / 1000000));
	else if (v >= 1000 && v % 1000 == 0)
		snprintf(out, n, "%lldK", (long long)(v / 1000));
	else
		snprintf(out, n, "%lld", (long long)v);
}

void
modelcat_format(const cJSON *list, const struct prices *prices, const char *current,
    struct buf *out)
{
	const cJSON *m;

	buf_printf(out, "  %-32s %8s %8s  %-18s %-22s %s\n", "model", "window", "output",
	    "thinking", "effort", "$ in / out per MTok");
	cJSON_ArrayForEach(m, list) {
		struct model_caps c;
		const struct price_entry *p;
		struct buf eff = BUF_INIT(256);
		char w[32], o[32];
		int i;

		if (model_caps_from_json(m, &c) == -1)
			continue;
		for (i = 0; i < c.neffort; i++)
			buf_printf(&eff, "%s%s", i > 0 ? "," : "", c.effort[i]);
		mc_tokens(w, sizeof w, c.window);
		mc_tokens(o, sizeof o, c.max_output);
		p = prices_find(prices, c.id);
		buf_printf(out, "%c %-32s %8s %8s  %-18s %-22s ", current != NULL &&
		    strcmp(current, c.id) == 0 ? '*' : ' ', c.id, w, o, model_thinking_name(&c),
		    eff.len > 0 ? buf_cstr(&eff) : "-");
		if (p != NULL)
			buf_printf(out, "%.2f / %.2f\n", p->base.input, p->base.output);
		else
			buf_puts(out, "?\n");
		buf_release(&eff);
		model_caps_release(&c);
	}
}
