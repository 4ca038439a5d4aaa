/* .gitignore rules, the ignoring tree walk and glob matching: see ignore.h. */
#include "autoconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "ignore.h"
#include "utf8.h"
#include "xalloc.h"

/* A rule file larger than this is read only this far. */
#define IGNORE_FILE_MAX		(1024 * 1024)
/* Directory levels a walk holds open at once. */
#define IGNORE_WALK_DEPTH	128

enum ignore_kind {
	IGNORE_LITERAL,		/* no wildcard: compare bytes */
	IGNORE_SUFFIX,		/* "*" then a literal: compare the tail */
	IGNORE_GLOB		/* anything else: ignore_fnmatch */
};

struct ignore_pat {
	const char	*text;		/* inside the frame's text */
	size_t		 len;
	enum ignore_kind kind;
	/* IGNORE_GLOB: bytes any match must start and end with, to reject fast. */
	size_t		 head;
	size_t		 tail;
	bool		 negate;
	bool		 dir_only;
	bool		 basename;	/* no "/": matches the last component */
};

/* The rules of one directory's .gitignore (or of info/exclude). */
struct ignore_frame {
	char		*dir;		/* relative to the root; "" for the root */
	size_t		 dirlen;
	char		*text;		/* the file, patterns point into it */
	struct ignore_pat *pats;
	size_t		 npats;
};

struct ignore {
	char		*root;
	/* 0: info/exclude, 1: the root's .gitignore, then one per level. */
	struct ignore_frame *frames;
	size_t		 nframes;
	size_t		 cap;
	struct buf	 scratch;
};

/* glob matching */

static size_t
ignore_charlen(const char *s, const char *se)
{
	uint32_t cp;
	size_t n = utf8_decode(s, (size_t)(se - s), &cp);

	return n ? n : 1;
}

/* One code point at *pp (honouring a backslash escape), advancing *pp. */
static uint32_t
ignore_class_char(const char **pp, const char *pe)
{
	const char *p = *pp;
	uint32_t cp;
	size_t n;

	if (*p == '\\' && p + 1 < pe)
		p++;
	n = utf8_decode(p, (size_t)(pe - p), &cp);
	*pp = p + (n ? n : 1);
	return cp;
}

static const struct {
	const char	*name;
	int		(*fn)(int);
} ignore_classes[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
	{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
	{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
	{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
};

/* A "[:name:]" at p: 1 and *pp past it if c is in the class, 0 if not, -1 if no class. */
static int
ignore_posix_class(const char **pp, const char *pe, uint32_t c)
{
	const char *p = *pp + 2, *end;
	size_t i, n;

	for (end = p; end + 1 < pe && !(end[0] == ':' && end[1] == ']'); end++)
		;
	if (end + 1 >= pe)
		return -1;
	n = (size_t)(end - p);
	for (i = 0; i < sizeof ignore_classes / sizeof ignore_classes[0]; i++) {
		if (strlen(ignore_classes[i].name) == n &&
		    memcmp(ignore_classes[i].name, p, n) == 0) {
			*pp = end + 2;
			return c < 128 && ignore_classes[i].fn((int)c) ? 1 : 0;
		}
	}
	*pp = end + 2;
	return 0;
}

/*
 * Match the bracket expression at *pp against c.  Returns 1 (match), 0 (no
 * match) or -1 (unterminated: the "[" is an ordinary character); on 0 or 1
 * *pp is moved past the "]".
 */
static int
ignore_class(const char **pp, const char *pe, uint32_t c)
{
	const char *q = *pp + 1;
	bool negate = false, matched = false, first = true;

	if (q < pe && (*q == '!' || *q == '^')) {
		negate = true;
		q++;
	}
	while (q < pe && (*q != ']' || first)) {
		uint32_t lo, hi;

		first = false;
		if (*q == '[' && q + 1 < pe && q[1] == ':') {
			int r = ignore_posix_class(&q, pe, c);

			if (r == 1)
				matched = true;
			if (r != -1)
				continue;
		}
		lo = ignore_class_char(&q, pe);
		hi = lo;
		if (q + 1 < pe && *q == '-' && q[1] != ']') {
			q++;
			hi = ignore_class_char(&q, pe);
		}
		if (c >= lo && c <= hi)
			matched = true;
	}
	if (q >= pe)
		return -1;
	*pp = q + 1;
	return matched != negate;
}

/* One pattern character at *pp against s: the bytes of s it takes, 0 if none. */
static size_t
ignore_one(const char **pp, const char *pe, const char *s, const char *se)
{
	const char *p = *pp;
	size_t n = ignore_charlen(s, se);
	uint32_t c;

	switch (*p) {
	case '?':
		*pp = p + 1;
		return n;
	case '[':
		utf8_decode(s, (size_t)(se - s), &c);
		switch (ignore_class(pp, pe, c)) {
		case 1:
			return n;
		case 0:
			return 0;
		default:
			break;
		}
		break;
	case '\\':
		if (p + 1 < pe)
			p++;
		break;
	default:
		break;
	}
	*pp = p + 1;
	return *p == *s ? 1 : 0;
}

/* One path component against one pattern component (no "/" in either). */
static bool
ignore_segment(const char *p, const char *pe, const char *s, const char *se)
{
	const char *star_p = NULL, *star_s = NULL;

	while (s < se) {
		const char *np = p;
		size_t n;

		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			if (p == pe)
				return true;
			star_p = p;
			star_s = s;
			continue;
		}
		if (p < pe && (n = ignore_one(&np, pe, s, se)) > 0) {
			p = np;
			s += n;
			continue;
		}
		if (star_p == NULL)
			return false;
		star_s += ignore_charlen(star_s, se);
		p = star_p;
		s = star_s;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

static const char *
ignore_comp_end(const char *s, const char *se)
{
	const char *e = memchr(s, '/', (size_t)(se - s));

	return e ? e : se;
}

static bool
ignore_is_starstar(const char *p, const char *pe)
{
	return ignore_comp_end(p, pe) - p == 2 && p[0] == '*' && p[1] == '*';
}

/*
 * Components are matched like characters in a glob, "**" being the star:
 * on a mismatch only the latest "**" needs to take one more component,
 * which keeps the match linear in the number of components.
 */
bool
ignore_fnmatch(const char *pat, size_t patlen, const char *path, size_t pathlen)
{
	const char *p = pat, *pe = pat + patlen, *s = path, *se = path + pathlen;
	const char *star_p = NULL, *star_s = NULL;
	bool p_done = false, s_done = false;

	if (patlen == 0)
		return pathlen == 0;
	while (!s_done) {
		const char *pc, *sc = ignore_comp_end(s, se);

		if (!p_done && ignore_is_starstar(p, pe)) {
			while (!p_done && ignore_is_starstar(p, pe)) {
				pc = p + 2;
				if (pc == pe)
					return true;	/* a final "**": one or more */
				p = pc + 1;
			}
			star_p = p;
			star_s = s;
			continue;
		}
		if (!p_done) {
			pc = ignore_comp_end(p, pe);
			if (ignore_segment(p, pc, s, sc)) {
				p_done = pc == pe;
				p = p_done ? pc : pc + 1;
				s_done = sc == se;
				s = s_done ? sc : sc + 1;
				continue;
			}
		}
		if (star_p == NULL)
			return false;
		sc = ignore_comp_end(star_s, se);
		if (sc == se)
			return false;
		star_s = sc + 1;
		s = star_s;
		p = star_p;
		p_done = false;
	}
	return p_done;
}

/* brace expansion */

/* The "}" closing the "{" at open, or NULL. */
static const char *
ignore_brace_close(const char *open)
{
	const char *q;
	int depth = 0;

	for (q = open; *q != '\0'; q++) {
		if (*q == '\\' && q[1] != '\0')
			q++;
		else if (*q == '{')
			depth++;
		else if (*q == '}' && --depth == 0)
			return q;
	}
	return NULL;
}

struct ignore_blist {
	char	**v;
	size_t	  n;
	size_t	  max;
};

static int
ignore_brace_expand(const char *s, struct ignore_blist *l, struct buf *err)
{
	const char *open, *close, *alt, *q;
	int depth = 0;

	for (open = s; *open != '\0'; open++) {
		if (*open == '\\' && open[1] != '\0')
			open++;
		else if (*open == '{')
			break;
	}
	if (*open == '\0') {
		if (l->n >= l->max) {
			buf_printf(err, "the pattern has more than %zu {} alternatives", l->max);
			return -1;
		}
		l->v[l->n++] = xstrdup(s);
		return 0;
	}
	close = ignore_brace_close(open);
	if (close == NULL) {
		buf_printf(err, "unbalanced '{' in the pattern %s", s);
		return -1;
	}
	for (alt = q = open + 1; q <= close; q++) {
		if (*q == '\\' && q + 1 < close) {
			q++;
			continue;
		}
		if (*q == '{')
			depth++;
		else if (*q == '}' && depth > 0 && q != close)
			depth--;
		else if ((*q == ',' && depth == 0) || q == close) {
			struct buf one = BUF_INIT(BUF_NOLIMIT);
			int r;

			buf_append(&one, s, (size_t)(open - s));
			buf_append(&one, alt, (size_t)(q - alt));
			buf_puts(&one, close + 1);
			r = ignore_brace_expand(buf_cstr(&one), l, err);
			buf_release(&one);
			if (r == -1)
				return -1;
			alt = q + 1;
		}
	}
	return 0;
}

int
ignore_braces(const char *pat, size_t max, char ***out, struct buf *err)
{
	struct ignore_blist l;

	l.v = xcalloc(max + 1, sizeof *l.v);
	l.n = 0;
	l.max = max;
	if (ignore_brace_expand(pat, &l, err) == -1) {
		ignore_braces_free(l.v);
		*out = NULL;
		return -1;
	}
	*out = l.v;
	return (int)l.n;
}

void
ignore_braces_free(char **list)
{
	size_t i;

	if (list == NULL)
		return;
	for (i = 0; list[i] != NULL; i++)
		free(list[i]);
	free(list);
}

/* rule files */

static bool
ignore_has_wild(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

/*
 * The literal text before the first wildcard and after the last one: a
 * path must start and end with them to match.  A tail starting with "/"
 * is cut after it, since "**" + "/" may match nothing at all.
 */
static void
ignore_fixed_ends(struct ignore_pat *pat)
{
	const char *t = pat->text;
	size_t n = pat->len, i;

	for (i = 0; i < n && !ignore_has_wild(t + i, 1); i++)
		;
	pat->head = i;
	for (i = n; i > 0 && !ignore_has_wild(t + i - 1, 1) && t[i - 1] != ']'; i--)
		;
	if (i > 0 && i < n && t[i - 1] == '\\')
		i = n;		/* an escaped character ends the pattern: no tail */
	if (i < n && t[i] == '/')
		i++;
	pat->tail = n - i;
}

/* Parse one line (NUL-terminated, may be modified) into *pat; false to skip it. */
static bool
ignore_parse_line(char *line, size_t n, struct ignore_pat *pat)
{
	memset(pat, 0, sizeof *pat);
	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (n == 0 || line[0] == '#')
		return false;
	if (line[0] == '!') {
		pat->negate = true;
		line++;
		n--;
	}
	/* Trailing spaces go unless escaped with a backslash. */
	while (n > 0 && line[n - 1] == ' ' && !(n > 1 && line[n - 2] == '\\'))
		n--;
	if (n > 0 && line[n - 1] == '/') {
		pat->dir_only = true;
		n--;
	}
	pat->basename = memchr(line, '/', n) == NULL;
	if (n > 0 && line[0] == '/') {
		line++;
		n--;
	}
	if (n == 0)
		return false;
	line[n] = '\0';
	pat->text = line;
	pat->len = n;
	if (!ignore_has_wild(line, n))
		pat->kind = IGNORE_LITERAL;
	else if (pat->basename && line[0] == '*' && !ignore_has_wild(line + 1, n - 1))
		pat->kind = IGNORE_SUFFIX;
	else {
		pat->kind = IGNORE_GLOB;
		ignore_fixed_ends(pat);
	}
	return true;
}

/* Read a rule file (at most IGNORE_FILE_MAX bytes); NULL if there is none. */
static char *
ignore_read(const char *path, size_t *lenp)
{
	struct stat st;
	char *text;
	size_t len = 0, want;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return NULL;
	}
	want = st.st_size > IGNORE_FILE_MAX ? IGNORE_FILE_MAX : (size_t)st.st_size;
	text = xmalloc(want + 1);
	while (len < want && (r = read(fd, text + len, want - len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			break;
		len += (size_t)r;
	}
	close(fd);
	text[len] = '\0';
	*lenp = len;
	return text;
}

static void
ignore_load(struct ignore_frame *f, const char *file)
{
	size_t len, cap = 0;
	char *line, *end, *nl;

	f->text = ignore_read(file, &len);
	if (f->text == NULL)
		return;
	for (line = f->text, end = f->text + len; line < end; line = nl + 1) {
		struct ignore_pat pat;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		*nl = '\0';
		if (!ignore_parse_line(line, (size_t)(nl - line), &pat))
			continue;
		if (f->npats == cap) {
			cap = cap ? cap * 2 : 16;
			f->pats = xreallocarray(f->pats, cap, sizeof *f->pats);
		}
		f->pats[f->npats++] = pat;
	}
}

static struct ignore_frame *
ignore_push(struct ignore *ig, const char *dir, size_t dirlen, const char *file)
{
	struct ignore_frame *f;

	if (ig->nframes == ig->cap) {
		ig->cap = ig->cap ? ig->cap * 2 : 16;
		ig->frames = xreallocarray(ig->frames, ig->cap, sizeof *ig->frames);
	}
	f = &ig->frames[ig->nframes++];
	memset(f, 0, sizeof *f);
	f->dir = xmemdup(dir, dirlen);
	f->dirlen = dirlen;
	ignore_load(f, file);
	return f;
}

static void
ignore_pop(struct ignore *ig)
{
	struct ignore_frame *f = &ig->frames[--ig->nframes];

	free(f->dir);
	free(f->text);
	free(f->pats);
}

static const char *
ignore_file_path(struct ignore *ig, const char *dir, size_t dirlen, const char *name)
{
	buf_reset(&ig->scratch);
	buf_puts(&ig->scratch, ig->root);
	if (dirlen > 0) {
		buf_putc(&ig->scratch, '/');
		buf_append(&ig->scratch, dir, dirlen);
	}
	buf_putc(&ig->scratch, '/');
	buf_puts(&ig->scratch, name);
	return buf_cstr(&ig->scratch);
}

struct ignore *
ignore_new(const char *root)
{
	struct ignore *ig = xcalloc(1, sizeof *ig);

	ig->root = xstrdup(root);
	buf_init(&ig->scratch, BUF_NOLIMIT);
	ignore_push(ig, "", 0, ignore_file_path(ig, "", 0, ".git/info/exclude"));
	ignore_push(ig, "", 0, ignore_file_path(ig, "", 0, ".gitignore"));
	return ig;
}

void
ignore_free(struct ignore *ig)
{
	if (ig == NULL)
		return;
	while (ig->nframes > 0)
		ignore_pop(ig);
	free(ig->frames);
	buf_release(&ig->scratch);
	free(ig->root);
	free(ig);
}

/* Make the frame stack hold the rules of dir and of each of its parents. */
static void
ignore_enter(struct ignore *ig, const char *dir, size_t dirlen)
{
	struct ignore_frame *top;

	for (;;) {
		top = &ig->frames[ig->nframes - 1];
		if (top->dirlen == 0 || (top->dirlen <= dirlen &&
		    memcmp(top->dir, dir, top->dirlen) == 0 &&
		    (top->dirlen == dirlen || dir[top->dirlen] == '/')))
			break;
		ignore_pop(ig);
	}
	while (top->dirlen != dirlen) {
		size_t start = top->dirlen ? top->dirlen + 1 : 0, end;
		/* An empty component ("a//b", "/a") is one step too, or this never ends. */
		size_t skip = start < dirlen && dir[start] == '/';
		const char *slash = memchr(dir + start + skip, '/', dirlen - start - skip);

		end = slash ? (size_t)(slash - dir) : dirlen;
		top = ignore_push(ig, dir, end,
		    ignore_file_path(ig, dir, end, ".gitignore"));
	}
}

static bool
ignore_pat_match(const struct ignore_pat *pat, const char *s, size_t n)
{
	switch (pat->kind) {
	case IGNORE_LITERAL:
		return n == pat->len && memcmp(s, pat->text, n) == 0;
	case IGNORE_SUFFIX:
		return n >= pat->len - 1 &&
		    memcmp(s + n - (pat->len - 1), pat->text + 1, pat->len - 1) == 0;
	default:
		if (n < pat->head + pat->tail ||
		    memcmp(s, pat->text, pat->head) != 0 ||
		    memcmp(s + n - pat->tail, pat->text + pat->len - pat->tail, pat->tail) != 0)
			return false;
		return ignore_fnmatch(pat->text, pat->len, s, n);
	}
}

bool
ignore_match(struct ignore *ig, const char *relpath, bool is_dir)
{
	size_t len = strlen(relpath), i, f;
	const char *name = relpath + len;

	while (name > relpath && name[-1] != '/')
		name--;
	if (strcmp(name, ".git") == 0)
		return true;
	ignore_enter(ig, relpath, name > relpath ? (size_t)(name - relpath - 1) : 0);
	for (f = ig->nframes; f-- > 0;) {
		const struct ignore_frame *fr = &ig->frames[f];
		const char *sub = relpath + (fr->dirlen ? fr->dirlen + 1 : 0);
		size_t sublen = len - (size_t)(sub - relpath);

		for (i = fr->npats; i-- > 0;) {
			const struct ignore_pat *pat = &fr->pats[i];

			if (pat->dir_only && !is_dir)
				continue;
			if (pat->basename ?
			    ignore_pat_match(pat, name, (size_t)(relpath + len - name)) :
			    ignore_pat_match(pat, sub, sublen))
				return !pat->negate;
		}
	}
	return false;
}

/* the walk */

struct ignore_dent {
	size_t		 off;		/* of the name in the name arena */
	const char	*name;		/* set from off just before sorting */
	unsigned char	 type;		/* a DT_* value */
};

struct ignore_walker {
	struct ignore	*ig;
	int		 max_depth;
	enum ignore_visit (*visit)(void *, const struct ignore_entry *);
	void		*arg;
	struct ignore_walk_stats *st;
	struct buf	 path;
	/* Entries of every open level, stacked, so nothing is allocated per file. */
	char		*names;
	size_t		 nlen, ncap;
	struct ignore_dent *ents;
	size_t		 nents, ecap;
	bool		 stop;
};

static int
ignore_dent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ignore_dent *)a)->name,
	    ((const struct ignore_dent *)b)->name);
}

static void
ignore_walk_add(struct ignore_walker *w, const struct dirent *de)
{
	size_t n = strlen(de->d_name) + 1;

	if (w->nlen + n > w->ncap) {
		while (w->nlen + n > w->ncap)
			w->ncap = w->ncap ? w->ncap * 2 : 4096;
		w->names = xrealloc(w->names, w->ncap);
	}
	if (w->nents == w->ecap) {
		w->ecap = w->ecap ? w->ecap * 2 : 256;
		w->ents = xreallocarray(w->ents, w->ecap, sizeof *w->ents);
	}
	memcpy(w->names + w->nlen, de->d_name, n);
	w->ents[w->nents].off = w->nlen;
	w->ents[w->nents].type = de->d_type;
	w->nents++;
	w->nlen += n;
}

static enum ignore_type
ignore_type_of(int dfd, const char *name, unsigned char dtype)
{
	struct stat st;

	if (dtype == DT_UNKNOWN) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return IGNORE_OTHER;
		dtype = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR :
		    S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
	}
	switch (dtype) {
	case DT_REG:
		return IGNORE_FILE;
	case DT_DIR:
		return IGNORE_DIR;
	case DT_LNK:
		return IGNORE_LINK;
	default:
		return IGNORE_OTHER;
	}
}

static void ignore_walk_dir(struct ignore_walker *, int, int);

/* One entry of a directory: filter, visit, descend. */
static void
ignore_walk_entry(struct ignore_walker *w, DIR *d, size_t i, int depth)
{
	size_t mark = w->path.len;
	const char *name = w->names + w->ents[i].off;
	struct ignore_entry e;
	enum ignore_visit r;
	int fd;

	if (mark > 0)
		buf_putc(&w->path, '/');
	buf_puts(&w->path, name);
	e.path = w->path.data;
	e.pathlen = w->path.len;
	e.name = e.path + e.pathlen - strlen(name);
	e.dirfd = dirfd(d);
	e.type = ignore_type_of(e.dirfd, name, w->ents[i].type);
	e.depth = depth;
	if (strcmp(name, ".git") == 0 ||
	    (w->ig != NULL && ignore_match(w->ig, e.path, e.type == IGNORE_DIR))) {
		w->st->hidden++;
		goto out;
	}
	r = w->visit(w->arg, &e);
	if (r == IGNORE_STOP) {
		w->stop = true;
		goto out;
	}
	if (e.type != IGNORE_DIR || r == IGNORE_SKIP ||
	    (w->max_depth > 0 && depth >= w->max_depth))
		goto out;
	if (depth >= IGNORE_WALK_DEPTH) {
		w->st->too_deep++;
		goto out;
	}
	fd = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		w->st->unreadable++;
	else
		ignore_walk_dir(w, fd, depth + 1);
out:
	buf_truncate(&w->path, mark);
}

/* Walk the directory open on fd (taking it), whose path is w->path. */
static void
ignore_walk_dir(struct ignore_walker *w, int fd, int depth)
{
	size_t first = w->nents, mark = w->nlen, i;
	struct dirent *de;
	DIR *d;

	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		w->st->unreadable++;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		ignore_walk_add(w, de);
	}
	/* The arena may move while it fills, so names are pointed at only now. */
	for (i = first; i < w->nents; i++)
		w->ents[i].name = w->names + w->ents[i].off;
	if (w->nents - first > 1)
		qsort(w->ents + first, w->nents - first, sizeof *w->ents, ignore_dent_cmp);
	for (i = first; i < w->nents && !w->stop; i++)
		ignore_walk_entry(w, d, i, depth);
	closedir(d);
	w->nents = first;
	w->nlen = mark;
}

int
ignore_walk(struct ignore *ig, const char *root, const char *start, int max_depth,
    enum ignore_visit (*visit)(void *, const struct ignore_entry *), void *arg,
    struct ignore_walk_stats *stats, struct buf *err)
{
	struct ignore_walker w;
	struct ignore_walk_stats local;
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	int fd;

	if (strcmp(start, ".") == 0)
		start = "";
	buf_puts(&dir, root);
	if (start[0] != '\0') {
		buf_putc(&dir, '/');
		buf_puts(&dir, start);
	}
	fd = open(buf_cstr(&dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		buf_printf(err, "cannot open the directory %s: %s",
		    start[0] ? start : ".", strerror(errno));
		buf_release(&dir);
		return -1;
	}
	buf_release(&dir);
	memset(&w, 0, sizeof w);
	memset(&local, 0, sizeof local);
	w.ig = ig;
	w.max_depth = max_depth;
	w.visit = visit;
	w.arg = arg;
	w.st = stats ? stats : &local;
	buf_init(&w.path, BUF_NOLIMIT);
	buf_puts(&w.path, start);
	ignore_walk_dir(&w, fd, 1);
	buf_release(&w.path);
	free(w.names);
	free(w.ents);
	return 0;
}
