/*
 * editor: the input editor's text, cursor, history and search, without
 * the screen.
 *
 * The text is UTF-8 with '\n' between lines; the cursor is a byte offset
 * that always sits on a character boundary (never inside a character or
 * between a character and its combining marks).  History keeps the sent
 * prompts (oldest first); Up and Down walk it, keeping the draft being
 * typed; Ctrl+R searches it backwards.  Layout wraps the text for a width
 * and says where the cursor is.
 *
 * The editor owns its text, history and layout rows; ed_release frees them.
 */
#ifndef TANDEM_TUI_EDITOR_H
#define TANDEM_TUI_EDITOR_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "wrap.h"

#define ED_HISTORY_MAX	1000

struct editor {
	struct buf	 text;
	size_t		 cur;
	int		 goal;		/* the column Up/Down aim for, or -1 */
	char		**hist;
	size_t		 nhist;
	size_t		 hpos;		/* nhist: editing the draft */
	char		*draft;
	bool		 searching;
	struct buf	 query;
	size_t		 match;		/* the history entry found, or nhist */
};

struct ed_layout {
	struct wrap_row	*rows;
	unsigned	*line_of;	/* the logical line of each row */
	unsigned	 nrows, cap;
	int		 cur_row, cur_col;
};

void	 ed_init(struct editor *);
void	 ed_release(struct editor *);
const char *ed_text(const struct editor *);
bool	 ed_empty(const struct editor *);
void	 ed_clear(struct editor *);
/* Replace the text, cursor at the end. */
void	 ed_set(struct editor *, const char *s);

/* Insert at the cursor; "\r\n" and "\r" become "\n", other controls are dropped. */
void	 ed_insert(struct editor *, const char *s, size_t n);
bool	 ed_backspace(struct editor *);
bool	 ed_delete(struct editor *);
void	 ed_left(struct editor *);
void	 ed_right(struct editor *);
void	 ed_word_left(struct editor *);
void	 ed_word_right(struct editor *);
/* Start and end of the current line. */
void	 ed_home(struct editor *);
void	 ed_end(struct editor *);
/* Move a line up or down; false at the first or last line. */
bool	 ed_up(struct editor *);
bool	 ed_down(struct editor *);
/* Ctrl+K, Ctrl+U, Ctrl+W. */
void	 ed_kill_to_end(struct editor *);
void	 ed_kill_to_start(struct editor *);
void	 ed_kill_word(struct editor *);

/* Add an entry (skipping empties and a repeat of the newest). */
void	 ed_history_add(struct editor *, const char *s);
/* The text, which goes to the history; the editor is cleared.  Caller frees. */
char	*ed_take(struct editor *);
/* Older and newer entries; false when there is none. */
bool	 ed_history_prev(struct editor *);
bool	 ed_history_next(struct editor *);

/* Ctrl+R: search the history; typing refines, Ctrl+R again goes older. */
void	 ed_search_start(struct editor *);
void	 ed_search_type(struct editor *, const char *s, size_t n);
void	 ed_search_erase(struct editor *);
void	 ed_search_next(struct editor *);
/* Keep the match as the text (accept) or go back to the draft. */
void	 ed_search_end(struct editor *, bool accept);
/* The match being shown, or NULL. */
const char *ed_search_match(const struct editor *);

/*
 * Complete a slash command: when the text is "/" and a prefix of names,
 * extend it (adding a space when only one name fits).  Matching names are
 * listed in hint, separated by spaces.  The number of matches.
 */
size_t	 ed_complete(struct editor *, const char *const *names, size_t n, struct buf *hint);

/* Wrap for width columns after a prompt of prompt_w columns on every row. */
void	 ed_layout(const struct editor *, int width, int prompt_w, struct ed_layout *);
void	 ed_layout_release(struct ed_layout *);

#endif
