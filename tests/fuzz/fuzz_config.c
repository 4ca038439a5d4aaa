/*
 * fuzz_config: the settings parser (agent/config.c) on a project
 * settings file made of the input.
 *
 * Invariants: a refused file gets one line "PATH:LINE:COL: what" whose
 * line and column lie inside the file (or just past its end); an accepted
 * one prints (config_print) and every warning line names the file.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "fuzz.h"

static char fz_dir[64];
static char fz_root[128];
static char fz_file[192];

static void
fz_setup(void)
{
	char path[160];

	snprintf(fz_dir, sizeof fz_dir, "/tmp/fuzz_config.XXXXXX");
	FUZZ_CHECK(mkdtemp(fz_dir) != NULL);
	snprintf(fz_root, sizeof fz_root, "%s/root", fz_dir);
	FUZZ_CHECK(mkdir(fz_root, 0700) == 0);
	snprintf(path, sizeof path, "%s/.tandem", fz_root);
	FUZZ_CHECK(mkdir(path, 0700) == 0);
	snprintf(fz_file, sizeof fz_file, "%s/.tandem/settings.json", fz_root);
	snprintf(path, sizeof path, "%s/home", fz_dir);
	setenv("TANDEM_HOME", path, 1);
	snprintf(path, sizeof path, "%s/xdg", fz_dir);
	setenv("XDG_CONFIG_HOME", path, 1);
	unsetenv("ANTHROPIC_BASE_URL");
	unsetenv("OPENAI_BASE_URL");
}

/* "PATH:LINE:COL: " at the start of err: line and column, or -1. */
static int
fz_position(const char *err, long *line, long *col)
{
	size_t n = strlen(fz_file);
	char *end;

	if (strncmp(err, fz_file, n) != 0 || err[n] != ':')
		return -1;
	*line = strtol(err + n + 1, &end, 10);
	if (*end != ':')
		return -1;
	*col = strtol(end + 1, &end, 10);
	if (end[0] != ':' || end[1] != ' ' || end[2] == '\0')
		return -1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf warn = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(BUF_NOLIMIT),
	    out = BUF_INIT(BUF_NOLIMIT);
	struct config cfg;
	long line, col, lines = 1;
	size_t i;
	int fd, rc;

	if (size > 65536)
		return 0;
	if (fz_dir[0] == '\0')
		fz_setup();
	fd = open(fz_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd != -1 && write(fd, data, size) == (ssize_t)size);
	close(fd);
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';

	config_init(&cfg);
	FUZZ_CHECK(config_set_flag(&cfg, "root", fz_root, &err) == 0);
	rc = config_load(&cfg, &warn, &err);
	if (rc == -1) {
		if (fz_position(buf_cstr(&err), &line, &col) == -1) {
			fprintf(stderr, "error: %s\n", buf_cstr(&err));
			FUZZ_CHECK(!"a refused file's error starts with PATH:LINE:COL:");
		}
		FUZZ_CHECK(line >= 1 && line <= lines);
		FUZZ_CHECK(col >= 1 && (size_t)col <= size + 1);
		FUZZ_CHECK(memchr(err.data, '\n', err.len) == NULL);
	} else {
		const char *w = buf_cstr(&warn);

		while (*w != '\0') {
			const char *nl = strchr(w, '\n');

			FUZZ_CHECK(strncmp(w, fz_file, strlen(fz_file)) == 0);
			w = nl ? nl + 1 : w + strlen(w);
		}
		config_print(&cfg, &out);
		FUZZ_CHECK(out.len > 0);
	}
	config_release(&cfg);
	buf_release(&warn);
	buf_release(&err);
	buf_release(&out);
	return 0;
}
