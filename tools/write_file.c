/*
 * write_file: create a file, or replace a whole file, with the given text.
 *
 * Missing parent directories are created inside the workspace.  The
 * preview and the run each read the file (see fsutil.h); the run writes
 * only if the file still holds what it read a moment before.
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "diff.h"
#include "fsutil.h"
#include "json.h"
#include "sandbox.h"
#include "tool.h"
#include "xalloc.h"

struct wplan {
	struct sandbox_at at;		/* where the file is, walked once */
	const char	*rel;		/* at.rel */
	char		*old;		/* the file now; NULL when it does not exist */
	size_t		 oldlen;
	const char	*content;	/* points into the input */
	size_t		 clen;
};

static void
write_release(struct wplan *w)
{
	sandbox_at_release(&w->at);
	free(w->old);
}

static int
write_plan(const struct tool_env *env, const cJSON *input, struct wplan *w, struct buf *err)
{
	const char *path = json_str(input, "path", NULL);
	struct sandbox sb;
	int rc;

	memset(w, 0, sizeof(*w));
	w->at.dirfd = -1;
	w->content = json_str(input, "content", NULL);
	if (path == NULL || path[0] == '\0') {
		buf_puts(err, "write_file needs \"path\": the file to write");
		return -1;
	}
	if (w->content == NULL) {
		buf_puts(err, "write_file needs \"content\" (a string): the whole new text of the file");
		return -1;
	}
	w->clen = strlen(w->content);
	if (w->clen > FSUTIL_MAX_FILE) {
		buf_printf(err, "content is larger than %zu MB", FSUTIL_MAX_FILE >> 20);
		return -1;
	}
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_EDIT, 0, &w->at, err) != 0)
		return -1;
	w->rel = w->at.rel;
	if (strcmp(w->at.name, ".") == 0 || (w->at.exists && S_ISDIR(w->at.st.st_mode))) {
		buf_printf(err, "%s is a directory; give the name of a file", w->rel);
		return -1;
	}
	rc = fsutil_read_at(&w->at, FSUTIL_MAX_FILE, &w->old, &w->oldlen, err);
	if (rc == FSUTIL_MISSING) {
		buf_reset(err);
		return 0;
	}
	return rc;
}

/*
 * Create the directories a new file needs: walk its path again, making
 * each missing directory beneath the one before (mkdirat), so the write
 * goes into the directory the walk made.
 */
static int
write_parents(const struct tool_env *env, struct wplan *w, const cJSON *input,
    struct buf *err)
{
	struct sandbox sb;

	if (w->at.dirfd != -1)
		return 0;
	tool_sandbox(env, &sb);
	sandbox_at_release(&w->at);
	if (sandbox_walk(&sb, json_str(input, "path", NULL), SANDBOX_EDIT, SANDBOX_PARENTS,
	    &w->at, err) != 0)
		return -1;
	w->rel = w->at.rel;
	if (w->at.exists) {
		buf_printf(err, "%s was created by something else meanwhile; nothing was "
		    "written.  Read it and try again", w->rel);
		return -1;
	}
	return 0;
}

static void
write_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct buf err = BUF_INIT(64 * 1024);
	struct wplan w;
	struct diff *d;
	cJSON *files;

	if (write_plan(env, input, &w, &err) != 0)
		goto fail;
	if (w.old != NULL && w.oldlen == w.clen && memcmp(w.old, w.content, w.clen) == 0) {
		buf_reset(&out->text);
		buf_printf(&out->text, "%s already has this content; nothing was written", w.rel);
		goto out;
	}
	if (w.old == NULL && write_parents(env, &w, input, &err) != 0)
		goto fail;
	out->meta = cJSON_CreateObject();
	files = cJSON_AddArrayToObject(out->meta, "files");
	if (fsutil_replace_at(&w.at, env->snap_dir, w.old, w.oldlen, w.content, w.clen,
	    files, &err) != 0) {
		cJSON_Delete(out->meta);
		out->meta = NULL;
		goto fail;
	}
	buf_reset(&out->text);
	if (w.old == NULL) {
		buf_printf(&out->text, "created %s (%ld lines)", w.rel,
		    diff_count_lines(w.content, w.clen));
		goto out;
	}
	buf_reset(&err);
	d = diff_compute(w.old, w.oldlen, w.content, w.clen, &err);
	if (d != NULL)
		buf_printf(&out->text, "wrote %s (+%ld -%ld)", w.rel, d->added, d->removed);
	else
		buf_printf(&out->text, "wrote %s (%ld lines)", w.rel,
		    diff_count_lines(w.content, w.clen));
	diff_free(d);
	goto out;
fail:
	tool_out_error(out, "%s", buf_cstr(&err));
out:
	write_release(&w);
	buf_release(&err);
}

static int
write_preview(const struct tool_env *env, const cJSON *input, struct buf *diff)
{
	struct buf err = BUF_INIT(64 * 1024), ol = BUF_INIT(BUF_NOLIMIT), nl = BUF_INIT(BUF_NOLIMIT);
	struct wplan w;
	struct diff *d;
	int rc = -1;

	if (write_plan(env, input, &w, &err) != 0) {
		buf_reset(diff);
		buf_puts(diff, buf_cstr(&err));
		goto out;
	}
	if (w.old != NULL)
		buf_printf(&ol, "a/%s", w.rel);
	else
		buf_puts(&ol, "/dev/null");
	buf_printf(&nl, "b/%s", w.rel);
	d = diff_compute(w.old ? w.old : "", w.oldlen, w.content, w.clen, &err);
	if (d == NULL)
		buf_printf(diff, "--- %s\n+++ %s\n(%s)\n", buf_cstr(&ol), buf_cstr(&nl), buf_cstr(&err));
	else if (d->nhunks == 0)
		buf_printf(diff, "--- %s\n+++ %s\n(%s)\n", buf_cstr(&ol), buf_cstr(&nl),
		    w.old ? "no change" : "a new empty file");
	else
		diff_format(d, buf_cstr(&ol), buf_cstr(&nl), diff);
	diff_free(d);
	rc = 0;
out:
	write_release(&w);
	buf_release(&err);
	buf_release(&ol);
	buf_release(&nl);
	return rc;
}

const struct tool_def tool_write_file = {
	.name = "write_file",
	.description =
	    "Write a whole file: create it (and missing parent directories) or "
	    "replace all its content. content is the exact new text; nothing is "
	    "added, so end it with a newline if the file should have one. For a "
	    "small change prefer edit_file. The user sees a diff first; the old "
	    "content is kept for undo.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	    "\"description\":\"The file to write\"},\"content\":{\"type\":\"string\","
	    "\"description\":\"The complete text\"}},\"required\":[\"path\","
	    "\"content\"],\"additionalProperties\":false}",
	.cls = TOOL_WRITE,
	.run = write_run,
	.preview = write_preview,
};
