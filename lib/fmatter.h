/*
 * fmatter: the front matter of a Markdown file, the block between a first
 * line "---" and the next "---" line, in the small YAML that command and
 * skill files use: "key: value" lines (quotes around a value dropped; an
 * inline "[a, b]" kept as written, since "argument-hint: [file]" means the
 * text), a list as "- item" lines below its key, and nested maps (indented
 * lines) kept as one string of their text.
 *
 * fmatter_parse returns an object of strings (lists joined by ", "), the
 * caller's to free; *body points past the block in text.  A file without
 * a block, or whose block never closes, gives an empty object and body is
 * the whole text.
 */
#ifndef TANDEM_FMATTER_H
#define TANDEM_FMATTER_H

#include <cjson/cJSON.h>

cJSON	*fmatter_parse(const char *text, const char **body);

#endif
