/* Image headers and limits: see image.h. */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "image.h"
#include "json.h"

static uint32_t
be16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t
le16(const unsigned char *p)
{
	return (uint32_t)p[1] << 8 | p[0];
}

static uint32_t
le24(const unsigned char *p)
{
	return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int
image_png(const unsigned char *p, size_t n, struct image_info *im)
{
	if (n < 24 || memcmp(p + 12, "IHDR", 4) != 0 || be32(p + 8) != 13)
		return -1;
	im->width = be32(p + 16);
	im->height = be32(p + 20);
	return 0;
}

static int
image_gif(const unsigned char *p, size_t n, struct image_info *im)
{
	if (n < 10)
		return -1;
	im->width = le16(p + 6);
	im->height = le16(p + 8);
	return 0;
}

/* JPEG: walk the segments to the first start-of-frame. */
static int
image_jpeg(const unsigned char *p, size_t n, struct image_info *im)
{
	size_t i = 2;

	while (i + 4 <= n) {
		unsigned m;
		size_t len;

		if (p[i] != 0xFF)
			return -1;
		while (i < n && p[i] == 0xFF)
			i++;
		if (i >= n)
			return -1;
		m = p[i++];
		if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7))
			continue;
		if (m == 0xD9 || m == 0xDA || i + 2 > n)
			return -1;
		len = be16(p + i);
		if (len < 2)
			return -1;
		if ((m >= 0xC0 && m <= 0xCF) && m != 0xC4 && m != 0xC8 && m != 0xCC) {
			if (len < 7 || i + 7 > n)
				return -1;
			im->height = be16(p + i + 3);
			im->width = be16(p + i + 5);
			return 0;
		}
		if (len > n - i)
			return -1;
		i += len;
	}
	return -1;
}

static int
image_webp(const unsigned char *p, size_t n, struct image_info *im)
{
	if (n < 30)
		return -1;
	if (memcmp(p + 12, "VP8 ", 4) == 0) {
		if (p[23] != 0x9d || p[24] != 0x01 || p[25] != 0x2a)
			return -1;
		im->width = le16(p + 26) & 0x3fff;
		im->height = le16(p + 28) & 0x3fff;
		return 0;
	}
	if (memcmp(p + 12, "VP8L", 4) == 0) {
		uint32_t b = (uint32_t)p[21] | (uint32_t)p[22] << 8 | (uint32_t)p[23] << 16 |
		    (uint32_t)p[24] << 24;

		if (p[20] != 0x2f)
			return -1;
		im->width = (b & 0x3fff) + 1;
		im->height = ((b >> 14) & 0x3fff) + 1;
		return 0;
	}
	if (memcmp(p + 12, "VP8X", 4) == 0) {
		im->width = le24(p + 24) + 1;
		im->height = le24(p + 27) + 1;
		return 0;
	}
	return -1;
}

static const struct image_kind {
	const unsigned char	*magic;
	size_t			 off, len;
	enum image_type		 type;
	const char		*mime;
	int			(*size)(const unsigned char *, size_t, struct image_info *);
} image_kinds[] = {
	{ (const unsigned char *)"\x89PNG\r\n\x1a\n", 0, 8, IMAGE_PNG, "image/png", image_png },
	{ (const unsigned char *)"\xFF\xD8\xFF", 0, 3, IMAGE_JPEG, "image/jpeg", image_jpeg },
	{ (const unsigned char *)"GIF87a", 0, 6, IMAGE_GIF, "image/gif", image_gif },
	{ (const unsigned char *)"GIF89a", 0, 6, IMAGE_GIF, "image/gif", image_gif },
	{ (const unsigned char *)"WEBP", 8, 4, IMAGE_WEBP, "image/webp", image_webp },
};

int
image_probe(const unsigned char *p, size_t n, struct image_info *im)
{
	size_t i;

	memset(im, 0, sizeof *im);
	for (i = 0; i < sizeof image_kinds / sizeof image_kinds[0]; i++) {
		const struct image_kind *k = &image_kinds[i];

		if (n < k->off + k->len || memcmp(p + k->off, k->magic, k->len) != 0)
			continue;
		if (k->type == IMAGE_WEBP && memcmp(p, "RIFF", 4) != 0)
			continue;
		im->type = k->type;
		im->mime = k->mime;
		if (k->size(p, n, im) == -1 || im->width == 0 || im->height == 0) {
			im->width = im->height = 0;
			return -1;
		}
		return 0;
	}
	return -1;
}

int
image_check(const unsigned char *p, size_t n, struct image_info *im, char *err, size_t err_size)
{
	if (n > IMAGE_MAX_BYTES) {
		snprintf(err, err_size, "the image is %.1f MB, more than the %u MB a model takes",
		    (double)n / (1024.0 * 1024.0), IMAGE_MAX_BYTES / (1024 * 1024));
		return -1;
	}
	if (image_probe(p, n, im) == -1) {
		if (im->type == IMAGE_NONE)
			snprintf(err, err_size, "%s", "not a PNG, JPEG, GIF or WebP image");
		else
			snprintf(err, err_size, "a damaged %s header: no size in it", im->mime);
		return -1;
	}
	if (im->width > IMAGE_MAX_SIDE || im->height > IMAGE_MAX_SIDE) {
		snprintf(err, err_size, "the image is %ux%u pixels, more than the %d a side a model takes",
		    (unsigned)im->width, (unsigned)im->height, IMAGE_MAX_SIDE);
		return -1;
	}
	return 0;
}

int
image_name(const char *name)
{
	static const char *const exts[] = { ".png", ".jpg", ".jpeg", ".gif", ".webp" };
	size_t n = strlen(name), i;

	for (i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		size_t e = strlen(exts[i]);

		if (n > e && strcasecmp(name + n - e, exts[i]) == 0)
			return 1;
	}
	return 0;
}

long
image_tokens(uint32_t width, uint32_t height)
{
	long t = (long)(((uint64_t)width * height + 749) / 750);

	return t > 0 ? t : 1;
}

int
image_base64(const unsigned char *p, size_t n, struct buf *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = tab[v & 63];
		if (buf_append(out, q, 4) == -1)
			return -1;
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		q[3] = '=';
		if (buf_append(out, q, 4) == -1)
			return -1;
	}
	return 0;
}

int
image_elide(cJSON *messages, int keep)
{
	cJSON *m, *b;
	int users = 0, n = 0;

	for (m = messages != NULL ? messages->child : NULL; m != NULL; m = m->next)
		users += strcmp(json_str(m, "role", ""), "user") == 0;
	for (m = messages != NULL ? messages->child : NULL; m != NULL && users > keep; m = m->next) {
		if (strcmp(json_str(m, "role", ""), "user") != 0)
			continue;
		users--;
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			struct buf t = BUF_INIT(4096);
			cJSON *ph;

			if (strcmp(json_str(b, "type", ""), "image") != 0)
				continue;
			buf_printf(&t, "[image %s, %dx%d, removed to save context]", json_str(b, "_path", "?"),
			    (int)json_int(b, "_width", 0), (int)json_int(b, "_height", 0));
			ph = cJSON_CreateObject();
			cJSON_AddStringToObject(ph, "type", "text");
			cJSON_AddStringToObject(ph, "text", buf_cstr(&t));
			buf_release(&t);
			cJSON_ReplaceItemViaPointer(json_get(m, "content"), b, ph);
			b = ph;
			n++;
		}
	}
	return n;
}
