/* Unit tests of the LSP base protocol (agent/lsp/lsp_rpc.c): framing and positions. */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "lsp/lsp_rpc.h"
#include "t.h"

static void
collect(void *arg, const char *body, size_t n)
{
	struct buf *b = arg;

	buf_append(b, body, n);
	buf_putc(b, '|');
}

/* Feed s in pieces of step bytes; the bodies joined by '|'. */
static const char *
feed(struct lsp_frames *f, struct buf *out, const char *s, size_t step)
{
	size_t n = strlen(s), off;

	for (off = 0; off < n; off += step)
		lsp_frames_feed(f, s + off, n - off < step ? n - off : step, collect, out);
	return buf_cstr(out);
}

T_TEST(frames)
{
	static const char two[] = "Content-Length: 7\r\n\r\n{\"a\":1}"
	    "content-length:  2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}";
	size_t step;

	for (step = 1; step <= sizeof two; step++) {
		struct lsp_frames f;
		struct buf out = BUF_INIT(BUF_NOLIMIT);

		lsp_frames_init(&f, 1024);
		T_EQ_STR(feed(&f, &out, two, step), "{\"a\":1}|{}|");
		T_OK(lsp_frames_broken(&f) == NULL);
		T_EQ_INT(f.messages, 2);
		lsp_frames_release(&f);
		buf_release(&out);
	}
}

T_TEST(garbage)
{
	struct lsp_frames f;
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	lsp_frames_init(&f, 1024);
	feed(&f, &out, "Hello: there\r\n\r\n{}", 64);
	T_CONTAINS(lsp_frames_broken(&f), "no Content-Length");
	/* once broken it stays so: nothing more is read */
	feed(&f, &out, "Content-Length: 2\r\n\r\n{}", 64);
	T_EQ_STR(buf_cstr(&out), "");
	lsp_frames_release(&f);

	lsp_frames_init(&f, 10);
	feed(&f, &out, "Content-Length: 11\r\n\r\n", 64);
	T_CONTAINS(lsp_frames_broken(&f), "larger than the limit");
	lsp_frames_release(&f);

	lsp_frames_init(&f, 10);
	feed(&f, &out, "Content-Length: -1\r\n\r\n", 64);
	T_OK(lsp_frames_broken(&f) != NULL);
	lsp_frames_release(&f);

	lsp_frames_init(&f, 1024);
	for (int i = 0; i < 600; i++)
		lsp_frames_feed(&f, "X-Long: 1234567\r\n", 8, collect, &out);
	T_CONTAINS(lsp_frames_broken(&f), "header passed");
	lsp_frames_release(&f);
	buf_release(&out);
}

T_TEST(put)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), out = BUF_INIT(BUF_NOLIMIT);
	struct lsp_frames f;

	lsp_frame_put(&b, "{\"id\":1}", 8);
	T_EQ_STR(buf_cstr(&b), "Content-Length: 8\r\n\r\n{\"id\":1}");
	lsp_frames_init(&f, 64);
	T_EQ_STR(feed(&f, &out, buf_cstr(&b), 3), "{\"id\":1}|");
	lsp_frames_release(&f);
	buf_release(&b);
	buf_release(&out);
}

T_TEST(positions)
{
	/* "aö😀b": a 1 byte, ö 2 bytes (1 UTF-16 unit), 😀 4 bytes (2 units), b */
	static const char line[] = "a\xC3\xB6\xF0\x9F\x98\x80" "b";
	size_t n = sizeof line - 1;
	const char *text = "first\nsecond line\nlast", *p;
	size_t ln;

	/* b is the 4th character */
	T_EQ_INT(lsp_col_to_chars(line, n, 4, LSP_ENC_UTF16), 4);
	T_EQ_INT(lsp_col_to_chars(line, n, 7, LSP_ENC_UTF8), 4);
	T_EQ_INT(lsp_col_to_chars(line, n, 3, LSP_ENC_UTF32), 4);
	T_EQ_INT(lsp_chars_to_col(line, n, 4, LSP_ENC_UTF16), 4);
	T_EQ_INT(lsp_chars_to_col(line, n, 4, LSP_ENC_UTF8), 7);
	T_EQ_INT(lsp_chars_to_col(line, n, 4, LSP_ENC_UTF32), 3);
	/* ö is the 2nd */
	T_EQ_INT(lsp_col_to_chars(line, n, 1, LSP_ENC_UTF16), 2);
	T_EQ_INT(lsp_chars_to_col(line, n, 2, LSP_ENC_UTF8), 1);
	/* past the end of the line: counted on as if ASCII */
	T_EQ_INT(lsp_col_to_chars(line, n, 9, LSP_ENC_UTF8), 6);
	T_EQ_INT(lsp_chars_to_col(line, n, 7, LSP_ENC_UTF16), 7);
	T_OK(lsp_line_of(text, strlen(text), 1, &p, &ln));
	T_OK(ln == 11 && memcmp(p, "second line", 11) == 0);
	T_OK(lsp_line_of(text, strlen(text), 2, &p, &ln) && ln == 4);
	T_OK(!lsp_line_of(text, strlen(text), 3, &p, &ln));
}

int
main(void)
{
	T_RUN(frames);
	T_RUN(garbage);
	T_RUN(put);
	T_RUN(positions);
	return t_done();
}
