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
 * user, and each assistant tool_use is answered by exactly one tool_result
 * at the start of the next user message.  0, or -1 with why.
 */
int	conv_check(const struct conv *, struct buf *why);

#endif
