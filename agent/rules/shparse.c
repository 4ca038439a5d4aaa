/* The shell splitter: commands and command lists (see shparse.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "shparse.h"
#include "shparse_int.h"
#include "xalloc.h"

/* Reserved words that only group or sequence commands: skipped at a command's start. */
static const char *const sp_keywords[] = {
	"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
	"{", "}", "!", "time", "coproc", "esac", NULL
};

/* Shells whose -c argument is itself a command line. */
static const char *const sp_shells[] = {
	"bash", "sh", "zsh", "dash", "ksh", "mksh", NULL
};

/* Redirection targets that are not files. */
static const char *const sp_harmless[] = {
	"/dev/null", "/dev/stdout", "/dev/stderr", NULL
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
	int			 time_p;	/* after "time": 1, "-p" or "--" may follow; 2 after -p */
	bool			 closed;	/* a compound command just ended: not empty */
	bool			 coproc;	/* after "coproc": a NAME may come before a compound */
	bool			 piped;		/* after '|': '!' may not come */
};

/*
 * Nesting.
 */

/* A command list up to ')' with sc->i inside it; ')' consumed.  false when unbalanced. */
bool
sp_nested(struct sp_scan *sc, int level_add)
{
	struct sp_doc outer[SHPARSE_DOCS_MAX];
	size_t nouter = 0, d;

	if (sc->depth >= SHPARSE_DEPTH_MAX) {
		sp_abandon(sc);
		return false;
	}
	if (level_add > 0) {
		/*
		 * A substitution is parsed on its own: a newline in it does
		 * not start the bodies pending outside it, and those it
		 * leaves pending come first at the line's end.
		 */
		nouter = sc->ndocs;
		memcpy(outer, sc->docs, sizeof(outer));
		sc->ndocs = 0;
	}
	sc->depth++;
	sc->level += level_add;
	sc->comsub += level_add;
	sp_list(sc, ')');
	sc->depth--;
	sc->level -= level_add;
	sc->comsub -= level_add;
	for (d = 0; d < nouter; d++) {
		if (sc->ndocs == SHPARSE_DOCS_MAX) {
			sp_opaque(sc);
			free(outer[d].delim);
		} else
			sc->docs[sc->ndocs++] = outer[d];
	}
	if (sc->s[sc->i] != ')') {
		sp_opaque(sc);
		return false;
	}
	sc->i++;
	return true;
}

/* Split code (a -c string, eval's words, the inside of `...`) one level down. */
void
sp_split_code(const struct sp_scan *outer, const char *code)
{
	struct sp_scan sc;
	size_t d;

	memset(&sc, 0, sizeof(sc));
	sc.s = code;
	sc.out = outer->out;
	sc.depth = outer->depth + 1;
	sc.level = outer->level + 1;
	sc.pipe = outer->pipe;
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
	if (out->pending) {
		p->dynamic = p->unsure = true;
		out->pending = false;
	}
	out->v[out->n++] = *p;
	if (p->unsure)
		out->unsure = true;
}

/* Part p is unsure and dynamic, or the next part to come is when there is none yet. */
void
sp_mark_eval(struct sp_scan *sc)
{
	struct shparse_parts *o = sc->out;

	if (o->n > 0) {
		o->v[o->n - 1].dynamic = o->v[o->n - 1].unsure = true;
		o->unsure = true;
	} else
		o->pending = true;
}

/*
 * Where a shell's script operand u has its code: 0 a file, 1 the shell's
 * standard input ("-", /dev/stdin, /dev/fd/0), 2 another descriptor or a
 * substitution ("<(...)", /dev/fd/3), whose text is not on the line either.
 */
static int
sp_script_hidden(const char *u)
{
	if (strcmp(u, "-") == 0 || strcmp(u, "/dev/stdin") == 0 || strcmp(u, "/dev/fd/0") == 0 ||
	    strcmp(u, "/proc/self/fd/0") == 0 || strcmp(u, "/proc/thread-self/fd/0") == 0)
		return 1;
	if (strcmp(u, "<(…)") == 0 || strncmp(u, "/dev/fd/", 8) == 0 ||
	    strncmp(u, "/proc/", 6) == 0)
		return 2;
	return 0;
}

/*
 * Does the shell at word k read its commands from its standard input (no
 * -c, no script, -s, or a script that is the input: "curl ... | sh",
 * "bash <<EOF", "sh < file", "bash -- /dev/stdin <<EOF")?  1 then, 2 when
 * they come from another descriptor or a substitution ("bash <(...)"), 0
 * when they are on the line or in a file.  What it runs is not on the
 * command line.
 */
static int
sp_shell_reads_stdin(const struct shparse_word *w, size_t n, size_t k)
{
	size_t j;
	const char *u;
	bool ended = false;

	if (!sp_in(sp_shells, sp_basename(w[k].plain)))
		return 0;
	for (j = k + 1; j < n; j++) {
		if (w[j].flags & SHPARSE_W_REDIR)
			continue;
		u = w[j].plain;
		if (ended)
			return sp_script_hidden(u);
		if (strcmp(u, "--") == 0) {
			ended = true;
			continue;
		}
		if (strcmp(u, "--version") == 0 || strcmp(u, "--help") == 0)
			return 0;
		if (strcmp(u, "-o") == 0 || strcmp(u, "-O") == 0 || strcmp(u, "+O") == 0 ||
		    strcmp(u, "+o") == 0 || strcmp(u, "--rcfile") == 0 ||
		    strcmp(u, "--init-file") == 0) {
			j++;
			continue;
		}
		if (u[0] == '-' && u[1] != '-' && strchr(u, 'c') != NULL)
			return 0;
		if (u[0] == '-' && u[1] != '-' && strchr(u, 's') != NULL)
			return 1;
		if (u[0] != '-' && u[0] != '+')
			return sp_script_hidden(u);
	}
	return 1;
}

/* Does the part redirect its standard input (<, <<, <<<, <&, <>)? */
static bool
sp_reads_input(const struct shparse_part *p)
{
	size_t j;
	const char *u;

	for (j = 0; j < p->nwords; j++) {
		if ((p->words[j].flags & SHPARSE_W_REDIR) == 0)
			continue;
		u = p->words[j].plain;
		if (u[0] == '<' || (u[0] == '0' && u[1] == '<'))
			return true;
	}
	return false;
}

/* The verdicts of a part: see shparse.h. */
static void
sp_judge(struct shparse_part *p)
{
	size_t k = sp_command_word(p->words, p->nwords), j;

	for (j = 0; j < p->nwords; j++)
		if (p->words[j].flags & SHPARSE_W_EVAL)
			p->dynamic = p->unsure = true;
	if (k == p->nwords)
		return;
	if (p->words[k].flags & (SHPARSE_W_EXPAND | SHPARSE_W_QUOTED))
		p->dynamic = true;
	if (p->words[k].flags & SHPARSE_W_EXPAND)
		p->unsure = true;
	/* Code in a string that bash runs later: as unknown as $c. */
	if (sp_runs_later(p->words, p->nwords, k))
		p->dynamic = p->unsure = true;
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
		if (!shell && strcmp(u, "trap") == 0 && (w[k].flags & SHPARSE_W_EXPAND) == 0 &&
		    sp_command_word(w, n) == k)
			return sp_trap_code(w, n, k, dynamic);
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

static void sp_emit(struct sp_scan *sc, struct shparse_part *p, int depth);

/* Mark part idx: the program it runs is not known before bash runs it. */
static void
sp_mark_unknown(struct sp_scan *sc, size_t idx)
{
	sc->out->v[idx].dynamic = true;
	sc->out->v[idx].unsure = true;
	sc->out->unsure = true;
}

/* Split code found in part idx one level below it. */
static void
sp_split_below(struct sp_scan *sc, size_t idx, const char *code, bool dynamic)
{
	struct sp_scan at = *sc;

	if (dynamic) {
		sc->out->v[idx].unsure = true;
		sc->out->unsure = true;
	}
	at.level = sc->out->v[idx].level;
	sp_split_code(&at, code);
}

/* Is a word of the run a name put in at run time as the program, or into a shell's code? */
static bool
sp_run_placed(const struct shparse_word *w, size_t i, size_t first, const char *placeholder)
{
	return placeholder != NULL && strstr(w[i].plain, placeholder) != NULL &&
	    (i == first || sp_in(sp_shells, sp_basename(w[first].plain)) ||
	    strcmp(w[first].plain, "eval") == 0);
}

/*
 * A part of words [start, end) and [rest, n) of part idx, one level below
 * it.  A run to the end without redirections borrows the words: a chain
 * of wrappers copies nothing.
 */
static void
sp_run_part(struct sp_scan *sc, size_t idx, const struct sp_run *r, int depth)
{
	const struct shparse_part *o = &sc->out->v[idx];
	struct shparse_part q;
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	size_t j, at;
	bool placed = false, borrow = r->rest == 0 && r->end == o->nwords;

	memset(&q, 0, sizeof(q));
	for (j = r->start; borrow && j < r->end; j++)
		if (o->words[j].flags & SHPARSE_W_REDIR)
			borrow = false;
	if (borrow) {
		q.words = o->words + r->start;
		q.nwords = r->end - r->start;
		q.borrowed = true;
	} else
		q.words = xreallocarray(NULL, o->nwords, sizeof(*q.words));
	for (j = r->start; j < o->nwords; j++) {
		if (j == r->end) {
			if (r->rest == 0)
				break;
			j = r->rest;
			if (j >= o->nwords)
				break;
		}
		if (o->words[j].flags & SHPARSE_W_REDIR)
			continue;
		if (text.len > 0)
			buf_putc(&text, ' ');
		buf_puts(&text, o->words[j].raw);
		placed = placed || sp_run_placed(o->words, j, r->start, r->placeholder);
		if (borrow)
			continue;
		q.words[q.nwords].raw = xstrdup(o->words[j].raw);
		q.words[q.nwords].plain = xstrdup(o->words[j].plain);
		q.words[q.nwords].flags = o->words[j].flags & ~SHPARSE_W_ASSIGN;
		q.nwords++;
	}
	q.text = buf_detach(&text, NULL);
	q.level = o->level + 1;
	q.redirect = o->redirect;
	at = sc->out->n;
	sp_emit(sc, &q, depth + 1);
	if (placed)
		sp_mark_unknown(sc, at);
}

/* Wrappers in a row that are followed ("sudo env nice timeout 5 cmd" is four). */
#define SP_WRAP_DEPTH_MAX	SHPARSE_DEPTH_MAX

/* Part idx runs a wrapper: the commands it runs become parts of their own. */
static void
sp_unwrap(struct sp_scan *sc, size_t idx, int depth)
{
	struct sp_run runs[SP_RUNS_MAX];
	struct buf code = BUF_INIT(BUF_NOLIMIT);
	const struct shparse_part *p = &sc->out->v[idx];
	size_t k = sp_command_word(p->words, p->nwords), j;
	int nr, r;
	bool dyn;
	char *inner;

	if (k == p->nwords || (p->words[k].flags & SHPARSE_W_EXPAND) ||
	    !sp_is_wrapper(sp_basename(p->words[k].plain)))
		return;
	nr = sp_wrap_runs(p->words, p->nwords, k, runs, SP_RUNS_MAX);
	if (nr < 0 || depth >= SP_WRAP_DEPTH_MAX) {
		sp_mark_unknown(sc, idx);
		/* Still, a shell's -c code among its words is seen by deny rules. */
		if ((inner = sp_inner_code(p->words, p->nwords, &dyn)) != NULL) {
			sp_split_below(sc, idx, inner, dyn);
			free(inner);
		}
		return;
	}
	for (r = 0; r < nr; r++) {
		if (runs[r].kind == SP_RUN_ARGV) {
			sp_run_part(sc, idx, &runs[r], depth);
			continue;
		}
		p = &sc->out->v[idx];
		buf_reset(&code);
		dyn = runs[r].dynamic;
		if (runs[r].text != NULL)
			buf_puts(&code, runs[r].text);
		for (j = runs[r].start; runs[r].text == NULL && j < runs[r].end; j++) {
			if (p->words[j].flags & SHPARSE_W_REDIR)
				continue;
			if (code.len > 0)
				buf_putc(&code, ' ');
			buf_puts(&code, p->words[j].plain);
			dyn = dyn || (p->words[j].flags & SHPARSE_W_EXPAND) != 0;
		}
		sp_split_below(sc, idx, buf_cstr(&code), dyn);
	}
	buf_release(&code);
}

/*
 * Variables whose value a program runs as a command line (git, man, less,
 * sudo's askpass...), and git settings whose value git runs so.
 */
static const char *const sp_command_vars[] = {
	"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
	"GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER",
	"MANPAGER", "SYSTEMD_PAGER", "SSH_ASKPASS", "SUDO_ASKPASS", "LESSOPEN", "LESSCLOSE",
	"BROWSER", NULL
};
static const char *const sp_git_command_keys[] = {
	"core.sshcommand", "core.editor", "core.pager", "core.fsmonitor", "core.askpass",
	"sequence.editor", "diff.external", "gpg.program", "interactive.difffilter",
	"uploadpack.packobjectshook", "credential.helper", NULL
};
static const char *const sp_git_command_suffixes[] = {
	".textconv", ".driver", ".clean", ".smudge", ".process", ".command", ".program",
	".uploadpack", ".receivepack", ".helper", NULL
};
/* Commands whose NAME=value operands are assignments. */
static const char *const sp_assigners[] = {
	"env", "export", "declare", "typeset", "readonly", "local", "sudo", NULL
};

/* Is the git setting KEY (any case) one whose value git runs as a command line? */
static bool
sp_git_runs(const char *key, size_t n)
{
	char low[64];
	size_t i, l;

	if (n >= sizeof(low))
		return true;	/* too long to know: as if it did */
	for (i = 0; i < n; i++)
		low[i] = key[i] >= 'A' && key[i] <= 'Z' ? (char)(key[i] - 'A' + 'a') : key[i];
	low[n] = '\0';
	if (sp_in(sp_git_command_keys, low) || strncmp(low, "alias.", 6) == 0 ||
	    strncmp(low, "pager.", 6) == 0)
		return true;
	for (i = 0; sp_git_command_suffixes[i] != NULL; i++) {
		l = strlen(sp_git_command_suffixes[i]);
		if (n > l && strcmp(low + n - l, sp_git_command_suffixes[i]) == 0)
			return true;
	}
	return false;
}

/* Package tools whose options name commands they run (apt -o DPkg::Pre-Invoke::=...). */
static const char *const sp_pkg_tools[] = {
	"apt", "apt-get", "aptitude", "apt-cache", "dpkg", NULL
};

/*
 * A command line in the package tool's option at w[*j]: apt's -o
 * NAME=VALUE with an Invoke or Pre-Install-Pkgs hook, dpkg's
 * --pre-invoke, --post-invoke and --status-logger.  *j moves to the word
 * holding it.  NULL for none.
 */
static const char *
sp_pkg_command(const struct shparse_word *w, size_t n, size_t *j)
{
	static const char *const dpkg_opts[] = {
		"--pre-invoke", "--post-invoke", "--status-logger", NULL
	};
	const char *u = w[*j].plain, *v = NULL, *eq;
	char low[64];
	size_t i, len;

	if (strcmp(u, "-o") == 0 || strcmp(u, "--option") == 0) {
		if (*j + 1 >= n)
			return NULL;
		v = w[++*j].plain;
	} else if (strncmp(u, "-o", 2) == 0)
		v = u + 2;
	else if (strncmp(u, "--option=", 9) == 0)
		v = u + 9;
	else {
		len = strcspn(u, "=");
		for (i = 0; dpkg_opts[i] != NULL; i++)
			if (strlen(dpkg_opts[i]) == len && strncmp(u, dpkg_opts[i], len) == 0)
				break;
		if (dpkg_opts[i] == NULL)
			return NULL;
		if (u[len] == '=')
			return u + len + 1;
		return *j + 1 < n ? w[++*j].plain : NULL;
	}
	if ((eq = strchr(v, '=')) == NULL)
		return NULL;
	len = (size_t)(eq - v) < sizeof(low) - 1 ? (size_t)(eq - v) : sizeof(low) - 1;
	for (i = 0; i < len; i++)
		low[i] = v[i] >= 'A' && v[i] <= 'Z' ? (char)(v[i] - 'A' + 'a') : v[i];
	low[len] = '\0';
	return strstr(low, "invoke") != NULL || strstr(low, "pre-install-pkgs") != NULL ? eq + 1 :
	    NULL;
}

/* The command line in "NAME=value" when NAME is a variable some program runs; NULL if not. */
static const char *
sp_var_command(const char *u, bool *unknown)
{
	size_t n = strcspn(u, "=");
	char name[32];

	if (u[n] != '=')
		return NULL;
	/* Functions and settings a program imports from its environment. */
	if (strncmp(u, "BASH_FUNC_", 10) == 0 || strncmp(u, "GIT_CONFIG_", 11) == 0) {
		*unknown = true;
		return NULL;
	}
	if (n >= sizeof(name))
		return NULL;
	memcpy(name, u, n);
	name[n] = '\0';
	return sp_in(sp_command_vars, name) ? u + n + 1 : NULL;
}

/*
 * The command lines that part idx hands to other programs in variables
 * (GIT_SSH_COMMAND=..., env EDITOR=...) and in git -c settings: split one
 * level below it.
 */
static void
sp_var_codes(struct sp_scan *sc, size_t idx)
{
	const struct shparse_part *p = &sc->out->v[idx];
	size_t k = sp_command_word(p->words, p->nwords), j, n;
	bool assigner, git, pkg, unknown = false, dyn;
	const char *u, *code;
	char *copy;

	assigner = k < p->nwords && sp_in(sp_assigners, sp_basename(p->words[k].plain));
	git = k < p->nwords && strcmp(sp_basename(p->words[k].plain), "git") == 0;
	pkg = k < p->nwords && sp_in(sp_pkg_tools, sp_basename(p->words[k].plain));
	for (j = 0; j < p->nwords; j++) {
		p = &sc->out->v[idx];
		if (p->words[j].flags & SHPARSE_W_REDIR)
			continue;
		u = p->words[j].plain;
		dyn = (p->words[j].flags & SHPARSE_W_EXPAND) != 0;
		code = NULL;
		if (j < k || (assigner && j > k))
			code = sp_var_command(u, &unknown);
		else if (pkg && j > k && (code = sp_pkg_command(p->words, p->nwords, &j)) != NULL)
			dyn = (p->words[j].flags & SHPARSE_W_EXPAND) != 0;
		else if (git && j > k && strcmp(u, "-c") == 0 && j + 1 < p->nwords) {
			u = p->words[++j].plain;
			dyn = (p->words[j].flags & SHPARSE_W_EXPAND) != 0;
			n = strcspn(u, "=");
			if (strncmp(u, "core.hooksPath", n) == 0 && n == 14)
				unknown = true;	/* hooks from elsewhere */
			else if (u[n] == '=' && sp_git_runs(u, n))
				code = u + n + 1 + (u[n + 1] == '!');
		}
		if (code == NULL)
			continue;
		copy = xstrdup(code);
		sp_split_below(sc, idx, copy, dyn);
		free(copy);
	}
	if (unknown) {
		sc->out->v[idx].dynamic = sc->out->v[idx].unsure = true;
		sc->out->unsure = true;
	}
}

/*
 * Programs that run a command given in their operands in a way not split
 * here (busybox's applets, parallel, a benchmark's command strings, a
 * terminal multiplexer's new window, ...): what they run is known only
 * when they run.
 */
static const char *const sp_opaque_runners[] = {
	"busybox", "toybox", "parallel", "sem", "hyperfine", "entr", "chronic", "catchsegv",
	"numactl", "firejail", "bwrap", "proot", "dtach", "abduco", "screen", "tmux", "expect",
	"at", "batch", "capsh", "watchexec", "nodemon", "ghci", "gdb", "lldb",
	"vim", "vi", "nvim", "ex", "view", "emacs", NULL
};

/*
 * Options whose value a program runs as a command ("tar -I CMD", "rsync -e
 * CMD", "ssh -o ProxyCommand=CMD"): the program, then its options, with
 * "=" after a long one that takes its value so.
 */
static const struct {
	const char	*prog;
	const char	*opts[8];
} sp_option_runners[] = {
	{ "tar", { "-I", "--use-compress-program", "--to-command", "--rsh-command",
	    "--info-script", "-F", "--new-volume-script", "--checkpoint-action" } },
	{ "rsync", { "-e", "--rsh", NULL } },
	{ "ssh", { "-o", NULL } }, { "scp", { "-o", "-S", NULL } }, { "sftp", { "-o", "-S", NULL } },
	{ "man", { "-P", "--pager", "-H", "--html", NULL } },
	{ "rg", { "--pre", NULL } },
	{ "sort", { "--compress-program", NULL } },
	{ "zip", { "-TT", "--unzip-command", NULL } },
	{ "less", { "+", NULL } },
	{ "fd", { "-x", "--exec", "-X", "--exec-batch", NULL } },
	{ "fdfind", { "-x", "--exec", "-X", "--exec-batch", NULL } },
};

/* Git's subcommands that run a command of their operands. */
static bool
sp_git_runs_operand(const struct shparse_word *w, size_t n, size_t k)
{
	const char *u;
	bool rebase = false, bisect = false;
	size_t j;

	for (j = k + 1; j < n; j++) {
		u = w[j].plain;
		if (strcmp(u, "submodule") == 0 || strcmp(u, "filter-branch") == 0 ||
		    strcmp(u, "filter-repo") == 0 || strncmp(u, "--config-env", 12) == 0)
			return true;
		rebase = rebase || strcmp(u, "rebase") == 0;
		bisect = bisect || strcmp(u, "bisect") == 0;
		if ((rebase && (strcmp(u, "-x") == 0 || strncmp(u, "--exec", 6) == 0 ||
		    (u[0] == '-' && u[1] != '-' && strchr(u, 'x') != NULL))) ||
		    (bisect && strcmp(u, "run") == 0))
			return true;
	}
	return false;
}

/* Does the part's program at k run a command it is given in a way not split here? */
static bool
sp_runs_opaque(const struct shparse_word *w, size_t n, size_t k)
{
	const char *prog = sp_basename(w[k].plain), *u, *o;
	size_t i, j, m, l;

	if (sp_in(sp_opaque_runners, prog))
		return true;
	if (strcmp(prog, "git") == 0)
		return sp_git_runs_operand(w, n, k);
	for (i = 0; i < sizeof(sp_option_runners) / sizeof(sp_option_runners[0]); i++) {
		if (strcmp(sp_option_runners[i].prog, prog) != 0)
			continue;
		for (j = k + 1; j < n; j++) {
			if (w[j].flags & SHPARSE_W_REDIR)
				continue;
			u = w[j].plain;
			for (m = 0; m < 8 && (o = sp_option_runners[i].opts[m]) != NULL; m++) {
				l = strlen(o);
				if (strncmp(u, o, l) != 0)
					continue;
				/* -o: ssh's options that run something */
				if (strcmp(o, "-o") == 0) {
					const char *v = u[2] != '\0' ? u + 2 : j + 1 < n ? w[j + 1].plain : "";

					if (strcasestr(v, "command") != NULL || strncasecmp(v, "match", 5) == 0)
						return true;
					continue;
				}
				if (strcmp(o, "+") == 0 ? strchr(u, '!') != NULL || strchr(u, '|') != NULL :
				    u[l] == '\0' || u[l] == '=' || (o[1] != '-' && l == 2))
					return true;
			}
		}
	}
	return false;
}

/* Add part p (taken over), with the code it runs and the commands it wraps. */
static void
sp_emit(struct sp_scan *sc, struct shparse_part *p, int depth)
{
	size_t idx, k;
	char *code = NULL;
	bool dyn = false, wrapper;
	int hidden;

	sp_judge(p);
	k = sp_command_word(p->words, p->nwords);
	/* A shell reading commands from a pipe or a redirection: they are not on the line. */
	hidden = k < p->nwords ? sp_shell_reads_stdin(p->words, p->nwords, k) : 0;
	if (hidden == 2 || (hidden == 1 && (sc->pipe || sp_reads_input(p))))
		p->dynamic = p->unsure = true;
	if (k < p->nwords && sp_runs_opaque(p->words, p->nwords, k))
		p->dynamic = p->unsure = true;
	wrapper = k < p->nwords && (p->words[k].flags & SHPARSE_W_EXPAND) == 0 &&
	    sp_is_wrapper(sp_basename(p->words[k].plain));
	if (!wrapper)
		code = sp_inner_code(p->words, p->nwords, &dyn);
	idx = sc->out->n;
	sp_add_part(sc->out, p);
	if (code != NULL) {
		sp_split_below(sc, idx, code, dyn);
		free(code);
	}
	sp_var_codes(sc, idx);
	if (wrapper)
		sp_unwrap(sc, idx, depth);
}

/* The command read so far becomes a part (or is dropped: a header, nothing). */
static void
sp_flush(struct sp_scan *sc, struct sp_cmd *cmd)
{
	struct shparse_part p;
	size_t k;

	if (cmd->kind == SP_COND)
		sp_opaque(sc);	/* [[ without ]] */
	if (cmd->nw == 0 || cmd->kind == SP_FOR || cmd->kind == SP_CASE) {
		/* A header is no part, but what bash evaluates in it still counts. */
		for (k = 0; k < cmd->nw; k++)
			if (cmd->w[k].flags & SHPARSE_W_EVAL)
				sp_mark_eval(sc);
		sp_cmd_reset(cmd);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.text = buf_detach(&cmd->text, NULL);
	p.words = cmd->w;
	p.nwords = cmd->nw;
	p.redirect = cmd->redirect;
	p.level = sc->level;
	cmd->w = NULL;
	cmd->nw = cmd->cap = 0;
	sp_emit(sc, &p, 0);
	sp_cmd_reset(cmd);
}

/* Is word r, just read, the NAME of "coproc NAME compound-command"? */
static bool
sp_coproc_name(const struct sp_scan *sc, const char *r)
{
	static const char *const compound[] = {
		"{", "if", "while", "until", "for", "case", "select", "[[", NULL
	};
	const char *p = sc->s + sc->i;
	size_t n;
	char word[8];

	if (!sp_name_start(r[0]) || r[strspn(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_")] != '\0')
		return false;
	while (sp_blank(*p))
		p++;
	if (*p == '(')
		return true;
	n = strcspn(p, " \t\n;&|<>()");
	if (n == 0 || n >= sizeof(word))
		return false;
	memcpy(word, p, n);
	word[n] = '\0';
	return sp_in(compound, word);
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
	if (start && cmd->time_p > 0 && flags == 0 &&
	    ((cmd->time_p == 1 && strcmp(r, "-p") == 0) || strcmp(r, "--") == 0)) {
		/* bash's time takes -p, then --, before the pipeline it times. */
		cmd->time_p = strcmp(r, "-p") == 0 ? 2 : 0;
		buf_reset(&cmd->text);
		return;
	}
	cmd->time_p = 0;
	if (start && cmd->coproc && flags == 0 && sp_coproc_name(sc, r)) {
		/* "coproc NAME { ...; }": NAME names the coprocess, it runs nothing. */
		cmd->coproc = false;
		buf_reset(&cmd->text);
		return;
	}
	cmd->coproc = false;
	if (start && flags == 0) {
		if (sp_in(sp_keywords, r)) {
			if (strcmp(r, "!") == 0 && cmd->piped)
				sp_opaque(sc);	/* "a | ! b" */
			cmd->piped = false;	/* "a | until ! b" is fine */
			if (strcmp(r, "esac") == 0 && *cases > 0)
				(*cases)--;
			cmd->closed = strcmp(r, "fi") == 0 || strcmp(r, "done") == 0 ||
			    strcmp(r, "esac") == 0 || strcmp(r, "}") == 0;
			cmd->time_p = strcmp(r, "time") == 0 ? 1 : 0;
			cmd->coproc = strcmp(r, "coproc") == 0;
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
		if (cmd->w[1].flags & SHPARSE_W_EVAL)
			sp_mark_eval(sc);	/* case $((x)) in */
		sp_cmd_reset(cmd);
		(*cases)++;
		*pattern = true;
		return;
	} else if (cmd->kind == SP_COND && flags == 0 && strcmp(r, "]]") == 0)
		cmd->kind = SP_PLAIN;
	/* Quotes in the value keep it an assignment: A='x' rm is rm. */
	if (cmd->kind == SP_PLAIN && sp_command_word(cmd->w, cmd->nw) == cmd->nw &&
	    sp_is_assignment(r)) {
		flags |= SHPARSE_W_ASSIGN;
		if (sp_assign_evals(r))
			flags |= SHPARSE_W_EVAL;
	}
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
		/*
		 * bash takes the delimiter as written less its quotes: "$(x)"
		 * stays "$(x)", which the plain form does not keep.  '' is
		 * an empty delimiter, ended by an empty line.
		 */
		if (sc->ndocs == SHPARSE_DOCS_MAX || t.raw.len == 0 ||
		    strchr(buf_cstr(&t.raw), '`') != NULL || strstr(buf_cstr(&t.raw), "$(") != NULL)
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
	    SHPARSE_W_REDIR | (t.flags & (SHPARSE_W_EXPAND | SHPARSE_W_EVAL)));
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

/*
 * One line of a here-document's body from sc->i, as bash reads it: with
 * an unquoted delimiter a backslash-newline joins the next line (a
 * backslash-backslash does not).  The line goes to line without its
 * newline; from[k] is where its k-th byte came from, from[line->len] where
 * the line ended.  The caller frees *from.
 */
static void
sp_doc_line(const struct sp_scan *sc, bool join, struct buf *line, size_t **from)
{
	const char *s = sc->s;
	size_t i = sc->i, cap = 64;

	buf_reset(line);
	*from = xreallocarray(NULL, cap, sizeof(**from));
	for (;;) {
		if (line->len + 2 >= cap) {
			cap *= 2;
			*from = xreallocarray(*from, cap, sizeof(**from));
		}
		if (s[i] == '\\' && join && s[i + 1] == '\\') {
			(*from)[line->len] = i;
			buf_putc(line, '\\');
			(*from)[line->len] = i + 1;
			buf_putc(line, '\\');
			i += 2;
		} else if (s[i] == '\\' && join && s[i + 1] == '\n')
			i += 2;
		else if (s[i] == '\0' || s[i] == '\n')
			break;
		else {
			(*from)[line->len] = i;
			buf_putc(line, s[i++]);
		}
	}
	(*from)[line->len] = i;
}

/*
 * The substitutions of a body with an unquoted delimiter, split on their
 * own: bash finds the body's end line by line first, so a "$(" in the
 * body never reaches past it.
 */
static void
sp_body_substs(const struct sp_scan *sc, const char *body)
{
	struct sp_scan b;
	struct sp_word junk;
	size_t d;

	memset(&b, 0, sizeof(b));
	b.s = body;
	b.out = sc->out;
	b.depth = sc->depth;
	b.level = sc->level;
	sp_word_init(&junk);
	while (body[b.i] != '\0') {
		if (body[b.i] == '\\' && body[b.i + 1] != '\0')
			b.i += 2;
		else if (body[b.i] == '$')
			sp_dollar(&b, &junk, true);
		else if (body[b.i] == '`')
			sp_backtick(&b, &junk, true);
		else if (body[b.i++] == '\n' && b.ndocs > 0)
			sp_bodies(&b);	/* "$(a <<X)" in a body: X's body follows */
	}
	sp_bodies(&b);
	for (d = 0; d < b.ndocs; d++)
		free(b.docs[d].delim);
	if (junk.flags & SHPARSE_W_EVAL)
		sp_mark_eval(&b);	/* $((x)) in a body */
	sp_word_release(&junk);
}

/*
 * At a line's end, with sc->i at the next line: skip the bodies of the
 * here-documents pending, then split the substitutions in those that have
 * them.  A body ends at a line that is its delimiter (after tabs for
 * <<-); inside a command substitution also at a line that starts with the
 * delimiter and holds a ')' later on, and bash then reads on from right
 * after the delimiter ("EOF)" closes the substitution); and at the end.
 */
void
sp_bodies(struct sp_scan *sc)
{
	struct sp_doc docs[SHPARSE_DOCS_MAX];
	struct buf line = BUF_INIT(BUF_NOLIMIT), body = BUF_INIT(BUF_NOLIMIT);
	const char *p;
	size_t d, n, ndocs = sc->ndocs, *from = NULL, lend;

	/* Taken out first: a substitution in a body may end lines of its own. */
	memcpy(docs, sc->docs, sizeof(docs));
	sc->ndocs = 0;
	for (d = 0; d < ndocs; d++) {
		n = strlen(docs[d].delim);
		buf_reset(&body);
		while (sc->s[sc->i] != '\0') {
			free(from);
			sp_doc_line(sc, docs[d].expand, &line, &from);
			lend = from[line.len];
			p = buf_cstr(&line);
			while (docs[d].strip_tabs && *p == '\t')
				p++;
			if (strcmp(p, docs[d].delim) == 0) {
				sc->i = lend + (sc->s[lend] == '\n');
				break;
			}
			if (sc->comsub > 0 && strncmp(p, docs[d].delim, n) == 0 &&
			    strchr(p + n, ')') != NULL) {
				sc->i = from[(size_t)(p - buf_cstr(&line)) + n];
				break;
			}
			buf_append(&body, line.data, line.len);
			buf_putc(&body, '\n');
			sc->i = lend + (sc->s[lend] == '\n');
		}
		if (docs[d].expand)
			sp_body_substs(sc, buf_cstr(&body));
		free(docs[d].delim);
	}
	free(from);
	buf_release(&line);
	buf_release(&body);
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
		    (s[sc->i] == '\\' && s[sc->i + 1] == '\n')) {
			sc->i += s[sc->i] == '\\' ? 2 : 1;
			if (s[sc->i - 1] == '\n' && s[sc->i - 2] != '\\')
				sp_bodies(sc);
		}
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
		if (w.flags & SHPARSE_W_EVAL)
			sp_mark_eval(sc);
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
	bool unclear = false, reads;
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
	reads = sp_arith_reads(sc->s + sc->i, end - sc->i);
	sp_arith(sc, &w, end);
	w.flags = reads ? SHPARSE_W_EVAL : 0;
	if (cmd->kind == SP_FOR) {
		sp_word_release(&w);	/* for ((...)): a header */
		if (reads)
			sp_mark_eval(sc);
	}
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
void
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
			sp_bodies(sc);
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
			if (next != '|')
				sc->pipe = true;
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
	if (out->pending) {
		/* Evaluated with no part to carry it ("case $((x)) in esac"). */
		out->pending = false;
		out->opaque = true;
	}
}

void
shparse_parts_release(struct shparse_parts *out)
{
	size_t i;

	for (i = 0; i < out->n; i++) {
		free(out->v[i].text);
		if (!out->v[i].borrowed)
			sp_words_free(out->v[i].words, out->v[i].nwords);
	}
	free(out->v);
	memset(out, 0, sizeof(*out));
}

