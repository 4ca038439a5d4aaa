/* The tool table and tool_out helpers: see tool.h. */
#include "autoconf.h"

#include <stdarg.h>
#include <string.h>

#include "tool.h"

const struct tool_def *const tool_table[] = {
	&tool_read_file,
	&tool_list_dir,
	&tool_glob,
	&tool_grep,
	&tool_edit_file,
	&tool_write_file,
	&tool_apply_patch,
	&tool_run_bash,
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
}

void
tool_out_release(struct tool_out *out)
{
	buf_release(&out->text);
	cJSON_Delete(out->meta);
	out->meta = NULL;
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
