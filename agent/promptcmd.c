/* The built-in slash commands that are prompts: see promptcmd.h. */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "file.h"
#include "proc.h"
#include "promptcmd.h"
#include "redact.h"
#include "utf8.h"
#include "xalloc.h"

#define PC_UNTRACKED_MAX	200	/* untracked files shown whole */
#define PC_UNTRACKED_FILE_MAX	(32 * 1024)
#define PC_FILTERS_MAX		24	/* filter settings emptied; more: no review */
#define PC_ARGV_MAX		(16 + 2 * PC_FILTERS_MAX + 16)

static const char pc_init_prompt[] =
"Write AGENTS.md for this repository: the file a coding agent (or a new contributor) reads "
"first, so that it can build, test and change the code without asking.\n"
"\n"
"First explore, with the read-only tools only (list_dir, glob, grep, read_file): the build "
"files (Makefile, configure.ac, package.json, Cargo.toml, pyproject.toml, go.mod and the like), "
"the CI configuration, the README and contributing notes, the test layout, a few "
"representative source files, and any existing agent instructions (AGENTS.md, CLAUDE.md, "
".cursor/rules, .github/copilot-instructions.md). Do not run commands and do not change "
"anything while you explore.\n"
"\n"
"Then write AGENTS.md at the workspace root with one edit. It should hold, in this order and "
"only where the repository tells you:\n"
"- Commands: how to set up, build, run the whole test suite and one single test, lint and "
"format, exactly as the project runs them.\n"
"- Layout: the main directories and what lives where; the few files that tie the rest "
"together.\n"
"- Conventions: the code style and naming the code actually follows, how errors and memory "
"(or resources) are handled, how tests are written, commit message style.\n"
"- Gotchas: what a newcomer gets wrong: generated files not to edit, required environment, "
"slow or flaky tests, steps that must happen in order.\n"
"\n"
"Keep it short (aim for well under 150 lines): concrete commands and paths, no generic advice "
"that holds for every project, nothing you did not see in the repository, no list of every "
"file. If AGENTS.md already exists, improve it in place: keep what is still true, correct what "
"is wrong, add what is missing. If only CLAUDE.md exists, take what is true in it into "
"AGENTS.md. When you are done, say in two or three sentences what you wrote or changed.";

static const char pc_review_head[] =
"Review the code changes below as a careful senior reviewer would. Do not edit, create or "
"delete any file and do not run commands that change anything: this is a review, not a fix. "
"You may read files (read_file, grep, glob, list_dir) to understand the context of a change.\n"
"\n"
"Look for: bugs and wrong logic, unhandled errors and edge cases, security risks (injection, "
"unsafe input, secrets, permissions), resource leaks, races, behaviour changed by accident, "
"and missing or weak tests for what changed. Ignore pure style unless it hides a bug.\n"
"\n"
"Report the findings ordered by severity (critical, high, medium, low), each as: severity, "
"file:line, what is wrong, why it matters, and the fix you suggest. Be specific and brief; do "
"not repeat the diff back. If you find nothing that matters, say so plainly. End with a "
"one-line verdict: ready, ready after small fixes, or needs work.\n";

/* git's path from PATH, or NULL. */
static char *
pc_git_path(void)
{
	const char *path = getenv("PATH"), *p, *end;
	struct buf b = BUF_INIT(4096);

	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (end == p)
			continue;
		buf_reset(&b);
		buf_printf(&b, "%.*s/git", (int)(end - p), p);
		if (access(buf_cstr(&b), X_OK) == 0)
			return buf_detach(&b, NULL);
	}
	buf_release(&b);
	return NULL;
}

/*
 * Run git in dir with args after the hardening options; its output (stderr
 * too) into out, at most max bytes.  The exit status (0 is success), or -1
 * when it could not run, with err filled.
 *
 * What a planted .git/config could otherwise make `git diff` run:
 * core.pager (no pager: --no-pager and core.pager=cat), diff.external and
 * diff.<driver>.command (--no-ext-diff), diff.<driver>.textconv
 * (--no-textconv, given by the callers), core.fsmonitor (a hook program run
 * on every status check: false), filter.<driver>.clean/process (run on
 * work-tree files to compare them: emptied one by one in filters, which
 * pc_filters reads), a partial clone's lazy fetch (GIT_NO_LAZY_FETCH).
 * The system config is not read; the user's own is, as their git reads it.
 * safe.directory is left as git has it: a repository owned by someone else
 * is refused, and git's sentence says why.
 */
static int
pc_git(const char *dir, const char *const *filters, const char *const *args, struct buf *out,
    size_t max, bool *truncated, struct buf *err)
{
	static const char *const env_set[] = {
		"GIT_CONFIG_NOSYSTEM=1", "GIT_NO_LAZY_FETCH=1", "GIT_OPTIONAL_LOCKS=0",
		"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C", NULL
	};
	static const char *const env_unset[] = {
		"GIT_EXTERNAL_DIFF", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
		"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", NULL
	};
	static const char *const hard[] = {
		"-c", "core.pager=cat", "-c", "core.fsmonitor=false", "-c", "diff.external=",
		"-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false", NULL
	};
	const char *argv[PC_ARGV_MAX];
	struct proc_spec spec;
	struct proc p;
	struct file_status fs;
	char *git = pc_git_path();
	size_t n = 0, i;
	int status = 0, rc = -1, fl;

	*truncated = false;
	if (git == NULL) {
		buf_puts(err, "git is not installed (not found on PATH)");
		return -1;
	}
	argv[n++] = git;
	for (i = 0; hard[i] != NULL; i++)
		argv[n++] = hard[i];
	for (i = 0; filters != NULL && filters[i] != NULL && i < PC_FILTERS_MAX; i++) {
		argv[n++] = "-c";
		argv[n++] = filters[i];
	}
	argv[n++] = "--no-pager";
	for (i = 0; args[i] != NULL && n < PC_ARGV_MAX - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.dir = dir;
	spec.in = PROC_IO_NULL;
	spec.out = PROC_IO_PIPE;
	spec.err = PROC_IO_STDOUT;
	spec.redact_env = true;
	spec.env_set = env_set;
	spec.env_unset = env_unset;
	if (proc_spawn(&spec, &p, err) == -1)
		goto out;
	/* A short synchronous read: the caller waits for the diff anyway. */
	fl = fcntl(p.out, F_GETFL);
	if (fl != -1)
		(void)fcntl(p.out, F_SETFL, fl & ~O_NONBLOCK);
	if (file_read_fd(p.out, max, FILE_TRUNCATE, out, &fs) == 0 && fs.truncated)
		*truncated = true;
	close(p.out);
	if (*truncated)
		proc_kill(p.pid, SIGTERM);
	while (waitpid(p.pid, &status, 0) == -1 && errno == EINTR)
		;
	proc_forget(p.pid);
	if (*truncated)
		rc = 0;
	else
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
out:
	free(git);
	return rc;
}

static void pc_filters_free(char **v);

/*
 * The -c settings that empty each filter driver the config names
 * ("filter.x.clean="), NULL-ended; NULL when there are more than
 * PC_FILTERS_MAX or a name git's -c could not take (a '=' in it), so that
 * none is left running.
 */
static char **
pc_filters(const char *root)
{
	static const char *const args[] = {
		"config", "--name-only", "--get-regexp", "^filter\\..*\\.(clean|smudge|process)$", NULL
	};
	struct buf out = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096);
	char **v = xcalloc(PC_FILTERS_MAX + 1, sizeof *v);
	const char *line, *nl;
	size_t n = 0;
	bool trunc;

	/* Status 1 is "none found"; anything else leaves the list empty too. */
	(void)pc_git(root, NULL, args, &out, 256 * 1024, &trunc, &err);
	for (line = buf_cstr(&out); *line != '\0'; line = *nl ? nl + 1 : nl) {
		struct buf s = BUF_INIT(BUF_NOLIMIT);

		nl = strchr(line, '\n');
		if (nl == NULL)
			nl = line + strlen(line);
		if (nl == line)
			continue;
		if (n == PC_FILTERS_MAX || trunc || memchr(line, '=', (size_t)(nl - line)) != NULL) {
			pc_filters_free(v);
			v = NULL;
			break;
		}
		buf_printf(&s, "%.*s=", (int)(nl - line), line);
		v[n++] = buf_detach(&s, NULL);
	}
	buf_release(&out);
	buf_release(&err);
	return v;
}

static void
pc_filters_free(char **v)
{
	size_t i;

	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* The first line of git's words, for a one-sentence error. */
static void
pc_first_line(const struct buf *b, struct buf *err)
{
	const char *s = b->len ? buf_cstr(b) : "no output";
	size_t n = strcspn(s, "\n");

	buf_printf(err, "%.*s", (int)(n > 200 ? 200 : n), s);
}

/* The untracked files (not ignored) under path (NULL: all) as new-file diffs. */
static void
pc_untracked(const char *root, char **filters, const char *path, struct buf *diff, size_t max)
{
	const char *args[] = { "ls-files", "--others", "--exclude-standard", "-z", "--", path, NULL };
	struct buf list = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096), f = BUF_INIT(BUF_NOLIMIT);
	const char *name;
	size_t off, count = 0;
	bool trunc;

	if (pc_git(root, (const char *const *)filters, args, &list, 1024 * 1024, &trunc, &err) != 0)
		goto out;
	for (off = 0; off < list.len && diff->len < max; off += strlen(name) + 1) {
		struct file_status fs;
		char *full;
		size_t i, lines = 0;
		bool binary = false;

		name = list.data + off;
		if (*name == '\0')
			continue;
		if (++count > PC_UNTRACKED_MAX) {
			buf_printf(diff, "(more untracked files not shown)\n");
			break;
		}
		full = xmalloc(strlen(root) + strlen(name) + 2);
		memcpy(full, root, strlen(root));
		full[strlen(root)] = '/';
		memcpy(full + strlen(root) + 1, name, strlen(name) + 1);
		buf_reset(&f);
		/* Read here, not by git: a symbolic link or a FIFO is not followed. */
		if (file_read(full, PC_UNTRACKED_FILE_MAX, FILE_REGULAR | FILE_NOFOLLOW | FILE_TRUNCATE,
		    &f, &fs) == -1) {
			buf_printf(diff, "diff --git a/%s b/%s\nnew file (untracked, not read)\n", name, name);
			free(full);
			continue;
		}
		free(full);
		for (i = 0; i < f.len; i++) {
			if (f.data[i] == '\0')
				binary = true;
			if (f.data[i] == '\n')
				lines++;
		}
		if (f.len > 0 && f.data[f.len - 1] != '\n')
			lines++;
		buf_printf(diff, "diff --git a/%s b/%s\nnew file (untracked)\n", name, name);
		if (binary) {
			buf_printf(diff, "Binary file %s (%lld bytes)\n", name, (long long)fs.size);
			continue;
		}
		buf_printf(diff, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%zu @@\n", name, lines);
		i = 0;
		while (i < f.len) {
			const char *nl = memchr(f.data + i, '\n', f.len - i);
			size_t n = nl != NULL ? (size_t)(nl - (f.data + i)) : f.len - i;

			buf_putc(diff, '+');
			buf_append(diff, f.data + i, n);
			buf_putc(diff, '\n');
			i += n + 1;
		}
		if (fs.truncated)
			buf_printf(diff, "(%s goes on: %lld bytes in all)\n", name, (long long)fs.size);
	}
out:
	buf_release(&list);
	buf_release(&err);
	buf_release(&f);
}

/* Whether what names a path in the workspace (then the review is of the changes under it). */
static bool
pc_is_path(const char *root, const char *what)
{
	struct stat st;
	char *full;
	bool r;

	if (strstr(what, "..") != NULL)
		return false;
	full = xmalloc(strlen(root) + strlen(what) + 2);
	memcpy(full, root, strlen(root));
	full[strlen(root)] = '/';
	memcpy(full + strlen(root) + 1, what, strlen(what) + 1);
	r = lstat(full, &st) == 0;
	free(full);
	return r;
}

/* The diff /review shows: into diff (capped), with a heading line in what_out. */
static int
pc_review_diff(const char *root, const char *what, struct buf *diff, struct buf *title,
    struct buf *err)
{
	static const char *const inside[] = { "rev-parse", "--is-inside-work-tree", NULL };
	static const char *const head[] = { "rev-parse", "--verify", "-q", "HEAD^{commit}", NULL };
	/* git's empty tree: what a repository without a commit yet is compared with. */
	static const char empty_tree[] = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	const char *args[16];
	char **filters = NULL;
	bool trunc = false, path, has_head;
	size_t n = 0;
	int r, rc = -1;

	r = pc_git(root, NULL, inside, &out, 64 * 1024, &trunc, err);
	if (r == -1)
		goto out;
	if (r != 0 && strstr(buf_cstr(&out), "safe.directory") != NULL) {
		buf_puts(err, "git refuses this repository: it is owned by another user (git's "
		    "safe.directory setting decides, and tandem leaves it to you)");
		goto out;
	}
	if (r != 0 || strncmp(buf_cstr(&out), "true", 4) != 0) {
		buf_puts(err, "not a git repository: /review reviews the changes in a git work tree");
		goto out;
	}
	filters = pc_filters(root);
	if (filters == NULL) {
		buf_printf(err, "the repository's config names more than %d filter settings (or a "
		    "strange one): not reviewed, so that none of them runs", PC_FILTERS_MAX);
		goto out;
	}
	buf_reset(&out);
	has_head = pc_git(root, NULL, head, &out, 1024, &trunc, &out) == 0;
	path = *what != '\0' && pc_is_path(root, what);
	if (*what != '\0' && !path && (what[0] == '-' || strpbrk(what, " \t\n") != NULL)) {
		buf_printf(err, "/review takes a ref or a path, not \"%s\"", what);
		goto out;
	}
	args[n++] = "diff";
	args[n++] = "--no-ext-diff";
	args[n++] = "--no-textconv";
	args[n++] = "--no-color";
	args[n++] = "--find-renames";
	if (*what != '\0' && !path) {
		args[n++] = "--end-of-options";
		args[n++] = what;
		buf_printf(title, "The changes since %s (git diff %s):", what, what);
	} else {
		args[n++] = has_head ? "HEAD" : empty_tree;
		if (path)
			buf_printf(title, "The uncommitted changes under %s (git diff HEAD and the "
			    "untracked files):", what);
		else
			buf_puts(title, "The uncommitted changes (git diff HEAD and the untracked files):");
	}
	args[n++] = "--";
	if (path)
		args[n++] = what;
	args[n] = NULL;
	buf_reset(&out);
	r = pc_git(root, (const char *const *)filters, args, diff, PROMPTCMD_DIFF_MAX, &trunc, &out);
	if (r != 0) {
		buf_puts(err, "git diff failed: ");
		pc_first_line(r == -1 ? &out : diff, err);
		goto out;
	}
	if (trunc)
		buf_printf(diff, "\n(the diff goes on: cut at %d KiB)\n", PROMPTCMD_DIFF_MAX / 1024);
	else if (*what == '\0' || path)
		pc_untracked(root, filters, path ? what : NULL, diff, PROMPTCMD_DIFF_MAX);
	if (diff->len > PROMPTCMD_DIFF_MAX + 1024) {
		buf_truncate(diff, PROMPTCMD_DIFF_MAX);
		buf_printf(diff, "\n(the untracked files go on: cut at %d KiB)\n", PROMPTCMD_DIFF_MAX / 1024);
	}
	if (diff->len == 0) {
		buf_puts(err, *what ? "nothing to review: no changes there" :
		    "nothing to review: no uncommitted changes and no untracked files");
		goto out;
	}
	rc = 0;
out:
	if (filters != NULL)
		pc_filters_free(filters);
	buf_release(&out);
	return rc;
}

static int
pc_review(const struct config *cfg, const char *what, struct buf *prompt, struct buf *err)
{
	struct buf diff = BUF_INIT(BUF_NOLIMIT), title = BUF_INIT(4096), clean = BUF_INIT(BUF_NOLIMIT);
	int rc = -1;

	if (cfg->root == NULL) {
		buf_puts(err, "no workspace: nothing to review");
		goto out;
	}
	if (pc_review_diff(cfg->root, what, &diff, &title, err) == -1)
		goto out;
	buf_puts(prompt, pc_review_head);
	buf_printf(prompt, "\n%s\n\n```diff\n", buf_cstr(&title));
	/* Valid UTF-8 for the request's JSON; then the redactor, as every tool's output passes it. */
	if (utf8_sanitize(&clean, diff.data, diff.len) == -1) {
		buf_puts(err, "the diff is too large to send");
		goto out;
	}
	redact_text(clean.data, clean.len, prompt);
	if (prompt->len > 0 && prompt->data[prompt->len - 1] != '\n')
		buf_putc(prompt, '\n');
	buf_puts(prompt, "```\n");
	rc = 0;
out:
	buf_release(&diff);
	buf_release(&title);
	buf_release(&clean);
	return rc;
}

int
promptcmd_expand(const struct config *cfg, const char *line, struct buf *prompt, struct buf *err)
{
	size_t n, len;
	const char *arg;
	char *what;
	int rc;

	if (line == NULL || line[0] != '/')
		return 1;
	n = strcspn(line + 1, " \t\n");
	arg = line + 1 + n;
	while (isspace((unsigned char)*arg))
		arg++;
	if (n == 4 && strncmp(line + 1, "init", 4) == 0) {
		buf_puts(prompt, pc_init_prompt);
		if (*arg != '\0')
			buf_printf(prompt, "\n\nThe user adds: %s", arg);
		return 0;
	}
	if (n != 6 || strncmp(line + 1, "review", 6) != 0)
		return 1;
	what = xstrdup(arg);
	for (len = strlen(what); len > 0 && isspace((unsigned char)what[len - 1]); len--)
		what[len - 1] = '\0';
	rc = pc_review(cfg, what, prompt, err);
	free(what);
	return rc;
}
