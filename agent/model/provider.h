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

struct http_body;

struct conv;

/* What the request says of thinking: only what the model takes (models.h). */
enum provider_thinking {
	PROVIDER_THINK_NONE,		/* nothing: the model's default */
	PROVIDER_THINK_OFF,		/* thinking: {type: "disabled"} */
	PROVIDER_THINK_ADAPTIVE,	/* thinking: {type: "adaptive"} */
	PROVIDER_THINK_BUDGET		/* thinking: {type: "enabled", budget_tokens} */
};

struct provider_request {
	enum stream_proto proto;
	const char	*base_url;	/* with or without a trailing /v1 */
	const char	*api_key;	/* may be NULL (local OpenAI-compatible servers) */
	const char	*auth_token;	/* ANTHROPIC_AUTH_TOKEN: "authorization: Bearer" (gateways); may be NULL */
	const char	*custom_headers; /* "Name: value" lines (ANTHROPIC_CUSTOM_HEADERS); may be NULL */
	const char	*model;
	int		 max_tokens;
	long		 max_output;	/* the model's limit on max_tokens; 0: unknown */
	enum provider_thinking thinking;
	int		 thinking_budget;	/* PROVIDER_THINK_BUDGET: raised to 1024, and max_tokens above it */
	const char	*effort;	/* output_config.effort (OpenAI: reasoning_effort); NULL: none */
	bool		 completion_tokens; /* OpenAI: send max_completion_tokens, not max_tokens */
	const char	*system_static;	/* cacheable */
	const char	*system_dynamic;	/* date, cwd, branch, memory files */
	const cJSON	*tools;		/* [{name, description, input_schema}] */
	const cJSON	*messages;	/* Anthropic-shaped */
	const struct conv *conv;	/* or these, with the texts it keeps (then messages is not read) */
	bool		 cache;		/* place cache_control breakpoints */
};

/*
 * The URL (caller frees), the headers (caller frees with
 * curl_slist_free_all) and the body (appended to body).
 */
int	provider_build(const struct provider_request *, char **url,
	    struct curl_slist **headers, struct buf *body);
/*
 * The same request as a body in parts (emptied first; the caller
 * releases it, or hands it to http_post_body): the conversation's kept
 * texts are held, not copied.  The same bytes as provider_build's.
 */
int	provider_build_body(const struct provider_request *, char **url,
	    struct curl_slist **headers, struct http_body *body);

/*
 * The headers that say who is asking (the key or token, the API version,
 * custom headers), as a new list the caller frees.
 */
struct curl_slist *provider_auth_headers(const struct provider_request *);
/* base without a trailing "/" or "/v1", then suffix (caller frees). */
char	*provider_url(const char *base, const char *suffix);

/* The default base URL of a protocol. */
const char *provider_default_base(enum stream_proto);

/*
 * From an error response body (JSON of either API, or text), one sentence
 * into out and the error type (e.g. "rate_limit_error") into type.
 */
void	provider_error_text(const char *body, size_t n, long status,
	    struct buf *out, struct buf *type);

/*
 * One message of the Anthropic shape on the wire of proto, appended to
 * out: Anthropic's without a cache breakpoint; OpenAI's none or more
 * messages, joined by commas.  0, or -1 when out is full.
 */
int	provider_message_wire(enum stream_proto, const cJSON *message, struct buf *out);

/* A deep copy of a content block without the "_" keys. */
cJSON	*provider_clean_block(const cJSON *block);

#endif
