/*
 * Tests for agent/models.c and agent/modelcat.c: the built-in table, the
 * parsers of each provider's answer (the Models API's ModelInfo, OpenAI's
 * list, llama.cpp's /props, Ollama's /api/ps and /api/show), the setting a
 * 400 names, the caps' JSON round trip, and the price file: loading,
 * overrides, longest match, the long-context tier, malformed files.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "model/modelcat.h"
#include "model/models.h"
#include "t.h"

static cJSON *
parse(const char *s)
{
	cJSON *j = cJSON_Parse(s);

	if (j == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", s);
		exit(1);
	}
	return j;
}

T_TEST(builtin_table_fallback)
{
	struct model_caps c;

	model_builtin("claude-sonnet-4-5-20250929", &c);
	T_EQ_INT(c.window, 200000);
	T_OK((c.thinking & MODEL_THINK_ENABLED) != 0);
	T_EQ_INT(c.source, MODEL_TABLE);
	model_caps_release(&c);
	model_builtin("no-such-family", &c);
	T_EQ_INT(c.window, 128000);
	T_EQ_INT(c.thinking, 0);
	model_caps_release(&c);
	model_builtin("gpt-5-mini", &c);
	T_OK(c.completion_tokens);
	model_caps_release(&c);
}

T_TEST(anthropic_model_info)
{
	cJSON *j = parse("{\"type\":\"model\",\"id\":\"x-1\",\"max_input_tokens\":1000000,"
	    "\"max_tokens\":128000,\"capabilities\":{\"image_input\":{\"supported\":true},"
	    "\"thinking\":{\"supported\":true,\"types\":{\"adaptive\":{\"supported\":true},"
	    "\"enabled\":{\"supported\":false}}},\"effort\":{\"supported\":true,"
	    "\"low\":{\"supported\":true},\"medium\":{\"supported\":false},\"high\":{\"supported\":true},"
	    "\"max\":{\"supported\":true},\"xhigh\":null}}}");
	struct model_caps c;

	T_EQ_INT(modelcat_parse_anthropic(j, &c), 0);
	T_EQ_STR(c.id, "x-1");
	T_EQ_INT(c.window, 1000000);
	T_EQ_INT(c.max_output, 128000);
	T_EQ_INT(c.thinking, MODEL_THINK_ADAPTIVE);
	T_OK(c.adaptive_default);
	T_EQ_INT(c.neffort, 3);
	T_OK(model_has_effort(&c, "max") && model_has_effort(&c, "low"));
	T_OK(!model_has_effort(&c, "medium") && !model_has_effort(&c, "xhigh"));
	T_OK(c.image_input);
	T_EQ_STR(model_thinking_name(&c), "adaptive");
	model_caps_release(&c);
	cJSON_Delete(j);
	/* A hostile server: level names that are no words, a window past belief. */
	j = parse("{\"id\":\"x-2\",\"max_input_tokens\":1e18,\"max_tokens\":-5,\"capabilities\":{"
	    "\"effort\":{\"supported\":true,\"h i\":{\"supported\":true},"
	    "\"x\\\"}\":{\"supported\":true},\"ok\":{\"supported\":true}}}}");
	T_EQ_INT(modelcat_parse_anthropic(j, &c), 0);
	T_EQ_INT(c.window, 128000);
	T_EQ_INT(c.max_output, 0);
	T_EQ_INT(c.neffort, 1);
	T_EQ_STR(c.effort[0], "ok");
	model_caps_release(&c);
	cJSON_Delete(j);
	/* Not an object, no id: nothing learned. */
	j = parse("[1]");
	T_EQ_INT(modelcat_parse_anthropic(j, &c), -1);
	cJSON_Delete(j);
	/* No capabilities: the limits alone, the table's kinds. */
	j = parse("{\"id\":\"claude-haiku-4-9\",\"max_input_tokens\":50000,\"max_tokens\":null}");
	T_EQ_INT(modelcat_parse_anthropic(j, &c), 0);
	T_EQ_INT(c.window, 50000);
	T_EQ_INT(c.max_output, 64000);
	model_caps_release(&c);
	cJSON_Delete(j);
}

T_TEST(local_servers)
{
	struct model_caps c;
	cJSON *j;

	model_builtin("m", &c);
	j = parse("{\"object\":\"list\",\"data\":[{\"id\":\"other\",\"max_model_len\":5},"
	    "{\"id\":\"m\",\"max_model_len\":32768}]}");
	T_EQ_INT(modelcat_parse_openai_models(j, "m", &c), 0);
	T_EQ_INT(c.window, 32768);
	T_EQ_INT(modelcat_parse_openai_models(j, "absent", &c), -1);
	cJSON_Delete(j);
	j = parse("{\"default_generation_settings\":{\"n_ctx\":4096}}");
	T_EQ_INT(modelcat_parse_llamacpp_props(j, &c), 0);
	T_EQ_INT(c.window, 4096);
	cJSON_Delete(j);
	j = parse("{\"models\":[{\"name\":\"coder:latest\",\"context_length\":16384}]}");
	T_EQ_INT(modelcat_parse_ollama_ps(j, "coder", &c), 0);
	T_EQ_INT(c.window, 16384);
	T_EQ_INT(modelcat_parse_ollama_ps(j, "coder:7b", &c), -1);
	cJSON_Delete(j);
	j = parse("{\"parameters\":\"stop x\\nnum_ctx 12000\",\"model_info\":{\"qwen2.context_length\":32768}}");
	T_EQ_INT(modelcat_parse_ollama_show(j, &c), 0);
	T_EQ_INT(c.window, 12000);
	cJSON_Delete(j);
	/* Only the trained length: the server's default context bounds it. */
	j = parse("{\"model_info\":{\"qwen2.context_length\":32768}}");
	T_EQ_INT(modelcat_parse_ollama_show(j, &c), 0);
	T_EQ_INT(c.window, 4096);
	cJSON_Delete(j);
	model_caps_release(&c);
}

T_TEST(param_setting)
{
	T_EQ_STR(modelcat_param_setting("thinking.type.enabled is not supported"), "thinking");
	T_EQ_STR(modelcat_param_setting("output_config.effort: \"max\" is not supported"), "effort");
	T_EQ_STR(modelcat_param_setting("max_tokens: 300000 > 128000"), "max_tokens");
	T_OK(modelcat_param_setting("messages: roles must alternate") == NULL);
	T_OK(modelcat_param_setting(NULL) == NULL);
}

T_TEST(caps_json_round_trip)
{
	struct model_caps a, b;
	cJSON *j;

	model_builtin("claude-opus-5-1", &a);
	a.calib = 1.3;
	a.fetched_at = 1234;
	j = model_caps_to_json(&a);
	T_EQ_INT(model_caps_from_json(j, &b), 0);
	T_EQ_STR(b.id, a.id);
	T_EQ_INT(b.window, a.window);
	T_EQ_INT(b.thinking, a.thinking);
	T_EQ_INT(b.neffort, a.neffort);
	T_OK(b.calib > 1.29 && b.calib < 1.31);
	T_EQ_INT(b.fetched_at, 1234);
	T_EQ_INT(b.source, MODEL_CACHE);
	cJSON_Delete(j);
	model_caps_release(&a);
	model_caps_release(&b);
	j = parse("{\"window\":5}");
	T_EQ_INT(model_caps_from_json(j, &b), -1);
	cJSON_Delete(j);
}

static char *
write_tmp(const char *text)
{
	char *path = strdup("/tmp/tandem-prices.XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		exit(1);
	close(fd);
	return path;
}

T_TEST(prices)
{
	struct buf err = BUF_INIT(4096);
	char *path = write_tmp("{\"checked\":\"2026-01-02\",\"models\":["
	    "{\"match\":\"fam-*\",\"input\":1,\"output\":2,\"cache_write_5m\":1.25,\"cache_read\":0.1},"
	    "{\"match\":\"fam-big*\",\"input\":4,\"output\":20,\"cache_write_5m\":5,\"cache_write_1h\":8,"
	    "\"cache_read\":0.4,\"long_context\":{\"above\":200000,\"input\":8}}]}");
	cJSON *over = parse("{\"fam-small\":{\"input\":0.5,\"output\":1}}");
	struct prices *p = prices_load(path, over, &err);
	struct usage u = { 100000, 10000, 0, 0 };
	const struct price_entry *e;

	T_OK(p != NULL);
	T_EQ_STR(p->checked, "2026-01-02");
	e = prices_find(p, "fam-big-2");
	T_OK(e != NULL && strcmp(e->match, "fam-big*") == 0);
	T_OK(prices_cost(e, &u, false) > 0.5999 && prices_cost(e, &u, false) < 0.6001);
	/* Cache writes: the 5-minute or the 1-hour price. */
	u.input = 0;
	u.output = 0;
	u.cache_write = 1000000;
	T_OK(prices_cost(e, &u, false) > 4.999 && prices_cost(e, &u, false) < 5.001);
	T_OK(prices_cost(e, &u, true) > 7.999 && prices_cost(e, &u, true) < 8.001);
	/* Above the tier's threshold, its input price (the rest as the base). */
	u.cache_write = 0;
	u.input = 300000;
	T_OK(prices_cost(e, &u, false) > 2.399 && prices_cost(e, &u, false) < 2.401);
	/* A settings override wins over the family; one cache price serves both lifetimes. */
	e = prices_find(p, "fam-small");
	T_OK(e != NULL && e->base.input == 0.5);
	e = prices_find(p, "fam-x");
	T_OK(e != NULL && e->base.cache_write_1h == 1.25);
	T_OK(prices_find(p, "other") == NULL);
	T_OK(prices_cost(NULL, &u, false) == 0);
	prices_free(p);
	unlink(path);
	free(path);
	cJSON_Delete(over);
	/* Malformed: a sentence naming the file and where. */
	path = write_tmp("{\"models\": [1, ");
	buf_reset(&err);
	T_OK(prices_load(path, NULL, &err) == NULL);
	T_OK(strstr(buf_cstr(&err), path) != NULL && strstr(buf_cstr(&err), "price file") != NULL);
	unlink(path);
	free(path);
	/* Missing: an empty table. */
	p = prices_load("/nonexistent/prices.json", NULL, &err);
	T_OK(p != NULL && p->n == 0);
	prices_free(p);
	buf_release(&err);
}

static bool
near(double a, double b)
{
	return a > b - 1e-9 && a < b + 1e-9;
}

/* A cache break's price: writing the dropped tokens again less reading them. */
T_TEST(break_price)
{
	struct buf err = BUF_INIT(4096);
	char *path = write_tmp("{\"models\":["
	    "{\"match\":\"fam-big*\",\"input\":4,\"output\":20,\"cache_write_5m\":5,\"cache_write_1h\":8,"
	    "\"cache_read\":0.4,\"long_context\":{\"above\":200000,\"input\":8,\"cache_write_5m\":10,"
	    "\"cache_read\":0.8}},"
	    "{\"match\":\"fam-plain\",\"input\":0.5,\"output\":1}]}");
	struct prices *p = prices_load(path, NULL, &err);
	const struct price_entry *e = prices_find(p, "fam-big-2");

	T_OK(e != NULL);
	/* 1M tokens: $5 to write again, $0.40 to read: $4.60. */
	T_OK(near(prices_break_cost(e, 1000000, 1000, false), 4.6));
	/* The 1-hour cache's write price. */
	T_OK(near(prices_break_cost(e, 1000000, 1000, true), 7.6));
	/* A long-context request prices at its tier. */
	T_OK(near(prices_break_cost(e, 500000, 300000, false), 0.5 * (10 - 0.8)));
	/* No cache-write price and no read price: the input price. */
	T_OK(near(prices_break_cost(prices_find(p, "fam-plain"), 2000000, 10, false), 1.0));
	T_OK(near(prices_break_cost(e, 0, 10, false), 0));
	/* No entry: unknown. */
	T_OK(prices_break_cost(NULL, 1000, 10, false) < 0);
	prices_free(p);
	unlink(path);
	free(path);
	buf_release(&err);
}

T_TEST(the_installed_price_file_parses)
{
	struct buf err = BUF_INIT(4096);
	struct prices *p = prices_load(TANDEM_SRCDIR "/data/prices.json", NULL, &err);

	T_OK(p != NULL && p->n > 5);
	T_OK(p != NULL && p->checked != NULL && p->checked[0] == '2');
	prices_free(p);
	buf_release(&err);
}

T_TEST(format)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	struct model_caps c;
	cJSON *list = cJSON_CreateArray();

	model_builtin("claude-opus-5-x", &c);
	cJSON_AddItemToArray(list, model_caps_to_json(&c));
	model_caps_release(&c);
	modelcat_format(list, NULL, "claude-opus-5-x", &out);
	T_OK(strstr(buf_cstr(&out), "* claude-opus-5-x") != NULL);
	T_OK(strstr(buf_cstr(&out), "1M") != NULL && strstr(buf_cstr(&out), "128K") != NULL);
	cJSON_Delete(list);
	buf_release(&out);
}

int
main(void)
{
	T_RUN(builtin_table_fallback);
	T_RUN(anthropic_model_info);
	T_RUN(local_servers);
	T_RUN(param_setting);
	T_RUN(caps_json_round_trip);
	T_RUN(prices);
	T_RUN(break_price);
	T_RUN(the_installed_price_file_parses);
	T_RUN(format);
	return t_done();
}
