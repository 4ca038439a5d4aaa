/* notice: the never-silent list of what tandem reads and does not honour. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

#include "claude/notice.h"

#define NOTICE_MAX	512	/* past this, one more line says how many were left out */

struct notice {
	char	*kind, *name, *source, *why;
};

struct notices {
	struct notice	*v;
	size_t		 n, cap;
	size_t		 shown;		/* items notice_take_new has handed out */
	size_t		 dropped;	/* items past NOTICE_MAX */
};

struct notices *
notice_new(void)
{
	return xcalloc(1, sizeof(struct notices));
}

void
notice_free(struct notices *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].kind);
		free(l->v[i].name);
		free(l->v[i].source);
		free(l->v[i].why);
	}
	free(l->v);
	free(l);
}

static int
notice_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

void
notice_add(struct notices *l, const char *kind, const char *name, const char *source, const char *why)
{
	struct notice *it;
	size_t i;

	if (l == NULL || kind == NULL || name == NULL)
		return;
	for (i = 0; i < l->n; i++)
		if (notice_same(l->v[i].kind, kind) && notice_same(l->v[i].name, name) &&
		    notice_same(l->v[i].source, source))
			return;
	if (l->n >= NOTICE_MAX) {
		l->dropped++;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	it = &l->v[l->n++];
	it->kind = xstrdup(kind);
	it->name = xstrdup(name);
	it->source = source != NULL ? xstrdup(source) : NULL;
	it->why = why != NULL ? xstrdup(why) : NULL;
}

size_t
notice_count(const struct notices *l)
{
	return l != NULL ? l->n : 0;
}

size_t
notice_pending(const struct notices *l)
{
	return l != NULL ? l->n - l->shown : 0;
}

static void
notice_lines(const struct notices *l, size_t from, const char *prefix, struct buf *out)
{
	size_t i;

	for (i = from; i < l->n; i++) {
		const struct notice *it = &l->v[i];

		buf_printf(out, "%s%s%s%s \"%s\" is not honoured", prefix ? prefix : "",
		    it->source ? it->source : "", it->source ? ": " : "", it->kind, it->name);
		if (it->why != NULL && it->why[0] != '\0')
			buf_printf(out, " (%s)", it->why);
		buf_putc(out, '\n');
	}
	if (l->dropped > 0 && from < l->n)
		buf_printf(out, "%s... and %zu more not listed\n", prefix ? prefix : "", l->dropped);
}

void
notice_format(const struct notices *l, const char *prefix, struct buf *out)
{
	if (l != NULL)
		notice_lines(l, 0, prefix, out);
}

void
notice_take_new(struct notices *l, const char *prefix, struct buf *out)
{
	if (l == NULL)
		return;
	notice_lines(l, l->shown, prefix, out);
	l->shown = l->n;
}
