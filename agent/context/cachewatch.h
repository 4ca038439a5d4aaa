/*
 * cachewatch: the prompt-cache break detector (DESIGN.md §6).
 *
 * Before each request, cachewatch_before() hashes what the provider caches:
 * the static system prompt, the tool definitions, the model and the
 * messages.  After the response, cachewatch_after() compares the request's
 * cache_read_input_tokens with what the previous answered request left in
 * the cache (its cache reads plus its cache writes).  A drop of more than
 * CACHEWATCH_MIN_DROP tokens and more than CACHEWATCH_MIN_DROP_PCT percent
 * of that is a break; its causes are what changed since that request:
 *
 *   system_changed    the static system prompt differs
 *   tools_changed     the tool definitions differ
 *   model_changed     the model differs (each model has its own cache)
 *   messages_changed  the previous request's messages are not a prefix of
 *                     this one's (a compaction, a rewind, an edit)
 *   ttl_expired       more than the TTL passed between the two requests
 *   unknown           none of the above
 *
 * A conversation that merely grew by appending messages is unchanged.
 * Several causes may apply together; unknown only when none does.
 *
 * Time comes from the caller (now_ms, any monotonic millisecond clock), so
 * tests can use a fake one.  Nothing here reads the environment: the agent
 * passes ev_now_ms() plus TANDEM_CLOCK_OFFSET_MS, which it reads from the
 * environment so that its own tests can move its clock.
 *
 * The watcher owns its memory; cachewatch_free() releases it.  It keeps
 * hashes only, never the conversation.
 */
#ifndef TANDEM_CACHEWATCH_H
#define TANDEM_CACHEWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "model/stream.h"

struct buf;

/* Anthropic's default prompt-cache lifetime. */
#define CACHEWATCH_TTL_MS	(5 * 60 * 1000)
#define CACHEWATCH_MIN_DROP	2000
#define CACHEWATCH_MIN_DROP_PCT	5

/* Causes of a break, as bits. */
enum cachewatch_cause {
	CACHEWATCH_SYSTEM_CHANGED	= 1 << 0,
	CACHEWATCH_TOOLS_CHANGED	= 1 << 1,
	CACHEWATCH_MODEL_CHANGED	= 1 << 2,
	CACHEWATCH_MESSAGES_CHANGED	= 1 << 3,
	CACHEWATCH_TTL_EXPIRED		= 1 << 4,
	CACHEWATCH_UNKNOWN		= 1 << 5
};

struct cachewatch_break {
	int	 request;	/* 1-based number of the request that broke */
	int64_t	 expected;	/* the previous request's cache read + write */
	int64_t	 read;		/* this request's cache read */
	int64_t	 dropped_tokens;	/* expected - read */
	unsigned causes;	/* enum cachewatch_cause bits, never 0 */
	double	 cost_usd;	/* its price (models.h: prices_break_cost); < 0: unknown */
};

/* The breaks /cost lists one by one; past these the count and sum go on. */
#define CACHEWATCH_LISTED	32

struct cachewatch;

/* ttl_ms <= 0 means CACHEWATCH_TTL_MS. */
struct cachewatch *cachewatch_new(int64_t ttl_ms);
void	cachewatch_free(struct cachewatch *);

/*
 * Note the request about to be sent.  Any argument may be NULL (hashed as
 * empty).  messages is the Anthropic-shaped array of conv.h; keys starting
 * with "_" (tandem's bookkeeping, never sent) are left out of the hashes.
 * Calling it again before cachewatch_after() (a retry) replaces the note.
 */
void	cachewatch_before(struct cachewatch *, const char *system_static,
	    const cJSON *tools, const char *model, const cJSON *messages,
	    int64_t now_ms);
/*
 * The same, with the messages given by their fingerprints (a caller that
 * keeps them, conv_hashes, hashes each message once).
 */
void	cachewatch_before_hashes(struct cachewatch *, const char *system_static,
	    const cJSON *tools, const char *model, const uint64_t *hashes, int count,
	    int64_t now_ms);
/* The fingerprint of one message (its "_" keys left out). */
uint64_t cachewatch_message_hash(const cJSON *message);
/*
 * The response to the noted request arrived with usage u.  True when it
 * was a cache break, then *out (may be NULL) describes it.  Without a
 * note since the last call it does nothing and returns false.
 */
bool	cachewatch_after(struct cachewatch *, const struct usage *u,
	    struct cachewatch_break *out);
/*
 * Forget the previous request, so the next one is compared with nothing
 * (a new conversation: /clear, another session).  Totals are kept.
 */
void	cachewatch_forget(struct cachewatch *);

/*
 * Price the break cachewatch_after() just reported: usd dollars, < 0 for
 * unknown (the model has no price).  The caller knows the prices; the
 * watcher only keeps the figure for cachewatch_cost_report().
 */
void	cachewatch_price_last(struct cachewatch *, double usd);
/*
 * The /cost lines: the breaks with their prices and their sum ("price
 * unknown" for a break without one), or "Cache breaks: none".
 */
void	cachewatch_cost_report(const struct cachewatch *, struct buf *out);

/* The last break, or NULL when there was none. */
const struct cachewatch_break *cachewatch_last_break(const struct cachewatch *);
int	cachewatch_breaks(const struct cachewatch *);
/*
 * Cache reads against what the previous requests wrote and read, 0..1,
 * over every request that had a predecessor; -1 when there is nothing to
 * measure yet.
 */
double	cachewatch_efficiency(const struct cachewatch *);

/* The name of one cause bit ("ttl_expired"), or NULL for anything else. */
const char *cachewatch_cause_name(unsigned cause);
/* The names of the causes, as a new JSON array of strings (caller frees). */
cJSON	*cachewatch_causes_json(unsigned causes);
/* The names of the causes joined by ", ", appended to out. */
void	cachewatch_causes_text(unsigned causes, struct buf *out);
/* Add dropped_tokens, causes and (when known) cost_usd, the cache_break event's fields, to ev. */
void	cachewatch_break_fields(const struct cachewatch_break *, cJSON *ev);

/*
 * The /context lines: requests, tokens read and written, efficiency, the
 * breaks and the last one with its causes.  Appended to out.
 */
void	cachewatch_report(const struct cachewatch *, struct buf *out);
/*
 * The last answered request's fingerprint and usage as JSON (the caller
 * frees; {} before any), and back: a resumed session compares its first
 * request with the last one before it closed.  Times are the caller's
 * now_ms, so they must be wall-clock milliseconds to survive a restart.
 * cachewatch_load: 0, or -1 (malformed: nothing loaded).
 */
cJSON	*cachewatch_save(const struct cachewatch *);
int	cachewatch_load(struct cachewatch *, const cJSON *);

#endif
