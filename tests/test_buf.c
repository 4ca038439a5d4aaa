/* Unit tests of lib/buf. */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "t.h"

T_TEST(append_and_cstr)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	T_EQ_STR(buf_cstr(&b), "");
	T_EQ_INT(buf_puts(&b, "hello"), 0);
	T_EQ_INT(buf_putc(&b, ' '), 0);
	T_EQ_INT(buf_printf(&b, "%d-%s", 42, "x"), 0);
	T_EQ_STR(buf_cstr(&b), "hello 42-x");
	T_EQ_INT(b.len, 10);
	buf_release(&b);
	T_OK(b.data == NULL);
}

T_TEST(limit_releases)
{
	struct buf b = BUF_INIT(8);

	T_EQ_INT(buf_puts(&b, "12345678"), 0);
	T_EQ_INT(buf_putc(&b, '9'), -1);
	T_OK(b.data == NULL);
	T_EQ_INT(b.len, 0);
	/* Usable again afterwards, under the same limit. */
	T_EQ_INT(buf_puts(&b, "abc"), 0);
	T_EQ_STR(buf_cstr(&b), "abc");
	buf_release(&b);
}

T_TEST(printf_large)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char big[5000];

	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	T_EQ_INT(buf_printf(&b, "<%s>", big), 0);
	T_EQ_INT(b.len, 5001);
	T_OK(b.data[0] == '<' && b.data[5000] == '>' && b.data[5001] == '\0');
	buf_release(&b);
}

T_TEST(printf_over_limit)
{
	struct buf b = BUF_INIT(100);
	char big[500];

	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	T_EQ_INT(buf_printf(&b, "%s", big), -1);
	T_EQ_INT(b.len, 0);
	buf_release(&b);
}

T_TEST(consume_truncate_detach)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t n;
	char *s;

	buf_puts(&b, "abcdef");
	buf_consume(&b, 2);
	T_EQ_STR(buf_cstr(&b), "cdef");
	buf_truncate(&b, 2);
	T_EQ_STR(buf_cstr(&b), "cd");
	buf_consume(&b, 10);
	T_EQ_STR(buf_cstr(&b), "");
	buf_puts(&b, "xyz");
	s = buf_detach(&b, &n);
	T_EQ_STR(s, "xyz");
	T_EQ_INT(n, 3);
	T_OK(b.data == NULL);
	free(s);
	s = buf_detach(&b, NULL);
	T_EQ_STR(s, "");
	free(s);
}

T_TEST(json_escape)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char in[] = "a\"b\\c\nd\x01";

	buf_json_escape(&b, in, sizeof in - 1);
	T_EQ_STR(buf_cstr(&b), "a\\\"b\\\\c\\nd\\u0001");
	buf_release(&b);
}

T_TEST(binary_content)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_append(&b, "a\0b", 3);
	T_EQ_INT(b.len, 3);
	T_OK(memcmp(b.data, "a\0b", 3) == 0);
	buf_release(&b);
}

int
main(void)
{
	T_RUN(append_and_cstr);
	T_RUN(limit_releases);
	T_RUN(printf_large);
	T_RUN(printf_over_limit);
	T_RUN(consume_truncate_detach);
	T_RUN(json_escape);
	T_RUN(binary_content);
	return t_done();
}
