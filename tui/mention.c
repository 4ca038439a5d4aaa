/* The @path completion and the attachments' lines: see mention.h. */
#include "autoconf.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "config/config.h"
#include "ev.h"
#include "fuzzy.h"
#include "json.h"
#include "mention.h"
#include "proc.h"
#include "transcript.h"
#include "xalloc.h"

#define MENTION_RAW_MAX	(256u * 1024 * 1024)

/*
 * The menu of a Tab cycle under way, ranked again in a new index (a Tab on
 * an index past MENTION_STALE_MS lists it again meanwhile), so the next Tab
 * still goes to the next candidate; the cycle ends only if the path Tab
 * put in is gone.
 */
static void
mention_rebuild_menu(struct mention *m)
{
	size_t i;

	if (m->inserted == NULL || m->query == NULL)
		goto end;
	m->nmenu = fuzzy_best(m->query, (const char *const *)m->paths, m->n, m->menu, MENTION_MENU);
	for (i = 0; i < m->nmenu; i++)
		if (strcmp(m->paths[m->menu[i]], m->inserted) == 0) {
			m->pick = i;
			return;
		}
end:
	free(m->inserted);
	m->inserted = NULL;
	m->nmenu = 0;
}

/* The listing is complete: split it into the index, replacing the old one. */
static void
mention_built(struct app *a)
{
	struct mention *m = &a->mention;
	size_t i, n = 0, k = 0;
	char *block;

	if (m->paths != NULL)
		free(m->paths[0]);
	free(m->paths);
	m->paths = NULL;
	m->n = 0;
	/* The MCP servers' resources complete as @server:uri, after the files. */
	if (a->be->mcp_mentions != NULL && a->agent != NULL) {
		size_t before;

		if (m->raw.len > 0 && m->raw.data[m->raw.len - 1] != '\0')
			buf_putc(&m->raw, '\0');
		before = m->raw.len;
		a->be->mcp_mentions(a->agent, &m->raw);
		m->mcp_len = m->raw.len - before;
	}
	for (i = 0; i < m->raw.len; i++)
		n += m->raw.data[i] == '\0';
	block = buf_detach(&m->raw, NULL);
	buf_init(&m->raw, MENTION_RAW_MAX);
	m->paths = xreallocarray(NULL, n > 0 ? n : 1, sizeof *m->paths);
	m->paths[0] = block;
	for (i = 0; k < n; k++) {
		m->paths[k] = block + i;
		i += strlen(block + i) + 1;
	}
	m->n = n;
	m->list_ms = ev_now_ms() - m->built;
	m->w.pid = 0;
	mention_rebuild_menu(m);
}

static void
mention_maybe_done(struct app *a)
{
	if (proc_watch_done(&a->mention.w))
		mention_built(a);
}

/* Past MENTION_RAW_MAX the listing stops: the index is what came before. */
static int
mention_on_chunk(void *arg, const char *p, size_t n)
{
	struct mention *m = arg;

	return buf_append(&m->raw, p, n);
}

static void
mention_on_read(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct app *a = arg;

	if (proc_drain(loop, &a->mention.w, PROC_CHUNK_MAX, mention_on_chunk, &a->mention) !=
	    PROC_DRAIN_AGAIN)
		mention_maybe_done(a);
}

static void
mention_on_exit(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct app *a = arg;

	proc_watch_exit(&a->mention.w, status);
	mention_maybe_done(a);
}

void
mention_index(struct app *a)
{
	struct mention *m = &a->mention;
	struct buf err = BUF_INIT(1024);
	struct proc p;
	struct proc_spec spec = {
		.in = PROC_IO_NULL,
		.out = PROC_IO_PIPE,
		.err = PROC_IO_NULL,
		.redact_env = true,
	};

	if (a->agent == NULL || a->be->files_main == NULL || m->w.pid != 0)
		return;
	if (m->raw.limit == 0)
		buf_init(&m->raw, MENTION_RAW_MAX);
	buf_reset(&m->raw);
	spec.main = a->be->files_main;
	spec.arg = a;
	if (proc_spawn(&spec, &p, &err) == -1) {
		app_notice(a, ROLE_WARNING, "the workspace's files could not be listed for @ completion: %s",
		    buf_cstr(&err));
		buf_release(&err);
		return;
	}
	buf_release(&err);
	m->w = (struct proc_watch){ .pid = p.pid, .fd = p.out };
	m->built = ev_now_ms();
	ev_io_add(a->loop, m->w.fd, POLLIN, mention_on_read, a);
	ev_child_add(a->loop, m->w.pid, mention_on_exit, a);
}

/* The MCP servers' resources are not those of the index (a server became ready since). */
static bool
mention_mcp_changed(struct app *a)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	bool changed;

	if (a->be->mcp_mentions == NULL || a->agent == NULL)
		return false;
	a->be->mcp_mentions(a->agent, &b);
	changed = b.len != a->mention.mcp_len;
	buf_release(&b);
	return changed;
}

/* The "@" of the word before the cursor, or SIZE_MAX. */
static size_t
mention_token(const struct editor *e)
{
	const char *t = ed_text(e);
	size_t i = e->cur;

	while (i > 0 && t[i - 1] != ' ' && t[i - 1] != '\t' && t[i - 1] != '\n' && t[i - 1] != '@')
		i--;
	if (i == 0 || t[i - 1] != '@')
		return SIZE_MAX;
	i--;
	if (i > 0 && t[i - 1] != ' ' && t[i - 1] != '\t' && t[i - 1] != '\n' && t[i - 1] != '(')
		return SIZE_MAX;
	return i;
}

/* Put path in place of the text from the "@" at tok to the cursor. */
static void
mention_replace(struct editor *e, size_t tok, const char *path)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *t = ed_text(e);
	size_t cur = e->cur, at;

	buf_append(&b, t, tok + 1);
	buf_puts(&b, path);
	at = b.len;
	buf_puts(&b, t + cur);
	ed_set(e, buf_cstr(&b));
	e->cur = at;
	buf_release(&b);
}

/* The menu on the input's rule: the best few, the chosen one in brackets. */
static void
mention_menu(struct app *a)
{
	struct mention *m = &a->mention;
	size_t i;

	buf_reset(&a->hint);
	buf_puts(&a->hint, "@");
	for (i = 0; i < m->nmenu; i++)
		buf_printf(&a->hint, i == m->pick ? " [%s]" : " %s", m->paths[m->menu[i]]);
	if (m->nmenu > 1)
		buf_puts(&a->hint, "  (Tab: next)");
	a->hint_sticky = true;
}

bool
mention_tab(struct app *a)
{
	struct mention *m = &a->mention;
	struct editor *e = &a->ed;
	size_t tok = mention_token(e);
	char *query;

	if (a->mode != MODE_EDIT || tok == SIZE_MAX)
		return false;
	if (a->agent == NULL || a->be->files_main == NULL) {
		app_set_hint(a, false, "%s", "@ completion needs a session");
		return true;
	}
	if (m->built == 0 || ev_now_ms() - m->built > MENTION_STALE_MS || mention_mcp_changed(a))
		mention_index(a);
	if (m->paths == NULL) {
		app_set_hint(a, false, "%s", "listing the workspace's files for @: Tab again in a moment");
		return true;
	}
	query = xstrndup(ed_text(e) + tok + 1, e->cur - tok - 1);
	/* Tab right after a completion: the next one of the same menu. */
	if (m->inserted != NULL && m->tok == tok && strcmp(query, m->inserted) == 0 && m->nmenu > 0) {
		m->pick = (m->pick + 1) % m->nmenu;
	} else {
		m->nmenu = fuzzy_best(query, (const char *const *)m->paths, m->n, m->menu, MENTION_MENU);
		m->pick = 0;
		m->tok = tok;
		free(m->query);
		m->query = query;
		query = NULL;
	}
	free(query);
	free(m->inserted);
	m->inserted = NULL;
	if (m->nmenu == 0) {
		app_set_hint(a, false, "no file in the workspace matches @%.*s", (int)(e->cur - tok - 1),
		    ed_text(e) + tok + 1);
		return true;
	}
	m->inserted = xstrdup(m->paths[m->menu[m->pick]]);
	mention_replace(e, tok, m->inserted);
	mention_menu(a);
	return true;
}

void
mention_on_attachment(struct app *a, const cJSON *ev)
{
	const char *path = json_str(ev, "path", "?"), *err = json_str(ev, "error", NULL);
	double bytes = json_int(ev, "bytes", 0);

	if (err != NULL)
		app_notice(a, ROLE_WARNING, "@%s not attached: %s", path, err);
	else if (strcmp(json_str(ev, "kind", "file"), "image") == 0)
		app_notice(a, ROLE_DIM, "@%s attached (image %dx%d, %.1f KB, about %d tokens)", path,
		    (int)json_int(ev, "width", 0), (int)json_int(ev, "height", 0), bytes / 1024.0,
		    (int)json_int(ev, "tokens", 0));
	else
		app_notice(a, ROLE_DIM, "@%s attached (%s, %.1f KB)", path,
		    strcmp(json_str(ev, "kind", "file"), "dir") == 0 ? "directory listing" :
		    strcmp(json_str(ev, "kind", "file"), "mcp") == 0 ? "MCP resource" : "file",
		    bytes / 1024.0);
}

void
mention_free(struct app *a)
{
	struct mention *m = &a->mention;

	if (m->w.pid != 0) {
		ev_child_del(a->loop, m->w.pid);
		proc_kill(m->w.pid, SIGKILL);
		proc_forget(m->w.pid);
	}
	if (m->w.fd > 0 && !m->w.eof)
		proc_watch_close(a->loop, &m->w);
	if (m->paths != NULL)
		free(m->paths[0]);
	free(m->paths);
	free(m->inserted);
	free(m->query);
	buf_release(&m->raw);
	memset(m, 0, sizeof *m);
}
