/*
 * html2md: an HTML page as Markdown, for a model to read.
 *
 * The page is parsed by gumbo, an HTML5 parser (the tree a browser
 * builds, whatever the markup's faults), and walked once: headings, lists
 * (nested), links (made absolute against the page's URL), emphasis, inline
 * code, code blocks (with the language a class names), block quotes,
 * tables (GFM pipes), definition lists and images with alt text are kept;
 * scripts, styles, forms and the head (but its title) are dropped.
 * Owns nothing beyond a call.
 */
#ifndef TANDEM_HTML2MD_H
#define TANDEM_HTML2MD_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

struct html2md_result {
	bool	truncated;	/* the Markdown reached cap and the rest was left out */
};

/*
 * html (n bytes of UTF-8) as Markdown appended to out, at most about cap
 * bytes; base_url (may be NULL) makes relative links absolute.  The
 * page's title, when it has one, comes first as "# title".  0, or -1 when
 * the parser failed (nothing appended).
 */
int	html2md(const char *html, size_t n, const char *base_url, size_t cap, struct buf *out,
	    struct html2md_result *res);

#endif
