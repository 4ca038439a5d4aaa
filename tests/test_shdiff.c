/*
 * The differential test of the shell splitter against real bash.
 *
 * Thousands of seeded, generated command lines are split by shparse and
 * given to bash -c.  bash runs with extdebug, functrace (set -T) and a
 * DEBUG trap (carried into nested shells by BASH_ENV) that records
 * $BASH_COMMAND before every simple command and returns 1, so that bash
 * skips the command: nothing runs.  A few commands must pass the trap so
 * that bash reaches what is inside them: eval and bash -c (to parse their
 * code), and commands holding a substitution (so that bash expands it and
 * records the commands in it).  Those name no program bash can find (PATH
 * holds only bash, command_not_found_handle returns 0) and run in an empty
 * directory, so still nothing runs.
 *
 * Skipped commands return 0, so the generator writes || as "! a || b" and
 * puts the commands bash does not reach (else branches) under names
 * starting with 'u', which both sides leave out.  Records of compound
 * headers (for, case) and "break" are left out too.  Each record is then
 * put through the same canonical form as tandem's parts (the plain words,
 * command substitutions as placeholders: their commands are compared as
 * parts of their own), and the two multisets must be equal.
 *
 * Usage: test_shdiff [cases [seed]] (3000 and 12 by default; SHDIFF_CASES,
 * SHDIFF_SEED, and SHDIFF_DUMP=file to keep the failing cases).  TAP: one
 * line per 500 cases, and a count of every construct generated.
 *
 * bash 5.2 reprints the text of a command substitution after parsing it
 * and runs the reprint, and two of its reprints are wrong.  After a
 * here-document the reprint loses the next separator ("$(a <<E\nx\nE\nb;
 * c)" runs "b c"), and after a word ending in an escaped '&' it loses the
 * ';' ("$(if a b\&; then c; fi)" is a syntax error and runs nothing).  So
 * the generator puts neither inside a substitution: a here-document there
 * is always the last command of its list.
 *
 * Here-documents come in every context: at a line's end, quoted and
 * unquoted, <<-, two on a line, in a pipeline, a group and an if, with a
 * continuation line after the operator, before a [[ or case that spans the
 * body, with the delimiter line joined by a backslash-newline, left open at
 * the end, in $(...), <(...), `...`, bash -c and eval, and closed by "E)"
 * or "E cmd)" inside a substitution (bash reads the rest of that line as
 * commands; doc_fix says what the generator avoids there).  Each has its
 * count in the output.
 *
 * Every disagreement fails, in both directions.  A command bash runs that
 * tandem does not see is the failure that matters: a rule would not have
 * been checked against it.  A command tandem sees that bash does not reach
 * is safe (tandem checks more than runs), but a part bash does not reach
 * is a part this test did not compare; so the generator makes bash reach
 * every part (skipped commands return 0, else branches are left out, the
 * reprint faults above are avoided) and a case where it does not is a
 * failure of the harness to be fixed here, never excused.  Every failing
 * case is printed with both views.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "rules/shparse.h"
#include "xalloc.h"

#define CASE_TIMEOUT_MS	10000
#define GEN_DEPTH	3
#define RECORDS_MAX	(1024 * 1024)

enum construct {
	K_SEMI, K_AND, K_OR, K_PIPE, K_PIPE_ERR, K_BG, K_NEWLINE, K_SQUOTE, K_DQUOTE, K_ANSI,
	K_ANSI_ATTACK, K_LOCALE, K_BACKSLASH, K_CONTINUATION, K_VAR, K_GLOB, K_BRACE, K_SUBST,
	K_DQ_SUBST, K_BACKTICK, K_PROCSUB, K_PARAM_SUBST, K_ARITH_EXP, K_ARITH_CMD, K_COND,
	K_HEREDOC, K_HEREDOC_QUOTED, K_HEREDOC_TABS, K_HEREDOC_TWO, K_HEREDOC_JOIN,
	K_HEREDOC_QJOIN, K_HEREDOC_PIPE, K_HEREDOC_GROUP, K_HEREDOC_CONT, K_HEREDOC_SPAN,
	K_HEREDOC_EOF, K_HEREDOC_SUBST, K_HEREDOC_PAREN, K_HEREDOC_PROCSUB,
	K_HEREDOC_BACKTICK, K_HEREDOC_CODE, K_COMMENT, K_SUBSHELL,
	K_GROUP, K_IF, K_WHILE, K_UNTIL, K_FOR, K_CASE, K_BASH_C, K_SH_C, K_EVAL,
	K_ASSIGN, K_ASSIGN_ONLY, K_REDIR, K_QUOTED_CMD, K_COUNT
};

static const char *const construct_names[K_COUNT] = {
	";", "&&", "! a || b", "|", "|&", "&", "newline", "'...'", "\"...\"", "$'...'",
	"$'\\''", "$\"...\"", "backslash", "line continuation", "$VAR", "glob", "{a,b}", "$(...)",
	"\"$(...)\"", "`...`", "<(...) >(...)", "${x:-$(...)}", "$((...))", "((...))", "[[ ]]",
	"<<E", "<<'E'", "<<-E", "two here-documents",
	"<<E ending at a line joined by a backslash-newline", "<<'E' with a backslash-newline",
	"<<E | cmd", "{ <<E; }, if <<E", "<<E then a continuation line",
	"<<E; [[, case or $(...) spanning its body",
	"<<E unterminated at the end", "<<E, <<-E, <<'E' in $(...)", "E) or E cmd) closing $(...)",
	"<<E in <(...)", "<<E in `...`", "<<E in bash -c or eval", "comment", "( )", "{ ; }", "if",
	"while", "until", "for", "case", "bash -c", "sh -c", "eval", "VAR=x cmd",
	"VAR=$(...)", "redirection", "quoted command word"
};

struct gen {
	uint64_t	 rng;
	unsigned	 counts[K_COUNT];
	unsigned	 names;
	bool		 path;		/* a command word with a path: its status is 127 */
	int		 subst;		/* inside a command substitution */
	int		 arith;		/* inside $(( )) or (( )) */
	int		 procsub;	/* inside <( ) or >( ) */
	int		 code;		/* inside bash -c, sh -c or eval */
};

static uint64_t
gen_next(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static unsigned
pick(struct gen *g, unsigned n)
{
	return (unsigned)(gen_next(g) % n);
}

static void
count(struct gen *g, enum construct k)
{
	g->counts[k]++;
}

static void gen_list(struct gen *, struct buf *, int depth);
static void gen_doc_tail(struct gen *, struct buf *);

/* "; word", or just "word" after a line's end (a line cannot start with ';'). */
static void
gen_then(struct buf *b, const char *word)
{
	if (b->len == 0 || b->data[b->len - 1] != '\n')
		buf_puts(b, "; ");
	buf_puts(b, word);
}

/* A command word that bash finds nowhere; reach=false: bash does not get to it. */
static void
gen_cmdword(struct gen *g, struct buf *b, bool reach)
{
	unsigned n = g->names++ % 100;
	char c = reach ? 'c' : 'u';

	switch (reach ? pick(g, 10) : 0) {
	case 0: case 1: case 2: case 3: case 4:
		buf_printf(b, "%c%u", c, n);
		break;
	case 5:
		count(g, K_QUOTED_CMD);
		buf_printf(b, "'%c%u'", c, n);
		break;
	case 6:
		count(g, K_QUOTED_CMD);
		buf_printf(b, "%c\\%u", c, n);
		break;
	case 7:
		count(g, K_QUOTED_CMD);
		buf_printf(b, "\"%c\"%u", c, n);
		break;
	default:
		count(g, K_QUOTED_CMD);
		buf_printf(b, "$'%c%u'", c, n);
		break;
	}
}

/*
 * A here-document as the last command of a substitution's list (bash 5.2
 * reprints one followed by more commands wrongly: see the header), ended
 * by its delimiter line, or by "E)" or "E cmd)" that bash takes as its end
 * inside a substitution, the rest of the line read as commands.
 */
static void
gen_doc_tail(struct gen *g, struct buf *b)
{
	unsigned how = pick(g, 4), close = pick(g, 3);

	count(g, g->procsub > 0 ? K_HEREDOC_PROCSUB : K_HEREDOC_SUBST);
	if (b->len > 0 && b->data[b->len - 1] != '\n')
		buf_putc(b, '\n');
	gen_cmdword(g, b, true);
	buf_puts(b, how == 0 ? " <<E\nx $(" : how == 1 ? " <<-E\n\tx $(" :
	    how == 2 ? " <<'E'\n$(c1) `c2`\nE\\\n" : " <<\\E\nE c3\n");
	if (how < 2) {
		gen_cmdword(g, b, true);
		buf_puts(b, ") y\\\nE\n");
	}
	if (how == 1)
		buf_putc(b, '\t');
	if (close == 0) {
		buf_puts(b, "E\n");
		return;
	}
	count(g, K_HEREDOC_PAREN);
	buf_puts(b, "E\001");	/* see doc_fix */
	if (close == 2) {
		buf_putc(b, ' ');
		gen_cmdword(g, b, true);
	}
}

/* A substitution's inside: a short list. */
static void
gen_inner(struct gen *g, struct buf *b, int depth)
{
	struct buf in = BUF_INIT(BUF_NOLIMIT);

	g->subst++;
	gen_list(g, &in, depth + 1);
	if (g->arith == 0 && depth < GEN_DEPTH && pick(g, 5) == 0)
		gen_doc_tail(g, &in);
	g->subst--;
	/* "$((" would open arithmetic. */
	if (in.data[0] == '(')
		buf_putc(b, ' ');
	buf_append(b, in.data, in.len);
	buf_release(&in);
}

static void
gen_word(struct gen *g, struct buf *b, int depth)
{
	unsigned k = pick(g, depth >= GEN_DEPTH ? 14 : 21);

	switch (k) {
	case 0: case 1: case 2:
		buf_printf(b, "w%u", pick(g, 10));
		break;
	case 3:
		count(g, K_SQUOTE);
		buf_puts(b, pick(g, 2) ? "'x; c1 | c2 && c3'" : "'a\\'");
		break;
	case 4:
		count(g, K_DQUOTE);
		buf_puts(b, pick(g, 2) ? "\"p \\\" q ; c4 \\$x\"" : "\"a\\\\\"");
		break;
	case 5:
		count(g, K_ANSI);
		buf_puts(b, pick(g, 2) ? "$'a\\x41\\n\\\\b'" : "$'\\101 \\t;'");
		break;
	case 6:
		count(g, K_ANSI_ATTACK);
		buf_puts(b, "$'\\''");
		break;
	case 7:
		count(g, K_LOCALE);
		buf_puts(b, "$\"l; c5\"");
		break;
	case 8:
		/*
		 * Not a\;b\& in a substitution: bash 5.2 reprints a word
		 * ending in \& there without the ';' after it, so the
		 * substitution it runs is a syntax error (see the header).
		 */
		count(g, K_BACKSLASH);
		if (pick(g, 2))
			buf_puts(b, g->subst > 0 ? "a\\;b\\&c" : "a\\;b\\&");
		else
			buf_puts(b, "a\\ b\\|");
		break;
	case 9:
		count(g, K_CONTINUATION);
		buf_puts(b, "ab\\\ncd");
		break;
	case 10:
		count(g, K_VAR);
		buf_puts(b, pick(g, 2) ? "$HOME" : "${X:-w}");
		break;
	case 11:
		count(g, K_GLOB);
		buf_puts(b, "*.none");
		break;
	case 12:
		count(g, K_BRACE);
		buf_puts(b, "{p,q}");
		break;
	case 13:
		buf_puts(b, "'#'");
		break;
	case 14:
		count(g, K_SUBST);
		buf_puts(b, "$(");
		gen_inner(g, b, depth);
		buf_puts(b, ")");
		break;
	case 15:
		count(g, K_DQ_SUBST);
		buf_puts(b, "\"x $(");
		gen_inner(g, b, depth);
		buf_puts(b, ")\"");
		break;
	case 16:
		count(g, K_BACKTICK);
		buf_putc(b, '`');
		gen_cmdword(g, b, true);
		if (g->arith == 0 && pick(g, 4) == 0) {
			/* The body ends at the backquote, delimiter or not. */
			count(g, K_HEREDOC_BACKTICK);
			buf_puts(b, pick(g, 2) ? " <<E\n$(c7)\nE\n`" : " <<'E'\nc7; c8`");
		} else
			buf_puts(b, pick(g, 2) ? " w`" : "; c7`");
		break;
	case 17:
		count(g, K_PROCSUB);
		buf_puts(b, pick(g, 2) ? "<(" : ">(");
		g->procsub++;
		gen_inner(g, b, depth);
		g->procsub--;
		buf_puts(b, ")");
		break;
	case 18:
		count(g, K_PARAM_SUBST);
		buf_puts(b, "${X:-$(");
		gen_inner(g, b, depth);
		buf_puts(b, ")}");
		break;
	case 19:
		count(g, K_ARITH_EXP);
		buf_puts(b, "$((1 + 0$(");
		g->arith++;
		gen_inner(g, b, depth);
		g->arith--;
		buf_puts(b, ")))");
		break;
	default:
		count(g, K_SUBST);
		buf_puts(b, "$(");
		gen_cmdword(g, b, true);
		buf_puts(b, ")");
		break;
	}
}

static void
gen_redir(struct gen *g, struct buf *b)
{
	static const char *const r[] = {
		"> f1", ">>f2", "2>&1", "< /dev/null", "&> f3", "2> f4", ">| f5", "1>&2"
	};

	count(g, K_REDIR);
	buf_puts(b, r[pick(g, sizeof(r) / sizeof(r[0]))]);
}

/* Quote code for bash -c or eval so that the shell gets it exactly. */
static void
gen_quote(struct gen *g, struct buf *b, const char *code)
{
	unsigned how = pick(g, 3);
	const char *p;

	if (how == 0 && strchr(code, '\'') != NULL)
		how = 2;
	if (how == 0) {
		buf_printf(b, "'%s'", code);
		return;
	}
	buf_putc(b, how == 1 ? '"' : '$');
	if (how == 2)
		buf_putc(b, '\'');
	for (p = code; *p != '\0'; p++) {
		if (how == 1 && strchr("\\\"$`", *p) != NULL)
			buf_putc(b, '\\');
		if (how == 2 && (*p == '\\' || *p == '\''))
			buf_putc(b, '\\');
		if (how == 2 && *p == '\n')
			buf_puts(b, "\\n");
		else
			buf_putc(b, *p);
	}
	buf_putc(b, how == 1 ? '"' : '\'');
}

static void
gen_simple(struct gen *g, struct buf *b, int depth)
{
	struct buf code = BUF_INIT(BUF_NOLIMIT);
	unsigned i, n;

	if (depth < GEN_DEPTH && pick(g, 12) == 0) {
		unsigned k = pick(g, 3);

		g->code++;
		gen_list(g, &code, depth + 1);
		g->code--;
		count(g, k == 0 ? K_BASH_C : k == 1 ? K_SH_C : K_EVAL);
		buf_puts(b, k == 0 ? "bash -c " : k == 1 ? "sh -c " : "eval ");
		gen_quote(g, b, buf_cstr(&code));
		buf_release(&code);
		return;
	}
	if (pick(g, 10) == 0) {
		count(g, K_ASSIGN);
		buf_printf(b, "A%u=w ", pick(g, 5));
	}
	if (depth < GEN_DEPTH && pick(g, 25) == 0) {
		count(g, K_ASSIGN_ONLY);
		buf_puts(b, "B=$(");
		gen_inner(g, b, depth);
		buf_putc(b, ')');
		return;
	}
	gen_cmdword(g, b, true);
	n = pick(g, 4);
	for (i = 0; i < n; i++) {
		buf_putc(b, ' ');
		if (pick(g, 8) == 0)
			gen_redir(g, b);
		else
			gen_word(g, b, depth);
	}
}

static void
gen_command(struct gen *g, struct buf *b, int depth)
{
	unsigned k = depth >= GEN_DEPTH ? 0 : pick(g, 30);

	switch (k) {
	case 1:
		count(g, K_SUBSHELL);
		buf_puts(b, "( ");
		gen_list(g, b, depth + 1);
		buf_puts(b, " )");
		break;
	case 2:
		count(g, K_GROUP);
		buf_puts(b, "{ ");
		gen_list(g, b, depth + 1);
		gen_then(b, "}");
		break;
	case 3:
		count(g, K_IF);
		buf_puts(b, "if ");
		gen_list(g, b, depth + 1);
		gen_then(b, "then ");
		gen_list(g, b, depth + 1);
		gen_then(b, "else ");
		gen_cmdword(g, b, false);
		gen_then(b, "fi");
		break;
	case 4:
		/* The condition is a word bash skips (0), never one it expands and runs. */
		count(g, K_WHILE);
		buf_puts(b, "while ");
		gen_cmdword(g, b, true);
		gen_then(b, "do ");
		gen_list(g, b, depth + 1);
		gen_then(b, "break; done");
		break;
	case 5:
		count(g, K_UNTIL);
		buf_puts(b, "until ! ");
		gen_cmdword(g, b, true);
		gen_then(b, "do ");
		gen_list(g, b, depth + 1);
		gen_then(b, "break; done");
		break;
	case 6:
		count(g, K_FOR);
		buf_puts(b, "for v in w1 $(");
		gen_cmdword(g, b, true);
		buf_putc(b, ')');
		gen_then(b, "do ");
		gen_list(g, b, depth + 1);
		gen_then(b, "break; done");
		break;
	case 7:
		/*
		 * bash counts parentheses in $(( )), so a case pattern's ')'
		 * ends it there: tandem refuses to split that (opaque).
		 */
		if (g->arith > 0) {
			gen_simple(g, b, depth);
			return;
		}
		count(g, K_CASE);
		buf_puts(b, "case w in w|x) ");
		gen_list(g, b, depth + 1);
		buf_puts(b, b->data[b->len - 1] == '\n' ? ";;& (*) " : " ;;& (*) ");
		gen_list(g, b, depth + 1);
		if (b->data[b->len - 1] == '\n')
			buf_puts(b, "esac");
		else
			buf_puts(b, pick(g, 2) ? ";; esac" : "\nesac");
		break;
	case 8:
		count(g, K_COND);
		if (pick(g, 2)) {
			buf_puts(b, "[[ -z $(");
			gen_inner(g, b, depth);
			buf_puts(b, ") ]]");
		} else
			buf_puts(b, "[[ w == w && -n x ]]");
		break;
	case 9:
		count(g, K_ARITH_CMD);
		buf_puts(b, "(( 1 + 0$(");
		g->arith++;
		gen_inner(g, b, depth);
		g->arith--;
		buf_puts(b, ") ))");
		break;
	default:
		gen_simple(g, b, depth);
		return;
	}
	if (pick(g, 6) == 0) {
		buf_putc(b, ' ');
		gen_redir(g, b);
	}
}

/* A command with a here-document (or two), its bodies after the line. */
static void
gen_heredoc(struct gen *g, struct buf *b, int depth)
{
	unsigned k = pick(g, 10), group = pick(g, 2);

	if (g->code > 0)
		count(g, K_HEREDOC_CODE);
	if (k == 7) {
		count(g, K_HEREDOC_GROUP);
		buf_puts(b, group ? "{ " : "if ");
		gen_cmdword(g, b, true);
		buf_puts(b, group ? " <<E; }\n" : " <<E; then c4; fi\n");
		buf_puts(b, "$(c5)\nE\n");
		return;
	}
	gen_cmdword(g, b, true);
	switch (k) {
	case 0:
		count(g, K_HEREDOC);
		buf_puts(b, " <<E\nline $(");
		gen_cmdword(g, b, true);
		buf_puts(b, ") `c8`; c9\nE\n");
		break;
	case 1:
		count(g, K_HEREDOC_QUOTED);
		buf_puts(b, pick(g, 2) ? " <<'E'" : " <<\"E\"");
		buf_puts(b, "\n$(c1) `c2`\nc3; c4\nE\n");
		break;
	case 2:
		count(g, K_HEREDOC_TABS);
		buf_puts(b, " <<-E\n\tx $(");
		gen_cmdword(g, b, true);
		buf_puts(b, ")\n\tE\n");
		break;
	case 3:
		count(g, K_HEREDOC_TWO);
		buf_puts(b, " <<A <<'B' | ");
		gen_cmdword(g, b, true);
		buf_puts(b, "\n$(");
		gen_cmdword(g, b, true);
		buf_puts(b, ")\nA\n$(c5)\nB\n");
		break;
	case 4:
		/* "x\<nl>EF" is the line "xEF", "E\<nl>F" the line "EF"; "a\\" does not join. */
		count(g, K_HEREDOC_JOIN);
		buf_puts(b, pick(g, 2) ? " <<EF\nx $(c6) \\\nEF\nE\\\nF\n" :
		    " <<-EF\n\ta\\\\\n\tE\\\nF\n");
		break;
	case 5:
		count(g, K_HEREDOC_QJOIN);
		buf_puts(b, pick(g, 2) ? " <<'EF'\nE\\\nF\n$(c1)\\\nEF\n" : " <<\\EF\nx\\\nEF\n");
		break;
	case 6:
		count(g, K_HEREDOC_PIPE);
		buf_puts(b, pick(g, 2) ? " <<E | " : " <<E && ");
		gen_cmdword(g, b, true);
		buf_puts(b, "\n$(c3)\nE\n");
		break;
	case 8:
		count(g, K_HEREDOC_CONT);
		buf_puts(b, " <<E \\\n w1 $(");
		gen_cmdword(g, b, true);
		buf_puts(b, ")\nb\nE\n");
		break;
	default:
		/* The body starts at the next line, whatever construct that line is in. */
		count(g, K_HEREDOC_SPAN);
		switch (pick(g, 3)) {
		case 0:
			buf_puts(b, " <<E; [[ -n w\n$(c2)\nE\n]]\n");
			break;
		case 1:
			buf_puts(b, " <<E; case w in\n$(c2)\nE\nw) c3 ;; esac\n");
			break;
		default:
			/* A substitution's newlines do not start the body. */
			buf_puts(b, " <<E $(c2\nc3\n)\n$(c4)\nE\n");
			break;
		}
		break;
	}
	(void)depth;
}

static void
gen_list(struct gen *g, struct buf *b, int depth)
{
	unsigned i, n = 1 + pick(g, depth == 0 ? 4 : 2), sep;
	bool piped = false;

	for (i = 0; i < n; i++) {
		piped = false;
		if (i > 0 && b->len > 0 && b->data[b->len - 1] != '\n') {
			/* After a command that fails (127), && would stop bash. */
			do
				sep = pick(g, 8);
			while (g->path && sep == 1);
			switch (sep) {
			case 0:
				count(g, K_SEMI);
				buf_puts(b, "; ");
				break;
			case 1:
				count(g, K_AND);
				buf_puts(b, " && ");
				break;
			case 2:
				count(g, K_PIPE);
				buf_puts(b, " | ");
				piped = true;
				break;
			case 3:
				count(g, K_PIPE_ERR);
				buf_puts(b, " |& ");
				piped = true;
				break;
			case 4:
				count(g, K_BG);
				buf_puts(b, " & ");
				break;
			case 5:
				count(g, K_COMMENT);
				buf_puts(b, " # c9; c8 | c7\n");
				break;
			case 6:
				count(g, K_CONTINUATION);
				buf_puts(b, " \\\n; ");
				break;
			default:
				count(g, K_NEWLINE);
				buf_putc(b, '\n');
				break;
			}
		}
		g->path = false;
		/* '!' only starts a pipeline. */
		if (!piped && pick(g, 10) == 0) {
			count(g, K_OR);
			buf_puts(b, "! ");
			gen_simple(g, b, depth);
			buf_puts(b, " || ");
		}
		/*
		 * bash 5.2 loses the separator after a here-document when it
		 * reprints the text of a command substitution, and runs the
		 * reprint ("$(a <<E ... E\nb; c)" runs "b c"): none there.
		 */
		if (g->subst == 0 && pick(g, 10) == 0) {
			gen_heredoc(g, b, depth);
			continue;
		}
		gen_command(g, b, depth);
	}
}

/*
 * Running bash.
 */

static const char trap_script[] =
	"set -T\n"
	"command_not_found_handle() { return 0; }\n"
	"__rec() {\n"
	"  shopt -s extdebug\n"
	"  [[ ${FUNCNAME[1]} == command_not_found_handle ]] && return 0\n"
	"  [[ $BASH_COMMAND == 'exec /bin/bash \"$@\"' ]] && return 0\n"
	/* One write per record: newlines become \001, so that records never interleave. */
	"  printf '%s\\0' \"${BASH_COMMAND//$'\\n'/$'\\001'}\" >&3\n"
	"  case $BASH_COMMAND in\n"
	"  break|'for '*|'case '*|eval\\ *|bash\\ *|sh\\ *) return 0 ;;\n"
	"  *'$('*|*'`'*|*'<('*|*'>('*) return 0 ;;\n"
	"  esac\n"
	"  return 1\n"
	"}\n"
	"trap __rec DEBUG\n";

struct env {
	char	dir[64];
	char	work[128], bin[128], trap[128], bash_env[160], path[160];
};

static int
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	size_t n = strlen(text);

	if (fd == -1 || write(fd, text, n) != (ssize_t)n) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	return close(fd);
}

static int
env_setup(struct env *e)
{
	char sh[160], bash[160];

	snprintf(e->dir, sizeof(e->dir), "/tmp/shdiff.XXXXXX");
	if (mkdtemp(e->dir) == NULL)
		return -1;
	if (snprintf(e->work, sizeof(e->work), "%s/work", e->dir) >= (int)sizeof(e->work) ||
	    snprintf(e->bin, sizeof(e->bin), "%s/bin", e->dir) >= (int)sizeof(e->bin) ||
	    snprintf(e->trap, sizeof(e->trap), "%s/trap.sh", e->dir) >= (int)sizeof(e->trap) ||
	    snprintf(e->bash_env, sizeof(e->bash_env), "BASH_ENV=%s", e->trap) >=
	    (int)sizeof(e->bash_env) ||
	    snprintf(e->path, sizeof(e->path), "PATH=%s", e->bin) >= (int)sizeof(e->path) ||
	    snprintf(sh, sizeof(sh), "%s/sh", e->bin) >= (int)sizeof(sh) ||
	    snprintf(bash, sizeof(bash), "%s/bash", e->bin) >= (int)sizeof(bash))
		return -1;
	if (mkdir(e->work, 0700) == -1 || mkdir(e->bin, 0700) == -1 ||
	    symlink("/bin/bash", bash) == -1 ||
	    /* Not a link: bash called sh reads no BASH_ENV. */
	    write_file(sh, "#!/bin/bash\nexec /bin/bash \"$@\"\n", 0755) == -1 ||
	    write_file(e->trap, trap_script, 0644) == -1)
		return -1;
	return 0;
}

static void
env_remove(struct env *e)
{
	char cmd[256];

	if (snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir) < (int)sizeof(cmd) &&
	    system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", e->dir);
}

/* Run bash -c cmd under the trap: the records, NUL-separated, into out.  0 or -1. */
static int
run_bash(const struct env *e, const char *cmd, struct buf *out)
{
	char a0[] = "bash", a1[] = "-c", home[] = "HOME=/nonexistent", lc[] = "LC_ALL=C";
	char *envp[] = { (char *)e->path, (char *)e->bash_env, home, lc, NULL };
	char *argv[] = { a0, a1, (char *)cmd, NULL };
	struct pollfd pfd;
	int p[2], status, rc = 0, waited = 0;
	char chunk[4096];
	ssize_t n;
	pid_t pid;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (chdir(e->work) == -1 || null == -1)
			_exit(126);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (p[0] == 3 && (p[0] = dup(p[0])) == -1)
			_exit(126);
		if (p[1] != 3) {
			dup2(p[1], 3);
			close(p[1]);
		}
		close(p[0]);
		setpgid(0, 0);
		execve("/bin/bash", argv, envp);
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, 100) == 0)
			waited += 100;
		/* A loop that bash does not leave, idle or recording, is stopped. */
		if (waited >= CASE_TIMEOUT_MS || out->len > RECORDS_MAX) {
			kill(-pid, SIGKILL);
			rc = -1;
			break;
		}
		if ((pfd.revents & (POLLIN | POLLHUP)) == 0)
			continue;
		n = read(p[0], chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t j = 0; j < n; j++)
			if (chunk[j] == '\001')
				chunk[j] = '\n';
		buf_append(out, chunk, (size_t)n);
	}
	close(p[0]);
	waitpid(pid, &status, 0);
	return rc;
}

/*
 * Comparing.
 */

/* The canonical form of one part: its plain words, (( )) without blanks. */
static char *
canon_part(const struct shparse_part *p)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *w;
	size_t k;

	/*
	 * bash prints redirections after the words, and those of [[ ]] and
	 * (( )) not at all (they belong to the compound command).
	 */
	bool compound = p->nwords > 0 && (strcmp(p->words[0].plain, "[[") == 0 ||
	    strncmp(p->words[0].plain, "((", 2) == 0);

	for (k = 0; k < (compound ? 1 : 2) * p->nwords; k++) {
		if (((p->words[k % p->nwords].flags & SHPARSE_W_REDIR) != 0) != (k >= p->nwords))
			continue;
		if (b.len > 0)
			buf_putc(&b, ' ');
		w = p->words[k % p->nwords].plain;
		if (strncmp(w, "((", 2) == 0) {
			for (; *w != '\0'; w++)
				if (*w != ' ' && *w != '\t')
					buf_putc(&b, *w);
		} else
			buf_puts(&b, w);
	}
	return buf_detach(&b, NULL);
}

/* Left out of the comparison: what bash does not reach or records as a header. */
static bool
canon_skip(const struct shparse_part *p)
{
	const char *w, *base;
	size_t k;

	for (k = 0; k < p->nwords && (p->words[k].flags & (SHPARSE_W_ASSIGN |
	    SHPARSE_W_REDIR)); k++)
		;
	if (k == p->nwords)	/* redirections of a compound command: not a record */
		return p->nwords > 0 && (p->words[0].flags & SHPARSE_W_REDIR) != 0;
	w = p->words[k].plain;
	base = strrchr(w, '/') != NULL ? strrchr(w, '/') + 1 : w;
	return base[0] == 'u' || strcmp(w, "break") == 0;
}

struct strs {
	char	**v;
	size_t	  n, cap;
};

static void
strs_add(struct strs *s, char *str)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n++] = str;
}

static void
strs_release(struct strs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* tandem's view: every part, canonical.  -1 when the split is opaque. */
static int
tandem_view(const char *cmd, struct strs *out)
{
	struct shparse_parts p;
	size_t i;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	shparse_split(cmd, &p);
	if (p.opaque)
		rc = -1;
	for (i = 0; i < p.n; i++)
		if (!canon_skip(&p.v[i]))
			strs_add(out, canon_part(&p.v[i]));
	shparse_parts_release(&p);
	return rc;
}

/* bash's view: every record but headers, canonical; -1 for a record that is not one command. */
static int
bash_view(const struct buf *recs, struct strs *out, struct buf *why)
{
	struct shparse_parts p;
	const char *r = buf_cstr(recs), *end = r + recs->len;
	size_t i, top;
	int rc = 0;

	for (; r < end; r += strlen(r) + 1) {
		if (strncmp(r, "for ", 4) == 0 || strncmp(r, "case ", 5) == 0)
			continue;
		memset(&p, 0, sizeof(p));
		shparse_split(r, &p);
		for (i = 0, top = 0; i < p.n; i++)
			if (p.v[i].level == 0) {
				top++;
				if (!canon_skip(&p.v[i]))
					strs_add(out, canon_part(&p.v[i]));
			}
		if (top != 1) {
			buf_printf(why, "# bash record is %zu commands: [%s]\n", top, r);
			rc = -1;
		}
		shparse_parts_release(&p);
	}
	return rc;
}

static void
print_case(const char *cmd, const struct strs *t, const struct strs *b)
{
	const char *c;
	size_t i;

	printf("# case: ");
	for (c = cmd; *c != '\0'; c++)
		if (*c == '\n')
			printf("\\n");
		else if (*c == '\t')
			printf("\\t");
		else
			putchar(*c);
	printf("\n");
	for (i = 0; i < t->n; i++)
		printf("#   tandem: [%s]\n", t->v[i]);
	for (i = 0; i < b->n; i++)
		printf("#   bash:   [%s]\n", b->v[i]);
}

static int
compare(const struct env *e, const char *cmd, struct buf *why)
{
	struct buf recs = BUF_INIT(BUF_NOLIMIT);
	struct strs t = { 0 }, b = { 0 };
	size_t i, j;
	int rc = 0;

	if (tandem_view(cmd, &t) == -1) {
		buf_puts(why, "# tandem could not split it with certainty\n");
		rc = -1;
	}
	if (run_bash(e, cmd, &recs) == -1) {
		buf_puts(why, "# bash did not finish\n");
		rc = -1;
	}
	if (bash_view(&recs, &b, why) == -1)
		rc = -1;
	qsort(t.v, t.n, sizeof(*t.v), cmp_str);
	qsort(b.v, b.n, sizeof(*b.v), cmp_str);
	/* Walk both sorted lists: what only bash ran is the failure that matters most. */
	for (i = j = 0; i < t.n || j < b.n;) {
		int c = i == t.n ? 1 : j == b.n ? -1 : strcmp(t.v[i], b.v[j]);

		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			i++;
			if (rc == 0)
				rc = 1;		/* tandem saw a command bash did not reach */
		} else {
			j++;
			rc = -1;		/* bash ran a command tandem did not see */
		}
	}
	if (rc != 0) {
		const char *dump = getenv("SHDIFF_DUMP");
		FILE *f;

		printf("%s", buf_cstr(why));
		print_case(cmd, &t, &b);
		/* SHDIFF_DUMP=file keeps the failing cases as they are, one per NUL. */
		if (dump != NULL && (f = fopen(dump, "a")) != NULL) {
			fwrite(cmd, 1, strlen(cmd) + 1, f);
			fclose(f);
		}
	}
	strs_release(&t);
	strs_release(&b);
	buf_release(&recs);
	return rc;
}

/*
 * bash 5.2 reads the rest of a line after "E)" again, and in that reading
 * takes a backslash-newline at its end as a continuation even inside
 * quotes or a comment (so it sees less than tandem).  Where the line ends
 * so, the here-document ends on a line of its own ("E\n)"); elsewhere the
 * mark after E goes.
 */
static void
doc_fix(struct gen *g, char *s)
{
	char *m, *nl;

	while ((m = strchr(s, '\001')) != NULL) {
		nl = strchr(m, '\n');
		if (nl != NULL && nl[-1] == '\\') {
			*m = '\n';
			g->counts[K_HEREDOC_PAREN]--;
		} else
			memmove(m, m + 1, strlen(m));
		s = m;
	}
}

static long
arg_long(const char *s, long def)
{
	char *end;
	long v;

	if (s == NULL)
		return def;
	v = strtol(s, &end, 10);
	return end != s && *end == '\0' && v > 0 ? v : def;
}

int
main(int argc, char **argv)
{
	struct buf cmd = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(BUF_NOLIMIT);
	long n = arg_long(argc > 1 ? argv[1] : getenv("SHDIFF_CASES"), 3000);
	long seed = arg_long(argc > 2 ? argv[2] : getenv("SHDIFF_SEED"), 12);
	struct gen g;
	struct env e;
	long i, bad = 0, block_bad = 0, tests = 0, missing = 0, unreached = 0, block_unreached = 0;
	int k;

	if (access("/bin/bash", X_OK) == -1) {
		printf("1..0 # SKIP no /bin/bash\n");
		return 0;
	}
	memset(&g, 0, sizeof(g));
	g.rng = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;
	memset(&e, 0, sizeof(e));
	if (env_setup(&e) == -1) {
		printf("Bail out! cannot set up a scratch directory\n");
		return 1;
	}
	printf("# %ld cases from seed %ld\n", n, seed);
	for (i = 0; i < n; i++) {
		buf_reset(&cmd);
		buf_reset(&why);
		gen_list(&g, &cmd, 0);
		if (pick(&g, 40) == 0) {
			/* bash reads a here-document left open up to the end, and warns. */
			count(&g, K_HEREDOC_EOF);
			buf_putc(&cmd, '\n');
			gen_cmdword(&g, &cmd, true);
			buf_puts(&cmd, " <<E\nx $(c4)\n");
		}
		doc_fix(&g, cmd.data);
		cmd.len = strlen(cmd.data);
		switch (compare(&e, buf_cstr(&cmd), &why)) {
		case -1:
			bad++;
			block_bad++;
			break;
		case 1:
			unreached++;
			block_unreached++;
			break;
		default:
			break;
		}
		if ((i + 1) % 500 == 0 || i + 1 == n) {
			tests++;
			printf("%s %ld - in cases up to %ld bash runs nothing tandem does not see\n",
			    block_bad ? "not ok" : "ok", tests, i + 1);
			tests++;
			printf("%s %ld - in cases up to %ld bash reaches every part tandem sees\n",
			    block_unreached ? "not ok" : "ok", tests, i + 1);
			block_bad = block_unreached = 0;
			fflush(stdout);
		}
	}
	tests++;
	for (k = 0; k < K_COUNT; k++) {
		printf("# %6u  %s\n", g.counts[k], construct_names[k]);
		if (g.counts[k] == 0)
			missing++;
	}
	printf("%s %ld - every construct was generated\n", missing > 0 ? "not ok" : "ok", tests);
	printf("1..%ld\n", tests);
	printf("# %ld cases where bash ran what tandem did not see, %ld where tandem saw "
	    "more than bash reached\n", bad, unreached);
	env_remove(&e);
	buf_release(&cmd);
	buf_release(&why);
	return 0;
}
