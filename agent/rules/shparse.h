/*
 * shparse: the shell splitter.  It reads a bash command line the way bash
 * reads it and cuts it into the simple commands bash would run ("parts"),
 * so that permission rules can be matched part by part.
 *
 * Followed as bash follows them: '...', "..." (with $(...), `...` and the
 * backslash rules inside), $'...' (its escapes decoded), $"...",
 * backslashes, line continuations, here-documents (<<, <<-, quoted
 * delimiters, several on one line; a body with an unquoted delimiter has
 * its substitutions run), comments, (( )), $(( )), [[ ]], <(...) and
 * >(...), subshells, { ...; }, nested command substitution, the lists
 * && || ; | |& & and newlines, the keywords (if, for, case, while, ...,
 * function), assignments before the command word and redirections.  The
 * code given to bash -c, sh -c (and the other shells) or eval is split
 * too, to a bounded depth.  Compound-command headers (for NAME in WORDS,
 * case WORD in, patterns) run no program and are not parts, but the
 * substitutions in them are.
 *
 * Every part carries its words as written and with quotes removed, and two
 * verdicts: "dynamic" (its command word holds an expansion or a quoting
 * trick, so no pattern may allow it) and "unsure" (the program it runs is
 * only known once bash expands it, so a deny rule cannot be checked).
 * Code that bash runs later from a string is unsure and dynamic too: a
 * trap's action (also split, so deny rules see it), an alias, arithmetic
 * and subscripts that read a variable (its value may be "a[$(cmd)]"),
 * ${!x}, ${x@P}, prompt and startup-file variables, and the builtins that
 * run or evaluate what they are given (let, declare -i, mapfile -C,
 * complete -C, enable -f, fc, hash -p, bind -x).  A wrapper (sudo, env,
 * timeout, unshare, find -exec, ...: one table with each one's options)
 * has the command it runs as a part of its own, one level down.  When
 * the splitter cannot be sure of the split itself (an unbalanced quote or
 * parenthesis, nesting deeper than SHPARSE_DEPTH_MAX) the parts are marked
 * opaque: some may be missing.
 *
 * Owns: struct shparse_parts owns its parts, their texts and words;
 * shparse_parts_release frees them.  Strings returned by shparse_squeeze
 * and shparse_word are the caller's to free.
 */
#ifndef TANDEM_SHPARSE_H
#define TANDEM_SHPARSE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

#define SHPARSE_DEPTH_MAX	8	/* nesting of $(...), subshells, bash -c, eval */
#define SHPARSE_DOCS_MAX	8	/* here-documents pending on one line */

/* What a word holds (struct shparse_word.flags). */
#define SHPARSE_W_EXPAND	0x01	/* $..., `...`, a glob, a brace, a leading ~ */
#define SHPARSE_W_QUOTED	0x02	/* a quote or a backslash */
#define SHPARSE_W_ASSIGN	0x04	/* NAME=value before the command word */
#define SHPARSE_W_REDIR		0x08	/* a redirection: operator and target */
/*
 * Bash evaluates a string the splitter cannot see when it expands this
 * word: arithmetic on a variable (whose value may hold "a[$(...)]"), a
 * subscript, ${!name}, ${x@P}, a prompt or startup-file variable.
 */
#define SHPARSE_W_EVAL		0x10

struct shparse_word {
	char		*raw;		/* as written */
	/*
	 * Quotes removed and escapes decoded; other expansions kept as
	 * written, except that every command substitution reads "$(…)",
	 * "`…`", "<(…)" or ">(…)" (its commands are parts of their own).
	 * For a redirection: the operator, a space and the target.
	 */
	char		*plain;
	unsigned	 flags;
};

struct shparse_part {
	char			*text;		/* blanks squeezed, quotes kept */
	struct shparse_word	*words;		/* in order, redirections included */
	size_t			 nwords;
	bool			 redirect;	/* sends output into a file */
	bool			 dynamic;	/* command word holds an expansion or quoting */
	bool			 unsure;	/* the program run is known only after expansion */
	int			 level;		/* 0; +1 inside a substitution, eval or -c */
	bool			 borrowed;	/* internal: words belong to an earlier part */
};

struct shparse_parts {
	struct shparse_part	*v;
	size_t			 n, cap;
	bool			 opaque;	/* not split with certainty: parts may be missing */
	bool			 unsure;	/* some part is unsure */
	bool			 pending;	/* internal: the next part is unsure too */
};

/* Split command into out (zeroed by the caller or released before). */
void		 shparse_split(const char *command, struct shparse_parts *out);
void		 shparse_parts_release(struct shparse_parts *);

/* s with runs of unquoted blanks made one space, none at either end. */
char		*shparse_squeeze(const char *s);
/* The blank-separated word of squeezed text s at *pos, quotes kept; NULL at the end. */
char		*shparse_word(const char *s, size_t *pos);

/* A command glob: '*' matches anything, "\*" a star, everything else itself. */
bool		 shparse_glob(const char *pattern, const char *text);
/* pattern or alt (may be NULL) against text. */
bool		 shparse_rule_match(const char *pattern, const char *alt, const char *text);
/*
 * May an allow pattern cover part p?  Only when its command word is plain
 * and its text matches.
 */
bool		 shparse_allows(const char *pattern, const char *alt, const struct shparse_part *p);
/*
 * Does a deny or ask pattern catch part p?  Tried on the text as written,
 * on the words with quotes removed and the program without its directory
 * ("'rm' x", "r\m x", "/bin/rm x" are all "rm x"), and past leading
 * assignments and wrappers such as sudo, env or xargs.
 */
bool		 shparse_denies(const char *pattern, const char *alt, const struct shparse_part *p);

/*
 * A program that reads a whole tree by itself: grep -r, rg, ag, ack, git
 * grep, find, ls -R, tree, tar c, zip -r, cp -r, rsync -r, scp -r.  The
 * folders part p's command reads everything below, each with the word it
 * came from (NULL for the current folder a program reads when it is given
 * none, as rg or grep -r do).  rev: the word may be a revision (git grep),
 * so the current folder is read when it names no file.  own_glob: the
 * program matches the word's wildcards itself (git grep's pathspecs, zip's
 * names), so it reads below the folder before the first name holding one.
 */
struct shparse_tree {
	const char	*path;
	unsigned	 flags;		/* the word's SHPARSE_W_... */
	bool		 rev;
	bool		 own_glob;
};

#define SHPARSE_TREES_MAX	16

/*
 * Part p's folders (at most max) into out: their count, 0 when its program
 * reads no tree by itself, -1 when there are more than max.
 */
int		 shparse_tree_reads(const struct shparse_part *p, struct shparse_tree *out,
		    size_t max);

/*
 * Programs for which an allowed prefix means "run anything".  For a rule
 * ("run_bash(git *)", "Bash(find:*)"; other tools are ignored) that lets
 * such a program take arguments, appends a sentence naming how it runs
 * any command to why and returns true.
 */
bool		 shparse_rule_runs_anything(const char *rule, struct buf *why);

#endif
