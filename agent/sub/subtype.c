/* The kinds of subagent: built in, and from agent definition files.  See subtype.h. */
#include "autoconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "file.h"
#include "subtype.h"
#include "tool.h"
#include "toolnames.h"
#include "xalloc.h"

#define SUBTYPE_FILE_MAX	(256 * 1024)

struct subtype_builtin {
	const char	*name;
	const char	*description;
	bool		 read_only;
	const char	*model;
	const char	*prompt;
};

static const struct subtype_builtin subtype_builtins[] = {
	{ "general-purpose",
	  "a task of several steps (research, changes), with your tools",
	  false, NULL,
	  "You are a subagent of tandem, a coding agent. Another agent gave you the task "
	  "below. Do it with the tools you have, then answer with what you found or did: "
	  "your final message is all the other agent sees, so make it complete and short. "
	  "Give file paths relative to the workspace root." },
	{ "Explore",
	  "fast read-only searches of the code; say how thorough",
	  true, "haiku",
	  "You are a search subagent of tandem, a coding agent. Find what the task below "
	  "asks for in the workspace with the read-only tools you have (glob, grep, "
	  "read_file, list_dir); run several searches at once when they do not depend on "
	  "each other. You cannot change anything. Answer with what you found: the paths "
	  "and lines that matter and a short explanation; your final message is all the "
	  "other agent sees." },
	{ "Plan",
	  "read-only; returns a step-by-step plan for a change",
	  true, NULL,
	  "You are a planning subagent of tandem, a coding agent. Read what you need of the "
	  "workspace with the read-only tools you have, then answer with a plan for the task "
	  "below: numbered steps, the files and functions each step touches, and the risks. "
	  "You cannot change anything; your final message is all the other agent sees." },
};

static char *
subtype_trim(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	return xstrndup(s, n);
}

static void
subtype_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static void
subtype_strv_add(char ***v, const char *s)
{
	size_t n = 0;

	while (*v != NULL && (*v)[n] != NULL) {
		if (strcmp((*v)[n], s) == 0)
			return;
		n++;
	}
	*v = xreallocarray(*v, n + 2, sizeof **v);
	(*v)[n] = xstrdup(s);
	(*v)[n + 1] = NULL;
}

/* A tools: value ("Read, Grep", "[Read, Grep]") or list item, as tandem names into v. */
static void
subtype_tools_add(char ***v, const char *text, bool *spawn)
{
	char *copy = xstrdup(text), *p = copy, *item;

	while (*p == ' ' || *p == '[')
		p++;
	for (item = p; item != NULL; ) {
		char *comma = strpbrk(item, ",]"), *name, *paren;

		if (comma != NULL)
			*comma = '\0';
		name = subtype_trim(item, strlen(item));
		/* "Bash(git *)": a rule's pattern is not a tool filter; the tool is what counts */
		if ((paren = strchr(name, '(')) != NULL)
			*paren = '\0';
		if (name[0] != '\0') {
			/* mcp__srv and mcp__srv__*: every tool of the server, as a rule of that name */
			char *scope = toolname_mcp_scope(name);
			const char *t = scope != NULL ? scope : toolname_tandem(name);

			if (strcmp(t, "agent") == 0 && spawn != NULL)
				*spawn = true;
			subtype_strv_add(v, t);
			free(scope);
		}
		free(name);
		item = comma != NULL ? comma + 1 : NULL;
	}
	free(copy);
}

static struct subtype *
subtype_new(const char *name, const char *source)
{
	struct subtype *t = xcalloc(1, sizeof *t);

	t->name = xstrdup(name);
	t->source = xstrdup(source);
	return t;
}

static void
subtype_free(struct subtype *t)
{
	free(t->name);
	free(t->description);
	free(t->prompt);
	subtype_strv_free(t->tools);
	subtype_strv_free(t->disallowed);
	free(t->model);
	free(t->source);
	free(t->ignored);
	free(t);
}

void
subtype_list_free(struct subtype *t)
{
	struct subtype *next;

	for (; t != NULL; t = next) {
		next = t->next;
		subtype_free(t);
	}
}

/* One "key: value" of the frontmatter; list is the key whose "- item" lines follow. */
static void
subtype_set(struct subtype *t, const char *key, const char *val, bool item)
{
	if (strcmp(key, "name") == 0 && !item) {
		free(t->name);
		t->name = xstrdup(val);
	} else if (strcmp(key, "description") == 0) {
		if (t->description != NULL && val[0] != '\0') {
			struct buf b = BUF_INIT(BUF_NOLIMIT);

			buf_printf(&b, "%s%s%s", t->description, t->description[0] != '\0' ? " " : "", val);
			free(t->description);
			t->description = buf_detach(&b, NULL);
		} else if (t->description == NULL)
			t->description = xstrdup(val);
	} else if (strcmp(key, "tools") == 0) {
		if (t->tools == NULL)
			t->tools = xcalloc(1, sizeof *t->tools);
		subtype_tools_add(&t->tools, val, &t->may_spawn);
	} else if (strcmp(key, "disallowedTools") == 0)
		subtype_tools_add(&t->disallowed, val, NULL);
	else if (strcmp(key, "model") == 0 && !item && val[0] != '\0') {
		free(t->model);
		t->model = xstrdup(val);
	} else if (strcmp(key, "maxTurns") == 0 && !item) {
		char *end;
		long v = strtol(val, &end, 10);

		if (*end == '\0' && v > 0 && v < 10000)
			t->max_turns = (int)v;
	} else if (!item) {
		struct buf b = BUF_INIT(BUF_NOLIMIT);

		buf_printf(&b, "%s%s%s", t->ignored != NULL ? t->ignored : "", t->ignored != NULL ? ", " : "", key);
		free(t->ignored);
		t->ignored = buf_detach(&b, NULL);
	}
}

struct subtype *
subtype_parse(const char *text, const char *source, struct buf *why)
{
	struct subtype *t;
	const char *p = text, *body;
	char key[64] = "";

	if (strncmp(p, "---", 3) != 0) {
		buf_printf(why, "%s: no frontmatter (a first line of ---)", source);
		return NULL;
	}
	p = strchr(p, '\n');
	if (p == NULL) {
		buf_printf(why, "%s: the frontmatter does not end", source);
		return NULL;
	}
	p++;
	t = subtype_new("", source);
	for (body = NULL; *p != '\0'; ) {
		const char *eol = strchr(p, '\n'), *colon;
		size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, n), *val;

		p = eol != NULL ? eol + 1 : p + n;
		if (strncmp(line, "---", 3) == 0) {
			free(line);
			body = p;
			break;
		}
		val = subtype_trim(line, strlen(line));
		if (val[0] == '#' || val[0] == '\0') {
			/* a comment or a blank line */
		} else if (isspace((unsigned char)line[0]) || val[0] == '-') {
			/* a "- item" of a list, or the next line of a block value */
			if (val[0] == '-' && key[0] != '\0') {
				char *item = subtype_trim(val + 1, strlen(val + 1));

				subtype_set(t, key, item, true);
				free(item);
			} else if (key[0] != '\0')
				subtype_set(t, key, val, true);
		} else if ((colon = strchr(line, ':')) != NULL && (size_t)(colon - line) < sizeof key) {
			char *v = subtype_trim(colon + 1, strlen(colon + 1));

			memcpy(key, line, (size_t)(colon - line));
			key[colon - line] = '\0';
			/* "|" and ">": a block value on the lines that follow */
			if (strcmp(v, "|") == 0 || strcmp(v, ">") == 0 || strcmp(v, "|-") == 0 ||
			    strcmp(v, ">-") == 0)
				v[0] = '\0';
			if (v[0] != '\0' || strcmp(key, "description") == 0)
				subtype_set(t, key, v, false);
			free(v);
		}
		free(val);
		free(line);
	}
	if (body == NULL) {
		buf_printf(why, "%s: the frontmatter does not end (no second ---)", source);
		subtype_free(t);
		return NULL;
	}
	if (t->name[0] == '\0') {
		buf_printf(why, "%s: the frontmatter has no name", source);
		subtype_free(t);
		return NULL;
	}
	while (*body == '\n' || *body == '\r')
		body++;
	t->prompt = xstrdup(body);
	if (t->description == NULL)
		t->description = xstrdup("");
	return t;
}

static int
subtype_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A type replaces one of the same name already in the list, else goes at its end. */
static void
subtype_put(struct subtype **list, struct subtype *t)
{
	struct subtype **p;

	for (p = list; *p != NULL; p = &(*p)->next)
		if (strcasecmp((*p)->name, t->name) == 0) {
			t->next = (*p)->next;
			subtype_free(*p);
			*p = t;
			return;
		}
	*p = t;
}

/* Every *.md of dir, in name order. */
static void
subtype_load_dir(struct subtype **list, const char *dir, bool project, struct buf *warn)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l > 3 && strcmp(e->d_name + l - 3, ".md") == 0 && e->d_name[0] != '.') {
			names = xreallocarray(names, n + 1, sizeof *names);
			names[n++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, subtype_cmp);
	for (i = 0; i < n; i++) {
		struct buf path = BUF_INIT(BUF_NOLIMIT), text = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(4096);
		struct subtype *t;

		buf_printf(&path, "%s/%s", dir, names[i]);
		if (file_read(buf_cstr(&path), SUBTYPE_FILE_MAX, 0, &text, NULL) == -1)
			buf_printf(&why, "%s: cannot be read", buf_cstr(&path));
		else if ((t = subtype_parse(buf_cstr(&text), buf_cstr(&path), &why)) != NULL) {
			t->project = project;
			subtype_put(list, t);
		}
		if (why.len > 0 && warn != NULL)
			buf_printf(warn, "agent definition %s\n", buf_cstr(&why));
		buf_release(&path);
		buf_release(&text);
		buf_release(&why);
		free(names[i]);
	}
	free(names);
}

struct subtype *
subtype_load(const char *root, const char *home, struct buf *warn)
{
	struct subtype *list = NULL;
	size_t i;
	struct buf dir = BUF_INIT(BUF_NOLIMIT);

	for (i = 0; i < sizeof subtype_builtins / sizeof subtype_builtins[0]; i++) {
		const struct subtype_builtin *b = &subtype_builtins[i];
		struct subtype *t = subtype_new(b->name, "built-in");

		t->description = xstrdup(b->description);
		t->prompt = xstrdup(b->prompt);
		t->read_only = b->read_only;
		t->model = b->model != NULL ? xstrdup(b->model) : NULL;
		subtype_put(&list, t);
	}
	/* the user's, then the project's: the nearer one wins */
	if (home != NULL) {
		buf_printf(&dir, "%s/.claude/agents", home);
		subtype_load_dir(&list, buf_cstr(&dir), false, warn);
	}
	if (root != NULL) {
		buf_reset(&dir);
		buf_printf(&dir, "%s/.claude/agents", root);
		subtype_load_dir(&list, buf_cstr(&dir), true, warn);
		buf_reset(&dir);
		buf_printf(&dir, "%s/.tandem/agents", root);
		subtype_load_dir(&list, buf_cstr(&dir), true, warn);
	}
	buf_release(&dir);
	return list;
}

const struct subtype *
subtype_find(const struct subtype *t, const char *name)
{
	for (; t != NULL && name != NULL; t = t->next)
		if (strcasecmp(t->name, name) == 0)
			return t;
	return NULL;
}

static bool
subtype_listed(char *const *v, const char *name)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (toolname_is_mcp(v[i]) ? toolname_mcp_covers(v[i], name) : strcmp(v[i], name) == 0)
			return true;
	return false;
}

/* A name of a tools: list as written in Claude Code's terms: mcp__srv for a whole server. */
static void
subtype_describe_name(struct buf *out, const char *name)
{
	size_t n = strlen(name);

	if (toolname_is_mcp(name) && n > 2 && strcmp(name + n - 2, "__") == 0)
		buf_printf(out, " %.*s", (int)(n - 2), name);
	else
		buf_printf(out, " %s", toolname_cc_or_self(name));
}

/* Whether v names an MCP tool, for the proxy that calls them ("mcp"). */
static bool
subtype_lists_mcp(char *const *v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (toolname_is_mcp(v[i]))
			return true;
	return false;
}

bool
subtype_allows(const struct subtype *t, const char *tool, const struct tool_def *def)
{
	const struct tool_def *d;
	bool proxy = strcmp(tool, "mcp") == 0;

	if (subtype_listed(t->disallowed, tool))
		return false;
	/* the person is the parent's to ask, and plan mode the parent's to leave */
	if (strcmp(tool, "ask_user") == 0 || strcmp(tool, "exit_plan") == 0)
		return false;
	if (strcmp(tool, "agent") == 0)
		return t->may_spawn && !subtype_listed(t->disallowed, tool);
	if (t->tools != NULL)
		return subtype_listed(t->tools, tool) || (proxy && subtype_lists_mcp(t->tools));
	/* an MCP tool its server says only reads, or the proxy (each call is gated as its tool) */
	if (t->read_only && (proxy || toolname_is_mcp(tool)))
		return proxy || (def != NULL && def->parallel);
	/* the web's tools and the code tool's queries change nothing here */
	if (t->read_only && (strcmp(tool, "web_fetch") == 0 || strcmp(tool, "web_search") == 0 ||
	    strcmp(tool, "code") == 0))
		return true;
	if (t->read_only)
		return (d = tool_find(tool)) != NULL && d->cls == TOOL_READ_ONLY && d->shell_op == TOOL_SHELL_NONE;
	return true;
}

/* Claude Code's aliases, as the Anthropic API names the models they mean today. */
static const struct {
	const char	*alias;
	const char	*env;		/* Claude Code's variable that names the model for it */
	const char	*anthropic;
} subtype_aliases[] = {
	{ "haiku",	"ANTHROPIC_DEFAULT_HAIKU_MODEL",	"claude-haiku-4-5" },
	{ "sonnet",	"ANTHROPIC_DEFAULT_SONNET_MODEL",	"claude-sonnet-4-5" },
	{ "opus",	"ANTHROPIC_DEFAULT_OPUS_MODEL",		"claude-opus-4-1" },
};

const char *
subtype_model_id(const char *want, bool anthropic)
{
	const char *v;
	size_t i;

	for (i = 0; i < sizeof subtype_aliases / sizeof subtype_aliases[0]; i++) {
		if (strcmp(want, subtype_aliases[i].alias) != 0)
			continue;
		if ((v = getenv(subtype_aliases[i].env)) != NULL && v[0] != '\0')
			return v;
		return anthropic ? subtype_aliases[i].anthropic : NULL;
	}
	return strcmp(want, "inherit") == 0 ? NULL : want;
}

void
subtype_describe(const struct subtype *t, struct buf *out,
    bool (*held)(const struct subtype *, void *arg, struct buf *why), void *arg)
{
	struct buf why = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (; t != NULL; t = t->next) {
		buf_printf(out, "%s  (%s)\n    %s\n", t->name, t->source, t->description);
		if (t->tools != NULL) {
			buf_puts(out, "    tools:");
			for (i = 0; t->tools[i] != NULL; i++)
				subtype_describe_name(out, t->tools[i]);
			buf_puts(out, "\n");
		} else
			buf_printf(out, "    tools: %s\n", t->read_only ? "the read-only ones" : "the parent's");
		if (t->disallowed != NULL) {
			buf_puts(out, "    not:");
			for (i = 0; t->disallowed[i] != NULL; i++)
				subtype_describe_name(out, t->disallowed[i]);
			buf_puts(out, "\n");
		}
		buf_reset(&why);
		if (t->model != NULL && t->project && held != NULL && held(t, arg, &why))
			buf_printf(out, "    model: %s, waits for trust (%s); the session's model answers\n",
			    t->model, buf_cstr(&why));
		else if (t->model != NULL)
			buf_printf(out, "    model: %s\n", t->model);
		if (t->max_turns > 0)
			buf_printf(out, "    maxTurns: %d\n", t->max_turns);
		if (t->ignored != NULL)
			buf_printf(out, "    not honoured: %s\n", t->ignored);
	}
	buf_release(&why);
}
