/* Claude Code's flags: see ccflags.h. */
#include "autoconf.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ccflags.h"
#include "config/config.h"
#include "xalloc.h"

enum cc_what {
	CC_IGNORE,
	CC_INPUT_FORMAT,
	CC_PARTIAL,
	CC_PROMPT_TOOL,
	CC_SYSTEM_PROMPT,
	CC_APPEND_PROMPT,
	CC_ALLOWED,
	CC_DISALLOWED,
	CC_THINKING,
	CC_THINKING_TOKENS,
	CC_FORK,
	CC_YOLO,
	CC_SOURCES,
	CC_BUDGET,
	CC_SCHEMA
};

static const struct cc_flag {
	const char	*name;
	bool		 arg;
	enum cc_what	 what;
} cc_flags[] = {
	{ "input-format",			true,	CC_INPUT_FORMAT },
	{ "include-partial-messages",		false,	CC_PARTIAL },
	{ "permission-prompt-tool",		true,	CC_PROMPT_TOOL },
	{ "system-prompt",			true,	CC_SYSTEM_PROMPT },
	{ "append-system-prompt",		true,	CC_APPEND_PROMPT },
	{ "allowedTools",			true,	CC_ALLOWED },
	{ "allowed-tools",			true,	CC_ALLOWED },
	{ "disallowedTools",			true,	CC_DISALLOWED },
	{ "disallowed-tools",			true,	CC_DISALLOWED },
	{ "thinking",				true,	CC_THINKING },
	{ "max-thinking-tokens",		true,	CC_THINKING_TOKENS },
	{ "fork-session",			false,	CC_FORK },
	{ "dangerously-skip-permissions",	false,	CC_YOLO },
	{ "max-budget-usd",			true,	CC_BUDGET },
	{ "json-schema",			true,	CC_SCHEMA },
	/* Accepted, and ignored (tandem(1) says why). */
	{ "verbose",				false,	CC_IGNORE },
	{ "setting-sources",			true,	CC_SOURCES },
	{ "debug",				false,	CC_IGNORE },
	{ "debug-file",				true,	CC_IGNORE },
	{ "strict-mcp-config",			false,	CC_IGNORE },
	{ "include-hook-events",		false,	CC_IGNORE },
	{ "allow-dangerously-skip-permissions",	false,	CC_IGNORE },
	{ "await-initialize",			false,	CC_IGNORE },
	{ "session-mirror",			false,	CC_IGNORE },
	{ "no-session-persistence",		false,	CC_IGNORE },
	{ "managed-settings-in-initialize",	false,	CC_IGNORE },
	{ "thinking-display",			true,	CC_IGNORE },
	{ "task-budget",			true,	CC_IGNORE },
	{ "fallback-model",			true,	CC_IGNORE },
	{ "agent",				true,	CC_IGNORE },
	{ "agents",				true,	CC_IGNORE },
	{ "betas",				true,	CC_IGNORE },
	{ "permission-prompts",			true,	CC_IGNORE },
	{ "channels",				true,	CC_IGNORE },
	{ "tools",				true,	CC_IGNORE },
	{ "project-config-root",		true,	CC_IGNORE },
	{ "plugin-dir",				true,	CC_IGNORE },
	{ "plugin-dir-no-mcp",			true,	CC_IGNORE },
	{ "resume-session-at",			true,	CC_IGNORE },
	{ "resume-drops-turn",			true,	CC_IGNORE },
	{ "session-id",				true,	CC_IGNORE },
	{ "initialize-fields",			true,	CC_IGNORE },
	{ "managed-settings",			true,	CC_IGNORE },
	{ "settings",				true,	CC_IGNORE },
};

static const struct cc_flag *
cc_find(const char *arg, const char **value)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq != NULL ? (size_t)(eq - arg) : strlen(arg), i;

	*value = eq != NULL ? eq + 1 : NULL;
	for (i = 0; i < sizeof cc_flags / sizeof cc_flags[0]; i++)
		if (strlen(cc_flags[i].name) == n && strncmp(cc_flags[i].name, arg, n) == 0)
			return &cc_flags[i];
	return NULL;
}

static int
cc_set(struct ccflags *cc, const struct cc_flag *f, const char *v, struct buf *err)
{
	switch (f->what) {
	case CC_INPUT_FORMAT:
		if (strcmp(v, "stream-json") == 0)
			cc->input_stream = true;
		else if (strcmp(v, "text") != 0)
			return buf_printf(err, "--input-format must be text or stream-json, not \"%s\"", v), -1;
		break;
	case CC_PROMPT_TOOL:
		if (strcmp(v, "stdio") != 0)
			return buf_printf(err, "--permission-prompt-tool: tandem asks the host for "
			    "approvals over stdio only (--permission-prompt-tool stdio), not through "
			    "\"%s\"", v), -1;
		cc->host_permissions = true;
		break;
	case CC_PARTIAL:	cc->partial = true; break;
	case CC_SYSTEM_PROMPT:	cc->system_prompt = v; break;
	case CC_APPEND_PROMPT:	cc->append_system_prompt = v; break;
	case CC_ALLOWED:	cc->allowed = v; break;
	case CC_DISALLOWED:	cc->disallowed = v; break;
	case CC_THINKING:	cc->thinking = v; break;
	case CC_THINKING_TOKENS: cc->thinking_tokens = v; break;
	case CC_FORK:		cc->fork = true; break;
	case CC_YOLO:		cc->yolo = true; break;
	case CC_SOURCES:	cc->setting_sources = v; break;
	case CC_BUDGET:	cc->max_budget_usd = v; break;
	case CC_SCHEMA:	cc->json_schema = v; break;
	case CC_IGNORE:		break;
	}
	return 0;
}

int
ccflags_take(int *argc, char **argv, struct ccflags *cc, struct buf *err)
{
	int i, out = 1;

	memset(cc, 0, sizeof *cc);
	for (i = 1; i < *argc; i++) {
		const struct cc_flag *f;
		const char *v;

		if (strcmp(argv[i], "--") == 0) {
			/* What follows is not options: keep it all. */
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		f = strncmp(argv[i], "--", 2) == 0 ? cc_find(argv[i] + 2, &v) : NULL;
		if (f == NULL) {
			argv[out++] = argv[i];
			continue;
		}
		if (f->arg && v == NULL) {
			if (i + 1 >= *argc) {
				buf_printf(err, "--%s needs a value", f->name);
				return -1;
			}
			v = argv[++i];
		} else if (!f->arg && v != NULL) {
			buf_printf(err, "--%s takes no value", f->name);
			return -1;
		}
		if (cc_set(cc, f, v != NULL ? v : "", err) == -1)
			return -1;
	}
	argv[out] = NULL;
	*argc = out;
	return 0;
}

/* Add each rule of list (split at commas and blanks outside parentheses) to key. */
static int
cc_rules(struct config *cfg, const char *key, const char *list, struct buf *err)
{
	struct buf rule = BUF_INIT(64 * 1024);
	int depth = 0, rc = 0;
	const char *p;

	for (p = list; rc == 0; p++) {
		if (*p == '\0' || (depth == 0 && (*p == ',' || *p == ' ' || *p == '\t'))) {
			if (rule.len > 0 && config_set_flag(cfg, key, buf_cstr(&rule), err) == -1)
				rc = -1;
			buf_reset(&rule);
			if (*p == '\0')
				break;
			continue;
		}
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		buf_putc(&rule, *p);
	}
	buf_release(&rule);
	return rc;
}

/* --setting-sources user,project,local: the settings files not named are left out. */
static int
cc_sources(struct config *cfg, const char *list, struct buf *err)
{
	static const char *const names[] = { "user", "project", "local" };
	const char *p = list;
	unsigned keep = 0;
	size_t i, n;

	while (*p != '\0') {
		n = strcspn(p, ", ");
		if (n > 0) {
			for (i = 0; i < 3; i++)
				if (strlen(names[i]) == n && strncmp(names[i], p, n) == 0)
					break;
			if (i == 3) {
				buf_printf(err, "--setting-sources takes user, project and local, "
				    "not \"%.*s\"", (int)n, p);
				return -1;
			}
			keep |= 1u << i;
		}
		p += n;
		p += strspn(p, ", ");
	}
	cfg->skip_layers = ~keep & 7u;
	return 0;
}

int
ccflags_apply(const struct ccflags *cc, struct config *cfg, struct buf *err)
{
	if (cc->setting_sources != NULL && cc_sources(cfg, cc->setting_sources, err) == -1)
		return -1;
	if (cc->allowed != NULL && cc_rules(cfg, "allow", cc->allowed, err) == -1)
		return -1;
	if (cc->disallowed != NULL && cc_rules(cfg, "deny", cc->disallowed, err) == -1)
		return -1;
	if (cc->yolo && config_set_flag(cfg, "permission-mode", "yolo", err) == -1)
		return -1;
	if (cc->thinking != NULL) {
		const char *t = strcmp(cc->thinking, "disabled") == 0 ? "off" : cc->thinking;

		if (config_set_flag(cfg, "thinking", t, err) == -1)
			return -1;
	}
	if (cc->thinking_tokens != NULL) {
		if (config_set_flag(cfg, "thinking-budget", cc->thinking_tokens, err) == -1 ||
		    (cc->thinking == NULL && config_set_flag(cfg, "thinking", "enabled", err) == -1))
			return -1;
	}
	return 0;
}

char *
ccflags_host_prompt(const struct ccflags *cc)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (cc->system_prompt != NULL && cc->system_prompt[0] != '\0')
		buf_puts(&b, cc->system_prompt);
	if (cc->append_system_prompt != NULL && cc->append_system_prompt[0] != '\0')
		buf_printf(&b, "%s%s", b.len > 0 ? "\n\n" : "", cc->append_system_prompt);
	if (b.len == 0)
		return NULL;
	return buf_detach(&b, NULL);
}
