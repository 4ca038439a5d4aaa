/* The shell splitter: see shparse.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shparse.h"
#include "xalloc.h"

/* Reserved words that only group or sequence commands: skipped at a command's start. */
static const char *const sp_keywords[] = {
	"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
	"{", "}", "!", "time", "coproc", "esac", NULL
};

/* Commands that run the command after them: deny rules look past them. */
static const char *const sp_wrappers[] = {
	"sudo", "doas", "env", "nohup", "time", "command", "builtin", "exec",
	"nice", "ionice", "timeout", "stdbuf", "xargs", "watch", "chroot",
	"setsid", "flock", "strace", "ltrace", "unbuffer", "chrt", "taskset", NULL
};

/* Shells whose -c argument is itself a command line. */
static const char *const sp_shells[] = {
	"bash", "sh", "zsh", "dash", "ksh", "mksh", NULL
};

/* Redirection targets that are not files. */
static const char *const sp_harmless[] = {
	"/dev/null", "/dev/stdout", "/dev/stderr", NULL
};

struct sp_doc {
	char	*delim;
	bool	 strip_tabs;
	bool	 expand;	/* unquoted delimiter: substitutions in the body run */
};

struct sp_scan {
	const char		*s;
	size_t			 i;
	int			 depth;
	int			 level;
	struct shparse_parts	*out;
	struct sp_doc		 docs[SHPARSE_DOCS_MAX];
	size_t			 ndocs;
};

struct sp_word {
	struct buf	raw, plain;
	unsigned	flags;
	bool		brace_open, brace_sep;
};

/* What the command being read is. */
enum sp_kind {
	SP_PLAIN,	/* a simple command, (( )) or [[ ]] once closed */
	SP_COND,	/* inside [[ ... ]] */
	SP_FOR,		/* for/select NAME in WORDS: a header, not a part */
	SP_CASE		/* case WORD in: a header, not a part */
};

struct sp_cmd {
	struct buf		 text;
	bool			 space;		/* blanks were skipped since the last text */
	struct shparse_word	*w;
	size_t			 nw, cap;
	bool			 redirect;
	enum sp_kind		 kind;
	bool			 fname;		/* after "function": a name follows */
	bool			 time_p;	/* after "time": "-p" may follow */
	bool			 closed;	/* a compound command just ended: not empty */
	bool			 piped;		/* after '|': '!' may not come */
};

static void sp_list(struct sp_scan *, char closer);
static void sp_dollar(struct sp_scan *, struct sp_word *, bool in_dq);
static void sp_backtick(struct sp_scan *, struct sp_word *, bool in_dq);
static bool sp_word_read(struct sp_scan *, struct sp_word *, bool cond);

static bool
sp_in(const char *const *list, const char *word)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, word) == 0)
			return true;
	return false;
}

static const char *
sp_basename(const char *w)
{
	const char *slash = strrchr(w, '/');

	return slash != NULL && slash[1] != '\0' ? slash + 1 : w;
}

static bool
sp_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool
sp_name_char(char c)
{
	return sp_name_start(c) || (c >= '0' && c <= '9');
}

static bool
sp_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void
sp_opaque(struct sp_scan *sc)
{
	sc->out->opaque = true;
}

/* Give up on the rest of the text. */
static void
sp_abandon(struct sp_scan *sc)
{
	sp_opaque(sc);
	sc->i += strlen(sc->s + sc->i);
}

static void
sp_word_init(struct sp_word *w)
{
	memset(w, 0, sizeof(*w));
	buf_init(&w->raw, BUF_NOLIMIT);
	buf_init(&w->plain, BUF_NOLIMIT);
}

static void
sp_word_release(struct sp_word *w)
{
	buf_release(&w->raw);
	buf_release(&w->plain);
}

/* Both forms get c. */
static void
sp_both(struct sp_word *w, char c)
{
	buf_putc(&w->raw, c);
	buf_putc(&w->plain, c);
}

/* The raw form gets s[from..to). */
static void
sp_raw_slice(struct sp_scan *sc, struct sp_word *w, size_t from)
{
	buf_append(&w->raw, sc->s + from, sc->i - from);
}

/*
 * Nesting.
 */

/* A command list up to ')' with sc->i inside it; ')' consumed.  false when unbalanced. */
static bool
sp_nested(struct sp_scan *sc, int level_add)
{
	if (sc->depth >= SHPARSE_DEPTH_MAX) {
		sp_abandon(sc);
		return false;
	}
	sc->depth++;
	sc->level += level_add;
	sp_list(sc, ')');
	sc->depth--;
	sc->level -= level_add;
	if (sc->s[sc->i] != ')') {
		sp_opaque(sc);
		return false;
	}
	sc->i++;
	return true;
}

static void sp_bodies(struct sp_scan *);

/* Split code (a -c string, eval's words, the inside of `...`) one level down. */
static void
sp_split_code(const struct sp_scan *outer, const char *code)
{
	struct sp_scan sc;
	size_t d;

	memset(&sc, 0, sizeof(sc));
	sc.s = code;
	sc.out = outer->out;
	sc.depth = outer->depth + 1;
	sc.level = outer->level + 1;
	if (sc.depth > SHPARSE_DEPTH_MAX) {
		sp_opaque(&sc);
		return;
	}
	sp_list(&sc, 0);
	sp_bodies(&sc);
	for (d = 0; d < sc.ndocs; d++)
		free(sc.docs[d].delim);
}

/*
 * Words.
 */

static void
sp_single(struct sp_scan *sc, struct sp_word *w)
{
	const char *s = sc->s;

	w->flags |= SHPARSE_W_QUOTED;
	buf_putc(&w->raw, s[sc->i++]);
	while (s[sc->i] != '\0' && s[sc->i] != '\'') {
		sp_both(w, s[sc->i]);
		sc->i++;
	}
	if (s[sc->i] != '\'') {
		sp_opaque(sc);
		return;
	}
	buf_putc(&w->raw, s[sc->i++]);
}

static int
sp_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
sp_utf8(struct buf *b, unsigned long u)
{
	if (u < 0x80)
		buf_putc(b, (int)u);
	else if (u < 0x800) {
		buf_putc(b, (int)(0xc0 | (u >> 6)));
		buf_putc(b, (int)(0x80 | (u & 0x3f)));
	} else if (u < 0x10000) {
		buf_putc(b, (int)(0xe0 | (u >> 12)));
		buf_putc(b, (int)(0x80 | ((u >> 6) & 0x3f)));
		buf_putc(b, (int)(0x80 | (u & 0x3f)));
	} else {
		buf_putc(b, (int)(0xf0 | ((u >> 18) & 0x07)));
		buf_putc(b, (int)(0x80 | ((u >> 12) & 0x3f)));
		buf_putc(b, (int)(0x80 | ((u >> 6) & 0x3f)));
		buf_putc(b, (int)(0x80 | (u & 0x3f)));
	}
}

/* The single-character escapes of $'...'. */
static const struct {
	char	name, value;
} sp_escapes[] = {
	{ 'a', '\a' }, { 'b', '\b' }, { 'e', 033 }, { 'E', 033 }, { 'f', '\f' },
	{ 'n', '\n' }, { 'r', '\r' }, { 't', '\t' }, { 'v', '\v' }, { '\\', '\\' },
	{ '\'', '\'' }, { '"', '"' }, { '?', '?' },
};

/* One escape of $'...' at p (after the backslash) into b; the characters it used. */
static size_t
sp_ansi_escape(const char *p, struct buf *b, bool *nul)
{
	unsigned long v = 0;
	size_t k, n, max;
	int h;

	for (k = 0; k < sizeof(sp_escapes) / sizeof(sp_escapes[0]); k++)
		if (sp_escapes[k].name == *p) {
			buf_putc(b, sp_escapes[k].value);
			return 1;
		}
	if (*p >= '0' && *p <= '7') {
		for (n = 0; n < 3 && p[n] >= '0' && p[n] <= '7'; n++)
			v = v * 8 + (unsigned long)(p[n] - '0');
		v &= 0xff;
		if (v == 0)
			*nul = true;
		else
			buf_putc(b, (int)v);
		return n;
	}
	if (*p == 'x' || *p == 'u' || *p == 'U') {
		max = *p == 'x' ? 2 : *p == 'u' ? 4 : 8;
		for (n = 0; n < max && (h = sp_hex(p[n + 1])) >= 0; n++)
			v = v * 16 + (unsigned long)h;
		if (n == 0) {
			buf_putc(b, '\\');
			buf_putc(b, *p);
			return 1;
		}
		if (v == 0)
			*nul = true;
		else if (*p == 'x')
			buf_putc(b, (int)v);
		else
			sp_utf8(b, v);
		return n + 1;
	}
	if (*p == 'c' && p[1] != '\0') {
		v = (unsigned long)(p[1] == '?' ? 0x7f : (p[1] & 0x1f));
		if (v == 0)
			*nul = true;
		else
			buf_putc(b, (int)v);
		return 2;
	}
	buf_putc(b, '\\');
	buf_putc(b, *p);
	return 1;
}

/* $'...': the escapes decoded; a NUL ends the value, as in bash. */
static void
sp_ansi(struct sp_scan *sc, struct sp_word *w)
{
	struct buf val = BUF_INIT(BUF_NOLIMIT);
	const char *s = sc->s;
	size_t start = sc->i, cut = 0;
	bool nul = false, was;

	w->flags |= SHPARSE_W_QUOTED;
	sc->i += 2;
	while (s[sc->i] != '\0' && s[sc->i] != '\'') {
		was = nul;
		if (s[sc->i] == '\\' && s[sc->i + 1] != '\0')
			sc->i += 1 + sp_ansi_escape(s + sc->i + 1, &val, &nul);
		else
			buf_putc(&val, s[sc->i++]);
		if (nul && !was)
			cut = val.len;
	}
	if (s[sc->i] != '\'')
		sp_opaque(sc);
	else
		sc->i++;
	sp_raw_slice(sc, w, start);
	/* Everything after a NUL is dropped by bash. */
	buf_append(&w->plain, buf_cstr(&val), nul ? cut : val.len);
	buf_release(&val);
}

static void
sp_dquote(struct sp_scan *sc, struct sp_word *w)
{
	const char *s = sc->s;
	char c;

	w->flags |= SHPARSE_W_QUOTED;
	buf_putc(&w->raw, s[sc->i++]);
	while ((c = s[sc->i]) != '\0' && c != '"') {
		if (c == '\\' && s[sc->i + 1] == '\n') {
			sc->i += 2;
		} else if (c == '\\' && s[sc->i + 1] != '\0' && strchr("$`\"\\", s[sc->i + 1])) {
			buf_putc(&w->raw, c);
			sp_both(w, s[sc->i + 1]);
			sc->i += 2;
		} else if (c == '$')
			sp_dollar(sc, w, true);
		else if (c == '`')
			sp_backtick(sc, w, true);
		else {
			sp_both(w, c);
			sc->i++;
		}
	}
	if (c != '"') {
		sp_opaque(sc);
		return;
	}
	buf_putc(&w->raw, s[sc->i++]);
}

/* Where the command list of a substitution starting at i ends (its ')'), found by scanning it. */
static size_t
sp_subst_end(const struct sp_scan *sc, size_t i)
{
	struct shparse_parts scratch;
	struct sp_scan dry = *sc;
	size_t d;

	memset(&scratch, 0, sizeof(scratch));
	dry.out = &scratch;
	dry.i = i;
	dry.ndocs = 0;
	if (dry.depth < SHPARSE_DEPTH_MAX) {
		dry.depth++;
		sp_list(&dry, ')');
	} else
		dry.i += strlen(dry.s + dry.i);
	for (d = 0; d < dry.ndocs; d++)
		free(dry.docs[d].delim);
	shparse_parts_release(&scratch);
	return dry.i;
}

/* The ')' that closes the parenthesis open before i, counting parentheses only. */
static size_t
sp_parens_end(const char *s, size_t i)
{
	int depth = 0;

	for (; s[i] != '\0'; i++) {
		if (s[i] == '\\' && s[i + 1] != '\0')
			i++;
		else if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && depth-- == 0)
			return i;
	}
	return i;
}

/*
 * For "((" with the arithmetic starting at i: the index of its closing
 * "))", or 0 when there is none (then it is a subshell in a subshell, or a
 * command substitution of one).
 */
static size_t
sp_arith_end(const struct sp_scan *sc, size_t i, bool *unclear)
{
	const char *s = sc->s;
	int depth = 0;
	char q;

	for (; s[i] != '\0'; i++) {
		switch (s[i]) {
		case '\\':
			if (s[i + 1] != '\0')
				i++;
			break;
		case '$':
			if (s[i + 1] == '\'') {
				for (i += 2; s[i] != '\0' && s[i] != '\''; i++)
					if (s[i] == '\\' && s[i + 1] != '\0')
						i++;
				if (s[i] == '\0')
					return 0;
			} else if (s[i + 1] == '(' && s[i + 2] != '(') {
				/*
				 * bash counts parentheses here, so a ')' that the
				 * substitution does not count (a case pattern) ends
				 * the arithmetic for bash: too unclear to split.
				 */
				*unclear = *unclear || sp_parens_end(s, i + 2) != sp_subst_end(sc, i + 2);
				i = sp_subst_end(sc, i + 2);
				if (s[i] != ')')
					return 0;
			}
			break;
		case '\'':
		case '"':
		case '`':
			q = s[i];
			for (i++; s[i] != '\0' && s[i] != q; i++)
				if (s[i] == '\\' && q != '\'' && s[i + 1] != '\0')
					i++;
			if (s[i] == '\0')
				return 0;
			break;
		case '(':
			depth++;
			break;
		case ')':
			if (depth > 0)
				depth--;
			else
				return s[i + 1] == ')' ? i : 0;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* The inside of (( )) or $(( )) up to end (its "))"), substitutions followed. */
static void
sp_arith(struct sp_scan *sc, struct sp_word *w, size_t end)
{
	const char *s = sc->s;

	while (sc->i < end && s[sc->i] != '\0') {
		if (s[sc->i] == '$')
			sp_dollar(sc, w, false);
		else if (s[sc->i] == '`')
			sp_backtick(sc, w, false);
		else if (s[sc->i] == '\\' && s[sc->i + 1] == '\n')
			sc->i += 2;
		else {
			sp_both(w, s[sc->i]);
			sc->i++;
		}
	}
	if (sc->i != end) {
		sp_abandon(sc);
		return;
	}
	buf_puts(&w->raw, "))");
	buf_puts(&w->plain, "))");
	sc->i += 2;
}

/* ${...}: to its matching brace, substitutions in it followed. */
static void
sp_param(struct sp_scan *sc, struct sp_word *w, bool in_dq)
{
	const char *s = sc->s;
	size_t from;
	int depth = 1;
	char c;

	buf_puts(&w->raw, "${");
	buf_puts(&w->plain, "${");
	sc->i += 2;
	while ((c = s[sc->i]) != '\0') {
		if (c == '\\' && s[sc->i + 1] != '\0') {
			sp_both(w, c);
			sp_both(w, s[sc->i + 1]);
			sc->i += 2;
		} else if (c == '\'' && !in_dq) {
			from = sc->i;
			while (s[++sc->i] != '\0' && s[sc->i] != '\'')
				;
			if (s[sc->i] == '\'')
				sc->i++;
			buf_append(&w->raw, s + from, sc->i - from);
			buf_append(&w->plain, s + from, sc->i - from);
		} else if (c == '"') {
			struct sp_word inner;

			sp_word_init(&inner);
			sp_dquote(sc, &inner);
			buf_append(&w->raw, inner.raw.data, inner.raw.len);
			buf_append(&w->plain, inner.raw.data, inner.raw.len);
			sp_word_release(&inner);
		} else if (c == '$')
			sp_dollar(sc, w, in_dq);
		else if (c == '`')
			sp_backtick(sc, w, in_dq);
		else {
			if (c == '{')
				depth++;
			else if (c == '}' && --depth == 0)
				break;
			sp_both(w, c);
			sc->i++;
		}
	}
	if (s[sc->i] != '}') {
		sp_opaque(sc);
		return;
	}
	sp_both(w, '}');
	sc->i++;
}

/* A word starting at '$'. */
static void
sp_dollar(struct sp_scan *sc, struct sp_word *w, bool in_dq)
{
	const char *s = sc->s;
	char n = s[sc->i + 1];
	size_t start = sc->i, end;
	unsigned before = w->flags;
	bool unclear = false;

	if (n == '\'' && !in_dq) {
		sp_ansi(sc, w);
		return;
	}
	if (n == '"' && !in_dq) {
		/* $"...": translated by the locale, which leaves it as it is. */
		sc->i++;
		buf_putc(&w->raw, '$');
		sp_dquote(sc, w);
		return;
	}
	w->flags |= SHPARSE_W_EXPAND;
	if (n == '(' && s[sc->i + 2] == '(' && (end = sp_arith_end(sc, sc->i + 3, &unclear)) != 0) {
		if (unclear)
			sp_opaque(sc);
		buf_puts(&w->raw, "$((");
		buf_puts(&w->plain, "$((");
		sc->i += 3;
		sp_arith(sc, w, end);
		return;
	}
	if (n == '(') {
		sc->i += 2;
		sp_nested(sc, 1);
		sp_raw_slice(sc, w, start);
		buf_puts(&w->plain, "$(…)");
		return;
	}
	if (n == '{') {
		sp_param(sc, w, in_dq);
		return;
	}
	if (sp_name_start(n)) {
		sp_both(w, '$');
		for (sc->i++; sp_name_char(s[sc->i]); sc->i++)
			sp_both(w, s[sc->i]);
		return;
	}
	if (n != '\0' && strchr("@*#?-$!0123456789", n) != NULL) {
		sp_both(w, '$');
		sp_both(w, n);
		sc->i += 2;
		return;
	}
	w->flags = before;	/* a lone '$' is itself */
	sp_both(w, '$');
	sc->i++;
}

/* `...`: its backslashes taken away, then split as a command line of its own. */
static void
sp_backtick(struct sp_scan *sc, struct sp_word *w, bool in_dq)
{
	struct buf code = BUF_INIT(BUF_NOLIMIT);
	const char *s = sc->s;
	size_t start = sc->i;
	char c;

	w->flags |= SHPARSE_W_EXPAND;
	sc->i++;
	while ((c = s[sc->i]) != '\0' && c != '`') {
		if (c == '\\' && s[sc->i + 1] != '\0' &&
		    (strchr("$`\\", s[sc->i + 1]) != NULL || (in_dq && s[sc->i + 1] == '"'))) {
			buf_putc(&code, s[sc->i + 1]);
			sc->i += 2;
		} else if (c == '\\' && s[sc->i + 1] == '\n')
			sc->i += 2;
		else {
			buf_putc(&code, c);
			sc->i++;
		}
	}
	if (c != '`')
		sp_opaque(sc);
	else {
		sc->i++;
		sp_split_code(sc, buf_cstr(&code));
	}
	sp_raw_slice(sc, w, start);
	buf_puts(&w->plain, "`…`");
	buf_release(&code);
}

/* <(...) or >(...). */
static void
sp_procsub(struct sp_scan *sc, struct sp_word *w)
{
	size_t start = sc->i;
	char op = sc->s[sc->i];

	w->flags |= SHPARSE_W_EXPAND;
	sc->i += 2;
	sp_nested(sc, 1);
	sp_raw_slice(sc, w, start);
	buf_putc(&w->plain, op);
	buf_puts(&w->plain, "(…)");
}

/* Is the word so far "NAME=" or "NAME+=", so that "(" opens an array? */
static bool
sp_array_start(const struct sp_word *w)
{
	const char *r = buf_cstr(&w->raw);
	size_t i = 0;

	if (w->flags != 0 || !sp_name_start(r[0]))
		return false;
	while (sp_name_char(r[i]))
		i++;
	if (r[i] == '+')
		i++;
	return r[i] == '=' && r[i + 1] == '\0';
}

/* NAME=(a b c): the elements are words of the assignment. */
static void
sp_array(struct sp_scan *sc, struct sp_word *w)
{
	struct sp_word el;
	const char *s = sc->s;

	sp_both(w, '(');
	sc->i++;
	for (;;) {
		if (sp_blank(s[sc->i]) || s[sc->i] == '\n') {
			while (sp_blank(s[sc->i]) || s[sc->i] == '\n')
				sc->i++;
			sp_both(w, ' ');
			continue;
		}
		if (s[sc->i] == ')') {
			sp_both(w, ')');
			sc->i++;
			return;
		}
		sp_word_init(&el);
		if (!sp_word_read(sc, &el, false)) {
			sp_word_release(&el);
			sp_opaque(sc);
			return;
		}
		buf_append(&w->raw, el.raw.data, el.raw.len);
		buf_append(&w->plain, el.plain.data, el.plain.len);
		w->flags |= el.flags & SHPARSE_W_EXPAND;
		sp_word_release(&el);
	}
}

/* Does an unquoted '[' at s open a bracket glob (a ']' later in the same word)? */
static bool
sp_bracket_glob(const char *s)
{
	for (s++; *s != '\0' && strchr(" \t\n;&|<>()", *s) == NULL; s++)
		if (*s == ']')
			return true;
	return false;
}

/*
 * One word at sc->i: quotes, escapes, expansions and substitutions
 * followed.  In a [[ ]] (cond) only blanks and newlines end it.  false
 * when there is no word here.
 */
static bool
sp_word_read(struct sp_scan *sc, struct sp_word *w, bool cond)
{
	const char *s = sc->s;
	char c;

	for (;;) {
		c = s[sc->i];
		if (c == '\0' || sp_blank(c) || c == '\n')
			break;
		if (cond && strcmp(buf_cstr(&w->raw), "]]") == 0)
			break;
		if (cond ? c == ';' : strchr(";&|<>()", c) != NULL) {
			if ((c == '<' || c == '>') && s[sc->i + 1] == '(' && w->raw.len == 0) {
				sp_procsub(sc, w);
				continue;
			}
			if (c == '(' && sp_array_start(w)) {
				sp_array(sc, w);
				continue;
			}
			break;
		}
		switch (c) {
		case '\\':
			if (s[sc->i + 1] == '\n') {
				sc->i += 2;
				continue;
			}
			w->flags |= SHPARSE_W_QUOTED;
			buf_putc(&w->raw, c);
			if (s[sc->i + 1] == '\0') {
				buf_putc(&w->plain, c);
				sc->i++;
				continue;
			}
			sp_both(w, s[sc->i + 1]);
			sc->i += 2;
			continue;
		case '\'':
			sp_single(sc, w);
			continue;
		case '"':
			sp_dquote(sc, w);
			continue;
		case '$':
			sp_dollar(sc, w, false);
			continue;
		case '`':
			sp_backtick(sc, w, false);
			continue;
		case '*':
		case '?':
			w->flags |= SHPARSE_W_EXPAND;
			break;
		case '[':
			if (sp_bracket_glob(s + sc->i))
				w->flags |= SHPARSE_W_EXPAND;
			break;
		case '{':
			w->brace_open = true;
			break;
		case ',':
			w->brace_sep = w->brace_sep || w->brace_open;
			break;
		case '.':
			w->brace_sep = w->brace_sep || (w->brace_open && s[sc->i + 1] == '.');
			break;
		case '}':
			if (w->brace_open && w->brace_sep)
				w->flags |= SHPARSE_W_EXPAND;
			break;
		case '~':
			if (w->raw.len == 0)
				w->flags |= SHPARSE_W_EXPAND;
			break;
		default:
			break;
		}
		sp_both(w, c);
		sc->i++;
	}
	return w->raw.len > 0;
}

/*
 * Commands.
 */

static void
sp_cmd_init(struct sp_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	buf_init(&cmd->text, BUF_NOLIMIT);
}

static void
sp_words_free(struct shparse_word *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].raw);
		free(v[i].plain);
	}
	free(v);
}

static void
sp_cmd_reset(struct sp_cmd *cmd)
{
	buf_release(&cmd->text);
	sp_words_free(cmd->w, cmd->nw);
	sp_cmd_init(cmd);
}

/* Append s to the command's text, after the one space that stands for any blanks. */
static void
sp_text(struct sp_cmd *cmd, const char *s, size_t n)
{
	if (cmd->space && cmd->text.len > 0)
		buf_putc(&cmd->text, ' ');
	cmd->space = false;
	buf_append(&cmd->text, s, n);
}

static void
sp_cmd_add(struct sp_cmd *cmd, char *raw, char *plain, unsigned flags)
{
	if (cmd->nw == cmd->cap) {
		cmd->cap = cmd->cap ? cmd->cap * 2 : 8;
		cmd->w = xreallocarray(cmd->w, cmd->cap, sizeof(*cmd->w));
	}
	cmd->w[cmd->nw].raw = raw;
	cmd->w[cmd->nw].plain = plain;
	cmd->w[cmd->nw].flags = flags;
	cmd->nw++;
}

/* Index of the command word (not an assignment, not a redirection), or n. */
static size_t
sp_command_word(const struct shparse_word *w, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if ((w[k].flags & (SHPARSE_W_ASSIGN | SHPARSE_W_REDIR)) == 0)
			break;
	return k;
}

static bool
sp_is_assignment(const char *raw)
{
	size_t i = 0;

	if (!sp_name_start(raw[0]))
		return false;
	while (sp_name_char(raw[i]))
		i++;
	if (raw[i] == '[') {
		while (raw[i] != '\0' && raw[i] != ']')
			i++;
		if (raw[i] == ']')
			i++;
	}
	if (raw[i] == '+')
		i++;
	return raw[i] == '=';
}

static void
sp_add_part(struct shparse_parts *out, struct shparse_part *p)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 8;
		out->v = xreallocarray(out->v, out->cap, sizeof(*out->v));
	}
	out->v[out->n++] = *p;
	if (p->unsure)
		out->unsure = true;
}

/* The verdicts of a part: see shparse.h. */
static void
sp_judge(struct shparse_part *p)
{
	size_t k = sp_command_word(p->words, p->nwords), j;

	if (k == p->nwords)
		return;
	p->dynamic = (p->words[k].flags & (SHPARSE_W_EXPAND | SHPARSE_W_QUOTED)) != 0;
	p->unsure = (p->words[k].flags & SHPARSE_W_EXPAND) != 0;
	if (p->unsure || !sp_in(sp_wrappers, sp_basename(p->words[k].plain)))
		return;
	for (j = k + 1; j < p->nwords; j++)
		if ((p->words[j].flags & (SHPARSE_W_EXPAND | SHPARSE_W_REDIR)) == SHPARSE_W_EXPAND)
			p->unsure = true;
}

/*
 * The code that bash -c, sh -c and the other shells, or eval, find in the
 * part's words; NULL for none.  *dynamic tells whether it is only known
 * after expansion.  The caller frees.
 */
static char *
sp_inner_code(const struct shparse_word *w, size_t n, bool *dynamic)
{
	struct buf code = BUF_INIT(BUF_NOLIMIT);
	bool shell = false, sawc = false, skip = false;
	const char *u;
	size_t k;

	*dynamic = false;
	for (k = 0; k < n; k++) {
		if (w[k].flags & SHPARSE_W_REDIR)
			continue;
		u = w[k].plain;
		if (!shell) {
			if (strcmp(u, "eval") == 0 && (w[k].flags & SHPARSE_W_EXPAND) == 0) {
				for (k++; k < n; k++) {
					if (w[k].flags & SHPARSE_W_REDIR)
						continue;
					if (code.len > 0)
						buf_putc(&code, ' ');
					buf_puts(&code, w[k].plain);
					*dynamic = *dynamic || (w[k].flags & SHPARSE_W_EXPAND) != 0;
				}
				return buf_detach(&code, NULL);
			}
			if (sp_in(sp_shells, sp_basename(u)) && (w[k].flags & SHPARSE_W_EXPAND) == 0) {
				shell = true;
				sawc = false;
			}
			continue;
		}
		if (skip) {
			skip = false;
			continue;
		}
		if ((u[0] == '-' || u[0] == '+') && u[1] != '\0' && strcmp(u, "--") != 0) {
			if (strcmp(u + 1, "o") == 0 || strcmp(u + 1, "O") == 0 ||
			    strcmp(u, "--rcfile") == 0 || strcmp(u, "--init-file") == 0)
				skip = true;
			else if (u[0] == '-' && u[1] != '-' && strchr(u, 'c') != NULL)
				sawc = true;
			continue;
		}
		if (strcmp(u, "--") == 0)
			continue;
		if (sawc) {
			*dynamic = (w[k].flags & SHPARSE_W_EXPAND) != 0;
			buf_puts(&code, u);
			return buf_detach(&code, NULL);
		}
		shell = false;	/* a script: look for more shells in its arguments */
	}
	buf_release(&code);
	return NULL;
}

/* The command read so far becomes a part (or is dropped: a header, nothing). */
static void
sp_flush(struct sp_scan *sc, struct sp_cmd *cmd)
{
	struct shparse_part p;
	size_t idx;
	char *code;
	bool dyn;

	if (cmd->kind == SP_COND)
		sp_opaque(sc);	/* [[ without ]] */
	if (cmd->nw == 0 || cmd->kind == SP_FOR || cmd->kind == SP_CASE) {
		sp_cmd_reset(cmd);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.text = buf_detach(&cmd->text, NULL);
	p.words = cmd->w;
	p.nwords = cmd->nw;
	p.redirect = cmd->redirect;
	p.level = sc->level;
	sp_judge(&p);
	cmd->w = NULL;
	cmd->nw = cmd->cap = 0;
	code = sp_inner_code(p.words, p.nwords, &dyn);
	idx = sc->out->n;
	sp_add_part(sc->out, &p);
	if (code != NULL) {
		if (dyn) {
			sc->out->v[idx].unsure = true;
			sc->out->unsure = true;
		}
		sp_split_code(sc, code);
		free(code);
	}
	sp_cmd_reset(cmd);
}

/* Keep a finished word: keywords at a command's start steer, others are words. */
static void
sp_take_word(struct sp_scan *sc, struct sp_cmd *cmd, struct sp_word *w, int *cases, bool *pattern)
{
	const char *r = buf_cstr(&w->raw);
	unsigned flags = w->flags;
	bool start = cmd->nw == 0 && cmd->kind == SP_PLAIN;

	if (cmd->fname) {
		/* "function NAME": the name is not a command. */
		cmd->fname = false;
		buf_reset(&cmd->text);
		return;
	}
	if (start && cmd->time_p && strcmp(r, "-p") == 0 && flags == 0) {
		cmd->time_p = false;
		buf_reset(&cmd->text);
		return;
	}
	cmd->time_p = false;
	if (start && flags == 0) {
		if (sp_in(sp_keywords, r)) {
			if (strcmp(r, "!") == 0 && cmd->piped)
				sp_opaque(sc);	/* "a | ! b" */
			cmd->piped = false;	/* "a | until ! b" is fine */
			if (strcmp(r, "esac") == 0 && *cases > 0)
				(*cases)--;
			cmd->closed = strcmp(r, "fi") == 0 || strcmp(r, "done") == 0 ||
			    strcmp(r, "esac") == 0 || strcmp(r, "}") == 0;
			cmd->time_p = strcmp(r, "time") == 0;
			buf_reset(&cmd->text);
			cmd->space = false;
			return;
		}
		if (strcmp(r, "function") == 0) {
			cmd->fname = true;
			buf_reset(&cmd->text);
			return;
		}
		if (strcmp(r, "[[") == 0)
			cmd->kind = SP_COND;
		else if (strcmp(r, "for") == 0 || strcmp(r, "select") == 0)
			cmd->kind = SP_FOR;
		else if (strcmp(r, "case") == 0)
			cmd->kind = SP_CASE;
	} else if (cmd->kind == SP_CASE && cmd->nw == 2 && flags == 0 && strcmp(r, "in") == 0) {
		sp_cmd_reset(cmd);
		(*cases)++;
		*pattern = true;
		return;
	} else if (cmd->kind == SP_COND && flags == 0 && strcmp(r, "]]") == 0)
		cmd->kind = SP_PLAIN;
	if (cmd->kind == SP_PLAIN && sp_command_word(cmd->w, cmd->nw) == cmd->nw &&
	    (flags & SHPARSE_W_QUOTED) == 0 && sp_is_assignment(r))
		flags |= SHPARSE_W_ASSIGN;
	sp_text(cmd, r, w->raw.len);
	sp_cmd_add(cmd, buf_detach(&w->raw, NULL), buf_detach(&w->plain, NULL), flags);
}

/* Nothing that makes a command yet: an operator here is a syntax error. */
static bool
sp_empty(const struct sp_cmd *cmd)
{
	return cmd->nw == 0 && !cmd->closed && cmd->kind == SP_PLAIN;
}

/* Does the redirection send output into a file? */
static bool
sp_writes(const char *op, const struct sp_word *target)
{
	const char *t = buf_cstr(&target->plain);

	if (strcmp(op, ">&") == 0) {
		if (t[strspn(t, "0123456789")] == '\0' || strcmp(t, "-") == 0 ||
		    (t[0] != '\0' && t[strspn(t, "0123456789")] == '-' &&
		    t[strspn(t, "0123456789") + 1] == '\0'))
			return false;
	} else if (strchr(op, '>') == NULL)
		return false;
	return (target->flags & SHPARSE_W_EXPAND) != 0 || !sp_in(sp_harmless, t);
}

/* A redirection at sc->i ('<', '>' or "&>"), after an fd or {var} word when fd is set. */
static void
sp_redirect(struct sp_scan *sc, struct sp_cmd *cmd, const char *fd)
{
	static const char *const ops[] = {
		"&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">", NULL
	};
	struct buf raw = BUF_INIT(BUF_NOLIMIT), plain = BUF_INIT(BUF_NOLIMIT);
	const char *const *op;
	struct sp_word t;
	bool blank;

	for (op = ops; strncmp(sc->s + sc->i, *op, strlen(*op)) != 0; op++)
		;
	sc->i += strlen(*op);
	blank = sp_blank(sc->s[sc->i]);
	while (sp_blank(sc->s[sc->i]))
		sc->i++;
	sp_word_init(&t);
	if (!sp_word_read(sc, &t, false))
		sp_opaque(sc);	/* a redirection without a target */
	if (strncmp(*op, "<<", 2) == 0 && strcmp(*op, "<<<") != 0) {
		if (sc->ndocs == SHPARSE_DOCS_MAX || t.plain.len == 0)
			sp_opaque(sc);
		else {
			sc->docs[sc->ndocs].delim = xstrdup(buf_cstr(&t.plain));
			sc->docs[sc->ndocs].strip_tabs = strcmp(*op, "<<-") == 0;
			sc->docs[sc->ndocs].expand = (t.flags & SHPARSE_W_QUOTED) == 0;
			sc->ndocs++;
		}
	}
	if (sp_writes(*op, &t))
		cmd->redirect = true;
	buf_printf(&raw, "%s%s%s%s", fd, *op, blank ? " " : "", buf_cstr(&t.raw));
	buf_printf(&plain, "%s%s %s", fd, *op, buf_cstr(&t.plain));
	sp_text(cmd, raw.data, raw.len);
	sp_cmd_add(cmd, buf_detach(&raw, NULL), buf_detach(&plain, NULL),
	    SHPARSE_W_REDIR | (t.flags & SHPARSE_W_EXPAND));
	sp_word_release(&t);
}

/* Is the unquoted word an fd number or {name} right before a redirection? */
static bool
sp_fd_word(const struct sp_word *w, char next)
{
	const char *r = buf_cstr(&w->raw);
	size_t n = w->raw.len, i;

	if (w->flags != 0 || (next != '<' && next != '>'))
		return false;
	if (strspn(r, "0123456789") == n)
		return true;
	if (n < 3 || r[0] != '{' || r[n - 1] != '}' || !sp_name_start(r[1]))
		return false;
	for (i = 2; i < n - 1; i++)
		if (!sp_name_char(r[i]))
			return false;
	return true;
}

/* At a line's end: skip the bodies of its here-documents, following substitutions in them. */
static void
sp_bodies(struct sp_scan *sc)
{
	struct sp_doc docs[SHPARSE_DOCS_MAX];
	struct sp_word junk;
	const char *s = sc->s, *p;
	size_t d, n, ndocs = sc->ndocs;
	bool bol;

	/* Taken out first: a substitution in a body may end lines of its own. */
	memcpy(docs, sc->docs, sizeof(docs));
	sc->ndocs = 0;
	sp_word_init(&junk);
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
			else if (docs[d].expand && s[sc->i] == '$')
				sp_dollar(sc, &junk, true);
			else if (docs[d].expand && s[sc->i] == '`')
				sp_backtick(sc, &junk, true);
			else
				sc->i++;
		}
		free(docs[d].delim);
	}
	sp_word_release(&junk);
}

/* A case pattern list "(a|b)" up to its ')', or "esac". */
static void
sp_case_pattern(struct sp_scan *sc, struct sp_cmd *cmd, int *cases, bool *pattern)
{
	const char *s = sc->s;
	struct sp_word w;
	bool first = true;

	for (;;) {
		while (sp_blank(s[sc->i]) || s[sc->i] == '\n' ||
		    (s[sc->i] == '\\' && s[sc->i + 1] == '\n'))
			sc->i += s[sc->i] == '\\' ? 2 : 1;
		if (s[sc->i] == '#') {
			sc->i += strcspn(s + sc->i, "\n");
			continue;
		}
		break;
	}
	if (s[sc->i] == '\0')
		return;
	if (s[sc->i] == '(') {
		sc->i++;
		first = false;
	}
	for (;;) {
		while (sp_blank(s[sc->i]))
			sc->i++;
		sp_word_init(&w);
		if (!sp_word_read(sc, &w, false)) {
			sp_word_release(&w);
			sp_opaque(sc);
			*pattern = false;
			return;
		}
		if (first && w.flags == 0 && strcmp(buf_cstr(&w.raw), "esac") == 0) {
			sp_word_release(&w);
			(*cases)--;
			*pattern = false;
			buf_reset(&cmd->text);
			cmd->closed = true;
			return;
		}
		first = false;
		sp_word_release(&w);
		while (sp_blank(s[sc->i]))
			sc->i++;
		if (s[sc->i] == '|') {
			sc->i++;
			continue;
		}
		if (s[sc->i] == ')') {
			sc->i++;
			*pattern = false;
			return;
		}
		sp_opaque(sc);
		*pattern = false;
		return;
	}
}

/* "((" at a command's start: an arithmetic command when its "))" is found. */
static bool
sp_arith_command(struct sp_scan *sc, struct sp_cmd *cmd, int *cases, bool *pattern)
{
	bool unclear = false;
	size_t end = sp_arith_end(sc, sc->i + 2, &unclear);
	struct sp_word w;

	if (end == 0)
		return false;
	if (unclear)
		sp_opaque(sc);
	sp_word_init(&w);
	buf_puts(&w.raw, "((");
	buf_puts(&w.plain, "((");
	sc->i += 2;
	sp_arith(sc, &w, end);
	w.flags = 0;
	if (cmd->kind == SP_FOR)
		sp_word_release(&w);	/* for ((...)): a header */
	else {
		sp_take_word(sc, cmd, &w, cases, pattern);
		sp_word_release(&w);
	}
	return true;
}

/* "name ( )" or "( )" after "function name": a function definition's head. */
static bool
sp_function_parens(struct sp_scan *sc, struct sp_cmd *cmd)
{
	size_t j = sc->i + 1;

	while (sp_blank(sc->s[j]))
		j++;
	if (sc->s[j] != ')')
		return false;
	if (cmd->nw == 1 && cmd->w[0].flags == 0)
		sp_cmd_reset(cmd);
	else if (cmd->nw != 0)
		return false;
	sc->i = j + 1;
	return true;
}

/*
 * Scan a command list up to closer (0: the end; ')': not consumed),
 * adding its parts.
 */
static void
sp_list(struct sp_scan *sc, char closer)
{
	struct sp_cmd cmd;
	struct sp_word w;
	const char *s = sc->s;
	int cases = 0;
	bool pattern = false;
	char c, next, fd[64];

	sp_cmd_init(&cmd);
	while ((c = s[sc->i]) != '\0') {
		next = s[sc->i + 1];
		if (pattern) {
			sp_case_pattern(sc, &cmd, &cases, &pattern);
			continue;
		}
		if (sp_blank(c)) {
			cmd.space = true;
			sc->i++;
			continue;
		}
		if (c == '\\' && next == '\n') {
			sc->i += 2;
			continue;
		}
		if (c == '#') {
			sc->i += strcspn(s + sc->i, "\n");
			continue;
		}
		if (c == '\n' && (cmd.kind == SP_COND || cmd.kind == SP_CASE)) {
			cmd.space = true;
			sc->i++;
			continue;
		}
		if (c == '\n') {
			sp_flush(sc, &cmd);
			sc->i++;
			sp_bodies(sc);
			continue;
		}
		if (cmd.kind == SP_COND) {
			sp_word_init(&w);
			if (sp_word_read(sc, &w, true))
				sp_take_word(sc, &cmd, &w, &cases, &pattern);
			else {
				sp_flush(sc, &cmd);
				sc->i++;
			}
			sp_word_release(&w);
			continue;
		}
		if (c == closer && closer != 0)
			break;
		switch (c) {
		case ';':
			if (next != ';' && next != '&' && sp_empty(&cmd))
				sp_opaque(sc);	/* a command cannot be empty before ';' */
			sp_flush(sc, &cmd);
			if (next == ';' || next == '&') {
				sc->i += 2;
				if (next == ';' && s[sc->i] == '&')
					sc->i++;
				if (cases > 0)
					pattern = true;
				else
					sp_opaque(sc);
			} else
				sc->i++;
			continue;
		case '&':
			if (next == '>') {
				sp_redirect(sc, &cmd, "");
				continue;
			}
			if (sp_empty(&cmd))
				sp_opaque(sc);
			sp_flush(sc, &cmd);
			sc->i += next == '&' ? 2 : 1;
			continue;
		case '|':
			if (sp_empty(&cmd))
				sp_opaque(sc);	/* "| a", "a || | b" */
			if (next == '&')	/* a |& b is a 2>&1 | b */
				sp_cmd_add(&cmd, xstrdup(""), xstrdup("2>& 1"), SHPARSE_W_REDIR);
			sp_flush(sc, &cmd);
			cmd.piped = next != '|';
			sc->i += next == '|' || next == '&' ? 2 : 1;
			continue;
		case '(':
			if (sp_function_parens(sc, &cmd))
				continue;
			if (next == '(' && (cmd.nw == 0 || cmd.kind == SP_FOR) &&
			    sp_arith_command(sc, &cmd, &cases, &pattern))
				continue;
			if (cmd.nw != 0) {
				sp_opaque(sc);	/* "a (": bash refuses it */
				sp_flush(sc, &cmd);
			}
			sc->i++;
			sp_nested(sc, 0);
			cmd.closed = true;
			continue;
		case ')':
			sp_opaque(sc);	/* unbalanced */
			sp_flush(sc, &cmd);
			sc->i++;
			continue;
		case '<':
		case '>':
			if (next != '(') {
				sp_redirect(sc, &cmd, "");
				continue;
			}
			break;
		default:
			break;
		}
		sp_word_init(&w);
		if (!sp_word_read(sc, &w, false)) {
			/* Only a line continuation: nothing to keep. */
			sp_word_release(&w);
			continue;
		}
		if (sp_fd_word(&w, s[sc->i]) && w.raw.len < sizeof(fd)) {
			memcpy(fd, w.raw.data, w.raw.len);
			fd[w.raw.len] = '\0';
			sp_redirect(sc, &cmd, fd);
		} else
			sp_take_word(sc, &cmd, &w, &cases, &pattern);
		sp_word_release(&w);
	}
	sp_flush(sc, &cmd);
	if (cases > 0 || pattern)
		sp_opaque(sc);	/* case without esac */
	sp_cmd_reset(&cmd);
	buf_release(&cmd.text);
}

void
shparse_split(const char *command, struct shparse_parts *out)
{
	struct sp_scan sc;
	size_t d;

	memset(&sc, 0, sizeof(sc));
	sc.s = command != NULL ? command : "";
	sc.out = out;
	sp_list(&sc, 0);
	sp_bodies(&sc);
	for (d = 0; d < sc.ndocs; d++)
		free(sc.docs[d].delim);
}

void
shparse_parts_release(struct shparse_parts *out)
{
	size_t i;

	for (i = 0; i < out->n; i++) {
		free(out->v[i].text);
		sp_words_free(out->v[i].words, out->v[i].nwords);
	}
	free(out->v);
	memset(out, 0, sizeof(*out));
}

/*
 * Texts and patterns.
 */

/*
 * The quote state after c: 0 outside, '\'' '"' inside those, 'A' inside
 * $'...' (where a backslash escapes).  *skip tells that the next
 * character is escaped.
 */
static char
sp_quote_step(char q, const char *s, bool *skip)
{
	*skip = false;
	if (q != '\'' && s[0] == '\\' && s[1] != '\0') {
		*skip = true;
		return q;
	}
	if (q == 0 && s[0] == '$' && s[1] == '\'')
		return 'A';
	if (q == 0 && (s[0] == '\'' || s[0] == '"'))
		return s[0];
	if ((q == '\'' || q == 'A') && s[0] == '\'')
		return 0;
	if (q == '"' && s[0] == '"')
		return 0;
	return q;
}

char *
shparse_squeeze(const char *s)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	bool space = false, skip;
	char q = 0, nq;

	for (; *s != '\0'; s++) {
		if (q == 0 && sp_blank(*s)) {
			space = true;
			continue;
		}
		if (space && b.len > 0)
			buf_putc(&b, ' ');
		space = false;
		nq = sp_quote_step(q, s, &skip);
		buf_putc(&b, *s);
		if (skip)
			buf_putc(&b, *++s);
		else if (nq == 'A' && q == 0)
			buf_putc(&b, *++s);	/* the quote after '$' */
		q = nq;
	}
	return buf_detach(&b, NULL);
}

char *
shparse_word(const char *s, size_t *pos)
{
	size_t i = *pos, start;
	bool skip;
	char q = 0, nq;

	while (s[i] == ' ')
		i++;
	if (s[i] == '\0') {
		*pos = i;
		return NULL;
	}
	for (start = i; s[i] != '\0' && (q != 0 || s[i] != ' '); i++) {
		nq = sp_quote_step(q, s + i, &skip);
		if (skip || (nq == 'A' && q == 0))
			i++;
		q = nq;
	}
	*pos = i;
	return xstrndup(s + start, i - start);
}

bool
shparse_glob(const char *p, const char *s)
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

bool
shparse_rule_match(const char *pattern, const char *alt, const char *text)
{
	return shparse_glob(pattern, text) || (alt != NULL && shparse_glob(alt, text));
}

bool
shparse_allows(const char *pattern, const char *alt, const struct shparse_part *p)
{
	return !p->dynamic && shparse_rule_match(pattern, alt, p->text);
}

/*
 * The words from k on joined by spaces: the program's as plain (without its
 * directory) or raw, the others plain or raw; redirections only when raw.
 */
static char *
sp_join(const struct shparse_part *p, size_t k, bool plain_prog, bool plain_args)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t j;

	for (j = k; j < p->nwords; j++) {
		const struct shparse_word *w = &p->words[j];

		if ((w->flags & SHPARSE_W_REDIR) && (plain_args || w->raw[0] == '\0'))
			continue;
		if (b.len > 0)
			buf_putc(&b, ' ');
		if (j == k)
			buf_puts(&b, plain_prog ? sp_basename(w->plain) : w->raw);
		else
			buf_puts(&b, plain_args ? w->plain : w->raw);
	}
	return buf_detach(&b, NULL);
}

/* Does the pattern catch the command starting at word k, in any of its spellings? */
static bool
sp_denies_at(const char *pattern, const char *alt, const struct shparse_part *p, size_t k)
{
	static const bool forms[][2] = { { false, false }, { true, false }, { true, true } };
	size_t f;
	char *t;
	bool hit = false;

	for (f = 0; !hit && f < sizeof(forms) / sizeof(forms[0]); f++) {
		t = sp_join(p, k, forms[f][0], forms[f][1]);
		hit = shparse_rule_match(pattern, alt, t);
		free(t);
	}
	return hit;
}

bool
shparse_denies(const char *pattern, const char *alt, const struct shparse_part *p)
{
	size_t k, j;

	if (shparse_rule_match(pattern, alt, p->text))
		return true;
	for (k = 0; k < p->nwords && (p->words[k].flags & SHPARSE_W_REDIR); k++)
		;
	if (k == p->nwords)
		return false;
	if (sp_denies_at(pattern, alt, p, k))
		return true;
	if ((p->words[k].flags & SHPARSE_W_ASSIGN) == 0 &&
	    !sp_in(sp_wrappers, sp_basename(p->words[k].plain)))
		return false;
	/* Past assignments and wrappers, any later word may be the program. */
	for (j = k + 1; j < p->nwords; j++)
		if ((p->words[j].flags & SHPARSE_W_REDIR) == 0 &&
		    sp_denies_at(pattern, alt, p, j))
			return true;
	return false;
}

/*
 * Programs for which an allowed prefix means "run anything": a command
 * line that runs any command, and how.
 */
static const struct sp_runner {
	const char	*prog;
	const char	*probe;
	const char	*how;
} sp_runners[] = {
	{ "find",	"find . -exec sh -c x ;",	"find -exec runs any command" },
	{ "xargs",	"xargs sh -c x",		"xargs runs any command it is given" },
	{ "env",	"env sh -c x",			"env (and env -S) runs any command" },
	{ "make",	"make x",			"make runs whatever a makefile says (-f, VAR=...)" },
	{ "npx",	"npx x",			"npx runs any package" },
	{ "npm",	"npm exec x",			"npm exec and npm run run any command" },
	{ "python",	"python -c x",			"python -c runs any code" },
	{ "python3",	"python3 -c x",			"python3 -c runs any code" },
	{ "node",	"node -e x",			"node -e runs any code" },
	{ "perl",	"perl -e x",			"perl -e runs any code" },
	{ "ruby",	"ruby -e x",			"ruby -e runs any code" },
	{ "awk",	"awk BEGIN{system(x)}",		"awk runs commands through system()" },
	{ "gawk",	"gawk BEGIN{system(x)}",	"gawk runs commands through system()" },
	{ "sed",	"sed e x",			"sed runs commands with its e command" },
	{ "git",	"git -c alias.x=!x x",		"git -c alias.x='!…' runs any command" },
	{ "git",	"git difftool -x x",		"git difftool -x runs any command" },
	{ "bash",	"bash -c x",			"bash -c runs any command" },
	{ "sh",		"sh -c x",			"sh -c runs any command" },
	{ "zsh",	"zsh -c x",			"zsh -c runs any command" },
	{ "dash",	"dash -c x",			"dash -c runs any command" },
	{ "sudo",	"sudo x",			"sudo runs any command" },
	{ "doas",	"doas x",			"doas runs any command" },
	{ "eval",	"eval x",			"eval runs any command" },
	{ "exec",	"exec x",			"exec runs any command" },
	{ "command",	"command x",			"command runs any command" },
	{ "nohup",	"nohup x",			"nohup runs any command" },
	{ "timeout",	"timeout 1 x",			"timeout runs any command" },
	{ "nice",	"nice x",			"nice runs any command" },
	{ "watch",	"watch x",			"watch runs any command" },
};

bool
shparse_rule_runs_anything(const char *rule, struct buf *why)
{
	const char *open, *close;
	struct buf probe = BUF_INIT(BUF_NOLIMIT);
	char *raw, *pat, *alt = NULL, *first;
	size_t n, k, pos = 0;
	bool hit = false;

	while (sp_blank(*rule))
		rule++;
	open = strchr(rule, '(');
	close = strrchr(rule, ')');
	if (open == NULL || close == NULL || close < open)
		return false;
	n = (size_t)(open - rule);
	while (n > 0 && sp_blank(rule[n - 1]))
		n--;
	if (!((n == 8 && strncmp(rule, "run_bash", 8) == 0) || (n == 4 && strncmp(rule, "Bash", 4) == 0)))
		return false;
	raw = xstrndup(open + 1, (size_t)(close - open - 1));
	n = strlen(raw);
	if (n >= 2 && strcmp(raw + n - 2, ":*") == 0)
		raw[n - 2] = ' ';
	pat = shparse_squeeze(raw);
	n = strlen(pat);
	if (n >= 3 && strcmp(pat + n - 2, " *") == 0 && pat[n - 3] != '\\')
		alt = xstrndup(pat, n - 2);
	first = shparse_word(pat, &pos);
	for (k = 0; first != NULL && !hit && k < sizeof(sp_runners) / sizeof(sp_runners[0]); k++) {
		n = strlen(sp_basename(first));
		while (n > 0 && sp_basename(first)[n - 1] == '*')
			n--;	/* "make*" names make too */
		if (strncmp(sp_basename(first), sp_runners[k].prog, n) != 0 ||
		    sp_runners[k].prog[n] != '\0')
			continue;
		/* "/usr/bin/git *" covers "/usr/bin/git -c ...". */
		buf_reset(&probe);
		buf_append(&probe, first, (size_t)(sp_basename(first) - first));
		buf_puts(&probe, sp_runners[k].probe);
		if (shparse_rule_match(pat, alt, buf_cstr(&probe))) {
			buf_printf(why, "rule %s lets %s run any command: %s", rule,
			    sp_runners[k].prog, sp_runners[k].how);
			hit = true;
		}
	}
	buf_release(&probe);
	free(first);
	free(alt);
	free(pat);
	free(raw);
	return hit;
}
