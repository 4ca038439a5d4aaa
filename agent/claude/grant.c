/* allowed-tools while a command or a skill runs: see grant.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sha256.h"
#include "xalloc.h"

#include "claude/grant.h"
#include "claude/notice.h"
#include "config/config.h"
#include "rules/perm.h"

#define GRANT_KEEP	16	/* grants kept; older ones are dropped */

struct grant {
	char			 key[65];	/* the prompt's digest, or "" for a turn's */
	int			 turn;
	struct perm_rules	*rules;
};

struct grant_model {
	char	 key[65];
	char	*model;
	char	*def;		/* the project's command that names it, as grant_model says it; NULL: the user's */
};

struct grants {
	struct grant		 v[GRANT_KEEP];
	size_t			 next;
	struct grant_model	 models[GRANT_KEEP];
	size_t			 next_model;
};

struct grants *
grant_new(void)
{
	return xcalloc(1, sizeof(struct grants));
}

void
grant_free(struct grants *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < GRANT_KEEP; i++) {
		perm_rules_free(g->v[i].rules);
		free(g->models[i].model);
		free(g->models[i].def);
	}
	free(g);
}

/* One entry of allowed-tools: a name, and a pattern in parentheses that may hold blanks. */
static const char *
grant_entry(const char *p, struct buf *out)
{
	int depth = 0;

	buf_reset(out);
	while (*p == ' ' || *p == '\t' || *p == ',' || *p == '[' || *p == ']' || *p == '"' || *p == '\'')
		p++;
	for (; *p != '\0'; p++) {
		if (depth == 0 && (*p == ']' || *p == '"' || *p == '\''))
			continue;
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (depth == 0 && (*p == ',' || *p == ' ' || *p == '\t'))
			break;
		buf_putc(out, *p);
	}
	return p;
}

struct perm_rules *
grant_rules(const char *allowed_tools, const char *root, const char *source, struct notices *notices)
{
	struct buf e = BUF_INIT(4096), err = BUF_INIT(1024);
	struct perm_rules *r = NULL;
	const char *p = allowed_tools;

	while (p != NULL && *p != '\0') {
		p = grant_entry(p, &e);
		if (e.len == 0)
			continue;
		if (r == NULL) {
			r = perm_rules_new();
			perm_rules_set_root(r, root);
		}
		buf_reset(&err);
		if (perm_rules_add(r, PERM_LIST_ALLOW, buf_cstr(&e), &err) == -1)
			notice_add(notices, "allowed-tools entry", buf_cstr(&e), source, buf_cstr(&err));
	}
	buf_release(&e);
	buf_release(&err);
	return r;
}

static void
grant_put(struct grants *g, const char *key, int turn, struct perm_rules *rules)
{
	struct grant *s;

	if (g == NULL || rules == NULL) {
		perm_rules_free(rules);
		return;
	}
	s = &g->v[g->next];
	g->next = (g->next + 1) % GRANT_KEEP;
	perm_rules_free(s->rules);
	snprintf(s->key, sizeof s->key, "%s", key);
	s->turn = turn;
	s->rules = rules;
}

void
grant_for_prompt(struct grants *g, const char *prompt, struct perm_rules *rules)
{
	char hex[65];

	sha256_hex(prompt, strlen(prompt), hex);
	grant_put(g, hex, -1, rules);
}

void
grant_model_for_prompt(struct grants *g, const char *prompt, const char *model, const char *def)
{
	struct grant_model *m;

	if (g == NULL || model == NULL)
		return;
	m = &g->models[g->next_model];
	g->next_model = (g->next_model + 1) % GRANT_KEEP;
	free(m->model);
	free(m->def);
	sha256_hex(prompt, strlen(prompt), m->key);
	m->model = xstrdup(model);
	m->def = def != NULL ? xstrdup(def) : NULL;
}

const char *
grant_model(const struct grants *g, const char *prompt, const char **def)
{
	char hex[65];
	size_t i;

	*def = NULL;
	if (g == NULL || prompt == NULL)
		return NULL;
	sha256_hex(prompt, strlen(prompt), hex);
	for (i = 0; i < GRANT_KEEP; i++)
		if (g->models[i].model != NULL && strcmp(g->models[i].key, hex) == 0) {
			*def = g->models[i].def;
			return g->models[i].model;
		}
	return NULL;
}

void
grant_for_turn(struct grants *g, int turn, struct perm_rules *rules)
{
	grant_put(g, "", turn, rules);
}

bool
grant_allows(const struct grants *g, const struct config *cfg, int turn, const char *prompt,
    const char *tool, enum tool_class cls, const cJSON *input)
{
	struct perm_rules *r;
	bool yes = false;
	char hex[65] = "";
	size_t i;

	if (g == NULL)
		return false;
	if (prompt != NULL)
		sha256_hex(prompt, strlen(prompt), hex);
	for (i = 0; i < GRANT_KEEP && !yes; i++) {
		const struct grant *s = &g->v[i];

		if (s->rules == NULL || (s->key[0] != '\0' ? strcmp(s->key, hex) != 0 : s->turn != turn))
			continue;
		r = perm_rules_dup(s->rules);
		perm_rules_merge_list(r, cfg->rules, PERM_LIST_ASK);
		perm_rules_merge_list(r, cfg->rules, PERM_LIST_DENY);
		yes = perm_check(r, PERM_ASK, tool, cls, input, NULL) == PERM_VERDICT_ALLOW;
		perm_rules_free(r);
	}
	return yes;
}
