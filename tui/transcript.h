/*
 * transcript: the conversation as the transcript pane shows it.
 *
 * A list of items (a prompt, a streamed reply, thinking, a tool call with
 * its result, a notice), each rendering to styled logical lines.  Replies
 * stream through mdview (only their tail is parsed again); tool results
 * and thinking are compact until expanded.
 *
 * The view is a top anchor (item, line, row) or "following the end".  A
 * frame visits only the visible rows, walking from the anchor (or back
 * from the end), so its cost does not depend on the session's length;
 * rows come from each line's wrap cache.
 *
 * The transcript owns its items; tr_free frees everything.  The sline
 * pointers handed to a paint callback are valid during the call only.
 */
#ifndef TANDEM_TUI_TRANSCRIPT_H
#define TANDEM_TUI_TRANSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sline.h"

struct transcript;

struct transcript *tr_new(void);
void	 tr_free(struct transcript *);

void	 tr_prompt(struct transcript *, int turn, const char *text);
/* A delta of the reply (Markdown) or of thinking (plain text). */
void	 tr_text(struct transcript *, int turn, const char *s, size_t n);
void	 tr_thinking(struct transcript *, int turn, const char *s, size_t n);
void	 tr_tool_use(struct transcript *, int turn, const char *id, const char *name,
	    const char *summary);
void	 tr_tool_result(struct transcript *, const char *id, bool is_error, const char *content);
void	 tr_tool_denied(struct transcript *, const char *id, const char *reason);
/* The user interrupted the call (Esc): marked so, not as failed. */
void	 tr_tool_interrupted(struct transcript *, const char *id);
/* The call's input (a copy is kept until its result, for edits and searches). */
struct cJSON;
void	 tr_tool_input(struct transcript *, const char *id, const struct cJSON *input);
/* What an edit will do, as a unified diff (its approval's preview); shown once it is done. */
void	 tr_tool_diff(struct transcript *, const char *id, const char *diff);
/*
 * An agent call's subagent (parent: the call's id): its state (its type,
 * model calls, tokens, whether it runs), its text, its calls.  The calls'
 * input, result, diff and denial then come through tr_tool_* by their ids.
 * Folded, the call shows a live line while its subagent runs; expanded,
 * the subagent's own transcript.
 */
void	 tr_sub_state(struct transcript *, const char *parent, const char *agent, int calls,
	    int64_t tokens, bool running);
void	 tr_sub_text(struct transcript *, const char *parent, const char *s, size_t n);
void	 tr_sub_tool_use(struct transcript *, const char *parent, const char *id, const char *name,
	    const char *summary);
/* A notice: text (lines split at '\n') in role. */
void	 tr_notice(struct transcript *, int role, const char *text);
/* The reply being streamed ends: the next text starts a new block. */
void	 tr_end_block(struct transcript *);
/* Re-render what changed; true when anything did. */
bool	 tr_update(struct transcript *);
size_t	 tr_count(const struct transcript *);

/* The view. */
void	 tr_set_size(struct transcript *, int width, int height);
bool	 tr_following(const struct transcript *);
void	 tr_scroll(struct transcript *, int rows);
void	 tr_top(struct transcript *);
void	 tr_bottom(struct transcript *);

/* The glyphs tool calls are marked with (a copy is kept); redraws the tools. */
struct theme_glyphs;
void	 tr_set_glyphs(struct transcript *, const struct theme_glyphs *);

/* Expand or collapse every tool result and thinking block. */
void	 tr_expand_all(struct transcript *, bool expanded);
/* Move the selection among expandable items (dir -1 older, +1 newer); toggle it. */
void	 tr_select(struct transcript *, int dir);
void	 tr_select_none(struct transcript *);
bool	 tr_toggle_selected(struct transcript *);

/*
 * The call the side pane follows: the selected tool call, else the newest
 * one.  The pointers are valid until the transcript changes;
 * tr_gen counts the changes that may change what is followed.
 */
struct tr_call {
	const char	*id, *name, *summary;
	const char	*text;		/* the result */
	size_t		 len;
	const char	*diff;		/* an edit's unified diff, or NULL */
	const char	*reason;	/* a denial's, or NULL */
	bool		 is_error, denied, interrupted, done;
};
bool	 tr_call_followed(const struct transcript *, struct tr_call *out);
uint64_t tr_gen(const struct transcript *);

/* Search: the query is kept for highlighting; 0 when a match was shown. */
int	 tr_search(struct transcript *, const char *query, bool older);
const char *tr_query(const struct transcript *);
void	 tr_search_clear(struct transcript *);

/* y: the pane row; l and row: the logical line and its wrapped row; selected: highlight. */
typedef void tr_row_fn(void *arg, int y, struct sline *l, uint32_t row, bool selected);
/* Visit the visible rows, top to bottom; returns the number of rows visited. */
int	 tr_paint(struct transcript *, tr_row_fn *, void *arg);

/* Append copies of turn's lines (its prompt, replies and tools; no notices) to out. */
void	 tr_turn_lines(struct transcript *, int turn, struct slvec *out);

/*
 * What a copy takes (tui/copy.c), as written, to out: the selected item's
 * text (a tool's result, thinking), else the newest reply's Markdown;
 * false when there is neither.
 */
struct buf;
bool	 tr_copy_source(const struct transcript *, struct buf *out);

/* Write the whole transcript as plain text (no hard wraps). */
void	 tr_print(struct transcript *, FILE *);

#endif
