/*
 * ccflags: the command-line flags of Claude Code that the Agent SDKs pass,
 * taken out of argv before tandem's own options are parsed.
 *
 * Both GNU forms are taken ("--max-turns=5" is tandem's own and left in
 * place; "--input-format=stream-json" and "--input-format stream-json" are
 * taken here).  Mapped: --input-format, --include-partial-messages,
 * --permission-prompt-tool stdio, --system-prompt and
 * --append-system-prompt (added to tandem's own prompt), --allowedTools and
 * --disallowedTools (allow and deny rules), --thinking,
 * --max-thinking-tokens, --fork-session, --dangerously-skip-permissions
 * (yolo), --setting-sources (user, project, local: which of tandem's own
 * settings files are read), --max-budget-usd and --json-schema (kept for
 * wire/ccrun.h).  Accepted and ignored, as tandem(1) says:
 * --verbose, --debug,
 * --debug-file, --strict-mcp-config, --include-hook-events and the other
 * flags of ccflags.c's table.
 *
 * struct ccflags points into argv; nothing is allocated.
 */
#ifndef TANDEM_CCFLAGS_H
#define TANDEM_CCFLAGS_H

#include <stdbool.h>

struct buf;
struct config;

struct ccflags {
	bool		 input_stream;		/* --input-format stream-json */
	bool		 partial;		/* --include-partial-messages */
	bool		 host_permissions;	/* --permission-prompt-tool stdio */
	bool		 fork;			/* --fork-session */
	bool		 yolo;			/* --dangerously-skip-permissions */
	const char	*system_prompt;
	const char	*append_system_prompt;
	const char	*allowed;		/* comma- or space-separated rules */
	const char	*disallowed;
	const char	*thinking;		/* adaptive, enabled, disabled */
	const char	*thinking_tokens;
	const char	*setting_sources;	/* NULL: all */
	const char	*max_budget_usd;	/* --max-budget-usd (wire/ccrun.h); NULL: none */
	const char	*json_schema;		/* --json-schema, the schema's text; NULL: none */
};

/* Take the flags out of argv (argc updated); 0, or -1 with a sentence in err. */
int	ccflags_take(int *argc, char **argv, struct ccflags *, struct buf *err);
/* Put the mapped ones into cfg (before config_load); 0, or -1 with a sentence in err. */
int	ccflags_apply(const struct ccflags *, struct config *, struct buf *err);
/* The host's system prompt the flags gave, joined (the caller frees), or NULL. */
char	*ccflags_host_prompt(const struct ccflags *);

#endif
