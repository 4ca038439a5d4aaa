/* The shell splitter's words, in every quoting form bash has: see shparse_int.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "hex.h"
#include "shparse.h"
#include "shparse_int.h"
#include "xalloc.h"

void
sp_opaque(struct sp_scan *sc)
{
	sc->out->opaque = true;
}

/* Give up on the rest of the text. */
void
sp_abandon(struct sp_scan *sc)
{
	sp_opaque(sc);
	sc->i += strlen(sc->s + sc->i);
}

void
sp_word_init(struct sp_word *w)
{
	memset(w, 0, sizeof(*w));
	buf_init(&w->raw, BUF_NOLIMIT);
	buf_init(&w->plain, BUF_NOLIMIT);
}

void
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
 * What bash evaluates again.
 */

/*
 * Does the ${...} whose inside starts at p make bash evaluate more than
 * the splitter reads: ${!x} (x names another variable, maybe "a[$(...)]"),
 * a subscript or a substring offset that reads a variable, ${x@P}?
 */
static bool
sp_param_evals(const char *p)
{
	const char *q = p, *open;
	int depth;

	if (*q == '!') {
		for (q++; sp_name_char(*q); q++)
			;
		/* ${!a[@]} and ${!prefix*} list names; the rest is indirection. */
		return !(strncmp(q, "[@]}", 4) == 0 || strncmp(q, "[*]}", 4) == 0 ||
		    strncmp(q, "*}", 2) == 0 || strncmp(q, "@}", 2) == 0);
	}
	if (*q == '#' && q[1] != '}')
		q++;
	if (sp_name_start(*q)) {
		while (sp_name_char(*q))
			q++;
	} else if (*q != '\0')
		q++;
	if (*q == '[') {
		open = ++q;
		for (depth = 1; *q != '\0'; q++)
			if (*q == '[')
				depth++;
			else if (*q == ']' && --depth == 0)
				break;
		if (sp_subscript_reads(open, (size_t)(q - open)))
			return true;
		if (*q == ']')
			q++;
	}
	if (q[0] == ':' && q[1] != '\0' && strchr("-=?+", q[1]) == NULL)
		return sp_arith_reads(q + 1, strcspn(q + 1, "}"));
	return q[0] == '@' && q[1] == 'P';
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
		for (n = 0; n < max && (h = hex_digit(p[n + 1])) >= 0; n++)
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
		dry.comsub++;
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
size_t
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
void
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
	if (sp_param_evals(s + sc->i))
		w->flags |= SHPARSE_W_EVAL;
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
			w->flags |= inner.flags & SHPARSE_W_EVAL;
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
void
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
		if (sp_arith_reads(s + sc->i, end - sc->i))
			w->flags |= SHPARSE_W_EVAL;
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
void
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
				if (s[sc->i++] == '\n' && sc->ndocs > 0)
					sp_bodies(sc);
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
		w->flags |= el.flags & (SHPARSE_W_EXPAND | SHPARSE_W_EVAL);
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
bool
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

