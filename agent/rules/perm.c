/* Permission rules and the decision for one tool call: see perm.h. */
#include "autoconf.h"

#include <dirent.h>
#include <glob.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "hex.h"
#include "json.h"
#include "patch.h"
#include "pathglob.h"
#include "perm.h"
#include "sandbox.h"
#include "shparse.h"
#include "toolnames.h"
#include "xalloc.h"

#define PERM_RULE_MAX	4096	/* bytes in one rule */
#define PERM_SHORT_CMD	80	/* commands up to this long are remembered exactly */
#define PERM_LOOSE_MAX	1024	/* bytes of a command a loose "never" rule spells out */

/* What a tool's patterns are matched against; PERM_KIND_NONE: nothing (a rule that matches no call). */
enum perm_kind { PERM_KIND_BASH, PERM_KIND_PATH, PERM_KIND_PATCH, PERM_KIND_NONE,
	PERM_KIND_DOMAIN	/* web_fetch: "domain:host" patterns against the URL's host */
};

static const struct perm_tool {
	const char	*name;
	enum perm_kind	 kind;
	const char	*field;		/* the input member patterns look at */
	/*
	 * Plan mode lets it run although it asks as a command does: it only
	 * looks things up (the web tools), as Claude Code's plan mode may.
	 */
	bool		 looks_up;
} perm_tools[] = {
	{ "run_bash",	 PERM_KIND_BASH,  "command", false },
	{ "read_file",	 PERM_KIND_PATH,  "path", false },
	{ "list_dir",	 PERM_KIND_PATH,  "path", false },
	{ "glob",	 PERM_KIND_PATH,  "path", false },
	{ "grep",	 PERM_KIND_PATH,  "path", false },
	{ "edit_file",	 PERM_KIND_PATH,  "path", false },
	{ "write_file",	 PERM_KIND_PATH,  "path", false },
	{ "apply_patch", PERM_KIND_PATCH, "patch", false },
	/* Background shells: a rule covers the tool or not, patterns match nothing. */
	{ "bash_output", PERM_KIND_NONE,  "shell_id", false },
	{ "kill_shell",	 PERM_KIND_NONE,  "shell_id", false },
	{ "web_fetch",	 PERM_KIND_DOMAIN, "url", true },
	{ "web_search",	 PERM_KIND_NONE,  "query", true },
	{ "todo_write",	 PERM_KIND_NONE,  "todos", false },
	{ "exit_plan",	 PERM_KIND_NONE,  "plan", false },
	{ "ask_user",	 PERM_KIND_NONE,  "questions", false },
	{ "skill",	 PERM_KIND_NONE,  "name", false },
};

#define PERM_NTOOLS	(sizeof(perm_tools) / sizeof(perm_tools[0]))
#define PERM_TOOL_READ_FILE	1	/* its index in perm_tools */

/* Where a path pattern is anchored. */
enum perm_anchor {
	PERM_ANCHOR_NAME,	/* no '/': any one name along the path below the root */
	PERM_ANCHOR_ROOT,	/* at the workspace root */
	PERM_ANCHOR_ABS,	/* an absolute path ("//abs", "~/path") */
};

static const struct {
	const char	*name;
	enum perm_mode	 mode;
} perm_mode_names[] = {
	/* The first name of each mode is the one shown. */
	{ "ask",		PERM_ASK },
	{ "accept-edits",	PERM_ACCEPT_EDITS },
	{ "plan",		PERM_PLAN },
	{ "yolo",		PERM_YOLO },
	/* Claude Code's names. */
	{ "default",		PERM_ASK },
	{ "acceptEdits",	PERM_ACCEPT_EDITS },
	{ "bypassPermissions",	PERM_YOLO },
};

struct perm_rule {
	char			*text;		/* as written */
	unsigned		 tools;		/* bit i: perm_tools[i] */
	enum perm_kind		 kind;		/* PERM_KIND_PATH for patches too */
	enum perm_anchor	 anchor;	/* path patterns */
	char			*pattern;	/* NULL: any call */
	char			*alt;		/* run_bash: another glob that matches too */
	char			*mcp;		/* MCP: the tool's name, or "mcp__server__" for all of a server's */
};

struct perm_ruleset {
	struct perm_rule	*v;
	size_t			 n, cap;
};

struct perm_rules {
	struct perm_ruleset	 lists[3];
	char			*root;
};

/* Bumped by every change of any rules (see perm_rules_generation). */
static unsigned long perm_generation;

/* One way of naming a file: relative to the root and absolute. */
struct perm_path {
	char	*rel;		/* "." for the root; NULL when outside it or unknown */
	char	*abs;		/* NULL when unknown */
	bool	 read;		/* only read (a patch's "copy from"), not written */
};

/* What a call's patterns are matched against. */
struct perm_subject {
	const struct perm_tool	*tool;		/* NULL: a tool no pattern applies to */
	char			*whole;		/* run_bash: the squeezed command */
	struct shparse_parts	 parts;
	struct perm_path	*paths;		/* file tools: every name of every file */
	size_t			 npaths, cap;
	char			*refused;	/* apply_patch: why the patch cannot be read */
	const char		*mcp;		/* an MCP tool's name (mcp__server__tool), or NULL */
};

static const struct perm_tool *
perm_tool_find(const char *name)
{
	size_t i;

	name = toolname_tandem(name);
	for (i = 0; name != NULL && i < sizeof(perm_tools) / sizeof(perm_tools[0]); i++)
		if (strcmp(perm_tools[i].name, name) == 0)
			return &perm_tools[i];
	return NULL;
}

const char *
perm_mode_name(enum perm_mode mode)
{
	size_t i;

	for (i = 0; i < sizeof(perm_mode_names) / sizeof(perm_mode_names[0]); i++)
		if (perm_mode_names[i].mode == mode)
			return perm_mode_names[i].name;
	return "unknown";
}

int
perm_mode_parse(const char *name, enum perm_mode *out)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(perm_mode_names) / sizeof(perm_mode_names[0]); i++)
		if (strcmp(perm_mode_names[i].name, name) == 0) {
			*out = perm_mode_names[i].mode;
			return 0;
		}
	return -1;
}

const char *
perm_list_name(enum perm_list list)
{
	switch (list) {
	case PERM_LIST_ALLOW:
		return "allow";
	case PERM_LIST_ASK:
		return "ask";
	case PERM_LIST_DENY:
		return "deny";
	}
	return "?";
}

/*
 * Matching.
 */

static bool
perm_path_match(const char *pat, const struct perm_path *p)
{
	if (pat[0] == '/')
		return p->abs != NULL &&
		    pathglob_match_or_parent(PATHGLOB_PERM, pat, p->abs);
	if (p->rel == NULL)
		return false;
	if (strchr(pat, '/') == NULL)
		return pathglob_match_any_name(PATHGLOB_PERM, pat, p->rel);
	return pathglob_match_or_parent(PATHGLOB_PERM, pat, p->rel);
}

/*
 * Paths.
 */

/* The path with "", "." and ".." taken out; a relative path may keep leading "..". */
static char *
path_clean(const char *path)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	bool absolute = path[0] == '/';
	const char *p = path;
	size_t n, depth = 0;
	char *slash;

	if (absolute)
		buf_putc(&b, '/');
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (depth > 0) {
				slash = strrchr(b.data, '/');
				buf_truncate(&b, slash == NULL ? 0 :
				    slash == b.data ? 1 : (size_t)(slash - b.data));
				depth--;
			} else if (!absolute) {
				if (b.len > 0)
					buf_putc(&b, '/');
				buf_puts(&b, "..");
			}
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (b.len > 0 && b.data[b.len - 1] != '/')
				buf_putc(&b, '/');
			buf_append(&b, p, n);
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (b.len == 0)
		buf_putc(&b, '.');
	return buf_detach(&b, NULL);
}

/* The lexical names of path: relative to root when inside it, absolute when known. */
static void
path_names(const char *root, const char *path, struct perm_path *out)
{
	struct buf j = BUF_INIT(BUF_NOLIMIT);
	char *full;
	size_t n;

	out->rel = out->abs = NULL;
	if (root == NULL) {
		full = path_clean(path);
		if (full[0] == '/')
			out->abs = full;
		else if (strcmp(full, "..") == 0 || strncmp(full, "../", 3) == 0)
			free(full);
		else
			out->rel = full;
		return;
	}
	if (path[0] != '/') {
		buf_puts(&j, root);
		buf_putc(&j, '/');
	}
	buf_puts(&j, path);
	full = path_clean(buf_cstr(&j));
	buf_release(&j);
	if (sandbox_inside(root, full)) {
		n = strlen(root);
		while (full[n] == '/')
			n++;
		out->rel = xstrdup(full[n] != '\0' ? full + n : ".");
	}
	out->abs = full;
}

static void
subject_add_path(struct perm_subject *sub, char *rel, char *abs)
{
	if (sub->npaths == sub->cap) {
		sub->cap = sub->cap ? sub->cap * 2 : 4;
		sub->paths = xreallocarray(sub->paths, sub->cap, sizeof(*sub->paths));
	}
	sub->paths[sub->npaths].rel = rel;
	sub->paths[sub->npaths].abs = abs;
	sub->paths[sub->npaths].read = false;
	sub->npaths++;
}

/* Both names of one file: as written, and with symbolic links resolved. */
static void
subject_add_file(struct perm_subject *sub, const char *root, const char *path)
{
	struct buf err = BUF_INIT(1024);
	struct perm_path lex;
	char *abs, *rel;

	path_names(root, path, &lex);
	subject_add_path(sub, lex.rel, lex.abs);
	if (root == NULL || sandbox_resolve(root, path, false, &abs, &rel, &err) == -1) {
		buf_release(&err);
		return;
	}
	if (lex.rel != NULL && strcmp(rel, lex.rel) == 0) {
		free(abs);
		free(rel);
	} else
		subject_add_path(sub, rel, abs);
	buf_release(&err);
}

/*
 * The files a patch touches, read by tools/patch.c exactly as apply_patch
 * reads them: every name written (both ends of a rename, both names of a
 * plain diff whose headers differ), and copy sources as read.
 */
struct perm_patch_names {
	char	**names;
	bool	 *read;
	size_t	  n, cap;
};

static void
perm_patch_add(struct perm_patch_names *ns, const char *name, bool read)
{
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < ns->n; i++) {
		if (strcmp(ns->names[i], name) == 0) {
			ns->read[i] = ns->read[i] && read;
			return;
		}
	}
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 4;
		ns->names = xreallocarray(ns->names, ns->cap, sizeof(*ns->names));
		ns->read = xreallocarray(ns->read, ns->cap, sizeof(*ns->read));
	}
	ns->names[ns->n] = xstrdup(name);
	ns->read[ns->n++] = read;
}

/* 0, or -1 with the parser's sentence in err: the patch cannot be read. */
static int
perm_patch_names(const char *text, struct perm_patch_names *ns, struct buf *err)
{
	struct patch_plan plan;
	size_t i;

	memset(ns, 0, sizeof(*ns));
	if (patch_parse(text, strlen(text), &plan, err) != 0)
		return -1;
	for (i = 0; i < plan.nf; i++) {
		const struct patch_file *f = &plan.files[i];

		perm_patch_add(ns, f->new_name, false);
		perm_patch_add(ns, f->alt_name, false);
		perm_patch_add(ns, f->old_name, f->op == PATCH_COPY);
	}
	patch_plan_release(&plan);
	return 0;
}

static void
perm_patch_names_release(struct perm_patch_names *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		free(ns->names[i]);
	free(ns->names);
	free(ns->read);
}

/*
 * The host of a URL ("scheme://user@host:port/..."), lowercase; NULL if
 * none.  Escapes are decoded as the connection decodes them ("%65vil.com"
 * is evil.com), so that a rule reads the host the fetch goes to.
 */
static char *
perm_url_host(const char *url)
{
	const char *p, *e, *q, *colon;
	char *h, *c, *d;

	if (url == NULL || (p = strstr(url, "://")) == NULL)
		return NULL;
	p += 3;
	e = p + strcspn(p, "/?#");
	for (q = p; q < e; q++)
		if (*q == '@')
			p = q + 1;
	if (*p == '[') {
		for (q = p; q < e && *q != ']'; q++)
			;
		e = q < e ? q + 1 : e;
	} else if ((colon = memchr(p, ':', (size_t)(e - p))) != NULL)
		e = colon;
	if (e == p)
		return NULL;
	h = xstrndup(p, (size_t)(e - p));
	for (c = d = h; *c != '\0'; c++, d++) {
		if (c[0] == '%' && hex_digit(c[1]) >= 0 && hex_digit(c[2]) >= 0) {
			*d = (char)(hex_digit(c[1]) * 16 + hex_digit(c[2]));
			c += 2;
		} else
			*d = *c;
		if (*d >= 'A' && *d <= 'Z')
			*d = (char)(*d - 'A' + 'a');
	}
	*d = '\0';
	c = d;
	while (c > h && c[-1] == '.')
		*--c = '\0';
	return h;
}

/* Does "domain:" pattern pat ("example.com", or "*.example.com" for the names below it) match host? */
static bool
perm_domain_match(const char *pat, const char *host)
{
	size_t n, hl;

	if (host == NULL)
		return false;
	if (strcmp(pat, "*") == 0)
		return true;
	if (strncmp(pat, "*.", 2) != 0)
		return strcmp(pat, host) == 0;
	n = strlen(pat + 1);
	hl = strlen(host);
	return hl > n && strcmp(host + hl - n, pat + 1) == 0;
}

/*
 * The subject of one call.
 */

static void
subject_init(struct perm_subject *sub, const struct perm_rules *rules, const char *tool_name,
    const cJSON *input)
{
	struct buf err = BUF_INIT(4096);
	struct perm_patch_names ns;
	const char *v;
	size_t i;

	memset(sub, 0, sizeof(*sub));
	sub->tool = perm_tool_find(tool_name);
	if (tool_name != NULL && strncmp(tool_name, "mcp__", 5) == 0)
		sub->mcp = tool_name;
	if (sub->tool == NULL)
		return;
	v = json_str(input, sub->tool->field, NULL);
	switch (sub->tool->kind) {
	case PERM_KIND_BASH:
		sub->whole = shparse_squeeze(v != NULL ? v : "");
		shparse_split(v != NULL ? v : "", &sub->parts);
		break;
	case PERM_KIND_PATH:
		subject_add_file(sub, rules->root, v != NULL && *v != '\0' ? v : ".");
		break;
	case PERM_KIND_PATCH:
		if (perm_patch_names(v != NULL ? v : "", &ns, &err) != 0) {
			sub->refused = buf_detach(&err, NULL);
			break;
		}
		for (i = 0; i < ns.n; i++) {
			size_t k = sub->npaths;

			subject_add_file(sub, rules->root, ns.names[i]);
			for (; k < sub->npaths; k++)
				sub->paths[k].read = ns.read[i];
		}
		perm_patch_names_release(&ns);
		break;
	case PERM_KIND_DOMAIN:
		sub->whole = perm_url_host(v);
		break;
	case PERM_KIND_NONE:
		break;
	}
	buf_release(&err);
}

static void
subject_release(struct perm_subject *sub)
{
	size_t i;

	free(sub->whole);
	shparse_parts_release(&sub->parts);
	free(sub->refused);
	for (i = 0; i < sub->npaths; i++) {
		free(sub->paths[i].rel);
		free(sub->paths[i].abs);
	}
	free(sub->paths);
}

/* Does r name the subject's tool? */
static bool
rule_covers(const struct perm_rule *r, const struct perm_subject *sub)
{
	if (r->mcp != NULL && sub->mcp != NULL)
		return toolname_mcp_covers(r->mcp, sub->mcp);
	return sub->tool != NULL && (r->tools & (1u << (sub->tool - perm_tools))) != 0;
}

/* Does path pattern r match name p, wherever r is anchored? */
static bool
rule_path_match(const struct perm_rule *r, const struct perm_path *p)
{
	if (r->anchor == PERM_ANCHOR_ROOT && strchr(r->pattern, '/') == NULL)
		return p->rel != NULL && pathglob_match_or_parent(PATHGLOB_PERM, r->pattern, p->rel);
	return perm_path_match(r->pattern, p);
}

/* Deny and ask: does r match any part (loosely), the whole command, or any name? */
static bool
rule_hits_any(const struct perm_rule *r, const struct perm_subject *sub)
{
	/* A patch's copy source is read, not written: rules on reading cover it too. */
	bool covers = rule_covers(r, sub);
	bool reads = !covers && sub->tool != NULL && sub->tool->kind == PERM_KIND_PATCH &&
	    (r->tools & (1u << PERM_TOOL_READ_FILE)) != 0;
	size_t i;

	if (!covers && !reads)
		return false;
	if (r->pattern == NULL && covers)
		return true;
	switch (r->kind) {
	case PERM_KIND_BASH:
		if (shparse_rule_match(r->pattern, r->alt, sub->whole))
			return true;
		for (i = 0; i < sub->parts.n; i++)
			if (shparse_denies(r->pattern, r->alt, &sub->parts.v[i]))
				return true;
		return false;
	case PERM_KIND_PATH:
	case PERM_KIND_PATCH:
		for (i = 0; i < sub->npaths; i++)
			if ((covers || sub->paths[i].read) &&
			    (r->pattern == NULL || rule_path_match(r, &sub->paths[i])))
				return true;
		return false;
	case PERM_KIND_DOMAIN:
		return covers && perm_domain_match(r->pattern, sub->whole);
	case PERM_KIND_NONE:
		return false;
	}
	return false;
}

/* The first rule of set for the subject's tool, or NULL. */
static const struct perm_rule *
ruleset_first(const struct perm_ruleset *set, const struct perm_subject *sub)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (rule_covers(&set->v[i], sub))
			return &set->v[i];
	return NULL;
}

static const struct perm_rule *
ruleset_hit(const struct perm_ruleset *set, const struct perm_subject *sub)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (rule_hits_any(&set->v[i], sub))
			return &set->v[i];
	return NULL;
}

/* The allow rule that covers part i (bash) or name i (files), or NULL. */
static const struct perm_rule *
allow_covering(const struct perm_ruleset *set, const struct perm_subject *sub, size_t i)
{
	const struct perm_rule *r;
	size_t k;

	for (k = 0; k < set->n; k++) {
		r = &set->v[k];
		if (!rule_covers(r, sub) || r->pattern == NULL)
			continue;
		if (r->kind == PERM_KIND_DOMAIN) {
			if (perm_domain_match(r->pattern, sub->whole))
				return r;
		} else if (r->kind != PERM_KIND_BASH) {
			if (rule_path_match(r, &sub->paths[i]))
				return r;
		} else if ((!sub->parts.v[i].redirect || strchr(r->pattern, '>') != NULL) &&
		    shparse_allows(r->pattern, r->alt, &sub->parts.v[i]))
			return r;
	}
	return NULL;
}

static bool
perm_has_wildcard(const struct perm_rule *r)
{
	const char *p;

	if (r->alt != NULL)
		return true;
	for (p = r->pattern; *p != '\0'; p++) {
		if (p[0] == '\\' && p[1] == '*')
			p++;
		else if (*p == '*')
			return true;
	}
	return false;
}

/* The allow rule that allows the whole call at once (a bare rule, or an exact command), or NULL. */
static const struct perm_rule *
allow_whole(const struct perm_ruleset *set, const struct perm_subject *sub)
{
	const struct perm_rule *r;
	size_t k;

	for (k = 0; k < set->n; k++) {
		r = &set->v[k];
		if (!rule_covers(r, sub))
			continue;
		/*
		 * A bare rule, or one without wildcards naming the whole command
		 * (compared as a pattern, so "\*" stands for a star).
		 */
		if (r->pattern == NULL || (r->kind == PERM_KIND_BASH &&
		    !perm_has_wildcard(r) && shparse_glob(r->pattern, sub->whole)))
			return r;
	}
	return NULL;
}

/* How many parts (bash) or names (files) a subject has. */
static size_t
subject_count(const struct perm_subject *sub)
{
	if (sub->tool->kind == PERM_KIND_DOMAIN)
		return sub->whole != NULL ? 1 : 0;
	return sub->tool->kind == PERM_KIND_BASH ? sub->parts.n : sub->npaths;
}

/* Is every part or name covered by an allow rule?  The rules used go to why. */
static bool
allowed(const struct perm_ruleset *set, const struct perm_subject *sub, struct buf *why)
{
	const struct perm_rule **used;
	const struct perm_rule *r;
	size_t i, k, n, nused = 0;
	bool ok;

	if (sub->tool == NULL && sub->mcp == NULL)
		return false;
	if ((r = allow_whole(set, sub)) != NULL) {
		buf_printf(why, "allowed by rule %s", r->text);
		return true;
	}
	if (sub->tool == NULL)
		return false;
	n = subject_count(sub);
	if (n == 0 || sub->parts.opaque)
		return false;
	used = xcalloc(n, sizeof(*used));
	for (i = 0, ok = true; ok && i < n; i++) {
		/* Reads need no allow rule (a patch's copy source): only deny and ask rules. */
		if (sub->tool->kind == PERM_KIND_PATCH && sub->paths[i].read)
			continue;
		r = allow_covering(set, sub, i);
		ok = r != NULL;
		for (k = 0; ok && k < nused && used[k] != r; k++)
			;
		if (ok && k == nused)
			used[nused++] = r;
	}
	if (ok) {
		buf_printf(why, "allowed by rule%s ", nused > 1 ? "s" : "");
		for (k = 0; k < nused; k++)
			buf_printf(why, "%s%s", k > 0 ? ", " : "", used[k]->text);
	}
	free(used);
	return ok;
}

enum perm_verdict
perm_check(const struct perm_rules *rules, enum perm_mode mode, const char *tool_name,
    enum tool_class cls, const cJSON *input, struct buf *why)
{
	struct buf scratch = BUF_INIT(4096);
	struct perm_subject sub;
	const struct perm_rule *r;
	enum perm_verdict v;

	if (why == NULL)
		why = &scratch;
	subject_init(&sub, rules, tool_name, input);
	if (sub.refused != NULL) {
		/* no rule can be checked against files nobody can name */
		buf_printf(why, "denied: the patch cannot be read (%s)", sub.refused);
		v = PERM_VERDICT_DENY;
	} else if ((r = ruleset_hit(&rules->lists[PERM_LIST_DENY], &sub)) != NULL) {
		buf_printf(why, "denied by rule %s", r->text);
		v = PERM_VERDICT_DENY;
	} else if (sub.parts.opaque &&
	    (r = ruleset_first(&rules->lists[PERM_LIST_DENY], &sub)) != NULL) {
		/* What cannot be seen cannot be shown to pass the deny rules. */
		buf_printf(why, "denied: the command is unbalanced or nests too deeply to check it "
		    "against rule %s",
		    r->text);
		v = PERM_VERDICT_DENY;
	} else if (mode == PERM_PLAN && cls != TOOL_READ_ONLY &&
	    (sub.tool == NULL || !sub.tool->looks_up)) {
		buf_puts(why, cls == TOOL_WRITE ? "plan mode: no changes are made (finish the plan, "
		    "then ask for its approval with exit_plan)" :
		    "plan mode: no commands are run");
		v = PERM_VERDICT_DENY;
	} else if (sub.parts.unsure &&
	    ((r = ruleset_first(&rules->lists[PERM_LIST_DENY], &sub)) != NULL ||
	    (r = ruleset_first(&rules->lists[PERM_LIST_ASK], &sub)) != NULL)) {
		/* A program named by an expansion is only known once it runs: a person decides. */
		buf_printf(why, "the command runs a program named by an expansion, which rule %s "
		    "cannot be checked against", r->text);
		v = PERM_VERDICT_ASK;
	} else if (mode != PERM_YOLO &&
	    (r = ruleset_hit(&rules->lists[PERM_LIST_ASK], &sub)) != NULL) {
		buf_printf(why, "rule %s asks for approval", r->text);
		v = PERM_VERDICT_ASK;
	} else if (allowed(&rules->lists[PERM_LIST_ALLOW], &sub, why))
		v = PERM_VERDICT_ALLOW;
	else if (cls == TOOL_READ_ONLY) {
		buf_puts(why, "read-only tools are allowed");
		v = PERM_VERDICT_ALLOW;
	} else if (mode == PERM_YOLO) {
		buf_puts(why, "yolo mode: everything not denied is allowed");
		v = PERM_VERDICT_ALLOW;
	} else if (cls == TOOL_WRITE && mode == PERM_ACCEPT_EDITS) {
		buf_puts(why, "accept-edits mode: edits are allowed");
		v = PERM_VERDICT_ALLOW;
	} else {
		buf_printf(why, "%s mode: %s need approval", perm_mode_name(mode),
		    cls == TOOL_WRITE ? "changes" : "commands");
		v = PERM_VERDICT_ASK;
	}
	subject_release(&sub);
	buf_release(&scratch);
	return v;
}

bool
perm_deny_unsure(const struct perm_rules *rules, const char *tool_name, const cJSON *input)
{
	struct perm_subject sub;
	bool unsure;

	subject_init(&sub, rules, tool_name, input);
	unsure = (sub.parts.unsure || sub.parts.opaque) &&
	    ruleset_first(&rules->lists[PERM_LIST_DENY], &sub) != NULL;
	subject_release(&sub);
	return unsure;
}

/* Does a deny rule of a file tool (any of them) cover path, by its name or its real path? */
static bool
perm_word_denied(const struct perm_rules *rules, const char *path)
{
	const struct perm_ruleset *set = &rules->lists[PERM_LIST_DENY];
	struct perm_subject sub;
	size_t i, k;
	bool hit = false;

	if (path[0] == '\0')
		return false;
	memset(&sub, 0, sizeof sub);
	subject_add_file(&sub, rules->root, path);
	for (i = 0; i < set->n && !hit; i++) {
		if (set->v[i].kind != PERM_KIND_PATH || set->v[i].mcp != NULL)
			continue;
		for (k = 0; k < sub.npaths && !hit; k++)
			hit = set->v[i].pattern == NULL || rule_path_match(&set->v[i], &sub.paths[k]);
	}
	subject_release(&sub);
	return hit;
}

#define PERM_DIR_ENTRIES	256

/*
 * Does a deny rule cover what is in the directory path names: one of its
 * entries (the first PERM_DIR_ENTRIES), or a name a command would make
 * there: "cp x secret", "mv x secret/" or "rm -rf secret" when a rule
 * covers every file below secret.
 */
static bool
perm_dir_denied(const struct perm_rules *rules, const char *path)
{
	struct buf dir = BUF_INIT(BUF_NOLIMIT), child = BUF_INIT(BUF_NOLIMIT);
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	bool hit = false;
	DIR *d = NULL;

	if (path[0] == '/' || rules->root == NULL)
		buf_puts(&dir, path);
	else
		buf_printf(&dir, "%s/%s", rules->root, path);
	if (stat(buf_cstr(&dir), &st) == 0 && S_ISDIR(st.st_mode)) {
		buf_printf(&child, "%s/tandem-new-name", buf_cstr(&dir));
		hit = perm_word_denied(rules, buf_cstr(&child));
		if (!hit)
			d = opendir(buf_cstr(&dir));
	}
	while (d != NULL && !hit && n++ < PERM_DIR_ENTRIES && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		buf_reset(&child);
		buf_printf(&child, "%s/%s", buf_cstr(&dir), de->d_name);
		hit = perm_word_denied(rules, buf_cstr(&child));
	}
	if (d != NULL)
		closedir(d);
	buf_release(&dir);
	buf_release(&child);
	return hit;
}

/*
 * Does path lead through a process's view of the file system under /proc
 * (cwd, root, a descriptor: "/proc/self/cwd/.env")?  What it names is
 * the command's, not found by name.
 */
static bool
perm_proc_link(const char *path)
{
	char *c = path_clean(path), *p;
	size_t n;
	bool hit = false;

	if (strncmp(c, "/proc/", 6) == 0)
		for (p = c + 6; !hit && *p != '\0'; p += n + (p[n] == '/')) {
			n = strcspn(p, "/");
			hit = (n == 3 && (strncmp(p, "cwd", 3) == 0 || strncmp(p, "exe", 3) == 0)) ||
			    (n == 4 && strncmp(p, "root", 4) == 0) ||
			    (n == 2 && strncmp(p, "fd", 2) == 0) ||
			    (n == 9 && strncmp(p, "map_files", 9) == 0);
		}
	free(c);
	return hit;
}

/* w as seen from the directory dir (NULL: the root): dir/w when w is relative. */
static char *
perm_in_dir(const char *dir, const char *w)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (dir == NULL || w[0] == '/' || w[0] == '~' || w[0] == '\0')
		return xstrdup(w);
	buf_printf(&b, "%s/%s", dir, w);
	return buf_detach(&b, NULL);
}

/*
 * A word taken as paths, from the directory dir (NULL: the root): itself,
 * what follows a '=' ("--file=x"), what a glob matches.
 */
static bool
perm_word_touches(const struct perm_rules *rules, const char *dir, const char *word,
    unsigned flags)
{
	char *w = perm_in_dir(dir, word), *eqw;
	const char *eq = strchr(word, '=');
	glob_t g;
	size_t i;
	bool hit;

	eqw = eq != NULL ? perm_in_dir(dir, eq + 1) : NULL;
	hit = perm_word_denied(rules, w) || perm_proc_link(w) || perm_dir_denied(rules, w) ||
	    (eqw != NULL && (perm_word_denied(rules, eqw) || perm_proc_link(eqw)));
	free(eqw);
	if (hit || (flags & SHPARSE_W_EXPAND) == 0)
		goto out;
	/* A variable or a substitution: what it names is only known when bash runs it. */
	if (strchr(w, '$') != NULL || strchr(w, '`') != NULL) {
		hit = true;
		goto out;
	}
	/* A directory whose name holds a glob's characters is not globbed through. */
	if (dir != NULL && strpbrk(dir, "*?[{\\") != NULL)
		goto out;
	memset(&g, 0, sizeof g);
	if (glob(w, GLOB_NOSORT | GLOB_BRACE | GLOB_TILDE, NULL, &g) != 0) {
		globfree(&g);
		goto out;
	}
	for (i = 0; i < g.gl_pathc && !hit; i++)
		hit = perm_word_denied(rules, g.gl_pathv[i]) || perm_proc_link(g.gl_pathv[i]);
	globfree(&g);
out:
	free(w);
	return hit;
}

/* The file tools that read (read_file, list_dir, glob, grep): the bits of a Read rule. */
#define PERM_READ_TOOLS	(0xfu << PERM_TOOL_READ_FILE)

/*
 * Could path pattern pat (its '/'s separating names, "**" any run of them)
 * match dir, something in a directory above dir, or something below it?
 * Decided name by name from the front, without looking at the disk.
 */
static bool
perm_pattern_reaches(const char *pat, const char *dir)
{
	struct buf pc = BUF_INIT(BUF_NOLIMIT), dc = BUF_INIT(BUF_NOLIMIT);
	size_t pn, dn;
	bool reach = true;

	while (*pat == '/')
		pat++;
	for (;;) {
		if (*dir == '/')
			dir++;
		else if (dir[0] == '.' && (dir[1] == '/' || dir[1] == '\0'))
			dir++;
		else
			break;
	}
	while (*dir != '\0' && *pat != '\0') {
		pn = strcspn(pat, "/");
		dn = strcspn(dir, "/");
		buf_reset(&pc);
		buf_append(&pc, pat, pn);
		buf_reset(&dc);
		buf_append(&dc, dir, dn);
		/* "**" or a brace may stand for any number of names: it may reach below. */
		if (strstr(buf_cstr(&pc), "**") != NULL || strchr(buf_cstr(&pc), '{') != NULL)
			break;
		if (!pathglob_matchs(PATHGLOB_PERM, buf_cstr(&pc), buf_cstr(&dc))) {
			reach = false;
			break;
		}
		for (pat += pn; *pat == '/'; pat++)
			;
		for (dir += dn; *dir == '/'; dir++)
			;
	}
	buf_release(&pc);
	buf_release(&dc);
	return reach;
}

/*
 * Does a Read deny rule of rules cover a file at or below the directory
 * path (relative to the root, or absolute), by its name or its real path?
 * Asked of the folders a program reads everything below (grep -r, tar c):
 * decided from the patterns alone.  The rule, or NULL.
 */
static const struct perm_rule *
perm_tree_denied(const struct perm_rules *rules, const char *path)
{
	const struct perm_ruleset *set = &rules->lists[PERM_LIST_DENY];
	const struct perm_rule *r, *hit = NULL;
	const struct perm_path *p;
	struct perm_subject sub;
	size_t i, k;

	memset(&sub, 0, sizeof sub);
	subject_add_file(&sub, rules->root, path[0] != '\0' ? path : ".");
	for (i = 0; i < set->n && hit == NULL; i++) {
		r = &set->v[i];
		if (r->kind != PERM_KIND_PATH || r->mcp != NULL ||
		    (r->tools & PERM_READ_TOOLS) == 0)
			continue;
		for (k = 0; k < sub.npaths && hit == NULL; k++) {
			p = &sub.paths[k];
			if (r->pattern == NULL)
				hit = r;
			else if (r->pattern[0] == '/') {
				if (p->abs != NULL && perm_pattern_reaches(r->pattern, p->abs))
					hit = r;
			} else if (p->rel == NULL) {
				/* Outside the root: only a folder holding it holds its files. */
				if (p->abs != NULL && rules->root != NULL &&
				    sandbox_inside(p->abs, rules->root))
					hit = r;
			} else if ((r->anchor == PERM_ANCHOR_NAME &&
			    strchr(r->pattern, '/') == NULL) ||
			    perm_pattern_reaches(r->pattern, p->rel))
				hit = r;	/* a name anywhere ("*.key"), or a path reached */
		}
	}
	subject_release(&sub);
	return hit;
}

/*
 * The folder word w (NULL: the current folder) of a program that reads all
 * below it, from the directory dir (NULL: the root): the Read deny rule
 * that may cover a file there, through a glob's matches too, or NULL.  A
 * revision (git grep's "HEAD": no such file) reads the current folder.
 */
static const struct perm_rule *
perm_tree_word_denied(const struct perm_rules *rules, const char *dir,
    const struct shparse_tree *tw)
{
	const struct perm_rule *r = NULL;
	struct stat st;
	char *p, *own = NULL, *wild;
	bool pattern;
	glob_t g;
	size_t i;

	/* Its own pattern (a '*' in "src/x*", git's ":(glob)..."): the folder before it. */
	wild = tw->path != NULL ? strpbrk(tw->path, "*?[") : NULL;
	if (tw->own_glob && tw->path != NULL && (tw->path[0] == ':' || wild != NULL)) {
		own = xstrdup(tw->path[0] == ':' ? "" : tw->path);
		if (tw->path[0] != ':')
			own[wild - tw->path] = '\0';
		if ((wild = strrchr(own, '/')) != NULL)
			wild[wild == own] = '\0';
		else
			own[0] = '\0';
	}
	pattern = own != NULL;
	p = perm_in_dir(dir, own != NULL ? (own[0] != '\0' ? own : ".") :
	    tw->path != NULL ? tw->path : ".");
	free(own);
	if (tw->rev && tw->path != NULL && !pattern) {
		char *full = perm_in_dir(p[0] != '/' ? rules->root : NULL, p);

		if (stat(full, &st) == -1) {
			free(p);
			p = perm_in_dir(dir, ".");
		}
		free(full);
	}
	if ((tw->flags & SHPARSE_W_EXPAND) && strpbrk(p, "*?[{") != NULL &&
	    (dir == NULL || strpbrk(dir, "*?[{\\") == NULL)) {
		memset(&g, 0, sizeof g);
		if (glob(p, GLOB_NOSORT | GLOB_BRACE | GLOB_TILDE, NULL, &g) == 0)
			for (i = 0; i < g.gl_pathc && r == NULL; i++)
				r = perm_tree_denied(rules, g.gl_pathv[i]);
		globfree(&g);
	}
	if (r == NULL)
		r = perm_tree_denied(rules, p);
	free(p);
	return r;
}

#define PERM_MAX_DIRS	16

/*
 * The directories a command's parts move to (cd DIR, pushd DIR, and a
 * program's -C DIR, --chdir=DIR, --directory=DIR), each taken from the
 * root and from those before it, into dirs (n of them, each the caller's).
 * False when one is known only when bash runs it (cd -, popd, cd "$d", or
 * too many), so that the command's relative names cannot be checked.
 */
static bool
perm_command_dirs(const struct shparse_parts *parts, char **dirs, size_t *n)
{
	const struct shparse_part *pt;
	const char *w, *t;
	size_t i, k, d, have;
	bool cd;

	*n = 0;
	for (i = 0; i < parts->n; i++) {
		pt = &parts->v[i];
		for (k = 0, cd = false; k < pt->nwords; k++) {
			w = pt->words[k].plain;
			if (pt->words[k].flags & SHPARSE_W_REDIR)
				continue;
			t = NULL;
			if (cd)
				t = w;
			else if ((strcmp(w, "-C") == 0 || strcmp(w, "--chdir") == 0 ||
			    strcmp(w, "--directory") == 0) && k + 1 < pt->nwords)
				t = pt->words[k + 1].plain;
			else if (strncmp(w, "--chdir=", 8) == 0 || strncmp(w, "--directory=", 12) == 0)
				t = strchr(w, '=') + 1;
			if (!cd && (strcmp(w, "cd") == 0 || strcmp(w, "pushd") == 0 ||
			    strcmp(w, "popd") == 0)) {
				if (k + 1 == pt->nwords || strcmp(w, "popd") == 0)
					return false;
				cd = true;
				continue;
			}
			if (t == NULL)
				continue;
			if (strcmp(t, "-") == 0 || strchr(t, '$') != NULL || strchr(t, '`') != NULL ||
			    t[0] == '~')
				return false;
			if (t[0] == '-')	/* cd -P DIR */
				continue;
			cd = false;
			have = *n;
			for (d = 0; d <= have; d++) {
				if (*n == PERM_MAX_DIRS)
					return false;
				dirs[(*n)++] = perm_in_dir(d < have ? dirs[d] : NULL, t);
			}
		}
	}
	return true;
}

/* The deny rules of the file tools (a Read or Edit rule), or NULL. */
static const struct perm_rule *
perm_path_deny_rule(const struct perm_rules *rules)
{
	const struct perm_ruleset *set = &rules->lists[PERM_LIST_DENY];
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i].kind == PERM_KIND_PATH && set->v[i].mcp == NULL)
			return &set->v[i];
	return NULL;
}

bool
perm_command_touches_denied(const struct perm_rules *rules, const cJSON *input, struct buf *why)
{
	const struct perm_rule *r = perm_path_deny_rule(rules), *tr = NULL;
	struct shparse_tree trees[SHPARSE_TREES_MAX];
	struct perm_subject sub;
	const struct shparse_part *pt;
	char *dirs[PERM_MAX_DIRS];
	const char *w, *sp, *folder = NULL;
	size_t i, k, d, ndirs = 0;
	int nt, t;
	bool hit = false;

	if (r == NULL)
		return false;
	subject_init(&sub, rules, "run_bash", input);
	/* A name after a cd is read from there too ("cd sub && cat ../.env"). */
	hit = sub.parts.opaque || !perm_command_dirs(&sub.parts, dirs, &ndirs);
	for (i = 0; !hit && i < sub.parts.n; i++) {
		pt = &sub.parts.v[i];
		hit = pt->unsure;
		for (k = 0; !hit && k < pt->nwords; k++) {
			w = pt->words[k].plain;
			/* a redirection: its operator, a space and its target */
			if ((pt->words[k].flags & SHPARSE_W_REDIR) && (sp = strchr(w, ' ')) != NULL)
				w = sp + 1;
			for (d = 0; !hit && d <= ndirs; d++)
				hit = perm_word_touches(rules, d < ndirs ? dirs[d] : NULL, w,
				    pt->words[k].flags);
		}
		/* A program that reads a whole folder by itself (grep -r KEY ., rg KEY). */
		if (!hit && (nt = shparse_tree_reads(pt, trees, SHPARSE_TREES_MAX)) == -1)
			hit = true;
		for (t = 0; !hit && t < nt; t++)
			for (d = 0; tr == NULL && d <= ndirs; d++)
				if ((tr = perm_tree_word_denied(rules, d < ndirs ? dirs[d] : NULL,
				    &trees[t])) != NULL) {
					hit = true;
					folder = trees[t].path != NULL ? trees[t].path : ".";
				}
	}
	for (d = 0; d < ndirs; d++)
		free(dirs[d]);
	if (hit && why != NULL && tr != NULL)
		buf_printf(why, "it reads everything below the folder %s, where a deny rule "
		    "such as %s may cover files, which the sandbox does not hide from it", folder,
		    tr->text);
	else if (hit && why != NULL)
		buf_printf(why, "it may touch a file a deny rule such as %s covers, which the sandbox "
		    "does not hide from it", r->text);
	subject_release(&sub);
	return hit;
}

/*
 * Rules.
 */

struct perm_rules *
perm_rules_new(void)
{
	return xcalloc(1, sizeof(struct perm_rules));
}

static void
perm_rule_release(struct perm_rule *r)
{
	free(r->text);
	free(r->pattern);
	free(r->alt);
	free(r->mcp);
}

void
perm_rules_free(struct perm_rules *rules)
{
	size_t l, i;

	if (rules == NULL)
		return;
	for (l = 0; l < 3; l++) {
		for (i = 0; i < rules->lists[l].n; i++)
			perm_rule_release(&rules->lists[l].v[i]);
		free(rules->lists[l].v);
	}
	free(rules->root);
	free(rules);
	perm_generation++;
}

const char *
perm_rules_root(const struct perm_rules *rules)
{
	return rules->root;
}

void
perm_rules_set_root(struct perm_rules *rules, const char *root)
{
	free(rules->root);
	rules->root = root != NULL ? xstrdup(root) : NULL;
	perm_generation++;
}

/* A path pattern without "./" in front, doubled slashes or a trailing slash. */
static char *
perm_path_pattern(const char *p, size_t n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	while (n >= 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		n -= 2;
		while (n > 0 && *p == '/') {
			p++;
			n--;
		}
	}
	for (i = 0; i < n; i++)
		if (!(p[i] == '/' && b.len > 0 && b.data[b.len - 1] == '/'))
			buf_putc(&b, p[i]);
	if (b.len > 1 && b.data[b.len - 1] == '/')
		buf_truncate(&b, b.len - 1);
	/* The root itself, or "/": everything below it. */
	if (b.len == 0 || (b.len == 1 && b.data[0] == '.')) {
		buf_reset(&b);
		buf_puts(&b, "**");
	} else if (b.len == 1 && b.data[0] == '/')
		buf_puts(&b, "**");
	return buf_detach(&b, NULL);
}

static int perm_error(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));

static int
perm_error(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The tools a rule name covers and their kind; -1 for a name that is no
 * tool.  Claude Code's names cover what they do there (toolnames.h); a
 * Claude Code tool tandem lacks covers nothing, so its settings load whole.
 */
static int
perm_rule_tools(const char *name, unsigned *tools, enum perm_kind *kind)
{
	const struct toolname *cc = toolname_find(name);
	const struct perm_tool *t;
	const char *covers[TOOLNAME_COVERS];
	size_t k;

	*tools = 0;
	*kind = PERM_KIND_NONE;
	if (cc != NULL) {
		covers[0] = cc->tandem;
		for (k = 1; k < TOOLNAME_COVERS; k++)
			covers[k] = cc->tandem != NULL ? cc->also[k - 1] : NULL;
		for (k = 0; k < TOOLNAME_COVERS && covers[k] != NULL; k++) {
			if ((t = perm_tool_find(covers[k])) == NULL)
				continue;
			*tools |= 1u << (t - perm_tools);
			*kind = t->kind == PERM_KIND_BASH || t->kind == PERM_KIND_DOMAIN ? t->kind :
			    PERM_KIND_PATH;
		}
		return 0;
	}
	if ((t = perm_tool_find(name)) != NULL && strcmp(t->name, name) == 0) {
		*tools = 1u << (t - perm_tools);
		*kind = t->kind == PERM_KIND_BASH || t->kind == PERM_KIND_DOMAIN ? t->kind :
		    PERM_KIND_PATH;
		return 0;
	}
	/* Claude Code's MCP tools: tandem has none of them yet. */
	return toolname_is_mcp(name) ? 0 : -1;
}

/* s with the characters special to patterns escaped by a backslash. */
static void
perm_escape(struct buf *out, const char *s, const char *special)
{
	for (; *s != '\0'; s++) {
		if (strchr(special, *s) != NULL)
			buf_putc(out, '\\');
		buf_putc(out, *s);
	}
}

/*
 * A path pattern s (n bytes, trimmed) with its anchor, as Claude Code
 * reads them: "//abs" absolute, "~/path" below $HOME, "/path" at the
 * project root, "./path" and "path" from the current directory, which for
 * tandem's tools is the workspace root.
 */
static int
perm_rule_path(struct perm_rule *r, const char *s, size_t n, struct buf *err)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *home;

	if (n >= 2 && s[0] == '/' && s[1] == '/') {
		r->anchor = PERM_ANCHOR_ABS;
		r->pattern = perm_path_pattern(s + 1, n - 1);
		return 0;
	}
	if (s[0] == '~' && (n == 1 || s[1] == '/')) {
		home = getenv("HOME");
		if (home == NULL || home[0] != '/')
			return perm_error(err, "rule \"%s\" starts with ~ but HOME is not an "
			    "absolute path", r->text);
		perm_escape(&b, home, "*?[]\\");
		buf_putc(&b, '/');
		buf_append(&b, s + 1, n - 1);
		r->anchor = PERM_ANCHOR_ABS;
		r->pattern = perm_path_pattern(buf_cstr(&b), b.len);
		buf_release(&b);
		return 0;
	}
	if (s[0] == '/') {
		r->anchor = PERM_ANCHOR_ROOT;
		while (n > 0 && *s == '/') {
			s++;
			n--;
		}
		r->pattern = perm_path_pattern(s, n);
		return 0;
	}
	r->pattern = perm_path_pattern(s, n);
	r->anchor = n >= 2 && s[0] == '.' && s[1] == '/' ? PERM_ANCHOR_ROOT :
	    strchr(r->pattern, '/') != NULL ? PERM_ANCHOR_ROOT : PERM_ANCHOR_NAME;
	return 0;
}

/*
 * Claude Code's MCP rules: mcp__server (every tool of the server),
 * mcp__server__* (the same) and mcp__server__tool.  1: no MCP rule; 0 with
 * r->mcp set; -1 with err.
 */
static int
perm_rule_mcp(struct perm_rule *r, const char *name, const char *s, size_t n, struct buf *err)
{
	if (!toolname_is_mcp(name))
		return 1;
	if (memchr(s, '(', n) != NULL)
		return perm_error(err, "rule \"%.*s\": MCP rules take no pattern; write %s",
		    (int)n, s, name);
	r->mcp = toolname_mcp_scope(name);
	r->text = xstrndup(s, n);
	return 0;
}

static int
perm_rule_parse(const char *rule, struct perm_rule *r, struct buf *err)
{
	const char *s = rule, *e, *open, *p;
	size_t n, nlen;
	char name[128], *raw;

	memset(r, 0, sizeof(*r));
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);
	if (n == 0)
		return perm_error(err, "a rule is empty; write tool or tool(pattern)");
	if (n > PERM_RULE_MAX)
		return perm_error(err, "a rule is longer than %d bytes", PERM_RULE_MAX);
	for (p = s; p < e; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return perm_error(err, "rule \"%.*s\" holds a control character", (int)n, s);
	open = memchr(s, '(', n);
	nlen = open != NULL ? (size_t)(open - s) : n;
	while (nlen > 0 && (s[nlen - 1] == ' ' || s[nlen - 1] == '\t'))
		nlen--;
	if (nlen == 0 || nlen >= sizeof(name) || strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") + (strncmp(s, "mcp__", 5) == 0 &&
	    s[nlen - 1] == '*') < nlen)
		return perm_error(err, "\"%.*s\" is not a rule; write tool or tool(pattern)",
		    (int)n, s);
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	if (perm_rule_mcp(r, name, s, n, err) != 1)
		return r->mcp != NULL ? 0 : -1;
	if (perm_rule_tools(name, &r->tools, &r->kind) == -1)
		return perm_error(err, "rule \"%.*s\" names an unknown tool \"%s\"", (int)n, s,
		    name);
	r->text = xstrndup(s, n);
	if (open == NULL)
		return 0;
	if (e[-1] != ')') {
		buf_printf(err, "rule \"%s\" lacks its closing parenthesis", r->text);
		goto fail;
	}
	for (s = open + 1, e--; s < e && (*s == ' ' || *s == '\t'); s++)
		;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s) {
		buf_printf(err, "rule \"%s\" has an empty pattern; write %s for any call",
		    r->text, name);
		goto fail;
	}
	if (r->kind == PERM_KIND_NONE) {
		r->pattern = xstrndup(s, (size_t)(e - s));
		return 0;
	}
	if (r->kind == PERM_KIND_DOMAIN) {
		char *c;

		if ((size_t)(e - s) <= 7 || strncmp(s, "domain:", 7) != 0) {
			buf_printf(err, "rule \"%s\": a WebFetch pattern is domain:NAME "
			    "(WebFetch(domain:example.com), or domain:*.example.com for the names "
			    "below it)", r->text);
			goto fail;
		}
		r->pattern = xstrndup(s + 7, (size_t)(e - s) - 7);
		for (c = r->pattern; *c != '\0'; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		return 0;
	}
	if (r->kind != PERM_KIND_BASH) {
		if (perm_rule_path(r, s, (size_t)(e - s), err) == -1)
			goto fail;
		return 0;
	}
	raw = xstrndup(s, (size_t)(e - s));
	n = strlen(raw);
	/* Claude Code's "cmd:*" is "cmd *". */
	if (n >= 2 && strcmp(raw + n - 2, ":*") == 0 && (n < 3 || raw[n - 3] != '\\'))
		raw[n - 2] = ' ';
	r->pattern = shparse_squeeze(raw);
	free(raw);
	/* "cmd *" also matches cmd alone: "rm *" covers a bare "rm". */
	n = strlen(r->pattern);
	if (n >= 3 && strcmp(r->pattern + n - 2, " *") == 0 && r->pattern[n - 3] != '\\')
		r->alt = xstrndup(r->pattern, n - 2);
	return 0;
fail:
	perm_rule_release(r);
	memset(r, 0, sizeof(*r));
	return -1;
}

static bool
perm_rule_same(const struct perm_rule *a, const struct perm_rule *b)
{
	if (a->mcp != NULL || b->mcp != NULL)
		return a->mcp != NULL && b->mcp != NULL && strcmp(a->mcp, b->mcp) == 0;
	/* Rules for tools tandem lacks differ by the name they give. */
	if (a->kind == PERM_KIND_NONE || b->kind == PERM_KIND_NONE)
		return strcmp(a->text, b->text) == 0;
	if (a->tools != b->tools || a->kind != b->kind || a->anchor != b->anchor ||
	    (a->pattern == NULL) != (b->pattern == NULL) ||
	    (a->alt == NULL) != (b->alt == NULL))
		return false;
	return a->pattern == NULL || (strcmp(a->pattern, b->pattern) == 0 &&
	    (a->alt == NULL || strcmp(a->alt, b->alt) == 0));
}

unsigned long
perm_rules_generation(void)
{
	return perm_generation;
}

static void
ruleset_push(struct perm_ruleset *set, struct perm_rule *r)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (perm_rule_same(&set->v[i], r)) {
			perm_rule_release(r);
			return;
		}
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 8;
		set->v = xreallocarray(set->v, set->cap, sizeof(*set->v));
	}
	set->v[set->n++] = *r;
	perm_generation++;
}

bool
perm_rule_changed(const char *rule, struct buf *note)
{
	struct buf err = BUF_INIT(1024);
	struct perm_rule r;
	const char *in, *end;
	size_t n;
	bool changed = false;

	if (rule == NULL || perm_rule_parse(rule, &r, &err) == -1) {
		buf_release(&err);
		return false;
	}
	if (r.kind != PERM_KIND_PATH || r.pattern == NULL)
		goto out;
	in = strchr(r.text, '(') + 1;
	in += strspn(in, " \t");
	end = r.text + strlen(r.text) - 1;
	while (end > in && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	n = (size_t)(end - in);
	if (n >= 1 && in[0] == '/' && (n == 1 || in[1] != '/')) {
		buf_printf(note, "rule %s: a leading / now means the project root, as in Claude "
		    "Code (it meant the absolute path before); write %.*s(/%.*s) for the absolute "
		    "path", r.text, (int)(strchr(r.text, '(') - r.text), r.text, (int)n, in);
		changed = true;
	} else if (n > 2 && in[0] == '.' && in[1] == '/' && memchr(in + 2, '/', n - 2) == NULL) {
		buf_printf(note, "rule %s: %.*s now names only what is at the project root, as in "
		    "Claude Code (it matched that name at any depth before); write %.*s(%.*s) for "
		    "any depth", r.text, (int)n, in, (int)(strchr(r.text, '(') - r.text), r.text,
		    (int)(n - 2), in + 2);
		changed = true;
	}
out:
	perm_rule_release(&r);
	buf_release(&err);
	return changed;
}

int
perm_rules_add(struct perm_rules *rules, enum perm_list list, const char *rule, struct buf *err)
{
	struct perm_rule r;

	if ((unsigned)list > PERM_LIST_DENY) {
		buf_puts(err, "no such rule list");
		return -1;
	}
	if (perm_rule_parse(rule != NULL ? rule : "", &r, err) == -1)
		return -1;
	ruleset_push(&rules->lists[list], &r);
	return 0;
}

static void
perm_rule_copy(struct perm_rule *dst, const struct perm_rule *src)
{
	dst->text = xstrdup(src->text);
	dst->tools = src->tools;
	dst->kind = src->kind;
	dst->anchor = src->anchor;
	dst->pattern = src->pattern != NULL ? xstrdup(src->pattern) : NULL;
	dst->alt = src->alt != NULL ? xstrdup(src->alt) : NULL;
	dst->mcp = src->mcp != NULL ? xstrdup(src->mcp) : NULL;
}

void
perm_rules_merge(struct perm_rules *dst, const struct perm_rules *src)
{
	struct perm_rule r;
	size_t l, i;

	for (l = 0; l < 3; l++)
		for (i = 0; i < src->lists[l].n; i++) {
			perm_rule_copy(&r, &src->lists[l].v[i]);
			ruleset_push(&dst->lists[l], &r);
		}
}

struct perm_rules *
perm_rules_dup(const struct perm_rules *src)
{
	struct perm_rules *dst = perm_rules_new();

	perm_rules_merge(dst, src);
	perm_rules_set_root(dst, src->root);
	return dst;
}

size_t
perm_rules_count(const struct perm_rules *rules, enum perm_list list)
{
	return (unsigned)list <= PERM_LIST_DENY ? rules->lists[list].n : 0;
}

const char *
perm_rules_get(const struct perm_rules *rules, enum perm_list list, size_t i)
{
	if ((unsigned)list > PERM_LIST_DENY || i >= rules->lists[list].n)
		return NULL;
	return rules->lists[list].v[i].text;
}

/*
 * Rules to remember.
 */

/*
 * A remembered rule must mean the same when it is read back: one holding
 * a control character (a file name with a newline) or whose pattern starts
 * or ends with a blank (which parsing trims) is no rule: NULL.
 */
static char *
perm_rule_usable(char *rule)
{
	const unsigned char *p;
	const char *open;
	size_t n;

	if (rule == NULL)
		return NULL;
	for (p = (const unsigned char *)rule; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			goto refuse;
	n = strlen(rule);
	open = strchr(rule, '(');
	if (open != NULL && n >= 2 && (open[1] == ' ' || rule[n - 2] == ' '))
		goto refuse;
	return rule;
refuse:
	free(rule);
	return NULL;
}

/* The rule "always" remembers for command, as perm_rule_for says; NULL when none fits. */
static char *
perm_rule_for_bash(const char *command)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	struct shparse_parts parts;
	char *whole = shparse_squeeze(command), *w1 = NULL, *w2 = NULL;
	size_t pos = 0;

	memset(&parts, 0, sizeof(parts));
	buf_puts(&out, "run_bash(");
	if (whole[0] != '\0' && strlen(whole) <= PERM_SHORT_CMD && strchr(whole, '\n') == NULL) {
		perm_escape(&out, whole, "*");
		goto done;
	}
	shparse_split(command, &parts);
	if (parts.n > 0 && (w1 = shparse_word(parts.v[0].text, &pos)) != NULL)
		w2 = shparse_word(parts.v[0].text, &pos);
	if (w1 == NULL) {
		buf_release(&out);
		goto out;
	}
	perm_escape(&out, w1, "*");
	if (w2 != NULL) {
		buf_putc(&out, ' ');
		perm_escape(&out, w2, "*");
	}
	buf_puts(&out, " *");
done:
	buf_putc(&out, ')');
out:
	free(w1);
	free(w2);
	free(whole);
	shparse_parts_release(&parts);
	return out.data != NULL ? perm_rule_usable(buf_detach(&out, NULL)) : NULL;
}

/* Does rule, read back as a deny rule, catch the call sub? */
static bool
perm_rule_catches(const char *rule, const struct perm_subject *sub)
{
	struct buf err = BUF_INIT(4096);
	struct perm_rule r;
	bool hit = false;

	if (rule != NULL && perm_rule_parse(rule, &r, &err) == 0) {
		hit = rule_hits_any(&r, sub);
		perm_rule_release(&r);
	}
	buf_release(&err);
	return hit;
}

/*
 * A run_bash rule that catches text as a deny rule whatever reading it
 * back does: '*' is escaped, and each run of blanks, control characters
 * and backslashes becomes one '*' (a rule cannot hold a control character,
 * blanks are squeezed and trimmed, and a backslash would pair with what
 * follows it).  At most PERM_LOOSE_MAX bytes of text, then '*'.  Looser
 * than the call, so only a "never" answer remembers it.
 */
static char *
perm_rule_loose(const char *text)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	const unsigned char *p = (const unsigned char *)text;
	size_t n = 0;
	bool star = false;

	buf_puts(&out, "run_bash(");
	for (; *p != '\0' && n < PERM_LOOSE_MAX; p++, n++) {
		if (*p <= 0x20 || *p == 0x7f || *p == '\\') {
			if (!star)
				buf_putc(&out, '*');
			star = true;
			continue;
		}
		star = false;
		if (*p == '*')
			buf_putc(&out, '\\');
		buf_putc(&out, (char)*p);
	}
	if (*p != '\0' && !star) {
		buf_putc(&out, '*');
		star = true;
	}
	/* A wildcard after ':' would read as Claude Code's "cmd:*", and "(*" as an empty rule's. */
	if (star && out.len >= 2 && (out.data[out.len - 2] == ':' || out.data[out.len - 2] == '('))
		buf_putc(&out, '*');
	buf_putc(&out, ')');
	return buf_detach(&out, NULL);
}

static char *
perm_rule_for_path(const char *tool, const char *path, bool tree)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&out, "%s(", tool);
	/*
	 * Anchored: "//abs" for an absolute path, "/name" for a name at the root
	 * alone, "/~/x" for a workspace directory named "~" (bare, "~/" is home).
	 */
	if (path[0] == '/' || path[0] == '~' || (!tree && strchr(path, '/') == NULL))
		buf_putc(&out, '/');
	perm_escape(&out, path, "*?[]\\");
	buf_puts(&out, tree ? "/**)" : ")");
	return perm_rule_usable(buf_detach(&out, NULL));
}

/* The directory every name lies in ("" for none), the caller frees. */
static char *
perm_common_dir(char **names, size_t n)
{
	char *dir = xstrdup(names[0]), *slash;
	size_t i, len;

	slash = strrchr(dir, '/');
	*(slash != NULL ? slash : dir) = '\0';
	for (i = 1; i < n && dir[0] != '\0'; i++) {
		for (;;) {
			len = strlen(dir);
			if (strncmp(names[i], dir, len) == 0 && names[i][len] == '/')
				break;
			slash = strrchr(dir, '/');
			*(slash != NULL ? slash : dir) = '\0';
			if (dir[0] == '\0')
				break;
		}
	}
	return dir;
}

static void
perm_strv_push(char ***v, size_t *n, char *s)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0) {
			free(s);
			return;
		}
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

void
perm_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* "`a`", "`a` and `b`", "`a`, `b` and 2 more": the names no allow rule covered. */
static void
perm_list_parts(struct buf *out, char **names, size_t n)
{
	size_t i, shown = n > 3 ? 2 : n;

	for (i = 0; i < shown; i++)
		buf_printf(out, "%s`%s`", i == 0 ? "" : i + 1 == shown && shown == n ? " and " :
		    ", ", names[i]);
	if (shown < n)
		buf_printf(out, " and %zu more", n - shown);
}

char **
perm_explain(const struct perm_rules *rules, enum perm_mode mode, const char *tool_name,
    enum tool_class cls, const cJSON *input, struct buf *reason)
{
	struct perm_subject sub;
	const struct perm_rule *r;
	char **always = NULL, **missed = NULL, *rule;
	size_t nalways = 0, nmissed = 0, i, n;
	const char *name;

	subject_init(&sub, rules, tool_name, input);
	/* As perm_check says it: no allow rule can answer this. */
	if (sub.parts.unsure &&
	    ((r = ruleset_first(&rules->lists[PERM_LIST_DENY], &sub)) != NULL ||
	    (r = ruleset_first(&rules->lists[PERM_LIST_ASK], &sub)) != NULL)) {
		buf_printf(reason, "the command runs a program named by an expansion, which rule %s "
		    "cannot be checked against", r->text);
		goto whole;
	}
	if (sub.tool != NULL && mode != PERM_YOLO &&
	    (r = ruleset_hit(&rules->lists[PERM_LIST_ASK], &sub)) != NULL) {
		buf_printf(reason, "rule %s asks for approval", r->text);
		goto whole;
	}
	if (sub.tool == NULL || sub.parts.opaque) {
		if (sub.parts.opaque)
			buf_puts(reason, "the command nests too deeply to check it against the "
			    "allow rules");
		else
			buf_printf(reason, "mode %s: every call of %s asks", perm_mode_name(mode),
			    tool_name != NULL ? tool_name : "this tool");
		goto whole;
	}
	n = subject_count(&sub);
	for (i = 0; i < n; i++) {
		if (allow_covering(&rules->lists[PERM_LIST_ALLOW], &sub, i) != NULL)
			continue;
		if (sub.tool->kind == PERM_KIND_BASH) {
			perm_strv_push(&missed, &nmissed, xstrdup(sub.parts.v[i].text));
			rule = perm_rule_for_bash(sub.parts.v[i].text);
			/* A rule that does not even catch its call means something else. */
			if (rule != NULL && perm_rule_catches(rule, &sub))
				perm_strv_push(&always, &nalways, rule);
			else
				free(rule);
		} else if (sub.tool->kind == PERM_KIND_DOMAIN) {
			perm_strv_push(&missed, &nmissed, xstrdup(sub.whole));
		} else {
			name = sub.paths[i].rel != NULL ? sub.paths[i].rel : sub.paths[i].abs;
			if (name != NULL)
				perm_strv_push(&missed, &nmissed, xstrdup(name));
		}
	}
	if (ruleset_first(&rules->lists[PERM_LIST_ALLOW], &sub) == NULL || nmissed == 0)
		buf_printf(reason, "mode %s: every %s asks", perm_mode_name(mode),
		    cls == TOOL_WRITE ? "edit" : cls == TOOL_HIGH_IMPACT ? "command" : "call");
	else {
		buf_puts(reason, sub.tool->kind == PERM_KIND_BASH ?
		    (nmissed > 1 ? "the parts " : "the part ") : "");
		perm_list_parts(reason, missed, nmissed);
		buf_printf(reason, " match%s no allow rule", nmissed > 1 ? "" : "es");
	}
	if (sub.tool->kind == PERM_KIND_BASH && nalways > 0)
		goto out;
whole:
	perm_strv_free(always);
	always = xcalloc(1, sizeof(*always));
	nalways = 0;
	rule = perm_rule_for(tool_name, input);
	if (rule != NULL && sub.tool != NULL && sub.tool->kind == PERM_KIND_BASH &&
	    !perm_rule_catches(rule, &sub)) {
		free(rule);
		rule = NULL;
	}
	/* A file named from above the root: by its absolute path. */
	if (rule == NULL && sub.tool != NULL && sub.tool->kind == PERM_KIND_PATH &&
	    sub.npaths > 0 && sub.paths[0].abs != NULL) {
		rule = perm_rule_for_path(sub.tool->name, sub.paths[0].abs, false);
		if (rule != NULL && !perm_rule_catches(rule, &sub)) {
			free(rule);
			rule = NULL;
		}
	}
	/*
	 * The whole tool when no narrower rule fits, but never for a tool that
	 * takes commands or files: "always" would then allow every command, or
	 * every edit.
	 */
	if (rule == NULL && (sub.tool == NULL || sub.tool->kind == PERM_KIND_NONE))
		rule = xstrdup(sub.tool != NULL ? sub.tool->name : tool_name != NULL ?
		    tool_name : "");
	if (rule != NULL)
		perm_strv_push(&always, &nalways, rule);
out:
	perm_strv_free(missed);
	subject_release(&sub);
	return always;
}

char **
perm_never_rules(const struct perm_rules *rules, enum perm_mode mode, const char *tool_name,
    enum tool_class cls, const cJSON *input)
{
	struct buf scratch = BUF_INIT(BUF_NOLIMIT);
	struct perm_subject sub;
	char **like = perm_explain(rules, mode, tool_name, cls, input, &scratch), **never = NULL;
	size_t i, n = 0;

	subject_init(&sub, rules, tool_name, input);
	for (i = 0; like[i] != NULL; i++)
		if (perm_rule_catches(like[i], &sub)) {
			perm_strv_push(&never, &n, like[i]);
			like[i] = xstrdup("");
		}
	if (n == 0 && sub.tool != NULL && sub.tool->kind == PERM_KIND_BASH) {
		char *loose = perm_rule_loose(sub.whole);

		if (perm_rule_catches(loose, &sub))
			perm_strv_push(&never, &n, loose);
		else
			free(loose);
	}
	/* The last resort: the whole tool, which surely catches it. */
	if (n == 0)
		perm_strv_push(&never, &n, xstrdup(sub.tool != NULL ? sub.tool->name :
		    tool_name != NULL ? tool_name : ""));
	subject_release(&sub);
	perm_strv_free(like);
	buf_release(&scratch);
	return never;
}

void
perm_rules_merge_list(struct perm_rules *dst, const struct perm_rules *src, enum perm_list list)
{
	struct perm_rule r;
	size_t i;

	if ((unsigned)list > PERM_LIST_DENY)
		return;
	for (i = 0; i < src->lists[list].n; i++) {
		perm_rule_copy(&r, &src->lists[list].v[i]);
		ruleset_push(&dst->lists[list], &r);
	}
}

char *
perm_rule_for(const char *tool_name, const cJSON *input)
{
	const struct perm_tool *t = perm_tool_find(tool_name);
	struct buf err = BUF_INIT(4096);
	struct perm_patch_names ns;
	const char *v;
	char *clean, *dir, *rule = NULL;
	size_t i;

	if (t == NULL)
		return NULL;
	v = json_str(input, t->field, NULL);
	switch (t->kind) {
	case PERM_KIND_BASH: {
		struct perm_rules *none = perm_rules_new();
		struct perm_subject sub;

		/* Only a rule that catches its call as a deny rule means this call. */
		rule = perm_rule_for_bash(v != NULL ? v : "");
		subject_init(&sub, none, tool_name, input);
		if (rule != NULL && !perm_rule_catches(rule, &sub)) {
			free(rule);
			rule = NULL;
		}
		subject_release(&sub);
		perm_rules_free(none);
		return rule;
	}
	case PERM_KIND_PATH:
		clean = path_clean(v != NULL && *v != '\0' ? v : ".");
		/* A relative rule cannot name what lies above the root. */
		if (strcmp(clean, "..") != 0 && strncmp(clean, "../", 3) != 0)
			rule = perm_rule_for_path(t->name, clean, false);
		free(clean);
		return rule;
	case PERM_KIND_PATCH:
		if (perm_patch_names(v != NULL ? v : "", &ns, &err) != 0) {
			buf_release(&err);
			return NULL;
		}
		for (i = 0; i < ns.n; i++) {
			clean = path_clean(ns.names[i]);
			free(ns.names[i]);
			ns.names[i] = clean;
		}
		if (ns.n == 1)
			rule = perm_rule_for_path(t->name, ns.names[0], false);
		else if (ns.n > 1) {
			dir = perm_common_dir(ns.names, ns.n);
			if (dir[0] != '\0')
				rule = perm_rule_for_path(t->name, dir, true);
			free(dir);
		}
		perm_patch_names_release(&ns);
		return rule;
	case PERM_KIND_DOMAIN:
		clean = perm_url_host(v);
		if (clean != NULL) {
			struct buf b = BUF_INIT(BUF_NOLIMIT);

			buf_printf(&b, "WebFetch(domain:%s)", clean);
			rule = buf_detach(&b, NULL);
		}
		free(clean);
		return rule;
	case PERM_KIND_NONE:
		break;
	}
	return NULL;
}

/*
 * Is path (relative to the root, or absolute) denied for access?  Asked
 * as if read_file (reads) or edit_file (changes) touched it, so whatever
 * those tools' rules mean, the path a tool really reached is held to it.
 */
bool
perm_path_denied(const struct perm_rules *rules, enum sandbox_access access, const char *path)
{
	cJSON *input = cJSON_CreateObject();
	enum perm_verdict v;

	json_add_str_n(input, "path", path, strlen(path));
	v = access == SANDBOX_READ ?
	    perm_check(rules, PERM_ASK, "read_file", TOOL_READ_ONLY, input, NULL) :
	    perm_check(rules, PERM_ASK, "edit_file", TOOL_WRITE, input, NULL);
	cJSON_Delete(input);
	return v == PERM_VERDICT_DENY;
}
