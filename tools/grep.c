/*
 * grep: search file contents with a PCRE2 regular expression.
 *
 * Built for big trees: each file is read with one read() into a buffer
 * reused from file to file (large ones are mapped), the compiled (JIT)
 * pattern runs once over the whole buffer rather than line by line, and
 * only where it matches are lines located and numbered.  Nothing is
 * allocated per file.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "buf.h"
#include "ignore.h"
#include "pathglob.h"
#include "json.h"
#include "sandbox.h"
#include "tool.h"
#include "utf8.h"
#include "xalloc.h"

#define GREP_MAX	100		/* default max_results */
#define GREP_CONTEXT	20		/* most context lines */
#define GREP_SHOW	500		/* bytes of one line shown */
#define GREP_PROBE	8192		/* bytes looked at for a NUL */
#define GREP_MAP_MIN	(4 * 1024 * 1024)	/* files this big are mapped */
#define GREP_SLACK	64		/* zeroed bytes after the data read */
#define GREP_ALTS	64		/* "{}" alternatives in glob */
#define GREP_NOTE_ROOM	600

enum grep_mode {
	GREP_FILES,
	GREP_CONTENT,
	GREP_COUNT
};

static const char *const grep_modes[] = { "files", "content", "count" };

struct grep_glob {
	const char	*pat;
	size_t		 len;
	bool		 negate;	/* "!pat": leave matching files out */
	bool		 path;		/* has a "/": match the whole path */
};

struct grep {
	pcre2_code	*re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_jit_stack	*jstack;
	enum grep_mode	 mode;
	int64_t		 context;
	int64_t		 max;
	char		**globv;
	struct grep_glob *globs;
	size_t		 nglobs;
	bool		 any_positive;
	size_t		 baselen;	/* of the search directory, in paths */
	char		*buf;		/* the read buffer, reused */
	size_t		 cap;
	struct buf	*out;
	struct buf	 line;		/* one formatted output line */
	int64_t		 results;
	bool		 stop;
	bool		 capped_results;
	bool		 capped_bytes;
	bool		 printed;	/* any content line printed yet */
	size_t		 searched;
	size_t		 binary;
	size_t		 unreadable;
	struct ignore	*ig;		/* the rules of a tree search */
	struct ignore_walk_stats walk;
	size_t		 failed;	/* files where the pattern hit a limit */
	size_t		 denied;	/* files and directories the deny rules cover */
	const struct tool_env *env;
	int		 last_error;

	/* The file being searched. */
	const char	*path;
	const char	*data;
	size_t		 len;
	size_t		 count_pos;	/* line numbers are known up to here */
	int64_t		 count_no;
	size_t		 next;		/* the first line not printed or passed */
	int64_t		 next_no;
	int64_t		 after_left;	/* after-context lines still owed */
	bool		 file_printed;
};


static int
grep_args(struct grep *g, const cJSON *input, struct tool_out *out)
{
	const char *mode = json_str(input, "output_mode", "files");
	size_t i;

	for (i = 0; i < sizeof grep_modes / sizeof grep_modes[0]; i++)
		if (strcmp(mode, grep_modes[i]) == 0)
			break;
	if (i == sizeof grep_modes / sizeof grep_modes[0]) {
		tool_out_error(out, "output_mode must be \"files\", \"content\" or \"count\"");
		return -1;
	}
	g->mode = (enum grep_mode)i;
	if (tool_int_arg(input, "context", 0, &g->context, out) == -1 ||
	    tool_int_arg(input, "max_results", GREP_MAX, &g->max, out) == -1)
		return -1;
	if (g->context < 0 || g->max < 1) {
		tool_out_error(out, "context must be 0 or more and max_results at least 1");
		return -1;
	}
	if (g->context > GREP_CONTEXT)
		g->context = GREP_CONTEXT;
	if (g->mode != GREP_CONTENT)
		g->context = 0;
	return 0;
}

static int
grep_compile(struct grep *g, const char *pattern, bool icase, struct tool_out *out)
{
	uint32_t opts = PCRE2_MULTILINE;
	PCRE2_SIZE erroff;
	PCRE2_UCHAR msg[256];
	pcre2_compile_context *cc;
	int code;

	/* "$" before "\r\n" too, so CRLF files match like the others. */
	cc = pcre2_compile_context_create(NULL);
	if (cc != NULL)
		pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF);
	if (utf8_valid(pattern, strlen(pattern)))
		opts |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	if (icase)
		opts |= PCRE2_CASELESS;
	g->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts,
	    &code, &erroff, cc);
	pcre2_compile_context_free(cc);
	if (g->re == NULL) {
		pcre2_get_error_message(code, msg, sizeof msg);
		tool_out_error(out, "invalid regex: %s at offset %zu of %s", (char *)msg,
		    (size_t)erroff, pattern);
		return -1;
	}
	/* Without JIT (unsupported or out of memory) the interpreter still works. */
	if (pcre2_jit_compile(g->re, PCRE2_JIT_COMPLETE) == 0) {
		g->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
		g->mctx = pcre2_match_context_create(NULL);
		if (g->jstack != NULL && g->mctx != NULL)
			pcre2_jit_stack_assign(g->mctx, NULL, g->jstack);
	}
	g->md = pcre2_match_data_create(1, NULL);
	if (g->md == NULL) {
		tool_out_error(out, "out of memory compiling the pattern");
		return -1;
	}
	return 0;
}

static int
grep_globs(struct grep *g, const char *glob, struct tool_out *out)
{
	struct buf err = BUF_INIT(4096);
	int n;
	size_t i;

	if (glob == NULL || glob[0] == '\0')
		return 0;
	n = pathglob_braces(glob, GREP_ALTS, &g->globv, &err);
	if (n == -1) {
		tool_out_error(out, "glob: %s", buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	g->globs = xcalloc((size_t)n + 1, sizeof *g->globs);
	for (i = 0; i < (size_t)n; i++) {
		struct grep_glob *gl = &g->globs[g->nglobs];
		const char *p = g->globv[i];

		gl->negate = p[0] == '!';
		p += gl->negate;
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		if (p[0] == '\0')
			continue;
		gl->pat = p;
		gl->len = strlen(p);
		gl->path = strchr(p, '/') != NULL;
		g->any_positive |= !gl->negate;
		g->nglobs++;
	}
	return 0;
}

/* Does the file at path (relative to the root) pass the glob filter? */
static bool
grep_glob_ok(const struct grep *g, const char *path, size_t pathlen, const char *name)
{
	const char *sub = path + (g->baselen ? g->baselen + 1 : 0);
	size_t sublen = pathlen - (size_t)(sub - path), namelen = strlen(name), i;
	bool in = !g->any_positive;

	for (i = 0; i < g->nglobs; i++) {
		const struct grep_glob *gl = &g->globs[i];
		bool m = gl->path ? pathglob_match(PATHGLOB_TOOL, gl->pat, gl->len, sub, sublen) :
		    pathglob_match(PATHGLOB_TOOL, gl->pat, gl->len, name, namelen);

		if (m && gl->negate)
			return false;
		if (m)
			in = true;
	}
	return in;
}

/* output */

/* Add the formatted line, or stop everything when it would pass the cap. */
static void
grep_put(struct grep *g)
{
	if (g->out->len + g->line.len > TOOL_READ_CAP - GREP_NOTE_ROOM) {
		g->capped_bytes = true;
		g->stop = true;
		return;
	}
	buf_append(g->out, g->line.data, g->line.len);
}

static void
grep_put_path(struct grep *g)
{
	buf_reset(&g->line);
	utf8_sanitize(&g->line, g->path, strlen(g->path));
}

/*
 * One line [s, e) as "path<sep>number<sep>text".  A long line is cut to a
 * window, around the match at ms when there is one.
 */
static void
grep_put_line(struct grep *g, size_t s, size_t e, int64_t no, char sep, size_t ms)
{
	const char *d = g->data;
	size_t ws = s, we;

	if (e > s && d[e - 1] == '\r')
		e--;
	if (e - s > GREP_SHOW && ms - s > GREP_SHOW / 2) {
		ws = ms - GREP_SHOW / 4;
		while (ws < e && ((unsigned char)d[ws] & 0xC0) == 0x80)
			ws++;
	}
	we = e - ws > GREP_SHOW ? ws + utf8_floor(d + ws, GREP_SHOW) : e;
	grep_put_path(g);
	buf_printf(&g->line, "%c%" PRId64 "%c", sep, no, sep);
	if (ws > s)
		buf_printf(&g->line, "[... %zu bytes] ", ws - s);
	utf8_sanitize(&g->line, d + ws, we - ws);
	if (we < e)
		buf_printf(&g->line, " [... %zu bytes]", e - we);
	buf_putc(&g->line, '\n');
	grep_put(g);
}

static size_t
grep_line_end(const struct grep *g, size_t pos)
{
	const char *nl = memchr(g->data + pos, '\n', g->len - pos);

	return nl ? (size_t)(nl - g->data) : g->len;
}

/* The start of the line holding pos, looking back no further than floor. */
static size_t
grep_line_start(const struct grep *g, size_t floor, size_t pos)
{
	while (pos > floor && g->data[pos - 1] != '\n')
		pos--;
	return pos;
}

/* The number of the line starting at pos (pos only moves forward). */
static int64_t
grep_lineno(struct grep *g, size_t pos)
{
	const char *p = g->data + g->count_pos, *end = g->data + pos;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		g->count_no++;
		p++;
	}
	g->count_pos = pos;
	return g->count_no;
}

/* Print the after-context owed, up to (not including) the line at upto. */
static void
grep_flush_after(struct grep *g, size_t upto)
{
	while (g->after_left > 0 && g->next < upto && !g->stop) {
		size_t e = grep_line_end(g, g->next);

		grep_put_line(g, g->next, e, g->next_no, '-', g->next);
		g->next = e < g->len ? e + 1 : g->len;
		g->next_no++;
		g->after_left--;
	}
}

/* A matching line [ls, le) whose match starts at ms, with its context. */
static void
grep_put_match(struct grep *g, size_t ls, size_t le, size_t ms)
{
	int64_t no = grep_lineno(g, ls), bno = no, k;
	size_t b = ls;

	grep_flush_after(g, ls);
	for (k = 0; k < g->context && b > g->next; k++) {
		b = grep_line_start(g, g->next, b - 1);
		bno--;
	}
	if (g->context > 0 && g->printed && (!g->file_printed || b > g->next)) {
		buf_reset(&g->line);
		buf_puts(&g->line, "--\n");
		grep_put(g);
	}
	while (b < ls && !g->stop) {
		size_t e = grep_line_end(g, b);

		grep_put_line(g, b, e, bno++, '-', b);
		b = e + 1;
	}
	if (g->stop)
		return;
	grep_put_line(g, ls, le, no, ':', ms);
	g->next = le < g->len ? le + 1 : g->len;
	g->next_no = no + 1;
	g->after_left = g->context;
	g->printed = g->file_printed = true;
}

/* One result (a line, or a file) counted against max_results. */
static void
grep_result(struct grep *g)
{
	if (++g->results >= g->max) {
		g->capped_results = true;
		g->stop = true;
	}
}

/* search */

/*
 * The next matching line at or after pos (a line start): 1 with [*ls, *le)
 * and *ms set, 0 if none, -1 on a match error.  The pattern runs over the
 * rest of the buffer at once; a match that runs across a newline only
 * counts if its first line matches on its own.
 */
static int
grep_next(struct grep *g, size_t pos, size_t *ls, size_t *le, size_t *ms)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(g->md);
	int rc;

	while (pos < g->len) {
		rc = pcre2_match(g->re, (PCRE2_SPTR)g->data, g->len, pos, 0, g->md, g->mctx);
		if (rc == PCRE2_ERROR_NOMATCH)
			return 0;
		if (rc < 0)
			goto fail;
		*ms = ov[0];
		if (*ms == g->len && g->data[g->len - 1] == '\n')
			return 0;	/* after the last line */
		*ls = grep_line_start(g, pos, *ms);
		*le = grep_line_end(g, *ms);
		if (ov[1] <= *le)
			return 1;
		rc = pcre2_match(g->re, (PCRE2_SPTR)g->data + *ls, *le - *ls, 0, 0,
		    g->md, g->mctx);
		if (rc >= 0) {
			*ms = *ls + ov[0];
			return 1;
		}
		if (rc != PCRE2_ERROR_NOMATCH)
			goto fail;
		pos = *le + 1;
	}
	return 0;
fail:
	g->failed++;
	g->last_error = rc;
	return -1;
}

static void
grep_buffer(struct grep *g, const char *path, const char *data, size_t len)
{
	size_t pos = 0, ls, le, ms;
	int64_t count = 0;

	g->path = path;
	g->data = data;
	g->len = len;
	g->count_pos = g->next = 0;
	g->count_no = g->next_no = 1;
	g->after_left = 0;
	g->file_printed = false;
	while (!g->stop && grep_next(g, pos, &ls, &le, &ms) == 1) {
		count++;
		if (g->mode == GREP_FILES) {
			grep_put_path(g);
			buf_putc(&g->line, '\n');
			grep_put(g);
			if (!g->stop)
				grep_result(g);
			return;
		}
		if (g->mode == GREP_CONTENT) {
			grep_put_match(g, ls, le, ms);
			if (!g->stop)
				grep_result(g);
		}
		pos = le + 1;
	}
	if (g->mode == GREP_CONTENT) {
		bool capped = g->stop;

		g->stop = g->capped_bytes;
		grep_flush_after(g, len);
		g->stop = g->stop || capped;
	}
	if (g->mode == GREP_COUNT && count > 0 && !g->stop) {
		grep_put_path(g);
		buf_printf(&g->line, ":%" PRId64 "\n", count);
		grep_put(g);
		if (!g->stop)
			grep_result(g);
	}
}

/* Read the whole file open on fd into g->buf or a mapping; NULL on failure. */
static const char *
grep_load(struct grep *g, int fd, size_t size, size_t *len, bool *mapped)
{
	void *map;
	ssize_t r;

	*len = 0;
	*mapped = false;
	if (size >= GREP_MAP_MIN) {
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			return NULL;
		*mapped = true;
		*len = size;
		return map;
	}
	if (size + GREP_SLACK > g->cap) {
		free(g->buf);
		g->cap = size + GREP_SLACK > 64 * 1024 ? size + GREP_SLACK : 64 * 1024;
		g->buf = xmalloc(g->cap);
	}
	/* Read to the size found by fstat: a file growing meanwhile is cut there. */
	while (*len < size && (r = read(fd, g->buf + *len, size - *len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return NULL;
		*len += (size_t)r;
	}
	/* The JIT's vector scans may look a little past the end: make it defined. */
	memset(g->buf + *len, 0, GREP_SLACK);
	return g->buf;
}

/* Search one file: at dirfd/name, shown as path. */
static void
grep_file(struct grep *g, int dirfd, const char *name, const char *path)
{
	const char *data;
	struct stat st;
	size_t len;
	bool mapped;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd == -1) {
		g->unreadable++;
		return;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return;
	}
	data = grep_load(g, fd, (size_t)st.st_size, &len, &mapped);
	close(fd);
	if (data == NULL) {
		g->unreadable++;
		return;
	}
	if (memchr(data, '\0', len < GREP_PROBE ? len : GREP_PROBE) != NULL)
		g->binary++;
	else if (len > 0) {
		g->searched++;
		grep_buffer(g, path, data, len);
	}
	if (mapped)
		munmap((void *)data, len);
}

static enum ignore_visit
grep_visit(void *arg, const struct ignore_entry *e)
{
	struct grep *g = arg;

	if ((e->type == IGNORE_FILE || e->type == IGNORE_DIR) &&
	    tool_denied(g->env, SANDBOX_READ, e->path)) {
		g->denied++;
		return e->type == IGNORE_DIR ? IGNORE_SKIP : IGNORE_CONTINUE;
	}
	if (e->type != IGNORE_FILE)
		return IGNORE_CONTINUE;
	if (g->nglobs > 0 && !grep_glob_ok(g, e->path, e->pathlen, e->name))
		return IGNORE_CONTINUE;
	grep_file(g, e->dirfd, e->name, e->path);
	return g->stop ? IGNORE_STOP : IGNORE_CONTINUE;
}

static void
grep_notes(struct grep *g, const char *pattern, const char *where)
{
	static const char *const units[] = { "files", "matching lines", "files" };
	PCRE2_UCHAR msg[256];

	if (g->results == 0 && !g->capped_bytes) {
		buf_printf(g->out, "No matches for %s in %s (%zu file%s searched",
		    pattern, where, g->searched, g->searched == 1 ? "" : "s");
		if (g->binary > 0)
			buf_printf(g->out, ", %zu binary skipped", g->binary);
		buf_puts(g->out, ")\n");
	}
	if (g->capped_results)
		buf_printf(g->out, "[stopped at max_results=%" PRId64 " %s; narrow the"
		    " search with path, glob or a more specific pattern, or raise"
		    " max_results]\n", g->max, units[g->mode]);
	else if (g->capped_bytes)
		buf_printf(g->out, "[output truncated at %d KB; narrow the search with"
		    " path, glob or a more specific pattern%s]\n", TOOL_READ_CAP / 1024,
		    g->mode == GREP_CONTENT ? ", or use output_mode files or count" : "");
	if (g->failed > 0) {
		pcre2_get_error_message(g->last_error, msg, sizeof msg);
		buf_printf(g->out, "[the pattern failed in %zu file%s (%s), which may"
		    " hold more matches; simplify the pattern]\n", g->failed,
		    g->failed == 1 ? "" : "s", (char *)msg);
	}
	tool_note_denied(g->out, g->denied);
	ignore_notes(g->out, g->ig, g->ig != NULL ? &g->walk : NULL);
}

static void
grep_release(struct grep *g)
{
	pcre2_match_data_free(g->md);
	pcre2_match_context_free(g->mctx);
	pcre2_jit_stack_free(g->jstack);
	pcre2_code_free(g->re);
	pathglob_braces_free(g->globv);
	ignore_free(g->ig);
	free(g->globs);
	free(g->buf);
	buf_release(&g->line);
}

/* Search what at names: one file, or a tree. */
static void
grep_search(struct grep *g, const struct tool_env *env, const struct sandbox_at *at,
    struct tool_out *out)
{
	struct buf err = BUF_INIT(4096);
	int fd;

	if (!S_ISDIR(at->st.st_mode)) {
		if (!S_ISREG(at->st.st_mode)) {
			tool_out_error(out, "%s is not a regular file; not searched", at->rel);
			return;
		}
		grep_file(g, at->dirfd, at->name, at->rel);
		if (g->binary > 0)
			tool_out_error(out, "%s is a binary file; not searched", at->rel);
		else if (g->unreadable > 0)
			tool_out_error(out, "cannot read %s: %s", at->rel, strerror(errno));
		return;
	}
	fd = sandbox_open_at(at, O_RDONLY | O_DIRECTORY, &err);
	if (fd == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		buf_release(&err);
		return;
	}
	g->baselen = strcmp(at->rel, ".") == 0 ? 0 : strlen(at->rel);
	/* an extra root has no .gitignore of the workspace's */
	g->ig = at->rel[0] == '/' ? NULL : ignore_new(env->root);
	ignore_walk_fd(g->ig, fd, g->baselen ? at->rel : "", 0, grep_visit, g, &g->walk);
	buf_release(&err);
}

/* Paths in messages may hold any bytes, but the model must get UTF-8. */

static void
grep_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	struct grep g;
	struct buf err = BUF_INIT(4096);
	const char *pattern = json_str(input, "pattern", NULL);
	const char *path = json_str(input, "path", ".");
	struct sandbox sb;
	struct sandbox_at at = { .dirfd = -1 };

	memset(&g, 0, sizeof g);
	g.env = env;
	buf_init(&g.line, BUF_NOLIMIT);
	if (pattern == NULL || pattern[0] == '\0') {
		tool_out_error(out, "grep needs a pattern (a PCRE2 regular expression)");
		goto out;
	}
	if (grep_args(&g, input, out) == -1 ||
	    grep_globs(&g, json_str(input, "glob", NULL), out) == -1 ||
	    grep_compile(&g, pattern, json_bool(input, "ignore_case", false), out) == -1)
		goto out;
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, &err) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	buf_reset(&out->text);
	g.out = &out->text;
	grep_search(&g, env, &at, out);
	if (!out->is_error)
		grep_notes(&g, pattern, at.rel);
out:
	grep_release(&g);
	buf_release(&err);
	sandbox_at_release(&at);
	tool_out_sanitize(out);
}

const struct tool_def tool_grep = {
	.name = "grep",
	.description =
	    "Search file contents with a PCRE2 regular expression (\\b, \\d, (?i), "
	    "lookarounds; escape a literal . ( [ { with a backslash); a match is "
	    "within one line. Searches path (a directory, recursively, or a file; "
	    "default: the workspace root), skipping .git, git-ignored and binary "
	    "files, not following symlinks. glob keeps files whose name (or, with a "
	    "\"/\", path) matches, e.g. \"*.{c,h}\", \"src/**/*.py\"; \"!\" first "
	    "excludes. output_mode: \"files\" (default) lists matching files, "
	    "\"content\" prints path:line:text (context lines path-line-text), "
	    "\"count\" path:count. Stops at max_results (default 100) or about 20 "
	    "KB, with a note.",
	.schema =
	    "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},"
	    "\"path\":{\"type\":\"string\",\"description\":\"A directory or file "
	    "(default: the root)\"},\"glob\":{\"type\":\"string\"},"
	    "\"ignore_case\":{\"type\":\"boolean\"},"
	    "\"output_mode\":{\"type\":\"string\",\"enum\":[\"files\",\"content\","
	    "\"count\"]},\"context\":{\"type\":\"integer\",\"minimum\":0,"
	    "\"maximum\":20,\"description\":\"Lines before and after a match "
	    "(content)\"},\"max_results\":{\"type\":\"integer\",\"minimum\":1,"
	    "\"description\":\"Lines (content) or files; default 100\"}},"
	    "\"required\":[\"pattern\"],\"additionalProperties\":false}",
	.cls = TOOL_READ_ONLY,
	.run = grep_run,
	.preview = NULL,
};
