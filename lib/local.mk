noinst_LIBRARIES += libtandem_lib.a
libtandem_lib_a_SOURCES = \
	lib/xalloc.c lib/xalloc.h \
	lib/buf.c lib/buf.h \
	lib/ev.c lib/ev.h \
	lib/utf8.c lib/utf8.h \
	lib/hex.h \
	lib/json.c lib/json.h \
	lib/sha256.c lib/sha256.h \
	lib/sha1.c lib/sha1.h \
	lib/crc32.c lib/crc32.h \
	lib/gitbin.c lib/gitbin.h \
	lib/redact.c lib/redact.h \
	lib/pathglob.c lib/pathglob.h \
	lib/proc.c lib/proc.h \
	lib/fuzzy.c lib/fuzzy.h \
	lib/image.c lib/image.h \
	lib/file.c lib/file.h \
	lib/fmatter.c lib/fmatter.h \
	lib/jschema.c lib/jschema.h

# Unit tests link only the modules they test, plus lib/.
LIB_LIBS = libtandem_lib.a $(CJSON_LIBS) $(CRYPTO_LIBS)

check_PROGRAMS += tests/test_buf tests/test_ev tests/test_utf8 tests/test_json
TESTS += tests/test_buf tests/test_ev tests/test_utf8 tests/test_json
check_PROGRAMS += tests/test_redact
TESTS += tests/test_redact
tests_test_redact_LDADD = $(LIB_LIBS)
tests_test_buf_LDADD = $(LIB_LIBS)
tests_test_ev_LDADD = $(LIB_LIBS)
tests_test_utf8_LDADD = $(LIB_LIBS)
tests_test_json_LDADD = $(LIB_LIBS)

# The one path-glob matcher, each mode on its own and against real git.
check_PROGRAMS += tests/test_pathglob
TESTS += tests/test_pathglob
tests_test_pathglob_LDADD = $(LIB_LIBS)


# The fuzzy matcher of the @path completion.
check_PROGRAMS += tests/test_fuzzy
TESTS += tests/test_fuzzy
tests_test_fuzzy_LDADD = $(LIB_LIBS)

# Image headers and limits.
check_PROGRAMS += tests/test_image
TESTS += tests/test_image
tests_test_image_LDADD = $(LIB_LIBS)
# lib/file: whole-file reads and atomic writes.
check_PROGRAMS += tests/test_file
TESTS += tests/test_file
tests_test_file_LDADD = $(LIB_LIBS)

# The one child-process module: spawn paths, session, hooks, group kill, orphan sweep.
check_PROGRAMS += tests/test_proc
TESTS += tests/test_proc
tests_test_proc_LDADD = $(LIB_LIBS)

# git binary patches: SHA-1 blob ids, Adler-32, stored zlib, base85, and real git applying them.
check_PROGRAMS += tests/test_gitbin
TESTS += tests/test_gitbin
tests_test_gitbin_LDADD = $(LIB_LIBS)

# JSON Schema checks for --json-schema (structured output).
check_PROGRAMS += tests/test_jschema
TESTS += tests/test_jschema
tests_test_jschema_LDADD = $(LIB_LIBS)
