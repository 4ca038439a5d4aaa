/*
 * attach: what a prompt's "@path" mentions bring with them, read at send
 * time.
 *
 * A mention is "@" at the start of the prompt or after a blank or "(",
 * then a path up to the next blank (trailing , . ; : ! ? ) ' " dropped
 * when the path with them does not exist).  Only paths that exist count:
 * "@someone" stays text.  Each one is read as the model's own tools read
 * it, with the same rules: a file through read_file (numbered lines,
 * capped at TOOL_READ_CAP, binary files refused), a directory through
 * list_dir; the permission rules (a Read deny rule) and the workspace's
 * confinement (tools/sandbox.c) apply as to the model's calls.  What was
 * read goes after the prompt as one text block per mention,
 * <attachment path="..." kind="file|dir">...</attachment>, and a failure
 * as a block saying it could not be attached and why; an "attachment"
 * event (path, kind, bytes, error) tells the screen either way.  At most
 * ATTACH_MAX mentions a prompt, each path once.
 */
#ifndef TANDEM_ATTACH_H
#define TANDEM_ATTACH_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent.h"

#define ATTACH_MAX	10

struct event_bus;
struct perm_rules;
struct tool_env;

/*
 * Append the blocks of prompt's mentions to content; returns how many
 * mentions there were.  images: the model takes images (model_caps).
 *
 * An image (a mention of one, or a bare path to an existing .png .jpg
 * .jpeg .gif .webp in the prompt) is read through the sandbox under the
 * Read rules, checked (lib/image.c) and kept in the session's files/
 * (content-addressed); the conversation holds an image block naming that
 * file ("_file", with "_path", "_width", "_height", "_tokens"), never its
 * bytes, so log.jsonl stays small; the provider reads it when it builds a
 * request (attach_image_request, attach_image_openai).
 */
int	 attach_mentions(const struct tool_env *, const struct perm_rules *, enum perm_mode,
	    struct event_bus *, bool images, const char *prompt, cJSON *content);

/*
 * read_file on an image: when tool is read_file and input's path names an
 * image, load it as a mention would; on success result says so, is_error
 * is cleared and the image block is added to *blocks (the call's content
 * blocks), which sched_results puts in the tool_result's content (marked
 * "_images").
 * Returns whether it did; when the image is refused, why is appended to
 * result.
 */
bool	 attach_tool_image(const struct tool_env *, const struct perm_rules *, enum perm_mode,
	    bool images, const char *tool, const cJSON *input, struct buf *result, bool *is_error,
	    cJSON **blocks);
/*
 * An image tandem itself wrote to file (a paste from the clipboard): read
 * it (no sandbox: it is not the workspace's), check it, keep it in files/
 * and return its image block named name, or NULL with err filled.
 */
cJSON	*attach_image_file(const struct tool_env *, const char *file, const char *name, struct buf *err);
/* A tool_result holding images, for the Anthropic request (the caller frees). */
cJSON	*attach_result_request(const cJSON *block);
/* The Anthropic request's image block for a conversation's one (the caller frees). */
cJSON	*attach_image_request(const cJSON *block);
/* The OpenAI chat content part ({"type":"image_url",...}) for it (the caller frees). */
cJSON	*attach_image_openai(const cJSON *block);


/*
 * The next mention in s from *pos: its path (the caller frees) or NULL at
 * the end; *pos moves past it.  root resolves relative paths for the
 * existence check.
 */
char	*attach_next(const char *root, const char *s, size_t *pos);

#endif
