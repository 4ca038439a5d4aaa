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
#include "run_bash.h"
#include "utf8.h"
#include "xalloc.h"

#define HALF (TOOL_BASH_CAP / 2)

const struct tool_def tool_run_bash = {
	.name = "run_bash",
	.description =
	    "Run a shell command with bash -c in the workspace root and return its "
	    "combined stdout and stderr and its exit status. Each call is a fresh "
	    "shell: cd and variables do not persist. Output over 30 KB keeps its "
	    "head and tail; the whole output is saved to a file named in the result. "
	    "The default timeout is 120000 ms (at most 600000); the command and all "
	    "its children are killed when it passes. Prefer read_file, grep and glob "
	    "for reading and searching; use this to build, test and run programs.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"command\":{\"type\":\"string\",\"description\":\"the command line\"},"
	    "\"timeout_ms\":{\"type\":\"integer\",\"description\":\"timeout in milliseconds (default 120000, max 600000)\"},"
	    "\"description\":{\"type\":\"string\",\"description\":\"what the command does, in a few words\"}"
	    "},\"required\":[\"command\"]}",
	.cls = TOOL_HIGH_IMPACT,
	.run = NULL,
	.preview = NULL,
};

pid_t
bash_spawn(const char *dir, const char *command, int *outfd, struct buf *err)
{
	int p[2], devnull;
	pid_t pid;

	if (pipe(p) == -1) {
		buf_printf(err, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == -1) {
		buf_printf(err, "cannot fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int s;

		setpgid(0, 0);
		for (s = 1; s < 32; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		devnull = open("/dev/null", O_RDONLY);
		if (devnull != -1) {
			dup2(devnull, 0);
			close(devnull);
		}
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (chdir(dir) == -1)
			_exit(126);
		redact_env_child();
		execl("/bin/bash", "bash", "-c", command, (char *)NULL);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	/* Both sides set the group, so a kill right after fork finds it. */
	setpgid(pid, pid);
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	*outfd = p[0];
	return pid;
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

void
bash_capture_init(struct bash_capture *c, const char *spill_dir, const char *call_id)
{
	struct buf name = BUF_INIT(256);
	const char *p;

	memset(c, 0, sizeof *c);
	buf_init(&c->head, HALF);
	c->tail = xmalloc(HALF);
	c->spill_fd = -1;
	c->spill_dir = spill_dir;
	buf_init(&c->spill_redact.hold, BUF_NOLIMIT);
	buf_puts(&name, "bash-");
	/* Keep only safe characters of the id in the file name. */
	for (p = call_id != NULL ? call_id : "call"; *p != '\0' && name.len < 100; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')
			buf_putc(&name, *p);
	buf_puts(&name, ".log");
	c->spill_name = buf_detach(&name, NULL);
}

static void
bash_spill_open(struct bash_capture *c)
{
	struct buf path = BUF_INIT(4096);

	if (c->spill_dir == NULL)
		return;
	mkdir(c->spill_dir, 0700);
	buf_printf(&path, "%s/%s", c->spill_dir, c->spill_name);
	c->spill_fd = open(buf_cstr(&path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->spill_fd == -1) {
		buf_release(&path);
		return;
	}
	c->spill_path = buf_detach(&path, NULL);
	/* Everything so far: the head, then whatever the ring holds past it. */
	redact_stream_write(&c->spill_redact, c->spill_fd, c->head.data, c->head.len);
	if (c->total > c->head.len) {
		size_t rest = c->total - c->head.len;	/* <= ring contents here */
		size_t start = (c->tail_pos + HALF - rest) % HALF;
		size_t first = rest < HALF - start ? rest : HALF - start;

		redact_stream_write(&c->spill_redact, c->spill_fd, c->tail + start, first);
		redact_stream_write(&c->spill_redact, c->spill_fd, c->tail, rest - first);
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

	if (c->spill_fd != -1)
		redact_stream_write(&c->spill_redact, c->spill_fd, p, n);
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
		if (c->spill_fd != -1)
			redact_stream_write(&c->spill_redact, c->spill_fd, p, n);
	}
	bash_ring_put(c, p, n);
	c->total += n;
}

void
bash_capture_finish(struct bash_capture *c, int status, bool timed_out,
    bool interrupted, int timeout_ms, struct tool_out *out)
{
	struct buf *t = &out->text;
	size_t shown = c->head.len + c->tail_len;

	buf_reset(t);
	utf8_sanitize(t, c->head.data != NULL ? c->head.data : "",
	    utf8_complete_prefix(buf_cstr(&c->head), c->head.len));
	if (c->total > shown) {
		buf_printf(t, "\n\n[... %zu bytes of output elided ...", c->total - shown);
		if (c->spill_path != NULL)
			buf_printf(t, " the whole output is in %s", c->spill_path);
		buf_puts(t, "]\n\n");
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
		utf8_sanitize(t, lin + skip, c->tail_len - skip);
		free(lin);
	}
	if (t->len > 0 && t->data[t->len - 1] != '\n')
		buf_putc(t, '\n');
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
		redact_stream_write_flush(&c->spill_redact, c->spill_fd);
		close(c->spill_fd);
	}
	redact_stream_release(&c->spill_redact);
	c->spill_fd = -1;
	free(c->spill_path);
	free(c->spill_name);
	c->spill_path = c->spill_name = NULL;
}
