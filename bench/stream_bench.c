/*
 * stream_bench: how decoding cost grows with the number of content blocks.
 *
 *	stream_bench [N...]
 *
 * For each N (default 10000 and 100000) an Anthropic stream of N small
 * text blocks, then an OpenAI stream of N tool calls, is built in memory
 * and decoded in 64 KiB chunks, as the agent feeds it; the best of three
 * runs is printed in milliseconds with the cost per block.  Decoding is
 * linear when the time per block stays flat as N grows; the last line
 * gives the ratio of the largest N's time to the smallest's.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "model/stream.h"
#include "xalloc.h"

#define CHUNK (64 * 1024)

static double
bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
bench_anthropic(struct buf *b, long n)
{
	long i;

	buf_puts(b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
	    "{\"id\":\"msg_b\",\"model\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n");
	for (i = 0; i < n; i++)
		buf_printf(b, "event: content_block_start\ndata: {\"type\":\"content_block_start\","
		    "\"index\":%ld,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
		    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
		    "\"index\":%ld,\"delta\":{\"type\":\"text_delta\",\"text\":\"block %ld \"}}\n\n"
		    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%ld}\n\n",
		    i, i, i, i);
	buf_puts(b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
	    "{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n"
	    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
}

static void
bench_openai(struct buf *b, long n)
{
	long i;

	for (i = 0; i < n; i++)
		buf_printf(b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%ld,"
		    "\"id\":\"call_%ld\",\"function\":{\"name\":\"t\",\"arguments\":\"{\\\"i\\\":%ld}\"}}]}}]}\n\n",
		    i, i, i);
	buf_puts(b, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
	    "data: [DONE]\n\n");
}

/* Decode body once; the milliseconds it took, or -1 when the result is wrong. */
static double
bench_decode(enum stream_proto proto, const struct buf *body, long n)
{
	struct stream *s = stream_new(proto, NULL);
	double t0 = bench_now_ms(), t;
	size_t off;
	int got;

	for (off = 0; off < body->len; off += CHUNK)
		stream_feed(s, body->data + off,
		    body->len - off < CHUNK ? body->len - off : CHUNK);
	stream_finish(s);
	t = bench_now_ms() - t0;
	got = cJSON_GetArraySize(stream_content(s));
	if (!stream_complete(s) || got != n) {
		fprintf(stderr, "stream_bench: %ld blocks decoded to %d (%s)\n", n, got,
		    stream_error(s) != NULL ? stream_error(s) : "no error");
		t = -1;
	}
	stream_free(s);
	return t;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char		*name;
		enum stream_proto	 proto;
		void			(*build)(struct buf *, long);
	} cases[] = {
		{ "anthropic text blocks", STREAM_ANTHROPIC, bench_anthropic },
		{ "openai tool calls", STREAM_OPENAI, bench_openai },
	};
	long sizes[8] = { 10000, 100000 };
	int nsizes = 2, i, c, r, status = 0;

	if (argc > 1) {
		nsizes = 0;
		for (i = 1; i < argc && nsizes < 8; i++) {
			char *end;
			long v = strtol(argv[i], &end, 10);

			if (*end != '\0' || v <= 0) {
				fprintf(stderr, "stream_bench: %s is not a block count\n", argv[i]);
				return 2;
			}
			sizes[nsizes++] = v;
		}
	}
	for (c = 0; c < 2; c++) {
		double first = 0, last = 0;

		for (i = 0; i < nsizes; i++) {
			struct buf body = BUF_INIT(BUF_NOLIMIT);
			double best = -1;

			cases[c].build(&body, sizes[i]);
			for (r = 0; r < 3; r++) {
				double t = bench_decode(cases[c].proto, &body, sizes[i]);

				if (t < 0) {
					status = 1;
					break;
				}
				if (best < 0 || t < best)
					best = t;
			}
			printf("%-22s %7ld blocks %6.1f MB %9.1f ms %6.2f us/block\n",
			    cases[c].name, sizes[i], (double)body.len / 1e6, best,
			    best * 1e3 / (double)sizes[i]);
			if (i == 0)
				first = best;
			last = best;
			buf_release(&body);
		}
		if (nsizes > 1 && first > 0)
			printf("%-22s %ldx the blocks took %.1fx the time\n", cases[c].name,
			    sizes[nsizes - 1] / sizes[0], last / first);
	}
	return status;
}
