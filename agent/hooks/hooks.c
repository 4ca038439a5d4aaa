/* Hooks: user commands that see session events as JSON: see hooks.h. */
#include "autoconf.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcre2.h>

#include "buf.h"
#include "config/config.h"
#include "ev.h"
#include "event.h"
#include "file.h"
#include "hooks.h"
#include "cctranscript.h"
#include "hooks_int.h"
#include "json.h"
#include "model/http.h"
#include "rules/perm.h"
#include "proc.h"
#include "redact.h"
#include "tool.h"
#include "toolnames.h"
#include "xalloc.h"

#define HOOK_LINGER_MS	200		/* after exit, how long a leftover child may hold the pipes */

const struct hook_event_def hook_events[HOOK_NEVENTS] = {
	[HOOK_SESSION_START] =		{ "SessionStart", "source", false },
	[HOOK_USER_PROMPT_SUBMIT] =	{ "UserPromptSubmit", NULL, true },
	[HOOK_PRE_TOOL_USE] =		{ "PreToolUse", "tool_name", true },
	[HOOK_POST_TOOL_USE] =		{ "PostToolUse", "tool_name", true },
	[HOOK_STOP] =			{ "Stop", NULL, true },
	[HOOK_PRE_COMPACT] =		{ "PreCompact", "trigger", false },
	[HOOK_SESSION_END] =		{ "SessionEnd", "reason", false },
	[HOOK_NOTIFICATION] =		{ "Notification", "notification_type", false },
	[HOOK_POST_TOOL_USE_FAILURE] =	{ "PostToolUseFailure", "tool_name", true },
	[HOOK_PERMISSION_REQUEST] =	{ "PermissionRequest", "tool_name", true },
	[HOOK_PERMISSION_DENIED] =	{ "PermissionDenied", "tool_name", false },
	[HOOK_POST_COMPACT] =		{ "PostCompact", "trigger", false },
	[HOOK_STOP_FAILURE] =		{ "StopFailure", "error", false },
	[HOOK_INSTRUCTIONS_LOADED] =	{ "InstructionsLoaded", "load_reason", false },
	[HOOK_SUBAGENT_START] =		{ "SubagentStart", "agent_type", false },
	[HOOK_SUBAGENT_STOP] =		{ "SubagentStop", "agent_type", true },
};

bool
hooks_is_tool_event(enum hook_event ev)
{
	return ev == HOOK_PRE_TOOL_USE || ev == HOOK_POST_TOOL_USE ||
	    ev == HOOK_POST_TOOL_USE_FAILURE || ev == HOOK_PERMISSION_REQUEST ||
	    ev == HOOK_PERMISSION_DENIED;
}

static const struct hook_kind_def {
	const char	*type;
	const char	*key;		/* the member that says what runs */
} hook_kinds[HOOK_NKINDS] = {
	[HOOK_KIND_COMMAND] =	{ "command", "command" },
	[HOOK_KIND_HTTP] =	{ "http", "url" },
	[HOOK_KIND_PROMPT] =	{ "prompt", "prompt" },
};
/* tandem's file tools whose Claude Code counterparts name the file "file_path". */
static const char *const hook_file_tools[] = { "read_file", "edit_file", "write_file", NULL };

const char *
hooks_event_name(enum hook_event ev)
{
	return (unsigned)ev < HOOK_NEVENTS ? hook_events[ev].name : "?";
}

int
hooks_event_parse(const char *name)
{
	int i;

	for (i = 0; name != NULL && i < HOOK_NEVENTS; i++)
		if (strcmp(hook_events[i].name, name) == 0)
			return i;
	return -1;
}

const char *
hooks_mode_name(enum perm_mode mode)
{
	switch (mode) {
	case PERM_ACCEPT_EDITS:
		return "acceptEdits";
	case PERM_PLAN:
		return "plan";
	case PERM_YOLO:
		return "bypassPermissions";
	case PERM_ASK:
		break;
	}
	return "default";
}

void
hooks_append_line(char **dst, const char *line)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (line == NULL || line[0] == '\0')
		return;
	if (*dst != NULL)
		buf_printf(&b, "%s\n", *dst);
	buf_puts(&b, line);
	free(*dst);
	*dst = buf_detach(&b, NULL);
}

void
hooks_warn(struct hook_outcome *o, const char *fmt, ...)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	hooks_append_line(&o->warnings, buf_cstr(&b));
	buf_release(&b);
}

char *
hooks_trim(const char *s, size_t n)
{
	while (n > 0 && strchr(" \t\r\n", s[0]) != NULL) {
		s++;
		n--;
	}
	while (n > 0 && strchr(" \t\r\n", s[n - 1]) != NULL)
		n--;
	return xmemdup(s, n);
}

/* --- matching ------------------------------------------------------------ */

static bool
hooks_regex_full(pcre2_code *re, const char *s)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc;

	rc = pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED,
	    md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

static pcre2_code *
hooks_compile(const char *pattern, struct buf *why)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	pcre2_code *re;
	int code;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (re == NULL && why != NULL) {
		pcre2_get_error_message(code, msg, sizeof msg);
		buf_printf(why, "%s at offset %zu", (const char *)msg, (size_t)off);
	}
	return re;
}

/*
 * Does entry's matcher take subject?  A tool is matched by its tandem
 * name and by each Claude Code alias of it.
 */
static bool
hooks_matches(const cJSON *entry, enum hook_event ev, const char *subject)
{
	const cJSON *m = json_get(entry, "matcher");
	const char *canon, *cc;
	size_t i = 0;
	pcre2_code *re;
	bool yes;

	if (hook_events[ev].subject == NULL || m == NULL || cJSON_IsNull(m))
		return true;
	if (!cJSON_IsString(m))
		return false;
	if (m->valuestring[0] == '\0' || strcmp(m->valuestring, "*") == 0 || subject == NULL)
		return true;
	if ((re = hooks_compile(m->valuestring, NULL)) == NULL)
		return false;
	if (!hooks_is_tool_event(ev)) {
		yes = hooks_regex_full(re, subject);
	} else {
		canon = toolname_tandem(subject);
		yes = hooks_regex_full(re, canon);
		while (!yes && (cc = toolname_cc_next(canon, &i)) != NULL)
			yes = hooks_regex_full(re, cc);
	}
	pcre2_code_free(re);
	return yes;
}

/* A hook's type (-1: none tandem runs). */
static int
hooks_kind_of(const cJSON *hook)
{
	const char *type = json_str(hook, "type", "command");
	int k;

	for (k = 0; k < HOOK_NKINDS; k++)
		if (strcmp(hook_kinds[k].type, type) == 0)
			return k;
	return -1;
}

/*
 * What a hook object that can run runs: {"type": "command" (or none),
 * "command"}, {"type": "http", "url"}, {"type": "prompt", "prompt"}.
 */
static const char *
hooks_command_of(const cJSON *hook)
{
	int k = cJSON_IsObject(hook) ? hooks_kind_of(hook) : -1;
	const char *what = k >= 0 ? json_str(hook, hook_kinds[k].key, "") : "";

	return what[0] != '\0' ? what : NULL;
}

/*
 * Claude Code's "if": a permission rule ("Bash(git *)") the call must
 * match, read by the same matcher as tandem's rules.  Only tool events
 * have a call; on other events a hook with an "if" never runs.  Without
 * the call (hooks_has) it is taken to hold.
 */
static bool
hooks_if_holds(const struct hooks *h, const cJSON *hook, enum hook_event ev, const cJSON *fields)
{
	const char *rule = json_str(hook, "if", NULL);
	struct perm_rules *r;
	bool yes;

	if (rule == NULL)
		return true;
	if (!hooks_is_tool_event(ev))
		return false;
	if (fields == NULL)
		return true;
	r = perm_rules_new();
	perm_rules_set_root(r, h->cfg->root);
	yes = perm_rules_add(r, PERM_LIST_DENY, rule, NULL) == 0 &&
	    perm_check(r, PERM_ASK, toolname_tandem(json_str(fields, "tool_name", "")),
	    TOOL_READ_ONLY, json_get(fields, "tool_input"), NULL) == PERM_VERDICT_DENY;
	perm_rules_free(r);
	return yes;
}

static int
hooks_timeout_ms(const cJSON *hook)
{
	const cJSON *t = json_get(hook, "timeout");
	double s = HOOK_TIMEOUT_DEFAULT_S;

	if (cJSON_IsNumber(t) && t->valuedouble > 0)
		s = t->valuedouble;
	if (s > HOOK_TIMEOUT_MAX_S)
		s = HOOK_TIMEOUT_MAX_S;
	return s * 1000 < 1 ? 1 : (int)(s * 1000);
}

/* Is an "if" a rule tandem can read?  If not, why. */
static bool
hooks_if_valid(const cJSON *v, struct buf *why)
{
	struct perm_rules *r;
	int rc;

	buf_reset(why);
	if (!cJSON_IsString(v)) {
		buf_puts(why, "must be a permission rule such as \"Bash(git *)\"");
		return false;
	}
	r = perm_rules_new();
	rc = perm_rules_add(r, PERM_LIST_DENY, v->valuestring, why);
	perm_rules_free(r);
	return rc == 0;
}

static void
hooks_validate_entry(const char *event, int i, const cJSON *entry, struct buf *w)
{
	const cJSON *m = json_get(entry, "matcher"), *list = json_get(entry, "hooks"), *hk;
	struct buf why = BUF_INIT(1024);
	pcre2_code *re;
	int j = 0;

	if (m != NULL && !cJSON_IsNull(m) && !cJSON_IsString(m))
		buf_printf(w, "hooks.%s[%d]: \"matcher\" must be a string; this entry never runs\n",
		    event, i);
	else if (cJSON_IsString(m) && m->valuestring[0] != '\0' && strcmp(m->valuestring, "*") != 0) {
		re = hooks_compile(m->valuestring, &why);
		if (re == NULL)
			buf_printf(w, "hooks.%s[%d]: the matcher \"%s\" is not a valid regular "
			    "expression (%s); this entry never runs\n", event, i, m->valuestring,
			    buf_cstr(&why));
		pcre2_code_free(re);
	}
	buf_release(&why);
	if (!cJSON_IsArray(list)) {
		buf_printf(w, "hooks.%s[%d]: \"hooks\" must be an array of hooks; this entry never runs\n",
		    event, i);
		return;
	}
	buf_init(&why, 1024);
	cJSON_ArrayForEach(hk, list) {
		const cJSON *t = json_get(hk, "timeout");

		if (!cJSON_IsObject(hk))
			buf_printf(w, "hooks.%s[%d].hooks[%d]: a hook must be an object\n", event, i, j);
		else if (hooks_kind_of(hk) < 0)
			;	/* a notice names it (hooks_unhonoured) */
		else if (hooks_command_of(hk) == NULL)
			buf_printf(w, "hooks.%s[%d].hooks[%d]: \"%s\" must be a non-empty string\n",
			    event, i, j, hook_kinds[hooks_kind_of(hk)].key);
		else if (json_get(hk, "if") != NULL && !hooks_is_tool_event(hooks_event_parse(event)))
			buf_printf(w, "hooks.%s[%d].hooks[%d]: \"if\" applies to tool events only; "
			    "this hook never runs\n", event, i, j);
		else if (json_get(hk, "if") != NULL && !hooks_if_valid(json_get(hk, "if"), &why))
			buf_printf(w, "hooks.%s[%d].hooks[%d]: \"if\": %s; this hook never runs\n",
			    event, i, j, buf_cstr(&why));
		else if (t != NULL && (!cJSON_IsNumber(t) || t->valuedouble <= 0))
			buf_printf(w, "hooks.%s[%d].hooks[%d]: \"timeout\" must be a number of seconds "
			    "above 0; using %d\n", event, i, j, HOOK_TIMEOUT_DEFAULT_S);
		j++;
	}
	buf_release(&why);
}

/* Claude Code's events tandem has no moment for, and why. */
static const struct {
	const char	*name;
	const char	*why;
} hook_absent_events[] = {
	{ "Setup", "tandem has no setup or maintenance run" },
	{ "TaskCreated", "tandem has no agent teams or shared task list" },
	{ "TaskCompleted", "tandem has no agent teams or shared task list" },
	{ "TeammateIdle", "tandem has no agent teams" },
	{ "ConfigChange", "tandem reads its settings once, when it starts" },
	{ "CwdChanged", "tandem's working directory is the project root and never changes" },
	{ "FileChanged", "tandem watches no files for hooks" },
	{ "WorktreeCreate", "tandem makes no git worktrees" },
	{ "WorktreeRemove", "tandem makes no git worktrees" },
	{ "Elicitation", "tandem's MCP client asks no elicitation of the user" },
	{ "ElicitationResult", "tandem's MCP client asks no elicitation of the user" },
};

/* Handler fields of Claude Code's that tandem reads past, and why. */
static const struct {
	const char	*name;
	const char	*why;
} hook_absent_fields[] = {
	{ "async", "tandem waits for every hook; none runs in the background" },
	{ "asyncRewake", "tandem waits for every hook; none runs in the background" },
	{ "once", "tandem runs a hook every time its event comes" },
	{ "statusMessage", "tandem shows no message while a hook runs" },
	{ "shell", "tandem runs command hooks with bash" },
};

static const char *
hooks_absent_why(const char *event)
{
	size_t i;

	for (i = 0; i < sizeof hook_absent_events / sizeof hook_absent_events[0]; i++)
		if (strcmp(hook_absent_events[i].name, event) == 0)
			return hook_absent_events[i].why;
	return NULL;
}

void
hooks_unhonoured(const cJSON *hooks, hooks_unhonoured_fn *fn, void *arg)
{
	const cJSON *ev, *entry, *hk, *m;
	const char *why;
	size_t i;

	cJSON_ArrayForEach(ev, hooks) {
		if (hooks_event_parse(ev->string) < 0) {
			why = hooks_absent_why(ev->string);
			fn(arg, "hook event", ev->string, why != NULL ? why :
			    "not an event tandem or Claude Code has");
			continue;
		}
		cJSON_ArrayForEach(entry, ev) {
			cJSON_ArrayForEach(hk, json_get(entry, "hooks")) {
				if (cJSON_IsObject(hk) && hooks_kind_of(hk) < 0)
					fn(arg, "hook type", json_str(hk, "type", "?"),
					    strcmp(json_str(hk, "type", ""), "agent") == 0 ?
					    "tandem has no agent hooks; a prompt hook asks the model" :
					    "tandem runs command, http and prompt hooks");
				for (i = 0; i < sizeof hook_absent_fields / sizeof hook_absent_fields[0]; i++)
					if ((m = json_get(hk, hook_absent_fields[i].name)) != NULL &&
					    !cJSON_IsFalse(m))
						fn(arg, "hook field", hook_absent_fields[i].name,
						    hook_absent_fields[i].why);
			}
		}
	}
}

void
hooks_validate(const cJSON *hooks, struct buf *warnings)
{
	const cJSON *ev, *entry;
	int i;

	cJSON_ArrayForEach(ev, hooks) {
		/* An event tandem has no moment for is a notice (hooks_unhonoured). */
		if (hooks_event_parse(ev->string) < 0)
			continue;
		i = 0;
		cJSON_ArrayForEach(entry, ev)
			hooks_validate_entry(ev->string, i++, entry, warnings);
	}
}

/* Call fn for each hook (each distinct command once) that matches ev and subject. */
static size_t
hooks_each(const struct hooks *h, enum hook_event ev, const char *subject, const cJSON *fields,
    void (*fn)(void *, const cJSON *hook, const char *cmd), void *arg)
{
	const cJSON *entry, *hk, *seen;
	cJSON *cmds = cJSON_CreateArray();
	const char *cmd;
	size_t n = 0;
	bool dup;

	cJSON_ArrayForEach(entry, json_get(h->cfg->hooks, hook_events[ev].name)) {
		if (!cJSON_IsArray(json_get(entry, "hooks")) || !hooks_matches(entry, ev, subject))
			continue;
		cJSON_ArrayForEach(hk, json_get(entry, "hooks")) {
			if ((cmd = hooks_command_of(hk)) == NULL || !hooks_if_holds(h, hk, ev, fields))
				continue;
			/* The same command from two settings files runs once. */
			dup = false;
			cJSON_ArrayForEach(seen, cmds)
				dup = dup || strcmp(seen->valuestring, cmd) == 0;
			if (dup)
				continue;
			cJSON_AddItemToArray(cmds, cJSON_CreateString(cmd));
			if (fn != NULL)
				fn(arg, hk, cmd);
			n++;
		}
	}
	cJSON_Delete(cmds);
	return n;
}

bool
hooks_has(const struct hooks *h, enum hook_event ev, const char *subject)
{
	if (h == NULL || (unsigned)ev >= HOOK_NEVENTS || h->cfg->hooks == NULL)
		return false;
	return hooks_each(h, ev, subject, NULL, NULL, NULL) > 0;
}

/* --- the hook's input ---------------------------------------------------- */

static bool
hooks_is_file_tool(const char *tool)
{
	size_t i;

	for (i = 0; tool != NULL && hook_file_tools[i] != NULL; i++)
		if (strcmp(hook_file_tools[i], tool) == 0)
			return true;
	return false;
}

/* tool_input for a hook: a file tool's also carries Claude Code's absolute file_path. */
static cJSON *
hooks_tool_input(struct hook_run *run, const char *tool, const cJSON *input)
{
	cJSON *in = cJSON_Duplicate(input, true);
	const char *path = json_str(input, "path", NULL);
	struct buf abs = BUF_INIT(BUF_NOLIMIT);

	if (in == NULL)
		in = cJSON_CreateObject();
	if (!hooks_is_file_tool(tool) || path == NULL || !cJSON_IsObject(in) ||
	    json_get(in, "file_path") != NULL)
		return in;
	if (path[0] == '/')
		buf_puts(&abs, path);
	else
		buf_printf(&abs, "%s/%s", run->h->cfg->root, path);
	free(run->sent_file_path);
	run->sent_file_path = buf_detach(&abs, NULL);
	cJSON_AddStringToObject(in, "file_path", run->sent_file_path);
	return in;
}

static cJSON *
hooks_input(struct hook_run *run, const cJSON *fields)
{
	const struct hooks *h = run->h;
	const char *tool = toolname_tandem(json_str(fields, "tool_name", NULL));
	cJSON *in = cJSON_CreateObject();
	const cJSON *f;

	cJSON_AddStringToObject(in, "session_id", h->session_id != NULL ? h->session_id : "");
	cJSON_AddStringToObject(in, "transcript_path",
	    h->transcript_path != NULL ? h->transcript_path : "");
	cJSON_AddStringToObject(in, "cwd", h->cfg->root);
	cJSON_AddStringToObject(in, "hook_event_name", hook_events[run->ev].name);
	cJSON_ArrayForEach(f, fields) {
		if (f->string == NULL || json_get(in, f->string) != NULL)
			continue;
		if (strcmp(f->string, "tool_name") == 0 && tool != NULL) {
			const char *alias = toolname_cc(tool);

			cJSON_AddStringToObject(in, "tool_name", alias != NULL ? alias : tool);
			cJSON_AddStringToObject(in, "tandem_tool_name", tool);
		} else if (strcmp(f->string, "tool_input") == 0) {
			cJSON_AddItemToObject(in, "tool_input", hooks_tool_input(run, tool, f));
		} else {
			cJSON_AddItemToObject(in, f->string, cJSON_Duplicate(f, true));
		}
	}
	return in;
}

/* --- running ------------------------------------------------------------- */

static void hooks_proc_finish(struct hook_proc *);

static void
hooks_kill(struct hook_proc *p)
{
	proc_kill(p->pid, SIGKILL);
}

static void
hooks_close_fd(struct hook_proc *p, int *fd)
{
	if (*fd == -1)
		return;
	ev_io_del(p->run->h->loop, *fd);
	close(*fd);
	*fd = -1;
}

static void
hooks_maybe_finish(struct hook_proc *p)
{
	if (p->exited && p->out_fd == -1 && p->err_fd == -1)
		hooks_proc_finish(p);
}

static void
hooks_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct hook_proc *p = arg;
	bool is_out = fd == p->out_fd;
	struct buf *b = is_out ? &p->out : &p->err;
	char chunk[16384];
	ssize_t n;

	n = read(fd, chunk, sizeof chunk);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		/* Past the cap the rest is read and dropped, so the hook never stalls. */
		if (b->len + (size_t)n <= b->limit)
			buf_append(b, chunk, (size_t)n);
		else if (is_out)
			p->out_over = true;
		return;
	}
	hooks_close_fd(p, is_out ? &p->out_fd : &p->err_fd);
	hooks_maybe_finish(p);
}

static void
hooks_linger_over(struct ev_loop *loop, void *arg)
{
	struct hook_proc *p = arg;

	/* The hook is gone but something it started holds its output: stop waiting. */
	p->timer = 0;
	hooks_kill(p);
	hooks_close_fd(p, &p->out_fd);
	hooks_close_fd(p, &p->err_fd);
	hooks_maybe_finish(p);
}

static void
hooks_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct hook_proc *p = arg;

	proc_forget(pid);
	p->exited = true;
	p->status = status;
	if (p->timer != 0)
		ev_timer_cancel(loop, p->timer);
	p->timer = 0;
	if (p->out_fd != -1 || p->err_fd != -1)
		p->timer = ev_timer_add(loop, p->timed_out ? 0 : HOOK_LINGER_MS, hooks_linger_over, p);
	hooks_maybe_finish(p);
}

static void
hooks_on_timeout(struct ev_loop *loop, void *arg)
{
	struct hook_proc *p = arg;

	p->timer = 0;
	p->timed_out = true;
	hooks_kill(p);
}

static int
hooks_spawn(struct hook_proc *p, const char *input, size_t n, struct buf *err)
{
	struct hooks *h = p->run->h;
	const char *root = h->cfg->root;
	const char *argv[] = { "/bin/bash", "-c", p->command, NULL };
	struct buf dir1 = BUF_INIT(8192), dir2 = BUF_INIT(8192);
	const char *env_set[3];
	struct proc_spec spec = {
		.argv = argv,
		.alt_path = "/bin/sh",
		.dir = root,
		.in = PROC_IO_FD,
		.out = PROC_IO_PIPE,
		.err = PROC_IO_PIPE,
		.redact_env = true,
		.env_set = env_set,
	};
	struct proc c;
	int in, rc;

	if ((in = file_temp(input, n, "tandem-hook", err)) == -1)
		return -1;
	/* Claude Code's hooks find the project through this variable. */
	buf_printf(&dir1, "CLAUDE_PROJECT_DIR=%s", root);
	buf_printf(&dir2, "TANDEM_PROJECT_DIR=%s", root);
	env_set[0] = buf_cstr(&dir1);
	env_set[1] = buf_cstr(&dir2);
	env_set[2] = NULL;
	spec.in_fd = in;
	rc = proc_spawn(&spec, &c, err);
	close(in);
	buf_release(&dir1);
	buf_release(&dir2);
	if (rc == -1)
		return -1;
	p->pid = c.pid;
	p->out_fd = c.out;
	p->err_fd = c.err;
	ev_io_add(h->loop, c.out, POLLIN, hooks_on_read, p);
	ev_io_add(h->loop, c.err, POLLIN, hooks_on_read, p);
	ev_child_add(h->loop, c.pid, hooks_on_exit, p);
	p->timer = ev_timer_add(h->loop, p->timeout_ms, hooks_on_timeout, p);
	return 0;
}

/* An http or prompt hook's answer: as if a command had printed it and exited. */
static void
hooks_remote_done(void *arg, long status, const char *body, size_t n, const char *error)
{
	struct hook_proc *p = arg;

	p->remote = NULL;
	p->http_status = status;
	if (error != NULL)
		p->remote_error = xstrdup(error);
	else if (n <= HOOK_OUT_MAX)
		buf_append(&p->out, body, n);
	else
		p->out_over = true;
	p->exited = true;
	hooks_proc_finish(p);
}

static int
hooks_start_remote(struct hook_proc *p, const char *input, struct buf *err)
{
	struct hooks *h = p->run->h;

	if (h->http == NULL)
		h->http = http_new(h->loop);
	if (p->kind == HOOK_KIND_HTTP)
		p->remote = hook_http_start(h->http, h->cfg, p->hook, input, p->timeout_ms,
		    hooks_remote_done, p, err);
	else
		p->remote = hook_prompt_start(h->http, h->cfg, p->hook, input, p->timeout_ms,
		    hooks_remote_done, p, err);
	return p->remote != NULL ? 0 : -1;
}

static void
hooks_run_unlink(struct hook_run *run)
{
	struct hook_run **pp;

	for (pp = &run->h->runs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == run) {
			*pp = run->next;
			break;
		}
}

/* Forget every child of run (killing what still runs) and free it. */
static void
hooks_run_free(struct hook_run *run)
{
	struct ev_loop *loop = run->h->loop;
	size_t i;

	for (i = 0; i < run->nprocs; i++) {
		struct hook_proc *p = &run->procs[i];

		if (p->pid > 0 && !p->exited) {
			hooks_kill(p);
			ev_child_del(loop, p->pid);
		}
		if (p->timer != 0)
			ev_timer_cancel(loop, p->timer);
		hooks_close_fd(p, &p->out_fd);
		hooks_close_fd(p, &p->err_fd);
		hook_remote_cancel(p->remote);
		cJSON_Delete(p->hook);
		free(p->remote_error);
		buf_release(&p->out);
		buf_release(&p->err);
		free(p->command);
		free(p->spawn_error);
	}
	if (run->deliver_timer != 0)
		ev_timer_cancel(loop, run->deliver_timer);
	if (run->post != NULL)
		free(run->post->id);
	free(run->post);
	free(run->procs);
	free(run->sent_file_path);
	free(run);
}

static void
hooks_deliver(struct hook_run *run)
{
	struct hook_outcome all, one;
	struct hook_post *post;
	hook_done_fn *done = run->done;
	void *arg = run->arg;
	size_t i;

	memset(&all, 0, sizeof all);
	for (i = 0; i < run->nprocs; i++) {
		memset(&one, 0, sizeof one);
		hooks_interpret(run, &run->procs[i], &one);
		hooks_merge(&all, &one);
	}
	/* A refused call or prompt is not rewritten. */
	if (all.decision == HOOK_DENY || all.decision == HOOK_BLOCK) {
		cJSON_Delete(all.updated_input);
		all.updated_input = NULL;
	}
	/* A PostToolUse caller's record outlives the run until its callback returns. */
	post = run->post;
	run->post = NULL;
	hooks_run_unlink(run);
	hooks_run_free(run);
	done(arg, &all);
	hook_outcome_release(&all);
	if (post != NULL) {
		free(post->id);
		free(post);
	}
}

static void
hooks_deliver_now(struct ev_loop *loop, void *arg)
{
	struct hook_run *run = arg;

	run->deliver_timer = 0;
	hooks_deliver(run);
}

static void
hooks_proc_finish(struct hook_proc *p)
{
	struct hook_run *run = p->run;

	if (p->finished)
		return;
	p->finished = true;
	if (p->timer != 0)
		ev_timer_cancel(run->h->loop, p->timer);
	p->timer = 0;
	if (--run->nleft == 0)
		hooks_deliver(run);
}

struct hooks_collect {
	struct hook_run	*run;
	size_t		 n;
};

static void
hooks_add_proc(void *arg, const cJSON *hook, const char *cmd)
{
	struct hooks_collect *c = arg;
	struct hook_proc *p = &c->run->procs[c->n++];

	p->run = c->run;
	p->kind = (enum hook_kind)hooks_kind_of(hook);
	p->hook = cJSON_Duplicate(hook, true);
	p->command = xstrdup(cmd);
	p->timeout_ms = hooks_timeout_ms(hook);
	p->out_fd = p->err_fd = -1;
	buf_init(&p->out, HOOK_OUT_MAX);
	buf_init(&p->err, HOOK_ERR_MAX);
}

struct hook_run *
hooks_run(struct hooks *h, enum hook_event ev, const cJSON *fields, hook_done_fn *done, void *arg)
{
	const char *subject;
	struct hooks_collect c;
	struct hook_run *run;
	char *text;
	size_t n, i;
	cJSON *in;

	if (h == NULL || (unsigned)ev >= HOOK_NEVENTS || h->cfg->hooks == NULL)
		return NULL;
	subject = hook_events[ev].subject != NULL ?
	    json_str(fields, hook_events[ev].subject, NULL) : NULL;
	if ((n = hooks_each(h, ev, subject, fields, NULL, NULL)) == 0)
		return NULL;
	run = xcalloc(1, sizeof *run);
	run->h = h;
	run->ev = ev;
	run->done = done;
	run->arg = arg;
	run->procs = xcalloc(n, sizeof *run->procs);
	c.run = run;
	c.n = 0;
	hooks_each(h, ev, subject, fields, hooks_add_proc, &c);
	run->nprocs = run->nleft = c.n;
	run->next = h->runs;
	h->runs = run;
	in = hooks_input(run, fields);
	text = json_print(in);
	cJSON_Delete(in);
	for (i = 0; i < run->nprocs; i++) {
		struct hook_proc *p = &run->procs[i];
		struct buf err = BUF_INIT(4096);

		if ((p->kind == HOOK_KIND_COMMAND ? hooks_spawn(p, text, strlen(text), &err) :
		    hooks_start_remote(p, text, &err)) == -1) {
			p->spawn_error = buf_detach(&err, NULL);
			p->finished = true;
			run->nleft--;
		}
		buf_release(&err);
	}
	free(text);
	/* The answer always comes on a later turn of the loop, never from here. */
	if (run->nleft == 0)
		run->deliver_timer = ev_timer_add(h->loop, 0, hooks_deliver_now, run);
	return run;
}

void
hooks_cancel(struct hook_run *run)
{
	if (run == NULL)
		return;
	hooks_run_unlink(run);
	hooks_run_free(run);
}

int
hooks_pending(const struct hooks *h)
{
	const struct hook_run *r;
	int n = 0;

	for (r = h != NULL ? h->runs : NULL; r != NULL; r = r->next)
		n++;
	return n;
}

void
hooks_drain(struct hooks *h, int timeout_ms)
{
	int64_t end = ev_now_ms() + timeout_ms, left;

	while (h != NULL && h->runs != NULL && (left = end - ev_now_ms()) > 0)
		ev_run_once(h->loop, (int)left);
	while (h != NULL && h->runs != NULL)
		hooks_cancel(h->runs);
}

/* --- tool calls ---------------------------------------------------------- */

cJSON *
hooks_tool_fields(const char *id, const char *tool, const cJSON *input, enum perm_mode mode)
{
	cJSON *f = cJSON_CreateObject();

	cJSON_AddStringToObject(f, "tool_name", tool);
	cJSON_AddItemToObject(f, "tool_input", input != NULL ? cJSON_Duplicate(input, true) :
	    cJSON_CreateObject());
	cJSON_AddStringToObject(f, "tool_use_id", id);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(mode));
	return f;
}

static void
hooks_pre_done(void *arg, struct hook_outcome *o)
{
	struct hook_pre *p = arg;

	p->run = NULL;
	p->o = *o;
	memset(o, 0, sizeof *o);
	p->kick(p->arg);
}

static void
hooks_pre_free(struct hook_pre *p)
{
	hooks_cancel(p->run);
	hook_outcome_release(&p->o);
	free(p->id);
	free(p);
}

/* A copy of what decides in o (decision, reasons, input, stop) into out. */
static void
hooks_outcome_verdict(const struct hook_outcome *o, struct hook_outcome *out)
{
	memset(out, 0, sizeof *out);
	out->decision = o->decision;
	out->reason = o->reason != NULL ? xstrdup(o->reason) : NULL;
	out->updated_input = o->updated_input != NULL ? cJSON_Duplicate(o->updated_input, true) : NULL;
	out->stop = o->stop;
	out->stop_reason = o->stop_reason != NULL ? xstrdup(o->stop_reason) : NULL;
	out->nhooks = o->nhooks;
}

/* The gate's hooks of one call (PreToolUse, PermissionRequest): see hooks_pre_tool. */
static int
hooks_gate_tool(struct hooks *h, enum hook_event ev, const char *id, const char *tool,
    const cJSON *input, enum perm_mode mode, void (*kick)(void *), void *arg,
    struct hook_outcome *out)
{
	struct hook_pre **pp, *p;
	cJSON *f;

	memset(out, 0, sizeof *out);
	for (pp = h != NULL ? &h->pres : NULL; pp != NULL && *pp != NULL; pp = &(*pp)->next) {
		p = *pp;
		if (p->ev != ev || strcmp(p->id, id) != 0)
			continue;
		if (p->run != NULL)
			return 1;
		/*
		 * The gate asks again from its first stage after a later one
		 * waited: the PreToolUse verdict stands (its hooks do not run
		 * twice), without the notes already shown.
		 */
		if (p->taken) {
			hooks_outcome_verdict(&p->o, out);
			return 0;
		}
		if (ev == HOOK_PRE_TOOL_USE) {
			hooks_outcome_verdict(&p->o, out);
			out->warnings = p->o.warnings != NULL ? xstrdup(p->o.warnings) : NULL;
			out->system_message = p->o.system_message != NULL ? xstrdup(p->o.system_message) : NULL;
			out->additional_context = p->o.additional_context != NULL ?
			    xstrdup(p->o.additional_context) : NULL;
			p->taken = true;
			return 0;
		}
		*out = p->o;
		memset(&p->o, 0, sizeof p->o);
		*pp = p->next;
		hooks_pre_free(p);
		return 0;
	}
	if (!hooks_has(h, ev, tool))
		return 0;
	p = xcalloc(1, sizeof *p);
	p->h = h;
	p->ev = ev;
	p->id = xstrdup(id);
	p->kick = kick;
	p->arg = arg;
	f = hooks_tool_fields(id, tool, input, mode);
	if (ev == HOOK_PERMISSION_REQUEST)
		cJSON_AddItemToObject(f, "permission_suggestions", cJSON_CreateArray());
	p->run = hooks_run(h, ev, f, hooks_pre_done, p);
	cJSON_Delete(f);
	if (p->run == NULL) {
		hooks_pre_free(p);
		return 0;
	}
	p->next = h->pres;
	h->pres = p;
	return 1;
}

int
hooks_pre_tool(struct hooks *h, const char *id, const char *tool, const cJSON *input,
    enum perm_mode mode, void (*kick)(void *), void *arg, struct hook_outcome *out)
{
	return hooks_gate_tool(h, HOOK_PRE_TOOL_USE, id, tool, input, mode, kick, arg, out);
}

int
hooks_permission_request(struct hooks *h, const char *id, const char *tool, const cJSON *input,
    enum perm_mode mode, void (*kick)(void *), void *arg, struct hook_outcome *out)
{
	return hooks_gate_tool(h, HOOK_PERMISSION_REQUEST, id, tool, input, mode, kick, arg, out);
}

static void
hooks_post_done(void *arg, struct hook_outcome *o)
{
	struct hook_post *post = arg;

	post->done(post->arg, post->id, o);
}

int
hooks_post_tool(struct hooks *h, const char *id, const char *tool, const cJSON *input,
    const char *result, size_t n, bool is_error, enum perm_mode mode, hook_post_fn *done,
    void *arg)
{
	/* As in Claude Code: a call that failed is PostToolUseFailure's, not PostToolUse's. */
	enum hook_event ev = is_error ? HOOK_POST_TOOL_USE_FAILURE : HOOK_POST_TOOL_USE;
	struct hook_post *post;
	struct hook_run *run;
	cJSON *f;

	if (!hooks_has(h, ev, tool))
		return 0;
	post = xcalloc(1, sizeof *post);
	post->id = xstrdup(id);
	post->done = done;
	post->arg = arg;
	f = hooks_tool_fields(id, tool, input, mode);
	if (is_error) {
		json_add_str_n(f, "error", result, n);
		cJSON_AddBoolToObject(f, "is_interrupt", false);
	} else {
		cJSON_AddItemToObject(f, "tool_response", hooks_tool_response(tool, result, n, is_error));
	}
	run = hooks_run(h, ev, f, hooks_post_done, post);
	cJSON_Delete(f);
	if (run == NULL) {
		free(post->id);
		free(post);
		return 0;
	}
	run->post = post;
	return 1;
}

int
hooks_post_pending(const struct hooks *h)
{
	const struct hook_run *r;
	int n = 0;

	for (r = h != NULL ? h->runs : NULL; r != NULL; r = r->next)
		n += r->post != NULL;
	return n;
}

void
hooks_cancel_tools(struct hooks *h)
{
	struct hook_run *r, *next;
	struct hook_pre *p;

	if (h == NULL)
		return;
	while ((p = h->pres) != NULL) {
		h->pres = p->next;
		hooks_pre_free(p);
	}
	for (r = h->runs; r != NULL; r = next) {
		next = r->next;
		if (r->post != NULL)
			hooks_cancel(r);
	}
}

/* --- the session --------------------------------------------------------- */

struct hooks *
hooks_new(struct ev_loop *loop, const struct config *cfg)
{
	struct hooks *h = xcalloc(1, sizeof *h);

	h->loop = loop;
	h->cfg = cfg;
	h->tr = cctr_new(cfg->root);
	return h;
}

static void hooks_on_event(const cJSON *event, void *arg);

void
hooks_free(struct hooks *h)
{
	if (h == NULL)
		return;
	hooks_cancel_tools(h);
	while (h->runs != NULL)
		hooks_cancel(h->runs);
	if (h->bus != NULL)
		event_unsubscribe(h->bus, hooks_on_event, h);
	free(h->session_id);
	free(h->transcript_path);
	cctr_free(h->tr);
	http_free(h->http);
	cJSON_Delete(h->calls);
	free(h->last_error);
	free(h);
}

void
hooks_set_session(struct hooks *h, const char *session_id, const char *transcript_path)
{
	if (session_id != NULL) {
		free(h->session_id);
		h->session_id = xstrdup(session_id);
	}
	if (transcript_path != NULL) {
		free(h->transcript_path);
		h->transcript_path = xstrdup(transcript_path);
	}
	cctr_set_session(h->tr, session_id, transcript_path);
}

void
hooks_notified(void *arg, struct hook_outcome *o)
{
	struct hooks *h = arg;

	if (h->bus != NULL && o->warnings != NULL)
		event_error(h->bus, 0, "%s", o->warnings);
	if (h->bus != NULL && o->system_message != NULL)
		event_error(h->bus, 0, "%s", o->system_message);
}

/* A front end says the finished turn has waited long for the user: Claude Code's idle_prompt. */
static void
hooks_idle(struct hooks *h, const cJSON *event)
{
	cJSON *fields;

	if (!hooks_has(h, HOOK_NOTIFICATION, "idle_prompt"))
		return;
	fields = cJSON_CreateObject();
	cJSON_AddStringToObject(fields, "message", json_str(event, "message", "tandem is waiting for your input"));
	cJSON_AddStringToObject(fields, "notification_type", "idle_prompt");
	hooks_run(h, HOOK_NOTIFICATION, fields, hooks_notified, h);
	cJSON_Delete(fields);
}

static void
hooks_on_event(const cJSON *event, void *arg)
{
	struct hooks *h = arg;
	const char *name;
	struct buf msg = BUF_INIT(BUF_NOLIMIT);
	cJSON *fields;

	/* Only hooks and a status line command read the transcript. */
	if (h->cfg->hooks != NULL || h->cfg->status_line != NULL)
		cctr_event(h->tr, event);
	if (h->cfg->hooks != NULL)
		hooks_on_bus(h, event);
	if (strcmp(json_str(event, "type", ""), "idle") == 0) {
		hooks_idle(h, event);
		return;
	}
	if (strcmp(json_str(event, "type", ""), "approval_request") != 0 ||
	    !hooks_has(h, HOOK_NOTIFICATION, "permission_prompt"))
		return;
	name = json_str(event, "name", "a tool");
	name = toolname_cc_or_self(name);
	buf_printf(&msg, "tandem needs your permission to use %s", name);
	fields = cJSON_CreateObject();
	cJSON_AddStringToObject(fields, "message", buf_cstr(&msg));
	cJSON_AddStringToObject(fields, "notification_type", "permission_prompt");
	hooks_run(h, HOOK_NOTIFICATION, fields, hooks_notified, h);
	cJSON_Delete(fields);
	buf_release(&msg);
}

void
hooks_attach(struct hooks *h, struct event_bus *bus)
{
	if (h->bus != NULL)
		event_unsubscribe(h->bus, hooks_on_event, h);
	h->bus = bus;
	event_subscribe(bus, hooks_on_event, h);
}

cJSON *
hooks_tool_response(const char *tool_name, const char *content, size_t n, bool is_error)
{
	cJSON *r = cJSON_CreateObject();

	json_add_str_n(r, "content", content, n);
	cJSON_AddBoolToObject(r, "is_error", is_error);
	cJSON_AddBoolToObject(r, "success", !is_error);
	if (tool_name != NULL && strcmp(toolname_tandem(tool_name), "run_bash") == 0) {
		json_add_str_n(r, "stdout", content, n);
		cJSON_AddStringToObject(r, "stderr", "");
		cJSON_AddBoolToObject(r, "interrupted", false);
	}
	return r;
}
