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
