/* Durable sessions: see session.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "context/conv.h"
#include "crc32.h"
#include "file.h"
#include "json.h"
#include "session.h"
#include "utf8.h"
#include "xalloc.h"

struct session {
	char	*id;
	char	*dir;
	int	 logfd;
	int64_t	 logsize;
	int	 lockfd;	/* flock held while this process uses the session */
	int	 fxfd;		/* effects.jsonl, opened at the first effect */
	int64_t	 fxsize;
	char	*error;		/* the first failed write: the session refuses more */
	char	*note;		/* what opening repaired, for the user */
	int	 line;		/* the log line being replayed (0: a live append) */
	cJSON	*meta;
	cJSON	*messages;	/* the head, rebuilt from the log */
	cJSON	*effects;
	cJSON	*checkpoint;
	int	 turns;		/* the highest turn number ever used */
	cJSON	*files;		/* "files" records: what tandem's tools changed */
	cJSON	*turninfo;	/* "turn" records: prompt, tools, tokens, time */
	cJSON	*rewinds;	/* "rewind" records not undone, newest last */
	cJSON	*intents;	/* "intent" records: writers that started (intent.h) */
	cJSON	*submsgs;	/* "submsg" records: the subagents' messages (sub/subagent.h) */
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

int
session_write_atomic(const char *path, const char *data, size_t n, struct buf *err)
{
	struct file_status st;

	int e;

	if (file_write_atomic(path, data, n, 0600, 0, &st) == 0)
		return 0;
	e = errno;
	if (err != NULL)
		buf_printf(err, "cannot write %s: %s", path, strerror(e));
	errno = e;
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

/*
 * The next number of the sequence that orders the sessions for -c: it only
 * grows, whatever the clock does: sessions/.seq under flock, and never
 * below what this session had.  Its writes are checked like every other
 * (a failure fails the session); what a crash loses repeats a number, and
 * the tie falls back to the clock.  The number, or -1 with errno.
 */
static double
session_next_seq(const char *sessions, double own)
{
	struct buf path = BUF_INIT(8192);
	char text[32] = "";
	double seq = own;
	ssize_t n;
	int fd, e;

	buf_printf(&path, "%s/.seq", sessions);
	fd = open(buf_cstr(&path), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	buf_release(&path);
	if (fd == -1)
		return -1;
	if (flock(fd, LOCK_EX) == -1)
		goto fail;
	if ((n = pread(fd, text, sizeof text - 1, 0)) > 0) {
		char *end;
		double v;

		text[n] = '\0';
		v = strtod(text, &end);
		if (end != text && v > seq)
			seq = v;
	}
	seq += 1;
	n = snprintf(text, sizeof text, "%.0f\n", seq);
	if (n <= 0 || (size_t)n >= sizeof text) {
		errno = EOVERFLOW;
		goto fail;
	}
	if (pwrite(fd, text, (size_t)n, 0) != n || ftruncate(fd, n) == -1)
		goto fail;
	if (close(fd) == -1)
		return -1;
	return seq;
fail:
	e = errno != 0 ? errno : EIO;
	close(fd);
	errno = e;
	return -1;
}

/* Give s the next number of the sequence (meta "seq"): 0, or -1 with errno. */
static int
session_bump_seq(struct session *s)
{
	char *sessions = xstrndup(s->dir, (size_t)(strrchr(s->dir, '/') - s->dir));
	double seq = session_next_seq(sessions, json_num(s->meta, "seq", 0));

	free(sessions);
	if (seq < 0)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(s->meta, "seq");
	cJSON_AddNumberToObject(s->meta, "seq", seq);
	return 0;
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
	s->lockfd = -1;
	s->fxfd = -1;
	s->messages = cJSON_CreateArray();
	s->effects = cJSON_CreateObject();
	s->files = cJSON_CreateArray();
	s->turninfo = cJSON_CreateArray();
	s->rewinds = cJSON_CreateArray();
	s->intents = cJSON_CreateArray();
	s->submsgs = cJSON_CreateArray();
	return s;
}

/* Free space for an unprivileged writer under dir (or the nearest parent that exists), in words ("12 KB"). */
static void
session_free_space(const char *dir, struct buf *out)
{
	struct statvfs sv;
	double n;
	static const char *const units[] = { "bytes", "KB", "MB", "GB", "TB" };
	size_t u = 0;
	char *d = xstrdup(dir), *slash;
	int rc;

	while ((rc = statvfs(d, &sv)) == -1 && errno == ENOENT && (slash = strrchr(d, '/')) != NULL &&
	    slash != d)
		*slash = '\0';
	free(d);
	if (rc == -1) {
		buf_puts(out, "free space unknown");
		return;
	}
	n = (double)sv.f_bavail * (double)sv.f_frsize;
	while (n >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		n /= 1024;
		u++;
	}
	if (u == 0)
		buf_printf(out, "%.0f bytes free", n);
	else
		buf_printf(out, "%.1f %s free", n, units[u]);
}

int
session_fail(struct session *s, const char *what, int errnum)
{
	return session_fail_in(s, what, s->dir, errnum);
}

/*
 * session_fail for a write under dir, which may be on another file system
 * than the session (the snapshot store): its free space is the one that
 * matters, and what to do depends on why the write failed.
 */
int
session_fail_in(struct session *s, const char *what, const char *dir, int errnum)
{
	struct buf m = BUF_INIT(8192);

	if (s->error != NULL)
		return -1;
	buf_printf(&m, "could not save the session in %s (%s: %s", s->dir, what, strerror(errnum));
	if (errnum == ENOSPC || errnum == EDQUOT) {
		buf_puts(&m, "; ");
		session_free_space(dir, &m);
		if (strcmp(dir, s->dir) != 0)
			buf_printf(&m, " in %s", dir);
	}
	buf_puts(&m, "), so tandem stopped before sending or running anything more; ");
	if (errnum == ENOSPC || errnum == EDQUOT)
		buf_puts(&m, "make room, then send again or resume with tandem -c");
	else if (errnum == EROFS || errnum == EACCES || errnum == EPERM)
		buf_printf(&m, "%s is %s: make it writable (or set TANDEM_HOME to a writable "
		    "directory), then send again or resume with tandem -c", dir,
		    errnum == EROFS ? "on a read-only file system" : "not writable");
	else
		buf_puts(&m, "once the cause is fixed, send again or resume with tandem -c");
	s->error = buf_detach(&m, NULL);
	return -1;
}

const char *
session_error(const struct session *s)
{
	return s->error;
}

const char *
session_note(const struct session *s)
{
	return s->note;
}

/*
 * Write all of line at the end of fd (opened O_APPEND, *size bytes long).
 * A short or failed write is cut back off, so that the next append never
 * lands after half a record.  0, or -1 with errno.
 */
static int
session_append_fd(int fd, int64_t *size, const char *line, size_t n)
{
	size_t off = 0;
	int e;

	while (off < n) {
		ssize_t w = write(fd, line + off, n - off);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w == 0 ? ENOSPC : errno;
			/* If this fails too, the next open cuts the torn tail. */
			if (off > 0)
				(void)!ftruncate(fd, (off_t)*size);
			errno = e;
			return -1;
		}
		off += (size_t)w;
	}
	*size += (int64_t)n;
	return 0;
}

/*
 * Records are sealed: a line is an object whose last member is
 * "ck":"XXXXXXXX", the CRC-32 of every byte before ",\"ck\"".  A flipped
 * bit anywhere in the line, inside a string too, then fails the check.
 */
#define SESSION_SUBMSG_KEEP (16 * 1024)	/* of a subagent's tool result, what the head keeps */
#define SESSION_SEAL_LEN 17	/* ,"ck":"XXXXXXXX"} */

/* rec (its own "ck" dropped first) as one sealed line, newline included; caller frees. */
static char *
session_seal(cJSON *rec, size_t *n)
{
	struct buf line = BUF_INIT(BUF_NOLIMIT);
	char *text;
	size_t len;

	cJSON_DeleteItemFromObjectCaseSensitive(rec, "ck");
	text = cJSON_PrintUnformatted(rec);
	if (text == NULL)
		fatal("out of memory");
	len = strlen(text);
	/* Every record has its "k" (or "id"): never "{}". */
	buf_append(&line, text, len - 1);
	buf_printf(&line, ",\"ck\":\"%08x\"}\n", crc32_update(0, text, len - 1));
	cJSON_free(text);
	*n = line.len;
	return buf_detach(&line, NULL);
}

/* 1: a sealed line whose seal holds; 0: a line without a seal; -1: a broken seal. */
static int
session_unseal(const char *line, size_t len)
{
	const char *t;
	char hex[9];

	if (len < SESSION_SEAL_LEN + 2)
		return 0;
	t = line + len - SESSION_SEAL_LEN;
	if (memcmp(t, ",\"ck\":\"", 7) != 0 || t[15] != '"' || t[16] != '}')
		return 0;
	snprintf(hex, sizeof hex, "%08x", crc32_update(0, line, len - SESSION_SEAL_LEN));
	return memcmp(t + 7, hex, 8) == 0 ? 1 : -1;
}

/* The offset of file ("log" or "effects") from which every line is sealed, or -1. */
static int64_t
session_sealed_from(const struct session *s, const char *file)
{
	const cJSON *v = json_get(json_get(s->meta, "sealed"), file);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (int64_t)v->valuedouble : -1;
}

/*
 * Check line (len bytes, at offset off of a file sealed from sealed_from)
 * and parse it: the record with its seal dropped, or NULL with what is
 * wrong in why.
 */
static cJSON *
session_parse_line(const char *line, size_t len, int64_t off, int64_t sealed_from,
    const char **why)
{
	int seal = session_unseal(line, len);
	cJSON *rec;

	if (seal == -1) {
		*why = "a damaged record (its checksum does not match what was written)";
		return NULL;
	}
	if (seal == 0 && sealed_from >= 0 && off >= sealed_from) {
		*why = "a damaged record (its checksum is missing)";
		return NULL;
	}
	rec = cJSON_ParseWithLength(line, len);
	if (rec == NULL || !cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		*why = "a malformed record";
		return NULL;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "ck");
	return rec;
}

/* The start time of process pid in clock ticks since boot (/proc), or -1. */
static long long
session_proc_start(long pid)
{
	char path[64], data[1024], *p, *end;
	long long v = -1;
	int fd, field;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	n = read(fd, data, sizeof data - 1);
	close(fd);
	if (n <= 0)
		return -1;
	data[n] = '\0';
	/* After the command name in parentheses: state is field 3, starttime field 22. */
	p = strrchr(data, ')');
	for (field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -1;
	v = strtoll(p + 1, &end, 10);
	return end != p + 1 ? v : -1;
}

/* Who holds the lock of s, in words, from the holder file. */
static void
session_holder(struct session *s, struct buf *out)
{
	char data[256], *end;
	ssize_t n = pread(s->lockfd, data, sizeof data - 1, 0);
	long pid;
	long long start, since;
	const char *p;

	if (n <= 0) {
		buf_puts(out, "another process");
		return;
	}
	data[n] = '\0';
	pid = strtol(data, &end, 10);
	p = end;
	start = strtoll(p, &end, 10);
	p = end;
	since = strtoll(p, &end, 10);
	if (pid <= 0) {
		buf_puts(out, "another process");
		return;
	}
	buf_printf(out, "tandem process %ld", pid);
	if (since > 0) {
		time_t t = (time_t)since;
		struct tm tm;
		char when[32];

		localtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
		buf_printf(out, ", since %s", when);
	}
	/* A dead holder whose forked child still has the lock open. */
	if (session_proc_start(pid) != start)
		buf_puts(out, ", or a process it started");
}

/*
 * Lock s for this process: flock on <dir>/lock (close-on-exec, so commands
 * do not inherit it), then the holder's pid and start time in it.
 */
static int
session_lock(struct session *s, struct buf *err)
{
	struct buf p = BUF_INIT(8192), who = BUF_INIT(512);
	char line[128];
	int n, e;

	buf_printf(&p, "%s/lock", s->dir);
	s->lockfd = open(buf_cstr(&p), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lockfd == -1) {
		session_fail(s, "lock", errno);
		buf_puts(err, s->error);
		goto fail;
	}
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) == -1) {
		e = errno;
		if (e == EWOULDBLOCK) {
			session_holder(s, &who);
			buf_printf(err, "session %s is in use by %s; wait for it to end, or go on "
			    "in a copy with tandem --resume %s --fork", s->id, buf_cstr(&who), s->id);
		} else {
			session_fail(s, "lock", e);
			buf_puts(err, s->error);
		}
		goto fail;
	}
	n = snprintf(line, sizeof line, "%ld %lld %lld\n", (long)getpid(),
	    session_proc_start((long)getpid()), (long long)time(NULL));
	if (n < 0 || (size_t)n >= sizeof line || ftruncate(s->lockfd, 0) == -1 ||
	    pwrite(s->lockfd, line, (size_t)n, 0) != (ssize_t)n) {
		session_fail(s, "lock", errno);
		buf_puts(err, s->error);
		goto fail;
	}
	buf_release(&p);
	buf_release(&who);
	return 0;
fail:
	if (s->lockfd != -1)
		close(s->lockfd);
	s->lockfd = -1;
	buf_release(&p);
	buf_release(&who);
	return -1;
}

/* Take session id's lock if nobody holds it: the descriptor, or -1. */
static int
session_try_lock(const char *home, const char *id)
{
	struct buf p = BUF_INIT(8192);
	int fd;

	buf_printf(&p, "%s/sessions/%s/lock", home, id);
	fd = open(buf_cstr(&p), O_RDONLY | O_CLOEXEC);
	buf_release(&p);
	if (fd == -1)
		return errno == ENOENT ? -2 : -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

bool
session_locked(const char *home, const char *id)
{
	int fd = session_try_lock(home, id);

	if (fd >= 0)
		close(fd);
	return fd == -1;
}

static int
session_open_log(struct session *s, struct buf *err)
{
	struct buf p = BUF_INIT(8192);
	struct stat st;

	buf_printf(&p, "%s/log.jsonl", s->dir);
	s->logfd = open(buf_cstr(&p), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (s->logfd == -1) {
		session_fail(s, "log.jsonl", errno);
		buf_puts(err, s->error);
		buf_release(&p);
		return -1;
	}
	if (fstat(s->logfd, &st) == 0)
		s->logsize = st.st_size;
	buf_release(&p);
	return 0;
}

/* Record in meta where the log's and the ledger's sealed lines begin. */
static void
session_meta_seal(struct session *s, int64_t log, int64_t effects)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "log", (double)log);
	cJSON_AddNumberToObject(o, "effects", (double)effects);
	cJSON_DeleteItemFromObjectCaseSensitive(s->meta, "sealed");
	cJSON_AddItemToObject(s->meta, "sealed", o);
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
	if (session_lock(s, err) == -1) {
		session_close(s);
		return NULL;
	}
	s->meta = cJSON_CreateObject();
	cJSON_AddNumberToObject(s->meta, "version", SESSION_VERSION);
	cJSON_AddStringToObject(s->meta, "id", s->id);
	cJSON_AddStringToObject(s->meta, "cwd", root);
	cJSON_AddStringToObject(s->meta, "model", model);
	cJSON_AddNumberToObject(s->meta, "created", session_now());
	cJSON_AddNumberToObject(s->meta, "updated", session_now());
	cJSON_AddStringToObject(s->meta, "first_prompt", "");
	cJSON_AddNumberToObject(s->meta, "turns", 0);
	session_meta_seal(s, 0, 0);
	if (session_bump_seq(s) == -1) {
		session_fail(s, ".seq", errno);
		buf_puts(err, s->error);
		session_close(s);
		return NULL;
	}
	if (forked_from != NULL)
		cJSON_AddStringToObject(s->meta, "forked_from", forked_from);
	if (session_write_json(s->dir, "meta.json", s->meta, NULL) == -1) {
		session_fail(s, "meta.json", errno);
		buf_puts(err, s->error);
		session_close(s);
		return NULL;
	}
	if (session_open_log(s, err) == -1) {
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
	/* Every promise synced the log already (session_sync): nothing is left to say here. */
	if (s->logfd != -1)
		close(s->logfd);
	if (s->fxfd != -1)
		close(s->fxfd);
	/* Closing the last descriptor of the lock file releases the lock. */
	if (s->lockfd != -1)
		close(s->lockfd);
	free(s->error);
	free(s->note);
	cJSON_Delete(s->meta);
	cJSON_Delete(s->messages);
	cJSON_Delete(s->effects);
	cJSON_Delete(s->checkpoint);
	cJSON_Delete(s->files);
	cJSON_Delete(s->turninfo);
	cJSON_Delete(s->rewinds);
	cJSON_Delete(s->intents);
	cJSON_Delete(s->submsgs);
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
session_intents(const struct session *s)
{
	return s->intents;
}

const cJSON *
session_submsgs(const struct session *s)
{
	return s->submsgs;
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

/* Note on a replayed message the log line that last shaped it (for error messages). */
static cJSON *
session_mark_line(struct session *s, cJSON *m)
{
	if (s->line > 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(m, "_line");
		cJSON_AddNumberToObject(m, "_line", s->line);
	}
	return m;
}

/* What is kept of a subagent's message: all of it, but a tool's result past SESSION_SUBMSG_KEEP bytes cut. */
static cJSON *
session_submsg_copy(const cJSON *rec)
{
	cJSON *c = cJSON_Duplicate(rec, 1), *b;

	cJSON_ArrayForEach(b, json_get(c, "content")) {
		const cJSON *t = json_get(b, "content");

		if (cJSON_IsString(t) && strlen(t->valuestring) > SESSION_SUBMSG_KEEP) {
			char *cut = xstrndup(t->valuestring, utf8_floor(t->valuestring, SESSION_SUBMSG_KEEP));

			cJSON_ReplaceItemInObjectCaseSensitive(b, "content", cJSON_CreateString(cut));
			free(cut);
		}
	}
	return c;
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
			if (s->line > 0)
				cJSON_AddNumberToObject(m, "_line", s->line);
			cJSON_AddItemToArray(s->messages, m);
		}
	} else if (s->messages == NULL && strcmp(k, "rewind") != 0 && strcmp(k, "redo") != 0 &&
	    strcmp(k, "files") != 0 && strcmp(k, "turn") != 0 && strcmp(k, "intent") != 0 &&
	    strcmp(k, "submsg") != 0) {
		return;
	} else if (strcmp(k, "extend") == 0) {
		cJSON *last = cJSON_GetArrayItem(s->messages, cJSON_GetArraySize(s->messages) - 1);
		cJSON *dst = last != NULL ? json_get(last, "content") : NULL;
		const cJSON *b;

		/* A message without a content array (a damaged log) takes nothing. */
		if (last != NULL && cJSON_IsArray(dst)) {
			cJSON_ArrayForEach(b, json_get(rec, "content"))
				cJSON_AddItemToArray(dst, cJSON_Duplicate(b, 1));
			session_mark_line(s, last);
		}
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
				cJSON_AddItemToArray(s->messages, session_mark_line(s, cJSON_Duplicate(m, 1)));
		session_mark_files(s, json_get(rw, "undone"), false);
		cJSON_Delete(rw);
	} else if (strcmp(k, "files") == 0) {
		cJSON_AddItemToArray(s->files, cJSON_Duplicate(rec, 1));
	} else if (strcmp(k, "intent") == 0) {
		cJSON_AddItemToArray(s->intents, cJSON_Duplicate(rec, 1));
	} else if (strcmp(k, "submsg") == 0) {
		cJSON_AddItemToArray(s->submsgs, session_submsg_copy(rec));
	} else if (strcmp(k, "turn") == 0) {
		cJSON_AddItemToArray(s->turninfo, cJSON_Duplicate(rec, 1));
		if (json_int(rec, "turn", 0) > s->turns)
			s->turns = (int)json_int(rec, "turn", 0);
	} else if (strcmp(k, "replace") == 0) {
		const cJSON *msgs = json_get(rec, "messages");

		if (cJSON_IsArray(msgs)) {
			cJSON *m;

			cJSON_Delete(s->messages);
			s->messages = cJSON_Duplicate(msgs, 1);
			cJSON_ArrayForEach(m, s->messages)
				session_mark_line(s, m);
		}
	}
}

int
session_append(struct session *s, cJSON *rec)
{
	char *line;
	size_t n;
	int rc = 0;

	if (s->error != NULL) {
		cJSON_Delete(rec);
		return -1;
	}
	line = session_seal(rec, &n);
	if (session_append_fd(s->logfd, &s->logsize, line, n) == -1)
		rc = session_fail(s, "log.jsonl", errno);
	else
		session_apply(s, rec);
	free(line);
	cJSON_Delete(rec);
	if (rc == 0)
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
	if (s->error != NULL)
		return -1;
	/* Linux may drop the dirty pages of a failed fsync and report success next time: never retry. */
	if (s->logfd != -1 && fdatasync(s->logfd) == -1)
		return session_fail(s, "log.jsonl", errno);
	return 0;
}

int
session_checkpoint(struct session *s, char which, int turn, int call,
    int64_t tokens_used, const cJSON *pending)
{
	cJSON *cp;
	char name[64];
	int rc;

	if (session_sync(s) == -1)
		return -1;
	cp = cJSON_CreateObject();
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
	if (rc == -1) {
		session_fail(s, name, errno);
		cJSON_Delete(cp);
		return -1;
	}
	cJSON_Delete(s->checkpoint);
	s->checkpoint = cp;
	crash_point(which == 'A' ? "checkpoint-A" : "checkpoint-B");
	return 0;
}

int
session_effect(struct session *s, const char *id, const char *name,
    const char *result, bool is_error)
{
	cJSON *e;
	char *line;
	size_t n;
	int rc = 0;

	if (s->error != NULL)
		return -1;
	if (s->fxfd == -1) {
		struct buf p = BUF_INIT(8192);
		struct stat st;

		buf_printf(&p, "%s/effects.jsonl", s->dir);
		s->fxfd = open(buf_cstr(&p), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		buf_release(&p);
		if (s->fxfd == -1)
			return session_fail(s, "effects.jsonl", errno);
		s->fxsize = fstat(s->fxfd, &st) == 0 ? st.st_size : 0;
	}
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "result", result);
	cJSON_AddBoolToObject(e, "is_error", is_error);
	cJSON_AddNumberToObject(e, "time", (double)time(NULL));
	line = session_seal(e, &n);
	/* One line appended and synced per effect: the ledger never grows quadratic. */
	if (session_append_fd(s->fxfd, &s->fxsize, line, n) == -1 || fdatasync(s->fxfd) == -1)
		rc = session_fail(s, "effects.jsonl", errno);
	free(line);
	if (rc == 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(e, "id");
		cJSON_DeleteItemFromObjectCaseSensitive(s->effects, id);
		cJSON_AddItemToObject(s->effects, id, e);
		crash_point("effect-write");
	} else {
		cJSON_Delete(e);
	}
	return rc;
}

const cJSON *
session_effect_find(const struct session *s, const char *id)
{
	return json_get(s->effects, id);
}

int
session_note_turn(struct session *s, int turn, const char *prompt)
{
	if (s->error != NULL)
		return -1;
	cJSON_ReplaceItemInObjectCaseSensitive(s->meta, "turns", cJSON_CreateNumber(turn));
	cJSON_ReplaceItemInObjectCaseSensitive(s->meta, "updated", cJSON_CreateNumber(session_now()));
	if (session_bump_seq(s) == -1)
		return session_fail(s, ".seq", errno);
	if (prompt != NULL && json_str(s->meta, "first_prompt", "")[0] == '\0') {
		char cut[201];

		snprintf(cut, sizeof cut, "%s", prompt);
		cJSON_ReplaceItemInObjectCaseSensitive(s->meta, "first_prompt", cJSON_CreateString(cut));
	}
	if (session_write_json(s->dir, "meta.json", s->meta, NULL) == -1)
		return session_fail(s, "meta.json", errno);
	return 0;
}

/* Read a whole small file; NULL with err set. */
static char *
session_slurp(const char *path, size_t *n, bool missing_ok, struct buf *err)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	if (file_read(path, 1024u * 1024 * 1024, FILE_TRUNCATE, &b, &st) == -1 &&
	    (st.fail == FILE_MISSING || st.fail == FILE_OPEN)) {
		if (!(missing_ok && errno == ENOENT))
			buf_printf(err, "cannot read %s: %s", path, strerror(errno));
		buf_release(&b);
		return NULL;
	}
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

/*
 * Cut what follows the last complete line of the file at path (n bytes
 * read, complete of them whole): a crash mid-append leaves such a tail,
 * and the next append must not land after it.
 */
static int
session_cut_tail(struct session *s, const char *path, const char *name, size_t n,
    size_t complete, struct buf *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;

	if (fd == -1 || ftruncate(fd, (off_t)complete) == -1 || fdatasync(fd) == -1) {
		e = errno;
		if (fd != -1)
			close(fd);
		session_fail(s, name, e);
		buf_puts(err, s->error);
		return -1;
	}
	close(fd);
	{
		struct buf m = BUF_INIT(4096);

		if (s->note != NULL)
			buf_printf(&m, "%s; ", s->note);
		buf_printf(&m, "%s/%s ended in a torn record (%zu bytes, left by a crash in the "
		    "middle of a write); it was cut off", s->dir, name, n - complete);
		free(s->note);
		s->note = buf_detach(&m, NULL);
	}
	return 0;
}

/* The length of data up to and including its last newline. */
static size_t
session_complete_len(const char *data, size_t n)
{
	while (n > 0 && data[n - 1] != '\n')
		n--;
	return n;
}

/*
 * The effects ledger: effects.jsonl, one completed effect a line (and
 * effects.json, the whole-object form of older sessions).
 */
static int
session_read_effects(struct session *s, bool repair, struct buf *err)
{
	struct buf path = BUF_INIT(8192);
	cJSON *fx = session_read_json(s->dir, "effects.json", true, err);
	size_t n = 0, off = 0, complete;
	const char *why;
	char *data;
	int lineno = 0, rc = 0;

	if (fx == NULL && err->len > 0)
		goto fail;
	if (fx != NULL) {
		cJSON_Delete(s->effects);
		s->effects = fx;
	}
	buf_printf(&path, "%s/effects.jsonl", s->dir);
	data = session_slurp(buf_cstr(&path), &n, true, err);
	if (data == NULL) {
		if (err->len > 0)
			goto fail;
		goto out;
	}
	complete = session_complete_len(data, n);
	while (off < complete) {
		char *nl = memchr(data + off, '\n', complete - off);
		size_t len = (size_t)(nl - (data + off));
		cJSON *e;

		lineno++;
		why = "a malformed record";
		e = len > 0 ? session_parse_line(data + off, len, (int64_t)off,
		    session_sealed_from(s, "effects"), &why) : NULL;
		if (len > 0 && (e == NULL || json_str(e, "id", NULL) == NULL)) {
			buf_printf(err, "%s:%d: %s; the effects ledger is damaged",
			    buf_cstr(&path), lineno, why);
			cJSON_Delete(e);
			free(data);
			goto fail;
		}
		if (e != NULL) {
			char *id = xstrdup(json_str(e, "id", ""));

			cJSON_DeleteItemFromObjectCaseSensitive(e, "id");
			cJSON_DeleteItemFromObjectCaseSensitive(s->effects, id);
			cJSON_AddItemToObject(s->effects, id, e);
			free(id);
		}
		off += len + 1;
	}
	if (complete < n && repair &&
	    session_cut_tail(s, buf_cstr(&path), "effects.jsonl", n, complete, err) == -1)
		rc = -1;
	free(data);
	goto out;
fail:
	rc = -1;
out:
	buf_release(&path);
	return rc;
}

/* Drop the replay's line numbers: nothing but the check needs them. */
static void
session_drop_lines(cJSON *messages)
{
	cJSON *m;

	cJSON_ArrayForEach(m, messages)
		cJSON_DeleteItemFromObjectCaseSensitive(m, "_line");
}

/* The conversation the log rebuilt is one the API takes, or err says where it is not. */
static int
session_check(struct session *s, const char *path, struct buf *err)
{
	struct buf why = BUF_INIT(4096);
	const cJSON *m;
	int bad = -1, i = 0, turn, through = 0, line;

	if (s->messages == NULL || conv_check_messages(s->messages, true, &bad, &why) == 0) {
		buf_release(&why);
		return 0;
	}
	m = cJSON_GetArrayItem(s->messages, bad);
	line = (int)json_int(m, "_line", 0);
	turn = (int)json_int(m, "_turn", 0);
	cJSON_ArrayForEach(m, s->messages) {
		if (json_int(m, "_turn", 0) >= turn || i >= bad)
			break;
		through = (int)json_int(m, "_turn", 0);
		i++;
	}
	buf_printf(err, "%s:%d: the session log is damaged: %s; nothing was sent. It is "
	    "consistent through turn %d: go on from there with tandem --resume %s --fork "
	    "--rewind-to %d", path, line, buf_cstr(&why), through, s->id, turn > 0 ? turn : 1);
	buf_release(&why);
	return -1;
}

static int
session_replay(struct session *s, unsigned flags, struct buf *err)
{
	struct buf path = BUF_INIT(8192);
	size_t n = 0, off = 0, complete;
	const char *why = "a malformed record";
	char *data;
	int rc = 0;

	buf_printf(&path, "%s/log.jsonl", s->dir);
	/* No log yet (the disk was full when the session began): an empty one. */
	data = session_slurp(buf_cstr(&path), &n, true, err);
	if (data == NULL) {
		buf_release(&path);
		return err->len > 0 ? -1 : 0;
	}
	/* A last line without its newline is torn: never applied, and cut when the log is ours. */
	complete = session_complete_len(data, n);
	s->line = 0;
	while (off < complete) {
		char *nl = memchr(data + off, '\n', complete - off);
		size_t len = (size_t)(nl - (data + off));
		cJSON *rec;

		s->line++;
		rec = len > 0 ? session_parse_line(data + off, len, (int64_t)off,
		    session_sealed_from(s, "log"), &why) : NULL;
		if (rec == NULL && len > 0) {
			/* A fork from before the damage reads what precedes it. */
			if (flags & SESSION_OPEN_DAMAGED_OK)
				break;
			buf_printf(err, "%s:%d: the session log is damaged: %s; nothing was sent. "
			    "It is consistent through turn %d: go on from there with tandem --resume %s "
			    "--fork --rewind-to %d", buf_cstr(&path), s->line, why,
			    s->turns > 0 ? s->turns - 1 : 0, s->id, s->turns > 0 ? s->turns : 1);
			rc = -1;
			break;
		}
		if (rec != NULL) {
			session_apply(s, rec);
			cJSON_Delete(rec);
		}
		off += len + 1;
	}
	s->line = 0;
	if (rc == 0 && !(flags & SESSION_OPEN_DAMAGED_OK))
		rc = session_check(s, buf_cstr(&path), err);
	if (s->messages != NULL)
		session_drop_lines(s->messages);
	if (rc == 0 && complete < n && !(flags & SESSION_OPEN_READ_ONLY))
		rc = session_cut_tail(s, buf_cstr(&path), "log.jsonl", n, complete, err);
	free(data);
	buf_release(&path);
	return rc;
}

/* Read the session's files into s (locked first unless read-only). */
static int
session_load(struct session *s, unsigned flags, struct buf *err)
{
	cJSON *cp;

	{
		struct buf e = BUF_INIT(4096);

		s->meta = session_read_json(s->dir, "meta.json", true, &e);
		if (s->meta == NULL) {
			if (e.len == 0)
				buf_printf(err, "there is no session %s (tandem sessions lists them)", s->id);
			else
				buf_puts(err, buf_cstr(&e));
			buf_release(&e);
			return -1;
		}
		buf_release(&e);
	}
	if (json_int(s->meta, "version", -1) != SESSION_VERSION) {
		buf_printf(err, "%s/meta.json has version %lld; this tandem reads version %d",
		    s->dir, (long long)json_int(s->meta, "version", -1), SESSION_VERSION);
		return -1;
	}
	if (!(flags & SESSION_OPEN_READ_ONLY) && s->lockfd == -1 && session_lock(s, err) == -1)
		return -1;
	cp = session_read_json(s->dir, "checkpoints/latest.json", true, err);
	if (cp == NULL && err->len > 0)
		return -1;
	if (cp != NULL && json_int(cp, "version", -1) != SESSION_VERSION) {
		buf_printf(err, "%s/checkpoints/latest.json has version %lld; this tandem reads "
		    "version %d, so the session is left as it is", s->dir,
		    (long long)json_int(cp, "version", -1), SESSION_VERSION);
		cJSON_Delete(cp);
		return -1;
	}
	s->checkpoint = cp;
	if (session_read_effects(s, !(flags & SESSION_OPEN_READ_ONLY), err) == -1)
		return -1;
	if (session_replay(s, flags, err) == -1)
		return -1;
	if (flags & SESSION_OPEN_READ_ONLY)
		return 0;
	if (session_open_log(s, err) == -1)
		return -1;
	/* A session of an older tandem: what it appends from now on is sealed. */
	if (json_get(s->meta, "sealed") == NULL) {
		struct buf p = BUF_INIT(8192);
		struct stat st;

		buf_printf(&p, "%s/effects.jsonl", s->dir);
		session_meta_seal(s, s->logsize, stat(buf_cstr(&p), &st) == 0 ? st.st_size : 0);
		buf_release(&p);
		if (session_write_json(s->dir, "meta.json", s->meta, NULL) == -1) {
			session_fail(s, "meta.json", errno);
			buf_puts(err, s->error);
			return -1;
		}
	}
	/* What was repaired is in the log too. */
	if (s->note != NULL) {
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "note");
		cJSON_AddStringToObject(rec, "text", s->note);
		cJSON_AddNumberToObject(rec, "time", (double)time(NULL));
		if (session_append(s, rec) == -1 || session_sync(s) == -1) {
			buf_puts(err, s->error);
			return -1;
		}
	}
	return 0;
}

struct session *
session_open(const char *home, const char *id, unsigned flags, struct buf *err)
{
	struct session *s;
	size_t i;

	for (i = 0; id[i] != '\0'; i++) {
		if (id[i] == '/' || (id[0] == '.')) {
			buf_printf(err, "\"%s\" is not a session id", id);
			return NULL;
		}
	}
	if (id[0] == '\0') {
		buf_puts(err, "\"\" is not a session id");
		return NULL;
	}
	s = session_alloc(home, id);
	if (session_load(s, flags, err) == -1) {
		session_close(s);
		return NULL;
	}
	return s;
}

int
session_reopen(struct session **sp, struct buf *err)
{
	struct session *old = *sp, *s;
	char *home;
	size_t n = strlen(old->dir) - strlen("/sessions/") - strlen(old->id);

	home = xstrndup(old->dir, n);
	s = session_alloc(home, old->id);
	free(home);
	/* The lock stays with this process all along. */
	s->lockfd = old->lockfd;
	if (session_load(s, 0, err) == -1) {
		s->lockfd = -1;
		session_close(s);
		return -1;
	}
	old->lockfd = -1;
	session_close(old);
	*sp = s;
	return 0;
}

/*
 * Whether session a is newer than b: by the sequence (which only grows,
 * whatever the clock does), then by the clock for sessions of an older
 * tandem without one, then by id.
 */
static bool
session_newer(const cJSON *a, const cJSON *b)
{
	double sa = json_num(a, "seq", 0), sb = json_num(b, "seq", 0);
	double ua = json_num(a, "updated", 0), ub = json_num(b, "updated", 0);

	if (sa != sb)
		return sa > sb;
	if (ua != ub)
		return ua > ub;
	return strcmp(json_str(a, "id", ""), json_str(b, "id", "")) > 0;
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
			int i = 0;
			cJSON *it;

			/* Insertion, newest first. */
			cJSON_ArrayForEach(it, arr) {
				if (session_newer(meta, it))
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
	cJSON *arr, *m, *roots;
	double newest = 0, cutoff;
	int n = 0;

	if (days <= 0)
		return 0;
	arr = session_scan(home, NULL);
	/*
	 * Age counts from the newest record, not from the clock alone: a clock
	 * set 40 days ahead is not 40 days of disuse.  Nor from a clock behind.
	 */
	cJSON_ArrayForEach(m, arr)
		if (json_num(m, "updated", 0) > newest)
			newest = json_num(m, "updated", 0);
	cutoff = (newest < (double)time(NULL) ? newest : (double)time(NULL)) - (double)days * 86400;
	roots = cJSON_CreateObject();
	cJSON_ArrayForEach(m, arr) {
		const char *root = json_str(m, "cwd", "");
		cJSON *seen = json_get(roots, root);
		struct buf p = BUF_INIT(8192);
		int fd;

		/* The newest few of each workspace stay, whatever the clock says (arr is newest first). */
		if (seen == NULL)
			seen = cJSON_AddNumberToObject(roots, root, 0);
		cJSON_SetNumberValue(seen, seen->valuedouble + 1);
		if (seen->valuedouble <= SESSION_KEEP || json_num(m, "updated", 0) >= cutoff ||
		    strchr(json_str(m, "id", "/"), '/') != NULL)
			continue;
		/* A session in use is never pruned, however old: its lock is held meanwhile. */
		fd = session_try_lock(home, json_str(m, "id", "x"));
		if (fd != -1) {
			buf_printf(&p, "%s/sessions/%s", home, json_str(m, "id", "x"));
			session_rm_rf(buf_cstr(&p));
			n++;
		}
		if (fd >= 0)
			close(fd);
		buf_release(&p);
	}
	cJSON_Delete(roots);
	cJSON_Delete(arr);
	return n;
}
