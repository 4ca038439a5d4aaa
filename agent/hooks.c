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
#include "json.h"
#include "rules/perm.h"
#include "proc.h"
#include "redact.h"
#include "toolnames.h"
#include "xalloc.h"

#define HOOK_OUT_MAX	(1024u * 1024)	/* stdout kept; a longer answer is refused */
#define HOOK_ERR_MAX	(64u * 1024)	/* stderr kept (the block reason) */
#define HOOK_LINGER_MS	200		/* after exit, how long a leftover child may hold the pipes */
#define HOOK_SHOW_MAX	60		/* a command is named in warnings up to this many bytes */

static const struct hook_event_def {
	const char	*name;
	const char	*subject;	/* the input member the matcher is tried on; NULL: none */
	bool		 can_block;	/* exit 2 / "block" means something */
} hook_events[HOOK_NEVENTS] = {
	[HOOK_SESSION_START] =		{ "SessionStart", "source", false },
	[HOOK_USER_PROMPT_SUBMIT] =	{ "UserPromptSubmit", NULL, true },
	[HOOK_PRE_TOOL_USE] =		{ "PreToolUse", "tool_name", true },
	[HOOK_POST_TOOL_USE] =		{ "PostToolUse", "tool_name", true },
	[HOOK_STOP] =			{ "Stop", NULL, true },
	[HOOK_PRE_COMPACT] =		{ "PreCompact", "trigger", false },
	[HOOK_SESSION_END] =		{ "SessionEnd", "reason", false },
	[HOOK_NOTIFICATION] =		{ "Notification", "notification_type", false },
	[HOOK_SUBAGENT_START] =		{ "SubagentStart", "agent_type", false },
	[HOOK_SUBAGENT_STOP] =		{ "SubagentStop", "agent_type", true },
};

/* tandem's file tools whose Claude Code counterparts name the file "file_path". */
static const char *const hook_file_tools[] = { "read_file", "edit_file", "write_file", NULL };

/* A PreToolUse verdict being reached for one call, until its gate takes it. */
struct hook_pre {
	struct hooks		*h;
	char			*id;
	struct hook_run		*run;		/* NULL once done */
	struct hook_outcome	 o;
	void			(*kick)(void *);
	void			*arg;
	struct hook_pre		*next;
};

/* A PostToolUse run's caller. */
struct hook_post {
	char			*id;
	hook_post_fn		*done;
	void			*arg;
};

struct hooks {
	struct ev_loop		*loop;
	const struct config	*cfg;
	char			*session_id;
	char			*transcript_path;
	struct event_bus	*bus;
	struct hook_run		*runs;
	struct hook_pre		*pres;
};

struct hook_proc {
	struct hook_run	*run;
	char		*command;
	int		 timeout_ms;
	pid_t		 pid;
	int		 out_fd, err_fd;
	struct buf	 out, err;
	bool		 out_over;	/* stdout passed HOOK_OUT_MAX */
	bool		 exited, timed_out, finished;
	int		 status;
	uint64_t	 timer;		/* the timeout; after exit, the linger */
	char		*spawn_error;
};

struct hook_run {
	struct hooks		*h;
	enum hook_event		 ev;
	hook_done_fn		*done;
	void			*arg;
	struct hook_proc	*procs;
	size_t			 nprocs, nleft;
	uint64_t		 deliver_timer;
	char			*sent_file_path;	/* the absolute file_path the hooks saw */
	struct hook_post	*post;			/* PostToolUse runs: the caller */
	struct hook_run		*next;
};

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

static void
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

static void hooks_warn(struct hook_outcome *, const char *, ...) __attribute__((format(printf, 2, 3)));

static void
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

/* s without leading and trailing white space, copied. */
static char *
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
	if (ev != HOOK_PRE_TOOL_USE && ev != HOOK_POST_TOOL_USE) {
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

/* A hook object that can run: {"type": "command" (or none), "command": "..."}. */
static const char *
hooks_command_of(const cJSON *hook)
{
	const char *type = json_str(hook, "type", "command"), *cmd = json_str(hook, "command", "");

	if (!cJSON_IsObject(hook) || strcmp(type, "command") != 0 || cmd[0] == '\0')
		return NULL;
	return cmd;
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
	cJSON_ArrayForEach(hk, list) {
		const cJSON *t = json_get(hk, "timeout");

		if (!cJSON_IsObject(hk))
			buf_printf(w, "hooks.%s[%d].hooks[%d]: a hook must be an object\n", event, i, j);
		else if (strcmp(json_str(hk, "type", "command"), "command") != 0)
			buf_printf(w, "hooks.%s[%d].hooks[%d]: type \"%s\" is not supported (only "
			    "\"command\"); it never runs\n", event, i, j, json_str(hk, "type", "?"));
		else if (hooks_command_of(hk) == NULL)
			buf_printf(w, "hooks.%s[%d].hooks[%d]: \"command\" must be a non-empty string\n",
			    event, i, j);
		else if (t != NULL && (!cJSON_IsNumber(t) || t->valuedouble <= 0))
			buf_printf(w, "hooks.%s[%d].hooks[%d]: \"timeout\" must be a number of seconds "
			    "above 0; using %d\n", event, i, j, HOOK_TIMEOUT_DEFAULT_S);
		j++;
	}
}

void
hooks_validate(const cJSON *hooks, struct buf *warnings)
{
	const cJSON *ev, *entry;
	int i;

	cJSON_ArrayForEach(ev, hooks) {
		if (hooks_event_parse(ev->string) < 0) {
			buf_printf(warnings, "hooks: unknown event \"%s\"; its hooks never run\n",
			    ev->string);
			continue;
		}
		i = 0;
		cJSON_ArrayForEach(entry, ev)
			hooks_validate_entry(ev->string, i++, entry, warnings);
	}
}

/* Call fn for each hook (each distinct command once) that matches ev and subject. */
static size_t
hooks_each(const struct hooks *h, enum hook_event ev, const char *subject,
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
			if ((cmd = hooks_command_of(hk)) == NULL)
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
	return hooks_each(h, ev, subject, NULL, NULL) > 0;
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

/* An unlinked temporary file holding text, at offset 0: the hook's stdin. */
static int
hooks_stdin_file(const char *text, size_t n, struct buf *err)
{
	const char *dir = getenv("TMPDIR");
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	int fd = -1;

	if (dir == NULL || dir[0] != '/')
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
	if (fd == -1) {
		buf_printf(&path, "%s/tandem-hook.XXXXXX", dir);
		fd = mkostemp(path.data, O_CLOEXEC);
		if (fd != -1)
			unlink(path.data);
	}
	buf_release(&path);
	if (fd == -1) {
		buf_printf(err, "cannot create a temporary file in %s: %s", dir, strerror(errno));
		return -1;
	}
	if (file_write_all(fd, text, n) == -1) {
		buf_printf(err, "cannot write the hook's input: %s", strerror(errno));
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
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

	if ((in = hooks_stdin_file(input, n, err)) == -1)
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
		hooks_set_decision(one, run->ev == HOOK_PRE_TOOL_USE ? HOOK_DENY : HOOK_BLOCK, why);
	free(why);
}

static void
hooks_interpret(const struct hook_run *run, const struct hook_proc *p, struct hook_outcome *one)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT);
	char *first;
	int code;

	hooks_show(p->command, &cmd);
	if (p->spawn_error != NULL) {
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
static void
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
	if ((n = hooks_each(h, ev, subject, NULL, NULL)) == 0)
		return NULL;
	run = xcalloc(1, sizeof *run);
	run->h = h;
	run->ev = ev;
	run->done = done;
	run->arg = arg;
	run->procs = xcalloc(n, sizeof *run->procs);
	c.run = run;
	c.n = 0;
	hooks_each(h, ev, subject, hooks_add_proc, &c);
	run->nprocs = run->nleft = c.n;
	run->next = h->runs;
	h->runs = run;
	in = hooks_input(run, fields);
	text = json_print(in);
	cJSON_Delete(in);
	for (i = 0; i < run->nprocs; i++) {
		struct hook_proc *p = &run->procs[i];
		struct buf err = BUF_INIT(4096);

		if (hooks_spawn(p, text, strlen(text), &err) == -1) {
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

static cJSON *
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

int
hooks_pre_tool(struct hooks *h, const char *id, const char *tool, const cJSON *input,
    enum perm_mode mode, void (*kick)(void *), void *arg, struct hook_outcome *out)
{
	struct hook_pre **pp, *p;
	cJSON *f;

	memset(out, 0, sizeof *out);
	for (pp = h != NULL ? &h->pres : NULL; pp != NULL && *pp != NULL; pp = &(*pp)->next) {
		p = *pp;
		if (strcmp(p->id, id) != 0)
			continue;
		if (p->run != NULL)
			return 1;
		*out = p->o;
		memset(&p->o, 0, sizeof p->o);
		*pp = p->next;
		hooks_pre_free(p);
		return 0;
	}
	if (!hooks_has(h, HOOK_PRE_TOOL_USE, tool))
		return 0;
	p = xcalloc(1, sizeof *p);
	p->h = h;
	p->id = xstrdup(id);
	p->kick = kick;
	p->arg = arg;
	f = hooks_tool_fields(id, tool, input, mode);
	p->run = hooks_run(h, HOOK_PRE_TOOL_USE, f, hooks_pre_done, p);
	cJSON_Delete(f);
	if (p->run == NULL) {
		hooks_pre_free(p);
		return 0;
	}
	p->next = h->pres;
	h->pres = p;
	return 1;
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
	struct hook_post *post;
	struct hook_run *run;
	cJSON *f;

	if (!hooks_has(h, HOOK_POST_TOOL_USE, tool))
		return 0;
	post = xcalloc(1, sizeof *post);
	post->id = xstrdup(id);
	post->done = done;
	post->arg = arg;
	f = hooks_tool_fields(id, tool, input, mode);
	cJSON_AddItemToObject(f, "tool_response", hooks_tool_response(tool, result, n, is_error));
	run = hooks_run(h, HOOK_POST_TOOL_USE, f, hooks_post_done, post);
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
}

static void
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
