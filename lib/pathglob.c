/* The one path-glob matcher, in its three modes: see pathglob.h. */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "pathglob.h"
#include "utf8.h"
#include "xalloc.h"

/*
 * Results of one attempt.  The aborts prune the search as wildmatch's
 * do: once the text runs out no later start can match (ABORT_ALL), and
 * once a "*" meets a "/" only an enclosing "**" can go on (TO_STARSTAR).
 */
enum { PG_MATCH, PG_NOMATCH, PG_ABORT_ALL, PG_ABORT_TO_STARSTAR, PG_UNTERMINATED };

/* What sets the modes apart; the table below is all of it. */
struct pathglob_flavor {
	bool	 utf8;			/* "?" and classes take a UTF-8 character */
	bool	 star2_anywhere;	/* "**" crosses "/" wherever it stands */
	bool	 open_class_literal;	/* an unterminated "[" is itself */
	bool	 final_escape_literal;	/* a final "\" is itself */
};

static const struct pathglob_flavor pathglob_flavors[] = {
	[PATHGLOB_GITIGNORE] =	{ false, false, false, false },
	[PATHGLOB_TOOL] =	{ true,  false, true,  true },
	[PATHGLOB_PERM] =	{ false, true,  false, true },
};

struct pathglob_ctx {
	const struct pathglob_flavor *fl;
	const char	*pat;		/* the start, to tell where a "**" stands */
	const char	*pe;
	const char	*se;
};

static int
pg_is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int pg_is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int pg_is_blank(int c) { return c == ' ' || c == '\t'; }
static int pg_is_cntrl(int c) { return c < 32 || c == 127; }
static int pg_is_digit(int c) { return c >= '0' && c <= '9'; }
static int pg_is_graph(int c) { return c > 32 && c < 127; }
static int pg_is_lower(int c) { return c >= 'a' && c <= 'z'; }
static int pg_is_print(int c) { return c >= 32 && c < 127; }
static int pg_is_punct(int c) { return pg_is_graph(c) && !pg_is_alnum(c); }
static int pg_is_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int pg_is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static int
pg_is_xdigit(int c)
{
	return pg_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* git's classes, ASCII only whatever the locale. */
static const struct {
	const char	*name;
	int		(*fn)(int);
} pathglob_classes[] = {
	{ "alnum", pg_is_alnum }, { "alpha", pg_is_alpha }, { "blank", pg_is_blank },
	{ "cntrl", pg_is_cntrl }, { "digit", pg_is_digit }, { "graph", pg_is_graph },
	{ "lower", pg_is_lower }, { "print", pg_is_print }, { "punct", pg_is_punct },
	{ "space", pg_is_space }, { "upper", pg_is_upper }, { "xdigit", pg_is_xdigit },
};

/* One character at s (before end): its length, with *cp set. */
static size_t
pg_char(const struct pathglob_ctx *c, const char *s, const char *end, uint32_t *cp)
{
	if (c->fl->utf8)
		return utf8_decode(s, (size_t)(end - s), cp);
	*cp = (unsigned char)*s;
	return 1;
}

/* Is t in the class named name[0..n)?  -1 if there is no such class. */
static int
pg_named_class(const char *name, size_t n, uint32_t t)
{
	size_t i;

	for (i = 0; i < sizeof pathglob_classes / sizeof pathglob_classes[0]; i++)
		if (strlen(pathglob_classes[i].name) == n &&
		    memcmp(pathglob_classes[i].name, name, n) == 0)
			return t < 128 && pathglob_classes[i].fn((int)t) ? 1 : 0;
	return -1;
}

/*
 * The bracket class at *pp against the text character t.  On PG_MATCH
 * *pp is left on the closing "]".
 */
static int
pg_class(const struct pathglob_ctx *c, const char **pp, uint32_t t)
{
	const char *p = *pp + 1, *pe = c->pe;
	bool neg = false, hit = false, first = true, have_prev = false;
	uint32_t prev = 0, ch;

	if (p < pe && (*p == '!' || *p == '^')) {
		neg = true;
		p++;
	}
	for (;; first = false) {
		if (p >= pe)
			return PG_UNTERMINATED;
		if (*p == ']' && !first)
			break;
		if (*p == '\\') {
			if (++p >= pe)
				return PG_UNTERMINATED;
		} else if (*p == '-' && have_prev && p + 1 < pe && p[1] != ']') {
			if (*++p == '\\' && ++p >= pe)
				return PG_UNTERMINATED;
			p += pg_char(c, p, pe, &ch);
			if (t >= prev && t <= ch)
				hit = true;
			have_prev = false;
			continue;
		} else if (*p == '[' && p + 1 < pe && p[1] == ':') {
			const char *name = p + 2, *q = name;
			int r;

			while (q < pe && *q != ']')
				q++;
			if (q >= pe)
				return PG_UNTERMINATED;
			if (q > name && q[-1] == ':') {
				r = pg_named_class(name, (size_t)(q - name - 1), t);
				if (r == -1)
					return PG_ABORT_ALL;
				hit |= r == 1;
				p = q + 1;
				have_prev = false;
				continue;
			}
			/* No ":]": the "[" is itself. */
		}
		p += pg_char(c, p, pe, &ch);
		if (t == ch)
			hit = true;
		prev = ch;
		have_prev = true;
	}
	*pp = p;
	return hit != neg && t != '/' ? PG_MATCH : PG_NOMATCH;
}

static int pg_do(const struct pathglob_ctx *, const char *, const char *);

/* Permission patterns: "**" (q is past it) crosses "/" wherever it stands. */
static int
pg_star2_anywhere(const struct pathglob_ctx *c, const char *q, const char *s)
{
	const char *t;
	int r;

	if (q == c->pe)
		return PG_MATCH;
	if (*q == '/') {
		/* "**" then "/": zero or more whole directories. */
		for (t = s; t < c->se; t++) {
			if (t != s && t[-1] != '/')
				continue;
			r = pg_do(c, q + 1, t);
			if (r == PG_MATCH || r == PG_ABORT_ALL)
				return r;
		}
		return t == s && pg_do(c, q + 1, t) == PG_MATCH ? PG_MATCH : PG_ABORT_ALL;
	}
	for (t = s;; t++) {
		r = pg_do(c, q, t);
		if (r == PG_MATCH || r == PG_ABORT_ALL)
			return r;
		if (t == c->se)
			return PG_ABORT_ALL;
	}
}

/* A run of stars at p against s. */
static int
pg_star(const struct pathglob_ctx *c, const char *p, const char *s)
{
	const char *pe = c->pe, *q = p + 1, *t;
	bool match_slash = false;
	uint32_t cp;
	int r;

	if (q < pe && *q == '*') {
		while (q < pe && *q == '*')
			q++;
		if (c->fl->star2_anywhere)
			return pg_star2_anywhere(c, q, s);
		if ((p == c->pat || p[-1] == '/') && (q == pe || *q == '/' ||
		    (q + 1 < pe && q[0] == '\\' && q[1] == '/'))) {
			if (q < pe && *q == '/' && pg_do(c, q + 1, s) == PG_MATCH)
				return PG_MATCH;
			match_slash = true;
		}
	}
	if (q == pe) {
		if (match_slash)
			return PG_MATCH;
		return memchr(s, '/', (size_t)(c->se - s)) != NULL ?
		    PG_ABORT_TO_STARSTAR : PG_MATCH;
	}
	for (t = s;; t += pg_char(c, t, c->se, &cp)) {
		r = pg_do(c, q, t);
		if (r != PG_NOMATCH && (!match_slash || r != PG_ABORT_TO_STARSTAR))
			return r;
		if (t == c->se)
			return PG_ABORT_ALL;
		if (!match_slash && *t == '/')
			return PG_ABORT_TO_STARSTAR;
	}
}

static int
pg_do(const struct pathglob_ctx *c, const char *p, const char *s)
{
	const char *pe = c->pe, *se = c->se, *q;
	uint32_t t;
	size_t n;
	int r;

	while (p < pe) {
		if (s == se && *p != '*')
			return PG_ABORT_ALL;
		switch (*p) {
		case '\\':
			if (p + 1 < pe)
				p++;
			else if (!c->fl->final_escape_literal)
				return PG_NOMATCH;
			break;
		case '?':
			if (*s == '/')
				return PG_NOMATCH;
			p++;
			s += pg_char(c, s, se, &t);
			continue;
		case '[':
			q = p;
			n = pg_char(c, s, se, &t);
			r = pg_class(c, &q, t);
			if (r == PG_UNTERMINATED) {
				if (!c->fl->open_class_literal)
					return PG_ABORT_ALL;
				break;
			}
			if (r != PG_MATCH)
				return r;
			p = q + 1;
			s += n;
			continue;
		case '*':
			return pg_star(c, p, s);
		default:
			break;
		}
		if (*s != *p)
			return PG_NOMATCH;
		p++;
		s++;
	}
	return s == se ? PG_MATCH : PG_NOMATCH;
}

bool
pathglob_match(enum pathglob_mode mode, const char *pat, size_t patlen,
    const char *path, size_t pathlen)
{
	struct pathglob_ctx c;

	c.fl = &pathglob_flavors[mode];
	c.pat = pat;
	c.pe = pat + patlen;
	c.se = path + pathlen;
	return pg_do(&c, pat, path) == PG_MATCH;
}

bool
pathglob_matchs(enum pathglob_mode mode, const char *pat, const char *path)
{
	return pathglob_match(mode, pat, strlen(pat), path, strlen(path));
}

bool
pathglob_match_or_parent(enum pathglob_mode mode, const char *pat, const char *path)
{
	size_t plen = strlen(pat), n = strlen(path);

	for (;;) {
		if (pathglob_match(mode, pat, plen, path, n))
			return true;
		while (n > 0 && path[n - 1] != '/')
			n--;
		if (n <= 1)
			return false;	/* no parent left, or only "/" */
		n--;
	}
}

bool
pathglob_match_any_name(enum pathglob_mode mode, const char *pat, const char *path)
{
	size_t plen = strlen(pat);
	const char *name = path, *end;

	for (;; name = end + 1) {
		end = strchr(name, '/');
		if (end == NULL)
			end = name + strlen(name);
		if (end > name &&
		    pathglob_match(mode, pat, plen, name, (size_t)(end - name)))
			return true;
		if (*end == '\0')
			return false;
	}
}

bool
pathglob_has_wild(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

/* brace expansion */

/* The "}" closing the "{" at open, or NULL. */
static const char *
pathglob_brace_close(const char *open)
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

struct pathglob_blist {
	char	**v;
	size_t	  n;
	size_t	  max;
};

static int
pathglob_brace_expand(const char *s, struct pathglob_blist *l, struct buf *err)
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
	close = pathglob_brace_close(open);
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
			r = pathglob_brace_expand(buf_cstr(&one), l, err);
			buf_release(&one);
			if (r == -1)
				return -1;
			alt = q + 1;
		}
	}
	return 0;
}

int
pathglob_braces(const char *pat, size_t max, char ***out, struct buf *err)
{
	struct pathglob_blist l;

	l.v = xcalloc(max + 1, sizeof *l.v);
	l.n = 0;
	l.max = max;
	if (pathglob_brace_expand(pat, &l, err) == -1) {
		pathglob_braces_free(l.v);
		*out = NULL;
		return -1;
	}
	*out = l.v;
	return (int)l.n;
}

void
pathglob_braces_free(char **list)
{
	size_t i;

	if (list == NULL)
		return;
	for (i = 0; list[i] != NULL; i++)
		free(list[i]);
	free(list);
}
