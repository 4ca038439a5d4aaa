/* mcp_tools: a server's tool set, its names and schemas (mcp_int.h). */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "mcp_int.h"
#include "sha256.h"
#include "xalloc.h"

void
mcp_toolset_free(struct mcp_toolset *ts)
{
	while (ts != NULL) {
		struct mcp_toolset *older = ts->older;
		size_t i;

		for (i = 0; i < ts->n; i++) {
			free(ts->v[i].name);
			free(ts->v[i].desc);
			free(ts->v[i].schema);
			free(ts->v[i].remote);
		}
		free(ts->v);
		free(ts);
		ts = older;
	}
}

/* s cut to at most max bytes, not inside a UTF-8 sequence. */
char *
mcp_cut(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return xstrdup(s);
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return xstrndup(s, n);
}

static bool
mcp_toolset_has(const struct mcp_toolset *ts, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(ts->v[i].name, name) == 0)
			return true;
	return false;
}

/* mcp__<key>__<tool>, at most 64 bytes, distinct within the set. */
static char *
mcp_tool_name(const struct mcp_server *s, const struct mcp_toolset *ts, const char *remote)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char *t = mcp_sanitize(remote, false, MCP_NAME_MAX);
	int k = 1;

	buf_printf(&b, "mcp__%s__%s", s->cfg.key, t);
	buf_truncate(&b, b.len > MCP_NAME_MAX ? MCP_NAME_MAX : b.len);
	while (mcp_toolset_has(ts, ts->n, buf_cstr(&b))) {
		char suffix[16];
		size_t keep;

		snprintf(suffix, sizeof suffix, "_%d", ++k);
		buf_reset(&b);
		buf_printf(&b, "mcp__%s__%s", s->cfg.key, t);
		keep = b.len + strlen(suffix) > MCP_NAME_MAX ? MCP_NAME_MAX - strlen(suffix) : b.len;
		buf_truncate(&b, keep);
		buf_puts(&b, suffix);
	}
	free(t);
	return buf_detach(&b, NULL);
}

/* The tools of list (a tools/list result); what is left out is said in notes (may be NULL). */
struct mcp_toolset *
mcp_toolset_build(struct mcp_server *s, const cJSON *list, struct buf *notes)
{
	struct buf scratch = BUF_INIT(64 * 1024);
	struct mcp_toolset *ts = xcalloc(1, sizeof *ts);
	const cJSON *t;

	if (notes == NULL)
		notes = &scratch;
	ts->v = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *ts->v);
	cJSON_ArrayForEach(t, list) {
		const char *remote = json_str(t, "name", NULL);
		const cJSON *schema = json_get(t, "inputSchema");
		struct mcp_tool *mt;
		char *text;

		if (remote == NULL || remote[0] == '\0')
			continue;
		if (!cJSON_IsObject(schema) || strcmp(json_str(schema, "type", ""), "object") != 0) {
			buf_printf(notes, "tool %s left out: its input schema lacks a top-level "
			    "\"type\": \"object\"\n", remote);
			continue;
		}
		text = json_print(schema);
		if (strlen(text) > MCP_SCHEMA_MAX) {
			buf_printf(notes, "tool %s left out: its input schema is larger than %d "
			    "bytes\n", remote, MCP_SCHEMA_MAX);
			free(text);
			continue;
		}
		mt = &ts->v[ts->n];
		mt->srv = s;
		mt->remote = xstrdup(remote);
		mt->name = mcp_tool_name(s, ts, remote);
		mt->desc = mcp_cut(json_str(t, "description", ""), MCP_DESC_MAX);
		mt->schema = text;
		mt->def.name = mt->name;
		mt->def.description = mt->desc;
		mt->def.schema = mt->schema;
		/* The server's claims never make a tool read-only to the rules. */
		mt->def.cls = TOOL_HIGH_IMPACT;
		mt->def.parallel = json_bool(json_get(t, "annotations"), "readOnlyHint", false);
		mt->def.async = &mcp_tool_async;
		mt->def.owner = mt;
		ts->bytes += strlen(mt->name) + strlen(mt->desc) + strlen(text) + 64;
		ts->n++;
	}
	buf_release(&scratch);
	return ts;
}

/* A hash of what the model would read of the tools: names, descriptions, schemas. */
void
mcp_toolset_hash(const struct mcp_toolset *ts, char hex[65])
{
	struct sha256_ctx *h = sha256_begin();
	size_t i;

	for (i = 0; i < ts->n; i++) {
		sha256_update(h, ts->v[i].name, strlen(ts->v[i].name) + 1);
		sha256_update(h, ts->v[i].desc, strlen(ts->v[i].desc) + 1);
		sha256_update(h, ts->v[i].schema, strlen(ts->v[i].schema) + 1);
	}
	sha256_end(h, hex);
}
