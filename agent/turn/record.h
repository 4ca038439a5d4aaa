/*
 * record: the conversation, in memory and in the session's log.
 *
 * Owns adding messages (a new one, or blocks joined to the last one, so
 * that two user messages never follow each other), keeping of a cut-off
 * response only the blocks that can go back to the model, recording a
 * response as the turn's answer, and checkpoint A (the response's tool
 * calls are on disk; side effects may start).  Each write that fails is
 * reported (agent_unsaved) and returns -1.
 */
#ifndef TANDEM_RECORD_H
#define TANDEM_RECORD_H

#include "turn_int.h"

struct turn_record;

/* The turn's record of a conversation (record.c's), and its end. */
struct turn_record *record_new(void);
void	 record_free(struct turn_record *);
/* A turn starts with prompt: its record begins (the time, the tokens so far, no tool yet, no answer). */
void	 record_turn_start(struct conversation *, const char *prompt);
/* The turn's prompt; NULL before the first turn. */
const char *record_turn_prompt(const struct conversation *);
/* The turn ran the tool name (nothing outside a turn). */
void	 record_turn_tool(struct conversation *, const char *name);
/* The turn's record for the log (the caller takes it), ended by stop_reason. */
cJSON	*record_turn(struct conversation *, const char *stop_reason);

/* Append a record (taken) to the conversation's log; 0 when it keeps none; -1, not reported. */
int	 record_log(struct conversation *, cJSON *rec);
/* The conversation's log on disk (fsync); 0 when it keeps none. */
int	 record_sync(struct conversation *);
int	 record_add(struct conversation *, const char *role, cJSON *content);
/* Append blocks (an array, taken) to the last message. */
int	 record_extend_last(struct conversation *, cJSON *blocks);
bool	 record_last_is(const struct conversation *, const char *role);
/* Blocks (an array, taken) from the user's side: a new message, or joined to the last. */
int	 record_add_user(struct conversation *, cJSON *content);
int	 record_add_text(struct conversation *, const char *text);
cJSON	*record_text_block(const char *text);
/* The tokens of the last request and its answer. */
int64_t	 record_tokens_used(const struct conversation *);
/* The blocks of content that can go back to the model; *ntools: its complete tool calls. */
cJSON	*record_complete_blocks(cJSON *content, int *ntools);
/* Record a response's content (taken) and take its text as the answer. */
int	 record_response(struct conversation *, cJSON *content);
/* Checkpoint A: the response's tool calls are on disk; side-effecting tools may run. */
int	 record_checkpoint_a(struct conversation *);
/* Checkpoint A of the response was made; a new call of the turn has none yet. */
bool	 record_checkpoint_made(const struct conversation *);
void	 record_call_start(struct conversation *);
/* The text of the turn's answer: the result's. */
const struct buf *record_answer(const struct conversation *);
/* The next response's text goes on with the answer (else replaces it). */
void	 record_set_continuing(struct conversation *, bool continuing);
/* pause_turn: the next response goes on with this one, its text with the answer. */
void	 record_set_paused(struct conversation *);

#endif
