/*
 * fuzz_sjson: stream-json input lines (agent/wire/sjson.c, wire.c) with no
 * agent behind them, fed whole and cut into pieces through the line reader.
 *
 * Invariants: every line written is one JSON object; each control_request
 * with a string request_id gets exactly one control_response naming it;
 * the same input split anywhere gives the same number of lines.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "ev.h"
#include "event.h"
#include "fuzz.h"
#include "json.h"
#include "wire/sjson.h"
#include "wire/wire.h"

static struct config fz_cfg;
static int fz_ready;

struct fz_feed {
	struct sjson	*s;
	size_t		 requests;	/* control_requests with a string request_id */
};

static void
fz_line(void *arg, const char *line, size_t n)
{
	struct fz_feed *f = arg;
	int l, c;
	cJSON *m = json_parse_at(line, n, &l, &c);

	if (cJSON_IsObject(m) && strcmp(json_str(m, "type", ""), "control_request") == 0 &&
	    json_str(m, "request_id", NULL) != NULL)
		f->requests++;
	cJSON_Delete(m);
	sjson_input_line(f->s, line, n);
}

/* Run data through a fresh front end, cut at every chunk; the lines written and their count. */
static size_t
fz_run(const uint8_t *data, size_t size, uint8_t seed, size_t *requests, size_t *responses)
{
	struct ev_loop *loop = ev_loop_new();
	struct event_bus *bus = event_bus_new();
	struct sjson_opts o = { &fz_cfg, true, true, true, -1, -1 };
	FILE *tmp = tmpfile();
	struct fz_feed f;
	struct wire_in *in;
	char *line = NULL;
	size_t cap = 0, lines = 0, at = 0;
	ssize_t len;

	FUZZ_CHECK(loop != NULL && tmp != NULL);
	o.out_fd = fileno(tmp);
	f.s = sjson_new(loop, bus, &o);
	f.requests = 0;
	in = wire_in_new(NULL, -1, 4096, fz_line, NULL, NULL, &f);
	while (at < size) {
		size_t c = seed == 0 ? size - at : fuzz_chunk((uint8_t)(seed + at), size - at);

		wire_in_feed(in, (const char *)data + at, c);
		at += c;
	}
	wire_in_feed(in, "\n", 1);
	wire_in_free(in);
	sjson_free(f.s);
	event_bus_free(bus);
	ev_loop_free(loop);
	*requests = f.requests;
	*responses = 0;
	rewind(tmp);
	while ((len = getline(&line, &cap, tmp)) > 0) {
		cJSON *m;

		FUZZ_CHECK(line[len - 1] == '\n');
		m = cJSON_ParseWithLength(line, (size_t)len - 1);
		FUZZ_CHECK(cJSON_IsObject(m));
		if (strcmp(json_str(m, "type", ""), "control_response") == 0)
			(*responses)++;
		cJSON_Delete(m);
		lines++;
	}
	free(line);
	fclose(tmp);
	return lines;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t req1, resp1, req2, resp2, a, b;

	if (!fz_ready) {
		config_init(&fz_cfg);
		fz_ready = 1;
	}
	a = fz_run(data, size, 0, &req1, &resp1);
	FUZZ_CHECK(resp1 == req1);
	b = fz_run(data, size, size > 0 ? data[0] : 1, &req2, &resp2);
	FUZZ_CHECK(req2 == req1 && resp2 == resp1 && a == b);
	return 0;
}
