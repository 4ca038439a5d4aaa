# libFuzzer targets: configure with CC=clang --enable-fuzz, then `make fuzz`
# (the gate CI runs) replays each target's corpus and FUZZ_RUNS mutations
# from a fixed seed, and `make fuzz-long` runs each for FUZZ_SECONDS from a
# random seed, under AddressSanitizer and UBSan; both fail on a crash, a
# leak or a broken invariant (tests/fuzz/README.md).  A target NAME
# is tests/fuzz/fuzz_NAME.c with its seeds in tests/fuzz/corpus/NAME/: to add
# one, add NAME to this list.
FUZZ_TARGETS = sse stream_anthropic stream_openai config perm ignore session mdview \
	shparse patch gitconfig modelcat image sjson jsonrpc mcp_lines mcp_config
FUZZ_SECONDS = 30
FUZZ_RUNS = 4000
FUZZ_LIBS = libtandem_tui.a libtandem_agent.a libtandem_tools.a libtandem_lib.a
EXTRA_DIST += tests/fuzz
# git's index file reader (tools/gitindex.c)
FUZZ_TARGETS += gitindex
# HTML to Markdown (agent/web/html2md.c)
FUZZ_TARGETS += html2md
# the language servers' Content-Length framing (agent/lsp/lsp_rpc.c)
FUZZ_TARGETS += lsp_frames

if FUZZ
FUZZ_ENV = CC='$(CC)' CPPFLAGS='$(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS)' \
	CFLAGS='$(AM_CFLAGS) $(CFLAGS)' LDFLAGS='$(FUZZ_LDFLAGS) $(LDFLAGS)' \
	LIBS='$(TANDEM_LIBS) $(LIBS)' FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_RUNS='$(FUZZ_RUNS)' FUZZ_SRCDIR='$(abs_top_srcdir)/tests/fuzz'
fuzz-build: $(FUZZ_LIBS)
	@$(FUZZ_ENV) $(SHELL) $(top_srcdir)/tests/fuzz/run.sh build $(FUZZ_TARGETS)
fuzz: fuzz-build
	@$(FUZZ_ENV) $(SHELL) $(top_srcdir)/tests/fuzz/run.sh run $(FUZZ_TARGETS)
fuzz-long: fuzz-build
	@$(FUZZ_ENV) $(SHELL) $(top_srcdir)/tests/fuzz/run.sh long $(FUZZ_TARGETS)
else
fuzz fuzz-build fuzz-long:
	@echo "make fuzz: the fuzz targets need a fuzz build: configure with CC=clang --enable-fuzz"; exit 1
endif
.PHONY: fuzz fuzz-build fuzz-long
