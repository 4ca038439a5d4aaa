/* Custom slash commands from Markdown files: see commands.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "fmatter.h"
#include "json.h"
#include "proc.h"
#include "skill.h"
#include "commands.h"
#include "claude/grant.h"
#include "claude/notice.h"
#include "config/config.h"
#include "jail/jail.h"
#include "rules/perm.h"
#include "xalloc.h"

#define COMMANDS_DESC_MAX	80	/* a description taken from the text is cut here */
#define COMMANDS_MAX_WORDS	9

/* What a command file says about itself, and where its text starts. */
struct commands_doc {
	char		*description;
	char		*hint;
	char		*allowed;	/* allowed-tools; NULL: none */
	char		*model;
	const char	*body;
};

/* Front matter fields a command file may have (model is read to be named as not honoured). */
static const char *const commands_fields[] = {
	"description", "argument-hint", "allowed-tools", "model", "disable-model-invocation", NULL
};

static bool
commands_valid_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("_-.:", s[i]) != NULL) || s[i] == '\0')
			return false;
	return true;
}

/* 1 and the text, 0 when path does not exist, -1 with a sentence in err. */
static int
commands_read(const char *path, struct buf *text, struct buf *err)
{
	struct file_status st;

	buf_init(text, BUF_NOLIMIT);
	if (file_read(path, COMMANDS_FILE_MAX, FILE_REGULAR, text, &st) == 0)
		return 1;
	buf_release(text);
	if (st.fail == FILE_MISSING)
		return 0;
	if (st.fail == FILE_NOT_REGULAR)
		buf_printf(err, "%s is not a regular file", path);
	else if (st.fail == FILE_TOO_BIG)
		buf_printf(err, "%s is larger than %d KB; is it a command?", path,
		    COMMANDS_FILE_MAX / 1024);
	else
		buf_printf(err, "cannot read %s: %s", path, strerror(errno));
	return -1;
}

/* The first line of text that says something, cut short: a description when none is given. */
static char *
commands_first_line(const char *text)
{
	const char *p = text, *end;
	size_t n;

	for (; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		while (p < end && strchr("# \t", *p) != NULL)
			p++;
		n = (size_t)(end - p);
		while (n > 0 && strchr(" \t\r", p[n - 1]) != NULL)
			n--;
		if (n == 0)
			continue;
		if (n > COMMANDS_DESC_MAX) {
			n = COMMANDS_DESC_MAX;
			while (n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80)
				n--;
		}
		return xmemdup(p, n);
	}
	return xstrdup("");
}

static char *
commands_opt(const cJSON *fm, const char *key)
{
	const char *v = json_str(fm, key, NULL);

	return v != NULL && v[0] != '\0' ? xstrdup(v) : NULL;
}

/* Parse text; front matter fields tandem does not know are named on notices (may be NULL). */
static void
commands_parse(const char *text, struct commands_doc *doc, struct notices *notices, const char *path)
{
	const cJSON *m;
	cJSON *fm;
	size_t i;

	memset(doc, 0, sizeof *doc);
	fm = fmatter_parse(text, &doc->body);
	doc->description = commands_opt(fm, "description");
	doc->hint = commands_opt(fm, "argument-hint");
	doc->allowed = commands_opt(fm, "allowed-tools");
	doc->model = commands_opt(fm, "model");
	cJSON_ArrayForEach(m, fm) {
		bool known = false;

		for (i = 0; commands_fields[i] != NULL; i++)
			known = known || strcmp(commands_fields[i], m->string) == 0;
		if (!known)
			notice_add(notices, "command field", m->string, path, "not a field tandem knows");
	}
	/* "opus", "sonnet": Claude Code's aliases name no model tandem can ask for. */
	if (doc->model != NULL && strchr(doc->model, '-') == NULL) {
		notice_add(notices, "command field", "model", path, "a Claude Code alias, not a "
		    "model's name; the session's model answers");
		free(doc->model);
		doc->model = NULL;
	}
	cJSON_Delete(fm);
	if (doc->description == NULL || doc->description[0] == '\0') {
		free(doc->description);
		doc->description = commands_first_line(doc->body);
	}
}

static void
commands_doc_release(struct commands_doc *doc)
{
	free(doc->description);
	free(doc->hint);
	free(doc->allowed);
	free(doc->model);
}

/* Split args into at most COMMANDS_MAX_WORDS words; quotes group, and are dropped. */
static size_t
commands_words(const char *args, char **words)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);
	const char *p = args;
	size_t n = 0;
	char q;

	while (n < COMMANDS_MAX_WORDS) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		buf_reset(&w);
		buf_puts(&w, "");
		for (q = 0; *p != '\0' && (q != 0 || strchr(" \t\n", *p) == NULL); p++) {
			if (q == 0 && (*p == '"' || *p == '\''))
				q = *p;
			else if (q != 0 && *p == q)
				q = 0;
			else
				buf_putc(&w, *p);
		}
		words[n++] = xstrdup(buf_cstr(&w));
	}
	buf_release(&w);
	return n;
}

/* body with the placeholders filled in; true if it had any. */
static bool
commands_fill(const char *body, const char *args, struct buf *out)
{
	char *words[COMMANDS_MAX_WORDS];
	size_t nw = commands_words(args, words), i;
	bool used = false;
	const char *p;

	for (p = body; *p != '\0'; p++) {
		if (p[0] == '$' && strncmp(p + 1, "ARGUMENTS", 9) == 0) {
			buf_puts(out, args);
			p += 9;
			used = true;
		} else if (p[0] == '$' && p[1] >= '1' && p[1] <= '9') {
			i = (size_t)(p[1] - '1');
			if (i < nw)
				buf_puts(out, words[i]);
			p++;
			used = true;
		} else {
			buf_putc(out, *p);
		}
	}
	for (i = 0; i < nw; i++)
		free(words[i]);
	return used;
}

/* Trim blank lines and spaces at both ends of out. */
static void
commands_trim(struct buf *out)
{
	size_t start = 0;

	while (out->len > 0 && strchr(" \t\r\n", out->data[out->len - 1]) != NULL)
		buf_truncate(out, out->len - 1);
	while (start < out->len && strchr(" \t\r\n", out->data[start]) != NULL)
		start++;
	buf_consume(out, start);
}

/*
 * Sources, the first of a name winning: the project's, then the user's;
 * tandem's folder before Claude Code's, whose subfolders are read too (a
 * subfolder shows in the description, not in the name).
 */
enum { CMD_ROOT, CMD_CONFIG, CMD_HOME };
static const struct {
	int		 base;
	const char	*sub;
	bool		 project, deep;
} commands_sources[] = {
	{ CMD_ROOT, ".tandem/commands", true, false },
	{ CMD_ROOT, ".claude/commands", true, true },
	{ CMD_CONFIG, "commands", false, false },
	{ CMD_HOME, ".claude/commands", false, true },
};

#define COMMANDS_DEPTH_MAX	4
#define COMMANDS_SHELL_MS	10000	/* a !`command` line may run this long */
#define COMMANDS_SHELL_MAX	(16 * 1024)

static bool
commands_known(const struct command_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return true;
	return false;
}

static void
commands_add(struct command_list *l, const struct config *cfg, const char *dir, const char *folder,
    const char *file, bool project)
{
	struct buf text = BUF_INIT(COMMANDS_FILE_MAX), err = BUF_INIT(1024), path = BUF_INIT(BUF_NOLIMIT);
	size_t n = strlen(file);
	struct command_info *c;
	struct commands_doc doc;
	char *name;

	if (n <= 3 || strcmp(file + n - 3, ".md") != 0 || !commands_valid_name(file, n - 3))
		return;
	name = xmemdup(file, n - 3);
	if (commands_known(l, name)) {
		free(name);
		return;
	}
	buf_printf(&path, "%s/%s", dir, file);
	switch (commands_read(buf_cstr(&path), &text, &err)) {
	case 0:
		free(name);
		buf_release(&path);
		buf_release(&err);
		return;
	case -1:
		/* Listed with what is wrong: using it says so (commands_expand). */
		memset(&doc, 0, sizeof doc);
		doc.description = buf_detach(&err, NULL);
		break;
	default:
		commands_parse(buf_cstr(&text), &doc, cfg->notices, buf_cstr(&path));
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	c = &l->v[l->n++];
	memset(c, 0, sizeof *c);
	c->name = name;
	c->description = doc.description;
	c->argument_hint = doc.hint;
	c->allowed_tools = doc.allowed;
	c->model = doc.model;
	c->path = buf_detach(&path, NULL);
	c->folder = folder != NULL && folder[0] != '\0' ? xstrdup(folder) : NULL;
	c->project = project;
	buf_release(&text);
	buf_release(&err);
}

static void
commands_scan_dir(struct command_list *l, const struct config *cfg, const char *dir,
    const char *folder, bool project, int depth)
{
	struct buf sub = BUF_INIT(BUF_NOLIMIT), rel = BUF_INIT(BUF_NOLIMIT);
	struct dirent *e;
	struct stat st;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		goto out;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		buf_reset(&sub);
		buf_printf(&sub, "%s/%s", dir, e->d_name);
		if (depth > 0 && stat(buf_cstr(&sub), &st) == 0 && S_ISDIR(st.st_mode)) {
			buf_reset(&rel);
			buf_printf(&rel, "%s%s%s", folder ? folder : "", folder ? "/" : "", e->d_name);
			commands_scan_dir(l, cfg, buf_cstr(&sub), buf_cstr(&rel), project, depth - 1);
		} else
			commands_add(l, cfg, dir, folder, e->d_name, project);
	}
	closedir(d);
out:
	buf_release(&sub);
	buf_release(&rel);
}

/* A skill that the user may call is a command too (its body is the prompt). */
static void
commands_add_skills(struct command_list *l, const struct config *cfg)
{
	struct skill_list sk;
	struct command_info *c;
	size_t i;

	skill_scan(cfg->root, cfg->config_dir, getenv("HOME"), &sk);
	for (i = 0; i < sk.n; i++) {
		if (!sk.v[i].user_invocable || commands_known(l, sk.v[i].name))
			continue;
		l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
		c = &l->v[l->n++];
		memset(c, 0, sizeof *c);
		c->name = xstrdup(sk.v[i].name);
		c->description = xstrdup(sk.v[i].description);
		c->argument_hint = sk.v[i].argument_hint ? xstrdup(sk.v[i].argument_hint) : NULL;
		c->allowed_tools = sk.v[i].allowed_tools ? xstrdup(sk.v[i].allowed_tools) : NULL;
		{
			struct buf p = BUF_INIT(BUF_NOLIMIT);

			buf_printf(&p, "%s/SKILL.md", sk.v[i].dir);
			c->path = buf_detach(&p, NULL);
		}
		c->project = sk.v[i].project;
		c->skill = true;
	}
	skill_list_release(&sk);
}

static int
commands_cmp(const void *a, const void *b)
{
	return strcmp(((const struct command_info *)a)->name, ((const struct command_info *)b)->name);
}

void
commands_scan(const struct config *cfg, struct command_list *l)
{
	const char *home = getenv("HOME");
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	const char *base;
	size_t i;

	l->v = NULL;
	l->n = 0;
	for (i = 0; i < sizeof commands_sources / sizeof commands_sources[0]; i++) {
		base = commands_sources[i].base == CMD_ROOT ? cfg->root :
		    commands_sources[i].base == CMD_CONFIG ? cfg->config_dir : home;
		if (base == NULL)
			continue;
		buf_reset(&dir);
		buf_printf(&dir, "%s/%s", base, commands_sources[i].sub);
		commands_scan_dir(l, cfg, buf_cstr(&dir), NULL, commands_sources[i].project,
		    commands_sources[i].deep ? COMMANDS_DEPTH_MAX : 0);
	}
	buf_release(&dir);
	commands_add_skills(l, cfg);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, commands_cmp);
}

void
commands_list_release(struct command_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].description);
		free(l->v[i].argument_hint);
		free(l->v[i].allowed_tools);
		free(l->v[i].model);
		free(l->v[i].folder);
		free(l->v[i].path);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void
commands_list(const struct config *cfg, struct buf *out)
{
	struct buf head = BUF_INIT(BUF_NOLIMIT);
	struct command_list l;
	size_t i;

	commands_scan(cfg, &l);
	for (i = 0; i < l.n; i++) {
		buf_reset(&head);
		buf_printf(&head, "/%s", l.v[i].name);
		if (l.v[i].argument_hint != NULL && l.v[i].argument_hint[0] != '\0')
			buf_printf(&head, " %s", l.v[i].argument_hint);
		buf_printf(out, "%-24s %s%s(%s%s%s%s)\n", buf_cstr(&head), l.v[i].description,
		    l.v[i].description[0] != '\0' ? "  " : "", l.v[i].project ? "project" : "user",
		    l.v[i].folder != NULL ? ":" : "", l.v[i].folder != NULL ? l.v[i].folder : "",
		    l.v[i].skill ? ", skill" : "");
	}
	buf_release(&head);
	commands_list_release(&l);
}

/*
 * Expansion.
 */

/*
 * Run one !`command` of a command file, synchronously and bounded: its
 * output into out.  In the sandbox (jail.h) when one is on, as run_bash
 * runs the model's commands: a trusted project's file still runs its code.
 */
static int
commands_shell_run(const struct config *cfg, struct jail *jail, const char *cmd, struct buf *out,
    struct buf *err)
{
	const char *argv[] = { "/bin/bash", "-c", cmd, NULL };
	struct proc_spec spec;
	struct proc p;
	struct timespec t0, t1;
	char chunk[4096];
	int status = 0, left;
	ssize_t r;

	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.alt_path = "/bin/sh";
	spec.dir = cfg->root;
	spec.in = PROC_IO_NULL;
	spec.out = PROC_IO_PIPE;
	spec.err = PROC_IO_STDOUT;
	spec.redact_env = true;
	if (jail_usable(jail)) {
		spec.env_set = jail_env_set();
		spec.env_unset = jail_env_unset();
		spec.pre_exec = jail_enter;
		spec.arg = jail;
	}
	if (proc_spawn(&spec, &p, err) == -1)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { p.out, POLLIN, 0 };

		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = COMMANDS_SHELL_MS - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || (poll(&pfd, 1, left) == -1 && errno != EINTR)) {
			proc_kill(p.pid, SIGKILL);
			buf_printf(err, "!`%s` did not end within %d seconds", cmd,
			    COMMANDS_SHELL_MS / 1000);
			break;
		}
		r = read(p.out, chunk, sizeof chunk);
		if (r == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			break;
		if (out->len < COMMANDS_SHELL_MAX)
			buf_append(out, chunk, (size_t)r);
	}
	close(p.out);
	while (waitpid(p.pid, &status, 0) == -1 && errno == EINTR)
		;
	proc_forget(p.pid);
	if (out->len > COMMANDS_SHELL_MAX)
		buf_truncate(out, COMMANDS_SHELL_MAX);
	while (out->len > 0 && out->data[out->len - 1] == '\n')
		buf_truncate(out, out->len - 1);
	return err->len > 0 ? -1 : 0;
}

/*
 * The !`command` parts of text, run and replaced by their output.  They are
 * the project's code: only in a trusted project (or the user's own file),
 * and only when the rules allow the command as they would the model's
 * (the command's allowed-tools counting as allow rules; deny rules deny),
 * in the sandbox when one is on (none runs when it is on and cannot run).
 * PreToolUse hooks do not see them: they run on the loop, this before it.
 */
static int
commands_shell(const struct config *cfg, const struct command_info *c, const char *text,
    struct buf *out, struct buf *err)
{
	const char *p = text, *open, *close;
	struct perm_rules *rules = NULL, *extra;
	struct jail *jail = NULL;
	struct buf why = BUF_INIT(4096), cmd = BUF_INIT(BUF_NOLIMIT);
	cJSON *input;
	int r = 0;

	while (r == 0 && (open = strstr(p, "!`")) != NULL &&
	    (close = strchr(open + 2, '`')) != NULL && memchr(open + 2, '\n', (size_t)(close - open - 2)) == NULL) {
		buf_append(out, p, (size_t)(open - p));
		buf_reset(&cmd);
		buf_append(&cmd, open + 2, (size_t)(close - open - 2));
		buf_puts(&cmd, "");
		p = close + 1;
		if (c->project && !cfg->trusted) {
			buf_printf(err, "/%s runs shell commands (!`%s`); tandem runs a project's only "
			    "once the project is trusted (--trust)", c->name, buf_cstr(&cmd));
			r = -1;
			break;
		}
		if (rules == NULL) {
			rules = perm_rules_dup(cfg->rules);
			extra = grant_rules(c->allowed_tools, cfg->root, c->path, NULL);
			if (extra != NULL)
				perm_rules_merge_list(rules, extra, PERM_LIST_ALLOW);
			perm_rules_free(extra);
			jail = jail_new(&cfg->sandbox, cfg->trusted, cfg->root, getenv("HOME"));
		}
		input = cJSON_CreateObject();
		cJSON_AddStringToObject(input, "command", buf_cstr(&cmd));
		buf_reset(&why);
		if (perm_check(rules, cfg->mode, "run_bash", TOOL_HIGH_IMPACT, input, &why) !=
		    PERM_VERDICT_ALLOW) {
			buf_printf(err, "/%s: !`%s` is not run: %s; allow it in the file's allowed-tools "
			    "(Bash(%s)) or in permissions.allow", c->name, buf_cstr(&cmd),
			    why.len ? buf_cstr(&why) : "no rule allows it", buf_cstr(&cmd));
			r = -1;
		} else if (jail_unusable(jail) != NULL) {
			buf_printf(err, "/%s: !`%s` is not run: the sandbox is on (%s) but cannot run "
			    "here: %s", c->name, buf_cstr(&cmd), jail_mode_name(jail_mode(jail)),
			    jail_unusable(jail));
			r = -1;
		} else
			r = commands_shell_run(cfg, jail, buf_cstr(&cmd), out, err);
		cJSON_Delete(input);
	}
	if (r == 0)
		buf_puts(out, p);
	perm_rules_free(rules);
	jail_free(jail);
	buf_release(&why);
	buf_release(&cmd);
	return r;
}

int
commands_expand(const struct config *cfg, const char *line, struct buf *prompt, struct buf *err)
{
	struct buf text = BUF_INIT(COMMANDS_FILE_MAX), out = BUF_INIT(BUF_NOLIMIT);
	struct buf shelled = BUF_INIT(BUF_NOLIMIT), def = BUF_INIT(BUF_NOLIMIT);
	struct commands_doc doc;
	struct command_list l;
	const struct command_info *c = NULL;
	const char *args;
	size_t n, i;
	char *trimmed, *name;
	int r;

	if (line == NULL || line[0] != '/')
		return 1;
	n = strcspn(line + 1, " \t\n");
	if (!commands_valid_name(line + 1, n))
		return 1;
	name = xmemdup(line + 1, n);
	commands_scan(cfg, &l);
	for (i = 0; i < l.n && c == NULL; i++)
		if (strcmp(l.v[i].name, name) == 0)
			c = &l.v[i];
	free(name);
	if (c == NULL) {
		commands_list_release(&l);
		return 1;
	}
	r = commands_read(c->path, &text, err);
	if (r != 1) {
		if (r == 0)
			buf_printf(err, "%s is gone", c->path);
		commands_list_release(&l);
		return -1;
	}
	args = line + 1 + n;
	while (*args == ' ' || *args == '\t' || *args == '\n')
		args++;
	trimmed = xstrdup(args);
	n = strlen(trimmed);
	while (n > 0 && strchr(" \t\r\n", trimmed[n - 1]) != NULL)
		trimmed[--n] = '\0';
	commands_parse(buf_cstr(&text), &doc, NULL, c->path);
	r = commands_shell(cfg, c, doc.body, &shelled, err);
	if (r == 0) {
		if (!commands_fill(buf_cstr(&shelled), trimmed, &out) && trimmed[0] != '\0') {
			commands_trim(&out);
			buf_printf(&out, "\n\nARGUMENTS: %s", trimmed);
		}
		commands_trim(&out);
		buf_append(prompt, buf_cstr(&out), out.len);
		/* allowed-tools hold while this prompt's turn runs (grant.h). */
		/*
		 * The turn runs on the command's model (claude/claude.h switches and
		 * back); a project's dearer one only once the project is trusted.
		 */
		if (c->project)
			buf_printf(&def, "the command /%s (%s)", c->name, c->path);
		grant_model_for_prompt(cfg->grants, buf_cstr(&out), c->model,
		    c->project ? buf_cstr(&def) : NULL);
		if (c->allowed_tools != NULL && (!c->project || cfg->trusted))
			grant_for_prompt(cfg->grants, buf_cstr(&out),
			    grant_rules(c->allowed_tools, cfg->root, c->path, cfg->notices));
	}
	commands_doc_release(&doc);
	free(trimmed);
	commands_list_release(&l);
	buf_release(&text);
	buf_release(&out);
	buf_release(&shelled);
	buf_release(&def);
	return r;
}
