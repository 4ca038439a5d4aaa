/*
 * image: checking an image before it enters the conversation.
 *
 * A provider refuses a request that holds a bad image, and the image stays
 * in the history, so every later request would fail too: tandem checks
 * each one first.  image_check reads the header (PNG, JPEG, GIF, WebP, by
 * their magic bytes, never by the file's name), takes the size from it
 * and refuses what the providers refuse: more than IMAGE_MAX_SIDE pixels a
 * side or more than IMAGE_MAX_BYTES bytes.  The parser reads only within
 * the n bytes given and allocates nothing.
 *
 * image_tokens estimates what an image costs in context, from its pixels
 * (about width x height / 750), not from its base64 size.
 * image_base64 encodes the bytes for a request.
 */
#ifndef TANDEM_IMAGE_H
#define TANDEM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define IMAGE_MAX_SIDE	8000
#define IMAGE_MAX_BYTES	(5u * 1024 * 1024)

enum image_type { IMAGE_NONE, IMAGE_PNG, IMAGE_JPEG, IMAGE_GIF, IMAGE_WEBP };

struct image_info {
	enum image_type	 type;
	const char	*mime;		/* "image/png", ... (static) */
	uint32_t	 width, height;
};

/* The type and size from the header; 0, or -1 when it is no image tandem knows or is damaged. */
int	 image_probe(const unsigned char *p, size_t n, struct image_info *);
/* image_probe, then the limits; 0, or -1 with one sentence in err. */
int	 image_check(const unsigned char *p, size_t n, struct image_info *, char *err, size_t err_size);
/* Is this name's extension one of an image (.png .jpg .jpeg .gif .webp, any case)? */
int	 image_name(const char *name);
/* About width x height / 750 tokens, at least 1. */
long	 image_tokens(uint32_t width, uint32_t height);
/*
 * Micro compaction: every image block ({"type":"image", "_path",
 * "_width", "_height"}) but those of the newest keep user messages
 * becomes a text placeholder naming it.  Returns how many.
 */
int	 image_elide(cJSON *messages, int keep);
/* Append p[0..n) in base64 to out; 0, or -1 past out's limit. */
int	 image_base64(const unsigned char *p, size_t n, struct buf *out);

#endif
