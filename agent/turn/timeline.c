/*
 * timeline: the conversation's turns through time.
 *
 * Owns the turn list for the turn browser, rewind (conversation, files or
 * both, as a record in the log), redo of the last rewind, fork into a new
 * session, a new empty conversation (/clear), and putting files back from
 * their snapshots.
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
#include "event.h"
#include "model/http.h"
#include "hooks.h"
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
#include "sub/subagent.h"
#include "inbox.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"
#include "utf8.h"
#include "store/wsnap.h"
#include "plan/plan.h"

static int timeline_restore_file(struct conversation *cv, const char *path, const char *have, const char *want, bool force, struct buf *report);
static int timeline_restore_records(struct conversation *cv, const cJSON *ids, bool undo, bool force, struct buf *report);
static void timeline_emit_rewind(struct conversation *cv, const char *what, int turn);

/* The browser's name for the turn the ! commands since the last prompt go with. */
#define TIMELINE_PENDING	"(your ! commands since the last prompt)"

/* Does a record not undone belong to a turn at or after turn? */
static bool
timeline_has_records(struct conversation *cv, int turn)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, session_files(agent_session(conversation_agent(cv))))
		if (json_int(f, "turn", 0) >= turn && !json_bool(f, "undone", false))
			return true;
	return false;
}

/* --- turns, rewind, redo, fork ------------------------------------------- */

/*
 * Who wrote a snapshot record, as the user knows it: a model's command by
 * its first line ("run_bash: make test"), the user's own as theirs.
 */
static void
timeline_who(struct conversation *cv, const cJSON *rec, struct buf *out)
{
	const char *id = json_str(rec, "id", ""), *by = json_str(rec, "by", "");
	const cJSON *m, *b;

	if (strcmp(by, "!command") == 0) {
		buf_puts(out, "your ! command");
		return;
	}
	cJSON_ArrayForEach(m, conversation_conv(cv)->messages)
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *cmd = json_str(json_get(b, "input"), "command", NULL);
			size_t n;

			if (strcmp(json_str(b, "type", ""), "tool_use") != 0 ||
			    strcmp(json_str(b, "id", ""), id) != 0 || cmd == NULL)
				continue;
			n = strcspn(cmd, "\n");
			buf_printf(out, "%s: %.*s%s", by, (int)(n > 60 ? utf8_floor(cmd, 60) : n), cmd,
			    n > 60 || cmd[n] == '\n' ? "\xE2\x80\xA6" : "");
			return;
		}
}

cJSON *
agent_turns(struct agent *a)
{
	struct conversation *cv = agent_main(a);
	struct buf who = BUF_INIT(4096);
	cJSON *out = cJSON_CreateArray(), *cur = NULL, *m, *b, *f, *t;
	int last = -1;

	cJSON_ArrayForEach(m, conversation_conv(cv)->messages) {
		int turn = (int)json_int(m, "_turn", 0);
		bool user = strcmp(json_str(m, "role", ""), "user") == 0;

		if (turn != last) {
			last = turn;
			cur = cJSON_CreateObject();
			cJSON_AddNumberToObject(cur, "turn", turn);
			cJSON_AddStringToObject(cur, "prompt", "");
			cJSON_AddArrayToObject(cur, "tools");
			cJSON_AddArrayToObject(cur, "files");
			cJSON_AddBoolToObject(cur, "bash", 0);
			cJSON_AddItemToArray(out, cur);
		}
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *type = json_str(b, "type", "");

			if (user && strcmp(type, "text") == 0 && json_str(cur, "prompt", "")[0] == '\0')
				cJSON_ReplaceItemInObjectCaseSensitive(cur, "prompt",
				    cJSON_CreateString(json_str(b, "text", "")));
			if (!user && strcmp(type, "tool_use") == 0) {
				cJSON_AddItemToArray(json_get(cur, "tools"),
				    cJSON_CreateString(json_str(b, "name", "")));
				/* a subagent's calls are its caller's turn's */
				sub_tool_names(session_submsgs(agent_session(a)), json_str(b, "id", ""),
				    json_get(cur, "tools"));
				if (strcmp(json_str(b, "name", ""), "run_bash") == 0 && agent_wsnap(a) == NULL)
					cJSON_ReplaceItemInObjectCaseSensitive(cur, "bash", cJSON_CreateTrue());
			}
		}
	}
	/* the user's ! commands since the last prompt: their turn has no messages yet */
	cJSON_ArrayForEach(f, session_files(agent_session(a))) {
		int turn = (int)json_int(f, "turn", 0);

		if (turn <= last || json_bool(f, "undone", false))
			continue;
		last = turn;
		cur = cJSON_CreateObject();
		cJSON_AddNumberToObject(cur, "turn", turn);
		cJSON_AddStringToObject(cur, "prompt", TIMELINE_PENDING);
		cJSON_AddBoolToObject(cur, "pending", 1);
		cJSON_AddArrayToObject(cur, "tools");
		cJSON_AddArrayToObject(cur, "files");
		cJSON_AddBoolToObject(cur, "bash", 0);
		cJSON_AddItemToArray(out, cur);
	}
	cJSON_ArrayForEach(cur, out) {
		int turn = (int)json_int(cur, "turn", 0);

		cJSON_ArrayForEach(f, session_files(agent_session(a))) {
			if (json_int(f, "turn", -1) != turn || json_bool(f, "undone", false))
				continue;
			timeline_who(cv, f, &who);
			wsnap_turn_add(cur, f, who.len > 0 ? buf_cstr(&who) : NULL);
			buf_reset(&who);
			cJSON_ArrayForEach(t, json_get(f, "files"))
				cJSON_AddItemToArray(json_get(cur, "files"),
				    cJSON_CreateString(json_str(t, "path", "")));
		}
		cJSON_ArrayForEach(t, session_turninfo(agent_session(a))) {
			if (json_int(t, "turn", -1) != turn)
				continue;
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "tokens");
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "ms");
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "time");
			cJSON_AddNumberToObject(cur, "tokens", json_num(t, "tokens", 0));
			cJSON_AddNumberToObject(cur, "ms", json_num(t, "ms", 0));
			cJSON_AddNumberToObject(cur, "time", json_num(t, "time", 0));
		}
	}
	buf_release(&who);
	return out;
}

/*
 * Put one file back to a state tandem recorded: from "have" (what tandem
 * left there) to "want" (a snapshot; NULL: no file).  A file whose content
 * is not "have" changed outside tandem: it is left alone unless force.
 * 0 done, 1 left alone, -1 failed.
 */
static int
timeline_restore_file(struct conversation *cv, const char *path, const char *have, const char *want,
    bool force, struct buf *report)
{
	struct agent *a = conversation_agent(cv);
	struct buf err = BUF_INIT(4096);
	struct sandbox sb = { agent_config(a)->root, (const char *const *)agent_config(a)->add_dirs, NULL };
	struct sandbox_at at;
	char *abs = NULL, *data = NULL, *now = NULL, hex[SHA256_HEX_LEN + 1];
	size_t len = 0, nowlen = 0;
	int rc = -1, h;

	/* What is there now, read through the walk: the check and the use see one file. */
	if (sandbox_walk(&sb, path, SANDBOX_EDIT, 0, &at, &err) == -1)
		goto out;
	abs = xstrdup(at.abs);
	h = at.exists ? fsutil_read_at(&at, FSUTIL_MAX_FILE, &now, &nowlen, &err) : FSUTIL_MISSING;
	sandbox_at_release(&at);
	if (h == -1)
		goto out;
	hex[0] = '\0';
	if (h == 0)
		sha256_hex(now, nowlen, hex);
	if (!force && (have != NULL ? h == FSUTIL_MISSING || strcmp(hex, have) != 0 :
	    h != FSUTIL_MISSING)) {
		buf_printf(report, "%s changed outside tandem since tandem last wrote it: left alone\n", path);
		rc = 1;
		goto out;
	}
	/* Whatever is there now is kept too, so nothing is ever lost: unkept, it stays. */
	if (h == 0) {
		int kept;

		errno = 0;
		kept = fsutil_snapshot(agent_snap_dir(a), now, nowlen, hex, &err);
		if (kept == -1) {
			session_fail(agent_session(a), "files/", errno != 0 ? errno : EIO);
			buf_reset(&err);
			buf_puts(&err, session_error(agent_session(a)));
			goto out;
		}
	}
	/* Written beneath the roots (--add-dir ones too), if it still holds what was read. */
	if (want == NULL)
		rc = h == FSUTIL_MISSING ? 0 : fsutil_remove_in(&sb, abs, hex, &err);
	else if (fsutil_snapshot_load(agent_snap_dir(a), want, &data, &len, &err) == 0)
		rc = fsutil_write_in(&sb, abs, data, len, h == 0 ? hex : "", &err);
	if (rc == 0)
		buf_printf(report, "%s %s\n", want == NULL ? "removed" : "restored", path);
out:
	if (rc == -1)
		buf_printf(report, "%s: %s\n", path, buf_cstr(&err));
	free(abs);
	free(data);
	free(now);
	buf_release(&err);
	return rc;
}

/*
 * Undo (or redo) the files records whose ids are in ids, newest first
 * when undoing.  Returns 1 if some file was left alone.
 */
static int
timeline_restore_records(struct conversation *cv, const cJSON *ids, bool undo, bool force, struct buf *report)
{
	struct agent *a = conversation_agent(cv);
	const cJSON *recs = session_files(agent_session(a)), *f, *id;
	int n = cJSON_GetArraySize(recs), i, conflicts = 0;

	for (i = undo ? n - 1 : 0; undo ? i >= 0 : i < n; i += undo ? -1 : 1) {
		const cJSON *rec = cJSON_GetArrayItem(recs, i);
		bool listed = false;
		int k, nf;

		cJSON_ArrayForEach(id, ids)
			if (strcmp(id->valuestring, json_str(rec, "id", "")) == 0)
				listed = true;
		if (!listed)
			continue;
		if (wsnap_is_record(rec)) {
			conflicts |= wsnap_restore(agent_wsnap(a), rec, undo, force, report) != 0;
			continue;
		}
		nf = cJSON_GetArraySize(json_get(rec, "files"));
		for (k = undo ? nf - 1 : 0; undo ? k >= 0 : k < nf; k += undo ? -1 : 1) {
			f = cJSON_GetArrayItem(json_get(rec, "files"), k);
			if (timeline_restore_file(cv, json_str(f, "path", ""),
			    json_str(f, undo ? "after" : "before", NULL),
			    json_str(f, undo ? "before" : "after", NULL), force, report) == 1)
				conflicts = 1;
		}
	}
	return conflicts;
}

static void
timeline_emit_rewind(struct conversation *cv, const char *what, int turn)
{
	emit_rewind(conversation_bus(cv), what, turn);
	resume_replay_history(cv);
}

int
agent_rewind(struct agent *a, int turn, enum rewind_what what, bool force, struct buf *report)
{
	struct conversation *cv = agent_main(a);
	cJSON *rec, *removed, *ids, *m, *f;
	int keep = -1, i = 0, n, nids, nremoved, conflicts = 0;

	if (agent_in_turn(cv)) {
		buf_puts(report, "a turn is running: interrupt it first\n");
		return -1;
	}
	/* what it changes meanwhile would be taken for its own changes */
	if (inbox_commands_running(cv)) {
		buf_puts(report, "a ! command is running: let it end (or stop it with Esc) first\n");
		return -1;
	}
	if (session_error(agent_session(a)) != NULL) {
		buf_printf(report, "%s\n", session_error(agent_session(a)));
		return -1;
	}
	cJSON_ArrayForEach(m, conversation_conv(cv)->messages) {
		if (json_int(m, "_turn", 0) >= turn) {
			keep = i;
			break;
		}
		i++;
	}
	/* the turn of the ! commands since the last prompt: files only, nothing to drop */
	if (keep < 0 && turn > 0 && timeline_has_records(cv, turn))
		keep = conv_count(conversation_conv(cv));
	if (keep < 0) {
		buf_printf(report, "there is no turn %d in this conversation\n", turn);
		return -1;
	}
	ids = cJSON_CreateArray();
	if (what & REWIND_FILES)
		cJSON_ArrayForEach(f, session_files(agent_session(a)))
			if (json_int(f, "turn", 0) >= turn && !json_bool(f, "undone", false))
				cJSON_AddItemToArray(ids, cJSON_CreateString(json_str(f, "id", "")));
	if (cJSON_GetArraySize(ids) > 0)
		conflicts = timeline_restore_records(cv, ids, true, force, report);
	removed = cJSON_CreateArray();
	n = conv_count(conversation_conv(cv));
	if (what & REWIND_CONVERSATION) {
		for (i = keep; i < n; i++)
			cJSON_AddItemToArray(removed,
			    cJSON_Duplicate(cJSON_GetArrayItem(conversation_conv(cv)->messages, i), 1));
	} else {
		keep = n;
	}
	nids = cJSON_GetArraySize(ids);
	nremoved = cJSON_GetArraySize(removed);
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "rewind");
	cJSON_AddNumberToObject(rec, "to_turn", turn);
	cJSON_AddNumberToObject(rec, "keep", keep);
	cJSON_AddItemToObject(rec, "removed", removed);
	cJSON_AddItemToObject(rec, "undone", ids);
	if (session_append(agent_session(a), rec) == -1 || session_sync(agent_session(a)) == -1) {
		agent_unsaved(cv);
		buf_printf(report, "%s\n", session_error(agent_session(a)));
		return -1;
	}
	while (conv_count(conversation_conv(cv)) > keep)
		cJSON_DeleteItemFromArray(conversation_conv(cv)->messages, conv_count(conversation_conv(cv)) - 1);
	conv_changed(conversation_conv(cv));
	if ((what & REWIND_CONVERSATION) && nremoved > 0)
		buf_printf(report, "the conversation is back to just before turn %d\n", turn);
	else if (what & REWIND_CONVERSATION)
		buf_printf(report, "turn %d has no messages yet: the conversation stays as it is\n", turn);
	if ((what & REWIND_FILES) && nids == 0)
		buf_puts(report, "no file changes of tandem's tools to undo\n");
	if ((what & REWIND_FILES) && agent_wsnap(a) == NULL)
		buf_puts(report, "snapshots are off (snapshots.enabled): changes made by run_bash "
		    "are not tracked and were not undone\n");
	timeline_emit_rewind(cv, what == REWIND_BOTH ? "both" : what == REWIND_FILES ? "files" :
	    "conversation", turn);
	return conflicts;
}

int
agent_redo(struct agent *a, bool force, struct buf *report)
{
	struct conversation *cv = agent_main(a);
	const cJSON *rw = session_last_rewind(agent_session(a)), *m;
	cJSON *rec;
	int conflicts = 0;

	if (agent_in_turn(cv)) {
		buf_puts(report, "a turn is running: interrupt it first\n");
		return -1;
	}
	/* what it changes meanwhile would be taken for its own changes */
	if (inbox_commands_running(cv)) {
		buf_puts(report, "a ! command is running: let it end (or stop it with Esc) first\n");
		return -1;
	}
	if (rw == NULL) {
		buf_puts(report, "there is no rewind to redo\n");
		return -1;
	}
	if (json_int(rw, "keep", -1) != conv_count(conversation_conv(cv))) {
		buf_puts(report, "the conversation has moved on since the rewind: nothing to redo\n");
		return -1;
	}
	if (session_error(agent_session(a)) != NULL) {
		buf_printf(report, "%s\n", session_error(agent_session(a)));
		return -1;
	}
	conflicts = timeline_restore_records(cv, json_get(rw, "undone"), false, force, report);
	cJSON_ArrayForEach(m, json_get(rw, "removed"))
		conv_add(conversation_conv(cv), json_str(m, "role", "user"),
		    cJSON_Duplicate(json_get(m, "content"), 1), (int)json_int(m, "_turn", 0));
	buf_printf(report, "redone: back to where the rewind to turn %lld started\n",
	    (long long)json_int(rw, "to_turn", 0));
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "redo");
	/* after this, rw is gone */
	if (session_append(agent_session(a), rec) == -1 || session_sync(agent_session(a)) == -1) {
		agent_unsaved(cv);
		buf_printf(report, "%s\n", session_error(agent_session(a)));
		return -1;
	}
	timeline_emit_rewind(cv, "redo", 0);
	return conflicts;
}

int
agent_fork(struct agent *a, int turn, struct buf *report)
{
	const struct config *cfg = agent_config(a);
	struct conversation *cv = agent_main(a);
	struct buf err = BUF_INIT(4096), src = BUF_INIT(8192);
	struct session *sess;
	const char *from = session_id(agent_session(a));
	char *first;
	cJSON *m, *next, *hist;
	int rc;

	if (agent_in_turn(cv)) {
		buf_puts(report, "a turn is running: interrupt it first\n");
		return -1;
	}
	/* what it changes meanwhile would be taken for its own changes */
	if (inbox_commands_running(cv)) {
		buf_puts(report, "a ! command is running: let it end (or stop it with Esc) first\n");
		return -1;
	}
	sess = session_create(cfg->home, cfg->root, agent_model(a), from, &err);
	if (sess == NULL) {
		buf_printf(report, "%s\n", buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	/* The fork holds the conversation through turn (0: all of it), on disk before it is used. */
	rc = 0;
	cJSON_ArrayForEach(m, conversation_conv(cv)->messages)
		if ((turn <= 0 || json_int(m, "_turn", 0) <= turn) && rc == 0)
			rc = session_log_message(sess, m);
	if (turn > 0 && turn < conversation_turn(cv))
		conversation_set_turn(cv, turn);
	first = xstrdup(json_str(session_meta(agent_session(a)), "first_prompt", ""));
	if (rc == 0)
		rc = session_note_turn(sess, conversation_turn(cv), first[0] != '\0' ? first : NULL);
	free(first);
	if (rc == 0)
		rc = session_sync(sess);
	if (rc == -1) {
		buf_printf(report, "%s\n", session_error(sess));
		session_close(sess);
		return -1;
	}
	for (m = conversation_conv(cv)->messages->child; m != NULL; m = next) {
		next = m->next;
		if (turn > 0 && json_int(m, "_turn", 0) > turn)
			cJSON_Delete(cJSON_DetachItemViaPointer(conversation_conv(cv)->messages, m));
	}
	conv_changed(conversation_conv(cv));
	buf_printf(report, "forked %s into %s\n", from, session_id(sess));
	/* its turns keep their tools, files, tokens and times (read before the source is closed) */
	hist = resume_fork_history(agent_session(a), turn, conversation_conv(cv)->messages);
	buf_printf(&src, "%s", agent_snap_dir(a));
	resume_use_session(cv, sess);
	if (resume_adopt_history(cv, hist, buf_cstr(&src)) == 0)
		session_sync(agent_session(a));
	buf_release(&src);
	event_set_turn(conversation_bus(cv), conversation_turn(cv));
	agent_set_fork_dry_run(a, true);
	agent_set_resumed(a, true);
	emit_session(conversation_bus(cv), session_id(agent_session(a)), agent_model(a),
	    agent_proto(a) == STREAM_OPENAI ? "openai" : "anthropic", cfg->root, true,
	    json_str(session_meta(agent_session(a)), "forked_from", ""));
	resume_replay_history(cv);
	return 0;
}

const char *
agent_forked_from(const struct agent *a)
{
	return json_str(session_meta(agent_session(a)), "forked_from", NULL);
}

int
agent_clear(struct agent *a)
{
	struct conversation *cv = agent_main(a);

	if (agent_in_turn(cv))
		return -1;
	struct buf err = BUF_INIT(4096);
	struct session *sess;

	sess = session_create(agent_config(a)->home, agent_config(a)->root, agent_model(a), NULL, &err);
	if (sess == NULL) {
		event_error(conversation_bus(cv), 0, "%s", buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	conv_clear(conversation_conv(cv));
	plan_sync(cv, true);
	resume_use_session(cv, sess);
	cachewatch_forget(conversation_cachewatch(cv));
	compaction_reset(cv);
	conversation_set_turn(cv, 0);
	agent_set_resumed(a, false);
	event_set_turn(conversation_bus(cv), 0);
	agent_emit_session(cv, false);
	agent_session_start(cv, "clear");
	return 0;
}
