/* The shell tool's spawn and output capture: see run_bash.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "proc.h"
#include "run_bash.h"
#include "utf8.h"
#include "xalloc.h"

#define HALF (TOOL_BASH_CAP / 2)

const struct tool_def tool_run_bash = {
	.name = "run_bash",
	.description =
	    "Run a command with bash -c in the workspace root; returns stdout and "
	    "stderr combined and the exit status. Each call is a fresh shell (cd and "
	    "variables do not persist). Output over 30 KB keeps head and tail, all "
	    "of it saved to a file the result names; escape sequences are removed, "
	    "other control bytes shown as \\xNN. timeout_ms: default 120000, at most "
	    "600000; then the command and its children are killed. Use read_file, "
	    "grep and glob to read and search, this to build, test and run. "
	    "run_in_background true (a server, a watcher) returns a shell id at "
	    "once, no timeout: read it with bash_output, end it with kill_shell; it "
	    "ends when tandem exits.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},"
	    "\"timeout_ms\":{\"type\":\"integer\"},"
	    "\"description\":{\"type\":\"string\",\"description\":\"What it does, in "
	    "a few words\"},\"run_in_background\":{\"type\":\"boolean\"},"
	    "\"sandbox\":{\"type\":\"boolean\",\"description\":\"false: run outside "
	    "the sandbox (the user is asked); only after a result said the sandbox "
	    "refused something\"}},\"required\":[\"command\"]}",
	.cls = TOOL_HIGH_IMPACT,
	.run = NULL,
	.preview = NULL,
};

pid_t
bash_spawn(const char *dir, const char *command, const struct bash_spawn_opts *o,
    int *outfd, struct buf *err)
{
	const char *argv[] = { "/bin/bash", "-c", command, NULL };
	struct proc_spec spec = {
		.argv = argv,
		.alt_path = "/bin/sh",
		.dir = dir,
		.in = PROC_IO_NULL,
		.out = PROC_IO_PIPE,
		.err = PROC_IO_STDOUT,
		.redact_env = true,
	};
	struct proc p;

	if (o != NULL) {
		spec.env_set = o->env_set;
		spec.env_unset = o->env_unset;
		spec.pre_exec = o->pre_exec;
		spec.arg = o->arg;
		spec.ended_note = o->ended_note;
		spec.long_lived = o->long_lived;
	}
	if (proc_spawn(&spec, &p, err) == -1)
		return -1;
	*outfd = p.out;
	return p.pid;
}

int
bash_timeout_ms(const cJSON *input)
{
	int64_t t = json_int(input, "timeout_ms", BASH_TIMEOUT_DEFAULT_MS);

	if (t <= 0)
		t = BASH_TIMEOUT_DEFAULT_MS;
	if (t > BASH_TIMEOUT_MAX_MS)
		t = BASH_TIMEOUT_MAX_MS;
	return (int)t;
}

/* "bash-" and the safe characters of the call's id, for the files of one call. */
static void
bash_file_stem(struct buf *name, const char *call_id)
{
	size_t start = name->len;
	const char *p;

	buf_puts(name, "bash-");
	for (p = call_id != NULL ? call_id : "call"; *p != '\0' && name->len - start < 100; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')
			buf_putc(name, *p);
}

void
bash_note_name(struct buf *name, const char *call_id)
{
	bash_file_stem(name, call_id);
	buf_puts(name, ".ended");
}

void
bash_capture_init(struct bash_capture *c, const char *spill_dir, const char *call_id)
{
	struct buf name = BUF_INIT(256);

	memset(c, 0, sizeof *c);
	buf_init(&c->head, HALF);
	c->tail = xmalloc(HALF);
	c->spill_fd = -1;
	c->spill_dir = spill_dir;
	buf_init(&c->spill_redact.hold, BUF_NOLIMIT);
	bash_file_stem(&name, call_id);
	buf_puts(&name, ".log");
	c->spill_name = buf_detach(&name, NULL);
}

/* A spill write failed: remember why, drop the partial file, stop spilling. */
static void
bash_spill_fail(struct bash_capture *c, int err)
{
	if (c->spill_err == 0)
		c->spill_err = err != 0 ? err : EIO;
	if (c->spill_fd != -1)
		close(c->spill_fd);
	c->spill_fd = -1;
	if (c->spill_path != NULL)
		unlink(c->spill_path);
}

/*
 * Every byte that goes to the spill file goes through here, raw: the file
 * is the output as the command wrote it, escapes, carriage returns and NULs
 * included.
 */
static void
bash_spill_raw(struct bash_capture *c, const char *p, size_t n)
{
	while (c->spill_fd != -1 && n > 0) {
		ssize_t w = write(c->spill_fd, p, n);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			bash_spill_fail(c, w == 0 ? ENOSPC : errno);
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Every spill write: the bytes as the command wrote them, keys redacted (a key split across writes too). */
static void
bash_spill_write(struct bash_capture *c, const char *p, size_t n)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	if (c->spill_fd == -1)
		return;
	redact_stream_feed(&c->spill_redact, p, n, &out);
	bash_spill_raw(c, out.data, out.len);
	buf_release(&out);
}

static void
bash_spill_open(struct bash_capture *c)
{
	struct buf path = BUF_INIT(4096);

	if (c->spill_dir == NULL)
		return;
	if (mkdir(c->spill_dir, 0700) == -1 && errno != EEXIST) {
		c->spill_err = errno;
		buf_release(&path);
		return;
	}
	buf_printf(&path, "%s/%s", c->spill_dir, c->spill_name);
	c->spill_path = buf_detach(&path, NULL);
	c->spill_fd = open(c->spill_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->spill_fd == -1) {
		c->spill_err = errno;
		return;
	}
	/* Everything so far: the head, then whatever the ring holds past it. */
	bash_spill_write(c, c->head.data, c->head.len);
	if (c->total > c->head.len) {
		size_t rest = c->total - c->head.len;	/* <= ring contents here */
		size_t start = (c->tail_pos + HALF - rest) % HALF;
		size_t first = rest < HALF - start ? rest : HALF - start;

		bash_spill_write(c, c->tail + start, first);
		bash_spill_write(c, c->tail, rest - first);
	}
}

static void
bash_ring_put(struct bash_capture *c, const char *p, size_t n)
{
	if (n >= HALF) {
		memcpy(c->tail, p + n - HALF, HALF);
		c->tail_pos = 0;
		c->tail_len = HALF;
		return;
	}
	while (n > 0) {
		size_t k = HALF - c->tail_pos < n ? HALF - c->tail_pos : n;

		memcpy(c->tail + c->tail_pos, p, k);
		c->tail_pos = (c->tail_pos + k) % HALF;
		c->tail_len = c->tail_len + k > HALF ? HALF : c->tail_len + k;
		p += k;
		n -= k;
	}
}

void
bash_capture_feed(struct bash_capture *c, const char *p, size_t n)
{
	size_t room = HALF - c->head.len;
	size_t k = n < room ? n : room;

	bash_spill_write(c, p, n);
	if (k > 0) {
		buf_append(&c->head, p, k);
		p += k;
		n -= k;
		c->total += k;
	}
	if (n == 0)
		return;
	/* Up to the cap, head and ring hold everything; past it, spill all. */
	if (!c->spill_tried && c->total + n > (size_t)TOOL_BASH_CAP) {
		c->spill_tried = true;
		bash_spill_open(c);
		bash_spill_write(c, p, n);
	}
	bash_ring_put(c, p, n);
	c->total += n;
}

/* Where the current line of out began, for a carriage return to go back to. */
struct bash_clean {
	size_t	line;
};

/* The length of an escape sequence at p (ESC included), however much of it there is. */
static size_t
bash_escape_len(const char *p, size_t n)
{
	size_t i;

	if (n < 2)
		return n;
	if (p[1] == '[') {
		/* CSI: parameters and intermediates, then a final byte 0x40-0x7E. */
		for (i = 2; i < n; i++)
			if ((unsigned char)p[i] >= 0x40 && (unsigned char)p[i] <= 0x7E)
				return i + 1;
		return n;
	}
	if (p[1] == ']' || p[1] == 'P' || p[1] == '_' || p[1] == '^') {
		/* OSC (and DCS, APC, PM): up to BEL or ESC \\. */
		for (i = 2; i < n; i++) {
			if (p[i] == '\a')
				return i + 1;
			if (p[i] == '\033' && i + 1 < n && p[i + 1] == '\\')
				return i + 2;
		}
		return n;
	}
	/* Two-byte escapes, with intermediates (ESC ( B). */
	for (i = 1; i < n && (unsigned char)p[i] >= 0x20 && (unsigned char)p[i] <= 0x2F; i++)
		;
	return i < n ? i + 1 : n;
}

/*
 * Append output as the model gets it: escape sequences (colours, cursor
 * moves, titles) dropped; a carriage return not before a newline starts
 * its line over, so a progress bar leaves only its last state; other
 * control bytes, NUL included, written as \xNN; invalid UTF-8 as U+FFFD.
 * Newlines and tabs stay.
 */
static void
bash_clean_append(struct buf *out, struct bash_clean *st, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char ch = (unsigned char)p[i];
		uint32_t cp;
		size_t l;

		if (ch == '\033') {
			i += bash_escape_len(p + i, n - i);
			continue;
		}
		if (ch == '\r') {
			if (i + 1 < n && p[i + 1] == '\n') {
				i++;
				continue;
			}
			/* At the very end a lone CR ends the line as it stands. */
			if (i + 1 < n)
				buf_truncate(out, st->line);
			i++;
			continue;
		}
		if (ch == '\n') {
			buf_putc(out, '\n');
			st->line = out->len;
			i++;
			continue;
		}
		l = utf8_decode(p + i, n - i, &cp);
		if (ch != '\t' && utf8_is_control(cp))
			buf_printf(out, cp < 0x80 ? "\\x%02X" : "\\u%04X", (unsigned)cp);
		else if (cp == 0xFFFD && l == 1)
			buf_puts(out, "\xEF\xBF\xBD");
		else
			buf_append(out, p + i, l);
		i += l;
	}
}

/* Why the whole output is not in a file, in a few words. */
static void
bash_spill_note(const struct bash_capture *c, struct buf *t)
{
	if (c->spill_err == 0 && c->spill_path != NULL)
		buf_printf(t, " the whole output is in %s", c->spill_path);
	else if (c->spill_err != 0)
		buf_printf(t, " the whole output could not be kept: %s: %s",
		    c->spill_path != NULL ? c->spill_path : c->spill_dir, strerror(c->spill_err));
	else
		buf_puts(t, " the whole output was not kept");
}

void
bash_capture_finish(struct bash_capture *c, int status, bool timed_out,
    bool interrupted, int timeout_ms, struct tool_out *out)
{
	struct buf *t = &out->text;
	size_t shown = c->head.len + c->tail_len;
	struct bash_clean st = { 0 };

	buf_reset(t);
	bash_clean_append(t, &st, c->head.data != NULL ? c->head.data : "",
	    utf8_complete_prefix(buf_cstr(&c->head), c->head.len));
	if (c->total > shown) {
		buf_printf(t, "\n\n[... %zu bytes of output elided ...", c->total - shown);
		bash_spill_note(c, t);
		buf_puts(t, "]\n\n");
		st.line = t->len;
	}
	if (c->tail_len > 0) {
		/* The ring in order, starting at a character boundary. */
		char *lin = xmalloc(c->tail_len);
		size_t start = c->tail_len < HALF ? 0 : c->tail_pos, i, skip = 0;

		for (i = 0; i < c->tail_len; i++)
			lin[i] = c->tail[(start + i) % HALF];
		if (c->total > shown)
			while (skip < c->tail_len && skip < 3 &&
			    ((unsigned char)lin[skip] & 0xC0) == 0x80)
				skip++;
		bash_clean_append(t, &st, lin + skip, c->tail_len - skip);
		free(lin);
	}
	if (t->len > 0 && t->data[t->len - 1] != '\n')
		buf_putc(t, '\n');
	if (c->spill_err != 0 && c->total <= shown) {
		/* Not elided, but a file was promised and is not there. */
		buf_puts(t, "[");
		bash_spill_note(c, t);
		buf_puts(t, "]\n");
	}
	if (interrupted) {
		buf_puts(t, "[interrupted by the user; the command and its children were killed]");
		out->is_error = true;
	} else if (timed_out) {
		buf_printf(t, "[timed out after %d ms; the command and its children were killed]", timeout_ms);
		out->is_error = true;
	} else if (WIFEXITED(status)) {
		buf_printf(t, "[exit status %d]", WEXITSTATUS(status));
		out->is_error = WEXITSTATUS(status) != 0;
	} else if (WIFSIGNALED(status)) {
		buf_printf(t, "[killed by signal %d]", WTERMSIG(status));
		out->is_error = true;
	}
}

void
bash_capture_release(struct bash_capture *c)
{
	buf_release(&c->head);
	free(c->tail);
	c->tail = NULL;
	if (c->spill_fd != -1) {
		struct buf out = BUF_INIT(BUF_NOLIMIT);

		redact_stream_flush(&c->spill_redact, &out);
		bash_spill_raw(c, out.data, out.len);
		buf_release(&out);
		if (c->spill_fd != -1)
			close(c->spill_fd);
	}
	redact_stream_release(&c->spill_redact);
	c->spill_fd = -1;
	free(c->spill_path);
	free(c->spill_name);
	c->spill_path = c->spill_name = NULL;
}

void
bash_clean_text(struct buf *out, const char *p, size_t n)
{
	struct bash_clean st = { out->len };

	bash_clean_append(out, &st, p, n);
}

/* The background shells' tools: agent/bgshell.c runs them on the loop. */
const struct tool_def tool_bash_output = {
	.name = "bash_output",
	.description =
	    "Read what a background shell wrote since the last read, and whether it "
	    "is running, exited (with its status) or killed. filter (a POSIX "
	    "extended regular expression) keeps only the lines that match; the "
	    "others are dropped for good.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"shell_id\":{\"type\":\"string\","
	    "\"description\":\"e.g. bash_1\"},\"filter\":{\"type\":\"string\"}},"
	    "\"required\":[\"shell_id\"]}",
	.cls = TOOL_READ_ONLY,
	.shell_op = TOOL_SHELL_OUTPUT,
	.needs = "run_bash",
};

const struct tool_def tool_kill_shell = {
	.name = "kill_shell",
	.description =
	    "End a background shell of run_bash and its whole process tree. Says "
	    "what it ended.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"shell_id\":{\"type\":\"string\","
	    "\"description\":\"e.g. bash_1\"}},\"required\":[\"shell_id\"]}",
	/* It changes nothing in the workspace: it ends only what the model started. */
	.cls = TOOL_READ_ONLY,
	.shell_op = TOOL_SHELL_KILL,
	.needs = "run_bash",
};
