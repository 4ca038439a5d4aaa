/*
 * prompt_bytes: what tandem sends before the user says anything: the
 * system prompt and the tool definitions, in the request provider_build()
 * makes for an empty conversation, for each wire format.
 *
 *	prompt_bytes AGENT_C
 *
 * AGENT_C is agent/agent.c: the static system prompt is the string
 * literal system_static[] there (it is private to the agent), read from
 * the source so that the figure follows the prompt as it changes.  The
 * dynamic part is a typical one (date, workspace root, git branch; no
 * memory files).  Tokens are estimated as bytes / 4, compact_estimate()'s
 * rule.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "buf.h"
#include "compact.h"
#include "provider.h"
#include "tool.h"
#include "xalloc.h"

static const char typical_dynamic[] =
    "Today's date: 2025-06-01\nWorkspace root: /home/dev/src/project\nGit branch: main\n";

/* Read the whole file at path into out; 0 or -1. */
static int
prompt_read_file(const char *path, struct buf *out)
{
	char chunk[8192];
	size_t n;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(out, chunk, n);
	fclose(f);
	return 0;
}

/* One C string literal at *p (past its opening quote), unescaped into out. */
static const char *
prompt_literal(const char *p, struct buf *out)
{
	for (; *p != '\0' && *p != '"'; p++) {
		if (*p != '\\') {
			buf_putc(out, *p);
			continue;
		}
		p++;
		switch (*p) {
		case 'n':
			buf_putc(out, '\n');
			break;
		case 't':
			buf_putc(out, '\t');
			break;
		case '\0':
			return p;
		default:
			buf_putc(out, *p);
			break;
		}
	}
	return *p == '"' ? p + 1 : p;
}

/* The concatenated literals after "system_static[] =" in the source; -1 if none. */
static int
prompt_extract(const char *src, struct buf *out)
{
	const char *p = strstr(src, "system_static[] =");

	if (p == NULL)
		return -1;
	p += strlen("system_static[] =");
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '"')
			break;
		p = prompt_literal(p + 1, out);
	}
	return *p == ';' && out->len > 0 ? 0 : -1;
}

/* The tool definitions as the agent sends them. */
static cJSON *
prompt_tools(void)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; tool_table[i] != NULL; i++) {
		cJSON *o = cJSON_CreateObject(), *schema = cJSON_Parse(tool_table[i]->schema);

		if (schema == NULL)
			fatal("the input schema of %s is not valid JSON", tool_table[i]->name);
		cJSON_AddStringToObject(o, "name", tool_table[i]->name);
		cJSON_AddStringToObject(o, "description", tool_table[i]->description);
		cJSON_AddItemToObject(o, "input_schema", schema);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static size_t
prompt_body(enum stream_proto proto, const char *sys, const cJSON *tools, const cJSON *msgs)
{
	struct provider_request r;
	struct curl_slist *headers = NULL;
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	char *url = NULL;
	size_t n;

	memset(&r, 0, sizeof r);
	r.proto = proto;
	r.base_url = provider_default_base(proto);
	r.api_key = "x";
	r.model = proto == STREAM_OPENAI ? "gpt-4o-mini" : "claude-sonnet-4-5";
	r.max_tokens = 8192;
	r.system_static = sys;
	r.system_dynamic = typical_dynamic;
	r.tools = tools;
	r.messages = msgs;
	r.cache = proto == STREAM_ANTHROPIC;
	if (provider_build(&r, &url, &headers, &body) == -1)
		fatal("provider_build failed");
	n = body.len;
	free(url);
	curl_slist_free_all(headers);
	buf_release(&body);
	return n;
}

int
main(int argc, char **argv)
{
	struct buf src = BUF_INIT(BUF_NOLIMIT), sys = BUF_INIT(BUF_NOLIMIT);
	cJSON *tools, *msgs;
	char *tj;
	size_t a, o;

	if (argc != 2) {
		fprintf(stderr, "usage: prompt_bytes AGENT_C (the path of agent/agent.c)\n");
		return 2;
	}
	if (prompt_read_file(argv[1], &src) == -1 || prompt_extract(buf_cstr(&src), &sys) == -1) {
		fprintf(stderr, "prompt_bytes: no system_static[] literal in %s\n", argv[1]);
		return 1;
	}
	tools = prompt_tools();
	msgs = cJSON_CreateArray();
	tj = cJSON_PrintUnformatted(tools);
	a = prompt_body(STREAM_ANTHROPIC, buf_cstr(&sys), tools, msgs);
	o = prompt_body(STREAM_OPENAI, buf_cstr(&sys), tools, msgs);
	printf("%-36s %6zu bytes\n", "system prompt, static:", sys.len);
	printf("%-36s %6zu bytes\n", "system prompt, dynamic (typical):", strlen(typical_dynamic));
	printf("tool definitions (%d tools):%*s %6zu bytes\n", cJSON_GetArraySize(tools),
	    cJSON_GetArraySize(tools) < 10 ? 9 : 8, "", strlen(tj));
	printf("%-36s %6zu bytes, ~%zu tokens\n", "anthropic request, no messages:", a, (a + 3) / 4);
	printf("%-36s %6zu bytes, ~%zu tokens\n", "openai request, no messages:", o, (o + 3) / 4);
	printf("%-36s %6lld tokens\n", "compact_estimate(static, tools):",
	    (long long)compact_estimate(buf_cstr(&sys), tools, msgs));
	cJSON_free(tj);
	cJSON_Delete(tools);
	cJSON_Delete(msgs);
	buf_release(&src);
	buf_release(&sys);
	return 0;
}
