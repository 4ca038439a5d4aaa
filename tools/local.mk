noinst_LIBRARIES += libtandem_tools.a
libtandem_tools_a_SOURCES = \
	tools/tool.c tools/tool.h \
	tools/toolnames.c tools/toolnames.h \
	tools/sandbox.c tools/sandbox.h \
	tools/fsutil.c tools/fsutil.h \
	tools/diff.c tools/diff.h \
	tools/ignore.c tools/ignore.h \
	tools/gitconfig.c tools/gitconfig.h \
	tools/gitindex.c tools/gitindex.h \
	tools/read_file.c \
	tools/list_dir.c \
	tools/glob.c \
	tools/grep.c \
	tools/run_bash.c tools/run_bash.h \
	tools/edit_file.c \
	tools/write_file.c \
	tools/patch.c tools/patch.h \
	tools/apply_patch.c \
	tools/skill.c tools/skill.h tools/skill_tool.c \
	tools/filelist.c tools/filelist.h \
	tools/plantools.c tools/plantools.h

# The tools tests link the whole tools library (tool.c's table names every tool).
TOOLS_LIBS = libtandem_tools.a $(LIB_LIBS) $(PCRE2_LIBS)

check_PROGRAMS += tests/test_sandbox tests/test_diff tests/test_edit tests/test_search tests/test_read
TESTS += tests/test_sandbox tests/test_diff tests/test_edit tests/test_search tests/test_read
# apply_patch and the patch parser; the corpus comes from ../shared/fixtures/patches.
check_PROGRAMS += tests/test_patch
TESTS += tests/test_patch
tests_test_patch_LDADD = $(TOOLS_LIBS)
tests_test_sandbox_LDADD = $(TOOLS_LIBS)
tests_test_diff_LDADD = $(TOOLS_LIBS)
tests_test_edit_LDADD = $(TOOLS_LIBS)
tests_test_search_LDADD = $(TOOLS_LIBS)
tests_test_read_LDADD = $(TOOLS_LIBS)

# The git-config reader and the rules found for a workspace, against real git.
check_PROGRAMS += tests/test_ignore
TESTS += tests/test_ignore
tests_test_ignore_LDADD = $(TOOLS_LIBS)
# run_bash's output capture: kept by length, cleaned for the model, raw in the spill file.
check_PROGRAMS += tests/test_bash_capture
TESTS += tests/test_bash_capture
tests_test_bash_capture_LDADD = $(TOOLS_LIBS)
