/* The tool table and tool_out helpers: see tool.h. */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "skill.h"
#include "tool.h"
#include "utf8.h"

const struct tool_def *const tool_table[] = {
	&tool_read_file,
	&tool_list_dir,
	&tool_glob,
	&tool_grep,
	&tool_edit_file,
	&tool_write_file,
	&tool_apply_patch,
	&tool_run_bash,
	&tool_bash_output,
	&tool_kill_shell,
	&tool_todo_write,
	&tool_exit_plan,
	&tool_ask_user,
	&tool_skill,
	NULL
};

const struct tool_def *
tool_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; tool_table[i] != NULL; i++)
		if (strcmp(tool_table[i]->name, name) == 0)
			return tool_table[i];
	return NULL;
}

void
tool_out_init(struct tool_out *out)
{
	buf_init(&out->text, 64u * 1024 * 1024);
	out->is_error = false;
	out->meta = NULL;
	out->blocks = NULL;
}

void
tool_out_release(struct tool_out *out)
{
	buf_release(&out->text);
	cJSON_Delete(out->meta);
	out->meta = NULL;
	cJSON_Delete(out->blocks);
	out->blocks = NULL;
}

void
tool_out_error(struct tool_out *out, const char *fmt, ...)
{
	va_list ap;

	buf_reset(&out->text);
	va_start(ap, fmt);
	buf_vprintf(&out->text, fmt, ap);
	va_end(ap);
	out->is_error = true;
}

void
tool_out_sanitize(struct tool_out *out)
{
	struct buf clean;

	if (out->text.data == NULL || utf8_valid(out->text.data, out->text.len))
		return;
	buf_init(&clean, out->text.limit);
	utf8_sanitize(&clean, out->text.data, out->text.len);
	buf_release(&out->text);
	out->text = clean;
}

int
tool_int_arg(const cJSON *input, const char *key, int64_t def, int64_t *v, struct tool_out *out)
{
	const cJSON *it = json_get(input, key);
	char *end;

	*v = def;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (cJSON_IsNumber(it) && it->valuedouble >= -1e15 && it->valuedouble <= 1e15) {
		*v = (int64_t)it->valuedouble;
		return 0;
	}
	if (cJSON_IsString(it)) {
		errno = 0;
		*v = strtoll(it->valuestring, &end, 10);
		if (errno == 0 && end != it->valuestring && *end == '\0')
			return 0;
	}
	tool_out_error(out, "%s must be a whole number", key);
	return -1;
}

void
tool_sandbox(const struct tool_env *env, struct sandbox *sb)
{
	sb->root = env->root;
	sb->extra = env->extra_roots;
	sb->policy = env->policy;
}

bool
tool_denied(const struct tool_env *env, enum sandbox_access access, const char *path)
{
	return env->policy != NULL && env->policy->denied != NULL &&
	    env->policy->denied(env->policy->arg, access, path);
}

void
tool_note_denied(struct buf *b, size_t n)
{
	if (n == 1)
		buf_puts(b, "[1 file was left out by deny rules]\n");
	else if (n > 1)
		buf_printf(b, "[%zu files were left out by deny rules]\n", n);
}
