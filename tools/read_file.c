/*
 * read_file: a text file as numbered lines, streamed in fixed chunks so
 * that reading lines near the end of a huge file costs one pass and a
 * constant amount of memory.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "sandbox.h"
#include "tool.h"
#include "utf8.h"
#include "xalloc.h"

#define READ_LIMIT	2000		/* lines shown by default */
#define READ_LINE_MAX	2000		/* bytes of one line shown */
#define READ_CHUNK	(64 * 1024)
#define READ_PROBE	8192		/* bytes looked at for a NUL */
#define READ_NOTE_ROOM	400		/* kept free under the cap for the last note */

struct read_state {
	struct tool_out	*out;
	const char	*rel;
	struct buf	 line;		/* the shown part of the current line */
	struct buf	 entry;		/* one formatted line */
	size_t		 line_bytes;	/* the whole current line */
	char		 line_last;	/* its last byte so far */
	int64_t		 lineno;	/* the current line's number */
	int64_t		 first;
	int64_t		 last;
	int64_t		 shown;		/* the last line shown, 0 if none */
	bool		 capped;	/* the byte cap stopped the output */
	bool		 crlf;
};

static bool
read_is_binary(const char *p, size_t n)
{
	return memchr(p, '\0', n < READ_PROBE ? n : READ_PROBE) != NULL;
}

/*
 * An optional integer argument: a JSON number or a numeric string (models
 * send both).  0 with *v set, or -1 with the error in out.
 */

/* Format the finished line and add it, unless it would pass the cap. */
static void
read_emit(struct read_state *rs)
{
	size_t shown = rs->line.len, whole = rs->line_bytes;
	bool cut;

	if (rs->line_last == '\r') {
		rs->crlf = true;
		whole--;
		if (shown > whole)
			shown = whole;
	}
	cut = whole > READ_LINE_MAX;
	if (cut)
		shown = utf8_floor(rs->line.data, READ_LINE_MAX);
	buf_reset(&rs->entry);
	buf_printf(&rs->entry, "%6" PRId64 "\t", rs->lineno);
	utf8_sanitize(&rs->entry, rs->line.data ? rs->line.data : "", shown);
	if (cut)
		buf_printf(&rs->entry, " [line truncated: %zu of %zu bytes shown]",
		    shown, whole);
	buf_putc(&rs->entry, '\n');
	if (rs->out->text.len + rs->entry.len > TOOL_READ_CAP - READ_NOTE_ROOM) {
		rs->capped = true;
		return;
	}
	buf_append(&rs->out->text, rs->entry.data, rs->entry.len);
	rs->shown = rs->lineno;
}

/* Take in n more bytes of the current line (no newline among them). */
static void
read_take(struct read_state *rs, const char *p, size_t n)
{
	if (n == 0)
		return;
	/* Keep a few bytes past the cut so utf8_floor can find a boundary. */
	if (rs->line.len < READ_LINE_MAX + 4) {
		size_t room = READ_LINE_MAX + 4 - rs->line.len;

		buf_append(&rs->line, p, n < room ? n : room);
	}
	rs->line_bytes += n;
	rs->line_last = p[n - 1];
}

/* Finish the current line; false when no more lines are wanted. */
static bool
read_end_line(struct read_state *rs)
{
	if (rs->lineno >= rs->first)
		read_emit(rs);
	buf_reset(&rs->line);
	rs->line_bytes = 0;
	rs->line_last = '\0';
	rs->lineno++;
	return !rs->capped && rs->lineno <= rs->last;
}

/*
 * Run one chunk through the line splitter.  Returns the bytes used: all of
 * them, or fewer when the wanted lines are done.
 */
static size_t
read_chunk(struct read_state *rs, const char *buf, size_t n, bool *done)
{
	const char *p = buf, *end = buf + n, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (rs->lineno < rs->first) {
			/* Lines before the offset are only counted. */
			if (nl == NULL)
				return n;
			rs->lineno++;
			p = nl + 1;
			continue;
		}
		read_take(rs, p, (size_t)((nl ? nl : end) - p));
		if (nl == NULL)
			return n;
		p = nl + 1;
		if (!read_end_line(rs)) {
			*done = true;
			return (size_t)(p - buf);
		}
	}
	return n;
}

static void
read_note(struct read_state *rs, bool more, intmax_t size)
{
	struct buf *t = &rs->out->text;

	if (rs->capped)
		buf_printf(t, "[output capped at %d KB: lines %" PRId64 "-%" PRId64
		    " shown of a %jd-byte file; call read_file with offset %" PRId64
		    " to read on]\n", TOOL_READ_CAP / 1024, rs->first, rs->shown, size,
		    rs->shown + 1);
	else if (more)
		buf_printf(t, "[lines %" PRId64 "-%" PRId64 " shown; the file goes on"
		    " (%jd bytes in all): call read_file with offset %" PRId64
		    " to read on]\n", rs->first, rs->shown, size, rs->shown + 1);
	if (rs->crlf)
		buf_puts(t, "[the file has CRLF line endings; the \\r is not shown]\n");
}

/* Stream the file open on fd; st is its status. */
static void
read_stream(struct read_state *rs, int fd, const struct stat *st)
{
	char *chunk = xmalloc(READ_CHUNK);
	bool done = false, first_chunk = true, tail = false;
	off_t pos = 0;
	ssize_t n;

	while (!done && (n = read(fd, chunk, READ_CHUNK)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			tool_out_error(rs->out, "cannot read %s: %s", rs->rel, strerror(errno));
			goto out;
		}
		if (first_chunk && read_is_binary(chunk, (size_t)n)) {
			tool_out_error(rs->out, "%s is a binary file (%jd bytes); not shown",
			    rs->rel, (intmax_t)st->st_size);
			goto out;
		}
		first_chunk = false;
		tail = chunk[n - 1] != '\n';
		pos += (off_t)read_chunk(rs, chunk, (size_t)n, &done);
	}
	/* At the end of a file without a final newline: its last line. */
	if (!done && tail) {
		if (rs->lineno >= rs->first)
			read_end_line(rs);
		else
			rs->lineno++;
	}
	if (rs->shown == 0 && !rs->capped) {
		int64_t lines = rs->lineno - 1;

		tool_out_error(rs->out, "offset %" PRId64 " is past the end of %s (it has %"
		    PRId64 " line%s)", rs->first, rs->rel, lines, lines == 1 ? "" : "s");
		goto out;
	}
	read_note(rs, done && pos < st->st_size, (intmax_t)st->st_size);
out:
	free(chunk);
}

/* Paths in messages may hold any bytes, but the model must get UTF-8. */

static void
read_file_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct read_state rs;
	struct buf err = BUF_INIT(4096);
	const char *path = json_str(input, "path", NULL);
	struct sandbox sb;
	struct sandbox_at at = { .dirfd = -1 };
	const char *rel;
	int64_t offset, limit;
	struct stat st;
	int fd = -1;

	memset(&rs, 0, sizeof rs);
	if (path == NULL || path[0] == '\0') {
		tool_out_error(out, "read_file needs a path");
		return;
	}
	if (tool_int_arg(input, "offset", 1, &offset, out) == -1 ||
	    tool_int_arg(input, "limit", READ_LIMIT, &limit, out) == -1)
		return;
	if (offset < 0 || limit < 1) {
		tool_out_error(out, "offset must be 1 or more and limit at least 1");
		return;
	}
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, &err) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	rel = at.rel;
	if (S_ISDIR(at.st.st_mode)) {
		tool_out_error(out, "%s is a directory; use list_dir to see what it holds", rel);
		goto out;
	}
	if (!S_ISREG(at.st.st_mode)) {
		/* a FIFO or a device is never opened: opening may block or act */
		tool_out_error(out, "%s is not a regular file; not read", rel);
		goto out;
	}
	fd = sandbox_open_at(&at, O_RDONLY, &err);
	if (fd == -1 || fstat(fd, &st) == -1) {
		tool_out_error(out, "%s", fd == -1 ? buf_cstr(&err) : strerror(errno));
		goto out;
	}
	buf_reset(&out->text);
	if (st.st_size == 0) {
		buf_printf(&out->text, "%s is empty (0 bytes)\n", rel);
		goto out;
	}
	rs.out = out;
	rs.rel = rel;
	rs.first = offset == 0 ? 1 : offset;
	rs.last = limit > INT64_MAX - rs.first ? INT64_MAX : rs.first + limit - 1;
	rs.lineno = 1;
	buf_init(&rs.line, BUF_NOLIMIT);
	buf_init(&rs.entry, BUF_NOLIMIT);
	read_stream(&rs, fd, &st);
	buf_release(&rs.line);
	buf_release(&rs.entry);
out:
	if (fd != -1)
		close(fd);
	buf_release(&err);
	sandbox_at_release(&at);
	tool_out_sanitize(out);
}

const struct tool_def tool_read_file = {
	.name = "read_file",
	.description =
	    "Read a text file. Lines come numbered like `cat -n` (number, tab, line; "
	    "the numbers are not in the file). Shows 2000 lines from offset; lines "
	    "over 2000 bytes are cut, and output stops near 20 KB with a note giving "
	    "the offset to continue from. Refuses binary files and directories (use "
	    "list_dir). Read a file before editing it.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	    "\"description\":\"The file; absolute only inside the workspace\"},"
	    "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"First "
	    "line, 1-based (default 1)\"},\"limit\":{\"type\":\"integer\","
	    "\"minimum\":1,\"description\":\"Lines to show (default 2000)\"}},"
	    "\"required\":[\"path\"],\"additionalProperties\":false}",
	.cls = TOOL_READ_ONLY,
	.run = read_file_run,
	.preview = NULL,
};
