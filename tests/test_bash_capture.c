/*
 * The shell tool's output capture: output kept by length (NUL bytes cut
 * nothing), cleaned for the model (escapes dropped, carriage-return
 * redraws collapsed, control bytes as \xNN), raw in the spill file, and a
 * spill that cannot be written reported instead of promised.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "run_bash.h"
#include "t.h"
#include "tool.h"
#include "xalloc.h"

/* Capture bytes fed in chunks of size; the result text (the caller frees). */
static char *
capture(const char *dir, const char *id, const char *p, size_t n, size_t size, int code)
{
	struct bash_capture c;
	struct tool_out out;
	size_t off;
	char *text;

	bash_capture_init(&c, dir, id);
	for (off = 0; off < n; off += size)
		bash_capture_feed(&c, p + off, n - off < size ? n - off : size);
	tool_out_init(&out);
	bash_capture_finish(&c, code << 8, false, false, 1000, &out);
	text = xstrdup(buf_cstr(&out.text));
	T_EQ_INT(strlen(text), out.text.len);
	tool_out_release(&out);
	bash_capture_release(&c);
	return text;
}

T_TEST(nul_bytes_cut_nothing)
{
	char *t = capture(NULL, "c", "a\0b", 3, 1, 3);

	T_EQ_STR(t, "a\\x00b\n[exit status 3]");
	free(t);
}

T_TEST(controls_escapes_and_redraws)
{
	static const char in[] = "\033[1;31mred\033[0m \033]0;title\007ok\033]8;;u\033\\\\x\n"
	    "10%\r20%\r30%\r\nbell\007 del\177 c1\xc2\x85 tab\tend\r";
	char *t = capture(NULL, "c", in, sizeof in - 1, 5, 0);

	T_EQ_STR(t, "red ok\\x\n30%\nbell\\x07 del\\x7F c1\\u0085 tab\tend\n[exit status 0]");
	free(t);
}

static char *
tmpdir(void)
{
	char tmpl[] = "/tmp/tandem-capture.XXXXXX";

	T_OK(mkdtemp(tmpl) != NULL);
	return xstrdup(tmpl);
}

T_TEST(spill_keeps_raw_bytes)
{
	struct buf in = BUF_INIT(BUF_NOLIMIT), path = BUF_INIT(BUF_NOLIMIT), raw = BUF_INIT(BUF_NOLIMIT);
	char *dir = tmpdir(), *t, chunk[4096];
	int i, fd;
	ssize_t k;

	for (i = 0; i < 4000; i++)
		buf_printf(&in, "\033[32m%d%%\033[0m\r", i);
	buf_append(&in, "\0done\n", 6);
	t = capture(dir, "toolu_x", in.data, in.len, 4093, 0);
	buf_printf(&path, "%s/bash-toolu_x.log", dir);
	T_CONTAINS(t, "the whole output is in ");
	T_CONTAINS(t, buf_cstr(&path));
	T_OK(strchr(t, '\033') == NULL && strchr(t, '\r') == NULL);
	T_CONTAINS(t, "\\x00done\n[exit status 0]");
	fd = open(buf_cstr(&path), O_RDONLY);
	T_OK(fd != -1);
	while (fd != -1 && (k = read(fd, chunk, sizeof chunk)) > 0)
		buf_append(&raw, chunk, (size_t)k);
	if (fd != -1)
		close(fd);
	T_EQ_INT(raw.len, in.len);
	T_OK(raw.len == in.len && memcmp(raw.data, in.data, in.len) == 0);
	unlink(buf_cstr(&path));
	rmdir(dir);
	free(t);
	free(dir);
	buf_release(&in);
	buf_release(&path);
	buf_release(&raw);
}

T_TEST(failed_spill_is_reported)
{
	struct buf in = BUF_INIT(BUF_NOLIMIT), path = BUF_INIT(BUF_NOLIMIT);
	char *dir = tmpdir(), *t;
	int i;

	for (i = 0; i < 5000; i++)
		buf_puts(&in, "line of output\n");
	buf_puts(&in, "last\n");
	/* A directory where the file should go: open fails with EISDIR. */
	buf_printf(&path, "%s/bash-toolu_y.log", dir);
	T_EQ_INT(mkdir(buf_cstr(&path), 0700), 0);
	t = capture(dir, "toolu_y", in.data, in.len, 1000, 2);
	T_CONTAINS(t, "the whole output could not be kept: ");
	T_CONTAINS(t, "bash-toolu_y.log: Is a directory");
	T_OK(strstr(t, "the whole output is in") == NULL);
	T_CONTAINS(t, "last\n[exit status 2]");
	rmdir(buf_cstr(&path));
	rmdir(dir);
	free(t);
	free(dir);
	buf_release(&in);
	buf_release(&path);
}

int
main(void)
{
	T_RUN(nul_bytes_cut_nothing);
	T_RUN(controls_escapes_and_redraws);
	T_RUN(spill_keeps_raw_bytes);
	T_RUN(failed_spill_is_reported);
	return t_done();
}
