/*
 * lsp_conf: the server definitions: the settings' lspServers (Claude
 * Code's plugin shape), then the built-in defaults whose program is on
 * PATH.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "json.h"
#include "lsp_int.h"
#include "proc.h"
#include "xalloc.h"

/* A built-in: the program, its arguments, and "ext=language" pairs. */
static const struct lsp_builtin {
	const char	*name;
	const char	*args[2];
	const char	*exts[12];
} lsp_builtins[] = {
	{ "clangd", { NULL }, { ".c=c", ".h=c", ".cc=cpp", ".cpp=cpp", ".cxx=cpp", ".hpp=cpp",
	    ".hh=cpp", ".hxx=cpp", NULL } },
	{ "pyright-langserver", { "--stdio", NULL }, { ".py=python", ".pyi=python", NULL } },
	{ "typescript-language-server", { "--stdio", NULL }, { ".ts=typescript",
	    ".tsx=typescriptreact", ".js=javascript", ".jsx=javascriptreact", ".mjs=javascript",
	    ".cjs=javascript", ".mts=typescript", ".cts=typescript", NULL } },
	{ "gopls", { NULL }, { ".go=go", NULL } },
	{ "rust-analyzer", { NULL }, { ".rs=rust", NULL } },
};

static void
lsp_push(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static void
lsp_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
lsp_def_free(struct lsp_def *d)
{
	free(d->name);
	free(d->command);
	lsp_strv_free(d->args);
	lsp_strv_free(d->env);
	lsp_strv_free(d->exts);
	lsp_strv_free(d->langs);
	cJSON_Delete(d->init_options);
	cJSON_Delete(d->settings);
	free(d);
}

const char *
lsp_def_lang(const struct lsp_def *d, const char *rel)
{
	const char *dot = strrchr(rel, '.'), *slash = strrchr(rel, '/');
	size_t i;

	if (dot == NULL || (slash != NULL && dot < slash))
		return NULL;
	for (i = 0; d->exts != NULL && d->exts[i] != NULL; i++)
		if (strcmp(d->exts[i], dot) == 0)
			return d->langs[i];
	return NULL;
}

static struct lsp_def *
lsp_def_new(const char *name)
{
	struct lsp_def *d = xcalloc(1, sizeof *d);

	d->name = xstrdup(name);
	d->start_ms = LSP_START_MS;
	d->max_restarts = LSP_MAX_RESTARTS;
	return d;
}

/* One lspServers entry; NULL with a warning when it cannot be used. */
static struct lsp_def *
lsp_conf_entry(const cJSON *e, struct buf *warnings)
{
	struct lsp_def *d;
	const cJSON *m;
	size_t na = 0, nx = 0, nl = 0, ne = 0;

	if (!cJSON_IsObject(e) || json_str(e, "command", NULL) == NULL) {
		buf_printf(warnings, "lspServers.%s: no \"command\" (ignored)\n", e->string);
		return NULL;
	}
	if (!cJSON_IsObject(json_get(e, "extensionToLanguage"))) {
		buf_printf(warnings, "lspServers.%s: no \"extensionToLanguage\" (ignored)\n", e->string);
		return NULL;
	}
	d = lsp_def_new(e->string);
	d->command = xstrdup(json_str(e, "command", ""));
	cJSON_ArrayForEach(m, json_get(e, "args"))
		if (cJSON_IsString(m))
			lsp_push(&d->args, &na, m->valuestring);
	cJSON_ArrayForEach(m, json_get(e, "extensionToLanguage"))
		if (cJSON_IsString(m)) {
			struct buf ext = BUF_INIT(BUF_NOLIMIT);

			buf_printf(&ext, "%s%s", m->string[0] == '.' ? "" : ".", m->string);
			lsp_push(&d->exts, &nx, buf_cstr(&ext));
			lsp_push(&d->langs, &nl, m->valuestring);
			buf_release(&ext);
		}
	cJSON_ArrayForEach(m, json_get(e, "env"))
		if (cJSON_IsString(m)) {
			struct buf kv = BUF_INIT(BUF_NOLIMIT);

			buf_printf(&kv, "%s=%s", m->string, m->valuestring);
			lsp_push(&d->env, &ne, buf_cstr(&kv));
			buf_release(&kv);
		}
	if (json_get(e, "initializationOptions") != NULL)
		d->init_options = cJSON_Duplicate(json_get(e, "initializationOptions"), 1);
	if (json_get(e, "settings") != NULL)
		d->settings = cJSON_Duplicate(json_get(e, "settings"), 1);
	if (json_int(e, "startupTimeout", 0) > 0)
		d->start_ms = (int)json_int(e, "startupTimeout", LSP_START_MS);
	if (json_get(e, "maxRestarts") != NULL)
		d->max_restarts = (int)json_int(e, "maxRestarts", LSP_MAX_RESTARTS);
	return d;
}

static bool
lsp_conf_has(const struct lsp_def *defs, const char *name)
{
	for (; defs != NULL; defs = defs->next)
		if (strcmp(defs->name, name) == 0)
			return true;
	return false;
}

struct lsp_def *
lsp_conf_load(const struct config *cfg, struct buf *warnings)
{
	struct lsp_def *head = NULL, **tail = &head, *d;
	const cJSON *e;
	size_t i, j;

	cJSON_ArrayForEach(e, cfg->lsp_servers)
		if ((d = lsp_conf_entry(e, warnings)) != NULL) {
			*tail = d;
			tail = &d->next;
		}
	for (i = 0; i < sizeof lsp_builtins / sizeof lsp_builtins[0]; i++) {
		const struct lsp_builtin *b = &lsp_builtins[i];
		char *path;
		size_t na = 0, nx = 0, nl = 0;

		if (lsp_conf_has(head, b->name) || (path = proc_which(b->name)) == NULL)
			continue;
		free(path);
		d = lsp_def_new(b->name);
		d->command = xstrdup(b->name);
		for (j = 0; b->args[j] != NULL; j++)
			lsp_push(&d->args, &na, b->args[j]);
		for (j = 0; b->exts[j] != NULL; j++) {
			const char *eq = strchr(b->exts[j], '=');
			char ext[16];

			snprintf(ext, sizeof ext, "%.*s", (int)(eq - b->exts[j]), b->exts[j]);
			lsp_push(&d->exts, &nx, ext);
			lsp_push(&d->langs, &nl, eq + 1);
		}
		*tail = d;
		tail = &d->next;
	}
	return head;
}
