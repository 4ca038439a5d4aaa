/*
 * emit: the agent's event stream, one constructor per event.
 */
#include "autoconf.h"

#include "context/cachewatch.h"
#include "emit.h"
#include "event.h"
#include "json.h"
#include "model/stream.h"

void
emit_session(struct event_bus *bus, const char *id, const char *model, const char *provider,
    const char *cwd, bool resumed, const char *forked_from)
{
	cJSON *ev = event_new(bus, "session");

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "model", model);
	cJSON_AddStringToObject(ev, "provider", provider);
	cJSON_AddStringToObject(ev, "cwd", cwd);
	cJSON_AddBoolToObject(ev, "resumed", resumed);
	if (forked_from != NULL)
		cJSON_AddStringToObject(ev, "forked_from", forked_from);
	event_emit(bus, ev);
}

void
emit_session_unsaved(struct event_bus *bus, const char *message, const char *dir)
{
	cJSON *ev = event_new(bus, "session_unsaved");

	cJSON_AddStringToObject(ev, "message", message);
	cJSON_AddStringToObject(ev, "dir", dir);
	event_emit(bus, ev);
}

/* turn_start and turn_end: one string field and, when replayed, "replay". */
static void
emit_turn_edge(struct event_bus *bus, const char *type, const char *key, const char *value,
    bool replay)
{
	cJSON *ev = event_new(bus, type);

	cJSON_AddStringToObject(ev, key, value);
	if (replay)
		cJSON_AddBoolToObject(ev, "replay", 1);
	event_emit(bus, ev);
}

void
emit_turn_start(struct event_bus *bus, const char *prompt, bool replay)
{
	emit_turn_edge(bus, "turn_start", "prompt", prompt, replay);
}

void
emit_turn_end(struct event_bus *bus, const char *stop_reason, bool replay)
{
	emit_turn_edge(bus, "turn_end", "stop_reason", stop_reason, replay);
}

cJSON *
emit_usage_json(const struct usage *u)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "output_tokens", (double)u->output);
	cJSON_AddNumberToObject(o, "cache_creation_input_tokens", (double)u->cache_write);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->cache_read);
	return o;
}

void
emit_result(struct event_bus *bus, const char *text, size_t len, const char *stop_reason,
    bool is_error, int turns, const struct usage *totals, double cost, const char *session_id)
{
	cJSON *ev = event_new(bus, "result"), *u;

	json_add_str_n(ev, "text", text, len);
	cJSON_AddStringToObject(ev, "stop_reason", stop_reason);
	cJSON_AddBoolToObject(ev, "is_error", is_error);
	cJSON_AddNumberToObject(ev, "turns", turns);
	u = emit_usage_json(totals);
	cJSON_AddNumberToObject(u, "cost_usd", cost);
	cJSON_AddItemToObject(ev, "usage", u);
	cJSON_AddStringToObject(ev, "session_id", session_id);
	event_emit(bus, ev);
}

void
emit_text(struct event_bus *bus, const char *s, size_t n, bool replay)
{
	cJSON *ev = event_new(bus, "text");

	if (replay) {
		cJSON_AddStringToObject(ev, "text", s);
		cJSON_AddBoolToObject(ev, "replay", 1);
	} else {
		json_add_str_n(ev, "text", s, n);
	}
	event_emit(bus, ev);
}

void
emit_thinking(struct event_bus *bus, const char *s, size_t n)
{
	cJSON *ev = event_new(bus, "thinking");

	json_add_str_n(ev, "text", s, n);
	event_emit(bus, ev);
}

void
emit_tool_use(struct event_bus *bus, const char *id, const char *name, const cJSON *input,
    bool replay)
{
	cJSON *ev = event_new(bus, "tool_use");

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "name", name);
	cJSON_AddItemToObject(ev, "input", cJSON_Duplicate(input, 1));
	if (replay)
		cJSON_AddBoolToObject(ev, "replay", 1);
	event_emit(bus, ev);
}

void
emit_tool_progress(struct event_bus *bus, const char *id, const char *p, size_t n)
{
	cJSON *ev = event_new(bus, "tool_progress");

	cJSON_AddStringToObject(ev, "id", id);
	json_add_str_n(ev, "output", p, n);
	cJSON_AddNumberToObject(ev, "bytes", (double)n);
	event_emit(bus, ev);
}

void
emit_tool_result(struct event_bus *bus, const char *id, const char *name, bool is_error,
    const char *content, size_t len, int64_t duration_ms, bool denied, bool replay)
{
	cJSON *ev = event_new(bus, "tool_result");

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "name", name);
	cJSON_AddBoolToObject(ev, "is_error", is_error);
	if (replay)
		cJSON_AddStringToObject(ev, "content", content);
	else
		json_add_str_n(ev, "content", content, len);
	cJSON_AddNumberToObject(ev, "duration_ms", (double)duration_ms);
	if (denied)
		cJSON_AddBoolToObject(ev, "denied", 1);
	if (replay)
		cJSON_AddBoolToObject(ev, "replay", 1);
	event_emit(bus, ev);
}

void
emit_approval(struct event_bus *bus, const char *id, const char *decision, const char *by)
{
	cJSON *ev = event_new(bus, "approval");

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "decision", decision);
	cJSON_AddStringToObject(ev, "by", by);
	event_emit(bus, ev);
}

void
emit_approval_request(struct event_bus *bus, const char *id, const char *name,
    const cJSON *input, const char *preview, size_t preview_len, const char *cwd,
    const char *reason, char *const *always)
{
	cJSON *ev = event_new(bus, "approval_request"), *list;
	size_t i;

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "name", name);
	cJSON_AddItemToObject(ev, "input", cJSON_Duplicate(input, 1));
	json_add_str_n(ev, "preview", preview, preview_len);
	cJSON_AddStringToObject(ev, "cwd", cwd);
	cJSON_AddStringToObject(ev, "reason", reason);
	list = cJSON_AddArrayToObject(ev, "always");
	for (i = 0; always[i] != NULL; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(always[i]));
	event_emit(bus, ev);
}

void
emit_retry(struct event_bus *bus, int attempt, int64_t delay_ms, const char *reason)
{
	cJSON *ev = event_new(bus, "retry");

	cJSON_AddNumberToObject(ev, "attempt", attempt);
	cJSON_AddNumberToObject(ev, "delay_ms", (double)delay_ms);
	cJSON_AddStringToObject(ev, "reason", reason);
	event_emit(bus, ev);
}

void
emit_usage(struct event_bus *bus, const struct usage *u, double cost_usd)
{
	cJSON *ev = event_new(bus, "usage");

	cJSON_AddNumberToObject(ev, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(ev, "output_tokens", (double)u->output);
	cJSON_AddNumberToObject(ev, "cache_creation_input_tokens", (double)u->cache_write);
	cJSON_AddNumberToObject(ev, "cache_read_input_tokens", (double)u->cache_read);
	cJSON_AddNumberToObject(ev, "cost_usd", cost_usd);
	event_emit(bus, ev);
}

void
emit_context(struct event_bus *bus, int64_t tokens, int64_t window, const char *stage)
{
	cJSON *ev = event_new(bus, "context");

	cJSON_AddNumberToObject(ev, "tokens", (double)tokens);
	cJSON_AddNumberToObject(ev, "window", (double)window);
	cJSON_AddStringToObject(ev, "stage", stage);
	event_emit(bus, ev);
}

void
emit_cache_break(struct event_bus *bus, const struct cachewatch_break *br, const char *mcp_servers)
{
	cJSON *ev = event_new(bus, "cache_break");

	cachewatch_break_fields(br, ev);
	if (mcp_servers != NULL)
		cJSON_AddStringToObject(ev, "mcp_servers", mcp_servers);
	event_emit(bus, ev);
}

void
emit_compaction(struct event_bus *bus, const char *stage, int64_t before, int64_t after)
{
	cJSON *ev = event_new(bus, "compaction");

	cJSON_AddStringToObject(ev, "stage", stage);
	cJSON_AddNumberToObject(ev, "tokens_before", (double)before);
	cJSON_AddNumberToObject(ev, "tokens_after", (double)after);
	event_emit(bus, ev);
}

void
emit_compaction_done(struct event_bus *bus)
{
	event_emit(bus, event_new(bus, "compaction_done"));
}

void
emit_rewind(struct event_bus *bus, const char *what, int to_turn)
{
	cJSON *ev = event_new(bus, "rewind");

	cJSON_AddStringToObject(ev, "what", what);
	cJSON_AddNumberToObject(ev, "to_turn", to_turn);
	event_emit(bus, ev);
}

void
emit_lsp_status(struct event_bus *bus, const char *servers)
{
	cJSON *ev = event_new(bus, "lsp_status");

	cJSON_AddStringToObject(ev, "servers", servers);
	event_emit(bus, ev);
}

void
emit_mcp_status(struct event_bus *bus, int ready, int total)
{
	cJSON *ev = event_new(bus, "mcp_status");

	cJSON_AddNumberToObject(ev, "ready", ready);
	cJSON_AddNumberToObject(ev, "total", total);
	event_emit(bus, ev);
}
