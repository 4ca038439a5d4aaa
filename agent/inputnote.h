/*
 * inputnote: what the model is told when a call ran with another input
 * than the one it sent (the person's `e` edit of a proposal, or a host's
 * updatedInput): which fields changed and how, so its next call starts
 * from the text that is really there.  The conversation keeps the model's
 * own tool_use input, so without this note it would believe its version
 * ran.
 */
#ifndef TANDEM_INPUTNOTE_H
#define TANDEM_INPUTNOTE_H

#include <cjson/cJSON.h>

/* The note's size at most; a longer change is cut, and the note says so. */
#define INPUTNOTE_MAX	(8 * 1024)

/*
 * The note for a call whose input went from proposed (the model's) to ran,
 * or NULL when the two are equal.  The caller frees it.
 */
char	*inputnote_build(const cJSON *proposed, const cJSON *ran);

#endif
