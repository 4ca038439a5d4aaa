/*
 * shparse_int: what the shell splitter's two halves share.  shparse_word.c
 * reads one word in every quoting form bash has ('...', "...", $'...',
 * $"...", backslashes, ${...}, $(...), `...`, $((...)), <(...), arrays) and
 * follows the substitutions in it; shparse.c reads commands and command
 * lists (operators, redirections, here-documents, compound commands) and
 * makes the parts.  A substitution inside a word is itself a command list,
 * so each half calls the other.  Internal to the splitter: the rest of
 * tandem uses shparse.h.
 */
#ifndef TANDEM_SHPARSE_INT_H
#define TANDEM_SHPARSE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "shparse.h"

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
	int			 comsub;	/* inside $(...), <(...) or >(...): "EOF)" ends a body */
	bool			 pipe;		/* a '|' came before: a command may read a pipe */
	struct shparse_parts	*out;
	struct sp_doc		 docs[SHPARSE_DOCS_MAX];
	size_t			 ndocs;
};

struct sp_word {
	struct buf	raw, plain;
	unsigned	flags;
	bool		brace_open, brace_sep;
};

/* What a wrapper runs (shparse_rules.c): words of its own, or a command line. */
enum sp_run_kind {
	SP_RUN_ARGV,	/* words [start, end), then [rest, n) when rest is not 0 */
	SP_RUN_CODE	/* text, or words [start, end) joined, for a shell */
};

struct sp_run {
	enum sp_run_kind	 kind;
	size_t			 start, end, rest;
	const char		*text;		/* the value of a code option, or NULL */
	bool			 dynamic;	/* text is only known after expansion */
	const char		*placeholder;	/* replaced at run time ("{}" of find -exec) */
};

#define SP_RUNS_MAX	8

/* Is the program (without its directory) one whose arguments are a command? */
bool sp_is_wrapper(const char *name);

/*
 * Does the command at word k of part p make bash run or evaluate, later,
 * a string the splitter cannot read (trap, alias, let, declare -i, read
 * into a subscripted name, [[ x -eq y ]], ...)?
 */
bool sp_runs_later(const struct shparse_word *w, size_t n, size_t k);

/* A subscript s[0..n) (inside [ ]) that bash evaluates as arithmetic on a name. */
bool sp_subscript_reads(const char *s, size_t n);

/*
 * Does the assignment NAME[sub]=value (raw) make bash evaluate more: a
 * subscript that reads a variable, or a variable whose value is code?
 */
bool sp_assign_evals(const char *raw);

/*
 * trap's action (trap [--] ACTION SIGNAL...) in words w[k...]: the code
 * bash runs when a signal comes, or NULL ("-", "", -l, -p, one operand).
 * The caller frees.
 */
char *sp_trap_code(const struct shparse_word *w, size_t n, size_t k, bool *dynamic);

/*
 * The commands that the wrapper named by word k of w runs: at most max
 * runs, their count (0: none), or -1 when they cannot be found exactly.
 */
int sp_wrap_runs(const struct shparse_word *w, size_t n, size_t k, struct sp_run *runs,
    size_t max);

/* The words (shparse_word.c). */

/*
 * Does arithmetic text s[0..n) read a variable, a substitution or any
 * name (whose value bash evaluates again)?  Numbers, operators and $#,
 * $?, $$, $! do not.
 */
bool sp_arith_reads(const char *s, size_t n);

/* Part p is unsure and dynamic, or the next part to come is when there is none yet. */
void sp_mark_eval(struct sp_scan *sc);

bool sp_in(const char *const *list, const char *word);

const char *sp_basename(const char *w);

bool sp_name_start(char c);

bool sp_name_char(char c);

bool sp_blank(char c);

void sp_opaque(struct sp_scan *sc);

/* Give up on the rest of the text. */
void sp_abandon(struct sp_scan *sc);

void sp_word_init(struct sp_word *w);

void sp_word_release(struct sp_word *w);

/*
 * For "((" with the arithmetic starting at i: the index of its closing
 * "))", or 0 when there is none (then it is a subshell in a subshell, or a
 * command substitution of one).
 */
size_t sp_arith_end(const struct sp_scan *sc, size_t i, bool *unclear);

/* The inside of (( )) or $(( )) up to end (its "))"), substitutions followed. */
void sp_arith(struct sp_scan *sc, struct sp_word *w, size_t end);

/* A word starting at '$'. */
void sp_dollar(struct sp_scan *sc, struct sp_word *w, bool in_dq);

/* `...`: its backslashes taken away, then split as a command line of its own. */
void sp_backtick(struct sp_scan *sc, struct sp_word *w, bool in_dq);

/*
 * One word at sc->i: quotes, escapes, expansions and substitutions
 * followed.  In a [[ ]] (cond) only blanks and newlines end it.  false
 * when there is no word here.
 */
bool sp_word_read(struct sp_scan *sc, struct sp_word *w, bool cond);

/* Commands and lists (shparse.c). */

/* A command list up to ')' with sc->i inside it; ')' consumed.  false when unbalanced. */
bool sp_nested(struct sp_scan *sc, int level_add);

/* Split code (a -c string, eval's words, the inside of `...`) one level down. */
void sp_split_code(const struct sp_scan *outer, const char *code);

/*
 * At a line's end, with sc->i at the next line: skip the bodies of the
 * here-documents pending, then split the substitutions in those that have
 * them.
 */
void sp_bodies(struct sp_scan *sc);

/*
 * Scan a command list up to closer (0: the end; ')': not consumed),
 * adding its parts.
 */
void sp_list(struct sp_scan *sc, char closer);

#endif
