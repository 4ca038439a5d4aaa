/* The settings table, what each setting takes, and `tandem config`'s listing: see config_keys.h. */
#include "autoconf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "claude/notice.h"
#include "config.h"
#include "config_keys.h"
#include "json.h"
#include "rules/perm.h"
#include "redact.h"
#include "xalloc.h"

/* Every setting, by its dotted name in the files; the table drives loading, flags and printing. */
const struct cfg_key cfg_keys[] = {
	{ "provider", CFG_PROVIDER, offsetof(struct config, provider), 0, 0, 0 },
	{ "model", CFG_STRING, offsetof(struct config, model), 0, 0, 0 },
	{ "base_url", CFG_STRING, offsetof(struct config, base_url), 0, 0, 0 },
	{ "permissions.mode", CFG_MODE, offsetof(struct config, mode), 0, 0, 0 },
	{ "permissions.allow", CFG_RULES, 0, 0, 0, PERM_LIST_ALLOW },
	{ "permissions.ask", CFG_RULES, 0, 0, 0, PERM_LIST_ASK },
	{ "permissions.deny", CFG_RULES, 0, 0, 0, PERM_LIST_DENY },
	{ "permissions.additionalDirectories", CFG_DIRS, offsetof(struct config, add_dirs), 0, 0, 0 },
	{ "hooks", CFG_HOOKS, 0, 0, 0, 0 },
	{ "secrets.remove_env", CFG_ENV_NAMES, 0, 0, 0, 0 },
	{ "secrets.keep_env", CFG_ENV_NAMES, 0, 1, 0, 0 },
	{ "theme", CFG_STRING, offsetof(struct config, theme), 0, 0, 0 },
	{ "notifications.style", CFG_CHOICE, offsetof(struct config, notify_style), 0, 0, 0 },
	{ "notifications.idle_ms", CFG_INT, offsetof(struct config, notify_idle_ms), 0, 86400000, 0 },
	{ "mouse", CFG_BOOL, offsetof(struct config, mouse), 0, 0, 0 },
	{ "max_turns", CFG_INT, offsetof(struct config, max_turns), 1, 100000, 0 },
	{ "max_tokens", CFG_INT, offsetof(struct config, max_tokens), 1, 1000000, 0 },
	{ "thinking_budget", CFG_INT, offsetof(struct config, thinking_budget), 0, 1000000, 0 },
	{ "thinking", CFG_CHOICE, offsetof(struct config, thinking), 0, 0, 0 },
	{ "effort", CFG_STRING, offsetof(struct config, effort), 0, 0, 0 },
	{ "prices", CFG_OBJECT, offsetof(struct config, prices), 0, 0, 0 },
	{ "apiKeyHelper", CFG_STRING, offsetof(struct config, api_key_helper), 0, 0, 0 },
	{ "models.wait_ms", CFG_INT, offsetof(struct config, models_wait_ms), 0, 60000, 0 },
	{ "compaction.micro", CFG_RATIO, offsetof(struct config, compact_micro), 0, 0, 0 },
	{ "compaction.collapse", CFG_RATIO, offsetof(struct config, compact_collapse), 0, 0, 0 },
	{ "compaction.summary", CFG_RATIO, offsetof(struct config, compact_summary), 0, 0, 0 },
	{ "retries", CFG_INT, offsetof(struct config, retries), 0, 100, 0 },
	{ "timeouts.connect_ms", CFG_INT, offsetof(struct config, connect_timeout_ms), 1, 3600000, 0 },
	{ "timeouts.first_byte_ms", CFG_INT, offsetof(struct config, first_byte_timeout_ms), 1, 3600000, 0 },
	{ "timeouts.stall_ms", CFG_INT, offsetof(struct config, stall_timeout_ms), 1, 3600000, 0 },
	{ "timeouts.deadline_ms", CFG_INT, offsetof(struct config, deadline_ms), 0, 86400000, 0 },
	{ "timeouts.ms_per_token", CFG_INT, offsetof(struct config, ms_per_token), 0, 60000, 0 },
	{ "retention_days", CFG_INT, offsetof(struct config, retention_days), 0, 100000, 0 },
	{ "context_window", CFG_INT, offsetof(struct config, context_window), 0, 100000000, 0 },
	{ "cache_ttl_ms", CFG_INT, offsetof(struct config, cache_ttl_ms), 0, 86400000, 0 },
	{ "disabled_tools", CFG_STRING, offsetof(struct config, disabled_tools), 0, 0, 0 },
	{ "web.search_url", CFG_STRING, offsetof(struct config, web_search_url), 0, 0, 0 },
	{ "web.fetch_model", CFG_STRING, offsetof(struct config, web_fetch_model), 0, 0, 0 },
	{ "web.max_searches", CFG_INT, offsetof(struct config, web_max_searches), 0, 20, 0 },
	{ "snapshots.enabled", CFG_BOOL, offsetof(struct config, snap.enabled), 0, 0, 0 },
	{ "snapshots.max_file_mb", CFG_INT, offsetof(struct config, snap.max_file_mb), 0, 4096, 0 },
	{ "snapshots.max_snapshot_mb", CFG_INT, offsetof(struct config, snap.max_snapshot_mb), 0, 1048576, 0 },
	{ "snapshots.max_files", CFG_INT, offsetof(struct config, snap.max_files), 1, 100000000, 0 },
	{ "snapshots.store_mb", CFG_INT, offsetof(struct config, snap.store_mb), 0, 1048576, 0 },
	/* MCP servers: read by mcp_config.c, which also knows whose they are. */
	{ "mcpServers", CFG_OBJECT, offsetof(struct config, mcp_servers), 0, 0, 0 },
	{ "mcp.timeout_ms", CFG_INT, offsetof(struct config, mcp_timeout_ms), 1, 86400000, 0 },
	{ "mcp.defer_bytes", CFG_INT, offsetof(struct config, mcp_defer_bytes), -1, 100000000, 0 },
	{ "mcp.start_wait_ms", CFG_INT, offsetof(struct config, mcp_start_wait_ms), 1, 600000, 0 },
	/* Language servers (agent/lsp/): Claude Code's plugin shape; a project's waits for trust. */
	{ "lspServers", CFG_OBJECT, offsetof(struct config, lsp_servers), 0, 0, 0 },
	{ "lsp.enabled", CFG_BOOL, offsetof(struct config, lsp_enabled), 0, 0, 0 },
	{ "lsp.wait_ms", CFG_INT, offsetof(struct config, lsp_wait_ms), 1, 60000, 0 },
	/* Claude Code's status line command and the URLs http hooks may post to (hooks.h). */
	{ "statusLine", CFG_JSON, offsetof(struct config, status_line), 0, 0, 0 },
	{ "allowedHttpHookUrls", CFG_JSON, offsetof(struct config, http_hook_urls), 0, 0, 0 },
	{ "httpHookAllowedEnvVars", CFG_JSON, offsetof(struct config, http_hook_env), 0, 0, 0 },
};

const size_t cfg_nkeys = sizeof(cfg_keys) / sizeof(cfg_keys[0]);

/* Other names for keys: command-line spellings, and Claude Code's in files too. */
static const struct {
	const char	*alias;
	const char	*name;
	bool		 flag_only;
} cfg_aliases[] = {
	{ "permission_mode", "permissions.mode", true },
	{ "mode", "permissions.mode", true },
	{ "allow", "permissions.allow", true },
	{ "deny", "permissions.deny", true },
	{ "ask", "permissions.ask", true },
	{ "add_dir", "permissions.additionalDirectories", true },
	{ "permissions.defaultMode", "permissions.mode", false },
};

const struct cfg_provider cfg_providers[] = {
	{ "anthropic", "claude-sonnet-5-5", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY" },
	{ "openai", "gpt-4o-mini", "OPENAI_BASE_URL", "OPENAI_API_KEY" },
};

const struct cfg_key *
cfg_key_find(const char *name, bool flag)
{
	size_t i;

	for (i = 0; i < sizeof(cfg_aliases) / sizeof(cfg_aliases[0]); i++)
		if ((flag || !cfg_aliases[i].flag_only) && strcmp(cfg_aliases[i].alias, name) == 0) {
			name = cfg_aliases[i].name;
			break;
		}
	for (i = 0; i < cfg_nkeys; i++)
		if (strcmp(cfg_keys[i].name, name) == 0)
			return &cfg_keys[i];
	return NULL;
}

/* Is name a group of keys ("permissions", "timeouts")? */
bool
cfg_is_group(const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < cfg_nkeys; i++)
		if (strncmp(cfg_keys[i].name, name, n) == 0 && cfg_keys[i].name[n] == '.')
			return true;
	return false;
}

int
cfg_provider(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(cfg_providers) / sizeof(cfg_providers[0]); i++)
		if (strcmp(cfg_providers[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
cfg_source(const struct config *cfg, const char *key)
{
	const char *s = json_str(cfg->sources, key, NULL);

	return s != NULL ? s : "default";
}

void
cfg_set_source(struct config *cfg, const char *key, const char *source)
{
	cJSON *v = cJSON_CreateString(source);

	if (json_get(cfg->sources, key) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(cfg->sources, key, v);
	else
		cJSON_AddItemToObject(cfg->sources, key, v);
}

/* For lists: each source once, in order, joined with ", ". */
void
cfg_add_source(struct config *cfg, const char *key, const char *source)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *old = json_str(cfg->sources, key, NULL), *p;
	size_t n = strlen(source);

	if (old == NULL || strcmp(old, "default") == 0) {
		cfg_set_source(cfg, key, source);
		return;
	}
	for (p = old; (p = strstr(p, source)) != NULL; p += n)
		if ((p == old || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
			return;
	buf_printf(&b, "%s, %s", old, source);
	cfg_set_source(cfg, key, buf_cstr(&b));
	buf_release(&b);
}

void
cfg_set_string(char **slot, const char *v)
{
	free(*slot);
	*slot = v != NULL ? xstrdup(v) : NULL;
}

/*
 * Values.
 */

/* The words a CFG_CHOICE key takes. */
static const struct {
	const char	*key;
	const char	*choices;	/* "a|b|c" */
} cfg_choices[] = {
	{ "thinking", "auto|off|adaptive|enabled" },
	{ "notifications.style", "auto|bell|osc9|osc777|osc99|off" },
};

static const char *
cfg_choices_of(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof cfg_choices / sizeof cfg_choices[0]; i++)
		if (strcmp(cfg_choices[i].key, key) == 0)
			return cfg_choices[i].choices;
	return "";
}

/* Is word one of the '|'-separated choices? */
static bool
cfg_choice_ok(const char *choices, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = choices; p != NULL; p = strchr(p, '|') != NULL ? strchr(p, '|') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == '|' || p[n] == '\0'))
			return n > 0;
	return false;
}

/* Is v right for k?  If not, the reason ("must be ...") goes to why. */
bool
cfg_valid(const struct cfg_key *k, const cJSON *v, struct buf *why)
{
	enum perm_mode mode;
	double d;

	switch (k->type) {
	case CFG_STRING:
		if (cJSON_IsString(v) && v->valuestring[0] != '\0')
			return true;
		buf_puts(why, "must be a non-empty string");
		return false;
	case CFG_BOOL:
		if (cJSON_IsBool(v))
			return true;
		buf_puts(why, "must be true or false");
		return false;
	case CFG_INT:
		d = cJSON_IsNumber(v) ? v->valuedouble : (double)k->min - 1;
		if (d >= (double)k->min && d <= (double)k->max && d == (double)(long)d)
			return true;
		buf_printf(why, "must be an integer from %ld to %ld", k->min, k->max);
		return false;
	case CFG_RATIO:
		d = cJSON_IsNumber(v) ? v->valuedouble : 0;
		if (d > 0 && d <= 1)
			return true;
		buf_puts(why, "must be a number above 0 and at most 1");
		return false;
	case CFG_MODE:
		if (cJSON_IsString(v) && perm_mode_parse(v->valuestring, &mode) == 0)
			return true;
		buf_puts(why, "must be one of ask, accept-edits, plan, yolo");
		return false;
	case CFG_PROVIDER:
		if (cJSON_IsString(v) && cfg_provider(v->valuestring) >= 0)
			return true;
		buf_puts(why, "must be \"anthropic\" or \"openai\"");
		return false;
	case CFG_OBJECT:
		if (cJSON_IsObject(v))
			return true;
		buf_puts(why, "must be a JSON object");
		return false;
	case CFG_JSON:
		if (cJSON_IsObject(v) || cJSON_IsArray(v))
			return true;
		buf_puts(why, "must be a JSON object or array");
		return false;
	case CFG_CHOICE:
		if (cJSON_IsString(v) && cfg_choice_ok(cfg_choices_of(k->name), v->valuestring))
			return true;
		buf_printf(why, "must be one of %s", cfg_choices_of(k->name));
		return false;
	case CFG_RULES:
	case CFG_HOOKS:
	case CFG_ENV_NAMES:
	case CFG_DIRS:
		break;
	}
	return false;
}

/* Store a valid scalar v for k, from source. */
void
cfg_store(struct config *cfg, const struct cfg_key *k, const cJSON *v, const char *source)
{
	switch (k->type) {
	case CFG_STRING:
	case CFG_PROVIDER:
	case CFG_CHOICE:
		cfg_set_string(CFG_MEMBER(cfg, k, char *), v->valuestring);
		break;
	case CFG_OBJECT: {
		cJSON **obj = CFG_MEMBER(cfg, k, cJSON *);
		const cJSON *m;

		if (*obj == NULL)
			*obj = cJSON_CreateObject();
		cJSON_ArrayForEach(m, v) {
			cJSON_DeleteItemFromObjectCaseSensitive(*obj, m->string);
			cJSON_AddItemToObject(*obj, m->string, cJSON_Duplicate(m, 1));
		}
		break;
	}
	case CFG_JSON:
		cJSON_Delete(*CFG_MEMBER(cfg, k, cJSON *));
		*CFG_MEMBER(cfg, k, cJSON *) = cJSON_Duplicate(v, 1);
		break;
	case CFG_BOOL:
		*CFG_MEMBER(cfg, k, bool) = cJSON_IsTrue(v);
		break;
	case CFG_INT:
		*CFG_MEMBER(cfg, k, int) = (int)v->valuedouble;
		break;
	case CFG_RATIO:
		*CFG_MEMBER(cfg, k, double) = v->valuedouble;
		break;
	case CFG_MODE:
		perm_mode_parse(v->valuestring, CFG_MEMBER(cfg, k, enum perm_mode));
		break;
	case CFG_RULES:
	case CFG_HOOKS:
	case CFG_ENV_NAMES:
	case CFG_DIRS:
		return;
	}
	cfg_set_source(cfg, k->name, source);
}

/*
 * Printing.
 */

static void
cfg_print_line(struct buf *out, const char *key, const char *value, const char *source)
{
	buf_printf(out, "%-24s %s  [%s]\n", key, value, source);
}

static void
cfg_print_scalar(const struct config *cfg, const struct cfg_key *k, struct buf *out)
{
	struct buf v = BUF_INIT(BUF_NOLIMIT);
	const char *s;

	switch (k->type) {
	case CFG_JSON:
	case CFG_OBJECT: {
		char *t = *CFG_MEMBER(cfg, k, cJSON *) != NULL ?
		    cJSON_PrintUnformatted(*CFG_MEMBER(cfg, k, cJSON *)) : NULL;

		buf_puts(&v, t != NULL ? t : "(none)");
		free(t);
		break;
	}
	case CFG_STRING:
	case CFG_PROVIDER:
	case CFG_CHOICE:
		s = *CFG_MEMBER(cfg, k, char *);
		buf_puts(&v, s != NULL ? s : strcmp(k->name, "base_url") == 0 ?
		    "(the public API)" : "(none)");
		break;
	case CFG_BOOL:
		buf_puts(&v, *CFG_MEMBER(cfg, k, bool) ? "true" : "false");
		break;
	case CFG_INT:
		/* Below its range an integer is computed where it is used. */
		if (*CFG_MEMBER(cfg, k, int) < k->min)
			buf_puts(&v, "(computed)");
		else
			buf_printf(&v, "%d", *CFG_MEMBER(cfg, k, int));
		break;
	case CFG_RATIO:
		buf_printf(&v, "%.2f", *CFG_MEMBER(cfg, k, double));
		break;
	case CFG_MODE:
		buf_puts(&v, perm_mode_name(*CFG_MEMBER(cfg, k, enum perm_mode)));
		break;
	case CFG_RULES:
	case CFG_HOOKS:
	case CFG_ENV_NAMES:
	case CFG_DIRS:
		break;
	}
	cfg_print_line(out, k->name, buf_cstr(&v), cfg_source(cfg, k->name));
	buf_release(&v);
}

static void
cfg_print_rules(const struct config *cfg, const struct cfg_key *k, struct buf *out)
{
	const char *list = perm_list_name(k->list);
	const cJSON *row;
	bool any = false;

	cJSON_ArrayForEach(row, cfg->rule_sources) {
		if (strcmp(cJSON_GetArrayItem(row, 0)->valuestring, list) != 0)
			continue;
		cfg_print_line(out, k->name, cJSON_GetArrayItem(row, 1)->valuestring,
		    cJSON_GetArrayItem(row, 2)->valuestring);
		any = true;
	}
	if (!any)
		cfg_print_line(out, k->name, "(none)", "default");
}

static void
cfg_print_dirs(const struct config *cfg, const struct cfg_key *k, struct buf *out)
{
	char **dirs = *CFG_MEMBER(cfg, k, char **);
	size_t i;

	if (dirs == NULL || dirs[0] == NULL)
		cfg_print_line(out, k->name, "(none)", "default");
	for (i = 0; dirs != NULL && dirs[i] != NULL; i++)
		cfg_print_line(out, k->name, dirs[i], cfg_source(cfg, k->name));
}

static void
cfg_print_hooks(const struct config *cfg, struct buf *out)
{
	struct buf key = BUF_INIT(BUF_NOLIMIT), v = BUF_INIT(BUF_NOLIMIT);
	const cJSON *ev;

	if (cfg->hooks == NULL || cfg->hooks->child == NULL)
		cfg_print_line(out, "hooks", "(none)", "default");
	cJSON_ArrayForEach(ev, cfg->hooks) {
		buf_reset(&key);
		buf_reset(&v);
		buf_printf(&key, "hooks.%s", ev->string);
		json_append(&v, ev);
		cfg_print_line(out, buf_cstr(&key), buf_cstr(&v), cfg_source(cfg, "hooks"));
	}
	buf_release(&key);
	buf_release(&v);
}

static void
cfg_print_env_names(const struct config *cfg, const struct cfg_key *k, struct buf *out)
{
	const cJSON *row;
	bool any = false;
	size_t i;

	if (k->min == 0)
		for (i = 0; redact_default_names[i] != NULL; i++)
			cfg_print_line(out, k->name, redact_default_names[i], "default");
	cJSON_ArrayForEach(row, cfg->rule_sources) {
		if (strcmp(cJSON_GetArrayItem(row, 0)->valuestring, k->name) != 0)
			continue;
		cfg_print_line(out, k->name, cJSON_GetArrayItem(row, 1)->valuestring,
		    cJSON_GetArrayItem(row, 2)->valuestring);
		any = true;
	}
	if (!any && k->min == 1)
		cfg_print_line(out, k->name, "(none)", "default");
}

bool
cfg_holds_any(const struct config *cfg)
{
	static const char *const what[] = { "scalars", "allow", "hooks", "definitions" };
	const cJSON *h;
	size_t i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if ((h = json_get(cfg->held, what[i])) != NULL && h->child != NULL)
			return true;
	return false;
}

void
config_trust_items(const struct config *cfg, struct buf *out)
{
	const cJSON *item, *ev;

	cJSON_ArrayForEach(item, json_get(cfg->held, "scalars"))
		buf_printf(out, "%s from %s\n", item->string, json_str(item, "source", "?"));
	cJSON_ArrayForEach(item, json_get(cfg->held, "allow"))
		buf_printf(out, "permissions.allow %s from %s\n",
		    cJSON_GetArrayItem(item, 0)->valuestring,
		    cJSON_GetArrayItem(item, 1)->valuestring);
	cJSON_ArrayForEach(item, json_get(cfg->held, "hooks"))
		cJSON_ArrayForEach(ev, cJSON_GetArrayItem(item, 1))
			buf_printf(out, "hooks.%s from %s\n", ev->string,
			    cJSON_GetArrayItem(item, 0)->valuestring);
	cJSON_ArrayForEach(item, json_get(cfg->held, "definitions"))
		buf_printf(out, "%s\n", item->valuestring);
}

void
config_print(const struct config *cfg, struct buf *out)
{
	int p = cfg_provider(cfg->provider);
	size_t i;

	for (i = 0; i < cfg_nkeys; i++) {
		if (cfg_keys[i].type == CFG_RULES)
			cfg_print_rules(cfg, &cfg_keys[i], out);
		else if (cfg_keys[i].type == CFG_DIRS)
			cfg_print_dirs(cfg, &cfg_keys[i], out);
		else if (cfg_keys[i].type == CFG_HOOKS)
			cfg_print_hooks(cfg, out);
		else if (cfg_keys[i].type == CFG_ENV_NAMES)
			cfg_print_env_names(cfg, &cfg_keys[i], out);
		else
			cfg_print_scalar(cfg, &cfg_keys[i], out);
	}
	cfg_print_line(out, "api_key", cfg->api_key != NULL ? "(set)" : "(not set)",
	    cfg->api_key != NULL ? cfg_providers[p < 0 ? 0 : p].key_env : "default");
	cfg_print_line(out, "root", cfg->root, cfg_source(cfg, "root"));
	cfg_print_line(out, "home", cfg->home, cfg_source(cfg, "home"));
	cfg_print_line(out, "config_dir", cfg->config_dir, cfg_source(cfg, "config_dir"));
	cfg_print_line(out, "trusted", cfg->trusted ? "yes" : "no", "trusted.json");
	jail_config_print(&cfg->sandbox, cfg->trusted, out);
	if (cfg_holds_any(cfg)) {
		buf_puts(out, "\nHeld back until this project is trusted:\n");
		config_trust_items(cfg, out);
	}
	if (notice_count(cfg->notices) > 0) {
		buf_puts(out, "\nNot honoured (read, and named here so that nothing is ignored silently):\n");
		notice_format(cfg->notices, "  ", out);
	}
}

