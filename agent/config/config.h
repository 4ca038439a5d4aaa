/*
 * config: tandem's settings, from layered JSON files and command-line flags,
 * with where each value came from.
 *
 * Layers, later ones winning: ~/.config/tandem/settings.json (the user's),
 * <root>/.tandem/settings.json and <root>/.tandem/settings.local.json (the
 * project's), then flags.  Scalars override; permission rules accumulate;
 * hooks merge per event (arrays concatenated).  A flag wins whether it is
 * set before or after config_load.
 *
 * Trust: what a cloned repository could use against its user is held back
 * until the user trusts the project root: the project files' hooks, allow
 * rules, a permission mode of accept-edits or yolo, base_url (it would
 * receive the API key), the provider, and a model dearer than the one it
 * replaces, in the settings or in the project's agent definitions and
 * commands (config_hold_definition).  Deny and ask rules and everything
 * else apply at once.
 * project_defines_trust_items says whether there is anything to ask
 * about; after config_trust(), config_apply_trusted() puts it in effect.
 * Trusted or not, a project may keep more sessions and snapshots, never
 * fewer, and lower what requests cost, never raise it (max_tokens,
 * thinking, effort, retries, ...); its prices are never read.
 *
 * struct config owns every pointer in it; config_release() frees them.
 */
#ifndef TANDEM_CONFIG_H
#define TANDEM_CONFIG_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "jail/jail.h"
#include "store/wsnap.h"

struct buf;
struct perm_rules;

struct config {
	char	*provider;	/* "anthropic" (default) or "openai" */
	char	*model;		/* default "claude-sonnet-5-5" for anthropic; "gpt-4o-mini" for openai unless set */
	char	*base_url;	/* NULL: from env (ANTHROPIC_BASE_URL / OPENAI_BASE_URL), else the public API */
	char	*api_key;	/* from the environment only, never from a file; may be NULL */
	char	*auth_token;	/* ANTHROPIC_AUTH_TOKEN (sent as a bearer token); may be NULL */
	char	*custom_headers; /* ANTHROPIC_CUSTOM_HEADERS ("Name: value" lines); may be NULL */
	char	*api_key_helper; /* apiKeyHelper: a command whose output is the key; may be NULL */
	char	*root;		/* the workspace root (real path of cwd unless set) */
	char	*home;		/* TANDEM_HOME: $TANDEM_HOME, else $XDG_STATE_HOME/tandem, else ~/.local/state/tandem */
	char	*config_dir;	/* ~/.config/tandem (XDG_CONFIG_HOME honoured) */
	enum perm_mode mode;	/* default PERM_ASK */
	struct perm_rules *rules;	/* allow/deny/ask rules from all layers and flags */
	int	 max_turns;	/* model calls per prompt, default 50 */
	int	 max_tokens;	/* default 8192 */
	int	 thinking_budget;	/* 0: none; used where the model takes a budget */
	char	*thinking;	/* "auto" (default), "off", "adaptive", "enabled" */
	char	*effort;	/* the effort level; NULL: the model's default */
	cJSON	*prices;	/* the settings' price overrides (owned), NULL if none */
	int	 models_wait_ms; /* how long the first request waits for the Models API; default 2000 */
	char	*theme;		/* default "dark" */
	char	*notify_style;	/* notifications.style: auto (default), bell, osc9, osc777, osc99, off */
	int	 notify_idle_ms; /* notifications.idle_ms: default 60000; 0: no idle notification */
	bool	 mouse;		/* default true */
	double	 compact_micro, compact_collapse, compact_summary;	/* defaults 0.50 0.70 0.85 */
	int	 retries;	/* default 4 */
	int	 connect_timeout_ms;	/* default 10000 */
	int	 first_byte_timeout_ms;	/* default 120000 */
	int	 stall_timeout_ms;	/* default 60000 */
	int	 deadline_ms;	/* a whole response; 0: none; -1 (default): from max_tokens */
	int	 ms_per_token;	/* the computed deadline's allowance per token, default 50 */
	int	 retention_days;	/* 0: keep sessions forever; default 30 */
	int	 context_window;	/* tokens; 0: the model table's */
	int	 cache_ttl_ms;		/* the prompt cache's lifetime; 0: 5 minutes */
	struct wsnap_settings snap;	/* snapshots.*: workspace snapshots around commands */
	char	**add_dirs;		/* extra roots (real paths), NULL-terminated; NULL: none */
	char	*disabled_tools;	/* comma-separated tool names the model does not get; NULL: none */
	char	*web_search_url;	/* web.search_url: a SearXNG instance for web_search; NULL: none */
	char	*web_fetch_model;	/* web.fetch_model: the model that answers web_fetch's prompt; NULL: the fast one */
	int	 web_max_searches;	/* web.max_searches: searches per web_search call; 0: 5 */
	cJSON	*hooks;		/* the merged "hooks" object (owned), NULL if none */
	bool	 trusted;	/* the project's own hooks/allow rules may be honoured */
	bool	 project_defines_trust_items;	/* the project's settings or definitions hold trust items */
	cJSON	*mcp_servers;	/* the settings' mcpServers, merged (mcp_config.c reads the files itself) */
	cJSON	*mcp_flags;	/* the --mcp-config arguments, an array of strings; NULL: none */
	int	 mcp_timeout_ms;	/* one MCP call; 0: 120000 */
	int	 mcp_defer_bytes;	/* MCP tool definitions past this are deferred; 0: 8192; -1: never */
	int	 mcp_start_wait_ms;	/* how long the first request waits for servers starting; 0: 5000 */
	cJSON	*lsp_servers;	/* the settings' lspServers, merged; NULL: none */
	bool	 lsp_enabled;	/* lsp.enabled: language servers at all; default true */
	int	 lsp_wait_ms;	/* lsp.wait_ms: an edit's wait for diagnostics; 0: 2000 */
	cJSON	*sources;	/* key -> "default" | file path | "flag" | "env", for `tandem config` */
	struct jail_config sandbox;	/* the "sandbox" group: parsed and resolved by jail.c */
	struct notices *notices;	/* what was read and is not honoured (claude/notice.h); owned */
	struct grants *grants;	/* commands' and skills' allowed-tools while they run (claude/grant.h); owned */
	unsigned skip_layers;	/* settings files config_load leaves out: 1 the user's, 2 the
				   project's, 4 the project's local one (--setting-sources) */
	cJSON	*status_line;	/* statusLine: {"type": "command", "command", "padding"} (owned); NULL */
	cJSON	*http_hook_urls;	/* allowedHttpHookUrls: patterns with *; NULL: any URL */
	cJSON	*http_hook_env;	/* httpHookAllowedEnvVars: names an http hook's headers may use; NULL: its own list */

	/* Internal to config.c. */
	cJSON	*held;		/* the project's trust items, until config_apply_trusted() */
	cJSON	*rule_sources;	/* [[list, rule, source], ...] for config_print */
};

void	config_init(struct config *);	/* defaults */
void	config_release(struct config *);
/*
 * Load and merge ~/.config/tandem/settings.json, <root>/.tandem/settings.json,
 * <root>/.tandem/settings.local.json.  Missing files are fine.  A malformed file
 * fails with "PATH:LINE:COL: <what>" in err; an unknown key or a value of the
 * wrong type appends a warning line ("PATH: unknown key \"x\" (ignored)") to warnings.
 * When the root is already trusted, the project's trust items are applied.
 * Call it once, after config_init and any flag that must apply to the load
 * itself (root).
 */
int	config_load(struct config *, struct buf *warnings, struct buf *err);
/*
 * Set one key from the command line, recording source "flag".  Keys: model,
 * provider, base-url, permission-mode (or mode), allow, deny, ask (rules,
 * repeatable), max-turns, max-tokens, thinking-budget, theme, mouse,
 * retries, retention-days, root (a directory; set it before config_load),
 * and any settings key in its dotted form ("timeouts.stall_ms"); '-' and
 * '_' are the same.  -1 with a sentence naming the flag in err.
 */
int	config_set_flag(struct config *, const char *key, const char *value, struct buf *err);
/* The effective settings and where each came from, for `tandem config`. */
void	config_print(const struct config *, struct buf *out);
/* Append an allow rule to <root>/.tandem/settings.local.json (created 0600, JSON kept valid, atomic write). */
int	config_save_local_allow(const struct config *, const char *rule, struct buf *err);
/* Trust: a record under home (trusted.json, mode 0600) of project roots the user accepted. */
bool	config_is_trusted(const struct config *);
int	config_trust(const struct config *, struct buf *err);
/*
 * Put the held-back project trust items in effect: after the user accepted
 * (config_trust remembers that), or for --trust (for this run only, unless
 * config_trust is called too).
 */
void	config_apply_trusted(struct config *);
/*
 * Hold back, as a trust item, a project's definition outside its settings
 * (agent.h: agent_project_model, which decides at each use while
 * cfg->trusted is false): line says what it is and what it asks for.
 * The trust prompt and config_print list it; config_apply_trusted lets it go.
 */
void	config_hold_definition(struct config *, const char *line);
/* One line per held-back trust item ("hooks.PreToolUse from PATH"), for the trust prompt. */
void	config_trust_items(const struct config *, struct buf *out);

#endif
