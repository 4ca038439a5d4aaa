/* Syntax highlighting from nano's syntax files: see synhl.h. */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "synhl.h"
#include "theme.h"
#include "xalloc.h"

#define SYNHL_FILE_MAX	(256 * 1024)
#define SYNHL_DEPTH_MAX	4		/* includes within includes */
#define SYNHL_MULTI_MAX	64		/* start/end regions a syntax may have (bits of the state) */
#define SYNHL_CACHE	2048		/* cached lines (direct-mapped) */

struct synhl_rule {
	char		*re, *end_re;	/* end_re: a start=/end= region */
	bool		 icase;
	uint8_t		 role;
	int		 multi;		/* the region's state bit, or -1 */
	regex_t		 cre, cend;
	bool		 compiled, bad;
};

struct synhl_syntax {
	char		*name;
	char		**files, **headers;
	size_t		 nfiles, nheaders;
	regex_t		*cfiles, *cheaders;
	bool		 matchers;	/* cfiles and cheaders compiled (a failed one: flagged) */
	bool		*files_ok, *headers_ok;
	struct synhl_rule *rules;
	size_t		 nrules, caprules;
	int		 nmulti;
	bool		 compiled;
};

struct synhl_cached {
	const struct synhl_syntax *syn;
	uint64_t	 in, out;
	uint64_t	 hash;
	char		*text;
	size_t		 len;
	struct synhl_run *runs;
	size_t		 nruns;
};

/* The process's syntaxes, read on the first lookup. */
static struct synhl_set {
	bool		 configured, loaded;
	char		*home, *sysdir;
	struct synhl_syntax **syn;
	size_t		 n, cap;
	struct synhl_cached cache[SYNHL_CACHE];
	struct synhl_run *runs;		/* the last result when it was not cached */
	size_t		 capruns;
	uint8_t		 paint[SYNHL_LINE_MAX];
	char		 line[SYNHL_LINE_MAX + 1];
} synhl;

/* nano's color names (without "bright"/"light") to roles; the rest are plain. */
static const struct synhl_color {
	const char	*name;
	int		 role;
} synhl_colors[] = {
	{ "red", ROLE_SYNTAX_RED }, { "crimson", ROLE_SYNTAX_RED }, { "brick", ROLE_SYNTAX_RED },
	{ "rosy", ROLE_SYNTAX_RED }, { "beet", ROLE_SYNTAX_RED },
	{ "green", ROLE_SYNTAX_GREEN }, { "lime", ROLE_SYNTAX_GREEN }, { "mint", ROLE_SYNTAX_GREEN },
	{ "sage", ROLE_SYNTAX_GREEN },
	{ "yellow", ROLE_SYNTAX_YELLOW }, { "orange", ROLE_SYNTAX_YELLOW }, { "peach", ROLE_SYNTAX_YELLOW },
	{ "latte", ROLE_SYNTAX_YELLOW }, { "ocher", ROLE_SYNTAX_YELLOW }, { "sand", ROLE_SYNTAX_YELLOW },
	{ "tawny", ROLE_SYNTAX_YELLOW }, { "brown", ROLE_SYNTAX_YELLOW },
	{ "blue", ROLE_SYNTAX_BLUE }, { "sea", ROLE_SYNTAX_BLUE }, { "slate", ROLE_SYNTAX_BLUE },
	{ "sky", ROLE_SYNTAX_BLUE },
	{ "magenta", ROLE_SYNTAX_MAGENTA }, { "pink", ROLE_SYNTAX_MAGENTA }, { "purple", ROLE_SYNTAX_MAGENTA },
	{ "mauve", ROLE_SYNTAX_MAGENTA }, { "plum", ROLE_SYNTAX_MAGENTA },
	{ "cyan", ROLE_SYNTAX_CYAN }, { "lagoon", ROLE_SYNTAX_CYAN }, { "teal", ROLE_SYNTAX_CYAN },
	{ "normal", SYNHL_BASE }, { "white", SYNHL_BASE }, { "black", SYNHL_BASE }, { "grey", SYNHL_BASE },
	{ "gray", SYNHL_BASE },
};

/*
 * Code block tags that are not a syntax's name, to the name; a tag that
 * is neither is tried as a file extension.
 */
static const struct synhl_alias {
	const char	*tag, *syntax;
} synhl_aliases[] = {
	{ "h", "c" }, { "cpp", "c" }, { "c++", "c" }, { "cc", "c" }, { "cxx", "c" }, { "hpp", "c" },
	{ "py", "python" }, { "python3", "python" }, { "py3", "python" },
	{ "bash", "sh" }, { "shell", "sh" }, { "zsh", "sh" }, { "ksh", "sh" }, { "console", "sh" },
	{ "shellscript", "sh" }, { "js", "javascript" }, { "jsx", "javascript" }, { "node", "javascript" },
	{ "ts", "javascript" }, { "typescript", "javascript" }, { "rs", "rust" }, { "golang", "go" },
	{ "rb", "ruby" }, { "pl", "perl" }, { "yml", "yaml" }, { "make", "makefile" }, { "mk", "makefile" },
	{ "diff", "patch" }, { "md", "markdown" }, { "latex", "tex" }, { "hs", "haskell" },
	{ "ml", "ocaml" }, { "emacs-lisp", "elisp" }, { "lisp", "elisp" }, { "scheme", "guile" },
	{ "objc", "m" }, { "objective-c", "m" }, { "nasm", "asm" }, { "roff", "groff" },
	{ "htm", "html" }, { "svg", "xml" },
};

static void
synhl_rule_release(struct synhl_rule *r)
{
	if (r->compiled && !r->bad) {
		regfree(&r->cre);
		if (r->end_re != NULL)
			regfree(&r->cend);
	}
	free(r->re);
	free(r->end_re);
}

static void
synhl_syntax_free(struct synhl_syntax *s)
{
	size_t i;

	for (i = 0; i < s->nrules; i++)
		synhl_rule_release(&s->rules[i]);
	for (i = 0; i < s->nfiles; i++) {
		if (s->matchers && s->files_ok[i])
			regfree(&s->cfiles[i]);
		free(s->files[i]);
	}
	for (i = 0; i < s->nheaders; i++) {
		if (s->matchers && s->headers_ok[i])
			regfree(&s->cheaders[i]);
		free(s->headers[i]);
	}
	free(s->files);
	free(s->headers);
	free(s->cfiles);
	free(s->cheaders);
	free(s->files_ok);
	free(s->headers_ok);
	free(s->rules);
	free(s->name);
	free(s);
}

static void
synhl_forget(void)
{
	size_t i;

	for (i = 0; i < SYNHL_CACHE; i++) {
		free(synhl.cache[i].text);
		free(synhl.cache[i].runs);
	}
	memset(synhl.cache, 0, sizeof synhl.cache);
	for (i = 0; i < synhl.n; i++)
		synhl_syntax_free(synhl.syn[i]);
	free(synhl.syn);
	synhl.syn = NULL;
	synhl.n = synhl.cap = 0;
	free(synhl.runs);
	synhl.runs = NULL;
	synhl.capruns = 0;
	synhl.loaded = false;
}

void
synhl_configure(const char *home, const char *sysdir)
{
	synhl_forget();
	free(synhl.home);
	free(synhl.sysdir);
	synhl.home = home ? xstrdup(home) : NULL;
	synhl.sysdir = sysdir ? xstrdup(sysdir) : NULL;
	synhl.configured = true;
}

void
synhl_shutdown(void)
{
	synhl_forget();
	free(synhl.home);
	free(synhl.sysdir);
	synhl.home = synhl.sysdir = NULL;
	synhl.configured = false;
}

/* ---- reading nanorc files ---- */

/*
 * The next argument at *p: a word, or a quoted string as nano reads it,
 * which ends at a '"' followed by a blank or the line's end (so a regex
 * may hold quotes).  A malloc'd copy, or NULL at the line's end.
 */
static char *
synhl_arg(const char **p, const char *end)
{
	const char *s = *p, *q, *close = NULL;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end) {
		*p = end;
		return NULL;
	}
	if (*s != '"') {
		for (q = s; q < end && *q != ' ' && *q != '\t'; q++)
			;
		*p = q;
		return xstrndup(s, (size_t)(q - s));
	}
	for (q = s + 1; q < end; q++)
		if (*q == '"' && (q + 1 == end || q[1] == ' ' || q[1] == '\t')) {
			close = q;
			break;
		}
	if (close == NULL) {
		*p = end;
		return xstrndup(s + 1, (size_t)(end - s - 1));
	}
	*p = close + 1;
	return xstrndup(s + 1, (size_t)(close - s - 1));
}

static struct synhl_syntax *
synhl_find(const char *name)
{
	size_t i;

	for (i = 0; i < synhl.n; i++)
		if (strcmp(synhl.syn[i]->name, name) == 0)
			return synhl.syn[i];
	return NULL;
}

/* The role of a color spec "[bold,][italic,]FG[,BG]"; -1: no foreground or unknown. */
static int
synhl_color_role(const char *spec)
{
	char word[32];
	size_t i, n;
	const char *s = spec;

	for (;;) {
		const char *c = strchr(s, ',');

		n = c ? (size_t)(c - s) : strlen(s);
		if ((n == 4 && strncmp(s, "bold", 4) == 0) || (n == 6 && strncmp(s, "italic", 6) == 0)) {
			if (c == NULL)
				return -1;
			s = c + 1;
			continue;
		}
		break;
	}
	if (n == 0 || n >= sizeof word)
		return -1;
	memcpy(word, s, n);
	word[n] = '\0';
	s = word;
	if (strncmp(s, "bright", 6) == 0)
		s += 6;
	else if (strncmp(s, "light", 5) == 0)
		s += 5;
	if (s[0] == '#' && strlen(s) == 4) {
		int v[3], k, hi = 0, lo = 15;

		for (k = 0; k < 3; k++) {
			if (!isxdigit((unsigned char)s[k + 1]))
				return -1;
			v[k] = isdigit((unsigned char)s[k + 1]) ? s[k + 1] - '0' : tolower((unsigned char)s[k + 1]) - 'a' + 10;
			hi = v[k] > hi ? v[k] : hi;
			lo = v[k] < lo ? v[k] : lo;
		}
		/* A grey is plain; otherwise the hue's nearest of the six. */
		if (hi - lo < 3)
			return SYNHL_BASE;
		if (v[0] == hi && v[1] - lo > (hi - lo) / 2)
			return ROLE_SYNTAX_YELLOW;
		if (v[0] == hi)
			return v[2] - lo > (hi - lo) / 2 ? ROLE_SYNTAX_MAGENTA : ROLE_SYNTAX_RED;
		if (v[1] == hi)
			return v[2] - lo > (hi - lo) / 2 ? ROLE_SYNTAX_CYAN : ROLE_SYNTAX_GREEN;
		return v[0] - lo > (hi - lo) / 2 ? ROLE_SYNTAX_MAGENTA : v[1] - lo > (hi - lo) / 2 ?
		    ROLE_SYNTAX_CYAN : ROLE_SYNTAX_BLUE;
	}
	for (i = 0; i < sizeof synhl_colors / sizeof synhl_colors[0]; i++)
		if (strcmp(synhl_colors[i].name, s) == 0)
			return synhl_colors[i].role;
	return -1;
}

static void
synhl_add_rule(struct synhl_syntax *syn, char *re, char *end_re, bool icase, int role)
{
	struct synhl_rule *r;

	if (end_re != NULL && syn->nmulti >= SYNHL_MULTI_MAX) {
		free(re);
		free(end_re);
		return;
	}
	if (syn->nrules == syn->caprules) {
		syn->caprules = syn->caprules ? syn->caprules * 2 : 16;
		syn->rules = xreallocarray(syn->rules, syn->caprules, sizeof *syn->rules);
	}
	r = &syn->rules[syn->nrules++];
	memset(r, 0, sizeof *r);
	r->re = re;
	r->end_re = end_re;
	r->icase = icase;
	r->role = (uint8_t)role;
	r->multi = end_re != NULL ? syn->nmulti++ : -1;
	/* A syntax already in use gets the new rule compiled on its next line. */
	syn->compiled = false;
}

/* "color SPEC "re" ..." or "color SPEC start="re" end="re"". */
static void
synhl_color_line(struct synhl_syntax *syn, const char *p, const char *end, bool icase)
{
	char *spec = synhl_arg(&p, end), *a, *start = NULL;
	int role;

	if (spec == NULL)
		return;
	role = synhl_color_role(spec);
	free(spec);
	while ((a = synhl_arg(&p, end)) != NULL) {
		if (role < 0) {
			free(a);
			continue;
		}
		/* start="..." and end="..." arrive as one word each, their quotes inside. */
		if (strncmp(a, "start=", 6) == 0 || strncmp(a, "end=", 4) == 0) {
			bool is_start = a[0] == 's';
			const char *v = a + (is_start ? 6 : 4);
			size_t vn = strlen(v);
			char *val;

			if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"')
				val = xstrndup(v + 1, vn - 2);
			else
				val = xstrdup(v);
			free(a);
			if (is_start) {
				free(start);
				start = val;
			} else if (start != NULL) {
				synhl_add_rule(syn, start, val, icase, role);
				start = NULL;
			} else
				free(val);
			continue;
		}
		synhl_add_rule(syn, a, NULL, icase, role);
	}
	free(start);
}

/*
 * start="re" holds a quote that nano's argument rule would end early
 * when followed by a blank: read start=/end= pairs here instead.
 */
static const char *
synhl_region_arg(const char *p, const char *end, const char *key, char **out)
{
	size_t kn = strlen(key);
	const char *s = p, *q;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) < kn + 1 || memcmp(s, key, kn) != 0 || s[kn] != '"')
		return NULL;
	s += kn + 1;
	for (q = s; q < end; q++)
		if (*q == '"' && (q + 1 == end || q[1] == ' ' || q[1] == '\t')) {
			*out = xstrndup(s, (size_t)(q - s));
			return q + 1;
		}
	return NULL;
}

static void
synhl_color_any(struct synhl_syntax *syn, const char *p, const char *end, bool icase)
{
	const char *q = p, *r;
	char *spec, *st = NULL, *en = NULL;
	int role;

	spec = synhl_arg(&q, end);
	if (spec == NULL)
		return;
	if ((r = synhl_region_arg(q, end, "start=", &st)) != NULL &&
	    (r = synhl_region_arg(r, end, "end=", &en)) != NULL) {
		role = synhl_color_role(spec);
		if (role >= 0)
			synhl_add_rule(syn, st, en, icase, role);
		else {
			free(st);
			free(en);
		}
		free(spec);
		return;
	}
	free(st);
	free(spec);
	synhl_color_line(syn, p, end, icase);
}

static void
synhl_push_str(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = s;
}

static void synhl_read_file(const char *path, int depth);

/* include "glob": every file it names, in order. */
static void
synhl_include(const char *pattern, const char *from, int depth)
{
	char pat[4096];
	glob_t g;
	size_t i;
	int r;

	if (pattern[0] == '~' && pattern[1] == '/' && synhl.home != NULL)
		r = snprintf(pat, sizeof pat, "%s%s", synhl.home, pattern + 1);
	else if (pattern[0] != '/' && strrchr(from, '/') != NULL)
		r = snprintf(pat, sizeof pat, "%.*s/%s", (int)(strrchr(from, '/') - from), from, pattern);
	else
		r = snprintf(pat, sizeof pat, "%s", pattern);
	if (r < 0 || (size_t)r >= sizeof pat)
		return;
	if (glob(pat, 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++)
		synhl_read_file(g.gl_pathv[i], depth + 1);
	globfree(&g);
}

/* The syntax a line of the file adds to: a new one's, or an extendsyntax's. */
static void
synhl_line_cmd(const char *kw, size_t kn, const char *p, const char *end, struct synhl_syntax **cur,
    const char *path, int depth)
{
	char *a;

	if (kn == 6 && memcmp(kw, "syntax", 6) == 0) {
		char *name = synhl_arg(&p, end);

		*cur = NULL;
		if (name == NULL)
			return;
		/* The first definition of a name wins: the user's come first. */
		if (strcmp(name, "default") == 0 || strcmp(name, "none") == 0 || synhl_find(name) != NULL) {
			free(name);
			return;
		}
		*cur = xcalloc(1, sizeof **cur);
		(*cur)->name = name;
		synhl.syn = xreallocarray(synhl.syn, synhl.n + 1, sizeof *synhl.syn);
		synhl.syn[synhl.n++] = *cur;
		while ((a = synhl_arg(&p, end)) != NULL)
			synhl_push_str(&(*cur)->files, &(*cur)->nfiles, a);
		return;
	}
	if (kn == 12 && memcmp(kw, "extendsyntax", 12) == 0) {
		char *name = synhl_arg(&p, end);
		struct synhl_syntax *s = name ? synhl_find(name) : NULL;
		const char *k2;

		free(name);
		if (s == NULL)
			return;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (k2 = p; p < end && *p != ' ' && *p != '\t'; p++)
			;
		synhl_line_cmd(k2, (size_t)(p - k2), p, end, &s, path, depth);
		return;
	}
	if (kn == 7 && memcmp(kw, "include", 7) == 0) {
		if ((a = synhl_arg(&p, end)) != NULL && depth < SYNHL_DEPTH_MAX)
			synhl_include(a, path, depth);
		free(a);
		return;
	}
	if (*cur == NULL)
		return;
	if (kn == 6 && memcmp(kw, "header", 6) == 0) {
		while ((a = synhl_arg(&p, end)) != NULL)
			synhl_push_str(&(*cur)->headers, &(*cur)->nheaders, a);
	} else if (kn == 5 && memcmp(kw, "color", 5) == 0)
		synhl_color_any(*cur, p, end, false);
	else if (kn == 6 && memcmp(kw, "icolor", 6) == 0)
		synhl_color_any(*cur, p, end, true);
}

static void
synhl_read_file(const char *path, int depth)
{
	struct synhl_syntax *cur = NULL;
	char *text = NULL;
	const char *p, *end;
	size_t n;
	FILE *f;

	if (depth > SYNHL_DEPTH_MAX || (f = fopen(path, "r")) == NULL)
		return;
	text = xmalloc(SYNHL_FILE_MAX + 1);
	n = fread(text, 1, SYNHL_FILE_MAX + 1, f);
	fclose(f);
	if (n > SYNHL_FILE_MAX)
		goto out;
	p = text;
	end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *kw;

		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		kw = p;
		while (p < le && *p != ' ' && *p != '\t')
			p++;
		if (p > kw && *kw != '#')
			synhl_line_cmd(kw, (size_t)(p - kw), p, le, &cur, path, depth);
		p = nl ? nl + 1 : end;
	}
out:
	free(text);
}

static void
synhl_load(void)
{
	char path[4096];
	struct stat st;
	const char *env;
	int r;

	if (synhl.loaded)
		return;
	synhl.loaded = true;
	if (!synhl.configured) {
		env = getenv("TANDEM_SYNTAX_DIR");
		synhl.home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
		synhl.sysdir = xstrdup(env != NULL ? env : "/usr/share/nano");
		synhl.configured = true;
	}
	if (synhl.home != NULL) {
		/* nano reads the first of these that exists; tandem the same. */
		r = snprintf(path, sizeof path, "%s/.nanorc", synhl.home);
		if (r > 0 && (size_t)r < sizeof path && stat(path, &st) == 0)
			synhl_read_file(path, 0);
		else {
			r = snprintf(path, sizeof path, "%s/.config/nano/nanorc", synhl.home);
			if (r > 0 && (size_t)r < sizeof path)
				synhl_read_file(path, 0);
		}
	}
	if (synhl.sysdir != NULL && synhl.sysdir[0] != '\0') {
		r = snprintf(path, sizeof path, "%s/*.nanorc", synhl.sysdir);
		if (r > 0 && (size_t)r < sizeof path)
			synhl_include(path, "", 0);
	}
}

/* ---- lookups ---- */

static void
synhl_compile_matchers(struct synhl_syntax *s)
{
	size_t i;

	if (s->matchers)
		return;
	s->matchers = true;
	s->cfiles = xcalloc(s->nfiles + 1, sizeof *s->cfiles);
	s->files_ok = xcalloc(s->nfiles + 1, sizeof *s->files_ok);
	s->cheaders = xcalloc(s->nheaders + 1, sizeof *s->cheaders);
	s->headers_ok = xcalloc(s->nheaders + 1, sizeof *s->headers_ok);
	for (i = 0; i < s->nfiles; i++)
		s->files_ok[i] = regcomp(&s->cfiles[i], s->files[i], REG_EXTENDED | REG_NOSUB) == 0;
	for (i = 0; i < s->nheaders; i++)
		s->headers_ok[i] = regcomp(&s->cheaders[i], s->headers[i], REG_EXTENDED | REG_NOSUB) == 0;
}

static const struct synhl_syntax *
synhl_by_name(const char *name, const char *first, size_t firstn)
{
	char line[512];
	size_t i, k;

	synhl_load();
	if (name != NULL)
		for (i = 0; i < synhl.n; i++) {
			synhl_compile_matchers(synhl.syn[i]);
			for (k = 0; k < synhl.syn[i]->nfiles; k++)
				if (synhl.syn[i]->files_ok[k] && regexec(&synhl.syn[i]->cfiles[k], name, 0, NULL, 0) == 0)
					return synhl.syn[i];
		}
	if (first == NULL || firstn == 0)
		return NULL;
	if (firstn >= sizeof line)
		firstn = sizeof line - 1;
	memcpy(line, first, firstn);
	line[firstn] = '\0';
	for (i = 0; i < synhl.n; i++) {
		synhl_compile_matchers(synhl.syn[i]);
		for (k = 0; k < synhl.syn[i]->nheaders; k++)
			if (synhl.syn[i]->headers_ok[k] && regexec(&synhl.syn[i]->cheaders[k], line, 0, NULL, 0) == 0)
				return synhl.syn[i];
	}
	return NULL;
}

const struct synhl_syntax *
synhl_for_lang(const char *tag, size_t n)
{
	char low[64], file[80];
	const struct synhl_syntax *s;
	size_t i;

	if (n == 0 || n >= sizeof low)
		return NULL;
	for (i = 0; i < n; i++) {
		if (tag[i] == '/' || tag[i] == '\0')
			return NULL;
		low[i] = (char)tolower((unsigned char)tag[i]);
	}
	low[n] = '\0';
	synhl_load();
	for (i = 0; i < sizeof synhl_aliases / sizeof synhl_aliases[0]; i++)
		if (strcmp(synhl_aliases[i].tag, low) == 0 && (s = synhl_find(synhl_aliases[i].syntax)) != NULL)
			return s;
	if ((s = synhl_find(low)) != NULL)
		return s;
	/* A tag that names an extension ("rs", "mk"): as a file of that name. */
	if (snprintf(file, sizeof file, "x.%s", low) >= (int)sizeof file)
		return NULL;
	return synhl_by_name(file, NULL, 0);
}

const struct synhl_syntax *
synhl_for_file(const char *name, const char *first, size_t firstn)
{
	return synhl_by_name(name, first, firstn);
}

const char *
synhl_name(const struct synhl_syntax *s)
{
	return s->name;
}

/* ---- highlighting ---- */

static void
synhl_compile(struct synhl_syntax *s)
{
	size_t i;

	if (s->compiled)
		return;
	s->compiled = true;
	for (i = 0; i < s->nrules; i++) {
		struct synhl_rule *r = &s->rules[i];
		int fl = REG_EXTENDED | (r->icase ? REG_ICASE : 0);

		if (r->compiled)
			continue;
		r->compiled = true;
		if (regcomp(&r->cre, r->re, fl) != 0) {
			r->bad = true;
			continue;
		}
		if (r->end_re != NULL && regcomp(&r->cend, r->end_re, fl) != 0) {
			regfree(&r->cre);
			r->bad = true;
		}
	}
}

static void
synhl_paint(size_t from, size_t to, uint8_t role)
{
	if (to > from)
		memset(synhl.paint + from, role, to - from);
}

/* The first match of re in line[from..n) (not at a line's start past 0); false when none. */
static bool
synhl_match(const regex_t *re, size_t from, size_t n, size_t *so, size_t *eo)
{
	regmatch_t m;

	if (from > n || regexec(re, synhl.line + from, 1, &m, from > 0 ? REG_NOTBOL : 0) != 0)
		return false;
	*so = from + (size_t)m.rm_so;
	*eo = from + (size_t)m.rm_eo;
	return true;
}

/* A single-line rule: every match, painted over what earlier rules painted. */
static void
synhl_apply_simple(const struct synhl_rule *r, size_t n, int *budget)
{
	size_t pos = 0, so, eo;

	while (pos <= n && *budget > 0 && synhl_match(&r->cre, pos, n, &so, &eo)) {
		(*budget)--;
		if (eo == so) {
			pos = so + 1;
			continue;
		}
		synhl_paint(so, eo, r->role);
		pos = eo;
	}
}

/* A start=/end= region, open at the start when the state says so; the state at the end. */
static bool
synhl_apply_region(const struct synhl_rule *r, size_t n, bool open, int *budget)
{
	size_t pos = 0, so, eo, es, ee;

	if (open) {
		(*budget)--;
		if (!synhl_match(&r->cend, 0, n, &es, &ee)) {
			synhl_paint(0, n, r->role);
			return true;
		}
		synhl_paint(0, ee, r->role);
		pos = ee > 0 ? ee : 1;
	}
	while (pos <= n && *budget > 0 && synhl_match(&r->cre, pos, n, &so, &eo)) {
		(*budget)--;
		if (!synhl_match(&r->cend, eo, n, &es, &ee)) {
			synhl_paint(so, n, r->role);
			return true;
		}
		synhl_paint(so, ee, r->role);
		pos = ee > so ? ee : so + 1;
	}
	return false;
}

static size_t
synhl_runs_of(size_t n, size_t full)
{
	size_t i, k = 0;

	if (synhl.capruns < n + 2) {
		synhl.capruns = n + 2;
		synhl.runs = xreallocarray(synhl.runs, synhl.capruns, sizeof *synhl.runs);
	}
	for (i = 0; i < n; i++) {
		/* A character keeps its first byte's style. */
		if (i > 0 && ((unsigned char)synhl.line[i] & 0xC0) == 0x80)
			synhl.paint[i] = synhl.paint[i - 1];
		if (k == 0 || synhl.paint[i] != synhl.runs[k - 1].role) {
			synhl.runs[k].off = (uint32_t)i;
			synhl.runs[k].role = synhl.paint[i];
			k++;
		}
	}
	/* What is past the cap keeps the caller's style. */
	if (full > n && (k == 0 || synhl.runs[k - 1].role != SYNHL_BASE)) {
		i = n;
		while (i < full && i > 0 && ((unsigned char)synhl.line[i] & 0xC0) == 0x80)
			i++;
		synhl.runs[k].off = (uint32_t)i;
		synhl.runs[k].role = SYNHL_BASE;
		k++;
	}
	if (k == 0) {
		synhl.runs[0].off = 0;
		synhl.runs[0].role = SYNHL_BASE;
		k = 1;
	}
	return k;
}

static uint64_t
synhl_hash(const struct synhl_syntax *syn, uint64_t state, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)syn ^ (state * 0x9E3779B97F4A7C15ULL);
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

size_t
synhl_line(const struct synhl_syntax *csyn, const char *s, size_t full, uint64_t *state,
    const struct synhl_run **runs)
{
	struct synhl_syntax *syn = (struct synhl_syntax *)csyn;
	size_t n = full < SYNHL_LINE_MAX ? full : SYNHL_LINE_MAX, i, k;
	uint64_t in = *state, out = 0, h = synhl_hash(syn, in, s, n);
	struct synhl_cached *c = &synhl.cache[h % SYNHL_CACHE];
	int budget = SYNHL_MATCH_MAX;

	if (full <= SYNHL_LINE_MAX && c->syn == syn && c->hash == h && c->in == in && c->len == full && memcmp(c->text, s, full) == 0) {
		*state = c->out;
		*runs = c->runs;
		return c->nruns;
	}
	synhl_compile(syn);
	memcpy(synhl.line, s, n);
	/* A NUL inside would end the regex's subject early: it is matched as a space. */
	for (i = 0; i < n; i++)
		if (synhl.line[i] == '\0')
			synhl.line[i] = ' ';
	synhl.line[n] = '\0';
	memset(synhl.paint, SYNHL_BASE, n);
	for (i = 0; i < syn->nrules; i++) {
		const struct synhl_rule *r = &syn->rules[i];

		if (r->bad)
			continue;
		if (r->end_re == NULL)
			synhl_apply_simple(r, n, &budget);
		else if (synhl_apply_region(r, n, (in >> r->multi) & 1, &budget))
			out |= (uint64_t)1 << r->multi;
		if (budget <= 0)
			break;
	}
	k = synhl_runs_of(n, full);
	*state = out;
	/* A huge line is not kept: the cache holds what a screen shows again. */
	if (full > SYNHL_LINE_MAX) {
		*runs = synhl.runs;
		return k;
	}
	free(c->text);
	free(c->runs);
	c->syn = syn;
	c->hash = h;
	c->in = in;
	c->out = out;
	c->len = full;
	c->text = xmemdup(s, full);
	c->runs = xreallocarray(NULL, k, sizeof *c->runs);
	memcpy(c->runs, synhl.runs, k * sizeof *c->runs);
	c->nruns = k;
	*runs = c->runs;
	return k;
}
