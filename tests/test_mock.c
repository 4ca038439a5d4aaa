/*
 * test_mock: the mock model server as a library (tests/mock/mock.h), the
 * way tandem --demo uses it: a scenario from a string, listen in the parent,
 * run in a forked child, stop it through stop_fd.  Also every way a
 * scenario can be wrong.  (tests/test_mock.sh drives the server with curl.)
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "mock/mock.h"
#include "t.h"
#include "t_mock.h"

static const char *const bad_scenarios[][2] = {
	{ "{\"responses\": [", "not valid JSON (line 1" },
	{ "[]", "must be an object with a \"responses\" array" },
	{ "{\"responses\": {}}", "\"responses\" array" },
	{ "{\"responses\": [], \"extra\": 1}", "unknown top-level key \"extra\"" },
	{ "{\"responses\": [], \"cache_ttl_ms\": -5}", "non-negative" },
	{ "{\"responses\": [], \"require_all\": 1}", "true or false" },
	{ "{\"responses\": [7]}", "responses[0]: expected an object" },
	{ "{\"responses\": [{\"txet\": \"x\"}]}", "responses[0]: unknown key \"txet\"" },
	{ "{\"responses\": [{}, {\"text\": 5}]}", "responses[1]: text, thinking" },
	{ "{\"responses\": [{\"fixture\": \"a\", \"text\": \"x\"}]}", "\"text\" cannot be combined with \"fixture\"" },
	{ "{\"responses\": [{\"fixture\": \"a\", \"status\": 500}]}", "\"fixture\" and \"status\" cannot be combined" },
	{ "{\"responses\": [{\"body\": {}}]}", "\"body\" needs a \"status\"" },
	{ "{\"responses\": [{\"status\": 99}]}", "responses[0].status" },
	{ "{\"responses\": [{\"status\": 700}]}", "responses[0].status" },
	{ "{\"responses\": [{\"status\": \"429\"}]}", "responses[0].status" },
	{ "{\"responses\": [{\"delay_ms\": -1}]}", "responses[0].delay_ms: expected a non-negative integer" },
	{ "{\"responses\": [{\"chunk\": 1.5}]}", "responses[0].chunk: expected a non-negative integer" },
	{ "{\"responses\": [{\"chunk\": 0}]}", "responses[0].chunk: must be at least 1" },
	{ "{\"responses\": [{\"repeat\": 0}]}", "responses[0].repeat: must be at least 1" },
	{ "{\"responses\": [{\"tool_uses\": {}}]}", "responses[0].tool_uses: expected an array" },
	{ "{\"responses\": [{\"tool_uses\": [{\"input\": {}}]}]}", "tool_uses[0]: expected an object with a \"name\"" },
	{ "{\"responses\": [{\"tool_uses\": [{\"name\": \"x\", \"input\": []}]}]}", "tool_uses[0]: bad key \"input\"" },
	{ "{\"responses\": [{\"usage\": \"manual\"}]}", "responses[0].usage: expected \"auto\" or an object" },
	{ "{\"responses\": [{\"usage\": {\"tokens\": 5}}]}", "responses[0].usage.tokens" },
	{ "{\"responses\": [{\"usage\": {\"input_tokens\": -5}}]}", "responses[0].usage.input_tokens" },
	{ "{\"responses\": [{\"headers\": {\"x-a\": \"1\\r\\nx-b: 2\"}}]}", "responses[0].headers.x-a" },
	{ "{\"responses\": [{\"headers\": {\"bad name\": \"1\"}}]}", "responses[0].headers.bad name" },
	{ "{\"responses\": [{\"headers\": {\"x-n\": 1}}]}", "responses[0].headers.x-n" },
	{ "{\"responses\": [{\"signature\": \"s\"}]}", "\"signature\" needs \"thinking\"" },
	{ "{\"responses\": [{\"expect_contains\": [1]}]}", "responses[0].expect_contains: expected strings" },
	{ "{\"responses\": [{\"match_last\": 3}]}", "responses[0].match_last: expected a string or an array" },
	{ "{\"responses\": [{\"fixture\": \"no/such/file.sse\"}]}", "responses[0].fixture: cannot open" },
};

T_TEST(bad_scenarios_are_refused_with_a_reason)
{
	size_t i;

	for (i = 0; i < sizeof bad_scenarios / sizeof bad_scenarios[0]; i++) {
		struct mock_opts o;
		struct mock *m;
		char err[512] = "";

		mock_opts_init(&o);
		o.scenario_text = bad_scenarios[i][0];
		o.base_dir = "/nonexistent";
		m = mock_new(&o, err, sizeof err);
		T_OK(m == NULL);
		T_CONTAINS(err, bad_scenarios[i][1]);
		mock_free(m);
	}
}

T_TEST(no_scenario_and_no_log_directory)
{
	struct mock_opts o;
	char err[256] = "";

	mock_opts_init(&o);
	T_OK(mock_new(&o, err, sizeof err) == NULL);
	T_CONTAINS(err, "no scenario");
	o.scenario_path = "/nonexistent/scenario.json";
	T_OK(mock_new(&o, err, sizeof err) == NULL);
	T_CONTAINS(err, "cannot open /nonexistent/scenario.json");
	o.scenario_path = NULL;
	o.scenario_text = "{\"responses\": []}";
	o.log_path = "/nonexistent/dir/log";
	T_OK(mock_new(&o, err, sizeof err) == NULL);
	T_CONTAINS(err, "cannot open /nonexistent/dir/log");
}

/* One request on a fresh connection that asks to be closed; the whole reply. */
static char *
http_post(int port, const char *path, const char *headers, const char *body)
{
	struct sockaddr_in sa;
	struct buf req = BUF_INIT(BUF_NOLIMIT), out = BUF_INIT(BUF_NOLIMIT);
	struct pollfd p;
	char chunk[4096];
	ssize_t n;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd == -1 || connect(fd, (struct sockaddr *)&sa, sizeof sa) == -1) {
		if (fd != -1)
			close(fd);
		return NULL;
	}
	buf_printf(&req, "POST %s HTTP/1.1\r\nhost: 127.0.0.1\r\n%sconnection: close\r\n"
	    "content-length: %zu\r\n\r\n%s", path, headers, strlen(body), body);
	if (write(fd, req.data, req.len) != (ssize_t)req.len) {
		close(fd);
		buf_release(&req);
		return NULL;
	}
	p.fd = fd;
	p.events = POLLIN;
	while (poll(&p, 1, 5000) == 1 && (n = read(fd, chunk, sizeof chunk)) > 0)
		buf_append(&out, chunk, (size_t)n);
	close(fd);
	buf_release(&req);
	return buf_detach(&out, NULL);
}

static const char anth_headers[] =
    "x-api-key: k\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n";

T_TEST(a_forked_child_serves_and_stops_through_stop_fd)
{
	const char *scen = "{\"responses\": [{\"text\": \"from the child\", \"model\": \"demo\"}]}";
	const char *body = "{\"model\": \"m\", \"max_tokens\": 16, \"stream\": true,"
	    " \"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}";
	int port = 0, stop_w = -1;
	pid_t pid = t_mock_start(scen, &port, &stop_w);
	char *reply;

	T_OK(pid > 0);
	if (pid <= 0)
		return;
	T_OK(port > 0 && port < 65536);
	reply = http_post(port, "/v1/messages", anth_headers, body);
	T_CONTAINS(reply, "HTTP/1.1 200 OK");
	T_CONTAINS(reply, "transfer-encoding: chunked");
	T_CONTAINS(reply, "\"model\":\"demo\"");
	T_CONTAINS(reply, "event: message_stop");
	T_CONTAINS(reply, "\r\n0\r\n\r\n");
	free(reply);
	T_EQ_INT(t_mock_stop(pid, stop_w), 0);
}

T_TEST(a_failed_check_makes_the_child_exit_1)
{
	const char *scen = "{\"responses\": [{\"text\": \"never sent\"}]}";
	const char *body = "{\"model\": \"m\", \"stream\": true, \"messages\": []}";
	int port = 0, stop_w = -1;
	pid_t pid = t_mock_start(scen, &port, &stop_w);
	char *reply;

	T_OK(pid > 0);
	if (pid <= 0)
		return;
	reply = http_post(port, "/v1/messages", anth_headers, body);
	T_CONTAINS(reply, "HTTP/1.1 400 Bad Request");
	T_CONTAINS(reply, "max_tokens: Field required");
	T_CONTAINS(reply, "messages: at least one message is required");
	free(reply);
	reply = http_post(port, "/v1/chat/completions", "content-type: application/json\r\n",
	    "{\"model\": \"m\", \"stream\": true, \"stream_options\": {\"include_usage\": true},"
	    " \"messages\": [{\"role\": \"wizard\", \"content\": \"x\"}]}");
	T_CONTAINS(reply, "HTTP/1.1 400");
	T_CONTAINS(reply, "{\"error\":{\"message\":\"messages.0.role: expected system");
	free(reply);
	T_EQ_INT(t_mock_stop(pid, stop_w), 1);
}

T_TEST(require_all_fails_when_a_response_is_left)
{
	int port = 0, stop_w = -1;
	pid_t pid = t_mock_start("{\"require_all\": true, \"responses\": [{\"text\": \"unused\"}]}",
	    &port, &stop_w);

	T_OK(pid > 0);
	if (pid > 0)
		T_EQ_INT(t_mock_stop(pid, stop_w), 1);
}

/* The text a streamed Anthropic reply carries, its text_deltas joined. */
static char *
reply_text(const char *reply)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), line = BUF_INIT(BUF_NOLIMIT);
	const char *p = reply, *nl;
	const cJSON *t;
	cJSON *ev;

	while ((p = strstr(p, "data: ")) != NULL) {
		p += 6;
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		buf_reset(&line);
		buf_append(&line, p, (size_t)(nl - p));
		ev = cJSON_Parse(buf_cstr(&line));
		t = json_get(json_get(ev, "delta"), "text");
		if (cJSON_IsString(t))
			buf_puts(&b, t->valuestring);
		cJSON_Delete(ev);
		p = nl;
	}
	buf_release(&line);
	return buf_detach(&b, NULL);
}

/* A conversation whose newest input is a tool result, then maybe more messages. */
static void
conv_body(struct buf *b, const char *is_error, const char *more)
{
	buf_reset(b);
	buf_puts(b, "{\"model\": \"m\", \"max_tokens\": 16, \"stream\": true, \"messages\": ["
	    "{\"role\": \"user\", \"content\": \"go\"},"
	    "{\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"Run it?\"},"
	    "  {\"type\": \"tool_use\", \"id\": \"toolu_a\", \"name\": \"run_bash\", \"input\": {\"command\": \"make\"}}]},"
	    "{\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"toolu_a\","
	    "  \"is_error\": ");
	buf_puts(b, is_error);
	buf_puts(b, ", \"content\": \"the user denied this run_bash call, saying: not on a Friday\"}]}");
	buf_puts(b, more);
	buf_puts(b, "]}");
}

/* A tour's branches: the newest input picks the answer, which quotes the result. */
T_TEST(match_last_branches_on_the_newest_input_and_after_quotes_it)
{
	const char *scen = "{\"responses\": ["
	    "{\"text\": \"Run it?\", \"tool_uses\": [{\"id\": \"toolu_a\", \"name\": \"run_bash\","
	    "  \"input\": {\"command\": \"make\"}}]},"
	    "{\"match_last\": [\"toolu_a\", \"\\\"is_error\\\":true\"],"
	    "  \"text\": \"You said no: {{after:saying: }}. And {{after:absent}}.\"},"
	    "{\"match_last\": \"toolu_a\", \"text\": \"It ran.\"},"
	    "{\"text\": \"In order.\", \"repeat\": 2}]}";
	const char *first = "{\"model\": \"m\", \"max_tokens\": 16, \"stream\": true,"
	    " \"messages\": [{\"role\": \"user\", \"content\": \"go\"}]}";
	const char *later = ",{\"role\": \"assistant\", \"content\": \"ok\"},"
	    "{\"role\": \"user\", \"content\": \"next\"}";
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	int port = 0, stop_w = -1;
	pid_t pid = t_mock_start(scen, &port, &stop_w);
	char *reply, *text;

	T_OK(pid > 0);
	if (pid <= 0)
		return;
	reply = http_post(port, "/v1/messages", anth_headers, first);
	text = reply_text(reply);
	T_EQ_STR(text, "Run it?");
	free(text);
	free(reply);
	/* a denial: the first branch, quoting the reason; a missing key quotes nothing */
	conv_body(&b, "true", "");
	reply = http_post(port, "/v1/messages", anth_headers, buf_cstr(&b));
	text = reply_text(reply);
	T_EQ_STR(text, "You said no: not on a Friday. And .");
	free(text);
	free(reply);
	/* the denial is still in the conversation, but not in its newest input */
	conv_body(&b, "true", later);
	reply = http_post(port, "/v1/messages", anth_headers, buf_cstr(&b));
	text = reply_text(reply);
	T_EQ_STR(text, "In order.");
	free(text);
	free(reply);
	/* no error: the second branch */
	conv_body(&b, "false", "");
	reply = http_post(port, "/v1/messages", anth_headers, buf_cstr(&b));
	text = reply_text(reply);
	T_EQ_STR(text, "It ran.");
	free(text);
	free(reply);
	buf_release(&b);
	T_EQ_INT(t_mock_stop(pid, stop_w), 0);
}

/* A step's matched answer uses up its fallback, and the fallback its matched answer. */
T_TEST(a_group_is_used_up_by_any_of_its_responses)
{
	const char *scen = "{\"responses\": ["
	    "{\"text\": \"first\"},"
	    "{\"match_last\": \"MENTION\", \"group\": \"g\", \"text\": \"mentioned\"},"
	    "{\"group\": \"g\", \"text\": \"not mentioned\"},"
	    "{\"text\": \"the end\", \"repeat\": 3}]}";
	const char *const prompts[][2] = {
		{ "hi", "first" }, { "with MENTION", "mentioned" }, { "plain", "the end" },
		{ "MENTION again", "the end" },
	};
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	int port = 0, stop_w = -1;
	pid_t pid = t_mock_start(scen, &port, &stop_w);
	char *reply, *text;
	size_t i;

	T_OK(pid > 0);
	if (pid <= 0)
		return;
	for (i = 0; i < sizeof prompts / sizeof prompts[0]; i++) {
		buf_reset(&b);
		buf_printf(&b, "{\"model\": \"m\", \"max_tokens\": 16, \"stream\": true,"
		    " \"messages\": [{\"role\": \"user\", \"content\": \"%s\"}]}", prompts[i][0]);
		reply = http_post(port, "/v1/messages", anth_headers, buf_cstr(&b));
		text = reply_text(reply);
		T_EQ_STR(text, prompts[i][1]);
		free(text);
		free(reply);
	}
	buf_release(&b);
	T_EQ_INT(t_mock_stop(pid, stop_w), 0);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	T_RUN(bad_scenarios_are_refused_with_a_reason);
	T_RUN(no_scenario_and_no_log_directory);
	T_RUN(a_forked_child_serves_and_stops_through_stop_fd);
	T_RUN(a_failed_check_makes_the_child_exit_1);
	T_RUN(require_all_fails_when_a_response_is_left);
	T_RUN(match_last_branches_on_the_newest_input_and_after_quotes_it);
	T_RUN(a_group_is_used_up_by_any_of_its_responses);
	return t_done();
}
