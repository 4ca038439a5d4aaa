/* Skills and the skill tool: see skill.h. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "file.h"
#include "fmatter.h"
#include "json.h"
#include "skill.h"
#include "xalloc.h"


/* Front matter fields tandem reads (model is read to be named as not honoured). */
static const char *const skill_fields[] = {
	"name", "description", "allowed-tools", "argument-hint", "disable-model-invocation",
	"user-invocable", "license", "compatibility", "metadata", "model", NULL
};

static char *
skill_opt(const cJSON *fm, const char *key)
{
	const char *s = json_str(fm, key, NULL);

	return s != NULL && s[0] != '\0' ? xstrdup(s) : NULL;
}

static bool
skill_false(const cJSON *fm, const char *key)
{
	const char *s = json_str(fm, key, NULL);

	return s != NULL && strcmp(s, "false") == 0;
}

/* The first line of prose of body, for a skill without a description. */
static char *
skill_first_line(const char *body)
{
	const char *p = body, *end;

	for (; *p != '\0'; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		while (p < end && (*p == '#' || *p == ' ' || *p == '\t'))
			p++;
		if (end > p)
			return xmemdup(p, (size_t)(end - p) > 200 ? 200 : (size_t)(end - p));
	}
	return xstrdup("");
}

static bool
skill_known(const struct skill_list *l, const char *name)
{
	return skill_find(l, name) != NULL;
}

static void
skill_add(struct skill_list *l, const char *dir, const char *entry, bool project)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT), text = BUF_INIT(SKILL_FILE_MAX);
	struct buf unknown = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;
	struct skill_info *s;
	const char *body, *name;
	const cJSON *m;
	cJSON *fm;
	size_t i;

	if (entry[0] == '.' || l->n >= SKILL_MAX)
		return;
	buf_printf(&path, "%s/%s/SKILL.md", dir, entry);
	if (file_read(buf_cstr(&path), SKILL_FILE_MAX, FILE_REGULAR | FILE_TRUNCATE, &text, &st) == -1)
		goto out;
	fm = fmatter_parse(buf_cstr(&text), &body);
	name = json_str(fm, "name", NULL);
	if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL || strchr(name, ' ') != NULL)
		name = entry;
	if (skill_known(l, name)) {
		cJSON_Delete(fm);
		goto out;
	}
	cJSON_ArrayForEach(m, fm) {
		bool known = false;

		for (i = 0; skill_fields[i] != NULL; i++)
			known = known || strcmp(skill_fields[i], m->string) == 0;
		if (!known)
			buf_printf(&unknown, "%s%s", unknown.len ? ", " : "", m->string);
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	s = &l->v[l->n++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->description = skill_opt(fm, "description");
	if (s->description == NULL)
		s->description = skill_first_line(body);
	buf_truncate(&path, path.len - strlen("/SKILL.md"));
	s->dir = buf_detach(&path, NULL);
	s->allowed_tools = skill_opt(fm, "allowed-tools");
	s->argument_hint = skill_opt(fm, "argument-hint");
	s->model = skill_opt(fm, "model");
	s->unknown = unknown.len > 0 ? buf_detach(&unknown, NULL) : NULL;
	s->model_invocable = json_str(fm, "disable-model-invocation", NULL) == NULL ||
	    strcmp(json_str(fm, "disable-model-invocation", ""), "true") != 0;
	s->user_invocable = !skill_false(fm, "user-invocable");
	s->project = project;
	cJSON_Delete(fm);
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&unknown);
}

static void
skill_scan_dir(struct skill_list *l, const char *base, const char *sub, bool project)
{
	struct buf dir = BUF_INIT(BUF_NOLIMIT);
	struct dirent *e;
	DIR *d;

	if (base == NULL)
		return;
	buf_printf(&dir, "%s/%s", base, sub);
	if ((d = opendir(buf_cstr(&dir))) != NULL) {
		while ((e = readdir(d)) != NULL)
			skill_add(l, buf_cstr(&dir), e->d_name, project);
		closedir(d);
	}
	buf_release(&dir);
}

static int
skill_cmp(const void *a, const void *b)
{
	return strcmp(((const struct skill_info *)a)->name, ((const struct skill_info *)b)->name);
}

void
skill_scan(const char *root, const char *config_dir, const char *home, struct skill_list *l)
{
	l->v = NULL;
	l->n = 0;
	skill_scan_dir(l, root, ".tandem/skills", true);
	skill_scan_dir(l, root, ".claude/skills", true);
	skill_scan_dir(l, config_dir, "skills", false);
	skill_scan_dir(l, home, ".claude/skills", false);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, skill_cmp);
}

void
skill_list_release(struct skill_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].description);
		free(l->v[i].dir);
		free(l->v[i].allowed_tools);
		free(l->v[i].argument_hint);
		free(l->v[i].model);
		free(l->v[i].unknown);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const struct skill_info *
skill_find(const struct skill_list *l, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

int
skill_body(const struct skill_info *s, struct buf *out, struct buf *err)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT), text = BUF_INIT(SKILL_FILE_MAX);
	struct file_status st;
	const char *body;
	cJSON *fm;
	int r = -1;

	buf_printf(&path, "%s/SKILL.md", s->dir);
	if (file_read(buf_cstr(&path), SKILL_FILE_MAX, FILE_REGULAR | FILE_TRUNCATE, &text, &st) == -1) {
		file_error(err, buf_cstr(&path), &st, errno, SKILL_FILE_MAX);
		goto out;
	}
	fm = fmatter_parse(buf_cstr(&text), &body);
	buf_puts(out, body);
	cJSON_Delete(fm);
	r = 0;
out:
	buf_release(&path);
	buf_release(&text);
	return r;
}

