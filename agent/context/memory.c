/* Memory files and their imports: see memory.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "config/config.h"
#include "memory.h"
#include "xalloc.h"

static const char *const memory_names[] = { "AGENTS.md", "CLAUDE.md", "TANDEM.md", NULL };

/* One load: where files may come from, what was read, and the notes. */
struct memory_ctx {
	const struct config	*cfg;
	char			*root, *config_dir, *home;	/* real paths; NULL if missing */
	char			**seen;				/* real paths read */
	size_t			 nseen;
	size_t			 total;
	int			 loaded;
	struct buf		*prompt;
	struct buf		 listing;	/* the files loaded, for the report */
	struct buf		 notes;		/* what was left out, and why */
};

static bool
memory_under(const char *dir, const char *path)
{
	size_t n;

	if (dir == NULL)
		return false;
	n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(dir, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* A path as the user would like to read it: relative to the root, or with "~". */
static void
memory_display(const struct memory_ctx *m, const char *real, struct buf *out)
{
	if (memory_under(m->root, real) && real[strlen(m->root)] == '/')
		buf_puts(out, real + strlen(m->root) + 1);
	else if (memory_under(m->home, real) && real[strlen(m->home)] == '/')
		buf_printf(out, "~/%s", real + strlen(m->home) + 1);
	else
		buf_puts(out, real);
}

static bool
memory_seen(const struct memory_ctx *m, const char *real)
{
	size_t i;

	for (i = 0; i < m->nseen; i++)
		if (strcmp(m->seen[i], real) == 0)
			return true;
	return false;
}

/* Read at most max bytes of path into out; *size gets the file's size. */
static int
memory_read(const char *path, size_t max, struct buf *out, size_t *size, const char **why)
{
	struct file_status st;

	if (file_read(path, max, FILE_REGULAR | FILE_TRUNCATE, out, &st) == -1 &&
	    st.fail != FILE_READ) {
		*why = st.fail == FILE_NOT_REGULAR ? "not a regular file" : strerror(errno);
		return -1;
	}
	*size = (size_t)st.size;
	if (memchr(buf_cstr(out), '\0', out->len) != NULL) {
		*why = "it is not text";
		return -1;
	}
	if (out->len > *size)
		*size = out->len;
	return 0;
}

/* Cut text to at most n bytes without splitting a UTF-8 sequence. */
static void
memory_cut(struct buf *text, size_t n)
{
	if (text->len <= n)
		return;
	while (n > 0 && ((unsigned char)text->data[n] & 0xC0) == 0x80)
		n--;
	buf_truncate(text, n);
}

static void memory_file(struct memory_ctx *, const char *real, const char *from, int depth,
    bool project);

static char *
memory_resolve(const struct memory_ctx *m, const char *from_real, const char *path)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	const char *slash;
	char *real;

	if (path[0] == '~' && path[1] == '/') {
		if (m->home == NULL) {
			buf_release(&p);
			return NULL;
		}
		buf_printf(&p, "%s/%s", m->home, path + 2);
	} else if (path[0] == '/') {
		buf_puts(&p, path);
	} else {
		slash = strrchr(from_real, '/');
		buf_printf(&p, "%.*s/%s", (int)(slash - from_real), from_real, path);
	}
	real = realpath(buf_cstr(&p), NULL);
	buf_release(&p);
	return real;
}

/* Does a path below $HOME pass through a hidden name (~/.ssh, ~/.aws, ...)? */
static bool
memory_hidden(const char *rest)
{
	for (; (rest = strchr(rest, '/')) != NULL; rest++)
		if (rest[1] == '.')
			return true;
	return false;
}

/*
 * Why real may not be read, or NULL.  A chain that started in an untrusted
 * project may not reach hidden files in $HOME, nor what tandem's config
 * directory holds besides Markdown: they are where keys live (an MCP
 * server's token in settings.json).
 */
static const char *
memory_refused(const struct memory_ctx *m, const char *real, bool project)
{
	bool untrusted = project && !m->cfg->trusted;
	size_t n = strlen(real);

	if (memory_under(m->root, real))
		return NULL;
	if (memory_under(m->config_dir, real))
		return untrusted && (n < 3 || strcmp(real + n - 3, ".md") != 0) ?
		    "not a Markdown file of tandem's config directory, and this project is not "
		    "trusted" : NULL;
	if (!memory_under(m->home, real))
		return "outside the project, the config directory and $HOME";
	if (untrusted && memory_hidden(real + strlen(m->home)))
		return "a hidden path in $HOME, and this project is not trusted";
	return NULL;
}

/* One "@path" of the file real: load it, or say why not. */
static void
memory_import(struct memory_ctx *m, const char *from_real, const char *path, int depth,
    bool project)
{
	const char *why;

	struct buf shown = BUF_INIT(BUF_NOLIMIT);
	char *real;

	memory_display(m, from_real, &shown);
	if (depth > MEMORY_MAX_DEPTH) {
		buf_printf(&m->notes, "  %s: @%s: imports nest deeper than %d\n", buf_cstr(&shown),
		    path, MEMORY_MAX_DEPTH);
		goto out;
	}
	real = memory_resolve(m, from_real, path);
	if (real == NULL) {
		buf_printf(&m->notes, "  %s: @%s: no such file\n", buf_cstr(&shown), path);
		goto out;
	}
	if ((why = memory_refused(m, real, project)) != NULL)
		buf_printf(&m->notes, "  %s: @%s: refused: %s\n", buf_cstr(&shown), path, why);
	else
		memory_file(m, real, from_real, depth, project);
	free(real);
out:
	buf_release(&shown);
}

static bool
memory_path_char(char c)
{
	return c != '\0' && strchr(" \t\r\n`", c) == NULL;
}

/*
 * The "@path" words of text, outside fenced code blocks and code spans.
 * A word counts when it looks like a path (holds '/' or '.'), so "@alice" stays a name.
 */
static void
memory_imports(struct memory_ctx *m, const char *real, const char *text, int depth, bool project)
{
	const char *line = text, *p, *end;
	bool fence = false, span;
	char *word;
	size_t n;

	for (; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		p = line + strspn(line, " ");
		if (p - line < 4 && (strncmp(p, "```", 3) == 0 || strncmp(p, "~~~", 3) == 0)) {
			fence = !fence;
			continue;
		}
		if (fence)
			continue;
		span = false;
		for (p = line; p < end; p++) {
			if (*p == '`')
				span = !span;
			if (span || *p != '@' || (p > line && strchr(" \t(", p[-1]) == NULL))
				continue;
			for (n = 1; p + n < end && memory_path_char(p[n]); n++)
				;
			/* Sentence punctuation after the path is not part of it. */
			while (n > 1 && strchr(".,;:!?)'\"", p[n - 1]) != NULL)
				n--;
			word = xmemdup(p + 1, n - 1);
			if (strpbrk(word, "/.") != NULL && strchr(word, '@') == NULL)
				memory_import(m, real, word, depth + 1, project);
			free(word);
			p += n - 1;
		}
	}
}

/* Load the file real (imported by from, or NULL) and then its imports. */
static void
memory_file(struct memory_ctx *m, const char *real, const char *from, int depth, bool project)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT), shown = BUF_INIT(BUF_NOLIMIT);
	struct buf by = BUF_INIT(BUF_NOLIMIT);
	const char *why = NULL;
	size_t size = 0, room = MEMORY_TOTAL_MAX - m->total;

	if (memory_seen(m, real))
		return;
	m->seen = xreallocarray(m->seen, m->nseen + 1, sizeof *m->seen);
	m->seen[m->nseen++] = xstrdup(real);
	memory_display(m, real, &shown);
	if (from != NULL)
		memory_display(m, from, &by);
	if (room == 0) {
		buf_printf(&m->notes, "  %s: left out: the memory files already hold %d bytes\n",
		    buf_cstr(&shown), MEMORY_TOTAL_MAX);
		goto out;
	}
	if (memory_read(real, (room < MEMORY_FILE_MAX ? room : MEMORY_FILE_MAX) + 1, &text,
	    &size, &why) == -1) {
		buf_printf(&m->notes, "  %s: cannot read: %s\n", buf_cstr(&shown), why);
		goto out;
	}
	memory_cut(&text, room < MEMORY_FILE_MAX ? room : MEMORY_FILE_MAX);
	m->total += text.len;
	m->loaded++;
	buf_printf(m->prompt, "\n## %s", buf_cstr(&shown));
	if (from != NULL)
		buf_printf(m->prompt, " (imported by %s)", buf_cstr(&by));
	buf_printf(m->prompt, "\n\n%s%s", buf_cstr(&text),
	    text.len > 0 && text.data[text.len - 1] != '\n' ? "\n" : "");
	buf_printf(&m->listing, "  %-40s %7zu bytes", buf_cstr(&shown), text.len);
	if (from != NULL)
		buf_printf(&m->listing, "  imported from %s", buf_cstr(&by));
	if (text.len < size) {
		buf_printf(m->prompt, "[cut here: the file has %zu bytes; only the first %zu "
		    "are shown]\n", size, text.len);
		buf_printf(&m->listing, "  (cut from %zu bytes)", size);
	}
	buf_putc(&m->listing, '\n');
	memory_imports(m, real, buf_cstr(&text), depth, project);
out:
	buf_release(&text);
	buf_release(&shown);
	buf_release(&by);
}

/* One memory file by path (it may be missing). */
static void
memory_path(struct memory_ctx *m, const char *path, bool project)
{
	const char *why;
	char *real = realpath(path, NULL);

	/* A project's AGENTS.md may be a link: where it leads is checked like an import. */
	if (real != NULL && project && (why = memory_refused(m, real, true)) != NULL)
		buf_printf(&m->notes, "  %s: refused: it leads to %s, %s\n", path, real, why);
	else if (real != NULL)
		memory_file(m, real, NULL, 0, project);
	else if (errno != ENOENT && errno != ENOTDIR)
		buf_printf(&m->notes, "  %s: cannot read: %s\n", path, strerror(errno));
	free(real);
}

static void
memory_dir(struct memory_ctx *m, const char *dir, bool project)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (i = 0; dir != NULL && memory_names[i] != NULL; i++) {
		buf_reset(&p);
		buf_printf(&p, "%s/%s", dir, memory_names[i]);
		memory_path(m, buf_cstr(&p), project);
	}
	buf_release(&p);
}

static int
memory_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .md files of <dir>/<sub> in name order (Claude Code's .claude/rules). */
static void
memory_rules(struct memory_ctx *m, const char *dir, const char *sub, bool project)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	char **names = NULL;
	size_t n = 0, i, len;
	struct dirent *e;
	DIR *d;

	if (dir == NULL)
		return;
	buf_printf(&p, "%s/%s", dir, sub);
	if ((d = opendir(buf_cstr(&p))) == NULL) {
		buf_release(&p);
		return;
	}
	while ((e = readdir(d)) != NULL && n < 256) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 4 || strcmp(e->d_name + len - 3, ".md") != 0)
			continue;
		names = xreallocarray(names, n + 1, sizeof *names);
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, memory_cmp);
	for (i = 0; i < n; i++) {
		buf_reset(&p);
		buf_printf(&p, "%s/%s/%s", dir, sub, names[i]);
		memory_path(m, buf_cstr(&p), project);
		free(names[i]);
	}
	free(names);
	buf_release(&p);
}

/*
 * Claude Code's memory files: ~/.claude/CLAUDE.md for the user; the
 * project's .claude/CLAUDE.md, the .md files of .claude/rules and CLAUDE.local.md
 * (the user's own notes for this project, last: the most specific).
 */
static void
memory_claude(struct memory_ctx *m, const char *dir, bool project)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);

	if (dir == NULL)
		return;
	buf_printf(&p, "%s/.claude/CLAUDE.md", dir);
	memory_path(m, buf_cstr(&p), project);
	if (project) {
		memory_rules(m, dir, ".claude/rules", true);
		buf_reset(&p);
		buf_printf(&p, "%s/CLAUDE.local.md", dir);
		memory_path(m, buf_cstr(&p), true);
	}
	buf_release(&p);
}

static void
memory_report(const struct memory_ctx *m, struct buf *report)
{
	if (m->loaded == 0)
		buf_printf(report, "No memory files: none of AGENTS.md, CLAUDE.md, TANDEM.md in %s "
		    "or %s, nor Claude Code's .claude/CLAUDE.md, .claude/rules/*.md, CLAUDE.local.md, "
		    "~/.claude/CLAUDE.md.\n", m->cfg->root, m->cfg->config_dir);
	else
		buf_printf(report, "Memory files (%d, %zu bytes in the system prompt):\n%s",
		    m->loaded, m->total, buf_cstr(&m->listing));
	if (m->notes.len > 0)
		buf_printf(report, "Left out:\n%s", buf_cstr(&m->notes));
}

static void
memory_ctx_init(struct memory_ctx *m, const struct config *cfg, struct buf *body)
{
	const char *home = getenv("HOME");

	memset(m, 0, sizeof *m);
	m->cfg = cfg;
	m->root = realpath(cfg->root, NULL);
	m->config_dir = cfg->config_dir != NULL ? realpath(cfg->config_dir, NULL) : NULL;
	m->home = home != NULL && home[0] == '/' ? realpath(home, NULL) : NULL;
	m->prompt = body;
	buf_init(&m->listing, BUF_NOLIMIT);
	buf_init(&m->notes, BUF_NOLIMIT);
}

static void
memory_ctx_release(struct memory_ctx *m)
{
	size_t i;

	for (i = 0; i < m->nseen; i++)
		free(m->seen[i]);
	free(m->seen);
	free(m->root);
	free(m->config_dir);
	free(m->home);
	buf_release(&m->listing);
	buf_release(&m->notes);
}

int
memory_load(const struct config *cfg, struct buf *prompt, struct buf *report)
{
	struct memory_ctx m;
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	int loaded;

	memory_ctx_init(&m, cfg, &body);
	memory_dir(&m, m.config_dir, false);
	memory_claude(&m, m.home, false);
	memory_dir(&m, m.root, true);
	memory_claude(&m, m.root, true);
	if (m.loaded > 0)
		buf_printf(prompt, "# Memory files\n\nThe user and the project keep these "
		    "instructions for you; follow them.\n%s", buf_cstr(&body));
	if (report != NULL)
		memory_report(&m, report);
	loaded = m.loaded;
	memory_ctx_release(&m);
	buf_release(&body);
	return loaded;
}

int
memory_load_one(const struct config *cfg, const char *path, struct buf *text, struct buf *report)
{
	struct memory_ctx m;
	int loaded;

	memory_ctx_init(&m, cfg, text);
	memory_path(&m, path, true);
	buf_puts(report, buf_cstr(&m.listing));
	buf_puts(report, buf_cstr(&m.notes));
	loaded = m.loaded;
	memory_ctx_release(&m);
	return loaded;
}
