/* Unit tests of the MCP registry's tools: names, schemas, deferral, the proxy, the report. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "mcp/mcp.h"
#include "mcp/mcp_config.h"
#include "t.h"

static struct mcp *
registry(long defer)
{
	struct mcp_config mc;
	struct mcp_opts o;

	mcp_config_init(&mc);
	memset(&o, 0, sizeof o);
	o.defer_bytes = defer;
	o.root = "/";
	return mcp_new(NULL, NULL, &mc, &o);
}

static cJSON *
names(struct mcp *m)
{
	cJSON *arr = cJSON_CreateArray(), *out = cJSON_CreateArray(), *t;

	mcp_tools_json(m, arr);
	cJSON_ArrayForEach(t, arr)
		cJSON_AddItemToArray(out, cJSON_CreateString(cJSON_GetObjectItem(t, "name")->valuestring));
	cJSON_Delete(arr);
	return out;
}

T_TEST(names_and_schemas)
{
	struct mcp *m = registry(-1);
	cJSON *tools = cJSON_Parse("["
	    "{\"name\":\"get issue\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\"}},"
	    "{\"name\":\"get.issue\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\"}},"
	    "{\"name\":\"no_schema\",\"description\":\"d\"},"
	    "{\"name\":\"array_schema\",\"inputSchema\":{\"type\":\"array\"}},"
	    "{\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
	    "\"inputSchema\":{\"type\":\"object\"}},"
	    "{\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\","
	    "\"inputSchema\":{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true}}]");
	cJSON *n;
	char *s;
	const struct tool_def *d;
	struct buf report = BUF_INIT(BUF_NOLIMIT);

	T_EQ_INT(mcp_inject(m, "my__server", tools), 0);
	T_OK(mcp_sync(m, NULL));
	n = names(m);
	s = cJSON_PrintUnformatted(n);
	T_EQ_STR(s, "[\"mcp__my_server__get_issue\",\"mcp__my_server__get_issue_2\","
	    "\"mcp__my_server__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
	    "\"mcp__my_server__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_2\"]");
	free(s);
	cJSON_Delete(n);
	d = mcp_find(m, "mcp__my_server__get_issue_2");
	T_OK(d != NULL && d->cls == TOOL_HIGH_IMPACT && !d->parallel && d->async != NULL);
	/* readOnlyHint: parallel, and still no read-only tool to the rules. */
	/* Cut to 64 bytes, the collision made distinct within them. */
	T_EQ_INT((int)strlen("mcp__my_server__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_2"), 64);
	d = mcp_find(m, "mcp__my_server__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_2");
	T_OK(d != NULL && d->parallel && d->cls == TOOL_HIGH_IMPACT);
	T_OK(mcp_find(m, "mcp__my_server__no_schema") == NULL);
	T_OK(mcp_find(m, MCP_PROXY_TOOL) == NULL);
	T_EQ_STR(mcp_server_of(m, "mcp__my_server__get_issue"), "my__server");
	mcp_report(m, true, &report);
	T_OK(strstr(buf_cstr(&report), "tool no_schema left out") != NULL);
	T_OK(strstr(buf_cstr(&report), "tool array_schema left out") != NULL);
	/* No change, no sync. */
	T_OK(!mcp_sync(m, NULL));
	buf_release(&report);
	cJSON_Delete(tools);
	mcp_free(m);
}

T_TEST(deferral_and_proxy)
{
	struct mcp *m = registry(200);
	cJSON *tools = cJSON_Parse("["
	    "{\"name\":\"search_code\",\"description\":\"search the code of a repository\","
	    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}},"
	    "{\"name\":\"get_issue\",\"description\":\"one issue, by number, of a repository\","
	    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}}}]");
	cJSON *n, *in;
	char *s, *name;
	struct buf why = BUF_INIT(BUF_NOLIMIT), changed = BUF_INIT(BUF_NOLIMIT);

	mcp_inject(m, "gh", tools);
	mcp_sync(m, NULL);
	n = names(m);
	s = cJSON_PrintUnformatted(n);
	T_EQ_STR(s, "[\"mcp\"]");
	free(s);
	cJSON_Delete(n);
	T_OK(mcp_find(m, MCP_PROXY_TOOL) != NULL);
	/* A call through the proxy becomes the tool's own call. */
	name = strdup("mcp");
	in = cJSON_Parse("{\"tool\":\"mcp__gh__get_issue\",\"arguments\":{\"n\":7}}");
	T_EQ_INT(mcp_resolve(m, &name, &in, &why), 0);
	T_EQ_STR(name, "mcp__gh__get_issue");
	T_EQ_INT((int)cJSON_GetObjectItem(in, "n")->valuedouble, 7);
	free(name);
	cJSON_Delete(in);
	name = strdup("mcp");
	in = cJSON_Parse("{\"tool\":\"mcp__gh__nope\"}");
	T_EQ_INT(mcp_resolve(m, &name, &in, &why), -1);
	T_OK(strstr(buf_cstr(&why), "no MCP tool named") != NULL);
	cJSON_Delete(in);
	in = cJSON_Parse("{\"search\":\"issue\"}");
	T_EQ_INT(mcp_resolve(m, &name, &in, &why), 1);	/* a search: the proxy answers */
	free(name);
	cJSON_Delete(in);
	/* The list changes: the request's tools do not. */
	cJSON_AddItemToArray(tools, cJSON_Parse("{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\"}}"));
	mcp_inject(m, "gh", tools);
	mcp_sync(m, &changed);
	T_EQ_STR(buf_cstr(&changed), "gh");
	n = names(m);
	s = cJSON_PrintUnformatted(n);
	T_EQ_STR(s, "[\"mcp\"]");
	free(s);
	cJSON_Delete(n);
	T_OK(mcp_find(m, "mcp__gh__x") != NULL);
	buf_release(&why);
	buf_release(&changed);
	cJSON_Delete(tools);
	mcp_free(m);
}

int
main(void)
{
	T_RUN(names_and_schemas);
	T_RUN(deferral_and_proxy);
	return t_done();
}
