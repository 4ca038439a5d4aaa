/*
 * projdefs: the project's own definitions whose model waits for trust.
 *
 * A project's agent definitions (.claude/agents, .tandem/agents) and
 * commands (.claude/commands, .tandem/commands) may name a model; while
 * the project is untrusted one dearer than the session's waits for trust
 * (agent.h: agent_project_model decides at each use).  projdefs_hold
 * names them before the session starts, as trust items of the config
 * (config.h: config_hold_definition), so that the trust prompt asks about
 * them and `tandem config` lists them.  It owns nothing.
 */
#ifndef TANDEM_PROJDEFS_H
#define TANDEM_PROJDEFS_H

struct config;

/*
 * Unless cfg is trusted: hold each of the project's definitions whose
 * model costs more per token than cfg's model (the price file's and the
 * user's prices), one line each ("the agent definition .claude/agents/x.md
 * (subagent type x) asks for M, dearer than the session's S").  home is
 * the user's home, whose ~/.claude/agents the project's may replace.
 */
void	projdefs_hold(struct config *cfg, const char *home);

#endif
