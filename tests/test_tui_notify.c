/* Tests for tui/notify.c: which escape a terminal gets, and its bytes. */
#include "autoconf.h"

#include <string.h>

#include "notify.h"
#include "t.h"

static const char *const *t_env;

static const char *
fake_env(const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; t_env[i] != NULL; i++)
		if (strncmp(t_env[i], name, n) == 0 && t_env[i][n] == '=')
			return t_env[i] + n + 1;
	return NULL;
}

static enum notify_style
style(const char *setting, const char *const *env)
{
	t_env = env;
	return notify_style_for(setting, fake_env);
}

T_TEST(auto_picks_by_terminal)
{
	static const char *const kitty[] = { "KITTY_WINDOW_ID=1", "TERM=xterm-kitty", NULL };
	static const char *const iterm[] = { "TERM_PROGRAM=iTerm.app", NULL };
	static const char *const iterm_tmux[] = { "TERM_PROGRAM=tmux", "LC_TERMINAL=iTerm2", NULL };
	static const char *const wt[] = { "WT_SESSION=abc", NULL };
	static const char *const foot[] = { "TERM=foot", NULL };
	static const char *const vte[] = { "VTE_VERSION=7000", "TERM=xterm-256color", NULL };
	static const char *const plain[] = { "TERM=xterm", NULL };

	T_EQ_INT(style("auto", kitty), NOTIFY_OSC99);
	T_EQ_INT(style("auto", iterm), NOTIFY_OSC9);
	T_EQ_INT(style("auto", iterm_tmux), NOTIFY_OSC9);
	T_EQ_INT(style("auto", wt), NOTIFY_OSC9);
	T_EQ_INT(style("auto", foot), NOTIFY_OSC777);
	T_EQ_INT(style("auto", vte), NOTIFY_OSC777);
	T_EQ_INT(style("auto", plain), NOTIFY_BELL);
	T_EQ_INT(style(NULL, plain), NOTIFY_BELL);
	T_EQ_INT(style("osc777", kitty), NOTIFY_OSC777);
	T_EQ_INT(style("off", kitty), NOTIFY_OFF);
}

T_TEST(bytes_of_each_style)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	notify_bytes(NOTIFY_OSC9, false, "tandem", "done; ok\x1b[31m", &b);
	T_EQ_STR(buf_cstr(&b), "\a\033]9;tandem: done  ok [31m\a");
	buf_reset(&b);
	notify_bytes(NOTIFY_OSC777, false, "tandem", "done", &b);
	T_EQ_STR(buf_cstr(&b), "\a\033]777;notify;tandem;done\a");
	buf_reset(&b);
	notify_bytes(NOTIFY_OSC99, false, "tandem", "done", &b);
	T_EQ_STR(buf_cstr(&b), "\a\033]99;i=tandem:d=0:p=title;tandem\033\\\033]99;i=tandem:d=1:p=body;done\033\\");
	buf_reset(&b);
	notify_bytes(NOTIFY_BELL, true, "tandem", "done", &b);
	T_EQ_STR(buf_cstr(&b), "\a");
	buf_reset(&b);
	notify_bytes(NOTIFY_OSC9, true, "t", "d", &b);
	T_EQ_STR(buf_cstr(&b), "\a\033Ptmux;\033\033]9;t: d\a\033\\");
	buf_reset(&b);
	notify_bytes(NOTIFY_OFF, true, "t", "d", &b);
	T_EQ_INT((int)b.len, 0);
	buf_release(&b);
}

int
main(void)
{
	T_RUN(auto_picks_by_terminal);
	T_RUN(bytes_of_each_style);
	return t_done();
}
