/*
 * prompt_bytes: what tandem sends before the user says anything: the
 * system prompt and the tool definitions, in the request provider_build()
 * makes for an empty conversation, for each wire format.
 *
 *	prompt_bytes
 *
 * Only tool_table here: bench/prompt_bytes.sh measures the real first
 * request (every default tool) and runs this for the lines below.
 * The static system prompt is the agent's own (agent_system_prompt()).
 * The dynamic part is a typical one (date, workspace root, git branch; no
 * memory files).  Tokens are estimated as bytes / 4, compact_estimate()'s
 * rule.  Then the same request with 50 MCP tools of a GitHub-like server,
 * sent whole and deferred behind the proxy tool (mcp.h), and whether the
 * deferred request stays the same when the server's list changes; the
 * exit status is 1 when deferral passes its budget (DESIGN.md section 13).
 * Last, the first request with 40 skills installed (.claude/skills): it grows
 * by their names and descriptions and the skill tool; 1 if a body is sent.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agent.h"
#include "claude/claude.h"
#include "config/config.h"
#include "skill.h"
#include "buf.h"
#include "context/compact.h"
#include "ev.h"
#include "mcp/mcp.h"
#include "mcp/mcp_config.h"
#include "model/provider.h"
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
		cJSON *o, *schema;

		/* The skill tool is offered only when there are skills (prompt_tool_disabled). */
		if (strcmp(tool_table[i]->name, "skill") == 0)
			continue;
		o = cJSON_CreateObject();
		schema = cJSON_Parse(tool_table[i]->schema);

		if (schema == NULL)
			fatal("the input schema of %s is not valid JSON", tool_table[i]->name);
		cJSON_AddStringToObject(o, "name", tool_table[i]->name);
		cJSON_AddStringToObject(o, "description", tool_table[i]->description);
		cJSON_AddItemToObject(o, "input_schema", schema);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static const char *prompt_dynamic = typical_dynamic;

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
	r.system_dynamic = prompt_dynamic;
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

/* n tools shaped like a GitHub server's: a description and four or five typed properties. */
static cJSON *
mcp_fake_tools(int n)
{
	static const char *const verbs[] = { "get", "list", "create", "update", "search" };
	static const char *const things[] = {
		"issue", "pull_request", "repository", "branch", "commit", "release", "workflow",
		"comment", "label", "milestone"
	};
	cJSON *arr = cJSON_CreateArray();
	int i;

	for (i = 0; i < n; i++) {
		char name[64], desc[256], *text;
		cJSON *t = cJSON_CreateObject(), *schema;

		snprintf(name, sizeof name, "%s_%s%s", verbs[i % 5], things[(i / 5) % 10],
		    i >= 50 ? "_v2" : "");
		snprintf(desc, sizeof desc, "%s a %s of a GitHub repository. Give the owner and "
		    "the repository's name; the result is the %s as JSON, with its URL.",
		    verbs[i % 5], things[(i / 5) % 10], things[(i / 5) % 10]);
		cJSON_AddStringToObject(t, "name", name);
		cJSON_AddStringToObject(t, "description", desc);
		text = (char *)"{\"type\":\"object\",\"properties\":{"
		    "\"owner\":{\"type\":\"string\",\"description\":\"the repository's owner\"},"
		    "\"repo\":{\"type\":\"string\",\"description\":\"the repository's name\"},"
		    "\"number\":{\"type\":\"number\",\"description\":\"which one, by number\"},"
		    "\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"closed\",\"all\"]},"
		    "\"per_page\":{\"type\":\"number\",\"minimum\":1,\"maximum\":100}},"
		    "\"required\":[\"owner\",\"repo\"]}";
		schema = cJSON_Parse(text);
		cJSON_AddItemToObject(t, "inputSchema", schema);
		cJSON_AddItemToObject(t, "annotations", cJSON_Parse("{\"readOnlyHint\":true}"));
		cJSON_AddItemToArray(arr, t);
	}
	return arr;
}

/* The anthropic request's bytes with n MCP tools, deferred past defer_bytes (-1: never). */
static size_t
prompt_mcp(const char *sys, int n, long defer_bytes, char **tools_json)
{
	struct mcp_config mc;
	struct mcp_opts o;
	struct mcp *m;
	cJSON *tools = prompt_tools(), *fake = mcp_fake_tools(n), *msgs = cJSON_CreateArray();
	size_t bytes;

	mcp_config_init(&mc);
	memset(&o, 0, sizeof o);
	o.defer_bytes = defer_bytes;
	o.root = "/";
	m = mcp_new(NULL, NULL, &mc, &o);
	mcp_inject(m, "github", fake);
	mcp_sync(m, NULL);
	mcp_tools_json(m, tools);
	bytes = prompt_body(STREAM_ANTHROPIC, sys, tools, msgs);
	if (tools_json != NULL)
		*tools_json = cJSON_PrintUnformatted(tools);
	mcp_free(m);
	cJSON_Delete(tools);
	cJSON_Delete(fake);
	cJSON_Delete(msgs);
	return bytes;
}

/* Write n skills shaped like real ones (a description, a 4 KB body, a file beside it) under root. */
static void
skills_write(const char *root, int n, size_t *names_descs, size_t *bodies)
{
	char path[4096], name[64], desc[256];
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	FILE *f;
	int i, k;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "skill-%02d-review", i);
		snprintf(desc, sizeof desc, "Review a change for kind %d of problem: read the diff, "
		    "list what breaks, propose the smallest fix. Use before a commit.", i);
		snprintf(path, sizeof path, "mkdir -p %s/.claude/skills/%s/templates", root, name);
		if (system(path) != 0)
			fatal("cannot make %s", path);
		buf_reset(&body);
		for (k = 0; k < 40; k++)
			buf_printf(&body, "Step %d of skill %s: look at the code again, carefully, "
			    "and write down what you see.\n", k, name);
		snprintf(path, sizeof path, "%s/.claude/skills/%s/SKILL.md", root, name);
		if ((f = fopen(path, "w")) == NULL)
			fatal("cannot write %s", path);
		fprintf(f, "---\nname: %s\ndescription: %s\nallowed-tools: Read, Grep\n---\n%s", name,
		    desc, buf_cstr(&body));
		fclose(f);
		snprintf(path, sizeof path, "%s/.claude/skills/%s/templates/report.md", root, name);
		if ((f = fopen(path, "w")) != NULL) {
			fputs("# Report\n", f);
			fclose(f);
		}
		*names_descs += strlen(name) + strlen(desc);
		*bodies += body.len;
	}
	buf_release(&body);
}

/*
 * The first request with 40 skills installed, against none: what grows is
 * the skills' names and descriptions (with their list's heading and the
 * skill tool's definition), never their bodies.  1 when a body is sent.
 */
static int
prompt_skills(const char *sys, size_t base)
{
	char tmpl[] = "/tmp/tandem-prompt-skills.XXXXXX", *root = mkdtemp(tmpl), cmd[256];
	struct buf dyn = BUF_INIT(BUF_NOLIMIT), section = BUF_INIT(BUF_NOLIMIT);
	size_t names_descs = 0, bodies = 0, with, tool_bytes;
	struct config cfg;
	struct claude *c;
	cJSON *tools = prompt_tools(), *msgs = cJSON_CreateArray(), *t;
	char *tj;
	int rc = 0;

	if (root == NULL)
		fatal("mkdtemp failed");
	skills_write(root, 40, &names_descs, &bodies);
	config_init(&cfg);
	free(cfg.root);
	cfg.root = xstrdup(root);
	c = claude_new(&cfg);
	claude_prompt(c, &section);
	buf_printf(&dyn, "%s%s", typical_dynamic, buf_cstr(&section));
	t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "name", tool_skill.name);
	cJSON_AddStringToObject(t, "description", tool_skill.description);
	cJSON_AddItemToObject(t, "input_schema", cJSON_Parse(tool_skill.schema));
	tj = cJSON_PrintUnformatted(t);
	tool_bytes = strlen(tj) + 1;
	cJSON_free(tj);
	cJSON_AddItemToArray(tools, t);
	prompt_dynamic = buf_cstr(&dyn);
	with = prompt_body(STREAM_ANTHROPIC, sys, tools, msgs);
	prompt_dynamic = typical_dynamic;
	printf("%-36s %6zu bytes (+%zu)\n", "anthropic, 40 skills installed:", with, with - base);
	printf("%-36s %6zu bytes (names and descriptions %zu, list %zu)\n", "  of which the skills' list:",
	    section.len, names_descs, section.len - names_descs);
	printf("%-36s %6zu bytes\n", "  of which the skill tool:", tool_bytes);
	printf("%-36s %6zu bytes (none sent)\n", "  the skills' bodies, on disk:", bodies);
	if (strstr(buf_cstr(&dyn), "Step 0 of skill") != NULL) {
		printf("a skill's body is in the first request\n");
		rc = 1;
	}
	claude_free(c);
	config_release(&cfg);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd) != 0)
		rc = 1;
	cJSON_Delete(tools);
	cJSON_Delete(msgs);
	buf_release(&dyn);
	buf_release(&section);
	return rc;
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
	printf("tool_table only (%d tools):%*s %6zu bytes\n", cJSON_GetArraySize(tools),
	    cJSON_GetArraySize(tools) < 10 ? 10 : 9, "", strlen(tj));
	printf("%-36s %6zu bytes, ~%zu tokens\n", "anthropic, tool_table only:", a, (a + 3) / 4);
	printf("%-36s %6zu bytes, ~%zu tokens\n", "openai, tool_table only:", o, (o + 3) / 4);
	printf("%-36s %6lld tokens\n", "compact_estimate(static, tools):",
	    (long long)compact_estimate(buf_cstr(&sys), tools, msgs));
	{
		size_t all = prompt_mcp(buf_cstr(&sys), 50, -1, NULL);
		char *t50, *t51;
		size_t d50 = prompt_mcp(buf_cstr(&sys), 50, MCP_DEFER_BYTES, &t50);
		size_t d51 = prompt_mcp(buf_cstr(&sys), 51, MCP_DEFER_BYTES, &t51);

		printf("%-36s %6zu bytes (+%zu)\n", "anthropic, 50 MCP tools, all sent:", all, all - a);
		printf("%-36s %6zu bytes (+%zu; limit +%d)\n", "anthropic, 50 MCP tools, deferred:", d50,
		    d50 - a, MCP_DEFER_BYTES);
		printf("%-36s %s\n", "deferred prefix, 50 -> 51 tools:", d50 == d51 &&
		    strcmp(t50, t51) == 0 ? "unchanged" : "CHANGED");
		if (d50 - a > MCP_DEFER_BYTES || d50 != d51 || strcmp(t50, t51) != 0) {
			free(t50);
			free(t51);
			return 1;
		}
		free(t50);
		free(t51);
	}
	if (prompt_skills(buf_cstr(&sys), a) != 0)
		return 1;
	cJSON_free(tj);
	cJSON_Delete(tools);
	cJSON_Delete(msgs);
	buf_release(&sys);
	return 0;
}
