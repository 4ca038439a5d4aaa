/* .gitignore rules, the ignoring tree walk and glob matching: see ignore.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "gitconfig.h"
#include "gitindex.h"
#include "ignore.h"
#include "pathglob.h"
#include "xalloc.h"

/* A rule file larger than this is read only this far. */
#define IGNORE_FILE_MAX		(1024 * 1024)

enum ignore_kind {
	IGNORE_LITERAL,		/* no wildcard: compare bytes */
	IGNORE_SUFFIX,		/* "*" then a literal: compare the tail */
	IGNORE_GLOB		/* anything else: pathglob's gitignore mode */
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
	char		*dir;		/* relative to the top; "" for the top */
	size_t		 dirlen;
	char		*text;		/* the file, patterns point into it */
	struct ignore_pat *pats;
	size_t		 npats;
};

struct ignore {
	char		*root;
	char		*top;		/* the repository's top, or the root */
	char		*prefix;	/* the root relative to top: "" or "pkg/a" */
	char		*gitdir;	/* NULL outside a repository */
	char		*commondir;	/* where info/exclude is: gitdir or its commondir */
	char		*excludes;	/* the excludes file in use, if any */
	/*
	 * 0: the excludes file, 1: info/exclude, 2: the top's .gitignore,
	 * then one per level down to the root (together the nbase frames
	 * that stay), then one per level below the root as matching goes.
	 */
	struct ignore_frame *frames;
	size_t		 nframes;
	size_t		 nbase;
	size_t		 cap;
	struct buf	 scratch;
	struct buf	 full;		/* a path relative to the top */
	struct buf	 note;
	/* What git tracks: shown whatever the rules say.  NULL: no index. */
	struct gitindex	*index;
	/*
	 * Directories the rules ignore but shown for the tracked files below
	 * them (relative to the top; a set, open addressing): what else is
	 * below them stays hidden, as git does not look into them.
	 */
	char		**forced;
	size_t		 nforced, forced_cap;
};

/* rule files */

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

	for (i = 0; i < n && !pathglob_has_wild(t + i, 1); i++)
		;
	pat->head = i;
	for (i = n; i > 0 && !pathglob_has_wild(t + i - 1, 1) && t[i - 1] != ']'; i--)
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
	if (!pathglob_has_wild(line, n))
		pat->kind = IGNORE_LITERAL;
	else if (pat->basename && line[0] == '*' && !pathglob_has_wild(line + 1, n - 1))
		pat->kind = IGNORE_SUFFIX;
	else {
		pat->kind = IGNORE_GLOB;
		ignore_fixed_ends(pat);
	}
	return true;
}

/* Read a rule file (at most IGNORE_FILE_MAX bytes); NULL if there is none. */
static char *
ignore_read(const char *path, int flags, size_t *lenp)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;

	if (file_read(path, IGNORE_FILE_MAX, FILE_REGULAR | FILE_TRUNCATE |
	    ((flags & O_NOFOLLOW) ? FILE_NOFOLLOW : 0), &text, &st) == -1 &&
	    st.fail != FILE_READ)
		st.size = 0;
	if (st.size <= 0) {
		buf_release(&text);
		return NULL;
	}
	return buf_detach(&text, lenp);
}

static void
ignore_load(struct ignore_frame *f, const char *file, int flags)
{
	size_t len, cap = 0;
	char *line, *end, *nl;

	f->text = ignore_read(file, flags, &len);
	if (f->text == NULL)
		return;
	line = f->text;
	end = f->text + len;
	if (len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0)
		line += 3;	/* git skips a UTF-8 byte order mark */
	for (; line < end; line = nl + 1) {
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

/*
 * Push the rules of file for dir.  A .gitignore in the tree that is a
 * symbolic link is not read (flags O_NOFOLLOW), as git does not read it.
 */
static struct ignore_frame *
ignore_push(struct ignore *ig, const char *dir, size_t dirlen, const char *file, int flags)
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
	ignore_load(f, file, flags);
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

/* The path of the file name in dir (relative to the top), in scratch. */
static const char *
ignore_file_path(struct ignore *ig, const char *dir, size_t dirlen, const char *name)
{
	buf_reset(&ig->scratch);
	buf_puts(&ig->scratch, ig->top);
	if (dirlen > 0) {
		buf_putc(&ig->scratch, '/');
		buf_append(&ig->scratch, dir, dirlen);
	}
	buf_putc(&ig->scratch, '/');
	buf_puts(&ig->scratch, name);
	return buf_cstr(&ig->scratch);
}

static char *
ignore_join(const char *dir, const char *name)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (name[0] != '/') {
		buf_puts(&b, dir);
		if (b.len == 0 || b.data[b.len - 1] != '/')
			buf_putc(&b, '/');
	}
	buf_puts(&b, name);
	return buf_detach(&b, NULL);
}

/* The first line of a small file, without its line ending; NULL if none. */
static char *
ignore_first_line(const char *path)
{
	size_t len, n;
	char *text = ignore_read(path, 0, &len);

	if (text == NULL)
		return NULL;
	n = strcspn(text, "\r\n");
	while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--;
	text[n] = '\0';
	return text;
}

static bool
ignore_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The git directory that dir/.git names: dir/.git itself, or the
 * "gitdir: " line of a .git file (a linked worktree, a submodule).
 * Returns 1 with *gitdir set, 0 if dir has no .git, -1 if its .git is
 * neither (then the search stops there, as git's does).
 */
static int
ignore_gitdir_of(const char *dir, char **gitdir)
{
	char *dotgit = ignore_join(dir, ".git"), *line;
	struct stat st;
	int r = 0;

	*gitdir = NULL;
	if (lstat(dotgit, &st) == -1)
		goto out;
	r = -1;
	if (S_ISDIR(st.st_mode) || (S_ISLNK(st.st_mode) && ignore_is_dir(dotgit))) {
		*gitdir = dotgit;
		return 1;
	}
	if (!S_ISREG(st.st_mode) || (line = ignore_first_line(dotgit)) == NULL)
		goto out;
	if (strncmp(line, "gitdir:", 7) == 0) {
		const char *p = line + 7;

		p += strspn(p, " \t");
		if (*p != '\0') {
			*gitdir = ignore_join(dir, p);
			if (ignore_is_dir(*gitdir))
				r = 1;
			else {
				free(*gitdir);
				*gitdir = NULL;
			}
		}
	}
	free(line);
out:
	free(dotgit);
	return r;
}

/*
 * Find the repository holding the root: the nearest directory at or above
 * it with a .git.  Without one, the root stands for the top.
 */
static void
ignore_find_repo(struct ignore *ig)
{
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	char *common, *path;
	int r;

	buf_puts(&dir, ig->root);
	for (;;) {
		r = ignore_gitdir_of(dir.len ? buf_cstr(&dir) : "/", &ig->gitdir);
		if (r != 0 || dir.len == 0)
			break;
		while (dir.len > 0 && dir.data[dir.len - 1] != '/')
			dir.len--;
		if (dir.len > 0)
			dir.len--;
		dir.data[dir.len] = '\0';
	}
	if (r == 0) {
		ig->top = xstrdup(ig->root);
		ig->prefix = xstrdup("");
		buf_release(&dir);
		return;
	}
	ig->top = xstrdup(dir.len ? buf_cstr(&dir) : "/");
	ig->prefix = xstrdup(ig->root + dir.len + (ig->root[dir.len] == '/'));
	buf_release(&dir);
	if (ig->gitdir == NULL)
		return;
	/* A linked worktree keeps info/ and config in the common directory. */
	path = ignore_join(ig->gitdir, "commondir");
	common = ignore_first_line(path);
	free(path);
	ig->commondir = common != NULL && common[0] != '\0' ?
	    ignore_join(ig->gitdir, common) : xstrdup(ig->gitdir);
	free(common);
}
/* An environment variable, NULL when unset or empty. */
static const char *
ignore_env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/*
 * The user's excludes file, as git finds it: core.excludesFile from the
 * system, XDG, ~/.gitconfig (or $GIT_CONFIG_GLOBAL instead of those two)
 * and repository configuration (the last one set wins), else
 * $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore.
 * A configuration file git would refuse leaves a note and is passed over.
 */
static char *
ignore_excludes_file(struct ignore *ig)
{
	const char *home = ignore_env("HOME"), *xdg = ignore_env("XDG_CONFIG_HOME");
	char *files[4] = { NULL, NULL, NULL, NULL }, *best = NULL, *v, *path;
	struct buf err = BUF_INIT(4096);
	size_t i, n = 0;

	if (ignore_env("GIT_CONFIG_NOSYSTEM") == NULL)
		files[n++] = xstrdup("/etc/gitconfig");
	if (ignore_env("GIT_CONFIG_GLOBAL") != NULL)
		files[n++] = xstrdup(ignore_env("GIT_CONFIG_GLOBAL"));
	else {
		if (xdg != NULL)
			files[n++] = ignore_join(xdg, "git/config");
		else if (home != NULL)
			files[n++] = ignore_join(home, ".config/git/config");
		if (home != NULL)
			files[n++] = ignore_join(home, ".gitconfig");
	}
	if (ig->commondir != NULL)
		files[n++] = ignore_join(ig->commondir, "config");
	for (i = 0; i < n; i++) {
		buf_reset(&err);
		switch (gitconfig_get_file(files[i], "core.excludesFile", &v, &err)) {
		case 1:
			free(best);
			best = v;
			break;
		case -1:
			buf_printf(&ig->note, "%s; its core.excludesFile is not used\n",
			    buf_cstr(&err));
			break;
		default:
			break;
		}
		free(files[i]);
	}
	buf_release(&err);
	if (best != NULL) {
		v = gitconfig_path(best, home);
		free(best);
		if (v == NULL)
			return NULL;
		path = ignore_join(ig->top, v);	/* git resolves it from the top */
		free(v);
		return path;
	}
	if (xdg != NULL)
		return ignore_join(xdg, "git/ignore");
	return home != NULL ? ignore_join(home, ".config/git/ignore") : NULL;
}

/*
 * The repository's index, read here rather than by a git child: in a
 * repository the model may have written, git would obey its config.  An
 * index that cannot be used leaves a note; the rules then apply alone.
 */
static void
ignore_load_index(struct ignore *ig)
{
	struct buf err = BUF_INIT(4096);
	char *path, *format = NULL;
	size_t hashlen = 20;

	if (ig->gitdir == NULL)
		return;
	path = ignore_join(ig->commondir, "config");
	if (gitconfig_get_file(path, "extensions.objectFormat", &format, &err) == 1 &&
	    strcasecmp(format, "sha256") == 0)
		hashlen = 32;
	free(format);
	free(path);
	buf_reset(&err);
	ig->index = gitindex_read(ig->gitdir, hashlen, &err);
	if (ig->index == NULL && err.len > 0)
		buf_printf(&ig->note, "git's index is not used (%s): files git tracks under an "
		    "ignore rule may be left out\n", buf_cstr(&err));
	buf_release(&err);
}

struct ignore *
ignore_new(const char *root)
{
	struct ignore *ig = xcalloc(1, sizeof *ig);
	const char *p;
	char *exclude;
	size_t n;

	ig->root = xstrdup(root);
	buf_init(&ig->scratch, BUF_NOLIMIT);
	buf_init(&ig->full, BUF_NOLIMIT);
	buf_init(&ig->note, 4096);
	ignore_find_repo(ig);
	ignore_load_index(ig);
	ig->excludes = ignore_excludes_file(ig);
	ignore_push(ig, "", 0, ig->excludes != NULL ? ig->excludes : "", 0);
	if (ig->commondir != NULL) {
		exclude = ignore_join(ig->commondir, "info/exclude");
		ignore_push(ig, "", 0, exclude, 0);
		free(exclude);
	} else
		ignore_push(ig, "", 0, "", 0);	/* no repository, no info/exclude */
	ignore_push(ig, "", 0, ignore_file_path(ig, "", 0, ".gitignore"), O_NOFOLLOW);
	/* The .gitignore of every directory from the top down to the root. */
	for (p = ig->prefix; *p != '\0'; p++) {
		if (p[1] != '/' && p[1] != '\0')
			continue;
		n = (size_t)(p + 1 - ig->prefix);
		ignore_push(ig, ig->prefix, n,
		    ignore_file_path(ig, ig->prefix, n, ".gitignore"), O_NOFOLLOW);
	}
	ig->nbase = ig->nframes;
	return ig;
}

const char *
ignore_top(const struct ignore *ig)
{
	return ig->top;
}

const char *
ignore_excludes(const struct ignore *ig)
{
	return ig->excludes;
}

const char *
ignore_note(const struct ignore *ig)
{
	return ig->note.len > 0 ? buf_cstr(&ig->note) : NULL;
}

void
ignore_free(struct ignore *ig)
{
	size_t i;

	if (ig == NULL)
		return;
	while (ig->nframes > 0)
		ignore_pop(ig);
	free(ig->frames);
	buf_release(&ig->scratch);
	buf_release(&ig->full);
	buf_release(&ig->note);
	free(ig->root);
	free(ig->top);
	free(ig->prefix);
	free(ig->gitdir);
	free(ig->commondir);
	free(ig->excludes);
	gitindex_free(ig->index);
	for (i = 0; i < ig->forced_cap; i++)
		free(ig->forced[i]);
	free(ig->forced);
	free(ig);
}

/*
 * Make the frame stack hold the rules of dir (relative to the top, below
 * the root) and of each of its parents.
 */
static void
ignore_enter(struct ignore *ig, const char *dir, size_t dirlen)
{
	struct ignore_frame *top;

	for (;;) {
		top = &ig->frames[ig->nframes - 1];
		if (ig->nframes <= ig->nbase || (top->dirlen <= dirlen &&
		    memcmp(top->dir, dir, top->dirlen) == 0 &&
		    (top->dirlen == dirlen || dir[top->dirlen] == '/')))
			break;
		ignore_pop(ig);
	}
	while (top->dirlen < dirlen) {
		size_t start = top->dirlen ? top->dirlen + 1 : 0, end;
		/* An empty component ("a//b", "/a") is one step too, or this never ends. */
		size_t skip = start < dirlen && dir[start] == '/';
		const char *slash = memchr(dir + start + skip, '/', dirlen - start - skip);

		end = slash ? (size_t)(slash - dir) : dirlen;
		top = ignore_push(ig, dir, end,
		    ignore_file_path(ig, dir, end, ".gitignore"), O_NOFOLLOW);
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
		return pathglob_match(PATHGLOB_GITIGNORE, pat->text, pat->len, s, n);
	}
}

static size_t
ignore_forced_hash(const char *p, size_t n)
{
	size_t h = 2166136261u, i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h;
}

/* The slot of p[0..n) in the set of forced directories, or the empty one for it. */
static size_t
ignore_forced_slot(const struct ignore *ig, const char *p, size_t n)
{
	size_t k = ignore_forced_hash(p, n) & (ig->forced_cap - 1);

	while (ig->forced[k] != NULL &&
	    (strncmp(ig->forced[k], p, n) != 0 || ig->forced[k][n] != '\0'))
		k = (k + 1) & (ig->forced_cap - 1);
	return k;
}

static void
ignore_force(struct ignore *ig, const char *p, size_t n)
{
	size_t k;

	if ((ig->nforced + 1) * 2 > ig->forced_cap) {
		char **old = ig->forced;
		size_t i, oldcap = ig->forced_cap;

		ig->forced_cap = oldcap ? oldcap * 2 : 64;
		ig->forced = xcalloc(ig->forced_cap, sizeof(*ig->forced));
		for (i = 0; i < oldcap; i++)
			if (old[i] != NULL)
				ig->forced[ignore_forced_slot(ig, old[i], strlen(old[i]))] = old[i];
		free(old);
	}
	k = ignore_forced_slot(ig, p, n);
	if (ig->forced[k] == NULL) {
		ig->forced[k] = xmemdup(p, n);
		ig->nforced++;
	}
}

/* Is a parent directory of relpath (up to name) one of the forced ones? */
static bool
ignore_in_forced(const struct ignore *ig, const char *relpath, const char *name)
{
	const char *p;

	if (ig->nforced == 0)
		return false;
	for (p = relpath; p < name; p++)
		if (*p == '/' && ig->forced[ignore_forced_slot(ig, relpath,
		    (size_t)(p - relpath))] != NULL)
			return true;
	return false;
}

static bool ignore_by_rules(struct ignore *, const char *, size_t, const char *, bool);

bool
ignore_match(struct ignore *ig, const char *rootpath, bool is_dir)
{
	const char *relpath, *name;
	size_t len;
	bool inside;

	if (rootpath[0] == '\0')
		return false;	/* the root itself */
	buf_reset(&ig->full);
	if (ig->prefix[0] != '\0') {
		buf_puts(&ig->full, ig->prefix);
		buf_putc(&ig->full, '/');
	}
	buf_puts(&ig->full, rootpath);
	relpath = buf_cstr(&ig->full);
	len = ig->full.len;
	name = relpath + len;
	while (name > relpath && name[-1] != '/')
		name--;
	if (strcmp(name, ".git") == 0)
		return true;
	if (ig->index == NULL)
		return ignore_by_rules(ig, relpath, len, name, is_dir);
	/* What git tracks is shown, as git lists it whatever the rules say. */
	if (gitindex_has(ig->index, relpath, len))
		return false;
	inside = ignore_in_forced(ig, relpath, name);
	if (is_dir && gitindex_has_below(ig->index, relpath, len)) {
		if (inside || ignore_by_rules(ig, relpath, len, name, is_dir))
			ignore_force(ig, relpath, len);
		return false;
	}
	return inside || ignore_by_rules(ig, relpath, len, name, is_dir);
}

/* The rules' verdict on relpath[0..len) (relative to the top), whose last part is name. */
static bool
ignore_by_rules(struct ignore *ig, const char *relpath, size_t len, const char *name,
    bool is_dir)
{
	size_t i, f;

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

void
ignore_notes(struct buf *out, const struct ignore *ig, const struct ignore_walk_stats *st)
{
	const char *n, *nl;

	if (st != NULL && st->too_deep > 0)
		buf_printf(out, "[%zu director%s deeper than %d levels not searched]\n",
		    st->too_deep, st->too_deep == 1 ? "y" : "ies", IGNORE_WALK_DEPTH);
	if (st != NULL && st->unreadable > 0)
		buf_printf(out, "[%zu director%s could not be read]\n", st->unreadable,
		    st->unreadable == 1 ? "y" : "ies");
	for (n = ig != NULL ? ignore_note(ig) : NULL; n != NULL && *n != '\0'; n = nl + 1) {
		nl = strchr(n, '\n');
		buf_printf(out, "[%.*s]\n", (int)(nl - n), n);
	}
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
	return ignore_walk_fd(ig, fd, start, max_depth, visit, arg, stats);
}

int
ignore_walk_fd(struct ignore *ig, int fd, const char *start, int max_depth,
    enum ignore_visit (*visit)(void *, const struct ignore_entry *), void *arg,
    struct ignore_walk_stats *stats)
{
	struct ignore_walker w;
	struct ignore_walk_stats local;

	if (strcmp(start, ".") == 0)
		start = "";
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
