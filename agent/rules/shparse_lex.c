/*
 * shparse_lex: the shell splitter's leaves: characters, names, lists of
 * words, what an arithmetic text or an assignment reads or runs, trap's
 * action.  They call nothing else of the splitter, so the rules
 * (shparse_rules.c) use them without reaching back into it.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shparse.h"
#include "shparse_int.h"
#include "xalloc.h"

bool
sp_in(const char *const *list, const char *word)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, word) == 0)
			return true;
	return false;
}

const char *
sp_basename(const char *w)
{
	const char *slash = strrchr(w, '/');

	return slash != NULL && slash[1] != '\0' ? slash + 1 : w;
}

bool
sp_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool
sp_name_char(char c)
{
	return sp_name_start(c) || (c >= '0' && c <= '9');
}

bool
sp_blank(char c)
{
	return c == ' ' || c == '\t';
}

bool
sp_arith_reads(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		char c = s[i];

		if (c >= '0' && c <= '9') {
			/* A number: 10, 0x1f, 16#ff, 64#_@ */
			while (i < n && (sp_name_char(s[i]) || s[i] == '#' || s[i] == '@'))
				i++;
			continue;
		}
		if (sp_name_start(c) || c == '`')
			return true;
		if (c == '$') {
			if (i + 1 < n && strchr("#?$!", s[i + 1]) != NULL) {
				i += 2;
				continue;
			}
			return true;
		}
		i++;
	}
	return false;
}

bool
sp_subscript_reads(const char *s, size_t n)
{
	while (n > 0 && sp_blank(*s)) {
		s++;
		n--;
	}
	if (n == 1 && (*s == '@' || *s == '*'))
		return false;
	return sp_arith_reads(s, n);
}

/* Variables whose value bash runs or expands as a prompt later. */
static const char *const sp_code_vars[] = {
	"PS0", "PS1", "PS2", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", NULL
};

bool
sp_assign_evals(const char *raw)
{
	size_t i = 0, open;
	char name[32];

	while (sp_name_char(raw[i]))
		i++;
	if (i < sizeof(name)) {
		memcpy(name, raw, i);
		name[i] = '\0';
		if (sp_in(sp_code_vars, name))
			return true;
	}
	if (raw[i] != '[')
		return false;
	open = i + 1;
	while (raw[i] != '\0' && raw[i] != ']')
		i++;
	return sp_subscript_reads(raw + open, i - open);
}

/*
 * trap's action (trap [--] ACTION SIGNAL...): the code bash runs when the
 * signal comes; NULL for none ("-", "", -l, -p, a lone signal).
 */
char *
sp_trap_code(const struct shparse_word *w, size_t n, size_t k, bool *dynamic)
{
	size_t j, ops = 0, action = 0;

	for (j = k + 1; j < n; j++) {
		if (w[j].flags & SHPARSE_W_REDIR)
			continue;
		if (ops == 0 && action == 0 && strcmp(w[j].plain, "--") == 0) {
			action = j + 1;
			continue;
		}
		if (ops == 0 && action == 0 && w[j].plain[0] == '-' && w[j].plain[1] != '\0')
			return NULL;	/* -l, -p, -P: nothing is set */
		if (ops++ == 0)
			action = j;
	}
	if (ops < 2 || action >= n || strcmp(w[action].plain, "-") == 0 ||
	    w[action].plain[0] == '\0')
		return NULL;
	*dynamic = (w[action].flags & SHPARSE_W_EXPAND) != 0;
	return xstrdup(w[action].plain);
}
