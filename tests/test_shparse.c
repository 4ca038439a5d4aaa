/* shparse: the shell splitter, its verdicts and its pattern helpers. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rules/shparse.h"
#include "t.h"

static struct buf out = BUF_INIT(BUF_NOLIMIT);

/*
 * The parts of cmd as one line: texts joined by " | ", each marked '~'
 * when dynamic, '?' when unsure, '>' when it writes a file, and the whole
 * followed by " !" when opaque.
 */
static const char *
split(const char *cmd)
{
	struct shparse_parts p;
	size_t i;

	memset(&p, 0, sizeof(p));
	shparse_split(cmd, &p);
	buf_reset(&out);
	for (i = 0; i < p.n; i++) {
		if (i > 0)
			buf_puts(&out, " | ");
		if (p.v[i].dynamic)
			buf_putc(&out, '~');
		if (p.v[i].unsure)
			buf_putc(&out, '?');
		if (p.v[i].redirect)
			buf_putc(&out, '>');
		buf_puts(&out, p.v[i].text);
	}
	if (p.opaque)
		buf_puts(&out, " !");
	if (p.unsure != false) {
		for (i = 0; i < p.n && !p.v[i].unsure; i++)
			;
		if (i == p.n)
			buf_puts(&out, " (unsure without an unsure part)");
	}
	shparse_parts_release(&p);
	return buf_cstr(&out);
}

/* The plain words of the first part, joined by '/'. */
static const char *
plain(const char *cmd)
{
	struct shparse_parts p;
	size_t i;

	memset(&p, 0, sizeof(p));
	shparse_split(cmd, &p);
	buf_reset(&out);
	for (i = 0; p.n > 0 && i < p.v[0].nwords; i++) {
		if (i > 0)
			buf_putc(&out, '/');
		buf_puts(&out, p.v[0].words[i].plain);
	}
	shparse_parts_release(&p);
	return buf_cstr(&out);
}

static bool
denies(const char *pattern, const char *cmd)
{
	struct shparse_parts p;
	size_t i, n = strlen(pattern);
	char *alt = NULL;
	bool hit = false;

	if (n >= 3 && strcmp(pattern + n - 2, " *") == 0)
		alt = strndup(pattern, n - 2);
	memset(&p, 0, sizeof(p));
	shparse_split(cmd, &p);
	for (i = 0; i < p.n && !hit; i++)
		hit = shparse_denies(pattern, alt, &p.v[i]);
	shparse_parts_release(&p);
	free(alt);
	return hit;
}

static bool
allows(const char *pattern, const char *cmd)
{
	struct shparse_parts p;
	size_t i;
	bool ok;

	memset(&p, 0, sizeof(p));
	shparse_split(cmd, &p);
	ok = p.n > 0 && !p.opaque;
	for (i = 0; i < p.n && ok; i++)
		ok = !p.v[i].redirect && shparse_allows(pattern, NULL, &p.v[i]);
	shparse_parts_release(&p);
	return ok;
}

T_TEST(the_attacks)
{
	/* $'...' does not end at \'. */
	T_EQ_STR(split("git status $'\\''; touch PWNED"), "git status $'\\'' | touch PWNED");
	T_EQ_STR(split("echo $'\\''; rm -rf victim"), "echo $'\\'' | rm -rf victim");
	T_EQ_STR(split("echo $'a\\'b' && rm x"), "echo $'a\\'b' | rm x");
	T_EQ_STR(split("echo $'\\\\'; rm x"), "echo $'\\\\' | rm x");
	T_OK(!allows("git *", "git status $'\\''; touch PWNED"));
	T_OK(denies("rm *", "echo $'\\''; rm -rf victim"));
	/* Inside "...", $' is a dollar and a quote. */
	T_EQ_STR(split("echo \"$'\"; rm x"), "echo \"$'\" | rm x");
	/* And '...' ends at the first quote, backslash or not. */
	T_EQ_STR(split("echo 'a\\'; rm x"), "echo 'a\\' | rm x");
	T_EQ_STR(split("echo \"a\\\"; rm x\""), "echo \"a\\\"; rm x\"");
	T_EQ_STR(split("echo $\"x\"; rm y"), "echo $\"x\" | rm y");
}

T_TEST(ansi_c_escapes)
{
	T_EQ_STR(plain("$'\\x72m' -rf x"), "rm/-rf/x");
	T_EQ_STR(plain("$'\\162m'"), "rm");
	T_EQ_STR(plain("$'\\u0072m'"), "rm");
	T_EQ_STR(plain("$'a\\tb\\n'"), "a\tb\n");
	T_EQ_STR(plain("$'ab\\0cd'"), "ab");
	T_EQ_STR(plain("$'\\q'"), "\\q");
	T_EQ_STR(plain("$'\\cA'"), "\001");
	T_EQ_STR(plain("$\"rm\""), "rm");
	T_EQ_STR(plain("'r'\"m\"\\ x"), "rm x");
	T_EQ_STR(plain("\"a\\b\\$c\\\"\""), "a\\b$c\"");
	T_EQ_STR(plain("r\\\nm"), "rm");
}

T_TEST(lists)
{
	T_EQ_STR(split("a && b || c ; d | e |& f & g\nh"), "a | b | c | d | e | f | g | h");
	T_EQ_STR(split("a;;b"), "a | b !");
	T_EQ_STR(split("  a   b  "), "a b");
	T_EQ_STR(split("a # b; c\nd"), "a | d");
	T_EQ_STR(split("a#b; c"), "a#b | c");
	T_EQ_STR(split("a \\\n b"), "a b");
	T_EQ_STR(split("(a; b) && { c; }"), "a | b | c");
	T_EQ_STR(split("((a) ; b)"), "a | b");
	T_EQ_STR(split("a )"), "a !");
	T_EQ_STR(split("echo 'x"), "echo 'x !");
}

T_TEST(substitutions)
{
	T_EQ_STR(split("echo $(a; b)"), "a | b | echo $(a; b)");
	T_EQ_STR(split("echo $(a $(b))"), "b | a $(b) | echo $(a $(b))");
	T_EQ_STR(split("echo `a \\`b\\``"), "b | a `b` | echo `a \\`b\\``");
	T_EQ_STR(split("echo \"$(a)\" \"`b`\""), "a | b | echo \"$(a)\" \"`b`\"");
	T_EQ_STR(split("diff <(a) >(b)"), "a | b | diff <(a) >(b)");
	T_EQ_STR(split("echo ${x:-$(a)}"), "a | echo ${x:-$(a)}");
	T_EQ_STR(split("echo $((1 + $(a)))"), "a | ~?echo $((1 + $(a)))");
	T_EQ_STR(split("echo $((1 + 2))"), "echo $((1 + 2))");
	T_EQ_STR(split("echo $( (a) )"), "a | echo $( (a) )");
	T_EQ_STR(split("x=$(a) y"), "a | x=$(a) y");
	T_EQ_STR(split("x=(1 $(a) 3)"), "a | x=(1 $(a) 3)");
	T_EQ_STR(split("echo $(case x in a) b;; esac)"), "b | echo $(case x in a) b;; esac)");
	T_EQ_STR(split("echo $(a"), "a | echo $(a !");
}

T_TEST(here_documents)
{
	T_EQ_STR(split("cat <<'E'\n$(rm x)\nE\nls"), "cat <<'E' | ls");
	T_EQ_STR(split("cat <<E\n$(rm x)\nE\nls"), "cat <<E | rm x | ls");
	T_EQ_STR(split("cat <<\\E\n$(rm x)\nE\nls"), "cat <<\\E | ls");
	T_EQ_STR(split("cat <<-E\n\tx\n\tE\nls"), "cat <<-E | ls");
	T_EQ_STR(split("cat <<A <<\"B\"; ls\na\nA\n$(b)\nB\nc"), "cat <<A <<\"B\" | ls | c");
	T_EQ_STR(split("cat <<< 'rm x'"), "cat <<< 'rm x'");
	T_EQ_STR(split("cat <<E\nx\n"), "cat <<E");
	T_EQ_STR(split("x=$(cat <<E\nhi )\nE\n); y"), "cat <<E | x=$(cat <<E\nhi )\nE\n) | y");
}

/* Where bash ends a here-document's body, the next command starts. */
T_TEST(here_document_ends)
{
	/* An unquoted delimiter's lines are joined at a backslash-newline first. */
	T_EQ_STR(split("cat <<EOF\nbody\nE\\\nOF\nrm x\nEOF"), "cat <<EOF | rm x | EOF");
	T_EQ_STR(split("cat <<EOF\nbody\\\nEOF\nrm x\nEOF\nls"), "cat <<EOF | ls");
	T_EQ_STR(split("cat <<EOF\na\\\\\nEOF\nrm x"), "cat <<EOF | rm x");
	T_EQ_STR(split("cat <<EOF\nEOF\\\n\nrm x"), "cat <<EOF | rm x");
	/* A quoted one's are not. */
	T_EQ_STR(split("cat <<'EOF'\nE\\\nOF\nrm x\nEOF\nls"), "cat <<'EOF' | ls");
	T_EQ_STR(split("cat <<\"EOF\"\nbody\\\nEOF\nrm x"), "cat <<\"EOF\" | rm x");
	/* <<- strips the tabs of the joined line. */
	T_EQ_STR(split("cat <<-EOF\n\tE\\\nOF\nrm x"), "cat <<-EOF | rm x");
	T_EQ_STR(split("cat <<-EOF\n\tE\\\n\tOF\nrm x\nEOF\nls"), "cat <<-EOF | ls");
	/* Inside $( ) and <( ), a line starting with the delimiter and holding a ')' ends it. */
	T_EQ_STR(split("x=$(cat <<EOF\nbody\nEOF)\nrm y"),
	    "cat <<EOF | x=$(cat <<EOF\nbody\nEOF) | rm y");
	T_EQ_STR(split("x=$(cat <<EOF\nbody\nEOF rm y)\nls"),
	    "cat <<EOF | rm y | x=$(cat <<EOF\nbody\nEOF rm y) | ls");
	T_EQ_STR(split("x=$(cat <<'EOF'\nbody\nEOFrm y)\nls"),
	    "cat <<'EOF' | rm y | x=$(cat <<'EOF'\nbody\nEOFrm y) | ls");
	T_EQ_STR(split("x=$( ( cat <<-EOF\n\tEOF) ) ; rm y"),
	    "cat <<-EOF | x=$( ( cat <<-EOF\n\tEOF) ) | rm y");
	T_EQ_STR(split("cat <(cat <<EOF\nEOF)\nrm y"), "cat <<EOF | cat <(cat <<EOF\nEOF) | rm y");
	/* Outside a substitution it does not. */
	T_EQ_STR(split("( cat <<EOF\nEOF)\nrm y\nEOF\n)"), "cat <<EOF");
	/* A body's "$(" does not reach past its end. */
	T_EQ_STR(split("cat <<EOF\n$(true\nEOF\nrm x\n)\nEOF"), "cat <<EOF | true | rm x | EOF !");
	T_EQ_STR(split("cat <<EOF\n$(cat <<X\nEOF\nX\n)\nrm x\nEOF"),
	    "cat <<EOF | cat <<X | X | rm x | EOF !");
	/* The body starts at the next line's start, whatever construct that line is in. */
	T_EQ_STR(split("cat <<EOF; case x in\nrm y\nEOF\nx) ls;; esac"), "cat <<EOF | ls");
	T_EQ_STR(split("cat <<EOF; a=(1\nrm y\nEOF\n2)"), "cat <<EOF | a=(1 2)");
	T_EQ_STR(split("cat <<EOF; [[ -n x\nrm y\nEOF\n]]"), "cat <<EOF | [[ -n x ]]");
	/* An empty delimiter ends at an empty line; a substitution in one is not followed. */
	T_EQ_STR(split("cat <<''\nbody\n\nrm x"), "cat <<'' | rm x");
	T_OK(strstr(split("cat <<$(x)\nbody\n$(x)\nrm y"), " !") != NULL);
	T_OK(strstr(split("cat <<`x`\nbody\n`x`\nrm y"), " !") != NULL);
	/* A newline in a substitution does not start a body pending outside it. */
	T_EQ_STR(split("cat <<E $(true\nrm x\nE\n)\nls"),
	    "true | rm x | E | cat <<E $(true\nrm x\nE\n)");
	T_EQ_STR(split("cat <<E && (true\nrm x\nE\n)"), "cat <<E | true");
	T_EQ_STR(split("cat <<A $(cat <<B)\na\nA\nb\nB\nrm x"), "cat <<B | cat <<A $(cat <<B)");
	/* A here-document in a substitution closed on its line takes the next lines. */
	T_EQ_STR(split("echo $(cat <<EOF) t\nrm y\nEOF\nls"), "cat <<EOF | echo $(cat <<EOF) t | ls");
}

/* Programs whose arguments are a command: the command is a part of its own. */
T_TEST(wrappers)
{
	static const char *const wrapped[] = {
		"unshare -r rm x", "unshare --map-root-user --fork rm x", "nsenter -t 1 -m -- rm x",
		"setpriv --reuid 0 --init-groups rm x", "prlimit --nofile=10 rm x",
		"script -qc 'rm x' /dev/null", "script --command='rm x'", "su -c 'rm x'",
		"su - root -c 'rm x'", "su root -c 'rm x'", "runuser -u nobody -- rm x",
		"runuser nobody -c 'rm x'", "fakeroot -- rm x", "fakeroot -u rm x",
		"valgrind --tool=memcheck -q rm x", "time -p -- rm x", "time -- rm x",
		"timeout -s KILL 5 nice -n 3 rm x", "timeout --sig=KILL 5 rm x", "nice -10 rm x",
		"stdbuf -oL rm x", "env -S 'rm x'", "env -u HOME A=1 rm x", "flock /tmp/l -c 'rm x'",
		"flock -w 3 /tmp/l rm x", "chrt -r 10 rm x", "taskset -c 0 rm x",
		"ionice -c 3 rm x", "setarch x86_64 -R rm x", "linux32 rm x", "setsid -f rm x",
		"chroot / rm x", "runcon -t t rm x", "watch -n 1 'ls; rm x'", "watch -x rm x",
		"xargs -0 -n 1 rm", "find . -name x -exec rm {} \\;", "find . -execdir rm {} +",
		"start-stop-daemon --start --exec /bin/rm -- -rf x", "sg grp -c 'rm x'",
		"sudo -u root -- rm x", "sudo -s 'rm x'", "/usr/bin/time -f %e rm x",
		"strace -f -o log rm x", "ltrace -o log rm x", "uclampset -m 1 rm x",
		"choom -n 10 -- rm x", "unbuffer rm x", "pkexec --user root rm x",
		"command -p rm x", "exec -a name rm x", "doas -u root rm x",
		"/lib64/ld-linux-x86-64.so.2 --library-path /x /bin/rm x", "ld.so --preload a.so rm x",
		"systemd-run --user -p Nice=5 --wait rm x", "dbus-run-session -- rm x",
		"coproc NAME { rm x; }", "env - rm x", "sudo A=1 rm x", NULL
	};
	size_t i;

	for (i = 0; wrapped[i] != NULL; i++) {
		if (!denies("rm *", wrapped[i]))
			T_FAIL("not denied: %s", wrapped[i]);
		if (allows(wrapped[i], wrapped[i]) && !allows("rm *", wrapped[i]))
			T_FAIL("the wrapper's allow rule covers what it runs: %s", wrapped[i]);
	}
	/* The command is found exactly, with each option's value. */
	T_EQ_STR(split("timeout -s KILL 5 nice -n 3 rm x"),
	    "timeout -s KILL 5 nice -n 3 rm x | nice -n 3 rm x | rm x");
	T_EQ_STR(split("unshare -R /r -w /d rm x"), "unshare -R /r -w /d rm x | rm x");
	T_EQ_STR(split("env - A=1 rm x"), "env - A=1 rm x | rm x");
	T_EQ_STR(split("sudo -E A=1 rm x"), "sudo -E A=1 rm x | rm x");
	T_EQ_STR(split("prlimit -n 1024 rm x"), "prlimit -n 1024 rm x | 1024 rm x");
	T_EQ_STR(split("su - root -c 'rm x; ls'"), "su - root -c 'rm x; ls' | rm x | ls");
	T_EQ_STR(split("find . -exec grep -l x {} + -o -exec ls {} \\;"),
	    "find . -exec grep -l x {} + -o -exec ls {} \\; | grep -l x {} | ls {}");
	/* What runs them is not covered by their allow rule. */
	T_OK(!allows("unshare *", "unshare -r rm x"));
	T_OK(!allows("find *", "find . -exec rm {} \\;"));
	T_OK(!allows("xargs *", "xargs rm"));
	T_OK(allows("xargs *", "xargs -0"));
	T_OK(!allows("sudo *", "sudo rm x"));
	T_OK(!allows("timeout *", "timeout 5 ls"));
	/* Without the grammar's say the command is unknown: no allow rule, and deny rules ask. */
	T_EQ_STR(split("sudo --bogus rm x"), "~?sudo --bogus rm x");
	T_EQ_STR(split("timeout $t rm x"), "~?timeout $t rm x");
	T_EQ_STR(split("timeout \"$t\" rm x"), "timeout \"$t\" rm x | rm x");
	T_EQ_STR(split("sudo $X"), "sudo $X | ~?$X");
	/* A name put in at run time into a shell's code or the program's place. */
	T_EQ_STR(split("find . -exec sh -c 'echo {}' \\;"),
	    "find . -exec sh -c 'echo {}' \\; | ~?sh -c 'echo {}' | echo {}");
	T_EQ_STR(split("xargs -I@ @ x"), "xargs -I@ @ x | ~?@ x");
	T_EQ_STR(split("xargs -I{} rm {}"), "xargs -I{} rm {} | rm {}");
	/* Modes that act on a running process run nothing. */
	T_EQ_STR(split("prlimit -p 1 --nofile=5"), "prlimit -p 1 --nofile=5");
	T_EQ_STR(split("ionice -p 1 2"), "ionice -p 1 2");
	T_EQ_STR(split("taskset -p 1 2"), "taskset -p 1 2");
}

/* Code in strings that bash runs later is as unknown as $c: '~?'. */
T_TEST(code_run_later)
{
	static const char *const later[] = {
		"trap 'rm x' EXIT", "trap -- 'rm x' DEBUG", "trap \"$c\" ERR RETURN",
		"alias ls='rm -rf'", "shopt -s expand_aliases", "echo $((x))", "echo $(( a + 1 ))",
		"((x))", "(( $y > 2 ))", "declare -i n=$1", "typeset -i n", "local -i n",
		"declare -n ref=x", "let x", "let 'n = n + 1'", "[[ $x -eq 1 ]]", "[[ 1 -lt $y ]]",
		"[[ -v a[$i] ]]", "test -v 'a[$(rm x)]'", "[ -v \"a[$i]\" ]",
		"printf -v 'a[$(rm x)]' %s 1", "printf -v \"a[$i]\" %s 1", "read 'a[$(rm x)]'",
		"read -r \"a[$i]\"", "mapfile -C cb -c 1 arr", "a[$x]=1", "a[i]=1 cmd",
		"declare a[$x]=1", "declare \"$n=1\"", "echo ${a[$i]}", "echo ${a[i]}",
		"echo ${!x}", "echo ${x@P}", "echo ${s:i:1}", "echo ${s:$n}", "echo \"${a[@]:x}\"",
		"echo ${x:+${a[i]}}", "cat > ${a[i]}", "PS4='$(rm x)' bash -x s", "PS1=x",
		"export PROMPT_COMMAND='rm x'", "BASH_ENV=f bash s", "ENV=f sh s",
		"env BASH_ENV=f bash s", "complete -C 'rm x' ls", "compgen -C 'rm x' l",
		"enable -f ./x.so x", "fc -s", "fc", "hash -p /bin/rm ls", "bind -x '\"\\C-a\": rm x'",
		"source <(echo rm x)", ". /dev/stdin <<< 'rm x'", "curl -s x | sh", "bash <<'E'\nrm x\nE",
		"sh < f", "bash -s -- a < f", "echo x | { sh; }", NULL
	};
	static const char *const known[] = {
		"trap - EXIT", "trap '' INT", "trap -p", "trap -l", "trap EXIT", "alias",
		"alias ll", "shopt -s extglob", "echo $((1 + 2))", "echo $((0x1f + 16#ff))",
		"echo $(( $# - 1 ))", "((1))", "declare -a a", "declare x=1", "let 1+2",
		"[[ 1 -eq 1 ]]", "[[ ${#a[@]} -gt 0 ]]", "[[ $# -ge 2 ]]", "[[ $x == y ]]",
		"[ \"$x\" -eq 1 ]", "printf '[%s]' x", "printf -v v %s 1",
		"read -r -p '[y/N] ' ans", "read -r line", "mapfile -t lines", "a[0]=1", "a=(1 2)",
		"echo ${a[@]}", "echo ${a[1]}", "echo ${!a[@]}", "echo ${!pre*}", "echo ${s:1:2}",
		"echo ${x:-y}", "echo ${x: -1}", "echo ${#x}", "fc -l", "hash -r", "complete -F f x",
		"PS3=x", "source ./env.sh", ". /usr/share/debconf/confmodule", "bash script.sh",
		"sh -e ./x", "bash -c 'ls'", "bash --version", "coproc cat f", "bash", NULL
	};
	size_t i;

	for (i = 0; later[i] != NULL; i++)
		if (strstr(split(later[i]), "~?") == NULL)
			T_FAIL("not unsure: %s -> %s", later[i], split(later[i]));
	for (i = 0; known[i] != NULL; i++)
		if (strchr(split(known[i]), '?') != NULL)
			T_FAIL("unsure: %s -> %s", known[i], split(known[i]));
	/* A trap's action is split too: deny rules see it. */
	T_EQ_STR(split("trap 'rm x; ls' EXIT"), "~?trap 'rm x; ls' EXIT | rm x | ls");
	T_OK(denies("rm *", "trap 'rm x' EXIT"));
	T_OK(!allows("trap *", "trap 'ls' EXIT"));
	/* Headers and patterns count too. */
	T_EQ_STR(split("for ((i = 0; i < n; i++)); do ls; done"), "~?ls");
	T_EQ_STR(split("case $((x)) in 1) ls;; esac"), "~?ls");
	T_EQ_STR(split("case $((x)) in esac"), " !");
	T_EQ_STR(split("for v in ${a[i]}; do ls; done"), "~?ls");
	T_EQ_STR(split("ls; cat <<E\n$((x))\nE"), "ls | ~?cat <<E");
	/* Command lines handed to programs in variables and git settings are split. */
	T_EQ_STR(split("GIT_SSH_COMMAND='rm x' git fetch"), "GIT_SSH_COMMAND='rm x' git fetch | rm x");
	T_EQ_STR(split("env EDITOR='rm x' git commit"),
	    "env EDITOR='rm x' git commit | rm x | git commit");
	T_EQ_STR(split("git -c core.sshCommand='rm x' fetch"),
	    "git -c core.sshCommand='rm x' fetch | rm x");
	T_EQ_STR(split("git -c alias.x='!rm y' x"),
	    "git -c alias.x='!rm y' x | rm y");
	T_EQ_STR(split("git -c Diff.foo.textconv='rm z' diff"),
	    "git -c Diff.foo.textconv='rm z' diff | rm z");
	T_EQ_STR(split("git -c user.name=x commit"), "git -c user.name=x commit");
	T_EQ_STR(split("git -c core.hooksPath=/tmp/h commit"), "~?git -c core.hooksPath=/tmp/h commit");
	T_EQ_STR(split("env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls"),
	    "~?env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls | bash -c ls | ls");
	T_OK(denies("rm *", "GIT_PAGER='rm x' git log"));
	T_OK(denies("rm *", "apt-get -o APT::Update::Pre-Invoke::='rm x' update"));
	T_OK(denies("rm *", "apt -oDPkg::Post-Invoke::='rm x' install z"));
	T_OK(denies("rm *", "dpkg --pre-invoke='rm x' -i a.deb"));
	T_EQ_STR(split("apt-get -o Dpkg::Options::=--force-confold install x"),
	    "apt-get -o Dpkg::Options::=--force-confold install x");
	/* coproc NAME before a compound command names it; it runs nothing. */
	T_EQ_STR(split("coproc NAME { rm x; }"), "rm x");
	T_EQ_STR(split("coproc NAME ( rm x )"), "rm x");
	T_OK(denies("rm *", "coproc NAME { rm x; }"));
}

T_TEST(keywords)
{
	T_EQ_STR(split("if a; then b; elif c; then d; else e; fi"), "a | b | c | d | e");
	T_EQ_STR(split("while a; do b; done > f"), "a | b | >> f");
	T_EQ_STR(split("until a; do b; done"), "a | b");
	T_EQ_STR(split("for x in a $(b) c; do d $x; done"), "b | d $x");
	T_EQ_STR(split("for x\ndo d; done"), "d");
	T_EQ_STR(split("for ((i = $(a); i < 2; i++)); do b; done"), "~?a | b");
	T_EQ_STR(split("select x in a; do b; done"), "b");
	T_EQ_STR(split("case $(a) in x|y) b;; (z) c;& *) d;;& esac; e"), "a | b | c | d | e");
	T_EQ_STR(split("case x in\n  a) b\n  ;;\nesac"), "b");
	T_EQ_STR(split("case x in a) b"), "b !");
	T_EQ_STR(split("f() { a; }; function g { b; }; function h() ( c )"), "a | b | c");
	T_EQ_STR(split("! a | b"), "a | b");
	T_EQ_STR(split("time -p a"), "a");
	T_EQ_STR(split("[[ -n $(a) && x =~ (a|b) ]] && c"), "a | [[ -n $(a) && x =~ (a|b) ]] | c");
	T_EQ_STR(split("[[ x"), "[[ x !");
	T_EQ_STR(split("(( x = $(a) + 1 )) || b"), "a | ~?(( x = $(a) + 1 )) | b");
	T_EQ_STR(split("echo if then done"), "echo if then done");
	T_EQ_STR(split("{ a; } 2> e"), "a | >2> e");
}

T_TEST(redirections)
{
	T_EQ_STR(split("a > f"), ">a > f");
	T_EQ_STR(split("a >f 2>&1"), ">a >f 2>&1");
	T_EQ_STR(split("a >/dev/null 2>&1 <in"), "a >/dev/null 2>&1 <in");
	T_EQ_STR(split("a &>> log"), ">a &>> log");
	T_EQ_STR(split("a >& log"), ">a >& log");
	T_EQ_STR(split("a >&2 >&-"), "a >&2 >&-");
	T_EQ_STR(split("a {fd}> f"), ">a {fd}> f");
	T_EQ_STR(split("a 3<> f"), ">a 3<> f");
	T_EQ_STR(split("> f"), ">> f");
	T_EQ_STR(split("a > $f"), ">a > $f");
	T_EQ_STR(split("a '>' f"), "a '>' f");
	T_EQ_STR(split("a >"), ">a > !");
	T_EQ_STR(plain("a 2>f b"), "a/2> f/b");
}

T_TEST(shells_and_eval)
{
	T_EQ_STR(split("bash -c 'a; b'"), "bash -c 'a; b' | a | b");
	T_EQ_STR(split("sh -ec \"a && b\" name"), "sh -ec \"a && b\" name | a | b");
	T_EQ_STR(split("/bin/bash -o pipefail -c 'a | b'"), "/bin/bash -o pipefail -c 'a | b' | a | b");
	T_EQ_STR(split("eval a ';' b"), "eval a ';' b | a | b");
	T_EQ_STR(split("eval \"$x\""), "?eval \"$x\" | ~?$x");
	T_EQ_STR(split("bash -c \"rm $x\""), "?bash -c \"rm $x\" | rm $x");
	T_EQ_STR(split("bash script.sh"), "bash script.sh");
	T_EQ_STR(split("sudo bash -c 'bash -c \"a\"'"),
	    "sudo bash -c 'bash -c \"a\"' | bash -c 'bash -c \"a\"' | bash -c \"a\" | a");
	T_EQ_STR(split("bash -c $'a\\'; b'"), "bash -c $'a\\'; b' | ~a'; b !");
}

T_TEST(depth_is_bounded)
{
	struct buf c = BUF_INIT(BUF_NOLIMIT);
	int i;

	for (i = 0; i < 40; i++)
		buf_puts(&c, "echo $(");
	buf_puts(&c, "a");
	for (i = 0; i < 40; i++)
		buf_putc(&c, ')');
	T_CONTAINS(split(buf_cstr(&c)), " !");
	buf_reset(&c);
	for (i = 0; i < 40; i++)
		buf_puts(&c, "eval ");
	buf_puts(&c, "a");
	T_CONTAINS(split(buf_cstr(&c)), " !");
	buf_reset(&c);
	for (i = 0; i < SHPARSE_DEPTH_MAX - 1; i++)
		buf_puts(&c, "( ");
	buf_puts(&c, "a");
	for (i = 0; i < SHPARSE_DEPTH_MAX - 1; i++)
		buf_puts(&c, " )");
	T_EQ_STR(split(buf_cstr(&c)), "a");
	buf_release(&c);
}

T_TEST(command_word_verdicts)
{
	static const char *const dynamic[] = {
		"$(echo rm) -rf x", "`echo rm` x", "$X", "${X}", "r\\m x", "'rm' x", "\"rm\" x",
		"$'rm' x", "$\"rm\" x", "/bin/r? x", "/bin/r* x", "/bin/[r]m x", "{rm,-rf,x}",
		"rm${IFS}-rf", "~/bin/x", "r''m", "A=1 $X", "x=1 \\rm y", NULL
	};
	static const char *const unsure[] = {
		"$(echo rm) -rf x", "$X", "/bin/r? x", "{rm,x}", "rm${IFS}-rf", "sudo $X",
		"env A=1 \"$X\"", "xargs $X", "timeout 5 $(echo rm)", "eval $x", "bash -c \"$x\"",
		NULL
	};
	static const char *const plain_word[] = {
		"rm x", "git status $'\\''", "ls \"$X\"", "a=$(b) ls", "[ -f x ]", "[[ -f x ]]",
		"echo {a,b}", "x=1", "> f", NULL
	};
	size_t i;

	for (i = 0; dynamic[i] != NULL; i++)
		if (strchr(split(dynamic[i]), '~') == NULL)
			T_FAIL("not dynamic: %s (%s)", dynamic[i], buf_cstr(&out));
	for (i = 0; unsure[i] != NULL; i++)
		if (strchr(split(unsure[i]), '?') == NULL)
			T_FAIL("not unsure: %s (%s)", unsure[i], buf_cstr(&out));
	for (i = 0; plain_word[i] != NULL; i++) {
		split(plain_word[i]);
		if (strchr(buf_cstr(&out), '~') != NULL || strchr(buf_cstr(&out), '?') != NULL)
			T_FAIL("not plain: %s (%s)", plain_word[i], buf_cstr(&out));
	}
}

T_TEST(deny_sees_what_runs)
{
	static const char *const caught[] = {
		"rm -rf x", "r\\m -rf x", "'rm' -rf x", "\"r\"m -rf x", "$'rm' -rf x",
		"$'\\x72\\x6d' -rf x", "$'\\162m' -rf x", "$\"rm\" -rf x", "/bin/rm -rf x",
		"\\/bin/rm x", "sudo rm x", "sudo -u root rm x", "A=1 B=2 rm x", "A='1' rm x",
		"A=\"$x\" rm x", "env -i rm x",
		"nice -n 5 rm x", "rm '-rf' x", "rm x > /dev/null", "ls; rm x", "echo $(rm x)",
		"bash -c 'rm x'", "eval 'rm x'", "cat <<E\n$(rm x)\nE", "rm", "rm\\\n -rf x",
		"x=$(rm y)", "[[ $(rm x) ]]", "case $(rm x) in *) ;; esac", "for i in `rm x`; do :; done",
		NULL
	};
	static const char *const spared[] = {
		"echo rm", "echo 'rm x'", "rmdir x", "lsrm x", "cat <<'E'\nrm x\nE", "ls # rm x",
		"git commit -m 'rm x; rm y'", NULL
	};
	size_t i;

	for (i = 0; caught[i] != NULL; i++)
		if (!denies("rm *", caught[i]))
			T_FAIL("not caught: %s", caught[i]);
	for (i = 0; spared[i] != NULL; i++)
		if (denies("rm *", spared[i]))
			T_FAIL("caught: %s", spared[i]);
	T_OK(denies("rm -rf *", "rm \"-rf\" /"));
	T_OK(denies("git push *", "git $'push' origin"));
}

T_TEST(allow_needs_a_plain_word)
{
	T_OK(allows("git *", "git status && git log"));
	T_OK(!allows("git *", "git status; touch x"));
	T_OK(!allows("'git' *", "'git' status"));
	T_OK(!allows("*", "$(echo rm) x"));
	T_OK(!allows("g* *", "g\\it x"));
	T_OK(!allows("git *", "git log > out"));
	T_OK(allows("git *", "git log > /dev/null"));
	T_OK(!allows("git *", "git status 'unterminated"));
	T_OK(allows("make*", "make \\\n test"));
}

T_TEST(squeeze_and_words)
{
	char *s;
	size_t pos = 0;

	s = shparse_squeeze("  a   'b   c'  $'d \\'  e'   f ");
	T_EQ_STR(s, "a 'b   c' $'d \\'  e' f");
	free(s);
	s = shparse_word("$'a \\' b' c", &pos);
	T_EQ_STR(s, "$'a \\' b'");
	free(s);
	T_OK(shparse_glob("git *", "git status"));
	T_OK(shparse_glob("ls \\*.c", "ls *.c"));
	T_OK(!shparse_glob("ls \\*.c", "ls a.c"));
	T_OK(shparse_rule_match("rm *", "rm", "rm"));
}

T_TEST(run_anything_rules)
{
	static const char *const warned[] = {
		"run_bash(git *)", "Bash(git:*)", "run_bash(make *)", "run_bash(make*)",
		"run_bash(npx *)",
		"run_bash(python -c *)", "run_bash(python3 *)", "run_bash(node *)",
		"run_bash(perl *)", "run_bash(awk *)", "run_bash(sed *)", "run_bash(git -c *)",
		"run_bash(git difftool *)", "run_bash(bash *)", "run_bash(sh -c *)",
		"run_bash(/usr/bin/git *)", NULL
	};
	static const char *const quiet[] = {
		"run_bash(git status)", "run_bash(git status *)", "run_bash(git log *)",
		"run_bash(ls *)", "run_bash(python script.py)", "edit_file(git *)", "run_bash",
		"run_bash(*)", "run_bash(make test)", "run_bash(find . -name *)",
		/* What these run is a part of its own, which their rule does not cover. */
		"run_bash(find *)", "run_bash(xargs *)", "run_bash(env *)", "run_bash(sudo *)",
		"run_bash(timeout *)", "run_bash(eval *)", NULL
	};
	struct buf why = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (i = 0; warned[i] != NULL; i++) {
		buf_reset(&why);
		if (!shparse_rule_runs_anything(warned[i], &why))
			T_FAIL("no warning: %s", warned[i]);
	}
	for (i = 0; quiet[i] != NULL; i++) {
		buf_reset(&why);
		if (shparse_rule_runs_anything(quiet[i], &why))
			T_FAIL("warning: %s (%s)", quiet[i], buf_cstr(&why));
	}
	buf_reset(&why);
	T_OK(shparse_rule_runs_anything("run_bash(git *)", &why));
	T_EQ_STR(buf_cstr(&why), "rule run_bash(git *) lets git run any command: "
	    "git -c alias.x='!…' runs any command");
	buf_release(&why);
}

/*
 * The folders every part of cmd reads everything below, joined by ' '
 * ("." for the current folder when it names none, "@" before one that may
 * be a revision), parts by " | "; "-" when a part reads no tree, "!" when
 * there are too many.
 */
static const char *
trees(const char *cmd)
{
	struct shparse_tree t[4];
	struct shparse_parts p;
	size_t i;
	int n, k;

	memset(&p, 0, sizeof(p));
	shparse_split(cmd, &p);
	buf_reset(&out);
	for (i = 0; i < p.n; i++) {
		if (i > 0)
			buf_puts(&out, " | ");
		n = shparse_tree_reads(&p.v[i], t, 4);
		if (n <= 0)
			buf_puts(&out, n == 0 ? "-" : "!");
		for (k = 0; k < n; k++)
			buf_printf(&out, "%s%s%s", k > 0 ? " " : "", t[k].rev ? "@" : "",
			    t[k].path != NULL ? t[k].path : ".");
	}
	shparse_parts_release(&p);
	return buf_cstr(&out);
}

T_TEST(tree_readers)
{
	/* grep reads a tree only when recursive; its pattern is no folder */
	T_EQ_STR(trees("grep KEY src"), "-");
	T_EQ_STR(trees("grep -r KEY src"), "src");
	T_EQ_STR(trees("grep -rn KEY"), ".");
	T_EQ_STR(trees("grep -e KEY -R a b"), "a b");
	T_EQ_STR(trees("grep --include '*.c' -d recurse KEY src"), "src");
	T_EQ_STR(trees("grep -d skip KEY src"), "-");
	T_EQ_STR(trees("rgrep -A 3 KEY"), ".");
	/* always recursive; an option's value is no operand */
	T_EQ_STR(trees("rg -t c KEY"), ".");
	T_EQ_STR(trees("rg --files src"), "src");
	T_EQ_STR(trees("ag KEY lib"), "lib");
	T_EQ_STR(trees("ack KEY"), ".");
	T_EQ_STR(trees("git -C sub grep -n KEY"), ".");
	T_EQ_STR(trees("git grep KEY HEAD -- src"), "@HEAD src");
	T_EQ_STR(trees("git log -p"), "-");
	T_EQ_STR(trees("find -L . src -name '*.c' -exec cat {} +"), ". src | -");
	T_EQ_STR(trees("ls -la src"), "-");
	T_EQ_STR(trees("ls -lR"), ".");
	/* archives and copies: what they read, not what they write */
	T_EQ_STR(trees("tar czf out.tgz src lib"), "src lib");
	T_EQ_STR(trees("tar -C /tmp -cf - ."), ".");
	T_EQ_STR(trees("tar xzf out.tgz"), "-");
	T_EQ_STR(trees("zip -qr out.zip src"), "src");
	T_EQ_STR(trees("zip -R out.zip '*.c'"), ".");
	T_EQ_STR(trees("cp -r src dst"), "src");
	T_EQ_STR(trees("cp -a -t dst a b"), "a b");
	T_EQ_STR(trees("cp a b"), "-");
	T_EQ_STR(trees("rsync -av -e ssh src host:dst"), "src");
	T_EQ_STR(trees("scp -r -P 22 host:x dst"), "-");
	T_EQ_STR(trees("scp -r src host:x"), "src");
	/* a wrapper's command is a part of its own */
	T_EQ_STR(trees("sudo -u x grep -r KEY"), "- | .");
	T_EQ_STR(trees("grep -r K a b c d e"), "!");
	T_EQ_STR(trees("grep K a b c d e f g h i j k l m n o p q r s t u v -n"), "-");
	T_EQ_STR(trees("grep K a b c d e f g h i j k l m n o p q r s t u v -r"), "!");
}

int
main(void)
{
	T_RUN(the_attacks);
	T_RUN(ansi_c_escapes);
	T_RUN(lists);
	T_RUN(substitutions);
	T_RUN(here_documents);
	T_RUN(here_document_ends);
	T_RUN(wrappers);
	T_RUN(code_run_later);
	T_RUN(keywords);
	T_RUN(redirections);
	T_RUN(shells_and_eval);
	T_RUN(depth_is_bounded);
	T_RUN(command_word_verdicts);
	T_RUN(deny_sees_what_runs);
	T_RUN(allow_needs_a_plain_word);
	T_RUN(squeeze_and_words);
	T_RUN(run_anything_rules);
	T_RUN(tree_readers);
	buf_release(&out);
	return t_done();
}
