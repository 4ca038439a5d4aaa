/* The compaction stages: see compact.h. */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "compact.h"
#include "image.h"
#include "json.h"
#include "utf8.h"
#include "xalloc.h"

/* Digest lists: items shown per list, bytes per item. */
#define CM_LIST_MAX	40
#define CM_PROMPT_MAX	600
#define CM_ITEM_MAX	160
/* Summary transcript: bytes kept of each kind of piece. */
#define CM_TEXT_MAX	4000
#define CM_INPUT_MAX	600
#define CM_RESULT_MAX	1500

static const char *const cm_stage_names[] = { "none", "micro", "collapse", "summary" };

/* The read-only tools whose results can be fetched again by calling them. */
static const char *const cm_refetchable[] = { "read_file", "grep", "glob", "list_dir" };

static const char cm_ack_text[] =
    "Understood: that is the earlier part of this session. I will continue from here.";

static const char cm_digest_head[] = "Earlier in this session (collapsed):";

static const char cm_summary_head[] =
    "Summary of the earlier part of this session (the conversation was compacted):\n\n";

static const char cm_system[] =
    "You summarise the earlier part of a coding session between a developer and "
    "tandem, a coding agent, so that the agent can continue the work from your "
    "summary alone. Write plain text with short sections and lists. Keep: what the "
    "developer asked for and every constraint or preference they stated; decisions "
    "taken and why; the files read and the files changed, by path, and what changed "
    "in them; the commands run and what they showed (failures especially); errors "
    "still open; and what was being done at the end. Keep exact names, paths, "
    "identifiers and numbers. Leave out file contents that can be read again. Do "
    "not invent anything and do not address the developer.";

const char *
compact_stage_name(enum compact_stage s)
{
	return (unsigned)s <= COMPACT_SUMMARY ? cm_stage_names[s] : "none";
}

const char *
compact_summary_system(void)
{
	return cm_system;
}

/* --- sizes ---------------------------------------------------------------- */

static int64_t
cm_str_bytes(const char *s)
{
	int64_t n = 2;

	if (s == NULL)
		return n;
	for (; *s != '\0'; s++)
		n += *s == '"' || *s == '\\' || *s == '\n' || *s == '\t' || *s == '\r' ? 2 : 1;
	return n;
}

/* The bytes of j as compact JSON, without "_" keys, without printing it. */
static int64_t
cm_json_bytes(const cJSON *j)
{
	const cJSON *c;
	char num[64];
	int64_t n = 2;
	int k = 0, w;

	if (j == NULL)
		return 0;
	if (cJSON_IsString(j))
		return cm_str_bytes(j->valuestring);
	if (cJSON_IsNumber(j)) {
		w = snprintf(num, sizeof num, "%.15g", j->valuedouble);
		return w > 0 ? w : 1;
	}
	if (cJSON_IsTrue(j) || cJSON_IsNull(j))
		return 4;
	if (cJSON_IsFalse(j))
		return 5;
	if (cJSON_IsRaw(j))
		return j->valuestring != NULL ? (int64_t)strlen(j->valuestring) : 0;
	cJSON_ArrayForEach(c, j) {
		if (cJSON_IsObject(j)) {
			/* An image costs its pixels (image.h), not its name: 4 bytes a token here. */
			if (c->string != NULL && strcmp(c->string, "_tokens") == 0 && cJSON_IsNumber(c))
				n += (int64_t)c->valuedouble * 4;
			if (c->string != NULL && c->string[0] == '_')
				continue;
			n += cm_str_bytes(c->string) + 1;
		}
		n += cm_json_bytes(c) + (k++ > 0);
	}
	return n;
}

int64_t
compact_estimate_bytes(const char *system, const cJSON *tools, int64_t message_bytes)
{
	int64_t bytes = (system != NULL ? (int64_t)strlen(system) : 0) +
	    cm_json_bytes(tools) + message_bytes;

	return (bytes + 3) / 4;
}

int64_t
compact_estimate(const char *system, const cJSON *tools, const cJSON *messages)
{
	return compact_estimate_bytes(system, tools, cm_json_bytes(messages));
}

int64_t
compact_message_bytes(const cJSON *message)
{
	return cm_json_bytes(message);
}

enum compact_stage
compact_plan(int64_t tokens, int64_t window, const struct compact_thresholds *th)
{
	static const struct compact_thresholds def = {
		COMPACT_MICRO_DEFAULT, COMPACT_COLLAPSE_DEFAULT, COMPACT_SUMMARY_DEFAULT
	};
	double f;

	if (th == NULL)
		th = &def;
	if (window <= 0 || tokens <= 0)
		return COMPACT_NONE;
	f = (double)tokens / (double)window;
	if (th->summary > 0 && f >= th->summary)
		return COMPACT_SUMMARY;
	if (th->collapse > 0 && f >= th->collapse)
		return COMPACT_COLLAPSE;
	if (th->micro > 0 && f >= th->micro)
		return COMPACT_MICRO;
	return COMPACT_NONE;
}

/* --- message helpers -------------------------------------------------------- */

static bool
cm_role_is(const cJSON *m, const char *role)
{
	return strcmp(json_str(m, "role", ""), role) == 0;
}

static bool
cm_type_is(const cJSON *b, const char *type)
{
	return strcmp(json_str(b, "type", ""), type) == 0;
}

/* The content blocks of m, or NULL when content is not an array. */
static cJSON *
cm_blocks(const cJSON *m)
{
	cJSON *c = json_get(m, "content");

	return cJSON_IsArray(c) ? c : NULL;
}

static bool
cm_has_block(const cJSON *m, const char *type)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, cm_blocks(m))
		if (cm_type_is(b, type))
			return true;
	return false;
}

/* A user message that answers no tool: a turn can start there. */
static bool
cm_is_prompt(const cJSON *m)
{
	return cm_role_is(m, "user") && !cm_has_block(m, "tool_result");
}

static bool
cm_is_assistant(const cJSON *m)
{
	return cm_role_is(m, "assistant");
}

/* The messages as a vector (caller frees), for walking back and forth. */
static cJSON **
cm_vector(const cJSON *messages, int *n)
{
	int count = cJSON_IsArray(messages) ? cJSON_GetArraySize(messages) : 0, i = 0;
	cJSON **v = xcalloc((size_t)count + 1, sizeof *v), *m;

	if (count > 0)
		cJSON_ArrayForEach(m, messages)
			v[i++] = m;
	*n = i;
	return v;
}

static bool
cm_text_starts(const cJSON *m, const char *prefix)
{
	const char *t = json_str(cJSON_GetArrayItem(cm_blocks(m), 0), "text", "");

	return strncmp(t, prefix, strlen(prefix)) == 0;
}

/*
 * A message an earlier compaction made: marked, or, when the mark was lost
 * (a log replayed without "_" keys), known by its words.
 */
static bool
cm_is_compact(const cJSON *m)
{
	if (json_get(m, "_compact") != NULL)
		return true;
	if (cm_role_is(m, "user"))
		return cm_text_starts(m, cm_digest_head) || cm_text_starts(m, cm_summary_head);
	return cm_text_starts(m, cm_ack_text);
}

/* How many leading messages an earlier compaction made (its digest and ack). */
static int
cm_prior(cJSON *const *v, int n)
{
	int k = 0;

	while (k < n && k < 2 && cm_is_compact(v[k]))
		k++;
	return k;
}

/*
 * Where the kept part starts: at the keep-th newest turn, or with keep 0
 * at the COMPACT_KEEP_ROUNDS-th newest model call; never at or before
 * what an earlier compaction made.  0: nothing to take out.
 */
static int
cm_cut(cJSON *const *v, int n, int keep)
{
	bool (*match)(const cJSON *) = keep > 0 ? cm_is_prompt : cm_is_assistant;
	int want = keep > 0 ? keep : COMPACT_KEEP_ROUNDS, prior = cm_prior(v, n), seen = 0, i;

	for (i = n - 1; i > prior; i--)
		if (match(v[i]) && ++seen == want)
			return i;
	return 0;
}

/* The text blocks of m joined by newlines, appended to out. */
static void
cm_message_text(const cJSON *m, struct buf *out)
{
	const cJSON *c = json_get(m, "content"), *b;
	const char *sep = "";

	if (cJSON_IsString(c)) {
		buf_puts(out, c->valuestring);
		return;
	}
	cJSON_ArrayForEach(b, cm_blocks(m)) {
		if (!cm_type_is(b, "text"))
			continue;
		buf_printf(out, "%s%s", sep, json_str(b, "text", ""));
		sep = "\n";
	}
}

/* {"role": role, "content": [{"type": "text", "text": text}]} */
static cJSON *
cm_text_message(const char *role, const char *text)
{
	cJSON *m = cJSON_CreateObject(), *content = cJSON_CreateArray(), *b = cJSON_CreateObject();

	if (m == NULL || content == NULL || b == NULL)
		fatal("out of memory");
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddItemToObject(m, "content", content);
	return m;
}

/* A message made by compaction: marked with its kind, in turn. */
static cJSON *
cm_new_message(const char *role, const char *text, int64_t turn, const char *kind)
{
	cJSON *m = cm_text_message(role, text);

	cJSON_AddNumberToObject(m, "_turn", (double)turn);
	cJSON_AddStringToObject(m, "_compact", kind);
	return m;
}

/*
 * Replace v[0..cut) with a user message of text and, when the kept part
 * starts with a user message, an assistant acknowledgement.
 */
static int
cm_replace(cJSON *messages, cJSON *const *v, int cut, const char *text, const char *kind,
    struct compact_stats *st)
{
	int64_t turn = json_int(v[cut - 1], "_turn", 0), before = 0, after;
	bool ack = cm_role_is(v[cut], "user");
	cJSON *m;
	int i;

	for (i = 0; i < cut; i++)
		before += cm_json_bytes(v[i]) + 1;
	for (i = 0; i < cut; i++)
		cJSON_DeleteItemFromArray(messages, 0);
	/* Both go in at the front: Debian's cJSON 1.7.15 fails to insert anywhere else. */
	after = 0;
	if (ack) {
		m = cm_new_message("assistant", cm_ack_text, turn, kind);
		after += cm_json_bytes(m) + 1;
		cJSON_InsertItemInArray(messages, 0, m);
	}
	m = cm_new_message("user", text, turn, kind);
	after += cm_json_bytes(m) + 1;
	cJSON_InsertItemInArray(messages, 0, m);
	if (st != NULL) {
		st->messages_replaced += cut;
		st->bytes_saved += before - after;
	}
	return cut;
}

/* Append s, cut to at most max bytes on a character boundary, with a note. */
static void
cm_clip(struct buf *out, const char *s, size_t max)
{
	size_t n = strlen(s), k;

	if (n <= max) {
		buf_append(out, s, n);
		return;
	}
	k = utf8_floor(s, max);
	buf_append(out, s, k);
	buf_printf(out, " [... %zu more bytes]", n - k);
}

/* --- micro ------------------------------------------------------------------ */

static bool
cm_is_refetchable(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof cm_refetchable / sizeof cm_refetchable[0]; i++)
		if (strcmp(name, cm_refetchable[i]) == 0)
			return true;
	return false;
}

/* The name of the tool_use id in the assistant message use, or "". */
static const char *
cm_tool_name(const cJSON *use, const char *id)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, cm_blocks(use))
		if (cm_type_is(b, "tool_use") && strcmp(json_str(b, "id", ""), id) == 0)
			return json_str(b, "name", "");
	return "";
}

/* Elide (or, when !apply, count) the refetchable results in res answering use. */
static int
cm_micro_results(const cJSON *use, cJSON *res, bool apply, struct compact_stats *st)
{
	struct buf ph = BUF_INIT(BUF_NOLIMIT);
	cJSON *b;
	int n = 0;

	cJSON_ArrayForEach(b, cm_blocks(res)) {
		const char *name;
		cJSON *content;
		int64_t old, neu;

		if (!cm_type_is(b, "tool_result"))
			continue;
		name = cm_tool_name(use, json_str(b, "tool_use_id", ""));
		if (!cm_is_refetchable(name))
			continue;
		buf_reset(&ph);
		buf_printf(&ph, "[result elided to save context; call %s again if needed]", name);
		content = json_get(b, "content");
		old = cm_json_bytes(content);
		neu = cm_str_bytes(buf_cstr(&ph));
		if (old <= neu)
			continue;
		if (apply)
			cJSON_ReplaceItemInObjectCaseSensitive(b, "content",
			    cJSON_CreateString(buf_cstr(&ph)));
		if (st != NULL) {
			st->results_elided++;
			st->bytes_saved += old - neu;
		}
		n++;
	}
	buf_release(&ph);
	return n;
}

static int
cm_micro(cJSON *messages, int keep, bool apply, struct compact_stats *st)
{
	const cJSON *use = NULL;
	cJSON *m;
	int rounds = 0, r = 0, n = 0;

	if (!cJSON_IsArray(messages))
		return 0;
	cJSON_ArrayForEach(m, messages)
		if (cm_is_assistant(m) && cm_has_block(m, "tool_use"))
			rounds++;
	if (keep < 0)
		keep = 0;
	cJSON_ArrayForEach(m, messages) {
		if (cm_is_assistant(m) && cm_has_block(m, "tool_use")) {
			r++;
			use = m;
			continue;
		}
		if (use != NULL && cm_role_is(m, "user") && r <= rounds - keep)
			n += cm_micro_results(use, m, apply, st);
		use = NULL;
	}
	return n;
}

int
compact_micro(cJSON *messages, int keep_recent, struct compact_stats *st)
{
	/* Old images become placeholders too (lib/image.c). */
	image_elide(messages, keep_recent);
	return cm_micro(messages, keep_recent, true, st);
}

/* --- collapse --------------------------------------------------------------- */

struct cm_digest {
	cJSON	*prompts;
	cJSON	*read;
	cJSON	*changed;
	cJSON	*commands;
};

/* Add s (its first line when oneline, cut to max bytes) to the set list. */
static void
cm_list_add(cJSON *list, const char *s, size_t max, bool oneline)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT);
	const cJSON *it;
	char *p;

	while (*s == ' ' || *s == '\n' || *s == '\t')
		s++;
	if (*s == '\0')
		return;
	cm_clip(&t, s, max);
	for (p = t.data; p != NULL && *p != '\0'; p++) {
		if (*p == '\n' && oneline) {
			buf_truncate(&t, (size_t)(p - t.data));
			buf_puts(&t, " ...");
			break;
		}
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	}
	cJSON_ArrayForEach(it, list) {
		if (strcmp(it->valuestring, buf_cstr(&t)) == 0) {
			buf_release(&t);
			return;
		}
	}
	cJSON_AddItemToArray(list, cJSON_CreateString(buf_cstr(&t)));
	buf_release(&t);
}

/* The paths of a unified diff's file headers, without a/ b/ prefixes. */
static void
cm_patch_paths(cJSON *list, const char *patch)
{
	const char *line = patch;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t n = end != NULL ? (size_t)(end - line) : strlen(line);

		if (n > 4 && (strncmp(line, "+++ ", 4) == 0 || strncmp(line, "--- ", 4) == 0)) {
			char *path = xstrndup(line + 4, n - 4);

			path[strcspn(path, "\t\r")] = '\0';
			if (strcmp(path, "/dev/null") != 0)
				cm_list_add(list, strncmp(path, "a/", 2) == 0 ||
				    strncmp(path, "b/", 2) == 0 ? path + 2 : path, CM_ITEM_MAX, true);
			free(path);
		}
		line = end != NULL ? end + 1 : NULL;
	}
}

static void
cm_digest_tool(struct cm_digest *d, const cJSON *use)
{
	const char *name = json_str(use, "name", "");
	const cJSON *in = json_get(use, "input");

	if (strcmp(name, "read_file") == 0)
		cm_list_add(d->read, json_str(in, "path", ""), CM_ITEM_MAX, true);
	else if (strcmp(name, "edit_file") == 0 || strcmp(name, "write_file") == 0)
		cm_list_add(d->changed, json_str(in, "path", ""), CM_ITEM_MAX, true);
	else if (strcmp(name, "apply_patch") == 0)
		cm_patch_paths(d->changed, json_str(in, "patch", ""));
	else if (strcmp(name, "run_bash") == 0)
		cm_list_add(d->commands, json_str(in, "command", ""), CM_ITEM_MAX, true);
}

static void
cm_digest_message(struct cm_digest *d, const cJSON *m)
{
	const cJSON *b;
	bool user = cm_role_is(m, "user");

	if (cJSON_IsString(json_get(m, "content")) && user) {
		cm_list_add(d->prompts, json_get(m, "content")->valuestring, CM_PROMPT_MAX, false);
		return;
	}
	cJSON_ArrayForEach(b, cm_blocks(m)) {
		if (user && cm_type_is(b, "text"))
			cm_list_add(d->prompts, json_str(b, "text", ""), CM_PROMPT_MAX, false);
		else if (!user && cm_type_is(b, "tool_use"))
			cm_digest_tool(d, b);
	}
}

static void
cm_list_put(struct buf *out, const char *label, const cJSON *list, const char *open,
    const char *close, const char *sep)
{
	const cJSON *it;
	int n = cJSON_GetArraySize(list), i = 0;

	buf_printf(out, "\n%s: ", label);
	if (n == 0) {
		buf_puts(out, "none");
		return;
	}
	cJSON_ArrayForEach(it, list) {
		if (i == CM_LIST_MAX) {
			buf_printf(out, "%s(and %d more)", sep, n - i);
			break;
		}
		buf_printf(out, "%s%s%s%s", i > 0 ? sep : "", open, it->valuestring, close);
		i++;
	}
}

/* The digest of v[prior..cut), after the text of an earlier one if any. */
static char *
cm_digest_text(cJSON *const *v, int prior, int cut)
{
	struct cm_digest d;
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	int i;

	d.prompts = cJSON_CreateArray();
	d.read = cJSON_CreateArray();
	d.changed = cJSON_CreateArray();
	d.commands = cJSON_CreateArray();
	for (i = prior; i < cut; i++)
		cm_digest_message(&d, v[i]);
	if (prior > 0) {
		cm_message_text(v[0], &out);
		buf_puts(&out, "\n\nAfter that (collapsed):");
	} else {
		buf_puts(&out, cm_digest_head);
	}
	cm_list_put(&out, "prompts", d.prompts, "\"", "\"", "; ");
	cm_list_put(&out, "files read", d.read, "", "", ", ");
	cm_list_put(&out, "files changed", d.changed, "", "", ", ");
	cm_list_put(&out, "commands run", d.commands, "`", "`", "; ");
	cJSON_Delete(d.prompts);
	cJSON_Delete(d.read);
	cJSON_Delete(d.changed);
	cJSON_Delete(d.commands);
	return buf_detach(&out, NULL);
}

int
compact_collapse(cJSON *messages, int keep_recent_turns, struct compact_stats *st)
{
	int n, cut, rc = 0;
	cJSON **v = cm_vector(messages, &n);
	char *text;

	cut = cm_cut(v, n, keep_recent_turns);
	if (cut > 0) {
		text = cm_digest_text(v, cm_prior(v, n), cut);
		rc = cm_replace(messages, v, cut, text, "collapse", st);
		free(text);
	}
	free(v);
	return rc;
}

/* --- summary ---------------------------------------------------------------- */

static void
cm_render_result(struct buf *out, const cJSON *use, const cJSON *b)
{
	const cJSON *c = json_get(b, "content"), *x;
	struct buf t = BUF_INIT(BUF_NOLIMIT);
	const char *name = use != NULL ? cm_tool_name(use, json_str(b, "tool_use_id", "")) : "";

	if (cJSON_IsString(c))
		buf_puts(&t, c->valuestring);
	else
		cJSON_ArrayForEach(x, c)
			buf_puts(&t, json_str(x, "text", ""));
	buf_printf(out, "Result of %s%s: ", name[0] != '\0' ? name : "a tool call",
	    json_bool(b, "is_error", false) ? " (error)" : "");
	cm_clip(out, buf_cstr(&t), CM_RESULT_MAX);
	buf_puts(out, "\n\n");
	buf_release(&t);
}

static void
cm_render_block(struct buf *out, const cJSON *m, const cJSON *use, const cJSON *b)
{
	bool user = cm_role_is(m, "user");

	if (cm_type_is(b, "text")) {
		buf_puts(out, user ? "User: " : "Assistant: ");
		cm_clip(out, json_str(b, "text", ""), CM_TEXT_MAX);
		buf_puts(out, "\n\n");
	} else if (cm_type_is(b, "tool_use")) {
		const cJSON *input = json_get(b, "input");
		char *in = input != NULL ? json_print(input) : xstrdup("{}");

		buf_printf(out, "Assistant called %s ", json_str(b, "name", ""));
		cm_clip(out, in, CM_INPUT_MAX);
		buf_puts(out, "\n\n");
		free(in);
	} else if (cm_type_is(b, "tool_result")) {
		cm_render_result(out, use, b);
	}
}

/* v[0..cut) as plain text: what a person would read of it; prior: see cm_prior. */
static void
cm_render(struct buf *out, cJSON *const *v, int prior, int cut)
{
	const cJSON *b, *c, *use = NULL;
	int i;

	for (i = 0; i < cut; i++) {
		c = json_get(v[i], "content");
		if (i < prior) {
			if (cm_role_is(v[i], "user")) {
				buf_puts(out, "(Earlier context)\n");
				cm_message_text(v[i], out);
				buf_puts(out, "\n\n");
			}
		} else if (cJSON_IsString(c)) {
			buf_printf(out, "%s: ", cm_role_is(v[i], "user") ? "User" : "Assistant");
			cm_clip(out, c->valuestring, CM_TEXT_MAX);
			buf_puts(out, "\n\n");
		} else {
			cJSON_ArrayForEach(b, cm_blocks(v[i]))
				cm_render_block(out, v[i], use, b);
		}
		use = cm_is_assistant(v[i]) ? v[i] : NULL;
	}
}

/* Cut the middle out of t so that it fits max bytes, keeping both ends. */
static void
cm_fit(struct buf *t, size_t max)
{
	struct buf r = BUF_INIT(BUF_NOLIMIT);
	size_t head, tail, note = 64;

	if (max == 0 || t->len <= max)
		return;
	if (max <= note * 2) {
		buf_truncate(t, utf8_floor(t->data, max));
		return;
	}
	head = utf8_floor(t->data, (max - note) / 4);
	tail = t->len - (max - note - head);
	while (tail < t->len && ((unsigned char)t->data[tail] & 0xC0) == 0x80)
		tail++;
	buf_append(&r, t->data, head);
	buf_printf(&r, "\n\n[... %zu bytes of the middle left out ...]\n\n", tail - head);
	buf_append(&r, t->data + tail, t->len - tail);
	buf_release(t);
	*t = r;
}

cJSON *
compact_summary_request(const cJSON *messages, int keep_recent_turns, const char *focus,
    size_t max_bytes)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT), msg = BUF_INIT(BUF_NOLIMIT);
	cJSON *out = NULL, **v;
	int n, cut;
	char *text;

	v = cm_vector(messages, &n);
	cut = cm_cut(v, n, keep_recent_turns);
	if (cut == 0)
		goto done;
	cm_render(&t, v, cm_prior(v, n), cut);
	cm_fit(&t, max_bytes);
	buf_puts(&msg, "Here is the earlier part of the session, as a transcript:\n\n"
	    "<transcript>\n");
	buf_append(&msg, t.data != NULL ? t.data : "", t.len);
	buf_puts(&msg, "</transcript>\n\nWrite the summary of this transcript now, as "
	    "the system prompt describes.");
	if (focus != NULL && focus[0] != '\0')
		buf_printf(&msg, " Pay particular attention to: %s", focus);
	text = buf_detach(&msg, NULL);
	out = cJSON_CreateArray();
	cJSON_AddItemToArray(out, cm_text_message("user", text));
	free(text);
done:
	buf_release(&t);
	buf_release(&msg);
	free(v);
	return out;
}

int
compact_apply_summary(cJSON *messages, int keep_recent_turns, const char *summary,
    struct compact_stats *st)
{
	struct buf t = BUF_INIT(BUF_NOLIMIT);
	int n, cut, rc = 0;
	cJSON **v;

	if (summary == NULL || summary[strspn(summary, " \t\r\n")] == '\0')
		return 0;
	v = cm_vector(messages, &n);
	cut = cm_cut(v, n, keep_recent_turns);
	if (cut > 0) {
		buf_puts(&t, cm_summary_head);
		buf_puts(&t, summary);
		rc = cm_replace(messages, v, cut, buf_cstr(&t), "summary", st);
	}
	buf_release(&t);
	free(v);
	return rc;
}

/* --- the automatic pipeline ------------------------------------------------- */

int
compact_summary_keep(const cJSON *messages)
{
	static const int keeps[] = { COMPACT_KEEP_TURNS, 1, 0 };
	int n, k = -1;
	size_t i;
	cJSON **v = cm_vector(messages, &n);

	for (i = 0; i < sizeof keeps / sizeof keeps[0] && k == -1; i++)
		if (cm_cut(v, n, keeps[i]) > 0)
			k = keeps[i];
	free(v);
	return k;
}

/* Collapse keeping keep turns when the estimate is still at stage. */
static void
cm_auto_collapse(cJSON *messages, const char *system, const cJSON *tools, int64_t window,
    const struct compact_thresholds *th, enum compact_stage stage, int keep,
    struct compact_outcome *o)
{
	if (compact_plan(o->tokens_after, window, th) < stage)
		return;
	if (compact_collapse(messages, keep, &o->stats) > 0) {
		o->stage = COMPACT_COLLAPSE;
		o->tokens_after = compact_estimate(system, tools, messages);
	}
}

void
compact_auto(cJSON *messages, const char *system, const cJSON *tools, int64_t window,
    const struct compact_thresholds *th, bool summaries, struct compact_outcome *o)
{
	compact_auto_at(messages, system, tools, window, th, summaries,
	    compact_estimate(system, tools, messages), o);
}

void
compact_auto_at(cJSON *messages, const char *system, const cJSON *tools, int64_t window,
    const struct compact_thresholds *th, bool summaries, int64_t tokens,
    struct compact_outcome *o)
{
	struct compact_stats dry = { 0, 0, 0 };
	enum compact_stage plan;

	memset(o, 0, sizeof *o);
	o->tokens_before = o->tokens_after = tokens;
	plan = compact_plan(o->tokens_before, window, th);
	if (plan >= COMPACT_MICRO && cm_micro(messages, COMPACT_KEEP_ROUNDS, false, &dry) > 0 &&
	    (dry.bytes_saved / 4 >= window / 10 || plan >= COMPACT_COLLAPSE)) {
		cm_micro(messages, COMPACT_KEEP_ROUNDS, true, &o->stats);
		o->stage = COMPACT_MICRO;
		o->tokens_after = compact_estimate(system, tools, messages);
	}
	cm_auto_collapse(messages, system, tools, window, th, COMPACT_COLLAPSE,
	    COMPACT_KEEP_TURNS, o);
	cm_auto_collapse(messages, system, tools, window, th, COMPACT_COLLAPSE, 1, o);
	if (compact_plan(o->tokens_after, window, th) < COMPACT_SUMMARY)
		return;
	if (summaries && compact_summary_keep(messages) >= 0) {
		o->need_summary = true;
		o->keep_turns = compact_summary_keep(messages);
	} else {
		cm_auto_collapse(messages, system, tools, window, th, COMPACT_SUMMARY, 0, o);
	}
}

void
compact_overflow(cJSON *messages, const char *system, const cJSON *tools,
    struct compact_outcome *o)
{
	memset(o, 0, sizeof *o);
	o->tokens_before = compact_estimate(system, tools, messages);
	if (compact_micro(messages, 1, &o->stats) > 0)
		o->stage = COMPACT_MICRO;
	if (compact_collapse(messages, 1, &o->stats) > 0 ||
	    compact_collapse(messages, 0, &o->stats) > 0)
		o->stage = COMPACT_COLLAPSE;
	o->tokens_after = compact_estimate(system, tools, messages);
}

bool
compact_is_overflow(long status, const char *type, const char *message)
{
	static const char *const words[] = {
		"prompt is too long", "context length", "context_length", "context window",
		"maximum context", "context size", "too many tokens", "request_too_large"
	};
	size_t i;

	if (status == 413)
		return true;
	if (status != 400 && status != 422)
		return false;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if ((type != NULL && strcasestr(type, words[i]) != NULL) ||
		    (message != NULL && strcasestr(message, words[i]) != NULL))
			return true;
	return false;
}
