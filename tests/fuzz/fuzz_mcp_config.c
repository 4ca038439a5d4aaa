/*
 * fuzz_mcp_config: MCP servers in Claude Code's shape (agent/mcp_config.c)
 * from JSON made of the input, and the approval's key.
 *
 * Invariants: a document that parses is taken or refused with a sentence;
 * two servers share a hash exactly when all that decides what runs and
 * what it is sent (type, command, args, env, cwd, url, headers) is equal;
 * a server's hash changes when its cwd or a header changes; the text shown
 * before an approval is lines of "  key: value" with no control byte.
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fuzz.h"
#include "mcp/mcp_config.h"
#include "xalloc.h"

static bool
fz_str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool
fz_strv_eq(char **a, char **b)
{
	size_t i;

	if (a == NULL || b == NULL) {
		/* NULL and an empty list run the same. */
		return (a == NULL || a[0] == NULL) && (b == NULL || b[0] == NULL);
	}
	for (i = 0; a[i] != NULL && b[i] != NULL; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return a[i] == NULL && b[i] == NULL;
}

static bool
fz_same_server(const struct mcp_server_cfg *a, const struct mcp_server_cfg *b)
{
	return a->type == b->type && fz_str_eq(a->command, b->command) &&
	    fz_strv_eq(a->args, b->args) && fz_strv_eq(a->env, b->env) &&
	    fz_str_eq(a->cwd, b->cwd) && fz_str_eq(a->url, b->url) &&
	    fz_strv_eq(a->headers, b->headers);
}

static void
fz_check_shown(const struct mcp_server_cfg *s)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	const char *p, *end;

	mcp_server_describe(s, &out);
	p = buf_cstr(&out);
	end = p + out.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		FUZZ_CHECK(nl != NULL);
		FUZZ_CHECK(nl - p >= 2 && p[0] == ' ' && p[1] == ' ' && memchr(p, ':', (size_t)(nl - p)));
		for (; p < nl; p++)
			FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
		p = nl + 1;
	}
	buf_release(&out);
}

/* The hash of server s again with its cwd changed: it must differ. */
static void
fz_check_cwd_counts(const struct mcp_server_cfg *s)
{
	struct mcp_server_cfg t = *s;
	struct buf a = BUF_INIT(BUF_NOLIMIT), b = BUF_INIT(BUF_NOLIMIT);
	char *cwd = NULL;

	mcp_server_identity(s, &a);
	if (s->cwd != NULL) {
		cwd = xmalloc(strlen(s->cwd) + 2);
		memcpy(cwd, s->cwd, strlen(s->cwd));
		memcpy(cwd + strlen(s->cwd), "x", 2);
	} else
		cwd = xstrdup("");
	t.cwd = cwd;
	mcp_server_identity(&t, &b);
	FUZZ_CHECK(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);
	free(cwd);
	buf_release(&a);
	buf_release(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	struct mcp_config mc;
	cJSON *doc;
	char *text;
	size_t i, k;
	int rc;

	if (size > 65536)
		return 0;
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	doc = cJSON_Parse(text);
	free(text);
	if (doc == NULL)
		return 0;
	mcp_config_init(&mc);
	rc = mcp_config_add_json(&mc, doc, "fuzz.json", true, &err);
	FUZZ_CHECK(rc == 0 || err.len > 0);
	for (i = 0; i < mc.n; i++) {
		const struct mcp_server_cfg *a = &mc.v[i];

		FUZZ_CHECK(strlen(a->hash) == 64);
		FUZZ_CHECK(!a->approved);
		fz_check_shown(a);
		fz_check_cwd_counts(a);
		for (k = i + 1; k < mc.n; k++)
			FUZZ_CHECK((strcmp(a->hash, mc.v[k].hash) == 0) == fz_same_server(a, &mc.v[k]));
	}
	mcp_config_release(&mc);
	cJSON_Delete(doc);
	buf_release(&err);
	return 0;
}
