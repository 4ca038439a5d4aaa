/*
 * lsp: the language servers of a session, and what they tell the model.
 *
 * Servers come from the settings' lspServers (Claude Code's plugin shape:
 * command, args, extensionToLanguage, env, initializationOptions,
 * settings, startupTimeout, maxRestarts) and from built-in defaults found
 * on PATH (clangd, pyright-langserver, typescript-language-server, gopls,
 * rust-analyzer).  A server starts the first time a tool reads or edits a
 * file of its languages, one per kind (the workspace is its root), under
 * proc's keeper, so none outlives tandem; in a project that is not
 * trusted it starts only confined by the sandbox, and the project's
 * lspServers wait for trust (config.c holds them back).
 *
 * After an edit (edit_file, write_file, apply_patch) the call is held:
 * the changed files are sent to their servers and, within lsp.wait_ms
 * (2 s), the errors that are new since the file was first read are
 * appended to its result.  After a command the open files that changed
 * reach the servers as watched-file changes.  The code tool asks the same
 * servers for definitions, references, hover text and symbols.
 *
 * struct lsp is the caller's to free with lsp_free, which stops every
 * server (shutdown and exit, then the signals).
 */
#ifndef TANDEM_LSP_H
#define TANDEM_LSP_H

#include <stdbool.h>

#include <cjson/cJSON.h>

struct buf;
struct config;
struct ev_loop;
struct jail;
struct sched;
struct sched_call;
struct tool_def;
struct tool_env;
struct lsp;
struct lsp_wait;
struct lsp_job;

/* One sentence for the user (a server that failed, a server not started). */
typedef void lsp_note_fn(void *arg, const char *sentence);
/* A held call's result is complete: the owner lets it go (sched_release). */
typedef void lsp_release_fn(void *arg, struct sched_call *);

/* NULL when language servers are off (lsp.enabled false) or none is known. */
struct lsp	*lsp_new(struct ev_loop *, const struct config *, const struct tool_env *,
		    struct jail *, lsp_note_fn *note, void *arg);
void		 lsp_free(struct lsp *);
/*
 * A call's tool has returned: read_file opens the file (its baseline),
 * the edits are held (true: release comes later, with the result
 * completed), other writers' changes to open files are sent.
 */
bool		 lsp_after_tool(struct lsp *, struct sched_call *, lsp_release_fn *, void *arg);
/* Let a held call go on the next loop turn (an interrupt), with what the servers said so far. */
void		 lsp_unhold(struct lsp *, struct sched_call *);
/* The code tool, when a server is known (for the scheduler's finder). */
const struct tool_def *lsp_find(void *lsp, const char *name);
/* Append the code tool's definition to tools (the request's array). */
void		 lsp_tools_json(const struct lsp *, cJSON *tools);
/* "clangd ready, pyright starting" for the status bar; nothing when none ran. */
void		 lsp_status(const struct lsp *, struct buf *out);
/* fn hears lsp_status's text each time it changes. */
void		 lsp_on_status(struct lsp *, lsp_note_fn *fn, void *arg);

#endif
