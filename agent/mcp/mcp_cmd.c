/* mcp_cmd: `tandem mcp list|approve` and the servers' report (mcp_int.h). */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "ev.h"
#include "model/http.h"
#include "json.h"
#include "mcp_int.h"
#include "xalloc.h"

void
mcp_report(struct mcp *m, bool tools, struct buf *out)
{
	size_t i, k;

	if (m == NULL || m->n == 0) {
		buf_puts(out, "no MCP servers are configured (see tandem-config(5), MCP servers)\n");
		return;
	}
	for (i = 0; i < m->n; i++) {
		struct mcp_server *s = &m->srv[i];
		/* A list not yet in use (it is, from the next turn) is the one to show. */
		struct mcp_toolset *fresh = s->staged != NULL ? mcp_toolset_build(s, s->staged, NULL) : NULL;
		const struct mcp_toolset *ts = fresh != NULL ? fresh : s->tools;
		const char *state = s->cfg.error != NULL ? "bad entry" : !s->cfg.approved ?
		    "needs approval" : s->reask ? "needs approval again (its tools changed)" :
		    mcp_state_names[s->state];

		buf_printf(out, "%s: %s", s->cfg.name, state);
		if (s->state == MCP_READY || ts != NULL)
			buf_printf(out, ", %zu tool%s", ts != NULL ? ts->n : 0,
			    ts != NULL && ts->n == 1 ? "" : "s");
		buf_printf(out, " (%s: ", s->cfg.type == MCP_STDIO ? "stdio" :
		    s->cfg.type == MCP_HTTP ? "http" : "sse");
		if (s->cfg.type == MCP_STDIO) {
			buf_puts(out, s->cfg.command != NULL ? s->cfg.command : "?");
			for (k = 0; s->cfg.args != NULL && s->cfg.args[k] != NULL; k++)
				buf_printf(out, " %s", s->cfg.args[k]);
		} else
			buf_puts(out, s->cfg.url != NULL ? s->cfg.url : "?");
		buf_printf(out, "; from %s)\n", s->cfg.source);
		if (!s->cfg.approved && s->cfg.error == NULL)
			mcp_server_describe(&s->cfg, out);
		if (s->error != NULL && s->state != MCP_READY)
			buf_printf(out, "  error: %s\n", s->error);
		if (s->notes.len > 0) {
			const char *p = buf_cstr(&s->notes);

			while (*p != '\0') {
				size_t n = strcspn(p, "\n");

				buf_printf(out, "  note: %.*s\n", (int)n, p);
				p += n + (p[n] == '\n');
			}
		}
		for (k = 0; tools && ts != NULL && k < ts->n; k++) {
			size_t dn = strcspn(ts->v[k].desc, "\n");

			buf_printf(out, "  %s%s  %.*s\n", ts->v[k].name,
			    ts->v[k].def.parallel ? " (read-only hint)" : "", (int)(dn > 100 ? 100 : dn),
			    ts->v[k].desc);
		}
		if (tools)
			mcp_res_report(s, out);
		mcp_toolset_free(fresh);
	}
	if (m->deferred)
		buf_printf(out, "the tools' definitions pass %ld bytes: the model finds them "
		    "through the %s tool\n", m->o.defer_bytes, MCP_PROXY_TOOL);
}

static void
mcp_command_tick(struct ev_loop *loop, void *arg)
{
	(void)arg;
	ev_break(loop);
}

/* Start the servers of m and wait for them, a bounded time. */
static void
mcp_start_and_wait(struct ev_loop *loop, struct mcp *m)
{
	int64_t until;

	mcp_start(m);
	until = ev_now_ms() + (m != NULL ? m->o.start_wait_ms : 0);
	while (m != NULL && mcp_starting(m) && ev_now_ms() < until) {
		uint64_t t = ev_timer_add(loop, until - ev_now_ms(), mcp_command_tick, NULL);

		ev_run_once(loop, 100);
		ev_timer_cancel(loop, t);
	}
	mcp_sync(m, NULL);
}

/*
 * `tandem mcp approve`: start the project's servers that wait for
 * approval (or whose tools changed since), show what each would put in
 * the prompt, and record it.
 */
static int
mcp_approve(const struct config *cfg, struct buf *out, struct buf *err)
{
	struct mcp_config mc, mine;
	struct ev_loop *loop;
	struct http *http;
	struct mcp_opts o;
	struct mcp *m;
	char (*old)[65];
	bool *was;
	size_t i, k;
	int r = 0, shown = 0;

	if (!cfg->trusted) {
		buf_puts(err, "this project is not trusted: run tandem --trust once, then "
		    "tandem mcp approve");
		return -1;
	}
	mcp_config_init(&mc);
	mcp_config_init(&mine);
	mcp_config_load(&mc, cfg, err);
	buf_reset(err);
	/* Only the project's servers, and only those that can run. */
	for (i = 0; i < mc.n; i++) {
		if (!mc.v[i].project || mc.v[i].error != NULL) {
			mcp_server_cfg_release(&mc.v[i]);
			continue;
		}
		mine.v = xreallocarray(mine.v, mine.n + 1, sizeof *mine.v);
		mine.v[mine.n++] = mc.v[i];
	}
	free(mc.v);
	if (mine.n == 0) {
		buf_puts(out, "this project defines no MCP server to approve\n");
		mcp_config_release(&mine);
		return 0;
	}
	old = xcalloc(mine.n, sizeof *old);
	was = xcalloc(mine.n, sizeof *was);
	for (i = 0; i < mine.n; i++) {
		memcpy(old[i], mine.v[i].tools_hash, sizeof old[i]);
		was[i] = mine.v[i].approved;
		mine.v[i].approved = true;
		mine.v[i].tools_hash[0] = '\0';
	}
	if ((loop = ev_loop_new()) == NULL) {
		buf_puts(err, "cannot create the event loop");
		mcp_config_release(&mine);
		free(old);
		free(was);
		return -1;
	}
	http = http_new(loop);
	memset(&o, 0, sizeof o);
	o.start_wait_ms = cfg->mcp_start_wait_ms;
	o.root = cfg->root;
	m = mcp_new(loop, http, &mine, &o);
	mcp_start_and_wait(loop, m);
	for (i = 0; i < m->n; i++) {
		struct mcp_server *s = &m->srv[i];
		const struct mcp_toolset *ts = s->tools;
		char h[65];

		if (s->state != MCP_READY || ts == NULL) {
			buf_printf(out, "%s: not approved: it could not be started: %s\n", s->cfg.name,
			    s->error != NULL ? s->error : "it did not answer in time");
			continue;
		}
		mcp_toolset_hash(ts, h);
		if (was[i] && (old[i][0] == '\0' || strcmp(old[i], h) == 0)) {
			buf_printf(out, "%s: already approved\n", s->cfg.name);
			continue;
		}
		buf_printf(out, "approved %s, from %s:\n", s->cfg.name, s->cfg.source);
		mcp_server_describe(&s->cfg, out);
		buf_printf(out, "  its %zu tools, as the model will read them:\n", ts->n);
		for (k = 0; k < ts->n; k++)
			buf_printf(out, "  %s: %s\n", ts->v[k].name, ts->v[k].desc);
		if (mcp_config_record(cfg, &s->cfg, h, err) == -1) {
			r = -1;
			break;
		}
		shown++;
	}
	mcp_free(m);
	http_free(http);
	ev_loop_free(loop);
	if (shown == 0 && r == 0)
		buf_puts(out, "nothing new to approve\n");
	free(old);
	free(was);
	return r;
}

int
mcp_command(const struct config *cfg, const char *what, struct buf *out, struct buf *err)
{
	struct ev_loop *loop;
	struct http *http;
	struct mcp *m;

	if (strcmp(what, "approve") == 0)
		return mcp_approve(cfg, out, err);
	if (strcmp(what, "list") != 0) {
		buf_printf(err, "tandem mcp: \"%s\" is no subcommand; use tandem mcp list or "
		    "tandem mcp approve", what);
		return -1;
	}
	if ((loop = ev_loop_new()) == NULL) {
		buf_puts(err, "cannot create the event loop");
		return -1;
	}
	http = http_new(loop);
	m = mcp_from_config(loop, http, cfg, NULL, out);
	mcp_start_and_wait(loop, m);
	mcp_report(m, true, out);
	mcp_free(m);
	http_free(http);
	ev_loop_free(loop);
	return 0;
}
