# The mock model server: a real HTTP/1.1 server on 127.0.0.1 (tests/mock/).
# Its code is also linked into tandem, which runs it for --demo.
noinst_LIBRARIES += libtandem_mock.a
libtandem_mock_a_SOURCES = tests/mock/mock.c tests/mock/mock.h
noinst_PROGRAMS += tests/mockmodel
tests_mockmodel_SOURCES = tests/mock/main.c
tests_mockmodel_LDADD = libtandem_mock.a $(LIB_LIBS)
# The C test of the library is named apart from test_mock.sh: both would log to test_mock.log.
check_PROGRAMS += tests/test_mock_api
tests_test_mock_api_SOURCES = tests/test_mock.c
tests_test_mock_api_LDADD = libtandem_mock.a $(LIB_LIBS)
TESTS += tests/test_mock_api tests/test_mock.sh
EXTRA_DIST += tests/test_mock.sh tests/mock/README.md

# Integration tests: the real tandem against the mock, as TAP shell scripts.
TESTS += $(IT_TESTS)
IT_TESTS = tests/it/headless.sh tests/it/tools.sh tests/it/crash.sh tests/it/rewind.sh tests/it/context.sh tests/it/bash.sh tests/it/hooks.sh \
	tests/it/turns.sh
IT_TESTS += tests/it/openai.sh tests/it/retry.sh tests/it/thinking.sh tests/it/soak.sh
IT_TESTS += tests/it/models.sh
EXTRA_DIST += tests/t.h tests/t_tree.h tests/it/lib.sh $(IT_TESTS)

# The banned functions of STYLE.md.
TESTS += tests/test_style.sh
EXTRA_DIST += tests/test_style.sh
