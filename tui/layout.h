/*
 * layout: where each pane goes for a terminal size.
 *
 * Pure arithmetic.  From the bottom up: the status bar (one row), the
 * input editor (its rule and text rows, at most a third of the screen),
 * the approval prompt when one is pending, the plan pane (a question's
 * picker or the todo list) when it has something to show; above them the transcript,
 * tools and diff panes: side by side when the terminal is wide (>= 140
 * columns: transcript left, tools over diff right), stacked when narrow
 * (tools and diff only when they have something to show).  A zoomed pane
 * takes the whole upper area.  A hidden pane has h == 0.
 */
#ifndef TANDEM_TUI_LAYOUT_H
#define TANDEM_TUI_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_WIDE	140

enum pane_id {
	PANE_TRANSCRIPT, PANE_TOOLS, PANE_DIFF, PANE_APPROVAL, PANE_INPUT, PANE_STATUS,
	PANE_PLAN,	/* above the approval: ask_user's picker, or the todo list */
	PANE_COUNT
};

struct rect {
	int	 y, x, h, w;
};

struct layout_req {
	int	 rows, cols;
	int	 input_rows;	/* wanted, with the rule above the text */
	int	 approval_rows;	/* 0: no approval pending */
	int	 tool_rows;	/* wanted, with the title (0: nothing to show) */
	int	 diff_rows;	/* wanted, with the title (0: nothing to show) */
	int	 zoom;		/* PANE_TRANSCRIPT, PANE_TOOLS, PANE_DIFF, or -1 */
	int	 plan_rows;	/* the plan pane's (0: nothing to show), at most half what is left */
};

bool	 layout_wide(int cols);
void	 layout_compute(const struct layout_req *, struct rect out[PANE_COUNT]);

#endif
