/*
 * memory: the standing instructions users and projects keep for coding
 * agents, for the dynamic part of the system prompt (DESIGN.md §4, §9).
 *
 * Files: AGENTS.md, CLAUDE.md and TANDEM.md in the user's config
 * directory (cfg->config_dir), then in the project root, in that order,
 * so the project's more specific words come last; Claude Code's own come
 * after each: ~/.claude/CLAUDE.md for the user, and the project's
 * .claude/CLAUDE.md, .claude/rules/NAME.md (by name) and CLAUDE.local.md.
 * A file may pull in
 * others with "@path" (a word of its own, outside code): the path is taken
 * relative to the importing file ("~/" is $HOME); imports nest at most
 * MEMORY_MAX_DEPTH deep; no file is read twice (symbolic links resolved);
 * a file outside the root, the config directory and $HOME is refused.
 * Each file is cut at MEMORY_FILE_MAX bytes, the whole at MEMORY_TOTAL_MAX,
 * with a note saying so.
 *
 * Nothing is kept: the caller's buffers receive the text.
 */
#ifndef TANDEM_MEMORY_H
#define TANDEM_MEMORY_H

struct buf;
struct config;

#define MEMORY_MAX_DEPTH	5
#define MEMORY_FILE_MAX		(64 * 1024)
#define MEMORY_TOTAL_MAX	(256 * 1024)

/*
 * Load the memory files of cfg.  Appends to prompt the text for the system
 * prompt (nothing when there is no file) and to report (may be NULL) what
 * /memory shows: each file loaded with its size and what imported it, and
 * each file or import left out with the reason.  Returns how many files
 * were loaded.
 */
int	memory_load(const struct config *cfg, struct buf *prompt, struct buf *report);
/*
 * One project memory file by path (a nested CLAUDE.md), with its imports,
 * as memory_load reads each: its text ("## path" and the contents) appended
 * to text, its line of the /memory listing (or why it was left out) to
 * report.  Returns how many files were read.
 */
int	memory_load_one(const struct config *cfg, const char *path, struct buf *text,
	    struct buf *report);

#endif
