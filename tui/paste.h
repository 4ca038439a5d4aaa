/*
 * paste: an image from the clipboard into the next prompt (Alt+V).
 *
 * The clipboard is read by wl-paste (Wayland: WAYLAND_DISPLAY set) or
 * xclip (X11: DISPLAY set), as image/png, in a child process so the loop
 * never waits, into a private temporary file; the agent then checks and
 * keeps the image (agent_attach_image: magic bytes, size limits, the
 * session's files/) and it goes with the next prompt.  Without either
 * tool, or with no image in the clipboard, one sentence says so.
 */
#ifndef TANDEM_TUI_PASTE_H
#define TANDEM_TUI_PASTE_H

#include <sys/types.h>

struct app;

struct paste {
	pid_t		 pid;		/* the clipboard reader, or 0 */
	unsigned	 serial;
	char		 file[4096];
	const char	*tool;
};

void	 paste_image(struct app *);
void	 paste_free(struct app *);

#endif
