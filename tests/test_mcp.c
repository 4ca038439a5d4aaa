/* Unit tests of the MCP client's pieces: configuration, names, framing, rules. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "buf.h"
#include "mcp/mcp_config.h"
#include "mcp/mcp_stdio.h"
#include "rules/perm.h"
#include "t.h"

static char *
expand(const char *s, int *rc)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(BUF_NOLIMIT);

	*rc = mcp_expand(s, &out, &err);
	if (*rc == -1) {
		buf_release(&out);
		return buf_detach(&err, NULL);
	}
	buf_release(&err);
	return buf_detach(&out, NULL);
}

T_TEST(expand_vars)
{
	char *s;
	int rc;

	setenv("MCP_T_SET", "value", 1);
	setenv("MCP_T_EMPTY", "", 1);
	unsetenv("MCP_T_UNSET");
	s = expand("a ${MCP_T_SET} b", &rc);
	T_EQ_INT(rc, 0);
	T_EQ_STR(s, "a value b");
	free(s);
	s = expand("${MCP_T_UNSET:-fallback}/${MCP_T_SET:-x}", &rc);
	T_EQ_STR(s, "fallback/value");
	free(s);
	/* An empty value takes the default, as ${VAR:-} does in the shell. */
	s = expand("${MCP_T_EMPTY:-d}", &rc);
	T_EQ_STR(s, "d");
	free(s);
	s = expand("${MCP_T_EMPTY}", &rc);
	T_EQ_INT(rc, 0);
	T_EQ_STR(s, "");
	free(s);
	s = expand("${MCP_T_UNSET:-}", &rc);
	T_EQ_INT(rc, 0);
	T_EQ_STR(s, "");
	free(s);
	s = expand("$HOME_NOT $ {x} ${unclosed", &rc);
	T_EQ_INT(rc, 0);
	T_EQ_STR(s, "$HOME_NOT $ {x} ${unclosed");
	free(s);
	s = expand("x${MCP_T_UNSET}y", &rc);
	T_EQ_INT(rc, -1);
	T_OK(strstr(s, "MCP_T_UNSET is not set") != NULL);
	free(s);
}

T_TEST(sanitize_names)
{
	char *s;

	s = mcp_sanitize("git hub.com", true, 64);
	T_EQ_STR(s, "git_hub_com");
	free(s);
	s = mcp_sanitize("a__b___c", true, 64);
	T_EQ_STR(s, "a_b_c");
	free(s);
	s = mcp_sanitize("keep__this", false, 64);
	T_EQ_STR(s, "keep__this");
	free(s);
	s = mcp_sanitize("", true, 64);
	T_EQ_STR(s, "_");
	free(s);
	s = mcp_sanitize("abcdefghij", false, 4);
	T_EQ_STR(s, "abcd");
	free(s);
	s = mcp_sanitize("\xc3\xa9t\xc3\xa9", true, 64);
	T_EQ_STR(s, "_t_");
	free(s);
}

static int
add(struct mcp_config *mc, const char *json)
{
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	int r = mcp_config_add_arg(mc, json, &err);

	buf_release(&err);
	return r;
}

T_TEST(config_shapes)
{
	struct mcp_config mc;

	mcp_config_init(&mc);
	setenv("MCP_T_TOKEN", "sekrit", 1);
	T_EQ_INT(add(&mc, "{\"mcpServers\":{"
	    "\"gh\":{\"command\":\"npx\",\"args\":[\"-y\",\"${MCP_T_TOKEN}\"],\"env\":{\"T\":\"${MCP_T_TOKEN}\"}},"
	    "\"web\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:1/mcp\",\"headers\":{\"Authorization\":\"Bearer ${MCP_T_TOKEN}\"}},"
	    "\"old\":{\"type\":\"sse\",\"url\":\"https://example.invalid/sse\"},"
	    "\"bad\":{\"type\":\"carrier-pigeon\"},"
	    "\"nocmd\":{\"args\":[]},"
	    "\"typo\":{\"command\":\"x\",\"argz\":[]}}}"), 0);
	T_EQ_INT((int)mc.n, 6);
	T_EQ_STR(mc.v[0].args[1], "sekrit");
	T_EQ_STR(mc.v[0].env[0], "T=sekrit");
	T_OK(mc.v[0].type == MCP_STDIO && mc.v[0].error == NULL);
	T_OK(mc.v[1].type == MCP_HTTP);
	T_EQ_STR(mc.v[1].headers[0], "Authorization: Bearer sekrit");
	T_OK(mc.v[2].type == MCP_SSE && mc.v[2].error == NULL);
	T_OK(mc.v[3].error != NULL && strstr(mc.v[3].error, "carrier-pigeon") != NULL);
	T_OK(mc.v[4].error != NULL && strstr(mc.v[4].error, "needs a \"command\"") != NULL);
	T_OK(mc.v[5].error != NULL && strstr(mc.v[5].error, "unknown key \"argz\"") != NULL);
	/* A later source's server of the same name replaces the earlier one. */
	T_EQ_INT(add(&mc, "{\"gh\":{\"command\":\"other\"}}"), 0);
	T_EQ_INT((int)mc.n, 6);
	T_EQ_STR(mc.v[0].command, "other");
	T_EQ_INT(add(&mc, "{not json"), -1);
	T_EQ_INT(add(&mc, "/no/such/file.json"), -1);
	mcp_config_release(&mc);
}

T_TEST(config_keys_and_hash)
{
	struct mcp_config mc;
	char h1[65];

	mcp_config_init(&mc);
	T_EQ_INT(add(&mc, "{\"mcpServers\":{\"a__b\":{\"command\":\"x\"},\"a_b\":{\"command\":\"x\"},"
	    "\"a b\":{\"command\":\"x\"}}}"), 0);
	T_EQ_STR(mc.v[0].key, "a_b");
	T_EQ_STR(mc.v[1].key, "a_b_2");
	T_EQ_STR(mc.v[2].key, "a_b_3");
	memcpy(h1, mc.v[0].hash, sizeof h1);
	T_EQ_INT(add(&mc, "{\"a__b\":{\"command\":\"x\",\"env\":{\"K\":\"v\"}}}"), 0);
	T_OK(strcmp(h1, mc.v[0].hash) != 0);
	T_EQ_INT(add(&mc, "{\"a__b\":{\"command\":\"x\"}}"), 0);
	T_EQ_STR(mc.v[0].hash, h1);
	mcp_config_release(&mc);
}

/* The hash of the one server in json, in h. */
static void
hash_of(const char *json, char h[65])
{
	struct mcp_config mc;

	mcp_config_init(&mc);
	T_EQ_INT(add(&mc, json), 0);
	T_EQ_INT((int)mc.n, 1);
	memcpy(h, mc.v[0].hash, 65);
	mcp_config_release(&mc);
}

T_TEST(approval_covers_what_runs)
{
	static const char *const differ[] = {
		"{\"s\":{\"command\":\"./srv.sh\"}}",
		"{\"s\":{\"command\":\"./srv.sh\",\"cwd\":\"sub\"}}",
		"{\"s\":{\"command\":\"./srv.sh\",\"cwd\":\"\"}}",
		"{\"s\":{\"command\":\"./srv.sh\",\"args\":[\"a\",\"\\u0001env\",\"X=1\"]}}",
		"{\"s\":{\"command\":\"./srv.sh\",\"args\":[\"a\"],\"env\":{\"X\":\"1\"}}}",
		"{\"s\":{\"command\":\"./srv.sh\",\"args\":[\"a\"]}}",
		"{\"s\":{\"command\":\"./srv.sh a\"}}",
		"{\"s\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:9/mcp\"}}",
		"{\"s\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:9/mcp\",\"headers\":{\"X-A\":\"1\"}}}",
		"{\"s\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:9/mcp\",\"headers\":{\"X-A\":\"2\"}}}",
		"{\"s\":{\"type\":\"sse\",\"url\":\"http://127.0.0.1:9/mcp\"}}",
	};
	char h[sizeof differ / sizeof differ[0]][65];
	size_t i, k;

	/* Every pair differs in what runs or what it is sent, so every hash differs. */
	for (i = 0; i < sizeof differ / sizeof differ[0]; i++)
		hash_of(differ[i], h[i]);
	for (i = 0; i < sizeof differ / sizeof differ[0]; i++)
		for (k = i + 1; k < sizeof differ / sizeof differ[0]; k++)
			if (strcmp(h[i], h[k]) == 0)
				T_FAIL("one hash for %s and %s", differ[i], differ[k]);
	/* The approval shows cwd and headers. */
	{
		struct mcp_config mc;
		struct buf out = BUF_INIT(BUF_NOLIMIT);

		mcp_config_init(&mc);
		T_EQ_INT(add(&mc, "{\"a\":{\"command\":\"./srv.sh\",\"cwd\":\"sub\"},"
		    "\"b\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:9/\",\"headers\":{\"X-A\":\"1\"}}}"), 0);
		mcp_server_describe(&mc.v[0], &out);
		mcp_server_describe(&mc.v[1], &out);
		T_CONTAINS(buf_cstr(&out), "  cwd: sub\n");
		T_CONTAINS(buf_cstr(&out), "  header: X-A: 1\n");
		buf_release(&out);
		mcp_config_release(&mc);
	}
}

static void
collect(void *arg, const char *line, size_t n)
{
	struct buf *b = arg;

	buf_append(b, line, n);
	buf_putc(b, '|');
}

T_TEST(line_framing)
{
	struct mcp_lines l;
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	mcp_lines_init(&l, 8);
	mcp_lines_feed(&l, "ab\r\ncd\n\n", 8, collect, &out);
	mcp_lines_feed(&l, "e", 1, collect, &out);
	mcp_lines_feed(&l, "f\n0123456789abc\nok\n", 19, collect, &out);
	T_EQ_STR(buf_cstr(&out), "ab|cd|ef|ok|");
	T_EQ_INT((int)l.dropped, 1);
	/* A line over the limit split across feeds is dropped whole. */
	buf_reset(&out);
	mcp_lines_feed(&l, "01234", 5, collect, &out);
	mcp_lines_feed(&l, "56789", 5, collect, &out);
	mcp_lines_feed(&l, "xyz\nend\n", 8, collect, &out);
	T_EQ_STR(buf_cstr(&out), "end|");
	T_EQ_INT((int)l.dropped, 2);
	mcp_lines_release(&l);
	buf_release(&out);
}

static enum perm_verdict
check(const char *allow, const char *deny, enum perm_mode mode, const char *tool)
{
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(BUF_NOLIMIT);
	enum perm_verdict v;
	cJSON *in = cJSON_CreateObject();

	if (allow != NULL && perm_rules_add(r, PERM_LIST_ALLOW, allow, &err) == -1)
		T_FAIL("%s", buf_cstr(&err));
	if (deny != NULL && perm_rules_add(r, PERM_LIST_DENY, deny, &err) == -1)
		T_FAIL("%s", buf_cstr(&err));
	v = perm_check(r, mode, tool, TOOL_HIGH_IMPACT, in, NULL);
	cJSON_Delete(in);
	perm_rules_free(r);
	buf_release(&err);
	return v;
}

T_TEST(rules_on_mcp_tools)
{
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(BUF_NOLIMIT);

	T_OK(check(NULL, NULL, PERM_ASK, "mcp__gh__get_issue") == PERM_VERDICT_ASK);
	T_OK(check(NULL, NULL, PERM_ACCEPT_EDITS, "mcp__gh__get_issue") == PERM_VERDICT_ASK);
	T_OK(check(NULL, NULL, PERM_PLAN, "mcp__gh__get_issue") == PERM_VERDICT_DENY);
	T_OK(check("mcp__gh", NULL, PERM_ASK, "mcp__gh__get_issue") == PERM_VERDICT_ALLOW);
	T_OK(check("mcp__gh__*", NULL, PERM_ASK, "mcp__gh__get_issue") == PERM_VERDICT_ALLOW);
	T_OK(check("mcp__gh__get_issue", NULL, PERM_ASK, "mcp__gh__get_issue") == PERM_VERDICT_ALLOW);
	T_OK(check("mcp__gh__get_issue", NULL, PERM_ASK, "mcp__gh__delete_repo") == PERM_VERDICT_ASK);
	/* mcp__gh is not mcp__ghost's. */
	T_OK(check("mcp__gh", NULL, PERM_ASK, "mcp__ghost__x") == PERM_VERDICT_ASK);
	T_OK(check(NULL, "mcp__gh", PERM_YOLO, "mcp__gh__x") == PERM_VERDICT_DENY);
	T_OK(check("mcp__gh", "mcp__gh__delete_repo", PERM_ASK, "mcp__gh__delete_repo") ==
	    PERM_VERDICT_DENY);
	/* A rule on a built-in tool says nothing about MCP tools. */
	T_OK(check("run_bash", NULL, PERM_ASK, "mcp__gh__x") == PERM_VERDICT_ASK);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, "mcp__gh(x)", &err), -1);
	T_EQ_INT(perm_rules_add(r, PERM_LIST_ALLOW, "mcp__gh*x", &err), -1);
	perm_rules_free(r);
	buf_release(&err);
}

int
main(void)
{
	T_RUN(expand_vars);
	T_RUN(sanitize_names);
	T_RUN(config_shapes);
	T_RUN(config_keys_and_hash);
	T_RUN(approval_covers_what_runs);
	T_RUN(line_framing);
	T_RUN(rules_on_mcp_tools);
	return t_done();
}
