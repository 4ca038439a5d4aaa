# The mock model server: a real HTTP/1.1 server on 127.0.0.1 (tests/mock/).
# Its code is also linked into tandem, which runs it for --demo.
noinst_PROGRAMS += tests/mockmodel
tests_mockmodel_SOURCES = tests/mock/main.c
tests_mockmodel_LDADD = $(TANDEM_LIBS)

# Integration tests: the real tandem against the mock, as TAP shell scripts.
TESTS += $(IT_TESTS)
IT_TESTS =
EXTRA_DIST += tests/t.h tests/it/lib.sh $(IT_TESTS)
