/* Permission rules and the decision for one tool call: see perm.h. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "perm.h"
#include "sandbox.h"
#include "xalloc.h"

#define PERM_RULE_MAX	4096	/* bytes in one rule */
#define PERM_DEPTH_MAX	8	/* nesting of $(...), subshells and bash -c */
#define PERM_DOCS_MAX	8	/* here-documents pending on one line */
#define PERM_SHORT_CMD	80	/* commands up to this long are remembered exactly */

const struct perm_alias perm_aliases[] = {
	{ "Bash",	"run_bash" },
	{ "Edit",	"edit_file" },
	{ "MultiEdit",	"edit_file" },
	{ "Write",	"write_file" },
	{ "Read",	"read_file" },
	{ "Grep",	"grep" },
	{ "Glob",	"glob" },
	{ "LS",		"list_dir" },
	{ NULL,		NULL }
};

/* What a tool's patterns are matched against. */
enum perm_kind { PERM_KIND_BASH, PERM_KIND_PATH, PERM_KIND_PATCH };

static const struct perm_tool {
	const char	*name;
	enum perm_kind	 kind;
	const char	*field;		/* the input member patterns look at */
} perm_tools[] = {
	{ "run_bash",	 PERM_KIND_BASH,  "command" },
	{ "read_file",	 PERM_KIND_PATH,  "path" },
	{ "list_dir",	 PERM_KIND_PATH,  "path" },
	{ "glob",	 PERM_KIND_PATH,  "path" },
	{ "grep",	 PERM_KIND_PATH,  "path" },
	{ "edit_file",	 PERM_KIND_PATH,  "path" },
	{ "write_file",	 PERM_KIND_PATH,  "path" },
	{ "apply_patch", PERM_KIND_PATCH, "patch" },
};

static const struct {
	const char	*name;
	enum perm_mode	 mode;
} perm_mode_names[] = {
	/* The first name of each mode is the one shown. */
	{ "ask",		PERM_ASK },
	{ "accept-edits",	PERM_ACCEPT_EDITS },
	{ "plan",		PERM_PLAN },
	{ "yolo",		PERM_YOLO },
	/* Claude Code's names. */
	{ "default",		PERM_ASK },
	{ "acceptEdits",	PERM_ACCEPT_EDITS },
	{ "bypassPermissions",	PERM_YOLO },
};

/* Shell words that only group or sequence commands: a part starting with one is the rest. */
static const char *const bash_keywords[] = {
	"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
	"{", "}", "!", "time", "esac", NULL
};

/* Commands that run the command after them: deny rules look past them. */
static const char *const bash_wrappers[] = {
	"sudo", "doas", "env", "nohup", "time", "command", "builtin", "exec",
	"nice", "ionice", "timeout", "stdbuf", "xargs", "watch", "chroot",
	"setsid", "flock", "strace", "ltrace", "unbuffer", "chrt", "taskset", NULL
};

/* Shells whose -c argument is itself a command line. */
static const char *const bash_shells[] = {
	"bash", "sh", "zsh", "dash", "ksh", "mksh", NULL
};

struct perm_rule {
	char			*text;		/* as written */
	const struct perm_tool	*tool;
	char			*pattern;	/* NULL: any call */
	char			*alt;		/* run_bash: another glob that matches too */
};

struct perm_ruleset {
	struct perm_rule	*v;
	size_t			 n, cap;
};

struct perm_rules {
	struct perm_ruleset	 lists[3];
	char			*root;
};

/* One part of a shell command line. */
struct bash_part {
	char	*text;		/* blanks squeezed, quotes kept */
	bool	 redirect;	/* sends output into a file */
};

struct bash_parts {
	struct bash_part	*v;
	size_t			 n, cap;
	bool			 opaque;	/* nested too deep: some parts are unknown */
};

struct bash_doc {
	char	*delim;
	bool	 strip_tabs;
	bool	 expand;	/* unquoted delimiter: $(...) in the body runs */
};

struct bash_scan {
	const char		*s;
	size_t			 i;
	int			 depth;
	struct bash_parts	*out;
	struct bash_doc		 docs[PERM_DOCS_MAX];
	size_t			 ndocs;
};

/* One way of naming a file: relative to the root and absolute. */
struct perm_path {
	char	*rel;		/* "." for the root; NULL when outside it or unknown */
	char	*abs;		/* NULL when unknown */
};

/* What a call's patterns are matched against. */
struct perm_subject {
	const struct perm_tool	*tool;		/* NULL: a tool no pattern applies to */
	char			*whole;		/* run_bash: the squeezed command */
	struct bash_parts	 parts;
	struct perm_path	*paths;		/* file tools: every name of every file */
	size_t			 npaths, cap;
};

static void bash_list(struct bash_scan *, char closer);

static bool
perm_in(const char *const *list, const char *word)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, word) == 0)
			return true;
	return false;
}

const char *
perm_canonical_tool(const char *name)
{
	const struct perm_alias *a;

	if (name == NULL)
		return NULL;
	for (a = perm_aliases; a->alias != NULL; a++)
		if (strcmp(a->alias, name) == 0)
			return a->name;
	return name;
}

const char *
perm_alias_of(const char *tool_name)
{
	const struct perm_alias *a;

	for (a = perm_aliases; a->alias != NULL; a++)
		if (strcmp(a->name, tool_name) == 0)
			return a->alias;
	return NULL;
}

static const struct perm_tool *
perm_tool_find(const char *name)
{
	size_t i;

	name = perm_canonical_tool(name);
	for (i = 0; name != NULL && i < sizeof(perm_tools) / sizeof(perm_tools[0]); i++)
		if (strcmp(perm_tools[i].name, name) == 0)
			return &perm_tools[i];
	return NULL;
}

const char *
perm_mode_name(enum perm_mode mode)
{
	size_t i;

	for (i = 0; i < sizeof(perm_mode_names) / sizeof(perm_mode_names[0]); i++)
		if (perm_mode_names[i].mode == mode)
			return perm_mode_names[i].name;
	return "unknown";
}

int
perm_mode_parse(const char *name, enum perm_mode *out)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(perm_mode_names) / sizeof(perm_mode_names[0]); i++)
		if (strcmp(perm_mode_names[i].name, name) == 0) {
			*out = perm_mode_names[i].mode;
			return 0;
		}
	return -1;
}

const char *
perm_list_name(enum perm_list list)
{
	switch (list) {
	case PERM_LIST_ALLOW:
		return "allow";
	case PERM_LIST_ASK:
		return "ask";
	case PERM_LIST_DENY:
		return "deny";
	}
	return "?";
}

/*
 * Matching.
 */

/* A command glob: '*' matches anything, "\*" a star; everything else itself. */
static bool
perm_cmd_glob(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL, *lit;
	size_t step;

	while (*s != '\0') {
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		}
		lit = p;
		step = 1;
		if (p[0] == '\\' && p[1] == '*') {
			lit = p + 1;
			step = 2;
		}
		if (*lit != '\0' && *lit == *s) {
			p += step;
			s++;
			continue;
		}
		if (star_p == NULL)
			return false;
		p = star_p;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static bool
perm_rule_cmd_match(const struct perm_rule *r, const char *text)
{
	return perm_cmd_glob(r->pattern, text) ||
	    (r->alt != NULL && perm_cmd_glob(r->alt, text));
}

enum { PG_MATCH, PG_NOMATCH, PG_ABORT_ALL, PG_ABORT_TO_STARSTAR };

/* One [...] class at *pp against c; *pp is left on the closing ']'. */
static bool
pg_class(const char **pp, char c)
{
	const char *p = *pp + 1;
	bool neg = false, hit = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	do {
		char lo = *p, hi;

		if (lo == '\0')
			break;
		if (lo == '\\' && p[1] != '\0')
			lo = *++p;
		hi = lo;
		if (p[1] == '-' && p[2] != ']' && p[2] != '\0') {
			hi = p[2];
			p += 2;
			if (hi == '\\' && p[1] != '\0')
				hi = *++p;
		}
		if (c >= lo && c <= hi)
			hit = true;
		p++;
	} while (*p != ']');
	*pp = *p == ']' ? p : p - 1;
	return hit != neg && c != '/';
}

/*
 * A path glob.  The abort results prune the search as in wildmatch: once
 * the text runs out, or a single star meets a '/', no later start can do
 * better, which keeps hostile patterns from taking exponential time.
 */
static int
pg_match(const char *p, const char *s)
{
	const char *t;
	int r;

	for (; *p != '\0'; p++, s++) {
		if (*s == '\0' && *p != '*')
			return PG_ABORT_ALL;
		switch (*p) {
		case '\\':
			if (p[1] != '\0')
				p++;
			if (*s != *p)
				return PG_NOMATCH;
			break;
		case '?':
			if (*s == '/')
				return PG_NOMATCH;
			break;
		case '[':
			if (!pg_class(&p, *s))
				return PG_NOMATCH;
			break;
		case '*':
			if (p[1] == '*') {
				while (*p == '*')
					p++;
				if (*p == '\0')
					return PG_MATCH;
				/* "**" then "/": zero or more whole directories. */
				if (*p == '/') {
					for (t = s; *t != '\0'; t++) {
						if (t != s && t[-1] != '/')
							continue;
						r = pg_match(p + 1, t);
						if (r == PG_MATCH || r == PG_ABORT_ALL)
							return r;
					}
					return t == s && pg_match(p + 1, t) == PG_MATCH ?
					    PG_MATCH : PG_ABORT_ALL;
				}
				for (t = s;; t++) {
					r = pg_match(p, t);
					if (r == PG_MATCH || r == PG_ABORT_ALL)
						return r;
					if (*t == '\0')
						return PG_ABORT_ALL;
				}
			}
			p++;
			if (*p == '\0')
				return strchr(s, '/') != NULL ? PG_ABORT_TO_STARSTAR : PG_MATCH;
			for (t = s;; t++) {
				r = pg_match(p, t);
				if (r != PG_NOMATCH)
					return r;
				if (*t == '\0')
					return PG_ABORT_ALL;
				if (*t == '/')
					return PG_ABORT_TO_STARSTAR;
			}
		default:
			if (*s != *p)
				return PG_NOMATCH;
			break;
		}
	}
	return *s == '\0' ? PG_MATCH : PG_NOMATCH;
}

/* Does the glob match path or one of the directories it lies in? */
static bool
pg_match_or_parent(const char *pat, const char *path)
{
	char *copy = xstrdup(path), *slash;
	bool hit = pg_match(pat, copy) == PG_MATCH;

	while (!hit && (slash = strrchr(copy, '/')) != NULL && slash != copy) {
		*slash = '\0';
		hit = pg_match(pat, copy) == PG_MATCH;
	}
	free(copy);
	return hit;
}

/* A pattern without '/' matches any one name along the path. */
static bool
pg_match_any_name(const char *pat, const char *path)
{
	char *copy = xstrdup(path), *name, *next;
	bool hit = false;

	for (name = copy; !hit && name != NULL; name = next) {
		next = strchr(name, '/');
		if (next != NULL)
			*next++ = '\0';
		if (*name != '\0')
			hit = pg_match(pat, name) == PG_MATCH;
	}
	free(copy);
	return hit;
}

static bool
perm_path_match(const char *pat, const struct perm_path *p)
{
	if (pat[0] == '/')
		return p->abs != NULL && pg_match_or_parent(pat, p->abs);
	if (p->rel == NULL)
		return false;
	if (strchr(pat, '/') == NULL)
		return pg_match_any_name(pat, p->rel);
	return pg_match_or_parent(pat, p->rel);
}

/*
 * Shell command lines.
 */

/* Append c, after the one space that stands for any blanks before it. */
static void
bash_put(struct buf *cur, bool *space, char c)
{
	if (*space && cur->len > 0)
		buf_putc(cur, ' ');
	*space = false;
	buf_putc(cur, c);
}

static void
bash_puts(struct buf *cur, bool *space, const char *s)
{
	for (; *s != '\0'; s++)
		bash_put(cur, space, *s);
}

/* The command with runs of unquoted blanks made one space, none at either end. */
static char *
bash_squeeze(const char *s)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	bool space = false;
	char q = 0;

	for (; *s != '\0'; s++) {
		if (q == 0 && (*s == ' ' || *s == '\t')) {
			space = true;
			continue;
		}
		bash_put(&b, &space, *s);
		if (q != '\'' && *s == '\\' && s[1] != '\0')
			buf_putc(&b, *++s);
		else if (q == 0 && (*s == '\'' || *s == '"'))
			q = *s;
		else if (q != 0 && *s == q)
			q = 0;
	}
	return buf_detach(&b, NULL);
}

/* The word of squeezed text s at *pos, quotes kept; NULL at the end.  The caller frees. */
static char *
bash_word(const char *s, size_t *pos)
{
	size_t i = *pos, start;
	char q = 0;

	while (s[i] == ' ')
		i++;
	if (s[i] == '\0') {
		*pos = i;
		return NULL;
	}
	for (start = i; s[i] != '\0' && (q != 0 || s[i] != ' '); i++) {
		if (q != '\'' && s[i] == '\\' && s[i + 1] != '\0')
			i++;
		else if (q == 0 && (s[i] == '\'' || s[i] == '"'))
			q = s[i];
		else if (q != 0 && s[i] == q)
			q = 0;
	}
	*pos = i;
	return xstrndup(s + start, i - start);
}

/* A word with its quotes and escapes taken away, as the shell would pass it. */
static char *
bash_unquote(const char *w)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char q = 0;

	for (; *w != '\0'; w++) {
		if (q == 0 && (*w == '\'' || *w == '"'))
			q = *w;
		else if (q != 0 && *w == q)
			q = 0;
		else if (*w == '\\' && w[1] != '\0' && (q == 0 ||
		    (q == '"' && strchr("\"\\$`", w[1]) != NULL)))
			buf_putc(&b, *++w);
		else
			buf_putc(&b, *w);
	}
	return buf_detach(&b, NULL);
}

static bool
bash_is_assignment(const char *w)
{
	size_t i = 0;

	if (!((w[0] >= 'A' && w[0] <= 'Z') || (w[0] >= 'a' && w[0] <= 'z') || w[0] == '_'))
		return false;
	while (w[i] == '_' || (w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= 'a' && w[i] <= 'z') ||
	    (w[i] >= '0' && w[i] <= '9'))
		i++;
	return w[i] == '=';
}

static const char *
bash_basename(const char *w)
{
	const char *slash = strrchr(w, '/');

	return slash != NULL ? slash + 1 : w;
}

/* Skip the words that only group commands ("then", "{", "!"). */
static const char *
bash_skip_keywords(const char *t)
{
	size_t pos;
	char *w;

	for (;;) {
		pos = 0;
		w = bash_word(t, &pos);
		if (w == NULL || !perm_in(bash_keywords, w)) {
			free(w);
			return t;
		}
		free(w);
		t += pos;
		while (*t == ' ')
			t++;
	}
}

static bool
bash_command_start(const struct buf *cur)
{
	return *bash_skip_keywords(buf_cstr(cur)) == '\0';
}

/* Does the redirection at p ('>') send output into a file? */
static bool
bash_writes_file(const char *p)
{
	static const char *const harmless[] = { "/dev/null", "/dev/stdout", "/dev/stderr", NULL };
	size_t n;
	char *target;
	bool writes;

	p++;
	if (*p == '>')
		p++;
	if (*p == '|')
		p++;
	if (*p == '&') {
		p++;
		if ((*p >= '0' && *p <= '9') || *p == '-')
			return false;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, " \t\n;&|<>()");
	target = xstrndup(p, n);
	writes = !perm_in(harmless, target);
	free(target);
	return writes;
}

static void
bash_add_part(struct bash_parts *out, const char *text, bool redirect)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 8;
		out->v = xreallocarray(out->v, out->cap, sizeof(*out->v));
	}
	out->v[out->n].text = xstrdup(text);
	out->v[out->n].redirect = redirect;
	out->n++;
}

static void
bash_parts_release(struct bash_parts *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		free(out->v[i].text);
	free(out->v);
	memset(out, 0, sizeof(*out));
}

static void bash_split_into(const char *command, int depth, struct bash_parts *out);

/*
 * bash -c STRING, sh -c STRING and eval WORDS anywhere in a part: the
 * string is more command line, split into parts of its own.
 */
static void
bash_inner(struct bash_scan *sc, const char *t)
{
	enum { NONE, SHELL, CODE, EVAL } state = NONE;
	struct buf code = BUF_INIT(BUF_NOLIMIT);
	size_t pos = 0;
	char *w, *u;

	while ((w = bash_word(t, &pos)) != NULL) {
		u = bash_unquote(w);
		if (state == CODE || state == EVAL) {
			if (code.len > 0)
				buf_putc(&code, ' ');
			buf_puts(&code, u);
			if (state == CODE) {
				bash_split_into(buf_cstr(&code), sc->depth + 1, sc->out);
				buf_reset(&code);
				state = NONE;
			}
		} else if (state == SHELL) {
			if (u[0] == '-' && u[1] != '-' && strchr(u, 'c') != NULL)
				state = CODE;
		} else if (perm_in(bash_shells, bash_basename(u)))
			state = SHELL;
		else if (strcmp(u, "eval") == 0)
			state = EVAL;
		free(u);
		free(w);
	}
	if (code.len > 0)
		bash_split_into(buf_cstr(&code), sc->depth + 1, sc->out);
	buf_release(&code);
}

static void
bash_flush(struct bash_scan *sc, struct buf *cur, bool *redirect)
{
	const char *t = bash_skip_keywords(buf_cstr(cur));

	if (*t != '\0') {
		bash_add_part(sc->out, t, *redirect);
		bash_inner(sc, t);
	}
	buf_reset(cur);
	*redirect = false;
}

/* A nested command list: its parts are added, its text is not. */
static void
bash_nested(struct bash_scan *sc, char closer)
{
	if (sc->depth >= PERM_DEPTH_MAX) {
		sc->out->opaque = true;
		sc->i += strlen(sc->s + sc->i);
		return;
	}
	sc->depth++;
	bash_list(sc, closer);
	sc->depth--;
}

/* $(...), `...`, <(...), >(...) with sc->i inside: parts added, text kept in cur. */
static void
bash_subst(struct bash_scan *sc, char closer, struct buf *cur)
{
	size_t start = sc->i;

	bash_nested(sc, closer);
	buf_append(cur, sc->s + start, sc->i - start);
	if (sc->s[sc->i] == closer) {
		buf_putc(cur, closer);
		sc->i++;
	}
}

static void
bash_single(struct bash_scan *sc, struct buf *cur, bool *space)
{
	const char *s = sc->s;

	bash_put(cur, space, s[sc->i++]);
	while (s[sc->i] != '\0' && s[sc->i] != '\'')
		buf_putc(cur, s[sc->i++]);
	if (s[sc->i] == '\'')
		buf_putc(cur, s[sc->i++]);
}

static void
bash_double(struct bash_scan *sc, struct buf *cur, bool *space)
{
	const char *s = sc->s;
	char c;

	bash_put(cur, space, s[sc->i++]);
	while ((c = s[sc->i]) != '\0' && c != '"') {
		if (c == '\\' && s[sc->i + 1] != '\0') {
			buf_append(cur, s + sc->i, 2);
			sc->i += 2;
		} else if (c == '$' && s[sc->i + 1] == '(') {
			buf_puts(cur, "$(");
			sc->i += 2;
			bash_subst(sc, ')', cur);
		} else if (c == '`') {
			buf_putc(cur, c);
			sc->i++;
			bash_subst(sc, '`', cur);
		} else {
			buf_putc(cur, c);
			sc->i++;
		}
	}
	if (c == '"')
		buf_putc(cur, s[sc->i++]);
}

/* "<<WORD" or "<<-WORD": remember the delimiter; the body follows the line. */
static void
bash_heredoc_start(struct bash_scan *sc, struct buf *cur, bool *space)
{
	struct buf delim = BUF_INIT(BUF_NOLIMIT);
	const char *s = sc->s;
	bool strip = false, quoted = false;
	char q = 0;

	bash_puts(cur, space, "<<");
	sc->i += 2;
	if (s[sc->i] == '-') {
		strip = true;
		buf_putc(cur, '-');
		sc->i++;
	}
	while (s[sc->i] == ' ' || s[sc->i] == '\t')
		sc->i++;
	for (; s[sc->i] != '\0'; sc->i++) {
		char c = s[sc->i];

		if (q == 0 && strchr(" \t\n;&|<>()", c) != NULL)
			break;
		buf_putc(cur, c);
		if (q == 0 && (c == '\'' || c == '"')) {
			q = c;
			quoted = true;
		} else if (q != 0 && c == q)
			q = 0;
		else if (q == 0 && c == '\\' && s[sc->i + 1] != '\0') {
			quoted = true;
			buf_putc(&delim, s[++sc->i]);
			buf_putc(cur, s[sc->i]);
		} else
			buf_putc(&delim, c);
	}
	if (sc->ndocs == PERM_DOCS_MAX || delim.len == 0) {
		sc->out->opaque = true;
		buf_release(&delim);
		return;
	}
	sc->docs[sc->ndocs].delim = buf_detach(&delim, NULL);
	sc->docs[sc->ndocs].strip_tabs = strip;
	sc->docs[sc->ndocs].expand = !quoted;
	sc->ndocs++;
}

/* At a line's end: skip the bodies of its here-documents, minding $(...) in them. */
static void
bash_heredoc_bodies(struct bash_scan *sc)
{
	struct buf junk = BUF_INIT(BUF_NOLIMIT);
	struct bash_doc docs[PERM_DOCS_MAX];
	const char *s = sc->s, *p;
	size_t d, n, ndocs = sc->ndocs;
	bool bol;

	/* Taken out first: a substitution in a body may end lines of its own. */
	memcpy(docs, sc->docs, sizeof(docs));
	sc->ndocs = 0;
	for (d = 0; d < ndocs; d++) {
		n = strlen(docs[d].delim);
		for (bol = true; s[sc->i] != '\0';) {
			if (bol) {
				p = s + sc->i;
				while (docs[d].strip_tabs && *p == '\t')
					p++;
				if (strncmp(p, docs[d].delim, n) == 0 &&
				    (p[n] == '\n' || p[n] == '\0')) {
					sc->i = (size_t)(p + n - s) + (p[n] == '\n');
					break;
				}
			}
			bol = s[sc->i] == '\n';
			if (docs[d].expand && s[sc->i] == '\\' && s[sc->i + 1] != '\0')
				sc->i += 2;
			else if (docs[d].expand && s[sc->i] == '$' && s[sc->i + 1] == '(') {
				sc->i += 2;
				bash_subst(sc, ')', &junk);
			} else if (docs[d].expand && s[sc->i] == '`') {
				sc->i++;
				bash_subst(sc, '`', &junk);
			} else
				sc->i++;
		}
		free(docs[d].delim);
	}
	buf_release(&junk);
}

/*
 * For "$((" with the arithmetic starting at i: the index just past its
 * "))", or 0 when it holds a substitution (then it is scanned as commands).
 */
static size_t
bash_arith_end(const char *s, size_t i)
{
	int depth = 0;

	if (s[i - 1] != '(')
		return 0;
	for (; s[i] != '\0'; i++) {
		if (s[i] == '`' || (s[i] == '$' && s[i + 1] == '('))
			return 0;
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && depth > 0)
			depth--;
		else if (s[i] == ')')
			return s[i + 1] == ')' ? i + 2 : 0;
	}
	return 0;
}

/*
 * Scan a command list up to closer (0: the end), adding its parts.  A part
 * ends at ; & && | || |& and newlines; quotes, escapes, substitutions,
 * subshells, comments and here-documents are followed as the shell does.
 */
static void
bash_list(struct bash_scan *sc, char closer)
{
	struct buf cur = BUF_INIT(BUF_NOLIMIT);
	const char *s = sc->s;
	bool redirect = false, space = false;
	int paren = 0;
	size_t n;
	char c, next;

	while ((c = s[sc->i]) != '\0') {
		next = s[sc->i + 1];
		if (c == closer && (closer != ')' || paren == 0))
			break;
		switch (c) {
		case ' ':
		case '\t':
			space = true;
			sc->i++;
			continue;
		case '\\':
			if (next == '\n') {
				space = true;
				sc->i += 2;
				continue;
			}
			bash_put(&cur, &space, c);
			if (next != '\0')
				buf_putc(&cur, s[++sc->i]);
			sc->i++;
			continue;
		case '#':
			if (cur.len == 0 || space) {
				sc->i += strcspn(s + sc->i, "\n");
				continue;
			}
			break;
		case '\n':
			bash_flush(sc, &cur, &redirect);
			sc->i++;
			bash_heredoc_bodies(sc);
			space = false;
			continue;
		case ';':
			bash_flush(sc, &cur, &redirect);
			sc->i++;
			continue;
		case '&':
			if (next == '>' || (sc->i > 0 && (s[sc->i - 1] == '>' || s[sc->i - 1] == '<')))
				break;	/* &> >&2 <&0: part of a redirection */
			bash_flush(sc, &cur, &redirect);
			sc->i += next == '&' ? 2 : 1;
			continue;
		case '|':
			if (sc->i > 0 && s[sc->i - 1] == '>' && next != '|')
				break;	/* >| */
			bash_flush(sc, &cur, &redirect);
			sc->i += next == '|' || next == '&' ? 2 : 1;
			continue;
		case '(':
			if (bash_command_start(&cur)) {
				bash_flush(sc, &cur, &redirect);
				sc->i++;
				bash_nested(sc, ')');
				if (s[sc->i] == ')')
					sc->i++;
				continue;
			}
			paren++;
			break;
		case ')':
			if (paren > 0) {
				paren--;
				break;
			}
			bash_flush(sc, &cur, &redirect);	/* unbalanced */
			sc->i++;
			continue;
		case '>':
		case '<':
			if (next == '(') {
				bash_put(&cur, &space, c);
				buf_putc(&cur, '(');
				sc->i += 2;
				bash_subst(sc, ')', &cur);
				continue;
			}
			if (c == '<' && next == '<' && s[sc->i + 2] == '<') {
				bash_puts(&cur, &space, "<<<");	/* a here-string */
				sc->i += 3;
				continue;
			}
			if (c == '<' && next == '<') {
				bash_heredoc_start(sc, &cur, &space);
				continue;
			}
			if (c == '>' && bash_writes_file(s + sc->i))
				redirect = true;
			break;
		case '$':
			if (next == '(' && (n = bash_arith_end(s, sc->i + 3)) != 0) {
				bash_put(&cur, &space, c);
				buf_append(&cur, s + sc->i + 1, n - sc->i - 1);
				sc->i = n;
				continue;
			}
			if (next == '(') {
				bash_puts(&cur, &space, "$(");
				sc->i += 2;
				bash_subst(sc, ')', &cur);
				continue;
			}
			break;
		case '`':
			bash_put(&cur, &space, c);
			sc->i++;
			bash_subst(sc, '`', &cur);
			continue;
		case '\'':
			bash_single(sc, &cur, &space);
			continue;
		case '"':
			bash_double(sc, &cur, &space);
			continue;
		default:
			break;
		}
		bash_put(&cur, &space, c);
		sc->i++;
	}
	bash_flush(sc, &cur, &redirect);
	buf_release(&cur);
}

static void
bash_split_into(const char *command, int depth, struct bash_parts *out)
{
	struct bash_scan sc;

	memset(&sc, 0, sizeof(sc));
	sc.s = command;
	sc.out = out;
	sc.depth = depth;
	if (depth > PERM_DEPTH_MAX) {
		out->opaque = true;
		return;
	}
	bash_list(&sc, 0);
	bash_heredoc_bodies(&sc);
}

/*
 * t with its first word unquoted and without its directory ("/bin/rm x",
 * "\\rm x" and "'rm' x" all give "rm x"); NULL when that changes nothing.
 */
static char *
bash_plain_first(const char *t)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t pos = 0;
	char *w = bash_word(t, &pos), *u;

	if (w == NULL)
		return NULL;
	u = bash_unquote(w);
	if (strcmp(bash_basename(u), w) != 0) {
		buf_puts(&b, bash_basename(u));
		buf_puts(&b, t + pos);
	}
	free(w);
	free(u);
	return b.data != NULL ? buf_detach(&b, NULL) : NULL;
}

static bool
bash_match_plain(const struct perm_rule *r, const char *t)
{
	char *plain;
	bool hit = perm_rule_cmd_match(r, t);

	if (!hit && (plain = bash_plain_first(t)) != NULL) {
		hit = perm_rule_cmd_match(r, plain);
		free(plain);
	}
	return hit;
}

/*
 * Does rule r match part text t for deny and ask: also with the program
 * named by its path or quoted, and when t starts with VAR=value
 * assignments or a wrapper such as sudo, at any later word.
 */
static bool
bash_match_loose(const struct perm_rule *r, const char *t)
{
	size_t pos = 0, start;
	char *w, *u;
	bool lead;

	if (bash_match_plain(r, t))
		return true;
	if ((w = bash_word(t, &pos)) == NULL)
		return false;
	u = bash_unquote(w);
	lead = bash_is_assignment(w) || perm_in(bash_wrappers, bash_basename(u));
	free(w);
	free(u);
	if (!lead)
		return false;
	for (;;) {
		while (t[pos] == ' ')
			pos++;
		start = pos;
		if ((w = bash_word(t, &pos)) == NULL)
			return false;
		free(w);
		if (bash_match_plain(r, t + start))
			return true;
	}
}

/*
 * Paths.
 */

/* The path with "", "." and ".." taken out; a relative path may keep leading "..". */
static char *
path_clean(const char *path)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	bool absolute = path[0] == '/';
	const char *p = path;
	size_t n, depth = 0;
	char *slash;

	if (absolute)
		buf_putc(&b, '/');
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (depth > 0) {
				slash = strrchr(b.data, '/');
				buf_truncate(&b, slash == NULL ? 0 :
				    slash == b.data ? 1 : (size_t)(slash - b.data));
				depth--;
			} else if (!absolute) {
				if (b.len > 0)
					buf_putc(&b, '/');
				buf_puts(&b, "..");
			}
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (b.len > 0 && b.data[b.len - 1] != '/')
				buf_putc(&b, '/');
			buf_append(&b, p, n);
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (b.len == 0)
		buf_putc(&b, '.');
	return buf_detach(&b, NULL);
}

/* The lexical names of path: relative to root when inside it, absolute when known. */
static void
path_names(const char *root, const char *path, struct perm_path *out)
{
	struct buf j = BUF_INIT(BUF_NOLIMIT);
	char *full;
	size_t n;

	out->rel = out->abs = NULL;
	if (root == NULL) {
		full = path_clean(path);
		if (full[0] == '/')
			out->abs = full;
		else if (strcmp(full, "..") == 0 || strncmp(full, "../", 3) == 0)
			free(full);
		else
			out->rel = full;
		return;
	}
	if (path[0] != '/') {
		buf_puts(&j, root);
		buf_putc(&j, '/');
	}
	buf_puts(&j, path);
	full = path_clean(buf_cstr(&j));
	buf_release(&j);
	if (sandbox_inside(root, full)) {
		n = strlen(root);
		while (full[n] == '/')
			n++;
		out->rel = xstrdup(full[n] != '\0' ? full + n : ".");
	}
	out->abs = full;
}

static void
subject_add_path(struct perm_subject *sub, char *rel, char *abs)
{
	if (sub->npaths == sub->cap) {
		sub->cap = sub->cap ? sub->cap * 2 : 4;
		sub->paths = xreallocarray(sub->paths, sub->cap, sizeof(*sub->paths));
	}
	sub->paths[sub->npaths].rel = rel;
	sub->paths[sub->npaths].abs = abs;
	sub->npaths++;
}

/* Both names of one file: as written, and with symbolic links resolved. */
static void
subject_add_file(struct perm_subject *sub, const char *root, const char *path)
{
	struct buf err = BUF_INIT(1024);
	struct perm_path lex;
	char *abs, *rel;

	path_names(root, path, &lex);
	subject_add_path(sub, lex.rel, lex.abs);
	if (root == NULL || sandbox_resolve(root, path, false, &abs, &rel, &err) == -1) {
		buf_release(&err);
		return;
	}
	if (lex.rel != NULL && strcmp(rel, lex.rel) == 0) {
		free(abs);
		free(rel);
	} else
		subject_add_path(sub, rel, abs);
	buf_release(&err);
}

/* A name from a patch header, without its a/ or b/ and its timestamp; NULL for none. */
static char *
patch_name(const char *s, size_t n, char strip)
{
	const char *tab = memchr(s, '\t', n);

	if (tab != NULL)
		n = (size_t)(tab - s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	if (n == 9 && memcmp(s, "/dev/null", 9) == 0)
		return NULL;
	if (strip != 0 && n > 2 && s[0] == strip && s[1] == '/') {
		s += 2;
		n -= 2;
	}
	return n > 0 ? xstrndup(s, n) : NULL;
}

/* The count after the comma of "-a,b" or "+c,d" (1 without a comma). */
static long
patch_count(const char *p)
{
	char *end;
	long v;

	p += strspn(p, "+-0123456789");
	if (*p != ',')
		return 1;
	v = strtol(p + 1, &end, 10);
	return end == p + 1 || v < 0 ? 0 : v;
}

/* Call fn for every file a patch names (unified diffs, git headers, "*** Update File:"). */
static void
patch_files(const char *patch, void (*fn)(const char *, void *), void *arg)
{
	static const struct {
		const char	*prefix;
		char		 strip;
	} heads[] = {
		{ "--- ", 'a' }, { "+++ ", 'b' },
		{ "rename from ", 0 }, { "rename to ", 0 }, { "copy from ", 0 }, { "copy to ", 0 },
		{ "*** Add File: ", 0 }, { "*** Update File: ", 0 },
		{ "*** Delete File: ", 0 }, { "*** Move to: ", 0 },
	};
	const char *line = patch, *eol;
	long old_left = 0, new_left = 0;
	size_t len, k, plen;
	char *name;

	for (; *line != '\0'; line = *eol != '\0' ? eol + 1 : eol) {
		eol = line + strcspn(line, "\n");
		len = (size_t)(eol - line);
		if (old_left > 0 || new_left > 0) {
			if (line[0] == '+')
				new_left--;
			else if (line[0] == '-')
				old_left--;
			else if (line[0] != '\\') {
				old_left--;
				new_left--;
			}
			continue;
		}
		if (strncmp(line, "@@ -", 4) == 0) {
			const char *plus = strstr(line, " +");

			old_left = patch_count(line + 4);
			new_left = plus != NULL && plus < eol ? patch_count(plus + 2) : 0;
			continue;
		}
		for (k = 0; k < sizeof(heads) / sizeof(heads[0]); k++) {
			plen = strlen(heads[k].prefix);
			if (len < plen || strncmp(line, heads[k].prefix, plen) != 0)
				continue;
			name = patch_name(line + plen, len - plen, heads[k].strip);
			if (name != NULL)
				fn(name, arg);
			free(name);
			break;
		}
	}
}

struct patch_ctx {
	struct perm_subject	*sub;
	const char		*root;
	char			**names;
	size_t			 n, cap;
};

static void
patch_collect(const char *name, void *arg)
{
	struct patch_ctx *ctx = arg;
	size_t i;

	for (i = 0; i < ctx->n; i++)
		if (strcmp(ctx->names[i], name) == 0)
			return;
	if (ctx->n == ctx->cap) {
		ctx->cap = ctx->cap ? ctx->cap * 2 : 4;
		ctx->names = xreallocarray(ctx->names, ctx->cap, sizeof(*ctx->names));
	}
	ctx->names[ctx->n++] = xstrdup(name);
}

static void
patch_ctx_release(struct patch_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->n; i++)
		free(ctx->names[i]);
	free(ctx->names);
}

/*
 * The subject of one call.
 */

static void
subject_init(struct perm_subject *sub, const struct perm_rules *rules, const char *tool_name,
    const cJSON *input)
{
	struct patch_ctx ctx;
	const char *v;
	size_t i;

	memset(sub, 0, sizeof(*sub));
	sub->tool = perm_tool_find(tool_name);
	if (sub->tool == NULL)
		return;
	v = json_str(input, sub->tool->field, NULL);
	switch (sub->tool->kind) {
	case PERM_KIND_BASH:
		sub->whole = bash_squeeze(v != NULL ? v : "");
		bash_split_into(v != NULL ? v : "", 0, &sub->parts);
		break;
	case PERM_KIND_PATH:
		subject_add_file(sub, rules->root, v != NULL && *v != '\0' ? v : ".");
		break;
	case PERM_KIND_PATCH:
		memset(&ctx, 0, sizeof(ctx));
		patch_files(v != NULL ? v : "", patch_collect, &ctx);
		for (i = 0; i < ctx.n; i++)
			subject_add_file(sub, rules->root, ctx.names[i]);
		patch_ctx_release(&ctx);
		break;
	}
}

static void
subject_release(struct perm_subject *sub)
{
	size_t i;

	free(sub->whole);
	bash_parts_release(&sub->parts);
	for (i = 0; i < sub->npaths; i++) {
		free(sub->paths[i].rel);
		free(sub->paths[i].abs);
	}
	free(sub->paths);
}

/* Deny and ask: does r match any part (loosely), the whole command, or any name? */
static bool
rule_hits_any(const struct perm_rule *r, const struct perm_subject *sub)
{
	size_t i;

	if (r->tool != sub->tool)
		return false;
	if (r->pattern == NULL)
		return true;
	switch (r->tool->kind) {
	case PERM_KIND_BASH:
		if (perm_rule_cmd_match(r, sub->whole))
			return true;
		for (i = 0; i < sub->parts.n; i++)
			if (bash_match_loose(r, sub->parts.v[i].text))
				return true;
		return false;
	case PERM_KIND_PATH:
	case PERM_KIND_PATCH:
		for (i = 0; i < sub->npaths; i++)
			if (perm_path_match(r->pattern, &sub->paths[i]))
				return true;
		return false;
	}
	return false;
}

/* The first rule of set for the subject's tool, or NULL. */
static const struct perm_rule *
ruleset_first(const struct perm_ruleset *set, const struct perm_subject *sub)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i].tool == sub->tool)
			return &set->v[i];
	return NULL;
}

static const struct perm_rule *
ruleset_hit(const struct perm_ruleset *set, const struct perm_subject *sub)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (rule_hits_any(&set->v[i], sub))
			return &set->v[i];
	return NULL;
}

/* The allow rule that covers part i (bash) or name i (files), or NULL. */
static const struct perm_rule *
allow_covering(const struct perm_ruleset *set, const struct perm_subject *sub, size_t i)
{
	const struct perm_rule *r;
	size_t k;

	for (k = 0; k < set->n; k++) {
		r = &set->v[k];
		if (r->tool != sub->tool)
			continue;
		if (r->tool->kind != PERM_KIND_BASH) {
			if (perm_path_match(r->pattern, &sub->paths[i]))
				return r;
		} else if ((!sub->parts.v[i].redirect || strchr(r->pattern, '>') != NULL) &&
		    perm_rule_cmd_match(r, sub->parts.v[i].text))
			return r;
	}
	return NULL;
}

static bool
perm_has_wildcard(const struct perm_rule *r)
{
	const char *p;

	if (r->alt != NULL)
		return true;
	for (p = r->pattern; *p != '\0'; p++) {
		if (p[0] == '\\' && p[1] == '*')
			p++;
		else if (*p == '*')
			return true;
	}
	return false;
}

/* Is every part or name covered by an allow rule?  The rules used go to why. */
static bool
allowed(const struct perm_ruleset *set, const struct perm_subject *sub, struct buf *why)
{
	const struct perm_rule **used;
	const struct perm_rule *r;
	size_t i, k, n, nused = 0;
	bool ok;

	if (sub->tool == NULL)
		return false;
	for (k = 0; k < set->n; k++) {
		r = &set->v[k];
		if (r->tool != sub->tool)
			continue;
		/*
		 * A bare rule, or one without wildcards naming the whole command
		 * (compared as a pattern, so "\*" stands for a star).
		 */
		if (r->pattern == NULL || (r->tool->kind == PERM_KIND_BASH &&
		    !perm_has_wildcard(r) && perm_cmd_glob(r->pattern, sub->whole))) {
			buf_printf(why, "allowed by rule %s", r->text);
			return true;
		}
	}
	n = sub->tool->kind == PERM_KIND_BASH ? sub->parts.n : sub->npaths;
	if (n == 0 || sub->parts.opaque)
		return false;
	used = xcalloc(n, sizeof(*used));
	for (i = 0, ok = true; ok && i < n; i++) {
		r = allow_covering(set, sub, i);
		ok = r != NULL;
		for (k = 0; ok && k < nused && used[k] != r; k++)
			;
		if (ok && k == nused)
			used[nused++] = r;
	}
	if (ok) {
		buf_printf(why, "allowed by rule%s ", nused > 1 ? "s" : "");
		for (k = 0; k < nused; k++)
			buf_printf(why, "%s%s", k > 0 ? ", " : "", used[k]->text);
	}
	free(used);
	return ok;
}

enum perm_verdict
perm_check(const struct perm_rules *rules, enum perm_mode mode, const char *tool_name,
    enum tool_class cls, const cJSON *input, struct buf *why)
{
	struct buf scratch = BUF_INIT(4096);
	struct perm_subject sub;
	const struct perm_rule *r;
	enum perm_verdict v;

	if (why == NULL)
		why = &scratch;
	subject_init(&sub, rules, tool_name, input);
	if ((r = ruleset_hit(&rules->lists[PERM_LIST_DENY], &sub)) != NULL) {
		buf_printf(why, "denied by rule %s", r->text);
		v = PERM_VERDICT_DENY;
	} else if (sub.parts.opaque &&
	    (r = ruleset_first(&rules->lists[PERM_LIST_DENY], &sub)) != NULL) {
		/* What cannot be seen cannot be shown to pass the deny rules. */
		buf_printf(why, "denied: the command nests too deeply to check it against rule %s",
		    r->text);
		v = PERM_VERDICT_DENY;
	} else if (mode == PERM_PLAN && cls != TOOL_READ_ONLY) {
		buf_puts(why, cls == TOOL_WRITE ? "plan mode: no changes are made" :
		    "plan mode: no commands are run");
		v = PERM_VERDICT_DENY;
	} else if (mode != PERM_YOLO &&
	    (r = ruleset_hit(&rules->lists[PERM_LIST_ASK], &sub)) != NULL) {
		buf_printf(why, "rule %s asks for approval", r->text);
		v = PERM_VERDICT_ASK;
	} else if (allowed(&rules->lists[PERM_LIST_ALLOW], &sub, why))
		v = PERM_VERDICT_ALLOW;
	else if (cls == TOOL_READ_ONLY) {
		buf_puts(why, "read-only tools are allowed");
		v = PERM_VERDICT_ALLOW;
	} else if (mode == PERM_YOLO) {
		buf_puts(why, "yolo mode: everything not denied is allowed");
		v = PERM_VERDICT_ALLOW;
	} else if (cls == TOOL_WRITE && mode == PERM_ACCEPT_EDITS) {
		buf_puts(why, "accept-edits mode: edits are allowed");
		v = PERM_VERDICT_ALLOW;
	} else {
		buf_printf(why, "%s mode: %s need approval", perm_mode_name(mode),
		    cls == TOOL_WRITE ? "changes" : "commands");
		v = PERM_VERDICT_ASK;
	}
	subject_release(&sub);
	buf_release(&scratch);
	return v;
}

/*
 * Rules.
 */

struct perm_rules *
perm_rules_new(void)
{
	return xcalloc(1, sizeof(struct perm_rules));
}

static void
perm_rule_release(struct perm_rule *r)
{
	free(r->text);
	free(r->pattern);
	free(r->alt);
}

void
perm_rules_free(struct perm_rules *rules)
{
	size_t l, i;

	if (rules == NULL)
		return;
	for (l = 0; l < 3; l++) {
		for (i = 0; i < rules->lists[l].n; i++)
			perm_rule_release(&rules->lists[l].v[i]);
		free(rules->lists[l].v);
	}
	free(rules->root);
	free(rules);
}

void
perm_rules_set_root(struct perm_rules *rules, const char *root)
{
	free(rules->root);
	rules->root = root != NULL ? xstrdup(root) : NULL;
}

/* A path pattern without "./" in front, doubled slashes or a trailing slash. */
static char *
perm_path_pattern(const char *p, size_t n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	while (n >= 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		n -= 2;
		while (n > 0 && *p == '/') {
			p++;
			n--;
		}
	}
	for (i = 0; i < n; i++)
		if (!(p[i] == '/' && b.len > 0 && b.data[b.len - 1] == '/'))
			buf_putc(&b, p[i]);
	if (b.len > 1 && b.data[b.len - 1] == '/')
		buf_truncate(&b, b.len - 1);
	return buf_detach(&b, NULL);
}

static int perm_error(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));

static int
perm_error(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(err, fmt, ap);
	va_end(ap);
	return -1;
}

static int
perm_rule_parse(const char *rule, struct perm_rule *r, struct buf *err)
{
	const char *s = rule, *e, *open, *p;
	size_t n, nlen;
	char name[64], *raw;

	memset(r, 0, sizeof(*r));
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);
	if (n == 0)
		return perm_error(err, "a rule is empty; write tool or tool(pattern)");
	if (n > PERM_RULE_MAX)
		return perm_error(err, "a rule is longer than %d bytes", PERM_RULE_MAX);
	for (p = s; p < e; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return perm_error(err, "rule \"%.*s\" holds a control character", (int)n, s);
	open = memchr(s, '(', n);
	nlen = open != NULL ? (size_t)(open - s) : n;
	while (nlen > 0 && (s[nlen - 1] == ' ' || s[nlen - 1] == '\t'))
		nlen--;
	if (nlen == 0 || nlen >= sizeof(name) || strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") < nlen)
		return perm_error(err, "\"%.*s\" is not a rule; write tool or tool(pattern)",
		    (int)n, s);
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	if ((r->tool = perm_tool_find(name)) == NULL)
		return perm_error(err, "rule \"%.*s\" names an unknown tool \"%s\"", (int)n, s,
		    name);
	r->text = xstrndup(s, n);
	if (open == NULL)
		return 0;
	if (e[-1] != ')') {
		buf_printf(err, "rule \"%s\" lacks its closing parenthesis", r->text);
		goto fail;
	}
	for (s = open + 1, e--; s < e && (*s == ' ' || *s == '\t'); s++)
		;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s) {
		buf_printf(err, "rule \"%s\" has an empty pattern; write %s for any call",
		    r->text, name);
		goto fail;
	}
	if (r->tool->kind != PERM_KIND_BASH) {
		r->pattern = perm_path_pattern(s, (size_t)(e - s));
		return 0;
	}
	raw = xstrndup(s, (size_t)(e - s));
	n = strlen(raw);
	/* Claude Code's "cmd:*" is "cmd *". */
	if (n >= 2 && strcmp(raw + n - 2, ":*") == 0 && (n < 3 || raw[n - 3] != '\\'))
		raw[n - 2] = ' ';
	r->pattern = bash_squeeze(raw);
	free(raw);
	/* "cmd *" also matches cmd alone: "rm *" covers a bare "rm". */
	n = strlen(r->pattern);
	if (n >= 3 && strcmp(r->pattern + n - 2, " *") == 0 && r->pattern[n - 3] != '\\')
		r->alt = xstrndup(r->pattern, n - 2);
	return 0;
fail:
	perm_rule_release(r);
	memset(r, 0, sizeof(*r));
	return -1;
}

static bool
perm_rule_same(const struct perm_rule *a, const struct perm_rule *b)
{
	if (a->tool != b->tool || (a->pattern == NULL) != (b->pattern == NULL) ||
	    (a->alt == NULL) != (b->alt == NULL))
		return false;
	return a->pattern == NULL || (strcmp(a->pattern, b->pattern) == 0 &&
	    (a->alt == NULL || strcmp(a->alt, b->alt) == 0));
}

static void
ruleset_push(struct perm_ruleset *set, struct perm_rule *r)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (perm_rule_same(&set->v[i], r)) {
			perm_rule_release(r);
			return;
		}
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 8;
		set->v = xreallocarray(set->v, set->cap, sizeof(*set->v));
	}
	set->v[set->n++] = *r;
}

int
perm_rules_add(struct perm_rules *rules, enum perm_list list, const char *rule, struct buf *err)
{
	struct perm_rule r;

	if ((unsigned)list > PERM_LIST_DENY) {
		buf_puts(err, "no such rule list");
		return -1;
	}
	if (perm_rule_parse(rule != NULL ? rule : "", &r, err) == -1)
		return -1;
	ruleset_push(&rules->lists[list], &r);
	return 0;
}

static void
perm_rule_copy(struct perm_rule *dst, const struct perm_rule *src)
{
	dst->text = xstrdup(src->text);
	dst->tool = src->tool;
	dst->pattern = src->pattern != NULL ? xstrdup(src->pattern) : NULL;
	dst->alt = src->alt != NULL ? xstrdup(src->alt) : NULL;
}

void
perm_rules_merge(struct perm_rules *dst, const struct perm_rules *src)
{
	struct perm_rule r;
	size_t l, i;

	for (l = 0; l < 3; l++)
		for (i = 0; i < src->lists[l].n; i++) {
			perm_rule_copy(&r, &src->lists[l].v[i]);
			ruleset_push(&dst->lists[l], &r);
		}
}

struct perm_rules *
perm_rules_dup(const struct perm_rules *src)
{
	struct perm_rules *dst = perm_rules_new();

	perm_rules_merge(dst, src);
	perm_rules_set_root(dst, src->root);
	return dst;
}

size_t
perm_rules_count(const struct perm_rules *rules, enum perm_list list)
{
	return (unsigned)list <= PERM_LIST_DENY ? rules->lists[list].n : 0;
}

const char *
perm_rules_get(const struct perm_rules *rules, enum perm_list list, size_t i)
{
	if ((unsigned)list > PERM_LIST_DENY || i >= rules->lists[list].n)
		return NULL;
	return rules->lists[list].v[i].text;
}

/*
 * Rules to remember.
 */

/* s with the characters special to patterns escaped by a backslash. */
static void
perm_escape(struct buf *out, const char *s, const char *special)
{
	for (; *s != '\0'; s++) {
		if (strchr(special, *s) != NULL)
			buf_putc(out, '\\');
		buf_putc(out, *s);
	}
}

/*
 * A remembered rule must mean the same when it is read back: one holding
 * a control character (a file name with a newline) or whose pattern starts
 * or ends with a blank (which parsing trims) is no rule: NULL.
 */
static char *
perm_rule_usable(char *rule)
{
	const unsigned char *p;
	const char *open;
	size_t n;

	if (rule == NULL)
		return NULL;
	for (p = (const unsigned char *)rule; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			goto refuse;
	n = strlen(rule);
	open = strchr(rule, '(');
	if (open != NULL && n >= 2 && (open[1] == ' ' || rule[n - 2] == ' '))
		goto refuse;
	return rule;
refuse:
	free(rule);
	return NULL;
}

static char *
perm_rule_for_bash(const char *command)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	struct bash_parts parts;
	char *whole = bash_squeeze(command), *w1 = NULL, *w2 = NULL;
	size_t pos = 0;

	memset(&parts, 0, sizeof(parts));
	buf_puts(&out, "run_bash(");
	if (whole[0] != '\0' && strlen(whole) <= PERM_SHORT_CMD && strchr(whole, '\n') == NULL) {
		perm_escape(&out, whole, "*");
		goto done;
	}
	bash_split_into(command, 0, &parts);
	if (parts.n > 0 && (w1 = bash_word(parts.v[0].text, &pos)) != NULL)
		w2 = bash_word(parts.v[0].text, &pos);
	if (w1 == NULL) {
		buf_release(&out);
		goto out;
	}
	perm_escape(&out, w1, "*");
	if (w2 != NULL) {
		buf_putc(&out, ' ');
		perm_escape(&out, w2, "*");
	}
	buf_puts(&out, " *");
done:
	buf_putc(&out, ')');
out:
	free(w1);
	free(w2);
	free(whole);
	bash_parts_release(&parts);
	return out.data != NULL ? perm_rule_usable(buf_detach(&out, NULL)) : NULL;
}

static char *
perm_rule_for_path(const char *tool, const char *path, bool tree)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&out, "%s(", tool);
	perm_escape(&out, path, "*?[]\\");
	buf_puts(&out, tree ? "/**)" : ")");
	return perm_rule_usable(buf_detach(&out, NULL));
}

/* The directory every name lies in ("" for none), the caller frees. */
static char *
perm_common_dir(char **names, size_t n)
{
	char *dir = xstrdup(names[0]), *slash;
	size_t i, len;

	slash = strrchr(dir, '/');
	*(slash != NULL ? slash : dir) = '\0';
	for (i = 1; i < n && dir[0] != '\0'; i++) {
		for (;;) {
			len = strlen(dir);
			if (strncmp(names[i], dir, len) == 0 && names[i][len] == '/')
				break;
			slash = strrchr(dir, '/');
			*(slash != NULL ? slash : dir) = '\0';
			if (dir[0] == '\0')
				break;
		}
	}
	return dir;
}

char *
perm_rule_for(const char *tool_name, const cJSON *input)
{
	const struct perm_tool *t = perm_tool_find(tool_name);
	struct patch_ctx ctx;
	const char *v;
	char *clean, *dir, *rule = NULL;
	size_t i;

	if (t == NULL)
		return NULL;
	v = json_str(input, t->field, NULL);
	switch (t->kind) {
	case PERM_KIND_BASH:
		return perm_rule_for_bash(v != NULL ? v : "");
	case PERM_KIND_PATH:
		clean = path_clean(v != NULL && *v != '\0' ? v : ".");
		/* A relative rule cannot name what lies above the root. */
		if (strcmp(clean, "..") != 0 && strncmp(clean, "../", 3) != 0)
			rule = perm_rule_for_path(t->name, clean, false);
		free(clean);
		return rule;
	case PERM_KIND_PATCH:
		memset(&ctx, 0, sizeof(ctx));
		patch_files(v != NULL ? v : "", patch_collect, &ctx);
		for (i = 0; i < ctx.n; i++) {
			clean = path_clean(ctx.names[i]);
			free(ctx.names[i]);
			ctx.names[i] = clean;
		}
		if (ctx.n == 1)
			rule = perm_rule_for_path(t->name, ctx.names[0], false);
		else if (ctx.n > 1) {
			dir = perm_common_dir(ctx.names, ctx.n);
			if (dir[0] != '\0')
				rule = perm_rule_for_path(t->name, dir, true);
			free(dir);
		}
		patch_ctx_release(&ctx);
		return rule;
	}
	return NULL;
}
