/* @path mentions read at send time: see attach.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attach.h"
#include "buf.h"
#include "event.h"
#include "fsutil.h"
#include "image.h"
#include "json.h"
#include "rules/perm.h"
#include "record.h"
#include "sandbox.h"
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

		if (i > 0 && !attach_blank(s[i - 1]) && s[i - 1] != '(') {
			i++;
			continue;
		}
		if (s[i] != '@') {
			/* A bare path counts only when it names an image. */
			start = i;
			while (s[i] != '\0' && !attach_blank(s[i]))
				i++;
			end = i;
			while (end > start && strchr(",.;:!?)'\"", s[end - 1]) != NULL)
				end--;
			path = xstrndup(s + start, end - start);
			if (image_name(path) && attach_exists(root, path, NULL)) {
				*pos = i;
				return path;
			}
			free(path);
			if (i == start)
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

/*
 * Read path as an image, through the sandbox under the Read rules, check
 * it and keep it in files/: the conversation's image block (the caller's),
 * or NULL with the reason in err.
 */
static cJSON *
attach_image_load(const struct tool_env *env, const struct perm_rules *rules, enum perm_mode mode,
    bool images, const char *path, struct image_info *im, size_t *bytes, struct buf *err)
{
	struct sandbox sb;
	struct sandbox_at at = { .dirfd = -1 };
	char *data = NULL, hex[SHA256_HEX_LEN + 1], why[256], file[8192];
	size_t len = 0;
	cJSON *input = cJSON_CreateObject(), *b = NULL, *src;

	cJSON_AddStringToObject(input, "path", path);
	if (perm_check(rules, mode, "read_file", TOOL_READ_ONLY, input, err) == PERM_VERDICT_DENY)
		goto out;
	buf_reset(err);
	if (!images) {
		buf_puts(err, "the model does not take images");
		goto out;
	}
	if (env->snap_dir == NULL) {
		buf_puts(err, "there is no session to keep it in");
		goto out;
	}
	tool_sandbox(env, &sb);
	if (sandbox_walk(&sb, path, SANDBOX_READ, SANDBOX_MUST_EXIST, &at, err) == -1 ||
	    fsutil_read_at(&at, IMAGE_MAX_BYTES + 1, &data, &len, err) != 0)
		goto out;
	if (image_check((const unsigned char *)data, len, im, why, sizeof why) == -1) {
		buf_puts(err, why);
		goto out;
	}
	if (fsutil_snapshot(env->snap_dir, data, len, hex, err) == -1)
		goto out;
	snprintf(file, sizeof file, "%s/%s", env->snap_dir, hex);
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "image");
	src = cJSON_AddObjectToObject(b, "source");
	cJSON_AddStringToObject(src, "type", "base64");
	cJSON_AddStringToObject(src, "media_type", im->mime);
	cJSON_AddStringToObject(b, "_file", file);
	cJSON_AddStringToObject(b, "_path", path);
	cJSON_AddNumberToObject(b, "_width", im->width);
	cJSON_AddNumberToObject(b, "_height", im->height);
	cJSON_AddNumberToObject(b, "_tokens", (double)image_tokens(im->width, im->height));
	*bytes = len;
out:
	sandbox_at_release(&at);
	free(data);
	cJSON_Delete(input);
	return b;
}

cJSON *
attach_image_file(const struct tool_env *env, const char *file, const char *name, struct buf *err)
{
	struct image_info im;
	char *data = NULL, hex[SHA256_HEX_LEN + 1], why[256], kept[8192];
	size_t len = 0;
	cJSON *b = NULL, *src;

	if (env->snap_dir == NULL) {
		buf_puts(err, "there is no session to keep it in");
		return NULL;
	}
	if (fsutil_read_file(file, IMAGE_MAX_BYTES + 1, &data, &len, err) != 0)
		goto out;
	if (image_check((const unsigned char *)data, len, &im, why, sizeof why) == -1) {
		buf_puts(err, why);
		goto out;
	}
	if (fsutil_snapshot(env->snap_dir, data, len, hex, err) == -1)
		goto out;
	snprintf(kept, sizeof kept, "%s/%s", env->snap_dir, hex);
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "image");
	src = cJSON_AddObjectToObject(b, "source");
	cJSON_AddStringToObject(src, "type", "base64");
	cJSON_AddStringToObject(src, "media_type", im.mime);
	cJSON_AddStringToObject(b, "_file", kept);
	cJSON_AddStringToObject(b, "_path", name);
	cJSON_AddNumberToObject(b, "_width", im.width);
	cJSON_AddNumberToObject(b, "_height", im.height);
	cJSON_AddNumberToObject(b, "_tokens", (double)image_tokens(im.width, im.height));
out:
	free(data);
	return b;
}

bool
attach_tool_image(const struct tool_env *env, const struct perm_rules *rules, enum perm_mode mode,
    bool images, const char *tool, const cJSON *input, struct buf *result, bool *is_error, cJSON **blocks)
{
	const char *path = json_str(input, "path", "");
	struct buf err = BUF_INIT(4096);
	struct image_info im;
	size_t bytes = 0;
	cJSON *b;

	if (strcmp(tool, "read_file") != 0 || !image_name(path))
		return false;
	b = attach_image_load(env, rules, mode, images, path, &im, &bytes, &err);
	if (b == NULL) {
		/* What read_file said stays; why it is no image for the model goes with it. */
		buf_printf(result, "\n(not sent as an image: %s)", buf_cstr(&err));
		buf_release(&err);
		return false;
	}
	buf_reset(result);
	buf_printf(result, "%s: %s, %ux%u pixels (about %ld tokens); the image is attached", path, im.mime,
	    (unsigned)im.width, (unsigned)im.height, image_tokens(im.width, im.height));
	*is_error = false;
	if (*blocks == NULL)
		*blocks = cJSON_CreateArray();
	cJSON_AddItemToArray(*blocks, b);
	buf_release(&err);
	return true;
}

cJSON *
attach_result_request(const cJSON *block)
{
	cJSON *c = cJSON_Duplicate(block, 1), *it, *next, *content;

	for (it = c->child; it != NULL; it = next) {
		next = it->next;
		if (it->string != NULL && it->string[0] == '_')
			cJSON_Delete(cJSON_DetachItemViaPointer(c, it));
	}
	content = json_get(c, "content");
	for (it = content != NULL ? content->child : NULL; it != NULL; it = next) {
		next = it->next;
		if (strcmp(json_str(it, "type", ""), "image") == 0 && json_get(it, "_file") != NULL)
			cJSON_ReplaceItemViaPointer(content, it, attach_image_request(it));
	}
	return c;
}

/* An image mention: read through the sandbox, checked, kept in files/, named in the block. */
static void
attach_image(const struct tool_env *env, const struct perm_rules *rules, enum perm_mode mode,
    struct event_bus *bus, bool images, const char *path, cJSON *content)
{
	struct buf err = BUF_INIT(4096), note = BUF_INIT(4096);
	struct image_info im;
	size_t len = 0;
	cJSON *b, *ev;

	b = attach_image_load(env, rules, mode, images, path, &im, &len, &err);
	if (b == NULL) {
		buf_printf(&note, "<attachment path=\"%s\" kind=\"image\">\nThe user mentioned this image, "
		    "but it could not be attached: %s\n</attachment>", path, buf_cstr(&err));
		cJSON_AddItemToArray(content, record_text_block(buf_cstr(&note)));
		attach_event(bus, path, "image", 0, buf_cstr(&err));
		goto out;
	}
	buf_printf(&note, "<attachment path=\"%s\" kind=\"image\">%s, %ux%u pixels: the image "
	    "follows</attachment>", path, im.mime, (unsigned)im.width, (unsigned)im.height);
	cJSON_AddItemToArray(content, record_text_block(buf_cstr(&note)));
	cJSON_AddItemToArray(content, b);
	if (bus != NULL) {
		ev = event_new(bus, "attachment");
		cJSON_AddStringToObject(ev, "path", path);
		cJSON_AddStringToObject(ev, "kind", "image");
		cJSON_AddNumberToObject(ev, "bytes", (double)len);
		cJSON_AddNumberToObject(ev, "width", im.width);
		cJSON_AddNumberToObject(ev, "height", im.height);
		cJSON_AddNumberToObject(ev, "tokens", (double)image_tokens(im.width, im.height));
		event_emit(bus, ev);
	}
out:
	buf_release(&note);
	buf_release(&err);
}

/* The image's bytes, in base64, from the file the block names; -1 when it is gone or changed. */
static int
attach_image_data(const cJSON *block, struct buf *b64)
{
	struct buf err = BUF_INIT(1024);
	struct image_info im;
	char *data = NULL, why[256];
	size_t len = 0;
	int rc = -1;

	if (fsutil_read_file(json_str(block, "_file", ""), IMAGE_MAX_BYTES, &data, &len, &err) == 0 &&
	    image_check((const unsigned char *)data, len, &im, why, sizeof why) == 0 &&
	    image_base64((const unsigned char *)data, len, b64) == 0)
		rc = 0;
	free(data);
	buf_release(&err);
	return rc;
}

static cJSON *
attach_image_gone(const cJSON *block)
{
	struct buf t = BUF_INIT(4096);
	cJSON *b;

	buf_printf(&t, "[the image %s is no longer in the session's files]", json_str(block, "_path", "?"));
	b = record_text_block(buf_cstr(&t));
	buf_release(&t);
	return b;
}

cJSON *
attach_image_request(const cJSON *block)
{
	struct buf b64 = BUF_INIT(BUF_NOLIMIT);
	cJSON *b, *src;

	if (attach_image_data(block, &b64) == -1) {
		buf_release(&b64);
		return attach_image_gone(block);
	}
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "image");
	src = cJSON_AddObjectToObject(b, "source");
	cJSON_AddStringToObject(src, "type", "base64");
	cJSON_AddStringToObject(src, "media_type", json_str(json_get(block, "source"), "media_type", "image/png"));
	cJSON_AddStringToObject(src, "data", buf_cstr(&b64));
	buf_release(&b64);
	return b;
}

cJSON *
attach_image_openai(const cJSON *block)
{
	struct buf url = BUF_INIT(BUF_NOLIMIT);
	cJSON *p, *iu;

	buf_printf(&url, "data:%s;base64,", json_str(json_get(block, "source"), "media_type", "image/png"));
	if (attach_image_data(block, &url) == -1) {
		buf_release(&url);
		p = attach_image_gone(block);
		return p;
	}
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "type", "image_url");
	iu = cJSON_AddObjectToObject(p, "image_url");
	cJSON_AddStringToObject(iu, "url", buf_cstr(&url));
	buf_release(&url);
	return p;
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
	cJSON_AddItemToArray(content, record_text_block(buf_cstr(&block)));
	tool_out_release(&out);
	cJSON_Delete(input);
	buf_release(&block);
	buf_release(&why);
}

int
attach_mentions(const struct tool_env *env, const struct perm_rules *rules, enum perm_mode mode,
    struct event_bus *bus, bool images, const char *prompt, cJSON *content)
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
		if (image_name(path))
			attach_image(env, rules, mode, bus, images, path, content);
		else
			attach_one(env, rules, mode, bus, path, content);
	}
	for (i = 0; i < n; i++)
		free(seen[i]);
	return n;
}
