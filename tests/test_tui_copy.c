/* Tests for tui/copy.c: finding a fenced code block as written, and the OSC 52 bytes. */
#include "autoconf.h"

#include <string.h>

#include "copy.h"
#include "t.h"

static const char md[] =
    "Here:\n\n```c\nint main(void)\n{\n\treturn 0;   \n}\n```\n\ntext\n"
    "~~~~\n```not a close\n~~~~\n"
    "  ```sh\nmake check\n  ```\n";

static const char *
block(const char *s, int i)
{
	static char out[512];
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (copy_code_block(s, strlen(s), i, &b) == -1) {
		buf_release(&b);
		return NULL;
	}
	snprintf(out, sizeof out, "%s", buf_cstr(&b));
	buf_release(&b);
	return out;
}

T_TEST(blocks_by_number_as_written)
{
	T_EQ_STR(block(md, 1), "int main(void)\n{\n\treturn 0;   \n}");
	T_EQ_STR(block(md, 2), "```not a close");
	T_EQ_STR(block(md, 3), "make check");
	T_EQ_STR(block(md, -1), "make check");
	T_OK(block(md, 4) == NULL);
	T_OK(block("no code here\n", 1) == NULL);
	T_OK(block("no code here\n", -1) == NULL);
}

T_TEST(an_unclosed_fence_runs_to_the_end)
{
	T_EQ_STR(block("```\nline one\nline two\n", 1), "line one\nline two\n");
	T_EQ_STR(block("```\n", 1), "");
	T_EQ_STR(block("```\n\n```", 1), "");
}

T_TEST(osc52_plain_and_through_tmux)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	copy_osc52("hi", 2, 0, &b);
	T_EQ_STR(buf_cstr(&b), "\033]52;c;aGk=\a");
	buf_reset(&b);
	copy_osc52("hi", 2, 1, &b);
	T_EQ_STR(buf_cstr(&b), "\033Ptmux;\033\033]52;c;aGk=\a\033\\");
	buf_release(&b);
}

int
main(void)
{
	T_RUN(blocks_by_number_as_written);
	T_RUN(an_unclosed_fence_runs_to_the_end);
	T_RUN(osc52_plain_and_through_tmux);
	return t_done();
}
