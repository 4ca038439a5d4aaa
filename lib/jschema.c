/* JSON Schema checks for structured output: see jschema.h. */
#include "autoconf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "jschema.h"

#define JS_DEPTH_MAX	64	/* nesting (and $ref chains) deeper than this is refused */

struct js {
	const cJSON	*root;		/* for $ref */
	struct buf	*why;
	int		 depth;
};

static int js_check(struct js *, const cJSON *schema, const cJSON *v, const char *path);

static int
js_fail(struct js *j, const char *path, const char *what)
{
	if (j->why != NULL && j->why->len == 0)
		buf_printf(j->why, "%s: %s", path, what);
	return -1;
}

static bool
js_is_type(const cJSON *v, const char *type)
{
	if (strcmp(type, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(type, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(type, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(type, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(type, "integer") == 0)
		return cJSON_IsNumber(v) && v->valuedouble > -9007199254740992.0 &&
		    v->valuedouble < 9007199254740992.0 &&
		    v->valuedouble == (double)(int64_t)v->valuedouble;
	if (strcmp(type, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(type, "null") == 0)
		return cJSON_IsNull(v);
	return false;
}

static int
js_type(struct js *j, const cJSON *t, const cJSON *v, const char *path)
{
	const cJSON *one;
	struct buf msg = BUF_INIT(1024);
	int rc;

	if (t == NULL)
		return 0;
	if (cJSON_IsString(t) && js_is_type(v, t->valuestring))
		return 0;
	if (cJSON_IsArray(t))
		cJSON_ArrayForEach(one, t)
			if (cJSON_IsString(one) && js_is_type(v, one->valuestring))
				return 0;
	if (cJSON_IsString(t)) {
		buf_printf(&msg, "expected %s %s", strchr("aeiou", t->valuestring[0]) ? "an" : "a",
		    t->valuestring);
	} else {
		buf_puts(&msg, "expected one of the types");
		cJSON_ArrayForEach(one, t)
			if (cJSON_IsString(one))
				buf_printf(&msg, " %s", one->valuestring);
	}
	rc = js_fail(j, path, buf_cstr(&msg));
	buf_release(&msg);
	return rc;
}

static size_t
js_code_points(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static int
js_string(struct js *j, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(s, "minLength");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(s, "maxLength");
	size_t n;

	if (!cJSON_IsString(v))
		return 0;
	n = js_code_points(v->valuestring);
	if (cJSON_IsNumber(lo) && (double)n < lo->valuedouble)
		return js_fail(j, path, "the string is shorter than minLength");
	if (cJSON_IsNumber(hi) && (double)n > hi->valuedouble)
		return js_fail(j, path, "the string is longer than maxLength");
	return 0;
}

static int
js_number(struct js *j, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *k;

	if (!cJSON_IsNumber(v))
		return 0;
	if (cJSON_IsNumber(k = cJSON_GetObjectItemCaseSensitive(s, "minimum")) &&
	    v->valuedouble < k->valuedouble)
		return js_fail(j, path, "the number is below minimum");
	if (cJSON_IsNumber(k = cJSON_GetObjectItemCaseSensitive(s, "maximum")) &&
	    v->valuedouble > k->valuedouble)
		return js_fail(j, path, "the number is above maximum");
	if (cJSON_IsNumber(k = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum")) &&
	    v->valuedouble <= k->valuedouble)
		return js_fail(j, path, "the number is not above exclusiveMinimum");
	if (cJSON_IsNumber(k = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMaximum")) &&
	    v->valuedouble >= k->valuedouble)
		return js_fail(j, path, "the number is not below exclusiveMaximum");
	return 0;
}

static int
js_object(struct js *j, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	const cJSON *r, *m, *ps;
	struct buf sub = BUF_INIT(BUF_NOLIMIT);
	int rc = 0;

	if (!cJSON_IsObject(v))
		return 0;
	cJSON_ArrayForEach(r, req) {
		if (cJSON_IsString(r) && cJSON_GetObjectItemCaseSensitive(v, r->valuestring) == NULL) {
			buf_printf(&sub, "the required property \"%s\" is missing", r->valuestring);
			rc = js_fail(j, path, buf_cstr(&sub));
			goto out;
		}
	}
	cJSON_ArrayForEach(m, v) {
		buf_reset(&sub);
		buf_printf(&sub, "%s.%s", path, m->string);
		ps = cJSON_IsObject(props) ? cJSON_GetObjectItemCaseSensitive(props, m->string) : NULL;
		if (ps != NULL)
			rc = js_check(j, ps, m, buf_cstr(&sub));
		else if (cJSON_IsFalse(extra))
			rc = js_fail(j, buf_cstr(&sub), "a property the schema does not allow");
		else if (cJSON_IsObject(extra))
			rc = js_check(j, extra, m, buf_cstr(&sub));
		if (rc == -1)
			break;
	}
out:
	buf_release(&sub);
	return rc;
}

static int
js_array(struct js *j, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(s, "minItems");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(s, "maxItems");
	const cJSON *e;
	struct buf sub = BUF_INIT(BUF_NOLIMIT);
	int n, i = 0, rc = 0;

	if (!cJSON_IsArray(v))
		return 0;
	n = cJSON_GetArraySize(v);
	if (cJSON_IsNumber(lo) && n < lo->valuedouble)
		return js_fail(j, path, "fewer items than minItems");
	if (cJSON_IsNumber(hi) && n > hi->valuedouble)
		return js_fail(j, path, "more items than maxItems");
	if (!cJSON_IsObject(items))
		return 0;
	cJSON_ArrayForEach(e, v) {
		buf_reset(&sub);
		buf_printf(&sub, "%s[%d]", path, i++);
		if ((rc = js_check(j, items, e, buf_cstr(&sub))) == -1)
			break;
	}
	buf_release(&sub);
	return rc;
}

/* anyOf, oneOf, allOf, not: the branches are tried without their reasons. */
static int
js_combine(struct js *j, const cJSON *s, const cJSON *v, const char *path)
{
	struct js quiet = { j->root, NULL, j->depth };
	const cJSON *list, *b;
	int ok;

	if ((list = cJSON_GetObjectItemCaseSensitive(s, "allOf")) != NULL)
		cJSON_ArrayForEach(b, list)
			if (js_check(j, b, v, path) == -1)
				return -1;
	if ((list = cJSON_GetObjectItemCaseSensitive(s, "anyOf")) != NULL) {
		ok = 0;
		cJSON_ArrayForEach(b, list)
			ok += js_check(&quiet, b, v, path) == 0;
		if (ok == 0)
			return js_fail(j, path, "matches none of anyOf");
	}
	if ((list = cJSON_GetObjectItemCaseSensitive(s, "oneOf")) != NULL) {
		ok = 0;
		cJSON_ArrayForEach(b, list)
			ok += js_check(&quiet, b, v, path) == 0;
		if (ok != 1)
			return js_fail(j, path, ok == 0 ? "matches none of oneOf" :
			    "matches more than one of oneOf");
	}
	if ((b = cJSON_GetObjectItemCaseSensitive(s, "not")) != NULL &&
	    js_check(&quiet, b, v, path) == 0)
		return js_fail(j, path, "matches the schema of \"not\"");
	return 0;
}

/* "#/$defs/name" (or any "#/a/b" path) in the root schema; NULL when it is not there. */
static const cJSON *
js_ref(const struct js *j, const char *ref)
{
	const cJSON *at = j->root;
	char part[256];
	size_t n;

	if (strncmp(ref, "#", 1) != 0)
		return NULL;
	ref++;
	while (*ref == '/' && at != NULL) {
		ref++;
		n = strcspn(ref, "/");
		if (n >= sizeof part)
			return NULL;
		memcpy(part, ref, n);
		part[n] = '\0';
		at = cJSON_GetObjectItemCaseSensitive(at, part);
		ref += n;
	}
	return *ref == '\0' ? at : NULL;
}

static int
js_check(struct js *j, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *k, *e;
	bool found;
	int rc;

	if (cJSON_IsTrue(s) || s == NULL)
		return 0;
	if (cJSON_IsFalse(s))
		return js_fail(j, path, "the schema allows no value here");
	if (!cJSON_IsObject(s))
		return 0;
	if (j->depth >= JS_DEPTH_MAX)
		return js_fail(j, path, "the schema nests too deep");
	j->depth++;
	rc = -1;
	if (cJSON_IsString(k = cJSON_GetObjectItemCaseSensitive(s, "$ref"))) {
		const cJSON *to = js_ref(j, k->valuestring);

		if (to == NULL) {
			js_fail(j, path, "the schema's $ref points nowhere");
			goto out;
		}
		if (js_check(j, to, v, path) == -1)
			goto out;
	}
	if (js_type(j, cJSON_GetObjectItemCaseSensitive(s, "type"), v, path) == -1)
		goto out;
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "enum")) != NULL) {
		found = false;
		cJSON_ArrayForEach(e, k)
			found = found || cJSON_Compare(e, v, true);
		if (!found) {
			js_fail(j, path, "not one of the values of enum");
			goto out;
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "const")) != NULL && !cJSON_Compare(k, v, true)) {
		js_fail(j, path, "not the value of const");
		goto out;
	}
	if (js_string(j, s, v, path) == -1 || js_number(j, s, v, path) == -1 ||
	    js_object(j, s, v, path) == -1 || js_array(j, s, v, path) == -1 ||
	    js_combine(j, s, v, path) == -1)
		goto out;
	rc = 0;
out:
	j->depth--;
	return rc;
}

int
jschema_check(const cJSON *schema, const cJSON *value, struct buf *why)
{
	struct js j = { schema, why, 0 };

	return js_check(&j, schema, value, "$");
}
