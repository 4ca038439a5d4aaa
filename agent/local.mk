noinst_LIBRARIES += libtandem_agent.a
libtandem_agent_a_SOURCES = \
	agent/event.c agent/event.h \
	agent/sse.c agent/sse.h \
	agent/stream.c agent/stream.h agent/stream_int.h \
	agent/stream_anthropic.c agent/stream_openai.c \
	agent/http.c agent/http.h \
	agent/provider.c agent/provider.h \
	agent/conv.c agent/conv.h \
	agent/sched.c agent/sched.h \
	agent/exec.c agent/exec.h \
	agent/perm.c agent/perm.h \
	agent/config.c agent/config.h \
	agent/agent.c agent/agent.h \
	agent/headless.c agent/headless.h

check_PROGRAMS += tests/test_sse tests/test_stream tests/test_perm
TESTS += tests/test_sse tests/test_stream tests/test_perm
tests_test_sse_SOURCES = tests/test_sse.c agent/sse.c
tests_test_sse_LDADD = $(LIB_LIBS)
tests_test_stream_SOURCES = tests/test_stream.c agent/sse.c agent/stream.c \
	agent/stream_anthropic.c agent/stream_openai.c
tests_test_stream_LDADD = $(LIB_LIBS)
tests_test_perm_LDADD = libtandem_agent.a $(TOOLS_LIBS)
