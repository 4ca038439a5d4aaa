/*
 * patch: one parser for git diffs, plain unified diffs and the Codex
 * envelope (see patch.h for what is accepted and refused).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "patch.h"
#include "xalloc.h"

/* The patch text as lines. */
struct patch_text {
	const char	**p;
	size_t		*len;		/* without "\n" and a "\r" before it */
	bool		*cr;
	size_t		 n;
};

struct patch_reader {
	struct patch_text	 L;
	size_t			 i;	/* the next line */
	struct patch_plan	*plan;
	struct buf		*err;
};

static void
patch_text_split(struct patch_text *L, const char *s, size_t len)
{
	size_t cap = 0, at = 0;

	memset(L, 0, sizeof(*L));
	while (at < len) {
		const char *nl = memchr(s + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - (s + at)) : len - at;

		if (L->n == cap) {
			cap = cap ? cap * 2 : 256;
			L->p = xreallocarray(L->p, cap, sizeof(*L->p));
			L->len = xreallocarray(L->len, cap, sizeof(*L->len));
			L->cr = xreallocarray(L->cr, cap, sizeof(*L->cr));
		}
		L->p[L->n] = s + at;
		L->cr[L->n] = n > 0 && s[at + n - 1] == '\r';
		L->len[L->n] = n - L->cr[L->n];
		L->n++;
		at += n + (nl != NULL);
	}
}

static void
patch_text_release(struct patch_text *L)
{
	free(L->p);
	free(L->len);
	free(L->cr);
}

static bool
patch_starts(const struct patch_reader *r, size_t i, const char *prefix)
{
	size_t n = strlen(prefix);

	return i < r->L.n && r->L.len[i] >= n && memcmp(r->L.p[i], prefix, n) == 0;
}

static bool
patch_is(const struct patch_reader *r, size_t i, const char *line)
{
	return patch_starts(r, i, line) && r->L.len[i] == strlen(line);
}

/* A file header pair: "--- x" then "+++ y". */
static bool
patch_is_dashes(const struct patch_reader *r, size_t i)
{
	return patch_starts(r, i, "--- ") && patch_starts(r, i + 1, "+++ ");
}

static int
patch_fail(struct patch_reader *r, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One sentence in err, naming patch line (0-based) line. */
static int
patch_fail(struct patch_reader *r, size_t line, const char *fmt, ...)
{
	va_list ap;

	buf_printf(r->err, "line %zu of the patch: ", line + 1);
	va_start(ap, fmt);
	buf_vprintf(r->err, fmt, ap);
	va_end(ap);
	return -1;
}

void
patch_plan_release(struct patch_plan *plan)
{
	size_t i, j, k;

	for (i = 0; i < plan->nf; i++) {
		struct patch_file *f = &plan->files[i];

		for (j = 0; j < f->nh; j++) {
			for (k = 0; k < f->hunks[j].nanchors; k++)
				free(f->hunks[j].anchors[k]);
			free(f->hunks[j].anchors);
			free(f->hunks[j].lines);
		}
		free(f->hunks);
		free(f->old_name);
		free(f->new_name);
		free(f->alt_name);
	}
	free(plan->files);
	memset(plan, 0, sizeof(*plan));
}

static struct patch_file *
patch_new_file(struct patch_reader *r, size_t line)
{
	struct patch_plan *pl = r->plan;
	struct patch_file *f;

	if (pl->nf == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 8;
		pl->files = xreallocarray(pl->files, pl->cap, sizeof(*pl->files));
	}
	f = &pl->files[pl->nf++];
	memset(f, 0, sizeof(*f));
	f->lineno = line + 1;
	return f;
}

static struct patch_hunk *
patch_new_hunk(struct patch_file *f, size_t line)
{
	struct patch_hunk *h;

	if (f->nh == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 4;
		f->hunks = xreallocarray(f->hunks, f->cap, sizeof(*f->hunks));
	}
	h = &f->hunks[f->nh++];
	memset(h, 0, sizeof(*h));
	h->lineno = line + 1;
	return h;
}

static void
patch_add_line(struct patch_file *f, struct patch_hunk *h, char kind, const char *text,
    size_t len, bool cr)
{
	struct patch_line *l;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->lines = xreallocarray(h->lines, h->cap, sizeof(*h->lines));
	}
	l = &h->lines[h->n++];
	l->kind = kind;
	l->text = text;
	l->len = len;
	l->cr = cr;
	l->noeol = false;
	if (cr)
		f->eol_exact = true;
}

long
patch_hunk_old_lines(const struct patch_hunk *h)
{
	size_t i;
	long n = 0;

	for (i = 0; i < h->n; i++)
		n += h->lines[i].kind != '+';
	return n;
}

void
patch_file_counts(const struct patch_file *f, long *added, long *removed)
{
	size_t i, j;

	*added = *removed = 0;
	for (i = 0; i < f->nh; i++) {
		for (j = 0; j < f->hunks[i].n; j++) {
			*added += f->hunks[i].lines[j].kind == '+';
			*removed += f->hunks[i].lines[j].kind == '-';
		}
	}
}

const char *
patch_op_name(enum patch_op op)
{
	static const char *const names[] = { "modify", "add", "delete", "rename", "copy" };

	return (size_t)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

/*
 * Names.
 */

/* A C-quoted name as git writes it ("a/sp\303\244ce"); *used gets its length. */
static char *
patch_unquote(const char *s, size_t n, size_t *used)
{
	static const char esc[] = "n\nt\tr\ra\ab\bf\fv\v\\\\\"\"";
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i = 1;

	while (i < n && s[i] != '"') {
		char c = s[i++];

		if (c == '\\') {
			const char *hit;

			if (i >= n)
				goto bad;
			if (s[i] >= '0' && s[i] <= '3') {
				int v = 0, k;

				for (k = 0; k < 3; k++, i++) {
					if (i >= n || s[i] < '0' || s[i] > '7')
						goto bad;
					v = v * 8 + (s[i] - '0');
				}
				c = (char)v;
			} else if ((hit = memchr(esc, s[i], sizeof(esc) - 1)) != NULL &&
			    (hit - esc) % 2 == 0) {
				c = hit[1];
				i++;
			} else
				goto bad;
		}
		if (c == '\0')
			goto bad;
		buf_putc(&b, c);
	}
	if (i >= n)
		goto bad;
	*used = i + 1;
	if (b.data == NULL)
		buf_puts(&b, "");
	return buf_detach(&b, NULL);
bad:
	buf_release(&b);
	return NULL;
}

/*
 * The name after "--- " or "+++ " (or "rename from " ...): quoted, or up
 * to a tab (a timestamp follows it).  *name is NULL for /dev/null.
 */
static int
patch_header_name(struct patch_reader *r, size_t line, size_t skip, bool timestamps,
    char **name)
{
	const char *s = r->L.p[line] + skip;
	size_t n = r->L.len[line] - skip, used;
	const char *tab;

	*name = NULL;
	if (n > 0 && s[0] == '"') {
		if ((*name = patch_unquote(s, n, &used)) == NULL)
			return patch_fail(r, line, "the quoted file name is not closed or has an "
			    "escape git does not write (\\NNN octal, \\n, \\t, \\\", \\\\ ...)");
	} else {
		if (timestamps && (tab = memchr(s, '\t', n)) != NULL)
			n = (size_t)(tab - s);
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (memchr(s, '\0', n) != NULL)
			return patch_fail(r, line, "the file name holds a NUL byte");
		*name = xstrndup(s, n);
	}
	if ((*name)[0] == '\0') {
		free(*name);
		*name = NULL;
		return patch_fail(r, line, "the file header names no file");
	}
	if (strcmp(*name, "/dev/null") == 0) {
		free(*name);
		*name = NULL;
	}
	return 0;
}

static void
patch_strip_one(char **name)
{
	char *t;

	if (*name == NULL)
		return;
	t = xstrdup(*name + 2);
	free(*name);
	*name = t;
}

/* git's a/ and b/, stripped only when both sides (or /dev/null) have them. */
static void
patch_strip_prefixes(char **old, char **new)
{
	bool a = *old == NULL || strncmp(*old, "a/", 2) == 0;
	bool b = *new == NULL || strncmp(*new, "b/", 2) == 0;

	if (!a || !b || (*old == NULL && *new == NULL))
		return;
	if ((*old != NULL && (*old)[2] == '\0') || (*new != NULL && (*new)[2] == '\0'))
		return;
	patch_strip_one(old);
	patch_strip_one(new);
}

/*
 * "diff --git a/x b/y": both names.  Quoted names are read as such; two
 * unquoted names are told apart only when they are the same file (what
 * git writes unless a rename says otherwise), else from the lines after.
 */
static int
patch_git_names(struct patch_reader *r, size_t line, char **old, char **new)
{
	const char *s = r->L.p[line] + 11, *stop = r->L.p[line] + r->L.len[line];
	size_t n = (size_t)(stop - s), used, sp;

	*old = *new = NULL;
	if (memchr(s, '\0', n) != NULL)
		return patch_fail(r, line, "the \"diff --git\" line holds a NUL byte");
	if (n > 0 && s[0] == '"') {
		if ((*old = patch_unquote(s, n, &used)) == NULL)
			goto bad;
		s += used;
		if (s >= stop || *s++ != ' ')
			goto bad;
		n = (size_t)(stop - s);
		if (n > 0 && s[0] == '"') {
			if ((*new = patch_unquote(s, n, &used)) == NULL || used != n)
				goto bad;
		} else if (n > 0)
			*new = xstrndup(s, n);
		else
			goto bad;
		if ((*old)[0] == '\0' || (*new)[0] == '\0')
			goto bad;
		return 0;
	}
	if (n > 0 && stop[-1] == '"') {
		const char *q = memchr(s, '"', n);

		if (q == NULL || q == s || q[-1] != ' ')
			goto bad;
		*old = xstrndup(s, (size_t)(q - 1 - s));
		if ((*new = patch_unquote(q, (size_t)(stop - q), &used)) == NULL ||
		    used != (size_t)(stop - q) || (*old)[0] == '\0' || (*new)[0] == '\0')
			goto bad;
		return 0;
	}
	/* "a/NAME b/NAME" or "NAME NAME": split where both halves agree */
	for (sp = 1; sp < n; sp++) {
		size_t la = sp, lb = n - sp - 1;
		const char *a = s, *b = s + sp + 1;

		if (s[sp] != ' ' || la != lb)
			continue;
		if (la > 2 && a[0] == 'a' && a[1] == '/' && b[0] == 'b' && b[1] == '/' &&
		    memcmp(a + 2, b + 2, la - 2) == 0) {
			*old = xstrndup(a, la);
			*new = xstrndup(b, lb);
			return 0;
		}
		if (memcmp(a, b, la) == 0) {
			*old = xstrndup(a, la);
			*new = xstrndup(b, lb);
			return 0;
		}
	}
	/* different names: the rename or ---/+++ lines must say them */
	return 0;
bad:
	free(*old);
	free(*new);
	*old = *new = NULL;
	return patch_fail(r, line, "the quoted names of the \"diff --git\" line cannot be read");
}

/* An octal git mode after prefix ("new file mode 100755"). */
static int
patch_mode(struct patch_reader *r, size_t line, size_t skip, unsigned *mode)
{
	const char *s = r->L.p[line] + skip;
	size_t n = r->L.len[line] - skip;
	char tmp[16], *end;
	long v;

	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n == 0 || n >= sizeof(tmp))
		goto bad;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtol(tmp, &end, 8);
	if (errno != 0 || *end != '\0' || v <= 0 || v > 0177777)
		goto bad;
	*mode = (unsigned)v;
	if ((*mode & PATCH_MODE_TYPE) != PATCH_MODE_FILE &&
	    (*mode & PATCH_MODE_TYPE) != PATCH_MODE_LINK)
		return patch_fail(r, line, "mode %06o is neither a regular file nor a symbolic "
		    "link (a submodule or a directory); apply_patch changes only files", *mode);
	return 0;
bad:
	return patch_fail(r, line, "the mode is not an octal number such as 100644");
}

/*
 * Hunks.
 */

static bool
patch_number(const char **p, const char *end, long *v)
{
	long x = 0;

	if (*p >= end || **p < '0' || **p > '9')
		return false;
	while (*p < end && **p >= '0' && **p <= '9') {
		if (x > 100000000L)
			return false;
		x = x * 10 + (**p - '0');
		(*p)++;
	}
	*v = x;
	return true;
}

/* "@@ -a[,b] +c[,d] @@ ...": 1 ranged, 0 bare "@@", -1 unreadable. */
static int
patch_range(const char *s, size_t n, struct patch_hunk *h)
{
	const char *p = s + 2, *end = s + n;

	while (p < end && *p == ' ')
		p++;
	if (p == end || (end - p == 2 && p[0] == '@' && p[1] == '@'))
		return 0;
	h->old_count = h->new_count = 1;
	if (*p++ != '-' || !patch_number(&p, end, &h->old_start))
		return -1;
	if (p < end && *p == ',' && (p++, !patch_number(&p, end, &h->old_count)))
		return -1;
	if (p >= end || *p++ != ' ')
		return -1;
	if (p >= end || *p++ != '+' || !patch_number(&p, end, &h->new_start))
		return -1;
	if (p < end && *p == ',' && (p++, !patch_number(&p, end, &h->new_count)))
		return -1;
	if (end - p < 3 || memcmp(p, " @@", 3) != 0)
		return -1;
	return 1;
}

static bool
patch_is_body(const struct patch_reader *r, size_t i)
{
	char c;

	if (i >= r->L.n || r->L.len[i] == 0)
		return false;
	c = r->L.p[i][0];
	return (c == ' ' || c == '-' || c == '+' || c == '\\') && !patch_is_dashes(r, i);
}

/* A "\ No newline at end of file" line after the hunk line it marks. */
static int
patch_noeol(struct patch_reader *r, struct patch_hunk *h)
{
	if (h->n == 0 || h->lines[h->n - 1].noeol)
		return patch_fail(r, r->i, "a \"\\ No newline at end of file\" line must follow "
		    "the hunk line it marks");
	h->lines[h->n - 1].noeol = true;
	h->lines[h->n - 1].cr = false;
	r->i++;
	return 0;
}

/* Lines that begin another part of a patch, never a hunk's. */
static bool
patch_looks_like_header(const struct patch_reader *r, size_t i)
{
	return patch_starts(r, i, "diff --git ") || patch_starts(r, i, "@@") ||
	    patch_is_dashes(r, i);
}

static int
patch_bad_line(struct patch_reader *r, size_t line, const struct patch_file *f,
    const struct patch_hunk *h, const char *name)
{
	size_t n = r->L.len[line];

	buf_reset(r->err);
	return patch_fail(r, line, "\"%.*s\" in hunk %zu of %s starts with neither ' ', '-' "
	    "nor '+', and reading it as a context line that lost its space does not fit the "
	    "header @@ -%ld,%ld +%ld,%ld @@; a context line keeps its leading space (a blank "
	    "one is a single space). Fix the line or the counts", (int)(n > 60 ? 60 : n),
	    r->L.p[line], f->nh, name, h->old_start, h->old_count, h->new_start, h->new_count);
}

static int patch_after_hunks(struct patch_reader *, const struct patch_file *);

static int
patch_ranged_body(struct patch_reader *r, struct patch_file *f, struct patch_hunk *h,
    const char *name)
{
	size_t head = r->i - 1, bad = 0;	/* bad: 1 + the first recovered line */
	long olds = 0, news = 0;

	while (olds < h->old_count || news < h->new_count) {
		const char *s;
		size_t n;

		if (r->i >= r->L.n) {
			if (bad != 0)
				return patch_bad_line(r, bad - 1, f, h, name);
			return patch_fail(r, head, "hunk %zu of %s ends after %ld old and %ld new "
			    "lines, but its header @@ -%ld,%ld +%ld,%ld @@ counts %ld and %ld; fix "
			    "the counts or the lines", f->nh, name, olds, news, h->old_start,
			    h->old_count, h->new_start, h->new_count, h->old_count, h->new_count);
		}
		s = r->L.p[r->i];
		n = r->L.len[r->i];
		if (n > 0 && s[0] == '\\') {
			if (patch_noeol(r, h) != 0)
				return -1;
			continue;
		}
		if (n == 0) {
			/* a blank context line whose space was lost */
			patch_add_line(f, h, ' ', s, 0, r->L.cr[r->i]);
		} else if (s[0] == ' ' || s[0] == '-' || s[0] == '+')
			patch_add_line(f, h, s[0], s + 1, n - 1, r->L.cr[r->i]);
		else if (patch_looks_like_header(r, r->i))
			return patch_bad_line(r, bad != 0 ? bad - 1 : r->i, f, h, name);
		else {
			/*
			 * A context line that lost its leading space ("}" for " }"):
			 * read as context, kept only if the counts then come out exactly
			 * and the hunk still matches the file.
			 */
			if (bad == 0)
				bad = r->i + 1;
			patch_add_line(f, h, ' ', s, n, r->L.cr[r->i]);
			h->recovered++;
		}
		olds += n == 0 || s[0] != '+';
		news += n == 0 || s[0] != '-';
		if (olds > h->old_count || news > h->new_count) {
			if (bad != 0)
				return patch_bad_line(r, bad - 1, f, h, name);
			return patch_fail(r, r->i, "hunk %zu of %s has more %s lines than its header "
			    "@@ -%ld,%ld +%ld,%ld @@ counts; fix the counts", f->nh, name,
			    olds > h->old_count ? "old (context and removed)" : "new (context and "
			    "added)", h->old_start, h->old_count, h->new_start, h->new_count);
		}
		r->i++;
	}
	if (r->i < r->L.n && r->L.len[r->i] > 0 && r->L.p[r->i][0] == '\\' &&
	    patch_noeol(r, h) != 0)
		return -1;
	if (bad != 0 && patch_after_hunks(r, f) != 0)
		/* more hunk lines follow: the counts do not confirm the reading */
		return patch_bad_line(r, bad - 1, f, h, name);
	return 0;
}

/* A bare "@@" hunk or a Codex chunk: body lines until anything else. */
static int
patch_free_body(struct patch_reader *r, struct patch_file *f, struct patch_hunk *h)
{
	while (r->i < r->L.n) {
		const char *s = r->L.p[r->i];
		size_t n = r->L.len[r->i], j;

		if (n == 0) {
			/* blank context lines, if more of the hunk follows them */
			for (j = r->i; j < r->L.n && r->L.len[j] == 0; j++)
				;
			if (!patch_is_body(r, j))
				break;
			for (; r->i < j; r->i++)
				patch_add_line(f, h, ' ', r->L.p[r->i], 0, r->L.cr[r->i]);
			continue;
		} else if (s[0] == '\\') {
			if (patch_noeol(r, h) != 0)
				return -1;
			continue;
		} else if (!patch_is_body(r, r->i))
			break;
		else
			patch_add_line(f, h, s[0], s + 1, n - 1, r->L.cr[r->i]);
		r->i++;
	}
	return 0;
}

static int
patch_check_hunk(struct patch_reader *r, struct patch_file *f, struct patch_hunk *h,
    const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->lines[i].kind != ' ')
			return 0;
	return patch_fail(r, h->lineno - 1, "hunk %zu of %s changes nothing (no '-' or '+' "
	    "lines); drop it or add the change", f->nh, name);
}

static const char *
patch_file_name(const struct patch_file *f)
{
	if (f->new_name != NULL)
		return f->new_name;
	if (f->old_name != NULL)
		return f->old_name;
	return "the file";
}

/* The hunks of a unified section, from an "@@" line on. */
static int
patch_hunks(struct patch_reader *r, struct patch_file *f)
{
	while (patch_starts(r, r->i, "@@")) {
		struct patch_hunk *h = patch_new_hunk(f, r->i);
		const char *name = patch_file_name(f);
		int ranged = patch_range(r->L.p[r->i], r->L.len[r->i], h);

		if (ranged < 0)
			return patch_fail(r, r->i, "the hunk header cannot be read; write it as "
			    "\"@@ -old_line,count +new_line,count @@\"");
		h->ranged = ranged == 1;
		r->i++;
		if (h->ranged ? patch_ranged_body(r, f, h, name) != 0 : patch_free_body(r, f, h) != 0)
			return -1;
		if (h->ranged && h->old_count == 0 && h->new_count == 0)
			return patch_fail(r, h->lineno - 1, "hunk %zu of %s is empty (@@ -%ld,0 "
			    "+%ld,0 @@); drop it", f->nh, name, h->old_start, h->new_start);
		if (patch_check_hunk(r, f, h, name) != 0)
			return -1;
	}
	return 0;
}

/* After a section: a line that reads like more hunk lines is refused. */
static int
patch_after_hunks(struct patch_reader *r, const struct patch_file *f)
{
	const char *s;
	size_t n, j;

	if (r->i >= r->L.n)
		return 0;
	s = r->L.p[r->i];
	n = r->L.len[r->i];
	if (n == 0) {
		for (j = r->i; j < r->L.n && r->L.len[j] == 0; j++)
			;
		if (f->nh > 0 && j < r->L.n && patch_is_body(r, j) &&
		    !(r->L.len[j] == 3 && memcmp(r->L.p[j], "-- ", 3) == 0))
			return patch_fail(r, j, "hunk %zu of %s ended at a blank line, but more "
			    "hunk lines follow; a blank context line is a single space, and the "
			    "header's counts must include every line", f->nh, patch_file_name(f));
		return 0;
	}
	if (f->nh > 0 && patch_is_body(r, r->i) && !(n == 3 && memcmp(s, "-- ", 3) == 0))
		return patch_fail(r, r->i, "\"%.*s\" follows hunk %zu of %s, which its header "
		    "counts as complete; fix the counts in the @@ line", (int)(n > 60 ? 60 : n),
		    s, f->nh, patch_file_name(f));
	return 0;
}

/*
 * Unified sections.
 */

/* "--- x" and "+++ y" at r->i: both names, prefixes not yet stripped. */
static int
patch_dash_names(struct patch_reader *r, char **old, char **new)
{
	*old = *new = NULL;
	if (patch_header_name(r, r->i, 4, true, old) != 0)
		return -1;
	if (patch_header_name(r, r->i + 1, 4, true, new) != 0) {
		free(*old);
		*old = NULL;
		return -1;
	}
	r->i += 2;
	return 0;
}

static int
patch_plain_section(struct patch_reader *r)
{
	struct patch_file *f = patch_new_file(r, r->i);
	size_t at = r->i;
	char *old, *new;

	if (patch_dash_names(r, &old, &new) != 0)
		return -1;
	patch_strip_prefixes(&old, &new);
	if (old == NULL && new == NULL)
		return patch_fail(r, at, "both file headers name /dev/null");
	if (old == NULL) {
		f->op = PATCH_ADD;
		f->new_name = new;
	} else if (new == NULL) {
		f->op = PATCH_DELETE;
		f->old_name = old;
	} else {
		f->op = PATCH_MODIFY;
		f->new_name = new;
		if (strcmp(old, new) != 0) {
			f->alt_name = old;
			f->old_name = xstrdup(new);
		} else
			f->old_name = old;
	}
	if (!patch_starts(r, r->i, "@@"))
		return patch_fail(r, at, "the file headers for %s have no hunks (\"@@ -l,c "
		    "+l,c @@\" lines) after them", patch_file_name(f));
	if (patch_hunks(r, f) != 0)
		return -1;
	return patch_after_hunks(r, f);
}

/* The extended header lines of a "diff --git" section. */
enum patch_git_key {
	GIT_OLD_MODE, GIT_NEW_MODE, GIT_DELETED, GIT_NEW_FILE, GIT_RENAME_FROM,
	GIT_RENAME_TO, GIT_COPY_FROM, GIT_COPY_TO, GIT_IGNORED, GIT_BINARY
};

static const struct {
	const char		*prefix;
	enum patch_git_key	 key;
} patch_git_keys[] = {
	{ "old mode ",		GIT_OLD_MODE },
	{ "new mode ",		GIT_NEW_MODE },
	{ "deleted file mode ",	GIT_DELETED },
	{ "new file mode ",	GIT_NEW_FILE },
	{ "rename from ",	GIT_RENAME_FROM },
	{ "rename to ",		GIT_RENAME_TO },
	{ "rename old ",	GIT_RENAME_FROM },
	{ "rename new ",	GIT_RENAME_TO },
	{ "copy from ",		GIT_COPY_FROM },
	{ "copy to ",		GIT_COPY_TO },
	{ "similarity index ",	GIT_IGNORED },
	{ "dissimilarity index ", GIT_IGNORED },
	{ "index ",		GIT_IGNORED },
	{ "GIT binary patch",	GIT_BINARY },
	{ "Binary files ",	GIT_BINARY },
};

/* "index 1a2b..3c4d 100644": the mode the file is said to have. */
static int
patch_index_mode(struct patch_reader *r, size_t line, struct patch_file *f)
{
	const char *s = r->L.p[line], *sp = memrchr(s, ' ', r->L.len[line]);

	if (sp == NULL || sp - s < 6)
		return 0;
	return patch_mode(r, line, (size_t)(sp - s) + 1, &f->index_mode);
}

struct patch_git {
	char		*line_old, *line_new;	/* from the diff --git line */
	char		*from, *to;		/* rename or copy */
	bool		 renamed, copied, created, deleted;
};

static int
patch_git_header(struct patch_reader *r, struct patch_file *f, struct patch_git *g)
{
	for (;;) {
		size_t k, nk = sizeof(patch_git_keys) / sizeof(patch_git_keys[0]), plen = 0;
		char **slot;

		for (k = 0; k < nk; k++) {
			plen = strlen(patch_git_keys[k].prefix);
			if (patch_starts(r, r->i, patch_git_keys[k].prefix))
				break;
		}
		if (k == nk)
			return 0;
		switch (patch_git_keys[k].key) {
		case GIT_OLD_MODE:
		case GIT_DELETED:
			if (patch_mode(r, r->i, plen, &f->old_mode) != 0)
				return -1;
			g->deleted |= patch_git_keys[k].key == GIT_DELETED;
			break;
		case GIT_NEW_MODE:
		case GIT_NEW_FILE:
			if (patch_mode(r, r->i, plen, &f->new_mode) != 0)
				return -1;
			g->created |= patch_git_keys[k].key == GIT_NEW_FILE;
			break;
		case GIT_RENAME_FROM:
		case GIT_RENAME_TO:
		case GIT_COPY_FROM:
		case GIT_COPY_TO:
			slot = patch_git_keys[k].key == GIT_RENAME_FROM ||
			    patch_git_keys[k].key == GIT_COPY_FROM ? &g->from : &g->to;
			if (*slot != NULL)
				return patch_fail(r, r->i, "the section names its source or "
				    "destination twice");
			if (patch_header_name(r, r->i, plen, false, slot) != 0)
				return -1;
			if (*slot == NULL)
				return patch_fail(r, r->i, "a rename or copy names /dev/null");
			g->renamed |= patch_git_keys[k].key <= GIT_RENAME_TO;
			g->copied |= patch_git_keys[k].key >= GIT_COPY_FROM;
			break;
		case GIT_IGNORED:
			if (patch_starts(r, r->i, "index ") &&
			    patch_index_mode(r, r->i, f) != 0)
				return -1;
			break;
		case GIT_BINARY:
			return patch_fail(r, r->i, "the patch changes a binary file (%s); "
			    "apply_patch changes only text: use write_file, or run_bash with git "
			    "apply", g->line_new ? g->line_new : "its name is in the diff --git line");
		}
		r->i++;
	}
}

/* Does name (as the ---/+++ line has it) agree with want (a/ b/ already gone)? */
static bool
patch_agrees(const char *name, const char *want, char side)
{
	if (name == NULL || want == NULL)
		return name == want;
	if (strcmp(name, want) == 0)
		return true;
	return name[0] == side && name[1] == '/' && strcmp(name + 2, want) == 0;
}

static int
patch_git_finish(struct patch_reader *r, struct patch_file *f, struct patch_git *g,
    size_t at, char *dold, char *dnew, bool dashes)
{
	char *old, *new;
	int ops = g->renamed + g->copied + g->created + g->deleted;

	if (ops > 1 || (g->renamed && g->copied))
		return patch_fail(r, at, "the section both %s", g->created && g->deleted ?
		    "creates and deletes its file" : "renames or copies and creates or deletes");
	if ((g->renamed || g->copied) && (g->from == NULL || g->to == NULL))
		return patch_fail(r, at, "a rename or copy needs both its from and to lines");
	old = g->line_old;
	new = g->line_new;
	g->line_old = g->line_new = NULL;
	if (old == NULL && dashes && (dold != NULL || dnew != NULL)) {
		/* names with spaces that differ: the ---/+++ lines say them */
		char *o = dold != NULL ? xstrdup(dold) : NULL;
		char *n = dnew != NULL ? xstrdup(dnew) : NULL;

		patch_strip_prefixes(&o, &n);
		old = o != NULL ? o : xstrdup(n);
		new = n != NULL ? n : xstrdup(o);
	} else if (old == NULL && g->from != NULL) {
		old = xstrdup(g->from);
		new = xstrdup(g->to);
	} else
		patch_strip_prefixes(&old, &new);
	if (old == NULL || new == NULL) {
		free(old);
		free(new);
		return patch_fail(r, at, "the names in the \"diff --git\" line cannot be told "
		    "apart; quote them as git does");
	}
	if (dashes) {
		bool ok = (g->created ? dold == NULL : patch_agrees(dold, old, 'a')) &&
		    (g->deleted ? dnew == NULL : patch_agrees(dnew, new, 'b'));

		if (!ok) {
			free(old);
			free(new);
			return patch_fail(r, at, "the \"---\" / \"+++\" lines name other files than "
			    "the \"diff --git\" line above them");
		}
	}
	if ((g->from != NULL && strcmp(g->from, old) != 0) ||
	    (g->to != NULL && strcmp(g->to, new) != 0)) {
		free(old);
		free(new);
		return patch_fail(r, at, "the rename or copy lines name other files than the "
		    "\"diff --git\" line");
	}
	if (g->created) {
		f->op = PATCH_ADD;
		f->new_name = new;
		free(old);
	} else if (g->deleted) {
		f->op = PATCH_DELETE;
		f->old_name = old;
		free(new);
	} else {
		f->op = g->renamed ? PATCH_RENAME : g->copied ? PATCH_COPY : PATCH_MODIFY;
		f->old_name = old;
		f->new_name = new;
		if (f->op == PATCH_MODIFY && strcmp(old, new) != 0)
			return patch_fail(r, at, "the \"diff --git\" line names two files but "
			    "no rename or copy lines say what happens to them");
	}
	return 0;
}

static int
patch_git_section(struct patch_reader *r)
{
	struct patch_file *f = patch_new_file(r, r->i);
	struct patch_git g;
	size_t at = r->i;
	char *dold = NULL, *dnew = NULL;
	bool dashes = false;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	f->git = true;
	if (patch_git_names(r, r->i, &g.line_old, &g.line_new) != 0)
		goto out;
	r->i++;
	if (patch_git_header(r, f, &g) != 0)
		goto out;
	if (patch_is_dashes(r, r->i)) {
		if (patch_dash_names(r, &dold, &dnew) != 0)
			goto out;
		dashes = true;
	}
	if (patch_git_finish(r, f, &g, at, dold, dnew, dashes) != 0)
		goto out;
	if (dashes && !patch_starts(r, r->i, "@@")) {
		patch_fail(r, at, "the section for %s has file headers but no hunks",
		    patch_file_name(f));
		goto out;
	}
	if (!dashes && patch_starts(r, r->i, "@@")) {
		patch_fail(r, r->i, "a hunk needs \"---\" and \"+++\" lines before it");
		goto out;
	}
	if (patch_hunks(r, f) != 0 || patch_after_hunks(r, f) != 0)
		goto out;
	if (f->nh == 0 && f->op == PATCH_MODIFY && f->new_mode == 0) {
		patch_fail(r, at, "the section for %s changes nothing (no hunks, no mode or "
		    "name change)", patch_file_name(f));
		goto out;
	}
	rc = 0;
out:
	free(g.line_old);
	free(g.line_new);
	free(g.from);
	free(g.to);
	free(dold);
	free(dnew);
	return rc;
}

static int
patch_unified(struct patch_reader *r)
{
	while (r->i < r->L.n) {
		if (patch_starts(r, r->i, "diff --git ")) {
			if (patch_git_section(r) != 0)
				return -1;
		} else if (patch_is_dashes(r, r->i)) {
			if (patch_plain_section(r) != 0)
				return -1;
		} else if (patch_starts(r, r->i, "@@")) {
			return patch_fail(r, r->i, "a hunk (@@) comes before any file header; each "
			    "file needs \"--- a/path\" and \"+++ b/path\" lines before its hunks");
		} else if (patch_starts(r, r->i, "GIT binary patch") ||
		    patch_starts(r, r->i, "Binary files ")) {
			return patch_fail(r, r->i, "the patch changes a binary file; apply_patch "
			    "changes only text");
		} else
			r->i++;	/* prose around the patch, "index" or "diff -u" lines */
	}
	if (r->plan->nf == 0) {
		buf_puts(r->err, "no file headers found: a patch needs \"--- a/path\" and "
		    "\"+++ b/path\" lines, then hunks starting with \"@@ -line,count "
		    "+line,count @@\" (or the \"*** Begin Patch\" envelope)");
		return -1;
	}
	return 0;
}

/*
 * The Codex envelope.
 */

static const char *
patch_codex_arg(const struct patch_reader *r, const char *prefix)
{
	return patch_starts(r, r->i, prefix) ? r->L.p[r->i] + strlen(prefix) : NULL;
}

static int
patch_codex_name(struct patch_reader *r, const char *prefix, char **name)
{
	const char *s = patch_codex_arg(r, prefix);
	size_t n = r->L.len[r->i] - strlen(prefix);

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || memchr(s, '\0', n) != NULL)
		return patch_fail(r, r->i, "\"%s\" needs a file name", prefix);
	*name = xstrndup(s, n);
	r->i++;
	return 0;
}

static void
patch_anchor(struct patch_hunk *h, const char *s, size_t n)
{
	h->anchors = xreallocarray(h->anchors, h->nanchors + 1, sizeof(*h->anchors));
	h->anchors[h->nanchors++] = xstrndup(s, n);
}

static int
patch_codex_update(struct patch_reader *r, struct patch_file *f)
{
	struct patch_hunk *h = NULL;

	if (patch_codex_arg(r, "*** Move to:") != NULL) {
		free(f->new_name);
		f->new_name = NULL;
		if (patch_codex_name(r, "*** Move to:", &f->new_name) != 0)
			return -1;
		f->op = PATCH_RENAME;
	}
	while (r->i < r->L.n) {
		const char *s = r->L.p[r->i];
		size_t n = r->L.len[r->i];

		if (patch_is(r, r->i, "*** End of File")) {
			if (h == NULL || h->n == 0)
				return patch_fail(r, r->i, "\"*** End of File\" must end a hunk");
			h->at_eof = true;
			r->i++;
			continue;
		}
		if (patch_starts(r, r->i, "***"))
			break;
		if (patch_starts(r, r->i, "@@")) {
			size_t skip = n > 2 && s[2] == ' ' ? 3 : 2;

			if (h == NULL || h->n > 0 || h->at_eof)
				h = patch_new_hunk(f, r->i);
			if (n > skip)
				patch_anchor(h, s + skip, n - skip);
			r->i++;
			continue;
		}
		if (h == NULL)
			h = patch_new_hunk(f, r->i);
		if (n == 0 || s[0] == ' ' || s[0] == '-' || s[0] == '+' || s[0] == '\\') {
			size_t before = h->n;

			if (patch_free_body(r, f, h) != 0)
				return -1;
			if (h->n == before)	/* blank lines ending the hunk */
				r->i++;
			continue;
		}
		return patch_fail(r, r->i, "\"%.*s\" in the update of %s starts with neither "
		    "' ', '-', '+' nor \"@@\"; a context line keeps its leading space",
		    (int)(n > 60 ? 60 : n), s, f->old_name);
	}
	if (f->nh == 0 && f->op != PATCH_RENAME)
		return patch_fail(r, f->lineno - 1, "\"*** Update File: %s\" has no hunks",
		    f->old_name);
	for (size_t k = 0; k < f->nh; k++) {
		struct patch_hunk *hk = &f->hunks[k];
		size_t j;

		for (j = 0; j < hk->n && hk->lines[j].kind == ' '; j++)
			;
		if (j == hk->n)
			return patch_fail(r, hk->lineno - 1, "hunk %zu of %s changes nothing (no "
			    "'-' or '+' lines); drop it or add the change", k + 1, f->old_name);
	}
	return 0;
}

static int
patch_codex_add(struct patch_reader *r, struct patch_file *f)
{
	struct patch_hunk *h = patch_new_hunk(f, r->i);

	h->ranged = true;
	while (r->i < r->L.n && !patch_starts(r, r->i, "***")) {
		const char *s = r->L.p[r->i];
		size_t n = r->L.len[r->i];

		if (n > 0 && s[0] == '\\') {
			if (patch_noeol(r, h) != 0)
				return -1;
			continue;
		}
		if (n == 0 || s[0] != '+')
			return patch_fail(r, r->i, "every line of \"*** Add File: %s\" starts with "
			    "'+'", f->new_name);
		patch_add_line(f, h, '+', s + 1, n - 1, r->L.cr[r->i]);
		r->i++;
	}
	h->new_count = (long)h->n;
	h->new_start = h->n > 0;
	if (h->n == 0)
		f->nh = 0;
	return 0;
}

static int
patch_codex(struct patch_reader *r)
{
	r->plan->codex = true;
	r->i++;
	for (;;) {
		struct patch_file *f;

		if (r->i >= r->L.n)
			return patch_fail(r, r->L.n ? r->L.n - 1 : 0, "the patch ends without "
			    "\"*** End Patch\"");
		if (patch_is(r, r->i, "*** End Patch"))
			break;
		if (r->L.len[r->i] == 0) {
			r->i++;
			continue;
		}
		f = patch_new_file(r, r->i);
		f->codex = true;
		if (patch_codex_arg(r, "*** Add File:") != NULL) {
			f->op = PATCH_ADD;
			if (patch_codex_name(r, "*** Add File:", &f->new_name) != 0 ||
			    patch_codex_add(r, f) != 0)
				return -1;
		} else if (patch_codex_arg(r, "*** Delete File:") != NULL) {
			f->op = PATCH_DELETE;
			if (patch_codex_name(r, "*** Delete File:", &f->old_name) != 0)
				return -1;
		} else if (patch_codex_arg(r, "*** Update File:") != NULL) {
			f->op = PATCH_MODIFY;
			if (patch_codex_name(r, "*** Update File:", &f->old_name) != 0)
				return -1;
			f->new_name = xstrdup(f->old_name);
			if (patch_codex_update(r, f) != 0)
				return -1;
		} else
			return patch_fail(r, r->i, "\"%.*s\" is not \"*** Add File:\", \"*** Update "
			    "File:\", \"*** Delete File:\" or \"*** End Patch\"",
			    (int)(r->L.len[r->i] > 60 ? 60 : r->L.len[r->i]), r->L.p[r->i]);
	}
	for (r->i++; r->i < r->L.n; r->i++)
		if (r->L.len[r->i] > 0)
			return patch_fail(r, r->i, "text follows \"*** End Patch\"");
	if (r->plan->nf == 0)
		return patch_fail(r, 0, "the envelope holds no file");
	return 0;
}

int
patch_parse(const char *text, size_t len, struct patch_plan *plan, struct buf *err)
{
	struct patch_reader r;
	size_t first;
	int rc;

	memset(plan, 0, sizeof(*plan));
	memset(&r, 0, sizeof(r));
	r.plan = plan;
	r.err = err;
	patch_text_split(&r.L, text, len);
	for (first = 0; first < r.L.n && r.L.len[first] == 0; first++)
		;
	if (first < r.L.n && patch_is(&r, first, "*** Begin Patch")) {
		r.i = first;
		rc = patch_codex(&r);
	} else
		rc = patch_unified(&r);
	patch_text_release(&r.L);
	if (rc != 0)
		patch_plan_release(plan);
	return rc;
}
