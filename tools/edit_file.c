/*
 * edit_file: replace an exact piece of a file.
 *
 * The preview and the run each read the file and plan the edit from what
 * they read (see fsutil.h): a file changed after the preview is edited as
 * it is now, or the run fails because old_string no longer matches.
 * Files larger than FSUTIL_MAX_FILE are refused; a 100 MB file is edited
 * in a second or so (one search, one copy, a diff of the changed region).
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diff.h"
#include "fsutil.h"
#include "json.h"
#include "sandbox.h"
#include "tool.h"
#include "xalloc.h"

/* Line numbers named in a message. */
#define EDIT_LISTED	10
/* Lines of the file shown in an error. */
#define EDIT_SHOWN	40
/* Above this size, skip the whitespace-insensitive search (it copies the file). */
#define EDIT_LOOSE_MAX	((size_t)16 << 20)

struct edit {
	struct sandbox_at at;	/* where the file is, walked once */
	const char *rel;	/* at.rel */
	char	*text;		/* the file as read */
	size_t	 len;
	char	*result;	/* the file as it will be */
	size_t	 rlen;
	long	 count;		/* replacements made */
	long	 lines[EDIT_LISTED];	/* where the first ones start, 1-based */
};

static void
edit_release(struct edit *e)
{
	sandbox_at_release(&e->at);
	free(e->text);
	free(e->result);
}

/* Is text mostly CRLF?  Then the edit keeps it so. */
static bool
edit_is_crlf(const char *t, size_t n)
{
	const char *p = t, *end = t + n, *nl;
	size_t crlf = 0, lf = 0;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		if (nl > t && nl[-1] == '\r')
			crlf++;
		else
			lf++;
		p = nl + 1;
	}
	return crlf > lf;
}

/* s with every bare "\n" made "\r\n"; the caller frees. */
static char *
edit_to_crlf(const char *s, size_t *len)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			buf_putc(&b, '\r');
		buf_putc(&b, s[i]);
	}
	if (b.data == NULL)
		buf_puts(&b, "");
	return buf_detach(&b, len);
}

/* Count the places needle occurs (not overlapping); note where the first ones start. */
static long
edit_count(struct edit *e, const char *needle, size_t nn)
{
	const char *p = e->text, *end = e->text + e->len, *hit, *counted = e->text;
	long count = 0, line = 1;

	while ((size_t)(end - p) >= nn && (hit = memmem(p, (size_t)(end - p), needle, nn)) != NULL) {
		if (count < EDIT_LISTED) {
			const char *q = counted, *nl;

			while ((nl = memchr(q, '\n', (size_t)(hit - q))) != NULL) {
				line++;
				q = nl + 1;
			}
			counted = hit;
			e->lines[count] = line;
		}
		count++;
		p = hit + nn;
	}
	return count;
}

static int
edit_replace(struct edit *e, const char *from, size_t fl, const char *to, size_t tl,
    struct buf *err)
{
	struct buf out = BUF_INIT(FSUTIL_MAX_FILE);
	const char *p = e->text, *end = e->text + e->len, *hit;
	int rc = 0;

	while ((size_t)(end - p) >= fl && (hit = memmem(p, (size_t)(end - p), from, fl)) != NULL) {
		rc |= buf_append(&out, p, (size_t)(hit - p));
		rc |= buf_append(&out, to, tl);
		p = hit + fl;
	}
	rc |= buf_append(&out, p, (size_t)(end - p));
	if (rc != 0) {
		buf_printf(err, "the edited file would be larger than %zu MB; nothing was changed",
		    FSUTIL_MAX_FILE >> 20);
		return -1;
	}
	if (out.data == NULL)
		buf_puts(&out, "");
	e->result = buf_detach(&out, &e->rlen);
	return 0;
}

static void
edit_list_lines(struct buf *b, const struct edit *e)
{
	long i;

	for (i = 0; i < e->count && i < EDIT_LISTED; i++)
		buf_printf(b, "%s%ld", i ? ", " : "", e->lines[i]);
	if (e->count > EDIT_LISTED)
		buf_puts(b, ", ...");
}

/* old_string is not in the file: say what is there instead. */
static void
edit_no_match(const struct edit *e, const char *old, struct buf *err)
{
	size_t ol = strlen(old);
	long k = diff_count_lines(old, ol), first, places = 0, at;

	buf_printf(err, "old_string was not found in %s.", e->rel);
	if (e->len <= EDIT_LOOSE_MAX)
		places = diff_find_loose(e->text, e->len, old, ol, &first);
	if (places > 0) {
		buf_printf(err, " It matches line%s %ld", k > 1 ? "s" : "", first + 1);
		if (k > 1)
			buf_printf(err, "-%ld", first + k);
		buf_printf(err, "%s when whitespace is ignored: the indentation or spacing "
		    "differs. The file has there:\n", places > 1 ? " (and other places)" : "");
		diff_excerpt(err, e->text, e->len, first, k < EDIT_SHOWN ? k : EDIT_SHOWN);
		buf_puts(err, "Copy those lines exactly, with their tabs and spaces, into old_string.");
		return;
	}
	at = diff_nearest(e->text, e->len, old, ol);
	if (at < 0) {
		buf_puts(err, " Nothing in the file resembles it; read the file (read_file) "
		    "to see its current text.");
		return;
	}
	buf_printf(err, " The most similar part of the file is at line %ld:\n", at + 1);
	if (k > EDIT_SHOWN)
		k = EDIT_SHOWN;
	diff_excerpt(err, e->text, e->len, at > 2 ? at - 2 : 0, k + (at > 2 ? 2 : at) + 2);
	buf_puts(err, "Make old_string match the file exactly (read_file shows its current text).");
}

/* Find old in the file and build the result; 0 or -1 with err. */
static int
edit_match(struct edit *e, const char *old, const char *new, bool all, struct buf *err)
{
	char *cold = NULL, *cnew = NULL;
	const char *from = old, *to = new;
	size_t fl = strlen(old), tl = strlen(new);
	int rc = -1;

	if (edit_is_crlf(e->text, e->len)) {
		/* the model writes "\n"; the file has "\r\n": match and write in its style */
		size_t cl;

		cold = edit_to_crlf(old, &cl);
		cnew = edit_to_crlf(new, &tl);
		to = cnew;
		if (edit_count(e, cold, cl) > 0) {
			from = cold;
			fl = cl;
		}
	}
	e->count = edit_count(e, from, fl);
	if (e->count == 0) {
		edit_no_match(e, old, err);
		goto out;
	}
	if (e->count > 1 && !all) {
		buf_printf(err, "old_string matches %ld places in %s (lines ", e->count, e->rel);
		edit_list_lines(err, e);
		buf_puts(err, "); add surrounding lines to old_string so that it matches "
		    "only one, or set replace_all to change them all");
		goto out;
	}
	rc = edit_replace(e, from, fl, to, tl, err);
out:
	free(cold);
	free(cnew);
	return rc;
}

/* Read the input, the file, and plan the edit.  0 or -1 with err. */
static int
edit_plan(const struct tool_env *env, const cJSON *input, struct edit *e, struct buf *err)
{
	const char *path = json_str(input, "path", NULL);
	const char *old = json_str(input, "old_string", NULL);
	const char *new = json_str(input, "new_string", NULL);
	bool all = json_bool(input, "replace_all", false);
	struct sandbox sb;
	int rc;

	memset(e, 0, sizeof(*e));
	e->at.dirfd = -1;
	if (path == NULL || path[0] == '\0') {
		buf_puts(err, "edit_file needs \"path\": the file to change");
		return -1;
	}
	if (old == NULL || new == NULL) {
		buf_puts(err, "edit_file needs \"old_string\" and \"new_string\" (strings)");
		return -1;
	}
	if (strcmp(old, new) == 0) {
		buf_puts(err, "old_string and new_string are the same; there is nothing to change");
		return -1;
	}
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_EDIT, 0, &e->at, err) != 0)
		return -1;
	e->rel = e->at.rel;
	rc = fsutil_read_at(&e->at, FSUTIL_MAX_FILE, &e->text, &e->len, err);
	if (rc == FSUTIL_MISSING) {
		buf_reset(err);
		buf_printf(err, "%s does not exist; use write_file to create a file", e->rel);
		return -1;
	}
	if (rc != 0)
		return -1;
	if (fsutil_is_binary(e->text, e->len)) {
		buf_printf(err, "%s looks like a binary file (NUL bytes or text that is not "
		    "UTF-8); edit_file only changes text files", e->rel);
		return -1;
	}
	if (old[0] == '\0') {
		if (e->len > 0) {
			buf_printf(err, "old_string is empty but %s is not; give the exact text "
			    "to replace, or use write_file to replace the whole file", e->rel);
			return -1;
		}
		e->count = 1;
		e->lines[0] = 1;
		e->result = xstrdup(new);
		e->rlen = strlen(new);
		return 0;
	}
	return edit_match(e, old, new, all, err);
}

static void
edit_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct buf err = BUF_INIT(64 * 1024);
	cJSON *files;
	struct edit e;
	struct diff *d;

	if (edit_plan(env, input, &e, &err) != 0) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	out->meta = cJSON_CreateObject();
	files = cJSON_AddArrayToObject(out->meta, "files");
	if (fsutil_replace_at(&e.at, env->snap_dir, e.text, e.len, e.result, e.rlen, files,
	    &err) != 0) {
		tool_out_error(out, "%s", buf_cstr(&err));
		cJSON_Delete(out->meta);
		out->meta = NULL;
		goto out;
	}
	buf_reset(&out->text);
	buf_printf(&out->text, "edited %s: %ld replacement%s at line%s ", e.rel, e.count,
	    e.count == 1 ? "" : "s", e.count == 1 ? "" : "s");
	edit_list_lines(&out->text, &e);
	buf_reset(&err);
	d = diff_compute(e.text, e.len, e.result, e.rlen, &err);
	if (d != NULL)
		buf_printf(&out->text, " (+%ld -%ld)", d->added, d->removed);
	diff_free(d);
out:
	edit_release(&e);
	buf_release(&err);
}

static int
edit_preview(const struct tool_env *env, const cJSON *input, struct buf *diff)
{
	struct buf err = BUF_INIT(64 * 1024);
	struct edit e;
	int rc = -1;

	if (edit_plan(env, input, &e, &err) != 0) {
		buf_reset(diff);
		buf_puts(diff, buf_cstr(&err));
		goto out;
	}
	if (diff_unified(e.text, e.len, e.result, e.rlen, e.rel, diff, &err) != 0) {
		buf_printf(diff, "--- a/%s\n+++ b/%s\n(%s)\n", e.rel, e.rel, buf_cstr(&err));
	}
	rc = 0;
out:
	edit_release(&e);
	buf_release(&err);
	return rc;
}

const struct tool_def tool_edit_file = {
	.name = "edit_file",
	.description =
	    "Replace exact text in a file. old_string must match the current file "
	    "character for character, indentation and line breaks included (read the "
	    "file first), and occur exactly once: add surrounding lines to make it "
	    "unique, or set replace_all to change every occurrence. new_string "
	    "replaces it (empty deletes it). CRLF line ends are kept. To create or "
	    "rewrite a whole file use write_file; for several places at once, "
	    "apply_patch. The user sees a diff first.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	    "\"description\":\"The file to change\"},"
	    "\"old_string\":{\"type\":\"string\",\"description\":\"The exact text to "
	    "replace, as it is now\"},\"new_string\":{\"type\":\"string\"},"
	    "\"replace_all\":{\"type\":\"boolean\",\"description\":\"Replace every "
	    "occurrence (default false: it must be unique)\"}},"
	    "\"required\":[\"path\",\"old_string\",\"new_string\"],"
	    "\"additionalProperties\":false}",
	.cls = TOOL_WRITE,
	.run = edit_run,
	.preview = edit_preview,
};
