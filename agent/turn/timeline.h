/*
 * timeline: the conversation's turns through time.
 *
 * Owns the turn list for the turn browser, rewind (conversation, files or
 * both, as a record in the log), redo of the last rewind, fork into a new
 * session, a new empty conversation (/clear), and putting files back from
 * their snapshots.
 */
#ifndef TANDEM_TIMELINE_H
#define TANDEM_TIMELINE_H

#include "turn_int.h"

/*
 * The functions are agent.h's: agent_turns, agent_rewind, agent_redo,
 * agent_fork, agent_forked_from and agent_clear.
 */

#endif
