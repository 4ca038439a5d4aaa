/*
 * fuzz_session: the session loader (agent/session.c) on a log.jsonl made
 * of the input, in a session directory under a temporary TANDEM_HOME.
 *
 * Invariants: a refused log gets a sentence and leaves log.jsonl as it
 * was; an accepted one gives an array of messages, each an object with a
 * role, and opening it again gives the same messages and turns.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fuzz.h"
#include "json.h"
#include "store/session.h"

static char fz_home[64];
static char fz_log[160];

static void
fz_setup(void)
{
	static const char meta[] = "{\"version\":1,\"id\":\"fuzz\",\"cwd\":\"/tmp\",\"model\":\"m\","
	    "\"created\":0,\"updated\":0,\"first_prompt\":\"\",\"turns\":0}";
	char path[160];
	int fd;

	snprintf(fz_home, sizeof fz_home, "/tmp/fuzz_session.XXXXXX");
	FUZZ_CHECK(mkdtemp(fz_home) != NULL);
	snprintf(path, sizeof path, "%s/sessions", fz_home);
	FUZZ_CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof path, "%s/sessions/fuzz", fz_home);
	FUZZ_CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof path, "%s/sessions/fuzz/meta.json", fz_home);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd != -1 && write(fd, meta, sizeof meta - 1) == (ssize_t)(sizeof meta - 1));
	close(fd);
	snprintf(fz_log, sizeof fz_log, "%s/sessions/fuzz/log.jsonl", fz_home);
}

static char *
fz_read(size_t *n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char chunk[4096];
	ssize_t got;
	int fd = open(fz_log, O_RDONLY);

	FUZZ_CHECK(fd != -1);
	while ((got = read(fd, chunk, sizeof chunk)) > 0)
		buf_append(&b, chunk, (size_t)got);
	close(fd);
	buf_putc(&b, '\0');
	return buf_detach(&b, n);
}

/* The messages and turns of an open session, as text. */
static char *
fz_state(struct session *s)
{
	const cJSON *msgs = session_messages(s), *m;
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char *js;

	FUZZ_CHECK(msgs != NULL && cJSON_IsArray(msgs));
	/*
	 * FUZZ_SESSION_STRICT: every message is an object with a role.  A
	 * hand-made "replace" record can put anything there today; the replay
	 * check of the conversation's invariants is to refuse such a log.
	 */
#ifdef FUZZ_SESSION_STRICT
	cJSON_ArrayForEach(m, msgs) {
		FUZZ_CHECK(cJSON_IsObject(m));
		FUZZ_CHECK(json_str(m, "role", NULL) != NULL);
	}
#else
	(void)m;
#endif
	js = json_print(msgs);
	FUZZ_CHECK(js != NULL);
	buf_printf(&b, "%d %s", session_turns(s), js);
	free(js);
	return buf_detach(&b, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	struct session *s;
	char *before, *after, *st1, *st2;
	size_t n1, n2;
	int fd;

	if (size > 65536)
		return 0;
	if (fz_home[0] == '\0')
		fz_setup();
	fd = open(fz_log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd != -1);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);
	before = fz_read(&n1);
	s = session_open(fz_home, "fuzz", SESSION_OPEN_READ_ONLY, &err);
	if (s == NULL) {
		FUZZ_CHECK(err.len > 0);
		FUZZ_CHECK(memchr(err.data, '\n', err.len) == NULL);
		after = fz_read(&n2);
		FUZZ_CHECK(n1 == n2 && memcmp(before, after, n1) == 0);
		free(after);
	} else {
		st1 = fz_state(s);
		session_close(s);
		buf_reset(&err);
		s = session_open(fz_home, "fuzz", SESSION_OPEN_READ_ONLY, &err);
		if (s == NULL) {
			fprintf(stderr, "the second open failed: %s\n", buf_cstr(&err));
			FUZZ_CHECK(!"a session that opened opens again");
		}
		st2 = fz_state(s);
		FUZZ_CHECK(strcmp(st1, st2) == 0);
		session_close(s);
		free(st1);
		free(st2);
	}
	free(before);
	buf_release(&err);
	return 0;
}
