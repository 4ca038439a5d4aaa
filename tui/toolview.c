/* The tools pane's model: see toolview.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "toolshow.h"
#include "toolview.h"
#include "xalloc.h"

#define TV_TAIL_MAX	8192
#define TV_SUMMARY_MAX	200

/* Which input says what a call does, per tool. */
static const struct tv_key {
	const char	*tool;
	const char	*key;
} tv_keys[] = {
	{ "read_file", "path" }, { "list_dir", "path" }, { "glob", "pattern" },
	{ "grep", "pattern" }, { "run_bash", "command" }, { "edit_file", "path" },
	{ "write_file", "path" }, { "apply_patch", "patch" },
	{ "web_fetch", "url" }, { "web_search", "query" },
};

static const char *const tv_names[] = {
	[TV_QUEUED] = "queued", [TV_WAITING] = "approve?", [TV_RUNNING] = "running",
	[TV_DONE] = "done", [TV_FAILED] = "failed", [TV_DENIED] = "denied",
	[TV_INTERRUPTED] = "interrupted",
};

const char *
tv_state_name(enum tv_state s)
{
	return tv_names[s];
}

void
tv_init(struct toolview *tv)
{
	memset(tv, 0, sizeof *tv);
}

void
tv_release(struct toolview *tv)
{
	size_t i;

	for (i = 0; i < tv->n; i++) {
		free(tv->v[i].id);
		free(tv->v[i].name);
		free(tv->v[i].summary);
		buf_release(&tv->v[i].out);
	}
	free(tv->v);
	tv_init(tv);
}

/* The first line of s, cut to TV_SUMMARY_MAX bytes on a character. */
static char *
tv_first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	if (n > TV_SUMMARY_MAX) {
		n = TV_SUMMARY_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return xstrndup(s, n);
}

/* read_file: its path, and the lines asked for ("a.c:10-49"). */
static char *
tv_read_range(const char *path, const cJSON *input)
{
	const cJSON *off = cJSON_GetObjectItemCaseSensitive(input, "offset");
	const cJSON *lim = cJSON_GetObjectItemCaseSensitive(input, "limit");
	char *first = tv_first_line(path);
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	long from = 1;

	if (cJSON_IsNumber(off) && off->valuedouble >= 1 && off->valuedouble < 1e9)
		from = (long)off->valuedouble;
	buf_puts(&b, first);
	free(first);
	/* A number past any file's length says nothing worth the room. */
	if (cJSON_IsNumber(lim) && lim->valuedouble >= 1 && lim->valuedouble < 1e9)
		buf_printf(&b, ":%ld-%ld", from, from + (long)lim->valuedouble - 1);
	else if (cJSON_IsNumber(off))
		buf_printf(&b, ":%ld-", from);
	return buf_detach(&b, NULL);
}

char *
tv_summary(const char *name, const cJSON *input)
{
	const cJSON *item;
	size_t i;

	for (i = 0; i < sizeof tv_keys / sizeof tv_keys[0]; i++) {
		const char *v;

		if (strcmp(tv_keys[i].tool, name) != 0)
			continue;
		v = json_str(input, tv_keys[i].key, NULL);
		if (v == NULL)
			break;
		if (strcmp(name, "apply_patch") == 0) {
			char *files = ts_patch_files(v);

			return files != NULL ? files : tv_first_line(v);
		}
		if (strcmp(name, "read_file") == 0)
			return tv_read_range(v, input);
		return tv_first_line(v);
	}
	/* Another tool: its first string input. */
	cJSON_ArrayForEach(item, input)
		if (cJSON_IsString(item))
			return tv_first_line(item->valuestring);
	return xstrdup("");
}

struct tv_entry *
tv_find(struct toolview *tv, const char *id)
{
	size_t i = tv->n;

	if (id == NULL)
		return NULL;
	while (i-- > 0)
		if (strcmp(tv->v[i].id, id) == 0)
			return &tv->v[i];
	return NULL;
}

void
tv_use(struct toolview *tv, const char *id, const char *name, const cJSON *input, int turn)
{
	struct tv_entry *e;

	if (tv->n == tv->cap) {
		tv->cap = tv->cap ? tv->cap * 2 : 16;
		tv->v = xreallocarray(tv->v, tv->cap, sizeof *tv->v);
	}
	e = &tv->v[tv->n++];
	memset(e, 0, sizeof *e);
	e->id = xstrdup(id ? id : "");
	e->name = xstrdup(name ? name : "tool");
	e->summary = tv_summary(e->name, input);
	e->state = TV_QUEUED;
	e->turn = turn;
	e->duration = -1;
	buf_init(&e->out, TV_TAIL_MAX * 2);
}

void
tv_waiting(struct toolview *tv, const char *id)
{
	struct tv_entry *e = tv_find(tv, id);

	if (e != NULL && e->state == TV_QUEUED)
		e->state = TV_WAITING;
}

void
tv_decided(struct toolview *tv, const char *id, const char *decision, int64_t now)
{
	struct tv_entry *e = tv_find(tv, id);

	if (e == NULL || e->state == TV_DONE || e->state == TV_FAILED)
		return;
	if (decision != NULL && strcmp(decision, "deny") == 0) {
		e->state = TV_DENIED;
		return;
	}
	/* A call is decided on when it is next to run: allowed, it starts now. */
	if (e->state == TV_WAITING || e->state == TV_QUEUED) {
		e->state = TV_RUNNING;
		e->started = now;
	}
}

/* Keep the last TV_TAIL_MAX bytes, cut at a line start; a lone \r rewinds the line. */
static void
tv_append_out(struct tv_entry *e, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\r' && (i + 1 >= n || s[i + 1] != '\n')) {
			while (e->out.len > 0 && e->out.data[e->out.len - 1] != '\n')
				e->out.len--;
			if (e->out.data)
				e->out.data[e->out.len] = '\0';
			continue;
		}
		if (s[i] == '\r')
			continue;
		buf_putc(&e->out, s[i]);
	}
	if (e->out.len > TV_TAIL_MAX) {
		const char *cut = memchr(e->out.data + e->out.len - TV_TAIL_MAX, '\n', TV_TAIL_MAX);
		size_t drop = cut ? (size_t)(cut + 1 - e->out.data) : e->out.len - TV_TAIL_MAX;

		buf_consume(&e->out, drop);
	}
}

void
tv_progress(struct toolview *tv, const char *id, const char *out, size_t n, int64_t now)
{
	struct tv_entry *e = tv_find(tv, id);

	if (e == NULL || e->state == TV_DONE || e->state == TV_FAILED || e->state == TV_DENIED)
		return;
	if (e->state != TV_RUNNING) {
		e->state = TV_RUNNING;
		e->started = now;
	}
	tv_append_out(e, out, n);
}

void
tv_result(struct toolview *tv, const char *id, bool is_error, int64_t duration_ms, int64_t now)
{
	struct tv_entry *e = tv_find(tv, id);

	if (e == NULL)
		return;
	if (duration_ms < 0 && e->started > 0)
		duration_ms = now - e->started;
	e->duration = duration_ms;
	if (e->state != TV_DENIED)
		e->state = is_error ? TV_FAILED : TV_DONE;
	buf_release(&e->out);
}

void
tv_interrupted(struct toolview *tv, const char *id)
{
	struct tv_entry *e = tv_find(tv, id);

	if (e != NULL && e->state == TV_FAILED)
		e->state = TV_INTERRUPTED;
}

bool
tv_any_running(const struct toolview *tv)
{
	size_t i = tv->n;

	/* Running tools are among the newest. */
	while (i-- > 0) {
		if (tv->v[i].state == TV_RUNNING)
			return true;
		if (tv->n - i > 64)
			break;
	}
	return false;
}

size_t
tv_tail(const struct tv_entry *e, size_t n, const char **lines, size_t *lens)
{
	const char *s = e->out.data, *end;
	size_t count = 0, k;

	if (s == NULL || e->out.len == 0 || n == 0)
		return 0;
	end = s + e->out.len;
	if (end > s && end[-1] == '\n')
		end--;
	while (count < n && end > s) {
		const char *ls = end;

		while (ls > s && ls[-1] != '\n')
			ls--;
		lines[count] = ls;
		lens[count] = (size_t)(end - ls);
		count++;
		end = ls > s ? ls - 1 : s;
		if (ls == s)
			break;
	}
	/* Oldest first. */
	for (k = 0; k < count / 2; k++) {
		const char *t = lines[k];
		size_t tl = lens[k];

		lines[k] = lines[count - 1 - k];
		lens[k] = lens[count - 1 - k];
		lines[count - 1 - k] = t;
		lens[count - 1 - k] = tl;
	}
	return count;
}
