/* Command rules against the parts the splitter found: see shparse.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shparse.h"
#include "shparse_int.h"
#include "toolnames.h"
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
	    !sp_is_wrapper(sp_basename(p->words[k].plain)))
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
 * line that runs any command, and how.  Wrappers (sudo, env, xargs, find
 * -exec, timeout, ...) and eval are not among them: what they run is a
 * part of its own, which their rule does not cover.
 */
static const struct sp_runner {
	const char	*prog;
	const char	*probe;
	const char	*how;
} sp_runners[] = {
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
};

bool
shparse_rule_runs_anything(const char *rule, struct buf *why)
{
	const char *open, *close;
	struct buf probe = BUF_INIT(BUF_NOLIMIT);
	char *raw, *pat, *alt = NULL, *first;
	size_t n, k, pos = 0;
	bool hit = false, bash;

	while (sp_blank(*rule))
		rule++;
	open = strchr(rule, '(');
	close = strrchr(rule, ')');
	if (open == NULL || close == NULL || close < open)
		return false;
	n = (size_t)(open - rule);
	while (n > 0 && sp_blank(rule[n - 1]))
		n--;
	raw = xstrndup(rule, n);
	bash = strcmp(toolname_tandem(raw), "run_bash") == 0;
	free(raw);
	if (!bash)
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


/*
 * Wrappers: programs whose arguments are a command.  Each is read with its
 * own option grammar (getopt's, as the program has it on Debian) so that
 * the command it runs is found exactly; what cannot be read so (an option
 * the table does not know, an expansion among the options) leaves the
 * command unknown.
 *
 * shorts: the option letters, ':' after one that takes a value.  longs:
 * blank-separated "name" (a flag), "name=" (takes a value), and either
 * followed by a letter ("command=c") that it stands for.  code: letters
 * whose value is a command line for a shell.  stop: letters after which
 * no command follows (an existing process is acted on).  argv: letters
 * after which the operands are the command (watch -x, runuser -u).  join:
 * letters after which the operands joined are a command line (sudo -s).
 */
enum {
	SP_WRAP_ENV	= 0x01,	/* NAME=value words before the command */
	SP_WRAP_NICE	= 0x02,	/* -N: a number */
	SP_WRAP_SU	= 0x04,	/* [user [shell arguments, -c code]] */
	SP_WRAP_CODEONLY = 0x08, /* runs only what an option gives (script) */
	SP_WRAP_JOIN	= 0x10,	/* the operands joined are a command line (watch) */
	SP_WRAP_LATE	= 0x20,	/* options may follow the operands (setarch) */
	SP_WRAP_FLOCK	= 0x40,	/* FILE -c code, or FILE command */
	SP_WRAP_ANYOPT	= 0x80,	/* every "-..." before the command is a flag (valgrind) */
	SP_WRAP_CTX	= 0x100	/* one operand unless options come first (runcon) */
};

static const struct sp_wrap {
	const char	*name;
	const char	*shorts;
	const char	*longs;
	const char	*code, *stop, *argv, *join;
	unsigned	 npos;
	unsigned	 how;
} sp_wrap_table[] = {
	/* coreutils */
	{ "env", "i0u:C:S:v", "ignore-environment:i null:0 unset=u chdir=C split-string=S "
	    "block-signal default-signal ignore-signal list-signal-handling debug:v help version",
	    "S", "", "", "", 0, SP_WRAP_ENV },
	{ "nice", "n:", "adjustment=n help version", "", "", "", "", 0, SP_WRAP_NICE },
	{ "nohup", "", "help version", "", "", "", "", 0, 0 },
	{ "stdbuf", "i:o:e:", "input=i output=o error=e help version", "", "", "", "", 0, 0 },
	{ "timeout", "k:s:v", "kill-after=k signal=s verbose:v foreground preserve-status help version",
	    "", "", "", "", 1, 0 },
	{ "chroot", "", "groups= userspec= skip-chdir help version", "", "", "", "", 1, 0 },
	{ "runcon", "ct:u:r:l:", "compute:c type=t user=u role=r range=l help version",
	    "", "", "", "", 1, SP_WRAP_CTX },
	/* util-linux */
	{ "setsid", "cfwhV", "ctty:c fork:f wait:w help:h version:V", "", "", "", "", 0, 0 },
	{ "flock", "sxunw:E:oc:FhV", "shared:s exclusive:x unlock:u nonblock:n timeout=w "
	    "conflict-exit-code=E close:o command=c no-fork:F verbose help:h version:V",
	    "c", "", "", "", 1, SP_WRAP_FLOCK },
	{ "ionice", "c:n:pPtu:hV", "class=c classdata=n pid:p pgid:P ignore:t uid=u help:h version:V",
	    "", "pPu", "", "", 0, 0 },
	{ "chrt", "bdfiorRT:P:D:ampvhV", "batch:b deadline:d fifo:f idle:i other:o rr:r "
	    "reset-on-fork:R sched-runtime=T sched-period=P sched-deadline=D all-tasks:a max:m "
	    "pid:p verbose:v help:h version:V", "", "mp", "", "", 1, 0 },
	{ "taskset", "apchV", "all-tasks:a pid:p cpu-list:c help:h version:V", "", "p", "", "", 1, 0 },
	{ "nsenter", "at:muinpCUTS:G:rwW:FZhV", "all:a target=t mount:m uts:u ipc:i net:n pid:p "
	    "cgroup:C user:U time:T setuid=S setgid=G preserve-credentials root:r wd:w wdns=W "
	    "no-fork:F follow-context:Z help:h version:V", "", "", "", "", 0, 0 },
	{ "unshare", "muinpUCTfrcR:w:S:G:hV", "mount:m uts:u ipc:i net:n pid:p user:U cgroup:C "
	    "time:T fork:f map-user= map-group= map-root-user:r map-current-user:c map-auto "
	    "map-users= map-groups= kill-child mount-proc propagation= setgroups= keep-caps "
	    "root=R wd=w setuid=S setgid=G monotonic= boottime= help:h version:V",
	    "", "", "", "", 0, 0 },
	{ "setpriv", "dhV", "dump:d nnp no-new-privs ambient-caps= inh-caps= bounding-set= ruid= "
	    "euid= rgid= egid= reuid= regid= clear-groups keep-groups init-groups groups= "
	    "securebits= pdeathsig= selinux-label= apparmor-profile= landlock-access= "
	    "landlock-rule= reset-env help:h version:V", "", "", "", "", 0, 0 },
	{ "prlimit", "p:o:cdefilmnqrstuvxyhV", "pid=p output=o noheadings raw verbose core:c "
	    "data:d nice:e fsize:f sigpending:i memlock:l rss:m nofile:n msgqueue:q rtprio:r "
	    "stack:s cpu:t nproc:u as:v locks:x rttime:y help:h version:V", "", "p", "", "", 0, 0 },
	{ "setarch", "hVv3BFILRSTXZ", "help:h version:V verbose:v 3gb:3 4gb addr-no-randomize:R "
	    "fdpic-funcptrs:F mmap-page-zero:Z addr-compat-layout:L read-implies-exec:X "
	    "32bit:B short-inode:I whole-seconds:S sticky-timeouts:T uname-2.6 list",
	    "", "", "", "", 1, SP_WRAP_LATE },
	{ "uclampset", "m:M:p:aRsvhV", "pid=p all-tasks:a reset-on-fork:R system:s verbose:v "
	    "max-runtime help:h version:V", "", "ps", "", "", 0, 0 },
	{ "choom", "n:p:hV", "adjust=n pid=p help:h version:V", "", "p", "", "", 0, 0 },
	{ "su", "mpw:g:G:lc:fs:PhV", "preserve-environment:m whitelist-environment=w group=g "
	    "supp-group=G login:l command=c session-command=c fast:f shell=s pty:P help:h "
	    "version:V", "c", "", "", "", 0, SP_WRAP_SU },
	{ "runuser", "u:mpw:g:G:lc:fs:PhV", "user=u preserve-environment:m "
	    "whitelist-environment=w group=g supp-group=G login:l command=c session-command=c "
	    "fast:f shell=s pty:P help:h version:V", "c", "", "u", "", 0, SP_WRAP_SU },
	/* bsdutils */
	{ "script", "I:O:B:T:tm:ac:efE:o:qhV", "log-in=I log-out=O log-io=B log-timing=T "
	    "timing:t logging-format=m append:a command=c return:e flush:f force echo=E "
	    "output-limit=o quiet:q help:h version:V", "c", "", "", "",
	    0, SP_WRAP_CODEONLY | SP_WRAP_LATE },
	/* procps */
	{ "watch", "bcCdegq:n:ptwxhv", "beep:b color:c no-color:C differences:d errexit:e "
	    "chgexit:g equexit=q interval=n precise:p no-title:t no-wrap:w exec:x help:h "
	    "version:v", "", "", "x", "", 0, SP_WRAP_JOIN },
	/* findutils */
	{ "xargs", "0a:d:E:eI:iL:ln:opP:rs:txv", "null:0 arg-file=a delimiter=d eof:e replace:i "
	    "max-lines=L max-args=n open-tty:o interactive:p max-procs=P no-run-if-empty:r "
	    "max-chars=s show-limits verbose:t exit:x process-slot-var= help version",
	    "", "", "", "", 0, 0 },
	/* login */
	{ "sg", "", "", "", "", "", "", 1, SP_WRAP_JOIN },
	/* GNU time, strace, ltrace, valgrind, fakeroot, expect's unbuffer */
	{ "time", "f:o:apqvV", "format=f output=o append:a portability:p quiet:q verbose:v "
	    "help version:V", "", "", "", "", 0, 0 },
	{ "strace", "a:b:cCdDfFhikne:E:I:o:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ", "output=o attach=p "
	    "string-limit=s user=u env=E trace=e signal= trace-path=P summary-sort-by=S "
	    "columns=a summary-only:c summary:C follow-forks:f output-separately "
	    "help:h version:V", "", "", "", "", 0, 0 },
	{ "ltrace", "a:A:bcCD:e:fF:hiLl:n:o:p:rs:StTu:Vw:x:", "align=a demangle:C debug=D "
	    "config=F help:h indent=n library=l output=o version:V where=w", "", "", "", "", 0, 0 },
	{ "valgrind", "", "", "", "", "", "", 0, SP_WRAP_ANYOPT },
	{ "fakeroot", "l:f:s:i:b:uhv", "lib=l faked=f unknown-is-real:u help:h version:v",
	    "", "", "", "", 0, 0 },
	{ "unbuffer", "p", "", "", "", "", "", 0, 0 },
	/* sudo, doas, pkexec */
	{ "sudo", "AbC:D:Eeg:Hh:iKklnPp:R:r:SsT:t:U:u:Vv", "askpass:A background:b close-from=C "
	    "chdir=D preserve-env:E edit:e group=g set-home:H host=h login:i remove-timestamp:K "
	    "reset-timestamp:k list:l non-interactive:n preserve-groups:P prompt=p chroot=R "
	    "role=r stdin:S shell:s command-timeout=T type=t other-user=U user=u version:V "
	    "validate:v help", "", "eKkVv", "", "is", 0, SP_WRAP_ENV },
	{ "doas", "a:C:Lnsu:", "", "", "CLs", "", "", 0, 0 },
	{ "pkexec", "", "user= disable-internal-agent keep-cwd help version", "", "", "", "", 0, 0 },
	/* libc-bin's dynamic loader, systemd, dbus */
	{ "ld.so", "", "list verify inhibit-cache library-path= glibc-hwcaps-prepend= "
	    "glibc-hwcaps-mask= inhibit-rpath= audit= preload= argv0= list-tunables "
	    "list-diagnostics help version", "", "", "", "", 0, 0 },
	{ "systemd-run", "hH:M:u:p:rdE:tPqGS", "help:h version no-ask-password user system "
	    "host=H machine=M scope unit=u property=p description= slice= slice-inherit "
	    "no-block remain-after-exit:r wait send-sighup service-type= uid= gid= nice= "
	    "working-directory= same-dir:d setenv=E pty:t pipe:P quiet:q collect:G shell:S "
	    "path-property= socket-property= on-active= on-boot= on-startup= "
	    "on-unit-active= on-unit-inactive= on-calendar= on-timezone-change "
	    "on-clock-change timer-property=", "", "S", "", "", 0, 0 },
	{ "dbus-run-session", "", "config-file= dbus-daemon= help version", "", "", "", "",
	    0, 0 },
	/* bash's own */
	{ "command", "pvV", "", "", "vV", "", "", 0, 0 },
	{ "builtin", "", "", "", "", "", "", 0, 0 },
	{ "exec", "cla:", "", "", "", "", "", 0, 0 },
};

/* The dynamic loader's names: it runs the program it is given. */
static const char *const sp_loader_names[] = {
	"ld-linux-x86-64.so.2", "ld-linux.so.2", "ld-linux-aarch64.so.1", "ld-linux-armhf.so.3",
	"ld64.so.2", "ld64.so.1", NULL
};

/* setarch's other names: no architecture operand. */
static const char *const sp_setarch_names[] = {
	"linux32", "linux64", "i386", "x86_64", "uname26", NULL
};

/* find's actions that run a command, up to ';' or '+'. */
static const char *const sp_find_exec[] = { "-exec", "-execdir", "-ok", "-okdir", NULL };

static const struct sp_wrap sp_wrap_setarch_alias = {
	"setarch", "hVv3BFILRSTXZ", "help:h version:V verbose:v", "", "", "", "", 0, 0
};

static const struct sp_wrap *
sp_wrap_find(const char *name)
{
	size_t k;

	if (sp_in(sp_setarch_names, name))
		return &sp_wrap_setarch_alias;
	if (sp_in(sp_loader_names, name))
		name = "ld.so";
	for (k = 0; k < sizeof(sp_wrap_table) / sizeof(sp_wrap_table[0]); k++)
		if (strcmp(sp_wrap_table[k].name, name) == 0)
			return &sp_wrap_table[k];
	return NULL;
}

bool
sp_is_wrapper(const char *name)
{
	return sp_wrap_find(name) != NULL || strcmp(name, "find") == 0 ||
	    strcmp(name, "start-stop-daemon") == 0;
}

/*
 * The long option "--name[=value]" at u (after the dashes) in longs: *letter
 * gets the letter it stands for (or '-'), *value whether it takes a value.
 * A unique prefix names an option, as getopt_long lets it.  false when
 * unknown or ambiguous.
 */
static bool
sp_long_opt(const char *longs, const char *u, char *letter, bool *value)
{
	size_t n = strcspn(u, "="), len;
	const char *t = longs;
	int hits = 0;

	while (*t != '\0') {
		while (*t == ' ')
			t++;
		len = strcspn(t, " =:");
		if (len >= n && strncmp(t, u, n) == 0 && len > 0) {
			bool exact = len == n;

			if (exact)
				hits = 0;
			*value = t[len] == '=';
			*letter = (t[len] == '=' || t[len] == ':') && t[len + 1] != ' ' &&
			    t[len + 1] != '\0' ? t[len + 1] : '-';
			hits++;
			if (exact)
				return true;
		}
		t += strcspn(t, " ");
	}
	return hits == 1;
}

/* May the word be a value or operand of a wrapper?  Not an expansion bash may split. */
static bool
sp_wrap_fixed(const struct shparse_word *w)
{
	return (w->flags & SHPARSE_W_EXPAND) == 0 || (w->flags & SHPARSE_W_QUOTED) != 0;
}

/* Append a run to runs; false when full. */
static bool
sp_run_add(struct sp_run *runs, size_t max, size_t *nr, const struct sp_run *r)
{
	if (*nr == max)
		return false;
	runs[(*nr)++] = *r;
	return true;
}

/* The next word from i that is not a redirection, or n. */
static size_t
sp_next_word(const struct shparse_word *w, size_t n, size_t i)
{
	while (i < n && (w[i].flags & SHPARSE_W_REDIR))
		i++;
	return i;
}

/* find's -exec and its kin: each a command up to its ';' or '+'. */
static int
sp_find_runs(const struct shparse_word *w, size_t n, size_t k, struct sp_run *runs, size_t max)
{
	struct sp_run r;
	size_t i, j, nr = 0;

	for (i = k + 1; i < n; i++) {
		if ((w[i].flags & SHPARSE_W_REDIR) || !sp_in(sp_find_exec, w[i].plain))
			continue;
		for (j = i + 1; j < n; j++)
			if ((w[j].flags & SHPARSE_W_REDIR) == 0 && (strcmp(w[j].plain, ";") == 0 ||
			    (strcmp(w[j].plain, "+") == 0 && strcmp(w[j - 1].plain, "{}") == 0)))
				break;
		if (j == n || j == i + 1)
			return -1;
		memset(&r, 0, sizeof(r));
		r.kind = SP_RUN_ARGV;
		r.start = i + 1;
		r.end = j;
		r.placeholder = "{}";
		if (!sp_run_add(runs, max, &nr, &r))
			return -1;
		i = j;
	}
	return (int)nr;
}

/* start-stop-daemon --start: the program of --startas or --exec, its arguments after "--". */
static int
sp_ssd_runs(const struct shparse_word *w, size_t n, size_t k, struct sp_run *runs)
{
	static const char *const valued[] = {
		"-p", "--pidfile", "-n", "--name", "-u", "--user", "-c", "--chuid", "-g",
		"--group", "-r", "--chroot", "-d", "--chdir", "-N", "--nicelevel", "-P",
		"--procsched", "-I", "--iosched", "-k", "--umask", "-s", "--signal", "-R",
		"--retry", "-O", "--output", "--notify-timeout", "-x", "--exec", "-a",
		"--startas", "--ppid", NULL
	};
	size_t i, prog = n;
	bool start = false;
	const char *u;

	for (i = k + 1; i < n; i++) {
		if (w[i].flags & SHPARSE_W_REDIR)
			continue;
		u = w[i].plain;
		if (strcmp(u, "--") == 0)
			break;
		if (strcmp(u, "-S") == 0 || strcmp(u, "--start") == 0)
			start = true;
		if (strncmp(u, "--exec=", 7) == 0 || strncmp(u, "--startas=", 10) == 0)
			return -1;	/* a program and no word of its own: read no further */
		if (!sp_in(valued, u))
			continue;
		if ((i = sp_next_word(w, n, i + 1)) == n || !sp_wrap_fixed(&w[i]))
			return -1;
		/* --startas names what runs; --exec only which process is it. */
		if (strcmp(u, "-a") == 0 || strcmp(u, "--startas") == 0 ||
		    ((strcmp(u, "-x") == 0 || strcmp(u, "--exec") == 0) && prog == n))
			prog = i;
	}
	if (!start || prog == n)
		return 0;
	/* The program and its arguments: a run of its own built from two places. */
	memset(&runs[0], 0, sizeof(runs[0]));
	runs[0].kind = SP_RUN_ARGV;
	runs[0].start = prog;
	runs[0].end = prog + 1;
	runs[0].rest = i < n ? i + 1 : n;
	return 1;
}

/* What the options read so far say. */
struct sp_wrap_state {
	bool		 stop, argv, join;
	const char	*code;		/* the value of a code option */
	bool		 code_dynamic;
	const char	*placeholder;	/* xargs -I R: R */
};

/* Option c (its letter) with its value (NULL for a flag) as the wrapper reads it. */
static void
sp_wrap_apply(const struct sp_wrap *wr, char c, const char *value, const struct shparse_word *vw,
    struct sp_wrap_state *st)
{
	if (c == '-')
		return;
	if (strchr(wr->stop, c) != NULL)
		st->stop = true;
	if (strchr(wr->argv, c) != NULL)
		st->argv = true;
	if (strchr(wr->join, c) != NULL)
		st->join = true;
	if (value != NULL && strchr(wr->code, c) != NULL) {
		st->code = value;
		st->code_dynamic = (vw->flags & SHPARSE_W_EXPAND) != 0;
	}
	if (strcmp(wr->name, "xargs") == 0 && (c == 'I' || c == 'i'))
		st->placeholder = value != NULL && *value != '\0' ? value : "{}";
}

/*
 * One option word at w[*i] (starting with '-').  *i moves past a value in
 * the next word.  false when the grammar does not know it.
 */
static bool
sp_wrap_option(const struct sp_wrap *wr, const struct shparse_word *w, size_t n, size_t *i,
    struct sp_wrap_state *st)
{
	const struct shparse_word *at = &w[*i];
	const char *u = at->plain, *p, *spec;
	bool value;
	char c;

	if (u[1] == '-') {
		if (!sp_long_opt(wr->longs, u + 2, &c, &value))
			return false;
		if (!value || strchr(u, '=') != NULL) {
			sp_wrap_apply(wr, c, strchr(u, '=') != NULL ? strchr(u, '=') + 1 : NULL, at, st);
			return true;
		}
		if ((*i = sp_next_word(w, n, *i + 1)) == n || !sp_wrap_fixed(&w[*i]))
			return false;
		sp_wrap_apply(wr, c, w[*i].plain, &w[*i], st);
		return true;
	}
	if ((wr->how & SP_WRAP_NICE) && u[1] >= '0' && u[1] <= '9')
		return u[1 + strspn(u + 1, "0123456789")] == '\0';	/* nice -10 */
	for (p = u + 1; *p != '\0'; p++) {
		if (*p == ':' || (spec = strchr(wr->shorts, *p)) == NULL)
			return false;
		if (spec[1] != ':') {
			sp_wrap_apply(wr, *p, NULL, at, st);
			continue;
		}
		if (p[1] != '\0') {
			sp_wrap_apply(wr, *p, p + 1, at, st);
			return true;
		}
		if ((*i = sp_next_word(w, n, *i + 1)) == n || !sp_wrap_fixed(&w[*i]))
			return false;
		sp_wrap_apply(wr, *p, w[*i].plain, &w[*i], st);
		return true;
	}
	return true;
}

/* The run of a wrapper whose command is words [i, n), or a code value. */
static int
sp_wrap_result(const struct sp_wrap *wr, const struct sp_wrap_state *st, size_t i, size_t n,
    struct sp_run *runs, size_t max)
{
	struct sp_run r;

	memset(&r, 0, sizeof(r));
	if (st->stop)
		return 0;
	if (st->code != NULL) {
		r.kind = SP_RUN_CODE;
		r.text = st->code;
		r.dynamic = st->code_dynamic;
	} else if (i >= n || (wr->how & SP_WRAP_CODEONLY) || ((wr->how & SP_WRAP_SU) && !st->argv))
		return 0;
	else {
		r.start = i;
		r.end = n;
		r.kind = ((wr->how & SP_WRAP_JOIN) && !st->argv) || st->join ? SP_RUN_CODE :
		    SP_RUN_ARGV;
		r.placeholder = st->placeholder;
	}
	if (max == 0)
		return -1;
	runs[0] = r;
	return 1;
}

/*
 * The commands that the wrapper named by word k runs: at most max runs,
 * their count, or -1 when they cannot be found exactly.
 */
int
sp_wrap_runs(const struct shparse_word *w, size_t n, size_t k, struct sp_run *runs, size_t max)
{
	const char *name = sp_basename(w[k].plain);
	const struct sp_wrap *wr = sp_wrap_find(name);
	struct sp_wrap_state st;
	size_t i, j, pos = 0, npos;
	bool opts = true, su_user = false;

	if (strcmp(name, "find") == 0)
		return sp_find_runs(w, n, k, runs, max);
	if (strcmp(name, "start-stop-daemon") == 0)
		return max > 0 ? sp_ssd_runs(w, n, k, runs) : -1;
	if (wr == NULL)
		return 0;
	memset(&st, 0, sizeof(st));
	npos = wr->npos;
	for (i = sp_next_word(w, n, k + 1); i < n; i = sp_next_word(w, n, i + 1)) {
		const char *u = w[i].plain;

		if (opts && u[0] == '-' && u[1] != '\0' && (pos == 0 || (wr->how & SP_WRAP_LATE))) {
			if (!sp_wrap_fixed(&w[i]))
				return -1;
			if (strcmp(u, "--") == 0) {
				opts = false;
				continue;
			}
			if ((wr->how & SP_WRAP_CTX) && pos == 0)
				npos = 0;	/* runcon -t T cmd: no context operand */
			if ((wr->how & SP_WRAP_ANYOPT) == 0 && !sp_wrap_option(wr, w, n, &i, &st))
				return -1;
			continue;
		}
		if ((wr->how & (SP_WRAP_SU | SP_WRAP_ENV)) && strcmp(u, "-") == 0 && !su_user &&
		    opts)
			continue;	/* su - user, env - cmd */
		if ((wr->how & SP_WRAP_ENV) && strchr(u, '=') != NULL) {
			if (!sp_wrap_fixed(&w[i]))
				return -1;
			continue;	/* env NAME=value */
		}
		if ((wr->how & SP_WRAP_SU) && !st.argv) {
			/* su [user [args]]: the args go to the shell, whose -c takes code. */
			if (su_user && strcmp(u, "-c") == 0 &&
			    (j = sp_next_word(w, n, i + 1)) < n) {
				st.code = w[j].plain;
				st.code_dynamic = (w[j].flags & SHPARSE_W_EXPAND) != 0;
				i = j;
			}
			su_user = true;
			opts = false;
			continue;
		}
		if (wr->how & SP_WRAP_CODEONLY)
			continue;	/* script's file */
		if (pos == npos && npos > 0 && strcmp(wr->name, "sg") == 0 && strcmp(u, "-c") == 0)
			continue;	/* sg group -c command */
		if (pos < npos) {
			if (!sp_wrap_fixed(&w[i]))
				return -1;
			pos++;
			opts = opts && (wr->how & SP_WRAP_LATE) != 0;
			j = sp_next_word(w, n, i + 1);
			if ((wr->how & SP_WRAP_FLOCK) && j < n && (strcmp(w[j].plain, "-c") == 0 ||
			    strcmp(w[j].plain, "--command") == 0)) {
				if ((j = sp_next_word(w, n, j + 1)) == n)
					return -1;
				st.code = w[j].plain;
				st.code_dynamic = (w[j].flags & SHPARSE_W_EXPAND) != 0;
			}
			continue;
		}
		break;
	}
	return sp_wrap_result(wr, &st, i, n, runs, max);
}

/*
 * Tree readers: programs that read everything below a folder they are
 * given, or below the current folder when they are given none.  Their
 * options are read with the wrappers' grammar (shorts and longs as above);
 * letters the table does not know are taken as flags.  rec: the letters
 * that make the program recursive (empty: it always is); recval: letters
 * whose value "recurse" does (grep -d recurse).  pat: letters that give the
 * pattern, so that the first operand is not one; nopat: letters after
 * which no pattern comes (rg --files).  dest: letters whose value is where
 * it writes, so that the last operand is read too (cp -t DIR).  dot:
 * letters after which the operands are patterns matched below the current
 * folder (zip -R).
 */
enum {
	SP_TREE_PATTERN	= 0x01,	/* the first operand is a pattern */
	SP_TREE_DOT	= 0x02,	/* no folder operand: the current folder */
	SP_TREE_DEST	= 0x04,	/* the last operand is where it writes */
	SP_TREE_ARCHIVE	= 0x08,	/* the first operand is the archive made (zip) */
	SP_TREE_KEY	= 0x10,	/* tar's old-style first word: letters, values after */
	SP_TREE_REMOTE	= 0x20,	/* host:path operands are another machine's */
	SP_TREE_REV	= 0x40,	/* operands before "--" may be revisions (git grep) */
	SP_TREE_EXPR	= 0x80,	/* the operands end where the expression starts (find) */
	SP_TREE_GLOB	= 0x100	/* it matches wildcards in the operands itself */
};

#define SP_GREP_SHORTS	"A:B:C:D:d:e:f:m:"
#define SP_GREP_LONGS	"recursive:r dereference-recursive:R directories=d devices=D " \
	"regexp=e file=f max-count=m after-context=A before-context=B context=C include= " \
	"exclude= exclude-from= exclude-dir= label= binary-files= group-separator= color colour"

static const struct sp_tree {
	const char	*name, *shorts, *longs;
	const char	*rec, *recval, *pat, *nopat, *dest, *dot;
	unsigned	 how;
} sp_tree_table[] = {
	{ "grep", SP_GREP_SHORTS, SP_GREP_LONGS, "rR", "d", "ef", "", "", "",
	    SP_TREE_PATTERN | SP_TREE_DOT },
	{ "egrep", SP_GREP_SHORTS, SP_GREP_LONGS, "rR", "d", "ef", "", "", "",
	    SP_TREE_PATTERN | SP_TREE_DOT },
	{ "fgrep", SP_GREP_SHORTS, SP_GREP_LONGS, "rR", "d", "ef", "", "", "",
	    SP_TREE_PATTERN | SP_TREE_DOT },
	{ "rgrep", SP_GREP_SHORTS, SP_GREP_LONGS, "", "", "ef", "", "", "",
	    SP_TREE_PATTERN | SP_TREE_DOT },
	{ "rg", "A:B:C:d:E:e:f:g:j:M:m:r:T:t:", "regexp=e file=f glob=g iglob= type=t "
	    "type-not=T max-count=m max-depth=d maxdepth=d encoding=E replace=r threads=j "
	    "max-columns=M context=C after-context=A before-context=B type-add= type-clear= "
	    "sort= sortr= colors= color= path-separator= engine= pre= pre-glob= ignore-file= "
	    "max-filesize= context-separator= field-context-separator= field-match-separator= "
	    "dfa-size-limit= regex-size-limit= hostname-bin= hyperlink-format= generate= "
	    "files:1 type-list:1", "", "", "ef", "1", "", "", SP_TREE_PATTERN | SP_TREE_DOT },
	{ "ag", "A:B:C:G:g:m:p:W:", "after=A before=B context=C file-search-regex=G "
	    "max-count=m path-to-ignore=p width=W depth= ignore= ignore-dir= pager= workers= "
	    "color-line-number= color-match= color-path= list-file-types:1", "", "", "", "g1",
	    "", "", SP_TREE_PATTERN | SP_TREE_DOT },
	{ "ack", "A:B:C:g:m:", "after-context=A before-context=B context=C max-count=m "
	    "match=2 type= ignore-dir= ignore-directory= noignore-dir= ignore-file= output= "
	    "pager= color-filename= color-match= color-lineno= files-from=", "", "", "2", "fg",
	    "", "", SP_TREE_PATTERN | SP_TREE_DOT },
	{ "git grep", "A:B:C:e:f:m:", "regexp=e file=f max-count=m context=C after-context=A "
	    "before-context=B threads= max-depth= color", "", "", "ef", "", "", "",
	    SP_TREE_PATTERN | SP_TREE_DOT | SP_TREE_REV | SP_TREE_GLOB },
	{ "find", "", "", "", "", "", "", "", "", SP_TREE_DOT | SP_TREE_EXPR },
	{ "ls", "I:T:w:", "recursive:R ignore=I hide= tabsize=T width=w block-size= format= "
	    "quoting-style= sort= time= time-style= indicator-style= color", "R", "", "", "",
	    "", "", SP_TREE_DOT },
	{ "tree", "L:P:I:o:H:T:", "charset= filelimit= timefmt= sort=", "", "", "", "", "", "",
	    SP_TREE_DOT },
	{ "tar", "b:C:f:F:g:H:I:K:L:N:T:V:X:", "create:c append:r update:u file=f directory=C "
	    "files-from=T exclude-from=X exclude= transform= xform= to-command= owner= group= "
	    "mode= mtime= newer=N after-date=N newer-mtime= format=H label=V "
	    "use-compress-program=I checkpoint-action= index-file= info-script=F "
	    "new-volume-script=F rmt-command= rsh-command= volno-file= tape-length=L "
	    "starting-file=K suffix= backup= warning= sort= strip-components= level= "
	    "record-size= blocking-factor=b hole-detection= quoting-style= quote-chars= "
	    "no-quote-chars= occurrence= pax-option= listed-incremental=g", "cru", "", "", "",
	    "", "", SP_TREE_KEY },
	{ "zip", "b:n:t:P:O:s:Z:i:x:", "recurse-paths:r recurse-patterns:R", "rR", "", "", "",
	    "", "R", SP_TREE_ARCHIVE | SP_TREE_GLOB },
	{ "cp", "S:t:", "recursive:r archive:a target-directory=t suffix=S", "rRa", "", "", "",
	    "t", "", SP_TREE_DEST },
	{ "rsync", "e:f:T:B:M:", "recursive:r archive:a rsh=e filter=f exclude= include= "
	    "exclude-from= include-from= files-from= temp-dir=T partial-dir= compare-dest= "
	    "copy-dest= link-dest= backup-dir= suffix= chmod= chown= usermap= groupmap= "
	    "timeout= contimeout= port= password-file= log-file= log-file-format= out-format= "
	    "bwlimit= max-size= min-size= block-size=B info= debug= rsync-path= iconv= "
	    "skip-compress= compress-level= compress-choice= checksum-choice= max-delete= "
	    "modify-window= remote-option=M sockopts= address= outbuf= stop-after= stop-at= "
	    "write-batch= read-batch= only-write-batch= protocol= checksum-seed= config= "
	    "dparam=M", "ra", "", "", "", "", "", SP_TREE_DEST | SP_TREE_REMOTE },
	{ "scp", "c:D:F:i:J:l:o:P:S:X:", "", "r", "", "", "", "", "",
	    SP_TREE_DEST | SP_TREE_REMOTE },
};

/* What a tree reader's options said. */
struct sp_tree_state {
	bool	rec, pat, nopat, dest, dot;
};

static void
sp_tree_apply(const struct sp_tree *t, char c, const char *value, struct sp_tree_state *st)
{
	if (c == '-' || c == '\0')
		return;
	st->rec = st->rec || strchr(t->rec, c) != NULL ||
	    (value != NULL && strchr(t->recval, c) != NULL && strcmp(value, "recurse") == 0);
	st->pat = st->pat || strchr(t->pat, c) != NULL;
	st->nopat = st->nopat || strchr(t->nopat, c) != NULL;
	st->dest = st->dest || strchr(t->dest, c) != NULL;
	st->dot = st->dot || strchr(t->dot, c) != NULL;
}

/*
 * One option word at w[*i] ("-..."; with key, tar's old-style letters,
 * whose values are the words after it in turn); *i moves past the values
 * it takes.  An option the table does not know is a flag.
 */
static void
sp_tree_option(const struct sp_tree *t, const struct shparse_word *w, size_t n, size_t *i,
    bool key, struct sp_tree_state *st)
{
	const char *u = w[*i].plain, *p, *spec, *eq = strchr(u, '=');
	bool value;
	size_t j;
	char c;

	if (!key && u[1] == '-') {
		if (!sp_long_opt(t->longs, u + 2, &c, &value))
			return;
		if (eq != NULL || !value)
			sp_tree_apply(t, c, eq != NULL ? eq + 1 : NULL, st);
		else if ((j = sp_next_word(w, n, *i + 1)) < n) {
			*i = j;
			sp_tree_apply(t, c, w[j].plain, st);
		}
		return;
	}
	for (p = key ? u : u + 1; *p != '\0'; p++) {
		spec = *p != ':' ? strchr(t->shorts, *p) : NULL;
		if (spec == NULL || spec[1] != ':') {
			sp_tree_apply(t, *p, NULL, st);
			continue;
		}
		if (!key && p[1] != '\0') {
			sp_tree_apply(t, *p, p + 1, st);
			return;
		}
		if ((j = sp_next_word(w, n, *i + 1)) < n) {
			*i = j;
			sp_tree_apply(t, *p, w[j].plain, st);
		}
		if (!key)
			return;
	}
}

/* The word of git's command past its own options (git -C dir grep), or n. */
static size_t
sp_git_command(const struct shparse_word *w, size_t n, size_t k)
{
	static const char *const valued[] = { "-C", "-c", "--git-dir", "--work-tree",
		"--namespace", "--config-env", NULL };
	size_t i;

	for (i = sp_next_word(w, n, k + 1); i < n; i = sp_next_word(w, n, i + 1)) {
		if (sp_in(valued, w[i].plain)) {
			if ((i = sp_next_word(w, n, i + 1)) == n)
				break;
			continue;
		}
		if (w[i].plain[0] != '-')
			return i;
	}
	return n;
}

/* find's options before its paths: -H, -L, -P, -Olevel, -D debugopts (*i moves past). */
static bool
sp_find_option(const struct shparse_word *w, size_t n, size_t *i)
{
	const char *u = w[*i].plain;

	if (strcmp(u, "-D") == 0) {
		*i = sp_next_word(w, n, *i + 1);
		return true;
	}
	return strcmp(u, "-H") == 0 || strcmp(u, "-L") == 0 || strcmp(u, "-P") == 0 ||
	    strncmp(u, "-O", 2) == 0;
}

/* host:path, or user@host:path: another machine's (a ':' before any '/'). */
static bool
sp_remote(const char *u)
{
	size_t c = strcspn(u, ":");

	return u[c] == ':' && c > 0 && memchr(u, '/', c) == NULL;
}

int
shparse_tree_reads(const struct shparse_part *p, struct shparse_tree *out, size_t max)
{
	const struct shparse_word *w = p->words;
	const struct sp_tree *t = NULL;
	struct sp_tree_state st;
	size_t ops[SHPARSE_TREES_MAX + 2];
	bool rev[SHPARSE_TREES_MAX + 2];
	size_t n = p->nwords, k, i, j, first, nops = 0, start, end, count = 0;
	const char *name, *u;
	bool opts = true, many = false;

	for (k = 0; k < n && (w[k].flags & (SHPARSE_W_REDIR | SHPARSE_W_ASSIGN)); k++)
		;
	if (k == n)
		return 0;
	name = sp_basename(w[k].plain);
	if (strcmp(name, "git") == 0) {
		if ((k = sp_git_command(w, n, k)) == n || strcmp(w[k].plain, "grep") != 0)
			return 0;
		name = "git grep";
	}
	for (j = 0; j < sizeof(sp_tree_table) / sizeof(sp_tree_table[0]) && t == NULL; j++)
		if (strcmp(sp_tree_table[j].name, name) == 0)
			t = &sp_tree_table[j];
	if (t == NULL)
		return 0;
	memset(&st, 0, sizeof(st));
	st.rec = t->rec[0] == '\0';
	first = sp_next_word(w, n, k + 1);
	for (i = first; i < n; i = sp_next_word(w, n, i + 1)) {
		u = w[i].plain;
		if (t->how & SP_TREE_EXPR) {
			if (nops == 0 && sp_find_option(w, n, &i)) {
				if (i == n)
					break;
				continue;
			}
			if (strchr("-(!),", u[0]) != NULL)
				break;
		} else if (opts && i == first && (t->how & SP_TREE_KEY) && u[0] != '-') {
			sp_tree_option(t, w, n, &i, true, &st);
			continue;
		} else if (opts && strcmp(u, "--") == 0) {
			opts = false;
			continue;
		} else if (opts && u[0] == '-' && u[1] != '\0') {
			sp_tree_option(t, w, n, &i, false, &st);
			continue;
		}
		if (nops == sizeof(ops) / sizeof(ops[0])) {
			many = true;	/* too many, but the options may still say it reads no tree */
			continue;
		}
		rev[nops] = (t->how & SP_TREE_REV) && opts;
		ops[nops++] = i;
	}
	if (!st.rec)
		return 0;
	if (many)
		return -1;
	start = 0;
	end = nops;
	if ((t->how & SP_TREE_PATTERN) && !st.pat && !st.nopat && start < end)
		start++;
	if ((t->how & SP_TREE_ARCHIVE) && start < end)
		start++;
	if ((t->how & SP_TREE_DEST) && !st.dest && end - start >= 2)
		end--;
	if (st.dot)
		start = end;	/* zip -R: patterns matched below the current folder */
	for (j = start; j < end; j++) {
		u = w[ops[j]].plain;
		if ((t->how & SP_TREE_REMOTE) && sp_remote(u))
			continue;
		if (count == max)
			return -1;
		out[count].path = u;
		out[count].flags = w[ops[j]].flags;
		out[count].own_glob = (t->how & SP_TREE_GLOB) != 0;
		out[count++].rev = rev[j];
	}
	if (count == 0 && ((t->how & SP_TREE_DOT) || st.dot)) {
		if (count == max)
			return -1;
		out[count].path = NULL;
		out[count].flags = 0;
		out[count].own_glob = false;
		out[count++].rev = false;
	}
	return (int)count;
}

/*
 * Code in strings that bash runs later.
 */

/* The operands of a builtin at word k, past its options (those in valued take a value). */
struct sp_opscan {
	const struct shparse_word	*w;
	size_t				 n, i;
	const char			*valued;
	bool				 done;
};

/* The next option letter (with *value its value) or 0 for an operand at s->i, -1 at the end. */
static int
sp_opscan_next(struct sp_opscan *s, const char **value)
{
	static const char *none = "";
	const char *u;
	int c;

	*value = NULL;
	for (;;) {
		if ((s->i = sp_next_word(s->w, s->n, s->i + 1)) >= s->n)
			return -1;
		u = s->w[s->i].plain;
		if (s->done || (u[0] != '-' && u[0] != '+') || u[1] == '\0')
			return 0;
		if (strcmp(u, "--") == 0) {
			s->done = true;
			continue;
		}
		/* One letter per call is enough here: the first, or the one taking a value. */
		for (u++; u[1] != '\0' && strchr(s->valued, *u) == NULL; u++)
			;
		c = (unsigned char)*u;
		if (strchr(s->valued, c) == NULL || *s->valued == '\0')
			return c;
		if (u[1] != '\0')
			*value = u + 1;
		else if ((s->i = sp_next_word(s->w, s->n, s->i + 1)) < s->n)
			*value = s->w[s->i].plain;
		else
			*value = none;
		return c;
	}
}

/*
 * Does a name operand, "a[sub]" or "a[sub]=v", have a subscript that
 * reads a variable, or a name only known after expansion?
 */
static bool
sp_name_evals(const char *u)
{
	const char *open = strchr(u, '[');
	size_t n, name = strcspn(u, "=[");

	if (memchr(u, '$', name) != NULL || memchr(u, '`', name) != NULL)
		return true;
	if (open == NULL || (size_t)(open - u) > name)
		return false;
	n = strcspn(open + 1, "]");
	return sp_subscript_reads(open + 1, n);
}

/* Is any option word among the builtin's words holding one of the letters? */
static bool
sp_has_option(const struct shparse_word *w, size_t n, size_t k, const char *letters,
    const char *valued)
{
	struct sp_opscan s = { w, n, k, valued, false };
	const char *v, *u;
	int c;

	while ((c = sp_opscan_next(&s, &v)) != -1) {
		if (c == 0)
			continue;
		/* Every letter of a cluster ("-ix") counts. */
		for (u = w[s.i].plain + 1; v == NULL && *u != '\0'; u++)
			if (strchr(letters, *u) != NULL)
				return true;
		if (strchr(letters, c) != NULL)
			return true;
	}
	return false;
}

/* Does an operand (or the value of an option in names) name a subscript that reads? */
static bool
sp_names_eval(const struct shparse_word *w, size_t n, size_t k, const char *valued,
    const char *names, unsigned first_operand)
{
	struct sp_opscan s = { w, n, k, valued, false };
	const char *v;
	unsigned ops = 0;
	int c;

	while ((c = sp_opscan_next(&s, &v)) != -1) {
		if (c == 0 ? ops++ >= first_operand && (sp_name_evals(w[s.i].plain) ||
		    sp_assign_evals(w[s.i].plain)) : v != NULL && strchr(names, c) != NULL &&
		    sp_name_evals(v))
			return true;
	}
	return false;
}

/* An operand of [[ ]] around an arithmetic operator: a number or $# and kin, or more? */
static bool
sp_cond_operand_reads(const char *raw)
{
	size_t n = strlen(raw), i = 3;

	/* ${#name}, ${#a[@]} and ${#a[1]} are numbers. */
	if (strncmp(raw, "${#", 3) == 0 && sp_name_start(raw[3])) {
		while (sp_name_char(raw[i]))
			i++;
		if (raw[i] == '[' && (raw[i + 1] == '@' || raw[i + 1] == '*') && raw[i + 2] == ']')
			i += 3;
		else if (raw[i] == '[' && raw[i + 1 + strspn(raw + i + 1, "0123456789")] == ']')
			i += 2 + strspn(raw + i + 1, "0123456789");
		if (strcmp(raw + i, "}") == 0)
			return false;
	}
	return sp_arith_reads(raw, n);
}

/* [[ ]] (arith: its -eq and kin evaluate their operands) or test: -v with a subscript. */
static bool
sp_cond_evals(const struct shparse_word *w, size_t n, size_t k, bool arith)
{
	static const char *const ops[] = { "-eq", "-ne", "-lt", "-le", "-gt", "-ge", NULL };
	size_t j;

	for (j = k + 1; j < n; j++) {
		if (w[j].flags & SHPARSE_W_QUOTED)
			continue;
		if (arith && sp_in(ops, w[j].plain) && ((j > k + 1 && sp_cond_operand_reads(w[j - 1].raw)) ||
		    (j + 1 < n && sp_cond_operand_reads(w[j + 1].raw))))
			return true;
		if (strcmp(w[j].plain, "-v") == 0 && j + 1 < n && sp_name_evals(w[j + 1].plain))
			return true;
	}
	return false;
}

bool
sp_runs_later(const struct shparse_word *w, size_t n, size_t k)
{
	static const char *const declares[] = {
		"declare", "typeset", "local", "export", "readonly", NULL
	};
	const char *c = w[k].plain, *v;
	struct sp_opscan s = { w, n, k, "", false };
	bool dyn;
	char *code;
	int o;

	if (strcmp(c, "trap") == 0) {
		code = sp_trap_code(w, n, k, &dyn);
		free(code);
		return code != NULL;
	}
	if (strcmp(c, "alias") == 0) {
		while ((o = sp_opscan_next(&s, &v)) != -1)
			if (o == 0 && strchr(w[s.i].plain, '=') != NULL)
				return true;
		return false;
	}
	if (strcmp(c, "shopt") == 0) {
		while ((o = sp_opscan_next(&s, &v)) != -1)
			if (o == 0 && strcmp(w[s.i].plain, "expand_aliases") == 0)
				return sp_has_option(w, n, k, "s", "");
		return false;
	}
	if (strcmp(c, "let") == 0) {
		while ((o = sp_opscan_next(&s, &v)) != -1)
			if (o == 0 && sp_arith_reads(w[s.i].raw, strlen(w[s.i].raw)))
				return true;
		return false;
	}
	if (sp_in(declares, c))
		return sp_has_option(w, n, k, "in", "") || sp_names_eval(w, n, k, "", "", 0);
	if (strcmp(c, "read") == 0)
		return sp_names_eval(w, n, k, "adinNptu", "", 0);
	if (strcmp(c, "mapfile") == 0 || strcmp(c, "readarray") == 0)
		return sp_has_option(w, n, k, "C", "dnOsuCc") || sp_names_eval(w, n, k, "dnOsuCc", "", 0);
	if (strcmp(c, "printf") == 0)
		return sp_names_eval(w, n, k, "v", "v", 1000);
	if (strcmp(c, "wait") == 0)
		return sp_names_eval(w, n, k, "p", "p", 1000);
	if (strcmp(c, "getopts") == 0)
		return sp_names_eval(w, n, k, "", "", 1);
	if (strcmp(c, "unset") == 0)
		return sp_names_eval(w, n, k, "", "", 0);
	if (strcmp(c, "test") == 0 || strcmp(c, "[") == 0 || strcmp(c, "[[") == 0)
		return sp_cond_evals(w, n, k, strcmp(c, "[[") == 0);
	if (strcmp(c, "complete") == 0 || strcmp(c, "compgen") == 0)
		return sp_has_option(w, n, k, "C", "AGWXPSFCo");
	if (strcmp(c, "enable") == 0)
		return sp_has_option(w, n, k, "f", "f");
	if (strcmp(c, "hash") == 0)
		return sp_has_option(w, n, k, "p", "p");
	if (strcmp(c, "bind") == 0)
		return sp_has_option(w, n, k, "x", "mqurfx");
	if (strcmp(c, "fc") == 0)
		return !sp_has_option(w, n, k, "l", "e");
	if (strcmp(c, "source") == 0 || strcmp(c, ".") == 0) {
		/* Code read from a substitution or a descriptor is not on the line. */
		if ((o = sp_opscan_next(&s, &v)) == 0)
			return strcmp(w[s.i].plain, "<(…)") == 0 ||
			    strcmp(w[s.i].plain, "/dev/stdin") == 0 ||
			    strncmp(w[s.i].plain, "/dev/fd/", 8) == 0 ||
			    strncmp(w[s.i].plain, "/proc/self/fd/", 14) == 0;
		return false;
	}
	if (strcmp(c, "env") == 0) {
		s.valued = "uCS";
		while ((o = sp_opscan_next(&s, &v)) != -1 && (o != 0 || strchr(w[s.i].plain, '=')))
			if (o == 0 && sp_assign_evals(w[s.i].plain))
				return true;
	}
	return false;
}
