/*
 * apply_patch: apply a patch (read by tools/patch.c) exactly, or refuse it.
 *
 * Every section is applied in memory, in order, to a picture of the files
 * it touches (so two sections for one file, a rename then a change, a
 * delete then a create all compose); nothing is written until all of it
 * fits.  A numbered hunk is looked for at its line plus the offset the
 * previous hunk was found at (as GNU patch does), then ever further from
 * it; two matches at the same distance are ambiguous and refused with both
 * line numbers.  A hunk without numbers (bare "@@", the Codex envelope)
 * must match in one place only, unless its "@@ context" line fixes where.
 * Matching ignores a "\r" at line ends; a retry ignores trailing
 * whitespace (and, in the Codex envelope, leading whitespace too).
 *
 * Line endings are kept byte for byte: context lines are the file's own
 * bytes; an added line ends as the patch line did when the patch carries
 * "\r" for that file, else like the file line next to it.  Modes are
 * masked to 0777.  A symbolic link entry is created only when its target
 * stays inside the workspace; a link is never deleted or renamed as if it
 * were the file it names.  A directory a deletion leaves empty goes, as
 * with git apply; a plain "diff -N" hunk at -0,0 creates its missing file.  Then each file is snapshotted and written
 * atomically; if a write fails, what was written is put back.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "diff.h"
#include "fsutil.h"
#include "json.h"
#include "patch.h"
#include "sandbox.h"
#include "tool.h"
#include "xalloc.h"

/* Lines of the file or hunk shown in an error. */
#define AP_SHOWN	40
/* Candidate places listed for an ambiguous hunk. */
#define AP_CANDIDATES	8

/* One file's content: what it was, and what the patch makes of it. */
struct ap_state {
	bool		 exists;
	bool		 link;		/* a symbolic link: data is its target */
	char		*data;
	size_t		 len;
	unsigned	 mode;		/* permission bits; 0: leave as it is */
};

struct ap_vfile {
	char		*rel, *abs;
	struct ap_state	 orig, cur;
};

struct ap {
	const struct tool_env	*env;
	struct patch_plan	 plan;
	struct ap_vfile		*v;
	size_t			 nv, cap;
	size_t			*slots;		/* a hash of v by rel: index + 1, 0 empty */
	size_t			 nslots;
	char			*dir, *dir_abs, *dir_rel;	/* the last directory resolved */
	struct buf		 notes;
	struct buf		 summary;
	size_t			 already;	/* hunks (or created files) found already applied */
	bool			 prefer_applied; /* a hunk whose new text is there is applied */
	size_t			 nsect_done;	/* sections wholly applied before */
};

static void
ap_state_release(struct ap_state *s)
{
	free(s->data);
	s->data = NULL;
}

static void
ap_release(struct ap *ap)
{
	size_t i;

	for (i = 0; i < ap->nv; i++) {
		free(ap->v[i].rel);
		free(ap->v[i].abs);
		ap_state_release(&ap->v[i].orig);
		ap_state_release(&ap->v[i].cur);
	}
	free(ap->v);
	free(ap->slots);
	free(ap->dir);
	free(ap->dir_abs);
	free(ap->dir_rel);
	patch_plan_release(&ap->plan);
	buf_release(&ap->notes);
	buf_release(&ap->summary);
}

static bool
ap_state_same(const struct ap_state *a, const struct ap_state *b)
{
	if (a->exists != b->exists)
		return false;
	if (!a->exists)
		return true;
	return a->link == b->link && a->len == b->len && memcmp(a->data, b->data, a->len) == 0 &&
	    (b->mode == 0 || a->mode == b->mode);
}

/*
 * The picture of the files.
 */

static size_t
ap_hash(const char *s)
{
	size_t h = 5381;

	for (; *s != '\0'; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* The slot of rel: where it is, or the empty one where it would go. */
static size_t
ap_slot(const struct ap *ap, const char *rel)
{
	size_t k = ap_hash(rel) & (ap->nslots - 1);

	while (ap->slots[k] != 0 && strcmp(ap->v[ap->slots[k] - 1].rel, rel) != 0)
		k = (k + 1) & (ap->nslots - 1);
	return k;
}

static struct ap_vfile *
ap_find(struct ap *ap, const char *rel)
{
	size_t k;

	if (ap->nslots == 0)
		return NULL;
	k = ap_slot(ap, rel);
	return ap->slots[k] != 0 ? &ap->v[ap->slots[k] - 1] : NULL;
}

/* Index v[i]; the table stays at most half full. */
static void
ap_index(struct ap *ap, size_t i)
{
	size_t j;

	if ((i + 1) * 2 > ap->nslots) {
		free(ap->slots);
		ap->nslots = ap->nslots ? ap->nslots * 2 : 64;
		ap->slots = xcalloc(ap->nslots, sizeof(*ap->slots));
		for (j = 0; j < i; j++)
			ap->slots[ap_slot(ap, ap->v[j].rel)] = j + 1;
	}
	ap->slots[ap_slot(ap, ap->v[i].rel)] = i + 1;
}

/* The path of name itself (its directory resolved, not a link at its end). */
static int
ap_leaf(struct ap *ap, const char *name, char **abs, char **rel, struct buf *err)
{
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	char *dir = slash ? xstrndup(name, (size_t)(slash - name)) : xstrdup(".");
	char *dabs, *drel;
	int rc = -1;

	if (base[0] == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		buf_printf(err, "\"%s\" does not name a file", name);
		goto out;
	}
	/* the files of a patch come directory by directory: resolve each once */
	if (ap->dir != NULL && strcmp(ap->dir, dir) == 0) {
		dabs = xstrdup(ap->dir_abs);
		drel = xstrdup(ap->dir_rel);
	} else {
		if (sandbox_resolve(ap->env->root, dir[0] ? dir : "/", false, &dabs, &drel,
		    err) != 0)
			goto out;
		free(ap->dir);
		free(ap->dir_abs);
		free(ap->dir_rel);
		ap->dir = xstrdup(dir);
		ap->dir_abs = xstrdup(dabs);
		ap->dir_rel = xstrdup(drel);
	}
	*abs = xmalloc(strlen(dabs) + strlen(base) + 2);
	memcpy(*abs, dabs, strlen(dabs));
	(*abs)[strlen(dabs)] = '/';
	memcpy(*abs + strlen(dabs) + 1, base, strlen(base) + 1);
	if (strcmp(drel, ".") == 0)
		*rel = xstrdup(base);
	else {
		*rel = xmalloc(strlen(drel) + strlen(base) + 2);
		memcpy(*rel, drel, strlen(drel));
		(*rel)[strlen(drel)] = '/';
		memcpy(*rel + strlen(drel) + 1, base, strlen(base) + 1);
	}
	free(dabs);
	free(drel);
	rc = 0;
out:
	free(dir);
	return rc;
}

/*
 * Read v through a walk beneath the workspace, never by its name again: a
 * directory swapped for a link on the way cannot lead the read out, and
 * the name the walk reached is held to the deny rules.
 */
static int
ap_read(const struct tool_env *env, struct ap_vfile *v, struct buf *err)
{
	struct sandbox sb;
	struct sandbox_at at;
	int rc;

	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, v->abs, SANDBOX_EDIT, SANDBOX_MUST_EXIST, &at, err) != 0)
		return -1;
	rc = fsutil_read_at(&at, FSUTIL_MAX_FILE, &v->orig.data, &v->orig.len, err);
	sandbox_at_release(&at);
	return rc == 0 ? 0 : -1;
}

/* fsutil_replace through the same walk, so a write is held to the deny rules too. */
static int
ap_replace(const struct tool_env *env, const char *snap, const struct ap_vfile *v,
    const char *old, size_t oldlen, const char *new, size_t newlen, cJSON *files,
    struct buf *err)
{
	struct sandbox sb;
	struct sandbox_at at;
	int rc;

	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, v->abs, SANDBOX_EDIT, 0, &at, err) != 0)
		return -1;
	/* the patch's name for the file goes into the record */
	free(at.rel);
	at.rel = xstrdup(v->rel);
	rc = fsutil_replace_at(&at, snap, old, oldlen, new, newlen, files, err);
	sandbox_at_release(&at);
	return rc;
}

static int
ap_load(const struct tool_env *env, struct ap_vfile *v, bool link, struct buf *err)
{
	struct stat st;
	char target[PATH_MAX];
	ssize_t n;
	int rc;

	if (lstat(v->abs, &st) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		buf_printf(err, "cannot read %s: %s", v->rel, strerror(errno));
		return -1;
	}
	v->orig.mode = (unsigned)st.st_mode & 0777;
	if (S_ISLNK(st.st_mode)) {
		if (!link) {
			buf_printf(err, "%s is a symbolic link; the patch changes it as a file", v->rel);
			return -1;
		}
		if ((n = readlink(v->abs, target, sizeof(target) - 1)) < 0) {
			buf_printf(err, "cannot read the symbolic link %s: %s", v->rel, strerror(errno));
			return -1;
		}
		v->orig.data = xmemdup(target, (size_t)n + 1);
		v->orig.data[n] = '\0';
		v->orig.len = (size_t)n;
		v->orig.link = true;
		v->orig.exists = true;
		v->orig.mode = 0;
		return 0;
	}
	if (link) {
		buf_printf(err, "%s is not a symbolic link, but the patch changes it as one "
		    "(mode 120000)", v->rel);
		return -1;
	}
	rc = ap_read(env, v, err);
	if (rc != 0)
		return -1;
	if (fsutil_is_binary(v->orig.data, v->orig.len)) {
		buf_printf(err, "%s looks like a binary file; apply_patch only changes text", v->rel);
		return -1;
	}
	v->orig.exists = true;
	return 0;
}

static struct ap_vfile *
ap_add(struct ap *ap, char *abs, char *rel, bool link, struct buf *err)
{
	struct ap_vfile *v;

	if (ap->nv == ap->cap) {
		ap->cap = ap->cap ? ap->cap * 2 : 16;
		ap->v = xreallocarray(ap->v, ap->cap, sizeof(*ap->v));
	}
	v = &ap->v[ap->nv];
	memset(v, 0, sizeof(*v));
	v->abs = abs;
	v->rel = rel;
	if (ap_load(ap->env, v, link, err) != 0) {
		free(abs);
		free(rel);
		ap_state_release(&v->orig);
		return NULL;
	}
	ap_index(ap, ap->nv);
	ap->nv++;
	v->cur = v->orig;
	if (v->orig.data != NULL)
		v->cur.data = xmemdup(v->orig.data, v->orig.len + 1);
	return v;
}

/*
 * The file a name stands for; link: the section says it is a symbolic
 * link.  A link the section treats as a file is followed when the file is
 * changed, never when it is deleted or renamed (follow false).
 */
static struct ap_vfile *
ap_get_at(struct ap *ap, const char *name, bool link, bool follow, struct buf *err)
{
	struct ap_vfile *v;
	struct stat st;
	char *abs, *rel;

	if (ap_leaf(ap, name, &abs, &rel, err) != 0)
		return NULL;
	if ((v = ap_find(ap, rel)) != NULL) {
		free(abs);
		free(rel);
		return v;
	}
	if (!link && follow && lstat(abs, &st) == 0 && S_ISLNK(st.st_mode)) {
		/* a link inside the workspace is followed to the file it names */
		free(abs);
		free(rel);
		if (sandbox_resolve(ap->env->root, name, false, &abs, &rel, err) != 0)
			return NULL;
		if ((v = ap_find(ap, rel)) != NULL) {
			free(abs);
			free(rel);
			return v;
		}
	}
	return ap_add(ap, abs, rel, link, err);
}

static struct ap_vfile *
ap_get(struct ap *ap, const char *name, bool link, struct buf *err)
{
	return ap_get_at(ap, name, link, true, err);
}

/*
 * Hunks, in memory.
 */

struct ap_line {
	const char	*p;
	size_t		 len;		/* without the line end */
	size_t		 eol;		/* 0, 1 ("\n") or 2 ("\r\n") */
};

struct ap_text {
	const char	*text;
	size_t		 len;
	struct ap_line	*l;
	long		 n;
	size_t		 maj;		/* the most common line end */
};

static void
ap_text_init(struct ap_text *t, const char *text, size_t len)
{
	long cap = diff_count_lines(text, len), crlf = 0;
	size_t p = 0;

	t->text = text;
	t->len = len;
	t->l = xreallocarray(NULL, (size_t)cap + 1, sizeof(*t->l));
	t->n = 0;
	while (p < len) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl != NULL ? (size_t)(nl - text) : len;
		struct ap_line *l = &t->l[t->n++];

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
	t->maj = crlf * 2 > t->n ? 2 : 1;
}

/* Line equality at a tolerance: 0 exact, 1 trailing whitespace, 2 both ends. */
static bool
ap_eq(const char *a, size_t al, const char *b, size_t bl, int level)
{
	if (al > 0 && a[al - 1] == '\r')
		al--;
	if (bl > 0 && b[bl - 1] == '\r')
		bl--;
	if (level >= 1) {
		while (al > 0 && (a[al - 1] == ' ' || a[al - 1] == '\t' || a[al - 1] == '\r'))
			al--;
		while (bl > 0 && (b[bl - 1] == ' ' || b[bl - 1] == '\t' || b[bl - 1] == '\r'))
			bl--;
	}
	if (level >= 2) {
		while (al > 0 && (*a == ' ' || *a == '\t')) {
			a++;
			al--;
		}
		while (bl > 0 && (*b == ' ' || *b == '\t')) {
			b++;
			bl--;
		}
	}
	return al == bl && memcmp(a, b, al) == 0;
}

static bool
ap_matches_at(const struct ap_text *t, const struct patch_hunk *h, long at, int level)
{
	size_t i;
	long k = at;

	for (i = 0; i < h->n; i++) {
		const struct patch_line *pl = &h->lines[i];

		if (pl->kind == '+')
			continue;
		if (k >= t->n || !ap_eq(t->l[k].p, t->l[k].len, pl->text, pl->len, level))
			return false;
		k++;
	}
	return true;
}

/* Where the search found a hunk. */
struct ap_found {
	long	 at;			/* -1: nowhere */
	long	 cand[AP_CANDIDATES];	/* two or more: ambiguous */
	size_t	 ncand;
	size_t	 more;			/* candidates not listed */
	int	 level;
};

static void
ap_cand(struct ap_found *fd, long at)
{
	if (fd->ncand < AP_CANDIDATES)
		fd->cand[fd->ncand++] = at;
	else
		fd->more++;
}

/* Nearest to expected in [lo, hi]; two at the same distance are both kept. */
static void
ap_search_near(const struct ap_text *t, const struct patch_hunk *h, long lo, long hi,
    long expected, int level, struct ap_found *fd)
{
	long d;

	if (expected < lo)
		expected = lo;
	if (expected > hi)
		expected = hi;
	for (d = 0; expected - d >= lo || expected + d <= hi; d++) {
		if (expected - d >= lo && ap_matches_at(t, h, expected - d, level))
			ap_cand(fd, expected - d);
		if (d > 0 && expected + d <= hi && ap_matches_at(t, h, expected + d, level))
			ap_cand(fd, expected + d);
		if (fd->ncand > 0)
			return;
	}
}

/* Every match in [lo, hi] (first only when first is set). */
static void
ap_search_all(const struct ap_text *t, const struct patch_hunk *h, long lo, long hi,
    int level, bool first, struct ap_found *fd)
{
	long k;

	for (k = lo; k <= hi; k++) {
		if (ap_matches_at(t, h, k, level)) {
			ap_cand(fd, k);
			if (first)
				return;
		}
	}
}

/*
 * A Codex "@@ context" line: the line after its first occurrence from line
 * from on (at the strictest tolerance that finds one), or -1.  The Codex
 * format seeks forward from the previous hunk, so a line that occurs again
 * later is not ambiguous; *count says how often it occurs from there.
 */
static long
ap_anchor(const struct ap_text *t, const char *a, long from, size_t *count)
{
	size_t alen = strlen(a);
	long k, first = -1;
	int level;

	*count = 0;
	for (level = 0; level <= 2 && first < 0; level++) {
		for (k = from; k < t->n; k++) {
			if (!ap_eq(t->l[k].p, t->l[k].len, a, alen, level))
				continue;
			if (first < 0)
				first = k;
			(*count)++;
		}
	}
	return first < 0 ? -1 : first + 1;
}

static void
ap_hunk_name(struct buf *b, const struct patch_file *pf, size_t hi, const char *rel)
{
	const struct patch_hunk *h = &pf->hunks[hi];

	buf_printf(b, "hunk %zu of %s", hi + 1, rel);
	if (h->ranged && !pf->codex)
		buf_printf(b, " (@@ -%ld,%ld +%ld,%ld @@)", h->old_start, h->old_count,
		    h->new_start, h->new_count);
	else if (h->nanchors > 0)
		buf_printf(b, " (@@ %s)", h->anchors[h->nanchors - 1]);
}

static void
ap_expected_text(const struct patch_hunk *h, struct buf *b)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (h->lines[i].kind == '+')
			continue;
		buf_append(b, h->lines[i].text, h->lines[i].len);
		buf_putc(b, '\n');
	}
}

/* A hunk did not match: show what it expects and what the file has. */
static void
ap_mismatch(const struct patch_file *pf, const struct ap_text *t, size_t hi, const char *rel,
    long expected, long before, struct buf *err)
{
	const struct patch_hunk *h = &pf->hunks[hi];
	struct buf want = BUF_INIT(BUF_NOLIMIT);
	long nold = patch_hunk_old_lines(h), first, at;

	ap_hunk_name(err, pf, hi, rel);
	buf_puts(err, " does not match the file; nothing was written.\n");
	if (before >= 0) {
		buf_printf(err, "Its lines are at line %ld, before the end of the previous hunk: "
		    "hunks must be in file order and must not overlap.\n", before + 1);
		return;
	}
	ap_expected_text(h, &want);
	buf_printf(err, "The hunk expects these lines at line %ld:\n", expected + 1);
	diff_excerpt(err, buf_cstr(&want), want.len, 0, nold < AP_SHOWN ? nold : AP_SHOWN);
	if (nold > AP_SHOWN)
		nold = AP_SHOWN;
	if (diff_find_loose(t->text, t->len, buf_cstr(&want), want.len, &first) > 0) {
		buf_printf(err, "They match line %ld when whitespace is ignored: the "
		    "indentation differs. The file has there:\n", first + 1);
		diff_excerpt(err, t->text, t->len, first, nold);
	} else if ((at = diff_nearest(t->text, t->len, buf_cstr(&want), want.len)) >= 0) {
		buf_printf(err, "The most similar lines in the file are at line %ld:\n", at + 1);
		diff_excerpt(err, t->text, t->len, at > 2 ? at - 2 : 0, nold + (at > 2 ? 2 : at) + 2);
	} else {
		buf_printf(err, "Nothing in the file resembles them. The file has at line %ld:\n",
		    expected + 1);
		diff_excerpt(err, t->text, t->len, expected > 2 ? expected - 2 : 0, nold + 4);
	}
	buf_puts(err, "Read the file again and make the patch from its current text.");
	buf_release(&want);
}

static void
ap_ambiguous(const struct patch_file *pf, size_t hi, const char *rel, const struct ap_found *fd,
    long offset, struct buf *err)
{
	size_t k;

	ap_hunk_name(err, pf, hi, rel);
	buf_puts(err, " fits equally well at lines ");
	for (k = 0; k < fd->ncand; k++)
		buf_printf(err, "%s%ld", k == 0 ? "" : k + 1 == fd->ncand && fd->more == 0 ?
		    " and " : ", ", fd->cand[k] + 1);
	if (fd->more > 0)
		buf_printf(err, " and %zu more", fd->more);
	if (pf->hunks[hi].ranged && !pf->codex)
		buf_printf(err, " (the previous hunks' offset, %+ld, carried)", offset);
	buf_puts(err, "; nothing was written. Add context lines that occur in only one of "
	    "those places");
	buf_puts(err, pf->codex ? " (or an \"@@ line\" naming the function or block)." :
	    ", or correct the hunk's line numbers.");
}

/* The output of one file being patched. */
struct ap_out {
	struct buf	 b;
	bool		 open;		/* the last line has no end yet */
	size_t		 maj;
};

static const char *const ap_eols[] = { "", "\n", "\r\n" };

static int
ap_emit(struct ap_out *o, const char *p, size_t n, size_t eol)
{
	int rc = 0;

	if (o->open)
		rc |= buf_puts(&o->b, ap_eols[o->maj]);
	rc |= buf_append(&o->b, p, n);
	rc |= buf_puts(&o->b, ap_eols[eol]);
	o->open = eol == 0;
	return rc;
}

/* Lines a hunk leaves in the new text (context and added). */
static long
ap_hunk_new_lines(const struct patch_hunk *h)
{
	size_t i;
	long n = 0;

	for (i = 0; i < h->n; i++)
		n += h->lines[i].kind != '-';
	return n;
}

/*
 * Could the hunk's new text be told from its old one in a file?  It must
 * add a line that is not blank, or, removing only, keep context on both
 * sides of what it removes: else its new text is just some context line,
 * found anywhere.
 */
static bool
ap_hunk_recognizable(const struct patch_hunk *h)
{
	size_t i, j;
	bool before = false, after = false, removed = false;

	for (i = 0; i < h->n; i++) {
		const struct patch_line *pl = &h->lines[i];

		if (pl->kind == '+') {
			for (j = 0; j < pl->len; j++)
				if (pl->text[j] != ' ' && pl->text[j] != '\t' && pl->text[j] != '\r')
					return true;
		} else if (pl->kind == '-')
			removed = true;
		else if (removed)
			after = true;
		else
			before = true;
	}
	return removed && before && after;
}

/*
 * A hunk that does not match: is its new text there instead, in exactly
 * one place (GNU patch's "previously applied" check)?  Its first line, or
 * -1.
 */
static long
ap_find_applied(const struct patch_file *pf, const struct ap_text *t, const struct patch_hunk *h,
    long from, long expected, int top)
{
	struct patch_hunk rh = *h;
	struct ap_found fd;
	long hi_at = t->n - ap_hunk_new_lines(h), at = -1;
	size_t i;
	int level;

	if (!ap_hunk_recognizable(h) || hi_at < from)
		return -1;
	rh.lines = xreallocarray(NULL, h->n, sizeof(*rh.lines));
	for (i = 0; i < h->n; i++) {
		rh.lines[i] = h->lines[i];
		if (h->lines[i].kind != ' ')
			rh.lines[i].kind = h->lines[i].kind == '+' ? '-' : '+';
	}
	for (level = 0; level <= top; level++) {
		memset(&fd, 0, sizeof(fd));
		if (h->at_eof) {
			if (ap_matches_at(t, &rh, hi_at, level))
				ap_cand(&fd, hi_at);
		} else if (h->ranged && !pf->codex)
			ap_search_near(t, &rh, from, hi_at, expected, level, &fd);
		else
			ap_search_all(t, &rh, from, hi_at, level, h->nanchors > 0, &fd);
		if (fd.ncand > 0)
			break;
	}
	if (fd.ncand == 1)
		at = fd.cand[0];
	free(rh.lines);
	return at;
}

/*
 * Where hunk hi goes (its first old line); -1 with err written.  *applied:
 * the hunk's new text is there already, and the place is its first line.
 */
static long
ap_place(const struct patch_file *pf, const struct ap_text *t, size_t hi, const char *rel,
    long pos, long lo, long offset, bool prefer_applied, bool *applied, struct buf *notes,
    struct buf *err)
{
	const struct patch_hunk *h = &pf->hunks[hi];
	long nold = patch_hunk_old_lines(h), hi_at = t->n - nold, expected, from = lo, done;
	struct ap_found fd;
	size_t k;
	int level, top = pf->codex ? 2 : 1;

	memset(&fd, 0, sizeof(fd));
	for (k = 0; k < h->nanchors; k++) {
		size_t count;
		long after = ap_anchor(t, h->anchors[k], from, &count);

		if (after < 0) {
			ap_hunk_name(err, pf, hi, rel);
			buf_printf(err, ": its context line \"@@ %s\" is not in the file after "
			    "line %ld; nothing was written. Read the file again.", h->anchors[k],
			    from);
			return -1;
		}
		if (count > 1)
			buf_printf(notes, "%s: hunk %zu's context line \"@@ %s\" occurs %zu times "
			    "after line %ld; the first, line %ld, was taken (the format seeks "
			    "forward from the previous hunk)\n", rel, hi + 1, h->anchors[k], count,
			    from, after);
		from = after;
	}
	if (nold == 0) {
		if (h->ranged && !pf->codex) {
			expected = h->old_start + offset;
			return expected < pos ? pos : expected > t->n ? t->n : expected;
		}
		if (h->nanchors > 0)
			return from;
		if (pf->codex)
			return t->n;
		ap_hunk_name(err, pf, hi, rel);
		buf_puts(err, " only adds lines and has neither context lines nor line numbers, "
		    "so it cannot be placed; nothing was written");
		return -1;
	}
	expected = h->ranged && !pf->codex ? h->old_start - 1 + offset : from;
	if (prefer_applied && (done = ap_find_applied(pf, t, h, from, expected, top)) >= 0) {
		*applied = true;
		buf_printf(notes, "%s: hunk %zu is already applied (its new lines are at line "
		    "%ld); it was left as it is\n", rel, hi + 1, done + 1);
		return done;
	}
	for (level = 0; level <= top; level++) {
		memset(&fd, 0, sizeof(fd));
		if (h->at_eof) {
			if (hi_at >= from && ap_matches_at(t, h, hi_at, level))
				ap_cand(&fd, hi_at);
		} else if (h->ranged && !pf->codex)
			ap_search_near(t, h, from, hi_at, expected, level, &fd);
		else
			ap_search_all(t, h, from, hi_at, level, h->nanchors > 0, &fd);
		if (fd.ncand > 0)
			break;
	}
	if (fd.ncand == 0 && (done = ap_find_applied(pf, t, h, from, expected, top)) >= 0) {
		*applied = true;
		buf_printf(notes, "%s: hunk %zu is already applied (its new lines are at line "
		    "%ld); it was left as it is\n", rel, hi + 1, done + 1);
		return done;
	}
	if (fd.ncand == 0) {
		memset(&fd, 0, sizeof(fd));
		if (lo > 0)
			ap_search_all(t, h, 0, lo - 1 < hi_at ? lo - 1 : hi_at, 1, true, &fd);
		ap_mismatch(pf, t, hi, rel, expected, fd.ncand > 0 ? fd.cand[0] : -1, err);
		return -1;
	}
	if (fd.ncand > 1) {
		ap_ambiguous(pf, hi, rel, &fd, offset, err);
		return -1;
	}
	if (level > 0)
		buf_printf(notes, "%s: hunk %zu matched only when whitespace at line %s is "
		    "ignored\n", rel, hi + 1, level == 1 ? "ends" : "starts and ends");
	if (h->recovered > 0)
		buf_printf(notes, "%s: hunk %zu had %zu context line%s without the leading "
		    "space; read as context, as the hunk's counts and the file agree\n", rel,
		    hi + 1, h->recovered, h->recovered == 1 ? "" : "s");
	if (h->ranged && !pf->codex && fd.cand[0] != h->old_start - 1)
		buf_printf(notes, "%s: hunk %zu applied at offset %+ld (line %ld, not %ld)\n",
		    rel, hi + 1, fd.cand[0] - (h->old_start - 1), fd.cand[0] + 1, h->old_start);
	return fd.cand[0];
}

/* The line end of an added line: the patch's, or the file line's next to it. */
static size_t
ap_added_eol(const struct patch_file *pf, const struct patch_line *pl, const struct ap_text *t,
    long at, size_t last_old_eol)
{
	if (pl->noeol)
		return 0;
	if (pf->eol_exact)
		return pl->cr ? 2 : 1;
	if (last_old_eol > 0)
		return last_old_eol;
	if (at < t->n && t->l[at].eol > 0)
		return t->l[at].eol;
	if (at > 0 && at - 1 < t->n && t->l[at - 1].eol > 0)
		return t->l[at - 1].eol;
	return t->maj;
}

/* Apply pf's hunks to (text, len); the result is the caller's. */
static int
ap_apply_hunks(const struct patch_file *pf, const char *rel, const char *text, size_t len,
    char **res, size_t *reslen, bool prefer_applied, size_t *already, struct buf *notes,
    struct buf *err)
{
	struct ap_out o;
	struct ap_text t;
	long pos = 0, offset = 0, tail_first = 0, k;
	size_t hi, i, tail_off = 0;
	int rc = 0;

	ap_text_init(&t, text, len);
	memset(&o, 0, sizeof(o));
	buf_init(&o.b, FSUTIL_MAX_FILE);
	o.maj = t.maj;
	for (hi = 0; hi < pf->nh; hi++) {
		const struct patch_hunk *h = &pf->hunks[hi];
		bool applied = false;
		long at = ap_place(pf, &t, hi, rel, pos, tail_first, offset, prefer_applied,
		    &applied, notes, err);
		long start;
		size_t last_eol = 0;

		if (at < 0)
			goto fail;
		if (at < pos) {
			/* overlapping the previous hunk's trailing context: take it back */
			size_t off = tail_off;

			for (k = tail_first; k < at; k++)
				off += t.l[k].len + t.l[k].eol;
			buf_truncate(&o.b, off);
			o.open = false;
		} else {
			for (k = pos; k < at; k++)
				rc |= ap_emit(&o, t.l[k].p, t.l[k].len, t.l[k].eol);
		}
		if (applied) {
			/* the file keeps the hunk's new text: all of it is context now */
			long end = at + ap_hunk_new_lines(h);

			tail_first = at;
			tail_off = o.b.len;
			for (k = at; k < end; k++)
				rc |= ap_emit(&o, t.l[k].p, t.l[k].len, t.l[k].eol);
			if (h->ranged && !pf->codex)
				offset = end - (h->old_start - 1 + patch_hunk_old_lines(h));
			(*already)++;
			pos = end;
			continue;
		}
		start = at;
		if (h->ranged && !pf->codex)
			offset = patch_hunk_old_lines(h) > 0 ? start - (h->old_start - 1) :
			    start - h->old_start;
		tail_first = at;
		tail_off = o.b.len;
		for (i = 0; i < h->n; i++) {
			const struct patch_line *pl = &h->lines[i];

			if (pl->kind == '+') {
				rc |= ap_emit(&o, pl->text, pl->len,
				    ap_added_eol(pf, pl, &t, at, last_eol));
				tail_first = -1;
				continue;
			}
			if (pl->kind == ' ') {
				if (tail_first < 0) {
					tail_first = at;
					tail_off = o.b.len;
				}
				rc |= ap_emit(&o, t.l[at].p, t.l[at].len, t.l[at].eol);
			} else
				tail_first = -1;
			last_eol = t.l[at].eol;
			at++;
		}
		if (tail_first < 0) {
			tail_first = at;
			tail_off = o.b.len;
		}
		pos = at;
	}
	for (k = pos; k < t.n; k++)
		rc |= ap_emit(&o, t.l[k].p, t.l[k].len, t.l[k].eol);
	if (rc != 0) {
		buf_printf(err, "patching %s would make it larger than %zu MB; nothing was written",
		    rel, FSUTIL_MAX_FILE >> 20);
		goto fail;
	}
	free(t.l);
	if (o.b.data == NULL)
		buf_puts(&o.b, "");
	*res = buf_detach(&o.b, reslen);
	return 0;
fail:
	free(t.l);
	buf_release(&o.b);
	return -1;
}

/* A created file's text: the added lines of its hunks. */
static int
ap_new_text(const struct patch_file *pf, const char *rel, char **res, size_t *reslen,
    struct buf *err)
{
	struct ap_out o;
	size_t hi, i;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	buf_init(&o.b, FSUTIL_MAX_FILE);
	o.maj = 1;
	for (hi = 0; hi < pf->nh; hi++) {
		for (i = 0; i < pf->hunks[hi].n; i++) {
			const struct patch_line *pl = &pf->hunks[hi].lines[i];

			if (pl->kind != '+') {
				buf_printf(err, "hunk %zu creates %s but has context or removed lines; "
				    "every line of a new file starts with \"+\"", hi + 1, rel);
				buf_release(&o.b);
				return -1;
			}
			rc |= ap_emit(&o, pl->text, pl->len, pl->noeol ? 0 : pl->cr ? 2 : 1);
		}
	}
	if (rc != 0) {
		buf_printf(err, "%s would be larger than %zu MB", rel, FSUTIL_MAX_FILE >> 20);
		return -1;
	}
	if (o.b.data == NULL)
		buf_puts(&o.b, "");
	*res = buf_detach(&o.b, reslen);
	return 0;
}

/*
 * Sections.
 */

static bool
ap_is_link(unsigned mode)
{
	return (mode & PATCH_MODE_TYPE) == PATCH_MODE_LINK;
}

/* A symbolic link's target must stay inside the workspace. */
static int
ap_check_target(const struct ap *ap, const struct ap_vfile *v, const char *target, size_t len,
    struct buf *err)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(1024);
	const char *slash = strrchr(v->rel, '/');
	char *abs = NULL, *rel = NULL;
	int rc = -1;

	if (len == 0 || memchr(target, '\0', len) != NULL || memchr(target, '\n', len) != NULL) {
		buf_printf(err, "the symbolic link %s needs one line as its target", v->rel);
		goto out;
	}
	if (target[0] != '/' && slash != NULL)
		buf_append(&path, v->rel, (size_t)(slash - v->rel) + 1);
	buf_append(&path, target, len);
	if (sandbox_resolve(ap->env->root, buf_cstr(&path), false, &abs, &rel, &why) != 0) {
		buf_printf(err, "the symbolic link %s -> %.*s would lead outside the workspace; "
		    "apply_patch creates links only to files inside it", v->rel, (int)len, target);
		goto out;
	}
	rc = 0;
out:
	free(abs);
	free(rel);
	buf_release(&path);
	buf_release(&why);
	return rc;
}

/* Set v's content to (data, len), a file or (link) a symbolic link. */
static int
ap_set(struct ap *ap, struct ap_vfile *v, char *data, size_t len, bool link, struct buf *err)
{
	if (link && ap_check_target(ap, v, data, len, err) != 0) {
		free(data);
		return -1;
	}
	free(v->cur.data);
	v->cur.data = data;
	v->cur.len = len;
	v->cur.exists = true;
	v->cur.link = link;
	return 0;
}

static void
ap_summary_line(struct ap *ap, const struct patch_file *pf, const struct ap_vfile *src,
    const struct ap_vfile *dst)
{
	long added, removed;

	patch_file_counts(pf, &added, &removed);
	switch (pf->op) {
	case PATCH_ADD:
		buf_printf(&ap->summary, "\n  created %s", dst->rel);
		if (dst->cur.link)
			buf_printf(&ap->summary, " (a symbolic link to %s)", dst->cur.data);
		else
			buf_printf(&ap->summary, " (%ld lines)",
			    diff_count_lines(dst->cur.data, dst->cur.len));
		break;
	case PATCH_DELETE:
		buf_printf(&ap->summary, "\n  deleted %s (%ld lines)", src->rel,
		    src->orig.exists ? diff_count_lines(src->orig.data, src->orig.len) : 0L);
		break;
	case PATCH_MODIFY:
		buf_printf(&ap->summary, "\n  modified %s", dst->rel);
		if (pf->nh > 0)
			buf_printf(&ap->summary, " (+%ld -%ld)", added, removed);
		break;
	case PATCH_RENAME:
	case PATCH_COPY:
		buf_printf(&ap->summary, "\n  %s %s to %s (+%ld -%ld)",
		    pf->op == PATCH_RENAME ? "renamed" : "copied", src->rel, dst->rel, added,
		    removed);
		break;
	}
	if (pf->new_mode != 0 && !ap_is_link(pf->new_mode) && dst != NULL &&
	    (pf->op != PATCH_MODIFY || pf->old_mode != pf->new_mode))
		buf_printf(&ap->summary, ", mode %04o", pf->new_mode & 0777);
}

/*
 * An "index a..b 100644" line whose mode disagrees with the file's: git
 * apply and GNU patch keep the file's mode, and so does apply_patch; the
 * model hears of it, as its idea of the file may be wrong.
 */
static void
ap_index_mode_note(struct ap *ap, const struct patch_file *pf, const struct ap_vfile *dst)
{
	bool said_x = (pf->index_mode & 0100) != 0, is_x = (dst->cur.mode & 0100) != 0;

	if (pf->index_mode == 0 || ap_is_link(pf->index_mode) || said_x == is_x)
		return;
	buf_printf(&ap->notes, "%s: the patch's index line gives mode %06o, but the file's "
	    "mode is %04o; the mode was kept (only \"old mode\" / \"new mode\" lines change "
	    "a mode)\n", dst->rel, pf->index_mode, dst->cur.mode);
}

/* The file a plain diff patches: new_name, or alt_name when only it exists. */
static const char *
ap_plain_target(struct ap *ap, const struct patch_file *pf, struct buf *err)
{
	struct ap_vfile *v;

	if (pf->alt_name == NULL)
		return pf->new_name;
	v = ap_get(ap, pf->new_name, false, err);
	if (v == NULL)
		return NULL;
	if (v->cur.exists)
		return pf->new_name;
	v = ap_get(ap, pf->alt_name, false, err);
	if (v == NULL)
		return NULL;
	return v->cur.exists ? pf->alt_name : pf->new_name;
}

/* A plain diff of a missing file whose one hunk starts at -0,0 creates it. */
static bool
ap_creates(const struct patch_file *pf)
{
	return pf->op == PATCH_MODIFY && !pf->git && !pf->codex && pf->nh == 1 &&
	    pf->hunks[0].ranged && pf->hunks[0].old_start == 0 && pf->hunks[0].old_count == 0;
}

/* A created file that is there already, with exactly the patch's text. */
static bool
ap_add_done(const struct patch_file *pf, const struct ap_vfile *dst)
{
	struct buf err = BUF_INIT(4096);
	char *text = NULL;
	size_t len = 0;
	bool same;

	if (dst->cur.link || ap_is_link(pf->new_mode) ||
	    ap_new_text(pf, dst->rel, &text, &len, &err) != 0) {
		buf_release(&err);
		return false;
	}
	same = len == dst->cur.len && memcmp(text, dst->cur.data, len) == 0 && len > 0;
	free(text);
	buf_release(&err);
	return same;
}

static int
ap_section(struct ap *ap, const struct patch_file *pf, struct buf *err)
{
	unsigned om = pf->old_mode != 0 ? pf->old_mode : pf->index_mode;
	bool old_link = ap_is_link(om) || (om == 0 && ap_is_link(pf->new_mode));
	bool new_link = pf->new_mode != 0 ? ap_is_link(pf->new_mode) : old_link;
	struct ap_vfile *src = NULL, *dst = NULL;
	const struct ap_state *from;
	const char *name;
	char *res = NULL;
	size_t reslen = 0, partly = 0;

	if (pf->op == PATCH_ADD) {
		if ((dst = ap_get(ap, pf->new_name, new_link, err)) == NULL)
			return -1;
		if (dst->cur.exists && ap_add_done(pf, dst)) {
			buf_printf(&ap->summary, "\n  %s unchanged: it already exists with the "
			    "text the patch creates (already applied)", dst->rel);
			ap->nsect_done++;
			ap->already++;
			return 0;
		}
		if (dst->cur.exists) {
			buf_printf(err, "the patch creates %s, which already exists; patch it as a "
			    "change (--- a/%s) or use write_file", dst->rel, dst->rel);
			return -1;
		}
		if (ap_new_text(pf, dst->rel, &res, &reslen, err) != 0)
			return -1;
		if (ap_set(ap, dst, res, reslen, new_link, err) != 0)
			return -1;
		dst->cur.mode = pf->new_mode != 0 && !new_link ? pf->new_mode & 0777 : 0;
		ap_summary_line(ap, pf, NULL, dst);
		return 0;
	}
	name = pf->op == PATCH_MODIFY ? ap_plain_target(ap, pf, err) : pf->old_name;
	if (name == NULL || (src = ap_get_at(ap, name, old_link, pf->op == PATCH_MODIFY ||
	    pf->op == PATCH_COPY, err)) == NULL)
		return -1;
	if (!src->cur.exists && ap_creates(pf)) {
		/* "diff -N": a new file's "---" names it, with an epoch timestamp */
		if (ap_new_text(pf, src->rel, &res, &reslen, err) != 0 ||
		    ap_set(ap, src, res, reslen, false, err) != 0)
			return -1;
		buf_printf(&ap->summary, "\n  created %s (%ld lines)", src->rel,
		    diff_count_lines(src->cur.data, src->cur.len));
		return 0;
	}
	if (!src->cur.exists) {
		buf_printf(err, "%s does not exist%s", src->rel, src->orig.exists ? " any more "
		    "(an earlier section of the patch removed it)" : " (a patch that creates a "
		    "file uses \"--- /dev/null\")");
		return -1;
	}
	if (src->cur.link != old_link) {
		buf_printf(err, "%s is %s, but the patch changes it as %s", src->rel,
		    src->cur.link ? "a symbolic link" : "a file",
		    old_link ? "a symbolic link" : "a file");
		return -1;
	}
	from = &src->cur;
	if (pf->op == PATCH_COPY && src->orig.exists && src->orig.link == src->cur.link) {
		/* git copies the file as it was before the patch */
		from = &src->orig;
	}
	if (pf->nh > 0) {
		size_t before = ap->already;

		if (ap_apply_hunks(pf, src->rel, from->data, from->len, &res, &reslen,
		    ap->prefer_applied, &ap->already, &ap->notes, err) != 0)
			return -1;
		if (ap->already - before == pf->nh && pf->op == PATCH_MODIFY &&
		    pf->new_mode == 0) {
			buf_printf(&ap->summary, "\n  %s unchanged: all %zu hunk%s already "
			    "applied", src->rel, pf->nh, pf->nh == 1 ? " was" : "s were");
			ap->nsect_done++;
			free(res);
			return 0;
		}
		partly = ap->already - before;
	} else {
		res = xmemdup(from->data, from->len + 1);
		reslen = from->len;
	}
	if (pf->op == PATCH_DELETE) {
		/* git writes an empty file's deletion without hunks; Codex never has any */
		if (reslen != 0 && (pf->nh > 0 || !pf->codex)) {
			buf_printf(err, "the patch deletes %s, but its removed lines are not the "
			    "whole file (%ld lines would remain); nothing was written", src->rel,
			    diff_count_lines(res, reslen));
			free(res);
			return -1;
		}
		free(res);
		ap_state_release(&src->cur);
		src->cur.exists = false;
		ap_summary_line(ap, pf, src, NULL);
		return 0;
	}
	if (pf->op == PATCH_MODIFY)
		dst = src;
	else {
		unsigned mode = src->cur.mode;

		if ((dst = ap_get(ap, pf->new_name, new_link, err)) == NULL) {
			free(res);
			return -1;
		}
		if (dst == src || dst->cur.exists) {
			buf_printf(err, "the patch %s %s to %s, which already exists; nothing was "
			    "written", pf->op == PATCH_RENAME ? "renames" : "copies", src->rel,
			    dst->rel);
			free(res);
			return -1;
		}
		dst->cur.mode = new_link ? 0 : mode;
		if (pf->op == PATCH_RENAME) {
			ap_state_release(&src->cur);
			src->cur.exists = false;
		}
	}
	if (ap_set(ap, dst, res, reslen, new_link, err) != 0)
		return -1;
	if (pf->new_mode != 0 && !new_link)
		dst->cur.mode = pf->new_mode & 0777;
	else if (!new_link)
		ap_index_mode_note(ap, pf, dst);
	ap_summary_line(ap, pf, src, dst);
	if (partly > 0)
		buf_printf(&ap->summary, " (%zu of its %zu hunks %s already applied)", partly,
		    pf->nh, partly == 1 ? "was" : "were");
	return 0;
}

static int ap_plan_pass(const struct tool_env *, const cJSON *, bool, struct ap *,
    struct buf *);

/*
 * Parse and plan everything; nothing is written.  0 or -1 with err.  When
 * some hunk is there already, the patch (or part of it) was applied before:
 * then it is planned again with every hunk whose new text is there taken
 * as applied, even where its old text still fits too (an addition whose
 * context is left as it was), or that hunk would go in twice.
 */
static int
ap_plan(const struct tool_env *env, const cJSON *input, struct ap *ap, struct buf *err)
{
	int rc = ap_plan_pass(env, input, false, ap, err);

	if (rc != 0 || ap->already == 0)
		return rc;
	ap_release(ap);
	return ap_plan_pass(env, input, true, ap, err);
}

static int
ap_plan_pass(const struct tool_env *env, const cJSON *input, bool prefer_applied,
    struct ap *ap, struct buf *err)
{
	const char *text = json_str(input, "patch", NULL);
	size_t i;

	memset(ap, 0, sizeof(*ap));
	ap->prefer_applied = prefer_applied;
	ap->env = env;
	buf_init(&ap->notes, 64 * 1024);
	buf_init(&ap->summary, BUF_NOLIMIT);
	if (text == NULL || text[0] == '\0') {
		buf_puts(err, "apply_patch needs \"patch\": a unified diff (--- a/path, "
		    "+++ b/path, @@ hunks) or a \"*** Begin Patch\" envelope");
		return -1;
	}
	if (patch_parse(text, strlen(text), &ap->plan, err) != 0) {
		buf_puts(err, ". Nothing was written.");
		return -1;
	}
	for (i = 0; i < ap->plan.nf; i++)
		if (ap_section(ap, &ap->plan.files[i], err) != 0)
			return -1;
	return 0;
}

/*
 * Writing.
 */

/* Make the file on disk go from state a to state b. */
static int
ap_put(const struct tool_env *env, const char *snap, const struct ap_vfile *v,
    const struct ap_state *a, const struct ap_state *b, cJSON *files, struct buf *err)
{
	bool there = a->exists;
	struct sandbox sb;
	const char *slash;

	tool_sandbox(env, &sb);

	if (there && (!b->exists || a->link != b->link)) {
		if (a->link ? fsutil_unlink_link_in(&sb, v->abs, err) :
		    ap_replace(env, snap, v, a->data, a->len, NULL, 0, files, err))
			return -1;
		there = false;
	}
	if (!b->exists) {
		if (a->exists)
			(void)fsutil_rmdir_empty_in(&sb, v->abs);
		return 0;
	}
	if (!there && (slash = strrchr(v->abs, '/')) != NULL && slash != v->abs) {
		char *dir = xstrndup(v->abs, (size_t)(slash - v->abs));
		int rc = fsutil_mkdirs_in(&sb, dir, err);

		free(dir);
		if (rc != 0)
			return -1;
	}
	if (!there || a->len != b->len || memcmp(a->data, b->data, a->len) != 0) {
		if (b->link ? fsutil_symlink_in(&sb, v->abs, b->data, err) :
		    ap_replace(env, snap, v, there ? a->data : NULL, there ? a->len : 0,
		    b->data, b->len, files, err))
			return -1;
	}
	if (!b->link && b->mode != 0 && (!there || a->mode != b->mode) &&
	    fsutil_chmod_in(&sb, v->abs, b->mode, err) != 0)
		return -1;
	return 0;
}

/* Put v back as it was; the state it is in now is cur, or (failed) looked up. */
static int
ap_undo(const struct tool_env *env, const struct ap_vfile *v, bool failed, struct buf *err)
{
	struct ap_state gone;
	struct stat st;

	if (!failed)
		return ap_put(env, NULL, v, &v->cur, &v->orig, NULL, err);
	/* the file whose write failed: only a removal may have happened */
	memset(&gone, 0, sizeof(gone));
	if (v->orig.exists && lstat(v->abs, &st) == -1)
		return ap_put(env, NULL, v, &gone, &v->orig, NULL, err);
	return 0;
}

static int
ap_write(struct ap *ap, cJSON *files, struct buf *err)
{
	const struct tool_env *env = ap->env;
	size_t i, j, failed = 0;

	for (i = 0; i < ap->nv; i++) {
		if (ap_state_same(&ap->v[i].orig, &ap->v[i].cur))
			continue;
		if (ap_put(env, env->snap_dir, &ap->v[i], &ap->v[i].orig, &ap->v[i].cur, files,
		    err) == 0)
			continue;
		for (j = i + 1; j-- > 0;) {
			struct buf rerr = BUF_INIT(4096);

			if (!ap_state_same(&ap->v[j].orig, &ap->v[j].cur) &&
			    ap_undo(env, &ap->v[j], j == i, &rerr) != 0) {
				buf_printf(err, "\n%s could not be put back: %s", ap->v[j].rel,
				    buf_cstr(&rerr));
				failed++;
			}
			buf_release(&rerr);
		}
		if (failed == 0) {
			buf_puts(err, "\nThe files written before it were put back; nothing changed.");
			while (cJSON_GetArraySize(files) > 0)
				cJSON_DeleteItemFromArray(files, 0);
		}
		return -1;
	}
	return 0;
}

static size_t
ap_changed(const struct ap *ap)
{
	size_t i, n = 0;

	for (i = 0; i < ap->nv; i++)
		n += !ap_state_same(&ap->v[i].orig, &ap->v[i].cur);
	return n;
}

static void
ap_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct buf err = BUF_INIT(64 * 1024);
	struct ap ap;
	cJSON *files;
	size_t n;

	if (ap_plan(env, input, &ap, &err) != 0) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	out->meta = cJSON_CreateObject();
	files = cJSON_AddArrayToObject(out->meta, "files");
	if (ap_write(&ap, files, &err) != 0) {
		tool_out_error(out, "%s", buf_cstr(&err));
		if (cJSON_GetArraySize(files) == 0) {
			cJSON_Delete(out->meta);
			out->meta = NULL;
		}
		goto out;
	}
	buf_reset(&out->text);
	n = ap_changed(&ap);
	if (n == 0 && ap.nsect_done == ap.plan.nf)
		buf_puts(&out->text, "the patch is already applied: the files already hold its "
		    "new text, so nothing was written (check that this is what you meant; "
		    "read the file if unsure):");
	else
		buf_printf(&out->text, "applied the patch to %zu file%s:", n, n == 1 ? "" : "s");
	buf_append(&out->text, ap.summary.data, ap.summary.len);
	if (ap.notes.len > 0) {
		buf_puts(&out->text, "\n");
		buf_append(&out->text, ap.notes.data, ap.notes.len - 1);
	}
out:
	ap_release(&ap);
	buf_release(&err);
}

static void
ap_preview_file(const struct ap_vfile *v, struct buf *diff)
{
	struct buf err = BUF_INIT(4096), ol = BUF_INIT(BUF_NOLIMIT), nl = BUF_INIT(BUF_NOLIMIT);
	const char *a = v->orig.exists ? v->orig.data : "", *b = v->cur.exists ? v->cur.data : "";
	size_t alen = v->orig.exists ? v->orig.len : 0, blen = v->cur.exists ? v->cur.len : 0;
	struct diff *d;

	if (v->orig.exists)
		buf_printf(&ol, "a/%s", v->rel);
	else
		buf_puts(&ol, "/dev/null");
	if (v->cur.exists)
		buf_printf(&nl, "b/%s", v->rel);
	else
		buf_puts(&nl, "/dev/null");
	d = diff_compute(a, alen, b, blen, &err);
	if (d == NULL)
		buf_printf(diff, "--- %s\n+++ %s\n(%s)\n", buf_cstr(&ol), buf_cstr(&nl), buf_cstr(&err));
	else if (d->nhunks == 0)
		buf_printf(diff, "--- %s\n+++ %s\n(%s)\n", buf_cstr(&ol), buf_cstr(&nl),
		    !v->orig.exists ? "a new empty file" : !v->cur.exists ?
		    "an empty file deleted" : "no change to the text; the mode or link changes");
	else
		diff_format(d, buf_cstr(&ol), buf_cstr(&nl), diff);
	diff_free(d);
	buf_release(&err);
	buf_release(&ol);
	buf_release(&nl);
}

static int
ap_preview(const struct tool_env *env, const cJSON *input, struct buf *diff)
{
	struct buf err = BUF_INIT(64 * 1024);
	struct ap ap;
	size_t i;
	int rc = -1;

	if (ap_plan(env, input, &ap, &err) != 0) {
		buf_reset(diff);
		buf_puts(diff, buf_cstr(&err));
		goto out;
	}
	for (i = 0; i < ap.nv; i++)
		if (!ap_state_same(&ap.v[i].orig, &ap.v[i].cur))
			ap_preview_file(&ap.v[i], diff);
	if (ap_changed(&ap) == 0 && ap.nsect_done == ap.plan.nf)
		buf_puts(diff, "(the patch is already applied: nothing would change)\n");
	rc = 0;
out:
	ap_release(&ap);
	buf_release(&err);
	return rc;
}

const struct tool_def tool_apply_patch = {
	.name = "apply_patch",
	.description =
	    "Change one or more files in one step. A unified diff: per file \"--- "
	    "a/path\" and \"+++ b/path\" (\"--- /dev/null\" creates, \"+++ "
	    "/dev/null\" deletes), then hunks \"@@ -line,count +line,count @@\" "
	    "(counts must be right) of \" \" context, \"-\" removed and \"+\" added "
	    "lines; git's extended headers (rename, copy, mode, symlinks) work. Also "
	    "accepted: the \"*** Begin Patch\" envelope (*** Add File:, *** Update "
	    "File: with @@ context, *** Move to:, *** Delete File:, *** End Patch). "
	    "Give 3 context lines copied exactly. A hunk a few lines off still "
	    "applies (reported); one fitting two places is refused; one already "
	    "applied is left as is. If anything does not fit, nothing is written and "
	    "the error says what to fix. No binary files.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"patch\":{\"type\":\"string\","
	    "\"description\":\"A unified diff or a *** Begin Patch envelope\"}},"
	    "\"required\":[\"patch\"],\"additionalProperties\":false}",
	.cls = TOOL_WRITE,
	.run = ap_run,
	.preview = ap_preview,
};
