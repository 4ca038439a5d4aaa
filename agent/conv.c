/* The conversation model: see conv.h. */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "conv.h"
#include "json.h"
#include "xalloc.h"

void
conv_init(struct conv *c)
{
	c->messages = cJSON_CreateArray();
	if (c->messages == NULL)
		fatal("out of memory");
}

void
conv_release(struct conv *c)
{
	cJSON_Delete(c->messages);
	c->messages = NULL;
}

void
conv_clear(struct conv *c)
{
	conv_release(c);
	conv_init(c);
}

void
conv_add(struct conv *c, const char *role, cJSON *content, int turn)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddItemToObject(m, "content", content);
	cJSON_AddNumberToObject(m, "_turn", turn);
	cJSON_AddItemToArray(c->messages, m);
}

void
conv_add_user_text(struct conv *c, const char *text, int turn)
{
	cJSON *content = cJSON_CreateArray(), *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	conv_add(c, "user", content, turn);
}

int
conv_count(const struct conv *c)
{
	return cJSON_GetArraySize(c->messages);
}

cJSON *
conv_last(const struct conv *c)
{
	int n = cJSON_GetArraySize(c->messages);

	return n > 0 ? cJSON_GetArrayItem(c->messages, n - 1) : NULL;
}

static bool
conv_has_id(const cJSON *ids, const char *id)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, ids)
		if (strcmp(it->valuestring, id) == 0)
			return true;
	return false;
}

int
conv_check(const struct conv *c, struct buf *why)
{
	const cJSON *m, *prev_uses = NULL;
	const char *want = "user";
	int i = 0, rc = 0;
	cJSON *uses = NULL;

	cJSON_ArrayForEach(m, c->messages) {
		const char *role = json_str(m, "role", "");
		const cJSON *b, *content = json_get(m, "content");

		if (strcmp(role, want) != 0) {
			buf_printf(why, "message %d is %s, expected %s", i, role, want);
			rc = -1;
			goto out;
		}
		if (prev_uses != NULL && cJSON_GetArraySize(prev_uses) > 0) {
			int k = 0, n = cJSON_GetArraySize(prev_uses);

			cJSON_ArrayForEach(b, content) {
				if (strcmp(json_str(b, "type", ""), "tool_result") != 0)
					break;
				if (!conv_has_id(prev_uses, json_str(b, "tool_use_id", ""))) {
					buf_printf(why, "message %d answers unknown tool_use %s",
					    i, json_str(b, "tool_use_id", ""));
					rc = -1;
					goto out;
				}
				k++;
			}
			if (k != n) {
				buf_printf(why, "message %d has %d tool_result blocks for %d tool_use blocks", i, k, n);
				rc = -1;
				goto out;
			}
		}
		cJSON_Delete(uses);
		uses = cJSON_CreateArray();
		if (strcmp(role, "assistant") == 0)
			cJSON_ArrayForEach(b, content)
				if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
					cJSON_AddItemToArray(uses, cJSON_CreateString(json_str(b, "id", "")));
		prev_uses = uses;
		want = strcmp(role, "user") == 0 ? "assistant" : "user";
		i++;
	}
out:
	cJSON_Delete(uses);
	return rc;
}
