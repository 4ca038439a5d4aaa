/* The prompt hook type: one small streamed model call decides: see hooks/hooks_int.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config/config.h"
#include "context/conv.h"
#include "hooks/hook_remote.h"
#include "hooks/hooks_int.h"
#include "json.h"
#include "model/http.h"
#include "model/provider.h"
#include "model/stream.h"
#include "xalloc.h"

#define HOOK_PROMPT_MAX_TOKENS	1024

static const char hook_prompt_system[] =
    "You are a hook of a coding agent: you decide whether what the agent is about to do, "
    "or has just done, may go on, by the instructions you are given and the event's JSON. "
    "Answer with only one JSON object and no other text: {\"ok\": true} when it may go "
    "on, or {\"ok\": false, \"reason\": \"...\"} when it may not, the reason saying why "
    "in one sentence addressed to the agent.";

/* The instructions with $ARGUMENTS replaced by the event (or the event after them). */
static void
hook_prompt_text(const char *prompt, const char *input, struct buf *out)
{
	const char *p = prompt, *at;
	bool used = false;

	while ((at = strstr(p, "$ARGUMENTS")) != NULL) {
		buf_append(out, p, (size_t)(at - p));
		buf_puts(out, input);
		p = at + strlen("$ARGUMENTS");
		used = true;
	}
	buf_puts(out, p);
	if (!used)
		buf_printf(out, "\n\nThe event:\n%s", input);
}

static void
hook_prompt_finish(struct hook_remote *h, long status)
{
	struct stream_handler none = { NULL, NULL, NULL, NULL };
	struct stream *st = stream_new(*(const enum stream_proto *)h->state, &none);
	struct buf text = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(1024), type = BUF_INIT(256);
	const cJSON *b;

	if (status < 200 || status > 299) {
		provider_error_text(h->body.data != NULL ? h->body.data : "", h->body.len, status,
		    &why, &type);
		h->done(h->arg, status, NULL, 0, buf_cstr(&why));
		goto out;
	}
	stream_feed(st, h->body.data != NULL ? h->body.data : "", h->body.len);
	stream_finish(st);
	cJSON_ArrayForEach(b, stream_content(st))
		if (strcmp(json_str(b, "type", ""), "text") == 0)
			buf_puts(&text, json_str(b, "text", ""));
	if (stream_error(st) != NULL && stream_error(st)[0] != '\0')
		h->done(h->arg, status, NULL, 0, stream_error(st));
	else
		h->done(h->arg, status, buf_cstr(&text), text.len, NULL);
out:
	stream_free(st);
	buf_release(&text);
	buf_release(&why);
	buf_release(&type);
}

static void
hook_prompt_cleanup(struct hook_remote *h)
{
	free(h->state);
}

struct hook_remote *
hook_prompt_start(struct http *http, const struct config *cfg, const cJSON *hook,
    const char *input, int timeout_ms, hook_remote_done *done, void *arg, struct buf *err)
{
	enum stream_proto proto = cfg->provider != NULL && strcmp(cfg->provider, "openai") == 0 ?
	    STREAM_OPENAI : STREAM_ANTHROPIC;
	struct provider_request pr;
	struct buf ask = BUF_INIT(BUF_NOLIMIT), body = BUF_INIT(BUF_NOLIMIT);
	struct curl_slist *headers = NULL;
	struct hook_remote *h;
	cJSON *msgs;
	char *url = NULL;
	enum stream_proto *keep;

	hook_prompt_text(json_str(hook, "prompt", ""), input, &ask);
	msgs = conv_text_messages(buf_cstr(&ask));
	memset(&pr, 0, sizeof pr);
	pr.proto = proto;
	pr.base_url = cfg->base_url != NULL ? cfg->base_url : provider_default_base(proto);
	pr.api_key = cfg->api_key;
	pr.model = json_str(hook, "model", cfg->model);
	pr.max_tokens = HOOK_PROMPT_MAX_TOKENS;
	pr.system_static = hook_prompt_system;
	pr.messages = msgs;
	if (provider_build(&pr, &url, &headers, &body) == -1) {
		buf_puts(err, "the model request could not be built");
		cJSON_Delete(msgs);
		buf_release(&ask);
		buf_release(&body);
		free(url);
		curl_slist_free_all(headers);
		return NULL;
	}
	cJSON_Delete(msgs);
	buf_release(&ask);
	h = hook_remote_new(done, arg);
	keep = xmalloc(sizeof *keep);
	*keep = proto;
	h->state = keep;
	h->finish = hook_prompt_finish;
	h->cleanup = hook_prompt_cleanup;
	hook_remote_send(h, http, url, headers, buf_detach(&body, NULL), timeout_ms);
	free(url);
	return h;
}
