/* The mock model server: the model endpoints (see mock_int.h). */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "mock/mock.h"
#include "mock/mock_int.h"
#include "sha256.h"
#include "xalloc.h"

/* ---------------------------------------------------------------------
 * The model endpoints: the Anthropic Models API, OpenAI's /v1/models,
 * llama.cpp's /props, Ollama's /api/ps and /api/show.  They are not
 * scripted responses: they answer from the scenario's "models" and the
 * like, 404 where it has none, and are logged (with "kind": "models" and
 * "n": 0) only when the scenario describes models.
 */

static const cJSON *
models_find(const struct mock *m, const char *id)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, m->models)
		if (strcmp(json_str(it, "id", ""), id) == 0)
			return it;
	return NULL;
}

/* A path segment with %XX decoded (the caller frees). */
static char *
unescape_dup(const char *s)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	unsigned v;

	for (; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] != '\0' && s[2] != '\0' && sscanf(s + 1, "%2x", &v) == 1) {
			buf_putc(&b, (int)v);
			s += 2;
		} else {
			buf_putc(&b, *s);
		}
	}
	return buf_detach(&b, NULL);
}

bool
mock_is_models_route(const char *path)
{
	return strcmp(path, "/v1/models") == 0 || strncmp(path, "/v1/models/", 11) == 0 ||
	    strcmp(path, "/props") == 0 || strcmp(path, "/api/ps") == 0 ||
	    strcmp(path, "/api/show") == 0;
}

static void
models_reply(struct reply *r, int status, const cJSON *body, const char *error)
{
	cJSON *e = NULL;

	r->status = status;
	mock_reply_header(r, "content-type", "application/json");
	if (body == NULL) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "type", "error");
		cJSON_AddItemToObject(e, "error", cJSON_CreateObject());
		cJSON_AddStringToObject(json_get(e, "error"), "type", "not_found_error");
		cJSON_AddStringToObject(json_get(e, "error"), "message", error);
		body = e;
	}
	json_append(&r->body, body);
	cJSON_Delete(e);
}

static void
models_log(struct mock *m, const struct req *rq, int status)
{
	cJSON *o;

	if (m->log == NULL || (m->models == NULL && m->openai_models == NULL &&
	    m->llamacpp_props == NULL && m->ollama_ps == NULL && m->ollama_show == NULL))
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", 0);
	cJSON_AddStringToObject(o, "kind", "models");
	mock_log_request_head(o, rq);
	cJSON_AddNumberToObject(o, "status", status);
	cJSON_AddNumberToObject(o, "t_ms", (double)(mock_now() - m->started));
	mock_log_write(m, o);
}

void
mock_models(struct mock *m, struct conn *c)
{
	const struct req *rq = &c->rq;
	const char *path = rq->path;
	cJSON *list = NULL, *body = NULL;
	const cJSON *hit = NULL;

	mock_reply_release(&c->r);
	mock_reply_init(&c->r);
	if (strcmp(path, "/v1/models") == 0 && m->openai_models != NULL) {
		hit = m->openai_models;
	} else if (strcmp(path, "/v1/models") == 0 && m->models != NULL) {
		const cJSON *it;

		list = cJSON_CreateObject();
		cJSON_AddItemToObject(list, "data", cJSON_CreateArray());
		cJSON_ArrayForEach(it, m->models)
			cJSON_AddItemToArray(json_get(list, "data"), cJSON_Duplicate(it, true));
		cJSON_AddBoolToObject(list, "has_more", 0);
		hit = list;
	} else if (strncmp(path, "/v1/models/", 11) == 0 && m->models != NULL) {
		char *id = unescape_dup(path + 11);

		hit = models_find(m, id);
		free(id);
	} else if (strcmp(path, "/props") == 0) {
		hit = m->llamacpp_props;
	} else if (strcmp(path, "/api/ps") == 0) {
		hit = m->ollama_ps;
	} else if (strcmp(path, "/api/show") == 0 && m->ollama_show != NULL) {
		body = cJSON_ParseWithLength(rq->body.data != NULL ? rq->body.data : "", rq->body.len);
		hit = json_get(m->ollama_show, json_str(body, "model", json_str(body, "name", "")));
	}
	models_reply(&c->r, hit != NULL ? 200 : 404, hit, "not found");
	models_log(m, rq, c->r.status);
	mock_trace(m, "models %s %s -> %d", rq->method, rq->target, c->r.status);
	cJSON_Delete(list);
	cJSON_Delete(body);
}

/*
 * With the scenario's "models", /v1/messages is checked against the
 * model's ModelInfo as the real API checks it: a model it does not have,
 * max_tokens above the limit, a thinking type or effort level the model
 * does not take, and (for a model without budget thinking) sampling
 * parameters.
 */
void
mock_check_models(struct call *k)
{
	const cJSON *info, *caps, *th, *eff;
	const char *model = json_str(k->body, "model", ""), *type, *level;
	static const char *const sampling[] = { "temperature", "top_p", "top_k", NULL };
	int i;

	if (k->m->models == NULL || k->proto != P_ANTHROPIC)
		return;
	info = models_find(k->m, model);
	if (info == NULL) {
		k->not_found = true;
		mock_problem(k, "model: %s", model);
		return;
	}
	if (json_int(info, "max_tokens", 0) > 0 &&
	    json_int(k->body, "max_tokens", 0) > json_int(info, "max_tokens", 0))
		mock_problem(k, "max_tokens: %lld > %lld, which is the maximum allowed number of output "
		    "tokens for %s", (long long)json_int(k->body, "max_tokens", 0),
		    (long long)json_int(info, "max_tokens", 0), model);
	caps = json_get(info, "capabilities");
	th = json_get(k->body, "thinking");
	type = json_str(th, "type", NULL);
	if (type != NULL && strcmp(type, "disabled") != 0 &&
	    !json_bool(json_get(json_get(json_get(caps, "thinking"), "types"), type), "supported", false))
		mock_problem(k, "thinking.type.%s is not supported for this model", type);
	level = json_str(json_get(k->body, "output_config"), "effort", NULL);
	eff = json_get(caps, "effort");
	if (level != NULL && !json_bool(json_get(eff, level), "supported", false))
		mock_problem(k, "output_config.effort: \"%s\" is not supported for this model", level);
	if (!json_bool(json_get(json_get(json_get(caps, "thinking"), "types"), "enabled"), "supported", false))
		for (i = 0; sampling[i] != NULL; i++)
			if (json_get(k->body, sampling[i]) != NULL)
				mock_problem(k, "%s: only the default is supported for this model", sampling[i]);
}
