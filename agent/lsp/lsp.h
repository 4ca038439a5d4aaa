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
struct event_bus;
struct ev_loop;
struct jail;
struct sched;
struct sched_call;
struct tool_def;
struct tool_env;
struct lsp;
struct lsp_wait;
struct lsp_job;

/*
 * The session's language servers, or NULL when they are off (lsp.enabled
 * false) or none is known.  It joins sched: the code tool is found there
 * (sched_set_more), and each call's end passes through it
 * (sched_set_hold): a read opens the file (its baseline), an edit is held
 * until its files' new errors are appended, another writer's changes to
 * open files are sent.  Its sentences (a server that failed or was not
 * started) and the servers' state (lsp_status events) go to bus.
 */
struct lsp	*lsp_new(struct ev_loop *, const struct config *, const struct tool_env *,
		    struct jail *, struct event_bus *, struct sched *);
void		 lsp_free(struct lsp *);
/*
 * Another conversation's scheduler (a subagent's) joins as lsp_new's did:
 * its code tool, its reads opened, its edits held for their errors.  It
 * leaves before it is freed: its held calls are dropped unreleased.
 */
void		 lsp_join(struct lsp *, struct sched *);
void		 lsp_leave(struct lsp *, struct sched *);
/* The scheduler's finder (arg: the lsp, or NULL): the code tool for its name, else NULL. */
const struct tool_def *lsp_find(void *arg, const char *name);
/* Append the code tool's definition to tools (the request's array), unless disabled. */
void		 lsp_tools_json(const struct lsp *, cJSON *tools);
/* "clangd ready, pyright starting" for the status bar; nothing when none ran. */
void		 lsp_status(const struct lsp *, struct buf *out);

#endif
