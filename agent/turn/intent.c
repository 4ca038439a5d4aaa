/*
 * intent: what a rewind needs after a crash, in the log before a writer
 * runs (see intent.h).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "turn_int.h"
#include "intent.h"
#include "run_bash.h"
#include "patch.h"
#include "store/wsnap.h"

static bool intent_marked_is_done(const struct conversation *, const char *id, const char *by);

/* The paths a write tool's input names: "path", or the names a patch reads and writes. */
static void
intent_input_paths(const struct sched_call *c, cJSON *paths)
{
	const char *path = json_str(c->input, "path", NULL), *text = json_str(c->input, "patch", NULL);
	struct buf err = BUF_INIT(4096);
	struct patch_plan plan;
	size_t i;

	if (path != NULL)
		cJSON_AddItemToArray(paths, cJSON_CreateString(path));
	memset(&plan, 0, sizeof plan);
	if (text != NULL && patch_parse(text, strlen(text), &plan, &err) == 0) {
		for (i = 0; i < plan.nf; i++) {
			const struct patch_file *f = &plan.files[i];
			const char *names[] = { f->old_name, f->new_name, f->alt_name };
			size_t k;

			for (k = 0; k < sizeof names / sizeof names[0]; k++)
				if (names[k] != NULL)
					cJSON_AddItemToArray(paths, cJSON_CreateString(names[k]));
		}
		patch_plan_release(&plan);
	}
	buf_release(&err);
}

/*
 * What path holds now: FSUTIL_MISSING, 0 with its hash in hex (and its
 * content kept in the session's store when keep), or -1 (unreadable,
 * outside the roots, too large: nothing tandem can put back).  *rel gets
 * the path as the records name it (the caller frees it).
 */
static int
intent_state(struct conversation *cv, const char *path, bool keep, char hex[SHA256_HEX_LEN + 1], char **rel)
{
	struct agent *a = conversation_agent(cv);
	struct sandbox sb = { agent_config(a)->root, (const char *const *)agent_config(a)->add_dirs, NULL };
	struct buf err = BUF_INIT(4096);
	struct sandbox_at at;
	char *data = NULL;
	size_t len = 0;
	int rc = -1;

	hex[0] = '\0';
	*rel = NULL;
	if (sandbox_walk(&sb, path, SANDBOX_EDIT, 0, &at, &err) == -1)
		goto out;
	*rel = xstrdup(at.rel);
	rc = at.exists ? fsutil_read_at(&at, FSUTIL_MAX_FILE, &data, &len, &err) : FSUTIL_MISSING;
	sandbox_at_release(&at);
	if (rc == 0 && keep) {
		errno = 0;
		if (fsutil_snapshot(agent_snap_dir(a), data, len, hex, &err) == -1) {
			session_fail(agent_session(a), "files/", errno != 0 ? errno : EIO);
			rc = -1;
		}
	} else if (rc == 0) {
		sha256_hex(data, len, hex);
	}
out:
	free(data);
	buf_release(&err);
	return rc;
}

int
intent_mark(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	cJSON *rec;

	if (cJSON_GetArraySize(session_intents(agent_session(a))) > 0)
		return 0;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "intent");
	cJSON_AddBoolToObject(rec, "since", 1);
	return session_append(agent_session(a), rec);
}

int
intent_started(struct conversation *cv, const struct sched_call *c, bool snapped)
{
	struct agent *a = conversation_agent(cv);
	cJSON *rec = cJSON_CreateObject(), *paths = cJSON_CreateArray(), *files, *p;
	char hex[SHA256_HEX_LEN + 1];
	int rc = 0;

	cJSON_AddStringToObject(rec, "k", "intent");
	cJSON_AddNumberToObject(rec, "turn", conversation_turn(cv));
	cJSON_AddStringToObject(rec, "id", c->id);
	cJSON_AddStringToObject(rec, "name", c->name);
	if (snapped && agent_wsnap(a) != NULL) {
		rc = wsnap_keep_before(agent_wsnap(a), hex);
		if (rc == 0 && hex[0] != '\0')
			cJSON_AddStringToObject(rec, "snap", hex);
	}
	if (c->tool != NULL && c->tool->cls == TOOL_WRITE)
		intent_input_paths(c, paths);
	files = cJSON_AddArrayToObject(rec, "files");
	cJSON_ArrayForEach(p, paths) {
		cJSON *o;
		char *rel;
		int h;

		if (rc == -1)
			break;
		h = intent_state(cv, p->valuestring, true, hex, &rel);
		if (session_error(agent_session(a)) != NULL)
			rc = -1;
		/* a path the tool cannot reach either: it will fail there, changing nothing */
		if (rel == NULL)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", p->valuestring);
		if (h == 0)
			cJSON_AddStringToObject(o, "before", hex);
		else if (h == FSUTIL_MISSING)
			cJSON_AddNullToObject(o, "before");
		else
			cJSON_AddBoolToObject(o, "lost", 1);
		cJSON_AddItemToArray(files, o);
		free(rel);
	}
	cJSON_Delete(paths);
	if (rc == -1) {
		cJSON_Delete(rec);
		return -1;
	}
	/* on disk before the call can change anything */
	if (session_append(agent_session(a), rec) == -1 || session_sync(agent_session(a)) == -1)
		return -1;
	crash_point("tool-intent");
	return 0;
}

int
intent_marked_started(struct conversation *cv, const char *id, int turn, const char *by)
{
	struct agent *a = conversation_agent(cv);
	cJSON *rec;
	char hex[SHA256_HEX_LEN + 1];

	if (agent_wsnap(a) == NULL || wsnap_keep_before(agent_wsnap(a), hex) == -1 || hex[0] == '\0')
		return agent_wsnap(a) != NULL && session_error(agent_session(a)) != NULL ? -1 : 0;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "intent");
	cJSON_AddNumberToObject(rec, "turn", turn);
	cJSON_AddStringToObject(rec, "id", id);
	cJSON_AddStringToObject(rec, "name", by);
	cJSON_AddStringToObject(rec, "snap", hex);
	cJSON_AddBoolToObject(rec, "marked", 1);
	if (session_append(agent_session(a), rec) == -1 || session_sync(agent_session(a)) == -1)
		return -1;
	return 0;
}

int
intent_marked_done(struct conversation *cv, const char *id, const char *by)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "k", "intent");
	cJSON_AddStringToObject(rec, "done", id);
	cJSON_AddStringToObject(rec, "by", by);
	return session_append(agent_session(conversation_agent(cv)), rec);
}

int
intent_marked_close(struct conversation *cv, const char *by)
{
	const cJSON *in;
	cJSON *open = cJSON_CreateArray(), *id;
	int rc = 0;

	cJSON_ArrayForEach(in, session_intents(agent_session(conversation_agent(cv))))
		if (json_bool(in, "marked", false) && strcmp(json_str(in, "name", ""), by) == 0 &&
		    !intent_marked_is_done(cv, json_str(in, "id", ""), by))
			cJSON_AddItemToArray(open, cJSON_CreateString(json_str(in, "id", "")));
	cJSON_ArrayForEach(id, open)
		if (rc == 0)
			rc = intent_marked_done(cv, id->valuestring, by);
	cJSON_Delete(open);
	return rc;
}

/* Is the writer id of by marked done (intent_marked_done)? */
static bool
intent_marked_is_done(const struct conversation *cv, const char *id, const char *by)
{
	const cJSON *in;

	cJSON_ArrayForEach(in, session_intents(agent_session(conversation_agent(cv))))
		if (strcmp(json_str(in, "done", ""), id) == 0 && strcmp(json_str(in, "by", ""), by) == 0)
			return true;
	return false;
}

/* The first "files" record of id by the writer by (NULL: a file tool's, which has no "by"). */
static const cJSON *
intent_files_record(const struct conversation *cv, const char *id, const char *by)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, session_files(agent_session(conversation_agent(cv))))
		if (strcmp(json_str(f, "id", ""), id) == 0 &&
		    (by == NULL ? !wsnap_is_record(f) : strcmp(json_str(f, "by", ""), by) == 0))
			return f;
	return NULL;
}

/* A write tool's changes: its input's paths now against their content before. */
static int
intent_recover_files(struct conversation *cv, const cJSON *in)
{
	struct agent *a = conversation_agent(cv);
	cJSON *changes = cJSON_CreateArray(), *rec;
	const cJSON *f;
	char hex[SHA256_HEX_LEN + 1];

	cJSON_ArrayForEach(f, json_get(in, "files")) {
		const char *before = json_str(f, "before", NULL);
		char *rel;
		int h;

		if (json_bool(f, "lost", false))
			continue;
		h = intent_state(cv, json_str(f, "path", ""), true, hex, &rel);
		if (session_error(agent_session(a)) != NULL) {
			free(rel);
			cJSON_Delete(changes);
			return -1;
		}
		if (rel != NULL && h != -1 &&
		    !(h == FSUTIL_MISSING ? before == NULL : before != NULL && strcmp(before, hex) == 0)) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "path", rel);
			if (before != NULL)
				cJSON_AddStringToObject(o, "before", before);
			else
				cJSON_AddNullToObject(o, "before");
			if (h == 0)
				cJSON_AddStringToObject(o, "after", hex);
			else
				cJSON_AddNullToObject(o, "after");
			cJSON_AddItemToArray(changes, o);
		}
		free(rel);
	}
	if (cJSON_GetArraySize(changes) == 0) {
		cJSON_Delete(changes);
		return 0;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "files");
	cJSON_AddNumberToObject(rec, "turn", (double)json_int(in, "turn", 0));
	cJSON_AddStringToObject(rec, "id", json_str(in, "id", ""));
	cJSON_AddItemToObject(rec, "files", changes);
	cJSON_AddBoolToObject(rec, "recovered", 1);
	return session_append(agent_session(a), rec);
}

/* One call a crash cut off: its records, then its ledger entry.  0 or -1. */
static int
intent_recover_one(struct conversation *cv, const cJSON *in)
{
	struct agent *a = conversation_agent(cv);
	const char *id = json_str(in, "id", ""), *name = json_str(in, "name", "");
	const char *snap = json_str(in, "snap", NULL);
	struct buf result = BUF_INIT(64 * 1024);
	bool covered = true;
	int rc = 0;

	if (intent_files_record(cv, id, NULL) == NULL && cJSON_GetArraySize(json_get(in, "files")) > 0)
		rc = intent_recover_files(cv, in);
	if (rc == 0 && snap != NULL && intent_files_record(cv, id, name) == NULL) {
		/* the tree now against the before-snapshot, if wsnap.idx still is that one */
		if (wsnap_rearm(agent_wsnap(a), snap))
			rc = wsnap_record(agent_wsnap(a), (int)json_int(in, "turn", 0), id, name);
		else
			covered = false;
	}
	if (rc == -1)
		goto out;
	if (strcmp(name, "run_bash") == 0 && intent_keeper_ended(cv, id))
		buf_puts(&result, "stopped: tandem ended while this command was running, and the "
		    "command and every process it started were killed then; it did not finish, "
		    "so check what it did before running it again");
	else
		buf_printf(&result, "interrupted: tandem stopped while this %s call was running, so its "
		    "state is unknown; check what it did before retrying it", name);
	if (covered)
		buf_puts(&result, " (what it changed in the files up to then is recorded: a rewind "
		    "of this turn with its files undoes it)");
	crash_point("intent-recover");
	rc = session_effect(agent_session(a), id, name, buf_cstr(&result), true);
out:
	buf_release(&result);
	return rc;
}

int
intent_recover(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	const cJSON *in;

	if (session_error(agent_session(a)) != NULL)
		return -1;
	cJSON_ArrayForEach(in, session_intents(agent_session(a))) {
		const char *id = json_str(in, "id", NULL);

		if (id == NULL)
			continue;
		/* a writer with no ledger entry (a ! command, a hook): its own mark says it ended */
		if (json_bool(in, "marked", false)) {
			const char *by = json_str(in, "name", "");

			if (intent_marked_is_done(cv, id, by))
				continue;
			if (intent_files_record(cv, id, by) == NULL &&
			    wsnap_rearm(agent_wsnap(a), json_str(in, "snap", NULL)) &&
			    wsnap_record(agent_wsnap(a), (int)json_int(in, "turn", 0), id, by) == -1)
				return -1;
			if (intent_marked_done(cv, id, by) == -1)
				return -1;
			continue;
		}
		if (session_effect_find(agent_session(a), id) != NULL)
			continue;
		if (intent_recover_one(cv, in) == -1)
			return -1;
	}
	return 0;
}

bool
intent_never_started(const struct conversation *cv, const char *id)
{
	const cJSON *in;
	bool since = false;

	cJSON_ArrayForEach(in, session_intents(agent_session(conversation_agent(cv)))) {
		if (json_bool(in, "since", false))
			since = true;
		else if (!json_bool(in, "marked", false) && strcmp(json_str(in, "id", ""), id) == 0)
			return false;
	}
	return since;
}

/*
 * Whether the keeper of call id's command left its note: tandem ended while
 * the command ran, and the keeper killed the command and all it started.
 */
bool
intent_keeper_ended(const struct conversation *cv, const char *id)
{
	struct agent *a = conversation_agent(cv);
	struct buf path = BUF_INIT(8192);
	bool ended;

	if (agent_env(a)->session_dir == NULL)
		return false;
	buf_printf(&path, "%s/", agent_env(a)->session_dir);
	bash_note_name(&path, id);
	ended = access(buf_cstr(&path), F_OK) == 0;
	buf_release(&path);
	return ended;
}
