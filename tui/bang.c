/* "!command" on the input line: see bang.h. */
#include "autoconf.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "bang.h"
#include "redact.h"
#include "transcript.h"

static void
bang_output(void *arg, const char *p, size_t n)
{
	struct app *a = arg;
	const char *end = p + n, *line;
	size_t len;

	/* The last non-empty line, as the hint shows it. */
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == p)
		return;
	for (line = end; line > p && line[-1] != '\n' && line[-1] != '\r'; line--)
		;
	len = (size_t)(end - line);
	if (len >= sizeof a->bang.last)
		len = sizeof a->bang.last - 1;
	memcpy(a->bang.last, line, len);
	a->bang.last[len] = '\0';
	app_set_hint(a, true, "! %s  (Esc stops it)", a->bang.last);
}

static void
bang_done(void *arg, const char *command, const char *output, const char *framed, bool failed,
    int64_t ms)
{
	struct app *a = arg;

	a->bang.run = NULL;
	tr_tool_result(a->tr, a->bang.id, failed, output);
	a->be->attach(a->agent, framed);
	app_set_hint(a, false, "! done in %.1fs; its output goes with your next prompt", (double)ms / 1000.0);
	app_dirty(a, D_TRANSCRIPT | D_LAYOUT);
}

bool
bang_run(struct app *a, const char *text)
{
	const char *cmd = text + 1;
	struct buf shown = BUF_INIT(BUF_NOLIMIT);

	if (text[0] != '!')
		return false;
	while (isspace((unsigned char)*cmd))
		cmd++;
	if (*cmd == '\0') {
		app_notice(a, ROLE_ERROR, "%s", "! needs a command: !ls runs ls in the workspace");
		return true;
	}
	if (a->agent == NULL || a->be->user_command == NULL) {
		app_notice(a, ROLE_ERROR, "%s", "!command needs a session: there is none here");
		return true;
	}
	if (a->bang.run != NULL) {
		app_notice(a, ROLE_WARNING, "%s", "a command is running: wait for it, or press Esc to stop it");
		ed_set(&a->ed, text);
		return true;
	}
	snprintf(a->bang.id, sizeof a->bang.id, "bang-%u", ++a->bang.serial);
	redact_text(cmd, strlen(cmd), &shown);
	tr_tool_use(a->tr, a->turn, a->bang.id, "!", buf_cstr(&shown));
	buf_release(&shown);
	tr_bottom(a->tr);
	a->bang.last[0] = '\0';
	app_set_hint(a, true, "%s", "! running  (Esc stops it)");
	a->bang.run = a->be->user_command(a->agent, cmd, bang_output, bang_done, a);
	app_dirty(a, D_TRANSCRIPT | D_LAYOUT);
	return true;
}

bool
bang_interrupt(struct app *a)
{
	if (a->bang.run == NULL)
		return false;
	a->be->user_command_kill(a->bang.run);
	app_set_hint(a, false, "%s", "! stopping the command");
	return true;
}

bool
bang_busy(const struct app *a)
{
	return a->bang.run != NULL;
}
