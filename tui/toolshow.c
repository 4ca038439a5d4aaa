/* What a tool call shows of itself: see toolshow.h. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "toolshow.h"
#include "xalloc.h"

#define TS_MAX		(1024 * 1024)	/* an edit larger than this is not shown inline */
#define TS_FILES_NAMED	3		/* apply_patch's line names this many files */
#define TS_EDIT_HUNKS	20		/* edit_file's result lists at most this many lines */

static const char *const ts_edits[] = { "edit_file", "write_file", "apply_patch" };

bool
ts_is_edit(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof ts_edits / sizeof ts_edits[0]; i++)
		if (strcmp(name, ts_edits[i]) == 0)
			return true;
	return false;
}

bool
ts_is_command(const char *name)
{
	return strcmp(name, "run_bash") == 0;
}

/*
 * The language servers' count on an edit's line: each "SERVER: N new
 * error(s) in FILE" line of its result (agent/lsp) summed; "" when none.
 */
static void
ts_diag_count(const char *result, char *out, size_t size)
{
	const char *p = result;
	long total = 0;

	while ((p = strstr(p, " new error")) != NULL) {
		const char *q = p;

		while (q > result && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q < p && q > result + 1 && q[-1] == ' ' && q[-2] == ':')
			total += strtol(q, NULL, 10);
		p += 10;
	}
	if (total > 0)
		snprintf(out, size, "%ld new error%s", total, total == 1 ? "" : "s");
}

/* Lines of s (a last line without '\n' counts; a trailing '\n' ends the last). */
static long
ts_lines(const char *s, size_t n)
{
	long k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\n')
			k++;
	return k + (n > 0 && s[n - 1] != '\n');
}

/* Each line of s after marker, one a line. */
static void
ts_put_lines(struct buf *b, char marker, const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		buf_putc(b, marker);
		buf_append(b, p, (size_t)(le - p));
		buf_putc(b, '\n');
		p = nl ? nl + 1 : end;
	}
}

/* The line numbers "at line 6" or "at lines 6, 10, ..." of edit_file's result. */
static size_t
ts_edit_lines(const char *result, long *lines, size_t max)
{
	const char *p = result != NULL ? strstr(result, " at line") : NULL;
	size_t n = 0;

	if (p == NULL)
		return 0;
	p += 8;
	if (*p == 's')
		p++;
	while (n < max) {
		char *end;
		long v;

		while (*p == ' ' || *p == ',')
			p++;
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno != 0 || v < 1)
			break;
		lines[n++] = v;
		p = end;
	}
	return n;
}

static char *
ts_edit_file_diff(const cJSON *input, const char *result)
{
	const char *path = json_str(input, "path", NULL), *os = json_str(input, "old_string", NULL);
	const char *ns = json_str(input, "new_string", NULL);
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	long at[TS_EDIT_HUNKS], ol, nl;
	size_t n, k;

	if (path == NULL || os == NULL || ns == NULL || strlen(os) + strlen(ns) > TS_MAX)
		return NULL;
	n = ts_edit_lines(result, at, TS_EDIT_HUNKS);
	ol = ts_lines(os, strlen(os));
	nl = ts_lines(ns, strlen(ns));
	buf_printf(&b, "--- a/%s\n+++ b/%s\n", path, path);
	/* Without the lines (an older result's text) one hunk, unnumbered. */
	for (k = 0; k < (n > 0 ? n : 1); k++) {
		long o = n > 0 ? at[k] : 0, nw = n > 0 ? at[k] + (long)k * (nl - ol) : 0;

		buf_printf(&b, "@@ -%ld,%ld +%ld,%ld @@\n", o, ol, nw, nl);
		ts_put_lines(&b, '-', os, strlen(os));
		ts_put_lines(&b, '+', ns, strlen(ns));
	}
	return buf_detach(&b, NULL);
}

static char *
ts_write_file_diff(const cJSON *input, const char *result)
{
	const char *path = json_str(input, "path", NULL), *c = json_str(input, "content", NULL);
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	/* Only a created file is all in the input; an overwrite's old text is not. */
	if (path == NULL || c == NULL || result == NULL || strncmp(result, "created ", 8) != 0 ||
	    strlen(c) > TS_MAX)
		return NULL;
	buf_printf(&b, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%ld @@\n", path, ts_lines(c, strlen(c)));
	ts_put_lines(&b, '+', c, strlen(c));
	return buf_detach(&b, NULL);
}

/* The rest of line p after prefix, or NULL. */
static const char *
ts_after(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(p, prefix, n) == 0 ? p + n : NULL;
}

/* A Codex envelope's hunk: counted, unnumbered ("-0,k": the pane leaves the numbers out). */
static void
ts_codex_hunk(struct buf *b, const char *s, size_t n)
{
	long ol = 0, nl = 0;
	const char *p = s, *end = s + n;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		/* Anything but an added or removed line is shown as context. */
		if (*p != '+')
			ol++;
		if (*p != '-')
			nl++;
		p = e ? e + 1 : end;
	}
	buf_printf(b, "@@ -0,%ld +0,%ld @@\n", ol, nl);
	for (p = s; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *le = e ? e : end;

		/* A context line that lost its space is context. */
		if (*p != ' ' && *p != '-' && *p != '+')
			buf_putc(b, ' ');
		buf_append(b, p, (size_t)(le - p));
		buf_putc(b, '\n');
		p = e ? e + 1 : end;
	}
}

/*
 * The Codex envelope ("*** Update File: x", "@@ ...", lines) as a unified
 * diff; a unified or git patch is shown as it is.
 */
static char *
ts_patch_diff(const char *patch)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *p = patch, *hunk = NULL, *name;
	bool add = false;

	if (strlen(patch) > TS_MAX)
		return NULL;
	if (strstr(patch, "*** Begin Patch") == NULL)
		return xstrdup(patch);
	while (*p != '\0') {
		const char *e = p + strcspn(p, "\n");
		const char *next = *e ? e + 1 : e;
		bool header = strncmp(p, "*** ", 4) == 0 || strncmp(p, "@@", 2) == 0;

		if (header && hunk != NULL) {
			ts_codex_hunk(&b, hunk, (size_t)(p - hunk));
			hunk = NULL;
		}
		if ((name = ts_after(p, "*** Update File: ")) != NULL) {
			buf_printf(&b, "--- a/%.*s\n+++ b/%.*s\n", (int)(e - name), name, (int)(e - name), name);
			add = false;
		} else if ((name = ts_after(p, "*** Add File: ")) != NULL) {
			buf_printf(&b, "--- /dev/null\n+++ b/%.*s\n", (int)(e - name), name);
			add = true;
			hunk = next;
		} else if ((name = ts_after(p, "*** Delete File: ")) != NULL) {
			buf_printf(&b, "--- a/%.*s\n+++ /dev/null\n(deleted)\n", (int)(e - name), name);
		} else if (strncmp(p, "@@", 2) == 0 && !add) {
			hunk = next;
		}
		p = next;
	}
	if (hunk != NULL)
		ts_codex_hunk(&b, hunk, (size_t)(p - hunk));
	return buf_detach(&b, NULL);
}

char *
ts_edit_diff(const char *name, const cJSON *input, const char *result)
{
	const char *patch;

	if (strcmp(name, "edit_file") == 0)
		return ts_edit_file_diff(input, result);
	if (strcmp(name, "write_file") == 0)
		return ts_write_file_diff(input, result);
	if (strcmp(name, "apply_patch") == 0 && (patch = json_str(input, "patch", NULL)) != NULL)
		return ts_patch_diff(patch);
	return NULL;
}

/* A patch line that names a file: the name's start and end, or NULL. */
static const char *
ts_patch_name(const char *p, const char **end)
{
	static const char *const heads[] = {
		"+++ ", "*** Update File: ", "*** Add File: ", "*** Delete File: ",
	};
	const char *name = NULL;
	size_t i;

	for (i = 0; i < sizeof heads / sizeof heads[0] && name == NULL; i++)
		name = ts_after(p, heads[i]);
	if (name == NULL)
		return NULL;
	*end = name + strcspn(name, "\t\n");
	if (*end - name > 2 && name[1] == '/' && (name[0] == 'a' || name[0] == 'b') && p[0] == '+')
		name += 2;
	/* A deleted file's "+++ /dev/null": its name is on the "---" line. */
	if (*end - name == 9 && memcmp(name, "/dev/null", 9) == 0)
		return NULL;
	return name;
}

char *
ts_patch_files(const char *patch)
{
	struct buf b = BUF_INIT(4096);
	const char *p = patch, *name, *end, *prev = NULL;
	int files = 0;

	while (p != NULL && *p != '\0') {
		if ((name = ts_patch_name(p, &end)) != NULL) {
			/* A deleted file named on its "---" line. */
			if (files++ < TS_FILES_NAMED) {
				if (files > 1)
					buf_puts(&b, ", ");
				buf_append(&b, name, (size_t)(end - name));
			}
		} else if (strncmp(p, "+++ /dev/null", 13) == 0 && prev != NULL && strncmp(prev, "--- ", 4) == 0) {
			const char *o = prev + 4, *oe = o + strcspn(o, "\t\n");

			if (oe - o > 2 && o[0] == 'a' && o[1] == '/')
				o += 2;
			if (files++ < TS_FILES_NAMED) {
				if (files > 1)
					buf_puts(&b, ", ");
				buf_append(&b, o, (size_t)(oe - o));
			}
		}
		prev = p;
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	if (files > TS_FILES_NAMED)
		buf_printf(&b, " and %d more", files - TS_FILES_NAMED);
	if (files == 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

void
ts_found(const char *name, const char *mode, const char *result, char *out, size_t size)
{
	const char *unit = "files", *p;
	long n = 0;

	out[0] = '\0';
	if (result != NULL && ts_is_edit(name)) {
		ts_diag_count(result, out, size);
		return;
	}
	if (result == NULL || (strcmp(name, "glob") != 0 && strcmp(name, "grep") != 0))
		return;
	if (strncmp(result, "No files match", 14) == 0 || strncmp(result, "No matches", 10) == 0) {
		snprintf(out, size, "%s", "no matches");
		return;
	}
	if (strcmp(name, "grep") == 0 && mode != NULL && strcmp(mode, "content") == 0)
		unit = "lines";
	/* The tools' own notes are in brackets. */
	for (p = result; *p != '\0';) {
		const char *e = p + strcspn(p, "\n");

		if (e > p && *p != '[')
			n++;
		p = *e ? e + 1 : e;
	}
	if (n > 0)
		snprintf(out, size, "%ld %s", n, n == 1 ? (strcmp(unit, "files") == 0 ? "file" : "line") : unit);
}

char *
ts_mcp_name(const char *name, const cJSON *input)
{
	const char *s = name, *sep;
	struct buf b = BUF_INIT(1024);

	/* The proxy tool names the tool it calls in its input. */
	if (strcmp(name, "mcp") == 0 && json_str(input, "tool", NULL) != NULL)
		s = json_str(input, "tool", NULL);
	if (strncmp(s, "mcp__", 5) != 0 || (sep = strstr(s + 5, "__")) == NULL)
		return NULL;
	buf_append(&b, s + 5, (size_t)(sep - (s + 5)));
	buf_putc(&b, ':');
	buf_puts(&b, sep + 2);
	buf_puts(&b, " (MCP)");
	return buf_detach(&b, NULL);
}
