/* Layered settings with provenance, and project trust: see config.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "claude/ccsettings.h"
#include "claude/grant.h"
#include "claude/notice.h"
#include "config.h"
#include "config_keys.h"
#include "file.h"
#include "hooks.h"
#include "json.h"
#include "model/models.h"
#include "rules/perm.h"
#include "redact.h"
#include "rules/shparse.h"
#include "xalloc.h"

#define CFG_FILE_MAX	(1024 * 1024)	/* a settings file larger than this is refused */

static const char *const cfg_hook_events[] = {
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop",
	"PreCompact", "SessionEnd", "Notification",
	"PostToolUseFailure", "PermissionRequest", "PermissionDenied", "PostCompact", "StopFailure",
	"InstructionsLoaded",
	/* Claude Code's, kept so that hooks.c names them with why they never run. */
	"Setup", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted", "TeammateIdle",
	"ConfigChange", "CwdChanged", "FileChanged", "WorktreeCreate", "WorktreeRemove",
	"Elicitation", "ElicitationResult", NULL
};

/* One settings file being applied. */
struct cfg_layer {
	const char	*path;
	bool		 project;	/* the project's: trust items are held back */
	bool		 claude;	/* Claude Code's file (claude/ccsettings.h) */
	struct notices	*notices;
	struct buf	*warnings;
	struct prices	**prices;	/* the price file and the user's "prices", loaded when first needed */
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

/* The model a project's model (or web.fetch_model) would replace. */
static const char *
cfg_model_replaced(const struct config *cfg, const struct cfg_key *k)
{
	int p = cfg_provider(cfg->provider);

	if (strcmp(k->name, "web.fetch_model") == 0) {
		if (cfg->web_fetch_model != NULL)
			return cfg->web_fetch_model;
		if (p <= 0)
			return "claude-haiku-4-5";
	}
	if (strcmp(cfg_source(cfg, "model"), "default") == 0)
		return cfg_providers[p < 0 ? 0 : p].model;
	return cfg->model;
}

/*
 * Would a project's model cost more per token than the one it replaces
 * (prices_dearer)?  Prices are the price file's and the user's "prices"
 * (a project's are never read); a model without a price counts as dearer,
 * since the cost tandem shows for it would be 0.  A project's agent
 * definitions and commands are held to the same (agent.h:
 * agent_project_model).
 */
static bool
cfg_model_dearer(const struct config *cfg, struct cfg_layer *L, const struct cfg_key *k,
    const char *model)
{
	struct buf err = BUF_INIT(1024);

	if (*L->prices == NULL)
		*L->prices = prices_load(NULL, cfg->prices, &err);
	buf_release(&err);
	if (*L->prices == NULL)
		return true;
	return prices_dearer(*L->prices, model, cfg_model_replaced(cfg, k));
}

/* Could this scalar from a project file be used against the user? */
static bool
cfg_is_trust_item(const struct config *cfg, struct cfg_layer *L, const struct cfg_key *k,
    const cJSON *v)
{
	enum perm_mode mode;

	/*
	 * Where the conversation goes: base_url and the provider (another
	 * company's API, with the key in the environment); where the model's
	 * queries go: web.search_url.
	 */
	if (strcmp(k->name, "base_url") == 0 || strcmp(k->name, "provider") == 0 ||
	    strcmp(k->name, "apiKeyHelper") == 0 || strcmp(k->name, "lspServers") == 0 ||
	    strcmp(k->name, "web.search_url") == 0)
		return true;
	/* What the conversation costs: a dearer model, as the provider, waits for trust. */
	if (strcmp(k->name, "model") == 0 || strcmp(k->name, "web.fetch_model") == 0)
		return cfg_model_dearer(cfg, L, k, v->valuestring);
	if (k->type == CFG_MODE && perm_mode_parse(v->valuestring, &mode) == 0)
		return mode == PERM_ACCEPT_EDITS || mode == PERM_YOLO;
	return false;
}

/*
 * Would this value from a project file keep less of what the user has
 * (sessions, which tandem prunes at start, in every workspace; the
 * snapshots a rewind restores from) than the value before it?  A project
 * may keep more, never less.  0 is "forever" for retention_days and "no
 * budget" for snapshots.store_mb.
 */
static bool
cfg_keeps_less(const struct config *cfg, const struct cfg_key *k, const cJSON *v)
{
	static const char *const sizes[] = {
		"snapshots.max_file_mb", "snapshots.max_snapshot_mb", "snapshots.max_files", NULL
	};
	const char *at = (const char *)cfg + k->off;
	int cur, nv;
	size_t i;

	if (strcmp(k->name, "snapshots.enabled") == 0)
		return *(const bool *)(const void *)at && !cJSON_IsTrue(v);
	if (k->type != CFG_INT || !cJSON_IsNumber(v))
		return false;
	memcpy(&cur, at, sizeof cur);
	nv = v->valueint;
	if (strcmp(k->name, "retention_days") == 0 || strcmp(k->name, "snapshots.store_mb") == 0)
		return nv != 0 && (cur == 0 || nv < cur);
	for (i = 0; sizes[i] != NULL; i++)
		if (strcmp(k->name, sizes[i]) == 0)
			return nv < cur;
	return false;
}

/*
 * What a project's files may do with the settings that decide what the
 * user's requests cost, trusted or not: lower a limit, never raise it
 * above what the user's settings (or the defaults) give; leave the prices
 * tandem counts the cost by to the user.  A dearer model is a trust item
 * (cfg_is_trust_item).
 */
enum cfg_spend_rule {
	SPEND_AT_MOST,		/* a number; 0 stands for zero_is, a negative value for no limit */
	SPEND_THINKING,		/* "off", or the value it replaces */
	SPEND_EFFORT,		/* a level no higher in cfg_effort_levels */
	SPEND_USER_ONLY		/* read from the user's settings only */
};

#define SPEND_MODEL_WINDOW	(-1.0)	/* zero_is: the model's context window */

static const struct cfg_spend {
	const char		*name;
	enum cfg_spend_rule	 rule;
	double			 zero_is;
} cfg_spends[] = {
	{ "max_tokens", SPEND_AT_MOST, 0 },
	{ "thinking_budget", SPEND_AT_MOST, 0 },
	{ "max_turns", SPEND_AT_MOST, 0 },
	{ "retries", SPEND_AT_MOST, 0 },
	{ "web.max_searches", SPEND_AT_MOST, 5 },
	{ "mcp.defer_bytes", SPEND_AT_MOST, 8192 },
	{ "context_window", SPEND_AT_MOST, SPEND_MODEL_WINDOW },
	{ "compaction.micro", SPEND_AT_MOST, 0 },
	{ "compaction.collapse", SPEND_AT_MOST, 0 },
	{ "compaction.summary", SPEND_AT_MOST, 0 },
	{ "thinking", SPEND_THINKING, 0 },
	{ "effort", SPEND_EFFORT, 0 },
	{ "prices", SPEND_USER_ONLY, 0 },
	{ "cache_ttl_ms", SPEND_USER_ONLY, 0 },
};

/* Effort levels from the least to the most; an unset effort counts as "medium". */
static const char *const cfg_effort_levels[] = {
	"none", "minimal", "low", "medium", "high", "xhigh", "max", NULL
};

static int
cfg_effort_rank(const char *level)
{
	int i;

	for (i = 0; level != NULL && cfg_effort_levels[i] != NULL; i++)
		if (strcmp(cfg_effort_levels[i], level) == 0)
			return i;
	return level == NULL ? 3 : -1;
}

/* A limit's value as what it allows: 0 as what it stands for, no limit as infinity. */
static double
cfg_spend_limit(const struct config *cfg, const struct cfg_spend *s, double v)
{
	struct model_caps caps;
	double w;

	if (v < 0)
		return HUGE_VAL;
	if (v != 0 || s->zero_is == 0)
		return v;
	if (s->zero_is != SPEND_MODEL_WINDOW)
		return s->zero_is;
	model_builtin(cfg->model, &caps);
	w = caps.window > 0 ? (double)caps.window : HUGE_VAL;
	model_caps_release(&caps);
	return w;
}

/*
 * Would this value from a project file let the user's requests cost more,
 * or change the cost shown?  Then true, with what it would do in why.
 */
static bool
cfg_spends_more(const struct config *cfg, const struct cfg_key *k, const cJSON *v,
    struct buf *why)
{
	const struct cfg_spend *s = NULL;
	const void *at = (const char *)cfg + k->off;
	const char *cur;
	double now, then;
	size_t i;
	int n;

	for (i = 0; i < sizeof cfg_spends / sizeof cfg_spends[0] && s == NULL; i++)
		if (strcmp(cfg_spends[i].name, k->name) == 0)
			s = &cfg_spends[i];
	if (s == NULL)
		return false;
	switch (s->rule) {
	case SPEND_AT_MOST:
		if (!cJSON_IsNumber(v))
			return false;
		if (k->type == CFG_INT) {
			memcpy(&n, at, sizeof n);
			now = n;
		} else
			memcpy(&now, at, sizeof now);
		then = v->valuedouble;
		now = cfg_spend_limit(cfg, s, now);
		if (cfg_spend_limit(cfg, s, then) <= now)
			return false;
		buf_printf(why, ": %.10g is more than your settings give (", then);
		if (isinf(now))
			buf_puts(why, "no limit");
		else
			buf_printf(why, "%.10g", now);
		buf_puts(why, "); a project may lower what your requests may cost, not raise it");
		return true;
	case SPEND_THINKING:
		memcpy(&cur, at, sizeof cur);
		if (!cJSON_IsString(v) || strcmp(v->valuestring, "off") == 0 ||
		    strcmp(v->valuestring, cur) == 0)
			return false;
		buf_printf(why, ": \"%s\" would think more than your settings (\"%s\"); a "
		    "project may only turn thinking off", v->valuestring, cur);
		return true;
	case SPEND_EFFORT:
		memcpy(&cur, at, sizeof cur);
		if (!cJSON_IsString(v) || (cur != NULL && strcmp(v->valuestring, cur) == 0))
			return false;
		n = cfg_effort_rank(v->valuestring);
		if (n >= 0 && cfg_effort_rank(cur) >= 0 && n <= cfg_effort_rank(cur))
			return false;
		buf_printf(why, ": \"%s\" is not below your settings' level (%s); a project may "
		    "lower the effort, not raise it", v->valuestring,
		    cur != NULL ? cur : "none set, which counts as medium");
		return true;
	case SPEND_USER_ONLY:
		buf_puts(why, " is read from your own settings only: a project's would change "
		    "the cost tandem counts and shows");
		return true;
	}
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

/*
 * A project's disabled_tools add to the list before them: replacing it
 * would give back a tool the user took away (web_search, billed per
 * search; the subagents' extra calls; run_bash).
 */
static void
cfg_add_disabled(struct config *cfg, const struct cfg_key *k, const char *names,
    const char *source)
{
	struct buf list = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&list, "%s,%s", cfg->disabled_tools, names);
	cfg_set_string(&cfg->disabled_tools, buf_cstr(&list));
	cfg_add_source(cfg, k->name, source);
	buf_release(&list);
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
	buf_reset(&why);
	scalars = cfg_held(cfg, "scalars");
	/* A later layer's value replaces what an earlier one held back. */
	cJSON_DeleteItemFromObjectCaseSensitive(scalars, k->name);
	if (strcmp(cfg_source(cfg, k->name), "flag") == 0)
		goto out;
	if (L->project && cfg_keeps_less(cfg, k, v)) {
		cfg_warn(L, "\"%s\": a project may keep more of your sessions and snapshots, "
		    "not less (ignored)", k->name);
		goto out;
	}
	if (L->project && cfg_spends_more(cfg, k, v, &why)) {
		cfg_warn(L, "\"%s\"%s (ignored)", k->name, buf_cstr(&why));
		goto out;
	}
	if (L->project && cfg_is_trust_item(cfg, L, k, v)) {
		entry = cJSON_AddObjectToObject(scalars, k->name);
		cJSON_AddItemToObject(entry, "value", cJSON_Duplicate(v, true));
		cJSON_AddStringToObject(entry, "source", L->path);
		goto out;
	}
	if (L->project && strcmp(k->name, "disabled_tools") == 0 && cfg->disabled_tools != NULL)
		cfg_add_disabled(cfg, k, v->valuestring, L->path);
	else
		cfg_store(cfg, k, v, L->path);
out:
	buf_release(&why);
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

/* One item of a layer's hooks that tandem reads and does not honour. */
static void
cfg_hook_notice(void *arg, const char *kind, const char *name, const char *why)
{
	struct cfg_layer *L = arg;

	notice_add(L->notices, kind, name, L->path, why);
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
		if (!known && L->claude) {
			notice_add(L->notices, "hook event", ev->string, L->path,
			    "tandem has no such moment");
			continue;
		}
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
	/* Named whether or not the project is trusted: it is read either way. */
	hooks_unhonoured(good, cfg_hook_notice, L);
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
		else if (prefix == NULL && strcmp(m->string, "sandbox") == 0)
			jail_config_apply(&cfg->sandbox, m, L->path, L->project, L->warnings);
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
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	*text = NULL;
	*n = 0;
	if (file_read(path, CFG_FILE_MAX, 0, &b, &st) == 0) {
		*text = buf_detach(&b, n);
		return 1;
	}
	buf_release(&b);
	if (st.fail == FILE_MISSING)
		return 0;
	if (st.fail == FILE_TOO_BIG)
		return cfg_error(err, "%s: larger than %d bytes; is it a settings file?", path,
		    CFG_FILE_MAX);
	return cfg_error(err, "%s: cannot %s: %s", path, st.fail == FILE_READ ? "read" : "open",
	    strerror(errno));
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
	if (L->claude) {
		cJSON *t = ccsettings_translate(j, L->path, cfg->notices);

		cJSON_Delete(j);
		j = t;
	}
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
	struct file_status st;

	if (file_write_atomic(path, text, strlen(text), mode, FILE_KEEP_MODE, &st) == 0)
		return 0;
	if (st.fail == FILE_CREATE)
		return cfg_error(err, "cannot create a file next to %s: %s", path, strerror(errno));
	return cfg_error(err, "cannot write %s: %s", path, strerror(errno));
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
	cfg->notices = notice_new();
	cfg->grants = grant_new();
	for (i = 0; i < cfg_nkeys; i++)
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
	cfg->lsp_enabled = true;
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
	cfg->snap = (struct wsnap_settings)WSNAP_SETTINGS_DEFAULT;
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
	cJSON_Delete(cfg->status_line);
	cJSON_Delete(cfg->http_hook_urls);
	cJSON_Delete(cfg->http_hook_env);
	cJSON_Delete(cfg->mcp_servers);
	cJSON_Delete(cfg->lsp_servers);
	cJSON_Delete(cfg->mcp_flags);
	free(cfg->root);
	free(cfg->home);
	free(cfg->config_dir);
	free(cfg->theme);
	free(cfg->notify_style);
	free(cfg->disabled_tools);
	free(cfg->web_search_url);
	free(cfg->web_fetch_model);
	for (i = 0; cfg->add_dirs != NULL && cfg->add_dirs[i] != NULL; i++)
		free(cfg->add_dirs[i]);
	free(cfg->add_dirs);
	perm_rules_free(cfg->rules);
	cJSON_Delete(cfg->hooks);
	cJSON_Delete(cfg->sources);
	cJSON_Delete(cfg->held);
	cJSON_Delete(cfg->rule_sources);
	jail_config_release(&cfg->sandbox);
	notice_free(cfg->notices);
	grant_free(cfg->grants);
	memset(cfg, 0, sizeof(*cfg));
}

int
config_load(struct config *cfg, struct buf *warnings, struct buf *err)
{
	/*
	 * Claude Code's file of each scope just before tandem's: for a single
	 * value tandem's own wins (ccsettings.h).  scope: the --setting-sources bit.
	 */
	static const struct {
		const char	*file;
		int		 scope;
		bool		 claude, in_home;
	} layers[] = {
		{ ".claude/settings.json", 0, true, true },
		{ "settings.json", 0, false, false },
		{ ".claude/settings.json", 1, true, false },
		{ ".tandem/settings.json", 1, false, false },
		{ ".claude/settings.local.json", 2, true, false },
		{ ".tandem/settings.local.json", 2, false, false },
	};
	enum { NLAYERS = sizeof layers / sizeof layers[0] };
	char *paths[NLAYERS], *home = cfg_home_dir();
	struct prices *prices = NULL;
	struct cfg_layer L;
	size_t i;
	int r = 0;

	for (i = 0; i < NLAYERS; i++)
		paths[i] = cfg_join(layers[i].in_home ? home : layers[i].scope == 0 ?
		    cfg->config_dir : cfg->root, layers[i].file);
	free(home);
	for (i = 0; i < NLAYERS && r == 0; i++) {
		if (cfg->skip_layers & (1u << layers[i].scope))
			continue;
		L.path = paths[i];
		L.project = layers[i].scope > 0;
		L.claude = layers[i].claude;
		L.notices = cfg->notices;
		L.warnings = warnings;
		L.prices = &prices;
		r = cfg_load_file(cfg, &L, err);
	}
	prices_free(prices);
	for (i = 0; i < NLAYERS; i++)
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
config_hold_definition(struct config *cfg, const char *line)
{
	cJSON *defs = json_get(cfg->held, "definitions");

	if (defs == NULL)
		defs = cJSON_AddArrayToObject(cfg->held, "definitions");
	cJSON_AddItemToArray(defs, cJSON_CreateString(line));
	cfg->project_defines_trust_items = true;
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
	case CFG_JSON:
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
