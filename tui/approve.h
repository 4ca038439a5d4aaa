/*
 * approve: the state of approvals, owned by approve.c (its functions take
 * the app and are declared in app.h): the requests waiting for an
 * answer, in arrival order (the first is shown); the yes-or-no question
 * being asked; the proposal open in $VISUAL.  Nothing else reads or
 * writes it: others ask approve_count, approve_asking, approve_paint.
 */
#ifndef TANDEM_TUI_APPROVE_H
#define TANDEM_TUI_APPROVE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct app;
struct approve_edit;

struct pending {
	char		*id, *name, *preview;
	char		*reason;	/* why it asks ("" when the event did not say) */
	char		*always;	/* the rules "always" adds, joined by ", " */
	cJSON		*input;
};

/* A yes-or-no question (trust the project? overwrite files?) and what to do with the answer. */
typedef void ask_fn(struct app *, bool yes, const int arg[2]);

struct ask {
	char		*question;	/* NULL: nothing asked */
	ask_fn		*fn;
	int		 arg[2];
};

struct approvals {
	struct pending	*pend;
	size_t		 n, cap;
	struct ask	 ask;
	struct approve_edit *editing;	/* a proposal open in $VISUAL, or NULL */
};

#endif
