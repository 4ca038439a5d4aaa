/*
 * askpick: the picker that answers ask_user's questions, one after the
 * other (arrows or digits move, Space ticks a multi-select option, Enter
 * answers, Esc declines; the last line is always "Other", typed in), and
 * the plan pane above the approvals where it shows, or else the todo list
 * (todoview.h).  Its functions take the app and are declared here; the
 * picker's state is its own (struct askpick, freed by askpick_free).
 */
#ifndef TANDEM_TUI_ASKPICK_H
#define TANDEM_TUI_ASKPICK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

struct app;

/* What keys.c hands the picker: a character (>= 0) or one of these. */
enum {
	ASKPICK_UP = -1, ASKPICK_DOWN = -2, ASKPICK_ENTER = -3, ASKPICK_CANCEL = -4,
	ASKPICK_BACKSPACE = -5, ASKPICK_OTHER = -6	/* another key: ignored */
};

/* An approval_request of ask_user: the picker opens (a second waits for the first). */
void	 askpick_open(struct app *, const cJSON *ev);
bool	 askpick_on(const struct app *);
/* A key while the picker is open. */
void	 askpick_key(struct app *, int key);
/* The request id was settled elsewhere (interrupt, hook): the picker closes. */
void	 askpick_settled(struct app *, const char *id);
/* The rows the plan pane wants: the picker's, else the todo list's, else 0. */
int	 askpick_rows(struct app *);
void	 askpick_paint(struct app *);
void	 askpick_free(struct app *);

#endif
