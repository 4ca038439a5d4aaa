/* What the wire front ends share: see wire.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "file.h"
#include "json.h"
#include "toolnames.h"
#include "wire.h"
#include "xalloc.h"

#define WIRE_READ_CHUNK	65536

struct wire_out {
	struct ev_loop	*loop;
	int		 fd;
	int		 old_flags;
	bool		 watching;
	bool		 broken;	/* the reader went away: lines are dropped */
	struct buf	 q;
	size_t		 lost;
};

struct wire_in {
	struct ev_loop	*loop;
	int		 fd;
	size_t		 max_line;
	wire_line_fn	*line;
	wire_long_fn	*too_long;
	wire_eof_fn	*eof;
	void		*arg;
	struct buf	 part;		/* the line so far */
	bool		 skipping;	/* inside a line past the cap */
	size_t		 skipped;
	bool		 watching;
	bool		 at_eof;
};

/* --- the output queue ---------------------------------------------------- */

static void wire_out_io(struct ev_loop *, int, int, void *);

/* Write what the fd takes now; 1 when something is left. */
static int
wire_out_write(struct wire_out *o)
{
	int r;

	if (o->broken)
		return 0;
	if ((r = file_write_queue(o->fd, &o->q)) == -1) {
		o->broken = true;
		buf_reset(&o->q);
		return 0;
	}
	return r;
}

static void
wire_out_arm(struct wire_out *o)
{
	bool want = o->q.len > 0 && !o->broken;

	if (want && !o->watching) {
		if (ev_io_add(o->loop, o->fd, POLLOUT, wire_out_io, o) == 0)
			o->watching = true;
	} else if (!want && o->watching) {
		ev_io_del(o->loop, o->fd);
		o->watching = false;
	}
}

static void
wire_out_io(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct wire_out *o = arg;

	(void)loop;
	(void)fd;
	(void)revents;
	wire_out_write(o);
	wire_out_arm(o);
}

struct wire_out *
wire_out_new(struct ev_loop *loop, int fd)
{
	struct wire_out *o = xcalloc(1, sizeof *o);

	o->loop = loop;
	o->fd = fd;
	buf_init(&o->q, WIRE_OUT_MAX);
	o->old_flags = fcntl(fd, F_GETFL);
	if (o->old_flags != -1)
		(void)fcntl(fd, F_SETFL, o->old_flags | O_NONBLOCK);
	return o;
}

void
wire_out_json(struct wire_out *o, const cJSON *item)
{
	struct buf line = BUF_INIT(WIRE_OUT_MAX);

	if (o->broken)
		return;
	if (json_append(&line, item) == -1 || buf_putc(&line, '\n') == -1 ||
	    o->q.len + line.len > WIRE_OUT_MAX) {
		o->lost++;
		buf_release(&line);
		return;
	}
	if (o->q.len == 0) {
		/* Most lines go at once; only the rest waits on the loop. */
		buf_append(&o->q, line.data, line.len);
		wire_out_write(o);
	} else {
		buf_append(&o->q, line.data, line.len);
	}
	buf_release(&line);
	wire_out_arm(o);
}

size_t
wire_out_pending(const struct wire_out *o)
{
	return o->q.len;
}

size_t
wire_out_lost(const struct wire_out *o)
{
	return o->lost;
}

int
wire_out_flush(struct wire_out *o, int timeout_ms)
{
	int64_t end = ev_now_ms() + timeout_ms;

	while (wire_out_write(o) == 1) {
		struct pollfd p = { o->fd, POLLOUT, 0 };
		int64_t left = end - ev_now_ms();

		if (left <= 0)
			return -1;
		if (poll(&p, 1, (int)left) == -1 && errno != EINTR)
			return -1;
	}
	wire_out_arm(o);
	return o->q.len == 0 ? 0 : -1;
}

void
wire_out_free(struct wire_out *o)
{
	if (o == NULL)
		return;
	if (o->watching)
		ev_io_del(o->loop, o->fd);
	if (o->old_flags != -1)
		(void)fcntl(o->fd, F_SETFL, o->old_flags);
	buf_release(&o->q);
	free(o);
}

/* --- the input lines ----------------------------------------------------- */

void
wire_in_feed(struct wire_in *in, const char *p, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl != NULL ? (size_t)(nl - p) : n;

		if (in->skipping) {
			in->skipped += take;
		} else if (in->part.len + take > in->max_line) {
			in->skipping = true;
			in->skipped = in->part.len + take;
			buf_reset(&in->part);
		} else if (take > 0) {
			buf_append(&in->part, p, take);
		}
		if (nl == NULL)
			return;
		if (in->skipping) {
			in->skipping = false;
			if (in->too_long != NULL)
				in->too_long(in->arg, in->skipped);
		} else {
			struct buf line = in->part;

			/* The callback may feed or free nothing of ours: hand it its own copy. */
			buf_init(&in->part, BUF_NOLIMIT);
			if (line.len > 0 && line.data[line.len - 1] == '\r')
				buf_truncate(&line, line.len - 1);
			in->line(in->arg, line.data != NULL ? line.data : "", line.len);
			buf_release(&line);
		}
		p = nl + 1;
		n -= take + 1;
	}
}

static void
wire_in_io(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct wire_in *in = arg;
	char chunk[WIRE_READ_CHUNK];
	ssize_t r;

	(void)loop;
	(void)revents;
	r = read(fd, chunk, sizeof chunk);
	if (r == -1 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (r > 0) {
		wire_in_feed(in, chunk, (size_t)r);
		return;
	}
	/* EOF (or an error, which ends the input the same way). */
	wire_in_stop(in);
	in->at_eof = true;
	if (in->part.len > 0 && !in->skipping)
		wire_in_feed(in, "\n", 1);
	if (in->eof != NULL)
		in->eof(in->arg);
}

struct wire_in *
wire_in_new(struct ev_loop *loop, int fd, size_t max_line, wire_line_fn *line,
    wire_long_fn *too_long, wire_eof_fn *eof, void *arg)
{
	struct wire_in *in = xcalloc(1, sizeof *in);

	in->loop = loop;
	in->fd = fd;
	in->max_line = max_line > 0 ? max_line : WIRE_LINE_MAX;
	in->line = line;
	in->too_long = too_long;
	in->eof = eof;
	in->arg = arg;
	buf_init(&in->part, BUF_NOLIMIT);
	if (loop != NULL && fd >= 0 && ev_io_add(loop, fd, POLLIN, wire_in_io, in) == 0)
		in->watching = true;
	return in;
}

void
wire_in_stop(struct wire_in *in)
{
	if (in->watching)
		ev_io_del(in->loop, in->fd);
	in->watching = false;
}

bool
wire_in_eof(const struct wire_in *in)
{
	return in->at_eof;
}

void
wire_in_free(struct wire_in *in)
{
	if (in == NULL)
		return;
	wire_in_stop(in);
	buf_release(&in->part);
	free(in);
}

/* --- ids ----------------------------------------------------------------- */

void
wire_uuid(char out[37])
{
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i, j = 0;
	ssize_t got = fd >= 0 ? read(fd, b, sizeof b) : -1;

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof b) {
		/* No urandom: unique enough for message ids within one run. */
		static unsigned long long counter;
		unsigned long long v = (unsigned long long)ev_now_ms() ^
		    ((unsigned long long)getpid() << 32) ^ ++counter;

		for (i = 0; i < sizeof b; i++)
			b[i] = (unsigned char)(v >> ((i % 8) * 8)) ^ (unsigned char)(i * 37);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (i = 0; i < sizeof b; i++) {
		static const char hex[] = "0123456789abcdef";

		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[b[i] >> 4];
		out[j++] = hex[b[i] & 15];
	}
	out[j] = '\0';
}

/* --- Claude Code's tools ------------------------------------------------- */

/* Fields named differently; path fields are absolute on Claude Code's side. */
static const struct wire_field {
	const char	*tool;		/* tandem's; NULL: every tool */
	const char	*ours;
	const char	*theirs;
	bool		 path;
} wire_fields[] = {
	{ "read_file",	"path",		"file_path",	true },
	{ "edit_file",	"path",		"file_path",	true },
	{ "write_file",	"path",		"file_path",	true },
	{ "list_dir",	"path",		"path",		true },
	{ "run_bash",	"timeout_ms",	"timeout",	false },
	{ "bash_output", "shell_id",	"bash_id",	false },
	{ "grep",	"ignore_case",	"-i",		false },
	{ "grep",	"context",	"-C",		false },
	{ "grep",	"max_results",	"head_limit",	false },
};

static const struct {
	const char	*tool;
	const char	*kind;
} wire_kinds[] = {
	{ "read_file",	"read" },
	{ "list_dir",	"read" },
	{ "glob",	"search" },
	{ "grep",	"search" },
	{ "edit_file",	"edit" },
	{ "write_file",	"edit" },
	{ "apply_patch", "edit" },
	{ "run_bash",	"execute" },
	{ "bash_output", "read" },
	{ "kill_shell",	"execute" },
	{ "code",	"search" },
	{ "web_fetch",	"fetch" },
	{ "web_search",	"fetch" },
	{ "todo_write",	"think" },
	{ "exit_plan",	"switch_mode" },
	{ "ask_user",	"other" },
	{ "agent",	"think" },
};

const char *
wire_cc_tool(const char *tool)
{
	return toolname_cc_or_self(tool);
}

const char *
wire_tool_kind(const char *tool)
{
	size_t i;

	for (i = 0; i < sizeof wire_kinds / sizeof wire_kinds[0]; i++)
		if (strcmp(wire_kinds[i].tool, tool) == 0)
			return wire_kinds[i].kind;
	return "other";
}

static void
wire_replace(cJSON *obj, const char *from, const char *to, cJSON *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, from);
	cJSON_DeleteItemFromObjectCaseSensitive(obj, to);
	cJSON_AddItemToObject(obj, to, value);
}

cJSON *
wire_cc_input(const char *root, const char *tool, const cJSON *input)
{
	cJSON *in = cJSON_IsObject(input) ? cJSON_Duplicate(input, true) : cJSON_CreateObject();
	size_t i;

	for (i = 0; i < sizeof wire_fields / sizeof wire_fields[0]; i++) {
		const struct wire_field *f = &wire_fields[i];
		cJSON *v = json_get(in, f->ours);

		if (strcmp(f->tool, tool) != 0)
			continue;
		if (f->path && (v == NULL || cJSON_IsString(v))) {
			struct buf abs = BUF_INIT(BUF_NOLIMIT);
			const char *p = v != NULL ? v->valuestring : ".";

			if (p[0] == '/')
				buf_puts(&abs, p);
			else if (strcmp(p, ".") == 0 || p[0] == '\0')
				buf_puts(&abs, root);
			else
				buf_printf(&abs, "%s/%s", root, p);
			wire_replace(in, f->ours, f->theirs, cJSON_CreateString(buf_cstr(&abs)));
			buf_release(&abs);
		} else if (v != NULL) {
			wire_replace(in, f->ours, f->theirs, cJSON_Duplicate(v, true));
		}
	}
	if (strcmp(tool, "grep") == 0 && strcmp(json_str(in, "output_mode", ""), "files") == 0)
		wire_replace(in, "output_mode", "output_mode", cJSON_CreateString("files_with_matches"));
	return in;
}

cJSON *
wire_tandem_input(const char *root, const char *tool, const cJSON *cc_input)
{
	cJSON *in = cJSON_IsObject(cc_input) ? cJSON_Duplicate(cc_input, true) : cJSON_CreateObject();
	size_t rl = strlen(root), i;

	for (i = 0; i < sizeof wire_fields / sizeof wire_fields[0]; i++) {
		const struct wire_field *f = &wire_fields[i];
		cJSON *v = json_get(in, f->theirs);

		if (strcmp(f->tool, tool) != 0 || v == NULL)
			continue;
		if (f->path && cJSON_IsString(v)) {
			const char *p = v->valuestring;

			/* Inside the workspace a path goes back to being relative, as the model wrote it. */
			if (strncmp(p, root, rl) == 0 && p[rl] == '/' && p[rl + 1] != '\0')
				p += rl + 1;
			else if (strcmp(p, root) == 0)
				p = ".";
			wire_replace(in, f->theirs, f->ours, cJSON_CreateString(p));
		} else {
			wire_replace(in, f->theirs, f->ours, cJSON_Duplicate(v, true));
		}
	}
	if (strcmp(tool, "grep") == 0 &&
	    strcmp(json_str(in, "output_mode", ""), "files_with_matches") == 0)
		wire_replace(in, "output_mode", "output_mode", cJSON_CreateString("files"));
	return in;
}
