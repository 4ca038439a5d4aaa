# Benchmarks: built by `make bench`, never run by `make check`.
# Other benchmarks add themselves as prerequisites of `bench`.
EXTRA_PROGRAMS = bench/grep_bench
bench_grep_bench_SOURCES = bench/grep_bench.c
bench_grep_bench_LDADD = $(TOOLS_LIBS)
CLEANFILES += $(EXTRA_PROGRAMS)
EXTRA_DIST += bench/README.md bench/grep_bench.sh

.PHONY: bench bench-grep
bench: bench-grep
bench-grep: bench/grep_bench$(EXEEXT)
	$(SHELL) $(srcdir)/bench/grep_bench.sh ./bench/grep_bench$(EXEEXT)

# prompt_bytes: the bytes and tokens sent before the user says anything.
EXTRA_PROGRAMS += bench/prompt_bytes
bench_prompt_bytes_SOURCES = bench/prompt_bytes.c
bench_prompt_bytes_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS)
.PHONY: bench-prompt
bench: bench-prompt
EXTRA_DIST += bench/prompt_bytes.sh
bench-prompt: bench/prompt_bytes$(EXEEXT) tandem$(EXEEXT) tests/mockmodel$(EXEEXT)
	$(SHELL) $(srcdir)/bench/prompt_bytes.sh . $(srcdir)

# The TUI's benchmarks: startup, idle RSS and wakeups, streaming cost and
# keypress latency, measured through a pty around the replay driver.
EXTRA_PROGRAMS += bench/tui_bench
bench_tui_bench_SOURCES = bench/tui_bench.c
EXTRA_DIST += bench/tui_bench.sh
.PHONY: bench-tui
bench: bench-tui
bench-tui: bench/tui_bench$(EXEEXT) tests/tui/tui_replay$(EXEEXT)
	./bench/tui_bench$(EXEEXT) ./tests/tui/tui_replay$(EXEEXT)

# The soak's memory and descriptors (tests/it/soak.sh, run outside the suite).
EXTRA_DIST += bench/soak_mem.sh
.PHONY: bench-soak
bench: bench-soak
bench-soak: tandem$(EXEEXT) tests/mockmodel$(EXEEXT)
	$(SHELL) $(srcdir)/bench/soak_mem.sh .

# resume: load a 10,000-message session and build its request.
EXTRA_DIST += bench/resume_bench.sh
.PHONY: bench-resume
bench: bench-resume
bench-resume: tandem$(EXEEXT)
	$(SHELL) $(srcdir)/bench/resume_bench.sh ./tandem$(EXEEXT) 10000

# apply_patch on a 1,500-file patch next to git apply.
EXTRA_PROGRAMS += bench/patch_bench
bench_patch_bench_SOURCES = bench/patch_bench.c
bench_patch_bench_LDADD = $(TOOLS_LIBS)
EXTRA_DIST += bench/patch_bench.sh
.PHONY: bench-patch
bench: bench-patch
bench-patch: bench/patch_bench$(EXEEXT)
	$(SHELL) $(srcdir)/bench/patch_bench.sh ./bench/patch_bench$(EXEEXT)
# stream: decoding cost against the number of content blocks (linear).
EXTRA_PROGRAMS += bench/stream_bench
bench_stream_bench_SOURCES = bench/stream_bench.c
bench_stream_bench_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS)
.PHONY: bench-stream
bench: bench-stream
bench-stream: bench/stream_bench$(EXEEXT)
	./bench/stream_bench$(EXEEXT)

# mention: the @path completion's listing and ranking on 100,000 files.
EXTRA_PROGRAMS += bench/mention_bench
bench_mention_bench_SOURCES = bench/mention_bench.c
bench_mention_bench_LDADD = $(TOOLS_LIBS)
.PHONY: bench-mention
bench: bench-mention
bench-mention: bench/mention_bench$(EXEEXT)
	./bench/mention_bench$(EXEEXT)
# jail: the start-up cost the command sandbox adds to a command (budget 5 ms).
EXTRA_PROGRAMS += bench/jail_bench
bench_jail_bench_SOURCES = bench/jail_bench.c
bench_jail_bench_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS)
.PHONY: bench-jail
bench: bench-jail
bench-jail: bench/jail_bench$(EXEEXT)
	./bench/jail_bench$(EXEEXT) 200 $(abs_top_srcdir)

# wsnap_bench: the workspace snapshot before a command on a tree of 20,000 files.
EXTRA_PROGRAMS += bench/wsnap_bench
bench_wsnap_bench_SOURCES = bench/wsnap_bench.c
bench_wsnap_bench_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS)
.PHONY: bench-wsnap
bench: bench-wsnap
bench-wsnap: bench/wsnap_bench$(EXEEXT)
	./bench/wsnap_bench$(EXEEXT)

# ask_rate: how often run_bash asks on real commands and maintainer
# scripts, and the time to split a 10 KB command (bench/ask_rate.sh
# compares two builds).
EXTRA_PROGRAMS += bench/ask_rate
bench_ask_rate_SOURCES = bench/ask_rate.c
bench_ask_rate_LDADD = libtandem_agent.a $(TOOLS_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS)
EXTRA_DIST += bench/ask_rate.sh
.PHONY: bench-ask
bench: bench-ask
bench-ask: bench/ask_rate$(EXEEXT)
	./bench/ask_rate$(EXEEXT) $(srcdir)

# keeper: 300 `true` commands through the real tandem, each under its keeper.
EXTRA_DIST += bench/keeper_bench.sh
.PHONY: bench-keeper
bench: bench-keeper
bench-keeper: tandem$(EXEEXT) tests/mockmodel$(EXEEXT)
	$(SHELL) $(srcdir)/bench/keeper_bench.sh ./tandem$(EXEEXT) ./tests/mockmodel$(EXEEXT) 300
# session: CPU per round at round 10 and at round 2,000 of one session, and peak RSS.
EXTRA_DIST += bench/session_bench.sh
.PHONY: bench-session
bench: bench-session
bench-session: tandem$(EXEEXT) tests/mockmodel$(EXEEXT)
	$(SHELL) $(srcdir)/bench/session_bench.sh . 2000

# The language servers: an edit's wait for its diagnostics (clangd warm), tandem's memory with two servers.
EXTRA_DIST += bench/lsp_bench.sh
.PHONY: bench-lsp
bench: bench-lsp
bench-lsp: tandem$(EXEEXT) tests/mockmodel$(EXEEXT)
	$(SHELL) $(srcdir)/bench/lsp_bench.sh ./tandem$(EXEEXT) ./tests/mockmodel$(EXEEXT)
# statusline: keypress to screen while a status line command sleeps.
EXTRA_PROGRAMS += bench/statusline_bench
bench_statusline_bench_SOURCES = bench/statusline_bench.c
.PHONY: bench-statusline
bench: bench-statusline
bench-statusline: bench/statusline_bench$(EXEEXT) tandem$(EXEEXT)
	d=$$(mktemp -d "$${TMPDIR:-/tmp}/tandem-sl-bench.XXXXXX") && \
	./bench/statusline_bench$(EXEEXT) ./tandem$(EXEEXT) "$$d"; rc=$$?; rm -rf "$$d"; exit $$rc
# html2md: HTML to Markdown on a 1 MB page (budget 50 ms), memory at the 10 MB read cap.
EXTRA_PROGRAMS += bench/html2md_bench
bench_html2md_bench_SOURCES = bench/html2md_bench.c agent/web/html2md.c
bench_html2md_bench_LDADD = $(LIB_LIBS) $(CURL_LIBS)
.PHONY: bench-html2md
bench: bench-html2md
bench-html2md: bench/html2md_bench$(EXEEXT)
	./bench/html2md_bench$(EXEEXT)
# sub_bench: the parent's first request with the agent tool, and the memory of a running subagent.
EXTRA_DIST += bench/sub_bench.sh
.PHONY: bench-sub
bench: bench-sub
bench-sub: tandem$(EXEEXT) tests/mockmodel$(EXEEXT)
	$(SHELL) $(srcdir)/bench/sub_bench.sh .
