/*
 * tui_agent: tui_run, the screen driving a real agent.
 *
 * Kept apart from tui.c so that replays (tui_replay) link without the
 * agent: only this file names the agent's functions.
 */
#include "config.h"

#include "agent.h"
#include "app.h"

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
	.mode_name = perm_mode_name,
	.rewind = agent_rewind,
	.redo = agent_redo,
	.fork_at = agent_fork,
	.turns = agent_turns,
};

int
tui_run(struct ev_loop *loop, struct event_bus *bus, struct agent *agent, const struct tui_opts *opts)
{
	return tui_main(loop, bus, agent != NULL ? &tui_agent_backend : NULL, agent, opts, NULL, NULL, NULL);
}
