/*
 * fuzz_jsonrpc: the JSON-RPC framing of `tandem acp` (agent/wire/acp.c)
 * on lines made of the input, with no session (the harness drops
 * session/new and session/load, which would start an agent on disk).
 *
 * Invariants: every line written is a JSON-RPC 2.0 object with a result or
 * an error; a line that is not JSON gets exactly one -32700; a request
 * with a number or string id gets exactly one answer with that id.
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/acp.h"
#include "config/config.h"
#include "ev.h"
#include "fuzz.h"
#include "json.h"

static struct config fz_cfg;
static int fz_ready;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ev_loop *loop;
	struct acp *p;
	FILE *tmp;
	const char *s = (const char *)data, *end = s + size;
	size_t unparsed = 0, parse_errors = 0, requests = 0, answers = 0, cap = 0;
	char *line = NULL;
	ssize_t len;

	if (!fz_ready) {
		config_init(&fz_cfg);
		fz_ready = 1;
	}
	loop = ev_loop_new();
	tmp = tmpfile();
	FUZZ_CHECK(loop != NULL && tmp != NULL);
	p = acp_new(loop, &fz_cfg, -1, fileno(tmp));
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl != NULL ? (size_t)(nl - s) : (size_t)(end - s);
		int l, c;
		cJSON *m = json_parse_at(s, n, &l, &c);
		const char *method = json_str(m, "method", "");
		const cJSON *id = json_get(m, "id");
		size_t k;
		bool blank = true;

		for (k = 0; k < n; k++)
			if (s[k] != ' ' && s[k] != '\t')
				blank = false;
		if (strcmp(method, "session/new") == 0 || strcmp(method, "session/load") == 0) {
			cJSON_Delete(m);
			s += n + 1;
			continue;
		}
		if (m == NULL && !blank)
			unparsed++;
		if (cJSON_IsObject(m) && strcmp(json_str(m, "jsonrpc", ""), "2.0") == 0 &&
		    json_get(m, "method") != NULL && cJSON_IsString(json_get(m, "method")) &&
		    (cJSON_IsNumber(id) || cJSON_IsString(id)) && strcmp(method, "session/cancel") != 0)
			requests++;
		cJSON_Delete(m);
		acp_input_line(p, s, n);
		s += n + 1;
	}
	acp_free(p);
	ev_loop_free(loop);
	rewind(tmp);
	while ((len = getline(&line, &cap, tmp)) > 0) {
		cJSON *m = cJSON_ParseWithLength(line, (size_t)len - 1);
		const cJSON *e = json_get(m, "error");

		FUZZ_CHECK(cJSON_IsObject(m) && strcmp(json_str(m, "jsonrpc", ""), "2.0") == 0);
		FUZZ_CHECK(json_get(m, "result") != NULL || e != NULL);
		if (json_int(e, "code", 0) == -32700)
			parse_errors++;
		else if (!cJSON_IsNull(json_get(m, "id")))
			answers++;
		cJSON_Delete(m);
	}
	free(line);
	fclose(tmp);
	FUZZ_CHECK(parse_errors == unparsed);
	FUZZ_CHECK(answers == requests);
	return 0;
}
