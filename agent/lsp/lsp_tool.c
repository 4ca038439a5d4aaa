/*
 * lsp_tool: the code tool: definitions, references, hover text and
 * symbols from the language servers, on the loop (read-only, parallel).
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "ev.h"
#include "file.h"
#include "json.h"
#include "lsp_int.h"
#include "tool.h"
#include "utf8.h"
#include "xalloc.h"

#define LSP_TOOL_POLL_MS	100	/* while the server starts */
#define LSP_TOOL_RESULTS	50	/* locations or symbols listed */

const char lsp_code_description[] =
    "Ask the language server: operation \"definition\" (where the symbol at "
    "path:line:column is defined), \"references\" (its uses), \"hover\" (its "
    "type and docs), \"document_symbols\" (path's outline), "
    "\"workspace_symbols\" (symbols matching query). line and column are "
    "1-based, column in characters. Read-only.";

const char lsp_code_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"operation\":{\"type\":\"string\",\"enum\":[\"definition\",\"references\",\"hover\","
    "\"document_symbols\",\"workspace_symbols\"]},"
    "\"path\":{\"type\":\"string\"},"
    "\"line\":{\"type\":\"integer\",\"minimum\":1},"
    "\"column\":{\"type\":\"integer\",\"minimum\":1},"
    "\"query\":{\"type\":\"string\"}},"
    "\"required\":[\"operation\"]}";

static const struct lsp_op {
	const char	*name;
	const char	*method;
	bool		 position;
} lsp_ops[] = {
	{ "definition",		"textDocument/definition",	true },
	{ "references",		"textDocument/references",	true },
	{ "hover",		"textDocument/hover",		true },
	{ "document_symbols",	"textDocument/documentSymbol",	false },
	{ "workspace_symbols",	"workspace/symbol",		false },
};

static const char *const lsp_kinds[] = { "?", "file", "module", "namespace", "package", "class",
	"method", "property", "field", "constructor", "enum", "interface", "function", "variable",
	"constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member",
	"struct", "event", "operator", "type parameter" };

struct lsp_job {
	struct lsp		*lsp;
	const struct lsp_op	*op;
	cJSON			*input;
	struct lsp_doc		*doc;
	struct lsp_server	*asked;		/* the server the request went to */
	tool_async_done_fn	*done;
	void			*arg;
	uint64_t		 timer;
	int64_t			 deadline;
	struct tool_out		 out;
	struct lsp_job		*next;
};

static void
lsp_job_unlink(struct lsp_job *j)
{
	struct lsp_job **pp;

	for (pp = &j->lsp->jobs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
}

static void
lsp_job_finish(struct lsp_job *j)
{
	lsp_job_unlink(j);
	if (j->timer != 0)
		ev_timer_cancel(j->lsp->loop, j->timer);
	if (j->asked != NULL)
		lsp_server_forget(j->asked, j);
	tool_out_sanitize(&j->out);
	j->done(j->arg, &j->out, 0);
	tool_out_release(&j->out);
	cJSON_Delete(j->input);
	free(j);
}

static const char *
lsp_kind(int k)
{
	return k >= 1 && k < (int)(sizeof lsp_kinds / sizeof lsp_kinds[0]) ? lsp_kinds[k] : "?";
}

/* Is path, links followed, in the workspace or a directory added to it: where read_file reads? */
static bool
lsp_quotable(const struct lsp *l, const char *path)
{
	char *real = realpath(path, NULL), *root = realpath(l->cfg->root, NULL);
	char *const *d;
	bool in = false;
	size_t n;

	if (real != NULL && root != NULL) {
		n = strlen(root);
		in = strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
		for (d = l->cfg->add_dirs; !in && d != NULL && *d != NULL; d++) {
			n = strlen(*d);
			in = strncmp(real, *d, n) == 0 && (real[n] == '/' || real[n] == '\0');
		}
	}
	free(real);
	free(root);
	return in;
}

/*
 * "path:line:col: text of the line" for a location, read from the file on
 * disk; a file outside the workspace (a header the server found, or one
 * a project's #include reaches in ~/.ssh) is named without its text.
 */
static void
lsp_put_location(struct lsp *l, enum lsp_enc enc, const char *uri, const cJSON *range, struct buf *out)
{
	char *rel = lsp_uri_path(l, uri);
	struct buf path = BUF_INIT(BUF_NOLIMIT), text = BUF_INIT(LSP_FILE_MAX + 1);
	long ln = (long)json_int(json_get(range, "start"), "line", 0);
	long col = (long)json_int(json_get(range, "start"), "character", 0) + 1;
	const char *lp;
	size_t n;

	if (rel[0] == '/')
		buf_puts(&path, rel);
	else
		buf_printf(&path, "%s/%s", l->cfg->root, rel);
	/* a file the deny rules cover is named, never quoted */
	if (lsp_quotable(l, buf_cstr(&path)) &&
	    !tool_denied(l->env, SANDBOX_READ, buf_cstr(&path)) &&
	    file_read(buf_cstr(&path), LSP_FILE_MAX, 0, &text, NULL) == 0 &&
	    lsp_line_of(text.data, text.len, ln, &lp, &n)) {
		col = lsp_col_to_chars(lp, n, col - 1, enc);
		while (n > 0 && (*lp == ' ' || *lp == '\t')) {
			lp++;
			n--;
		}
		if (n > 200)
			n = utf8_floor(lp, 200);
		buf_printf(out, "%s:%ld:%ld: %.*s\n", rel, ln + 1, col, (int)n, lp);
	} else
		buf_printf(out, "%s:%ld:%ld\n", rel, ln + 1, col);
	buf_release(&path);
	buf_release(&text);
	free(rel);
}

static void
lsp_put_locations(struct lsp *l, enum lsp_enc enc, const cJSON *r, struct buf *out)
{
	const cJSON *loc;
	int n = 0, total;

	if (cJSON_IsObject(r)) {
		lsp_put_location(l, enc, json_str(r, "uri", ""), json_get(r, "range"), out);
		return;
	}
	total = cJSON_GetArraySize(r);
	cJSON_ArrayForEach(loc, r) {
		if (n++ == LSP_TOOL_RESULTS) {
			buf_printf(out, "... and %d more\n", total - LSP_TOOL_RESULTS);
			break;
		}
		if (json_get(loc, "targetUri") != NULL)
			lsp_put_location(l, enc, json_str(loc, "targetUri", ""),
			    json_get(loc, "targetSelectionRange"), out);
		else
			lsp_put_location(l, enc, json_str(loc, "uri", ""), json_get(loc, "range"), out);
	}
}

static void
lsp_put_hover(const cJSON *r, struct buf *out)
{
	const cJSON *c = json_get(r, "contents"), *m;

	if (cJSON_IsString(c))
		buf_puts(out, c->valuestring);
	else if (cJSON_IsObject(c))
		buf_puts(out, json_str(c, "value", ""));
	else
		cJSON_ArrayForEach(m, c) {
			buf_puts(out, cJSON_IsString(m) ? m->valuestring : json_str(m, "value", ""));
			buf_putc(out, '\n');
		}
	if (out->len > TOOL_READ_CAP)
		buf_truncate(out, utf8_floor(out->data, TOOL_READ_CAP));
}

static void
lsp_put_symbols(struct lsp *l, const cJSON *arr, int depth, int *n, struct buf *out)
{
	const cJSON *sym;

	cJSON_ArrayForEach(sym, arr) {
		const cJSON *range = json_get(sym, "selectionRange");
		const char *uri = NULL;

		if (++*n > LSP_TOOL_RESULTS * 4)
			return;
		if (range == NULL) {
			range = json_get(json_get(sym, "location"), "range");
			uri = json_str(json_get(sym, "location"), "uri", NULL);
		}
		if (range == NULL)
			range = json_get(sym, "range");
		buf_printf(out, "%*s%s (%s) ", depth * 2, "", json_str(sym, "name", "?"),
		    lsp_kind((int)json_int(sym, "kind", 0)));
		if (uri != NULL) {
			char *rel = lsp_uri_path(l, uri);

			buf_printf(out, "%s:", rel);
			free(rel);
		} else
			buf_puts(out, "line ");
		buf_printf(out, "%ld\n", (long)json_int(json_get(range, "start"), "line", 0) + 1);
		lsp_put_symbols(l, json_get(sym, "children"), depth + 1, n, out);
	}
}

static void
lsp_job_reply(struct lsp_server *s, void *arg, const cJSON *result, const cJSON *error)
{
	struct lsp_job *j = arg;
	struct buf *out = &j->out.text;
	int n = 0;

	j->asked = NULL;
	(void)s;
	if (error != NULL) {
		tool_out_error(&j->out, "the language server failed the request: %s",
		    json_str(error, "message", "no reason given"));
	} else if (result == NULL || cJSON_IsNull(result) ||
	    (cJSON_IsArray(result) && cJSON_GetArraySize(result) == 0)) {
		buf_printf(out, "%s: nothing found", j->op->name);
	} else if (strcmp(j->op->name, "hover") == 0) {
		lsp_put_hover(result, out);
	} else if (j->op->position) {
		lsp_put_locations(j->lsp, s->enc, result, out);
	} else {
		lsp_put_symbols(j->lsp, result, 0, &n, out);
	}
	lsp_job_finish(j);
}

/* The request's params for j's document (position converted to the server's units). */
static cJSON *
lsp_job_params(struct lsp_job *j, struct lsp_server *s)
{
	cJSON *p = cJSON_CreateObject(), *td, *pos;
	long line = (long)json_int(j->input, "line", 1) - 1, col = (long)json_int(j->input, "column", 1);
	const char *lp;
	size_t n;

	if (strcmp(j->op->name, "workspace_symbols") == 0) {
		cJSON_AddStringToObject(p, "query", json_str(j->input, "query", ""));
		return p;
	}
	td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", j->doc->uri);
	if (!j->op->position)
		return p;
	if (line < 0)
		line = 0;
	if (lsp_line_of(j->doc->text, j->doc->len, line, &lp, &n))
		col = lsp_chars_to_col(lp, n, col, s->enc);
	else
		col = col > 0 ? col - 1 : 0;
	pos = cJSON_AddObjectToObject(p, "position");
	cJSON_AddNumberToObject(pos, "line", (double)line);
	cJSON_AddNumberToObject(pos, "character", (double)col);
	if (strcmp(j->op->name, "references") == 0)
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(p, "context"), "includeDeclaration", true);
	return p;
}

static void lsp_job_step(struct ev_loop *, void *);

static void
lsp_job_later(struct lsp_job *j, int64_t ms)
{
	j->timer = ev_timer_add(j->lsp->loop, ms, lsp_job_step, j);
}

static void
lsp_job_step(struct ev_loop *loop, void *arg)
{
	struct lsp_job *j = arg;
	int r;

	(void)loop;
	j->timer = 0;
	if (j->out.is_error) {
		lsp_job_finish(j);
		return;
	}
	if (ev_now_ms() >= j->deadline) {
		tool_out_error(&j->out, "the language server did not answer in time");
		lsp_job_finish(j);
		return;
	}
	if (j->asked != NULL) {
		lsp_job_later(j, LSP_TOOL_POLL_MS);
		return;
	}
	r = lsp_doc_ensure(j->lsp, j->doc);
	if (r == -1) {
		const char *why;

		(void)lsp_doc_server(j->lsp, j->doc, &why);
		tool_out_error(&j->out, "no language server for %s: %s", j->doc->rel,
		    why != NULL ? why : "it cannot be read, or its server ended");
		lsp_job_finish(j);
		return;
	}
	if (r == 0) {
		lsp_job_later(j, LSP_TOOL_POLL_MS);
		return;
	}
	j->asked = j->doc->open_in;
	lsp_server_request(j->asked, j->op->method, lsp_job_params(j, j->asked), lsp_job_reply, j);
	if (j->asked != NULL)
		lsp_job_later(j, LSP_TOOL_POLL_MS);
}

static void *
lsp_code_start(const struct tool_def *def, const cJSON *input, const char *id,
    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg)
{
	struct lsp *l = def->owner;
	struct lsp_job *j = xcalloc(1, sizeof *j);
	const char *opname = json_str(input, "operation", ""), *path = json_str(input, "path", NULL);
	size_t i;

	(void)id;
	(void)progress;
	j->lsp = l;
	j->input = cJSON_Duplicate(input, 1);
	j->done = done;
	j->arg = arg;
	j->deadline = ev_now_ms() + LSP_REQUEST_MS + LSP_START_MS;
	tool_out_init(&j->out);
	j->next = l->jobs;
	l->jobs = j;
	for (i = 0; i < sizeof lsp_ops / sizeof lsp_ops[0]; i++)
		if (strcmp(lsp_ops[i].name, opname) == 0)
			j->op = &lsp_ops[i];
	if (j->op == NULL)
		tool_out_error(&j->out, "operation must be one of definition, references, hover, "
		    "document_symbols, workspace_symbols");
	else if (path == NULL)
		tool_out_error(&j->out, "give a path: its language decides which server answers");
	else if (tool_denied(l->env, SANDBOX_READ, path))
		tool_out_error(&j->out, "%s is denied by a permission rule", path);
	else {
		size_t rl = strlen(l->cfg->root);
		const char *rel = path;

		if (path[0] == '/' && strncmp(path, l->cfg->root, rl) == 0 && path[rl] == '/')
			rel = path + rl + 1;
		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		if (rel[0] == '/' || strncmp(rel, "../", 3) == 0 || strstr(rel, "/../") != NULL)
			tool_out_error(&j->out, "%s is outside the workspace", path);
		else if (!lsp_inside(l, rel))
			tool_out_error(&j->out, "%s leads outside the workspace through a symbolic "
			    "link; use a path inside it", path);
		else if ((j->doc = lsp_doc_get(l, rel, true)) == NULL)
			tool_out_error(&j->out, "no language server handles %s", path);
		else if (j->op->position && json_get(input, "line") == NULL)
			tool_out_error(&j->out, "%s needs line and column", opname);
	}
	/* done never comes before start returns */
	lsp_job_later(j, 0);
	return j;
}

static void
lsp_code_cancel(void *job)
{
	struct lsp_job *j = job;

	tool_out_error(&j->out, "interrupted");
	if (j->timer != 0)
		ev_timer_cancel(j->lsp->loop, j->timer);
	lsp_job_later(j, 0);
}

const struct tool_async lsp_code_async = { lsp_code_start, lsp_code_cancel };

void
lsp_jobs_cancel_all(struct lsp *l)
{
	/* tandem is ending: the scheduler is going too, so done is not called */
	while (l->jobs != NULL) {
		struct lsp_job *j = l->jobs;

		l->jobs = j->next;
		if (j->timer != 0)
			ev_timer_cancel(l->loop, j->timer);
		if (j->asked != NULL)
			lsp_server_forget(j->asked, j);
		tool_out_release(&j->out);
		cJSON_Delete(j->input);
		free(j);
	}
}
