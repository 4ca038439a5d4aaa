/* Copying without hard wraps: see copy.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "copy.h"
#include "file.h"
#include "image.h"
#include "transcript.h"

/* The fence a line opens or closes: its character and length, or 0. */
static size_t
copy_fence(const char *l, size_t n, char *ch)
{
	size_t i = 0, k;

	while (i < n && i < 3 && l[i] == ' ')
		i++;
	if (i >= n || (l[i] != '`' && l[i] != '~'))
		return 0;
	*ch = l[i];
	for (k = i; k < n && l[k] == *ch; k++)
		;
	return k - i >= 3 ? k - i : 0;
}

int
copy_code_block(const char *md, size_t n, int index, struct buf *out)
{
	size_t pos = 0, open_len = 0, start = 0, last_s = 0, last_e = 0;
	char open_ch = 0;
	int count = 0, found = 0;

	while (pos <= n) {
		const char *nl = memchr(md + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - md) : n, next = nl ? end + 1 : n + 1;
		char ch = 0;
		size_t f = copy_fence(md + pos, end - pos, &ch);

		if (open_len == 0 && f > 0) {
			open_len = f;
			open_ch = ch;
			start = next > n ? n : next;
		} else if (open_len > 0 && f >= open_len && ch == open_ch) {
			/* A closing fence has nothing after it but blanks. */
			size_t k = pos;

			while (k < end && (md[k] == ' ' || md[k] == open_ch))
				k++;
			if (k == end) {
				count++;
				last_s = start;
				last_e = pos;
				open_len = 0;
				if (count == index) {
					found = 1;
					break;
				}
			}
		}
		pos = next;
	}
	if (!found && open_len > 0) {
		count++;
		last_s = start;
		last_e = n;
		found = count == index;
	}
	if (index == -1 && count > 0)
		found = 1;
	if (!found)
		return -1;
	buf_append(out, md + last_s, last_e - last_s);
	/* The code's own last newline is the fence's, not the code's. */
	if (out->len > 0 && out->data[out->len - 1] == '\n' && last_e != n)
		buf_truncate(out, out->len - 1);
	return 0;
}

void
copy_osc52(const char *s, size_t n, int tmux, struct buf *out)
{
	struct buf seq = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	buf_puts(&seq, "\033]52;c;");
	image_base64((const unsigned char *)s, n, &seq);
	buf_puts(&seq, "\a");
	if (tmux) {
		buf_puts(out, "\033Ptmux;");
		for (i = 0; i < seq.len; i++) {
			if (seq.data[i] == '\033')
				buf_putc(out, '\033');
			buf_putc(out, seq.data[i]);
		}
		buf_puts(out, "\033\\");
	} else {
		buf_append(out, seq.data, seq.len);
	}
	buf_release(&seq);
}

/* Where the copy goes on disk. */
static void
copy_path(struct app *a, char *path, size_t size)
{
	const char *dir = NULL, *tmp = getenv("TMPDIR");

	if (a->agent != NULL && a->be->session_dir != NULL)
		dir = a->be->session_dir(a->agent);
	if (dir != NULL && *dir != '\0')
		snprintf(path, size, "%s/copy.txt", dir);
	else
		snprintf(path, size, "%s/tandem-copy-%ld.txt", tmp != NULL && *tmp != '\0' ? tmp : "/tmp",
		    (long)getuid());
}

void
copy_run(struct app *a, const char *arg)
{
	struct buf src = BUF_INIT(BUF_NOLIMIT), text = BUF_INIT(BUF_NOLIMIT), osc = BUF_INIT(BUF_NOLIMIT);
	char path[4096], *end;
	long idx = 0;
	size_t lines = 0, i;
	int fd;

	if (arg != NULL && *arg != '\0') {
		errno = 0;
		idx = strtol(arg, &end, 10);
		if (errno != 0 || *end != '\0' || idx < -1 || idx > 100000) {
			app_notice(a, ROLE_ERROR, "/copy %s: give a code block's number (1 is the first, -1 "
			    "the last), or nothing for the whole reply", arg);
			goto out;
		}
	}
	if (!tr_copy_source(a->tr, &src)) {
		app_notice(a, ROLE_ERROR, "%s", "nothing to copy yet: no reply and no selected item");
		goto out;
	}
	if (idx != 0) {
		if (copy_code_block(src.data, src.len, (int)idx, &text) == -1) {
			app_notice(a, ROLE_ERROR, "the reply has no code block %ld", idx);
			goto out;
		}
	} else {
		buf_append(&text, src.data, src.len);
	}
	for (i = 0; i < text.len; i++)
		lines += text.data[i] == '\n';
	lines += text.len > 0 && text.data[text.len - 1] != '\n';
	copy_osc52(text.data ? text.data : "", text.len, getenv("TMUX") != NULL, &osc);
	fflush(stdout);
	(void)file_write_all(STDOUT_FILENO, osc.data, osc.len);
	copy_path(a, path, sizeof path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || file_write_all(fd, text.data ? text.data : "", text.len) == -1) {
		app_notice(a, ROLE_WARNING, "copied %zu line%s with OSC 52; %s could not be written: %s", lines,
		    lines == 1 ? "" : "s", path, strerror(errno));
	} else {
		app_notice(a, ROLE_DIM, "copied %zu line%s (%zu bytes) with OSC 52, and to %s", lines,
		    lines == 1 ? "" : "s", text.len, path);
	}
	if (fd != -1)
		close(fd);
out:
	buf_release(&src);
	buf_release(&text);
	buf_release(&osc);
}
