/*
 * prompt_bytes: what tandem sends before the user says anything: the
 * system prompt and the tool definitions, in the request provider_build()
 * makes for an empty conversation, for each wire format.
 *
 *	prompt_bytes
 *
 * The static system prompt is the agent's own (agent_system_prompt()).
 * The dynamic part is a typical one (date, workspace root, git branch; no
 * memory files).  Tokens are estimated as bytes / 4, compact_estimate()'s
 * rule.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agent.h"
#include "buf.h"
#include "compact.h"
#include "provider.h"
#include "tool.h"
#include "xalloc.h"

static const char typical_dynamic[] =
    "Today's date: 2025-06-01\nWorkspace root: /home/dev/src/project\nGit branch: main\n";

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
main(void)
{
	struct buf sys = BUF_INIT(BUF_NOLIMIT);
	cJSON *tools, *msgs;
	char *tj;
	size_t a, o;

	buf_puts(&sys, agent_system_prompt());
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
	buf_release(&sys);
	return 0;
}
