/* @path mentions read at send time: see attach.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attach.h"
#include "buf.h"
#include "event.h"
#include "perm.h"
#include "tool.h"
#include "xalloc.h"

static bool
attach_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Does the path (relative to root, or absolute) exist?  *is_dir says what it is. */
static bool
attach_exists(const char *root, const char *path, bool *is_dir)
{
	char full[8192];
	struct stat st;
	int r;

	r = path[0] == '/' ? snprintf(full, sizeof full, "%s", path) :
	    snprintf(full, sizeof full, "%s/%s", root, path);
	if (r < 0 || (size_t)r >= sizeof full || stat(full, &st) == -1)
		return false;
	if (is_dir != NULL)
		*is_dir = S_ISDIR(st.st_mode);
	return true;
}

char *
attach_next(const char *root, const char *s, size_t *pos)
{
	size_t i = *pos;

	while (s[i] != '\0') {
		size_t start, end;
		char *path;

		if (s[i] != '@' || (i > 0 && !attach_blank(s[i - 1]) && s[i - 1] != '(')) {
			i++;
			continue;
		}
		start = ++i;
		while (s[i] != '\0' && !attach_blank(s[i]))
			i++;
		end = i;
		/* "see @a.c," and "(@dir/)": the path without what ends the sentence. */
		for (;;) {
			if (end == start)
				break;
			path = xstrndup(s + start, end - start);
			if (attach_exists(root, path, NULL)) {
				*pos = i;
				return path;
			}
			free(path);
			if (strchr(",.;:!?)'\"", s[end - 1]) == NULL)
				break;
			end--;
		}
	}
	*pos = i;
	return NULL;
}

static void
attach_event(struct event_bus *bus, const char *path, const char *kind, size_t bytes, const char *error)
{
	cJSON *ev;

	if (bus == NULL)
		return;
	ev = event_new(bus, "attachment");
	cJSON_AddStringToObject(ev, "path", path);
	cJSON_AddStringToObject(ev, "kind", kind);
	cJSON_AddNumberToObject(ev, "bytes", (double)bytes);
	if (error != NULL)
		cJSON_AddStringToObject(ev, "error", error);
	event_emit(bus, ev);
}

static cJSON *
attach_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

/* Read one mention as the model's tool would, under the same rules. */
static void
attach_one(const struct tool_env *env, const struct perm_rules *rules, enum perm_mode mode,
    struct event_bus *bus, const char *path, cJSON *content)
{
	struct buf why = BUF_INIT(4096), block = BUF_INIT(BUF_NOLIMIT);
	bool is_dir = false;
	const struct tool_def *tool;
	struct tool_out out;
	cJSON *input = cJSON_CreateObject();
	const char *kind;

	attach_exists(env->root, path, &is_dir);
	kind = is_dir ? "dir" : "file";
	tool = is_dir ? &tool_list_dir : &tool_read_file;
	cJSON_AddStringToObject(input, "path", path);
	tool_out_init(&out);
	if (perm_check(rules, mode, tool->name, tool->cls, input, &why) == PERM_VERDICT_DENY) {
		out.is_error = true;
		buf_printf(&out.text, "not attached: %s", buf_cstr(&why));
	} else {
		tool->run(env, input, &out);
	}
	if (out.is_error) {
		buf_printf(&block, "<attachment path=\"%s\" kind=\"%s\">\nThe user mentioned this %s, but "
		    "it could not be attached: %s\n</attachment>", path, kind, is_dir ? "directory" : "file",
		    buf_cstr(&out.text));
		attach_event(bus, path, kind, 0, buf_cstr(&out.text));
	} else {
		buf_printf(&block, "<attachment path=\"%s\" kind=\"%s\">\n", path, kind);
		buf_append(&block, out.text.data, out.text.len);
		buf_puts(&block, "\n</attachment>");
		attach_event(bus, path, kind, out.text.len, NULL);
	}
	cJSON_AddItemToArray(content, attach_block(buf_cstr(&block)));
	tool_out_release(&out);
	cJSON_Delete(input);
	buf_release(&block);
	buf_release(&why);
}

int
attach_mentions(const struct tool_env *env, const struct perm_rules *rules, enum perm_mode mode,
    struct event_bus *bus, const char *prompt, cJSON *content)
{
	char *seen[ATTACH_MAX], *path;
	size_t pos = 0;
	int n = 0, i;

	while (n < ATTACH_MAX && (path = attach_next(env->root, prompt, &pos)) != NULL) {
		for (i = 0; i < n && strcmp(seen[i], path) != 0; i++)
			;
		if (i < n) {
			free(path);
			continue;
		}
		seen[n++] = path;
		attach_one(env, rules, mode, bus, path, content);
	}
	for (i = 0; i < n; i++)
		free(seen[i]);
	return n;
}
