/* The skill tool: a skill's body and files on demand (skill.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "file.h"
#include "json.h"
#include "skill.h"
#include "tool.h"
#include "xalloc.h"

#define SKILL_FILES_MAX	200	/* files beside a skill listed by the tool */
#define SKILL_DEPTH_MAX	4

/* The files below dir (SKILL.md aside), relative, at most SKILL_FILES_MAX. */
static void
skill_files(const char *dir, const char *rel, int depth, size_t *n, struct buf *out)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT), r = BUF_INIT(BUF_NOLIMIT);
	struct dirent *e;
	struct stat st;
	DIR *d;

	buf_printf(&p, "%s%s%s", dir, rel[0] ? "/" : "", rel);
	if (depth > SKILL_DEPTH_MAX || (d = opendir(buf_cstr(&p))) == NULL)
		goto out;
	while ((e = readdir(d)) != NULL && *n < SKILL_FILES_MAX) {
		if (e->d_name[0] == '.' || (rel[0] == '\0' && strcmp(e->d_name, "SKILL.md") == 0))
			continue;
		buf_reset(&r);
		buf_printf(&r, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
		buf_reset(&p);
		buf_printf(&p, "%s/%s", dir, buf_cstr(&r));
		if (lstat(buf_cstr(&p), &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode))
			skill_files(dir, buf_cstr(&r), depth + 1, n, out);
		else if (S_ISREG(st.st_mode)) {
			buf_printf(out, "- %s\n", buf_cstr(&r));
			(*n)++;
		}
	}
	closedir(d);
out:
	buf_release(&p);
	buf_release(&r);
}

/* The user's tandem config directory as config.c finds it (the tool runs in a child). */
static char *
skill_config_dir(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	if (x != NULL && x[0] == '/')
		buf_printf(&b, "%s/tandem", x);
	else if (h != NULL)
		buf_printf(&b, "%s/.config/tandem", h);
	else
		return NULL;
	return buf_detach(&b, NULL);
}

/* A file beside the skill: a relative path that stays inside its folder. */
static void
skill_run_file(const struct skill_info *s, const char *file, struct tool_out *out)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;
	char *real = NULL, *dir = NULL;
	size_t dn;

	buf_printf(&p, "%s/%s", s->dir, file);
	if (file[0] == '/' || strstr(file, "..") != NULL ||
	    (real = realpath(buf_cstr(&p), NULL)) == NULL || (dir = realpath(s->dir, NULL)) == NULL ||
	    strncmp(real, dir, (dn = strlen(dir))) != 0 || real[dn] != '/') {
		tool_out_error(out, "skill %s has no file %s: give a path from the list of its files, "
		    "relative to its folder", s->name, file);
		goto out;
	}
	if (file_read(real, TOOL_READ_CAP, FILE_REGULAR | FILE_TRUNCATE, &out->text, &st) == -1) {
		buf_reset(&out->text);
		file_error(&out->text, file, &st, errno, TOOL_READ_CAP);
		out->is_error = true;
	} else if (st.truncated)
		buf_printf(&out->text, "\n[cut at %d bytes]\n", TOOL_READ_CAP);
out:
	free(real);
	free(dir);
	buf_release(&p);
}

static void
skill_run(const struct tool_env *env, const cJSON *input, struct tool_out *out)
{
	const char *name = json_str(input, "name", NULL), *file = json_str(input, "file", NULL);
	struct buf err = BUF_INIT(4096), files = BUF_INIT(BUF_NOLIMIT);
	struct skill_list l;
	const struct skill_info *s;
	char *cdir = skill_config_dir();
	size_t n = 0, i;

	skill_scan(env->root, cdir, getenv("HOME"), &l);
	free(cdir);
	s = skill_find(&l, name);
	if (name == NULL || s == NULL || !s->model_invocable) {
		tool_out_error(out, "no skill is named %s; the skills:", name != NULL ? name : "(none given)");
		for (i = 0; i < l.n; i++)
			if (l.v[i].model_invocable)
				buf_printf(&out->text, " %s", l.v[i].name);
		goto out;
	}
	if (file != NULL && file[0] != '\0') {
		skill_run_file(s, file, out);
		goto out;
	}
	buf_printf(&out->text, "Skill %s (its folder: %s)\n\n", s->name, s->dir);
	if (skill_body(s, &out->text, &err) == -1) {
		tool_out_error(out, "%s", buf_cstr(&err));
		goto out;
	}
	skill_files(s->dir, "", 0, &n, &files);
	if (n > 0)
		buf_printf(&out->text, "\n\nFiles beside SKILL.md (%zu; read one with skill "
		    "{\"name\": \"%s\", \"file\": \"PATH\"}):\n%s", n, s->name, buf_cstr(&files));
out:
	skill_list_release(&l);
	buf_release(&err);
	buf_release(&files);
	tool_out_sanitize(out);
}

const struct tool_def tool_skill = {
	.name = "skill",
	.description = "Load a skill: its instructions (SKILL.md) and the list of files beside it; "
	    "with file, one of those files. Use it when a skill listed in the system prompt fits "
	    "the task, before doing the task.",
	.schema = "{\"type\":\"object\",\"properties\":{"
	    "\"name\":{\"type\":\"string\",\"description\":\"the skill's name, as listed\"},"
	    "\"file\":{\"type\":\"string\",\"description\":\"a file beside SKILL.md, relative to "
	    "the skill's folder\"}},\"required\":[\"name\"]}",
	.cls = TOOL_READ_ONLY,
	.run = skill_run,
};
