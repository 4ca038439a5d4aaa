/*
 * glob: the workspace files whose path matches a pattern, newest first.
 *
 * The walk starts at the deepest directory the pattern names literally and
 * goes no deeper than the pattern can reach: a pattern of two components
 * reads two levels.  Symbolic links are never descended into; a link to a
 * file is listed only when its target is inside the workspace.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "ignore.h"
#include "pathglob.h"
#include "json.h"
#include "sandbox.h"
#include "tool.h"
#include "utf8.h"
#include "xalloc.h"

#define GLOB_SHOW	200		/* paths shown */
#define GLOB_ALTS	256		/* "{}" alternatives */
#define GLOB_NOTE_ROOM	400

struct glob_hit {
	size_t		 off;		/* of the path in the path arena */
	const char	*path;		/* set from off once the arena is full */
	struct timespec	 mtime;
};

struct glob_state {
	const struct tool_env *env;
	size_t		 denied;	/* files and directories the deny rules cover */
	char		**pats;		/* relative to the base directory */
	size_t		 npats;
	size_t		 baselen;	/* the base directory's length in a path */
	struct buf	 paths;		/* NUL-separated paths of the hits */
	struct glob_hit	*hits;
	size_t		 nhits;
	size_t		 cap;
};

/* Length of the leading components of p that hold no wildcard. */
static size_t
glob_literal_dir(const char *p)
{
	size_t keep = 0, i = 0, n = strlen(p);

	while (i < n) {
		const char *slash = memchr(p + i, '/', n - i);

		if (slash == NULL || pathglob_has_wild(p + i, (size_t)(slash - p) - i))
			break;
		keep = (size_t)(slash - p);
		i = keep + 1;
	}
	return keep;
}

/* How deep a pattern reaches below the base: 0 if "**" lets it go anywhere. */
static int
glob_depth(const char *p)
{
	int depth = 1;
	const char *c = p;

	for (;;) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		if (n == 2 && c[0] == '*' && c[1] == '*')
			return 0;
		if (slash == NULL)
			return depth;
		depth++;
		c = slash + 1;
	}
}

/*
 * Is this link's target a regular file inside the workspace, and not
 * denied?  The link is walked like any tool path.
 */
static bool
glob_link_ok(struct glob_state *gs, const struct ignore_entry *e, struct stat *st)
{
	struct buf err = BUF_INIT(4096);
	struct sandbox sb;
	struct sandbox_at at;
	bool ok = false;

	tool_sandbox(gs->env, &sb);
	if (sandbox_walk(&sb, e->path, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, &err) == 0) {
		ok = S_ISREG(at.st.st_mode);
		*st = at.st;
		sandbox_at_release(&at);
	}
	buf_release(&err);
	return ok;
}

/* The first k components of s (all of it if it has fewer). */
static size_t
glob_comps(const char *s, size_t n, size_t k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '/' && --k == 0)
			return i;
	return n;
}

/*
 * Can a file below the directory sub (relative to the base) match one of
 * the patterns?  The directory's components must match the pattern's
 * first ones, up to a "**", and the pattern must reach deeper than it.
 */
static bool
glob_dir_viable(const struct glob_state *gs, const char *sub, size_t sublen)
{
	size_t depth = 1, i, k;

	for (i = 0; i < sublen; i++)
		depth += sub[i] == '/';
	for (i = 0; i < gs->npats; i++) {
		const char *p = gs->pats[i], *c = p, *slash = NULL;
		bool star = false;

		for (k = 0; k < depth; k++) {
			slash = strchr(c, '/');
			if ((slash ? (size_t)(slash - c) : strlen(c)) == 2 &&
			    c[0] == '*' && c[1] == '*') {
				star = true;
				break;
			}
			if (slash == NULL)
				break;
			c = slash + 1;
		}
		if (!star && k < depth)
			continue;	/* the pattern ends above this directory */
		if (k == 0 || pathglob_match(PATHGLOB_TOOL, p, (size_t)(c - 1 - p), sub,
		    glob_comps(sub, sublen, k)))
			return true;
	}
	return false;
}

static enum ignore_visit
glob_visit(void *arg, const struct ignore_entry *e)
{
	struct glob_state *gs = arg;
	const char *sub = e->path + (gs->baselen ? gs->baselen + 1 : 0);
	size_t sublen = e->pathlen - (size_t)(sub - e->path), i;
	struct stat st;

	if ((e->type == IGNORE_FILE || e->type == IGNORE_DIR || e->type == IGNORE_LINK) &&
	    tool_denied(gs->env, SANDBOX_READ, e->path)) {
		gs->denied++;
		return e->type == IGNORE_DIR ? IGNORE_SKIP : IGNORE_CONTINUE;
	}
	if (e->type == IGNORE_DIR)
		return glob_dir_viable(gs, sub, sublen) ? IGNORE_CONTINUE : IGNORE_SKIP;
	if (e->type != IGNORE_FILE && e->type != IGNORE_LINK)
		return IGNORE_CONTINUE;
	for (i = 0; i < gs->npats; i++)
		if (pathglob_match(PATHGLOB_TOOL, gs->pats[i], strlen(gs->pats[i]), sub, sublen))
			break;
	if (i == gs->npats)
		return IGNORE_CONTINUE;
	if (e->type == IGNORE_LINK ? !glob_link_ok(gs, e, &st) :
	    fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return IGNORE_CONTINUE;
	if (gs->nhits == gs->cap) {
		gs->cap = gs->cap ? gs->cap * 2 : 256;
		gs->hits = xreallocarray(gs->hits, gs->cap, sizeof *gs->hits);
	}
	gs->hits[gs->nhits].off = gs->paths.len;
	gs->hits[gs->nhits].mtime = st.st_mtim;
	gs->nhits++;
	buf_append(&gs->paths, e->path, e->pathlen + 1);
	return IGNORE_CONTINUE;
}

static int
glob_cmp(const void *a, const void *b)
{
	const struct glob_hit *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(x->path, y->path);
}

/*
 * Make the pattern relative to the base directory: strip "./", turn an
 * absolute pattern inside the workspace into a relative one (moving the
 * base to the root).  Returns the pattern to use (owned), or NULL with
 * the error set.
 */
static char *
glob_clean(const char *root, const char *pattern, char **base, struct tool_out *out)
{
	size_t n = strlen(root);
	const char *p = pattern;
	char *clean;
	size_t len;

	if (strncmp(p, root, n) == 0 && p[n] == '/') {
		p += n + 1;
		free(*base);
		*base = xstrdup(".");
	} else if (p[0] == '/') {
		tool_out_error(out, "the pattern %s is outside the workspace; give a"
		    " pattern relative to path", pattern);
		return NULL;
	}
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	clean = xstrdup(p);
	len = strlen(clean);
	while (len > 0 && clean[len - 1] == '/')
		clean[--len] = '\0';
	if (len == 0) {
		free(clean);
		tool_out_error(out, "the pattern is empty; try \"**/*\"");
		return NULL;
	}
	return clean;
}

/* The walk's start below base (relative to the root) and its depth limit. */
static char *
glob_start(struct glob_state *gs, const char *base, int *max_depth, size_t *skip)
{
	size_t common = SIZE_MAX, i;
	struct buf start = BUF_INIT(BUF_NOLIMIT);
	int d, deepest = 1;

	for (i = 0; i < gs->npats; i++) {
		size_t lit = glob_literal_dir(gs->pats[i]);

		if (common == SIZE_MAX)
			common = lit;
		else {
			size_t k = 0;

			while (k < common && k < lit && gs->pats[0][k] == gs->pats[i][k])
				k++;
			/* Cut back to a whole component. */
			while (k > 0 && !((k == common || gs->pats[0][k] == '/') &&
			    (k == lit || gs->pats[i][k] == '/')))
				k--;
			common = k;
		}
		d = glob_depth(gs->pats[i]);
		if (d == 0 || deepest == 0)
			deepest = 0;
		else if (d > deepest)
			deepest = d;
	}
	if (strcmp(base, ".") != 0)
		buf_puts(&start, base);
	if (common > 0) {
		if (start.len > 0)
			buf_putc(&start, '/');
		buf_append(&start, gs->pats[0], common);
	}
	*skip = common;
	*max_depth = deepest;
	return buf_detach(&start, NULL);
}

/*
 * Open start (relative to the root, or absolute in an extra root) if it
 * is a directory reached without symbolic links: links are never
 * followed, and a pattern's literal part could otherwise lead the walk out
 * of the workspace.  An fd, or -1.
 */
static int
glob_open_start(const struct tool_env *env, const char *start)
{
	struct buf err = BUF_INIT(4096);
	struct sandbox sb;
	struct sandbox_at at;
	const char *want = start[0] != '\0' ? start : ".";
	int fd = -1;

	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, want, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, &err) == 0) {
		if (strcmp(at.rel, want) == 0 && S_ISDIR(at.st.st_mode))
			fd = sandbox_open_at(&at, O_RDONLY | O_DIRECTORY, &err);
		sandbox_at_release(&at);
	}
	buf_release(&err);
	return fd;
}

/* Does a pattern (after "{}" expansion) hold a "." or ".." component? */
static bool
glob_dots(const char *p)
{
	const char *c;

	for (c = p; *c != '\0'; c += strcspn(c, "/"), c += *c == '/') {
		if (c[0] == '.' && (c[1] == '/' || c[1] == '\0'))
			return true;
		if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
			return true;
	}
	return false;
}

static void
glob_print(struct glob_state *gs, struct tool_out *out, const char *pattern,
    const char *base, const struct ignore_walk_stats *st, const struct ignore *ig)
{
	size_t i;

	buf_reset(&out->text);
	if (gs->nhits == 0) {
		buf_printf(&out->text, "No files match %s in %s%s", pattern, base,
		    st->too_deep > 0 ? " down to the depth limit" : "");
		if (strchr(pattern, '/') == NULL && strncmp(pattern, "**", 2) != 0)
			buf_printf(&out->text, " (a pattern without \"/\" matches only"
			    " that directory's own files; try **/%s)", pattern);
		if (st->hidden > 0)
			buf_printf(&out->text, " [%zu entr%s skipped: .git and git-ignored]",
			    st->hidden, st->hidden == 1 ? "y" : "ies");
		buf_putc(&out->text, '\n');
		tool_note_denied(&out->text, gs->denied);
		ignore_notes(&out->text, ig, st);
		return;
	}
	for (i = 0; i < gs->nhits; i++)
		gs->hits[i].path = gs->paths.data + gs->hits[i].off;
	qsort(gs->hits, gs->nhits, sizeof *gs->hits, glob_cmp);
	for (i = 0; i < gs->nhits && i < GLOB_SHOW; i++) {
		const char *p = gs->hits[i].path;
		size_t n = strlen(p);

		if (out->text.len + n + 1 > TOOL_READ_CAP - GLOB_NOTE_ROOM)
			break;
		utf8_sanitize(&out->text, p, n);
		buf_putc(&out->text, '\n');
	}
	if (i < gs->nhits)
		buf_printf(&out->text, "[%zu of %zu matching files shown, newest first;"
		    " narrow the pattern or give a path to see the rest]\n", i, gs->nhits);
	tool_note_denied(&out->text, gs->denied);
	ignore_notes(&out->text, ig, st);
}

/* Paths in messages may hold any bytes, but the model must get UTF-8. */

static void
glob_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct glob_state gs;
	struct ignore_walk_stats st;
	struct buf err = BUF_INIT(4096);
	const char *pattern = json_str(input, "pattern", NULL);
	const char *path = json_str(input, "path", ".");
	char *base = NULL, *clean = NULL, *start = NULL;
	struct ignore *ig = NULL;
	struct sandbox sb;
	struct sandbox_at at;
	size_t skip, i;
	int max_depth, n, fd;

	memset(&gs, 0, sizeof gs);
	memset(&st, 0, sizeof st);
	buf_init(&gs.paths, BUF_NOLIMIT);
	if (pattern == NULL || pattern[0] == '\0') {
		tool_out_error(out, "glob needs a pattern, e.g. \"**/*.c\"");
		return;
	}
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, &err) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	base = at.rel;
	at.rel = NULL;
	n = S_ISDIR(at.st.st_mode);
	sandbox_at_release(&at);
	if (!n) {
		tool_out_error(out, "%s is not a directory; path must be the directory"
		    " to search in", base);
		goto out;
	}
	if ((clean = glob_clean(env->root, pattern, &base, out)) == NULL)
		goto out;
	if ((n = pathglob_braces(clean, GLOB_ALTS, &gs.pats, &err)) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	gs.npats = (size_t)n;
	for (i = 0; i < gs.npats; i++) {
		if (glob_dots(gs.pats[i])) {
			tool_out_error(out, "the pattern may not use \".\" or \"..\""
			    " components; give the directory as path instead");
			goto out;
		}
	}
	gs.env = env;
	gs.baselen = strcmp(base, ".") == 0 ? 0 : strlen(base);
	start = glob_start(&gs, base, &max_depth, &skip);
	if (max_depth > 0) {
		/* The literal components are already walked past. */
		for (i = 0; i < skip; i++)
			max_depth -= gs.pats[0][i] == '/';
		max_depth -= skip > 0;
	}
	if ((fd = glob_open_start(env, start)) != -1) {
		ig = start[0] == '/' ? NULL : ignore_new(env->root);
		ignore_walk_fd(ig, fd, start, max_depth, glob_visit, &gs, &st);
	}
	glob_print(&gs, out, pattern, base, &st, ig);
out:
	ignore_free(ig);
	pathglob_braces_free(gs.pats);
	buf_release(&gs.paths);
	free(gs.hits);
	buf_release(&err);
	free(start);
	free(clean);
	free(base);
	tool_out_sanitize(out);
}

const struct tool_def tool_glob = {
	.name = "glob",
	.description =
	    "Find files by path pattern, matched against paths below path (default: "
	    "the workspace root): \"*\" and \"?\" stay within one directory, \"**\" "
	    "spans any number, \"[abc]\" is a set, \"{c,h}\" alternatives; so "
	    "\"*.c\" is the top level only, \"**/*.c\" everywhere. Lists files (not "
	    "directories) relative to the root, newest first, at most 200; skips "
	    ".git and git-ignored files. grep searches contents.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\","
	    "\"description\":\"e.g. \\\"src/**/*.{c,h}\\\"\"},"
	    "\"path\":{\"type\":\"string\",\"description\":\"The directory to search "
	    "(default: the root)\"}},\"required\":[\"pattern\"],"
	    "\"additionalProperties\":false}",
	.cls = TOOL_READ_ONLY,
	.run = glob_run,
	.preview = NULL,
};
