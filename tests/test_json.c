/* Unit tests of lib/json. */
#include "autoconf.h"

#include <string.h>

#include "buf.h"
#include "json.h"
#include "t.h"

T_TEST(getters)
{
	const char *s = "{\"a\":\"x\",\"n\":42,\"b\":true,\"f\":1.5,\"o\":{}}";
	cJSON *j = cJSON_Parse(s);

	T_EQ_STR(json_str(j, "a", "d"), "x");
	T_EQ_STR(json_str(j, "n", "d"), "d");
	T_EQ_INT(json_int(j, "n", -1), 42);
	T_EQ_INT(json_int(j, "a", -1), -1);
	T_OK(json_bool(j, "b", false));
	T_OK(!json_bool(j, "missing", false));
	T_OK(json_num(j, "f", 0) == 1.5);
	T_OK(json_get(j, "o") != NULL);
	T_OK(json_get(NULL, "o") == NULL);
	cJSON_Delete(j);
}

T_TEST(parse_positions)
{
	int line = 0, col = 0;
	const char *bad = "{\n  \"a\": 1,\n  \"b\" 2\n}";
	const char *trail = "{\"a\":1} x";
	cJSON *j;

	j = json_parse_at(bad, strlen(bad), &line, &col);
	T_OK(j == NULL);
	T_EQ_INT(line, 3);
	T_OK(col >= 6 && col <= 8);
	j = json_parse_at(trail, strlen(trail), &line, &col);
	T_OK(j == NULL);
	T_EQ_INT(line, 1);
	T_EQ_INT(col, 9);
	j = json_parse_at("{\"a\":1}\n", 8, &line, &col);
	T_OK(j != NULL);
	cJSON_Delete(j);
}

T_TEST(append_and_invalid_utf8)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	cJSON *o = cJSON_CreateObject();

	json_add_str_n(o, "s", "a\xFFz", 3);
	json_append(&b, o);
	T_EQ_STR(buf_cstr(&b), "{\"s\":\"a\xEF\xBF\xBDz\"}");
	cJSON_Delete(o);
	buf_release(&b);
}

T_TEST(insert_anywhere)
{
	cJSON *a = cJSON_CreateArray();
	char *s;

	json_array_insert(a, 0, cJSON_CreateNumber(3));
	json_array_insert(a, 0, cJSON_CreateNumber(1));
	json_array_insert(a, 1, cJSON_CreateNumber(2));
	json_array_insert(a, 9, cJSON_CreateNumber(5));
	json_array_insert(a, 3, cJSON_CreateNumber(4));
	s = cJSON_PrintUnformatted(a);
	T_EQ_STR(s, "[1,2,3,4,5]");
	cJSON_free(s);
	cJSON_AddItemToArray(a, cJSON_CreateNumber(6));
	T_EQ_INT(cJSON_GetArraySize(a), 6);
	T_OK(cJSON_GetArrayItem(a, 5)->valuedouble == 6);
	cJSON_DeleteItemFromArray(a, 2);
	s = cJSON_PrintUnformatted(a);
	T_EQ_STR(s, "[1,2,4,5,6]");
	cJSON_free(s);
	cJSON_Delete(a);
}

int
main(void)
{
	T_RUN(getters);
	T_RUN(parse_positions);
	T_RUN(append_and_invalid_utf8);
	T_RUN(insert_anywhere);
	return t_done();
}
