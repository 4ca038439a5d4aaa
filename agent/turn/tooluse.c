/*
 * tooluse: the scheduler's callbacks after the gate.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "turn_int.h"
#include "claude/claude.h"
#include "sub/subagent.h"
#include "attach.h"
#include "bgshell.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "jail/jail.h"
#include "intent.h"
#include "modelset.h"
#include "prompt.h"
#include "jail/protect.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"
#include "tooluse.h"
#include "store/wsnap.h"
#include "plan/plan.h"

/* The "by" of a PostToolUse hook's records. */
#define TOOLUSE_HOOK_BY	"PostToolUse hook"

/*
 * Is c a writer the workspace snapshots go around: run_bash, or an MCP
 * tool without readOnlyHint (whatever it does to the files, it can be
 * rewound)?
 */
static bool
tooluse_snapped(const struct sched_call *c)
{
	if (strcmp(c->name, "run_bash") == 0)
		return true;
	return c->tool != NULL && c->tool->async != NULL && !c->tool->parallel &&
	    strncmp(c->name, "mcp__", 5) == 0;
}

/* Does c run alone: a writer the scheduler (and the session's gate) keeps apart? */
static bool
tooluse_exclusive(const struct sched_call *c)
{
	return c->tool != NULL && c->tool->cls != TOOL_READ_ONLY && !c->tool->parallel;
}

/* Is c's result kept in the ledger (and its start in an intent): a writer, or a subagent's call? */
static bool
tooluse_ledgered(const struct conversation *cv, const struct sched_call *c)
{
	return c->tool != NULL && (c->tool->cls != TOOL_READ_ONLY
	    || c->tool == sub_tool(agent_subs(conversation_agent(cv)), c->name));
}

/* Does c run in the sandbox (run_bash that the jail applies to)? */
static bool
tooluse_jailed(const struct conversation *cv, const struct sched_call *c)
{
	return strcmp(c->name, "run_bash") == 0 && jail_applies(agent_env(conversation_agent(cv))->jail, c->input);
}

/* Is c watched: a sandboxed command that may write the workspace (not read-only mode)? */
static bool
tooluse_watched(const struct conversation *cv, const struct sched_call *c)
{
	return tooluse_jailed(cv, c) && jail_mode(agent_env(conversation_agent(cv))->jail) == JAIL_WORKSPACE_WRITE;
}

/* Is c a writer tandem trusts: a file tool, or a command run outside the sandbox? */
static bool
tooluse_trusted_writer(const struct conversation *cv, const struct sched_call *c)
{
	return c->tool != NULL && c->tool->cls != TOOL_READ_ONLY && !tooluse_jailed(cv, c);
}

static void
tooluse_protect_notify(void *arg, const char *sentence)
{
	struct conversation *cv = arg;

	event_error(conversation_bus(cv), 0, "%s", sentence);
}

/* The session's guard of the protected names (protect.h), and its hold for the background shells. */
struct tooluse_guard {
	struct protect	*protect;	/* lazy */
	bool		 bg;		/* it is held for the background shells */
};

/* A conversation's running call's output, as tool_progress. */
struct tooluse_progress {
	struct redact_stream	 redact;
	size_t			 bytes;
};

struct tooluse_guard *
tooluse_guard_new(void)
{
	return xcalloc(1, sizeof(struct tooluse_guard));
}

void
tooluse_guard_free(struct tooluse_guard *g)
{
	if (g == NULL)
		return;
	/* the background shells end with tandem: what they did is looked at first */
	if (g->bg)
		bgshell_end_all();
	protect_free(g->protect);
	free(g);
}

void
tooluse_guard_pause(struct conversation *cv)
{
	protect_pause(agent_guard(conversation_agent(cv))->protect);
}

void
tooluse_guard_resume_user(struct conversation *cv)
{
	protect_resume(agent_guard(conversation_agent(cv))->protect, true, NULL);
}

struct tooluse_progress *
tooluse_progress_new(void)
{
	struct tooluse_progress *p = xcalloc(1, sizeof *p);

	buf_init(&p->redact.hold, BUF_NOLIMIT);
	return p;
}

void
tooluse_progress_free(struct tooluse_progress *p)
{
	if (p == NULL)
		return;
	redact_stream_release(&p->redact);
	free(p);
}

/* The last background shell ended: its hold on the protected names goes. */
static void
tooluse_protect_bg_end(void *arg)
{
	struct conversation *cv = arg;
	struct agent *a = conversation_agent(cv);

	if (agent_guard(a)->bg && bgshell_running() == 0) {
		agent_guard(a)->bg = false;
		protect_release(agent_guard(a)->protect, true);
	}
}

/* The guard of the protected names (protect.h), made when a sandboxed command first runs. */
static struct protect *
tooluse_protect(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct buf q = BUF_INIT(BUF_NOLIMIT);

	if (agent_session(a) == NULL)
		return agent_guard(a)->protect;
	buf_printf(&q, "%s/quarantine", session_dir(agent_session(a)));
	if (agent_guard(a)->protect == NULL) {
		agent_guard(a)->protect = protect_new(agent_loop(a), agent_config(a)->root, buf_cstr(&q),
		    tooluse_protect_notify, cv);
		bgshell_on_end(tooluse_protect_bg_end, cv);
	} else
		protect_set_quarantine(agent_guard(a)->protect, buf_cstr(&q));
	buf_release(&q);
	return agent_guard(a)->protect;
}

void
tooluse_protect_warm(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);

	if (jail_usable(agent_env(a)->jail) && jail_mode(agent_env(a)->jail) == JAIL_WORKSPACE_WRITE)
		protect_warm(tooluse_protect(cv));
}

/* The paths a file tool wrote (its input's and its "files"), relative to the root. */
static char **
tooluse_paths_of(const struct conversation *cv, const struct sched_call *c)
{
	struct agent *a = conversation_agent(cv);
	const cJSON *f;
	char **v = NULL;
	size_t n = 0, rl = strlen(agent_config(a)->root);
	const char *s[2] = { json_str(c->input, "path", NULL), NULL };
	int i;

	cJSON_ArrayForEach(f, json_get(c->meta, "files")) {
		v = xreallocarray(v, n + 2, sizeof *v);
		v[n++] = xstrdup(json_str(f, "path", ""));
	}
	for (i = 0; s[i] != NULL; i++) {
		v = xreallocarray(v, n + 2, sizeof *v);
		v[n++] = xstrdup(s[i]);
	}
	for (i = 0; (size_t)i < n; i++)
		if (strncmp(v[i], agent_config(a)->root, rl) == 0 && v[i][rl] == '/')
			memmove(v[i], v[i] + rl + 1, strlen(v[i] + rl + 1) + 1);
	if (v != NULL)
		v[n] = NULL;
	return v;
}

static void tooluse_protect_ran(struct conversation *, struct sched_call *);

/* Around each call: the sandboxed ones are watched, the trusted writers pause the catching. */
static void
tooluse_protect_start(struct conversation *cv, const struct sched_call *c)
{
	if (tooluse_watched(cv, c))
		protect_hold(tooluse_protect(cv), json_bool(c->input, "run_in_background", false));
	else if (tooluse_trusted_writer(cv, c))
		protect_pause(agent_guard(conversation_agent(cv))->protect);
}

static void
tooluse_protect_end(struct conversation *cv, struct sched_call *c)
{
	/* a call refused before it ran was never held or paused */
	if (c->ran)
		tooluse_protect_ran(cv, c);
	/* a background shell's catch is told with whatever result comes next */
	(void)protect_take(agent_guard(conversation_agent(cv))->protect, &c->result);
}

static void
tooluse_protect_ran(struct conversation *cv, struct sched_call *c)
{
	struct agent *a = conversation_agent(cv);

	if (tooluse_watched(cv, c) && json_bool(c->input, "run_in_background", false) &&
	    !agent_guard(a)->bg && bgshell_running() > 0)
		agent_guard(a)->bg = true;	/* the hold stays while a background shell runs */
	else if (tooluse_watched(cv, c))
		protect_release(agent_guard(a)->protect, json_bool(c->input, "run_in_background", false));
	else if (tooluse_trusted_writer(cv, c)) {
		char **mine = tooluse_paths_of(cv, c);
		size_t i;

		/* a command the user let run outside, an MCP server: all it made is theirs */
		protect_resume(agent_guard(a)->protect, strcmp(c->name, "run_bash") == 0 ||
		    strncmp(c->name, "mcp__", 5) == 0, (const char *const *)mine);
		for (i = 0; mine != NULL && mine[i] != NULL; i++)
			free(mine[i]);
		free(mine);
	}
}

static void
tooluse_started(void *arg, struct sched_call *c)
{
	struct conversation *cv = arg;
	struct agent *a = conversation_agent(cv);
	bool snapped = tooluse_snapped(c);

	conversation_progress(cv)->bytes = 0;
	crash_point("tool-started");
	sub_started(agent_subs(a), cv, tooluse_exclusive(c));
	tooluse_protect_start(cv, c);
	if (snapped && wsnap_before(agent_wsnap(a), NULL) == -1)
		agent_unsaved(cv);
	/* what a rewind needs if tandem dies while the call runs (intent.h) */
	else if (tooluse_ledgered(cv, c) && intent_started(cv, c, snapped) == -1)
		agent_unsaved(cv);
}

static void
tooluse_progress(void *arg, struct sched_call *c, const char *p, size_t n)
{
	struct conversation *cv = arg;
	struct buf clean = BUF_INIT(BUF_NOLIMIT);

	/* Past a few MB only the newest bytes matter to anyone watching. */
	conversation_progress(cv)->bytes += n;
	if (conversation_progress(cv)->bytes > AGENT_PROGRESS_FULL && n > 2048) {
		p += n - 2048;
		n = 2048;
	}
	/* A key is replaced before anyone sees it, even split across two reads. */
	redact_stream_feed(&conversation_progress(cv)->redact, p, n, &clean);
	if (clean.len > 0)
		emit_tool_progress(conversation_bus(cv), c->id, clean.data, clean.len);
	buf_release(&clean);
}

/*
 * Keep what tandem wrote, so that a rewind can be redone.  A snapshot
 * that cannot be written fails the session: a later rewind would promise
 * what it cannot restore.  0 or -1.
 */
static int
tooluse_snapshot_after(struct conversation *cv, const cJSON *files)
{
	struct agent *a = conversation_agent(cv);
	const cJSON *f;
	int rc = 0;

	cJSON_ArrayForEach(f, files) {
		struct buf err = BUF_INIT(4096);
		struct sandbox sb = { agent_config(a)->root, (const char *const *)agent_config(a)->add_dirs, NULL };
		struct sandbox_at at;
		char *data = NULL, hex[SHA256_HEX_LEN + 1];
		size_t len = 0;

		/* read through the walk's descriptor, as the tool wrote it */
		if (rc == 0 && json_str(f, "after", NULL) != NULL &&
		    sandbox_walk(&sb, json_str(f, "path", ""), SANDBOX_READ, SANDBOX_MUST_EXIST,
		    &at, &err) == 0) {
			if (fsutil_read_at(&at, FSUTIL_MAX_FILE, &data, &len, &err) == 0) {
				errno = 0;
				if (fsutil_snapshot(agent_snap_dir(a), data, len, hex, &err) == -1)
					rc = session_fail(agent_session(a), "files/", errno != 0 ? errno : EIO);
			}
			sandbox_at_release(&at);
		}
		free(data);
		buf_release(&err);
	}
	return rc;
}

/* A PostToolUse hook's word for the model goes with the call's result. */
static void
tooluse_post_hooked(void *arg, const char *id, struct hook_outcome *o)
{
	struct conversation *cv = arg;
	struct agent *a = conversation_agent(cv);
	struct sched_call *c = sched_find(conversation_sched(cv), id);

	if (hooks_post_pending(agent_hooks(a)) == 0 && (wsnap_record(agent_wsnap(a), conversation_turn(cv),
	    id, TOOLUSE_HOOK_BY) == -1 ||
	    intent_marked_close(cv, TOOLUSE_HOOK_BY) == -1))
		agent_unsaved(cv);
	agent_hook_notes(cv, o);
	if (c != NULL && o->decision == HOOK_BLOCK && o->reason != NULL) {
		sched_call_append_result(c, "\n\nPostToolUse hook: ");
		sched_call_append_result(c, o->reason);
	}
	if (c != NULL && o->additional_context != NULL) {
		sched_call_append_result(c, "\n\n");
		sched_call_append_result(c, o->additional_context);
	}
	if (c != NULL)
		sched_call_redact_result(c);
	agent_settle(cv);
}

static void
tooluse_finished(void *arg, struct sched_call *c)
{
	struct conversation *cv = arg;
	struct agent *a = conversation_agent(cv);
	struct buf rest = BUF_INIT(BUF_NOLIMIT);

	redact_stream_flush(&conversation_progress(cv)->redact, &rest);
	if (rest.len > 0)
		emit_tool_progress(conversation_bus(cv), c->id, rest.data, rest.len);
	buf_release(&rest);
	tooluse_protect_end(cv, c);
	/* read_file on an image: the image itself goes to the model (attach.h). */
	if (c->ran)
		attach_tool_image(agent_env(a), agent_config(a)->rules, agent_mode(a),
		    agent_model_caps(a)->image_input, c->name, c->input,
		    &c->result, &c->is_error, &c->blocks);
	/* A CLAUDE.md of the folder it worked in, the first time (claude/claude.h). */
	if (c->ran && !c->is_error)
		claude_nested_memory(agent_claude(a), c->name, c->input, &c->result);
	/* Before it is logged, shown, handed to hooks or sent: no key in it. */
	sched_call_redact_result(c);
	if (tooluse_ledgered(cv, c) && c->ran)
		crash_point("tool-done");
	/*
	 * What the call changed is logged before its result reaches the
	 * ledger: a call with an intent and no ledger entry is one a crash
	 * cut off, and the next open records its changes (intent.h).
	 */
	if (c->meta != NULL && cJSON_GetArraySize(json_get(c->meta, "files")) > 0) {
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "files");
		cJSON_AddNumberToObject(rec, "turn", conversation_turn(cv));
		cJSON_AddStringToObject(rec, "id", c->id);
		cJSON_AddItemToObject(rec, "files", cJSON_Duplicate(json_get(c->meta, "files"), 1));
		/*
		 * The calls after this one are refused by the gate; the turn ends when they are.
		 * A subagent's edits are the session's too: they go in its log, for a rewind.
		 */
		if (tooluse_snapshot_after(cv, json_get(c->meta, "files")) == -1 ||
		    session_append(agent_session(a), rec) == -1)
			agent_unsaved(cv);
	}
	if (tooluse_snapped(c) && wsnap_record(agent_wsnap(a), conversation_turn(cv), c->id, c->name) == -1)
		agent_unsaved(cv);
	if (tooluse_ledgered(cv, c) && c->ran) {
		crash_point("tool-recorded");
		if (session_effect(agent_session(a), c->id, c->name, buf_cstr(&c->result), c->is_error) == -1)
			agent_unsaved(cv);
	}
	record_turn_tool(cv, c->name);
	emit_tool_result(conversation_bus(cv), c->id, c->name, c->is_error, buf_cstr(&c->result), c->result.len,
	    c->duration_ms, c->denied, false);
	plan_call_done(cv, c);
	/* a hook that formats files is a writer too: its changes are rewound with the call's */
	if (c->ran && session_error(agent_session(a)) == NULL && hooks_post_pending(agent_hooks(a)) == 0 &&
	    hooks_has(agent_hooks(a), HOOK_POST_TOOL_USE, c->name) && (wsnap_before(agent_wsnap(a), NULL) == -1 ||
	    intent_marked_started(cv, c->id, conversation_turn(cv), TOOLUSE_HOOK_BY) == -1))
		agent_unsaved(cv);
	if (c->ran)
		sub_finished(agent_subs(a), cv, tooluse_exclusive(c));
	if (c->ran && session_error(agent_session(a)) == NULL)
		hooks_post_tool(agent_hooks(a), c->id, c->name, c->input, buf_cstr(&c->result),
		    c->result.len, c->is_error, agent_mode(a), tooluse_post_hooked, cv);
}

static void
tooluse_idle(void *arg)
{
	struct conversation *cv = arg;

	agent_settle(cv);
}

void
tooluse_ops(struct conversation *cv, struct sched_ops *ops)
{
	memset(ops, 0, sizeof *ops);
	ops->gate = gate_check;
	ops->started = tooluse_started;
	ops->progress = tooluse_progress;
	ops->finished = tooluse_finished;
	ops->idle = tooluse_idle;
	ops->arg = cv;
}

int
tooluse_turn_end(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct buf shells = BUF_INIT(64 * 1024), note = BUF_INIT(64 * 1024), id = BUF_INIT(64);
	int n, rc = 0;

	if (agent_wsnap(a) == NULL || (n = bgshell_describe(&shells)) == 0)
		goto out;
	buf_printf(&note, "background shell%s %s %s still running when turn %d ended: what %s "
	    "from then on is in no snapshot, so a rewind does not undo it", n > 1 ? "s" : "",
	    buf_cstr(&shells), n > 1 ? "were" : "was", conversation_turn(cv), n > 1 ? "they change" : "it changes");
	buf_printf(&id, "background_%d", conversation_turn(cv));
	rc = wsnap_note_record(agent_wsnap(a), conversation_turn(cv), buf_cstr(&id), "background shells",
	    buf_cstr(&note));
out:
	buf_release(&shells);
	buf_release(&note);
	buf_release(&id);
	return rc;
}
