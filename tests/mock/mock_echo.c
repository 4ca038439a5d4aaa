/* The mock model server: what the mock sent must come back (see mock_int.h). */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "mock/mock.h"
#include "mock/mock_int.h"
#include "sha256.h"
#include "xalloc.h"

/* ---------------------------------------------------------------------
 * What the mock sent must come back: tool calls with their results,
 * thinking blocks unchanged.
 */

/*
 * Every tool call id of the request's assistant messages, sorted by id then
 * message: one pass over a long conversation instead of one per id looked up.
 */
static struct call_ref *
call_index(const struct call *k, size_t *np)
{
	struct call_ref *v = NULL;
	size_t n = 0, cap = 0;
	const cJSON *msg, *b;
	int i = 0;

	cJSON_ArrayForEach(msg, json_get(k->body, "messages")) {
		const cJSON *list = json_get(msg, k->proto == P_OPENAI ? "tool_calls" : "content");

		if (!mock_str_eq(json_get(msg, "role"), "assistant") || !cJSON_IsArray(list))
			list = NULL;
		cJSON_ArrayForEach(b, list) {
			const char *id = json_str(b, "id", NULL);

			if (id == NULL || (k->proto == P_ANTHROPIC && !mock_str_eq(json_get(b, "type"), "tool_use")))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n].id = id;
			v[n].msg = msg;
			v[n++].at = i;
		}
		i++;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, mock_call_ref_cmp);
	*np = n;
	return v;
}

/* The index of the first assistant message that carries tool call id, or -1. */
static int
find_call_message(const struct call_ref *v, size_t n, const char *id, const cJSON **msgp)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(v[lo].id, id) != 0)
		return -1;
	*msgp = v[lo].msg;
	return v[lo].at;
}

/* The block (or OpenAI tool call) for id in an assistant message, and its position. */
static const cJSON *
find_call(const struct call *k, const cJSON *msg, const char *id, int *pos)
{
	const cJSON *b;
	int j = 0;

	cJSON_ArrayForEach(b, json_get(msg, k->proto == P_OPENAI ? "tool_calls" : "content")) {
		if (mock_str_eq(json_get(b, "id"), id) &&
		    (k->proto == P_OPENAI || mock_str_eq(json_get(b, "type"), "tool_use"))) {
			*pos = j;
			return b;
		}
		j++;
	}
	return NULL;
}

/* The input a client echoed: a tool_use's input, or a tool call's parsed arguments. */
static cJSON *
echoed_input(const struct call *k, const cJSON *call)
{
	const char *args;

	if (k->proto == P_ANTHROPIC)
		return cJSON_Duplicate(json_get(call, "input"), true);
	args = json_str(json_get(call, "function"), "arguments", NULL);
	if (args == NULL)
		return NULL;
	if (args[0] == '\0')
		return cJSON_CreateObject();
	return cJSON_Parse(args);
}

static void
check_sent_calls(struct call *k, const struct sent *s, const cJSON *msg, int i)
{
	const cJSON *t;
	int pos;

	cJSON_ArrayForEach(t, s->tools) {
		const char *id = json_str(t, "id", "");
		const cJSON *call = find_call(k, msg, id, &pos);
		const char *name;
		cJSON *input;

		if (call == NULL) {
			mock_problem(k, "messages.%d: the assistant message lacks tool call %s that the server "
			    "sent in reply to request %d", i, id, s->nreq);
			continue;
		}
		name = k->proto == P_OPENAI ? json_str(json_get(call, "function"), "name", "") :
		    json_str(call, "name", "");
		if (strcmp(name, json_str(t, "name", "")) != 0)
			mock_problem(k, "messages.%d: tool call %s was sent as \"%s\" but came back as \"%s\"",
			    i, id, json_str(t, "name", ""), name);
		input = echoed_input(k, call);
		if (!cJSON_Compare(input, json_get(t, "input"), true))
			mock_problem(k, "messages.%d.%s.%d: the input of %s differs from what the server sent",
			    i, k->proto == P_OPENAI ? "tool_calls" : "content", pos, id);
		cJSON_Delete(input);
	}
}

/* Thinking sent with tool calls must precede them in the echoed message, unchanged. */
static void
check_sent_thinking(struct call *k, const struct sent *s, const cJSON *msg, int i)
{
	const cJSON *b;
	bool thinking = false, redacted = false;
	int j = 0, first_tool = -1, at = -1;

	cJSON_ArrayForEach(b, json_get(msg, "content")) {
		const char *type = json_str(b, "type", "");

		if (strcmp(type, "tool_use") == 0 && first_tool < 0)
			first_tool = j;
		if (s->signature != NULL && strcmp(type, "thinking") == 0 &&
		    mock_str_eq(json_get(b, "signature"), s->signature) &&
		    mock_str_eq(json_get(b, "thinking"), s->thinking)) {
			thinking = true;
			at = j;
		}
		if (s->redacted != NULL && strcmp(type, "redacted_thinking") == 0 &&
		    mock_str_eq(json_get(b, "data"), s->redacted))
			redacted = true;
		j++;
	}
	if (s->signature != NULL && !thinking)
		mock_problem(k, "messages.%d: the thinking block sent in reply to request %d was not passed back "
		    "unchanged with its signature", i, s->nreq);
	else if (s->signature != NULL && first_tool >= 0 && at > first_tool)
		mock_problem(k, "messages.%d.content.%d: the thinking block must precede the tool_use blocks", i, at);
	if (s->redacted != NULL && !redacted)
		mock_problem(k, "messages.%d: the redacted_thinking block sent in reply to request %d was not "
		    "passed back unchanged", i, s->nreq);
}

void
mock_check_sent(struct call *k)
{
	struct mock *m = k->m;
	size_t i, nrefs;
	struct call_ref *refs = call_index(k, &nrefs);

	for (i = 0; i < m->nsent; i++) {
		struct sent *s = &m->sent[i];
		const cJSON *t, *msg = NULL;
		bool same = k->conv[0] != '\0' && strcmp(k->conv, s->conv) == 0;
		int at = -1;

		if (s->proto != k->proto)
			continue;
		cJSON_ArrayForEach(t, s->tools) {
			at = find_call_message(refs, nrefs, json_str(t, "id", ""), &msg);
			if (at >= 0)
				break;
		}
		if (at < 0) {
			if (same && !s->seen && m->check_echo) {
				char *list = mock_ids_join(s->tools);

				mock_problem(k, "the request does not carry the tool call(s) %s that the server sent in "
				    "reply to request %d: echo the assistant message and answer each with exactly "
				    "one %s", list, s->nreq,
				    k->proto == P_OPENAI ? "role \"tool\" message" : "tool_result block");
				free(list);
			}
			s->seen = s->seen || same;
			continue;
		}
		s->seen = true;
		check_sent_calls(k, s, msg, at);
		if (k->proto == P_ANTHROPIC)
			check_sent_thinking(k, s, msg, at);
	}
	free(refs);
}

/* Every thinking block whose signature the mock issued must carry its own text. */
void
mock_check_signatures(struct call *k)
{
	const cJSON *msg, *b;
	size_t s;
	int i = 0, j;

	cJSON_ArrayForEach(msg, json_get(k->body, "messages")) {
		j = 0;
		cJSON_ArrayForEach(b, (cJSON_IsArray(json_get(msg, "content")) ? json_get(msg, "content") : NULL)) {
			const char *sig = json_str(b, "signature", NULL);

			for (s = 0; sig != NULL && mock_str_eq(json_get(b, "type"), "thinking") &&
			    s < k->m->nsigs; s++) {
				if (strcmp(k->m->sigs[s].signature, sig) == 0 &&
				    !mock_str_eq(json_get(b, "thinking"), k->m->sigs[s].thinking))
					mock_problem(k, "messages.%d.content.%d: Invalid `signature` in `thinking` block "
					    "(the thinking text was changed)", i, j);
			}
			j++;
		}
		i++;
	}
}
