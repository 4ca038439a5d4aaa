/* Type-ahead: see queue.h. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "app.h"
#include "ev.h"
#include "file.h"
#include "queue.h"
#include "sline.h"
#include "xalloc.h"

#define QUEUE_FILE	"queue.json"
#define QUEUE_MAX	64		/* prompts kept; more is refused */
#define QUEUE_FILE_MAX	(4 * 1024 * 1024)

void
queue_free(struct app *a)
{
	struct queue *q = &a->queue;
	size_t i;

	if (q->timer != 0)
		ev_timer_cancel(a->loop, q->timer);
	for (i = 0; i < q->n; i++)
		free(q->v[i]);
	free(q->v);
	free(q->path);
	memset(q, 0, sizeof *q);
}

char *
queue_encode(char *const *v, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	char *s;
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
	s = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	if (s == NULL)
		fatal("out of memory encoding the prompt queue");
	return s;
}

int
queue_decode(const char *text, char ***v, size_t *n)
{
	cJSON *arr = cJSON_Parse(text), *it;
	size_t k = 0;

	*v = NULL;
	*n = 0;
	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		return -1;
	}
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
			continue;
		*v = xreallocarray(*v, k + 1, sizeof **v);
		(*v)[k++] = xstrdup(it->valuestring);
	}
	cJSON_Delete(arr);
	*n = k;
	return 0;
}

/* The queue file's path in the session's directory, or NULL without a session. */
static char *
queue_file(const struct app *a)
{
	const char *dir;
	char path[4096];
	int r;

	if (a->agent == NULL || a->be->session_dir == NULL ||
	    (dir = a->be->session_dir(a->agent)) == NULL || *dir == '\0')
		return NULL;
	r = snprintf(path, sizeof path, "%s/%s", dir, QUEUE_FILE);
	if (r < 0 || (size_t)r >= sizeof path)
		return NULL;
	return xstrdup(path);
}

/* Every change to the queue is on disk before it is on screen. */
static void
queue_save(struct app *a)
{
	struct queue *q = &a->queue;
	char *path = queue_file(a), *s;

	/* The session changed (a /clear, a resume): the old file is stale. */
	if (q->path != NULL && (path == NULL || strcmp(path, q->path) != 0))
		unlink(q->path);
	free(q->path);
	q->path = path;
	if (path == NULL)
		return;
	if (q->n == 0) {
		unlink(path);
		return;
	}
	s = queue_encode(q->v, q->n);
	if (file_write_atomic(path, s, strlen(s), 0600, 0, NULL) == -1)
		app_notice(a, ROLE_WARNING, "the queued prompts could not be saved to %s: %s", path,
		    strerror(errno));
	free(s);
}

bool
queue_take(struct app *a, const char *text)
{
	struct queue *q = &a->queue;

	if (!app_busy(a))
		return false;
	if (q->n >= QUEUE_MAX) {
		app_notice(a, ROLE_WARNING, "%d prompts are queued already: this one stays in the input line",
		    QUEUE_MAX);
		ed_set(&a->ed, text);
		return true;
	}
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 4;
		q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	}
	q->v[q->n++] = xstrdup(text);
	queue_save(a);
	app_set_hint(a, false, "queued (%zu): sent when the turn ends; Up edits it, Esc stops the turn", q->n);
	app_dirty(a, D_INPUT | D_LAYOUT);
	return true;
}

/* Remove and return the i-th prompt (the caller frees). */
static char *
queue_remove(struct queue *q, size_t i)
{
	char *s = q->v[i];

	memmove(q->v + i, q->v + i + 1, (q->n - i - 1) * sizeof *q->v);
	q->n--;
	return s;
}

static void
queue_send_next(struct ev_loop *loop, void *arg)
{
	struct app *a = arg;
	char *text;

	a->queue.timer = 0;
	if (a->queue.n == 0 || app_busy(a))
		return;
	text = queue_remove(&a->queue, 0);
	queue_save(a);
	app_submit(a, text);
	free(text);
	app_dirty(a, D_INPUT | D_LAYOUT);
}

/*
 * The turn stopped: the oldest queued prompt comes back to the input line,
 * as it was (never joined to another: each stays a prompt of its own), and
 * the rest stay queued, to go after it.  A prompt being typed is left as it
 * is, and the whole queue waits behind it.
 */
void
queue_give_back(struct app *a)
{
	struct queue *q = &a->queue;
	char *text;

	if (q->n == 0)
		return;
	if (!ed_empty(&a->ed)) {
		app_set_hint(a, false, "%zu queued prompt%s: sent after the one you are typing", q->n,
		    q->n == 1 ? " waits" : "s wait");
		app_dirty(a, D_INPUT | D_LAYOUT);
		return;
	}
	text = queue_remove(q, 0);
	ed_set(&a->ed, text);
	free(text);
	if (q->n > 0)
		app_set_hint(a, false, "the first queued prompt is back in the input line: Enter sends it; "
		    "%zu more stay%s queued after it", q->n, q->n == 1 ? "s" : "");
	else
		app_set_hint(a, false, "%s", "the queued prompt is back in the input line: Enter sends it");
	queue_save(a);
	app_dirty(a, D_INPUT | D_LAYOUT);
}

void
queue_turn_ended(struct app *a, const char *why)
{
	if (a->queue.n == 0)
		return;
	if (strcmp(why, "end_turn") != 0 && strcmp(why, "max_tokens") != 0) {
		queue_give_back(a);
		return;
	}
	/* The agent may still be finishing the turn: send on the next loop turn. */
	if (a->queue.timer == 0)
		a->queue.timer = ev_timer_add(a->loop, 0, queue_send_next, a);
}

bool
queue_pull(struct app *a)
{
	char *text;

	if (a->queue.n == 0 || !ed_empty(&a->ed) || a->mode != MODE_EDIT)
		return false;
	text = queue_remove(&a->queue, a->queue.n - 1);
	queue_save(a);
	ed_set(&a->ed, text);
	free(text);
	app_set_hint(a, false, "%s", "the queued prompt, to edit: Enter queues it again, Ctrl+U drops it");
	app_dirty(a, D_INPUT | D_LAYOUT);
	return true;
}

void
queue_rule(const struct app *a, struct sline *l)
{
	const struct queue *q = &a->queue;
	char head[48];
	const char *first;
	size_t len;

	if (q->n == 0)
		return;
	/* The one Up takes back: the newest. */
	snprintf(head, sizeof head, q->n > 1 ? " %zu queued, newest \xE2\x80\xBA " : " %zu queued \xE2\x80\xBA ", q->n);
	sline_adds(l, head, ROLE_ACCENT, TA_BOLD);
	first = q->v[q->n - 1];
	len = strcspn(first, "\n");
	if (len > 40)
		len = 40;
	sline_add(l, first, len, ROLE_DIM, 0);
	if (first[len] != '\0')
		sline_adds(l, "\xE2\x80\xA6", ROLE_DIM, 0);
	sline_adds(l, " \xE2\x94\x80", ROLE_BORDER, 0);
}

void
queue_restore(struct app *a)
{
	char *path = queue_file(a), *text = NULL, **v = NULL;
	size_t n = 0, i;
	FILE *f;

	if (path == NULL)
		return;
	if ((f = fopen(path, "r")) == NULL) {
		free(path);
		return;
	}
	text = xmalloc(QUEUE_FILE_MAX + 1);
	n = fread(text, 1, QUEUE_FILE_MAX, f);
	fclose(f);
	text[n] = '\0';
	if (queue_decode(text, &v, &n) == -1) {
		app_notice(a, ROLE_WARNING, "%s is not a list of prompts: left as it is", path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (a->queue.n == a->queue.cap) {
			a->queue.cap = a->queue.cap ? a->queue.cap * 2 : 4;
			a->queue.v = xreallocarray(a->queue.v, a->queue.cap, sizeof *a->queue.v);
		}
		a->queue.v[a->queue.n++] = v[i];
	}
	free(v);
	if (a->queue.n > 0)
		app_notice(a, ROLE_WARNING, "%zu prompt%s queued when tandem stopped: back in the input line",
		    a->queue.n, a->queue.n == 1 ? " was" : "s were");
	queue_give_back(a);
out:
	free(text);
	free(path);
}
