/* Unit tests of lib/jschema: the JSON Schema subset structured output uses. */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "jschema.h"
#include "t.h"

/* 0 or -1 for value against schema (both JSON text); the reason in why. */
static int
check(const char *schema, const char *value, struct buf *why)
{
	cJSON *s = cJSON_Parse(schema), *v = cJSON_Parse(value);
	int rc;

	buf_reset(why);
	rc = jschema_check(s, v, why);
	cJSON_Delete(s);
	cJSON_Delete(v);
	return rc;
}

T_TEST(types)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);

	T_EQ_INT(check("{\"type\":\"string\"}", "\"x\"", &w), 0);
	T_EQ_INT(check("{\"type\":\"string\"}", "3", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$: expected a string");
	T_EQ_INT(check("{\"type\":\"integer\"}", "3", &w), 0);
	T_EQ_INT(check("{\"type\":\"integer\"}", "3.5", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$: expected an integer");
	T_EQ_INT(check("{\"type\":[\"string\",\"null\"]}", "null", &w), 0);
	T_EQ_INT(check("{\"type\":[\"string\",\"null\"]}", "true", &w), -1);
	T_CONTAINS(buf_cstr(&w), "expected one of the types string null");
	T_EQ_INT(check("{}", "[1,{}]", &w), 0);
	T_EQ_INT(check("true", "1", &w), 0);
	T_EQ_INT(check("false", "1", &w), -1);
	buf_release(&w);
}

T_TEST(objects)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);
	const char *s = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":2},"
	    "\"tags\":{\"type\":\"array\",\"items\":{\"enum\":[\"a\",\"b\"]},\"maxItems\":2}},"
	    "\"required\":[\"name\"],\"additionalProperties\":false}";

	T_EQ_INT(check(s, "{\"name\":\"ok\",\"tags\":[\"a\"]}", &w), 0);
	T_EQ_INT(check(s, "{\"tags\":[]}", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$: the required property \"name\" is missing");
	T_EQ_INT(check(s, "{\"name\":\"ok\",\"x\":1}", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$.x: a property the schema does not allow");
	T_EQ_INT(check(s, "{\"name\":\"ok\",\"tags\":[\"a\",\"c\"]}", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$.tags[1]: not one of the values of enum");
	T_EQ_INT(check(s, "{\"name\":\"ok\",\"tags\":[\"a\",\"a\",\"b\"]}", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$.tags: more items than maxItems");
	T_EQ_INT(check(s, "{\"name\":\"\xc3\xa9\"}", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$.name: the string is shorter than minLength");
	buf_release(&w);
}

T_TEST(numbers_and_combinations)
{
	struct buf w = BUF_INIT(BUF_NOLIMIT);

	T_EQ_INT(check("{\"minimum\":1,\"exclusiveMaximum\":5}", "5", &w), -1);
	T_EQ_INT(check("{\"minimum\":1,\"exclusiveMaximum\":5}", "4.9", &w), 0);
	T_EQ_INT(check("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]}", "1", &w), 0);
	T_EQ_INT(check("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]}", "[]", &w), -1);
	T_EQ_INT(check("{\"oneOf\":[{\"type\":\"number\"},{\"type\":\"integer\"}]}", "1", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$: matches more than one of oneOf");
	T_EQ_INT(check("{\"not\":{\"const\":0}}", "0", &w), -1);
	T_EQ_INT(check("{\"$defs\":{\"p\":{\"type\":\"string\"}},\"items\":{\"$ref\":\"#/$defs/p\"}}",
	    "[\"a\",2]", &w), -1);
	T_EQ_STR(buf_cstr(&w), "$[1]: expected a string");
	T_EQ_INT(check("{\"$ref\":\"#/nowhere\"}", "1", &w), -1);
	T_CONTAINS(buf_cstr(&w), "points nowhere");
	/* a schema that refers to itself forever is refused, not followed */
	T_EQ_INT(check("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "1", &w), -1);
	T_CONTAINS(buf_cstr(&w), "nests too deep");
	buf_release(&w);
}

int
main(void)
{
	T_RUN(types);
	T_RUN(objects);
	T_RUN(numbers_and_combinations);
	return t_done();
}
