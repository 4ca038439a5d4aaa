/* Claude Code's settings in tandem's shape: see ccsettings.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "json.h"

#include "claude/ccsettings.h"
#include "claude/notice.h"
#include "config/config_keys.h"

/* Claude Code keys tandem knows by another name. */
static const struct {
	const char	*cc;
	const char	*tandem;
} cc_renames[] = {
	{ "cleanupPeriodDays", "retention_days" },
	{ "permissions.defaultMode", "permissions.mode" },
};

/* Claude Code keys tandem reads and does not honour, and why. */
static const struct {
	const char	*cc;
	const char	*why;
} cc_unhonoured[] = {
	{ "env", "tandem sets no environment variables from settings; export them before it starts" },
	{ "outputStyle", "tandem has no output styles" },
	{ "enabledPlugins", "tandem has no plugins" },
	{ "extraKnownMarketplaces", "tandem has no plugin marketplaces" },
	{ "includeCoAuthoredBy", "tandem adds nothing to commit messages" },
	{ "includeGitInstructions", "tandem's prompt says nothing of commits" },
	{ "forceLoginMethod", "tandem uses an API key or apiKeyHelper, not a Claude login" },
	{ "forceLoginOrgUUID", "tandem uses an API key or apiKeyHelper, not a Claude login" },
	{ "awsAuthRefresh", "tandem does not reach Bedrock" },
	{ "awsCredentialExport", "tandem does not reach Bedrock" },
	{ "otelHeadersHelper", "tandem exports no telemetry" },
	{ "enableAllProjectMcpServers", "a project's .mcp.json servers start only once the project is trusted and each is approved (tandem mcp approve)" },
	{ "enabledMcpjsonServers", "a project's .mcp.json servers start only once the project is trusted and each is approved (tandem mcp approve)" },
	{ "disabledMcpjsonServers", "tandem starts the approved servers only; leave a server unapproved to keep it off" },
	{ "disableAllHooks", "tandem runs the hooks the settings define; remove them to turn them off" },
	{ "permissions.disableBypassPermissionsMode", "tandem's yolo mode is always available; a deny rule still denies in it" },
	{ "spinnerTipsEnabled", "tandem shows no spinner tips" },
	{ "companyAnnouncements", "tandem shows no announcements" },
	{ "language", "tandem's replies follow the prompt's language" },
	{ "sandbox.excludedCommands", "tandem runs every command in the sandbox when it is on" },
	{ "sandbox.allowUnsandboxedCommands", "a command the sandbox refuses is said plainly; you may approve a run outside it" },
	{ "sandbox.network", "tandem's sandbox has no per-domain or per-socket network rules; the network is all or nothing (sandbox.network in tandem's settings)" },
	{ "sandbox.enableWeakerNestedSandbox", "tandem's sandbox has no weaker mode" },
	{ "sandbox.ignoreViolations", "tandem's sandbox ignores no violation" },
};

static const char *
cc_why(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof cc_unhonoured / sizeof cc_unhonoured[0]; i++)
		if (strcmp(cc_unhonoured[i].cc, name) == 0)
			return cc_unhonoured[i].why;
	return NULL;
}

/* Put v at tandem's dotted name in out, creating the groups on the way. */
static void
cc_put(cJSON *out, const char *dotted, const cJSON *v)
{
	char head[128];
	const char *dot = strchr(dotted, '.');
	cJSON *g;

	if (dot == NULL || (size_t)(dot - dotted) >= sizeof head) {
		cJSON_DeleteItemFromObjectCaseSensitive(out, dotted);
		cJSON_AddItemToObject(out, dotted, cJSON_Duplicate(v, true));
		return;
	}
	memcpy(head, dotted, (size_t)(dot - dotted));
	head[dot - dotted] = '\0';
	g = json_get(out, head);
	if (!cJSON_IsObject(g)) {
		cJSON_DeleteItemFromObjectCaseSensitive(out, head);
		g = cJSON_AddObjectToObject(out, head);
	}
	cc_put(g, dot + 1, v);
}

static void
cc_notice(struct notices *n, const char *name, const char *path, const char *why)
{
	notice_add(n, "settings key", name, path,
	    why != NULL ? why : "not a setting tandem knows");
}

/* Claude Code's sandbox group: what maps onto tandem's sandbox settings. */
static void
cc_sandbox(cJSON *out, const cJSON *sb, const char *path, struct notices *n)
{
	struct buf name = BUF_INIT(256);
	const cJSON *m, *f;

	if (!cJSON_IsObject(sb)) {
		cc_notice(n, "sandbox", path, "must be an object");
		return;
	}
	cJSON_ArrayForEach(m, sb) {
		buf_reset(&name);
		buf_printf(&name, "sandbox.%s", m->string);
		if (strcmp(m->string, "enabled") == 0 && cJSON_IsBool(m)) {
			cJSON *mode = cJSON_CreateString(cJSON_IsTrue(m) ? "workspace-write" : "off");

			cc_put(out, "sandbox.mode", mode);
			cJSON_Delete(mode);
		} else if (strcmp(m->string, "autoAllowBashIfSandboxed") == 0 && cJSON_IsBool(m)) {
			cc_put(out, "sandbox.auto_allow", m);
		} else if (strcmp(m->string, "filesystem") == 0 && cJSON_IsObject(m)) {
			cJSON_ArrayForEach(f, m) {
				buf_reset(&name);
				buf_printf(&name, "sandbox.filesystem.%s", f->string);
				if (strcmp(f->string, "allowWrite") == 0)
					cc_put(out, "sandbox.allow_write", f);
				else if (strcmp(f->string, "denyRead") == 0)
					cc_put(out, "sandbox.deny_read", f);
				else
					cc_notice(n, buf_cstr(&name), path, NULL);
			}
		} else {
			cc_notice(n, buf_cstr(&name), path, cc_why(buf_cstr(&name)));
		}
	}
	buf_release(&name);
}

static void
cc_walk(cJSON *out, const cJSON *obj, const char *prefix, const char *path, struct notices *n)
{
	struct buf name = BUF_INIT(BUF_NOLIMIT);
	const char *tandem;
	const cJSON *m;
	size_t i;

	cJSON_ArrayForEach(m, obj) {
		buf_reset(&name);
		if (prefix != NULL)
			buf_printf(&name, "%s.", prefix);
		buf_puts(&name, m->string);
		if (prefix == NULL && strcmp(m->string, "$schema") == 0)
			continue;
		if (prefix == NULL && strcmp(m->string, "sandbox") == 0) {
			cc_sandbox(out, m, path, n);
			continue;
		}
		if (prefix == NULL && strcmp(m->string, "alwaysThinkingEnabled") == 0 && cJSON_IsBool(m)) {
			cJSON *t = cJSON_CreateString(cJSON_IsTrue(m) ? "enabled" : "off");

			cc_put(out, "thinking", t);
			cJSON_Delete(t);
			continue;
		}
		/* "opus", "sonnet": Claude Code's aliases name no model tandem can ask for. */
		if (prefix == NULL && strcmp(m->string, "model") == 0 && cJSON_IsString(m) &&
		    strchr(m->valuestring, '-') == NULL) {
			cc_notice(n, "model", path, "a Claude Code alias, not a model's name; "
			    "set \"model\" in tandem's settings or use --model");
			continue;
		}
		tandem = NULL;
		for (i = 0; i < sizeof cc_renames / sizeof cc_renames[0]; i++)
			if (strcmp(cc_renames[i].cc, buf_cstr(&name)) == 0)
				tandem = cc_renames[i].tandem;
		/* A key tandem has under the same name first: the table below names only the rest. */
		if (tandem != NULL) {
			cc_put(out, tandem, m);
		} else if (strchr(m->string, '.') == NULL && cfg_key_find(buf_cstr(&name), false) != NULL) {
			cc_put(out, buf_cstr(&name), m);
		} else if (cc_why(buf_cstr(&name)) != NULL) {
			cc_notice(n, buf_cstr(&name), path, cc_why(buf_cstr(&name)));
		} else if (strchr(m->string, '.') == NULL && cfg_is_group(buf_cstr(&name)) &&
		    cJSON_IsObject(m)) {
			cc_walk(out, m, buf_cstr(&name), path, n);
		} else {
			cc_notice(n, buf_cstr(&name), path, NULL);
		}
	}
	buf_release(&name);
}

cJSON *
ccsettings_translate(const cJSON *cc, const char *path, struct notices *notices)
{
	cJSON *out = cJSON_CreateObject();

	cc_walk(out, cc, NULL, path, notices);
	return out;
}
