/*
 * fuzz_html2md: HTML to Markdown (agent/web/html2md.c) on any bytes.
 *
 * Invariants: the Markdown is valid UTF-8 when the page is (the page is
 * made valid first, as web_fetch does), never longer than the cap, cut
 * only when it says so; the input's first byte picks the cap, so small
 * caps that cut inside a table, a list or a code block are tried too.
 */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "fuzz.h"
#include "utf8.h"
#include "web/html2md.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf in = BUF_INIT(BUF_NOLIMIT), out = BUF_INIT(BUF_NOLIMIT);
	struct html2md_result r;
	size_t cap;

	if (size == 0)
		return 0;
	cap = data[0] & 1 ? (size_t)(data[0] >> 1) * 8 + 1 : 1u << 20;
	utf8_sanitize(&in, (const char *)data + 1, size - 1);
	if (html2md(buf_cstr(&in), in.len, "http://example.com/dir/page.html", cap, &out, &r) == 0) {
		FUZZ_CHECK(out.len <= cap);
		FUZZ_CHECK(utf8_valid(buf_cstr(&out), out.len));
	}
	buf_release(&in);
	buf_release(&out);
	return 0;
}
