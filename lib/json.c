/* cJSON helpers: see json.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "utf8.h"
#include "xalloc.h"

cJSON *
json_get(const cJSON *obj, const char *key)
{
	if (obj == NULL || !cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *
json_str(const cJSON *obj, const char *key, const char *def)
{
	const cJSON *v = json_get(obj, key);

	return cJSON_IsString(v) && v->valuestring != NULL ? v->valuestring : def;
}

int64_t
json_int(const cJSON *obj, const char *key, int64_t def)
{
	const cJSON *v = json_get(obj, key);

	if (!cJSON_IsNumber(v))
		return def;
	if (v->valuedouble >= 9.2e18 || v->valuedouble <= -9.2e18)
		return def;
	return (int64_t)v->valuedouble;
}

double
json_num(const cJSON *obj, const char *key, double def)
{
	const cJSON *v = json_get(obj, key);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

bool
json_bool(const cJSON *obj, const char *key, bool def)
{
	const cJSON *v = json_get(obj, key);

	if (cJSON_IsTrue(v))
		return true;
	if (cJSON_IsFalse(v))
		return false;
	return def;
}

cJSON *
json_parse_at(const char *s, size_t n, int *line, int *col)
{
	const char *end = NULL, *e;
	cJSON *j;
	char *copy;
	size_t off, i, open = 0, depth = 0;
	char nest[64], before = 0, last = 0;
	bool in_str = false;
	int l = 1, c = 1;

	j = cJSON_ParseWithLengthOpts(s, n, &end, false);
	if (j != NULL) {
		/* Only white space may follow the value. */
		off = (size_t)(end - s);
		while (off < n && strchr(" \t\r\n", s[off]) != NULL && s[off] != '\0')
			off++;
		if (off >= n || s[off] == '\0')
			return j;
		cJSON_Delete(j);
		goto where;
	}
	if (line == NULL && col == NULL)
		return NULL;
	e = cJSON_GetErrorPtr();
	off = e != NULL && e >= s && e <= s + n ? (size_t)(e - s) : n;
	/*
	 * cJSON reports running out of input at the last byte.  Appending a
	 * byte that no JSON text may hold there tells the two cases apart.
	 */
	if (n > 0 && off == n - 1) {
		copy = xmalloc(n + 1);
		memcpy(copy, s, n);
		copy[n] = '\x01';
		j = cJSON_ParseWithLengthOpts(copy, n + 1, NULL, false);
		e = cJSON_GetErrorPtr();
		if (j == NULL && e == copy + n)
			off = n;
		cJSON_Delete(j);
		free(copy);
	}
	/*
	 * A string that runs into a line end or the end of the input is
	 * reported where it opens, which is where the user must look.  The
	 * scan also tracks nesting, for the member-name case below.
	 */
	for (i = 0; i < n && (in_str || i < off); i++) {
		if (in_str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_str = false;
			else if (s[i] == '\n' || s[i] == '\r')
				break;
			continue;
		}
		if (i + 1 == off)
			before = last;
		if (s[i] == '"') {
			in_str = true;
			open = i;
		} else if (s[i] == '{' || s[i] == '[') {
			if (depth < sizeof(nest))
				nest[depth] = s[i];
			depth++;
		} else if ((s[i] == '}' || s[i] == ']') && depth > 0 && i + 1 != off)
			depth--;
		if (strchr(" \t\r\n", s[i]) == NULL)
			last = s[i];
	}
	if (in_str)
		off = open;
	/*
	 * Where an object member's name should start, cJSON points one byte
	 * past the offending character.
	 */
	else if (off > 0 && strchr(" \t\r\n\"", s[off - 1]) == NULL &&
	    (before == '{' || before == ',') && depth > 0 &&
	    depth <= sizeof(nest) && nest[depth - 1] == '{')
		off--;
where:
	/* Columns count characters, not bytes: UTF-8 continuation bytes add none. */
	for (i = 0; i < off && i < n; i++) {
		if (s[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	}
	if (line != NULL)
		*line = l;
	if (col != NULL)
		*col = c;
	return NULL;
}

int
json_append(struct buf *out, const cJSON *item)
{
	char *s = cJSON_PrintUnformatted(item);
	int r;

	if (s == NULL)
		fatal("out of memory printing JSON");
	r = buf_puts(out, s);
	cJSON_free(s);
	return r;
}

char *
json_print(const cJSON *item)
{
	char *s = cJSON_PrintUnformatted(item), *r;

	if (s == NULL)
		fatal("out of memory printing JSON");
	r = xstrdup(s);
	cJSON_free(s);
	return r;
}

cJSON *
json_add_str_n(cJSON *obj, const char *key, const char *s, size_t n)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *v;

	utf8_sanitize(&b, s, n);
	v = cJSON_AddStringToObject(obj, key, buf_cstr(&b));
	buf_release(&b);
	return v;
}

void
json_array_insert(cJSON *arr, int pos, cJSON *item)
{
	cJSON *at = pos >= 0 ? cJSON_GetArrayItem(arr, pos) : NULL;

	if (at == NULL) {
		cJSON_AddItemToArray(arr, item);
		return;
	}
	/* The first child's prev points at the last child; keep it so. */
	item->next = at;
	item->prev = at->prev;
	if (at == arr->child)
		arr->child = item;
	else
		at->prev->next = item;
	at->prev = item;
}
