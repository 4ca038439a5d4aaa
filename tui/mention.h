/*
 * mention: the "@path" completion of the input line, and the attachments
 * shown in the transcript.
 *
 * The index is the workspace's file and directory names, ignore rules
 * honoured, listed by a child process (the backend's files_main, which is
 * tools/filelist.c) and read on the loop, so a large tree never holds up
 * typing; it is listed at start and again on a Tab when it is older than
 * MENTION_STALE_MS (the old one serves meanwhile).
 *
 * Tab after "@query" ranks the index with lib/fuzzy.c and puts the best
 * path in place of the query; the input's rule lists the best few, the
 * chosen one in brackets, and Tab again goes to the next.  The file's
 * content is not read here: the agent reads it at send time
 * (agent/attach.c) and its "attachment" event shows in the transcript.
 *
 * The MCP servers' resources (the backend's mcp_mentions) join the index
 * as "server:uri", and a Tab lists it again when they changed.
 *
 * The state is struct mention in struct app; mention_free frees it.
 */
#ifndef TANDEM_TUI_MENTION_H
#define TANDEM_TUI_MENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "proc.h"

#define MENTION_MENU		6
#define MENTION_STALE_MS	10000

struct app;

struct mention {
	char		**paths;	/* the index (one allocation: paths[0] is the block) */
	size_t		  n;
	int64_t		  built;	/* when the index was listed; 0: never */
	struct proc_watch w;		/* the listing child (w.pid 0: none) and its pipe */
	struct buf	  raw;		/* what the child wrote so far */
	size_t		  menu[MENTION_MENU], nmenu, pick;
	size_t		  tok;		/* where the completed "@" is in the text */
	char		 *inserted;	/* the path Tab put there, to cycle from */
	char		 *query;	/* what was typed before the first Tab of the cycle */
	int64_t		  list_ms;	/* how long the last listing took */
	size_t		  mcp_len;	/* of the MCP resources' mentions in the index */
};

/* List the workspace (again), off the loop; nothing without a backend. */
void	 mention_index(struct app *);
/* Tab: complete an "@query" before the cursor; false when there is none. */
bool	 mention_tab(struct app *);
/* The "attachment" event: a line in the transcript. */
void	 mention_on_attachment(struct app *, const cJSON *ev);
void	 mention_free(struct app *);

#endif
