/* A reader of git configuration files: see gitconfig.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "gitconfig.h"
#include "xalloc.h"

#define GITCONFIG_FILE_MAX	(1024 * 1024)

struct gitconfig_parser {
	const char	*p;
	const char	*end;
	int		 line;
	struct buf	 section;	/* "core", "remote.origin": as keys see it */
	struct buf	 name;
	struct buf	 value;
};

/* The wanted key split as the parser builds keys: section(.sub), name. */
struct gitconfig_key {
	struct buf	 section;
	struct buf	 name;
};

static int
gc_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool
gc_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
gc_keychar(int c)
{
	return gc_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static bool
gc_space(int c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* The next character; "\r\n" reads as "\n", the end as '\n' too (then EOF). */
static int
gc_next(struct gitconfig_parser *ps, bool *eof)
{
	int c;

	*eof = false;
	if (ps->p >= ps->end) {
		*eof = true;
		return '\n';
	}
	c = (unsigned char)*ps->p++;
	if (c == '\r' && ps->p < ps->end && *ps->p == '\n')
		c = (unsigned char)*ps->p++;
	if (c == '\n')
		ps->line++;
	return c;
}

static int
gc_bad(struct gitconfig_parser *ps, struct buf *err)
{
	buf_printf(err, "line %d is not valid git configuration", ps->line);
	return -1;
}

/* After "[": the section name, and a quoted subsection if any. */
/* A line that ended too soon: the error is on the line just left. */
static int
gc_bad_at_end(struct gitconfig_parser *ps, bool eof, struct buf *err)
{
	ps->line -= !eof;
	return gc_bad(ps, err);
}

static int
gc_section(struct gitconfig_parser *ps, struct buf *err)
{
	bool eof;
	int c;

	buf_reset(&ps->section);
	for (;;) {
		c = gc_next(ps, &eof);
		if (c == '\n')
			return gc_bad_at_end(ps, eof, err);
		if (c == ']')
			return ps->section.len > 0 ? 0 : gc_bad(ps, err);
		if (c == ' ' || c == '\t')
			break;
		if (!gc_keychar(c) && c != '.')
			return gc_bad(ps, err);
		buf_putc(&ps->section, gc_lower(c));
	}
	while (c == ' ' || c == '\t')
		c = gc_next(ps, &eof);
	if (c != '"' || ps->section.len == 0)
		return gc_bad(ps, err);
	buf_putc(&ps->section, '.');
	for (;;) {
		c = gc_next(ps, &eof);
		if (c == '\n')
			return gc_bad_at_end(ps, eof, err);
		if (c == '"')
			break;
		if (c == '\\') {
			c = gc_next(ps, &eof);
			if (c == '\n')
				return gc_bad_at_end(ps, eof, err);
		}
		buf_putc(&ps->section, c);
	}
	c = gc_next(ps, &eof);
	return c == ']' ? 0 : gc_bad(ps, err);
}

/* The escapes a value may hold, and what they stand for. */
static const struct {
	char	 in;
	char	 out;
} gc_escapes[] = {
	{ 't', '\t' }, { 'b', '\b' }, { 'n', '\n' }, { '\\', '\\' }, { '"', '"' },
};

/* After "=": the value, up to the end of its (possibly continued) line. */
static int
gc_value(struct gitconfig_parser *ps, struct buf *err)
{
	bool quote = false, comment = false, eof;
	size_t spaces = 0, i;
	int c;

	buf_reset(&ps->value);
	for (;;) {
		c = gc_next(ps, &eof);
		if (c == '\n') {
			if (quote && !comment)
				return gc_bad_at_end(ps, eof, err);
			return 0;
		}
		if (comment)
			continue;
		if (gc_space(c) && !quote) {
			spaces += ps->value.len > 0;
			continue;
		}
		if (!quote && (c == '#' || c == ';')) {
			comment = true;
			continue;
		}
		for (; spaces > 0; spaces--)
			buf_putc(&ps->value, ' ');
		if (c == '"') {
			quote = !quote;
			continue;
		}
		if (c == '\\') {
			c = gc_next(ps, &eof);
			if (c == '\n')
				continue;	/* a continued line (or the end) */
			for (i = 0; i < sizeof gc_escapes / sizeof gc_escapes[0]; i++)
				if (gc_escapes[i].in == c)
					break;
			if (i == sizeof gc_escapes / sizeof gc_escapes[0])
				return gc_bad(ps, err);
			c = gc_escapes[i].out;
		}
		buf_putc(&ps->value, c);
	}
}

/* One "name = value" (first character c); *has_value false for a bare name. */
static int
gc_entry(struct gitconfig_parser *ps, int c, bool *has_value, struct buf *err)
{
	bool eof;

	buf_reset(&ps->name);
	if (ps->section.len == 0)
		return gc_bad(ps, err);	/* a key before any section */
	while (gc_keychar(c)) {
		buf_putc(&ps->name, gc_lower(c));
		c = gc_next(ps, &eof);
	}
	while (c == ' ' || c == '\t')
		c = gc_next(ps, &eof);
	if (c == '\n') {
		*has_value = false;
		return 0;
	}
	if (c != '=')
		return gc_bad(ps, err);
	*has_value = true;
	return gc_value(ps, err);
}

static void
gc_split_key(const char *key, struct gitconfig_key *k)
{
	const char *dot = strchr(key, '.'), *last = strrchr(key, '.'), *s;

	buf_init(&k->section, BUF_NOLIMIT);
	buf_init(&k->name, BUF_NOLIMIT);
	if (dot == NULL)
		return;
	for (s = key; s < dot; s++)
		buf_putc(&k->section, gc_lower((unsigned char)*s));
	buf_append(&k->section, dot, (size_t)(last - dot));
	for (s = last + 1; *s != '\0'; s++)
		buf_putc(&k->name, gc_lower((unsigned char)*s));
}

int
gitconfig_get(const char *text, size_t len, const char *key, char **value,
    struct buf *err)
{
	struct gitconfig_parser ps;
	struct gitconfig_key k;
	int c, r = 0;
	bool eof, has_value;

	*value = NULL;
	memset(&ps, 0, sizeof ps);
	ps.p = text;
	ps.end = text + len;
	ps.line = 1;
	buf_init(&ps.section, BUF_NOLIMIT);
	buf_init(&ps.name, BUF_NOLIMIT);
	buf_init(&ps.value, BUF_NOLIMIT);
	gc_split_key(key, &k);
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		ps.p += 3;
	for (;;) {
		c = gc_next(&ps, &eof);
		if (eof)
			break;
		if (c == '\n' || gc_space(c))
			continue;
		if (c == '#' || c == ';') {
			while (c != '\n')
				c = gc_next(&ps, &eof);
			continue;
		}
		if (c == '[') {
			if ((r = gc_section(&ps, err)) == -1)
				goto out;
			continue;
		}
		if (!gc_alpha(c) || (r = gc_entry(&ps, c, &has_value, err)) == -1) {
			r = r == -1 ? -1 : gc_bad(&ps, err);
			goto out;
		}
		if (k.name.len == 0 || strcmp(buf_cstr(&ps.section), buf_cstr(&k.section)) != 0 ||
		    strcmp(buf_cstr(&ps.name), buf_cstr(&k.name)) != 0)
			continue;
		free(*value);
		*value = has_value ? xstrdup(buf_cstr(&ps.value)) : NULL;
	}
	r = *value != NULL;
out:
	if (r == -1) {
		free(*value);
		*value = NULL;
	}
	buf_release(&ps.section);
	buf_release(&ps.name);
	buf_release(&ps.value);
	buf_release(&k.section);
	buf_release(&k.name);
	return r;
}

int
gitconfig_get_file(const char *path, const char *key, char **value, struct buf *err)
{
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	struct buf why = BUF_INIT(4096);
	struct file_status st;
	int r;

	*value = NULL;
	if (file_read(path, GITCONFIG_FILE_MAX, FILE_REGULAR | FILE_TRUNCATE, &text, &st) == -1 &&
	    st.fail != FILE_READ) {
		buf_release(&text);
		return 0;
	}
	r = gitconfig_get(text.data ? text.data : "", text.len, key, value, &why);
	if (r == -1)
		buf_printf(err, "%s: %s", path, buf_cstr(&why));
	buf_release(&why);
	buf_release(&text);
	return r;
}

char *
gitconfig_path(const char *value, const char *home)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (value[0] != '~')
		return xstrdup(value);
	if ((value[1] != '/' && value[1] != '\0') || home == NULL || home[0] == '\0')
		return NULL;
	buf_puts(&b, home);
	buf_puts(&b, value + 1);
	return buf_detach(&b, NULL);
}
