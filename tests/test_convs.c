/*
 * test_convs: two conversations of one session, their turns interleaved,
 * against the mock model server (tests/mock) in a forked child.  The main
 * conversation's first call is slow; meanwhile the second conversation
 * asks, runs a tool through the session's gate and scheduler, and
 * answers.  Each conversation gets its own answer, its own messages and
 * its own events; only the main one writes the session's log.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "turn/turn_int.h"
#include "buf.h"
#include "ev.h"
#include "event.h"
#include "file.h"
#include "json.h"
#include "mock/mock.h"
#include "t.h"
#include "t_mock.h"

static const char scenario[] =
    "{\"responses\": ["
    "{\"match_last\": \"prompt one\", \"delay_ms\": 400, \"text\": \"answer one\"},"
    "{\"match_last\": \"prompt two\", \"text\": \"Reading.\","
    " \"tool_uses\": [{\"id\": \"toolu_2\", \"name\": \"read_file\", \"input\": {\"path\": \"two.txt\"}}],"
    " \"stop_reason\": \"tool_use\"},"
    "{\"match_last\": \"contents of two\", \"text\": \"answer two\"},"
    "{\"match_last\": \"prompt three\", \"text\": \"answer three\"},"
    "{\"match_last\": \"prompt four\", \"text\": \"answer four\"}"
    "], \"require_all\": true}";

/* What one bus saw: its results' texts in order, and the tools it ran. */
struct seen {
	struct buf	 results;
	struct buf	 tools;
	int		 nresults;
	struct ev_loop	*loop;
	int		*waiting;
};

static void
seen_event(const cJSON *ev, void *arg)
{
	struct seen *s = arg;
	const char *type = json_str(ev, "type", "");

	if (strcmp(type, "result") == 0) {
		buf_printf(&s->results, "[%s]", json_str(ev, "text", ""));
		s->nresults++;
		if (--*s->waiting == 0)
			ev_break(s->loop);
	} else if (strcmp(type, "tool_result") == 0) {
		buf_printf(&s->tools, "[%s]", json_str(ev, "id", ""));
	}
}

/* Run the loop until n results came (or 20 s passed). */
static void
run_until(struct ev_loop *loop, int *waiting, int n)
{
	int64_t end = ev_now_ms() + 20000;

	*waiting = n;
	while (*waiting > 0 && ev_now_ms() < end)
		ev_run_once(loop, 100);
}

T_TEST(two_conversations_interleave_in_one_session)
{
	char dir[] = "/tmp/tandem-convs.XXXXXX", url[64], err[512] = "", path[4200];
	struct buf warn = BUF_INIT(BUF_NOLIMIT), berr = BUF_INIT(4096);
	struct seen s1, s2;
	struct config cfg;
	struct ev_loop *loop;
	struct event_bus *bus1, *bus2;
	struct agent *a;
	struct conversation *two;
	int port = 0, stop_w = -1, waiting = 0;
	struct buf log = BUF_INIT(BUF_NOLIMIT);
	pid_t pid;

	T_OK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/ws", dir);
	T_OK(mkdir(path, 0700) == 0);
	T_OK(chdir(path) == 0);
	{
		FILE *f = fopen("two.txt", "w");

		T_OK(f != NULL);
		fputs("contents of two\n", f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/home", dir);
	setenv("TANDEM_HOME", path, 1);
	snprintf(path, sizeof path, "%s/config", dir);
	setenv("XDG_CONFIG_HOME", path, 1);
	setenv("HOME", dir, 1);
	pid = t_mock_start(scenario, &port, &stop_w);
	T_OK(pid > 0);
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	setenv("ANTHROPIC_BASE_URL", url, 1);
	setenv("ANTHROPIC_API_KEY", "test-key", 1);

	config_init(&cfg);
	T_OK(config_load(&cfg, &warn, &berr) == 0);
	loop = ev_loop_new();
	bus1 = event_bus_new();
	bus2 = event_bus_new();
	memset(&s1, 0, sizeof s1);
	memset(&s2, 0, sizeof s2);
	buf_init(&s1.results, BUF_NOLIMIT);
	buf_init(&s1.tools, BUF_NOLIMIT);
	buf_init(&s2.results, BUF_NOLIMIT);
	buf_init(&s2.tools, BUF_NOLIMIT);
	s1.loop = s2.loop = loop;
	s1.waiting = s2.waiting = &waiting;
	event_subscribe(bus1, seen_event, &s1);
	event_subscribe(bus2, seen_event, &s2);
	a = agent_new(loop, bus1, &cfg, NULL, false, false, err, sizeof err);
	T_OK(a != NULL);
	if (a == NULL) {
		printf("# %s\n", err);
		return;
	}
	two = conversation_new(a, bus2, err, sizeof err);
	T_OK(two != NULL && two != agent_main(a) && conversation_agent(two) == a);

	/* The main call is slow: the second conversation's turn, tool and all, runs inside it. */
	T_EQ_INT(agent_submit(a, "prompt one"), 0);
	T_EQ_INT(conversation_submit(two, "prompt two"), 0);
	T_OK(conversation_busy(agent_main(a)) && conversation_busy(two));
	T_EQ_INT(conversation_submit(two, "too soon"), -1);
	run_until(loop, &waiting, 1);
	T_EQ_STR(buf_cstr(&s2.results), "[answer two]");
	T_EQ_STR(buf_cstr(&s1.results), "");
	T_OK(conversation_busy(agent_main(a)));
	T_EQ_STR(buf_cstr(&s2.tools), "[toolu_2]");
	run_until(loop, &waiting, 1);
	T_EQ_STR(buf_cstr(&s1.results), "[answer one]");
	T_EQ_STR(buf_cstr(&s1.tools), "");

	/* A second turn in each, interleaved again. */
	T_EQ_INT(conversation_submit(two, "prompt four"), 0);
	T_EQ_INT(agent_submit(a, "prompt three"), 0);
	run_until(loop, &waiting, 2);
	T_EQ_STR(buf_cstr(&s1.results), "[answer one][answer three]");
	T_EQ_STR(buf_cstr(&s2.results), "[answer two][answer four]");

	/* Each keeps its own messages: prompt, answer, prompt, answer; two's tool round besides. */
	T_EQ_INT(conv_count(conversation_conv(agent_main(a))), 4);
	T_EQ_INT(conv_count(conversation_conv(two)), 6);
	T_OK(!conversation_durable(two) && conversation_durable(agent_main(a)));
	/* Only the main conversation is in the session's log. */
	snprintf(path, sizeof path, "%s/log.jsonl", agent_session_dir(a));
	T_OK(file_read(path, 1 << 20, 0, &log, NULL) == 0);
	T_CONTAINS(buf_cstr(&log), "prompt three");
	T_OK(strstr(buf_cstr(&log), "prompt two") == NULL && strstr(buf_cstr(&log), "answer four") == NULL);
	buf_release(&log);

	conversation_free(two);
	agent_free(a);
	event_bus_free(bus1);
	event_bus_free(bus2);
	ev_loop_free(loop);
	config_release(&cfg);
	/* The mock saw every request pass its checks and served every response. */
	T_EQ_INT(t_mock_stop(pid, stop_w), 0);
	buf_release(&s1.results);
	buf_release(&s1.tools);
	buf_release(&s2.results);
	buf_release(&s2.tools);
	buf_release(&warn);
	buf_release(&berr);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	T_RUN(two_conversations_interleave_in_one_session);
	return t_done();
}
