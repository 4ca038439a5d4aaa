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

/* The position of id in ids (an array of strings), or -1. */
static int
conv_id_index(const cJSON *ids, const char *id)
{
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, ids) {
		if (strcmp(it->valuestring, id) == 0)
			return i;
		i++;
	}
	return -1;
}

/* The tool_result blocks of one message against the tool_use ids before it. */
static int
conv_check_results(const cJSON *content, const cJSON *uses, int i, struct buf *why)
{
	const cJSON *b;
	int k = 0, n = cJSON_GetArraySize(uses);

	cJSON_ArrayForEach(b, content) {
		const char *id = json_str(b, "tool_use_id", "");
		int at;

		if (strcmp(json_str(b, "type", ""), "tool_result") != 0)
			continue;
		at = conv_id_index(uses, id);
		if (at == -1) {
			buf_printf(why, "message %d answers the tool_use %s, which the message "
			    "before it does not hold", i, id);
			return -1;
		}
		if (at < k) {
			buf_printf(why, "message %d answers the tool_use %s twice", i, id);
			return -1;
		}
		if (at > k) {
			buf_printf(why, "message %d does not answer the tool_use %s (or answers "
			    "out of order)", i, cJSON_GetStringValue(cJSON_GetArrayItem(uses, k)));
			return -1;
		}
		k++;
	}
	if (k != n) {
		buf_printf(why, "message %d has %d tool_result blocks for %d tool_use blocks", i, k, n);
		return -1;
	}
	return 0;
}

int
conv_check_messages(const cJSON *messages, bool open_end, int *bad, struct buf *why)
{
	const cJSON *m;
	const char *want = "user";
	int i = 0, rc = 0;
	size_t start = why != NULL ? why->len : 0, k;
	cJSON *uses = cJSON_CreateArray(), *seen = cJSON_CreateObject();

	cJSON_ArrayForEach(m, messages) {
		const char *role = json_str(m, "role", "");
		const cJSON *b, *content = json_get(m, "content");

		if (strcmp(role, want) != 0) {
			buf_printf(why, "message %d is %s, expected %s (a record is duplicated or "
			    "missing)", i, role, want);
			goto bad;
		}
		if (conv_check_results(content, uses, i, why) == -1)
			goto bad;
		cJSON_Delete(uses);
		uses = cJSON_CreateArray();
		if (strcmp(role, "assistant") == 0) {
			cJSON_ArrayForEach(b, content) {
				const char *id = json_str(b, "id", "");

				if (strcmp(json_str(b, "type", ""), "tool_use") != 0)
					continue;
				if (json_get(seen, id) != NULL) {
					buf_printf(why, "message %d repeats the tool_use %s (a record is "
					    "duplicated)", i, id);
					goto bad;
				}
				cJSON_AddTrueToObject(seen, id);
				cJSON_AddItemToArray(uses, cJSON_CreateString(id));
			}
		}
		want = strcmp(role, "user") == 0 ? "assistant" : "user";
		i++;
	}
	/* Calls the last message made are still to be answered: fine only at an open end. */
	if (!open_end && cJSON_GetArraySize(uses) > 0) {
		buf_printf(why, "message %d has tool_use blocks that nothing answers", i - 1);
		i--;
		goto bad;
	}
	goto out;
bad:
	rc = -1;
	if (bad != NULL)
		*bad = i;
	/* Roles and ids come from the log: the sentence stays one line. */
	for (k = start; why != NULL && k < why->len; k++)
		if ((unsigned char)why->data[k] < 0x20 || why->data[k] == 0x7f)
			why->data[k] = '?';
out:
	cJSON_Delete(uses);
	cJSON_Delete(seen);
	return rc;
}

int
conv_check(const struct conv *c, struct buf *why)
{
	return conv_check_messages(c->messages, true, NULL, why);
}
