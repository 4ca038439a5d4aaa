/* Durable sessions: see session.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "session.h"
#include "xalloc.h"

struct session {
	char	*id;
	char	*dir;
	int	 logfd;
	int64_t	 logsize;
	cJSON	*meta;
	cJSON	*messages;	/* the head, rebuilt from the log */
	cJSON	*effects;
	cJSON	*checkpoint;
	int	 turns;		/* the highest turn number ever used */
	cJSON	*files;		/* "files" records: what tandem's tools changed */
	cJSON	*turninfo;	/* "turn" records: prompt, tools, tokens, time */
	cJSON	*rewinds;	/* "rewind" records not undone, newest last */
};

void
crash_point(const char *label)
{
	static char *want;
	static long target = -1, count;
	static bool parsed;
	size_t n;

	if (!parsed) {
		const char *env = getenv("TANDEM_CRASH_AFTER");
		const char *colon = env != NULL ? strrchr(env, ':') : NULL;

		parsed = true;
		if (colon != NULL) {
			char *end;

			want = xstrndup(env, (size_t)(colon - env));
			target = strtol(colon + 1, &end, 10);
			if (*end != '\0' || target < 1)
				target = -1;
		}
	}
	if (want == NULL || target < 0)
		return;
	n = strlen(want);
	if (strncmp(label, want, n) != 0 || label[n] != '\0')
		return;
	if (++count == target)
		_exit(137);
}

static int
session_fsync_dir(const char *path)
{
	char *copy = xstrdup(path), *d = dirname(copy);
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd != -1) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

int
session_write_atomic(const char *path, const char *data, size_t n, struct buf *err)
{
	struct buf tmp = BUF_INIT(8192);
	size_t off = 0;
	int fd;

	buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(buf_cstr(&tmp), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1)
		goto fail;
	while (off < n) {
		ssize_t w = write(fd, data + off, n - off);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd) == -1 || close(fd) == -1)
		goto fail;
	if (rename(buf_cstr(&tmp), path) == -1)
		goto fail;
	session_fsync_dir(path);
	buf_release(&tmp);
	return 0;
fail:
	if (err != NULL)
		buf_printf(err, "cannot write %s: %s", path, strerror(errno));
	unlink(buf_cstr(&tmp));
	buf_release(&tmp);
	return -1;
}

static int
session_write_json(const char *dir, const char *name, const cJSON *j, struct buf *err)
{
	struct buf path = BUF_INIT(8192);
	char *s = cJSON_Print(j);
	int rc;

	buf_printf(&path, "%s/%s", dir, name);
	rc = session_write_atomic(buf_cstr(&path), s, strlen(s), err);
	cJSON_free(s);
	buf_release(&path);
	return rc;
}

static int
session_mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (mkdir(p, 0700) == -1 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* Seconds since the epoch, with milliseconds: sessions of the same second still sort. */
static double
session_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1000.0;
}

static char *
session_new_id(void)
{
	char id[64];
	time_t now = time(NULL);
	struct tm tm;
	unsigned r = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd == -1 || read(fd, &r, sizeof r) != (ssize_t)sizeof r)
		r = (unsigned)getpid() ^ (unsigned)now;
	if (fd != -1)
		close(fd);
	gmtime_r(&now, &tm);
	snprintf(id, sizeof id, "%04d%02d%02d-%02d%02d%02d-%06x",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec, r & 0xffffff);
	return xstrdup(id);
}

static struct session *
session_alloc(const char *home, const char *id)
{
	struct session *s = xcalloc(1, sizeof *s);
	struct buf d = BUF_INIT(8192);

	s->id = xstrdup(id);
	buf_printf(&d, "%s/sessions/%s", home, id);
	s->dir = buf_detach(&d, NULL);
	s->logfd = -1;
	s->messages = cJSON_CreateArray();
	s->effects = cJSON_CreateObject();
	s->files = cJSON_CreateArray();
	s->turninfo = cJSON_CreateArray();
	s->rewinds = cJSON_CreateArray();
	return s;
}

static int
session_open_log(struct session *s, struct buf *err)
{
	struct buf p = BUF_INIT(8192);
	struct stat st;

	buf_printf(&p, "%s/log.jsonl", s->dir);
	s->logfd = open(buf_cstr(&p), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (s->logfd == -1) {
		buf_printf(err, "cannot open %s: %s", buf_cstr(&p), strerror(errno));
		buf_release(&p);
		return -1;
	}
	if (fstat(s->logfd, &st) == 0)
		s->logsize = st.st_size;
	buf_release(&p);
	return 0;
}

struct session *
session_create(const char *home, const char *root, const char *model,
    const char *forked_from, struct buf *err)
{
	char *id = session_new_id();
	struct session *s = session_alloc(home, id);
	struct buf p = BUF_INIT(8192);

	free(id);
	/* A new session is written, not read: the agent keeps the messages. */
	cJSON_Delete(s->messages);
	s->messages = NULL;
	buf_printf(&p, "%s/checkpoints", s->dir);
	if (session_mkdir_p(buf_cstr(&p)) == -1) {
		buf_printf(err, "cannot create the session directory %s: %s", s->dir, strerror(errno));
		buf_release(&p);
		session_close(s);
		return NULL;
	}
	buf_release(&p);
	s->meta = cJSON_CreateObject();
	cJSON_AddNumberToObject(s->meta, "version", SESSION_VERSION);
	cJSON_AddStringToObject(s->meta, "id", s->id);
	cJSON_AddStringToObject(s->meta, "cwd", root);
	cJSON_AddStringToObject(s->meta, "model", model);
	cJSON_AddNumberToObject(s->meta, "created", session_now());
	cJSON_AddNumberToObject(s->meta, "updated", session_now());
	cJSON_AddStringToObject(s->meta, "first_prompt", "");
	cJSON_AddNumberToObject(s->meta, "turns", 0);
	if (forked_from != NULL)
		cJSON_AddStringToObject(s->meta, "forked_from", forked_from);
	if (session_write_json(s->dir, "meta.json", s->meta, err) == -1 ||
	    session_open_log(s, err) == -1) {
		session_close(s);
		return NULL;
	}
	return s;
}

void
session_close(struct session *s)
{
	if (s == NULL)
		return;
	if (s->logfd != -1) {
		fsync(s->logfd);
		close(s->logfd);
	}
	cJSON_Delete(s->meta);
	cJSON_Delete(s->messages);
	cJSON_Delete(s->effects);
	cJSON_Delete(s->checkpoint);
	cJSON_Delete(s->files);
	cJSON_Delete(s->turninfo);
	cJSON_Delete(s->rewinds);
	free(s->id);
	free(s->dir);
	free(s);
}

const char *
session_id(const struct session *s)
{
	return s->id;
}

const char *
session_dir(const struct session *s)
{
	return s->dir;
}

const cJSON *
session_meta(const struct session *s)
{
	return s->meta;
}

const cJSON *
session_messages(const struct session *s)
{
	return s->messages;
}

cJSON *
session_take_messages(struct session *s)
{
	cJSON *m = s->messages;

	s->messages = NULL;
	return m != NULL ? m : cJSON_CreateArray();
}

int
session_turns(const struct session *s)
{
	return s->turns;
}

int64_t
session_log_size(const struct session *s)
{
	return s->logsize;
}

const cJSON *
session_last_checkpoint(const struct session *s)
{
	return s->checkpoint;
}

/* Mark the files records whose ids are listed as undone (or live again). */
static void
session_mark_files(struct session *s, const cJSON *ids, bool undone)
{
	const cJSON *id, *f;

	cJSON_ArrayForEach(id, ids) {
		cJSON_ArrayForEach(f, s->files) {
			if (cJSON_IsString(id) && strcmp(json_str(f, "id", ""), id->valuestring) == 0) {
				cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)f, "undone");
				if (undone)
					cJSON_AddBoolToObject((cJSON *)f, "undone", 1);
			}
		}
	}
}

const cJSON *
session_files(const struct session *s)
{
	return s->files;
}

const cJSON *
session_turninfo(const struct session *s)
{
	return s->turninfo;
}

const cJSON *
session_last_rewind(const struct session *s)
{
	int n = cJSON_GetArraySize(s->rewinds);

	return n > 0 ? cJSON_GetArrayItem(s->rewinds, n - 1) : NULL;
}

/*
 * Apply one log record to the in-memory head.  Parts of rec may be moved
 * out of it (the caller deletes what is left).  Once the messages were
 * taken (session_take_messages), only the bookkeeping is kept up.
 */
static void
session_apply(struct session *s, cJSON *rec)
{
	const char *k = json_str(rec, "k", "");

	if (strcmp(k, "msg") == 0) {
		if (json_int(rec, "turn", 0) > s->turns)
			s->turns = (int)json_int(rec, "turn", 0);
		if (s->messages != NULL) {
			cJSON *m = cJSON_CreateObject(), *content;

			content = cJSON_DetachItemFromObjectCaseSensitive(rec, "content");
			cJSON_AddStringToObject(m, "role", json_str(rec, "role", "user"));
			cJSON_AddItemToObject(m, "content", content != NULL ? content : cJSON_CreateArray());
			cJSON_AddNumberToObject(m, "_turn", (double)json_int(rec, "turn", 0));
			cJSON_AddItemToArray(s->messages, m);
		}
	} else if (s->messages == NULL && strcmp(k, "rewind") != 0 && strcmp(k, "redo") != 0 &&
	    strcmp(k, "files") != 0 && strcmp(k, "turn") != 0) {
		return;
	} else if (strcmp(k, "extend") == 0) {
		cJSON *last = cJSON_GetArrayItem(s->messages, cJSON_GetArraySize(s->messages) - 1);
		cJSON *dst = last != NULL ? json_get(last, "content") : NULL;
		const cJSON *b;

		/* A message without a content array (a damaged log) takes nothing. */
		if (cJSON_IsArray(dst))
			cJSON_ArrayForEach(b, json_get(rec, "content"))
				cJSON_AddItemToArray(dst, cJSON_Duplicate(b, 1));
	} else if (strcmp(k, "rewind") == 0) {
		int keep = (int)json_int(rec, "keep", 0);

		while (s->messages != NULL && cJSON_GetArraySize(s->messages) > keep && keep >= 0)
			cJSON_DeleteItemFromArray(s->messages, cJSON_GetArraySize(s->messages) - 1);
		session_mark_files(s, json_get(rec, "undone"), true);
		cJSON_AddItemToArray(s->rewinds, cJSON_Duplicate(rec, 1));
	} else if (strcmp(k, "redo") == 0) {
		int n = cJSON_GetArraySize(s->rewinds);
		cJSON *rw = n > 0 ? cJSON_DetachItemFromArray(s->rewinds, n - 1) : NULL;
		const cJSON *m;

		/* The messages the rewind took away come back, as they were. */
		if (s->messages != NULL)
			cJSON_ArrayForEach(m, json_get(rw, "removed"))
				cJSON_AddItemToArray(s->messages, cJSON_Duplicate(m, 1));
		session_mark_files(s, json_get(rw, "undone"), false);
		cJSON_Delete(rw);
	} else if (strcmp(k, "files") == 0) {
		cJSON_AddItemToArray(s->files, cJSON_Duplicate(rec, 1));
	} else if (strcmp(k, "turn") == 0) {
		cJSON_AddItemToArray(s->turninfo, cJSON_Duplicate(rec, 1));
		if (json_int(rec, "turn", 0) > s->turns)
			s->turns = (int)json_int(rec, "turn", 0);
	} else if (strcmp(k, "replace") == 0) {
		const cJSON *msgs = json_get(rec, "messages");

		if (cJSON_IsArray(msgs)) {
			cJSON_Delete(s->messages);
			s->messages = cJSON_Duplicate(msgs, 1);
		}
	}
}

int
session_append(struct session *s, cJSON *rec)
{
	char *line = cJSON_PrintUnformatted(rec);
	size_t n = strlen(line), off = 0;
	int rc = 0;

	session_apply(s, rec);
	line = realloc(line, n + 2);
	if (line == NULL)
		fatal("out of memory");
	line[n++] = '\n';
	while (off < n) {
		ssize_t w = write(s->logfd, line + off, n - off);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)w;
	}
	s->logsize += (int64_t)off;
	free(line);
	cJSON_Delete(rec);
	crash_point("log-append");
	return rc;
}

int
session_log_message(struct session *s, const cJSON *message)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "k", "msg");
	cJSON_AddStringToObject(rec, "role", json_str(message, "role", "user"));
	cJSON_AddNumberToObject(rec, "turn", (double)json_int(message, "_turn", 0));
	cJSON_AddItemToObject(rec, "content", cJSON_Duplicate(json_get(message, "content"), 1));
	return session_append(s, rec);
}

int
session_sync(struct session *s)
{
	return s->logfd != -1 ? fdatasync(s->logfd) : 0;
}

int
session_checkpoint(struct session *s, char which, int turn, int call,
    int64_t tokens_used, const cJSON *pending)
{
	cJSON *cp = cJSON_CreateObject();
	char name[64];
	int rc;

	session_sync(s);
	cJSON_AddNumberToObject(cp, "version", SESSION_VERSION);
	cJSON_AddStringToObject(cp, "task", s->id);
	cJSON_AddNumberToObject(cp, "turns", turn);
	cJSON_AddNumberToObject(cp, "call", call);
	cJSON_AddNumberToObject(cp, "tokens_used", (double)tokens_used);
	cJSON_AddItemToObject(cp, "pending_tool_use",
	    pending != NULL ? cJSON_Duplicate(pending, 1) : cJSON_CreateNull());
	cJSON_AddNumberToObject(cp, "log_offset", (double)s->logsize);
	cJSON_AddNumberToObject(cp, "messages", cJSON_GetArraySize(s->messages));
	snprintf(name, sizeof name, "checkpoints/turn-%04d-%c.json", turn, which);
	rc = session_write_json(s->dir, name, cp, NULL);
	/* The latest checkpoint also under a fixed name, so resume reads one file. */
	if (rc == 0)
		rc = session_write_json(s->dir, "checkpoints/latest.json", cp, NULL);
	cJSON_Delete(s->checkpoint);
	s->checkpoint = cp;
	crash_point(which == 'A' ? "checkpoint-A" : "checkpoint-B");
	return rc;
}

int
session_effect(struct session *s, const char *id, const char *name,
    const char *result, bool is_error)
{
	cJSON *e = cJSON_CreateObject();
	int rc;

	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "result", result);
	cJSON_AddBoolToObject(e, "is_error", is_error);
	cJSON_AddNumberToObject(e, "time", (double)time(NULL));
	cJSON_DeleteItemFromObjectCaseSensitive(s->effects, id);
	cJSON_AddItemToObject(s->effects, id, e);
	rc = session_write_json(s->dir, "effects.json", s->effects, NULL);
	crash_point("effect-write");
	return rc;
}

const cJSON *
session_effect_find(const struct session *s, const char *id)
{
	return json_get(s->effects, id);
}

void
session_note_turn(struct session *s, int turn, const char *prompt)
{
	cJSON_ReplaceItemInObjectCaseSensitive(s->meta, "turns", cJSON_CreateNumber(turn));
	cJSON_ReplaceItemInObjectCaseSensitive(s->meta, "updated", cJSON_CreateNumber(session_now()));
	if (prompt != NULL && json_str(s->meta, "first_prompt", "")[0] == '\0') {
		char cut[201];

		snprintf(cut, sizeof cut, "%s", prompt);
		cJSON_ReplaceItemInObjectCaseSensitive(s->meta, "first_prompt", cJSON_CreateString(cut));
	}
	session_write_json(s->dir, "meta.json", s->meta, NULL);
}

/* Read a whole small file; NULL with err set. */
static char *
session_slurp(const char *path, size_t *n, bool missing_ok, struct buf *err)
{
	struct buf b = BUF_INIT(1024u * 1024 * 1024);
	char chunk[65536];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1) {
		if (!(missing_ok && errno == ENOENT))
			buf_printf(err, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	while ((r = read(fd, chunk, sizeof chunk)) > 0)
		if (buf_append(&b, chunk, (size_t)r) == -1)
			break;
	close(fd);
	*n = b.len;
	return buf_detach(&b, NULL);
}

static cJSON *
session_read_json(const char *dir, const char *name, bool missing_ok, struct buf *err)
{
	struct buf path = BUF_INIT(8192);
	size_t n = 0;
	char *data;
	cJSON *j = NULL;
	int line, col;

	buf_printf(&path, "%s/%s", dir, name);
	data = session_slurp(buf_cstr(&path), &n, missing_ok, err);
	if (data != NULL) {
		j = json_parse_at(data, n, &line, &col);
		if (j == NULL)
			buf_printf(err, "%s:%d:%d: not valid JSON (the file is damaged)",
			    buf_cstr(&path), line, col);
	}
	free(data);
	buf_release(&path);
	return j;
}

static int
session_replay(struct session *s, struct buf *err)
{
	struct buf path = BUF_INIT(8192);
	size_t n = 0, off = 0;
	char *data;
	int lineno = 0, rc = 0;

	buf_printf(&path, "%s/log.jsonl", s->dir);
	data = session_slurp(buf_cstr(&path), &n, false, err);
	if (data == NULL) {
		buf_release(&path);
		return -1;
	}
	while (off < n) {
		char *nl = memchr(data + off, '\n', n - off);
		size_t len = nl != NULL ? (size_t)(nl - (data + off)) : n - off;
		cJSON *rec;

		lineno++;
		rec = len > 0 ? cJSON_ParseWithLength(data + off, len) : NULL;
		if (rec == NULL && len > 0) {
			if (nl == NULL)
				break;		/* a torn last line: the crash came mid-append */
			buf_printf(err, "%s:%d: a malformed record; the session log is damaged",
			    buf_cstr(&path), lineno);
			rc = -1;
			break;
		}
		if (rec != NULL) {
			session_apply(s, rec);
			cJSON_Delete(rec);
		}
		off += len + (nl != NULL ? 1 : 0);
	}
	free(data);
	buf_release(&path);
	return rc;
}

struct session *
session_open(const char *home, const char *id, struct buf *err)
{
	struct session *s;
	cJSON *cp;
	size_t i;

	for (i = 0; id[i] != '\0'; i++) {
		if (id[i] == '/' || (id[0] == '.')) {
			buf_printf(err, "\"%s\" is not a session id", id);
			return NULL;
		}
	}
	s = session_alloc(home, id);
	{
		struct buf e = BUF_INIT(4096);

		s->meta = session_read_json(s->dir, "meta.json", true, &e);
		if (s->meta == NULL) {
			if (e.len == 0)
				buf_printf(err, "there is no session %s (tandem sessions lists them)", id);
			else
				buf_puts(err, buf_cstr(&e));
			buf_release(&e);
			goto fail;
		}
		buf_release(&e);
	}
	if (json_int(s->meta, "version", -1) != SESSION_VERSION) {
		buf_printf(err, "%s/meta.json has version %lld; this tandem reads version %d",
		    s->dir, (long long)json_int(s->meta, "version", -1), SESSION_VERSION);
		goto fail;
	}
	cp = session_read_json(s->dir, "checkpoints/latest.json", true, err);
	if (cp == NULL && err->len > 0)
		goto fail;
	if (cp != NULL && json_int(cp, "version", -1) != SESSION_VERSION) {
		buf_printf(err, "%s/checkpoints/latest.json has version %lld; this tandem reads "
		    "version %d, so the session is left as it is", s->dir,
		    (long long)json_int(cp, "version", -1), SESSION_VERSION);
		cJSON_Delete(cp);
		goto fail;
	}
	s->checkpoint = cp;
	{
		cJSON *fx = session_read_json(s->dir, "effects.json", true, err);

		if (fx == NULL && err->len > 0)
			goto fail;
		if (fx != NULL) {
			cJSON_Delete(s->effects);
			s->effects = fx;
		}
	}
	if (session_replay(s, err) == -1)
		goto fail;
	if (session_open_log(s, err) == -1)
		goto fail;
	return s;
fail:
	session_close(s);
	return NULL;
}

/* Sessions of home, newest first, as meta objects (caller frees the array). */
static cJSON *
session_scan(const char *home, const char *root)
{
	struct buf dir = BUF_INIT(8192);
	cJSON *arr = cJSON_CreateArray();
	struct dirent *de;
	DIR *d;

	buf_printf(&dir, "%s/sessions", home);
	d = opendir(buf_cstr(&dir));
	while (d != NULL && (de = readdir(d)) != NULL) {
		struct buf sub = BUF_INIT(8192), e = BUF_INIT(1024);
		cJSON *meta;

		if (de->d_name[0] == '.')
			continue;
		buf_printf(&sub, "%s/%s", buf_cstr(&dir), de->d_name);
		meta = session_read_json(buf_cstr(&sub), "meta.json", true, &e);
		buf_release(&sub);
		buf_release(&e);
		if (meta == NULL)
			continue;
		if (root != NULL && strcmp(json_str(meta, "cwd", ""), root) != 0) {
			cJSON_Delete(meta);
			continue;
		}
		{
			/* Insertion by "updated", newest first. */
			double u = json_num(meta, "updated", 0);
			int i = 0;
			cJSON *it;

			cJSON_ArrayForEach(it, arr) {
				if (json_num(it, "updated", 0) < u ||
				    (json_num(it, "updated", 0) == u &&
				    strcmp(json_str(it, "id", ""), json_str(meta, "id", "")) < 0))
					break;
				i++;
			}
			json_array_insert(arr, i, meta);
		}
	}
	if (d != NULL)
		closedir(d);
	buf_release(&dir);
	return arr;
}

char *
session_newest(const char *home, const char *root)
{
	cJSON *arr = session_scan(home, root), *first = cJSON_GetArrayItem(arr, 0);
	char *id = first != NULL ? xstrdup(json_str(first, "id", "")) : NULL;

	cJSON_Delete(arr);
	return id;
}

void
session_list(const char *home, const char *root, struct buf *out)
{
	cJSON *arr = session_scan(home, root), *m;

	if (cJSON_GetArraySize(arr) == 0)
		buf_puts(out, "No sessions yet.\n");
	else
		buf_printf(out, "%-24s  %-16s  %5s  %s\n", "ID", "UPDATED", "TURNS", "FIRST PROMPT");
	cJSON_ArrayForEach(m, arr) {
		char when[32];
		time_t t = (time_t)json_num(m, "updated", 0);
		struct tm tm;
		char prompt[61];
		size_t i;

		localtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
		snprintf(prompt, sizeof prompt, "%s", json_str(m, "first_prompt", ""));
		for (i = 0; prompt[i] != '\0'; i++)
			if (prompt[i] == '\n' || prompt[i] == '\t')
				prompt[i] = ' ';
		buf_printf(out, "%-24s  %-16s  %5lld  %s", json_str(m, "id", ""), when,
		    (long long)json_int(m, "turns", 0), prompt);
		if (json_str(m, "forked_from", NULL) != NULL)
			buf_printf(out, "  (fork of %s)", json_str(m, "forked_from", ""));
		buf_putc(out, '\n');
	}
	cJSON_Delete(arr);
}

static void
session_rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL) {
		struct buf p = BUF_INIT(8192);
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		buf_printf(&p, "%s/%s", path, de->d_name);
		if (lstat(buf_cstr(&p), &st) == 0 && S_ISDIR(st.st_mode))
			session_rm_rf(buf_cstr(&p));
		else
			unlink(buf_cstr(&p));
		buf_release(&p);
	}
	if (d != NULL)
		closedir(d);
	rmdir(path);
}

int
session_prune(const char *home, int days)
{
	cJSON *arr, *m;
	time_t cutoff = time(NULL) - (time_t)days * 86400;
	int n = 0;

	if (days <= 0)
		return 0;
	arr = session_scan(home, NULL);
	cJSON_ArrayForEach(m, arr) {
		if ((time_t)json_num(m, "updated", 0) < cutoff) {
			struct buf p = BUF_INIT(8192);

			buf_printf(&p, "%s/sessions/%s", home, json_str(m, "id", "x"));
			if (strchr(json_str(m, "id", "/"), '/') == NULL)
				session_rm_rf(buf_cstr(&p));
			buf_release(&p);
			n++;
		}
	}
	cJSON_Delete(arr);
	return n;
}
