/*
 * record: the conversation, in memory and in the session's log.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "turn_int.h"
#include "sub/subagent.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "intent.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"
#include "tooluse.h"

/* The turn's record in the log (the turn browser reads it), gathered while the turn runs. */
struct turn_record {
	char	*prompt;
	int64_t	 started;
	cJSON	*tools;		/* the names of the tools it ran; NULL: no turn */
	int64_t	 tokens;	/* the conversation's tokens when it started */
	struct buf answer;	/* the text of the turn's answer: the result's */
	bool	 paused;	/* pause_turn: the next response goes on with this one */
	bool	 continuing;	/* the next response's text goes on with the answer */
	bool	 checkpoint_a;	/* the response's checkpoint A is on disk: side effects may run */
};

struct turn_record *
record_new(void)
{
	struct turn_record *tr = xcalloc(1, sizeof *tr);

	buf_init(&tr->answer, BUF_NOLIMIT);
	return tr;
}

const struct buf *
record_answer(const struct conversation *cv)
{
	return &conversation_record(cv)->answer;
}

void
record_set_continuing(struct conversation *cv, bool continuing)
{
	conversation_record(cv)->continuing = continuing;
}

void
record_set_paused(struct conversation *cv)
{
	struct turn_record *tr = conversation_record(cv);

	tr->paused = tr->continuing = true;
}

bool
record_checkpoint_made(const struct conversation *cv)
{
	return conversation_record(cv)->checkpoint_a;
}

void
record_call_start(struct conversation *cv)
{
	conversation_record(cv)->checkpoint_a = false;
}

void
record_free(struct turn_record *tr)
{
	if (tr == NULL)
		return;
	free(tr->prompt);
	cJSON_Delete(tr->tools);
	buf_release(&tr->answer);
	free(tr);
}

/* The tokens the conversation has used so far, of every kind. */
static int64_t
record_tokens_total(const struct conversation *cv)
{
	const struct usage *t = conversation_totals(cv);

	return t->input + t->output + t->cache_read + t->cache_write;
}

void
record_turn_start(struct conversation *cv, const char *prompt)
{
	struct turn_record *tr = conversation_record(cv);

	free(tr->prompt);
	tr->prompt = xstrdup(prompt);
	tr->started = ev_now_ms();
	cJSON_Delete(tr->tools);
	tr->tools = cJSON_CreateArray();
	tr->tokens = record_tokens_total(cv);
	tr->paused = tr->continuing = false;
	buf_reset(&tr->answer);
}

const char *
record_turn_prompt(const struct conversation *cv)
{
	return conversation_record(cv)->prompt;
}

void
record_turn_tool(struct conversation *cv, const char *name)
{
	struct turn_record *tr = conversation_record(cv);

	if (tr->tools != NULL)
		cJSON_AddItemToArray(tr->tools, cJSON_CreateString(name));
}

cJSON *
record_turn(struct conversation *cv, const char *stop_reason)
{
	struct turn_record *tr = conversation_record(cv);
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "k", "turn");
	cJSON_AddNumberToObject(rec, "turn", conversation_turn(cv));
	cJSON_AddStringToObject(rec, "prompt", tr->prompt != NULL ? tr->prompt : "");
	cJSON_AddItemToObject(rec, "tools", tr->tools != NULL ? tr->tools : cJSON_CreateArray());
	tr->tools = NULL;
	cJSON_AddNumberToObject(rec, "tokens", (double)(record_tokens_total(cv) - tr->tokens));
	cJSON_AddNumberToObject(rec, "ms", (double)(ev_now_ms() - tr->started));
	cJSON_AddNumberToObject(rec, "time", (double)time(NULL));
	cJSON_AddStringToObject(rec, "stop_reason", stop_reason);
	return rec;
}

int
record_log(struct conversation *cv, cJSON *rec)
{
	if (!conversation_durable(cv)) {
		cJSON_Delete(rec);
		return 0;
	}
	return session_append(agent_session(conversation_agent(cv)), rec);
}

int
record_sync(struct conversation *cv)
{
	return conversation_durable(cv) ? session_sync(agent_session(conversation_agent(cv))) : 0;
}

/* Add a message to the conversation and to the log.  0, or -1 (reported). */
int
record_add(struct conversation *cv, const char *role, cJSON *content)
{
	struct agent *a = conversation_agent(cv);

	conv_add(conversation_conv(cv), role, content, conversation_turn(cv));
	if (conversation_durable(cv) && session_log_message(agent_session(a), conv_last(conversation_conv(cv))) == -1)
		return agent_unsaved(cv);
	/* a subagent's goes in the log as it is said, with its parent call */
	if (!conversation_durable(cv) && sub_record(agent_subs(a), cv, role, content) == -1)
		return agent_unsaved(cv);
	return 0;
}

/* Append blocks (an array, taken) to the last message, in memory and in the log. */
int
record_extend_last(struct conversation *cv, cJSON *blocks)
{
	cJSON *rec = cJSON_CreateObject(), *dst = json_get(conv_last(conversation_conv(cv)), "content"), *b;

	cJSON_AddStringToObject(rec, "k", "extend");
	cJSON_AddItemToObject(rec, "content", cJSON_Duplicate(blocks, 1));
	if (!conversation_durable(cv) && sub_record(agent_subs(conversation_agent(cv)), cv,
	    json_str(conv_last(conversation_conv(cv)), "role", "user"),
	    blocks) == -1) {
		cJSON_Delete(blocks);
		cJSON_Delete(rec);
		return agent_unsaved(cv);
	}
	while ((b = blocks->child) != NULL)
		cJSON_AddItemToArray(dst, cJSON_DetachItemViaPointer(blocks, b));
	cJSON_Delete(blocks);
	if (record_log(cv, rec) == -1)
		return agent_unsaved(cv);
	return 0;
}

bool
record_last_is(const struct conversation *cv, const char *role)
{
	const cJSON *last = conv_last(conversation_msgs(cv));

	return last != NULL && strcmp(json_str(last, "role", ""), role) == 0;
}

/*
 * Blocks (an array, taken) for the model.  After an answer that was empty
 * or interrupted the last message is already the user's: they join it, as
 * two user messages in a row would make the next request invalid.
 */
int
record_add_user(struct conversation *cv, cJSON *content)
{
	if (record_last_is(cv, "user"))
		return record_extend_last(cv, content);
	return record_add(cv, "user", content);
}

cJSON *
record_text_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

int
record_add_text(struct conversation *cv, const char *text)
{
	cJSON *content = cJSON_CreateArray();

	cJSON_AddItemToArray(content, record_text_block(text));
	return record_add_user(cv, content);
}

int64_t
record_tokens_used(const struct conversation *cv)
{
	const struct usage *l = conversation_last_usage(cv);

	return l->input + l->cache_read + l->cache_write + l->output;
}

static bool
record_blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/*
 * Keep the blocks that can go back to the model.  A tool_use or thinking
 * block cut off before its content_block_stop cannot (broken input, no
 * signature); cut-off text can, and is what the user saw; a text block
 * with nothing but white space cannot (the API refuses it).
 */
cJSON *
record_complete_blocks(cJSON *content, int *ntools)
{
	cJSON *b, *next;

	*ntools = 0;
	for (b = content->child; b != NULL; b = next) {
		bool text = strcmp(json_str(b, "type", ""), "text") == 0;

		next = b->next;
		if (text && record_blank(json_str(b, "text", "")))
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		else if (text)
			cJSON_DeleteItemFromObjectCaseSensitive(b, "_incomplete");
		else if (json_bool(b, "_incomplete", false))
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		else if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
			(*ntools)++;
	}
	return content;
}

/*
 * Record a response's content (taken): a new assistant message, or more
 * of the paused one after pause_turn.  Nothing is recorded for an empty
 * response: an empty assistant message would make the next request
 * invalid.  Its text becomes the answer, or goes on with it.
 */
int
record_response(struct conversation *cv, cJSON *content)
{
	const cJSON *b;
	struct turn_record *tr = conversation_record(cv);
	bool extend = tr->paused && record_last_is(cv, "assistant");

	if (!tr->continuing)
		buf_reset(&tr->answer);
	tr->paused = tr->continuing = false;
	cJSON_ArrayForEach(b, content)
		if (strcmp(json_str(b, "type", ""), "text") == 0)
			buf_puts(&tr->answer, json_str(b, "text", ""));
	if (cJSON_GetArraySize(content) == 0) {
		cJSON_Delete(content);
		return 0;
	}
	if (extend)
		return record_extend_last(cv, content);
	return record_add(cv, "assistant", content);
}

/*
 * The response named its tools and is in the log: checkpoint A, after
 * which side-effecting tools may run (read-only ones may already have).
 */
int
record_checkpoint_a(struct conversation *cv)
{
	cJSON *pending = cJSON_CreateArray(), *b;
	int rc;

	cJSON_ArrayForEach(b, json_get(conv_last(conversation_conv(cv)), "content"))
		if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
			cJSON_AddItemToArray(pending, cJSON_Duplicate(b, 1));
	/* from here on a call that started has an intent: one without never started */
	rc = cJSON_GetArraySize(pending) > 0 && conversation_durable(cv) ? intent_mark(cv) : 0;
	if (rc == 0 && conversation_durable(cv))
		rc = session_checkpoint(agent_session(conversation_agent(cv)), 'A', conversation_turn(cv),
		    conversation_calls(cv), record_tokens_used(cv), pending);
	cJSON_Delete(pending);
	/* Without checkpoint A on disk nothing with side effects may run. */
	if (rc == -1)
		return agent_unsaved(cv);
	conversation_record(cv)->checkpoint_a = true;
	/* An interrupted turn starts nothing: its waiting calls end unrun. */
	if (conversation_phase(cv) != PHASE_ENDING)
		sched_kick(conversation_sched(cv));
	return 0;
}
