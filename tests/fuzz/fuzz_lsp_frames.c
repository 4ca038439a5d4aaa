/*
 * fuzz_lsp_frames: the Content-Length framing of the language servers'
 * stdio (agent/lsp/lsp_rpc.c) on any bytes, with a small body limit.
 *
 * Invariants: the bodies of the whole feed equal those of the same bytes
 * fed in pieces (cut where the input's own bytes say) and one byte at a
 * time, and so do the count and whether the stream broke; no body passes
 * the limit; the bodies framed again by lsp_frame_put read back the same.
 */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "fuzz.h"
#include "lsp/lsp_rpc.h"

#define FZ_MAX 64

struct fz_out {
	struct buf	 text;		/* "n:body" for each */
	struct buf	 reframed;	/* each body framed again */
};

static void
fz_body(void *arg, const char *body, size_t n)
{
	struct fz_out *o = arg;

	FUZZ_CHECK(n <= FZ_MAX);
	buf_printf(&o->text, "%zu:", n);
	buf_append(&o->text, body, n);
	lsp_frame_put(&o->reframed, body, n);
}

static void
fz_plain(void *arg, const char *body, size_t n)
{
	struct buf *b = arg;

	buf_printf(b, "%zu:", n);
	buf_append(b, body, n);
}

static bool
fz_run(const uint8_t *data, size_t size, size_t step, struct fz_out *o, unsigned long *count)
{
	struct lsp_frames f;
	size_t off = 0;
	bool broken;

	lsp_frames_init(&f, FZ_MAX);
	while (off < size) {
		size_t n = step ? step : fuzz_chunk(data[off], size - off);

		if (n > size - off)
			n = size - off;
		lsp_frames_feed(&f, (const char *)data + off, n, fz_body, o);
		off += n;
	}
	broken = lsp_frames_broken(&f) != NULL;
	*count = f.messages;
	lsp_frames_release(&f);
	return broken;
}

static bool
fz_same(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_out whole = { BUF_INIT(BUF_NOLIMIT), BUF_INIT(BUF_NOLIMIT) },
	    cut = { BUF_INIT(BUF_NOLIMIT), BUF_INIT(BUF_NOLIMIT) },
	    bytes = { BUF_INIT(BUF_NOLIMIT), BUF_INIT(BUF_NOLIMIT) };
	struct buf again = BUF_INIT(BUF_NOLIMIT);
	struct lsp_frames f;
	unsigned long c1, c2, c3;
	bool b1, b2, b3;

	b1 = fz_run(data, size, size ? size : 1, &whole, &c1);
	b2 = fz_run(data, size, 0, &cut, &c2);
	b3 = fz_run(data, size, 1, &bytes, &c3);
	FUZZ_CHECK(b1 == b2 && b2 == b3);
	FUZZ_CHECK(c1 == c2 && c2 == c3);
	FUZZ_CHECK(fz_same(&whole.text, &cut.text));
	FUZZ_CHECK(fz_same(&whole.text, &bytes.text));
	/* what was read, framed again, reads back the same and sound */
	lsp_frames_init(&f, FZ_MAX);
	lsp_frames_feed(&f, whole.reframed.data != NULL ? whole.reframed.data : "", whole.reframed.len,
	    fz_plain, &again);
	FUZZ_CHECK(lsp_frames_broken(&f) == NULL);
	FUZZ_CHECK(fz_same(&again, &whole.text));
	lsp_frames_release(&f);
	buf_release(&again);
	buf_release(&whole.text);
	buf_release(&whole.reframed);
	buf_release(&cut.text);
	buf_release(&cut.reframed);
	buf_release(&bytes.text);
	buf_release(&bytes.reframed);
	return 0;
}
