/*
 * attach: what a prompt's "@path" mentions bring with them, read at send
 * time.
 *
 * A mention is "@" at the start of the prompt or after a blank or "(",
 * then a path up to the next blank (trailing , . ; : ! ? ) ' " dropped
 * when the path with them does not exist).  Only paths that exist count:
 * "@someone" stays text.  Each one is read as the model's own tools read
 * it, with the same rules: a file through read_file (numbered lines,
 * capped at TOOL_READ_CAP, binary files refused), a directory through
 * list_dir; the permission rules (a Read deny rule) and the workspace's
 * confinement (tools/sandbox.c) apply as to the model's calls.  What was
 * read goes after the prompt as one text block per mention,
 * <attachment path="..." kind="file|dir">...</attachment>, and a failure
 * as a block saying it could not be attached and why; an "attachment"
 * event (path, kind, bytes, error) tells the screen either way.  At most
 * ATTACH_MAX mentions a prompt, each path once.
 */
#ifndef TANDEM_ATTACH_H
#define TANDEM_ATTACH_H

#include <cjson/cJSON.h>

#include "agent.h"

#define ATTACH_MAX	10

struct event_bus;
struct perm_rules;
struct tool_env;

/* Append the blocks of prompt's mentions to content; returns how many mentions there were. */
int	 attach_mentions(const struct tool_env *, const struct perm_rules *, enum perm_mode,
	    struct event_bus *, const char *prompt, cJSON *content);

/*
 * The next mention in s from *pos: its path (the caller frees) or NULL at
 * the end; *pos moves past it.  root resolves relative paths for the
 * existence check.
 */
char	*attach_next(const char *root, const char *s, size_t *pos);

#endif
