/*
 * turndiff: a turn's changes as one unified diff (agent_turn_diff).
 *
 * The "files" records of a turn (the write tools' and wsnap's, in log
 * order; undone ones left out) are folded per path: the state before the
 * first change and after the last.  Each path becomes a git-style diff
 * ("diff --git a/p b/p", "new file mode", "deleted file mode", "old
 * mode"/"new mode", then the hunks of diff.h), so the text can be read in
 * the diff pane and given to `git apply -R` to take a turn back.
 *
 * A binary file (a NUL byte anywhere in either side), or a text change too
 * large for diff.h, goes as git's binary patch (gitbin.h): an "index" line
 * with both sides' full blob ids, which git apply needs and checks, then
 * the new content and the old as literal hunks, so the patch applies in
 * both directions.  A file whose mode alone changed gets the mode lines
 * alone.  What a patch cannot carry is named on a "# " line of its own,
 * outside any hunk, which git apply passes over: symbolic links,
 * directories, and content the snapshot did not keep or can no longer
 * read.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "diff.h"
#include "fsutil.h"
#include "gitbin.h"
#include "json.h"
#include "store/session.h"
#include "sha1.h"
#include "xalloc.h"
#include "turn_int.h"
#include "store/wsnap.h"

/* One side of a path's change. */
struct turndiff_side {
	const char	*hash;		/* NULL: no content (or not kept) */
	const char	*kind;		/* "file", "dir", "link", "other"; NULL: nothing there */
	long		 mode;		/* permission bits; -1: not known */
	bool		 lost;
};

struct turndiff_path {
	const char		*path;
	struct turndiff_side	 before, after;
};

static void
turndiff_side(const cJSON *f, bool after, bool ws, struct turndiff_side *s)
{
	const char *lost = json_str(f, "lost", "");

	s->hash = json_str(f, after ? "after" : "before", NULL);
	if (ws)
		s->kind = json_str(f, after ? "now" : "was", NULL);
	else
		s->kind = s->hash != NULL ? "file" : NULL;
	s->mode = (long)json_int(f, after ? "mode_after" : "mode_before", -1);
	s->lost = strcmp(lost, "both") == 0 || strcmp(lost, after ? "after" : "before") == 0;
}

/*
 * Content of hash from the session's edit snapshots or the workspace store;
 * -1 with the sentence for the file's "# " line in err.
 */
static int
turndiff_load(struct conversation *cv, const char *hash, char **data, size_t *len, struct buf *err)
{
	struct agent *a = conversation_agent(cv);
	struct buf why = BUF_INIT(4096);

	buf_reset(err);
	if (fsutil_snapshot_load(agent_snap_dir(a), hash, data, len, &why) == 0)
		goto found;
	if (agent_wsnap(a) != NULL) {
		buf_reset(&why);
		if (fsutil_snapshot_load(wsnap_store(agent_wsnap(a)), hash, data, len, &why) == 0)
			goto found;
	}
	buf_printf(err, "changed; its content cannot be read from the snapshots (%s)", buf_cstr(&why));
	buf_release(&why);
	return -1;
found:
	buf_release(&why);
	return 0;
}

/*
 * git calls a file binary for a NUL in its first 8000 bytes; a NUL
 * anywhere is enough here, as a text hunk could not carry it to git apply.
 */
static bool
turndiff_binary(const char *p, size_t n)
{
	return memchr(p, '\0', n) != NULL;
}

static long
turndiff_gitmode(const struct turndiff_side *s)
{
	return 0100000 | (s->mode >= 0 ? s->mode & 0777 : 0644);
}

/* The index line and binary patch of one file (exists: that side is a file). */
static int
turndiff_binpatch(const struct turndiff_path *tp, bool bfile, bool ffile, const char *od, size_t on,
    const char *nd, size_t nn, struct buf *out)
{
	static const char none[] = "0000000000000000000000000000000000000000";
	const struct turndiff_side *b = &tp->before, *f = &tp->after;
	char oid[SHA1_HEX_LEN + 1], nid[SHA1_HEX_LEN + 1];

	if (bfile)
		sha1_git_blob(od, on, oid);
	if (ffile)
		sha1_git_blob(nd, nn, nid);
	/* the mode goes on the line as git writes it: both sides files, one known mode */
	if (bfile && ffile && b->mode >= 0 && b->mode == f->mode) {
		if (buf_printf(out, "index %s..%s %lo\n", oid, nid, turndiff_gitmode(f)) == -1)
			return -1;
	} else if (buf_printf(out, "index %s..%s\n", bfile ? oid : none, ffile ? nid : none) == -1) {
		return -1;
	}
	return gitbin_patch(out, od ? od : "", on, nd ? nd : "", nn);
}

static void
turndiff_one(struct conversation *cv, const struct turndiff_path *tp, struct buf *out, struct buf *err)
{
	const struct turndiff_side *b = &tp->before, *f = &tp->after;
	bool bfile = b->kind != NULL && strcmp(b->kind, "file") == 0;
	bool ffile = f->kind != NULL && strcmp(f->kind, "file") == 0;
	char *od = NULL, *nd = NULL;
	struct buf ol = BUF_INIT(BUF_NOLIMIT), nl = BUF_INIT(BUF_NOLIMIT);
	size_t on = 0, nn = 0;
	struct diff *d = NULL;
	bool same;
	int rc = -1;

	if ((b->kind != NULL && !bfile) || (f->kind != NULL && !ffile)) {
		/* a directory, a link, a FIFO: named, not diffed */
		buf_printf(out, "# %s: %s -> %s\n", tp->path, b->kind ? b->kind : "nothing",
		    f->kind ? f->kind : "nothing");
		return;
	}
	if ((bfile && (b->lost || b->hash == NULL)) || (ffile && (f->lost || f->hash == NULL))) {
		buf_printf(out, "# %s: changed; its content was not kept\n", tp->path);
		return;
	}
	if (bfile && turndiff_load(cv, b->hash, &od, &on, err) == -1)
		goto out;
	if (ffile && turndiff_load(cv, f->hash, &nd, &nn, err) == -1)
		goto out;
	same = bfile && ffile && on == nn && (on == 0 || memcmp(od, nd, on) == 0);
	if (same && (b->mode < 0 || f->mode < 0 || b->mode == f->mode)) {
		rc = 0;
		goto out;
	}
	buf_printf(out, "diff --git a/%s b/%s\n", tp->path, tp->path);
	if (!bfile)
		buf_printf(out, "new file mode %lo\n", turndiff_gitmode(f));
	else if (!ffile)
		buf_printf(out, "deleted file mode %lo\n", turndiff_gitmode(b));
	else if (b->mode >= 0 && f->mode >= 0 && b->mode != f->mode)
		buf_printf(out, "old mode %lo\nnew mode %lo\n", turndiff_gitmode(b), turndiff_gitmode(f));
	if (same) {
		rc = 0;		/* the mode alone */
		goto out;
	}
	if (!turndiff_binary(od ? od : "", on) && !turndiff_binary(nd ? nd : "", nn))
		d = diff_compute(od ? od : "", on, nd ? nd : "", nn, err);
	if (d == NULL) {
		/* binary, or more lines than a text diff takes */
		buf_reset(err);
		if (turndiff_binpatch(tp, bfile, ffile, od, on, nd, nn, out) == -1)
			buf_puts(err, "the diff is too large to show");
		else
			rc = 0;
		goto out;
	}
	buf_printf(&ol, "%s%s", bfile ? "a/" : "/dev/null", bfile ? tp->path : "");
	buf_printf(&nl, "%s%s", ffile ? "b/" : "/dev/null", ffile ? tp->path : "");
	if (diff_format(d, buf_cstr(&ol), buf_cstr(&nl), out) == -1) {
		buf_puts(err, "the diff is too large to show");
		goto out;
	}
	rc = 0;
out:
	/* one path that cannot be shown is named; the rest still go */
	if (rc == -1)
		buf_printf(out, "# %s: %s\n", tp->path, buf_cstr(err));
	diff_free(d);
	free(od);
	free(nd);
	buf_release(&ol);
	buf_release(&nl);
}

int
agent_turn_diff(struct agent *a, int turn, struct buf *out, struct buf *err)
{
	struct conversation *cv = agent_main(a);
	struct turndiff_path *tab = NULL;
	size_t n = 0, cap = 0, i;
	const cJSON *rec, *f;
	struct buf e = BUF_INIT(4096);
	cJSON *turns, *t;
	bool known = false;

	turns = agent_turns(a);
	cJSON_ArrayForEach(t, turns)
		if (json_int(t, "turn", 0) == turn)
			known = true;
	cJSON_Delete(turns);
	if (!known) {
		buf_printf(err, "there is no turn %d in this conversation", turn);
		return -1;
	}
	cJSON_ArrayForEach(rec, session_files(agent_session(a))) {
		bool ws = wsnap_is_record(rec);

		if (json_int(rec, "turn", -1) != turn)
			continue;
		if (json_bool(rec, "undone", false))
			continue;
		cJSON_ArrayForEach(f, json_get(rec, "files")) {
			const char *path = json_str(f, "path", "");

			for (i = 0; i < n; i++)
				if (strcmp(tab[i].path, path) == 0)
					break;
			if (i == n) {
				if (n == cap) {
					cap = cap ? cap * 2 : 16;
					tab = xreallocarray(tab, cap, sizeof *tab);
				}
				tab[n].path = path;
				turndiff_side(f, false, ws, &tab[n].before);
				n++;
			}
			turndiff_side(f, true, ws, &tab[i].after);
		}
	}
	for (i = 0; i < n; i++)
		turndiff_one(cv, &tab[i], out, &e);
	free(tab);
	buf_release(&e);
	return 0;
}
