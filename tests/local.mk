# The mock model server: a real HTTP/1.1 server on 127.0.0.1 (tests/mock/).
# Its code is also linked into tandem, which runs it for --demo.
noinst_LIBRARIES += libtandem_mock.a
libtandem_mock_a_SOURCES = tests/mock/mock.c tests/mock/mock.h tests/mock/mock_int.h \
	tests/mock/mock_scenario.c tests/mock/mock_anthropic.c tests/mock/mock_openai.c \
	tests/mock/mock_echo.c tests/mock/mock_cache.c tests/mock/mock_render.c \
	tests/mock/mock_models.c tests/mock/mock_http.c tests/mock/mock_websearch.c
noinst_PROGRAMS += tests/mockmodel
tests_mockmodel_SOURCES = tests/mock/main.c
tests_mockmodel_LDADD = libtandem_mock.a $(LIB_LIBS)
# The C test of the library is named apart from test_mock.sh: both would log to test_mock.log.
check_PROGRAMS += tests/test_mock_api
tests_test_mock_api_SOURCES = tests/test_mock.c tests/t_mock.h
tests_test_mock_api_LDADD = libtandem_mock.a $(LIB_LIBS)
TESTS += tests/test_mock_api tests/test_mock.sh
EXTRA_DIST += tests/test_mock.sh tests/mock/README.md

# Integration tests: the real tandem against the mock, as TAP shell scripts.
TESTS += $(IT_TESTS)
# The longest (durable.sh, crash.sh, soak.sh, killcampaign.sh, turns.sh,
# lsp.sh, mcp.sh, web.sh, retry.sh, hostile.sh, bgshell.sh): in LONG_TESTS
# (Makefile.am), which go first.
IT_TESTS = tests/it/headless.sh tests/it/tools.sh tests/it/rewind.sh tests/it/context.sh tests/it/bash.sh tests/it/hooks.sh
IT_TESTS += tests/it/openai.sh tests/it/thinking.sh
IT_TESTS += tests/it/subagents.sh
IT_TESTS += tests/it/submcp.sh
IT_TESTS += tests/it/reaper.sh
IT_TESTS += tests/it/secrets.sh tests/it/rules.sh
IT_TESTS += tests/it/claude.sh
# Deny rules on every route that allows without the person; keys on two more routes.
IT_TESTS += tests/it/denywins.sh tests/it/leaks.sh
# apiKeyHelper failing with a key on its stderr: one redacted sentence, the key nowhere.
IT_TESTS += tests/it/keyhelper.sh
EXTRA_DIST += tests/it/denywins.mjs
EXTRA_DIST += tests/it/subsdk.mjs
# apply_patch and its permission check through the real binary.
IT_TESTS += tests/it/patch.sh
IT_TESTS += tests/it/phases.sh
IT_TESTS += tests/it/confine.sh
# The command sandbox (namespaces, Landlock) and the end of what a command starts.
IT_TESTS += tests/it/sandbox.sh tests/it/sandboxcfg.sh
IT_TESTS += tests/it/protect.sh
# Ignore rules as git has them, against git ls-files.
IT_TESTS += tests/it/ignore.sh
# Broken and hostile servers; command output and headless text as the model and terminal get them.
IT_TESTS += tests/it/output.sh
IT_TESTS += tests/it/models.sh
IT_TESTS += tests/it/mcpres.sh
# web_fetch against a web server on loopback (tests/it/webserve.mjs)
IT_TESTS += tests/it/websearch.sh
# Routes past the promises: host spellings against WebFetch rules, and more.
IT_TESTS += tests/it/attack_web.sh tests/it/attack_trust.sh tests/it/attack_memory.sh
EXTRA_DIST += tests/it/webserve.mjs
EXTRA_DIST += tests/mcp/fault.sh
IT_TESTS += tests/it/attack_lsp.sh
# The first request stays under its budget with every default tool (bench/prompt_bytes.sh).
IT_TESTS += tests/it/firstreq.sh
EXTRA_DIST += tests/lsp/fault.sh
EXTRA_DIST += tests/t.h tests/t_tree.h tests/ws_state.sh tests/it/lib.sh tests/it/firstreq_lib.sh $(IT_TESTS)

# The banned functions of STYLE.md.
TESTS += tests/test_style.sh
EXTRA_DIST += tests/test_style.sh
# The include graph and the call graph (scripts/layers.py).
TESTS += tests/test_layers.sh
EXTRA_DIST += tests/test_layers.sh scripts/layers.py

# The shell splitter against real bash (tests/test_shdiff.c says how).
# (In TESTS first, with LONG_TESTS: Makefile.am.)
check_PROGRAMS += tests/test_shdiff
tests_test_shdiff_SOURCES = tests/test_shdiff.c agent/rules/shparse.c agent/rules/shparse_word.c agent/rules/shparse_lex.c agent/rules/shparse_rules.c tools/toolnames.c
tests_test_shdiff_LDADD = $(LIB_LIBS)
IT_TESTS += tests/it/shell.sh
# The fault shim (tests/fault/): an LD_PRELOAD library that fails a chosen
# write, fsync, rename or open.  Built plain (no sanitizer: it is preloaded
# before the runtime) by every build's make check.
check_DATA = tests/fault/libfaultshim.so
tests/fault/libfaultshim.so: $(srcdir)/tests/fault/faultshim.c
	@$(MKDIR_P) tests/fault
	$(AM_V_CC)$(CC) -std=gnu11 -O1 -Wall -Wextra -shared -fPIC -o $@ $(srcdir)/tests/fault/faultshim.c -ldl
CLEANFILES += tests/fault/libfaultshim.so
EXTRA_DIST += tests/fault/faultshim.c
# Images in prompts, per provider.
IT_TESTS += tests/it/image.sh

# The wire front ends driven by the real clients from tests/npm: the Agent
# SDK's query() (stream-json) and the ACP SDK's client (tandem acp).
IT_TESTS += tests/it/sdk.sh tests/it/acp.sh tests/it/streamjson.sh
IT_TESTS += tests/it/ccheadless.sh tests/it/cchooks.sh
EXTRA_DIST += tests/it/sdk.mjs tests/it/acp.mjs
# Workspace snapshots: commands rewound and redone.
IT_TESTS += tests/it/wsnap.sh
IT_TESTS += tests/it/wsnap_bg.sh
# A command that changed what a name is (a directory made a link, and back): rewound, never through the link.
IT_TESTS += tests/it/rewindtypes.sh
IT_TESTS += tests/it/rewindodd.sh
# Hard links and FIFOs a command broke, removed or made: rewound and redone as links and FIFOs.
IT_TESTS += tests/it/rewindlinks.sh
# Nothing an MCP server, a language server or a hook starts outlives tandem.
IT_TESTS += tests/it/attack_reap.sh tests/it/lspreap.sh
# The snapshot store's refs: pruning keeps what any session's record needs.
IT_TESTS += tests/it/wsnaprefs.sh
# A turn's changes as one unified diff (--diff), reversed by git apply -R.
IT_TESTS += tests/it/turndiff.sh
# Sessions and the wall clock: retention and -c when it jumps (faketime).
IT_TESTS += tests/it/clock.sh
# The sandbox's routes to host sockets, its Landlock ABIs, and root commands without ptrace.
IT_TESTS += tests/it/sandbox_routes.sh tests/it/rootcaps.sh tests/it/sandbox_abi.sh
EXTRA_DIST += tests/it/sandbox_routes.c
# A rewind after a crash at each point between a tool's start and its records.
IT_TESTS += tests/it/rewindcrash.sh
# What tandem says after a crash or a failed write (issue 27.10).
IT_TESTS += tests/it/reports.sh
# The kill campaign: kills over multi-round sessions, then resume and rewind
# (fixed seed, bounded).  `make kill-campaign` runs a longer one, not in CI.
kill-campaign: all
	top_builddir=$(abs_top_builddir) top_srcdir=$(abs_top_srcdir) KILL_CASES=$${KILL_CASES:-150} \
	    $(SHELL) $(srcdir)/tests/it/killcampaign.sh
.PHONY: kill-campaign
# Requests built from what the conversation keeps: byte for byte the whole build (TANDEM_DEBUG=conv).
IT_TESTS += tests/it/reqcache.sh
# todo_write, exit_plan, ask_user headless: answered at once; Claude Code's names in rules and hooks; the list after a compaction.
IT_TESTS += tests/it/plantools.sh
