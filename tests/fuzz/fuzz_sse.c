/*
 * fuzz_sse: the SSE parser (agent/sse.c) on any bytes.
 *
 * Invariants: the events of the whole feed equal those of the same bytes
 * fed in small pieces (cut where the input's own bytes say) and one byte
 * at a time; each event's data length is what the callback was told; a
 * failed parser stays failed.
 */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "fuzz.h"
#include "model/sse.h"

/* Each event as "name\0len:data\0". */
static void
fz_event(void *arg, const char *event, const char *data, size_t len)
{
	struct buf *b = arg;

	FUZZ_CHECK(event != NULL && data != NULL);
	FUZZ_CHECK(data[len] == '\0');
	buf_puts(b, event);
	buf_putc(b, '\0');
	buf_printf(b, "%zu:", len);
	buf_append(b, data, len);
	buf_putc(b, '\0');
}

/* Feed data in pieces: step 0 cuts where the bytes say, else every step bytes. */
static int
fz_run(const uint8_t *data, size_t size, size_t step, struct buf *out)
{
	struct sse s;
	size_t off = 0;
	int rc = 0;

	sse_init(&s, fz_event, out);
	while (off < size) {
		size_t n = step ? step : fuzz_chunk(data[off], size - off);

		if (n > size - off)
			n = size - off;
		if (sse_feed(&s, (const char *)data + off, n) == -1) {
			rc = -1;
			FUZZ_CHECK(sse_feed(&s, "\n\n", 2) == -1);
			break;
		}
		off += n;
	}
	sse_finish(&s);
	sse_release(&s);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf whole = BUF_INIT(BUF_NOLIMIT), cut = BUF_INIT(BUF_NOLIMIT),
	    bytes = BUF_INIT(BUF_NOLIMIT);
	int r1, r2, r3;

	r1 = fz_run(data, size, size ? size : 1, &whole);
	r2 = fz_run(data, size, 0, &cut);
	r3 = fz_run(data, size, 1, &bytes);
	FUZZ_CHECK(r1 == r2 && r2 == r3);
	FUZZ_CHECK(whole.len == cut.len && (whole.len == 0 || memcmp(whole.data, cut.data, whole.len) == 0));
	FUZZ_CHECK(whole.len == bytes.len && (whole.len == 0 || memcmp(whole.data, bytes.data, whole.len) == 0));
	buf_release(&whole);
	buf_release(&cut);
	buf_release(&bytes);
	return 0;
}
