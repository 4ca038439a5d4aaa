/*
 * resume: going on with a session that is on disk.
 *
 * Owns opening or creating the agent's session at start (resume, fork),
 * switching to another session (/resume), reading it again after a failed
 * write, reconciling tool calls that the log shows without results (the
 * process died while they ran), the prompt cache's saved state, and the
 * replay of a conversation as events for a front end.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "context/cachewatch.h"
#include "context/compact.h"
#include "config/config.h"
#include "context/conv.h"
#include "ev.h"
#include "fsutil.h"
#include "file.h"
#include "event.h"
#include "model/http.h"
#include "hooks.h"
#include "hooks/cctranscript.h"
#include "jail/jail.h"
#include "json.h"
#include "context/memory.h"
#include "model/modelcat.h"
#include "model/models.h"
#include "rules/perm.h"
#include "model/provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "store/session.h"
#include "model/stream.h"
#include "xalloc.h"
#include "turn_int.h"
#include "mcp/mcp.h"
#include "sub/subagent.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "run_bash.h"
#include "intent.h"
#include "timeline.h"
#include "store/wsnap.h"
#include "plan/plan.h"

static cJSON * resume_reconcile_one(struct conversation *cv, const cJSON *use);
static int resume_reconcile(struct conversation *cv);

/* The tools' policy: the configured deny rules, on the path a walk reached. */
static bool
resume_path_denied(void *arg, enum sandbox_access access, const char *path)
{
	return perm_path_denied(arg, access, path);
}

void
resume_use_session(struct conversation *cv, struct session *sess)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	struct buf p = BUF_INIT(8192);

	session_close(agent_session(a));
	agent_set_session(a, sess);
	buf_printf(&p, "%s/files", session_dir(sess));
	agent_set_snap_dir(a, buf_detach(&p, NULL));
	agent_env(a)->root = cfg->root;
	agent_env(a)->session_dir = session_dir(sess);
	agent_env(a)->snap_dir = agent_snap_dir(a);
	agent_set_wsnap(a, NULL);
	agent_set_wsnap(a, wsnap_new(cfg->home, cfg->root, sess, &cfg->snap));
	wsnap_set_roots(agent_wsnap(a), (const char *const *)cfg->add_dirs);
	/* before the first warm walk moves wsnap.idx past a cut-off command's before-snapshot */
	intent_recover(cv);
	wsnap_warm(agent_wsnap(a), agent_loop(a));
	agent_env(a)->extra_roots = (const char *const *)cfg->add_dirs;
	agent_policy(a)->denied = resume_path_denied;
	agent_policy(a)->arg = cfg->rules;
	agent_env(a)->policy = agent_policy(a);
	agent_env(a)->jail = agent_jail(a);
	buf_reset(&p);
	buf_printf(&p, "%s/" CCTR_FILE, session_dir(sess));
	hooks_set_session(agent_hooks(a), session_id(sess), buf_cstr(&p));
	buf_release(&p);
}

/* The prompt cache's fingerprint, for the next process that resumes this session. */
int
resume_save_cache(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct buf path = BUF_INIT(8192);
	cJSON *st = cachewatch_save(conversation_cachewatch(cv));
	char *text = cJSON_PrintUnformatted(st);
	int rc = 0;

	buf_printf(&path, "%s/cache.json", session_dir(agent_session(a)));
	if (session_write_atomic(buf_cstr(&path), text, strlen(text), NULL) == -1)
		rc = session_fail(agent_session(a), "cache.json", errno);
	cJSON_free(text);
	cJSON_Delete(st);
	buf_release(&path);
	return rc;
}

void
resume_load_cache(struct conversation *cv)
{
	struct buf path = BUF_INIT(8192), all = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	buf_printf(&path, "%s/cache.json", session_dir(agent_session(conversation_agent(cv))));
	if (file_read(buf_cstr(&path), 64u * 1024 * 1024, FILE_REGULAR, &all, &st) == 0) {
		cJSON *j = cJSON_ParseWithLength(buf_cstr(&all), all.len);

		if (j != NULL)
			cachewatch_load(conversation_cachewatch(cv), j);	/* advisory: a bad file is ignored */
		cJSON_Delete(j);
	}
	buf_release(&all);
	buf_release(&path);
}

/*
 * After a failed write, read the session again from disk (what really is
 * there, keeping its lock) and show that conversation.  0, or -1 with the
 * reason in report.
 */
int
resume_reload(struct conversation *cv, struct buf *report)
{
	struct agent *a = conversation_agent(cv);
	struct session *s = agent_session(a);

	if (session_reopen(&s, report) == -1)
		return -1;
	agent_set_session(a, NULL);
	resume_use_session(cv, s);
	conv_replace(conversation_conv(cv), session_take_messages(s));
	if (session_turns(s) > conversation_turn(cv))
		conversation_set_turn(cv, session_turns(s));
	agent_unsaved_reset(a);
	conversation_set_failed(cv, false);
	if (session_note(s) != NULL)
		event_error(conversation_bus(cv), 0, "%s", session_note(s));
	if (resume_reconcile(cv) == -1) {
		buf_puts(report, session_error(s));
		return -1;
	}
	agent_set_resumed(a, true);
	agent_replay(a);
	return 0;
}

/*
 * A tool call the log shows but whose result it does not (the process died
 * while tools ran): the ledger's result; a read-only tool runs again; a
 * side-effecting one gets an error saying its state is unknown.
 */
static cJSON *
resume_reconcile_one(struct conversation *cv, const cJSON *use)
{
	struct agent *a = conversation_agent(cv);
	const char *id = json_str(use, "id", ""), *name = json_str(use, "name", "");
	const struct tool_def *tool = tool_find(name);
	const cJSON *fx = session_effect_find(agent_session(a), id);
	cJSON *r = cJSON_CreateObject();
	struct tool_out out;

	tool_out_init(&out);
	if (fx != NULL) {
		buf_puts(&out.text, json_str(fx, "result", ""));
		out.is_error = json_bool(fx, "is_error", false);
	} else if (tool != NULL && tool->cls == TOOL_READ_ONLY && tool->run != NULL) {
		tool->run(agent_env(a), json_get(use, "input"), &out);
	} else if (intent_never_started(cv, id)) {
		tool_out_error(&out, "not run: tandem stopped before this %s call started, so it "
		    "changed nothing; call it again if it is still needed", name);
	} else if (strcmp(name, "run_bash") == 0 && intent_keeper_ended(cv, id)) {
		tool_out_error(&out, "stopped: tandem ended while this command was running, and the "
		    "command and every process it started were killed then; it did not finish, "
		    "so check what it did before running it again");
	} else {
		tool_out_error(&out, "interrupted: tandem stopped while this %s call was running, "
		    "so its state is unknown; check what it did before retrying it", name);
	}
	cJSON_AddStringToObject(r, "type", "tool_result");
	cJSON_AddStringToObject(r, "tool_use_id", id);
	json_add_str_n(r, "content", buf_cstr(&out.text), out.text.len);
	if (out.is_error)
		cJSON_AddBoolToObject(r, "is_error", 1);
	tool_out_release(&out);
	return r;
}

static int
resume_reconcile(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	cJSON *last = conv_last(conversation_conv(cv)), *results, *b;
	bool any = false;

	if (last == NULL || strcmp(json_str(last, "role", ""), "assistant") != 0)
		return 0;
	results = cJSON_CreateArray();
	cJSON_ArrayForEach(b, json_get(last, "content")) {
		if (strcmp(json_str(b, "type", ""), "tool_use") != 0)
			continue;
		cJSON_AddItemToArray(results, resume_reconcile_one(cv, b));
		any = true;
	}
	if (!any) {
		cJSON_Delete(results);
		return 0;
	}
	if (record_add(cv, "user", results) == -1 ||
	    session_checkpoint(agent_session(a), 'B', conversation_turn(cv), 0, 0, NULL) == -1 ||
	    session_sync(agent_session(a)) == -1)
		return -1;
	return 0;
}

cJSON *
resume_fork_history(const struct session *from, int through, const cJSON *messages)
{
	cJSON *hist = cJSON_CreateArray();
	const cJSON *m, *r;
	bool *kept;
	int max = 0, t;

	cJSON_ArrayForEach(m, messages)
		if (json_int(m, "_turn", 0) > max)
			max = (int)json_int(m, "_turn", 0);
	kept = xcalloc((size_t)max + 1, sizeof *kept);
	cJSON_ArrayForEach(m, messages) {
		t = (int)json_int(m, "_turn", 0);
		if (t > 0 && (through <= 0 || t <= through))
			kept[t] = true;
	}
	/* What a rewind already took back is not the fork's to take back again. */
	cJSON_ArrayForEach(r, session_files(from)) {
		t = (int)json_int(r, "turn", 0);
		if (t > 0 && t <= max && kept[t] && !cJSON_IsTrue(json_get(r, "undone"))) {
			cJSON *c = cJSON_Duplicate(r, 1);

			cJSON_DeleteItemFromObjectCaseSensitive(c, "undone");
			cJSON_AddItemToArray(hist, c);
		}
	}
	cJSON_ArrayForEach(r, session_turninfo(from)) {
		t = (int)json_int(r, "turn", 0);
		if (t > 0 && t <= max && kept[t])
			cJSON_AddItemToArray(hist, cJSON_Duplicate(r, 1));
	}
	free(kept);
	return hist;
}

/* The content an edit's record names, copied from the source's files/ into this session's. */
static int
resume_copy_content(struct conversation *cv, const cJSON *rec, const char *src_snap_dir)
{
	struct agent *a = conversation_agent(cv);
	static const char *const sides[] = { "before", "after" };
	struct buf err = BUF_INIT(4096);
	const cJSON *f;
	size_t i;
	int rc = 0;

	cJSON_ArrayForEach(f, json_get(rec, "files"))
		for (i = 0; i < sizeof sides / sizeof sides[0] && rc == 0; i++) {
			const char *h = json_str(f, sides[i], NULL);
			char hex[SHA256_HEX_LEN + 1];
			char *data = NULL;
			size_t len = 0;

			/* Content the source lost is lost to the fork too: its rewind says so. */
			if (h == NULL || fsutil_snapshot_load(src_snap_dir, h, &data, &len, &err) == -1) {
				buf_reset(&err);
				continue;
			}
			if (fsutil_snapshot(agent_snap_dir(a), data, len, hex, &err) == -1)
				rc = session_fail(agent_session(a), "files/", errno != 0 ? errno : EIO);
			free(data);
		}
	buf_release(&err);
	return rc;
}

int
resume_adopt_history(struct conversation *cv, cJSON *hist, const char *src_snap_dir)
{
	struct agent *a = conversation_agent(cv);
	cJSON *r;
	int rc = 0;

	while (rc == 0 && (r = cJSON_DetachItemFromArray(hist, 0)) != NULL) {
		if (strcmp(json_str(r, "k", ""), "files") != 0)
			rc = session_append(agent_session(a), r);
		else if (wsnap_is_record(r))
			rc = wsnap_adopt(agent_wsnap(a), r);
		else if ((rc = resume_copy_content(cv, r, src_snap_dir)) == 0)
			rc = session_append(agent_session(a), r);
		else
			cJSON_Delete(r);
	}
	cJSON_Delete(hist);
	return rc;
}

int
resume_start_session(struct conversation *cv, const char *resume_id, bool fork, char *err, size_t err_size)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	struct buf e = BUF_INIT(4096);
	struct session *old = NULL, *sess;
	const cJSON *m;

	if (resume_id != NULL) {
		/* A fork only reads its source: that may be in use, or damaged (--rewind-to repairs). */
		old = session_open(cfg->home, resume_id,
		    fork ? SESSION_OPEN_READ_ONLY | SESSION_OPEN_DAMAGED_OK : 0, &e);
		if (old == NULL)
			goto fail;
	}
	if (old != NULL && !fork) {
		sess = old;
		old = NULL;
	} else {
		sess = session_create(cfg->home, cfg->root, agent_model(a),
		    old != NULL ? session_id(old) : NULL, &e);
		if (sess == NULL)
			goto fail;
	}
	resume_use_session(cv, sess);
	if (resume_id != NULL) {
		conv_replace(conversation_conv(cv), session_take_messages(old != NULL ? old : sess));
		plan_sync(cv, false);
		if (old != NULL) {
			struct buf src = BUF_INIT(8192);

			cJSON_ArrayForEach(m, conversation_conv(cv)->messages)
				if (session_log_message(agent_session(a), m) == -1)
					break;
			/* the fork's turns keep their tools, files, tokens and times */
			buf_printf(&src, "%s/files", session_dir(old));
			resume_adopt_history(cv, resume_fork_history(old, 0, conversation_conv(cv)->messages),
			    buf_cstr(&src));
			buf_release(&src);
		}
		conversation_set_turn(cv, old != NULL ? session_turns(old) : session_turns(sess));
		if (old != NULL)
			session_note_turn(agent_session(a), conversation_turn(cv), json_str(session_meta(old),
			    "first_prompt", ""));
		event_set_turn(conversation_bus(cv), conversation_turn(cv));
		if (session_error(agent_session(a)) == NULL)
			resume_reconcile(cv);
		agent_set_fork_dry_run(a, old != NULL);
	}
	if (session_error(agent_session(a)) != NULL) {
		buf_puts(&e, session_error(agent_session(a)));
		goto fail;
	}
	session_close(old);
	buf_release(&e);
	return 0;
fail:
	snprintf(err, err_size, "%s", buf_cstr(&e));
	session_close(old);
	buf_release(&e);
	return -1;
}

void
agent_replay(struct agent *a)
{
	struct conversation *cv = agent_main(a);
	char *warnings;

	agent_emit_session(cv, agent_resumed(a));
	jail_announce(agent_jail(a), conversation_bus(cv));
	if (agent_mcp(a) != NULL) {
		int ready, total = mcp_count(agent_mcp(a), &ready);

		agent_mcp_changed(cv, ready, total);
	}
	if ((warnings = call_mcp_take_warnings(a)) != NULL) {
		event_error(conversation_bus(cv), 0, "%s", warnings);
		free(warnings);
	}
	if (conv_count(conversation_conv(cv)) > 0)
		resume_replay_history(cv);
}

int
agent_resume(struct agent *a, const char *id, struct buf *report)
{
	struct conversation *cv = agent_main(a);
	struct buf err = BUF_INIT(4096);
	struct session *sess;

	if (conversation_busy(cv)) {
		buf_puts(report, "a turn is running: interrupt it first");
		return -1;
	}
	if (strcmp(id, session_id(agent_session(a))) == 0) {
		buf_printf(report, "already in session %s", id);
		return -1;
	}
	sess = session_open(agent_config(a)->home, id, 0, &err);
	if (sess == NULL) {
		buf_puts(report, buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	conv_replace(conversation_conv(cv), session_take_messages(sess));
	resume_use_session(cv, sess);
	conversation_set_turn(cv, session_turns(sess));
	agent_unsaved_reset(a);
	event_set_turn(conversation_bus(cv), conversation_turn(cv));
	if (session_note(sess) != NULL)
		event_error(conversation_bus(cv), 0, "%s", session_note(sess));
	if (resume_reconcile(cv) == -1)
		agent_unsaved(cv);
	/* What was said and allowed in the other conversation does not carry over. */
	agent_forget_answers(a);
	agent_set_fork_dry_run(a, false);
	conversation_set_last_usage(cv, NULL);
	compaction_reset(cv);
	cachewatch_forget(conversation_cachewatch(cv));
	resume_load_cache(cv);
	agent_set_resumed(a, true);
	agent_session_start(cv, "resume");
	agent_replay(a);
	return 0;
}

/* Show a resumed conversation to the front end, as the events that made it. */
void
resume_replay_history(struct conversation *cv)
{
	const cJSON *m, *b;
	int turn = -1;

	cJSON_ArrayForEach(m, conversation_conv(cv)->messages) {
		bool user = strcmp(json_str(m, "role", ""), "user") == 0;
		int t = (int)json_int(m, "_turn", 0);

		event_set_turn(conversation_bus(cv), t);
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *type = json_str(b, "type", "");

			if (user && strcmp(type, "text") == 0 && t != turn) {
				turn = t;
				emit_turn_start(conversation_bus(cv), json_str(b, "text", ""), true);
			} else if (!user && strcmp(type, "text") == 0) {
				emit_text(conversation_bus(cv), json_str(b, "text", ""), 0, true);
			} else if (!user && strcmp(type, "tool_use") == 0) {
				emit_tool_use(conversation_bus(cv), json_str(b, "id", ""), json_str(b, "name", ""),
				    json_get(b, "input"), true);
				sub_replay(session_submsgs(agent_session(conversation_agent(cv))), json_str(b,
				    "id", ""), conversation_bus(cv));
			} else if (user && strcmp(type, "tool_result") == 0) {
				const cJSON *c = json_get(b, "content");

				emit_tool_result(conversation_bus(cv), json_str(b, "tool_use_id", ""), "",
				    json_bool(b, "is_error", false), cJSON_IsString(c) ? c->valuestring : "",
				    0, 0, false, true);
			}
		}
		if (!user)
			emit_turn_end(conversation_bus(cv), "end_turn", true);
	}
	event_set_turn(conversation_bus(cv), conversation_turn(cv));
	plan_sync(cv, true);
}
