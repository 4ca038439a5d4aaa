/* The project's definitions whose model waits for trust.  See projdefs.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "commands.h"
#include "config/config.h"
#include "model/models.h"
#include "projdefs.h"
#include "sub/subtype.h"

/* path as the project names it: under the root, relative to it. */
static const char *
projdefs_path(const struct config *cfg, const char *path)
{
	size_t n = strlen(cfg->root);

	if (strncmp(path, cfg->root, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* Hold what (a definition) if model, which it asks for, is dearer than the session's. */
static void
projdefs_check(struct config *cfg, const struct prices *prices, const char *what,
    const char *model)
{
	struct buf line = BUF_INIT(BUF_NOLIMIT);

	if (model == NULL || !prices_dearer(prices, model, cfg->model))
		return;
	buf_printf(&line, "%s asks for %s, %s than the session's %s", what, model,
	    prices_find(prices, model) == NULL ? "which has no price and may cost more" : "dearer",
	    cfg->model);
	config_hold_definition(cfg, buf_cstr(&line));
	buf_release(&line);
}

/* The project's agent definitions; none when CLAUDE_CODE_SUBAGENT_MODEL names every type's. */
static void
projdefs_agents(struct config *cfg, const struct prices *prices, const char *home)
{
	const char *all = getenv("CLAUDE_CODE_SUBAGENT_MODEL");
	bool anthropic = cfg->provider == NULL || strcmp(cfg->provider, "openai") != 0;
	struct subtype *list, *t;
	struct buf what = BUF_INIT(BUF_NOLIMIT);

	if (all != NULL && all[0] != '\0')
		return;
	list = subtype_load(cfg->root, home, NULL);
	for (t = list; t != NULL; t = t->next) {
		if (!t->project || t->model == NULL)
			continue;
		buf_reset(&what);
		buf_printf(&what, "the agent definition %s (subagent type %s)",
		    projdefs_path(cfg, t->source), t->name);
		projdefs_check(cfg, prices, buf_cstr(&what), subtype_model_id(t->model, anthropic));
	}
	buf_release(&what);
	subtype_list_free(list);
}

/* The project's commands with a model: line (a skill's model is never used). */
static void
projdefs_commands(struct config *cfg, const struct prices *prices)
{
	struct notices *notices = cfg->notices;
	struct command_list l;
	struct buf what = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	/* Only a look: what the files hold that tandem does not honour is named where they are used. */
	cfg->notices = NULL;
	commands_scan(cfg, &l);
	cfg->notices = notices;
	for (i = 0; i < l.n; i++) {
		if (!l.v[i].project || l.v[i].skill || l.v[i].model == NULL)
			continue;
		buf_reset(&what);
		buf_printf(&what, "the command /%s (%s)", l.v[i].name, projdefs_path(cfg, l.v[i].path));
		projdefs_check(cfg, prices, buf_cstr(&what), l.v[i].model);
	}
	buf_release(&what);
	commands_list_release(&l);
}

void
projdefs_hold(struct config *cfg, const char *home)
{
	struct buf err = BUF_INIT(1024);
	struct prices *prices;

	if (cfg->trusted || cfg->root == NULL || cfg->model == NULL)
		return;
	/* As the session's: the price file and the user's "prices" (a project's are never read). */
	prices = prices_load(NULL, cfg->prices, &err);
	buf_release(&err);
	projdefs_agents(cfg, prices, home);
	projdefs_commands(cfg, prices);
	prices_free(prices);
}
