# The full-screen TUI (DESIGN.md §8).  tui_agent.c is the only file that
# names the agent's functions, so replays and benchmarks link without it.
noinst_LIBRARIES += libtandem_tui.a
libtandem_tui_a_SOURCES = \
	tui/tui.c tui/tui.h tui/app.h tui/app.c \
	tui/tui_agent.c \
	tui/replay.c \
	tui/paint.c \
	tui/draw.c tui/draw.h \
	tui/keys.c \
	tui/cmds.c \
	tui/todoview.c tui/todoview.h tui/askpick.c tui/askpick.h tui/approve.c \
	tui/bang.c tui/bang.h \
	tui/queue.c tui/queue.h \
	tui/mention.c tui/mention.h \
	tui/notify.c tui/notify.h \
	tui/copy.c tui/copy.h \
	tui/paste.c tui/paste.h \
	tui/visual.c tui/visual.h \
	tui/browse.c tui/browse.h \
	tui/theme.c tui/theme.h \
	tui/wrap.c tui/wrap.h \
	tui/sline.c tui/sline.h \
	tui/mdview.c tui/mdview.h tui/mdentities.inc \
	tui/mdline.c tui/mdline.h \
	tui/udiff.c tui/udiff.h \
	tui/synhl.c tui/synhl.h \
	tui/editor.c tui/editor.h \
	tui/transcript.c tui/transcript.h \
	tui/toolview.c tui/toolview.h \
	tui/toolshow.c tui/toolshow.h \
	tui/status.c tui/status.h \
	tui/statusline.c tui/statusline.h \
	tui/layout.c tui/layout.h

# The replay driver for the screen tests (and bench/).
check_PROGRAMS += tests/tui/tui_replay
tests_tui_tui_replay_SOURCES = tests/tui/tui_replay.c
tests_tui_tui_replay_LDADD = libtandem_tui.a libtandem_agent.a $(LIB_LIBS) $(NCURSES_LIBS) $(MD4C_LIBS)

# Unit tests of the pure modules.
TUI_TEST_LIBS = libtandem_tui.a $(LIB_LIBS) $(NCURSES_LIBS) $(MD4C_LIBS)
check_PROGRAMS += tests/test_tui_md tests/test_tui_wrap tests/test_tui_diff \
	tests/test_tui_theme tests/test_tui_editor tests/test_tui_view tests/test_tui_browse \
	tests/test_tui_visual
TESTS += tests/test_tui_md tests/test_tui_wrap tests/test_tui_diff \
	tests/test_tui_theme tests/test_tui_editor tests/test_tui_view tests/test_tui_browse \
	tests/test_tui_visual
tests_test_tui_md_SOURCES = tests/test_tui_md.c
tests_test_tui_md_LDADD = $(TUI_TEST_LIBS)
tests_test_tui_wrap_SOURCES = tests/test_tui_wrap.c
tests_test_tui_wrap_LDADD = $(TUI_TEST_LIBS)
tests_test_tui_diff_SOURCES = tests/test_tui_diff.c
tests_test_tui_diff_LDADD = $(TUI_TEST_LIBS)
# The notifications' escapes (tui/notify.c).
check_PROGRAMS += tests/test_tui_notify
TESTS += tests/test_tui_notify
tests_test_tui_notify_SOURCES = tests/test_tui_notify.c
tests_test_tui_notify_LDADD = libtandem_tui.a libtandem_agent.a $(LIB_LIBS) $(NCURSES_LIBS) $(MD4C_LIBS)
# Copying without hard wraps (tui/copy.c).
check_PROGRAMS += tests/test_tui_copy
TESTS += tests/test_tui_copy
tests_test_tui_copy_SOURCES = tests/test_tui_copy.c
tests_test_tui_copy_LDADD = libtandem_tui.a libtandem_agent.a $(LIB_LIBS) $(NCURSES_LIBS) $(MD4C_LIBS)
tests_test_tui_theme_SOURCES = tests/test_tui_theme.c
tests_test_tui_theme_LDADD = $(TUI_TEST_LIBS)
tests_test_tui_editor_SOURCES = tests/test_tui_editor.c
tests_test_tui_editor_LDADD = $(TUI_TEST_LIBS)
tests_test_tui_view_SOURCES = tests/test_tui_view.c
tests_test_tui_view_LDADD = $(TUI_TEST_LIBS)
tests_test_tui_visual_SOURCES = tests/test_tui_visual.c
tests_test_tui_visual_LDADD = $(TUI_TEST_LIBS)
# The browser module acts on the app too: it links the screen and the event bus.
tests_test_tui_browse_SOURCES = tests/test_tui_browse.c
tests_test_tui_browse_LDADD = libtandem_tui.a libtandem_agent.a $(LIB_LIBS) $(NCURSES_LIBS) $(MD4C_LIBS)

# Screen tests: the replay driver, and the real tandem against the mock
# model server (mock.sh), in tmux at fixed sizes (TAP shell scripts).
TUI_SCREEN_TESTS = tests/tui/stream.sh tests/tui/tools.sh tests/tui/approval.sh tests/tui/never.sh \
	tests/tui/resize.sh tests/tui/keys.sh tests/tui/real.sh tests/tui/rewind.sh tests/tui/modes.sh tests/tui/bearings.sh tests/tui/browsenum.sh \
	tests/tui/settings.sh tests/tui/trustdefs.sh tests/tui/durable.sh tests/tui/models.sh tests/tui/table.sh \
	tests/tui/bang.sh tests/tui/queue.sh \
	tests/tui/notify.sh tests/tui/image.sh tests/tui/copy.sh tests/tui/paste.sh \
	tests/tui/wsnap.sh \
	tests/tui/turndiff.sh \
	tests/tui/mcp.sh \
	tests/tui/mcpres.sh \
	tests/tui/editor.sh
# web_fetch and web_search on the screen: approvals, the tools pane, the browser.
TUI_SCREEN_TESTS += tests/tui/web.sh
# The command sandbox on the screen: the status bar, a refusal, the way outside.
TUI_SCREEN_TESTS += tests/tui/sandbox.sh
# The user's ! commands in the workspace snapshots: recorded, listed, rewound and redone.
TUI_SCREEN_TESTS += tests/tui/bangsnap.sh
# The person's e edit of a proposal, as the model sees it in the next request.
TUI_SCREEN_TESTS += tests/tui/editnote.sh
# The @path index shows files git tracks under an ignore rule.
TUI_SCREEN_TESTS += tests/tui/mentiongit.sh
# Subagents: the live line, an approval that names its subagent, /agents, rewind with the parent.
TUI_SCREEN_TESTS += tests/tui/subagent.sh
# apiKeyHelper failing after a 401: one sentence on the screen, its key redacted.
TUI_SCREEN_TESTS += tests/tui/keyhelper.sh
# SIGKILL while a ! command runs, then a rewind of its turn.
TUI_SCREEN_TESTS += tests/tui/bangcrash.sh
# /init and /review: their prompts, AGENTS.md's edit approved, the diff a planted git config cannot turn into a program run.
TUI_SCREEN_TESTS += tests/tui/initreview.sh
# A prompt-cache break's price in dollars: the note, the status bar, /cost.
TUI_SCREEN_TESTS += tests/tui/breakprice.sh
# The transcript tells the story: inline hunks and output, Ctrl+O, the followed call, a waiting status.
TUI_SCREEN_TESTS += tests/tui/story.sh
# A language server's new errors: counted on the edit's line, shown on Ctrl+O; its state on the status bar.
TUI_SCREEN_TESTS += tests/tui/lsp.sh
# A Claude Code user's .claude folder: the notice of what is not honoured, commands, skills, memory.
TUI_SCREEN_TESTS += tests/tui/claude.sh
EXTRA_DIST += tests/tui/story.jsonl tests/tui/denied.jsonl
# Claude Code's statusLine: the real ccstatusline as the bar, a sleeping command, a failing one.
TUI_SCREEN_TESTS += tests/tui/statusline.sh
# Nothing the statusLine command starts (a setsid grandchild) outlives tandem.
TUI_SCREEN_TESTS += tests/tui/statusreap.sh
TESTS += $(TUI_SCREEN_TESTS)
EXTRA_DIST += $(TUI_SCREEN_TESTS) tests/tui/lib.sh tests/tui/mock.sh tests/tui/stream.jsonl \
	tests/tui/tools.jsonl tests/tui/approval.jsonl tests/tui/empty.jsonl tests/tui/table.jsonl tests/tui/emoji.jsonl \
	tests/tui/editor.jsonl
EXTRA_DIST += scripts/gen-entities.py
# Syntax highlighting from nano's syntax files (tui/synhl.c).
check_PROGRAMS += tests/test_tui_synhl
TESTS += tests/test_tui_synhl
tests_test_tui_synhl_SOURCES = tests/test_tui_synhl.c
tests_test_tui_synhl_LDADD = $(TUI_TEST_LIBS)
# Highlighted code blocks and diffs, the code frame's right edge, a tab to spaces shown.
TUI_SCREEN_TESTS += tests/tui/syntax.sh
EXTRA_DIST += tests/tui/syntax.jsonl
# tandem --demo: a guided tour that follows the user's answers.
# tests/tui/demo.sh, glyphs.sh and mention.sh: in LONG_TESTS (Makefile.am), which go first.
# The todo list (per turn, resumed, rewound), plan approval, ask_user's picker.
TUI_SCREEN_TESTS += tests/tui/todo.sh tests/tui/plan.sh
