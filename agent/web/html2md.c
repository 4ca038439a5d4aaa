/* An HTML page as Markdown: see html2md.h. */
#include "autoconf.h"

#include <curl/curl.h>
#include <gumbo.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "web/html2md.h"

#define MD_MAX_DEPTH	256	/* deeper elements are left out (the stack stays small) */
#define MD_MAX_COLS	64	/* table columns kept */

struct md {
	const struct buf	*top;		/* the result: its length is what the cap weighs */
	size_t			 cap;
	CURLU			*base;		/* the page's URL, or NULL */
	int			 depth;
	int			 in_li;
	bool			 truncated;
};

static void md_children(struct md *, const GumboNode *, struct buf *);
static void md_node(struct md *, const GumboNode *, struct buf *);

static const char *
md_attr(const GumboNode *n, const char *name)
{
	const GumboAttribute *a = gumbo_get_attribute(&n->v.element.attributes, name);

	return a != NULL ? a->value : NULL;
}

static bool
md_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Drop spaces at the end of b's last line. */
static void
md_rtrim_spaces(struct buf *b)
{
	size_t n = b->len;

	while (n > 0 && (b->data[n - 1] == ' ' || b->data[n - 1] == '\t'))
		n--;
	if (n < b->len)
		buf_truncate(b, n);
}

/* End b with k newlines (unless b is empty). */
static void
md_newlines(struct buf *b, int k)
{
	int have = 0;
	size_t n;

	md_rtrim_spaces(b);
	if (b->len == 0)
		return;
	for (n = b->len; n > 0 && b->data[n - 1] == '\n' && have < k; n--)
		have++;
	for (; have < k; have++)
		buf_putc(b, '\n');
}

/* Text with its white space collapsed, as a browser shows it. */
static void
md_text(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		/* A no-break space reads as a space (DocBook puts one after "1."). */
		if ((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xa0) {
			buf_putc(b, ' ');
			s++;
			continue;
		}
		if (md_is_space(*s)) {
			if (b->len > 0 && b->data[b->len - 1] != ' ' && b->data[b->len - 1] != '\n')
				buf_putc(b, ' ');
			continue;
		}
		buf_putc(b, *s);
	}
}

/* s without white space at either end, its newlines made spaces (a heading, a link's text, a cell). */
static void
md_flat(struct buf *out, const struct buf *s, bool pipes)
{
	size_t i = 0, e = s->len;

	while (i < e && md_is_space(s->data[i]))
		i++;
	while (e > i && md_is_space(s->data[e - 1]))
		e--;
	for (; i < e; i++) {
		char c = s->data[i];

		if (c == '\n') {
			if (out->len > 0 && out->data[out->len - 1] != ' ')
				buf_putc(out, ' ');
			continue;
		}
		if (pipes && c == '|')
			buf_putc(out, '\\');
		buf_putc(out, c);
	}
}

/* Each line of s (trimmed of blank lines at both ends) into b, the first after first, the rest after rest. */
static void
md_prefixed(struct buf *b, const struct buf *s, const char *first, const char *rest)
{
	size_t i = 0, e = s->len;
	bool start = true, firstline = true;

	while (i < e && (s->data[i] == '\n' || s->data[i] == ' '))
		i++;
	while (e > i && md_is_space(s->data[e - 1]))
		e--;
	if (i == e) {
		buf_puts(b, first);
		md_rtrim_spaces(b);
		return;
	}
	for (; i < e; i++) {
		if (start) {
			if (s->data[i] != '\n' || firstline)
				buf_puts(b, firstline ? first : rest);
			else
				md_rtrim_spaces(b);
			firstline = false;
			start = false;
		}
		buf_putc(b, s->data[i]);
		if (s->data[i] == '\n') {
			start = true;
			if (i + 1 < e && s->data[i + 1] == '\n')
				start = true;
		}
	}
}

/* href made absolute against the page's URL; NULL for links that lead nowhere to fetch. */
static char *
md_url(struct md *m, const char *href)
{
	CURLU *u;
	char *out = NULL;

	if (href == NULL)
		return NULL;
	while (md_is_space(*href))
		href++;
	if (*href == '\0' || *href == '#' || strncasecmp(href, "javascript:", 11) == 0)
		return NULL;
	if (m->base == NULL)
		return strdup(href);
	u = curl_url_dup(m->base);
	if (u == NULL)
		return NULL;
	if (curl_url_set(u, CURLUPART_URL, href, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &out, 0) != CURLUE_OK)
		out = NULL;
	curl_url_cleanup(u);
	if (out != NULL) {
		char *copy = strdup(out);

		curl_free(out);
		out = copy;
	}
	return out;
}

/* The raw text below n, white space kept (a code block). */
static void
md_raw(const GumboNode *n, struct buf *b, int depth)
{
	const GumboVector *kids;
	unsigned i;

	if (depth > MD_MAX_DEPTH)
		return;
	if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE ||
	    n->type == GUMBO_NODE_CDATA) {
		buf_puts(b, n->v.text.text);
		return;
	}
	if (n->type != GUMBO_NODE_ELEMENT)
		return;
	if (n->v.element.tag == GUMBO_TAG_BR) {
		buf_putc(b, '\n');
		return;
	}
	kids = &n->v.element.children;
	for (i = 0; i < kids->length; i++)
		md_raw(kids->data[i], b, depth + 1);
}

/* The language a code block's class names ("language-c", "lang-sh", "highlight-python"). */
static void
md_code_lang(const GumboNode *n, struct buf *lang)
{
	static const char *const prefixes[] = { "language-", "lang-", "highlight-", "sourceCode " };
	const char *cls = md_attr(n, "class"), *p;
	size_t i, k;

	if (cls == NULL)
		return;
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		if ((p = strstr(cls, prefixes[i])) == NULL)
			continue;
		p += strlen(prefixes[i]);
		for (k = 0; p[k] != '\0' && (p[k] == '-' || p[k] == '+' || p[k] == '_' ||
		    (p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z') ||
		    (p[k] >= '0' && p[k] <= '9')); k++)
			;
		buf_append(lang, p, k);
		return;
	}
}

static void
md_pre(struct md *m, const GumboNode *n, struct buf *b)
{
	struct buf raw = BUF_INIT(BUF_NOLIMIT), lang = BUF_INIT(64);
	const GumboVector *kids = &n->v.element.children;
	const char *fence = "```", *p;
	size_t s = 0, e;

	md_code_lang(n, &lang);
	if (lang.len == 0 && kids->length == 1 &&
	    ((const GumboNode *)kids->data[0])->type == GUMBO_NODE_ELEMENT)
		md_code_lang(kids->data[0], &lang);
	md_raw(n, &raw, m->depth);
	e = raw.len;
	while (s < e && raw.data[s] == '\n')
		s++;
	while (e > s && md_is_space(raw.data[e - 1]))
		e--;
	for (p = raw.data; p != NULL && (p = strstr(p, "```")) != NULL; p++)
		fence = "~~~~";
	md_newlines(b, 2);
	buf_printf(b, "%s%s\n", fence, buf_cstr(&lang));
	if (e > s) {
		buf_append(b, raw.data + s, e - s);
		buf_putc(b, '\n');
	}
	buf_puts(b, fence);
	md_newlines(b, 2);
	buf_release(&raw);
	buf_release(&lang);
}

/* Inline code: `x`, or ``x`` when x holds a backtick. */
static void
md_code(struct md *m, const GumboNode *n, struct buf *b)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT), flat = BUF_INIT(BUF_NOLIMIT);
	bool tick;

	md_raw(n, &s, m->depth);
	md_flat(&flat, &s, false);
	if (flat.len > 0) {
		tick = memchr(flat.data, '`', flat.len) != NULL;
		buf_puts(b, tick ? "`` " : "`");
		buf_append(b, flat.data, flat.len);
		buf_puts(b, tick ? " ``" : "`");
	}
	buf_release(&s);
	buf_release(&flat);
}

/* The children's inline Markdown, flattened onto one line. */
static void
md_inline(struct md *m, const GumboNode *n, struct buf *out, bool pipes)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT);

	md_children(m, n, &s);
	md_flat(out, &s, pipes);
	buf_release(&s);
}

static void
md_heading(struct md *m, const GumboNode *n, struct buf *b, int level)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT);

	md_inline(m, n, &t, false);
	if (t.len > 0) {
		md_newlines(b, 2);
		buf_printf(b, "%.*s %s", level, "######", buf_cstr(&t));
		md_newlines(b, 2);
	}
	buf_release(&t);
}

static void
md_wrap(struct md *m, const GumboNode *n, struct buf *b, const char *mark)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT);

	md_inline(m, n, &t, false);
	if (t.len > 0) {
		if (b->len > 0 && b->data[b->len - 1] != ' ' && b->data[b->len - 1] != '\n' &&
		    n->v.element.children.length > 0 &&
		    md_is_space(buf_cstr(&t)[0]))
			buf_putc(b, ' ');
		buf_printf(b, "%s%s%s", mark, buf_cstr(&t), mark);
	}
	buf_release(&t);
}

static void
md_link(struct md *m, const GumboNode *n, struct buf *b)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT);
	char *url = md_url(m, md_attr(n, "href"));

	md_inline(m, n, &t, false);
	if (t.len > 0 && url != NULL)
		buf_printf(b, "[%s](%s)", buf_cstr(&t), url);
	else
		buf_append(b, t.data != NULL ? t.data : "", t.len);
	free(url);
	buf_release(&t);
}

static void
md_image(struct md *m, const GumboNode *n, struct buf *b)
{
	const char *alt = md_attr(n, "alt");
	char *url = md_url(m, md_attr(n, "src"));

	if (alt != NULL && alt[0] != '\0' && url != NULL) {
		buf_puts(b, "![");
		md_text(b, alt);
		buf_printf(b, "](%s)", url);
	}
	free(url);
}

/* A list item, a definition: the children's blocks after a marker, the lines below indented. */
static void
md_item(struct md *m, const GumboNode *n, struct buf *b, const char *marker)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT), pad = BUF_INIT(64);
	size_t k;

	m->in_li++;
	md_children(m, n, &s);
	m->in_li--;
	for (k = strlen(marker); k > 0; k--)
		buf_putc(&pad, ' ');
	md_newlines(b, 1);
	md_prefixed(b, &s, marker, buf_cstr(&pad));
	md_newlines(b, 1);
	buf_release(&s);
	buf_release(&pad);
}

static void
md_list(struct md *m, const GumboNode *n, struct buf *b, bool ordered)
{
	const GumboVector *kids = &n->v.element.children;
	const char *start = ordered ? md_attr(n, "start") : NULL;
	long num = start != NULL ? strtol(start, NULL, 10) : 1;
	char marker[32];
	unsigned i;

	if (num < 0 || num > 1000000000L)
		num = 1;
	md_newlines(b, m->in_li > 0 ? 1 : 2);
	for (i = 0; i < kids->length && !m->truncated; i++) {
		const GumboNode *k = kids->data[i];

		if (k->type == GUMBO_NODE_ELEMENT && k->v.element.tag == GUMBO_TAG_LI) {
			if (ordered)
				snprintf(marker, sizeof marker, "%ld. ", num++);
			else
				snprintf(marker, sizeof marker, "- ");
			m->depth++;
			md_item(m, k, b, marker);
			m->depth--;
		} else
			md_node(m, k, b);
	}
	md_newlines(b, m->in_li > 0 ? 1 : 2);
}

static void
md_quote(struct md *m, const GumboNode *n, struct buf *b)
{
	struct buf s = BUF_INIT(BUF_NOLIMIT);

	md_children(m, n, &s);
	md_newlines(b, 2);
	md_prefixed(b, &s, "> ", "> ");
	md_newlines(b, 2);
	buf_release(&s);
}

/* The rows of a table (through thead, tbody, tfoot; not a nested table's). */
static void
md_rows(const GumboNode *n, const GumboNode ***rows, size_t *nrows, size_t *cap, int depth)
{
	const GumboVector *kids = &n->v.element.children;
	unsigned i;

	for (i = 0; i < kids->length && depth < 4; i++) {
		const GumboNode *k = kids->data[i];

		if (k->type != GUMBO_NODE_ELEMENT)
			continue;
		if (k->v.element.tag == GUMBO_TAG_TR) {
			if (*nrows == *cap) {
				*cap = *cap ? *cap * 2 : 16;
				*rows = realloc(*rows, *cap * sizeof **rows);
				if (*rows == NULL)
					abort();
			}
			(*rows)[(*nrows)++] = k;
		} else if (k->v.element.tag == GUMBO_TAG_THEAD ||
		    k->v.element.tag == GUMBO_TAG_TBODY || k->v.element.tag == GUMBO_TAG_TFOOT)
			md_rows(k, rows, nrows, cap, depth + 1);
	}
}

static bool
md_is_cell(const GumboNode *k)
{
	return k->type == GUMBO_NODE_ELEMENT &&
	    (k->v.element.tag == GUMBO_TAG_TD || k->v.element.tag == GUMBO_TAG_TH);
}

/* Does the subtree hold a table or a heading (a layout table then, not data)? */
static bool
md_holds_table(const GumboNode *n, int depth)
{
	const GumboVector *kids;
	unsigned i;

	if (n->type != GUMBO_NODE_ELEMENT || depth > 32)
		return false;
	if ((depth > 0 && n->v.element.tag == GUMBO_TAG_TABLE) ||
	    (n->v.element.tag >= GUMBO_TAG_H1 && n->v.element.tag <= GUMBO_TAG_H6))
		return true;
	kids = &n->v.element.children;
	for (i = 0; i < kids->length; i++)
		if (md_holds_table(kids->data[i], depth + 1))
			return true;
	return false;
}

static void
md_table(struct md *m, const GumboNode *n, struct buf *b)
{
	const GumboNode **rows = NULL;
	size_t nrows = 0, cap = 0, r, c, ncols = 0;
	unsigned i;

	md_rows(n, &rows, &nrows, &cap, 0);
	for (r = 0; r < nrows; r++) {
		const GumboVector *kids = &rows[r]->v.element.children;

		for (i = 0, c = 0; i < kids->length; i++)
			c += md_is_cell(kids->data[i]);
		if (c > ncols)
			ncols = c;
	}
	if (ncols > MD_MAX_COLS)
		ncols = MD_MAX_COLS;
	/* A table of one column, or one holding tables, lays a page out: its blocks as they are. */
	if (nrows == 0 || ncols < 2 || md_holds_table(n, 0)) {
		free(rows);
		md_newlines(b, 2);
		md_children(m, n, b);
		md_newlines(b, 2);
		return;
	}
	md_newlines(b, 2);
	for (r = 0; r < nrows && !m->truncated; r++) {
		const GumboVector *kids = &rows[r]->v.element.children;

		buf_putc(b, '|');
		for (i = 0, c = 0; i < kids->length && c < ncols; i++) {
			if (!md_is_cell(kids->data[i]))
				continue;
			buf_putc(b, ' ');
			md_inline(m, kids->data[i], b, true);
			buf_puts(b, " |");
			c++;
		}
		for (; c < ncols; c++)
			buf_puts(b, "  |");
		buf_putc(b, '\n');
		if (r == 0) {
			buf_putc(b, '|');
			for (c = 0; c < ncols; c++)
				buf_puts(b, " --- |");
			buf_putc(b, '\n');
		}
	}
	md_newlines(b, 2);
	free(rows);
}

/* Elements that are their own paragraph. */
static bool
md_is_block(GumboTag t)
{
	switch (t) {
	case GUMBO_TAG_P: case GUMBO_TAG_DIV: case GUMBO_TAG_SECTION: case GUMBO_TAG_ARTICLE:
	case GUMBO_TAG_MAIN: case GUMBO_TAG_HEADER: case GUMBO_TAG_FOOTER: case GUMBO_TAG_NAV:
	case GUMBO_TAG_ASIDE: case GUMBO_TAG_FIGURE: case GUMBO_TAG_FIGCAPTION:
	case GUMBO_TAG_ADDRESS: case GUMBO_TAG_DETAILS: case GUMBO_TAG_SUMMARY:
	case GUMBO_TAG_FORM: case GUMBO_TAG_FIELDSET: case GUMBO_TAG_CENTER:
	case GUMBO_TAG_CAPTION: case GUMBO_TAG_DL: case GUMBO_TAG_BODY: case GUMBO_TAG_HGROUP:
		return true;
	default:
		return false;
	}
}

/* Elements whose content is no text of the page. */
static bool
md_is_dropped(GumboTag t)
{
	switch (t) {
	case GUMBO_TAG_HEAD: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_NOSCRIPT:
	case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_IFRAME: case GUMBO_TAG_OBJECT: case GUMBO_TAG_EMBED:
	case GUMBO_TAG_SVG: case GUMBO_TAG_CANVAS: case GUMBO_TAG_INPUT: case GUMBO_TAG_SELECT:
	case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_BUTTON: case GUMBO_TAG_AUDIO: case GUMBO_TAG_VIDEO:
	case GUMBO_TAG_MAP:
		return true;
	default:
		return false;
	}
}

static void
md_element(struct md *m, const GumboNode *n, struct buf *b)
{
	GumboTag t = n->v.element.tag;

	if (md_is_dropped(t))
		return;
	switch (t) {
	case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3:
	case GUMBO_TAG_H4: case GUMBO_TAG_H5: case GUMBO_TAG_H6:
		md_heading(m, n, b, (int)(t - GUMBO_TAG_H1) + 1);
		return;
	case GUMBO_TAG_PRE: case GUMBO_TAG_LISTING: case GUMBO_TAG_XMP:
		md_pre(m, n, b);
		return;
	case GUMBO_TAG_CODE: case GUMBO_TAG_KBD: case GUMBO_TAG_SAMP: case GUMBO_TAG_TT:
		md_code(m, n, b);
		return;
	case GUMBO_TAG_STRONG: case GUMBO_TAG_B:
		md_wrap(m, n, b, "**");
		return;
	case GUMBO_TAG_EM: case GUMBO_TAG_I: case GUMBO_TAG_CITE: case GUMBO_TAG_VAR:
		md_wrap(m, n, b, "*");
		return;
	case GUMBO_TAG_DEL: case GUMBO_TAG_S: case GUMBO_TAG_STRIKE:
		md_wrap(m, n, b, "~~");
		return;
	case GUMBO_TAG_A:
		md_link(m, n, b);
		return;
	case GUMBO_TAG_IMG:
		md_image(m, n, b);
		return;
	case GUMBO_TAG_BR:
		md_rtrim_spaces(b);
		buf_putc(b, '\n');
		return;
	case GUMBO_TAG_HR:
		md_newlines(b, 2);
		buf_puts(b, "---");
		md_newlines(b, 2);
		return;
	case GUMBO_TAG_UL: case GUMBO_TAG_MENU: case GUMBO_TAG_DIR:
		md_list(m, n, b, false);
		return;
	case GUMBO_TAG_OL:
		md_list(m, n, b, true);
		return;
	case GUMBO_TAG_LI:
		md_item(m, n, b, "- ");
		return;
	case GUMBO_TAG_DT:
		md_newlines(b, m->in_li > 0 ? 1 : 2);
		md_children(m, n, b);
		md_newlines(b, 1);
		return;
	case GUMBO_TAG_DD:
		md_item(m, n, b, ": ");
		return;
	case GUMBO_TAG_BLOCKQUOTE:
		md_quote(m, n, b);
		return;
	case GUMBO_TAG_TABLE:
		md_table(m, n, b);
		return;
	case GUMBO_TAG_TR:
		md_newlines(b, 1);
		md_children(m, n, b);
		md_newlines(b, 1);
		return;
	case GUMBO_TAG_TD: case GUMBO_TAG_TH:
		md_children(m, n, b);
		buf_putc(b, ' ');
		return;
	default:
		break;
	}
	if (md_is_block(t)) {
		md_newlines(b, m->in_li > 0 ? 1 : 2);
		md_children(m, n, b);
		md_newlines(b, m->in_li > 0 ? 1 : 2);
		return;
	}
	md_children(m, n, b);
}

static void
md_node(struct md *m, const GumboNode *n, struct buf *b)
{
	if (m->truncated)
		return;
	if (m->top->len + b->len > m->cap) {
		m->truncated = true;
		return;
	}
	switch (n->type) {
	case GUMBO_NODE_TEXT:
	case GUMBO_NODE_WHITESPACE:
	case GUMBO_NODE_CDATA:
		md_text(b, n->v.text.text);
		break;
	case GUMBO_NODE_ELEMENT:
	case GUMBO_NODE_TEMPLATE:
		if (m->depth >= MD_MAX_DEPTH)
			break;
		m->depth++;
		md_element(m, n, b);
		m->depth--;
		break;
	default:
		break;
	}
}

static void
md_children(struct md *m, const GumboNode *n, struct buf *b)
{
	const GumboVector *kids = &n->v.element.children;
	unsigned i;

	for (i = 0; i < kids->length && !m->truncated; i++)
		md_node(m, kids->data[i], b);
}

/* The text of head > title, or NULL. */
static const GumboNode *
md_title(const GumboNode *root)
{
	const GumboVector *kids = &root->v.element.children;
	unsigned i, k;

	for (i = 0; i < kids->length; i++) {
		const GumboNode *h = kids->data[i];

		if (h->type != GUMBO_NODE_ELEMENT || h->v.element.tag != GUMBO_TAG_HEAD)
			continue;
		for (k = 0; k < h->v.element.children.length; k++) {
			const GumboNode *t = h->v.element.children.data[k];

			if (t->type == GUMBO_NODE_ELEMENT && t->v.element.tag == GUMBO_TAG_TITLE)
				return t;
		}
	}
	return NULL;
}

/* Cut b to at most n bytes, not inside a UTF-8 sequence. */
static void
md_cut(struct buf *b, size_t n)
{
	if (b->len <= n)
		return;
	while (n > 0 && ((unsigned char)b->data[n] & 0xc0) == 0x80)
		n--;
	buf_truncate(b, n);
}

/* One pass over html[0..n): the Markdown appended to out. */
static int
html2md_pass(const char *html, size_t n, const char *base_url, size_t cap, struct buf *out,
    bool *truncated)
{
	GumboOptions opts = kGumboDefaultOptions;
	GumboOutput *g;
	const GumboNode *title;
	struct buf body = BUF_INIT(BUF_NOLIMIT), t = BUF_INIT(BUF_NOLIMIT);
	struct md m;

	memset(&m, 0, sizeof m);
	opts.max_errors = 0;
	g = gumbo_parse_with_options(&opts, html, n);
	if (g == NULL)
		return -1;
	m.top = out;
	m.cap = cap;
	if (base_url != NULL && (m.base = curl_url()) != NULL &&
	    curl_url_set(m.base, CURLUPART_URL, base_url, 0) != CURLUE_OK) {
		curl_url_cleanup(m.base);
		m.base = NULL;
	}
	if ((title = md_title(g->root)) != NULL) {
		md_raw(title, &body, 0);
		md_flat(&t, &body, false);
		buf_reset(&body);
		if (t.len > 0)
			buf_printf(out, "# %s\n\n", buf_cstr(&t));
	}
	md_children(&m, g->root, &body);
	md_newlines(&body, 1);
	/* A body that begins with the title's own heading need not say it twice. */
	if (t.len > 0 && body.len > t.len + 2 && strncmp(body.data, out->data, t.len + 3) == 0)
		buf_consume(&body, t.len + 3);
	while (body.len > 0 && body.data[0] == '\n')
		buf_consume(&body, 1);
	buf_append(out, body.data != NULL ? body.data : "", body.len);
	if (out->len > cap) {
		md_cut(out, cap);
		m.truncated = true;
	}
	*truncated = m.truncated;
	if (m.base != NULL)
		curl_url_cleanup(m.base);
	buf_release(&body);
	buf_release(&t);
	gumbo_destroy_output(&opts, g);
	return 0;
}

/* The end of a prefix of html of about want bytes, before a tag (none is torn). */
static size_t
html2md_prefix(const char *html, size_t n, size_t want)
{
	size_t p = want;

	if (want >= n)
		return n;
	while (p > want / 2 && html[p] != '<')
		p--;
	return p > want / 2 ? p : want;
}

int
html2md(const char *html, size_t n, const char *base_url, size_t cap, struct buf *out,
    struct html2md_result *res)
{
	size_t start = out->len, want = cap * 2 > HTML2MD_FIRST ? cap * 2 : HTML2MD_FIRST, p;
	bool truncated = false;

	memset(res, 0, sizeof *res);
	/*
	 * The parser's time and memory grow with the page, the Markdown kept
	 * does not: a prefix is parsed first, and more only while the
	 * Markdown falls short of the cap.
	 */
	for (;;) {
		p = html2md_prefix(html, n, want < HTML2MD_PARSE_MAX ? want : HTML2MD_PARSE_MAX);
		buf_truncate(out, start);
		if (html2md_pass(html, p, base_url, cap, out, &truncated) == -1)
			return -1;
		if (truncated || p >= n || want >= HTML2MD_PARSE_MAX)
			break;
		want *= 4;
	}
	res->truncated = truncated;
	res->parsed = p;
	res->input_cut = !truncated && p < n;
	return 0;
}
