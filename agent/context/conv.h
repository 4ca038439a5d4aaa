/*
 * conv: the conversation, kept in the Anthropic Messages shape.
 *
 * messages is an array of {"role", "content": [blocks], "_turn": N};
 * keys starting with "_" are tandem's bookkeeping and never sent.  The
 * conversation owns every message; functions that add take ownership of
 * what they are given.
 */
#ifndef TANDEM_CONV_H
#define TANDEM_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "compact.h"
#include "model/stream.h"

struct buf;
struct conv_cache;
struct conv_text;

/*
 * Besides the messages, what a request needs of each message but the last
 * is kept (conv_cache, conv.c's): its text on the wire, its fingerprint
 * for the cache watcher, its size for compaction, whether it was checked.
 * So building a request costs what is new in it.  The last message is
 * never kept: it may still grow (record_extend_last).  Messages added
 * with conv_add, or taken away from the end or the front, are noticed by
 * themselves; whoever changes a message in place or takes one from the
 * middle calls conv_changed(), and a new array comes with conv_replace().
 */
struct conv {
	cJSON			*messages;
	struct conv_cache	*cache;
};

void	conv_init(struct conv *);
void	conv_release(struct conv *);
/* Drop every message. */
void	conv_clear(struct conv *);
/* Use messages (an array, taken) instead of the conversation's. */
void	conv_replace(struct conv *, cJSON *messages);
/*
 * The deepest compaction stage applied to the messages, for the context
 * events; conv_compacted raises it, or with COMPACT_NONE forgets it.
 */
enum compact_stage conv_stage(const struct conv *);
void	conv_compacted(struct conv *, enum compact_stage);
/* Messages were changed in place (compaction, a rewind): forget what was kept. */
void	conv_changed(const struct conv *);
void	conv_add_user_text(struct conv *, const char *text, int turn);
/* A messages array of one user message, text its one text block (a side call's); the caller frees. */
cJSON	*conv_text_messages(const char *text);
/* content: an array of blocks (taken). */
void	conv_add(struct conv *, const char *role, cJSON *content, int turn);
int	conv_count(const struct conv *);
/* The last message, or NULL. */
cJSON	*conv_last(const struct conv *);
/*
 * Check the invariants the API enforces: roles alternate starting with
 * user; each assistant tool_use is answered by exactly one tool_result in
 * the next user message, in order; no tool_result answers anything else;
 * no tool_use id appears twice.  open_end: the last message may be an
 * assistant's whose calls are not answered yet (a crash left it so).
 * 0, or -1 with why and the index of the offending message in *bad
 * (bad may be NULL).
 */
int	conv_check_messages(const cJSON *messages, bool open_end, int *bad, struct buf *why);
/*
 * conv_check_messages of the whole conversation, with an open end; the
 * messages checked before are not checked again.
 */
int	conv_check(const struct conv *, struct buf *why);
/* One message's text on the wire of proto, appended to out: 0, or -1. */
typedef int conv_wire_fn(enum stream_proto, const cJSON *message, struct buf *out);
/*
 * What is kept of each message is made by the caller's function, the same
 * one for each kind every time (provider_message_wire, cachewatch_message_hash,
 * compact_message_bytes): conv.c knows the messages, not the wire.
 *
 * The wire texts of every message but the last, made once each, joined
 * by commas, appended to out after a comma unless *first (then cleared;
 * nothing at all when there are none).  The last message in *last (NULL:
 * none).  0, or -1 when out is full.
 */
int	conv_append_wires(const struct conv *, enum stream_proto, conv_wire_fn *,
	    struct buf *out, bool *first, const cJSON **last);
/*
 * The same texts (without the comma in front), not copied: the
 * conversation's own joined texts, held for the caller until
 * conv_text_unref, *len bytes of them from conv_text_data (which may move
 * when later texts are added; those bytes never change: a change of the
 * conversation makes its texts anew).  NULL when there are none (*len 0).
 * The last message in *last.
 */
struct conv_text *conv_pin_wires(const struct conv *, enum stream_proto, conv_wire_fn *,
	    size_t *len, const cJSON **last);
/* Where the held texts are now: read them here each time, not once. */
const char *conv_text_data(const struct conv_text *);
/* Let go of texts conv_pin_wires gave (NULL: nothing). */
void	conv_text_unref(struct conv_text *);
/* The fingerprint of each message, *n of them (the last one's made afresh). */
const uint64_t *conv_hashes(const struct conv *, uint64_t (*hash)(const cJSON *), int *n);
/* The size of the messages as an array: 2 + the sizes + a comma between two. */
int64_t	conv_json_bytes(const struct conv *, int64_t (*size)(const cJSON *));

/* How much was made afresh, not taken from what was kept (TANDEM_DEBUG=conv). */
struct conv_made {
	int	texts;		/* wire texts */
	int	hashes;		/* fingerprints */
	int	sizes;		/* sizes */
	int	checks;		/* messages checked */
	int	changes;	/* conv_changed() calls: what was kept is forgotten */
};
/* Since the last call (which resets the counts). */
void	conv_take_made(const struct conv *, struct conv_made *);
/*
 * Whether what is kept lines up with the messages, walking all of them
 * (TANDEM_DEBUG=conv): 0, or -1 with why.
 */
int	conv_verify(const struct conv *, struct buf *why);

#endif
