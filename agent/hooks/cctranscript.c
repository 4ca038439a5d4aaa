/* The session in Claude Code's transcript shape: see hooks/cctranscript.h. */
#include "autoconf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "hooks/cctranscript.h"
#include "json.h"
#include "toolnames.h"
#include "xalloc.h"

struct cctr {
	char	*root;
	char	*session_id;
	char	*path;
	char	*model;
	char	 parent[37];	/* the last line's uuid; "": none */
	cJSON	*content;	/* the response being streamed: its blocks */
	cJSON	*held;		/* tool results that came before their response's end */
	struct buf text, thinking;
	unsigned long long seq;
};

struct cctr *
cctr_new(const char *root)
{
	struct cctr *t = xcalloc(1, sizeof *t);

	t->root = xstrdup(root != NULL ? root : "");
	t->content = cJSON_CreateArray();
	t->held = cJSON_CreateArray();
	buf_init(&t->text, BUF_NOLIMIT);
	buf_init(&t->thinking, BUF_NOLIMIT);
	return t;
}

void
cctr_free(struct cctr *t)
{
	if (t == NULL)
		return;
	free(t->root);
	free(t->session_id);
	free(t->path);
	free(t->model);
	cJSON_Delete(t->content);
	cJSON_Delete(t->held);
	buf_release(&t->text);
	buf_release(&t->thinking);
	free(t);
}

void
cctr_set_session(struct cctr *t, const char *session_id, const char *path)
{
	if (session_id != NULL) {
		free(t->session_id);
		t->session_id = xstrdup(session_id);
	}
	if (path != NULL) {
		free(t->path);
		t->path = xstrdup(path);
	}
}

/* A version 4 UUID; without /dev/urandom, one unique within the process. */
static void
cctr_uuid(struct cctr *t, char out[37])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, b, sizeof b) : -1;
	size_t i, j = 0;

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof b) {
		unsigned long long v = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20) ^
		    ++t->seq;

		for (i = 0; i < sizeof b; i++)
			b[i] = (unsigned char)((v >> ((i % 8) * 8)) ^ (i * 53));
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (i = 0; i < sizeof b; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[b[i] >> 4];
		out[j++] = hex[b[i] & 15];
	}
	out[j] = '\0';
}

/* 2026-12-02T00:31:05.123Z */
static void
cctr_now(char *out, size_t size)
{
	struct timeval tv;
	struct tm tm;
	char day[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	if (strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		day[0] = '\0';
	snprintf(out, size, "%s.%03dZ", day, (int)(tv.tv_usec / 1000));
}

/* Append one line of type around message (taken); extra members (taken) join it. */
static void
cctr_write(struct cctr *t, const char *type, cJSON *message, cJSON *extra)
{
	cJSON *line = cJSON_CreateObject(), *m;
	char uuid[37], when[48], *s;
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	int fd;

	cctr_uuid(t, uuid);
	cctr_now(when, sizeof when);
	if (t->parent[0] != '\0')
		cJSON_AddStringToObject(line, "parentUuid", t->parent);
	else
		cJSON_AddNullToObject(line, "parentUuid");
	cJSON_AddBoolToObject(line, "isSidechain", false);
	cJSON_AddStringToObject(line, "userType", "external");
	cJSON_AddStringToObject(line, "cwd", t->root);
	cJSON_AddStringToObject(line, "sessionId", t->session_id != NULL ? t->session_id : "");
	cJSON_AddStringToObject(line, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(line, "type", type);
	cJSON_AddItemToObject(line, "message", message);
	while (extra != NULL && (m = extra->child) != NULL) {
		cJSON_DetachItemViaPointer(extra, m);
		cJSON_AddItemToObject(line, m->string, m);
	}
	cJSON_Delete(extra);
	cJSON_AddStringToObject(line, "uuid", uuid);
	cJSON_AddStringToObject(line, "timestamp", when);
	memcpy(t->parent, uuid, sizeof t->parent);
	s = json_print(line);
	cJSON_Delete(line);
	if (t->path == NULL || s == NULL) {
		free(s);
		return;
	}
	buf_printf(&b, "%s\n", s);
	free(s);
	fd = open(t->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)file_write_all(fd, b.data, b.len);
		close(fd);
	}
	buf_release(&b);
}

static const char *
cctr_tool_name(const char *name)
{
	return toolname_cc_or_self(name);
}

/* Close the text or thinking block being streamed into the response's content. */
static void
cctr_close_blocks(struct cctr *t)
{
	cJSON *b;

	if (t->thinking.len > 0) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "thinking");
		cJSON_AddStringToObject(b, "thinking", buf_cstr(&t->thinking));
		cJSON_AddItemToArray(t->content, b);
		buf_reset(&t->thinking);
	}
	if (t->text.len > 0) {
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", buf_cstr(&t->text));
		cJSON_AddItemToArray(t->content, b);
		buf_reset(&t->text);
	}
}

static void cctr_tool_result(struct cctr *, const cJSON *);

static void
cctr_assistant(struct cctr *t, const cJSON *usage)
{
	cJSON *m = cJSON_CreateObject(), *u;
	char id[37];

	cctr_close_blocks(t);
	cctr_uuid(t, id);
	cJSON_AddStringToObject(m, "id", id);
	cJSON_AddStringToObject(m, "type", "message");
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON_AddStringToObject(m, "model", t->model != NULL ? t->model : "");
	cJSON_AddItemToObject(m, "content", t->content);
	t->content = cJSON_CreateArray();
	cJSON_AddNullToObject(m, "stop_reason");
	cJSON_AddNullToObject(m, "stop_sequence");
	u = cJSON_AddObjectToObject(m, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", (double)json_int(usage, "input_tokens", 0));
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens",
	    (double)json_int(usage, "cache_creation_input_tokens", 0));
	cJSON_AddNumberToObject(u, "cache_read_input_tokens",
	    (double)json_int(usage, "cache_read_input_tokens", 0));
	cJSON_AddNumberToObject(u, "output_tokens", (double)json_int(usage, "output_tokens", 0));
	cctr_write(t, "assistant", m, NULL);
	/* A fast tool's result waited for the response that called it. */
	while ((m = t->held->child) != NULL) {
		cJSON_DetachItemViaPointer(t->held, m);
		cctr_tool_result(t, m);
		cJSON_Delete(m);
	}
}

static void
cctr_tool_use(struct cctr *t, const cJSON *ev)
{
	cJSON *b = cJSON_CreateObject();
	const cJSON *in = json_get(ev, "input");

	cctr_close_blocks(t);
	cJSON_AddStringToObject(b, "type", "tool_use");
	cJSON_AddStringToObject(b, "id", json_str(ev, "id", ""));
	cJSON_AddStringToObject(b, "name", cctr_tool_name(json_str(ev, "name", "")));
	cJSON_AddItemToObject(b, "input", in != NULL ? cJSON_Duplicate(in, true) : cJSON_CreateObject());
	cJSON_AddItemToArray(t->content, b);
}

static void
cctr_tool_result(struct cctr *t, const cJSON *ev)
{
	cJSON *m, *c, *b, *extra;

	if (t->content->child != NULL || t->text.len > 0 || t->thinking.len > 0) {
		cJSON_AddItemToArray(t->held, cJSON_Duplicate(ev, true));
		return;
	}
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "tool_result");
	cJSON_AddStringToObject(b, "tool_use_id", json_str(ev, "id", ""));
	cJSON_AddStringToObject(b, "content", json_str(ev, "content", ""));
	cJSON_AddBoolToObject(b, "is_error", json_bool(ev, "is_error", false));
	c = cJSON_CreateArray();
	cJSON_AddItemToArray(c, b);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddItemToObject(m, "content", c);
	extra = cJSON_CreateObject();
	cJSON_AddStringToObject(extra, "toolUseResult", json_str(ev, "content", ""));
	cctr_write(t, "user", m, extra);
}

void
cctr_event(struct cctr *t, const cJSON *ev)
{
	const char *type = json_str(ev, "type", "");
	cJSON *m;

	if (t == NULL || json_bool(ev, "replay", false))
		return;
	if (strcmp(type, "session") == 0) {
		free(t->model);
		t->model = xstrdup(json_str(ev, "model", ""));
		cctr_set_session(t, json_str(ev, "id", NULL), NULL);
	} else if (strcmp(type, "turn_start") == 0) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddStringToObject(m, "content", json_str(ev, "prompt", ""));
		cctr_write(t, "user", m, NULL);
	} else if (strcmp(type, "text") == 0) {
		if (t->thinking.len > 0)
			cctr_close_blocks(t);
		buf_puts(&t->text, json_str(ev, "text", ""));
	} else if (strcmp(type, "thinking") == 0) {
		if (t->text.len > 0)
			cctr_close_blocks(t);
		buf_puts(&t->thinking, json_str(ev, "text", ""));
	} else if (strcmp(type, "tool_use") == 0) {
		cctr_tool_use(t, ev);
	} else if (strcmp(type, "usage") == 0) {
		cctr_assistant(t, ev);
	} else if (strcmp(type, "tool_result") == 0) {
		cctr_tool_result(t, ev);
	}
}
