noinst_LIBRARIES += libtandem_agent.a
libtandem_agent_a_SOURCES = \
	agent/event.c agent/event.h \
	agent/emit.c agent/emit.h \
	agent/sse.c agent/sse.h \
	agent/stream.c agent/stream.h agent/stream_int.h \
	agent/stream_anthropic.c agent/stream_openai.c \
	agent/http.c agent/http.h \
	agent/provider.c agent/provider.h \
	agent/conv.c agent/conv.h \
	agent/models.c agent/models.h \
	agent/modelcat.c agent/modelcat.h \
	agent/hooks.c agent/hooks.h \
	agent/memory.c agent/memory.h \
	agent/commands.c agent/commands.h \
	agent/promptcmd.c agent/promptcmd.h \
	agent/cachewatch.c agent/cachewatch.h \
	agent/compact.c agent/compact.h \
	agent/sched.c agent/sched.h \
	agent/inputnote.c agent/inputnote.h \
	agent/exec.c agent/exec.h \
	agent/usercmd.c agent/usercmd.h \
	agent/attach.c agent/attach.h \
	agent/inbox.c agent/inbox.h \
	agent/bgshell.c agent/bgshell.h \
	agent/protect.c agent/protect.h \
	agent/jail.c agent/jail.h \
	agent/perm.c agent/perm.h \
	agent/shparse.c agent/shparse.h agent/shparse_int.h \
	agent/shparse_word.c agent/shparse_rules.c \
	agent/config.c agent/config.h agent/config_keys.c agent/config_keys.h \
	agent/session.c agent/session.h \
	agent/intent.c agent/intent.h \
	agent/wsnap.c agent/wsnap.h agent/wsnap_int.h agent/wsnap_restore.c agent/wsnap_walk.c \
	agent/agent.c agent/agent.h agent/agent_int.h \
	agent/prompt.c agent/prompt.h \
	agent/modelset.c agent/modelset.h \
	agent/gate.c agent/gate.h \
	agent/call.c agent/call.h \
	agent/compaction.c agent/compaction.h \
	agent/record.c agent/record.h \
	agent/tooluse.c agent/tooluse.h \
	agent/timeline.c agent/timeline.h \
	agent/turndiff.c \
	agent/resume.c agent/resume.h \
	agent/wire/headless.c agent/wire/headless.h \
	agent/wire/wire.c agent/wire/wire.h \
	agent/wire/sjson.c agent/wire/sjson.h \
	agent/wire/ccflags.c agent/wire/ccflags.h \
	agent/wire/acp.c agent/wire/acp.h \
	agent/mcp.c agent/mcp.h agent/mcp_int.h agent/mcp_tools.c agent/mcp_cmd.c agent/mcp_res.c \
	agent/mcp_config.c agent/mcp_config.h \
	agent/mcp_stdio.c agent/mcp_stdio.h \
	agent/mcp_http.c agent/mcp_http.h

check_PROGRAMS += tests/test_sse tests/test_stream tests/test_perm tests/test_config
TESTS += tests/test_sse tests/test_stream tests/test_perm tests/test_config
check_PROGRAMS += tests/test_cachewatch tests/test_compact
TESTS += tests/test_cachewatch tests/test_compact
tests_test_cachewatch_SOURCES = tests/test_cachewatch.c agent/cachewatch.c
tests_test_cachewatch_LDADD = $(LIB_LIBS)
tests_test_compact_SOURCES = tests/test_compact.c agent/compact.c agent/conv.c
tests_test_compact_LDADD = $(LIB_LIBS)
tests_test_sse_SOURCES = tests/test_sse.c agent/sse.c
tests_test_sse_LDADD = $(LIB_LIBS)
tests_test_stream_SOURCES = tests/test_stream.c tests/t_stream.h agent/sse.c agent/stream.c \
	agent/stream_anthropic.c agent/stream_openai.c
tests_test_stream_LDADD = $(LIB_LIBS)
check_PROGRAMS += tests/test_stream_openai
TESTS += tests/test_stream_openai
tests_test_stream_openai_SOURCES = tests/test_stream_openai.c agent/sse.c agent/stream.c \
	agent/stream_anthropic.c agent/stream_openai.c
tests_test_stream_openai_LDADD = $(LIB_LIBS)
EXTRA_DIST += tests/fixtures/sse
tests_test_perm_SOURCES = tests/test_perm.c agent/perm.c tools/patch.c tools/sandbox.c
tests_test_perm_LDADD = $(LIB_LIBS)
tests_test_config_SOURCES = tests/test_config.c agent/config.c agent/config_keys.c agent/perm.c tools/patch.c tools/sandbox.c
tests_test_config_LDADD = $(LIB_LIBS)

check_PROGRAMS += tests/test_sched
TESTS += tests/test_sched
tests_test_sched_SOURCES = tests/test_sched.c agent/sched.c agent/exec.c agent/bgshell.c
tests_test_sched_SOURCES += agent/inputnote.c
tests_test_sched_LDADD = $(TOOLS_LIBS)

check_PROGRAMS += tests/test_hooks tests/test_memory tests/test_commands
TESTS += tests/test_hooks tests/test_memory tests/test_commands
tests_test_hooks_SOURCES = tests/test_hooks.c agent/hooks.c agent/event.c agent/config.c agent/config_keys.c \
	agent/perm.c tools/patch.c tools/sandbox.c
tests_test_hooks_LDADD = $(LIB_LIBS) $(PCRE2_LIBS)
tests_test_memory_SOURCES = tests/test_memory.c agent/memory.c agent/config.c agent/config_keys.c agent/perm.c tools/patch.c \
	tools/sandbox.c
tests_test_memory_LDADD = $(LIB_LIBS)
tests_test_commands_SOURCES = tests/test_commands.c agent/commands.c agent/config.c agent/config_keys.c \
	agent/perm.c tools/patch.c tools/sandbox.c
tests_test_commands_LDADD = $(LIB_LIBS)

# The shell splitter, used by perm.c.
tests_test_perm_SOURCES += agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
tests_test_config_SOURCES += agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
tests_test_hooks_SOURCES += agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
tests_test_memory_SOURCES += agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
tests_test_commands_SOURCES += agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
check_PROGRAMS += tests/test_shparse
TESTS += tests/test_shparse
tests_test_shparse_SOURCES = tests/test_shparse.c agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
tests_test_shparse_LDADD = $(LIB_LIBS)
check_PROGRAMS += tests/test_models
TESTS += tests/test_models
tests_test_models_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CJSON_LIBS)

# The user's own commands (!command).
check_PROGRAMS += tests/test_usercmd
TESTS += tests/test_usercmd
tests_test_usercmd_SOURCES = tests/test_usercmd.c
tests_test_usercmd_LDADD = libtandem_agent.a libtandem_tools.a $(LIB_LIBS) $(PCRE2_LIBS)

check_PROGRAMS += tests/test_mcp
TESTS += tests/test_mcp
tests_test_mcp_SOURCES = tests/test_mcp.c agent/mcp_config.c agent/mcp_stdio.c agent/perm.c \
	agent/shparse.c agent/shparse_word.c agent/shparse_rules.c tools/patch.c tools/sandbox.c
tests_test_mcp_LDADD = $(LIB_LIBS)

# The command sandbox: config.c parses its settings, exec.c runs commands in it.
tests_test_config_SOURCES += agent/jail.c agent/event.c
tests_test_hooks_SOURCES += agent/jail.c
tests_test_memory_SOURCES += agent/jail.c agent/event.c
tests_test_commands_SOURCES += agent/jail.c agent/event.c
tests_test_sched_SOURCES += agent/jail.c agent/event.c agent/perm.c agent/shparse.c agent/shparse_word.c agent/shparse_rules.c
check_PROGRAMS += tests/test_jail
TESTS += tests/test_jail
tests_test_jail_SOURCES = tests/test_jail.c agent/jail.c agent/event.c agent/perm.c agent/shparse.c agent/shparse_word.c agent/shparse_rules.c \
	tools/patch.c tools/sandbox.c
tests_test_jail_LDADD = $(LIB_LIBS)
# Workspace snapshots: the stat index, the store, the changes and their restore.
check_PROGRAMS += tests/test_wsnap
TESTS += tests/test_wsnap
tests_test_wsnap_SOURCES = tests/test_wsnap.c agent/wsnap.c agent/wsnap_restore.c agent/wsnap_walk.c agent/session.c agent/conv.c
tests_test_wsnap_LDADD = $(TOOLS_LIBS)
check_PROGRAMS += tests/test_mcp_tools
TESTS += tests/test_mcp_tools
tests_test_mcp_tools_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CJSON_LIBS)
# Protected names a sandboxed command creates: the table, the watch, the quarantine, its cost.
check_PROGRAMS += tests/test_protect
TESTS += tests/test_protect
tests_test_protect_SOURCES = tests/test_protect.c agent/protect.c
tests_test_protect_LDADD = $(LIB_LIBS)
