/* Layered settings with provenance, and project trust: see config.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "json.h"
#include "perm.h"
#include "redact.h"
#include "shparse.h"
#include "xalloc.h"

#define CFG_FILE_MAX	(1024 * 1024)	/* a settings file larger than this is refused */

enum cfg_type {
	CFG_STRING,
	CFG_BOOL,
	CFG_INT,
	CFG_RATIO,	/* a number above 0 and at most 1 */
	CFG_MODE,
	CFG_PROVIDER,
	CFG_RULES,
	CFG_HOOKS,
	CFG_ENV_NAMES,	/* names or patterns of environment variables; min 1: to keep */
	CFG_DIRS,	/* directories, added up across layers and flags */
	CFG_OBJECT,	/* a JSON object; a later layer's members replace an earlier one's */
	CFG_CHOICE	/* one of the words of the key's choices */
};

/* Every setting, by its dotted name in the files; the table drives loading, flags and printing. */
static const struct cfg_key {
	const char	*name;
	enum cfg_type	 type;
	size_t		 off;		/* the member of struct config */
	long		 min, max;	/* CFG_INT */
	enum perm_list	 list;		/* CFG_RULES */
} cfg_keys[] = {
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
};

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

static const char *const cfg_hook_events[] = {
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop",
	"PreCompact", "SessionEnd", "Notification", NULL
};

static const struct {
	const char	*name;
	const char	*model;		/* the default model */
	const char	*url_env;	/* where the base URL may come from */
	const char	*key_env;	/* where the API key comes from */
} cfg_providers[] = {
	{ "anthropic", "claude-sonnet-5-5", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY" },
	{ "openai", "gpt-4o-mini", "OPENAI_BASE_URL", "OPENAI_API_KEY" },
};

/* One settings file being applied. */
struct cfg_layer {
	const char	*path;
	bool		 project;	/* the project's: trust items are held back */
	struct buf	*warnings;
};

static int cfg_error(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));

static int
cfg_error(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(err, fmt, ap);
	va_end(ap);
	return -1;
}

static char *
cfg_join(const char *a, const char *b)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);

	buf_puts(&p, a);
	if (p.len == 0 || p.data[p.len - 1] != '/')
		buf_putc(&p, '/');
	buf_puts(&p, b);
	return buf_detach(&p, NULL);
}

/*
 * path as an absolute path without "." and ".." parts, against the
 * current directory when relative (caller frees).  Lexical, so the
 * directory need not exist yet.
 */
static char *
cfg_absolute(const char *path)
{
	struct buf in = BUF_INIT(BUF_NOLIMIT), out = BUF_INIT(BUF_NOLIMIT);
	const char *p;

	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		buf_puts(&in, cwd != NULL ? cwd : "/");
		buf_putc(&in, '/');
		free(cwd);
	}
	buf_puts(&in, path);
	for (p = buf_cstr(&in); *p != '\0';) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 2 && strncmp(p, "..", 2) == 0) {
			while (out.len > 0 && out.data[out.len - 1] != '/')
				out.len--;
			if (out.len > 0)
				out.len--;
			if (out.data != NULL)
				out.data[out.len] = '\0';
		} else if (!(n == 1 && p[0] == '.')) {
			buf_putc(&out, '/');
			buf_append(&out, p, n);
		}
		p += n;
	}
	if (out.len == 0)
		buf_putc(&out, '/');
	buf_release(&in);
	return buf_detach(&out, NULL);
}

/* Replace *path by its absolute form. */
static void
cfg_make_absolute(char **path)
{
	char *abs = cfg_absolute(*path);

	free(*path);
	*path = abs;
}

static const struct cfg_key *
cfg_key_find(const char *name, bool flag)
{
	size_t i;

	for (i = 0; i < sizeof(cfg_aliases) / sizeof(cfg_aliases[0]); i++)
		if ((flag || !cfg_aliases[i].flag_only) && strcmp(cfg_aliases[i].alias, name) == 0) {
			name = cfg_aliases[i].name;
			break;
		}
	for (i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++)
		if (strcmp(cfg_keys[i].name, name) == 0)
			return &cfg_keys[i];
	return NULL;
}

/* Is name a group of keys ("permissions", "timeouts")? */
static bool
cfg_is_group(const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++)
		if (strncmp(cfg_keys[i].name, name, n) == 0 && cfg_keys[i].name[n] == '.')
			return true;
	return false;
}

static int
cfg_provider(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(cfg_providers) / sizeof(cfg_providers[0]); i++)
		if (strcmp(cfg_providers[i].name, name) == 0)
			return (int)i;
	return -1;
}

#define CFG_MEMBER(cfg, k, type) ((type *)(void *)((char *)(cfg) + (k)->off))

static const char *
cfg_source(const struct config *cfg, const char *key)
{
	const char *s = json_str(cfg->sources, key, NULL);

	return s != NULL ? s : "default";
}

static void
cfg_set_source(struct config *cfg, const char *key, const char *source)
{
	cJSON *v = cJSON_CreateString(source);

	if (json_get(cfg->sources, key) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(cfg->sources, key, v);
	else
		cJSON_AddItemToObject(cfg->sources, key, v);
}

/* For lists: each source once, in order, joined with ", ". */
static void
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

static void
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
static bool
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
static void
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

/* Could this scalar from a project file be used against the user? */
static bool
cfg_is_trust_item(const struct cfg_key *k, const cJSON *v)
{
	enum perm_mode mode;

	if (strcmp(k->name, "base_url") == 0 || strcmp(k->name, "apiKeyHelper") == 0)
		return true;
	if (k->type == CFG_MODE && perm_mode_parse(v->valuestring, &mode) == 0)
		return mode == PERM_ACCEPT_EDITS || mode == PERM_YOLO;
	return false;
}

static cJSON *
cfg_held(struct config *cfg, const char *what)
{
	cJSON *h = json_get(cfg->held, what);

	if (h == NULL)
		h = cJSON_AddObjectToObject(cfg->held, what);
	return h;
}

static void
cfg_warn(struct cfg_layer *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
cfg_warn(struct cfg_layer *L, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	if (L->warnings == NULL)
		return;
	buf_printf(L->warnings, "%s: ", L->path);
	i = L->warnings->len;
	va_start(ap, fmt);
	buf_vprintf(L->warnings, fmt, ap);
	va_end(ap);
	/* A key with a newline in it must not break the warning into lines. */
	for (; i < L->warnings->len; i++)
		if ((unsigned char)L->warnings->data[i] < 0x20 || L->warnings->data[i] == 0x7f)
			L->warnings->data[i] = '?';
	buf_putc(L->warnings, '\n');
}

static void
cfg_apply_scalar(struct config *cfg, struct cfg_layer *L, const struct cfg_key *k, const cJSON *v)
{
	struct buf why = BUF_INIT(256);
	cJSON *entry, *scalars;

	if (!cfg_valid(k, v, &why)) {
		cfg_warn(L, "\"%s\" %s (ignored)", k->name, buf_cstr(&why));
		buf_release(&why);
		return;
	}
	buf_release(&why);
	scalars = cfg_held(cfg, "scalars");
	/* A later layer's value replaces what an earlier one held back. */
	cJSON_DeleteItemFromObjectCaseSensitive(scalars, k->name);
	if (strcmp(cfg_source(cfg, k->name), "flag") == 0)
		return;
	if (L->project && cfg_is_trust_item(k, v)) {
		entry = cJSON_AddObjectToObject(scalars, k->name);
		cJSON_AddItemToObject(entry, "value", cJSON_Duplicate(v, true));
		cJSON_AddStringToObject(entry, "source", L->path);
		return;
	}
	cfg_store(cfg, k, v, L->path);
}

/* [a, b] (a NULL: just [b]). */
static cJSON *
cfg_pair(const char *a, const char *b)
{
	cJSON *row = cJSON_CreateArray();

	if (a != NULL)
		cJSON_AddItemToArray(row, cJSON_CreateString(a));
	cJSON_AddItemToArray(row, cJSON_CreateString(b));
	return row;
}

static void
cfg_note_rule(struct config *cfg, enum perm_list list, const char *rule, const char *source)
{
	cJSON *row = cJSON_CreateArray();

	cJSON_AddItemToArray(row, cJSON_CreateString(perm_list_name(list)));
	cJSON_AddItemToArray(row, cJSON_CreateString(rule));
	cJSON_AddItemToArray(row, cJSON_CreateString(source));
	cJSON_AddItemToArray(cfg->rule_sources, row);
}

static int
cfg_add_rule(struct config *cfg, const struct cfg_key *k, const char *rule, const char *source,
    struct buf *err)
{
	if (perm_rules_add(cfg->rules, k->list, rule, err) == -1)
		return -1;
	cfg_note_rule(cfg, k->list, rule, source);
	cfg_add_source(cfg, k->name, source);
	return 0;
}

static void
cfg_apply_rules(struct config *cfg, struct cfg_layer *L, const struct cfg_key *k, const cJSON *v)
{
	struct buf err = BUF_INIT(1024);
	struct perm_rules *check;
	cJSON *r, *held;

	if (!cJSON_IsArray(v)) {
		cfg_warn(L, "\"%s\" must be an array of rules (ignored)", k->name);
		return;
	}
	cJSON_ArrayForEach(r, v) {
		buf_reset(&err);
		if (!cJSON_IsString(r)) {
			cfg_warn(L, "%s: a rule must be a string (ignored)", k->name);
			continue;
		}
		if (perm_rule_changed(r->valuestring, &err))
			cfg_warn(L, "%s: %s", k->name, buf_cstr(&err));
		buf_reset(&err);
		if (!L->project || k->list != PERM_LIST_ALLOW) {
			if (cfg_add_rule(cfg, k, r->valuestring, L->path, &err) == -1)
				cfg_warn(L, "%s: %s (ignored)", k->name, buf_cstr(&err));
			else if (k->list == PERM_LIST_ALLOW &&
			    shparse_rule_runs_anything(r->valuestring, &err))
				cfg_warn(L, "%s: %s", k->name, buf_cstr(&err));
			continue;
		}
		check = perm_rules_new();
		if (perm_rules_add(check, k->list, r->valuestring, &err) == -1)
			cfg_warn(L, "%s: %s (ignored)", k->name, buf_cstr(&err));
		else {
			held = json_get(cfg->held, "allow");
			if (held == NULL)
				held = cJSON_AddArrayToObject(cfg->held, "allow");
			cJSON_AddItemToArray(held, cfg_pair(r->valuestring, L->path));
		}
		perm_rules_free(check);
	}
	buf_release(&err);
}

/*
 * Names of environment variables to remove from (or keep in) the
 * environment of commands and hooks.  Lists accumulate over the layers; a
 * project may add names to remove but not keep any, or a repository could
 * hand its commands the user's keys.
 */
static void
cfg_apply_env_names(struct config *cfg, struct cfg_layer *L, const struct cfg_key *k,
    const cJSON *v)
{
	const cJSON *n;
	cJSON *row;
	bool keep = k->min == 1;

	if (!cJSON_IsArray(v)) {
		cfg_warn(L, "\"%s\" must be an array of names or patterns (ignored)", k->name);
		return;
	}
	if (keep && L->project) {
		cfg_warn(L, "\"%s\" is read from the user's settings only (ignored)", k->name);
		return;
	}
	cJSON_ArrayForEach(n, v) {
		if (!cJSON_IsString(n) || n->valuestring[0] == '\0') {
			cfg_warn(L, "%s: a name must be a non-empty string (ignored)", k->name);
			continue;
		}
		if (keep)
			redact_env_keep(n->valuestring);
		else
			redact_env_remove(n->valuestring);
		row = cfg_pair(k->name, n->valuestring);
		cJSON_AddItemToArray(row, cJSON_CreateString(L->path));
		cJSON_AddItemToArray(cfg->rule_sources, row);
		cfg_add_source(cfg, k->name, L->path);
	}
}

/*
 * Add one extra root: "~/" is the home directory, a relative path is taken
 * from the workspace root; it must be a directory.  0, or -1 with a
 * sentence in err.
 */
static int
cfg_add_dir(struct config *cfg, const struct cfg_key *k, const char *dir, const char *source,
    struct buf *err)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	const char *home = getenv("HOME");
	char ***dirs = CFG_MEMBER(cfg, k, char **), *real;
	struct stat st;
	size_t n = 0;

	if (dir[0] == '~' && (dir[1] == '/' || dir[1] == '\0') && home != NULL) {
		buf_puts(&p, home);
		buf_puts(&p, dir + 1);
	} else if (dir[0] != '/' && cfg->root != NULL) {
		buf_printf(&p, "%s/%s", cfg->root, dir);
	} else
		buf_puts(&p, dir);
	real = realpath(buf_cstr(&p), NULL);
	buf_release(&p);
	if (real == NULL || stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		buf_printf(err, "%s is not a directory", dir);
		free(real);
		return -1;
	}
	while (*dirs != NULL && (*dirs)[n] != NULL) {
		if (strcmp((*dirs)[n], real) == 0) {
			free(real);
			return 0;
		}
		n++;
	}
	*dirs = xreallocarray(*dirs, n + 2, sizeof **dirs);
	(*dirs)[n] = real;
	(*dirs)[n + 1] = NULL;
	cfg_add_source(cfg, k->name, source);
	return 0;
}

/*
 * permissions.additionalDirectories from a file.  A project's own files may
 * not widen what the tools reach: only the user's settings (and --add-dir)
 * add roots.
 */
static void
cfg_apply_dirs(struct config *cfg, struct cfg_layer *L, const struct cfg_key *k, const cJSON *v)
{
	struct buf err = BUF_INIT(1024);
	const cJSON *d;

	if (L->project) {
		cfg_warn(L, "\"%s\" is read only from your own settings and --add-dir; a project "
		    "cannot widen what the tools reach (ignored)", k->name);
		return;
	}
	if (!cJSON_IsArray(v)) {
		cfg_warn(L, "\"%s\" must be an array of directories (ignored)", k->name);
		return;
	}
	cJSON_ArrayForEach(d, v) {
		buf_reset(&err);
		if (!cJSON_IsString(d))
			cfg_warn(L, "%s: a directory must be a string (ignored)", k->name);
		else if (cfg_add_dir(cfg, k, d->valuestring, L->path, &err) == -1)
			cfg_warn(L, "%s: %s (ignored)", k->name, buf_cstr(&err));
	}
	buf_release(&err);
}

/* Append src's hook entries to dst per event; dst is created on first use. */
static void
cfg_merge_hooks(cJSON **dst, const cJSON *src)
{
	const cJSON *ev, *entry;
	cJSON *arr;

	cJSON_ArrayForEach(ev, src) {
		if (*dst == NULL)
			*dst = cJSON_CreateObject();
		arr = json_get(*dst, ev->string);
		if (arr == NULL)
			arr = cJSON_AddArrayToObject(*dst, ev->string);
		cJSON_ArrayForEach(entry, ev)
			cJSON_AddItemToArray(arr, cJSON_Duplicate(entry, true));
	}
}

static void
cfg_apply_hooks(struct config *cfg, struct cfg_layer *L, const cJSON *v)
{
	cJSON *good, *ev, *entry, *arr, *held;

	if (!cJSON_IsObject(v)) {
		cfg_warn(L, "\"hooks\" must be an object (ignored)");
		return;
	}
	good = cJSON_CreateObject();
	cJSON_ArrayForEach(ev, v) {
		bool known = false;
		size_t i;

		for (i = 0; cfg_hook_events[i] != NULL; i++)
			known = known || strcmp(cfg_hook_events[i], ev->string) == 0;
		if (!known) {
			cfg_warn(L, "unknown hook event \"%s\" (ignored)", ev->string);
			continue;
		}
		if (!cJSON_IsArray(ev)) {
			cfg_warn(L, "\"hooks.%s\" must be an array (ignored)", ev->string);
			continue;
		}
		arr = NULL;
		cJSON_ArrayForEach(entry, ev) {
			if (cJSON_IsObject(entry) && arr == NULL)
				arr = cJSON_AddArrayToObject(good, ev->string);
			if (cJSON_IsObject(entry))
				cJSON_AddItemToArray(arr, cJSON_Duplicate(entry, true));
			else
				cfg_warn(L, "\"hooks.%s\": an entry must be an object (ignored)",
				    ev->string);
		}
	}
	if (good->child == NULL) {
		cJSON_Delete(good);
		return;
	}
	if (L->project) {
		/* Held as [path, hooks] until the project is trusted. */
		held = json_get(cfg->held, "hooks");
		if (held == NULL)
			held = cJSON_AddArrayToObject(cfg->held, "hooks");
		arr = cfg_pair(NULL, L->path);
		cJSON_AddItemToArray(arr, good);
		cJSON_AddItemToArray(held, arr);
		return;
	}
	cfg_merge_hooks(&cfg->hooks, good);
	cfg_add_source(cfg, "hooks", L->path);
	cJSON_Delete(good);
}

/* Apply the members of obj (a group when prefix is not NULL). */
static void
cfg_apply_object(struct config *cfg, struct cfg_layer *L, const cJSON *obj, const char *prefix)
{
	struct buf name = BUF_INIT(BUF_NOLIMIT);
	const struct cfg_key *k;
	const cJSON *m;
	bool dotted;

	cJSON_ArrayForEach(m, obj) {
		buf_reset(&name);
		if (prefix != NULL)
			buf_printf(&name, "%s.", prefix);
		buf_puts(&name, m->string);
		if (prefix == NULL && strcmp(m->string, "$schema") == 0)
			continue;
		if (prefix == NULL && strcmp(m->string, "api_key") == 0) {
			cfg_warn(L, "\"api_key\" is never read from a file; set ANTHROPIC_API_KEY "
			    "or OPENAI_API_KEY (ignored)");
			continue;
		}
		/* A member's own name never holds a dot: {"a.b": 1} is not {"a": {"b": 1}}. */
		dotted = strchr(m->string, '.') != NULL;
		k = dotted ? NULL : cfg_key_find(buf_cstr(&name), false);
		if (k != NULL && k->type == CFG_RULES)
			cfg_apply_rules(cfg, L, k, m);
		else if (k != NULL && k->type == CFG_DIRS)
			cfg_apply_dirs(cfg, L, k, m);
		else if (k != NULL && k->type == CFG_HOOKS)
			cfg_apply_hooks(cfg, L, m);
		else if (k != NULL && k->type == CFG_ENV_NAMES)
			cfg_apply_env_names(cfg, L, k, m);
		else if (k != NULL)
			cfg_apply_scalar(cfg, L, k, m);
		else if (!dotted && cfg_is_group(buf_cstr(&name)) && cJSON_IsObject(m))
			cfg_apply_object(cfg, L, m, buf_cstr(&name));
		else if (!dotted && cfg_is_group(buf_cstr(&name)))
			cfg_warn(L, "\"%s\" must be an object (ignored)", buf_cstr(&name));
		else
			cfg_warn(L, "unknown key \"%s\" (ignored)", buf_cstr(&name));
	}
	buf_release(&name);
}

/*
 * Files.
 */

/* Read a whole file: 1 and *text, 0 when it does not exist, -1 with err. */
static int
cfg_read(const char *path, char **text, size_t *n, struct buf *err)
{
	struct buf b = BUF_INIT(CFG_FILE_MAX);
	char chunk[8192];
	ssize_t got;
	int fd;

	*text = NULL;
	*n = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd == -1)
		return cfg_error(err, "%s: cannot open: %s", path, strerror(errno));
	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1) {
			cfg_error(err, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (buf_append(&b, chunk, (size_t)got) == -1) {
			cfg_error(err, "%s: larger than %d bytes; is it a settings file?", path,
			    CFG_FILE_MAX);
			goto fail;
		}
	}
	close(fd);
	*text = buf_detach(&b, n);
	return 1;
fail:
	close(fd);
	buf_release(&b);
	return -1;
}

/* What is wrong at line:col of text, in a few words. */
static void
cfg_describe(const char *text, size_t n, int line, int col, struct buf *err)
{
	size_t off = 0, end;
	int l = 1, c = 1;

	while (off < n && l < line) {
		if (text[off++] == '\n')
			l++;
	}
	while (off < n && c < col && text[off] != '\n') {
		off++;
		while (off < n && ((unsigned char)text[off] & 0xC0) == 0x80)
			off++;
		c++;
	}
	if (off >= n) {
		buf_puts(err, "malformed JSON: the file ends too early");
		return;
	}
	if (text[off] == '"') {
		for (end = off + 1; end < n && text[end] != '"' && text[end] != '\n'; end++)
			if (text[end] == '\\')
				end++;
		if (end >= n || text[end] != '"') {
			buf_puts(err, "malformed JSON: this string is not closed");
			return;
		}
	}
	end = off;
	while (end < n && end - off < 16 && text[end] != '\n' && text[end] != '\r')
		end++;
	buf_printf(err, "malformed JSON: unexpected '%.*s'", (int)(end - off), text + off);
}

/*
 * Parse a settings file's text: an object, or NULL with "PATH:LINE:COL: what"
 * in err.  A file of only white space is an empty object.
 */
static cJSON *
cfg_parse(const char *path, const char *text, size_t n, struct buf *err)
{
	int line = 0, col = 0;
	size_t i;
	cJSON *j;

	for (i = 0; i < n && strchr(" \t\r\n", text[i]) != NULL && text[i] != '\0'; i++)
		;
	if (i == n)
		return cJSON_CreateObject();
	j = json_parse_at(text, n, &line, &col);
	if (j == NULL) {
		buf_printf(err, "%s:%d:%d: ", path, line, col);
		cfg_describe(text, n, line, col, err);
		return NULL;
	}
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		buf_printf(err, "%s:1:1: settings must be a JSON object ({...})", path);
		return NULL;
	}
	return j;
}

/* Load one file: 0 (also when it is missing) or -1 with err. */
static int
cfg_load_file(struct config *cfg, struct cfg_layer *L, struct buf *err)
{
	size_t n;
	char *text;
	cJSON *j;
	int r;

	r = cfg_read(L->path, &text, &n, err);
	if (r <= 0)
		return r;
	j = cfg_parse(L->path, text, n, err);
	free(text);
	if (j == NULL)
		return -1;
	cfg_apply_object(cfg, L, j, NULL);
	cJSON_Delete(j);
	return 0;
}

/* Create dir and its parents (mode for the ones created). */
static int
cfg_mkdirs(const char *dir, mode_t mode, struct buf *err)
{
	char *copy = xstrdup(dir), *p;
	int r = 0;

	for (p = copy + 1; r == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(copy, mode) == -1 && errno != EEXIST)
			r = cfg_error(err, "cannot create %s: %s", copy, strerror(errno));
		*p = c;
		if (c == '\0')
			break;
	}
	free(copy);
	return r;
}

/*
 * Write text to path atomically: a temporary file in the same directory,
 * flushed, then renamed over path.  A new file gets mode; an existing one
 * keeps its own.
 */
static int
cfg_write_atomic(const char *path, const char *text, mode_t mode, struct buf *err)
{
	struct buf tmp = BUF_INIT(BUF_NOLIMIT);
	size_t len = strlen(text), done = 0;
	struct stat st;
	ssize_t w;
	int fd;

	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	buf_printf(&tmp, "%s.XXXXXX", path);
	fd = mkstemp(tmp.data);
	if (fd == -1) {
		cfg_error(err, "cannot create a file next to %s: %s", path, strerror(errno));
		buf_release(&tmp);
		return -1;
	}
	while (done < len) {
		w = write(fd, text + done, len - done);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			goto fail;
		done += (size_t)w;
	}
	if (fchmod(fd, mode) == -1 || fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp.data, path) == -1)
		goto fail;
	buf_release(&tmp);
	return 0;
fail:
	cfg_error(err, "cannot write %s: %s", path, strerror(errno));
	if (fd != -1)
		close(fd);
	unlink(tmp.data);
	buf_release(&tmp);
	return -1;
}

/* Read and parse a JSON object file for an update: a new empty object when missing. */
static cJSON *
cfg_read_object(const char *path, struct buf *err)
{
	size_t n;
	char *text;
	cJSON *j;
	int r;

	r = cfg_read(path, &text, &n, err);
	if (r == -1)
		return NULL;
	if (r == 0)
		return cJSON_CreateObject();
	j = cfg_parse(path, text, n, err);
	free(text);
	return j;
}

/*
 * Defaults and environment.
 */

static const char *
cfg_env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* A variable tandem may have taken out of its environment already: then the saved copy. */
static const char *
cfg_secret_env(const char *name)
{
	const char *v = cfg_env(name);

	return v != NULL ? v : redact_env_saved(name);
}

static char *
cfg_home_dir(void)
{
	const char *h = cfg_env("HOME");
	struct passwd *pw;

	if (h == NULL && (pw = getpwuid(getuid())) != NULL)
		h = pw->pw_dir;
	return xstrdup(h != NULL ? h : "/");
}

/* $var/sub when var holds an absolute path (as XDG asks), else ~/fallback. */
static char *
cfg_xdg(const char *var, const char *fallback, const char *sub)
{
	const char *v = cfg_env(var);
	char *home, *base, *dir;

	if (v != NULL && v[0] == '/')
		return cfg_join(v, sub);
	home = cfg_home_dir();
	base = cfg_join(home, fallback);
	dir = cfg_join(base, sub);
	free(home);
	free(base);
	return dir;
}

/* The provider's defaults where nothing more specific was set. */
static void
cfg_resolve(struct config *cfg)
{
	int p = cfg_provider(cfg->provider);
	const char *v, *src;

	if (p < 0)
		p = 0;
	if (strcmp(cfg_source(cfg, "model"), "default") == 0)
		cfg_set_string(&cfg->model, cfg_providers[p].model);
	src = cfg_source(cfg, "base_url");
	if (strcmp(src, "default") == 0 || strcmp(src, "env") == 0) {
		v = cfg_env(cfg_providers[p].url_env);
		cfg_set_string(&cfg->base_url, v);
		cfg_set_source(cfg, "base_url", v != NULL ? "env" : "default");
	}
	v = cfg_secret_env(cfg_providers[p].key_env);
	cfg_set_string(&cfg->api_key, v);
	cfg_set_source(cfg, "api_key", v != NULL ? "env" : "default");
	/* Gateways: a bearer token and headers of their own (Claude Code's variables). */
	cfg_set_string(&cfg->auth_token, p == 0 ? cfg_secret_env("ANTHROPIC_AUTH_TOKEN") : NULL);
	cfg_set_string(&cfg->custom_headers, p == 0 ? cfg_secret_env("ANTHROPIC_CUSTOM_HEADERS") : NULL);
}

void
config_init(struct config *cfg)
{
	size_t i;
	char *cwd;

	memset(cfg, 0, sizeof(*cfg));
	cfg->sources = cJSON_CreateObject();
	cfg->held = cJSON_CreateObject();
	cfg->rule_sources = cJSON_CreateArray();
	for (i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++)
		cfg_set_source(cfg, cfg_keys[i].name, "default");
	cfg->provider = xstrdup("anthropic");
	cfg->mode = PERM_ASK;
	cfg->max_turns = 50;
	cfg->max_tokens = 8192;
	cfg->thinking = xstrdup("auto");
	cfg->models_wait_ms = 2000;
	cfg->theme = xstrdup("dark");
	cfg->notify_style = xstrdup("auto");
	cfg->notify_idle_ms = 60000;
	cfg->mouse = true;
	cfg->compact_micro = 0.50;
	cfg->compact_collapse = 0.70;
	cfg->compact_summary = 0.85;
	cfg->retries = 4;
	cfg->connect_timeout_ms = 10000;
	cfg->first_byte_timeout_ms = 120000;
	cfg->stall_timeout_ms = 60000;
	cfg->deadline_ms = -1;
	cfg->ms_per_token = 50;
	cfg->retention_days = 30;
	cwd = realpath(".", NULL);
	cfg->root = cwd != NULL ? cwd : xstrdup(".");
	cfg_set_source(cfg, "root", "default");
	if (cfg_env("TANDEM_HOME") != NULL) {
		cfg->home = xstrdup(cfg_env("TANDEM_HOME"));
		cfg_set_source(cfg, "home", "env");
	} else {
		cfg->home = cfg_xdg("XDG_STATE_HOME", ".local/state", "tandem");
		cfg_set_source(cfg, "home", "default");
	}
	cfg->config_dir = cfg_xdg("XDG_CONFIG_HOME", ".config", "tandem");
	cfg_set_source(cfg, "config_dir", "default");
	/* Resolved once, at start: tools and sessions need absolute paths, whatever cd follows. */
	cfg_make_absolute(&cfg->home);
	cfg_make_absolute(&cfg->config_dir);
	cfg->rules = perm_rules_new();
	perm_rules_set_root(cfg->rules, cfg->root);
	cfg_resolve(cfg);
}

void
config_release(struct config *cfg)
{
	size_t i;

	free(cfg->provider);
	free(cfg->model);
	free(cfg->base_url);
	free(cfg->api_key);
	free(cfg->auth_token);
	free(cfg->custom_headers);
	free(cfg->api_key_helper);
	free(cfg->thinking);
	free(cfg->effort);
	cJSON_Delete(cfg->prices);
	free(cfg->root);
	free(cfg->home);
	free(cfg->config_dir);
	free(cfg->theme);
	free(cfg->notify_style);
	free(cfg->disabled_tools);
	for (i = 0; cfg->add_dirs != NULL && cfg->add_dirs[i] != NULL; i++)
		free(cfg->add_dirs[i]);
	free(cfg->add_dirs);
	perm_rules_free(cfg->rules);
	cJSON_Delete(cfg->hooks);
	cJSON_Delete(cfg->sources);
	cJSON_Delete(cfg->held);
	cJSON_Delete(cfg->rule_sources);
	memset(cfg, 0, sizeof(*cfg));
}

static bool
cfg_holds_any(const struct config *cfg)
{
	static const char *const what[] = { "scalars", "allow", "hooks" };
	const cJSON *h;
	size_t i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if ((h = json_get(cfg->held, what[i])) != NULL && h->child != NULL)
			return true;
	return false;
}

int
config_load(struct config *cfg, struct buf *warnings, struct buf *err)
{
	char *paths[3];
	struct cfg_layer L;
	size_t i;
	int r = 0;

	paths[0] = cfg_join(cfg->config_dir, "settings.json");
	paths[1] = cfg_join(cfg->root, ".tandem/settings.json");
	paths[2] = cfg_join(cfg->root, ".tandem/settings.local.json");
	for (i = 0; i < 3 && r == 0; i++) {
		L.path = paths[i];
		L.project = i > 0;
		L.warnings = warnings;
		r = cfg_load_file(cfg, &L, err);
	}
	for (i = 0; i < 3; i++)
		free(paths[i]);
	if (r == -1)
		return -1;
	cfg->project_defines_trust_items = cfg_holds_any(cfg);
	cfg->trusted = config_is_trusted(cfg);
	if (cfg->trusted)
		config_apply_trusted(cfg);
	cfg_resolve(cfg);
	return 0;
}

void
config_apply_trusted(struct config *cfg)
{
	const struct cfg_key *k;
	struct buf err = BUF_INIT(1024);
	cJSON *item, *v;
	const char *src;

	cJSON_ArrayForEach(item, json_get(cfg->held, "scalars")) {
		k = cfg_key_find(item->string, false);
		v = json_get(item, "value");
		if (k != NULL && v != NULL && strcmp(cfg_source(cfg, k->name), "flag") != 0)
			cfg_store(cfg, k, v, json_str(item, "source", "?"));
	}
	k = cfg_key_find("permissions.allow", false);
	cJSON_ArrayForEach(item, json_get(cfg->held, "allow")) {
		src = cJSON_GetArrayItem(item, 1)->valuestring;
		buf_reset(&err);
		cfg_add_rule(cfg, k, cJSON_GetArrayItem(item, 0)->valuestring, src, &err);
	}
	cJSON_ArrayForEach(item, json_get(cfg->held, "hooks")) {
		cfg_merge_hooks(&cfg->hooks, cJSON_GetArrayItem(item, 1));
		cfg_add_source(cfg, "hooks", cJSON_GetArrayItem(item, 0)->valuestring);
	}
	cJSON_Delete(cfg->held);
	cfg->held = cJSON_CreateObject();
	cfg->trusted = true;
	buf_release(&err);
	cfg_resolve(cfg);
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
}

/*
 * Flags.
 */

/* A flag's text as the JSON value a settings file would hold; NULL if it cannot be. */
static cJSON *
cfg_flag_value(const struct cfg_key *k, const char *s)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	char *end;
	double d;
	long v;
	size_t i;

	switch (k->type) {
	case CFG_BOOL:
		for (i = 0; yes[i] != NULL; i++) {
			if (strcmp(s, yes[i]) == 0)
				return cJSON_CreateTrue();
			if (strcmp(s, no[i]) == 0)
				return cJSON_CreateFalse();
		}
		return NULL;
	case CFG_INT:
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || *end != '\0' || errno == ERANGE)
			return NULL;
		return cJSON_CreateNumber((double)v);
	case CFG_RATIO:
		errno = 0;
		d = strtod(s, &end);
		if (end == s || *end != '\0' || errno == ERANGE)
			return NULL;
		return cJSON_CreateNumber(d);
	case CFG_OBJECT:
		return cJSON_Parse(s);
	default:
		return cJSON_CreateString(s);
	}
}

static int
cfg_set_root(struct config *cfg, const char *flag, const char *value, struct buf *err)
{
	struct stat st;
	char *real = realpath(value, NULL);

	if (real == NULL)
		return cfg_error(err, "--%s: cannot use %s: %s", flag, value, strerror(errno));
	if (stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		free(real);
		return cfg_error(err, "--%s: %s is not a directory", flag, value);
	}
	free(cfg->root);
	cfg->root = real;
	perm_rules_set_root(cfg->rules, real);
	cfg_set_source(cfg, "root", "flag");
	return 0;
}

int
config_set_flag(struct config *cfg, const char *key, const char *value, struct buf *err)
{
	struct buf name = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(1024);
	const struct cfg_key *k;
	cJSON *v = NULL;
	char *p;
	int r = -1;

	while (*key == '-')
		key++;
	buf_puts(&name, key);
	for (p = name.data; p != NULL && *p != '\0'; p++)
		if (*p == '-')
			*p = '_';
	if (value == NULL) {
		cfg_error(err, "--%s needs a value", key);
		goto out;
	}
	if (strcmp(buf_cstr(&name), "root") == 0) {
		r = cfg_set_root(cfg, key, value, err);
		goto out;
	}
	if ((k = cfg_key_find(buf_cstr(&name), true)) == NULL) {
		cfg_error(err, "--%s: there is no such setting", key);
		goto out;
	}
	if (k->type == CFG_HOOKS || k->type == CFG_ENV_NAMES) {
		cfg_error(err, "--%s: %s are set in settings files", key,
		    k->type == CFG_HOOKS ? "hooks" : "environment names");
		goto out;
	}
	if (k->type == CFG_DIRS) {
		if (cfg_add_dir(cfg, k, value, "flag", &why) == 0)
			r = 0;
		else
			cfg_error(err, "--%s: %s", key, buf_cstr(&why));
		goto out;
	}
	if (k->type == CFG_RULES) {
		if (cfg_add_rule(cfg, k, value, "flag", &why) == 0)
			r = 0;
		else
			cfg_error(err, "--%s: %s", key, buf_cstr(&why));
		goto out;
	}
	v = cfg_flag_value(k, value);
	if (v == NULL || !cfg_valid(k, v, &why)) {
		if (why.len == 0)
			cfg_valid(k, NULL, &why);
		cfg_error(err, "--%s: \"%s\" is not valid; it %s", key, value, buf_cstr(&why));
		goto out;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(json_get(cfg->held, "scalars"), k->name);
	cfg_store(cfg, k, v, "flag");
	cfg_resolve(cfg);
	r = 0;
out:
	cJSON_Delete(v);
	buf_release(&name);
	buf_release(&why);
	return r;
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

void
config_print(const struct config *cfg, struct buf *out)
{
	int p = cfg_provider(cfg->provider);
	size_t i;

	for (i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++) {
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
	if (cfg_holds_any(cfg)) {
		buf_puts(out, "\nHeld back until this project is trusted:\n");
		config_trust_items(cfg, out);
	}
}

/*
 * Writing settings.local.json and trusted.json.
 */

/* The array obj[key] (created if missing), or NULL with err if it is something else. */
static cJSON *
cfg_member(cJSON *obj, const char *key, bool array, const char *path, struct buf *err)
{
	cJSON *m = json_get(obj, key);

	if (m == NULL)
		return array ? cJSON_AddArrayToObject(obj, key) : cJSON_AddObjectToObject(obj, key);
	if (array ? cJSON_IsArray(m) : cJSON_IsObject(m))
		return m;
	cfg_error(err, "%s: \"%s\" is not %s; the file was not changed", path, key,
	    array ? "an array" : "an object");
	return NULL;
}

/* Add s to the string array arr unless it is there: true if added. */
static bool
cfg_add_unique(cJSON *arr, const char *s)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && strcmp(it->valuestring, s) == 0)
			return false;
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
	return true;
}

static int
cfg_write_object(const char *path, const cJSON *obj, mode_t mode, struct buf *err)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	char *printed = cJSON_Print(obj);
	int r;

	buf_puts(&text, printed);
	buf_putc(&text, '\n');
	free(printed);
	r = cfg_write_atomic(path, buf_cstr(&text), mode, err);
	buf_release(&text);
	return r;
}

int
config_save_local_allow(const struct config *cfg, const char *rule, struct buf *err)
{
	struct perm_rules *check = perm_rules_new();
	char *dir = cfg_join(cfg->root, ".tandem"), *path = cfg_join(dir, "settings.local.json");
	cJSON *root = NULL, *perms, *allow;
	int r = -1;

	if (perm_rules_add(check, PERM_LIST_ALLOW, rule, err) == -1 ||
	    cfg_mkdirs(dir, 0755, err) == -1 || (root = cfg_read_object(path, err)) == NULL)
		goto out;
	if ((perms = cfg_member(root, "permissions", false, path, err)) == NULL ||
	    (allow = cfg_member(perms, "allow", true, path, err)) == NULL)
		goto out;
	r = cfg_add_unique(allow, rule) ? cfg_write_object(path, root, 0600, err) : 0;
out:
	cJSON_Delete(root);
	perm_rules_free(check);
	free(dir);
	free(path);
	return r;
}

bool
config_is_trusted(const struct config *cfg)
{
	struct buf err = BUF_INIT(1024);
	char *path = cfg_join(cfg->home, "trusted.json"), *text = NULL;
	const cJSON *it;
	struct stat st;
	bool yes = false;
	cJSON *j = NULL;
	size_t n;

	/* A record somebody else could have written proves nothing. */
	if (stat(path, &st) == -1 || st.st_uid != geteuid() || (st.st_mode & 022) != 0)
		goto out;
	if (cfg_read(path, &text, &n, &err) != 1 || (j = cfg_parse(path, text, n, &err)) == NULL)
		goto out;
	cJSON_ArrayForEach(it, json_get(j, "roots"))
		if (cJSON_IsString(it) && strcmp(it->valuestring, cfg->root) == 0)
			yes = true;
out:
	cJSON_Delete(j);
	free(text);
	free(path);
	buf_release(&err);
	return yes;
}

int
config_trust(const struct config *cfg, struct buf *err)
{
	char *path = cfg_join(cfg->home, "trusted.json");
	cJSON *j = NULL, *roots;
	int r = -1;

	if (cfg_mkdirs(cfg->home, 0700, err) == -1 || (j = cfg_read_object(path, err)) == NULL ||
	    (roots = cfg_member(j, "roots", true, path, err)) == NULL)
		goto out;
	r = cfg_add_unique(roots, cfg->root) ? cfg_write_object(path, j, 0600, err) : 0;
out:
	cJSON_Delete(j);
	free(path);
	return r;
}
