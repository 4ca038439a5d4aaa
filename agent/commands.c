/* Custom slash commands from Markdown files: see commands.h. */
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
#include "commands.h"
#include "config/config.h"
#include "xalloc.h"

#define COMMANDS_DESC_MAX	80	/* a description taken from the text is cut here */
#define COMMANDS_MAX_WORDS	9

/* What a command file says about itself, and where its text starts. */
struct commands_doc {
	char		*description;
	char		*hint;
	const char	*body;
};

static bool
commands_valid_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("_-.:", s[i]) != NULL) || s[i] == '\0')
			return false;
	return true;
}

/* 1 and the text, 0 when path does not exist, -1 with a sentence in err. */
static int
commands_read(const char *path, struct buf *text, struct buf *err)
{
	struct file_status st;

	buf_init(text, BUF_NOLIMIT);
	if (file_read(path, COMMANDS_FILE_MAX, FILE_REGULAR, text, &st) == 0)
		return 1;
	buf_release(text);
	if (st.fail == FILE_MISSING)
		return 0;
	if (st.fail == FILE_NOT_REGULAR)
		buf_printf(err, "%s is not a regular file", path);
	else if (st.fail == FILE_TOO_BIG)
		buf_printf(err, "%s is larger than %d KB; is it a command?", path,
		    COMMANDS_FILE_MAX / 1024);
	else
		buf_printf(err, "cannot read %s: %s", path, strerror(errno));
	return -1;
}

/* A copy of s[0..n) without surrounding blanks or one pair of quotes. */
static char *
commands_value(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && strchr(" \t\r", s[n - 1]) != NULL)
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	return xmemdup(s, n);
}

static bool
commands_is_rule(const char *line, size_t n)
{
	while (n > 0 && strchr(" \t\r", line[n - 1]) != NULL)
		n--;
	return n == 3 && strncmp(line, "---", 3) == 0;
}

/* The first line of text that says something, cut short: a description when none is given. */
static char *
commands_first_line(const char *text)
{
	const char *p = text, *end;
	size_t n;

	for (; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		while (p < end && strchr("# \t", *p) != NULL)
			p++;
		n = (size_t)(end - p);
		while (n > 0 && strchr(" \t\r", p[n - 1]) != NULL)
			n--;
		if (n == 0)
			continue;
		if (n > COMMANDS_DESC_MAX) {
			n = COMMANDS_DESC_MAX;
			while (n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80)
				n--;
		}
		return xmemdup(p, n);
	}
	return xstrdup("");
}

static void
commands_parse(const char *text, struct commands_doc *doc)
{
	const char *line, *end, *colon;
	size_t n;

	memset(doc, 0, sizeof *doc);
	doc->body = text;
	end = text + strcspn(text, "\n");
	if (!commands_is_rule(text, (size_t)(end - text)) || *end == '\0')
		goto out;
	for (line = end + 1; *line != '\0'; line = end + 1) {
		end = line + strcspn(line, "\n");
		n = (size_t)(end - line);
		if (commands_is_rule(line, n)) {
			doc->body = *end != '\0' ? end + 1 : end;
			goto out;
		}
		colon = memchr(line, ':', n);
		if (colon != NULL && colon - line == 11 && strncmp(line, "description", 11) == 0) {
			free(doc->description);
			doc->description = commands_value(colon + 1, (size_t)(end - colon - 1));
		} else if (colon != NULL && colon - line == 13 &&
		    strncmp(line, "argument-hint", 13) == 0) {
			free(doc->hint);
			doc->hint = commands_value(colon + 1, (size_t)(end - colon - 1));
		}
		if (*end == '\0')
			break;
	}
	/* No closing "---": it was not a header after all. */
	free(doc->description);
	free(doc->hint);
	doc->description = doc->hint = NULL;
	doc->body = text;
out:
	if (doc->description == NULL || doc->description[0] == '\0') {
		free(doc->description);
		doc->description = commands_first_line(doc->body);
	}
}

/* Split args into at most COMMANDS_MAX_WORDS words; quotes group, and are dropped. */
static size_t
commands_words(const char *args, char **words)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);
	const char *p = args;
	size_t n = 0;
	char q;

	while (n < COMMANDS_MAX_WORDS) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		buf_reset(&w);
		buf_puts(&w, "");
		for (q = 0; *p != '\0' && (q != 0 || strchr(" \t\n", *p) == NULL); p++) {
			if (q == 0 && (*p == '"' || *p == '\''))
				q = *p;
			else if (q != 0 && *p == q)
				q = 0;
			else
				buf_putc(&w, *p);
		}
		words[n++] = xstrdup(buf_cstr(&w));
	}
	buf_release(&w);
	return n;
}

/* body with the placeholders filled in; true if it had any. */
static bool
commands_fill(const char *body, const char *args, struct buf *out)
{
	char *words[COMMANDS_MAX_WORDS];
	size_t nw = commands_words(args, words), i;
	bool used = false;
	const char *p;

	for (p = body; *p != '\0'; p++) {
		if (p[0] == '$' && strncmp(p + 1, "ARGUMENTS", 9) == 0) {
			buf_puts(out, args);
			p += 9;
			used = true;
		} else if (p[0] == '$' && p[1] >= '1' && p[1] <= '9') {
			i = (size_t)(p[1] - '1');
			if (i < nw)
				buf_puts(out, words[i]);
			p++;
			used = true;
		} else {
			buf_putc(out, *p);
		}
	}
	for (i = 0; i < nw; i++)
		free(words[i]);
	return used;
}

static char *
commands_path(const char *dir, const char *sub, const char *name, size_t n)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);

	if (sub != NULL)
		buf_printf(&p, "%s/%s/%.*s.md", dir, sub, (int)n, name);
	else
		buf_printf(&p, "%s/%.*s.md", dir, (int)n, name);
	return buf_detach(&p, NULL);
}

/* Trim blank lines and spaces at both ends of out. */
static void
commands_trim(struct buf *out)
{
	size_t start = 0;

	while (out->len > 0 && strchr(" \t\r\n", out->data[out->len - 1]) != NULL)
		buf_truncate(out, out->len - 1);
	while (start < out->len && strchr(" \t\r\n", out->data[start]) != NULL)
		start++;
	buf_consume(out, start);
}

int
commands_expand(const struct config *cfg, const char *line, struct buf *prompt, struct buf *err)
{
	const char *dirs[2] = { cfg->root, cfg->config_dir };
	const char *subs[2] = { ".tandem/commands", "commands" };
	struct buf text = BUF_INIT(COMMANDS_FILE_MAX), out = BUF_INIT(BUF_NOLIMIT);
	struct commands_doc doc;
	const char *args;
	size_t n, i;
	char *path, *trimmed;
	int r = 0;

	if (line == NULL || line[0] != '/')
		return 1;
	n = strcspn(line + 1, " \t\n");
	if (!commands_valid_name(line + 1, n))
		return 1;
	for (i = 0; i < 2 && r == 0; i++) {
		if (dirs[i] == NULL)
			continue;
		path = commands_path(dirs[i], subs[i], line + 1, n);
		r = commands_read(path, &text, err);
		free(path);
	}
	if (r != 1)
		return r == 0 ? 1 : -1;
	args = line + 1 + n;
	while (*args == ' ' || *args == '\t' || *args == '\n')
		args++;
	trimmed = xstrdup(args);
	n = strlen(trimmed);
	while (n > 0 && strchr(" \t\r\n", trimmed[n - 1]) != NULL)
		trimmed[--n] = '\0';
	commands_parse(buf_cstr(&text), &doc);
	if (!commands_fill(doc.body, trimmed, &out) && trimmed[0] != '\0') {
		commands_trim(&out);
		buf_printf(&out, "\n\nARGUMENTS: %s", trimmed);
	}
	commands_trim(&out);
	buf_append(prompt, buf_cstr(&out), out.len);
	free(doc.description);
	free(doc.hint);
	free(trimmed);
	buf_release(&text);
	buf_release(&out);
	return 0;
}

static bool
commands_known(const struct command_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return true;
	return false;
}

static void
commands_add(struct command_list *l, const char *dir, const char *file, bool project)
{
	struct buf text = BUF_INIT(COMMANDS_FILE_MAX), err = BUF_INIT(1024);
	size_t n = strlen(file);
	struct command_info *c;
	struct commands_doc doc;
	char *name, *path;

	if (n <= 3 || strcmp(file + n - 3, ".md") != 0 || !commands_valid_name(file, n - 3))
		return;
	name = xmemdup(file, n - 3);
	if (commands_known(l, name)) {
		free(name);
		return;
	}
	path = commands_path(dir, NULL, name, strlen(name));
	if (commands_read(path, &text, &err) != 1) {
		free(name);
		free(path);
		buf_release(&err);
		return;
	}
	commands_parse(buf_cstr(&text), &doc);
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	c = &l->v[l->n++];
	c->name = name;
	c->description = doc.description;
	c->argument_hint = doc.hint;
	c->path = path;
	c->project = project;
	buf_release(&text);
	buf_release(&err);
}

static void
commands_scan_dir(struct command_list *l, const char *base, const char *sub, bool project)
{
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	struct dirent *e;
	DIR *d;

	if (base == NULL)
		return;
	buf_printf(&dir, "%s/%s", base, sub);
	if ((d = opendir(buf_cstr(&dir))) != NULL) {
		while ((e = readdir(d)) != NULL)
			commands_add(l, buf_cstr(&dir), e->d_name, project);
		closedir(d);
	}
	buf_release(&dir);
}

static int
commands_cmp(const void *a, const void *b)
{
	return strcmp(((const struct command_info *)a)->name, ((const struct command_info *)b)->name);
}

void
commands_scan(const struct config *cfg, struct command_list *l)
{
	l->v = NULL;
	l->n = 0;
	commands_scan_dir(l, cfg->root, ".tandem/commands", true);
	commands_scan_dir(l, cfg->config_dir, "commands", false);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, commands_cmp);
}

void
commands_list_release(struct command_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].description);
		free(l->v[i].argument_hint);
		free(l->v[i].path);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void
commands_list(const struct config *cfg, struct buf *out)
{
	struct buf head = BUF_INIT(BUF_NOLIMIT);
	struct command_list l;
	size_t i;

	commands_scan(cfg, &l);
	for (i = 0; i < l.n; i++) {
		buf_reset(&head);
		buf_printf(&head, "/%s", l.v[i].name);
		if (l.v[i].argument_hint != NULL && l.v[i].argument_hint[0] != '\0')
			buf_printf(&head, " %s", l.v[i].argument_hint);
		buf_printf(out, "%-24s %s%s(%s)\n", buf_cstr(&head), l.v[i].description,
		    l.v[i].description[0] != '\0' ? "  " : "", l.v[i].project ? "project" : "user");
	}
	buf_release(&head);
	commands_list_release(&l);
}
