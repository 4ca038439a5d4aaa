/*
 * promptcmd: the built-in slash commands that are prompts to the model.
 *
 *	/init		explore the repository with the read-only tools and write
 *			(or improve) AGENTS.md at the workspace root; the write is
 *			an ordinary edit, so it goes through the edit approval.
 *	/review [what]	review the working diff: the uncommitted changes
 *			(`git diff HEAD` and the untracked files), or the
 *			changes since a ref, or those under a path.  tandem
 *			computes the diff, caps it and redacts secrets; the model
 *			reports findings by severity and edits nothing.
 *
 * The diff comes from a git child that a planted repository config cannot
 * turn into a program runner: no pager, no external diff, no textconv, no
 * fsmonitor, no system config, no lazy fetch, no optional locks, and every
 * filter driver the config names emptied (promptcmd.c says why each).
 *
 * The front ends ask here before the custom commands (agent/commands.h),
 * so a project's .tandem/commands/review.md cannot shadow a built-in.
 */
#ifndef TANDEM_PROMPTCMD_H
#define TANDEM_PROMPTCMD_H

struct buf;
struct config;

/* The most diff text /review puts in its prompt. */
#define PROMPTCMD_DIFF_MAX	(192 * 1024)

/*
 * Expand line ("/init", "/review [what]").  0: prompt holds the text to
 * submit; 1: not one of these commands; -1: it cannot be used now (not a
 * git repository, nothing changed, git failed), with one sentence in err.
 * Runs git synchronously in cfg->root for /review.
 */
int	promptcmd_expand(const struct config *cfg, const char *line, struct buf *prompt,
	    struct buf *err);

#endif
