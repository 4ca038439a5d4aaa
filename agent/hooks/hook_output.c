/* What a finished hook said, as Claude Code reads it: see hooks/hooks_int.h. */
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

#define HOOK_SHOW_MAX	60	/* a command is named in warnings up to this many bytes */

/* A command as warnings name it: its first line, shortened. */
static void
hooks_show(const char *cmd, struct buf *out)
{
	size_t n = strcspn(cmd, "\n");

	if (n > HOOK_SHOW_MAX)
		buf_printf(out, "%.*s...", HOOK_SHOW_MAX, cmd);
	else
		buf_printf(out, "%.*s%s", (int)n, cmd, cmd[n] != '\0' ? " ..." : "");
}

/* --- the outcome --------------------------------------------------------- */

void
hook_outcome_release(struct hook_outcome *o)
{
	free(o->reason);
	cJSON_Delete(o->updated_input);
	free(o->additional_context);
	free(o->system_message);
	free(o->stop_reason);
	free(o->warnings);
	memset(o, 0, sizeof *o);
}

/* A rewritten input back in tandem's terms: Claude Code's file_path becomes path. */
static cJSON *
hooks_updated_input(const struct hook_run *run, const cJSON *u)
{
	cJSON *in = cJSON_Duplicate(u, true), *fp = json_get(in, "file_path");
	const char *root = run->h->cfg->root, *v;
	size_t rl = strlen(root);

	if (run->sent_file_path == NULL || !cJSON_IsString(fp))
		return in;
	if (strcmp(fp->valuestring, run->sent_file_path) != 0 || json_get(in, "path") == NULL) {
		v = fp->valuestring;
		if (strncmp(v, root, rl) == 0 && v[rl] == '/' && v[rl + 1] != '\0')
			v += rl + 1;
		cJSON_DeleteItemFromObjectCaseSensitive(in, "path");
		cJSON_AddStringToObject(in, "path", v);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(in, "file_path");
	return in;
}

static void
hooks_set_decision(struct hook_outcome *one, enum hook_decision d, const char *reason)
{
	one->decision = d;
	free(one->reason);
	one->reason = reason != NULL && reason[0] != '\0' ? xstrdup(reason) : NULL;
}

/* PreToolUse: permissionDecision (top level or hookSpecificOutput), else the older decision. */
static void
hooks_read_pre(const struct hook_run *run, const cJSON *j, const cJSON *hso, const char *cmd,
    struct hook_outcome *one)
{
	const char *pd = json_str(hso, "permissionDecision", json_str(j, "permissionDecision", NULL));
	const char *d = json_str(j, "decision", NULL);
	const char *why = json_str(hso, "permissionDecisionReason",
	    json_str(j, "permissionDecisionReason", json_str(j, "reason", NULL)));
	const cJSON *u = json_get(hso, "updatedInput");
	const char *v = pd != NULL ? pd : d;

	if (u == NULL)
		u = json_get(j, "updatedInput");
	if (v != NULL && (strcmp(v, "allow") == 0 || strcmp(v, "approve") == 0))
		hooks_set_decision(one, HOOK_ALLOW, why);
	else if (v != NULL && strcmp(v, "ask") == 0)
		hooks_set_decision(one, HOOK_ASK, why);
	else if (v != NULL && (strcmp(v, "deny") == 0 || strcmp(v, "block") == 0))
		hooks_set_decision(one, HOOK_DENY, why);
	else if (v != NULL)
		hooks_warn(one, "hook `%s`: unknown decision \"%s\" (ignored)", cmd, v);
	if (cJSON_IsObject(u))
		one->updated_input = hooks_updated_input(run, u);
	else if (u != NULL && !cJSON_IsNull(u))
		hooks_warn(one, "hook `%s`: \"updatedInput\" must be an object (ignored)", cmd);
}

/* PermissionRequest: hookSpecificOutput.decision {behavior allow|deny, updatedInput, message}. */
static void
hooks_read_permission(const struct hook_run *run, const cJSON *d, const char *cmd,
    struct hook_outcome *one)
{
	const char *b = json_str(d, "behavior", NULL);
	const cJSON *u = json_get(d, "updatedInput");

	if (d == NULL)
		return;
	if (b != NULL && strcmp(b, "allow") == 0)
		hooks_set_decision(one, HOOK_ALLOW, json_str(d, "message", NULL));
	else if (b != NULL && strcmp(b, "deny") == 0)
		hooks_set_decision(one, HOOK_DENY, json_str(d, "message", NULL));
	else
		hooks_warn(one, "hook `%s`: decision.behavior must be \"allow\" or \"deny\" (ignored)", cmd);
	if (cJSON_IsObject(u) && one->decision == HOOK_ALLOW)
		one->updated_input = hooks_updated_input(run, u);
}

static void
hooks_read_json(const struct hook_run *run, const cJSON *j, const char *cmd,
    struct hook_outcome *one)
{
	const cJSON *hso = json_get(j, "hookSpecificOutput");
	const char *ctx, *d;

	if (!cJSON_IsObject(hso))
		hso = NULL;
	if (cJSON_IsFalse(json_get(j, "continue"))) {
		one->stop = true;
		if (json_str(j, "stopReason", NULL) != NULL)
			one->stop_reason = xstrdup(json_str(j, "stopReason", ""));
	}
	if (json_str(j, "systemMessage", NULL) != NULL)
		one->system_message = xstrdup(json_str(j, "systemMessage", ""));
	ctx = json_str(hso, "additionalContext", json_str(j, "additionalContext", NULL));
	if (ctx != NULL && ctx[0] != '\0')
		one->additional_context = xstrdup(ctx);
	if (run->ev == HOOK_PRE_TOOL_USE) {
		hooks_read_pre(run, j, hso, cmd, one);
		return;
	}
	if (run->ev == HOOK_PERMISSION_REQUEST && hso != NULL) {
		hooks_read_permission(run, json_get(hso, "decision"), cmd, one);
		return;
	}
	d = json_str(j, "decision", NULL);
	if (d == NULL || strcmp(d, "approve") == 0 || strcmp(d, "allow") == 0)
		return;
	if (strcmp(d, "block") != 0)
		hooks_warn(one, "hook `%s`: unknown decision \"%s\" (ignored)", cmd, d);
	else if (hook_events[run->ev].can_block)
		hooks_set_decision(one, HOOK_BLOCK, json_str(j, "reason", NULL));
}

/* Exit 0: stdout is JSON, or plain text (context for the events that take it). */
static void
hooks_read_stdout(const struct hook_run *run, const struct hook_proc *p, const char *cmd,
    struct hook_outcome *one)
{
	char *text = hooks_trim(p->out.data != NULL ? p->out.data : "", p->out.len);
	cJSON *j;

	if (p->out_over)
		hooks_warn(one, "hook `%s` printed more than %u bytes (ignored)", cmd, HOOK_OUT_MAX);
	else if (text[0] == '{') {
		j = cJSON_Parse(text);
		if (!cJSON_IsObject(j))
			hooks_warn(one, "hook `%s` printed malformed JSON (ignored)", cmd);
		else
			hooks_read_json(run, j, cmd, one);
		cJSON_Delete(j);
	} else if (text[0] != '\0' && (run->ev == HOOK_USER_PROMPT_SUBMIT ||
	    run->ev == HOOK_SESSION_START)) {
		one->additional_context = text;
		text = NULL;
	}
	free(text);
}

/* Exit 2: block with stderr as the reason, where the event can be blocked. */
static void
hooks_read_block(const struct hook_run *run, const struct hook_proc *p, const char *cmd,
    struct hook_outcome *one)
{
	char *why = hooks_trim(p->err.data != NULL ? p->err.data : "", p->err.len);

	if (!hook_events[run->ev].can_block)
		hooks_warn(one, "hook `%s` exited 2, but %s cannot be blocked%s%s", cmd,
		    hook_events[run->ev].name, why[0] != '\0' ? ": " : "", why);
	else
		hooks_set_decision(one, run->ev == HOOK_PRE_TOOL_USE ||
		    run->ev == HOOK_PERMISSION_REQUEST ? HOOK_DENY : HOOK_BLOCK, why);
	free(why);
}

/* A prompt hook's model said {"ok": false, "reason"}: the event's way of refusing. */
static void
hooks_read_verdict(const struct hook_run *run, const struct hook_proc *p, const char *cmd,
    struct hook_outcome *one)
{
	char *text = hooks_trim(p->out.data != NULL ? p->out.data : "", p->out.len);
	const char *s = strchr(text, '{'), *e = strrchr(text, '}');
	cJSON *j = s != NULL && e > s ? cJSON_ParseWithLength(s, (size_t)(e - s + 1)) : NULL;
	const cJSON *ok = json_get(j, "ok");

	if (!cJSON_IsBool(ok))
		hooks_warn(one, "prompt hook `%s`: the model did not answer {\"ok\": ...} (ignored)", cmd);
	else if (cJSON_IsFalse(ok) && !hook_events[run->ev].can_block)
		hooks_warn(one, "prompt hook `%s` said no, but %s cannot be blocked", cmd,
		    hook_events[run->ev].name);
	else if (cJSON_IsFalse(ok))
		hooks_set_decision(one, run->ev == HOOK_PRE_TOOL_USE ||
		    run->ev == HOOK_PERMISSION_REQUEST ? HOOK_DENY : HOOK_BLOCK,
		    json_str(j, "reason", NULL));
	cJSON_Delete(j);
	free(text);
}

/* An http hook's answer (2xx: its body as a command's stdout) or a prompt hook's verdict. */
static void
hooks_interpret_remote(const struct hook_run *run, const struct hook_proc *p, const char *cmd,
    struct hook_outcome *one)
{
	const char *what = p->kind == HOOK_KIND_HTTP ? "http" : "prompt";

	if (p->remote_error != NULL)
		hooks_warn(one, "%s hook `%s` failed: %s", what, cmd, p->remote_error);
	else if (p->kind == HOOK_KIND_HTTP && (p->http_status < 200 || p->http_status > 299))
		hooks_warn(one, "http hook `%s` answered HTTP %ld", cmd, p->http_status);
	else if (p->kind == HOOK_KIND_HTTP)
		hooks_read_stdout(run, p, cmd, one);
	else
		hooks_read_verdict(run, p, cmd, one);
}

void
hooks_interpret(const struct hook_run *run, const struct hook_proc *p, struct hook_outcome *one)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT);
	char *first;
	int code;

	hooks_show(p->command, &cmd);
	if (p->kind != HOOK_KIND_COMMAND && p->spawn_error == NULL) {
		hooks_interpret_remote(run, p, buf_cstr(&cmd), one);
	} else if (p->spawn_error != NULL) {
		hooks_warn(one, "hook `%s` could not start: %s", buf_cstr(&cmd), p->spawn_error);
	} else if (p->timed_out) {
		hooks_warn(one, "hook `%s` timed out after %g s and was killed", buf_cstr(&cmd),
		    p->timeout_ms / 1000.0);
	} else if (WIFSIGNALED(p->status)) {
		hooks_warn(one, "hook `%s` was killed by signal %d", buf_cstr(&cmd),
		    WTERMSIG(p->status));
	} else if ((code = WEXITSTATUS(p->status)) == 0) {
		hooks_read_stdout(run, p, buf_cstr(&cmd), one);
	} else if (code == 2) {
		hooks_read_block(run, p, buf_cstr(&cmd), one);
	} else {
		first = hooks_trim(p->err.data != NULL ? p->err.data : "", p->err.len);
		first[strcspn(first, "\n")] = '\0';
		hooks_warn(one, "hook `%s` failed (exit %d)%s%.200s", buf_cstr(&cmd), code,
		    first[0] != '\0' ? ": " : "", first);
		free(first);
	}
	if ((one->decision == HOOK_DENY || one->decision == HOOK_BLOCK) && one->reason == NULL) {
		struct buf r = BUF_INIT(BUF_NOLIMIT);

		buf_printf(&r, "blocked by the hook `%s`", buf_cstr(&cmd));
		one->reason = buf_detach(&r, NULL);
	}
	buf_release(&cmd);
}

/* Fold one hook's answer (taken) into the total. */
void
hooks_merge(struct hook_outcome *all, struct hook_outcome *one)
{
	if (one->decision > all->decision) {
		all->decision = one->decision;
		free(all->reason);
		all->reason = one->reason;
		one->reason = NULL;
	} else if (one->decision == all->decision) {
		hooks_append_line(&all->reason, one->reason);
	}
	if (one->updated_input != NULL) {
		cJSON_Delete(all->updated_input);
		all->updated_input = one->updated_input;
		one->updated_input = NULL;
	}
	hooks_append_line(&all->additional_context, one->additional_context);
	hooks_append_line(&all->system_message, one->system_message);
	hooks_append_line(&all->warnings, one->warnings);
	if (one->stop && !all->stop) {
		all->stop = true;
		all->stop_reason = one->stop_reason;
		one->stop_reason = NULL;
	}
	all->nhooks++;
	hook_outcome_release(one);
}
