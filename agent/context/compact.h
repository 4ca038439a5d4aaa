/*
 * compact: keeping the conversation inside the model's context window
 * (DESIGN.md §6), as a pipeline of stages, cheapest first:
 *
 *   micro     old results of read-only tools (read_file, grep, glob,
 *             list_dir) become a one-line placeholder: they can be fetched
 *             again;
 *   collapse  the oldest turns become one mechanical digest (prompts, files
 *             read, files changed, commands run);
 *   summary   a model call summarises the older part, which the summary
 *             replaces.  This module builds that call and applies its
 *             answer; the caller makes the call.
 *
 * Every function works in place on a messages array of conv.h and leaves
 * it a valid conversation (what conv_check() accepts): roles alternate
 * starting with user, and every tool_use keeps its tool_result at the start
 * of the next message, because the older part is only ever cut where no
 * pair can be split.  Where a function takes keep_recent_turns, the cut
 * falls at the start of the keep_recent_turns-th newest turn (a turn starts
 * at a user message without tool results); with 0 it falls at the start
 * of the COMPACT_KEEP_ROUNDS-th newest model call (an assistant message),
 * inside a turn if need be: the way out when one long turn fills the
 * window.  Nothing is cut when nothing but an earlier compaction's own
 * messages would lie before that point.
 *
 * What replaces the older part is a user message (marked "_compact":
 * "collapse" or "summary") and, when the kept part starts with a user
 * message, an assistant acknowledgement (marked too), so that roles still
 * alternate.  A later collapse folds an earlier digest into its own; a
 * later summary is given it to summarise.  New messages carry the "_turn"
 * of the last message they replace.
 *
 * Nothing here allocates what the caller must free, except
 * compact_summary_request's result.
 */
#ifndef TANDEM_COMPACT_H
#define TANDEM_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

enum compact_stage {
	COMPACT_NONE,
	COMPACT_MICRO,
	COMPACT_COLLAPSE,
	COMPACT_SUMMARY
};

/* Fractions of the window at which each stage starts; <= 0 turns it off. */
struct compact_thresholds {
	double	micro;
	double	collapse;
	double	summary;
};

#define COMPACT_MICRO_DEFAULT		0.50
#define COMPACT_COLLAPSE_DEFAULT	0.70
#define COMPACT_SUMMARY_DEFAULT		0.85
/* Tool rounds whose results micro never touches. */
#define COMPACT_KEEP_ROUNDS		4
/* Turns that collapse and summary keep whole. */
#define COMPACT_KEEP_TURNS		2
/* Failed summaries in a row after which automatic summaries stop. */
#define COMPACT_MAX_SUMMARY_FAILURES	3

struct compact_stats {
	int	results_elided;		/* micro */
	int	messages_replaced;	/* collapse, summary: messages taken out */
	int64_t	bytes_saved;		/* estimated, JSON bytes */
};

/*
 * The automatic pipeline's outcome.  stage is the deepest stage that
 * changed something (COMPACT_NONE: nothing did); need_summary says the
 * conversation is still at the summary threshold and the caller should
 * make the summary call, passing keep_turns to compact_summary_request()
 * and compact_apply_summary().  Tokens are compact_estimate()'s.
 */
struct compact_outcome {
	enum compact_stage	 stage;
	bool			 need_summary;
	int			 keep_turns;
	int64_t			 tokens_before;
	int64_t			 tokens_after;
	struct compact_stats	 stats;
};

/* "none", "micro", "collapse", "summary". */
const char *compact_stage_name(enum compact_stage);

/*
 * Tokens of a request holding system, tools and messages (any may be
 * NULL), estimated as its compact JSON bytes / 4, without printing it.
 * Tokenizers give about 3.5 to 4 bytes a token for English and code, so
 * dense code can read some 15% low: the thresholds leave that much room
 * under the window, and a request that still does not fit is compacted
 * and retried (compact_overflow).  Cheap and the same for every provider;
 * the usage figures of each response are the exact count.  Keys starting
 * with "_" are not counted (never sent).
 */
int64_t	compact_estimate(const char *system, const cJSON *tools, const cJSON *messages);
/* The same, with the messages counted by the caller (conv_json_bytes). */
int64_t	compact_estimate_bytes(const char *system, const cJSON *tools, int64_t message_bytes);
/* The bytes compact_estimate counts for one message. */
int64_t	compact_message_bytes(const cJSON *message);

/*
 * The stage the conversation is due for at tokens of window: the deepest
 * whose threshold tokens reach.  COMPACT_NONE when window <= 0.
 */
enum compact_stage compact_plan(int64_t tokens, int64_t window, const struct compact_thresholds *);

/*
 * The pipeline, cheapest stage first, run before a request of system,
 * tools and messages to a model of window tokens (th NULL: the defaults),
 * measuring after each step and going on only while still at the next
 * step's threshold:
 *   1. micro threshold: micro keeping COMPACT_KEEP_ROUNDS rounds, but
 *      only when it saves a tenth of the window or more, or the collapse
 *      threshold is reached too: every change to old messages costs a
 *      prompt-cache rewrite, and a small saving is not worth one;
 *   2. collapse threshold: collapse keeping COMPACT_KEEP_TURNS turns;
 *      still there: keeping one turn;
 *   3. summary threshold (still there: the newest turn alone is that
 *      big): with summaries, need_summary (the caller makes the call);
 *      without (they failed COMPACT_MAX_SUMMARY_FAILURES times in a
 *      row), collapse inside the newest turn (keep 0).
 */
void	compact_auto(cJSON *messages, const char *system, const cJSON *tools,
	    int64_t window, const struct compact_thresholds *th, bool summaries,
	    struct compact_outcome *out);
/* The same, given compact_estimate of the request (a caller that keeps it). */
void	compact_auto_at(cJSON *messages, const char *system, const cJSON *tools,
	    int64_t window, const struct compact_thresholds *th, bool summaries,
	    int64_t tokens, struct compact_outcome *out);

/*
 * After an error answer to a request that was too big (HTTP 413, or a
 * context-window error: "prompt is too long", "context_length_exceeded",
 * "exceeds the available context size"...): every mechanical stage at
 * once, as hard as it goes without a model call: micro keeping one round,
 * collapse keeping one turn, or, when that takes nothing out, collapse
 * inside the newest turn.  out says what it did; stage COMPACT_NONE means
 * nothing could be taken out (retrying is pointless).
 */
void	compact_overflow(cJSON *messages, const char *system, const cJSON *tools,
	    struct compact_outcome *out);
/*
 * Whether an error answer (HTTP status, error type and message as
 * provider_error_text() gives them; either may be NULL) says the request
 * did not fit the model's context window.
 */
bool	compact_is_overflow(long status, const char *type, const char *message);

/*
 * micro: replace the content of every tool_result answering a read-only
 * tool called before the newest keep_recent tool rounds (an assistant
 * message with tool_use blocks and the results after it) with
 * "[result elided to save context; call <tool> again if needed]".
 * tool_use_id and is_error stay; tool_use blocks are never touched; a
 * result shorter than its placeholder is left alone.  Returns how many
 * results it elided (0: nothing to do; running it twice is a no-op).
 * stats (may be NULL) is added to.
 */
int	compact_micro(cJSON *messages, int keep_recent, struct compact_stats *);

/*
 * collapse: replace everything before the newest keep_recent_turns turns
 * (0: before the newest COMPACT_KEEP_ROUNDS model calls) with one digest:
 *   "Earlier in this session (collapsed):\nprompts: ...\nfiles read: ...\n
 *    files changed: ...\ncommands run: ..."
 * An earlier digest or summary at the start is kept in front of it.
 * Returns how many messages it took out (0: nothing older to collapse).
 */
int	compact_collapse(cJSON *messages, int keep_recent_turns, struct compact_stats *);

/*
 * summary, step 1: the messages of the summarisation call (a new array,
 * the caller's): one user message with the older part (the part collapse
 * would take out) rendered as plain text, long texts and tool results
 * shortened, the whole cut to at most max_bytes (0: no cap) by dropping
 * its middle, then the instruction, with focus (may be NULL) in it.  Send
 * it with compact_summary_system() as the system prompt and no tools.
 * NULL when there is no older part to summarise.
 */
cJSON	*compact_summary_request(const cJSON *messages, int keep_recent_turns,
	    const char *focus, size_t max_bytes);
/*
 * The keep_recent_turns a summary should use: COMPACT_KEEP_TURNS, else 1,
 * else 0, the first that leaves something older to summarise; -1: none
 * does.  For /compact, which summarises whatever is older.
 */
int	compact_summary_keep(const cJSON *messages);
/* The system prompt of the summarisation call. */
const char *compact_summary_system(void);
/*
 * summary, step 2: replace the older part with summary.  messages must be
 * what compact_summary_request() saw (same keep_recent_turns), so that the
 * cut falls in the same place.  Returns how many messages it took out, or
 * 0 when there was nothing to replace or summary is empty (then nothing
 * changes).
 */
int	compact_apply_summary(cJSON *messages, int keep_recent_turns, const char *summary,
	    struct compact_stats *);

#endif
