/* Tests for lib/image.c: each format's header, damaged and oversized images, tokens, base64. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "t.h"

static const unsigned char png[] = {
	0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
	0, 0, 0x03, 0x20, 0, 0, 0x02, 0x58, 8, 6, 0, 0, 0,
};
static const unsigned char gif[] = { 'G', 'I', 'F', '8', '9', 'a', 0x40, 0x01, 0xF0, 0x00, 0 };
static const unsigned char jpeg[] = {
	0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
	0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
};
static const unsigned char webp_x[] = {
	'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X', 10, 0, 0, 0,
	0, 0, 0, 0, 0x1F, 0x03, 0x00, 0x57, 0x02, 0x00, 0, 0,
};
static const unsigned char webp_l[] = {
	'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'L', 10, 0, 0, 0,
	0x2f, 0x63, 0xC0, 0x00, 0x00, 0, 0, 0, 0, 0,
};
static const unsigned char webp_lossy[] = {
	'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' ', 10, 0, 0, 0,
	0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xE0, 0x01,
};

T_TEST(each_format_gives_its_type_and_size)
{
	struct image_info im;

	T_EQ_INT(image_probe(png, sizeof png, &im), 0);
	T_EQ_STR(im.mime, "image/png");
	T_EQ_INT((int)im.width, 800);
	T_EQ_INT((int)im.height, 600);
	T_EQ_INT(image_probe(gif, sizeof gif, &im), 0);
	T_EQ_STR(im.mime, "image/gif");
	T_EQ_INT((int)im.width, 320);
	T_EQ_INT((int)im.height, 240);
	T_EQ_INT(image_probe(jpeg, sizeof jpeg, &im), 0);
	T_EQ_STR(im.mime, "image/jpeg");
	T_EQ_INT((int)im.width, 640);
	T_EQ_INT((int)im.height, 480);
	T_EQ_INT(image_probe(webp_x, sizeof webp_x, &im), 0);
	T_EQ_STR(im.mime, "image/webp");
	T_EQ_INT((int)im.width, 800);
	T_EQ_INT((int)im.height, 600);
	T_EQ_INT(image_probe(webp_l, sizeof webp_l, &im), 0);
	T_EQ_INT((int)im.width, 100);
	T_EQ_INT((int)im.height, 4);
	T_EQ_INT(image_probe(webp_lossy, sizeof webp_lossy, &im), 0);
	T_EQ_INT((int)im.width, 640);
	T_EQ_INT((int)im.height, 480);
}

T_TEST(damaged_truncated_and_unknown_are_refused)
{
	struct image_info im;
	unsigned char bad[sizeof png];
	char err[200];
	size_t i;

	for (i = 0; i < sizeof png; i++)
		T_OK(image_probe(png, i, &im) == -1 || i >= 24);
	for (i = 0; i < 29; i++)
		T_EQ_INT(image_probe(jpeg, i, &im), -1);
	memcpy(bad, png, sizeof png);
	memcpy(bad + 12, "IHDX", 4);
	T_EQ_INT(image_check(bad, sizeof bad, &im, err, sizeof err), -1);
	T_EQ_STR(err, "a damaged image/png header: no size in it");
	T_EQ_INT(image_check((const unsigned char *)"hello world, not an image", 25, &im, err, sizeof err), -1);
	T_EQ_STR(err, "not a PNG, JPEG, GIF or WebP image");
	/* RIFF that is no WebP (a WAV). */
	T_EQ_INT(image_probe((const unsigned char *)"RIFF\0\0\0\0WAVEfmt xxxxxxxxxxxxxxxxxx", 32, &im), -1);
	/* A zero size is no image. */
	memcpy(bad, gif, sizeof gif);
	bad[6] = bad[7] = 0;
	T_EQ_INT(image_probe(bad, sizeof gif, &im), -1);
}

T_TEST(limits_of_the_providers)
{
	struct image_info im;
	unsigned char big[sizeof png];
	char err[200];

	T_EQ_INT(image_check(png, sizeof png, &im, err, sizeof err), 0);
	memcpy(big, png, sizeof png);
	big[18] = 0x1F;
	big[19] = 0x41;		/* 8001 wide */
	T_EQ_INT(image_check(big, sizeof big, &im, err, sizeof err), -1);
	T_EQ_STR(err, "the image is 8001x600 pixels, more than the 8000 a side a model takes");
	big[18] = 0x1F;
	big[19] = 0x40;		/* 8000: allowed */
	T_EQ_INT(image_check(big, sizeof big, &im, err, sizeof err), 0);
	T_EQ_INT(image_check(png, IMAGE_MAX_BYTES + 1, &im, err, sizeof err), -1);
	T_CONTAINS(err, "more than the 5 MB a model takes");
}

T_TEST(tokens_from_pixels_and_names)
{
	T_EQ_INT((int)image_tokens(800, 600), 640);
	T_EQ_INT((int)image_tokens(1, 1), 1);
	T_EQ_INT((int)image_tokens(8000, 8000), 85334);
	T_OK(image_name("shot.PNG"));
	T_OK(image_name("a/b.jpeg"));
	T_OK(image_name("x.webp"));
	T_OK(!image_name("png"));
	T_OK(!image_name("notes.txt"));
}

T_TEST(base64_of_every_tail_length)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	image_base64((const unsigned char *)"Man", 3, &b);
	image_base64((const unsigned char *)"Ma", 2, &b);
	image_base64((const unsigned char *)"M", 1, &b);
	image_base64((const unsigned char *)"", 0, &b);
	T_EQ_STR(buf_cstr(&b), "TWFuTWE=TQ==");
	buf_release(&b);
}

T_TEST(old_images_become_placeholders)
{
	cJSON *m = cJSON_Parse("[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
	    "{\"type\":\"image\",\"_path\":\"old.png\",\"_width\":10,\"_height\":20,\"source\":{}}]},"
	    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"b\"}]},"
	    "{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"_path\":\"new.png\",\"source\":{}}]}]");
	char *s;

	T_EQ_INT(image_elide(m, 1), 1);
	s = cJSON_PrintUnformatted(m);
	T_CONTAINS(s, "{\"type\":\"text\",\"text\":\"[image old.png, 10x20, removed to save context]\"}");
	T_CONTAINS(s, "\"_path\":\"new.png\"");
	free(s);
	T_EQ_INT(image_elide(m, 1), 0);
	T_EQ_INT(image_elide(m, 0), 1);
	T_EQ_INT(image_elide(NULL, 0), 0);
	cJSON_Delete(m);
}

int
main(void)
{
	T_RUN(each_format_gives_its_type_and_size);
	T_RUN(damaged_truncated_and_unknown_are_refused);
	T_RUN(limits_of_the_providers);
	T_RUN(tokens_from_pixels_and_names);
	T_RUN(base64_of_every_tail_length);
	T_RUN(old_images_become_placeholders);
	return t_done();
}
