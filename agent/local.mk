noinst_LIBRARIES += libtandem_agent.a
libtandem_agent_a_SOURCES = \
	agent/event.c agent/event.h \
	agent/emit.c agent/emit.h \
	agent/model/sse.c agent/model/sse.h \
	agent/model/stream.c agent/model/stream.h agent/model/stream_int.h \
	agent/model/stream_anthropic.c agent/model/stream_openai.c \
	agent/model/http.c agent/model/http.h \
	agent/model/provider.c agent/model/provider.h \
	agent/context/conv.c agent/context/conv.h \
	agent/model/models.c agent/model/models.h \
	agent/model/modelcat.c agent/model/modelcat.h \
	agent/hooks/hooks.c agent/hooks.h \
	agent/hooks/cctranscript.c agent/hooks/cctranscript.h \
	agent/hooks/hooks_int.h agent/hooks/hook_remote.h agent/hooks/hook_http.c agent/hooks/hook_prompt.c \
	agent/hooks/hook_output.c agent/hooks/hook_bus.c \
	agent/context/memory.c agent/context/memory.h \
	agent/commands.c agent/commands.h \
	agent/projdefs.c agent/projdefs.h \
	agent/promptcmd.c agent/promptcmd.h \
	agent/context/cachewatch.c agent/context/cachewatch.h \
	agent/context/compact.c agent/context/compact.h \
	agent/sched.c agent/sched.h \
	agent/lsp/lsp.c agent/lsp/lsp.h agent/lsp/lsp_int.h \
	agent/lsp/lsp_rpc.c agent/lsp/lsp_rpc.h \
	agent/lsp/lsp_server.c agent/lsp/lsp_conf.c agent/lsp/lsp_tool.c \
	agent/inputnote.c agent/inputnote.h \
	agent/exec.c agent/exec.h \
	agent/forksrv/forksrv.c agent/forksrv/forksrv.h \
	agent/usercmd.c agent/usercmd.h \
	agent/turn/attach.c agent/turn/attach.h \
	agent/turn/inbox.c agent/turn/inbox.h \
	agent/bgshell.c agent/bgshell.h \
	agent/jail/protect.c agent/jail/protect.h \
	agent/jail/jail.c agent/jail/jail.h \
	agent/rules/perm.c agent/rules/perm.h \
	agent/rules/shparse.c agent/rules/shparse.h agent/rules/shparse_int.h \
	agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c \
	agent/config/config.c agent/config/config.h agent/config/config_keys.c agent/config/config_keys.h \
	agent/claude/notice.c agent/claude/notice.h agent/claude/ccsettings.c agent/claude/ccsettings.h \
	agent/claude/grant.c agent/claude/grant.h agent/claude/claude.c agent/claude/claude.h \
	agent/store/session.c agent/store/session.h \
	agent/turn/intent.c agent/turn/intent.h \
	agent/store/wsnap.c agent/store/wsnap.h agent/store/wsnap_int.h agent/store/wsnap_restore.c agent/store/wsnap_walk.c \
	agent/turn/agent.c agent/agent.h agent/turn/turn_int.h agent/turn/turn.h \
	agent/turn/conversation.c agent/turn/life.c \
	agent/turn/prompt.c agent/turn/prompt.h \
	agent/turn/modelset.c agent/turn/modelset.h \
	agent/turn/gate.c agent/turn/gate.h \
	agent/turn/call.c agent/turn/call.h \
	agent/turn/compaction.c agent/turn/compaction.h \
	agent/turn/record.c agent/turn/record.h \
	agent/turn/tooluse.c agent/turn/tooluse.h \
	agent/turn/timeline.c agent/turn/timeline.h \
	agent/turn/turndiff.c \
	agent/turn/resume.c agent/turn/resume.h \
	agent/turn/subhost.c agent/turn/subhost.h \
	agent/sub/subtype.c agent/sub/subtype.h \
	agent/sub/subagent.c agent/sub/subagent.h \
	agent/wire/headless.c agent/wire/headless.h \
	agent/wire/wire.c agent/wire/wire.h \
	agent/wire/sjson.c agent/wire/sjson.h \
	agent/wire/ccflags.c agent/wire/ccflags.h \
	agent/wire/ccrun.c agent/wire/ccrun.h \
	agent/wire/acp.c agent/wire/acp.h \
	agent/mcp/mcp.c agent/mcp/mcp.h agent/mcp/mcp_int.h agent/mcp/mcp_tools.c agent/mcp/mcp_cmd.c agent/mcp/mcp_res.c \
	agent/mcp/mcp_config.c agent/mcp/mcp_config.h \
	agent/mcp/mcp_stdio.c agent/mcp/mcp_stdio.h \
	agent/mcp/mcp_http.c agent/mcp/mcp_http.h \
	agent/web/webaddr.c agent/web/webaddr.h agent/web/html2md.c agent/web/html2md.h \
	agent/web/web.c agent/web/web.h agent/web/web_int.h agent/web/webfetch.c agent/web/websearch.c \
	agent/plan/plan.c agent/plan/plan.h

check_PROGRAMS += tests/test_sse tests/test_stream tests/test_perm tests/test_config
TESTS += tests/test_sse tests/test_stream tests/test_perm tests/test_config
check_PROGRAMS += tests/test_cachewatch tests/test_compact
TESTS += tests/test_cachewatch tests/test_compact
tests_test_cachewatch_SOURCES = tests/test_cachewatch.c agent/context/cachewatch.c
tests_test_cachewatch_LDADD = $(LIB_LIBS)
tests_test_compact_SOURCES = tests/test_compact.c agent/context/compact.c agent/context/conv.c
tests_test_compact_LDADD = $(LIB_LIBS)
check_PROGRAMS += tests/test_conv tests/test_forksrv
TESTS += tests/test_forksrv
tests_test_forksrv_SOURCES = tests/test_forksrv.c agent/forksrv/forksrv.c agent/exec.c agent/bgshell.c \
	agent/jail/jail.c agent/event.c agent/rules/perm.c agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c \
	agent/rules/shparse_rules.c
tests_test_forksrv_LDADD = $(TOOLS_LIBS)
TESTS += tests/test_conv
tests_test_conv_SOURCES = tests/test_conv.c agent/context/conv.c
tests_test_conv_LDADD = $(LIB_LIBS)
tests_test_sse_SOURCES = tests/test_sse.c agent/model/sse.c
tests_test_sse_LDADD = $(LIB_LIBS)
tests_test_stream_SOURCES = tests/test_stream.c tests/t_stream.h agent/model/sse.c agent/model/stream.c \
	agent/model/stream_anthropic.c agent/model/stream_openai.c
tests_test_stream_LDADD = $(LIB_LIBS)
check_PROGRAMS += tests/test_stream_openai
TESTS += tests/test_stream_openai
tests_test_stream_openai_SOURCES = tests/test_stream_openai.c agent/model/sse.c agent/model/stream.c \
	agent/model/stream_anthropic.c agent/model/stream_openai.c
tests_test_stream_openai_LDADD = $(LIB_LIBS)
EXTRA_DIST += tests/fixtures/sse
tests_test_perm_SOURCES = tests/test_perm.c agent/rules/perm.c tools/patch.c tools/sandbox.c
tests_test_perm_LDADD = $(LIB_LIBS)
tests_test_config_SOURCES = tests/test_config.c agent/config/config.c agent/config/config_keys.c agent/model/models.c agent/claude/notice.c agent/claude/ccsettings.c agent/claude/grant.c agent/rules/perm.c tools/patch.c tools/sandbox.c
tests_test_config_LDADD = $(LIB_LIBS)

check_PROGRAMS += tests/test_sched
TESTS += tests/test_sched
tests_test_sched_SOURCES = tests/test_sched.c agent/sched.c agent/exec.c agent/bgshell.c
tests_test_sched_SOURCES += agent/inputnote.c agent/forksrv/forksrv.c
tests_test_sched_LDADD = $(TOOLS_LIBS)

check_PROGRAMS += tests/test_hooks tests/test_memory tests/test_commands
TESTS += tests/test_hooks tests/test_memory tests/test_commands
tests_test_hooks_SOURCES = tests/test_hooks.c agent/hooks/hooks.c agent/event.c agent/config/config.c agent/config/config_keys.c agent/model/models.c agent/claude/notice.c agent/claude/ccsettings.c agent/claude/grant.c \
	agent/rules/perm.c tools/patch.c tools/sandbox.c
tests_test_hooks_LDADD = $(LIB_LIBS) $(PCRE2_LIBS)
tests_test_memory_SOURCES = tests/test_memory.c agent/context/memory.c agent/config/config.c agent/config/config_keys.c agent/model/models.c agent/claude/notice.c agent/claude/ccsettings.c agent/claude/grant.c agent/rules/perm.c tools/patch.c \
	tools/sandbox.c
tests_test_memory_LDADD = $(LIB_LIBS)
tests_test_commands_SOURCES = tests/test_commands.c agent/commands.c agent/config/config.c agent/config/config_keys.c agent/model/models.c agent/claude/notice.c agent/claude/ccsettings.c agent/claude/grant.c \
	agent/rules/perm.c tools/patch.c tools/sandbox.c tools/skill.c
tests_test_commands_LDADD = $(LIB_LIBS)

# The shell splitter, used by perm.c.
tests_test_perm_SOURCES += agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
tests_test_config_SOURCES += agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
tests_test_hooks_SOURCES += agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
tests_test_memory_SOURCES += agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
tests_test_commands_SOURCES += agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
check_PROGRAMS += tests/test_shparse
TESTS += tests/test_shparse
tests_test_shparse_SOURCES = tests/test_shparse.c agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
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
tests_test_mcp_SOURCES = tests/test_mcp.c agent/mcp/mcp_config.c agent/mcp/mcp_stdio.c agent/rules/perm.c \
	agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c tools/patch.c tools/sandbox.c
tests_test_mcp_LDADD = $(LIB_LIBS)

# The command sandbox: config.c parses its settings, exec.c runs commands in it.
tests_test_config_SOURCES += agent/jail/jail.c agent/event.c
tests_test_hooks_SOURCES += agent/jail/jail.c
tests_test_memory_SOURCES += agent/jail/jail.c agent/event.c
tests_test_commands_SOURCES += agent/jail/jail.c agent/event.c
tests_test_sched_SOURCES += agent/jail/jail.c agent/event.c agent/rules/perm.c agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
check_PROGRAMS += tests/test_jail
TESTS += tests/test_jail
tests_test_jail_SOURCES = tests/test_jail.c agent/jail/jail.c agent/event.c agent/rules/perm.c agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c \
	tools/patch.c tools/sandbox.c
tests_test_jail_LDADD = $(LIB_LIBS)
# Workspace snapshots: the stat index, the store, the changes and their restore.
check_PROGRAMS += tests/test_wsnap
TESTS += tests/test_wsnap
tests_test_wsnap_SOURCES = tests/test_wsnap.c agent/store/wsnap.c agent/store/wsnap_restore.c agent/store/wsnap_walk.c agent/store/session.c agent/context/conv.c
tests_test_wsnap_LDADD = $(TOOLS_LIBS)
check_PROGRAMS += tests/test_mcp_tools
TESTS += tests/test_mcp_tools
tests_test_mcp_tools_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CJSON_LIBS)
# Protected names a sandboxed command creates: the table, the watch, the quarantine, its cost.
check_PROGRAMS += tests/test_protect
TESTS += tests/test_protect
tests_test_protect_SOURCES = tests/test_protect.c agent/jail/protect.c
tests_test_protect_LDADD = $(LIB_LIBS)
# The language servers' base protocol: framing and positions (agent/lsp/lsp_rpc.c).
check_PROGRAMS += tests/test_lsp
TESTS += tests/test_lsp
tests_test_lsp_SOURCES = tests/test_lsp.c agent/lsp/lsp_rpc.c
tests_test_lsp_LDADD = $(LIB_LIBS)

# Two conversations of one session, their turns interleaved, against the mock server.
check_PROGRAMS += tests/test_convs
TESTS += tests/test_convs
tests_test_convs_SOURCES = tests/test_convs.c tests/t_mock.h
tests_test_convs_LDADD = libtandem_mock.a libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CJSON_LIBS) \
	$(CRYPTO_LIBS) $(MD4C_LIBS)

# The web tools (agent/web/): addresses, HTML to Markdown.
check_PROGRAMS += tests/test_web
TESTS += tests/test_web
tests_test_web_SOURCES = tests/test_web.c agent/web/webaddr.c agent/web/html2md.c
tests_test_web_LDADD = $(LIB_LIBS) $(CURL_LIBS)

# The plan tools' checks and results, and the todo list a conversation holds.
check_PROGRAMS += tests/test_plan
TESTS += tests/test_plan
tests_test_plan_SOURCES = tests/test_plan.c
tests_test_plan_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS)

# hooks/: Claude Code's transcript shape, and the http and prompt hook types.
tests_test_hooks_SOURCES += agent/hooks/cctranscript.c agent/hooks/hook_http.c agent/hooks/hook_prompt.c \
	agent/hooks/hook_output.c agent/hooks/hook_bus.c
tests_test_hooks_LDADD += libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS)

# config_load names what a layer's hooks hold that tandem does not honour (hooks_unhonoured).
tests_test_config_LDADD += libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(PCRE2_LIBS)
tests_test_memory_LDADD += libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(PCRE2_LIBS)
tests_test_commands_LDADD += libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(PCRE2_LIBS)
