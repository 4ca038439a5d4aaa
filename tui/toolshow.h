/*
 * toolshow: what a tool call shows of itself in the transcript and the
 * side pane, from its name, input and result text.
 *
 * An edit (edit_file, write_file, apply_patch) shows the unified diff of
 * what it did: the approval's preview when there was one (it has the
 * file's line numbers), else one made here from the input.  A command
 * shows the head and the tail of its output; a search says how many it
 * found.  Pure text: the transcript styles and folds what this returns.
 *
 * Returned strings are the caller's to free.
 */
#ifndef TANDEM_TUI_TOOLSHOW_H
#define TANDEM_TUI_TOOLSHOW_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* Lines a folded edit shows; lines of output a folded command shows above and below the fold. */
#define TS_HUNK_LINES	8
#define TS_HEAD_LINES	3
#define TS_TAIL_LINES	2

/* The key that expands a folded call and folds it again, as its fold line names it. */
#define TS_EXPAND_KEY	"Ctrl+O"

/* Does the tool change files (its finished call shows a hunk)? */
bool	 ts_is_edit(const char *name);
/* Does the tool run a command (its call shows the head and tail of the output)? */
bool	 ts_is_command(const char *name);

/*
 * The unified diff a finished edit made, from its input and its result
 * text ("edited a.c: 1 replacement at line 6"), or NULL when the input
 * says too little (an overwrite without its old text).
 */
char	*ts_edit_diff(const char *name, const cJSON *input, const char *result);

/* The files a patch names: "a.c, b.c and 2 more"; NULL when it names none. */
char	*ts_patch_files(const char *patch);

/*
 * What a search found, for its line: "3 files", "12 lines", "no matches";
 * for an edit, the new errors its language servers saw ("2 new errors");
 * "" for other tools or a result it cannot read.
 */
void	 ts_found(const char *name, const char *mode, const char *result, char *out, size_t size);

/* MCP tools ("mcp__server__tool"): "server:tool (MCP)"; NULL for others. */
char	*ts_mcp_name(const char *name, const cJSON *input);

#endif
