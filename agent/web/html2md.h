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

/*
 * HTML parsed at first, and at most: the parser's time and memory grow
 * with what it reads (about 9 bytes of memory per byte), the Markdown
 * kept does not, so only as much of a page is parsed as fills the cap.
 */
#define HTML2MD_FIRST		(64u * 1024)
#define HTML2MD_PARSE_MAX	(4u * 1024 * 1024)

struct html2md_result {
	bool	truncated;	/* the Markdown reached cap and the rest was left out */
	bool	input_cut;	/* only the first HTML2MD_PARSE_MAX bytes of the page were parsed */
	size_t	parsed;		/* bytes of the page parsed */
};

/*
 * html (n bytes of UTF-8) as Markdown appended to out, at most about cap
 * bytes; base_url (may be NULL) makes relative links absolute.  The
 * page's title, when it has one, comes first as "# title".  A prefix of
 * the page is parsed first, longer ones only while the Markdown stays
 * under cap.  0, or -1 when the parser failed.
 */
int	html2md(const char *html, size_t n, const char *base_url, size_t cap, struct buf *out,
	    struct html2md_result *res);

#endif
