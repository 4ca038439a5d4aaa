/*
 * protect: what a sandboxed command creates that would run or be loaded
 * outside the sandbox is caught before it takes effect.
 *
 * The sandbox (jail.h) binds the protected names that exist read-only, but
 * a bind needs an existing mountpoint: a missing .git, CLAUDE.md or
 * .mcp.json could be created by the command, and then git (its config's
 * core.fsmonitor, its hooks), the next session's prompt or tandem's MCP
 * servers would run what the command left, unconfined and without a
 * prompt.  One table of names decides what is protected (protect.c):
 * git metadata at any depth (a .git directory, link or "gitdir:" file, and
 * an embedded bare repository: a directory holding HEAD, objects/ and
 * refs/), and in the workspace's root the memory files, the settings
 * folders (.tandem, .claude), .mcp.json, direnv's .envrc and the editors'
 * folders (.vscode, .idea).
 *
 * Existing metadata the sandbox does not bind is guarded by content: in a
 * repository below the root (the root's .git is bound read-only), a
 * changed config or hook is caught and the one before put back, a new
 * hook or commondir is caught; so are the hooks of the folder the root
 * repository's core.hooksPath names in the workspace (husky's .husky/).
 *
 * While a sandboxed command lives (a foreground one from its start to its
 * end; a background one until the last background shell ends), every
 * directory of the workspace is watched with inotify (the first walk that
 * sets the watches up runs in slices of idle time from the session's
 * start).  A protected name created (or moved in) under the watch is
 * moved at once into the session's quarantine directory (removed, when
 * that is on another file system), so a concurrent `git status` or editor
 * finds nothing to run, and the next session nothing to load; when a
 * command ends, the queue of events is read to its end, which catches
 * whatever the command did before its PID namespace ended.  A watch that
 * cannot cover the tree (the kernel's limit, a lost event) falls back to
 * a walk that compares the protected names with those that existed
 * before.  Catching rather than refusing: nothing in the kernel refuses a
 * name to an unprivileged process, an empty placeholder .git would send
 * git to a parent repository, and a bind needs a mountpoint.
 *
 * Writers tandem trusts (the file tools, a command the user approved to
 * run outside the sandbox, the user's !command) pause the catching: what
 * they create is theirs (protect_resume), except that while a sandboxed
 * background command runs only the paths a file tool names as its own
 * are.  Each catch is told once: to the user through the notify callback,
 * and to the model by protect_take with its next result.
 *
 * struct protect owns its watch and texts; the caller frees it.
 */
#ifndef TANDEM_PROTECT_H
#define TANDEM_PROTECT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct ev_loop;

struct protect;

/* Told a sentence for the user when something was caught. */
typedef void protect_notify_fn(void *arg, const char *sentence);

/*
 * Guard root (a real path); the quarantine goes under qdir (created when
 * first needed).  notify may be NULL.
 */
struct protect	*protect_new(struct ev_loop *, const char *root, const char *qdir,
		    protect_notify_fn *notify, void *arg);
/* A last look (what a command left as tandem exits), then the end. */
void		 protect_free(struct protect *);

/*
 * Begin the watch's first walk in slices of the loop's time, so that the
 * first sandboxed command does not wait for all of it (it finishes what
 * is left).
 */
void		 protect_warm(struct protect *);
/* The quarantine is now under qdir (another session's). */
void		 protect_set_quarantine(struct protect *, const char *qdir);

/*
 * A sandboxed command starts: the watch is on before it runs.  A
 * background one's catches are told as they happen; a foreground one's
 * when it ends.
 */
void		 protect_hold(struct protect *, bool background);
/* It ended (all it started is gone with its PID namespace): read what it did. */
void		 protect_release(struct protect *, bool background);

/*
 * A trusted writer starts and ends.  At the end, what was created while
 * paused is kept when it is one of the paths in mine (relative to root,
 * NULL-ended; may be NULL), or when all is true and no sandboxed
 * background command runs (its plant could be timed to the writer); else
 * it is caught.
 */
void		 protect_pause(struct protect *);
void		 protect_resume(struct protect *, bool all, const char *const *mine);

/* What was caught since the last call, for the model (appended to out); 1 if any. */
int		 protect_take(struct protect *, struct buf *out);

/* Is rel (relative to the root) a protected name?  Its kind, or NULL. */
const char	*protect_kind(const char *rel);

/* Directories watched (bench, tests). */
size_t		 protect_watched(const struct protect *);

#endif
