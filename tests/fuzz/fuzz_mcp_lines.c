/*
 * fuzz_mcp_lines: the line framing of MCP's stdio transport
 * (agent/mcp_stdio.c) on any bytes, with a small line limit.
 *
 * Invariants: the lines of the whole feed equal those of the same bytes
 * fed in pieces (cut where the input's own bytes say) and one byte at a
 * time, and so does the count of dropped lines; no line is empty, holds a
 * newline or passes the limit.  (Only one CR of a line end is taken off:
 * "x\r\r\n" is the line "x\r", which JSON reads as "x" and whitespace.)
 */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "fuzz.h"
#include "mcp/mcp_stdio.h"

#define FZ_MAX 40

static void
fz_line(void *arg, const char *line, size_t n)
{
	struct buf *b = arg;

	FUZZ_CHECK(n > 0 && n <= FZ_MAX);
	FUZZ_CHECK(memchr(line, '\n', n) == NULL);
	buf_printf(b, "%zu:", n);
	buf_append(b, line, n);
}

static unsigned long
fz_run(const uint8_t *data, size_t size, size_t step, struct buf *out)
{
	struct mcp_lines l;
	size_t off = 0;
	unsigned long dropped;

	mcp_lines_init(&l, FZ_MAX);
	while (off < size) {
		size_t n = step ? step : fuzz_chunk(data[off], size - off);

		if (n > size - off)
			n = size - off;
		mcp_lines_feed(&l, (const char *)data + off, n, fz_line, out);
		off += n;
	}
	dropped = l.dropped;
	mcp_lines_release(&l);
	return dropped;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf whole = BUF_INIT(BUF_NOLIMIT), cut = BUF_INIT(BUF_NOLIMIT),
	    bytes = BUF_INIT(BUF_NOLIMIT);
	unsigned long d1, d2, d3;

	d1 = fz_run(data, size, size ? size : 1, &whole);
	d2 = fz_run(data, size, 0, &cut);
	d3 = fz_run(data, size, 1, &bytes);
	FUZZ_CHECK(d1 == d2 && d2 == d3);
	FUZZ_CHECK(whole.len == cut.len && (whole.len == 0 || memcmp(whole.data, cut.data, whole.len) == 0));
	FUZZ_CHECK(whole.len == bytes.len && (whole.len == 0 || memcmp(whole.data, bytes.data, whole.len) == 0));
	buf_release(&whole);
	buf_release(&cut);
	buf_release(&bytes);
	return 0;
}
