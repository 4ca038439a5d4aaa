/* cJSON helpers: see json.h. */
#include "config.h"

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
	const char *end = NULL;
	cJSON *j;
	size_t off, i;
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
		j = NULL;
	} else {
		const char *e = cJSON_GetErrorPtr();

		off = e != NULL && e >= s && e <= s + n ? (size_t)(e - s) : n;
	}
	for (i = 0; i < off && i < n; i++) {
		if (s[i] == '\n') {
			l++;
			c = 1;
		} else
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
