/*
 * ask_rate: how often run_bash asks under a typical rule set, on two
 * corpora of real commands, and what splitting a 10 KB command costs.
 *
 *	ask_rate [srcdir]
 *
 * The corpora: tests/fixtures/commands/model.txt (commands models write,
 * one a line: build, test, git, package managers) and every file of
 * tests/fixtures/maintscripts (Debian packages' maintainer scripts, each
 * one call).  Two rule sets: "ask" mode with allow rules for common
 * commands and --deny 'run_bash(rm *)', where a call asks unless every
 * part is allowed; and yolo mode with only that deny rule, where a call
 * asks only when the splitter cannot show what it runs (an expansion in
 * the program's place, code in a string run later), so that figure is the
 * splitter's own cost in prompts.  Each line gives the share of calls
 * allowed, asked and denied.  bench/ask_rate.sh builds this program
 * against two builds and prints both.
 *
 * ASK_RATE_SHOW=1 prints each call that asks or is denied in yolo mode.
 *
 * The last line is the time to split a 10 KB command (the maintainer
 * scripts joined), best of several runs; the budget is 1 ms, and the exit
 * status is 1 when it is passed.
 */
#include "autoconf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "buf.h"
#include "rules/perm.h"
#include "rules/shparse.h"
#include "tool.h"
#include "xalloc.h"

#define SPLIT_BYTES	(10 * 1024)
#define SPLIT_BUDGET_US	1000.0

/* Allow rules a user of build tools and git would have. */
static const char *const allow_rules[] = {
	"git *", "make *", "make", "cmake *", "ctest *", "ninja *", "meson *", "npm *", "npx *",
	"yarn *", "pnpm *", "node *", "cargo *", "rustc *", "go *", "gofmt *", "python3 *",
	"python *", "pip *", "pytest *", "ruff *", "ls *", "ls", "cat *", "head *", "tail *",
	"wc *", "grep *", "rg *", "find *", "sed *", "awk *", "sort *", "uniq *", "cut *",
	"tr *", "diff *", "echo *", "echo", "printf *", "pwd", "cd *", "mkdir *", "touch *",
	"cp *", "mv *", "test *", "[ *", "[[ *", "true", "false", ":", "which *", "command *",
	"type *", "jq *", "tee *", "date *", "date", "uname *", "env *", "timeout *", "nice *",
	"xargs *", "set *", "export *", "exit *", "return *", "local *", "shift", "basename *",
	"dirname *", "readlink *", "realpath *", "dpkg *", "dpkg-query *", "apt-cache *",
	"getent *", "id *", "stat *", "file *", "seq *", "sleep *", "expr *",
	NULL
};

struct tally {
	unsigned	n, allowed, asked, denied;
};

static void
tally_add(struct tally *t, enum perm_verdict v)
{
	t->n++;
	if (v == PERM_VERDICT_ALLOW)
		t->allowed++;
	else if (v == PERM_VERDICT_ASK)
		t->asked++;
	else
		t->denied++;
}

static void
tally_print(const char *corpus, const char *rules, const struct tally *t)
{
	double n = t->n > 0 ? t->n : 1;

	printf("%-13s %-18s %5u calls  allowed %5.1f%%  asked %5.1f%%  denied %5.1f%%\n",
	    corpus, rules, t->n, 100.0 * t->allowed / n, 100.0 * t->asked / n,
	    100.0 * t->denied / n);
}

static struct perm_rules *
rules_make(bool with_allow)
{
	struct perm_rules *r = perm_rules_new();
	struct buf err = BUF_INIT(BUF_NOLIMIT), rule = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	for (i = 0; with_allow && allow_rules[i] != NULL; i++) {
		buf_reset(&rule);
		buf_printf(&rule, "run_bash(%s)", allow_rules[i]);
		if (perm_rules_add(r, PERM_LIST_ALLOW, buf_cstr(&rule), &err) == -1)
			fprintf(stderr, "ask_rate: %s: %s\n", buf_cstr(&rule), buf_cstr(&err));
	}
	if (perm_rules_add(r, PERM_LIST_DENY, "run_bash(rm *)", &err) == -1)
		fprintf(stderr, "ask_rate: %s\n", buf_cstr(&err));
	buf_release(&err);
	buf_release(&rule);
	return r;
}

static enum perm_verdict
verdict(const struct perm_rules *r, enum perm_mode mode, const char *command, const char *name)
{
	cJSON *in = cJSON_CreateObject();
	enum perm_verdict v;

	cJSON_AddStringToObject(in, "command", command);
	v = perm_check(r, mode, "run_bash", TOOL_HIGH_IMPACT, in, NULL);
	cJSON_Delete(in);
	if (mode == PERM_YOLO && v != PERM_VERDICT_ALLOW && getenv("ASK_RATE_SHOW") != NULL)
		printf("  %s: %s\n", v == PERM_VERDICT_ASK ? "asks" : "denied", name);
	return v;
}

/* The whole file at path into b; 0 or -1. */
static int
read_file(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "r");
	char chunk[4096];
	size_t n;

	if (f == NULL)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(b, chunk, n);
	fclose(f);
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Best time of several to split text, in microseconds. */
static double
split_time(const char *text)
{
	struct shparse_parts p;
	double best = 1e18, t;
	int run, k;

	for (run = 0; run < 20; run++) {
		t = now_us();
		for (k = 0; k < 10; k++) {
			memset(&p, 0, sizeof(p));
			shparse_split(text, &p);
			shparse_parts_release(&p);
		}
		t = (now_us() - t) / 10;
		if (t < best)
			best = t;
	}
	return best;
}

int
main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : ".";
	struct perm_rules *typical = rules_make(true), *deny_only = rules_make(false);
	struct tally cmd_ask = { 0 }, cmd_yolo = { 0 }, sc_ask = { 0 }, sc_yolo = { 0 };
	struct buf path = BUF_INIT(BUF_NOLIMIT), text = BUF_INIT(BUF_NOLIMIT);
	struct buf joined = BUF_INIT(BUF_NOLIMIT);
	char **names = NULL, *line, *nl;
	size_t nnames = 0, i;
	struct dirent *de;
	double us;
	DIR *d;

	buf_printf(&path, "%s/tests/fixtures/commands/model.txt", src);
	if (read_file(buf_cstr(&path), &text) == -1) {
		fprintf(stderr, "ask_rate: cannot read %s\n", buf_cstr(&path));
		return 2;
	}
	for (line = text.data; line != NULL && *line != '\0'; line = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (*line == '\0')
			continue;
		tally_add(&cmd_ask, verdict(typical, PERM_ASK, line, line));
		tally_add(&cmd_yolo, verdict(deny_only, PERM_YOLO, line, line));
	}
	buf_reset(&path);
	buf_printf(&path, "%s/tests/fixtures/maintscripts", src);
	if ((d = opendir(buf_cstr(&path))) == NULL) {
		fprintf(stderr, "ask_rate: cannot read %s\n", buf_cstr(&path));
		return 2;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "README") == 0)
			continue;
		names = xreallocarray(names, nnames + 1, sizeof(*names));
		names[nnames++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, nnames, sizeof(*names), cmp_name);
	for (i = 0; i < nnames; i++) {
		buf_reset(&text);
		buf_reset(&path);
		buf_printf(&path, "%s/tests/fixtures/maintscripts/%s", src, names[i]);
		if (read_file(buf_cstr(&path), &text) == -1)
			continue;
		tally_add(&sc_ask, verdict(typical, PERM_ASK, buf_cstr(&text), names[i]));
		tally_add(&sc_yolo, verdict(deny_only, PERM_YOLO, buf_cstr(&text), names[i]));
		if (joined.len < SPLIT_BYTES)
			buf_append(&joined, text.data, text.len);
		free(names[i]);
	}
	free(names);
	tally_print("model.txt", "ask, allow+deny", &cmd_ask);
	tally_print("model.txt", "yolo, deny rm *", &cmd_yolo);
	tally_print("maintscripts", "ask, allow+deny", &sc_ask);
	tally_print("maintscripts", "yolo, deny rm *", &sc_yolo);
	if (joined.len > SPLIT_BYTES) {
		joined.len = SPLIT_BYTES;
		joined.data[joined.len] = '\0';
	}
	us = split_time(buf_cstr(&joined));
	printf("split of a %zu-byte command: %.0f us (budget %.0f us)\n", joined.len, us,
	    SPLIT_BUDGET_US);
	perm_rules_free(typical);
	perm_rules_free(deny_only);
	buf_release(&path);
	buf_release(&text);
	buf_release(&joined);
	return us > SPLIT_BUDGET_US ? 1 : 0;
}
