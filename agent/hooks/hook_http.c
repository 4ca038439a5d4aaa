/* The http and prompt hook types' shared request, and the http type: see hooks/hooks_int.h. */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config/config.h"
#include "hooks/hook_remote.h"
#include "hooks/hooks_int.h"
#include "json.h"
#include "model/http.h"
#include "xalloc.h"

#define HOOK_BODY_MAX	(1024u * 1024)

static void
hook_remote_body_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct hook_remote *h = arg;

	(void)req;
	h->req = NULL;
	if (r->fail != HTTP_OK)
		h->done(h->arg, 0, NULL, 0, r->error != NULL && r->error[0] != '\0' ? r->error :
		    "the request failed");
	else if (h->over)
		h->done(h->arg, r->status, NULL, 0, "the answer was longer than 1 MB");
	else
		h->finish(h, r->status);
	hook_remote_free(h);
}

static int
hook_remote_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct hook_remote *h = arg;

	(void)req;
	if (h->body.len + n > HOOK_BODY_MAX) {
		h->over = true;
		return -1;
	}
	buf_append(&h->body, p, n);
	return 0;
}

struct hook_remote *
hook_remote_new(hook_remote_done *done, void *arg)
{
	struct hook_remote *h = xcalloc(1, sizeof *h);

	h->done = done;
	h->arg = arg;
	buf_init(&h->body, BUF_NOLIMIT);
	return h;
}

void
hook_remote_send(struct hook_remote *h, struct http *http, const char *url,
    struct curl_slist *headers, char *body, int timeout_ms)
{
	struct http_timeouts t = { 10000, 0, 0, timeout_ms, false };
	struct http_handler hh = { NULL, hook_remote_body, hook_remote_body_done, h };

	h->req = http_post_take(http, url, headers, body, strlen(body), &t, &hh);
}

void
hook_remote_free(struct hook_remote *h)
{
	if (h == NULL)
		return;
	if (h->cleanup != NULL)
		h->cleanup(h);
	buf_release(&h->body);
	free(h);
}

void
hook_remote_cancel(struct hook_remote *h)
{
	if (h == NULL)
		return;
	if (h->req != NULL)
		http_cancel(h->req);
	hook_remote_free(h);
}

/* --- the http type ------------------------------------------------------- */

/* Does s match pattern, where * stands for any run of characters? */
static bool
hook_glob(const char *pat, const char *s)
{
	if (*pat == '\0')
		return *s == '\0';
	if (*pat == '*') {
		for (;; s++) {
			if (hook_glob(pat + 1, s))
				return true;
			if (*s == '\0')
				return false;
		}
	}
	return *s == *pat && hook_glob(pat + 1, s + 1);
}

int
hook_http_allowed(const struct config *cfg, const char *url)
{
	const cJSON *p;

	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return 0;
	if (cfg->http_hook_urls == NULL)
		return 1;
	cJSON_ArrayForEach(p, cfg->http_hook_urls)
		if (cJSON_IsString(p) && hook_glob(p->valuestring, url))
			return 1;
	return 0;
}

static bool
hook_name_in(const cJSON *list, const char *name, size_t n)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, list)
		if (cJSON_IsString(v) && strlen(v->valuestring) == n && strncmp(v->valuestring, name, n) == 0)
			return true;
	return false;
}

/* A header's value with $VAR and ${VAR} filled, for the names the hook and the settings allow. */
static void
hook_header_value(const struct config *cfg, const cJSON *hook, const char *v, struct buf *out)
{
	const cJSON *allowed = json_get(hook, "allowedEnvVars");
	const char *name, *val;
	size_t n;
	bool brace;
	char key[256];

	while (*v != '\0') {
		if (*v != '$') {
			buf_putc(out, *v++);
			continue;
		}
		brace = v[1] == '{';
		name = v + 1 + brace;
		n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		if (n == 0 || n >= sizeof key || (brace && name[n] != '}')) {
			buf_putc(out, *v++);
			continue;
		}
		memcpy(key, name, n);
		key[n] = '\0';
		if (hook_name_in(allowed, name, n) &&
		    (cfg->http_hook_env == NULL || hook_name_in(cfg->http_hook_env, name, n)) &&
		    (val = getenv(key)) != NULL)
			buf_puts(out, val);
		v = name + n + brace;
	}
}

static void
hook_http_finish(struct hook_remote *h, long status)
{
	h->done(h->arg, status, h->body.data != NULL ? h->body.data : "", h->body.len, NULL);
}

struct hook_remote *
hook_http_start(struct http *http, const struct config *cfg, const cJSON *hook, const char *input,
    int timeout_ms, hook_remote_done *done, void *arg, struct buf *err)
{
	const char *url = json_str(hook, "url", "");
	struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
	struct buf line = BUF_INIT(BUF_NOLIMIT);
	const cJSON *hd;
	struct hook_remote *h;

	if (!hook_http_allowed(cfg, url)) {
		curl_slist_free_all(headers);
		buf_printf(err, "the URL %s is not one allowedHttpHookUrls allows", url);
		return NULL;
	}
	cJSON_ArrayForEach(hd, json_get(hook, "headers")) {
		if (!cJSON_IsString(hd) || strpbrk(hd->string, ":\r\n") != NULL)
			continue;
		buf_reset(&line);
		buf_printf(&line, "%s: ", hd->string);
		hook_header_value(cfg, hook, hd->valuestring, &line);
		if (strpbrk(buf_cstr(&line), "\r\n") == NULL)
			headers = curl_slist_append(headers, buf_cstr(&line));
	}
	buf_release(&line);
	h = hook_remote_new(done, arg);
	h->finish = hook_http_finish;
	hook_remote_send(h, http, url, headers, xstrdup(input), timeout_ms);
	return h;
}
