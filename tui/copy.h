/*
 * copy: copying a message or a code block without the screen's wraps.
 *
 * What is copied is the text as the model wrote it (its logical lines,
 * never the rows the transcript wrapped them into): the selected
 * transcript item (a tool result or thinking, chosen with Tab then
 * Up/Down), else the newest reply, or with /copy N that reply's Nth
 * fenced code block (the code alone, without its fence lines; 0 or none:
 * the whole reply; -1: the last block).  It goes to the terminal's
 * clipboard with OSC 52 (through tmux's passthrough inside tmux) and,
 * since no terminal says whether it honoured OSC 52, always also to a
 * file the notice names: copy.txt in the session's directory, else
 * $TMPDIR/tandem-copy-UID.txt.
 */
#ifndef TANDEM_TUI_COPY_H
#define TANDEM_TUI_COPY_H

#include <stddef.h>

#include "buf.h"

struct app;

/*
 * The index-th fenced code block of Markdown md (1-based; -1: the last),
 * its content lines as written, to out.  0, or -1 when there is no such
 * block.  An unclosed fence runs to the end, as in CommonMark.
 */
int	 copy_code_block(const char *md, size_t n, int index, struct buf *out);
/* The OSC 52 sequence setting the clipboard to s[0..n), tmux-wrapped or not. */
void	 copy_osc52(const char *s, size_t n, int tmux, struct buf *out);
/* Copy as above; arg is /copy's argument ("" or NULL: the whole item). */
void	 copy_run(struct app *, const char *arg);

#endif
