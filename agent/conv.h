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

#include <cjson/cJSON.h>

struct buf;

struct conv {
	cJSON	*messages;
};

void	conv_init(struct conv *);
void	conv_release(struct conv *);
/* Drop every message. */
void	conv_clear(struct conv *);
void	conv_add_user_text(struct conv *, const char *text, int turn);
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
/* conv_check_messages of the whole conversation, with an open end. */
int	conv_check(const struct conv *, struct buf *why);

#endif
