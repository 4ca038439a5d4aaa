/* inbox: what the user adds to the next prompt besides its text (inbox.h). */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "turn_int.h"
#include "attach.h"
#include "inbox.h"
#include "intent.h"
#include "record.h"
#include "tooluse.h"
#include "event.h"
#include "json.h"
#include "jail/protect.h"
#include "store/session.h"
#include "usercmd.h"
#include "store/wsnap.h"
#include "xalloc.h"

/* A conversation's inbox: what waits for the next prompt, and the ! commands running. */
struct inbox {
	cJSON	*attach;	/* content blocks for the next prompt; NULL: none yet */
	int	 user_cmds;	/* the user's ! commands running */
};

struct inbox *
inbox_new(void)
{
	return xcalloc(1, sizeof(struct inbox));
}

void
inbox_free(struct inbox *in)
{
	if (in == NULL)
		return;
	cJSON_Delete(in->attach);
	free(in);
}

void
inbox_add_text(struct conversation *cv, const char *text)
{
	struct inbox *ib = conversation_inbox(cv);

	if (ib->attach == NULL)
		ib->attach = cJSON_CreateArray();
	cJSON_AddItemToArray(ib->attach, record_text_block(text));
}

bool
inbox_commands_running(const struct conversation *cv)
{
	return conversation_inbox(cv)->user_cmds > 0;
}

/* What agent_attach kept goes with the prompt, in order. */
void
inbox_take(struct conversation *cv, cJSON *content)
{
	struct inbox *ib = conversation_inbox(cv);
	cJSON *b;

	while (ib->attach != NULL && (b = cJSON_DetachItemFromArray(ib->attach, 0)) != NULL)
		cJSON_AddItemToArray(content, b);
}

void
agent_attach(struct agent *a, const char *text)
{
	inbox_add_text(agent_main(a), text);
}

int
agent_attach_image(struct agent *a, const char *file, const char *name, struct buf *err)
{
	struct conversation *cv = agent_main(a);
	cJSON *b = attach_image_file(agent_env(a), file, name, err);

	if (b == NULL)
		return -1;
	if (conversation_inbox(cv)->attach == NULL)
		conversation_inbox(cv)->attach = cJSON_CreateArray();
	cJSON_AddItemToArray(conversation_inbox(cv)->attach, b);
	return 0;
}

/* The user's "!command", snapshotted as run_bash is: its record goes with its output. */
struct inbox_cmd {
	struct conversation	*cv;
	usercmd_output_fn	*output;
	usercmd_done_fn		*done;
	void			*arg;
	uint64_t		 epoch;		/* the snapshots it joined (wsnap_epoch), or 0 */
	char			 id[40];
};

/* What a "!command" record is called in the log and the turn browser. */
#define INBOX_BY	"!command"
#define INBOX_ID	"user_cmd_"

/* A user_cmd_<n> no record of the session has (a resumed session counts on). */
static void
inbox_cmd_id(struct conversation *cv, char *id, size_t size)
{
	static unsigned long serial;
	const cJSON *f;
	size_t n = strlen(INBOX_ID);

	cJSON_ArrayForEach(f, session_files(agent_session(conversation_agent(cv)))) {
		const char *s = json_str(f, "id", "");
		char *end;
		unsigned long k;

		if (strncmp(s, INBOX_ID, n) != 0 || s[n] < '0' || s[n] > '9')
			continue;
		errno = 0;
		k = strtoul(s + n, &end, 10);
		if (errno == 0 && *end == '\0' && k > serial)
			serial = k;
	}
	if (snprintf(id, size, "%s%lu", INBOX_ID, ++serial) >= (int)size)
		id[0] = '\0';
}

static void
inbox_cmd_output(void *arg, const char *p, size_t n)
{
	struct inbox_cmd *c = arg;

	if (c->output != NULL)
		c->output(c->arg, p, n);
}

/*
 * The command ended (or was killed, or did not start): what it changed is
 * recorded for the turn its output goes with, the next prompt's.  With no
 * next prompt yet that turn has no messages, and a rewind of the last turn
 * (turn >= N) covers the record too.
 */
static void
inbox_cmd_done(void *arg, const char *command, const char *output, const char *framed,
    bool failed, int64_t ms)
{
	struct inbox_cmd *c = arg;
	struct conversation *cv = c->cv;
	struct agent *a = conversation_agent(cv);
	int logged = session_turns(agent_session(a));
	int next = logged > conversation_turn(cv) ? logged : conversation_turn(cv);

	conversation_inbox(cv)->user_cmds--;
	/* what the user's own command made is theirs (protect.h) */
	tooluse_guard_resume_user(cv);
	if (c->epoch != 0 && c->epoch == wsnap_epoch(agent_wsnap(a)) &&
	    (wsnap_leave(agent_wsnap(a), next + 1, c->id, INBOX_BY) == -1 ||
	    intent_marked_done(cv, c->id, INBOX_BY) == -1))
		agent_unsaved(cv);
	else if (c->epoch != 0 && c->epoch != wsnap_epoch(agent_wsnap(a)))
		event_error(conversation_bus(cv), 0, "the ! command ended in another session than it began in: "
		    "what it changed is not recorded, and a rewind does not undo it");
	c->done(c->arg, command, output, framed, failed, ms);
	free(c);
}

struct usercmd *
agent_user_command(struct agent *a, const char *command, usercmd_output_fn *output,
    usercmd_done_fn *done, void *arg)
{
	struct conversation *cv = agent_main(a);
	struct inbox_cmd *c = xcalloc(1, sizeof *c);
	struct buf err = BUF_INIT(4096);

	c->cv = cv;
	c->output = output;
	c->done = done;
	c->arg = arg;
	inbox_cmd_id(cv, c->id, sizeof c->id);
	if (agent_wsnap(a) != NULL) {
		/* during a turn a tool may be running: the command joins its snapshot window */
		int logged = session_turns(agent_session(a));
	int next = logged > conversation_turn(cv) ? logged : conversation_turn(cv);

		if (wsnap_join(agent_wsnap(a), agent_in_turn(cv), &err) == 0) {
			c->epoch = wsnap_epoch(agent_wsnap(a));
			/* and its before-snapshot in the log, for a crash while it runs (intent.h) */
			if (intent_marked_started(cv, c->id, next + 1, INBOX_BY) == -1)
				agent_unsaved(cv);
		} else {
			/* as for run_bash: the session is failed, and the user is told it runs untracked */
			agent_unsaved(cv);
			event_error(conversation_bus(cv), 0, "the ! command runs without a snapshot, since the session "
			    "could not be saved: a rewind does not undo it");
		}
	}
	buf_release(&err);
	conversation_inbox(cv)->user_cmds++;
	tooluse_guard_pause(cv);
	return usercmd_start(agent_loop(a), agent_env(a), command, inbox_cmd_output, inbox_cmd_done, c);
}
