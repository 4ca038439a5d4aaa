/*
 * apply_patch: apply a unified diff to one or more files.
 *
 * Accepts "--- a/x" / "+++ b/x" file headers (also without the a/ b/
 * prefixes, with timestamps after a tab, or C-quoted), /dev/null for
 * creation and deletion, and git's "diff --git" blocks ("new file mode",
 * "deleted file mode", "index" lines).  Hunk line counts are advisory: the
 * body is read line by line, so a miscounted header still works.
 *
 * Every hunk of every file is applied in memory first.  A hunk is looked
 * for at its stated line, then ever further from it (the offset is
 * reported), then once more ignoring whitespace at line ends; if it still
 * does not match, nothing at all is written and the error shows the
 * hunk's lines and the nearest lines really in the file.  Then each file
 * is snapshotted and written atomically; if a write fails, the files
 * already written are put back.
 */
#include "autoconf.h"

#include <errno.h>
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

/* Lines of the file or hunk shown in an error. */
#define PATCH_SHOWN	40

struct pline {
	char		 kind;		/* ' ', '-' or '+' */
	const char	*text;		/* into the patch, without the line end */
	size_t		 len;
	bool		 noeol;		/* followed by "\ No newline at end of file" */
};

struct phunk {
	long		 old_start, old_count, new_start, new_count;
	bool		 ranged;	/* the header had line numbers */
	struct pline	*lines;
	size_t		 n, cap;
};

struct pfile {
	char		*old_path, *new_path;	/* NULL: /dev/null */
	bool		 dashes;	/* had its ---/+++ lines */
	bool		 git;		/* came from a "diff --git" block */
	bool		 git_new, git_deleted, git_mode;
	struct phunk	*hunks;
	size_t		 nh, cap;
	/* the plan */
	char		*abs, *rel;
	char		*old;		/* NULL: the file is created */
	size_t		 oldlen;
	char		*new;		/* NULL: the file is deleted */
	size_t		 newlen;
	struct buf	 notes;
};

struct patch {
	struct pfile	*files;
	size_t		 nf, cap;
};

/* The patch text as lines, each without its '\n' and a final '\r'. */
struct plines {
	const char	**p;
	size_t		*len;
	size_t		 n;
};

static void
plines_split(struct plines *L, const char *s)
{
	size_t cap = 0;
	const char *nl;

	memset(L, 0, sizeof(*L));
	while (*s != '\0') {
		size_t n;

		nl = strchr(s, '\n');
		n = nl != NULL ? (size_t)(nl - s) : strlen(s);
		if (L->n == cap) {
			cap = cap ? cap * 2 : 256;
			L->p = xreallocarray(L->p, cap, sizeof(*L->p));
			L->len = xreallocarray(L->len, cap, sizeof(*L->len));
		}
		L->p[L->n] = s;
		L->len[L->n] = n > 0 && s[n - 1] == '\r' ? n - 1 : n;
		L->n++;
		s += n + (nl != NULL);
	}
}

static bool
plines_starts(const struct plines *L, size_t i, const char *prefix)
{
	size_t n = strlen(prefix);

	return i < L->n && L->len[i] >= n && memcmp(L->p[i], prefix, n) == 0;
}

static void
patch_free(struct patch *pt)
{
	size_t i, j;

	for (i = 0; i < pt->nf; i++) {
		struct pfile *f = &pt->files[i];

		for (j = 0; j < f->nh; j++)
			free(f->hunks[j].lines);
		free(f->hunks);
		free(f->old_path);
		free(f->new_path);
		free(f->abs);
		free(f->rel);
		free(f->old);
		free(f->new);
		buf_release(&f->notes);
	}
	free(pt->files);
}

static struct pfile *
patch_add_file(struct patch *pt)
{
	struct pfile *f;

	if (pt->nf == pt->cap) {
		pt->cap = pt->cap ? pt->cap * 2 : 4;
		pt->files = xreallocarray(pt->files, pt->cap, sizeof(*pt->files));
	}
	f = &pt->files[pt->nf++];
	memset(f, 0, sizeof(*f));
	buf_init(&f->notes, 64 * 1024);
	return f;
}

/* A C-quoted path as git writes it: "a/sp\303\244ce". */
static char *
patch_unquote(const char *s, size_t n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i = 1;

	while (i < n && s[i] != '"') {
		char c = s[i++];

		if (c == '\\' && i < n) {
			const char *esc = "n\nt\tr\ra\ab\bf\fv\v\\\\\"\"";
			const char *hit = strchr(esc, s[i]);

			if (s[i] >= '0' && s[i] <= '7') {
				int v = 0, k;

				for (k = 0; k < 3 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
					v = v * 8 + (s[i++] - '0');
				c = (char)v;
			} else if (hit != NULL && (hit - esc) % 2 == 0) {
				c = hit[1];
				i++;
			} else
				c = s[i++];
		}
		buf_putc(&b, c);
	}
	if (b.data == NULL)
		buf_puts(&b, "");
	return buf_detach(&b, NULL);
}

/* The path of a ---/+++ line after the marker; NULL for /dev/null. */
static char *
patch_path(const char *s, size_t n)
{
	const char *tab;
	char *p;

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n > 0 && *s == '"')
		p = patch_unquote(s, n);
	else {
		/* a timestamp follows a tab */
		tab = memchr(s, '\t', n);
		if (tab != NULL)
			n = (size_t)(tab - s);
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		p = xstrndup(s, n);
	}
	if (strcmp(p, "/dev/null") == 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* git's "a/" and "b/" prefixes, when both sides have them. */
static void
patch_strip_prefixes(struct pfile *f)
{
	bool a = f->old_path == NULL || strncmp(f->old_path, "a/", 2) == 0;
	bool b = f->new_path == NULL || strncmp(f->new_path, "b/", 2) == 0;
	char *t;

	if (!a || !b || (f->old_path == NULL && f->new_path == NULL))
		return;
	if (f->old_path != NULL) {
		t = xstrdup(f->old_path + 2);
		free(f->old_path);
		f->old_path = t;
	}
	if (f->new_path != NULL) {
		t = xstrdup(f->new_path + 2);
		free(f->new_path);
		f->new_path = t;
	}
}

/* "diff --git a/x b/x": the paths, when they can be told apart. */
static void
patch_git_paths(struct pfile *f, const char *s, size_t n)
{
	const char *sp, *stop = s + n;

	s += 11;
	n -= 11;
	if (n > 0 && s[0] == '"') {
		const char *end = s + 1;

		while (end < stop && *end != '"')
			end += *end == '\\' ? 2 : 1;
		if (end >= stop)
			return;
		f->old_path = patch_unquote(s, (size_t)(end - s) + 1);
		s = end + 1;
		n = (size_t)(stop - s);
		while (n > 0 && *s == ' ') {
			s++;
			n--;
		}
		f->new_path = n > 0 && *s == '"' ? patch_unquote(s, n) : xstrndup(s, n);
		return;
	}
	/* unquoted: the same name twice, "a/NAME b/NAME" */
	sp = n >= 3 ? memmem(s, n, " b/", 3) : NULL;
	if (sp == NULL)
		return;
	f->old_path = xstrndup(s, (size_t)(sp - s));
	f->new_path = xstrndup(sp + 1, n - (size_t)(sp - s) - 1);
}

static bool
patch_number(const char **p, const char *end, long *v)
{
	char *e;
	long x;

	if (*p >= end || **p < '0' || **p > '9')
		return false;
	errno = 0;
	x = strtol(*p, &e, 10);
	if (errno != 0 || e > end || x < 0)
		return false;
	*v = x;
	*p = e;
	return true;
}

/* "@@ -a[,b] +c[,d] @@": false when the numbers are not there. */
static bool
patch_range(const char *s, size_t n, struct phunk *h)
{
	const char *p = s + 2, *end = s + n;

	h->old_count = h->new_count = 1;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p++ != '-' || !patch_number(&p, end, &h->old_start))
		return false;
	if (p < end && *p == ',' && (p++, !patch_number(&p, end, &h->old_count)))
		return false;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p++ != '+' || !patch_number(&p, end, &h->new_start))
		return false;
	if (p < end && *p == ',' && (p++, !patch_number(&p, end, &h->new_count)))
		return false;
	return true;
}

static bool
patch_is_body(const struct plines *L, size_t i)
{
	return i < L->n && L->len[i] > 0 &&
	    (L->p[i][0] == ' ' || L->p[i][0] == '-' || L->p[i][0] == '+') &&
	    !plines_starts(L, i, "--- ") && !plines_starts(L, i, "+++ ");
}

static void
phunk_add(struct phunk *h, char kind, const char *text, size_t len)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->lines = xreallocarray(h->lines, h->cap, sizeof(*h->lines));
	}
	h->lines[h->n].kind = kind;
	h->lines[h->n].text = text;
	h->lines[h->n].len = len;
	h->lines[h->n].noeol = false;
	h->n++;
}

/* Read a hunk's body from line *i on; the header's counts only help. */
static void
patch_body(const struct plines *L, size_t *i, struct phunk *h)
{
	long olds = 0, news = 0;

	for (; *i < L->n; (*i)++) {
		const char *s = L->p[*i];
		size_t n = L->len[*i];
		bool done = h->ranged && olds >= h->old_count && news >= h->new_count;

		if (n > 0 && s[0] == '\\') {
			if (h->n > 0)
				h->lines[h->n - 1].noeol = true;
			continue;
		}
		if (plines_starts(L, *i, "@@") || plines_starts(L, *i, "diff --git "))
			break;
		if (plines_starts(L, *i, "--- ") && plines_starts(L, *i + 1, "+++ ") &&
		    (!h->ranged || done))
			break;
		/* a mail signature after a format-patch */
		if (done && n == 3 && memcmp(s, "-- ", 3) == 0)
			break;
		if (n == 0) {
			size_t j = *i;

			/* a blank context line whose space was lost, unless the hunk is over */
			while (j < L->n && L->len[j] == 0)
				j++;
			if ((h->ranged && !done) || patch_is_body(L, j) ||
			    (j < L->n && L->len[j] > 0 && L->p[j][0] == '\\')) {
				phunk_add(h, ' ', s, 0);
				olds++;
				news++;
				continue;
			}
			break;
		}
		if (s[0] != ' ' && s[0] != '-' && s[0] != '+')
			break;
		phunk_add(h, s[0], s + 1, n - 1);
		olds += s[0] != '+';
		news += s[0] != '-';
	}
}

/* A "diff --git" block's extended header lines. */
static int
patch_git_line(struct pfile *f, const struct plines *L, size_t i, struct buf *err)
{
	if (plines_starts(L, i, "new file mode"))
		f->git_new = true;
	else if (plines_starts(L, i, "deleted file mode"))
		f->git_deleted = true;
	else if (plines_starts(L, i, "old mode") || plines_starts(L, i, "new mode"))
		f->git_mode = true;
	else if (plines_starts(L, i, "rename ") || plines_starts(L, i, "copy ")) {
		buf_puts(err, "the patch renames or copies a file, which apply_patch does not "
		    "do; move the file with run_bash (git mv) and patch it in place");
		return -1;
	} else if (plines_starts(L, i, "GIT binary patch") || plines_starts(L, i, "Binary files ")) {
		buf_puts(err, "the patch changes a binary file, which apply_patch cannot do");
		return -1;
	}
	return 0;
}

static int
patch_parse(const char *text, struct patch *pt, struct buf *err)
{
	struct plines L;
	struct pfile *cur = NULL;
	size_t i = 0;
	int rc = -1;

	plines_split(&L, text);
	while (i < L.n) {
		if (plines_starts(&L, i, "diff --git ")) {
			cur = patch_add_file(pt);
			cur->git = true;
			patch_git_paths(cur, L.p[i], L.len[i]);
			i++;
		} else if (plines_starts(&L, i, "--- ") && plines_starts(&L, i + 1, "+++ ")) {
			if (cur == NULL || !cur->git || cur->dashes || cur->nh > 0)
				cur = patch_add_file(pt);
			free(cur->old_path);
			free(cur->new_path);
			cur->old_path = patch_path(L.p[i] + 4, L.len[i] - 4);
			cur->new_path = patch_path(L.p[i + 1] + 4, L.len[i + 1] - 4);
			cur->dashes = true;
			i += 2;
		} else if (plines_starts(&L, i, "@@")) {
			struct phunk *h;

			if (cur == NULL) {
				buf_puts(err, "the patch has a hunk (@@) before any file header; each "
				    "file needs \"--- a/path\" and \"+++ b/path\" lines before its hunks");
				goto out;
			}
			if (cur->nh == cur->cap) {
				cur->cap = cur->cap ? cur->cap * 2 : 4;
				cur->hunks = xreallocarray(cur->hunks, cur->cap, sizeof(*cur->hunks));
			}
			h = &cur->hunks[cur->nh++];
			memset(h, 0, sizeof(*h));
			h->ranged = patch_range(L.p[i], L.len[i], h);
			i++;
			patch_body(&L, &i, h);
		} else {
			if (cur != NULL && cur->git && patch_git_line(cur, &L, i, err) != 0)
				goto out;
			i++;	/* "index ...", prose around the patch: not ours */
		}
	}
	for (i = 0; i < pt->nf; i++)
		patch_strip_prefixes(&pt->files[i]);
	if (pt->nf == 0) {
		buf_puts(err, "no file headers found: a patch needs \"--- a/path\" and "
		    "\"+++ b/path\" lines, then hunks starting with \"@@ -line,count "
		    "+line,count @@\"");
		goto out;
	}
	rc = 0;
out:
	free(L.p);
	free(L.len);
	return rc;
}

/* --- Applying hunks in memory. --- */

struct fline {
	const char	*p;
	size_t		 len;		/* without the line end */
	size_t		 eol;		/* 0, 1 ("\n") or 2 ("\r\n") */
};

struct ftext {
	const char	*text;
	size_t		 len;
	struct fline	*l;
	long		 n;
	const char	*eol;		/* the file's line end, for added lines */
};

static void
ftext_init(struct ftext *f, const char *text, size_t len)
{
	long cap = diff_count_lines(text, len), crlf = 0;
	size_t p = 0;

	f->text = text;
	f->len = len;
	f->l = xreallocarray(NULL, (size_t)cap + 1, sizeof(*f->l));
	f->n = 0;
	while (p < len) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl != NULL ? (size_t)(nl - text) : len;
		struct fline *l = &f->l[f->n++];

		l->p = text + p;
		l->eol = nl != NULL;
		if (nl != NULL && e > p && text[e - 1] == '\r') {
			e--;
			l->eol = 2;
			crlf++;
		}
		l->len = e - p;
		p = e + l->eol;
	}
	f->eol = crlf * 2 > f->n ? "\r\n" : "\n";
}

/* Line equality: exact, or (loose) ignoring whitespace at the end. */
static bool
patch_line_eq(const char *a, size_t al, const char *b, size_t bl, bool loose)
{
	if (al > 0 && a[al - 1] == '\r')
		al--;
	if (bl > 0 && b[bl - 1] == '\r')
		bl--;
	if (loose) {
		while (al > 0 && (a[al - 1] == ' ' || a[al - 1] == '\t'))
			al--;
		while (bl > 0 && (b[bl - 1] == ' ' || b[bl - 1] == '\t'))
			bl--;
	}
	return al == bl && memcmp(a, b, al) == 0;
}

static bool
patch_matches_at(const struct ftext *f, const struct phunk *h, long at, bool loose)
{
	size_t i;
	long k = at;

	for (i = 0; i < h->n; i++) {
		const struct pline *pl = &h->lines[i];

		if (pl->kind == '+')
			continue;
		if (k >= f->n || !patch_line_eq(f->l[k].p, f->l[k].len, pl->text, pl->len, loose))
			return false;
		k++;
	}
	return true;
}

/* The match nearest to expected within [lo, hi]; -1 if none. */
static long
patch_search(const struct ftext *f, const struct phunk *h, long lo, long hi, long expected,
    bool loose)
{
	long d;

	if (hi < lo)
		return -1;
	if (expected < lo)
		expected = lo;
	if (expected > hi)
		expected = hi;
	for (d = 0; expected - d >= lo || expected + d <= hi; d++) {
		if (expected + d <= hi && patch_matches_at(f, h, expected + d, loose))
			return expected + d;
		if (d > 0 && expected - d >= lo && patch_matches_at(f, h, expected - d, loose))
			return expected - d;
	}
	return -1;
}

static long
patch_old_lines(const struct phunk *h)
{
	size_t i;
	long n = 0;

	for (i = 0; i < h->n; i++)
		n += h->lines[i].kind != '+';
	return n;
}

/* The lines a hunk expects, joined, for the nearest-lines search. */
static void
patch_expected_text(const struct phunk *h, struct buf *b)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (h->lines[i].kind == '+')
			continue;
		buf_append(b, h->lines[i].text, h->lines[i].len);
		buf_putc(b, '\n');
	}
}

static void
patch_hunk_header(struct buf *b, const struct phunk *h)
{
	if (h->ranged)
		buf_printf(b, " (@@ -%ld,%ld +%ld,%ld @@)", h->old_start, h->old_count,
		    h->new_start, h->new_count);
}

/* A hunk did not match: show what it expects and what the file has. */
static void
patch_mismatch(const struct pfile *pf, const struct ftext *f, size_t hi, long expected,
    long before, struct buf *err)
{
	const struct phunk *h = &pf->hunks[hi];
	struct buf want = BUF_INIT(BUF_NOLIMIT);
	long nold = patch_old_lines(h), first, at;

	buf_printf(err, "hunk %zu of %s", hi + 1, pf->rel);
	patch_hunk_header(err, h);
	buf_puts(err, " does not match the file; nothing was written.\n");
	if (before >= 0) {
		buf_printf(err, "Its lines are at line %ld, before the end of the previous hunk: "
		    "hunks must be in file order and must not overlap.\n", before + 1);
		return;
	}
	patch_expected_text(h, &want);
	buf_printf(err, "The hunk expects these lines at line %ld:\n", expected + 1);
	diff_excerpt(err, buf_cstr(&want), want.len, 0, nold < PATCH_SHOWN ? nold : PATCH_SHOWN);
	if (nold > PATCH_SHOWN)
		nold = PATCH_SHOWN;
	if (diff_find_loose(f->text, f->len, buf_cstr(&want), want.len, &first) > 0) {
		buf_printf(err, "They match line %ld when whitespace is ignored: the "
		    "indentation differs. The file has there:\n", first + 1);
		diff_excerpt(err, f->text, f->len, first, nold);
	} else if ((at = diff_nearest(f->text, f->len, buf_cstr(&want), want.len)) >= 0) {
		buf_printf(err, "The most similar lines in the file are at line %ld:\n", at + 1);
		diff_excerpt(err, f->text, f->len, at > 2 ? at - 2 : 0, nold + (at > 2 ? 2 : at) + 2);
	} else {
		buf_printf(err, "Nothing in the file resembles them. The file has at line %ld:\n",
		    expected + 1);
		diff_excerpt(err, f->text, f->len, expected > 2 ? expected - 2 : 0, nold + 4);
	}
	buf_puts(err, "Read the file again and make the patch from its current text.");
	buf_release(&want);
}

/* Append a line, giving the line before it an end if it had none. */
static int
patch_emit(struct buf *out, bool *open_line, const char *eol, const char *p, size_t n,
    const char *end, size_t endlen)
{
	int rc = 0;

	if (*open_line)
		rc |= buf_puts(out, eol);
	rc |= buf_append(out, p, n);
	rc |= buf_append(out, end, endlen);
	*open_line = endlen == 0;
	return rc;
}

/* Where hunk hi goes: its line, or -1 with the error written. */
static long
patch_place(struct pfile *pf, const struct ftext *f, size_t hi, long pos, struct buf *err)
{
	const struct phunk *h = &pf->hunks[hi];
	long nold = patch_old_lines(h), expected, at, before;

	expected = h->ranged ? (nold == 0 ? h->old_start : h->old_start - 1) : pos;
	if (expected < 0)
		expected = 0;
	if (nold == 0) {
		if (!h->ranged) {
			buf_printf(err, "hunk %zu of %s adds lines but has neither context lines "
			    "nor line numbers, so it cannot be placed; nothing was written",
			    hi + 1, pf->rel);
			return -1;
		}
		return expected < pos ? pos : expected > f->n ? f->n : expected;
	}
	at = patch_search(f, h, pos, f->n - nold, expected, false);
	if (at < 0) {
		at = patch_search(f, h, pos, f->n - nold, expected, true);
		if (at >= 0)
			buf_printf(&pf->notes, "%s: hunk %zu matched only when whitespace at line "
			    "ends is ignored\n", pf->rel, hi + 1);
	}
	if (at < 0) {
		before = pos > 0 ? patch_search(f, h, 0, pos - 1 < f->n - nold ? pos - 1 :
		    f->n - nold, expected, true) : -1;
		patch_mismatch(pf, f, hi, expected, before, err);
		return -1;
	}
	if (h->ranged && at != expected)
		buf_printf(&pf->notes, "%s: hunk %zu applied at offset %+ld (line %ld, not %ld)\n",
		    pf->rel, hi + 1, at - expected, at + 1, expected + 1);
	return at;
}

/* Apply all hunks of pf to its old text; the result goes to pf->new. */
static int
patch_apply_file(struct pfile *pf, struct buf *err)
{
	struct buf out = BUF_INIT(FSUTIL_MAX_FILE);
	struct ftext f;
	bool open_line = false;
	long pos = 0, k;
	size_t hi, i;
	int rc = 0;

	ftext_init(&f, pf->old, pf->oldlen);
	for (hi = 0; hi < pf->nh; hi++) {
		const struct phunk *h = &pf->hunks[hi];
		long at = patch_place(pf, &f, hi, pos, err);

		if (at < 0) {
			free(f.l);
			buf_release(&out);
			return -1;
		}
		for (k = pos; k < at; k++)
			rc |= patch_emit(&out, &open_line, f.eol, f.l[k].p, f.l[k].len,
			    f.l[k].p + f.l[k].len, f.l[k].eol);
		for (i = 0; i < h->n; i++) {
			const struct pline *pl = &h->lines[i];

			if (pl->kind == '+') {
				rc |= patch_emit(&out, &open_line, f.eol, pl->text, pl->len,
				    f.eol, pl->noeol ? 0 : strlen(f.eol));
				continue;
			}
			if (pl->kind == ' ')
				rc |= patch_emit(&out, &open_line, f.eol, f.l[at].p, f.l[at].len,
				    f.l[at].p + f.l[at].len, f.l[at].eol);
			at++;
		}
		pos = at;
	}
	for (k = pos; k < f.n; k++)
		rc |= patch_emit(&out, &open_line, f.eol, f.l[k].p, f.l[k].len,
		    f.l[k].p + f.l[k].len, f.l[k].eol);
	free(f.l);
	if (rc != 0) {
		buf_printf(err, "patching %s would make it larger than %zu MB; nothing was written",
		    pf->rel, FSUTIL_MAX_FILE >> 20);
		return -1;
	}
	if (out.data == NULL)
		buf_puts(&out, "");
	pf->new = buf_detach(&out, &pf->newlen);
	return 0;
}

/* A created file's text: the added lines of its hunks. */
static int
patch_new_text(struct pfile *pf, struct buf *err)
{
	struct buf out = BUF_INIT(FSUTIL_MAX_FILE);
	bool open_line = false;
	size_t hi, i;
	int rc = 0;

	for (hi = 0; hi < pf->nh; hi++) {
		for (i = 0; i < pf->hunks[hi].n; i++) {
			const struct pline *pl = &pf->hunks[hi].lines[i];

			if (pl->kind != '+') {
				buf_printf(err, "hunk %zu creates %s (from /dev/null) but has context "
				    "or removed lines; every line of a new file starts with \"+\"",
				    hi + 1, pf->rel);
				buf_release(&out);
				return -1;
			}
			rc |= patch_emit(&out, &open_line, "\n", pl->text, pl->len, "\n",
			    pl->noeol ? 0 : 1);
		}
	}
	if (rc != 0) {
		buf_printf(err, "%s would be larger than %zu MB", pf->rel, FSUTIL_MAX_FILE >> 20);
		return -1;
	}
	if (out.data == NULL)
		buf_puts(&out, "");
	pf->new = buf_detach(&out, &pf->newlen);
	return 0;
}

/* What pf does to which file, and the path to name it by. */
static int
patch_target(const struct tool_env *env, struct pfile *pf, bool *create, bool *del,
    struct buf *err)
{
	const char *name;

	*create = pf->old_path == NULL || (pf->git_new && !pf->dashes);
	*del = pf->new_path == NULL || (pf->git_deleted && !pf->dashes);
	if (pf->old_path == NULL && pf->new_path == NULL) {
		buf_puts(err, "a file header names /dev/null on both sides (or could not be "
		    "read); use \"--- a/path\" and \"+++ b/path\"");
		return -1;
	}
	if (*create && *del) {
		buf_printf(err, "the patch both creates and deletes %s",
		    pf->old_path ? pf->old_path : pf->new_path);
		return -1;
	}
	name = *create ? pf->new_path : pf->old_path;
	if (!*create && !*del && strcmp(pf->old_path, pf->new_path) != 0) {
		buf_printf(err, "the patch renames %s to %s, which apply_patch does not do; "
		    "move the file with run_bash and patch it in place", pf->old_path,
		    pf->new_path);
		return -1;
	}
	if (sandbox_resolve(env->root, name, false, &pf->abs, &pf->rel, err) != 0)
		return -1;
	if (strcmp(pf->rel, ".") == 0) {
		buf_puts(err, "a file header names the workspace itself, not a file");
		return -1;
	}
	return 0;
}

/* Plan one file: read it and apply its hunks in memory. */
static int
patch_plan_file(const struct tool_env *env, struct pfile *pf, struct buf *err)
{
	bool create, del;
	int rc;

	if (patch_target(env, pf, &create, &del, err) != 0)
		return -1;
	if (pf->nh == 0 && !pf->git_new && !pf->git_deleted) {
		if (pf->git_mode) {
			buf_printf(&pf->notes, "%s: a mode change was ignored\n", pf->rel);
			return 0;
		}
		buf_printf(err, "the patch names %s but has no hunks (@@ lines) for it", pf->rel);
		return -1;
	}
	rc = fsutil_read_file(pf->abs, FSUTIL_MAX_FILE, &pf->old, &pf->oldlen, err);
	if (create) {
		if (rc == 0) {
			buf_reset(err);
			buf_printf(err, "the patch creates %s, which already exists; patch it as a "
			    "change (--- a/%s) or use write_file", pf->rel, pf->rel);
			return -1;
		}
		if (rc != FSUTIL_MISSING)
			return -1;
		buf_reset(err);
		free(pf->old);
		pf->old = NULL;
		return patch_new_text(pf, err);
	}
	if (rc == FSUTIL_MISSING) {
		buf_reset(err);
		buf_printf(err, "%s does not exist (a patch that creates a file uses "
		    "\"--- /dev/null\")", pf->rel);
		return -1;
	}
	if (rc != 0)
		return -1;
	if (fsutil_is_binary(pf->old, pf->oldlen)) {
		buf_printf(err, "%s looks like a binary file; apply_patch only changes text", pf->rel);
		return -1;
	}
	if (patch_apply_file(pf, err) != 0)
		return -1;
	if (del) {
		if (pf->newlen != 0) {
			buf_printf(err, "the patch deletes %s, but its removed lines are not the "
			    "whole file (%ld lines would remain); nothing was written", pf->rel,
			    diff_count_lines(pf->new, pf->newlen));
			return -1;
		}
		free(pf->new);
		pf->new = NULL;
	}
	return 0;
}

/* Parse and plan everything; nothing is written.  0 or -1 with err. */
static int
patch_plan(const struct tool_env *env, const cJSON *input, struct patch *pt, struct buf *err)
{
	const char *text = json_str(input, "patch", NULL);
	size_t i, j;

	memset(pt, 0, sizeof(*pt));
	if (text == NULL || text[0] == '\0') {
		buf_puts(err, "apply_patch needs \"patch\": a unified diff (--- a/path, "
		    "+++ b/path, @@ hunks)");
		return -1;
	}
	if (patch_parse(text, pt, err) != 0)
		return -1;
	for (i = 0; i < pt->nf; i++) {
		if (patch_plan_file(env, &pt->files[i], err) != 0)
			return -1;
		for (j = 0; j < i; j++) {
			if (strcmp(pt->files[j].abs, pt->files[i].abs) == 0) {
				buf_printf(err, "%s appears twice in the patch; put all its hunks "
				    "under one header", pt->files[i].rel);
				return -1;
			}
		}
	}
	return 0;
}

/* Does pf change anything (a mode-only block does not)? */
static bool
patch_changes(const struct pfile *pf)
{
	return pf->old != NULL || pf->new != NULL || pf->git_new;
}

/* Put back files [0, n) after a failed write; returns how many could not be. */
static size_t
patch_rollback(const struct tool_env *env, struct patch *pt, size_t n, struct buf *err)
{
	size_t failed = 0;

	while (n-- > 0) {
		struct pfile *pf = &pt->files[n];
		struct buf rerr = BUF_INIT(4096);

		if (!patch_changes(pf))
			continue;
		if (fsutil_replace(env->root, NULL, pf->abs, pf->rel, pf->new, pf->newlen,
		    pf->old, pf->oldlen, NULL, &rerr) != 0) {
			buf_printf(err, "\n%s could not be put back: %s", pf->rel, buf_cstr(&rerr));
			failed++;
		}
		buf_release(&rerr);
	}
	return failed;
}

static int
patch_write(const struct tool_env *env, struct patch *pt, cJSON *files, struct buf *err)
{
	size_t i;

	for (i = 0; i < pt->nf; i++) {
		struct pfile *pf = &pt->files[i];
		const char *slash;
		int rc = 0;

		if (!patch_changes(pf))
			continue;
		if (pf->old == NULL && (slash = strrchr(pf->abs, '/')) != NULL && slash != pf->abs) {
			char *dir = xstrndup(pf->abs, (size_t)(slash - pf->abs));

			rc = fsutil_mkdirs(env->root, dir, err);
			free(dir);
		}
		if (rc == 0)
			rc = fsutil_replace(env->root, env->snap_dir, pf->abs, pf->rel, pf->old,
			    pf->oldlen, pf->new, pf->newlen, files, err);
		if (rc != 0) {
			size_t left = patch_rollback(env, pt, i, err);

			if (left == 0) {
				buf_puts(err, "\nThe files written before it were put back; nothing changed.");
				while (cJSON_GetArraySize(files) > 0)
					cJSON_DeleteItemFromArray(files, 0);
			}
			return -1;
		}
	}
	return 0;
}

static void
patch_summary(const struct patch *pt, struct buf *out)
{
	size_t i, n = 0;

	for (i = 0; i < pt->nf; i++)
		n += patch_changes(&pt->files[i]);
	buf_printf(out, "applied the patch to %zu file%s:", n, n == 1 ? "" : "s");
	for (i = 0; i < pt->nf; i++) {
		const struct pfile *pf = &pt->files[i];
		struct buf err = BUF_INIT(1024);
		struct diff *d;

		if (!patch_changes(pf))
			continue;
		if (pf->old == NULL) {
			buf_printf(out, "\n  created %s (%ld lines)", pf->rel,
			    diff_count_lines(pf->new, pf->newlen));
		} else if (pf->new == NULL) {
			buf_printf(out, "\n  deleted %s (%ld lines)", pf->rel,
			    diff_count_lines(pf->old, pf->oldlen));
		} else if ((d = diff_compute(pf->old, pf->oldlen, pf->new, pf->newlen, &err)) != NULL) {
			buf_printf(out, "\n  modified %s (+%ld -%ld)", pf->rel, d->added, d->removed);
			diff_free(d);
		} else
			buf_printf(out, "\n  modified %s", pf->rel);
		buf_release(&err);
	}
	for (i = 0; i < pt->nf; i++) {
		if (pt->files[i].notes.len > 0) {
			buf_puts(out, "\n");
			buf_append(out, pt->files[i].notes.data, pt->files[i].notes.len - 1);
		}
	}
}

static void
patch_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct buf err = BUF_INIT(64 * 1024);
	struct patch pt;
	cJSON *files;

	if (patch_plan(env, input, &pt, &err) != 0) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	out->meta = cJSON_CreateObject();
	files = cJSON_AddArrayToObject(out->meta, "files");
	if (patch_write(env, &pt, files, &err) != 0) {
		tool_out_error(out, "%s", buf_cstr(&err));
		if (cJSON_GetArraySize(files) == 0) {
			cJSON_Delete(out->meta);
			out->meta = NULL;
		}
		goto out;
	}
	buf_reset(&out->text);
	patch_summary(&pt, &out->text);
out:
	patch_free(&pt);
	buf_release(&err);
}

static void
patch_preview_file(const struct pfile *pf, struct buf *diff)
{
	struct buf err = BUF_INIT(4096), ol = BUF_INIT(BUF_NOLIMIT), nl = BUF_INIT(BUF_NOLIMIT);
	struct diff *d;

	if (pf->old != NULL)
		buf_printf(&ol, "a/%s", pf->rel);
	else
		buf_puts(&ol, "/dev/null");
	if (pf->new != NULL)
		buf_printf(&nl, "b/%s", pf->rel);
	else
		buf_puts(&nl, "/dev/null");
	d = diff_compute(pf->old ? pf->old : "", pf->oldlen, pf->new ? pf->new : "",
	    pf->newlen, &err);
	if (d == NULL)
		buf_printf(diff, "--- %s\n+++ %s\n(%s)\n", buf_cstr(&ol), buf_cstr(&nl), buf_cstr(&err));
	else if (d->nhunks == 0)
		buf_printf(diff, "--- %s\n+++ %s\n(%s)\n", buf_cstr(&ol), buf_cstr(&nl),
		    pf->old == NULL ? "a new empty file" : pf->new == NULL ?
		    "an empty file deleted" : "no change");
	else
		diff_format(d, buf_cstr(&ol), buf_cstr(&nl), diff);
	diff_free(d);
	buf_release(&err);
	buf_release(&ol);
	buf_release(&nl);
}

static int
patch_preview(const struct tool_env *env, const cJSON *input, struct buf *diff)
{
	struct buf err = BUF_INIT(64 * 1024);
	struct patch pt;
	size_t i;
	int rc = -1;

	if (patch_plan(env, input, &pt, &err) != 0) {
		buf_reset(diff);
		buf_puts(diff, buf_cstr(&err));
		goto out;
	}
	for (i = 0; i < pt.nf; i++)
		if (patch_changes(&pt.files[i]))
			patch_preview_file(&pt.files[i], diff);
	rc = 0;
out:
	patch_free(&pt);
	buf_release(&err);
	return rc;
}

const struct tool_def tool_apply_patch = {
	.name = "apply_patch",
	.description =
	    "Apply a unified diff to one or more files: the way to make several changes, "
	    "or changes to several files, in one step. Each file starts with \"--- a/path\" "
	    "and \"+++ b/path\" (paths relative to the workspace root; \"--- /dev/null\" "
	    "creates a file, \"+++ /dev/null\" deletes one), followed by hunks: "
	    "\"@@ -old_line,count +new_line,count @@\", then lines starting with \" \" "
	    "(context, unchanged), \"-\" (removed) or \"+\" (added). Give about 3 lines of "
	    "context around each change, copied exactly from the current file. A hunk "
	    "found a few lines away from its stated line is still applied (the offset is "
	    "reported). If any hunk does not match, nothing is written and the error shows "
	    "the lines really in the file. Renames and binary files are not supported.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"patch\":{\"type\":\"string\",\"description\":"
	    "\"The unified diff, for one or more files\"}},"
	    "\"required\":[\"patch\"],"
	    "\"additionalProperties\":false}",
	.cls = TOOL_WRITE,
	.run = patch_run,
	.preview = patch_preview,
};
