/*
 * tui_agent: tui_run, the screen driving a real agent.
 *
 * Kept apart from tui.c so that replays (tui_replay) link without the
 * agent: only this file names the functions of the agent and of the
 * settings, sessions and custom commands modules.
 */
#include "autoconf.h"

#include <unistd.h>

#include "agent.h"
#include "app.h"
#include "tui.h"
#include "commands.h"
#include "config/config.h"
#include "filelist.h"
#include "rules/perm.h"
#include "promptcmd.h"
#include "store/session.h"

/* Is path one the Read deny rules cover?  Such a file is not offered for @ completion. */
static bool
tui_agent_file_hidden(void *arg, const char *path)
{
	return perm_path_denied(arg, SANDBOX_READ, path);
}

/* The @ completion index's child: the workspace's names, without those the deny rules cover. */
static void
tui_agent_files_main(void *arg)
{
	struct app *a = arg;
	const char *root = a->cfg != NULL ? a->cfg->root : a->cwd;
	struct perm_rules *rules = a->cfg != NULL ? a->cfg->rules : NULL;

	_exit(filelist_write_hiding(root, 1, FILELIST_MAX, rules != NULL ?
	    tui_agent_file_hidden : NULL, rules) == 0 ? 0 : 1);
}

static const struct tui_backend tui_agent_backend = {
	.submit = agent_submit,
	.busy = agent_busy,
	.answer = agent_answer,
	.interrupt = agent_interrupt,
	.compact = agent_compact,
	.clear_all = agent_clear,
	.report = agent_report,
	.mode = agent_mode,
	.set_mode = agent_set_mode,
	.model = agent_model,
	.set_model = agent_set_model,
	.list_models = agent_list_models,
	.effort = agent_effort,
	.set_effort = agent_set_effort,
	.mode_name = perm_mode_name,
	.rewind = agent_rewind,
	.redo = agent_redo,
	.fork_at = agent_fork,
	.turns = agent_turns,
	.turn_diff = agent_turn_diff,
	.replay = agent_replay,
	.resume = agent_resume,
	.forked_from = agent_forked_from,
	.sessions = session_list,
	.commands_scan = commands_scan,
	.commands_release = commands_list_release,
	.commands_expand = commands_expand,
	.prompt_expand = promptcmd_expand,
	.trust_items = config_trust_items,
	.trust = config_trust,
	.apply_trusted = config_apply_trusted,
	.user_command = agent_user_command,
	.user_command_kill = usercmd_kill,
	.attach = agent_attach,
	.session_dir = agent_session_dir,
	.files_main = tui_agent_files_main,
	.mcp_mentions = agent_mcp_mentions,
	.attach_image = agent_attach_image,
};

/* Subscribed: the session event, and a resumed conversation, again for the screen. */
static void
tui_agent_start(struct app *a, void *arg)
{
	a->be->replay(a->agent);
	queue_restore(a);
	mention_index(a);
}

int
tui_run(struct ev_loop *loop, struct event_bus *bus, struct agent *agent, const struct tui_opts *opts)
{
	if (agent == NULL)
		return tui_main(loop, bus, NULL, NULL, opts, NULL, NULL, NULL);
	return tui_main(loop, bus, &tui_agent_backend, agent, opts, NULL, tui_agent_start, NULL);
}
