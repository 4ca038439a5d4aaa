/* The offline demo: see demo.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
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
 * The script: markdown streamed slowly, three reads in parallel, an edit
 * to approve in the diff pane, a command to approve, one to deny with a
 * reason, and usage figures whose cache reads collapse once, so the status
 * bar shows a cache-break report.
 */
static const char demo_scenario[] =
"{\"responses\":[\n"
" {\"text\":\"# Welcome to tandem\\n\\nThis is a **scripted demo**: no network, a mock model on loopback. "
"I'll look around first. Three reads run *in parallel*:\\n\\n- `README.md`\\n- `Makefile`\\n- `greet.c`\\n\","
"  \"tool_uses\":[{\"id\":\"toolu_demo_1\",\"name\":\"read_file\",\"input\":{\"path\":\"README.md\"}},"
"   {\"id\":\"toolu_demo_2\",\"name\":\"read_file\",\"input\":{\"path\":\"Makefile\"}},"
"   {\"id\":\"toolu_demo_3\",\"name\":\"read_file\",\"input\":{\"path\":\"greet.c\"}}],"
"  \"stop_reason\":\"tool_use\",\"chunk\":12,\"delay_ms\":15,"
"  \"usage\":{\"input_tokens\":310,\"output_tokens\":120,\"cache_creation_input_tokens\":4200,\"cache_read_input_tokens\":0}},\n"
" {\"text\":\"Found it: the loop runs to `i <= argc`, one past the end of `argv`, and starts at the program name.\\n\\n"
"```c\\nfor (int i = 1; i < argc; i++)\\n```\\n\\nHere is the edit. **Press y** to apply it.\\n\","
"  \"tool_uses\":[{\"id\":\"toolu_demo_4\",\"name\":\"edit_file\",\"input\":{\"path\":\"greet.c\","
"   \"old_string\":\"for (int i = 0; i <= argc; i++)\",\"new_string\":\"for (int i = 1; i < argc; i++)\"}}],"
"  \"stop_reason\":\"tool_use\",\"chunk\":16,\"delay_ms\":15,"
"  \"usage\":{\"input_tokens\":520,\"output_tokens\":160,\"cache_creation_input_tokens\":900,\"cache_read_input_tokens\":4200}},\n"
" {\"text\":\"Now let's build and run it. Commands are shown before they run: **press y**.\\n\","
"  \"tool_uses\":[{\"id\":\"toolu_demo_5\",\"name\":\"run_bash\",\"input\":{\"command\":\"make test\",\"description\":\"build and run\"}}],"
"  \"stop_reason\":\"tool_use\",\"chunk\":16,\"delay_ms\":15,"
"  \"usage\":{\"input_tokens\":240,\"output_tokens\":80,\"cache_creation_input_tokens\":700,\"cache_read_input_tokens\":5100}},\n"
" {\"text\":\"It works. I could also clean up the build output. This time **press n** and type a reason: the model receives it.\\n\","
"  \"tool_uses\":[{\"id\":\"toolu_demo_6\",\"name\":\"run_bash\",\"input\":{\"command\":\"rm -f greet\",\"description\":\"remove the binary\"}}],"
"  \"stop_reason\":\"tool_use\",\"chunk\":16,\"delay_ms\":15,"
"  \"usage\":{\"input_tokens\":5900,\"output_tokens\":70,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0}},\n"
" {\"text\":\"Understood, I'll leave it.\\n\\n## What you saw\\n\\n| feature | where |\\n|---|---|\\n"
"| streaming markdown | transcript |\\n| parallel reads | tools pane |\\n| edit approval | diff pane |\\n"
"| command approval and denial | approval prompt |\\n| a prompt-cache break | status bar |\\n\\n"
"Try `/context`, `/cost`, `?` for the keys, or Ctrl+C twice to quit.\\n\","
"  \"stop_reason\":\"end_turn\",\"chunk\":16,\"delay_ms\":10,"
"  \"usage\":{\"input_tokens\":400,\"output_tokens\":150,\"cache_creation_input_tokens\":300,\"cache_read_input_tokens\":5900}},\n"
" {\"text\":\"This is the end of the scripted demo. Run tandem in your own repository with ANTHROPIC_API_KEY set to pair with a real model.\\n\","
"  \"stop_reason\":\"end_turn\",\"repeat\":100}\n"
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
	d->pid = fork();
	if (d->pid == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		mock_free(m);
		close(p[0]);
		close(p[1]);
		free(d);
		return NULL;
	}
	if (d->pid == 0) {
		int rc;

		close(p[1]);
		signal(SIGINT, SIG_IGN);
		rc = mock_run(m);
		mock_free(m);
		_exit(rc == 0 ? 0 : 1);
	}
	mock_free(m);
	close(p[0]);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	d->stop_fd = p[1];
	real = realpath(dir, NULL);
	d->dir = real != NULL ? real : xstrdup(dir);
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
	struct buf cmd = BUF_INIT(8192);
	size_t i;

	if (d == NULL)
		return;
	close(d->stop_fd);
	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		waitpid(d->pid, NULL, 0);
	}
	for (i = 0; i < sizeof demo_files / sizeof demo_files[0]; i++) {
		buf_reset(&cmd);
		buf_printf(&cmd, "%s/%s", d->dir, demo_files[i].name);
		unlink(buf_cstr(&cmd));
	}
	buf_reset(&cmd);
	buf_printf(&cmd, "%s/greet", d->dir);
	unlink(buf_cstr(&cmd));
	rmdir(d->dir);
	buf_release(&cmd);
	free(d->dir);
	free(d);
}
