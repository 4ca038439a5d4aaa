/*
 * inbox: what the user adds to the next prompt besides its text.
 *
 * Owns the pending attachments (agent_attach: a text block, such as the
 * framed output of the user's own "!command"; agent_attach_image: a
 * checked image from a path or the clipboard), kept in order until the
 * next prompt takes them, and starting the user's own commands
 * (agent_user_command, agent/usercmd.c), snapshotted as run_bash is
 * (wsnap_join, wsnap_leave): what one changed is a "files" record by
 * "!command", id user_cmd_<n>, of the turn its output goes with (the next
 * prompt's). The functions front ends call are
 * declared in agent.h; inbox_take is the turn's.
 */
#ifndef TANDEM_INBOX_H
#define TANDEM_INBOX_H

#include "turn_int.h"

struct inbox;

/* A conversation's inbox (inbox.c's), freed with what it holds. */
struct inbox *inbox_new(void);
void	inbox_free(struct inbox *);
/* A text block for the next prompt (agent_attach's, a subagent's news). */
void	inbox_add_text(struct conversation *cv, const char *text);
/* One of the user's ! commands is running. */
bool	inbox_commands_running(const struct conversation *cv);
/* Move what is pending, in order, to the end of the prompt's content. */
void	inbox_take(struct conversation *cv, cJSON *content);

#endif
