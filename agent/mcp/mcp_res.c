/*
 * mcp_res: the servers' prompts and resources (mcp_int.h), and the
 * expansion of a user's prompt that uses them (mcp_expand_start, mcp.h).
 */
#include "autoconf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ev.h"
#include "json.h"
#include "mcp_int.h"
#include "tool.h"
#include "xalloc.h"

#define MCP_EXPAND_FETCHES	11	/* a prompt, and up to ATTACH_MAX resources */
#define MCP_ATTACH_CAP		TOOL_READ_CAP

static const char *const mcp_pager_method[MCP_PAGERS] = { "prompts/list", "resources/list" };
static const char *const mcp_pager_key[MCP_PAGERS] = { "prompts", "resources" };

/* --- the lists ------------------------------------------------------------- */

static void
mcp_pager_page(struct mcp_server *s, enum mcp_pager_kind k, const char *cursor)
{
	cJSON *params = NULL;

	if (cursor != NULL) {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "cursor", cursor);
	}
	if (mcp_request(s, MCP_REQ_PAGE, mcp_pager_method[k], params, NULL) == -1) {
		s->pager[k].busy = false;
		return;
	}
	s->pending->pager = k;	/* mcp_request puts the new request first */
}

void
mcp_pager_start(struct mcp_server *s, enum mcp_pager_kind k)
{
	struct mcp_pager *pg = &s->pager[k];

	if (!pg->offered || (s->state != MCP_STARTING && s->state != MCP_READY))
		return;
	if (pg->busy) {
		pg->again = true;
		return;
	}
	pg->busy = true;
	pg->again = false;
	pg->pages = 0;
	cJSON_Delete(pg->acc);
	pg->acc = cJSON_CreateArray();
	mcp_pager_page(s, k, NULL);
}

void
mcp_pager_answer(struct mcp_server *s, enum mcp_pager_kind k, const cJSON *result,
    const cJSON *error)
{
	struct mcp_pager *pg = &s->pager[k];
	const char *cursor = json_str(result, "nextCursor", NULL);
	const cJSON *it;

	if (!pg->busy || pg->acc == NULL)
		return;
	if (error != NULL || !cJSON_IsObject(result)) {
		if (s->notes.len < 8192)
			buf_printf(&s->notes, "it answered %s with an error: %.300s\n",
			    mcp_pager_method[k], json_str(error, "message", "no result"));
		pg->busy = false;
		cJSON_Delete(pg->acc);
		pg->acc = NULL;
		mcp_maybe_ready(s);
		return;
	}
	cJSON_ArrayForEach(it, json_get(result, mcp_pager_key[k]))
		if (cJSON_IsObject(it) && cJSON_IsString(json_get(it, k == MCP_PROMPTS ? "name" : "uri")))
			cJSON_AddItemToArray(pg->acc, cJSON_Duplicate(it, 1));
	if (cursor != NULL && cursor[0] != '\0' && ++pg->pages < MCP_PAGES_MAX) {
		mcp_pager_page(s, k, cursor);
		return;
	}
	cJSON_Delete(pg->list);
	pg->list = pg->acc;
	pg->acc = NULL;
	pg->busy = false;
	if (pg->again) {
		mcp_pager_start(s, k);
		return;
	}
	mcp_maybe_ready(s);
}

bool
mcp_pagers_busy(const struct mcp_server *s)
{
	int k;

	for (k = 0; k < MCP_PAGERS; k++)
		if (s->pager[k].busy)
			return true;
	return false;
}

void
mcp_pagers_release(struct mcp_server *s)
{
	int k;

	for (k = 0; k < MCP_PAGERS; k++) {
		cJSON_Delete(s->pager[k].acc);
		cJSON_Delete(s->pager[k].list);
		s->pager[k].acc = s->pager[k].list = NULL;
	}
}

/* "/mcp__<key>__<name>" of a prompt, in b. */
static void
mcp_prompt_command(const struct mcp_server *s, const cJSON *p, struct buf *b)
{
	char *n = mcp_sanitize(json_str(p, "name", ""), false, MCP_NAME_MAX);

	buf_printf(b, "/mcp__%s__%s", s->cfg.key, n);
	free(n);
}

/* The prompt's arguments as "<needed> [optional]", for a sentence. */
static void
mcp_prompt_usage(const cJSON *prompt, struct buf *b)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, json_get(prompt, "arguments"))
		buf_printf(b, json_bool(a, "required", false) ? " <%s>" : " [%s]",
		    json_str(a, "name", "?"));
}

void
mcp_res_report(const struct mcp_server *s, struct buf *out)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, s->pager[MCP_PROMPTS].list) {
		struct buf head = BUF_INIT(BUF_NOLIMIT);
		const char *d = json_str(p, "description", "");
		size_t dn = strcspn(d, "\n");

		mcp_prompt_command(s, p, &head);
		mcp_prompt_usage(p, &head);
		buf_printf(out, "  prompt %s  %.*s\n", buf_cstr(&head), (int)(dn > 100 ? 100 : dn), d);
		buf_release(&head);
	}
	cJSON_ArrayForEach(p, s->pager[MCP_RESOURCES].list)
		buf_printf(out, "  resource @%s:%s  %s%s%s%s\n", s->cfg.name, json_str(p, "uri", ""),
		    json_str(p, "name", ""), json_get(p, "mimeType") != NULL ? " (" : "",
		    json_str(p, "mimeType", ""), json_get(p, "mimeType") != NULL ? ")" : "");
}

void
mcp_mentions(const struct mcp *m, struct buf *out)
{
	const cJSON *p;
	size_t i;

	for (i = 0; m != NULL && i < m->n; i++)
		cJSON_ArrayForEach(p, m->srv[i].pager[MCP_RESOURCES].list) {
			buf_printf(out, "%s:%s", m->srv[i].cfg.name, json_str(p, "uri", ""));
			buf_putc(out, '\0');
		}
}

/* --- a prompt's expansion ---------------------------------------------------- */

struct mcp_fetch {
	struct mcp_expand	*job;
	struct mcp_server	*srv;
	bool			 is_prompt;
	bool			 over;
	char			*label;		/* server:uri, or the prompt's command */
	char			*error;		/* why it could not be read, or NULL */
	size_t			 bytes;		/* of the resource's text */
	struct buf		 text;		/* the prompt's text, or the attachment's block */
};

struct mcp_expand {
	struct mcp		*m;
	char			*prompt;
	mcp_expand_fn		*done;
	void			*arg;
	struct mcp_fetch	 f[MCP_EXPAND_FETCHES];
	size_t			 n, left;
	struct buf		 err;
	uint64_t		 timer, fire;
	bool			 waiting;	/* for servers still starting (mcp_wait) */
};

static void
mcp_expand_free(struct mcp_expand *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		free(e->f[i].label);
		free(e->f[i].error);
		buf_release(&e->f[i].text);
	}
	buf_release(&e->err);
	free(e->prompt);
	free(e);
}

/* Every request of e still pending is forgotten: its answer, if any, goes to nothing. */
static void
mcp_expand_drop(struct mcp_expand *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		struct mcp_pending **pp, *p;

		if (e->f[i].over || e->f[i].srv == NULL)
			continue;
		for (pp = &e->f[i].srv->pending; (p = *pp) != NULL; pp = &p->next)
			if (p->fetch == &e->f[i]) {
				*pp = p->next;
				free(p);
				break;
			}
		e->f[i].over = true;
	}
}

static void
mcp_expand_fire(struct ev_loop *loop, void *arg)
{
	struct mcp_expand *e = arg;
	cJSON *blocks = cJSON_CreateArray(), *notes = cJSON_CreateArray();
	struct buf text = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	(void)loop;
	e->fire = 0;
	if (e->timer != 0)
		ev_timer_cancel(e->m->loop, e->timer);
	e->timer = 0;
	mcp_expand_drop(e);
	if (e->err.len == 0) {
		buf_puts(&text, e->prompt);
		for (i = 0; i < e->n; i++) {
			if (e->f[i].is_prompt) {
				buf_reset(&text);
				buf_append(&text, e->f[i].text.data, e->f[i].text.len);
			} else {
				cJSON *b = cJSON_CreateObject(), *n = cJSON_CreateObject();

				cJSON_AddStringToObject(b, "type", "text");
				cJSON_AddStringToObject(b, "text", buf_cstr(&e->f[i].text));
				cJSON_AddItemToArray(blocks, b);
				cJSON_AddStringToObject(n, "path", e->f[i].label);
				cJSON_AddStringToObject(n, "kind", "mcp");
				cJSON_AddNumberToObject(n, "bytes", (double)e->f[i].bytes);
				if (e->f[i].error != NULL)
					cJSON_AddStringToObject(n, "error", e->f[i].error);
				cJSON_AddItemToArray(notes, n);
			}
		}
	}
	e->done(e->arg, e->err.len > 0 ? NULL : buf_cstr(&text), blocks, notes,
	    e->err.len > 0 ? buf_cstr(&e->err) : NULL);
	cJSON_Delete(notes);
	buf_release(&text);
	mcp_expand_free(e);
}

static void
mcp_expand_over(struct mcp_expand *e)
{
	if (e->fire == 0)
		e->fire = ev_timer_add(e->m->loop, 0, mcp_expand_fire, e);
}

static void
mcp_fetch_over(struct mcp_fetch *f)
{
	f->over = true;
	if (--f->job->left == 0)
		mcp_expand_over(f->job);
}

/* The block of a resource that could not be read. */
static void
mcp_fetch_fail_text(struct mcp_fetch *f, const char *why)
{
	struct mcp_expand *e = f->job;

	buf_reset(&f->text);
	free(f->error);
	f->error = xstrdup(why);
	if (f->is_prompt) {
		if (e->err.len == 0)
			buf_printf(&e->err, "the MCP prompt %s failed: %s", f->label, why);
		return;
	}
	buf_printf(&f->text, "<attachment resource=\"%s\" kind=\"mcp\">\nThe user mentioned this "
	    "resource, but it could not be read: %s\n</attachment>", f->label, why);
}

void
mcp_fetch_failed(struct mcp_fetch *f, const char *why)
{
	if (f->over)
		return;
	mcp_fetch_fail_text(f, why);
	mcp_fetch_over(f);
}

/*
 * Is uri a file: URI naming a file the Read deny rules cover?  A server
 * that reads files for its resources is held to the rules the user's own
 * mention of the file is (agent/attach.c); a name that cannot be decoded
 * counts as covered.
 */
static bool
mcp_uri_denied(const struct tool_env *env, const char *uri)
{
	struct buf path = BUF_INIT(BUF_NOLIMIT);
	const char *p;
	bool denied = false;
	char hex[3] = { 0, 0, 0 }, *end;
	long v;

	if (env == NULL || strncmp(uri, "file:", 5) != 0)
		return false;
	p = uri + 5;
	/* file:///path, file://host/path, file:/path */
	if (strncmp(p, "//", 2) == 0 && (p = strchr(p + 2, '/')) == NULL)
		return true;
	for (; *p != '\0' && *p != '?' && *p != '#'; p++) {
		if (*p != '%') {
			buf_putc(&path, *p);
			continue;
		}
		if (!isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2])) {
			denied = true;
			goto out;
		}
		hex[0] = p[1];
		hex[1] = p[2];
		v = strtol(hex, &end, 16);
		if (end != hex + 2 || v == 0) {
			denied = true;
			goto out;
		}
		buf_putc(&path, (char)v);
		p += 2;
	}
	denied = tool_denied(env, SANDBOX_READ, buf_cstr(&path));
out:
	buf_release(&path);
	return denied;
}

/* One content item of a prompt's message, or of a resource read, into t. */
static void
mcp_fetch_content(const struct tool_env *env, struct buf *t, const cJSON *c, bool framed)
{
	const char *type = json_str(c, "type", "");
	const cJSON *r = strcmp(type, "resource") == 0 ? json_get(c, "resource") : c;

	if (t->len > 0 && t->data[t->len - 1] != '\n')
		buf_puts(t, framed ? "\n" : "\n\n");
	if (strcmp(type, "text") != 0 && mcp_uri_denied(env, json_str(r, "uri", "")))
		buf_printf(t, "[the resource %s is a file a deny rule covers: not included]",
		    json_str(r, "uri", ""));
	else if (strcmp(type, "text") == 0)
		buf_puts(t, json_str(c, "text", ""));
	else if (json_get(r, "text") != NULL && framed)
		buf_puts(t, json_str(r, "text", ""));
	else if (json_get(r, "text") != NULL)
		buf_printf(t, "<resource uri=\"%s\">\n%s\n</resource>", json_str(r, "uri", ""),
		    json_str(r, "text", ""));
	else if (json_get(r, "blob") != NULL)
		buf_printf(t, "[the resource %s (%s) is binary: not included]", json_str(r, "uri", ""),
		    json_str(r, "mimeType", "no type given"));
	else
		buf_printf(t, "[a %s item was left out]", type[0] != '\0' ? type : "content");
}

/* Cut t at the attachment cap, on a character's start. */
static void
mcp_fetch_cap(struct buf *t, size_t from)
{
	size_t keep = from + MCP_ATTACH_CAP, total = t->len;

	if (total <= keep)
		return;
	while (keep > from && ((unsigned char)t->data[keep] & 0xc0) == 0x80)
		keep--;
	buf_truncate(t, keep);
	buf_printf(t, "\n[cut at %zu of %zu bytes]", keep - from, total - from);
}

void
mcp_fetch_answer(struct mcp_fetch *f, const cJSON *result, const cJSON *error)
{
	const cJSON *it;
	size_t from;

	if (f->over)
		return;
	if (error != NULL || !cJSON_IsObject(result)) {
		struct buf why = BUF_INIT(1024);

		buf_printf(&why, "the server %s answered with an error: %.300s", f->srv->cfg.name,
		    json_str(error, "message", "no result"));
		mcp_fetch_fail_text(f, buf_cstr(&why));
		buf_release(&why);
		mcp_fetch_over(f);
		return;
	}
	buf_reset(&f->text);
	if (f->is_prompt) {
		cJSON_ArrayForEach(it, json_get(result, "messages"))
			mcp_fetch_content(f->job->m->o.env, &f->text, json_get(it, "content"), false);
		if (f->text.len == 0)
			buf_printf(&f->job->err, "the MCP prompt %s returned no text", f->label);
	} else {
		buf_printf(&f->text, "<attachment resource=\"%s\" kind=\"mcp\">\n", f->label);
		from = f->text.len;
		cJSON_ArrayForEach(it, json_get(result, "contents"))
			mcp_fetch_content(f->job->m->o.env, &f->text, it, true);
		mcp_fetch_cap(&f->text, from);
		f->bytes = f->text.len - from;
		if (f->text.data[f->text.len - 1] != '\n')
			buf_putc(&f->text, '\n');
		buf_puts(&f->text, "</attachment>");
	}
	mcp_fetch_over(f);
}

static struct mcp_fetch *
mcp_fetch_new(struct mcp_expand *e, struct mcp_server *s, bool is_prompt, const char *label)
{
	struct mcp_fetch *f = &e->f[e->n++];

	f->job = e;
	f->srv = s;
	f->is_prompt = is_prompt;
	f->label = xstrdup(label);
	buf_init(&f->text, BUF_NOLIMIT);
	e->left++;
	return f;
}

static void
mcp_fetch_send(struct mcp_fetch *f, const char *method, cJSON *params)
{
	struct mcp_server *s = f->srv;

	if (s->state != MCP_READY) {
		struct buf why = BUF_INIT(1024);

		cJSON_Delete(params);
		buf_printf(&why, "the MCP server %s is not ready (%s)", s->cfg.name,
		    s->error != NULL ? s->error : mcp_state_names[s->state]);
		mcp_fetch_failed(f, buf_cstr(&why));
		buf_release(&why);
		return;
	}
	if (mcp_request(s, MCP_REQ_FETCH, method, params, NULL) == -1) {
		mcp_fetch_failed(f, "the server did not take the request");
		return;
	}
	s->pending->fetch = f;	/* mcp_request puts the new request first */
}

/* The server whose cfg.name is s[0..n), or NULL. */
static struct mcp_server *
mcp_server_named(struct mcp *m, const char *s, size_t n, bool by_key)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		const char *name = by_key ? m->srv[i].cfg.key : m->srv[i].cfg.name;

		if (name != NULL && strlen(name) == n && strncmp(name, s, n) == 0)
			return &m->srv[i];
	}
	return NULL;
}

/*
 * The next "@server:uri" mention in p from *pos (at the start or after a
 * blank or "(", a configured server's name): its server, and the uri in
 * uri; NULL at the end.
 */
static struct mcp_server *
mcp_mention_next(struct mcp *m, const char *p, size_t *pos, struct buf *uri)
{
	size_t i = *pos;

	for (; p[i] != '\0'; i++) {
		struct mcp_server *s;
		size_t n, u;

		if (p[i] != '@' || (i > 0 && strchr(" \t\n(", p[i - 1]) == NULL))
			continue;
		n = strcspn(p + i + 1, ": \t\n");
		if (p[i + 1 + n] != ':' || (s = mcp_server_named(m, p + i + 1, n, false)) == NULL)
			continue;
		u = strcspn(p + i + 2 + n, " \t\n");
		while (u > 0 && strchr(",.;!?)'\"", p[i + 1 + n + u]) != NULL)
			u--;
		if (u == 0)
			continue;
		buf_reset(uri);
		buf_append(uri, p + i + 2 + n, u);
		*pos = i + 2 + n + u;
		return s;
	}
	*pos = i;
	return NULL;
}

/* The words of args for the prompt's declared arguments, in order; the last takes the rest. */
static int
mcp_prompt_args(const cJSON *prompt, const char *args, cJSON *out, struct buf *err,
    const char *label)
{
	const cJSON *decl = json_get(prompt, "arguments"), *a;
	int i = 0, n = cJSON_GetArraySize(decl);

	while (*args == ' ' || *args == '\t' || *args == '\n')
		args++;
	if (n == 0 && *args != '\0') {
		buf_printf(err, "the MCP prompt %s takes no arguments; nothing was sent", label);
		return -1;
	}
	cJSON_ArrayForEach(a, decl) {
		size_t w;
		char *v;

		while (*args == ' ' || *args == '\t' || *args == '\n')
			args++;
		w = ++i == n ? strlen(args) : strcspn(args, " \t\n");
		while (w > 0 && strchr(" \t\n", args[w - 1]) != NULL)
			w--;
		if (w == 0) {
			if (!json_bool(a, "required", false))
				continue;
			buf_printf(err, "the MCP prompt %s needs its argument \"%s\" (usage: %s",
			    label, json_str(a, "name", "?"), label);
			mcp_prompt_usage(prompt, err);
			buf_puts(err, "); nothing was sent");
			return -1;
		}
		v = xmemdup(args, w);
		cJSON_AddStringToObject(out, json_str(a, "name", ""), v);
		free(v);
		args += w;
	}
	return 0;
}

/* "/mcp__<key>__<prompt> args": the prompts/get to send, or an error sentence. */
static void
mcp_expand_prompt(struct mcp_expand *e, const char *line)
{
	struct mcp *m = e->m;
	size_t n = strcspn(line, " \t\n");
	char *cmd = xmemdup(line, n);
	const char *sep = strstr(cmd + 6, "__");
	struct mcp_server *s;
	const cJSON *p, *found = NULL;
	struct buf name = BUF_INIT(BUF_NOLIMIT);
	cJSON *params, *args;

	s = sep != NULL ? mcp_server_named(m, cmd + 6, (size_t)(sep - cmd - 6), true) : NULL;
	if (s != NULL)
		cJSON_ArrayForEach(p, s->pager[MCP_PROMPTS].list) {
			buf_reset(&name);
			mcp_prompt_command(s, p, &name);
			if (strcmp(buf_cstr(&name), cmd) == 0) {
				found = p;
				break;
			}
		}
	if (s == NULL)
		buf_printf(&e->err, "%s is no MCP prompt: no MCP server is named after its "
		    "/mcp__<server>__ part (/mcp lists the servers and their prompts)", cmd);
	else if (found == NULL)
		buf_printf(&e->err, "the MCP server %s has no prompt %s%s (/mcp lists its prompts)",
		    s->cfg.name, cmd, s->state != MCP_READY ? ", or is not ready" : "");
	if (found == NULL)
		goto out;
	args = cJSON_CreateObject();
	if (mcp_prompt_args(found, line + n, args, &e->err, cmd) == -1) {
		cJSON_Delete(args);
		goto out;
	}
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", json_str(found, "name", ""));
	cJSON_AddItemToObject(params, "arguments", args);
	mcp_fetch_send(mcp_fetch_new(e, s, true, cmd), "prompts/get", params);
out:
	buf_release(&name);
	free(cmd);
}

static void
mcp_expand_mentions(struct mcp_expand *e)
{
	struct buf uri = BUF_INIT(BUF_NOLIMIT), label = BUF_INIT(BUF_NOLIMIT);
	struct mcp_server *s;
	size_t pos = 0, i;

	while (e->n < MCP_EXPAND_FETCHES && (s = mcp_mention_next(e->m, e->prompt, &pos, &uri)) != NULL) {
		cJSON *params;

		buf_reset(&label);
		buf_printf(&label, "%s:%s", s->cfg.name, buf_cstr(&uri));
		for (i = 0; i < e->n && strcmp(e->f[i].label, buf_cstr(&label)) != 0; i++)
			;
		if (i < e->n)
			continue;
		if (mcp_uri_denied(e->m->o.env, buf_cstr(&uri))) {
			mcp_fetch_failed(mcp_fetch_new(e, s, false, buf_cstr(&label)),
			    "it names a file a deny rule covers");
			continue;
		}
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "uri", buf_cstr(&uri));
		mcp_fetch_send(mcp_fetch_new(e, s, false, buf_cstr(&label)), "resources/read", params);
	}
	buf_release(&uri);
	buf_release(&label);
}

static void
mcp_expand_timeout(struct ev_loop *loop, void *arg)
{
	struct mcp_expand *e = arg;
	size_t i;

	(void)loop;
	e->timer = 0;
	for (i = 0; i < e->n; i++)
		if (!e->f[i].over) {
			struct buf why = BUF_INIT(1024);

			buf_printf(&why, "the server did not answer within %ld s (the setting "
			    "mcp.timeout_ms)", e->m->o.timeout_ms / 1000);
			mcp_fetch_fail_text(&e->f[i], buf_cstr(&why));
			buf_release(&why);
		}
	mcp_expand_drop(e);
	mcp_expand_over(e);
}

/* The servers have started (or the wait is over): send what the prompt asks for. */
static void
mcp_expand_go(void *arg)
{
	struct mcp_expand *e = arg;

	e->waiting = false;
	e->left++;	/* no end before every request is out */
	if (strncmp(e->prompt, "/mcp__", 6) == 0)
		mcp_expand_prompt(e, e->prompt);
	if (e->err.len == 0)
		mcp_expand_mentions(e);
	if (e->err.len > 0)
		mcp_expand_drop(e);
	e->timer = ev_timer_add(e->m->loop, e->m->o.timeout_ms, mcp_expand_timeout, e);
	if (--e->left == 0 || e->err.len > 0)
		mcp_expand_over(e);
}

struct mcp_expand *
mcp_expand_start(struct mcp *m, const char *prompt, mcp_expand_fn *done, void *arg)
{
	struct mcp_expand *e;
	struct buf uri = BUF_INIT(BUF_NOLIMIT);
	size_t pos = 0;
	bool mention;

	if (m == NULL || m->n == 0)
		return NULL;
	mention = mcp_mention_next(m, prompt, &pos, &uri) != NULL;
	buf_release(&uri);
	if (!mention && strncmp(prompt, "/mcp__", 6) != 0)
		return NULL;
	e = xcalloc(1, sizeof *e);
	e->m = m;
	e->prompt = xstrdup(prompt);
	e->done = done;
	e->arg = arg;
	buf_init(&e->err, 4096);
	e->waiting = true;
	if (!mcp_wait(m, mcp_expand_go, e))
		mcp_expand_go(e);
	return e;
}

void
mcp_expand_cancel(struct mcp_expand *e)
{
	if (e == NULL)
		return;
	if (e->waiting)
		mcp_wait_cancel(e->m);
	if (e->timer != 0)
		ev_timer_cancel(e->m->loop, e->timer);
	if (e->fire != 0)
		ev_timer_cancel(e->m->loop, e->fire);
	mcp_expand_drop(e);
	mcp_expand_free(e);
}
