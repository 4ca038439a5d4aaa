/*
 * commands: custom slash commands, prompts kept as Markdown files.
 *
 * "/name args" runs <root>/.tandem/commands/name.md, else
 * <root>/.claude/commands/.../name.md (Claude Code's; a subfolder shows in
 * the description, not in the name), else <config_dir>/commands/name.md,
 * else ~/.claude/commands/.../name.md, else a skill the user may call
 * (skill.h; the first of a name wins): the
 * file's text, with $ARGUMENTS replaced by args and $1..$9 by its words
 * (quotes group words), becomes the prompt.  A file that uses neither gets
 * the arguments appended ("ARGUMENTS: ...").  An optional first block
 *
 *	---
 *	description: what /help shows
 *	argument-hint: [file]
 *	---
 *
 * describes the command; without it the first line of text does.
 * allowed-tools (Claude Code's rule spelling) lets those tools run without
 * asking while the command's turn runs (claude/grant.h); a project's only
 * once it is trusted.  "!`cmd`" is replaced by cmd's output: the project's
 * code, run only in a trusted project and only when the rules allow the
 * command as they would the model's (allowed-tools counting as allow
 * rules), synchronously, for at most 10 seconds.  "@path" is left for the
 * prompt's own mention handling.  model is the model of the command's turn
 * (grant.h; claude.h switches to it and back).  Other front matter fields
 * are named on the never-silent list (claude/notice.h).  Names
 * are letters, digits, '_', '-', '.' and ':' (not starting with '.').
 * Built-in commands are the front end's business: it asks here only for
 * names it does not know itself (the built-ins that are prompts, /init and
 * /review, are promptcmd.h's, asked first).
 *
 * struct command_list owns its strings; commands_list_release frees them.
 */
#ifndef TANDEM_COMMANDS_H
#define TANDEM_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct config;

#define COMMANDS_FILE_MAX	(64 * 1024)

struct command_info {
	char	*name;		/* without the slash */
	char	*description;	/* never NULL; "" if the file says nothing */
	char	*argument_hint;	/* NULL if none */
	char	*path;
	char	*allowed_tools;	/* the front matter's allowed-tools; NULL: none */
	char	*model;		/* the front matter's model: the model of the command's turn; NULL: none */
	char	*folder;	/* the subfolder of .claude/commands it is in; NULL: none */
	bool	 project;	/* from the project, not the user's config directory */
	bool	 skill;		/* a skill the user may call (skill.h) */
};

struct command_list {
	struct command_info	*v;
	size_t			 n;
};

/* Every custom command, sorted by name, the project's hiding the user's of the same name. */
void	commands_scan(const struct config *, struct command_list *);
void	commands_list_release(struct command_list *);
/* For /help and completion: "/name [hint]  description  (project|user)" a line. */
void	commands_list(const struct config *, struct buf *out);
/*
 * Expand line ("/name args").  0: prompt holds the text to submit; 1: not
 * a custom command (line untouched); -1: the command exists but cannot be
 * used, with one sentence in err.
 */
int	commands_expand(const struct config *, const char *line, struct buf *prompt,
	    struct buf *err);

#endif
