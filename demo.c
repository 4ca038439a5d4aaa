/* The offline demo: see demo.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "demo.h"
#include "mock/mock.h"
#include "xalloc.h"

struct demo {
	pid_t	 pid;
	int	 stop_fd;	/* closing it tells the server to stop */
	char	*dir;
};

/* The small project the demo works on. */
static const struct {
	const char *name;
	const char *text;
} demo_files[] = {
	{ "README.md", "# greet\n\nPrints a greeting for each name given.\n" },
	{ "Makefile", "greet: greet.c\n\tcc -Wall -o greet greet.c\n\ntest: greet\n\t./greet Ada Linus\n" },
	{ "greet.c",
	  "#include <stdio.h>\n\n"
	  "int\nmain(int argc, char **argv)\n{\n"
	  "\tfor (int i = 0; i <= argc; i++)\n"
	  "\t\tprintf(\"hello, %s\\n\", argv[i]);\n"
	  "\treturn 0;\n}\n" },
};

/*
 * The tour.  Each step says what to try next, and the answer to a tool's
 * result follows what the user did with it: the mock picks a response by
 * the request's newest input ("match_last": the call's id, then whether the
 * user edited it, denied it with a reason, denied it, or it failed) and
 * quotes the user's reason or edited command back ({{after:KEY}}).  Typed
 * prompts take the unmatched responses in order: a command that changes
 * files to rewind, a read that sees whether the rewind happened, a slow
 * answer to queue a prompt behind, an @-mention (matched on its attachment),
 * a fork.  The usage is the mock's own, computed from each request with a
 * simulated prompt cache, so the only cache notes shown are real ones.
 * check_echo is off: a rewind or a fork legitimately drops calls the mock
 * sent.  Each branch of a step keeps its tool id unique to that step.
 */
static const char demo_scenario[] =
"{\"check_echo\":false,\"responses\":[\n"
"{\"text\":\"# Welcome to tandem\\n\\nThis is a **guided tour**, offline: a scripted model "
"on loopback, working in a scratch copy of a small project. Each step says what to try; wha"
"t I answer follows what you do.\\n\\nFirst I look around. Three reads run *in parallel* (t"
"hey never ask: reading is safe):\\n\",\"tool_uses\":[{\"id\":\"toolu_demo_1\",\"name\":\"r"
"ead_file\",\"input\":{\"path\":\"README.md\"}},{\"id\":\"toolu_demo_2\",\"name\":\"read_fi"
"le\",\"input\":{\"path\":\"Makefile\"}},{\"id\":\"toolu_demo_3\",\"name\":\"read_file\",\""
"input\":{\"path\":\"greet.c\"}}],\"stop_reason\":\"tool_use\",\"chunk\":24,\"delay_ms\":10"
"},\n"
"{\"match_last\":\"toolu_demo_3\",\"text\":\"Found the bug: the loop runs to `i <= argc`, o"
"ne past the end of `argv`, and starts at the program's own name. The fix:\\n\\n```c\\nfor "
"(int i = 1; i < argc; i++)\\n```\\n\\nAn edit asks first; its diff is in the diff pane. **"
"Press y** to apply it (n refuses, e opens it in your `$VISUAL` first).\\n\",\"tool_uses\":"
"[{\"id\":\"toolu_demo_4\",\"name\":\"edit_file\",\"input\":{\"path\":\"greet.c\",\"old_str"
"ing\":\"for (int i = 0; i <= argc; i++)\",\"new_string\":\"for (int i = 1; i < argc; i++)"
"\"}}],\"stop_reason\":\"tool_use\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_4\",\"The user changed this call\"],\"text\":\"You changed m"
"y edit before it was applied: I work from your version, not mine.\\n\\nNow a command. Comm"
"ands are shown before they run, and this one asks: **press y** to run it, **n** to refuse "
"it and type why (I read your reason), or **e** to change the command in your `$VISUAL` fir"
"st.\\n\",\"tool_uses\":[{\"id\":\"toolu_demo_5\",\"name\":\"run_bash\",\"input\":{\"comman"
"d\":\"make test\",\"description\":\"build and run\"}}],\"stop_reason\":\"tool_use\",\"chun"
"k\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_4\",\"the user denied this edit_file call, saying: \"],\"tex"
"t\":\"You refused the edit, saying: “{{after:saying: }}”. Fine: greet.c stays as it was, a"
"nd we'll see what it does as it is.\\n\\nNow a command. Commands are shown before they run"
", and this one asks: **press y** to run it, **n** to refuse it and type why (I read your r"
"eason), or **e** to change the command in your `$VISUAL` first.\\n\",\"tool_uses\":[{\"id"
"\":\"toolu_demo_5\",\"name\":\"run_bash\",\"input\":{\"command\":\"make test\",\"descripti"
"on\":\"build and run\"}}],\"stop_reason\":\"tool_use\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_4\",\"\\\"is_error\\\":true\"],\"text\":\"You refused the ed"
"it, so greet.c stays as it was; we'll see what it does as it is.\\n\\nNow a command. Comma"
"nds are shown before they run, and this one asks: **press y** to run it, **n** to refuse i"
"t and type why (I read your reason), or **e** to change the command in your `$VISUAL` firs"
"t.\\n\",\"tool_uses\":[{\"id\":\"toolu_demo_5\",\"name\":\"run_bash\",\"input\":{\"command"
"\":\"make test\",\"description\":\"build and run\"}}],\"stop_reason\":\"tool_use\",\"chunk"
"\":32,\"delay_ms\":8},\n"
"{\"match_last\":\"toolu_demo_4\",\"text\":\"Applied. Now a command. Commands are shown bef"
"ore they run, and this one asks: **press y** to run it, **n** to refuse it and type why (I"
" read your reason), or **e** to change the command in your `$VISUAL` first.\\n\",\"tool_us"
"es\":[{\"id\":\"toolu_demo_5\",\"name\":\"run_bash\",\"input\":{\"command\":\"make test\","
"\"description\":\"build and run\"}}],\"stop_reason\":\"tool_use\",\"chunk\":32,\"delay_ms"
"\":8},\n"
"{\"match_last\":[\"toolu_demo_5\",\"The user changed this call\"],\"text\":\"You changed t"
"he command before it ran, to {{after:; what ran: }}: what ran is your version, and its out"
"put is in the tools pane. I take it from there.\\n\\n**Next: the turn browser and a rewind"
".** Type any prompt (say, `tidy up`) and press Enter.\\n\",\"stop_reason\":\"end_turn\",\""
"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_5\",\"the user denied this run_bash call, saying: \"],\"text"
"\":\"You refused `make test`, saying: “{{after:saying: }}”.\\n\\nUnderstood: I won't run i"
"t. Your reason came back to me with the denial, as it would to a real model, so I take ano"
"ther way: reading the fix instead, the loop now runs from 1 to `argc - 1`, so `./greet Ada"
" Linus` would print `hello, Ada` and `hello, Linus`.\\n\\n**Next: the turn browser and a r"
"ewind.** Type any prompt (say, `tidy up`) and press Enter.\\n\",\"stop_reason\":\"end_turn"
"\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_5\",\"the user denied this\"],\"text\":\"You refused `make t"
"est` without a reason. A reason helps: the model reads it. I won't run it.\\n\\n**Next: th"
"e turn browser and a rewind.** Type any prompt (say, `tidy up`) and press Enter.\\n\",\"st"
"op_reason\":\"end_turn\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_5\",\"\\\"is_error\\\":true\"],\"text\":\"`make test` failed"
" (its output is above; is there a C compiler here?). That doesn't matter for the tour.\\n"
"\\n**Next: the turn browser and a rewind.** Type any prompt (say, `tidy up`) and press Ent"
"er.\\n\",\"stop_reason\":\"end_turn\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":\"toolu_demo_5\",\"text\":\"It works: `hello, Ada` and `hello, Linus`, the"
" program's own name left out.\\n\\n**Next: the turn browser and a rewind.** Type any promp"
"t (say, `tidy up`) and press Enter.\\n\",\"stop_reason\":\"end_turn\",\"chunk\":32,\"delay"
"_ms\":8},\n"
"{\"text\":\"I'll tidy up with one command. It changes `greet.c` and, by mistake, deletes `"
"README.md`. tandem snapshots the workspace around every command, so this can be undone. **"
"Press y**.\\n\",\"tool_uses\":[{\"id\":\"toolu_demo_6\",\"name\":\"run_bash\",\"input\":{"
"\"command\":\"sed -i 's/hello, /Hi, /' greet.c && rm README.md\",\"description\":\"tidy up"
"\"}}],\"stop_reason\":\"tool_use\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_6\",\"\\\"is_error\\\":true\"],\"text\":\"You refused the co"
"mmand, so nothing changed and there is nothing to rewind. Press **Ctrl+T** anyway to see t"
"he turn browser (Esc closes it).\\n\\nThen type any prompt and I'll check on `README.md`."
"\\n\",\"stop_reason\":\"end_turn\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":\"toolu_demo_6\",\"text\":\"Oops: `README.md` is gone. **Undo it** once I'"
"ve finished writing (a rewind waits for the turn to end): press **Ctrl+T** for the turn br"
"owser, choose this turn (turn 2) with Up/Down, and press **f**: the files it changed come "
"back (r would rewind the conversation instead, b both). Esc closes the browser.\\n\\nThen "
"type any prompt, and I'll check whether `README.md` is back.\\n\",\"stop_reason\":\"end_tu"
"rn\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"text\":\"Let me look for `README.md`.\\n\",\"tool_uses\":[{\"id\":\"toolu_demo_7\",\"na"
"me\":\"read_file\",\"input\":{\"path\":\"README.md\"}}],\"stop_reason\":\"tool_use\",\"chu"
"nk\":32,\"delay_ms\":8},\n"
"{\"match_last\":[\"toolu_demo_7\",\"Prints a greeting\"],\"text\":\"`README.md` is back, a"
"nd `greet.c` says hello again: the rewind restored what the command deleted and changed."
"\\n\\n**Next: `/diff`.** Type `/diff 1` and Enter: turn 1's changes, my fix of `greet.c`, "
"as one diff in the diff pane (Esc puts it away). In the browser, d does the same.\\n\\n**T"
"hen the queue:** type a prompt and press Enter, and while I answer, type another and press"
" Enter.\\n\",\"stop_reason\":\"end_turn\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":\"toolu_demo_7\",\"text\":\"`README.md` is still gone: no rewind of turn 2"
"'s files yet. You can still do it: Ctrl+T, choose turn 2, press f.\\n\\n**Next: `/diff`.**"
" Type `/diff 1` and Enter: turn 1's changes, my fix of `greet.c`, as one diff in the diff "
"pane (Esc puts it away). In the browser, d does the same.\\n\\n**Then the queue:** type a "
"prompt and press Enter, and while I answer, type another and press Enter.\\n\",\"stop_reas"
"on\":\"end_turn\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"text\":\"I'm writing this slowly so that you can try the queue. **Type another prompt n"
"ow and press Enter**: it is not refused, it waits. The input's rule shows it (`1 queued`);"
" Up on an empty input takes it back to edit; Esc stops me and gives the queue back to the "
"input.\\n\\nWhen this turn ends, the oldest queued prompt is sent on its own, and the next"
" when that one's turn ends.\\n\\nThis is the end of the slow part: watch your queued promp"
"t go.\\n\",\"stop_reason\":\"end_turn\",\"chunk\":40,\"delay_ms\":40},\n"
"{\"text\":\"This prompt is the one that waited in the queue (if you queued one).\\n\\n**Ne"
"xt: an @-mention.** Type `@gre`, press **Tab** to complete `greet.c`, ask something about "
"it and press Enter: the file's text goes with your prompt.\\n\",\"stop_reason\":\"end_turn"
"\",\"chunk\":32,\"delay_ms\":8},\n"
"{\"match_last\":\"<attachment path=\",\"text\":\"You mentioned a file: its text came with "
"your prompt, so I read it without a tool call.\\n\\n**Last: a fork.** Press **Ctrl+T**, ch"
"oose turn 1 and press **k**: a new session goes on from the end of that turn, and the stat"
"us bar names the session it came from. The old session is kept as it is.\\n\\nThat's the t"
"our. `?` lists the keys, `/` the commands; Ctrl+C twice quits. Run tandem in your own repo"
"sitory with `ANTHROPIC_API_KEY` set to pair with a real model.\\n\",\"stop_reason\":\"end_"
"turn\",\"chunk\":32,\"delay_ms\":8,\"group\":\"mention\"},\n"
"{\"text\":\"No @-mention in that one: type `@`, a few letters of a file's name and Tab (Ta"
"b again for the next match). The mentioned file's text goes with the prompt.\\n\\n**Last: "
"a fork.** Press **Ctrl+T**, choose turn 1 and press **k**: a new session goes on from the "
"end of that turn, and the status bar names the session it came from. The old session is ke"
"pt as it is.\\n\\nThat's the tour. `?` lists the keys, `/` the commands; Ctrl+C twice quit"
"s. Run tandem in your own repository with `ANTHROPIC_API_KEY` set to pair with a real mode"
"l.\\n\",\"stop_reason\":\"end_turn\",\"chunk\":32,\"delay_ms\":8,\"group\":\"mention\"},\n"
"{\"text\":\"This is the end of the scripted tour (if you forked, you are in the fork now);"
" I can only repeat myself. Run tandem in your own repository with `ANTHROPIC_API_KEY` set "
"to pair with a real model.\\n\",\"stop_reason\":\"end_turn\",\"chunk\":32,\"delay_ms\":8,"
"\"repeat\":100}\n"
"]}\n";

const char *
demo_prompt(void)
{
	return "Show me around this project and fix its bug.";
}

static int
demo_write(const char *dir, const char *name, const char *text)
{
	struct buf p = BUF_INIT(8192);
	FILE *f;
	int rc = -1;

	buf_printf(&p, "%s/%s", dir, name);
	f = fopen(buf_cstr(&p), "w");
	if (f != NULL) {
		rc = fputs(text, f) < 0 ? -1 : 0;
		if (fclose(f) != 0)
			rc = -1;
	}
	buf_release(&p);
	return rc;
}

/* nftw's callback: remove what is below the workspace, then the workspace. */
static int
demo_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) == -1 ? -1 : 0;
	return unlink(path) == -1 ? -1 : 0;
}

/* Remove the workspace dir and all below it, without following a link out of it. */
static int
demo_remove(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) == -1 && errno == ENOENT)
		return 0;
	return nftw(dir, demo_rm, 16, FTW_DEPTH | FTW_PHYS);
}

struct demo *
demo_start(struct config *cfg, char *err, size_t errlen)
{
	char tmpl[] = "/tmp/tandem-demo-XXXXXX", *dir, *real;
	struct demo *d;
	struct mock_opts o;
	struct mock *m;
	struct buf url = BUF_INIT(256);
	int port = 0, p[2];
	size_t i;

	dir = mkdtemp(tmpl);
	if (dir == NULL) {
		snprintf(err, errlen, "cannot create a demo directory: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < sizeof demo_files / sizeof demo_files[0]; i++) {
		if (demo_write(dir, demo_files[i].name, demo_files[i].text) == -1) {
			snprintf(err, errlen, "cannot write the demo files in %s", dir);
			return NULL;
		}
	}
	mock_opts_init(&o);
	o.scenario_text = demo_scenario;
	o.idle_timeout_ms = 0;
	if (pipe(p) == -1) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		return NULL;
	}
	o.stop_fd = p[0];
	m = mock_new(&o, err, errlen);
	if (m == NULL || mock_listen(m, &port, err, errlen) == -1) {
		mock_free(m);
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	d = xcalloc(1, sizeof *d);
	real = realpath(dir, NULL);
	d->dir = real != NULL ? real : xstrdup(dir);
	d->pid = fork();
	if (d->pid == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		mock_free(m);
		close(p[0]);
		close(p[1]);
		free(d->dir);
		free(d);
		return NULL;
	}
	if (d->pid == 0) {
		int rc;

		/*
		 * The server outlives the terminal's signals and stops when
		 * tandem closes the pipe, or dies: then it removes the workspace,
		 * so a closed terminal window (SIGHUP to the whole group, and
		 * tandem killed by a second one) leaves nothing behind.
		 */
		close(p[1]);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		rc = mock_run(m);
		mock_free(m);
		if (demo_remove(d->dir) == -1)
			rc = -1;
		_exit(rc == 0 ? 0 : 1);
	}
	mock_free(m);
	close(p[0]);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	d->stop_fd = p[1];
	free(cfg->root);
	cfg->root = xstrdup(d->dir);
	if (chdir(d->dir) == -1) {
		/* The workspace root is what matters; the cwd is only a courtesy. */
	}
	buf_printf(&url, "http://127.0.0.1:%d", port);
	free(cfg->base_url);
	cfg->base_url = buf_detach(&url, NULL);
	free(cfg->provider);
	cfg->provider = xstrdup("anthropic");
	free(cfg->api_key);
	cfg->api_key = xstrdup("demo-key");
	free(cfg->model);
	cfg->model = xstrdup("claude-sonnet-4-5");
	return d;
}

void
demo_stop(struct demo *d)
{
	if (d == NULL)
		return;
	/* the server returns from its loop at once, and removes the workspace */
	close(d->stop_fd);
	if (d->pid > 0)
		waitpid(d->pid, NULL, 0);
	/*
	 * The tour's commands create and delete files, and the user may have
	 * asked for more: the whole scratch workspace goes.  If it cannot,
	 * say where it is.
	 */
	if (chdir("/") == -1 || demo_remove(d->dir) == -1)
		fprintf(stderr, "tandem: the demo's workspace could not be removed: %s\n", d->dir);
	free(d->dir);
	free(d);
}
