/* The hooks the event stream starts, not waited for: see hooks.h (hooks_attach). */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "buf.h"
#include "config/config.h"
#include "hooks.h"
#include "hooks/hooks_int.h"
#include "json.h"
#include "rules/perm.h"
#include "xalloc.h"

/* Run ev's hooks for fields (taken) without waiting: their warnings are said on the bus. */
static void
hooks_fire(struct hooks *h, enum hook_event ev, cJSON *fields)
{
	const char *subject = json_str(fields, hook_events[ev].subject, NULL);

	if (hooks_has(h, ev, subject))
		hooks_run(h, ev, fields, hooks_notified, h);
	cJSON_Delete(fields);
}

/* A call the bus named, for the events that follow it (PermissionDenied). */
static void
hooks_remember_call(struct hooks *h, const cJSON *ev)
{
	const char *id = json_str(ev, "id", NULL);
	cJSON *c;

	if (id == NULL)
		return;
	if (h->calls == NULL)
		h->calls = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(h->calls, id);
	c = cJSON_AddObjectToObject(h->calls, id);
	cJSON_AddStringToObject(c, "name", json_str(ev, "name", ""));
	cJSON_AddItemToObject(c, "input", json_get(ev, "input") != NULL ?
	    cJSON_Duplicate(json_get(ev, "input"), true) : cJSON_CreateObject());
}

/* A rule or the mode refused a call: Claude Code's PermissionDenied. */
static void
hooks_denied(struct hooks *h, const cJSON *ev)
{
	const char *by = json_str(ev, "by", ""), *id = json_str(ev, "id", "");
	const cJSON *c = json_get(h->calls, id);
	cJSON *f;

	if (strcmp(json_str(ev, "decision", ""), "deny") != 0 || c == NULL ||
	    (strcmp(by, "rule") != 0 && strcmp(by, "mode") != 0))
		return;
	f = hooks_tool_fields(id, json_str(c, "name", ""), json_get(c, "input"), PERM_ASK);
	cJSON_DeleteItemFromObjectCaseSensitive(f, "permission_mode");
	cJSON_AddStringToObject(f, "reason", strcmp(by, "rule") == 0 ?
	    "denied by a permission rule" : "denied by the permission mode (nobody to ask, or plan mode)");
	hooks_fire(h, HOOK_PERMISSION_DENIED, f);
}

/* Claude Code's error kinds of StopFailure, from the error's sentence. */
static const char *
hooks_error_kind(const char *msg)
{
	static const struct { const char *word, *kind; } kinds[] = {
		{ "429", "rate_limit" }, { "rate limit", "rate_limit" }, { "overloaded", "rate_limit" },
		{ "401", "authentication_failed" }, { "403", "authentication_failed" },
		{ "API key", "authentication_failed" }, { "credit", "billing_error" },
		{ "400", "invalid_request" }, { "413", "invalid_request" },
		{ "500", "server_error" }, { "502", "server_error" }, { "503", "server_error" },
		{ "529", "server_error" }, { "max_tokens", "max_output_tokens" },
	};
	size_t i;

	for (i = 0; msg != NULL && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strstr(msg, kinds[i].word) != NULL)
			return kinds[i].kind;
	return "unknown";
}

static void
hooks_turn_failed(struct hooks *h, const cJSON *ev)
{
	cJSON *f;

	if (json_bool(ev, "is_error", false) &&
	    strcmp(json_str(ev, "stop_reason", ""), "interrupted") != 0) {
		f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "error", hooks_error_kind(h->last_error));
		cJSON_AddStringToObject(f, "error_details", h->last_error != NULL ? h->last_error : "");
		cJSON_AddStringToObject(f, "last_assistant_message", json_str(ev, "text", ""));
		hooks_fire(h, HOOK_STOP_FAILURE, f);
	}
	free(h->last_error);
	h->last_error = NULL;
	cJSON_Delete(h->calls);
	h->calls = NULL;
}

static void
hooks_compacted(struct hooks *h, const cJSON *ev)
{
	cJSON *f = cJSON_CreateObject();

	cJSON_AddStringToObject(f, "trigger", "auto");
	cJSON_AddStringToObject(f, "compact_summary", "");
	cJSON_AddStringToObject(f, "stage", json_str(ev, "stage", ""));
	cJSON_AddNumberToObject(f, "tokens_before", (double)json_int(ev, "tokens_before", 0));
	cJSON_AddNumberToObject(f, "tokens_after", (double)json_int(ev, "tokens_after", 0));
	hooks_fire(h, HOOK_POST_COMPACT, f);
}

/* The memory files a session starts with (context/memory.h reads them), one InstructionsLoaded each. */
static void
hooks_instructions(struct hooks *h)
{
	static const char *const names[] = { "AGENTS.md", "CLAUDE.md", "TANDEM.md" };
	const char *dirs[2] = { h->cfg->config_dir, h->cfg->root };
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	struct stat st;
	size_t d, i;
	cJSON *f;

	if (!hooks_has(h, HOOK_INSTRUCTIONS_LOADED, NULL))
		return;
	for (d = 0; d < 2; d++) {
		for (i = 0; dirs[d] != NULL && i < sizeof names / sizeof names[0]; i++) {
			buf_reset(&path);
			buf_printf(&path, "%s/%s", dirs[d], names[i]);
			if (stat(buf_cstr(&path), &st) == -1 || !S_ISREG(st.st_mode))
				continue;
			f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "file_path", buf_cstr(&path));
			cJSON_AddStringToObject(f, "memory_type", d == 0 ? "User" : "Project");
			cJSON_AddStringToObject(f, "load_reason", "session_start");
			hooks_fire(h, HOOK_INSTRUCTIONS_LOADED, f);
		}
	}
	buf_release(&path);
}

/* The events the bus starts hooks for, besides the Notification ones. */
void
hooks_on_bus(struct hooks *h, const cJSON *event)
{
	const char *type = json_str(event, "type", "");

	if (json_bool(event, "replay", false))
		return;
	if (strcmp(type, "tool_use") == 0 || strcmp(type, "approval_request") == 0) {
		hooks_remember_call(h, event);
	} else if (strcmp(type, "approval") == 0) {
		hooks_denied(h, event);
	} else if (strcmp(type, "compaction") == 0) {
		hooks_compacted(h, event);
	} else if (strcmp(type, "error") == 0 && json_bool(event, "fatal", false)) {
		free(h->last_error);
		h->last_error = xstrdup(json_str(event, "message", ""));
	} else if (strcmp(type, "result") == 0) {
		hooks_turn_failed(h, event);
	} else if (strcmp(type, "session") == 0) {
		hooks_instructions(h);
	}
}
