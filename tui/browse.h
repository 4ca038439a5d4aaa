/*
 * browse: the turn browser (DESIGN.md §8).  Every turn of the
 * conversation with its prompt, the tools it used, the files it changed,
 * its tokens and time; Enter shows one turn in full; from a turn the user
 * rewinds (the conversation, the files, or both), forks, or redoes the
 * last rewind.  Esc Esc on an empty prompt opens it to pick an earlier
 * prompt to edit and send again.
 *
 * browse_list and browse_detail are pure: they turn the agent's turn list
 * (agent_turns) into styled lines, for the screen and for tests.  The
 * functions that act on the application are declared in app.h.
 *
 * A struct browser owns its turn list and its lines; browse_release frees
 * them.
 */
#ifndef TANDEM_TUI_BROWSE_H
#define TANDEM_TUI_BROWSE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sline.h"

struct browser {
	bool		 on;
	bool		 pick;		/* choosing a prompt to edit (Esc Esc) */
	bool		 detail;	/* the selected turn in full */
	cJSON		*turns;		/* from agent_turns: [{turn, prompt, tools, files, bash, tokens, ms, time}] */
	int		 sel;		/* index into turns */
	size_t		 top;		/* the first line shown */
	struct slvec	 lines;		/* what is shown */
	size_t		 sel_from, sel_to;	/* the selection's lines: [sel_from, sel_to) */
};

void	 browse_init(struct browser *);
void	 browse_release(struct browser *);

/*
 * The list: a legend, then two lines a turn (its number, prompt, tokens,
 * time; its tools and files, and a warning when run_bash ran).  The
 * selected turn's lines are [*sel_from, *sel_to).  pick: the legend for
 * choosing a prompt to edit.
 */
void	 browse_list(const cJSON *turns, int sel, bool pick, struct slvec *out,
	    size_t *sel_from, size_t *sel_to);
/*
 * One turn in full: its figures, tools, files, what can be done, then
 * body (the turn as the transcript shows it; its lines are moved into
 * out) or, when body is empty, the whole prompt.
 */
void	 browse_detail(const cJSON *turn, int nth, struct slvec *body, struct slvec *out);
/* Move top so that lines [from, to) show in height rows of width columns. */
size_t	 browse_scroll(struct slvec *lines, size_t top, size_t from, size_t to, int width, int height);

#endif
