/* Unit tests of lib/utf8. */
#include "autoconf.h"

#include <locale.h>
#include <string.h>

#include "buf.h"
#include "t.h"
#include "utf8.h"

T_TEST(decode_encode)
{
	uint32_t cp;
	char out[4];

	T_EQ_INT(utf8_decode("A", 1, &cp), 1);
	T_EQ_INT(cp, 'A');
	T_EQ_INT(utf8_decode("\xC3\x97", 2, &cp), 2);
	T_EQ_INT(cp, 0xD7);
	T_EQ_INT(utf8_decode("\xE2\x80\x94", 3, &cp), 3);
	T_EQ_INT(cp, 0x2014);
	T_EQ_INT(utf8_decode("\xF0\x9F\x98\x80", 4, &cp), 4);
	T_EQ_INT(cp, 0x1F600);
	T_EQ_INT(utf8_encode(0x1F600, out), 4);
	T_OK(memcmp(out, "\xF0\x9F\x98\x80", 4) == 0);
	T_EQ_INT(utf8_encode(0xD7, out), 2);
}

T_TEST(invalid)
{
	uint32_t cp;

	T_EQ_INT(utf8_decode("\xC3", 1, &cp), 1);		/* truncated */
	T_EQ_INT(cp, 0xFFFD);
	T_EQ_INT(utf8_decode("\xC0\xAF", 2, &cp), 1);	/* overlong */
	T_EQ_INT(cp, 0xFFFD);
	T_EQ_INT(utf8_decode("\xED\xA0\x80", 3, &cp), 1);	/* surrogate */
	T_EQ_INT(cp, 0xFFFD);
	T_OK(!utf8_valid("a\xFFz", 3));
	T_OK(utf8_valid("\xEF\xBF\xBD", 3));
	T_OK(utf8_valid("\xD0\xB8\xD0\xB7", 4));
}

T_TEST(complete_prefix)
{
	/* "известни" split mid-character. */
	T_EQ_INT(utf8_complete_prefix("\xD0", 1), 0);
	T_EQ_INT(utf8_complete_prefix("a\xD0\xB8\xD0", 4), 3);
	T_EQ_INT(utf8_complete_prefix("a\xE2\x80", 3), 1);
	T_EQ_INT(utf8_complete_prefix("a\xE2\x80\x94", 4), 4);
	T_EQ_INT(utf8_complete_prefix("abc", 3), 3);
	T_EQ_INT(utf8_floor("a\xE2\x80\x94z", 2), 1);
	T_EQ_INT(utf8_floor("a\xE2\x80\x94z", 4), 4);
}

T_TEST(sanitize)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	utf8_sanitize(&b, "ok\xFF\xFEyes\xC3\x97", 9);
	T_EQ_STR(buf_cstr(&b), "ok\xEF\xBF\xBD\xEF\xBF\xBDyes\xC3\x97");
	buf_release(&b);
}

T_TEST(sanitize_term)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	utf8_sanitize_term(&b, "a\033]52;c;aGk=\007\n\tb\r\x7f\xc2\x9b\xff", 21, "\n\t");
	T_EQ_STR(buf_cstr(&b), "a\xe2\x90\x9b]52;c;aGk=\xe2\x90\x87\n\tb\xe2\x90\x8d"
	    "\xe2\x90\xa1\xef\xbf\xbd\xef\xbf\xbd");
	buf_reset(&b);
	utf8_sanitize_term(&b, "x\ny", 3, NULL);
	T_EQ_STR(buf_cstr(&b), "x\xe2\x90\x8ay");
	buf_release(&b);
}

T_TEST(width)
{
	T_EQ_INT(utf8_width("abc", 3), 3);
	T_EQ_INT(utf8_width("\xE4\xB8\xAD\xE6\x96\x87", 6), 4);	/* 中文: wide */
	T_EQ_INT(utf8_width("e\xCC\x81", 3), 1);			/* e + combining acute */
	/* A joined emoji (man, ZWJ, woman, ZWJ, girl) is one character of two columns. */
	T_EQ_INT(utf8_width("\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7", 18), 2);
	{
		int w;

		T_EQ_INT((int)utf8_cluster("\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9x", 12, &w), 11);
		T_EQ_INT(w, 2);
		/* A joiner at the end joins nothing and stays with what it follows. */
		T_EQ_INT((int)utf8_cluster("a\xE2\x80\x8D", 4, &w), 4);
		T_EQ_INT(w, 1);
	}
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	T_RUN(decode_encode);
	T_RUN(invalid);
	T_RUN(complete_prefix);
	T_RUN(sanitize);
	T_RUN(sanitize_term);
	T_RUN(width);
	return t_done();
}
