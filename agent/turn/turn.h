/*
 * turn: what the modules outside agent/turn/ (plan/, web/, ...) may ask of
 * a session and its conversations, without their structs (turn_int.h is
 * turn/'s own).  The session's getters for front ends are agent.h's.
 * Nothing returned is the caller's to free.
 */
#ifndef TANDEM_TURN_H
#define TANDEM_TURN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "model/stream.h"

struct conversation;
struct conv;
struct ev_loop;
struct event_bus;
struct http;
struct perm_rules;
struct plan;
struct sched;

/* Whether TANDEM_DEBUG lists what; whether a comma-separated list holds word. */
bool	 agent_debug(const char *what);
bool	 agent_listed(const char *list, const char *word);
/* Whether the settings disable tool name (disabled_tools), or a tool it needs. */
bool	 agent_tool_disabled(const struct config *cfg, const char *name);

/* The session's. */
struct conversation	*agent_main(const struct agent *);
struct ev_loop		*agent_loop(const struct agent *);
const struct config	*agent_config(const struct agent *);
struct http		*agent_http(const struct agent *);
enum stream_proto	 agent_proto(const struct agent *);
bool			 agent_interactive(const struct agent *);
struct perm_rules	*agent_session_rules(const struct agent *);
/* Gate again the calls that wait in every conversation (a web host was looked up). */
void			 agent_kick_all(struct agent *);

/* A conversation's. */
struct agent		*conversation_agent(const struct conversation *);
struct event_bus	*conversation_bus(const struct conversation *);
struct conv		*conversation_conv(struct conversation *);
struct sched		*conversation_sched(const struct conversation *);
cJSON			*conversation_tools(const struct conversation *);
struct plan		*conversation_plan(const struct conversation *);
/* A cost the conversation's calls did not count (a server tool's price). */
void			 conversation_add_cost(struct conversation *, double usd);

#endif
