/*
 * provider: the request each wire format needs, built from one
 * conversation.
 *
 * The conversation is kept in Anthropic's shape (conv.h); the Anthropic
 * provider sends it as it is, with prompt-cache breakpoints, and the
 * OpenAI-compatible one translates it to chat-completions messages.
 * Keys starting with "_" in content blocks are tandem's own bookkeeping and
 * are never sent.
 */
#ifndef TANDEM_PROVIDER_H
#define TANDEM_PROVIDER_H

#include <stdbool.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "buf.h"
#include "stream.h"

struct provider_request {
	enum stream_proto proto;
	const char	*base_url;	/* with or without a trailing /v1 */
	const char	*api_key;	/* may be NULL (local OpenAI-compatible servers) */
	const char	*model;
	int		 max_tokens;
	int		 thinking_budget;	/* 0: off; raised to 1024, and max_tokens above it */
	const char	*system_static;	/* cacheable */
	const char	*system_dynamic;	/* date, cwd, branch, memory files */
	const cJSON	*tools;		/* [{name, description, input_schema}] */
	const cJSON	*messages;	/* Anthropic-shaped */
	bool		 cache;		/* place cache_control breakpoints */
};

/*
 * The URL (caller frees), the headers (caller frees with
 * curl_slist_free_all) and the body (appended to body).
 */
int	provider_build(const struct provider_request *, char **url,
	    struct curl_slist **headers, struct buf *body);

/* The default base URL of a protocol. */
const char *provider_default_base(enum stream_proto);

/*
 * From an error response body (JSON of either API, or text), one sentence
 * into out and the error type (e.g. "rate_limit_error") into type.
 */
void	provider_error_text(const char *body, size_t n, long status,
	    struct buf *out, struct buf *type);

/* A deep copy of a content block without the "_" keys. */
cJSON	*provider_clean_block(const cJSON *block);

#endif
