/*
 * lsp: the session's language servers, its documents, and the edits held
 * for their diagnostics: see lsp.h.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "config/config.h"
#include "emit.h"
#include "event.h"
#include "ev.h"
#include "file.h"
#include "fsutil.h"
#include "jail/jail.h"
#include "hex.h"
#include "json.h"
#include "lsp_int.h"
#include "sched.h"
#include "tool.h"
#include "utf8.h"
#include "xalloc.h"

#define LSP_BACKOFF_MS	500	/* the first restart's delay, doubled each time */

/* One changed file of a held edit, and how far it is. */
enum lsp_stage { LSP_W_SERVER, LSP_W_BASE, LSP_W_EDIT, LSP_W_DONE };

struct lsp_item {
	struct lsp_doc	*doc;
	enum lsp_stage	 stage;
	char		*before;	/* the text before the edit (its baseline), or NULL */
	size_t		 before_len;
	bool		 gone;		/* the edit deleted it */
	int		 version;	/* the edit's version, once sent */
	uint64_t	 seq;		/* publications before it was sent */
	const char	*note;		/* why it has no diagnostics */
};

struct lsp_wait {
	struct lsp		*lsp;
	struct sched		*sched;		/* the call's */
	struct sched_call	*call;
	struct lsp_item		*items;
	size_t			 n;
	uint64_t		 timer;
	int64_t			 since;		/* when the hold began */
	struct lsp_wait		*next;
};

/* --- paths and positions ---------------------------------------------------- */

char *
lsp_uri_path(const struct lsp *l, const char *uri)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	size_t rl = strlen(l->cfg->root);
	char *s;

	if (strncmp(uri, "file://", 7) == 0)
		uri += 7;
	for (; *uri != '\0'; uri++) {
		if (uri[0] == '%' && hex_digit(uri[1]) >= 0 && hex_digit(uri[2]) >= 0) {
			buf_putc(&b, hex_digit(uri[1]) * 16 + hex_digit(uri[2]));
			uri += 2;
		} else
			buf_putc(&b, *uri);
	}
	s = buf_detach(&b, NULL);
	if (strncmp(s, l->cfg->root, rl) == 0 && s[rl] == '/')
		memmove(s, s + rl + 1, strlen(s + rl + 1) + 1);
	return s;
}

/* path (relative to the root, or absolute inside it) made relative; NULL outside. */
static char *
lsp_rel(const struct lsp *l, const char *path)
{
	size_t rl = strlen(l->cfg->root);

	if (path == NULL || path[0] == '\0')
		return NULL;
	if (path[0] == '/') {
		if (strncmp(path, l->cfg->root, rl) != 0 || path[rl] != '/')
			return NULL;
		path += rl + 1;
	}
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (strncmp(path, "../", 3) == 0 || strstr(path, "/../") != NULL || strcmp(path, "..") == 0)
		return NULL;
	return xstrdup(path);
}

bool
lsp_inside(const struct lsp *l, const char *rel)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	char *real, *root = realpath(l->cfg->root, NULL);
	size_t n;
	bool in;

	buf_printf(&path, "%s/%s", l->cfg->root, rel);
	real = realpath(buf_cstr(&path), NULL);
	buf_release(&path);
	/* a file not there yet is inside: its name was checked (lsp_rel) */
	if (real == NULL && errno == ENOENT) {
		free(root);
		return true;
	}
	n = root != NULL ? strlen(root) : 0;
	in = real != NULL && root != NULL && strncmp(real, root, n) == 0 &&
	    (real[n] == '/' || real[n] == '\0');
	free(real);
	free(root);
	return in;
}

/*
 * The file rel as it is on disk now: 0, 1 when it is gone, -1 when it
 * cannot be read.  A file that leads out of the workspace through a
 * link is not read: the server is given only what the file tools may read.
 */
static int
lsp_read_now(const struct lsp *l, const char *rel, char **text, size_t *len)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT), b = BUF_INIT(LSP_FILE_MAX + 1);
	struct file_status st;
	int rc;

	if (!lsp_inside(l, rel)) {
		buf_release(&path);
		buf_release(&b);
		return -1;
	}
	buf_printf(&path, "%s/%s", l->cfg->root, rel);
	rc = file_read(buf_cstr(&path), LSP_FILE_MAX, 0, &b, &st);
	buf_release(&path);
	if (rc == -1) {
		buf_release(&b);
		return st.fail == FILE_MISSING ? 1 : -1;
	}
	*text = buf_detach(&b, len);
	return 0;
}

/* --- documents -------------------------------------------------------------- */

struct lsp_doc *
lsp_doc_get(struct lsp *l, const char *rel, bool mk)
{
	struct lsp_doc *d;
	struct lsp_def *def;
	const char *lang = NULL;
	struct buf abs = BUF_INIT(BUF_NOLIMIT);

	for (d = l->docs; d != NULL; d = d->next)
		if (strcmp(d->rel, rel) == 0)
			return d;
	if (!mk)
		return NULL;
	for (def = l->defs; def != NULL && lang == NULL; def = lang == NULL ? def->next : def)
		lang = lsp_def_lang(def, rel);
	if (def == NULL)
		return NULL;
	d = xcalloc(1, sizeof *d);
	d->rel = xstrdup(rel);
	buf_printf(&abs, "%s/%s", l->cfg->root, rel);
	d->uri = lsp_path_uri(buf_cstr(&abs));
	buf_release(&abs);
	d->lang = lang;
	d->def = def;
	d->diag_version = -1;
	d->next = l->docs;
	l->docs = d;
	return d;
}

static void
lsp_doc_free(struct lsp_doc *d)
{
	free(d->rel);
	free(d->uri);
	free(d->text);
	free(d->pending);
	cJSON_Delete(d->diags);
	cJSON_Delete(d->baseline);
	free(d);
}

/* The error messages of diags (severity 1, or none given). */
static cJSON *
lsp_errors_of(const cJSON *diags)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *dg;

	cJSON_ArrayForEach(dg, diags)
		if (json_int(dg, "severity", 1) == 1)
			cJSON_AddItemToArray(out, cJSON_CreateString(json_str(dg, "message", "")));
	return out;
}

static void
lsp_doc_set_diags(struct lsp_doc *d, const cJSON *items, int version)
{
	cJSON_Delete(d->diags);
	d->diags = cJSON_Duplicate(items, 1);
	d->diag_version = version;
	d->diag_seq++;
	if (d->baseline == NULL)
		d->baseline = lsp_errors_of(d->diags);
}

/* A pull request's document and the version it asked about. */
struct lsp_pull {
	struct lsp_doc	*doc;
	int		 version;
};

static void
lsp_pull_reply(struct lsp_server *s, void *arg, const cJSON *result, const cJSON *error)
{
	struct lsp_pull *p = arg;
	struct lsp_doc *d = p->doc;
	int version = p->version;

	free(p);
	if (error != NULL || d->open_in != s || !cJSON_IsArray(json_get(result, "items")))
		return;
	if (strcmp(json_str(result, "kind", "full"), "full") == 0)
		lsp_doc_set_diags(d, json_get(result, "items"), version);
	lsp_poke(s->lsp);
}

static void
lsp_doc_pull(struct lsp_server *s, struct lsp_doc *d)
{
	cJSON *p, *td;
	struct lsp_pull *pl;

	if (!s->pull)
		return;
	p = cJSON_CreateObject();
	td = cJSON_CreateObject();
	pl = xmalloc(sizeof *pl);
	pl->doc = d;
	pl->version = d->version;
	cJSON_AddStringToObject(td, "uri", d->uri);
	cJSON_AddItemToObject(p, "textDocument", td);
	lsp_server_request(s, "textDocument/diagnostic", p, lsp_pull_reply, pl);
}

static void
lsp_doc_open(struct lsp_server *s, struct lsp_doc *d, char *text, size_t len)
{
	cJSON *p = cJSON_CreateObject(), *td = cJSON_CreateObject();

	free(d->text);
	d->text = text;
	d->len = len;
	d->version++;
	d->open_in = s;
	cJSON_AddStringToObject(td, "uri", d->uri);
	cJSON_AddStringToObject(td, "languageId", d->lang);
	cJSON_AddNumberToObject(td, "version", d->version);
	cJSON_AddStringToObject(td, "text", text);
	cJSON_AddItemToObject(p, "textDocument", td);
	lsp_server_notify(s, "textDocument/didOpen", p);
	lsp_doc_pull(s, d);
}

static void
lsp_doc_change(struct lsp_server *s, struct lsp_doc *d, char *text, size_t len)
{
	cJSON *p = cJSON_CreateObject(), *td = cJSON_CreateObject(), *ch = cJSON_CreateArray(),
	    *c = cJSON_CreateObject();

	free(d->text);
	d->text = text;
	d->len = len;
	d->version++;
	cJSON_AddStringToObject(td, "uri", d->uri);
	cJSON_AddNumberToObject(td, "version", d->version);
	cJSON_AddItemToObject(p, "textDocument", td);
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(ch, c);
	cJSON_AddItemToObject(p, "contentChanges", ch);
	lsp_server_notify(s, "textDocument/didChange", p);
	p = cJSON_CreateObject();
	td = cJSON_CreateObject();
	cJSON_AddStringToObject(td, "uri", d->uri);
	cJSON_AddItemToObject(p, "textDocument", td);
	lsp_server_notify(s, "textDocument/didSave", p);
	lsp_doc_pull(s, d);
}

static void
lsp_doc_close(struct lsp_doc *d)
{
	cJSON *p, *td;

	if (d->open_in == NULL)
		return;
	p = cJSON_CreateObject();
	td = cJSON_CreateObject();
	cJSON_AddStringToObject(td, "uri", d->uri);
	cJSON_AddItemToObject(p, "textDocument", td);
	lsp_server_notify(d->open_in, "textDocument/didClose", p);
	d->open_in = NULL;
}

/* Tell the server of d that its file changed on disk (type 2) or went (3). */
static void
lsp_doc_watched(struct lsp_doc *d, struct lsp_server *s, int type)
{
	cJSON *p = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "uri", d->uri);
	cJSON_AddNumberToObject(e, "type", type);
	cJSON_AddItemToArray(arr, e);
	cJSON_AddItemToObject(p, "changes", arr);
	lsp_server_notify(s, "workspace/didChangeWatchedFiles", p);
}

/* --- servers ------------------------------------------------------------------ */

static void	lsp_on_ready(struct lsp_server *);
static void	lsp_on_end(struct lsp_server *, int status);
static void	lsp_on_notify(struct lsp_server *, const char *method, const cJSON *params);

/* What a server tells the documents and the waiters. */
static const struct lsp_server_events lsp_events = {
	.ready = lsp_on_ready,
	.end = lsp_on_end,
	.notify = lsp_on_notify,
};

static void
lsp_note(struct lsp *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
lsp_note(struct lsp *l, const char *fmt, ...)
{
	struct buf b = BUF_INIT(4096);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	event_error(l->bus, 0, "%s", buf_cstr(&b));
	buf_release(&b);
}

/* Servers may start: the project is trusted (asked now: the user may trust it later), or the sandbox confines them. */
static bool
lsp_allowed(const struct lsp *l)
{
	return l->cfg->trusted || (jail_usable(l->jail) && jail_mode(l->jail) != JAIL_OFF);
}

struct lsp_server *
lsp_doc_server(struct lsp *l, struct lsp_doc *d, const char **why)
{
	struct lsp_def *def = d->def;
	struct buf err = BUF_INIT(4096);

	*why = NULL;
	if (def->srv != NULL)
		return def->srv;
	if (def->dropped) {
		*why = "its language server was dropped";
		return NULL;
	}
	if (!lsp_allowed(l)) {
		if (!l->told_untrusted)
			lsp_note(l, "language servers run project code, so they do not start in a "
			    "project that is not trusted (rerun with --trust, or turn the sandbox on)");
		l->told_untrusted = true;
		*why = "language servers do not start in an untrusted project";
		return NULL;
	}
	if (ev_now_ms() < def->retry_at) {
		*why = "its language server is restarting";
		return NULL;
	}
	def->srv = lsp_server_start(l, def, &lsp_events, &err);
	lsp_poke(l);
	if (def->srv == NULL) {
		lsp_note(l, "language server %s could not start: %s", def->name, buf_cstr(&err));
		def->dropped = true;
		*why = "its language server could not start";
	}
	buf_release(&err);
	return def->srv;
}

int
lsp_doc_ensure(struct lsp *l, struct lsp_doc *d)
{
	const char *why;
	struct lsp_server *s = lsp_doc_server(l, d, &why);
	char *text;
	size_t len;

	if (s == NULL)
		return -1;
	if (s->state != LSP_READY)
		return s->state == LSP_STARTING ? 0 : -1;
	if (d->open_in == s)
		return 1;
	if (d->pending != NULL) {
		text = d->pending;
		len = d->pending_len;
		d->pending = NULL;
	} else if (lsp_read_now(l, d->rel, &text, &len) != 0)
		return -1;
	lsp_doc_open(s, d, text, len);
	return 1;
}

static void
lsp_on_ready(struct lsp_server *s)
{
	lsp_poke(s->lsp);
}

static void
lsp_server_free_later(struct ev_loop *loop, void *arg)
{
	struct lsp_server *s = arg, **pp;

	(void)loop;
	s->free_timer = 0;
	for (pp = &s->lsp->ended; *pp != NULL; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	lsp_server_close(s);
}

/* "ended unexpectedly", with the last line of its stderr when it said something. */
static void
lsp_end_words(const struct lsp_server *s, struct buf *out)
{
	const char *log = lsp_server_log(s), *end = log + strlen(log), *p;
	size_t i, start;

	if (s->why != NULL) {
		buf_puts(out, s->why);
		return;
	}
	buf_puts(out, "ended unexpectedly");
	while (end > log && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	for (p = end; p > log && p[-1] != '\n'; p--)
		;
	if (p == end)
		return;
	if (end - p > 160)
		end = p + utf8_floor(p, 160);
	buf_puts(out, " (it said: ");
	start = out->len;
	buf_append(out, p, (size_t)(end - p));
	for (i = start; i < out->len; i++)
		if ((unsigned char)out->data[i] < 0x20 || out->data[i] == 0x7f)
			out->data[i] = ' ';
	buf_putc(out, ')');
}

static void
lsp_on_end(struct lsp_server *s, int status)
{
	struct lsp *l = s->lsp;
	struct lsp_def *def = s->def;
	struct lsp_doc *d;
	struct buf words = BUF_INIT(4096);

	(void)status;
	for (d = l->docs; d != NULL; d = d->next)
		if (d->open_in == s)
			d->open_in = NULL;
	if (def->srv == s)
		def->srv = NULL;
	if (!s->cleanly) {
		lsp_end_words(s, &words);
		def->failures++;
		if (def->failures > def->max_restarts) {
			def->dropped = true;
			lsp_note(l, "language server %s %s; it was dropped after %d restart%s", def->name,
			    buf_cstr(&words), def->max_restarts, def->max_restarts == 1 ? "" : "s");
		} else {
			def->retry_at = ev_now_ms() + ((int64_t)LSP_BACKOFF_MS << (def->failures - 1));
			lsp_note(l, "language server %s %s; it restarts on next use", def->name,
			    buf_cstr(&words));
		}
	}
	buf_release(&words);
	/* not here: its read callback is on the stack */
	s->free_timer = ev_timer_add(l->loop, 0, lsp_server_free_later, s);
	s->next = l->ended;
	l->ended = s;
	lsp_poke(l);
}

static void
lsp_on_notify(struct lsp_server *s, const char *method, const cJSON *params)
{
	struct lsp_doc *d;
	char *rel;

	if (strcmp(method, "textDocument/publishDiagnostics") != 0)
		return;
	rel = lsp_uri_path(s->lsp, json_str(params, "uri", ""));
	d = lsp_doc_get(s->lsp, rel, false);
	free(rel);
	if (d == NULL || d->open_in != s)
		return;
	lsp_doc_set_diags(d, json_get(params, "diagnostics"),
	    (int)json_int(params, "version", d->version));
	lsp_poke(s->lsp);
}

/* --- held edits ---------------------------------------------------------------- */

/* The new errors of it, appended to out. */
static void
lsp_item_report(const struct lsp *l, const struct lsp_item *it, struct buf *out)
{
	struct lsp_doc *d = it->doc;
	cJSON *base = cJSON_Duplicate(d->baseline, 1), *dg;
	struct buf lines = BUF_INIT(64 * 1024);
	int n = 0;
	enum lsp_enc enc = d->open_in != NULL ? d->open_in->enc : LSP_ENC_UTF16;

	(void)l;
	if (it->note != NULL) {
		buf_printf(out, "\n\n[%s: no diagnostics for %s: %s]", d->def->name, d->rel, it->note);
		cJSON_Delete(base);
		return;
	}
	cJSON_ArrayForEach(dg, d->diags) {
		const char *msg = json_str(dg, "message", "");
		const cJSON *b;
		int i = 0;
		long ln, col;
		const char *lp;
		size_t lnn, mlen;

		if (json_int(dg, "severity", 1) != 1)
			continue;
		/* an error the file had when first read is not the edit's */
		cJSON_ArrayForEach(b, base) {
			if (cJSON_IsString(b) && strcmp(b->valuestring, msg) == 0)
				break;
			i++;
		}
		if (b != NULL) {
			cJSON_DeleteItemFromArray(base, i);
			continue;
		}
		if (++n > LSP_ERRORS_SHOWN)
			continue;
		ln = (long)json_int(json_get(json_get(dg, "range"), "start"), "line", 0);
		col = (long)json_int(json_get(json_get(dg, "range"), "start"), "character", 0);
		if (lsp_line_of(d->text, d->len, ln, &lp, &lnn))
			col = lsp_col_to_chars(lp, lnn, col, enc);
		else
			col++;
		mlen = strcspn(msg, "\n");
		if (mlen > 300)
			mlen = utf8_floor(msg, 300);
		buf_printf(&lines, "\n  %s:%ld:%ld: %.*s", d->rel, ln + 1, col, (int)mlen, msg);
	}
	if (n > 0) {
		buf_printf(out, "\n\n%s: %d new error%s in %s since it was read:%s", d->def->name, n,
		    n == 1 ? "" : "s", d->rel, buf_cstr(&lines));
		if (n > LSP_ERRORS_SHOWN)
			buf_printf(out, "\n  ... and %d more", n - LSP_ERRORS_SHOWN);
	}
	buf_release(&lines);
	cJSON_Delete(base);
}

/* Move it on as far as it goes now. */
static void
lsp_item_step(struct lsp *l, struct lsp_item *it)
{
	struct lsp_doc *d = it->doc;
	const char *why;
	struct lsp_server *s;
	char *text;
	size_t len;

	if (it->stage == LSP_W_DONE)
		return;
	s = lsp_doc_server(l, d, &why);
	if (s == NULL || s->state == LSP_DEAD || s->state == LSP_STOPPING) {
		it->note = why != NULL ? why : "its language server ended";
		it->stage = LSP_W_DONE;
		return;
	}
	if (s->state != LSP_READY)
		return;
	if (it->stage == LSP_W_SERVER) {
		if (it->gone) {
			lsp_doc_watched(d, s, 3);
			lsp_doc_close(d);
			it->stage = LSP_W_DONE;
			return;
		}
		if (d->open_in != s) {
			/* not open yet: the text before the edit is its baseline (a new file has none) */
			if (d->baseline == NULL && d->pending != NULL) {
				lsp_doc_open(s, d, d->pending, d->pending_len);
				d->pending = NULL;
			} else if (d->baseline == NULL && it->before != NULL) {
				lsp_doc_open(s, d, it->before, it->before_len);
				it->before = NULL;
			} else if (lsp_read_now(l, d->rel, &text, &len) == 0) {
				if (d->baseline == NULL)
					d->baseline = cJSON_CreateArray();
				lsp_doc_open(s, d, text, len);
				it->version = d->version;
				it->seq = d->diag_seq;
				it->stage = LSP_W_EDIT;
				return;
			}
		}
		it->stage = LSP_W_BASE;
	}
	if (it->stage == LSP_W_BASE) {
		if (d->baseline == NULL)
			return;
		if (lsp_read_now(l, d->rel, &text, &len) != 0) {
			it->note = "it cannot be read";
			it->stage = LSP_W_DONE;
			return;
		}
		it->seq = d->diag_seq;
		if (d->text != NULL && d->len == len && memcmp(d->text, text, len) == 0) {
			free(text);
			it->version = d->version;
			it->stage = d->diag_version >= d->version ? LSP_W_DONE : LSP_W_EDIT;
			return;
		}
		lsp_doc_change(s, d, text, len);
		it->version = d->version;
		it->stage = LSP_W_EDIT;
	}
	if (it->stage == LSP_W_EDIT && d->diag_seq > it->seq && d->diag_version >= it->version)
		it->stage = LSP_W_DONE;
}

static void
lsp_wait_end(struct lsp *l, struct lsp_wait *w, bool timed_out)
{
	struct lsp_wait **pp;
	struct buf out = BUF_INIT(256 * 1024);
	size_t i;

	for (pp = &l->waits; *pp != NULL; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	if (w->timer != 0)
		ev_timer_cancel(l->loop, w->timer);
	for (i = 0; i < w->n; i++) {
		struct lsp_item *it = &w->items[i];

		if (timed_out && it->stage != LSP_W_DONE)
			it->note = it->stage == LSP_W_SERVER ? "its language server is still starting" :
			    "its language server did not answer in time";
		if (!it->gone)
			lsp_item_report(l, it, &out);
		free(it->before);
	}
	if (out.len > 0)
		sched_call_append_result(w->call, buf_cstr(&out));
	/* the call took as long as its result took to come: the wait counts */
	w->call->duration_ms += ev_now_ms() - w->since;
	lsp_trace_note("wait", ev_now_ms() - w->since);
	buf_release(&out);
	free(w->items);
	sched_release(w->sched, w->call);
	free(w);
}

static void
lsp_wait_timeout(struct ev_loop *loop, void *arg)
{
	struct lsp_wait *w = arg;

	(void)loop;
	w->timer = 0;
	lsp_wait_end(w->lsp, w, true);
}

/* sched_set_hold's unhold: an interrupt lets a held call go on the next loop turn. */
static void
lsp_unhold(void *arg, struct sched_call *c)
{
	struct lsp_join *j = arg;
	struct lsp *l = j->lsp;
	struct lsp_wait *w;

	for (w = l != NULL ? l->waits : NULL; w != NULL; w = w->next)
		if (w->call == c) {
			/* not from inside the scheduler's loop over its calls */
			if (w->timer != 0)
				ev_timer_cancel(l->loop, w->timer);
			w->timer = ev_timer_add(l->loop, 0, lsp_wait_timeout, w);
			return;
		}
}

/* The status bar hears of a change. */
static void
lsp_status_tell(struct lsp *l)
{
	struct buf b = BUF_INIT(4096);

	lsp_status(l, &b);
	if (strcmp(buf_cstr(&b), l->status_last != NULL ? l->status_last : "") != 0) {
		free(l->status_last);
		l->status_last = xstrdup(buf_cstr(&b));
		emit_lsp_status(l->bus, l->status_last);
	}
	buf_release(&b);
}

/* Every waiter one step on; those done are released on the next loop turn. */
static void
lsp_poke_now(struct ev_loop *loop, void *arg)
{
	struct lsp *l = arg;
	struct lsp_wait *w, *next;
	struct lsp_doc *d;

	(void)loop;
	l->poke_timer = 0;
	lsp_status_tell(l);
	for (w = l->waits; w != NULL; w = next) {
		size_t i, done = 0;

		next = w->next;
		for (i = 0; i < w->n; i++) {
			lsp_item_step(l, &w->items[i]);
			done += w->items[i].stage == LSP_W_DONE;
		}
		if (done == w->n)
			lsp_wait_end(l, w, false);
	}
	/* files read while their server started are opened now, as they were read */
	for (d = l->docs; d != NULL; d = d->next)
		if (d->open_in == NULL && d->baseline == NULL && d->def->srv != NULL &&
		    d->def->srv->state == LSP_READY)
			(void)lsp_doc_ensure(l, d);
}

void
lsp_poke(struct lsp *l)
{
	if (l->poke_timer == 0)
		l->poke_timer = ev_timer_add(l->loop, 0, lsp_poke_now, l);
}

static bool
lsp_is_edit(const char *name)
{
	return strcmp(name, "edit_file") == 0 || strcmp(name, "write_file") == 0 ||
	    strcmp(name, "apply_patch") == 0;
}

/* Hold an edit: each changed file that a server takes becomes an item. */
static bool
lsp_hold_edit(struct lsp *l, struct sched *sched, struct sched_call *c)
{
	struct lsp_wait *w = xcalloc(1, sizeof *w);
	const cJSON *f;

	cJSON_ArrayForEach(f, json_get(c->meta, "files")) {
		char *rel = lsp_rel(l, json_str(f, "path", NULL));
		struct lsp_doc *d = rel != NULL ? lsp_doc_get(l, rel, true) : NULL;
		struct lsp_item *it;
		const char *why, *before = json_str(f, "before", NULL);
		struct buf err = BUF_INIT(1024);

		free(rel);
		/* in an untrusted project the user was told once; the model hears nothing */
		if (d == NULL || (lsp_doc_server(l, d, &why) == NULL && !lsp_allowed(l)))
			continue;
		w->items = xreallocarray(w->items, w->n + 1, sizeof *w->items);
		it = &w->items[w->n++];
		memset(it, 0, sizeof *it);
		it->doc = d;
		if (d->def->srv == NULL) {
			it->stage = LSP_W_DONE;
			it->note = why;
		}
		it->gone = json_get(f, "after") != NULL && cJSON_IsNull(json_get(f, "after"));
		if (d->open_in == NULL && before != NULL && l->env->snap_dir != NULL &&
		    fsutil_snapshot_load(l->env->snap_dir, before, &it->before, &it->before_len, &err) == -1)
			it->before = NULL;
		buf_release(&err);
	}
	if (w->n == 0) {
		free(w);
		return false;
	}
	w->lsp = l;
	w->sched = sched;
	w->call = c;
	w->next = l->waits;
	l->waits = w;
	w->since = ev_now_ms();
	w->timer = ev_timer_add(l->loop, l->wait_ms, lsp_wait_timeout, w);
	lsp_poke(l);
	return true;
}

/* A command ran: the open files it changed are sent, as edits and as watched-file changes. */
static void
lsp_after_command(struct lsp *l)
{
	struct lsp_doc *d;

	for (d = l->docs; d != NULL; d = d->next) {
		struct lsp_server *s = d->open_in;
		char *text = NULL;
		size_t len = 0;
		int r;

		if (s == NULL || s->state != LSP_READY)
			continue;
		r = lsp_read_now(l, d->rel, &text, &len);
		if (r == 1) {
			lsp_doc_watched(d, s, 3);
			lsp_doc_close(d);
		} else if (r == 0 && (len != d->len || memcmp(text, d->text, len) != 0)) {
			lsp_doc_watched(d, s, 2);
			lsp_doc_change(s, d, text, len);
			text = NULL;
		}
		free(text);
	}
}

/* sched_set_hold's hold: every call's end passes here. */
static bool
lsp_after_tool(void *arg, struct sched_call *c)
{
	struct lsp_join *j = arg;
	struct lsp *l = j->lsp;

	if (c->tool == NULL)
		return false;
	if (strcmp(c->name, "read_file") == 0 && !c->is_error) {
		char *rel = lsp_rel(l, json_str(c->input, "path", NULL));
		struct lsp_doc *d = rel != NULL ? lsp_doc_get(l, rel, true) : NULL;

		free(rel);
		/* a later edit may change the file before the server is up: keep what was read */
		if (d != NULL && lsp_doc_ensure(l, d) == 0 && d->pending == NULL &&
		    lsp_read_now(l, d->rel, &d->pending, &d->pending_len) != 0)
			d->pending = NULL;
		return false;
	}
	if (lsp_is_edit(c->name))
		return !c->is_error && lsp_hold_edit(l, j->sched, c);
	if (c->tool->cls != TOOL_READ_ONLY)
		lsp_after_command(l);
	return false;
}

/* --- the set ------------------------------------------------------------------- */

struct lsp *
lsp_new(struct ev_loop *loop, const struct config *cfg, const struct tool_env *env,
    struct jail *jail, struct event_bus *bus, struct sched *sched)
{
	struct lsp *l;
	struct buf warnings = BUF_INIT(64 * 1024);
	struct lsp_def *defs;

	if (!cfg->lsp_enabled)
		return NULL;
	defs = lsp_conf_load(cfg, &warnings);
	if (warnings.len > 0)
		event_error(bus, 0, "%s", buf_cstr(&warnings));
	buf_release(&warnings);
	if (defs == NULL)
		return NULL;
	l = xcalloc(1, sizeof *l);
	l->loop = loop;
	l->cfg = cfg;
	l->env = env;
	l->jail = jail;
	l->bus = bus;
	l->defs = defs;
	l->wait_ms = cfg->lsp_wait_ms > 0 ? cfg->lsp_wait_ms : 2000;
	l->code.name = "code";
	l->code.description = lsp_code_description;
	l->code.schema = lsp_code_schema;
	l->code.cls = TOOL_READ_ONLY;
	l->code.async = &lsp_code_async;
	l->code.owner = l;
	lsp_join(l, sched);
	return l;
}

void
lsp_join(struct lsp *l, struct sched *sched)
{
	struct lsp_join *j;

	if (l == NULL || sched == NULL)
		return;
	j = xcalloc(1, sizeof *j);
	j->lsp = l;
	j->sched = sched;
	j->next = l->joins;
	l->joins = j;
	sched_set_more(sched, lsp_find, l);
	sched_set_hold(sched, lsp_after_tool, lsp_unhold, j);
}

/* A wait dropped unreleased: its scheduler goes, or the servers do. */
static void
lsp_wait_drop(struct lsp *l, struct lsp_wait *w)
{
	size_t i;

	if (w->timer != 0)
		ev_timer_cancel(l->loop, w->timer);
	for (i = 0; i < w->n; i++)
		free(w->items[i].before);
	free(w->items);
	free(w);
}

void
lsp_leave(struct lsp *l, struct sched *sched)
{
	struct lsp_join **pj, *j;
	struct lsp_wait **pw, *w;

	if (l == NULL)
		return;
	for (pw = &l->waits; (w = *pw) != NULL; )
		if (w->sched == sched) {
			*pw = w->next;
			lsp_wait_drop(l, w);
		} else
			pw = &w->next;
	for (pj = &l->joins; (j = *pj) != NULL; pj = &j->next)
		if (j->sched == sched) {
			*pj = j->next;
			sched_set_hold(sched, NULL, NULL, NULL);
			free(j);
			return;
		}
}

void
lsp_free(struct lsp *l)
{
	struct lsp_def *def;

	if (l == NULL)
		return;
	while (l->waits != NULL) {
		struct lsp_wait *w = l->waits;

		l->waits = w->next;
		lsp_wait_drop(l, w);
	}
	while (l->joins != NULL) {
		struct lsp_join *j = l->joins;

		l->joins = j->next;
		sched_set_hold(j->sched, NULL, NULL, NULL);
		free(j);
	}
	lsp_jobs_cancel_all(l);
	for (def = l->defs; def != NULL; def = def->next)
		if (def->srv != NULL) {
			lsp_server_close(def->srv);
			def->srv = NULL;
		}
	while (l->ended != NULL) {
		struct lsp_server *s = l->ended;

		l->ended = s->next;
		lsp_server_close(s);
	}
	if (l->poke_timer != 0)
		ev_timer_cancel(l->loop, l->poke_timer);
	while (l->docs != NULL) {
		struct lsp_doc *d = l->docs;

		l->docs = d->next;
		lsp_doc_free(d);
	}
	while (l->defs != NULL) {
		def = l->defs;
		l->defs = def->next;
		lsp_def_free(def);
	}
	free(l->status_last);
	jail_free(l->ro_jail);
	free(l);
}

const struct tool_def *
lsp_find(void *arg, const char *name)
{
	struct lsp *l = arg;

	return l != NULL && strcmp(name, "code") == 0 ? &l->code : NULL;
}

/* Is name in list (comma-separated, blanks around names allowed)? */
static bool
lsp_disabled(const char *list, const char *name)
{
	size_t n = strlen(name);

	while (list != NULL && *list != '\0') {
		size_t k;

		list += strspn(list, " ,");
		k = strcspn(list, ",");
		while (k > 0 && list[k - 1] == ' ')
			k--;
		if (k == n && strncmp(list, name, n) == 0)
			return true;
		list += strcspn(list, ",");
	}
	return false;
}

void
lsp_tools_json(const struct lsp *l, cJSON *tools)
{
	cJSON *o;

	if (l == NULL || tools == NULL || lsp_disabled(l->cfg->disabled_tools, l->code.name))
		return;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", l->code.name);
	cJSON_AddStringToObject(o, "description", l->code.description);
	cJSON_AddItemToObject(o, "input_schema", cJSON_Parse(l->code.schema));
	cJSON_AddItemToArray(tools, o);
}

void
lsp_status(const struct lsp *l, struct buf *out)
{
	static const char *const words[] = { "off", "starting", "ready", "stopping", "ended" };
	const struct lsp_def *def;
	bool any = false;

	if (l == NULL)
		return;
	for (def = l->defs; def != NULL; def = def->next) {
		const char *w = def->dropped ? "dropped" : def->srv != NULL ? words[def->srv->state] :
		    def->failures > 0 ? "restarting" : NULL;

		if (w == NULL)
			continue;
		buf_printf(out, "%s%s %s", any ? ", " : "", def->name, w);
		any = true;
	}
}
