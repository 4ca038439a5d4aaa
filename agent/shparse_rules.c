/* Command rules against the parts the splitter found: see shparse.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shparse.h"
#include "shparse_int.h"
#include "xalloc.h"

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

