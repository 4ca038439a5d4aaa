/*
 * lsp_server: one language server as a child on the loop: its pipes, the
 * framing, requests and their replies, what it asks of the client, and
 * its faults (a crash, a hang at start, a flood, garbage).
 */
#include "autoconf.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "ev.h"
#include "file.h"
#include "jail/jail.h"
#include "json.h"
#include "lsp_int.h"
#include "proc.h"
#include "tool.h"
#include "xalloc.h"

static void lsp_server_flush(struct lsp_server *);

/* TANDEM_LSP_TRACE=FILE: every message in and out, for debugging a server. */
static void
lsp_trace(const struct lsp_server *s, const char *dir, const char *p, size_t n)
{
	const char *path = getenv("TANDEM_LSP_TRACE");
	FILE *f;

	if (path == NULL || path[0] == '\0' || (f = fopen(path, "a")) == NULL)
		return;
	fprintf(f, "%lld %s %s %.*s\n", (long long)ev_now_ms() % 100000, s->def->name, dir,
	    (int)(n > 2000 ? 2000 : n), p);
	fclose(f);
}

void
lsp_trace_note(const char *what, long long n)
{
	const char *path = getenv("TANDEM_LSP_TRACE");
	FILE *f;

	if (path == NULL || path[0] == '\0' || (f = fopen(path, "a")) == NULL)
		return;
	fprintf(f, "%lld - %s %lld\n", (long long)ev_now_ms() % 100000, what, n);
	fclose(f);
}

static void
lsp_server_close_fd(struct lsp_server *s, int *fd)
{
	if (*fd == -1)
		return;
	ev_io_del(s->lsp->loop, *fd);
	close(*fd);
	*fd = -1;
}

static void
lsp_server_send_json(struct lsp_server *s, cJSON *msg)
{
	char *text;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (s->in == -1 || s->queue.len + strlen(text) + 64 > LSP_QUEUE_MAX) {
		free(text);
		return;
	}
	lsp_trace(s, ">", text, strlen(text));
	lsp_frame_put(&s->queue, text, strlen(text));
	free(text);
	lsp_server_flush(s);
}

void
lsp_server_request(struct lsp_server *s, const char *method, cJSON *params,
    lsp_reply_fn *fn, void *arg)
{
	cJSON *m = cJSON_CreateObject();
	struct lsp_req *r = xcalloc(1, sizeof *r);

	r->id = ++s->next_id;
	r->fn = fn;
	r->arg = arg;
	r->next = s->reqs;
	s->reqs = r;
	cJSON_AddNumberToObject(m, "id", (double)r->id);
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params != NULL ? params : cJSON_CreateObject());
	lsp_server_send_json(s, m);
}

void
lsp_server_notify(struct lsp_server *s, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params != NULL ? params : cJSON_CreateObject());
	lsp_server_send_json(s, m);
}

void
lsp_server_forget(struct lsp_server *s, void *arg)
{
	struct lsp_req *r;

	for (r = s->reqs; r != NULL; r = r->next)
		if (r->arg == arg)
			r->fn = NULL;
}

static void
lsp_server_reply(struct lsp_server *s, const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(m, "result", result != NULL ? result : cJSON_CreateNull());
	lsp_server_send_json(s, m);
}

/* The settings section a workspace/configuration item asks for ("a.b" walks the object). */
static cJSON *
lsp_server_section(const struct lsp_server *s, const char *section)
{
	const cJSON *v = s->def->settings;
	char part[256];

	if (v == NULL)
		return cJSON_CreateNull();
	if (section == NULL || section[0] == '\0')
		return cJSON_Duplicate(v, 1);
	while (v != NULL && *section != '\0') {
		size_t n = strcspn(section, ".");

		if (n >= sizeof part)
			return cJSON_CreateNull();
		memcpy(part, section, n);
		part[n] = '\0';
		v = json_get(v, part);
		section += n + (section[n] == '.');
	}
	return v != NULL ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
}

/* What a server asks of the client. */
static void
lsp_server_on_request(struct lsp_server *s, const cJSON *id, const char *method, const cJSON *params)
{
	if (strcmp(method, "workspace/configuration") == 0) {
		cJSON *out = cJSON_CreateArray(), *item;

		cJSON_ArrayForEach(item, json_get(params, "items"))
			cJSON_AddItemToArray(out, lsp_server_section(s, json_str(item, "section", NULL)));
		lsp_server_reply(s, id, out);
	} else if (strcmp(method, "client/registerCapability") == 0) {
		const cJSON *r;

		cJSON_ArrayForEach(r, json_get(params, "registrations"))
			if (strcmp(json_str(r, "method", ""), "workspace/didChangeWatchedFiles") == 0)
				s->watch = true;
		lsp_server_reply(s, id, NULL);
	} else if (strcmp(method, "window/workDoneProgress/create") == 0 ||
	    strcmp(method, "client/unregisterCapability") == 0 ||
	    strcmp(method, "window/showMessageRequest") == 0 ||
	    strcmp(method, "workspace/diagnostic/refresh") == 0 ||
	    strcmp(method, "workspace/semanticTokens/refresh") == 0 ||
	    strcmp(method, "workspace/inlayHint/refresh") == 0 ||
	    strcmp(method, "workspace/codeLens/refresh") == 0) {
		lsp_server_reply(s, id, NULL);
	} else if (strcmp(method, "workspace/workspaceFolders") == 0) {
		cJSON *arr = cJSON_CreateArray(), *f = cJSON_CreateObject();
		char *uri = lsp_path_uri(s->lsp->cfg->root);

		cJSON_AddStringToObject(f, "uri", uri);
		cJSON_AddStringToObject(f, "name", "workspace");
		cJSON_AddItemToArray(arr, f);
		free(uri);
		lsp_server_reply(s, id, arr);
	} else {
		cJSON *m = cJSON_CreateObject(), *e = cJSON_CreateObject();

		cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
		cJSON_AddNumberToObject(e, "code", -32601);
		cJSON_AddStringToObject(e, "message", "method not supported by tandem");
		cJSON_AddItemToObject(m, "error", e);
		lsp_server_send_json(s, m);
	}
}

static void
lsp_server_on_reply(struct lsp_server *s, const cJSON *msg)
{
	const cJSON *id = json_get(msg, "id");
	struct lsp_req **pp, *r;

	if (!cJSON_IsNumber(id))
		return;
	for (pp = &s->reqs; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->id == (long)id->valuedouble)
			break;
	if ((r = *pp) == NULL)
		return;
	*pp = r->next;
	if (r->fn != NULL)
		r->fn(s, r->arg, json_get(msg, "result"), json_get(msg, "error"));
	free(r);
}

static void
lsp_server_on_body(void *arg, const char *body, size_t n)
{
	struct lsp_server *s = arg;
	cJSON *msg = cJSON_ParseWithLength(body, n);
	const char *method;

	lsp_trace(s, "<", body, n);
	if (s->why != NULL || s->state == LSP_DEAD) {
		cJSON_Delete(msg);
		return;
	}
	if (!cJSON_IsObject(msg)) {
		cJSON_Delete(msg);
		lsp_server_fail(s, "spoke garbage (a message that is not a JSON object)");
		return;
	}
	method = json_str(msg, "method", NULL);
	if (method != NULL && json_get(msg, "id") != NULL)
		lsp_server_on_request(s, json_get(msg, "id"), method, json_get(msg, "params"));
	else if (method != NULL && !s->closing)
		s->ev->notify(s, method, json_get(msg, "params"));
	else
		lsp_server_on_reply(s, msg);
	cJSON_Delete(msg);
}

const char *
lsp_server_log(const struct lsp_server *s)
{
	return buf_cstr(&s->log);
}

/* A second's output past LSP_FLOOD_BYTES: the server is flooding. */
static bool
lsp_server_flooding(struct lsp_server *s, size_t n)
{
	int64_t now = ev_now_ms();

	if (now - s->flood_at >= 1000) {
		s->flood_at = now;
		s->flood_bytes = 0;
	}
	s->flood_bytes += n;
	return s->flood_bytes > LSP_FLOOD_BYTES;
}

static void lsp_server_gone(struct lsp_server *);

static void
lsp_server_on_out(struct ev_loop *loop, int fd, int revents, void *arg)
{
	struct lsp_server *s = arg;
	char chunk[65536];
	int rounds;

	(void)loop;
	(void)revents;
	for (rounds = 0; rounds < 16; rounds++) {
		ssize_t r = read(fd, chunk, sizeof chunk);

		if (r > 0 && fd == s->err) {
			buf_append_tail(&s->log, chunk, (size_t)r, LSP_LOG_KEEP);
			if (lsp_server_flooding(s, (size_t)r)) {
				lsp_server_fail(s, "flooded its log (more than 32 MB in a second)");
				return;
			}
			continue;
		}
		if (r > 0) {
			if (lsp_server_flooding(s, (size_t)r)) {
				lsp_server_fail(s, "flooded tandem (more than 32 MB in a second)");
				return;
			}
			lsp_frames_feed(&s->frames, chunk, (size_t)r, lsp_server_on_body, s);
			if (lsp_frames_broken(&s->frames) != NULL && s->why == NULL) {
				snprintf(s->why_buf, sizeof s->why_buf, "spoke garbage (%s)",
				    lsp_frames_broken(&s->frames));
				lsp_server_fail(s, s->why_buf);
			}
			if (s->out == -1 || s->why != NULL)
				return;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (fd == s->err) {
			lsp_server_close_fd(s, &s->err);
			return;
		}
		lsp_server_close_fd(s, &s->out);
		lsp_server_gone(s);
		return;
	}
}

static void
lsp_server_flush(struct lsp_server *s)
{
	int r;

	if (s->in == -1)
		return;
	if ((r = file_write_queue(s->in, &s->queue)) == -1) {
		buf_reset(&s->queue);
		lsp_server_close_fd(s, &s->in);
		return;
	}
	ev_io_mod(s->lsp->loop, s->in, r == 1 ? POLLOUT : 0);
}

static void
lsp_server_on_in(struct ev_loop *loop, int fd, int revents, void *arg)
{
	(void)loop;
	(void)fd;
	(void)revents;
	lsp_server_flush(arg);
}

/* Every waiting reply ends with an error (the server is gone). */
static void
lsp_server_drop_replies(struct lsp_server *s)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "message", "the language server ended");
	while (s->reqs != NULL) {
		struct lsp_req *r = s->reqs;

		s->reqs = r->next;
		if (r->fn != NULL)
			r->fn(s, r->arg, NULL, e);
		free(r);
	}
	cJSON_Delete(e);
}

/* Its output is over and the keeper reaped: tell the owner once. */
static void
lsp_server_gone(struct lsp_server *s)
{
	if (!s->reaped || s->out != -1 || s->state == LSP_DEAD || s->closing)
		return;
	/* its last words are in the pipe already: read them before its end is told */
	if (s->err != -1)
		lsp_server_on_out(s->lsp->loop, s->err, POLLIN, s);
	s->state = LSP_DEAD;
	lsp_server_close_fd(s, &s->in);
	lsp_server_close_fd(s, &s->err);
	if (s->timer != 0)
		ev_timer_cancel(s->lsp->loop, s->timer);
	s->timer = 0;
	lsp_server_drop_replies(s);
	s->ev->end(s, 0);
}

static void
lsp_server_on_child(struct ev_loop *loop, pid_t pid, int status, void *arg)
{
	struct lsp_server *s = arg;

	(void)loop;
	(void)status;
	s->reaped = true;
	proc_forget(pid);
	if (s->out != -1)
		lsp_server_on_out(s->lsp->loop, s->out, POLLIN, s);
	lsp_server_close_fd(s, &s->out);
	lsp_server_gone(s);
}

void
lsp_server_fail(struct lsp_server *s, const char *why)
{
	if (s->why != NULL || s->state == LSP_DEAD)
		return;
	s->why = why;
	buf_reset(&s->queue);
	lsp_server_close_fd(s, &s->in);
	if (!s->reaped)
		proc_kill(s->pid, SIGKILL);
}

static void
lsp_server_start_timeout(struct ev_loop *loop, void *arg)
{
	struct lsp_server *s = arg;

	(void)loop;
	s->timer = 0;
	if (s->state == LSP_STARTING)
		lsp_server_fail(s, "did not answer initialize in time");
}

/* The encoding the server chose (3.17's positionEncoding, or clangd's offsetEncoding). */
static enum lsp_enc
lsp_server_encoding(const cJSON *result)
{
	const char *e = json_str(json_get(result, "capabilities"), "positionEncoding", NULL);

	if (e == NULL)
		e = json_str(result, "offsetEncoding", NULL);
	if (e != NULL && strcmp(e, "utf-8") == 0)
		return LSP_ENC_UTF8;
	if (e != NULL && strcmp(e, "utf-32") == 0)
		return LSP_ENC_UTF32;
	return LSP_ENC_UTF16;
}

static void
lsp_server_initialized(struct lsp_server *s, void *arg, const cJSON *result, const cJSON *error)
{
	const cJSON *caps = json_get(result, "capabilities");

	(void)arg;
	if (error != NULL || !cJSON_IsObject(caps)) {
		if (s->state == LSP_STARTING)
			lsp_server_fail(s, "refused initialize");
		return;
	}
	if (s->timer != 0)
		ev_timer_cancel(s->lsp->loop, s->timer);
	s->timer = 0;
	s->enc = lsp_server_encoding(result);
	s->pull = json_get(caps, "diagnosticProvider") != NULL;
	s->state = LSP_READY;
	lsp_server_notify(s, "initialized", NULL);
	if (s->def->settings != NULL) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddItemToObject(p, "settings", cJSON_Duplicate(s->def->settings, 1));
		lsp_server_notify(s, "workspace/didChangeConfiguration", p);
	}
	s->ev->ready(s);
}

/*
 * What tandem can do.  Not workspace.workspaceFolders: pyright, told so,
 * waits for the folders to be sent again before it analyses anything.
 */
static cJSON *
lsp_client_caps(void)
{
	static const char caps[] =
	    "{\"general\":{\"positionEncodings\":[\"utf-8\",\"utf-16\"]},"
	    "\"offsetEncoding\":[\"utf-8\",\"utf-16\"],"
	    "\"workspace\":{\"configuration\":true,"
	    "\"didChangeWatchedFiles\":{\"dynamicRegistration\":true},"
	    "\"didChangeConfiguration\":{\"dynamicRegistration\":false},"
	    "\"symbol\":{\"dynamicRegistration\":false}},"
	    "\"window\":{\"workDoneProgress\":true},"
	    "\"textDocument\":{\"synchronization\":{\"didSave\":true,\"dynamicRegistration\":false},"
	    "\"publishDiagnostics\":{\"versionSupport\":true,\"relatedInformation\":false},"
	    "\"diagnostic\":{\"dynamicRegistration\":false,\"relatedDocumentSupport\":false},"
	    "\"definition\":{\"linkSupport\":false},\"references\":{},"
	    "\"hover\":{\"contentFormat\":[\"plaintext\",\"markdown\"]},"
	    "\"documentSymbol\":{\"hierarchicalDocumentSymbolSupport\":true}}}";

	return cJSON_Parse(caps);
}

static void
lsp_server_initialize(struct lsp_server *s)
{
	cJSON *p = cJSON_CreateObject(), *folders = cJSON_CreateArray(), *f = cJSON_CreateObject(),
	    *info = cJSON_CreateObject();
	char *uri = lsp_path_uri(s->lsp->cfg->root);

	cJSON_AddNumberToObject(p, "processId", (double)getpid());
	cJSON_AddStringToObject(info, "name", "tandem");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(p, "clientInfo", info);
	cJSON_AddStringToObject(p, "rootPath", s->lsp->cfg->root);
	cJSON_AddStringToObject(p, "rootUri", uri);
	cJSON_AddStringToObject(f, "uri", uri);
	cJSON_AddStringToObject(f, "name", "workspace");
	cJSON_AddItemToArray(folders, f);
	cJSON_AddItemToObject(p, "workspaceFolders", folders);
	cJSON_AddItemToObject(p, "capabilities", lsp_client_caps());
	if (s->def->init_options != NULL)
		cJSON_AddItemToObject(p, "initializationOptions", cJSON_Duplicate(s->def->init_options, 1));
	free(uri);
	lsp_server_request(s, "initialize", p, lsp_server_initialized, NULL);
	s->timer = ev_timer_add(s->lsp->loop, s->def->start_ms, lsp_server_start_timeout, s);
}

struct lsp_server *
lsp_server_start(struct lsp *l, struct lsp_def *def, const struct lsp_server_events *ev,
    struct buf *err)
{
	struct proc_spec spec;
	struct proc p;
	struct lsp_server *s;
	const char **argv, **envv = NULL;
	char *program = proc_which(def->command);
	size_t i, n = 0;
	int rc;

	if (program == NULL) {
		buf_printf(err, "%s is not on PATH", def->command);
		return NULL;
	}
	while (def->args != NULL && def->args[n] != NULL)
		n++;
	argv = xcalloc(n + 2, sizeof *argv);
	argv[0] = program;
	for (i = 0; i < n; i++)
		argv[i + 1] = def->args[i];
	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.dir = l->cfg->root;
	spec.in = spec.out = spec.err = PROC_IO_PIPE;
	spec.redact_env = true;
	spec.long_lived = true;
	spec.env_set = (const char *const *)def->env;
	for (n = 0; def->env != NULL && def->env[n] != NULL; n++)
		;
	/*
	 * An untrusted project's server runs in the sandbox, read-only: it may
	 * read the project, and what the project makes it run (a build
	 * script, a plugin) can write nothing but a private /tmp.
	 */
	if (!l->cfg->trusted) {
		if (l->ro_jail == NULL) {
			struct jail_config jc = l->cfg->sandbox;

			jc.layers[JAIL_LAYER_FLAG].has_mode = true;
			jc.layers[JAIL_LAYER_FLAG].mode = JAIL_READ_ONLY;
			jc.layers[JAIL_LAYER_FLAG].has_network = true;
			jc.layers[JAIL_LAYER_FLAG].network = false;
			l->ro_jail = jail_new(&jc, false, l->cfg->root, getenv("HOME"));
		}
		if (!jail_usable(l->ro_jail)) {
			buf_printf(err, "the sandbox cannot run: %s", jail_unusable(l->ro_jail) != NULL ?
			    jail_unusable(l->ro_jail) : "unknown");
			free(program);
			free(argv);
			return NULL;
		}
		spec.pre_exec = jail_enter;
		spec.arg = l->ro_jail;
		spec.env_unset = jail_env_unset();
		for (i = 0; jail_env_set()[i] != NULL; i++)
			n++;
		envv = xcalloc(n + i + 1, sizeof *envv);
		for (n = 0; def->env != NULL && def->env[n] != NULL; n++)
			envv[n] = def->env[n];
		for (i = 0; jail_env_set()[i] != NULL; i++)
			envv[n + i] = jail_env_set()[i];
		spec.env_set = envv;
	}
	rc = proc_spawn(&spec, &p, err);
	free(envv);
	free(argv);
	free(program);
	if (rc == -1)
		return NULL;
	s = xcalloc(1, sizeof *s);
	s->lsp = l;
	s->ev = ev;
	s->def = def;
	s->state = LSP_STARTING;
	s->pid = p.pid;
	s->in = p.in;
	s->out = p.out;
	s->err = p.err;
	s->flood_at = ev_now_ms();
	buf_init(&s->queue, LSP_QUEUE_MAX + 1);
	buf_init(&s->log, LSP_LOG_KEEP + 1);
	lsp_frames_init(&s->frames, LSP_BODY_MAX);
	ev_io_add(l->loop, s->in, 0, lsp_server_on_in, s);
	ev_io_add(l->loop, s->out, POLLIN, lsp_server_on_out, s);
	ev_io_add(l->loop, s->err, POLLIN, lsp_server_on_out, s);
	ev_child_add(l->loop, s->pid, lsp_server_on_child, s);
	lsp_server_initialize(s);
	return s;
}

/* Write what is queued, blocking up to until (the loop is not running any more). */
static void
lsp_server_drain_sync(struct lsp_server *s, int64_t until)
{
	while (s->in != -1 && s->queue.len > 0 && ev_now_ms() < until) {
		struct pollfd pfd = { s->in, POLLOUT, 0 };

		if (poll(&pfd, 1, 50) > 0)
			lsp_server_flush(s);
	}
}

static bool
lsp_server_waits_for(const struct lsp_server *s, long id)
{
	const struct lsp_req *r;

	for (r = s->reqs; r != NULL; r = r->next)
		if (r->id == id)
			return true;
	return false;
}

/* Read replies, blocking up to until, while the shutdown request is unanswered. */
static void
lsp_server_await_shutdown(struct lsp_server *s, int64_t until)
{
	while (s->out != -1 && lsp_server_waits_for(s, s->shutdown_id) && ev_now_ms() < until) {
		struct pollfd pfd = { s->out, POLLIN, 0 };

		if (poll(&pfd, 1, 50) > 0)
			lsp_server_on_out(s->lsp->loop, s->out, POLLIN, s);
	}
}

void
lsp_server_close(struct lsp_server *s)
{
	int64_t now = ev_now_ms();

	if (s == NULL)
		return;
	s->cleanly = true;
	s->closing = true;
	if (s->timer != 0)
		ev_timer_cancel(s->lsp->loop, s->timer);
	if (s->free_timer != 0)
		ev_timer_cancel(s->lsp->loop, s->free_timer);
	if (s->state == LSP_READY && s->in != -1 && s->why == NULL) {
		s->state = LSP_STOPPING;
		lsp_server_request(s, "shutdown", NULL, NULL, NULL);
		s->shutdown_id = s->next_id;
		lsp_server_drain_sync(s, now + 300);
		lsp_server_await_shutdown(s, now + 500);
		lsp_server_notify(s, "exit", NULL);
		lsp_server_drain_sync(s, now + 600);
	}
	lsp_server_close_fd(s, &s->in);
	lsp_server_close_fd(s, &s->out);
	lsp_server_close_fd(s, &s->err);
	if (!s->reaped) {
		ev_child_del(s->lsp->loop, s->pid);
		proc_end(s->pid, 400);
	}
	lsp_server_drop_replies(s);
	buf_release(&s->queue);
	buf_release(&s->log);
	lsp_frames_release(&s->frames);
	free(s);
}
